#include "topology/nvlink.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <istream>
#include <map>
#include <set>

#include "topology/topology.hpp"

namespace atl {

const char *const kNvlinkNotConfigured = "NVLink fabric not configured: ";

namespace {

std::string trim(const std::string &s)
{
    std::size_t a = s.find_first_not_of(" \t\r");
    if (a == std::string::npos)
        return "";
    return s.substr(a, s.find_last_not_of(" \t\r") - a + 1);
}

// One GPU's fabric as one of the two commands printed it.
struct Gpu {
    std::string where;  // FILE:LINE
    std::string cluster, clique, state, status;
    bool query = false;  // from nvidia-smi -q (State and Status known)
};

struct HostOutput {
    std::vector<Gpu> gpus;
    bool in_fabric = false;  // inside a -q Fabric section
    std::size_t fabric_indent = 0;
    Gpu cur;
    bool no_devices = false;
    std::string failed;  // FILE:LINE: what nvidia-smi or ssh said instead of an answer
};

// The longest line and the most GPUs a host's answer may have: nvidia-smi
// prints short lines and at most a few dozen GPUs; more is not its output
// (a node writes its own answer).
constexpr std::size_t max_line = 64 * 1024;
constexpr std::size_t max_gpus = 1024;
constexpr std::uintmax_t max_host_file = 16u << 20;

// nvidia-smi's and ssh's own failures, which pdsh prints under the host's
// name: the host is not configured (left out with the reason), the rest of
// the fabric is read
bool a_failure(const std::string &t)
{
    for (const char *p : {"NVIDIA-SMI has failed", "Failed to initialize NVML", "ssh: ", "ssh_exchange_identification",
                          "Connection refused", "Connection timed out", "Permission denied", "command not found",
                          "nvidia-smi: not found", "No route to host"})
        if (t.find(p) != std::string::npos)
            return true;
    return false;
}

// nvidia-smi prints a value it cannot give as N/A (in -q) or [N/A],
// [Not Supported] (in csv)
bool unavailable(const std::string &v)
{
    return v == "N/A" || v == "Not Supported" || (v.size() >= 2 && v.front() == '[' && v.back() == ']');
}

// nvidia-smi prints UUIDs in lower case; one domain whatever case a copy has
std::string lower_uuid(std::string v)
{
    if (!unavailable(v))
        std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return v;
}

bool all_zero_uuid(const std::string &v)
{
    return std::all_of(v.begin(), v.end(), [](char c) { return c == '0' || c == '-'; });
}

void check_ids(const Gpu &g)
{
    if (!unavailable(g.cluster)) {
        bool ok = !g.cluster.empty() && g.cluster.size() <= 64 &&
                  std::all_of(g.cluster.begin(), g.cluster.end(), [](unsigned char c) { return std::isxdigit(c) || c == '-'; });
        if (!ok)
            throw InputError(g.where + ": ClusterUUID " + shown(g.cluster) +
                             ", expected a UUID (hex digits and '-') or N/A");
    }
    if (!unavailable(g.clique)) {
        bool ok = !g.clique.empty() && g.clique.size() <= 10 &&
                  std::all_of(g.clique.begin(), g.clique.end(), [](unsigned char c) { return std::isdigit(c); }) &&
                  std::stoull(g.clique) <= 0xffffffffull;  // nvmlGpuFabricInfo_t's cliqueId is 32 bits
        if (!ok)
            throw InputError(g.where + ": CliqueId " + shown(g.clique) + ", expected a number (0 to 4294967295) or N/A");
    }
}

// "" when the GPU is in a usable domain, else why not
std::string not_configured(const Gpu &g)
{
    if (g.query && !g.state.empty() && g.state != "Completed")
        return "State " + shown(g.state) + ", expected Completed";
    if (g.query && !g.status.empty() && g.status != "Success" && !unavailable(g.status))
        return "Status " + shown(g.status) + ", expected Success";
    if (g.cluster.empty() || unavailable(g.cluster))
        return "ClusterUUID " + (g.cluster.empty() ? std::string("missing") : shown(g.cluster));
    if (g.clique.empty() || unavailable(g.clique))
        return "CliqueId " + (g.clique.empty() ? std::string("missing") : shown(g.clique));
    if (all_zero_uuid(g.cluster))
        return "ClusterUUID " + g.cluster + " (all zero: no multi-node NVLink)";
    return "";
}

void end_fabric(HostOutput &h)
{
    if (!h.in_fabric)
        return;
    h.in_fabric = false;
    check_ids(h.cur);
    h.gpus.push_back(h.cur);
    h.cur = Gpu{};
}

// One line of a host's output (pdsh prefix removed).
void take_line(HostOutput &h, const std::string &raw, const std::string &where)
{
    std::string line = raw;
    if (!line.empty() && line.back() == '\r')
        line.pop_back();
    if (line.size() > max_line)
        throw InputError(where + ": a line of " + std::to_string(line.size()) + " bytes, expected nvidia-smi output "
                                                                               "(lines under 64 KiB)");
    std::string t = trim(line);
    if (t.empty() || !h.failed.empty())
        return;
    if (a_failure(t)) {
        h.failed = where + ": " + shown(t, 200);
        return;
    }
    if (h.gpus.size() >= max_gpus)
        throw InputError(where + ": more than " + std::to_string(max_gpus) + " GPUs for one host, expected nvidia-smi output");
    std::size_t indent = line.find_first_not_of(" \t");
    if (h.in_fabric && indent <= h.fabric_indent)
        end_fabric(h);
    if (t == "No devices were found") {
        h.no_devices = true;
        return;
    }
    std::size_t kv = t.find(" : ");
    if (t.find(',') != std::string::npos && t.find(':') == std::string::npos) {
        // --query-gpu=fabric.clusterUuid,fabric.cliqueId --format=csv,noheader
        std::size_t comma = t.find(',');
        if (t.find(',', comma + 1) != std::string::npos)
            throw InputError(where + ": " + shown(t) + ", expected two fields: ClusterUUID, CliqueId");
        Gpu g;
        g.where = where;
        g.cluster = lower_uuid(trim(t.substr(0, comma)));
        g.clique = trim(t.substr(comma + 1));
        if (g.cluster == "clusterUuid" || g.cluster == "fabric.clusterUuid")
            return;  // a header row (--format=csv without noheader)
        check_ids(g);
        h.gpus.push_back(g);
        return;
    }
    if (t == "Fabric" && indent > 0) {  // nvidia-smi -q: a GPU's Fabric section
        h.in_fabric = true;
        h.fabric_indent = indent;
        h.cur = Gpu{};
        h.cur.where = where;
        h.cur.query = true;
        return;
    }
    if (h.in_fabric && kv != std::string::npos) {
        std::string key = trim(t.substr(0, kv)), value = trim(t.substr(kv + 3));
        if (key == "State")
            h.cur.state = value;
        else if (key == "Status")
            h.cur.status = value;
        else if (key == "CliqueId" || key == "Clique ID")
            h.cur.clique = value;
        else if (key == "ClusterUUID" || key == "ClusterUuid" || key == "Cluster UUID")
            h.cur.cluster = lower_uuid(value);
        return;
    }
    // the rest of nvidia-smi -q: "Key : value", sections (indented, or
    // "GPU 00000000:01:00.0" and "==== NVSMI LOG ====" at the left)
    if (kv != std::string::npos || t.back() == ':' || indent > 0 || t.rfind("GPU ", 0) == 0 ||
        (t.front() == '=' && t.back() == '='))
        return;
    throw InputError(where + ": " + shown(t) +
                     ", expected nvidia-smi --query-gpu=fabric.clusterUuid,fabric.cliqueId --format=csv,noheader "
                     "(ClusterUUID, CliqueId) or nvidia-smi -q output");
}

NvlinkDomains decide(std::map<std::string, HostOutput> &hosts)
{
    NvlinkDomains out;
    for (auto &kv : hosts) {
        HostOutput &h = kv.second;
        end_fabric(h);
        if (!h.failed.empty()) {
            out.problems.push_back({kv.first, NvlinkProblem::Kind::NotConfigured, h.failed + " (no answer from nvidia-smi)"});
            continue;
        }
        if (h.gpus.empty())
            continue;
        std::string why;
        std::set<std::string> seen;
        const Gpu *first = nullptr;
        for (const Gpu &g : h.gpus) {
            std::string w = not_configured(g);
            if (!w.empty() && why.empty())
                why = g.where + ": " + w;
            if (w.empty() && seen.insert(g.cluster + "." + g.clique).second && !first)
                first = &g;
        }
        if (!why.empty()) {
            out.problems.push_back({kv.first, NvlinkProblem::Kind::NotConfigured, why});
        } else if (seen.size() > 1) {
            std::string list;
            for (const std::string &d : seen)
                list += (list.empty() ? "" : ", ") + d;
            out.problems.push_back({kv.first, NvlinkProblem::Kind::Mixed,
                                    first->where + ": its " + std::to_string(h.gpus.size()) +
                                        " GPUs name NVLink domains " + list + ", expected one"});
        } else {
            out.domains.push_back({kv.first, *seen.begin(), "", first->where});
        }
    }
    return out;
}

void check_host(const std::string &host, const std::string &where)
{
    std::string why = host_name_problem(host);
    if (!why.empty())
        throw InputError(where + ": host name " + shown(host) + ": " + why);
}

}  // namespace

NvlinkDomains parse_nvlink_pdsh(std::istream &in, const std::string &source)
{
    std::map<std::string, HostOutput> hosts;
    std::string line;
    std::size_t lineno = 0;
    while (std::getline(in, line)) {
        ++lineno;
        std::string where = source + ":" + std::to_string(lineno);
        if (trim(line).empty() || line.rfind("pdsh@", 0) == 0 || line.rfind("clush:", 0) == 0)
            continue;
        std::size_t colon = line.find(": ");
        if (colon == std::string::npos || colon == 0)
            throw InputError(where + ": " + shown(line) + ", expected pdsh output (HOST: line)");
        std::string host = line.substr(0, colon);
        check_host(host, where);
        take_line(hosts[host], line.substr(colon + 2), where);
    }
    if (in.bad())
        throw InputError(source + ":" + std::to_string(lineno + 1) + ": cannot read further");
    return decide(hosts);
}

NvlinkDomains parse_nvlink_host(std::istream &in, const std::string &source, const std::string &host)
{
    check_host(host, source);
    std::map<std::string, HostOutput> hosts;
    HostOutput &h = hosts[host];
    std::string line;
    std::size_t lineno = 0;
    while (std::getline(in, line))
        take_line(h, line, source + ":" + std::to_string(++lineno));
    if (in.bad())
        throw InputError(source + ":" + std::to_string(lineno + 1) + ": cannot read further");
    return decide(hosts);
}

NvlinkDomains load_nvlink(const std::string &path)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(path, ec)) {
        // a FIFO no one writes would block the open for ever
        const fs::file_status st = fs::status(path, ec);
        if (!ec && st.type() != fs::file_type::regular)
            throw InputError(path + ": not a regular file or directory, expected the nvidia-smi outputs (a file of "
                                    "pdsh lines or a directory of them)");
        std::ifstream in(path);
        if (!in)
            throw InputError(path + ": cannot open the nvidia-smi outputs");
        return parse_nvlink_pdsh(in, path);
    }
    std::vector<fs::path> files;
    for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code fe;  // a link loop or a dangling link is no host's file
        if (it->path().filename().string().rfind('.', 0) != 0 && it->is_regular_file(fe) && !fe)
            files.push_back(it->path());
    }
    if (ec)
        throw InputError(path + ": cannot read the directory: " + ec.message());
    std::sort(files.begin(), files.end());
    NvlinkDomains all;
    for (const fs::path &p : files) {
        std::error_code se;
        std::uintmax_t size = fs::file_size(p, se);
        if (!se && size > max_host_file)
            throw InputError(p.string() + ": " + std::to_string(size) + " bytes, expected one host's nvidia-smi output "
                                                                       "(16 MiB at most)");
        std::ifstream in(p);
        if (!in)
            throw InputError(p.string() + ": cannot open");
        NvlinkDomains one = parse_nvlink_host(in, p.string(), p.filename().string());
        all.domains.insert(all.domains.end(), one.domains.begin(), one.domains.end());
        all.problems.insert(all.problems.end(), one.problems.begin(), one.problems.end());
    }
    return all;
}

void add_nvlink(Fabric &f, const NvlinkDomains &d)
{
    f.domains.insert(f.domains.end(), d.domains.begin(), d.domains.end());
    for (const NvlinkProblem &p : d.problems) {
        if (p.kind == NvlinkProblem::Kind::NotConfigured)
            f.unhealthy.push_back(p.host + ": " + kNvlinkNotConfigured + p.why);
        else
            f.refused_claims.push_back(p.host + ": " + p.why);
    }
    normalise(f);
}

}  // namespace atl
