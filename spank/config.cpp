// plugstack.conf: the atoll.so line, found as Slurm finds it, and its keys; the user's options.
#include "spank/config.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>
#include <stdexcept>
#include <fstream>
#include <glob.h>
#include <sys/stat.h>

#include "topology/io.hpp"
#include "topology/slurm.hpp"

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

long parse_seconds(const std::string &key, const std::string &v, long most = INT_MAX)
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
    if (v.empty() || end == v.c_str() || errno || x < 0 || mult < 0 || x > most / mult)
        throw std::invalid_argument("plugstack.conf: " + key + "=" + escaped(v) +
                                    ": expected seconds (or a number with s, m, h, d), at most " + std::to_string(most / 86400) + "d");
    return x * mult;
}

}  // namespace

bool known_profile(const std::string &p)
{
    for (const char *k : {"ib", "roce", "azure", "aws", "gcp", "oci", "nebius", "generic", "cloud"})
        if (p == k)
            return true;
    return false;
}


PluginConfig parse_plugstack(const std::vector<std::string> &args)
{
    PluginConfig c;
    std::map<std::string, std::string> given;  // key -> its first argument
    for (const std::string &a : args) {
        std::size_t eq = a.find('=');
        std::string k = a.substr(0, eq), v = eq == std::string::npos ? "" : a.substr(eq + 1);
        // a key twice (roce_tc=106 ... roce_tc=0): the last wins, as it
        // always has (a site may append an override to its line; an error
        // would stop every srun of a required plugin after an upgrade), but
        // never without a word
        auto first = given.emplace(k, a);
        if (!first.second && first.first->second != a)
            c.warnings.push_back("plugstack.conf: " + escaped(k) + " given twice (\"" + escaped(first.first->second) +
                                 "\", then \"" + escaped(a) + "\"): the last is used");
        first.first->second = a;
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
        else if (k == "comm_share") {
            char *end = nullptr;
            double x = std::strtod(v.c_str(), &end);
            if (v.empty() || *end || !(x >= 0.001 && x <= 1))
                throw std::invalid_argument("plugstack.conf: comm_share=" + escaped(v) +
                                            ": expected the share of a step that communication takes, from 0.001 to 1");
            c.comm_share = x;
        } else if (k == "collective") {
            if (v != "all-reduce" && v != "all-to-all")
                throw std::invalid_argument("plugstack.conf: collective=" + escaped(v) + ": expected all-reduce or all-to-all");
            c.all_to_all = v == "all-to-all";
        } else if (k == "uplink_load") {
            if (v != "running" && v != "busy")
                throw std::invalid_argument("plugstack.conf: uplink_load=" + escaped(v) + ": expected running or busy");
            c.busy_uplinks = v == "busy";
        } else if (k == "max_age")
            c.max_age = parse_seconds(k, v);
        else if (k == "fabric_type") {
            if (!known_profile(v))
                throw std::invalid_argument("plugstack.conf: fabric_type=" + escaped(v) +
                                            ": expected ib, roce, azure, aws, gcp, oci, nebius, generic or cloud");
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
        else if (k == "cloud_root")
            c.cloud_root = v;
        else if (k == "dev_root")
            c.dev_root = v;
        else if (k == "machine_type") {
            if (v.size() > 128 || v.find_first_of(" \t\n\r") != std::string::npos)
                throw std::invalid_argument("plugstack.conf: machine_type=" + escaped(v) +
                                            ": expected one machine type of up to 128 characters, e.g. Standard_ND96isr_H100_v5");
            c.machine_type = v;
        }
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
                                        "socket_ifname, hca, strict, island_wait, leaf_wait, comm_share, collective, uplink_load, max_age, "
                                        "fabric_type, hwloc_xml, "
                                        "sysfs_root, cloud_root, dev_root, machine_type, proc_root, constrain_devices, gid_index, roce_fifo_tc)");
    }
    return c;
}

namespace {

constexpr int max_include_depth = 4;

std::vector<std::string> words(const std::string &line)
{
    std::string l = line.substr(0, line.find('#'));
    std::vector<std::string> w;
    std::istringstream s(l);
    for (std::string x; s >> x;)
        w.push_back(x);
    return w;
}

void scan_plugstack(std::istream &in, const std::string &file, int depth, PlugstackLine &out);

void scan_plugstack(const std::string &file, int depth, PlugstackLine &out)
{
    struct stat st;
    if (depth > 0 && ::stat(file.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
        return;  // an include glob's directory (plugstack.conf.d/old/) holds no line, as before
    std::ifstream in = open_config(file);  // a FIFO or device: refused, never waited on
    if (!in)
        return;  // as Slurm: a missing plugstack file loads no plugin
    scan_plugstack(in, file, depth, out);
}

void scan_plugstack(std::istream &in, const std::string &file, int depth, PlugstackLine &out)
{
    std::string line;
    for (int lineno = 1; std::getline(in, line) && !out.found; ++lineno) {
        std::vector<std::string> w = words(line);
        if (w.size() >= 2 && w[0] == "include") {
            if (depth >= max_include_depth)
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

PlugstackLine read_plugstack_text(std::istream &in, const std::string &file, bool includes)
{
    PlugstackLine out;
    scan_plugstack(in, file, includes ? 0 : max_include_depth, out);
    return out;
}

PlugstackLine read_plugstack_line(const std::string &slurm_conf)
{
    std::string stack = directory_of(slurm_conf) + "/plugstack.conf";
    std::ifstream conf = open_config(slurm_conf);
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

}  // namespace atl
