// The cloud readers (GCP, GKE, OCI, Nebius, AWS) on the 64-instance fixtures of
// tests/data/cloud (generate.py says how each is laid out), the host map, and
// hostile inputs.
#include "catch.hpp"
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <unistd.h>

#include "testdata.hpp"
#include "topology/cloud.hpp"
#include "topology/io.hpp"
#include "topology/json.hpp"
#include "topology/topology.hpp"

using namespace atl;

namespace {

// island name -> its hosts' names, at one level
std::map<std::string, std::vector<std::string>> islands(const Topology &t, Level l)
{
    std::map<std::string, std::vector<std::string>> out;
    for (int i : t.islands_at(l))
        for (int h : t.islands[static_cast<std::size_t>(i)].hosts)
            out[t.islands[static_cast<std::size_t>(i)].name].push_back(t.hosts[static_cast<std::size_t>(h)].name);
    return out;
}

std::vector<std::size_t> sizes(const std::map<std::string, std::vector<std::string>> &m)
{
    std::vector<std::size_t> s;
    for (const auto &kv : m)
        s.push_back(kv.second.size());
    std::sort(s.begin(), s.end());
    return s;
}

std::string domain_of(const Fabric &f, const std::string &host)
{
    for (const HostDomain &d : f.domains)
        if (d.host == host)
            return d.domain;
    return "";
}

HostMap map_of(const std::string &text)
{
    std::istringstream in(text);
    return parse_host_map(in, "hosts.map");
}

template <class Reader> Fabric read(Reader r, const std::string &text, const HostMap *m = nullptr)
{
    std::istringstream in(text);
    return r(in, "in", m);
}

}  // namespace

TEST_CASE("gcp instances.list gives one leaf island per sub-block and one pod per block", "[topology][cloud]")
{
    // cluster c7d1e5a2f0; block b0f3a1: s1a9 (a4x-001..018), s2c4 (019..036);
    // block b9e27d: s3d8 (037..054), s4f1 (055..064); login-0 has no topology
    Fabric f = load_fabric(test_data("cloud/gcp-instances.json"));
    CHECK(f.kind == "gcp");
    REQUIRE(f.warnings.size() == 1);
    CHECK_THAT(f.warnings[0], Catch::Contains("items[20] (login-0): no resourceStatus.physicalHostTopology"));
    Topology t = analyse(f);
    CHECK(t.hosts.size() == 64);
    auto leaf = islands(t, Level::Leaf);
    CHECK(sizes(leaf) == std::vector<std::size_t>{10, 18, 18, 18});
    CHECK(leaf.at("s4f1").front() == "a4x-055");
    CHECK(leaf.at("s1a9").back() == "a4x-018");
    CHECK(sizes(islands(t, Level::Pod)) == std::vector<std::size_t>{28, 36});
    CHECK(islands(t, Level::Fabric).begin()->second.size() == 64);
    // gcloud prints a bare array, and the instance kind only after each disk's
    // licences: read as GCP all the same
    {
        char dir[] = "/tmp/atoll-gcloud-XXXXXX";
        REQUIRE(mkdtemp(dir));
        std::string path = std::string(dir) + "/list.json";
        std::ofstream(path) << "[{\"disks\": [{\"licenses\": [\"" << std::string(5000, 'l')
                            << "\"]}], \"name\": \"a\", \"resourceStatus\": {\"physicalHostTopology\": "
                               "{\"cluster\": \"c\", \"block\": \"b\", \"subblock\": \"s\"}}}]";
        Fabric g = load_fabric(path);
        std::remove(path.c_str());
        rmdir(dir);
        CHECK(g.kind == "gcp");
    }
    // the sub-block is the NVLink domain
    CHECK(f.domains.size() == 64);
    CHECK(domain_of(f, "a4x-019") == "s2c4");
    CHECK(domain_of(f, "login-0").empty());

    SECTION("a host map names hosts by instance ID or by name")
    {
        HostMap m = map_of("# id or name -> Slurm\n4611686018427387905 gpu-1\na4x-002 gpu-2   # by name\n");
        Fabric g = load_fabric(test_data("cloud/gcp-instances.json"), InputFormat::Auto, {}, {}, &m);
        Topology tg = analyse(g);
        CHECK(tg.host_index.count("gpu-1"));
        CHECK(tg.host_index.count("gpu-2"));
        CHECK(!tg.host_index.count("a4x-001"));
        CHECK(domain_of(g, "gpu-1") == "s1a9");
        CHECK_THAT(g.warnings.back(), Catch::Contains("62 of 64 instances the host map does not name (first 'a4x-003')"));
    }
}

TEST_CASE("gke node labels give the same islands as the instances they run on", "[topology][cloud]")
{
    Fabric f = load_fabric(test_data("cloud/gke-nodes.json"));
    CHECK(f.kind == "gcp");
    Topology t = analyse(f);
    CHECK(t.hosts.size() == 64);  // the default-pool node has no topology labels
    auto leaf = islands(t, Level::Leaf);
    CHECK(sizes(leaf) == std::vector<std::size_t>{10, 18, 18, 18});
    CHECK(leaf.at("s2c4").front() == "gke-a4x-pool-5e7a0c31-0019");
    CHECK(sizes(islands(t, Level::Pod)) == std::vector<std::size_t>{28, 36});
    CHECK(domain_of(f, "gke-a4x-pool-5e7a0c31-0064") == "s4f1");
}

TEST_CASE("oci rdmaTopologyData from pdsh gives local blocks under network blocks", "[topology][cloud]")
{
    // HPC island 7qmca5aa; network block nb01: local blocks lb01..lb04 (gpu-001..032),
    // nb02: lb05..lb08 (gpu-033..064), 8 hosts each; GPU memory fabric per local block
    Fabric f = load_fabric(test_data("cloud/oci-rdma-topology.pdsh"));
    CHECK(f.kind == "oci");
    Topology t = analyse(f);
    CHECK(t.hosts.size() == 64);
    auto leaf = islands(t, Level::Leaf);
    CHECK(sizes(leaf) == std::vector<std::size_t>(8, 8));
    const auto &lb2 = leaf.at("ocid1.computelocalblock.oc1.ap-osaka-1.anvwgljrlb02aa");
    CHECK(lb2.front() == "gpu-009");
    CHECK(lb2.back() == "gpu-016");
    CHECK(sizes(islands(t, Level::Pod)) == std::vector<std::size_t>{32, 32});
    CHECK(domain_of(f, "gpu-033") == "ocid1.computegpumemoryfabric.oc1.ap-osaka-1.anvwgljrgf05aa");
    CHECK_THAT(f.domains.front().source, Catch::Contains("oci-rdma-topology.pdsh:1 (gpu-001) customerGpuMemoryFabric"));
}

TEST_CASE("oci ListComputeHosts names each host by its instance", "[topology][cloud]")
{
    Fabric f = load_fabric(test_data("cloud/oci-compute-hosts.json"));
    CHECK(f.kind == "oci");
    REQUIRE(f.warnings.size() == 1);
    CHECK_THAT(f.warnings[0], Catch::Contains("items[5]: a compute host running no instance, left out"));
    Topology t = analyse(f);
    CHECK(t.hosts.size() == 64);
    CHECK(sizes(islands(t, Level::Leaf)) == std::vector<std::size_t>(8, 8));
    CHECK(t.host_index.count("ocid1.instance.oc1.ap-osaka-1.anvwgljr000000000000000000000001"));

    SECTION("the oci CLI's kebab-case answer under data.items reads the same")
    {
        Fabric c = read(parse_oci_topology,
                        "{\"data\": {\"items\": [{\"id\": \"h1\", \"instance-id\": \"i1\", \"local-block-id\": \"L1\", "
                        "\"network-block-id\": \"N1\", \"hpc-island-id\": \"I1\", \"gpu-memory-fabric-id\": \"G1\"}]}}");
        CHECK(domain_of(c, "i1") == "G1");
    }
    SECTION("a host map names the pdsh and API hosts alike")
    {
        HostMap m = map_of("ocid1.computebaremetalhost.oc1.ap-osaka-1.anvwgljr000000000000000000000007 node7\n");
        Topology a = analyse(load_fabric(test_data("cloud/oci-compute-hosts.json"), InputFormat::Oci, {}, {}, &m));
        Topology b = analyse(load_fabric(test_data("cloud/oci-rdma-topology.pdsh"), InputFormat::Oci, {}, {}, &m));
        CHECK(a.host_index.count("node7"));
        CHECK(b.host_index.count("node7"));
        CHECK(!b.host_index.count("gpu-007"));
    }
}

TEST_CASE("nebius infiniband_topology_path gives leaves under spines, root first", "[topology][cloud]")
{
    // fabric-7; spine-7-1: leaf-7-1-1..4 (worker-0..31), spine-7-2: leaf-7-2-1..4
    // (worker-32..63), 8 each; NVLink group per 16 workers; login-0 not in a GPU cluster
    Fabric f = load_fabric(test_data("cloud/nebius-instances.json"));
    CHECK(f.kind == "nebius");
    Topology t = analyse(f);
    CHECK(t.hosts.size() == 64);
    auto leaf = islands(t, Level::Leaf);
    CHECK(sizes(leaf) == std::vector<std::size_t>(8, 8));
    CHECK(leaf.at("leaf-7-2-1").front() == "worker-32");
    auto pod = islands(t, Level::Pod);
    CHECK(sizes(pod) == std::vector<std::size_t>{32, 32});
    CHECK(domain_of(f, "worker-15") == "nvlgroup-e000001");
    CHECK(domain_of(f, "worker-16") == "nvlgroup-e000002");
    HostMap m = map_of("computeinstance-e00000000000007a01 n0\n");
    CHECK(analyse(load_fabric(test_data("cloud/nebius-instances.json"), InputFormat::Auto, {}, {}, &m)).host_index.count("n0"));
}

TEST_CASE("aws CapacityBlockId is the NVLink domain of a P6e-GB200 instance", "[topology][cloud]")
{
    // core c0; pods d1 (leaves e1..e4), d2 (e5..e8), 8 instances each; one
    // capacity block per 16 instances
    Fabric f = load_fabric(test_data("cloud/aws-p6e-gb200.json"));
    Topology t = analyse(f);
    CHECK(t.hosts.size() == 64);
    CHECK(sizes(islands(t, Level::Leaf)) == std::vector<std::size_t>(8, 8));
    CHECK(sizes(islands(t, Level::Pod)) == std::vector<std::size_t>{32, 32});
    CHECK(f.domains.size() == 64);
    CHECK(domain_of(f, "i-00000000000001f01") == "cr-00000000000000cb0");
    CHECK(domain_of(f, "i-00000000000001f11") == "cr-00000000000000cb1");
    CHECK(load_fabric(test_data("cloud/aws-instance-topology.json")).domains.empty());
}

TEST_CASE("each cloud's answer is told by its first bytes", "[topology][cloud]")
{
    CHECK(cloud_format("{\"Instances\": [") == "aws");
    CHECK(cloud_format("{\"kind\": \"compute#instanceList\"") == "gcp");
    CHECK(cloud_format("{\"apiVersion\": \"v1\", \"items\": [{\"apiVersion\": \"v1\", \"kind\" : \"Node\"") == "gcp");
    CHECK(cloud_format("gpu-1: {\"customerHPCIslandId\": \"x\"") == "oci");
    CHECK(cloud_format("{\"items\": [{\"hpcIslandId\": \"x\"") == "oci");
    CHECK(cloud_format("{\"items\": [{\"metadata\": {\"id\": \"computeinstance-e00") == "nebius");
    CHECK(cloud_format("{\"atoll-fabric\": 1, \"Instances\": []}").empty());
    CHECK(cloud_format("{\"nodes\": []}").empty());
}

TEST_CASE("a host map refuses bad lines, an ID twice, one host onto two names and two hosts onto one", "[topology][cloud]")
{
    HostMap m = map_of("i-1 node1\n\n  # comment\ni-2\tnode2\r\n");
    CHECK(m.names.at("i-2") == "node2");
    CHECK(m.where.at("i-2") == "hosts.map:4");
    CHECK_THROWS_WITH(map_of("i-1\n"), Catch::StartsWith("hosts.map:1: found 'i-1', expected CLOUD-ID SLURM-NAME"));
    CHECK_THROWS_WITH(map_of("i-1 a b\n"), Catch::StartsWith("hosts.map:1: found 'i-1 a b', expected CLOUD-ID SLURM-NAME"));
    CHECK_THROWS_WITH(map_of("i-1 a\ni-1 b\n"), Catch::StartsWith("hosts.map:2: found 'i-1' again (first at hosts.map:1)"));
    CHECK(map_of("i-1 a\ni-2 a\n").names.size() == 2);  // maybe one host's two names: the reader decides
    CHECK_THROWS_WITH(map_of("i-1 n\x01x\n"), Catch::StartsWith("hosts.map:1: found 'n\\x01x'"));
    CHECK_THROWS_WITH(map_of("i-1 " + std::string(300, 'x') + "\n"), Catch::Contains("expected a name of 1 to 255"));
    CHECK_THROWS_WITH(map_of("i-1 DEFAULT\n"), Catch::StartsWith("hosts.map:1: found Slurm name 'DEFAULT': it is 'DEFAULT', a word Slurm reserves"));
    CHECK_THROWS_WITH(map_of("i-1 gpu=1\n"), Catch::StartsWith("hosts.map:1: found Slurm name 'gpu=1': it holds '='"));

    SECTION("a map that gives one host another host's name is refused")
    {
        const char *two = "gpu-a: {\"customerLocalBlock\": \"L\", \"customerNetworkBlock\": \"N\", \"customerHPCIslandId\": \"I\"}\n"
                          "gpu-b: {\"customerLocalBlock\": \"L\", \"customerNetworkBlock\": \"N\", \"customerHPCIslandId\": \"I\"}\n";
        HostMap onto = map_of("gpu-a gpu-b\n");
        CHECK_THROWS_WITH(read(parse_oci_topology, two, &onto),
                          Catch::StartsWith("in:2 (gpu-b): found host 'gpu-b' again (first at in:1 (gpu-a))"));
    }
    SECTION("a host's two names onto one Slurm name are one host; onto two names or two hosts onto one, refused")
    {
        const std::string gcp = "{\"items\": [{\"id\": \"111\", \"name\": \"a3u-1\", \"resourceStatus\": "
                                "{\"physicalHostTopology\": {\"cluster\": \"c\", \"block\": \"b\", \"subblock\": \"s\"}}}, "
                                "{\"id\": \"112\", \"name\": \"a3u-2\", \"resourceStatus\": "
                                "{\"physicalHostTopology\": {\"cluster\": \"c\", \"block\": \"b\", \"subblock\": \"s\"}}}]}";
        HostMap same = map_of("111 gpu1\na3u-1 gpu1\n");
        Topology t = analyse(read(parse_gcp_topology, gcp, &same));
        CHECK(t.host_index.count("gpu1"));
        CHECK(t.host_index.count("a3u-2"));
        CHECK(t.hosts.size() == 2);
        HostMap two = map_of("111 gpu1\na3u-1 gpu9\n");
        CHECK_THROWS_WITH(read(parse_gcp_topology, gcp, &two),
                          Catch::Contains("hosts.map:1") && Catch::Contains("hosts.map:2") &&
                              Catch::Contains("'gpu1'") && Catch::Contains("'gpu9'") &&
                              Catch::Contains("maps the same host (in: items[0] (a3u-1))") &&
                              Catch::EndsWith("expected one Slurm name per host"));
        HostMap onto = map_of("111 gpu1\n112 gpu1\n");
        CHECK_THROWS_WITH(read(parse_gcp_topology, gcp, &onto),
                          Catch::StartsWith("hosts.map:2: found 'gpu1' again (first at hosts.map:1), expected one cloud ID per Slurm node"));
        std::istringstream csv("host,leaf\na,L1\nb,L1\n");
        Fabric f = parse_topology_csv(csv, "f.csv");
        CHECK_THROWS_WITH(apply_host_map(f, map_of("a x\nb x\n")),
                          Catch::StartsWith("hosts.map:2: found 'x' again (first at hosts.map:1)"));
    }
    SECTION("a CSV's hosts are renamed after it is read")
    {
        std::istringstream csv("host,leaf\na,L1\nb,L1\n");
        Fabric f = parse_topology_csv(csv, "f.csv");
        CHECK(apply_host_map(f, map_of("a node-a\n")) == 1);
        Topology t = analyse(f);
        CHECK(t.host_index.count("node-a"));
        CHECK_THROWS_WITH(apply_host_map(f, map_of("node-a b\n")), Catch::Contains("a host the input already has"));
    }
}

TEST_CASE("cloud readers refuse hostile input with the file and the instance", "[topology][cloud]")
{
    const std::string sub = "\"resourceStatus\": {\"physicalHostTopology\": {\"cluster\": \"c\", \"block\": \"b\", \"subblock\": \"s\"}}";
    CHECK_THROWS_WITH(read(parse_gcp_topology, "{\"items\": [{\"name\": \"a\""), Catch::StartsWith("in: not valid JSON"));
    CHECK_THROWS_WITH(read(parse_gcp_topology, "{\"items\": {}}"), Catch::StartsWith("in: found no \"items\" array"));
    CHECK_THROWS_WITH(read(parse_gcp_topology, "[{\"name\": 7, " + sub + "}]"),
                      Catch::StartsWith("in: items[0]: found name 7, expected a string"));
    CHECK_THROWS_WITH(read(parse_gcp_topology, "[{\"name\": \"a\", " + sub + "}, {\"name\": \"a\", " + sub + "}]"),
                      Catch::StartsWith("in: items[1] (a): found host 'a' again (first at in: items[0] (a))"));
    CHECK_THROWS_WITH(read(parse_gcp_topology, "[{\"name\": \"a\\u001bb\", " + sub + "}]"),
                      Catch::StartsWith("in: items[0]: found name 'a\\x1bb', expected 1 to 255 printable"));
    CHECK_THROWS_WITH(read(parse_gcp_topology, "[{\"name\": \"" + std::string(100000, 'h') + "\", " + sub + "}]"),
                      Catch::Contains("(100000 bytes), expected 1 to 255"));
    CHECK_THROWS_WITH(read(parse_gcp_topology, "[{\"name\": \"a\", \"resourceStatus\": {\"physicalHostTopology\": []}}]"),
                      Catch::StartsWith("in: items[0] (a): found physicalHostTopology [], expected an object"));
    CHECK_THROWS_WITH(read(parse_gcp_topology, "[{\"name\": \"a\", \"resourceStatus\": {}}]"),
                      Catch::StartsWith("in: found no instance with a topology"));
    // Compute Engine scopes a sub-block's ID to its block and a block's to its
    // cluster (HostPhysicalTopology): the same ID under two parents is two islands
    {
        // a, b, c are A4X (a sub-block is their NVLink domain), d an A3
        // Ultra and e of no machine type given: no domain
        auto at = [](const char *name, const char *cl, const char *bl, const char *sb) {
            std::string n = name;
            std::string mt = n == "d" ? "a3-ultragpu-8g" : n == "e" ? "" : "a4x-highgpu-4g";
            return std::string("{\"name\": \"") + name + "\", " +
                   (mt.empty() ? "" : "\"machineType\": \"https://www.googleapis.com/compute/v1/projects/p/zones/z/machineTypes/" + mt + "\", ") +
                   "\"resourceStatus\": {\"physicalHostTopology\": {\"cluster\": \"" +
                   cl + "\", \"block\": \"" + bl + "\", \"subblock\": \"" + sb + "\"}}}";
        };
        Fabric g = read(parse_gcp_topology, "[" + at("a", "c", "b", "s") + ", " + at("b", "c", "b2", "s") + ", " +
                                                at("c", "c", "b", "s") + ", " + at("d", "c", "b2", "t") + ", " +
                                                at("e", "c2", "b", "u") + "]");
        Topology t = analyse(g);
        auto leaf = islands(t, Level::Leaf);
        // block b is in clusters c and c2, so its sub-block s is c-b-s
        CHECK(leaf.at("c-b-s") == std::vector<std::string>{"a", "c"});
        CHECK(leaf.at("b2-s") == std::vector<std::string>{"b"});
        CHECK(leaf.at("t") == std::vector<std::string>{"d"});  // unique: kept as given
        CHECK(leaf.at("u") == std::vector<std::string>{"e"});
        CHECK(leaf.size() == 4);
        for (const auto &kv : islands(t, Level::Pod))
            if (std::find(kv.second.begin(), kv.second.end(), "b") != kv.second.end())
                CHECK(kv.second == std::vector<std::string>{"b", "d"});  // block b2's two sub-blocks
            else
                CHECK(std::find(kv.second.begin(), kv.second.end(), "d") == kv.second.end());
        CHECK(domain_of(g, "a") == "c-b-s");
        CHECK(domain_of(g, "b") == "b2-s");
        CHECK(domain_of(g, "d").empty());
        CHECK(domain_of(g, "e").empty());
        // (helper 38) a name so made that spells another's ID: block b of
        // cluster c (c-b, as b is also in c2) and a block "c-b" of
        // cluster c3 stayed one pod, sub-blocks s (c-b-s) and a sub-block
        // "c-b-s" one leaf: each now carries its path's hash
        Fabric h = read(parse_gcp_topology, "[" + at("a", "c", "b", "s") + ", " + at("b", "c2", "b", "s2") + ", " +
                                                at("c", "c3", "c-b", "c-b-s") + ", " + at("d", "c4", "x", "s") + ", " +
                                                at("e", "c4", "y", "s") + "]");
        Topology th = analyse(h);
        auto lf = islands(th, Level::Leaf), pd = islands(th, Level::Pod);
        CHECK(lf.size() == 5);
        CHECK(pd.size() == 5);
        for (const auto &kv : lf)
            CHECK(kv.second.size() == 1);
        for (const auto &kv : pd)
            CHECK(kv.second.size() == 1);
        CHECK(lf.count("s2") == 1);    // no name met twice: as before
        CHECK(lf.count("c-b-s") == 0);    // met twice: both hashed
        // (helper 45) a hashed name that spells yet another ID (cluster c4's
        // block named as c's block b was hashed) is hashed again: it was an
        // error, "found pod ... under c4 and under c"
        char hx[9];
        std::snprintf(hx, sizeof hx, "%08llx", static_cast<unsigned long long>(name_guid("gcp", "c/b") & 0xffffffffu));
        const std::string made = std::string("c-b-") + hx;
        Fabric h2 = read(parse_gcp_topology, "[" + at("a", "c", "b", "s") + ", " + at("b", "c2", "b", "s2") + ", " +
                                                 at("c", "c3", "c-b", "t") + ", " + at("d", "c4", made.c_str(), "u") + "]");
        Topology t2 = analyse(h2);
        CHECK(islands(t2, Level::Pod).size() == 4);
        CHECK(t2.hosts.size() == 4);
    }
    CHECK_THROWS_WITH(read(parse_oci_topology, "gpu-1 {\"customerLocalBlock\": \"L\"}\n"),
                      Catch::StartsWith("in:1: found host 'gpu-1 {\"customerLocalBlock\"', expected 1 to 255 printable"));
    CHECK_THROWS_WITH(read(parse_oci_topology, "gpu-1 without a colon\n"), Catch::StartsWith("in:1: found 'gpu-1 without a colon', expected HOST: {"));
    CHECK_THROWS_WITH(read(parse_oci_topology, "gpu-1: curl: (7) Failed to connect\n"),
                      Catch::StartsWith("in: found no instance with a topology"));  // its one host left out
    CHECK_THROWS_WITH(read(parse_oci_topology, "gpu-1: {\ngpu-2: {}\ngpu-1:   \"customerLocalBlock\": \n"),
                      Catch::StartsWith("in:1 (gpu-1): not valid JSON"));
    CHECK_THROWS_WITH(read(parse_oci_topology, "gpu-1: {\"customerLocalBlock\": \"L\", \"customerNetworkBlock\": \"N\"}\n"),
                      Catch::StartsWith("in:1 (gpu-1): found no customerHPCIslandId"));
    CHECK_THROWS_WITH(read(parse_oci_topology, "gpu-1: {\"customerLocalBlock\": 5, \"customerNetworkBlock\": \"N\", "
                                               "\"customerHPCIslandId\": \"I\"}\n"),
                      Catch::StartsWith("in:1 (gpu-1): found customerLocalBlock 5, expected a string"));
    CHECK_THROWS_WITH(read(parse_oci_topology, "{\"items\": [{\"instanceId\": \"i\", \"localBlockId\": \"L\"}]}"),
                      Catch::StartsWith("in: items[0] (i): found no networkBlockId"));
    CHECK_THROWS_WITH(read(parse_nebius_topology, "{\"items\": [{\"metadata\": {\"id\": \"x\"}, \"status\": "
                                                  "{\"infiniband_topology_path\": {\"path\": [\"a\", \"b\"]}}}]}"),
                      Catch::StartsWith("in: items[0] (x): found infiniband_topology_path.path an array of 2, expected three tiers"));
    CHECK_THROWS_WITH(read(parse_nebius_topology, "{\"items\": [{\"spec\": {}}]}"),
                      Catch::StartsWith("in: items[0]: found no metadata"));
    CHECK_THROWS_WITH(read(parse_aws_topology, "{\"Instances\": [{\"InstanceId\": \"i-1\", \"NetworkNodes\": [\"a\", \"b\", \"c\"], "
                                               "\"CapacityBlockId\": 3}]}"),
                      Catch::StartsWith("in: Instances[0] (i-1): found CapacityBlockId 3, expected a string"));
}

TEST_CASE("a fabric.json of a cloud's hosts is read back as fabric.json, not as that cloud", "[topology][cloud]")
{
    // hosts named by Nebius instance IDs and a domain read from
    // nvl_instance_group_id: the words the Nebius sniffer looks for
    std::string text = "{\"items\": [";
    for (int i = 0; i < 40; ++i)
        text += std::string(i ? "," : "") + "{\"metadata\": {\"id\": \"computeinstance-e00" + std::to_string(100 + i) +
                "\"}, \"spec\": {\"nvl_instance_group_id\": \"g1\"}, \"status\": {\"infiniband_topology_path\": "
                "{\"path\": [\"f\", \"s\", \"l" + std::to_string(i / 8) + "\"]}}}";
    text += "]}";
    Fabric f = read(parse_nebius_topology, text);
    char dir[] = "/tmp/atoll-cloudjson-XXXXXX";
    REQUIRE(mkdtemp(dir));
    std::string path = std::string(dir) + "/fabric.json";
    {
        std::ofstream out(path);
        save_fabric_json(out, analyse(f));
    }
    Fabric back = load_fabric(path);
    std::remove(path.c_str());
    rmdir(dir);
    CHECK(back.kind == "nebius");
    CHECK(back.nodes.size() == f.nodes.size());
    CHECK(back.domains.size() == 40);
}

TEST_CASE("OCI pdsh output of indented JSON is joined host by host; pdsh's and IMDS's errors leave a host out", "[topology][cloud]")
{
    // IMDS v2 answers /opc/v2/host/rdmaTopologyData indented over lines,
    // which pdsh prefixes line by line, two hosts' lines interleaved
    const std::string pretty = "gpu-1: {\n"
                               "gpu-2: {\n"
                               "gpu-1:   \"customerHPCIslandId\": \"I\",\n"
                               "gpu-2:   \"customerHPCIslandId\": \"I\",\n"
                               "gpu-1:   \"customerNetworkBlock\": \"N\",\n"
                               "gpu-2:   \"customerNetworkBlock\": \"N\",\n"
                               "gpu-1:   \"customerLocalBlock\": \"L1\",\n"
                               "gpu-2:   \"customerLocalBlock\": \"L2\",\n"
                               "gpu-1:   \"customerHostId\": \"ocid1.host.1\"\n"
                               "gpu-2:   \"customerHostId\": \"ocid1.host.2\"\n"
                               "gpu-1: }\n"
                               "gpu-2: }\n";
    Topology t = analyse(read(parse_oci_topology, pretty));
    REQUIRE(t.hosts.size() == 2);
    CHECK(t.island_of(t.host_index.at("gpu-1"), Level::Leaf) != t.island_of(t.host_index.at("gpu-2"), Level::Leaf));
    CHECK(t.island_of(t.host_index.at("gpu-1"), Level::Pod) == t.island_of(t.host_index.at("gpu-2"), Level::Pod));
    // an error keeps the line of the host's first line
    std::string bad = pretty;
    bad.replace(bad.find("\"L2\""), 4, "L2");
    CHECK_THROWS_WITH(read(parse_oci_topology, bad), Catch::StartsWith("in:2 (gpu-2): not valid JSON"));

    const std::string one = "{\"customerHPCIslandId\": \"I\", \"customerNetworkBlock\": \"N\", \"customerLocalBlock\": \"L\"}";
    Fabric f = read(parse_oci_topology, "gpu-1: " + one + "\n"
                                        "gpu-5: curl: (7) Failed to connect to 169.254.169.254 port 80: Connection refused\n"
                                        "pdsh@head: gpu-6: ssh exited with exit code 255\n"
                                        "gpu-7: {\"code\":\"NotAuthorizedOrNotFound\",\"message\":\"Not found\"}\n");
    Topology u = analyse(f);
    CHECK(u.hosts.size() == 1);
    CHECK(u.host_index.count("gpu-1"));
    auto warned = [&](const std::string &w) {
        return std::any_of(f.warnings.begin(), f.warnings.end(), [&](const std::string &x) { return x.find(w) != std::string::npos; });
    };
    CHECK(warned("in:2 (gpu-5): found 'curl: (7) Failed to connect"));
    CHECK(warned("in:3: pdsh says 'pdsh@head: gpu-6: ssh exited with exit code 255'"));
    CHECK(warned("in:4 (gpu-7): the instance metadata service answered error 'NotAuthorizedOrNotFound'"));
}

TEST_CASE("the format is told from the bytes after any leading whitespace, however much", "[topology][cloud]")
{
    char dir[] = "/tmp/atoll-head-XXXXXX";
    REQUIRE(mkdtemp(dir));
    std::string path = std::string(dir) + "/in";
    std::ifstream aws(test_data("cloud/aws-instance-topology.json"));
    std::stringstream body;
    body << aws.rdbuf();
    // 8 KiB of blank lines and spaces, beyond the 4 KiB looked at
    std::ofstream(path) << std::string(4096, '\n') << std::string(4096, ' ') << body.str();
    Fabric f = load_fabric(path);
    CHECK(f.kind == "aws");
    std::ifstream in(path);
    std::string head = input_head(in);
    CHECK(head.size() == std::min<std::size_t>(4096, body.str().size()));
    CHECK(head[0] == '{');
    CHECK(in.tellg() == 0);  // rewound for the parser
    CHECK(!is_atoll_fabric(head));
    std::ofstream(path) << "\n\n{\"analysis\": {}}";
    std::ifstream in2(path);
    CHECK(is_atoll_fabric(input_head(in2)));
    std::ofstream(path) << "";
    std::ifstream in3(path);
    CHECK(input_head(in3).empty());
    std::remove(path.c_str());
    rmdir(dir);
}
