#include "topology/generate.hpp"

#include <algorithm>
#include <cstdio>
#include <cmath>
#include <map>
#include <ostream>
#include <stdexcept>

namespace atl {
namespace {

constexpr std::uint64_t spine_base = 0xb8599f0300a00000ULL;
constexpr std::uint64_t core_base = 0xb8599f0300a80000ULL;
constexpr std::uint64_t leaf_base = 0xb8599f0300b00000ULL;
constexpr std::uint64_t sharp_base = 0xb8599f0300c00000ULL;
constexpr std::uint64_t hca_base = 0x98039b0300000000ULL;

std::string num(int n, int digits)
{
    std::string s = std::to_string(n);
    if (static_cast<int>(s.size()) < digits)
        s.insert(0, static_cast<std::size_t>(digits) - s.size(), '0');
    return s;
}

std::string sw_desc(const std::string &name) { return "MF0;" + name + ":MQM8700/U1"; }

int width_code(int w)
{
    switch (w) {
    case 1: return 1;
    case 4: return 2;
    case 8: return 4;
    case 12: return 8;
    case 2: return 16;
    }
    return 2;
}

}  // namespace

Fabric generate(const GenSpec &s)
{
    if (s.pods < 1 || s.groups_per_pod < 1 || s.rails < 1 || s.hosts_per_group < 1 ||
        s.spines_per_pod < 1 || (s.pods > 1 && s.cores < 1) || !(s.oversub > 0) || s.domain_size < 0)
        throw std::invalid_argument("generate: every count must be at least 1 and oversubscription above 0");
    // the products below are ints: keep the fabric within what they hold
    // (and what a machine can analyse): at most 10 million hosts or ports
    const double hosts = double(s.pods) * s.groups_per_pod * s.hosts_per_group * s.rails;
    const double all_ports = hosts + double(s.pods) * s.spines_per_pod * s.groups_per_pod * s.rails * 2 +
                         double(s.cores) * s.pods * s.spines_per_pod;
    if (hosts > 1e7 || all_ports > 1e7 || s.oversub > 1000)
        throw std::invalid_argument("generate: " + std::to_string(static_cast<long long>(hosts)) +
                                    " host ports, expected at most 10,000,000 (and --oversub at most 1000)");
    Fabric f;
    f.source = "generated";
    f.kind = "ib";
    int nleaves = s.pods * s.groups_per_pod * s.rails;
    int up = std::max(1, static_cast<int>(std::ceil(s.hosts_per_group / s.oversub)));
    int per_spine = std::max(1, up / s.spines_per_pod);
    up = per_spine * s.spines_per_pod;
    int leaf_ports = s.hosts_per_group + up + (s.sharp ? 1 : 0);
    int spine_down = s.groups_per_pod * s.rails * per_spine;
    int per_core = s.pods > 1 ? std::max(1, spine_down / s.cores) : 0;
    int spine_ports = spine_down + per_core * s.cores + (s.sharp ? 1 : 0);
    int nspines = s.pods * s.spines_per_pod;
    int core_ports = nspines * per_core + (s.sharp ? 1 : 0);
    // unicast LIDs are 1..0xbfff: a larger synthetic fabric (more than one
    // subnet could hold) leaves the rest without one (0), as ibnetdiscover
    // shows an unconfigured port
    int next_lid = 1;
    auto lid_next = [&]() { return next_lid <= 0xbfff ? next_lid++ : 0; };
    auto add_switch = [&](std::uint64_t guid, const std::string &name, int ports) {
        Node n;
        n.type = NodeType::Switch;
        n.guid = guid;
        n.sysimg_guid = guid;
        n.num_ports = ports;
        n.desc = sw_desc(name);
        n.lid = lid_next();
        n.vendor_id = 0x2c9;
        n.device_id = 0xd2f0;
        f.nodes.push_back(n);
    };
    auto cable = [&](std::uint64_t ga, int pa, std::uint64_t gb, int pb) {
        Link l;
        l.a.guid = ga;
        l.a.port = pa;
        l.b.guid = gb;
        l.b.port = pb;
        l.width = 4;
        l.speed = s.speed;
        f.links.push_back(l);
    };
    auto leaf_name = [&](int i) { return "ib-leaf" + num(i + 1, 2); };
    for (int i = 0; i < nleaves; ++i)
        add_switch(leaf_base + static_cast<std::uint64_t>(i), leaf_name(i), leaf_ports);
    for (int i = 0; i < nspines; ++i)
        add_switch(spine_base + static_cast<std::uint64_t>(i), "ib-spine" + num(i + 1, 2), spine_ports);
    if (s.pods > 1)
        for (int i = 0; i < s.cores; ++i)
            add_switch(core_base + static_cast<std::uint64_t>(i), "ib-core" + num(i + 1, 2), core_ports);
    // leaf uplinks: leaf i of pod p to each spine of the pod
    std::vector<int> spine_next(static_cast<std::size_t>(nspines), 1);
    for (int i = 0; i < nleaves; ++i) {
        int pod = i / (s.groups_per_pod * s.rails);
        int port = s.hosts_per_group + 1;
        for (int sp = 0; sp < s.spines_per_pod; ++sp) {
            int si = pod * s.spines_per_pod + sp;
            for (int k = 0; k < per_spine; ++k)
                cable(leaf_base + static_cast<std::uint64_t>(i), port++, spine_base + static_cast<std::uint64_t>(si),
                      spine_next[static_cast<std::size_t>(si)]++);
        }
    }
    if (s.pods > 1) {
        std::vector<int> core_next(static_cast<std::size_t>(s.cores), 1);
        for (int si = 0; si < nspines; ++si)
            for (int c = 0; c < s.cores; ++c)
                for (int k = 0; k < per_core; ++k)
                    cable(spine_base + static_cast<std::uint64_t>(si), spine_next[static_cast<std::size_t>(si)]++,
                          core_base + static_cast<std::uint64_t>(c), core_next[static_cast<std::size_t>(c)]++);
    }
    // hosts
    int nhosts = s.pods * s.groups_per_pod * s.hosts_per_group;
    std::map<std::string, int> host_no;
    for (int h = 0; h < nhosts; ++h) {
        std::string host = s.host_prefix + num(h + 1, s.host_digits);
        host_no[host] = h;
        int group = h / s.hosts_per_group, slot = h % s.hosts_per_group;
        for (int r = 0; r < s.rails; ++r) {
            Node ca;
            ca.type = NodeType::Ca;
            ca.guid = hca_base + static_cast<std::uint64_t>((h * 16 + r) * 4);
            ca.sysimg_guid = ca.guid;
            ca.num_ports = 1;
            ca.desc = host + " mlx5_" + std::to_string(r);
            ca.lid = lid_next();
            ca.vendor_id = 0x2c9;
            ca.device_id = 0x101b;
            f.nodes.push_back(ca);
            int leaf = group * s.rails + r;
            Link l;
            l.a.guid = ca.guid;
            l.a.port = 1;
            l.a.port_guid = ca.guid + 1;
            l.a.lid = ca.lid;
            l.b.guid = leaf_base + static_cast<std::uint64_t>(leaf);
            l.b.port = slot + 1;
            l.width = 4;
            l.speed = s.speed;
            f.links.push_back(l);
        }
    }
    if (s.sharp) {
        std::vector<Node> sws;
        for (const Node &n : f.nodes)
            if (n.type == NodeType::Switch)
                sws.push_back(n);
        for (std::size_t i = 0; i < sws.size(); ++i) {
            Node an;
            an.type = NodeType::Ca;
            an.guid = sharp_base + i * 2;
            an.sysimg_guid = sws[i].guid;
            an.num_ports = 1;
            an.desc = "Mellanox Technologies Aggregation Node";
            an.lid = lid_next();
            an.vendor_id = 0x2c9;
            an.device_id = 0xcf09;
            f.nodes.push_back(an);
            Link l;
            l.a.guid = an.guid;
            l.a.port = 1;
            l.a.port_guid = an.guid;
            l.a.lid = an.lid;
            l.b.guid = sws[i].guid;
            l.b.port = sws[i].num_ports;
            l.width = 4;
            l.speed = s.speed;
            f.links.push_back(l);
        }
    }
    // faults
    auto host_link = [&](const std::string &host, int rail) -> Link & {
        auto it = host_no.find(host);
        if (it == host_no.end() || rail < 0 || rail >= s.rails)
            throw std::invalid_argument("generate: no host " + host + " with rail " + std::to_string(rail));
        std::uint64_t g = hca_base + static_cast<std::uint64_t>((it->second * 16 + rail) * 4);
        for (Link &l : f.links)
            if (l.a.guid == g)
                return l;
        throw std::invalid_argument("generate: host " + host + " rail " + std::to_string(rail) + " is not cabled");
    };
    for (const auto &sw : s.swap_rails) {
        Link &a = host_link(sw.host, sw.rail_a);
        Link &b = host_link(sw.host, sw.rail_b);
        std::swap(a.b, b.b);
    }
    for (const auto &d : s.degrade)
        host_link(d.host, d.rail).width = 1;
    for (const auto &d : s.default_desc) {
        Link &l = host_link(d.host, d.rail);
        for (Node &n : f.nodes)
            if (n.guid == l.a.guid)
                n.desc = "MT4123 ConnectX6 Mellanox Technologies";
    }
    for (const auto &name : s.drop_leaves) {
        std::uint64_t g = 0;
        for (const Node &n : f.nodes)
            if (n.desc == sw_desc(name))
                g = n.guid;
        if (!g)
            throw std::invalid_argument("generate: no leaf named " + name);
        std::vector<std::uint64_t> gone{g};
        for (const Link &l : f.links)
            if (l.b.guid == g && l.a.guid >= hca_base && l.a.guid < leaf_base)
                gone.push_back(l.a.guid);
            else if (l.b.guid == g && l.a.guid >= sharp_base)
                gone.push_back(l.a.guid);
        auto dead = [&](std::uint64_t x) { return std::find(gone.begin(), gone.end(), x) != gone.end(); };
        f.nodes.erase(std::remove_if(f.nodes.begin(), f.nodes.end(), [&](const Node &n) { return dead(n.guid); }),
                      f.nodes.end());
        f.links.erase(std::remove_if(f.links.begin(), f.links.end(),
                                     [&](const Link &l) { return dead(l.a.guid) || dead(l.b.guid); }),
                      f.links.end());
    }
    if (s.domain_size > 0)
        for (int h = 0; h < nhosts; ++h) {
            // one cluster UUID per domain, the clique ID NVIDIA's fabric
            // manager gives a domain not partitioned (32766)
            char uuid[40];
            std::snprintf(uuid, sizeof uuid, "8d6e40c4-d722-4357-9ba6-%012x", static_cast<unsigned>(h / s.domain_size));
            f.domains.push_back({s.host_prefix + num(h + 1, s.host_digits), std::string(uuid) + ".32766", "", "generate"});
        }
    normalise(f);
    return f;
}

void write_nvidia_smi_pdsh(std::ostream &out, const Fabric &f, int gpus)
{
    for (const HostDomain &d : f.domains) {
        std::size_t dot = d.domain.rfind('.');
        for (int g = 0; g < gpus; ++g)
            out << d.host << ": " << d.domain.substr(0, dot) << ", " << d.domain.substr(dot + 1) << "\n";
    }
}

void write_ibnetdiscover(std::ostream &out, const Fabric &f)
{
    // each node's cabled ports, by port number
    std::map<std::uint64_t, std::map<int, std::pair<const Link *, bool>>> ports;  // guid -> port -> (link, we are a)
    for (const Link &l : f.links) {
        ports[l.a.guid][l.a.port] = {&l, true};
        ports[l.b.guid][l.b.port] = {&l, false};
    }
    auto prefix = [](NodeType t) { return t == NodeType::Switch ? "S-" : t == NodeType::Ca ? "H-" : "R-"; };
    auto hex = [](std::uint64_t g) {
        char b[20];
        std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(g));
        return std::string(b);
    };
    auto bare = [](std::uint64_t g) {
        char b[20];
        std::snprintf(b, sizeof b, "%llx", static_cast<unsigned long long>(g));
        return std::string(b);
    };
    out << "#\n# Topology file: written by atoll-topo from " << escaped(f.source) << "\n#\n";
    for (NodeType pass : {NodeType::Switch, NodeType::Ca, NodeType::Router}) {
        for (const Node &n : f.nodes) {
            if (n.type != pass)
                continue;
            out << "\nvendid=0x" << bare(n.vendor_id) << "\ndevid=0x" << bare(n.device_id) << "\n";
            if (n.sysimg_guid)
                out << "sysimgguid=0x" << bare(n.sysimg_guid) << "\n";
            if (n.type == NodeType::Switch) {
                out << "switchguid=0x" << bare(n.guid) << "(" << bare(n.guid) << ")\n";
                out << "Switch\t" << n.num_ports << " \"S-" << hex(n.guid) << "\"\t\t# \"" << n.desc
                    << "\" enhanced port 0 lid " << n.lid << " lmc 0\n";
            } else {
                out << (n.type == NodeType::Ca ? "caguid=0x" : "rtguid=0x") << bare(n.guid) << "\n";
                out << (n.type == NodeType::Ca ? "Ca" : "Rt") << "\t" << n.num_ports << " \"" << prefix(n.type)
                    << hex(n.guid) << "\"\t\t# \"" << n.desc << "\"\n";
            }
            for (const auto &pp : ports[n.guid]) {
                const Link &l = *pp.second.first;
                const LinkEnd &me = pp.second.second ? l.a : l.b;
                const LinkEnd &peer = pp.second.second ? l.b : l.a;
                const Node *pn = f.find(peer.guid);
                std::string rate = std::to_string(l.width) + "x" + (l.speed == Speed::Unknown ? "???" : to_string(l.speed));
                std::string opt = l.width != 4 && l.width ? "\tw=" + std::to_string(width_code(l.width)) : "";
                int plid = pn->type == NodeType::Switch ? pn->lid : peer.lid;
                if (n.type == NodeType::Switch) {
                    out << "[" << me.port << "]\t\"" << prefix(pn->type) << hex(peer.guid) << "\"[" << peer.port << "]";
                    if (pn->type != NodeType::Switch)
                        out << "(" << bare(peer.port_guid) << ") ";
                    out << "\t\t# \"" << pn->desc << "\" lid " << plid << " " << rate << opt << "\n";
                } else {
                    out << "[" << me.port << "](" << bare(me.port_guid) << ") \t\"" << prefix(pn->type) << hex(peer.guid)
                        << "\"[" << peer.port << "]";
                    if (pn->type != NodeType::Switch)
                        out << " (" << bare(peer.port_guid) << ") ";
                    out << "\t\t# lid " << me.lid << " lmc 0 \"" << pn->desc << "\" lid " << plid << " " << rate << opt
                        << "\n";
                }
            }
        }
    }
}

}  // namespace atl
