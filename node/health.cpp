#include "node/health.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <dirent.h>
#include <sys/stat.h>
#include <iomanip>
#include <istream>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "topology/fabric.hpp"

namespace atl {
namespace {

std::string first_line(const std::string &path)
{
    std::string s = read_small_file(path, 4096).value_or("");
    s = s.substr(0, s.find('\n'));
    while (!s.empty() && (s.back() == ' ' || s.back() == '\r'))
        s.pop_back();
    return s;
}

bool read_u64(const std::string &path, std::uint64_t &v)
{
    std::string s = first_line(path);
    if (s.empty() || s[0] < '0' || s[0] > '9')
        return false;
    char *end = nullptr;
    errno = 0;
    unsigned long long x = std::strtoull(s.c_str(), &end, 10);
    if (*end || errno)
        return false;
    v = x;
    return true;
}

long number(const std::string &key, const std::string &v, long lo, long hi)
{
    char *end = nullptr;
    errno = 0;
    long x = std::strtol(v.c_str(), &end, 10);
    if (v.empty() || *end || errno || x < lo || x > hi)
        throw std::invalid_argument(key + "=" + v + ": expected a whole number from " + std::to_string(lo) + " to " +
                                    std::to_string(hi));
    return x;
}

double decimal(const std::string &key, const std::string &v, double hi)
{
    char *end = nullptr;
    errno = 0;
    double x = std::strtod(v.c_str(), &end);
    if (v.empty() || *end || errno || !(x >= 0 && x <= hi))
        throw std::invalid_argument(key + "=" + v + ": expected a number from 0 to " + std::to_string(static_cast<long>(hi)));
    return x;
}

std::string prio_list(const std::vector<int> &v)
{
    std::string s;
    for (std::size_t i = 0; i < v.size(); ++i)
        s += (i ? "," : "") + std::to_string(v[i]);
    return s;
}

std::string num(double x)
{
    std::ostringstream o;
    o << std::setprecision(6) << x;
    return o.str();
}

// One port's checks, each adding exactly one finding.
class PortChecks {
public:
    PortChecks(const PortFacts &f, const HealthPolicy &p, std::vector<HealthFinding> &out) : f_(f), p_(p), out_(out) {}

    void add(const std::string &check, HealthStatus s, const std::string &msg)
    {
        HealthFinding h;
        h.check = check;
        h.status = s;
        h.hca = f_.port.hca;
        h.port = f_.port.port;
        h.netdev = f_.netdev;
        h.message = msg;
        out_.push_back(h);
    }

    // Several readings of one check (nccl.conf as two NCCL releases read
    // it): one finding of it per port, the worst
    void keep_worst(std::size_t from)
    {
        if (out_.size() <= from + 1)
            return;
        auto rank = [](HealthStatus s) {
            return s == HealthStatus::Error ? 0 : s == HealthStatus::Warning ? 1 : s == HealthStatus::Ok ? 2 : 3;
        };
        std::size_t w = from;
        for (std::size_t i = from + 1; i < out_.size(); ++i)
            if (rank(out_[i].status) < rank(out_[w].status))
                w = i;
        HealthFinding keep = out_[w];
        out_.resize(from);
        out_.push_back(std::move(keep));
    }

    bool roce() const { return f_.port.link_layer == "Ethernet"; }
    bool member() const { return !f_.bond.empty(); }                     // a bond member's netdev checks
    bool bond() const { return !member() && !f_.port.lower.empty(); }   // the bond: its members do the netdev checks

    void link()
    {
        if (f_.port.active())
            add("link", HealthStatus::Ok, f_.port.state);
        else
            add("link", HealthStatus::Error,
                "state " +
                    (f_.port.state.empty()
                         ? "unknown (ports/" + std::to_string(f_.port.port) + "/state empty, unreadable or not a regular file)"
                         : f_.port.state) +
                    ", expected ACTIVE: NCCL skips the port while it stays so, and the GPUs nearest it cross "
                    "the node to another rail (the plugin keeps it in NCCL_IB_HCA: the list stays the other nodes')");
    }

    // a RoCE LAG member: down (the bonding driver's mii_status, else the
    // netdev's operstate), the rail runs on the other member at a fraction
    // of its bandwidth while the port above stays ACTIVE
    //
    // The bonding driver's words (Documentation/networking/bonding.rst):
    // mii_status up, down, "going down" (downdelay) or "going back"
    // (updelay), a passing state; state active or backup. In active-backup
    // mode a backup member carries nothing: down, it costs redundancy, not
    // bandwidth. In 802.3ad a member up but "backup" is outside the active
    // aggregator (LACP did not take it: a switch or MLAG fault), and the
    // rail runs on the others. operstate "unknown" is up (operstates.rst).
    void member_link()
    {
        const std::string &st = !f_.mii_status.empty() ? f_.mii_status : f_.operstate;
        const char *file = !f_.mii_status.empty() ? "bonding_slave/mii_status" : "operstate";
        const std::string member = ", a member of " + escaped(f_.bond, 40) +
                                   (f_.bond_mode.empty() ? std::string() : " (" + escaped(f_.bond_mode, 40) + ")");
        const bool active_backup = f_.bond_mode.rfind("active-backup", 0) == 0;
        const bool lacp = f_.bond_mode.rfind("802.3ad", 0) == 0;
        if (st.empty())
            add("link", HealthStatus::Skipped, "no operstate or bonding_slave/mii_status to read");
        else if (st == "up" || (st == "unknown" && f_.mii_status.empty())) {
            if (lacp && f_.slave_state == "backup")
                add("link", HealthStatus::Error,
                    std::string(file) + " up but bonding_slave/state backup" + member +
                        ": LACP left it out of the active aggregator (a switch or MLAG fault), and the rail runs on the "
                        "others at a fraction of its bandwidth");
            else
                add("link", HealthStatus::Ok, std::string(file) + " " + escaped(st, 40) + member);
        } else if (st == "going down" || st == "going back")
            add("link", HealthStatus::Warning,
                std::string(file) + " " + st + member + ": the link is changing state (the bond's downdelay or updelay)");
        else if (active_backup && f_.slave_state != "active")
            add("link", HealthStatus::Warning,
                std::string(file) + " " + escaped(st, 40) + member +
                    ": a backup member is down; traffic runs on the active one at full rate, without redundancy");
        else
            add("link", HealthStatus::Error,
                std::string(file) + " " + escaped(st, 40) + ", expected up" + member + ": the rail runs on the other "
                    "members at a fraction of its bandwidth (the port stays ACTIVE)");
    }

    // the class NCCL_IB_TC carries: the policy's, else the port's own
    int traffic_class() const { return p_.roce_tc >= 0 ? p_.roce_tc : f_.port.traffic_class; }

    void klass()
    {
        int tc = f_.port.traffic_class;
        if (p_.roce_tc < 0 && tc < 0)
            add("class", HealthStatus::Warning,
                "no roce-tc in the policy and no class in the port's tc file: RDMA leaves on class 0 (DSCP 0, "
                "priority 0), the lossy queue, unless the job sets NCCL_IB_TC");
        else if ((traffic_class() & 3) == 3)
            add("class", HealthStatus::Error,
                "class " + std::to_string(traffic_class()) + " has both ECN bits set (CE): the plugin sets no NCCL_IB_TC");
        else if (p_.roce_tc >= 0 && tc < 0)
            add("class", HealthStatus::Error,
                "no class in the port's tc file (tc/" + std::to_string(f_.port.port) + "/traffic_class), the policy " +
                    std::to_string(p_.roce_tc) + ": RDMA-CM and verbs users leave on class 0, the lossy queue, and so "
                    "does NCCL unless NCCL_IB_TC is set (the plugin sets it only from roce_tc= or this file)");
        else if (p_.roce_tc >= 0 && tc != p_.roce_tc)
            add("class", HealthStatus::Error,
                "the port's tc file says class " + std::to_string(tc) + ", the policy " + std::to_string(p_.roce_tc) +
                    ": RDMA-CM traffic leaves on " + std::to_string(tc) + " (DSCP " + std::to_string(tc >> 2) +
                    "), not on the lossless class");
        else
            add("class", HealthStatus::Ok, "class " + std::to_string(traffic_class()));
    }

    std::string trust() const
    {
        if (f_.qos && !f_.qos->trust.empty())
            return f_.qos->trust;
        return f_.trust_sysfs;
    }

    // mlnx_qos text without a trust line (an old mlnx-tools, a cut copy) and
    // no sysfs trust: what the NIC classifies by is not known
    bool trust_unknown() const { return f_.qos && trust().empty(); }
    std::string trust_unknown_why() const
    {
        return "the trust state is unknown: found no 'Priority trust state:' line in " + f_.qos->source +
               " and no /sys/class/net/" + f_.netdev + "/qos/trust";
    }

    // A check that has no mlnx_qos text to read: an error when the policy
    // asks for a lossless class, so that NHC drains with the reason.
    void unverified(const std::string &check, const std::string &what, const std::string &also = "")
    {
        std::string why = "mlnx_qos gave nothing for " + f_.netdev + " (" +
                          (f_.qos_missing.empty() ? std::string("no text") : f_.qos_missing) + ")" + also;
        if (!p_.qos)
            add(check, HealthStatus::Skipped, "the policy says qos=skip: " + why);
        else if (f_.vf)  // (helper 74: a VF in a pod's namespace drained its node)
            add(check, HealthStatus::Skipped,
                why + ": an SR-IOV VF, whose trust, DSCP map and PFC are its PF's (the e-switch uplink): check the PF's port");
        else if (p_.qos_required())
            add(check, HealthStatus::Error,
                "cannot verify " + what + ": " + why +
                    ": the RoCE queue may be lossy; a site without mlnx_qos says qos=skip in the policy");
        else
            add(check, HealthStatus::Skipped, why + " and the policy sets no pfc-priority, trust or roce-tc");
    }

    void trust_check()
    {
        std::string t = trust();
        if (f_.qos && !f_.qos->trust.empty() && !f_.trust_sysfs.empty() && f_.qos->trust != f_.trust_sysfs)
            add("trust", HealthStatus::Error,
                "the mlnx_qos text (" + f_.qos->source + ") says trust " + f_.qos->trust + ", /sys/class/net/" +
                    f_.netdev + "/qos/trust says " + one_line(f_.trust_sysfs, 40) +
                    ": which the NIC classifies by cannot be told (a stale or another port's text?)");
        else if (trust_unknown())
            add("trust", HealthStatus::Error, trust_unknown_why() + ", expected trust " + p_.want_trust());
        else if (t.empty())
            unverified("trust", "the trust state", " and there is no /sys/class/net/" + f_.netdev + "/qos/trust");
        else if (t != p_.want_trust())
            add("trust", HealthStatus::Error,
                "trust " + t + ", the policy says " + p_.want_trust() +
                    (p_.want_trust() == "dscp"
                         ? ": the NIC classifies by the VLAN PCP, so RoCE v2 marked with a DSCP (class " +
                               (traffic_class() >= 0 ? std::to_string(traffic_class()) : std::string("?")) +
                               ") on an untagged port lands in priority 0, the lossy queue: drops under incast, "
                               "go-back-N retransmits, NCCL all-reduce throughput collapses"
                         : ": the NIC classifies by DSCP where the fabric marks the VLAN PCP: RoCE lands in the wrong queue"));
        else
            add("trust", HealthStatus::Ok, "trust " + t);
    }

    // The priority RoCE traffic gets: through dscp2prio under trust dscp
    // (under trust pcp, roce_priorities()); -1 unknown
    int mapped_priority() const
    {
        int tc = traffic_class();
        if (tc < 0 || !f_.qos || trust() != "dscp" || !f_.qos->has_dscp2prio)
            return -1;
        return f_.qos->dscp2prio[static_cast<std::size_t>(tc >> 2)];
    }

    // the SLs NCCL sends: nccl.conf's readings, else NCCL's default 0
    std::vector<HealthPolicy::NcclValue> sls() const
    {
        if (!p_.nccl_sl.empty())
            return p_.nccl_sl;
        return {{0, "NCCL's default: " + (p_.nccl_conf.empty() ? std::string("nccl.conf") : p_.nccl_conf) +
                        " sets no NCCL_IB_SL"}};
    }

    // The priority that must be lossless: the policy's, else where the class maps
    int roce_priority() const { return p_.pfc_priority >= 0 ? p_.pfc_priority : mapped_priority(); }

    void dscp2prio()
    {
        int tc = traffic_class();
        if (trust() == "pcp" || trust() == "none") {
            add("dscp2prio", HealthStatus::Skipped, "trust " + trust() + ": the DSCP map does not apply");
            return;
        }
        if (trust_unknown()) {
            add("dscp2prio", HealthStatus::Error, trust_unknown_why() + ": whether the DSCP map applies cannot be told");
            return;
        }
        if (tc < 0) {
            add("dscp2prio", HealthStatus::Skipped, "no class to map");
            return;
        }
        if (!f_.qos) {
            unverified("dscp2prio", "the DSCP map");
            return;
        }
        if (!f_.qos->has_dscp2prio) {
            add("dscp2prio", p_.qos_required() ? HealthStatus::Error : HealthStatus::Skipped,
                "trust dscp but no \"dscp2prio mapping:\" section in " + f_.qos->source +
                    ": where class " + std::to_string(tc) + " lands cannot be told");
            return;
        }
        int prio = mapped_priority();
        std::string path = "class " + std::to_string(tc) + " -> DSCP " + std::to_string(tc >> 2) + " -> ";
        if (prio < 0)
            add("dscp2prio", HealthStatus::Error,
                path + "no entry in the dscp2prio map: the NIC's default priority takes it, not the lossless one");
        else if (p_.pfc_priority >= 0 && prio != p_.pfc_priority)
            add("dscp2prio", HealthStatus::Error,
                path + "priority " + std::to_string(prio) + ", the policy's lossless priority is " +
                    std::to_string(p_.pfc_priority) + ": RoCE lands in a queue without PFC: drops under incast, NCCL "
                    "throughput collapses");
        else
            add("dscp2prio", HealthStatus::Ok, path + "priority " + std::to_string(prio));
    }

    // The class the node's nccl.conf makes every job's NCCL send, where it
    // is not the class checked above: it must land on the lossless
    // priority as well (an OCI profile's 41 on a port set up for 106 rode
    // priority 1, without PFC, while every check passed)
    void nccl_class()
    {
        const std::size_t from = out_.size();
        for (const HealthPolicy::NcclValue &v : p_.nccl_tc)
            if (v.value != traffic_class())
                nccl_class(v.value, v.from);
        keep_worst(from);
    }
    void nccl_class(int tc, const std::string &from)
    {
        const std::string what = "class " + std::to_string(tc) + " (" + from + ", what every job's NCCL sends)";
        if (p_.roce_tc >= 0) {
            add("nccl-class", HealthStatus::Error,
                what + ", the policy's class is " + std::to_string(p_.roce_tc) +
                    ": NCCL's RDMA leaves on DSCP " + std::to_string(tc >> 2) + ", not the lossless class");
            return;
        }
        if ((tc & 3) == 3) {
            add("nccl-class", HealthStatus::Error, what + " has both ECN bits set (CE): switches read every packet as congested");
            return;
        }
        if (trust() == "pcp" || trust() == "none") {
            add("nccl-class", HealthStatus::Skipped, what + ": trust " + trust() + ", the DSCP does not choose the queue");
            return;
        }
        if (trust_unknown()) {
            add("nccl-class", HealthStatus::Error, trust_unknown_why() + ": where " + what + " lands cannot be told");
            return;
        }
        if (!f_.qos) {
            unverified("nccl-class", "where " + what + " lands");
            return;
        }
        if (!f_.qos->has_dscp2prio) {
            add("nccl-class", HealthStatus::Error, "no \"dscp2prio mapping:\" section in " + f_.qos->source + ": where " +
                                                      what + " lands cannot be told");
            return;
        }
        const int prio = f_.qos->dscp2prio[static_cast<std::size_t>(tc >> 2)];
        const int lossless = roce_priority();
        const std::string path = what + " -> DSCP " + std::to_string(tc >> 2) + " -> ";
        if (prio < 0)
            add("nccl-class", HealthStatus::Error, path + "no entry in the dscp2prio map: not the lossless priority");
        else if (!f_.qos->pfc[static_cast<std::size_t>(prio)])
            add("nccl-class", HealthStatus::Error,
                path + "priority " + std::to_string(prio) + ", where PFC is off: NCCL's RDMA rides a lossy queue, drops "
                "under incast and its all-reduce throughput collapses");
        else if (lossless >= 0 && prio != lossless)
            add("nccl-class", HealthStatus::Error,
                path + "priority " + std::to_string(prio) + ", not " + std::to_string(lossless) + ", the RoCE priority");
        else
            add("nccl-class", HealthStatus::Ok, path + "priority " + std::to_string(prio) + ", lossless");
    }

    // Under trust pcp the queue is the VLAN PCP, and for a verbs QP over
    // RoCE mlx5 sends the address's SL as the PCP (mlx5_set_path:
    // eth_prio = sl & 7). NCCL's SL is NCCL_IB_SL, 0 when unset: a node
    // whose PFC is on priority 3 sent every job's NCCL on priority 0 while
    // trust, pfc and the class passed.
    void nccl_sl()
    {
        if (trust() != "pcp")
            return;
        if (p_.nccl_unknown) {
            add("nccl-sl", p_.qos_required() ? HealthStatus::Error : HealthStatus::Skipped,
                "what " + p_.nccl_conf + " makes NCCL_IB_SL cannot be told (see nccl-conf): the priority every job's "
                "NCCL sends on under trust pcp is not known");
            return;
        }
        if (!f_.qos) {
            unverified("nccl-sl", "where the SL every job's NCCL sends lands");
            return;
        }
        // the lossless priority: the policy's, else the one priority PFC is on
        int lossless = p_.pfc_priority;
        if (lossless < 0) {
            int on = 0;
            for (int i = 0; i < 8; ++i)
                if (f_.qos->pfc[static_cast<std::size_t>(i)]) {
                    lossless = i;
                    ++on;
                }
            if (on != 1)
                lossless = -1;
        }
        const std::size_t from = out_.size();
        for (const HealthPolicy::NcclValue &v : sls())
            nccl_sl(v.value, v.from, lossless);
        keep_worst(from);
    }
    void nccl_sl(int sl, const std::string &from, int lossless)
    {
        const int prio = sl & 7;
        const std::string fix = lossless >= 0 && prio != lossless
                                    ? ": set NCCL_IB_SL=" + std::to_string(lossless) + " in " + p_.nccl_conf +
                                          " (on its first NCCL_IB_SL line, the one NCCL takes)"
                                    : std::string();
        const std::string path = "SL " + std::to_string(sl) + " (" + from + ", what every job's NCCL sends) -> priority " +
                                 std::to_string(prio) + " (trust pcp: mlx5 sends SL & 7 as the PCP)";
        if (!f_.qos->pfc[static_cast<std::size_t>(prio)])
            add("nccl-sl", HealthStatus::Error,
                path + ", where PFC is off: NCCL's RDMA rides a lossy queue, drops under incast and its all-reduce "
                "throughput collapses" + fix);
        else if (p_.pfc_priority >= 0 && prio != p_.pfc_priority)
            add("nccl-sl", HealthStatus::Error,
                path + ", not " + std::to_string(p_.pfc_priority) + ", the policy's lossless priority" + fix);
        else
            add("nccl-sl", HealthStatus::Ok, path + ", lossless");
    }

    // the routable RoCE v2 GID at the site's gid_index= (policy gid-index),
    // nullptr when it sets none or that slot is not one
    const GidEntry *site_gid(const std::vector<const GidEntry *> &routable) const
    {
        if (p_.gid_index < 0)
            return nullptr;
        auto it = std::find_if(routable.begin(), routable.end(), [&](const GidEntry *e) { return e->index == p_.gid_index; });
        return it == routable.end() ? nullptr : *it;
    }

    // Under trust pcp the queue is the PCP of the frame's 802.1Q tag, and
    // mlx5 tags a RoCE frame only when the GID's netdev is a VLAN device
    // (the GID entry carries its VLAN): on an untagged netdev there is no
    // PCP, and the peer's NIC and a switch port trusting pcp queue the frame
    // as untagged traffic, priority 0. Lossless only where PFC is on 0.
    void vlan()
    {
        // the trust read, else the policy's (a site without mlnx_qos or
        // MLNX_OFED's qos/trust says trust=pcp)
        if ((trust().empty() ? p_.trust : trust()) != "pcp")
            return;
        // the GID a job's NCCL leaves on: the one the plugin sets (the
        // port's only routable RoCE v2 GID of its family), else the node's
        // nccl.conf's pinned one, else NCCL's own choice where it is
        // routable (where it is not, gid warns)
        std::vector<const GidEntry *> r = routable_gids(f_.port);
        std::vector<const GidEntry *> gids;
        // the site's gid_index= (policy gid-index): the plugin sets it where
        // it is routable, and no index of its own choosing in any case (a
        // VLAN GID pinned beside an untagged one was judged by the untagged)
        const GidEntry *site = site_gid(r);
        const bool plugin_sets = p_.gid_index < 0 && !r.empty() && !(r.size() > 1 && r[1]->ipv4() == r[0]->ipv4());
        const int pin = p_.nccl_gid_index;
        const int nccl = pin >= 0 ? pin : nccl_gid_index(f_.port);
        if (pin < 0 && !p_.nccl_gid_chooser.empty()) {
            // the plugin sets no index then, and NCCL picks by the address
            // range or family: not told here
            add("vlan", HealthStatus::Skipped,
                p_.nccl_conf + " sets " + p_.nccl_gid_chooser + ": NCCL chooses the GID by it (the plugin sets no index), "
                "which one is not told here");
            return;
        }
        if (site)
            gids.push_back(site);
        else if (plugin_sets)
            gids.push_back(r[0]);
        else
            for (const GidEntry &g : f_.port.gids)
                if (g.index == nccl && (pin >= 0 || std::find(r.begin(), r.end(), &g) != r.end()))
                    gids.push_back(&g);
        if (gids.empty()) {
            add("vlan", HealthStatus::Skipped, "no routable RoCE GID to check (see gid)");
            return;
        }
        // untagged frames ride priority 0 at the peer: lossless only where
        // PFC is on 0 (as mlnx_qos reads it; without it, the policy's)
        const bool known = f_.qos.has_value() || p_.pfc_priority >= 0;
        const bool zero_lossless = f_.qos ? f_.qos->pfc[0] : p_.pfc_priority == 0;
        const std::string where =
            f_.qos ? std::string("where PFC is off") : "not the policy's lossless priority " + std::to_string(p_.pfc_priority);
        const std::string over = escaped(member() ? f_.bond : f_.netdev, 40);
        const std::size_t from = out_.size();
        for (const GidEntry *g : gids) {
            const std::string nd = g->ndev.empty() ? std::string("?") : escaped(g->ndev, 40);
            const std::string what = "GID " + std::to_string(g->index) + " (" + g->gid + ") on " + nd;
            auto v = f_.gid_vlan.find(g->ndev);
            const NetdevTag t = v == f_.gid_vlan.end() ? NetdevTag() : v->second;
            if (t.tagged == 1)
                add("vlan", HealthStatus::Ok,
                    what + (t.vlan == g->ndev ? std::string(", a VLAN device") : ", over " + escaped(t.vlan, 40) + ", a VLAN device") +
                        ": its RoCE frames carry the PCP");
            else if (t.tagged < 0)
                add("vlan", HealthStatus::Skipped,
                    what + ":" +
                        (!t.unread.empty() && t.unread[0] == ' '
                             ? t.unread
                             : " no /sys/class/net/" + escaped(t.unread.empty() ? g->ndev : t.unread, 40) + "/uevent") +
                        ": whether a VLAN device tags its frames cannot be told");
            else if (f_.vf && !zero_lossless && known)
                add("vlan", HealthStatus::Warning,
                    what + ", no VLAN device, under trust pcp, on an SR-IOV VF: unless the e-switch tags it (VST: ip "
                    "link set PF vf N vlan V qos Q), its RoCE frames carry no PCP and ride priority 0 at the peer, " +
                        where);
            else if (zero_lossless)
                add("vlan", HealthStatus::Ok,
                    what + ", no VLAN device: its frames leave untagged and land in priority 0, which has PFC");
            else if (!known)
                unverified("vlan", "where " + what + "'s untagged frames land");
            else
                add("vlan", HealthStatus::Error,
                    what + ", no VLAN device (nor one directly below it), under trust pcp: RoCE frames leave with no "
                    "802.1Q tag, so no PCP; the peer's NIC and the switch queue them as untagged traffic, priority 0, " +
                        where + ": drops under incast, go-back-N retransmits, NCCL all-reduce throughput collapses. Put "
                        "the RoCE address on a VLAN device over " + over + ", or use trust dscp");
        }
        keep_worst(from);
    }

    // the priorities RoCE traffic may ride: the policy's; under trust pcp
    // each one NCCL's SL readings give (2.27's -1, a long line read two
    // ways); else the class's through dscp2prio; empty: none known
    std::vector<int> roce_priorities() const
    {
        if (p_.pfc_priority >= 0)
            return {p_.pfc_priority};
        std::vector<int> out;
        if (trust() == "pcp") {
            if (!p_.nccl_unknown)
                for (const HealthPolicy::NcclValue &v : sls())
                    if (std::find(out.begin(), out.end(), v.value & 7) == out.end())
                        out.push_back(v.value & 7);
        } else if (mapped_priority() >= 0) {
            out.push_back(mapped_priority());
        }
        return out;
    }

    // pfc and ecn at each priority RoCE may ride, one finding: the worst
    void at_each_priority(void (PortChecks::*check)(int))
    {
        const std::size_t from = out_.size();
        const std::vector<int> prios = roce_priorities();
        if (prios.empty())
            (this->*check)(-1);
        for (int prio : prios)
            (this->*check)(prio);
        keep_worst(from);
    }
    void pfc() { at_each_priority(&PortChecks::pfc); }
    void ecn() { at_each_priority(&PortChecks::ecn); }

    void pfc(int prio)
    {
        if (!f_.qos) {
            unverified("pfc", "PFC");
            return;
        }
        std::vector<int> on;
        for (int i = 0; i < 8; ++i)
            if (f_.qos->pfc[static_cast<std::size_t>(i)])
                on.push_back(i);
        if (prio < 0) {
            add("pfc", HealthStatus::Skipped, "no RoCE priority known (no pfc-priority, no class mapped through dscp2prio)");
            return;
        }
        bool here = f_.qos->pfc[static_cast<std::size_t>(prio)];
        std::vector<int> others;
        for (int i : on)
            if (i != prio)
                others.push_back(i);
        std::string drops = ": the RoCE queue is lossy, packets drop under incast, every drop costs a go-back-N "
                            "retransmit and NCCL all-reduce throughput collapses";
        if (!here && others.empty())
            add("pfc", HealthStatus::Error, "PFC is off on priority " + std::to_string(prio) + ", the RoCE priority" + drops);
        else if (!here)
            add("pfc", HealthStatus::Error,
                "PFC is on priority " + prio_list(others) + ", not on " + std::to_string(prio) + ", the RoCE priority" + drops);
        else if (on.size() == 8)
            add("pfc", HealthStatus::Error,
                "PFC is on every priority: no class is lossy, so pause spreads congestion to all traffic (TCP, storage) as "
                "global pause does, head-of-line blocks the links and risks a PFC deadlock");
        else if (!others.empty())
            // a warning: 802.1Qbb allows several lossless priorities, and
            // sites run a storage class beside RoCE's (helper 74: drained)
            add("pfc", HealthStatus::Warning,
                "PFC is on priority " + prio_list(others) + " as well as on " + std::to_string(prio) +
                    ": unless that is another lossless class the site runs (storage), pause on a lossy class spreads "
                    "congestion to traffic that should drop, head-of-line blocks the links and risks a PFC deadlock");
        else
            add("pfc", HealthStatus::Ok, "PFC on priority " + std::to_string(prio) + " only");
    }

    void ecn(int prio)
    {
        if (!p_.ecn) {
            add("ecn", HealthStatus::Skipped, "the policy says ecn=no");
            return;
        }
        if (prio < 0) {
            add("ecn", HealthStatus::Skipped, "no RoCE priority known");
            return;
        }
        // The notification point (CNPs sent on ECN-marked arrivals) is one
        // switch per port: any priority enabled enables it (NVIDIA's DCQCN
        // guide); the reaction point (rate cut on a CNP) is per priority.
        int np = -1;
        for (int v : f_.ecn_np)
            np = std::max(np, v);
        int rp = f_.ecn_rp[static_cast<std::size_t>(prio)];
        if (np < 0 && rp < 0) {
            add("ecn", HealthStatus::Skipped, "no /sys/class/net/" + f_.netdev + "/ecn (mlx5 under MLNX_OFED has it)");
            return;
        }
        if ((np < 0 || rp < 0) && np != 0 && rp != 0) {
            // one half read: what was not read is not reported as on
            add("ecn", HealthStatus::Warning,
                "ECN on priority " + std::to_string(prio) + " not verified: /sys/class/net/" + escaped(f_.netdev, 40) +
                    (np < 0 ? "/ecn/roce_np/enable/N" : "/ecn/roce_rp/enable/" + std::to_string(prio)) +
                    " could not be read (" + (np < 0 ? "roce_rp" : "roce_np") + " on)");
            return;
        }
        auto word = [](int v) { return v == 0 ? "off" : v < 0 ? "unread" : "on"; };
        if (np == 0 || rp == 0)
            add("ecn", HealthStatus::Error,
                "ECN is off on priority " + std::to_string(prio) + " (roce_np " + word(np) + ", roce_rp " + word(rp) +
                    "): DCQCN cannot slow the senders, PFC alone carries congestion, pause spreads back through "
                    "the fabric and all-reduce tail latency grows");
        else
            add("ecn", HealthStatus::Ok, "ECN on priority " + std::to_string(prio) + " (roce_np, roce_rp)");
    }

    void mtu(bool rdma)
    {
        if (p_.mtu >= 0) {
            if (f_.netdev_mtu < 0)
                add("mtu", HealthStatus::Skipped, "no /sys/class/net/" + f_.netdev + "/mtu");
            else if (f_.netdev_mtu != p_.mtu)
                add("mtu", HealthStatus::Error,
                    "netdev MTU " + std::to_string(f_.netdev_mtu) + ", the policy's " + std::to_string(p_.mtu) +
                        ": RDMA's active MTU becomes " + std::to_string(roce_active_mtu(f_.netdev_mtu)) +
                        (f_.netdev_mtu > p_.mtu ? ", larger frames than the fabric carries are dropped"
                                                : ", more packets per message and less bandwidth per QP"));
            else
                add("mtu", HealthStatus::Ok, "MTU " + std::to_string(f_.netdev_mtu));
        }
        if (rdma && p_.rdma_mtu >= 0) {
            int active = roce_active_mtu(f_.netdev_mtu);
            if (f_.netdev_mtu < 0)
                add("rdma-mtu", HealthStatus::Skipped, "no /sys/class/net/" + f_.netdev + "/mtu");
            else if (active < p_.rdma_mtu)
                add("rdma-mtu", HealthStatus::Error,
                    "active RDMA MTU " + std::to_string(active) + " (netdev MTU " + std::to_string(f_.netdev_mtu) +
                        " less 96 header bytes), the policy's " + std::to_string(p_.rdma_mtu) +
                        ": NCCL and UCX send " + std::to_string(active) + "-byte packets");
            else
                add("rdma-mtu", HealthStatus::Ok, "active RDMA MTU " + std::to_string(active));
        }
    }

    void gid()
    {
        std::vector<const GidEntry *> r = routable_gids(f_.port);
        if (r.empty()) {
            add("gid", HealthStatus::Error,
                "no routable RoCE v2 GID (no IP address on " + f_.netdev +
                    "?): NCCL and UCX fall back to a link-local or RoCE v1 entry that a routed fabric does not "
                    "forward, and QPs time out");
            return;
        }
        // the site's gid_index= (policy gid-index), which the plugin gives
        // every job where it is a routable RoCE v2 GID, and where it is not
        // gives none: the job's NCCL takes the node's own choice then
        if (const GidEntry *site = site_gid(r)) {
            add("gid", HealthStatus::Ok,
                "routable RoCE v2 GID " + std::to_string(p_.gid_index) + " " + site->gid + ", the policy's gid-index");
            return;
        }
        std::string unpinned;  // why the site's index is not what jobs get here
        if (p_.gid_index >= 0)
            unpinned = "gid-index " + std::to_string(p_.gid_index) +
                       " (the plugstack's gid_index=) is no routable RoCE v2 GID here, so the plugin sets no GID index "
                       "on this node: ";
        // the node's nccl.conf pins one index for every port: NCCL takes it
        // there, routable or not, and the QPs of a port where it is not
        // routable time out
        if (p_.nccl_gid_index >= 0) {
            const int pin = p_.nccl_gid_index;
            if (std::none_of(r.begin(), r.end(), [&](const GidEntry *e) { return e->index == pin; })) {
                add("gid", HealthStatus::Error,
                    unpinned + "NCCL_IB_GID_INDEX=" + std::to_string(pin) + " in " + p_.nccl_conf +
                        " is no routable RoCE v2 GID here: the routable one is " + std::to_string(r[0]->index) + " (" +
                        r[0]->gid + "); every job's NCCL takes " + std::to_string(pin) + " and its connections time out");
                return;
            }
        }
        int nccl = p_.nccl_gid_index >= 0 ? p_.nccl_gid_index : nccl_gid_index(f_.port);
        bool nccl_ok = std::any_of(r.begin(), r.end(), [&](const GidEntry *e) { return e->index == nccl; });
        if (!nccl_ok)
            add("gid", HealthStatus::Warning,
                unpinned + "NCCL (>= 2.21) would take GID " + std::to_string(nccl) + ", not routable; the routable RoCE v2 GID is " +
                    std::to_string(r[0]->index) + " (" + r[0]->gid + ")");
        else if (!unpinned.empty())
            add("gid", HealthStatus::Warning,
                unpinned + "NCCL takes its own, " + std::to_string(nccl) + " (" +
                    (*std::find_if(r.begin(), r.end(), [&](const GidEntry *e) { return e->index == nccl; }))->gid +
                    "), routable, where the other nodes' jobs take " + std::to_string(p_.gid_index));
        else
            add("gid", HealthStatus::Ok, "routable RoCE v2 GID " + std::to_string(r[0]->index) + " " + r[0]->gid);
    }

    // counter deltas over the interval
    std::uint64_t rise(const std::string &name, bool &known) const
    {
        auto b = f_.before.find(name), a = f_.after.find(name);
        known = b != f_.before.end() && a != f_.after.end() && a->second >= b->second;
        return known ? a->second - b->second : 0;
    }

    // `port`: the port's own counters (errors, retransmits); `netdev`: its
    // netdev's ethtool counters (pause-storm)
    void counters(double seconds, bool port, bool netdev)
    {
        if (seconds <= 0 || (port && f_.after.empty())) {
            for (const char *c : {"errors", "pause-storm", "retransmits"})
                if (std::string(c) == "pause-storm" ? netdev : port)
                    add(c, HealthStatus::Skipped, "one read of the counters (--interval 0)");
            return;
        }
        if (port)
            errors(seconds);
        if (netdev)
            pause_storm(seconds);
        if (port)
            retransmits(seconds);
    }

    std::string said(const std::vector<std::pair<std::string, std::uint64_t>> &v, double seconds) const
    {
        std::string s;
        for (std::size_t i = 0; i < v.size(); ++i)
            s += (i ? ", " : "") + v[i].first.substr(v[i].first.find('/') + 1) + " +" + std::to_string(v[i].second);
        return s + " in " + num(seconds) + " s";
    }

    // the counters of `names` that rose; any_known: one of them was read twice
    std::vector<std::pair<std::string, std::uint64_t>> rises(std::initializer_list<const char *> names, bool &any_known) const
    {
        std::vector<std::pair<std::string, std::uint64_t>> v;
        any_known = false;
        for (const char *n : names) {
            bool known = false;
            std::uint64_t d = rise(n, known);
            any_known = any_known || known;
            if (known && d > 0)
                v.emplace_back(n, d);
        }
        return v;
    }

    void pause_storm(double seconds)
    {
        bool known = false;
        auto storm = rises({"ethtool/tx_pause_storm_warning_events", "ethtool/tx_pause_storm_error_events"}, known);
        if (!known)
            add("pause-storm", HealthStatus::Skipped, roce() ? "no ethtool -S text for " + f_.netdev : "not a RoCE port");
        else if (!storm.empty())
            add("pause-storm", HealthStatus::Error,
                said(storm, seconds) + ": the NIC kept pausing the link (its receive side stalled): the fabric backs up "
                                       "behind this node and every job sharing those switches slows");
        else
            add("pause-storm", HealthStatus::Ok, "no pause-storm events in " + num(seconds) + " s");
    }

    void errors(double seconds)
    {
        bool known = false;
        auto down = rises({"counters/link_downed"}, known);
        bool known2 = false;
        auto errs = rises({"counters/symbol_error", "counters/port_rcv_errors"}, known2);
        known = known || known2;
        double worst = 0;
        for (const auto &e : errs)
            worst = std::max(worst, static_cast<double>(e.second) / seconds);
        if (!known)
            add("errors", HealthStatus::Skipped, "no error counters in sysfs");
        else if (!down.empty())
            add("errors", HealthStatus::Error,
                said(down, seconds) + (errs.empty() ? "" : ", " + said(errs, seconds)) +
                    ": the link went down and up; every QP on it broke and the job's collectives hang or fail");
        else if (!errs.empty() && worst > p_.max_error_rate)
            add("errors", HealthStatus::Error,
                said(errs, seconds) + ": a bad cable or transceiver; corrupted packets are resent and the rail slows the job");
        else if (!errs.empty())
            add("errors", HealthStatus::Warning,
                said(errs, seconds) + ", within max-error-rate " + num(p_.max_error_rate) + "/s");
        else if (std::string pegged = saturated(); !pegged.empty())
            add("errors", HealthStatus::Warning,
                pegged + ": the counter stops at its maximum (IBA PortCounters), so new errors cannot be seen; "
                         "clear it (perfquery -R) to check the link again");
        else
            add("errors", HealthStatus::Ok, "no errors in " + num(seconds) + " s");
    }

    // error counters at the top of their PMA width (link_downed 8 bits,
    // symbol_error and port_rcv_errors 16): they no longer rise, whatever
    // the link does (helper 51)
    std::string saturated() const
    {
        std::string out;
        for (auto c : {std::make_pair("counters/link_downed", 255ULL), std::make_pair("counters/symbol_error", 65535ULL),
                       std::make_pair("counters/port_rcv_errors", 65535ULL)}) {
            auto it = f_.after.find(c.first);
            if (it != f_.after.end() && it->second == c.second)
                out += (out.empty() ? "" : ", ") + std::string(c.first).substr(9) + " " + std::to_string(c.second);
        }
        return out;
    }

    void retransmits(double seconds)
    {
        bool known = false;
        auto retr = rises({"hw_counters/out_of_sequence", "hw_counters/local_ack_timeout_err"}, known);
        if (!known)
            add("retransmits", HealthStatus::Skipped, "no hw_counters in sysfs");
        else if (!retr.empty())
            add("retransmits", HealthStatus::Warning,
                said(retr, seconds) + ": packets are lost on a fabric meant to be lossless (go-back-N retransmits)");
        else
            add("retransmits", HealthStatus::Ok, "no out-of-sequence packets or ACK timeouts in " + num(seconds) + " s");
    }

private:
    const PortFacts &f_;
    const HealthPolicy &p_;
    std::vector<HealthFinding> &out_;
};

// The ports slower than the policy or than the node's other ports of the same
// link layer: one "rate" finding each.
void rates(const std::vector<PortFacts> &ports, const HealthPolicy &p, std::vector<HealthFinding> &out)
{
    for (const PortFacts &f : ports) {
        if (!f.bond.empty())
            continue;  // a bond member: its bond's port has the rate
        PortChecks c(f, p, out);
        double g = port_rate_gbps(f.port.rate);
        if (g <= 0) {
            std::string what = "rate " + shown(f.port.rate) + " (ports/" + std::to_string(f.port.port) +
                               "/rate) cannot be read, expected \"N Gb/sec (...)\"";
            if (p.rate > 0)
                c.add("rate", HealthStatus::Error, what + ": the policy's least rate " + num(p.rate) + " Gb/sec cannot be verified");
            else
                c.add("rate", HealthStatus::Skipped, what);
            continue;
        }
        const PortFacts *fastest = nullptr;
        for (const PortFacts &o : ports)
            if (o.bond.empty() && o.port.link_layer == f.port.link_layer && o.port.active() &&
                (!fastest || port_rate_gbps(o.port.rate) > port_rate_gbps(fastest->port.rate)))
                fastest = &o;
        std::string slow = ": NCCL's rings and trees run at the pace of the slowest rail, so the job's all-reduce "
                           "bandwidth falls with it (a bad cable, a dirty connector or a port that trained down)";
        if (p.rate > 0 && g < p.rate && f.port.active())
            c.add("rate", HealthStatus::Error, f.port.rate + ", the policy's least rate is " + num(p.rate) + " Gb/sec" + slow);
        else if (fastest && port_rate_gbps(fastest->port.rate) > g && f.port.active())
            c.add("rate", HealthStatus::Error,
                  f.port.rate + " where " + fastest->port.hca + " port " + std::to_string(fastest->port.port) + " runs " +
                      fastest->port.rate + slow);
        else
            c.add("rate", HealthStatus::Ok, f.port.rate);
    }
}

std::string label(const std::string &v)
{
    std::string s;
    for (char c : v) {
        if (c == '\\' || c == '"')
            s += '\\';
        if (c == '\n') {
            s += "\\n";
            continue;
        }
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u >= 0x7f) {  // a node's bytes: the textfile stays UTF-8, one line
            static const char hex[] = "0123456789abcdef";
            s += "\\\\x";
            s += hex[u >> 4];
            s += hex[u & 15];
            continue;
        }
        s += c;
    }
    return s;
}

std::string labels(const std::string &hca, int port, const std::string &netdev)
{
    return "hca=\"" + label(hca) + "\",port=\"" + std::to_string(port) + "\",netdev=\"" + label(netdev) + "\"";
}

std::string metric_name(const std::string &check)
{
    std::string s = "atoll_health_" + check + "_ok";
    std::replace(s.begin(), s.end(), '-', '_');
    return s;
}

}  // namespace

const std::vector<std::string> &health_policy_keys()
{
    static const std::vector<std::string> k = {"roce-tc", "pfc-priority", "trust", "qos", "mtu", "rdma-mtu", "rate", "ecn",
                                               "max-error-rate", "hca", "gid-index", "ports"};
    return k;
}

void set_health_policy(HealthPolicy &p, const std::string &key, const std::string &v)
{
    if (key == "roce-tc") {
        p.roce_tc = static_cast<int>(number(key, v, 0, 255));
    } else if (key == "pfc-priority") {
        p.pfc_priority = static_cast<int>(number(key, v, 0, 7));
    } else if (key == "trust") {
        if (v != "dscp" && v != "pcp")
            throw std::invalid_argument(key + "=" + v + ": expected dscp or pcp");
        p.trust = v;
    } else if (key == "qos") {
        if (v != "mlnx_qos" && v != "skip")
            throw std::invalid_argument(key + "=" + v + ": expected mlnx_qos or skip");
        p.qos = v == "mlnx_qos";
    } else if (key == "mtu") {
        p.mtu = static_cast<int>(number(key, v, 68, 65535));
    } else if (key == "rdma-mtu") {
        p.rdma_mtu = static_cast<int>(number(key, v, 256, 4096));
        if (p.rdma_mtu != 256 && p.rdma_mtu != 512 && p.rdma_mtu != 1024 && p.rdma_mtu != 2048 && p.rdma_mtu != 4096)
            throw std::invalid_argument(key + "=" + v + ": expected 256, 512, 1024, 2048 or 4096");
    } else if (key == "rate") {
        p.rate = decimal(key, v, 10000);
    } else if (key == "ecn") {
        if (v != "yes" && v != "no")
            throw std::invalid_argument(key + "=" + v + ": expected yes or no");
        p.ecn = v == "yes";
    } else if (key == "max-error-rate") {
        p.max_error_rate = decimal(key, v, 1e9);
    } else if (key == "gid-index") {
        p.gid_index = static_cast<int>(number(key, v, 0, 255));
    } else if (key == "ports") {
        p.ports = static_cast<int>(number(key, v, 1, 4096));
    } else if (key == "hca") {
        // fnmatch patterns, '!' to exclude: NCCL_IB_HCA's own syntax, or a
        // blank after a comma, would match no adapter and check fewer ports
        std::istringstream list(v);
        for (std::string pat; std::getline(list, pat, ',');) {
            if (pat.find_first_of(" \t") != std::string::npos)
                throw std::invalid_argument(key + "=" + escaped(v, 200) + ": found a blank in '" + escaped(pat, 60) +
                                            "', expected comma-separated names or patterns without blanks");
            // NCCL's :PORT is a ':' and digits at the end, outside any
            // bracket expression ([[:digit:]] is fnmatch's own)
            const std::size_t colon = pat.rfind(':');
            const bool port_suffix = colon != std::string::npos && colon + 1 < pat.size() &&
                                     pat.find_first_not_of("0123456789", colon + 1) == std::string::npos &&
                                     pat.find('[') == std::string::npos;
            if (!pat.empty() && (pat[0] == '=' || pat[0] == '^' || port_suffix))
                throw std::invalid_argument(key + "=" + escaped(v, 200) + ": found '" + escaped(pat, 60) +
                                            "', expected adapter names or fnmatch patterns, '!' to exclude (NCCL_IB_HCA's "
                                            "=, ^ and :PORT are not this list's syntax)");
        }
        p.hca = v;
    } else {
        std::string known;
        for (const std::string &k : health_policy_keys())
            known += (known.empty() ? "" : ", ") + k;
        throw std::invalid_argument("unknown key \"" + key + "\", expected one of " + known);
    }
}

HealthPolicy parse_health_policy(std::istream &in, const std::string &source, HealthPolicy base,
                                 std::vector<std::string> *warnings)
{
    std::string raw;
    std::map<std::string, std::size_t> given;  // key -> the line it was first given on
    for (std::size_t lineno = 1; std::getline(in, raw); ++lineno) {
        // an editor's UTF-8 byte order mark is no part of the first key (an
        // input error drains every node whose wrapper runs this)
        if (lineno == 1 && raw.rfind("\xEF\xBB\xBF", 0) == 0)
            raw.erase(0, 3);
        std::string line = raw.substr(0, raw.find('#'));
        std::size_t b = line.find_first_not_of(" \t\r"), e = line.find_last_not_of(" \t\r");
        if (b == std::string::npos)
            continue;
        line = line.substr(b, e - b + 1);
        std::size_t eq = line.find('=');
        if (eq == std::string::npos || eq == 0)
            throw InputError(source, lineno, shown(line) + ", expected KEY=VALUE");
        std::string key = line.substr(0, eq), value = line.substr(eq + 1);
        auto strip = [](std::string s) {
            std::size_t x = s.find_first_not_of(" \t"), y = s.find_last_not_of(" \t");
            return x == std::string::npos ? std::string() : s.substr(x, y - x + 1);
        };
        try {
            set_health_policy(base, strip(key), strip(value));
        } catch (const std::invalid_argument &err) {
            throw InputError(source, lineno, err.what());
        }
        // a key given twice: the latest counts, as in slurm.conf, and it is said
        auto first = given.emplace(strip(key), lineno);
        if (!first.second && warnings)
            warnings->push_back(source + ":" + std::to_string(lineno) + ": " + strip(key) + " given again (first on line " +
                                std::to_string(first.first->second) + "): this later value is used");
    }
    return base;
}

NetdevTag netdev_vlan(const std::string &sysfs_root, const std::string &netdev)
{
    // as the kernel takes a RoCE GID's VLAN (rdma_read_gid_l2_fields): the
    // netdev's own, else that of a VLAN device directly below it ("only
    // first level vlan device"); nothing deeper
    NetdevTag t;
    if (!netdev_name_ok(netdev)) {
        t.unread = netdev;
        return t;
    }
    const std::string net = sysfs_root + "/class/net/" + netdev;
    std::optional<std::string> uevent = read_small_file(net + "/uevent", 4096);
    if (!uevent) {
        t.unread = netdev;
        return t;
    }
    if (uevent_vlan(uevent)) {
        t.tagged = 1;
        t.vlan = netdev;
        return t;
    }
    t.tagged = 0;
    bool below_seen = false;
    // The kernel stops at the first lower device (get_lower_dev_vlan
    // returns 1), and a device's lowers are listed in the order they were
    // linked (__netdev_adjacent_dev_insert adds to the tail): for a bond that
    // is bonding/slaves' order, its first word. Elsewhere (a team) sysfs
    // gives no order: lowers that disagree leave it unknown (helper 57: an
    // active-backup bond over [PF, PF.100] passed, the kernel taking the PF).
    std::vector<std::string> lowers;
    if (DIR *d = opendir(net.c_str())) {
        while (struct dirent *e = readdir(d)) {
            const std::string n = e->d_name;
            if (n.rfind("lower_", 0) == 0 && n.size() > 6)
                lowers.push_back(n.substr(6));
        }
        closedir(d);
    }
    std::sort(lowers.begin(), lowers.end());
    std::string first;
    if (lowers.size() > 1) {
        std::istringstream slaves(first_line(net + "/bonding/slaves"));
        slaves >> first;
        if (!std::binary_search(lowers.begin(), lowers.end(), first))
            first.clear();
    }
    std::vector<std::string> tagged, untagged;
    for (const std::string &below : lowers) {
        if (!first.empty() && below != first)
            continue;
        below_seen = true;
        std::optional<std::string> u =
            netdev_name_ok(below) ? read_small_file(sysfs_root + "/class/net/" + below + "/uevent", 4096) : std::nullopt;
        if (!u) {
            t.tagged = -1;
            t.unread = below;
            return t;
        }
        (uevent_vlan(u) ? tagged : untagged).push_back(below);
    }
    if (!tagged.empty() && !untagged.empty()) {
        t.tagged = -1;
        t.unread = " " + escaped(netdev, 40) + "'s lower devices " + escaped(tagged[0], 40) + " (a VLAN device) and " +
                   escaped(untagged[0], 40) + " (none) disagree, and no bonding/slaves gives their order (the kernel "
                   "takes the first)";
        return t;
    }
    if (!tagged.empty()) {
        t.tagged = 1;
        t.vlan = tagged[0];
    }
    // stacked on a device this namespace does not show (a pod's macvlan,
    // whose master may be a VLAN of the host's): not known
    if (!below_seen) {
        const std::string iflink = first_line(net + "/iflink"), ifindex = first_line(net + "/ifindex");
        if (!iflink.empty() && !ifindex.empty() && iflink != ifindex && iflink != "0") {
            t.tagged = -1;
            t.unread = " " + escaped(netdev, 40) + "'s lower device (ifindex " + escaped(iflink, 12) +
                       ") is not in this network namespace";
        }
    }
    return t;
}

void read_netdev_facts(const std::string &sysfs_root, PortFacts &f)
{
    if (!netdev_name_ok(f.netdev))
        return;
    std::string net = sysfs_root + "/class/net/" + f.netdev;
    std::uint64_t mtu = 0;
    if (read_u64(net + "/mtu", mtu) && mtu <= 65535)
        f.netdev_mtu = static_cast<int>(mtu);
    f.trust_sysfs = first_line(net + "/qos/trust");
    f.operstate = first_line(net + "/operstate");
    f.mii_status = first_line(net + "/bonding_slave/mii_status");
    f.slave_state = first_line(net + "/bonding_slave/state");
    for (int i = 0; i < 8; ++i) {
        std::uint64_t v = 0;
        if (read_u64(net + "/ecn/roce_np/enable/" + std::to_string(i), v))
            f.ecn_np[static_cast<std::size_t>(i)] = v != 0;
        if (read_u64(net + "/ecn/roce_rp/enable/" + std::to_string(i), v))
            f.ecn_rp[static_cast<std::size_t>(i)] = v != 0;
    }
}

std::vector<PortFacts> port_facts(const std::string &sysfs_root, const NodePort &port)
{
    std::vector<PortFacts> out(1);
    out[0].port = port;
    if (port.link_layer != "Ethernet" || port.netdevs.empty())
        return out;
    for (const GidEntry &g : port.gids)
        if (!out[0].gid_vlan.count(g.ndev))
            out[0].gid_vlan.emplace(g.ndev, netdev_vlan(sysfs_root, g.ndev));
    // the QoS is the device's own: not a VLAN's (mlnx_qos -i eth0.100 is
    // not eth0's) but the netdev below it
    auto stacked = [&](const std::string &nd) {
        return std::find(port.stacked.begin(), port.stacked.end(), nd) != port.stacked.end();
    };
    out[0].netdev = port.netdevs[0];
    auto own = std::find_if(port.netdevs.begin(), port.netdevs.end(), [&](const std::string &nd) { return !stacked(nd); });
    if (own != port.netdevs.end())
        out[0].netdev = *own;
    // an SR-IOV virtual function: its PCI function has a physfn link
    struct stat st;
    out[0].vf = netdev_name_ok(port.hca) &&
                ::stat((sysfs_root + "/class/infiniband/" + port.hca + "/device/physfn").c_str(), &st) == 0;
    read_netdev_facts(sysfs_root, out[0]);
    for (const std::string &m : port.lower) {
        PortFacts f;
        f.port = port;
        f.netdev = m;
        f.bond = out[0].netdev;
        f.gid_vlan = out[0].gid_vlan;
        f.vf = out[0].vf;
        read_netdev_facts(sysfs_root, f);
        if (f.bond.find('/') == std::string::npos && f.bond != "." && f.bond != "..")
            f.bond_mode = first_line(sysfs_root + "/class/net/" + f.bond + "/bonding/mode");
        out.push_back(f);
    }
    return out;
}

std::map<std::string, std::uint64_t> read_port_counters(const std::string &sysfs_root, const NodePort &p)
{
    static const char *const names[] = {
        "counters/symbol_error",          "counters/link_downed",          "counters/port_rcv_errors",
        "counters/link_error_recovery",   "counters/port_xmit_discards",   "hw_counters/out_of_sequence",
        "hw_counters/local_ack_timeout_err", "hw_counters/packet_seq_err", "hw_counters/np_cnp_sent",
        "hw_counters/rp_cnp_handled",     "hw_counters/np_ecn_marked_roce_packets"};
    std::map<std::string, std::uint64_t> out;
    if (p.hca.find('/') != std::string::npos || p.hca == "." || p.hca == "..")
        return out;
    std::string dir = sysfs_root + "/class/infiniband/" + p.hca + "/ports/" + std::to_string(p.port) + "/";
    for (const char *n : names) {
        std::uint64_t v = 0;
        if (read_u64(dir + n, v))
            out[n] = v;
    }
    return out;
}

void add_ethtool_counters(std::map<std::string, std::uint64_t> &into, const EthtoolStats &s)
{
    for (const auto &kv : s.counters) {
        const std::string &n = kv.first;
        bool prio = (n.rfind("rx_prio", 0) == 0 || n.rfind("tx_prio", 0) == 0) && n.size() == 14 &&
                    n.compare(8, 6, "_pause") == 0;
        if (prio || n == "rx_pause_ctrl_phy" || n == "tx_pause_ctrl_phy" || n == "tx_pause_storm_warning_events" ||
            n == "tx_pause_storm_error_events" || n == "rx_discards_phy" || n == "tx_discards_phy")
            into["ethtool/" + n] = kv.second;
    }
}

int roce_active_mtu(int netdev_mtu)
{
    int m = netdev_mtu - (40 + 8 + 12 + 4 + 28 + 4);  // GRH, UDP, BTH, XRC ext, AtomicETH ext, ICRC
    for (int ib : {4096, 2048, 1024, 512, 256})
        if (m >= ib)
            return ib;
    return 0;
}

double port_rate_gbps(const std::string &rate)
{
    char *end = nullptr;
    double g = std::strtod(rate.c_str(), &end);
    if (end == rate.c_str() || std::string(end).rfind(" Gb/sec", 0) != 0 || !(g > 0) || g > 1e5)
        return 0;
    return g;
}

const char *to_string(HealthStatus s)
{
    switch (s) {
    case HealthStatus::Ok: return "OK";
    case HealthStatus::Warning: return "WARNING";
    case HealthStatus::Error: return "ERROR";
    case HealthStatus::Skipped: return "SKIPPED";
    }
    return "?";
}

std::vector<HealthFinding> missing_hcas(const HealthPolicy &policy, const std::vector<NodePort> &ports,
                                        const std::string &sysfs_root)
{
    std::vector<HealthFinding> out;
    std::istringstream list(policy.hca);
    for (std::string pat; std::getline(list, pat, ',');) {
        if (pat.empty() || pat[0] == '!' || pat.find_first_of("*?[\\") != std::string::npos)
            continue;
        if (std::none_of(ports.begin(), ports.end(), [&](const NodePort &p) { return p.hca == pat; })) {
            HealthFinding h;
            h.check = "hca";
            h.status = HealthStatus::Error;
            h.message = "hca=" + escaped(pat, 60) + ": no such RDMA device under " + escaped(sysfs_root, 200) +
                        "/class/infiniband: an adapter the policy names is gone (off the PCI bus, its driver not "
                        "loaded, or renamed)";
            out.push_back(h);
        }
    }
    return out;
}

std::string HealthFinding::subject() const
{
    if (hca.empty())  // a finding of the node, not of a port (cloud-profile)
        return "node";
    // names a node's root chose: one line whatever they hold (a newline in a
    // device name must not start a line of its own in a drain reason)
    return one_line(hca, 200) + " port " + std::to_string(port) + (netdev.empty() ? "" : " (" + one_line(netdev, 200) + ")");
}

const std::vector<std::pair<std::string, std::string>> &health_checks()
{
    static const std::vector<std::pair<std::string, std::string>> c = {
        {"link", "the port is ACTIVE (a RoCE LAG member: up)"},
        {"hca", "each adapter the policy's hca= names (no pattern) is there"},
        {"ports", "the node has the policy's ports= ACTIVE RDMA ports or more (an adapter a pattern or none hca= names is gone or down)"},
        {"rate", "the port's rate is the policy's least rate or more and no lower than the node's fastest port of its link layer"},
        {"class", "the port's tc file carries the policy's RoCE traffic class"},
        {"trust", "the netdev's priority trust state (dscp or pcp) is the policy's"},
        {"dscp2prio", "the RoCE class's DSCP maps to the policy's lossless priority"},
        {"pfc", "PFC is on the RoCE priority and on no other"},
        {"nccl-class", "the NCCL_IB_TC the node's nccl.conf sets lands on the lossless priority"},
        {"nccl-sl", "under trust pcp, the SL every job's NCCL sends (NCCL_IB_SL, default 0) is the lossless priority"},
        {"vlan", "under trust pcp, the RoCE GID's netdev is a VLAN device, so its frames carry a PCP (else PFC is on priority 0)"},
        {"nccl-conf", "the node's nccl.conf is a regular file every user can read"},
        {"ecn", "ECN (roce_np, roce_rp) is on for the RoCE priority"},
        {"mtu", "the netdev's MTU is the policy's"},
        {"rdma-mtu", "the active RDMA MTU derived from the netdev MTU is the policy's least or more"},
        {"gid", "a routable RoCE v2 GID exists and NCCL would take one"},
        {"errors", "symbol errors, receive errors and link-downed events did not rise between the reads"},
        {"pause-storm", "the NIC's pause-storm events did not rise between the reads"},
        {"retransmits", "out-of-sequence packets and local ACK timeouts did not rise between the reads"},
        {"cloud-profile", "the cloud's own NCCL profile (image nccl.conf, gIB, TCPXO, aws-ofi-nccl release) is there"},
        {"imex", "an IMEX channel (/dev/nvidia-caps-imex-channels/channelN) the user may open, for multi-node NVLink"},
    };
    return c;
}

HealthFinding imex_health(const ImexChannels &c, uid_t uid)
{
    HealthFinding h;
    h.check = "imex";
    h.message = imex_summary(c, uid);
    if (c.usable.empty()) {
        h.status = HealthStatus::Warning;
        h.message += ": multi-node NVLink cannot work for this user (NCCL >= 2.25 fails the communicator's init; "
                     "only NCCL_MNNVL_ENABLE=0 makes it fall back to the network)";
    }
    return h;
}

std::vector<HealthFinding> check_health(const std::vector<PortFacts> &ports, const HealthPolicy &policy, double seconds)
{
    std::vector<HealthFinding> out;
    for (const PortFacts &f : ports) {
        PortChecks c(f, policy, out);
        if (!c.member())
            c.link();
        else
            c.member_link();
        if (c.roce()) {
            if (!c.member())
                c.klass();
            if (!c.bond()) {
                c.trust_check();
                c.dscp2prio();
                c.pfc();
                c.nccl_class();
                c.nccl_sl();
                c.vlan();
                c.ecn();
            }
            c.mtu(!c.member());  // the active RDMA MTU follows the bond's MTU
            if (!c.member())
                c.gid();
        }
        c.counters(seconds, !c.member(), !c.bond());
    }
    rates(ports, policy, out);
    return out;
}

void write_health_report(std::ostream &o, const std::vector<HealthFinding> &f, std::size_t ports, bool verbose)
{
    std::size_t n[4] = {0, 0, 0, 0};
    for (const HealthFinding &h : f)
        ++n[static_cast<int>(h.status)];
    for (HealthStatus s : {HealthStatus::Error, HealthStatus::Warning, HealthStatus::Ok, HealthStatus::Skipped})
        for (const HealthFinding &h : f)
            if (h.status == s && (verbose || s == HealthStatus::Error || s == HealthStatus::Warning))
                o << to_string(s) << ": " << h.check << ": " << h.subject() << ": " << one_line(h.message, 8192) << "\n";
    o << "health: " << (n[2] ? "FAILED" : "OK") << ", " << n[2] << " errors, " << n[1] << " warnings, " << n[0]
      << " checks passed, " << n[3] << " skipped on " << ports << " ports\n";
}

namespace {

void write_health_up(std::ostream &o, bool up)
{
    o << "# HELP atoll_health_up 1 when this run read the node and checked it, 0 when it could not\n"
      << "# TYPE atoll_health_up gauge\n"
      << "atoll_health_up " << (up ? 1 : 0) << "\n";
}

}  // namespace

void write_health_metrics(std::ostream &o, const std::vector<HealthFinding> &f, const std::vector<PortFacts> &ports,
                          double seconds)
{
    for (const auto &c : health_checks()) {
        bool any = false;
        for (const HealthFinding &h : f)
            if (h.check == c.first && h.status != HealthStatus::Skipped) {
                if (!any)
                    o << "# HELP " << metric_name(c.first) << " 1 when " << c.second << " (warnings pass), 0 when not\n"
                      << "# TYPE " << metric_name(c.first) << " gauge\n";
                any = true;
                o << metric_name(c.first) << "{" << labels(h.hca, h.port, h.netdev) << "} "
                  << (h.status == HealthStatus::Error ? 0 : 1) << "\n";
            }
    }
    bool any = false;
    for (const PortFacts &p : ports)
        for (const auto &kv : p.after) {
            auto b = p.before.find(kv.first);
            if (seconds <= 0 || b == p.before.end() || kv.second < b->second)
                continue;
            if (!any)
                o << "# HELP atoll_health_counter_rate A port counter's rise per second between the two reads\n"
                  << "# TYPE atoll_health_counter_rate gauge\n";
            any = true;
            o << "atoll_health_counter_rate{" << labels(p.port.hca, p.port.port, p.netdev) << ",counter=\""
              << label(kv.first) << "\"} " << num(static_cast<double>(kv.second - b->second) / seconds) << "\n";
        }
    std::size_t errors = 0, warnings = 0;
    for (const HealthFinding &h : f) {
        errors += h.status == HealthStatus::Error;
        warnings += h.status == HealthStatus::Warning;
    }
    o << "# HELP atoll_health_errors Checks that failed on this node\n# TYPE atoll_health_errors gauge\n"
      << "atoll_health_errors " << errors << "\n"
      << "# HELP atoll_health_warnings Checks that warned on this node\n# TYPE atoll_health_warnings gauge\n"
      << "atoll_health_warnings " << warnings << "\n"
      << "# HELP atoll_health_interval_seconds Seconds between the two counter reads\n"
      << "# TYPE atoll_health_interval_seconds gauge\n"
      << "atoll_health_interval_seconds " << num(seconds) << "\n";
    write_health_up(o, true);
}

void write_health_down(std::ostream &o) { write_health_up(o, false); }

}  // namespace atl
