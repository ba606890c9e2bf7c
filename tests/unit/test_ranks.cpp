// The rank plan (placement/ranks.hpp): Megatron-Core's group generator, the
// spec parser, and plans on an 8-rack NVL72 unit with expectations worked by
// hand from the rack layout (18 trays of 4 GPUs per NVLink domain, two
// domains per leaf island).
#include "catch.hpp"

#include <algorithm>
#include <set>

#include "testdata.hpp"
#include "placement/cluster.hpp"
#include "placement/ranks.hpp"

using namespace atl;

namespace {

// the 8-rack NVL72 unit: 4 rail groups (leaf islands) of 36 trays, 4 rails,
// a domain per rack of 18
const Cluster &nvl72()
{
    static const Topology t = generated(1, 4, 36, 4, 18);
    static const Cluster c(t);
    return c;
}

std::vector<int> first_hosts(const Cluster &c, int n)
{
    std::vector<int> h;
    for (int i = 1; i <= n; ++i) {
        char name[16];
        std::snprintf(name, sizeof name, "node%03d", i);
        h.push_back(c.find_host(name));
    }
    return h;
}

// host names of the ranks [from, to) of a plan
std::set<std::string> hosts_of(const Cluster &c, const RankPlan &p, int from, int to)
{
    std::set<std::string> out;
    for (int r = from; r < to; ++r)
        out.insert(c.host_name(p.hosts[static_cast<std::size_t>(p.slot[static_cast<std::size_t>(r)] / p.gpus_per_node)]));
    return out;
}

// ranks 0 .. n-1, each once
bool is_permutation(std::vector<int> v)
{
    std::sort(v.begin(), v.end());
    for (std::size_t r = 0; r < v.size(); ++r)
        if (v[r] != static_cast<int>(r))
            return false;
    return true;
}

const GroupReport &kind(const RankPlan &p, const std::string &k)
{
    for (const auto &g : p.groups)
        if (g.kind == k)
            return g;
    FAIL("no group kind " << k);
    return p.groups.front();
}

}  // namespace

TEST_CASE("orthogonal groups are Megatron's generate_masked_orthogonal_rank_groups", "[ranks][megatron]")
{
    // the docstring's examples, megatron/core/parallel_state.py (NVIDIA/Megatron-LM at d98e8a64):
    // parallel_size [tp 2, dp 3, pp 4], mask dp: dp_group[0] = [0, 2, 4], [1] = [1, 3, 5], [7] = [19, 21, 23]
    auto dp = orthogonal_groups({2, 3, 4}, {false, true, false});
    REQUIRE(dp.size() == 8);
    CHECK(dp[0] == std::vector<int>{0, 2, 4});
    CHECK(dp[1] == std::vector<int>{1, 3, 5});
    CHECK(dp[7] == std::vector<int>{19, 21, 23});
    // order tp-pp-dp, sizes 2-2-2: the dp groups are [[0, 4], [1, 5], [2, 6], [3, 7]]
    auto dp2 = orthogonal_groups({2, 2, 2}, {false, false, true});
    CHECK(dp2 == std::vector<std::vector<int>>{{0, 4}, {1, 5}, {2, 6}, {3, 7}});
    auto tp = orthogonal_groups({2, 2, 2}, {true, false, false});
    CHECK(tp == std::vector<std::vector<int>>{{0, 1}, {2, 3}, {4, 5}, {6, 7}});
}

TEST_CASE("a parallelism spec is parsed strictly, each error naming its key", "[ranks][parse]")
{
    Parallelism p = parse_parallelism("tp=8,ep=8,pp=2");
    CHECK(p.tp == 8);
    CHECK(p.ep == 8);
    CHECK(p.pp == 2);
    CHECK(p.cp == 1);
    CHECK(p.dp == 0);
    CHECK(p.order == "tp-cp-ep-dp-pp");
    CHECK(parse_parallelism("tp=4,order=tp-cp-ep-pp-dp").order == "tp-cp-ep-pp-dp");
    auto flag = [](const std::string &spec) {
        try {
            parse_parallelism(spec);
        } catch (const RankError &e) {
            return e.flag + " | " + e.what();
        }
        return std::string("accepted");
    };
    CHECK(flag("tp=0") == "tp= | tp=: \"0\", expected a whole number of at least 1");
    CHECK(flag("tp=x8").rfind("tp= |", 0) == 0);
    CHECK(flag("tp=8,tp=4") == "tp= | tp=: given twice in \"tp=8,tp=4\"");
    CHECK(flag("mp=2").rfind("mp= | mp=: unknown key", 0) == 0);
    CHECK(flag("tp8").rfind("tp8 | tp8: \"tp8\", expected KEY=VALUE", 0) == 0);
    CHECK(flag("order=tp-xp-dp").rfind("--order | --order: \"tp-xp-dp\": \"xp\" is not one of", 0) == 0);
    CHECK(flag("order=tp-tp-dp").find("names tp twice") != std::string::npos);
    CHECK(flag("order=") == "--order | --order: empty, expected tokens such as tp-cp-ep-dp-pp");
    CHECK(flag("order=tp--dp").find("\"\" is not one of") != std::string::npos);
    // Megatron's RankGenerator: a size other than 1 must be in the order
    CHECK(flag("tp=2,order=dp-pp").find("leaves out tp, whose size is 2") != std::string::npos);
}

TEST_CASE("sizes must multiply to the GPUs and divide as Megatron needs", "[ranks][parse]")
{
    auto flag = [](Parallelism p, int world) {
        try {
            resolve_parallelism(p, world);
        } catch (const RankError &e) {
            return e.flag;
        }
        return std::string("accepted");
    };
    Parallelism p;
    p.tp = 8;
    p.pp = 4;
    CHECK(resolve_parallelism(p, 288).dp == 9);
    CHECK(flag(p, 100) == "--tp");  // 32 does not divide 100
    p.dp = 8;
    CHECK(flag(p, 288) == "--dp");  // 8 x 8 x 4 = 256, not 288
    p.dp = 0;
    p.pp = 1;
    p.ep = 7;
    CHECK(flag(p, 576) == "--ep");  // 7 does not divide dp = 72
    p.ep = 8;
    CHECK(resolve_parallelism(p, 576).dp == 72);  // ep is taken out of dp, not a factor of its own
    p.pp = 2;
    p.ep = 4;  // dp = 36
    CHECK(flag(p, 576) == "accepted");
    p.order = "tp-cp-ep-pp-dp";  // Megatron's --use-tp-pp-dp-mapping: needs expert dp = dp
    CHECK(flag(p, 576) == "--order");
    p.ep = 1;
    CHECK(flag(p, 576) == "accepted");
    // Megatron asserts order.endswith("pp") on the order as given: one that
    // leaves out cp (size 1, appended by RankGenerator) still ends in pp
    p.ep = 4;
    p.order = "tp-ep-dp-pp";
    CHECK(flag(p, 576) == "accepted");
    p.order = "tp-ep-pp-dp";
    CHECK(flag(p, 576) == "--order");
}

TEST_CASE("TP=4 on NVL72 trays puts every TP group on one tray, ranks consecutive in topology order", "[ranks][nvlink]")
{
    const Cluster &c = nvl72();
    std::vector<int> hosts = first_hosts(c, 144);
    RankPlan p = plan_ranks(c, hosts, 4, parse_parallelism("tp=4"));
    CHECK(p.par.dp == 144);
    const GroupReport &tp = kind(p, "tp");
    CHECK(tp.groups == 144);
    CHECK(tp.within[static_cast<int>(Reach::Node)] == 144);
    for (int g = 0; g < 144; ++g)
        CHECK(hosts_of(c, p, 4 * g, 4 * g + 4).size() == 1);
    // Megatron's generator assumes rank = node position x GPUs + GPU: with
    // the hosts in topology order and whole units per domain that is the plan
    CHECK(p.consecutive);
    for (int i = 0; i < 144 * 4; ++i)
        CHECK(p.rank[static_cast<std::size_t>(i)] == i);
    // all DP neighbours on other trays are on the same rail (local GPU)
    const GroupReport &dp = kind(p, "dp");
    CHECK(dp.pairs == 4 * 143);
    CHECK(dp.rail_pairs == dp.pairs);
}

TEST_CASE("the Megatron cross-check: whole units per domain give plain consecutive ranks in topology order", "[ranks][megatron]")
{
    const Cluster &c = nvl72();
    std::vector<int> hosts = first_hosts(c, 144);
    std::vector<int> reversed(hosts.rbegin(), hosts.rend());
    for (auto spec : {"tp=8", "tp=8,ep=9", "tp=2,cp=2", "tp=4,cp=3,ep=6"}) {
        INFO(spec);
        RankPlan p = plan_ranks(c, hosts, 4, parse_parallelism(spec));
        CHECK(p.consecutive);
        bool same = true;
        for (int i = 0; i < 144 * 4; ++i)
            same = same && p.rank[static_cast<std::size_t>(i)] == i;
        CHECK(same);
        // given in reverse, the domains come back in fabric order and the
        // trays of a domain keep the order given: node k of rack d (k in
        // 18d+1 .. 18d+18) is position 18d + (18d + 18 - k)
        RankPlan q = plan_ranks(c, reversed, 4, parse_parallelism(spec));
        CHECK(q.consecutive);
        same = true;
        for (int i = 0; i < 144; ++i) {
            int k = 144 - i, d = (k - 1) / 18, pos = 18 * d + (18 * d + 18 - k);
            for (int g = 0; g < 4; ++g)
                same = same && q.rank[static_cast<std::size_t>(i * 4 + g)] == pos * 4 + g;
        }
        CHECK(same);
    }
}

TEST_CASE("TP=8 x EP=8 on 144 NVL72 trays: eight expert groups in one domain each, the ninth on the leftovers", "[ranks][nvlink]")
{
    const Cluster &c = nvl72();
    RankPlan p = plan_ranks(c, first_hosts(c, 144), 4, parse_parallelism("tp=8,ep=8"));
    CHECK(p.unit == 64);
    CHECK_FALSE(p.consecutive);
    // Megatron's expert generator (order tp-ep-dp-pp over 576 ranks, expert
    // dp 9): tp-ep group k is ranks 64k .. 64k+63, 16 trays. A domain of 18
    // trays holds one (two need 32): 8 groups fill the first 16 trays of the
    // 8 racks, and the ninth has the 2 trays left in each rack, all 8
    // domains of the pod's 4 leaves; no plan keeps more than 8 whole.
    const GroupReport &ep = kind(p, "tp-ep");
    CHECK(ep.groups == 9);
    CHECK(ep.within[static_cast<int>(Reach::Domain)] == 8);
    CHECK(ep.within[static_cast<int>(Reach::Pod)] == 1);
    for (int k = 0; k < 8; ++k) {
        std::set<std::string> want;
        for (int i = 1; i <= 16; ++i) {
            char name[16];
            std::snprintf(name, sizeof name, "node%03d", 18 * k + i);
            want.insert(name);
        }
        CHECK(hosts_of(c, p, 64 * k, 64 * k + 64) == want);
    }
    std::set<std::string> ninth;
    for (int k = 0; k < 8; ++k)
        for (int i = 17; i <= 18; ++i) {
            char name[16];
            std::snprintf(name, sizeof name, "node%03d", 18 * k + i);
            ninth.insert(name);
        }
    CHECK(hosts_of(c, p, 512, 576) == ninth);
    // its TP groups still pair the two trays of one rack
    const GroupReport &tp = kind(p, "tp");
    CHECK(tp.within[static_cast<int>(Reach::Domain)] == 72);
    // naive consecutive ranking would leave only groups 0 and 8 in a domain
    std::vector<int> plain(576);
    for (int i = 0; i < 576; ++i)
        plain[static_cast<std::size_t>(i)] = i;
    auto naive = report_groups(c, p.hosts, 4, p.par, plain);
    CHECK(naive[1].kind == "tp-ep");
    CHECK(naive[1].within[static_cast<int>(Reach::Domain)] == 2);
}

TEST_CASE("TP=8 PP=4 on 72 trays: pipeline neighbours in one domain or leaf but for the one pipeline that cannot", "[ranks][nvlink]")
{
    const Cluster &c = nvl72();
    RankPlan p = plan_ranks(c, first_hosts(c, 72), 4, parse_parallelism("tp=8,pp=4"));
    CHECK(p.par.dp == 9);
    CHECK_FALSE(p.consecutive);
    // 9 pipelines of 4 stages of 2 trays; a leaf (2 racks, 36 trays) holds
    // 4 whole pipelines (32 trays), so leaf 1 takes pipelines 0-3, leaf 2
    // 4-7, and pipeline 8 has the last 4 trays of each: stages 0-1 in rack 2,
    // 2-3 in rack 4. Per leaf one pipeline (2, 6) crosses racks at stage 0->1.
    // Rank pairs: 8 x 9 pipelines x 3 = 216; 16 cross a rack, 8 a leaf.
    const GroupReport &pp = kind(p, "pp");
    CHECK(pp.pairs == 216);
    CHECK(pp.pairs_within[static_cast<int>(Reach::Domain)] == 192);
    CHECK(pp.pairs_within[static_cast<int>(Reach::Leaf)] == 16);
    CHECK(pp.pairs_within[static_cast<int>(Reach::Pod)] == 8);
    CHECK(kind(p, "tp").within[static_cast<int>(Reach::Domain)] == 36);
    // Megatron's pp group of dp 8, tp 0: ranks 64, 136, 208, 280
    CHECK(hosts_of(c, p, 64, 65) == std::set<std::string>{"node033"});
    CHECK(hosts_of(c, p, 136, 137) == std::set<std::string>{"node035"});
    CHECK(hosts_of(c, p, 208, 209) == std::set<std::string>{"node069"});
    CHECK(hosts_of(c, p, 280, 281) == std::set<std::string>{"node071"});
}

TEST_CASE("a rank plan refuses hosts it cannot use", "[ranks][parse]")
{
    const Cluster &c = nvl72();
    std::vector<int> hosts = first_hosts(c, 4);
    Parallelism par;
    CHECK_THROWS_WITH(plan_ranks(c, {hosts[0], hosts[0]}, 4, par), "HOSTLIST: node001 is given twice");
    CHECK_THROWS_WITH(plan_ranks(c, {}, 4, par), "HOSTLIST: no hosts");
    CHECK_THROWS_WITH(plan_ranks(c, hosts, 0, par), "--gpus-per-node: 0, expected at least 1");
}

TEST_CASE("sizes whose product passes the GPUs are refused before they overflow", "[ranks][parse]")
{
    Parallelism p = parse_parallelism("tp=999999999,cp=999999999,pp=999999999");
    CHECK_THROWS_WITH(resolve_parallelism(p, 16), "--tp: 999999999 makes the sizes' product more than the 16 GPUs");
    p = parse_parallelism("tp=4,cp=8");
    CHECK_THROWS_WITH(resolve_parallelism(p, 16), "--cp: 8 makes the sizes' product more than the 16 GPUs");
    CHECK_THROWS_AS(parse_parallelism("tp=9999999999"), RankError);
}

TEST_CASE("without NVLink domains units are packed whole into leaf islands, the leftover one on the leftover nodes", "[ranks]")
{
    // 4 leaves of 8 hosts; 5 + 8 + 3 hosts given, 8 GPUs each, TP=16: units
    // of 2 nodes. Leaf 1 holds 2 (node001-004), leaf 2 4, leaf 3 1
    // (node017-018); the eighth unit has node005 and node019. Consecutive
    // ranking would split (node005, node009) and (node016, node017).
    static const Topology t = generated(1, 4, 8);
    Cluster c(t);
    std::vector<int> hosts;
    for (int i : {1, 2, 3, 4, 5, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19}) {
        char name[16];
        std::snprintf(name, sizeof name, "node%03d", i);
        hosts.push_back(c.find_host(name));
    }
    RankPlan p = plan_ranks(c, hosts, 8, parse_parallelism("tp=16"));
    CHECK_FALSE(p.consecutive);
    const GroupReport &tp = kind(p, "tp");
    CHECK(tp.groups == 8);
    CHECK(tp.within[static_cast<int>(Reach::Leaf)] == 7);
    CHECK(hosts_of(c, p, 112, 120) == std::set<std::string>{"node005"});
    CHECK(hosts_of(c, p, 120, 128) == std::set<std::string>{"node019"});
    // every rank once
    CHECK(is_permutation(p.rank));
}

TEST_CASE("every order Megatron's RankGenerator accepts gives a plan that uses each rank once", "[ranks][megatron]")
{
    const Cluster &c = nvl72();
    std::vector<int> hosts = first_hosts(c, 16);
    std::vector<std::string> tok = {"cp", "dp", "ep", "pp", "tp"};
    int orders = 0;
    do {
        std::string order = tok[0] + "-" + tok[1] + "-" + tok[2] + "-" + tok[3] + "-" + tok[4];
        INFO(order);
        // ep = cp, so Megatron's assertion holds for orders not ending in pp
        RankPlan p = plan_ranks(c, hosts, 4, parse_parallelism("tp=2,cp=2,ep=2,pp=2,order=" + order));
        CHECK(is_permutation(p.rank));
        CHECK(kind(p, "tp").groups == 32);
        CHECK(kind(p, "pp").groups == 32);
        CHECK(kind(p, "dp").groups == 8);  // dp = 64 / (2 x 2 x 2)
        ++orders;
    } while (std::next_permutation(tok.begin(), tok.end()));
    CHECK(orders == 120);
}

TEST_CASE("TP=8 x EP=2 on 140 trays: packing gains nothing over consecutive ranks, which are kept", "[ranks][nvlink]")
{
    // gb001-004 missing: rack 1 has 14 trays, racks 2-8 18. Units of 4
    // trays: packed, rack 1 holds 3 and the others 4 each (31), and the 2
    // trays left in each rack pair up within a leaf (racks 1+2, 3+4, ...): 4
    // more. Consecutive ranks straddle racks 1/2, 3/4, 5/6 and 7/8, each
    // inside a leaf: the same 31 + 4, so Megatron's plain order stays.
    const Cluster &c = nvl72();
    std::vector<int> all = first_hosts(c, 144);
    std::vector<int> hosts(all.begin() + 4, all.end());
    RankPlan p = plan_ranks(c, hosts, 4, parse_parallelism("tp=8,ep=2"));
    const GroupReport &ep = kind(p, "tp-ep");
    CHECK(ep.groups == 35);
    CHECK(ep.within[static_cast<int>(Reach::Domain)] == 31);
    CHECK(ep.within[static_cast<int>(Reach::Leaf)] == 4);
    CHECK(p.consecutive);
    for (int i = 0; i < 140 * 4; ++i)
        CHECK(p.rank[static_cast<std::size_t>(i)] == i);
}
