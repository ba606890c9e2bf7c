#include "catch.hpp"
#include <algorithm>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

#include "placement/cluster.hpp"
#include "placement/view.hpp"
#include "testdata.hpp"
#include "topology/check.hpp"
#include "topology/ibnetdiscover.hpp"
#include "topology/slurm.hpp"
#include "topology/topology.hpp"

using namespace atl;

namespace {
std::map<int, int> tiers(const Topology &t)
{
    std::map<int, int> m;
    for (const auto &s : t.switches)
        m[s.tier]++;
    return m;
}

// a switch as ibnetdiscover describes one
Node switch_node(std::uint64_t guid, const std::string &name, int ports, const std::string &model = "MQM8700")
{
    Node sw;
    sw.type = NodeType::Switch;
    sw.guid = guid;
    sw.num_ports = ports;
    sw.desc = "MF0;" + name + ":" + model + "/U1";
    return sw;
}
}  // namespace

TEST_CASE("Selene compute: tiers, hosts, rails and islands match a hand count", "[topology]")
{
    Topology t = analyse(load_fabric(selene_path()));
    // 200 LG leaves + 4 MLG management leaves (one of them empty), 320 CSPINE + 2 MSPINE, 140 CCORE
    CHECK(tiers(t) == std::map<int, int>{{0, 204}, {1, 322}, {2, 140}});
    CHECK(t.hosts.size() == 469);
    std::size_t compute = 0, eight = 0, single = 0;
    for (const auto &h : t.hosts) {
        compute += h.compute;
        eight += h.ports.size() == 8;
        single += h.ports.size() == 1;
    }
    CHECK(compute == 458);
    CHECK(eight == 458);
    CHECK(single == 11);
    CHECK(t.rails == std::vector<std::string>{"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3", "mlx5_6", "mlx5_7", "mlx5_8", "mlx5_9"});
    CHECK(t.rail_optimised);
    std::size_t sharp = 0;
    for (const auto &s : t.switches)
        sharp += s.sharp;
    CHECK(sharp == 666);
    // 25 scalable units of 8 rail leaves (LG19-21 absent), in 4 pods of 7, 7, 4 and 7 units
    std::size_t su = 0;
    for (int g : t.islands_at(Level::Group)) {
        const Island &is = t.islands[static_cast<std::size_t>(g)];
        if (is.name.rfind("grp-LG", 0) == 0) {
            ++su;
            CHECK(is.leaves.size() == 8);
            CHECK(is.hosts.size() <= 20);
        }
    }
    CHECK(su == 25);
    std::multiset<std::size_t> pod_leaves;
    for (int p : t.islands_at(Level::Pod))
        if (t.islands[static_cast<std::size_t>(p)].name.rfind("pod-LG", 0) == 0)
            pod_leaves.insert(t.islands[static_cast<std::size_t>(p)].leaves.size());
    CHECK(pod_leaves == std::multiset<std::size_t>{32, 56, 56, 56});
    // each DGX's 8 HCAs sit on 8 different leaves, one rail each, all in one group
    const Host &h = t.hosts[static_cast<std::size_t>(t.host_index.at(t.hosts[100].name))];
    std::set<int> leaves, rails;
    for (const auto &p : h.ports) {
        leaves.insert(p.sw);
        rails.insert(p.rail);
        CHECK(t.sw(p.sw).rail == p.rail);
    }
    CHECK(leaves.size() == 8);
    CHECK(rails.size() == 8);
    CHECK(t.island_of(t.host_index.at(h.name), Level::Leaf) == h.leaf_island);
    CHECK(t.islands[static_cast<std::size_t>(h.leaf_island)].name == t.islands[static_cast<std::size_t>(h.group)].name);
}

TEST_CASE("a 2-level fat tree has one leaf island per leaf and one pod", "[topology]")
{
    Topology t = analyse(load_fabric(test_data("ibsim/fattree_4x8_2s/ibnetdiscover.txt")));
    CHECK(tiers(t) == std::map<int, int>{{0, 4}, {1, 2}});
    CHECK(t.hosts.size() == 32);
    CHECK_FALSE(t.rail_optimised);
    auto leaves = t.islands_at(Level::Leaf);
    REQUIRE(leaves.size() == 4);
    for (int i : leaves)
        CHECK(t.islands[static_cast<std::size_t>(i)].hosts.size() == 8);
    CHECK(t.islands[static_cast<std::size_t>(leaves[0])].name == "ib-leaf01");
    CHECK(t.islands_at(Level::Pod).size() == 1);
    CHECK(t.islands_at(Level::Fabric).size() == 1);
    for (const auto &s : t.switches)
        if (s.tier == 0)
            CHECK(s.uplinks == 8);  // 4 cables to each of 2 spines
}

TEST_CASE("rail-optimised fabrics: one rail group serves every rail of its hosts", "[topology]")
{
    Topology t = analyse(load_fabric(test_data("ibsim/fattree_ndr_rails8_8dgx_ibsim012/ibnetdiscover.txt")));
    CHECK(t.rail_optimised);
    CHECK(t.rails.size() == 8);
    REQUIRE(t.islands_at(Level::Group).size() == 1);
    const Island &g = t.islands[static_cast<std::size_t>(t.islands_at(Level::Group)[0])];
    CHECK(g.leaves.size() == 8);
    CHECK(g.hosts.size() == 8);
    for (const auto &s : t.switches)
        if (s.tier == 0)
            CHECK(s.rail >= 0);
}

TEST_CASE("CA descriptions: hosts, SHARP aggregation nodes and firmware defaults", "[topology]")
{
    CHECK(classify_ca("dgx01 mlx5_0") == CaKind::Host);
    CHECK(classify_ca("selene-cache-02 mlx5_1 ") == CaKind::Host);
    CHECK(classify_ca("Mellanox Technologies Aggregation Node") == CaKind::Sharp);
    CHECK(classify_ca("MT4129 ConnectX7 Mellanox Technologies") == CaKind::Default);
    CHECK(classify_ca("MT25408 ConnectX Mellanox Technologies") == CaKind::Default);
    CHECK(classify_ca("localhost HCA-1") == CaKind::Default);
    CHECK(classify_ca("") == CaKind::Default);
    CHECK(split_ca_desc("selene-cache-02 mlx5_1 ") == std::make_pair(std::string("selene-cache-02"), std::string("mlx5_1")));
    CHECK(hca_dev_index("mlx5_9") == 9);
    CHECK(hca_dev_index("HCA-1") == 0);
    CHECK(hca_dev_index("HCA-2") == 1);
    CHECK(hca_dev_index("HCA-0") == -1);  // OFED's openibd counts from 1: no such adapter
    CHECK(hca_dev_index("HCA-0", true) == 0);
    CHECK(hca_dev_index("HCA-2", true) == 2);
    CHECK(hca_dev_index("mlx5_2", true) == 2);
    CHECK(hca_dev_index("qib0") == 0);
    CHECK(hca_dev_index("eth") == -1);
    CHECK(switch_base_name("MF0;ib-leaf01:MQM8700/U1") == "ib-leaf01");
    CHECK(switch_base_name("Voltaire 4036 # hoibp0013") == "Voltaire-4036-hoibp0013");
}

TEST_CASE("firmware default descriptions are reported, never silently dropped", "[topology]")
{
    Topology t = analyse(load_fabric(test_data("ibnetdiscover/hpc_toolset_X5_voltaire_qdr.topofile")));
    CHECK(t.hosts.empty());
    CHECK(t.unnamed.size() == 89);
}

TEST_CASE("no leaf is placed above a spine and switch names are unique", "[topology]")
{
    for (const char *f : {"ibnetdiscover/ufm_selene_storage_hdr.txt", "ibnetdiscover/hpc_toolset_X5_voltaire_qdr.topofile",
                          "ibnetdiscover/ufm_small_topo_mixed_fdr_edr_hdr.txt", "ibnetdiscover/ibtopotool_test3.topo"}) {
        SECTION(f)
        {
            Topology t = analyse(load_fabric(test_data(f)));
            std::set<std::string> names;
            for (const auto &s : t.switches) {
                CHECK(names.insert(s.name).second);
                if (s.host_ports > 0)
                    CHECK(s.tier == 0);
            }
            // every edge joins tiers at most one apart (a tree, as Slurm needs it, comes from the islands)
            auto es = boost::edges(t.graph);
            for (auto it = es.first; it != es.second; ++it) {
                int a = t.switches[boost::source(*it, t.graph)].tier, b = t.switches[boost::target(*it, t.graph)].tier;
                CHECK(std::abs(a - b) <= 1);
            }
            // islands form a tree: every island but the fabric has a parent one level up
            for (const auto &is : t.islands)
                if (is.level != Level::Fabric) {
                    REQUIRE(is.parent >= 0);
                    CHECK(static_cast<int>(t.islands[static_cast<std::size_t>(is.parent)].level) == static_cast<int>(is.level) + 1);
                }
        }
    }
}

TEST_CASE("names are data: hostile node descriptions are refused with FILE:LINE and reach no output", "[topology][security]")
{
    CHECK(host_name_problem("dgx-01.cluster_a").empty());
    CHECK_THAT(host_name_problem("gpu008;touch${IFS}/tmp/x"), Catch::Contains("it holds ';'"));
    CHECK_THAT(host_name_problem("a\nPrologSlurmctld=/x"), Catch::Contains("it holds '\\n'"));
    CHECK_THAT(host_name_problem("-rf"), Catch::Contains("expected a letter or digit first"));
    CHECK_THAT(host_name_problem("a..b"), Catch::Contains("a label of 0 characters"));
    CHECK_THAT(host_name_problem(std::string(64, 'a')), Catch::Contains("a label of 64 characters"));
    CHECK_THAT(host_name_problem("n[1-2]"), Catch::Contains("it holds '['"));
    CHECK(hca_name_problem("ibp11s0f0").empty());
    CHECK_THAT(hca_name_problem("mlx5_0:1"), Catch::Contains("it holds ':'"));
    // words after the second are neither name (a three-word description)
    CHECK(split_ca_desc("gpu001 mlx5_0 port1") == std::make_pair(std::string("gpu001"), std::string("mlx5_0")));

    std::ifstream in(test_data("ibsim/fattree_4x8_2s/ibnetdiscover.txt"));
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto swap_desc = [&](const std::string &from, const std::string &to) {
        for (std::size_t p = text.find(from); p != std::string::npos; p = text.find(from, p + to.size()))
            text.replace(p, from.size(), to);
    };
    swap_desc("\"gpu001 mlx5_0\"", "\"gpu001;touch${IFS}/tmp/x mlx5_0\"");
    swap_desc("\"gpu002 mlx5_0\"", "\"gpu002 mlx5_0$(reboot)\"");
    swap_desc("\"gpu003 mlx5_0\"", "\"gpu003=x mlx5_0\"");
    swap_desc("\"gpu004 mlx5_0\"", "\"gpu004 mlx5_0 port 1\"");
    std::istringstream is(text);
    Topology t = analyse(parse_ibnetdiscover(is, "hostile.txt"));
    REQUIRE(t.refused.size() == 3);
    std::set<std::string> msgs;
    for (const auto &r : t.refused)
        msgs.insert(refused_message(t.fabric.source, r));
    // each names the line of the adapter's own record (Ca ...), the bytes escaped
    bool named_line = false;
    for (const auto &m : msgs) {
        CHECK_THAT(m, Catch::StartsWith("hostile.txt:"));
        CHECK_THAT(m, Catch::EndsWith("; the adapter is left out"));
        named_line = named_line || m.find("host name 'gpu001;touch${IFS}/tmp/x' refused: it holds ';'") != std::string::npos;
    }
    CHECK(named_line);
    CHECK(t.host_index.count("gpu004") == 1);
    CHECK(t.hosts[static_cast<std::size_t>(t.host_index.at("gpu004"))].ports[0].hca == "mlx5_0");
    for (const auto &h : t.hosts)
        CHECK(host_name_problem(h.name).empty());
    std::ostringstream all;
    write_topology_tree(all, t);
    write_features_conf(all, t, "");
    write_scontrol_updates(all, t, {});
    write_k8s_labels(all, t);
    for (const char *bad : {";", "$", "=x", "\n\n"})
        CHECK(all.str().find(std::string("gpu00") + bad) == std::string::npos);
    auto findings = check(t);
    CHECK(std::count_if(findings.begin(), findings.end(), [](const Finding &f) { return f.code == "refused-name"; }) == 3);
}

TEST_CASE("rails from adapters named by netdev (ibpXsYfZ), and why a fabric is not rail-optimised", "[topology]")
{
    // two hosts, each with four HCAs named by their PCI netdevs, all on one leaf switch
    Fabric f;
    f.source = "hand";
    Node sw = switch_node(0x1000, "leaf01", 16);
    f.nodes.push_back(sw);
    const char *nd[] = {"ibp11s0f0", "ibp139s0f0", "ibp20s0f0", "ibp213s0f0"};
    int port = 1;
    for (int h = 0; h < 2; ++h)
        for (int k = 0; k < 4; ++k) {
            Node ca;
            ca.type = NodeType::Ca;
            ca.guid = 0x2000 + static_cast<std::uint64_t>(h * 16 + (3 - k));  // GUIDs in another order than PCI
            ca.num_ports = 1;
            ca.desc = std::string(h ? "gpu002 " : "gpu001 ") + nd[k];
            f.nodes.push_back(ca);
            Link l;
            l.a = LinkEnd{sw.guid, port++, 0, 0};
            l.b = LinkEnd{ca.guid, 1, ca.guid, 0};
            l.width = 4;
            l.speed = Speed::HDR;
            f.links.push_back(l);
        }
    normalise(f);
    Topology t = analyse(f);
    // four rails in PCI order (11 < 20 < 139 < 213), not one rail "ibp..f0"
    CHECK(t.rails == std::vector<std::string>{"ibp11s0f0", "ibp20s0f0", "ibp139s0f0", "ibp213s0f0"});
    CHECK_FALSE(t.rail_optimised);
    CHECK(t.not_rail_optimised == "2 of 2 compute hosts have all their 4 rail adapters on one leaf switch");
    CHECK(hca_dev_index("mlx5_3") == 3);
    CHECK(hca_dev_index("ib2") == 2);
    CHECK(hca_dev_index("enp65s0f1np1") == -1);
}

TEST_CASE("a director chassis: its line and spine ASICs are one box, its pod is named after it", "[topology]")
{
    Topology t = analyse(load_fabric(test_data("ibnetdiscover/director_mcs8500_hand.txt")));
    int line = 0, spine = 0;
    for (const Switch &s : t.switches) {
        CHECK(s.chassis == "ibdir1");
        CHECK(s.model == "MCS8500");
        line += s.slot[0] == 'L';
        spine += s.slot[0] == 'S';
    }
    CHECK(line == 4);
    CHECK(spine == 2);
    REQUIRE(t.islands_at(Level::Pod).size() == 1);
    CHECK(t.islands[static_cast<std::size_t>(t.islands_at(Level::Pod)[0])].name == "pod-ibdir1");
    // line boards are the leaves: a path between two of them crosses a spine ASIC, 4 cables
    CHECK(t.sw(t.islands[static_cast<std::size_t>(t.islands_at(Level::Leaf)[0])].leaves[0]).name == "ibdir1-L01-U1");
    auto f = check(t);
    REQUIRE(f.size() == 1);
    CHECK_THAT(f[0].message, Catch::EndsWith("(director ibdir1 MCS8500, slot L01/U1)"));
}

TEST_CASE("host names written as FQDN (rdma-ndd's %h on such a host) become Slurm's short names", "[topology][fqdn]")
{
    // the same ibsim capture with every description "gpuNNN.cluster.example.com mlx5_0"
    Topology plain = analyse(load_fabric(test_data("ibsim/fattree_4x8_2s/ibnetdiscover.txt")));
    Topology fqdn = analyse(load_fabric(test_data("ibnetdiscover/fattree_4x8_2s_fqdn.txt")));
    REQUIRE(fqdn.hosts.size() == plain.hosts.size());
    for (std::size_t i = 0; i < plain.hosts.size(); ++i) {
        CHECK(fqdn.hosts[i].name == plain.hosts[i].name);
        CHECK(fqdn.hosts[i].leaf_island == plain.hosts[i].leaf_island);
    }
    CHECK(fqdn.fqdn_shortened.size() == 32);
    CHECK(fqdn.fqdn_shortened[0] == "gpu001.cluster.example.com");
    auto fs = check(fqdn);
    REQUIRE(fs.size() == check(plain).size() + 1);
    auto it = std::find_if(fs.begin(), fs.end(), [](const Finding &f) { return f.code == "fqdn-host-names"; });
    REQUIRE(it != fs.end());
    CHECK(it->severity == Severity::Warning);
    CHECK(it->subject == "gpu[001-032]");
    CHECK(it->message == "host names given as FQDN (gpu001.cluster.example.com gpu002.cluster.example.com "
                         "gpu003.cluster.example.com ...): shortened to match Slurm's node names");
}

TEST_CASE("FQDNs are cut to their first label unless Slurm names them whole; addresses are never cut", "[topology][fqdn]")
{
    // every FQDN a node gives itself becomes its first label: two that
    // become one are one host (helper 53: a second FQDN kept whole let one
    // root take node1's Slurm name, or refuse its own adapters)
    ShortNames s = shorten_fqdns({"node1.a.example", "node1.b.example", "node2.a.example", "node3", "node3.a.example",
                                  "10.0.0.7", "node4", "node1.a.example"});
    CHECK(s.to == std::map<std::string, std::string>{{"node1.a.example", "node1"},
                                                     {"node1.b.example", "node1"},
                                                     {"node2.a.example", "node2"},
                                                     {"node3.a.example", "node3"}});
    CHECK(s.shortened == std::vector<std::string>{"node1.a.example", "node1.b.example", "node2.a.example", "node3.a.example"});
    CHECK(s.kept.empty());
    CHECK(s.merged == std::map<std::string, std::vector<std::string>>{{"node1", {"node1.a.example", "node1.b.example"}},
                                                                      {"node3", {"node3", "node3.a.example"}}});
    // Slurm's node list naming an FQDN whole keeps it whole: it is the node's name there
    std::set<std::string> slurm{"node1.a.example", "node1.b.example", "node2"};
    ShortNames w = shorten_fqdns({"node1.a.example", "node1.b.example", "node2.a.example"}, &slurm);
    CHECK(w.to == std::map<std::string, std::string>{{"node2.a.example", "node2"}});
    CHECK(w.kept == std::vector<std::string>{"node1.a.example", "node1.b.example"});
    CHECK(w.merged.empty());
    // in a fabric: node1's two FQDNs are one host; each claims mlx5_0, so
    // that adapter name is refused for both (no host node1 is left: the
    // Slurm files are refused until a map, or Slurm's list, says who is who)
    std::string text = "Switch\t4 \"S-0000000000000001\"\t\t# \"leaf1\" base port 0 lid 1 lmc 0\n"
                       "[1]\t\"H-0000000000000010\"[1](11)\t\t# \"node1.a.example mlx5_0\" lid 2 4xHDR\n"
                       "[2]\t\"H-0000000000000020\"[1](21)\t\t# \"node1.b.example mlx5_0\" lid 3 4xHDR\n"
                       "[3]\t\"H-0000000000000030\"[1](31)\t\t# \"node2.a.example mlx5_0\" lid 4 4xHDR\n";
    Topology t = analyse(parse_string(text));
    std::vector<std::string> names;
    for (const Host &h : t.hosts)
        names.push_back(h.name);
    CHECK(names == std::vector<std::string>{"node2"});
    CHECK(t.contested_lost.count("node1") == 1);
    std::string found;
    for (const Finding &f : check(t))
        if (f.code == "fqdn-host-names")
            found += f.subject + ": " + f.message + "\n";
    CHECK(found == "node1: host names node1.a.example, node1.b.example are one host, node1, once shortened: if they "
                   "are separate nodes, give --node-name-map (or --slurm-nodes naming them whole)\n"
                   "node2: host names given as FQDN (node2.a.example): shortened to match Slurm's node names\n");
    // with Slurm's list naming them whole: two hosts as Slurm has them
    Fabric f = parse_string(text);
    f.slurm_names = slurm;
    Topology u = analyse(f);
    names.clear();
    for (const Host &h : u.hosts)
        names.push_back(h.name);
    CHECK(names == std::vector<std::string>{"node1.a.example", "node1.b.example", "node2"});
    CHECK(u.contested_lost.empty());
}

namespace {
// A fabric cabled as described, to test what analyse() makes of host
// classes: `cpu` one-port hosts on their own leaves (cpu_per_leaf a leaf),
// `gpu` hosts of `rails` adapters, adapter k of each on rail leaf k
// (rail-optimised) or all on one leaf per host group (rails_on_one_leaf),
// `storage` dual-port servers with one port on each of the first two CPU
// leaves; every leaf cabled to two spines. GPU links run at NDR, CPU and
// storage links at EDR (another generation).
struct Mixed {
    int cpu = 0, cpu_per_leaf = 8, gpu = 0, rails = 8, storage = 0;
    bool rails_on_one_leaf = false;
    int hgx = 0;                  // hosts of another model: adapter k named mlx5_<hgx_names[k]>, on rail leaf k
    std::vector<int> hgx_names{};
};
Fabric mixed_fabric(const Mixed &m)
{
    Fabric f;
    f.source = "hand";
    std::uint64_t next = 0x10000;
    std::vector<std::uint64_t> leaves;
    std::vector<int> used;  // ports used on each leaf
    auto add_switch = [&](const std::string &name) {
        Node sw;
        sw.type = NodeType::Switch;
        sw.guid = next++;
        sw.num_ports = 64;
        sw.desc = "MF0;" + name + ":MQM9700/U1";
        f.nodes.push_back(sw);
        return sw.guid;
    };
    auto cable = [&](std::uint64_t a, int pa, std::uint64_t b, int pb, Speed sp) {
        Link l;
        l.a = LinkEnd{a, pa, 0, 0};
        l.b = LinkEnd{b, pb, 0, 0};
        l.width = 4;
        l.speed = sp;
        f.links.push_back(l);
    };
    auto host_port = [&](std::size_t leaf, const std::string &host, const std::string &hca, Speed sp) {
        Node ca;
        ca.type = NodeType::Ca;
        ca.guid = next++;
        ca.num_ports = 1;
        ca.desc = host + " " + hca;
        f.nodes.push_back(ca);
        cable(leaves[leaf], ++used[leaf], ca.guid, 1, sp);
    };
    const int cpu_leaves = (m.cpu + m.cpu_per_leaf - 1) / m.cpu_per_leaf;
    const int gpu_leaves = m.gpu == 0 && m.hgx == 0 ? 0 : m.rails_on_one_leaf ? (m.gpu + 7) / 8 : m.rails;
    for (int i = 0; i < cpu_leaves + gpu_leaves; ++i) {
        leaves.push_back(add_switch("leaf" + std::to_string(i + 1)));
        used.push_back(0);
    }
    for (int s = 0; s < 2; ++s) {
        std::uint64_t spine = add_switch("spine" + std::to_string(s + 1));
        for (std::size_t i = 0; i < leaves.size(); ++i)
            cable(leaves[i], 60 + s, spine, static_cast<int>(i) + 1, Speed::NDR);
    }
    char name[32];
    for (int c = 0; c < m.cpu; ++c) {
        std::snprintf(name, sizeof name, "cpu%03d", c + 1);
        host_port(static_cast<std::size_t>(c / m.cpu_per_leaf), name, "mlx5_0", Speed::EDR);
    }
    for (int g = 0; g < m.gpu; ++g) {
        std::snprintf(name, sizeof name, "gpu%03d", g + 1);
        for (int k = 0; k < m.rails; ++k)
            host_port(static_cast<std::size_t>(cpu_leaves + (m.rails_on_one_leaf ? g / 8 : k)), name,
                      "mlx5_" + std::to_string(k), Speed::NDR);
    }
    for (int g = 0; g < m.hgx; ++g) {
        std::snprintf(name, sizeof name, "hgx%03d", g + 1);
        for (std::size_t k = 0; k < m.hgx_names.size(); ++k)
            host_port(static_cast<std::size_t>(cpu_leaves) + k, name, "mlx5_" + std::to_string(m.hgx_names[k]), Speed::NDR);
    }
    for (int s = 0; s < m.storage; ++s) {
        std::snprintf(name, sizeof name, "oss%02d", s + 1);
        host_port(0, name, "mlx5_0", Speed::EDR);
        host_port(cpu_leaves > 1 ? 1 : 0, name, "mlx5_1", Speed::EDR);
    }
    normalise(f);
    return f;
}

// one more adapter, on port `port` of the fabric's first switch, at NDR
void add_adapter(Fabric &f, std::uint64_t guid, const std::string &desc, int port)
{
    Node ca;
    ca.type = NodeType::Ca;
    ca.guid = guid;
    ca.num_ports = 1;
    ca.desc = desc;
    Link l;
    l.a = LinkEnd{f.nodes[0].guid, port, 0, 0};
    l.b = LinkEnd{guid, 1, 0, 0};
    l.width = 4;
    l.speed = Speed::NDR;
    f.nodes.push_back(ca);
    f.links.push_back(l);
}

std::vector<std::string> codes(const std::vector<Finding> &fs, Severity sev)
{
    std::vector<std::string> out;
    for (const Finding &x : fs)
        if (x.severity == sev)
            out.push_back(x.code + " " + x.subject);
    return out;
}

// the rail adapters of a host, as the plugin's view names them
std::vector<std::string> rail_hcas(const Topology &t, const std::string &host)
{
    std::vector<std::string> out;
    for (const HostPort &p : t.hosts[static_cast<std::size_t>(t.host_index.at(host))].ports)
        if (p.rail >= 0)
            out.push_back(p.hca);
    return out;
}
}  // namespace

TEST_CASE("a CPU partition beside GPU hosts: the GPU hosts keep all their rails, whoever is more numerous", "[topology][rails]")
{
    const std::vector<std::string> eight{"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_7"};
    SECTION("200 one-port CPU nodes, 16 rail-optimised 8-rail GPU nodes, 4 dual-port storage servers on CPU leaves")
    {
        Topology t = analyse(mixed_fabric({200, 20, 16, 8, 4, false}));
        CHECK(t.rails.size() == 8);
        CHECK(t.rail_optimised);
        CHECK(rail_hcas(t, "gpu001") == eight);
        CHECK(rail_hcas(t, "gpu016") == eight);
        CHECK(rail_hcas(t, "cpu001") == std::vector<std::string>{"mlx5_0"});
        CHECK(rail_hcas(t, "oss01") == std::vector<std::string>{"mlx5_0", "mlx5_1"});
        // each GPU rail leaf is that rail's; the CPU leaves carry rail 0
        for (const Switch &s : t.switches)
            if (s.tier == 0)
                CHECK(s.rail >= 0);
        // a generation and a class are not faults: no error, no missing or
        // miswired rail on the CPU nodes or the storage servers
        auto fs = check(t);
        std::string all;
        for (const Finding &x : fs)
            all += x.code + " " + x.subject + ": " + x.message + "\n";
        INFO(all);
        CHECK(codes(fs, Severity::Error) == std::vector<std::string>{});
        // the GPU hosts' rail group: 8 leaves, the 16 GPU hosts
        bool found = false;
        for (int g : t.islands_at(Level::Group)) {
            const Island &is = t.islands[static_cast<std::size_t>(g)];
            if (is.leaves.size() == 8) {
                found = true;
                CHECK(is.hosts.size() == 16);
            }
        }
        CHECK(found);
    }
    SECTION("12 one-port CPU nodes, 4 GPU nodes of two adapters on one leaf (4 GPUs, 2 HCAs)")
    {
        Topology t = analyse(mixed_fabric({12, 12, 4, 2, 0, true}));
        CHECK(t.rails == std::vector<std::string>{"mlx5_0", "mlx5_1"});
        CHECK_FALSE(t.rail_optimised);
        CHECK(rail_hcas(t, "gpu004") == std::vector<std::string>{"mlx5_0", "mlx5_1"});
        CHECK(rail_hcas(t, "cpu012") == std::vector<std::string>{"mlx5_0"});
        CHECK(codes(check(t), Severity::Error).empty());
    }
    SECTION("more GPU hosts than CPU nodes: the CPU nodes are not compute hosts of the GPU islands, as before")
    {
        Topology t = analyse(mixed_fabric({4, 4, 16, 8, 0, false}));
        CHECK(t.rails.size() == 8);
        CHECK(rail_hcas(t, "gpu001") == eight);
        CHECK_FALSE(t.hosts[static_cast<std::size_t>(t.host_index.at("cpu001"))].compute);
    }
    SECTION("one GPU host of 9 ports among 8-port hosts: its 9th port is no rail")
    {
        Fabric f = mixed_fabric({0, 8, 8, 8, 0, false});
        add_adapter(f, 0x90000, "gpu001 mlx5_8", 40);  // on the first rail leaf
        normalise(f);
        Topology t = analyse(f);
        CHECK(t.rails.size() == 8);
        CHECK(rail_hcas(t, "gpu001") == eight);
    }
    SECTION("a GPU host with five of eight rails out, beside a CPU partition: missing rails, its three in the view")
    {
        // (helper 14: it fell into the CPU class and passed check with one rail)
        Fabric f = mixed_fabric({10, 10, 4, 8, 0, false});
        std::vector<Link> keep;
        for (const Link &l : f.links) {
            const Node *a = f.find(l.a.guid), *b = f.find(l.b.guid);
            const std::string d = (a && a->type == NodeType::Ca ? a->desc : b && b->type == NodeType::Ca ? b->desc : "");
            if (d.rfind("gpu004 mlx5_", 0) == 0 && d.back() >= '3')
                continue;  // cables of gpu004's mlx5_3..7 out
            keep.push_back(l);
        }
        f.links = keep;
        normalise(f);
        Topology t = analyse(f);
        CHECK(rail_hcas(t, "gpu004") == std::vector<std::string>{"mlx5_0", "mlx5_1", "mlx5_2"});
        auto errs = codes(check(t), Severity::Error);
        CHECK(errs.size() == 5);
        CHECK(std::count(errs.begin(), errs.end(), "missing-rail gpu004") == 5);
    }
    SECTION("one GPU host left beside a CPU partition (its peer powered off): its rails are not known, not one")
    {
        Topology t = analyse(mixed_fabric({10, 10, 1, 8, 0, false}));
        const Host &g = t.hosts[static_cast<std::size_t>(t.host_index.at("gpu001"))];
        CHECK(g.rails_unknown);
        auto fs = check(t);
        CHECK(codes(fs, Severity::Error) == std::vector<std::string>{});  // no CPU link called degraded beside its NDR
        CHECK(codes(fs, Severity::Warning) == std::vector<std::string>{"odd-rails gpu001"});
        FabricSummary v = summarise(t, Cluster(t));
        CHECK(v.undecided.count("gpu001") == 1);
        CHECK(v.undecided.count("cpu001") == 0);
    }
    SECTION("a storage HCA on two of four GPU hosts is no rail; storage servers on one leaf leave the GPU fabric rail-optimised")
    {
        Fabric f = mixed_fabric({10, 10, 4, 4, 5, false});
        for (const char *host : {"gpu001", "gpu002"})  // on the first CPU leaf
            add_adapter(f, 0x90000 + static_cast<std::uint64_t>(host[5]), std::string(host) + " mlx5_8", 40 + host[5] - '0');
        normalise(f);
        Topology t = analyse(f);
        CHECK(rail_hcas(t, "gpu001") == std::vector<std::string>{"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"});
        CHECK(t.rail_optimised);
        for (const std::string &e : codes(check(t), Severity::Error))
            CHECK(e.rfind("missing-rail", 0) != 0);
    }
    SECTION("a swapped cable among GPU hosts beside a CPU partition is still miswired")
    {
        Fabric f = mixed_fabric({40, 20, 8, 8, 0, false});
        // gpu003's mlx5_2 and mlx5_5 cables swapped at the leaves
        std::vector<LinkEnd *> sw_end;  // the leaf ends of gpu003's mlx5_2 and mlx5_5 cables
        for (const char *want : {"gpu003 mlx5_2", "gpu003 mlx5_5"})
            for (Link &l : f.links) {
                const Node *na = f.find(l.a.guid), *nb = f.find(l.b.guid);
                if (na && na->desc == want)
                    sw_end.push_back(&l.b);
                else if (nb && nb->desc == want)
                    sw_end.push_back(&l.a);
            }
        REQUIRE(sw_end.size() == 2);
        std::swap(*sw_end[0], *sw_end[1]);
        normalise(f);
        Topology t = analyse(f);
        auto errs = codes(check(t), Severity::Error);
        CHECK(std::count(errs.begin(), errs.end(), "miswired-rail gpu003 mlx5_2") == 1);
        CHECK(std::count(errs.begin(), errs.end(), "miswired-rail gpu003 mlx5_5") == 1);
        CHECK(errs.size() == 2);
    }
}

TEST_CASE("two models of eight rails numbered apart: every host keeps its own eight", "[topology][rails]")
{
    // hgx hosts named as a DGX H100 names its rails (mlx5_0,3-6,9-11; the
    // storage and management ports not on this fabric), gpu hosts as an HGX
    // board may (mlx5_0-7): adapter k of each on rail leaf k.
    const std::vector<int> dgx_h100{0, 3, 4, 5, 6, 9, 10, 11};
    auto all_errors = [](const Topology &t) { return codes(check(t), Severity::Error); };
    // gpu hosts named mlx5_0-7 beside hgx hosts named as DGX H100s
    auto models = [&](int gpu, int hgx) {
        Mixed m{0, 8, gpu, 8, 0, false};
        m.hgx = hgx;
        m.hgx_names = dgx_h100;
        return mixed_fabric(m);
    };
    auto names = [](const std::string &prefix, const std::vector<int> &ks) {
        std::vector<std::string> out;
        for (int k : ks)
            out.push_back(prefix + std::to_string(k));
        std::sort(out.begin(), out.end());
        return out;
    };
    SECTION("the less common model keeps its own adapters, at 6 to 4")
    {
        Topology t = analyse(models(6, 4));
        auto h = rail_hcas(t, "hgx001");
        std::sort(h.begin(), h.end());
        CHECK(h == names("mlx5_", dgx_h100));
        auto g = rail_hcas(t, "gpu001");
        std::sort(g.begin(), g.end());
        CHECK(g == names("mlx5_", {0, 1, 2, 3, 4, 5, 6, 7}));
        CHECK(t.rail_optimised);
        CHECK(all_errors(t) == std::vector<std::string>{});
    }
    SECTION("the more common model too, at 4 to 6")
    {
        Topology t = analyse(models(4, 6));
        CHECK(rail_hcas(t, "gpu001").size() == 8);
        CHECK(rail_hcas(t, "hgx001").size() == 8);
        CHECK(all_errors(t) == std::vector<std::string>{});
    }
    SECTION("at an even split one root renaming its own adapter moves no other host's rails")
    {
        Fabric f = models(4, 4);
        for (Node &n : f.nodes)
            if (n.desc == "gpu004 mlx5_1")
                n.desc = "gpu004 mlx5_9";  // its root's own description
        Topology t = analyse(f);
        for (const char *host : {"gpu001", "gpu002", "gpu003", "hgx001", "hgx004"})
            CHECK(rail_hcas(t, host).size() == 8);
    }
    SECTION("one host of another numbering is still like no class")
    {
        Mixed m{0, 8, 6, 8, 0, false};
        m.hgx = 1;
        m.hgx_names = {0, 10, 11, 12, 13, 14, 15, 16};
        Topology t = analyse(mixed_fabric(m));
        CHECK(t.hosts[static_cast<std::size_t>(t.host_index.at("hgx001"))].rails_unknown);
        CHECK(rail_hcas(t, "gpu001").size() == 8);
    }
    // a cable out: the adapter's link gone (the fabric no longer sees it)
    auto cut = [](Fabric &f, const std::string &desc) {
        f.links.erase(std::remove_if(f.links.begin(), f.links.end(),
                                     [&](const Link &l) {
                                         for (std::uint64_t g : {l.a.guid, l.b.guid})
                                             if (const Node *n = f.find(g); n && n->desc == desc)
                                                 return true;
                                         return false;
                                     }),
                      f.links.end());
        normalise(f);
    };
    auto unknown = [](const Topology &t, const std::string &host) {
        return t.hosts[static_cast<std::size_t>(t.host_index.at(host))].rails_unknown;
    };
    // a storage leaf, cabled to nothing but these hosts' storage adapters
    auto storage_leaf = [](Fabric &f, std::vector<std::string> hosts, std::vector<std::string> hcas) {
        Node st = switch_node(0x7000, "stor1", 64, "MQM9700");
        f.nodes.push_back(st);
        std::uint64_t g = 0x90000;
        for (const std::string &host : hosts)
            for (const std::string &hca : hcas) {
                Node ca;
                ca.type = NodeType::Ca;
                ca.guid = ++g;
                ca.num_ports = 1;
                ca.desc = host + " " + hca;
                f.nodes.push_back(ca);
                Link l;
                l.a = LinkEnd{st.guid, static_cast<int>(g & 0xff), 0, 0};
                l.b = LinkEnd{ca.guid, 1, 0, 0};
                l.width = 4;
                l.speed = Speed::NDR;
                f.links.push_back(l);
            }
        normalise(f);
    };
    SECTION("a lone host of another model is undecided, not given the five adapters it shares")
    {
        Topology t = analyse(models(1, 9));
        CHECK(unknown(t, "gpu001"));
        CHECK(all_errors(t) == std::vector<std::string>{});
    }
    SECTION("a model of two hosts, one with a cable out: both undecided")
    {
        Fabric f = models(2, 8);
        cut(f, "gpu002 mlx5_7");
        Topology t = analyse(f);
        CHECK(unknown(t, "gpu001"));
        CHECK(unknown(t, "gpu002"));
        CHECK(rail_hcas(t, "hgx001").size() == 8);
    }
    SECTION("a model of two hosts, one with two cables out: both undecided (five of its six left are the other's)")
    {
        Fabric f = models(2, 8);
        cut(f, "gpu002 mlx5_1");
        cut(f, "gpu002 mlx5_2");
        Topology t = analyse(f);
        CHECK(unknown(t, "gpu001"));
        CHECK(unknown(t, "gpu002"));
        auto fs = check(t);
        CHECK(std::count_if(fs.begin(), fs.end(), [](const Finding &x) { return x.code == "odd-rails" && x.subject == "gpu[001-002]"; }) == 1);
        CHECK(all_errors(t) == std::vector<std::string>{});
    }
    SECTION("the same cable out on half of a model's hosts takes the rail from none and is reported")
    {
        Fabric f = models(4, 8);
        cut(f, "gpu003 mlx5_7");
        cut(f, "gpu004 mlx5_7");
        Topology t = analyse(f);
        CHECK(rail_hcas(t, "gpu001").size() == 8);
        CHECK(all_errors(t) == std::vector<std::string>{"missing-rail gpu003", "missing-rail gpu004"});
    }
    SECTION("two roots whose made-up sets tie a model of two take none of its adapters")
    {
        Fabric f = models(4, 8);
        for (Node &n : f.nodes)
            if (n.desc == "gpu003 mlx5_7" || n.desc == "gpu004 mlx5_7")
                n.desc = n.desc.substr(0, 7) + "mlx5_12";  // their roots' own descriptions
        Topology t = analyse(f);
        CHECK(rail_hcas(t, "gpu001").size() == 8);
        CHECK(rail_hcas(t, "gpu002").size() == 8);
        CHECK(rail_hcas(t, "hgx001").size() == 8);
        for (const std::string &e : all_errors(t))
            CHECK(e.rfind("miswired-rail", 0) != 0);
    }
    SECTION("two hosts with storage HCAs on a storage switch and the same two cables out are no model")
    {
        Fabric f = models(0, 10);
        for (const char *host : {"hgx001", "hgx002"})
            for (const char *hca : {"mlx5_10", "mlx5_11"})
                cut(f, std::string(host) + " " + hca);
        storage_leaf(f, {"hgx001", "hgx002"}, {"mlx5_1", "mlx5_2"});
        normalise(f);
        Topology t = analyse(f);
        for (const char *host : {"hgx001", "hgx002"}) {
            for (const std::string &hca : rail_hcas(t, host))
                CHECK((hca != "mlx5_1" && hca != "mlx5_2"));
        }
        CHECK(t.rails.size() == 8);
        auto fs = check(t);
        CHECK_FALSE(fs.empty());  // reported, not silent
    }
    SECTION("storage HCAs on some hosts of one model take nothing from the other")
    {
        Fabric f = models(3, 5);
        std::uint64_t g = 0x90000;
        for (const char *host : {"hgx001", "hgx002", "hgx003"})
            for (const char *hca : {"mlx5_1", "mlx5_7"}) {
                ++g;
                add_adapter(f, g, std::string(host) + " " + hca, 40 + static_cast<int>(g & 0xf));
            }
        normalise(f);
        Topology t = analyse(f);
        for (const char *host : {"gpu001", "gpu002", "gpu003"}) {
            auto h = rail_hcas(t, host);
            std::sort(h.begin(), h.end());
            CHECK(h == names("mlx5_", {0, 1, 2, 3, 4, 5, 6, 7}));
        }
    }
    SECTION("a leaf down in a group of both models names the rail of each")
    {
        // two rail groups of 5 hosts named mlx5_0-7 and 3 named as DGX H100s
        GenSpec g;
        g.groups_per_pod = 2;
        g.hosts_per_group = 8;
        g.rails = 8;
        Fabric f = generate(g);
        for (Node &n : f.nodes)
            for (const char *host : {"node006", "node007", "node008", "node014", "node015", "node016"})
                if (n.type == NodeType::Ca && n.desc.rfind(std::string(host) + " mlx5_", 0) == 0)
                    n.desc = std::string(host) + " mlx5_" +
                             std::to_string(dgx_h100[static_cast<std::size_t>(std::stoi(n.desc.substr(13)))]);
        // the first group's last rail leaf down: its node and cables gone
        std::uint64_t down = 0;
        for (const Node &n : f.nodes)
            if (n.desc.find(";ib-leaf08:") != std::string::npos)
                down = n.guid;
        REQUIRE(down != 0);
        f.links.erase(std::remove_if(f.links.begin(), f.links.end(),
                                     [&](const Link &l) { return l.a.guid == down || l.b.guid == down; }),
                      f.links.end());
        f.nodes.erase(std::remove_if(f.nodes.begin(), f.nodes.end(),
                                     [&](const Node &n) {
                                         return n.guid == down || (n.desc.rfind("node00", 0) == 0 && n.desc[6] != '9' &&
                                                                       (n.desc.substr(8) == "mlx5_7" || n.desc.substr(8) == "mlx5_11"));
                                     }),
                      f.nodes.end());
        normalise(f);
        Topology t = analyse(f);
        CHECK(rail_hcas(t, "node016").size() == 8);  // the other group's keep all
        CHECK(rail_hcas(t, "node009").size() == 8);
        std::vector<std::string> small;
        for (const Finding &x : check(t))
            if (x.code == "small-rail-group")
                small.push_back(x.message);
        CHECK(small == std::vector<std::string>{"rail group has 7 leaves where its peers have 8; no leaf for rail mlx5_7, mlx5_11"});
        // two of that group's hosts' storage ports on a storage leaf, which
        // joins the group: it is no rail leaf to stand in for the dead one
        storage_leaf(f, {"node001", "node002"}, {"mlx5_12"});
        Topology ts = analyse(f);
        small.clear();
        for (const Finding &x : check(ts))
            if (x.code == "small-rail-group")
                small.push_back(x.message);
        CHECK(small == std::vector<std::string>{"rail group has 7 leaves where its peers have 8; no leaf for rail mlx5_7, mlx5_11"});
    }
    SECTION("two hosts with the same two cables out are no model of their own")
    {
        Fabric f = mixed_fabric({0, 8, 8, 8, 0, false});
        for (const char *host : {"gpu001", "gpu002"})
            f.links.erase(std::remove_if(f.links.begin(), f.links.end(),
                                         [&](const Link &l) {
                                             for (std::uint64_t g : {l.a.guid, l.b.guid})
                                                 if (const Node *n = f.find(g); n && (n->desc == std::string(host) + " mlx5_6" ||
                                                                                     n->desc == std::string(host) + " mlx5_7"))
                                                     return true;
                                             return false;
                                         }),
                          f.links.end());
        normalise(f);
        Topology t = analyse(f);
        auto errs = all_errors(t);
        CHECK(std::count(errs.begin(), errs.end(), "missing-rail gpu001") == 2);
        CHECK(std::count(errs.begin(), errs.end(), "missing-rail gpu002") == 2);
    }
}
