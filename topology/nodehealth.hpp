// What `atoll-topo health` printed on each node, gathered by pdsh or clush
// ("HOST: line" on every line): the hosts whose health failed, each with its
// first ERROR line, so that their islands rank last in placement.
#pragma once

#include <iosfwd>
#include <map>
#include <string>
#include <vector>

namespace atl {

// host -> its first "ERROR: ..." line (or "health: FAILED ..." when no error
// line came through). Lines of pdsh itself ("pdsh@..."), warnings and a
// "health: OK" summary mark nothing. A line that is not atoll-topo health's
// (a node's login banner) is skipped with a FILE:LINE warning in `warnings`:
// one node's stray output must not hide every other node's failure.
std::map<std::string, std::string> parse_health_results(std::istream &in, const std::string &source,
                                                        std::vector<std::string> *warnings = nullptr);

// The host of the fabric a health result names: itself, or its first label
// when the fabric has the short name (FQDNs shortened as discovery does).
// -1 when the fabric has neither.
int health_host(const std::map<std::string, int> &host_index, const std::string &name);

}  // namespace atl
