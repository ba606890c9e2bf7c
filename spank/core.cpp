#include "spank/core.hpp"

#include <algorithm>
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
#include <sys/stat.h>
#include <unistd.h>

#include "topology/io.hpp"
#include "topology/json.hpp"

namespace atl {
namespace {

bool parse_bool(const std::string &key, const std::string &v)
{
    if (v == "yes" || v == "true" || v == "1" || v == "on")
        return true;
    if (v == "no" || v == "false" || v == "0" || v == "off")
        return false;
    throw std::invalid_argument("plugstack.conf: " + key + "=" + v + ": expected yes or no");
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
        throw std::invalid_argument("plugstack.conf: " + key + "=" + v + ": expected seconds (or a number with s, m, h, d)");
    return x * mult;
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
            throw std::invalid_argument("plugstack.conf: \"" + a + "\": expected key=value");
        if (k == "fabric")
            c.fabric = v;
        else if (k == "policy") {
            if (std::find(policy_names().begin(), policy_names().end(), v) == policy_names().end())
                throw std::invalid_argument("plugstack.conf: policy=" + v + ": expected atoll, slurm-tree, first-fit or random");
            c.policy = v;
        } else if (k == "default_island") {
            parse_island(v);  // validates
            c.default_island = v;
        } else if (k == "env") {
            if (v != "auto" && v != "off")
                throw std::invalid_argument("plugstack.conf: env=" + v + ": expected auto or off");
            c.env = v == "auto";
        } else if (k == "sharp") {
            if (v != "auto" && v != "off")
                throw std::invalid_argument("plugstack.conf: sharp=" + v + ": expected auto or off");
            c.sharp = v == "auto";
        } else if (k == "roce_tc") {
            char *end = nullptr;
            long x = std::strtol(v.c_str(), &end, 10);
            if (v.empty() || *end || x < 0 || x > 255)
                throw std::invalid_argument("plugstack.conf: roce_tc=" + v + ": expected a traffic class from 0 to 255");
            // the class byte is DSCP << 2 | ECN: both ECN bits set is CE, "congestion
            // experienced", which switches would take for a marked packet
            if ((x & 3) == 3)
                throw std::invalid_argument("plugstack.conf: roce_tc=" + v +
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
            FabricKind fk;
            if (!fabric_kind_from_string(v, fk))
                throw std::invalid_argument("plugstack.conf: fabric_type=" + v + ": expected ib, roce or cloud");
            c.fabric_type = v;
        } else if (k == "hwloc_xml")
            c.hwloc_xml = v;
        else if (k == "sysfs_root")
            c.sysfs_root = v;
        else if (k == "gid_index") {
            char *end = nullptr;
            long x = std::strtol(v.c_str(), &end, 10);
            if (v.empty() || *end || x < 0 || x > 255)
                throw std::invalid_argument("plugstack.conf: gid_index=" + v + ": expected a GID index from 0 to 255");
            c.gid_index = static_cast<int>(x);
        }
        else
            throw std::invalid_argument("plugstack.conf: unknown key \"" + k +
                                        "\" (known: fabric, policy, default_island, env, sharp, roce_tc, "
                                        "socket_ifname, hca, strict, island_wait, leaf_wait, max_age, fabric_type, hwloc_xml, "
                                        "sysfs_root, gid_index)");
    }
    return c;
}

EnvMode parse_env_mode(const std::string &v)
{
    if (v == "auto")
        return EnvMode::Auto;
    if (v == "off")
        return EnvMode::Off;
    if (v == "show")
        return EnvMode::Show;
    throw std::invalid_argument("--fabric-env=" + v + ": expected auto, off or show");
}

SharpMode parse_sharp_mode(const std::string &v)
{
    if (v == "auto")
        return SharpMode::Auto;
    if (v == "on")
        return SharpMode::On;
    if (v == "off")
        return SharpMode::Off;
    throw std::invalid_argument("--fabric-sharp=" + v + ": expected auto, on or off");
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
            throw std::runtime_error(what + " " + path + ": " + std::strerror(errno));
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
            throw std::runtime_error(what + " " + path + ": " + std::strerror(errno));
        if (S_ISLNK(ls.st_mode)) {
            if (!trusted_owner(ls.st_uid, owner))
                refuse("symbolic link " + here, " is owned by uid " + std::to_string(ls.st_uid) + ", expected " + owner_text(owner));
            if (++links > 16)
                refuse("", "more than 16 symbolic links");
            std::vector<char> buf(4096);
            ssize_t n = readlinkat(dirs.back().fd, c.c_str(), buf.data(), buf.size() - 1);
            if (n < 0)
                throw std::runtime_error(what + " " + path + ": " + here + ": " + std::strerror(errno));
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
                throw std::runtime_error(what + " " + path + ": " + here + ": " + std::strerror(errno));
            dirs.emplace_back(fd);
            names.push_back(here);
            check_dir();
            continue;
        }
        // the file itself: never blocks (a FIFO is refused below), never a link
        Fd f(openat(dirs.back().fd, c.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
        if (f.fd < 0)
            throw std::runtime_error(what + " " + path + ": " + std::strerror(errno));
        if (fstat(f.fd, &st) != 0)
            throw std::runtime_error(what + " " + path + ": " + std::strerror(errno));
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
    if (!cfg.fabric_type.empty())
        fabric_kind_from_string(cfg.fabric_type, v->kind);
    std::istringstream in(data);
    std::size_t first = data.find_first_not_of(" \t\r\n");
    if (data.compare(0, std::strlen(summary_magic), summary_magic) == 0) {
        v->summary = read_summary(in, path);
    } else if (first != std::string::npos && data[first] == '{') {
        Topology t = analyse(load_fabric_json(in, path));
        v->summary = summarise(t, Cluster(t, v->kind));
    } else {
        throw std::runtime_error("fabric file " + path +
                                 ": neither the view (atoll-topo slurm --format view) nor a fabric.json");
    }
    return v;
}

std::vector<EnvVar> node_env(const FabricView &f, const PluginConfig &cfg, const UserOptions &opt,
                             const std::vector<std::string> &job_hosts, const std::string &node,
                             const std::function<bool(const std::string &)> &user_has)
{
    const FabricSummary &s = f.summary;
    auto me = s.hosts.find(node);
    if (me == s.hosts.end())
        throw std::runtime_error("node " + node + " is not in the fabric " + s.source);
    std::set<int> leaves;
    std::size_t known = 0;
    std::vector<std::string> unknown;
    bool rails_ok = true;
    for (const auto &h : job_hosts) {
        auto it = s.hosts.find(h);
        if (it == s.hosts.end()) {
            unknown.push_back(h);
            continue;
        }
        ++known;
        leaves.insert(it->second.leaf);
        rails_ok = rails_ok && it->second.rails_ok;
    }
    // the smallest island above every leaf of the job
    auto chain = [&](int i) {
        std::vector<int> c;
        for (; i >= 0; i = s.islands[static_cast<std::size_t>(i)].parent)
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
        EnvVar v{name, value, why, user_has(name)};
        out.push_back(v);
    };
    if (island >= 0) {
        const ViewIsland &is = s.islands[static_cast<std::size_t>(island)];
        std::string names;
        for (int l : leaves)
            names += (names.empty() ? "" : ",") + s.islands[static_cast<std::size_t>(l)].name;
        add("ATOLL_ISLAND", is.name, std::string("the smallest island holding the job's nodes (") + to_string(is.level) + ")");
        add("ATOLL_LEAVES", names, std::to_string(leaves.size()) + " leaf island(s) spanned");
        add("ATOLL_HOPS", std::to_string(known > 1 ? is.hops : 0), "cables on the longest host-to-host path");
    }
    if (!unknown.empty())
        add("ATOLL_UNMAPPED", std::to_string(unknown.size()), "job nodes absent from the fabric file");
    if (f.kind == FabricKind::Cloud)
        return out;  // the cloud's own NCCL plugin (EFA, gIB, Azure) sets the rest
    std::string hcas;
    for (const auto &hp : compute_hcas(f, cfg, node))
        hcas += (hcas.empty() ? "=" : ",") + hp.first + ":" + std::to_string(hp.second);
    if (!hcas.empty())
        add("NCCL_IB_HCA", hcas, "this node's compute-rail HCAs and ports, exact names");
    if (!cfg.socket_ifname.empty())
        add("NCCL_SOCKET_IFNAME", cfg.socket_ifname, "site configuration (socket_ifname)");
    if (s.rail_optimised && !s.rails_meet && rails_ok && unknown.empty())
        add("NCCL_CROSS_NIC", "0", "rail-aligned job on rail planes that do not meet above the leaves");
    if (f.kind == FabricKind::RoCE && cfg.roce_tc >= 0) {
        add("NCCL_IB_TC", std::to_string(cfg.roce_tc), "site RoCE traffic class (roce_tc)");
        add("UCX_IB_TRAFFIC_CLASS", std::to_string(cfg.roce_tc), "site RoCE traffic class (roce_tc)");
    }
    if (f.kind == FabricKind::RoCE && cfg.gid_index >= 0) {
        add("NCCL_IB_GID_INDEX", std::to_string(cfg.gid_index), "site RoCE GID index (gid_index)");
        add("UCX_IB_GID_INDEX", std::to_string(cfg.gid_index), "site RoCE GID index (gid_index)");
    }
    if (cfg.sharp && opt.sharp != SharpMode::Off && f.kind == FabricKind::InfiniBand && island >= 0) {
        bool all_sharp = true;
        for (int l : leaves)
            all_sharp = all_sharp && s.islands[static_cast<std::size_t>(l)].sharp;
        std::size_t min_leaves = opt.sharp == SharpMode::On ? 1 : 2;
        if (all_sharp && rails_ok && unknown.empty() && leaves.size() >= min_leaves)
            add("NCCL_COLLNET_ENABLE", "1", "every leaf of the job has SHARP aggregation, rails are correct, " +
                                                std::to_string(leaves.size()) + " leaves");
    }
    return out;
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

std::vector<std::string> roce_gid_warnings(const FabricView &f, const PluginConfig &cfg, const std::string &node)
{
    std::vector<std::string> w;
    if (f.kind != FabricKind::RoCE)
        return w;
    std::string root = cfg.sysfs_root.empty() ? "/sys" : per_node_path(cfg.sysfs_root, node);
    for (const auto &hp : compute_hcas(f, cfg, node)) {
        std::string dir = root + "/class/infiniband/" + hp.first + "/ports/" + std::to_string(hp.second) +
                          "/gid_attrs/types";
        DIR *d = opendir(dir.c_str());
        if (!d) {
            w.push_back(node + ": " + hp.first + " port " + std::to_string(hp.second) + ": cannot read " + dir + ": " +
                        std::strerror(errno));
            continue;
        }
        bool v2 = false;
        while (struct dirent *e = readdir(d)) {
            if (e->d_name[0] == '.')
                continue;
            std::ifstream in(dir + "/" + e->d_name);
            std::string type;
            if (in && std::getline(in, type) && type.rfind("RoCE v2", 0) == 0)
                v2 = true;
        }
        closedir(d);
        if (!v2)
            w.push_back(node + ": " + hp.first + " port " + std::to_string(hp.second) +
                        " has no RoCE v2 GID (check its IP address and VLAN); NCCL and UCX may fall back to RoCE v1");
    }
    return w;
}

std::vector<std::pair<std::string, int>> compute_hcas(const FabricView &f, const PluginConfig &cfg,
                                                      const std::string &node)
{
    std::vector<std::pair<std::string, int>> out;
    auto me = f.summary.hosts.find(node);
    if (me != f.summary.hosts.end())
        for (const auto &hp : me->second.hcas)
            if (hca_selected(cfg.hca, hp.first))
                out.push_back(hp);
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

int task_gpu(const std::string &cuda_visible, const std::string &step_gpus, int local_rank, int ngpus)
{
    auto list = [](const std::string &s) {
        std::vector<int> v;
        std::size_t p = 0;
        while (p < s.size()) {
            char *end = nullptr;
            long x = std::strtol(s.c_str() + p, &end, 10);
            if (end == s.c_str() + p || x < 0)
                return std::vector<int>{};
            v.push_back(static_cast<int>(x));
            p = static_cast<std::size_t>(end - s.c_str());
            if (p < s.size() && s[p] != ',')
                return std::vector<int>{};
            ++p;
        }
        return v;
    };
    // CUDA_VISIBLE_DEVICES as the user set it names physical GPUs; the first is
    // the one a task drives. Slurm's SLURM_STEP_GPUS lists the step's GPUs on
    // the node: task i takes the i-th.
    auto cv = list(cuda_visible);
    if (!cv.empty())
        return cv[0];
    auto sg = list(step_gpus);
    if (!sg.empty() && local_rank >= 0)
        return sg[static_cast<std::size_t>(local_rank) % sg.size()];
    if (ngpus > 0 && local_rank >= 0)
        return local_rank % ngpus;
    return -1;
}

}  // namespace atl
