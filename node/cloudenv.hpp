// Each cloud's own NCCL environment, as the cloud's plugin or image sets it
// (docs/cloud-profiles.md has the sources): what it sets, so that atoll never
// contradicts it; how the stack shows on a node (files under a root
// directory, so that tests build a fake node); what an expected but missing
// profile looks like; and the compute adapters of a node whose fabric source
// names none (Azure, Google Cloud), taken from sysfs by the cloud's rules.
// Pure: no Slurm, no hwloc; the SPANK plugin may link it.
#pragma once

#include <iosfwd>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "node/sysfs.hpp"

namespace atl {

// One variable a cloud's stack sets. `value` is what it sets ("" when it
// depends on the machine, e.g. a topology file per instance type); `where`
// names the stack's file or code; `types` the machine types it applies to
// (empty: every machine of the profile).
struct CloudVar {
    std::string name, value, where;
    std::vector<std::string> types;
};

// A cloud profile: aws, azure, gcp, oci, nebius.
struct CloudProfile {
    std::string name;
    std::string stack;              // "aws-ofi-nccl", "Azure HPC image (/etc/nccl.conf)", ...
    std::vector<CloudVar> vars;     // what the stack sets
};

// The table, in the order above.
const std::vector<CloudProfile> &cloud_profiles();
// nullptr when `name` is none of them.
const CloudProfile *cloud_profile(const std::string &name);

// Whether atoll must leave `var` alone on `profile` (for a machine of type
// `machine_type`, "" unknown: every variable the stack may set counts):
// the reason ("aws-ofi-nccl sets NCCL_PROTO (src/platform-aws.cpp)"), or ""
// when atoll may set it.
std::string cloud_refrains(const std::string &profile, const std::string &var, const std::string &machine_type = "");

// /etc/nccl.conf's variables as NCCL reads them (nccl_conf_lines(): the first
// line naming a variable wins; the values as NCCL 2.30 and later read them, a
// CR before the newline dropped; `cr` gets the names whose value ended in one,
// which earlier releases keep). A NUL byte and a line over 4095 bytes are
// read as NCCL reads them (a NUL ends the line, a long line comes in pieces).
std::map<std::string, std::string> parse_nccl_conf(std::istream &in, const std::string &source,
                                                   std::set<std::string> *cr = nullptr);

// The aws-ofi-nccl release named in the plugin library's bytes: the
// "aws-ofi-nccl X.Y.Z" string its configure puts in PACKAGE_STRING (logged as
// "NET/OFI Initializing aws-ofi-nccl 1.18.0-aws"), with a byte after its
// digits (the string's NUL), so that a cut string is not taken; "" when there
// is none.
std::string ofi_nccl_version_in(const std::string &bytes);
// -1, 0, 1 as a < b for dotted versions ("1.7.0" < "1.13.2"; a "-aws" tail ignored).
int compare_versions(const std::string &a, const std::string &b);
// The least aws-ofi-nccl release whose platform table knows an EC2 instance
// type (p5.48xlarge: 1.7.0), "" for a type it has no entry for.
std::string ofi_nccl_minimum(const std::string &instance_type);

// What a node shows of its cloud and its stack: files under `root` ("/" on
// the node itself), DMI under `sysfs_root` ("" is <root>/sys).
struct CloudNode {
    std::string sys_vendor, product_name, chassis_asset_tag;  // <sysfs_root>/class/dmi/id/*
    std::string machine_type;        // given, or the EC2 product name
    bool nccl_conf_present = false;  // <root>/etc/nccl.conf
    std::map<std::string, std::string> nccl_conf;
    std::set<std::string> nccl_conf_cr;  // its variables on CRLF lines (parse_nccl_conf)
    std::map<std::string, std::string> nccl_conf_before_2_30;  // the same as NCCL before 2.30 reads it (whole lines)
    std::string nccl_conf_problem;   // why it could not be read
    int topo_file_found = -1;        // its NCCL_TOPO_FILE exists under root: 1, 0, -1 none named
    std::string ofi_nccl_library;    // the aws-ofi-nccl plugin found (root-relative path), "" none
    std::string ofi_nccl_version;    // from its bytes, "" unknown
    std::string container_runtime;   // the first of enroot, apptainer, singularity or Slurm's oci.conf found (root-relative), "" none
    bool gib_env_script = false;     // /usr/local/gib/scripts/set_nccl_env.sh
    bool gib_plugin = false;         // /usr/local/gib/lib64/libnccl-net.so (or libnccl-net_internal.so)
    bool tcpxo_profile = false;      // /var/lib/tcpxo/lib64/nccl-env-profile.sh
    std::vector<std::string> azure_topo_files;  // /opt/microsoft/*-topo.xml, root-relative
};
CloudNode read_cloud_node(const std::string &root, const std::string &sysfs_root = "", const std::string &machine_type = "");
// cloud_refrains() on this node: Azure's image writes what it sets into
// /etc/nccl.conf, so where that file was read, a variable it does not set
// (or sets empty, which NCCL takes as unset) the image did not set, and
// one it sets is quoted as the file says it.
std::string cloud_refrains(const std::string &profile, const std::string &var, const std::string &machine_type,
                           const CloudNode &node);
// PATH as seen from inside ROOT (an image or a test tree): each symbolic link
// on the way followed inside ROOT, never above it; ROOT empty or "/": PATH.
std::string path_in_root(const std::string &root, const std::string &path);

// The cloud the DMI strings name: aws ("Amazon EC2"), azure (Hyper-V's
// "Microsoft Corporation" with Azure's chassis asset tag), gcp ("Google
// Compute Engine"), oci ("OracleCloud.com" asset tag); "" otherwise.
std::string cloud_of(const CloudNode &n);

// GCP machine families by their network stack: "gib" (a3-ultragpu,
// a4-highgpu, a4x-highgpu: RoCE mlx5 NICs and the gIB plugin), "tcpxo"
// (a3-megagpu), "tcpx" (a3-highgpu), "" other or unknown. Accepts the
// metadata server's "projects/N/machineTypes/a3-ultragpu-8g" form too.
std::string gcp_network_stack(const std::string &machine_type);

// One finding about a node's cloud profile, for `atoll-topo health`.
struct CloudFinding {
    std::string check;      // cloud-profile
    enum Level { Ok, Warning, Error, Skipped } level = Ok;
    std::string message;
};
// The expected profile of `profile` on this node: the Azure image's
// /etc/nccl.conf NCCL_TOPO_FILE (naming a file that exists) on ND v2/v4/v5,
// the gIB profile on GCP's gIB machine types (and TCPXO on A3 Mega), an
// aws-ofi-nccl at least as new as the instance type needs, OCI's nccl.conf
// RoCE settings on its RoCE GPU shapes. `ports` are the node's RDMA ports.
std::vector<CloudFinding> check_cloud_profile(const std::string &profile, const CloudNode &node,
                                              const std::vector<NodePort> &ports);

// The compute adapters of a node by the profile's rules, when the fabric
// source names none: azure, the InfiniBand ports and never the
// accelerated-networking device (mlx5_an*, Ethernet); gcp on a gIB machine,
// the RoCE mlx5 ports (gVNIC has no RDMA device). Only ACTIVE ports. An empty
// `ports` and a `why` when unsure (no such port, a name that contradicts its
// link layer, fewer NICs than the machine type has).
struct CloudAdapters {
    std::vector<std::pair<std::string, int>> ports;  // hca, port
    std::string why;                                 // the rule applied, or why none
    std::vector<std::string> left_out;               // "mlx5_an0 port 1: accelerated networking (Ethernet)"
};
CloudAdapters cloud_adapters(const std::string &profile, const std::vector<NodePort> &ports,
                             const std::string &machine_type = "");
// Why port `p` is no compute adapter by the profile's rule (azure: the
// accelerated-networking device or not InfiniBand; gcp: not a RoCE mlx5
// NIC); empty when it may be one. Its state is not judged here.
std::string cloud_non_compute(const std::string &profile, const NodePort &p);

}  // namespace atl
