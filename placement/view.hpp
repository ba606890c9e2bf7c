// The fabric as the SPANK plugin needs it on every node for every job step:
// islands (with their hop diameter and SHARP), and per host its leaf island,
// whether its rails are cabled right and its compute-rail HCA ports. Small
// and quick to read, so that slurmstepd does not parse and analyse a whole
// fabric.json per step (`atoll-topo slurm --format view`).
#pragma once

#include <cstdint>

#include <array>
#include <iosfwd>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "placement/cluster.hpp"

namespace atl {

struct ViewIsland {
    Level level = Level::Leaf;
    std::string name;
    int parent = -1;
    int hops = 0;          // cables on the longest host-to-host path inside it
    // every switch a reduction can use has a SHARP aggregation node: a leaf
    // island's leaf switches; a group's or pod's leaves and the switches right
    // above them; the fabric's every switch (view 1: leaf islands only)
    bool sharp = false;
};

struct ViewHost {
    int leaf = -1;                                 // index into islands
    bool rails_ok = true;                          // no miswired or missing rail
    std::vector<std::pair<std::string, int>> hcas; // compute-rail HCAs and ports, rail order
    // each of those adapters' node GUID as the fabric saw it (view 4,
    // InfiniBand; 0 unknown): the identity the node's sysfs is matched by,
    // since a device's name is the order the kernel probed it in
    std::vector<std::uint64_t> guids;
    int per_leaf = 1;                              // most compute ports on one leaf switch (0: unknown, view 1)
    // its NVLink domain (view 3; -1 none or unknown): the domain island's
    // index, the domain ID as its source names it (nvidia-smi's
    // ClusterUUID.CliqueId, a cloud's ID; the island's name when the ID has
    // characters an environment variable should not carry) and the rack
    // sub-domain inside it ("" none)
    int domain = -1;
    std::string domain_id, subdomain;
};

struct FabricSummary {
    int version = 3;           // the view's version (read_summary), 3 when summarised
    std::string source;
    std::string kind;          // ib, roce, aws, generic, ... (Fabric::kind); "" unknown (view 1)
    bool rail_optimised = false;
    bool rails_meet = true;    // rail planes joined above the leaves
    std::vector<ViewIsland> islands;
    std::map<std::string, ViewHost> hosts;
    // hosts whose compute NICs could not be told from their front-end ones
    // (LLDP without speeds, no HOST.node.json, no --compute/--frontend):
    // every interface was taken as a rail, so their adapters are not known
    // ("undecided HOST" lines, view 3)
    std::set<std::string> undecided;
    // an InfiniBand host undecided only because another node's description
    // claims one of its compute adapters' names: each such adapter, where it
    // goes in the host's list and the node GUIDs of its claimants ("claimed
    // HOST POS HCA:PORT GUID,..." lines, view 5). The host's own sysfs tells
    // which claimant is its adapter (resolve_claims).
    struct Claim {
        std::size_t pos = 0;                 // its index in the host's hcas once inserted
        std::pair<std::string, int> hca;     // the adapter name and port
        std::vector<std::uint64_t> guids;    // the claimants' node GUIDs, two or more
    };
    std::map<std::string, std::vector<Claim>> claimed;
    // an InfiniBand host undecided only because more of its adapters are on
    // no rail of its class than on them (odd-rails), while its host line
    // holds each of its class's rails once: adapter names made up by other
    // nodes' roots can do that to any host ("odd HOST" lines, view 6). Its
    // own plugin takes its host line when every listed adapter is its own
    // by GUID and it has fewer other active InfiniBand ports than listed
    // ones (resolve_odd).
    std::set<std::string> odd;
};

// The host's entry when it is an "odd" host its own node can decide:
// `local` the node's active InfiniBand ports (node GUID, port) from its
// sysfs. nullopt when it is no odd host or the node does not settle it;
// `why` says why.
std::optional<ViewHost> resolve_odd(const FabricSummary &s, const std::string &host,
                                    const std::vector<std::pair<std::uint64_t, int>> &local, std::string &why);

// The host's entry with its claimed adapters settled by `local`, the node
// GUIDs of the host's own adapters and ports (its sysfs: the kernel's, not a
// description another node's root wrote): each claim whose claimants' GUIDs
// name exactly one adapter here with that port is that adapter. nullopt
// when the host has no claim or one is not settled; `why` says which.
std::optional<ViewHost> resolve_claims(const FabricSummary &s, const std::string &host,
                                       const std::vector<std::pair<std::uint64_t, int>> &local, std::string &why);

FabricSummary summarise(const Topology &t, const Cluster &c);
// "" when a domain or sub-domain ID may go into the view and the environment
// as it is (1-128 of A-Z a-z 0-9 . _ : -), else what is wrong with it.
std::string domain_id_problem(const std::string &id);
// A view host's islands by level (index Level::Domain .. Level::Fabric; -1
// none): its domain, then its leaf island and the islands above it.
std::array<int, 5> view_levels(const FabricSummary &s, const ViewHost &h);
// Hosts in topology order as placement's topology_order() puts them (pod,
// group, leaf island, NVLink domain, each kept together; the given order
// inside), from the view alone. Every name must be a host of the view.
std::vector<std::string> view_order(const FabricSummary &s, const std::vector<std::string> &hosts);
void write_summary(std::ostream &out, const FabricSummary &s);
// Throws InputError (FILE:LINE) on anything but what write_summary writes.
FabricSummary read_summary(std::istream &in, const std::string &source);
constexpr const char *summary_magic = "atoll-view 4";
constexpr const char *summary_magic_v6 = "atoll-view 6";  // with "odd" lines, written only when there are some
constexpr const char *summary_magic_v5 = "atoll-view 5";  // with "claimed" lines, written only when there are some
constexpr const char *summary_magic_v3 = "atoll-view 3";  // still read (no adapter GUIDs)
constexpr const char *summary_magic_v2 = "atoll-view 2";  // still read (no domains)
constexpr const char *summary_magic_v1 = "atoll-view 1";  // still read

}  // namespace atl
