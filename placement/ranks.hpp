// atoll placement: which global rank each GPU of a training job gets, so
// that the process groups its framework builds from the flat rank order land
// on the fabric's nearest islands.
//
// Megatron-Core (megatron/core/parallel_state.py, NVIDIA/Megatron-LM at
// d98e8a64) builds every group from the global ranks with two RankGenerators
// over one order string (default "tp-cp-ep-dp-pp", innermost first): the
// dense one over tp, cp, dp, pp (ep = 1, dp = world / (tp x cp x pp)) and the
// expert one over tp, ep, expert-dp, pp (cp = 1, expert-dp = world / (tp x ep
// x pp)); generate_masked_orthogonal_rank_groups() gives the ranks of each
// group. Expert parallelism is thus carved out of cp x dp, not a factor of
// the world size of its own. The launcher only decides which GPU gets which
// rank; plan_ranks() makes that choice.
#pragma once

#include <array>
#include <stdexcept>
#include <string>
#include <vector>

#include "placement/cluster.hpp"

namespace atl {

struct Parallelism {
    int tp = 1, cp = 1, ep = 1, dp = 0 /* the rest */, pp = 1;
    std::string order = "tp-cp-ep-dp-pp";
};

// A size or order that cannot be: `flag` names the option ("--tp", "--order").
struct RankError : std::invalid_argument {
    RankError(const std::string &flag_, const std::string &what) : std::invalid_argument(flag_ + ": " + what), flag(flag_) {}
    std::string flag;
};

// "tp=8,ep=8,pp=2" (keys tp cp ep dp pp order; the order's tokens joined by
// '-'); RankError naming the key ("tp=") for an unknown key, a repeated key or
// a value that is not a positive integer.
Parallelism parse_parallelism(const std::string &spec);

// The sizes checked against `world` GPUs with dp filled in when 0: each size
// at least 1, tp x cp x dp x pp = world, ep divides cp x dp, the order a
// permutation Megatron accepts. RankError names the flag.
Parallelism resolve_parallelism(const Parallelism &p, int world);

// How far a set of GPUs reaches: within one node, one NVLink domain, one
// leaf island, one rail group, one pod, or the whole fabric.
enum class Reach : std::uint8_t { Node, Domain, Leaf, Group, Pod, Fabric };
const char *to_string(Reach r);
constexpr int reach_count = 6;

struct GroupReport {
    std::string kind;                 // "tp", "tp-cp", "tp-ep", "pp", "dp"
    int size = 0;                     // ranks per group
    int groups = 0;
    std::array<int, reach_count> within{};  // groups whose widest reach is each Reach
    // pp: adjacent stages (s, s+1) of each pipeline, counted per rank pair;
    // dp: consecutive members on different nodes, and how many of those use
    // the same local GPU (the same rail).
    int pairs = 0;
    std::array<int, reach_count> pairs_within{};
    int rail_pairs = 0;
};

struct RankPlan {
    std::vector<int> hosts;           // input host indices, as given
    int gpus_per_node = 0;
    Parallelism par;                  // resolved
    std::vector<int> rank;            // [i*gpus+g] -> global rank for hosts[i], GPU g
    std::vector<int> slot;            // global rank -> i*gpus+g
    std::vector<GroupReport> groups;
    int unit = 0;                     // ranks kept together: the TP, TP x CP and TP x EP groups joined
    bool consecutive = false;         // rank = position in topology order x gpus + g scored as well
    std::string note;                 // how the plan was made, one line
};

// The plan for `hosts` (pool hosts of c, no repeats) with gpus_per_node GPUs
// each: units (the TP, TP x CP and expert TP x EP groups joined) packed whole
// into NVLink domains (leaves where there are none), a pipeline's stages
// next to each other, whole pipelines in one leaf; leftovers on the
// leftover nodes in topology order. Plain consecutive ranking in topology
// order is kept when it scores no worse. RankError for sizes that cannot be.
RankPlan plan_ranks(const Cluster &c, const std::vector<int> &hosts, int gpus_per_node, const Parallelism &p);

// What a plan needs of each host: its island at each level (Domain, Leaf,
// Group, Pod, Fabric; -1 none; any numbering that is equal exactly for the
// same island) and its name for messages. The plugin fills it from its view.
struct RankHost {
    std::array<int, 5> island{{-1, -1, -1, -1, -1}};
    std::string name;
};
// The same plan over such hosts, `topo` their indices in topology order
// (RankPlan::hosts then holds 0..n-1).
RankPlan plan_ranks(const std::vector<RankHost> &hosts, const std::vector<int> &topo, int gpus_per_node,
                    const Parallelism &p);
// The hosts of the plugin's view (every name a host of it) as a plan sees
// them: the domain island, then the leaf island and its ancestors by level.
struct FabricSummary;
std::vector<RankHost> rank_hosts(const FabricSummary &s, const std::vector<std::string> &names);

// The group reports of an assignment (rank[i*gpus+g] as in RankPlan).
std::vector<GroupReport> report_groups(const Cluster &c, const std::vector<int> &hosts, int gpus_per_node,
                                       const Parallelism &resolved, const std::vector<int> &rank);

// The ranks of each group of one kind ("tp", "tp-cp", "tp-ep", "pp", "dp")
// as Megatron builds them for resolved sizes; pp and dp members in group order.
std::vector<std::vector<int>> rank_groups(const Parallelism &resolved, const std::string &kind);

// Megatron's generate_masked_orthogonal_rank_groups(): sizes innermost
// first, mask which of them the groups span.
std::vector<std::vector<int>> orthogonal_groups(const std::vector<int> &sizes, const std::vector<bool> &mask);

}  // namespace atl
