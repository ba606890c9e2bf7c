#include "topology/csv.hpp"

#include <algorithm>
#include <cctype>
#include <istream>
#include <set>
#include <vector>

#include "topology/topology.hpp"

namespace atl {
namespace {

const char *const kRoles[] = {"host", "leaf", "pod", "core", "domain", "subdomain"};

const std::vector<std::string> &usual_names(const std::string &role)
{
    static const std::map<std::string, std::vector<std::string>> names = {
        {"host", {"host", "node", "hostname", "node_name"}},
        {"leaf", {"leaf", "leaf_id", "leaf_switch", "asw"}},
        {"pod", {"pod", "pod_id", "pod_psw", "spine", "psw"}},
        {"core", {"core", "core_dsw", "dsw"}},
        {"domain", {"domain", "nvlink_domain", "nvl_domain", "clique"}},
        {"subdomain", {"subdomain", "sub_domain", "rack"}},
    };
    return names.at(role);
}

std::string trim(const std::string &s)
{
    std::size_t a = s.find_first_not_of(" \t\r");
    if (a == std::string::npos)
        return "";
    std::size_t b = s.find_last_not_of(" \t\r");
    return s.substr(a, b - a + 1);
}

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}


}  // namespace

std::vector<std::string> split_csv_line(const std::string &line)
{
    // RFC 4180 quoting as spreadsheets and pandas write it: a field in
    // double quotes may hold commas, "" is one quote; an unclosed quote runs
    // to the end of the line
    std::vector<std::string> f;
    std::size_t p = 0;
    const std::size_t n = line.size();
    for (;;) {
        std::size_t a = p;
        while (a < n && (line[a] == ' ' || line[a] == '\t'))
            ++a;
        std::string field;
        std::size_t q;
        if (a < n && line[a] == '"') {
            std::size_t i = a + 1;
            for (; i < n; ++i) {
                if (line[i] != '"') {
                    field += line[i];
                } else if (i + 1 < n && line[i + 1] == '"') {
                    field += '"';
                    ++i;
                } else {
                    ++i;
                    break;
                }
            }
            // (i <= n; anything between the closing quote and the comma is kept)
            q = line.find(',', i);
            field += line.substr(i, q == std::string::npos ? std::string::npos : q - i);
            field = trim(field);
        } else {
            q = line.find(',', p);
            field = trim(line.substr(p, q == std::string::npos ? std::string::npos : q - p));
        }
        f.push_back(field);
        if (q == std::string::npos)
            break;
        p = q + 1;
    }
    return f;
}

std::map<std::string, std::string> parse_role_columns(const std::string &spec, const std::vector<std::string> &roles,
                                                      const std::string &option)
{
    std::map<std::string, std::string> out;
    for (const std::string &item : split_csv_line(spec)) {
        if (item.empty())
            continue;
        std::size_t eq = item.find('=');
        std::string role = eq == std::string::npos ? "" : trim(item.substr(0, eq));
        if (std::find(roles.begin(), roles.end(), role) == roles.end() || trim(item.substr(eq + 1)).empty()) {
            std::string names;
            for (const auto &r : roles)
                names += (names.empty() ? "" : ", ") + r;
            throw InputError(option + ": \"" + item + "\", expected ROLE=COLUMN with ROLE one of " + names);
        }
        out[role] = trim(item.substr(eq + 1));
    }
    return out;
}

Fabric fabric_from_placements(const std::vector<HostPlacement> &rows, const std::string &source, bool have_pod,
                              bool have_core, const std::string &above_cores)
{
    Fabric fab;
    fab.source = source;
    fab.kind = "generic";
    std::map<std::uint64_t, int> next_port;  // switch -> next free port
    std::set<std::uint64_t> have;
    auto add_switch = [&](const std::string &kind, const std::string &name) {
        std::uint64_t g = name_guid(kind, name);
        if (have.insert(g).second) {
            Node n;
            n.type = NodeType::Switch;
            n.guid = g;
            n.desc = name;
            fab.nodes.push_back(n);
            next_port[g] = 1;
        }
        return g;
    };
    std::set<std::pair<std::uint64_t, std::uint64_t>> cabled;
    auto cable = [&](std::uint64_t a, int aport, std::uint64_t b, int bport) {
        Link l;
        l.a = LinkEnd{a, aport, 0, 0};
        l.b = LinkEnd{b, bport, 0, 0};
        fab.links.push_back(l);
    };
    auto uplink = [&](std::uint64_t lower_sw, std::uint64_t upper_sw) {
        if (!cabled.insert({lower_sw, upper_sw}).second)
            return;
        cable(lower_sw, next_port[lower_sw]++, upper_sw, next_port[upper_sw]++);
    };
    std::uint64_t root = 0;
    if (!have_pod)
        root = add_switch("core", "core");  // leaves alone: one switch above them all
    for (const HostPlacement &r : rows) {
        std::uint64_t leaf = add_switch("leaf", r.leaf);
        Node h;
        h.type = NodeType::Ca;
        h.guid = name_guid("host", r.id.empty() ? r.host : r.id);
        h.num_ports = 1;
        h.desc = r.host + " nic0";
        h.line = r.line;
        fab.nodes.push_back(h);
        cable(h.guid, 1, leaf, next_port[leaf]++);
        fab.links.back().a.port_guid = h.guid;
        if (!have_pod) {
            uplink(leaf, root);
            continue;
        }
        std::uint64_t pod = add_switch("pod", r.pod);
        uplink(leaf, pod);
        if (have_core && !r.core.empty())
            uplink(pod, add_switch("core", r.core));
    }
    if (have_pod && have_core && !above_cores.empty()) {
        std::set<std::string> cores;
        for (const HostPlacement &r : rows)
            if (!r.core.empty())
                cores.insert(r.core);
        if (cores.size() > 1) {
            std::uint64_t top = add_switch("above", above_cores);
            for (const std::string &c : cores)
                uplink(name_guid("core", c), top);
        }
    }
    if (have_pod && !have_core) {
        // pods joined by one core so the fabric is connected
        std::uint64_t core = add_switch("core", "core");
        for (const HostPlacement &r : rows)
            uplink(name_guid("pod", r.pod), core);
    }
    for (Node &n : fab.nodes)
        if (n.type == NodeType::Switch)
            n.num_ports = next_port[n.guid] - 1;
    normalise(fab);
    return fab;
}


std::uint64_t name_guid(const std::string &kind, const std::string &name)
{
    std::uint64_t h = 1469598103934665603ULL;
    for (char c : kind + ":" + name) {
        h ^= static_cast<unsigned char>(c);
        h *= 1099511628211ULL;
    }
    return h | 1;  // never 0
}

CsvColumns parse_csv_columns(const std::string &spec)
{
    return parse_role_columns(spec, {"host", "leaf", "pod", "core", "domain", "subdomain"}, "--csv-columns");
}

bool looks_like_topology_csv(const std::string &first_line)
{
    if (first_line.find(',') == std::string::npos)
        return false;
    for (const std::string &f : split_csv_line(first_line))
        for (const std::string &n : usual_names("host"))
            if (lower(f) == n)
                return true;
    return false;
}

Fabric parse_topology_csv(std::istream &in, const std::string &source, const CsvColumns &columns)
{
    std::string line;
    std::size_t lineno = 0;
    std::vector<std::string> header;
    while (std::getline(in, line)) {
        ++lineno;
        std::string t = trim(line);
        if (t.empty() || t[0] == '#')
            continue;
        header = split_csv_line(t);
        break;
    }
    if (header.empty())
        throw InputError(source, lineno, "found no header line, expected CSV columns such as host,leaf,pod,core");
    std::size_t header_line = lineno;
    std::map<std::string, int> col;  // role -> index
    for (const char *role : kRoles) {
        auto given = columns.find(role);
        for (std::size_t i = 0; i < header.size(); ++i) {
            // (a header's case as the spreadsheet wrote it: Host, LEAF)
            bool match = given != columns.end()
                             ? lower(header[i]) == lower(given->second)
                             : std::find(usual_names(role).begin(), usual_names(role).end(), lower(header[i])) !=
                                   usual_names(role).end();
            // two columns for one role: which one the file meant cannot be
            // told (helper 38: "host,leaf,leaf" read the first, silently)
            if (match && col.count(role))
                throw InputError(source, header_line,
                                 "found columns " + shown(header[static_cast<std::size_t>(col[role])]) + " and " +
                                     shown(header[i]) + " both for the " + role +
                                     ", expected one (name it with --csv-columns)");
            if (match)
                col[role] = static_cast<int>(i);
        }
        if (given != columns.end() && !col.count(role))
            throw InputError(source, header_line, "found no column \"" + given->second + "\" for " + role +
                                                      ", expected one of the header's columns");
    }
    // one column for two roles (--csv-columns host=n,leaf=n): every host
    // its own leaf, or its own domain, by mistake
    for (auto a = col.begin(); a != col.end(); ++a)
        for (auto b = std::next(a); b != col.end(); ++b)
            if (a->second == b->second)
                throw InputError(source, header_line,
                                 "found column " + shown(header[static_cast<std::size_t>(a->second)]) + " for both the " +
                                     a->first + " and the " + b->first + ", expected a column of its own for each");
    if (!col.count("host") || !col.count("leaf"))
        throw InputError(source, header_line,
                         "found columns \"" + trim(line) + "\", expected a host column (host, node, hostname) and a "
                         "leaf column (leaf, leaf_id, leaf_switch); name others with --csv-columns");

    struct Row {
        std::string host, leaf, pod, core, domain, subdomain;
        std::size_t line;
    };
    std::vector<Row> rows;
    std::map<std::string, std::size_t> host_line;
    std::map<std::string, std::pair<std::string, std::size_t>> leaf_pod;
    while (std::getline(in, line)) {
        ++lineno;
        std::string t = trim(line);
        if (t.empty() || t[0] == '#')
            continue;
        // (a quoted field cannot run on to the next line here: say so,
        // not that the fields are too few)
        if (std::count(t.begin(), t.end(), '"') % 2 != 0)
            throw InputError(source, lineno, "found an unclosed quote in " + shown(t) +
                                                 ", expected each quoted field closed on its line");
        auto f = split_csv_line(t);
        if (f.size() != header.size())
            throw InputError(source, lineno, "found " + std::to_string(f.size()) + " fields, expected " +
                                                 std::to_string(header.size()) + " as in the header");
        Row r;
        r.line = lineno;
        r.host = f[static_cast<std::size_t>(col["host"])];
        r.leaf = f[static_cast<std::size_t>(col["leaf"])];
        if (col.count("pod"))
            r.pod = f[static_cast<std::size_t>(col["pod"])];
        if (col.count("core"))
            r.core = f[static_cast<std::size_t>(col["core"])];
        // the NVLink domain and rack sub-domain: "" is no domain (a CPU node)
        for (auto kv : {std::make_pair("domain", &r.domain), std::make_pair("subdomain", &r.subdomain)})
            if (col.count(kv.first)) {
                *kv.second = f[static_cast<std::size_t>(col[kv.first])];
                bool ok = kv.second->size() <= 128 &&
                          std::all_of(kv.second->begin(), kv.second->end(), [](unsigned char c) {
                              return std::isalnum(c) || c == '.' || c == '_' || c == '-';
                          });
                if (!ok)
                    throw InputError(source, lineno, std::string("found ") + kv.first + " " + shown(*kv.second) +
                                                         ", expected letters, digits, '.', '_' and '-'");
            }
        if (!r.subdomain.empty() && r.domain.empty())
            throw InputError(source, lineno, "found subdomain " + shown(r.subdomain) + " without a domain, expected both");
        for (auto kv : {std::make_pair("host", &r.host), std::make_pair("leaf", &r.leaf)})
            if (kv.second->empty())
                throw InputError(source, lineno, std::string("found an empty ") + kv.first + ", expected a name");
        if (r.host.find_first_of(" \t") != std::string::npos)
            throw InputError(source, lineno, "found host \"" + r.host + "\", expected a name without spaces");
        // (a quoted field may hold a comma, which no Slurm name can)
        for (auto kv : {std::make_pair("host", &r.host), std::make_pair("leaf", &r.leaf), std::make_pair("pod", &r.pod),
                        std::make_pair("core", &r.core)})
            if (kv.second->find(',') != std::string::npos)
                throw InputError(source, lineno, std::string("found ") + kv.first + " " + shown(*kv.second) +
                                                     ", expected a name without commas");
        // the admin's file: a name no Slurm node can have is an error here,
        // not a host left out of the fabric with a warning (helper 45)
        if (std::string why = host_name_problem(r.host); !why.empty())
            throw InputError(source, lineno, "found host " + shown(r.host) + ": " + why);
        auto hl = host_line.emplace(r.host, lineno);
        if (!hl.second)
            throw InputError(source, lineno, "found host " + r.host + " again (first at line " +
                                                 std::to_string(hl.first->second) + "), expected each host once");
        if (col.count("pod")) {
            if (r.pod.empty())
                throw InputError(source, lineno, "found an empty pod, expected a name");
            auto lp = leaf_pod.emplace(r.leaf, std::make_pair(r.pod, lineno));
            if (lp.first->second.first != r.pod)
                throw InputError(source, lineno, "found leaf " + r.leaf + " in pod " + r.pod + ", expected pod " +
                                                     lp.first->second.first + " as at line " +
                                                     std::to_string(lp.first->second.second));
        }
        rows.push_back(r);
    }
    if (rows.empty())
        throw InputError(source, lineno, "found no host rows, expected one row per host after the header");

    std::vector<HostPlacement> placed;
    for (const Row &r : rows)
        placed.push_back({r.host, r.leaf, r.pod, r.core, r.line, std::string()});
    Fabric fab = fabric_from_placements(placed, source, col.count("pod") > 0, col.count("core") > 0);
    for (const Row &r : rows)
        if (!r.domain.empty())
            fab.domains.push_back({r.host, r.domain, r.subdomain, source + ":" + std::to_string(r.line)});
    normalise(fab);
    return fab;
}

}  // namespace atl
