// What a node says of itself in sysfs and procfs, without hwloc (the SPANK
// plugin reads this in every step): its RDMA ports (link layer, state, the
// netdevs behind a RoCE port, the first RoCE v2 GID, the configured traffic
// class) and its NVIDIA GPUs by device minor. Roots are parameters, so that a
// test cluster on one host can play many nodes.
#pragma once

#include <cstdint>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace atl {

// One entry of a RoCE port's GID table, as sysfs has it: gids/N,
// gid_attrs/types/N ("IB/RoCE v1", "RoCE v2"), gid_attrs/ndevs/N.
struct GidEntry {
    int index = 0;
    std::string gid;            // "0000:0000:0000:0000:0000:ffff:c0a8:0a05"
    int version = 0;            // 1 (IB/RoCE v1), 2 (RoCE v2), 0 unknown
    std::string ndev;           // the netdev it belongs to

    bool ipv4() const;          // IPv4-mapped (::ffff:a.b.c.d), as NCCL's getGidAddrFamily
    bool zero() const;          // no address (an unused slot)
    bool link_local() const;    // fe80::/64 prefix (NCCL's linkLocalGid)
    // an address routers forward: set, not IPv6 link-local (fe80::/10, RFC
    // 4291) or loopback, not IPv4 link-local (169.254/16, RFC 3927), loopback
    // (127/8) or 0.0.0.0
    bool routable() const;
};

// The names under <sysfs_root>/class/net (the node's interfaces); empty when
// it cannot be listed.
std::vector<std::string> node_netdevs(const std::string &sysfs_root);

struct NodePort {
    std::string hca;            // mlx5_0
    int port = 0;
    std::string link_layer;     // InfiniBand, Ethernet
    std::string state;          // "4: ACTIVE"
    std::string rate;           // "200 Gb/sec (4X HDR)"
    std::vector<std::string> netdevs;   // from the GIDs' ndevs, or device/net
    std::vector<std::string> own_net;   // device/net: the netdevs of the device's own PCI function
    std::string pci;                    // the PCI function its device link resolves to ("0000:3b:00.0"); "" none or not one
    bool soft = false;                  // a software device (rxe, siw): under devices/virtual, or an rxe 'parent' file
    std::string hca_type;               // <hca>/hca_type, the adapter's model ("MT4129" a ConnectX-7); "" none
    std::uint64_t node_guid = 0;        // <hca>/node_guid ("9803:9b03:0000:0000"); 0 none or unreadable
    bool node_guid_bad = false;         // node_guid read, but all zero or not the kernel's format (no adapter the fabric saw)
    std::vector<std::string> lower;     // a bond's members (class/net/<netdev>/bonding/slaves, lower_*)
    std::vector<std::string> stacked;   // netdevs of it that are VLAN, macvlan or ipvlan devices (uevent DEVTYPE):
                                        // the device below each is in netdevs too, after the GIDs' own
    std::vector<GidEntry> gids;         // Ethernet: the GID table's entries with an address, by index
    int gid_table_len = 0;              // how many slots the table has
    std::vector<std::string> gid_unread;  // "gids/N holds 'X'": a slot not as the kernel writes a GID (first few)
    int roce_v2_gid_index = -1; // Ethernet: the routable RoCE v2 GID atoll takes (routable_gid())
    std::string roce_v2_gid;    // its address
    int traffic_class = -1;     // <hca>/tc/<port>/traffic_class "tclass=N"; -1 when none is set
    std::string traffic_class_bad;  // that file's text when it is not what the driver writes (class unknown)
    // an e-switch representor port (switchdev mode: mlx5_ib gives each VF's,
    // SF's or host PF's representor a port of the uplink's device): its
    // GIDs' netdev and that netdev's phys_port_name ("eth5 (pf0vf1)"); ""
    // for a network port (the uplink's is "p0")
    std::string representor;

    // the kernel's "4: ACTIVE" (IBV_PORT_ACTIVE), the one state NCCL and UCX
    // open a port in; "5: ACTIVE_DEFER" is not it
    bool active() const;
    // a state the kernel writes other than ACTIVE ("1: DOWN", "5: ACTIVE_DEFER"):
    // closed now, though NCCL and UCX open it should it come up first. A
    // state file unread or in no form the kernel writes is not known to be
    // closed.
    bool known_inactive() const;
    // the state file's text without its trailing blanks
    std::string state_text() const;
};
// " (gids/N holds 'X', ...: not a GID as the kernel writes one, ...)" for a
// port's unreadable GID slots, "" when none: for a message that would
// otherwise blame the network setup alone
std::string gid_unread_note(const NodePort &p);
// What NCCL (>= 2.21, ncclIbGetGidIndex in net_ib) takes on a RoCE port
// without NCCL_IB_GID_INDEX: index 0 first, then each later slot replaces it
// when its address family is the wanted one (AF_INET unless
// NCCL_IB_ADDR_FAMILY=AF_INET6) and the current one's is not, or, within the
// family, when it is a valid (set, not link-local) GID of the wanted RoCE
// version and the current one is of another version or not valid.
int nccl_gid_index(const NodePort &p, bool want_ipv6 = false, int roce_version = 2);
// What UCX takes (uct_ib_device_select_gid): the first entry, in table order,
// of the first class that has one: RoCE v2 IPv4, v2 IPv6 not link-local, v2
// IPv6 link-local, then the same for v1; entries whose interface ID is zero
// are skipped. -1 when there is none (UCX then takes index 0). UCX before
// 1.21 (`before_1_21`, openucx/ucx#10939) has no link-local classes: v2
// IPv4, v2 IPv6 (fe80 too, the first in the table), v1 IPv4, v1 IPv6.
int ucx_gid_index(const NodePort &p, bool before_1_21 = false);
// The GIDs a routed RoCE fabric can carry: RoCE v2 and routable(), IPv4
// ones first (then IPv6), in table order.
std::vector<const GidEntry *> routable_gids(const NodePort &p);

// A small file read whole, at most `max` bytes, never blocking: a FIFO or a
// device is not read. nullopt when it cannot be opened or is no regular file.
std::optional<std::string> read_small_file(const std::string &path, std::size_t max);
// A netdev's sysfs uevent text (nullopt: unread) has the line DEVTYPE=vlan:
// the kernel's 802.1Q device
bool uevent_vlan(const std::optional<std::string> &uevent);

// A name that is one entry of a sysfs directory (a netdev, a device): not
// empty, no '/', not "." or ".." (a name read from a file must not lead
// elsewhere)
bool netdev_name_ok(const std::string &n);
// A phys_port_name devlink gives a representor (net/devlink/port.c,
// __devlink_port_phys_port_name_get): [c<controller>]pf<N>, with vf<N> or
// sf<N> after it; not a physical port's p<N> or p<N>s<M>
bool representor_port_name(const std::string &name);
// <sysfs_root>/class/infiniband/*/ports/*; empty when there is none.
// `unreadable`, when given, gets the entries whose ports cannot be listed (a
// symlink loop, a permission): a device that is there, not known.
std::vector<NodePort> node_ports(const std::string &sysfs_root, std::vector<std::string> *unreadable = nullptr);

// NVIDIA GPUs from <proc_root>/driver/nvidia/gpus/<PCI bus id>/information:
// device minor -> PCI bus id ("0000:07:00.0", lower case). Empty without the
// driver.
// `models`, when given, gets their "Model:" lines (device minor -> model,
// blanks trimmed).
std::map<int, std::string> nvidia_gpus(const std::string &proc_root, std::map<int, std::string> *models = nullptr);

}  // namespace atl
