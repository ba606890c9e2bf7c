#include "topology/diff.hpp"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <tuple>

#include "topology/check.hpp"
#include "topology/slurm.hpp"

namespace atl {
namespace {

// A node's stable name: the switch name, the host name, or the GUID; the
// adapters' names indexed once (a scan of every host per changed link was
// quadratic on a fabric that changed much)
struct Names {
    const Topology &t;
    std::map<std::uint64_t, std::string> ca;
    explicit Names(const Topology &top) : t(top)
    {
        for (const Host &h : t.hosts)
            for (const HostPort &p : h.ports)
                ca.emplace(p.ca_guid, h.name + " " + p.hca);
    }
    std::string node(std::uint64_t guid) const
    {
        auto s = t.switch_index.find(guid);
        if (s != t.switch_index.end())
            return t.sw(s->second).name;
        auto c = ca.find(guid);
        return c != ca.end() ? c->second : guid_str(guid);
    }
    std::string end(const LinkEnd &e) const { return node(e.guid) + "[" + std::to_string(e.port) + "]"; }
};

std::string speed_name(const Link &l)
{
    return rate_name(l.width, l.speed);
}

// island name per host at every level, host by host
std::map<std::string, std::string> membership(const Topology &t)
{
    std::map<std::string, std::string> m;
    for (const Host &h : t.hosts) {
        std::string v;
        for (int i : {h.leaf_island, h.group, h.pod})
            v += (i >= 0 ? t.islands[static_cast<std::size_t>(i)].name : "-") + " ";
        m[h.name] = v;
    }
    return m;
}

// leaf islands with a degraded link on one of their leaf switches
std::set<std::string> unhealthy_islands(const Topology &t)
{
    std::set<std::string> out;
    for (int i : degraded_leaf_islands(t))
        out.insert(t.islands[static_cast<std::size_t>(i)].name);
    return out;
}

std::string tree_text(const Topology &t)
{
    std::ostringstream o;
    write_topology_tree(o, t);
    std::string s = o.str(), out;
    std::istringstream in(s);
    std::string line;
    while (std::getline(in, line))
        if (line.empty() || line[0] != '#')  // the header names the source
            out += line + "\n";
    return out;
}

}  // namespace

FabricDiff diff_fabrics(const Topology &a, const Topology &b)
{
    FabricDiff d;
    auto add = [&](const std::string &k, const std::string &s, const std::string &det) {
        d.changes.push_back({k, s, det});
    };
    // switches and hosts
    for (const Switch &s : a.switches)
        if (!b.switch_index.count(s.guid))
            add("switch-removed", s.name, guid_str(s.guid));
    for (const Switch &s : b.switches)
        if (!a.switch_index.count(s.guid))
            add("switch-added", s.name, guid_str(s.guid));
    for (const Host &h : a.hosts)
        if (!b.host_index.count(h.name))
            add("host-removed", h.name, std::to_string(h.ports.size()) + " ports");
    for (const Host &h : b.hosts)
        if (!a.host_index.count(h.name))
            add("host-added", h.name, std::to_string(h.ports.size()) + " ports");
    // links by their two ends
    using Key = std::tuple<std::uint64_t, int, std::uint64_t, int>;
    auto index = [](const Fabric &f) {
        std::map<Key, const Link *> m;
        for (const Link &l : f.links)
            m[Key{l.a.guid, l.a.port, l.b.guid, l.b.port}] = &l;
        return m;
    };
    auto la = index(a.fabric), lb = index(b.fabric);
    const Names na(a), nb(b);
    for (const auto &kv : la) {
        auto it = lb.find(kv.first);
        if (it == lb.end())
            add("link-down", na.end(kv.second->a) + " - " + na.end(kv.second->b), speed_name(*kv.second));
        else if (it->second->width != kv.second->width || it->second->speed != kv.second->speed)
            add("link-speed", nb.end(it->second->a) + " - " + nb.end(it->second->b),
                speed_name(*kv.second) + " -> " + speed_name(*it->second));
    }
    for (const auto &kv : lb)
        if (!la.count(kv.first))
            add("link-up", nb.end(kv.second->a) + " - " + nb.end(kv.second->b), speed_name(*kv.second));
    // what scheduling sees: islands per host, topology.conf
    auto ma = membership(a), mb = membership(b);
    int moved = 0;
    for (const auto &kv : ma) {
        auto it = mb.find(kv.first);
        if (it != mb.end() && it->second != kv.second) {
            add("host-moved", kv.first, kv.second + "-> " + it->second);
            ++moved;
        }
    }
    bool islands_differ = moved > 0 || ma.size() != mb.size();
    if (islands_differ)
        add("islands", "fabric", std::to_string(moved) + " hosts in other islands, " +
                                     std::to_string(static_cast<long>(mb.size()) - static_cast<long>(ma.size())) +
                                     " hosts more");
    auto ha = unhealthy_islands(a), hb = unhealthy_islands(b);
    for (const auto &n : hb)
        if (!ha.count(n))
            add("island-degraded", n, "a leaf of it has a degraded link: placed last from now on");
    for (const auto &n : ha)
        if (!hb.count(n))
            add("island-healthy", n, "no degraded link left on its leaves");
    bool tree_differs = tree_text(a) != tree_text(b);
    if (tree_differs)
        add("topology-conf", "topology.conf", "the topology/tree file changes");
    d.scheduling = islands_differ || tree_differs || ha != hb;
    std::sort(d.changes.begin(), d.changes.end(), [](const FabricChange &x, const FabricChange &y) {
        return std::tie(x.kind, x.subject) < std::tie(y.kind, y.subject);
    });
    return d;
}

nlohmann::json diff_json(const FabricDiff &d)
{
    nlohmann::json arr = nlohmann::json::array();
    for (const auto &c : d.changes)
        arr.push_back({{"kind", c.kind}, {"subject", c.subject}, {"detail", c.detail}});
    return {{"scheduling_changed", d.scheduling}, {"changes", arr}};
}

}  // namespace atl
