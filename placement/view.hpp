// The fabric as the SPANK plugin needs it on every node for every job step:
// islands (with their hop diameter and SHARP), and per host its leaf island,
// whether its rails are cabled right and its compute-rail HCA ports. Small
// and quick to read, so that slurmstepd does not parse and analyse a whole
// fabric.json per step (`atoll-topo slurm --format view`).
#pragma once

#include <iosfwd>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "placement/cluster.hpp"

namespace atl {

struct ViewIsland {
    Level level = Level::Leaf;
    std::string name;
    int parent = -1;
    int hops = 0;          // cables on the longest host-to-host path inside it
    // every switch a reduction can use has a SHARP aggregation node: a leaf
    // island's leaf switches; a group's or pod's leaves and the switches right
    // above them; the fabric's every switch (view 1: leaf islands only)
    bool sharp = false;
};

struct ViewHost {
    int leaf = -1;                                 // index into islands
    bool rails_ok = true;                          // no miswired or missing rail
    std::vector<std::pair<std::string, int>> hcas; // compute-rail HCAs and ports, rail order
    int per_leaf = 1;                              // most compute ports on one leaf switch (0: unknown, view 1)
};

struct FabricSummary {
    std::string source;
    std::string kind;          // ib, roce, aws, generic, ... (Fabric::kind); "" unknown (view 1)
    bool rail_optimised = false;
    bool rails_meet = true;    // rail planes joined above the leaves
    std::vector<ViewIsland> islands;
    std::map<std::string, ViewHost> hosts;
};

FabricSummary summarise(const Topology &t, const Cluster &c);
void write_summary(std::ostream &out, const FabricSummary &s);
// Throws InputError (FILE:LINE) on anything but what write_summary writes.
FabricSummary read_summary(std::istream &in, const std::string &source);
constexpr const char *summary_magic = "atoll-view 2";
constexpr const char *summary_magic_v1 = "atoll-view 1";  // still read

}  // namespace atl
