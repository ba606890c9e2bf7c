// Trace replay: an event-driven cluster with FCFS and EASY backfill, the same
// for every policy, so the policies differ only in which hosts a job gets.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "placement/policy.hpp"
#include "placement/trace.hpp"

namespace atl {

// One started job, for --jobs: where it ran and what it spanned.
struct JobRecord {
    std::string id;
    double submit = 0, start = 0, duration = 0;
    int nodes = 0, leaves = 0, min_leaves = 0, pods = 0, hops = 0;
};

struct SimOptions {
    double load = 0;           // offered load to scale arrivals to (0: as in the trace)
    double jitter = 0;         // each inter-arrival gap times U(1-j, 1+j), drawn from seed
    std::uint64_t seed = 0;
    double island_wait = 0;    // a job waits up to this long for its smallest island (like --switches=1@time)
    bool required = false;     // a job never leaves its smallest island level (a matching-OR constraint)
    double leaf_wait = 0;      // a job waits up to this long for the fewest leaves that can hold it
    int bf_depth = 500;        // queued jobs looked at per backfill pass (Slurm's bf_max_job_test)
    bool conservative = false; // backfill plans every queued job it looks at (Slurm's), not only the head (EASY)
    double bf_window = 0;      // conservative: no plan starts later than this after now (Slurm's bf_window; 0: any)
    double min_age_reserve = 0; // a job pending less long neither stops FCFS nor gets a plan (Slurm's bf_min_age_reserve)
    int bf_reserve = 0;        // conservative: plans per pass, the jobs after them may only start now
                               // (Slurm's bf_job_part_count_reserve; 0: every job it looks at)
    double bf_interval = 0;    // seconds between backfill passes (Slurm's bf_interval; 0: at every event)
    double span_slowdown = 0;  // a job on more leaves than its fewest runs this much longer (0.2: 20 %)
    // The step model (placement/cost.hpp): with comm_share > 0 a job's trace
    // duration is its time on the best placement of its size, comm_share of
    // it communication, and it runs as long as the model says for where it
    // landed and who shares its leaves' uplinks (every other job spanning a
    // leaf sends one ring's worth across it).
    double comm_share = 0;
    int gpus_per_node = 8;
    bool all_to_all = false;   // the jobs' communication is all-to-all (expert parallelism), not all-reduce
    bool busy_fabric = false;  // each job's slowdown under the busy-fabric assumption (every other host of
                               // its leaves crossing their uplinks): what a job works out from its own
                               // allocation alone (atoll-place cost), as the real replay's jobs do
    bool model_wait = false;   // auto_wait() (slurm/ask.hpp) at a job's submit, as cli_filter.lua: it waits
                               // for its island only while the expected wait (the running jobs' planned
                               // ends, the jobs queued before it) costs less than spanning now, (span_slowdown - 1) x its
                               // duration, and at most island_wait; otherwise it asks nothing
    // Slurm's own node choice inside atoll's requests (the policy then only
    // ranks the constraint's islands: the job gets the first that holds it,
    // and `select`, slurm-tree, picks its hosts there); null: the policy's hosts
    Policy *select = nullptr;
    // With `select`: the constraint's islands in the order the policy gave
    // them at submit (as cli_filter.lua lists them), Slurm taking the first
    // listed island that holds the job when it starts (node_scheduler.c's
    // matching-OR loop; backfill's earliest start, ties to the first). Off:
    // the policy ranks them again on the state at each try.
    bool rank_at_submit = false;
    std::size_t max_jobs = 0;  // first N jobs that fit the pool (0: all)
    Split split = Split::Pack; // how spanning jobs are divided (policies that choose)
    std::vector<JobRecord> *records = nullptr;  // when set, one per started job
};

struct SimMetrics {
    std::string policy;
    std::uint64_t seed = 0;
    int jobs = 0, skipped = 0, multi = 0;   // replayed; larger than the pool; multi-node
    int leaf_fit = 0, leaf_fit_one = 0;     // multi-node jobs a leaf island can hold; those in one
    int pod_fit = 0, pod_fit_one = 0;       // jobs larger than a leaf that a pod can hold; those in one
    // NVLink domains (only when the fabric has them): multi-node jobs a
    // domain can hold and those in one; larger jobs and those in the fewest
    // domains (ceil(nodes / largest domain))
    int domain_fit = 0, domain_fit_one = 0;
    int domain_span = 0, domain_span_fewest = 0;
    double domain_pct = 100, domain_fewest_pct = 100;
    int widened = 0;                        // jobs that gave up waiting for their island
    double leaf_pct = 0, pod_pct = 0;       // 100 when there was no such job
    double excess_leaves = 0;               // per multi-node job, over the fewest possible
    int max_hops = 0;
    double mean_hops = 0;                   // multi-node jobs
    double utilisation = 0;                 // busy host-seconds / (pool x makespan)
    double mean_wait = 0, bounded_slowdown = 0;
    double mean_turnaround = 0;             // wait + run time (longer when spanning, with span_slowdown)
    double fragmentation = 0;               // time-mean share of the pool free but unusable in one leaf
    double offered_load = 0;                // after scaling
    double makespan = 0;
    double gpu_hours_lost = 0;              // GPU-hours spent beyond the best placement (comm_share > 0)
};

SimMetrics simulate(const Cluster &c, const std::vector<Job> &trace, Policy &policy, const SimOptions &opt);

// How much of a trace can reach the fewest leaves only on the fabric's
// largest leaves: a job of n nodes whose k fewest leaves cannot include a
// smaller one ((k-1) largest + the next size < n). When that share of the
// work times the utilisation exceeds the largest leaves' share of the hosts,
// some of those jobs must span more leaves than the fewest, whatever the
// policy: they would need those leaves busy all the time.
struct LeafDemand {
    bool mixed = false;         // leaves of more than one size
    int largest = 0;            // hosts in the largest leaves
    int largest_leaves = 0, leaves = 0;
    double host_share = 0;      // of the pool, in the largest leaves
    double work_share = 0;      // of node-seconds (jobs that fit the pool), in such jobs
};
LeafDemand leaf_demand(const Cluster &c, const std::vector<Job> &trace);

// Mean and 95 % confidence half-width (Student t) of a sample.
struct Stat {
    double mean = 0, ci = 0;
};
Stat stat_of(const std::vector<double> &v);

}  // namespace atl
