// Readers for what rdma-core's infiniband-diags print, and for its cache file.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>

#include "topology/fabric.hpp"

namespace atl {

// `ibnetdiscover` topology text: plain, -g (grouped) and -f (full), and the
// -p ports report; the format is recognised from the first record. CRLF line
// ends, unpadded GUIDs and descriptions holding '"' or '#' are accepted.
// Throws InputError naming source:line on anything else.
Fabric parse_ibnetdiscover(std::istream &in, const std::string &source);

// A file written by `ibnetdiscover --cache`, read through libibnetdisc's
// ibnd_load_fabric(). Also carries the supported width and speed of each port.
Fabric load_ibnetdiscover_cache(const std::string &path);

// Live discovery through libibnetdisc (ibnd_discover_fabric); ca may be empty.
Fabric discover_ib(const std::string &ca, int port, bool progress);

// ibnetdiscover's node name map: lines `0xGUID "name"`, '#' comments.
using NodeNameMap = std::map<std::uint64_t, std::string>;
NodeNameMap parse_node_name_map(std::istream &in, const std::string &source);
// Replace the description of every node the map names; returns how many.
// Names from the map replace the nodes' own descriptions. With
// refuse_unmapped, a CA whose GUID the map does not name loses its
// description (a warning in f.warnings says so), except a SHARP aggregation
// node that shares its switch's system image GUID.
std::size_t apply_node_name_map(Fabric &f, const NodeNameMap &map, bool refuse_unmapped = false);

}  // namespace atl
