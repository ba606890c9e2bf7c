// The environment an expert would set, per node and per local rank, worked
// out by hand for: a DGX-like InfiniBand node with a storage HCA, a RoCE node,
// a job given GPUs 2 and 5 of 8 through gres under ConstrainDevices, an 8-GPU
// single task, a batch script with two srun steps, and an AWS node. The
// node's own facts (sysfs ports, /proc GPUs by device minor, hwloc's nearest
// HCA per GPU) are given here; reading them is tested beside.
#include "catch.hpp"
#include <cerrno>
#include <dirent.h>
#include <algorithm>
#include <thread>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "placement/view.hpp"
#include "spank/core.hpp"
#include "spank/record.hpp"
#include "spank/userfile.hpp"
#include "node/ucxconf.hpp"
#include "testdata.hpp"
#include "topology/generate.hpp"
#include "topology/io.hpp"

using namespace atl;

namespace {

FabricView view_of(const Fabric &f, const std::string &profile)
{
    Topology t = analyse(f);
    FabricView v;
    v.summary = summarise(t, Cluster(t));
    v.profile = profile;
    return v;
}

NodePort port(const std::string &hca, const std::string &layer, const std::string &netdev = "", int gid = -1,
              const std::string &gid_addr = "", int tc = -1, const std::string &state = "4: ACTIVE")
{
    NodePort p;
    p.hca = hca;
    p.port = 1;
    p.link_layer = layer;
    p.state = state;
    if (!netdev.empty())
        p.netdevs = {netdev};
    p.traffic_class = tc;
    if (layer == "Ethernet" && gid >= 0) {
        // as mlx5 fills a RoCE port's table: for each address of the netdev
        // a RoCE v1 and a RoCE v2 entry, the MAC's link-local fe80 one first
        p.gid_table_len = 255;
        std::string ll = "fe80:0000:0000:0000:0ac0:ebff:feda:1c" + gid_addr.substr(37, 2);
        p.gids = {{0, ll, 1, netdev}, {1, ll, 2, netdev}};
        if (gid > 2)
            p.gids.push_back({gid - 1, gid_addr, 1, netdev});
        p.gids.push_back({gid, gid_addr, 2, netdev});
    }
    return p;
}

GidEntry gid(int index, const std::string &addr, int version, const std::string &ndev)
{
    return GidEntry{index, addr, version, ndev};
}

// "NAME=VALUE" for what is set, "NAME-" for what is considered and left unset
std::string table(const std::vector<EnvVar> &env)
{
    std::string out;
    for (const EnvVar &v : env) {
        if (v.name == "ATOLL_ENV_SET")
            continue;
        out += v.kept ? v.name + " kept\n" : v.set ? v.name + "=" + v.value + "\n" : v.name + "-\n";
    }
    return out;
}

std::string why_of(const std::vector<EnvVar> &env, const std::string &name)
{
    for (const EnvVar &v : env)
        if (v.name == name)
            return v.why;
    return "";
}

// A DGX A100-like node: 8 GPUs in PCI order 07, 0f, 47, 4e, 87, 90, b7, bd,
// each beside mlx5_0..mlx5_7 on its PCIe switch, device minors 0-7 in that
// order; `minor_of_pci` numbers them otherwise, as the driver may (then
// Slurm's index, by minor, and CUDA's, by bus, name different GPUs)
NodeFacts dgx_facts(const std::vector<int> &minor_of_pci = {0, 1, 2, 3, 4, 5, 6, 7})
{
    NodeFacts f;
    for (int k = 0; k <= 8; ++k)  // mlx5_8: the storage HCA, not a compute rail
        f.ports.push_back(port("mlx5_" + std::to_string(k), "InfiniBand"));
    const char *bus[] = {"0000:07:00.0", "0000:0f:00.0", "0000:47:00.0", "0000:4e:00.0",
                         "0000:87:00.0", "0000:90:00.0", "0000:b7:00.0", "0000:bd:00.0"};
    for (int k = 0; k < 8; ++k)
        f.gpu_hcas.push_back(GpuHca{k, bus[k], "mlx5_" + std::to_string(k), "PXB", 1, ""});
    for (int k = 0; k <= 8; ++k)  // the XML names every HCA of the node
        f.hwloc_hcas["mlx5_" + std::to_string(k)].insert("");
    for (int k = 0; k < 8; ++k)
        f.gpus[minor_of_pci[static_cast<std::size_t>(k)]] = bus[k];
    return f;
}

const auto no_user = [](const std::string &) { return false; };

// The names in a directory, less . and ..
std::vector<std::string> list_dir(const std::string &dir)
{
    std::vector<std::string> out;
    if (DIR *d = opendir(dir.c_str())) {
        while (struct dirent *e = readdir(d))
            if (std::string(e->d_name) != "." && std::string(e->d_name) != "..")
                out.push_back(e->d_name);
        closedir(d);
    }
    return out;
}

// The plugin's keys for the DGX tables: hwloc's map given, ConstrainDevices as said
PluginConfig gres_cfg(int constrained)
{
    PluginConfig cfg;
    cfg.hwloc_xml = "(given)";
    cfg.constrain_devices = constrained;
    return cfg;
}

// One pod of two rail groups, 2 hosts each, 8 rails: node001-002 and node003-004
FabricView dgx_view(bool sharp)
{
    GenSpec g;
    g.pods = 1;
    g.groups_per_pod = 2;
    g.rails = 8;
    g.hosts_per_group = 2;
    g.sharp = sharp;
    return view_of(generate(g), "ib");
}

}  // namespace

TEST_CASE("expert table: DGX-like InfiniBand node with a storage HCA, two rail groups", "[env]")
{
    FabricView v = dgx_view(true);
    PluginConfig cfg = gres_cfg(0);
    UserOptions opt;
    NodeFacts facts = dgx_facts();
    StepInfo step{{"node001", "node003"}, "node001", false, {}, -1, {}};
    auto env = node_env(v, cfg, opt, step, facts, no_user);
    // node001 and node003 are in rail groups ib-leaf01 and ib-leaf09 of one
    // pod: 4 cables apart; every switch has SHARP, rails are right, one port
    // per leaf: SHARP is offered, CollNet left to each communicator; the
    // storage HCA mlx5_8 is no compute rail
    CHECK(table(env) ==
          "ATOLL_ISLAND=pod-ib-leaf01\n"
          "ATOLL_LEAVES=grp-ib-leaf01,grp-ib-leaf09\n"
          "ATOLL_HOPS=4\n"
          "NCCL_IB_HCA==mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1\n"
          "ATOLL_SHARP=1\n"
          "ATOLL_SHARP_ISLAND=pod-ib-leaf01\n"
          "NCCL_COLLNET_ENABLE-\n"
          // no NVLink domain; the two nodes by group (leaf01's before leaf09's)
          "ATOLL_DOMAIN-\n"
          "ATOLL_DOMAINS-\n"
          "ATOLL_NODE_ORDER=node001,node003\n"
          "ATOLL_NODE_RANK=0\n");
    CHECK(env.back().name == "ATOLL_ENV_SET");
    // --fabric-sharp=on: CollNet for every communicator
    opt.sharp = SharpMode::On;
    CHECK(table(node_env(v, cfg, opt, step, facts, no_user)).find("NCCL_COLLNET_ENABLE=1\n") != std::string::npos);
    opt.sharp = SharpMode::Auto;
    // one task per GPU (--gpus-per-task=1, no ConstrainDevices): Slurm's
    // index i is the GPU of device minor i, here the i-th by bus, beside mlx5_i
    NodeDevices dev = node_devices(v, cfg, "node001", facts.ports);
    for (int k = 0; k < 8; ++k) {
        auto t = task_env(cfg, facts, dev, step, std::to_string(k), "0,1,2,3,4,5,6,7", no_user);
        CHECK(table(t) == "UCX_NET_DEVICES=mlx5_" + std::to_string(k) + ":1\n");
    }
    // (helper 29) minors in another order than the bus (07 minor 2, 47 minor
    // 0, ...): Slurm's index 2 is minor 2 (0000:07), CUDA's device 2 the
    // third by bus (0000:47); which the task has is not known: nothing
    {
        NodeFacts odd = dgx_facts({2, 3, 0, 1, 6, 7, 4, 5});
        auto t = task_env(cfg, odd, dev, step, "2", "0,1,2,3,4,5,6,7", no_user);
        CHECK(table(t) == "UCX_NET_DEVICES-\n");
        CHECK_THAT(why_of(t, "UCX_NET_DEVICES"), Catch::Contains("device minors are not in PCI bus order") &&
                                                     Catch::Contains("Slurm counts GPUs by minor and CUDA by bus"));
    }
    // a port down: still listed (NCCL skips it; every node keeps one list), with a warning
    facts.ports[3].state = "1: DOWN";
    dev = node_devices(v, cfg, "node001", facts.ports);
    CHECK(dev.usable);
    REQUIRE(dev.problems.size() == 1);
    CHECK(dev.problems[0] == "mlx5_3 port 1 is 1: DOWN (NCCL skips it while it stays so)");
    // no RDMA device at all (or the names of another machine): nothing, and why
    facts.ports.clear();
    auto none = node_env(v, cfg, opt, step, facts, no_user);
    CHECK(table(none).find("NCCL_IB_HCA-\n") != std::string::npos);
    CHECK_THAT(why_of(none, "NCCL_IB_HCA"), Catch::StartsWith("no RDMA device in sysfs"));
    CHECK(table(none).find("ATOLL_SHARP-") != std::string::npos);
}

TEST_CASE("expert table: GPUs 2 and 5 of 8 through gres, with and without ConstrainDevices", "[env]")
{
    FabricView v = dgx_view(false);
    PluginConfig cfg = gres_cfg(-1);
    NodeFacts facts = dgx_facts();
    StepInfo step{{"node001"}, "node001", false, {}, -1, {}};
    NodeDevices dev = node_devices(v, cfg, "node001", facts.ports);
    // ConstrainDevices: the task sees its GPUs as 0 and 1. Slurm's 2 is minor
    // 2 (0000:47, beside mlx5_2), its 5 minor 5 (0000:90, beside mlx5_5)
    cfg.constrain_devices = 1;
    CHECK(table(task_env(cfg, facts, dev, step, "0", "2,5", no_user)) == "UCX_NET_DEVICES=mlx5_2:1\n");
    CHECK(table(task_env(cfg, facts, dev, step, "1", "2,5", no_user)) == "UCX_NET_DEVICES=mlx5_5:1\n");
    // (helper 29) positions beyond the step's GPUs under ConstrainDevices: nothing
    CHECK_THAT(why_of(task_env(cfg, facts, dev, step, "5", "2,5", no_user), "UCX_NET_DEVICES"),
               Catch::Contains("names positions beyond the step's 2 GPU(s) (constrain_devices=yes"));
    // one task holding both: two nearest HCAs, none is right for both
    auto both = task_env(cfg, facts, dev, step, "0,1", "2,5", no_user);
    CHECK(table(both) == "UCX_NET_DEVICES-\n");
    CHECK(why_of(both, "UCX_NET_DEVICES") == "the task's 2 GPUs have 2 nearest HCAs: UCX chooses per transfer");
    // an nccl.conf that sets UCX_NET_DEVICES, or one atoll could not read:
    // NCCL's setenv would not overwrite atoll's value, so atoll sets none
    {
        NodeFacts f2 = facts;
        f2.nccl_conf["UCX_NET_DEVICES"] = "/home/u/.nccl.conf";
        auto t = task_env(cfg, f2, dev, step, "0", "2,5", no_user);
        CHECK(table(t) == "UCX_NET_DEVICES-\n");
        CHECK(why_of(t, "UCX_NET_DEVICES") == "set in /home/u/.nccl.conf, which NCCL reads: left to it");
        f2.nccl_conf.clear();
        f2.nccl_conf_unknown = "the user's nccl.conf '/x' was not read within 2 s";
        CHECK(why_of(task_env(cfg, f2, dev, step, "0", "2,5", no_user), "UCX_NET_DEVICES") == f2.nccl_conf_unknown);
    }
    // the same without ConstrainDevices: CUDA_VISIBLE_DEVICES is Slurm's 2 and 5
    cfg.constrain_devices = 0;
    CHECK(table(task_env(cfg, facts, dev, step, "5", "2,5", no_user)) == "UCX_NET_DEVICES=mlx5_5:1\n");
    // (helper 29) 0 and 1 are not GPUs of the step, and the admin says
    // Slurm's indices: the environment does not fit, nothing (it read them
    // as positions and set mlx5_5)
    auto outside = task_env(cfg, facts, dev, step, "1", "2,5", no_user);
    CHECK(table(outside) == "UCX_NET_DEVICES-\n");
    CHECK_THAT(why_of(outside, "UCX_NET_DEVICES"), Catch::Contains("names GPUs outside the step's (constrain_devices=no"));
    // GPUs 1 and 2, task sees "1": Slurm's 1 (0000:0f, mlx5_1) or position 1
    // (Slurm's 2: 0000:47, mlx5_2); unknown ConstrainDevices: nothing
    cfg.constrain_devices = -1;
    setenv("SLURM_CONF", "/nonexistent/slurm.conf", 1);
    auto amb = task_env(cfg, facts, dev, step, "1", "1,2", no_user);
    CHECK(table(amb) == "UCX_NET_DEVICES-\n");
    CHECK_THAT(why_of(amb, "UCX_NET_DEVICES"), Catch::Contains("set constrain_devices="));
    unsetenv("SLURM_CONF");
    cfg.constrain_devices = 1;
    CHECK(table(task_env(cfg, facts, dev, step, "1", "1,2", no_user)) == "UCX_NET_DEVICES=mlx5_2:1\n");
    cfg.constrain_devices = 0;
    CHECK(table(task_env(cfg, facts, dev, step, "1", "1,2", no_user)) == "UCX_NET_DEVICES=mlx5_1:1\n");
    // no gres, UUIDs, no driver: not sure, nothing
    CHECK_THAT(why_of(task_env(cfg, facts, dev, step, "0", "", no_user), "UCX_NET_DEVICES"),
               Catch::Contains("no GPU gres"));
    CHECK_THAT(why_of(task_env(cfg, facts, dev, step, "GPU-1f2e", "2,5", no_user), "UCX_NET_DEVICES"),
               Catch::Contains("UUIDs, MIG devices"));
    NodeFacts nodrv = facts;
    nodrv.gpus.clear();
    CHECK_THAT(why_of(task_env(cfg, nodrv, dev, step, "", "2", no_user), "UCX_NET_DEVICES"),
               Catch::Contains("no NVIDIA GPU in /proc/driver/nvidia/gpus"));
}

TEST_CASE("expert table: one task holding all 8 GPUs (a torchrun launcher)", "[env]")
{
    FabricView v = dgx_view(false);
    PluginConfig cfg = gres_cfg(0);
    NodeFacts facts = dgx_facts();
    StepInfo step{{"node001", "node002"}, "node001", false, {}, -1, {}};
    NodeDevices dev = node_devices(v, cfg, "node001", facts.ports);
    auto t = task_env(cfg, facts, dev, step, "", "0,1,2,3,4,5,6,7", no_user);
    CHECK(table(t) == "UCX_NET_DEVICES-\n");
    CHECK(why_of(t, "UCX_NET_DEVICES") == "the task's 8 GPUs have 8 nearest HCAs: UCX chooses per transfer");
    // its ranks share the node's one NCCL_IB_HCA: all eight rails
    auto env = node_env(v, cfg, UserOptions(), step, facts, no_user);
    CHECK(table(env).find("NCCL_IB_HCA==mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1\n") !=
          std::string::npos);
    // SHARP: one rail group, one leaf island: nothing above to reduce in
    CHECK(why_of(env, "ATOLL_SHARP") != "");
}

TEST_CASE("expert table: a RoCE node named by its netdevs (LLDP)", "[env]")
{
    FabricView v = view_of(load_fabric(test_data("lldp/2_three_interfaces.neighbors_details.json"), InputFormat::Auto, {}, NicRoles{"", "ens*", "", false, {}, ""}), "roce");
    PluginConfig cfg;
    UserOptions opt;
    NodeFacts facts;
    // the LLDP tables name ens1f0np0, ens1f1np1, ens2f0np0 (slot-named: in
    // slot and function order); sysfs says which
    // RDMA device is behind each, their RoCE v2 GID (index 3) and class 106
    facts.ports = {port("mlx5_0", "Ethernet", "ens1f0np0", 3, "0000:0000:0000:0000:0000:ffff:c0a8:0a05", 106),
                   port("mlx5_1", "Ethernet", "ens1f1np1", 3, "0000:0000:0000:0000:0000:ffff:c0a8:0b05", 106),
                   port("mlx5_2", "Ethernet", "ens2f0np0", 3, "0000:0000:0000:0000:0000:ffff:c0a8:0c05", 106)};
    const std::string host = "2_three_interfaces";
    StepInfo step{{host}, host, false, {}, -1, {}};
    auto env = node_env(v, cfg, opt, step, facts, no_user);
    std::string got = table(env);
    // device names, never netdevs (NCCL would match none and fall back to TCP)
    CHECK(got.find("NCCL_IB_HCA==mlx5_0:1,mlx5_1:1,mlx5_2:1\n") != std::string::npos);
    CHECK(got.find("NCCL_IB_TC=106\nUCX_IB_TRAFFIC_CLASS=106\n") != std::string::npos);
    // GID 3, the IPv4 RoCE v2 one, is what NCCL >= 2.21 takes (and < 2.21
    // needs: it would take 0); UCX takes it by itself on each port
    CHECK(got.find("NCCL_IB_GID_INDEX=3\nUCX_IB_GID_INDEX-\n") == std::string::npos);
    CHECK(got.find("UCX_IB_GID_INDEX-\nNCCL_IB_GID_INDEX=3\n") != std::string::npos);
    CHECK_THAT(why_of(env, "NCCL_IB_GID_INDEX"), Catch::Contains("what NCCL >= 2.21 picks itself"));
    CHECK(got.find("ens") == std::string::npos);
    CHECK(got.find("SHARP") == std::string::npos);
    // the site's class wins; a class of the ports with both ECN bits is refused
    cfg.roce_tc = 98;
    CHECK(table(node_env(v, cfg, opt, step, facts, no_user)).find("NCCL_IB_TC=98\nUCX_IB_TRAFFIC_CLASS=98\n") != std::string::npos);
    cfg.roce_tc = -1;
    for (auto &p : facts.ports)
        p.traffic_class = -1;
    auto notc = node_env(v, cfg, opt, step, facts, no_user);
    CHECK(table(notc).find("NCCL_IB_TC-\n") != std::string::npos);
    CHECK(table(notc).find("UCX_IB_TRAFFIC_CLASS-\n") != std::string::npos);  // not set, with the reason
    CHECK(table(notc).find("UCX_IB_TRAFFIC_CLASS=") == std::string::npos);
    CHECK_THAT(why_of(notc, "NCCL_IB_TC"), Catch::Contains("set roce_tc="));
    // one port's address re-added after its slots were reused (tables have
    // holes): its v1/v2 pair at 4 and 5. NCCL >= 2.21 takes 5 there, 3 on
    // the others; no one index serves all, and an address range is a filter
    // NCCL applies by itself only when asked
    std::string ll = facts.ports[1].gids[0].gid, a1 = "0000:0000:0000:0000:0000:ffff:c0a8:0b05";
    facts.ports[1].gids = {gid(0, ll, 1, "ens1f1np1"), gid(1, ll, 2, "ens1f1np1"), gid(4, a1, 1, "ens1f1np1"),
                           gid(5, a1, 2, "ens1f1np1")};
    std::string sub = table(node_env(v, cfg, opt, step, facts, no_user));
    CHECK(sub.find("NCCL_IB_GID_INDEX-\n") != std::string::npos);
    CHECK(sub.find("ADDR_RANGE") == std::string::npos);
    CHECK(sub.find("ROCE_LOCAL_SUBNET") == std::string::npos);  // a reachability filter, never the answer
    CHECK_THAT(why_of(node_env(v, cfg, opt, step, facts, no_user), "NCCL_IB_GID_INDEX"),
               Catch::Contains("NCCL >= 2.21 picks each itself"));
    // an LLDP name that is no RDMA port here, where an Ethernet RDMA port
    // no rail names is (eth9: the rail's netdev renamed?): nothing, and why
    facts.ports = {port("mlx5_0", "Ethernet", "eth9")};
    auto none = node_env(v, cfg, opt, step, facts, no_user);
    CHECK(table(none).find("NCCL_IB_HCA-\n") != std::string::npos);
    CHECK_THAT(why_of(none, "NCCL_IB_HCA"), Catch::Contains("ens1f0np0 port 1 is no netdev of an RDMA port here, and 'mlx5_0' port 1 "
                                                            "('eth9') is an Ethernet RDMA port no rail of the fabric names"));
    // the same with that port InfiniBand: no rail's adapter can be here; nothing, as none is ACTIVE
    facts.ports = {port("mlx5_0", "InfiniBand", "ib0")};
    auto gone = node_env(v, cfg, opt, step, facts, no_user);
    CHECK(table(gone).find("NCCL_IB_HCA-\n") != std::string::npos);
    CHECK_THAT(why_of(gone, "NCCL_IB_HCA"), Catch::Contains("ens1f0np0 port 1 is not an RDMA port of this node"));
}

TEST_CASE("expert table: a batch script with two srun steps", "[env]")
{
    FabricView v = dgx_view(true);
    PluginConfig cfg = gres_cfg(0);
    UserOptions opt;
    NodeFacts facts = dgx_facts();
    // the batch step runs on node001 for the job's nodes: node variables, no per-GPU ones
    StepInfo batch{{"node001", "node003"}, "node001", true, {}, -1, {}};
    auto b = node_env(v, cfg, opt, batch, facts, no_user);
    CHECK(table(b).find("ATOLL_ISLAND=pod-ib-leaf01\n") != std::string::npos);
    NodeDevices dev = node_devices(v, cfg, "node001", facts.ports);
    CHECK(why_of(task_env(cfg, facts, dev, batch, "", "0,1,2,3,4,5,6,7", no_user), "UCX_NET_DEVICES") ==
          "the batch step: each srun step sets its own");
    // what the script's environment holds after it: atoll's values and their record
    std::map<std::string, std::string> shell;
    for (const EnvVar &e : b)
        if (e.set)
            shell[e.name] = e.value;
    // step 1, srun -w node003: atoll's values from the batch step are recomputed
    auto value_of = [&](const std::string &n) -> std::optional<std::string> {
        auto it = shell.find(n);
        if (it == shell.end())
            return std::nullopt;
        return it->second;
    };
    auto in_shell = [&](const std::string &n) { return shell.count(n) > 0; };
    StepInfo s1{{"node003"}, "node003", false, atoll_unchanged(shell["ATOLL_ENV_SET"], value_of), -1, {}};
    auto e1 = node_env(v, cfg, opt, s1, facts, in_shell);
    CHECK(table(e1).find("ATOLL_ISLAND=grp-ib-leaf09\nATOLL_LEAVES=grp-ib-leaf09\nATOLL_HOPS=0\n") != std::string::npos);
    CHECK(table(e1).find(" kept") == std::string::npos);
    // step 2, after `export NCCL_IB_HCA==mlx5_0:1` in the script: the user's, kept
    shell["NCCL_IB_HCA"] = "=mlx5_0:1";
    StepInfo s2{{"node001", "node003"}, "node001", false, atoll_unchanged(shell["ATOLL_ENV_SET"], value_of), -1, {}};
    auto e2 = node_env(v, cfg, opt, s2, facts, in_shell);
    CHECK(table(e2).find("NCCL_IB_HCA kept\n") != std::string::npos);
    CHECK(table(e2).find("ATOLL_ISLAND=pod-ib-leaf01\n") != std::string::npos);
    // a variable set in an nccl.conf file is the admin's or the user's too
    facts.nccl_conf["NCCL_IB_HCA"] = "/etc/nccl.conf";
    auto e3 = node_env(v, cfg, opt, StepInfo{{"node001"}, "node001", false, {}, -1, {}}, facts, no_user);
    CHECK(table(e3).find("NCCL_IB_HCA kept\n") != std::string::npos);
    CHECK(describe(e3[3]) == "NCCL_IB_HCA (set in /etc/nccl.conf, kept)");
}

TEST_CASE("expert table: an AWS node", "[env]")
{
    FabricView v = view_of(load_fabric(test_data("cloud/aws-instance-topology.json")), "aws");
    CHECK(v.summary.kind == "aws");
    PluginConfig cfg;
    NodeFacts facts;
    facts.ports = {port("rdmap16s27", "Unknown")};  // EFA: no InfiniBand or Ethernet link layer
    StepInfo step{{"i-0a1", "i-0a3"}, "i-0a1", false, {}, -1, {}};
    auto env = node_env(v, cfg, UserOptions(), step, facts, no_user);
    std::string got = table(env);
    CHECK(got.find("ATOLL_ISLAND=") == 0);
    CHECK(got.find("NCCL_IB_HCA-\n") != std::string::npos);
    CHECK(why_of(env, "NCCL_IB_HCA") == "AWS: aws-ofi-nccl configures EFA itself");
    CHECK(got.find("nic0") == std::string::npos);
    CHECK(got.find("NCCL_COLLNET") == std::string::npos);
}

TEST_CASE("nccl.conf files: which variables they set", "[env]")
{
    char dir[] = "/tmp/atoll-ncclconf-XXXXXX";
    REQUIRE(mkdtemp(dir));
    std::string a = std::string(dir) + "/nccl.conf";
    {
        std::ofstream(a) << "# site defaults\nNCCL_IB_HCA=mlx5_0\n  NCCL_IB_TC = 106\nnot a line\n";
    }
    std::string u = std::string(dir) + "/user.conf";
    {
        std::ofstream(u) << "NCCL_IB_HCA=mlx5_1\nNCCL_DEBUG=INFO\n";
    }
    std::vector<std::string> problems;
    NcclConfVars all = nccl_conf_vars({a, ""}, {std::string(dir) + "/missing", u, dir, ""}, problems);
    CHECK(all.unknown.empty());
    auto &m = all.vars;
    CHECK(m.size() == 3);
    // initEnvFunc reads the user's file first and setenv does not
    // overwrite: NCCL takes NCCL_IB_HCA=mlx5_1 from the user's file
    CHECK(m["NCCL_IB_HCA"] == u);
    // NCCL's setEnvFile (misc/param.cc) takes the name verbatim up to '=':
    // "  NCCL_IB_TC = 106" sets "  NCCL_IB_TC ", not NCCL_IB_TC
    CHECK(m.count("NCCL_IB_TC") == 0);
    CHECK(m.count("  NCCL_IB_TC ") == 1);
    CHECK(m["NCCL_DEBUG"] == u);   // the user's, read by the child
    CHECK(problems.empty());

    // a line past 4095 bytes: NCCL 2.30 reads its tail as a line of its own
    // (fgets into 4096 bytes), earlier releases the whole line (getline);
    // a variable either sets counts, so that atoll sets neither
    {
        std::ofstream(u) << "NCCL_X=" << std::string(4088, 'a') << "NCCL_IB_TC=1\n"
                         << "NCCL_Y=" << std::string(5000, 'b') << "\n";
    }
    problems.clear();
    auto split = nccl_conf_vars({}, {u}, problems).vars;
    CHECK(split.count("NCCL_IB_TC") == 1);  // 2.30: the tail's own line
    CHECK(split.count("NCCL_X") == 1);
    CHECK(split.count("NCCL_Y") == 1);
    CHECK(split.size() == 3);  // NCCL_Y's 2.30 tail has no '=': nothing

    // a file longer than 64 KiB: NCCL reads it all, atoll 64 KiB; what the
    // rest sets is not known, and atoll says so (the user's and root's alike)
    {
        std::ofstream(u) << std::string(70000, '#') << "\nNCCL_IB_HCA=mlx5_9\n";
    }
    problems.clear();
    NcclConfVars big = nccl_conf_vars({}, {u}, problems);
    CHECK(big.vars.count("NCCL_IB_HCA") == 0);
    CHECK(big.unknown == "the user's nccl.conf '" + u + "' is longer than 64 KiB, all of which NCCL reads: atoll does not know "
                         "which NCCL variables it sets, so it sets none");
    CHECK(problems == std::vector<std::string>{big.unknown});
    problems.clear();
    CHECK_THAT(nccl_conf_vars({u}, {}, problems).unknown, Catch::StartsWith("nccl.conf '" + u + "' is longer than 64 KiB"));
    {
        std::ofstream(u) << std::string(65535, '#') << "\n";  // 64 KiB exactly
    }
    problems.clear();
    CHECK(nccl_conf_vars({u}, {u}, problems).unknown.empty());
    // a device NCCL would read (it never ends, or gives anything): not known;
    // /dev/null, the usual way to read no file, and a directory read empty
    problems.clear();
    CHECK_THAT(nccl_conf_vars({}, {"/dev/zero"}, problems).unknown,
               Catch::StartsWith("the user's nccl.conf '/dev/zero' is not a regular file"));
    problems.clear();
    CHECK(nccl_conf_vars({}, {"/dev/null", dir}, problems).unknown.empty());
    CHECK(problems.empty());
    std::string rm = std::string("rm -rf '") + dir + "'";
    REQUIRE(system(rm.c_str()) == 0);
}

TEST_CASE("ucx.conf as UCX's inih reads it: names, sections, continuations, 200-byte reads", "[env]")
{
    auto names = [](const std::string &text) {
        std::string s;
        for (const UcxConfLine &l : ucx_conf_lines(text))
            s += l.name + "@" + std::to_string(l.line) + (l.section.empty() ? "" : "[" + l.section + "]") + " ";
        return s;
    };
    // src/ucs/config/ini.c: whitespace stripped, ';' or '#' first a comment,
    // '=' or ':' the separator, an inline ';' after whitespace a comment
    CHECK(names("UCX_TLS=rc\nUCX_IB_GID_INDEX = 3  \n# UCX_NET_DEVICES=x\n; UCX_A=1\nUCX_RNDV_THRESH : 8k\n") ==
          "UCX_TLS@1 UCX_IB_GID_INDEX@2 UCX_RNDV_THRESH@5 ");
    // an indented line after a name continues that name's value, whatever it
    // says: "  UCX_IB_GID_INDEX = 3" sets UCX_TLS again, not UCX_IB_GID_INDEX
    CHECK(names("UCX_TLS=rc\n  UCX_IB_GID_INDEX = 3\n") == "UCX_TLS@1 UCX_TLS@2 ");
    CHECK(names("  UCX_IB_GID_INDEX = 3\n") == "UCX_IB_GID_INDEX@1 ");  // no name before: a pair
    // a section names its filter (CPU model = ...); its lines still count
    CHECK(names("[Grace]\nCPU model = Grace*\nUCX_IB_TRAFFIC_CLASS=96\n") ==
          "CPU model@2[Grace] UCX_IB_TRAFFIC_CLASS@3[Grace] ");
    // a line that begins with whitespace after a name continues its value:
    // the handler sets that name again (Python configparser's rule)
    CHECK(names("UCX_TLS=rc\n    UCX_NET_DEVICES=mlx5_0:1\n") == "UCX_TLS@1 UCX_TLS@2 ");
    // a ';' after whitespace before any separator: no name at all
    CHECK(names("UCX_A ;=1\nUCX_B;=1\n") == "UCX_B;@2 ");
    // fgets into 200 bytes: a longer line's tail is read as a line of its own
    std::string longer = "UCX_X=" + std::string(193, 'a') + "UCX_NET_DEVICES=mlx5_1:1\n";
    CHECK(names(longer) == "UCX_X@1 UCX_NET_DEVICES@2 ");
    // a NUL ends the read's string; a BOM first is skipped
    CHECK(names(std::string("UCX_A=1\0UCX_B=2\n", 16) + "\xEF\xBB\xBFUCX_C=3\n") == "UCX_A@1 \xEF\xBB\xBFUCX_C@2 ");
    CHECK(names("\xEF\xBB\xBFUCX_C=3\n") == "UCX_C@1 ");
    // the ucx.conf UCX ships (config/ucx.conf, Debian's /etc/ucx/ucx.conf):
    // per-CPU sections of tuning, none of atoll's variables; 12 names in
    // [Grace Hopper], its filter "CPU model" one of them
    std::vector<std::string> shipped;
    std::string grace;
    int in_grace = 0;
    {
        std::ifstream f(test_data("ucx/ucx.conf"));
        std::stringstream ss;
        ss << f.rdbuf();
        for (const UcxConfLine &l : ucx_conf_lines(ss.str())) {
            shipped.push_back(l.name);
            if (l.section == "Grace Hopper") {
                grace += l.name + " ";
                ++in_grace;
            }
        }
    }
    CHECK(grace.rfind("CPU model UCX_REG_NONBLOCK_MEM_TYPES ", 0) == 0);
    CHECK(in_grace == 12);
    CHECK(std::count(shipped.begin(), shipped.end(), "UCX_DISTANCE_BW") == 2);  // [Grace Hopper] and [AMD]
    for (const char *ours : {"UCX_NET_DEVICES", "UCX_IB_GID_INDEX", "UCX_IB_TRAFFIC_CLASS"})
        CHECK(std::count(shipped.begin(), shipped.end(), ours) == 0);
    // files in UCX's order: root's, then the user's; the last naming one wins
    char dir[] = "/tmp/atoll-ucxconf-XXXXXX";
    REQUIRE(mkdtemp(dir));
    std::string root = std::string(dir) + "/root.conf", home = std::string(dir) + "/home.conf", cfgd = std::string(dir) + "/cfg.conf";
    std::ofstream(root) << "UCX_IB_TRAFFIC_CLASS=106\nUCX_TLS=rc\nNCCL_IB_HCA=mlx5_0\n";
    std::ofstream(home) << "UCX_IB_TRAFFIC_CLASS=96\n";
    std::ofstream(cfgd) << "UCX_TLS=dc\n";
    std::vector<std::string> problems;
    NcclConfVars u = ucx_conf_vars({root}, {home, cfgd}, problems);
    CHECK(u.unknown.empty());
    CHECK(u.vars == std::map<std::string, std::string>{{"UCX_IB_TRAFFIC_CLASS", home}, {"UCX_TLS", cfgd}});
    CHECK_THAT(ucx_conf_vars({}, {"/dev/zero"}, problems).unknown,
               Catch::StartsWith("the user's ucx.conf '/dev/zero' is not a regular file: atoll does not read it, UCX reads"));
    std::string rm = std::string("rm -rf '") + dir + "'";
    REQUIRE(system(rm.c_str()) == 0);
    // where UCX looks: getenv("HOME") and getenv("UCX_CONFIG_DIR"), "%s/%s"
    using S = std::optional<std::string>;
    CHECK(ucx_user_files(S("/home/u"), S("/opt/ucx")).paths == std::vector<std::string>{"/home/u/ucx.conf", "/opt/ucx/ucx.conf"});
    CHECK(ucx_user_files(S(""), std::nullopt).paths == std::vector<std::string>{"/ucx.conf"});
    CHECK(ucx_user_files(std::nullopt, std::nullopt).paths.empty());
    UcxUserFiles rel = ucx_user_files(S("/home/u"), S("cfg"));
    CHECK(rel.paths.empty());
    CHECK_THAT(rel.unknown, Catch::StartsWith("UCX_CONFIG_DIR/ucx.conf 'cfg/ucx.conf' is a relative path"));
}

TEST_CASE("a UCX variable a ucx.conf names is left to it; unknown files leave every UCX variable", "[env]")
{
    NodeFacts facts;
    std::vector<EnvVar> vars = {{"NCCL_IB_TC", "106", "w", false, true},
                                {"UCX_IB_TRAFFIC_CLASS", "106", "w", false, true},
                                {"UCX_IB_GID_INDEX", "3", "w", false, true},
                                {"UCX_TLS", "rc", "", true, true},
                                {"ATOLL_ENV_SET", "", "r", false, true}};
    vars.back().value = env_set_record({vars[0], vars[1], vars[2]});
    std::vector<EnvVar> a = vars;
    CHECK(leave_to_cwd_ucx_conf(a, {{"UCX_IB_GID_INDEX", "ucx.conf"}}, "") == std::vector<std::string>{"UCX_IB_GID_INDEX"});
    CHECK_FALSE(a[2].set);
    CHECK_THAT(a[2].why, Catch::StartsWith("set in ucx.conf of the task's working directory"));
    CHECK(a[1].set);
    CHECK(a[3].kept);  // the user's own is the user's
    CHECK(a[4].value == env_set_record({vars[0], vars[1]}));
    std::vector<EnvVar> b = vars;
    CHECK(leave_to_cwd_ucx_conf(b, {}, "not read in time").size() == 2);
    CHECK(b[0].set);
    CHECK(b[1].why == "not read in time");
    std::vector<EnvVar> c = vars;
    CHECK(leave_to_cwd_ucx_conf(c, {{"UCX_TLS", "x"}}, "").empty());
    CHECK(c[4].value == vars[4].value);
}

TEST_CASE("where NCCL looks for the user's nccl.conf, by release", "[env]")
{
    using S = std::optional<std::string>;
    // misc/param.cc initEnvFunc: NCCL_CONF_FILE, when set and not empty, instead of the home's
    CHECK(nccl_user_files(S("/j/nccl.conf"), S("/home/u"), S("/home/u")).paths == std::vector<std::string>{"/j/nccl.conf"});
    // 2.30 and later: getenv("HOME"); before: getpwuid(getuid())->pw_dir; both when they differ
    CHECK(nccl_user_files(S(""), S("/scratch/u"), S("/home/u")).paths ==
          std::vector<std::string>{"/scratch/u/.nccl.conf", "/home/u/.nccl.conf"});
    CHECK(nccl_user_files(std::nullopt, S("/home/u"), S("/home/u")).paths == std::vector<std::string>{"/home/u/.nccl.conf"});
    // HOME set empty: "%s/.nccl.conf" is /.nccl.conf; HOME unset: no such file (2.30)
    CHECK(nccl_user_files(std::nullopt, S(""), std::nullopt).paths == std::vector<std::string>{"/.nccl.conf"});
    CHECK(nccl_user_files(std::nullopt, std::nullopt, std::nullopt).paths.empty());
    // snprintf into char[1024]: the path NCCL opens is its first 1023 bytes
    std::string longer = "/" + std::string(1030, 'd');
    CHECK(nccl_user_files(S(longer), S("/home/u"), std::nullopt).paths == std::vector<std::string>{longer.substr(0, 1023)});
    CHECK(nccl_user_files(std::nullopt, S(longer.substr(0, 1015)), std::nullopt).paths ==
          std::vector<std::string>{longer.substr(0, 1015) + "/.nccl.c"});
    // a relative path is opened from the task's working directory: not known
    NcclUserFiles rel = nccl_user_files(S("nccl.conf"), S("/home/u"), std::nullopt);
    CHECK(rel.paths.empty());
    CHECK(rel.unknown == "NCCL_CONF_FILE 'nccl.conf' is a relative path: NCCL opens it from the task's working directory, "
                         "which atoll does not read: atoll does not know which NCCL variables it sets, so it sets none");
    CHECK_FALSE(nccl_user_files(std::nullopt, S("home"), S("/home/u")).unknown.empty());
}

TEST_CASE("an nccl.conf atoll could not read: no NCCL or UCX variable, the ATOLL_* ones still", "[env]")
{
    FabricView v = dgx_view(true);
    PluginConfig cfg = gres_cfg(0);
    NodeFacts facts = dgx_facts();
    facts.nccl_conf_unknown = "the user's nccl.conf '/home/u/.nccl.conf' was not read within 2 s";
    StepInfo step{{"node001", "node003"}, "node001", false, {}, -1, {}};
    auto env = node_env(v, cfg, UserOptions(), step, facts, no_user);
    CHECK(why_of(env, "NCCL_IB_HCA") == facts.nccl_conf_unknown);
    for (const EnvVar &e : env)
        if (e.set) {
            CHECK(e.name.rfind("ATOLL_", 0) == 0);
        }
    CHECK(table(env).find("ATOLL_ISLAND=pod-ib-leaf01\n") != std::string::npos);
    // a variable the readable files set is still theirs
    facts.nccl_conf["NCCL_IB_HCA"] = "/etc/nccl.conf";
    CHECK(why_of(node_env(v, cfg, UserOptions(), step, facts, no_user), "NCCL_IB_HCA") == "set in /etc/nccl.conf");
}

TEST_CASE("a file the user names is read by a child with a deadline: a stall never holds the caller", "[env][security]")
{
    using Clock = std::chrono::steady_clock;
    char dir[] = "/tmp/atoll-userfile-XXXXXX";
    REQUIRE(mkdtemp(dir));
    std::string d = dir, fifo = d + "/never", big = d + "/big";
    REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);  // no writer ever: open() blocks
    {
        std::ofstream(big) << std::string(70000, 'x');
    }
    SECTION("a regular file: its first max bytes")
    {
        UserFile r = read_user_file(big, 65536, Clock::now() + std::chrono::seconds(5));
        CHECK(r.status == UserFile::Status::Read);
        CHECK(r.text == std::string(65536, 'x'));
    }
    SECTION("missing, or a directory: unreadable at once, with the reason")
    {
        UserFile r = read_user_file(d + "/missing", 100, Clock::now() + std::chrono::seconds(5));
        CHECK(r.status == UserFile::Status::Unreadable);
        CHECK(r.error == ENOENT);
        r = read_user_file(d, 100, Clock::now() + std::chrono::seconds(5));
        CHECK(r.status == UserFile::Status::Unreadable);
        CHECK(r.error == EISDIR);
        r = read_user_file("/dev/zero", 100, Clock::now() + std::chrono::seconds(5));
        CHECK(r.status == UserFile::Status::Unreadable);
        CHECK(r.error == 0);  // a device: not read
    }
    SECTION("a never-answering file: the deadline, the child killed, no zombie left")
    {
        auto t0 = Clock::now();
        UserFile r = read_user_file(fifo, 100, t0 + std::chrono::milliseconds(300));
        double s = std::chrono::duration<double>(Clock::now() - t0).count();
        CHECK(r.status == UserFile::Status::TimedOut);
        CHECK(s >= 0.29);
        CHECK(s < 1.0);
        int st;
        CHECK(waitpid(-1, &st, WNOHANG) == -1);  // reaped: no child of ours is left
        CHECK(errno == ECHILD);
    }
    SECTION("nccl_conf_vars: every file within one bound, root's too; the first stalled one named, the rest not read")
    {
        std::vector<std::string> problems;
        auto t0 = Clock::now();
        NcclConfVars m = nccl_conf_vars({fifo}, {fifo, d + "/missing"}, problems, std::chrono::milliseconds(300));
        double s = std::chrono::duration<double>(Clock::now() - t0).count();
        CHECK(m.vars.empty());
        CHECK(s < 1.0);
        REQUIRE(problems.size() == 1);
        CHECK(m.unknown == problems[0]);  // not read: what it sets is not known
        CHECK(problems[0] == "the user's nccl.conf '" + fifo +
                                 "' was not read within 300 ms (a stalled file system?): atoll does not know which "
                                 "NCCL variables it sets, so it sets none");
        // /etc/nccl.conf linked to a file system that never answers
        problems.clear();
        CHECK_THAT(nccl_conf_vars({fifo}, {}, problems, std::chrono::milliseconds(300)).unknown,
                   Catch::StartsWith("nccl.conf '" + fifo + "' was not read within 300 ms"));
        // a name with a newline cannot forge a log line
        std::string forged = d + "/never\n[2026-01-01T00:00:00.000] forged";
        REQUIRE(mkfifo(forged.c_str(), 0600) == 0);
        problems.clear();
        nccl_conf_vars({}, {forged}, problems, std::chrono::milliseconds(300));
        REQUIRE(problems.size() == 1);
        CHECK(problems[0].find('\n') == std::string::npos);
        CHECK_THAT(problems[0], Catch::Contains("never\\n[2026"));
    }
    SECTION("files of the process that opens them: not known, by name or through procfs")
    {
        std::vector<std::string> problems;
        for (const char *p : {"/proc/self/environ", "/dev//stdin", "/dev/fd/5", "/proc/thread-self/cmdline", "/dev/tty"}) {
            problems.clear();
            CHECK_THAT(nccl_conf_vars({}, {p}, problems).unknown, Catch::Contains("names a file of the process that opens it"));
        }
        problems.clear();
        CHECK_THAT(nccl_conf_vars({}, {"/proc/1/environ"}, problems).unknown, Catch::Contains("names a file of a process"));
        std::string link = d + "/env";
        REQUIRE(symlink("/proc/self/environ", link.c_str()) == 0);
        problems.clear();
        CHECK_THAT(nccl_conf_vars({}, {link}, problems).unknown, Catch::Contains("is not a regular file"));
        problems.clear();
        CHECK(nccl_conf_vars({}, {"/dev//null"}, problems).unknown.empty());
        // (helper 48) a symlink through /proc/self/cwd: the reader's working
        // directory, not the task's; a link to a link to /dev/fd too
        std::string cwd = d + "/cwd";
        REQUIRE(symlink("/proc/self/cwd/.nccl.conf", cwd.c_str()) == 0);
        std::string fdl = d + "/fd", fdl2 = d + "/fd2";
        REQUIRE(symlink("/dev/fd/0", fdl.c_str()) == 0);
        REQUIRE(symlink(fdl.c_str(), fdl2.c_str()) == 0);
        std::ofstream(d + "/.nccl.conf") << "NCCL_IB_HCA=mlx5_9\n";
        char here[4096];
        REQUIRE(getcwd(here, sizeof here) != nullptr);
        REQUIRE(chdir(d.c_str()) == 0);
        for (const std::string &p : {cwd, fdl2}) {
            problems.clear();
            CHECK_THAT(nccl_conf_vars({}, {p}, problems).unknown, Catch::Contains("through a link of /proc"));
        }
        REQUIRE(chdir(here) == 0);
        // and from a working directory without the file (the reader's
        // differs from the task's, which may have one)
        problems.clear();
        CHECK_THAT(nccl_conf_vars({}, {cwd}, problems).unknown, Catch::Contains("through a link of /proc"));
        // a loop of symlinks is no file to NCCL either: not "through /proc"
        std::string l1 = d + "/loop1", l2 = d + "/loop2";
        REQUIRE(symlink(l2.c_str(), l1.c_str()) == 0);
        REQUIRE(symlink(l1.c_str(), l2.c_str()) == 0);
        problems.clear();
        CHECK(nccl_conf_vars({}, {l1}, problems).unknown.empty());
    }
    SECTION("the child holds none of the caller's descriptors: a stuck one keeps no output open")
    {
        // a descriptor of the caller's (inherited by fork, as a pipe to
        // whoever reads our output is): the stuck child must not hold it
        int p[2];
        REQUIRE(pipe(p) == 0);
        std::vector<std::string> fds;
        std::string nul0;
        std::thread look([&]() {
            for (int i = 0; i < 100 && fds.empty(); ++i) {
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
                for (const std::string &pid : list_dir("/proc")) {
                    std::ifstream st("/proc/" + pid + "/stat");
                    std::string line;
                    std::getline(st, line);
                    if (line.find("(atoll-reader)") == std::string::npos)
                        continue;
                    std::istringstream rest(line.substr(line.rfind(')') + 2));
                    std::string state;
                    long ppid = 0;
                    rest >> state >> ppid;
                    if (ppid != getpid())
                        continue;
                    fds = list_dir("/proc/" + pid + "/fd");
                    char buf[256] = {};
                    if (readlink(("/proc/" + pid + "/fd/0").c_str(), buf, sizeof buf - 1) > 0)
                        nul0 = buf;
                }
            }
        });
        UserFile r = read_user_file(fifo, 100, Clock::now() + std::chrono::milliseconds(1500));
        look.join();
        ::close(p[0]);
        ::close(p[1]);
        CHECK(r.status == UserFile::Status::TimedOut);
        std::sort(fds.begin(), fds.end());
        CHECK(fds == std::vector<std::string>{"0", "1", "2", "3"});  // /dev/null thrice and the pipe back
        CHECK(nul0 == "/dev/null");
    }
    SECTION("the child reads as the caller's effective user, never as root")
    {
        if (geteuid() != 0) {
            WARN("not root: the uid switch is not exercised");
            return;
        }
        std::string secret = d + "/secret";
        {
            std::ofstream(secret) << "NCCL_IB_HCA=root-only\n";
        }
        REQUIRE(chmod(secret.c_str(), 0600) == 0);
        REQUIRE(chmod(dir, 0755) == 0);
        // as slurmstepd runs user_init: real uid root, effective uid the job's user
        REQUIRE(setegid(65534) == 0);
        REQUIRE(seteuid(65534) == 0);
        UserFile r = read_user_file(secret, 100, Clock::now() + std::chrono::seconds(5));
        UserFile mine = read_user_file(big, 10, Clock::now() + std::chrono::seconds(5));
        REQUIRE(seteuid(0) == 0);
        REQUIRE(setegid(0) == 0);
        CHECK(r.status == UserFile::Status::Unreadable);
        CHECK(r.error == EACCES);
        CHECK(mine.status == UserFile::Status::Read);  // world-readable: read as the user
    }
    std::string rm = std::string("rm -rf '") + dir + "'";
    REQUIRE(system(rm.c_str()) == 0);
}

namespace {

// A RoCE port with the given GID table (index, address, RoCE version)
NodePort roce_table(const std::string &hca, const std::string &netdev, std::vector<GidEntry> gids, int len = 255)
{
    NodePort p = port(hca, "Ethernet", netdev);
    for (GidEntry &e : gids)
        e.ndev = netdev;
    p.gids = gids;
    p.gid_table_len = len;
    return p;
}

// NVIDIA/nccl#769: `ibv_devinfo -d mlx5_bond_0 -v` on an A100 node; index 1
// timed out (ibv_modify_qp), 3 worked
NodePort nccl769(const std::string &hca = "mlx5_bond_0", const std::string &ndev = "bond0")
{
    return roce_table(hca, ndev,
                      {gid(0, "fe80:0000:0000:0000:0ac0:ebff:feda:1cfb", 1, ""), gid(1, "fe80:0000:0000:0000:0ac0:ebff:feda:1cfb", 2, ""),
                       gid(2, "0000:0000:0000:0000:0000:ffff:c800:d106", 1, ""), gid(3, "0000:0000:0000:0000:0000:ffff:c800:d106", 2, "")});
}

}  // namespace

// Expected indexes worked by hand from ncclIbGetGidIndex/ncclUpdateGidIndex
// (NCCL src/transport/net_ib/connect.cc, 2.21 on) and uct_ib_device_select_gid
// (UCX src/uct/ib/base/ib_device.c), on GID tables pasted in public threads.
TEST_CASE("GID tables of real RoCE ports: the index NCCL and UCX take by themselves", "[env]")
{
    // nccl#769: 0 starts; 1 is IPv6 like 0 and not AF_INET; 2 is IPv4 where 0
    // is not: taken; 3 is IPv4, valid, RoCE v2 where 2 is v1: taken
    NodePort b = nccl769();
    CHECK(nccl_gid_index(b) == 3);
    CHECK(ucx_gid_index(b) == 3);
    REQUIRE(routable_gids(b).size() == 1);
    CHECK(routable_gids(b)[0]->index == 3);
    // NVIDIA/nccl#1573: a macvlan pod's device, slots 0-3 empty, 4-7 used
    NodePort m = roce_table("mlx5_0", "net1",
                            {gid(4, "fe80:0000:0000:0000:a4ed:ccff:fe8b:1994", 1, ""), gid(5, "fe80:0000:0000:0000:a4ed:ccff:fe8b:1994", 2, ""),
                             gid(6, "0000:0000:0000:0000:0000:ffff:0a98:000c", 1, ""), gid(7, "0000:0000:0000:0000:0000:ffff:0a98:000c", 2, "")});
    CHECK(nccl_gid_index(m) == 7);
    CHECK(ucx_gid_index(m) == 7);
    // kvcache-ai/Mooncake#1617: an AMD ionic port with IPv6 only (a ULA
    // fd93:: address): NCCL looks for AF_INET, finds none and keeps 0, the
    // link-local one; asked for AF_INET6 it takes 1; UCX takes 1 (v2 IPv6
    // not link-local comes before v2 IPv6 link-local)
    NodePort v6 = roce_table("rocep105s0", "enp105s0",
                             {gid(0, "fe80:0000:0000:0000:0690:81ff:fe39:e3e8", 2, ""), gid(1, "fd93:16d3:59b6:010d:0690:81ff:fe39:e3e8", 2, "")});
    CHECK(nccl_gid_index(v6) == 0);
    CHECK(nccl_gid_index(v6, true) == 1);
    CHECK(ucx_gid_index(v6) == 1);
    // UCX before 1.21 (openucx/ucx#10939) has no link-local classes: the
    // first v2 IPv6 in the table, the fe80 one at 0
    CHECK(ucx_gid_index(v6, true) == 0);
    // a port with no address at all: NCCL 0, UCX none (it falls back to 0)
    NodePort none = roce_table("mlx5_0", "ens1np0", {gid(0, "fe80:0000:0000:0000:0ac0:ebff:feda:1cfb", 1, ""),
                                                     gid(1, "fe80:0000:0000:0000:0ac0:ebff:feda:1cfb", 2, "")});
    CHECK(nccl_gid_index(none) == 0);
    CHECK(ucx_gid_index(none) == 1);  // v2 IPv6 link-local: UCX's third class
    CHECK(routable_gids(none).empty());
}

TEST_CASE("expert table: RoCE LAG, IPv6-only ports, a user's address family, a bad pin", "[env]")
{
    FabricView v = view_of(load_fabric(test_data("lldp/2_three_interfaces.neighbors_details.json"), InputFormat::Auto, {}, NicRoles{"", "ens*", "", false, {}, ""}), "roce");
    const std::string host = "2_three_interfaces";
    StepInfo step{{host}, host, false, {}, -1, {}};
    PluginConfig cfg;
    UserOptions opt;
    NodeFacts facts;
    // nccl#769's node is a bond: mlx5_bond_0's GIDs name bond0, LLDP names
    // its members ens1f0np0 and ens1f1np1 (and mlx5_2 is ens2f0np0)
    NodePort bond = nccl769();
    bond.lower = {"ens1f0np0", "ens1f1np1"};
    NodePort other = roce_table("mlx5_2", "ens2f0np0",
                                {gid(0, "fe80:0000:0000:0000:0ac0:ebff:feda:1cfc", 1, ""), gid(1, "fe80:0000:0000:0000:0ac0:ebff:feda:1cfc", 2, ""),
                                 gid(2, "0000:0000:0000:0000:0000:ffff:c800:d206", 1, ""), gid(3, "0000:0000:0000:0000:0000:ffff:c800:d206", 2, "")});
    facts.ports = {bond, other};
    auto env = node_env(v, cfg, opt, step, facts, no_user);
    std::string t = table(env);
    CHECK(t.find("NCCL_IB_HCA==mlx5_bond_0:1,mlx5_2:1\n") != std::string::npos);
    CHECK(t.find("NCCL_IB_GID_INDEX=3\n") != std::string::npos);
    CHECK(t.find("UCX_IB_GID_INDEX-\n") != std::string::npos);
    // the user's own NCCL_IB_HCA (or an nccl.conf's) names devices atoll did
    // not check: NCCL_IB_GID_INDEX would apply to all of them, so none
    auto kept = node_env(v, cfg, opt, step, facts, [](const std::string &n) { return n == "NCCL_IB_HCA"; });
    CHECK(table(kept).find("NCCL_IB_GID_INDEX-\n") != std::string::npos);
    CHECK_THAT(why_of(kept, "NCCL_IB_GID_INDEX"), Catch::Contains("NCCL_IB_HCA is not atoll's"));
    NodeFacts conf = facts;
    conf.nccl_conf["NCCL_IB_ADDR_FAMILY"] = "/home/u/.nccl.conf";
    auto viaconf = node_env(v, cfg, opt, step, conf, no_user);
    CHECK(table(viaconf).find("NCCL_IB_GID_INDEX-\n") != std::string::npos);
    CHECK_THAT(why_of(viaconf, "NCCL_IB_GID_INDEX"), Catch::Contains("/home/u/.nccl.conf's NCCL_IB_ADDR_FAMILY"));
    // the user asked NCCL for another family: no index overrides it
    auto fam = node_env(v, cfg, opt, step, facts, [](const std::string &n) { return n == "NCCL_IB_ADDR_FAMILY"; });
    CHECK(table(fam).find("NCCL_IB_GID_INDEX-\n") != std::string::npos);
    CHECK_THAT(why_of(fam, "NCCL_IB_GID_INDEX"), Catch::Contains("NCCL_IB_ADDR_FAMILY"));
    // the site pins 1, the link-local v2 entry (nccl#769's timeout): refused
    cfg.gid_index = 1;
    auto pin = node_env(v, cfg, opt, step, facts, no_user);
    CHECK(table(pin).find("NCCL_IB_GID_INDEX-\nUCX_IB_GID_INDEX-\n") != std::string::npos);
    CHECK_THAT(why_of(pin, "NCCL_IB_GID_INDEX"), Catch::Contains("link-local"));
    cfg.gid_index = 3;
    CHECK(table(node_env(v, cfg, opt, step, facts, no_user)).find("NCCL_IB_GID_INDEX=3\nUCX_IB_GID_INDEX=3\n") != std::string::npos);
    cfg.gid_index = -1;
    // IPv6-only ports (Mooncake#1617's table) at the same index: NCCL alone
    // would keep the link-local 0, so 1 is set; UCX finds 1 itself
    auto v6 = [](const std::string &hca, const std::string &nd, const std::string &tail) {
        return roce_table(hca, nd, {gid(0, "fe80:0000:0000:0000:0690:81ff:fe39:" + tail, 2, ""),
                                    gid(1, "fd93:16d3:59b6:010d:0690:81ff:fe39:" + tail, 2, "")});
    };
    facts.ports = {v6("rocep1", "ens1f0np0", "e3e8"), v6("rocep2", "ens1f1np1", "e3e9"), v6("rocep3", "ens2f0np0", "e3ea")};
    auto six = node_env(v, cfg, opt, step, facts, no_user);
    CHECK(table(six).find("NCCL_IB_GID_INDEX=1\n") != std::string::npos);
    CHECK_THAT(why_of(six, "NCCL_IB_GID_INDEX"), Catch::Contains("NCCL alone would take 0"));
    // only link-local GIDs (no address on the netdev): nothing, and why
    facts.ports[0].gids.pop_back();
    auto ll = node_env(v, cfg, opt, step, facts, no_user);
    CHECK(table(ll).find("NCCL_IB_GID_INDEX-\n") != std::string::npos);
    CHECK_THAT(why_of(ll, "NCCL_IB_GID_INDEX"), Catch::Contains("rocep1:1 has no routable RoCE v2 GID"));
    // two IPv4 addresses on one port (a VLAN device beside it): which is the
    // compute network is not known
    facts.ports = {nccl769("mlx5_0", "ens1f0np0"), nccl769("mlx5_1", "ens1f1np1"), nccl769("mlx5_2", "ens2f0np0")};
    for (std::size_t i = 1; i < 3; ++i)  // each port its own address (one on two devices is refused, below)
        for (GidEntry &g : facts.ports[i].gids)
            if (g.ipv4())
                g.gid.back() = static_cast<char>('6' + i);
    facts.ports[0].gids.push_back(gid(4, "0000:0000:0000:0000:0000:ffff:0a00:0005", 1, "ens1f0np0.100"));
    facts.ports[0].gids.push_back(gid(5, "0000:0000:0000:0000:0000:ffff:0a00:0005", 2, "ens1f0np0.100"));
    auto vlan = node_env(v, cfg, opt, step, facts, no_user);
    CHECK(table(vlan).find("NCCL_IB_GID_INDEX-\n") != std::string::npos);
    CHECK_THAT(why_of(vlan, "NCCL_IB_GID_INDEX"), Catch::Contains("3 on ens1f0np0, 5 on ens1f0np0.100"));
    // one address on two devices: a bond across two adapters without RoCE
    // LAG (the kernel gives each member's device the bond's GIDs): no device
    // variable at all (a helper's attack: both were rails, the GID pinned)
    facts.ports = {nccl769("mlx5_0", "ens1f0np0"), nccl769("mlx5_1", "ens1f1np1"), nccl769("mlx5_2", "ens2f0np0")};
    auto shared = node_env(v, cfg, opt, step, facts, no_user);
    CHECK(table(shared).find("NCCL_IB_HCA-\n") != std::string::npos);
    CHECK_THAT(why_of(shared, "NCCL_IB_HCA"), Catch::Contains("mlx5_0 and mlx5_1 carry the same RoCE address"));
    CHECK(table(shared).find("NCCL_IB_GID_INDEX=") == std::string::npos);
    CHECK(table(shared).find("NCCL_IB_TC=") == std::string::npos);
    // the same with the bond's other member on a device that is no rail
    facts.ports = {nccl769("mlx5_0", "ens1f0np0"), nccl769("mlx5_1", "ens1f1np1"), nccl769("mlx5_2", "ens2f0np0"),
                   nccl769("mlx5_9", "ens9f0np0")};
    facts.ports[3].pci = "0000:9a:00.0";  // a card of its own (a soft-RoCE rxe has none)
    for (std::size_t i = 1; i < 3; ++i)
        for (GidEntry &g : facts.ports[i].gids)
            if (g.ipv4())
                g.gid.back() = static_cast<char>('6' + i);
    auto partner = node_env(v, cfg, opt, step, facts, no_user);
    CHECK_THAT(why_of(partner, "NCCL_IB_HCA"), Catch::Contains("mlx5_0 and mlx5_9 carry the same RoCE address"));
}

TEST_CASE("a device name no kernel gives is refused, never put in NCCL_IB_HCA", "[env]")
{
    FabricView v = view_of(load_fabric(test_data("lldp/2_three_interfaces.neighbors_details.json"), InputFormat::Auto, {}, NicRoles{"", "ens*", "", false, {}, ""}), "roce");
    const std::string host = "2_three_interfaces";
    StepInfo step{{host}, host, false, {}, -1, {}};
    NodeFacts facts;
    facts.ports = {nccl769("mlx5_0,mlx5_9", "ens1f0np0"), nccl769("^mlx5_1", "ens1f1np1"), nccl769("mlx5_2\n\x1b[2J", "ens2f0np0"),
                   nccl769("mlx5_3", "eth9")};
    auto env = node_env(v, PluginConfig(), UserOptions(), step, facts, no_user);
    CHECK(table(env).find("NCCL_IB_HCA-\n") != std::string::npos);
    NodeDevices d = node_devices(v, PluginConfig(), host, facts.ports);
    // (helper 29) the adapter is there and NCCL would open it: a list of the
    // others would hold this node to fewer rails than its peers
    CHECK((!d.usable && d.active.empty()));
    CHECK_THAT(d.refused, Catch::Contains("'mlx5_0,mlx5_9'") && Catch::Contains("expected only letters"));
    REQUIRE(d.problems.size() == 2);
    CHECK_THAT(d.problems[0], Catch::Contains("starting with '^'"));
    CHECK_THAT(d.problems[1], Catch::Contains("refused") && Catch::Contains("\\n\\x1b[2J"));
}

TEST_CASE("expert table: UCX_NET_DEVICES never names a DOWN port or one of several equally near", "[env]")
{
    FabricView v = dgx_view(false);
    PluginConfig cfg = gres_cfg(0);
    NodeFacts facts = dgx_facts();
    facts.ports[2].state = "1: DOWN";  // mlx5_2, the HCA beside PCI 47 (Slurm's GPU 2, device minor 2)
    StepInfo step{{"node001", "node003"}, "node001", false, {}, -1, {}};
    NodeDevices dev = node_devices(v, cfg, "node001", facts.ports);
    CHECK(dev.active.size() == 7);
    // UCX refuses a port that is not ACTIVE, and UCX_NET_DEVICES drops TCP
    auto t = task_env(cfg, facts, dev, step, "2", "0,1,2,3,4,5,6,7", no_user);
    CHECK(table(t) == "UCX_NET_DEVICES-\n");
    CHECK_THAT(why_of(t, "UCX_NET_DEVICES"), Catch::Contains("mlx5_2 is not an ACTIVE compute-rail port"));
    // Slurm's GPU 0 (device minor 0: PCI 07) is beside mlx5_0, ACTIVE
    CHECK(table(task_env(cfg, facts, dev, step, "0", "0,1,2,3,4,5,6,7", no_user)) == "UCX_NET_DEVICES=mlx5_0:1\n");
    // hwloc (an Azure ND-like VM) finds four HCAs equally near the GPU: none
    facts.gpu_hcas[0].ties = 4;
    auto tie = task_env(cfg, facts, dev, step, "0", "0,1,2,3,4,5,6,7", no_user);
    CHECK(table(tie) == "UCX_NET_DEVICES-\n");
    CHECK_THAT(why_of(tie, "UCX_NET_DEVICES"), Catch::Contains("4 compute HCAs equally near"));
    // a compute HCA the saved XML does not name (helper 69): GPU 0's nearest
    // by that XML may be another socket's; none
    facts.gpu_hcas[0].ties = 1;
    facts.hwloc_hcas.erase("mlx5_5");
    auto stale = task_env(cfg, facts, dev, step, "0", "0,1,2,3,4,5,6,7", no_user);
    CHECK(table(stale) == "UCX_NET_DEVICES-\n");
    CHECK_THAT(why_of(stale, "UCX_NET_DEVICES"), Catch::Contains("the hwloc topology has no mlx5_5"));
}

TEST_CASE("hwloc: GPUs and HCAs each on their own host bridge are ties, not the first HCA", "[env]")
{
    auto g = node_gpu_hcas(test_data("hwloc/azure-nd-like-8gpu-8hca.xml"));
    REQUIRE(g.size() == 8);
    for (const GpuHca &x : g) {
        CHECK(x.distance == "NODE");
        CHECK(x.ties == 4);  // the four HCAs of the GPU's NUMA node
    }
    // the DGX-like node: each GPU's own HCA on its PCIe switch, no tie, and
    // the PCI device hwloc puts it under (the XML's pci_busid of mlx5_k)
    auto d = node_gpu_hcas(test_data("hwloc/dgx-a100-like-4gpu-5hca.xml"));
    for (const GpuHca &x : d)
        CHECK(x.ties == 1);
    REQUIRE(d.size() == 4);
    CHECK(d[0].hca == "mlx5_0");
    CHECK(d[0].hca_busid == "0000:13:00.0");
    CHECK(d[1].hca_busid == "0000:17:00.0");
}

TEST_CASE("ports: ACTIVE is the kernel's state 4 alone; routable GIDs exclude every link-local range", "[env]")
{
    // drivers/infiniband/core/sysfs.c state_show: "%d: %s"
    NodePort p;
    for (const char *s : {"4: ACTIVE", "4: ACTIVE\n"}) {
        p.state = s;
        CHECK(p.active());
    }
    for (const char *s : {"5: ACTIVE_DEFER", "ACTIVE", "3: ARMED", "4: ACTIVE junk", ""}) {
        p.state = s;
        CHECK_FALSE(p.active());
    }
    auto gid = [](const char *a) {
        GidEntry e;
        e.gid = a;
        e.version = 2;
        return e;
    };
    CHECK(gid("0000:0000:0000:0000:0000:ffff:c0a8:0a05").routable());        // 192.168.10.5
    CHECK(gid("2001:0db8:0000:0000:0000:0000:0000:0001").routable());
    CHECK_FALSE(gid("fe80:0000:0000:0000:0ac0:ebff:feda:1c0a").routable());  // fe80::/64
    CHECK_FALSE(gid("fe80:0000:0000:0001:0000:0000:0000:0001").routable());  // fe80::/10 (RFC 4291)
    CHECK_FALSE(gid("febf:0000:0000:0000:0000:0000:0000:0001").routable());
    CHECK(gid("fec0:0000:0000:0000:0000:0000:0000:0001").routable());        // just past fe80::/10
    CHECK_FALSE(gid("0000:0000:0000:0000:0000:ffff:a9fe:0a05").routable());  // 169.254.10.5 (RFC 3927)
    CHECK_FALSE(gid("0000:0000:0000:0000:0000:ffff:7f00:0001").routable());  // 127.0.0.1
    CHECK_FALSE(gid("0000:0000:0000:0000:0000:0000:0000:0001").routable());  // ::1
    CHECK_FALSE(gid("0000:0000:0000:0000:0000:0000:0000:0000").routable());
    // NCCL's own test stays fe80::/64 (linkLocalGid): what NCCL would take is NCCL's
    CHECK(gid("fe80:0000:0000:0000:0000:0000:0000:0001").link_local());
    CHECK_FALSE(gid("fe80:0000:0000:0001:0000:0000:0000:0001").link_local());
}

TEST_CASE("a step with a node the fabric does not place gets no island, leaves or hops", "[env]")
{
    FabricView v = dgx_view(true);
    StepInfo step{{"node001", "node003", "gpu-x9"}, "node001", false, {}, -1, {}};
    auto env = node_env(v, gres_cfg(0), UserOptions(), step, dgx_facts(), no_user);
    std::string t = table(env);
    CHECK(t.find("ATOLL_ISLAND-\nATOLL_LEAVES-\nATOLL_HOPS-\n") != std::string::npos);
    CHECK(t.find("ATOLL_UNMAPPED=1\n") != std::string::npos);
    CHECK(t.find("ATOLL_SHARP-\n") != std::string::npos);
    CHECK(t.find("NCCL_CROSS_NIC") == std::string::npos);
    CHECK_THAT(why_of(env, "ATOLL_HOPS"), Catch::Contains("gpu-x9"));
}

namespace {

// An Azure ND v5 VM as Microsoft's docs name its devices (learn.microsoft.com,
// "Enable InfiniBand" and the ND H100 v5 series page; docs/cloud-profiles.md):
// mlx5_ib0..7 the eight InfiniBand NICs, mlx5_an0 the accelerated-networking
// Ethernet VF, which NCCL must not use.
NodeFacts azure_ndv5_facts()
{
    NodeFacts f;
    f.ports.push_back(port("mlx5_an0", "Ethernet"));
    for (int k = 0; k < 8; ++k)
        f.ports.push_back(port("mlx5_ib" + std::to_string(k), "InfiniBand"));
    return f;
}

std::string value_of(const std::vector<EnvVar> &env, const std::string &name)
{
    for (const EnvVar &v : env)
        if (v.name == name && v.set && !v.kept)
            return v.value;
    return "";
}

}  // namespace

TEST_CASE("expert table: an Azure ND v5 node of a CSV fabric takes its InfiniBand ports from sysfs", "[env][cloud]")
{
    FabricView v = view_of(load_fabric(test_data("csv/crux_topology_hosts.csv")), "azure");
    REQUIRE(v.summary.hosts.count("h0001"));
    // a CSV names no adapter: its one port per host is a placeholder
    REQUIRE(v.summary.hosts.at("h0001").hcas == std::vector<std::pair<std::string, int>>{{"nic0", 1}});
    PluginConfig cfg;
    NodeFacts facts = azure_ndv5_facts();
    StepInfo step{{"h0001"}, "h0001", false, {}, -1, {}};
    auto env = node_env(v, cfg, UserOptions(), step, facts, no_user);
    CHECK(value_of(env, "NCCL_IB_HCA") ==
          "=mlx5_ib0:1,mlx5_ib1:1,mlx5_ib2:1,mlx5_ib3:1,mlx5_ib4:1,mlx5_ib5:1,mlx5_ib6:1,mlx5_ib7:1");
    CHECK(why_of(env, "NCCL_IB_HCA").find("the fabric names no adapter of this node; from sysfs") == 0);
    CHECK(table(env).find("ATOLL_SHARP") == std::string::npos);  // azure: no SHARP

    SECTION("the hca= selector and the device-name check still apply")
    {
        cfg.hca = "!mlx5_ib7";
        auto e = node_env(v, cfg, UserOptions(), step, facts, no_user);
        CHECK(value_of(e, "NCCL_IB_HCA") == "=mlx5_ib0:1,mlx5_ib1:1,mlx5_ib2:1,mlx5_ib3:1,mlx5_ib4:1,mlx5_ib5:1,mlx5_ib6:1");
        facts.ports[3].hca = "mlx5_ib2,x";
        cfg.hca.clear();
        auto bad = node_env(v, cfg, UserOptions(), step, facts, no_user);
        CHECK(value_of(bad, "NCCL_IB_HCA").find("mlx5_ib2,x") == std::string::npos);
    }
    SECTION("an accelerated-networking name on an InfiniBand port: ambiguous, nothing set")
    {
        facts.ports[0].link_layer = "InfiniBand";
        auto e = node_env(v, cfg, UserOptions(), step, facts, no_user);
        CHECK(table(e).find("NCCL_IB_HCA-\n") != std::string::npos);
        CHECK(why_of(e, "NCCL_IB_HCA").find("accelerated-networking device but its link layer is InfiniBand") != std::string::npos);
    }
    SECTION("an ND v5 with one of its eight InfiniBand ports down: nothing set")
    {
        facts.ports[8].state = "1: DOWN";
        cfg.machine_type = "Standard_ND96isr_H100_v5";
        auto e = node_env(v, cfg, UserOptions(), step, facts, no_user);
        CHECK(table(e).find("NCCL_IB_HCA-\n") != std::string::npos);
        CHECK(why_of(e, "NCCL_IB_HCA").find("has 8 compute NICs and 7 are active") != std::string::npos);
    }
    SECTION("the site's NCCL_SOCKET_IFNAME is left to the image where it sets one")
    {
        cfg.socket_ifname = "ib0";
        cfg.machine_type = "Standard_NC128_RTXPRO6000BSE_v6";  // the image's nccl.conf: NCCL_SOCKET_IFNAME=eth0
        auto e = node_env(v, cfg, UserOptions(), step, facts, no_user);
        CHECK(table(e).find("NCCL_SOCKET_IFNAME-\n") != std::string::npos);
        cfg.machine_type = "Standard_ND96isr_H100_v5";  // its nccl.conf sets none
        auto e5 = node_env(v, cfg, UserOptions(), step, facts, no_user);
        CHECK(value_of(e5, "NCCL_SOCKET_IFNAME") == "ib0");
        // (helper 48) the type unknown, the image's /etc/nccl.conf read: it
        // says what the image set, and NCCL_SOCKET_IFNAME is not among them
        cfg.machine_type.clear();
        facts.cloud.nccl_conf_present = true;
        facts.cloud.nccl_conf = {{"NCCL_TOPO_FILE", "/opt/microsoft/ndv5/topo.xml"}, {"NCCL_IB_PCI_RELAXED_ORDERING", "1"}};
        auto unknown = node_env(v, cfg, UserOptions(), step, facts, no_user);
        CHECK(value_of(unknown, "NCCL_SOCKET_IFNAME") == "ib0");
        facts.cloud.nccl_conf["NCCL_SOCKET_IFNAME"] = "";  // set empty: NCCL takes it as unset
        CHECK(value_of(node_env(v, cfg, UserOptions(), step, facts, no_user), "NCCL_SOCKET_IFNAME") == "ib0");
        facts.cloud.nccl_conf["NCCL_SOCKET_IFNAME"] = "eth0";  // an image that sets it
        auto sets = node_env(v, cfg, UserOptions(), step, facts, no_user);
        CHECK(table(sets).find("NCCL_SOCKET_IFNAME-\n") != std::string::npos);
        CHECK_THAT(why_of(sets, "NCCL_SOCKET_IFNAME"), Catch::Contains("sets NCCL_SOCKET_IFNAME=eth0 (/etc/nccl.conf)"));
    }
}

TEST_CASE("what a cloud's stack sets, atoll never sets", "[env][cloud]")
{
    PluginConfig cfg;
    NodeFacts facts;
    SECTION("aws on p5.48xlarge: none of aws-ofi-nccl's platform variables")
    {
        FabricView v = view_of(load_fabric(test_data("cloud/aws-instance-topology.json")), "aws");
        facts.cloud.machine_type = "p5.48xlarge";
        facts.ports = {port("rdmap16s27", "Unknown")};
        StepInfo step{{"i-0a1", "i-0a3"}, "i-0a1", false, {}, -1, {}};
        auto env = node_env(v, cfg, UserOptions(), step, facts, no_user);
        // aws-ofi-nccl src/platform-aws.cpp, its p5.48xlarge entry and the
        // variables it sets for every platform
        for (const char *n : {"FI_EFA_FORK_SAFE", "RDMAV_FORK_SAFE", "NCCL_TOPO_FILE", "NCCL_PROTO", "NCCL_NVLS_ENABLE",
                              "NCCL_TUNER_PLUGIN", "NCCL_BUFFSIZE", "NCCL_P2P_NET_CHUNKSIZE", "NCCL_NVLSTREE_MAX_CHUNKSIZE",
                              "NCCL_NVLS_CHUNKSIZE", "NCCL_NET_FORCE_FLUSH"})
            CHECK(value_of(env, n).empty());
        for (const EnvVar &e : env)
            if (e.set && !e.kept && e.name != "ATOLL_ENV_SET")
                CHECK(e.name.rfind("ATOLL_", 0) == 0);
    }
    SECTION("oci: oci-hpc's nccl.conf sets NCCL_SOCKET_IFNAME=eth0, the site's is not set over it")
    {
        FabricView v = view_of(load_fabric(test_data("cloud/oci-compute-hosts.json")), "oci");
        REQUIRE(!v.summary.hosts.empty());
        std::string h = v.summary.hosts.begin()->first;
        cfg.socket_ifname = "ens300";
        StepInfo step{{h}, h, false, {}, -1, {}};
        auto env = node_env(v, cfg, UserOptions(), step, facts, no_user);
        // oci names no adapters: not set, and said (it was dropped without a word)
        CHECK(value_of(env, "NCCL_SOCKET_IFNAME").empty());
        CHECK(why_of(env, "NCCL_SOCKET_IFNAME").find("socket_ifname= not applied: atoll sets no network variable on oci fabrics") == 0);
        // the same key on a RoCE fabric is set: the refusal is the profile's
        v.profile = "roce";
        auto roce = node_env(v, cfg, UserOptions(), step, facts, no_user);
        CHECK(value_of(roce, "NCCL_SOCKET_IFNAME") == "ens300");
    }
    SECTION("gcp gIB (a3-ultragpu-8g): RoCE mlx5 NICs from sysfs, but not NCCL_CROSS_NIC or NCCL_SOCKET_IFNAME")
    {
        FabricView v = view_of(load_fabric(test_data("cloud/gcp-instances.json")), "gcp");
        REQUIRE(!v.summary.hosts.empty());
        std::string h = v.summary.hosts.begin()->first;
        cfg.socket_ifname = "eth0";
        cfg.machine_type = "a3-ultragpu-8g";
        // gVNIC eth0 has no RDMA device; the eight CX-7 GPU NICs are mlx5_0..7, RoCE
        for (int k = 0; k < 8; ++k)
            facts.ports.push_back(port("mlx5_" + std::to_string(k), "Ethernet"));
        StepInfo step{{h}, h, false, {}, -1, {}};
        auto env = node_env(v, cfg, UserOptions(), step, facts, no_user);
        CHECK(value_of(env, "NCCL_IB_HCA") == "=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1");
        CHECK(table(env).find("NCCL_SOCKET_IFNAME-\n") != std::string::npos);
        CHECK(why_of(env, "NCCL_SOCKET_IFNAME").find("run-nccl-tests.sh") != std::string::npos);
        CHECK(value_of(env, "NCCL_IB_TC").empty());  // set_nccl_env.sh sets 52
        CHECK(value_of(env, "NCCL_IB_GID_INDEX").empty());
        // (helper 48) the site's RoCE keys are said, not dropped without a word
        cfg.roce_tc = 106;
        cfg.gid_index = 3;
        cfg.fifo_tc = 192;
        auto keys = node_env(v, cfg, UserOptions(), step, facts, no_user);
        for (const char *n : {"NCCL_IB_TC", "UCX_IB_TRAFFIC_CLASS", "NCCL_IB_FIFO_TC", "NCCL_IB_GID_INDEX", "UCX_IB_GID_INDEX"}) {
            CHECK(value_of(keys, n).empty());
            CHECK_THAT(why_of(keys, n), Catch::Contains("not applied: atoll applies it on RoCE fabrics only (GCP"));
        }
        // (helper 48) an A2 runs neither gIB nor TCPXO: nothing of theirs
        // sets NCCL_SOCKET_IFNAME, so the site's is
        cfg.machine_type = "a2-ultragpu-8g";
        auto a2 = node_env(v, cfg, UserOptions(), step, facts, no_user);
        CHECK(value_of(a2, "NCCL_SOCKET_IFNAME") == "eth0");
        CHECK_THAT(why_of(a2, "NCCL_IB_HCA"), Catch::Contains("no gIB machine type") && Catch::Contains("no RDMA GPU NICs"));
    }
    SECTION("gcp with the machine type unknown: only the GPU NICs by Google's names (gpuNrdma0), never another RoCE mlx5")
    {
        FabricView v = view_of(load_fabric(test_data("cloud/gcp-instances.json")), "gcp");
        std::string h = v.summary.hosts.begin()->first;
        // as an A3 Ultra VM names them (the GKE/Cluster Toolkit networks gpu0rdma0..),
        // plus a storage ConnectX on eth1
        for (int k = 0; k < 8; ++k)
            facts.ports.push_back(port("mlx5_" + std::to_string(k), "Ethernet", "gpu" + std::to_string(k) + "rdma0"));
        facts.ports.push_back(port("mlx5_8", "Ethernet", "eth1"));
        StepInfo step{{h}, h, false, {}, -1, {}};
        auto env = node_env(v, cfg, UserOptions(), step, facts, no_user);
        CHECK(value_of(env, "NCCL_IB_HCA") == "=mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1");
        CHECK_THAT(why_of(env, "NCCL_IB_HCA"), Catch::Contains("gpuNrdmaM"));
        // no port with such a name: none taken
        NodeFacts other;
        for (int k = 0; k < 9; ++k)
            other.ports.push_back(port("mlx5_" + std::to_string(k), "Ethernet", "ens" + std::to_string(k) + "np0"));
        auto none = node_env(v, cfg, UserOptions(), step, other, no_user);
        CHECK(value_of(none, "NCCL_IB_HCA").empty());
        CHECK_THAT(why_of(none, "NCCL_IB_HCA"), Catch::Contains("machine type is unknown"));
        // (helper 48) GPU 3's NIC on eth5, its rename not done: by name it
        // is no GPU NIC, and a list of the other 7 sent GPU 3 over another
        // GPU's NIC; and gpu3rdma0 missing outright: neither is listed
        NodeFacts renamed, missing;
        for (int k = 0; k < 8; ++k) {
            renamed.ports.push_back(port("mlx5_" + std::to_string(k), "Ethernet",
                                         k == 3 ? std::string("eth5") : "gpu" + std::to_string(k) + "rdma0"));
            if (k != 3)
                missing.ports.push_back(port("mlx5_" + std::to_string(k), "Ethernet", "gpu" + std::to_string(k) + "rdma0"));
        }
        auto r = node_env(v, cfg, UserOptions(), step, renamed, no_user);
        CHECK(value_of(r, "NCCL_IB_HCA").empty());
        CHECK_THAT(why_of(r, "NCCL_IB_HCA"), Catch::Contains("are 7, not gpu0rdma0 to gpu7rdma0") &&
                                                 Catch::Contains("mlx5_3 port 1 has no such name: it may be a GPU's NIC not renamed"));
        auto m = node_env(v, cfg, UserOptions(), step, missing, no_user);
        CHECK(value_of(m, "NCCL_IB_HCA").empty());
        CHECK_THAT(why_of(m, "NCCL_IB_HCA"), Catch::Contains("one is missing here"));
        // (helper 49) not Google's spelling (gpu07rdma0, gpu7rdma1), or one
        // GPU's name on a second port: not the whole set
        for (const char *odd : {"gpu07rdma0", "gpu7rdma1", "gpu0rdma0"}) {
            NodeFacts f8;
            for (int k = 0; k < 8; ++k)
                f8.ports.push_back(port("mlx5_" + std::to_string(k), "Ethernet",
                                        k == 7 ? std::string(odd) : "gpu" + std::to_string(k) + "rdma0"));
            if (std::string(odd) == "gpu0rdma0")  // gpu0rdma0 twice, and gpu7rdma0 too: nine
                f8.ports.push_back(port("mlx5_8", "Ethernet", "gpu7rdma0"));
            auto e8 = node_env(v, cfg, UserOptions(), step, f8, no_user);
            CHECK(value_of(e8, "NCCL_IB_HCA").empty());
        }
    }
}
