// atoll: the smallest island level that can hold the job; among its islands
// healthy ones first, the fewest leaves, then the fastest links of the step
// model (placement/cost.hpp: a host's bandwidth in one leaf, its uplinks'
// share across leaves), then the best fit (least left over: fragmentation). A job that must span
// an island is placed inside it by Slurm's own best fit (Split::Pack, the
// default: the fullest leaves first, the tightest leaf for the rest; for
// `auto`, over the whole fabric), so it spans no more extra leaves than
// Slurm's topology/tree would. Split::Even instead takes the fewest pods,
// then the fewest leaves that leave as little as possible over, split evenly
// across them, and breaks ties to the island whose parent is busiest.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "placement/policies.hpp"

namespace atl {
namespace {

struct Item {
    int id = -1;
    int cap = 0;
};

// The fewest items whose capacities hold n, then swapped for smaller ones
// while they still hold n. Items must hold n together.
std::vector<Item> fewest_that_fit(std::vector<Item> items, int n)
{
    std::sort(items.begin(), items.end(),
              [](const Item &a, const Item &b) { return a.cap != b.cap ? a.cap > b.cap : a.id < b.id; });
    std::size_t k = 0;
    int sum = 0;
    while (k < items.size() && sum < n)
        sum += items[k++].cap;
    std::vector<Item> chosen(items.begin(), items.begin() + static_cast<long>(k));
    std::set<std::pair<int, int>> rest;  // (cap, id)
    for (std::size_t i = k; i < items.size(); ++i)
        if (items[i].cap > 0)
            rest.insert({items[i].cap, items[i].id});
    for (Item &ch : chosen) {
        int need = n - (sum - ch.cap);
        auto it = rest.lower_bound({need, -1});
        if (it != rest.end() && it->first < ch.cap) {
            Item repl{it->second, it->first};
            rest.erase(it);
            rest.insert({ch.cap, ch.id});
            sum += repl.cap - ch.cap;
            ch = repl;
        }
    }
    return chosen;
}

// n split as evenly as the capacities allow (water filling).
std::vector<int> even_split(const std::vector<Item> &items, int n)
{
    std::vector<std::size_t> order(items.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return items[a].cap != items[b].cap ? items[a].cap < items[b].cap : items[a].id < items[b].id;
    });
    std::vector<int> give(items.size(), 0);
    int rem = n;
    int left = static_cast<int>(items.size());
    for (std::size_t i : order) {
        int share = (rem + left - 1) / left;
        give[i] = std::min(items[i].cap, share);
        rem -= give[i];
        --left;
    }
    return give;
}

// Slurm's best fit over leaves (_eval_nodes_topo): while no leaf holds what
// is left, take the fullest whole; then the smallest leaf that holds the
// rest. The fewest leaves, as fewest_that_fit(), but the whole leaves it uses
// up are the fullest ones and the one it leaves part-used is the tightest fit,
// so the free hosts left over stay together. Returns the leaves in the order
// taken; give[i] hosts from each.
std::vector<Item> best_fit_pack(std::vector<Item> items, int n, std::vector<int> &give)
{
    std::sort(items.begin(), items.end(),
              [](const Item &a, const Item &b) { return a.cap != b.cap ? a.cap > b.cap : a.id < b.id; });
    std::vector<Item> chosen;
    give.clear();
    int rem = n;
    std::size_t i = 0;
    while (rem > 0 && i < items.size()) {
        // the smallest of the rest that holds rem (items are largest first)
        std::size_t fit = items.size();
        for (std::size_t k = items.size(); k-- > i;)
            if (items[k].cap >= rem) {
                fit = k;
                break;
            }
        while (fit < items.size() && fit > i && items[fit - 1].cap == items[fit].cap)
            --fit;  // ties in fabric order
        if (fit < items.size()) {
            chosen.push_back(items[fit]);
            give.push_back(rem);
            rem = 0;
            break;
        }
        chosen.push_back(items[i]);
        give.push_back(items[i].cap);
        rem -= items[i].cap;
        ++i;
    }
    return chosen;
}

class Atoll : public Policy {
public:
    const char *name() const override { return "atoll"; }

protected:
    Placement choose(const FreeState &free, const Request &req) override;

private:
    int usable(const FreeState &free, int island, int cap) const;
    int leaves_needed(const FreeState &free, int island, int n, int cap);
    int leaves_in(const FreeState &free, const std::vector<int> &leaves, int n, int cap);
    std::vector<int> domain_order(const FreeState &free, int island, int k) const;
    void link_speeds(const Cluster &c);
    std::vector<int> caps_;  // scratch
    std::vector<int> healthy_leaves_;  // scratch
    // unhealthy, leaves spanned, the step model's bandwidth (faster first:
    // the predicted step), left over (fragmentation), parent free, index
    using Key = std::tuple<int, int, int, int, int, int>;
    std::vector<std::pair<Key, int>> fits_;  // scratch: the islands of a level that hold the job
    std::unique_ptr<Policy> tree_;  // Slurm's best fit, for Split::Pack
    // the step model's bandwidth term per island (placement/cost.hpp): Mb/s
    // of a host inside one leaf, and across its leaves' uplinks (host /
    // oversubscription), the slowest leaf of the island; 0: unknown
    const Cluster *speeds_of_ = nullptr;
    std::vector<int> one_leaf_mbps_, across_mbps_;
    std::vector<char> healthy_;  // PlaceIsland::healthy, compact
};

void Atoll::link_speeds(const Cluster &c)
{
    if (speeds_of_ == &c && one_leaf_mbps_.size() == c.islands().size())
        return;
    speeds_of_ = &c;
    one_leaf_mbps_.assign(c.islands().size(), 0);
    across_mbps_.assign(c.islands().size(), 0);
    healthy_.assign(c.islands().size(), 1);
    for (std::size_t i = 0; i < c.islands().size(); ++i) {
        healthy_[i] = c.island(static_cast<int>(i)).healthy ? 1 : 0;
        double one = -1, across = -1;
        for (int l : c.island(static_cast<int>(i)).leaf_islands) {
            const PlaceIsland &leaf = c.island(l);
            double os = c.leaf_oversub(l);
            one = one < 0 ? leaf.host_gbps : std::min(one, leaf.host_gbps);
            across = across < 0 ? leaf.host_gbps / os : std::min(across, leaf.host_gbps / os);
        }
        one_leaf_mbps_[i] = static_cast<int>(std::lround(std::max(0.0, one) * 1000));
        across_mbps_[i] = static_cast<int>(std::lround(std::max(0.0, across) * 1000));
    }
}

int Atoll::usable(const FreeState &free, int island, int cap) const
{
    if (cap <= 0)
        return free.free_in(island);
    const PlaceIsland &is = free.cluster().island(island);
    if (is.level == Level::Domain) {  // its free hosts, at most cap on each leaf island it reaches
        if (is.leaf_islands.size() <= 1)
            return std::min(free.free_in(island), cap);
        std::map<int, int> per_leaf;
        for (int h : is.hosts)
            if (free.is_free(h))
                ++per_leaf[free.cluster().leaf_of(h)];
        int u = 0;
        for (const auto &kv : per_leaf)
            u += std::min(kv.second, cap);
        return u;
    }
    int u = 0;
    for (int l : free.cluster().island(island).leaf_islands)
        u += std::min(free.free_in(l), cap);
    return u;
}

// The fewest leaves of `island` whose free hosts hold n (its leaves with the
// most free first); more than its leaf count when they cannot.
int Atoll::leaves_needed(const FreeState &free, int island, int n, int cap)
{
    const PlaceIsland &is = free.cluster().island(island);
    if (is.level == Level::Domain)  // a domain may reach more than one leaf island
        return std::max<int>(1, static_cast<int>(is.leaf_islands.size()));
    if (is.level <= Level::Leaf)
        return 1;
    return leaves_in(free, is.leaf_islands, n, cap);
}

// The fewest of `leaves` whose free hosts hold n; more than their count when
// they cannot.
int Atoll::leaves_in(const FreeState &free, const std::vector<int> &leaves, int n, int cap)
{
    caps_.clear();
    for (int l : leaves)
        caps_.push_back(cap > 0 ? std::min(free.free_in(l), cap) : free.free_in(l));
    std::sort(caps_.begin(), caps_.end(), std::greater<int>());
    int k = 0;
    for (int sum = 0; k < static_cast<int>(caps_.size()) && sum < n; ++k)
        sum += caps_[static_cast<std::size_t>(k)];
    return k;
}

// (free, island) pairs in the order to fill k from: the one with the
// fewest free that holds k first, then the freest; ties by index
void best_fit_first(std::vector<std::pair<int, int>> &v, int k)
{
    std::sort(v.begin(), v.end(), [](const auto &a, const auto &b) {
        return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    auto fit = std::find_if(v.rbegin(), v.rend(), [&](const auto &x) { return x.first >= k; });
    if (fit != v.rend())
        std::rotate(v.begin(), fit.base() - 1, fit.base());
}

// The hosts of an island in the order to take k of them: in whole NVLink
// domains, the fewest (the best-fitting domain when one holds k, else the
// freest first), then hosts in no domain; its hosts as they are when it has
// no domains.
std::vector<int> Atoll::domain_order(const FreeState &free, int island, int k) const
{
    const Cluster &c = free.cluster();
    std::vector<std::pair<int, int>> doms;  // (free, domain)
    for (int d : c.island(island).children)
        if (c.island(d).level == Level::Domain && free.free_in(d) > 0)
            doms.push_back({free.free_in(d), d});
    if (doms.empty() && c.island(island).level == Level::Domain) {
        // a domain that reaches two leaves (a cloud's NVLink group over
        // leaves of 8): its hosts by leaf, the smallest leaf that holds the
        // job first, else the fullest first, so the job spans the fewest
        std::vector<std::pair<int, int>> leaves;  // (free, leaf)
        for (int h : c.island(island).hosts)
            if (free.is_free(h)) {
                const int l = c.leaf_of(h);
                auto it = std::find_if(leaves.begin(), leaves.end(), [&](const auto &x) { return x.second == l; });
                if (it == leaves.end())
                    leaves.push_back({1, l});
                else
                    ++it->first;
            }
        if (leaves.size() <= 1)
            return c.island(island).hosts;
        best_fit_first(leaves, k);
        std::vector<int> out;
        for (const auto &x : leaves)
            for (int h : c.island(island).hosts)
                if (c.leaf_of(h) == x.second)
                    out.push_back(h);
        for (int h : c.island(island).hosts)  // busy hosts last (the caller skips them)
            if (!free.is_free(h))
                out.push_back(h);
        return out;
    }
    if (doms.empty())
        return c.island(island).hosts;
    best_fit_first(doms, k);
    std::vector<int> out;
    for (const auto &d : doms)
        out.insert(out.end(), c.island(d.second).hosts.begin(), c.island(d.second).hosts.end());
    for (int h : c.island(island).hosts) {  // hosts in no domain, or in one that reaches beyond this island
        int d = c.island_of(h, Level::Domain);
        if (d < 0 || c.island(d).parent != island)
            out.push_back(h);
    }
    return out;
}

Placement Atoll::choose(const FreeState &free, const Request &req)
{
    const Cluster &c = free.cluster();
    const int n = req.nodes, cap = req.max_per_leaf;
    Placement p;
    Level last = req.fit == Fit::Auto ? Level::Fabric : req.level;
    int chosen = -1;
    for (int pass = 0; pass < 2 && chosen < 0; ++pass) {
        // NVLink domains first when the fabric has them: a job that fits one
        // runs in one (a domain lies inside a leaf island, so it meets any level)
        Level innermost = c.at(Level::Domain).empty() ? Level::Leaf : Level::Domain;
        Level from = pass == 0 ? innermost : static_cast<Level>(static_cast<int>(last) + 1);
        Level to = pass == 0 ? last : Level::Fabric;
        if (pass == 1 && (req.fit != Fit::Preferred || last == Level::Fabric))
            break;
        if (pass == 1 && req.explain)
            p.notes.push_back("no " + std::string(to_string(last)) + " has room: preferred, so widening");
        for (int lv = static_cast<int>(from); lv <= static_cast<int>(to) && chosen < 0; ++lv) {
            Level L = static_cast<Level>(lv);
            if (L > Level::Leaf && req.fit == Fit::Auto && req.split == Split::Pack && cap == 0 &&
                req.max_leaves == 0) {
                // no leaf holds it: Slurm's best fit over the fabric decides
                // (below), so weighing every group and pod is wasted time
                chosen = c.root();
                if (req.explain)
                    p.notes.push_back("no leaf has room: Slurm's best fit over the fabric");
                break;
            }
            if (n > free.most_free(L)) {  // none has room (counted as hosts come and go): no need to weigh them
                if (req.explain)
                    p.notes.push_back(std::string(to_string(L)) + ": none of " + std::to_string(c.at(L).size()) +
                                  " has " + std::to_string(n) + " free (most: " + std::to_string(free.most_free(L)) +
                                  ")");
                continue;
            }
            link_speeds(c);
            // the best five (the choice, and four more for --explain), kept
            // as the level is scanned: no list of every island that fits
            std::vector<std::pair<Key, int>> &fits = fits_;
            fits.clear();
            int most = 0, too_spread = 0, fitting = 0;
            for (int i : c.at(L)) {
                // a domain spanning leaves lies in its parent: only when that meets the level
                if (L == Level::Domain && last > Level::Domain && c.island(i).parent >= 0 &&
                    c.island(c.island(i).parent).level > last)
                    continue;
                int u = usable(free, i, cap);
                most = std::max(most, u);
                if (u < n || (L <= Level::Leaf && cap > 0 && n > cap))
                    continue;
                // a leaf island: one leaf, its health from the compact copy
                // (link_speeds()), so a scan of 10,000 leaves reads two small
                // arrays and not each island's record
                const bool leaf = L == Level::Leaf;
                int k = leaf ? 1 : leaves_needed(free, i, n, cap);
                // A group or pod with a degraded leaf is as good as a healthy
                // one when its healthy leaves hold the job: the job is placed
                // on those (healthy leaves first, below), so one bad leaf does
                // not demote every island above it
                int unhealthy = healthy_[static_cast<std::size_t>(i)] ? 0 : 1;
                if (unhealthy && L > Level::Leaf && L != Level::Domain) {
                    const PlaceIsland &is = c.island(i);
                    healthy_leaves_.clear();
                    int held = 0;
                    for (int l : is.leaf_islands)
                        if (c.island(l).healthy) {
                            healthy_leaves_.push_back(l);
                            held += cap > 0 ? std::min(free.free_in(l), cap) : free.free_in(l);
                        }
                    int kh = held >= n ? leaves_in(free, healthy_leaves_, n, cap) : 0;
                    if (held >= n && (req.max_leaves == 0 || kh <= req.max_leaves)) {  // the leaf limit first
                        unhealthy = 0;
                        k = kh;
                    }
                }
                if (req.max_leaves > 0 && k > req.max_leaves) {
                    ++too_spread;
                    continue;
                }
                // Even: ties to the busiest parent (the first island above
                // with more hosts: a group may equal its leaf); Pack: in
                // fabric order, as Slurm's best fit breaks them (fewer extra
                // leaves on a trace)
                int parent_free = 0;
                if (req.split == Split::Even) {
                    int up = c.island(i).parent;
                    while (up >= 0 && c.capacity(up) == c.capacity(i))
                        up = c.island(up).parent;
                    parent_free = up >= 0 ? free.free_in(up) : 0;
                }
                int mbps = k > 1 ? across_mbps_[static_cast<std::size_t>(i)] : one_leaf_mbps_[static_cast<std::size_t>(i)];
                ++fitting;
                std::pair<Key, int> f{Key{unhealthy, k, -mbps, u - n, parent_free, i}, i};
                if (fits.size() == 5 && !(f < fits.back()))
                    continue;
                if (fits.size() == 5)
                    fits.pop_back();
                fits.insert(std::upper_bound(fits.begin(), fits.end(), f), f);
            }
            if (fits.empty()) {
                if (req.explain)
                    p.notes.push_back(std::string(to_string(L)) + ": none of " + std::to_string(c.at(L).size()) +
                                  " has " + std::to_string(n) + " free" +
                                  (too_spread ? " on at most " + std::to_string(req.max_leaves) + " leaves" : "") +
                                  " (most: " + std::to_string(most) + ")");
                continue;
            }
            std::size_t shown = fits.size();
            chosen = fits[0].second;
            if (!req.explain)
                continue;
            std::ostringstream note;
            note << to_string(L) << ": " << fitting << " of " << c.at(L).size() << " have room; best fit "
                 << c.island(chosen).name << " leaves " << std::get<3>(fits[0].first) << " free";
            p.notes.push_back(note.str());
            for (std::size_t k = 0; k < shown; ++k) {
                Candidate cand;
                cand.island = fits[k].second;
                cand.free = usable(free, cand.island, cap);
                cand.verdict = k == 0 ? "chosen" : "fits, " + std::to_string(std::get<3>(fits[k].first)) + " left over";
                if (std::get<0>(fits[k].first))
                    cand.verdict += ", degraded links";
                p.considered.push_back(cand);
            }
        }
    }
    if (chosen < 0) {
        p.error = "no " + std::string(to_string(last)) + " has " + std::to_string(n) + " free nodes";
        return p;
    }
    const PlaceIsland &is = c.island(chosen);
    auto take_from_leaf = [&](int leaf, int k) {
        for (int h : domain_order(free, leaf, k)) {
            if (k == 0)
                break;
            if (free.is_free(h)) {
                p.hosts.push_back(h);
                --k;
            }
        }
    };
    if (is.level <= Level::Leaf) {
        take_from_leaf(chosen, n);
        p.ok = true;
        return p;
    }
    if (req.island_only && req.fit == Fit::Required && req.max_leaves == 0 && cap == 0) {
        // rank_islands asks which island, not which hosts: any n free hosts
        // of the chosen one name it (every choice below stays inside it),
        // without Slurm's best fit over its leaves (the requests table asks
        // this for every node count: minutes at 30,000 hosts)
        for (int l : is.leaf_islands)
            for (int h : c.island(l).hosts) {
                if (static_cast<int>(p.hosts.size()) == n)
                    break;
                if (free.is_free(h))
                    p.hosts.push_back(h);
            }
        p.ok = static_cast<int>(p.hosts.size()) == n;
        return p;
    }
    if (req.split == Split::Pack && cap == 0) {
        // Slurm's own best fit inside the chosen island (for auto, the
        // whole fabric), healthy leaves first: it fills the fullest leaves
        // and the nearest, so what is left stays together. Tried before
        // the leaves are listed: on 10,000 leaves that listing alone is
        // what made this slower than slurm-tree's own decision.
        const int scope = req.fit == Fit::Auto ? c.root() : chosen;
        const bool whole = scope == c.root() && c.island(scope).healthy;  // no copy needed
        std::unique_ptr<FreeState> inside;
        if (!whole) {
            inside = std::make_unique<FreeState>(c, false);
            int held = 0;
            for (int pass = 0; pass < 2 && held < n; ++pass)
                for (int l : c.island(scope).leaf_islands) {
                    if (pass == 0 && !c.island(l).healthy)
                        continue;
                    for (int h : c.island(l).hosts)
                        if (free.is_free(h) && !inside->is_free(h)) {
                            inside->set(h, true);
                            ++held;
                        }
                }
        }
        Request sub;
        sub.nodes = n;
        sub.explain = false;  // its hosts alone
        if (!tree_)
            tree_ = make_slurm_tree_policy();
        // its hosts alone: place() would describe them, and so will ours
        Placement q = tree_->choose_hosts(whole ? free : *inside, sub);
        int q_leaves = 0;  // counted only against a leaf limit (place() counts them anyway)
        if (q.ok && req.max_leaves > 0) {
            std::vector<int> ls;
            ls.reserve(q.hosts.size());
            for (int h : q.hosts)
                ls.push_back(c.leaf_of(h));
            std::sort(ls.begin(), ls.end());
            q_leaves = static_cast<int>(std::unique(ls.begin(), ls.end()) - ls.begin());
        }
        if (q.ok && (req.max_leaves == 0 || q_leaves <= req.max_leaves)) {
            p.hosts = std::move(q.hosts);
            if (req.explain)
                p.notes.push_back("packed " + std::to_string(n) + " by Slurm's best fit" +
                              (whole ? "" : " (healthy leaves first)"));
            p.ok = true;
            return p;
        }
    }
    // Spanning: fewest pods (when the fabric is the island), then fewest leaves.
    std::vector<int> leaves;
    if (is.level == Level::Fabric && c.at(Level::Pod).size() > 1) {
        std::vector<Item> pods;
        for (int pod : c.at(Level::Pod))
            pods.push_back({pod, usable(free, pod, cap)});
        auto chosen_pods = fewest_that_fit(pods, n);
        for (const Item &pd : chosen_pods)
            for (int l : c.island(pd.id).leaf_islands)
                leaves.push_back(l);
        // The fewest pods may hold too few whole leaves for a leaf limit
        // that the fabric's leaves meet (leaves_needed() counted them all):
        // then the fewest leaves of any pods, not the fewest pods.
        if (req.max_leaves > 0 && leaves_in(free, leaves, n, cap) > req.max_leaves) {
            leaves = is.leaf_islands;
            if (req.explain)
                p.notes.push_back("the fewest pods (" + std::to_string(chosen_pods.size()) + ") need more than " +
                              std::to_string(req.max_leaves) + " leaves for " + std::to_string(n) +
                              ": the fewest leaves of any pods");
        } else {
            if (req.explain)
                p.notes.push_back("spans " + std::to_string(chosen_pods.size()) + " pods (fewest that hold " +
                              std::to_string(n) + ")");
        }
    } else {
        leaves = is.leaf_islands;
    }
    std::vector<Item> healthy, all;
    int healthy_cap = 0;
    for (int l : leaves) {
        int u = cap > 0 ? std::min(free.free_in(l), cap) : free.free_in(l);
        if (u == 0)
            continue;
        all.push_back({l, u});
        if (c.island(l).healthy) {
            healthy.push_back({l, u});
            healthy_cap += u;
        }
    }
    bool only_healthy = healthy_cap >= n;
    std::vector<int> give;
    auto pick = [&](const std::vector<Item> &from) {
        if (req.split == Split::Pack)
            return best_fit_pack(from, n, give);
        auto fewest = fewest_that_fit(from, n);
        give = even_split(fewest, n);
        return fewest;
    };
    auto picked = pick(only_healthy ? healthy : all);
    if (only_healthy && req.max_leaves > 0 && static_cast<int>(picked.size()) > req.max_leaves) {
        only_healthy = false;  // the leaf limit first: it is what the job waited for
        picked = pick(all);
    }
    std::ostringstream note;
    note << (req.split == Split::Even ? "split " : "packed ") << n << " over " << picked.size() << " leaves (fewest possible" << (only_healthy ? ", healthy" : "")
         << "):";
    for (std::size_t i = 0; i < picked.size(); ++i) {
        take_from_leaf(picked[i].id, give[i]);
        note << " " << c.island(picked[i].id).name << "=" << give[i] << "/" << picked[i].cap;
    }
    if (req.explain)
        p.notes.push_back(note.str());
    p.ok = static_cast<int>(p.hosts.size()) == n;
    if (!p.ok)
        p.error = "atoll: could not split the job over the chosen leaves";
    return p;
}

}  // namespace

std::unique_ptr<Policy> make_atoll_policy() { return std::make_unique<Atoll>(); }

}  // namespace atl
