// slurm-tree: Slurm's own choice under topology/tree, re-implemented from
// _eval_nodes_topo() in src/plugins/topology/tree/eval_nodes_tree.c (SchedMD
// slurm master at commit 009b1702, the code of Slurm 24.05/24.11; 22.05 has
// the same logic in select/cons_common's _eval_nodes_topo). Modelled for
// what atoll compares: whole nodes, one scheduling weight, no required nodes,
// no GRES or CPU limits. Switches are the records of the topology.conf that
// atoll-topo writes, in file order; nodes are numbered in name order.
#include <limits>
#include <unordered_map>

#include "placement/policies.hpp"

namespace atl {
namespace {

constexpr int kInfinite = std::numeric_limits<int>::max();

class SlurmTree : public Policy {
public:
    const char *name() const override { return "slurm-tree"; }

protected:
    Placement choose(const FreeState &free, const Request &req) override;

private:
    // _topo_compare_switches: 1 when i fits better, -1 when j does, 0 neither.
    int compare(int i, int j, int rem, bool &i_fit_out) const;
    void choose_best(int i, int rem, int &best) const;
    void decrement(int taken, int r);

    // Slurm's switches_dist row of record r, computed when first needed:
    // a choice adds the rows of the few leaf switches it takes, and a table
    // of every row is records^2 (400 MB at 10,000 leaves)
    const std::vector<int> &dist_row(const Cluster &c, int r);

    const std::vector<TreeRecord> *tree_ = nullptr;
    std::vector<int> cnt_, dist_;
    const Cluster *rows_of_ = nullptr;
    std::unordered_map<int, std::vector<int>> rows_;
};

const std::vector<int> &SlurmTree::dist_row(const Cluster &c, int r)
{
    constexpr std::size_t kept = 4096;  // rows kept between choices, at most
    if (rows_of_ != &c || rows_.size() >= kept) {
        rows_.clear();
        rows_of_ = &c;
    }
    auto it = rows_.find(r);
    if (it == rows_.end())
        it = rows_.emplace(r, c.tree_distances(r)).first;
    return it->second;
}

int SlurmTree::compare(int i, int j, int rem, bool &i_fit_out) const
{
    const auto &t = *tree_;
    for (;;) {
        bool i_fit = cnt_[static_cast<std::size_t>(i)] >= rem;
        bool j_fit = cnt_[static_cast<std::size_t>(j)] >= rem;
        i_fit_out = i_fit;
        if (i_fit && j_fit) {
            if (cnt_[static_cast<std::size_t>(i)] < cnt_[static_cast<std::size_t>(j)])
                return 1;
            if (cnt_[static_cast<std::size_t>(i)] > cnt_[static_cast<std::size_t>(j)])
                return -1;
            break;
        } else if (i_fit) {
            return 1;
        } else if (j_fit) {
            return -1;
        }
        int pi = t[static_cast<std::size_t>(i)].parent, pj = t[static_cast<std::size_t>(j)].parent;
        // Slurm walks both up while their parents differ; a root has no parent.
        if (pi != pj && pi >= 0 && pj >= 0) {
            i = pi;
            j = pj;
            continue;
        }
        break;
    }
    if (cnt_[static_cast<std::size_t>(i)] > cnt_[static_cast<std::size_t>(j)])
        return 1;
    if (cnt_[static_cast<std::size_t>(i)] < cnt_[static_cast<std::size_t>(j)])
        return -1;
    if (t[static_cast<std::size_t>(i)].level < t[static_cast<std::size_t>(j)].level)
        return 1;
    if (t[static_cast<std::size_t>(i)].level > t[static_cast<std::size_t>(j)].level)
        return -1;
    return 0;
}

// _topo_choose_best_switch
void SlurmTree::choose_best(int i, int rem, int &best) const
{
    std::size_t ui = static_cast<std::size_t>(i);
    if (best == -1 || dist_[ui] == kInfinite || !cnt_[ui]) {
        if (cnt_[ui] && dist_[ui] < kInfinite)
            best = i;
        return;
    }
    bool i_fit = false;
    int tcs = compare(i, best, rem, i_fit);
    std::size_t ub = static_cast<std::size_t>(best);
    if ((dist_[ui] < dist_[ub] && i_fit) || (dist_[ui] == dist_[ub] && tcs > 0))
        best = i;
}

// _decrement_node_cnt: the switch and all above it lose `taken` nodes.
void SlurmTree::decrement(int taken, int r)
{
    for (int i = r; i >= 0; i = (*tree_)[static_cast<std::size_t>(i)].parent) {
        int &c = cnt_[static_cast<std::size_t>(i)];
        c = c <= taken ? 0 : c - taken;
    }
}

Placement SlurmTree::choose(const FreeState &free, const Request &req)
{
    const Cluster &c = free.cluster();
    tree_ = &c.tree();
    const auto &t = *tree_;
    std::size_t R = t.size();
    Placement p;
    cnt_.assign(R, 0);
    for (std::size_t r = 0; r < R; ++r)
        if (!t[r].partial)
            cnt_[r] = free.free_in(t[r].island);
        else  // a subnet's root: its children's (recorded before it)
            for (int k : t[r].children)
                cnt_[r] += cnt_[static_cast<std::size_t>(k)];

    // The top switch: the highest-level switch with enough free nodes (the
    // last such in file order).
    int top = -1;
    for (std::size_t r = 0; r < R; ++r)
        if (cnt_[r] >= req.nodes && (top < 0 || t[r].level >= t[static_cast<std::size_t>(top)].level))
            top = static_cast<int>(r);
    if (top < 0) {
        p.error = "slurm-tree: no switch has " + std::to_string(req.nodes) + " free nodes";
        return p;
    }
    // Only nodes under the top switch count.
    std::vector<char> under(R, 0);
    std::vector<int> stack = {top};
    while (!stack.empty()) {
        int r = stack.back();
        stack.pop_back();
        under[static_cast<std::size_t>(r)] = 1;
        for (int k : t[static_cast<std::size_t>(r)].children)
            stack.push_back(k);
    }
    for (std::size_t r = 0; r < R; ++r)
        if (!under[r])
            cnt_[r] = 0;
    for (int a = t[static_cast<std::size_t>(top)].parent; a >= 0; a = t[static_cast<std::size_t>(a)].parent)
        cnt_[static_cast<std::size_t>(a)] = cnt_[static_cast<std::size_t>(top)];
    if (req.explain)
        p.notes.push_back("slurm-tree: top switch " +
                      (t[static_cast<std::size_t>(top)].name.empty() ? c.island(t[static_cast<std::size_t>(top)].island).name
                                                                      : t[static_cast<std::size_t>(top)].name) +
                      " (level " + std::to_string(t[static_cast<std::size_t>(top)].level) + ", " +
                      std::to_string(cnt_[static_cast<std::size_t>(top)]) + " free)");

    dist_.assign(R, 0);
    int rem = req.nodes;
    std::vector<char> taken(c.host_count(), 0);
    int prev = rem + 1;
    while (rem > 0) {
        if (prev == rem)
            break;  // stalled
        prev = rem;
        int best = -1;
        for (std::size_t r = 0; r < R; ++r)
            if (t[r].level == 0 && under[r])
                choose_best(static_cast<int>(r), rem, best);
        if (best < 0)
            break;
        const TreeRecord &b = t[static_cast<std::size_t>(best)];
        const std::vector<int> &bd = dist_row(c, best);
        for (std::size_t k = 0; k < R; ++k)
            dist_[k] = (dist_[k] == kInfinite || bd[k] == kInfinite) ? kInfinite : dist_[k] + bd[k];
        int got = 0;
        for (int h : b.hosts) {
            if (rem == 0)
                break;
            if (!free.is_free(h) || taken[static_cast<std::size_t>(h)])
                continue;
            taken[static_cast<std::size_t>(h)] = 1;
            p.hosts.push_back(h);
            --rem;
            ++got;
        }
        if (req.explain) {
            Candidate cand;
            cand.island = b.island;
            cand.free = cnt_[static_cast<std::size_t>(best)];
            cand.verdict = "took " + std::to_string(got);
            p.considered.push_back(cand);
        }
        decrement(cnt_[static_cast<std::size_t>(best)], best);
        cnt_[static_cast<std::size_t>(best)] = 0;
    }
    p.ok = rem == 0;
    if (!p.ok) {
        p.error = "slurm-tree: stalled with " + std::to_string(rem) + " nodes to place";
        p.hosts.clear();
    }
    return p;
}

}  // namespace

std::unique_ptr<Policy> make_slurm_tree_policy() { return std::make_unique<SlurmTree>(); }

}  // namespace atl
