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
#include <string>
#include <vector>

#include "placement/cluster.hpp"
#include "placement/policy.hpp"

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
};

// The request `ir` (its text `request` for messages) for n nodes, the
// islands ranked by `policy` on `free`. slurm-tree is Slurm's own choice:
// no constraint, --switches=1@island_wait when one leaf can hold the job.
SlurmAsk slurm_ask(const Cluster &c, Policy &policy, const FreeState &free, const IslandRequest &ir,
                   const std::string &request, int n);

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
//   REQUEST POLICY FROM TO LEVEL K WAIT CONSTRAINT WIDEN
// K the --switches count (0: none), WAIT island|leaf|-, CONSTRAINT a|b|c or
// "-", WIDEN "-" (no mark), "*" (mark, then no constraint) or x|y (mark,
// then that constraint). random's islands are listed by name: job_submit.lua
// shuffles them per job, as the policy would.
void write_requests_table(std::ostream &out, const Cluster &c);

// One row of the table, read back (the unit tests compare it with slurm_ask()).
struct TableRow {
    std::string request, policy;
    int from = 0, to = 0;
    SlurmAsk ask;
};
// Throws std::invalid_argument naming source:line on a malformed row.
std::vector<TableRow> read_requests_table(std::istream &in, const Cluster &c, const std::string &source);

}  // namespace atl
