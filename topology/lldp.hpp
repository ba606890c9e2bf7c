// RoCE and Ethernet fabrics from LLDP: what `lldpcli show neighbors details`
// prints on each host (and, optionally, on each switch), in any of lldpd's
// formats: -f json0, -f json (with its quirks), -f keyvalue, -f xml.
// A host's NIC ports become host ports; each neighbouring chassis a switch.
// Tables taken on switches (file named after the switch, or SONiC's
// lldp_loc_chassis) add switch-to-switch links, and with them tiers and pods.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "topology/fabric.hpp"

namespace atl {

struct LldpNeighbor {
    std::string local;        // the system the table was taken on (host or switch)
    std::string iface;        // its interface
    std::string chassis;      // the neighbour: system name (short) or chassis ID
    std::string port;         // the neighbour's port ID
    double gbps = 0;          // from the MAU type the port reports; 0 unknown
    bool bridge = false;      // the neighbour advertises Bridge or Router enabled
};

// One table. `local` names the system it was taken on when the text does not
// (json from SONiC carries lldp_loc_chassis). Lines "host: ..." (pdsh, clush)
// split one text into several systems' tables. Throws InputError (FILE:LINE
// where the format has lines) on anything that is not lldpcli output.
std::vector<LldpNeighbor> parse_lldp(std::istream &in, const std::string &source, const std::string &local);

// "10GbaseT - Four-pair ..." -> 10, "1000BaseT" -> 1, "unknown" -> 0
double mau_gbps(const std::string &mau);

// Hosts, leaves and (from switch tables) the switches above them. A neighbour
// with no table of its own is a switch; one with a table is a switch when some
// table shows it advertising Bridge or Router enabled, else a host.
Fabric lldp_fabric(const std::vector<LldpNeighbor> &n, const std::string &source);

// A directory of per-system files (system = file name up to the first '.'),
// or one file. Files named HOST.node.json (`atoll-topo node --json` of that
// host) give the NICs' own rates where LLDP carries no speed. Throws
// InputError when nothing in it is LLDP output.
Fabric load_lldp(const std::string &path);

// The first bytes look like lldpcli output in some format.
bool looks_like_lldp(const std::string &head);

}  // namespace atl
