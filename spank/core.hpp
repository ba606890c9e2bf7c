// The atoll SPANK plugin's logic, free of the SPANK ABI so that it can be
// unit-tested: plugstack.conf keys, the user's options, and the fabric
// environment a node and a task get from where the job landed.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
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
    std::string fabric_type;            // ib|roce|cloud; default from the fabric
    std::string hwloc_xml;              // per node, %n is the node name
    std::string sysfs_root;             // per node, %n is the node name (default /sys)
    int gid_index = -1;                 // RoCE GID index to pin (NCCL_IB_GID_INDEX, UCX_IB_GID_INDEX)
    uid_t owner = 0;                    // who may own the files read as root: root (tests may say otherwise;
                                        // not a plugstack key)
};
// Throws std::invalid_argument naming the key on an unknown key or a bad value.
PluginConfig parse_plugstack(const std::vector<std::string> &args);


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
    FabricKind kind = FabricKind::InfiniBand;
};
// Opens the file with open_trusted() (not older than max_age either) and reads
// it from that descriptor, at most 256 MiB: the compact view (`atoll-topo
// slurm --format view`), or a fabric.json through a full analysis. Throws
// std::runtime_error saying what is wrong.
std::unique_ptr<FabricView> load_fabric_view(const PluginConfig &cfg, const std::string &path);

struct EnvVar {
    std::string name, value, why;
    bool kept = false;      // the user had set it: left alone
};

// A node's environment for a job on `job_hosts` (node names). `user_env`
// says whether the user set a variable already. Throws std::runtime_error
// when the node is not in the fabric.
std::vector<EnvVar> node_env(const FabricView &f, const PluginConfig &cfg, const UserOptions &opt,
                             const std::vector<std::string> &job_hosts, const std::string &node,
                             const std::function<bool(const std::string &)> &user_has);

// RoCE only: for each of the node's compute HCA ports, a warning when sysfs
// (<sysfs_root>/class/infiniband/<hca>/ports/<port>/gid_attrs/types/*) shows
// no RoCE v2 GID. Empty on InfiniBand and cloud fabrics.
std::vector<std::string> roce_gid_warnings(const FabricView &f, const PluginConfig &cfg, const std::string &node);

// "%n" in a per-node path replaced by the node name.
std::string per_node_path(const std::string &pattern, const std::string &node);

// The node's compute-rail HCAs and their ports: those of the fabric that the
// hca= selector keeps (what NCCL_IB_HCA lists). Empty for a node not in it.
std::vector<std::pair<std::string, int>> compute_hcas(const FabricView &f, const PluginConfig &cfg,
                                                      const std::string &node);

// The HCA nearest to each GPU (node/gpu_hca.h, through `fn`) among `hcas`
// (all the node's when empty), from a saved hwloc XML opened with
// open_trusted() and read by hwloc from that descriptor.
std::vector<GpuHca> gpu_hca_pairs(atl_gpu_hcas_fn fn, const std::string &hwloc_xml,
                                  const std::vector<std::pair<std::string, int>> &hcas = {}, uid_t owner = 0);

// The task's GPU: the first of CUDA_VISIBLE_DEVICES, else of SLURM_STEP_GPUS,
// else its local rank. -1 when none applies.
int task_gpu(const std::string &cuda_visible, const std::string &step_gpus, int local_rank, int ngpus);

}  // namespace atl
