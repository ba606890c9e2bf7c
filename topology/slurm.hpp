// What Slurm reads: topology.conf (topology/tree and topology/block) and
// island node features. Plain text; no Slurm headers in topology/.
#pragma once

#include <iosfwd>
#include <map>
#include <set>
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
    // the switch's name when it is not the island's: the fabric split into
    // subnets no cable joins ("fabric-1", "fabric-2": one root each)
    std::string name;
};
std::vector<TreeSwitch> slurm_tree(const Topology &t);

// topology/tree: leaf islands hold the nodes, then rail groups, pods and the
// fabric as switches above them (a level with a single child is skipped), so a
// host is under exactly one switch even in a rail-optimised fabric.
void write_topology_tree(std::ostream &out, const Topology &t);

// The value of KEY in a Slurm configuration file of Key=Value lines
// (slurm.conf, topology.conf): the key in any case, spaces around '=' allowed,
// '#' to the end of the line a comment, the last one set wins; "" when the
// file has none (or cannot be read).
std::string slurm_conf_value(std::istream &in, const std::string &key);
// The directory of a configuration file ("." for a bare name), where Slurm
// looks for the files beside it (plugstack.conf, topology.conf, topology.yaml).
std::string directory_of(const std::string &file);
// The Key=Value words of one such line, keys lowercased ("" values for bare words).
std::map<std::string, std::string> slurm_conf_words(const std::string &line);

// What a topology.yaml (Slurm 25.05+) says of each topology, read line by
// line from the form Slurm documents and atoll-topo writes: "- topology:
// NAME", "cluster_default: true", a "tree:", "block:" (with "block_sizes:"
// as a list of "- N" or "[N, M]") or "flat: true" section. Anything else is
// skipped; a topology without a kind is "".
struct TopologyYamlEntry {
    std::string name;
    bool cluster_default = false;
    std::string kind;              // tree, block, flat or ""
    std::vector<int> block_sizes;
};
std::vector<TopologyYamlEntry> read_topology_yaml(std::istream &in);
// topology/block (Slurm >= 23.11): one block per leaf island, laid out so
// that Slurm 24.11 and later load it. Slurm takes the first block's node count
// (or BlockSizes' first value) as the planning base block and refuses a later
// block with fewer nodes; it joins blocks i..i+2^k-1 (i a multiple of 2^k)
// into the aggregated blocks of level k.
struct BlockLayout {
    std::vector<int> blocks;     // island indices, in the order written (pod by pod); -1 a placeholder
    int placeholders = 0;        // blocks of no node (-1 in blocks)
    Level level = Level::Leaf;   // what a block is: leaf islands, or NVLink domains when the fabric has them
    int base = 0;                // nodes in the planning base block
    std::vector<int> levels;     // aggregation levels written to BlockSizes (0 first)
    std::vector<int> unsound;    // levels left out: an aggregated block would join two pods
    std::vector<int> left_out;   // leaf islands with hosts that are not written
    std::vector<std::string> why_left_out;  // per left_out: "service leaf", "13 nodes < 14"
};
// base_nodes 0: the smallest leaf island of compute hosts (a leaf of no
// compute host, or with fewer than half the median leaf's hosts, is a service
// leaf and left out). Throws std::invalid_argument when no block can be
// written (no leaf island holds hosts, or none holds base_nodes).
// placeholders (Slurm 25.05 and later, which take a block smaller than the
// base and a block of no node): the base is the median block instead, smaller
// ones are written too, and every pod but the last is padded with blocks of
// no node ("atoll-placeholder-N") up to the power of two at or above the
// widest pod's block count, so no aggregated block up to a pod's joins two
// pods. 24.11 refuses both ("children count lower than bblock_node_cnt",
// "lacks children" in block_record.c).
BlockLayout block_layout(const Topology &t, int base_nodes = 0, bool placeholders = false);
void write_topology_block(std::ostream &out, const Topology &t, const BlockLayout &layout);
void write_topology_block(std::ostream &out, const Topology &t);

// topology.yaml (Slurm 25.05 and later), one topology per use: "atoll-tree"
// (the cluster default: topology/tree as write_topology_tree), "atoll-block"
// (the block layout, when one exists) and "atoll-flat" (no topology: for a
// partition of the service nodes the block layout leaves out). A partition
// picks one with Topology=NAME in slurm.conf.
// placeholders: atoll-block as block_layout(t, 0, true) (placeholder blocks
// are "- block: NAME" without nodes).
void write_topology_yaml(std::ostream &out, const Topology &t, bool placeholders = false);

// Live topology changes (Slurm 25.05 and later): "scontrol update NodeName=H
// Topology=NAME:UNIT" for each host of both fabrics whose leaf island (its
// leaf switch in topology/tree, its block in topology/block) differs between
// them. A host whose island is unchanged gets no line: re-applying an
// unchanged Topology= turns block scheduling off (SchedMD PR #225). tree:
// UNIT is the path of switches from the top down to the leaf, as
// atoll-topo's topology.conf has them (Slurm makes the ones it lacks);
// block: the block's name. NAME is the topology (topology.conf: "default").
// Returns the number of lines written.
int write_topology_updates(std::ostream &out, const Topology &old_t, const Topology &new_t,
                           const std::string &topology_name, bool block);

// A host's island features: its leaf island, rail group and pod names.
std::vector<std::string> host_features(const Topology &t, int host);

// Kubernetes' rules (k8s.io/apimachinery pkg/api/validate/content, kube.go:
// IsLabelValue, which validation.IsValidLabelValue is; IsLabelKey). A label
// value: at most 63 characters, empty or beginning and ending with
// [A-Za-z0-9] with [-A-Za-z0-9_.] between. A label key: a name as such a
// value but not empty, after an optional DNS-1123 subdomain prefix (at most
// 253 characters) and '/'. Empty when acceptable, else why not.
std::string k8s_label_value_problem(const std::string &value);
std::string k8s_label_key_problem(const std::string &key);
// The label value for island name `name`: the name itself when Kubernetes
// takes it; else its first 54 characters Kubernetes allows in a value (others
// become '-'), trimmed to begin and end with a letter or digit, then '-' and
// 8 hex digits of a hash (FNV-1a) of the whole name, so two names that differ
// anywhere give two values (but for a 32-bit collision); "" when the name
// holds no letter or digit.
std::string k8s_label_value(const std::string &name);

// A label value that is not its island's name: the hosts, the key, the
// island's name and what was written ("" when the label was removed).
struct K8sLabelChange {
    std::vector<std::string> hosts;
    std::string key, name, value;
};
// Kubernetes node labels in topograph's convention, as kubectl commands:
// network.topology.nvidia.com/block = leaf island, /spine = pod,
// /datacenter = the fabric, so Slurm and Kubernetes share one map. An island
// name Kubernetes would refuse is written as k8s_label_value gives it, or,
// when that is "", the key is removed ("KEY-"), so no node keeps a stale
// label. With `only`, hosts outside it get no line. Returns the changes, by
// key and name.
std::vector<K8sLabelChange> write_k8s_labels(std::ostream &out, const Topology &t,
                                             const std::set<std::string> *only = nullptr);

// slurm.conf include: "NodeName=<hosts> Features=<...>" grouped by feature set;
// node_params is appended to the compute hosts' lines (Host::compute: the
// fabric's usual adapter count, e.g. "CPUs=128 Gres=gpu:8"); the others (login,
// storage, UFM hosts) follow under a comment with their features alone. With
// `only`, hosts outside it get no line.
void write_features_conf(std::ostream &out, const Topology &t, const std::string &node_params,
                         const std::set<std::string> *only = nullptr);
// For sites that keep their own NodeName lines: "HOST FEATURES" per host
// (features comma-separated), after a '#' header line.
void write_feature_list(std::ostream &out, const Topology &t, const std::set<std::string> *only = nullptr);

// Slurm's node names: the NodeName= value of each line of `scontrol show
// nodes --oneliner` output or of a slurm.conf (the key in any case, '#'
// comments, a backslash ending a line continues it, hostlists expanded,
// NodeName=DEFAULT skipped; other lines are ignored, Include is not
// followed). Throws InputError "FILE:LINE: found ..., expected ..." on a
// hostlist it cannot expand, and when no line names a node.
std::set<std::string> read_slurm_node_names(std::istream &in, const std::string &source);
// Hosts of the fabric that would be written (those on a leaf island) and
// that `slurm_nodes` does not have, sorted.
std::vector<std::string> hosts_outside(const Topology &t, const std::set<std::string> &slurm_nodes);

// A Slurm node's features as `scontrol show node --oneliner` prints them.
struct NodeFeatures {
    std::vector<std::string> available, active;
    bool operator==(const NodeFeatures &o) const { return available == o.available && active == o.active; }
};
// A line of `scontrol show node --oneliner` without its free-text fields
// (Reason=, Comment=, Extra= and what follows).
std::string scontrol_fields(const std::string &line);
// `scontrol show node --oneliner` output -> node name -> its features
std::map<std::string, NodeFeatures> parse_scontrol_nodes(std::istream &in, const std::string &source);
// scontrol update lines that set the island features and keep every other one.
// Nodes absent from `current` are left alone unless `current` is empty.
// atoll's own features in `current`: grp-/pod- island names of `t` (or of
// `previous`) and, with `previous` (the fabric they were written from), the
// island features it gave each node there. A site feature that is available
// but not active stays inactive. Throws InputError, writing nothing, when a feature kept as the
// site's equals an island name of `t` on a node outside that island.
// With `only`, hosts outside it get no line.
void write_scontrol_updates(std::ostream &out, const Topology &t, const std::map<std::string, NodeFeatures> &current,
                            const Topology *previous = nullptr, const std::set<std::string> *only = nullptr);

}  // namespace atl
