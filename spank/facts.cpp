// What a node says of itself: RDMA ports and the fabric's devices among them, GPUs, nccl.conf, ConstrainDevices, hwloc's GPU-to-HCA map.
#include "spank/facts.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <fstream>
#include <future>
#include <system_error>
#include <memory>
#include <optional>
#include <thread>
#include <cstdlib>

#include <dlfcn.h>
#include <grp.h>
#include <pwd.h>
#include <unistd.h>

#include "node/ncclconf.hpp"
#include "node/ucxconf.hpp"
#include "topology/fabric.hpp"
#include "spank/trusted.hpp"
#include "spank/userfile.hpp"

namespace atl {

namespace {

// An ibverbs device name as the kernel makes them (mlx5_0, mlx5_bond_0,
// rocep105s0, irdma0): anything else, a comma, '=', '^', ':' or a control
// byte from a renamed device, would change what NCCL_IB_HCA says
std::string device_name_problem(const std::string &n)
{
    if (n.empty() || n.size() > 63)
        return "of " + std::to_string(n.size()) + " characters, expected 1 to 63";
    if (!std::isalnum(static_cast<unsigned char>(n[0])))
        return "starting with " + shown(n.substr(0, 1)) + ", expected a letter or digit";
    for (char c : n)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.'))
            return "holding " + shown(std::string(1, c)) + ", expected only letters, digits, '_', '-' and '.'";
    return "";
}

}  // namespace

std::optional<ViewHost> settle_claims(const FabricSummary &s, const std::string &node, const std::vector<NodePort> &ports,
                                      std::string *why)
{
    if (s.odd.count(node)) {
        // its own active InfiniBand ports, by GUID and port
        std::vector<std::pair<std::uint64_t, int>> active;
        for (const NodePort &p : ports)
            if (p.node_guid != 0 && !p.node_guid_bad && p.link_layer == "InfiniBand" && p.active())
                active.push_back({p.node_guid, p.port});
        std::string w;
        std::optional<ViewHost> out = resolve_odd(s, node, active, w);
        if (why)
            *why = w;
        return out;
    }
    if (!s.claimed.count(node))
        return std::nullopt;
    std::vector<std::pair<std::uint64_t, int>> local;
    for (const NodePort &p : ports)
        if (p.node_guid != 0 && !p.node_guid_bad)
            local.push_back({p.node_guid, p.port});
    std::string w;
    std::optional<ViewHost> out = resolve_claims(s, node, local, w);
    if (why && !w.empty())
        *why = w + ", by their GUIDs";
    return out;
}

NodeDevices node_devices(const FabricView &f, const PluginConfig &cfg, const std::string &node,
                         const std::vector<NodePort> &ports, const std::string &machine_type,
                         const std::vector<std::string> &unreadable)
{
    NodeDevices d;
    auto entry = f.summary.hosts.find(node);
    if (entry == f.summary.hosts.end())
        return d;
    // an adapter name of this node another node's description claims too:
    // the claimant whose GUID this node's sysfs gives is its own
    std::optional<ViewHost> settled = settle_claims(f.summary, node, ports);
    const ViewHost &me = settled ? *settled : entry->second;
    std::vector<std::pair<std::string, int>> named = me.hcas;
    // a cloud fabric source names no adapter (Azure's CSV, GCP's API: the
    // host's one port is a placeholder, "nic0"): the cloud's rules pick them
    // among the node's own ports
    bool none_here = std::none_of(named.begin(), named.end(), [&](const std::pair<std::string, int> &hp) {
        return std::any_of(ports.begin(), ports.end(), [&](const NodePort &p) { return p.hca == hp.first; });
    });
    if (node_adapter_profile(f.profile) && none_here) {
        d.from_node = true;
        CloudAdapters c = cloud_adapters(f.profile, ports, machine_type);
        if (c.ports.empty()) {
            d.problems.push_back("no compute adapter from the node: " + c.why);
            return d;
        }
        d.source = c.why;
        named = c.ports;
    } else if (!device_profile(f.profile)) {
        return d;
    }
    const bool roce = f.profile == "roce" || (f.profile == "gcp" && !d.source.empty());
    const char *want = roce ? "Ethernet" : "InfiniBand";
    auto has = [](const std::vector<std::string> &v, const std::string &x) {
        return std::find(v.begin(), v.end(), x) != v.end();
    };
    // the adapters' GUIDs as the fabric saw them (InfiniBand, view 4): the
    // identity; a device's name is only the order the kernel probed it in
    std::vector<std::uint64_t> guids;
    if (!d.from_node)
        guids = me.guids;
    std::vector<const NodePort *> hits;  // RoCE: the ports taken, for their addresses
    std::vector<std::string> missing;      // RoCE: rails whose netdev no RDMA port here has
    for (std::size_t k = 0; k < named.size(); ++k) {
        const auto &hp = named[k];
        const NodePort *hit = nullptr;
        for (const NodePort &p : ports)
            if (p.hca == hp.first && p.port == hp.second)
                hit = &p;
        const std::uint64_t guid = !roce && k < guids.size() ? guids[k] : 0;
        bool by_fabric_name = false;  // found by the fabric's GUID: hca= applies to the fabric's name
        if (guid != 0) {
            const NodePort *by_guid = nullptr;
            int found = 0;
            for (const NodePort &p : ports)
                if (p.node_guid == guid && p.port == hp.second) {
                    by_guid = &p;
                    ++found;
                }
            const std::string want_g = guid_str(guid).substr(2);  // 16 hex digits, as the view has it
            if (found > 1) {
                d.problems.push_back(hp.first + " port " + std::to_string(hp.second) + ": two RDMA devices here have its GUID " +
                                     want_g + ": which is the fabric's is not known");
                continue;
            }
            if (found == 1) {
                if (by_guid->hca != hp.first)
                    d.renamed.push_back(hp.first + " is " + by_guid->hca + " here");
                hit = by_guid;
                by_fabric_name = true;
            } else if (hit && (hit->node_guid != 0 || hit->node_guid_bad)) {
                // a GUID read that is not the fabric's: all zero (a VF no one
                // gave one) or not as the kernel writes it is not it either
                d.problems.push_back(hit->node_guid
                                         ? hp.first + " here is another adapter (node GUID " + guid_str(hit->node_guid).substr(2) +
                                               ", the fabric's " + hp.first + " is " + want_g +
                                               "), and no device here has that GUID: the card was replaced or the devices "
                                               "renumbered; rediscover the fabric"
                                         : hp.first + " here has no node GUID the fabric could have seen (its node_guid is all "
                                               "zero, as a virtual function's no one gave one, or not as the kernel writes "
                                               "it), and no device here has the fabric's " + want_g + ": left out");
                continue;
            }
            // else: the node's sysfs gives no GUID for that name; by name, as before view 4
        }
        // LLDP names the netdev: the RDMA port behind it; for a RoCE LAG, the
        // bond's members. Two devices may claim one netdev (a soft-RoCE rxe
        // over the NIC's own): the one whose PCI function holds the netdev
        // is its adapter; when that does not settle it, none is.
        std::string claimed;
        auto behind = [&](bool lower) -> const NodePort * {
            std::vector<const NodePort *> c;
            for (const NodePort &p : ports)
                if (has(lower ? p.lower : p.netdevs, hp.first) &&
                    std::none_of(c.begin(), c.end(), [&](const NodePort *q) { return q->hca == p.hca; }))
                    c.push_back(&p);
            if (c.size() > 1) {  // a software device (rxe over the NIC or its bond) is no adapter LLDP saw
                std::vector<const NodePort *> hard;
                for (const NodePort *p : c)
                    if (!p->soft)
                        hard.push_back(p);
                if (hard.size() == 1)
                    c = hard;
            }
            if (c.size() > 1) {
                std::vector<const NodePort *> own;
                for (const NodePort *p : c)
                    if (has(p->own_net, hp.first))
                        own.push_back(p);
                if (own.size() != 1) {
                    claimed = c[0]->hca + " and " + c[1]->hca;
                    return nullptr;
                }
                c = own;
            }
            return c.empty() ? nullptr : c[0];
        };
        if (!hit && roce)
            hit = behind(false);
        if (!hit && roce && claimed.empty())
            hit = behind(true);
        std::string name = hp.first + " port " + std::to_string(hp.second);
        // A rail whose adapter is here but not known (two claim it, its
        // name is refused, a device that may be it cannot be read): NCCL
        // would open it all the same, and a list without it would hold this
        // node to fewer rails than its peers; nothing is set. A rail with no
        // device here at all is left out (NCCL cannot open it either).
        auto unknown = [&](const std::string &why) {
            if (d.refused.empty())
                d.refused = why;  // the reason NCCL_IB_HCA gives
            else
                d.problems.push_back(why);
        };
        if (!claimed.empty()) {
            unknown(name + " is claimed by two RDMA devices (" + claimed +
                    "), neither the netdev's own PCI function alone: which is its adapter is not known");
            continue;
        }
        if (!hit && !unreadable.empty()) {
            std::string list;
            for (std::size_t i = 0; i < unreadable.size() && i < 4; ++i)
                list += (i ? ", " : "") + shown(unreadable[i], 40);
            unknown(name + " is no RDMA port atoll could read here, and RDMA device " + list +
                    (unreadable.size() > 4 ? " and more" : "") + " cannot be read (its ports unlisted): it may be that rail");
            continue;
        }
        if (!hit) {
            if (roce && !d.from_node)
                missing.push_back(name);  // or a netdev renamed: looked at below
            else
                d.problems.push_back(name + " is not an RDMA port of this node");
            continue;
        }
        std::string bad = device_name_problem(hit->hca);
        if (!bad.empty()) {
            unknown("RDMA device " + shown(hit->hca) + " behind " + name + " refused: a name " + bad);
            continue;
        }
        // hca= names adapters as a healthy node names them, which is the
        // fabric's name: on a node whose devices were renumbered, the kernel's
        // new name may be another adapter's (the storage card's)
        // (a fabric name that is only another spelling of the kernel's, as an
        // admin's map may write MLX5_0 for mlx5_0, is the kernel's: helper 61's
        // hca=mlx5_[0-3] left MLX5_0 out, three rails of four; and under
        // another name, a padded one is read as the kernel would write it:
        // helper 62's renumbered node took mlx5_03 past !mlx5_3)
        const std::string selected_as = !by_fabric_name ? hit->hca
                                        : adapter_name_key(hp.first) == adapter_name_key(hit->hca) ? hit->hca
                                                                                                    : unpadded_name(hp.first);
        if (!hca_selected(cfg.hca, selected_as)) {
            d.deselected.push_back(selected_as);  // the name the patterns were matched against
            continue;
        }
        if (hit->link_layer != "InfiniBand" && hit->link_layer != "Ethernet") {
            // not known, as a state unread is not: the adapter is there, and
            // NCCL asks verbs, not this file. A list without it would hold
            // this node to fewer rails than its peers; nothing is set.
            if (d.refused.empty())
                d.refused = name + " (" + hit->hca + ") has no link layer atoll could read (" +
                            (hit->link_layer.empty() ? std::string("link_layer unread") : shown(hit->link_layer, 40)) +
                            "): whether it is a rail here is not known";
            continue;
        }
        if (hit->link_layer != want) {
            d.problems.push_back(name + " (" + hit->hca + ") is " + hit->link_layer + ", expected " + want);
            continue;
        }
        if (std::find(d.ports.begin(), d.ports.end(), std::make_pair(hit->hca, hit->port)) != d.ports.end())
            continue;
        d.ports.push_back({hit->hca, hit->port});
        if (!hit->active())
            d.problems.push_back(hit->hca + " port " + std::to_string(hit->port) + " is " +
                                 (hit->known_inactive() ? hit->state + " (NCCL skips it while it stays so)"
                                  : hit->state.empty()  ? std::string("in no known state (its state file unread: NCCL opens it if it is up)")
                                                        : "in no state the kernel writes (" + shown(hit->state, 40) +
                                                              ": NCCL opens it if it is up)"));
        else {
            d.usable = true;
            d.active.push_back({hit->hca, hit->port});
        }
        if (roce && hit->active() && routable_gids(*hit).empty())
            d.problems.push_back(hit->hca + " port " + std::to_string(hit->port) +
                                 " has no routable RoCE v2 GID (IPv4, or IPv6 not link-local): check its IP address and VLAN" +
                                 gid_unread_note(*hit));
        if (roce)
            hits.push_back(hit);
    }
    // A RoCE rail's netdev that no RDMA port here has, where an Ethernet
    // RDMA port here is no rail of the fabric: its netdev may have been
    // renamed (ens3np0 now eth2), the adapter still there. NCCL would open
    // it all the same, and a list without it would hold this node to fewer
    // rails than its peers: nothing is set. With no such port the rail's
    // adapter is not here at all, and it is left out.
    if (!missing.empty()) {
        const NodePort *other = nullptr;
        for (const NodePort &p : ports) {
            if (p.link_layer != "Ethernet" || p.soft || std::find(hits.begin(), hits.end(), &p) != hits.end())
                continue;
            if (std::any_of(named.begin(), named.end(), [&](const std::pair<std::string, int> &hp) {
                    return has(p.netdevs, hp.first) || has(p.lower, hp.first);
                }))
                continue;
            other = &p;
            break;
        }
        if (other && d.refused.empty()) {
            std::string nd = other->netdevs.empty() ? std::string("no netdev") : shown(other->netdevs.front(), 40);
            d.refused = missing.front() + " is no netdev of an RDMA port here, and " + shown(other->hca, 40) + " port " +
                        std::to_string(other->port) + " (" + nd +
                        ") is an Ethernet RDMA port no rail of the fabric names: it may be that rail under another "
                        "name (rediscover the fabric)";
            for (std::size_t i = 1; i < missing.size(); ++i)
                d.problems.push_back(missing[i] + " is not an RDMA port of this node");
        } else {
            for (const std::string &m : missing)
                d.problems.push_back(m + " is not an RDMA port of this node");
        }
    }
    // One address on two RDMA devices: a bond across two adapters without
    // RoCE LAG (the kernel gives each member's device the bond's GIDs; only a
    // LAG, one device, can carry it), where replies hashed to the other card
    // reach a device that does not own the QP. Nothing is set.
    // (the other device may be no rail: a bond of a rail and a storage port)
    for (std::size_t a = 0; a < hits.size() && d.refused.empty(); ++a)
        for (const NodePort &other : ports) {
            if (!d.refused.empty())
                break;
            // a soft-RoCE device (rxe) over the NIC's own netdev shares its
            // address and is no second adapter: the kernel puts it under
            // devices/virtual (NodePort::soft). A device of no known PCI
            // function that is not soft may be one: it counts.
            bool rail = std::find(hits.begin(), hits.end(), &other) != hits.end();
            // (nor is a device on the same PCI function as the rail's)
            if (other.hca == hits[a]->hca || other.link_layer != "Ethernet" || (!rail && other.soft) ||
                (!other.pci.empty() && other.pci == hits[a]->pci))
                continue;
            for (const GidEntry *ga : routable_gids(*hits[a]))
                for (const GidEntry *gb : routable_gids(other))
                    if (d.refused.empty() && ga->gid == gb->gid)
                        d.refused = hits[a]->hca + " and " + other.hca + " carry the same RoCE address (" + ga->gid +
                                    (ga->ndev.empty() ? std::string() : ", " + ga->ndev) +
                                    "): a bond across two adapters without RoCE LAG, one IP on two devices";
        }
    if (!d.refused.empty()) {
        d.usable = false;
        d.active.clear();
    }
    return d;
}

NodeFacts read_node_facts(const FabricView &f, const PluginConfig &cfg, const std::string &node,
                          const NcclUserFiles &user_conf, NodeDevices &dev, const UcxUserFiles &ucx_conf)
{
    NodeFacts facts;
    const std::string sysfs = cfg.sysfs_root.empty() ? "/sys" : per_node_path(cfg.sysfs_root, node);
    facts.ports = node_ports(sysfs, &facts.unreadable_devices);
    facts.netdevs = node_netdevs(sysfs);
    facts.gpus = nvidia_gpus(cfg.proc_root.empty() ? "/proc" : per_node_path(cfg.proc_root, node), &facts.gpu_models);
    const auto started = std::chrono::steady_clock::now();  // the user's files share one bound
    // as NCCL's initEnvFunc (misc/param.cc): NCCL_CONF_FILE instead of
    // HOME/.nccl.conf, then /etc/nccl.conf
    if (!user_conf.unknown.empty()) {
        facts.nccl_conf_unknown = user_conf.unknown;  // nothing is set: no file need be read
        facts.problems.push_back(user_conf.unknown);
    } else {
        NcclConfVars conf = nccl_conf_vars({"/etc/nccl.conf"}, user_conf.paths, facts.problems, user_file_bound,
                                           user_conf.read_as ? &*user_conf.read_as : nullptr);
        facts.nccl_conf = std::move(conf.vars);
        facts.nccl_conf_unknown = conf.unknown;
    }
    // as UCX reads them: root's ucx.conf, then the user's (HOME, UCX_CONFIG_DIR),
    // in what is left of the one bound for the user's files
    auto left = user_file_bound - std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
    if (!facts.nccl_conf_unknown.empty()) {
        // no NCCL or UCX variable is set: the ucx.conf files need not be read
    } else if (!ucx_conf.unknown.empty()) {
        facts.ucx_conf_unknown = ucx_conf.unknown;
        facts.problems.push_back(ucx_conf.unknown);
    } else if (left.count() <= 0) {
        facts.ucx_conf_unknown = "the ucx.conf files were not read: the " + std::to_string(user_file_bound.count() / 1000) +
                                 " s for the user's files went to nccl.conf: atoll does not know which UCX variables "
                                 "they set, so it sets none";
        facts.problems.push_back(facts.ucx_conf_unknown);
    } else {
        NcclConfVars conf = ucx_conf_vars({system_ucx_conf}, ucx_conf.paths, facts.problems, left,
                                          user_conf.read_as ? &*user_conf.read_as : nullptr);
        facts.ucx_conf = std::move(conf.vars);
        facts.ucx_conf_unknown = conf.unknown;
    }
    facts.constrained = devices_constrained(cfg);
    std::string machine_type = cfg.machine_type;
    if (cloud_profile(f.profile)) {
        std::string root = cfg.cloud_root.empty() ? "/" : per_node_path(cfg.cloud_root, node);
        std::string problem;
        facts.cloud = read_cloud_node_bounded(root, sysfs, cfg.machine_type, problem);
        if (!problem.empty())
            facts.problems.push_back(problem);
        machine_type = facts.cloud.machine_type;
        facts.cloud_findings = check_cloud_profile(f.profile, facts.cloud, facts.ports);
    }
    dev = node_devices(f, cfg, node, facts.ports, machine_type, facts.unreadable_devices);
    return facts;
}

namespace {

// fn() in a thread the caller waits for at most `bound`: its value, or
// nullopt with `problem` ("" when it timed out; the thread's error else).
// The thread owns its arguments and the promise: when the caller has gone
// on, it finishes (or stays stuck) alone.
template <class T, class Fn>
std::optional<T> run_bounded(Fn fn, std::chrono::milliseconds bound, std::string &problem)
{
    // a thread left stuck in a read runs this library's code: the library
    // must then never be unmapped (slurmstepd unloads its plugins at exit)
    static const bool pinned = [] {
        Dl_info info{};
        if (dladdr(reinterpret_cast<void *>(&read_cloud_node_bounded), &info) == 0 || !info.dli_fname)
            return false;
        if (dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE) != nullptr)
            return true;
        // linked into a program (atoll-topo env): the program is never unloaded
        char self[4096], lib[4096];
        return realpath("/proc/self/exe", self) && realpath(info.dli_fname, lib) && std::strcmp(self, lib) == 0;
    }();
    if (!pinned) {
        problem = "this library could not be kept loaded for a reader thread";
        return std::nullopt;
    }
    auto done = std::make_shared<std::promise<T>>();
    std::future<T> result = done->get_future();
    try {
        std::thread([done, fn]() {
            try {
                done->set_value(fn());
            } catch (...) {
                done->set_exception(std::current_exception());
            }
        }).detach();
    } catch (const std::system_error &e) {
        problem = std::string("no thread: ") + e.what();
        return std::nullopt;
    }
    if (result.wait_for(bound) != std::future_status::ready) {
        problem.clear();
        return std::nullopt;
    }
    try {
        return result.get();
    } catch (const std::exception &e) {
        problem = e.what();
    }
    return std::nullopt;
}

}  // namespace

CloudNode read_cloud_node_bounded(const std::string &root, const std::string &sysfs_root, const std::string &machine_type,
                                  std::string &problem, std::chrono::milliseconds bound)
{
    std::string why = "?";
    std::optional<CloudNode> got = run_bounded<CloudNode>(
        [root, sysfs_root, machine_type]() { return read_cloud_node(root, sysfs_root, machine_type); }, bound, why);
    if (got)
        return *got;
    if (why == "this library could not be kept loaded for a reader thread" || why.rfind("no thread: ", 0) == 0)
        problem = "the cloud stack's files were not read (" + why + ")";
    else if (!why.empty())
        problem = "the cloud stack's files under " + shown(root, 200) + " were not read: " + why;
    else
        problem = "the cloud stack's files under " + shown(root, 200) + " were not read within " +
                  std::to_string(bound.count()) + " ms (a stalled file system?): the cloud profile is not checked";
    CloudNode n;
    n.machine_type = machine_type;
    return n;
}

ImexChannels read_imex_bounded(const PluginConfig &cfg, const std::string &node, uid_t uid, gid_t gid,
                               const std::vector<gid_t> &groups, std::string &problem, std::chrono::milliseconds bound)
{
    std::string root = cfg.dev_root.empty() ? "/dev" : per_node_path(cfg.dev_root, node);
    std::string proc = cfg.proc_root.empty() ? "/proc" : per_node_path(cfg.proc_root, node);
    std::string why = "?";
    std::optional<ImexChannels> got = run_bounded<ImexChannels>(
        [root, proc, uid, gid, groups]() { return imex_channels(root, uid, gid, groups, proc); }, bound, why);
    if (got)
        return *got;
    ImexChannels c;
    c.dir = root + "/nvidia-caps-imex-channels";
    c.problem = why.empty() ? "not read within " + std::to_string(bound.count()) + " ms (a stalled file system?)" : why;
    problem = "IMEX channels in " + shown(c.dir, 200) + " " + (why.empty() ? c.problem : "not read: " + why);
    return c;
}

namespace {

// A path with its repeated slashes made one ("/dev//null" is /dev/null).
std::string squeezed(const std::string &p)
{
    std::string out;
    for (char c : p)
        if (!(c == '/' && !out.empty() && out.back() == '/'))
            out += c;
    return out;
}

// Why a path names a file of whichever process opens it (NCCL in the task,
// not atoll's reader), or "".
std::string process_relative(const std::string &path)
{
    std::string p = squeezed(path);
    for (const char *pre : {"/proc/self", "/proc/thread-self", "/dev/fd", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/tty"}) {
        std::string x = pre;
        if (p == x || p.rfind(x + "/", 0) == 0)
            return "names a file of the process that opens it (NCCL's, in the task)";
    }
    if (p.rfind("/proc/", 0) == 0 && p.size() > 6 && std::isdigit(static_cast<unsigned char>(p[6])))
        return "names a file of a process";
    return "";
}

}  // namespace

NcclUserFiles nccl_user_files(const std::optional<std::string> &nccl_conf_file, const std::optional<std::string> &home,
                              const std::optional<std::string> &passwd_home, const std::string &passwd_problem)
{
    // snprintf(confFilePath, 1024, ...): 1023 bytes at most
    auto cut = [](const std::string &p) { return p.substr(0, 1023); };
    NcclUserFiles out;
    auto add = [&](const std::string &what, const std::string &path) {
        if (path[0] != '/') {
            out.paths.clear();
            out.unknown = what + " " + shown(path, 200) +
                          " is a relative path: NCCL opens it from the task's working directory, which atoll does not read: "
                          "atoll does not know which NCCL variables it sets, so it sets none";
            return false;
        }
        if (std::find(out.paths.begin(), out.paths.end(), path) == out.paths.end())
            out.paths.push_back(path);
        return true;
    };
    if (nccl_conf_file && !nccl_conf_file->empty()) {
        add("NCCL_CONF_FILE", cut(*nccl_conf_file));
        return out;
    }
    // NCCL 2.30 and later: getenv("HOME"), set empty giving "/.nccl.conf"
    if (home && !add("HOME/.nccl.conf", cut(*home + "/.nccl.conf")))
        return out;
    // before 2.30: the passwd entry's home
    if (!passwd_problem.empty()) {
        out.paths.clear();
        out.unknown = passwd_problem;
    } else if (passwd_home)
        add("the passwd home's .nccl.conf", cut(*passwd_home + "/.nccl.conf"));
    return out;
}

UcxUserFiles ucx_user_files(const std::optional<std::string> &home, const std::optional<std::string> &ucx_config_dir)
{
    UcxUserFiles out;
    for (const auto &dir : {std::make_pair("HOME", home), std::make_pair("UCX_CONFIG_DIR", ucx_config_dir)}) {
        if (!dir.second)
            continue;
        std::string path = *dir.second + "/ucx.conf";  // "%s/%s"
        if (path[0] != '/') {
            out.paths.clear();
            out.unknown = std::string(dir.first) + "/ucx.conf " + shown(path, 200) +
                          " is a relative path: UCX opens it from the task's working directory, which atoll does not "
                          "read here: atoll does not know which UCX variables it sets, so it sets none";
            return out;
        }
        if (std::find(out.paths.begin(), out.paths.end(), path) == out.paths.end())
            out.paths.push_back(path);
    }
    return out;
}

namespace {

// uid's passwd entry (getpwuid_r, its buffer grown to 1 MiB), or null
const struct passwd *passwd_of(uid_t uid, struct passwd &pw, std::vector<char> &buf)
{
    buf.assign(16384, 0);
    struct passwd *res = nullptr;
    for (;;) {
        int e = getpwuid_r(uid, &pw, buf.data(), buf.size(), &res);
        if (e == ERANGE && buf.size() < (1u << 20)) {
            buf.resize(buf.size() * 4);
            continue;
        }
        return e == 0 ? res : nullptr;
    }
}

}  // namespace

std::optional<std::string> passwd_home_bounded(uid_t uid, std::string &problem, std::chrono::milliseconds bound)
{
    std::string why;
    std::optional<std::optional<std::string>> got = run_bounded<std::optional<std::string>>(
        [uid]() -> std::optional<std::string> {
            std::vector<char> buf;
            struct passwd pw;
            const struct passwd *res = passwd_of(uid, pw, buf);
            if (!res || !res->pw_dir)
                return std::nullopt;
            return std::string(res->pw_dir);
        },
        bound, why);
    if (got)
        return *got;
    problem = "the passwd entry of uid " + std::to_string(uid) + " was not read " +
              (why.empty() ? "within " + std::to_string(bound.count()) + " ms (a stalled directory service?)" : ": " + why) +
              ": NCCL before 2.30 finds the user's .nccl.conf in its home: atoll does not know which NCCL variables it sets, so it sets none";
    return std::nullopt;
}

std::optional<ReadAs> user_ids_bounded(uid_t uid, std::string &problem, std::chrono::milliseconds bound)
{
    std::string why;
    std::optional<std::optional<ReadAs>> got = run_bounded<std::optional<ReadAs>>(
        [uid]() -> std::optional<ReadAs> {
            std::vector<char> buf;
            struct passwd pw;
            const struct passwd *res = passwd_of(uid, pw, buf);
            if (!res || !res->pw_name)
                return std::nullopt;
            ReadAs as;
            as.uid = uid;
            as.gid = res->pw_gid;
            int n = 64;
            for (int tries = 0; tries < 8; ++tries) {
                as.groups.assign(static_cast<std::size_t>(n), 0);
                int want = n;
                if (getgrouplist(res->pw_name, res->pw_gid, as.groups.data(), &want) >= 0) {
                    as.groups.resize(static_cast<std::size_t>(want));
                    return as;
                }
                n = want > n ? want : n * 2;
            }
            return std::nullopt;
        },
        bound, why);
    if (got && *got)
        return *got;
    problem = got ? "uid " + std::to_string(uid) + " has no passwd entry or groups to read its files as"
                  : "the passwd entry and groups of uid " + std::to_string(uid) + " were not read " +
                        (why.empty() ? "within " + std::to_string(bound.count()) + " ms (a stalled directory service?)"
                                     : ": " + why);
    return std::nullopt;
}

namespace {

// The config files a library reads (nccl.conf, ucx.conf), each through the
// reader child within one deadline: path and text of those read; the first
// whose variables are not known ends the reading (`unknown` says why).
std::vector<std::pair<std::string, std::string>> read_conf_files(const std::vector<std::string> &root_files,
                                                                 const std::vector<std::string> &user_files,
                                                                 const std::string &file, const std::string &lib,
                                                                 std::vector<std::string> &problems, std::string &unknown_why,
                                                                 std::chrono::milliseconds bound, const ReadAs *as)
{
    constexpr std::size_t max = 65536;
    const std::string none = ": atoll does not know which " + lib + " variables it sets, so it sets none";
    std::vector<std::pair<std::string, std::string>> texts;  // path, text
    auto deadline = std::chrono::steady_clock::now() + bound;
    auto unknown = [&](const std::string &why) {
        problems.push_back(why);
        if (unknown_why.empty())
            unknown_why = why;
    };
    // every file through the reader child, within the one deadline: the
    // user's, and root's too (/etc/nccl.conf may link to a shared file
    // system that never answers); the first not known ends the reading,
    // since then nothing is set whatever the rest says
    std::vector<std::pair<std::string, bool>> files;  // path, the user's
    for (const std::string &path : user_files)
        files.emplace_back(path, true);
    for (const std::string &path : root_files)
        files.emplace_back(path, false);
    for (const auto &pf : files) {
        const std::string &path = pf.first;
        if (path.empty() || !unknown_why.empty())
            continue;
        std::string whose = pf.second ? "the user's " + file + " " : file + " ";
        std::string why = process_relative(path);
        if (!why.empty()) {
            unknown(whose + shown(path, 200) + " " + why + none);
            continue;
        }
        // one byte past the limit tells a longer file
        UserFile u = read_user_file(path, max + 1, deadline, as);
        if (u.status == UserFile::Status::NotAsUser)
            unknown(whose + shown(path, 200) + " was not read: the reader could not take uid " +
                    std::to_string(as ? as->uid : geteuid()) + "'s ids" + none);
        else if (u.status == UserFile::Status::ThroughProcess)
            unknown(whose + shown(path, 200) + " reaches its file through a link of /proc to the process that opens it "
                    "(such as /proc/self/cwd): NCCL's, in the task, may open another file" + none);
        else if (u.status == UserFile::Status::TimedOut)
            unknown(whose + shown(path, 200) + " was not read within " +
                    (bound.count() < 1000 ? std::to_string(bound.count()) + " ms"
                                          : std::to_string((bound.count() + 999) / 1000) + " s") +
                    " (a stalled file system?)" + none);
        else if (u.status == UserFile::Status::Unreadable && u.error == 0 && squeezed(path) != "/dev/null")
            unknown(whose + shown(path, 200) + " is not a regular file: atoll does not read it, " + lib +
                    " reads whatever it gives (a device such as /dev/zero never ends)" + none);
        else if (u.text.size() > max)
            unknown(whose + shown(path, 200) + " is longer than " +
                    std::to_string(max / 1024) + " KiB, all of which " + lib + " reads" + none);
        else
            texts.emplace_back(path, u.text);
    }
    return texts;
}

}  // namespace

NcclConfVars nccl_conf_vars(const std::vector<std::string> &root_files, const std::vector<std::string> &user_files,
                            std::vector<std::string> &problems, std::chrono::milliseconds bound, const ReadAs *as)
{
    // as NCCL's initEnvFunc (misc/param.cc): the user's file first, then
    // /etc/nccl.conf; its setenv does not overwrite, so the first file and
    // line that names a variable is the one NCCL uses
    NcclConfVars out;
    for (const auto &pt : read_conf_files(root_files, user_files, "nccl.conf", "NCCL", problems, out.unknown, bound, as)) {
        for (const NcclConfLine &l : nccl_conf_lines(pt.second))
            out.vars.emplace(l.name, pt.first);
        for (const NcclConfLine &l : nccl_conf_lines_before_2_30(pt.second))
            out.vars.emplace(l.name, pt.first);
    }
    return out;
}

NcclConfVars ucx_conf_vars(const std::vector<std::string> &root_files, const std::vector<std::string> &user_files,
                           std::vector<std::string> &problems, std::chrono::milliseconds bound, const ReadAs *as)
{
    // UCX reads every file and a later one overrides (ucs_config_parse_config_files):
    // the variable is the last file's; a line in a section counts whatever
    // the section's CPU or machine filter says
    NcclConfVars out;
    auto texts = read_conf_files(root_files, user_files, "ucx.conf", "UCX", problems, out.unknown, bound, as);
    // read in UCX's order: root's, then the user's; the last naming one wins
    std::stable_partition(texts.begin(), texts.end(), [&](const std::pair<std::string, std::string> &pt) {
        return std::find(user_files.begin(), user_files.end(), pt.first) == user_files.end();
    });
    for (const auto &pt : texts)
        for (const UcxConfLine &l : ucx_conf_lines(pt.second))
            if (l.name.rfind("UCX_", 0) == 0)
                out.vars[l.name] = pt.first;
    return out;
}

int devices_constrained(const PluginConfig &cfg)
{
    if (cfg.constrain_devices >= 0)
        return cfg.constrain_devices;
    const char *conf = std::getenv("SLURM_CONF");
    std::string path = conf && *conf ? conf : "/etc/slurm/slurm.conf";
    path = path.substr(0, path.rfind('/') + 1) + "cgroup.conf";
    std::optional<std::string> text = read_small_file(path, 65536);
    if (!text)
        return -1;
    int result = 0;
    std::istringstream in(*text);
    std::string line;
    while (std::getline(in, line)) {
        std::string l;
        for (char c : line)
            if (!std::isspace(static_cast<unsigned char>(c)))
                l += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (l.rfind("constraindevices=", 0) == 0)
            result = l.substr(17) == "yes" ? 1 : 0;
    }
    return result;
}

std::string per_node_path(const std::string &pattern, const std::string &node)
{
    std::string out = pattern;
    std::string::size_type p = 0;
    while ((p = out.find("%n", p)) != std::string::npos) {
        out.replace(p, 2, node);
        p += node.size();
    }
    return out;
}

std::vector<GpuHca> gpu_hca_pairs(atl_gpu_hcas_fn fn, const std::string &xml,
                                  const std::vector<std::pair<std::string, int>> &hcas, uid_t owner,
                                  std::map<std::string, std::set<std::string>> *seen)
{
    struct stat st;
    Fd fd(open_trusted(xml, "hwloc XML", st, owner));
    // hwloc reads the descriptor already checked, not the name again
    std::string via = "/proc/self/fd/" + std::to_string(fd.fd);
    if (hcas.empty())
        return gpu_hcas_via(fn, via, nullptr, seen);
    return gpu_hcas_via(fn, via, [&](const std::string &name) {
        for (const auto &hp : hcas)
            if (hp.first == name)
                return true;
        return false;
    }, seen);
}

}  // namespace atl
