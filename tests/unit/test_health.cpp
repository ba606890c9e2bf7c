// atoll-topo health: the readers of `mlnx_qos -i IF` and `ethtool -S IF` on
// real outputs (att/netarbiter's mlnx_qos, ethq's ConnectX-4 ethtool -S), and
// each check on a port whose facts are given here. Expected values come from
// the sources: mlnx_qos's pretty_print() layout, DSCP = class >> 2, the
// kernel's iboe_get_mtu() (96 header bytes), mlx5's counter names.
#include "catch.hpp"

#include <fstream>
#include <sstream>

#include "node/health.hpp"
#include "testdata.hpp"
#include "topology/fabric.hpp"

using namespace atl;

namespace {

MlnxQos qos_file(const std::string &name)
{
    std::ifstream in(test_data("health/" + name));
    REQUIRE(in);
    return parse_mlnx_qos(in, name);
}

MlnxQos qos_text(const std::string &text)
{
    std::istringstream in(text);
    return parse_mlnx_qos(in, "t.qos");
}

// a RoCE port as the netarbiter node has it: class 106, MTU 9000, ECN on
// priority 3, its own mlnx_qos text, 400 Gb/s, a routable RoCE v2 GID at 3
PortFacts good_port(const std::string &hca = "mlx5_2", const std::string &netdev = "eth4")
{
    PortFacts f;
    f.port.hca = hca;
    f.port.port = 1;
    f.port.link_layer = "Ethernet";
    f.port.state = "4: ACTIVE";
    f.port.rate = "400 Gb/sec (4X NDR)";
    f.port.netdevs = {netdev};
    f.port.traffic_class = 106;
    f.port.gid_table_len = 4;
    f.port.gids = {{0, "fe80:0000:0000:0000:a288:c2ff:fe5b:03ec", 1, netdev},
                   {1, "fe80:0000:0000:0000:a288:c2ff:fe5b:03ec", 2, netdev},
                   {2, "0000:0000:0000:0000:0000:ffff:0b00:0048", 1, netdev},
                   {3, "0000:0000:0000:0000:0000:ffff:0b00:0048", 2, netdev}};
    f.netdev = netdev;
    f.netdev_mtu = 9000;
    f.qos = qos_file("netarbiter-eth4.mlnx_qos");
    f.ecn_np.fill(0);
    f.ecn_rp.fill(0);
    f.ecn_np[3] = f.ecn_rp[3] = 1;
    return f;
}

HealthPolicy site()
{
    HealthPolicy p;
    p.roce_tc = 106;
    p.pfc_priority = 3;
    p.mtu = 9000;
    p.rdma_mtu = 4096;
    p.rate = 400;
    return p;
}

const HealthFinding &finding(const std::vector<HealthFinding> &v, const std::string &check, const std::string &hca = "mlx5_2")
{
    for (const HealthFinding &h : v)
        if (h.check == check && h.hca == hca)
            return h;
    FAIL("no " << check << " finding for " << hca);
    return v.front();
}

// the one finding of `check` for the port alone, by value
HealthFinding check_one(const PortFacts &f, const std::string &check, const HealthPolicy &p = site(), double seconds = 0)
{
    return finding(check_health({f}, p, seconds), check, f.port.hca);
}

PortFacts ib_port(const std::string &rate = "400 Gb/sec (4X NDR)")
{
    PortFacts f;
    f.port.hca = "mlx5_4";
    f.port.port = 1;
    f.port.link_layer = "InfiniBand";
    f.port.state = "4: ACTIVE";
    f.port.rate = rate;
    return f;
}

}  // namespace

TEST_CASE("mlnx_qos: netarbiter's trust dscp output reads as printed: the default map, PFC on priority 3", "[health][qos]")
{
    MlnxQos q = qos_file("netarbiter-eth4.mlnx_qos");
    CHECK(q.dcbx == "OS controlled");
    CHECK(q.trust == "dscp");
    CHECK(q.has_dscp2prio);
    CHECK(q.cable_len == 7);
    // "prio:3 dscp:31,30,29,28,27,26,25,24,": the default map, DSCP >> 3
    for (int d = 0; d < 64; ++d)
        CHECK(q.dscp2prio[static_cast<std::size_t>(d)] == d >> 3);
    CHECK(q.dscp2prio[26] == 3);
    std::array<bool, 8> want{};
    want[3] = true;
    CHECK(q.pfc == want);
    // tc: 0 holds priority 1, tc: 1 priority 0, the rest their own number
    CHECK(q.prio_tc == std::array<int, 8>{1, 0, 2, 3, 4, 5, 6, 7});
}

TEST_CASE("mlnx_qos: trust pcp prints no dscp2prio section; a wrapped prio line and the buffer row read too", "[health][qos]")
{
    MlnxQos q = qos_file("trust-pcp.mlnx_qos");
    CHECK(q.trust == "pcp");
    CHECK_FALSE(q.has_dscp2prio);
    CHECK(q.dscp2prio[26] == -1);
    // print_dscp2prio_sysfs wraps after 8 entries (24 characters) with the prefix again
    MlnxQos w = qos_text("Priority trust state: dscp\ndscp2prio mapping:\n\tprio:3 dscp:31,30,29,28,27,26,25,24,\n"
                         "\tprio:3 dscp:46,\nReceive buffer size (bytes): 130944,130944,0,0,0,0,0,0,\nCable len: 7\n"
                         "PFC configuration:\n\tpriority    0   1   2   3   4   5   6   7\n"
                         "\tenabled     0   0   0   1   0   0   0   0   \n\tbuffer      0   0   0   1   0   0   0   0   \n");
    CHECK(w.dscp2prio[46] == 3);
    CHECK(w.dscp2prio[24] == 3);
    CHECK(w.dscp2prio[0] == -1);
}

TEST_CASE("mlnx_qos: malformed text names the file, the line, what was found and what was expected", "[health][qos]")
{
    CHECK_THROWS_WITH(qos_text("PFC configuration:\n\tenabled 0 0 0 1\n"),
                      "t.qos:2: PFC enabled row with 4 values, expected 8 (priorities 0 to 7)");
    CHECK_THROWS_WITH(qos_text("dscp2prio mapping:\n\tprio:3 dscp:26,\n\tprio:5 dscp:26,\n"),
                      "t.qos:3: DSCP 26 mapped to priority 5 and before to 3, expected each DSCP once");
    CHECK_THROWS_WITH(qos_text("dscp2prio mapping:\n\tprio:9 dscp:26,\n"),
                      Catch::Contains("t.qos:2:") && Catch::Contains("N from 0 to 7"));
    CHECK_THROWS_WITH(qos_text("Priority trust state: vlan\n"), "t.qos:1: trust state 'vlan', expected dscp, pcp or none");
    CHECK_THROWS_WITH(qos_text("hello\n"), Catch::Contains("no \"PFC configuration:\" section"));
}

TEST_CASE("mlnx_qos: a second trust line, PFC section or enabled row is an error naming both lines, not the last one winning", "[health][qos]")
{
    const std::string pfc = "PFC configuration:\n\tpriority    0   1   2   3   4   5   6   7\n"
                            "\tenabled     0   0   0   1   0   0   0   0\n";
    CHECK_THROWS_WITH(qos_text(pfc + "\tenabled     0   0   0   0   0   0   0   0\n"),
                      "t.qos:4: found a second PFC \"enabled\" row (the first on line 3), expected one");
    CHECK_THROWS_WITH(qos_text(pfc + pfc), "t.qos:4: found a second \"PFC configuration:\" section (the first on line 1), expected one");
    CHECK_THROWS_WITH(qos_text("Priority trust state: dscp\nPriority trust state: pcp\n" + pfc),
                      "t.qos:2: found a second \"Priority trust state:\" line (the first on line 1), expected one");
    CHECK(qos_text(pfc).pfc[3]);
}

TEST_CASE("ethtool -S: ethq's ConnectX-4 output (flush left, no header) and the indented form read the same", "[health][ethtool]")
{
    std::ifstream in(test_data("health/ethq8-connectx4.ethtool"));
    EthtoolStats s = parse_ethtool_stats(in, "ethq");
    CHECK(s.counters.size() == 751);
    CHECK(s.counters.at("rx_packets") == 845320277u);
    CHECK(s.counters.at("tx_pci_signal_integrity") == 34u);
    CHECK(s.counters.count("rx_prio3_pause") == 0);  // mlx5 lists per-priority pause only where PFC is on
    std::istringstream t("NIC statistics:\n     rx_prio3_pause: 41927\n     tx_pause_storm_warning_events: 0\n");
    EthtoolStats u = parse_ethtool_stats(t, "t");
    CHECK(u.counters.at("rx_prio3_pause") == 41927u);
    std::map<std::string, std::uint64_t> m;
    add_ethtool_counters(m, u);
    CHECK(m == std::map<std::string, std::uint64_t>{{"ethtool/rx_prio3_pause", 41927}, {"ethtool/tx_pause_storm_warning_events", 0}});
    std::istringstream bad("NIC statistics:\n     rx_packets: -3\n");
    CHECK_THROWS_WITH(parse_ethtool_stats(bad, "b"), Catch::StartsWith("b:2: 'rx_packets: -3', expected \"NAME: VALUE\""));
    std::istringstream empty("NIC statistics:\n");
    CHECK_THROWS_WITH(parse_ethtool_stats(empty, "e"), "e: no counter, expected the output of ethtool -S IF");
}

TEST_CASE("policy: a KEY=VALUE file with comments; flags use the same words; unknown keys and bad values are errors", "[health][policy]")
{
    std::istringstream in("# site\nroce-tc = 106\npfc-priority=3  # lossless\n\ntrust=dscp\nmtu=9000\nrate=400\necn=no\n");
    HealthPolicy p = parse_health_policy(in, "site.policy");
    CHECK(p.roce_tc == 106);
    CHECK(p.pfc_priority == 3);
    CHECK(p.mtu == 9000);
    CHECK(p.rate == 400);
    CHECK_FALSE(p.ecn);
    // an editor's byte order mark is no part of the first key; a key given
    // twice keeps the later value, as slurm.conf does, and says so
    std::istringstream bom("\xEF\xBB\xBFroce-tc=106\npfc-priority=3\nroce-tc=104\n");
    std::vector<std::string> said;
    HealthPolicy b = parse_health_policy(bom, "bom.policy", HealthPolicy(), &said);
    CHECK(b.roce_tc == 104);
    CHECK(b.pfc_priority == 3);
    CHECK(said == std::vector<std::string>{"bom.policy:3: roce-tc given again (first on line 1): this later value is used"});
    std::istringstream typo("roce_tc=106\n");
    CHECK_THROWS_WITH(parse_health_policy(typo, "s"), Catch::StartsWith("s:1: unknown key \"roce_tc\", expected one of roce-tc,"));
    std::istringstream bad("pfc-priority=8\n");
    CHECK_THROWS_WITH(parse_health_policy(bad, "s"), "s:1: pfc-priority=8: expected a whole number from 0 to 7");
    HealthPolicy q;
    CHECK_THROWS_AS(set_health_policy(q, "rdma-mtu", "3000"), std::invalid_argument);
    CHECK_THROWS_AS(set_health_policy(q, "trust", "vlan"), std::invalid_argument);
}

TEST_CASE("RDMA active MTU as the kernel derives it from the netdev MTU (iboe_get_mtu: 96 header bytes)", "[health][mtu]")
{
    CHECK(roce_active_mtu(9000) == 4096);
    CHECK(roce_active_mtu(4192) == 4096);  // 4192 - 96 = 4096
    CHECK(roce_active_mtu(4191) == 2048);
    CHECK(roce_active_mtu(1500) == 1024);  // 1404
    CHECK(roce_active_mtu(1120) == 1024);
    CHECK(roce_active_mtu(1119) == 512);
    CHECK(roce_active_mtu(300) == 0);
    CHECK(port_rate_gbps("400 Gb/sec (4X NDR)") == 400);
    CHECK(port_rate_gbps("2.5 Gb/sec (1X SDR)") == 2.5);
    CHECK(port_rate_gbps("fast") == 0);
}

TEST_CASE("health: the correct RoCE port passes every check", "[health]")
{
    auto v = check_health({good_port()}, site(), 0);
    for (const HealthFinding &h : v)
        CHECK((h.status == HealthStatus::Ok || (h.status == HealthStatus::Skipped &&
                                                (h.check == "errors" || h.check == "pause-storm" || h.check == "retransmits"))));
    CHECK(finding(v, "dscp2prio").message == "class 106 -> DSCP 26 -> priority 3");
    CHECK(finding(v, "gid").message == "routable RoCE v2 GID 3 0000:0000:0000:0000:0000:ffff:0b00:0048");
}

TEST_CASE("health: each misconfiguration is an error with its reason", "[health]")
{
    SECTION("PFC on the wrong priority")
    {
        PortFacts f = good_port();
        f.qos = qos_file("pfc-prio4.mlnx_qos");
        HealthFinding h = check_one(f, "pfc");
        CHECK(h.status == HealthStatus::Error);
        CHECK_THAT(h.message, Catch::StartsWith("PFC is on priority 4, not on 3, the RoCE priority"));
    }
    SECTION("PFC on the RoCE priority and another")
    {
        PortFacts f = good_port();
        f.qos->pfc[0] = true;
        HealthFinding h = check_one(f, "pfc");
        CHECK(h.status == HealthStatus::Warning);
        CHECK_THAT(h.message, Catch::StartsWith("PFC is on priority 0 as well as on 3"));
    }
    SECTION("PFC on every priority: no lossy class")
    {
        PortFacts f = good_port();
        for (bool &b : f.qos->pfc)
            b = true;
        HealthFinding h = check_one(f, "pfc");
        CHECK(h.status == HealthStatus::Error);
        CHECK_THAT(h.message, Catch::StartsWith("PFC is on every priority"));
    }
    SECTION("no PFC-priority in the policy: the priority the class maps to is the one checked")
    {
        PortFacts f = good_port();
        f.qos->pfc[3] = false;
        HealthPolicy p = site();
        p.pfc_priority = -1;
        CHECK(finding(check_health({f}, p, 0), "pfc").message.rfind("PFC is off on priority 3, the RoCE priority", 0) == 0);
    }
    SECTION("the class maps to a priority without PFC")
    {
        PortFacts f = good_port();
        f.qos->dscp2prio[26] = 0;
        HealthFinding h = check_one(f, "dscp2prio");
        CHECK(h.status == HealthStatus::Error);
        CHECK_THAT(h.message, Catch::StartsWith("class 106 -> DSCP 26 -> priority 0, the policy's lossless priority is 3"));
    }
    SECTION("trust pcp")
    {
        PortFacts f = good_port();
        f.qos = qos_file("trust-pcp.mlnx_qos");
        auto v = check_health({f}, site(), 0);
        CHECK(finding(v, "trust").status == HealthStatus::Error);
        CHECK(finding(v, "dscp2prio").status == HealthStatus::Skipped);
    }
    SECTION("mlnx_qos text with no trust line: the trust state is unknown, said so, not a missing dscp2prio entry")
    {
        PortFacts f = good_port();
        f.qos->trust.clear();  // netarbiter's text without its "Priority trust state: dscp" line
        auto v = check_health({f}, site(), 0);
        const std::string why = "the trust state is unknown: found no 'Priority trust state:' line in "
                                "netarbiter-eth4.mlnx_qos and no /sys/class/net/eth4/qos/trust";
        CHECK(finding(v, "trust").status == HealthStatus::Error);
        CHECK(finding(v, "trust").message == why + ", expected trust dscp");
        CHECK(finding(v, "dscp2prio").status == HealthStatus::Error);
        CHECK(finding(v, "dscp2prio").message == why + ": whether the DSCP map applies cannot be told");
        f.trust_sysfs = "dscp";  // MLNX_OFED's sysfs file says what the text did not
        CHECK(check_one(f, "dscp2prio").status == HealthStatus::Ok);
    }
    SECTION("trust read from sysfs when no mlnx_qos text was given")
    {
        PortFacts f = good_port();
        f.qos.reset();
        f.trust_sysfs = "pcp";
        CHECK(check_one(f, "trust").status == HealthStatus::Error);
    }
    SECTION("ECN off: the reaction point on the priority, or the notification point on every priority")
    {
        PortFacts f = good_port();
        f.ecn_rp[3] = 0;
        CHECK(check_one(f, "ecn").message.rfind("ECN is off on priority 3 (roce_np on, roce_rp off)", 0) == 0);
        PortFacts g = good_port();
        g.ecn_np.fill(0);
        g.ecn_np[5] = 1;  // the notification point is per port: any priority enables it
        CHECK(check_one(g, "ecn").status == HealthStatus::Ok);
        g.ecn_np.fill(0);
        CHECK(check_one(g, "ecn").status == HealthStatus::Error);
    }
    SECTION("MTU 1500")
    {
        PortFacts f = good_port();
        f.netdev_mtu = 1500;
        auto v = check_health({f}, site(), 0);
        CHECK(finding(v, "mtu").status == HealthStatus::Error);
        CHECK(finding(v, "rdma-mtu").message.rfind("active RDMA MTU 1024 (netdev MTU 1500 less 96 header bytes)", 0) == 0);
    }
    SECTION("no routable RoCE v2 GID")
    {
        PortFacts f = good_port();
        f.port.gids.resize(2);  // the link-local pair only
        CHECK(check_one(f, "gid").status == HealthStatus::Error);
    }
    SECTION("the port's class is not the policy's, or carries the CE bits")
    {
        PortFacts f = good_port();
        f.port.traffic_class = 96;
        CHECK(check_one(f, "class").status == HealthStatus::Error);
        HealthPolicy p = site();
        p.roce_tc = 107;
        CHECK(finding(check_health({good_port()}, p, 0), "class").message.find("both ECN bits") != std::string::npos);
    }
    SECTION("a port down")
    {
        PortFacts f = good_port();
        f.port.state = "1: DOWN";
        CHECK(check_one(f, "link").status == HealthStatus::Error);
    }
}

TEST_CASE("health: no mlnx_qos text fails a policy that asks for a lossless class; qos=skip is the site saying it has none", "[health][qos]")
{
    PortFacts f = good_port();
    f.qos.reset();
    f.qos_missing = "exit 1";
    auto v = check_health({f}, site(), 0);
    const std::string why = "mlnx_qos gave nothing for eth4 (exit 1)";
    const std::string tail = ": the RoCE queue may be lossy; a site without mlnx_qos says qos=skip in the policy";
    CHECK(finding(v, "pfc").status == HealthStatus::Error);
    CHECK(finding(v, "pfc").message == "cannot verify PFC: " + why + tail);
    CHECK(finding(v, "dscp2prio").message == "cannot verify the DSCP map: " + why + tail);
    CHECK(finding(v, "trust").message ==
          "cannot verify the trust state: " + why + " and there is no /sys/class/net/eth4/qos/trust" + tail);
    for (const char *c : {"trust", "dscp2prio", "pfc"})
        CHECK(finding(v, c).status == HealthStatus::Error);

    SECTION("any of pfc-priority, trust or roce-tc asks for it")
    {
        HealthPolicy p;
        p.roce_tc = 106;
        CHECK(check_one(f, "pfc", p).status == HealthStatus::Error);
        HealthPolicy q;
        set_health_policy(q, "trust", "dscp");
        CHECK(check_one(f, "pfc", q).status == HealthStatus::Error);
        HealthPolicy r;
        r.pfc_priority = 3;
        CHECK(check_one(f, "pfc", r).status == HealthStatus::Error);
    }
    SECTION("a policy that asks for none of them: skipped")
    {
        for (const char *c : {"trust", "dscp2prio", "pfc"})
            CHECK(check_one(f, c, HealthPolicy()).status == HealthStatus::Skipped);
    }
    SECTION("qos=skip: skipped, and said why")
    {
        HealthPolicy p = site();
        set_health_policy(p, "qos", "skip");
        CHECK_FALSE(p.qos_required());
        HealthFinding h = check_one(f, "pfc", p);
        CHECK(h.status == HealthStatus::Skipped);
        CHECK(h.message == "the policy says qos=skip: " + why);
        f.trust_sysfs = "pcp";  // sysfs still says what it knows
        CHECK(check_one(f, "trust", p).status == HealthStatus::Error);
        CHECK_THROWS_WITH(set_health_policy(p, "qos", "no"), "qos=no: expected mlnx_qos or skip");
    }
}

TEST_CASE("health: a RoCE LAG's netdev checks are its members', each of which must pass; the port checks are the bond's", "[health][lag]")
{
    PortFacts bond = good_port("mlx5_bond_0", "bond0");
    bond.port.lower = {"ens1f0np0", "ens1f1np1"};
    bond.qos.reset();  // mlnx_qos -i bond0 fails
    bond.ecn_np.fill(-1);
    bond.ecn_rp.fill(-1);
    PortFacts m0 = good_port("mlx5_bond_0", "ens1f0np0"), m1 = good_port("mlx5_bond_0", "ens1f1np1");
    m0.port = m1.port = bond.port;
    m0.bond = m1.bond = "bond0";
    m1.qos->pfc[3] = false;
    m1.ecn_rp[3] = 0;
    m0.mii_status = "up";
    m1.mii_status = "down";  // the bonding driver's word for a member whose link is lost
    auto v = check_health({bond, m0, m1}, site(), 0);
    auto of = [&](const std::string &check, const std::string &netdev) {
        std::vector<HealthStatus> s;
        for (const HealthFinding &h : v)
            if (h.check == check && h.netdev == netdev)
                s.push_back(h.status);
        return s;
    };
    using S = std::vector<HealthStatus>;
    for (const char *c : {"trust", "dscp2prio", "pfc", "ecn", "pause-storm"})
        CHECK(of(c, "bond0").empty());
    for (const char *c : {"link", "class", "mtu", "rdma-mtu", "gid", "rate", "errors", "retransmits"})
        CHECK(of(c, "bond0").size() == 1);
    CHECK(of("pfc", "ens1f0np0") == S{HealthStatus::Ok});
    CHECK(of("pfc", "ens1f1np1") == S{HealthStatus::Error});
    CHECK(of("ecn", "ens1f1np1") == S{HealthStatus::Error});
    CHECK(of("mtu", "ens1f1np1") == S{HealthStatus::Ok});
    // a member down: the bond's port stays ACTIVE, the member's link fails
    CHECK(of("link", "ens1f0np0") == S{HealthStatus::Ok});
    CHECK(of("link", "ens1f1np1") == S{HealthStatus::Error});
    CHECK(of("link", "bond0") == S{HealthStatus::Ok});
    for (const char *c : {"class", "rdma-mtu", "gid", "rate", "errors", "retransmits"})
        CHECK(of(c, "ens1f1np1").empty());
}

TEST_CASE("health: a downgraded link, against the node's other ports and against the policy", "[health][rate]")
{
    PortFacts a = good_port("mlx5_0", "ens3np0"), b = good_port("mlx5_1", "ens2np0");
    b.port.rate = "200 Gb/sec (4X HDR)";
    HealthPolicy p = site();
    p.rate = 0;
    auto v = check_health({a, b}, p, 0);
    CHECK(finding(v, "rate", "mlx5_0").status == HealthStatus::Ok);
    CHECK(finding(v, "rate", "mlx5_1").message.rfind("200 Gb/sec (4X HDR) where mlx5_0 port 1 runs 400 Gb/sec (4X NDR)", 0) == 0);
    CHECK(finding(check_health({b}, site(), 0), "rate", "mlx5_1").message.rfind("200 Gb/sec (4X HDR), the policy's least rate is 400", 0) == 0);
    // an InfiniBand port is not compared with the RoCE ones
    PortFacts ib = ib_port("100 Gb/sec (4X EDR)");
    CHECK(finding(check_health({a, ib}, p, 0), "rate", "mlx5_4").status == HealthStatus::Ok);
}

TEST_CASE("health: a rate that cannot be read fails a policy with a rate, and is skipped without one", "[health][rate]")
{
    for (const char *bad : {"0 GB/sec", "", "0 Gb/sec (4X NDR)"}) {
        PortFacts f = good_port();
        f.port.rate = bad;
        HealthFinding h = check_one(f, "rate");
        CHECK(h.status == HealthStatus::Error);
        CHECK(h.message == "rate '" + std::string(bad) + "' (ports/1/rate) cannot be read, expected \"N Gb/sec (...)\": "
                           "the policy's least rate 400 Gb/sec cannot be verified");
        HealthPolicy p = site();
        p.rate = 0;
        CHECK(check_one(f, "rate", p).status == HealthStatus::Skipped);
    }
}

TEST_CASE("health: counters as rises between two reads", "[health][counters]")
{
    PortFacts ib = ib_port();
    ib.before = {{"counters/symbol_error", 10}, {"counters/port_rcv_errors", 0}, {"counters/link_downed", 1}};
    ib.after = ib.before;
    HealthPolicy p;
    CHECK(finding(check_health({ib}, p, 1), "errors", "mlx5_4").status == HealthStatus::Ok);
    ib.after["counters/symbol_error"] = 13;
    CHECK(finding(check_health({ib}, p, 2), "errors", "mlx5_4").message.rfind("symbol_error +3 in 2 s", 0) == 0);
    p.max_error_rate = 2;  // 1.5 a second: within
    CHECK(finding(check_health({ib}, p, 2), "errors", "mlx5_4").status == HealthStatus::Warning);
    ib.after["counters/link_downed"] = 2;
    CHECK(finding(check_health({ib}, p, 2), "errors", "mlx5_4").status == HealthStatus::Error);
    // a counter that went down (reset, wrap) is no rise
    ib.after = ib.before;
    ib.after["counters/symbol_error"] = 0;
    CHECK(finding(check_health({ib}, p, 1), "errors", "mlx5_4").status == HealthStatus::Ok);

    PortFacts r = good_port();
    r.before = {{"ethtool/tx_pause_storm_warning_events", 0}, {"ethtool/tx_pause_storm_error_events", 0},
                {"hw_counters/out_of_sequence", 5}, {"hw_counters/local_ack_timeout_err", 0}};
    r.after = r.before;
    r.after["ethtool/tx_pause_storm_error_events"] = 1;
    r.after["hw_counters/out_of_sequence"] = 9;
    auto v = check_health({r}, site(), 1);
    CHECK(finding(v, "pause-storm").status == HealthStatus::Error);
    CHECK(finding(v, "retransmits").status == HealthStatus::Warning);
    CHECK(finding(v, "retransmits").message.rfind("out_of_sequence +4 in 1 s", 0) == 0);
}

TEST_CASE("health: the report puts errors first and the metrics have one gauge per check", "[health][report]")
{
    PortFacts f = good_port();
    f.netdev_mtu = 1500;
    f.netdev = "eth\"4";  // escaped in a label
    auto v = check_health({f}, site(), 0);
    std::ostringstream r, m;
    write_health_report(r, v, 1, false);
    CHECK(r.str().rfind("ERROR: mtu: mlx5_2 port 1 (eth\"4): netdev MTU 1500", 0) == 0);
    CHECK(r.str().find("health: FAILED, 2 errors, 0 warnings, 8 checks passed, 3 skipped on 1 ports\n") != std::string::npos);
    write_health_metrics(m, v, {f}, 0);
    CHECK(m.str().find("# TYPE atoll_health_mtu_ok gauge\natoll_health_mtu_ok{hca=\"mlx5_2\",port=\"1\",netdev=\"eth\\\"4\"} 0\n") !=
          std::string::npos);
    CHECK(m.str().find("atoll_health_errors 2\n") != std::string::npos);
    CHECK(m.str().find("atoll_health_pause_storm_ok") == std::string::npos);  // skipped: no gauge
}

TEST_CASE("representor_port_name: devlink's names of PF, VF and SF representors, not a physical port's", "[health][sysfs]")
{
    // net/devlink/port.c, __devlink_port_phys_port_name_get: physical
    // "p%u" / "p%us%u"; PCI_PF "[c%u]pf%u"; PCI_VF "[c%u]pf%uvf%u"; PCI_SF "[c%u]pf%usf%u"
    for (const char *yes : {"pf0vf0", "pf1vf127", "c1pf0vf1", "pf0sf88", "c1pf0sf3", "pf0", "c1pf0"})
        CHECK(atl::representor_port_name(yes));
    for (const char *no : {"p0", "p1", "p0s1", "", "pf", "pfvf0", "pf0vf", "pf0vf0x", "c1", "cpf0", "xpf0vf0", "pf0xf1",
                           "pf00000000000vf1"})
        CHECK_FALSE(atl::representor_port_name(no));
}
