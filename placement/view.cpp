#include "placement/view.hpp"

#include <istream>
#include <ostream>
#include <set>
#include <sstream>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <tuple>

#include "topology/check.hpp"
#include "topology/fabric.hpp"

namespace atl {

FabricSummary summarise(const Topology &t, const Cluster &c)
{
    FabricSummary s;
    s.source = t.fabric.source;
    s.kind = t.fabric.kind;
    for (const std::string &h : t.fabric.undecided)
        if (host_name_problem(h).empty())
            s.undecided.insert(h);
    for (const std::string &h : t.claimed_hosts)  // an adapter name of it two CAs claim
        if (host_name_problem(h).empty())
            s.undecided.insert(h);
    for (const Host &h : t.hosts)  // like no class of hosts: its rails are not known either
        if (h.compute && h.rails_unknown && host_name_problem(h.name).empty())
            s.undecided.insert(h.name);
    s.rail_optimised = t.rail_optimised;
    // Do rail planes meet above the leaves? Components of the switch graph.
    std::vector<int> comp(t.switches.size(), -1);
    int ncomp = 0;
    for (std::size_t v = 0; v < t.switches.size(); ++v) {
        if (comp[v] >= 0)
            continue;
        std::vector<std::size_t> stack = {v};
        comp[v] = ncomp;
        while (!stack.empty()) {
            std::size_t x = stack.back();
            stack.pop_back();
            auto adj = boost::adjacent_vertices(x, t.graph);
            for (auto it = adj.first; it != adj.second; ++it)
                if (comp[*it] < 0) {
                    comp[*it] = ncomp;
                    stack.push_back(*it);
                }
        }
        ++ncomp;
    }
    std::map<int, std::set<int>> rails_in;
    for (std::size_t v = 0; v < t.switches.size(); ++v)
        if (t.switches[v].tier == 0 && t.switches[v].rail >= 0)
            rails_in[comp[v]].insert(t.switches[v].rail);
    s.rails_meet = false;
    for (const auto &kv : rails_in)
        s.rails_meet = s.rails_meet || kv.second.size() > 1;
    // LLDP taken on the hosts alone shows no switch above the leaves: whether
    // the rail planes meet up there is not known, so they are not said apart
    // (NCCL_CROSS_NIC=0 stays unset; a helper's attack)
    if (!t.fabric.kind.empty() && t.fabric.kind != "ib" && t.max_tier == 0 && t.switches.size() > 1)
        s.rails_meet = true;

    for (std::size_t i = 0; i < c.islands().size(); ++i) {
        const PlaceIsland &pi = c.island(static_cast<int>(i));
        ViewIsland vi;
        vi.level = pi.level;
        vi.name = pi.name;
        vi.parent = pi.parent;
        vi.hops = 2;
        const auto &ls = pi.leaf_islands;
        for (std::size_t a = 0; a < ls.size(); ++a)
            for (std::size_t b = a + 1; b < ls.size(); ++b)
                vi.hops = std::max(vi.hops, c.hops(ls[a], ls[b]));
        const Island &ti = t.islands[i];
        vi.sharp = !ti.leaves.empty() || ti.level == Level::Fabric;
        if (ti.level == Level::Fabric) {
            for (const Switch &sw : t.switches)
                vi.sharp = vi.sharp && (sw.tier < 0 || sw.sharp);
        } else {
            for (int sw : ti.leaves) {
                vi.sharp = vi.sharp && t.sw(sw).sharp;
                if (ti.level == Level::Leaf)
                    continue;
                auto adj = boost::adjacent_vertices(static_cast<SwitchId>(sw), t.graph);
                for (auto it = adj.first; it != adj.second; ++it)
                    if (t.switches[*it].tier > t.sw(sw).tier)
                        vi.sharp = vi.sharp && t.switches[*it].sharp;
            }
        }
        s.islands.push_back(vi);
    }
    // each host's domain entry (the fabric may name it by its FQDN)
    std::map<std::string, const HostDomain *> dom;
    for (const HostDomain &d : t.fabric.domains) {
        dom.emplace(d.host, &d);
        if (d.host.find('.') != std::string::npos)
            dom.emplace(d.host.substr(0, d.host.find('.')), &d);
    }
    // InfiniBand adapters' GUIDs are their identity (a RoCE fabric's come
    // from LLDP, where atoll makes them up)
    const bool ib = t.fabric.kind.empty() || t.fabric.kind == "ib";
    std::set<std::string> bad;
    for (const Finding &f : check(t))
        if (f.code == "miswired-rail" || f.code == "missing-rail")
            bad.insert(f.subject.substr(0, f.subject.find(' ')));
    for (std::size_t h = 0; h < t.hosts.size(); ++h) {
        if (!c.in_pool(static_cast<int>(h)))
            continue;
        ViewHost vh;
        vh.leaf = c.leaf_of(static_cast<int>(h));
        vh.rails_ok = !bad.count(t.hosts[h].name);
        std::set<std::pair<std::string, int>> seen;
        std::map<int, int> on_leaf;
        for (const HostPort &p : t.hosts[h].ports)
            if (p.rail >= 0 && !p.hca.empty() && seen.insert({p.hca, p.port}).second) {
                vh.hcas.push_back({p.hca, p.port});
                vh.guids.push_back(ib ? p.ca_guid : 0);
                vh.per_leaf = std::max(vh.per_leaf, ++on_leaf[p.sw]);
            }
        vh.domain = c.island_of(static_cast<int>(h), Level::Domain);
        if (vh.domain >= 0) {
            auto d = dom.find(t.hosts[h].name);
            vh.domain_id = d != dom.end() && domain_id_problem(d->second->domain).empty() ? d->second->domain
                                                                                          : c.island(vh.domain).name;
            if (d != dom.end() && domain_id_problem(d->second->subdomain).empty())
                vh.subdomain = d->second->subdomain;
        }
        s.hosts[t.hosts[h].name] = vh;
    }
    // An InfiniBand host undecided only by another node's copy of one of
    // its adapters' descriptions: each contested compute adapter, at its
    // rail's place, with every claimant's GUID. Its own node's plugin tells
    // which GUID is its own from sysfs. Not on other fabrics (LLDP's GUIDs
    // are atoll's own), nor for a host undecided for another reason.
    if (ib) {
        std::map<std::string, std::size_t> index;
        for (std::size_t h = 0; h < t.hosts.size(); ++h)
            if (c.in_pool(static_cast<int>(h)))
                index.emplace(t.hosts[h].name, h);
        std::set<std::string> unsettled(t.fabric.undecided.begin(), t.fabric.undecided.end());
        std::map<std::string, std::vector<std::pair<int, FabricSummary::Claim>>> by_host;  // host -> (rail, claim)
        for (const auto &kv : t.claims) {
            const std::string &host = kv.first.first, &hca = kv.first.second;
            auto hi = index.find(host);
            if (hi == index.end() || !s.undecided.count(host) || unsettled.count(host))
                continue;
            const Host &h = t.hosts[hi->second];
            // a host judged like no class stays undecided (whether its
            // adapters off its class's rails are too many is asked below,
            // with the claims settled, as odd-rails asks it of any host)
            if (h.rails_unknown || !h.compute) {
                unsettled.insert(host);
                continue;
            }
            // the claimed name's rail among the host's class's (port 1's rail
            // is named by the adapter, port N's "HCA/N")
            int placed = 0;
            for (int r : h.rails) {
                const std::string &rn = t.rails[static_cast<std::size_t>(r)];
                int port = 0;
                if (rn == hca)
                    port = 1;
                else if (rn.size() > hca.size() + 1 && rn.compare(0, hca.size() + 1, hca + "/") == 0)
                    port = std::atoi(rn.c_str() + hca.size() + 1);
                if (port < 1)
                    continue;
                // the claimants cabled on the rail's port, and those alone:
                // the plugin takes the one whose GUID and this port are its
                // own, and an adapter of the host's cabled on its other port
                // (port 1 unplugged, or on a storage subnet) is not this rail
                // (helper 60). One claimant (a copy on the copier's port 2),
                // or a dual-port adapter's two rails listing its GUID twice,
                // make the view 6.
                FabricSummary::Claim cl;
                cl.hca = {hca, port};
                for (const auto &gp : kv.second)
                    if (gp.second == port && std::find(cl.guids.begin(), cl.guids.end(), gp.first) == cl.guids.end())
                        cl.guids.push_back(gp.first);
                const ViewHost &vh = s.hosts[host];
                // (the reader takes at most 16 claimants: more leave the host
                // undecided rather than a view every node's plugin refuses)
                if (cl.guids.empty() || cl.guids.size() > 16 ||
                    std::find(vh.hcas.begin(), vh.hcas.end(), cl.hca) != vh.hcas.end())
                    continue;
                by_host[host].push_back({r, cl});
                ++placed;
            }
            if (placed == 0)
                unsettled.insert(host);
        }
        for (auto &kv : by_host) {
            if (unsettled.count(kv.first))
                continue;
            const Host &h = t.hosts[index[kv.first]];
            // settled, the host holds its class's rails, each once, and more
            // than half its ports are on them (odd-rails' test of any host:
            // helper 56's two made-up names beside one copy stay undecided,
            // one made-up name beside a copy no longer keeps the claim from
            // settling): else it would be odd-rails, which no claim may lift
            std::multiset<int> have;
            std::size_t off = 0;  // believed ports on no rail of its class
            for (const HostPort &p : h.ports)
                if (p.rail >= 0)
                    have.insert(p.rail);
                else
                    ++off;
            for (const auto &rc : kv.second)
                have.insert(rc.first);
            if (std::set<int>(have.begin(), have.end()) != std::set<int>(h.rails.begin(), h.rails.end()) ||
                have.size() != h.rails.size() || have.size() + off >= 64 || 2 * have.size() <= have.size() + off)
                continue;
            std::sort(kv.second.begin(), kv.second.end(),
                      [](const auto &a, const auto &b) { return a.first < b.first; });
            std::vector<FabricSummary::Claim> &out = s.claimed[kv.first];
            std::set<std::pair<std::string, int>> seen;
            std::size_t before = 0;  // the host's listed adapters on lower rails
            for (std::size_t k = 0; k < kv.second.size(); ++k) {
                const int r = kv.second[k].first;
                before = 0;
                seen.clear();
                for (const HostPort &p : h.ports)
                    if (p.rail >= 0 && !p.hca.empty() && seen.insert({p.hca, p.port}).second && p.rail < r)
                        ++before;
                kv.second[k].second.pos = before + k;
                out.push_back(kv.second[k].second);
            }
        }
        // odd-rails hosts that hold each of their class's rails once, every
        // listed adapter with its GUID (helper 59: four names made up by
        // another root beside a host's four rails made it odd-rails, and its
        // jobs got no NCCL_IB_HCA): its own node counts its own ports
        std::set<std::string> no_odd(t.fabric.undecided.begin(), t.fabric.undecided.end());
        no_odd.insert(t.claimed_hosts.begin(), t.claimed_hosts.end());
        for (const Host &h : t.hosts) {
            auto vh = s.hosts.find(h.name);
            if (!h.compute || !h.rails_unknown || no_odd.count(h.name) || vh == s.hosts.end() ||
                !s.undecided.count(h.name) || h.rails.empty())
                continue;
            std::multiset<int> have;
            for (const HostPort &p : h.ports)
                if (p.rail >= 0)
                    have.insert(p.rail);
            if (std::set<int>(have.begin(), have.end()) != std::set<int>(h.rails.begin(), h.rails.end()) ||
                have.size() != h.rails.size() || vh->second.hcas.size() != h.rails.size() ||
                std::any_of(vh->second.guids.begin(), vh->second.guids.end(), [](std::uint64_t g) { return g == 0; }) ||
                vh->second.guids.size() != vh->second.hcas.size())
                continue;
            s.odd.insert(h.name);
        }
    }
    return s;
}

std::optional<ViewHost> resolve_odd(const FabricSummary &s, const std::string &host,
                                    const std::vector<std::pair<std::uint64_t, int>> &local, std::string &why)
{
    auto h = s.hosts.find(host);
    if (h == s.hosts.end() || !s.odd.count(host))
        return std::nullopt;
    const ViewHost &vh = h->second;
    std::set<std::pair<std::uint64_t, int>> listed;
    for (std::size_t k = 0; k < vh.hcas.size() && k < vh.guids.size(); ++k)
        listed.insert({vh.guids[k], vh.hcas[k].second});
    std::set<std::pair<std::uint64_t, int>> here(local.begin(), local.end());
    for (const auto &l : listed)
        if (!here.count(l)) {
            why = "this host has more adapters on no rail of its class than on them in the fabric, and " +
                  guid_str(l.first).substr(2) + " port " + std::to_string(l.second) +
                  ", one of its rails there, is no active InfiniBand port here, by its GUID";
            return std::nullopt;
        }
    std::size_t other = 0;
    for (const auto &l : here)
        other += !listed.count(l);
    if (other >= listed.size()) {
        why = "this host has more adapters on no rail of its class than on them in the fabric, and here too: " +
              std::to_string(other) + " other active InfiniBand port(s) beside its " + std::to_string(listed.size()) +
              " rail(s)";
        return std::nullopt;
    }
    return vh;
}

std::optional<ViewHost> resolve_claims(const FabricSummary &s, const std::string &host,
                                       const std::vector<std::pair<std::uint64_t, int>> &local, std::string &why)
{
    auto h = s.hosts.find(host);
    auto c = s.claimed.find(host);
    if (h == s.hosts.end() || c == s.claimed.end())
        return std::nullopt;
    ViewHost out = h->second;
    if (out.guids.size() < out.hcas.size())
        out.guids.resize(out.hcas.size(), 0);
    for (const FabricSummary::Claim &cl : c->second) {
        std::vector<std::uint64_t> mine;
        for (std::uint64_t g : cl.guids)
            if (std::find(local.begin(), local.end(), std::make_pair(g, cl.hca.second)) != local.end())
                mine.push_back(g);
        if (mine.size() != 1) {
            why = cl.hca.first + " port " + std::to_string(cl.hca.second) + " is claimed by " +
                  std::to_string(cl.guids.size()) + (cl.guids.size() == 1 ? " adapter" : " adapters") +
                  " cabled there, " +
                  (mine.empty() ? std::string("none of them") : std::to_string(mine.size()) + " of them") + " here";
            return std::nullopt;
        }
        const std::size_t pos = std::min(cl.pos, out.hcas.size());
        out.hcas.insert(out.hcas.begin() + static_cast<std::ptrdiff_t>(pos), cl.hca);
        out.guids.insert(out.guids.begin() + static_cast<std::ptrdiff_t>(pos), mine[0]);
    }
    return out;
}

std::string domain_id_problem(const std::string &id)
{
    if (id.empty() || id.size() > 128)
        return "1 to 128 characters";
    for (char ch : id)
        if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '_' && ch != ':' && ch != '-')
            return "only letters, digits and . _ : -";
    return id == "-" ? "\"-\" means none" : "";
}

std::array<int, 5> view_levels(const FabricSummary &s, const ViewHost &h)
{
    std::array<int, 5> at{{-1, -1, -1, -1, -1}};
    for (int i = h.leaf, k = 0; i >= 0 && static_cast<std::size_t>(i) < s.islands.size() && k < 8;
         i = s.islands[static_cast<std::size_t>(i)].parent, ++k) {
        auto l = static_cast<std::size_t>(s.islands[static_cast<std::size_t>(i)].level);
        if (l < at.size() && l != static_cast<std::size_t>(Level::Domain))
            at[l] = i;
    }
    at[static_cast<std::size_t>(Level::Domain)] = h.domain;
    return at;
}

std::vector<std::string> view_order(const FabricSummary &s, const std::vector<std::string> &hosts)
{
    // the keys of topology_order(): the network chain from the host's leaf
    // island (pod, group, leaf), then its domain; -1 where it has none
    using Key = std::tuple<int, int, int, int>;
    auto key = [&](const std::string &n) {
        const ViewHost &h = s.hosts.at(n);
        std::array<int, 5> at = view_levels(s, h);
        return Key(at[static_cast<int>(Level::Pod)], at[static_cast<int>(Level::Group)], at[static_cast<int>(Level::Leaf)],
                   h.domain);
    };
    std::vector<std::pair<Key, std::string>> keyed;
    for (const std::string &n : hosts)
        keyed.push_back({key(n), n});
    std::stable_sort(keyed.begin(), keyed.end(),
                     [](const auto &a, const auto &b) { return a.first < b.first; });
    std::vector<std::string> out;
    for (auto &kv : keyed)
        out.push_back(std::move(kv.second));
    return out;
}

void write_summary(std::ostream &out, const FabricSummary &s)
{
    // view 6 only with what 5 does not read: odd lines, a claim of one
    // GUID, or a GUID in two claims (one adapter's two ports)
    bool v6 = !s.odd.empty();
    for (const auto &kv : s.claimed) {
        std::set<std::uint64_t> seen;
        for (const FabricSummary::Claim &cl : kv.second) {
            v6 = v6 || cl.guids.size() < 2;
            for (std::uint64_t g : cl.guids)
                v6 = v6 || !seen.insert(g).second;
        }
    }
    out << (v6 ? summary_magic_v6 : s.claimed.empty() ? summary_magic : summary_magic_v5) << "\n"
        << "# the atoll plugin's view of " << escaped(s.source) << ", written by atoll-topo slurm --format view\n"
        << "source " << escaped(s.source) << "\n"
        << "kind " << (s.kind.empty() ? "ib" : escaped(s.kind)) << "\n"
        << "rails " << (s.rail_optimised ? 1 : 0) << " " << (s.rails_meet ? 1 : 0) << "\n"
        << "# island LEVEL NAME PARENT HOPS SHARP (in index order)\n";
    for (const ViewIsland &i : s.islands)
        out << "island " << to_string(i.level) << " " << i.name << " " << i.parent << " " << i.hops << " "
            << (i.sharp ? 1 : 0) << "\n";
    out << "# host NAME LEAF-ISLAND RAILS-OK HCA:PORT[@GUID],... PORTS-ON-ONE-LEAF DOMAIN-ISLAND DOMAIN SUBDOMAIN\n";
    for (const auto &kv : s.hosts) {
        out << "host " << kv.first << " " << kv.second.leaf << " " << (kv.second.rails_ok ? 1 : 0) << " ";
        if (kv.second.hcas.empty())
            out << "-";
        for (std::size_t k = 0; k < kv.second.hcas.size(); ++k) {
            out << (k ? "," : "") << kv.second.hcas[k].first << ":" << kv.second.hcas[k].second;
            if (k < kv.second.guids.size() && kv.second.guids[k] != 0)
                out << "@" << guid_str(kv.second.guids[k]).substr(2);  // without its "0x"
        }
        out << " " << kv.second.per_leaf << " " << kv.second.domain << " "
            << (kv.second.domain < 0 || kv.second.domain_id.empty() ? "-" : kv.second.domain_id) << " "
            << (kv.second.domain < 0 || kv.second.subdomain.empty() ? "-" : kv.second.subdomain) << "\n";
    }
    if (!s.undecided.empty())
        out << "# undecided HOST: its compute NICs were not told from its front-end ones\n";
    for (const std::string &h : s.undecided)
        out << "undecided " << h << "\n";
    if (!s.claimed.empty())
        out << "# claimed HOST POS HCA:PORT GUID,...: an adapter name of an undecided host two adapters claim\n";
    for (const auto &kv : s.claimed)
        for (const FabricSummary::Claim &cl : kv.second) {
            out << "claimed " << kv.first << " " << cl.pos << " " << cl.hca.first << ":" << cl.hca.second << " ";
            for (std::size_t k = 0; k < cl.guids.size(); ++k)
                out << (k ? "," : "") << guid_str(cl.guids[k]).substr(2);
            out << "\n";
        }
    if (!s.odd.empty())
        out << "# odd HOST: an undecided host its own node may decide by its own ports (its line holds its class's rails)\n";
    for (const std::string &h : s.odd)
        out << "odd " << h << "\n";
}

FabricSummary read_summary(std::istream &in, const std::string &source)
{
    // The plugin reads this as root in every job step: every field is checked,
    // names as atoll-topo writes them, counts bounded, parents strictly one
    // level up or more (so no island can be its own ancestor).
    constexpr std::size_t max_islands = 1u << 20, max_hosts = 1u << 20, max_hcas = 64;
    FabricSummary s;
    std::string line;
    std::size_t lineno = 0;
    if (!std::getline(in, line) ||
        (line != summary_magic_v6 && line != summary_magic_v5 && line != summary_magic && line != summary_magic_v3 &&
         line != summary_magic_v2 && line != summary_magic_v1))
        throw InputError(source, 1, "found " + shown(line, 40) + ", expected \"" + summary_magic_v6 + "\" (or 5, 4, 3, 2 or 1)");
    bool v1 = line == summary_magic_v1, v6 = line == summary_magic_v6, v5 = v6 || line == summary_magic_v5,
         v4 = v5 || line == summary_magic, v3 = v4 || line == summary_magic_v3;
    s.version = v1 ? 1 : v6 ? 6 : v5 ? 5 : v4 ? 4 : v3 ? 3 : 2;
    ++lineno;
    auto fail = [&](const std::string &what) { throw InputError(source, lineno, "found " + shown(line) + ", expected " + what); };
    auto flag = [&](const std::string &v) {
        if (v != "0" && v != "1")
            fail("0 or 1");
        return v == "1";
    };
    auto number = [&](const std::string &v, long lo, long hi, const char *what) {
        char *end = nullptr;
        errno = 0;
        long x = v.empty() ? 0 : std::strtol(v.c_str(), &end, 10);
        if (v.empty() || *end || errno || x < lo || x > hi)
            fail(std::string(what) + " from " + std::to_string(lo) + " to " + std::to_string(hi));
        return static_cast<int>(x);
    };
    auto name = [&](const std::string &v, const std::string &problem, const char *what) {
        if (!problem.empty())
            fail(std::string(what) + " (" + shown(v) + ": " + problem + ")");
        return v;
    };
    // a claimed or odd line's host: listed above, undecided, in an InfiniBand view
    auto undecided_ib_host = [&](const std::string &nm, const char *what) {
        auto h = s.hosts.find(name(nm, host_name_problem(nm), "a host name"));
        if (h == s.hosts.end() || !s.undecided.count(nm))
            fail("a host listed above and undecided");
        if (s.kind != "ib")
            fail(std::string(what) + " lines in an InfiniBand view only (kind ib): GUIDs are identity there alone");
        return h;
    };
    std::vector<std::size_t> island_line;
    std::vector<std::string> parents;
    while (std::getline(in, line)) {
        ++lineno;
        if (line.empty() || line[0] == '#')
            continue;
        std::istringstream ls(line);
        std::string kind;
        ls >> kind;
        if (kind == "source") {
            std::getline(ls >> std::ws, s.source);
            for (char c : s.source)
                if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
                    fail("a printable source name");
        } else if (kind == "kind" && !v1) {
            std::string k, extra;
            if (!(ls >> k) || (ls >> extra) || hca_name_problem(k) != "")
                fail("kind NAME");
            s.kind = k;
        } else if (kind == "rails") {
            std::string a, b, extra;
            if (!(ls >> a >> b) || (ls >> extra))
                fail("rails RAIL-OPTIMISED RAILS-MEET");
            s.rail_optimised = flag(a);
            s.rails_meet = flag(b);
        } else if (kind == "island") {
            std::string lv, nm, parent, hops, sharp, extra;
            ViewIsland i;
            if (!(ls >> lv >> nm >> parent >> hops >> sharp) || (ls >> extra) || !level_from_string(lv, i.level))
                fail("island LEVEL NAME PARENT HOPS SHARP");
            if (s.islands.size() >= max_islands)
                fail("at most " + std::to_string(max_islands) + " islands");
            i.name = name(nm, hca_name_problem(nm), "an island name");
            i.parent = number(parent, -1, static_cast<long>(max_islands) - 1, "a parent island index");
            i.hops = number(hops, 0, 64, "a hop count");
            i.sharp = flag(sharp);
            s.islands.push_back(i);
            island_line.push_back(lineno);
        } else if (kind == "host") {
            std::string nm, leaf, ok, hcas, per_leaf, domain, domain_id, subdomain, extra;
            ViewHost h;
            if (!(ls >> nm >> leaf >> ok >> hcas) || (!v1 && !(ls >> per_leaf)) ||
                (v3 && !(ls >> domain >> domain_id >> subdomain)) || (ls >> extra))
                fail(v1   ? "host NAME LEAF-ISLAND RAILS-OK HCA:PORT,..."
                     : v3 ? "host NAME LEAF-ISLAND RAILS-OK HCA:PORT,... PORTS-ON-ONE-LEAF DOMAIN-ISLAND DOMAIN SUBDOMAIN"
                          : "host NAME LEAF-ISLAND RAILS-OK HCA:PORT,... PORTS-ON-ONE-LEAF");
            h.per_leaf = v1 ? 0 : number(per_leaf, 0, static_cast<long>(max_hcas), "a port count");
            if (s.hosts.size() >= max_hosts)
                fail("at most " + std::to_string(max_hosts) + " hosts");
            name(nm, host_name_problem(nm), "a host name");
            h.leaf = number(leaf, 0, static_cast<long>(s.islands.size()) - 1, "the index of a leaf island listed above");
            if (s.islands[static_cast<std::size_t>(h.leaf)].level != Level::Leaf)
                fail("the index of a leaf island, not a " + std::string(to_string(s.islands[static_cast<std::size_t>(h.leaf)].level)));
            h.rails_ok = flag(ok);
            if (v3) {
                h.domain = number(domain, -1, static_cast<long>(s.islands.size()) - 1,
                                  "-1 or the index of a domain island listed above");
                if (h.domain >= 0 && s.islands[static_cast<std::size_t>(h.domain)].level != Level::Domain)
                    fail("the index of a domain island, not a " +
                         std::string(to_string(s.islands[static_cast<std::size_t>(h.domain)].level)));
                if ((h.domain < 0) != (domain_id == "-") || (h.domain < 0 && subdomain != "-"))
                    fail("a domain ID with a domain island and \"-\" \"-\" without one");
                if (h.domain >= 0) {
                    h.domain_id = name(domain_id, domain_id_problem(domain_id), "a domain ID");
                    if (subdomain != "-")
                        h.subdomain = name(subdomain, domain_id_problem(subdomain), "a sub-domain ID");
                }
            }
            if (hcas != "-") {
                std::istringstream hs(hcas);
                std::string item;
                while (std::getline(hs, item, ',')) {
                    std::size_t colon = item.rfind(':');
                    if (colon == std::string::npos || colon == 0 || h.hcas.size() >= max_hcas)
                        fail("at most " + std::to_string(max_hcas) + " HCA:PORT items");
                    // view 4: HCA:PORT@GUID, the adapter's node GUID in 16 hex digits
                    std::uint64_t guid = 0;
                    std::size_t at = item.find('@');
                    if (at != std::string::npos) {
                        std::string g = item.substr(at + 1);
                        if (!v4 || g.size() != 16 || g.find_first_not_of("0123456789abcdef") != std::string::npos)
                            fail(v4 ? "HCA:PORT@GUID with a GUID of 16 lowercase hex digits" : "HCA:PORT items (GUIDs from view 4)");
                        guid = std::stoull(g, nullptr, 16);
                        item.resize(at);
                        colon = item.rfind(':');
                        if (colon == std::string::npos || colon == 0)
                            fail("HCA:PORT@GUID items");
                    }
                    std::string hca = item.substr(0, colon);
                    name(hca, hca_name_problem(hca), "an adapter name");
                    h.hcas.push_back({hca, number(item.substr(colon + 1), 1, 255, "a port number")});
                    h.guids.push_back(guid);
                }
            }
            // a GUID is one adapter's: on two adapters, or two on one, cannot be true
            for (std::size_t a = 0; a < h.guids.size(); ++a)
                for (std::size_t b = a + 1; b < h.guids.size(); ++b)
                    if (h.guids[a] != 0 && h.guids[b] != 0 &&
                        ((h.guids[a] == h.guids[b]) != (h.hcas[a].first == h.hcas[b].first)))
                        fail("each adapter with one GUID of its own (" + h.hcas[a].first + " and " + h.hcas[b].first + ")");
            if (!s.hosts.emplace(nm, std::move(h)).second)
                fail("each host once");
        } else if (kind == "undecided" && v3) {
            std::string nm, extra;
            if (!(ls >> nm) || (ls >> extra))
                fail("undecided HOST");
            if (s.undecided.size() >= max_hosts)
                fail("at most " + std::to_string(max_hosts) + " undecided hosts");
            s.undecided.insert(name(nm, host_name_problem(nm), "a host name"));
        } else if (kind == "claimed" && v5) {
            // claimed HOST POS HCA:PORT GUID,GUID,...: after the host's line
            // and its undecided line; each claimant a GUID of no other
            // adapter of the host; at most one claim per rail
            std::string nm, pos, item, gl, extra;
            if (!(ls >> nm >> pos >> item >> gl) || (ls >> extra))
                fail("claimed HOST POS HCA:PORT GUID,...");
            auto h = undecided_ib_host(nm, "claimed");
            if (s.odd.count(nm))
                fail("a claimed line before the host's odd line, not after");
            std::vector<FabricSummary::Claim> &cls = s.claimed[nm];
            if (h->second.hcas.size() + cls.size() >= max_hcas)
                fail("at most " + std::to_string(max_hcas) + " HCA:PORT items a host, its claims with them");
            FabricSummary::Claim cl;
            cl.pos = static_cast<std::size_t>(number(pos, 0, static_cast<long>(h->second.hcas.size() + cls.size()), "a place in the host's list"));
            if (!cls.empty() && cl.pos <= cls.back().pos)
                fail("places rising from the host's earlier claims");
            std::size_t colon = item.rfind(':');
            if (colon == std::string::npos || colon == 0)
                fail("HCA:PORT");
            std::string hca = item.substr(0, colon);
            cl.hca = {name(hca, hca_name_problem(hca), "an adapter name"), number(item.substr(colon + 1), 1, 255, "a port number")};
            if (std::find(h->second.hcas.begin(), h->second.hcas.end(), cl.hca) != h->second.hcas.end() ||
                std::any_of(cls.begin(), cls.end(), [&](const FabricSummary::Claim &o) { return o.hca == cl.hca; }))
                fail("an adapter the host's list does not hold");
            if (gl.empty() || gl.back() == ',')
                fail("GUID,GUID,... with no empty item");
            std::istringstream gs(gl);
            for (std::string g; std::getline(gs, g, ',');) {
                if (g.size() != 16 || g.find_first_not_of("0123456789abcdef") != std::string::npos || cl.guids.size() >= 16)
                    fail("at most 16 GUIDs of 16 lowercase hex digits");
                const std::uint64_t v = std::stoull(g, nullptr, 16);
                if (v == 0)
                    fail("a GUID that is not all zero (no adapter the fabric saw)");
                if (std::find(cl.guids.begin(), cl.guids.end(), v) != cl.guids.end() ||
                    std::find(h->second.guids.begin(), h->second.guids.end(), v) != h->second.guids.end() ||
                    std::any_of(cls.begin(), cls.end(), [&](const FabricSummary::Claim &o) {
                        // (view 6: a claim of the same adapter's other port may list it)
                        return (!v6 || o.hca.first != cl.hca.first) && std::find(o.guids.begin(), o.guids.end(), v) != o.guids.end();
                    }))
                    fail(v6 ? "GUIDs, each once and of no adapter the host's list or its claims of other adapters hold"
                            : "GUIDs, each once and of no adapter the host's list or its other claims hold");
                cl.guids.push_back(v);
            }
            // (view 6: one, the only claimant cabled on that port)
            if (cl.guids.size() < (v6 ? 1u : 2u))
                fail("two GUIDs or more: a claim is a contest");
            cls.push_back(std::move(cl));
        } else if (kind == "odd" && v6) {
            // odd HOST: after the host's line and its undecided line; an
            // InfiniBand host with no claims, each listed adapter with a GUID
            std::string nm, extra;
            if (!(ls >> nm) || (ls >> extra))
                fail("odd HOST");
            auto h = undecided_ib_host(nm, "odd");
            if (s.claimed.count(nm) || s.odd.count(nm))
                fail("a host once, with no claimed line");
            if (h->second.hcas.empty() || h->second.guids.size() != h->second.hcas.size() ||
                std::any_of(h->second.guids.begin(), h->second.guids.end(), [](std::uint64_t g) { return g == 0; }))
                fail("a host whose line lists its adapters, each with its GUID");
            s.odd.insert(nm);
        } else {
            fail(v6   ? "a source, kind, rails, island, host, undecided, claimed or odd line"
                 : v5 ? "a source, kind, rails, island, host, undecided or claimed line"
                      : "a source, kind, rails, island, host or undecided line");
        }
    }
    if (v1)  // a view 1 marked leaf islands alone: SHARP above them is unknown
        for (ViewIsland &i : s.islands)
            i.sharp = i.sharp && i.level == Level::Leaf;
    for (std::size_t k = 0; k < s.islands.size(); ++k) {
        const ViewIsland &i = s.islands[k];
        if (i.parent < 0)
            continue;
        lineno = island_line[k];
        line = "island " + i.name + " ... parent " + std::to_string(i.parent);
        if (i.parent >= static_cast<int>(s.islands.size()))
            fail("a parent that is an island index (there are " + std::to_string(s.islands.size()) + ")");
        if (s.islands[static_cast<std::size_t>(i.parent)].level <= i.level)
            fail("a parent at a higher level than " + std::string(to_string(i.level)) + ", not " +
                 to_string(s.islands[static_cast<std::size_t>(i.parent)].level));
    }
    return s;
}

}  // namespace atl
