#include "catch.hpp"
#include <nlohmann/json.hpp>
#include <iterator>
#include <optional>
#include <random>
#include <set>
#include <sstream>

#include "testdata.hpp"
#include "topology/io.hpp"
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

TEST_CASE("fabric.json: a cable on a port the node does not have, or on its own port, is refused", "[json]")
{
    auto load = [](const std::string &links) {
        std::istringstream in("{\"format\":\"atoll-fabric\",\"version\":1,\"source\":\"x\",\"nodes\":["
                              "{\"guid\":\"0x1\",\"type\":\"switch\",\"ports\":4,\"desc\":\"leaf1\"},"
                              "{\"guid\":\"0x2\",\"type\":\"ca\",\"ports\":1,\"desc\":\"h1 mlx5_0\"}],"
                              "\"links\":[" + links + "]}");
        return load_fabric_json(in, "f.json");
    };
    auto link = [](int pa, const char *gb, int pb) {
        return "{\"a\":{\"guid\":\"0x1\",\"port\":" + std::to_string(pa) + "},\"b\":{\"guid\":\"" + gb +
               "\",\"port\":" + std::to_string(pb) + "},\"width\":4,\"speed\":\"NDR\"}";
    };
    CHECK(load(link(1, "0x2", 1)).links.size() == 1);
    // two ports of one switch cabled together: a loopback, read (analysis skips it)
    CHECK(load(link(1, "0x1", 2)).links.size() == 1);
    CHECK_THROWS_WITH(load(link(5, "0x2", 1)),
                      Catch::Contains("f.json: a link names port 5 of node 0x0000000000000001 'leaf1', expected 1..4"));
    CHECK_THROWS_WITH(load(link(1, "0x2", 2)), Catch::Contains("port 2 of node 0x0000000000000002 'h1 mlx5_0', expected 1..1"));
    CHECK_THROWS_WITH(load(link(0, "0x2", 1)), Catch::Contains("port 0 of node 0x0000000000000001"));
    CHECK_THROWS_WITH(load(link(3, "0x1", 3)),
                      Catch::Contains("port 0x0000000000000001[3] 'leaf1' is cabled to itself, expected a peer on another port"));
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

namespace {

// whether a JSON text has a key twice in one object anywhere
bool has_duplicate_key(const std::string &text)
{
    std::vector<std::set<std::string>> seen;
    bool dup = false;
    try {
        const nlohmann::json parsed_whole = nlohmann::json::parse(text, [&](int, nlohmann::json::parse_event_t ev, nlohmann::json &parsed) {
            if (ev == nlohmann::json::parse_event_t::object_start)
                seen.emplace_back();
            else if (ev == nlohmann::json::parse_event_t::object_end && !seen.empty())
                seen.pop_back();
            else if (ev == nlohmann::json::parse_event_t::key && !seen.empty() &&
                     !seen.back().insert(parsed.get<std::string>()).second)
                dup = true;
            return true;
        });
        (void)parsed_whole;
    } catch (const nlohmann::json::exception &) {
    }
    return dup;
}

// load_fabric_json() reads fabric.json as it streams in; what it must give is
// what parsing the whole document and then reading it gives: the same fabric,
// or the same message (parse errors first, then nodes' before links'); but a
// key twice in one object, which the whole document keeps the last of, it
// refuses.
std::string both_ways(const std::string &text)
{
    std::string streamed, whole;
    std::optional<Fabric> a, b;
    try {
        std::istringstream in(text);
        a = load_fabric_json(in, "f.json");
    } catch (const InputError &e) {
        streamed = e.what();
    }
    if (streamed.find(", expected each key once in an object") != std::string::npos) {
        CHECK(has_duplicate_key(text));
        return streamed;
    }
    try {
        b = fabric_from_json(nlohmann::json::parse(text), "f.json");
    } catch (const nlohmann::json::exception &e) {
        whole = "f.json: " + json_error_text(e);
    } catch (const InputError &e) {
        whole = e.what();
    }
    CHECK(a.has_value() == b.has_value());
    CHECK(streamed == whole);
    if (a && b)
        CHECK(*a == *b);
    return a ? std::string("ok") : streamed;
}

}  // namespace

TEST_CASE("fabric.json streamed reads as the whole document does", "[json]")
{
    std::stringstream ss;
    save_fabric_json(ss, generated(2, 2, 3, 2));
    const std::string good = ss.str();
    nlohmann::json j = nlohmann::json::parse(good);
    const std::string n = j["nodes"].dump(), l = j["links"].dump();
    const std::string hdr = "\"format\":\"atoll-fabric\",\"version\":1,\"source\":\"s\"";
    CHECK(both_ways(good) == "ok");
    // a key twice in one object is refused, naming it and where (nlohmann's
    // parser keeps the last; jq or Python may read the other)
    CHECK(both_ways("{" + hdr + ",\"nodes\":[],\"links\":[],\"nodes\":" + n + ",\"links\":" + l + "}") ==
          "f.json: the key 'nodes' twice in the top-level object, expected each key once in an object");
    CHECK(both_ways("{" + hdr + ",\"nodes\":[{\"guid\":\"0x1\",\"type\":\"switch\",\"guid\":\"0x2\"}],\"links\":[]}") ==
          "f.json: the key 'guid' twice in nodes[0], expected each key once in an object");
    CHECK(both_ways("{" + hdr + ",\"nodes\":" + n + ",\"links\":" + l + ",\"domains\":[{\"a\":1,\"a\":2}]}") ==
          "f.json: the key 'a' twice in an object in \"domains\", expected each key once in an object");
    // in a cable end: where, by the link's index; a key's control bytes escaped
    CHECK(both_ways("{" + hdr + ",\"nodes\":[],\"links\":[{\"a\":{\"port\":1,\"port\":2}}]}") ==
          "f.json: the key 'port' twice in an object in links[0], expected each key once in an object");
    CHECK(both_ways("{" + hdr + ",\"nodes\":[],\"links\":[],\"\\u001b]0\":1,\"\\u001b]0\":2}") ==
          "f.json: the key '\\x1b]0' twice in the top-level object, expected each key once in an object");
    // but not where nothing is read: "analysis", a member no reader looks at
    CHECK(both_ways("{" + hdr + ",\"nodes\":" + n + ",\"links\":" + l + ",\"x\":{\"a\":1,\"a\":2}}") == "ok");
    CHECK(both_ways("{" + hdr + ",\"nodes\":{\"guid\":\"0x1\"},\"links\":[]}").find("found no \"nodes\"") != std::string::npos);
    // "analysis" is never read, whatever its shape; nor an analysis member inside
    CHECK(both_ways("{\"analysis\":{\"nodes\":[1],\"x\":1,\"x\":2},\"nodes\":" + n + ",\"links\":" + l + "," + hdr + "}") == "ok");
    CHECK(both_ways("{\"analysis\":{\"nodes\":[1]},\"nodes\":" + n + ",\"links\":" + l + "," + hdr + ",\"analysis\":7}") ==
          "f.json: the key 'analysis' twice in the top-level object, expected each key once in an object");
    CHECK(both_ways("[{\"format\":\"atoll-fabric\"},{\"nodes\":[]}]").find("not an atoll fabric file") != std::string::npos);
    // the format is checked before the elements, nodes before links
    CHECK(both_ways("{\"links\":[5],\"nodes\":[{\"guid\":\"zz\"}],\"format\":\"x\"}").find("not an atoll fabric file") !=
          std::string::npos);
    CHECK(both_ways("{\"links\":[5],\"nodes\":[{\"guid\":\"zz\"}]," + hdr + "}").find("nodes[0]: \"guid\" is \"zz\"") !=
          std::string::npos);
    CHECK(both_ways("{\"links\":[{\"a\":{\"guid\":\"0x1\",\"port\":1}}],\"nodes\":[]," + hdr + "}").find("links[0]: \"b\" is missing, expected a cable end") !=
          std::string::npos);
    // "speed" is required as "width" is (atoll-fabric(5)): a link without it
    // was read as of unknown speed, and its leaf's ratio then counted in cables
    {
        nlohmann::json cut = j;
        cut["links"][3].erase("speed");
        CHECK(both_ways(cut.dump()).find("links[3]: found no \"speed\", expected SDR, DDR") != std::string::npos);
        cut["links"][3]["speed"] = "unknown";
        CHECK(both_ways(cut.dump()) == "ok");
    }
    // a syntax error after a wrong element is still the message
    CHECK(both_ways("{\"nodes\":[{\"guid\":\"zz\"}],\"links\":[]," + hdr + ",\"x\":[1,}").find("parse error") != std::string::npos);
    CHECK(both_ways("{" + hdr + ",\"nodes\":[{\"guid\":\"0x1\",\"type\":\"switch\",\"ports\":2,\"desc\":\"x\",\"extra\":[[{\"q\":[1,{\"r\":null}]}],true,1.5e300]}],\"links\":[]}") == "ok");
    // every single-byte change of a real file, at 400 places
    std::mt19937 rng(7);
    const char bytes[] = "{}[]\",:0x1 \\e-";
    for (int k = 0; k < 400; ++k) {
        std::string t = good;
        t[rng() % t.size()] = bytes[rng() % (sizeof bytes - 1)];
        both_ways(t);
    }
}

TEST_CASE("fabric.json: bytes after a NUL byte are refused, not ignored", "[json]")
{
    std::stringstream ss;
    save_fabric_json(ss, generated(2, 2, 3, 2));
    const std::string good = ss.str();
    // nlohmann's lexer ends the input at a NUL, so its own parser takes this
    // for the document alone
    const std::string tail = good + std::string(1, '\0') + "{\"nodes\":[]}";
    CHECK_NOTHROW(nlohmann::json::parse(tail));
    std::istringstream in(tail);
    try {
        load_fabric_json(in, "f.json");
        FAIL("bytes after a NUL were read as the end of the file");
    } catch (const InputError &e) {
        CHECK(std::string(e.what()) == "f.json: a NUL byte and more after the end of the JSON document, expected the end of the file");
    }
    // a NUL as the last byte ends the document, as the end of the file does
    std::istringstream last(good + std::string(1, '\0'));
    CHECK_NOTHROW(load_fabric_json(last, "f.json"));
}

TEST_CASE("a pipe is read as it streams in, its head handed out again, up to a limit", "[json][io]")
{
    SECTION("blank lines before the text keep a reader's line numbers")
    {
        std::istringstream src("\n\n  \t\n   {\"format\"\nrest");
        PipeBuf buf(src.rdbuf(), 1000);
        CHECK(buf.read_head() == "{\"format\"\nrest");
        std::istream in(&buf);
        std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        CHECK(all == "\n\n\n   {\"format\"\nrest");
        CHECK_FALSE(buf.overflowed());
    }
    SECTION("bytes past the head come from the pipe, and the head is 4 KiB")
    {
        std::string text(10000, 'x');
        for (std::size_t i = 0; i < text.size(); i += 7)
            text[i] = static_cast<char>('a' + i % 26);
        std::istringstream src(text);
        PipeBuf buf(src.rdbuf(), 1 << 20);
        CHECK(buf.read_head() == text.substr(0, 4096));
        std::istream in(&buf);
        std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        CHECK(all == text);
    }
    SECTION("an input of exactly the limit is whole; one byte more ends it and says so")
    {
        std::istringstream exact(std::string(100, 'y'));
        PipeBuf a(exact.rdbuf(), 100);
        std::istream ina(&a);
        std::string got((std::istreambuf_iterator<char>(ina)), std::istreambuf_iterator<char>());
        CHECK(got.size() == 100);
        CHECK_FALSE(a.overflowed());
        std::istringstream over(std::string(101, 'y'));
        PipeBuf b(over.rdbuf(), 100);
        b.read_head();
        std::istream inb(&b);
        std::string cut((std::istreambuf_iterator<char>(inb)), std::istreambuf_iterator<char>());
        CHECK(cut.size() == 100);
        CHECK(b.overflowed());
    }
    SECTION("an endless run of blanks stops at the limit too")
    {
        std::istringstream src(std::string(5000, '\n'));
        PipeBuf buf(src.rdbuf(), 4000);
        CHECK(buf.read_head().empty());
        CHECK(buf.overflowed());
    }
}
