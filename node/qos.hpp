// The QoS state of a RoCE netdev as `mlnx_qos -i IF` (Mellanox mlnx-tools,
// python/mlnx_qos: pretty_print()) prints it: the trust state, the DSCP to
// priority map, the per-priority PFC row and the priority to TC map. Read
// from the saved text, so that a test or a health check can work on a copy.
#pragma once

#include <array>
#include <iosfwd>
#include <string>

namespace atl {

struct MlnxQos {
    std::string source;
    std::string dcbx;                       // "OS controlled", "Firmware controlled"; "" when not printed
    std::string trust;                      // "dscp", "pcp", "none" (not supported); "" when not printed
    std::array<int, 64> dscp2prio{};        // DSCP -> priority, -1 where the map has no entry
    bool has_dscp2prio = false;             // a "dscp2prio mapping:" section was printed (trust dscp)
    std::array<bool, 8> pfc{};              // PFC "enabled" row, by priority
    std::array<int, 8> prio_tc{};           // priority -> traffic class ("tc: N" blocks), -1 unknown
    int cable_len = -1;

    MlnxQos()
    {
        dscp2prio.fill(-1);
        prio_tc.fill(-1);
    }
    bool operator==(const MlnxQos &o) const
    {
        return trust == o.trust && dcbx == o.dcbx && dscp2prio == o.dscp2prio && has_dscp2prio == o.has_dscp2prio &&
               pfc == o.pfc && prio_tc == o.prio_tc && cable_len == o.cable_len;
    }
};

// The text of `mlnx_qos -i IF`. Lines it does not know (the lldpad warning,
// "Receive buffer size", "default priority:") are passed over; a malformed
// "prio:N dscp:..." line, "enabled" row or "priority:" line is an InputError
// "FILE:LINE: what was found, what was expected", and so is a second
// "Priority trust state:" line, "PFC configuration:" section or "enabled"
// row (one interface prints one of each) and text without a
// "PFC configuration:" section and its "enabled" row.
MlnxQos parse_mlnx_qos(std::istream &in, const std::string &source);

}  // namespace atl
