// atoll placement: the view of a fabric that placement needs, built once from
// a Topology. Hosts are the unit (a host's rails go with it); islands are the
// Topology's (domain -> leaf -> group -> pod -> fabric), restricted to the hosts that
// can run jobs: compute hosts in a leaf island ("the pool").
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "topology/topology.hpp"

namespace atl {

enum class FabricKind : std::uint8_t { InfiniBand, RoCE, Cloud };
const char *to_string(FabricKind k);
bool fabric_kind_from_string(const std::string &s, FabricKind &out);

struct PlaceIsland {
    Level level = Level::Leaf;
    std::string name;
    int parent = -1;                 // island index; -1 for the root
    std::vector<int> children;       // island indices one level down
    std::vector<int> hosts;          // pool hosts, ascending
    std::vector<int> leaf_islands;   // leaf islands under it (itself for a leaf)
    bool healthy = true;             // no degraded link on its leaves (see check), no host whose health failed
    double host_gbps = 0;            // a host's bandwidth into the fabric (its links x the slowest of them)
    double oversub = 1;              // leaf tier: host bandwidth / uplink bandwidth (>= 1)
};

// Slurm's topology/block view of this fabric: the base blocks of the file
// atoll-topo slurm --format block writes (block_layout), in file order, and
// the levels of its BlockSizes (0 first). Empty when no block can be written.
struct BlockView {
    std::vector<int> blocks;         // island indices (domains, or leaf islands)
    int base = 0;                    // nodes of the base block
    std::vector<int> levels;
};

// One switch of Slurm's topology/tree view of this fabric (what atoll-topo
// slurm writes), as slurmctld builds its switch_record_table from it.
struct TreeRecord {
    int island = -1;
    int level = 0;                   // 0 for leaf switches, 1 + max(children)
    int parent = -1;
    std::vector<int> children;       // record indices
    std::vector<int> hosts;          // pool hosts under it, ascending
    std::string name;                // its SwitchName when not its island's (a subnet's root: fabric-2)
    bool partial = false;            // holds part of its island's hosts (a subnet's root): count its children
};

class Cluster {
public:
    explicit Cluster(const Topology &t, FabricKind kind = FabricKind::InfiniBand);

    std::size_t host_count() const { return names_.size(); }  // every host of the Topology
    const std::string &host_name(int h) const { return names_[static_cast<std::size_t>(h)]; }
    int find_host(const std::string &name) const;           // -1 when unknown
    bool in_pool(int h) const { return leaf_of_[static_cast<std::size_t>(h)] >= 0; }
    int pool_size() const { return pool_; }
    int leaf_of(int h) const { return leaf_of_[static_cast<std::size_t>(h)]; }
    int island_of(int h, Level l) const;

    const std::vector<PlaceIsland> &islands() const { return islands_; }
    const PlaceIsland &island(int i) const { return islands_[static_cast<std::size_t>(i)]; }
    const std::vector<int> &at(Level l) const { return by_level_[static_cast<std::size_t>(l)]; }
    int root() const { return root_; }
    int capacity(int island) const { return static_cast<int>(island_(island).hosts.size()); }
    int largest(Level l) const;                             // capacity of the largest island at l
    // Cables on the longest host-to-host path between two leaf islands (2 within one).
    int hops(int leaf_a, int leaf_b) const;
    // Fewest leaf islands whose capacities hold n hosts (0 when the pool cannot).
    int min_leaves(int n) const;
    // Fewest leaf islands that hold n hosts inside one island of `within`
    // (group or pod: what a constraint to that level leaves Slurm; 0 when
    // no such island can). Other levels: min_leaves(n).
    int min_leaves(int n, Level within) const;

    // Subnets: the parts of the fabric no cable joins (merged captures of
    // separate subnets). A job on hosts of two could not run.
    int subnets() const { return subnets_; }
    int subnet_pool() const { return subnet_pool_; }  // pool hosts of the largest subnet
    int subnet_of(int leaf_island) const { return subnet_[static_cast<std::size_t>(leaf_island)]; }

    const std::vector<TreeRecord> &tree() const { return tree_; }
    // Hops over the tree's edges from `record` to every record (INT_MAX: not
    // connected), as Slurm's switches_dist row; computed on each call, O(records).
    std::vector<int> tree_distances(int record) const;
    const BlockView &blocks() const { return blocks_; }
    FabricKind kind() const { return kind_; }
    const std::string &source() const { return source_; }
    int rails() const { return rails_; }
    // a host's bandwidth into the fabric (its links x the slowest: NCCL's pace; 0: unknown)
    double host_gbps(int h) const { return host_bw_[static_cast<std::size_t>(h)]; }
    // its ports into the fabric (its NICs; 0 unknown)
    int host_nics(int h) const { return host_nics_[static_cast<std::size_t>(h)]; }
    // a leaf island's uplinks against its host ports (>= 1), kept on the
    // island above it
    double leaf_oversub(int leaf) const
    {
        int up = island_(leaf).parent;
        return up >= 0 ? std::max(1.0, island_(up).oversub) : 1.0;
    }
    // the spines' uplinks against their downlinks (>= 1; 1 with one pod):
    // what a job crossing pods meets on top of its leaves' ratio
    double spine_oversub() const { return spine_os_; }
    // the most pool hosts of one NVLink domain on a leaf island (0: none)
    int largest_domain_on(int leaf) const { return leaf_domain_max_[static_cast<std::size_t>(leaf)]; }
    // An id no other Cluster built in this process has (a copy shares it: the
    // same fabric; a Cluster never changes once built): what a cache of
    // answers about one fabric is keyed by, where an address may be reused.
    std::uint64_t serial() const { return serial_; }
    // The leaf islands in the orders the cost model reads for every node
    // count, each a stable sort of at(Leaf) (ties in fabric order):
    // capacity descending; host speed descending, then capacity descending,
    // then uplink ratio ascending; capacity, host speed, uplink ratio; host
    // speed, uplink ratio, capacity descending.
    const std::vector<int> &leaves_by_capacity() const { return by_capacity_; }
    const std::vector<int> &leaves_by_speed_size() const { return by_speed_size_; }
    const std::vector<int> &leaves_by_size_speed() const { return by_size_speed_; }
    const std::vector<int> &leaves_by_speed() const { return by_speed_; }

private:
    const PlaceIsland &island_(int i) const { return islands_[static_cast<std::size_t>(i)]; }

    std::vector<std::string> names_;
    std::vector<int> leaf_of_;
    std::vector<double> host_bw_;
    std::vector<int> host_nics_;
    std::vector<int> leaf_domain_max_;  // island -> largest_domain_on
    double spine_os_ = 1;
    std::vector<std::array<int, 5>> island_of_;  // by Level
    std::vector<PlaceIsland> islands_;
    std::array<std::vector<int>, 5> by_level_;
    std::vector<int> leaf_pos_;       // island -> position among leaf islands
    // Hops between leaf islands: leaf islands whose switches have the same
    // neighbours outside them (the leaves of one pod under its spines) are
    // equally far from every other one, so they share a row of hop_rows_
    // (row_of_: leaf pos -> row; a row: leaf pos -> hops); pairs that share
    // a switch (2 hops) are the exceptions.
    std::vector<int> row_of_;
    std::vector<int> hop_rows_;
    std::vector<std::pair<int, int>> sharing_;  // leaf pos pairs (a < b), sorted
    std::vector<std::vector<int>> tree_adj_;    // tree records' edges, both ways
    std::vector<int> min_leaves_;     // n -> fewest leaves
    std::array<std::vector<int>, 5> min_leaves_in_;  // by Level (group, pod): n -> fewest leaves in one island
    std::array<int, 5> largest_{};    // by Level: capacity of its largest island
    std::vector<TreeRecord> tree_;
    BlockView blocks_;
    std::vector<int> subnet_;         // island -> its subnet (leaf islands; 0 for the rest)
    std::vector<int> by_capacity_, by_speed_size_, by_size_speed_, by_speed_;
    std::uint64_t serial_ = 0;
    int root_ = -1, pool_ = 0, rails_ = 0, subnets_ = 1, subnet_pool_ = 0;
    FabricKind kind_;
    std::string source_;
};

// Hosts (indices of pool hosts) in topology order: by pod, then group, leaf
// island and NVLink domain, each kept together, and in the given order inside
// a domain (or a leaf without domains): consecutive ranks are the nearest.
std::vector<int> topology_order(const Cluster &c, std::vector<int> hosts);

// The islands file job_submit.lua reads: "level name capacity healthy" per
// island (capacity in compute hosts, healthy 1 or 0), leaves first.
void write_islands(std::ostream &out, const Cluster &c);

// Which hosts are free, with free counts per island kept as hosts come and go.
class FreeState {
public:
    explicit FreeState(const Cluster &c, bool all_free = true);

    const Cluster &cluster() const { return *c_; }
    bool is_free(int h) const { return free_[static_cast<std::size_t>(h)] != 0; }
    int free_in(int island) const { return count_[static_cast<std::size_t>(island)]; }
    int total() const { return c_->root() >= 0 ? free_in(c_->root()) : 0; }
    void set(int h, bool free);                       // pool hosts only
    void take(const std::vector<int> &hosts) { for (int h : hosts) set(h, false); }
    void give(const std::vector<int> &hosts) { for (int h : hosts) set(h, true); }
    // Every free host of one island taken at once (as take(its hosts), at
    // one pass over them rather than one walk up the islands per host)
    void take_island(int island);
    // The most free hosts any one island of level l has (counted as hosts
    // come and go, so a policy need not look at every island to know that
    // none has room).
    int most_free(Level l) const;

private:
    void count(int island, int delta);
    const Cluster *c_;
    std::vector<char> free_;
    std::vector<int> count_;
    std::array<std::vector<int>, 5> islands_with_;  // by Level: [f] islands with f free hosts
};

}  // namespace atl
