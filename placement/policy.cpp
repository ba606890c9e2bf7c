#include "placement/policy.hpp"

#include <algorithm>
#include <random>

#include "placement/policies.hpp"
#include "topology/fabric.hpp"

namespace atl {

const char *to_string(Fit f)
{
    switch (f) {
    case Fit::Auto: return "auto";
    case Fit::Preferred: return "preferred";
    case Fit::Required: return "required";
    }
    return "?";
}

const char *to_string(Split s) { return s == Split::Even ? "even" : "pack"; }

std::string IslandRequest::str() const
{
    if (none)
        return "none";
    if (auto_level)
        return "auto";
    return std::string(to_string(level)) + (required ? ":required" : ":preferred");
}

IslandRequest parse_island(const std::string &value)
{
    IslandRequest r;
    r.set = true;
    std::string lv = value, fit;
    std::size_t colon = value.find(':');
    if (colon != std::string::npos) {
        lv = value.substr(0, colon);
        fit = value.substr(colon + 1);
    }
    if (lv == "none" && fit.empty())
        return r;
    r.none = false;
    if (lv == "auto" && fit.empty()) {
        r.auto_level = true;
        r.required = false;
        return r;
    }
    if (lv == "fabric" || !level_from_string(lv, r.level) ||
        (colon != std::string::npos && fit != "required" && fit != "preferred"))  // "leaf:" is no fit
        throw std::invalid_argument("--fabric-island=" + escaped(value) +
                                    ": expected auto, none, or domain, leaf, group or pod, optionally with :required "
                                    "(the default) or :preferred");
    r.required = fit != "preferred";
    return r;
}

std::vector<int> rank_islands(Policy &policy, const FreeState &free, Level level, int n)
{
    const Cluster &c = free.cluster();
    std::vector<int> ranked;
    std::vector<char> seen(c.islands().size(), 0);
    FreeState state = free;
    Request req;
    req.nodes = n;
    req.level = level;
    req.fit = Fit::Required;
    req.explain = false;  // the choices alone
    req.island_only = true;
    for (;;) {
        Placement p = policy.place(state, req);
        if (!p.ok)
            break;
        int is = c.island_of(p.hosts.front(), level);
        if (is < 0 || seen[static_cast<std::size_t>(is)])
            break;  // cannot happen: the island's hosts were taken away
        seen[static_cast<std::size_t>(is)] = 1;
        ranked.push_back(is);
        state.take_island(is);
    }
    std::vector<int> rest;
    for (int is : c.at(level))
        if (!seen[static_cast<std::size_t>(is)] && c.capacity(is) >= n)
            rest.push_back(is);
    std::sort(rest.begin(), rest.end(), [&](int a, int b) {
        const PlaceIsland &x = c.island(a), &y = c.island(b);
        if (x.healthy != y.healthy)
            return x.healthy;
        if (c.capacity(a) != c.capacity(b))
            return c.capacity(a) < c.capacity(b);
        return x.name < y.name;
    });
    ranked.insert(ranked.end(), rest.begin(), rest.end());
    return ranked;
}

void locate(const Cluster &c, Placement &p)
{
    p.island = -1;
    if (p.hosts.empty())
        return;
    for (Level l : {Level::Domain, Level::Leaf, Level::Group, Level::Pod, Level::Fabric}) {
        int first = c.island_of(p.hosts[0], l);
        bool same = first >= 0;
        for (int h : p.hosts)
            same = same && c.island_of(h, l) == first;
        if (same) {
            p.island = first;
            p.level = l;
            break;
        }
    }
}

void describe(const Cluster &c, Placement &p)
{
    p.per_leaf.clear();
    if (p.hosts.empty())
        return;
    // islands spanned at each level: sorted vectors, not sets (this runs at every decision)
    std::vector<int> leaves, groups, pods, domains;
    leaves.reserve(p.hosts.size());
    groups.reserve(p.hosts.size());
    pods.reserve(p.hosts.size());
    p.domain_hosts_only = true;
    for (int h : p.hosts) {
        leaves.push_back(c.leaf_of(h));
        int d = c.island_of(h, Level::Domain);
        if (d >= 0)
            domains.push_back(d);
        else
            p.domain_hosts_only = false;
        groups.push_back(c.island_of(h, Level::Group));
        pods.push_back(c.island_of(h, Level::Pod));
    }
    auto distinct = [](std::vector<int> &v) {
        std::sort(v.begin(), v.end());
        return static_cast<int>(std::unique(v.begin(), v.end()) - v.begin());
    };
    std::sort(leaves.begin(), leaves.end());
    for (std::size_t i = 0; i < leaves.size();) {  // (leaf, hosts), by leaf
        std::size_t j = i;
        while (j < leaves.size() && leaves[j] == leaves[i])
            ++j;
        p.per_leaf.push_back({leaves[i], static_cast<int>(j - i)});
        i = j;
    }
    p.leaves = static_cast<int>(p.per_leaf.size());
    p.groups = distinct(groups);
    p.pods = distinct(pods);
    p.domains = distinct(domains);
    locate(c, p);
    p.hops = p.hosts.size() > 1 ? 2 : 0;
    for (std::size_t a = 0; a < p.per_leaf.size(); ++a)
        for (std::size_t b = a + 1; b < p.per_leaf.size(); ++b)
            p.hops = std::max(p.hops, c.hops(p.per_leaf[a].first, p.per_leaf[b].first));
}

namespace {
bool spans_subnets(const Cluster &c, const std::vector<int> &hosts)
{
    for (int h : hosts)
        if (c.subnet_of(c.leaf_of(h)) != c.subnet_of(c.leaf_of(hosts.front())))
            return true;
    return false;
}
}  // namespace

Placement Policy::place(const FreeState &free, const Request &req)
{
    const Cluster &c = free.cluster();
    Placement p;
    if (req.nodes < 1) {
        p.error = "a job needs at least one node";
        return p;
    }
    if (req.nodes > c.pool_size()) {
        p.error = "asks for " + std::to_string(req.nodes) + " nodes; the fabric " + c.source() + " has " +
                  std::to_string(c.pool_size()) + " compute hosts";
        return p;
    }
    if (req.fit == Fit::Required && req.nodes > c.largest(req.level)) {
        p.error = "asks for " + std::to_string(req.nodes) + " nodes in one " + to_string(req.level) +
                  "; the largest " + to_string(req.level) + " holds " + std::to_string(c.largest(req.level));
        return p;
    }
    if (req.nodes > free.total()) {
        p.error = "asks for " + std::to_string(req.nodes) + " nodes; " + std::to_string(free.total()) + " are free";
        return p;
    }
    p = choose(free, req);
    if (!p.ok)
        return p;
    std::sort(p.hosts.begin(), p.hosts.end());
    if (c.subnets() > 1 && spans_subnets(c, p.hosts)) {
        // separate subnets: no cable path joins them, so no job runs across.
        // The policy chooses again within each subnet, the freest first.
        std::vector<std::pair<int, int>> by_free;  // (free, subnet)
        std::vector<int> free_in(static_cast<std::size_t>(c.subnets()), 0);
        for (int l : c.at(Level::Leaf))
            free_in[static_cast<std::size_t>(c.subnet_of(l))] += free.free_in(l);
        for (int k = 0; k < c.subnets(); ++k)
            if (free_in[static_cast<std::size_t>(k)] >= req.nodes)
                by_free.push_back({-free_in[static_cast<std::size_t>(k)], k});
        std::sort(by_free.begin(), by_free.end());
        Placement q;
        for (const auto &bf : by_free) {
            FreeState inside(c, false);
            for (int l : c.at(Level::Leaf))
                if (c.subnet_of(l) == bf.second)
                    for (int h : c.island(l).hosts)
                        if (free.is_free(h))
                            inside.set(h, true);
            q = choose(inside, req);
            if (q.ok && !spans_subnets(c, q.hosts))
                break;
            q = Placement{};
        }
        if (!q.ok) {
            Placement none;
            none.error = "no subnet has " + std::to_string(req.nodes) + " free nodes (the fabric is " +
                         std::to_string(c.subnets()) + " subnets no cable joins; " + name() +
                         " found hosts across them)";
            return none;
        }
        p = std::move(q);
        std::sort(p.hosts.begin(), p.hosts.end());
    }
    if (req.island_only && req.max_leaves == 0 && req.max_per_leaf == 0)
        locate(c, p);  // the island alone (rank_islands)
    else
        describe(c, p);
    if (req.fit == Fit::Required && p.level > req.level) {
        p.ok = false;
        p.error = "no " + std::string(to_string(req.level)) + " has " + std::to_string(req.nodes) +
                  " free nodes (" + name() + " found hosts across a " + to_string(p.level) + ")";
        p.hosts.clear();
    }
    if (p.ok && req.max_leaves > 0 && p.leaves > req.max_leaves) {
        p.ok = false;
        p.error = std::string(name()) + " found hosts on " + std::to_string(p.leaves) + " leaves; at most " +
                  std::to_string(req.max_leaves) + " asked for";
        p.hosts.clear();
    }
    if (p.ok && req.max_per_leaf > 0)
        for (const auto &pl : p.per_leaf)
            if (pl.second > req.max_per_leaf) {
                p.ok = false;
                p.error = std::string(name()) + " put " + std::to_string(pl.second) + " nodes on leaf " +
                          c.island(pl.first).name + ", more than the spread limit of " +
                          std::to_string(req.max_per_leaf);
                p.hosts.clear();
                break;
            }
    return p;
}

namespace {

// Slurm without a topology plugin: the lowest-numbered free nodes.
class FirstFit : public Policy {
public:
    const char *name() const override { return "first-fit"; }

protected:
    Placement choose(const FreeState &free, const Request &req) override
    {
        Placement p;
        const Cluster &c = free.cluster();
        for (std::size_t h = 0; h < c.host_count() && static_cast<int>(p.hosts.size()) < req.nodes; ++h)
            if (free.is_free(static_cast<int>(h)))
                p.hosts.push_back(static_cast<int>(h));
        p.ok = true;
        if (req.explain)
            p.notes.push_back("first-fit: the " + std::to_string(req.nodes) + " lowest-numbered free hosts");
        return p;
    }
};

// Any free hosts, uniformly at random (a cloud scheduler that knows nothing).
class Random : public Policy {
public:
    explicit Random(std::uint64_t seed) : rng_(seed) {}
    const char *name() const override { return "random"; }

protected:
    Placement choose(const FreeState &free, const Request &req) override
    {
        Placement p;
        const Cluster &c = free.cluster();
        std::vector<int> pool;
        pool.reserve(static_cast<std::size_t>(free.total()));
        for (std::size_t h = 0; h < c.host_count(); ++h)
            if (free.is_free(static_cast<int>(h)))
                pool.push_back(static_cast<int>(h));
        for (int i = 0; i < req.nodes; ++i) {
            std::uniform_int_distribution<std::size_t> pick(static_cast<std::size_t>(i), pool.size() - 1);
            std::swap(pool[static_cast<std::size_t>(i)], pool[pick(rng_)]);
            p.hosts.push_back(pool[static_cast<std::size_t>(i)]);
        }
        p.ok = true;
        if (req.explain)
            p.notes.push_back("random: " + std::to_string(req.nodes) + " free hosts drawn uniformly");
        return p;
    }

private:
    std::mt19937_64 rng_;
};

}  // namespace

const std::vector<std::string> &policy_names()
{
    static const std::vector<std::string> names = {"atoll", "slurm-tree", "first-fit", "random"};
    return names;
}

std::unique_ptr<Policy> make_policy(const std::string &name, const Cluster &c, std::uint64_t seed)
{
    (void)c;
    if (name == "atoll")
        return make_atoll_policy();
    if (name == "slurm-tree")
        return make_slurm_tree_policy();
    if (name == "slurm-block")
        return make_slurm_block_policy();
    if (name == "first-fit")
        return std::make_unique<FirstFit>();
    if (name == "random")
        return std::make_unique<Random>(seed);
    return nullptr;
}

}  // namespace atl
