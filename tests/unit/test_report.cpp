#include "catch.hpp"

#include <sstream>

#include "testdata.hpp"
#include "topology/check.hpp"
#include "topology/generate.hpp"
#include "topology/io.hpp"
#include "topology/report.hpp"

using namespace atl;

namespace {

std::size_t count(const std::string &s, const std::string &what)
{
    std::size_t n = 0;
    for (std::size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1))
        ++n;
    return n;
}

std::string report(const Topology &t, const std::vector<ReportFile> &files = {})
{
    std::ostringstream o;
    write_report(o, t, check(t), files, "atoll-unit");
    return o.str();
}

}  // namespace

TEST_CASE("html_escaped turns markup, controls and bad UTF-8 into visible ASCII", "[report]")
{
    // the five characters HTML gives meaning to, as character references
    CHECK(html_escaped("<a href=\"x\">'&'</a>") == "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
    // controls, DEL: as atl::escaped shows them
    CHECK(html_escaped(std::string("a\x01\x1b[0m\x7f\0b", 9)) == "a\\x01\\x1B[0m\\x7F\\x00b");
    CHECK(html_escaped("one\ntwo\tthree") == "one\\ntwo\\x09three");
    CHECK(html_escaped("one\ntwo\tthree", true) == "one\ntwo\tthree");
    // valid UTF-8: U+00E9, U+20AC, U+1F600 as numeric references (RFC 3629 encodings)
    CHECK(html_escaped("\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80") == "&#xE9;&#x20AC;&#x1F600;");
    // not UTF-8 (RFC 3629): a lone lead byte, a lone continuation, an overlong
    // '/', a UTF-16 surrogate, a code point above U+10FFFF, 0xFF
    CHECK(html_escaped("\xC3") == "\\xC3");
    CHECK(html_escaped("\x80x") == "\\x80x");
    CHECK(html_escaped("\xC0\xAF") == "\\xC0\\xAF");
    CHECK(html_escaped("\xE0\x80\xAF") == "\\xE0\\x80\\xAF");
    CHECK(html_escaped("\xED\xA0\x80") == "\\xED\\xA0\\x80");
    CHECK(html_escaped("\xF4\x90\x80\x80") == "\\xF4\\x90\\x80\\x80");
    CHECK(html_escaped("\xFF\xFE") == "\\xFF\\xFE");
    // characters that would reorder or hide what is shown: RIGHT-TO-LEFT
    // OVERRIDE, ZERO WIDTH SPACE, a C1 control, BOM
    CHECK(html_escaped("a\xE2\x80\xAE" "b") == "a\\u{202E}b");
    CHECK(html_escaped("\xE2\x80\x8B") == "\\u{200B}");
    CHECK(html_escaped("\xC2\x85") == "\\u{0085}");
    CHECK(html_escaped("\xEF\xBB\xBF") == "\\u{FEFF}");
}

TEST_CASE("a finding is placed on the smallest island holding what it names", "[report]")
{
    // ibsim's fat tree: leaves 01 and 02 hold gpu[001-016] (leaf island
    // grp-ib-leaf01), leaves 03 and 04 gpu[017-032]; both spines reach all
    // four leaves (tests/data/ibsim/fattree_dualport_degraded/topology.net)
    Topology t = analyse(load_fabric(test_data("ibsim/fattree_dualport_degraded/ibnetdiscover.txt")));
    auto name_of = [&](int i) { return i < 0 ? std::string("none") : t.islands[static_cast<std::size_t>(i)].name; };
    auto fs = check(t);
    REQUIRE(fs.size() == 2);
    SECTION("a host link: the host's leaf island, the host and the leaf")
    {
        FindingPlace p = place_finding(t, fs[0]);  // degraded-link ib-leaf01[1] - gpu001 mlx5_0[1]
        CHECK(name_of(p.island) == "grp-ib-leaf01");
        CHECK(t.islands[static_cast<std::size_t>(p.island)].level == Level::Leaf);
        REQUIRE(p.hosts.size() == 1);
        CHECK(t.hosts[static_cast<std::size_t>(p.hosts[0])].name == "gpu001");
        REQUIRE(p.switches.size() == 1);
        CHECK(t.sw(p.switches[0]).name == "ib-leaf01");
    }
    SECTION("a spine link: the pod above every leaf the spine reaches")
    {
        FindingPlace p = place_finding(t, fs[1]);  // degraded-link ib-spine01[13] - ib-leaf04[17]
        CHECK(name_of(p.island) == "pod-ib-leaf01");
        CHECK(p.hosts.empty());
        CHECK(p.switches.size() == 2);
    }
    SECTION("a hostlist across both leaf islands: the pod; one inside a leaf island: that island")
    {
        CHECK(name_of(place_finding(t, {"x", Severity::Warning, "gpu[015-018]", ""}).island) == "pod-ib-leaf01");
        FindingPlace p = place_finding(t, {"x", Severity::Warning, "gpu[017-019],nosuch01", ""});
        CHECK(name_of(p.island) == "grp-ib-leaf03");
        CHECK(p.hosts.size() == 3);
    }
    SECTION("a subject naming nothing of the fabric: no island")
    {
        CHECK(place_finding(t, {"x", Severity::Warning, "nosuch01 mlx5_0", ""}).island == -1);
        CHECK(place_finding(t, {"x", Severity::Warning, "gpu[", ""}).island == -1);
    }
}

TEST_CASE("the report draws one box per island and one square per host, coloured by health", "[report]")
{
    GenSpec s;
    s.pods = 2;
    s.groups_per_pod = 2;
    s.rails = 2;
    s.hosts_per_group = 4;
    s.degrade.push_back({"node003", 1});  // an error finding on node003
    Fabric f = generate(s);
    f.unhealthy = {"node009: ERROR: pfc: mlx5_0 port 1: priority 3 off"};
    Topology t = analyse(f);
    std::string html = report(t);
    // 2 pods x 2 groups, one leaf island per group: 4 + 4 + 2 + 1 islands
    CHECK(t.islands.size() == 11);
    CHECK(count(html, "<div class=\"island ") == 11);
    CHECK(count(html, "<div class=\"host ") == 16);
    CHECK(count(html, "<div class=\"host bad\" title=\"node003\"") == 1);
    CHECK(count(html, "<div class=\"host bad\" title=\"node009: health failed: node009: ERROR: pfc: mlx5_0 port 1: "
                      "priority 3 off\"") == 1);
    CHECK(count(html, "<div class=\"host good\"") == 14);
    CHECK(count(html, "id=\"link-speeds\"") == 1);
    CHECK(count(html, "id=\"link-widths\"") == 1);
    CHECK(count(html, "id=\"rails-per-host\"") == 1);
    // findings: the degraded link (error) and the failed health check
    CHECK(count(html, "<tr class=\"finding error\">") == 2);  // in the findings and the degraded links
    CHECK(count(html, "<tr class=\"finding warning\">") == 1);
}

TEST_CASE("no string of a hostile fabric reaches the report unescaped", "[report]")
{
    const std::string evil = std::string("x<script>alert(1)</script>\"onmouseover='y'&amp;</style>\x01\x1b[2J\xff\xfe\xc3") +
                             "\xe2\x80\xae";
    GenSpec s;
    s.hosts_per_group = 4;
    Fabric f = generate(s);
    f.source = evil + ".txt";
    f.unhealthy = {"node002: ERROR: " + evil};
    int cas = 0;
    for (Node &n : f.nodes) {
        if (n.type == NodeType::Ca && cas++ == 0)
            n.desc = evil + " mlx5_0";  // refused as a host name: a refused-name finding quotes it
        if (n.type == NodeType::Switch)
            n.desc = "MF0;" + evil + ":MQM8700/U1";
    }
    Topology t = analyse(f);
    REQUIRE(!t.refused.empty());
    std::string html = report(t, {{evil, evil, evil + "\n" + evil}});
    CHECK(count(html, "<script") == 0);
    CHECK(count(html, "</style>") == 1);  // the report's own
    CHECK(count(html, "\"onmouseover") == 0);
    CHECK(count(html, "'y'") == 0);
    CHECK(count(html, "&amp;</") == 0);
    for (unsigned char c : html)
        if (c != '\n' && (c < 0x20 || c > 0x7e))
            FAIL("byte " << static_cast<int>(c) << " in the report");
    // and the strings are there, escaped (source, health result, file)
    CHECK(count(html, "x&lt;script&gt;alert(1)&lt;/script&gt;&quot;onmouseover=&#39;y&#39;&amp;amp;&lt;/style&gt;"
                      "\\x01\\x1B[2J\\xFF\\xFE\\xC3\\u{202E}") >= 4);
}

TEST_CASE("Selene's report holds its 64 islands and 469 hosts in under 200 kB", "[report]")
{
    Topology t = analyse(load_fabric(selene_path()));
    std::string html = report(t);
    // atoll-topo show: leaf 28, group 28, pod 7, fabric 1
    CHECK(count(html, "<div class=\"island ") == 64);
    CHECK(count(html, "<div class=\"host ") == 469);
    CHECK(html.size() < 200000);
}

TEST_CASE("a fabric with hundreds of findings is summed up by code, its degraded links listed once", "[report]")
{
    // Selene's storage fabric: 160 DDN AI400X appliances whose 320 links all
    // run at 4xEDR among 4xHDR peers, a slower kind of host, not 320 faults
    // (atoll-topo check: one slower-host warning). Their two adapters are
    // none of the DGX rails' (mlx5_4, mlx5_10): the 160 are a class of their
    // own (HCA-1, HCA-2), not 320 missing-rail errors nor one host like no
    // class; the 8 one-port cache, login, Slurm and Swift servers, whose
    // adapter is none of the DGX rails while they lack both, are like no
    // class (one odd-rails warning, not 16 missing-rail errors); the 2 UFM
    // servers, one adapter named HCA-2 or mlx5_1, miss the appliances' other
    // one (2 errors)
    Topology t = analyse(load_fabric(test_data("ibnetdiscover/ufm_selene_storage_hdr.txt")));
    auto fs = check(t);
    std::string html = report(t);
    CHECK(count(html, "<td><code>slower-host</code></td><td class=\"sev\">warning</td><td>1</td>") == 1);
    CHECK(count(html, "<td><code>missing-rail</code></td><td class=\"sev\">error</td><td>2</td>") == 1);
    CHECK(count(html, "<td><code>odd-rails</code></td><td class=\"sev\">warning</td><td>1</td>") == 1);
    CHECK(count(html, "<tr class=\"finding ") == fs.size());  // each once: none repeated under Links
    CHECK(count(html, "<code>degraded-link</code>") == 0);
    // 60 hosts' links trained down to 1x, beside their other rail's 4x: 60
    // degraded links, listed under their islands, not again under Links
    GenSpec g;
    g.groups_per_pod = 8;
    g.hosts_per_group = 8;
    g.rails = 2;
    for (int h = 1; h <= 60; ++h)
        g.degrade.push_back({"node" + std::string(h < 10 ? "00" : "0") + std::to_string(h), 0});
    Topology d = analyse(generate(g));
    auto dfs = check(d);
    std::string dh = report(d);
    CHECK(count(dh, "<td><code>degraded-link</code></td><td class=\"sev\">error</td><td>60</td>") == 1);
    CHECK(count(dh, "<tr class=\"finding ") == dfs.size());
    CHECK(count(dh, "<p>60 degraded links: listed under their islands, above.</p>") == 1);
}
