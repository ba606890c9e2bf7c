// The SPANK plugin's logic without Slurm: plugstack keys, options, the
// environment of a node, GPU-to-HCA pairs from saved hwloc topologies.
#include "catch.hpp"
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <functional>
#include <sstream>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "spank/core.hpp"
#include "testdata.hpp"
#include "topology/generate.hpp"
#include "topology/json.hpp"

using namespace atl;

TEST_CASE("plugstack.conf keys", "[spank]")
{
    PluginConfig c = parse_plugstack({"fabric=/etc/slurm/fabric.json", "policy=slurm-tree", "default_island=auto",
                                      "env=off", "sharp=off", "roce_tc=106", "socket_ifname=eth0",
                                      "hca=mlx5_*,!mlx5_8", "strict=yes", "island_wait=30m", "max_age=7d",
                                      "leaf_wait=4h"});
    CHECK(c.fabric == "/etc/slurm/fabric.json");
    CHECK(c.policy == "slurm-tree");
    CHECK_FALSE(c.env);
    CHECK_FALSE(c.sharp);
    CHECK(c.roce_tc == 106);
    CHECK(c.strict);
    CHECK(c.island_wait == 1800);
    CHECK(c.leaf_wait_s() == 4 * 3600);
    CHECK(parse_plugstack({"island_wait=30m"}).leaf_wait_s() == 1800);  // unset: island_wait
    // a key twice: the last is used, as before (a site's appended override),
    // but with a warning naming both (it won without a word: roce_tc=106 ...
    // roce_tc=0 sent NCCL's lossy default)
    PluginConfig twice = parse_plugstack({"roce_tc=106", "env=auto", "roce_tc=0"});
    CHECK(twice.roce_tc == 0);
    REQUIRE(twice.warnings.size() == 1);
    CHECK(twice.warnings[0] == "plugstack.conf: roce_tc given twice (\"roce_tc=106\", then \"roce_tc=0\"): the last is used");
    CHECK(parse_plugstack({"strict", "strict", "roce_tc=106", "roce_tc=106"}).warnings.empty());  // the same twice: no doubt
    CHECK_THROWS_WITH(parse_plugstack({"leaf_wait=soon"}), Catch::Contains("leaf_wait=soon"));
    // a wait past an int's seconds is an error, not a wrapped negative wait
    // (2^31 - 1 s is 24855 days)
    CHECK_THROWS_WITH(parse_plugstack({"island_wait=99999999999d"}), Catch::Contains("island_wait=99999999999d: expected seconds"));
    CHECK_THROWS_WITH(parse_plugstack({"leaf_wait=2147483648"}), Catch::Contains("at most 24855d"));
    CHECK(parse_plugstack({"leaf_wait=2147483647"}).leaf_wait_s() == 2147483647);
    CHECK(c.max_age == 7 * 86400);
    // the step model's job for auto's wait: defaults, then the site's
    CHECK(c.comm_share == Approx(0.3));
    CHECK_FALSE(c.all_to_all);
    CHECK_FALSE(c.busy_uplinks);
    PluginConfig m = parse_plugstack({"comm_share=0.7", "collective=all-to-all", "uplink_load=busy"});
    CHECK(m.comm_share == Approx(0.7));
    CHECK(m.all_to_all);
    CHECK(m.busy_uplinks);
    CHECK_FALSE(parse_plugstack({"uplink_load=running", "collective=all-reduce"}).busy_uplinks);
    for (const char *bad : {"comm_share=0", "comm_share=1.5", "comm_share=nan", "comm_share=", "comm_share=0.5x"})
        CHECK_THROWS_WITH(parse_plugstack({bad}), Catch::Contains(std::string(bad) + ": expected the share"));
    CHECK_THROWS_WITH(parse_plugstack({"uplink_load=idle"}), Catch::Contains("expected running or busy"));
    CHECK_THROWS_WITH(parse_plugstack({"collective=ring"}), Catch::Contains("expected all-reduce or all-to-all"));
    CHECK_THROWS_WITH(parse_plugstack({"fabrik=/x"}), Catch::Contains("unknown key \"fabrik\""));
    CHECK_THROWS_WITH(parse_plugstack({"roce_tc=300"}), Catch::Contains("roce_tc=300: expected a traffic class"));
    CHECK_THROWS_WITH(parse_plugstack({"roce_tc=107"}), Catch::Contains("roce_tc=107: both ECN bits set (CE)"));
    CHECK(parse_plugstack({"roce_tc=105"}).roce_tc == 105);
    CHECK_THROWS_WITH(parse_plugstack({"policy=best"}), Catch::Contains("policy=best"));
    CHECK_THROWS_WITH(parse_plugstack({"default_island=rack"}), Catch::Contains("--fabric-island=rack"));
    CHECK(parse_plugstack({"strict"}).strict);
}

TEST_CASE("plugstack.conf: the cloud profiles and their keys", "[spank][cloud]")
{
    for (const char *p : {"aws", "azure", "gcp", "oci", "nebius"})
        CHECK(parse_plugstack({std::string("fabric_type=") + p}).fabric_type == p);
    CHECK_THROWS_WITH(parse_plugstack({"fabric_type=lambda"}), Catch::Contains("expected ib, roce, azure, aws, gcp, oci, nebius"));
    PluginConfig c = parse_plugstack({"cloud_root=/srv/nodes/%n", "machine_type=Standard_ND96isr_H100_v5"});
    CHECK(c.cloud_root == "/srv/nodes/%n");
    CHECK(parse_plugstack({"dev_root=/srv/nodes/%n/dev"}).dev_root == "/srv/nodes/%n/dev");
    CHECK(c.machine_type == "Standard_ND96isr_H100_v5");
    CHECK_THROWS_WITH(parse_plugstack({"machine_type=p5.48xlarge p4d.24xlarge"}), Catch::Contains("expected one machine type"));
}

TEST_CASE("the atoll.so line of the plugstack configuration slurm.conf names", "[spank]")
{
    char dir[] = "/tmp/atoll-plugstack-XXXXXX";
    REQUIRE(mkdtemp(dir));
    std::string d = dir;
    auto put = [](const std::string &path, const std::string &text) { std::ofstream(path) << text; };
    REQUIRE(mkdir((d + "/plugstack.conf.d").c_str(), 0755) == 0);
    REQUIRE(mkdir((d + "/etc").c_str(), 0755) == 0);

    // no plugstack file: the defaults, not an error
    put(d + "/slurm.conf", "ClusterName=x\n");
    PlugstackLine none = read_plugstack_line(d + "/slurm.conf");
    CHECK_FALSE(none.found);
    CHECK(none.config.policy == "atoll");
    CHECK(none.config.island_wait == 600);

    // the default plugstack.conf beside slurm.conf, an include relative to it
    // (a glob, in order), a comment after the keys; the first atoll.so line wins
    put(d + "/plugstack.conf", "# site plugins\noptional /usr/lib/slurm/other.so policy=x\ninclude plugstack.conf.d/*.conf\n");
    put(d + "/plugstack.conf.d/10-a.conf", "required   /usr/lib/x86_64-linux-gnu/slurm/atoll.so  policy=first-fit\tisland_wait=5m # leaf_wait=zz\n");
    put(d + "/plugstack.conf.d/20-b.conf", "optional atoll.so policy=random\n");
    PlugstackLine l = read_plugstack_line(d + "/slurm.conf");
    CHECK(l.found);
    CHECK(l.where == d + "/plugstack.conf.d/10-a.conf:1");
    CHECK(l.args == std::vector<std::string>{"policy=first-fit", "island_wait=5m"});
    CHECK(l.config.policy == "first-fit");
    CHECK(l.config.island_wait == 300);
    CHECK(l.config.leaf_wait_s() == 300);
    CHECK_FALSE(l.config.strict);

    // PlugStackConfig in any case, spaces around '='; a bad value names FILE:LINE
    put(d + "/slurm.conf", "ClusterName=x\nplugstackconfig = " + d + "/etc/stack.conf  # ours\n");
    put(d + "/etc/stack.conf", "\n\noptional atoll.so strict leaf_wait=10min\n");
    CHECK_THROWS_WITH(read_plugstack_line(d + "/slurm.conf"),
                      Catch::StartsWith(d + "/etc/stack.conf:3: plugstack.conf: leaf_wait=10min: expected seconds"));
    put(d + "/etc/stack.conf", "\n\noptional atoll.so strict leaf_wait=10m\n");
    l = read_plugstack_line(d + "/slurm.conf");
    CHECK(l.config.strict);
    CHECK(l.config.leaf_wait_s() == 600);
    CHECK(l.config.island_wait == 600);

    // from a stream: the line named FILE:LINE; includes not followed when asked
    std::istringstream text("include " + d + "/plugstack.conf.d/*.conf\n\noptional atoll.so island_wait=1h\n");
    l = read_plugstack_text(text, "stack.conf", false);
    CHECK(l.found);
    CHECK(l.where == "stack.conf:3");
    CHECK(l.config.island_wait == 3600);
    std::istringstream text2("include " + d + "/plugstack.conf.d/*.conf\n");
    CHECK(read_plugstack_text(text2, "stack.conf").config.policy == "first-fit");

    // an include of itself ends (four deep at most); not atoll.so, not found
    put(d + "/etc/stack.conf", "include stack.conf\noptional /x/notatoll.so policy=random\n");
    CHECK_FALSE(read_plugstack_line(d + "/slurm.conf").found);
    std::string cmd = "rm -rf '" + d + "'";
    CHECK(std::system(cmd.c_str()) == 0);
}

TEST_CASE("values of --fabric-island, --fabric-env and --fabric-sharp", "[spank]")
{
    CHECK(parse_island("leaf").str() == "leaf:required");
    CHECK(parse_island("pod:preferred").str() == "pod:preferred");
    CHECK(parse_island("group:required").str() == "group:required");
    CHECK(parse_island("auto").str() == "auto");
    CHECK(parse_island("domain").str() == "domain:required");
    CHECK(parse_island("none").none);
    for (const char *bad : {"rack", "leaf:maybe", "fabric", "", "auto:required", "domain:", "leaf:"})
        CHECK_THROWS_WITH(parse_island(bad), Catch::StartsWith(std::string("--fabric-island=") + bad + ": expected"));
    CHECK(parse_env_mode("show") == EnvMode::Show);
    CHECK_THROWS_WITH(parse_env_mode("loud"), Catch::StartsWith("--fabric-env=loud"));
    CHECK(parse_sharp_mode("on") == SharpMode::On);
    CHECK_THROWS_WITH(parse_sharp_mode("yes"), Catch::StartsWith("--fabric-sharp=yes"));
}

TEST_CASE("a user's value in a message is one line: control bytes escaped, length capped", "[spank][security]")
{
    SECTION("the escaping rule")
    {
        CHECK(escaped("leaf:required") == "leaf:required");
        CHECK(escaped("a\nb") == "a\\nb");
        CHECK(escaped(std::string("\r\t\x1b\x7f\\", 5) + std::string(1, '\0')) == "\\x0d\\x09\\x1b\\x7f\\x5c\\x00");
        CHECK(escaped("\xc3\xa9") == "\\xc3\\xa9");
        CHECK(shown("x\ny") == "'x\\ny'");
    }
    SECTION("at most 200 characters, then ...")
    {
        CHECK(escaped(std::string(200, 'a')) == std::string(200, 'a'));
        CHECK(escaped(std::string(201, 'a')) == std::string(200, 'a') + "...");
        // an escape is never cut in half
        std::string e = escaped(std::string(199, 'a') + "\n");
        CHECK(e == std::string(199, 'a') + "...");
        CHECK(escaped(std::string(1000, '\n')).size() == 200 + 3);
    }
    SECTION("every option and plugstack message echoing a value escapes it")
    {
        std::string forged = "leaf\n[2026-01-01T00:00:00.000] error: forged";
        for (auto f : std::vector<std::function<void()>>{
                 [&] { parse_island(forged); }, [&] { parse_env_mode(forged); }, [&] { parse_sharp_mode(forged); },
                 [&] { parse_plugstack({"policy=" + forged}); }, [&] { parse_plugstack({"x" + forged}); },
                 [&] { parse_plugstack({forged + "=1"}); }, [&] { parse_plugstack({"island_wait=" + forged}); },
                 [&] { parse_plugstack({"default_island=" + forged}); }}) {
            try {
                f();
                FAIL("no error");
            } catch (const std::invalid_argument &e) {
                std::string m = e.what();
                CHECK(m.find('\n') == std::string::npos);
                CHECK_THAT(m, Catch::Contains("leaf\\n[2026-01-01T00:00:00.000] error: forged"));
            }
        }
        try {
            parse_island(std::string(5000, 'x'));
        } catch (const std::invalid_argument &e) {
            CHECK(std::string(e.what()).size() < 400);
        }
    }
}

TEST_CASE("GPU-to-HCA pairs from hwloc XML (checked by hand)", "[spank][hwloc]")
{
    // 2 sockets; GPU 03:00.0 on socket 0; GPU 83:00.0 and 84:00.0 and
    // mlx5_0 on socket 1, 84:00.0 behind the same bridge as mlx5_0.
    auto p = gpu_hca_pairs(atl_gpu_hcas3, test_data("hwloc/32em64t-2n8c2t-pci-normalio.xml"));
    REQUIRE(p.size() == 3);
    CHECK(p[0].gpu_busid == "0000:03:00.0");
    CHECK(p[0].hca == "mlx5_0");
    CHECK(p[0].distance == "SYS");
    CHECK(p[1].gpu_busid == "0000:83:00.0");
    CHECK(p[1].distance == "PHB");
    CHECK(p[2].gpu_busid == "0000:84:00.0");
    CHECK(p[2].distance == "PIX");
    // the DGX-2 export has 16 V100 and no HCA at all
    auto d = gpu_hca_pairs(atl_gpu_hcas3, test_data("hwloc/nvidiaDGX2.hwloc-2.14.0.v2.xml"));
    CHECK(d.size() == 16);
    for (const auto &g : d)
        CHECK(g.hca.empty());
    CHECK_THROWS_WITH(gpu_hca_pairs(atl_gpu_hcas3, "/nonexistent.xml"), Catch::Contains("hwloc XML /nonexistent.xml: No such file"));
}

TEST_CASE("GPU-to-HCA pairs on a multi-HCA node, restricted to the compute HCAs", "[spank][hwloc]")
{
    // hand-written DGX A100-like XML: socket 0 switch {GPU0+mlx5_0, GPU1+mlx5_1},
    // socket 1 switch {GPU2+mlx5_2, GPU3+mlx5_3}, mlx5_4 (storage) on socket 0
    std::string xml = test_data("hwloc/dgx-a100-like-4gpu-5hca.xml");
    auto p = gpu_hca_pairs(atl_gpu_hcas3, xml);
    REQUIRE(p.size() == 4);
    for (int g = 0; g < 4; ++g) {
        CHECK(p[static_cast<std::size_t>(g)].hca == "mlx5_" + std::to_string(g));
        CHECK(p[static_cast<std::size_t>(g)].distance == "PIX");
    }
    CHECK(p[2].gpu_busid == "0000:92:00.0");
    // only the HCAs given: without mlx5_0/1, GPU 0's nearest is the storage
    // HCA on its socket (NODE); without that too, across the sockets (SYS)
    auto q = gpu_hca_pairs(atl_gpu_hcas3, xml, {{"mlx5_2", 1}, {"mlx5_3", 1}, {"mlx5_4", 1}});
    CHECK(q[0].hca == "mlx5_4");
    CHECK(q[0].distance == "NODE");
    CHECK(q[3].hca == "mlx5_3");
    auto r = gpu_hca_pairs(atl_gpu_hcas3, xml, {{"mlx5_1", 1}, {"mlx5_2", 1}});
    CHECK(r[0].hca == "mlx5_1");
    CHECK(r[0].distance == "PXB");  // same switch, other downstream port
    CHECK(r[3].hca == "mlx5_2");
    CHECK(r[3].distance == "PXB");
}

TEST_CASE("the fabric file: JSON and view give one environment; refused, stale and missing files", "[spank]")
{
    char dir[] = "/tmp/atoll-spank-XXXXXX";
    REQUIRE(mkdtemp(dir));
    chmod(dir, 0755);
    std::string path = std::string(dir) + "/fabric.json";
    GenSpec g;
    g.pods = 2;
    g.groups_per_pod = 2;
    g.rails = 2;
    g.hosts_per_group = 4;
    g.sharp = true;
    Topology t = analyse(generate(g));
    {
        std::ofstream o(path);
        save_fabric_json(o, t);
    }
    chmod(path.c_str(), 0644);
    PluginConfig cfg;
    cfg.max_age = 0;
    cfg.owner = geteuid();
    UserOptions opt;
    auto none = [](const std::string &) { return false; };
    NodeFacts facts;
    for (const char *hca : {"mlx5_0", "mlx5_1"}) {
        NodePort p;
        p.hca = hca;
        p.port = 1;
        p.link_layer = "InfiniBand";
        p.state = "4: ACTIVE";
        facts.ports.push_back(p);
    }
    StepInfo step;
    step.nodes = {"node001", "node005", "node016"};
    step.node = "node005";
    std::string vpath = std::string(dir) + "/fabric.view";
    {
        std::ofstream vo(vpath);
        write_summary(vo, summarise(t, Cluster(t)));
    }
    chmod(vpath.c_str(), 0644);
    auto full = node_env(*load_fabric_view(cfg, path), cfg, opt, step, facts, none);
    auto fast = node_env(*load_fabric_view(cfg, vpath), cfg, opt, step, facts, none);
    REQUIRE(full.size() == fast.size());
    for (std::size_t k = 0; k < full.size(); ++k)
        CHECK(describe(full[k]) == describe(fast[k]));
    CHECK(fast[0].value == "fabric");  // node016 is in the other pod
    step.node = "gpu999";
    CHECK_THROWS_WITH(node_env(*load_fabric_view(cfg, vpath), cfg, opt, step, facts, none),
                      Catch::Contains("node gpu999 is not in the fabric"));
    std::istringstream bad("atoll-view 1\nrails 1 0\nisland leaf L1 -1 2 1\nhost n1 3 1 mlx5_0:1\n");
    CHECK_THROWS_WITH(read_summary(bad, "v.txt"),
                      Catch::StartsWith("v.txt:4: found 'host n1 3 1 mlx5_0:1', expected the index of a leaf island"));
    std::istringstream notview("{}\n");
    CHECK_THROWS_WITH(read_summary(notview, "v.txt"), Catch::StartsWith("v.txt:1: found '{}'"));
    // a view 1 (before the kind and SHARP above the leaves) is still read
    std::istringstream v1("atoll-view 1\nrails 1 0\nisland leaf L1 1 2 1\nisland pod P -1 4 1\nhost n1 0 1 mlx5_0:1\n");
    FabricSummary old = read_summary(v1, "v1");
    CHECK(old.islands[0].sharp);
    CHECK_FALSE(old.islands[1].sharp);
    CHECK(old.hosts.at("n1").per_leaf == 0);
    unlink(vpath.c_str());
    // the file itself: refused when others may write it, stale when old
    chmod(path.c_str(), 0666);
    CHECK_THROWS_WITH(load_fabric_view(cfg, path), Catch::Contains("writable by someone other than root"));
    chmod(path.c_str(), 0644);
    cfg.max_age = 60;
    struct timespec old_t[2] = {{0, 0}, {0, 0}};
    old_t[0].tv_sec = old_t[1].tv_sec = time(nullptr) - 3 * 86400;
    utimensat(AT_FDCWD, path.c_str(), old_t, 0);
    CHECK_THROWS_WITH(load_fabric_view(cfg, path), Catch::Contains("stale, last written 3 days ago"));
    CHECK_THROWS_WITH(load_fabric_view(cfg, std::string(dir) + "/none.json"), Catch::Contains("No such file"));
    unlink(path.c_str());
    rmdir(dir);
}

TEST_CASE("the view file the plugin reads as root: cycles, parents, names and counts", "[spank][security]")
{
    auto read = [](const std::string &body) {
        std::istringstream in(std::string("atoll-view 1\nrails 1 1\n") + body);
        return read_summary(in, "v");
    };
    const std::string ok = "island leaf L1 1 2 1\nisland pod P1 -1 4 0\nhost n1 0 1 mlx5_0:1\n";
    CHECK(read(ok).hosts.at("n1").hcas.size() == 1);
    // an island that is its own parent, or whose parent is not above it
    CHECK_THROWS_WITH(read("island leaf L1 0 2 1\n"),
                      Catch::StartsWith("v:3: found 'island L1 ... parent 0', expected a parent at a higher level than leaf"));
    CHECK_THROWS_WITH(read("island pod P1 1 2 1\nisland leaf L1 0 2 1\n"),
                      Catch::Contains("expected a parent at a higher level than pod, not leaf"));
    CHECK_THROWS_WITH(read("island leaf L1 7 2 1\n"), Catch::Contains("expected a parent that is an island index"));
    CHECK_THROWS_WITH(read("island leaf L1 99999999999 2 1\n"), Catch::Contains("expected a parent island index from -1"));
    // a host on a pod, or on an island not listed above
    CHECK_THROWS_WITH(read("island pod P1 -1 4 0\nhost n1 0 1 -\n"), Catch::Contains("the index of a leaf island, not a pod"));
    CHECK_THROWS_WITH(read("host n1 0 1 -\n"), Catch::Contains("the index of a leaf island listed above"));
    // names that could carry a separator, bytes escaped in the message
    CHECK_THROWS_WITH(read("island leaf L;1 -1 2 1\n"), Catch::Contains("expected an island name ('L;1'"));
    CHECK_THROWS_WITH(read(ok + "host n2;reboot 0 1 -\n"), Catch::Contains("expected a host name ('n2;reboot'"));
    CHECK_THROWS_WITH(read(ok + "host n2 0 1 mlx5_0:1,$(x):1\n"), Catch::Contains("expected an adapter name"));
    CHECK_THROWS_WITH(read(ok + "host n2 0 1 mlx5_0:0\n"), Catch::Contains("expected a port number from 1 to 255"));
    CHECK_THROWS_WITH(read(ok + "host n2 0 1 mlx5_0:1 extra\n"), Catch::Contains("expected host NAME LEAF-ISLAND"));
    CHECK_THROWS_WITH(read(ok + "host n1 0 1 -\n"), Catch::Contains("expected each host once"));
    // view 4: a GUID is one adapter's; GUID text only in view 4, 16 lowercase hex digits
    auto read4 = [](const std::string &body) {
        std::istringstream in(std::string("atoll-view 4\nrails 1 1\nisland leaf L1 1 2 1\nisland pod P1 -1 4 0\n") + body);
        return read_summary(in, "v4");
    };
    const std::string g0 = "98039b0300000000", g1 = "98039b0300000004";
    CHECK(read4("host n1 0 1 mlx5_0:1@" + g0 + ",mlx5_1:1@" + g1 + " 1 -1 - -\n").hosts.at("n1").guids.at(1) == 0x98039b0300000004ULL);
    CHECK(read4("host n1 0 1 mlx5_0:1@" + g0 + ",mlx5_0:2@" + g0 + " 1 -1 - -\n").hosts.at("n1").hcas.size() == 2);
    CHECK_THROWS_WITH(read4("host n1 0 1 mlx5_0:1@" + g0 + ",mlx5_1:1@" + g0 + " 1 -1 - -\n"),
                      Catch::Contains("expected each adapter with one GUID of its own (mlx5_0 and mlx5_1)"));
    CHECK_THROWS_WITH(read4("host n1 0 1 mlx5_0:1@" + g0 + ",mlx5_0:2@" + g1 + " 1 -1 - -\n"),
                      Catch::Contains("expected each adapter with one GUID of its own"));
    CHECK_THROWS_WITH(read4("host n1 0 1 mlx5_0:1@98039B0300000000 1 -1 - -\n"), Catch::Contains("16 lowercase hex digits"));
    CHECK_THROWS_WITH(read(ok + "host n2 0 1 mlx5_0:1@" + g0 + "\n"), Catch::Contains("GUIDs from view 4"));
    CHECK_THROWS_WITH(read("source a\x1b[2Jb\n"), Catch::Contains("expected a printable source name"));
    std::string many;
    for (int k = 0; k < 65; ++k)
        many += (k ? "," : "") + std::string("mlx5_") + std::to_string(k) + ":1";
    CHECK_THROWS_WITH(read(ok + "host n2 0 1 " + many + "\n"), Catch::Contains("at most 64 HCA:PORT items"));
    CHECK_THROWS_WITH(read("island leaf L1 -1 65 1\n"), Catch::Contains("a hop count from 0 to 64"));
    // view 5: a claimed adapter of an undecided host, settled by the node's own GUIDs
    auto read5 = [](const std::string &body) {
        std::istringstream in(std::string("atoll-view 5\nkind ib\nrails 1 1\nisland leaf L1 1 2 1\nisland pod P1 -1 4 0\n") + body);
        return read_summary(in, "v5");
    };
    const std::string host1 = "host n1 0 0 mlx5_0:1@" + g0 + " 1 -1 - -\nundecided n1\n";
    const std::string ga = "98039b0300000044", gb = "98039b0300000084";
    FabricSummary v5 = read5(host1 + "claimed n1 1 mlx5_1:1 " + ga + "," + gb + "\n");
    REQUIRE(v5.claimed.at("n1").size() == 1);
    CHECK(v5.claimed.at("n1")[0].guids == std::vector<std::uint64_t>{0x98039b0300000044ULL, 0x98039b0300000084ULL});
    std::string why;
    auto settled = resolve_claims(v5, "n1", {{0x98039b0300000000ULL, 1}, {0x98039b0300000084ULL, 1}}, why);
    REQUIRE(settled);
    CHECK(settled->hcas == std::vector<std::pair<std::string, int>>{{"mlx5_0", 1}, {"mlx5_1", 1}});
    CHECK(settled->guids.at(1) == 0x98039b0300000084ULL);
    // the claimant's GUID on another port is not it; none here, or both: nothing
    CHECK_FALSE(resolve_claims(v5, "n1", {{0x98039b0300000084ULL, 2}}, why));
    CHECK(why == "mlx5_1 port 1 is claimed by 2 adapters cabled there, none of them here");
    CHECK_FALSE(resolve_claims(v5, "n1", {{0x98039b0300000044ULL, 1}, {0x98039b0300000084ULL, 1}}, why));
    CHECK(why == "mlx5_1 port 1 is claimed by 2 adapters cabled there, 2 of them here");
    CHECK_FALSE(resolve_claims(v5, "n2", {{0x98039b0300000084ULL, 1}}, why));
    // only in view 5, after the host and its undecided line; GUIDs of no listed adapter
    CHECK_THROWS_WITH(read4(host1 + "claimed n1 1 mlx5_1:1 " + ga + "\n"), Catch::Contains("or undecided line"));
    CHECK_THROWS_WITH(read5("host n1 0 0 mlx5_0:1 1 -1 - -\nclaimed n1 1 mlx5_1:1 " + ga + "\n"),
                      Catch::Contains("expected a host listed above and undecided"));
    CHECK_THROWS_WITH(read5(host1 + "claimed n1 1 mlx5_1:1 " + ga + "," + g0 + "\n"),
                      Catch::Contains("of no adapter the host's list or its other claims hold"));
    CHECK_THROWS_WITH(read5(host1 + "claimed n1 1 mlx5_0:1 " + ga + "\n"), Catch::Contains("an adapter the host's list does not hold"));
    CHECK_THROWS_WITH(read5(host1 + "claimed n1 2 mlx5_1:1 " + ga + "\n"), Catch::Contains("a place in the host's list from 0 to 1"));
    CHECK_THROWS_WITH(read5(host1 + "claimed n1 1 mlx5_1:1 " + ga + "," + ga + "\n"), Catch::Contains("each once"));
    CHECK_THROWS_WITH(read5(host1 + "claimed n1 1 mlx5_1:1 -\n"), Catch::Contains("16 lowercase hex digits"));
    CHECK_THROWS_WITH(read5(host1 + "claimed n1 1 mlx5_1:1 " + ga + "," + gb + "\nclaimed n1 1 mlx5_2:1 98039b0300000088,98039b030000008c\n"),
                      Catch::Contains("places rising"));
    // (helper 56) one claimant is no contest; a GUID in two claims; a trailing
    // comma; all zero; a RoCE view (LLDP's GUIDs are atoll's own)
    CHECK_THROWS_WITH(read5(host1 + "claimed n1 1 mlx5_1:1 " + ga + "\n"), Catch::Contains("two GUIDs or more"));
    CHECK_THROWS_WITH(read5(host1 + "claimed n1 1 mlx5_1:1 " + ga + "," + gb + "\nclaimed n1 2 mlx5_2:1 " + gb + ",98039b0300000088\n"),
                      Catch::Contains("its other claims hold"));
    CHECK_THROWS_WITH(read5(host1 + "claimed n1 1 mlx5_1:1 " + ga + "," + gb + ",\n"), Catch::Contains("no empty item"));
    CHECK_THROWS_WITH(read5(host1 + "claimed n1 1 mlx5_1:1 " + ga + ",0000000000000000\n"), Catch::Contains("not all zero"));
    {
        std::istringstream in("atoll-view 5\nkind roce\nrails 1 1\nisland leaf L1 1 2 1\nisland pod P1 -1 4 0\n" + host1 +
                              "claimed n1 1 mlx5_1:1 " + ga + "," + gb + "\n");
        CHECK_THROWS_WITH(read_summary(in, "r5"), Catch::Contains("InfiniBand view only"));
    }
    // written as 5 only with a claim: a view without one stays 4 for plugins that read 4
    std::ostringstream w;
    write_summary(w, v5);
    CHECK(w.str().rfind("atoll-view 5\n", 0) == 0);
    CHECK(w.str().find("\nclaimed n1 1 mlx5_1:1 " + ga + "," + gb + "\n") != std::string::npos);
    std::istringstream back(w.str());
    CHECK(read_summary(back, "w").claimed.at("n1")[0].pos == 1);
    // view 6: an odd host (made-up adapter names beside its rails), decided
    // by its own active ports: every listed one here, fewer others than listed
    auto read6 = [](const std::string &kind, const std::string &body) {
        std::istringstream in("atoll-view 6\nkind " + kind + "\nrails 1 1\nisland leaf L1 1 2 1\nisland pod P1 -1 4 0\n" + body);
        return read_summary(in, "v6");
    };
    const std::string host2 = "host n1 0 1 mlx5_0:1@" + g0 + ",mlx5_1:1@" + ga + " 1 -1 - -\nundecided n1\n";
    FabricSummary v6 = read6("ib", host2 + "odd n1\n");
    CHECK(v6.version == 6);
    CHECK(v6.odd.count("n1"));
    const std::pair<std::uint64_t, int> p0{0x98039b0300000000ULL, 1}, p1{0x98039b0300000044ULL, 1};
    auto odd = resolve_odd(v6, "n1", {p0, p1, {0x0c42a10300000001ULL, 1}}, why);
    REQUIRE(odd);
    CHECK(odd->hcas == std::vector<std::pair<std::string, int>>{{"mlx5_0", 1}, {"mlx5_1", 1}});
    // two other ports beside two rails: odd here too; a listed rail not here (or on its other port)
    CHECK_FALSE(resolve_odd(v6, "n1", {p0, p1, {0x0c42a10300000001ULL, 1}, {0x0c42a10300000002ULL, 1}}, why));
    CHECK(why.find("2 other active InfiniBand port(s) beside its 2 rail(s)") != std::string::npos);
    CHECK_FALSE(resolve_odd(v6, "n1", {p0, {0x98039b0300000044ULL, 2}}, why));
    CHECK(why.find("98039b0300000044 port 1, one of its rails there, is no active InfiniBand port here") != std::string::npos);
    CHECK_FALSE(resolve_odd(v5, "n1", {p0}, why));  // no odd line: not this rule
    CHECK_THROWS_WITH(read5(host2 + "odd n1\n"), Catch::Contains("or claimed line"));
    CHECK_THROWS_WITH(read6("ib", "host n1 0 1 mlx5_0:1@" + g0 + " 1 -1 - -\nodd n1\n"), Catch::Contains("a host listed above and undecided"));
    CHECK_THROWS_WITH(read6("roce", host2 + "odd n1\n"), Catch::Contains("InfiniBand view only"));
    CHECK_THROWS_WITH(read6("ib", "host n1 0 1 mlx5_0:1@" + g0 + ",mlx5_1:1 1 -1 - -\nundecided n1\nodd n1\n"),
                      Catch::Contains("each with its GUID"));
    CHECK_THROWS_WITH(read6("ib", host2 + "odd n1\nodd n1\n"), Catch::Contains("a host once"));
    CHECK_THROWS_WITH(read6("ib", host2 + "odd n1\nclaimed n1 2 mlx5_2:1 " + gb + ",98039b0300000088\n"),
                      Catch::Contains("before the host's odd line"));
    // view 6 claims: one claimant (the only one cabled on that port); one
    // adapter's two ports listing its GUIDs twice (not another adapter's)
    FabricSummary one = read6("ib", host1 + "claimed n1 1 mlx5_1:1 " + ga + "\n");
    CHECK(one.claimed.at("n1")[0].guids == std::vector<std::uint64_t>{0x98039b0300000044ULL});
    FabricSummary dual = read6("ib", host1 + "claimed n1 1 mlx5_1:1 " + ga + "," + gb + "\nclaimed n1 2 mlx5_1:2 " + ga + "," + gb + "\n");
    auto both = resolve_claims(dual, "n1", {p0, {0x98039b0300000044ULL, 1}, {0x98039b0300000044ULL, 2}}, why);
    REQUIRE(both);
    CHECK(both->hcas == std::vector<std::pair<std::string, int>>{{"mlx5_0", 1}, {"mlx5_1", 1}, {"mlx5_1", 2}});
    CHECK_THROWS_WITH(read5(host1 + "claimed n1 1 mlx5_1:1 " + ga + "," + gb + "\nclaimed n1 2 mlx5_1:2 " + ga + "," + gb + "\n"),
                      Catch::Contains("its other claims hold"));
    CHECK_THROWS_WITH(read6("ib", host1 + "claimed n1 1 mlx5_1:1 " + ga + "," + gb + "\nclaimed n1 2 mlx5_2:1 " + gb + "\n"),
                      Catch::Contains("its claims of other adapters hold"));
    std::ostringstream w1;
    write_summary(w1, one);
    CHECK(w1.str().rfind("atoll-view 6\n", 0) == 0);
    std::ostringstream w6;
    write_summary(w6, v6);
    CHECK(w6.str().rfind("atoll-view 6\n", 0) == 0);
    CHECK(w6.str().find("\nodd n1\n") != std::string::npos);
}

TEST_CASE("files read as root are opened once and checked on the descriptor", "[spank][security]")
{
    char dir[] = "/tmp/atoll-trust-XXXXXX";
    REQUIRE(mkdtemp(dir));
    chmod(dir, 0755);
    uid_t me = geteuid();
    std::string d = dir;
    std::ofstream(d + "/ok") << "x\n";
    chmod((d + "/ok").c_str(), 0644);
    struct stat st;
    int fd = open_trusted(d + "/ok", "fabric file", st, me);
    CHECK(fd >= 0);
    CHECK(read_trusted(fd, "ok", 100) == "x\n");
    close(fd);
    CHECK_THROWS_WITH(open_trusted("ok", "fabric file", st, me), Catch::Contains("expected an absolute path"));
    // a FIFO is refused at once, never waited on
    REQUIRE(mkfifo((d + "/fifo").c_str(), 0644) == 0);
    CHECK_THROWS_WITH(open_trusted(d + "/fifo", "fabric file", st, me), Catch::Contains("not a regular file"));
    // a directory anyone may write into: refused (a root-owned sticky one, as /tmp, is not)
    REQUIRE(mkdir((d + "/open").c_str(), 0777) == 0);
    chmod((d + "/open").c_str(), 0777);
    std::ofstream(d + "/open/f") << "x\n";
    chmod((d + "/open/f").c_str(), 0644);
    CHECK_THROWS_WITH(open_trusted(d + "/open/f", "fabric file", st, me),
                      Catch::Contains("refused: directory " + d + "/open is writable by someone other than root"));
    CHECK_THROWS_WITH(read_trusted(open_trusted(d + "/ok", "f", st, me), "ok", 1), Catch::Contains("larger than"));
    // a symbolic link is followed when its owner is trusted, and checked all the way
    REQUIRE(symlink("ok", (d + "/link").c_str()) == 0);
    fd = open_trusted(d + "/link", "fabric file", st, me);
    CHECK(fd >= 0);
    close(fd);
    REQUIRE(symlink((d + "/open/f").c_str(), (d + "/link2").c_str()) == 0);
    CHECK_THROWS_WITH(open_trusted(d + "/link2", "fabric file", st, me), Catch::Contains("is writable by someone other than root"));
    if (me == 0) {
        // whatever the effective uid (Slurm sets the job user's before user_init), the owner must be root
        REQUIRE(chown((d + "/ok").c_str(), 65534, 65534) == 0);
        CHECK_THROWS_WITH(open_trusted(d + "/ok", "fabric file", st), Catch::Contains("owned by uid 65534, expected root"));
        REQUIRE(lchown((d + "/link").c_str(), 65534, 65534) == 0);
        CHECK_THROWS_WITH(open_trusted(d + "/link", "fabric file", st),
                          Catch::Contains("symbolic link " + d + "/link is owned by uid 65534"));
        REQUIRE(chown(dir, 65534, 65534) == 0);
        CHECK_THROWS_WITH(open_trusted(d + "/open/f", "fabric file", st),
                          Catch::Contains("directory " + d + " is owned by uid 65534, expected root"));
        REQUIRE(chown(dir, 0, 0) == 0);
    }
    std::string rm = "rm -rf '" + d + "'";
    REQUIRE(system(rm.c_str()) == 0);
}

TEST_CASE("a file the job's user cannot read: the message names the uid and the fix", "[spank][security]")
{
    if (geteuid() != 0) {
        WARN("not root: cannot read a file as another user");
        return;
    }
    char dir[] = "/tmp/atoll-perm-XXXXXX";
    REQUIRE(mkdtemp(dir));
    REQUIRE(chmod(dir, 0755) == 0);
    std::string f = std::string(dir) + "/fabric.view";
    {
        std::ofstream(f) << "atoll-view 2\n";
    }
    REQUIRE(chmod(f.c_str(), 0600) == 0);
    std::string msg;
    struct stat st;
    REQUIRE(seteuid(65534) == 0);  // as slurmstepd runs user_init
    try {
        ::close(open_trusted(f, "fabric file", st));
    } catch (const std::runtime_error &e) {
        msg = e.what();
    }
    REQUIRE(seteuid(0) == 0);
    CHECK(msg == "fabric file " + f + ": Permission denied: not readable by uid 65534 (slurmstepd reads it as the "
                 "job's user): make it world-readable (0644, its directories 0755)");
    std::string rm = std::string("rm -rf '") + dir + "'";
    REQUIRE(system(rm.c_str()) == 0);
}

TEST_CASE("the node's HCA ports, link state and RoCE v2 GIDs from sysfs", "[node]")
{
    char dir[] = "/tmp/atoll-sysfs-XXXXXX";
    REQUIRE(mkdtemp(dir));
    auto put = [&](const std::string &rel, const std::string &text) {
        std::string path = std::string(dir) + "/" + rel;
        std::string cmd = "mkdir -p '" + path.substr(0, path.rfind('/')) + "'";
        REQUIRE(system(cmd.c_str()) == 0);
        std::ofstream(path) << text << "\n";
    };
    std::string e = "class/infiniband/mlx5_0/ports/1/", i = "class/infiniband/mlx5_1/ports/1/";
    put(e + "link_layer", "Ethernet");
    put(e + "state", "4: ACTIVE");
    put(e + "rate", "100 Gb/sec (4X EDR)");
    put(e + "gid_attrs/types/0", "IB/RoCE v1");
    put(e + "gid_attrs/types/1", "RoCE v2");
    put(e + "gid_attrs/types/3", "RoCE v2");
    put(e + "gids/0", "fe80:0000:0000:0000:5054:00ff:fe12:3456");
    put(e + "gids/1", "0000:0000:0000:0000:0000:0000:0000:0000");  // unset
    put(e + "gids/3", "0000:0000:0000:0000:0000:ffff:c0a8:0a05");
    put(e + "gid_attrs/ndevs/0", "ens1f0np0");
    put(e + "gid_attrs/ndevs/3", "ens1f0np0");
    put(i + "link_layer", "InfiniBand");
    put(i + "state", "1: DOWN");
    auto ports = node_ports(dir);
    REQUIRE(ports.size() == 2);
    CHECK(ports[0].hca == "mlx5_0");
    CHECK(ports[0].link_layer == "Ethernet");
    CHECK(ports[0].state == "4: ACTIVE");
    CHECK(ports[0].netdevs == std::vector<std::string>{"ens1f0np0"});
    CHECK(ports[0].roce_v2_gid_index == 3);  // 1 is a RoCE v2 entry with no address
    CHECK(ports[0].roce_v2_gid == "0000:0000:0000:0000:0000:ffff:c0a8:0a05");
    CHECK(ports[1].link_layer == "InfiniBand");
    CHECK(ports[1].roce_v2_gid_index == -1);
    CHECK(node_ports(std::string(dir) + "/nothing").empty());
    auto j = node_json(node_gpu_hcas(test_data("hwloc/32em64t-2n8c2t-pci-normalio.xml")), ports);
    CHECK(j["gpus"].size() == 3);
    CHECK(j["gpus"][2]["distance"] == "PIX");
    CHECK(j["ports"][0]["roce_v2_gid_index"] == 3);
    std::string rm = std::string("rm -rf '") + dir + "'";
    REQUIRE(system(rm.c_str()) == 0);
}

TEST_CASE("an HCA selector keeps the compute rails and drops storage", "[topology]")
{
    CHECK(hca_selected("", "mlx5_8"));
    CHECK(hca_selected("mlx5_[0-7]", "mlx5_3"));
    CHECK_FALSE(hca_selected("mlx5_[0-7]", "mlx5_8"));
    CHECK_FALSE(hca_selected("mlx5_*,!mlx5_8", "mlx5_8"));
    CHECK(hca_selected("mlx5_*,!mlx5_8", "mlx5_9"));
    Topology all = analyse(load_fabric(selene_path()));
    Topology four = analyse(select_hcas(load_fabric(selene_path()), "mlx5_[0-3]"));
    CHECK(all.rails.size() == 8);
    CHECK(four.rails == std::vector<std::string>{"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"});
    CHECK(four.islands_at(Level::Leaf).size() == all.islands_at(Level::Leaf).size());
}

namespace {

// A view 3 written by hand: two groups of one pod; leaf L0 holds NVLink
// domains A and B, leaf L2 domain C, leaf L1 none.
const char *const kDomainView =
    "atoll-view 3\n"
    "kind ib\n"
    "rails 0 1\n"
    "island leaf L0 3 2 0\n"        // 0
    "island leaf L1 3 2 0\n"        // 1
    "island leaf L2 4 2 0\n"        // 2
    "island group G0 5 4 0\n"       // 3
    "island group G1 5 4 0\n"       // 4
    "island pod P -1 4 0\n"         // 5
    "island domain nvl-A 0 2 0\n"   // 6
    "island domain nvl-B 0 2 0\n"   // 7
    "island domain nvl-C 2 2 0\n"   // 8
    "host n01 0 1 mlx5_0:1 1 7 uuid-b.2 rack1\n"
    "host n02 1 1 mlx5_0:1 1 -1 - -\n"
    "host n03 0 1 mlx5_0:1 1 6 uuid-a.1 -\n"
    "host n04 2 1 mlx5_0:1 1 8 uuid-c.3 -\n"
    "host n05 0 1 mlx5_0:1 1 6 uuid-a.1 -\n"
    "host n06 0 1 mlx5_0:1 1 7 uuid-b.2 rack2\n";

FabricView domain_view()
{
    std::istringstream in(kDomainView);
    FabricView v;
    v.summary = read_summary(in, "hand.view");
    return v;
}

const EnvVar *find_var(const std::vector<EnvVar> &env, const std::string &name)
{
    for (const EnvVar &v : env)
        if (v.name == name)
            return &v;
    return nullptr;
}

}  // namespace

TEST_CASE("view 3 carries each host's NVLink domain and rack sub-domain, and round-trips", "[spank][view]")
{
    GenSpec g;
    g.groups_per_pod = 2;
    g.hosts_per_group = 8;
    g.domain_size = 4;  // node001-004, node005-008, ...
    Fabric f = generate(g);
    REQUIRE(f.domains.size() == 16);
    f.domains[1].subdomain = "tray-group.0";
    Topology t = analyse(f);
    FabricSummary s = summarise(t, Cluster(t));
    std::ostringstream out;
    write_summary(out, s);
    CHECK(out.str().rfind("atoll-view 4\n", 0) == 0);
    std::istringstream in(out.str());
    FabricSummary back = read_summary(in, "rt.view");
    CHECK(back.version == 4);
    REQUIRE(back.hosts.size() == s.hosts.size());
    for (const auto &kv : s.hosts) {
        const ViewHost &b = back.hosts.at(kv.first);
        CHECK(b.domain == kv.second.domain);
        CHECK(b.domain_id == kv.second.domain_id);
        CHECK(b.subdomain == kv.second.subdomain);
        CHECK(b.leaf == kv.second.leaf);
        CHECK(b.guids == kv.second.guids);  // view 4: each adapter's node GUID
    }
    // an InfiniBand fabric's adapters carry the GUIDs the fabric saw
    const ViewHost &g1 = back.hosts.at("node001");
    REQUIRE(!g1.guids.empty());
    CHECK(g1.guids.size() == g1.hcas.size());
    CHECK(g1.guids[0] == t.hosts[t.host_index.at("node001")].ports[0].ca_guid);
    CHECK(g1.guids[0] != 0);
    // the IDs are the fabric's own, the islands atoll's
    const ViewHost &h1 = back.hosts.at("node001"), &h2 = back.hosts.at("node002"), &h5 = back.hosts.at("node005");
    CHECK(h1.domain_id == f.domains[0].domain);
    CHECK(h2.subdomain == "tray-group.0");
    CHECK(h1.domain == h2.domain);
    CHECK(h1.domain != h5.domain);
    CHECK(back.islands[static_cast<std::size_t>(h1.domain)].level == Level::Domain);
    // and the order is placement's own topology_order on the same hosts
    Cluster c(t);
    std::vector<std::string> names;
    std::vector<int> ids;
    for (const char *n : {"node016", "node001", "node009", "node006", "node002", "node012"}) {
        names.push_back(n);
        ids.push_back(c.find_host(n));
    }
    std::vector<std::string> want;
    for (int h : topology_order(c, ids))
        want.push_back(c.host_name(h));
    CHECK(view_order(back, names) == want);
}

TEST_CASE("views 1 and 2 are still read; a bad domain field is FILE:LINE", "[spank][view]")
{
    std::istringstream v2("atoll-view 2\nkind ib\nrails 0 1\nisland leaf L0 -1 2 0\nhost n1 0 1 mlx5_0:1 1\n");
    FabricSummary s = read_summary(v2, "v2.view");
    CHECK(s.version == 2);
    CHECK(s.hosts.at("n1").domain == -1);
    auto bad = [](const std::string &host_line) {
        std::istringstream in("atoll-view 3\nrails 0 1\nisland leaf L0 -1 2 0\nisland domain nvl-A 0 2 0\n" + host_line + "\n");
        return read_summary(in, "v3.view");
    };
    CHECK(bad("host n1 0 1 - 1 1 uuid.1 -").hosts.at("n1").domain_id == "uuid.1");
    CHECK_THROWS_WITH(bad("host n1 0 1 - 1"), Catch::StartsWith("v3.view:5: found 'host n1 0 1 - 1', expected host NAME"));
    CHECK_THROWS_WITH(bad("host n1 0 1 - 1 0 uuid.1 -"), Catch::StartsWith("v3.view:5:") && Catch::Contains("a domain island, not a leaf"));
    CHECK_THROWS_WITH(bad("host n1 0 1 - 1 2 uuid.1 -"), Catch::StartsWith("v3.view:5:") && Catch::Contains("-1 or the index"));
    CHECK_THROWS_WITH(bad("host n1 0 1 - 1 -1 uuid.1 -"), Catch::StartsWith("v3.view:5:"));
    CHECK_THROWS_WITH(bad("host n1 0 1 - 1 1 - -"), Catch::StartsWith("v3.view:5:"));
    CHECK_THROWS_WITH(bad("host n1 0 1 - 1 1 uu,id -"), Catch::Contains("a domain ID"));
    CHECK_THROWS_WITH(bad("host n1 0 1 - 1 1 uuid.1 r$1"), Catch::Contains("a sub-domain ID"));
    CHECK_THROWS_WITH(bad("host n1 0 1 - 1 1 uuid.1 - extra"), Catch::StartsWith("v3.view:5:"));
}

TEST_CASE("the step's nodes in topology order: pod, group, leaf, domain; ranks from it", "[spank][order]")
{
    FabricView f = domain_view();
    StepInfo step;
    step.nodes = {"n01", "n02", "n03", "n04", "n05", "n06"};  // Slurm's (hostlist) order
    step.node = "n06";
    step.tasks_per_node = 4;
    // by hand: keys (pod, group, leaf, domain) by island index:
    // n01 (5,3,0,7) n02 (5,3,1,-1) n03 (5,3,0,6) n04 (5,4,2,8) n05 (5,3,0,6) n06 (5,3,0,7)
    // sorted, ties in Slurm's order: n03 n05 | n01 n06 | n02 | n04
    StepOrder o = step_order(f.summary, step);
    CHECK(o.order == std::vector<std::string>{"n03", "n05", "n01", "n06", "n02", "n04"});
    CHECK(o.node_rank == 3);
    EnvVar r = task_rank(o, step, 2);  // 3 x 4 + 2
    CHECK(r.set);
    CHECK(r.value == "14");
    CHECK(task_rank(o, step, 0).value == "12");
    step.node = "n03";
    o = step_order(f.summary, step);
    CHECK(task_rank(o, step, 3).value == "3");  // 0 x 4 + 3
    step.node = "n04";
    o = step_order(f.summary, step);
    CHECK(task_rank(o, step, 1).value == "21");  // 5 x 4 + 1
    // n01..n06 against n03 n05 n01 n06 n02 n04: no position the same
    CHECK(slurm_order_note(step, o) == "6 of 6 positions differ (node 0 is n01 for Slurm, n03 for atoll, node 1 is n02 "
                                       "for Slurm, n05 for atoll, node 2 is n03 for Slurm, n01 for atoll, node 3 is n04 "
                                       "for Slurm, n06 for atoll, ...)");
    StepInfo same = step;
    same.nodes = {"n03", "n05"};
    same.node = "n05";
    CHECK(slurm_order_note(same, step_order(f.summary, same)).empty());
    // another ordering's ranks (a rank plan) take the place of the arithmetic
    StepOrder planned = o;
    planned.task_ranks = {7, 3};
    planned.source = "the rank plan";
    CHECK(task_rank(planned, step, 1).value == "3");
    CHECK(task_rank(planned, step, 1).why == "the rank plan, local id 1");
    CHECK_FALSE(task_rank(planned, step, 2).set);
    // uneven layout: no global rank, and why
    step.tasks_per_node = -1;
    step.layout_why = "SLURM_STEP_TASKS_PER_NODE=3,1: the nodes run different numbers of tasks";
    EnvVar un = task_rank(o, step, 0);
    CHECK_FALSE(un.set);
    CHECK(un.why == "SLURM_STEP_TASKS_PER_NODE=3,1: the nodes run different numbers of tasks: no global rank in atoll's order");

    PluginConfig cfg;
    UserOptions opt;
    NodeFacts facts;
    auto none = [](const std::string &) { return false; };
    step.node = "n06";
    step.tasks_per_node = 4;
    auto env = node_env(f, cfg, opt, step, facts, none);
    REQUIRE(find_var(env, "ATOLL_DOMAIN"));
    CHECK(find_var(env, "ATOLL_DOMAIN")->value == "uuid-b.2");
    CHECK(find_var(env, "ATOLL_DOMAIN")->why == "this node's NVLink domain (island nvl-B), rack sub-domain rack2");
    CHECK(find_var(env, "ATOLL_DOMAINS")->value == "uuid-a.1,uuid-b.2,uuid-c.3");
    CHECK(find_var(env, "ATOLL_NODE_ORDER")->value == "n03,n05,n01,n06,n02,n04");
    CHECK(find_var(env, "ATOLL_NODE_RANK")->value == "3");
    // n06 shares domain B with n01: NCCL >= 2.25 needs an IMEX channel for
    // that domain though the step spans three (never set, said why)
    REQUIRE(find_var(env, "NCCL_MNNVL_ENABLE"));
    CHECK_FALSE(find_var(env, "NCCL_MNNVL_ENABLE")->set);
    CHECK(find_var(env, "NCCL_MNNVL_ENABLE")->why == "the IMEX channels were not read (atoll never sets it)");
    step.node = "n04";  // alone in domain C: no multi-node NVLink from this node
    CHECK_FALSE(find_var(node_env(f, cfg, opt, step, facts, none), "NCCL_MNNVL_ENABLE"));
    step.node = "n06";
    // n02 has no domain
    step.node = "n02";
    env = node_env(f, cfg, opt, step, facts, none);
    CHECK_FALSE(find_var(env, "ATOLL_DOMAIN")->set);
    CHECK(find_var(env, "ATOLL_DOMAIN")->why == "this node is in no NVLink domain of the fabric file");
    CHECK(find_var(env, "ATOLL_NODE_RANK")->value == "4");
    // a user's own value is replaced, not kept
    auto user = [](const std::string &n) { return n == "ATOLL_NODE_RANK"; };
    env = node_env(f, cfg, opt, step, facts, user);
    CHECK_FALSE(find_var(env, "ATOLL_NODE_RANK")->kept);
    CHECK(find_var(env, "ATOLL_NODE_RANK")->value == "4");
    // one node unknown: none of them, and why
    step.nodes = {"n01", "n03", "x99"};
    step.node = "n01";
    env = node_env(f, cfg, opt, step, facts, none);
    for (const char *n : {"ATOLL_DOMAIN", "ATOLL_DOMAINS", "ATOLL_NODE_ORDER", "ATOLL_NODE_RANK"}) {
        REQUIRE(find_var(env, n));
        CHECK_FALSE(find_var(env, n)->set);
        CHECK(find_var(env, n)->why == "1 step node(s) absent from the fabric file (x99): the step's topology order is not known");
    }
    CHECK_FALSE(task_rank(step_order(f.summary, step), step, 0).set);
}

TEST_CASE("tasks per node from Slurm's counts and SLURM_STEP_TASKS_PER_NODE", "[spank][order]")
{
    std::string why;
    // uint16_array_to_str (src/common/env.c): "1,2,1(x3),3,2"
    CHECK(uniform_tasks_per_node(3, 12, 4, "4(x3)", why) == 4);
    CHECK(uniform_tasks_per_node(3, 12, 4, "4,4,4", why) == 4);
    CHECK(uniform_tasks_per_node(4, 8, 2, "2(x2),2,2", why) == 2);
    CHECK(uniform_tasks_per_node(1, 1, 1, "1", why) == 1);
    // the counts agree but the layout is 3,1
    CHECK(uniform_tasks_per_node(2, 4, 2, "3,1", why) == -1);
    CHECK(why == "SLURM_STEP_TASKS_PER_NODE='3,1': the nodes run different numbers of tasks");
    CHECK(uniform_tasks_per_node(2, 5, 2, "3,2", why) == -1);
    CHECK(why == "5 tasks on 2 nodes, 2 here: the nodes run different numbers of tasks");
    CHECK(uniform_tasks_per_node(3, 12, 4, "4(x2)", why) == -1);
    CHECK(why == "SLURM_STEP_TASKS_PER_NODE='4(x2)' names 2 nodes, the step has 3");
    for (const char *bad : {"", "4(x3", "4(3)", "4,", ",4", "a", "4(x)", "4(x3)x"}) {
        CHECK(uniform_tasks_per_node(3, 12, 4, bad, why) == -1);
        CHECK(why.find("is not Slurm's") != std::string::npos);
    }
    CHECK(uniform_tasks_per_node(0, 0, 0, "", why) == -1);
}

TEST_CASE("IMEX channels: a character device the job's user may open; the warning when none", "[spank][imex]")
{
    char dir[] = "/tmp/atoll-imex-XXXXXX";
    REQUIRE(mkdtemp(dir));
    std::string chans = std::string(dir) + "/nvidia-caps-imex-channels";
    ImexChannels c = imex_channels(dir, 1000, 1000);
    CHECK_FALSE(c.dir_found);
    CHECK(c.usable.empty());
    REQUIRE(mkdir(chans.c_str(), 0755) == 0);
    std::ofstream(chans + "/channel0") << "";  // a regular file is no channel
    std::ofstream(chans + "/other") << "";
    c = imex_channels(dir, 1000, 1000);
    CHECK(c.dir_found);
    CHECK(c.usable.empty());
    REQUIRE(c.refused.size() == 1);
    CHECK(c.refused[0] == "channel0: not a character device");

    FabricView f = domain_view();
    StepInfo step;
    step.nodes = {"n03", "n05"};  // both in domain A
    step.node = "n05";
    PluginConfig cfg;
    UserOptions opt;
    NodeFacts facts;
    facts.imex = c;
    facts.imex_read = true;
    auto none = [](const std::string &) { return false; };
    auto env = node_env(f, cfg, opt, step, facts, none);
    const EnvVar *m = find_var(env, "NCCL_MNNVL_ENABLE");
    REQUIRE(m);
    CHECK_FALSE(m->set);
    CHECK(m->why == "the 2 nodes share NVLink domain uuid-a.1 but no IMEX channel in " + chans +
                        " is usable by the job's user (channel0: not a character device): multi-node NVLink cannot "
                        "work (NCCL >= 2.25 fails the communicator's init, \"MNNVL ... available but not working\"; "
                        "only NCCL_MNNVL_ENABLE=0 makes it fall back to the network) (atoll never sets it)");
    facts.imex.usable = {"channel0"};
    env = node_env(f, cfg, opt, step, facts, none);
    CHECK(find_var(env, "NCCL_MNNVL_ENABLE")->why.find("fall back") == std::string::npos);
    CHECK_FALSE(find_var(env, "NCCL_MNNVL_ENABLE")->set);
    CHECK_FALSE(find_var(env, "NCCL_NVLS_ENABLE"));
    // /proc/devices as the kernel writes it (fs/proc/devices.c: "%3d %s"),
    // with the region the NVIDIA driver registers for IMEX channels
    std::string proc = std::string(dir) + "/proc";
    REQUIRE(mkdir(proc.c_str(), 0755) == 0);
    std::ofstream(proc + "/devices") << "Character devices:\n  1 mem\n  4 /dev/vc/0\n195 nvidia\n"
                                        "234 nvidia-caps-imex-channels\n235 nvidia-caps\n\nBlock devices:\n"
                                        "  7 loop\n234 nvidia-caps-imex-channels-not\n";
    {
        std::istringstream pd("Character devices:\n  1 mem\n510 nvidia-caps-imex-channels\n\nBlock devices:\n"
                              "511 nvidia-caps-imex-channels\n");
        CHECK(char_major(pd, "nvidia-caps-imex-channels") == 510);
        std::istringstream blk("Character devices:\n  1 mem\n\nBlock devices:\n259 nvidia-caps-imex-channels\n");
        CHECK(char_major(blk, "nvidia-caps-imex-channels") == -1);  // a block region is no channel
    }
    if (geteuid() == 0) {  // character devices with modes
        std::string dev = chans + "/channel1";
        REQUIRE(mknod(dev.c_str(), S_IFCHR | 0600, makedev(234, 1)) == 0);
        REQUIRE(chown(dev.c_str(), 0, 0) == 0);
        CHECK(imex_channels(dir, 1000, 1000, {}, proc).usable.empty());
        CHECK(imex_channels(dir, 0, 0, {}, proc).usable == std::vector<std::string>{"channel1"});
        chmod(dev.c_str(), 0660);
        CHECK(imex_channels(dir, 1000, 1000, {0}, proc).usable == std::vector<std::string>{"channel1"});
        chmod(dev.c_str(), 0666);
        CHECK(imex_channels(dir, 1000, 1000, {}, proc).usable == std::vector<std::string>{"channel1"});
        // /dev/null's 1:3 under the channel's name is no channel, even for root
        std::string null = chans + "/channel2";
        REQUIRE(mknod(null.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0);
        c = imex_channels(dir, 0, 0, {}, proc);
        CHECK(c.usable == std::vector<std::string>{"channel1"});
        CHECK(std::find(c.refused.begin(), c.refused.end(),
                        "channel2: device 1:3 is not an IMEX channel (" + proc +
                            "/devices: nvidia-caps-imex-channels is major 234)") != c.refused.end());
        // a driver that made no IMEX region, or no /proc/devices: no channel at all
        std::ofstream(proc + "/devices") << "Character devices:\n  1 mem\n195 nvidia\n";
        c = imex_channels(dir, 0, 0, {}, proc);
        CHECK(c.usable.empty());
        CHECK(std::find(c.refused.begin(), c.refused.end(),
                        "channel1: " + proc + "/devices names no nvidia-caps-imex-channels (the driver made no IMEX "
                        "channels)") != c.refused.end());
        CHECK(imex_channels(dir, 0, 0, {}, std::string(dir) + "/noproc").usable.empty());
        unlink(null.c_str());
        unlink(dev.c_str());
    }
    unlink((proc + "/devices").c_str());
    rmdir(proc.c_str());
    unlink((chans + "/channel0").c_str());
    unlink((chans + "/other").c_str());
    rmdir(chans.c_str());
    rmdir(dir);
}
