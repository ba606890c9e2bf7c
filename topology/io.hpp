// Thin file wrappers around the stream readers and writers.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>

#include "topology/cloud.hpp"
#include "topology/csv.hpp"
#include "topology/fabric.hpp"
#include "topology/ibnetdiscover.hpp"
#include "topology/lldp.hpp"

namespace atl {

enum class InputFormat { Auto, Text, Cache, Json, Csv, Aws, Gcp, Oci, Nebius, Lldp };

// Reads a fabric from a file ("-" is standard input): fabric.json, an
// `ibnetdiscover --cache` file, ibnetdiscover text (plain, -g, -f, -p), a
// host,leaf,pod,core CSV (see csv.hpp; `columns` names its columns) or
// a cloud's topology (AWS, GCP, OCI, Nebius: cloud.hpp), or lldpcli output:
// one file, or a directory of per-system files (lldp.hpp), where `roles` says
// which host interfaces are compute rails. `hosts` (may be null) renames the
// hosts of a cloud or CSV input as Slurm names them.
Fabric load_fabric(const std::string &path, InputFormat fmt = InputFormat::Auto, const CsvColumns &columns = {},
                   const NicRoles &roles = {}, const HostMap *hosts = nullptr);

// The first 4 KiB of an input after its leading whitespace, the stream
// rewound: what load_fabric looks at to tell the format.
std::string input_head(std::istream &in);
// Whether such a head is atoll's own fabric.json (its first key, or the
// "atoll-fabric" format mark).
bool is_atoll_fabric(const std::string &head);

// Writes through a temporary file in the same directory, renamed into place
// only when `write` returns and the data reached the disk; "-" is stdout.
// A failed run leaves any existing file untouched.
void write_file_atomically(const std::string &path, const std::function<void(std::ostream &)> &write);

}  // namespace atl
