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
// Reads as the file streams in (never the whole document at once); its
// result and messages are fabric_from_json(json::parse(in))'s, but that
// bytes after a NUL byte (which ends nlohmann's input) are refused with
// kBytesAfterNul.
Fabric load_fabric_json(std::istream &in, const std::string &source);
constexpr const char *kBytesAfterNul = "a NUL byte and more after the end of the JSON document, expected the end of the file";

// `atoll-topo show --json`: counts, tiers, rails, islands per level, speeds.
nlohmann::json summary_json(const Topology &t);

// JSON out: bytes that are not UTF-8 (a node description may hold anything)
// are replaced by U+FFFD, never an exception.
std::string json_text(const nlohmann::json &j, int indent);
// A value for an error message: scalars as JSON (at most 60 characters),
// containers by their size; never walks the input's depth.
std::string json_value_text(const nlohmann::json &j);
// nlohmann's message without its "[json.exception.type_error.302] " tag.
std::string json_error_text(const std::exception &e);

}  // namespace atl
