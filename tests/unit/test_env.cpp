// The environment an expert would set, per node and per local rank, worked
// out by hand for: a DGX-like InfiniBand node with a storage HCA, a RoCE node,
// a job given GPUs 2 and 5 of 8 through gres under ConstrainDevices, an 8-GPU
// single task, a batch script with two srun steps, and an AWS node. The
// node's own facts (sysfs ports, /proc GPUs by device minor, hwloc's nearest
// HCA per GPU) are given here; reading them is tested beside.
#include "catch.hpp"
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "placement/view.hpp"
#include "spank/core.hpp"
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
    p.roce_v2_gid_index = gid;
    p.roce_v2_gid = gid_addr;
    p.traffic_class = tc;
    return p;
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
// each beside mlx5_0..mlx5_7 on its PCIe switch; the NVIDIA driver numbers
// them (device minor) in another order, as it may.
NodeFacts dgx_facts()
{
    NodeFacts f;
    for (int k = 0; k <= 8; ++k)  // mlx5_8: the storage HCA, not a compute rail
        f.ports.push_back(port("mlx5_" + std::to_string(k), "InfiniBand"));
    const char *bus[] = {"0000:07:00.0", "0000:0f:00.0", "0000:47:00.0", "0000:4e:00.0",
                         "0000:87:00.0", "0000:90:00.0", "0000:b7:00.0", "0000:bd:00.0"};
    for (int k = 0; k < 8; ++k)
        f.gpu_hcas.push_back(GpuHca{k, bus[k], "mlx5_" + std::to_string(k), "PXB"});
    int minor_of_pci[] = {2, 3, 0, 1, 6, 7, 4, 5};  // 07 is minor 2, 47 minor 0, ...
    for (int k = 0; k < 8; ++k)
        f.gpus[minor_of_pci[k]] = bus[k];
    return f;
}

const auto no_user = [](const std::string &) { return false; };

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
    StepInfo step{{"node001", "node003"}, "node001", false, {}};
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
          "NCCL_COLLNET_ENABLE-\n");
    CHECK(env.back().name == "ATOLL_ENV_SET");
    // --fabric-sharp=on: CollNet for every communicator
    opt.sharp = SharpMode::On;
    CHECK(table(node_env(v, cfg, opt, step, facts, no_user)).find("NCCL_COLLNET_ENABLE=1\n") != std::string::npos);
    opt.sharp = SharpMode::Auto;
    // one task per GPU (--gpus-per-task=1, no ConstrainDevices): Slurm's
    // index i is the GPU of device minor i, so task 2 holds 0000:07 (minor 2)
    // and its nearest HCA is mlx5_0, not mlx5_2
    NodeDevices dev = node_devices(v, cfg, "node001", facts.ports);
    std::map<int, std::string> want = {{0, "mlx5_2:1"}, {1, "mlx5_3:1"}, {2, "mlx5_0:1"}, {3, "mlx5_1:1"},
                                       {4, "mlx5_6:1"}, {5, "mlx5_7:1"}, {6, "mlx5_4:1"}, {7, "mlx5_5:1"}};
    for (const auto &kv : want) {
        auto t = task_env(cfg, facts, dev, step, std::to_string(kv.first), "0,1,2,3,4,5,6,7", no_user);
        CHECK(table(t) == "UCX_NET_DEVICES=" + kv.second + "\n");
    }
    // a port down: still listed (NCCL skips it; every node keeps one list), with a warning
    facts.ports[3].state = "1: DOWN";
    dev = node_devices(v, cfg, "node001", facts.ports);
    CHECK(dev.usable);
    REQUIRE(dev.problems.size() == 1);
    CHECK(dev.problems[0] == "mlx5_3 port 1 is 1: DOWN (NCCL skips it)");
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
    StepInfo step{{"node001"}, "node001", false, {}};
    NodeDevices dev = node_devices(v, cfg, "node001", facts.ports);
    // ConstrainDevices: the task sees its GPUs as 0 and 1. Slurm's 2 is minor
    // 2 (0000:07, beside mlx5_0), its 5 minor 5 (0000:bd, beside mlx5_7)
    cfg.constrain_devices = 1;
    CHECK(table(task_env(cfg, facts, dev, step, "0", "2,5", no_user)) == "UCX_NET_DEVICES=mlx5_0:1\n");
    CHECK(table(task_env(cfg, facts, dev, step, "1", "2,5", no_user)) == "UCX_NET_DEVICES=mlx5_7:1\n");
    // one task holding both: two nearest HCAs, none is right for both
    auto both = task_env(cfg, facts, dev, step, "0,1", "2,5", no_user);
    CHECK(table(both) == "UCX_NET_DEVICES-\n");
    CHECK(why_of(both, "UCX_NET_DEVICES") == "the task's 2 GPUs have 2 nearest HCAs: UCX chooses per transfer");
    // the same without ConstrainDevices: CUDA_VISIBLE_DEVICES is Slurm's 2 and 5
    cfg.constrain_devices = 0;
    CHECK(table(task_env(cfg, facts, dev, step, "5", "2,5", no_user)) == "UCX_NET_DEVICES=mlx5_7:1\n");
    // 0 and 1 are not GPUs of the step: positions, whatever the setting says
    CHECK(table(task_env(cfg, facts, dev, step, "1", "2,5", no_user)) == "UCX_NET_DEVICES=mlx5_7:1\n");
    // GPUs 1 and 2, task sees "1": Slurm's 1 (0000:4e, mlx5_3) or position 1
    // (Slurm's 2: 0000:07, mlx5_0); unknown ConstrainDevices: nothing
    cfg.constrain_devices = -1;
    setenv("SLURM_CONF", "/nonexistent/slurm.conf", 1);
    auto amb = task_env(cfg, facts, dev, step, "1", "1,2", no_user);
    CHECK(table(amb) == "UCX_NET_DEVICES-\n");
    CHECK_THAT(why_of(amb, "UCX_NET_DEVICES"), Catch::Contains("set constrain_devices="));
    unsetenv("SLURM_CONF");
    cfg.constrain_devices = 1;
    CHECK(table(task_env(cfg, facts, dev, step, "1", "1,2", no_user)) == "UCX_NET_DEVICES=mlx5_0:1\n");
    cfg.constrain_devices = 0;
    CHECK(table(task_env(cfg, facts, dev, step, "1", "1,2", no_user)) == "UCX_NET_DEVICES=mlx5_3:1\n");
    // no gres, UUIDs, no driver: not sure, nothing
    CHECK_THAT(why_of(task_env(cfg, facts, dev, step, "0", "", no_user), "UCX_NET_DEVICES"),
               Catch::Contains("no GPU gres"));
    CHECK_THAT(why_of(task_env(cfg, facts, dev, step, "GPU-1f2e", "2,5", no_user), "UCX_NET_DEVICES"),
               Catch::Contains("UUIDs or MIG"));
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
    StepInfo step{{"node001", "node002"}, "node001", false, {}};
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
    FabricView v = view_of(load_fabric(test_data("lldp/2_three_interfaces.neighbors_details.json")), "roce");
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
    StepInfo step{{host}, host, false, {}};
    auto env = node_env(v, cfg, opt, step, facts, no_user);
    std::string got = table(env);
    // device names, never netdevs (NCCL would match none and fall back to TCP)
    CHECK(got.find("NCCL_IB_HCA==mlx5_0:1,mlx5_1:1,mlx5_2:1\n") != std::string::npos);
    CHECK(got.find("NCCL_IB_TC=106\nUCX_IB_TRAFFIC_CLASS=106\n") != std::string::npos);
    CHECK(got.find("NCCL_IB_GID_INDEX=3\nUCX_IB_GID_INDEX=3\n") != std::string::npos);
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
    CHECK(table(notc).find("UCX_IB_TRAFFIC_CLASS") == std::string::npos);
    CHECK_THAT(why_of(notc, "NCCL_IB_TC"), Catch::Contains("set roce_tc="));
    // GID indexes that differ between ports: the ports' subnet instead
    facts.ports[1].roce_v2_gid_index = 5;
    std::string sub = table(node_env(v, cfg, opt, step, facts, no_user));
    CHECK(sub.find("NCCL_IB_ADDR_RANGE=192.168.8.0/21\nUCX_IB_ROCE_LOCAL_SUBNET=y\n") != std::string::npos);
    CHECK(sub.find("GID_INDEX=") == std::string::npos);
    // an LLDP name that is no RDMA port here: nothing, and why
    facts.ports = {port("mlx5_0", "Ethernet", "eth9")};
    auto none = node_env(v, cfg, opt, step, facts, no_user);
    CHECK(table(none).find("NCCL_IB_HCA-\n") != std::string::npos);
    CHECK_THAT(why_of(none, "NCCL_IB_HCA"), Catch::Contains("ens1f0np0 port 1 is not an RDMA port of this node"));
}

TEST_CASE("expert table: a batch script with two srun steps", "[env]")
{
    FabricView v = dgx_view(true);
    PluginConfig cfg = gres_cfg(0);
    UserOptions opt;
    NodeFacts facts = dgx_facts();
    // the batch step runs on node001 for the job's nodes: node variables, no per-GPU ones
    StepInfo batch{{"node001", "node003"}, "node001", true, {}};
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
    StepInfo s1{{"node003"}, "node003", false, atoll_unchanged(shell["ATOLL_ENV_SET"], value_of)};
    auto e1 = node_env(v, cfg, opt, s1, facts, in_shell);
    CHECK(table(e1).find("ATOLL_ISLAND=grp-ib-leaf09\nATOLL_LEAVES=grp-ib-leaf09\nATOLL_HOPS=0\n") != std::string::npos);
    CHECK(table(e1).find(" kept") == std::string::npos);
    // step 2, after `export NCCL_IB_HCA==mlx5_0:1` in the script: the user's, kept
    shell["NCCL_IB_HCA"] = "=mlx5_0:1";
    StepInfo s2{{"node001", "node003"}, "node001", false, atoll_unchanged(shell["ATOLL_ENV_SET"], value_of)};
    auto e2 = node_env(v, cfg, opt, s2, facts, in_shell);
    CHECK(table(e2).find("NCCL_IB_HCA kept\n") != std::string::npos);
    CHECK(table(e2).find("ATOLL_ISLAND=pod-ib-leaf01\n") != std::string::npos);
    // a variable set in an nccl.conf file is the admin's or the user's too
    facts.nccl_conf["NCCL_IB_HCA"] = "/etc/nccl.conf";
    auto e3 = node_env(v, cfg, opt, StepInfo{{"node001"}, "node001", false, {}}, facts, no_user);
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
    StepInfo step{{"i-0a1", "i-0a3"}, "i-0a1", false, {}};
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
    auto m = nccl_conf_vars({a, std::string(dir) + "/missing", ""});
    CHECK(m.size() == 2);
    CHECK(m["NCCL_IB_HCA"] == a);
    CHECK(m["NCCL_IB_TC"] == a);
    std::string rm = std::string("rm -rf '") + dir + "'";
    REQUIRE(system(rm.c_str()) == 0);
}
