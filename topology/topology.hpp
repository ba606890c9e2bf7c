// atoll: what a Fabric means for scheduling. The switch graph (Boost.Graph),
// tiers, hosts and their rails, rail groups, pods and the island hierarchy
// leaf -> group -> pod -> fabric that placement and the plugin use.
#pragma once

#include <boost/graph/adjacency_list.hpp>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "topology/fabric.hpp"

namespace atl {

struct SwitchVertex {
    std::uint64_t guid = 0;
};
struct SwitchEdge {
    int multiplicity = 0;  // parallel cables between the two switches
    double gbps = 0;       // their total bandwidth
};
// The switch graph: one vertex per switch (same order as Topology::switches),
// one edge per connected pair of switches.
using SwitchGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS,
                                          SwitchVertex, SwitchEdge>;
using SwitchId = SwitchGraph::vertex_descriptor;

// Innermost first: the order is the nesting (a domain lies in one leaf
// island, a leaf in one group, ...) and placement compares levels by it.
// Domain (a multi-node NVLink domain, Fabric::domains) exists only when the
// fabric has domains.
enum class Level : std::uint8_t { Domain, Leaf, Group, Pod, Fabric };
const char *to_string(Level l);
bool level_from_string(const std::string &s, Level &out);

struct Switch {
    std::uint64_t guid = 0;
    std::string name;        // stable name from its description (or GUID)
    int tier = -1;           // 0 leaf, 1 spine, 2 core, ...; -1 unreachable from any leaf
    bool sharp = false;      // has a SHARP aggregation node
    int group = -1;          // rail group (leaves only)
    int rail = -1;           // the rail most of its host ports carry (leaves only)
    int host_ports = 0;      // host HCA ports cabled to it
    int uplinks = 0;         // cables to switches of a higher tier
    // An ASIC of a director chassis ("MF0;core1:MCS8500/L16/U2"): the chassis,
    // its model and the slot (L16/U2 a line board, S03/U1 a spine board);
    // empty for a switch of its own
    std::string chassis, model, slot;
};

struct HostPort {
    std::uint64_t ca_guid = 0;
    int port = 0;
    std::string hca;         // "mlx5_0", "HCA-1", "" when the description names none
    int dev_index = -1;      // mlx5_N -> N, HCA-N -> N-1
    int rail = -1;           // index into Topology::rails; -1 when not a fabric rail
    std::size_t link = 0;    // index into Fabric::links
    int sw = -1;             // switch it is cabled to (index into switches)
};

struct Host {
    std::string name;
    std::vector<HostPort> ports;  // sorted by rail key
    bool compute = false;         // has the fabric's usual HCA count (see analyse())
    std::vector<int> rails;       // the rails of its class of hosts (indices into Topology::rails), sorted
    bool rails_unknown = false;   // like no class: at most half its ports on its class's rails
    int leaf_island = -1, group = -1, pod = -1;
    int domain = -1;              // its NVLink domain island (inside its leaf island), -1 none
};

struct Island {
    Level level = Level::Leaf;
    std::string name;
    std::vector<int> hosts;      // indices into Topology::hosts, sorted by host name
    std::vector<int> leaves;     // switch indices
    int parent = -1;             // island index one level up; -1 for the fabric
};

// A CA whose description is a firmware default: not a host until a node name
// map names it.
struct UnnamedCa {
    std::uint64_t guid = 0;
    std::string desc;
    int sw = -1;
    int port = 0;                // port of that switch
};

// A host adapter whose description names a host or adapter that Slurm, DNS
// or the plugin's environment could not carry: left out of the topology.
struct RefusedCa {
    std::uint64_t guid = 0;
    std::string desc;
    std::size_t line = 0;        // input line, 0 when the input has none
    std::string why;
    int sw = -1;
    int port = 0;
};

struct Topology {
    Fabric fabric;
    SwitchGraph graph;
    std::vector<Switch> switches;           // vertex i of graph is switches[i]
    std::map<std::uint64_t, int> switch_index;
    std::vector<Host> hosts;                 // sorted by name
    std::map<std::string, int> host_index;
    std::vector<std::string> rails;         // rail names ("mlx5_0", "mlx5_0/2" for port 2)
    bool rail_optimised = false;            // hosts' rails land on different leaves
    std::string not_rail_optimised;         // why not, when there are several rails
    int max_tier = 0;
    std::vector<Island> islands;            // leaves, then groups, pods, fabric, then NVLink domains
    std::vector<UnnamedCa> unnamed;
    std::vector<RefusedCa> refused;         // names refused (see host_name_problem)
    std::vector<std::string> fqdn_shortened; // host names given as FQDN, shortened (see shorten_fqdns)
    // short name -> the names given that became it, where two or more did
    // (node001 and node001.cluster, or node001.a and node001.b): one host
    std::map<std::string, std::vector<std::string>> fqdn_merged;
    std::set<std::string> claimed_hosts;     // hosts with an adapter name two CAs claim: their rails not known
    // (host, adapter name) two CAs or more claim -> each claimant's (CA
    // GUID, port): the node the name is of can tell its own by the GUIDs
    // its own sysfs gives (the plugin, through the view's "claimed" lines)
    std::map<std::pair<std::string, std::string>, std::set<std::pair<std::uint64_t, int>>> claims;
    // hosts a contest of claims left with no adapter believed (every name
    // they go by claimed twice over): host -> why. Slurm's files would leave
    // them out, so one root's copy would take another node out of the tree:
    // the slurm command refuses to write them (the site's file stays)
    std::map<std::string, std::string> contested_lost;
    std::vector<std::uint64_t> sharp_nodes; // aggregation node CAs
    // HCA-N adapter names: read from 0 (HCA-0 the first) or from 1 (OFED's);
    // the hosts named the other way, which lose a rail (check: hca-numbering)
    bool hca_from_zero = false;
    std::vector<std::string> hca_numbered_otherwise;
    // (leaf, spine): a leaf's cable to a spine most of whose cables come
    // from another pod: it joins no pods (check: cross-pod-uplink)
    std::vector<std::pair<int, int>> stray_uplinks;

    std::vector<int> islands_at(Level l) const;
    int island_of(int host, Level l) const;  // -1 when none
    const Switch &sw(int i) const { return switches.at(static_cast<std::size_t>(i)); }
};

// Classify a CA description: a host "name hca", a SHARP aggregation node, or a
// firmware default ("MT4129 ConnectX7 Mellanox Technologies", "", "localhost").
enum class CaKind : std::uint8_t { Host, Sharp, Default };
CaKind classify_ca(const std::string &desc);
// "dgx01 mlx5_3 " -> {"dgx01", "mlx5_3"}: the first two words (words after the
// second are not part of either name)
std::pair<std::string, std::string> split_ca_desc(const std::string &desc);
// Names are data: they end up in topology.conf, slurm.conf includes, shell
// lines (scontrol, kubectl) and the plugin's environment, so only what Slurm,
// DNS and the ibverbs/netdev namespaces accept is taken. A host name: 1-253
// characters of letters, digits, '-', '_' and '.', starting with a letter or
// digit, labels (between dots) of 1-63. An adapter name: 1-64 letters,
// digits, '-', '_' and '.'. Empty when the name is acceptable, else why not.
std::string host_name_problem(const std::string &name);
std::string hca_name_problem(const std::string &name);
// Slurm's node names are short host names; rdma-ndd's "%h %d" on a host
// whose hostname is an FQDN writes "node001.cluster.example.com mlx5_0".
// Each FQDN becomes its first label, unless the short name would be shared
// with another name (node001.a.example and node001.b.example, or node001
// itself): those stay whole. An IPv4 address stays whole.
struct ShortNames {
    std::map<std::string, std::string> to;  // FQDN -> short name, for those shortened
    std::vector<std::string> shortened;     // the FQDNs shortened, sorted
    std::vector<std::string> kept;          // the FQDNs kept whole (`whole` names them so), sorted
    std::map<std::string, std::vector<std::string>> merged;  // short name -> two or more names that became it
};
// Host names a node gave itself, as Slurm's node names: an FQDN is cut to
// its first label (an address never), unless `whole` names it so (Slurm's
// node list and the node name map's names, when given). Two names that become one are one host: any
// node's root can write a short name, so an FQDN kept apart would only let
// one root take a node's Slurm name from it (helper 53); a copied adapter
// name is refused adapter by adapter.
ShortNames shorten_fqdns(const std::vector<std::string> &names, const std::set<std::string> *whole = nullptr);
// "FILE:LINE: ..." (or "FILE: ...") for a refused adapter, its bytes escaped.
std::string refused_message(const std::string &source, const RefusedCa &r);
// mlx5_3 -> 3, HCA-1 -> 0, ib2 -> 2; -1 when it ends in no number.
// HCA-N counts from 1 (OFED's openibd writes "host HCA-1" for the first
// adapter) unless the fabric's own names count from 0 (hca_from_zero:
// most hosts named HCA-N have an HCA-0, see analyse()).
int hca_dev_index(const std::string &hca, bool hca_from_zero = false);
// A switch description's stable name: "MF0;ib-leaf01:MQM8700/U1" -> "ib-leaf01"
std::string switch_base_name(const std::string &desc);
// Only [A-Za-z0-9._-]; anything else becomes '-'.
std::string sanitise_name(const std::string &s);

// The HCA selector: comma-separated fnmatch(3) patterns, "!" in front
// excludes ("mlx5_[0-7]", "mlx5_*,!mlx5_8"); an empty selector takes all.
bool hca_selected(const std::string &selector, const std::string &hca);
// The fabric without the host adapters (and their cables) the selector leaves
// out: compute vs storage networks, IB HCAs vs RoCE NICs.
Fabric select_hcas(Fabric f, const std::string &selector);

// Build everything above from a fabric. Never throws on a strange but valid
// fabric; throws InputError when the fabric holds no switch.
Topology analyse(Fabric fabric);

// The leaf islands' switches split by the cables between switches: one
// entry (leaf island indices) per connected part of the switch graph that
// holds a leaf island. More than one: subnets no cable joins (two captures
// merged, a router between them), which no job can span.
std::vector<std::vector<int>> leaf_subnets(const Topology &t);

}  // namespace atl
