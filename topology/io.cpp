#include "topology/io.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cctype>
#include <cstring>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <iostream>
#include <memory>
#include <new>
#include <set>
#include <csignal>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

#include "topology/cloud.hpp"
#include "topology/json.hpp"
#include "topology/lldp.hpp"

namespace atl {
namespace {

std::string first_line(const std::string &s) { return s.substr(0, s.find('\n')); }

// The first key of a JSON object text ("" when there is none): a fabric.json
// starts with "analysis", "domains" or "format" (its keys in order), where
// "atoll-fabric" may lie beyond the bytes looked at and host names could
// look like a cloud's.
std::string first_json_key(const std::string &s)
{
    std::size_t b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos || s[b] != '{')
        return "";
    std::size_t q = s.find_first_not_of(" \t\r\n", b + 1);
    if (q == std::string::npos || s[q] != '"')
        return "";
    std::size_t e = s.find('"', q + 1);
    return e == std::string::npos ? "" : s.substr(q + 1, e - q - 1);
}

Fabric load_fabric_from(std::istream &in, const std::string &name, const std::string &path, InputFormat fmt,
                        const std::string &head, const CsvColumns &columns, const NicRoles &roles, const HostMap *hosts);

// the files this process has read a fabric from: an output is never written over one
std::set<std::pair<dev_t, ino_t>> &inputs_read()
{
    static std::set<std::pair<dev_t, ino_t>> s;
    return s;
}

}  // namespace

void refuse_input_as_output(const std::string &path)
{
    struct stat st;
    if (path != "-" && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        inputs_read().count({st.st_dev, st.st_ino}))
        throw std::runtime_error(path + ": is also an input of this run, expected another output path (it would be "
                                        "replaced by what was read from it)");
}

void note_input_file(const std::string &path)
{
    struct stat st;
    if (path != "-" && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode))
        inputs_read().insert({st.st_dev, st.st_ino});
}

void check_config_file(const std::string &path)
{
    struct stat st;
    if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
        throw InputError(path + ": not a regular file (a " +
                         std::string(S_ISDIR(st.st_mode)    ? "directory"
                                     : S_ISFIFO(st.st_mode) ? "FIFO, never waited on"
                                                            : "device or special file") +
                         "), expected a configuration file");
}

std::ifstream open_config(const std::string &path)
{
    check_config_file(path);
    return std::ifstream(path);
}

void take_stdin(const std::string &what)
{
    static std::string taken;
    if (!taken.empty())
        throw InputError("- (standard input) given as " + what + " and as " + taken +
                         ", expected it for one input: give the other as a file");
    taken = what;
}

PipeBuf::PipeBuf(std::streambuf *src, std::uint64_t limit) : src_(src), limit_(limit) {}

std::string PipeBuf::read_head()
{
    int c;
    while ((c = next()) != EOF && std::isspace(c)) {
        if (c == '\n') {
            ++newlines_;
            blanks_.clear();
        } else if (blanks_.size() < 4096) {
            blanks_ += static_cast<char>(c);
        }
    }
    std::string h;
    if (c != EOF) {
        h += static_cast<char>(c);
        while (h.size() < 4096 && (c = next()) != EOF)
            h += static_cast<char>(c);
    }
    replay_ = blanks_ + h;
    return h;
}

PipeBuf::int_type PipeBuf::underflow()
{
    if (gptr() < egptr())
        return traits_type::to_int_type(*gptr());
    if (newlines_ > 0) {
        std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(newlines_, sizeof chunk_));
        std::fill(chunk_, chunk_ + n, '\n');
        newlines_ -= n;
        setg(chunk_, chunk_, chunk_ + n);
        return traits_type::to_int_type(*gptr());
    }
    if (!replay_.empty()) {
        held_.swap(replay_);
        replay_.clear();
        setg(&held_[0], &held_[0], &held_[0] + held_.size());
        return traits_type::to_int_type(*gptr());
    }
    std::streamsize n = fill(chunk_, sizeof chunk_);
    if (n <= 0)
        return traits_type::eof();
    setg(chunk_, chunk_, chunk_ + n);
    return traits_type::to_int_type(*gptr());
}

// at most what is left under the limit; at the limit, one byte more tells an
// input of exactly the limit from a longer one
std::streamsize PipeBuf::fill(char *to, std::streamsize want)
{
    if (overflowed_)
        return 0;
    if (taken_ >= limit_) {
        if (src_->sgetc() != EOF)
            overflowed_ = true;
        return 0;
    }
    want = static_cast<std::streamsize>(std::min<std::uint64_t>(static_cast<std::uint64_t>(want), limit_ - taken_));
    std::streamsize n = src_->sgetn(to, want);
    if (n > 0)
        taken_ += static_cast<std::uint64_t>(n);
    return n;
}

int PipeBuf::next()
{
    char c;
    return fill(&c, 1) == 1 ? static_cast<unsigned char>(c) : EOF;
}

std::string input_head(std::istream &in)
{
    // leading whitespace does not count towards the 4 KiB (a pretty-printed
    // answer may start with many blank lines)
    std::string h;
    int c;
    while ((c = in.get()) != EOF && std::isspace(c)) {
    }
    if (c != EOF) {
        h.resize(4096);
        h[0] = static_cast<char>(c);
        in.read(&h[1], static_cast<std::streamsize>(h.size() - 1));
        h.resize(1 + static_cast<std::size_t>(in.gcount()));
    }
    in.clear();
    in.seekg(0);
    return h;
}

bool is_atoll_fabric(const std::string &head)
{
    std::string key = first_json_key(head);
    return !key.empty() && (head.find("\"atoll-fabric\"") != std::string::npos || key == "analysis" ||
                            key == "domains" || key == "format");
}

Fabric load_fabric(const std::string &path, InputFormat fmt, const CsvColumns &columns, const NicRoles &roles,
                   const HostMap *hosts)
{
    if (fmt == InputFormat::Cache)
        return load_ibnetdiscover_cache(path);
    note_input_file(path);
    struct stat st;
    bool known = path != "-" && stat(path.c_str(), &st) == 0;
    if (path != "-" && (fmt == InputFormat::Lldp || (known && S_ISDIR(st.st_mode))))
        return load_lldp(path, roles);
    // a pipe or FIFO cannot be read twice (the format is told from its
    // first bytes) and a device may never end: standard input is "-"
    if (known && !S_ISREG(st.st_mode))
        throw InputError(path + ": not a regular file (a " +
                         (S_ISFIFO(st.st_mode) ? std::string("pipe or FIFO") : S_ISCHR(st.st_mode) ? "character device"
                                                                              : "special file") +
                         "), expected a file; give a pipe as - (standard input)");
    std::string name = path == "-" ? "<stdin>" : path;
    std::unique_ptr<PipeBuf> piped;
    std::ifstream file;
    std::istream piped_in(nullptr);
    std::istream *in = &file;
    std::string h;
    if (path == "-") {
        take_stdin("the fabric");
        // read as it streams in, not gathered first: a fabric.json's
        // elements are dropped as they are read, and an endless pipe stops
        // at the limit
        piped = std::make_unique<PipeBuf>(std::cin.rdbuf(), kStdinLimit);
        if (fmt == InputFormat::Auto)
            h = piped->read_head();
        piped_in.rdbuf(piped.get());
        in = &piped_in;
    } else {
        file.open(path, std::ios::binary);
        if (!file)
            throw InputError(path + ": cannot open: " + std::strerror(errno));
        if (fmt == InputFormat::Auto)
            h = input_head(file);
    }
    // past the limit the input ended early: whatever the reader made of it
    // (a fabric, or an error about its cut end), the limit is the message
    auto over_limit = [&]() {
        if (piped && piped->overflowed())
            throw InputError(name + ": more than 1 GiB, expected a fabric description; give a file rather than a pipe");
    };
    // a UTF-8 byte order mark (a CSV saved by a spreadsheet, a file written
    // on Windows) is not part of the text: skipped before the format is told
    static const std::string bom = "\xEF\xBB\xBF";
    if (h.empty() && path != "-") {  // a format given: the file's own first bytes
        char b[3] = {0, 0, 0};
        file.read(b, 3);
        h.assign(b, static_cast<std::size_t>(file.gcount()));
        file.clear();
        file.seekg(0);
        if (h != bom)
            h.clear();
    }
    if (h.compare(0, bom.size(), bom) == 0) {
        h.erase(0, bom.size());
        in->ignore(static_cast<std::streamsize>(bom.size()));
    }
    try {
        Fabric f = load_fabric_from(*in, name, path, fmt, h, columns, roles, hosts);
        over_limit();
        return f;
    } catch (const InputError &) {
        over_limit();
        throw;
    } catch (const std::bad_alloc &) {
        throw InputError(name + ": out of memory while reading it");
    }
}

namespace {

Fabric load_fabric_from(std::istream &in, const std::string &name, const std::string &path, InputFormat fmt,
                        const std::string &h, const CsvColumns &columns, const NicRoles &roles, const HostMap *hosts)
{
    if (fmt == InputFormat::Auto) {
        // Look at the first bytes: a cloud's keys, '{' is JSON, a NUL byte a
        // binary cache file. 4 KiB: a cloud's list answer may name its kind
        // only after a few hundred bytes of other fields.
        bool ours = is_atoll_fabric(h);
        std::string cloud = ours ? "" : cloud_format(h);
        if (!ours && looks_like_lldp(h))
            fmt = InputFormat::Lldp;
        else if (cloud == "aws")
            fmt = InputFormat::Aws;
        else if (cloud == "gcp" || (!ours && !h.empty() && h[0] == '['))
            fmt = InputFormat::Gcp;  // a bare array: gcloud's list, whose kind may come after its disks
        else if (cloud == "oci")
            fmt = InputFormat::Oci;
        else if (cloud == "nebius")
            fmt = InputFormat::Nebius;
        else if (!h.empty() && h[0] == '{')
            fmt = InputFormat::Json;
        else if (path != "-" && h.find('\0') != std::string::npos)
            return load_ibnetdiscover_cache(path);
        else if (looks_like_topology_csv(first_line(h)))
            fmt = InputFormat::Csv;
        else
            fmt = InputFormat::Text;
    }
    if (fmt == InputFormat::Csv) {
        Fabric f = parse_topology_csv(in, name, columns);
        if (hosts)
            apply_host_map(f, *hosts);
        return f;
    }
    if (fmt == InputFormat::Aws)
        return parse_aws_topology(in, name, hosts);
    if (fmt == InputFormat::Gcp)
        return parse_gcp_topology(in, name, hosts);
    if (fmt == InputFormat::Oci)
        return parse_oci_topology(in, name, hosts);
    if (fmt == InputFormat::Nebius)
        return parse_nebius_topology(in, name, hosts);
    if (fmt == InputFormat::Lldp) {
        std::string base = name.substr(name.rfind('/') == std::string::npos ? 0 : name.rfind('/') + 1);
        // (a pdsh collection: a host's table that cannot be read is warned,
        // as in a directory)
        std::vector<std::string> unread;
        std::vector<LldpNeighbor> ns = parse_lldp(in, name, base.substr(0, base.find('.')), &unread);
        std::set<std::string> read;
        for (const LldpNeighbor &n : ns)
            read.insert(n.local);
        check_unread(unread, read.size(), ns.empty());
        Fabric f = lldp_fabric(ns, name, roles);
        warn_unread(f, unread);
        return f;
    }
    if (fmt == InputFormat::Json) {
        Fabric f = load_fabric_json(in, name);
        // a cloud's fabric.json, written by discover without the map: its
        // hosts are the cloud's IDs, renamed here as a CSV's are
        if (hosts && f.kind != "ib" && f.kind != "roce" && apply_host_map(f, *hosts) == 0)
            f.warnings.push_back(name + ": the host map (--host-map) names none of its hosts: they keep the names "
                                        "it has (give the map to discover, which reads the cloud's own IDs)");
        return f;
    }
    return parse_ibnetdiscover(in, name);
}

// The temporary file beside an output, removed should the tool be killed
// while it exists (a cron job's timeout, ^C, a file size limit's SIGXFSZ):
// a killed run left topology.conf.tmp.XXXXXX files beside the site's.
// Only the tools write files so; the SPANK plugin never does.
char tmp_being_written[4096];
volatile std::sig_atomic_t tmp_exists = 0;

extern "C" void remove_tmp_and_die(int sig)
{
    if (tmp_exists)
        ::unlink(tmp_being_written);
    ::signal(sig, SIG_DFL);
    ::raise(sig);
}

class TmpGuard {
public:
    TmpGuard()
    {
        struct sigaction sa {};
        sa.sa_handler = remove_tmp_and_die;
        sigemptyset(&sa.sa_mask);
        for (std::size_t i = 0; i < kSignals; ++i)
            ::sigaction(signals_[i], &sa, &old_[i]);
    }
    // the file exists from here until gone(): a name too long to hold is not removed
    void made(const std::string &tmp)
    {
        if (tmp.size() < sizeof tmp_being_written) {
            std::memcpy(tmp_being_written, tmp.c_str(), tmp.size() + 1);
            tmp_exists = 1;
        }
    }
    void gone() { tmp_exists = 0; }
    ~TmpGuard()
    {
        tmp_exists = 0;
        for (std::size_t i = 0; i < kSignals; ++i)
            ::sigaction(signals_[i], &old_[i], nullptr);
    }
    TmpGuard(const TmpGuard &) = delete;
    TmpGuard &operator=(const TmpGuard &) = delete;

private:
    static constexpr std::size_t kSignals = 4;
    const int signals_[kSignals] = {SIGINT, SIGTERM, SIGHUP, SIGXFSZ};
    struct sigaction old_[kSignals] {};
};

}  // namespace

void write_file_atomically(const std::string &path, const std::function<void(std::ostream &)> &write)
{
    if (path == "-") {
        write(std::cout);
        std::cout.flush();
        if (!std::cout)
            throw std::runtime_error("writing standard output failed");
        return;
    }
    std::ostringstream buf;
    write(buf);
    std::string data = buf.str();
    // A symlink (a site's /etc/slurm/topology.conf pointing into its config
    // repository) is kept: the file it names is replaced. Anything but a
    // regular file (/dev/null, a FIFO) is written through, never renamed over.
    std::string target = path;
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
        char *real = ::realpath(path.c_str(), nullptr);
        struct stat to {};
        if (real) {
            target = real;
            std::free(real);
        } else if (::stat(path.c_str(), &to) != 0 || S_ISREG(to.st_mode)) {
            // (a link that resolves to no path but opens, /dev/stdout on a
            // pipe, is written through below)
            throw std::runtime_error(path + ": a symbolic link to nothing (" + std::strerror(errno) + "), expected a file to replace");
        }
    }
    bool existed = ::stat(target.c_str(), &st) == 0;
    refuse_input_as_output(path);
    if (existed && !S_ISREG(st.st_mode)) {
        if (S_ISDIR(st.st_mode))
            throw std::runtime_error(path + ": a directory, expected a file name");
        // a FIFO no process reads would block the open for ever (a cron
        // job wedged): a reader is waited for 10 s at most, then it is
        // written as a pipe is
        const int flags = O_WRONLY | O_CLOEXEC | (S_ISFIFO(st.st_mode) ? O_NONBLOCK : 0);
        int fd = ::open(target.c_str(), flags);
        for (int tries = 0; fd < 0 && errno == ENXIO && tries < 200; ++tries) {
            ::usleep(50000);
            fd = ::open(target.c_str(), flags);
        }
        if (fd < 0 && errno == ENXIO)
            throw std::runtime_error(path + ": a FIFO no process read within 10 s, expected a file (or a pipe being read)");
        if (fd < 0)
            throw std::runtime_error(path + ": cannot open for writing: " + std::strerror(errno));
        if (S_ISFIFO(st.st_mode))
            ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
        std::size_t off = 0;
        while (off < data.size()) {
            ssize_t w = ::write(fd, data.data() + off, data.size() - off);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0) {
                int e = w < 0 ? errno : EIO;
                ::close(fd);
                throw std::runtime_error(path + ": write failed: " + std::strerror(e));
            }
            off += static_cast<std::size_t>(w);
        }
        if (::close(fd) != 0)
            throw std::runtime_error(path + ": write failed: " + std::strerror(errno));
        return;
    }
    const std::string &path_ = target;
    std::string tmp = path_ + ".tmp.XXXXXX";
    TmpGuard guard;
    int fd = mkstemp(&tmp[0]);
    if (fd < 0)
        throw std::runtime_error(path + ": cannot create a temporary file beside it: " + std::strerror(errno));
    guard.made(tmp);
    std::size_t off = 0;
    while (off < data.size()) {
        ssize_t w = ::write(fd, data.data() + off, data.size() - off);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            ::close(fd);
            ::unlink(tmp.c_str());
            throw std::runtime_error(path + ": write failed: " + std::strerror(e));
        }
        off += static_cast<std::size_t>(w);
    }
    // a file replaced keeps its owner and mode (a site's 0640 slurm:slurm
    // topology.conf); a new one is 0644, for Slurm's daemons to read
    if (existed && S_ISREG(st.st_mode)) {
        if (::fchown(fd, st.st_uid, st.st_gid) != 0 && ::geteuid() == 0) {
            int e = errno;
            ::close(fd);
            ::unlink(tmp.c_str());
            throw std::runtime_error(path + ": cannot keep its owner: " + std::strerror(e));
        }
        fchmod(fd, st.st_mode & 07777);
    } else {
        fchmod(fd, 0644);
    }
    if (fsync(fd) != 0 || ::close(fd) != 0) {
        int e = errno;
        ::unlink(tmp.c_str());
        throw std::runtime_error(path + ": write failed: " + std::strerror(e));
    }
    if (std::rename(tmp.c_str(), path_.c_str()) != 0) {
        int e = errno;
        ::unlink(tmp.c_str());
        throw std::runtime_error(path + ": cannot rename the new file into place: " + std::strerror(e));
    }
    guard.gone();
}

}  // namespace atl
