#include "placement/cost.hpp"

#include <algorithm>
#include <cmath>

namespace atl {

CostModel default_cost_model(FabricKind k)
{
    CostModel m;
    switch (k) {
    case FabricKind::InfiniBand: m.hop_latency_us = 1.0; break;
    case FabricKind::RoCE: m.hop_latency_us = 1.5; break;
    case FabricKind::Cloud: m.hop_latency_us = 25; break;
    }
    return m;
}

Estimate ring_allreduce(const Cluster &c, const Placement &p, double bytes, const CostModel &m)
{
    Estimate e;
    e.ranks = static_cast<int>(p.hosts.size());
    if (e.ranks < 2 || p.island < 0)
        return e;
    const PlaceIsland &is = c.island(p.island);
    e.switches = p.hops > 0 ? p.hops - 1 : 0;
    e.latency_us = e.switches * m.hop_latency_us;
    e.gbps = is.host_gbps;
    if (e.gbps <= 0) {
        e.gbps = m.assumed_gbps;
        e.assumed = true;
    }
    if (p.level != Level::Leaf)
        e.gbps /= is.oversub;
    double steps = 2.0 * (e.ranks - 1);
    double chunk_bits = bytes * 8 / e.ranks;
    e.seconds = steps * (e.latency_us * 1e-6 + chunk_bits / (e.gbps * 1e9));
    return e;
}

StepModel default_step_model(FabricKind k)
{
    StepModel m;
    m.hop_lat_us = default_cost_model(k).hop_latency_us;
    return m;
}

namespace {

// Everything the collectives need from a placement, whatever made it.
struct Shape {
    int nodes = 0;
    std::vector<int> per_leaf;   // job hosts per leaf spanned
    std::vector<double> up_GBps; // per leaf: uplink bandwidth left for this job's flows
    int switches = 0;            // on the longest path
    double host_GBps = 0;        // a host's NIC bandwidth, busBW
    bool assumed = false;
};

int log2i(int n)
{
    int l = 0;
    while (n >>= 1)
        ++l;
    return l;
}

StepEstimate estimate(const Shape &s, const JobShape &job, const StepModel &m)
{
    StepEstimate e;
    const int g = std::max(1, job.gpus_per_node), N = s.nodes, n = N * g;
    e.nodes = N;
    e.ranks = n;
    e.leaves = static_cast<int>(s.per_leaf.size());
    e.assumed = s.assumed;
    const double B = job.bytes;
    if (n < 2) {
        e.comm_s = 0;
    } else {
        // per-GPU bandwidth of each tier; a ring runs at its slowest link
        double bw = g > 1 ? m.nvlink_GBps : 1e30;
        if (N > 1) {
            e.inter_GBps = s.host_GBps / g;
            bw = std::min(bw, e.inter_GBps);
        }
        if (e.leaves > 1) {
            // each rail's ring enters and leaves every leaf once: g flows per
            // leaf share what the leaf's uplinks leave this job
            double up = 1e30;
            for (double u : s.up_GBps)
                up = std::min(up, u / g);
            e.uplink_GBps = std::min(up, e.inter_GBps);
            bw = std::min(bw, e.uplink_GBps);
        }
        double inter_lat = m.net_lat_us + s.switches * m.hop_lat_us;
        // ring: 2(n-1) steps, 2(N-1) of them over the network
        int steps = 2 * (n - 1), inter_steps = N > 1 ? 2 * (N - 1) : 0;
        double ring_lat = m.base_lat_us + (steps - inter_steps) * m.nvlink_lat_us + inter_steps * inter_lat;
        double ring_alg = bw * n / (2.0 * (n - 1));  // algBW = busBW x n / 2(n-1)
        e.ring_s = ring_lat * 1e-6 + B / (ring_alg * 1e9);
        // tree: half the bus bandwidth, log latency (NCCL's ratio .5)
        double tree_lat = m.base_lat_us + 2 * ((g - 1) * m.nvlink_lat_us + log2i(N) * inter_lat);
        e.tree_s = tree_lat * 1e-6 + B / (bw * 0.5 * 1e9);
        e.comm_s = std::min(e.ring_s, e.tree_s);
        e.algo = e.ring_s <= e.tree_s ? "ring" : "tree";
        if (job.all_to_all) {
            // every rank sends B/n to each other rank: (N-1)/N of a node's
            // g x B over its NICs, and out of a leaf of k job hosts
            // k(N-k)/N hosts' worth over its uplinks
            double t = g > 1 ? B * (g - 1) / n / (m.nvlink_GBps * 1e9) : 0;
            if (N > 1)
                t = std::max(t, g * B * (N - 1) / N / (s.host_GBps * 1e9));
            for (std::size_t i = 0; i < s.per_leaf.size() && e.leaves > 1; ++i) {
                double k = s.per_leaf[i];
                t = std::max(t, g * B * k * (N - k) / N / (s.up_GBps[i] * 1e9));
            }
            e.a2a_s = (n - 1) * inter_lat * 1e-6 / std::max(1, g) + t;
            e.comm_s = e.a2a_s;
            e.algo = "all-to-all";
        }
    }
    e.step_s = e.comm_s + std::max(0.0, job.compute_s);
    return e;
}

Shape shape_of(const Cluster &c, const std::vector<std::pair<int, int>> &per_leaf, int switches,
               const StepModel &m, const UplinkLoad *load)
{
    Shape s;
    double gbps = 0;
    for (const auto &pl : per_leaf) {
        s.nodes += pl.second;
        s.per_leaf.push_back(pl.second);
        const PlaceIsland &l = c.island(pl.first);
        gbps = gbps > 0 ? std::min(gbps, l.host_gbps) : l.host_gbps;
    }
    if (gbps <= 0) {
        gbps = m.assumed_gbps;
        s.assumed = true;
    }
    s.host_GBps = gbps / 8 * m.net_efficiency;
    for (const auto &pl : per_leaf) {
        const PlaceIsland &l = c.island(pl.first);
        // the leaf's uplink ratio is kept on the islands above it
        double os = l.parent >= 0 ? c.island(l.parent).oversub : 1;
        double up = c.capacity(pl.first) * s.host_GBps / std::max(1.0, os);
        // the job's own g flows against the others': without a load, every
        // other host of the leaf sends one host's worth across too
        int others = load ? (*load)[static_cast<std::size_t>(pl.first)] : c.capacity(pl.first) - pl.second;
        double demand = std::max(0, others) * s.host_GBps + s.host_GBps;
        s.up_GBps.push_back(std::min(s.host_GBps, up * s.host_GBps / std::max(demand, up)));
    }
    s.switches = switches;
    return s;
}

}  // namespace

StepEstimate step_time(const Cluster &c, const Placement &p, const JobShape &job, const StepModel &m,
                       const UplinkLoad *load)
{
    StepEstimate best = best_step_time(c, static_cast<int>(p.hosts.size()), job, m);
    JobShape j = job;
    if (j.compute_s < 0)
        j.compute_s = best.comm_s * (1 - job.comm_share) / std::max(1e-9, job.comm_share);
    return estimate(shape_of(c, p.per_leaf, p.hops > 0 ? p.hops - 1 : 0, m, load), j, m);
}

StepEstimate best_step_time(const Cluster &c, int nodes, const JobShape &job, const StepModel &m)
{
    // the fewest leaves, largest first, each full, nobody else on the uplinks
    std::vector<std::pair<int, int>> caps;
    for (int l : c.at(Level::Leaf))
        caps.push_back({c.capacity(l), l});
    std::sort(caps.begin(), caps.end(), [](const auto &a, const auto &b) { return a.first > b.first; });
    std::vector<std::pair<int, int>> per_leaf;
    int rem = nodes;
    for (const auto &cl : caps) {
        if (rem <= 0)
            break;
        int k = std::min(rem, cl.first);
        per_leaf.push_back({cl.second, k});
        rem -= k;
    }
    UplinkLoad none(c.islands().size(), 0);
    int switches = per_leaf.size() > 1 ? 3 : nodes > 1 ? 1 : 0;
    JobShape j = job;
    Shape s = shape_of(c, per_leaf, switches, m, &none);
    if (j.compute_s < 0) {
        StepEstimate comm = estimate(s, j, m);
        j.compute_s = comm.comm_s * (1 - job.comm_share) / std::max(1e-9, job.comm_share);
    }
    return estimate(s, j, m);
}

double slowdown(const Cluster &c, const Placement &p, const JobShape &job, const StepModel &m, const UplinkLoad *load)
{
    double best = best_step_time(c, static_cast<int>(p.hosts.size()), job, m).step_s;
    double here = step_time(c, p, job, m, load).step_s;
    return best > 0 ? here / best : 1;
}

UplinkLoad uplink_load(const Cluster &c, const std::vector<std::vector<int>> &running)
{
    UplinkLoad load(c.islands().size(), 0);
    std::vector<int> leaves;
    for (const std::vector<int> &job : running) {
        leaves.clear();
        for (int h : job)
            if (h >= 0 && static_cast<std::size_t>(h) < c.host_count() && c.leaf_of(h) >= 0)
                leaves.push_back(c.leaf_of(h));
        std::sort(leaves.begin(), leaves.end());
        leaves.erase(std::unique(leaves.begin(), leaves.end()), leaves.end());
        if (leaves.size() > 1)
            for (int l : leaves)
                ++load[static_cast<std::size_t>(l)];
    }
    return load;
}

double span_slowdown(const Cluster &c, int nodes, const JobShape &job, const StepModel &m)
{
    int k = c.min_leaves(nodes) + 1;
    std::vector<int> leaves = c.at(Level::Leaf);
    if (nodes < 2 || k < 2 || static_cast<std::size_t>(k) > leaves.size())
        return 1;
    std::stable_sort(leaves.begin(), leaves.end(), [&](int a, int b) { return c.capacity(a) > c.capacity(b); });
    Placement p;
    int rem = nodes;
    for (int i = 0; i < k; ++i) {
        int give = std::min(c.capacity(leaves[static_cast<std::size_t>(i)]), (rem + (k - i) - 1) / (k - i));
        p.per_leaf.push_back({leaves[static_cast<std::size_t>(i)], give});
        rem -= give;
        for (int h = 0; h < give; ++h)
            p.hosts.push_back(0);  // only the count matters to step_time
    }
    if (rem > 0)
        return 1;
    p.hops = c.hops(p.per_leaf.front().first, p.per_leaf.back().first);
    return slowdown(c, p, job, m);
}

}  // namespace atl
