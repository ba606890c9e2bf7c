#include "catch.hpp"
#include <algorithm>
#include <sstream>

#include "testdata.hpp"
#include "topology/generate.hpp"
#include "topology/hostlist.hpp"
#include "placement/cluster.hpp"
#include "topology/slurm.hpp"
#include <map>
#include <set>

using namespace atl;

TEST_CASE("hostlists compress and expand as Slurm writes them", "[slurm][hostlist]")
{
    CHECK(compress_hostlist({"dgx03", "dgx01", "dgx02", "dgx07", "login"}) == "dgx[01-03,07],login");
    CHECK(compress_hostlist({"n9", "n10", "n11"}) == "n9,n[10-11]");
    CHECK(expand_hostlist("dgx[01-03,07],login") == std::vector<std::string>{"dgx01", "dgx02", "dgx03", "dgx07", "login"});
    CHECK(expand_hostlist("a[8-10]-ib") == std::vector<std::string>{"a8-ib", "a9-ib", "a10-ib"});
    CHECK_THROWS_WITH(expand_hostlist("a[1-"), Catch::Contains("without ']'"));
    CHECK_THROWS_WITH(expand_hostlist("a[3-1]"), Catch::Contains("rising range"));
    // bounded before anything is made: a user's 4 KB node list is not 50 M names
    CHECK(expand_hostlist("n[1-4]", 4).size() == 4);
    CHECK_THROWS_WITH(expand_hostlist("n[1-5]", 4), Catch::Contains("more than 4 names"));
    CHECK_THROWS_WITH(expand_hostlist("n[1-3],a,b", 4), Catch::Contains("more than 4 names"));
    std::string huge = "n[";
    for (int k = 0; k < 400; ++k)
        huge += (k ? "," : "") + std::to_string(k * 100000) + "-" + std::to_string(k * 100000 + 99999);
    CHECK_THROWS_WITH(expand_hostlist(huge + "]", 64), Catch::Contains("more than 64 names"));
}

TEST_CASE("topology.conf for a 2-level tree (checked by hand)", "[slurm]")
{
    Topology t = analyse(load_fabric(test_data("ibsim/fattree_4x8_2s/ibnetdiscover.txt")));
    std::ostringstream o;
    write_topology_tree(o, t);
    std::string s = o.str();
    CHECK_THAT(s, Catch::Contains("\nSwitchName=ib-leaf01 Nodes=gpu[001-008]\n"));
    CHECK_THAT(s, Catch::Contains("\nSwitchName=ib-leaf04 Nodes=gpu[025-032]\n"));
    CHECK_THAT(s, Catch::EndsWith("\nSwitchName=pod-ib-leaf01 Switches=ib-leaf01,ib-leaf02,ib-leaf03,ib-leaf04\n"));
}

TEST_CASE("rail-optimised fabrics list every host under exactly one switch", "[slurm]")
{
    GenSpec g;
    g.rails = 4;
    g.groups_per_pod = 2;
    g.pods = 2;
    Topology t = analyse(generate(g));
    std::ostringstream o;
    write_topology_tree(o, t);
    CHECK(o.str().substr(o.str().find("\nSwitchName")) ==
          "\nSwitchName=grp-ib-leaf01 Nodes=node[001-008]\n"
          "SwitchName=grp-ib-leaf05 Nodes=node[009-016]\n"
          "SwitchName=grp-ib-leaf09 Nodes=node[017-024]\n"
          "SwitchName=grp-ib-leaf13 Nodes=node[025-032]\n"
          "SwitchName=pod-ib-leaf01 Switches=grp-ib-leaf01,grp-ib-leaf05\n"
          "SwitchName=pod-ib-leaf09 Switches=grp-ib-leaf09,grp-ib-leaf13\n"
          "SwitchName=fabric Switches=pod-ib-leaf01,pod-ib-leaf09\n");
    std::ostringstream b;
    write_topology_block(b, t);
    CHECK_THAT(b.str(), Catch::Contains("\nBlockName=grp-ib-leaf09 Nodes=node[017-024]\n"));
}

// Slurm's rule (block_record_validate(), 24.11): every block after the first
// holds at least the base block's nodes; consecutive aligned runs of 2^k
// blocks are joined at level k.
TEST_CASE("topology/block: a layout that Slurm 24.11 loads, pods kept together (checked by hand)", "[slurm][block]")
{
    SECTION("Selene: service leaves of 2-5 nodes left out, base 14, no pair level (pods of 7 and 4 blocks)")
    {
        Topology t = analyse(load_fabric(selene_path()));
        BlockLayout l = block_layout(t);
        CHECK(l.base == 14);
        REQUIRE(l.blocks.size() == 25);
        REQUIRE(l.left_out.size() == 3);
        CHECK(t.islands[static_cast<std::size_t>(l.left_out[0])].name == "MLG01-01");
        CHECK(l.why_left_out[0] == "5 nodes, a service leaf");
        for (int b : l.blocks)
            CHECK(t.islands[static_cast<std::size_t>(b)].hosts.size() >= 14);
        // pod by pod: the pod of each block never returns once left
        std::vector<int> pods;
        for (int b : l.blocks) {
            int p = t.hosts[static_cast<std::size_t>(t.islands[static_cast<std::size_t>(b)].hosts[0])].pod;
            if (pods.empty() || pods.back() != p) {
                CHECK(std::find(pods.begin(), pods.end(), p) == pods.end());
                pods.push_back(p);
            }
        }
        CHECK(pods.size() == 4);
        CHECK(l.levels == std::vector<int>{0});
        CHECK(l.unsound == std::vector<int>{1, 2, 3});
        std::ostringstream o;
        write_topology_block(o, t, l);
        CHECK_THAT(o.str(), Catch::EndsWith("\nBlockSizes=14\n"));
        CHECK_THAT(o.str(), Catch::Contains("\n# Left out: MLG01-04 (selene-cache-[03-04]: 2 nodes, a service leaf)"));
        CHECK_THAT(o.str(), Catch::Contains("\n# Not in BlockSizes (an aggregated block would join two pods): 28 56 112\n"));
        // a base of 19 leaves out the leaves of 14 to 18 nodes, by name
        BlockLayout l19 = block_layout(t, 19);
        CHECK(l19.base == 19);
        CHECK(l19.blocks.size() == 15);
        CHECK(l19.left_out.size() == 13);
        CHECK_THROWS_WITH(block_layout(t, 21), Catch::Contains("no leaf island holds 21 nodes or more"));
    }
    SECTION("2 pods of 4 leaves of 8: levels of 1, 2 and 4 blocks, each inside a pod")
    {
        Topology t = generated(2, 4, 8);
        BlockLayout l = block_layout(t);
        CHECK(l.base == 8);
        CHECK(l.blocks.size() == 8);
        CHECK(l.left_out.empty());
        CHECK(l.levels == std::vector<int>{0, 1, 2});
        CHECK(l.unsound.empty());
        std::ostringstream o;
        write_topology_block(o, t, l);
        CHECK_THAT(o.str(), Catch::EndsWith("\nBlockSizes=8,16,32\n"));
    }
    SECTION("pods of 3 leaves: pairs would cross pods, so BlockSizes keeps the base alone")
    {
        Topology t = generated(2, 3, 4);
        BlockLayout l = block_layout(t);
        CHECK(l.levels == std::vector<int>{0});
        CHECK(l.unsound == std::vector<int>{1, 2});
    }
}

TEST_CASE("island features: a slurm.conf include and scontrol lines keeping other features", "[slurm]")
{
    GenSpec g;
    g.groups_per_pod = 2;
    g.hosts_per_group = 2;
    g.pods = 2;
    Topology t = analyse(generate(g));
    std::ostringstream f;
    write_features_conf(f, t, "CPUs=2");
    CHECK_THAT(f.str(), Catch::Contains("\nNodeName=node[001-002] Features=ib-leaf01,grp-ib-leaf01,pod-ib-leaf01 CPUs=2\n"));
    // node001 sat on ib-leaf04 in the fabric these features were written
    // from (its name and node007's swapped); grp-ml is the site's own (a
    // group of ML nodes), and mig is available but not active (MIG mode off)
    std::istringstream cur("NodeName=node001 Arch=x86_64 CoresPerSocket=1 AvailableFeatures=gpu,mig,ib-leaf04,grp-ml "
                           "ActiveFeatures=gpu,ib-leaf04\n"
                           "NodeName=node003 Arch=x86_64 AvailableFeatures=(null) ActiveFeatures=(null)\n");
    auto nodes = parse_scontrol_nodes(cur, "scontrol");
    Fabric before = generate(g);
    for (Node &n : before.nodes)
        if (n.desc.rfind("node001 ", 0) == 0 || n.desc.rfind("node007 ", 0) == 0)
            n.desc = (n.desc[6] == '1' ? "node007" : "node001") + n.desc.substr(7);
    Topology old_t = analyse(before);
    REQUIRE(host_features(old_t, old_t.host_index.at("node001"))[0] == "ib-leaf04");
    std::ostringstream u;
    write_scontrol_updates(u, t, nodes, &old_t);
    CHECK(u.str() == "scontrol update NodeName=node001 AvailableFeatures=gpu,mig,grp-ml,ib-leaf01,grp-ib-leaf01,pod-ib-leaf01 "
                     "ActiveFeatures=gpu,ib-leaf01,grp-ib-leaf01,pod-ib-leaf01\n"
                     "scontrol update NodeName=node003 AvailableFeatures=ib-leaf02,grp-ib-leaf02,pod-ib-leaf01 ActiveFeatures=ib-leaf02,grp-ib-leaf02,pod-ib-leaf01\n");
    // without that fabric, ib-leaf04 on node001 could as well be the site's:
    // nothing is written, and the message says what to give
    std::ostringstream none;
    CHECK_THROWS_WITH(write_scontrol_updates(none, t, nodes), Catch::Contains("ib-leaf04 (on node001)") && Catch::Contains("--previous"));
    CHECK(none.str().empty());
    // a node's root names its LLDP "switch" after a site feature (bigmem):
    // node001's and node002's bigmem is theirs, kept; the island is refused
    Fabric f2 = generate(g);
    Topology t2 = analyse(f2);
    std::istringstream site("NodeName=node001 AvailableFeatures=bigmem,ib-leaf01 ActiveFeatures=bigmem\n");
    auto sn = parse_scontrol_nodes(site, "scontrol");
    std::ostringstream keep;
    write_scontrol_updates(keep, t2, sn);
    CHECK_THAT(keep.str(), Catch::Contains("AvailableFeatures=bigmem,ib-leaf01,grp-ib-leaf01,pod-ib-leaf01"));
    for (Node &n : f2.nodes)
        if (n.desc == "MF0;ib-leaf04:MQM8700/U1")
            n.desc = "bigmem";
    std::ostringstream clash;
    CHECK_THROWS_WITH(write_scontrol_updates(clash, analyse(f2), sn), Catch::Contains("bigmem (on node001)"));
    // a drain reason is free text: "NodeName=" or "AvailableFeatures=" in it are no fields
    std::istringstream reason("NodeName=node003 AvailableFeatures=a100,ib ActiveFeatures=a100 State=DRAIN "
                              "Reason=check NodeName=node007 AvailableFeatures=bigmem ActiveFeatures=bigmem [root@2026-12-01T10:00:00]\n");
    auto rn = parse_scontrol_nodes(reason, "scontrol");
    REQUIRE(rn.size() == 1);
    CHECK(rn.at("node003").available == std::vector<std::string>{"a100", "ib"});
    CHECK(rn.at("node003").active == std::vector<std::string>{"a100"});
    std::istringstream bad("garbage\n");
    CHECK_THROWS_WITH(parse_scontrol_nodes(bad, "s"), Catch::StartsWith("s:1:"));
}

TEST_CASE("island names are unique, and every switch of topology.conf hangs under one above it", "[slurm]")
{
    // node001's rail-1, -2 and -3 adapters have their firmware description:
    // node001, one adapter of four (no compute host: fewer than half the
    // usual), sits on ib-leaf01 alone, beside the hosts cabled to every rail
    // of the group (a compute host short of a cable stays in its group:
    // test_topology)
    GenSpec g;
    g.pods = 1;
    g.groups_per_pod = 2;
    g.rails = 4;
    g.hosts_per_group = 4;
    g.default_desc = {{"node001", 1}, {"node001", 2}, {"node001", 3}};
    std::vector<Topology> fabrics;
    fabrics.push_back(analyse(generate(g)));
    fabrics.push_back(analyse(load_fabric(test_data("ibnetdiscover/ufm_selene_storage_hdr.txt"))));
    for (const Topology &t : fabrics) {
        std::map<std::string, std::vector<int>> seen;
        for (const Island &is : t.islands) {
            auto it = seen.find(is.name);
            // one name twice only for one island at two levels (a group that is its one leaf island)
            if (it != seen.end())
                CHECK(it->second == is.hosts);
            seen[is.name] = is.hosts;
        }
        std::ostringstream tree, islands;
        CHECK_NOTHROW(write_topology_tree(tree, t));
        CHECK_NOTHROW(write_islands(islands, Cluster(t)));
    }
    std::ostringstream o;
    write_topology_tree(o, fabrics[0]);
    CHECK_THAT(o.str(), Catch::Contains("\nSwitchName=ib-leaf01 Nodes=node001\n"));
    CHECK_THAT(o.str(), Catch::Contains("\nSwitchName=grp-ib-leaf01-all Switches=grp-ib-leaf01,ib-leaf01\n"));
    CHECK_THAT(o.str(), Catch::EndsWith("\nSwitchName=pod-ib-leaf01 Switches=grp-ib-leaf01-all,grp-ib-leaf05\n"));
}

TEST_CASE("label values and keys follow Kubernetes' own examples (apimachinery content/kube_test.go)", "[slurm][k8s]")
{
    // TestIsLabelValue's successCases and errorCases, as Kubernetes has them
    for (const std::string &v : {std::string("simple"), std::string("now-with-dashes"), std::string("1-starts-with-num"),
                                 std::string("end-with-num-1"), std::string("1234"), std::string(63, 'a'), std::string()})
        CHECK(k8s_label_value_problem(v).empty());
    for (const std::string &v : {std::string("nospecialchars%^=@"), std::string("Tama-nui-te-r\xc4\x81.is.M\xc4\x81ori.sun"),
                                 std::string("\\backslashes\\are\\bad"), std::string("-starts-with-dash"),
                                 std::string("ends-with-dash-"), std::string(".starts.with.dot"), std::string("ends.with.dot."),
                                 std::string(64, 'a')})
        CHECK_FALSE(k8s_label_value_problem(v).empty());
    // TestIsLabelKey's
    for (const std::string &k :
         {std::string("simple"), std::string("now-with-dashes"), std::string("1-starts-with-num"), std::string("1234"),
          std::string("simple/simple"), std::string("now-with-dashes/simple"), std::string("now-with-dashes/now-with-dashes"),
          std::string("now.with.dots/simple"), std::string("now-with.dashes-and.dots/simple"), std::string("1-num.2-num/3-num"),
          std::string("1234/5678"), std::string("1.2.3.4/5678"), std::string("Uppercase_Is_OK_123"),
          std::string("example.com/Uppercase_Is_OK_123"), std::string("requests.storage-foo"), std::string(63, 'a'),
          std::string(253, 'a') + "/" + std::string(63, 'b')})
        CHECK(k8s_label_key_problem(k).empty());
    for (const std::string &k : {std::string("nospecialchars%^=@"), std::string("cantendwithadash-"),
                                 std::string("-cantstartwithadash-"), std::string("only/one/slash"), std::string("Example.com/abc"),
                                 std::string("example_com/abc"), std::string("example.com/"), std::string("/simple"),
                                 std::string(64, 'a'), std::string(254, 'a') + "/abc"})
        CHECK_FALSE(k8s_label_key_problem(k).empty());
    // the keys atoll writes (topograph's)
    for (const char *k : {"network.topology.nvidia.com/block", "network.topology.nvidia.com/spine",
                          "network.topology.nvidia.com/datacenter"})
        CHECK(k8s_label_key_problem(k).empty());
}

TEST_CASE("an island name Kubernetes refuses becomes a label value with a hash, or the label is removed", "[slurm][k8s]")
{
    // hashes: FNV-1a 64 of "k8s-label:" + name, low 32 bits, worked in Python
    CHECK(k8s_label_value("ib-leaf01") == "ib-leaf01");
    CHECK(k8s_label_value("ib-leaf01_") == "ib-leaf01-dc9c3fc3");
    CHECK(k8s_label_value("---") == "");
    std::string sixty = "a" + std::string(59, 'x');  // sorts first: the pod is named after it
    std::string pod = "pod-" + sixty;  // 64 characters
    std::string v = k8s_label_value(pod);
    CHECK(v.size() == 63);
    CHECK(v.substr(0, 55) == pod.substr(0, 54) + "-");
    CHECK(k8s_label_value_problem(v).empty());
    // two long names alike in their first 54 characters differ in their values
    std::string a = std::string(54, 'n') + "-one-more-leaf-a", b = std::string(54, 'n') + "-one-more-leaf-b";
    CHECK(k8s_label_value(a) != k8s_label_value(b));
    CHECK(k8s_label_value(a) == k8s_label_value(a));
    // in the kubectl lines: leaf 2 named "ib-leaf02_", leaf 1 a 60-character name (its pod "pod-" + 60)
    GenSpec s;
    s.rails = 1;
    s.hosts_per_group = 4;
    Fabric f = generate(s);
    for (Node &n : f.nodes) {
        if (n.desc == "MF0;ib-leaf02:MQM8700/U1")
            n.desc = "ib-leaf02_";
        if (n.desc == "MF0;ib-leaf01:MQM8700/U1")
            n.desc = sixty;
    }
    Topology t = analyse(f);
    std::ostringstream o;
    std::vector<K8sLabelChange> changes = write_k8s_labels(o, t);
    CHECK_THAT(o.str(), Catch::Contains("kubectl label node node005 --overwrite network.topology.nvidia.com/block=ib-leaf02-dc937e7d "
                                        "network.topology.nvidia.com/spine=" + v + " network.topology.nvidia.com/datacenter=fabric\n"));
    REQUIRE(changes.size() == 2);  // by key: block, then spine
    CHECK(changes[0].key == "network.topology.nvidia.com/block");
    CHECK(changes[0].name == "ib-leaf02_");
    CHECK(changes[0].hosts == std::vector<std::string>{"node005", "node006", "node007", "node008"});
    CHECK(changes[1].key == "network.topology.nvidia.com/spine");
    CHECK(changes[1].name == pod);
    CHECK(changes[1].hosts.size() == 16);
    // only Slurm's nodes get a line
    std::set<std::string> only{"node001", "node005"};
    std::ostringstream some;
    write_k8s_labels(some, t, &only);
    std::string lines = some.str();
    CHECK(std::count(lines.begin(), lines.end(), '\n') == 3);  // the header and two nodes
}

TEST_CASE("Slurm's node names from slurm.conf or scontrol show nodes --oneliner", "[slurm]")
{
    auto names = [](const std::string &text) {
        std::istringstream in(text);
        return read_slurm_node_names(in, "slurm.conf");
    };
    using S = std::set<std::string>;
    CHECK(names("ClusterName=c\n# NodeName=ghost\nNodeName=DEFAULT CPUs=128\nNodeName=node[001-003],login1 CPUs=2\n"
                "nodename=gpu7 \\\n  CPUs=8\nPartitionName=all Nodes=ALL\n") ==
          S{"gpu7", "login1", "node001", "node002", "node003"});
    CHECK(names("NodeName=node001 Arch=x86_64 CoresPerSocket=1 AvailableFeatures=(null) ActiveFeatures=(null)\n"
                "NodeName=node002 Arch=x86_64 CoresPerSocket=1 AvailableFeatures=ib-leaf01 ActiveFeatures=ib-leaf01\n") ==
          S{"node001", "node002"});
    CHECK_THROWS_WITH(names("ClusterName=c\nNodeName=n[1- CPUs=1\n"),
                      Catch::StartsWith("slurm.conf:2: found NodeName=n[1-") && Catch::Contains("expected a Slurm hostlist"));
    CHECK_THROWS_WITH(names("ClusterName=c\n"), Catch::StartsWith("slurm.conf: found no NodeName= line"));
    // slurm.conf's quoted values (s_p_parse strips the quotes): helper 24
    CHECK(names("NodeName=\"node017\" CPUs=4\nNodeName=\"gpu[1-2]\"\n") == S{"gpu1", "gpu2", "node017"});
    // the features and scontrol lines leave out the hosts Slurm lacks
    Topology t = analyse(generate(GenSpec{}));
    S only{t.hosts[0].name};
    std::ostringstream feats, upd;
    write_features_conf(feats, t, "", &only);
    write_scontrol_updates(upd, t, {}, nullptr, &only);
    std::string fs = feats.str(), us = upd.str();
    CHECK(std::count(fs.begin(), fs.end(), '\n') == 2);
    CHECK_THAT(fs, Catch::Contains("NodeName=" + t.hosts[0].name + " "));
    CHECK(std::count(us.begin(), us.end(), '\n') == 1);
    CHECK_THAT(upd.str(), Catch::StartsWith("scontrol update NodeName=" + t.hosts[0].name + " "));
    CHECK(hosts_outside(t, only).size() == t.hosts.size() - 1);
}

TEST_CASE("Node parameters go to Selene's compute hosts only, and the feature list names every host", "[slurm]")
{
    // Selene's compute fabric (Mellanox/ufm_sdk_3.0): the luna-* DGX nodes with
    // eight HDR adapters each, beside login, cache, Slurm, UFM and Swift hosts
    Topology t = analyse(load_fabric(selene_path()));
    std::ostringstream f;
    write_features_conf(f, t, "CPUs=128 Gres=gpu:8");
    std::istringstream lines(f.str());
    int with = 0, without = 0;
    bool after_comment = false;
    for (std::string l; std::getline(lines, l);) {
        if (l.rfind("# not compute hosts", 0) == 0)
            after_comment = true;
        if (l.rfind("NodeName=", 0) != 0)
            continue;
        bool params = l.find(" CPUs=128 Gres=gpu:8") != std::string::npos;
        (params ? with : without)++;
        if (l.find("selene-") != std::string::npos) {
            CHECK_FALSE(params);
            CHECK(after_comment);
        }
        if (l.find("NodeName=luna-") == 0)
            CHECK(params);
    }
    CHECK(with > 0);
    CHECK(without > 0);
    CHECK_THAT(f.str(), Catch::Contains("selene-login-01") && Catch::Contains("selene-ufm-c-") &&
                             Catch::Contains("selene-cache-01"));
    // without parameters, one group per feature set as before
    std::ostringstream plain;
    write_features_conf(plain, t, "");
    CHECK(plain.str().find("# not compute hosts") == std::string::npos);

    std::ostringstream list;
    write_feature_list(list, t);
    std::string s = list.str();
    CHECK(std::count(s.begin(), s.end(), '\n') == static_cast<long>(t.hosts.size()) + 1);
    int login = t.host_index.at("selene-login-01");
    CHECK_THAT(s, Catch::Contains("\nselene-login-01 " + host_features(t, login)[0]));
}

TEST_CASE("a compute host short of one cable stays in its rail group, in the tree and in a block", "[slurm]")
{
    // node001's rail-1 adapter has its firmware description (its cable out
    // of the picture): one adapter of two, still a compute host, on its
    // group's rail-0 leaf. Its own leaf island made topology/block leave it
    // out as a service leaf, a node that ran no job (helper 50)
    GenSpec g;
    g.pods = 1;
    g.groups_per_pod = 2;
    g.rails = 2;
    g.hosts_per_group = 4;
    g.default_desc = {{"node001", 1}};
    Topology t = analyse(generate(g));
    const Host &h = t.hosts[static_cast<std::size_t>(t.host_index.at("node001"))];
    CHECK(h.compute);
    CHECK(h.ports.size() == 1);
    CHECK(t.islands[static_cast<std::size_t>(h.leaf_island)].name == "grp-ib-leaf01");
    CHECK(t.islands[static_cast<std::size_t>(h.leaf_island)].hosts.size() == 4);
    std::ostringstream tree, block;
    write_topology_tree(tree, t);
    CHECK_THAT(tree.str(), Catch::Contains("\nSwitchName=grp-ib-leaf01 Nodes=node[001-004]\n"));
    BlockLayout l = block_layout(t, 0, false);
    CHECK(l.left_out.empty());
    write_topology_block(block, t, l);
    CHECK_THAT(block.str(), Catch::Contains("\nBlockName=grp-ib-leaf01 Nodes=node[001-004]\n"));
}
