// A netdev's statistics as `ethtool -S IF` prints them (ethtool's
// dump_stats(): "NIC statistics:" then "     NAME: VALUE" per counter), read
// from the saved text. mlx5 names its per-priority PFC counters
// rx_prioN_pause, tx_prioN_pause (only for priorities with PFC on) and the
// stall watchdog's tx_pause_storm_warning_events / tx_pause_storm_error_events
// (drivers/net/ethernet/mellanox/mlx5/core/en_stats.c).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>

namespace atl {

struct EthtoolStats {
    std::string source;
    std::map<std::string, std::uint64_t> counters;

    bool operator==(const EthtoolStats &o) const { return counters == o.counters; }
};

// The text of `ethtool -S IF`, with or without the "NIC statistics:" line and
// the leading spaces (a copy pasted flush left reads the same). A line that
// is not "NAME: UNSIGNED" is an InputError "FILE:LINE: ...", and so is text
// with no counter at all.
EthtoolStats parse_ethtool_stats(std::istream &in, const std::string &source);

}  // namespace atl
