// A fabric cost model for --explain: how long a ring all-reduce of a given
// size would take on a placement. Coarse by design: it ranks placements, it
// does not predict NCCL to the microsecond.
#pragma once

#include <string>

#include "placement/policy.hpp"

namespace atl {

struct CostModel {
    double hop_latency_us = 1.0;   // per switch on the path: ~1 us InfiniBand, 1-2 RoCE, 10-50 cloud
    double assumed_gbps = 100;     // host bandwidth when the fabric does not say (CSV, LLDP without speed)
};
CostModel default_cost_model(FabricKind k);

struct Estimate {
    int ranks = 0;              // nodes in the ring
    int switches = 0;           // switches on the longest hop of the ring
    double latency_us = 0;      // per step
    double gbps = 0;            // per host, after oversubscription
    bool assumed = false;       // gbps is the model's assumption
    double seconds = 0;         // whole all-reduce
};

// Ring all-reduce over the placement's hosts: 2(N-1) steps, each moving
// bytes/N over the slowest link at latency hops x hop_latency.
Estimate ring_allreduce(const Cluster &c, const Placement &p, double bytes, const CostModel &m);

}  // namespace atl
