// A fabric cost model for --explain: how long a ring all-reduce of a given
// size would take on a placement. Coarse by design: it ranks placements, it
// does not predict NCCL to the microsecond.
#pragma once

#include <string>
#include <vector>

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

// ---- A training step on a placement ----------------------------------------
//
// The collectives NCCL runs for a data-parallel step, with NCCL's own model
// (src/graph/tuning.cc, NVIDIA/nccl at 5067397c): ring all-reduce moves
// 2(n-1)/n of the bytes through every rank (busBW = algBW x 2(n-1)/n) in
// 2(n-1) steps, of which 2(N-1) cross the network for N nodes; tree
// all-reduce runs at half the bus bandwidth (NCCL's ratio .5) with latency
// 2((g-1) intra + log2(N) inter). The intra-node part goes over NVLink, the
// inter-node part over each GPU's NIC (its rail), and the part that leaves a
// leaf over the leaf's uplinks, shared by every job that crosses them.
// Hosts of one multi-node NVLink domain are one NVLink node to NCCL (MNNVL):
// its rings cross the network only between domains, each crossing carried
// by all of the domain's job hosts' NICs, so the network's bus bandwidth is
// the smallest domain part's hosts x a host's (NVIDIA/nccl#1801: GB200
// partitions of 1 and 2 nodes over InfiniBand, ring busBW 196.7 and 393.7
// GB/s); a job inside one domain never uses the network.

struct StepModel {
    double nvlink_GBps = 360;     // per GPU, NCCL busBW inside a DGX H100 (nccl-tests#290 reports 476 with NVLS)
    double domain_GBps = 835;     // per GPU, NCCL busBW across a whole GB200 NVL72 domain, 72 GPUs: 835-847 GB/s
                                  // at 4-8 GB (coreweave/nccl-tests#43); hosts in a domain are NVLink 5 inside too
    double net_efficiency = 0.94; // busBW / NIC line rate: 46-48 GB/s on a 400 Gb/s NDR NIC (nccl-tests#290)
    double base_lat_us = 8.4;     // NCCL baseLatencies, Ring and Tree, Simple protocol
    double nvlink_lat_us = 3.4;   // NCCL hwLatencies NVLINK, Ring, Simple (Tree: 4.0)
    double net_lat_us = 14.0;     // NCCL hwLatencies NET, Ring and Tree, Simple
    double hop_lat_us = 1.0;      // per switch crossed (a guess: ~1 us InfiniBand, 1.5 RoCE, 25 cloud)
    double assumed_gbps = 100;    // host bandwidth when the fabric does not say
};
StepModel default_step_model(FabricKind k);

// What a job is: its GPUs per node, the bytes it all-reduces per step
// (gradients) and its compute per step, or instead the share of a step that
// communication takes on the best placement of its size (0..1).
struct JobShape {
    int gpus_per_node = 8;
    double bytes = 1e9;
    double compute_s = -1;     // < 0: use comm_share
    double comm_share = 0.3;
    bool all_to_all = false;   // expert parallelism: all-to-all of `bytes` per rank instead
};

// Hosts on a leaf whose jobs already send across its uplinks (other jobs),
// by leaf island; empty: the busy-fabric assumption, every other host of a
// leaf crosses its uplinks too (the fair share is host bandwidth / oversub).
using UplinkLoad = std::vector<int>;

// The load running jobs put on the leaves' uplinks: every job on more than
// one leaf sends one ring's worth across each of its leaves' uplinks (hosts
// the fabric does not place are left out).
UplinkLoad uplink_load(const Cluster &c, const std::vector<std::vector<int>> &running);

struct StepEstimate {
    int nodes = 0, ranks = 0, leaves = 0;
    int domains = 0;                           // NVLink domains spanned (0: none of the hosts is in one)
    int outside = 0;                           // on a fabric with domains, hosts in none
    double ring_s = 0, tree_s = 0, a2a_s = 0;  // the collective alone
    double comm_s = 0;                         // what NCCL would pick (min of ring and tree), or all-to-all
    double step_s = 0;                         // compute + comm
    double inter_GBps = 0;                     // per GPU across nodes: over the network (across domains
                                               // when in them), or NVLink inside one domain
    double uplink_GBps = 0;                    // per GPU across leaves (0: one leaf)
    const char *algo = "none";
    bool assumed = false;                      // the host bandwidth is the model's assumption
};

// The step on these hosts (a Placement filled by describe()).
StepEstimate step_time(const Cluster &c, const Placement &p, const JobShape &job, const StepModel &m,
                       const UplinkLoad *load = nullptr);
// The same number of hosts on the best placement the fabric has (the fewest
// leaves of the fastest hosts, an empty fabric).
StepEstimate best_step_time(const Cluster &c, int nodes, const JobShape &job, const StepModel &m);
// step_time(p) / best_step_time(p's size): 1 when nothing is lost (never
// under 1: a placement as fast as the best loses nothing).
double slowdown(const Cluster &c, const Placement &p, const JobShape &job, const StepModel &m,
                const UplinkLoad *load = nullptr);

// What spanning costs these hosts: their step against the best placement of
// the same size on hosts no faster than theirs (slower hosts are no reason
// to wait for an island of the same hosts). What auto weighs.
double span_slowdown_of(const Cluster &c, const Placement &p, const JobShape &job, const StepModel &m,
                        const UplinkLoad *load = nullptr);

// The slowdown of `nodes` hosts spread over one leaf more than the fewest
// (the largest leaves, as even as they allow, or full with one host on the
// extra leaf, as Slurm's best fit leaves it on a fragmented fabric), the
// leaves' other hosts crossing their uplinks too: what spanning now costs a job that could have
// waited for its island. 1 plus a few microseconds' worth on a non-blocking
// fabric; 1 for a job that fits one host.
double span_slowdown(const Cluster &c, int nodes, const JobShape &job, const StepModel &m);
// The slowdown of `nodes` hosts on the fewest leaves as Slurm's best fit
// takes them (the fullest leaves whole, then the rest), the leaves' other
// hosts crossing their uplinks too: what waiting for the island buys on a
// busy fabric, where even the island's placement is slower than an idle
// fabric's.
double island_slowdown(const Cluster &c, int nodes, const JobShape &job, const StepModel &m);

}  // namespace atl
