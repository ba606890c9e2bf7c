// Cloud topology inputs, each turned into the same three-level tree of named
// switches as a site's CSV (leaf, pod, core), so cloud instances get the same
// islands as a fat tree:
//
//   AWS     `aws ec2 describe-instance-topology`: Instances[].NetworkNodes (3
//           or more layers, top down); leaf the last, pod the one before, core
//           the first; NVLink domain CapacityBlockId (P6e-GB200).
//   GCP     Compute `instances.list` (REST {"items": [...]} or gcloud's bare
//           array): resourceStatus.physicalHostTopology; leaf subblock, pod
//           block, core cluster; NVLink domain the sub-block. Host name
//           `name`, alias `id`.
//           GKE `kubectl get nodes -o json`: labels
//           cloud.google.com/gce-topology-{subblock,block}; leaf sub-block, pod
//           block, one core; NVLink domain the sub-block. Host name
//           metadata.name.
//   OCI     /opc/v2/host/rdmaTopologyData gathered with pdsh ("HOST: {json}"
//           lines): leaf customerLocalBlock, pod customerNetworkBlock, core
//           customerHPCIslandId; NVLink domain customerGpuMemoryFabric. Host
//           name the pdsh host.
//           `ListComputeHosts` JSON (REST {"items": [...]} or the oci CLI's
//           {"data": {"items": [...]}}, camelCase or kebab-case keys): leaf
//           localBlockId, pod networkBlockId, core hpcIslandId; NVLink domain
//           gpuMemoryFabricId. Host name instanceId.
//   Nebius  `nebius compute instance list --format json`: each item's
//           status.infiniband_topology_path.path (3 tiers, root first); NVLink
//           domain spec.nvl_instance_group_id. Host name metadata.name, alias
//           metadata.id.
//
// A HostMap renames the hosts as Slurm names them: a host whose name or any
// alias (instance ID, hostname) is on the map's left takes the right-hand name.
#pragma once

#include <iosfwd>
#include <map>
#include <set>
#include <string>

#include "topology/fabric.hpp"

namespace atl {

// --host-map FILE: lines "CLOUD-ID SLURM-NAME", '#' comments and blank lines
// skipped. Throws InputError "FILE:LINE: ..." on a line that is not two
// names or an ID given twice. Two IDs onto one Slurm name are one host's
// two names or an error: the readers (and apply_host_map) refuse two hosts
// onto one name and one host onto two names, naming both map lines.
struct HostMap {
    std::map<std::string, std::string> names;   // cloud ID -> Slurm node name
    std::map<std::string, std::string> where;   // cloud ID -> "FILE:LINE"
};
HostMap parse_host_map(std::istream &in, const std::string &source);
// Renames the hosts of an already built fabric (a site's CSV) whose name the
// map has; returns how many.
std::size_t apply_host_map(Fabric &f, const HostMap &map);
// The host names of a fabric (its channel adapters' node descriptions up to
// the first space)
std::set<std::string> host_names(const Fabric &f);

// Each throws InputError naming the file and the instance on anything
// unexpected; `map` (may be null) is applied as the hosts are named.
Fabric parse_aws_topology(std::istream &in, const std::string &source, const HostMap *map = nullptr);
Fabric parse_gcp_topology(std::istream &in, const std::string &source, const HostMap *map = nullptr);
Fabric parse_oci_topology(std::istream &in, const std::string &source, const HostMap *map = nullptr);
Fabric parse_nebius_topology(std::istream &in, const std::string &source, const HostMap *map = nullptr);

// What the first bytes of an input look like: "aws", "gcp", "oci", "nebius",
// or "" (none of them).
std::string cloud_format(const std::string &head);
// True when a JSON text looks like describe-instance-topology output.
bool looks_like_aws_topology(const std::string &head);

}  // namespace atl
