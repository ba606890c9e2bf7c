// What a node says of itself for a step: sysfs ports, GPUs, nccl.conf files,
// ConstrainDevices, the fabric's adapters among its ports, hwloc's GPU-to-HCA map.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <sys/types.h>

#include "node/cloudenv.hpp"
#include "node/imex.hpp"
#include "node/nodeview.hpp"
#include "spank/userfile.hpp"
#include "spank/view.hpp"

namespace atl {

// What the node says of itself, read once per step on each node.
struct NodeFacts {
    std::vector<NodePort> ports;              // <sysfs_root>/class/infiniband
    std::vector<std::string> unreadable_devices;  // its entries whose ports cannot be listed
    std::vector<std::string> netdevs;         // <sysfs_root>/class/net: empty when it could not be listed
    std::map<int, std::string> gpus;          // device minor -> PCI bus id (<proc_root>/driver/nvidia)
    std::map<int, std::string> gpu_models;    // device minor -> its Model line there
    std::vector<GpuHca> gpu_hcas;             // hwloc: each GPU's nearest compute HCA (empty: no hwloc_xml)
    std::map<std::string, std::set<std::string>> hwloc_hcas;  // hwloc: its XML's HCAs and their PCI addresses (where it has a GPU)
    std::map<std::string, std::string> nccl_conf;  // variable -> the nccl.conf file that sets it
    std::string nccl_conf_unknown;            // why what the nccl.conf files set is not known: then no NCCL variable is set
    std::map<std::string, std::string> ucx_conf;  // UCX variable -> the ucx.conf file UCX takes it from
    std::string ucx_conf_unknown;             // why what the ucx.conf files set is not known: then no UCX variable is set
    int constrained = -1;                     // ConstrainDevices in cgroup.conf: 1, 0, -1 unknown
    std::vector<std::string> problems;        // files not read in time (the user's nccl.conf)
    // a cloud profile (aws, azure, gcp, oci, nebius): the cloud stack's files
    // under cloud_root=, its machine type, and what check_cloud_profile() finds
    CloudNode cloud;
    std::vector<CloudFinding> cloud_findings;
    // the IMEX channels the job's user may open (read_imex_bounded(); not
    // read: imex_read false)
    ImexChannels imex;
    bool imex_read = false;
};
// read_cloud_node() in a thread the caller waits for at most `bound`: a file
// that never answers (/opt on a hung network file system) leaves an empty
// CloudNode (given `machine_type` kept) and `problem` saying so.
constexpr std::chrono::milliseconds cloud_file_bound{2000};
CloudNode read_cloud_node_bounded(const std::string &root, const std::string &sysfs_root, const std::string &machine_type,
                                  std::string &problem, std::chrono::milliseconds bound = cloud_file_bound);
// imex_channels() under dev_root= (per node) for the job's user, in a thread
// waited for at most `bound`; not read in time: `problem` says so.
ImexChannels read_imex_bounded(const PluginConfig &cfg, const std::string &node, uid_t uid, gid_t gid,
                               const std::vector<gid_t> &groups, std::string &problem,
                               std::chrono::milliseconds bound = cloud_file_bound);
// The user's nccl.conf files NCCL may read (misc/param.cc initEnvFunc):
// NCCL_CONF_FILE when set and not empty, else HOME/.nccl.conf, where HOME is
// getenv("HOME") from NCCL 2.30 ("" when set empty: /.nccl.conf) and the
// passwd entry's home before (getpwuid(getuid())->pw_dir): both, when they
// differ, since the job's NCCL release is not known. Each path is cut at 1023
// bytes, as NCCL's snprintf into a 1024-byte buffer cuts it. A relative path
// is opened from the task's working directory, which atoll does not read:
// `unknown` then says so and `paths` is empty; so does `passwd_problem`
// (passwd_home_bounded()'s) when the passwd home matters.
struct NcclUserFiles {
    std::vector<std::string> paths;
    std::string unknown;
    std::optional<ReadAs> read_as;  // whom every nccl.conf is read as (default: the caller's effective ids)
};
NcclUserFiles nccl_user_files(const std::optional<std::string> &nccl_conf_file, const std::optional<std::string> &home,
                              const std::optional<std::string> &passwd_home, const std::string &passwd_problem = "");
// The home directory of `uid`'s passwd entry (getpwuid_r, which may ask a
// directory service), looked up in a thread waited for at most `bound`:
// nullopt when there is no entry, or with `problem` set when not in time.
std::optional<std::string> passwd_home_bounded(uid_t uid, std::string &problem,
                                               std::chrono::milliseconds bound = std::chrono::milliseconds(1000));

// The ids a process of `uid` has after login: its passwd entry's gid and
// getgrouplist()'s groups, looked up as passwd_home_bounded() does (nullopt
// with `problem` set when there is no entry or it is not read in time).
std::optional<ReadAs> user_ids_bounded(uid_t uid, std::string &problem,
                                       std::chrono::milliseconds bound = std::chrono::milliseconds(1000));

// The nccl.conf files NCCL reads: which variables they set, and which file
// NCCL takes each from (the user's before root's, as initEnvFunc reads them;
// a variable counts when NCCL 2.30 and later (nccl_conf_lines()) or an
// earlier release (nccl_conf_lines_before_2_30()) would set it). The
// `user_files` (HOME/.nccl.conf, NCCL_CONF_FILE: any path the user names)
// and `root_files` (/etc/nccl.conf, which may link anywhere) alike only
// through read_user_file(), all within `bound` together. Regular files
// only, 64 KiB each; missing ones, directories and empty paths are skipped.
// A file not read in time, longer than 64 KiB, no regular file (but
// /dev/null, which reads empty), of procfs, or a path of the process that
// opens it (/proc/self, /dev/fd, /dev/stdin, /dev/tty...) leaves what NCCL
// will take from it unknown: `unknown` says why (`problems` names it once,
// the files after it not read), and no NCCL variable may then be set.
constexpr std::chrono::milliseconds user_file_bound{2000};
struct NcclConfVars {
    std::map<std::string, std::string> vars;  // variable -> the file NCCL takes it from
    std::string unknown;
};
NcclConfVars nccl_conf_vars(const std::vector<std::string> &root_files, const std::vector<std::string> &user_files,
                            std::vector<std::string> &problems, std::chrono::milliseconds bound = user_file_bound,
                            const ReadAs *as = nullptr);
// The ucx.conf files UCX reads, the same way (64 KiB each, through
// read_user_file(), within `bound` together): which UCX_* variables they
// name, in any section whatever its CPU or machine filter, and the file UCX
// takes each from (ucs_config_parse_config_files(): root's first, then the
// user's in order, a later file overriding; the environment wins over all).
NcclConfVars ucx_conf_vars(const std::vector<std::string> &root_files, const std::vector<std::string> &user_files,
                           std::vector<std::string> &problems, std::chrono::milliseconds bound = user_file_bound,
                           const ReadAs *as = nullptr);
// The system's ucx.conf: UCX_CONFIG_DIR as Debian's UCX is built (sysconfdir
// /etc); a UCX installed elsewhere (HPC-X) reads its own prefix's etc/ucx
constexpr const char *system_ucx_conf = "/etc/ucx/ucx.conf";
// The user's ucx.conf files UCX reads (ucs_config_parse_config_files()):
// getenv("HOME")/ucx.conf and getenv("UCX_CONFIG_DIR")/ucx.conf, each when
// set; a relative one is opened from the task's working directory, which
// atoll does not read here: `unknown` says so and no UCX variable is set.
// (./ucx.conf, the task's working directory's, is cwd_ucx_conf()'s.)
struct UcxUserFiles {
    std::vector<std::string> paths;
    std::string unknown;
};
UcxUserFiles ucx_user_files(const std::optional<std::string> &home, const std::optional<std::string> &ucx_config_dir);

// The node's view entry with the adapter names another node's description
// claims too settled by this node's own sysfs GUIDs (resolve_claims), or,
// for an odd host, its entry when its own active InfiniBand ports settle it
// (resolve_odd); nullopt when it has neither or it is not settled (`why`).
std::optional<ViewHost> settle_claims(const FabricSummary &s, const std::string &node, const std::vector<NodePort> &ports,
                                      std::string *why = nullptr);

// The fabric's compute-rail adapters of this node as the node names them:
// each (name, port) of the view matched in sysfs by its node GUID when the
// view has one (InfiniBand, view 4: a device renumbered since discovery is
// found under its new name; a name whose GUID is another adapter's, with no
// device of the fabric's GUID, is a problem, not a match), else by device name or, on RoCE,
// by the netdev behind a port (or, for a RoCE LAG, a member of the bond behind
// it); the hca= selector applied to the device name. A device whose name is
// not one the kernel gives (letters, digits, '_', '-', '.') is refused.
struct NodeDevices {
    bool from_node = false;                          // the fabric names none of the node's ports: the cloud's rule
    std::string source;                              // that rule, when it found ports
    std::vector<std::pair<std::string, int>> ports;  // ibverbs device and port, rail order
    std::vector<std::pair<std::string, int>> active; // those of them ACTIVE: the only ones "nearest" a GPU
    std::vector<std::string> problems;                // what did not match, or is not ACTIVE
    std::vector<std::string> renamed;                 // adapters found by GUID under another name ("mlx5_5 is mlx5_4 here")
    std::string refused;                              // why none is taken though some matched (two devices, one address)
    std::vector<std::string> deselected;              // adapters found but left out by hca=
    bool usable = false;                               // at least one port ACTIVE
};
// On azure and gcp, a host the fabric names no adapter of (none of its
// names is an RDMA device here: a CSV's or a cloud API's placeholder) takes them from
// `ports` through cloud_adapters() for `machine_type` (then `source` says
// which rule), with the same name, hca= and ACTIVE checks; when the rule
// finds none, no ports and its reason in `problems`.
// A rail that is no RDMA port here while a device here cannot be read
// (`unreadable`, as node_ports() lists them) may be that device: then none
// is taken, as for a rail found whose link layer or owner is not known.
NodeDevices node_devices(const FabricView &f, const PluginConfig &cfg, const std::string &node,
                         const std::vector<NodePort> &ports, const std::string &machine_type = "",
                         const std::vector<std::string> &unreadable = {});

// Everything the node says of itself for a step but hwloc's map (the caller
// adds gpu_hcas for `dev.ports`): sysfs ports, the NVIDIA GPUs, the nccl.conf
// files (/etc and the user's, nccl_user_files()), the ucx.conf files
// (system_ucx_conf and the user's, ucx_user_files(), read as user_conf's
// read_as), ConstrainDevices; and the devices. The plugin and atoll-topo env
// both read a node through this.
NodeFacts read_node_facts(const FabricView &f, const PluginConfig &cfg, const std::string &node,
                          const NcclUserFiles &user_conf, NodeDevices &dev, const UcxUserFiles &ucx_conf = {});
// ConstrainDevices: constrain_devices= when set, else the cgroup.conf beside
// slurm.conf: 1, 0, or -1 when it cannot be read.
int devices_constrained(const PluginConfig &cfg);

// "%n" in a per-node path replaced by the node name.
std::string per_node_path(const std::string &pattern, const std::string &node);

// The HCA nearest to each GPU (node/gpu_hca.h, through `fn`) among `hcas`
// (all the node's when empty), from a saved hwloc XML opened with
// open_trusted() and read by hwloc from that descriptor. `seen`, given,
// gets every HCA (OpenFabrics device) the XML has, kept or not, and the PCI
// addresses it puts it at.
std::vector<GpuHca> gpu_hca_pairs(atl_gpu_hcas_fn fn, const std::string &hwloc_xml,
                                  const std::vector<std::pair<std::string, int>> &hcas = {}, uid_t owner = 0,
                                  std::map<std::string, std::set<std::string>> *seen = nullptr);

}  // namespace atl
