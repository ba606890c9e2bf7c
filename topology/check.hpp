// The fabric's health, as an admin would check it before trusting it for placement.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <set>
#include <string>
#include <vector>

#include "topology/topology.hpp"

namespace atl {

enum class Severity : std::uint8_t { Warning, Error };
const char *to_string(Severity s);

struct Finding {
    std::string code;      // degraded-link, default-description, ... (see atoll-topo(8))
    Severity severity = Severity::Warning;
    std::string subject;   // what it is about: a link, a host, a switch, a group
    std::string message;   // one sentence for a human

    bool operator==(const Finding &o) const
    {
        return code == o.code && severity == o.severity && subject == o.subject && message == o.message;
    }
};

// Per link (Fabric::links order): why it is degraded, or "" when it is not.
std::vector<std::string> degraded_reasons(const Topology &t);

// Leaf islands (indices into Topology::islands) with a degraded link on one
// of their leaf switches: what placement ranks last and diff reports.
std::vector<int> degraded_leaf_islands(const Topology &t);

// What check holds the fabric against, when the admin gives it.
struct CheckContext {
    // An earlier discovery (check --previous): a host's adapter that changed
    // GUID (guid-changed) and a host on adapters that were another host's
    // (name-moved) are errors; a host no longer seen (host-vanished), a warning.
    const Topology *previous = nullptr;
    // Slurm's node names (check --slurm-nodes): a compute host Slurm lacks is
    // an error, another host (storage, management) a warning (not-in-slurm);
    // Slurm nodes the fabric lacks, a warning (not-in-fabric).
    const std::set<std::string> *slurm_nodes = nullptr;
};

// Every finding, sorted by code then subject.
std::vector<Finding> check(const Topology &t, const CheckContext &with = {});

// "ib-leaf01[3] - dgx01 mlx5_0[1]": a link as an admin finds it.
std::string link_name(const Topology &t, const Link &l);

nlohmann::json findings_json(const std::vector<Finding> &f);

}  // namespace atl
