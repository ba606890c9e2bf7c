#include "topology/slurm.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <functional>
#include <istream>
#include <ostream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "topology/hostlist.hpp"

namespace atl {
namespace {

std::string host_list(const Topology &t, const std::vector<int> &hosts)
{
    std::vector<std::string> names;
    for (int h : hosts)
        names.push_back(t.hosts[static_cast<std::size_t>(h)].name);
    return compress_hostlist(names);
}

std::string join(const std::vector<std::string> &v, const char *sep = ",")
{
    std::string out;
    for (const auto &s : v)
        out += (out.empty() ? "" : sep) + s;
    return out;
}

// One word for sh: as it is when it holds nothing a shell would act on, else
// in single quotes. Names are checked when read (host_name_problem); features
// kept from `scontrol show node` are the site's own and may hold anything.
std::string shell_word(const std::string &s)
{
    bool plain = !s.empty();
    for (char c : s)
        plain = plain && (std::isalnum(static_cast<unsigned char>(c)) || std::strchr("-_.,:/=@%+", c));
    if (plain)
        return s;
    std::string out = "'";
    for (char c : s)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

}  // namespace

std::vector<TreeSwitch> slurm_tree(const Topology &t)
{
    // Children per island; an island is a switch when it is a leaf island, the
    // root, or has two children or more. Others pass their children up.
    std::vector<std::vector<int>> children(t.islands.size());
    for (std::size_t i = 0; i < t.islands.size(); ++i)
        if (t.islands[i].parent >= 0)
            children[static_cast<std::size_t>(t.islands[i].parent)].push_back(static_cast<int>(i));
    std::function<std::vector<int>(int)> shown_children = [&](int i) {
        std::vector<int> res;
        for (int c : children[static_cast<std::size_t>(i)]) {
            const Island &ci = t.islands[static_cast<std::size_t>(c)];
            if (ci.level == Level::Leaf || children[static_cast<std::size_t>(c)].size() > 1)
                res.push_back(c);
            else {
                auto sub = shown_children(c);
                res.insert(res.end(), sub.begin(), sub.end());
            }
        }
        return res;
    };
    std::vector<TreeSwitch> out;
    std::set<std::string> written;
    for (int i : t.islands_at(Level::Leaf)) {
        out.push_back(TreeSwitch{i, {}});
        written.insert(t.islands[static_cast<std::size_t>(i)].name);
    }
    for (Level l : {Level::Group, Level::Pod, Level::Fabric}) {
        for (int i : t.islands_at(l)) {
            const Island &is = t.islands[static_cast<std::size_t>(i)];
            auto kids = shown_children(i);
            bool root = is.parent < 0;
            if (!root && children[static_cast<std::size_t>(i)].size() < 2)
                continue;
            if (root && kids.size() < 2)
                continue;  // a single child is the top already
            if (written.count(is.name))
                continue;
            out.push_back(TreeSwitch{i, kids});
            written.insert(is.name);
        }
    }
    return out;
}

void write_topology_tree(std::ostream &out, const Topology &t)
{
    // every switch written hangs under one written above it, but the top:
    // Slurm would otherwise take the tree apart into islands it never joins
    std::vector<TreeSwitch> tree = slurm_tree(t);
    std::set<int> below;
    for (const TreeSwitch &sw : tree)
        below.insert(sw.children.begin(), sw.children.end());
    std::size_t tops = 0;
    for (const TreeSwitch &sw : tree)
        if (!below.count(sw.island) && ++tops > 1 && tree.size() > 1)
            throw std::logic_error("topology.conf: switch " + t.islands[static_cast<std::size_t>(sw.island)].name +
                                   " would hang under no other switch (atoll's island names clash?)");
    out << "# topology.conf for topology/tree, written by atoll-topo from " << t.fabric.source << "\n"
        << "# " << t.switches.size() << " switches, " << t.hosts.size() << " hosts; leaf switches hold the"
        << " nodes, atoll islands (grp-*, pod-*, fabric) stand above them.\n";
    for (const TreeSwitch &sw : tree) {
        const Island &is = t.islands[static_cast<std::size_t>(sw.island)];
        if (is.level == Level::Leaf) {
            out << "SwitchName=" << is.name << " Nodes=" << host_list(t, is.hosts) << "\n";
            continue;
        }
        std::vector<std::string> names;
        for (int k : sw.children)
            names.push_back(t.islands[static_cast<std::size_t>(k)].name);
        out << "SwitchName=" << is.name << " Switches=" << join(names) << "\n";
    }
}

void write_topology_block(std::ostream &out, const Topology &t)
{
    out << "# topology.conf for topology/block (Slurm >= 23.11), written by atoll-topo from "
        << t.fabric.source << "\n";
    for (int i : t.islands_at(Level::Leaf)) {
        const Island &is = t.islands[static_cast<std::size_t>(i)];
        out << "BlockName=" << is.name << " Nodes=" << host_list(t, is.hosts) << "\n";
    }
}

std::vector<std::string> host_features(const Topology &t, int host)
{
    std::vector<std::string> f;
    const Host &h = t.hosts.at(static_cast<std::size_t>(host));
    for (int i : {h.leaf_island, h.group, h.pod})
        if (i >= 0) {
            // a level that holds the same hosts as the one below adds nothing
            const Island &is = t.islands[static_cast<std::size_t>(i)];
            if (i != h.leaf_island && is.hosts == t.islands[static_cast<std::size_t>(h.leaf_island)].hosts &&
                is.level == Level::Group)
                continue;
            const std::string &n = t.islands[static_cast<std::size_t>(i)].name;
            if (std::find(f.begin(), f.end(), n) == f.end())
                f.push_back(n);
        }
    return f;
}

bool atoll_feature(const Topology &t, const std::string &feature)
{
    if (feature.rfind("grp-", 0) == 0 || feature.rfind("pod-", 0) == 0)
        return true;
    for (const Island &is : t.islands)
        if (is.name == feature)
            return true;
    for (const Switch &s : t.switches)
        if (s.name == feature)
            return true;
    return false;
}

void write_k8s_labels(std::ostream &out, const Topology &t)
{
    out << "# Kubernetes node labels (topograph convention), written by atoll-topo from " << t.fabric.source << "\n";
    for (const Host &h : t.hosts) {
        if (h.leaf_island < 0)
            continue;
        out << "kubectl label node " << shell_word(h.name) << " --overwrite";
        const char *keys[] = {"block", "spine", "datacenter"};
        int ids[] = {h.leaf_island, h.pod, t.islands_at(Level::Fabric).empty() ? -1 : t.islands_at(Level::Fabric)[0]};
        for (int k = 0; k < 3; ++k)
            if (ids[k] >= 0)
                out << " " << shell_word(std::string("network.topology.nvidia.com/") + keys[k] + "=" +
                                         t.islands[static_cast<std::size_t>(ids[k])].name);
        out << "\n";
    }
}

void write_features_conf(std::ostream &out, const Topology &t, const std::string &node_params)
{
    out << "# Island node features for slurm.conf, written by atoll-topo from " << t.fabric.source << "\n";
    std::map<std::string, std::vector<std::string>> by_features;
    for (std::size_t h = 0; h < t.hosts.size(); ++h) {
        if (t.hosts[h].leaf_island < 0)
            continue;
        by_features[join(host_features(t, static_cast<int>(h)))].push_back(t.hosts[h].name);
    }
    for (const auto &kv : by_features)
        out << "NodeName=" << compress_hostlist(kv.second) << " Features=" << kv.first
            << (node_params.empty() ? "" : " " + node_params) << "\n";
}

std::map<std::string, std::vector<std::string>> parse_scontrol_nodes(std::istream &in,
                                                                     const std::string &source)
{
    std::map<std::string, std::vector<std::string>> out;
    std::string line;
    std::size_t lineno = 0;
    while (std::getline(in, line)) {
        ++lineno;
        if (line.find_first_not_of(" \t\r") == std::string::npos)
            continue;
        std::istringstream ss(line);
        std::string tok, name;
        bool have_features = false;
        std::vector<std::string> feats;
        while (ss >> tok) {
            if (tok.rfind("NodeName=", 0) == 0)
                name = tok.substr(9);
            else if (tok.rfind("AvailableFeatures=", 0) == 0) {
                have_features = true;
                std::string v = tok.substr(18);
                if (v != "(null)") {
                    std::size_t p = 0;
                    while (p <= v.size()) {
                        std::size_t q = v.find(',', p);
                        std::string f = v.substr(p, q == std::string::npos ? std::string::npos : q - p);
                        if (!f.empty())
                            feats.push_back(f);
                        if (q == std::string::npos)
                            break;
                        p = q + 1;
                    }
                }
            }
        }
        if (name.empty() || !have_features)
            throw InputError(source, lineno,
                             "found a line without NodeName= and AvailableFeatures=, expected "
                             "`scontrol show node --oneliner` output");
        out[name] = feats;
    }
    return out;
}

void write_scontrol_updates(std::ostream &out, const Topology &t,
                            const std::map<std::string, std::vector<std::string>> &current)
{
    for (std::size_t h = 0; h < t.hosts.size(); ++h) {
        const Host &host = t.hosts[h];
        if (host.leaf_island < 0)
            continue;
        std::vector<std::string> feats;
        if (!current.empty()) {
            auto it = current.find(host.name);
            if (it == current.end())
                continue;  // not a Slurm node
            for (const auto &f : it->second)
                if (!atoll_feature(t, f))
                    feats.push_back(f);
        }
        for (const auto &f : host_features(t, static_cast<int>(h)))
            feats.push_back(f);
        std::string fl = join(feats);
        out << "scontrol update " << shell_word("NodeName=" + host.name) << " "
            << shell_word("AvailableFeatures=" + fl) << " " << shell_word("ActiveFeatures=" + fl) << "\n";
    }
}

}  // namespace atl
