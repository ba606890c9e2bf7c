// LLDP neighbour tables in lldpd's four formats, and the fabric built from them.
#include "catch.hpp"
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

#include "testdata.hpp"
#include "topology/lldp.hpp"
#include "topology/topology.hpp"

using namespace atl;

namespace {

std::vector<LldpNeighbor> parse_file(const std::string &rel, const std::string &local = "gpu01")
{
    std::ifstream in(test_data(rel));
    REQUIRE(in);
    return parse_lldp(in, rel, local);
}

std::string flat(const std::vector<LldpNeighbor> &ns)
{
    std::string s;
    for (const auto &n : ns)
        s += n.local + " " + n.iface + " > " + n.chassis + " " + n.port + " " + std::to_string(static_cast<int>(n.gbps)) + "\n";
    return s;
}

}  // namespace

TEST_CASE("lldpcli neighbours in json0, json, keyvalue and xml agree", "[lldp]")
{
    // three interfaces: a named leaf (10GbaseT), an unnamed chassis, a NIC's own agent
    const std::string want = "gpu01 ens1f0np0 > leaf01 swp1 10\n"
                             "gpu01 ens1f1np1 > 00:35:35:35:35:35 g1 0\n"
                             "gpu01 ens2f0np0 > 50:6b:4b:f6:1e:b3 50:6b:4b:f6:1e:b1 0\n";
    for (const char *fmt : {"json0", "json", "keyvalue", "xml"}) {
        INFO(fmt);
        CHECK(flat(parse_file(std::string("lldp/2_three_interfaces.neighbors_details.") + fmt)) == want);
    }
    // json with one neighbour: "interface" is an object, not a list
    CHECK(flat(parse_file("lldp/1_one_neighbor.neighbors_details.json")) == "gpu01 ens1f0np0 > leaf01 swp1 10\n");
    // two neighbours on one interface, in every format
    for (const char *fmt : {"json0", "json", "keyvalue", "xml"}) {
        INFO(fmt);
        CHECK(parse_file(std::string("lldp/3_two_neighbors_same_interface.neighbors_details.") + fmt).size() == 4);
    }
    for (const char *fmt : {"json0", "json", "keyvalue", "xml"})
        CHECK(parse_file(std::string("lldp/0_no_neighbors.neighbors_details.") + fmt).empty());
}

TEST_CASE("SONiC's lldpctl json names its own chassis", "[lldp]")
{
    auto ns = parse_file("lldp/sonic-lldpctl.json", "ignored");
    REQUIRE(ns.size() == 33);
    CHECK(ns[0].local == "arc-switch1025");
    CHECK(ns[0].iface == "eth0");
    CHECK(ns[0].chassis == "switch218ad08");
    CHECK(ns[0].port == "ge-0/0/17");
}

TEST_CASE("MAU types give link speeds", "[lldp]")
{
    CHECK(mau_gbps("10GbaseT - Four-pair Category 6A or better") == 10);
    CHECK(mau_gbps("100GbaseCR4 - 100GBASE-R PCS/PMA over 4 lane shielded copper") == 100);
    CHECK(mau_gbps("1000BaseTFD - Four-pair Category 5 UTP, full duplex mode") == 1);
    CHECK(mau_gbps("unknown") == 0);
}

TEST_CASE("hosts and switch tables make a two-tier RoCE fabric", "[lldp]")
{
    char dir[] = "/tmp/atoll-lldp-XXXXXX";
    REQUIRE(mkdtemp(dir));
    auto write = [&](const std::string &name, const std::string &text) { std::ofstream(std::string(dir) + "/" + name) << text; };
    // two hosts, two rails each: rail 0 on leaf01, rail 1 on leaf02, 100G
    for (const char *h : {"gpu01", "gpu02"}) {
        std::string port = std::string(h) == "gpu01" ? "swp1" : "swp2";
        write(std::string(h) + ".kv",
              "lldp.eth0.via=LLDP\nlldp.eth0.chassis.name=leaf01.dc\nlldp.eth0.chassis.Bridge.enabled=on\n"
              "lldp.eth0.port.ifname=" + port +
                  "\nlldp.eth0.port.auto-negotiation.current=100GbaseCR4 - 100GBASE-R\n"
                  "lldp.eth1.via=LLDP\nlldp.eth1.chassis.name=leaf02.dc\nlldp.eth1.chassis.Bridge.enabled=on\n"
                  "lldp.eth1.port.ifname=" + port +
                  "\nlldp.eth1.port.auto-negotiation.current=100GbaseCR4 - 100GBASE-R\n");
    }
    {
        std::istringstream in("");
        CHECK_THROWS_WITH(lldp_fabric(parse_lldp(in, "empty", "gpu01"), "empty"), Catch::Contains("found no LLDP neighbour"));
    }
    Topology hosts_only = analyse(load_lldp(dir));
    CHECK(hosts_only.max_tier == 0);
    CHECK(hosts_only.hosts.size() == 2);
    CHECK(hosts_only.rails.size() == 2);
    // switch tables (the leaves advertise Bridge in the hosts' tables): each leaf sees spine01
    write("leaf01.json0", R"({"lldp":[{"interface":[{"name":"swp49","chassis":[{"name":[{"value":"spine01"}]}],"port":[{"id":[{"type":"ifname","value":"swp1"}]}]}]}]})");
    write("leaf02.json0", R"({"lldp":[{"interface":[{"name":"swp49","chassis":[{"name":[{"value":"spine01"}]}],"port":[{"id":[{"type":"ifname","value":"swp2"}]}]}]}]})");
    Topology t = analyse(load_lldp(dir));
    CHECK(t.max_tier == 1);
    CHECK(t.switches.size() == 3);
    CHECK(t.rail_optimised);
    REQUIRE(t.islands_at(Level::Leaf).size() == 1);  // a rail group of leaf01 and leaf02
    CHECK(t.islands[static_cast<std::size_t>(t.islands_at(Level::Leaf)[0])].hosts.size() == 2);
    CHECK(t.fabric.links.size() == 6);
    int at100 = 0;
    for (const Link &l : t.fabric.links)
        at100 += l.gbps() == 100;
    CHECK(at100 == 4);  // the host links, from their MAU type
    // a host's own NIC rates (atoll-topo node --json) fill in what LLDP does not carry
    write("gpu01.kv", "lldp.eth0.via=LLDP\nlldp.eth0.chassis.name=leaf01.dc\nlldp.eth0.chassis.Bridge.enabled=on\n"
                      "lldp.eth0.port.ifname=swp1\n");
    write("gpu01.node.json", R"J({"gpus": [], "ports": [{"hca": "mlx5_0", "port": 1, "link_layer": "Ethernet",
        "state": "4: ACTIVE", "rate": "200 Gb/sec (4X HDR)", "netdevs": ["eth0"]}]})J");
    Topology nic = analyse(load_lldp(dir));
    int at200 = 0;
    for (const Link &l : nic.fabric.links)
        at200 += l.gbps() == 200;
    CHECK(at200 == 1);
    // bad input names file and line
    write("gpu03.kv", "lldp.eth0.via=LLDP\nthis is not lldp\n");
    CHECK_THROWS_WITH(load_lldp(dir), Catch::Contains("gpu03.kv:2: found \"this is not lldp\", expected lldp.INTERFACE.KEY=VALUE"));
    std::string rm = std::string("rm -rf '") + dir + "'";
    REQUIRE(system(rm.c_str()) == 0);
}

TEST_CASE("pdsh output: one text, a table per host", "[lldp]")
{
    std::istringstream in("gpu01: lldp.eth0.via=LLDP\ngpu01: lldp.eth0.chassis.name=leaf01\ngpu01: lldp.eth0.port.ifname=swp1\n"
                          "gpu02: lldp.eth0.via=LLDP\ngpu02: lldp.eth0.chassis.name=leaf01\ngpu02: lldp.eth0.port.ifname=swp2\n");
    auto ns = parse_lldp(in, "pdsh.out", "");
    CHECK(flat(ns) == "gpu01 eth0 > leaf01 swp1 0\ngpu02 eth0 > leaf01 swp2 0\n");
}
