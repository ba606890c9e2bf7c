// fabric.json: the versioned on-disk form of a Fabric (see atoll-fabric(5)).
#pragma once

#include <iosfwd>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "topology/fabric.hpp"
#include "topology/topology.hpp"

namespace atl {

constexpr int fabric_json_version = 1;

// The fabric, plus an "analysis" section (tiers, hosts, rails, islands) for
// other programs to read. load_fabric_json() ignores "analysis": it is derived.
nlohmann::json fabric_to_json(const Topology &t);
Fabric fabric_from_json(const nlohmann::json &j, const std::string &source);

void save_fabric_json(std::ostream &out, const Topology &t);
Fabric load_fabric_json(std::istream &in, const std::string &source);

// `atoll-topo show --json`: counts, tiers, rails, islands per level, speeds.
nlohmann::json summary_json(const Topology &t);

}  // namespace atl
