// What a node says of itself in sysfs and procfs, without hwloc (the SPANK
// plugin reads this in every step): its RDMA ports (link layer, state, the
// netdevs behind a RoCE port, the first RoCE v2 GID, the configured traffic
// class) and its NVIDIA GPUs by device minor. Roots are parameters, so that a
// test cluster on one host can play many nodes.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace atl {

struct NodePort {
    std::string hca;            // mlx5_0
    int port = 0;
    std::string link_layer;     // InfiniBand, Ethernet
    std::string state;          // "4: ACTIVE"
    std::string rate;           // "200 Gb/sec (4X HDR)"
    std::vector<std::string> netdevs;   // from the GIDs' ndevs, or device/net
    int roce_v2_gid_index = -1; // Ethernet: the first RoCE v2 GID with an address
    std::string roce_v2_gid;    // its address
    int traffic_class = -1;     // <hca>/tc/<port>/traffic_class "tclass=N"; -1 when none is set

    bool active() const { return state.find("ACTIVE") != std::string::npos; }
};
// A small file read whole, at most `max` bytes, never blocking: a FIFO or a
// device is not read. nullopt when it cannot be opened or is no regular file.
std::optional<std::string> read_small_file(const std::string &path, std::size_t max);

// <sysfs_root>/class/infiniband/*/ports/*; empty when there is none.
std::vector<NodePort> node_ports(const std::string &sysfs_root);

// NVIDIA GPUs from <proc_root>/driver/nvidia/gpus/<PCI bus id>/information:
// device minor -> PCI bus id ("0000:07:00.0", lower case). Empty without the
// driver.
std::map<int, std::string> nvidia_gpus(const std::string &proc_root);

}  // namespace atl
