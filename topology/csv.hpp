// A site's own topology as CSV: one row per host naming its leaf switch and,
// optionally, its pod (spine) and core. Any site or cloud can produce it; the
// fabric built from it has one synthetic switch per name and links of unknown
// speed, so islands, Slurm files and placement work as for InfiniBand.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "topology/fabric.hpp"

namespace atl {

// One CSV line split at commas, each field trimmed; a field in double
// quotes (RFC 4180, as spreadsheets and pandas write them) may hold commas,
// "" standing for one quote.
std::vector<std::string> split_csv_line(const std::string &line);
// "ROLE=COLUMN,..." -> role -> column; throws InputError naming `option` when
// a role is not one of `roles`.
std::map<std::string, std::string> parse_role_columns(const std::string &spec, const std::vector<std::string> &roles,
                                                      const std::string &option);

// Where a host hangs in a tree of named switches (CSV rows, cloud topology
// APIs): its leaf, and optionally its pod and core switch.
struct HostPlacement {
    std::string host, leaf, pod, core;
    std::size_t line = 0;  // input line, 0 when there is none (JSON)
    // what the host's GUID is hashed from: the cloud's own ID (a host map's
    // Slurm name changes with the map; a swapped map must show as moved
    // GUIDs to check --previous); empty: the host name
    std::string id;
};
// A synthetic GUID for a named node: FNV-1a of "kind:name", never 0, so a
// host and a switch of one name differ.
std::uint64_t name_guid(const std::string &kind, const std::string &name);

// One synthetic switch per name (GUIDs hashed from the names), one port per
// host, leaves cabled to their pod (or to one "core" switch when there are no
// pods), pods to their cores (or one "core"); link speeds unknown.
// `above_cores` non-empty: where the rows name several cores, one switch of
// that name above them all (a cloud whose top tier is only the highest it
// shows, its instances reaching each other above it).
Fabric fabric_from_placements(const std::vector<HostPlacement> &rows, const std::string &source, bool have_pod,
                              bool have_core, const std::string &above_cores = "");

// Column names by role ("host", "leaf", "pod", "core"). Roles left out are
// found by their usual names: host|node|hostname, leaf|leaf_id|leaf_switch|asw,
// pod|pod_id|pod_psw|spine, core|core_dsw|dsw.
using CsvColumns = std::map<std::string, std::string>;
// "host=node,leaf=leaf_id" -> {{"host","node"},{"leaf","leaf_id"}}; throws
// InputError on an unknown role.
CsvColumns parse_csv_columns(const std::string &spec);

Fabric parse_topology_csv(std::istream &in, const std::string &source, const CsvColumns &columns = {});

// True when the first line looks like a header this reader understands.
bool looks_like_topology_csv(const std::string &first_line);

}  // namespace atl
