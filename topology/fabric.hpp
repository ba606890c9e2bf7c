// atoll: the fabric as discovered, as plain value types.
//
// A Fabric is what a discovery source saw: nodes (switches, channel adapters,
// routers) and the cables between their ports. Everything derived from it
// (switch graph, tiers, rails, islands) lives in topology.hpp.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <set>
#include <string>
#include <vector>

namespace atl {

enum class NodeType : std::uint8_t { Switch, Ca, Router };

// Per-lane signalling rate, as InfiniBand names it.
enum class Speed : std::uint8_t { Unknown, SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR, XDR };

const char *to_string(NodeType t);
const char *to_string(Speed s);
// "HDR" -> Speed::HDR; unknown names (including "???") -> Speed::Unknown.
Speed speed_from_string(const std::string &s);
// Data rate of one lane in Gb/s (after encoding), e.g. HDR 50, EDR 25, FDR10 10.
double lane_gbps(Speed s);
// "4xHDR"; "unknown" when the width is not known (CSV, cloud, some LLDP).
std::string rate_name(int width, Speed s);
// 400 -> "400 Gb/s", 2.5 -> "2.5 Gb/s"
std::string gbps_name(double gbps);
// Width in lanes times lane rate: 4xHDR -> 200.
double link_gbps(int width, Speed s);

struct Node {
    NodeType type = NodeType::Ca;
    std::uint64_t guid = 0;
    std::uint64_t sysimg_guid = 0;  // shared by the ASICs of one director chassis
    int num_ports = 0;
    std::string desc;               // node description, as the node reports it
    int lid = 0;                    // switch: port 0 LID; CA: base LID of its lowest port seen
    std::uint32_t vendor_id = 0;
    std::uint32_t device_id = 0;
    std::size_t line = 0;           // line of the input it was read from (0: none, e.g. a cache file)
    bool mapped = false;            // desc is the admin's (--node-name-map), not the node's own claim

    bool operator==(const Node &o) const;  // compares what was discovered, not `line`
    bool operator!=(const Node &o) const { return !(*this == o); }
};

struct LinkEnd {
    std::uint64_t guid = 0;       // node GUID
    int port = 0;                 // port number on that node
    std::uint64_t port_guid = 0;  // CA ports have their own GUID; switch ports 0
    int lid = 0;                  // CA port base LID; 0 for switches

    bool operator==(const LinkEnd &o) const;
    bool operator!=(const LinkEnd &o) const { return !(*this == o); }
    bool operator<(const LinkEnd &o) const;
};

struct Link {
    LinkEnd a, b;                    // a < b
    int width = 0;                   // active lanes: 1, 2, 4, 8, 12; 0 unknown
    Speed speed = Speed::Unknown;    // active lane speed
    int supported_width = 0;         // widest both ends support, 0 unknown
    Speed supported_speed = Speed::Unknown;  // fastest both ends support

    double gbps() const { return link_gbps(width, speed); }
    bool operator==(const Link &o) const;
    bool operator!=(const Link &o) const { return !(*this == o); }
};

// A host NIC that a reader kept out of the compute fabric: a front-end
// (management, storage) port that lldpd saw beside the compute rails.
struct FrontEndNic {
    std::string host;   // the host
    std::string iface;  // its interface
    std::string sw;     // the switch it reaches
    double gbps = 0;    // 0 unknown
    std::string why;    // the rule that decided, for check

    bool operator==(const FrontEndNic &o) const;
    bool operator!=(const FrontEndNic &o) const { return !(*this == o); }
};

// The multi-node NVLink domain a host's GPUs belong to, as its source names
// it: nvidia-smi's ClusterUUID.CliqueId, a cloud's own ID (AWS
// CapacityBlockId, OCI GpuMemoryFabricId, GCP sub-block), a CSV's domain
// column. Identity comes from the admin's gathering of it, never from the view.
struct HostDomain {
    std::string host;       // the host, as the fabric names it
    std::string domain;     // the domain ID
    std::string subdomain;  // rack sub-domain (tray group) inside it, "" none
    std::string source;     // where it was read ("FILE:LINE", "aws CapacityBlockId")

    bool operator==(const HostDomain &o) const;
    bool operator!=(const HostDomain &o) const { return !(*this == o); }
};

struct Fabric {
    std::string source;          // where it came from (file name, "ibnetdisc", ...)
    // What kind of network the input describes: "ib" (ibnetdiscover, cache,
    // live), "roce" (LLDP), "aws" (EC2 instance topology), "generic" (a
    // site's CSV); "" when unknown (a fabric.json of an older atoll).
    std::string kind;
    std::vector<Node> nodes;     // sorted by GUID
    std::vector<Link> links;     // sorted by a, then b
    std::vector<std::string> warnings;  // what a reader skipped, FILE:LINE first (not compared)
    // read from LLDP tables now (not a fabric.json): who is a host was
    // decided here, by Slurm's node list when given (not saved, not compared)
    bool from_lldp_tables = false;
    // Slurm's node list (--slurm-nodes), when given: the FQDNs it names are
    // Slurm's node names as written, not cut to a first label (not saved,
    // not compared)
    std::set<std::string> slurm_names;
    std::vector<FrontEndNic> frontend;  // host NICs left out as front-end, by host and interface
    // hosts whose NICs could not be told apart (speeds unknown, no
    // HOST.node.json, no --frontend/--compute): all taken as compute
    std::vector<std::string> undecided;
    // identity claims of the input that were not believed (LLDP: a switch
    // named by one host alone, a host named as a switch, a table's own name
    // that is not its file's): each a sentence for check
    std::vector<std::string> refused_claims;
    // hosts whose `atoll-topo health` failed (--health), "HOST: first error":
    // their islands rank last in placement
    std::vector<std::string> unhealthy;
    // hosts none of whose links was believed because another claimed the
    // same switch port (LLDP: two hosts' tables naming one port), "HOST:
    // why": Slurm's files would leave them out (one root's claim taking
    // another node out of the tree), so the slurm command refuses to write
    std::vector<std::string> contested;
    // hosts' NVLink domains (sorted by host, one entry each); empty when no
    // source gave any
    std::vector<HostDomain> domains;

    bool operator==(const Fabric &o) const;
    bool operator!=(const Fabric &o) const { return !(*this == o); }

    const Node *find(std::uint64_t guid) const;  // binary search; nullptr when absent
};

// Sort nodes and links, orient links (a < b) and drop exact duplicate links
// (ibnetdiscover prints each cable from both ends). Throws InputError when a
// port is cabled to two different peers or a link names an unknown node.
void normalise(Fabric &f);

// An error in an input: "FILE:LINE: what was found, what was expected".
class InputError : public std::runtime_error {
public:
    InputError(const std::string &file, std::size_t line, const std::string &what);
    explicit InputError(const std::string &what) : std::runtime_error(what) {}
};

std::string guid_str(std::uint64_t guid);                 // "0x0002c90300a1b2c3"
// Bytes as they can go into a log line or a message, whoever wrote them (a
// user's option value, a node's description): printable ASCII as is, a
// newline as \n, any other byte (controls, DEL, '\\', non-ASCII) as \xNN;
// at most `max` characters of output, then "...". The one escaping rule of
// atoll's messages: one line each, never a forged one.
std::string escaped(const std::string &s, std::size_t max = 200);
// An adapter name as a person reads it: lower case, a number's leading
// zeros dropped (MLX5_0, mlx5_00 -> mlx5_0). Two names with one key name
// one device: the kernel writes one of them (mlx5_%d).
std::string adapter_name_key(const std::string &hca);
// The name with its numbers' leading zeros dropped, case kept (mlx5_03 -> mlx5_3)
std::string unpadded_name(const std::string &hca);
// A whole message made of parts some of which escaped() already: controls,
// DEL and non-ASCII bytes as \xNN (a newline too), the rest as is, so a
// part no one escaped cannot forge a line or move a terminal, and one that
// was is not escaped twice.
std::string one_line(const std::string &s, std::size_t max = 4096);
// escaped(s, max) in single quotes.
std::string shown(const std::string &s, std::size_t max = 60);
// The first `n` items, comma-separated, then " and K more": a message names
// a few of a list, never thousands (4,089 claimants of one name wrote 671 MB)
std::string first_of(const std::vector<std::string> &items, std::size_t n = 8);
bool parse_guid(const std::string &s, std::uint64_t &out);  // "0x..." or bare hex

}  // namespace atl
