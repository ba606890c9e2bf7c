#include <algorithm>
#include <cstring>
#include <fnmatch.h>
#include <limits>
#include <cctype>
#include <deque>
#include <numeric>
#include <set>
#include <tuple>

#include "topology/tally.hpp"
#include "topology/topology.hpp"

#include <boost/graph/connected_components.hpp>

namespace atl {

const char *to_string(Level l)
{
    switch (l) {
    case Level::Domain: return "domain";
    case Level::Leaf: return "leaf";
    case Level::Group: return "group";
    case Level::Pod: return "pod";
    case Level::Fabric: return "fabric";
    }
    return "?";
}

bool level_from_string(const std::string &s, Level &out)
{
    for (Level l : {Level::Domain, Level::Leaf, Level::Group, Level::Pod, Level::Fabric})
        if (s == to_string(l)) {
            out = l;
            return true;
        }
    return false;
}

std::vector<int> Topology::islands_at(Level l) const
{
    std::vector<int> out;
    for (std::size_t i = 0; i < islands.size(); ++i)
        if (islands[i].level == l)
            out.push_back(static_cast<int>(i));
    return out;
}

int Topology::island_of(int host, Level l) const
{
    const Host &h = hosts.at(static_cast<std::size_t>(host));
    if (l == Level::Domain)
        return h.domain;
    int i = h.leaf_island;
    while (i >= 0 && islands[static_cast<std::size_t>(i)].level != l)
        i = islands[static_cast<std::size_t>(i)].parent;
    return i;
}

namespace {

std::string trim(const std::string &s)
{
    std::size_t b = s.find_first_not_of(" \t");
    if (b == std::string::npos)
        return "";
    std::size_t e = s.find_last_not_of(" \t");
    return s.substr(b, e - b + 1);
}

bool starts_with(const std::string &s, const char *p) { return s.rfind(p, 0) == 0; }

struct UnionFind {
    std::vector<int> p;
    explicit UnionFind(std::size_t n) : p(n) { std::iota(p.begin(), p.end(), 0); }
    int find(int x)
    {
        while (p[static_cast<std::size_t>(x)] != x) {
            p[static_cast<std::size_t>(x)] = p[static_cast<std::size_t>(p[static_cast<std::size_t>(x)])];
            x = p[static_cast<std::size_t>(x)];
        }
        return x;
    }
    void unite(int a, int b)
    {
        a = find(a);
        b = find(b);
        if (a != b)
            p[static_cast<std::size_t>(std::max(a, b))] = std::min(a, b);
    }
};

}  // namespace

bool hca_selected(const std::string &selector, const std::string &hca)
{
    if (selector.empty())
        return true;
    bool any_include = false, included = false;
    std::size_t p = 0;
    while (p <= selector.size()) {
        std::size_t q = selector.find(',', p);
        std::string pat = selector.substr(p, q == std::string::npos ? std::string::npos : q - p);
        if (!pat.empty()) {
            bool exclude = pat[0] == '!';
            if (exclude)
                pat = pat.substr(1);
            bool m = fnmatch(pat.c_str(), hca.c_str(), 0) == 0;
            if (exclude && m)
                return false;
            if (!exclude) {
                any_include = true;
                included = included || m;
            }
        }
        if (q == std::string::npos)
            break;
        p = q + 1;
    }
    return !any_include || included;
}


Fabric select_hcas(Fabric f, const std::string &selector)
{
    if (selector.empty())
        return f;
    std::set<std::uint64_t> dropped;
    for (const Node &n : f.nodes)
        if (n.type == NodeType::Ca && classify_ca(n.desc) == CaKind::Host &&
            !hca_selected(selector, split_ca_desc(n.desc).second))
            dropped.insert(n.guid);
    f.links.erase(std::remove_if(f.links.begin(), f.links.end(),
                                 [&](const Link &l) { return dropped.count(l.a.guid) || dropped.count(l.b.guid); }),
                  f.links.end());
    f.nodes.erase(std::remove_if(f.nodes.begin(), f.nodes.end(), [&](const Node &n) { return dropped.count(n.guid) > 0; }),
                  f.nodes.end());
    return f;
}

CaKind classify_ca(const std::string &desc)
{
    std::string d = trim(desc);
    // the SHARP aggregation node's firmware description, exactly: a host's
    // root may write "node002 Aggregation Node" into its own node_desc
    if (d == "Mellanox Technologies Aggregation Node")
        return CaKind::Sharp;
    if (d.empty() || d.find("Mellanox Technologies") != std::string::npos ||
        (starts_with(d, "MT") && d.size() > 2 && std::isdigit(static_cast<unsigned char>(d[2]))))
        return CaKind::Default;
    std::string host = split_ca_desc(d).first;
    if (host == "localhost" || host == "localhost.localdomain" || host == "(none)")
        return CaKind::Default;
    return CaKind::Host;
}

std::pair<std::string, std::string> split_ca_desc(const std::string &desc)
{
    std::string d = trim(desc);
    std::size_t sp = d.find_first_of(" \t");
    if (sp == std::string::npos)
        return {d, ""};
    std::string rest = trim(d.substr(sp + 1));
    return {d.substr(0, sp), rest.substr(0, rest.find_first_of(" \t"))};
}

namespace {

bool name_char(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
}

std::string bad_chars(const std::string &name)
{
    for (char c : name)
        if (!name_char(c))
            return "it holds " + shown(std::string(1, c)) +
                   ", expected only letters, digits, '-', '_' and '.'";
    return "";
}

}  // namespace

std::string host_name_problem(const std::string &name)
{
    if (name.empty())
        return "it is empty, expected a host name";
    if (name.size() > 253)
        return "it is " + std::to_string(name.size()) + " characters long, expected at most 253";
    std::string why = bad_chars(name);
    if (!why.empty())
        return why;
    if (!std::isalnum(static_cast<unsigned char>(name[0])))
        return "it starts with " + shown(name.substr(0, 1)) + ", expected a letter or digit first";
    // words slurm.conf gives a meaning: NodeName=DEFAULT sets every later
    // node's defaults, Nodes=ALL names every node
    std::string upper;
    for (char c : name)
        upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    for (const char *w : {"DEFAULT", "ALL"})
        if (upper == w)
            return "it is " + shown(name) + ", a word Slurm reserves (NodeName=" + w + ")";
    std::size_t start = 0;
    for (;;) {
        std::size_t dot = name.find('.', start);
        std::size_t len = (dot == std::string::npos ? name.size() : dot) - start;
        if (len == 0 || len > 63)
            return "it has a label of " + std::to_string(len) + " characters, expected 1 to 63 between dots";
        if (dot == std::string::npos)
            break;
        start = dot + 1;
    }
    return "";
}

std::string hca_name_problem(const std::string &name)
{
    if (name.size() > 64)
        return "it is " + std::to_string(name.size()) + " characters long, expected at most 64";
    if (name == "." || name == "..")
        return "it is " + shown(name) + ", which no device can be named (sysfs), expected an adapter's name";
    return bad_chars(name);
}

ShortNames shorten_fqdns(const std::vector<std::string> &names, const std::set<std::string> *whole)
{
    std::map<std::string, std::set<std::string>> by_short;  // short name -> the names that give it
    ShortNames out;
    for (const std::string &n : names) {
        bool address = std::all_of(n.begin(), n.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '.'; });
        if (address || n.find('.') == std::string::npos || (whole && whole->count(n))) {
            if (!address && n.find('.') != std::string::npos)
                out.kept.push_back(n);
            by_short[n].insert(n);
            continue;
        }
        by_short[n.substr(0, n.find('.'))].insert(n);
    }
    for (const auto &kv : by_short) {
        for (const std::string &n : kv.second)
            if (n != kv.first) {
                out.to[n] = kv.first;
                out.shortened.push_back(n);
            }
        if (kv.second.size() > 1)
            out.merged[kv.first].assign(kv.second.begin(), kv.second.end());
    }
    std::sort(out.shortened.begin(), out.shortened.end());
    std::sort(out.kept.begin(), out.kept.end());
    out.kept.erase(std::unique(out.kept.begin(), out.kept.end()), out.kept.end());
    return out;
}

std::string refused_message(const std::string &source, const RefusedCa &r)
{
    return source + (r.line ? ":" + std::to_string(r.line) : std::string()) + ": adapter " + guid_str(r.guid) +
           ", node description " + shown(r.desc) + ": " + r.why + "; the adapter is left out";
}

namespace {

// A netdev name made from where the device sits, as udev/systemd name them:
// PCI path (enp65s0f1np1, ibp11s0f0, enP2p33s0), hotplug slot (ens1np0,
// ens3f1), onboard index (eno1), MAC (enx0c42a1b2c3d4). Its trailing number is
// a function or port, not an adapter number.
bool placed_netdev_name(const std::string &n)
{
    std::size_t i = 0;
    for (const char *pre : {"ib", "en", "eth"})
        if (n.compare(0, std::strlen(pre), pre) == 0) {
            i = std::strlen(pre);
            break;
        }
    if (i == 0 || i + 1 >= n.size())
        return false;
    char kind = n[i];
    unsigned char next = static_cast<unsigned char>(n[i + 1]);
    if (kind == 'p' || kind == 'P')
        return std::isdigit(next) && n.find('s', i + 1) != std::string::npos;
    if (kind == 's' || kind == 'o')
        return std::isdigit(next);
    if (kind == 'x')
        return n.size() == i + 13 && std::all_of(n.begin() + static_cast<std::ptrdiff_t>(i + 1), n.end(),
                                                  [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
    return false;
}

// "ibp139s0f0" < "ibp11s0f1" as people read them: numbers by value
bool natural_less(const std::string &a, const std::string &b)
{
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        bool da = std::isdigit(static_cast<unsigned char>(a[i])), db = std::isdigit(static_cast<unsigned char>(b[j]));
        if (da && db) {
            std::size_t ei = i, ej = j;
            while (ei < a.size() && std::isdigit(static_cast<unsigned char>(a[ei])))
                ++ei;
            while (ej < b.size() && std::isdigit(static_cast<unsigned char>(b[ej])))
                ++ej;
            std::string na = a.substr(i, ei - i), nb = b.substr(j, ej - j);
            na.erase(0, std::min(na.find_first_not_of('0'), na.size()));
            nb.erase(0, std::min(nb.find_first_not_of('0'), nb.size()));
            if (na.size() != nb.size())
                return na.size() < nb.size();
            if (na != nb)
                return na < nb;
            i = ei;
            j = ej;
        } else {
            if (a[i] != b[j])
                return a[i] < b[j];
            ++i;
            ++j;
        }
    }
    return a.size() - i < b.size() - j;
}

}  // namespace

int hca_dev_index(const std::string &hca, bool hca_from_zero)
{
    if (placed_netdev_name(hca))
        return -1;  // numbered by its place among the host's adapters
    std::size_t e = hca.size();
    std::size_t b = e;
    while (b > 0 && std::isdigit(static_cast<unsigned char>(hca[b - 1])))
        --b;
    if (b == e || e - b > 6)
        return -1;
    int n = std::stoi(hca.substr(b));
    if (starts_with(hca, "HCA") && !hca_from_zero)
        return n - 1;  // HCA-1 is the first adapter, mlx5_0 (OFED's openibd)
    return n;
}

std::string sanitise_name(const std::string &s)
{
    std::string out;
    for (char c : s) {
        bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
        if (ok)
            out += c;
        else if (!out.empty() && out.back() != '-')
            out += '-';
    }
    while (!out.empty() && out.back() == '-')
        out.pop_back();
    return out;
}

std::string switch_base_name(const std::string &desc)
{
    std::string d = trim(desc);
    // Mellanox/NVIDIA: "MF0;<name>:<model>/<slot>/U1"
    std::size_t semi = d.find(';');
    if (semi != std::string::npos) {
        std::size_t colon = d.find(':', semi);
        std::string name = d.substr(semi + 1, colon == std::string::npos ? std::string::npos
                                                                         : colon - semi - 1);
        return sanitise_name(name);
    }
    return sanitise_name(d);
}

namespace {

bool default_switch_desc(const std::string &desc)
{
    std::string d = trim(desc);
    return d.empty() || d.find("Mellanox Technologies") != std::string::npos ||
           (starts_with(d, "MT") && d.size() > 2 && std::isdigit(static_cast<unsigned char>(d[2])));
}

// "MF0;core1:CS7500/L05/U1" -> "L05-U1", used to tell apart the ASICs of one chassis
std::string slot_suffix(const std::string &desc)
{
    std::size_t colon = desc.find(':', desc.find(';') == std::string::npos ? 0 : desc.find(';'));
    if (colon == std::string::npos)
        return "";
    std::size_t slash = desc.find('/', colon);
    if (slash == std::string::npos)
        return "";
    return sanitise_name(desc.substr(slash + 1));
}

// "MF0;core1:MCS8500/L16/U2" -> chassis core1, model MCS8500, slot L16/U2;
// false unless the slot is a line (L) or spine (S) board
bool director_slot(const std::string &desc, std::string &chassis, std::string &model, std::string &slot)
{
    std::size_t semi = desc.find(';'), colon = desc.find(':', semi == std::string::npos ? 0 : semi);
    if (semi == std::string::npos || colon == std::string::npos)
        return false;
    std::size_t slash = desc.find('/', colon);
    if (slash == std::string::npos || slash + 2 >= desc.size() || (desc[slash + 1] != 'L' && desc[slash + 1] != 'S') ||
        !std::isdigit(static_cast<unsigned char>(desc[slash + 2])))
        return false;
    chassis = sanitise_name(desc.substr(semi + 1, colon - semi - 1));
    model = sanitise_name(desc.substr(colon + 1, slash - colon - 1));
    slot = desc.substr(slash + 1);
    std::string clean;
    for (char c : slot)
        clean += std::isalnum(static_cast<unsigned char>(c)) || c == '/' ? c : '-';
    slot = clean;
    return !chassis.empty();
}

void name_switches(Topology &t)
{
    std::map<std::string, std::vector<int>> by_base;
    for (std::size_t i = 0; i < t.switches.size(); ++i) {
        const Node *n = t.fabric.find(t.switches[i].guid);
        std::string base = default_switch_desc(n->desc) ? "" : switch_base_name(n->desc);
        by_base[base].push_back(static_cast<int>(i));
    }
    std::set<std::string> used;
    for (auto &kv : by_base) {
        for (int i : kv.second) {
            Switch &s = t.switches[static_cast<std::size_t>(i)];
            const Node *n = t.fabric.find(s.guid);
            std::string name = kv.first;
            if (!name.empty() && kv.second.size() > 1) {
                std::string slot = slot_suffix(n->desc);
                name = slot.empty() ? "" : name + "-" + slot;
            }
            if (name.empty() || used.count(name)) {
                char buf[24];
                std::snprintf(buf, sizeof buf, "sw-%012llx",
                              static_cast<unsigned long long>(s.guid & 0xffffffffffffULL));
                name = kv.first.empty() ? std::string(buf) : kv.first + "-" + (buf + 3);
            }
            used.insert(name);
            s.name = name;
            if (!director_slot(trim(n->desc), s.chassis, s.model, s.slot))
                s.chassis.clear();
        }
    }
}

struct RailKey {
    int dev;
    int port;
    bool operator<(const RailKey &o) const { return std::tie(dev, port) < std::tie(o.dev, o.port); }
    bool operator==(const RailKey &o) const { return dev == o.dev && port == o.port; }
};

}  // namespace

namespace {

// NVLink domain islands, after the fabric: one island per domain, whatever
// leaves its hosts reach (NVLink joins them, not the network), under the
// smallest network island that holds all its hosts (leaf, else group, pod,
// fabric), so that every island lies in its parent. Named "nvl-" + the
// domain ID.
void add_domain_islands(Topology &t)
{
    std::map<std::string, std::vector<int>> members;  // domain -> hosts
    // host -> the record that named its domain: two records that reach one
    // host (gb011 and gb011.txt, or gb003.example.com) under two domains are
    // a contested claim, and the host is in neither
    std::map<int, const HostDomain *> given;
    std::set<int> contested;
    for (const HostDomain &d : t.fabric.domains) {
        auto it = t.host_index.find(d.host);
        if (it == t.host_index.end() && d.host.find('.') != std::string::npos)
            it = t.host_index.find(d.host.substr(0, d.host.find('.')));
        if (it == t.host_index.end())
            continue;
        auto e = given.emplace(it->second, &d);
        if (!e.second && e.first->second->domain != d.domain && contested.insert(it->second).second) {
            std::string claim = t.hosts[static_cast<std::size_t>(it->second)].name + ": NVLink domain " +
                                shown(e.first->second->domain) + " (" + e.first->second->source + ") and " +
                                shown(d.domain) + " (" + d.source + "), expected one domain per host: in no domain";
            auto &rc = t.fabric.refused_claims;  // once, also when a saved fabric.json is analysed again
            if (std::find(rc.begin(), rc.end(), claim) == rc.end())
                rc.push_back(claim);
        }
    }
    for (const auto &g : given) {
        const Host &h = t.hosts[static_cast<std::size_t>(g.first)];
        if (h.leaf_island >= 0 && !contested.count(g.first))
            members[g.second->domain].push_back(g.first);
    }
    auto chain = [&](int i) {  // i and the islands above it, innermost first
        std::vector<int> c;
        for (; i >= 0; i = t.islands[static_cast<std::size_t>(i)].parent)
            c.push_back(i);
        return c;
    };
    for (auto &kv : members) {
        Island is;
        is.level = Level::Domain;
        is.name = "nvl-" + sanitise_name(kv.first);
        std::set<int> leaf_islands;
        for (int h : kv.second)
            leaf_islands.insert(t.hosts[static_cast<std::size_t>(h)].leaf_island);
        std::vector<int> up = chain(*leaf_islands.begin());  // the common ancestors, innermost first
        for (int l : leaf_islands) {
            std::vector<int> other = chain(l);
            std::set<int> theirs(other.begin(), other.end());
            up.erase(std::remove_if(up.begin(), up.end(), [&](int i) { return !theirs.count(i); }), up.end());
        }
        if (up.empty())  // leaf islands of no common root: cannot be one island
            continue;
        is.parent = up.front();
        std::set<int> leaves;
        for (int l : leaf_islands)
            for (int sw : t.islands[static_cast<std::size_t>(l)].leaves)
                leaves.insert(sw);
        is.leaves.assign(leaves.begin(), leaves.end());
        is.hosts = kv.second;
        std::sort(is.hosts.begin(), is.hosts.end(), [&](int a, int b) {
            return t.hosts[static_cast<std::size_t>(a)].name < t.hosts[static_cast<std::size_t>(b)].name;
        });
        is.hosts.erase(std::unique(is.hosts.begin(), is.hosts.end()), is.hosts.end());
        for (int h : is.hosts)
            t.hosts[static_cast<std::size_t>(h)].domain = static_cast<int>(t.islands.size());
        t.islands.push_back(std::move(is));
    }
}

}  // namespace

namespace {

// The key with the most counted, when no other has as many; -1 otherwise.
int unique_most(const std::map<int, int> &counts, int &most)
{
    int key = -1;
    most = 0;
    bool tie = false;
    for (const auto &kv : counts)
        if (kv.second > most) {
            most = kv.second;
            key = kv.first;
            tie = false;
        } else if (kv.second == most) {
            tie = true;
        }
    return tie ? -1 : key;
}

// Pods from the spines that rail groups share (S[g]: group g's spines,
// sorted; w[g]: its cables to each). Two groups are one pod when each has
// more than half of its spines among the other's; then a pod whose spines
// are mostly another's, with at least as many groups and spines, joins it
// (leaves with uplinks missing, racks cabled to part of the spines by
// design). A few cables to another pod's spines (a stray, a swapped pair, a
// ring of them) share too few spines to join pods, as does a leaf cabled
// alike to two pods. Returns each group's pod (a group index) and, sorted,
// the (group, spine) cables to a spine most of whose cables come from
// another pod.
struct SpinePods {
    std::vector<int> pod;
    std::vector<std::pair<int, int>> stray;
};
SpinePods pods_by_spines(const std::vector<std::vector<int>> &S, const std::vector<std::vector<int>> &w,
                         std::size_t nspines)
{
    const std::size_t G = S.size();
    std::vector<std::vector<int>> gs(nspines);  // spine -> its groups, in order
    for (std::size_t g = 0; g < G; ++g)
        for (int sp : S[g])
            gs[static_cast<std::size_t>(sp)].push_back(static_cast<int>(g));
    auto shared = [&](int a, int b) {
        const auto &x = S[static_cast<std::size_t>(a)], &y = S[static_cast<std::size_t>(b)];
        int n = 0;
        for (std::size_t i = 0, j = 0; i < x.size() && j < y.size();)
            if (x[i] < y[j])
                ++i;
            else if (y[j] < x[i])
                ++j;
            else {
                ++n;
                ++i;
                ++j;
            }
        return n;
    };
    auto near = [&](int g, int h) {  // each has more than half of its spines among the other's
        const std::size_t most = std::max(S[static_cast<std::size_t>(g)].size(), S[static_cast<std::size_t>(h)].size());
        return 2 * static_cast<std::size_t>(shared(g, h)) > most;
    };
    // Groups alike: along each spine's list of groups, each is compared
    // with the last group seen of each of the last 4 pods seen (so a few
    // groups of other pods, or a pair cabled to two pods, between two of a
    // pod's groups do not cut the pod).
    UnionFind uf(G);
    constexpr std::size_t kAnchors = 4;
    for (std::size_t sp = 0; sp < nspines; ++sp) {
        std::vector<int> anchors;  // a member of each of the last pods seen, latest first
        for (int g : gs[sp]) {
            for (int m : anchors)
                if (uf.find(m) != uf.find(g) && near(g, m))
                    uf.unite(g, m);
            std::vector<int> next = {g};
            for (int m : anchors)
                if (next.size() < kAnchors && uf.find(m) != uf.find(g) &&
                    std::none_of(next.begin(), next.end(), [&](int x) { return uf.find(x) == uf.find(m); }))
                    next.push_back(m);
            anchors = std::move(next);
        }
    }
    // Then a pod whose spines are mostly another's, with at least as many
    // groups and spines (leaves with uplinks missing, a rack cabled to half
    // the spines by design), joins it: the one it shares most with, none on
    // a tie. A pod's spines: those cabled to more than half of its groups
    // (a few strays do not count).
    std::map<int, std::vector<int>> members;
    for (std::size_t g = 0; g < G; ++g)
        members[uf.find(static_cast<int>(g))].push_back(static_cast<int>(g));
    std::map<int, std::vector<int>> pod_spines;  // pod -> its spines, sorted
    std::vector<std::vector<int>> spine_pods(nspines);
    for (const auto &kv : members) {
        std::map<int, int> n;
        for (int g : kv.second)
            for (int sp : S[static_cast<std::size_t>(g)])
                n[sp]++;
        const int need = static_cast<int>(kv.second.size()) / 2 + 1;
        for (const auto &c : n)
            if (c.second >= need) {
                pod_spines[kv.first].push_back(c.first);
                spine_pods[static_cast<std::size_t>(c.first)].push_back(kv.first);
            }
    }
    std::vector<int> order;
    for (const auto &kv : members)
        order.push_back(kv.first);
    std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
        return pod_spines[x].size() != pod_spines[y].size() ? pod_spines[x].size() < pod_spines[y].size()
                                                             : members[x].size() < members[y].size();
    });
    for (int c : order) {
        const auto &sc = pod_spines[c];
        std::map<int, int> common;  // pods with as many groups and spines -> spines shared
        for (int sp : sc)
            for (int d : spine_pods[static_cast<std::size_t>(sp)])
                if (d != c && pod_spines[d].size() >= sc.size() && members[d].size() >= members[c].size())
                    common[d]++;
        int best = 0;
        const int into = unique_most(common, best);
        if (into >= 0 && 2 * static_cast<std::size_t>(best) > sc.size())
            uf.unite(c, into);
    }
    SpinePods out;
    out.pod.resize(G);
    for (std::size_t g = 0; g < G; ++g)
        out.pod[g] = uf.find(static_cast<int>(g));
    // a spine's pod: the one whose groups bring most of its cables (none on a tie)
    std::vector<int> spine_pod(nspines, -1);
    for (std::size_t sp = 0; sp < nspines; ++sp) {
        std::map<int, int> by_pod;
        for (int g : gs[sp]) {
            const auto &sg = S[static_cast<std::size_t>(g)];
            const std::size_t k = static_cast<std::size_t>(std::lower_bound(sg.begin(), sg.end(), static_cast<int>(sp)) - sg.begin());
            by_pod[out.pod[static_cast<std::size_t>(g)]] += w[static_cast<std::size_t>(g)][k];
        }
        int top = 0;
        spine_pod[sp] = unique_most(by_pod, top);
    }
    for (std::size_t g = 0; g < G; ++g)
        for (int sp : S[g])
            if (spine_pod[static_cast<std::size_t>(sp)] >= 0 && spine_pod[static_cast<std::size_t>(sp)] != out.pod[g])
                out.stray.push_back({static_cast<int>(g), sp});
    return out;
}

}  // namespace

Topology analyse(Fabric fabric)
{
    Topology t;
    t.fabric = std::move(fabric);
    const Fabric &f = t.fabric;

    // Switches and the switch graph.
    for (const Node &n : f.nodes)
        if (n.type == NodeType::Switch) {
            Switch s;
            s.guid = n.guid;
            t.switch_index[n.guid] = static_cast<int>(t.switches.size());
            t.switches.push_back(s);
        }
    if (t.switches.empty())
        throw InputError(f.source + ": the fabric has no switch: nothing to place jobs on");
    t.graph = SwitchGraph(t.switches.size());
    for (std::size_t i = 0; i < t.switches.size(); ++i)
        t.graph[i].guid = t.switches[i].guid;
    name_switches(t);

    // Hosts from CA descriptions, FQDNs shortened to Slurm's node names:
    // the names a node gives itself (its node description, its LLDP system
    // name). A name an admin wrote (a node name map, a CSV, a cloud's host
    // map) or a cloud's API gave is Slurm's node name as written (helper
    // 38: a map's gpu.1 was written as gpu, a CSV's h3.5 as another node's h3)
    const bool self_named = f.kind == "ib" || f.kind == "roce";
    std::vector<std::string> given_names;
    for (const Node &n : f.nodes)
        if (self_named && !n.mapped && n.type == NodeType::Ca && classify_ca(n.desc) == CaKind::Host) {
            auto hd = split_ca_desc(n.desc);
            if (host_name_problem(hd.first).empty() && hca_name_problem(hd.second).empty())
                given_names.push_back(hd.first);
        }
    // an FQDN Slurm's node list or the admin's map names whole stays whole
    // (helper 54: a map's node013.cluster.example.com was cut to node013
    // when the node's other adapters described themselves so too)
    std::set<std::string> whole = f.slurm_names;
    for (const Node &n : f.nodes)
        if (n.mapped && n.type == NodeType::Ca && classify_ca(n.desc) == CaKind::Host)
            whole.insert(split_ca_desc(n.desc).first);
    ShortNames short_names = shorten_fqdns(given_names, &whole);
    t.fqdn_shortened = short_names.shortened;
    t.fqdn_merged = short_names.merged;
    // Hosts from CA descriptions. A description is the node's own claim
    // (its root writes node_desc): one adapter name claimed by two CAs is
    // refused (below).
    // A description the admin's node name map gave is not a claim: an
    // adapter the map does not name cannot contest it (one root copying a
    // mapped adapter's description would otherwise have its host refused
    // whole); the copy alone is refused. A map may name some adapters of a
    // host only (those whose description was never set): the host's others
    // still describe themselves.
    //
    // One adapter name of a host is every spelling of it that names the
    // same device to a person: case and leading zeros aside (helper 60:
    // node003 MLX5_0 or mlx5_00 from another root beside node003's own
    // mlx5_0 was a fifth adapter of node003's that check never named, and
    // a dozen such copies left it odd-rails and its jobs unset). The kernel
    // writes one spelling (mlx5_%d); any other is contested as a copy is,
    // under the spelling all its claims are then known by (spelled).
    const auto name_key = adapter_name_key;
    auto desc_pair = [&](const Node &n) {
        auto hd = split_ca_desc(n.desc);
        auto sn = short_names.to.find(hd.first);
        if (sn != short_names.to.end())
            hd.first = sn->second;
        return hd;
    };
    // The spelling a contested name goes by is the fabric's: the one most
    // hosts' adapters are named (helper 61: a copy spelt hca-1 beside the
    // fabric's HCA-1 was keyed by its own spelling, no rail's name, and
    // the claim never settled), then the kernel's (lower case, no padding),
    // then the least.
    std::map<std::string, int> spelt;  // adapter name -> CAs named so, fabric-wide
    for (const Node &n : f.nodes)
        if (n.type == NodeType::Ca && classify_ca(n.desc) == CaKind::Host)
            ++spelt[split_ca_desc(n.desc).second];
    auto fabric_order = [&](const std::string &a, const std::string &b, const std::string &key) {
        const int fa = spelt[a], fb = spelt[b];
        if (fa != fb)
            return fa > fb;
        if ((a == key) != (b == key))
            return a == key;
        return a < b;
    };
    std::map<std::pair<std::string, std::string>, std::string> spelled;  // (host, name_key) -> the spelling used
    for (const Node &n : f.nodes)
        if (n.type == NodeType::Ca && classify_ca(n.desc) == CaKind::Host) {
            auto hd = desc_pair(n);
            const std::string key = name_key(hd.second);
            auto it = spelled.emplace(std::make_pair(hd.first, key), hd.second).first;
            if (fabric_order(hd.second, it->second, key))
                it->second = hd.second;
        }
    auto spelling = [&](const std::pair<std::string, std::string> &hd) {
        auto it = spelled.find({hd.first, name_key(hd.second)});
        return it == spelled.end() ? hd.second : it->second;
    };
    std::map<std::pair<std::string, std::string>, std::set<std::uint64_t>> claims;  // (host, adapter) -> CA GUIDs
    std::set<std::pair<std::string, std::string>> mapped_pairs;
    for (const Node &n : f.nodes)
        if (n.type == NodeType::Ca && classify_ca(n.desc) == CaKind::Host) {
            auto hd = desc_pair(n);
            hd.second = spelling(hd);
            if (n.mapped)
                mapped_pairs.insert(hd);
            claims[hd].insert(n.guid);
        }
    for (auto &c : claims)
        if (mapped_pairs.count(c.first))
            for (auto g = c.second.begin(); g != c.second.end();) {
                const Node *n = f.find(*g);
                g = n && !n->mapped ? c.second.erase(g) : std::next(g);
            }
    // One adapter name claimed by two CAs: neither claim is believed, and
    // the host keeps its other adapters (its place in topology.conf: one
    // root copying a description must not take another node out of Slurm's
    // tree), but its rails are not known: the plugin sets no device
    // variable there (the view lists it undecided)
    std::map<std::pair<std::string, std::string>, std::string> contested_adapters;  // (host, adapter) -> why
    for (const auto &c : claims)
        if (c.second.size() > 1) {
            // (eight named, then how many more: each claimant's refusal
            // repeats it)
            std::vector<std::string> guids;
            for (std::uint64_t g : c.second)
                guids.push_back(guid_str(g));
            contested_adapters.emplace(c.first, "adapter " + shown(c.first.first + " " + c.first.second) + " is claimed by " +
                                                    std::to_string(c.second.size()) + " adapters (" + first_of(guids) +
                                                    "): node descriptions are each node's own; map GUIDs to names with "
                                                    "--node-name-map");
            t.claimed_hosts.insert(c.first.first);
        }
    std::map<std::string, Host> hosts;
    std::set<std::uint64_t> refused_guids;
    std::set<std::uint64_t> placed;  // adapters numbered by their place among the host's
    for (std::size_t li = 0; li < f.links.size(); ++li) {
        const Link &l = f.links[li];
        auto sa = t.switch_index.find(l.a.guid), sb = t.switch_index.find(l.b.guid);
        bool a_sw = sa != t.switch_index.end(), b_sw = sb != t.switch_index.end();
        if (a_sw && b_sw) {
            if (sa->second == sb->second)
                continue;  // a cable looped back into the same switch
            auto e = boost::edge(static_cast<SwitchId>(sa->second), static_cast<SwitchId>(sb->second), t.graph);
            if (!e.second)
                e = boost::add_edge(static_cast<SwitchId>(sa->second), static_cast<SwitchId>(sb->second), t.graph);
            t.graph[e.first].multiplicity += 1;
            t.graph[e.first].gbps += l.gbps();
            continue;
        }
        if (!a_sw && !b_sw)
            continue;  // CA to CA back-to-back: no switch to place on
        const LinkEnd &ca = a_sw ? l.b : l.a;
        const LinkEnd &sw = a_sw ? l.a : l.b;
        int swi = a_sw ? sa->second : sb->second;
        const Node *cn = f.find(ca.guid);
        if (cn->type == NodeType::Router)
            continue;  // an IB router (Rt record) joins subnets: never a host, whatever it calls itself
        switch (classify_ca(cn->desc)) {
        case CaKind::Sharp:
            t.switches[static_cast<std::size_t>(swi)].sharp = true;
            t.sharp_nodes.push_back(ca.guid);
            break;
        case CaKind::Default:
            t.unnamed.push_back({ca.guid, cn->desc, swi, sw.port});
            t.switches[static_cast<std::size_t>(swi)].host_ports++;
            break;
        case CaKind::Host: {
            auto hd = split_ca_desc(cn->desc);
            std::string why = host_name_problem(hd.first);
            if (!why.empty())
                why = "host name " + shown(hd.first) + " refused: " + why;
            else if (!(why = hca_name_problem(hd.second)).empty())
                why = "adapter name " + shown(hd.second) + " refused: " + why;
            auto sn = short_names.to.find(hd.first);
            const std::string &name = sn == short_names.to.end() ? hd.first : sn->second;
            const std::string hca = spelling({name, hd.second});  // as every claim of it is known
            if (why.empty() && !cn->mapped && mapped_pairs.count({name, hca}))
                why = "adapter name " + shown(name + " " + hd.second) + " refused: the node name map gives " +
                      (hca == hd.second ? std::string("it") : shown(name + " " + hca)) +
                      " to another adapter (a node description is its node's own claim, the map the admin's)";
            if (why.empty() && contested_adapters.count({name, hca})) {
                why = "adapter name " + shown(name + " " + hd.second) + " refused: " + contested_adapters[{name, hca}];
                t.claims[{name, hca}].insert({ca.guid, ca.port});
            }
            if (why.empty() && name != hd.first && !(why = host_name_problem(name)).empty()) {
                // "it is 'default', a word ..." after "shortened to 'default'" says the name twice
                const std::string it = "it is " + shown(name) + ", ";
                why = "host name " + shown(hd.first) + " refused: shortened to " + shown(name) + ", " +
                      (why.compare(0, it.size(), it) == 0 ? why.substr(it.size()) : why);
            }
            if (!why.empty()) {
                if (refused_guids.insert(ca.guid).second)
                    t.refused.push_back({ca.guid, cn->desc, cn->line, why, swi, sw.port});
                t.switches[static_cast<std::size_t>(swi)].host_ports++;
                break;
            }
            Host &h = hosts[name];
            h.name = name;
            HostPort hp;
            hp.ca_guid = ca.guid;
            hp.port = ca.port;
            hp.hca = hd.second;
            hp.dev_index = hca_dev_index(hd.second);
            hp.link = li;
            hp.sw = swi;
            h.ports.push_back(hp);
            t.switches[static_cast<std::size_t>(swi)].host_ports++;
            break;
        }
        }
    }
    // HCA-N names counting from 0 (a site's own descriptions, "gpu01
    // HCA-0".."HCA-3"): read as OFED's, from 1, HCA-0 had no number, took
    // HCA-1's place and a rail was lost with no finding. The fabric's names
    // decide, by hosts: from 0 when at least as many hosts have an HCA-0 as
    // have two HCA-N adapters or more, HCA-1 among them, and no HCA-0. One
    // host's HCA-0 decides nothing (a rule by host let one root's made-up
    // "node003 HCA-0" shift node003's rails against its peers', helper 62).
    // Reading from 1 what counts from 0 loses every host a rail, silently;
    // the other way shifts every number by one (no rail lost): so a tie
    // reads from 0 (helper 66: one dead HCA-0 on a fabric of two hosts read
    // it from 1), and a host counted for 1 takes two adapters (helper 66:
    // one root's eight adapters, each named as a made-up host's HCA-1,
    // outvoted eight honest hosts). The hosts named the other way are named
    // (check: hca-numbering).
    bool hca_from_zero = false;
    {
        std::vector<std::string> zero, one;
        for (const auto &kv : hosts) {
            bool has0 = false, has1 = false;
            std::set<std::uint64_t> hcas;
            for (const HostPort &p : kv.second.ports)
                if (const int n = hca_dev_index(p.hca, true); starts_with(p.hca, "HCA") && n >= 0) {
                    has0 = has0 || n == 0;
                    has1 = has1 || n == 1;
                    hcas.insert(p.ca_guid);
                }
            if (has0)
                zero.push_back(kv.first);
            else if (has1 && hcas.size() >= 2)
                one.push_back(kv.first);
        }
        hca_from_zero = !zero.empty() && zero.size() >= one.size();
        t.hca_from_zero = hca_from_zero;
        t.hca_numbered_otherwise = hca_from_zero ? one : zero;
        if (hca_from_zero)
            for (auto &kv : hosts)
                for (HostPort &p : kv.second.ports)
                    p.dev_index = hca_dev_index(p.hca, true);
    }
    // A trailing number that is the host's own, not an adapter's (names
    // made per host: rdma0_gpu01, gpu01-net2): read as adapter numbers they
    // give no two hosts an adapter in common, and all of a host's ports one.
    // Then every adapter is numbered by its place, as below.
    {
        std::map<RailKey, std::set<std::string>> holders;
        int multi = 0, one_key = 0;
        for (const auto &kv : hosts) {
            std::set<RailKey> keys;
            for (const HostPort &p : kv.second.ports)
                if (p.dev_index >= 0) {
                    keys.insert({p.dev_index, p.port});
                    holders[{p.dev_index, p.port}].insert(kv.first);
                }
            if (kv.second.ports.size() > 1) {
                ++multi;
                one_key += keys.size() == 1;
            }
        }
        bool shared = std::any_of(holders.begin(), holders.end(), [](const auto &kv) { return kv.second.size() > 1; });
        if (multi >= 2 && !holders.empty() && (!shared || one_key == multi))
            for (auto &kv : hosts)
                for (HostPort &p : kv.second.ports)
                    p.dev_index = -1;
    }
    // a contested name no adapter of which was believed: the host is gone
    // from every Slurm file unless someone says who is who
    for (const auto &c : contested_adapters)
        if (!hosts.count(c.first.first))
            t.contested_lost.emplace(c.first.first, c.second);
    for (const std::string &c : f.contested) {
        const std::string host = c.substr(0, c.find(": "));
        if (!hosts.count(host))
            t.contested_lost.emplace(host, c.substr(std::min(c.size(), host.size() + 2)));
    }
    for (auto &kv : hosts) {
        Host &h = kv.second;
        // Adapters without an adapter number in their name (ibp11s0f0, or
        // none) are numbered by their names as people read them (PCI order on
        // servers of one model), then by GUID.
        std::vector<std::pair<std::string, std::uint64_t>> unnumbered;
        for (auto &p : h.ports)
            if (p.dev_index < 0) {
                unnumbered.push_back({p.hca, p.ca_guid});
                placed.insert(p.ca_guid);
            }
        auto by_name = [](const std::pair<std::string, std::uint64_t> &x, const std::pair<std::string, std::uint64_t> &y) {
            if (natural_less(x.first, y.first))
                return true;
            if (natural_less(y.first, x.first))
                return false;
            return x.second < y.second;
        };
        // a contested name keeps its place among the host's (helper 59: one
        // copied gpu003 ibp12s0f0 shifted the others' places, three
        // miswired-rail errors on its honest adapters and no claim settled)
        if (!unnumbered.empty())
            for (auto ca = contested_adapters.lower_bound({h.name, std::string()});
                 ca != contested_adapters.end() && ca->first.first == h.name; ++ca)
                if (hca_dev_index(ca->first.second, hca_from_zero) < 0)
                    unnumbered.push_back({ca->first.second, 0});
        std::sort(unnumbered.begin(), unnumbered.end(), by_name);
        unnumbered.erase(std::unique(unnumbered.begin(), unnumbered.end()), unnumbered.end());
        for (auto &p : h.ports)
            if (p.dev_index < 0)
                p.dev_index = static_cast<int>(
                    std::lower_bound(unnumbered.begin(), unnumbered.end(), std::make_pair(p.hca, p.ca_guid), by_name) -
                    unnumbered.begin());
        std::sort(h.ports.begin(), h.ports.end(), [](const HostPort &x, const HostPort &y) {
            return std::tie(x.dev_index, x.port, x.ca_guid) < std::tie(y.dev_index, y.port, y.ca_guid);
        });
        t.host_index[h.name] = static_cast<int>(t.hosts.size());
        t.hosts.push_back(std::move(h));
    }

    // Compute hosts: those with at least half the usual port count. A host
    // some of whose adapter names another node's root copied is counted
    // with them (each contested adapter as the most ports one claimant has
    // under its name, as the host's own would be): its class and its place
    // are judged as for its peers. Without them, a copy of three of a
    // four-rail host's names left it one port, no compute host, out of its
    // rail group in topology.conf and no host line in the view (helper 58).
    std::map<std::string, int> claimed_ports;  // host -> ports its contested adapters would give it
    for (const auto &kv : t.claims) {
        std::map<std::uint64_t, int> per_ca;
        int most = 0;
        for (const auto &gp : kv.second)
            most = std::max(most, ++per_ca[gp.first]);
        claimed_ports[kv.first.first] += most;
    }
    auto port_count = [&](const Host &h) {
        auto it = claimed_ports.find(h.name);
        return static_cast<int>(h.ports.size()) + (it == claimed_ports.end() ? 0 : it->second);
    };
    std::vector<int> counts;
    for (const Host &h : t.hosts)
        counts.push_back(static_cast<int>(h.ports.size()));
    int usual = most_common(counts, 1);
    for (Host &h : t.hosts)
        h.compute = usual <= 1 ? !h.ports.empty() : 2 * port_count(h) >= usual;

    // Rails: port keys carried by at least half of the compute hosts of
    // their class. The hosts LLDP could not decide (their interfaces may be
    // a storage server's) have no vote while any host is decided: ten
    // storage servers of two ports must not make two rails of eight-rail GPU
    // hosts.
    //
    // Classes: a fabric may join hosts of several port counts (a partition
    // of one-port CPU nodes beside eight-rail GPU nodes, on one InfiniBand
    // or RoCE fabric). Voted all together, the more numerous one-port hosts
    // would leave the GPU hosts one rail of their eight, and the plugin
    // would give their jobs one NIC. So the compute hosts are cut at twice
    // the usual count: those below vote as one class; those above are taken
    // in turn around their most common count (from half to twice it), each
    // such group of at least two hosts a class that votes among itself (one
    // odd host of many ports makes no rails). A host's
    // rails are its class's: dual-port storage servers beside one-port
    // nodes are a class too, and their second port, a rail of theirs, names
    // nothing on the nodes (check judges cabling within a class).
    std::set<std::string> no_vote(t.fabric.undecided.begin(), t.fabric.undecided.end());
    no_vote.insert(t.claimed_hosts.begin(), t.claimed_hosts.end());
    if (std::all_of(t.hosts.begin(), t.hosts.end(), [&](const Host &h) { return !h.compute || no_vote.count(h.name); }))
        no_vote.clear();
    // class 0: the compute hosts below twice the usual count; class c > 0:
    // those of bounds[c].first <= ports < bounds[c].second (and not below)
    std::vector<std::pair<int, int>> bounds{{0, 2 * usual}};
    {
        std::vector<int> above;
        for (const Host &h : t.hosts)
            if (h.compute && !no_vote.count(h.name) && static_cast<int>(h.ports.size()) >= 2 * usual)
                above.push_back(static_cast<int>(h.ports.size()));
        while (!above.empty()) {
            const int u = most_common(above, 0);
            std::vector<int> in, rest;
            for (int n : above)
                (2 * n >= u && n < 2 * u ? in : rest).push_back(n);
            if (in.size() < 2)
                break;  // the most common count is one host's: so is every other
            bounds.push_back({(u + 1) / 2, 2 * u});
            above.swap(rest);
        }
    }
    auto class_of = [&](const Host &h) {
        const int n = port_count(h);
        if (n >= 2 * usual)
            for (std::size_t c = 1; c < bounds.size(); ++c)
                if (n >= bounds[c].first && n < bounds[c].second)
                    return static_cast<int>(c);
        return 0;
    };
    // Models: inside one window of counts, hosts whose adapters are numbered
    // apart are classes of their own. A DGX H100's rails are mlx5_0,3-6,9-11,
    // an HGX board's may be mlx5_0-7: voted together, the less common model's
    // own adapters (mlx5_1,2,7) are no rails, and the plugin would give its
    // jobs five NICs of eight; at an even split one root renaming its own
    // adapters moves the threshold for every host. A set of adapter keys
    // that at least two hosts carry exactly seeds a class when, against each
    // more common seed, it differs by four keys or more in all (the keys
    // either has that the other lacks) and neither is within the other. A
    // set one host carries, or one near a more common seed (cables out, a
    // storage HCA or two added, one adapter renamed), never does; nor does a
    // subset or superset (four-rail hosts beside eight-rail ones are judged
    // as eight-rail hosts with four cables out: nothing in the fabric tells
    // the two apart). Each host then joins the seed it shares the most keys
    // with, the more common on a tie. A window of one seed votes as before.
    // (at most max_models a window, the most common first: a fabric has a
    // few models, and a file of thousands of made-up ones must not cost
    // their square)
    constexpr std::size_t max_models = 16;
    std::vector<std::set<RailKey>> keys_of(t.hosts.size());
    for (std::size_t hi = 0; hi < t.hosts.size(); ++hi)
        for (const HostPort &p : t.hosts[hi].ports)
            keys_of[hi].insert({p.dev_index, p.port});
    auto voting = [&](const Host &h) { return h.compute && !no_vote.count(h.name); };
    std::vector<std::set<RailKey>> seed;  // each class's seed
    std::vector<int> window_of;          // each class's window of counts
    std::vector<int> first_class(bounds.size(), 0);
    std::vector<int> class_of_host(t.hosts.size(), -1);
    auto shared = [](const std::set<RailKey> &a, const std::set<RailKey> &b) {
        std::size_t n = 0;
        for (const RailKey &k : a)
            n += b.count(k);
        return n;
    };
    // the keys of the compute hosts' ports on each switch: a leaf carries a
    // set's rails when its hosts' ports there are of those keys
    std::map<int, std::set<RailKey>> keys_on_sw;
    for (const Host &h : t.hosts)
        if (h.compute)
            for (const HostPort &p : h.ports)
                keys_on_sw[p.sw].insert({p.dev_index, p.port});
    auto carries = [&](int sw, const std::set<RailKey> &keys) {
        auto it = keys_on_sw.find(sw);
        return it != keys_on_sw.end() &&
               std::any_of(it->second.begin(), it->second.end(), [&](const RailKey &k) { return keys.count(k) > 0; });
    };
    for (std::size_t w = 0; w < bounds.size(); ++w) {
        std::map<std::set<RailKey>, std::vector<std::size_t>> holders;  // each exact set's hosts
        for (std::size_t hi = 0; hi < t.hosts.size(); ++hi)
            if (voting(t.hosts[hi]) && class_of(t.hosts[hi]) == static_cast<int>(w))
                holders[keys_of[hi]].push_back(hi);
        // where a set's hosts share leaves with a seed's, every key the set
        // has beyond the seed's is cabled where the seed's rails are (an HGX
        // board's mlx5_1 on the leaf of a DGX's mlx5_3, or, all of a host's
        // ports on one leaf, beside the others' rails): storage HCAs on a
        // storage leaf, with two cables out on the same hosts, are no model.
        // A set whose hosts share no leaf with the seed's (another
        // generation's own scalable unit) may be one.
        auto renamed_rails = [&](const std::set<RailKey> &set, const std::set<RailKey> &other) {
            std::set<int> other_sw;
            for (std::size_t hi : holders[other])
                for (const HostPort &p : t.hosts[hi].ports)
                    other_sw.insert(p.sw);
            bool apart = true;
            for (std::size_t hi : holders[set])
                for (const HostPort &p : t.hosts[hi].ports)
                    apart = apart && !other_sw.count(p.sw);
            if (apart)
                return true;
            for (const RailKey &k : set) {
                if (other.count(k))
                    continue;
                bool there = false;
                for (std::size_t hi : holders[set])
                    for (const HostPort &p : t.hosts[hi].ports)
                        there = there || (RailKey{p.dev_index, p.port} == k && carries(p.sw, other));
                if (!there)
                    return false;
            }
            return true;
        };
        std::vector<std::pair<std::set<RailKey>, int>> order;
        for (const auto &kv : holders)
            order.push_back({kv.first, static_cast<int>(kv.second.size())});
        std::stable_sort(order.begin(), order.end(), [](const auto &x, const auto &y) {
            return std::make_pair(x.second, x.first.size()) > std::make_pair(y.second, y.first.size());
        });
        first_class[w] = static_cast<int>(seed.size());
        for (const auto &kv : order) {
            bool far = true;
            for (std::size_t m = static_cast<std::size_t>(first_class[w]); m < seed.size() && far; ++m) {
                // four keys or more apart in all, neither within the other
                const std::size_t n = shared(kv.first, seed[m]);
                far = kv.first.size() + seed[m].size() >= 2 * n + 4 && kv.first.size() > n && seed[m].size() > n &&
                      renamed_rails(kv.first, seed[m]);
            }
            if (seed.size() == static_cast<std::size_t>(first_class[w]) ||
                (kv.second >= 2 && far && seed.size() - static_cast<std::size_t>(first_class[w]) < max_models)) {
                seed.push_back(kv.first);
                window_of.push_back(static_cast<int>(w));
            }
        }
        if (seed.size() == static_cast<std::size_t>(first_class[w])) {  // a window of no voting host
            seed.emplace_back();
            window_of.push_back(static_cast<int>(w));
        }
    }
    // a host's class before the vote: the seed of its window it shares most keys with
    auto seeded_class = [&](std::size_t hi) {
        const std::size_t w = static_cast<std::size_t>(class_of(t.hosts[hi]));
        std::size_t best = static_cast<std::size_t>(first_class[w]), most = 0;
        for (std::size_t m = best; m < seed.size() && window_of[m] == static_cast<int>(w); ++m)
            if (const std::size_t n = shared(keys_of[hi], seed[m]); n > most) {
                most = n;
                best = m;
            }
        return static_cast<int>(best);
    };
    const std::size_t nclasses = seed.size();
    std::vector<std::map<RailKey, int>> key_hosts(nclasses);
    std::map<RailKey, std::map<std::string, int>> key_names;
    // an adapter name without its number and in one spelling (mlx5_0 and
    // MLX5_3: mlx5_), to name a rail as the fabric's adapters are named
    std::map<std::string, int> prefixes;
    auto name_prefix = [hca_from_zero](const std::string &hca) {
        if (hca_dev_index(hca, hca_from_zero) < 0)
            return std::string();  // no number in it (ibp12s0f0): no prefix
        std::string k = adapter_name_key(hca);
        while (!k.empty() && std::isdigit(static_cast<unsigned char>(k.back())))
            k.pop_back();
        return k;
    };
    std::vector<int> nclass(nclasses, 0);
    for (std::size_t hi = 0; hi < t.hosts.size(); ++hi) {
        const Host &h = t.hosts[hi];
        if (!voting(h))
            continue;
        const int c = class_of_host[hi] = seeded_class(hi);
        ++nclass[static_cast<std::size_t>(c)];
        for (const RailKey &k : keys_of[hi])
            key_hosts[static_cast<std::size_t>(c)][k]++;
        for (const HostPort &p : h.ports) {
            key_names[{p.dev_index, p.port}][p.hca]++;
            prefixes[name_prefix(p.hca)]++;
        }
    }
    // the fabric's most common adapter name without its number (mlx5_)
    // (of numbered names, when they are more than half of all)
    std::string usual_prefix;
    int named_ports = 0, usual_n = 0;
    for (const auto &pf : prefixes) {
        named_ports += pf.second;
        if (!pf.first.empty() && pf.second > usual_n) {
            usual_prefix = pf.first;
            usual_n = pf.second;
        }
    }
    if (2 * usual_n <= named_ports)
        usual_prefix.clear();
    std::vector<std::set<RailKey>> class_rails(nclasses);
    std::set<RailKey> all_rails;
    // at least half of class 0's hosts, as ever, and of a model's (its seed
    // is two hosts or more of exactly its keys: the same cable out on half
    // of them, or two roots' sets one adapter from it, must not take a rail
    // from the others); more than half of a wider window's class (in a class
    // of two, one host's storage HCA or one root's made-up adapter is no rail)
    for (std::size_t c = 0; c < nclasses; ++c)
        for (const auto &kv : key_hosts[c])
            if (c == 0 || c != static_cast<std::size_t>(first_class[static_cast<std::size_t>(window_of[c])])
                    ? 2 * kv.second >= nclass[c]
                    : 2 * kv.second > nclass[c]) {
                class_rails[c].insert(kv.first);
                all_rails.insert(kv.first);
            }
    std::map<RailKey, int> rail_of;
    std::map<int, int> dev_ports;  // ports per adapter among rails, to name them
    for (const RailKey &k : all_rails)
        dev_ports[k.dev]++;
    for (const RailKey &k : all_rails) {
        rail_of[k] = static_cast<int>(t.rails.size());
        // Its name: the one most hosts give it, among those named as the
        // fabric's adapters most are (mlx5_0 beside every host's storage
        // mlx4_0 or qib0: helper 63, a tie gave every host the storage
        // card as rail 0, and one root renaming its own mlx5_0 broke it)
        std::string name;
        std::pair<bool, int> best{false, -1};
        for (const auto &nm : key_names[k])
            if (const std::pair<bool, int> b{!usual_prefix.empty() && name_prefix(nm.first) == usual_prefix, nm.second};
                b > best) {
                best = b;
                name = nm.first;
            }
        if (name.empty())
            name = "hca" + std::to_string(k.dev);
        if (dev_ports[k.dev] > 1)
            name += "/" + std::to_string(k.port);
        t.rails.push_back(name);
    }
    // the rails' names in one spelling: a numberless name that is one
    // (ibp12s0f0 on a netdev-named fabric) is no made-up name (helper 64:
    // one root giving two of its own adapters node003 mlx5_7 made it
    // contested, and node003's four own netdev names were refused as
    // numberless beside it: the Slurm files froze with no name copied)
    std::vector<std::string> rail_key;  // each rail's adapter name in one spelling
    for (const std::string &r : t.rails)
        rail_key.push_back(adapter_name_key(r.substr(0, r.find('/'))));
    const std::set<std::string> rail_name_keys(rail_key.begin(), rail_key.end());
    std::vector<int> class_usual(nclasses, usual);  // the usual port count of each class
    {
        std::vector<std::vector<int>> counts_of(nclasses);
        for (std::size_t hi = 0; hi < t.hosts.size(); ++hi)
            if (class_of_host[hi] >= 0)
                counts_of[static_cast<std::size_t>(class_of_host[hi])].push_back(static_cast<int>(t.hosts[hi].ports.size()));
        for (std::size_t c = 1; c < nclasses; ++c)
            class_usual[c] = most_common(counts_of[c], usual);
    }
    // Each compute host's class: the one whose rails most of its ports are
    // (a GPU host with cables out, fewer ports than its class's window,
    // is still of the GPU class; ties stay with the class of its count).
    // A host of two ports or more with no more than half of them on its
    // class's rails is like no class (the first host of a new model, the one
    // GPU host left beside a CPU partition): its rails are not known, and
    // the plugin sets no device variable there (check: odd-rails).
    std::vector<int> host_usual(t.hosts.size(), usual), host_class(t.hosts.size(), -1);
    for (std::size_t hi = 0; hi < t.hosts.size(); ++hi) {
        Host &h = t.hosts[hi];
        std::size_t c = static_cast<std::size_t>(class_of_host[hi] >= 0 ? class_of_host[hi] : first_class[static_cast<std::size_t>(class_of(h))]);
        if (h.compute) {
            auto on = [&](std::size_t k) { return shared(keys_of[hi], class_rails[k]); };
            std::size_t best = on(c);
            for (std::size_t k = 0; k < nclasses && !no_vote.count(h.name); ++k)
                if (const std::size_t n = on(k); n > best) {  // (an undecided host, whose ports may be front-end ones, is not moved)
                    best = n;
                    c = k;
                }
            host_class[hi] = static_cast<int>(c);
            host_usual[hi] = class_usual[c];
            for (const RailKey &k : class_rails[c])
                h.rails.push_back(rail_of[k]);
            h.rails_unknown = h.ports.size() >= 2 && 2 * best <= h.ports.size() && !no_vote.count(h.name);
            // ...and so is a host with an adapter that is none of its class's
            // rails while it lacks two or more of them (a lone HGX board
            // among DGX H100s has 5 of 8 ports on their rails: its other
            // three may be the three it lacks, under its own names, and the
            // view would name five NICs of eight; so with two of its cables
            // out, one of those three left). A host whose adapters are
            // numbered by their place is judged by the leaves its ports land
            // on (below), not by the names.
            if (!h.rails_unknown && !no_vote.count(h.name) &&
                std::none_of(h.ports.begin(), h.ports.end(), [&](const HostPort &p) { return placed.count(p.ca_guid) > 0; })) {
                const std::size_t off = keys_of[hi].size() - best;
                std::size_t lacks = 0;
                for (const RailKey &k : class_rails[c])
                    lacks += !keys_of[hi].count(k);
                h.rails_unknown = off >= 1 && lacks >= 2;
            }
        }
        for (HostPort &p : h.ports)
            p.rail = (h.compute && class_rails[c].count({p.dev_index, p.port})) ? rail_of[{p.dev_index, p.port}] : -1;
        // Two adapters of one host on one rail by their number, of two
        // names (mlx5_0 and a storage card's mlx4_0, qib0 or bnxt_re0): the
        // one named as the rail is named is it (helper 62: the storage card
        // was put in NCCL_IB_HCA beside the rail's adapter). Where neither
        // is, both stay (as before; check judges the cabling).
        for (HostPort &p : h.ports) {
            if (p.rail < 0)
                continue;
            const std::string &rail = t.rails[static_cast<std::size_t>(p.rail)];
            const std::string rail_hca = rail.substr(0, rail.find('/'));
            if (p.hca == rail_hca)
                continue;
            const bool named_one = std::any_of(h.ports.begin(), h.ports.end(), [&](const HostPort &q) {
                return q.rail == p.rail && q.ca_guid != p.ca_guid && q.hca == rail_hca;
            });
            if (named_one)
                p.rail = -1;
        }
        // A compute host some of whose adapter names are contested: an
        // adapter of its on no rail of its class is not believed either
        // (helper 59: every rail name copied and one made-up name beside
        // them, on the copier's leaf, moved the host to the copier's rail
        // group, pod or storage leaf in topology.conf). Its rail adapters
        // place it; with none left it is a host no adapter of which is
        // believed (contested_lost: the Slurm files are not written).
        // Adapters numbered by their place are left as they are (a place
        // is no name: their rails are judged by the leaves, below).
        //
        // Three more (helper 61: one made-up name, foo, mlx5-0 or ibp1s0,
        // beside copies of all of a host's rail names, or of three of its
        // four, moved it to the copier's leaf with exit 0):
        // - an adapter numbered by its place (no number in its name) is not
        //   believed beside names that carry their numbers (its contested
        //   ones, copies of its real names, do);
        // - nor one on the rail port of a contested name: that rail's own
        //   adapter is among the claimants;
        // - when the contested names cover as many ports of its class's
        //   rails as the class has, every rail of the host is contested:
        //   what else it has (made-up, or a storage card) cannot place it.
        // (A vote by the names' letters was tried and not kept: helper 62's
        // roots made up more names in one style than the host had.)
        if (h.compute && t.claimed_hosts.count(h.name)) {
            auto first = contested_adapters.lower_bound({h.name, std::string()});
            const std::string contested =
                first != contested_adapters.end() && first->first.first == h.name ? first->second : std::string();
            std::size_t rail_ports = 0;  // ports of the class's rails the contested names cover
            std::set<RailKey> contested_keys;
            bool numbered = false;  // a contested name carries its adapter's number
            for (auto ca = first; ca != contested_adapters.end() && ca->first.first == h.name; ++ca) {
                const int dev = hca_dev_index(ca->first.second, hca_from_zero);
                numbered = numbered || dev >= 0;
                std::set<int> ports;
                auto cl = t.claims.find(ca->first);
                if (cl != t.claims.end())
                    for (const auto &gp : cl->second)
                        ports.insert(gp.second);
                for (int port : ports) {
                    rail_ports += dev < 0 || class_rails[c].count({dev, port});
                    if (dev >= 0)
                        contested_keys.insert({dev, port});
                }
            }
            const bool every_rail = !h.rails_unknown && !class_rails[c].empty() && rail_ports >= class_rails[c].size();
            for (auto p = h.ports.begin(); p != h.ports.end();) {
                std::string why;
                if (p->rail < 0 && !placed.count(p->ca_guid))
                    why = "other adapter names are contested (" + contested +
                          "), and this one is on no rail of its class: a made-up name beside copied ones must not place "
                          "the host";
                else if (numbered && placed.count(p->ca_guid) && !rail_name_keys.count(adapter_name_key(p->hca)))
                    why = "other adapter names are contested (" + contested +
                          "), and this one carries no adapter number beside names that do: a made-up name beside copied "
                          "ones must not place the host";
                else if (contested_keys.count({p->dev_index, p->port}))
                    why = "other adapter names are contested (" + contested +
                          "), and this one is on the rail port of a contested name: that rail's adapter is among the "
                          "claimants";
                else if (every_rail)
                    why = "rails are all contested (" + contested + "): its other adapters cannot place it";
                if (why.empty()) {
                    ++p;
                    continue;
                }
                const Node *cn = f.find(p->ca_guid);
                if (refused_guids.insert(p->ca_guid).second)
                    t.refused.push_back({p->ca_guid, cn ? cn->desc : std::string(), cn ? cn->line : 0,
                                         "adapter name " + shown(h.name + " " + p->hca) + " refused: " + shown(h.name) + "'s " + why,
                                         p->sw, t.fabric.links[p->link].a.guid == p->ca_guid ? t.fabric.links[p->link].b.port
                                                                                             : t.fabric.links[p->link].a.port});
                p = h.ports.erase(p);
            }
            if (h.ports.empty())
                t.contested_lost.emplace(h.name, contested);
        }
    }
    // A host's rail whose port is on a switch that carries few of that
    // rail's ports of its rail-group peers (the hosts that share a leaf
    // with it: under a quarter of their main switch's for the rail):
    // - another port of the same adapter on that main switch is the rail
    //   (a dual-port card, port 1 on a storage leaf and port 2 on the
    //   rail's leaf): NCCL_IB_HCA had mlx5_0:1, the storage port;
    // - else an adapter under another name than the rail's (a storage
    //   card's mlx4_0, qib0 or bnxt_re0 where the rail is mlx5_0, its rail
    //   adapter missing: dead, or its cable out) is no rail: the host lacks
    //   it (check: missing-rail). It went into NCCL_IB_HCA as the rail.
    // Named as the rail is named, with no such port, it stays (a miscabled
    // rail, which check judges); so does one on a leaf of rails (ports
    // named as their rails, two or a quarter of the peers' main switch's
    // or more: helper 63, a rail cable of a host whose names are not the
    // fabric's moved to another group's leaf was called missing); on its
    // peers' leaf, or one carrying a quarter of their ports of the rail or
    // more, it stays (hosts of another vendor name the rail their own way;
    // a rail split over two leaves). Only such ports have their peers
    // walked: on an honest fabric a port costs a name comparison and a
    // look at its own host's ports.
    {
        std::map<std::pair<int, int>, std::vector<std::size_t>> on_rail_switch;  // (rail, switch) -> compute hosts
        for (std::size_t hi = 0; hi < t.hosts.size(); ++hi)
            if (t.hosts[hi].compute && !t.hosts[hi].rails_unknown)
                for (const HostPort &p : t.hosts[hi].ports)
                    if (p.rail >= 0)
                        on_rail_switch[{p.rail, p.sw}].push_back(hi);
        // compute hosts' ports by switch: rails, others, and rail ports
        // named as their rail is (a leaf of some rail)
        std::map<int, int> rail_ports_on, other_ports_on;
        std::map<std::pair<int, int>, std::map<int, int>> class_rail_on;  // (class, rail) -> its named ports by switch
        std::map<int, int> server_ports_on;  // other hosts' (storage and login servers)
        // A rail's name in each class: the most its hosts give it (the
        // fabric's, named in its numbered style, may be another class's:
        // Selene's storage servers name theirs HCA-2 where the GPU nodes'
        // rail of that number is mlx5_1); a tie goes to the fabric's name
        std::map<std::pair<int, int>, std::string> class_key;
        {
            std::map<std::pair<int, int>, std::map<std::string, int>> name_counts;
            for (std::size_t hi = 0; hi < t.hosts.size(); ++hi)
                if (t.hosts[hi].compute && !t.hosts[hi].rails_unknown)
                    for (const HostPort &p : t.hosts[hi].ports)
                        if (p.rail >= 0)
                            ++name_counts[{host_class[hi], p.rail}][adapter_name_key(p.hca)];
            for (const auto &kv : name_counts) {
                const std::string &fabric_key = rail_key[static_cast<std::size_t>(kv.first.second)];
                auto fk = kv.second.find(fabric_key);
                std::string best = fk == kv.second.end() ? std::string() : fabric_key;
                int n = fk == kv.second.end() ? 0 : fk->second;
                for (const auto &c : kv.second)
                    if (c.second > n) {
                        best = c.first;
                        n = c.second;
                    }
                class_key[kv.first] = best;
            }
        }
        auto named_in_class = [&](std::size_t hi, const HostPort &p) {
            auto k = class_key.find({host_class[hi], p.rail});
            return k != class_key.end() && adapter_name_key(p.hca) == k->second;
        };
        // a host named apart: most of its rail ports named otherwise than
        // its class's (a rail group named netdev-style among mlx5 ones)
        std::vector<char> apart(t.hosts.size(), 0);
        for (std::size_t hi = 0; hi < t.hosts.size(); ++hi) {
            std::size_t rails = 0, named = 0;
            for (const HostPort &p : t.hosts[hi].ports)
                if (p.rail >= 0) {
                    ++rails;
                    named += named_in_class(hi, p);
                }
            apart[hi] = 2 * named < rails;
        }
        // A host of two rails or more all on one switch, in a class whose
        // hosts mostly spread their rails over switches, is taken for a
        // server here (helper 68: a storage server of four cards named
        // mlx5_0..3, on the storage leaf, was a compute host of the GPU
        // nodes' class; its ports made that leaf one of rails, and a GPU
        // node's renumbered storage card there stayed rail 3, in
        // NCCL_IB_HCA, its dead card unreported)
        std::vector<std::set<int>> rail_sws(t.hosts.size());  // each host's rail ports' switches
        for (std::size_t hi = 0; hi < t.hosts.size(); ++hi)
            for (const HostPort &p : t.hosts[hi].ports)
                if (p.rail >= 0)
                    rail_sws[hi].insert(p.sw);
        std::vector<char> one_switch(t.hosts.size(), 0);
        {
            std::map<int, std::pair<int, int>> spread;  // class -> (hosts over switches, hosts on one)
            for (std::size_t hi = 0; hi < t.hosts.size(); ++hi) {
                const Host &h = t.hosts[hi];
                if (!h.compute || h.rails_unknown ||
                    std::count_if(h.ports.begin(), h.ports.end(), [](const HostPort &p) { return p.rail >= 0; }) < 2)
                    continue;
                one_switch[hi] = rail_sws[hi].size() == 1;
                ++(one_switch[hi] ? spread[host_class[hi]].second : spread[host_class[hi]].first);
            }
            for (std::size_t hi = 0; hi < t.hosts.size(); ++hi)
                if (one_switch[hi]) {
                    const auto &n = spread[host_class[hi]];
                    one_switch[hi] = n.first > n.second;
                }
        }
        for (std::size_t hi = 0; hi < t.hosts.size(); ++hi) {
            const Host &h = t.hosts[hi];
            if (!h.compute || one_switch[hi])
                for (const HostPort &p : h.ports)
                    ++server_ports_on[p.sw];
            if (h.compute && !h.rails_unknown && !one_switch[hi])
                for (const HostPort &p : h.ports) {
                    ++(p.rail >= 0 ? rail_ports_on : other_ports_on)[p.sw];
                    if (p.rail >= 0 && named_in_class(hi, p))
                        ++class_rail_on[{host_class[hi], p.rail}][p.sw];
                }
        }
        // a class's ports named as their rails on a switch (a leaf of rails)
        auto named_class_ports = [&](int c, int sw) {
            int n = 0;
            for (auto it = class_rail_on.lower_bound({c, 0}); it != class_rail_on.end() && it->first.first == c; ++it)
                if (auto on = it->second.find(sw); on != it->second.end())
                    n += on->second;
            return n;
        };
        struct Move {
            std::size_t host, from, to;  // to == from: no rail
        };
        std::vector<Move> moves;
        for (std::size_t hi = 0; hi < t.hosts.size(); ++hi) {
            const Host &h = t.hosts[hi];
            if (!h.compute || h.rails_unknown)
                continue;
            for (std::size_t pi = 0; pi < h.ports.size(); ++pi) {
                const HostPort &p = h.ports[pi];
                if (p.rail < 0 ||
                    std::count_if(h.ports.begin(), h.ports.end(), [&](const HostPort &q) { return q.rail == p.rail; }) != 1)
                    continue;
                const bool named = named_in_class(hi, p);
                std::vector<std::size_t> others;  // other ports of its adapter on no rail
                for (std::size_t qi = 0; qi < h.ports.size(); ++qi)
                    if (qi != pi && h.ports[qi].rail < 0 && h.ports[qi].ca_guid == p.ca_guid)
                        others.push_back(qi);
                // a storage leaf: no other host's rail port on it, another's
                // other port (helper 63: node003's first card dead, the
                // kernel named its storage card mlx5_3, and it went into
                // NCCL_IB_HCA as rail 3, the host onto the storage leaf)
                int own_rail = 0, own_other = 0;
                for (const HostPort &q : h.ports)
                    if (q.sw == p.sw)
                        ++(q.rail >= 0 ? own_rail : own_other);
                // (on a host of two rails or more spread over leaves: a
                // one-port host beside one-port hosts named otherwise is
                // no storage card, as on ibtopotool's test3 fabric)
                // (a storage or login server's port there counts for a port
                // named otherwise than the rail: helper 67, a netdev-named
                // node whose first card died, its ibp200s0 numbered rail 3
                // on the storage servers' leaf, no other GPU host's card
                // there, went into NCCL_IB_HCA and the node onto that leaf)
                const bool alone = h.rails.size() >= 2 && rail_sws[hi].size() >= 2 && rail_ports_on[p.sw] == own_rail;
                const bool storage = alone && (other_ports_on[p.sw] > own_other || (!named && server_ports_on[p.sw] > 0));
                // named as the rail, on a leaf of servers where no other GPU
                // host has a rail port (helper 68: node003's last card dead,
                // the kernel named its storage card mlx5_3, on the storage
                // servers' leaf: in NCCL_IB_HCA, its dead card unreported),
                // it is no rail where its class peers have the rail elsewhere
                const bool server_leaf = alone && server_ports_on[p.sw] > 0;
                if (named && others.empty() && !storage && !server_leaf)
                    continue;
                // peers of its own class (helper 63: DGX hosts' storage
                // rails mlx5_1, mlx5_2 on the storage leaf, HGX hosts' mlx5_1
                // on the rail's leaf: an HGX host's storage mlx4_1 beside a
                // dead mlx5_1 went by the DGX peers, and into NCCL_IB_HCA)
                std::set<std::size_t> peers;
                for (const HostPort &q : h.ports)
                    if (q.rail >= 0 && q.rail != p.rail)
                        for (std::size_t g : on_rail_switch[{q.rail, q.sw}])
                            if (g != hi && host_class[g] == host_class[hi])
                                peers.insert(g);
                // (named as the class names the rail, numbered by its place,
                // or named as this port is by a host named apart: two hosts'
                // storage cards on one storage leaf, each beside a dead rail
                // adapter, vouched for each other, helper 67; a peer's root
                // renaming its own rail adapter left an honest host's card
                // judged by the peer's)
                const std::string key = adapter_name_key(p.hca);
                std::map<int, int> where;  // the peers' ports of this rail, by switch
                for (std::size_t g : peers)
                    for (const HostPort &q : t.hosts[g].ports)
                        if (q.rail == p.rail && (named_in_class(g, q) || placed.count(q.ca_guid) ||
                                                 (apart[g] && adapter_name_key(q.hca) == key)))
                            where[q.sw]++;
                // None of them has the rail under its name (a rail group of
                // one host of its class, or its one class peer's rail cable
                // out too: helper 66): named otherwise than the rail, on a
                // switch where no host of its class has that rail while
                // others of the class have it elsewhere, on a host whose
                // other rails are mostly named as their rails are, it is no
                // rail
                if (where.empty() && !storage) {
                    if (named || placed.count(p.ca_guid))  // (a place is no name: ibp12s0f0 is rail 0 only by its order)
                        continue;
                    const auto &cls = class_rail_on[{host_class[hi], p.rail}];
                    int named_own = 0, other_rails = 0;
                    for (const HostPort &q : h.ports)
                        if (q.rail >= 0 && q.rail != p.rail) {
                            ++other_rails;
                            named_own += named_in_class(hi, q);
                        }
                    auto here = cls.find(p.sw);
                    const int elsewhere = std::accumulate(cls.begin(), cls.end(), 0, [](int n, const auto &kv) { return n + kv.second; }) -
                                          (here == cls.end() ? 0 : here->second);
                    if (elsewhere > 0 && here == cls.end() && 2 * named_own > other_rails)
                        moves.push_back({hi, pi, pi});
                    continue;
                }
                int main_sw = -1, main_n = 0;
                for (const auto &w : where)
                    if (w.second > main_n) {
                        main_sw = w.first;
                        main_n = w.second;
                    }
                auto it = where.find(p.sw);
                if (!storage && (main_sw < 0 || 4 * (it == where.end() ? 0 : it->second) >= main_n))
                    continue;
                std::size_t other = h.ports.size();  // another port of its adapter on the peers' main switch
                for (std::size_t qi : others)
                    if (h.ports[qi].sw == main_sw)
                        other = qi;
                if (other < h.ports.size())
                    moves.push_back({hi, pi, other});
                else if (storage || server_leaf ||
                         (!named && named_class_ports(host_class[hi], p.sw) < std::max(2, main_n / 4)))
                    moves.push_back({hi, pi, pi});
            }
        }
        for (const Move &mv : moves) {
            std::vector<HostPort> &ps = t.hosts[mv.host].ports;
            if (mv.to != mv.from)
                ps[mv.to].rail = ps[mv.from].rail;
            ps[mv.from].rail = -1;
        }
    }

    // Tiers: hop distance from the nearest leaf. A leaf is a switch with
    // compute hosts; a switch with other hosts only (a UFM server, the
    // management and login nodes) is a leaf unless it is cabled to a compute
    // leaf: then it is a spine that carries them, as a real 3-tier fabric's
    // does, and making it a leaf would put the cores a hop too low and join
    // every pod through them. A switch cabled to one other switch only is a
    // leaf with no host (yet): an empty management leaf must not rank above
    // the spines; unless that switch is a compute leaf (a spine of a fabric
    // with one leaf cabled so far).
    //
    // A compute leaf has at least a quarter of the compute host ports the
    // median switch with any has, and a quarter of its cables to other
    // switches. A switch with fewer (a core or a spine that
    // a storage or UFM server with the usual adapters is cabled to, or one
    // port a node's own description claims for a compute host) is weak: it is
    // a leaf only if no shortest path between compute leaves runs through it,
    // and otherwise a spine or core that carries hosts (a partly filled leaf
    // stays a leaf: no such path crosses it).
    const std::size_t nsw = t.switches.size();
    std::vector<int> chp(nsw, 0);  // compute host ports
    for (const Host &h : t.hosts)
        if (h.compute)
            for (const HostPort &p : h.ports)
                chp[static_cast<std::size_t>(p.sw)]++;
    std::vector<char> compute_leaf(nsw, 0);
    {
        std::vector<int> c;
        for (int n : chp)
            if (n > 0)
                c.push_back(n);
        int med = 0;
        if (!c.empty()) {
            std::nth_element(c.begin(), c.begin() + static_cast<std::ptrdiff_t>(c.size() / 2), c.end());
            med = c[c.size() / 2];
        }
        for (std::size_t i = 0; i < nsw; ++i) {
            if (chp[i] == 0)
                continue;
            int links = 0;  // cables to other switches
            auto oe = boost::out_edges(static_cast<SwitchId>(i), t.graph);
            for (auto it = oe.first; it != oe.second; ++it)
                links += t.graph[*it].multiplicity;
            compute_leaf[i] = 4 * chp[i] >= med && 4 * chp[i] >= links;
        }
    }
    std::vector<char> is_leaf(nsw, 0);
    // a switch with hosts but not compute leaf: a leaf unless cabled to a compute leaf
    auto host_leaf = [&](std::size_t i) {
        const auto v = static_cast<SwitchId>(i);
        if (boost::out_degree(v, t.graph) == 0)
            return true;
        if (boost::out_degree(v, t.graph) == 1) {
            // an empty switch whose one peer is a compute leaf is a spine whose
            // other leaves are not cabled (yet): leaves are not cabled to leaves
            return t.switches[i].host_ports > 0 || !compute_leaf[*boost::adjacent_vertices(v, t.graph).first];
        }
        if (t.switches[i].host_ports == 0)
            return false;
        auto adj = boost::adjacent_vertices(v, t.graph);
        for (auto it = adj.first; it != adj.second; ++it)
            if (compute_leaf[*it])
                return false;
        return true;
    };
    // a weak switch, or one with other hosts only, is decided below (a
    // core that a UFM server is cabled to is no leaf)
    std::vector<char> undecided(nsw, 0);
    for (std::size_t i = 0; i < nsw; ++i) {
        undecided[i] = !compute_leaf[i] && t.switches[i].host_ports > 0;
        is_leaf[i] = compute_leaf[i] || (!undecided[i] && host_leaf(i));
    }
    // The switches between compute leaves (on a shortest path from one to
    // another, through switches that are no leaf) are as high as their hop
    // distance from the compute leaves says: a management leaf cabled to the
    // cores must not bring them a tier down, level with the spines, and make
    // the fabric two-tier, one pod. A switch off those paths (a management
    // spine between the cores and the management leaves) takes its tier from
    // the leaves nearest it. Paths are sought from up to 16 compute leaves
    // spread over the fabric (every core of a Clos lies on them from any leaf).
    std::vector<int> cdist(nsw, -1);  // hops from the nearest compute leaf
    auto count_cdist = [&]() {
        std::fill(cdist.begin(), cdist.end(), -1);
        std::deque<std::size_t> bq;
        for (std::size_t i = 0; i < nsw; ++i)
            if (compute_leaf[i]) {
                cdist[i] = 0;
                bq.push_back(i);
            }
        while (!bq.empty()) {
            std::size_t v = bq.front();
            bq.pop_front();
            if (cdist[v] > 0 && is_leaf[v])
                continue;  // leaves end paths
            auto adj = boost::adjacent_vertices(static_cast<SwitchId>(v), t.graph);
            for (auto it = adj.first; it != adj.second; ++it)
                if (cdist[*it] < 0 && !compute_leaf[*it]) {
                    cdist[*it] = cdist[v] + 1;
                    bq.push_back(*it);
                }
        }
    };
    count_cdist();
    std::vector<char> between(nsw, 0);
    // A switch's depth between compute leaves: from each sampled leaf, its
    // hops from the nearer end of the longest shortest path to another that
    // it lies on; its depth is what most of the sampled leaves see (the lower
    // median). A core is two hops deep between the leaves of two pods even
    // when a rack of leaves is cabled straight to it, and the spines stay one
    // deep though the path between two such racks runs down through them.
    std::vector<std::vector<int>> seen(nsw);
    std::vector<int> depth(nsw, 0);
    {
        std::deque<std::size_t> bq;
        std::vector<std::size_t> sources;
        for (std::size_t i = 0; i < nsw; ++i)
            if (compute_leaf[i])
                sources.push_back(i);
        const std::size_t nsrc = std::min<std::size_t>(sources.size(), 16);
        std::vector<int> d(nsw), down(nsw);
        std::vector<std::size_t> order;
        for (std::size_t k = 0; k < nsrc && sources.size() > 1; ++k) {
            const std::size_t a = sources[k * sources.size() / nsrc];
            std::fill(d.begin(), d.end(), -1);
            std::fill(down.begin(), down.end(), -1);
            order.clear();
            d[a] = 0;
            bq.push_back(a);
            while (!bq.empty()) {
                std::size_t v = bq.front();
                bq.pop_front();
                order.push_back(v);
                if (v != a && is_leaf[v])
                    continue;
                auto adj = boost::adjacent_vertices(static_cast<SwitchId>(v), t.graph);
                for (auto it = adj.first; it != adj.second; ++it)
                    if (d[*it] < 0) {
                        d[*it] = d[v] + 1;
                        bq.push_back(*it);
                    }
            }
            // from the farthest back: a switch is between compute leaves when
            // a step away from a leads it to one; down[] is the farthest such
            // leaf's distance from a
            for (auto o = order.rbegin(); o != order.rend(); ++o) {
                const std::size_t v = *o;
                if (v != a && is_leaf[v]) {
                    down[v] = compute_leaf[v] ? d[v] : -1;
                    continue;
                }
                auto adj = boost::adjacent_vertices(static_cast<SwitchId>(v), t.graph);
                for (auto it = adj.first; it != adj.second; ++it)
                    if (d[*it] == d[v] + 1)
                        down[v] = std::max(down[v], down[*it]);
                if (down[v] >= 0 && v != a) {
                    between[v] = 1;
                    seen[v].push_back(std::min(d[v], down[v] - d[v]));
                }
            }
        }
        for (std::size_t v = 0; v < nsw; ++v)
            if (!seen[v].empty()) {
                auto mid = seen[v].begin() + static_cast<std::ptrdiff_t>((seen[v].size() - 1) / 2);
                std::nth_element(seen[v].begin(), mid, seen[v].end());
                depth[v] = *mid;
            }
    }
    // a switch decided here that no shortest path between compute leaves
    // crosses is a leaf by the rule for other hosts' switches; the distances
    // are then counted again without crossing it
    bool weak_leaf = false;
    for (std::size_t i = 0; i < nsw; ++i)
        if (undecided[i] && !between[i] && host_leaf(i))
            is_leaf[i] = weak_leaf = true;
    if (weak_leaf)
        count_cdist();
    // tiers in rising order from the leaves (0) and the switches between
    // compute leaves (their distance); the rest one above their lowest neighbour
    std::vector<std::vector<std::size_t>> level;
    auto settle = [&](std::size_t i, int tier) {
        t.switches[i].tier = tier;
        if (level.size() <= static_cast<std::size_t>(tier))
            level.resize(static_cast<std::size_t>(tier) + 1);
        level[static_cast<std::size_t>(tier)].push_back(i);
    };
    for (std::size_t i = 0; i < nsw; ++i) {
        if (is_leaf[i])
            settle(i, 0);
        else if (between[i] && cdist[i] > 0)
            settle(i, std::max(cdist[i], depth[i]));
    }
    for (std::size_t k = 0; k < level.size(); ++k)
        for (std::size_t j = 0; j < level[k].size(); ++j) {
            const std::size_t v = level[k][j];
            auto adj = boost::adjacent_vertices(static_cast<SwitchId>(v), t.graph);
            for (auto it = adj.first; it != adj.second; ++it)
                if (t.switches[*it].tier < 0)
                    settle(*it, static_cast<int>(k) + 1);
        }
    for (const Switch &s : t.switches)
        t.max_tier = std::max(t.max_tier, s.tier);
    for (std::size_t i = 0; i < t.switches.size(); ++i) {
        Switch &s = t.switches[i];
        auto oe = boost::out_edges(static_cast<SwitchId>(i), t.graph);
        for (auto it = oe.first; it != oe.second; ++it) {
            const Switch &o = t.switches[boost::target(*it, t.graph)];
            if (o.tier > s.tier)
                s.uplinks += t.graph[*it].multiplicity;
        }
    }

    // Leaf rails: the rail most of a leaf's compute host ports carry.
    std::vector<std::map<int, int>> leaf_rails(t.switches.size());
    // Rail-optimised: most hosts of the class of the most rails have them
    // on several leaves (a CPU partition's one-rail hosts, or dual-port
    // storage servers on one leaf, tell nothing of the GPU hosts' cabling).
    std::size_t widest = 0;
    for (std::size_t c = 1; c < nclasses; ++c)
        if (std::make_pair(class_rails[c].size(), nclass[c]) > std::make_pair(class_rails[widest].size(), nclass[widest]))
            widest = c;
    std::size_t multi_leaf_hosts = 0, multi_rail_hosts = 0;
    for (std::size_t hi = 0; hi < t.hosts.size(); ++hi) {
        const Host &h = t.hosts[hi];
        std::set<int> leaves;
        for (const HostPort &p : h.ports) {
            leaves.insert(p.sw);
            // (a place is no rail on a host of another count than its class's)
            if (p.rail >= 0 && !h.rails_unknown &&
                !(placed.count(p.ca_guid) && static_cast<int>(h.ports.size()) != host_usual[hi]))
                leaf_rails[static_cast<std::size_t>(p.sw)][p.rail]++;
        }
        if (h.compute && h.rails.size() > 1 && !no_vote.count(h.name) && !h.rails_unknown &&
            host_class[hi] == static_cast<int>(widest)) {
            ++multi_rail_hosts;
            if (leaves.size() > 1)
                ++multi_leaf_hosts;
        }
    }
    t.rail_optimised = t.rails.size() > 1 && multi_rail_hosts > 0 && 2 * multi_leaf_hosts > multi_rail_hosts;
    if (t.rails.size() > 1 && !t.rail_optimised)
        t.not_rail_optimised = std::to_string(multi_rail_hosts - multi_leaf_hosts) + " of " +
                               std::to_string(multi_rail_hosts) + " compute hosts have all their " +
                               std::to_string(t.rails.size()) + " rail adapters on one leaf switch";
    if (t.rail_optimised)
        for (std::size_t i = 0; i < t.switches.size(); ++i)
            if (int best = majority(leaf_rails[i], -1); best >= 0)
                t.switches[i].rail = best;

    // A place among a host's adapters is no identity: on a host with fewer
    // ports than usual (a NIC whose cable is out shows no LLDP neighbour) the
    // places after the gap shift by one, and on a host with more (a storage
    // port the others' evidence put out, enp170s0f0np0 sorting before
    // ens1np0) every place may. There a placed port's rail is the rail of
    // the leaf it lands on; on a host with more, a placed port on a leaf of
    // no rail is none.
    // So is it on a host some of whose names are contested whose places
    // are shifted (helper 64: a copy of node003's last netdev name and one
    // made-up name sorting before its first took place 0 and shifted each
    // of its own by a rail, which moved it to the copier's group, exit 0).
    auto shifted = [&](const Host &h) {  // a placed rail port on another rail's leaf
        return std::any_of(h.ports.begin(), h.ports.end(), [&](const HostPort &p) {
            const int sr = t.switches[static_cast<std::size_t>(p.sw)].rail;
            return placed.count(p.ca_guid) && p.rail >= 0 && sr >= 0 && sr != p.rail;
        });
    };
    if (t.rail_optimised)
        for (std::size_t hi = 0; hi < t.hosts.size(); ++hi)
            if (Host &h = t.hosts[hi]; h.compute && !h.rails_unknown &&
                                       (static_cast<int>(h.ports.size()) != host_usual[hi] ||
                                        (t.claimed_hosts.count(h.name) && shifted(h)))) {
                const bool more = static_cast<int>(h.ports.size()) > host_usual[hi] || t.claimed_hosts.count(h.name);
                for (HostPort &p : h.ports)
                    if (placed.count(p.ca_guid) && t.switches[static_cast<std::size_t>(p.sw)].rail >= 0)
                        p.rail = t.switches[static_cast<std::size_t>(p.sw)].rail;
                    else if (placed.count(p.ca_guid) && more)
                        p.rail = -1;
                // two of its ports on one rail now: the one named as the
                // rail is (helper 65: one made-up ibp1s0f0 on another
                // group's rail-0 leaf was listed beside node003's own
                // ibp12s0f0, another node's GUID in its host line)
                for (HostPort &p : h.ports) {
                    if (p.rail < 0)
                        continue;
                    const std::string &key = rail_key[static_cast<std::size_t>(p.rail)];
                    if (adapter_name_key(p.hca) != key &&
                        std::any_of(h.ports.begin(), h.ports.end(), [&](const HostPort &q) {
                            return q.rail == p.rail && q.ca_guid != p.ca_guid && adapter_name_key(q.hca) == key;
                        }))
                        p.rail = -1;
                }
            }

    // Rail groups: leaves joined by the hosts they share (ports on the wrong
    // rail's leaf do not join: a swapped cable must not merge two groups).
    // A host's ports on a spine or core that carries hosts do not join either
    // when it has ports on leaves (a storage server's extra cable, or a port
    // its description claims, must not join a core to a rail group).
    auto on_leaf = [&](const Host &h) {
        for (const HostPort &p : h.ports)
            if (t.switches[static_cast<std::size_t>(p.sw)].tier == 0)
                return true;
        return false;
    };
    // Two leaves join when the hosts they share are more than half of the
    // hosts of each: a host's cable moved to another group's leaf (or a
    // name two nodes' descriptions give their adapters) shares one host
    // and joins nothing, nor does a leaf every rack shares (a storage rail).
    // Counted between each host's leaves next in port order and from its
    // first leaf to the others (from the first alone, a storage leaf every
    // host's first port is on would count no pair of the others; next in
    // order alone, one moved port of a one-host rack would cut its leaves
    // in two), so the cost is the ports, not their pairs. Then a leaf still
    // alone joins the group that holds more than half of its hosts, when
    // that group's fullest leaf has as many (a leaf some of whose host
    // cables are out).
    auto group_ports = [&](const Host &h) {
        std::vector<int> sw;
        const bool leafed = on_leaf(h);
        for (const HostPort &p : h.ports) {
            const Switch &s = t.switches[static_cast<std::size_t>(p.sw)];
            if (t.rail_optimised && s.rail >= 0 && p.rail >= 0 && s.rail != p.rail)
                continue;
            if (leafed && s.tier != 0)
                continue;
            if (std::find(sw.begin(), sw.end(), p.sw) == sw.end())
                sw.push_back(p.sw);
        }
        return sw;
    };
    std::vector<int> hosts_on(t.switches.size(), 0);
    std::vector<std::vector<int>> leaf_hosts(t.switches.size());  // hosts with a port on it
    std::vector<std::vector<int>> host_sw(t.hosts.size());
    std::map<std::pair<int, int>, int> shared_hosts;
    for (std::size_t hi = 0; hi < t.hosts.size(); ++hi) {
        const std::vector<int> sw = group_ports(t.hosts[hi]);
        for (std::size_t k = 0; k < sw.size(); ++k) {
            hosts_on[static_cast<std::size_t>(sw[k])]++;
            leaf_hosts[static_cast<std::size_t>(sw[k])].push_back(static_cast<int>(hi));
            if (k > 0)
                shared_hosts[{std::min(sw[k - 1], sw[k]), std::max(sw[k - 1], sw[k])}]++;
            if (k > 1)
                shared_hosts[{std::min(sw[0], sw[k]), std::max(sw[0], sw[k])}]++;
        }
        host_sw[hi] = sw;
    }
    UnionFind uf(t.switches.size());
    for (const auto &kv : shared_hosts)
        if (2 * kv.second > std::max(hosts_on[static_cast<std::size_t>(kv.first.first)],
                                     hosts_on[static_cast<std::size_t>(kv.first.second)]))
            uf.unite(kv.first.first, kv.first.second);
    {
        std::vector<int> members(t.switches.size(), 0), hosts_in(t.switches.size(), 0);
        for (std::size_t i = 0; i < t.switches.size(); ++i)
            if (hosts_on[i] > 0) {
                const std::size_t r = static_cast<std::size_t>(uf.find(static_cast<int>(i)));
                members[r]++;
                hosts_in[r] = std::max(hosts_in[r], hosts_on[i]);  // its fullest leaf's hosts
            }
        std::vector<std::pair<int, int>> joins;  // decided on the groups as they stand
        for (std::size_t i = 0; i < t.switches.size(); ++i) {
            if (hosts_on[i] == 0 || members[static_cast<std::size_t>(uf.find(static_cast<int>(i)))] != 1)
                continue;
            std::map<int, int> in;  // group -> this leaf's hosts with a port there
            for (int hi : leaf_hosts[i]) {
                std::set<int> counted;
                for (int sw : host_sw[static_cast<std::size_t>(hi)])
                    if (sw != static_cast<int>(i) && counted.insert(uf.find(sw)).second)
                        in[uf.find(sw)]++;
            }
            int best = 0;
            const int into = unique_most(in, best);
            if (into >= 0 && 2 * best > hosts_on[i] && hosts_in[static_cast<std::size_t>(into)] >= hosts_on[i])
                joins.push_back({static_cast<int>(i), into});
        }
        for (const auto &j : joins)
            uf.unite(j.first, j.second);
    }
    // A spine that carries service hosts (tiers, above) is their leaf here:
    // a group of its own, so they keep an island and a line in topology.conf
    std::map<int, std::vector<int>> group_leaves;  // root -> leaves
    for (std::size_t i = 0; i < t.switches.size(); ++i)
        if (t.switches[i].tier == 0 || t.switches[i].host_ports > 0)
            group_leaves[uf.find(static_cast<int>(i))].push_back(static_cast<int>(i));
    auto leaf_name_less = [&](int a, int b) {
        return t.switches[static_cast<std::size_t>(a)].name < t.switches[static_cast<std::size_t>(b)].name;
    };
    std::vector<std::vector<int>> groups;
    for (auto &kv : group_leaves) {
        std::sort(kv.second.begin(), kv.second.end(), leaf_name_less);
        groups.push_back(kv.second);
    }
    std::sort(groups.begin(), groups.end(),
              [&](const std::vector<int> &a, const std::vector<int> &b) { return leaf_name_less(a[0], b[0]); });
    for (std::size_t g = 0; g < groups.size(); ++g)
        for (int l : groups[g])
            t.switches[static_cast<std::size_t>(l)].group = static_cast<int>(g);

    // A host's home group: the group most of its correctly wired ports are
    // on (the first such port's on a tie): one moved cable does not move it.
    std::vector<int> host_group(t.hosts.size(), -1);
    std::vector<bool> group_compute(groups.size(), false);
    auto grp_name = [&](int g) {
        return g >= 0 ? "grp-" + t.switches[static_cast<std::size_t>(groups[static_cast<std::size_t>(g)][0])].name
                      : std::string("no group");
    };
    for (std::size_t hi = 0; hi < t.hosts.size(); ++hi) {
        const Host &h = t.hosts[hi];
        std::vector<std::pair<int, int>> count;  // (group, ports), in port order
        // A leaf per rail: its leaves (one cable each). Not rail-optimised
        // (all of a host's ports on its rack's leaf): its rail ports, so one
        // moved cable (helper 63: node003's mlx5_0 on the next rack's leaf)
        // or one made-up name on another leaf does not tie with three
        // cables and take it to the other rack (a place-named port that is
        // no rail counts for nothing there, as a made-up one).
        const bool by_ports = !t.rail_optimised && h.compute && !h.rails_unknown &&
                              std::any_of(h.ports.begin(), h.ports.end(), [](const HostPort &p) { return p.rail >= 0; });
        // a host none of whose rail ports is counted (each on another
        // rail's leaf: helper 63, a renumbered node, its first card dead)
        // goes by them, not by its storage card's leaf alone
        std::vector<int> sws = host_sw[hi];
        const bool rail_counted = std::any_of(h.ports.begin(), h.ports.end(), [&](const HostPort &p) {
            return p.rail >= 0 && std::find(sws.begin(), sws.end(), p.sw) != sws.end();
        });
        if (!rail_counted && h.compute && !h.rails_unknown &&
            std::any_of(h.ports.begin(), h.ports.end(), [](const HostPort &p) { return p.rail >= 0; })) {
            sws.clear();
            for (const HostPort &p : h.ports)
                if (p.rail >= 0 && t.switches[static_cast<std::size_t>(p.sw)].tier == 0 &&
                    std::find(sws.begin(), sws.end(), p.sw) == sws.end())
                    sws.push_back(p.sw);
        }
        for (int sw : sws) {
            const int g = t.switches[static_cast<std::size_t>(sw)].group;
            const int n = by_ports ? static_cast<int>(std::count_if(h.ports.begin(), h.ports.end(), [&](const HostPort &p) {
                return p.sw == sw && p.rail >= 0;
            }))
                                   : 1;
            if (n == 0)
                continue;
            auto it = std::find_if(count.begin(), count.end(), [&](const auto &c) { return c.first == g; });
            if (it == count.end())
                count.push_back({g, n});
            else
                it->second += n;
        }
        // a tie goes to the group with more of its ports named as the
        // fabric's rails are (helper 64: four names one root made up for node003,
        // sorting before its own, on another group's four leaves, tied
        // with its own four and won by port order; a made-up name is no
        // rail's unless it copies one, and a copy is contested)
        auto named_on = [&](int g) {
            int n = 0;
            for (const HostPort &p : h.ports)
                n += t.switches[static_cast<std::size_t>(p.sw)].group == g && rail_name_keys.count(adapter_name_key(p.hca));
            return n;
        };
        int most = 0, most_named = -1;
        for (const auto &c : count)
            if (const int named = c.second >= most ? named_on(c.first) : -1;
                c.second > most || (c.second == most && named > most_named)) {
                most = c.second;
                most_named = named;
                host_group[hi] = c.first;
            }
        // A host some of whose names are contested, its ports on two rail
        // groups or more: a group with more of its leaves than its class has
        // rails, or a second group with as many as the host's own
        // uncontested names could reach, tells no more which ports are its
        // own than the other (helper 62: one copied ibp12s0f0 beside seven
        // made-up ibp2NNs0f0 names from two roots, on another group's
        // leaves, moved node003 there with exit 0; such names carry no
        // number to judge them by). Lost (contested-host): the Slurm files
        // stay the site's until a map says who is who.
        if (h.compute && count.size() > 1 && t.claimed_hosts.count(h.name) && !h.rails.empty()) {
            int second = 0;
            for (const auto &c : count)
                if (c.first != host_group[hi])
                    second = std::max(second, c.second);
            auto first = contested_adapters.lower_bound({h.name, std::string()});
            int contested = 0;
            for (auto ca = first; ca != contested_adapters.end() && ca->first.first == h.name; ++ca)
                ++contested;
            const int rails = static_cast<int>(h.rails.size());
            if (most > rails || second >= std::max(1, rails - contested)) {
                std::string where;
                for (const auto &c : count)
                    where += (where.empty() ? "" : ", ") + grp_name(c.first) + ": " + std::to_string(c.second) +
                             (c.second == 1 ? " leaf" : " leaves");
                const bool named = first != contested_adapters.end() && first->first.first == h.name;
                t.contested_lost.emplace(h.name, (named ? first->second : std::string("its names are claimed twice")) +
                                                     "; its ports are on " + std::to_string(count.size()) +
                                                     " rail groups (" + where + ") and which are its own is not known");
            }
        }
        if (host_group[hi] < 0 && !h.ports.empty())
            host_group[hi] = t.switches[static_cast<std::size_t>(h.ports[0].sw)].group;
        if (h.compute && host_group[hi] >= 0)
            group_compute[static_cast<std::size_t>(host_group[hi])] = true;
    }

    // Pods: groups joined through the tier-1 switches above them. Compute and
    // service groups are joined separately (a management leaf cabled to every
    // spine must not make the whole fabric one pod).
    UnionFind pf(groups.size());
    std::vector<char> has_spine(groups.size(), 0);
    if (t.max_tier >= 1) {
        // each group's spines (a spine once per class of group: compute,
        // service) and its cables to each
        std::map<std::pair<SwitchId, bool>, int> spine_node;
        std::vector<SwitchId> spine_of;  // node -> spine
        std::vector<std::map<int, int>> cables(groups.size());  // group -> node -> cables
        for (std::size_t g = 0; g < groups.size(); ++g)
            for (int l : groups[g]) {
                // nor does a spine or core that carries hosts join its group to pods
                if (t.switches[static_cast<std::size_t>(l)].tier != 0)
                    continue;
                auto oe = boost::out_edges(static_cast<SwitchId>(l), t.graph);
                for (auto it = oe.first; it != oe.second; ++it) {
                    const SwitchId sp = boost::target(*it, t.graph);
                    // a spine that carries hosts of its own joins no pods:
                    // a service switch cabled to leaves of two pods must not
                    // make them one (the pod's other spines join it)
                    if (t.switches[sp].tier != 1 || t.switches[sp].host_ports > 0)
                        continue;
                    auto r = spine_node.emplace(std::make_pair(sp, bool(group_compute[g])),
                                                static_cast<int>(spine_of.size()));
                    if (r.second)
                        spine_of.push_back(sp);
                    cables[g][r.first->second] += t.graph[*it].multiplicity;
                }
            }
        std::vector<std::vector<int>> S(groups.size()), w(groups.size());
        for (std::size_t g = 0; g < groups.size(); ++g)
            for (const auto &kv : cables[g]) {
                S[g].push_back(kv.first);
                w[g].push_back(kv.second);
            }
        for (std::size_t g = 0; g < groups.size(); ++g)
            has_spine[g] = !S[g].empty();
        const SpinePods sp = pods_by_spines(S, w, spine_of.size());
        for (std::size_t g = 0; g < groups.size(); ++g)
            pf.unite(sp.pod[g], static_cast<int>(g));
        for (const auto &e : sp.stray) {
            const SwitchId spine = spine_of[static_cast<std::size_t>(e.second)];
            for (int l : groups[static_cast<std::size_t>(e.first)])
                if (t.switches[static_cast<std::size_t>(l)].tier == 0 &&
                    boost::edge(static_cast<SwitchId>(l), spine, t.graph).second)
                    t.stray_uplinks.push_back({l, static_cast<int>(spine)});
        }
    }
    if (t.max_tier < 2) {
        // two tiers: the groups that share spines are pods as above (two
        // leaf-spine clusters a stray cable joins stay two); a group with no
        // spine joins the pod of its subnet's first group with one, else of
        // its first group (a subnet: the switches a cable path joins; merged
        // captures of separate subnets must not become one island that a job
        // could span and not run on)
        std::vector<int> comp(boost::num_vertices(t.graph), -1);
        if (!comp.empty())
            boost::connected_components(
                t.graph, boost::make_iterator_property_map(comp.begin(), boost::get(boost::vertex_index, t.graph)));
        std::map<int, int> anchor;  // component -> its first group with a spine, else its first
        for (std::size_t g = 0; g < groups.size(); ++g) {
            auto r = anchor.emplace(comp[static_cast<std::size_t>(groups[g][0])], static_cast<int>(g));
            if (!r.second && has_spine[g] && !has_spine[static_cast<std::size_t>(r.first->second)])
                r.first->second = static_cast<int>(g);
        }
        for (std::size_t g = 0; g < groups.size(); ++g)
            if (!has_spine[g])
                pf.unite(anchor[comp[static_cast<std::size_t>(groups[g][0])]], static_cast<int>(g));
    }
    std::map<int, std::vector<int>> pod_groups;
    for (std::size_t g = 0; g < groups.size(); ++g)
        pod_groups[pf.find(static_cast<int>(g))].push_back(static_cast<int>(g));

    // Islands, bottom up. Hosts whose ports sit on one leaf form that leaf's
    // island; hosts spread over the leaves of a rail group form the group's.
    std::map<std::pair<int, int>, std::vector<int>> leaf_key_hosts;  // (leaf or -1, group) -> hosts
    for (std::size_t hi = 0; hi < t.hosts.size(); ++hi) {
        const Host &h = t.hosts[hi];
        if (h.ports.empty() || host_group[hi] < 0)
            continue;
        std::set<int> leaves;
        for (const HostPort &p : h.ports)
            leaves.insert(p.sw);
        int leaf = leaves.size() == 1 ? *leaves.begin() : -1;
        // not rail-optimised: the leaf with more than half of its rail
        // ports (its rack's; helper 63: one moved cable made it a group
        // island of its own beside its rack's leaf)
        if (leaf < 0 && !t.rail_optimised && h.compute && !h.rails_unknown) {
            std::map<int, int> on;
            int rails = 0;
            for (const HostPort &p : h.ports)
                if (p.rail >= 0) {
                    on[p.sw]++;
                    ++rails;
                }
            for (const auto &o : on)
                if (2 * o.second > rails && t.switches[static_cast<std::size_t>(o.first)].group == host_group[hi])
                    leaf = o.first;
        }
        // a compute host short of the usual adapters, left on one leaf of a
        // rail group (a cable out, an HCA dead): still its group's, one hop
        // from its peers on that rail, not a leaf island of its own (which
        // topology/block leaves out as a service leaf: helper 50)
        if (leaf >= 0 && h.compute && static_cast<int>(h.ports.size()) < usual &&
            groups[static_cast<std::size_t>(host_group[hi])].size() > 1)
            leaf = -1;
        leaf_key_hosts[{leaf, host_group[hi]}].push_back(static_cast<int>(hi));
    }
    // fabric
    Island fab;
    fab.level = Level::Fabric;
    fab.name = "fabric";
    // pods, named after their first leaf
    std::vector<int> pod_of_group(groups.size(), -1);
    std::vector<Island> pods;
    for (auto &kv : pod_groups) {
        Island p;
        p.level = Level::Pod;
        for (int g : kv.second) {
            pod_of_group[static_cast<std::size_t>(g)] = static_cast<int>(pods.size());
            for (int l : groups[static_cast<std::size_t>(g)])
                p.leaves.push_back(l);
        }
        std::sort(p.leaves.begin(), p.leaves.end(), leaf_name_less);
        p.name = "pod-" + t.switches[static_cast<std::size_t>(p.leaves[0])].name;
        // a pod that is one director's line boards is named after the chassis
        const std::string &ch = t.switches[static_cast<std::size_t>(p.leaves[0])].chassis;
        bool one_chassis = !ch.empty();
        for (int l : p.leaves)
            one_chassis = one_chassis && t.switches[static_cast<std::size_t>(l)].chassis == ch;
        if (one_chassis)
            p.name = "pod-" + ch;
        pods.push_back(p);
    }
    std::vector<Island> grp_islands;
    for (std::size_t g = 0; g < groups.size(); ++g) {
        Island gi;
        gi.level = Level::Group;
        gi.leaves = groups[g];
        gi.name = "grp-" + t.switches[static_cast<std::size_t>(groups[g][0])].name;
        grp_islands.push_back(gi);
    }
    std::vector<Island> leaf_islands;
    for (auto &kv : leaf_key_hosts) {
        Island li;
        li.level = Level::Leaf;
        int g = kv.first.second;
        if (kv.first.first >= 0) {
            li.leaves = {kv.first.first};
            li.name = t.switches[static_cast<std::size_t>(kv.first.first)].name;
        } else {
            li.leaves = groups[static_cast<std::size_t>(g)];
            li.name = grp_islands[static_cast<std::size_t>(g)].name;
        }
        li.hosts = kv.second;
        li.parent = g;  // fixed up below
        leaf_islands.push_back(li);
    }
    std::sort(leaf_islands.begin(), leaf_islands.end(),
              [](const Island &a, const Island &b) { return a.name < b.name; });
    // Assemble: leaves [0, L), groups [L, L+G), pods, fabric.
    std::size_t L = leaf_islands.size(), G = grp_islands.size(), P = pods.size();
    // drop groups and pods that hold no host
    std::vector<int> group_index(G, -1), pod_index(P, -1);
    for (auto &li : leaf_islands)
        group_index[static_cast<std::size_t>(li.parent)] = 0;
    for (std::size_t g = 0; g < G; ++g)
        if (group_index[g] == 0)
            pod_index[static_cast<std::size_t>(pod_of_group[g])] = 0;
    int next = static_cast<int>(L);
    for (std::size_t g = 0; g < G; ++g)
        if (group_index[g] == 0)
            group_index[g] = next++;
    for (std::size_t p = 0; p < P; ++p)
        if (pod_index[p] == 0)
            pod_index[p] = next++;
    int fabric_index = next;
    t.islands.resize(static_cast<std::size_t>(fabric_index) + 1);
    for (std::size_t i = 0; i < L; ++i) {
        Island &li = leaf_islands[i];
        int g = li.parent;
        li.parent = group_index[static_cast<std::size_t>(g)];
        std::sort(li.hosts.begin(), li.hosts.end());
        for (int h : li.hosts) {
            Host &host = t.hosts[static_cast<std::size_t>(h)];
            host.leaf_island = static_cast<int>(i);
            host.group = li.parent;
            host.pod = pod_index[static_cast<std::size_t>(pod_of_group[static_cast<std::size_t>(g)])];
            t.islands[static_cast<std::size_t>(li.parent)].hosts.push_back(h);
            t.islands[static_cast<std::size_t>(host.pod)].hosts.push_back(h);
            fab.hosts.push_back(h);
        }
        t.islands[i] = li;
    }
    for (std::size_t g = 0; g < G; ++g)
        if (group_index[g] >= 0) {
            Island &dst = t.islands[static_cast<std::size_t>(group_index[g])];
            grp_islands[g].hosts = std::move(dst.hosts);
            grp_islands[g].parent = pod_index[static_cast<std::size_t>(pod_of_group[g])];
            dst = grp_islands[g];
        }
    for (std::size_t p = 0; p < P; ++p)
        if (pod_index[p] >= 0) {
            Island &dst = t.islands[static_cast<std::size_t>(pod_index[p])];
            pods[p].hosts = std::move(dst.hosts);
            pods[p].parent = fabric_index;
            dst = pods[p];
        }
    t.islands[static_cast<std::size_t>(fabric_index)] = fab;
    add_domain_islands(t);
    for (auto &is : t.islands)
        std::sort(is.hosts.begin(), is.hosts.end());
    // Island names are Slurm switch names and node features. The hosts cabled
    // to every rail of a group share the group's name, which is one island
    // when they are all its hosts; when the group has other leaf islands too
    // (a host on one rail's leaf alone), the group becomes grp-LEAF-all. Any
    // other clash gets -2, -3, ...
    std::map<std::string, const Island *> leaf_named;
    for (const Island &is : t.islands)
        if (is.level == Level::Leaf)
            leaf_named[is.name] = &is;
    for (Island &is : t.islands) {
        auto same = leaf_named.find(is.name);
        if (is.level == Level::Group && same != leaf_named.end() && same->second->hosts != is.hosts)
            is.name += "-all";
    }
    std::set<std::string> used;
    for (Island &is : t.islands) {
        bool twin = is.level == Level::Group && leaf_named.count(is.name) && leaf_named[is.name]->hosts == is.hosts;
        if (twin)
            continue;  // the same island at two levels: one name
        std::string base = is.name;
        for (int k = 2; !used.insert(is.name).second; ++k)
            is.name = base + "-" + std::to_string(k);
    }
    return t;
}

std::vector<std::vector<int>> leaf_subnets(const Topology &t)
{
    std::vector<int> comp(boost::num_vertices(t.graph), -1);
    if (!comp.empty())
        boost::connected_components(t.graph, boost::make_iterator_property_map(comp.begin(), boost::get(boost::vertex_index, t.graph)));
    // a leaf island whose leaves lie in more than one component (a rail
    // group of rail planes that do not meet, or of leaves LLDP saw no
    // cable between) joins them: its hosts are cabled to all of them
    std::vector<int> up(comp.size());
    for (std::size_t k = 0; k < up.size(); ++k)
        up[k] = static_cast<int>(k);
    auto root = [&](int c) {
        while (up[static_cast<std::size_t>(c)] != c)
            c = up[static_cast<std::size_t>(c)] = up[static_cast<std::size_t>(up[static_cast<std::size_t>(c)])];
        return c;
    };
    auto valid = [&](int leaf) { return leaf >= 0 && static_cast<std::size_t>(leaf) < comp.size(); };
    for (int i : t.islands_at(Level::Leaf)) {
        const Island &is = t.islands[static_cast<std::size_t>(i)];
        for (int l : is.leaves)
            if (valid(l) && valid(is.leaves[0]))
                up[static_cast<std::size_t>(root(comp[static_cast<std::size_t>(l)]))] =
                    root(comp[static_cast<std::size_t>(is.leaves[0])]);
    }
    std::map<int, std::vector<int>> by;
    for (int i : t.islands_at(Level::Leaf)) {
        const Island &is = t.islands[static_cast<std::size_t>(i)];
        if (is.leaves.empty() || !valid(is.leaves[0]))
            continue;
        by[root(comp[static_cast<std::size_t>(is.leaves[0])])].push_back(i);
    }
    std::vector<std::vector<int>> out;
    for (auto &kv : by)
        out.push_back(std::move(kv.second));
    return out;
}

}  // namespace atl
