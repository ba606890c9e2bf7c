#include "catch.hpp"
#include <algorithm>
#include <cmath>
#include <limits>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "testdata.hpp"
#include "placement/cluster.hpp"
#include "placement/policy.hpp"
#include "slurm/ask.hpp"
#include "topology/csv.hpp"
#include "topology/slurm.hpp"

using namespace atl;

namespace {

// Every request x policy x node count of the table against slurm_ask() on the
// idle fabric (the live path of atoll-place --slurm): the same answer.
// random's table lists islands by name (job_submit.lua shuffles): compared as sets.
void table_agrees(const Cluster &c, const BlockSite *block = nullptr)
{
    std::stringstream table;
    write_requests_table(table, c, block);
    std::vector<TableRow> rows = read_requests_table(table, c, "atoll-requests.conf");
    REQUIRE(!rows.empty());
    FreeState idle(c, true);
    int checked = 0;
    for (const std::string &pname : policy_names()) {
        auto policy = make_policy(pname, c);
        for (const std::string &req : table_requests()) {
            IslandRequest ir = parse_island(req);
            for (int n = 1; n <= c.pool_size() + 2; ++n) {
                auto row = std::find_if(rows.begin(), rows.end(), [&](const TableRow &r) {
                    return r.request == req && r.policy == pname && r.from <= n && n <= r.to;
                });
                REQUIRE(row != rows.end());
                SlurmAsk live = slurm_ask(c, *policy, idle, ir, req, n, block);
                SlurmAsk t = row->ask;
                INFO(req << " " << pname << " n=" << n);
                if (!live.refuse.empty()) {
                    std::string m = t.refuse;
                    auto p = m.find("{n}");
                    REQUIRE(p != std::string::npos);
                    m.replace(p, 3, std::to_string(n));
                    CHECK(m == live.refuse);
                    ++checked;
                    continue;
                }
                CHECK(t.refuse.empty());
                CHECK(t.level == live.level);
                CHECK(t.switches == live.switches);
                CHECK(t.wait == live.wait);
                CHECK(t.widen == live.widen);
                CHECK(t.segment == live.segment);
                // by name: a leaf island and a rail group of the same hosts share a name
                auto names = [&](const std::vector<int> &v) {
                    std::vector<std::string> out;
                    for (int i : v)
                        out.push_back(c.island(i).name);
                    if (pname == "random")
                        std::sort(out.begin(), out.end());
                    return out;
                };
                CHECK(names(t.constraint) == names(live.constraint));
                CHECK(names(t.wider) == names(live.wider));
                ++checked;
            }
        }
    }
    CHECK(checked == static_cast<int>(policy_names().size() * table_requests().size()) * (c.pool_size() + 2));
}

}  // namespace

TEST_CASE("the Slurm request table and the live path agree, every request x policy x node count", "[ask]")
{
    SECTION("Selene: 469 hosts, 25 rail groups, 4 pods and service leaves")
    {
        Topology t = analyse(load_fabric(selene_path()));
        table_agrees(Cluster(t));
        BlockSite b = block_site(t);
        table_agrees(Cluster(t), &b);  // topology/block: blocks of 14, no aggregate
    }
    SECTION("a generated fabric: 3 pods of 4 rail groups of 6, 2 rails (groups of 2 leaves)")
    {
        Topology t = generated(3, 4, 6, 2);
        table_agrees(Cluster(t));
        BlockSite b = block_site(t);
        table_agrees(Cluster(t), &b);
    }
    SECTION("NVLink domains of 4 in 2 pods of 2 leaves of 8: domain requests are in the table")
    {
        Topology t = generated(2, 2, 8, 1, 4);
        Cluster c(t);
        table_agrees(c);
        BlockSite b = block_site(t);
        table_agrees(c, &b);
        std::stringstream table;
        write_requests_table(table, c, nullptr);
        std::vector<TableRow> rows = read_requests_table(table, c, "atoll-requests.conf");
        auto row = [&](const std::string &req, int n) {
            return *std::find_if(rows.begin(), rows.end(), [&](const TableRow &r) {
                return r.request == req && r.policy == "atoll" && r.from <= n && n <= r.to;
            });
        };
        // 3 nodes: held to the 8 domains; 5: no domain holds them
        CHECK(row("domain:required", 3).ask.level == Level::Domain);
        CHECK(row("domain:required", 3).ask.constraint.size() == 8);
        CHECK(row("domain:required", 5).ask.refuse == "--fabric-island=domain:required: no domain can hold {n} nodes; the largest domain holds 4");
        CHECK(row("domain:preferred", 4).ask.widen);
        // a domain lies in a leaf: no --switches=K@leaf_wait over its
        // constraint (it was 1@leaf_wait, and the simulator then held the job
        // to a leaf, not the domain, once a leaf wait was replayed)
        CHECK(row("domain:required", 3).ask.switches == 0);
        CHECK(row("domain:required", 3).ask.wait == SwitchWait::None);
    }
    SECTION("no NVLink domains: a domain request is refused, saying why")
    {
        Topology t = generated(1, 2, 4);
        Cluster c(t);
        FreeState idle(c, true);
        auto atoll = make_policy("atoll", c);
        SlurmAsk a = slurm_ask(c, *atoll, idle, parse_island("domain:required"), "domain:required", 2);
        CHECK(a.refuse == "--fabric-island=domain:required: no NVLink domain can hold 2 nodes: this fabric has none "
                          "(atoll-topo discover --nvlink, or a cloud topology that names them)");
        table_agrees(c);
    }
}

TEST_CASE("Slurm requests, checked by hand on 2 pods of 2 leaves of 4", "[ask]")
{
    Topology t = generated(2, 2, 4);
    Cluster c(t);
    FreeState idle(c, true);
    auto atoll = make_policy("atoll", c);
    auto ask = [&](const std::string &r, int n) { return slurm_ask(c, *atoll, idle, parse_island(r), r, n); };
    SlurmAsk a = ask("leaf:required", 3);
    CHECK(a.level == Level::Leaf);
    CHECK(a.switches == 0);  // one leaf island is one leaf switch
    CHECK(constraint_text(c, a.constraint) == "[ib-leaf01|ib-leaf02|ib-leaf03|ib-leaf04]");
    a = ask("leaf:preferred", 3);
    CHECK(a.switches == 1);
    CHECK(a.wait == SwitchWait::Island);
    CHECK(constraint_text(c, a.constraint) == "[pod-ib-leaf01|pod-ib-leaf03]");  // held to a pod when it widens
    a = ask("pod:preferred", 6);
    CHECK(a.switches == 2);
    CHECK(a.wait == SwitchWait::Leaf);
    CHECK(a.widen);
    CHECK(a.wider.empty());  // then anywhere
    a = ask("auto", 9);
    CHECK(a.level == Level::Fabric);
    CHECK(a.switches == 0);  // a non-blocking fat tree: spanning is free, auto asks nothing
    CHECK(a.constraint.empty());
    CHECK(ask("auto", 3).switches == 0);
    CHECK(ask("leaf:preferred", 3).switches == 1);  // what the user asks for is still asked
    a = ask("pod:required", 9);
    CHECK(a.refuse == "--fabric-island=pod:required: no pod can hold 9 nodes; the largest pod holds 8");
    auto tree = make_policy("slurm-tree", c);
    a = slurm_ask(c, *tree, idle, parse_island("leaf:required"), "leaf:required", 3);
    CHECK(a.switches == 1);
    CHECK(a.constraint.empty());
    CHECK(ask("none", 3).none);
    CHECK(mm_ss(3600) == "60:00");
}

TEST_CASE("Slurm requests under topology/block, checked by hand", "[ask]")
{
    // 2 pods of 2 leaves of 4: BlockSizes=4,8, a pod is an aggregated block
    Topology t = generated(2, 2, 4);
    Cluster c(t);
    FreeState idle(c, true);
    BlockSite b = block_site(t);
    REQUIRE(b.base == 4);
    REQUIRE(b.levels == std::vector<int>{0, 1});
    auto atoll = make_policy("atoll", c);
    auto ask = [&](const std::string &r, int n) { return slurm_ask(c, *atoll, idle, parse_island(r), r, n, &b); };
    for (const char *r : {"leaf:required", "leaf:preferred", "group:required", "pod:required", "auto"}) {
        SlurmAsk a = ask(r, 3);  // one block holds it: nothing asked, no --switches
        INFO(r);
        CHECK(a.refuse.empty());
        CHECK(a.constraint.empty());
        CHECK(a.switches == 0);
        CHECK_FALSE(a.widen);
        CHECK(a.segment == 0);
    }
    SlurmAsk a = ask("pod:required", 6);  // the aggregate of 2 blocks is a pod
    CHECK(a.constraint.empty());
    CHECK(a.segment == 0);
    a = ask("pod:required", 8);  // a multiple of 4: two whole blocks
    CHECK(a.segment == 4);
    CHECK(ask("pod:preferred", 8).segment == 0);  // no time bound on a segment: required only
    a = ask("auto", 12);
    CHECK(a.level == Level::Fabric);
    CHECK(a.switches == 0);
    CHECK(a.segment == 0);
    CHECK(ask("leaf:required", 5).refuse == "--fabric-island=leaf:required: no leaf can hold 5 nodes; the largest leaf holds 4");
    // the site's BlockSizes=4 alone (no aggregate): a pod of 6 is no block's, so the pods are asked
    BlockSite only4 = block_site(t, std::vector<int>{4});
    CHECK(only4.levels == std::vector<int>{0});
    CHECK(block_site(t, std::vector<int>{4, 8}).levels == std::vector<int>{0, 1});
    a = slurm_ask(c, *atoll, idle, parse_island("pod:required"), "pod:required", 6, &only4);
    CHECK(constraint_text(c, a.constraint) == "[pod-ib-leaf01|pod-ib-leaf03]");
    auto tree = make_policy("slurm-tree", c);
    a = slurm_ask(c, *tree, idle, parse_island("pod:required"), "pod:required", 8, &b);
    CHECK(a.constraint.empty());
    CHECK(a.switches == 0);
    CHECK(a.segment == 0);

    // 3 pods of 4 rail groups of 6 hosts (2 rails): BlockSizes=6,12,24, a pod
    // is an aggregate of 4 blocks: 18 nodes need 3 blocks, so the level of 4
    Topology t3 = generated(3, 4, 6, 2);
    Cluster c3(t3);
    FreeState idle3(c3, true);
    BlockSite b3 = block_site(t3);
    REQUIRE(b3.levels == std::vector<int>{0, 1, 2});
    auto atoll3 = make_policy("atoll", c3);
    a = slurm_ask(c3, *atoll3, idle3, parse_island("pod:required"), "pod:required", 18, &b3);
    CHECK(a.constraint.empty());
    CHECK(a.segment == 6);

    // Selene: blocks of 14 (the smallest compute leaf), leaves of 14 to 20,
    // no aggregate (it would join two pods); service leaves are no blocks
    Topology ts = analyse(load_fabric(selene_path()));
    Cluster cs(ts);
    FreeState idles(cs, true);
    BlockSite bs = block_site(ts);
    REQUIRE(bs.base == 14);
    REQUIRE(bs.levels == std::vector<int>{0});
    auto atolls = make_policy("atoll", cs);
    auto asks = [&](const std::string &r, int n) { return slurm_ask(cs, *atolls, idles, parse_island(r), r, n, &bs); };
    CHECK(asks("leaf:required", 14).constraint.empty());
    a = asks("leaf:required", 16);  // two blocks for Slurm: held to the leaves of 16 or more
    REQUIRE_FALSE(a.constraint.empty());
    for (int is : a.constraint) {
        CHECK(cs.capacity(is) >= 16);
        CHECK(std::find(bs.blocks.begin(), bs.blocks.end(), cs.island(is).name) != bs.blocks.end());
    }
    CHECK(a.segment == 0);
    a = asks("leaf:preferred", 16);
    CHECK(a.widen);
    CHECK(a.wider.size() == 4);  // then its pod
    a = asks("pod:required", 28);
    CHECK(a.constraint.size() == 4);
    CHECK(a.segment == 14);
    CHECK(a.switches == 0);
}

TEST_CASE("what a partition runs: topology.yaml, else TopologyPlugin and BlockSizes", "[ask]")
{
    char dir[] = "/tmp/atoll-site-XXXXXX";
    REQUIRE(mkdtemp(dir));
    std::string d = dir;
    auto put = [](const std::string &path, const std::string &text) { std::ofstream(path) << text; };
    put(d + "/slurm.conf", "TopologyPlugin=topology/block\n"
                           "PartitionName=DEFAULT MaxTime=1:00:00\n"
                           "PartitionName=gpu Nodes=ALL Default=YES Topology=atoll-block # GPU\n"
                           "PartitionName=cpu Nodes=ALL\n"
                           "partitionname=svc Nodes=ALL topology=atoll-flat\n");
    put(d + "/topology.conf", "BlockName=b1 Nodes=n[1-4]\nBlockSizes=4,16\n");
    // no topology.yaml: TopologyPlugin for every partition, BlockSizes of topology.conf
    SiteTopology st = read_site_topology(d + "/slurm.conf");
    CHECK(st.block);
    CHECK(st.block_sizes == std::vector<int>{4, 16});
    CHECK(read_site_topology(d + "/slurm.conf", "cpu").block);
    // topology.yaml beside it (25.05+) wins: the partition's Topology=, else the cluster default
    put(d + "/topology.yaml", "---\n- topology: atoll-tree\n  cluster_default: true\n  tree:\n    switches:\n"
                              "      - switch: s1\n        nodes: n[1-4]\n"
                              "- topology: \"atoll-block\"\n  cluster_default: false\n  block:\n"
                              "    block_sizes:\n      - 8\n      - 16\n    blocks:\n      - block: b1\n"
                              "- topology: atoll-flat\n  flat: true\n"
                              "- topology: other\n  block:\n    block_sizes: [2, 4]\n");
    st = read_site_topology(d + "/slurm.conf");  // gpu, the Default=YES partition
    CHECK(st.name == "atoll-block");
    CHECK(st.block);
    CHECK(st.block_sizes == std::vector<int>{8, 16});
    CHECK_FALSE(read_site_topology(d + "/slurm.conf", "cpu").block);  // no Topology=: the cluster default
    CHECK(read_site_topology(d + "/slurm.conf", "cpu").name == "atoll-tree");
    CHECK(read_site_topology(d + "/slurm.conf", "svc").name == "atoll-flat");
    auto all = partition_topologies(d + "/slurm.conf");
    REQUIRE(all.size() == 3);
    CHECK(all[0].first == "gpu");
    CHECK(all[2].first == "svc");
    std::ifstream y(d + "/topology.yaml");
    auto entries = read_topology_yaml(y);
    REQUIRE(entries.size() == 4);
    CHECK(entries[3].block_sizes == std::vector<int>{2, 4});
    CHECK(entries[2].kind == "flat");
    CHECK(entries[0].cluster_default);
    std::string cmd = "rm -rf '" + d + "'";
    CHECK(std::system(cmd.c_str()) == 0);
}

// ---- auto's wait decision (issue 26) ----------------------------------------

namespace {
Topology four_hosts_csv()
{
    std::istringstream in("host,leaf\nh1,L1\nh2,L1\nh3,L2\nh4,L2\n");
    return analyse(parse_topology_csv(in, "four.csv"));
}

Topology oversubscribed(double oversub)
{
    GenSpec g;
    g.pods = 2;
    g.groups_per_pod = 2;
    g.hosts_per_group = 4;
    g.spines_per_pod = 1;
    g.oversub = oversub;
    return analyse(generate(g));
}
}  // namespace

TEST_CASE("auto asks for an island only where spanning costs something", "[ask][cost]")
{
    Topology t2 = oversubscribed(2);
    Cluster c2(t2);
    FreeState idle(c2, true);
    auto atoll = make_policy("atoll", c2);
    CHECK_FALSE(spanning_free(c2, 3));
    SlurmAsk a = slurm_ask(c2, *atoll, idle, parse_island("auto"), "auto", 3);
    CHECK(a.switches == 1);  // 2:1 leaves: one leaf switch, for island_wait
    CHECK(a.wait == SwitchWait::Island);
    a = slurm_ask(c2, *atoll, idle, parse_island("auto"), "auto", 9);
    CHECK(a.switches == 3);  // the fewest leaves, for leaf_wait
    CHECK(a.wait == SwitchWait::Leaf);
    Topology t1 = generated(2, 2, 4);
    Cluster c1(t1);
    CHECK(spanning_free(c1, 3));
    CHECK(spanning_free(c1, 1));
    // a CSV says nothing of its links: unknown is not free
    Topology csv = four_hosts_csv();
    Cluster cc(csv);
    CHECK_FALSE(spanning_free(cc, 2));
    FreeState idlec(cc, true);
    auto ff = make_policy("first-fit", cc);
    CHECK(slurm_ask(cc, *ff, idlec, parse_island("auto"), "auto", 2).switches == 1);
}

TEST_CASE("spanning_free computed ahead on threads answers as computed one by one", "[ask][cost]")
{
    for (double oversub : {1.0, 2.0, 4.0}) {
        Topology t = oversubscribed(oversub);
        Cluster ahead(t), one_by_one(t);  // two Clusters: two serials, two memos
        const int pool = ahead.pool_size();
        spanning_free_ahead(ahead, pool, 3);
        std::vector<bool> a, b;
        for (int n = 1; n <= pool; ++n)
            a.push_back(spanning_free(ahead, n));
        for (int n = 1; n <= pool; ++n)
            b.push_back(spanning_free(one_by_one, n));
        CHECK(a == b);
        // the answers differ by node count where spanning costs (one node never spans)
        CHECK(a.front());
        if (oversub > 1)
            CHECK(std::count(a.begin(), a.end(), false) > 0);
    }
}

TEST_CASE("auto waits while the wait costs less than spanning (worked by hand)", "[ask][cost]")
{
    // spanning costs 20 % of a 3600 s run: 720 s
    CHECK(auto_wait(0.2, 3600, -1, 28800) == Approx(720));  // unknown wait: the cost bounds it
    CHECK(auto_wait(0.2, 3600, 100, 28800) == Approx(720));
    CHECK(auto_wait(0.2, 3600, 300, 600) == Approx(600));   // the site's island_wait is the upper bound
    CHECK(auto_wait(0.2, 3600, 720, 28800) == 0);           // the wait costs as much: span now
    CHECK(auto_wait(0.2, 3600, std::numeric_limits<double>::infinity(), 28800) == 0);
    CHECK(auto_wait(0.005, 3600, 0, 28800) == 0);           // spanning (nearly) free
    CHECK(auto_wait(0.2, 0, 0, 28800) == 0);
}

TEST_CASE("the expected wait for an island from the running jobs' ends (worked by hand)", "[ask][cost]")
{
    Topology t = four_hosts_csv();
    Cluster c(t);
    FreeState f(c, true);
    int h1 = c.find_host("h1"), h2 = c.find_host("h2"), h3 = c.find_host("h3"), h4 = c.find_host("h4");
    f.take({h1, h2, h3});
    std::vector<std::pair<double, std::vector<int>>> ends{{50, {h1}}, {30, {h3}}, {80, {h2}}};
    CHECK(expected_island_wait(c, f, Level::Leaf, 1, ends) == 0);    // h4 is free now
    CHECK(expected_island_wait(c, f, Level::Leaf, 2, ends) == 30);   // L2 whole when h3 ends
    // a job of one node queued ahead takes the first host to free up (h3,
    // best fit: L2, where h4 is free, has room for it): L1 whole when h2
    // ends, at 80; n nodes anywhere when h1 ends, at 50; the island adds 30
    std::vector<PendingJob> one(1);
    one[0].nodes = 1;  // its time limit not known: it never gives h3 back
    double any = -1;
    CHECK(island_extra_wait(c, f, Level::Leaf, 2, ends, one, &any) == 30);
    CHECK(any == 50);
    // with a limit of 10 s it gives h3 back at 40: L2 whole then, and 2
    // hosts anywhere at the same time: the island adds nothing
    one[0].limit = 10;
    CHECK(island_extra_wait(c, f, Level::Leaf, 2, ends, one, &any) == 0);
    CHECK(any == 40);
    // the queue does not take the hosts free now (it was tried on them):
    // h4 holds a job of one node at once
    CHECK(island_extra_wait(c, f, Level::Leaf, 1, ends, one, &any) == 0);
    CHECK(any == 0);
    // a job of 2 nodes queued ahead takes L2 when h3 ends, and L1 is whole
    // at 80 for ours
    one[0].nodes = 2;
    one[0].limit = -1;
    CHECK(island_extra_wait(c, f, Level::Leaf, 2, ends, one, &any) == 0);
    CHECK(any == 80);
    f.take({h4});
    ends.push_back({100, {h4}});
    CHECK(expected_island_wait(c, f, Level::Leaf, 2, ends) == 80);   // L1 at 80, L2 at 100
    CHECK(std::isinf(expected_island_wait(c, f, Level::Leaf, 3, ends)));
    // jobs sharing a node: h3 frees up when the later of its two jobs ends,
    // and h4 (listed, but free again) is no end
    FreeState g(c, true);
    g.take({h1, h2, h3});
    std::vector<std::pair<double, std::vector<int>>> shared{{30, {h3}}, {70, {h3, h4}}, {50, {h1}}, {60, {h2}}};
    CHECK(expected_island_wait(c, g, Level::Leaf, 2, shared) == 60);  // L1 at 60, L2 at 70
    shared[1].first = 40;
    CHECK(expected_island_wait(c, g, Level::Leaf, 2, shared) == 40);
}

TEST_CASE("Slurm's time format and squeue's running jobs", "[ask][cost]")
{
    // the forms of Slurm's time_str2secs (src/common/parse_time.c)
    CHECK(slurm_seconds("90") == 5400);           // minutes
    CHECK(slurm_seconds("5:30") == 330);          // minutes:seconds
    CHECK(slurm_seconds("1:02:03") == 3723);      // hours:minutes:seconds
    CHECK(slurm_seconds("2-3") == 2 * 86400 + 3 * 3600);
    CHECK(slurm_seconds("2-3:04") == 2 * 86400 + 3 * 3600 + 4 * 60);
    CHECK(slurm_seconds("1-00:00:10") == 86410);
    CHECK(slurm_seconds("UNLIMITED") == -1);
    CHECK(slurm_seconds("1:2:3:4") == -1);
    CHECK(slurm_seconds("") == -1);
    Topology t = four_hosts_csv();
    Cluster c(t);
    std::istringstream in("h[1-2] 10:00\nother9 5:00\nh3 UNLIMITED\n\n");
    auto r = read_running(in, c, "running.txt");
    REQUIRE(r.size() == 2);
    CHECK(r[0].first == 600);
    CHECK(r[0].second.size() == 2);
    CHECK(r[1].second.empty());  // a host the fabric does not know
    std::istringstream bad("h1\n");
    CHECK_THROWS_WITH(read_running(bad, c, "running.txt"), Catch::Contains("running.txt:1:"));
}

TEST_CASE("squeue's pending jobs: the queue before an island (worked by hand)", "[ask][cost]")
{
    // tests/integration/spank.sh's fabric: 2 pods x 2 rail groups x 4 hosts, 2 rails
    GenSpec g;
    g.pods = 2;
    g.groups_per_pod = 2;
    g.rails = 2;
    g.hosts_per_group = 4;
    Topology t = analyse(generate(g));
    Cluster c(t);
    REQUIRE(c.largest(Level::Leaf) == 4);
    REQUIRE(c.largest(Level::Pod) == 8);
    // lines as squeue 22.05.8 writes them (-O "NumNodes:|,Reason:|"); held
    // and dependent jobs are not in the queue for nodes
    std::istringstream in("4|Resources|\n"
                          "8|Priority|\n"
                          "2-4|Priority|\n"
                          "\n"
                          "6|Resources|\n"
                          "4|JobHeldUser|\n"
                          "4|Dependency|\n"
                          "1|BeginTime|\n"
                          "16|ReqNodeNotAvail, UnavailableNodes:node001|\n");
    auto q = read_pending(in, "pending.txt");
    REQUIRE(q.size() == 4);  // a node down (ReqNodeNotAvail) waits for it, not for any
    CHECK(q[0].limit < 0);   // two fields: no time limit known
    CHECK(q[0].nodes == 4);
    CHECK(q[2].nodes == 2);  // a range: its minimum
    CHECK(q[1].nodes == 8);
    CHECK(q[3].nodes == 6);
    // over a limit, or cut by squeue's 20 columns: not waiting for nodes
    std::istringstream lim("1|QOSMaxJobsPerUserLimit|UNLIMITED|\n"
                           "1|AssocGrpNodeLimit|UNLIMITED|\n"
                           "1|PartitionTimeLimit|1:00|\n"
                           "1|DependencyNeverSatis|1:00|\n"
                           "1|launch failed requeued held|1:00|\n"
                           "1|Reservation|1:00|\n"
                           "2|None|1:00|\n");
    auto ql = read_pending(lim, "pending.txt");
    REQUIRE(ql.size() == 1);
    CHECK(ql[0].nodes == 2);
    // a zero-node job (a burst buffer's, -N0) takes no host: left out, not an error
    std::istringstream zero("0|Resources|1:00|\n"
                            "0-4|Priority|1:00|\n"
                            "3|Priority|1:00|\n");
    auto qz = read_pending(zero, "pending.txt");
    REQUIRE(qz.size() == 1);
    CHECK(qz[0].nodes == 3);
    // -O "NumNodes:|,Reason:|,TimeLimit:|" (atoll's cli_filter.lua since
    // 2026-12-06): the limit in seconds, UNLIMITED never frees
    std::istringstream in3("4|Resources|1:00:00|\n"
                           "2|Priority|UNLIMITED|\n"
                           "3|Priority|1-00:00:00|\n");
    auto q3 = read_pending(in3, "pending.txt");
    REQUIRE(q3.size() == 3);
    CHECK(q3[0].limit == 3600);
    CHECK(q3[1].limit < 0);
    CHECK(q3[2].limit == 86400);
    for (const char *bad : {"x|Priority|\n", "4|Priority\n", "4\n", "4|Priority|x|\n", "4|Priority|1:00|x|\n",
                            "squeue: error: x\n"}) {
        std::istringstream b(bad);
        CHECK_THROWS_WITH(read_pending(b, "pending.txt"),
                          Catch::Contains("pending.txt:1:") && Catch::Contains("expected NODES|REASON|"));
    }
}
