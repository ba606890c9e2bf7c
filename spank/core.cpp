#include "spank/core.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cerrno>
#include <cstring>
#include <deque>
#include <dirent.h>
#include <fcntl.h>
#include <sstream>
#include <ctime>
#include <set>
#include <stdexcept>
#include <fstream>
#include <glob.h>
#include <sys/stat.h>
#include <unistd.h>

#include "topology/io.hpp"
#include "topology/json.hpp"
#include "topology/slurm.hpp"
#include "spank/userfile.hpp"

namespace atl {
namespace {

bool parse_bool(const std::string &key, const std::string &v)
{
    if (v == "yes" || v == "true" || v == "1" || v == "on")
        return true;
    if (v == "no" || v == "false" || v == "0" || v == "off")
        return false;
    throw std::invalid_argument("plugstack.conf: " + key + "=" + escaped(v) + ": expected yes or no");
}

long parse_seconds(const std::string &key, const std::string &v)
{
    char *end = nullptr;
    errno = 0;
    long x = std::strtol(v.c_str(), &end, 10);
    long mult = 1;
    std::string unit = end ? end : "";
    if (unit == "" || unit == "s")
        mult = 1;
    else if (unit == "m")
        mult = 60;
    else if (unit == "h")
        mult = 3600;
    else if (unit == "d")
        mult = 86400;
    else
        mult = -1;
    if (v.empty() || end == v.c_str() || errno || x < 0 || mult < 0)
        throw std::invalid_argument("plugstack.conf: " + key + "=" + escaped(v) + ": expected seconds (or a number with s, m, h, d)");
    return x * mult;
}

bool known_profile(const std::string &p)
{
    for (const char *k : {"ib", "roce", "azure", "aws", "gcp", "generic", "cloud"})
        if (p == k)
            return true;
    return false;
}

}  // namespace

PluginConfig parse_plugstack(const std::vector<std::string> &args)
{
    PluginConfig c;
    for (const std::string &a : args) {
        std::size_t eq = a.find('=');
        std::string k = a.substr(0, eq), v = eq == std::string::npos ? "" : a.substr(eq + 1);
        if (k == "strict" && eq == std::string::npos) {
            c.strict = true;
            continue;
        }
        if (eq == std::string::npos)
            throw std::invalid_argument("plugstack.conf: \"" + escaped(a) + "\": expected key=value");
        if (k == "fabric")
            c.fabric = v;
        else if (k == "policy") {
            if (std::find(policy_names().begin(), policy_names().end(), v) == policy_names().end())
                throw std::invalid_argument("plugstack.conf: policy=" + escaped(v) + ": expected atoll, slurm-tree, first-fit or random");
            c.policy = v;
        } else if (k == "default_island") {
            parse_island(v);  // validates
            c.default_island = v;
        } else if (k == "env") {
            if (v != "auto" && v != "off")
                throw std::invalid_argument("plugstack.conf: env=" + escaped(v) + ": expected auto or off");
            c.env = v == "auto";
        } else if (k == "sharp") {
            if (v != "auto" && v != "off")
                throw std::invalid_argument("plugstack.conf: sharp=" + escaped(v) + ": expected auto or off");
            c.sharp = v == "auto";
        } else if (k == "roce_tc") {
            char *end = nullptr;
            long x = std::strtol(v.c_str(), &end, 10);
            if (v.empty() || *end || x < 0 || x > 255)
                throw std::invalid_argument("plugstack.conf: roce_tc=" + escaped(v) + ": expected a traffic class from 0 to 255");
            // the class byte is DSCP << 2 | ECN: both ECN bits set is CE, "congestion
            // experienced", which switches would take for a marked packet
            if ((x & 3) == 3)
                throw std::invalid_argument("plugstack.conf: roce_tc=" + escaped(v) +
                                            ": both ECN bits set (CE), expected DSCP << 2 with ECN 0, 1 or 2, e.g. 106 "
                                            "(DSCP 26, ECT(0))");
            c.roce_tc = static_cast<int>(x);
        } else if (k == "socket_ifname")
            c.socket_ifname = v;
        else if (k == "hca")
            c.hca = v;
        else if (k == "strict")
            c.strict = parse_bool(k, v);
        else if (k == "island_wait")
            c.island_wait = static_cast<int>(parse_seconds(k, v));
        else if (k == "leaf_wait")
            c.leaf_wait = static_cast<int>(parse_seconds(k, v));
        else if (k == "max_age")
            c.max_age = parse_seconds(k, v);
        else if (k == "fabric_type") {
            if (!known_profile(v))
                throw std::invalid_argument("plugstack.conf: fabric_type=" + escaped(v) +
                                            ": expected ib, roce, azure, aws, gcp, generic or cloud");
            c.fabric_type = v;
        } else if (k == "proc_root")
            c.proc_root = v;
        else if (k == "constrain_devices") {
            if (v == "auto")
                c.constrain_devices = -1;
            else
                c.constrain_devices = parse_bool(k, v) ? 1 : 0;
        } else if (k == "roce_fifo_tc") {
            char *end = nullptr;
            long x = std::strtol(v.c_str(), &end, 10);
            if (v.empty() || *end || x < 0 || x > 255 || (x & 3) == 3)
                throw std::invalid_argument("plugstack.conf: roce_fifo_tc=" + escaped(v) +
                                            ": expected a traffic class from 0 to 255 without both ECN bits set");
            c.fifo_tc = static_cast<int>(x);
        } else if (k == "hwloc_xml")
            c.hwloc_xml = v;
        else if (k == "sysfs_root")
            c.sysfs_root = v;
        else if (k == "gid_index") {
            char *end = nullptr;
            long x = std::strtol(v.c_str(), &end, 10);
            if (v.empty() || *end || x < 0 || x > 255)
                throw std::invalid_argument("plugstack.conf: gid_index=" + escaped(v) + ": expected a GID index from 0 to 255");
            c.gid_index = static_cast<int>(x);
        }
        else
            throw std::invalid_argument("plugstack.conf: unknown key \"" + escaped(k) +
                                        "\" (known: fabric, policy, default_island, env, sharp, roce_tc, "
                                        "socket_ifname, hca, strict, island_wait, leaf_wait, max_age, fabric_type, hwloc_xml, "
                                        "sysfs_root, proc_root, constrain_devices, gid_index, roce_fifo_tc)");
    }
    return c;
}

namespace {

std::vector<std::string> words(const std::string &line)
{
    std::string l = line.substr(0, line.find('#'));
    std::vector<std::string> w;
    std::istringstream s(l);
    for (std::string x; s >> x;)
        w.push_back(x);
    return w;
}

void scan_plugstack(const std::string &file, int depth, PlugstackLine &out)
{
    std::ifstream in(file);
    if (!in)
        return;  // as Slurm: a missing plugstack file loads no plugin
    std::string line;
    for (int lineno = 1; std::getline(in, line) && !out.found; ++lineno) {
        std::vector<std::string> w = words(line);
        if (w.size() >= 2 && w[0] == "include") {
            if (depth >= 4)
                continue;
            std::string pat = w[1][0] == '/' ? w[1] : directory_of(file) + "/" + w[1];
            glob_t g{};
            if (glob(pat.c_str(), 0, nullptr, &g) == 0)
                for (std::size_t i = 0; i < g.gl_pathc && !out.found; ++i)
                    scan_plugstack(g.gl_pathv[i], depth + 1, out);
            globfree(&g);
            continue;
        }
        if (w.size() < 2 || (w[0] != "required" && w[0] != "optional"))
            continue;
        const std::string &path = w[1];
        auto slash = path.rfind('/');
        if (path.substr(slash == std::string::npos ? 0 : slash + 1) != "atoll.so")
            continue;
        out.found = true;
        out.where = file + ":" + std::to_string(lineno);
        out.args.assign(w.begin() + 2, w.end());
        try {
            out.config = parse_plugstack(out.args);
        } catch (const std::invalid_argument &e) {
            throw std::invalid_argument(out.where + ": " + e.what());
        }
    }
}

}  // namespace

PlugstackLine read_plugstack_line(const std::string &slurm_conf)
{
    std::string stack = directory_of(slurm_conf) + "/plugstack.conf";
    std::ifstream conf(slurm_conf);
    std::string named = slurm_conf_value(conf, "PlugStackConfig");
    if (!named.empty())
        stack = named;
    PlugstackLine out;
    scan_plugstack(stack, 0, out);
    return out;
}

EnvMode parse_env_mode(const std::string &v)
{
    if (v == "auto")
        return EnvMode::Auto;
    if (v == "off")
        return EnvMode::Off;
    if (v == "show")
        return EnvMode::Show;
    throw std::invalid_argument("--fabric-env=" + escaped(v) + ": expected auto, off or show");
}

SharpMode parse_sharp_mode(const std::string &v)
{
    if (v == "auto")
        return SharpMode::Auto;
    if (v == "on")
        return SharpMode::On;
    if (v == "off")
        return SharpMode::Off;
    throw std::invalid_argument("--fabric-sharp=" + escaped(v) + ": expected auto, on or off");
}

namespace {

struct Fd {
    int fd = -1;
    Fd() = default;
    explicit Fd(int f) : fd(f) {}
    Fd(const Fd &) = delete;
    Fd &operator=(const Fd &) = delete;
    Fd(Fd &&o) noexcept : fd(o.fd) { o.fd = -1; }
    ~Fd()
    {
        if (fd >= 0)
            ::close(fd);
    }
    int release()
    {
        int f = fd;
        fd = -1;
        return f;
    }
};

bool trusted_owner(uid_t uid, uid_t owner) { return uid == 0 || uid == owner; }

std::string owner_text(uid_t owner)
{
    return owner == 0 ? "root" : "root or uid " + std::to_string(owner);
}

}  // namespace

int open_trusted(const std::string &path, const std::string &what, struct stat &st, uid_t owner)
{
    auto refuse = [&](const std::string &where, const std::string &why) -> void {
        throw std::runtime_error(what + " " + path + ": refused: " + where + why);
    };
    // errno as the message; EACCES says whose read failed: slurmstepd reads
    // these as the job's user (user_init runs under its euid), not as root
    auto failed = [&](const std::string &where) -> void {
        int e = errno;
        std::string m = what + " " + path + ": " + where + std::strerror(e);
        if (e == EACCES)
            m += ": not readable by uid " + std::to_string(geteuid()) +
                 " (slurmstepd reads it as the job's user): make it world-readable (0644, its directories 0755)";
        throw std::runtime_error(m);
    };
    if (path.empty() || path[0] != '/')
        refuse("", "expected an absolute path");
    std::deque<std::string> comps;
    auto push_path = [&](const std::string &p, bool front) {
        std::vector<std::string> parts;
        std::size_t i = 0;
        while (i <= p.size()) {
            std::size_t j = p.find('/', i);
            if (j == std::string::npos)
                j = p.size();
            std::string c = p.substr(i, j - i);
            if (!c.empty() && c != ".")
                parts.push_back(c);
            i = j + 1;
        }
        if (front)
            comps.insert(comps.begin(), parts.begin(), parts.end());
        else
            comps.insert(comps.end(), parts.begin(), parts.end());
    };
    push_path(path, false);
    std::vector<Fd> dirs;
    std::vector<std::string> names;  // the directories walked, for messages
    auto open_root = [&]() {
        dirs.clear();
        names.clear();
        dirs.emplace_back(::open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
        names.push_back("/");
    };
    auto check_dir = [&]() {
        struct stat ds;
        if (dirs.back().fd < 0 || fstat(dirs.back().fd, &ds) != 0)
            failed("");
        if (!trusted_owner(ds.st_uid, owner))
            refuse("directory " + names.back(), " is owned by uid " + std::to_string(ds.st_uid) + ", expected " + owner_text(owner));
        if ((ds.st_mode & (S_IWGRP | S_IWOTH)) && !((ds.st_mode & S_ISVTX) && ds.st_uid == 0))
            refuse("directory " + names.back(), " is writable by someone other than root");
    };
    open_root();
    check_dir();
    int links = 0;
    while (!comps.empty()) {
        std::string c = comps.front();
        comps.pop_front();
        if (c == "..") {
            if (dirs.size() > 1) {
                dirs.pop_back();
                names.pop_back();
            }
            continue;
        }
        std::string here = (names.back() == "/" ? "/" : names.back() + "/") + c;
        struct stat ls;
        if (fstatat(dirs.back().fd, c.c_str(), &ls, AT_SYMLINK_NOFOLLOW) != 0)
            failed("");
        if (S_ISLNK(ls.st_mode)) {
            if (!trusted_owner(ls.st_uid, owner))
                refuse("symbolic link " + here, " is owned by uid " + std::to_string(ls.st_uid) + ", expected " + owner_text(owner));
            if (++links > 16)
                refuse("", "more than 16 symbolic links");
            std::vector<char> buf(4096);
            ssize_t n = readlinkat(dirs.back().fd, c.c_str(), buf.data(), buf.size() - 1);
            if (n < 0)
                failed(here + ": ");
            std::string target(buf.data(), static_cast<std::size_t>(n));
            if (!target.empty() && target[0] == '/') {
                open_root();
                check_dir();
            }
            push_path(target, true);
            continue;
        }
        if (!comps.empty()) {
            int fd = openat(dirs.back().fd, c.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (fd < 0)
                failed(here + ": ");
            dirs.emplace_back(fd);
            names.push_back(here);
            check_dir();
            continue;
        }
        // the file itself: never blocks (a FIFO is refused below), never a link
        Fd f(openat(dirs.back().fd, c.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
        if (f.fd < 0)
            failed("");
        if (fstat(f.fd, &st) != 0)
            failed("");
        if (!S_ISREG(st.st_mode))
            refuse("", "not a regular file");
        if (!trusted_owner(st.st_uid, owner))
            refuse("", "owned by uid " + std::to_string(st.st_uid) + ", expected " + owner_text(owner));
        if (st.st_mode & (S_IWGRP | S_IWOTH))
            refuse("", "writable by someone other than root");
        int flags = fcntl(f.fd, F_GETFL);
        if (flags >= 0)
            fcntl(f.fd, F_SETFL, flags & ~O_NONBLOCK);
        return f.release();
    }
    refuse("", "it names a directory, expected a file");
    return -1;
}

std::string read_trusted(int fd, const std::string &path, std::size_t max)
{
    std::string data;
    char buf[65536];
    for (;;) {
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            throw std::runtime_error(path + ": read failed: " + std::strerror(errno));
        if (n == 0)
            break;
        if (data.size() + static_cast<std::size_t>(n) > max)
            throw std::runtime_error(path + ": refused: larger than " + std::to_string(max >> 20) + " MiB");
        data.append(buf, static_cast<std::size_t>(n));
    }
    return data;
}

std::unique_ptr<FabricView> load_fabric_view(const PluginConfig &cfg, const std::string &path)
{
    if (path.empty())
        throw std::runtime_error("no fabric file configured (plugstack.conf fabric=)");
    struct stat st;
    Fd fd(open_trusted(path, "fabric file", st, cfg.owner));
    if (cfg.max_age > 0 && std::time(nullptr) - st.st_mtime > cfg.max_age)
        throw std::runtime_error("fabric file " + path + ": stale, last written " +
                                 std::to_string((std::time(nullptr) - st.st_mtime) / 86400) +
                                 " days ago (max_age is " + std::to_string(cfg.max_age / 86400) + " days)");
    std::string data = read_trusted(fd.fd, "fabric file " + path, std::size_t(256) << 20);
    auto v = std::make_unique<FabricView>();
    std::istringstream in(data);
    std::size_t first = data.find_first_not_of(" \t\r\n");
    if (data.compare(0, std::strlen(summary_magic), summary_magic) == 0 ||
        data.compare(0, std::strlen(summary_magic_v1), summary_magic_v1) == 0) {
        v->summary = read_summary(in, path);
    } else if (first != std::string::npos && data[first] == '{') {
        Topology t = analyse(load_fabric_json(in, path));
        v->summary = summarise(t, Cluster(t, v->kind));
    } else {
        throw std::runtime_error("fabric file " + path +
                                 ": neither the view (atoll-topo slurm --format view) nor a fabric.json");
    }
    v->profile = !cfg.fabric_type.empty() ? cfg.fabric_type
                 : known_profile(v->summary.kind) ? v->summary.kind
                                                  : "ib";
    if (v->profile == "roce")
        v->kind = FabricKind::RoCE;
    else if (v->profile == "aws" || v->profile == "gcp" || v->profile == "cloud" || v->profile == "generic")
        v->kind = FabricKind::Cloud;
    return v;
}

namespace {

bool device_profile(const std::string &p) { return p == "ib" || p == "roce" || p == "azure"; }

const char *profile_note(const std::string &p)
{
    if (p == "aws")
        return "AWS: aws-ofi-nccl configures EFA itself";
    if (p == "gcp")
        return "GCP: the image's gIB setup (set_nccl_env.sh) configures NCCL";
    if (p == "cloud")
        return "a cloud fabric: its own NCCL plugin configures the network";
    if (p == "generic")
        return "a site's CSV topology names no adapters";
    return "";
}

std::vector<int> int_list(const std::string &s, bool &ok)
{
    std::vector<int> v;
    ok = true;
    std::size_t p = 0;
    while (p < s.size()) {
        char *end = nullptr;
        errno = 0;
        long x = std::strtol(s.c_str() + p, &end, 10);
        if (end == s.c_str() + p || errno || x < 0 || x > 4095) {
            ok = false;
            return {};
        }
        v.push_back(static_cast<int>(x));
        p = static_cast<std::size_t>(end - s.c_str());
        if (p < s.size() && s[p] != ',') {
            ok = false;
            return {};
        }
        ++p;
    }
    return v;
}

}  // namespace

namespace {

// An ibverbs device name as the kernel makes them (mlx5_0, mlx5_bond_0,
// rocep105s0, irdma0): anything else, a comma, '=', '^', ':' or a control
// byte from a renamed device, would change what NCCL_IB_HCA says
std::string device_name_problem(const std::string &n)
{
    if (n.empty() || n.size() > 63)
        return "of " + std::to_string(n.size()) + " characters, expected 1 to 63";
    if (!std::isalnum(static_cast<unsigned char>(n[0])))
        return "starting with " + shown(n.substr(0, 1)) + ", expected a letter or digit";
    for (char c : n)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.'))
            return "holding " + shown(std::string(1, c)) + ", expected only letters, digits, '_', '-' and '.'";
    return "";
}

}  // namespace

NodeDevices node_devices(const FabricView &f, const PluginConfig &cfg, const std::string &node,
                         const std::vector<NodePort> &ports)
{
    NodeDevices d;
    auto me = f.summary.hosts.find(node);
    if (me == f.summary.hosts.end() || !device_profile(f.profile))
        return d;
    const bool roce = f.profile == "roce";
    const char *want = roce ? "Ethernet" : "InfiniBand";
    auto has = [](const std::vector<std::string> &v, const std::string &x) {
        return std::find(v.begin(), v.end(), x) != v.end();
    };
    for (const auto &hp : me->second.hcas) {
        const NodePort *hit = nullptr;
        for (const NodePort &p : ports)
            if (p.hca == hp.first && p.port == hp.second)
                hit = &p;
        if (!hit && roce)  // LLDP names the netdev: the RDMA port behind it
            for (const NodePort &p : ports)
                if (has(p.netdevs, hp.first))
                    hit = &p;
        if (!hit && roce)  // a RoCE LAG: LLDP names the bond's members
            for (const NodePort &p : ports)
                if (has(p.lower, hp.first))
                    hit = &p;
        std::string name = hp.first + " port " + std::to_string(hp.second);
        if (!hit) {
            d.problems.push_back(name + " is not an RDMA port of this node");
            continue;
        }
        std::string bad = device_name_problem(hit->hca);
        if (!bad.empty()) {
            d.problems.push_back("RDMA device " + shown(hit->hca) + " behind " + name + " refused: a name " + bad);
            continue;
        }
        if (!hca_selected(cfg.hca, hit->hca))
            continue;
        if (hit->link_layer != want) {
            d.problems.push_back(name + " (" + hit->hca + ") is " + (hit->link_layer.empty() ? "of no link layer" : hit->link_layer) +
                                 ", expected " + want);
            continue;
        }
        if (std::find(d.ports.begin(), d.ports.end(), std::make_pair(hit->hca, hit->port)) != d.ports.end())
            continue;
        d.ports.push_back({hit->hca, hit->port});
        if (!hit->active())
            d.problems.push_back(hit->hca + " port " + std::to_string(hit->port) + " is " +
                                 (hit->state.empty() ? "in no known state" : hit->state) + " (NCCL skips it)");
        else {
            d.usable = true;
            d.active.push_back({hit->hca, hit->port});
        }
        if (roce && hit->active() && routable_gids(*hit).empty())
            d.problems.push_back(hit->hca + " port " + std::to_string(hit->port) +
                                 " has no routable RoCE v2 GID (IPv4, or IPv6 not link-local): check its IP address and VLAN");
    }
    return d;
}

NodeFacts read_node_facts(const FabricView &f, const PluginConfig &cfg, const std::string &node,
                          const std::string &home, const std::string &nccl_conf_file, NodeDevices &dev)
{
    NodeFacts facts;
    facts.ports = node_ports(cfg.sysfs_root.empty() ? "/sys" : per_node_path(cfg.sysfs_root, node));
    facts.gpus = nvidia_gpus(cfg.proc_root.empty() ? "/proc" : per_node_path(cfg.proc_root, node));
    // as NCCL's initEnvFunc (misc/param.cc): NCCL_CONF_FILE instead of
    // HOME/.nccl.conf, then /etc/nccl.conf
    facts.nccl_conf = nccl_conf_vars({"/etc/nccl.conf"}, {!nccl_conf_file.empty() ? nccl_conf_file : home.empty() ? "" : home + "/.nccl.conf"},
                                     facts.problems);
    facts.constrained = devices_constrained(cfg);
    dev = node_devices(f, cfg, node, facts.ports);
    return facts;
}

std::map<std::string, std::string> nccl_conf_vars(const std::vector<std::string> &root_files,
                                                  const std::vector<std::string> &user_files,
                                                  std::vector<std::string> &problems, std::chrono::milliseconds bound)
{
    constexpr std::size_t max = 65536;
    std::vector<std::pair<std::string, std::string>> texts;  // path, text
    for (const std::string &path : root_files)
        if (!path.empty())
            texts.emplace_back(path, read_small_file(path, max).value_or(""));
    auto deadline = std::chrono::steady_clock::now() + bound;
    for (const std::string &path : user_files) {
        if (path.empty())
            continue;
        UserFile u = read_user_file(path, max, deadline);
        if (u.status == UserFile::Status::TimedOut)
            problems.push_back("the user's nccl.conf " + shown(path, 200) + " was not read within " +
                               (bound.count() % 1000 ? std::to_string(bound.count()) + " ms"
                                                       : std::to_string(bound.count() / 1000) + " s") +
                               " (a stalled file system?): atoll does not know which NCCL variables it sets");
        texts.emplace_back(path, u.text);
    }
    std::map<std::string, std::string> out;
    for (const auto &pt : texts) {
        const std::string &path = pt.first;
        std::istringstream in(pt.second);
        std::string line;
        while (std::getline(in, line)) {
            // as NCCL's setEnvFile: '#' in the first column only, the name
            // verbatim up to the first '=' (" NCCL_IB_HCA = x" sets another
            // variable than NCCL_IB_HCA), a CR before the newline dropped
            if (!line.empty() && line.back() == '\r')
                line.pop_back();
            if (line.empty() || line[0] == '#')
                continue;
            std::size_t eq = line.find('=');
            if (eq == std::string::npos || eq == 0)
                continue;
            std::string k = line.substr(0, std::min<std::size_t>(eq, 1023));
            if (!out.count(k))
                out[k] = path;
        }
    }
    return out;
}

namespace {

// NCCL_IB_GID_INDEX and UCX_IB_GID_INDEX on RoCE, from each compute port's
// GID table and what NCCL (ncclIbGetGidIndex, >= 2.21) and UCX
// (uct_ib_device_select_gid) would take by themselves: set only where it is
// the one routable RoCE v2 GID of every port, and say when it is the
// libraries' own choice.
template <class Add, class Skip>
void roce_gid_env(const PluginConfig &cfg, const NodeFacts &facts, const NodeDevices &dev,
                  const std::function<bool(const std::string &)> &user_has, bool hca_ours, Add add, Skip skip)
{
    std::vector<const NodePort *> ports;
    for (const NodePort &p : facts.ports)
        for (const auto &hp : dev.active)
            if (p.hca == hp.first && p.port == hp.second)
                ports.push_back(&p);
    auto port_name = [](const NodePort *p) { return p->hca + ":" + std::to_string(p->port); };
    if (cfg.gid_index >= 0) {
        // the site's pin, unless it names no routable RoCE v2 GID on a port here
        for (const NodePort *p : ports) {
            const GidEntry *e = nullptr;
            for (const GidEntry &g : p->gids)
                if (g.index == cfg.gid_index)
                    e = &g;
            std::string bad = !e ? "no address" : e->version != 2 ? "a RoCE v1 GID" : e->link_local() ? "a link-local GID (" + e->gid + ")" : "";
            if (!bad.empty()) {
                std::string why = "gid_index=" + std::to_string(cfg.gid_index) + " is " + bad + " on " + port_name(p) +
                                  ": not set (a wrong GID times out every connection)";
                skip("NCCL_IB_GID_INDEX", why);
                skip("UCX_IB_GID_INDEX", why);
                return;
            }
        }
        add("NCCL_IB_GID_INDEX", std::to_string(cfg.gid_index), "site RoCE GID index (gid_index)");
        add("UCX_IB_GID_INDEX", std::to_string(cfg.gid_index), "site RoCE GID index (gid_index)");
        return;
    }
    for (const char *u : {"NCCL_IB_ADDR_FAMILY", "NCCL_IB_ADDR_RANGE", "NCCL_IB_ROCE_VERSION_NUM"}) {
        auto conf = facts.nccl_conf.find(u);
        if (user_has(u) || conf != facts.nccl_conf.end()) {
            skip("NCCL_IB_GID_INDEX", std::string(conf != facts.nccl_conf.end() && !user_has(u) ? conf->second + "'s " : "the user's ") +
                                          u + " chooses NCCL's GID (an index would override it)");
            ports.clear();
            break;
        }
    }
    // NCCL_IB_GID_INDEX applies to every device NCCL opens: only where those
    // are the ports atoll checked, the ones it put in NCCL_IB_HCA
    if (!ports.empty() && !hca_ours) {
        skip("NCCL_IB_GID_INDEX", "NCCL_IB_HCA is not atoll's (the user's or an nccl.conf's): the devices it names were "
                                  "not checked, and NCCL picks each one's GID itself");
        ports.clear();
    }
    // UCX takes each port's IPv4 RoCE v2 GID (then IPv6 not link-local) itself
    std::string ucx;
    for (const NodePort *p : ports)
        ucx += (ucx.empty() ? "" : ", ") + port_name(p) + " " + std::to_string(ucx_gid_index(*p));
    if (!ucx.empty())
        skip("UCX_IB_GID_INDEX", "UCX picks each port's RoCE v2 GID itself, IPv4 first (" + ucx + ")");
    if (ports.empty())
        return;
    std::set<int> want;
    bool nccl_same = true, v6 = false;
    for (const NodePort *p : ports) {
        std::vector<const GidEntry *> r = routable_gids(*p);
        if (r.empty()) {
            skip("NCCL_IB_GID_INDEX", port_name(p) + " has no routable RoCE v2 GID (only link-local or none): check its "
                                                      "IP address; NCCL would take " + std::to_string(nccl_gid_index(*p)));
            return;
        }
        // two addresses of one family (a second IP, a VLAN or macvlan device):
        // which one is the compute network is not known here
        if (r.size() > 1 && r[1]->ipv4() == r[0]->ipv4()) {
            skip("NCCL_IB_GID_INDEX", port_name(p) + " has several routable RoCE v2 GIDs (" + std::to_string(r[0]->index) + " on " +
                                          (r[0]->ndev.empty() ? "?" : r[0]->ndev) + ", " + std::to_string(r[1]->index) + " on " +
                                          (r[1]->ndev.empty() ? "?" : r[1]->ndev) +
                                          "): NCCL and UCX take the first; set gid_index= if another is the compute network");
            return;
        }
        want.insert(r[0]->index);
        v6 = v6 || !r[0]->ipv4();
        nccl_same = nccl_same && nccl_gid_index(*p) == r[0]->index;
    }
    if (want.size() == 1 && nccl_same) {
        add("NCCL_IB_GID_INDEX", std::to_string(*want.begin()),
            std::string("the ") + (v6 ? "IPv6" : "IPv4") +
                " RoCE v2 GID of every compute port here: what NCCL >= 2.21 picks itself; NCCL < 2.21 would take 0, "
                "a link-local GID that routers do not forward");
    } else if (want.size() == 1) {
        add("NCCL_IB_GID_INDEX", std::to_string(*want.begin()),
            std::string("the only routable RoCE v2 GID of every compute port here (") + (v6 ? "IPv6" : "IPv4") +
                "); NCCL alone would take " + std::to_string(nccl_gid_index(*ports[0])) + " on " + port_name(ports[0]));
    } else if (nccl_same) {
        skip("NCCL_IB_GID_INDEX", "the ports' IPv4 RoCE v2 GIDs have different indexes: NCCL >= 2.21 picks each itself "
                                  "(one index cannot serve them; NCCL < 2.21 needs gid_index=)");
    } else {
        skip("NCCL_IB_GID_INDEX", "the ports' routable RoCE v2 GIDs have different indexes and NCCL alone would take "
                                  "another on some: set gid_index= or NCCL_IB_ADDR_FAMILY");
    }
}

}  // namespace

std::vector<EnvVar> node_env(const FabricView &f, const PluginConfig &cfg, const UserOptions &opt,
                             const StepInfo &step, const NodeFacts &facts,
                             const std::function<bool(const std::string &)> &user_has)
{
    const FabricSummary &s = f.summary;
    auto me = s.hosts.find(step.node);
    if (me == s.hosts.end())
        throw std::runtime_error("node " + step.node + " is not in the fabric " + s.source);
    std::set<int> leaves;
    std::size_t known = 0;
    std::vector<std::string> unknown;
    bool rails_ok = true;
    int per_leaf = 0;
    for (const auto &h : step.nodes) {
        auto it = s.hosts.find(h);
        if (it == s.hosts.end()) {
            unknown.push_back(h);
            continue;
        }
        ++known;
        leaves.insert(it->second.leaf);
        rails_ok = rails_ok && it->second.rails_ok;
        per_leaf = it->second.per_leaf == 0 ? 99 : std::max(per_leaf, it->second.per_leaf);
    }
    // the smallest island above every leaf of the step (parents are checked
    // to rise a level each, so a chain has at most four links)
    auto chain = [&](int i) {
        std::vector<int> c;
        for (; i >= 0 && c.size() < 8; i = s.islands[static_cast<std::size_t>(i)].parent)
            c.push_back(i);
        return c;
    };
    int island = -1;
    if (!leaves.empty()) {
        std::vector<std::vector<int>> chains;
        for (int l : leaves)
            chains.push_back(chain(l));
        for (int cand : chains[0]) {
            bool all = true;
            for (const auto &c : chains)
                all = all && std::find(c.begin(), c.end(), cand) != c.end();
            if (all) {
                island = cand;
                break;
            }
        }
    }
    std::vector<EnvVar> out;
    auto add = [&](const std::string &name, const std::string &value, const std::string &why) {
        EnvVar v{name, value, why, false, true};
        auto conf = facts.nccl_conf.find(name);
        if (user_has(name) && !step.atoll_set.count(name)) {
            v.kept = true;
        } else if (conf != facts.nccl_conf.end()) {
            v.kept = true;
            v.value.clear();
            v.why = "set in " + conf->second;
        }
        out.push_back(v);
    };
    auto skip = [&](const std::string &name, const std::string &why) {
        out.push_back(EnvVar{name, "", why, false, false});
    };
    if (!unknown.empty()) {
        // a node the fabric does not place: the step's island, leaves and
        // hops are not known, and what the placed nodes alone give is wrong
        std::string why = std::to_string(unknown.size()) + " step node(s) absent from the fabric file (" +
                          unknown[0] + (unknown.size() > 1 ? ", ..." : "") + "): the step's island is not known";
        skip("ATOLL_ISLAND", why);
        skip("ATOLL_LEAVES", why);
        skip("ATOLL_HOPS", why);
    } else if (island >= 0) {
        const ViewIsland &is = s.islands[static_cast<std::size_t>(island)];
        std::string names;
        for (int l : leaves)
            names += (names.empty() ? "" : ",") + s.islands[static_cast<std::size_t>(l)].name;
        std::string whose = step.batch ? "the job's nodes" : "the step's nodes";
        add("ATOLL_ISLAND", is.name, "the smallest island holding " + whose + " (" + to_string(is.level) + ")");
        add("ATOLL_LEAVES", names, std::to_string(leaves.size()) + " leaf island(s) spanned");
        add("ATOLL_HOPS", std::to_string(known > 1 ? is.hops : 0), "cables on the longest host-to-host path");
    }
    if (!unknown.empty())
        add("ATOLL_UNMAPPED", std::to_string(unknown.size()), "step nodes absent from the fabric file");
    auto record = [&]() {
        std::string r = env_set_record(out);
        if (!r.empty())
            out.push_back(EnvVar{"ATOLL_ENV_SET", r, "what atoll set (name:hash of the value), recomputed by a later step",
                                 false, true});
        return out;
    };
    if (!device_profile(f.profile)) {
        skip("NCCL_IB_HCA", profile_note(f.profile));
        return record();
    }
    // devices as this node names them
    NodeDevices dev = node_devices(f, cfg, step.node, facts.ports);
    std::string hcas;
    for (const auto &hp : dev.ports)
        hcas += (hcas.empty() ? "=" : ",") + hp.first + ":" + std::to_string(hp.second);
    if (dev.usable)
        add("NCCL_IB_HCA", hcas,
            "this node's compute-rail adapters, checked in sysfs" +
                (dev.problems.empty() ? std::string() : "; " + dev.problems[0] +
                                                            (dev.problems.size() > 1 ? " (and more)" : "")));
    else if (facts.ports.empty())
        skip("NCCL_IB_HCA", "no RDMA device in sysfs (" + (cfg.sysfs_root.empty() ? std::string("/sys") : per_node_path(cfg.sysfs_root, step.node)) +
                                "/class/infiniband): NCCL's own choice is left");
    else
        skip("NCCL_IB_HCA", "no compute-rail adapter of the fabric is ACTIVE here" +
                                (dev.problems.empty() ? std::string() : " (" + dev.problems[0] + ")") +
                                ": NCCL's own choice is left");
    if (!cfg.socket_ifname.empty())
        add("NCCL_SOCKET_IFNAME", cfg.socket_ifname, "site configuration (socket_ifname)");
    if (dev.usable && s.rail_optimised && !s.rails_meet && rails_ok && unknown.empty())
        add("NCCL_CROSS_NIC", "0", "rail-aligned step on rail planes that do not meet above the leaves");
    if (f.profile == "roce" && dev.usable) {
        // one traffic class for NCCL and UCX: the site's, else the ports' own
        std::set<int> tcs;
        for (const NodePort &p : facts.ports)
            for (const auto &hp : dev.ports)
                if (p.hca == hp.first && p.port == hp.second)
                    tcs.insert(p.traffic_class);
        int tc = cfg.roce_tc;
        std::string why = "site RoCE traffic class (roce_tc)";
        if (tc < 0 && tcs.size() == 1 && *tcs.begin() >= 0) {
            tc = *tcs.begin();
            why = "the traffic class configured on this node's RoCE ports";
        }
        if (tc >= 0 && (tc & 3) == 3) {
            skip("NCCL_IB_TC", "the ports' traffic class " + std::to_string(tc) + " has both ECN bits set (CE)");
        } else if (tc >= 0) {
            add("NCCL_IB_TC", std::to_string(tc), why);
            add("UCX_IB_TRAFFIC_CLASS", std::to_string(tc), why + ", the same for UCX");
        } else {
            skip("NCCL_IB_TC", tcs.size() > 1 ? "this node's RoCE ports have different traffic classes: set roce_tc="
                                              : "no roce_tc= and no class configured on the ports: NCCL would use 0, "
                                                "UCX the port's or 106; set roce_tc= to the lossless class");
        }
        if (cfg.fifo_tc >= 0)
            add("NCCL_IB_FIFO_TC", std::to_string(cfg.fifo_tc), "site RoCE traffic class for NCCL's control messages (roce_fifo_tc)");
        bool hca_ours = std::any_of(out.begin(), out.end(), [](const EnvVar &v) { return v.name == "NCCL_IB_HCA" && v.set && !v.kept; });
        roce_gid_env(cfg, facts, dev, user_has, hca_ours, add, skip);
    }
    // SHARP: a capability the job may use; NCCL_COLLNET_ENABLE in the
    // environment would override every communicator's own choice
    if (f.profile == "ib" && cfg.sharp && opt.sharp != SharpMode::Off && island >= 0) {
        std::string why;
        for (int l : leaves)
            if (!s.islands[static_cast<std::size_t>(l)].sharp)
                why = "leaf island " + s.islands[static_cast<std::size_t>(l)].name + " has a switch without SHARP";
        if (why.empty() && !s.islands[static_cast<std::size_t>(island)].sharp)
            why = "a switch of " + s.islands[static_cast<std::size_t>(island)].name + " above the leaves has no SHARP";
        if (why.empty() && !rails_ok)
            why = "a step node has a miswired or missing rail";
        if (why.empty() && !unknown.empty())
            why = "step nodes absent from the fabric file";
        if (why.empty() && per_leaf > 1)
            why = per_leaf == 99 ? "the view (version 1) does not say how many ports a host has on one leaf: "
                                   "regenerate it with atoll-topo slurm --format view"
                                 : "a host has " + std::to_string(per_leaf) +
                                       " compute ports on one leaf switch, beyond SHARP's flows per switch";
        if (why.empty() && opt.sharp != SharpMode::On && leaves.size() < 2)
            why = "the step is in one leaf: nothing for the switches to reduce above it";
        if (!dev.usable && why.empty())
            why = "no compute-rail adapter is usable here";
        if (why.empty()) {
            add("ATOLL_SHARP", "1", "SHARP aggregation on every switch of " + s.islands[static_cast<std::size_t>(island)].name +
                                        ", rails correct: a communicator may enable CollNet");
            add("ATOLL_SHARP_ISLAND", s.islands[static_cast<std::size_t>(island)].name, "the island SHARP covers for this step");
            if (opt.sharp == SharpMode::On)
                add("NCCL_COLLNET_ENABLE", "1", "--fabric-sharp=on (every communicator uses SHARP)");
            else
                skip("NCCL_COLLNET_ENABLE", "left to the application per communicator (--fabric-sharp=on sets it)");
        } else {
            skip("ATOLL_SHARP", why);
        }
    }
    return record();
}

namespace {

std::string value_hash(const std::string &v)
{
    std::uint32_t h = 2166136261u;
    for (unsigned char c : v) {
        h ^= c;
        h *= 16777619u;
    }
    char buf[9];
    std::snprintf(buf, sizeof buf, "%08x", h);
    return buf;
}

}  // namespace

std::string env_set_add(const std::string &record, const EnvVar &v)
{
    return record + (record.empty() ? "" : ",") + v.name + ":" + value_hash(v.value);
}

std::string env_set_record(const std::vector<EnvVar> &vars)
{
    std::string r;
    for (const EnvVar &v : vars)
        if (v.set && !v.kept)
            r = env_set_add(r, v);
    return r;
}

std::set<std::string> atoll_unchanged(const std::string &record,
                                      const std::function<std::optional<std::string>(const std::string &)> &value_of)
{
    std::set<std::string> out;
    std::size_t p = 0;
    int n = 0;
    while (p < record.size() && n++ < 64) {
        std::size_t q = record.find(',', p);
        if (q == std::string::npos)
            q = record.size();
        std::string item = record.substr(p, q - p);
        std::size_t colon = item.rfind(':');
        if (colon != std::string::npos) {
            std::string name = item.substr(0, colon);
            auto v = value_of(name);
            if (v && value_hash(*v) == item.substr(colon + 1))
                out.insert(name);
        }
        p = q + 1;
    }
    if (value_of("ATOLL_ENV_SET"))
        out.insert("ATOLL_ENV_SET");
    return out;
}

std::vector<std::string> task_gpu_busids(const std::string &cuda_visible, const std::string &step_gpus,
                                         int constrained, const std::map<int, std::string> &gpus, std::string &why)
{
    bool ok_step = true, ok_cv = true;
    std::vector<int> g = int_list(step_gpus, ok_step);
    if (step_gpus.empty() || !ok_step || g.empty()) {
        why = step_gpus.empty() ? "the step has no GPU gres (SLURM_STEP_GPUS): its tasks' GPUs are not known"
                                : "SLURM_STEP_GPUS \"" + step_gpus.substr(0, 40) + "\" is not a list of indices";
        return {};
    }
    std::vector<int> sorted = g;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int> mine = g;
    if (!cuda_visible.empty()) {
        std::vector<int> cv = int_list(cuda_visible, ok_cv);
        if (!ok_cv || cv.empty()) {
            why = "CUDA_VISIBLE_DEVICES holds UUIDs or MIG devices";
            return {};
        }
        bool global = std::all_of(cv.begin(), cv.end(), [&](int x) { return std::count(g.begin(), g.end(), x) > 0; });
        bool relative = std::all_of(cv.begin(), cv.end(), [&](int x) { return x < static_cast<int>(g.size()); });
        bool same = true;  // both readings give the same GPUs
        for (int x : cv)
            same = same && (!relative || !global || sorted[static_cast<std::size_t>(x)] == x);
        bool use_relative;
        if (global && relative && !same) {
            if (constrained < 0) {
                why = "CUDA_VISIBLE_DEVICES could be Slurm's indices or positions under ConstrainDevices: set "
                      "constrain_devices=";
                return {};
            }
            use_relative = constrained == 1;
        } else if (global || relative) {
            use_relative = !global;
        } else {
            why = "CUDA_VISIBLE_DEVICES \"" + cuda_visible.substr(0, 40) + "\" names GPUs outside the step's";
            return {};
        }
        mine.clear();
        for (int x : cv)
            mine.push_back(use_relative ? sorted[static_cast<std::size_t>(x)] : x);
    }
    // Slurm's index i is the i-th GPU by device minor
    std::vector<std::string> by_index;
    for (const auto &kv : gpus)
        by_index.push_back(kv.second);
    std::vector<std::string> out;
    for (int i : mine) {
        if (i >= static_cast<int>(by_index.size())) {
            why = by_index.empty() ? "no NVIDIA GPU in /proc/driver/nvidia/gpus"
                                   : "GPU index " + std::to_string(i) + " beyond the node's " +
                                         std::to_string(by_index.size()) + " GPUs";
            return {};
        }
        out.push_back(by_index[static_cast<std::size_t>(i)]);
    }
    return out;
}

std::vector<EnvVar> task_env(const PluginConfig &cfg, const NodeFacts &facts, const NodeDevices &dev,
                             const StepInfo &step, const std::string &cuda_visible, const std::string &step_gpus,
                             const std::function<bool(const std::string &)> &user_has)
{
    std::vector<EnvVar> out;
    const std::string name = "UCX_NET_DEVICES";
    if (user_has(name) && !step.atoll_set.count(name)) {
        out.push_back(EnvVar{name, "", "", true, true});
        return out;
    }
    auto skip = [&](const std::string &why) {
        out.push_back(EnvVar{name, "", why, false, false});
        return out;
    };
    if (step.batch)
        return skip("the batch step: each srun step sets its own");
    if (cfg.hwloc_xml.empty())
        return skip("no hwloc_xml= for GPU-to-HCA affinity");
    if (facts.gpu_hcas.empty())
        return skip("no GPU-to-HCA map on this node");
    if (!dev.usable)
        return skip("no compute-rail adapter is usable here");
    std::string why;
    int constrained = cfg.constrain_devices >= 0 ? cfg.constrain_devices : facts.constrained;
    std::vector<std::string> bus = task_gpu_busids(cuda_visible, step_gpus, constrained, facts.gpus, why);
    if (bus.empty())
        return skip(why);
    std::set<std::string> nearest;
    std::string dist;
    for (const std::string &b : bus) {
        const GpuHca *hit = nullptr;
        for (const GpuHca &g : facts.gpu_hcas) {
            std::string id = g.gpu_busid;
            for (char &c : id)
                c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            if (id == b)
                hit = &g;
        }
        if (hit && hit->ties > 1)
            return skip("GPU " + b + " has " + std::to_string(hit->ties) + " compute HCAs equally near (" + hit->distance +
                        "): hwloc cannot tell which is its own, UCX chooses");
        if (!hit || hit->hca.empty())
            return skip("GPU " + b + " is not in the hwloc topology, or has no ACTIVE compute HCA near it");
        nearest.insert(hit->hca);
        dist += (dist.empty() ? "" : ", ") + b + " " + hit->distance;
    }
    if (nearest.size() != 1)
        return skip("the task's " + std::to_string(bus.size()) + " GPUs have " + std::to_string(nearest.size()) +
                    " nearest HCAs: UCX chooses per transfer");
    int port = 0;
    for (const auto &hp : dev.active)
        if (hp.first == *nearest.begin())
            port = hp.second;
    if (port == 0)  // UCX_NET_DEVICES also drops TCP: a port UCX refuses leaves the task no transport
        return skip("the nearest HCA " + *nearest.begin() + " is not an ACTIVE compute-rail port here");
    out.push_back(EnvVar{name, *nearest.begin() + ":" + std::to_string(port),
                         "nearest compute HCA to the task's GPU" + std::string(bus.size() > 1 ? "s (" : " (") + dist + ")",
                         false, true});
    return out;
}

int devices_constrained(const PluginConfig &cfg)
{
    if (cfg.constrain_devices >= 0)
        return cfg.constrain_devices;
    const char *conf = std::getenv("SLURM_CONF");
    std::string path = conf && *conf ? conf : "/etc/slurm/slurm.conf";
    path = path.substr(0, path.rfind('/') + 1) + "cgroup.conf";
    std::optional<std::string> text = read_small_file(path, 65536);
    if (!text)
        return -1;
    int result = 0;
    std::istringstream in(*text);
    std::string line;
    while (std::getline(in, line)) {
        std::string l;
        for (char c : line)
            if (!std::isspace(static_cast<unsigned char>(c)))
                l += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (l.rfind("constraindevices=", 0) == 0)
            result = l.substr(17) == "yes" ? 1 : 0;
    }
    return result;
}

std::string per_node_path(const std::string &pattern, const std::string &node)
{
    std::string out = pattern;
    std::string::size_type p = 0;
    while ((p = out.find("%n", p)) != std::string::npos) {
        out.replace(p, 2, node);
        p += node.size();
    }
    return out;
}

std::vector<GpuHca> gpu_hca_pairs(atl_gpu_hcas_fn fn, const std::string &xml,
                                  const std::vector<std::pair<std::string, int>> &hcas, uid_t owner)
{
    struct stat st;
    Fd fd(open_trusted(xml, "hwloc XML", st, owner));
    // hwloc reads the descriptor already checked, not the name again
    std::string via = "/proc/self/fd/" + std::to_string(fd.fd);
    if (hcas.empty())
        return gpu_hcas_via(fn, via);
    return gpu_hcas_via(fn, via, [&](const std::string &name) {
        for (const auto &hp : hcas)
            if (hp.first == name)
                return true;
        return false;
    });
}

std::string describe(const EnvVar &v)
{
    if (!v.set)
        return v.name + " not set: " + v.why;
    if (v.kept)
        return v.name + (v.value.empty() ? "" : "=" + v.value) + " (" +
               (v.why.rfind("set in ", 0) == 0 ? v.why + ", kept" : std::string("set by the user, kept")) + ")";
    return v.name + "=" + v.value + " (" + v.why + ")";
}

}  // namespace atl
