#include "catch.hpp"
#include <fstream>
#include <iterator>
#include <sstream>

#include "testdata.hpp"
#include "topology/topology.hpp"

using namespace atl;

namespace {
std::size_t count_type(const Fabric &f, NodeType t)
{
    std::size_t n = 0;
    for (const auto &node : f.nodes)
        n += node.type == t;
    return n;
}
// what every source of the same fabric must agree on
void require_same_wiring(const Fabric &x, const Fabric &y)
{
    REQUIRE(x.nodes.size() == y.nodes.size());
    for (std::size_t i = 0; i < x.nodes.size(); ++i) {
        CHECK(x.nodes[i].guid == y.nodes[i].guid);
        CHECK(x.nodes[i].desc == y.nodes[i].desc);
        CHECK(x.nodes[i].type == y.nodes[i].type);
    }
    REQUIRE(x.links.size() == y.links.size());
    for (std::size_t i = 0; i < x.links.size(); ++i) {
        CHECK(x.links[i].a.guid == y.links[i].a.guid);
        CHECK(x.links[i].a.port == y.links[i].a.port);
        CHECK(x.links[i].b.guid == y.links[i].b.guid);
        CHECK(x.links[i].b.port == y.links[i].b.port);
        CHECK(x.links[i].width == y.links[i].width);
        CHECK(x.links[i].speed == y.links[i].speed);
    }
}
}  // namespace

TEST_CASE("Selene's compute fabric parses with every switch, CA and cable", "[ibnetdiscover]")
{
    Fabric f = load_fabric(selene_path());
    CHECK(count_type(f, NodeType::Switch) == 666);
    CHECK(count_type(f, NodeType::Ca) == 4341);
    CHECK(f.links.size() == 12852);
    const Node *leaf = f.find(0x1c34da0300728866ULL);
    REQUIRE(leaf);
    CHECK(leaf->desc == "MF0;MLG01-02:MQM8700/U1");
    CHECK(leaf->lid == 1600);
    CHECK(leaf->num_ports == 41);
    CHECK(leaf->sysimg_guid == 0x1c34da0300728866ULL);
    CHECK(leaf->device_id == 0xd2f0);
    // "selene-cache-02 mlx5_1 " keeps its trailing blank as the node reports it
    const Node *ca = f.find(0x1c34da0300608908ULL);
    REQUIRE(ca);
    CHECK(ca->desc == "selene-cache-02 mlx5_1 ");
}

TEST_CASE("plain, grouped (-g) and full (-f) outputs of one fabric agree", "[ibnetdiscover]")
{
    for (const char *dir : {"fattree_4x8_2s", "fattree_dualport_degraded", "fattree_rails4_8hosts",
                            "fattree_ndr_rails8_8dgx_ibsim012"}) {
        SECTION(dir)
        {
            std::string d = std::string("ibsim/") + dir + "/";
            Fabric plain = load_fabric(test_data(d + "ibnetdiscover.txt"));
            Fabric g = load_fabric(test_data(d + "ibnetdiscover_g.txt"));
            Fabric full = load_fabric(test_data(d + "ibnetdiscover_full.txt"));
            g.source = full.source = plain.source;
            CHECK(plain == g);
            CHECK(plain == full);
            // the cache read through libibnetdisc has the same cables
            Fabric cache = load_fabric(test_data(d + "ibnetdiscover.cache"));
            require_same_wiring(plain, cache);
        }
    }
}

TEST_CASE("a cache file carries what each port supports", "[ibnetdiscover][cache]")
{
    Fabric f = load_fabric(test_data("ibsim/fattree_dualport_degraded/ibnetdiscover.cache"));
    std::size_t narrow = 0, slow = 0;
    for (const auto &l : f.links) {
        CHECK(l.supported_speed == Speed::HDR);
        narrow += l.width == 1;
        slow += l.speed == Speed::EDR;
    }
    CHECK(narrow == 1);
    CHECK(slow == 1);
}

TEST_CASE("the ports report (-p) gives the same cables as the topology text", "[ibnetdiscover][ports]")
{
    Fabric p = load_fabric(test_data("ibsim/fattree_4x8_2s/ibnetdiscover_p.txt"));
    Fabric t = load_fabric(test_data("ibsim/fattree_4x8_2s/ibnetdiscover.txt"));
    CHECK(count_type(p, NodeType::Switch) == 6);
    CHECK(count_type(p, NodeType::Ca) == 38);
    CHECK(p.links.size() == t.links.size());
    SECTION("the exporter's fixtures, with down ports and unquoted descriptions")
    {
        Fabric e = load_fabric(test_data("ibnetdiscover-p/infiniband_exporter_test.out"));
        CHECK(count_type(e, NodeType::Switch) == 4);
        CHECK(count_type(e, NodeType::Ca) == 3);
        CHECK(e.links.size() == 4);
        Fabric e3 = load_fabric(test_data("ibnetdiscover-p/infiniband_exporter_test3.out"));
        REQUIRE(e3.nodes.size() == 1);
        CHECK(e3.nodes[0].desc == "Infiniscale-IV Mellanox Technologies");
        CHECK(e3.links.empty());
    }
    SECTION("a port cabled to two peers is refused")
    {
        CHECK_THROWS_WITH(load_fabric(test_data("ibnetdiscover-p/infiniband_exporter_test2.out")),
                          Catch::Contains("port 0x946dae0300630bfe[1] 'Mellanox Technologies Aggregation Node' "
                                          "is cabled to two peers: 0x946dae030053ec1a[81] ' 5FB0406-spine-IB03 ' and "
                                          "0x946dae0300630bf6[81] '5FB0405-leaf-IB01 '"));
    }
}

TEST_CASE("every public ibnetdiscover fixture parses to hand-checked counts", "[ibnetdiscover]")
{
    struct Case {
        const char *file;
        std::size_t switches, cas, links;
    };
    for (const Case &c : {Case{"ibnetdiscover/ufm_selene_storage_hdr.txt", 160, 1247, 3286},
                          Case{"ibnetdiscover/ufm_small_topo_mixed_fdr_edr_hdr.txt", 2, 13, 16},
                          Case{"ibnetdiscover/hpc_toolset_X5_voltaire_qdr.topofile", 11, 89, 159},
                          Case{"ibnetdiscover/ibtopotool_test1.topo", 2, 4, 7},
                          Case{"ibnetdiscover/ibtopotool_test2.topo", 1, 2, 2},
                          Case{"ibnetdiscover/ibtopotool_test3.topo", 2, 6, 10},
                          Case{"ibnetdiscover/ibtopotool_test4.topo", 1, 1, 1},
                          Case{"ibnetdiscover/topograph_single_ca_example-bad.out", 0, 1, 0}}) {
        SECTION(c.file)
        {
            Fabric f = load_fabric(test_data(c.file));
            CHECK(count_type(f, NodeType::Switch) == c.switches);
            CHECK(count_type(f, NodeType::Ca) == c.cas);
            CHECK(f.links.size() == c.links);
        }
    }
}

TEST_CASE("the parser accepts what real files hold", "[ibnetdiscover]")
{
    const std::string sw = "switchguid=0x2c90200417670(2c90200417670)\r\n"
                           "Switch\t36 \"S-0002c90200417670\"\t\t# \"MF0;leaf \"a\" #1:SX6036/U1\" enhanced port 0 lid 18 lmc 0\r\n"
                           "[1]\t\"H-2c9030004e938\"[1](2c9030004e939) \t\t# \"node1 \"quoted\" # HCA-1\" lid 27 4xQDR\r\n"
                           "\r\n"
                           "caguid=0x2c9030004e938\r\n"
                           "Ca\t2 \"H-0002c9030004e938\"\t\t# \"node1 \"quoted\" # HCA-1\"\r\n"
                           "[1](2c9030004e939) \t\"S-0002c90200417670\"[1]\t\t# lid 27 lmc 0 \"MF0;leaf \"a\" #1:SX6036/U1\" lid 18 4xQDR\r\n";
    Fabric f = parse_string(sw);
    REQUIRE(f.nodes.size() == 2);
    REQUIRE(f.find(0x2c9030004e938ULL));  // unpadded GUIDs
    CHECK(f.find(0x2c9030004e938ULL)->desc == "node1 \"quoted\" # HCA-1");
    CHECK(f.find(0x2c90200417670ULL)->desc == "MF0;leaf \"a\" #1:SX6036/U1");
    REQUIRE(f.links.size() == 1);  // seen from both ends, one cable
    CHECK(f.links[0].b.guid == 0x2c9030004e938ULL);
    CHECK(f.links[0].b.port_guid == 0x2c9030004e939ULL);
    CHECK(f.links[0].b.lid == 27);
    CHECK(f.links[0].width == 4);
    CHECK(f.links[0].speed == Speed::QDR);
}

TEST_CASE("malformed input fails with file, line, what was found and what was expected", "[ibnetdiscover][errors]")
{
    const std::string head = "switchguid=0x2c90200417670(2c90200417670)\n"
                             "Switch\t36 \"S-0002c90200417670\"\t\t# \"sw\" enhanced port 0 lid 18 lmc 0\n";
    SECTION("a truncated port line")
    {
        CHECK_THROWS_WITH(parse_string(head + "[1]\t\"H-0002c9030004e938\"[1](2c9"),
                          Catch::StartsWith("test.txt:3: found") && Catch::Contains("expected"));
    }
    SECTION("a bad GUID")
    {
        CHECK_THROWS_WITH(parse_string("switchguid=0xZZ\n"),
                          Catch::StartsWith("test.txt:1: found '0xZZ'") && Catch::Contains("GUID"));
        CHECK_THROWS_WITH(parse_string("switchguid=0x1234567890abcdef0\n"),
                          Catch::StartsWith("test.txt:1:"));
    }
    SECTION("an unknown record")
    {
        CHECK_THROWS_WITH(parse_string(head + "Bridge 4 \"B-01\"\n"),
                          Catch::StartsWith("test.txt:3: found 'Bridge 4") && Catch::Contains("expected a node record"));
    }
    SECTION("binary junk")
    {
        std::string junk("\x7f" "ELF\x02\x01\x01\0\0\0", 10);
        CHECK_THROWS_WITH(parse_string(junk), Catch::StartsWith("test.txt:1: found '\\x7fELF"));
    }
    SECTION("a port line before any node")
    {
        CHECK_THROWS_WITH(parse_string("[1]\t\"S-01\"[2]\t\t# \"x\" lid 1 4xQDR\n"),
                          Catch::Contains("expected a Switch, Ca or Rt record before its port lines"));
    }
    SECTION("an unknown speed")
    {
        CHECK_THROWS_WITH(parse_string(head + "[1]\t\"S-01\"[2]\t\t# \"x\" lid 1 4xWARP\n"),
                          Catch::StartsWith("test.txt:3:") && Catch::Contains("link speed"));
    }
    SECTION("empty input")
    {
        CHECK_THROWS_WITH(parse_string(""), Catch::Contains("empty input"));
    }
}

TEST_CASE("a node name map renames adapters with firmware default descriptions", "[ibnetdiscover]")
{
    std::istringstream m("# comment\n0x003048c707b60000 \"x5-node01 HCA-1\"\n\n0x3048c748c60000 \"x5-node02 HCA-1\"\n");
    NodeNameMap map = parse_node_name_map(m, "map");
    CHECK(map.size() == 2);
    Fabric f = load_fabric(test_data("ibnetdiscover/hpc_toolset_X5_voltaire_qdr.topofile"));
    CHECK(apply_node_name_map(f, map) == 2);
    CHECK(f.find(0x003048c707b60000ULL)->desc == "x5-node01 HCA-1");
    std::istringstream bad("0x01 no-quotes\n");
    CHECK_THROWS_WITH(parse_node_name_map(bad, "map"), Catch::StartsWith("map:1:"));
}

TEST_CASE("files as people save them: a terminal capture's banner, prompts, CR and CRLF, lost tabs", "[ibnetdiscover]")
{
    Fabric clean = load_fabric(test_data("ibsim/fattree_4x8_2s/ibnetdiscover.txt"));
    CHECK(clean.warnings.empty());
    for (const char *name : {"ibnetdiscover/capture_script_crlf.txt", "ibnetdiscover/capture_cr_notab.txt"}) {
        Fabric f = load_fabric(test_data(name));
        CHECK(f.nodes == clean.nodes);
        CHECK(f.links == clean.links);
    }
    Fabric cap = load_fabric(test_data("ibnetdiscover/capture_script_crlf.txt"));
    REQUIRE(cap.warnings.size() == 2);
    // lines 1-2: the banner and the prompt; after the last record, the next prompt and script's end
    CHECK_THAT(cap.warnings[0], Catch::EndsWith("capture_script_crlf.txt:1: skipped 2 lines before the first record "
                                                "('Script started on 2026-11-30 09:12:44+00...', ...), not ibnetdiscover output"));
    CHECK_THAT(cap.warnings[1], Catch::Contains("capture_script_crlf.txt:411: skipped 2 lines after the last record ('[root@ufm01 ~]# exit'"));
    // a broken record in the middle is still an error at its line
    std::ifstream in(test_data("ibnetdiscover/capture_script_crlf.txt"));
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::size_t at = text.find("Switch\t");
    text.insert(at, "Switch oops \"S-1\"\r\n");
    std::istringstream bad(text);
    CHECK_THROWS_WITH(parse_ibnetdiscover(bad, "cap.txt"), Catch::StartsWith("cap.txt:") && Catch::Contains("found 'oops"));
    std::istringstream nothing("Script started\r\n[root@ufm01 ~]# ibnetdiscover\r\nibnetdiscover: command not found\r\n");
    CHECK_THROWS_WITH(parse_ibnetdiscover(nothing, "x.txt"),
                      Catch::StartsWith("x.txt:1: found 'Script started', expected ibnetdiscover output"));
}
