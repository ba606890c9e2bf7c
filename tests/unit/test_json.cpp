#include "catch.hpp"
#include <nlohmann/json.hpp>
#include <sstream>

#include "testdata.hpp"
#include "topology/json.hpp"

using namespace atl;

TEST_CASE("fabric.json: load(save(x)) == x for every fixture", "[json]")
{
    for (const std::string &f : {test_data("ibsim/fattree_dualport_degraded/ibnetdiscover.cache"),
                                test_data("ibsim/fattree_rails4_8hosts/ibnetdiscover_p.txt"),
                                test_data("ibnetdiscover/ufm_small_topo_mixed_fdr_edr_hdr.txt"),
                                test_data("ibnetdiscover/hpc_toolset_X5_voltaire_qdr.topofile"), selene_path()}) {
        SECTION(f)
        {
            Fabric x = load_fabric(f);
            std::stringstream ss;
            save_fabric_json(ss, analyse(x));
            Fabric y = load_fabric_json(ss, "mem");
            CHECK(y == x);
        }
    }
}

TEST_CASE("fabric.json is versioned and strict about required keys", "[json]")
{
    auto load = [](const std::string &s) {
        std::istringstream in(s);
        return load_fabric_json(in, "f.json");
    };
    CHECK_THROWS_WITH(load("{\"format\":\"atoll-fabric\",\"version\":2,\"source\":\"x\",\"nodes\":[],\"links\":[]}"),
                      Catch::Contains("version 2, expected version 1"));
    CHECK_THROWS_WITH(load("{\"format\":\"other\"}"), Catch::Contains("not an atoll fabric file"));
    CHECK_THROWS_WITH(load("{\"format\":\"atoll-fabric\",\"version\":1,\"source\":\"x\",\"nodes\":[{\"guid\":\"0x1\",\"type\":\"switch\",\"desc\":\"\"}],\"links\":[]}"),
                      Catch::Contains("ports"));
    CHECK_THROWS_WITH(load("{\"format\":\"atoll-fabric\",\"version\":1,\"source\":\"x\",\"nodes\":[{\"guid\":\"zz\",\"type\":\"switch\",\"ports\":1,\"desc\":\"\"}],\"links\":[]}"),
                      Catch::Contains("nodes[0]: \"guid\" is \"zz\""));
    CHECK_THROWS_WITH(load("{\"format\":"), Catch::StartsWith("f.json: "));
}

TEST_CASE("show --json counts what an admin asks first", "[json]")
{
    Topology t = analyse(load_fabric(selene_path()));
    auto s = summary_json(t);
    CHECK(s["switches"] == 666);
    CHECK(s["hosts"] == 469);
    CHECK(s["compute_hosts"] == 458);
    CHECK(s["hcas"] == 3675);  // 458 x 8 + 11 service HCAs
    CHECK(s["links"] == 12852);
    CHECK(s["rails"] == 8);
    CHECK(s["tiers"]["leaf"] == 204);
    CHECK(s["link_speeds"]["4xHDR"] == 12852);
    CHECK(s["islands"]["pod"]["count"] == 7);
}
