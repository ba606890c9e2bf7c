#include "placement/cost.hpp"

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

}  // namespace atl
