// What atoll asks Slurm for an island request: the one author of it. An
// island request (--fabric-island), a node count and the fabric become a
// refusal, or a matching-OR constraint over islands, a --switches=K@WAIT and
// an atoll-widen mark. Callers:
//   atoll-place --slurm   on the live idle nodes, for cli_filter.lua
//   atoll-topo slurm --format requests   the same on an idle fabric for every
//                         request, policy and node count: the table
//                         job_submit.lua looks up and applies
// Depends on placement/ (the policies rank the islands).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <set>
#include <string>
#include <vector>

#include "placement/cluster.hpp"
#include "placement/cost.hpp"
#include "placement/policy.hpp"
#include "topology/topology.hpp"

namespace atl {

// Which of the site's waits a --switches count waits for.
enum class SwitchWait : std::uint8_t { None, Island, Leaf };

struct SlurmAsk {
    bool none = false;             // --fabric-island=none: nothing is asked
    std::string refuse;            // non-empty: refuse the job (a user's mistake), this says why
    Level level = Level::Leaf;     // the level asked for (auto: the smallest that holds the job)
    std::vector<int> constraint;   // islands for a matching-OR constraint, best first (empty: none)
    int switches = 0;              // --switches=K (0: none)
    SwitchWait wait = SwitchWait::None;  // ... @island_wait or @leaf_wait
    bool widen = false;            // mark the job for atoll-widen (a preferred group or pod)
    std::vector<int> wider;        // what atoll-widen swaps in (empty: no constraint at all)
    int segment = 0;               // --segment=N (topology/block: each N nodes in one block; 0: none)
};

// Slurm keeps what a matching-OR constraint's features give in a bitmap of
// MAX_FEATURES = 64 bits (src/slurmctld/node_scheduler.c, _valid_features(),
// 22.05 to 26.05) and sets a bit per feature of the brackets: with more it
// writes past the bitmap (slurmctld 22.05 died at submit of "[f1|...|f70]").
// atoll-place --slurm names the best kMaxMatchingOr islands at most (the
// table keeps every island: job_submit.lua gives each job a turn of 64).
constexpr std::size_t kMaxMatchingOr = 64;

// A site that runs topology/block (23.11+) on atoll's block file. Slurm's
// block plugin puts a job of n nodes in one block of the smallest configured
// level whose blocks hold ceil(n / base) base blocks (consecutive blocks in
// the file's order, aggregated in powers of two), and waits for one; it never
// spans wider, and --switches means nothing to it. So atoll asks less there:
//   - nothing for an island Slurm's blocks already give: a job of at most
//     `base` nodes is in one block, one leaf; a larger one in one pod when
//     every aggregated block of its level lies in one pod (atoll-topo keeps
//     only such levels). A preferred request cannot widen beyond that.
//   - otherwise the constraint over the level's islands (leaves: those
//     written as blocks), a preferred one marked for atoll-widen, no --switches;
//   - --segment=base for a required group or pod of a multiple of `base`
//     nodes above it: each base-sized part in one block, the fewest blocks
//     (Slurm's own rule only bounds the blocks of the level below the
//     aggregate). Slurm waits for that without a time bound, so auto and
//     preferred requests do not get it. With more than one segment the Lua
//     hooks add --consolidate-segments where Slurm has it (25.11 and later:
//     every segment in one aggregated block of the level that holds the
//     whole job, eval_nodes_block.c), found by the option itself, not by
//     the release number;
//   - policy slurm-tree: nothing (Slurm's own choice is the block plugin's).
struct BlockSite {
    int base = 0;                     // nodes of the base block (BlockSizes' first)
    std::vector<std::string> blocks;  // leaf islands written as blocks, in the file's order
    std::vector<int> levels;          // aggregation levels of BlockSizes (0 first)
};
// The blocks of atoll-topo --format block [--block-size N] for this fabric
// (base_nodes 0: the default). Throws std::invalid_argument as block_layout().
// placeholders: the layout of --slurm-version 25.05 and later (a placeholder
// block is "" in blocks).
BlockSite block_site(const Topology &t, int base_nodes = 0, bool placeholders = false);
// The same with a site's BlockSizes (the first the base; the levels those of
// the sizes that are the base times a power of two); empty: block_site(t).
BlockSite block_site(const Topology &t, const std::vector<int> &block_sizes);

// What a job's partition runs, from slurm.conf and what lies beside it: a
// topology.yaml there (Slurm 25.05+ reads it in place of TopologyPlugin)
// gives the partition's Topology= (PartitionName line; no partition: the
// Default=YES one), else the cluster_default topology; without one,
// TopologyPlugin=topology/block with BlockSizes= of TopologyConf (default
// topology.conf beside slurm.conf). block_sizes empty: none written.
struct SiteTopology {
    bool block = false;
    std::vector<int> block_sizes;  // BlockSizes= (empty: none)
    std::string name;              // the topology.yaml entry, or the plugin
};
SiteTopology read_site_topology(const std::string &slurm_conf, const std::string &partition = "");
// Slurm's max_switch_wait (SchedulerParameters), in seconds: 300 where slurm.conf
// sets none, as slurmctld's _max_switch_wait() reads it (the first
// "max_switch_wait=" in the value, any case, atoi; a negative one ignored).
// Slurm cuts every --switches=K@WAIT to it, a longer island or leaf wait too.
long max_switch_wait(const std::string &slurm_conf);
// Every partition of slurm.conf with what it runs (the settings for job_submit.lua).
std::vector<std::pair<std::string, SiteTopology>> partition_topologies(const std::string &slurm_conf);

// The request `ir` (its text `request` for messages) for n nodes, the
// islands ranked by `policy` on `free`. slurm-tree is Slurm's own choice:
// no constraint, --switches=1@island_wait when one leaf can hold the job.
// `block` set: the site runs topology/block (above); null: topology/tree.
SlurmAsk slurm_ask(const Cluster &c, Policy &policy, const FreeState &free, const IslandRequest &ir,
                   const std::string &request, int n, const BlockSite *block = nullptr);

// ---- auto: whether an island is worth its wait (issue 26) -----------------
//
// The step model (placement/cost.hpp) decides. Spanning one leaf more than
// the fewest costs a job (span_slowdown - 1) x its run time; waiting for its
// island costs the expected wait. auto waits only while the wait is the
// cheaper, and never longer than the site's island_wait (the upper bound).
// On a fabric where spanning costs a communication-bound job (communication
// kFreeSpanShare of its step) under kFreeSpan of its run time, auto asks
// nothing at all: Slurm's own choice is as good.
constexpr double kFreeSpan = 0.01;
constexpr double kFreeSpanShare = 0.7;
// span_slowdown(c, n) of a communication-bound job under 1 + kFreeSpan, on
// a fabric that gives its leaves' link speeds (else: unknown, not free).
bool spanning_free(const Cluster &c, int n);
// spanning_free() for every node count 1..last, computed ahead on `threads`
// threads (0: the machine's cores, at most 8; fewer than 2: nothing ahead),
// kept for this thread's later calls (the requests table, at 4,096 hosts
// and more)
void spanning_free_ahead(const Cluster &c, int last, unsigned threads = 0);
// The wait bound for auto's island: 0 (do not wait: ask nothing) when
// span_cost = span_slowdown - 1 is under kFreeSpan, or when expected_s (the
// expected wait for the island; < 0: unknown, taken as 0) is at least
// span_cost x run_s; else min(island_wait_s, span_cost x run_s).
double auto_wait(double span_cost, double run_s, double expected_s, double island_wait_s);
// What spanning now costs a job of n nodes (the span_cost of auto_wait()):
// Slurm's own choice on the free hosts now (slurm-tree) priced by the step
// model under `load` (the running jobs' crossings, uplink_load(); null: the
// busy-fabric assumption), less 1. When that choice is one leaf (the job
// fits one now), what it risks should those hosts go before it starts:
// Slurm's choice outside every leaf that holds it, priced the same.
// span_slowdown(c, n) - 1 when the free hosts cannot hold it. level:
// the island auto asks for; an NVLink domain's (Level::Domain) is judged
// by domains (one domain now, Slurm's choice outside every domain that
// holds it), every other level's by leaves.
double span_cost_now(const Cluster &c, const FreeState &free, int n, const JobShape &job, const StepModel &m,
                     const UplinkLoad *load, Level level = Level::Leaf);
// The expected wait for an island of `level` that holds n free hosts: the
// time from now at which, as the running jobs end (ends: seconds from now
// and the hosts that job frees, any order), one island of the level first
// has n free hosts (a host frees up when the last job on it ends: jobs may
// share a node). 0 when one has them now; infinity when never. No queue:
// island_extra_wait() adds it.
double expected_island_wait(const Cluster &c, const FreeState &free, Level level, int n,
                            const std::vector<std::pair<double, std::vector<int>>> &ends);

// Slurm's time format (squeue %L, --time): MM, MM:SS, HH:MM:SS, D-HH,
// D-HH:MM, D-HH:MM:SS, in seconds; -1 for UNLIMITED, NOT_SET, INVALID or
// anything else Slurm would not write.
long slurm_seconds(const std::string &text);
// The running jobs of `squeue -h -t R -o '%N %L'` (NODELIST TIMELEFT a
// line) as ends for expected_island_wait(): hosts the fabric does not know
// are skipped, an unlimited job never ends. Throws std::invalid_argument
// naming source:line on a line that is not two words.
std::vector<std::pair<double, std::vector<int>>> read_running(std::istream &in, const Cluster &c,
                                                               const std::string &source);

// A job waiting in Slurm's queue, as auto's expected wait sees it.
struct PendingJob {
    int nodes = 0;
    double limit = -1;  // its time limit in seconds; < 0: not known (never frees its hosts)
};
// The pending jobs of `squeue -h -r -t PD -O "NumNodes:|,Reason:|,TimeLimit:|"`
// (Slurm's own output: NODES|REASON|TIMELIMIT| a line; a range of nodes: its
// minimum; TIMELIMIT UNLIMITED, or a line of two fields NODES|REASON|, as
// atoll 2026-12-06 and older asked: never frees its hosts). Only a job
// whose reason is None, Priority or Resources waits for nodes; any other
// (held, a dependency, a limit, a reservation, a node down) is left out.
// Throws std::invalid_argument naming source:line on a line of another form.
std::vector<PendingJob> read_pending(std::istream &in, const std::string &source);
// What waiting for an island adds to the job's wait: when, as the running
// jobs end (ends, as for expected_island_wait()), one island of `level`
// first has n hosts free, less when n are first free anywhere (a job that
// cannot start now loses only the difference: helper 39, 16 hosts free for
// 18 nodes, 24 free in 2:50 and a domain whole in 3:00, was priced at 3
// hours). The queue (every pending job, whatever it asked: before the job
// by priority, after it by backfill) does not take the hosts free now (it
// was tried on them), but takes the hosts that free up, each job as soon as
// they hold it, in order (the fullest island that holds it, else the
// islands with most free first), and gives them back after its time limit
// (never when not known). Counting the queue's nodes off the first hosts to
// free up, for ever, had priced a long queue's island far too late: on the
// NVL72 stream the weighed auto dropped 62 of 173 domain asks at the first
// try and lost two thirds of what a fixed wait won. `anywhere` (may be
// null) gets the second wait.
// (the queue's first kModelledQueue jobs are modelled)
constexpr std::size_t kModelledQueue = 10000;
double island_extra_wait(const Cluster &c, const FreeState &free, Level level, int n,
                         const std::vector<std::pair<double, std::vector<int>>> &ends,
                         const std::vector<PendingJob> &queue, double *anywhere = nullptr);

// What is asked, up to the order of the constraint's islands (index order
// here, no policy consulted): the trace replay's request model, so that it
// schedules what job_submit.lua and cli_filter.lua would ask.
SlurmAsk slurm_ask_unranked(const Cluster &c, const IslandRequest &ir, const std::string &request, int n);

// "[a|b|c]" for a matching-OR constraint; "" for none.
std::string constraint_text(const Cluster &c, const std::vector<int> &islands);
// Slurm's MM:SS for --switches=K@TIME (minutes may exceed 59).
std::string mm_ss(long seconds);

// The requests job_submit.lua handles, in the order the table lists them.
const std::vector<std::string> &table_requests();

// The table (atoll-requests.conf): for every request of table_requests(),
// policy of policy_names() and node count from 1 to the fabric's compute
// hosts, slurm_ask() on the idle fabric, runs of node counts with the same
// answer on one line:
//   REQUEST POLICY FROM TO refuse MESSAGE...
//   REQUEST POLICY FROM TO LEVEL K WAIT CONSTRAINT WIDEN SEGMENT
// K the --switches count (0: none), WAIT island|leaf|-, CONSTRAINT a|b|c or
// "-", WIDEN "-" (no mark), "*" (mark, then no constraint) or x|y (mark,
// then that constraint), SEGMENT the --segment size (0: none). random's
// islands are listed by name: job_submit.lua shuffles them per job, as the
// policy would. A header line "# topology: tree" or "# topology: block BASE"
// says which Slurm topology the answers are for.
void write_requests_table(std::ostream &out, const Cluster &c, const BlockSite *block = nullptr);

// One row of the table, read back (the unit tests compare it with slurm_ask()).
struct TableRow {
    std::string request, policy;
    int from = 0, to = 0;
    SlurmAsk ask;
};
// Throws std::invalid_argument naming source:line on a malformed row.
std::vector<TableRow> read_requests_table(std::istream &in, const Cluster &c, const std::string &source);

}  // namespace atl
