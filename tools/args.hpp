// Command-line parsing shared by the atoll tools: "--name value",
// "--name=value", flags and operands; unknown options are usage errors.
#pragma once

#include <functional>
#include <map>
#include <streambuf>
#include <stdexcept>
#include <string>
#include <vector>

#include "topology/io.hpp"
#include "topology/topology.hpp"

namespace atl {

struct Usage : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct Args {
    std::map<std::string, std::vector<std::string>> opts;
    std::vector<std::string> operands;

    bool flag(const std::string &n) const { return opts.count(n) > 0; }
    // The option's value: the last given, except that an input of names or
    // hosts (--host-map, --free, ...) given twice is a Usage error (an
    // option that adds up is read with all()).
    std::string get(const std::string &n, const std::string &def = "") const;
    const std::vector<std::string> &all(const std::string &n) const;
    // The option as a number in [lo, hi]; Usage naming the option otherwise.
    long get_int(const std::string &n, long def, long lo, long hi) const;
    double get_double(const std::string &n, double def, double lo, double hi) const;
    // The option, which must be one of `choices` (the first is the default).
    std::string get_one_of(const std::string &n, const std::vector<std::string> &choices) const;
};

// argv[first..]: options named in with_value take an argument, those in flags
// none; "-o" is "--output".
Args parse_args(int argc, char **argv, int first, const std::vector<std::string> &with_value,
                const std::vector<std::string> &flags);

// The part of `usage` for one command: its lines (atoll-topo's "  CMD ..." item,
// atoll-place's "PROG CMD ..." synopsis) and the common options; the whole
// usage when it has no such lines.
std::string command_usage(const char *prog, const std::string &usage, const std::string &cmd);

// A tool's main: no command or -h/--help/help prints the usage, "CMD --help"
// that command's (command_usage), --version the
// version; otherwise dispatch(command). Usage errors exit 2 with the usage,
// any other error 1 with one line on stderr; nothing escapes.
int run_tool(const char *prog, const char *usage, int argc, char **argv,
             const std::function<int(const std::string &)> &dispatch);

// analyse(f), with one warning on stderr per adapter whose names were refused
// (FILE:LINE, the description's bytes escaped).
Topology analysed(Fabric f, const char *prog);

// While it lives, std::cout writes a control byte (but the newline), DEL
// or a non-ASCII byte as \xNN: for the reports made of what a node's root
// wrote (sysfs names and states, a port's interfaces), read on a terminal
// and taken by NHC as a node's drain reason. Restores std::cout's buffer.
class PlainStdout {
public:
    PlainStdout();
    ~PlainStdout();
    PlainStdout(const PlainStdout &) = delete;
    PlainStdout &operator=(const PlainStdout &) = delete;

private:
    struct Buf;
    Buf *buf_;
    std::streambuf *old_;
};

// --format for inputs: auto, text, json, cache or csv.
InputFormat input_format(const Args &a);

// A root directory an option names (--root, --sysfs-root): one that is not
// there would read as a node with nothing on it; InputError "--OPTION PATH:
// what was found, expected EXPECTED" otherwise.
void require_directory(const std::string &option, const std::string &path, const std::string &expected);
// The name an option file is shown by in messages: "<stdin>" for "-".
inline std::string option_source(const std::string &path) { return path == "-" ? "<stdin>" : path; }
// The text of a file an option names (a map, a node list, health results):
// a regular file, or a pipe (a process substitution, or "-": standard input,
// once a run) read within 60 s (a FIFO no one writes would hang the run); a
// directory, a device (/dev/null read as an empty map) or a terminal is
// refused; at most `cap` bytes; InputError "PATH: what was found, expected
// WHAT" otherwise. A regular file read is an input: never this run's output.
std::string read_option_file(const std::string &path, const std::string &what, std::size_t cap = std::size_t(1) << 30);

}  // namespace atl
