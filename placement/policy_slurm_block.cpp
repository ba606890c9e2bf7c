// slurm-block: Slurm's own choice under topology/block, re-implemented from
// eval_nodes_block() in src/plugins/topology/block/eval_nodes_block.c
// (SchedMD slurm, tags slurm-24-11-5-1 and slurm-26-05-3-1: the same block
// and base-block choice in both). Modelled for what atoll compares: whole
// nodes, one scheduling weight, no required nodes, no segments, no GRES or
// CPU limits. Blocks are the base blocks of the file atoll-topo writes
// (Cluster::blocks(), in file order); nodes are numbered in name order.
//
// For n nodes: the block level is the smallest BlockSizes level at or above
// ceil(log2(ceil(n / base))) (none: the whole cluster is one block); blocks
// of that level are runs of 2^level consecutive base blocks. The chosen block
// is the one with the fewest free nodes among those that can hold the job
// within max_llblock "lower-level" blocks (the level just below), the last
// such on a tie. Inside it base blocks are taken one by one: first one in a
// lower-level block already used, then a lower-level block that holds the
// rest (the emptiest such), else the fullest; then a base block that holds
// the rest (the emptiest such), else the fullest.
#include <algorithm>
#include <cmath>
#include <functional>

#include "placement/policies.hpp"

namespace atl {
namespace {

class SlurmBlock : public Policy {
public:
    const char *name() const override { return "slurm-block"; }
    bool takes_switches() const override { return false; }  // eval_nodes_block() reads no --switches

protected:
    Placement choose(const FreeState &free, const Request &req) override;
};

// _get_block_level: the level of a block holding rem nodes (-1: none does,
// the whole cluster), and *ll the highest level below it (0 at least).
int block_level(const std::vector<char> &levels, int base, int rem, int *ll)
{
    int bb = (rem + base - 1) / base;
    int bl = bb > 0 ? static_cast<int>(std::ceil(std::log2(bb))) : -1;
    if (ll) {
        *ll = 0;
        for (int k = bl - 1; k >= 0; --k)
            if (levels[static_cast<std::size_t>(k)]) {
                *ll = k;
                break;
            }
    }
    if (bl < 0)
        return -1;
    for (int k = bl; k < static_cast<int>(levels.size()); ++k)
        if (levels[static_cast<std::size_t>(k)])
            return k;
    return -1;
}

Placement SlurmBlock::choose(const FreeState &free, const Request &req)
{
    const Cluster &c = free.cluster();
    const BlockView &v = c.blocks();
    Placement p;
    if (v.blocks.empty() || v.base <= 0) {
        p.error = "slurm-block: the fabric has no topology/block layout";
        return p;
    }
    const int B = static_cast<int>(v.blocks.size());
    std::vector<char> levels(16, 0);
    for (int k : v.levels)
        if (k >= 0 && k < 16)
            levels[static_cast<std::size_t>(k)] = 1;
    int rem = req.nodes, ll = 0;
    int bl = block_level(levels, v.base, rem, &ll);
    int bpb = bl < 0 ? B : 1 << bl;                  // base blocks per block
    int block_cnt = bl < 0 ? 1 : (B + bpb - 1) / bpb;
    int bpl = 1 << ll;                               // base blocks per lower-level block
    int max_ll = (rem + bpl * v.base - 1) / (bpl * v.base);
    bool use_ll = bpb != bpl * max_ll;
    int ll_cnt = (B + bpl - 1) / bpl;

    std::vector<int> on_bblock(static_cast<std::size_t>(B)), on_block(static_cast<std::size_t>(block_cnt), 0),
        on_ll(static_cast<std::size_t>(ll_cnt), 0);
    for (int i = 0; i < B; ++i) {
        int is = v.blocks[static_cast<std::size_t>(i)];
        int f = is < 0 ? 0 : free.free_in(is);  // a placeholder block holds no node
        on_bblock[static_cast<std::size_t>(i)] = f;
        on_block[static_cast<std::size_t>(i / bpb)] += f;
        on_ll[static_cast<std::size_t>(i / bpl)] += f;
    }
    int block_inx = -1, block_node_cnt = 0;
    for (int i = 0; i < block_cnt; ++i) {
        int bnc = on_block[static_cast<std::size_t>(i)], avail = bnc;
        if (use_ll) {
            int per = std::min(bpb / bpl, ll_cnt - i * (bpb / bpl));
            std::vector<int> part(on_ll.begin() + i * (bpb / bpl), on_ll.begin() + i * (bpb / bpl) + per);
            std::sort(part.rbegin(), part.rend());
            avail = 0;
            for (int j = 0; j < std::min(max_ll, per); ++j)
                avail += part[static_cast<std::size_t>(j)];
        }
        if (avail < rem)
            continue;
        if (block_inx == -1 || bnc <= block_node_cnt) {
            block_inx = i;
            block_node_cnt = bnc;
        }
    }
    if (block_inx < 0) {
        p.error = "slurm-block: no block of " + std::to_string(static_cast<long>(bpb) * v.base) + " nodes can hold " +
                  std::to_string(req.nodes) + " free nodes now";
        return p;
    }
    if (req.explain)
        p.notes.push_back("slurm-block: block level " + std::to_string(bl) + " (" + std::to_string(bpb) +
                      " base blocks), block " + std::to_string(block_inx) + " with " + std::to_string(block_node_cnt) +
                      " free; lower level " + std::to_string(ll) + ", at most " + std::to_string(max_ll));

    auto in_block = [&](int i) { return i / bpb == block_inx; };
    auto same = [&](int a, int b) { return (a >> ll) == (b >> ll); };  // a may be -1
    std::vector<char> required(static_cast<std::size_t>(B), 0);
    std::fill(on_ll.begin(), on_ll.end(), 0);
    for (int i = 0; i < B; ++i)
        if (in_block(i))
            on_ll[static_cast<std::size_t>(i / bpl)] += on_bblock[static_cast<std::size_t>(i)];
    int prev = rem + 1;
    while (rem > 0 && prev != rem) {
        prev = rem;
        int best = -1;
        bool best_fit = false, best_same = true;
        for (int i = 0; i < B; ++i) {
            if (!in_block(i) || required[static_cast<std::size_t>(i)])
                continue;
            bool fit = on_bblock[static_cast<std::size_t>(i)] >= rem;
            // _choose_best_bblock
            if (use_ll && !same(best, i)) {
                bool sb = false;
                for (int j = i & ~(bpl - 1); j < B && j <= (i | (bpl - 1)); ++j)
                    if (required[static_cast<std::size_t>(j)]) {
                        sb = true;
                        break;
                    }
                if (best == -1 || (sb && !best_same)) {
                    best = i, best_fit = fit, best_same = sb;
                    continue;
                }
                if (!sb && best_same)
                    continue;
                int bc = on_ll[static_cast<std::size_t>(best >> ll)], ic = on_ll[static_cast<std::size_t>(i >> ll)];
                bool ifit = ic >= rem, bfit = bc >= rem;
                if (ifit != bfit) {
                    if (ifit)
                        best = i, best_fit = fit, best_same = sb;
                    continue;
                }
                if (ic != bc) {
                    if (ifit ? ic < bc : ic > bc)
                        best = i, best_fit = fit, best_same = sb;
                    continue;
                }
            }
            int ib = on_bblock[static_cast<std::size_t>(i)];
            int bb = best >= 0 ? on_bblock[static_cast<std::size_t>(best)] : 0;
            if (best == -1 || (fit && !best_fit) || (!fit && !best_fit && ib >= bb) || (fit && ib <= bb))
                best = i, best_fit = fit;
        }
        if (best < 0 || (max_ll <= 0 && !best_same) || v.blocks[static_cast<std::size_t>(best)] < 0)
            break;
        required[static_cast<std::size_t>(best)] = 1;
        int got = 0;
        for (int h : c.island(v.blocks[static_cast<std::size_t>(best)]).hosts) {
            if (rem == 0)
                break;
            if (!free.is_free(h))
                continue;
            p.hosts.push_back(h);
            --rem;
            ++got;
        }
        if (req.explain) {
            Candidate cand;
            cand.island = v.blocks[static_cast<std::size_t>(best)];
            cand.free = on_bblock[static_cast<std::size_t>(best)];
            cand.verdict = "took " + std::to_string(got);
            p.considered.push_back(cand);
        }
        if (!best_same)
            --max_ll;
    }
    p.ok = rem == 0;
    if (!p.ok) {
        p.error = "slurm-block: " + std::to_string(rem) + " nodes left to place in the chosen block";
        p.hosts.clear();
    }
    std::sort(p.hosts.begin(), p.hosts.end());
    return p;
}

}  // namespace

std::unique_ptr<Policy> make_slurm_block_policy() { return std::make_unique<SlurmBlock>(); }

}  // namespace atl
