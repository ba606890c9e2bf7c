// What `atoll-topo health` printed on each node, gathered by pdsh or clush
// ("HOST: line" on every line): the hosts whose health failed, each with its
// first ERROR line, so that their islands rank last in placement.
#pragma once

#include <iosfwd>
#include <map>
#include <string>

namespace atl {

// host -> its first "ERROR: ..." line (or "health: FAILED ..." when no error
// line came through). Lines of pdsh itself ("pdsh@..."), warnings and a
// "health: OK" summary mark nothing. Throws InputError naming FILE:LINE on a
// line without a "HOST: " prefix or with a host name atoll refuses.
std::map<std::string, std::string> parse_health_results(std::istream &in, const std::string &source);

}  // namespace atl
