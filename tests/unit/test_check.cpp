#include "catch.hpp"

#include "testdata.hpp"
#include "topology/check.hpp"
#include "topology/generate.hpp"

using namespace atl;

namespace {
std::vector<std::string> codes(const std::vector<Finding> &fs)
{
    std::vector<std::string> c;
    for (const auto &f : fs)
        c.push_back(f.code + " " + f.subject);
    return c;
}
}  // namespace

TEST_CASE("check finds the degraded links ibsim was told to make", "[check]")
{
    for (const char *file : {"ibnetdiscover.txt", "ibnetdiscover.cache"}) {
        SECTION(file)
        {
            Topology t = analyse(load_fabric(test_data(std::string("ibsim/fattree_dualport_degraded/") + file)));
            auto fs = check(t);
            CHECK(codes(fs) == std::vector<std::string>{"degraded-link ib-leaf01[1] - gpu001 mlx5_0[1]",
                                                        "degraded-link ib-spine01[13] - ib-leaf04[17]"});
            CHECK(fs[0].severity == Severity::Error);
            CHECK_THAT(fs[0].message, Catch::Contains("1xHDR"));
        }
    }
}

TEST_CASE("a healthy generated fabric has no findings", "[check]")
{
    GenSpec s;
    s.rails = 4;
    s.groups_per_pod = 3;
    s.pods = 2;
    CHECK(check(analyse(generate(s))).empty());
    GenSpec flat;
    CHECK(check(analyse(generate(flat))).empty());
}

TEST_CASE("check reports exactly the injected faults", "[check]")
{
    GenSpec s;
    s.rails = 4;
    s.groups_per_pod = 3;
    s.hosts_per_group = 6;
    SECTION("two swapped cables between rails")
    {
        s.swap_rails.push_back({"node002", 1, 2});
        CHECK(codes(check(analyse(generate(s)))) ==
              std::vector<std::string>{"miswired-rail node002 mlx5_1", "miswired-rail node002 mlx5_2"});
    }
    SECTION("a degraded host link")
    {
        s.degrade.push_back({"node007", 3});
        CHECK(codes(check(analyse(generate(s)))) == std::vector<std::string>{"degraded-link ib-leaf08[1] - node007 mlx5_3[1]"});
    }
    SECTION("a missing leaf")
    {
        s.drop_leaves.push_back("ib-leaf06");
        auto fs = check(analyse(generate(s)));
        CHECK(codes(fs) == std::vector<std::string>{"small-rail-group grp-ib-leaf05"});
        CHECK_THAT(fs[0].message, Catch::Contains("no leaf for rail mlx5_1"));
    }
    SECTION("a default description")
    {
        s.default_desc.push_back({"node013", 0});
        auto fs = check(analyse(generate(s)));
        REQUIRE(codes(fs).size() == 1);
        CHECK(fs[0].code == "default-description");
        CHECK_THAT(fs[0].message, Catch::Contains("probably node013's rail mlx5_0 adapter"));
    }
    SECTION("all four at once")
    {
        s.swap_rails.push_back({"node002", 1, 2});
        s.degrade.push_back({"node007", 3});
        s.drop_leaves.push_back("ib-leaf10");
        s.default_desc.push_back({"node013", 0});
        auto c = codes(check(analyse(generate(s))));
        REQUIRE(c.size() == 5);
        CHECK(c[0] == "default-description 0x98039b0300000300");
        CHECK(c[1] == "degraded-link ib-leaf08[1] - node007 mlx5_3[1]");
        CHECK(c[4] == "small-rail-group grp-ib-leaf09");
    }
}

TEST_CASE("check: hosts missing a rail, duplicate descriptions, short uplinks", "[check]")
{
    GenSpec s;
    s.rails = 2;
    s.groups_per_pod = 4;
    Fabric f = generate(s);
    // unplug node003's rail 1 adapter: it disappears from the fabric
    std::uint64_t gone = 0;
    for (const auto &n : f.nodes)
        if (n.desc == "node003 mlx5_1")
            gone = n.guid;
    f.links.erase(std::remove_if(f.links.begin(), f.links.end(), [&](const Link &l) { return l.a.guid == gone; }), f.links.end());
    f.nodes.erase(std::remove_if(f.nodes.begin(), f.nodes.end(), [&](const Node &n) { return n.guid == gone; }), f.nodes.end());
    // two adapters claim the same name
    for (auto &n : f.nodes)
        if (n.desc == "node009 mlx5_0")
            n.desc = "node010 mlx5_0";
    // one uplink of ib-leaf05 down
    for (auto it = f.links.begin(); it != f.links.end(); ++it)
        if (it->a.guid == 0xb8599f0300a00000ULL && it->b.guid == 0xb8599f0300b00004ULL) {
            f.links.erase(it);
            break;
        }
    auto c = codes(check(analyse(f)));
    CHECK(c == std::vector<std::string>{"duplicate-description node010 mlx5_0", "missing-rail node003",
                                        "missing-rail node009", "missing-uplinks ib-leaf05"});
}
