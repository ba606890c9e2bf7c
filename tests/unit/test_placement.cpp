// Placement policies and the simulator on fabrics small enough to check by hand.
#include "catch.hpp"
#include <algorithm>
#include <cstdio>
#include <set>
#include <map>
#include <sstream>

#include "placement/cost.hpp"
#include "slurm/ask.hpp"
#include "slurm/simulate.hpp"
#include "testdata.hpp"
#include "topology/cloud.hpp"
#include "topology/csv.hpp"
#include "topology/slurm.hpp"
#include "topology/generate.hpp"
#include "topology/hostlist.hpp"
#include "topology/nodehealth.hpp"

using namespace atl;

namespace {

// Pod P1: leaves L1 (a1-a4), L2 (b1-b4); pod P2: L3 (c1-c4), L4 (d1-d2).
// Host indices in name order: a1..a4 = 0..3, b = 4..7, c = 8..11, d1 = 12, d2 = 13.
const char *kTwoPods =
    "host,leaf,pod\n"
    "a1,L1,P1\na2,L1,P1\na3,L1,P1\na4,L1,P1\n"
    "b1,L2,P1\nb2,L2,P1\nb3,L2,P1\nb4,L2,P1\n"
    "c1,L3,P2\nc2,L3,P2\nc3,L3,P2\nc4,L3,P2\n"
    "d1,L4,P2\nd2,L4,P2\n";

// One pod, two leaves of ten: X (x01-x10), Y (y01-y10).
const char *kTwoTens =
    "host,leaf\n"
    "x01,X\nx02,X\nx03,X\nx04,X\nx05,X\nx06,X\nx07,X\nx08,X\nx09,X\nx10,X\n"
    "y01,Y\ny02,Y\ny03,Y\ny04,Y\ny05,Y\ny06,Y\ny07,Y\ny08,Y\ny09,Y\ny10,Y\n";

Topology topo_csv(const char *text)
{
    std::istringstream in(text);
    return analyse(parse_topology_csv(in, "test.csv"));
}

std::vector<std::string> names(const Cluster &c, const Placement &p)
{
    std::vector<std::string> v;
    for (int h : p.hosts)
        v.push_back(c.host_name(h));
    return v;
}

void busy(const Cluster &c, FreeState &f, std::initializer_list<const char *> hosts)
{
    for (const char *h : hosts) {
        int i = c.find_host(h);
        REQUIRE(i >= 0);
        f.set(i, false);
    }
}

Placement place(const char *policy, const Cluster &c, const FreeState &f, int n, Level level = Level::Fabric,
                Fit fit = Fit::Auto, int max_leaves = 0, Split split = Split::Pack)
{
    auto p = make_policy(policy, c);
    REQUIRE(p);
    Request r;
    r.nodes = n;
    r.level = level;
    r.fit = fit;
    r.max_leaves = max_leaves;
    r.split = split;
    return p->place(f, r);
}

using V = std::vector<std::string>;

// The atoll policy over a trace given as CSV text, on a fresh policy each time.
SimMetrics replay(const Cluster &c, const char *trace, const SimOptions &opt = {})
{
    std::istringstream in(trace);
    auto pol = make_policy("atoll", c);
    return simulate(c, read_trace(in, "tiny.csv"), *pol, opt);
}

// Start time of every job of `trace` (by id), replayed first-fit with `opt`
std::map<std::string, double> start_times(const Cluster &c, const char *trace, SimOptions opt = {})
{
    std::istringstream in(trace);
    std::vector<Job> jobs = read_trace(in, "starts.csv");
    auto ff = make_policy("first-fit", c);
    std::vector<JobRecord> rec;
    opt.records = &rec;
    simulate(c, jobs, *ff, opt);
    std::map<std::string, double> at;
    for (const JobRecord &r : rec)
        at[r.id] = r.start;
    return at;
}

}  // namespace

TEST_CASE("the placement view of a two-pod fabric", "[placement]")
{
    Topology t = topo_csv(kTwoPods);
    Cluster c(t);
    CHECK(c.pool_size() == 14);
    CHECK(c.at(Level::Leaf).size() == 4);
    CHECK(c.at(Level::Pod).size() == 2);
    CHECK(c.largest(Level::Leaf) == 4);
    CHECK(c.largest(Level::Pod) == 8);
    CHECK(c.min_leaves(4) == 1);
    CHECK(c.min_leaves(5) == 2);
    CHECK(c.min_leaves(13) == 4);
    int l1 = c.leaf_of(c.find_host("a1")), l2 = c.leaf_of(c.find_host("b1")), l3 = c.leaf_of(c.find_host("c1"));
    CHECK(c.hops(l1, l1) == 2);  // host - leaf - host
    CHECK(c.hops(l1, l2) == 4);  // through the pod switch
    CHECK(c.hops(l1, l3) == 6);  // through pod, core, pod
    // Slurm's tree: 4 leaf switches, 2 pods, the fabric; levels 0, 1, 2.
    REQUIRE(c.tree().size() == 7);
    CHECK(c.tree().back().level == 2);
    CHECK(c.tree_distances(0)[1] == 2);
    CHECK(c.tree_distances(0)[2] == 4);
}

TEST_CASE("atoll: best fit among leaves, ties to the busier pod when splitting evenly", "[placement][atoll]")
{
    Topology t = topo_csv(kTwoPods);
    Cluster c(t);
    FreeState f(c);
    busy(c, f, {"a1", "a2"});
    CHECK(names(c, place("atoll", c, f, 2)) == V{"a3", "a4"});  // L1 fits exactly
    busy(c, f, {"d1"});  // P1 has 6 free, P2 5
    // L2 and L3 both fit exactly: in fabric order, as Slurm's best fit breaks the tie
    CHECK(names(c, place("atoll", c, f, 4)) == V{"b1", "b2", "b3", "b4"});
    Placement p = place("atoll", c, f, 4, Level::Fabric, Fit::Auto, 0, Split::Even);
    CHECK(names(c, p) == V{"c1", "c2", "c3", "c4"});
    CHECK(p.level == Level::Leaf);
    CHECK(p.leaves == 1);
    CHECK(p.hops == 2);
}

TEST_CASE("atoll: the smallest pod that holds the job, split evenly", "[placement][atoll]")
{
    Topology t = topo_csv(kTwoPods);
    Cluster c(t);
    FreeState f(c);
    busy(c, f, {"a1"});
    // no leaf holds 6; P1 has 7 free, P2 exactly 6: P2, leaves L3 (4) and L4 (2)
    Placement p = place("atoll", c, f, 6, Level::Fabric, Fit::Auto, 0, Split::Even);
    CHECK(names(c, p) == V{"c1", "c2", "c3", "c4", "d1", "d2"});
    CHECK(p.level == Level::Pod);
    CHECK(p.leaves == 2);
    CHECK(p.pods == 1);
    CHECK(p.hops == 4);
    // 5 nodes in P2: 3 + 2, as even as L4's two hosts allow
    Placement q = place("atoll", c, f, 5, Level::Fabric, Fit::Auto, 0, Split::Even);
    CHECK(names(c, q) == V{"c1", "c2", "c3", "d1", "d2"});
    // packed by Slurm's best fit: no leaf holds 6, so the best-fit pod P2
    // (6 of 7 and 6 free), its fullest leaf L3 whole, then L4 for the rest
    CHECK(names(c, place("atoll", c, f, 6)) == V{"c1", "c2", "c3", "c4", "d1", "d2"});
    // 5: P2 again, L3 whole, then the leaf nearest to it that holds 1: L4
    CHECK(names(c, place("atoll", c, f, 5)) == V{"c1", "c2", "c3", "c4", "d1"});
}

TEST_CASE("atoll: 12 nodes over two leaves with 10 free each is 6+6", "[placement][atoll]")
{
    Topology t = topo_csv(kTwoTens);
    Cluster c(t);
    FreeState f(c);
    Placement p = place("atoll", c, f, 12, Level::Fabric, Fit::Auto, 0, Split::Even);
    CHECK(names(c, p) == V{"x01", "x02", "x03", "x04", "x05", "x06", "y01", "y02", "y03", "y04", "y05", "y06"});
    REQUIRE(p.per_leaf.size() == 2);
    CHECK(p.per_leaf[0].second == 6);
    CHECK(p.per_leaf[1].second == 6);
    // Split::Pack fills the fullest first instead
    auto pol = make_policy("atoll", c);
    Request r;
    r.nodes = 12;
    r.split = Split::Pack;
    Placement q = pol->place(f, r);
    CHECK(q.per_leaf[0].second == 10);
    CHECK(q.per_leaf[1].second == 2);
}

TEST_CASE("atoll: across pods, the fewest leaves", "[placement][atoll]")
{
    Topology t = topo_csv(kTwoPods);
    Cluster c(t);
    FreeState f(c);
    Placement p = place("atoll", c, f, 12);  // no pod holds 12: both pods, L1-L3 exactly
    CHECK(names(c, p) == V{"a1", "a2", "a3", "a4", "b1", "b2", "b3", "b4", "c1", "c2", "c3", "c4"});
    CHECK(p.level == Level::Fabric);
    CHECK(p.leaves == 3);
    CHECK(p.pods == 2);
    CHECK(p.hops == 6);
}

TEST_CASE("required, preferred and spread requests", "[placement][atoll]")
{
    Topology t = topo_csv(kTwoPods);
    Cluster c(t);
    FreeState f(c);
    Placement never = place("atoll", c, f, 5, Level::Leaf, Fit::Required);
    CHECK_FALSE(never.ok);
    CHECK_THAT(never.error, Catch::Contains("the largest leaf holds 4"));
    busy(c, f, {"a1", "a2", "b1", "b2", "c1", "c2", "d1"});  // every leaf has 2 free or fewer
    Placement now = place("atoll", c, f, 3, Level::Leaf, Fit::Required);
    CHECK_FALSE(now.ok);
    CHECK_THAT(now.error, Catch::Contains("no leaf has 3 free"));
    Placement wider = place("atoll", c, f, 3, Level::Leaf, Fit::Preferred);
    CHECK(wider.ok);
    CHECK(wider.level == Level::Pod);
    // the other policies are held to a required level too
    CHECK_FALSE(place("first-fit", c, f, 3, Level::Leaf, Fit::Required).ok);

    FreeState all(c);
    auto pol = make_policy("atoll", c);
    Request r;
    r.nodes = 6;
    r.max_per_leaf = 2;
    Placement s = pol->place(all, r);
    REQUIRE(s.ok);
    CHECK(s.leaves == 3);
    for (const auto &pl : s.per_leaf)
        CHECK(pl.second == 2);
}

TEST_CASE("atoll: among islands that fit, the one spanning the fewest leaves; max_leaves", "[placement][atoll]")
{
    // P1: three leaves of 4, P2: two leaves of 4
    Topology t = topo_csv("host,leaf,pod\n"
                          "a1,L1,P1\na2,L1,P1\na3,L1,P1\na4,L1,P1\n"
                          "b1,L2,P1\nb2,L2,P1\nb3,L2,P1\nb4,L2,P1\n"
                          "c1,L3,P1\nc2,L3,P1\nc3,L3,P1\nc4,L3,P1\n"
                          "d1,L4,P2\nd2,L4,P2\nd3,L4,P2\nd4,L4,P2\n"
                          "e1,L5,P2\ne2,L5,P2\ne3,L5,P2\ne4,L5,P2\n");
    Cluster c(t);
    FreeState f(c);
    busy(c, f, {"a1", "a2", "b1", "b2", "c1", "c2", "d1", "e1"});
    // 6 nodes: P1 has 2+2+2 free, P2 3+3: both exact fits, P2 spans 2 leaves, P1 3
    Placement p = place("atoll", c, f, 6, Level::Pod, Fit::Required);
    CHECK(names(c, p) == V{"d2", "d3", "d4", "e2", "e3", "e4"});
    CHECK(p.leaves == 2);
    auto pol = make_policy("atoll", c);
    Request r;
    r.nodes = 6;
    r.max_leaves = 1;  // like --switches=1: no leaf has 6 free
    CHECK_FALSE(pol->place(f, r).ok);
    r.nodes = 3;
    Placement one = pol->place(f, r);
    CHECK(one.ok);
    CHECK(one.leaves == 1);
    // slurm-tree is held to it too: 5 nodes cannot be in one leaf, refused
    auto tree = make_policy("slurm-tree", c);
    r.nodes = 5;
    r.max_leaves = 1;
    Placement no = tree->place(f, r);
    CHECK_FALSE(no.ok);
    CHECK_THAT(no.error, Catch::Contains("at most 1 asked for"));
}

TEST_CASE("atoll: a leaf limit the fewest pods cannot meet spans more pods", "[placement][atoll]")
{
    // P1: leaves of 4, 3, 3, 3 (13 hosts); P2 and P3: one leaf of 4 each.
    // 12 nodes fit P1 alone on 4 leaves; the fabric's fewest is 3 (L1, L5, L6).
    Topology t = topo_csv("host,leaf,pod\n"
                          "a1,L1,P1\na2,L1,P1\na3,L1,P1\na4,L1,P1\n"
                          "b1,L2,P1\nb2,L2,P1\nb3,L2,P1\n"
                          "c1,L3,P1\nc2,L3,P1\nc3,L3,P1\n"
                          "d1,L4,P1\nd2,L4,P1\nd3,L4,P1\n"
                          "e1,L5,P2\ne2,L5,P2\ne3,L5,P2\ne4,L5,P2\n"
                          "f1,L6,P3\nf2,L6,P3\nf3,L6,P3\nf4,L6,P3\n");
    Cluster c(t);
    CHECK(c.min_leaves(12) == 3);
    FreeState f(c);
    Placement fewest_pods = place("atoll", c, f, 12);
    REQUIRE(fewest_pods.ok);
    CHECK(fewest_pods.pods == 1);
    CHECK(fewest_pods.leaves == 4);
    // what the job waits for with --switches=3: it must get it
    Placement p = place("atoll", c, f, 12, Level::Fabric, Fit::Auto, 3);
    REQUIRE(p.ok);
    CHECK(p.leaves == 3);
    CHECK(p.pods == 3);
    CHECK(names(c, p) == V{"a1", "a2", "a3", "a4", "e1", "e2", "e3", "e4", "f1", "f2", "f3", "f4"});
    // slurm-tree takes the lowest switch with room, P1's, and its leaves: 4, refused
    Placement t3 = place("slurm-tree", c, f, 12, Level::Fabric, Fit::Auto, 3);
    CHECK_FALSE(t3.ok);
    CHECK_THAT(t3.error, Catch::Contains("4 leaves; at most 3"));
}

TEST_CASE("rank_islands: the policy's choices in turn, then the rest", "[placement][atoll]")
{
    Topology t = topo_csv(kTwoPods);
    Cluster c(t);
    FreeState f(c);
    busy(c, f, {"a1", "a2"});  // L1 2 free; L2, L3 4; L4 2
    auto pol = make_policy("atoll", c);
    auto named = [&](const std::vector<int> &v) {
        V out;
        for (int i : v)
            out.push_back(c.island(i).name);
        return out;
    };
    // 2 nodes: L1 fits exactly; without it L4 does; then L2 and L3 (2 left
    // over each, pods equally free: by index)
    CHECK(named(rank_islands(*pol, f, Level::Leaf, 2)) == V{"L1", "L4", "L2", "L3"});
    // 3 nodes: L2 and L3 have room; L1 could hold 3 once free; L4 never
    CHECK(named(rank_islands(*pol, f, Level::Leaf, 3)) == V{"L2", "L3", "L1"});
    // 5 nodes in one pod: P2 holds 6 and P1 6 free; pods equally good, by index
    CHECK(named(rank_islands(*pol, f, Level::Pod, 5)).size() == 2);
    CHECK(rank_islands(*pol, f, Level::Leaf, 5).empty());
}

TEST_CASE("atoll prefers leaves without degraded links, within a leaf limit", "[placement][atoll]")
{
    GenSpec g;
    g.groups_per_pod = 4;
    g.hosts_per_group = 4;
    g.degrade = {{"node001", 0}};
    Topology t = analyse(generate(g));
    Cluster c(t);
    FreeState f(c);
    Placement p = place("atoll", c, f, 2);
    CHECK(names(c, p) == V{"node005", "node006"});  // leaf02: leaf01 has node001's 1x link

    busy(c, f, {"node005", "node006", "node009", "node010", "node013", "node014"});
    // 6 nodes: the healthy leaves hold 2+2+2; with leaf01 (degraded, 4 free) two leaves do
    Placement healthy = place("atoll", c, f, 6);
    REQUIRE(healthy.ok);
    CHECK(healthy.leaves == 3);
    CHECK(names(c, healthy) == V{"node007", "node008", "node011", "node012", "node015", "node016"});
    // the limit the job waited for comes first
    Placement limited = place("atoll", c, f, 6, Level::Fabric, Fit::Auto, 2);
    REQUIRE(limited.ok);
    CHECK(limited.leaves == 2);
    CHECK(names(c, limited) == V{"node001", "node002", "node003", "node004", "node007", "node008"});
}

TEST_CASE("a pod with one degraded leaf is as good as a healthy one when its healthy leaves hold the job",
          "[placement][atoll]")
{
    GenSpec g;
    g.pods = 2;
    g.groups_per_pod = 3;
    g.hosts_per_group = 4;
    g.degrade = {{"node001", 0}};  // leaf01, in pod 1
    Topology t = analyse(generate(g));
    Cluster c(t);
    REQUIRE_FALSE(c.island(c.leaf_of(c.find_host("node001"))).healthy);
    REQUIRE_FALSE(c.island(c.island_of(c.find_host("node001"), Level::Pod)).healthy);
    FreeState f(c);
    // pod 2 has 2 free on each of its three leaves; pod 1 all 12, 8 of them
    // on its healthy leaves 02 and 03
    busy(c, f, {"node013", "node014", "node017", "node018", "node021", "node022"});
    // 6 nodes in one pod: pod 1's healthy leaves hold them on two leaves,
    // pod 2 needs three. Before, leaf01 made all of pod 1 "degraded" and the
    // job went to pod 2 on three leaves.
    Placement p = place("atoll", c, f, 6, Level::Pod, Fit::Required);
    REQUIRE(p.ok);
    CHECK(p.leaves == 2);
    for (const std::string &h : names(c, p))
        CHECK((h >= "node005" && h <= "node012"));  // leaves 02 and 03, never node001's leaf01
    // once pod 1's healthy leaves hold fewer than the job (3 of 5), its
    // degraded leaf counts again: pod 2, healthy, has 6 on three leaves
    busy(c, f, {"node005", "node006", "node007", "node008", "node009"});
    Placement q = place("atoll", c, f, 5, Level::Pod, Fit::Required);
    REQUIRE(q.ok);
    for (const std::string &h : names(c, q))
        CHECK(h >= "node013");  // pod 2: pod 1's healthy leaves hold 3 of 5
}

TEST_CASE("slurm-tree follows eval_nodes_tree.c (worked by hand)", "[placement][slurm-tree]")
{
    Topology t = topo_csv(kTwoPods);
    Cluster c(t);
    FreeState f(c);
    busy(c, f, {"a1"});
    // a leaf that fits: the one with the fewest free nodes (L1, 3 free)
    CHECK(names(c, place("slurm-tree", c, f, 3)) == V{"a2", "a3", "a4"});
    // no leaf fits 5: _topo_compare_switches climbs to the parents; P2 (6
    // free) fits tighter than P1 (7), so L3 is taken first and whole; then
    // the closest leaf that fits the last node is L4 (2 hops), not L2 (4).
    FreeState all(c);
    CHECK(names(c, place("slurm-tree", c, all, 5)) == V{"c1", "c2", "c3", "c4", "d1"});
    // two leaves of 10: the first whole, then the rest from the next: 10+2
    Topology t2 = topo_csv(kTwoTens);
    Cluster c2(t2);
    FreeState f2(c2);
    Placement p = place("slurm-tree", c2, f2, 12);
    REQUIRE(p.per_leaf.size() == 2);
    CHECK(p.per_leaf[0].second == 10);
    CHECK(p.per_leaf[1].second == 2);
}

TEST_CASE("first-fit and random", "[placement]")
{
    Topology t = topo_csv(kTwoPods);
    Cluster c(t);
    FreeState f(c);
    busy(c, f, {"a2"});
    CHECK(names(c, place("first-fit", c, f, 3)) == V{"a1", "a3", "a4"});
    Placement r1 = place("random", c, f, 5), r2 = place("random", c, f, 5);
    CHECK(r1.hosts.size() == 5);
    CHECK(r1.hosts == r2.hosts);  // same seed, same draw
    for (int h : r1.hosts)
        CHECK(f.is_free(h));
    CHECK(make_policy("best", c) == nullptr);
}

namespace {

// Two leaves of four 4x HDR hosts, leaf ports : uplinks = oversub.
Topology two_leaves_of_four(double oversub = 1)
{
    GenSpec g;
    g.groups_per_pod = 2;
    g.hosts_per_group = 4;
    if (oversub > 1) {
        g.spines_per_pod = 1;
        g.oversub = oversub;
    }
    return analyse(generate(g));
}

}  // namespace

TEST_CASE("the all-reduce estimate follows the ring formula", "[placement][cost]")
{
    Topology t = two_leaves_of_four();
    Cluster c(t);
    FreeState f(c);
    Placement p = place("atoll", c, f, 4);
    Estimate e = ring_allreduce(c, p, 1e9, default_cost_model(FabricKind::InfiniBand));
    CHECK(e.switches == 1);
    CHECK(e.gbps == Approx(200));  // 4x HDR
    // 2(N-1) steps of (1 us + 1e9*8/4 bits at 200 Gb/s)
    CHECK(e.seconds == Approx(6 * (1e-6 + 2e9 / 200e9)));
}

TEST_CASE("a training step follows NCCL's ring and tree formulas", "[placement][cost]")
{
    Topology t = two_leaves_of_four();
    Cluster c(t);
    FreeState f(c);
    Placement p = place("atoll", c, f, 4);
    REQUIRE(p.leaves == 1);
    StepModel m;  // 8 GPUs per node, 1 GB per step
    JobShape job;
    job.compute_s = 0.5;
    StepEstimate e = step_time(c, p, job, m);
    // NIC busBW: 200 Gb/s (4x HDR) / 8 x 0.94 = 23.5 GB/s, the node's: NCCL's
    // busBw = nChannels x bwInter (src/graph/tuning.cc), the ring's channels
    // spread over the node's NICs, whatever its GPU count
    CHECK(e.inter_GBps == Approx(23.5));
    // NCCL ring: n = 32 ranks, algBW = busBW x n / 2(n-1); latency 8.4 base
    // + (62 - 6) NVLink steps x 3.4 + 6 network steps x (14 + 1 switch x 1)
    double ring = (8.4 + 56 * 3.4 + 6 * 15.0) * 1e-6 + 1e9 / (23.5e9 * 32 / 62);
    CHECK(e.ring_s == Approx(ring));
    // tree: half the busBW, times all-reduce's 0.92 on trees (tuning.cc:
    // busBw = min(busBw * .92, nChannels * perChMaxTreeBw)), latency
    // 8.4 + 2 (7 x 3.4 + log2(4) x 15)
    CHECK(e.tree_s == Approx((8.4 + 2 * (7 * 3.4 + 2 * 15.0)) * 1e-6 + 1e9 / (23.5e9 * 0.92 * 0.5)));
    CHECK(e.algo == std::string("ring"));
    CHECK(e.step_s == Approx(0.5 + ring));
    // one leaf is the best placement of 4: nothing lost
    CHECK(slowdown(c, p, job, m) == Approx(1));
}

TEST_CASE("a job across oversubscribed leaves shares their uplinks", "[placement][cost]")
{
    Topology t = two_leaves_of_four(2);
    Cluster c(t);
    REQUIRE(c.island(c.island(c.at(Level::Leaf)[0]).parent).oversub == Approx(2));
    FreeState f(c);
    // two hosts in each leaf, the other two of each leaf busy with other jobs
    Placement p;
    for (int h : {0, 1, 4, 5})
        p.hosts.push_back(h);
    describe(c, p);
    REQUIRE(p.leaves == 2);
    StepModel m;
    JobShape job;
    job.comm_share = 1;  // all communication: the slowdown is the collective's
    StepEstimate e = step_time(c, p, job, m);
    // a leaf's uplinks: 4 hosts x 23.5 / 2 = 47 GB/s, asked for by the ring's
    // host-worth (23.5) and the two other hosts' (47): 47 x 23.5 / 70.5 each
    double up = 47 * 23.5 / 70.5;
    CHECK(e.uplink_GBps == Approx(up));
    double ring = (8.4 + 56 * 3.4 + 6 * (14 + 3 * 1.0)) * 1e-6 + 1e9 / (up * 1e9 * 32 / 62);
    CHECK(e.ring_s == Approx(ring));
    double best = (8.4 + 56 * 3.4 + 6 * 15.0) * 1e-6 + 1e9 / (23.5e9 * 32 / 62);
    CHECK(slowdown(c, p, job, m) == Approx(ring / best));
    // with the uplinks to itself the job loses only the latency of two more switches
    UplinkLoad idle(c.islands().size(), 0);
    CHECK(step_time(c, p, job, m, &idle).uplink_GBps == Approx(23.5));
}

TEST_CASE("the simulator on a tiny trace (metrics worked by hand)", "[placement][simulate]")
{
    Topology t = topo_csv("host,leaf\nh1,L1\nh2,L1\nh3,L2\nh4,L2\n");
    Cluster c(t);
    SimMetrics m = replay(c, "job_id,submit_s,duration_s,nodes\n1,0,10,2\n2,0,10,1\n3,1,5,2\n4,2,4,1\n");
    // t=0 job 1 on L1, job 2 on h3; t=1 job 3 waits (1 free), its hosts
    // reserved on L1 for t=10; t=2 job 4 backfills on h4 until 6; t=10 job 3.
    CHECK(m.jobs == 4);
    CHECK(m.multi == 2);
    CHECK(m.leaf_fit == 2);
    CHECK(m.leaf_pct == Approx(100));
    CHECK(m.mean_wait == Approx(9.0 / 4));
    CHECK(m.bounded_slowdown == Approx((1 + 1 + 1.4 + 1) / 4));
    CHECK(m.utilisation == Approx(44.0 / 60));
    CHECK(m.makespan == Approx(15));
    CHECK(m.fragmentation == Approx(5.0 / 60));
    CHECK(m.excess_leaves == Approx(0));
    CHECK(m.max_hops == 2);
}

TEST_CASE("the simulator: required islands wait, auto spans (worked by hand)", "[placement][simulate]")
{
    Topology t = topo_csv("host,leaf\nh1,L1\nh2,L1\nh3,L2\nh4,L2\n");
    Cluster c(t);
    // t=0 job 1 (10 s) on h1, job 2 (5 s) best fit on h2; t=1 job 3 (20 s) on
    // h3; t=5 job 2 ends: h2 and h4 free, one per leaf; t=6 job 4 (2 nodes).
    const char *trace = "job_id,submit_s,duration_s,nodes\n1,0,10,1\n2,0,5,1\n3,1,20,1\n4,6,4,2\n";
    SimMetrics any = replay(c, trace);
    CHECK(any.leaf_fit == 1);
    CHECK(any.leaf_pct == Approx(0));  // across L1 and L2 at once
    CHECK(any.excess_leaves == Approx(1));
    CHECK(any.mean_wait == Approx(0));
    SimOptions req;
    req.required = true;
    SimMetrics one = replay(c, trace, req);
    CHECK(one.leaf_pct == Approx(100));  // waits for L1 until job 1 ends at 10
    CHECK(one.excess_leaves == Approx(0));
    CHECK(one.mean_wait == Approx(4.0 / 4));
    CHECK(one.widened == 0);
    // a spanning job runs longer with --span-slowdown: job 4's 4 s become 6
    CHECK(any.utilisation == Approx((10 + 5 + 20 + 2 * 4) / (4 * 21.0)));
    SimOptions slow;
    slow.span_slowdown = 0.5;
    SimMetrics slowed = replay(c, trace, slow);
    CHECK(slowed.utilisation == Approx((10 + 5 + 20 + 2 * 6) / (4 * 21.0)));
    CHECK(any.mean_turnaround == Approx((10 + 5 + 20 + 4) / 4.0));
    CHECK(slowed.mean_turnaround == Approx((10 + 5 + 20 + 6) / 4.0));
    CHECK(one.mean_turnaround == Approx((10 + 5 + 20 + 4 + 4) / 4.0));  // job 4 waited 4 s
    CHECK(replay(c, trace, req).utilisation == Approx((10 + 5 + 20 + 2 * 4) / (4 * 21.0)));
}

TEST_CASE("the simulator asks what job_submit.lua asks: after island_wait, one pod (worked by hand)", "[placement][simulate]")
{
    // 2 pods of 2 leaves of 2 hosts, first-fit in host order. At t=0 eight
    // 1-node jobs fill h1..h8; h2 and h6 free at 5 (one per pod), h4 at 50.
    // Job 9 (2 nodes, auto, island_wait 5) comes at 6: no leaf has 2 free, so
    // it waits for one leaf switch until 11; then Slurm holds it to the
    // matching-OR over the pods (slurm_ask: atoll-widen is not in play for a
    // leaf, the constraint one level up is), where 1 + 1 hosts are free; it
    // starts at 50 on h2 + h4, pod P1, two leaves. Spanning the pods at 11
    // is what the replay did before it took its requests from slurm_ask().
    Topology t = topo_csv("host,leaf,pod\nh1,L1,P1\nh2,L1,P1\nh3,L2,P1\nh4,L2,P1\nh5,L3,P2\nh6,L3,P2\nh7,L4,P2\nh8,L4,P2\n");
    Cluster c(t);
    const char *trace = "job_id,submit_s,duration_s,nodes\n1,0,100,1\n2,0,5,1\n3,0,100,1\n4,0,50,1\n"
                        "5,0,100,1\n6,0,5,1\n7,0,100,1\n8,0,100,1\n9,6,10,2\n";
    std::istringstream in(trace);
    std::vector<Job> jobs = read_trace(in, "pods.csv");
    auto ff = make_policy("first-fit", c);
    std::vector<JobRecord> rec;
    SimOptions opt;
    opt.island_wait = 5;
    opt.records = &rec;
    SimMetrics m = simulate(c, jobs, *ff, opt);
    auto nine = std::find_if(rec.begin(), rec.end(), [](const JobRecord &r) { return r.id == "9"; });
    REQUIRE(nine != rec.end());
    CHECK(nine->start == Approx(50));
    CHECK(nine->pods == 1);
    CHECK(nine->leaves == 2);
    CHECK(m.widened == 1);  // left its leaf, not its pod
    // leaf:required (--fit required): it waits for a whole leaf, at 100
    rec.clear();
    opt.island_wait = 0;
    opt.required = true;
    simulate(c, jobs, *ff, opt);
    nine = std::find_if(rec.begin(), rec.end(), [](const JobRecord &r) { return r.id == "9"; });
    REQUIRE(nine != rec.end());
    CHECK(nine->start == Approx(100));  // L1 and L2 both whole again when jobs 1 and 3 end
    CHECK(nine->leaves == 1);
}

TEST_CASE("the simulator plans backfill with time limits, every bf_interval (worked by hand)", "[placement][simulate]")
{
    Topology t = topo_csv("host,leaf\nh1,L1\nh2,L1\nh3,L1\nh4,L1\n");
    Cluster c(t);
    // t=0 job 1 (3 nodes, 10 s); t=1 job 2 (4 nodes) waits, all four hosts
    // reserved for t=10; t=2 job 3 (1 node, 4 s) fits on h4 before then.
    const char *exact = "job_id,submit_s,duration_s,nodes\n1,0,10,3\n2,1,5,4\n3,2,4,1\n";
    SimMetrics m = replay(c, exact);
    CHECK(m.mean_wait == Approx((0 + 9 + 0) / 3.0));
    // the same with job 3 asking a 20 s limit: 2 + 20 > 10, so it may not
    // use the reserved h4 and starts after job 2, at 15
    const char *limits = "job_id,submit_s,duration_s,nodes,limit\n1,0,10,3,10\n2,1,5,4,5\n3,2,4,1,20\n";
    m = replay(c, limits);
    CHECK(m.mean_wait == Approx((0 + 9 + 13) / 3.0));
    // backfill passes every 5 s (at 0, 5, 10...): job 3 waits for the pass at
    // 5, as the main scheduler stops at the blocked job 2
    SimOptions every5;
    every5.bf_interval = 5;
    m = replay(c, exact, every5);
    CHECK(m.mean_wait == Approx((0 + 9 + 3) / 3.0));
    // bf_min_age_reserve: job 2, pending 1 s, does not stop the main
    // scheduler, which starts job 3 at once
    SimOptions young = every5;
    young.min_age_reserve = 5;
    m = replay(c, exact, young);
    CHECK(m.mean_wait == Approx((0 + 9 + 0) / 3.0));
    // conservative backfill plans job 2 on all four hosts from 10; job 3 fits
    // before that with its exact limit, not with its 20 s limit
    SimOptions cons;
    cons.conservative = true;
    CHECK(replay(c, exact, cons).mean_wait == Approx((0 + 9 + 0) / 3.0));
    CHECK(replay(c, limits, cons).mean_wait == Approx((0 + 9 + 13) / 3.0));
}

TEST_CASE("EASY backfill gives each host outside the head's reservation to one job (worked by hand)", "[placement][simulate]")
{
    // 4 hosts, first-fit. t=0 job 1 on h1+h2 until 10. t=1 job 2 (3 nodes)
    // waits: reserved h1-h3 from 10. t=2 jobs 3 and 4 (1 node, 100 s) end
    // after that, so only h4, outside the reservation, is theirs: job 3
    // takes it; job 4 waits for job 2's end at 20. Before this was fixed the
    // replay put job 4 on h4 as well, capacity Slurm does not have.
    Topology t = topo_csv("host,leaf\nh1,L1\nh2,L1\nh3,L1\nh4,L1\n");
    Cluster c(t);
    std::map<std::string, double> at =
        start_times(c, "job_id,submit_s,duration_s,nodes\n1,0,10,2\n2,1,10,3\n3,2,100,1\n4,2,100,1\n");
    CHECK(at["2"] == Approx(10));
    CHECK(at["3"] == Approx(2));
    CHECK(at["4"] == Approx(20));
}

TEST_CASE("bf_reserve: plans for the first N jobs only, EASY at 1 (worked by hand)", "[placement][simulate]")
{
    // 4 hosts, first-fit. t=0 job 1 on h1-h3 until 10. t=1 job 2 (2 nodes)
    // is planned on h1+h2 from 10; job 3 (4 nodes) on all four from 20 (job
    // 2's limit). t=2 job 4 (1 node, 30 s): h4 is free now, but job 3's plan
    // holds it from 20, so conservative backfill plans job 4 at 30, after job
    // 3. With a plan for the first job only (bf_job_part_count_reserve=1),
    // job 3 gets none, job 4 starts at once on h4 and job 3 waits until 32.
    Topology t = topo_csv("host,leaf\nh1,L1\nh2,L1\nh3,L1\nh4,L1\n");
    Cluster c(t);
    const char *trace = "job_id,submit_s,duration_s,nodes,limit\n1,0,10,3,10\n2,1,10,2,10\n3,1,10,4,10\n4,2,30,1,30\n";
    auto starts = [&](int reserve) {
        SimOptions opt;
        opt.conservative = true;
        opt.bf_reserve = reserve;
        return start_times(c, trace, opt);
    };
    std::map<std::string, double> every = starts(0);
    CHECK(every["2"] == Approx(10));
    CHECK(every["3"] == Approx(20));
    CHECK(every["4"] == Approx(30));
    std::map<std::string, double> first = starts(1);
    CHECK(first["2"] == Approx(10));
    CHECK(first["4"] == Approx(2));
    CHECK(first["3"] == Approx(32));
    CHECK(starts(2) == every);  // two plans are all this queue makes
}

TEST_CASE("confidence intervals use Student's t", "[placement][simulate]")
{
    Stat s = stat_of({1, 2, 3});
    CHECK(s.mean == Approx(2));
    CHECK(s.ci == Approx(4.303 * 1.0 / std::sqrt(3.0)));
}

TEST_CASE("bad traces fail with FILE:LINE", "[placement][trace]")
{
    auto bad = [](const std::string &text) {
        std::istringstream in(text);
        return read_trace(in, "t.csv");
    };
    CHECK_THROWS_WITH(bad("job_id,submit_s,duration_s\n1,0,5\n"), Catch::StartsWith("t.csv:1: found no nodes column"));
    CHECK_THROWS_WITH(bad("job_id,submit_s,duration_s,nodes\n1,0,5,2\n2,x,5,2\n"),
                      Catch::StartsWith("t.csv:3: found submit time 'x', expected a number"));
    // (helper 47) what sites hand over instead, named; a NUL is no digit
    CHECK_THROWS_WITH(bad("JobID|Submit|Start|End|NNodes\n1|2024-01-01T00:00:00|x|y|2\n"),
                      Catch::StartsWith("t.csv:1: found fields separated by '|'"));
    CHECK_THROWS_WITH(bad("; Version: 2.2\n; Computer: x\n1 0 5 100 2\n"),
                      Catch::StartsWith("t.csv:1: found '; Version: 2.2', a Standard Workload Format header line"));
    std::string nul = "job_id,submit_s,duration_s,nodes\n1,0,5,2";
    nul += '\0';
    nul += "\n";
    CHECK_THROWS_WITH(bad(nul), Catch::StartsWith("t.csv:2: found node count '2\\x00', expected a number"));
    CHECK_THROWS_WITH(bad("job_id,submit_s,duration_s,nodes\n1,0,5,0\n"),
                      Catch::StartsWith("t.csv:2: found node count 0, expected a whole number >= 1"));
    CHECK_THROWS_WITH(bad("job_id,submit_s,duration_s,nodes\n1,0,-5,2\n"),
                      Catch::StartsWith("t.csv:2: found duration -5, expected >= 0"));
    CHECK_THROWS_WITH(bad("job_id,submit_s,duration_s,nodes\n1,0,5\n"),
                      Catch::StartsWith("t.csv:2: found 3 fields, expected 4"));
    CHECK_THROWS_WITH(bad(""), Catch::Contains("found no header"));
    std::istringstream philly("job_id,submit_s,gpus,duration_s,nodes_min_8gpu\na,0,16,100,2\n");
    CHECK(read_trace(philly, "p.csv")[0].nodes == 2);
    std::istringstream mapped("id,t,d,n\na,5,100,3\n");
    auto j = read_trace(mapped, "m.csv", parse_trace_columns("submit=t,duration=d,nodes=n"));
    CHECK(j[0].submit == 5);
    CHECK(j[0].nodes == 3);
    CHECK(j[0].limit == 0);  // no limit column: plan with the duration
    std::istringstream limited("id,submit,duration,nodes,limit\na,0,100,3,60\n");
    CHECK(read_trace(limited, "l.csv")[0].limit == 60);  // ran past it (OverTimeLimit): simulate plans with 100
    // headers in any case; sacct's words for no limit are no limit
    std::istringstream upper(" JOB_ID ,Submit_S,DURATION_S,Nodes,Limit\na,0,100,3,UNLIMITED\nb,0,100,3,Partition_Limit\n");
    auto u = read_trace(upper, "u.csv");
    CHECK(u[0].id == "a");
    CHECK(u[0].limit == 0);
    CHECK(u[1].limit == 0);
    std::istringstream unknown("id,submit,duration,nodes,limit\na,0,100,3,-1\n");
    CHECK(read_trace(unknown, "u.csv")[0].limit == 0);  // SWF's -1: not known
    std::istringstream negative("id,submit,duration,nodes,limit\na,0,100,3,-5\n");
    CHECK_THROWS_WITH(read_trace(negative, "n.csv"), Catch::StartsWith("n.csv:2: found time limit -5, expected >= 0"));
    std::istringstream req("job_id,submit_s,duration_s,nodes,req_time_s\na,0,100,3,600\n");
    CHECK(read_trace(req, "r.csv")[0].limit == 0);  // req_time_s only when asked
    std::istringstream req2("job_id,submit_s,duration_s,nodes,req_time_s\na,0,100,3,600\n");
    CHECK(read_trace(req2, "r.csv", parse_trace_columns("limit=req_time_s"))[0].limit == 600);
}

TEST_CASE("host,leaf,pod,core CSV fabrics", "[topology][csv]")
{
    Topology t = analyse(load_fabric(test_data("csv/crux_topology_hosts.csv")));
    CHECK(t.hosts.size() == 847);
    CHECK(t.islands_at(Level::Leaf).size() == 119);
    CHECK(t.islands_at(Level::Pod).size() == 3);
    CHECK(t.max_tier == 2);
    auto bad = [](const char *text) {
        std::istringstream in(text);
        return parse_topology_csv(in, "f.csv");
    };
    CHECK_THROWS_WITH(bad("host,rack\na,r1\n"), Catch::StartsWith("f.csv:1: found columns \"host,rack\""));
    CHECK_THROWS_WITH(bad("host,leaf\na,L1\na,L2\n"), Catch::StartsWith("f.csv:3: found host a again (first at line 2)"));
    CHECK_THROWS_WITH(bad("host,leaf,pod\na,L1,P1\nb,L1,P2\n"),
                      Catch::StartsWith("f.csv:3: found leaf L1 in pod P2, expected pod P1 as at line 2"));
    CHECK_THROWS_WITH(bad("host,leaf\na,L1,x\n"), Catch::StartsWith("f.csv:2: found 3 fields, expected 2"));
    CHECK_THROWS_WITH(bad("host,leaf\n,L1\n"), Catch::StartsWith("f.csv:2: found an empty host"));
    CHECK_THROWS_WITH(bad("host,leaf\n"), Catch::Contains("found no host rows"));
    // two columns for one role (helper 38: the first was read, silently)
    CHECK_THROWS_WITH(bad("host,leaf,leaf\na,L1,L2\n"),
                      Catch::StartsWith("f.csv:1: found columns 'leaf' and 'leaf' both for the leaf, expected one"));
    CHECK_THROWS_WITH(bad("host,node,leaf\na,b,L1\n"),
                      Catch::StartsWith("f.csv:1: found columns 'host' and 'node' both for the host"));
    std::istringstream mapped("n,sw\na,S1\nb,S2\n");
    CHECK(parse_topology_csv(mapped, "m.csv", parse_csv_columns("host=n,leaf=sw")).nodes.size() == 5);
    CHECK_THROWS_WITH(parse_csv_columns("rack=r"), Catch::Contains("expected ROLE=COLUMN"));
    // (helper 41) a spreadsheet's export: quoted fields (RFC 4180: a comma
    // inside quotes, "" one quote), headers in its own case; one column for
    // two roles and a name no Slurm file can hold are errors
    std::istringstream quoted("\"Host\",\"Leaf Switch\",\"Pod\"\n\"a\",\"L1\",\"P1\"\n\"b\", \"L1\" ,P1\nc,L2,\"P1\"\n");
    Topology q = analyse(parse_topology_csv(quoted, "q.csv", parse_csv_columns("leaf=leaf switch")));
    CHECK(q.hosts.size() == 3);
    CHECK(q.islands_at(Level::Leaf).size() == 2);
    CHECK(q.islands_at(Level::Pod).size() == 1);
    CHECK(split_csv_line("\"a,b\",\"say \"\"hi\"\"\",c") == std::vector<std::string>{"a,b", "say \"hi\"", "c"});
    CHECK(split_csv_line("\"open,x") == std::vector<std::string>{"open,x"});
    CHECK_THROWS_WITH(bad("host,leaf\n\"a,b\",L1\n"),
                      Catch::StartsWith("f.csv:2: found host 'a,b', expected a name without commas"));
    // (helper 45) an unclosed quote said "found 1 fields"; a host name no
    // Slurm node can have was left out with a warning, exit 0
    CHECK_THROWS_WITH(bad("host,leaf\n\"a,L1\n"), Catch::StartsWith("f.csv:2: found an unclosed quote in '\"a,L1'"));
    CHECK_THROWS_WITH(bad("host,leaf\n\"h\"\"1\",L1\n"), Catch::StartsWith("f.csv:2: found host 'h\"1': it holds"));
    std::istringstream same("n,sw\na,S1\n");
    CHECK_THROWS_WITH(parse_topology_csv(same, "s.csv", parse_csv_columns("host=n,leaf=n")),
                      Catch::StartsWith("s.csv:1: found column 'n' for both the host and the leaf, expected a column of its own"));
}

TEST_CASE("aws ec2 describe-instance-topology JSON", "[topology][cloud]")
{
    // hand-written after the documented format: core nn-core1; spines A (leaves
    // 1, 2) and B (leaves 3, 4); 2+2 and 3+1 instances
    Topology t = analyse(load_fabric(test_data("cloud/aws-instance-topology.json")));
    CHECK(t.hosts.size() == 8);
    REQUIRE(t.islands_at(Level::Leaf).size() == 4);
    REQUIRE(t.islands_at(Level::Pod).size() == 2);
    const Island &l3 = t.islands[static_cast<std::size_t>(t.hosts[static_cast<std::size_t>(t.host_index.at("i-0b1"))].leaf_island)];
    CHECK(l3.name == "nn-leaf3");
    CHECK(l3.hosts.size() == 3);
    Cluster c(t, FabricKind::Cloud);
    FreeState f(c);
    CHECK(names(c, place("atoll", c, f, 3)) == V{"i-0b1", "i-0b2", "i-0b3"});
    Placement four = place("atoll", c, f, 4);  // no leaf of 4: the spine whose two leaves hold it exactly
    CHECK(four.level == Level::Pod);
    CHECK(four.pods == 1);
    std::ostringstream labels;
    write_k8s_labels(labels, t);
    CHECK_THAT(labels.str(), Catch::Contains("kubectl label node i-0b4 --overwrite network.topology.nvidia.com/block=nn-leaf4 "
                                             "network.topology.nvidia.com/spine=pod-nn-leaf3 "
                                             "network.topology.nvidia.com/datacenter=fabric\n"));
    auto bad = [](const char *text) {
        std::istringstream in(text);
        return parse_aws_topology(in, "aws.json");
    };
    CHECK_THROWS_WITH(bad("{\"Reservations\": []}"), Catch::StartsWith("aws.json: found no \"Instances\" array"));
    // a login VM (no network nodes) is left out: with nothing else there is no fabric
    CHECK_THROWS_WITH(bad("{\"Instances\": [{\"InstanceId\": \"i-1\", \"NetworkNodes\": []}]}"),
                      Catch::StartsWith("aws.json: found no instance with a topology"));
    CHECK_THROWS_WITH(bad("{\"Instances\": [{\"InstanceId\": \"i-1\", \"NetworkNodes\": [\"a\", \"b\"]}]}"),
                      Catch::StartsWith("aws.json: Instances[0] (i-1): found an array of 2, expected three or more network nodes"));
    CHECK_THROWS_WITH(bad("{\"Instances\": [{\"NetworkNodes\": [\"a\",\"b\",\"c\"]}]}"),
                      Catch::StartsWith("aws.json: Instances[0]: found no InstanceId"));
    CHECK_THROWS_WITH(bad("{\"Instances\": ["), Catch::Contains("not valid JSON"));
}

TEST_CASE("a host whose atoll-topo health failed makes its islands rank last", "[placement][health]")
{
    // pdsh output of atoll-topo health on a1 and x01 (the first line a drain reason)
    std::istringstream results("a1: ERROR: pfc: mlx5_0 port 1 (ens1np0): PFC is on priority 4, expected 3\n"
                               "a1: health: FAILED, 1 error, 0 warnings\n"
                               "pdsh@head: b1: ssh exited with exit code 255\n"
                               "b2: WARNING: mtu: ens1np0 MTU 4200\n"
                               "b2: health: OK, 0 errors, 1 warning\n");
    auto failed = parse_health_results(results, "health.txt");
    REQUIRE(failed.size() == 1);
    CHECK(failed.at("a1").rfind("ERROR: pfc:", 0) == 0);
    std::istringstream in(kTwoPods);
    Fabric f = parse_topology_csv(in, "test.csv");
    // a 4-node job fits a whole leaf; with a host of that leaf sick, another
    Cluster before(analyse(f));
    FreeState all(before);
    std::vector<std::string> first = names(before, place("atoll", before, all, 4));
    REQUIRE(first.size() == 4);
    f.unhealthy.push_back(first[0] + ": " + failed.at("a1"));
    Topology t = analyse(f);
    Cluster c(t);
    CHECK_FALSE(c.island(c.leaf_of(c.find_host(first[0]))).healthy);
    FreeState free(c);
    std::vector<std::string> second = names(c, place("atoll", c, free, 4));
    REQUIRE(second.size() == 4);
    CHECK(c.leaf_of(c.find_host(second[0])) != c.leaf_of(c.find_host(first[0])));
    CHECK(c.island(c.leaf_of(c.find_host(second[0]))).healthy);
    std::ostringstream islands;
    write_islands(islands, c);
    CHECK_THAT(islands.str(), Catch::Contains("\nleaf L1 4 0\n"));  // a1's leaf (ties in fabric order)
    // a line that is not atoll-topo health's (a node's banner) is skipped
    // with FILE:LINE: one node's stray output must not hide the others' failures
    std::istringstream mixed("health: OK\ngpu1: Permission denied\ngpu2: ERROR: ecn: off\n");
    std::vector<std::string> warnings;
    auto m = parse_health_results(mixed, "h.txt", &warnings);
    CHECK(m.size() == 1);
    CHECK(m.count("gpu2") == 1);
    REQUIRE(warnings.size() == 2);
    CHECK_THAT(warnings[0], Catch::StartsWith("h.txt:1: skipped 'health: OK'"));
    CHECK_THAT(warnings[1], Catch::StartsWith("h.txt:2: skipped 'gpu1: Permission denied'"));
    // an FQDN names the fabric's short host
    std::map<std::string, int> idx{{"a1", 0}};
    CHECK(health_host(idx, "a1.cluster.example.com") == 0);
    CHECK(health_host(idx, "b1") == -1);
    CHECK(health_host(idx, "10.0.0.1") == -1);
}

// slurm-block: Slurm's eval_nodes_block() (src/plugins/topology/block/
// eval_nodes_block.c, slurm-24-11-5-1 and slurm-26-05-3-1) on atoll's blocks.
namespace {

// Pod P1: leaves L1 (a1-a4), L2 (b1-b4); pod P2: L3 (c1-c4), L4 (d1-d4):
// base blocks of 4 in file order L1, L2, L3, L4 and BlockSizes=4,8.
const char *kTwoPodsOfFours =
    "host,leaf,pod\n"
    "a1,L1,P1\na2,L1,P1\na3,L1,P1\na4,L1,P1\n"
    "b1,L2,P1\nb2,L2,P1\nb3,L2,P1\nb4,L2,P1\n"
    "c1,L3,P2\nc2,L3,P2\nc3,L3,P2\nc4,L3,P2\n"
    "d1,L4,P2\nd2,L4,P2\nd3,L4,P2\nd4,L4,P2\n";

}  // namespace

TEST_CASE("slurm-block takes the base block with the fewest free nodes that holds the job, the last on a tie",
          "[placement][slurm-block]")
{
    Topology t = topo_csv(kTwoPodsOfFours);
    Cluster c(t);
    REQUIRE(c.blocks().blocks.size() == 4);
    CHECK(c.blocks().base == 4);
    CHECK(c.blocks().levels == std::vector<int>{0, 1});
    FreeState f(c);
    busy(c, f, {"a1", "a2"});
    // 2 nodes: level 0 (one base block); L1 has 2 free, the fewest that hold it
    CHECK(names(c, place("slurm-block", c, f, 2)) == std::vector<std::string>{"a3", "a4"});
    // 4 nodes: L2, L3, L4 tie at 4; Slurm's "bnc <= block_node_cnt" keeps the last
    CHECK(names(c, place("slurm-block", c, f, 4)) == std::vector<std::string>{"d1", "d2", "d3", "d4"});
    // 5 nodes: level 1 (two base blocks); P1 has 6 free, P2 8: P1; inside it the
    // fullest base block first (L2, none holds 5), then the emptiest that holds the rest
    CHECK(names(c, place("slurm-block", c, f, 5)) == std::vector<std::string>{"a3", "b1", "b2", "b3", "b4"});
    // 9 nodes: no level holds 3 base blocks, so the whole cluster is one block
    Placement p9 = place("slurm-block", c, f, 9);
    REQUIRE(p9.ok);
    CHECK(p9.hosts.size() == 9);
    busy(c, f, {"b1", "c1", "d1"});
    // 7 nodes: a level-1 block (two base blocks); P1 has 5 free, P2 6: no
    // block of the level holds it, so the job waits (11 nodes are free)
    CHECK_FALSE(place("slurm-block", c, f, 7).ok);
    // 9 nodes: no level above 1, the whole cluster, 11 free: it runs
    CHECK(place("slurm-block", c, f, 9).hosts.size() == 9);
    CHECK_FALSE(place("slurm-block", c, f, 12).ok);
}

TEST_CASE("slurm-block on an NVL72 unit keeps up to 18 nodes in one domain and 36 in one aggregate of two",
          "[placement][slurm-block][nvlink]")
{
    GenSpec g;
    g.groups_per_pod = 4;
    g.rails = 4;
    g.hosts_per_group = 36;
    g.domain_size = 18;
    Topology t = analyse(generate(g));
    Cluster c(t);
    REQUIRE(c.blocks().blocks.size() == 8);
    CHECK(c.blocks().base == 18);
    CHECK(c.blocks().levels == std::vector<int>{0, 1, 2, 3});
    for (int n = 1; n <= 18; ++n) {
        FreeState f(c);
        Placement p = place("slurm-block", c, f, n);
        REQUIRE(p.ok);
        CHECK(p.domains == 1);
    }
    FreeState f(c);
    // node001-018 (domain 1) half busy, node019-036 (domain 2) free: 36 nodes
    // are a level-1 block; the first pair has 9 + 18 free, too few; the other three tie at 36 and Slurm keeps the last
    for (int k = 1; k <= 18; k += 2)
        busy(c, f, {c.host_name(c.find_host("node001") + k - 1).c_str()});
    Placement p36 = place("slurm-block", c, f, 36);
    REQUIRE(p36.ok);
    CHECK(p36.domains == 2);
    CHECK(c.host_name(p36.hosts.front()) == "node109");
    CHECK(c.host_name(p36.hosts.back()) == "node144");
}

TEST_CASE("the simulator: auto waits only while the wait costs less than spanning (worked by hand)", "[placement][simulate][cost]")
{
    // two 2:1 leaves of four: jobs 1 and 2 hold three hosts of each leaf
    // until 1000 (their limits), job 3 (2 nodes, submitted at 1) finds one
    // free host per leaf: its leaf is expected at 999 s
    Topology t = two_leaves_of_four(2);
    Cluster c(t);
    auto run = [&](double duration3, bool model_wait, bool busy = true) {
        std::string trace = "job_id,submit_s,duration_s,nodes\n1,0,1000,3\n2,0,1000,3\n3,1," +
                            std::to_string(duration3) + ",2\n";
        std::istringstream in(trace);
        std::vector<Job> jobs = read_trace(in, "wait.csv");
        auto tree = make_policy("slurm-tree", c);
        std::vector<JobRecord> rec;
        SimOptions opt;
        opt.island_wait = 28800;
        opt.comm_share = 0.7;
        opt.model_wait = model_wait;
        opt.busy_fabric = busy;
        opt.records = &rec;
        simulate(c, jobs, *tree, opt);
        auto three = std::find_if(rec.begin(), rec.end(), [](const JobRecord &r) { return r.id == "3"; });
        REQUIRE(three != rec.end());
        return *three;
    };
    // under the busy-fabric assumption spanning costs it (1+1 over two
    // leaves, the other 3 hosts of each crossing the uplinks too)
    JobShape shape;
    shape.comm_share = 0.7;
    double cost = span_slowdown(c, 2, shape, default_step_model(c.kind())) - 1;
    REQUIRE(cost > 0.01);
    REQUIRE(cost * 100 < 999);
    REQUIRE(cost * 1e5 > 999);
    JobRecord r = run(100, true);  // spanning costs it cost x 100 s < 999 s: it spans now
    CHECK(r.start == Approx(1));
    CHECK(r.leaves == 2);
    r = run(1e5, true);            // it costs more than the wait: it waits for a leaf
    CHECK(r.start == Approx(1000));
    CHECK(r.leaves == 1);
    r = run(100, false);           // the fixed island_wait waits whatever it costs
    CHECK(r.start == Approx(1000));
    // with the running jobs' load (the default): jobs 1 and 2 are in one
    // leaf each, nobody crosses the uplinks, spanning now costs nothing
    FreeState now(c);
    for (int l : c.at(Level::Leaf))
        for (int k = 0; k < 3; ++k)
            now.set(c.island(l).hosts[static_cast<std::size_t>(k)], false);
    UplinkLoad nobody(c.islands().size(), 0);
    CHECK(span_cost_now(c, now, 2, shape, default_step_model(c.kind()), &nobody) == Approx(0).margin(1e-3));
    CHECK(span_cost_now(c, now, 2, shape, default_step_model(c.kind()), nullptr) == Approx(cost));
    r = run(1e5, true, false);
    CHECK(r.start == Approx(1));
    CHECK(r.leaves == 2);
}

TEST_CASE("FreeState keeps the most free hosts of any island of each level", "[placement]")
{
    Topology t = topo_csv(kTwoPods);
    Cluster c(t);
    FreeState all(c);
    CHECK(all.most_free(Level::Leaf) == 4);
    CHECK(all.most_free(Level::Pod) == 8);
    CHECK(all.most_free(Level::Fabric) == 14);
    FreeState f(c, false);
    CHECK(f.most_free(Level::Leaf) == 0);
    CHECK(f.most_free(Level::Pod) == 0);
    for (const char *h : {"a1", "a2", "b1"})
        f.set(c.find_host(h), true);
    CHECK(f.most_free(Level::Leaf) == 2);  // L1
    CHECK(f.most_free(Level::Pod) == 3);   // P1
    for (const char *h : {"c1", "c2", "c3", "c4"})
        f.set(c.find_host(h), true);
    CHECK(f.most_free(Level::Leaf) == 4);  // L3
    CHECK(f.most_free(Level::Pod) == 4);   // P2
    f.set(c.find_host("c1"), false);
    f.set(c.find_host("a1"), true);        // free already: counted once
    CHECK(f.most_free(Level::Leaf) == 3);
    CHECK(f.most_free(Level::Pod) == 3);
    CHECK(f.most_free(Level::Fabric) == 6);
    // atoll knows no leaf has room without weighing them, and says so
    auto atoll = make_policy("atoll", c);
    Placement p = atoll->place(f, Request{4});
    REQUIRE(p.ok);
    CHECK(std::find(p.notes.begin(), p.notes.end(), "leaf: none of 4 has 4 free (most: 3)") != p.notes.end());
    // without explain: the same hosts, no text
    for (const std::string &name : policy_names()) {
        for (int n : {2, 4, 6}) {
            auto pol = make_policy(name, c, 7);
            auto again = make_policy(name, c, 7);
            Request r{n};
            Placement with = pol->place(f, r);
            r.explain = false;
            Placement without = again->place(f, r);
            CHECK(with.hosts == without.hosts);
            CHECK(without.notes.empty());
            CHECK(without.considered.empty());
            CHECK((with.notes.size() + with.considered.size()) > 0);
        }
    }
}

TEST_CASE("the simulator's uplink load: the jobs running, or the busy-fabric assumption", "[placement][simulate][cost]")
{
    // two 2:1 leaves of four: jobs 1 and 2 hold three hosts of each leaf,
    // job 3 (2 nodes, 100 s) spans both at once; no other job crosses the
    // uplinks, so with the running jobs' load it shares them with nobody,
    // and under the busy-fabric assumption with the other 3 hosts of each leaf
    Topology t = two_leaves_of_four(2);
    Cluster c(t);
    auto run = [&](bool busy) {
        std::istringstream in("job_id,submit_s,duration_s,nodes\n1,0,1000,3\n2,0,1000,3\n3,1,100,2\n");
        std::vector<Job> jobs = read_trace(in, "load.csv");
        auto tree = make_policy("slurm-tree", c);
        std::vector<JobRecord> rec;
        SimOptions opt;
        opt.comm_share = 0.7;
        opt.busy_fabric = busy;
        opt.records = &rec;
        simulate(c, jobs, *tree, opt);
        auto three = std::find_if(rec.begin(), rec.end(), [](const JobRecord &r) { return r.id == "3"; });
        REQUIRE(three != rec.end());
        CHECK(three->leaves == 2);
        return three->duration;
    };
    Placement p;
    p.hosts = {c.island(c.at(Level::Leaf)[0]).hosts.back(), c.island(c.at(Level::Leaf)[1]).hosts.back()};
    std::sort(p.hosts.begin(), p.hosts.end());
    describe(c, p);
    REQUIRE(p.leaves == 2);
    JobShape shape;
    shape.comm_share = 0.7;
    StepModel m = default_step_model(c.kind());
    UplinkLoad nobody(c.islands().size(), 0);
    double alone = slowdown(c, p, shape, m, &nobody), busy = slowdown(c, p, shape, m, nullptr);
    REQUIRE(busy > alone);
    CHECK(run(false) == Approx(100 * alone));
    CHECK(run(true) == Approx(100 * busy));
}

namespace {

// Hops between leaf islands as a breadth-first search from each one's own
// switches gives them: the reference for Cluster::hops, however it is computed
std::vector<int> bfs_hops(const Topology &t, const std::vector<int> &leaves)
{
    std::vector<std::vector<int>> adj(t.switches.size());
    auto es = boost::edges(t.graph);
    for (auto e = es.first; e != es.second; ++e) {
        int a = static_cast<int>(boost::source(*e, t.graph)), b = static_cast<int>(boost::target(*e, t.graph));
        adj[static_cast<std::size_t>(a)].push_back(b);
        adj[static_cast<std::size_t>(b)].push_back(a);
    }
    std::size_t L = leaves.size();
    std::vector<int> out(L * L, -1);
    for (std::size_t a = 0; a < L; ++a) {
        std::vector<int> d(t.switches.size(), -1);
        std::vector<int> q;
        for (int s : t.islands[static_cast<std::size_t>(leaves[a])].leaves) {
            d[static_cast<std::size_t>(s)] = 0;
            q.push_back(s);
        }
        for (std::size_t i = 0; i < q.size(); ++i)
            for (int w : adj[static_cast<std::size_t>(q[i])])
                if (d[static_cast<std::size_t>(w)] < 0) {
                    d[static_cast<std::size_t>(w)] = d[static_cast<std::size_t>(q[i])] + 1;
                    q.push_back(w);
                }
        for (std::size_t b = 0; b < L; ++b) {
            int best = -1;
            for (int s : t.islands[static_cast<std::size_t>(leaves[b])].leaves)
                if (d[static_cast<std::size_t>(s)] >= 0 && (best < 0 || d[static_cast<std::size_t>(s)] < best))
                    best = d[static_cast<std::size_t>(s)];
            out[a * L + b] = best < 0 ? -1 : best + 2;
        }
    }
    return out;
}

}  // namespace

TEST_CASE("hops between leaf islands: a search from each leaf's own switches, on fabrics of every shape", "[placement]")
{
    std::vector<std::pair<std::string, Topology>> fabrics;
    GenSpec three;
    three.pods = 3;
    three.groups_per_pod = 3;
    three.rails = 2;
    three.hosts_per_group = 3;
    fabrics.emplace_back("3 pods, 2 rails", analyse(generate(three)));
    GenSpec faults = three;
    faults.pods = 2;
    faults.rails = 4;
    faults.swap_rails = {{"node001", 0, 2}};
    faults.drop_leaves = {"ib-leaf03"};
    fabrics.emplace_back("miscabled, a leaf gone", analyse(generate(faults)));
    GenSpec flat;
    flat.groups_per_pod = 6;
    flat.oversub = 4;
    fabrics.emplace_back("one pod 4:1", analyse(generate(flat)));
    fabrics.emplace_back("Alibaba's Clos", analyse(load_fabric(test_data("csv/crux_topology_hosts.csv"))));
    fabrics.emplace_back("Selene storage", analyse(load_fabric(test_data("ibnetdiscover/ufm_selene_storage_hdr.txt"))));
    fabrics.emplace_back("mixed FDR/EDR/HDR", analyse(load_fabric(test_data("ibnetdiscover/ufm_small_topo_mixed_fdr_edr_hdr.txt"))));
    fabrics.emplace_back("two pods CSV", topo_csv(kTwoPods));
    for (const auto &nt : fabrics) {
        INFO(nt.first);
        Cluster c(nt.second);
        const std::vector<int> &leaves = c.at(Level::Leaf);
        REQUIRE(leaves.size() >= 2);
        std::vector<int> want = bfs_hops(nt.second, leaves);
        std::size_t L = leaves.size(), bad = 0;
        for (std::size_t a = 0; a < L; ++a)
            for (std::size_t b = 0; b < L; ++b)
                bad += c.hops(leaves[a], leaves[b]) != want[a * L + b];
        CHECK(bad == 0);
    }
}

TEST_CASE("the best placement of a size is tried inside each pod too", "[placement][cost]")
{
    // helper 36's fabric: pod 1's leaves hold 16, 4, 4, 4 hosts, pod 2's 12,
    // 12, 1, 1; one spine-to-core cable in four (4:1 across pods). The
    // fewest leaves for 28 (16 + 12) cross the pods; 16 + 4 + 4 + 4 in pod 1
    // does not and is faster: the best, so that placement's slowdown is 1
    GenSpec g;
    g.pods = 2;
    g.cores = 4;
    g.groups_per_pod = 4;
    g.hosts_per_group = 16;
    g.speed = Speed::NDR;
    Fabric f = generate(g);
    const int keep[] = {16, 4, 4, 4, 12, 12, 1, 1};
    std::set<std::uint64_t> drop;
    for (int leaf = 0; leaf < 8; ++leaf)
        for (int k = keep[leaf]; k < 16; ++k) {
            char name[16];
            std::snprintf(name, sizeof name, "node%03d", leaf * 16 + k + 1);
            for (const Node &n : f.nodes)
                if (n.type == NodeType::Ca && n.desc.rfind(std::string(name) + " ", 0) == 0)
                    drop.insert(n.guid);
        }
    REQUIRE(drop.size() == 8 * 16 - 54);
    Topology full = analyse(f);
    std::set<std::uint64_t> spine, core;
    for (const auto &s : full.switches)
        (s.tier == 1 ? spine : s.tier == 2 ? core : drop).insert(s.tier == 0 ? 0 : s.guid);
    drop.erase(0);
    int k = 0;
    std::vector<Link> links;
    for (const Link &l : f.links) {
        if (drop.count(l.a.guid) || drop.count(l.b.guid))
            continue;
        bool up = (spine.count(l.a.guid) && core.count(l.b.guid)) || (core.count(l.a.guid) && spine.count(l.b.guid));
        if (up && k++ % 4 != 0)
            continue;
        links.push_back(l);
    }
    f.links = links;
    f.nodes.erase(std::remove_if(f.nodes.begin(), f.nodes.end(), [&](const Node &n) { return drop.count(n.guid) > 0; }),
                  f.nodes.end());
    normalise(f);
    Topology t = analyse(f);
    Cluster c(t);
    REQUIRE(c.spine_oversub() > 1);
    auto on = [&](const std::string &list) {
        Placement p;
        for (const std::string &h : expand_hostlist(list))
            p.hosts.push_back(c.find_host(h));
        describe(c, p);
        return p;
    };
    Placement in_pod = on("node[001-020,033-036,049-052]"), across = on("node[001-016,065-076]");
    REQUIRE(in_pod.leaves == 4);
    REQUIRE(across.leaves == 2);
    JobShape job;
    job.all_to_all = true;
    job.comm_share = 1;
    StepModel m = default_step_model(c.kind());
    double a = step_time(c, in_pod, job, m).step_s, b = step_time(c, across, job, m).step_s;
    REQUIRE(a < b);
    CHECK(best_step_time(c, 28, job, m).step_s == Approx(a));
    CHECK(slowdown(c, in_pod, job, m) == Approx(1));
    CHECK(slowdown(c, across, job, m) == Approx(b / a));
}

TEST_CASE("FreeState::take_island leaves the state take() of its hosts leaves, on fabrics of every shape", "[placement]")
{
    std::vector<std::pair<std::string, Topology>> fabrics;
    GenSpec nvl;  // domains across the rails' leaves, the last one smaller
    nvl.pods = 2;
    nvl.groups_per_pod = 2;
    nvl.rails = 4;
    nvl.hosts_per_group = 10;
    nvl.domain_size = 7;
    fabrics.emplace_back("2 pods, 4 rails, domains of 7", analyse(generate(nvl)));
    GenSpec faults = nvl;
    faults.domain_size = 0;
    faults.swap_rails = {{"node001", 0, 2}};
    faults.drop_leaves = {"ib-leaf03"};
    fabrics.emplace_back("miscabled, a leaf gone", analyse(generate(faults)));
    fabrics.emplace_back("Alibaba's Clos", analyse(load_fabric(test_data("csv/crux_topology_hosts.csv"))));
    fabrics.emplace_back("two pods CSV", topo_csv(kTwoPods));
    for (const auto &named : fabrics) {
        INFO(named.first);
        Cluster c(named.second);
        for (std::size_t is = 0; is < c.islands().size(); ++is) {
            // some hosts busy already (every third), so the counts differ by island
            FreeState bulk(c), one(c);
            for (std::size_t h = 0; h < c.host_count(); h += 3) {
                bulk.set(static_cast<int>(h), false);
                one.set(static_cast<int>(h), false);
            }
            bulk.take_island(static_cast<int>(is));
            one.take(c.island(static_cast<int>(is)).hosts);
            bool same = true;
            for (std::size_t i = 0; i < c.islands().size(); ++i)
                same = same && bulk.free_in(static_cast<int>(i)) == one.free_in(static_cast<int>(i));
            for (std::size_t h = 0; h < c.host_count(); ++h)
                same = same && bulk.is_free(static_cast<int>(h)) == one.is_free(static_cast<int>(h));
            for (Level l : {Level::Domain, Level::Leaf, Level::Group, Level::Pod, Level::Fabric})
                same = same && bulk.most_free(l) == one.most_free(l);
            INFO("island " << c.island(static_cast<int>(is)).name);
            CHECK(same);
        }
    }
}
