// What changed between two discoveries of a fabric, and whether it matters
// for scheduling (islands, topology.conf, node features): what a cron job
// needs to rewrite Slurm's files and reconfigure only when it must.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <vector>

#include "topology/topology.hpp"

namespace atl {

struct FabricChange {
    std::string kind;     // switch-added, switch-removed, host-added, host-removed, link-up,
                          // link-down, link-speed, host-moved, islands, island-degraded,
                          // island-healthy, topology-conf
    std::string subject;  // what it is about
    std::string detail;   // old -> new, for a human
};

struct FabricDiff {
    std::vector<FabricChange> changes;   // sorted by kind, then subject
    bool scheduling = false;             // islands, their health or Slurm's files differ
};

FabricDiff diff_fabrics(const Topology &old_t, const Topology &new_t);
nlohmann::json diff_json(const FabricDiff &d);

}  // namespace atl
