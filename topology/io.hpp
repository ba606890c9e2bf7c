// Thin file wrappers around the stream readers and writers.
#pragma once

#include <cstdint>
#include <fstream>
#include <functional>
#include <iosfwd>
#include <streambuf>
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

// The most load_fabric() reads from standard input ("-"); a file has no bound.
constexpr std::uint64_t kStdinLimit = std::uint64_t(1) << 30;  // 1 GiB

// A pipe read as it streams in, as a file is: read_head() takes its first
// bytes (to tell the format: up to the first non-blank byte and 4 KiB from
// it), which are then handed out again before the rest. The leading blanks
// are kept as their newlines and the last line's blanks, so a reader's line
// and column numbers are the input's. Past `limit` bytes the input ends and
// overflowed() says so (an error thrown from here would be swallowed by
// istream and look like the end of the input).
class PipeBuf : public std::streambuf {
public:
    PipeBuf(std::streambuf *src, std::uint64_t limit);
    std::string read_head();
    bool overflowed() const { return overflowed_; }

protected:
    int_type underflow() override;

private:
    std::streamsize fill(char *to, std::streamsize want);
    int next();

    std::streambuf *src_;
    std::uint64_t limit_, taken_ = 0, newlines_ = 0;
    bool overflowed_ = false;
    std::string blanks_, replay_, held_;
    char chunk_[65536];
};

// The first 4 KiB of an input after its leading whitespace, the stream
// rewound: what load_fabric looks at to tell the format.
std::string input_head(std::istream &in);
// Whether such a head is atoll's own fabric.json (its first key, or the
// "atoll-fabric" format mark).
bool is_atoll_fabric(const std::string &head);

// Remembers a file read as an input of this run (load_fabric() does it for
// every fabric): write_file_atomically() refuses to replace it.
void note_input_file(const std::string &path);
// Throws when `path` (symbolic links followed) is a file noted as an input:
// an output of the run must not replace it.
void refuse_input_as_output(const std::string &path);
// A site's configuration file (slurm.conf, plugstack.conf and its includes,
// topology.yaml) opened for reading: a path that is there but no regular
// file (a FIFO would block the open for ever, /dev/zero never ends, a
// directory reads as empty) is InputError naming it; a missing one is a
// stream that is not open, as before.
std::ifstream open_config(const std::string &path);
// That check alone, for a path to be opened later.
void check_config_file(const std::string &path);
// Standard input ("-") given as `what`: one input of a run may be it; a
// second throws InputError naming both.
void take_stdin(const std::string &what);

// Writes through a temporary file in the same directory, renamed into place
// only when `write` returns and the data reached the disk; "-" is stdout.
// A failed run leaves any existing file untouched; a file replaced keeps its
// owner and mode (a new one is 0644); an input of this run is never replaced.
void write_file_atomically(const std::string &path, const std::function<void(std::ostream &)> &write);

}  // namespace atl
