// plugstack.conf keys (the atoll.so line) and the user's --fabric-* options.
#pragma once

#include <istream>
#include <string>
#include <vector>

#include <sys/types.h>

#include "placement/policy.hpp"
#include "placement/ranks.hpp"

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
    std::vector<std::string> warnings;  // the line's own: a key given twice (the last is used)
    int island_wait = 600;              // seconds a preferred island is waited for
    int leaf_wait = -1;                 // seconds the fewest leaves are waited for above a leaf (-1: island_wait)
    int leaf_wait_s() const { return leaf_wait >= 0 ? leaf_wait : island_wait; }
    // the step model's job for auto's wait (cli_filter.lua, atoll-place place --slurm --time-limit)
    double comm_share = 0.3;            // the share of a step communication takes on the best placement
    bool all_to_all = false;            // expert parallelism: all-to-all instead of all-reduce
    bool busy_uplinks = false;          // uplink_load=busy: the uplinks carry traffic squeue does not show
    long max_age = 30L * 86400;         // a fabric file older than this is stale (0: never)
    std::string fabric_type;            // ib|roce|azure|aws|gcp|oci|nebius|generic|cloud; default from the fabric
    std::string proc_root;              // per node, %n is the node name (default /proc): NVIDIA GPUs,
                                        // the IMEX channels' major (devices)
    int constrain_devices = -1;         // Slurm's ConstrainDevices: 1, 0, -1 read cgroup.conf
    int fifo_tc = -1;                   // NCCL_IB_FIFO_TC on RoCE
    std::string hwloc_xml;              // per node, %n is the node name
    std::string sysfs_root;             // per node, %n is the node name (default /sys)
    std::string cloud_root;             // per node, %n is the node name (default /): the cloud stack's files
                                        // (/etc/nccl.conf, /opt/amazon/ofi-nccl, /usr/local/gib, /opt/microsoft)
    std::string dev_root;               // per node, %n is the node name (default /dev): IMEX channels
                                        // (nvidia-caps-imex-channels/channelN)
    std::string machine_type;           // the cloud's machine type (default: EC2's DMI product name, else unknown)
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
// The same from a plugstack file's text, named `file` in messages and for
// its includes (relative to its directory); `includes` false skips them.
PlugstackLine read_plugstack_text(std::istream &in, const std::string &file, bool includes = true);


enum class EnvMode { Auto, Off, Show };
EnvMode parse_env_mode(const std::string &value);       // --fabric-env
enum class SharpMode { Auto, On, Off };
SharpMode parse_sharp_mode(const std::string &value);   // --fabric-sharp

struct UserOptions {
    IslandRequest island;
    EnvMode env = EnvMode::Auto;
    SharpMode sharp = SharpMode::Auto;
    bool explain = false;
    std::string ranks;      // --fabric-ranks SPEC as given ("" none)
    Parallelism par;        // ... parsed (parse_parallelism)
};

// A fabric_type= profile atoll knows: ib, roce, azure, aws, gcp, oci, nebius, generic, cloud.
bool known_profile(const std::string &p);

}  // namespace atl
