// Synthetic fabrics for tests and benchmarks, with faults on request, and the
// ibnetdiscover text writer (which is also what ibsim reads as a net file).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "topology/fabric.hpp"

namespace atl {

struct GenSpec {
    int pods = 1;              // > 1: a 3-level fat tree, core switches above the pods
    int groups_per_pod = 4;    // rail groups (scalable units) per pod
    int rails = 1;             // leaves per group; > 1: rail-optimised, each host has `rails` HCAs
    int hosts_per_group = 8;   // hosts per group (each with one HCA per rail)
    int spines_per_pod = 2;
    int cores = 2;             // used when pods > 1
    double oversub = 1.0;      // leaf host ports : leaf uplinks
    Speed speed = Speed::HDR;
    bool sharp = false;        // an aggregation node on every switch
    std::string host_prefix = "node";
    int host_digits = 3;
    // > 0: consecutive hosts in NVLink domains of this many (an NVL72 rack:
    // 18 trays), in Fabric::domains; the last one smaller when it does not divide
    int domain_size = 0;

    // faults
    struct Swap { std::string host; int rail_a, rail_b; };
    struct HostRail { std::string host; int rail; };
    std::vector<Swap> swap_rails;            // two cables of one host exchanged
    std::vector<HostRail> degrade;           // that host link runs at 1x
    std::vector<std::string> drop_leaves;    // leaf switch absent (and the HCAs only it reached)
    std::vector<HostRail> default_desc;      // adapter left with its firmware description
};

// Throws std::invalid_argument on an impossible spec.
Fabric generate(const GenSpec &spec);

// Fabric::domains as pdsh output of `nvidia-smi --query-gpu=fabric.clusterUuid,
// fabric.cliqueId --format=csv,noheader` on every host: `gpus` rows each.
void write_nvidia_smi_pdsh(std::ostream &out, const Fabric &f, int gpus);

// ibnetdiscover's plain topology text; degraded widths carry ibsim's "w=" option.
void write_ibnetdiscover(std::ostream &out, const Fabric &f);

}  // namespace atl
