// RoCE and Ethernet fabrics from LLDP: what `lldpcli show neighbors details`
// prints on each host (and, optionally, on each switch), in any of lldpd's
// formats: -f json0, -f json (with its quirks), -f keyvalue, -f xml.
// A host's NIC ports become host ports; each neighbouring chassis a switch.
// Tables taken on switches (file named after the switch, or SONiC's
// lldp_loc_chassis) add switch-to-switch links, and with them tiers and pods.
#pragma once

#include <iosfwd>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "topology/fabric.hpp"

namespace atl {

struct LldpNeighbor {
    std::string local;        // the system the table was taken on (host or switch)
    std::string iface;        // its interface
    std::string chassis;      // the neighbour: system name (short) or chassis ID
    std::string chassis_id;   // its chassis ID (a MAC, most often), if given
    std::string port;         // the neighbour's port ID
    double gbps = 0;          // from the MAU type the port reports; 0 unknown
    bool bridge = false;      // the neighbour advertises Bridge or Router enabled
    bool station = false;     // ... and Station enabled (a host's lldpd with no bridge or forwarding)
    std::string claimed;      // the name the table gives its own system (SONiC's lldp_loc_chassis), if any
    bool self_bridge = false; // the table says its own system is a Bridge or Router
    std::string via;          // the protocol lldpd heard it by: LLDP, CDPv1, CDPv2, EDP, FDP, SONMP; "" not given
};

// One table. `local` names the system it was taken on: the file name or the
// pdsh prefix, the admin's word. A table's own claim of its name (SONiC's
// lldp_loc_chassis) goes to `claimed`, and is believed only when no other
// name is known (local empty). Lines "host: ..." (pdsh, clush)
// split one text into several systems' tables. Throws InputError (FILE:LINE
// where the format has lines) on anything that is not lldpcli output.
// With `unread`, a collection of two systems or more (pdsh) keeps going past
// a system's table that cannot be read: its error goes to `unread`.
std::vector<LldpNeighbor> parse_lldp(std::istream &in, const std::string &source, const std::string &local,
                                     std::vector<std::string> *unread = nullptr);
// The same, of a table's whole text.
std::vector<LldpNeighbor> parse_lldp_text(const std::string &text, const std::string &source, const std::string &local,
                                          std::vector<std::string> *unread = nullptr);

// Tables that could not be read (`unread`, their errors) beside `read` that
// were: an InputError naming the first when more than half failed, or all
// (`none`: nothing read); else warn_unread() says each on the fabric.
void check_unread(const std::vector<std::string> &unread, std::size_t read, bool none);
void warn_unread(Fabric &f, const std::vector<std::string> &unread);

// "10GbaseT - Four-pair ..." -> 10, "1000BaseT" -> 1, "unknown" -> 0
double mau_gbps(const std::string &mau);

// Which host interfaces are compute rails, as the admin says: comma-separated
// fnmatch(3) patterns ("!" in front excludes) matched against the interface
// name and the neighbour switch's name. An interface matching `frontend` is
// front-end; when `compute` is given, one matching neither it is front-end
// too. When both are empty the automatic rules of split_nics() decide.
struct NicRoles {
    std::string frontend, compute;
    // --switches: the neighbours that are switches (fnmatch patterns, '!'
    // excludes); empty: a neighbour named by two systems or more, or by a
    // switch's own table, or any neighbour of a one-host input
    std::string switches;
    // --slurm-nodes: Slurm's node names, the authority on which systems are
    // hosts. When given, a system Slurm names is a host whatever the tables
    // say of it (lldpd on a host with Docker's bridge advertises Bridge and
    // Router, and every leaf of a rail-optimized host reports it so), and a
    // system with a table of its own that Slurm does not name and no rule
    // makes a switch is no host either: its links are left out.
    bool slurm_given = false;
    std::set<std::string> slurm_nodes;
    std::string slurm_source;  // the file they came from, for messages
    bool given() const { return !frontend.empty() || !compute.empty(); }
};

// What a host says of its own NICs (HOST.node.json, `atoll-topo node --json`).
struct HostNics {
    std::map<std::string, double> gbps;   // netdev -> rate of its RDMA port
    std::set<std::string> roce;           // netdevs behind an Ethernet RDMA port
    // When every GPU of the host has an adapter of its own under its PCIe
    // switch (PIX or PXB, no tie): the netdevs of those adapters, and of the
    // others (a DGX's storage and front-end ConnectX, on the CPU's ports)
    std::set<std::string> gpu_own, no_gpu;
};

// Host-to-switch neighbours split into compute rails and front-end NICs.
struct NicSplit {
    std::vector<LldpNeighbor> compute;
    std::vector<FrontEndNic> frontend;
    std::vector<std::string> undecided;  // hosts whose NICs could not be told apart
};

// The rules, per host, in order; the first that applies decides:
//  1. the admin's NicRoles, when given (then no automatic rule runs);
//  1b. a port on another network (switch_links, below) is front-end;
//  2b. HOST.node.json showing each GPU an adapter of its own under its PCIe
//     switch: an interface of an adapter no GPU has is front-end;
//  2. HOST.node.json present: an interface that is no netdev of an Ethernet
//     RDMA port cannot carry RoCE, so it is front-end;
//  3. link speeds known (MAU type, or the NIC's rate): an interface slower
//     than the host's fastest is judged by the same port on the other hosts
//     (its name on its switch, its name anywhere, else the other hosts on
//     its switch): at full speed on most, a rail that came up slow (kept);
//     on none, front-end; on some but not most, the host is undecided;
//  4. otherwise a host with several interfaces left is undecided when some
//     are of unknown speed (and no node.json), or when none was slower (the
//     same speed tells a rail from a front-end NIC of that speed no better
//     than no speed): its interfaces are all taken as compute, and check
//     says so.
// Before all but 1: where switch tables show the switches' cables
// (`switch_links`, pairs of switch names), a port on a network no cable
// joins to the one most of its host's ports are on, with at most a third of
// them, is front-end (another network: storage, management).
// `hosts` holds the host-to-switch neighbours only.
NicSplit split_nics(const std::vector<LldpNeighbor> &hosts, const NicRoles &roles,
                    const std::map<std::string, HostNics> &nics,
                    const std::vector<std::pair<std::string, std::string>> &switch_links = {});

// Hosts, leaves and (from switch tables) the switches above them. A neighbour
// with no table of its own is a switch when two tables name it, or a switch's
// table, or the input has one host; one with a table is a switch when two
// other tables or more name it as a Bridge or Router and it names one of them
// back (never on its own table's word), else a host; NicRoles::switches and
// NicRoles::slurm_nodes, given, are the admin's word over these rules. Front-end
// NICs (split_nics) are left out and listed in Fabric::frontend; a switch
// that carries only front-end NICs is left out with its cables.
Fabric lldp_fabric(const std::vector<LldpNeighbor> &n, const std::string &source, const NicRoles &roles = {},
                   const std::map<std::string, HostNics> &nics = {});

// HOST.node.json (`atoll-topo node --json` of a host): its RDMA netdevs'
// rates, which are RoCE ports, and which adapters are its GPUs' own. Throws
// InputError naming `file` when it is not such JSON.
HostNics read_node_json(std::istream &in, const std::string &file);

// A directory of per-system files (system = file name up to the first '.'),
// or one file. Files named HOST.node.json (`atoll-topo node --json` of that
// host) give the NICs' own rates where LLDP carries no speed, and which
// netdevs are RoCE ports. Throws InputError when nothing in it is LLDP output.
Fabric load_lldp(const std::string &path, const NicRoles &roles = {});

// The first bytes look like lldpcli output in some format.
bool looks_like_lldp(const std::string &head);

}  // namespace atl
