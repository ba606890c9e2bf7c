// The node's and the task's environment: what atoll sets, keeps or leaves alone, and why.
#include "spank/env.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <set>

#include "spank/record.hpp"

namespace atl {

namespace {
// The first interfaces of a node, for a message
std::string first_netdevs(const std::vector<std::string> &n)
{
    std::string out;
    for (std::size_t i = 0; i < n.size() && i < 8; ++i)
        out += (i ? ", " : "") + escaped(n[i], 20);
    return out + (n.size() > 8 ? " and " + std::to_string(n.size() - 8) + " more" : "");
}

// Does NCCL_SOCKET_IFNAME `spec` take interface `name`? As NCCL's
// findInterfaces (misc/socket.cc): a leading '^' excludes the list, then a
// '=' asks exact names; the list is comma-separated "prefix[:port]", empty
// entries dropped, at most MAX_IFS (16) kept (parseStringList), and a
// prefix matches the start of a name (matchIf); an empty list matches every
// interface (matchIfList), so "^," matches none.
bool nccl_ifname_match(std::string spec, const std::string &name)
{
    const bool exclude = !spec.empty() && spec[0] == '^';
    if (exclude)
        spec.erase(0, 1);
    const bool exact = !spec.empty() && spec[0] == '=';
    if (exact)
        spec.erase(0, 1);
    bool match = false;
    int entries = 0;
    std::istringstream in(spec);
    for (std::string tok; entries < 16 && std::getline(in, tok, ',');) {
        const std::string prefix = tok.substr(0, tok.find(':'));
        if (prefix.empty())
            continue;
        ++entries;
        if (exact ? name == prefix : name.compare(0, prefix.size(), prefix) == 0)
            match = true;
    }
    if (entries == 0)
        match = true;
    return match != exclude;
}


// why a UCX variable is left to the ucx.conf files, or "": one names it (the
// environment would override it), or what they set is not known
std::string ucx_conf_says(const NodeFacts &facts, const std::string &name)
{
    auto it = facts.ucx_conf.find(name);
    if (it != facts.ucx_conf.end())
        return "set in " + escaped(it->second, 1100) + ", which UCX reads (the environment would override it): left to it";
    return facts.ucx_conf_unknown;
}

const char *profile_note(const std::string &p)
{
    if (p == "aws")
        return "AWS: aws-ofi-nccl configures EFA itself";
    if (p == "gcp")
        return "GCP: the image's gIB setup (set_nccl_env.sh) configures NCCL";
    if (p == "azure")
        return "Azure: InfiniBand VMs, the image's /etc/nccl.conf configures NCCL";
    if (p == "cloud")
        return "a cloud fabric: its own NCCL plugin configures the network";
    if (p == "oci")
        return "OCI: the image's /etc/nccl.conf (oci-hpc) names the shape's RDMA NICs";
    if (p == "nebius")
        return "Nebius: its topology API names no adapters";
    if (p == "generic")
        return "a site's CSV topology names no adapters";
    return "";
}

std::vector<int> int_list(const std::string &s, bool &ok)
{
    std::vector<int> v;
    ok = true;
    std::size_t p = 0;
    while (p < s.size()) {
        char *end = nullptr;
        errno = 0;
        long x = std::strtol(s.c_str() + p, &end, 10);
        if (end == s.c_str() + p || errno || x < 0 || x > 4095) {
            ok = false;
            return {};
        }
        v.push_back(static_cast<int>(x));
        p = static_cast<std::size_t>(end - s.c_str());
        if (p < s.size() && s[p] != ',') {
            ok = false;
            return {};
        }
        ++p;
    }
    return v;
}

}  // namespace

namespace {

// A port known to be down that holds no routable address: nothing NCCL or
// UCX could open on it has a slot an index or a class could miss.
bool down_without_address(const NodePort &p) { return p.known_inactive() && routable_gids(p).empty(); }

// whether NCCL_IB_HCA (atoll's) names the port
bool in_hca(const NodeDevices &dev, const NodePort &p)
{
    return std::any_of(dev.ports.begin(), dev.ports.end(),
                       [&](const std::pair<std::string, int> &hp) { return p.hca == hp.first && p.port == hp.second; });
}

// What is wrong with GID index `index` on a RoCE port for a routed fabric:
// "" when it is a routable RoCE v2 GID
std::string gid_slot_problem(const NodePort &p, int index)
{
    const GidEntry *e = nullptr;
    for (const GidEntry &g : p.gids)
        if (g.index == index)
            e = &g;
    return !e                ? "no address"
           : e->version == 1 ? "a RoCE v1 GID"
           : e->version != 2 ? "a GID of no known RoCE type (gid_attrs/types unread)"
           : !e->routable()  ? "a link-local or loopback GID (" + e->gid + ")"
                             : "";
}

// NCCL_IB_GID_INDEX and UCX_IB_GID_INDEX on RoCE, from each compute port's
// GID table and what NCCL (ncclIbGetGidIndex, >= 2.21) and UCX
// (uct_ib_device_select_gid) would take by themselves: set only where it is
// the one routable RoCE v2 GID of every port, and say when it is the
// libraries' own choice.
template <class Add, class Skip>
void roce_gid_env(const PluginConfig &cfg, const NodeFacts &facts, const NodeDevices &dev,
                  const std::function<bool(const std::string &)> &user_has, bool hca_ours, Add add, Skip skip)
{
    // The ports NCCL opens with the index: every one NCCL_IB_HCA names that is
    // ACTIVE or not known to be closed (a state file unread), and one DOWN
    // now that has an address, which it opens should it come up before the
    // communicator (a DOWN port with no routable address yet has no GID the
    // index could miss).
    std::vector<const NodePort *> ports;
    for (const NodePort &p : facts.ports)
        if (in_hca(dev, p) && !down_without_address(p))
            ports.push_back(&p);
    auto port_name = [](const NodePort *p) {
        return p->hca + ":" + std::to_string(p->port) +
               (p->known_inactive() ? " (" + p->state_text() + " now, opened should it come up)" : std::string());
    };
    // the site's pin: bad when it names no routable RoCE v2 GID on a port
    auto pin_bad = [&](const NodePort &p) { return gid_slot_problem(p, cfg.gid_index); };
    // the user's (or an nccl.conf's) choice of NCCL's GID: an index, the
    // site's pin too, would override it
    std::string chooses;
    for (const char *u : {"NCCL_IB_ADDR_FAMILY", "NCCL_IB_ADDR_RANGE", "NCCL_IB_ROCE_VERSION_NUM"}) {
        auto conf = facts.nccl_conf.find(u);
        if (chooses.empty() && (user_has(u) || conf != facts.nccl_conf.end()))
            chooses = std::string(conf != facts.nccl_conf.end() && !user_has(u) ? escaped(conf->second, 1100) + "'s " : "the user's ") +
                      u + " chooses NCCL's GID (an index would override it)";
    }
    // The other RDMA ports: UCX takes one index on every device it opens
    // (unless UCX_NET_DEVICES names others), and NCCL on every one the
    // user's NCCL_IB_HCA names: a front-end or storage port too. One DOWN
    // with no routable address has no slot to miss; an InfiniBand one's
    // table is not read here, whatever its state (INIT becomes ACTIVE at the
    // subnet manager's next sweep). What is wrong with `index` on the first
    // such port, "" none.
    auto other_port_problem = [&](int index, const std::string &what) {
        for (const NodePort &o : facts.ports) {
            const bool ethernet = o.link_layer == "Ethernet";
            if (in_hca(dev, o) || (ethernet && down_without_address(o)))
                continue;
            if (std::string bad = ethernet ? gid_slot_problem(o, index) : "not read (an " + shown(o.link_layer, 20) + " port)";
                !bad.empty())
                return what + std::to_string(index) + " is " + bad + " on " + o.hca + ":" + std::to_string(o.port) +
                       ", no compute port";
        }
        return std::string();
    };
    if (cfg.gid_index >= 0) {
        for (const NodePort *p : ports)
            if (std::string bad = pin_bad(*p); !bad.empty()) {
                std::string why = "gid_index=" + std::to_string(cfg.gid_index) + " is " + bad + " on " + port_name(p) +
                                  ": not set (a wrong GID times out every connection)";
                skip("NCCL_IB_GID_INDEX", why);
                skip("UCX_IB_GID_INDEX", why);
                return;
            }
        const std::string other_bad = other_port_problem(cfg.gid_index, "gid_index=");
        if (!chooses.empty())
            skip("NCCL_IB_GID_INDEX", chooses);
        else if (!hca_ours && !other_bad.empty())
            skip("NCCL_IB_GID_INDEX", other_bad + ", which the devices NCCL_IB_HCA names (not atoll's) may include: not set");
        else
            add("NCCL_IB_GID_INDEX", std::to_string(cfg.gid_index), "site RoCE GID index (gid_index)");
        if (!other_bad.empty())
            skip("UCX_IB_GID_INDEX", other_bad + ", which UCX opens too unless UCX_NET_DEVICES names others: not set");
        else
            add("UCX_IB_GID_INDEX", std::to_string(cfg.gid_index), "site RoCE GID index (gid_index)");
        return;
    }
    if (!chooses.empty()) {
        skip("NCCL_IB_GID_INDEX", chooses);
        ports.clear();
    }
    // NCCL_IB_GID_INDEX applies to every device NCCL opens: only where those
    // are the ports atoll checked, the ones it put in NCCL_IB_HCA
    if (!ports.empty() && !hca_ours && !facts.nccl_conf_unknown.empty()) {
        skip("NCCL_IB_GID_INDEX", facts.nccl_conf_unknown);
        ports.clear();
    }
    if (!ports.empty() && !hca_ours) {
        skip("NCCL_IB_GID_INDEX", "NCCL_IB_HCA is not atoll's (the user's or an nccl.conf's): the devices it names were "
                                  "not checked, and NCCL picks each one's GID itself");
        ports.clear();
    }
    // UCX takes each port's IPv4 RoCE v2 GID (then IPv6 not link-local;
    // before 1.21 IPv6 link-local too) itself, the first listed
    // (uct_ib_device_select_gid), a 169.254/16 one too: left to it only
    // where what either release takes is routable (helpers 46, 49)
    std::string ucx, ucx_bad;
    for (const NodePort *p : ports) {
        const int u = ucx_gid_index(*p), old = ucx_gid_index(*p, true);
        ucx += (ucx.empty() ? "" : ", ") + port_name(p) + " " + std::to_string(u);
        for (int k : {u, old}) {
            const std::string who = k == u ? "" : " (UCX before 1.21)";
            if (ucx_bad.empty() && k < 0)
                ucx_bad = "none on " + port_name(p) + who;
            else if (std::string bad = ucx_bad.empty() ? gid_slot_problem(*p, k) : std::string(); !bad.empty())
                ucx_bad = std::to_string(k) + " on " + port_name(p) + who + ", " + bad;
        }
    }
    if (!ucx.empty() && ucx_bad.empty())
        skip("UCX_IB_GID_INDEX", "UCX picks each port's RoCE v2 GID itself, IPv4 first (" + ucx + ")");
    if (ports.empty())
        return;
    auto ucx_skip = [&](const std::string &why) {
        if (!ucx_bad.empty())
            skip("UCX_IB_GID_INDEX", why + " (UCX alone would take " + ucx_bad + ")");
    };
    std::set<int> want;
    bool nccl_same = true, v6 = false, v4 = false;
    for (const NodePort *p : ports) {
        std::vector<const GidEntry *> r = routable_gids(*p);
        if (r.empty()) {
            skip("NCCL_IB_GID_INDEX", port_name(p) + " has no routable RoCE v2 GID (only link-local, such as fe80::/10 or "
                                                      "169.254/16, or none): check its "
                                                      "IP address; NCCL would take " + std::to_string(nccl_gid_index(*p)) +
                                                      gid_unread_note(*p));
            ucx_skip(port_name(p) + " has no routable RoCE v2 GID");
            return;
        }
        // two addresses of one family (a second IP, a VLAN or macvlan device):
        // which one is the compute network is not known here
        if (r.size() > 1 && r[1]->ipv4() == r[0]->ipv4()) {
            skip("NCCL_IB_GID_INDEX", port_name(p) + " has several routable RoCE v2 GIDs (" + std::to_string(r[0]->index) + " on " +
                                          (r[0]->ndev.empty() ? "?" : r[0]->ndev) + ", " + std::to_string(r[1]->index) + " on " +
                                          (r[1]->ndev.empty() ? "?" : r[1]->ndev) +
                                          "): NCCL and UCX take the first; set gid_index= if another is the compute network");
            ucx_skip(port_name(p) + " has several routable RoCE v2 GIDs: set gid_index= if another is the compute network");
            return;
        }
        want.insert(r[0]->index);
        v6 = v6 || !r[0]->ipv4();
        v4 = v4 || r[0]->ipv4();
        nccl_same = nccl_same && nccl_gid_index(*p) == r[0]->index;
    }
    const std::string family = v4 && v6 ? "IPv4 on some ports, IPv6 on others" : v6 ? "IPv6" : "IPv4";
    // one index for every device UCX opens: it must hold on the other RDMA
    // ports too (helper 49: a front-end port's slot 5 was empty)
    const std::string ucx_other = want.size() == 1 ? other_port_problem(*want.begin(), "index ") : std::string();
    if (!ucx_bad.empty() && want.size() == 1 && ucx_other.empty())
        add("UCX_IB_GID_INDEX", std::to_string(*want.begin()),
            "the only routable RoCE v2 GID of every compute port here (" + family + "); UCX alone would take " + ucx_bad);
    else if (want.size() == 1)
        ucx_skip(ucx_other + ", which UCX opens too unless UCX_NET_DEVICES names others");
    else
        ucx_skip("the ports' routable RoCE v2 GIDs have different indexes: set gid_index=");
    if (want.size() == 1 && nccl_same) {
        add("NCCL_IB_GID_INDEX", std::to_string(*want.begin()),
            (v4 && v6 ? "the RoCE v2 GID (" + family + ")" : "the " + family + " RoCE v2 GID") +
                " of every compute port here: what NCCL >= 2.21 picks itself; NCCL < 2.21 would take 0, "
                "a link-local GID that routers do not forward");
    } else if (want.size() == 1) {
        add("NCCL_IB_GID_INDEX", std::to_string(*want.begin()),
            std::string("the only routable RoCE v2 GID of every compute port here (") + family +
                "); NCCL alone would take " + std::to_string(nccl_gid_index(*ports[0])) + " on " + port_name(ports[0]));
    } else if (nccl_same) {
        skip("NCCL_IB_GID_INDEX", "the ports' IPv4 RoCE v2 GIDs have different indexes: NCCL >= 2.21 picks each itself "
                                  "(one index cannot serve them; NCCL < 2.21 needs gid_index=)");
    } else {
        skip("NCCL_IB_GID_INDEX", "the ports' routable RoCE v2 GIDs have different indexes and NCCL alone would take "
                                  "another on some: set gid_index= or NCCL_IB_ADDR_FAMILY");
    }
}

}  // namespace

const char *const kUserOnly = "atoll would set none: ";

const char *const order_env_names[5] = {"ATOLL_DOMAIN", "ATOLL_DOMAINS", "ATOLL_NODE_ORDER", "ATOLL_NODE_RANK",
                                        "ATOLL_RANK"};

int uniform_tasks_per_node(unsigned nnodes, unsigned total, unsigned local, const std::string &tasks_per_node,
                           std::string &why)
{
    if (nnodes == 0 || local == 0) {
        why = "Slurm gave no step layout (S_JOB_NNODES, S_JOB_LOCAL_TASK_COUNT)";
        return -1;
    }
    if (static_cast<unsigned long long>(nnodes) * local != total) {
        why = std::to_string(total) + " tasks on " + std::to_string(nnodes) + " nodes, " + std::to_string(local) +
              " here: the nodes run different numbers of tasks";
        return -1;
    }
    // "N" or "N(xK)" items, comma separated: every N the same, the K summing to nnodes
    unsigned long long nodes = 0;
    std::size_t p = 0;
    const std::string &t = tasks_per_node;
    auto bad = [&]() {
        why = "SLURM_STEP_TASKS_PER_NODE " + shown(t, 40) + " is not Slurm's \"N(xK),M\" form";
        return -1;
    };
    if (t.empty() || t.size() > 4096)
        return bad();
    while (p < t.size()) {
        std::size_t q = p;
        while (q < t.size() && std::isdigit(static_cast<unsigned char>(t[q])))
            ++q;
        if (q == p || q - p > 6)
            return bad();
        unsigned long n = std::stoul(t.substr(p, q - p)), k = 1;
        if (q < t.size() && t[q] == '(') {
            std::size_t r = q + 2;
            if (t.compare(q, 2, "(x") != 0)
                return bad();
            while (r < t.size() && std::isdigit(static_cast<unsigned char>(t[r])))
                ++r;
            if (r == q + 2 || r - q - 2 > 7 || r >= t.size() || t[r] != ')')
                return bad();
            k = std::stoul(t.substr(q + 2, r - q - 2));
            q = r + 1;
        }
        if (n != local) {
            why = "SLURM_STEP_TASKS_PER_NODE=" + shown(t, 40) + ": the nodes run different numbers of tasks";
            return -1;
        }
        nodes += k;
        if (q < t.size() && t[q] != ',')
            return bad();
        p = q + 1;
        if (q + 1 == t.size())
            return bad();
    }
    if (nodes != nnodes) {
        why = "SLURM_STEP_TASKS_PER_NODE=" + shown(t, 40) + " names " + std::to_string(nodes) + " nodes, the step has " +
              std::to_string(nnodes);
        return -1;
    }
    return static_cast<int>(local);
}

StepOrder step_order(const FabricSummary &s, const StepInfo &step)
{
    StepOrder o;
    std::vector<std::string> unknown;
    for (const std::string &h : step.nodes)
        if (!s.hosts.count(h))
            unknown.push_back(h);
    if (!unknown.empty() || step.nodes.empty()) {
        o.why = step.nodes.empty() ? "the step's node list is not known"
                                   : std::to_string(unknown.size()) + " step node(s) absent from the fabric file (" +
                                         unknown[0] + (unknown.size() > 1 ? ", ..." : "") +
                                         "): the step's topology order is not known";
        return o;
    }
    o.order = view_order(s, step.nodes);
    for (std::size_t i = 0; i < o.order.size(); ++i)
        if (o.order[i] == step.node)
            o.node_rank = static_cast<int>(i);
    return o;
}

void plan_step_ranks(const FabricSummary &s, const StepInfo &step, const Parallelism &par, const std::string &spec,
                     StepOrder &o)
{
    o.task_ranks.clear();
    const std::string what = "--fabric-ranks=" + shown(spec, 80);
    if (o.order.empty() || o.node_rank < 0) {
        o.source = what + ": " + (o.why.empty() ? "the step's topology order is not known" : o.why);
        return;
    }
    if (step.tasks_per_node <= 0) {
        o.source = what + ": " + step.layout_why + " (a plan needs one task per GPU, the same on every node)";
        return;
    }
    std::vector<RankHost> hs = rank_hosts(s, step.nodes);
    std::map<std::string, int> index;
    for (std::size_t i = 0; i < step.nodes.size(); ++i)
        index.emplace(step.nodes[i], static_cast<int>(i));
    std::vector<int> topo;
    for (const std::string &n : o.order)
        topo.push_back(index.at(n));
    int me = index.at(step.node);
    try {
        RankPlan plan = plan_ranks(hs, topo, step.tasks_per_node, par);
        for (int g = 0; g < step.tasks_per_node; ++g)
            o.task_ranks.push_back(plan.rank[static_cast<std::size_t>(me * step.tasks_per_node + g)]);
        o.source = what + " (" + plan.note + ")";
    } catch (const RankError &e) {
        o.source = what + ": " + e.what() + " for this step of " + std::to_string(step.nodes.size()) + " nodes x " +
                   std::to_string(step.tasks_per_node) + " tasks";
    }
}

EnvVar task_rank(const StepOrder &o, const StepInfo &step, int local_id)
{
    EnvVar v{"ATOLL_RANK", "", "", false, false};
    if (o.node_rank < 0)
        v.why = o.why.empty() ? "this node is not in the step's order" : o.why;
    else if (step.batch)
        v.why = "the batch step: each srun step sets its own";
    else if (o.task_ranks.empty() && !o.source.empty())
        v.why = o.source + ": no ATOLL_RANK";  // a plan was asked for and cannot be
    else if (!o.task_ranks.empty()) {
        if (local_id < 0 || static_cast<std::size_t>(local_id) >= o.task_ranks.size()) {
            v.why = o.source + " gives no rank for local id " + std::to_string(local_id);
        } else {
            v.value = std::to_string(o.task_ranks[static_cast<std::size_t>(local_id)]);
            v.set = true;
            v.why = o.source + ", local id " + std::to_string(local_id);
        }
    } else if (step.tasks_per_node <= 0)
        v.why = step.layout_why + ": no global rank in atoll's order";
    else if (local_id < 0 || local_id >= step.tasks_per_node)
        v.why = "the task's local id is not known";
    else {
        long long r = static_cast<long long>(o.node_rank) * step.tasks_per_node + local_id;
        v.value = std::to_string(r);
        v.set = true;
        v.why = "node rank " + std::to_string(o.node_rank) + " x " + std::to_string(step.tasks_per_node) +
                " tasks per node + local id " + std::to_string(local_id) + " (atoll's topology order)";
    }
    return v;
}

std::string slurm_order_note(const StepInfo &step, const StepOrder &o)
{
    if (o.order.empty() || o.order == step.nodes)
        return "";
    std::string d;
    std::size_t n = 0;
    for (std::size_t i = 0; i < step.nodes.size() && i < o.order.size(); ++i)
        if (step.nodes[i] != o.order[i]) {
            if (++n <= 4)
                d += (d.empty() ? "" : ", ") + std::string("node ") + std::to_string(i) + " is " + step.nodes[i] +
                     " for Slurm, " + o.order[i] + " for atoll";
        }
    return std::to_string(n) + " of " + std::to_string(step.nodes.size()) + " positions differ (" + d +
           (n > 4 ? ", ..." : "") + ")";
}

namespace {

// ATOLL_DOMAIN, ATOLL_DOMAINS, ATOLL_NODE_ORDER, ATOLL_NODE_RANK, and what
// NCCL's multi-node NVLink needs (an IMEX channel): never a NCCL variable.
template <class Put, class Skip>
void order_env(const FabricSummary &s, const StepInfo &step, const NodeFacts &facts, Put put, Skip skip)
{
    StepOrder o = step_order(s, step);
    if (o.node_rank < 0) {
        for (const char *n : order_env_names)
            if (std::string(n) != "ATOLL_RANK")
                skip(n, o.why);
        return;
    }
    const ViewHost &me = s.hosts.at(step.node);
    std::string whose = step.batch ? "the job's" : "the step's";
    if (me.domain >= 0)
        put("ATOLL_DOMAIN", me.domain_id,
            "this node's NVLink domain (island " + s.islands[static_cast<std::size_t>(me.domain)].name + ")" +
                (me.subdomain.empty() ? std::string() : ", rack sub-domain " + me.subdomain));
    else
        skip("ATOLL_DOMAIN", s.version < 3 ? "the view (version " + std::to_string(s.version) +
                                                 ") carries no NVLink domains: regenerate it with atoll-topo slurm --format view"
                                           : "this node is in no NVLink domain of the fabric file");
    std::vector<std::string> ids;
    std::size_t none = 0;
    for (const std::string &h : o.order) {
        const ViewHost &vh = s.hosts.at(h);
        if (vh.domain < 0)
            ++none;
        else if (std::find(ids.begin(), ids.end(), vh.domain_id) == ids.end())
            ids.push_back(vh.domain_id);
    }
    std::string list;
    for (const std::string &i : ids)
        list += (list.empty() ? "" : ",") + i;
    if (ids.empty())
        skip("ATOLL_DOMAINS", std::string("no node of the ") + (step.batch ? "job" : "step") + " is in an NVLink domain");
    else
        put("ATOLL_DOMAINS", list,
            std::to_string(ids.size()) + " NVLink domain(s) of " + whose + " nodes, in topology order" +
                (none ? " (" + std::to_string(none) + " node(s) in none)" : std::string()));
    std::string nodes;
    for (const std::string &h : o.order)
        nodes += (nodes.empty() ? "" : ",") + h;
    constexpr std::size_t max_order = 64 * 1024;
    if (nodes.size() > max_order) {
        std::string why = "the order of " + std::to_string(o.order.size()) + " nodes takes " + std::to_string(nodes.size()) +
                          " bytes, more than 64 KiB (use atoll-place order for a hostfile)";
        skip("ATOLL_NODE_ORDER", why);
    } else {
        put("ATOLL_NODE_ORDER", nodes, whose + " nodes in topology order (pod, group, leaf, NVLink domain)");
    }
    put("ATOLL_NODE_RANK", std::to_string(o.node_rank), "this node's place in that order, from 0");
    // multi-node NVLink: this node shares its domain with another node of the
    // step (the job's, for the batch step); NCCL >= 2.25 fails a communicator
    // of several domains too, once one of them holds two ranks' nodes
    std::size_t peers = 0;  // step nodes in this node's domain, itself included
    if (me.domain >= 0)
        for (const std::string &h : o.order)
            peers += s.hosts.at(h).domain == me.domain;
    if (peers > 1) {
        const std::string here = me.domain_id;
        const ImexChannels &c = facts.imex;
        std::string why;
        if (!facts.imex_read)
            why = "the IMEX channels were not read";
        else if (c.usable.empty())
            why = "the " + std::to_string(peers) + " nodes share NVLink domain " + here +
                  (ids.size() > 1 ? " (of the " + std::to_string(ids.size()) + " domains of the step)" : std::string()) + " but " +
                  (c.problem.empty() ? (c.dir_found ? "no IMEX channel in " + c.dir + " is usable by the job's user" +
                                                          (c.refused.empty() ? std::string() : " (" + c.refused[0] + ")")
                                                    : c.dir + " does not exist")
                                     : "the IMEX channels were not read (" + c.problem + ")") +
                  ": multi-node NVLink cannot work (NCCL >= 2.25 fails the communicator's init, \"MNNVL ... available "
                  "but not working\"; only NCCL_MNNVL_ENABLE=0 makes it fall back to the network)";
        else
            why = "IMEX channel " + c.dir + "/" + c.usable[0] + " is usable: NCCL >= 2.21 (NCCL_MNNVL_ENABLE=2, auto) "
                  "uses multi-node NVLink in domain " + here + " itself when the GPUs' fabric state is Completed";
        skip("NCCL_MNNVL_ENABLE", why + " (atoll never sets it)");
    }
}

}  // namespace

std::vector<EnvVar> node_env(const FabricView &f, const PluginConfig &cfg, const UserOptions &opt,
                             const StepInfo &step, const NodeFacts &facts,
                             const std::function<bool(const std::string &)> &user_has)
{
    const FabricSummary &s = f.summary;
    auto me = s.hosts.find(step.node);
    if (me == s.hosts.end())
        throw std::runtime_error("node " + step.node + " is not in the fabric " + s.source);
    std::set<int> leaves;
    std::size_t known = 0;
    std::vector<std::string> unknown;
    bool rails_ok = true;
    int per_leaf = 0;
    for (const auto &h : step.nodes) {
        auto it = s.hosts.find(h);
        if (it == s.hosts.end()) {
            unknown.push_back(h);
            continue;
        }
        ++known;
        leaves.insert(it->second.leaf);
        rails_ok = rails_ok && it->second.rails_ok;
        per_leaf = it->second.per_leaf == 0 ? 99 : std::max(per_leaf, it->second.per_leaf);
    }
    // the smallest island above every leaf of the step (parents are checked
    // to rise a level each, so a chain has at most four links)
    auto chain = [&](int i) {
        std::vector<int> c;
        for (; i >= 0 && c.size() < 8; i = s.islands[static_cast<std::size_t>(i)].parent)
            c.push_back(i);
        return c;
    };
    int island = -1;
    if (!leaves.empty()) {
        std::vector<std::vector<int>> chains;
        for (int l : leaves)
            chains.push_back(chain(l));
        for (int cand : chains[0]) {
            bool all = true;
            for (const auto &c : chains)
                all = all && std::find(c.begin(), c.end(), cand) != c.end();
            if (all) {
                island = cand;
                break;
            }
        }
    }
    std::vector<EnvVar> out;
    // what the cloud's own stack sets is never contradicted
    const std::string machine_type = facts.cloud.machine_type.empty() ? cfg.machine_type : facts.cloud.machine_type;
    auto add = [&](const std::string &name, const std::string &value, const std::string &why) {
        EnvVar v{name, value, why, false, true};
        // an nccl.conf's ATOLL_* would reach NCCL's process alone, after the
        // job's scripts read atoll's: atoll's own variables are atoll's
        auto conf = name.rfind("ATOLL_", 0) == 0 ? facts.nccl_conf.end() : facts.nccl_conf.find(name);
        std::string theirs = cloud_refrains(f.profile, name, machine_type, facts.cloud);
        if (user_has(name) && !step.atoll_set.count(name)) {
            v.kept = true;
        } else if (!theirs.empty()) {
            v.set = false;
            v.value.clear();
            v.why = theirs + ": left to it";
        } else if (conf != facts.nccl_conf.end()) {
            v.kept = true;
            v.value.clear();
            v.why = "set in " + escaped(conf->second, 1100);
        } else if (!facts.nccl_conf_unknown.empty() && name.rfind("ATOLL_", 0) != 0) {
            // an nccl.conf atoll could not read may set it, and NCCL's file
            // never overrides the environment: a value here could win over it
            v.set = false;
            v.value.clear();
            v.why = facts.nccl_conf_unknown;
        } else if (name.rfind("UCX_", 0) == 0) {
            // UCX's files too give way to the environment (ucs_config_apply_config_vars)
            std::string files = ucx_conf_says(facts, name);
            if (!files.empty()) {
                v.set = false;
                v.value.clear();
                v.why = files;
            }
        }
        out.push_back(v);
    };
    // what atoll would not set and the user has is the user's, kept (and
    // said so, with atoll's reason); an earlier step's value of atoll's is
    // not the user's, and atoll's own order variables are never the user's
    auto skip = [&](const std::string &name, const std::string &why) {
        if (user_has(name) && !step.atoll_set.count(name) && name.rfind("ATOLL_", 0) != 0)
            out.push_back(EnvVar{name, "", kUserOnly + why, true, true});
        else
            out.push_back(EnvVar{name, "", why, false, false});
    };
    if (!unknown.empty()) {
        // a node the fabric does not place: the step's island, leaves and
        // hops are not known, and what the placed nodes alone give is wrong
        std::string why = std::to_string(unknown.size()) + " step node(s) absent from the fabric file (" +
                          unknown[0] + (unknown.size() > 1 ? ", ..." : "") + "): the step's island is not known";
        skip("ATOLL_ISLAND", why);
        skip("ATOLL_LEAVES", why);
        skip("ATOLL_HOPS", why);
    } else if (island >= 0) {
        const ViewIsland &is = s.islands[static_cast<std::size_t>(island)];
        std::string names;
        for (int l : leaves)
            names += (names.empty() ? "" : ",") + s.islands[static_cast<std::size_t>(l)].name;
        std::string whose = step.batch ? "the job's nodes" : "the step's nodes";
        add("ATOLL_ISLAND", is.name, "the smallest island holding " + whose + " (" + to_string(is.level) + ")");
        add("ATOLL_LEAVES", names, std::to_string(leaves.size()) + " leaf island(s) spanned");
        add("ATOLL_HOPS", std::to_string(known > 1 ? is.hops : 0), "cables on the longest host-to-host path");
    }
    if (!unknown.empty())
        add("ATOLL_UNMAPPED", std::to_string(unknown.size()), "step nodes absent from the fabric file");
    // the step's order and domains are atoll's alone: a job's own value is
    // replaced, never kept or read
    auto put = [&](const std::string &name, const std::string &value, const std::string &why) {
        out.push_back(EnvVar{name, value, user_has(name) && !step.atoll_set.count(name) ? why + "; the job's own value replaced" : why,
                             false, true});
    };
    auto record = [&]() {
        order_env(s, step, facts, put, skip);
        std::string r = env_set_record(out);
        if (!r.empty())
            out.push_back(EnvVar{"ATOLL_ENV_SET", r, "what atoll set (name:hash of the value), recomputed by a later step",
                                 false, true});
        return out;
    };
    // the site's network keys where no network variable is set: said, not dropped
    auto roce_keys_left = [&](const std::string &why) {
        if (cfg.roce_tc >= 0) {
            skip("NCCL_IB_TC", "roce_tc= not applied: " + why);
            skip("UCX_IB_TRAFFIC_CLASS", "roce_tc= not applied: " + why);
        }
        if (cfg.fifo_tc >= 0)
            skip("NCCL_IB_FIFO_TC", "roce_fifo_tc= not applied: " + why);
        if (cfg.gid_index >= 0) {
            skip("NCCL_IB_GID_INDEX", "gid_index= not applied: " + why);
            skip("UCX_IB_GID_INDEX", "gid_index= not applied: " + why);
        }
    };
    auto site_keys_left = [&](const std::string &why) {
        if (!cfg.socket_ifname.empty())
            skip("NCCL_SOCKET_IFNAME", "socket_ifname= not applied: " + why);
        roce_keys_left(why);
    };
    if (!device_profile(f.profile) && !node_adapter_profile(f.profile)) {
        skip("NCCL_IB_HCA", profile_note(f.profile));
        site_keys_left("atoll sets no network variable on " + f.profile + " fabrics (" + profile_note(f.profile) + ")");
        return record();
    }
    // an adapter name of this node another node's description claims too
    // is settled here when exactly one claimant's GUID is this node's own;
    // an odd host (adapter names made up by others beside its rails) when
    // its rails are its own and it has fewer other active ports
    std::string claim_why;
    const bool settled = s.undecided.count(step.node) && settle_claims(s, step.node, facts.ports, &claim_why);
    if (s.undecided.count(step.node) && !settled) {
        skip("NCCL_IB_HCA", "the fabric could not tell which of this node's adapters are its compute rails (LLDP "
                            "without speeds or all of one speed, a node like no class of the fabric's hosts, or an "
                            "adapter name of it another node's description claims too: atoll-topo check's "
                            "undecided-nics, odd-rails or refused-name names it" +
                                (claim_why.empty() ? std::string() : "; " + claim_why) +
                                "): NCCL's own choice is left; "
                                "name the rails (atoll-topo discover --compute or --frontend, or HOST.node.json; "
                                "--node-name-map)");
        site_keys_left("this node's compute rails are not known (see NCCL_IB_HCA)");
        return record();
    }
    // devices as this node names them
    NodeDevices dev = node_devices(f, cfg, step.node, facts.ports, machine_type, facts.unreadable_devices);
    const bool from_node = dev.from_node;
    if (!device_profile(f.profile) && !from_node) {
        skip("NCCL_IB_HCA", profile_note(f.profile));
        site_keys_left("atoll sets no network variable on " + f.profile + " fabrics without this node's adapters (" +
                       profile_note(f.profile) + ")");
        return record();
    }
    std::string hcas;
    for (const auto &hp : dev.ports)
        hcas += (hcas.empty() ? "=" : ",") + hp.first + ":" + std::to_string(hp.second);
    if (dev.usable)
        add("NCCL_IB_HCA", hcas,
            (dev.source.empty() ? std::string("this node's compute-rail adapters, checked in sysfs") +
                                      (dev.renamed.empty() ? std::string()
                                                           : " by GUID (" + dev.renamed[0] + (dev.renamed.size() > 1 ? ", ..." : "") + ")")
                                : "the fabric names no adapter of this node; from sysfs by the cloud's rule (" + dev.source + ")") +
                (dev.problems.empty() ? std::string() : "; " + dev.problems[0] +
                                                            (dev.problems.size() > 1 ? " (and more)" : "")));
    else if (!dev.refused.empty())
        skip("NCCL_IB_HCA", dev.refused + ": NCCL's own choice is left");
    else if (facts.ports.empty())
        skip("NCCL_IB_HCA", "no RDMA device in sysfs (" + (cfg.sysfs_root.empty() ? std::string("/sys") : per_node_path(cfg.sysfs_root, step.node)) +
                                "/class/infiniband): NCCL's own choice is left");
    else if (dev.ports.empty() && !dev.deselected.empty()) {
        // every adapter found left out by the site's selector: say so, not "not ACTIVE"
        std::string names;
        for (std::size_t i = 0; i < dev.deselected.size() && i < 8; ++i)
            names += (i ? "," : "") + dev.deselected[i];
        skip("NCCL_IB_HCA", "hca=" + shown(cfg.hca, 200) + " selects none of this node's compute-rail adapters (" + names +
                                (dev.deselected.size() > 8 ? ",..." : "") +
                                "; patterns are fnmatch(3) of device names, without NCCL's :port): NCCL's own choice is left");
    } else if (from_node)
        skip("NCCL_IB_HCA", (dev.problems.empty() ? std::string("no compute adapter from the node") : dev.problems[0]) +
                                ": NCCL's own choice is left");
    else
        skip("NCCL_IB_HCA", "no compute-rail adapter of the fabric is ACTIVE here" +
                                (dev.problems.empty() ? std::string() : " (" + dev.problems[0] + ")") +
                                ": NCCL's own choice is left");
    if (!cfg.socket_ifname.empty()) {
        // NCCL takes only interfaces the list matches (misc/socket.cc): none
        // here, and its bootstrap finds no socket interface and the job fails
        std::string none;
        if (cfg.socket_ifname.size() <= 1)  // NCCL ignores such a value (ncclFindInterfaces: strlen(env) > 1)
            none = "socket_ifname=" + escaped(cfg.socket_ifname, 60) + " is one character, which NCCL ignores: its own choice is left";
        else if (!facts.netdevs.empty() &&
            std::none_of(facts.netdevs.begin(), facts.netdevs.end(),
                         [&](const std::string &n) { return nccl_ifname_match(cfg.socket_ifname, n); }))
            none = "socket_ifname=" + escaped(cfg.socket_ifname, 60) + " matches no interface of this node (" +
                   first_netdevs(facts.netdevs) + "): NCCL's bootstrap would find no socket interface and the job fail";
        // the loopback among them: NCCL skips IPv6 loopback addresses alone
        // (findInterfaces), and its bootstrap takes the first interface
        // that matches in getifaddrs' order, where lo (ifindex 1) comes
        // first: it would listen on 127.0.0.1, which no other node reaches
        // (helpers 69, 71: ^docker, eth0,lo)
        else if (std::find(facts.netdevs.begin(), facts.netdevs.end(), "lo") != facts.netdevs.end() &&
                 nccl_ifname_match(cfg.socket_ifname, "lo"))
            none = "socket_ifname=" + escaped(cfg.socket_ifname, 60) + " matches the loopback lo on this node (" +
                   first_netdevs(facts.netdevs) + "), the first interface NCCL's bootstrap finds: it would listen on "
                   "127.0.0.1, which no other node reaches (NCCL's own default leaves lo out)";
        if (none.empty())
            add("NCCL_SOCKET_IFNAME", cfg.socket_ifname, "site configuration (socket_ifname)");
        else
            skip("NCCL_SOCKET_IFNAME", none);
    }
    const bool hca_ours = std::any_of(out.begin(), out.end(), [](const EnvVar &v) { return v.name == "NCCL_IB_HCA" && v.set && !v.kept; });
    if (dev.usable && s.rail_optimised && !s.rails_meet && rails_ok && unknown.empty()) {
        // every rail here, as on the other nodes: a missing or DOWN one leaves
        // this node fewer NICs than its peers, and rings kept to their own NIC
        // then have no partner on some rail
        if (!dev.problems.empty())
            skip("NCCL_CROSS_NIC", "not every compute rail of this node is ACTIVE here (" + dev.problems[0] +
                                       "): the rails do not line up with the other nodes'");
        else if (!hca_ours)
            skip("NCCL_CROSS_NIC", "NCCL_IB_HCA is not atoll's: the devices it names may not be one per rail");
        else
            add("NCCL_CROSS_NIC", "0", "rail-aligned step on rail planes that do not meet above the leaves");
    }
    if (f.profile == "roce" && dev.usable) {
        // one traffic class for NCCL and UCX: the site's, else the ports' own
        // (of the ports NCCL may open: not one DOWN with no routable address,
        // whose tc directory a driver may drop with the address)
        std::set<int> tcs;
        std::string classless;  // a port with no class beside ones with one
        std::string unreadable;  // a port whose traffic_class file says no class the driver writes
        for (const NodePort &p : facts.ports)
            if (in_hca(dev, p) && !down_without_address(p)) {
                tcs.insert(p.traffic_class);
                if (p.traffic_class < 0 && classless.empty())
                    classless = p.hca + ":" + std::to_string(p.port);
                if (!p.traffic_class_bad.empty() && unreadable.empty())
                    unreadable = p.hca + ":" + std::to_string(p.port) + "'s tc/" + std::to_string(p.port) +
                                 "/traffic_class reads \"" + escaped(p.traffic_class_bad, 40) +
                                 "\", not \"Global tclass=N\" as mlx5 writes it: its class is unknown";
            }
        int tc = cfg.roce_tc;
        std::string why = "site RoCE traffic class (roce_tc)";
        if (tc < 0 && tcs.size() == 1 && *tcs.begin() >= 0) {
            tc = *tcs.begin();
            why = "the traffic class configured on this node's RoCE ports";
        }
        if (!facts.nccl_conf_unknown.empty()) {
            // what the nccl.conf files set is not known: no NCCL or UCX variable
            skip("NCCL_IB_TC", facts.nccl_conf_unknown);
            skip("UCX_IB_TRAFFIC_CLASS", facts.nccl_conf_unknown);
        } else if (cfg.roce_tc < 0 && !hca_ours) {
            // the class read from atoll's ports says nothing of the devices
            // the user's (or an nccl.conf's) NCCL_IB_HCA names
            skip("NCCL_IB_TC", "NCCL_IB_HCA is not atoll's: the traffic class of the devices it names was not checked; "
                               "set roce_tc= for a site-wide class");
            skip("UCX_IB_TRAFFIC_CLASS", "NCCL_IB_HCA is not atoll's, so no class was read from its ports; set roce_tc= for a "
                                         "site-wide class");
        } else if (tc >= 0 && (tc & 3) == 3) {
            skip("NCCL_IB_TC", "the ports' traffic class " + std::to_string(tc) + " has both ECN bits set (CE)");
            skip("UCX_IB_TRAFFIC_CLASS", "the ports' traffic class " + std::to_string(tc) + " has both ECN bits set (CE)");
        } else if (tc >= 0) {
            add("NCCL_IB_TC", std::to_string(tc), why);
            // the user's UCX_NET_DEVICES, in the environment or a file UCX
            // or NCCL reads (both give it the environment's weight)
            std::string user_devs = user_has("UCX_NET_DEVICES") ? std::string("the job's own")
                                    : facts.nccl_conf.count("UCX_NET_DEVICES")
                                        ? "set in " + escaped(facts.nccl_conf.at("UCX_NET_DEVICES"), 1100)
                                    : facts.ucx_conf.count("UCX_NET_DEVICES")
                                        ? "set in " + escaped(facts.ucx_conf.at("UCX_NET_DEVICES"), 1100)
                                        : "";
            // without UCX_NET_DEVICES UCX opens every RDMA device: a class
            // read from the compute ports is not a front-end or storage
            // RoCE port's (that port's own class, or UCX's 106 where it has none)
            std::string other;
            for (const NodePort &o : facts.ports)
                // (a port with no class configured gets UCX's own 106: a class of 106 changes nothing there)
                if (other.empty() && !in_hca(dev, o) && !down_without_address(o) && o.link_layer == "Ethernet" &&
                    (!o.traffic_class_bad.empty() || (o.traffic_class >= 0 ? o.traffic_class : 106) != tc))
                    other = o.hca + ":" + std::to_string(o.port) +
                            (!o.traffic_class_bad.empty() ? " has a traffic_class file that reads \"" +
                                                                escaped(o.traffic_class_bad, 40) + "\", no class known"
                             : o.traffic_class < 0 ? std::string(" has no class configured (UCX's 106 there)")
                                                   : " has class " + std::to_string(o.traffic_class));
            if (cfg.roce_tc < 0 && !user_devs.empty())
                // the class read from atoll's ports says nothing of the devices
                // the user's UCX_NET_DEVICES names (rc_mlx5 sends it as given)
                skip("UCX_IB_TRAFFIC_CLASS", "UCX_NET_DEVICES is " + user_devs + ": the traffic class of the devices it "
                                             "names was not checked; set roce_tc= for a site-wide class");
            else if (cfg.roce_tc < 0 && !other.empty())
                skip("UCX_IB_TRAFFIC_CLASS", other + ", no compute port, which UCX opens too unless UCX_NET_DEVICES names "
                                             "others: the compute ports' class " + std::to_string(tc) +
                                             " is not its; set roce_tc= for a site-wide class");
            else
                add("UCX_IB_TRAFFIC_CLASS", std::to_string(tc), why + ", the same for UCX");
        } else {
            const std::string why_not = !unreadable.empty() ? unreadable + ": set roce_tc="
                                        : tcs.size() > 1 && !classless.empty()
                                            ? "compute port " + classless + " has no traffic class configured and others have one: set roce_tc="
                                        : tcs.size() > 1 ? "this node's RoCE ports have different traffic classes: set roce_tc="
                                                         : "no roce_tc= and no class configured on the ports: NCCL would use 0, "
                                                           "UCX the port's or 106; set roce_tc= to the lossless class";
            skip("NCCL_IB_TC", why_not);
            skip("UCX_IB_TRAFFIC_CLASS", why_not);
        }
        if (cfg.fifo_tc >= 0)
            add("NCCL_IB_FIFO_TC", std::to_string(cfg.fifo_tc), "site RoCE traffic class for NCCL's control messages (roce_fifo_tc)");
        roce_gid_env(cfg, facts, dev, user_has, hca_ours, add, skip);
    } else if (f.profile != "roce") {
        // the site's RoCE keys on a fabric of another kind: said, not
        // dropped (helper 48: Azure's and GCP's went unmentioned; gIB sets
        // its own class 52 and GID 3, so a site's 106 would be wrong there)
        roce_keys_left(f.profile == "ib" ? std::string("an InfiniBand fabric has no RoCE class or GID index")
                                         : std::string("atoll applies it on RoCE fabrics only (") +
                                               (*profile_note(f.profile) ? profile_note(f.profile) : f.profile.c_str()) + ")");
    }
    // SHARP: a capability the job may use; NCCL_COLLNET_ENABLE in the
    // environment would override every communicator's own choice
    if (f.profile == "ib" && cfg.sharp && opt.sharp != SharpMode::Off && island >= 0) {
        std::string why;
        for (int l : leaves)
            if (!s.islands[static_cast<std::size_t>(l)].sharp)
                why = "leaf island " + s.islands[static_cast<std::size_t>(l)].name + " has a switch without SHARP";
        if (why.empty() && !s.islands[static_cast<std::size_t>(island)].sharp)
            why = "a switch of " + s.islands[static_cast<std::size_t>(island)].name + " above the leaves has no SHARP";
        if (why.empty() && !rails_ok)
            why = "a step node has a miswired or missing rail";
        if (why.empty() && !unknown.empty())
            why = "step nodes absent from the fabric file";
        if (why.empty() && per_leaf > 1)
            why = per_leaf == 99 ? "the view (version 1) does not say how many ports a host has on one leaf: "
                                   "regenerate it with atoll-topo slurm --format view"
                                 : "a host has " + std::to_string(per_leaf) +
                                       " compute ports on one leaf switch, beyond SHARP's flows per switch";
        if (why.empty() && opt.sharp != SharpMode::On && leaves.size() < 2)
            why = "the step is in one leaf: nothing for the switches to reduce above it";
        if (!dev.usable && why.empty())
            why = "no compute-rail adapter is usable here";
        if (why.empty()) {
            add("ATOLL_SHARP", "1", "SHARP aggregation on every switch of " + s.islands[static_cast<std::size_t>(island)].name +
                                        ", rails correct: a communicator may enable CollNet");
            add("ATOLL_SHARP_ISLAND", s.islands[static_cast<std::size_t>(island)].name, "the island SHARP covers for this step");
            if (opt.sharp == SharpMode::On)
                add("NCCL_COLLNET_ENABLE", "1", "--fabric-sharp=on (every communicator uses SHARP)");
            else
                skip("NCCL_COLLNET_ENABLE", "left to the application per communicator (--fabric-sharp=on sets it)");
        } else {
            skip("ATOLL_SHARP", why);
        }
    }
    return record();
}
std::vector<std::string> task_gpu_busids(const std::string &cuda_visible, const std::string &step_gpus,
                                         int constrained, const std::map<int, std::string> &gpus, std::string &why,
                                         const std::map<int, std::string> &models)
{
    std::vector<int> cuda_sees;  // the GPUs CUDA numbers when it reads CUDA_VISIBLE_DEVICES
    bool ok_step = true, ok_cv = true;
    std::vector<int> g = int_list(step_gpus, ok_step);
    if (step_gpus.empty() || !ok_step || g.empty()) {
        why = step_gpus.empty() ? "the step has no GPU gres (SLURM_STEP_GPUS): its tasks' GPUs are not known"
                                : "SLURM_STEP_GPUS \"" + step_gpus.substr(0, 40) + "\" is not a list of indices";
        return {};
    }
    std::vector<int> sorted = g;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int> mine = g;
    if (!cuda_visible.empty()) {
        std::vector<int> cv = int_list(cuda_visible, ok_cv);
        if (!ok_cv || cv.empty()) {
            why = "CUDA_VISIBLE_DEVICES \"" + cuda_visible.substr(0, 40) +
                  "\" is not a list of GPU indices (UUIDs, MIG devices, or a negative index, where CUDA's list ends)";
            return {};
        }
        bool global = std::all_of(cv.begin(), cv.end(), [&](int x) { return std::count(g.begin(), g.end(), x) > 0; });
        bool relative = std::all_of(cv.begin(), cv.end(), [&](int x) { return x < static_cast<int>(g.size()); });
        bool same = true;  // both readings give the same GPUs
        for (int x : cv)
            same = same && (!relative || !global || sorted[static_cast<std::size_t>(x)] == x);
        bool use_relative;
        // the admin's word first: without ConstrainDevices Slurm writes its
        // indices, with it the positions among the step's GPUs
        if (constrained == 0 && !global) {
            why = "CUDA_VISIBLE_DEVICES \"" + cuda_visible.substr(0, 40) +
                  "\" names GPUs outside the step's (constrain_devices=no: Slurm's indices)";
            return {};
        }
        if (constrained == 1 && !relative) {
            why = "CUDA_VISIBLE_DEVICES \"" + cuda_visible.substr(0, 40) + "\" names positions beyond the step's " +
                  std::to_string(g.size()) + " GPU(s) (constrain_devices=yes: positions)";
            return {};
        }
        if (constrained == 0 || constrained == 1) {
            use_relative = constrained == 1;
        } else if (global && relative && !same) {
            if (constrained < 0) {
                why = "CUDA_VISIBLE_DEVICES could be Slurm's indices or positions under ConstrainDevices: set "
                      "constrain_devices=";
                return {};
            }
            use_relative = constrained == 1;
        } else if (global || relative) {
            use_relative = !global;
        } else {
            why = "CUDA_VISIBLE_DEVICES \"" + cuda_visible.substr(0, 40) + "\" names GPUs outside the step's";
            return {};
        }
        mine.clear();
        for (int x : cv)
            mine.push_back(use_relative ? sorted[static_cast<std::size_t>(x)] : x);
        if (use_relative)
            cuda_sees = g;
        else
            for (const auto &kv : gpus)
                cuda_sees.push_back(kv.first);
    }
    // CUDA's default order (FASTEST_FIRST) is the bus order among equal
    // GPUs only: GPUs of two models (a DGX Station's display GPU) among
    // those CUDA numbers, and which one an index is is not known
    std::string first_model;
    for (int m : cuda_sees) {
        auto it = models.find(m);
        if (it == models.end())
            continue;
        if (first_model.empty())
            first_model = it->second;
        else if (it->second != first_model) {
            why = "CUDA numbers GPUs of two models here (" + escaped(first_model, 40) + ", " + escaped(it->second, 40) +
                  "), fastest first: which GPU CUDA_VISIBLE_DEVICES names is not known";
            return {};
        }
    }
    // Slurm's index i is the i-th GPU by device minor (gres/gpu sorts its
    // records by File, _sort_gpu_by_file); CUDA numbers the GPUs it sees by
    // PCI bus (CUDA_DEVICE_ORDER=PCI_BUS_ID, and FASTEST_FIRST among equal
    // GPUs): where the two orders differ, which GPU an index or a position
    // is in CUDA is not known
    std::vector<std::string> by_index;
    for (const auto &kv : gpus) {
        if (!by_index.empty() && kv.second < by_index.back()) {  // nvidia_gpus() writes them lower case
            why = "this node's GPU device minors are not in PCI bus order (" + escaped(by_index.back(), 20) + " before " +
                  escaped(kv.second, 20) + "): Slurm counts GPUs by minor and CUDA by bus, so which GPU the task has "
                  "is not known";
            return {};
        }
        by_index.push_back(kv.second);
    }
    std::vector<std::string> out;
    for (int i : mine) {
        if (i >= static_cast<int>(by_index.size())) {
            why = by_index.empty() ? "no NVIDIA GPU in /proc/driver/nvidia/gpus"
                                   : "GPU index " + std::to_string(i) + " beyond the node's " +
                                         std::to_string(by_index.size()) + " GPUs";
            return {};
        }
        out.push_back(by_index[static_cast<std::size_t>(i)]);
    }
    return out;
}

std::vector<std::string> leave_to_cwd_ucx_conf(std::vector<EnvVar> &vars, const std::map<std::string, std::string> &cwd_vars,
                                               const std::string &cwd_unknown, bool site_tc)
{
    std::vector<std::string> out;
    for (EnvVar &v : vars) {
        if (!v.set || v.kept || v.name.rfind("UCX_", 0) != 0)
            continue;
        if (v.name == "UCX_IB_TRAFFIC_CLASS" && cwd_vars.count("UCX_NET_DEVICES") && !site_tc)
            // the devices that file names were not checked (as for a job's own UCX_NET_DEVICES)
            v.why = "UCX_NET_DEVICES is set in ucx.conf of the task's working directory: the traffic class of the "
                    "devices it names was not checked; set roce_tc= for a site-wide class";
        else if (cwd_vars.count(v.name))
            v.why = "set in ucx.conf of the task's working directory, which UCX reads (the environment would override "
                    "it): left to it";
        else if (!cwd_unknown.empty())
            v.why = cwd_unknown;
        else
            continue;
        v.set = false;
        v.value.clear();
        out.push_back(v.name);
    }
    // the record names what atoll set, and these no longer are
    auto rec = std::find_if(vars.begin(), vars.end(), [](const EnvVar &v) { return v.name == "ATOLL_ENV_SET" && v.set; });
    if (!out.empty() && rec != vars.end()) {
        std::vector<EnvVar> rest;
        for (const EnvVar &v : vars)
            if (v.name != "ATOLL_ENV_SET")
                rest.push_back(v);
        rec->value = env_set_record(rest);
    }
    return out;
}

std::vector<EnvVar> task_env(const PluginConfig &cfg, const NodeFacts &facts, const NodeDevices &dev,
                             const StepInfo &step, const std::string &cuda_visible, const std::string &step_gpus,
                             const std::function<bool(const std::string &)> &user_has)
{
    std::vector<EnvVar> out;
    const std::string name = "UCX_NET_DEVICES";
    if (user_has(name) && !step.atoll_set.count(name)) {
        out.push_back(EnvVar{name, "", "", true, true});
        return out;
    }
    auto skip = [&](const std::string &why) {
        out.push_back(EnvVar{name, "", why, false, false});
        return out;
    };
    if (step.batch)
        return skip("the batch step: each srun step sets its own");
    // an nccl.conf's value, or one atoll could not read, is NCCL's to set:
    // atoll's in the environment would win over it
    auto conf = facts.nccl_conf.find(name);
    if (conf != facts.nccl_conf.end())
        return skip("set in " + escaped(conf->second, 1100) + ", which NCCL reads: left to it");
    if (!facts.nccl_conf_unknown.empty())
        return skip(facts.nccl_conf_unknown);
    if (!ucx_conf_says(facts, name).empty())
        return skip(ucx_conf_says(facts, name));
    if (cfg.hwloc_xml.empty())
        return skip("no hwloc_xml= for GPU-to-HCA affinity");
    if (facts.gpu_hcas.empty())
        return skip("no GPU-to-HCA map on this node");
    if (!dev.usable)
        return skip("no compute-rail adapter is usable here");
    std::string why;
    int constrained = cfg.constrain_devices >= 0 ? cfg.constrain_devices : facts.constrained;
    std::vector<std::string> bus = task_gpu_busids(cuda_visible, step_gpus, constrained, facts.gpus, why, facts.gpu_models);
    if (bus.empty())
        return skip(why);
    // a compute HCA sysfs has that the saved XML does not name (no verbs
    // backend when it was saved, the driver not loaded, devices renumbered
    // since: its place there under another name): each GPU's nearest may be
    // another's, across the sockets (helper 69)
    // (and one the XML puts elsewhere than sysfs: mlx5_0 and mlx5_4 swapped
    // after a NIC swap, GPU 0's own mlx5_0 put on the other socket; helper 71)
    for (const auto &hp : dev.active) {
        std::string pci;
        for (const NodePort &p : facts.ports)
            if (p.hca == hp.first && !p.pci.empty())
                pci = p.pci;
        auto x = facts.hwloc_hcas.find(hp.first);
        if (x == facts.hwloc_hcas.end())
            return skip("the hwloc topology has no " + hp.first + (pci.empty() ? "" : " (sysfs: PCI " + pci + ")") +
                        ", a compute HCA of this node: the saved XML is not this node's as it is now (hwloc_xml=)");
        if (!pci.empty() && !x->second.count(pci) && !x->second.count(""))
            return skip("the hwloc topology puts " + hp.first + " at PCI " + *x->second.begin() + ", sysfs at " + pci +
                        ": the saved XML is not this node's as it is now (hwloc_xml=)");
    }
    std::set<std::string> nearest;
    std::string dist;
    for (const std::string &b : bus) {
        const GpuHca *hit = nullptr;
        for (const GpuHca &g : facts.gpu_hcas) {
            std::string id = g.gpu_busid;
            for (char &c : id)
                c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            if (id == b)
                hit = &g;
        }
        if (hit && hit->ties > 1)
            return skip("GPU " + b + " has " + std::to_string(hit->ties) + " compute HCAs equally near (" + hit->distance +
                        "): hwloc cannot tell which is its own, UCX chooses");
        if (!hit || hit->hca.empty())
            return skip("GPU " + b + " is not in the hwloc topology, or has no ACTIVE compute HCA near it");
        // a saved topology that no longer matches the node (devices renumbered
        // after a NIC swap, a LAG change, another probe order; one XML for
        // many nodes) names another device at that place
        // (both lower-case hex: gpu_hca.c prints %x, node_ports() lowers sysfs's)
        for (const NodePort &p : facts.ports)
            if (p.hca == hit->hca && !p.pci.empty() && !hit->hca_busid.empty() && p.pci != hit->hca_busid)
                return skip("the hwloc topology puts " + hit->hca + " at PCI " + hit->hca_busid + ", sysfs at " + p.pci +
                            ": the saved XML is not this node's as it is now (hwloc_xml=)");
        nearest.insert(hit->hca);
        dist += (dist.empty() ? "" : ", ") + b + " " + hit->distance;
    }
    if (nearest.size() != 1)
        return skip("the task's " + std::to_string(bus.size()) + " GPUs have " + std::to_string(nearest.size()) +
                    " nearest HCAs: UCX chooses per transfer");
    int port = 0, ports_here = 0;
    std::string ports;
    for (const auto &hp : dev.active)
        if (hp.first == *nearest.begin()) {
            port = hp.second;
            ports += (ports_here++ ? ", " : "") + std::to_string(hp.second);
        }
    // two compute-rail ports of one device (a ConnectX-3 or Connect-IB with
    // both ports cabled): one PCI function, equally near (helper 69)
    if (ports_here > 1)
        return skip("the nearest HCA " + *nearest.begin() + " has compute-rail ports " + ports +
                    " on one PCI function: hwloc cannot tell which is the GPU's own, UCX chooses");
    if (port == 0)  // UCX_NET_DEVICES also drops TCP: a port UCX refuses leaves the task no transport
        return skip("the nearest HCA " + *nearest.begin() + " is not an ACTIVE compute-rail port here");
    out.push_back(EnvVar{name, *nearest.begin() + ":" + std::to_string(port),
                         "nearest compute HCA to the task's GPU" + std::string(bus.size() > 1 ? "s (" : " (") + dist + ")",
                         false, true});
    return out;
}
namespace {

// Whether an NCCL_IB_HCA value names port p as NCCL matches it: "^"
// excludes, "=" exact names, else prefixes; ":N" a port
bool nccl_hca_names(const std::string &list, const NodePort &p)
{
    std::string l = list;
    const bool exclude = !l.empty() && l[0] == '^';
    if (exclude)
        l.erase(0, 1);
    const bool exact = !l.empty() && l[0] == '=';
    if (exact)
        l.erase(0, 1);
    bool named = false, listed = false;
    std::stringstream ss(l);
    for (std::string e; std::getline(ss, e, ',');) {
        std::size_t colon = e.find(':');
        std::string dev_name = e.substr(0, colon);
        listed = listed || !dev_name.empty();
        // the port as NCCL's parseStringList reads it: atoi of the rest
        // ("1:2", "01", " 1" and "1x" are port 1, helper 49)
        if (colon != std::string::npos && std::atoi(e.c_str() + colon + 1) != p.port)
            continue;
        named = named || (exact ? p.hca == dev_name : !dev_name.empty() && p.hca.compare(0, dev_name.size(), dev_name) == 0);
    }
    // an empty list names every device (matchIfList: "no user list")
    return (named || !listed) != exclude;
}

}  // namespace

std::vector<std::string> user_value_problems(const NodeFacts &facts, const NodeDevices &dev, const std::vector<EnvVar> &node)
{
    std::vector<std::string> out;
    // the NCCL_IB_HCA in force: the user's own limits which ports NCCL opens
    const EnvVar *hca = nullptr;
    for (const EnvVar &h : node)
        if (h.name == "NCCL_IB_HCA" && h.set)
            hca = &h;
    // the user's own (an empty one names every device); one an nccl.conf
    // sets is not read here (its value is the file's): the compute ports
    const bool hca_theirs = hca && hca->kept && hca->why.rfind("set in ", 0) != 0;
    for (const EnvVar &v : node) {
        if (!v.kept || v.why.rfind("set in ", 0) == 0 || (v.name != "NCCL_IB_GID_INDEX" && v.name != "UCX_IB_GID_INDEX"))
            continue;
        const std::string what = v.name + "=" + escaped(v.value, 40) + " (the user's)";
        // read as each library reads it: NCCL's parameters by strtoll(s, 0, 0)
        // (leading blanks, a sign, 0x hex, 0 octal; the rest of the text
        // ignored), UCX's ulunits by %lu, or "auto"
        const bool nccl = v.name == "NCCL_IB_GID_INDEX";
        if (!nccl) {
            std::string low = v.value;
            for (char &ch : low)
                ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
            if (low == "auto")
                continue;  // UCX chooses
            // "inf" is UCS_ULUNITS_INF, and %lu reads "-1" as ULONG_MAX:
            // UCX takes only "auto" for its own choice and queries any
            // other value as an index (uct_ib_iface_init_roce_gid_info)
            const std::size_t first = low.find_first_not_of(" \t\n\v\f\r");
            if (low == "inf" || (first != std::string::npos && low[first] == '-')) {
                out.push_back(what + " is beyond any GID table here: UCX reads it as index 2^64-1, not as its own "
                                     "choice (that is UCX_IB_GID_INDEX=auto)");
                continue;
            }
        }
        errno = 0;
        char *end = nullptr;
        long long parsed = nccl ? std::strtoll(v.value.c_str(), &end, 0)
                                      : static_cast<long long>(std::min<unsigned long>(std::strtoul(v.value.c_str(), &end, 10), 1UL << 20));
        // NCCL (ncclLoadParam) skips an empty value and keeps its default
        // only where strtoll sets errno (out of range): a value with no
        // digits ("auto", "abc") is index 0 to it (helper 46)
        std::string reads;
        if (nccl && v.value.empty())
            continue;
        if (errno != 0 || (!nccl && end == v.value.c_str())) {
            out.push_back(what + " is not a GID index " + (nccl ? "NCCL" : "UCX") + " reads");
            continue;
        }
        if (nccl && end == v.value.c_str())
            reads = ", which NCCL reads as index 0 (no digits),";
        // NCCL keeps the 64-bit parameter in an int (ncclIbGetGidIndex):
        // 4294967297 is 1 to it, 2147483648 negative, its own choice (helper 49)
        if (nccl && (parsed > INT32_MAX || parsed < INT32_MIN)) {
            const long long was = parsed;
            parsed = static_cast<std::int32_t>(static_cast<std::uint32_t>(static_cast<unsigned long long>(parsed)));
            reads = ", which NCCL stores as " + std::to_string(parsed) + " (an int), from " + std::to_string(was) + ",";
        }
        if (parsed < 0)
            continue;  // NCCL's "pick it yourself" (-1)
        if (parsed > 255) {
            // NCCL before 2.21 stores it straight into the 8-bit
            // ibv_ah_attr.grh.sgid_index: 257 is index 1 there (helper 49)
            out.push_back(what + reads + " is beyond any GID table here" +
                          (nccl ? " (NCCL before 2.21 keeps 8 bits of it, index " + std::to_string(parsed & 255) + ")"
                                : std::string()));
            continue;
        }
        const int index = static_cast<int>(parsed);
        // the compute ports NCCL and UCX open on this node (where atoll
        // checked them: a wrong slot there times out every connection); for
        // NCCL under the user's NCCL_IB_HCA, every port it names (a
        // front-end port's prefix or an empty list too, helper 46)
        for (const NodePort &p : facts.ports)
            if (p.link_layer == "Ethernet" && !down_without_address(p) &&
                (nccl && hca_theirs ? nccl_hca_names(hca->value, p) : in_hca(dev, p)))
                if (std::string bad = gid_slot_problem(p, index); !bad.empty()) {
                    out.push_back(what + reads + " is " + bad + " on " + p.hca + ":" + std::to_string(p.port) +
                                  (in_hca(dev, p) ? ", a compute port here" : ", a port the NCCL_IB_HCA in force names") +
                                  ": its connections will fail or time out (unset it: NCCL >= 2.21 and "
                                  "UCX pick each port's RoCE v2 GID)");
                    break;
                }
    }
    return out;
}

// One line whoever wrote its parts: a sysfs string (an interface a node's
// root named), the user's own value, a file's line go through escaped().
std::string describe(const EnvVar &v)
{
    std::string line;
    if (!v.set)
        line = v.name + " not set: " + v.why;
    else if (v.kept && v.why.rfind(kUserOnly, 0) == 0)
        line = v.name + (v.value.empty() ? "" : "=" + v.value) + " (set by the user, kept; " + v.why + ")";
    else if (v.kept)
        line = v.name + (v.value.empty() ? "" : "=" + v.value) + " (" +
               (v.why.rfind("set in ", 0) == 0 ? v.why + ", kept" : std::string("set by the user, kept")) + ")";
    else
        line = v.name + "=" + v.value + " (" + v.why + ")";
    return one_line(line, 8192);
}

}  // namespace atl
