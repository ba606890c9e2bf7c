// The node's and the task's environment for a step.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "spank/facts.hpp"
#include "placement/ranks.hpp"
#include "placement/view.hpp"

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
    // Slurm's step layout (the batch step: none): tasks on each node when
    // every node runs the same number, else -1 and `layout_why` says why
    int tasks_per_node = -1;
    std::string layout_why;
};

// Every node of the step runs `local` tasks? From slurmstepd's own counts
// (S_JOB_NNODES, S_JOB_TOTAL_TASK_COUNT, S_JOB_LOCAL_TASK_COUNT) and srun's
// SLURM_STEP_TASKS_PER_NODE ("4(x3)", "2,1" as uint16_array_to_str() writes
// it): the count, or -1 with `why`.
int uniform_tasks_per_node(unsigned nnodes, unsigned total, unsigned local, const std::string &tasks_per_node,
                           std::string &why);

// The step's nodes in topology order (view_order(): pod, group, leaf,
// NVLink domain, Slurm's order inside) and this node's place in it; empty
// `order` with `why` when a step node is not in the view.
struct StepOrder {
    std::vector<std::string> order;
    int node_rank = -1;
    std::string why;
    // Another ordering's global ranks of this node's tasks, by local id (a
    // rank plan, atoll-place ranks): when not empty, task_rank() takes them
    // instead of node_rank x tasks_per_node + local id; `source` says whose.
    std::vector<long long> task_ranks;
    std::string source;
};
StepOrder step_order(const FabricSummary &s, const StepInfo &step);
// --fabric-ranks SPEC: this node's tasks' global ranks from the plan of
// atoll-place ranks (plan_ranks over the view's islands, one task per GPU,
// so GPUs per node = tasks per node) into o.task_ranks, o.source naming the
// plan. When no plan can be made (an unknown node, uneven tasks, sizes that
// do not divide the step) o.task_ranks stays empty and o.source says why:
// then no ATOLL_RANK at all, not the plain order the job did not ask for.
void plan_step_ranks(const FabricSummary &s, const StepInfo &step, const Parallelism &par, const std::string &spec,
                     StepOrder &o);
// ATOLL_RANK of a task: node_rank x tasks_per_node + its local id, when every
// node runs the same number of tasks. This is the one place a task's global
// rank is made: another ordering (a rank plan) gives it here instead.
EnvVar task_rank(const StepOrder &o, const StepInfo &step, int local_id);
// The variables of the step's order and domains, which atoll alone defines:
// a job's own value of one is never read, and is replaced or removed.
extern const char *const order_env_names[5];
// Where Slurm's own order differs from atoll's: SLURM_NODEID is the step's
// node list order; "" when they agree.
std::string slurm_order_note(const StepInfo &step, const StepOrder &o);

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
// `models` (device minor -> the driver's Model line): where the GPUs CUDA
// numbers are of more than one model, CUDA's default order (fastest first)
// is not the bus order, and nothing is taken.
std::vector<std::string> task_gpu_busids(const std::string &cuda_visible, const std::string &step_gpus,
                                         int constrained, const std::map<int, std::string> &gpus, std::string &why,
                                         const std::map<int, std::string> &models = {});

// A task's own variables: UCX_NET_DEVICES, when every GPU it holds has the
// same nearest compute HCA; otherwise nothing, and why.
std::vector<EnvVar> task_env(const PluginConfig &cfg, const NodeFacts &facts, const NodeDevices &dev,
                             const StepInfo &step, const std::string &cuda_visible, const std::string &step_gpus,
                             const std::function<bool(const std::string &)> &user_has);
// ./ucx.conf in the task's working directory (UCX reads it last of its
// files, and the environment overrides it): every UCX variable atoll set in
// `vars` that it names, or all of them when what it sets is not known
// (`cwd.unknown`), is turned into "not set" with the reason; their names are
// returned, for the caller to remove from the task's environment, and
// ATOLL_ENV_SET's value in `vars` no longer names them.
// UCX_NET_DEVICES named there also takes UCX_IB_TRAFFIC_CLASS, unless that
// is the site's (`site_tc`: roce_tc= given).
std::vector<std::string> leave_to_cwd_ucx_conf(std::vector<EnvVar> &vars, const std::map<std::string, std::string> &cwd_vars,
                                               const std::string &cwd_unknown, bool site_tc = false);
// Lines for --fabric-env=show and atoll-topo env: "NAME=VALUE (why)",
// "NAME=VALUE (set by the user, kept)" or "NAME not set: why".
std::string describe(const EnvVar &v);
// The user's own values (kept, filled in from the environment) that cannot
// work on this node: NCCL_IB_GID_INDEX or UCX_IB_GID_INDEX naming an empty,
// link-local or RoCE v1 slot on a compute port. Warnings; the value stays.
std::vector<std::string> user_value_problems(const NodeFacts &facts, const NodeDevices &dev, const std::vector<EnvVar> &node);

}  // namespace atl
