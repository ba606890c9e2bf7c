#include "topology/slurm.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <istream>
#include <ostream>
#include <map>
#include <set>
#include <tuple>
#include <sstream>
#include <stdexcept>

#include "topology/csv.hpp"
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

// Whether a host gets a line: on a leaf island, and in `only` when given.
bool written(const Host &h, const std::set<std::string> *only)
{
    return h.leaf_island >= 0 && (!only || only->count(h.name));
}

bool k8s_alnum(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool k8s_value_char(char c) { return k8s_alnum(c) || c == '-' || c == '_' || c == '.'; }

}  // namespace

std::vector<TreeSwitch> slurm_tree(const Topology &t)
{
    // Children per island; an island is a switch when it is a leaf island, the
    // root, or has two children or more. Others pass their children up.
    std::vector<std::vector<int>> children(t.islands.size());
    for (std::size_t i = 0; i < t.islands.size(); ++i)
        if (t.islands[i].parent >= 0 && t.islands[i].level != Level::Domain)  // NVLink is not a switch
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
        out.push_back(TreeSwitch{i, {}, ""});
        written.insert(t.islands[static_cast<std::size_t>(i)].name);
    }
    // subnets no cable joins get a root each and none above them: Slurm then
    // places no job across them, as none can run there
    const auto subnets = leaf_subnets(t);
    std::map<int, int> subnet_of;  // switch -> subnet
    for (std::size_t k = 0; k < subnets.size(); ++k)
        for (int li : subnets[k])
            for (int sw : t.islands[static_cast<std::size_t>(li)].leaves)
                subnet_of[sw] = static_cast<int>(k);
    for (Level l : {Level::Group, Level::Pod, Level::Fabric}) {
        if (l == Level::Fabric && subnets.size() > 1) {
            for (int i : t.islands_at(l)) {
                std::map<int, std::vector<int>> by;
                for (int c : shown_children(i)) {
                    const Island &ci = t.islands[static_cast<std::size_t>(c)];
                    auto s = ci.leaves.empty() ? subnet_of.end() : subnet_of.find(ci.leaves[0]);
                    by[s == subnet_of.end() ? -1 : s->second].push_back(c);
                }
                for (auto &kv : by)
                    if (kv.second.size() > 1) {  // a single child is that subnet's top already
                        std::string name = t.islands[static_cast<std::size_t>(i)].name + "-" + std::to_string(kv.first + 1);
                        if (written.insert(name).second)
                            out.push_back(TreeSwitch{i, kv.second, name});
                    }
            }
            continue;
        }
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
            out.push_back(TreeSwitch{i, kids, ""});
            written.insert(is.name);
        }
    }
    return out;
}

std::string slurm_conf_value(std::istream &in, const std::string &key)
{
    auto lower = [](std::string x) {
        std::transform(x.begin(), x.end(), x.begin(), [](unsigned char ch) { return std::tolower(ch); });
        return x;
    };
    const std::string want = lower(key);
    std::string value, line;
    while (std::getline(in, line)) {
        line = line.substr(0, line.find('#'));
        auto eq = line.find('=');
        if (eq == std::string::npos)
            continue;
        std::istringstream k(line.substr(0, eq)), v(line.substr(eq + 1));
        std::string name, val;
        if (!(k >> name) || lower(name) != want)
            continue;
        v >> val;
        value = val;
    }
    return value;
}

std::string directory_of(const std::string &file)
{
    auto slash = file.rfind('/');
    return slash == std::string::npos ? "." : slash == 0 ? "/" : file.substr(0, slash);
}

std::map<std::string, std::string> slurm_conf_words(const std::string &line)
{
    std::map<std::string, std::string> out;
    std::istringstream w(line.substr(0, line.find('#')));
    for (std::string word; w >> word;) {
        auto eq = word.find('=');
        std::string k = word.substr(0, eq);
        std::transform(k.begin(), k.end(), k.begin(), [](unsigned char ch) { return std::tolower(ch); });
        std::string v = eq == std::string::npos ? "" : word.substr(eq + 1);
        if (v.size() >= 2 && v.front() == '"' && v.back() == '"')  // slurm.conf's quoted value
            v = v.substr(1, v.size() - 2);
        out[k] = v;
    }
    return out;
}

std::vector<TopologyYamlEntry> read_topology_yaml(std::istream &in)
{
    std::vector<TopologyYamlEntry> out;
    auto trim = [](std::string x) {
        x = x.substr(0, x.find('#'));
        auto b = x.find_first_not_of(" \t\r");
        auto e = x.find_last_not_of(" \t\r");
        return b == std::string::npos ? std::string() : x.substr(b, e - b + 1);
    };
    auto unquote = [](std::string x) {
        if (x.size() >= 2 && (x.front() == '"' || x.front() == '\'') && x.back() == x.front())
            x = x.substr(1, x.size() - 2);
        return x;
    };
    auto add_size = [&](const std::string &x) {
        char *end = nullptr;
        long v = std::strtol(x.c_str(), &end, 10);
        if (end != x.c_str() && v > 0 && v <= 1000000 && !out.empty())
            out.back().block_sizes.push_back(static_cast<int>(v));
    };
    bool in_sizes = false;
    std::string line;
    while (std::getline(in, line)) {
        std::string l = trim(line);
        if (l.empty() || l == "---")
            continue;
        if (l.rfind("- topology:", 0) == 0) {
            out.push_back({});
            out.back().name = unquote(trim(l.substr(11)));
            in_sizes = false;
            continue;
        }
        if (out.empty())
            continue;
        if (in_sizes && l.rfind("- ", 0) == 0) {
            add_size(trim(l.substr(2)));
            continue;
        }
        in_sizes = false;
        auto colon = l.find(':');
        if (colon == std::string::npos)
            continue;
        std::string key = trim(l.substr(0, colon)), val = trim(l.substr(colon + 1));
        if (key == "cluster_default")
            out.back().cluster_default = val == "true" || val == "yes";
        else if ((key == "tree" || key == "block") && out.back().kind.empty())
            out.back().kind = key;
        else if (key == "flat" && (val == "true" || val == "yes") && out.back().kind.empty())
            out.back().kind = "flat";
        else if (key == "block_sizes") {
            if (val.empty())
                in_sizes = true;
            else {
                std::string list = val;
                for (char &ch : list)
                    if (ch == '[' || ch == ']' || ch == ',')
                        ch = ' ';
                std::istringstream ls(list);
                for (std::string x; ls >> x;)
                    add_size(x);
            }
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
    // (one top per subnet no cable joins: those Slurm must keep apart)
    const std::size_t subnets = std::max<std::size_t>(1, leaf_subnets(t).size());
    std::size_t tops = 0;
    for (const TreeSwitch &sw : tree)
        if (!below.count(sw.island) && ++tops > subnets && tree.size() > 1)
            throw std::logic_error("topology.conf: switch " + t.islands[static_cast<std::size_t>(sw.island)].name +
                                   " would hang under no other switch (atoll's island names clash?)");
    out << "# topology.conf for topology/tree, written by atoll-topo from " << escaped(t.fabric.source) << "\n"
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
        out << "SwitchName=" << (sw.name.empty() ? is.name : sw.name) << " Switches=" << join(names) << "\n";
    }
}

namespace {

// The name of the k-th placeholder block (1-based).
std::string placeholder_name(int k) { return "atoll-placeholder-" + std::to_string(k); }

// The pod (else the fabric: 0) a leaf island's hosts are in.
int block_domain(const Topology &t, int leaf)
{
    const Island &is = t.islands[static_cast<std::size_t>(leaf)];
    if (is.hosts.empty())
        return 0;
    return std::max(0, t.hosts[static_cast<std::size_t>(is.hosts.front())].pod + 1);
}

// Slurm's aggregation (block_record_validate() of 24.11 and 26.05): for each
// level of `sizes` (in blocks, ascending, sizes[0] == 1), the runs of blocks
// it joins. True when every run of every level lies in one domain.
bool aggregates_in_one_domain(const std::vector<int> &domain, const std::vector<long> &sizes)
{
    const long n = static_cast<long>(domain.size());
    for (std::size_t j = 1; j < sizes.size(); ++j) {
        long start = -1;
        for (long i = 0; i < n; ++i) {
            if (i % sizes[j] == 0) {
                long remaining = n - i;
                start = sizes[j] > remaining && sizes[j - 1] >= remaining ? -1 : i;
                continue;
            }
            if (start >= 0 && domain[static_cast<std::size_t>(i)] != domain[static_cast<std::size_t>(start)])
                return false;
        }
    }
    return true;
}

}  // namespace

BlockLayout block_layout(const Topology &t, int base_nodes, bool placeholders)
{
    BlockLayout l;
    std::vector<int> leaves;
    std::vector<std::size_t> sizes;
    // NVLink domains are the base blocks when the fabric has them (the
    // innermost island); each lies in one leaf island, so the order below
    // keeps a pod's domains consecutive
    l.level = t.islands_at(Level::Domain).empty() ? Level::Leaf : Level::Domain;
    for (int i : t.islands_at(l.level))
        if (!t.islands[static_cast<std::size_t>(i)].hosts.empty()) {
            leaves.push_back(i);
            sizes.push_back(t.islands[static_cast<std::size_t>(i)].hosts.size());
        }
    if (leaves.empty())
        throw std::invalid_argument("topology/block: no leaf island holds a host, so there is no block to write");
    auto compute = [&](int leaf) {
        for (int h : t.islands[static_cast<std::size_t>(leaf)].hosts)
            if (t.hosts[static_cast<std::size_t>(h)].compute)
                return true;
        return false;
    };
    std::vector<std::size_t> compute_sizes;
    for (std::size_t k = 0; k < leaves.size(); ++k)
        if (compute(leaves[k]))
            compute_sizes.push_back(sizes[k]);
    std::sort(compute_sizes.begin(), compute_sizes.end());
    std::size_t median = compute_sizes.empty() ? 0 : compute_sizes[compute_sizes.size() / 2];
    auto service = [&](std::size_t k) { return !compute(leaves[k]) || sizes[k] * 2 < median; };
    if (base_nodes > 0)
        l.base = base_nodes;
    else if (placeholders && median > 0)
        l.base = static_cast<int>(median);  // 25.05+: a smaller block is no error
    else if (l.level == Level::Domain && median > 0)
        // a domain short of a tray (or one whose tray's fabric was not
        // Completed) is left out, not made the base: a base of 17 under
        // blocks of 18 lets Slurm spread a 4-node job over two racks
        l.base = static_cast<int>(median);
    else {
        std::size_t smallest = 0;
        for (std::size_t k = 0; k < leaves.size(); ++k)
            if (!service(k) && (smallest == 0 || sizes[k] < smallest))
                smallest = sizes[k];
        if (smallest == 0)  // no compute host anywhere: every leaf counts
            smallest = *std::min_element(sizes.begin(), sizes.end());
        l.base = static_cast<int>(smallest);
    }
    std::vector<std::pair<std::tuple<int, int, std::string>, int>> order;
    for (std::size_t k = 0; k < leaves.size(); ++k) {
        const Island &is = t.islands[static_cast<std::size_t>(leaves[k])];
        bool is_service = base_nodes <= 0 && service(k) && !compute_sizes.empty();
        if (is_service || (!placeholders && sizes[k] < static_cast<std::size_t>(l.base))) {
            l.left_out.push_back(leaves[k]);
            l.why_left_out.push_back(std::to_string(sizes[k]) + (sizes[k] == 1 ? " node" : " nodes") +
                                     (is_service ? ", a service leaf" : ", fewer than " + std::to_string(l.base)));
            continue;
        }
        const Host &first = t.hosts[static_cast<std::size_t>(is.hosts.front())];
        std::string within = l.level == Level::Domain
                                 ? t.islands[static_cast<std::size_t>(first.leaf_island)].name + "/" + is.name
                                 : is.name;
        order.push_back({{block_domain(t, leaves[k]), first.group, within}, leaves[k]});
    }
    if (order.empty())
        throw std::invalid_argument("topology/block: no leaf island holds " + std::to_string(l.base) +
                                    " nodes or more (the base block size), so there is no block to write");
    std::sort(order.begin(), order.end());
    std::vector<int> domain;
    std::map<int, long> per_domain;
    for (const auto &o : order) {
        l.blocks.push_back(o.second);
        domain.push_back(std::get<0>(o.first));
        ++per_domain[domain.back()];
    }
    long widest = 0;
    for (const auto &d : per_domain)
        widest = std::max(widest, d.second);
    if (placeholders && per_domain.size() > 1) {
        // every pod but the last padded to the same power of two, so that
        // each aggregated block up to a pod's lies in one pod
        long run = 1;
        while (run < widest)
            run *= 2;
        std::vector<int> blocks, doms;
        for (std::size_t k = 0; k < l.blocks.size(); ++k) {
            blocks.push_back(l.blocks[k]);
            doms.push_back(domain[k]);
            bool last_of_pod = k + 1 == l.blocks.size() || domain[k + 1] != domain[k];
            if (last_of_pod && k + 1 < l.blocks.size())
                while (static_cast<long>(blocks.size()) % run != 0) {
                    blocks.push_back(-1);
                    doms.push_back(domain[k]);
                    ++l.placeholders;
                }
        }
        l.blocks = blocks;
        domain = doms;
    }
    // levels up to the largest pod, each kept only while no aggregated block
    // of it or a lower level joins two pods
    l.levels.push_back(0);
    std::vector<long> chosen{1};
    for (int k = 1; k <= 15 && (1L << (k - 1)) < widest; ++k) {
        std::vector<long> trial = chosen;
        trial.push_back(1L << k);
        if (aggregates_in_one_domain(domain, trial)) {
            chosen = trial;
            l.levels.push_back(k);
        }
        else
            l.unsound.push_back(k);
    }
    return l;
}

void write_topology_block(std::ostream &out, const Topology &t, const BlockLayout &l)
{
    out << "# topology.conf for topology/block (Slurm >= 23.11), written by atoll-topo from "
        << escaped(t.fabric.source) << "\n"
        << "# " << l.blocks.size() - static_cast<std::size_t>(l.placeholders) << " blocks ("
        << (l.level == Level::Domain ? "NVLink domains" : "leaf islands") << ") of " << l.base
        << (l.placeholders > 0 ? " nodes (the median)" : " nodes or more")
        << ", pod by pod: Slurm joins consecutive blocks into larger ones.\n";
    if (!l.unsound.empty()) {
        out << "# Not in BlockSizes (an aggregated block would join two pods):";
        for (int k : l.unsound)
            out << " " << (static_cast<long>(l.base) << k);
        out << "\n";
    }
    for (std::size_t k = 0; k < l.left_out.size(); ++k)
        out << "# Left out: " << t.islands[static_cast<std::size_t>(l.left_out[k])].name << " ("
            << host_list(t, t.islands[static_cast<std::size_t>(l.left_out[k])].hosts) << ": "
            << l.why_left_out[k] << "); topology/block runs no job on its nodes\n";
    if (l.placeholders > 0)
        out << "# " << l.placeholders << " placeholder block" << (l.placeholders == 1 ? "" : "s")
            << " (no nodes, Slurm 25.05 and later) pad the pods to whole aggregated blocks.\n";
    int pad = 0;
    for (int i : l.blocks) {
        if (i < 0) {
            out << "BlockName=" << placeholder_name(++pad) << "\n";
            continue;
        }
        const Island &is = t.islands[static_cast<std::size_t>(i)];
        out << "BlockName=" << is.name << " Nodes=" << host_list(t, is.hosts) << "\n";
    }
    out << "BlockSizes=";
    for (std::size_t k = 0; k < l.levels.size(); ++k)
        out << (k ? "," : "") << (static_cast<long>(l.base) << l.levels[k]);
    out << "\n";
}

void write_topology_block(std::ostream &out, const Topology &t) { write_topology_block(out, t, block_layout(t)); }

void write_topology_yaml(std::ostream &out, const Topology &t, bool placeholders)
{
    auto q = [](const std::string &v) { return "\"" + v + "\""; };  // names are [A-Za-z0-9._-] (analyse)
    out << "# topology.yaml (Slurm >= 25.05), written by atoll-topo from " << escaped(t.fabric.source) << "\n"
        << "# Partitions pick one: Topology=atoll-tree (the default), atoll-block, atoll-flat.\n"
        << "---\n"
        << "- topology: atoll-tree\n"
        << "  cluster_default: true\n"
        << "  tree:\n"
        << "    switches:\n";
    for (const TreeSwitch &sw : slurm_tree(t)) {
        const Island &is = t.islands[static_cast<std::size_t>(sw.island)];
        out << "      - switch: " << q(sw.name.empty() ? is.name : sw.name) << "\n";
        if (is.level == Level::Leaf) {
            out << "        nodes: " << q(host_list(t, is.hosts)) << "\n";
            continue;
        }
        std::vector<std::string> names;
        for (int k : sw.children)
            names.push_back(t.islands[static_cast<std::size_t>(k)].name);
        out << "        children: " << q(join(names)) << "\n";
    }
    BlockLayout l;
    try {
        l = block_layout(t, 0, placeholders);
    } catch (const std::invalid_argument &e) {
        out << "# no atoll-block: " << e.what() << "\n";
    }
    if (!l.blocks.empty()) {
        out << "- topology: atoll-block\n"
            << "  cluster_default: false\n"
            << "  block:\n"
            << "    block_sizes:\n";
        for (int k : l.levels)
            out << "      - " << (static_cast<long>(l.base) << k) << "\n";
        out << "    blocks:\n";
        int pad = 0;
        for (int i : l.blocks) {
            if (i < 0) {
                out << "      - block: " << q(placeholder_name(++pad)) << "\n";
                continue;
            }
            const Island &is = t.islands[static_cast<std::size_t>(i)];
            out << "      - block: " << q(is.name) << "\n"
                << "        nodes: " << q(host_list(t, is.hosts)) << "\n";
        }
        std::vector<int> rest;
        for (int i : l.left_out)
            rest.insert(rest.end(), t.islands[static_cast<std::size_t>(i)].hosts.begin(),
                        t.islands[static_cast<std::size_t>(i)].hosts.end());
        if (!rest.empty()) {
            std::sort(rest.begin(), rest.end(),
                      [&](int a, int b) { return t.hosts[static_cast<std::size_t>(a)].name < t.hosts[static_cast<std::size_t>(b)].name; });
            out << "# left out of atoll-block (service leaves): " << host_list(t, rest)
                << " -- a partition of them with Topology=atoll-flat\n";
        }
    }
    out << "- topology: atoll-flat\n"
        << "  cluster_default: false\n"
        << "  flat: true\n";
}

int write_topology_updates(std::ostream &out, const Topology &old_t, const Topology &new_t,
                           const std::string &topology_name, bool block)
{
    // the path of switches down to each leaf island of the new tree
    std::map<int, int> parent;
    for (const TreeSwitch &sw : slurm_tree(new_t))
        for (int k : sw.children)
            parent[k] = sw.island;
    auto unit = [&](int leaf) {
        std::string path = new_t.islands[static_cast<std::size_t>(leaf)].name;
        if (block)
            return path;
        int guard = 0;
        for (auto it = parent.find(leaf); it != parent.end() && ++guard < 16; it = parent.find(it->second))
            path = new_t.islands[static_cast<std::size_t>(it->second)].name + ":" + path;
        return path;
    };
    std::map<std::string, std::string> old_leaf;
    for (const Host &h : old_t.hosts)
        if (h.leaf_island >= 0)
            old_leaf[h.name] = old_t.islands[static_cast<std::size_t>(h.leaf_island)].name;
    // A name is moved only on the adapters it had: a node's root can
    // describe its adapters as another node (check --previous: name-moved),
    // and Slurm would then place that node's jobs by the claimant's cables
    std::map<std::uint64_t, std::string> old_owner;  // CA GUID -> host
    for (const Host &h : old_t.hosts)
        for (const HostPort &p : h.ports)
            old_owner[p.ca_guid] = h.name;
    int lines = 0;
    for (const Host &h : new_t.hosts) {
        if (h.leaf_island < 0)
            continue;
        auto it = old_leaf.find(h.name);
        const std::string &now = new_t.islands[static_cast<std::size_t>(h.leaf_island)].name;
        if (it == old_leaf.end() || it->second == now)
            continue;  // not a node of the old fabric, or unchanged
        bool own = false;
        std::string other;
        for (const HostPort &p : h.ports) {
            auto o = old_owner.find(p.ca_guid);
            if (o == old_owner.end())
                continue;
            if (o->second == h.name)
                own = true;
            else if (other.empty())
                other = guid_str(p.ca_guid) + " was " + o->second + "'s";
        }
        if (!own || !other.empty()) {
            out << "# " << escaped(h.name) << " not moved: its adapters are not the ones it had ("
                << escaped(other.empty() ? "none of them is" : other)
                << "): a renamed node or a claim; confirm with atoll-topo check --previous\n";
            continue;
        }
        out << "scontrol update NodeName=" << shell_word(h.name)
            << " " << shell_word("Topology=" + topology_name + ":" + unit(h.leaf_island)) << "\n";
        ++lines;
    }
    return lines;
}

std::vector<std::string> host_features(const Topology &t, int host)
{
    std::vector<std::string> f;
    const Host &h = t.hosts.at(static_cast<std::size_t>(host));
    // every island a request can name is a feature, even a rail group that
    // holds the same hosts as its leaf island (a fabric that is not
    // rail-optimised): --fabric-island=group asks for the grp- name
    for (int i : {h.domain, h.leaf_island, h.group, h.pod})
        if (i >= 0) {
            const std::string &n = t.islands[static_cast<std::size_t>(i)].name;
            if (std::find(f.begin(), f.end(), n) == f.end())
                f.push_back(n);
        }
    return f;
}

std::string k8s_label_value_problem(const std::string &v)
{
    // labelValueFmt "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?", LabelValueMaxLength 63
    if (v.size() > 63)
        return std::to_string(v.size()) + " characters, more than 63";
    for (char c : v)
        if (!k8s_value_char(c))
            return "holds " + shown(std::string(1, c)) + ", not a letter, digit, '-', '_' or '.'";
    if (!v.empty() && !k8s_alnum(v.front()))
        return "begins with " + shown(v.substr(0, 1)) + ", not a letter or digit";
    if (!v.empty() && !k8s_alnum(v.back()))
        return "ends with " + shown(v.substr(v.size() - 1)) + ", not a letter or digit";
    return "";
}

std::string k8s_label_key_problem(const std::string &key)
{
    auto slash = key.find('/');
    std::string name = slash == std::string::npos ? key : key.substr(slash + 1);
    if (slash != std::string::npos) {
        std::string prefix = key.substr(0, slash);
        if (name.find('/') != std::string::npos)
            return "more than one '/'";
        // IsDNS1123Subdomain: at most 253, dot-separated [a-z0-9]([-a-z0-9]*[a-z0-9])?
        if (prefix.empty() || prefix.size() > 253)
            return "prefix of " + std::to_string(prefix.size()) + " characters, expected 1 to 253";
        std::size_t b = 0;
        while (b <= prefix.size()) {
            std::size_t e = std::min(prefix.find('.', b), prefix.size());
            std::string label = prefix.substr(b, e - b);
            bool ok = !label.empty() && std::isalnum(static_cast<unsigned char>(label.front())) &&
                      std::isalnum(static_cast<unsigned char>(label.back()));
            for (char c : label)
                ok = ok && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-');
            if (!ok)
                return "prefix " + shown(prefix) + " is not a lowercase DNS-1123 subdomain";
            b = e + 1;
        }
    }
    if (name.empty())
        return "an empty name";
    return k8s_label_value_problem(name);
}

std::string k8s_label_value(const std::string &name)
{
    if (!name.empty() && k8s_label_value_problem(name).empty())
        return name;
    std::string v;
    for (char c : name)
        if (!v.empty() || k8s_alnum(c))
            v += k8s_value_char(c) ? c : '-';
    v = v.substr(0, 54);
    while (!v.empty() && !k8s_alnum(v.back()))
        v.pop_back();
    if (v.empty())
        return "";
    char hex[9];
    std::snprintf(hex, sizeof hex, "%08llx", static_cast<unsigned long long>(name_guid("k8s-label", name) & 0xffffffffULL));
    return v + "-" + hex;
}

std::vector<K8sLabelChange> write_k8s_labels(std::ostream &out, const Topology &t, const std::set<std::string> *only)
{
    const std::string prefix = "network.topology.nvidia.com/";
    const char *keys[] = {"block", "spine", "datacenter"};
    std::map<std::pair<std::string, std::string>, K8sLabelChange> changes;  // (key, name)
    out << "# Kubernetes node labels (topograph convention), written by atoll-topo from " << escaped(t.fabric.source) << "\n";
    std::map<std::string, const HostDomain *> domains;
    for (const HostDomain &d : t.fabric.domains)
        domains[d.host] = &d;
    for (const Host &h : t.hosts) {
        if (!written(h, only))
            continue;
        out << "kubectl label node " << shell_word(h.name) << " --overwrite";
        // one label: the value as Kubernetes takes it, a change noted; "KEY-"
        // removes the label, so no node keeps one of an earlier fabric
        auto label = [&](const std::string &key, const std::string &name) {
            std::string value = k8s_label_value(name);
            if (value != name) {
                K8sLabelChange &c = changes[{key, name}];
                c.key = key;
                c.name = name;
                c.value = value;
                c.hosts.push_back(h.name);
            }
            out << " " << shell_word(value.empty() ? key + "-" : key + "=" + value);
        };
        int ids[] = {h.leaf_island, h.pod, t.islands_at(Level::Fabric).empty() ? -1 : t.islands_at(Level::Fabric)[0]};
        for (int k = 0; k < 3; ++k)
            if (ids[k] >= 0)
                label(prefix + keys[k], t.islands[static_cast<std::size_t>(ids[k])].name);
        // NVLink domain and rack sub-domain, as topograph labels them
        // (accelerator.topograph.run/); a host without one loses an earlier label
        if (!domains.empty()) {
            auto it = domains.find(h.name);
            label("accelerator.topograph.run/domain", it == domains.end() ? "" : it->second->domain);
            label("accelerator.topograph.run/sub-domain", it == domains.end() ? "" : it->second->subdomain);
        }
        out << "\n";
    }
    std::vector<K8sLabelChange> res;
    for (auto &kv : changes)
        res.push_back(std::move(kv.second));
    return res;
}

void write_features_conf(std::ostream &out, const Topology &t, const std::string &node_params,
                         const std::set<std::string> *only)
{
    out << "# Island node features for slurm.conf, written by atoll-topo from " << escaped(t.fabric.source) << "\n";
    // node_params describe the compute hosts (analyse(): the fabric's usual
    // adapter count); login, storage and UFM hosts get their features alone
    std::map<std::string, std::vector<std::string>> by_features, other;
    for (std::size_t h = 0; h < t.hosts.size(); ++h) {
        if (!written(t.hosts[h], only))
            continue;
        bool params = node_params.empty() || t.hosts[h].compute;
        (params ? by_features : other)[join(host_features(t, static_cast<int>(h)))].push_back(t.hosts[h].name);
    }
    for (const auto &kv : by_features)
        out << "NodeName=" << compress_hostlist(kv.second) << " Features=" << kv.first
            << (node_params.empty() ? "" : " " + node_params) << "\n";
    if (!other.empty())
        out << "# not compute hosts (fewer adapters than most hosts of the fabric): without the node parameters\n";
    for (const auto &kv : other)
        out << "NodeName=" << compress_hostlist(kv.second) << " Features=" << kv.first << "\n";
}

void write_feature_list(std::ostream &out, const Topology &t, const std::set<std::string> *only)
{
    out << "# HOST FEATURES: each host's island features, written by atoll-topo from " << escaped(t.fabric.source) << "\n";
    for (std::size_t h = 0; h < t.hosts.size(); ++h)
        if (written(t.hosts[h], only))
            out << t.hosts[h].name << " " << join(host_features(t, static_cast<int>(h))) << "\n";
}

std::string scontrol_fields(const std::string &line)
{
    // Reason= (and Comment=, Extra=) are free text, the last fields scontrol
    // prints: a drain reason "check NodeName=node007" is no field
    std::string out = line;
    for (const char *k : {" Reason=", " Comment=", " Extra="}) {
        std::size_t at = out.find(k);
        if (at != std::string::npos)
            out.erase(at);
    }
    return out;
}

std::set<std::string> read_slurm_node_names(std::istream &in, const std::string &source)
{
    std::set<std::string> out;
    std::string line, part;
    std::size_t lineno = 0, first = 0;
    bool any = false;
    auto take = [&](const std::string &whole) {
        std::string fields = scontrol_fields(whole);
        // one NodeName= a line: two would leave which one Slurm means unsaid
        std::size_t keys = 0;
        std::istringstream w(fields.substr(0, fields.find('#')));
        for (std::string word; w >> word;) {
            std::string k = word.substr(0, word.find('='));
            std::transform(k.begin(), k.end(), k.begin(), [](unsigned char ch) { return std::tolower(ch); });
            keys += k == "nodename" && word.find('=') != std::string::npos;
        }
        if (keys > 1)
            throw InputError(source, first, "found " + std::to_string(keys) + " NodeName= words on one line, expected one");
        auto words = slurm_conf_words(fields);
        auto it = words.find("nodename");
        if (it == words.end())
            return;
        std::string lower = it->second;
        std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char ch) { return std::tolower(ch); });
        if (lower == "default")
            return;
        // a node name of letters, digits, '-', '_' and '.' (hostlist
        // brackets and commas around them): anything else, or none, is no
        // name Slurm would take, and would only make a "no node" warning lie
        bool bad = it->second.empty() || std::any_of(it->second.begin(), it->second.end(), [](unsigned char ch) {
                       return !(std::isalnum(ch) || ch == '-' || ch == '_' || ch == '.' || ch == '[' || ch == ']' ||
                                ch == ',' || ch == '^');
                   });
        if (bad)
            throw InputError(source, first, "found NodeName=" + escaped(it->second, 80) +
                                                ", expected a hostlist of node names (letters, digits, '-', '_', '.')");
        try {
            for (std::string &n : expand_hostlist(it->second))
                out.insert(std::move(n));
        } catch (const std::invalid_argument &e) {
            throw InputError(source, first, "found NodeName=" + escaped(it->second, 80) + " (" + e.what() +
                                                "), expected a Slurm hostlist");
        }
        any = true;
    };
    while (std::getline(in, part)) {
        ++lineno;
        if (line.empty())
            first = lineno;
        if (!part.empty() && part.back() == '\r')
            part.pop_back();
        // as Slurm's _get_next_line (parse_config.c): each line's comment
        // first, from a '#' after an even run of backslashes (helper 54:
        // "# ... \\" continued into the next NodeName line and hid it),
        std::size_t run_bs = 0;
        for (std::size_t i = 0; i < part.size(); ++i) {
            if (part[i] == '#' && run_bs % 2 == 0) {
                part.erase(i);
                break;
            }
            run_bs = part[i] == '\\' ? run_bs + 1 : 0;
        }
        // then _strip_continuation: an odd run of
        // backslashes at the end (blanks after it allowed) continues the
        // line, the last one cut and the next line joined with no blank
        // between (helper 53: "node[001-008],\" then "node[009-016]" is
        // one hostlist to slurmctld)
        std::size_t end = part.find_last_not_of(" \t");
        std::size_t run = 0;
        while (end != std::string::npos && end >= run && part[end - run] == '\\')
            ++run;
        if (run % 2 == 1) {
            line += part.substr(0, end);
            continue;
        }
        line += part;
        take(line);
        line.clear();
    }
    if (!line.empty())  // a backslash on the last line continues into nothing
        take(line);
    if (!any)
        throw InputError(source + ": found no NodeName= line, expected `scontrol show nodes --oneliner` output or "
                         "a slurm.conf with the NodeName= lines");
    return out;
}

std::vector<std::string> hosts_outside(const Topology &t, const std::set<std::string> &slurm_nodes)
{
    std::vector<std::string> out;
    for (const Host &h : t.hosts)
        if (h.leaf_island >= 0 && !slurm_nodes.count(h.name))
            out.push_back(h.name);
    return out;
}

std::map<std::string, NodeFeatures> parse_scontrol_nodes(std::istream &in, const std::string &source)
{
    std::map<std::string, NodeFeatures> out;
    auto split = [](const std::string &v) {
        std::vector<std::string> feats;
        if (v == "(null)")
            return feats;
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
        return feats;
    };
    std::string line;
    std::size_t lineno = 0;
    while (std::getline(in, line)) {
        ++lineno;
        if (line.find_first_not_of(" \t\r") == std::string::npos)
            continue;
        std::istringstream ss(scontrol_fields(line));
        std::string tok, name;
        bool have_features = false, have_active = false;
        NodeFeatures nf;
        while (ss >> tok) {  // the first of each key: scontrol prints each once
            if (tok.rfind("NodeName=", 0) == 0 && name.empty())
                name = tok.substr(9);
            else if (tok.rfind("AvailableFeatures=", 0) == 0 && !have_features) {
                have_features = true;
                nf.available = split(tok.substr(18));
            } else if (tok.rfind("ActiveFeatures=", 0) == 0 && !have_active) {
                have_active = true;
                nf.active = split(tok.substr(15));
            }
        }
        if (name.empty() || !have_features)
            throw InputError(source, lineno,
                             "found a line without NodeName= and AvailableFeatures=, expected "
                             "`scontrol show node --oneliner` output");
        if (!have_active)
            nf.active = nf.available;  // Slurm prints both; without it, all are active
        out[name] = nf;
    }
    return out;
}

void write_scontrol_updates(std::ostream &out, const Topology &t, const std::map<std::string, NodeFeatures> &current,
                            const Topology *previous, const std::set<std::string> *only)
{
    // Which of a node's features are atoll's: its grp-/pod- ones, and, when
    // the fabric they were written from is given, what atoll wrote for it
    // there. A leaf island is named after its switch, a name a node's root
    // can choose (LLDP): a site feature that equals an island name is never
    // taken for atoll's, and atoll refuses to write that island.
    std::set<std::string> islands, ours;  // island names; grp-/pod- names atoll gives
    for (const Topology *x : {&t, previous})
        if (x)
            for (const Island &is : x->islands) {
                if (x == &t)
                    islands.insert(is.name);
                if (is.name.rfind("grp-", 0) == 0 || is.name.rfind("pod-", 0) == 0)
                    ours.insert(is.name);
            }
    auto written_before = [&](const std::string &host) {
        std::set<std::string> w;
        if (previous) {
            auto it = previous->host_index.find(host);
            if (it != previous->host_index.end())
                for (const auto &f : host_features(*previous, it->second))
                    w.insert(f);
        }
        return w;
    };
    std::map<std::string, std::vector<std::string>> kept, kept_active;  // host -> site features
    std::vector<std::string> clashes;
    for (const auto &kv : current) {
        std::set<std::string> mine = written_before(kv.first);
        auto h = t.host_index.find(kv.first);
        std::set<std::string> now;
        if (h != t.host_index.end())
            for (const auto &f : host_features(t, h->second))
                now.insert(f);
        auto atolls = [&](const std::string &f) { return ours.count(f) > 0 || mine.count(f) > 0; };
        for (const auto &f : kv.second.active)
            if (!atolls(f))
                kept_active[kv.first].push_back(f);
        for (const auto &f : kv.second.available) {
            if (atolls(f))
                continue;
            kept[kv.first].push_back(f);
            // the node's own island under the same name: what atoll would
            // write anyway (a first run over features an older atoll wrote)
            if (islands.count(f) && !now.count(f))
                clashes.push_back(f + " (on " + kv.first + ")");
        }
    }
    if (!clashes.empty()) {
        std::string list;
        for (std::size_t i = 0; i < clashes.size() && i < 5; ++i)
            list += (i ? ", " : "") + clashes[i];
        throw InputError(t.fabric.source + ": island name" + (clashes.size() > 1 ? "s " : " ") + list +
                         (clashes.size() > 5 ? " and " + std::to_string(clashes.size() - 5) + " more" : std::string()) +
                         " equal features of nodes outside that island: a site feature, or one atoll wrote for an "
                         "earlier fabric; nothing written. Give that fabric with --previous FABRIC.json, or rename "
                         "the switch (a leaf island is named after its switch, which LLDP lets a node's root name)");
    }
    for (std::size_t h = 0; h < t.hosts.size(); ++h) {
        const Host &host = t.hosts[h];
        if (!written(host, only))
            continue;
        std::vector<std::string> feats, active;
        if (!current.empty()) {
            auto it = current.find(host.name);
            if (it == current.end())
                continue;  // not a Slurm node
            feats = kept[host.name];
            active = kept_active[host.name];
        }
        for (const auto &f : host_features(t, static_cast<int>(h))) {
            if (std::find(feats.begin(), feats.end(), f) == feats.end())
                feats.push_back(f);
            if (std::find(active.begin(), active.end(), f) == active.end())
                active.push_back(f);  // an island is where the node is: always active
        }
        out << "scontrol update " << shell_word("NodeName=" + host.name) << " "
            << shell_word("AvailableFeatures=" + join(feats)) << " " << shell_word("ActiveFeatures=" + join(active)) << "\n";
    }
}

}  // namespace atl
