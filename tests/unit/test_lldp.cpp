// LLDP neighbour tables in lldpd's four formats, and the fabric built from them.
#include "catch.hpp"
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

#include "testdata.hpp"
#include "topology/check.hpp"
#include "topology/json.hpp"
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

TEST_CASE("SONiC's lldpctl json names its own chassis: believed only where nothing else names it", "[lldp]")
{
    auto ns = parse_file("lldp/sonic-lldpctl.json", "sw1");
    REQUIRE(ns.size() == 33);
    CHECK(ns[0].local == "sw1");  // the file name (or pdsh prefix) is the admin's word
    CHECK(ns[0].claimed == "arc-switch1025");
    CHECK(ns[0].self_bridge);
    ns = parse_file("lldp/sonic-lldpctl.json", "");
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
    // lldpd's names for 2.5G and 5G (src/lib/atoms/port.c): "p" is the decimal point
    CHECK(mau_gbps("2p5GigT - 2.5GBASE-T Four-pair twisted-pair balanced copper cabling PHY") == 2.5);
    CHECK(mau_gbps("2p5GbaseX - 2.5GBASE-X PCS/PMA over undefined PMD") == 2.5);
    CHECK(mau_gbps("5GigT - 5GBASE-T Four-pair twisted-pair balanced copper cabling PHY") == 5);
    CHECK(mau_gbps("400GbaseDR4 - 400GBASE-R PCS/PMA over 4-lane single-mode fiber PMD") == 400);
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
    // switch tables (the leaves advertise Bridge in the hosts' tables, and
    // name the hosts back, as lldpd on a switch lists every port's
    // neighbour): each leaf sees spine01
    for (const char *leaf : {"leaf01", "leaf02"})
        write(std::string(leaf) + ".json0",
              std::string(R"({"lldp":[{"interface":[{"name":"swp49","chassis":[{"name":[{"value":"spine01"}]}],"port":[{"id":[{"type":"ifname","value":")") +
                  (std::string(leaf) == "leaf01" ? "swp1" : "swp2") +
                  R"("}]}]},{"name":"swp1","chassis":[{"name":[{"value":"gpu01"}]}],"port":[{"id":[{"type":"ifname","value":"eth0"}]}]},)"
                  R"({"name":"swp2","chassis":[{"name":[{"value":"gpu02"}]}],"port":[{"id":[{"type":"ifname","value":"eth0"}]}]}]}]})");
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
    // bad input names file and line: among other tables a warning (its
    // system not placed), alone the error
    write("gpu03.kv", "lldp.eth0.via=LLDP\nthis is not lldp\n");
    Fabric warned = load_lldp(dir);
    CHECK(std::any_of(warned.warnings.begin(), warned.warnings.end(), [](const std::string &w) {
        return w.find("gpu03.kv:2: found 'this is not lldp', expected lldp.INTERFACE.KEY=VALUE: that table is not read") !=
               std::string::npos;
    }));
    CHECK(std::none_of(warned.nodes.begin(), warned.nodes.end(), [](const Node &n) { return n.desc.find("gpu03") != std::string::npos; }));
    char alone[] = "/tmp/atoll-lldp-XXXXXX";
    REQUIRE(mkdtemp(alone));
    std::ofstream(std::string(alone) + "/gpu03.kv") << "lldp.eth0.via=LLDP\nthis is not lldp\n";
    CHECK_THROWS_WITH(load_lldp(alone), Catch::Contains("gpu03.kv:2: found 'this is not lldp', expected lldp.INTERFACE.KEY=VALUE"));
    REQUIRE(system((std::string("rm -rf '") + alone + "'").c_str()) == 0);
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

namespace {

// tests/data/lldp/rails8/*: 4 hosts, ens1np0..ens8np0 at 400G to leaf-r1..leaf-r8
// (swpN for host N), eno1 to mgmt01 (Gi1/0/N); the leaves cabled to spine01/02
Topology rails8(const std::string &variant, const NicRoles &roles = {})
{
    return analyse(load_lldp(test_data("lldp/rails8/" + variant), roles));
}

std::string view_hcas(const Topology &t, const std::string &host)
{
    std::string s;
    for (const HostPort &p : t.hosts.at(static_cast<std::size_t>(t.host_index.at(host))).ports)
        s += (s.empty() ? "" : ",") + p.hca;
    return s;
}

const char *const rails8_names = "ens1np0 ens2np0 ens3np0 ens4np0 ens5np0 ens6np0 ens7np0 ens8np0";

std::string joined(const std::vector<std::string> &v)
{
    std::string s;
    for (const auto &x : v)
        s += (s.empty() ? "" : " ") + x;
    return s;
}

// what an admin expects of the 8-rail fabric once eno1 is out of it
void expect_compute_fabric_only(const Topology &t, bool undecided = false)
{
    CHECK(joined(t.rails) == rails8_names);
    CHECK(t.rail_optimised);
    CHECK(t.switches.size() == 10);  // 8 rail leaves and 2 spines: no mgmt01
    for (const Switch &s : t.switches)
        CHECK(s.name != "mgmt01");
    CHECK(t.hosts.size() == 4);
    for (const Host &h : t.hosts) {
        CHECK(h.compute);
        CHECK(view_hcas(t, h.name) == "ens1np0,ens2np0,ens3np0,ens4np0,ens5np0,ens6np0,ens7np0,ens8np0");
    }
    // one rail group of the 8 leaves holds all 4 hosts
    auto leaves = t.islands_at(Level::Leaf);
    REQUIRE(leaves.size() == 1);
    CHECK(t.islands[static_cast<std::size_t>(leaves[0])].hosts.size() == 4);
    CHECK(t.islands[static_cast<std::size_t>(leaves[0])].leaves.size() == 8);
    REQUIRE(t.fabric.frontend.size() == 4);
    for (std::size_t i = 0; i < 4; ++i) {
        CHECK(t.fabric.frontend[i].host == "gpu0" + std::to_string(i + 1));
        CHECK(t.fabric.frontend[i].iface == "eno1");
        CHECK(t.fabric.frontend[i].sw == "mgmt01");
    }
    CHECK(t.fabric.undecided.empty() != undecided);
}

}  // namespace

TEST_CASE("a GPU host's front-end NIC is no rail: slower than the rails, to a switch of slow ports", "[lldp][frontend]")
{
    for (const char *variant : {"json", "keyvalue"}) {
        INFO(variant);
        Topology t = rails8(variant);
        expect_compute_fabric_only(t);
        CHECK(t.fabric.frontend[0].gbps == (std::string(variant) == "json" ? 10 : 25));
        CHECK_THAT(t.fabric.frontend[0].why, Catch::Contains("where the host's fastest run at 400 Gb/s"));
    }
}

TEST_CASE("HOST.node.json tells the RoCE netdevs apart where LLDP carries no speed", "[lldp][frontend]")
{
    Topology t = rails8("nospeed");
    expect_compute_fabric_only(t, true);
    CHECK_THAT(t.fabric.frontend[0].why, Catch::Contains("no Ethernet RDMA port"));
    // but eight RDMA ports of one speed: a storage ConnectX as fast as the
    // rails would be one of them, so the hosts stay undecided (a helper's
    // attack: node.json made a 400G front-end ConnectX a rail, no warning)
    CHECK(joined(t.fabric.undecided) == "gpu01 gpu02 gpu03 gpu04");
    int at400 = 0;
    for (const Host &h : t.hosts)
        for (const HostPort &p : h.ports)
            at400 += t.fabric.links[p.link].gbps() == 400;
    CHECK(at400 == 32);  // the rates node.json gives
}

TEST_CASE("no speed, no node.json: the NICs are undecided and every one is taken", "[lldp][frontend]")
{
    char dir[] = "/tmp/atoll-lldp-XXXXXX";
    REQUIRE(mkdtemp(dir));
    std::string cp = std::string("cp '") + test_data("lldp/rails8/nospeed") + "'/*.keyvalue '" + dir + "'";
    REQUIRE(system(cp.c_str()) == 0);
    Topology t = analyse(load_lldp(dir));
    CHECK(t.fabric.frontend.empty());
    CHECK(joined(t.fabric.undecided) == "gpu01 gpu02 gpu03 gpu04");
    CHECK(t.rails.size() == 9);  // eno1 is taken as a rail: that is what check warns of
    // the admin decides: by interface, by the switch it reaches, or by naming the rails
    for (NicRoles roles : {NicRoles{"eno1", "", "", false, {}, ""}, NicRoles{"mgmt*", "", "", false, {}, ""}, NicRoles{"", "ens*np0", "", false, {}, ""}, NicRoles{"eno*", "ens*", "", false, {}, ""}}) {
        INFO(roles.frontend << " / " << roles.compute);
        expect_compute_fabric_only(analyse(load_lldp(dir, roles)));
    }
    // the admin's word is the only one: --compute naming one rail leaves 7 out
    Topology one = analyse(load_lldp(dir, NicRoles{"", "leaf-r1", "", false, {}, ""}));
    CHECK(joined(one.rails) == "ens1np0");
    CHECK(one.fabric.frontend.size() == 4 * 8);
    std::string rm = std::string("rm -rf '") + dir + "'";
    REQUIRE(system(rm.c_str()) == 0);
}

TEST_CASE("interfaces named per host (rdma0_gpu01): rails by their place, not by the host's number", "[lldp][topology]")
{
    // a helper's attack: the trailing number of rdma0_gpu01 was read as an
    // adapter number, every host's four ports one adapter of its own, and
    // no rail at all came out (NCCL_IB_HCA "not ACTIVE" on every host)
    std::string tables;
    for (int h = 1; h <= 4; ++h)
        for (int r = 0; r < 4; ++r) {
            std::string host = "gpu0" + std::to_string(h), i = "rdma" + std::to_string(r) + "_" + host;
            tables += host + ": lldp." + i + ".chassis.name=leaf-r" + std::to_string(r) + "\n" + host + ": lldp." + i +
                      ".chassis.Bridge.enabled=on\n" + host + ": lldp." + i + ".port.ifname=swp" + std::to_string(h) + "\n";
        }
    std::istringstream in(tables);
    Topology t = analyse(lldp_fabric(parse_lldp(in, "pdsh", ""), "pdsh", NicRoles{"", "rdma*", "", false, {}, ""}));
    REQUIRE(t.rails.size() == 4);
    CHECK(t.rail_optimised);
    for (const Host &h : t.hosts)
        for (const HostPort &p : h.ports)
            CHECK(p.hca.substr(0, 5) == "rdma" + std::to_string(p.rail));
    // names that are adapter numbers (eth2, mlx5_3) are still read so
    CHECK(hca_dev_index("eth2") == 2);
}

namespace {
// a host's LLDP neighbour: its interface to a bridge, at a speed
LldpNeighbor nb(const std::string &host, const std::string &iface, const std::string &sw, double g)
{
    LldpNeighbor n;
    n.local = host;
    n.iface = iface;
    n.chassis = sw;
    n.gbps = g;
    n.bridge = true;
    return n;
}
}  // namespace

TEST_CASE("split_nics: a degraded rail stays a rail, a storage NIC does not", "[lldp][frontend]")
{
    // h1's rail 2 came up at 200G on leaf2, where h2's rail 2 runs at 400G;
    // both have a 100G storage NIC on stor1
    std::vector<LldpNeighbor> ns = {nb("h1", "ens1np0", "leaf1", 400), nb("h1", "ens2np0", "leaf2", 200),
                                    nb("h1", "ens3f0", "stor1", 100),  nb("h2", "ens1np0", "leaf1", 400),
                                    nb("h2", "ens2np0", "leaf2", 400), nb("h2", "ens3f0", "stor1", 100)};
    NicSplit s = split_nics(ns, {}, {});
    REQUIRE(s.frontend.size() == 2);
    CHECK(s.frontend[0].host == "h1");
    CHECK(s.frontend[0].iface == "ens3f0");
    CHECK(s.frontend[1].host == "h2");
    CHECK(s.compute.size() == 4);
    CHECK(s.undecided.empty());
    // a node.json that names a bond LLDP does not show (RoCE LAG): not used, speeds decide
    std::map<std::string, HostNics> nics;
    nics["h1"].roce = {"bond0"};
    CHECK(split_nics(ns, {}, nics).frontend.size() == 2);
    // a node.json naming the RoCE netdevs: the storage NIC is out whatever its speed
    nics["h1"].roce = {"ens1np0", "ens2np0"};
    ns[2].gbps = 400;
    NicSplit r = split_nics(ns, {}, nics);
    REQUIRE(r.frontend.size() == 1);
    CHECK(r.frontend[0].host == "h1");
    CHECK_THAT(r.frontend[0].why, Catch::Contains("no Ethernet RDMA port"));
    // and stor1 now carries a 400G host port: h2's 100G NIC there is no longer
    // told apart by speed (the rule needs a switch of slow ports)
    CHECK(r.compute.size() == 5);
}

TEST_CASE("split_nics: slower ports beside fast ones on a switch are rails only where the same port is fast elsewhere", "[lldp][frontend]")
{
    // converged storage: each host's 200G storage port ens9np0 is cabled to
    // rail leaf (host i -> leaf i), beside 400G rails; a helper's attack took
    // them as rails that came up slow (degraded-link errors, storage in NCCL_IB_HCA)
    std::vector<LldpNeighbor> ns;
    for (int h = 1; h <= 4; ++h) {
        std::string host = "h" + std::to_string(h);
        for (int r = 1; r <= 4; ++r)
            ns.push_back(nb(host, "ens" + std::to_string(r) + "np0", "leaf" + std::to_string(r), 400));
        ns.push_back(nb(host, "ens9np0", "leaf" + std::to_string(h), 200));
        ns.push_back(nb(host, "eno1", "fe1", 100));
    }
    NicSplit s = split_nics(ns, {}, {});
    CHECK(s.frontend.size() == 8);
    CHECK(s.compute.size() == 16);
    for (const auto &f : s.frontend)
        CHECK((f.iface == "ens9np0" || f.iface == "eno1"));
    CHECK(s.undecided.empty());
    // one 400G storage server on the front-end switch makes no host's 100G
    // eno1 a rail that came up slow; it is itself undecided (a storage
    // server, or a host of another partition: not known)
    ns.push_back(nb("stor1", "ens1np0", "fe1", 400));
    s = split_nics(ns, {}, {});
    CHECK(s.compute.size() == 17);
    CHECK(s.frontend.size() == 8);
    CHECK(joined(s.undecided) == "stor1");
    // h2's rail 3 came up at 200G while every other host's ens3np0 runs at
    // 400G: still a rail (its leaf also carries h3's 200G storage port)
    ns[8].gbps = 200;
    REQUIRE(ns[8].local == "h2");
    REQUIRE(ns[8].iface == "ens3np0");
    s = split_nics(ns, {}, {});
    CHECK(s.compute.size() == 17);
    CHECK(s.frontend.size() == 8);
    // no other host has an interface of that name: its switch's other host
    // ports decide, by most of them
    std::vector<LldpNeighbor> odd = {nb("a1", "p1", "leaf1", 400), nb("a1", "x7", "leaf2", 200),
                                     nb("a2", "q1", "leaf1", 400), nb("a2", "q2", "leaf2", 400),
                                     nb("a3", "q1", "leaf1", 400), nb("a3", "q2", "leaf2", 400)};
    CHECK(split_nics(odd, {}, {}).frontend.empty());
    odd[4].gbps = odd[5].gbps = 100;  // a3: q1 and q2 at 100 -> leaf2 has one 400 and one 100 besides a1
    odd.push_back(nb("a4", "q2", "leaf2", 100));
    REQUIRE(split_nics(odd, {}, {}).frontend.size() == 1);
    CHECK(split_nics(odd, {}, {}).frontend[0].iface == "x7");
}

TEST_CASE("split_nics: the same port on the other hosts says rail or not, and when it cannot say, the host is undecided", "[lldp][frontend]")
{
    // four 400G rails and a 10G eno1 (the slower NIC that shows the rest are rails)
    auto rails4 = [](const std::string &host, std::vector<LldpNeighbor> &ns, double g3 = 400) {
        for (int r = 1; r <= 4; ++r)
            ns.push_back(nb(host, "ens" + std::to_string(r) + "np0", "leaf-r" + std::to_string(r), r == 3 ? g3 : 400));
        ns.push_back(nb(host, "eno1", "mgmt1", 10));
    };
    // a helper's attack: ens3np0 came up at 200G on 3 of 4 hosts (one rail
    // leaf's optics?): gpu01's runs at 400G on the same leaf, a leaf of
    // ens3np0 alone: that rail, slow on three hosts; kept, so gpu01's rails
    // keep their numbers (it lost ens4np0 when the three were front-end)
    std::vector<LldpNeighbor> b;
    rails4("gpu01", b);
    for (const char *h : {"gpu02", "gpu03", "gpu04"})
        rails4(h, b, 200);
    NicSplit sb = split_nics(b, {}, {});
    CHECK(sb.frontend.size() == 4);  // the eno1s
    CHECK(sb.compute.size() == 16);
    CHECK(sb.undecided.empty());
    // on a leaf that carries other ports too, that is not known: undecided
    b.push_back(nb("nas1", "ens3np0", "leaf-r3", 200));
    b.push_back(nb("gpu04", "ens7", "leaf-r3", 400));
    sb = split_nics(b, {}, {});
    CHECK(joined(sb.undecided) == "gpu02 gpu03");
    // a host without the slower NIC that showed the others' rails (its
    // front-end switch runs no LLDP): its interfaces have the names and
    // switches of the decided hosts' rails, so they are those rails
    std::vector<LldpNeighbor> nofe;
    for (const char *h : {"gpu01", "gpu02", "gpu03"})
        rails4(h, nofe);
    for (int r = 1; r <= 4; ++r)
        nofe.push_back(nb("gpu05", "ens" + std::to_string(r) + "np0", "leaf-r" + std::to_string(r), 400));
    CHECK(split_nics(nofe, {}, {}).undecided.empty());
    nofe.back().chassis = "leaf-x";  // one of them elsewhere: not known
    CHECK(joined(split_nics(nofe, {}, {}).undecided) == "gpu05");
    // two generations: ens5np0 is generation B's fifth 400G rail and
    // generation A's 200G storage NIC on its own switch: A's is no rail
    std::vector<LldpNeighbor> g;
    for (const char *h : {"a1", "a2"}) {
        rails4(h, g);
        g.push_back(nb(h, "ens5np0", "stor01", 200));
    }
    for (const char *h : {"b1", "b2", "b3"}) {
        rails4(h, g);
        g.push_back(nb(h, "ens5np0", "leaf-r5", 400));
    }
    NicSplit sg = split_nics(g, {}, {});
    REQUIRE(sg.frontend.size() == 7);
    CHECK(sg.frontend[1].iface == "ens5np0");
    CHECK_THAT(sg.frontend[1].why, Catch::Contains("no other host's ens5np0 on stor01 runs at 400 Gb/s (0 of 1)"));
    CHECK(sg.undecided.empty());
    // one host's extra 100G port on a rail leaf beside its own 400G rail
    // there (unique name): one more port, not a rail that came up slow
    std::vector<LldpNeighbor> x;
    for (const char *h : {"gpu01", "gpu02", "gpu03"})
        rails4(h, x);
    x.push_back(nb("gpu02", "ens9f0", "leaf-r1", 100));
    NicSplit sx = split_nics(x, {}, {});
    REQUIRE(sx.frontend.size() == 4);
    auto extra = std::find_if(sx.frontend.begin(), sx.frontend.end(), [](const FrontEndNic &f) { return f.iface == "ens9f0"; });
    REQUIRE(extra != sx.frontend.end());
    CHECK_THAT(extra->why, Catch::Contains("beside a faster port of the host on leaf-r1"));
    // one switch for everything, management ports named per host: every
    // other host has a 10G port there too, so it is no rail
    std::vector<LldpNeighbor> one;
    for (const char *h : {"n1", "n2", "n3"}) {
        for (int r = 1; r <= 4; ++r)
            one.push_back(nb(h, "ens" + std::to_string(r) + "np0", "sw1", 400));
        one.push_back(nb(h, std::string("mgmt-") + h, "sw1", 10));
    }
    NicSplit so = split_nics(one, {}, {});
    CHECK(so.frontend.size() == 3);
    CHECK(so.undecided.empty());
    // there a rail of one host at 200G stays a rail
    one[1].gbps = 200;
    so = split_nics(one, {}, {});
    CHECK(so.frontend.size() == 3);
    CHECK(so.compute.size() == 12);
}

TEST_CASE("split_nics: storage servers whose tables were given are undecided, and set no rails", "[lldp][frontend]")
{
    // a helper's attack: 3 GPU hosts (4 x 400G rails, a 200G storage NIC on
    // stor-a, a 10G eno1) and 5 storage servers (2 x 200G on stor-a and
    // stor-b): the servers outnumbered the GPU hosts, so their two ports set
    // the rails and two of the GPU hosts' four rails were left
    std::vector<LldpNeighbor> ns;
    for (const char *h : {"gpu01", "gpu02", "gpu03"}) {
        for (int r = 1; r <= 4; ++r)
            ns.push_back(nb(h, "ens" + std::to_string(r) + "np0", "leaf-r" + std::to_string(r), 400));
        ns.push_back(nb(h, "ens9np0", "stor-a", 200));
        ns.push_back(nb(h, "eno1", "mgmt01", 10));
    }
    for (int k = 1; k <= 5; ++k) {
        std::string h = "stor0" + std::to_string(k);
        ns.push_back(nb(h, "ens1f0np0", "stor-a", 200));
        ns.push_back(nb(h, "ens1f1np0", "stor-b", 200));
    }
    // and one server on the front-end switch, at 400G
    ns.push_back(nb("nfs01", "ens1np0", "mgmt01", 400));
    NicSplit s = split_nics(ns, {}, {});
    // a storage server, or a small partition on a converged switch (a
    // second helper's attack: four A100 hosts of 4 x 200G on the ToR that
    // carries the GPU hosts' storage NICs were dropped): not known, so
    // undecided, kept in the fabric, and no device variable there
    CHECK(joined(s.undecided) == "stor01 stor02 stor03 stor04 stor05 nfs01");
    CHECK(s.compute.size() == 12 + 11);
    // the GPU hosts' rails are voted by the decided hosts alone
    std::ostringstream tables;
    for (const LldpNeighbor &n : ns)
        tables << n.local << ": lldp." << n.iface << ".chassis.name=" << n.chassis << "\n"
               << n.local << ": lldp." << n.iface << ".chassis.Bridge.enabled=on\n"
               << n.local << ": lldp." << n.iface << ".port.ifname=p-" << n.local << "\n"
               << n.local << ": lldp." << n.iface << ".port.auto-negotiation.current=" << n.gbps << "GbaseX\n";
    std::istringstream in(tables.str());
    Topology t = analyse(lldp_fabric(parse_lldp(in, "pdsh", ""), "pdsh", {}));
    CHECK(joined(t.rails) == "ens1np0 ens2np0 ens3np0 ens4np0");
    // a GPU host with three rails down keeps its last one: its leaf carries
    // the other GPU hosts' rails
    ns[0].gbps = 400;
    for (int i : {1, 2, 3})
        ns[static_cast<std::size_t>(i)].chassis = "gone";
    std::vector<LldpNeighbor> cut;
    for (std::size_t i = 0; i < ns.size(); ++i)
        if (ns[i].chassis != "gone")
            cut.push_back(ns[i]);
    NicSplit c = split_nics(cut, {}, {});
    CHECK(std::count_if(c.compute.begin(), c.compute.end(), [](const LldpNeighbor &n) { return n.local == "gpu01"; }) == 1);
}

TEST_CASE("split_nics: the same speed does not tell a rail from a front-end NIC", "[lldp][frontend]")
{
    // two rails and a front-end ConnectX, all 400G (a DGX H100's storage and
    // management cards run at 400G too): nothing tells them apart
    std::vector<LldpNeighbor> ns = {nb("h1", "ens1np0", "leaf01", 400), nb("h1", "ens2np0", "leaf02", 400),
                                    nb("h1", "ens3f0np0", "fe-sw1", 400), nb("h2", "ens1np0", "leaf01", 400),
                                    nb("h2", "ens2np0", "leaf02", 400), nb("h2", "ens3f0np0", "fe-sw1", 400)};
    NicSplit s = split_nics(ns, {}, {});
    CHECK(s.frontend.empty());
    CHECK(joined(s.undecided) == "h1 h2");
    // node.json saying all three are RDMA ports decides nothing more
    std::map<std::string, HostNics> nics;
    for (const char *h : {"h1", "h2"})
        nics[h].roce = {"ens1np0", "ens2np0", "ens3f0np0"};
    CHECK(joined(split_nics(ns, {}, nics).undecided) == "h1 h2");
    // a front-end NIC that shows itself by being slower: the fast ones are rails
    ns[2].gbps = ns[5].gbps = 100;
    NicSplit d = split_nics(ns, {}, {});
    CHECK(d.frontend.size() == 2);
    CHECK(d.undecided.empty());
    // node.json taking out a slower eno1 (no RDMA port) is that evidence too
    // (a helper's attack: adding the node.json check recommends undecided it)
    std::vector<LldpNeighbor> mg = {nb("h4", "ens1np0", "leaf01", 400), nb("h4", "ens2np0", "leaf02", 400),
                                    nb("h4", "eno1", "mgmt1", 1)};
    std::map<std::string, HostNics> h4;
    h4["h4"].roce = {"ens1np0", "ens2np0"};
    NicSplit m = split_nics(mg, {}, h4);
    CHECK(m.frontend.size() == 1);
    CHECK(m.undecided.empty());
    // one interface left is no choice at all
    std::vector<LldpNeighbor> one = {nb("h3", "ens1np0", "leaf01", 400)};
    CHECK(split_nics(one, {}, {}).undecided.empty());
}

TEST_CASE("check names the front-end NICs, and the hosts it could not tell apart", "[lldp][frontend][check]")
{
    auto codes = [](const std::vector<Finding> &fs) {
        std::string s;
        for (const Finding &f : fs)
            s += f.code + " " + f.subject + "\n";
        return s;
    };
    std::vector<Finding> fs = check(rails8("json"));
    CHECK(codes(fs) == "frontend-nic gpu[01-04]\n");
    CHECK(fs[0].message == "front-end NIC eno1 (10 Gb/s, to mgmt01): 10 Gb/s where the host's fastest run at 400 Gb/s, "
                           "and no other host's eno1 on mgmt01 runs at 400 Gb/s (0 of 3); kept out of rails, islands and the plugin's view");
    // fabric.json keeps them, so check on it says the same
    Topology t = rails8("keyvalue");
    std::stringstream js;
    save_fabric_json(js, t);
    Fabric back = load_fabric_json(js, "fabric.json");
    CHECK(back == t.fabric);
    CHECK(check(analyse(back)) == check(t));
    Fabric undecided = t.fabric;
    undecided.frontend.clear();
    undecided.undecided = {"gpu01", "gpu02"};
    CHECK_THAT(codes(check(analyse(undecided))), Catch::Contains("undecided-nics gpu[01-02]\n"));
}

TEST_CASE("slot-named rails (ens1np0..ens8np0): eight rails, and a NIC gone shifts none", "[lldp][topology]")
{
    // ens{slot}np0 ends in the port number 0: the slot, not that, tells the NICs apart
    CHECK(hca_dev_index("ens3np0") == -1);
    CHECK(hca_dev_index("enp65s0f0np0") == -1);
    CHECK(hca_dev_index("eno1") == -1);
    CHECK(hca_dev_index("mlx5_3") == 3);
    CHECK(hca_dev_index("eth2") == 2);
    // gpu03's ens3np0 cable is out: lldpd shows no neighbour on it
    char dir[] = "/tmp/atoll-lldp-XXXXXX";
    REQUIRE(mkdtemp(dir));
    std::string cp = std::string("cp '") + test_data("lldp/rails8/keyvalue") + "'/* '" + dir + "' && grep -v '^lldp.ens3np0[.]' '" +
                     test_data("lldp/rails8/keyvalue/gpu03.keyvalue") + "' >'" + dir + "/gpu03.keyvalue'";
    REQUIRE(system(cp.c_str()) == 0);
    Topology t = analyse(load_lldp(dir));
    CHECK(joined(t.rails) == rails8_names);
    CHECK(view_hcas(t, "gpu03") == "ens1np0,ens2np0,ens4np0,ens5np0,ens6np0,ens7np0,ens8np0");
    // gpu03's ens4np0 is the 3rd NIC by place, but it lands on leaf-r4: rail ens4np0
    for (const HostPort &p : t.hosts[static_cast<std::size_t>(t.host_index.at("gpu03"))].ports)
        CHECK(t.rails[static_cast<std::size_t>(p.rail)] == p.hca);
    std::string found;
    for (const Finding &f : check(t))
        if (f.code != "frontend-nic")
            found += f.code + " " + f.subject + ": " + f.message + "\n";
    CHECK(found == "missing-rail gpu03: host has no adapter on rail ens3np0\n");
    std::string rm = std::string("rm -rf '") + dir + "'";
    REQUIRE(system(rm.c_str()) == 0);
}

namespace {

// pdsh-gathered keyvalue tables: each host's ens1f0np0 on r0-leaf1 and
// ens1f1np1 on r1-leaf1 (Bridge), then what the attacker's root adds
std::string rail_tables(const std::string &extra)
{
    std::string t;
    for (int h = 1; h <= 4; ++h)
        for (int r = 0; r < 2; ++r) {
            std::string p = "node00" + std::to_string(h) + ": lldp.ens1f" + std::to_string(r) + "np" + std::to_string(r) + ".";
            t += p + "chassis.name=r" + std::to_string(r) + "-leaf1\n" + p + "chassis.Bridge.enabled=on\n" + p +
                 "port.ifname=swp" + std::to_string(h) + "\n";
        }
    return t + extra;
}

// The tables of two leaves (r0-leaf1, r1-leaf1) and spine1 above them; each
// leaf names its hosts node001..node004 with the capability lines given.
std::string leaf_spine_tables(const std::string &cap, const std::string &cap2 = "")
{
    std::string sw;
    for (int r = 0; r < 2; ++r) {
        std::string leaf = "r" + std::to_string(r) + "-leaf1", p = leaf + ": lldp.swp5" + std::to_string(r) + ".";
        sw += p + "chassis.name=spine1\n" + p + "chassis.Bridge.enabled=on\n" + p + "port.ifname=swp" + std::to_string(r + 1) + "\n";
        for (int h = 1; h <= 4; ++h) {
            std::string q = leaf + ": lldp.swp" + std::to_string(h) + ".";
            sw += q + "chassis.name=node00" + std::to_string(h) + "\n" + q + cap + (cap2.empty() ? "" : q + cap2) + q +
                  "port.ifname=ens1f" + std::to_string(r) + "np" + std::to_string(r) + "\n";
        }
        std::string s2 = "spine1: lldp.swp" + std::to_string(r + 1) + ".";
        sw += s2 + "chassis.name=" + leaf + "\n" + s2 + "chassis.Bridge.enabled=on\n" + s2 + "port.ifname=swp5" + std::to_string(r) + "\n";
    }
    return sw;
}

Topology from_tables(const std::string &text, const NicRoles &roles = {})
{
    std::istringstream in(text);
    return analyse(lldp_fabric(parse_lldp(in, "pdsh", ""), "pdsh", roles));
}

bool has_claim(const Topology &t, const std::string &what)
{
    for (const Finding &f : check(t))
        if (f.code == "refused-claim" && f.severity == Severity::Error && f.message.find(what) != std::string::npos)
            return true;
    return false;
}

}  // namespace

TEST_CASE("LLDP tables are claims: a switch one host names alone is not believed", "[lldp][identity]")
{
    Topology good = from_tables(rail_tables(""));
    REQUIRE(good.host_index.size() == 4);
    // node004's root names a third "switch" after a site feature
    Topology t = from_tables(rail_tables("node004: lldp.eno9.chassis.name=bigmem\nnode004: lldp.eno9.chassis.Bridge.enabled=on\n"
                                         "node004: lldp.eno9.port.ifname=x1\n"));
    for (const Island &is : t.islands)
        CHECK(is.name.find("bigmem") == std::string::npos);
    CHECK(has_claim(t, "names the switch 'bigmem' alone"));
    // the same leaf named by two hosts is believed
    Topology two = from_tables(rail_tables("node004: lldp.eno9.chassis.name=mgmt1\nnode004: lldp.eno9.port.ifname=g4\n"
                                             "node003: lldp.eno9.chassis.name=mgmt1\nnode003: lldp.eno9.port.ifname=g3\n"));
    auto fs = check(two);
    CHECK(std::none_of(fs.begin(), fs.end(), [](const Finding &f) { return f.code == "refused-claim"; }));
    CHECK(two.switch_index.size() == 3);
}

TEST_CASE("LLDP tables are claims: no host becomes a switch, and no table renames its host", "[lldp][identity]")
{
    // node004 says its neighbour node001 (a system with its own table) is a Bridge
    Topology t = from_tables(rail_tables("node004: lldp.eno9.chassis.name=node001\nnode004: lldp.eno9.chassis.Bridge.enabled=on\n"));
    CHECK(t.host_index.count("node001") == 1);
    CHECK(t.host_index.count("node004") == 1);
    CHECK(has_claim(t, "names node001, a system with a table of its own, as a Bridge"));
    // node004.json claims (lldp_loc_chassis) to be node001: it stays node004
    std::string js = R"({"lldp_loc_chassis": {"local-chassis": {"chassis": {"node001": {"id": {"type": "mac", "value": "aa"}}}}},
                         "lldp": {"interface": [{"eth7": {"chassis": {"r0-leaf1": {"capability": [{"type": "Bridge", "enabled": true}]}},
                                                               "port": {"id": {"value": "swp9"}}}}]}})";
    std::istringstream jin(js);
    std::vector<LldpNeighbor> ns = parse_lldp(jin, "node004.json", "node004");
    std::istringstream rest(rail_tables(""));
    std::vector<LldpNeighbor> all = parse_lldp(rest, "pdsh", "");
    all.insert(all.end(), ns.begin(), ns.end());
    Fabric f = lldp_fabric(all, "lldp", {});
    Topology t2 = analyse(f);
    CHECK(t2.host_index.count("node004") == 1);
    CHECK(has_claim(t2, "names its own system 'node001': taken as node004's"));
}

TEST_CASE("with --switches the admin's list decides which neighbours are switches", "[lldp][identity]")
{
    NicRoles roles;
    roles.switches = "r*-leaf*";
    Topology t = from_tables(rail_tables("node003: lldp.eno9.chassis.name=mgmt1\nnode003: lldp.eno9.port.ifname=g3\n"
                                         "node004: lldp.eno9.chassis.name=mgmt1\nnode004: lldp.eno9.port.ifname=g4\n"), roles);
    for (const Switch &s : t.switches)
        CHECK(s.name != "mgmt1");
    CHECK(has_claim(t, "which --switches does not list"));
    CHECK(t.host_index.size() == 4);
}

TEST_CASE("LLDP: a table calling its own system a switch cannot vouch for a claim on another host", "[lldp][identity]")
{
    // node004's json says node004 is a Bridge (lldp_loc_chassis) and that its
    // neighbour node002 (a host with its own table) is one too
    std::string js = R"({"lldp_loc_chassis": {"local-chassis": {"chassis": {"node004": {"capability": [{"type": "Bridge", "enabled": true}]}}}},
                         "lldp": {"interface": [{"ens9np0": {"chassis": {"node002": {"capability": [{"type": "Bridge", "enabled": true}]}},
                                                             "port": {"id": {"value": "ens9np0"}}}}]}})";
    std::istringstream jin(js);
    std::vector<LldpNeighbor> all = parse_lldp(jin, "node004.json", "node004");
    std::istringstream rest(rail_tables(""));
    for (const LldpNeighbor &n : parse_lldp(rest, "pdsh", ""))
        if (n.local != "node004")
            all.push_back(n);
    Topology t = analyse(lldp_fabric(all, "lldp", {}));
    CHECK(t.host_index.count("node002") == 1);  // still a host
    CHECK(has_claim(t, "names node002, a system with a table of its own"));
}

TEST_CASE("LLDP: a table calling its own system a switch is believed only when others name it", "[lldp][identity]")
{
    // node004's root declares node004 a Bridge (lldp_loc_chassis): cabled to
    // both rail leaves, it would join them as their spine
    auto own = [](const std::string &name, const std::string &iface, const std::string &peer, const std::string &port) {
        return R"({"lldp_loc_chassis": {"local-chassis": {"chassis": {")" + name +
               R"(": {"capability": [{"type": "Bridge", "enabled": true}]}}}},
                   "lldp": {"interface": [{")" + iface + R"(": {"chassis": {")" + peer +
               R"(": {"capability": [{"type": "Bridge", "enabled": true}]}}, "port": {"id": {"value": ")" + port + R"("}}}}]}})";
    };
    std::string js = own("node004", "ens1f0np0", "r0-leaf1", "swp4");
    std::istringstream jin(js);
    std::vector<LldpNeighbor> all = parse_lldp(jin, "node004.json", "node004");
    std::istringstream rest(rail_tables(""));
    for (const LldpNeighbor &n : parse_lldp(rest, "pdsh", ""))
        if (!(n.local == "node004" && n.iface == "ens1f0np0"))
            all.push_back(n);
    Topology t = analyse(lldp_fabric(all, "lldp", {}));
    CHECK(t.host_index.count("node004") == 1);
    auto named = [](const Topology &tp, const std::string &n) {
        return std::any_of(tp.switches.begin(), tp.switches.end(), [&](const Switch &sw) { return sw.name == n; });
    };
    CHECK_FALSE(named(t, "node004"));
    CHECK(t.switches.size() == 2);
    CHECK(has_claim(t, "node004: its own table calls it a switch"));
    // a leaf's own table, named by the hosts cabled to it, is a switch's
    std::string leaf = own("r0-leaf1", "swp1", "node001", "ens1f0np0");
    std::istringstream lin(leaf);
    std::vector<LldpNeighbor> with_leaf = parse_lldp(lin, "r0-leaf1.json", "r0-leaf1");
    std::istringstream rest2(rail_tables(""));
    for (const LldpNeighbor &n : parse_lldp(rest2, "pdsh", ""))
        with_leaf.push_back(n);
    Topology t2 = analyse(lldp_fabric(with_leaf, "lldp", {}));
    CHECK(named(t2, "r0-leaf1"));
    CHECK(t2.host_index.size() == 4);
    CHECK_FALSE(has_claim(t2, "its own table calls it a switch"));
}

TEST_CASE("LLDP: one host's rail cable out does not split the fabric into subnets", "[lldp]")
{
    // host tables only: the two rail leaves are joined by the hosts cabled
    // to both; node001 lost its r0 cable (helper 24: a false
    // disconnected-subnets, while topology.conf put a switch above both).
    // (Without speeds the hosts' NICs are undecided: no rail finding here.)
    std::string t = rail_tables("");
    std::string cut;
    std::istringstream lines(t);
    for (std::string l; std::getline(lines, l);)
        if (l.rfind("node001: lldp.ens1f0np0.", 0) != 0)
            cut += l + "\n";
    Topology top = from_tables(cut);
    REQUIRE(top.host_index.count("node001") == 1);
    auto fs = check(top);
    CHECK(std::none_of(fs.begin(), fs.end(), [](const Finding &f) { return f.code == "disconnected-subnets"; }));
    CHECK(leaf_subnets(top).size() == 1);
}

TEST_CASE("LLDP: switch tables with one spine, a host naming itself a Bridge among leaves that name it, switches alone", "[lldp][identity]")
{
    // (helper 26) each leaf's table names its one uplink, spine1 (a Bridge),
    // and, as real leaves do, the hosts cabled to it (as Stations); spine1's
    // names both leaves. A leaf is vouched for by the hosts naming it as a
    // Bridge and the spine it names back: one spine is enough
    std::string sw = leaf_spine_tables("chassis.Station.enabled=on\n");
    auto named = [](const Topology &tp, const std::string &n) {
        return std::any_of(tp.switches.begin(), tp.switches.end(), [&](const Switch &x) { return x.name == n; });
    };
    Topology t = from_tables(rail_tables(sw));
    CHECK(t.switches.size() == 3);
    CHECK(named(t, "spine1"));
    CHECK(named(t, "r0-leaf1"));
    CHECK(named(t, "r1-leaf1"));
    CHECK(t.host_index.size() == 4);
    CHECK(leaf_subnets(t).size() == 1);
    // node004's root declares node004 a Bridge: the leaves name it as a
    // Station, no witness; it stays a host
    std::string js = R"({"lldp_loc_chassis": {"local-chassis": {"chassis": {"node004": {"capability": [{"type": "Bridge", "enabled": true}]}}}},
                         "lldp": {"interface": [{"ens1f0np0": {"chassis": {"r0-leaf1": {"capability": [{"type": "Bridge", "enabled": true}]}},
                                                               "port": {"id": {"value": "swp4"}}}}]}})";
    std::istringstream jin(js);
    std::vector<LldpNeighbor> all = parse_lldp(jin, "node004.json", "node004");
    std::istringstream rest(rail_tables(sw));
    for (const LldpNeighbor &n : parse_lldp(rest, "pdsh", ""))
        if (!(n.local == "node004" && n.iface == "ens1f0np0"))
            all.push_back(n);
    Topology a = analyse(lldp_fabric(all, "lldp", {}));
    CHECK_FALSE(named(a, "node004"));
    CHECK(a.host_index.count("node004") == 1);
    CHECK(has_claim(a, "node004: its own table calls it a switch"));
    // the switches' tables alone (two spines, so the leaves are vouched
    // for): the hosts they name as Stations are no switches, and there is
    // no host to place: an error (it wrote an empty topology.conf, exit 0)
    for (int r = 0; r < 2; ++r) {
        std::string leaf = "r" + std::to_string(r) + "-leaf1", p = leaf + ": lldp.swp6" + std::to_string(r) + ".";
        sw += p + "chassis.name=spine2\n" + p + "chassis.Bridge.enabled=on\n" + p + "port.ifname=swp" + std::to_string(r + 1) + "\n";
        std::string s2 = "spine2: lldp.swp" + std::to_string(r + 1) + ".";
        sw += s2 + "chassis.name=" + leaf + "\n" + s2 + "chassis.Bridge.enabled=on\n" + s2 + "port.ifname=swp6" + std::to_string(r) + "\n";
    }
    std::istringstream only(sw);
    CHECK_THROWS_WITH(lldp_fabric(parse_lldp(only, "pdsh", ""), "sw", {}), Catch::Contains("found no host's table naming a switch"));
}

TEST_CASE("LLDP: with Slurm's node list, hosts running Docker stay hosts and a spine with one cable is no host", "[lldp][identity]")
{
    // Docker's bridge and ip_forward make lldpd on a host advertise Bridge
    // and Router; each leaf of a rail-optimized host reports it so. Two
    // leaves naming it as a Bridge it names back: by the tables alone it is
    // as much a switch as a spine is. Slurm's node list says it is a host.
    std::string sw = leaf_spine_tables("chassis.Bridge.enabled=on\n", "chassis.Router.enabled=on\n");
    // spine2, cabled to r0-leaf1 alone (its other cables down)
    sw += "r0-leaf1: lldp.swp60.chassis.name=spine2\nr0-leaf1: lldp.swp60.chassis.Bridge.enabled=on\nr0-leaf1: lldp.swp60.port.ifname=swp1\n"
          "spine2: lldp.swp1.chassis.name=r0-leaf1\nspine2: lldp.swp1.chassis.Bridge.enabled=on\nspine2: lldp.swp1.port.ifname=swp60\n";
    auto named = [](const Topology &tp, const std::string &n) {
        return std::any_of(tp.switches.begin(), tp.switches.end(), [&](const Switch &x) { return x.name == n; });
    };
    NicRoles slurm;
    slurm.slurm_given = true;
    slurm.slurm_nodes = {"node001", "node002", "node003", "node004", "node005"};
    Topology t = from_tables(rail_tables(sw), slurm);
    CHECK(t.host_index.size() == 4);
    for (int h = 1; h <= 4; ++h)
        CHECK_FALSE(named(t, "node00" + std::to_string(h)));
    CHECK(named(t, "spine1"));
    CHECK(named(t, "r0-leaf1"));
    CHECK(named(t, "r1-leaf1"));
    CHECK(t.host_index.count("spine2") == 0);
    CHECK(leaf_subnets(t).size() == 1);
    CHECK(std::any_of(t.fabric.warnings.begin(), t.fabric.warnings.end(), [](const std::string &w) {
        return w.find("spine2: a table of a system Slurm has no node of") != std::string::npos;
    }));
    // tables none of whose systems Slurm names: the file names are not
    // Slurm's node names, an error rather than no hosts
    NicRoles other;
    other.slurm_given = true;
    other.slurm_nodes = {"gpu-a001", "gpu-a002"};
    std::istringstream in(rail_tables(sw));
    CHECK_THROWS_WITH(lldp_fabric(parse_lldp(in, "pdsh", ""), "pdsh", other), Catch::Contains("nodes of --slurm-nodes ("));
    // a host Slurm names that a node's root says is a switch, or that
    // --switches lists by a wide pattern, is still a host
    NicRoles wide = slurm;
    wide.switches = "*";
    Topology w = from_tables(rail_tables(sw), wide);
    CHECK(w.host_index.size() == 4);
    CHECK(named(w, "spine1"));
}

TEST_CASE("LLDP: a port its switch's own table names is kept for that system; a left-out table vouches for no one", "[lldp][identity]")
{
    // (helper 27) node002's root names leaf01's swp1, node001's port; leaf01's
    // own table says node001 is there: node001 keeps its link, node002's claim
    // is refused (it used to refuse both, moving node001 to its other leaf)
    std::string t;
    for (int h = 1; h <= 4; ++h) {
        std::string n = "node00" + std::to_string(h), p = n + ": lldp.ens1np0.", q = "leaf01: lldp.swp" + std::to_string(h) + ".";
        t += p + "chassis.name=leaf01\n" + p + "chassis.Bridge.enabled=on\n" + p + "port.ifname=swp" + std::to_string(h) + "\n";
        t += q + "chassis.name=" + n + "\n" + q + "chassis.Station.enabled=on\n" + q + "port.ifname=ens1np0\n";
    }
    std::string evil = t + "node002: lldp.eth12.chassis.name=leaf01\nnode002: lldp.eth12.chassis.Bridge.enabled=on\n"
                           "node002: lldp.eth12.port.ifname=swp1\n";
    Topology a = from_tables(evil);
    REQUIRE(a.host_index.count("node001") == 1);
    const Host &h1 = a.hosts[static_cast<std::size_t>(a.host_index.at("node001"))];
    CHECK(h1.ports.size() == 1);
    CHECK(std::none_of(a.fabric.nodes.begin(), a.fabric.nodes.end(), [](const Node &n) { return n.desc == "node002 eth12"; }));
    CHECK(has_claim(a, "leaf01's own table names node001 there, so that link stands"));
    // without leaf01's word on swp1, node001 keeps it all the same: eth12
    // is an interface beyond the one most hosts have
    std::string no_word;
    std::istringstream in(evil);
    for (std::string line; std::getline(in, line);)
        if (line.rfind("leaf01: lldp.swp1.", 0) != 0)
            no_word += line + "\n";
    Topology b = from_tables(no_word);
    CHECK(has_claim(b, "the other claimant has an interface no other host on leaf01 has and more switch links than the 1 most hosts have, node001 neither: its link stands"));
    // a login node Slurm does not name is left out, and its table is no
    // second witness for a switch one Slurm node names alone
    std::string vote = t + "node001: lldp.ens3np0.chassis.name=evilsw\nnode001: lldp.ens3np0.chassis.Bridge.enabled=on\n"
                           "node001: lldp.ens3np0.port.ifname=x1\nlogin1: lldp.eth0.chassis.name=evilsw\n"
                           "login1: lldp.eth0.chassis.Bridge.enabled=on\nlogin1: lldp.eth0.port.ifname=x2\n";
    NicRoles slurm;
    slurm.slurm_given = true;
    slurm.slurm_nodes = {"node001", "node002", "node003", "node004"};
    Topology v = from_tables(vote, slurm);
    CHECK(std::none_of(v.switches.begin(), v.switches.end(), [](const Switch &x) { return x.name == "evilsw"; }));
    CHECK(has_claim(v, "names the switch 'evilsw' alone"));
    CHECK(v.host_index.size() == 4);
}

TEST_CASE("LLDP: a switch port two tables claim is believed for neither, and discovery goes on", "[lldp][identity]")
{
    // node004's root names node001's port swp1 of r1-leaf1 as its own
    // neighbour on a made-up interface, one more than most hosts have, so
    // node001's link stands (helper 73: it
    // was refused for both, node001 losing its rail and node004 nothing)
    Topology t = from_tables(rail_tables("node004: lldp.ens9np0.chassis.name=r1-leaf1\nnode004: lldp.ens9np0.port.ifname=swp1\n"));
    CHECK(has_claim(t, "port swp1 of r1-leaf1 is claimed by 2 peers"));
    CHECK(has_claim(t, "the other claimant has an interface no other host on r1-leaf1 has and more switch links than the 2 most hosts have, node001 neither: its link stands"));
    CHECK(t.host_index.size() == 4);
    auto fs = check(t);
    CHECK(std::none_of(fs.begin(), fs.end(), [](const Finding &f) { return f.code == "missing-rail" && f.subject.find("node001") != std::string::npos; }));
    // from its own rail's interface instead (its real port given up): the
    // claims are alike, neither is believed, and discovery goes on
    std::string alike = rail_tables("");
    alike.replace(alike.find("node004: lldp.ens1f1np1.port.ifname=swp4"), 40, "node004: lldp.ens1f1np1.port.ifname=swp1");
    Topology u = from_tables(alike);
    CHECK(has_claim(u, "none of these links is believed"));
    CHECK(u.host_index.size() == 4);
    auto gs = check(u);
    CHECK(std::any_of(gs.begin(), gs.end(), [](const Finding &f) { return f.code == "missing-rail" && f.subject.find("node001") != std::string::npos; }));
}

TEST_CASE("LLDP: two colluding hosts cannot make a third host a switch; one-sided switch links are not believed", "[lldp][identity]")
{
    // node003 and node004 both name node001 (which has its own table, naming
    // only its leaves) as a Bridge neighbour
    Topology t = from_tables(rail_tables("node003: lldp.eno9.chassis.name=node001\nnode003: lldp.eno9.chassis.Bridge.enabled=on\n"
                                         "node003: lldp.eno9.port.ifname=p3\n"
                                         "node004: lldp.eno9.chassis.name=node001\nnode004: lldp.eno9.chassis.Bridge.enabled=on\n"
                                         "node004: lldp.eno9.port.ifname=p4\n"));
    CHECK(t.host_index.count("node001") == 1);
    CHECK(has_claim(t, "node003, node004 name node001"));
}

TEST_CASE("LLDP: a switch's link that the other switch's own table does not name is not believed", "[lldp][identity]")
{
    NicRoles roles;
    roles.switches = "r*-leaf*,spine*";
    // r0-leaf1's table names spine1; r1-leaf1's names spine1 and, falsely, r0-leaf1
    std::string sw = "r0-leaf1: lldp.swp9.chassis.name=spine1\nr0-leaf1: lldp.swp9.port.ifname=e1\n"
                     "r1-leaf1: lldp.swp9.chassis.name=spine1\nr1-leaf1: lldp.swp9.port.ifname=e2\n"
                     "r1-leaf1: lldp.swp10.chassis.name=r0-leaf1\nr1-leaf1: lldp.swp10.port.ifname=swp10\n";
    Topology t = from_tables(rail_tables(sw), roles);
    CHECK(has_claim(t, "r1-leaf1: names a link to r0-leaf1, whose own table does not name r1-leaf1"));
    for (const Link &l : t.fabric.links) {
        const Node *a = t.fabric.find(l.a.guid), *b = t.fabric.find(l.b.guid);
        bool between = (a->desc == "r0-leaf1" && b->desc == "r1-leaf1") || (a->desc == "r1-leaf1" && b->desc == "r0-leaf1");
        CHECK_FALSE(between);
    }
}

TEST_CASE("split_nics: ports on a network no switch cable joins to the rails' are no rails", "[lldp][frontend]")
{
    // 4 hosts: 8 rails (leaf-r1..8, joined by spine1) and two storage ports
    // as fast (stor1, stor2, joined by sspine1 only), eno1 slower on mgmt
    std::vector<LldpNeighbor> ns;
    std::vector<std::pair<std::string, std::string>> links;
    for (int h = 1; h <= 4; ++h) {
        std::string host = "gpu0" + std::to_string(h);
        for (int r = 1; r <= 8; ++r)
            ns.push_back(nb(host, "ens" + std::to_string(r) + "np0", "leaf-r" + std::to_string(r), 400));
        ns.push_back(nb(host, "enp170s0f0np0", "stor1", 400));
        ns.push_back(nb(host, "enp170s0f1np1", "stor2", 400));
        ns.push_back(nb(host, "eno1", "mgmt", 25));
    }
    for (int r = 1; r <= 8; ++r)
        links.push_back({"leaf-r" + std::to_string(r), "spine1"});
    links.push_back({"stor1", "sspine1"});
    links.push_back({"stor2", "sspine1"});
    NicSplit s = split_nics(ns, {}, {}, links);
    std::set<std::string> front;
    for (const FrontEndNic &f : s.frontend)
        front.insert(f.host + " " + f.iface);
    CHECK(front.size() == 12);
    CHECK(front.count("gpu03 enp170s0f1np1"));
    CHECK(front.count("gpu03 eno1"));
    CHECK(s.compute.size() == 32);
    CHECK(s.undecided.empty());
    // without the switches' cables the storage ports are as the rails (left as documented)
    CHECK(split_nics(ns, {}, {}).compute.size() == 40);
    // a storage leaf whose cables no table shows is not known to be apart
    links.pop_back();
    CHECK(split_nics(ns, {}, {}, links).compute.size() == 36);
    // rail planes that do not meet (each leaf its own spine): no network
    // holds most of a host's ports, none is taken out
    std::vector<std::pair<std::string, std::string>> planes;
    for (int r = 1; r <= 8; ++r)
        planes.push_back({"leaf-r" + std::to_string(r), "plane-spine" + std::to_string(r)});
    planes.push_back({"stor1", "sspine1"});
    planes.push_back({"stor2", "sspine1"});
    CHECK(split_nics(ns, {}, {}, planes).compute.size() == 40);
    // two planes of four rails each: neither holds more than half
    std::vector<std::pair<std::string, std::string>> two;
    for (int r = 1; r <= 8; ++r)
        two.push_back({"leaf-r" + std::to_string(r), r <= 4 ? "spineA" : "spineB"});
    CHECK(split_nics(ns, {}, {}, two).compute.size() == 40);
    // two planes of four rails and the storage network: the planes, each
    // with more of the host's ports, hold most of them together
    two.push_back({"stor1", "sspine1"});
    two.push_back({"stor2", "sspine1"});
    CHECK(split_nics(ns, {}, {}, two).compute.size() == 32);
    // four planes of two: the storage network is like a plane (left)
    std::vector<std::pair<std::string, std::string>> four;
    for (int r = 1; r <= 8; ++r)
        four.push_back({"leaf-r" + std::to_string(r), "spine" + std::to_string((r + 1) / 2)});
    four.push_back({"stor1", "sspine1"});
    four.push_back({"stor2", "sspine1"});
    CHECK(split_nics(ns, {}, {}, four).compute.size() == 40);
    // the admin's word wins: --compute names the storage ports too
    NicRoles roles;
    roles.compute = "ens*np0,enp170s0f*";
    CHECK(split_nics(ns, roles, {}, links).compute.size() == 40);
}

TEST_CASE("split_nics: a network of more ports that carries a slower port of the host is no rails' network", "[lldp][frontend]")
{
    // CPU nodes: one 100G RoCE port on leaf-cpu; a 100G bond's two members
    // and eno1 at 25G on fe-leaf1/fe-leaf2 (joined): the front-end network
    // holds 3 of 4 ports, and its slower eno1 shows what it is. The RoCE
    // port is not put out as "another network" (helper 15).
    std::vector<LldpNeighbor> ns;
    for (int h = 1; h <= 6; ++h) {
        std::string host = "cpu0" + std::to_string(h);
        ns.push_back(nb(host, "ens1np0", "leaf-cpu", 100));
        ns.push_back(nb(host, "ens2f0np0", "fe-leaf1", 100));
        ns.push_back(nb(host, "ens2f1np1", "fe-leaf2", 100));
        ns.push_back(nb(host, "eno1", "fe-leaf1", 25));
    }
    std::vector<std::pair<std::string, std::string>> links = {
        {"leaf-cpu", "spine1"}, {"leaf-cpu", "spine2"}, {"fe-leaf1", "fe-spine"}, {"fe-leaf2", "fe-spine"}};
    NicSplit s = split_nics(ns, {}, {}, links);
    for (const FrontEndNic &f : s.frontend)
        CHECK(f.iface == "eno1");
    CHECK(std::count_if(s.compute.begin(), s.compute.end(), [](const LldpNeighbor &n) { return n.iface == "ens1np0"; }) == 6);
}

TEST_CASE("read_node_json: which adapters are the GPUs' own, and when that is not known", "[lldp][frontend]")
{
    // as atoll-topo node --json writes it (node/nodeview.cpp): gpus with
    // nearest_hca, distance and equally_near; ports with hca and netdevs
    auto doc = [](int gpus, int per_nic, int nics, const char *dist, int ties, bool bond) {
        std::string s = "{\"gpus\": [";
        for (int g = 0; g < gpus; ++g)
            s += std::string(g ? "," : "") + "{\"gpu\": " + std::to_string(g) + ", \"pci\": \"0000:00:00.0\", \"nearest_hca\": \"mlx5_" +
                 std::to_string(g / per_nic) + "\", \"distance\": \"" + dist + "\", \"equally_near\": " + std::to_string(ties) + "}";
        s += "], \"ports\": [";
        for (int n = 0; n < nics; ++n)
            s += std::string(n ? "," : "") + "{\"hca\": \"mlx5_" + std::to_string(n) + "\", \"port\": 1, \"link_layer\": \"Ethernet\", " +
                 "\"rate\": \"400 Gb/sec (4X NDR)\", \"netdevs\": [\"ens" + std::to_string(n + 1) + "np0\"]}";
        if (bond)
            s += ", {\"hca\": \"mlx5_bond_0\", \"port\": 1, \"link_layer\": \"Ethernet\", \"rate\": \"400 Gb/sec (4X NDR)\", "
                 "\"netdevs\": [\"bond0\"], \"bond_members\": [\"enp170s0f0np0\", \"enp170s0f1np1\"]}";
        return s + "]}";
    };
    auto read = [](const std::string &s) {
        std::istringstream in(s);
        return read_node_json(in, "h.node.json");
    };
    // DGX H100: 8 GPUs, each its own adapter (PXB), 2 storage adapters
    HostNics d = read(doc(8, 1, 10, "PXB", 1, false));
    CHECK(d.gpu_own.size() == 8);
    CHECK(d.no_gpu == std::set<std::string>{"ens9np0", "ens10np0"});
    // the storage ports a RoCE LAG: its members are no GPU's
    HostNics b = read(doc(8, 1, 8, "PIX", 1, true));
    CHECK(b.no_gpu == std::set<std::string>{"bond0", "enp170s0f0np0", "enp170s0f1np1"});
    // not known: two GPUs on one adapter, a tie (DGX A100), GPUs on the
    // CPU's ports (NODE), 4 GPUs with as many adapters no GPU has
    CHECK(read(doc(8, 2, 8, "PXB", 1, false)).gpu_own.empty());
    CHECK(read(doc(8, 1, 10, "PXB", 2, false)).gpu_own.empty());
    CHECK(read(doc(8, 1, 10, "NODE", 1, false)).gpu_own.empty());
    CHECK(read(doc(4, 1, 8, "PIX", 1, false)).gpu_own.empty());
    // not JSON, no ports: an error naming the file
    CHECK_THROWS_WITH(read("[1,2]"), Catch::Contains("h.node.json: found no \"ports\" array"));
    CHECK_THROWS_WITH(read("{\"ports\": ["), Catch::Contains("h.node.json: not valid JSON"));
    // the rule does not put out a port on the rails' own network, as the
    // switches' tables show it (helper 16: a storage NIC PIX to GPU0)
    std::vector<LldpNeighbor> ns;
    std::map<std::string, HostNics> nics;
    std::vector<std::pair<std::string, std::string>> links;
    for (int h = 1; h <= 2; ++h) {
        std::string host = "gpu0" + std::to_string(h);
        for (int r = 1; r <= 8; ++r)
            ns.push_back(nb(host, "ens" + std::to_string(r) + "np0", "leaf-r" + std::to_string(r), 400));
        ns.push_back(nb(host, "ens9np0", "stor1", 400));
        ns.push_back(nb(host, "ens10np0", "stor2", 400));
        nics[host] = d;
        nics[host].no_gpu.insert("ens1np0");  // as if GPU0's nearest were a storage adapter
    }
    for (int r = 1; r <= 8; ++r)
        links.push_back({"leaf-r" + std::to_string(r), "spine1"});
    NicSplit s = split_nics(ns, {}, nics, links);
    CHECK(std::count_if(s.compute.begin(), s.compute.end(), [](const LldpNeighbor &n) { return n.iface == "ens1np0"; }) == 2);
    CHECK(std::none_of(s.compute.begin(), s.compute.end(), [](const LldpNeighbor &n) { return n.iface == "ens9np0"; }));
}
