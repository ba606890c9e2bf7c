#include "topology/dot.hpp"

#include <map>
#include <ostream>
#include <set>

#include "topology/check.hpp"

namespace atl {
namespace {

std::string q(const std::string &s)
{
    std::string out = "\"";
    for (char c : s) {
        if (c == '"')
            out += '\\';  // labels keep their \n line breaks
        out += c;
    }
    return out + "\"";
}

}  // namespace

void write_dot(std::ostream &out, const Topology &t, const DotOptions &opt)
{
    auto reasons = degraded_reasons(t);
    out << "graph fabric {\n"
        << "  label=" << q(t.fabric.source) << ";\n"
        << "  rankdir=TB; splines=false; node [shape=box, style=filled, fillcolor=white, fontsize=10];\n";
    // clusters: pod > group > leaf switches
    std::map<int, std::vector<int>> pod_groups;
    for (int g : t.islands_at(Level::Group))
        pod_groups[t.islands[static_cast<std::size_t>(g)].parent].push_back(g);
    std::set<int> placed;
    for (const auto &kv : pod_groups) {
        bool pod_cluster = kv.first >= 0 && t.islands_at(Level::Pod).size() > 1;
        if (pod_cluster)
            out << "  subgraph " << q("cluster_" + t.islands[static_cast<std::size_t>(kv.first)].name) << " {\n    label="
                << q(t.islands[static_cast<std::size_t>(kv.first)].name) << "; style=dashed;\n";
        for (int g : kv.second) {
            const Island &gi = t.islands[static_cast<std::size_t>(g)];
            out << "    subgraph " << q("cluster_" + gi.name) << " {\n      label="
                << q(gi.name + " (" + std::to_string(gi.hosts.size()) + " hosts)") << "; style=rounded;\n";
            for (int l : gi.leaves) {
                const Switch &s = t.sw(l);
                std::string label = s.chassis.empty() ? s.name : s.chassis + " " + s.slot;
                out << "      " << q(s.name) << " [label=" << q(label + (s.rail >= 0 ? "\\nrail " + t.rails[static_cast<std::size_t>(s.rail)] : "") +
                                                              "\\n" + std::to_string(s.host_ports) + " host ports")
                    << ", fillcolor=" << (s.sharp ? "palegreen" : "lightyellow") << "];\n";
                placed.insert(l);
            }
            if (opt.hosts) {
                // an NVLink domain's hosts as a dotted cluster inside the group
                std::map<int, std::vector<int>> by_domain;  // domain island (-1 none) -> hosts
                for (int h : gi.hosts)
                    by_domain[t.hosts[static_cast<std::size_t>(h)].domain].push_back(h);
                for (const auto &dk : by_domain) {
                    const bool dom = dk.first >= 0;
                    if (dom) {
                        const Island &di = t.islands[static_cast<std::size_t>(dk.first)];
                        out << "      subgraph " << q("cluster_" + di.name + "_" + gi.name) << " {\n        label="
                            << q(di.name + " (NVLink, " + std::to_string(di.hosts.size()) + " hosts)")
                            << "; style=dotted;\n";
                    }
                    for (int h : dk.second)
                        out << (dom ? "        " : "      ") << q(t.hosts[static_cast<std::size_t>(h)].name)
                            << " [shape=ellipse];\n";
                    if (dom)
                        out << "      }\n";
                }
            }
            out << "    }\n";
        }
        if (pod_cluster)
            out << "  }\n";
    }
    // ranks: one per tier, cores on top
    std::map<int, std::vector<int>> tiers;
    for (std::size_t i = 0; i < t.switches.size(); ++i)
        tiers[t.switches[i].tier].push_back(static_cast<int>(i));
    for (const auto &kv : tiers) {
        if (kv.first == 0)
            continue;
        out << "  { rank=same;";
        for (int i : kv.second)
            out << " " << q(t.sw(i).name);
        out << " }\n";
        for (int i : kv.second)
            if (!placed.count(i))
                out << "  " << q(t.sw(i).name) << " ["
                    << (t.sw(i).chassis.empty() ? std::string() : "label=" + q(t.sw(i).chassis + " " + t.sw(i).slot) + ", ")
                    << "fillcolor=" << (t.sw(i).sharp ? "palegreen" : "lightblue") << "];\n";
    }
    // edges: switch pairs, upper tier first so dot ranks cores above leaves
    std::map<std::pair<int, int>, std::pair<int, bool>> pairs;  // -> (cables, any degraded)
    for (std::size_t li = 0; li < t.fabric.links.size(); ++li) {
        const Link &l = t.fabric.links[li];
        auto a = t.switch_index.find(l.a.guid), b = t.switch_index.find(l.b.guid);
        if (a == t.switch_index.end() || b == t.switch_index.end() || a->second == b->second)
            continue;
        int x = a->second, y = b->second;
        if (t.sw(x).tier < t.sw(y).tier || (t.sw(x).tier == t.sw(y).tier && x > y))
            std::swap(x, y);
        auto &p = pairs[{x, y}];
        p.first++;
        p.second = p.second || !reasons[li].empty();
    }
    for (const auto &kv : pairs) {
        out << "  " << q(t.sw(kv.first.first).name) << " -- " << q(t.sw(kv.first.second).name);
        std::string attrs;
        if (kv.second.first > 1)
            attrs += "label=\"x" + std::to_string(kv.second.first) + "\", penwidth=" +
                     std::to_string(1 + kv.second.first / 4);
        if (kv.second.second)
            attrs += std::string(attrs.empty() ? "" : ", ") + "color=red, fontcolor=red";
        if (!attrs.empty())
            out << " [" << attrs << "]";
        out << ";\n";
    }
    if (opt.hosts)
        for (const Host &h : t.hosts)
            for (const HostPort &p : h.ports)
                out << "  " << q(t.sw(p.sw).name) << " -- " << q(h.name)
                    << (reasons[p.link].empty() ? "" : " [color=red]") << ";\n";
    out << "}\n";
}

}  // namespace atl
