#include "tools/args.hpp"
#include "topology/io.hpp"

#include <algorithm>
#include <cerrno>
#include <poll.h>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cstdlib>
#include <iostream>
#include <map>
#include <set>
#include <sstream>

namespace atl {

std::string Args::get(const std::string &n, const std::string &def) const
{
    auto it = opts.find(n);
    if (it == opts.end())
        return def;
    // An option given twice is the last one's (a wrapper's default, then
    // the user's), except an input of names or hosts: a second --host-map
    // dropped the first map's names, silently (helper 38). The options that
    // add up (--nvlink, --set, ...) are read with all().
    static const std::set<std::string> inputs{"host-map", "node-name-map", "slurm-nodes", "scontrol-nodes",
                                              "health",   "free",          "running",     "pending"};
    if (it->second.size() > 1 && inputs.count(n)) {
        throw Usage("--" + n + " given " + std::to_string(it->second.size()) + " times (\"" + it->second[0] +
                    "\", then \"" + it->second[1] + "\"): expected it once");
    }
    return it->second.back();
}

const std::vector<std::string> &Args::all(const std::string &n) const
{
    static const std::vector<std::string> none;
    auto it = opts.find(n);
    return it == opts.end() ? none : it->second;
}

long Args::get_int(const std::string &n, long def, long lo, long hi) const
{
    if (!flag(n))
        return def;
    std::string v = get(n);
    char *end = nullptr;
    errno = 0;
    long x = std::strtol(v.c_str(), &end, 10);
    if (v.empty() || *end || errno || x < lo || x > hi)
        throw Usage("--" + n + ": \"" + v + "\", expected an integer from " + std::to_string(lo) + " to " +
                    std::to_string(hi));
    return x;
}

std::string Args::get_one_of(const std::string &n, const std::vector<std::string> &choices) const
{
    std::string v = get(n, choices.front());
    if (std::find(choices.begin(), choices.end(), v) != choices.end())
        return v;
    std::string list;
    for (std::size_t i = 0; i < choices.size(); ++i)
        list += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
    throw Usage("--" + n + ": \"" + v + "\", expected " + list);
}

double Args::get_double(const std::string &n, double def, double lo, double hi) const
{
    if (!flag(n))
        return def;
    std::string v = get(n);
    char *end = nullptr;
    errno = 0;
    double x = std::strtod(v.c_str(), &end);
    if (v.empty() || *end || errno || !(x >= lo && x <= hi))
        throw Usage("--" + n + ": \"" + v + "\", expected a number from " + std::to_string(lo) + " to " +
                    std::to_string(hi));
    return x;
}

std::string command_usage(const char *prog, const std::string &usage, const std::string &cmd)
{
    // a command's head line ("  CMD  what it does", or "usage: PROG CMD ..." and
    // "       PROG CMD ...") and the lines indented under it
    std::istringstream in(usage);
    std::string line, out, common;
    bool in_cmd = false, in_common = false;
    const std::string as_item = "  " + cmd + " ", as_synopsis = std::string(prog) + " " + cmd;
    while (std::getline(in, line)) {
        bool head = line.compare(0, as_item.size(), as_item) == 0 ||
                    ((line.compare(0, 7, "usage: ") == 0 || line.compare(0, 7, "       ") == 0) &&
                     line.compare(7, as_synopsis.size(), as_synopsis) == 0 &&
                     (line.size() == 7 + as_synopsis.size() || line[7 + as_synopsis.size()] == ' '));
        bool indented = line.compare(0, 8, "        ") == 0 && line.find(std::string(prog) + " ") == std::string::npos;
        if (line.compare(0, 14, "common options") == 0) {
            // "common options (CMD, CMD, ...):" names the commands they apply to
            std::string::size_type open = line.find('('), close = line.find(')');
            bool applies = open == std::string::npos || close == std::string::npos;
            if (!applies) {
                std::istringstream names(line.substr(open + 1, close - open - 1));
                for (std::string n; std::getline(names >> std::ws, n, ',');)
                    applies = applies || n == cmd;
            }
            in_common = applies;
        }
        if (head || (in_cmd && indented))
            out += line + "\n";
        else if (in_common)
            common += line + "\n";
        in_cmd = head || (in_cmd && indented);
    }
    if (out.empty())
        return usage;
    if (out.compare(0, 7, "       ") == 0 || out.compare(0, 7, "usage: ") == 0)  // a synopsis already
        return "usage: " + out.substr(7) + (common.empty() ? "" : "\n" + common);
    return "usage: " + std::string(prog) + " " + cmd + " [OPTIONS]\n" + out + (common.empty() ? "" : "\n" + common);
}

int run_tool(const char *prog, const char *usage, int argc, char **argv,
             const std::function<int(const std::string &)> &dispatch)
{
    std::ios::sync_with_stdio(false);
    if (argc < 2) {
        std::cerr << usage;
        return 2;
    }
    std::string cmd = argv[1];
    try {
        bool help = cmd == "-h" || cmd == "--help" || cmd == "help";
        for (int i = 2; i < argc; ++i)
            help = help || std::string(argv[i]) == "-h" || std::string(argv[i]) == "--help";
        if (help) {
            // PROG CMD --help: that command's usage
            std::cout << (cmd.empty() || cmd[0] == '-' || cmd == "help" ? std::string(usage) : command_usage(prog, usage, cmd));
            return 0;
        }
        if (cmd == "--version") {
            std::cout << prog << " " << PACKAGE_VERSION << "\n";
            return 0;
        }
        return dispatch(cmd);
    } catch (const Usage &e) {
        std::cerr << prog << ": " << one_line(e.what(), 8192) << "\n" << command_usage(prog, usage, cmd);
        return 2;
    } catch (const std::exception &e) {
        // one line, whatever the input put in it (a file's own "source" text
        // with a newline would start a line of its own: helper 50)
        std::cerr << prog << ": " << one_line(e.what(), 8192) << "\n";
        return 1;
    } catch (...) {
        std::cerr << prog << ": unexpected error\n";
        return 1;
    }
}

InputFormat input_format(const Args &a)
{
    std::string f = a.get("format", "auto");
    if (f == "auto") return InputFormat::Auto;
    if (f == "text") return InputFormat::Text;
    if (f == "json") return InputFormat::Json;
    if (f == "cache") return InputFormat::Cache;
    if (f == "csv") return InputFormat::Csv;
    if (f == "aws") return InputFormat::Aws;
    if (f == "gcp") return InputFormat::Gcp;
    if (f == "oci") return InputFormat::Oci;
    if (f == "nebius") return InputFormat::Nebius;
    if (f == "lldp") return InputFormat::Lldp;
    throw Usage("--format: \"" + f + "\", expected auto, text, json, cache, csv, aws, gcp, oci, nebius or lldp");
}

Args parse_args(int argc, char **argv, int first, const std::vector<std::string> &with_value,
                const std::vector<std::string> &flags)
{
    Args a;
    auto known = [](const std::vector<std::string> &v, const std::string &n) {
        return std::find(v.begin(), v.end(), n) != v.end();
    };
    for (int i = first; i < argc; ++i) {
        std::string s = argv[i];
        if (s == "-o")
            s = "--output";
        if (s.size() > 2 && s.compare(0, 2, "--") == 0) {
            std::string name = s.substr(2), value;
            std::size_t eq = name.find('=');
            bool has_eq = eq != std::string::npos;
            if (has_eq) {
                value = name.substr(eq + 1);
                name = name.substr(0, eq);
            }
            if (known(with_value, name)) {
                if (!has_eq) {
                    if (i + 1 >= argc)
                        throw Usage("--" + name + ": argument required");
                    value = argv[++i];
                }
                a.opts[name].push_back(value);
            } else if (known(flags, name)) {
                if (has_eq)
                    throw Usage("--" + name + " takes no argument");
                a.opts[name].push_back("");
            } else {
                throw Usage("unknown option --" + name);
            }
        } else if (s.size() > 1 && s[0] == '-' && s != "-") {
            throw Usage("unknown option " + s);
        } else {
            a.operands.push_back(s);
        }
    }
    // standard input read by an option file (read_option_file) and by
    // another input: refused before either is read, not as a parse error of
    // the one that came second to a drained pipe
    std::vector<std::string> on_stdin;
    for (const char *o : {"slurm-nodes", "host-map", "health", "node-name-map", "scontrol-nodes"}) {
        auto it = a.opts.find(o);
        if (it != a.opts.end() && std::find(it->second.begin(), it->second.end(), "-") != it->second.end())
            on_stdin.push_back(std::string("--") + o);
    }
    if (!on_stdin.empty() && std::find(a.operands.begin(), a.operands.end(), "-") != a.operands.end())
        on_stdin.push_back("the input operand");
    if (on_stdin.size() > 1) {
        std::string both;
        for (std::size_t i = 0; i < on_stdin.size(); ++i)
            both += (i == 0 ? "" : i + 1 == on_stdin.size() ? " and " : ", ") + on_stdin[i];
        throw Usage("- (standard input) given for " + both + ": expected it for one input, give the others as files");
    }
    return a;
}

Topology analysed(Fabric f, const char *prog)
{
    Topology t = analyse(std::move(f));
    for (const std::string &w : t.fabric.warnings)
        std::cerr << prog << ": warning: " << w << "\n";
    for (const RefusedCa &r : t.refused)
        std::cerr << prog << ": warning: " << refused_message(t.fabric.source, r) << "\n";
    return t;
}

struct PlainStdout::Buf : std::streambuf {
    explicit Buf(std::streambuf *to) : to_(to) {}
    int overflow(int c) override
    {
        if (c == traits_type::eof())
            return traits_type::not_eof(c);
        const unsigned char b = static_cast<unsigned char>(c);
        if (b == '\n' || (b >= 0x20 && b < 0x7f))
            return to_->sputc(static_cast<char>(b)) == traits_type::eof() ? traits_type::eof() : c;
        static const char hex[] = "0123456789abcdef";
        const char esc[4] = {'\\', 'x', hex[b >> 4], hex[b & 15]};
        return to_->sputn(esc, 4) == 4 ? c : traits_type::eof();
    }
    int sync() override { return to_->pubsync(); }
    std::streambuf *to_;
};

PlainStdout::PlainStdout() : buf_(new Buf(std::cout.rdbuf())), old_(std::cout.rdbuf(buf_)) {}

PlainStdout::~PlainStdout()
{
    std::cout.flush();
    std::cout.rdbuf(old_);
    delete buf_;
}

void require_directory(const std::string &option, const std::string &path, const std::string &expected)
{
    struct stat st;
    const bool there = ::stat(path.c_str(), &st) == 0;
    if (!there || !S_ISDIR(st.st_mode))
        throw InputError("--" + option + " " + escaped(path, 200) + ": " +
                         (there ? std::string("not a directory") : std::string(std::strerror(errno))) + ", expected " +
                         expected);
}

std::string read_option_file(const std::string &path, const std::string &what, std::size_t cap)
{
    // "-" is standard input (`scontrol show nodes -o | atoll-topo ...
    // --scontrol-nodes -`), read as a pipe is; a terminal is not waited on
    const bool std_in = path == "-";
    static std::map<std::string, std::string> stdin_text;  // what -> its text: an option read twice reads stdin once
    if (std_in) {
        auto seen = stdin_text.find(what);
        if (seen != stdin_text.end())
            return seen->second;
        take_stdin(what);
        if (::isatty(STDIN_FILENO))
            throw InputError("- (standard input) is a terminal, expected " + what + " piped in or redirected");
    } else {
        note_input_file(path);  // never written over by this run's output
    }
    const std::string name = std_in ? "<stdin>" : path;
    const int fd = std_in ? ::fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0) : ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        throw InputError(name + ": cannot open (" + std::strerror(errno) + "), expected " + what);
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};
    struct stat st {};
    if (::fstat(fd, &st) != 0)
        throw InputError(name + ": cannot read (" + std::strerror(errno) + "), expected " + what);
    // a pipe is a process substitution (<(scontrol show nodes -o)) or a FIFO
    // someone writes: read within a time bound, never forever
    const bool pipe = S_ISFIFO(st.st_mode);
    if (!S_ISREG(st.st_mode) && !pipe)
        throw InputError(name + ": not a regular file or a pipe (a " +
                         std::string(S_ISDIR(st.st_mode) ? "directory" : "device or special file") + "), expected " + what);
    constexpr int bound_s = 60;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(bound_s);
    std::string text;
    char buf[65536];
    for (;;) {
        if (pipe) {
            // no writer yet is no end of input: wait for data or the writer's close
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
            pollfd pf{fd, POLLIN, 0};
            const int r = left.count() > 0 ? ::poll(&pf, 1, static_cast<int>(left.count())) : 0;
            if (r < 0 && errno == EINTR)
                continue;
            if (r == 0)
                throw InputError(name + ": a pipe that did not end within " + std::to_string(bound_s) +
                                 " s (no writer, or one that never closes), expected " + what);
        }
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n < 0)
            throw InputError(name + ": cannot read (" + std::strerror(errno) + "), expected " + what);
        if (n == 0)
            break;
        text.append(buf, static_cast<std::size_t>(n));
        if (text.size() > cap)
            throw InputError(name + ": over " + std::to_string(cap) + " bytes, expected " + what);
    }
    if (std_in)
        stdin_text[what] = text;
    return text;
}

}  // namespace atl
