// What Slurm reads: topology.conf (topology/tree and topology/block) and
// island node features. Plain text; no Slurm headers in topology/.
#pragma once

#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "topology/topology.hpp"

namespace atl {

// The switches of the topology/tree file: every leaf island, then each group,
// pod and the fabric that has two children or more (a level with a single
// child is skipped, its children passed up). Children are island indices.
struct TreeSwitch {
    int island = -1;
    std::vector<int> children;  // empty for a leaf island (it holds the nodes)
};
std::vector<TreeSwitch> slurm_tree(const Topology &t);

// topology/tree: leaf islands hold the nodes, then rail groups, pods and the
// fabric as switches above them (a level with a single child is skipped), so a
// host is under exactly one switch even in a rail-optimised fabric.
void write_topology_tree(std::ostream &out, const Topology &t);
// topology/block (Slurm >= 23.11): one block per leaf island.
void write_topology_block(std::ostream &out, const Topology &t);

// A host's island features: its leaf island, rail group and pod names.
std::vector<std::string> host_features(const Topology &t, int host);
// True for a feature that atoll owns (an island or switch name of this fabric,
// or a grp-/pod- name from an earlier run).
bool atoll_feature(const Topology &t, const std::string &feature);

// Kubernetes node labels in topograph's convention, as kubectl commands:
// network.topology.nvidia.com/block = leaf island, /spine = pod,
// /datacenter = the fabric, so Slurm and Kubernetes share one map.
void write_k8s_labels(std::ostream &out, const Topology &t);

// slurm.conf include: "NodeName=<hosts> Features=<...>" grouped by feature set;
// node_params is appended to each line (e.g. "CPUs=128 Gres=gpu:8").
void write_features_conf(std::ostream &out, const Topology &t, const std::string &node_params);

// `scontrol show node --oneliner` output -> node name -> its AvailableFeatures
std::map<std::string, std::vector<std::string>> parse_scontrol_nodes(std::istream &in,
                                                                     const std::string &source);
// scontrol update lines that set the island features and keep every other one.
// Nodes absent from `current` are left alone unless `current` is empty.
void write_scontrol_updates(std::ostream &out, const Topology &t,
                            const std::map<std::string, std::vector<std::string>> &current);

}  // namespace atl
