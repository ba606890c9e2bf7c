#include "topology/check.hpp"
#include "topology/nodehealth.hpp"
#include "topology/nvlink.hpp"
#include "topology/hostlist.hpp"
#include "topology/tally.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

namespace atl {

const char *to_string(Severity s) { return s == Severity::Error ? "error" : "warning"; }

namespace {

std::string end_name(const Topology &t, const LinkEnd &e)
{
    auto it = t.switch_index.find(e.guid);
    std::string n;
    if (it != t.switch_index.end()) {
        n = t.sw(it->second).name;
    } else {
        const Node *node = t.fabric.find(e.guid);
        n = node && !node->desc.empty() ? node->desc : guid_str(e.guid);
        while (!n.empty() && n.back() == ' ')
            n.pop_back();
    }
    return n + "[" + std::to_string(e.port) + "]";
}

struct Rate {
    int width;
    Speed speed;
    bool operator<(const Rate &o) const { return std::tie(width, speed) < std::tie(o.width, o.speed); }
};


// NVLink domains (Fabric::domains, --nvlink): hosts whose fabric is not set
// up, domains short of trays, hosts the fabric does not have
template <class Add>
void domain_findings(const Topology &t, Add add)
{
    const Fabric &f = t.fabric;
    std::map<std::string, std::vector<std::string>> not_set_up;  // reason without FILE:LINE -> hosts
    std::map<std::string, std::string> first_where;
    for (const std::string &u : f.unhealthy) {
        std::size_t colon = u.find(": ");
        std::string rest = u.substr(colon + 2);
        if (rest.rfind(kNvlinkNotConfigured, 0) != 0)
            continue;
        rest = rest.substr(std::strlen(kNvlinkNotConfigured));
        // "FILE:LINE: reason": group by reason, keep the first place
        std::size_t r = rest.find(": ");
        std::string why = r == std::string::npos ? rest : rest.substr(r + 2);
        not_set_up[why].push_back(u.substr(0, colon));
        first_where.emplace(why, r == std::string::npos ? "" : rest.substr(0, r));
    }
    for (const auto &kv : not_set_up)
        add("nvlink-not-configured", Severity::Warning, compress_hostlist(kv.second),
            "NVLink fabric not configured (" + kv.first + ", first at " + first_where[kv.first] +
                "): no multi-node NVLink domain; their islands rank last in placement");
    std::map<std::string, std::vector<std::string>> members;
    std::vector<std::string> unknown;
    for (const HostDomain &d : f.domains) {
        if (health_host(t.host_index, d.host) < 0)
            unknown.push_back(d.host);
        else
            members[d.domain].push_back(d.host);
    }
    if (!unknown.empty())
        add("domain-host-unknown", Severity::Warning, compress_hostlist(unknown),
            "in an NVLink domain but not in the fabric: left out of domains and islands");
    // the usual size: the most common one (the larger on a tie)
    std::map<std::size_t, int> sizes;
    for (const auto &kv : members)
        ++sizes[kv.second.size()];
    std::size_t usual = 0;
    int count = 0;
    for (const auto &kv : sizes)
        if (kv.second >= count) {
            usual = kv.first;
            count = kv.second;
        }
    for (const auto &kv : members)
        if (kv.second.size() < usual)
            add("short-domain", Severity::Warning, kv.first,
                "NVLink domain " + kv.first + " has " + std::to_string(kv.second.size()) + " hosts (" +
                    compress_hostlist(kv.second) + "), the usual domain " + std::to_string(usual) +
                    ": a tray missing or not configured");
}

// check --previous: what an adapter's GUID, which its firmware gives and no
// node's root can change, says of the host names an earlier discovery had.
void identity_findings(const Topology &old_t, const Topology &t, std::vector<Finding> &out)
{
    std::map<std::uint64_t, std::string> old_owner;                     // CA GUID -> host
    std::map<std::pair<std::string, std::string>, std::uint64_t> old_ca;  // (host, adapter) -> CA GUID
    for (const Host &h : old_t.hosts)
        for (const HostPort &p : h.ports) {
            old_owner[p.ca_guid] = h.name;
            if (!p.hca.empty())
                old_ca[{h.name, p.hca}] = p.ca_guid;
        }
    const std::string was = " in the previous fabric (" + old_t.fabric.source + ")";
    for (const Host &h : t.hosts) {
        std::map<std::string, std::string> moved;  // old owner -> "0x... (mlx5_0), ..."
        std::set<std::string> changed;
        for (const HostPort &p : h.ports) {
            auto owner = old_owner.find(p.ca_guid);
            std::string what = guid_str(p.ca_guid) + (p.hca.empty() ? "" : " (" + p.hca + ")");
            if (owner != old_owner.end() && owner->second != h.name) {
                std::string &list = moved[owner->second];
                if (list.find(what) == std::string::npos)
                    list += (list.empty() ? "" : ", ") + what;
                continue;
            }
            auto before = old_ca.find({h.name, p.hca});
            if (before != old_ca.end() && before->second != p.ca_guid && changed.insert(p.hca).second)
                out.push_back({"guid-changed", Severity::Error, h.name + " " + p.hca,
                               "adapter is CA " + guid_str(p.ca_guid) + " where it was " + guid_str(before->second) + was +
                                   ": a replaced HCA, or another node's description naming this one; confirm it, "
                                   "then check against this fabric from now on"});
        }
        for (const auto &kv : moved)
            out.push_back({"name-moved", Severity::Error, h.name,
                           "host is on adapters that were " + kv.first + "'s" + was + ": " + kv.second +
                               ": a renamed node, or a node's root claiming this name; confirm it, or give a "
                               "--node-name-map"});
    }
    std::vector<std::string> gone;
    for (const Host &h : old_t.hosts)
        if (!t.host_index.count(h.name))
            gone.push_back(h.name);
    if (!gone.empty())
        out.push_back({"host-vanished", Severity::Warning, compress_hostlist(gone),
                       std::to_string(gone.size()) + (gone.size() == 1 ? " host" : " hosts") + was +
                           " not seen now: down, uncabled, or its adapters described under another name"});
}

// check --slurm-nodes: the fabric's hosts against Slurm's node list.
void slurm_findings(const Topology &t, const std::set<std::string> &slurm_nodes, std::vector<Finding> &out)
{
    for (const Host &h : t.hosts)
        if (!slurm_nodes.count(h.name))
            out.push_back({"not-in-slurm", h.compute ? Severity::Error : Severity::Warning, h.name,
                           h.compute ? std::string("compute host that Slurm has no node of: a typo in slurm.conf, or a "
                                                   "node description claiming a name; atoll-topo slurm "
                                                   "--slurm-nodes writes no features, scontrol or label line for it")
                                     : std::string("host (not a compute host: storage, management?) that Slurm has no "
                                                   "node of; atoll-topo slurm --slurm-nodes writes no features, scontrol or label "
                                                   "line for it")});
    std::set<std::string> switch_names;
    for (const Switch &s : t.switches)
        switch_names.insert(s.name);
    std::vector<std::string> absent, as_switch;
    for (const std::string &n : slurm_nodes)
        if (!t.host_index.count(n))
            (switch_names.count(n) ? as_switch : absent).push_back(n);
    if (!as_switch.empty())  // LLDP tables read without Slurm's list: a host running Docker looks like a switch
        out.push_back({"slurm-node-is-switch", Severity::Error, compress_hostlist(as_switch),
                       std::to_string(as_switch.size()) + " Slurm node" + (as_switch.size() == 1 ? " is" : "s are") +
                           " a switch in this fabric: from LLDP tables, rediscover with --slurm-nodes (a host "
                           "running Docker advertises Bridge, and its leaves report it so)"});
    if (!absent.empty())
        out.push_back({"not-in-fabric", Severity::Warning, compress_hostlist(absent),
                       std::to_string(absent.size()) + " Slurm node" + (absent.size() == 1 ? "" : "s") +
                           " that no adapter of the fabric names: down, uncabled, or not on this fabric"});
}

}  // namespace

std::string link_name(const Topology &t, const Link &l)
{
    // the switch end first, the higher tier first
    auto tier = [&](const LinkEnd &e) {
        auto it = t.switch_index.find(e.guid);
        return it == t.switch_index.end() ? -2 : t.sw(it->second).tier;
    };
    const LinkEnd *x = &l.a, *y = &l.b;
    if (tier(*y) > tier(*x) || (tier(*y) == tier(*x) && end_name(t, *y) < end_name(t, *x)))
        std::swap(x, y);
    return end_name(t, *x) + " - " + end_name(t, *y);
}

std::vector<int> degraded_leaf_islands(const Topology &t)
{
    std::vector<std::string> why = degraded_reasons(t);
    std::vector<bool> sick(t.switches.size(), false);
    for (std::size_t k = 0; k < t.fabric.links.size(); ++k) {
        if (why[k].empty())
            continue;
        for (std::uint64_t g : {t.fabric.links[k].a.guid, t.fabric.links[k].b.guid}) {
            auto it = t.switch_index.find(g);
            if (it != t.switch_index.end() && t.sw(it->second).tier == 0)
                sick[static_cast<std::size_t>(it->second)] = true;
        }
    }
    std::vector<int> out;
    for (int i : t.islands_at(Level::Leaf))
        for (int s : t.islands[static_cast<std::size_t>(i)].leaves)
            if (sick[static_cast<std::size_t>(s)]) {
                out.push_back(i);
                break;
            }
    return out;
}

namespace {

// A compute host of several links that all run at one width and speed (one
// link alone says nothing of its host's kind)
bool links_alike(const Fabric &f, const Host &h)
{
    if (!h.compute || h.ports.size() < 2)
        return false;
    const Link &l0 = f.links[static_cast<std::size_t>(h.ports[0].link)];
    return std::all_of(h.ports.begin(), h.ports.end(), [&](const HostPort &p) {
        const Link &l = f.links[static_cast<std::size_t>(p.link)];
        return l.width == l0.width && l.speed == l0.speed;
    });
}

}  // namespace

std::vector<std::string> degraded_reasons(const Topology &t)
{
    const Fabric &f = t.fabric;
    std::vector<std::string> reasons(f.links.size());
    // --- degraded links: below what both ends support, or below the norm of
    // their class (switch links by tier pair; compute host links together).
    std::vector<int> link_class(f.links.size(), -1);  // -1: no norm applies
    std::map<std::pair<int, int>, int> class_ids;
    for (std::size_t i = 0; i < f.links.size(); ++i) {
        const Link &l = f.links[i];
        auto sa = t.switch_index.find(l.a.guid), sb = t.switch_index.find(l.b.guid);
        if (sa != t.switch_index.end() && sb != t.switch_index.end() && sa->second != sb->second) {
            int ta = t.sw(sa->second).tier, tb = t.sw(sb->second).tier;
            auto key = std::make_pair(std::min(ta, tb), std::max(ta, tb));
            link_class[i] = class_ids.emplace(key, static_cast<int>(class_ids.size())).first->second;
        }
    }
    // compute host links by the hosts' class (as many rails: a partition
    // of one-port CPU nodes at 100G beside eight-rail GPU nodes at 400G is
    // another generation, not 100G links degraded)
    const int host_class = static_cast<int>(class_ids.size());
    std::map<std::size_t, int> host_classes;  // rails of the host's class -> class
    for (const Host &h : t.hosts)
        if (h.compute && !h.rails_unknown) {  // a host like no class has no peers to be below
            int c = host_classes.emplace(h.rails.size(), host_class + static_cast<int>(host_classes.size())).first->second;
            for (const HostPort &p : h.ports)  // its rails (a storage HCA beside them has no rails' norm)
                if (p.rail >= 0 || h.rails.empty())
                    link_class[p.link] = c;
        }
    std::vector<std::map<Rate, int>> class_rates(static_cast<std::size_t>(host_class) + host_classes.size());
    for (std::size_t i = 0; i < f.links.size(); ++i)
        if (link_class[i] >= 0)
            class_rates[static_cast<std::size_t>(link_class[i])][{f.links[i].width, f.links[i].speed}]++;
    std::vector<Rate> norm;
    for (const auto &rates : class_rates)
        norm.push_back(most_common(rates, Rate{0, Speed::Unknown}));
    // a host link is below its peers only where its own host has a faster
    // one: a host of several links that all run alike is of a slower generation
    // (200G beside 400G hosts on the same rail leaves), not degraded
    // (slower_hosts() names it)
    std::vector<bool> host_alike(f.links.size(), false);
    for (const Host &h : t.hosts)
        if (links_alike(f, h))
            for (const HostPort &p : h.ports)
                host_alike[static_cast<std::size_t>(p.link)] = true;
    for (std::size_t i = 0; i < f.links.size(); ++i) {
        const Link &l = f.links[i];
        std::string why;
        if (l.supported_speed != Speed::Unknown && l.speed != Speed::Unknown && l.speed < l.supported_speed)
            why = "runs at " + rate_name(l.width, l.speed) + " where both ends support " +
                  to_string(l.supported_speed);
        else if (l.supported_width && l.width && l.width < std::min(4, l.supported_width))
            why = "runs at " + rate_name(l.width, l.speed) + " where both ends support " +
                  std::to_string(l.supported_width) + "x";
        else if (link_class[i] >= 0 && !(link_class[i] >= host_class && host_alike[i])) {
            const Rate &r = norm[static_cast<std::size_t>(link_class[i])];
            if ((l.width && l.width < r.width) || (l.speed != Speed::Unknown && l.speed < r.speed))
                why = "runs at " + rate_name(l.width, l.speed) + ", below the " +
                      rate_name(r.width, r.speed) + " of its peers";
        }
        reasons[i] = why;
    }

    return reasons;
}

std::vector<Finding> check(const Topology &t, const CheckContext &with)
{
    std::vector<Finding> out;
    auto add = [&](const char *code, Severity sev, std::string subject, std::string msg) {
        out.push_back({code, sev, std::move(subject), std::move(msg)});
    };
    const Fabric &f = t.fabric;

    auto reasons = degraded_reasons(t);
    for (std::size_t i = 0; i < f.links.size(); ++i)
        if (!reasons[i].empty())
            add("degraded-link", Severity::Error, link_name(t, f.links[i]), "link " + reasons[i]);
    {
        // hosts whose links all run alike, below most hosts' (a slower
        // generation, or a host whose every link trained down): said once
        std::map<Rate, int> rates;
        for (const Host &h : t.hosts)
            if (h.compute)
                for (const HostPort &p : h.ports)
                    rates[{f.links[static_cast<std::size_t>(p.link)].width, f.links[static_cast<std::size_t>(p.link)].speed}]++;
        Rate usual = most_common(rates, Rate{0, Speed::Unknown});
        std::map<Rate, std::vector<std::string>> slower;
        for (const Host &h : t.hosts) {
            if (!links_alike(f, h))
                continue;
            const Link &l0 = f.links[static_cast<std::size_t>(h.ports[0].link)];
            if ((l0.width && l0.width < usual.width) || (l0.speed != Speed::Unknown && l0.speed < usual.speed))
                slower[{l0.width, l0.speed}].push_back(h.name);
        }
        for (const auto &kv : slower)
            add("slower-host", Severity::Warning, compress_hostlist(kv.second),
                "every compute link of the host runs at " + rate_name(kv.first.width, kv.first.speed) + ", below the " +
                    rate_name(usual.width, usual.speed) + " most common among hosts: a slower generation, or every link trained "
                    "down (no one link is slower than its host's others, so none is called degraded)");
    }

    // --- descriptions
    std::map<std::string, std::vector<std::uint64_t>> by_desc;
    for (const Node &n : f.nodes)
        if (n.type != NodeType::Switch && classify_ca(n.desc) == CaKind::Host)
            by_desc[n.desc].push_back(n.guid);
    for (const auto &kv : by_desc)
        if (kv.second.size() > 1) {
            std::string guids;
            for (auto g : kv.second)
                guids += (guids.empty() ? "" : ", ") + guid_str(g);
            add("duplicate-description", Severity::Warning, kv.first,
                std::to_string(kv.second.size()) + " adapters share this description: " + guids);
        }

    // --- rails: hosts missing one, ports on another rail's leaf
    std::map<std::pair<int, int>, std::vector<int>> group_missing;  // (group island, rail) -> hosts
    std::map<int, std::set<int>> missing_of_host;
    std::size_t nrails = t.rails.size();
    std::vector<std::string> odd_rails;  // hosts like no class of hosts
    std::set<std::pair<std::string, std::string>> front_ifaces;  // (host, interface) put out as front-end
    for (const FrontEndNic &fe : f.frontend)
        front_ifaces.insert({fe.host, fe.iface});
    // A leaf's rail for the hosts of one class (its rails): a dual-port
    // storage server's second port on a leaf of one-port nodes is not on
    // another rail's leaf, it is the only port of its class there; an HGX
    // board's mlx5_1 is on the leaf of a DGX's mlx5_3.
    std::map<std::pair<std::vector<int>, int>, std::map<int, int>> class_leaf_rails;  // (class, leaf) -> rail -> ports
    for (const Host &h : t.hosts)
        if (h.compute && !h.rails_unknown)
            for (const HostPort &p : h.ports)
                if (p.rail >= 0)
                    class_leaf_rails[{h.rails, p.sw}][p.rail]++;
    auto class_leaf_rail = [&](const Host &h, int sw) {
        auto it = class_leaf_rails.find({h.rails, sw});
        return it == class_leaf_rails.end() ? -1 : majority(it->second, -1);
    };
    std::map<int, std::set<int>> leaf_class_rails;  // leaf -> the rail of each class on it (for small-rail-group)
    for (const auto &kv : class_leaf_rails)
        if (const int r = majority(kv.second, -1); r >= 0)
            leaf_class_rails[kv.first.second].insert(r);
    // and whether the class's own hosts spread their rails over leaves (dual-
    // port storage appliances with both ports on one leaf beside rail-
    // optimised GPU hosts: their ports are on no rail's leaf to be miswired)
    std::map<std::vector<int>, std::pair<int, int>> class_spread;  // rails -> (hosts on several leaves, hosts)
    for (const Host &h : t.hosts)
        if (h.compute && !h.rails_unknown && h.rails.size() > 1) {
            std::set<int> leaves;
            for (const HostPort &p : h.ports)
                if (p.rail >= 0)
                    leaves.insert(p.sw);
            auto &sp = class_spread[h.rails];
            sp.first += leaves.size() > 1;
            ++sp.second;
        }
    auto class_rail_optimised = [&](const Host &h) {
        auto it = class_spread.find(h.rails);
        return it != class_spread.end() && 2 * it->second.first > it->second.second;
    };
    for (std::size_t hi = 0; hi < t.hosts.size(); ++hi) {
        const Host &h = t.hosts[hi];
        if (h.compute && h.rails_unknown) {  // (also where no class has rails: the view lists it undecided)
            odd_rails.push_back(h.name);
            continue;
        }
        if (!h.compute || nrails == 0)
            continue;
        std::vector<int> have(nrails, 0);
        for (const HostPort &p : h.ports) {
            if (p.rail < 0)
                continue;
            have[static_cast<std::size_t>(p.rail)]++;
            const Switch &s = t.sw(p.sw);
            if (const int cl = t.rail_optimised && s.rail >= 0 && s.rail != p.rail && class_rail_optimised(h) ? class_leaf_rail(h, p.sw) : -1;
                cl >= 0 && cl != p.rail)  // (a tie names no rail to be off)
                add("miswired-rail", Severity::Error, h.name + " " + p.hca,
                    "rail " + t.rails[static_cast<std::size_t>(p.rail)] + " adapter is cabled to " +
                        s.name + "[" + std::to_string(f.links[p.link].a.guid == s.guid ? f.links[p.link].a.port : f.links[p.link].b.port) +
                        "], a leaf of rail " + t.rails[static_cast<std::size_t>(s.rail)]);
        }
        for (int r : h.rails)
            if (!have[static_cast<std::size_t>(r)] && !front_ifaces.count({h.name, t.rails[static_cast<std::size_t>(r)]})) {
                // (an interface of that name the host has, put out as
                // front-end by its own evidence, is not a missing rail)
                group_missing[{h.group, r}].push_back(static_cast<int>(hi));
                missing_of_host[static_cast<int>(hi)].insert(r);
            }
    }

    if (!odd_rails.empty())
        add("odd-rails", Severity::Warning, compress_hostlist(odd_rails),
            "no more than half of the host's ports are rails of any class of hosts like it, or an adapter of it "
            "is none of its class's rails while it lacks two or more of them (the first host of "
            "another model, the one host of its model left, a host whose adapters are named apart): which adapters "
            "are its rails is not known, its links are judged against no peers, and the plugin sets no device "
            "variable there");

    // --- rail groups with fewer leaves than their peers (a missing leaf)
    std::set<std::pair<int, int>> explained;  // (group island, rail) explained by a missing leaf
    if (t.rail_optimised) {
        // compared with the groups of hosts of as many rails (a CPU
        // partition's one-rail leaves beside eight-rail GPU groups)
        std::map<std::size_t, std::vector<int>> sizes;  // rails of its hosts -> leaves of each group
        auto groups = t.islands_at(Level::Group);
        std::map<int, std::set<int>> group_rails;
        std::map<int, std::set<int>> group_wants;  // the rails its hosts' class carries
        // its leaves of a rail (a storage leaf that two of its hosts' storage
        // ports joined to it is none: it must not stand in for a dead rail leaf)
        auto rail_leaves = [&](const Island &is) {
            return static_cast<int>(std::count_if(is.leaves.begin(), is.leaves.end(), [&](int l) { return t.sw(l).rail >= 0; }));
        };
        for (int g : groups) {
            const Island &is = t.islands[static_cast<std::size_t>(g)];
            bool compute = false;
            for (int h : is.hosts)
                if (const Host &ho = t.hosts[static_cast<std::size_t>(h)]; ho.compute) {
                    compute = true;
                    group_wants[g].insert(ho.rails.begin(), ho.rails.end());
                }
            if (!compute)
                continue;
            // the rails its leaves carry: each leaf's, and each class's on it
            // (on a leaf of DGX H100 mlx5_11 ports, an HGX board's mlx5_7)
            for (int l : is.leaves) {
                if (t.sw(l).rail >= 0)
                    group_rails[g].insert(t.sw(l).rail);
                if (auto it = leaf_class_rails.find(l); it != leaf_class_rails.end())
                    group_rails[g].insert(it->second.begin(), it->second.end());
            }
            sizes[group_wants[g].size()].push_back(rail_leaves(is));
        }
        for (auto &kv : group_rails) {
            const Island &is = t.islands[static_cast<std::size_t>(kv.first)];
            const int usual = most_common(sizes[group_wants[kv.first].size()], 0);
            if (rail_leaves(is) >= usual)
                continue;
            std::string missing;
            for (int r : group_wants[kv.first])
                if (!kv.second.count(r)) {
                    missing += (missing.empty() ? "" : ", ") + t.rails[static_cast<std::size_t>(r)];
                    explained.insert({kv.first, r});
                }
            add("small-rail-group", Severity::Error, is.name,
                "rail group has " + std::to_string(rail_leaves(is)) + " leaves where its peers have " +
                    std::to_string(usual) + (missing.empty() ? "" : "; no leaf for rail " + missing));
        }
    }

    // --- default descriptions; attribute each to the host that lacks that rail
    std::set<std::pair<int, int>> attributed;  // (host, rail)
    for (const UnnamedCa &u : t.unnamed) {
        const Switch &s = t.sw(u.sw);
        std::string guess;
        if (s.rail >= 0) {
            std::vector<int> cands;
            for (const auto &kv : missing_of_host) {
                const Host &h = t.hosts[static_cast<std::size_t>(kv.first)];
                if (kv.second.count(s.rail) && h.group >= 0 &&
                    std::find(t.islands[static_cast<std::size_t>(h.group)].leaves.begin(),
                              t.islands[static_cast<std::size_t>(h.group)].leaves.end(),
                              u.sw) != t.islands[static_cast<std::size_t>(h.group)].leaves.end())
                    cands.push_back(kv.first);
            }
            if (cands.size() == 1) {
                attributed.insert({cands[0], s.rail});
                guess = "; probably " + t.hosts[static_cast<std::size_t>(cands[0])].name +
                        "'s rail " + t.rails[static_cast<std::size_t>(s.rail)] + " adapter";
            }
        }
        add("default-description", Severity::Warning, guid_str(u.guid),
            "adapter on " + s.name + "[" + std::to_string(u.port) + "] " +
                (u.desc.empty() ? std::string("has no description atoll believes (not in the node name map)")
                                : "has the firmware default description \"" + u.desc + "\"") +
                ": set its node description or give a --node-name-map" + guess);
    }
    for (const RefusedCa &r : t.refused)
        add("refused-name", Severity::Error, guid_str(r.guid),
            "adapter on " + t.sw(r.sw).name + "[" + std::to_string(r.port) + "]: " + refused_message(t.fabric.source, r));
    for (const auto &kv : group_missing) {
        if (explained.count(kv.first))
            continue;
        for (int hi : kv.second) {
            if (attributed.count({hi, kv.first.second}))
                continue;
            const Host &h = t.hosts[static_cast<std::size_t>(hi)];
            // a rail whose adapter name two adapters claim is not missing:
            // refused-name says which (rail "mlx5_0" or "mlx5_0/2" of adapter mlx5_0)
            const std::string &rn = t.rails[static_cast<std::size_t>(kv.first.second)];
            if (t.claims.count({h.name, rn.substr(0, rn.find('/'))}))
                continue;
            add("missing-rail", Severity::Error, h.name,
                "host has no adapter on rail " + t.rails[static_cast<std::size_t>(kv.first.second)]);
        }
    }

    // --- leaves with fewer uplinks than their peers; non-compute hosts on compute leaves
    // (a spine or core that carries hosts is no leaf: tiers, analyse.cpp)
    std::vector<int> compute_leaf(t.switches.size(), 0);
    for (const Host &h : t.hosts)
        for (const HostPort &p : h.ports)
            if (h.compute && t.sw(p.sw).tier == 0)
                compute_leaf[static_cast<std::size_t>(p.sw)] = 1;
    // A compute leaf's cables to spines, to switches above them, and to
    // other compute leaves: one to a core besides its spines, or to a leaf,
    // is a stray cable; it does not count against missing uplinks (it
    // would hide one that is missing)
    std::vector<int> leaf_up(t.switches.size(), 0);
    for (std::size_t i = 0; i < t.switches.size(); ++i) {
        if (!compute_leaf[i] || t.max_tier == 0)
            continue;
        int to_spine = 0, above = 0;
        std::string core, leaf;
        auto oe = boost::out_edges(static_cast<SwitchId>(i), t.graph);
        for (auto it = oe.first; it != oe.second; ++it) {
            const std::size_t o = boost::target(*it, t.graph);
            const int tier = t.switches[o].tier, n = t.graph[*it].multiplicity;
            if (tier == 1)
                to_spine += n;
            else if (tier >= 2) {
                above += n;
                if (core.empty())
                    core = t.switches[o].name + " (tier " + std::to_string(tier) + ")";
            } else if (tier == 0 && compute_leaf[o] && o > i && leaf.empty())  // named once, at the first
                leaf = t.switches[o].name;
        }
        leaf_up[i] = to_spine > 0 ? to_spine : t.switches[i].uplinks;
        if (to_spine > 0 && above > 0)
            add("uplink-skips-tier", Severity::Warning, t.switches[i].name,
                "leaf is cabled to " + core + (above > 1 ? " and " + std::to_string(above - 1) + " more above its spines" : "") +
                    " as well as to its " + std::to_string(to_spine) +
                    " spine cables: a stray cable? It is not counted as an uplink");
        if (!leaf.empty() && t.switches[i].uplinks > 0)
            add("leaf-to-leaf-cable", Severity::Warning, t.switches[i].name,
                "leaf is cabled to leaf " + leaf + ": a stray cable? A Clos fabric cables leaves to spines only");
    }
    std::map<int, int> up;
    for (std::size_t i = 0; i < t.switches.size(); ++i)
        if (compute_leaf[i] && t.max_tier > 0)
            up[leaf_up[i]]++;
    int usual_up = most_common(up, 0);
    for (std::size_t i = 0; i < t.switches.size(); ++i)
        if (compute_leaf[i] && t.max_tier > 0 && leaf_up[i] < usual_up)
            add("missing-uplinks", Severity::Warning, t.switches[i].name,
                "leaf has " + std::to_string(leaf_up[i]) + " uplinks where its peers have " +
                    std::to_string(usual_up));
    // a leaf's cable to a spine of another pod (analyse.cpp): it joins no pods
    for (const auto &su : t.stray_uplinks)
        add("cross-pod-uplink", Severity::Warning, t.sw(su.first).name,
            "leaf is cabled to " + t.sw(su.second).name +
                ", a spine whose other cables come mostly from another pod: a stray or swapped cable? It does not "
                "make them one pod");
    // a host with adapters on leaves and one on a spine or core: a stray
    // cable, or a description written to claim this host's name
    for (const Host &h : t.hosts) {
        std::string off, on;
        for (const HostPort &p : h.ports) {
            const Switch &s = t.sw(p.sw);
            if (s.tier == 0)
                on = s.name;
            else if (s.tier > 0 && off.empty())
                off = (p.hca.empty() ? std::string("an adapter") : "adapter " + p.hca) + " on " + s.name + " (tier " + std::to_string(s.tier) + ")";
        }
        if (!off.empty() && !on.empty())
            add("host-port-off-leaf", Severity::Warning, h.name,
                off + " while its others are on leaves (" + on +
                    "): a stray cable, or another node's description naming this host; that port joins no island");
    }
    // a host with its ports on the leaves of one rail group and one on
    // another group's leaf (on its own rail: a wrong rail is miswired-rail),
    // a leaf most of whose hosts are at home in that group: a moved cable,
    // or a description naming this host. Its home is analyse()'s: the
    // group of most of its ports (Host::group). A leaf every rack shares (a
    // storage rail) is no one's home and is not reported.
    {
        auto counted = [&](const Switch &s, const HostPort &p) {
            return s.tier == 0 && s.group >= 0 && !(t.rail_optimised && s.rail >= 0 && p.rail >= 0 && s.rail != p.rail);
        };
        std::vector<int> home(t.hosts.size(), -1), home_ports(t.hosts.size(), 0);
        for (std::size_t hi = 0; hi < t.hosts.size(); ++hi) {
            const Host &h = t.hosts[hi];
            if (h.group < 0 || t.islands[static_cast<std::size_t>(h.group)].leaves.empty())
                continue;
            home[hi] = t.sw(t.islands[static_cast<std::size_t>(h.group)].leaves[0]).group;  // a group island's leaves are its group's
            for (const HostPort &p : h.ports)
                if (counted(t.sw(p.sw), p) && t.sw(p.sw).group == home[hi])
                    home_ports[hi]++;
        }
        std::vector<int> on(t.switches.size(), 0), at_home(t.switches.size(), 0);
        for (std::size_t hi = 0; hi < t.hosts.size(); ++hi) {
            std::set<int> leaves;
            for (const HostPort &p : t.hosts[hi].ports)
                if (counted(t.sw(p.sw), p))
                    leaves.insert(p.sw);
            for (int l : leaves) {
                on[static_cast<std::size_t>(l)]++;
                if (t.sw(l).group == home[hi])
                    at_home[static_cast<std::size_t>(l)]++;
            }
        }
        for (std::size_t hi = 0; hi < t.hosts.size(); ++hi) {
            const Host &h = t.hosts[hi];
            // every port off its group, and every leaf of its own (helper
            // 54: four foreign adapters were named as one, two home leaves as one)
            std::vector<std::string> home_leaves, offs;
            for (const HostPort &p : h.ports) {
                const Switch &s = t.sw(p.sw);
                if (!counted(s, p))
                    continue;
                if (s.group == home[hi]) {
                    if (std::find(home_leaves.begin(), home_leaves.end(), s.name) == home_leaves.end())
                        home_leaves.push_back(s.name);
                } else if (2 * at_home[static_cast<std::size_t>(p.sw)] > on[static_cast<std::size_t>(p.sw)]) {
                    offs.push_back((p.hca.empty() ? std::string("an adapter") : p.hca) + " on " + s.name);
                }
            }
            if (offs.empty())
                continue;
            std::string off = offs.size() == 1 ? (offs[0].rfind("an adapter", 0) == 0 ? offs[0] : "adapter " + offs[0])
                                               : "adapters " + offs[0];
            for (std::size_t k = 1; k < offs.size() && k < 4; ++k)
                off += ", " + offs[k];
            if (offs.size() > 4)
                off += ", ...";
            std::string homes;
            for (std::size_t k = 0; k < home_leaves.size() && k < 4; ++k)
                homes += (k ? ", " : "") + home_leaves[k];
            if (home_leaves.size() > 4)
                homes += ", ...";
            add("host-port-other-group", Severity::Warning, h.name,
                off + (offs.size() == 1 ? ", a leaf" : " (" + std::to_string(offs.size()) + "), leaves") +
                    " of another rail group than its other " + std::to_string(home_ports[hi]) + " (" + homes +
                    "): a moved cable, or another node's description naming this host; the host stays in the "
                    "group of most of its ports");
        }
    }
    // HCA-N names counted two ways in one fabric (two images, a replaced
    // host, or roots' made-up names): the hosts counted the other way read
    // one adapter number off, and lose a rail
    if (!t.hca_numbered_otherwise.empty()) {
        const auto &o = t.hca_numbered_otherwise;
        add("hca-numbering", Severity::Warning, o.front(),
            std::string("adapter names HCA-N are read from ") + (t.hca_from_zero ? "0 (HCA-0 the first adapter)" : "1 (HCA-1 the first, as OFED's openibd writes them)") +
                ", as most hosts name them; " + std::to_string(o.size()) +
                (t.hca_from_zero ? " host(s) have no HCA-0: its adapter missing, or their names count "
                                   "from 1 and are read one adapter off: "
                                 : " host(s) have an HCA-0, read as no adapter number: " ) +
                first_of(o) +
                ". Name every host's adapters one way, or by the kernel's names (rdma-ndd's \"%h %d\")");
    }
    for (const Host &h : t.hosts) {
        if (h.compute)
            continue;
        for (const HostPort &p : h.ports)
            if (compute_leaf[static_cast<std::size_t>(p.sw)]) {
                add("non-compute-host", Severity::Warning, h.name,
                    "host with " + std::to_string(h.ports.size()) + " adapter port(s) sits on compute leaf " +
                        t.sw(p.sw).name);
                break;
            }
    }

    // --- host names given as FQDN (those whose short name became a host:
    // one refused, as DEFAULT.x, is no name taken)
    std::vector<std::string> taken;
    for (const std::string &n : t.fqdn_shortened)
        if (t.host_index.count(n.substr(0, n.find('.'))))
            taken.push_back(n);
    if (!taken.empty()) {
        std::vector<std::string> shorts;
        std::string some;
        for (std::size_t i = 0; i < taken.size(); ++i) {
            shorts.push_back(taken[i].substr(0, taken[i].find('.')));
            if (i < 3)
                some += (i ? " " : "") + taken[i];
        }
        add("fqdn-host-names", Severity::Warning, compress_hostlist(shorts),
            "host names given as FQDN (" + some + (taken.size() > 3 ? " ..." : "") +
                "): shortened to match Slurm's node names");
    }
    // two names or more that became one host (a node describing its
    // adapters both ways, or another node's root writing its name)
    for (const auto &kv : t.fqdn_merged) {
        std::string names;
        for (const std::string &n : kv.second)
            names += (names.empty() ? "" : ", ") + n;
        add("fqdn-host-names", Severity::Warning, kv.first,
            "host names " + names + " are one host, " + kv.first +
                ", once shortened: if they are separate nodes, give --node-name-map (or --slurm-nodes naming them "
                "whole)");
    }

    // --- front-end NICs kept out, and hosts whose NICs could not be told apart:
    // one finding per interface, switch and reason, naming the hosts
    std::map<std::tuple<std::string, std::string, double, std::string>, std::vector<std::string>> front;
    for (const FrontEndNic &n : f.frontend)
        front[std::make_tuple(n.iface, n.sw, n.gbps, n.why)].push_back(n.host);
    for (const auto &kv : front) {
        const auto &[iface, sw, gbps, why] = kv.first;
        std::string rate = gbps > 0 ? gbps_name(gbps) + ", " : std::string();
        add("frontend-nic", Severity::Warning, compress_hostlist(kv.second),
            "front-end NIC " + iface + " (" + rate + "to " + sw + "): " + why +
                "; kept out of rails, islands and the plugin's view");
    }
    if (!f.undecided.empty())
        add("undecided-nics", Severity::Warning, compress_hostlist(f.undecided),
            "host interfaces could not be told apart (link speeds unknown and no HOST.node.json, all of one "
            "speed with none slower, or a slower one that runs at full speed on some other hosts and slower on as "
            "many: a rail that came up slow, or another port): a front-end NIC would be taken as a compute rail, so the plugin sets no "
            "device variable there; give --frontend or --compute (HOST.node.json files, atoll-topo node --json, "
            "tell RDMA ports from others and give speeds LLDP lacks)");

    auto subnets = leaf_subnets(t);
    if (subnets.size() > 1) {
        std::string parts;
        for (std::size_t k = 0; k < subnets.size() && k < 4; ++k)
            parts += (k ? "; " : "") + std::to_string(subnets[k].size()) + " leaf island(s) from " +
                     t.islands[static_cast<std::size_t>(subnets[k][0])].name;
        add("disconnected-subnets", Severity::Warning, std::to_string(subnets.size()) + " subnets",
            "the fabric is " + std::to_string(subnets.size()) + " parts no cable between switches joins (" + parts +
                (subnets.size() > 4 ? "; ..." : "") +
                "): merged captures of separate subnets, or a router between them; topology.conf puts no switch above "
                "them, so Slurm places no job across them");
    }

    domain_findings(t, add);

    // hosts whose own health check failed (--health): their islands rank last
    for (const std::string &u : f.unhealthy) {
        std::string host = u.substr(0, u.find(": "));
        if (u.size() >= host.size() + 2 &&
            u.compare(host.size() + 2, std::strlen(kNvlinkNotConfigured), kNvlinkNotConfigured) == 0)
            continue;  // domain_findings said it
        int h = health_host(t.host_index, host);
        if (h < 0)
            add("unhealthy-host", Severity::Warning, escaped(host, 80),
                "atoll-topo health failed on " + escaped(u) + "; no such host in the fabric, so nothing is ranked down");
        else
            add("unhealthy-host", Severity::Warning, t.hosts[static_cast<std::size_t>(h)].name,
                "atoll-topo health failed on " + escaped(u) + "; its islands rank last in placement");
    }

    // identity claims an input made that discovery did not believe
    for (const std::string &c : f.refused_claims)
        add("refused-claim", Severity::Error, c.substr(0, c.find(':')), c);
    // hosts a contest of claims left with nothing believed: out of every Slurm file
    // (a name Slurm's node list lacks is no loss to Slurm: a warning)
    for (const auto &c : t.contested_lost) {
        if (with.slurm_nodes && !with.slurm_nodes->count(c.first)) {
            add("contested-host", Severity::Warning, escaped(c.first, 80),
                "no adapter or link of this host is believed (" + c.second +
                    "); Slurm has no node of this name: atoll-topo slurm --slurm-nodes writes the files without it");
            continue;
        }
        add("contested-host", Severity::Error, escaped(c.first, 80),
            "no adapter or link of this host is believed (" + c.second +
                "): atoll-topo slurm writes no file without it (the site's file stays) until --node-name-map or the "
                "switches' own LLDP tables say who is who");
    }

    if (with.previous)
        identity_findings(*with.previous, t, out);
    if (with.slurm_nodes)
        slurm_findings(t, *with.slurm_nodes, out);

    // a director's ASIC is named for the admin by its chassis and slot
    std::map<std::string, const Switch *> by_name;
    for (const Switch &sw : t.switches)
        if (!sw.chassis.empty())
            by_name[sw.name] = &sw;
    if (!by_name.empty())
        for (Finding &fd : out) {
            auto it = by_name.find(fd.subject.substr(0, fd.subject.find_first_of("[ ")));
            if (it != by_name.end())
                fd.message += " (director " + it->second->chassis + " " + it->second->model + ", slot " + it->second->slot + ")";
        }
    std::sort(out.begin(), out.end(), [](const Finding &a, const Finding &b) {
        return std::tie(a.code, a.subject, a.message) < std::tie(b.code, b.subject, b.message);
    });
    return out;
}

nlohmann::json findings_json(const std::vector<Finding> &fs)
{
    nlohmann::json arr = nlohmann::json::array();
    std::size_t errors = 0;
    for (const Finding &f : fs) {
        errors += f.severity == Severity::Error;
        arr.push_back({{"code", f.code}, {"severity", to_string(f.severity)}, {"subject", f.subject},
                       {"message", f.message}});
    }
    return {{"findings", arr}, {"errors", errors}, {"warnings", fs.size() - errors}};
}

}  // namespace atl
