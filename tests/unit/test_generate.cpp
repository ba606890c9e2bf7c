#include "catch.hpp"
#include <sstream>

#include "testdata.hpp"
#include "topology/generate.hpp"
#include "topology/topology.hpp"

using namespace atl;

TEST_CASE("a generated fabric written as ibnetdiscover text parses back to itself", "[generate]")
{
    GenSpec s;
    s.rails = 8;
    s.groups_per_pod = 2;
    s.pods = 2;
    s.sharp = true;
    s.degrade.push_back({"node003", 2});
    Fabric f = generate(s);
    std::stringstream ss;
    write_ibnetdiscover(ss, f);
    Fabric g = parse_ibnetdiscover(ss, "generated");
    CHECK(g == f);
}

TEST_CASE("generated fat trees have the requested shape", "[generate]")
{
    SECTION("one leaf and its spines: the spines are no leaves (leaves are not cabled to leaves)")
    {
        GenSpec s;
        s.pods = 1;
        s.groups_per_pod = 1;
        s.hosts_per_group = 4;
        s.spines_per_pod = 2;
        Topology t = analyse(generate(s));
        std::map<int, int> tiers;
        for (const auto &sw : t.switches)
            tiers[sw.tier]++;
        CHECK(tiers == std::map<int, int>{{0, 1}, {1, 2}});
        CHECK(t.max_tier == 1);
        CHECK(t.islands_at(Level::Leaf).size() == 1);
    }
    SECTION("3 levels, 2:1 oversubscribed")
    {
        GenSpec s;
        s.pods = 3;
        s.groups_per_pod = 4;
        s.hosts_per_group = 16;
        s.spines_per_pod = 4;
        s.cores = 4;
        s.oversub = 2;
        Topology t = analyse(generate(s));
        std::map<int, int> tiers;
        for (const auto &sw : t.switches) {
            tiers[sw.tier]++;
            if (sw.tier == 0)
                CHECK(sw.uplinks == 8);
        }
        CHECK(tiers == std::map<int, int>{{0, 12}, {1, 12}, {2, 4}});
        CHECK(t.islands_at(Level::Pod).size() == 3);
        CHECK(t.hosts.size() == 192);
    }
    SECTION("impossible specs are refused")
    {
        GenSpec s;
        s.hosts_per_group = 0;
        CHECK_THROWS_AS(generate(s), std::invalid_argument);
        GenSpec t;
        t.swap_rails.push_back({"node001", 0, 1});
        CHECK_THROWS_WITH(generate(t), Catch::Contains("no host node001 with rail 1"));
    }
}
