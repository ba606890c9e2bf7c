// atoll placement policies: which free hosts a multi-node job gets. The same
// code serves atoll-place, the simulator and the SPANK plugin.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "placement/cluster.hpp"

namespace atl {

// How strictly a job wants one island of `level`:
//   Auto:      the smallest island that can hold it, any level.
//   Preferred: one island of `level` or smaller when one has room, else Auto
//              (the caller may wait a bounded time before asking again).
//   Required:  one island of `level` or smaller, or no placement.
enum class Fit : std::uint8_t { Auto, Preferred, Required };
const char *to_string(Fit f);

// How a job that spans leaves is divided: Pack (the default) is Slurm's best
// fit, the fullest leaves first (12 over two leaves with 10 free: 10+2), so
// that what is left stays together for the next job; Even balances the
// leaves (6+6), which left more part-used leaves and more extra leaves per
// job than Slurm's topology/tree on every trace of bench-place.
enum class Split : std::uint8_t { Even, Pack };
const char *to_string(Split s);

struct Request {
    int nodes = 1;
    Level level = Level::Fabric;
    Fit fit = Fit::Auto;
    int max_per_leaf = 0;  // spread: at most this many hosts per leaf island (0: no limit)
    int max_leaves = 0;    // at most this many leaf islands, like Slurm's --switches=N (0: no limit)
    Split split = Split::Pack;
    bool explain = true;   // fill Placement::notes and considered (false: the hosts alone, faster)
    bool island_only = false;  // the hosts and the island holding them (locate()), not describe()'s counts
};

struct Candidate {           // an island weighed by the policy, for --explain
    int island = -1;
    int free = 0;
    std::string verdict;     // "chosen", "fits, 3 left over", "too small", ...
};

struct Placement {
    bool ok = false;
    std::vector<int> hosts;         // ascending host indices
    std::string error;              // why not, when !ok
    // filled by describe():
    int island = -1;                // smallest island holding every host
    Level level = Level::Leaf;
    int leaves = 0, groups = 0, pods = 0;  // islands spanned at each level
    int domains = 0;                // NVLink domain islands spanned (0: the fabric has none)
    bool domain_hosts_only = true;  // every host is in a domain island
    int hops = 0;                   // cables on the longest host-to-host path
    std::vector<std::pair<int, int>> per_leaf;  // (leaf island, hosts), by leaf
    // the policy's reasoning, for --explain:
    std::vector<std::string> notes;
    std::vector<Candidate> considered;
};

// A user's island request: the value of the plugin's --fabric-island (and of
// atoll-place --island), LEVEL[:required|:preferred] | auto | none.
struct IslandRequest {
    bool set = false;        // given on the command line (else the admin default applies)
    bool none = true;        // no island placement
    bool auto_level = false; // the smallest level that can hold the job
    Level level = Level::Leaf;
    bool required = true;
    std::string str() const; // "leaf:required", "auto", "none"
};
// Throws std::invalid_argument with a message naming the flag.
IslandRequest parse_island(const std::string &value);


// Fill island, level, spans, hops and per_leaf from hosts.
void describe(const Cluster &c, Placement &p);
// Fills p.island and p.level alone (describe() does it too)
void locate(const Cluster &c, Placement &p);

class Policy {
public:
    virtual ~Policy() = default;
    virtual const char *name() const = 0;
    // Whether a leaf limit (Request::max_leaves, Slurm's --switches) holds
    // the policy: topology/block ignores --switches, its blocks decide.
    virtual bool takes_switches() const { return true; }
    // A what-if: decides without changing `free`. Never throws for a request
    // that cannot be met; returns ok == false with an error instead.
    Placement place(const FreeState &free, const Request &req);
    // The policy's hosts alone (unsorted, no describe(), none of place()'s
    // checks): for a policy that runs inside another's choice.
    Placement choose_hosts(const FreeState &free, const Request &req) { return choose(free, req); }

protected:
    virtual Placement choose(const FreeState &free, const Request &req) = 0;
};

// The islands of `level` that could hold n nodes, best first: those with room
// now in the order `policy` would choose them (its choice, then its choice
// with that island taken away, ...), then the others healthy first, smallest
// first. A matching-OR constraint in this order makes Slurm start the job in
// the first island that has room: the policy's choice.
std::vector<int> rank_islands(Policy &policy, const FreeState &free, Level level, int n);

// "atoll", "slurm-tree", "first-fit", "random" (seeded): policy_names(), the
// policies of the plugin's policy= and the requests table; and "slurm-block",
// Slurm's topology/block choice on the fabric's block layout, for atoll-place
// place and simulate only (the plugin asks nothing for Slurm's own choice).
std::unique_ptr<Policy> make_policy(const std::string &name, const Cluster &c, std::uint64_t seed = 1);
const std::vector<std::string> &policy_names();

}  // namespace atl
