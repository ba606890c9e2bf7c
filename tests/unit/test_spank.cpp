// The SPANK plugin's logic without Slurm: plugstack keys, options, the
// environment of a node, GPU-to-HCA pairs from saved hwloc topologies.
#include "catch.hpp"
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <functional>
#include <sstream>
#include <sys/stat.h>
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
    CHECK_THROWS_WITH(parse_plugstack({"leaf_wait=soon"}), Catch::Contains("leaf_wait=soon"));
    CHECK(c.max_age == 7 * 86400);
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
    CHECK(parse_island("none").none);
    for (const char *bad : {"rack", "leaf:maybe", "fabric", "", "auto:required"})
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
    auto p = gpu_hca_pairs(atl_gpu_hcas, test_data("hwloc/32em64t-2n8c2t-pci-normalio.xml"));
    REQUIRE(p.size() == 3);
    CHECK(p[0].gpu_busid == "0000:03:00.0");
    CHECK(p[0].hca == "mlx5_0");
    CHECK(p[0].distance == "SYS");
    CHECK(p[1].gpu_busid == "0000:83:00.0");
    CHECK(p[1].distance == "PHB");
    CHECK(p[2].gpu_busid == "0000:84:00.0");
    CHECK(p[2].distance == "PIX");
    // the DGX-2 export has 16 V100 and no HCA at all
    auto d = gpu_hca_pairs(atl_gpu_hcas, test_data("hwloc/nvidiaDGX2.hwloc-2.14.0.v2.xml"));
    CHECK(d.size() == 16);
    for (const auto &g : d)
        CHECK(g.hca.empty());
    CHECK_THROWS_WITH(gpu_hca_pairs(atl_gpu_hcas, "/nonexistent.xml"), Catch::Contains("hwloc XML /nonexistent.xml: No such file"));
}

TEST_CASE("GPU-to-HCA pairs on a multi-HCA node, restricted to the compute HCAs", "[spank][hwloc]")
{
    // hand-written DGX A100-like XML: socket 0 switch {GPU0+mlx5_0, GPU1+mlx5_1},
    // socket 1 switch {GPU2+mlx5_2, GPU3+mlx5_3}, mlx5_4 (storage) on socket 0
    std::string xml = test_data("hwloc/dgx-a100-like-4gpu-5hca.xml");
    auto p = gpu_hca_pairs(atl_gpu_hcas, xml);
    REQUIRE(p.size() == 4);
    for (int g = 0; g < 4; ++g) {
        CHECK(p[static_cast<std::size_t>(g)].hca == "mlx5_" + std::to_string(g));
        CHECK(p[static_cast<std::size_t>(g)].distance == "PIX");
    }
    CHECK(p[2].gpu_busid == "0000:92:00.0");
    // only the HCAs given: without mlx5_0/1, GPU 0's nearest is the storage
    // HCA on its socket (NODE); without that too, across the sockets (SYS)
    auto q = gpu_hca_pairs(atl_gpu_hcas, xml, {{"mlx5_2", 1}, {"mlx5_3", 1}, {"mlx5_4", 1}});
    CHECK(q[0].hca == "mlx5_4");
    CHECK(q[0].distance == "NODE");
    CHECK(q[3].hca == "mlx5_3");
    auto r = gpu_hca_pairs(atl_gpu_hcas, xml, {{"mlx5_1", 1}, {"mlx5_2", 1}});
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
    CHECK_THROWS_WITH(read("source a\x1b[2Jb\n"), Catch::Contains("expected a printable source name"));
    std::string many;
    for (int k = 0; k < 65; ++k)
        many += (k ? "," : "") + std::string("mlx5_") + std::to_string(k) + ":1";
    CHECK_THROWS_WITH(read(ok + "host n2 0 1 " + many + "\n"), Catch::Contains("at most 64 HCA:PORT items"));
    CHECK_THROWS_WITH(read("island leaf L1 -1 65 1\n"), Catch::Contains("a hop count from 0 to 64"));
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
