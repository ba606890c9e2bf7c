// The atoll SPANK plugin's logic, free of the SPANK ABI so that it can be
// unit-tested: plugstack.conf keys, the user's options, and the fabric
// environment a node and a task get from where the job landed.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <sys/stat.h>

#include "placement/policy.hpp"
#include "node/nodeview.hpp"
#include "placement/view.hpp"

namespace atl {

// plugstack.conf: required|optional atoll.so key=value ...
struct PluginConfig {
    std::string fabric;                 // fabric file (fabric.json, or anything atoll-topo reads)
    std::string policy = "atoll";
    std::string default_island = "none";  // island request for jobs that do not ask
    bool env = true;                    // env=auto|off
    bool sharp = true;                  // sharp=auto|off
    int roce_tc = -1;                   // traffic class for RoCE (NCCL_IB_TC, UCX_IB_TRAFFIC_CLASS)
    std::string socket_ifname;          // NCCL_SOCKET_IFNAME
    std::string hca;                    // HCA selector: fnmatch pattern(s), comma separated; "!" excludes
    bool strict = false;                // our failures fail the job instead of a warning
    int island_wait = 600;              // seconds a preferred island is waited for
    int leaf_wait = -1;                 // seconds the fewest leaves are waited for above a leaf (-1: island_wait)
    int leaf_wait_s() const { return leaf_wait >= 0 ? leaf_wait : island_wait; }
    long max_age = 30L * 86400;         // a fabric file older than this is stale (0: never)
    std::string fabric_type;            // ib|roce|azure|aws|gcp|generic|cloud; default from the fabric
    std::string proc_root;              // per node, %n is the node name (default /proc): NVIDIA GPUs
    int constrain_devices = -1;         // Slurm's ConstrainDevices: 1, 0, -1 read cgroup.conf
    int fifo_tc = -1;                   // NCCL_IB_FIFO_TC on RoCE
    std::string hwloc_xml;              // per node, %n is the node name
    std::string sysfs_root;             // per node, %n is the node name (default /sys)
    int gid_index = -1;                 // RoCE GID index to pin (NCCL_IB_GID_INDEX, UCX_IB_GID_INDEX)
    uid_t owner = 0;                    // who may own the files read as root: root (tests may say otherwise;
                                        // not a plugstack key)
};
// Throws std::invalid_argument naming the key on an unknown key or a bad value.
PluginConfig parse_plugstack(const std::vector<std::string> &args);

// The atoll.so line of the plugstack configuration that slurm.conf names
// (PlugStackConfig, default plugstack.conf beside it), read as Slurm reads
// it: '#' starts a comment, "required|optional PATH ARGS..." loads a plugin,
// "include PATTERN" reads the files a glob(3) pattern names (relative to the
// including file's directory), four deep at most. No shell sees a path.
// The keys every atoll component takes from it (policy=, island_wait=,
// leaf_wait=, strict=) are parsed here and by parse_plugstack() only.
struct PlugstackLine {
    bool found = false;          // an atoll.so line exists
    std::string where;           // FILE:LINE of it
    std::vector<std::string> args;
    PluginConfig config;         // parse_plugstack(args); defaults when not found
};
// Throws std::invalid_argument naming FILE:LINE on a bad key or value of the
// atoll.so line; a missing plugstack file is not an error (found = false).
PlugstackLine read_plugstack_line(const std::string &slurm_conf);


enum class EnvMode { Auto, Off, Show };
EnvMode parse_env_mode(const std::string &value);       // --fabric-env
enum class SharpMode { Auto, On, Off };
SharpMode parse_sharp_mode(const std::string &value);   // --fabric-sharp

struct UserOptions {
    IslandRequest island;
    EnvMode env = EnvMode::Auto;
    SharpMode sharp = SharpMode::Auto;
    bool explain = false;
};

// A file slurmstepd reads as root, opened once and checked on the open
// descriptor: the path is absolute and walked from "/" one component at a
// time (openat, O_NOFOLLOW), every directory owned by root (or `owner`) and
// writable by nobody else (a root-owned sticky directory such as /tmp
// excepted), a symbolic link followed only when root (or `owner`) owns it; the
// file itself a regular file owned by root (or `owner`), writable by nobody
// else. Whatever the effective uid. Returns the descriptor (close it) and its
// fstat; throws std::runtime_error naming `what`, the path and the reason.
int open_trusted(const std::string &path, const std::string &what, struct stat &st, uid_t owner = 0);
// The whole file behind `fd`, at most `max` bytes (std::runtime_error beyond).
std::string read_trusted(int fd, const std::string &path, std::size_t max);

// The loaded fabric, with everything the environment needs.
struct FabricView {
    FabricSummary summary;
    FabricKind kind = FabricKind::InfiniBand;  // for placement's cost model
    // The environment profile: ib, roce, azure (InfiniBand VMs: as ib, no
    // SHARP), aws, gcp, generic (a site's CSV) or cloud (any cloud): from
    // fabric_type=, else the view's kind, else ib.
    std::string profile = "ib";
};
// Opens the file with open_trusted() (not older than max_age either) and reads
// it from that descriptor, at most 256 MiB: the compact view (`atoll-topo
// slurm --format view`), or a fabric.json through a full analysis. Throws
// std::runtime_error saying what is wrong.
std::unique_ptr<FabricView> load_fabric_view(const PluginConfig &cfg, const std::string &path);

// A variable atoll set, kept (the user's), or considered and left alone.
struct EnvVar {
    std::string name, value, why;
    bool kept = false;      // the user (or an nccl.conf file) had set it: left alone
    bool set = true;        // false: atoll left it unset, `why` says why
};

// What the node says of itself, read once per step on each node.
struct NodeFacts {
    std::vector<NodePort> ports;              // <sysfs_root>/class/infiniband
    std::map<int, std::string> gpus;          // device minor -> PCI bus id (<proc_root>/driver/nvidia)
    std::vector<GpuHca> gpu_hcas;             // hwloc: each GPU's nearest compute HCA (empty: no hwloc_xml)
    std::map<std::string, std::string> nccl_conf;  // variable -> the nccl.conf file that sets it
    int constrained = -1;                     // ConstrainDevices in cgroup.conf: 1, 0, -1 unknown
    std::vector<std::string> problems;        // files not read in time (the user's nccl.conf)
};
// The nccl.conf files NCCL reads: which variables they set. `root_files`
// (/etc/nccl.conf) are root's and read directly; `user_files` (HOME/.nccl.conf,
// NCCL_CONF_FILE: any path the user names) only through read_user_file(),
// all of them within `bound` together: one not read in time is taken as
// unreadable and named in `problems`. Regular files only, 64 KiB each;
// missing ones and empty paths are skipped.
constexpr std::chrono::milliseconds user_file_bound{2000};
std::map<std::string, std::string> nccl_conf_vars(const std::vector<std::string> &root_files,
                                                  const std::vector<std::string> &user_files,
                                                  std::vector<std::string> &problems,
                                                  std::chrono::milliseconds bound = user_file_bound);

// The step: its nodes (the batch step: the job's), this node, and what an
// earlier step of atoll set (ATOLL_ENV_SET), which is recomputed, not kept.
struct StepInfo {
    std::vector<std::string> nodes;
    std::string node;
    bool batch = false;
    std::set<std::string> atoll_set;
};

// The fabric's compute-rail adapters of this node as the node names them:
// each (name, port) of the view matched in sysfs by device name or, on RoCE,
// by the netdev behind a port (or, for a RoCE LAG, a member of the bond behind
// it); the hca= selector applied to the device name. A device whose name is
// not one the kernel gives (letters, digits, '_', '-', '.') is refused.
struct NodeDevices {
    std::vector<std::pair<std::string, int>> ports;  // ibverbs device and port, rail order
    std::vector<std::pair<std::string, int>> active; // those of them ACTIVE: the only ones "nearest" a GPU
    std::vector<std::string> problems;                // what did not match, or is not ACTIVE
    bool usable = false;                               // at least one port ACTIVE
};
NodeDevices node_devices(const FabricView &f, const PluginConfig &cfg, const std::string &node,
                         const std::vector<NodePort> &ports);

// Everything the node says of itself for a step but hwloc's map (the caller
// adds gpu_hcas for `dev.ports`): sysfs ports, the NVIDIA GPUs, the nccl.conf
// files (/etc, HOME's, NCCL_CONF_FILE), ConstrainDevices; and the devices.
// The plugin and atoll-topo env both read a node through this.
NodeFacts read_node_facts(const FabricView &f, const PluginConfig &cfg, const std::string &node,
                          const std::string &home, const std::string &nccl_conf_file, NodeDevices &dev);

// This node's variables for the step (the same for every task of the node):
// ATOLL_*, NCCL_IB_HCA, NCCL_CROSS_NIC, the RoCE class and GID, SHARP, and
// ATOLL_ENV_SET naming what atoll set. `user_has` says whether a variable is
// in the environment already (then it is kept, unless an earlier step of
// atoll set it). Throws std::runtime_error when the node is not in the fabric.
std::vector<EnvVar> node_env(const FabricView &f, const PluginConfig &cfg, const UserOptions &opt,
                             const StepInfo &step, const NodeFacts &facts,
                             const std::function<bool(const std::string &)> &user_has);

// ATOLL_ENV_SET: "NAME:HASH,..." for what atoll set (HASH: FNV-1a of the
// value), so that a later step tells atoll's values, which it recomputes,
// from ones the user changed since, which it keeps.
std::string env_set_record(const std::vector<EnvVar> &vars);
std::string env_set_add(const std::string &record, const EnvVar &v);
// The names of `record` whose current value (`value_of`, nullopt when unset)
// is still the one atoll set, and ATOLL_ENV_SET itself when it is set.
std::set<std::string> atoll_unchanged(const std::string &record,
                                      const std::function<std::optional<std::string>(const std::string &)> &value_of);

// A task's GPUs as PCI bus ids, from Slurm's GPU gres: SLURM_STEP_GPUS are
// Slurm's indices (device-minor order), CUDA_VISIBLE_DEVICES the task's own,
// either those indices or, under ConstrainDevices, positions among the step's
// GPUs. `constrained`: 1 yes, 0 no, -1 unknown (then only an unambiguous
// numbering is taken). Empty with `why` set when it cannot be sure.
std::vector<std::string> task_gpu_busids(const std::string &cuda_visible, const std::string &step_gpus,
                                         int constrained, const std::map<int, std::string> &gpus, std::string &why);

// A task's own variables: UCX_NET_DEVICES, when every GPU it holds has the
// same nearest compute HCA; otherwise nothing, and why.
std::vector<EnvVar> task_env(const PluginConfig &cfg, const NodeFacts &facts, const NodeDevices &dev,
                             const StepInfo &step, const std::string &cuda_visible, const std::string &step_gpus,
                             const std::function<bool(const std::string &)> &user_has);

// ConstrainDevices: constrain_devices= when set, else the cgroup.conf beside
// slurm.conf: 1, 0, or -1 when it cannot be read.
int devices_constrained(const PluginConfig &cfg);

// "%n" in a per-node path replaced by the node name.
std::string per_node_path(const std::string &pattern, const std::string &node);

// The HCA nearest to each GPU (node/gpu_hca.h, through `fn`) among `hcas`
// (all the node's when empty), from a saved hwloc XML opened with
// open_trusted() and read by hwloc from that descriptor.
std::vector<GpuHca> gpu_hca_pairs(atl_gpu_hcas_fn fn, const std::string &hwloc_xml,
                                  const std::vector<std::pair<std::string, int>> &hcas = {}, uid_t owner = 0);

// Lines for --fabric-env=show and atoll-topo env: "NAME=VALUE (why)",
// "NAME=VALUE (set by the user, kept)" or "NAME not set: why".
std::string describe(const EnvVar &v);

}  // namespace atl
