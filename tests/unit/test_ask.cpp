#include "catch.hpp"
#include <algorithm>
#include <sstream>

#include "testdata.hpp"
#include "placement/cluster.hpp"
#include "placement/policy.hpp"
#include "slurm/ask.hpp"

using namespace atl;

namespace {

// Every request x policy x node count of the table against slurm_ask() on the
// idle fabric (the live path of atoll-place --slurm): the same answer.
// random's table lists islands by name (job_submit.lua shuffles): compared as sets.
void table_agrees(const Cluster &c)
{
    std::stringstream table;
    write_requests_table(table, c);
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
                SlurmAsk live = slurm_ask(c, *policy, idle, ir, req, n);
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
    }
    SECTION("a generated fabric: 3 pods of 4 rail groups of 6, 2 rails (groups of 2 leaves)")
    {
        Topology t = generated(3, 4, 6, 2);
        table_agrees(Cluster(t));
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
    CHECK(a.switches == 3);
    CHECK(a.constraint.empty());
    a = ask("pod:required", 9);
    CHECK(a.refuse == "--fabric-island=pod:required: no pod can hold 9 nodes; the largest pod holds 8");
    auto tree = make_policy("slurm-tree", c);
    a = slurm_ask(c, *tree, idle, parse_island("leaf:required"), "leaf:required", 3);
    CHECK(a.switches == 1);
    CHECK(a.constraint.empty());
    CHECK(ask("none", 3).none);
    CHECK(mm_ss(3600) == "60:00");
}
