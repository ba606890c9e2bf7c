// atoll placement: the rank plan of a training job (placement/ranks.hpp).
#include "placement/ranks.hpp"
#include "placement/view.hpp"

#include <algorithm>
#include <cctype>
#include <numeric>
#include <sstream>
#include <tuple>

namespace atl {

namespace {

const char *const tokens[] = {"tp", "cp", "ep", "dp", "pp"};

int &size_of(Parallelism &p, const std::string &t)
{
    if (t == "tp") return p.tp;
    if (t == "cp") return p.cp;
    if (t == "ep") return p.ep;
    if (t == "dp") return p.dp;
    return p.pp;
}

std::vector<std::string> split(const std::string &s, char sep)
{
    std::vector<std::string> out;
    std::string cur;
    std::istringstream in(s);
    while (std::getline(in, cur, sep))
        out.push_back(cur);
    if (!s.empty() && s.back() == sep)
        out.push_back("");
    return out;
}

int positive(const std::string &flag, const std::string &v)
{
    if (v.empty() || v.size() > 9 || v.find_first_not_of("0123456789") != std::string::npos || std::stoi(v) < 1)
        throw RankError(flag, "\"" + v + "\", expected a whole number of at least 1");
    return std::stoi(v);
}

// The order's tokens innermost first, Megatron's RankGenerator rules: known
// names, none twice, a missing one appended (an error when its size is not 1).
std::vector<std::string> order_tokens(const Parallelism &p)
{
    std::string o = p.order;
    std::transform(o.begin(), o.end(), o.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    std::vector<std::string> out;
    if (o.empty())
        throw RankError("--order", "empty, expected tokens such as tp-cp-ep-dp-pp");
    for (const std::string &t : split(o, '-')) {
        if (std::find(std::begin(tokens), std::end(tokens), t) == std::end(tokens))
            throw RankError("--order", "\"" + p.order + "\": \"" + t + "\" is not one of tp, cp, ep, dp, pp");
        if (std::find(out.begin(), out.end(), t) != out.end())
            throw RankError("--order", "\"" + p.order + "\" names " + t + " twice");
        out.push_back(t);
    }
    Parallelism q = p;
    for (const char *t : tokens)
        if (std::find(out.begin(), out.end(), t) == out.end()) {
            if (size_of(q, t) != 1 && size_of(q, t) != 0)
                throw RankError("--order", "\"" + p.order + "\" leaves out " + t + ", whose size is " +
                                               std::to_string(size_of(q, t)) + " (Megatron's RankGenerator refuses it)");
            out.push_back(t);
        }
    return out;
}

// One of Megatron's two generators: sizes by token in the order, and each
// token's stride.
struct Generator {
    std::vector<int> sizes;
    std::vector<std::string> names;
    int stride(const std::string &t) const
    {
        int s = 1;
        for (std::size_t i = 0; i < names.size(); ++i) {
            if (names[i] == t)
                return s;
            s *= sizes[i];
        }
        return s;
    }
    int size(const std::string &t) const
    {
        for (std::size_t i = 0; i < names.size(); ++i)
            if (names[i] == t)
                return sizes[i];
        return 1;
    }
    std::vector<std::vector<int>> groups(const std::string &spec) const
    {
        std::vector<std::string> want = split(spec, '-');
        std::vector<bool> mask;
        for (const auto &n : names)
            mask.push_back(std::find(want.begin(), want.end(), n) != want.end());
        return orthogonal_groups(sizes, mask);
    }
};

// dense: ep = 1; expert: cp = 1, dp = world / (tp ep pp)
Generator generator(const Parallelism &p, bool expert)
{
    Generator g;
    g.names = order_tokens(p);
    for (const auto &t : g.names) {
        int s = t == "tp" ? p.tp : t == "pp" ? p.pp : 1;
        if (t == "cp" && !expert) s = p.cp;
        if (t == "ep" && expert) s = p.ep;
        if (t == "dp") s = expert ? p.cp * p.dp / p.ep : p.dp;
        g.sizes.push_back(s);
    }
    return g;
}

struct Finder {
    std::vector<int> up;
    explicit Finder(int n) : up(static_cast<std::size_t>(n)) { std::iota(up.begin(), up.end(), 0); }
    int find(int x)
    {
        while (up[static_cast<std::size_t>(x)] != x)
            x = up[static_cast<std::size_t>(x)] = up[static_cast<std::size_t>(up[static_cast<std::size_t>(x)])];
        return x;
    }
    void join(int a, int b)
    {
        a = find(a), b = find(b);
        if (a != b)
            up[static_cast<std::size_t>(std::max(a, b))] = std::min(a, b);
    }
};

// a and b index `hs`
Reach reach(const std::vector<RankHost> &hs, int a, int b)
{
    if (a == b)
        return Reach::Node;
    for (Level l : {Level::Domain, Level::Leaf, Level::Group, Level::Pod, Level::Fabric}) {
        int i = hs[static_cast<std::size_t>(a)].island[static_cast<std::size_t>(l)];
        if (i >= 0 && i == hs[static_cast<std::size_t>(b)].island[static_cast<std::size_t>(l)])
            return static_cast<Reach>(static_cast<int>(l) + 1);
    }
    return Reach::Fabric;
}

// the hosts of c as a plan sees them (their islands by level)
std::vector<RankHost> rank_hosts(const Cluster &c, const std::vector<int> &hosts)
{
    std::vector<RankHost> out;
    for (int h : hosts) {
        RankHost r;
        if (h >= 0 && static_cast<std::size_t>(h) < c.host_count()) {
            for (Level l : {Level::Domain, Level::Leaf, Level::Group, Level::Pod, Level::Fabric})
                r.island[static_cast<std::size_t>(l)] = c.island_of(h, l);
            r.name = c.host_name(h);
        }
        out.push_back(r);
    }
    return out;
}


// Worse first: the widest reach, then the next; lexicographic over the kinds
// in the order given (tp, tp-cp, tp-ep, pp pairs, dp), then fewer rail pairs.
std::vector<long> score(const std::vector<GroupReport> &g)
{
    std::vector<long> s;
    for (const auto &r : g) {
        const auto &h = r.kind == "pp" ? r.pairs_within : r.within;
        for (int i = reach_count - 1; i >= 1; --i)
            s.push_back(h[static_cast<std::size_t>(i)]);
    }
    for (const auto &r : g)
        if (r.kind == "dp")
            s.push_back(-static_cast<long>(r.rail_pairs));
    return s;
}

}  // namespace

const char *to_string(Reach r)
{
    static const char *const names[] = {"node", "domain", "leaf", "group", "pod", "fabric"};
    return names[static_cast<int>(r)];
}

std::vector<std::vector<int>> orthogonal_groups(const std::vector<int> &sizes, const std::vector<bool> &mask)
{
    std::vector<int> ms, us, mstride, ustride;
    int stride = 1, world = 1;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        (mask[i] ? ms : us).push_back(sizes[i]);
        (mask[i] ? mstride : ustride).push_back(stride);
        stride *= sizes[i];
    }
    world = stride;
    int gsize = 1;
    for (int s : ms)
        gsize *= s;
    // decompose(): the index in mixed radix `shape`, dotted with `strides`
    auto place = [](int index, const std::vector<int> &shape, const std::vector<int> &strides) {
        int v = 0;
        for (std::size_t i = 0; i < shape.size(); ++i) {
            v += (index % shape[i]) * strides[i];
            index /= shape[i];
        }
        return v;
    };
    std::vector<std::vector<int>> out(static_cast<std::size_t>(world / gsize));
    for (int gi = 0; gi < world / gsize; ++gi) {
        int base = place(gi, us, ustride);
        auto &g = out[static_cast<std::size_t>(gi)];
        g.reserve(static_cast<std::size_t>(gsize));
        for (int k = 0; k < gsize; ++k)
            g.push_back(base + place(k, ms, mstride));
    }
    return out;
}

Parallelism parse_parallelism(const std::string &spec)
{
    Parallelism p;
    std::vector<std::string> seen;
    for (const std::string &item : split(spec, ',')) {
        auto eq = item.find('=');
        std::string key = item.substr(0, eq);
        if (eq == std::string::npos)
            throw RankError(key.empty() ? "ranks" : key, "\"" + item + "\", expected KEY=VALUE (tp, cp, ep, dp, pp, order)");
        std::string val = item.substr(eq + 1);
        if (std::find(seen.begin(), seen.end(), key) != seen.end())
            throw RankError(key + "=", "given twice in \"" + spec + "\"");
        seen.push_back(key);
        if (key == "order")
            p.order = val;
        else if (std::find(std::begin(tokens), std::end(tokens), key) != std::end(tokens))
            size_of(p, key) = positive(key + "=", val);
        else
            throw RankError(key + "=", "unknown key in \"" + spec + "\", expected tp, cp, ep, dp, pp or order");
    }
    order_tokens(p);
    return p;
}

Parallelism resolve_parallelism(const Parallelism &in, int world)
{
    Parallelism p = in;
    for (const char *t : {"tp", "cp", "ep", "pp"})
        if (size_of(p, t) < 1)
            throw RankError(std::string("--") + t, std::to_string(size_of(p, t)) + ", expected at least 1");
    if (p.dp < 0)
        throw RankError("--dp", std::to_string(p.dp) + ", expected at least 1");
    // sizes one by one, none making the product pass the world (no overflow)
    long model = 1;
    for (const char *t : {"tp", "cp", "pp", "dp"}) {
        long v = size_of(p, t) > 0 ? size_of(p, t) : 1;
        if (v > world || model * v > world)
            throw RankError(std::string("--") + t, std::to_string(size_of(p, t)) + " makes the sizes' product more than the " +
                                                       std::to_string(world) + " GPUs");
        if (std::string(t) != "dp")
            model *= v;
    }
    if (p.dp == 0) {
        if (world % model != 0)
            throw RankError("--tp", "tp x cp x pp = " + std::to_string(model) + " does not divide the " +
                                        std::to_string(world) + " GPUs");
        p.dp = static_cast<int>(world / model);
    } else if (model * p.dp != world) {
        throw RankError("--dp", "tp x cp x dp x pp = " + std::to_string(model * p.dp) + ", but the hosts have " +
                                    std::to_string(world) + " GPUs");
    }
    if ((p.cp * p.dp) % p.ep != 0)
        throw RankError("--ep", std::to_string(p.ep) + " does not divide cp x dp = " + std::to_string(p.cp * p.dp) +
                                    " (Megatron takes expert parallelism out of cp x dp)");
    order_tokens(p);  // the order checked: known names, none twice, none left out of size above 1
    // Megatron asserts order.endswith("pp") on the order as given, before its
    // RankGenerator appends the names left out (of size 1)
    std::string given = p.order;
    std::transform(given.begin(), given.end(), given.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    bool pp_last = given.size() >= 2 && given.compare(given.size() - 2, 2, "pp") == 0;
    if (!pp_last && p.pp > 1 && p.ep != p.cp)
        throw RankError("--order", "\"" + p.order + "\" does not end in pp, so Megatron needs the expert data-parallel "
                                                    "size to equal dp (ep = cp)");
    return p;
}

std::vector<std::vector<int>> rank_groups(const Parallelism &p, const std::string &kind)
{
    if (kind == "tp-ep")
        return generator(p, true).groups("tp-ep");
    if (kind != "tp" && kind != "tp-cp" && kind != "pp" && kind != "dp")
        throw RankError("kind", "\"" + kind + "\", expected tp, tp-cp, tp-ep, pp or dp");
    return generator(p, false).groups(kind);
}

namespace {
std::vector<GroupReport> report_on(const std::vector<RankHost> &hs, int gpus, const Parallelism &p,
                                   const std::vector<int> &rank);
}  // namespace

std::vector<GroupReport> report_groups(const Cluster &c, const std::vector<int> &hosts, int gpus,
                                       const Parallelism &p, const std::vector<int> &rank)
{
    return report_on(rank_hosts(c, hosts), gpus, p, rank);
}

namespace {
std::vector<GroupReport> report_on(const std::vector<RankHost> &hs, int gpus, const Parallelism &p,
                                   const std::vector<int> &rank)
{
    std::vector<int> slot(rank.size());
    for (std::size_t s = 0; s < rank.size(); ++s)
        slot[static_cast<std::size_t>(rank[s])] = static_cast<int>(s);
    auto host = [&](int r) { return slot[static_cast<std::size_t>(r)] / gpus; };  // an index of hs
    auto gpu = [&](int r) { return slot[static_cast<std::size_t>(r)] % gpus; };
    Generator dense = generator(p, false), expert = generator(p, true);
    std::vector<GroupReport> out;
    auto add = [&](const char *kind, const Generator &g, const char *spec) {
        GroupReport r;
        r.kind = kind;
        for (const auto &grp : g.groups(spec)) {
            r.size = static_cast<int>(grp.size());
            ++r.groups;
            int widest = 0, h0 = host(grp[0]);
            for (int m : grp)
                widest = std::max(widest, static_cast<int>(reach(hs, h0, host(m))));
            ++r.within[static_cast<std::size_t>(widest)];
            if (r.kind == "pp" || r.kind == "dp")
                for (std::size_t i = 0; i + 1 < grp.size(); ++i) {
                    int a = grp[i], b = grp[i + 1];
                    Reach x = reach(hs, host(a), host(b));
                    if (r.kind == "pp") {
                        ++r.pairs;
                        ++r.pairs_within[static_cast<std::size_t>(x)];
                    } else if (x != Reach::Node) {
                        ++r.pairs;
                        r.rail_pairs += gpu(a) == gpu(b);
                    }
                }
        }
        out.push_back(r);
    };
    add("tp", dense, "tp");
    if (p.cp > 1)
        add("tp-cp", dense, "tp-cp");
    if (p.ep > 1)
        add("tp-ep", expert, "tp-ep");
    if (p.pp > 1)
        add("pp", dense, "pp");
    if (p.dp > 1)
        add("dp", dense, "dp");
    return out;
}

}  // namespace

RankPlan plan_ranks(const Cluster &c, const std::vector<int> &hosts, int gpus, const Parallelism &in)
{
    if (gpus < 1)
        throw RankError("--gpus-per-node", std::to_string(gpus) + ", expected at least 1");
    if (hosts.empty())
        throw RankError("HOSTLIST", "no hosts");
    const int n = static_cast<int>(hosts.size());
    // positions of the input hosts in topology order
    std::vector<int> by_host(c.host_count(), -1);
    for (int i = 0; i < n; ++i) {
        int h = hosts[static_cast<std::size_t>(i)];
        if (h < 0 || static_cast<std::size_t>(h) >= c.host_count() || !c.in_pool(h))
            throw RankError("HOSTLIST", "host " + std::to_string(h) + " is not a compute host of the fabric");
        if (by_host[static_cast<std::size_t>(h)] >= 0)
            throw RankError("HOSTLIST", c.host_name(h) + " is given twice");
        by_host[static_cast<std::size_t>(h)] = i;
    }
    std::vector<int> topo;  // input indices in topology order
    for (int h : topology_order(c, hosts))
        topo.push_back(by_host[static_cast<std::size_t>(h)]);
    RankPlan plan = plan_ranks(rank_hosts(c, hosts), topo, gpus, in);
    plan.hosts = hosts;
    return plan;
}

std::vector<RankHost> rank_hosts(const FabricSummary &s, const std::vector<std::string> &names)
{
    std::vector<RankHost> out;
    for (const std::string &n : names) {
        RankHost r;
        r.name = n;
        r.island = view_levels(s, s.hosts.at(n));
        out.push_back(r);
    }
    return out;
}

RankPlan plan_ranks(const std::vector<RankHost> &hs, const std::vector<int> &topo, int gpus, const Parallelism &in)
{
    if (gpus < 1)
        throw RankError("--gpus-per-node", std::to_string(gpus) + ", expected at least 1");
    if (hs.empty())
        throw RankError("HOSTLIST", "no hosts");
    const int n = static_cast<int>(hs.size()), world = n * gpus;
    if (topo.size() != hs.size())
        throw RankError("HOSTLIST", "the topology order has " + std::to_string(topo.size()) + " hosts, expected " +
                                        std::to_string(n));
    {
        std::vector<char> seen(hs.size(), 0);
        for (int i : topo)
            if (i < 0 || i >= n || seen[static_cast<std::size_t>(i)]++)
                throw RankError("HOSTLIST", "the topology order is not a permutation of the hosts");
    }
    RankPlan plan;
    plan.hosts.resize(hs.size());
    std::iota(plan.hosts.begin(), plan.hosts.end(), 0);
    plan.gpus_per_node = gpus;
    plan.par = resolve_parallelism(in, world);
    const Parallelism &p = plan.par;
    const std::vector<int> &hosts = plan.hosts;  // indices of hs
    auto leaf_of = [&](int i) { return hs[static_cast<std::size_t>(i)].island[static_cast<std::size_t>(Level::Leaf)]; };
    auto domain_of = [&](int i) { return hs[static_cast<std::size_t>(i)].island[static_cast<std::size_t>(Level::Domain)]; };

    // units: the TP, TP x CP and expert TP x EP groups joined
    Generator dense = generator(p, false), expert = generator(p, true);
    Finder f(world);
    auto join_all = [&](const Generator &g, const char *spec) {
        for (const auto &grp : g.groups(spec))
            for (int m : grp)
                f.join(grp[0], m);
    };
    join_all(dense, "tp");
    if (p.cp > 1)
        join_all(dense, "tp-cp");
    if (p.ep > 1)
        join_all(expert, "tp-ep");
    std::vector<int> unit_size(static_cast<std::size_t>(world), 0);
    for (int r = 0; r < world; ++r)
        ++unit_size[static_cast<std::size_t>(f.find(r))];
    plan.unit = unit_size[0];
    const int U = plan.unit;

    // the physical sequence: by pipeline (its stage-0 unit), stage, rank
    const int pp_stride = dense.stride("pp");
    std::vector<int> seq(static_cast<std::size_t>(world));
    std::iota(seq.begin(), seq.end(), 0);
    std::vector<int> stage(static_cast<std::size_t>(world)), chain(static_cast<std::size_t>(world));
    for (int r = 0; r < world; ++r) {
        stage[static_cast<std::size_t>(r)] = (r / pp_stride) % p.pp;
        chain[static_cast<std::size_t>(r)] = f.find(r - stage[static_cast<std::size_t>(r)] * pp_stride);
    }
    std::sort(seq.begin(), seq.end(), [&](int a, int b) {
        auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
        return std::make_tuple(chain[ua], stage[ua], a) < std::make_tuple(chain[ub], stage[ub], b);
    });

    // items: lcm(unit, node) ranks on n_u nodes; a pipeline is chain_items of them
    const int item = U / std::gcd(U, gpus) * gpus, nu = item / gpus, items = world / item;
    const int chain_items = (p.pp * U) % item == 0 ? p.pp * U / item : 0;

    // slots: n_u nodes inside one domain (one leaf without domains), by leaf
    std::vector<std::vector<std::vector<int>>> slots;  // leaf -> slot -> input indices
    std::vector<int> leftover;
    for (std::size_t i = 0; i < topo.size();) {
        int h = hosts[static_cast<std::size_t>(topo[i])], leaf = leaf_of(h), dom = domain_of(h);
        if (slots.empty() || i == 0 || leaf_of(hosts[static_cast<std::size_t>(topo[i - 1])]) != leaf)
            slots.emplace_back();
        std::size_t j = i;
        while (j < topo.size() && leaf_of(hosts[static_cast<std::size_t>(topo[j])]) == leaf &&
               domain_of(hosts[static_cast<std::size_t>(topo[j])]) == dom)
            ++j;
        std::size_t k = i;
        for (; k + static_cast<std::size_t>(nu) <= j; k += static_cast<std::size_t>(nu))
            slots.back().emplace_back(topo.begin() + static_cast<long>(k), topo.begin() + static_cast<long>(k + nu));
        leftover.insert(leftover.end(), topo.begin() + static_cast<long>(k), topo.begin() + static_cast<long>(j));
        i = j;
    }
    std::vector<const std::vector<int> *> where(static_cast<std::size_t>(items), nullptr);
    std::vector<std::vector<int>> spill;
    int next = 0, whole_chains = 0, in_slots = 0;
    std::vector<std::size_t> used(slots.size(), 0);
    if (chain_items > 0 && p.pp > 1)
        for (std::size_t l = 0; l < slots.size(); ++l)
            while (slots[l].size() - used[l] >= static_cast<std::size_t>(chain_items) && next + chain_items <= items) {
                for (int x = 0; x < chain_items; ++x)
                    where[static_cast<std::size_t>(next++)] = &slots[l][used[l]++];
                ++whole_chains;
            }
    for (std::size_t l = 0; l < slots.size(); ++l)
        while (used[l] < slots[l].size() && next < items)
            where[static_cast<std::size_t>(next++)] = &slots[l][used[l]++];
    in_slots = next;
    for (std::size_t k = 0; next < items; ++next, k += static_cast<std::size_t>(nu)) {
        spill.emplace_back(leftover.begin() + static_cast<long>(k), leftover.begin() + static_cast<long>(k + nu));
    }
    for (int x = in_slots, s = 0; x < items; ++x, ++s)
        where[static_cast<std::size_t>(x)] = &spill[static_cast<std::size_t>(s)];

    std::vector<int> packed(static_cast<std::size_t>(world));
    for (int x = 0; x < items; ++x)
        for (int j = 0; j < item; ++j) {
            int i = (*where[static_cast<std::size_t>(x)])[static_cast<std::size_t>(j / gpus)];
            packed[static_cast<std::size_t>(i * gpus + j % gpus)] = seq[static_cast<std::size_t>(x * item + j)];
        }
    std::vector<int> plain(static_cast<std::size_t>(world));
    for (int pos = 0; pos < n; ++pos)
        for (int g = 0; g < gpus; ++g)
            plain[static_cast<std::size_t>(topo[static_cast<std::size_t>(pos)] * gpus + g)] = pos * gpus + g;

    std::vector<GroupReport> rp = report_on(hs, gpus, p, packed), rc = report_on(hs, gpus, p, plain);
    plan.consecutive = !(score(rp) < score(rc));
    plan.rank = plan.consecutive ? plain : packed;
    plan.groups = plan.consecutive ? rc : rp;
    plan.slot.assign(static_cast<std::size_t>(world), 0);
    for (int s = 0; s < world; ++s)
        plan.slot[static_cast<std::size_t>(plan.rank[static_cast<std::size_t>(s)])] = s;
    std::ostringstream note;
    note << "units of " << U << " ranks (the tp" << (p.cp > 1 ? ", tp-cp" : "") << (p.ep > 1 ? ", tp-ep" : "")
         << " groups joined) on " << nu << " node" << (nu > 1 ? "s" : "") << " per " << item << " ranks; ";
    if (plan.consecutive)
        note << "plain consecutive ranking in topology order scores as well as packing, kept";
    else
        note << in_slots << " of " << items << " packed whole in a domain (a leaf without domains), "
             << items - in_slots << " on the leftover nodes in topology order"
             << (p.pp > 1 ? "; " + std::to_string(whole_chains) + " pipelines whole in a leaf" : "");
    plan.note = note.str();
    return plan;
}

}  // namespace atl
