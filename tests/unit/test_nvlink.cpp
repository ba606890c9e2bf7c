// NVLink domains from nvidia-smi: the csv query NVIDIA topograph runs
// (pkg/accelerator/nvidia_smi.go: one "ClusterUUID, CliqueId" row per GPU,
// the domain "ClusterUUID.CliqueId", N/A and mixed rows rejected) and the
// Fabric section of nvidia-smi -q (as pasted in
// kubernetes-sigs/dra-driver-nvidia-gpu#626 and Azure/azhpc-images#506), and
// what check says about them.
#include "catch.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <filesystem>
#include <cctype>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "testdata.hpp"
#include "topology/check.hpp"
#include "topology/csv.hpp"
#include "topology/nvlink.hpp"
#include "topology/slurm.hpp"
#include "placement/cluster.hpp"
#include "placement/policies.hpp"
#include "placement/policy.hpp"
#include "placement/view.hpp"

using namespace atl;

namespace {

NvlinkDomains pdsh(const std::string &text)
{
    std::istringstream in(text);
    return parse_nvlink_pdsh(in, "smi.txt");
}

std::string error_of(const std::string &text)
{
    try {
        pdsh(text);
    } catch (const InputError &e) {
        return e.what();
    }
    return "";
}

const std::string kUuid = "dc6e40c4-d722-4357-9ba6-5291dd461278";

}  // namespace

TEST_CASE("a host whose GPUs all report one clique is in the domain ClusterUUID.CliqueId", "[nvlink]")
{
    std::string rows;
    for (int g = 0; g < 4; ++g)
        rows += "gb01: " + kUuid + ", 2\n";
    rows += "gb02: " + kUuid + ", 3\n";
    NvlinkDomains d = pdsh(rows);
    REQUIRE(d.problems.empty());
    REQUIRE(d.domains.size() == 2);
    CHECK(d.domains[0].host == "gb01");
    CHECK(d.domains[0].domain == kUuid + ".2");
    CHECK(d.domains[0].source == "smi.txt:1");
    CHECK(d.domains[1].domain == kUuid + ".3");
}

TEST_CASE("N/A, an all-zero ClusterUUID and a fabric not Completed leave a host not configured", "[nvlink]")
{
    SECTION("csv N/A")
    {
        NvlinkDomains d = pdsh("gb01: " + kUuid + ", 2\ngb01: N/A, N/A\n");
        REQUIRE(d.domains.empty());
        REQUIRE(d.problems.size() == 1);
        CHECK(d.problems[0].kind == NvlinkProblem::Kind::NotConfigured);
        CHECK(d.problems[0].why == "smi.txt:2: ClusterUUID 'N/A'");
    }
    SECTION("csv [N/A] as --format=csv prints what it cannot give")
    {
        NvlinkDomains d = pdsh("gb01: [N/A], [N/A]\n");
        REQUIRE(d.problems.size() == 1);
        CHECK(d.problems[0].kind == NvlinkProblem::Kind::NotConfigured);
    }
    SECTION("-q State In Progress")
    {
        NvlinkDomains d = pdsh("gb01: GPU 00000008:01:00.0\ngb01:     Fabric\ngb01:         State : In Progress\n"
                               "gb01:         Status : N/A\ngb01:         CliqueId : N/A\ngb01:         ClusterUUID : N/A\n");
        REQUIRE(d.problems.size() == 1);
        CHECK(d.problems[0].why == "smi.txt:2: State 'In Progress', expected Completed");
    }
    SECTION("-q Completed with Insufficient Resources and a zero UUID")
    {
        NvlinkDomains d = pdsh("gb01:     Fabric\ngb01:         State : Completed\n"
                               "gb01:         Status : Insufficient Resources\ngb01:         CliqueId : 0\n"
                               "gb01:         ClusterUUID : 00000000-0000-0000-0000-000000000000\n");
        REQUIRE(d.problems.size() == 1);
        CHECK(d.problems[0].why == "smi.txt:1: Status 'Insufficient Resources', expected Success");
    }
}

TEST_CASE("a host whose GPUs name two domains is refused, not put in either", "[nvlink]")
{
    NvlinkDomains d = pdsh("gb01: " + kUuid + ", 2\ngb01: " + kUuid + ", 3\n");
    REQUIRE(d.domains.empty());
    REQUIRE(d.problems.size() == 1);
    CHECK(d.problems[0].kind == NvlinkProblem::Kind::Mixed);
    CHECK(d.problems[0].why == "smi.txt:1: its 2 GPUs name NVLink domains " + kUuid + ".2, " + kUuid + ".3, expected one");
}

TEST_CASE("bad nvidia-smi lines are errors naming the file and line", "[nvlink]")
{
    CHECK(error_of("gb01: " + kUuid + ", 2\ngb01: a, b, c\n") ==
          "smi.txt:2: 'a, b, c', expected two fields: ClusterUUID, CliqueId");
    CHECK(error_of("gb01: not;a;uuid, 2\n") == "smi.txt:1: ClusterUUID 'not;a;uuid', expected a UUID (hex digits and '-') or N/A");
    CHECK(error_of("gb01: " + kUuid + ", 2x\n") == "smi.txt:1: CliqueId '2x', expected a number (0 to 4294967295) or N/A");
    CHECK(error_of("gb01: " + kUuid + ", 4294967296\n") ==
          "smi.txt:1: CliqueId '4294967296', expected a number (0 to 4294967295) or N/A");
    {
        // one domain whatever case a copy of the UUID has
        std::string upper = kUuid;
        for (char &c : upper)
            c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        NvlinkDomains d = pdsh("gb01: " + kUuid + ", 2\ngb02: " + upper + ", 2\n");
        REQUIRE(d.domains.size() == 2);
        CHECK(d.domains[0].domain == d.domains[1].domain);
    }
    CHECK(error_of("no pdsh prefix\n") == "smi.txt:1: 'no pdsh prefix', expected pdsh output (HOST: line)");
    CHECK(error_of("bad$host: " + kUuid + ", 2\n").rfind("smi.txt:1: host name 'bad$host'", 0) == 0);
    CHECK(error_of("gb01: " + std::string(70000, 'x') + "\n") ==
          "smi.txt:1: a line of 70000 bytes, expected nvidia-smi output (lines under 64 KiB)");
}

TEST_CASE("a host whose nvidia-smi or ssh failed is left out, not the whole fabric", "[nvlink]")
{
    // pdsh prints each host's own failure under its name; one bad node must
    // not stop discovery of the others (red team of issue 25)
    NvlinkDomains d = pdsh("gb01: " + kUuid + ", 2\n"
                           "gb02: NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure "
                           "that the latest NVIDIA driver is installed and running.\n"
                           "gb03: ssh: connect to host gb03 port 22: Connection refused\n"
                           "pdsh@head: gb03: ssh exited with exit code 255\n"
                           "gb04: " + kUuid + ", 2\n");
    REQUIRE(d.domains.size() == 2);
    CHECK(d.domains[0].host == "gb01");
    CHECK(d.domains[1].host == "gb04");
    REQUIRE(d.problems.size() == 2);
    CHECK(d.problems[0].host == "gb02");
    CHECK(d.problems[0].kind == NvlinkProblem::Kind::NotConfigured);
    CHECK_THAT(d.problems[0].why, Catch::StartsWith("smi.txt:2: 'NVIDIA-SMI has failed because"));
    CHECK_THAT(d.problems[0].why, Catch::EndsWith("(no answer from nvidia-smi)"));
    CHECK(d.problems[1].host == "gb03");
    CHECK_THAT(d.problems[1].why, Catch::StartsWith("smi.txt:3: 'ssh: connect to host gb03 port 22: Connection refused'"));
}

TEST_CASE("nvidia-smi -q output of a GB200 fixture gives the configured hosts' domains", "[nvlink]")
{
    std::ifstream in(test_data("nvlink/q-fabric.txt"));
    REQUIRE(in);
    NvlinkDomains d = parse_nvlink_pdsh(in, "q-fabric.txt");
    REQUIRE(d.domains.size() == 2);
    CHECK(d.domains[0].host == "gb001");
    CHECK(d.domains[1].domain == "8d6e40c4-d722-4357-9ba6-000000000000.32766");
    REQUIRE(d.problems.size() == 2);
    CHECK(d.problems[0].host == "gb019");
    CHECK(d.problems[1].host == "gb020");
    CHECK(d.problems[1].why.find("Insufficient Resources") != std::string::npos);
}

TEST_CASE("a directory of one nvidia-smi output per host names each host by its file", "[nvlink]")
{
    namespace fs = std::filesystem;
    fs::path dir = fs::temp_directory_path() / ("atoll-nvlink-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::ofstream(dir / "gb01") << kUuid << ", 7\n" << kUuid << ", 7\n";
    std::ofstream(dir / "gb02") << "No devices were found\n";
    std::ofstream(dir / ".hidden") << "junk\n";
    NvlinkDomains d = load_nvlink(dir.string());
    fs::remove_all(dir);
    REQUIRE(d.domains.size() == 1);
    CHECK(d.domains[0].host == "gb01");
    CHECK(d.domains[0].domain == kUuid + ".7");
    CHECK(d.problems.empty());
}

TEST_CASE("check names short domains, unknown hosts and hosts not configured", "[nvlink][check]")
{
    // 2 groups of 4 hosts; domains of 3: node001-003, node004-006, node007-008
    GenSpec g;
    g.groups_per_pod = 2;
    g.hosts_per_group = 4;
    g.domain_size = 3;
    Fabric f = generate(g);
    REQUIRE(f.domains.size() == 8);
    std::string d0 = f.domains[0].domain;
    f.domains.push_back({"ghost01", d0, "", "x:1"});
    NvlinkDomains extra;
    extra.problems.push_back({"node009", NvlinkProblem::Kind::NotConfigured, "x:9: ClusterUUID 'N/A'"});
    add_nvlink(f, extra);
    std::vector<Finding> fs = check(analyse(f));
    std::map<std::string, std::string> by_code;
    for (const Finding &x : fs)
        by_code[x.code] += x.subject + ";";
    CHECK(by_code["domain-host-unknown"] == "ghost01;");
    CHECK(by_code["short-domain"] == f.domains[7].domain + ";");  // node007-008: 2 of the usual 3
    CHECK(by_code["nvlink-not-configured"] == "node009;");
    CHECK(by_code.count("unhealthy-host") == 0);
}

namespace {

// An 8-rack NVL72 scalable unit: 144 trays, a domain per rack of 18, four
// rails, rail groups of two racks (so one leaf island holds two domains).
Topology nvl72_unit()
{
    GenSpec g;
    g.groups_per_pod = 4;
    g.rails = 4;
    g.hosts_per_group = 36;
    g.domain_size = 18;
    return analyse(generate(g));
}

}  // namespace

TEST_CASE("NVLink domains are islands inside their leaf island", "[nvlink][islands]")
{
    Topology t = nvl72_unit();
    auto doms = t.islands_at(Level::Domain);
    REQUIRE(doms.size() == 8);
    for (int d : doms) {
        const Island &is = t.islands[static_cast<std::size_t>(d)];
        CHECK(is.hosts.size() == 18);
        REQUIRE(is.parent >= 0);
        CHECK(t.islands[static_cast<std::size_t>(is.parent)].level == Level::Leaf);
        CHECK(t.islands[static_cast<std::size_t>(is.parent)].hosts.size() == 36);
        CHECK(is.name.rfind("nvl-", 0) == 0);
    }
    // node001-018 are the first rack's trays
    int h1 = t.host_index.at("node001"), h18 = t.host_index.at("node018"), h19 = t.host_index.at("node019");
    CHECK(t.island_of(h1, Level::Domain) == t.island_of(h18, Level::Domain));
    CHECK(t.island_of(h1, Level::Domain) != t.island_of(h19, Level::Domain));
    CHECK(t.island_of(h1, Level::Leaf) == t.island_of(h19, Level::Leaf));
    Level l;
    REQUIRE(level_from_string("domain", l));
    CHECK(l == Level::Domain);
    CHECK(Level::Domain < Level::Leaf);
}

TEST_CASE("on an NVL72 unit a job of up to 18 nodes runs in one domain and 36 in two", "[nvlink][placement]")
{
    Topology t = nvl72_unit();
    Cluster c(t);
    auto policy = make_atoll_policy();
    for (int n = 1; n <= 18; ++n) {
        FreeState free(c);
        // the first rack half busy: a job that fits a domain still gets one
        for (int h : c.island(c.island_of(t.host_index.at("node001"), Level::Domain)).hosts)
            if (h % 2 == 0)
                free.set(h, false);
        Request r;
        r.nodes = n;
        Placement p = policy->place(free, r);
        REQUIRE(p.ok);
        CHECK(p.domains == 1);
        CHECK(p.level == Level::Domain);
    }
    FreeState free(c);
    Request r;
    r.nodes = 36;
    Placement p = policy->place(free, r);
    REQUIRE(p.ok);
    CHECK(p.domains == 2);
    CHECK(p.leaves == 1);
    // 20 nodes: more than a domain, so a whole one and 2 of the next
    r.nodes = 20;
    p = policy->place(free, r);
    REQUIRE(p.ok);
    CHECK(p.domains == 2);
    std::map<int, int> per;
    for (int h : p.hosts)
        ++per[c.island_of(h, Level::Domain)];
    std::vector<int> counts;
    for (const auto &kv : per)
        counts.push_back(kv.second);
    std::sort(counts.begin(), counts.end());
    CHECK(counts == std::vector<int>{2, 18});
}

TEST_CASE("topology/block takes the NVLink domains as its base blocks", "[nvlink][slurm]")
{
    Topology t = nvl72_unit();
    BlockLayout l = block_layout(t);
    CHECK(l.level == Level::Domain);
    CHECK(l.base == 18);
    REQUIRE(l.blocks.size() == 8);
    // one pod of 8 domains: Slurm's levels 1, 2, 4, 8 blocks
    CHECK(l.levels == std::vector<int>{0, 1, 2, 3});
    std::ostringstream o;
    write_topology_block(o, t, l);
    CHECK(o.str().find("BlockSizes=18,36,72,144\n") != std::string::npos);
    CHECK(o.str().find("Nodes=node[001-018]\n") != std::string::npos);
}

TEST_CASE("Kubernetes labels carry the domain under topograph's accelerator key", "[nvlink][slurm]")
{
    Topology t = nvl72_unit();
    std::ostringstream o;
    write_k8s_labels(o, t, nullptr);
    CHECK(o.str().find("accelerator.topograph.run/domain=" + t.fabric.domains[0].domain) != std::string::npos);
    CHECK(o.str().find("accelerator.topograph.run/sub-domain-") != std::string::npos);
}

TEST_CASE("a CSV's domain and rack columns give the hosts' NVLink domains", "[nvlink][csv]")
{
    std::istringstream in("host,leaf,domain,rack\ngb01,l1,nvl-a,r1\ngb02,l1,nvl-a,r1\ngb03,l1,,\n");
    Fabric f = parse_topology_csv(in, "d.csv");
    REQUIRE(f.domains.size() == 2);
    CHECK(f.domains[0].host == "gb01");
    CHECK(f.domains[0].domain == "nvl-a");
    CHECK(f.domains[0].subdomain == "r1");
    CHECK(f.domains[0].source == "d.csv:2");
    std::istringstream bad("host,leaf,domain\ngb01,l1,a b\n");
    CHECK_THROWS_WITH(parse_topology_csv(bad, "d.csv"), "d.csv:2: found domain 'a b', expected letters, digits, '.', '_' and '-'");
}

TEST_CASE("the plugin's view keeps the NVLink domain islands and reads them back", "[nvlink][view]")
{
    Topology t = nvl72_unit();
    Cluster c(t);
    std::ostringstream o;
    write_summary(o, summarise(t, c));
    CHECK(o.str().find("island domain nvl-") != std::string::npos);
    std::istringstream in(o.str());
    FabricSummary s = read_summary(in, "view");
    int domains = 0;
    for (const ViewIsland &i : s.islands)
        if (i.level == Level::Domain) {
            ++domains;
            CHECK(s.islands[static_cast<std::size_t>(i.parent)].level == Level::Leaf);
        }
    CHECK(domains == 8);
}

TEST_CASE("topology order keeps each NVLink domain's hosts together, domain by domain in a leaf", "[nvlink][order]")
{
    Topology t = nvl72_unit();
    Cluster c(t);
    // hosts of two domains of one leaf island and one of another, interleaved
    std::vector<int> in;
    for (const char *n : {"node040", "node001", "node019", "node002", "node041", "node020"})
        in.push_back(c.find_host(n));
    std::vector<std::string> out;
    for (int h : topology_order(c, in))
        out.push_back(c.host_name(h));
    CHECK(out == std::vector<std::string>{"node001", "node002", "node019", "node020", "node040", "node041"});
}

TEST_CASE("an NVLink domain whose hosts reach two leaves is one island under their common parent", "[nvlink][islands]")
{
    // nvl-a: gb01-02 on leaf l1 and gb03-04 on l2 (one domain, two leaves,
    // as AWS's CapacityBlockId or Nebius's nvl_instance_group_id can give);
    // nvl-b: gb05-06 on l3; all under pod p1
    std::istringstream in("host,leaf,pod,domain\ngb01,l1,p1,a\ngb02,l1,p1,a\ngb03,l2,p1,a\ngb04,l2,p1,a\n"
                          "gb05,l3,p1,b\ngb06,l3,p1,b\n");
    Topology t = analyse(parse_topology_csv(in, "d.csv"));
    auto doms = t.islands_at(Level::Domain);
    REQUIRE(doms.size() == 2);
    int a = t.island_of(t.host_index.at("gb01"), Level::Domain);
    REQUIRE(a >= 0);
    const Island &da = t.islands[static_cast<std::size_t>(a)];
    CHECK(da.name == "nvl-a");
    CHECK(da.hosts.size() == 4);
    CHECK(t.island_of(t.host_index.at("gb04"), Level::Domain) == a);
    REQUIRE(da.parent >= 0);
    CHECK(t.islands[static_cast<std::size_t>(da.parent)].level > Level::Leaf);
    CHECK(t.islands[static_cast<std::size_t>(da.parent)].hosts.size() == 6);  // the pod holds both leaves
    CHECK(t.islands[static_cast<std::size_t>(t.island_of(t.host_index.at("gb05"), Level::Domain))].parent ==
          t.hosts[static_cast<std::size_t>(t.host_index.at("gb05"))].leaf_island);

    BlockLayout l = block_layout(t);
    CHECK(l.level == Level::Domain);
    std::ostringstream o;
    write_topology_block(o, t, l);
    CHECK(o.str().find("BlockName=nvl-a Nodes=gb[01-04]\n") != std::string::npos);
    CHECK(o.str().find("nvl-a-2") == std::string::npos);

    Cluster c(t);
    CHECK(c.island_of(t.host_index.at("gb01"), Level::Leaf) == t.hosts[static_cast<std::size_t>(t.host_index.at("gb01"))].leaf_island);
    auto policy = make_atoll_policy();
    FreeState free(c);
    Request r;
    r.nodes = 4;
    r.level = Level::Domain;
    r.fit = Fit::Required;
    Placement p = policy->place(free, r);
    REQUIRE(p.ok);
    CHECK(p.domains == 1);
    for (int h : p.hosts)
        CHECK(c.island_of(h, Level::Domain) == a);
    // in one leaf, required: the domain spanning two leaves does not meet it
    r.nodes = 3;
    r.level = Level::Leaf;
    CHECK_FALSE(policy->place(free, r).ok);
    r.nodes = 2;
    p = policy->place(free, r);
    REQUIRE(p.ok);
    CHECK(p.leaves == 1);
    // 6 nodes: both domains, whole, in the pod
    r.nodes = 6;
    r.level = Level::Pod;
    p = policy->place(free, r);
    REQUIRE(p.ok);
    CHECK(p.hosts.size() == 6);
    CHECK(p.domains == 2);
}

TEST_CASE("25.05 placeholder blocks pad uneven pods so every aggregate up to a pod stays in one", "[nvlink][slurm][block]")
{
    // 2 pods of 3 racks (domains of 18): 24.11's file can keep no pair
    // (blocks 2 and 3 would join the pods: block_record_validate's runs)
    GenSpec g;
    g.pods = 2;
    g.groups_per_pod = 3;
    g.hosts_per_group = 18;
    g.domain_size = 18;
    Topology t = analyse(generate(g));
    BlockLayout old = block_layout(t);
    CHECK(old.blocks.size() == 6);
    CHECK(old.levels == std::vector<int>{0});
    CHECK(old.placeholders == 0);
    BlockLayout l = block_layout(t, 0, true);
    REQUIRE(l.blocks.size() == 7);
    CHECK(l.blocks[3] == -1);
    CHECK(l.placeholders == 1);
    CHECK(l.base == 18);
    CHECK(l.levels == std::vector<int>{0, 1, 2});
    std::ostringstream out;
    write_topology_block(out, t, l);
    CHECK(out.str().find("\nBlockName=atoll-placeholder-1\n") != std::string::npos);
    CHECK(out.str().find("\nBlockSizes=18,36,72\n") != std::string::npos);
    // a short domain (a tray missing) is a smaller block there, not left out
    g.pods = 1;
    g.groups_per_pod = 2;
    g.hosts_per_group = 18;
    Fabric f = generate(g);
    f.domains.erase(std::remove_if(f.domains.begin(), f.domains.end(),
                                   [](const HostDomain &d) { return d.host == "node036"; }),
                    f.domains.end());
    Topology t2 = analyse(f);
    // 24.11: the base is the full domain (18) and the short one is left out,
    // as atoll-topo(8) says: a base of 17 under blocks of 18 let slurmctld
    // 24.11 and 26.05 spread a 4-node job over two racks (red team)
    BlockLayout old2 = block_layout(t2);
    CHECK(old2.base == 18);
    CHECK(old2.blocks.size() == 1);
    REQUIRE(old2.left_out.size() == 1);
    CHECK(old2.why_left_out[0] == "17 nodes, fewer than 18");
    // 25.05+: the base is the median (18), the short domain a smaller block
    BlockLayout l2 = block_layout(t2, 0, true);
    CHECK(l2.base == 18);
    CHECK(l2.left_out.empty());
    CHECK(l2.blocks.size() == 2);
}

TEST_CASE("two records that reach one host under two domains put it in neither, a refused claim", "[nvlink]")
{
    // a per-host file gb... beside gb....txt, or an FQDN pdsh prefix: both
    // shorten to the fabric's host (red team of issue 25)
    GenSpec g;
    g.groups_per_pod = 2;
    g.hosts_per_group = 4;
    g.domain_size = 4;
    Fabric f = generate(g);
    std::string d0 = f.domains[0].domain;
    f.domains.push_back({"node003.example.com", d0 + "x", "", "b:1"});  // node003 is in d0 already
    f.domains.push_back({"node006.example.com", f.domains[5].domain, "", "b:2"});  // the same domain: no claim
    Topology t = analyse(f);
    const Host &h3 = t.hosts[static_cast<std::size_t>(t.host_index.at("node003"))];
    CHECK(h3.domain < 0);
    CHECK(t.hosts[static_cast<std::size_t>(t.host_index.at("node006"))].domain >= 0);
    REQUIRE(t.fabric.refused_claims.size() == 1);
    CHECK_THAT(t.fabric.refused_claims[0], Catch::StartsWith("node003: NVLink domain '" + d0 + "'"));
    CHECK_THAT(t.fabric.refused_claims[0], Catch::Contains("expected one domain per host: in no domain"));
    // analysed again (a saved fabric.json): the claim once
    Topology again = analyse(t.fabric);
    CHECK(again.fabric.refused_claims.size() == 1);
}
