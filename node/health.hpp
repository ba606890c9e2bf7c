// `atoll-topo health`: a node's RoCE and InfiniBand ports against the site's
// lossless-fabric policy. The facts of each port (sysfs, the saved text of
// `mlnx_qos -i IF` and `ethtool -S IF`, two reads of the counters) are a plain
// value; the checks are free functions over it, one finding per check and
// port, so that the text report, the exit status and the node_exporter
// textfile all come from the same list.
#pragma once

#include <array>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "node/ethtool.hpp"
#include "node/imex.hpp"
#include "node/qos.hpp"
#include "node/sysfs.hpp"

namespace atl {

// The site's policy: "KEY=VALUE" lines in a file, or --KEY VALUE flags (the
// same words). Unset numbers are -1: that check then takes the node's own
// value (the tc file's class, the priority the class maps to) or is skipped.
struct HealthPolicy {
    int roce_tc = -1;             // roce-tc: the traffic class byte NCCL_IB_TC carries (106)
    int pfc_priority = -1;        // pfc-priority: the lossless priority (3)
    std::string trust;            // trust: dscp or pcp; "" unset, checked as dscp (want_trust())
    bool qos = true;              // qos: mlnx_qos (read it; a RoCE port it says nothing for fails) or skip
    int mtu = -1;                 // mtu: the RoCE netdev's MTU (9000)
    int rdma_mtu = -1;            // rdma-mtu: the least active RDMA MTU (4096)
    double rate = 0;              // rate: the least port rate in Gb/s (400)
    bool ecn = true;              // ecn: yes or no
    double max_error_rate = 0;    // max-error-rate: symbol/receive errors per second still only a warning
    std::string hca;              // hca: the adapters to check ('mlx5_*,!mlx5_8'); empty is all
    int gid_index = -1;           // gid-index: the plugstack's gid_index=, the GID jobs are given; -1 none
    int ports = -1;               // ports: the least ACTIVE RDMA ports the node has (32 on a p5.48xlarge); -1 none

    // Not the site's words but this node's NCCL configuration, which every
    // job's NCCL reads and the plugin leaves alone (<root>/etc/nccl.conf, a
    // cloud's profile), and the file, for messages. Set by `health` from
    // the node. Each value NCCL may take from it: where NCCL releases read
    // the file or a value differently (a line over 4095 bytes before and
    // from 2.30, -1 before and from 2.27), every reading is checked.
    struct NcclValue {
        int value = 0;
        std::string from;  // "NCCL_IB_SL in FILE", "NCCL's default: FILE sets no NCCL_IB_SL", ...
    };
    std::vector<NcclValue> nccl_tc;  // the classes its NCCL_IB_TC gives (empty: it sets none)
    std::vector<NcclValue> nccl_sl;  // the SLs NCCL sends (empty: NCCL's default 0)
    bool nccl_unknown = false;       // what the file sets cannot be told (a FIFO, over 1 MiB)
    int nccl_gid_index = -1;         // its NCCL_IB_GID_INDEX, -1 none
    std::string nccl_gid_chooser;    // "NCCL_IB_ADDR_RANGE" (or _FAMILY, ROCE_VERSION_NUM) it sets: NCCL's GID by it
    std::string nccl_conf;

    bool operator==(const HealthPolicy &o) const
    {
        return roce_tc == o.roce_tc && pfc_priority == o.pfc_priority && trust == o.trust && mtu == o.mtu &&
               rdma_mtu == o.rdma_mtu && rate == o.rate && ecn == o.ecn && max_error_rate == o.max_error_rate &&
               hca == o.hca && qos == o.qos && gid_index == o.gid_index && ports == o.ports;
    }
    std::string want_trust() const { return trust.empty() ? "dscp" : trust; }
    // The policy asks for a lossless class (pfc-priority, trust or roce-tc)
    // and the site has mlnx_qos: a RoCE port whose trust, DSCP map or PFC
    // cannot be read fails.
    bool qos_required() const { return qos && (pfc_priority >= 0 || !trust.empty() || roce_tc >= 0); }
};

// The policy's words, in the order the man page lists them.
const std::vector<std::string> &health_policy_keys();
// One KEY=VALUE; std::invalid_argument "what was found, what was expected".
void set_health_policy(HealthPolicy &p, const std::string &key, const std::string &value);
// A policy file over `base`: "KEY=VALUE" lines, '#' comments, blank lines;
// InputError "FILE:LINE: ..." on an unknown key or a bad value.
HealthPolicy parse_health_policy(std::istream &in, const std::string &source, HealthPolicy base = HealthPolicy(),
                                 std::vector<std::string> *warnings = nullptr);

// netdev_vlan(): tagged 1 (vlan: the VLAN device), 0 not, -1 unknown
// (unread: the netdev whose uevent could not be read)
struct NetdevTag {
    int tagged = -1;
    std::string vlan, unread;
};

// What is known of one port.
struct PortFacts {
    NodePort port;
    std::string netdev;                  // the RoCE netdev the QoS is read on ("" for InfiniBand)
    std::string bond;                    // a RoCE LAG member: the bond (port.netdevs[0]) it belongs to, else ""
    int netdev_mtu = -1;                 // /sys/class/net/IF/mtu
    std::string operstate;               // /sys/class/net/IF/operstate (a LAG member's is checked)
    std::string mii_status;              // /sys/class/net/IF/bonding_slave/mii_status (a LAG member)
    std::string slave_state;             // .../bonding_slave/state: active or backup
    std::string bond_mode;               // a member's bond's /sys/class/net/BOND/bonding/mode ("802.3ad 4")
    std::string trust_sysfs;             // /sys/class/net/IF/qos/trust (MLNX_OFED's mlx5)
    std::optional<MlnxQos> qos;          // `mlnx_qos -i IF`
    std::string qos_missing;             // why there is no `qos`: "not installed", "exit 1", "timed out after 10 s"
    // each netdev of the port's GIDs: whether its RoCE frames carry an
    // 802.1Q tag, so a PCP (netdev_vlan())
    std::map<std::string, NetdevTag> gid_vlan;
    bool vf = false;                     // an SR-IOV VF (device/physfn): the e-switch may tag its frames (VST), unseen here
    std::array<int, 8> ecn_np{};         // /sys/class/net/IF/ecn/roce_np/enable/N, -1 unknown
    std::array<int, 8> ecn_rp{};         // .../roce_rp/enable/N
    // two reads of the counters: "counters/symbol_error", "hw_counters/out_of_sequence",
    // "ethtool/rx_prio3_pause"; empty `after` when there was one read
    std::map<std::string, std::uint64_t> before, after;

    PortFacts()
    {
        ecn_np.fill(-1);
        ecn_rp.fill(-1);
    }
};

// Whether a RoCE GID's netdev sends 802.1Q-tagged frames, as the kernel
// gives the GID its VLAN: the netdev's sysfs uevent says DEVTYPE=vlan, or
// that of a device directly below it (lower_*: a macvlan over a VLAN), no
// deeper.
NetdevTag netdev_vlan(const std::string &sysfs_root, const std::string &netdev);
// What sysfs says of the port's netdev (MTU, trust, ECN); the counters are
// read with read_port_counters().
void read_netdev_facts(const std::string &sysfs_root, PortFacts &f);
// The facts of a port: its own (netdev the first of port.netdevs on RoCE),
// then on a RoCE LAG (port.lower not empty) one per bond member, each with
// its own netdev facts and `bond` set. The bond's QoS, ECN and ethtool
// counters are its members': mlnx_qos -i bond0 fails, bond0 has no ecn.
std::vector<PortFacts> port_facts(const std::string &sysfs_root, const NodePort &port);
// The counters of ports/N/counters and ports/N/hw_counters that the checks
// and the metrics use, as "counters/NAME" and "hw_counters/NAME".
std::map<std::string, std::uint64_t> read_port_counters(const std::string &sysfs_root, const NodePort &p);
// The ethtool counters the checks and metrics use, as "ethtool/NAME": the
// per-priority pause frames, the global pause frames and the pause-storm events.
void add_ethtool_counters(std::map<std::string, std::uint64_t> &into, const EthtoolStats &s);

// The active RDMA MTU of a RoCE port whose netdev has MTU `mtu`: the IB MTU
// the kernel derives (include/rdma/ib_addr.h, iboe_get_mtu(): 96 header bytes
// off, then the largest of 4096, 2048, 1024, 512, 256 that fits); 0 below 352.
int roce_active_mtu(int netdev_mtu);
// "400 Gb/sec (4X NDR)" -> 400; 0 when it cannot be read
double port_rate_gbps(const std::string &rate);

enum class HealthStatus : std::uint8_t { Ok, Warning, Error, Skipped };
const char *to_string(HealthStatus s);   // OK, WARNING, ERROR, SKIPPED

struct HealthFinding {
    std::string check;          // link, rate, class, trust, dscp2prio, pfc, ecn, mtu, rdma-mtu, gid, errors, pause-storm, retransmits
    HealthStatus status = HealthStatus::Ok;
    std::string hca;
    int port = 0;
    std::string netdev;
    std::string message;

    std::string subject() const;  // "mlx5_0 port 1 (eth4)"
};

// The policy's hca= names (no pattern, no '!') that are no adapter of
// `ports`: an HCA off the PCI bus, without its driver, or renamed; one
// `hca` error each (the checks would pass on the others). sysfs_root names
// where they were sought.
std::vector<HealthFinding> missing_hcas(const HealthPolicy &policy, const std::vector<NodePort> &ports,
                                        const std::string &sysfs_root);

// The checks and what each looks at, for the man page and the metrics' HELP.
const std::vector<std::pair<std::string, std::string>> &health_checks();

// Every check on every port: one finding per check and port (Ok when it
// passed), `seconds` apart the two counter reads (0: one read, no rates).
// A RoCE LAG's bond entry has the port checks (link, rate, class, gid, the
// bond's mtu and rdma-mtu, errors, retransmits); each member entry has the
// netdev checks (trust, dscp2prio, pfc, ecn, mtu, pause-storm), so every
// member must pass.
std::vector<HealthFinding> check_health(const std::vector<PortFacts> &ports, const HealthPolicy &policy, double seconds);

// The node's IMEX channels for `uid` (atoll-topo health --imex): a finding
// of the node, check "imex": OK with a channel it may open, else WARNING
// that multi-node NVLink cannot work here.
HealthFinding imex_health(const ImexChannels &c, uid_t uid);

// The report: one line per ERROR, then per WARNING ("ERROR: CHECK: SUBJECT:
// MESSAGE"; with `verbose` also OK and SKIPPED), then one summary line.
void write_health_report(std::ostream &o, const std::vector<HealthFinding> &f, std::size_t ports, bool verbose);
// A node_exporter textfile: one gauge per check (atoll_health_CHECK_ok, 1
// passed or warned, 0 failed, per port), the counter rates, the totals.
void write_health_metrics(std::ostream &o, const std::vector<HealthFinding> &f, const std::vector<PortFacts> &ports,
                          double seconds);
// The textfile of a run that could not check the node (an input error, a
// usage error): atoll_health_up 0 and nothing else, so the last run's gauges
// do not stay on as if they were read now.
void write_health_down(std::ostream &o);

}  // namespace atl
