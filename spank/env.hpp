// The node's and the task's environment for a step.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "spank/facts.hpp"

namespace atl {

// A variable atoll set, kept (the user's), or considered and left alone.
struct EnvVar {
    std::string name, value, why;
    bool kept = false;      // the user (or an nccl.conf file) had set it: left alone
    bool set = true;        // false: atoll left it unset, `why` says why
};

// The step: its nodes (the batch step: the job's), this node, and what an
// earlier step of atoll set (ATOLL_ENV_SET), which is recomputed, not kept.
struct StepInfo {
    std::vector<std::string> nodes;
    std::string node;
    bool batch = false;
    std::set<std::string> atoll_set;
};

// This node's variables for the step (the same for every task of the node):
// ATOLL_*, NCCL_IB_HCA, NCCL_CROSS_NIC, the RoCE class and GID, SHARP, and
// ATOLL_ENV_SET naming what atoll set. `user_has` says whether a variable is
// in the environment already (then it is kept, unless an earlier step of
// atoll set it). Throws std::runtime_error when the node is not in the fabric.
std::vector<EnvVar> node_env(const FabricView &f, const PluginConfig &cfg, const UserOptions &opt,
                             const StepInfo &step, const NodeFacts &facts,
                             const std::function<bool(const std::string &)> &user_has);
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
// Lines for --fabric-env=show and atoll-topo env: "NAME=VALUE (why)",
// "NAME=VALUE (set by the user, kept)" or "NAME not set: why".
std::string describe(const EnvVar &v);

}  // namespace atl
