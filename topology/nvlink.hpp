// What nvidia-smi said about each host's multi-node NVLink domain, gathered
// from every node: `nvidia-smi --query-gpu=fabric.clusterUuid,fabric.cliqueId
// --format=csv,noheader` (one "ClusterUUID, CliqueId" row per GPU) or the
// Fabric section of `nvidia-smi -q` (State, Status, CliqueId, ClusterUUID per
// GPU). A host's domain is "ClusterUUID.CliqueId", as NVIDIA topograph names
// it, when every GPU of the host reports the same one.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "topology/fabric.hpp"

namespace atl {

// A host that reported GPUs but no domain to place it by.
struct NvlinkProblem {
    enum class Kind : std::uint8_t {
        NotConfigured,  // N/A, an all-zero ClusterUUID, State not Completed or Status not Success
        Mixed,          // its GPUs name different domains
    };
    std::string host;
    Kind kind = Kind::NotConfigured;
    std::string why;  // "FILE:LINE: ..." of the first GPU that showed it

    bool operator==(const NvlinkProblem &o) const { return host == o.host && kind == o.kind && why == o.why; }
};

struct NvlinkDomains {
    std::vector<HostDomain> domains;      // by host, one each, source "FILE:LINE" of its first GPU
    std::vector<NvlinkProblem> problems;  // by host
};

// pdsh/clush output of either command on every node ("HOST: line"; pdsh's
// own "pdsh@..." lines skipped). A host whose output says "No devices were
// found" has no domain and no problem. Throws InputError "FILE:LINE: found,
// expected" on a line that is neither command's, a bad host name, a
// ClusterUUID or CliqueId that is not one.
NvlinkDomains parse_nvlink_pdsh(std::istream &in, const std::string &source);
// One host's output (a file of a directory named after the host).
NvlinkDomains parse_nvlink_host(std::istream &in, const std::string &source, const std::string &host);
// A file of pdsh output, or a directory of one file per host (file name =
// host; hidden files skipped). Throws InputError when it cannot be read.
NvlinkDomains load_nvlink(const std::string &path);

// Add them to a fabric: domains to Fabric::domains; a not-configured host to
// Fabric::unhealthy ("HOST: NVLink fabric not configured: FILE:LINE: ...",
// so its islands rank last); a host whose GPUs disagree to
// Fabric::refused_claims ("HOST: its GPUs name NVLink domains ...").
void add_nvlink(Fabric &f, const NvlinkDomains &d);

// The prefix of an unhealthy entry's reason that add_nvlink wrote.
extern const char *const kNvlinkNotConfigured;

}  // namespace atl
