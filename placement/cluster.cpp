#include "placement/cluster.hpp"

#include <algorithm>
#include <atomic>
#include <set>
#include <deque>
#include <limits>
#include <map>
#include <stdexcept>
#include <ostream>
#include <tuple>

#include "topology/check.hpp"
#include "topology/nodehealth.hpp"
#include "topology/slurm.hpp"
#include "topology/tally.hpp"

namespace atl {

const char *to_string(FabricKind k)
{
    switch (k) {
    case FabricKind::InfiniBand: return "infiniband";
    case FabricKind::RoCE: return "roce";
    case FabricKind::Cloud: return "cloud";
    }
    return "?";
}

bool fabric_kind_from_string(const std::string &s, FabricKind &out)
{
    if (s == "infiniband" || s == "ib")
        out = FabricKind::InfiniBand;
    else if (s == "roce" || s == "ethernet")
        out = FabricKind::RoCE;
    else if (s == "cloud")
        out = FabricKind::Cloud;
    else
        return false;
    return true;
}

namespace {

// Hop distances from a set of sources over an adjacency list.
std::vector<int> bfs(const std::vector<std::vector<int>> &adj, const std::vector<int> &sources)
{
    std::vector<int> d(adj.size(), std::numeric_limits<int>::max());
    std::deque<int> q;
    for (int s : sources) {
        d[static_cast<std::size_t>(s)] = 0;
        q.push_back(s);
    }
    while (!q.empty()) {
        int v = q.front();
        q.pop_front();
        for (int w : adj[static_cast<std::size_t>(v)])
            if (d[static_cast<std::size_t>(w)] == std::numeric_limits<int>::max()) {
                d[static_cast<std::size_t>(w)] = d[static_cast<std::size_t>(v)] + 1;
                q.push_back(w);
            }
    }
    return d;
}

}  // namespace

namespace {

// m[n]: the fewest of these leaf capacities that hold n hosts, where that
// is fewer than m[n] holds already (0: none yet); the largest first
void fewest_leaves(std::vector<int> caps, std::vector<int> &m)
{
    std::sort(caps.rbegin(), caps.rend());
    const int top = static_cast<int>(m.size()) - 1;
    int got = 0, used = 0;
    for (int cap : caps) {
        ++used;
        for (int n = got + 1; n <= got + cap && n <= top; ++n) {
            int &best = m[static_cast<std::size_t>(n)];
            if (best == 0 || used < best)
                best = used;
        }
        got += cap;
    }
}

}  // namespace

Cluster::Cluster(const Topology &t, FabricKind kind) : kind_(kind), source_(t.fabric.source)
{
    rails_ = static_cast<int>(t.rails.size());
    std::size_t H = t.hosts.size(), I = t.islands.size();
    subnet_.assign(I, 0);
    {
        auto parts = leaf_subnets(t);
        subnets_ = std::max<int>(1, static_cast<int>(parts.size()));
        for (std::size_t k = 0; k < parts.size(); ++k)
            for (int li : parts[k])
                subnet_[static_cast<std::size_t>(li)] = static_cast<int>(k);
    }
    names_.reserve(H);
    leaf_of_.assign(H, -1);
    island_of_.assign(H, {-1, -1, -1, -1, -1});
    for (std::size_t h = 0; h < H; ++h) {
        const Host &host = t.hosts[h];
        names_.push_back(host.name);
        if (host.compute && host.leaf_island >= 0) {
            leaf_of_[h] = host.leaf_island;
            ++pool_;
            // a domain may lie above its hosts' leaf islands (one spanning
            // leaves hangs under their group or pod): the network chain from
            // the leaf island, the domain beside it
            for (int i = host.leaf_island; i >= 0; i = t.islands[static_cast<std::size_t>(i)].parent)
                island_of_[h][static_cast<std::size_t>(t.islands[static_cast<std::size_t>(i)].level)] = i;
            island_of_[h][static_cast<std::size_t>(Level::Domain)] = host.domain;
        }
    }
    islands_.resize(I);
    for (std::size_t i = 0; i < I; ++i) {
        const Island &src = t.islands[i];
        PlaceIsland &dst = islands_[i];
        dst.level = src.level;
        dst.name = src.name;
        dst.parent = src.parent;
        for (int h : src.hosts)
            if (in_pool(h))
                dst.hosts.push_back(h);
        if (src.parent >= 0)
            islands_[static_cast<std::size_t>(src.parent)].children.push_back(static_cast<int>(i));
        else
            root_ = static_cast<int>(i);
        by_level_[static_cast<std::size_t>(src.level)].push_back(static_cast<int>(i));
    }
    const auto &leaf_level = by_level_[static_cast<std::size_t>(Level::Leaf)];
    for (int l : leaf_level)
        for (int i = l; i >= 0; i = islands_[static_cast<std::size_t>(i)].parent)
            islands_[static_cast<std::size_t>(i)].leaf_islands.push_back(l);
    for (int d : by_level_[static_cast<std::size_t>(Level::Domain)]) {  // the leaf islands its hosts are on
        std::set<int> on;
        for (int h : t.islands[static_cast<std::size_t>(d)].hosts)
            if (t.hosts[static_cast<std::size_t>(h)].leaf_island >= 0)
                on.insert(t.hosts[static_cast<std::size_t>(h)].leaf_island);
        islands_[static_cast<std::size_t>(d)].leaf_islands.assign(on.begin(), on.end());
    }
    // the largest part of one NVLink domain on each leaf island (the step
    // model's best placement looks for it)
    leaf_domain_max_.assign(I, 0);
    for (int d : by_level_[static_cast<std::size_t>(Level::Domain)]) {
        std::map<int, int> on;
        for (int h : islands_[static_cast<std::size_t>(d)].hosts)
            ++on[leaf_of_[static_cast<std::size_t>(h)]];
        for (const auto &lk : on)
            leaf_domain_max_[static_cast<std::size_t>(lk.first)] =
                std::max(leaf_domain_max_[static_cast<std::size_t>(lk.first)], lk.second);
    }

    // Health: a degraded link on a leaf switch makes its leaf islands, and the
    // islands above them, unhealthy.
    std::vector<int> sick = degraded_leaf_islands(t);
    // and a host whose own health check failed (atoll-topo health, --health)
    for (const std::string &u : t.fabric.unhealthy) {
        int h = health_host(t.host_index, u.substr(0, u.find(": ")));
        if (h >= 0 && t.hosts[static_cast<std::size_t>(h)].leaf_island >= 0)
            sick.push_back(t.hosts[static_cast<std::size_t>(h)].leaf_island);
    }
    for (int l : sick)
        for (int i = l; i >= 0; i = islands_[static_cast<std::size_t>(i)].parent)
            islands_[static_cast<std::size_t>(i)].healthy = false;

    // Bandwidth: a host's links, each leaf's uplinks, the spines' uplinks.
    // A ratio is of bandwidth when every cable it counts has a known speed
    // and width, else of cables: a fabric that does not say its speeds still
    // says how many uplinks a leaf has
    std::vector<double> host_bw(H, 0), leaf_down(t.switches.size(), 0), up(t.switches.size(), 0),
        down(t.switches.size(), 0);
    std::vector<int> leaf_down_n(t.switches.size(), 0), up_n(t.switches.size(), 0), down_n(t.switches.size(), 0);
    std::vector<char> unknown(t.switches.size(), 0);
    host_nics_.assign(H, 0);
    for (std::size_t h = 0; h < H; ++h) {
        bool known = true;  // a host with a link of unknown speed: unknown
        double slowest = 0;
        for (const HostPort &p : t.hosts[h].ports) {
            double g = t.fabric.links[p.link].gbps();
            slowest = slowest > 0 ? std::min(slowest, g) : g;
            leaf_down[static_cast<std::size_t>(p.sw)] += g;
            ++leaf_down_n[static_cast<std::size_t>(p.sw)];
            if (!(g > 0)) {
                unknown[static_cast<std::size_t>(p.sw)] = 1;
                known = false;
            }
        }
        // NCCL splits a collective evenly over its channels, a NIC each, so
        // the slowest NIC sets the pace of all: ports x the slowest, not
        // their sum (one rail at 1x is not 1/8 off but the whole node's pace)
        host_nics_[h] = static_cast<int>(t.hosts[h].ports.size());
        host_bw[h] = known ? slowest * static_cast<double>(t.hosts[h].ports.size()) : 0;
    }
    auto edges = boost::edges(t.graph);
    for (auto it = edges.first; it != edges.second; ++it) {
        auto a = boost::source(*it, t.graph), b = boost::target(*it, t.graph);
        if (t.switches[a].tier > t.switches[b].tier)
            std::swap(a, b);
        if (t.switches[a].tier < t.switches[b].tier) {
            const SwitchEdge &e = t.graph[*it];
            up[a] += e.gbps;
            down[b] += e.gbps;
            up_n[a] += e.multiplicity;
            down_n[b] += e.multiplicity;
            if (!(e.gbps > 0)) {
                unknown[a] = 1;
                unknown[b] = 1;
            }
        }
    }
    // cables are counted only where they are real: an InfiniBand or LLDP
    // fabric; a CSV's or a cloud API's links are made up (one per leaf and
    // level), so their ratio is of nothing (a helper's attack: AWS read 8:1)
    const bool real_cables = t.fabric.kind.empty() || t.fabric.kind == "ib" || t.fabric.kind == "roce";
    auto ratio = [real_cables](double d, double u, int dn, int un, bool by_count) {
        if (by_count)
            return real_cables && un > 0 && dn > un ? static_cast<double>(dn) / un : 1.0;
        return u > 0 && d > u ? d / u : 1.0;
    };
    double spine_os = 1;
    for (std::size_t s = 0; s < t.switches.size(); ++s)
        if (t.switches[s].tier == 1 && (up[s] > 0 || up_n[s] > 0))
            spine_os = std::max(spine_os, ratio(down[s], up[s], down_n[s], up_n[s], unknown[s] != 0));
    for (int l : leaf_level) {
        PlaceIsland &is = islands_[static_cast<std::size_t>(l)];
        std::vector<double> bws;
        for (int h : is.hosts)
            bws.push_back(host_bw[static_cast<std::size_t>(h)]);
        is.host_gbps = most_common(bws, 0.0);
        double d = 0, u = 0;
        int dn = 0, un = 0;
        bool by_count = false;
        for (int s : t.islands[static_cast<std::size_t>(l)].leaves) {
            d += leaf_down[static_cast<std::size_t>(s)];
            u += up[static_cast<std::size_t>(s)];
            dn += leaf_down_n[static_cast<std::size_t>(s)];
            un += up_n[static_cast<std::size_t>(s)];
            by_count = by_count || unknown[static_cast<std::size_t>(s)] != 0;
        }
        is.oversub = 1;  // traffic inside a leaf island crosses no uplink
        double os = ratio(d, u, dn, un, by_count);
        if (os > 1)
            for (int i = is.parent; i >= 0; i = islands_[static_cast<std::size_t>(i)].parent)
                islands_[static_cast<std::size_t>(i)].oversub =
                    std::max(islands_[static_cast<std::size_t>(i)].oversub, os);
        for (int i = is.parent; i >= 0; i = islands_[static_cast<std::size_t>(i)].parent) {
            PlaceIsland &up_is = islands_[static_cast<std::size_t>(i)];
            up_is.host_gbps = up_is.host_gbps == 0 ? is.host_gbps : std::min(up_is.host_gbps, is.host_gbps);
        }
    }
    if (root_ >= 0 && by_level_[static_cast<std::size_t>(Level::Pod)].size() > 1) {
        islands_[static_cast<std::size_t>(root_)].oversub *= spine_os;
        spine_os_ = spine_os;
    }
    host_bw_ = std::move(host_bw);  // one per host of the Topology, as names_

    // Hops between leaf islands over the switch graph.
    std::vector<std::vector<int>> adj(t.switches.size());
    auto vs = boost::vertices(t.graph);
    for (auto v = vs.first; v != vs.second; ++v) {
        auto av = boost::adjacent_vertices(*v, t.graph);
        for (auto w = av.first; w != av.second; ++w)
            adj[*v].push_back(static_cast<int>(*w));
    }
    const auto &leaves = leaf_level;
    std::size_t L = leaves.size();
    leaf_pos_.assign(I, -1);
    for (std::size_t k = 0; k < L; ++k)
        leaf_pos_[static_cast<std::size_t>(leaves[k])] = static_cast<int>(k);
    // d(S, x) = 1 + d(N(S), x) for a switch x outside S, N(S) the
    // neighbours of S outside it: one breadth-first search per distinct N(S)
    std::map<std::vector<int>, int> row_key;
    row_of_.assign(L, -1);
    std::vector<std::vector<int>> keys;
    for (std::size_t a = 0; a < L; ++a) {
        const std::vector<int> &sa = t.islands[static_cast<std::size_t>(leaves[a])].leaves;
        std::vector<int> n;
        for (int s : sa)
            for (int w : adj[static_cast<std::size_t>(s)])
                if (std::find(sa.begin(), sa.end(), w) == sa.end())
                    n.push_back(w);
        std::sort(n.begin(), n.end());
        n.erase(std::unique(n.begin(), n.end()), n.end());
        auto it = row_key.emplace(n, static_cast<int>(keys.size())).first;
        if (it->second == static_cast<int>(keys.size()))
            keys.push_back(n);
        row_of_[a] = it->second;
    }
    hop_rows_.assign(keys.size() * L, -1);
    for (std::size_t r = 0; r < keys.size(); ++r) {
        std::vector<int> d = bfs(adj, keys[r]);
        for (std::size_t b = 0; b < L; ++b) {
            int best = std::numeric_limits<int>::max();
            for (int s : t.islands[static_cast<std::size_t>(leaves[b])].leaves)
                best = std::min(best, d[static_cast<std::size_t>(s)]);
            hop_rows_[r * L + b] = best == std::numeric_limits<int>::max() ? -1 : best + 3;
        }
    }
    // leaf islands that share a switch: 2 hops (the same switch)
    std::map<int, std::vector<int>> islands_of_switch;
    for (std::size_t a = 0; a < L; ++a)
        for (int s : t.islands[static_cast<std::size_t>(leaves[a])].leaves)
            islands_of_switch[s].push_back(static_cast<int>(a));
    for (const auto &sl : islands_of_switch)
        for (std::size_t i = 0; i < sl.second.size(); ++i)
            for (std::size_t j = i + 1; j < sl.second.size(); ++j)
                sharing_.emplace_back(std::min(sl.second[i], sl.second[j]), std::max(sl.second[i], sl.second[j]));
    std::sort(sharing_.begin(), sharing_.end());
    sharing_.erase(std::unique(sharing_.begin(), sharing_.end()), sharing_.end());

    for (std::size_t l = 0; l < largest_.size(); ++l) {
        largest_[l] = 0;
        for (int i : by_level_[l])
            largest_[l] = std::max(largest_[l], capacity(i));
    }
    // Fewest leaves for n hosts: over the fabric, and inside one group or pod
    // (the fewest over its islands)
    std::vector<int> caps;
    for (int l : leaves)
        caps.push_back(capacity(l));
    min_leaves_.assign(static_cast<std::size_t>(pool_) + 1, 0);
    fewest_leaves(caps, min_leaves_);
    for (Level within : {Level::Group, Level::Pod}) {
        std::map<int, std::vector<int>> under;  // island at `within` -> its leaves' capacities
        for (int l : leaves)
            if (capacity(l) > 0) {
                int above = island_of(island_(l).hosts.front(), within);
                if (above >= 0)
                    under[above].push_back(capacity(l));
            }
        std::vector<int> &m = min_leaves_in_[static_cast<std::size_t>(within)];
        m.assign(static_cast<std::size_t>(pool_) + 1, 0);
        for (auto &kv : under)
            fewest_leaves(std::move(kv.second), m);
    }

    // Slurm's view: the switches of the topology.conf atoll-topo writes.
    std::vector<TreeSwitch> ts = slurm_tree(t);
    std::map<int, int> record_of;
    for (std::size_t r = 0; r < ts.size(); ++r)
        record_of[ts[r].island] = static_cast<int>(r);
    tree_.resize(ts.size());
    for (std::size_t r = 0; r < ts.size(); ++r) {
        TreeRecord &rec = tree_[r];
        rec.island = ts[r].island;
        rec.name = ts[r].name;
        rec.partial = !ts[r].name.empty();
        if (!rec.partial)
            rec.hosts = islands_[static_cast<std::size_t>(rec.island)].hosts;
        for (int c : ts[r].children) {
            int cr = record_of.at(c);
            rec.children.push_back(cr);
            tree_[static_cast<std::size_t>(cr)].parent = static_cast<int>(r);
            rec.level = std::max(rec.level, tree_[static_cast<std::size_t>(cr)].level + 1);
            if (rec.partial)
                rec.hosts.insert(rec.hosts.end(), tree_[static_cast<std::size_t>(cr)].hosts.begin(),
                                 tree_[static_cast<std::size_t>(cr)].hosts.end());
        }
        std::sort(rec.hosts.begin(), rec.hosts.end());
    }
    tree_adj_.assign(tree_.size(), {});
    for (std::size_t r = 0; r < tree_.size(); ++r)
        for (int c : tree_[r].children) {
            tree_adj_[r].push_back(c);
            tree_adj_[static_cast<std::size_t>(c)].push_back(static_cast<int>(r));
        }

    // and its topology/block view, when the fabric has one
    try {
        BlockLayout bl = block_layout(t);
        blocks_.blocks = bl.blocks;
        blocks_.base = bl.base;
        blocks_.levels = bl.levels;
    } catch (const std::invalid_argument &) {
        blocks_ = BlockView();
    }
    // the largest subnet's pool hosts (the whole pool when the fabric is one)
    std::vector<int> per(static_cast<std::size_t>(subnets_), 0);
    for (std::size_t h = 0; h < H; ++h)
        if (leaf_of_[h] >= 0)
            ++per[static_cast<std::size_t>(subnet_[static_cast<std::size_t>(leaf_of_[h])])];
    subnet_pool_ = per.empty() ? 0 : *std::max_element(per.begin(), per.end());

    static std::atomic<std::uint64_t> serials{0};
    serial_ = ++serials;
    // each a stable sort of the leaf islands by a key, ties in fabric order
    auto sorted = [&](auto key) {
        std::vector<int> v = at(Level::Leaf);
        std::stable_sort(v.begin(), v.end(), [&](int a, int b) { return key(a) < key(b); });
        return v;
    };
    auto speed = [&](int l) { return island_(l).host_gbps; };
    by_capacity_ = sorted([&](int l) { return -capacity(l); });
    by_speed_size_ = sorted([&](int l) { return std::make_tuple(-speed(l), -capacity(l), leaf_oversub(l)); });
    by_size_speed_ = sorted([&](int l) { return std::make_tuple(-capacity(l), -speed(l), leaf_oversub(l)); });
    by_speed_ = sorted([&](int l) { return std::make_tuple(-speed(l), leaf_oversub(l), -capacity(l)); });
}

int Cluster::find_host(const std::string &name) const
{
    auto it = std::lower_bound(names_.begin(), names_.end(), name);
    return it != names_.end() && *it == name ? static_cast<int>(it - names_.begin()) : -1;
}

int Cluster::island_of(int h, Level l) const
{
    return island_of_[static_cast<std::size_t>(h)][static_cast<std::size_t>(l)];
}

int Cluster::largest(Level l) const { return largest_[static_cast<std::size_t>(l)]; }

int Cluster::hops(int leaf_a, int leaf_b) const
{
    std::size_t L = by_level_[static_cast<std::size_t>(Level::Leaf)].size();
    int a = leaf_pos_[static_cast<std::size_t>(leaf_a)], b = leaf_pos_[static_cast<std::size_t>(leaf_b)];
    if (a == b || (!sharing_.empty() && std::binary_search(sharing_.begin(), sharing_.end(), std::make_pair(std::min(a, b), std::max(a, b)))))
        return 2;
    return hop_rows_[static_cast<std::size_t>(row_of_[static_cast<std::size_t>(a)]) * L + static_cast<std::size_t>(b)];
}

std::vector<int> Cluster::tree_distances(int record) const
{
    return bfs(tree_adj_, {record});
}

int Cluster::min_leaves(int n) const
{
    if (n <= 0 || n > pool_)
        return 0;
    return min_leaves_[static_cast<std::size_t>(n)];
}

int Cluster::min_leaves(int n, Level within) const
{
    const std::vector<int> &m = min_leaves_in_[static_cast<std::size_t>(within)];
    if (m.empty())
        return min_leaves(n);
    if (n <= 0 || n > pool_)
        return 0;
    return m[static_cast<std::size_t>(n)];
}

std::vector<int> topology_order(const Cluster &c, std::vector<int> hosts)
{
    auto key = [&](int h) {
        return std::make_tuple(c.island_of(h, Level::Pod), c.island_of(h, Level::Group), c.island_of(h, Level::Leaf),
                               c.island_of(h, Level::Domain));
    };
    std::stable_sort(hosts.begin(), hosts.end(), [&](int a, int b) { return key(a) < key(b); });
    return hosts;
}

void write_islands(std::ostream &out, const Cluster &c)
{
    out << "# atoll islands for job_submit.lua, written by atoll-topo from " << escaped(c.source()) << "\n"
        << "# level name capacity healthy\n";
    for (Level l : {Level::Leaf, Level::Group, Level::Pod, Level::Fabric})
        for (int i : c.at(l))
            if (c.capacity(i) > 0)
                out << to_string(l) << " " << c.island(i).name << " " << c.capacity(i) << " "
                    << (c.island(i).healthy ? 1 : 0) << "\n";
}

FreeState::FreeState(const Cluster &c, bool all_free)
    : c_(&c), free_(c.host_count(), 0), count_(c.islands().size(), 0)
{
    for (std::size_t l = 0; l < islands_with_.size(); ++l) {
        islands_with_[l].assign(static_cast<std::size_t>(c.largest(static_cast<Level>(l))) + 1, 0);
        islands_with_[l][0] = static_cast<int>(c.at(static_cast<Level>(l)).size());
    }
    if (all_free)
        for (std::size_t h = 0; h < c.host_count(); ++h)
            if (c.in_pool(static_cast<int>(h)))
                set(static_cast<int>(h), true);
}

void FreeState::set(int h, bool free)
{
    char &f = free_[static_cast<std::size_t>(h)];
    if (!c_->in_pool(h) || (f != 0) == free)
        return;
    f = free ? 1 : 0;
    for (int i = c_->leaf_of(h); i >= 0; i = c_->island(i).parent)
        count(i, free ? 1 : -1);
    int d = c_->island_of(h, Level::Domain);
    if (d >= 0)
        count(d, free ? 1 : -1);
}

void FreeState::take_island(int island)
{
    const PlaceIsland &top = c_->island(island);
    if (top.level == Level::Domain) {  // beside the network chain: host by host
        take(top.hosts);
        return;
    }
    int n = 0;
    for (int h : top.hosts) {
        char &f = free_[static_cast<std::size_t>(h)];
        if (!c_->in_pool(h) || f == 0)
            continue;
        f = 0;
        ++n;
        int d = c_->island_of(h, Level::Domain);
        if (d >= 0)
            count(d, -1);
    }
    if (n == 0)
        return;
    // the islands below it hold only its hosts: none free now (a domain
    // among them was counted host by host above)
    std::vector<int> below(top.children.begin(), top.children.end());
    while (!below.empty()) {
        const int i = below.back();
        below.pop_back();
        const PlaceIsland &x = c_->island(i);
        if (x.level != Level::Domain && count_[static_cast<std::size_t>(i)] != 0)
            count(i, -count_[static_cast<std::size_t>(i)]);
        below.insert(below.end(), x.children.begin(), x.children.end());
    }
    for (int i = island; i >= 0; i = c_->island(i).parent)
        count(i, -n);
}

void FreeState::count(int island, int delta)
{
    int &n = count_[static_cast<std::size_t>(island)];
    std::vector<int> &with = islands_with_[static_cast<std::size_t>(c_->island(island).level)];
    --with[static_cast<std::size_t>(n)];
    n += delta;
    ++with[static_cast<std::size_t>(n)];
}

int FreeState::most_free(Level l) const
{
    const std::vector<int> &with = islands_with_[static_cast<std::size_t>(l)];
    for (std::size_t f = with.size(); f-- > 0;)
        if (with[f] > 0)
            return static_cast<int>(f);
    return 0;
}

}  // namespace atl
