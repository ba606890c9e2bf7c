// Fabrics through rdma-core's libibnetdisc: a --cache file, or live discovery.
#include <infiniband/ibnetdisc.h>
#include <infiniband/mad.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <sys/stat.h>

#include "topology/ibnetdiscover.hpp"

namespace atl {
namespace {

constexpr unsigned cap_has_ext_speeds = 1u << 14;  // PortInfo:CapabilityMask.IsExtendedSpeedsSupported

int width_from_code(unsigned code)
{
    switch (code) {
    case 1: return 1;
    case 2: return 4;
    case 4: return 8;
    case 8: return 12;
    case 16: return 2;
    }
    return 0;
}

int widest(unsigned mask)
{
    int best = 0;
    for (unsigned bit : {1u, 2u, 4u, 8u, 16u})
        if (mask & bit)
            best = std::max(best, width_from_code(bit));
    return best;
}

Speed speed_from_codes(unsigned speed, unsigned ext, unsigned fdr10)
{
    switch (ext) {
    case 1: return Speed::FDR;
    case 2: return Speed::EDR;
    case 4: return Speed::HDR;
    case 8: return Speed::NDR;
    case 16: return Speed::XDR;
    }
    if (fdr10 & 1)
        return Speed::FDR10;
    switch (speed) {
    case 1: return Speed::SDR;
    case 2: return Speed::DDR;
    case 4: return Speed::QDR;
    }
    return Speed::Unknown;
}

Speed fastest(unsigned speed_mask, unsigned ext_mask, unsigned fdr10_mask)
{
    for (unsigned bit : {16u, 8u, 4u, 2u, 1u})
        if (ext_mask & bit)
            return speed_from_codes(0, bit, 0);
    if (fdr10_mask & 1)
        return Speed::FDR10;
    for (unsigned bit : {4u, 2u, 1u})
        if (speed_mask & bit)
            return speed_from_codes(bit, 0, 0);
    return Speed::Unknown;
}

struct PortView {
    int width = 0, supported_width = 0;
    Speed speed = Speed::Unknown, supported_speed = Speed::Unknown;
};

PortView port_view(ibnd_port_t *p)
{
    PortView v;
    unsigned wa = mad_get_field(p->info, 0, IB_PORT_LINK_WIDTH_ACTIVE_F);
    unsigned ws = mad_get_field(p->info, 0, IB_PORT_LINK_WIDTH_SUPPORTED_F);
    unsigned sa = mad_get_field(p->info, 0, IB_PORT_LINK_SPEED_ACTIVE_F);
    unsigned ss = mad_get_field(p->info, 0, IB_PORT_LINK_SPEED_SUPPORTED_F);
    // a switch keeps the capability mask on port 0
    ibnd_port_t *capport = p->node->type == IB_NODE_SWITCH ? p->node->ports[0] : p;
    unsigned cap = capport ? mad_get_field(capport->info, 0, IB_PORT_CAPMASK_F) : 0;
    unsigned ea = 0, es = 0;
    if (cap & cap_has_ext_speeds) {
        ea = mad_get_field(p->info, 0, IB_PORT_LINK_SPEED_EXT_ACTIVE_F);
        es = mad_get_field(p->info, 0, IB_PORT_LINK_SPEED_EXT_SUPPORTED_F);
    }
    unsigned fa = mad_get_field(p->ext_info, 0, IB_MLNX_EXT_PORT_LINK_SPEED_ACTIVE_F);
    unsigned fs = mad_get_field(p->ext_info, 0, IB_MLNX_EXT_PORT_LINK_SPEED_SUPPORTED_F);
    v.width = width_from_code(wa);
    v.supported_width = widest(ws);
    v.speed = speed_from_codes(sa, ea, fa);
    v.supported_speed = fastest(ss, es, fs);
    return v;
}

NodeType node_type(int t)
{
    switch (t) {
    case IB_NODE_SWITCH: return NodeType::Switch;
    case IB_NODE_ROUTER: return NodeType::Router;
    default: return NodeType::Ca;
    }
}

LinkEnd end_of(ibnd_port_t *p)
{
    LinkEnd e;
    e.guid = p->node->guid;
    e.port = p->portnum;
    if (p->node->type != IB_NODE_SWITCH) {
        e.port_guid = p->guid;
        e.lid = p->base_lid;
    }
    return e;
}

Fabric convert(ibnd_fabric_t *fab, const std::string &source)
{
    Fabric f;
    f.source = source;
    f.kind = "ib";
    for (ibnd_node_t *n = fab->nodes; n; n = n->next) {
        Node node;
        node.type = node_type(n->type);
        node.guid = n->guid;
        node.num_ports = n->numports;
        node.desc = std::string(n->nodedesc, strnlen(n->nodedesc, sizeof n->nodedesc));
        node.sysimg_guid = mad_get_field64(n->info, 0, IB_NODE_SYSTEM_GUID_F);
        node.vendor_id = mad_get_field(n->info, 0, IB_NODE_VENDORID_F);
        node.device_id = mad_get_field(n->info, 0, IB_NODE_DEVID_F);
        if (n->type == IB_NODE_SWITCH) {
            node.lid = n->smalid;
        } else {
            for (int p = 1; p <= n->numports; ++p)
                if (n->ports[p] && n->ports[p]->remoteport) {
                    node.lid = n->ports[p]->base_lid;
                    break;
                }
        }
        f.nodes.push_back(node);
        for (int p = 1; p <= n->numports; ++p) {
            ibnd_port_t *port = n->ports[p];
            if (!port || !port->remoteport)
                continue;
            Link l;
            l.a = end_of(port);
            l.b = end_of(port->remoteport);
            PortView va = port_view(port), vb = port_view(port->remoteport);
            l.width = va.width;
            l.speed = va.speed;
            l.supported_width = std::min(va.supported_width, vb.supported_width);
            l.supported_speed = std::min(va.supported_speed, vb.supported_speed);
            f.links.push_back(l);
        }
    }
    normalise(f);
    return f;
}

struct FabricDeleter {
    void operator()(ibnd_fabric_t *f) const { ibnd_destroy_fabric(f); }
};

}  // namespace

Fabric load_ibnetdiscover_cache(const std::string &path)
{
    // libibnetdisc reports a bad file on stderr only: check what we can
    // first. It opens the path itself, so a regular file: a FIFO would block.
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
        throw InputError(path + ": not a regular file, expected an `ibnetdiscover --cache` file");
    std::ifstream probe(path, std::ios::binary);
    if (!probe)
        throw InputError(path + ": cannot open: " + std::strerror(errno));
    // libibnetdisc trusts the header's counts (a corrupt one hangs it or
    // exhausts memory): the magic, the version and counts the file can hold
    unsigned char head[16] = {};
    probe.read(reinterpret_cast<char *>(head), sizeof head);
    if (probe.gcount() < static_cast<std::streamsize>(sizeof head))
        throw InputError(path, 1, "found a file shorter than a cache header, expected an "
                                  "`ibnetdiscover --cache` file");
    auto u32 = [&](int at) {
        return static_cast<std::uint32_t>(head[at]) | static_cast<std::uint32_t>(head[at + 1]) << 8 |
               static_cast<std::uint32_t>(head[at + 2]) << 16 | static_cast<std::uint32_t>(head[at + 3]) << 24;
    };
    if (u32(0) != 0x8fe7832bu)
        throw InputError(path, 1, "found binary data without the cache magic 0x8fe7832b, expected ibnetdiscover "
                                  "output or an `ibnetdiscover --cache` file");
    if (u32(4) != 1)
        throw InputError(path, 1, "found cache version " + std::to_string(u32(4)) + ", expected version 1");
    probe.seekg(0, std::ios::end);
    std::uint64_t size = static_cast<std::uint64_t>(probe.tellg());
    std::uint64_t nodes = u32(8), ports = u32(12);
    // every node record holds at least its 64-byte description, every port record 32 bytes
    if (nodes == 0 || nodes > (1u << 22) || ports > (1u << 26) || 16 + nodes * 64 + ports * 32 > size)
        throw InputError(path, 1, "found a cache header of " + std::to_string(nodes) + " nodes and " +
                                      std::to_string(ports) + " ports in " + std::to_string(size) +
                                      " bytes, expected counts the file can hold");
    std::unique_ptr<ibnd_fabric_t, FabricDeleter> fab(ibnd_load_fabric(path.c_str(), 0));
    if (!fab)
        throw InputError(path, 1, "libibnetdisc could not load it, expected an "
                                  "`ibnetdiscover --cache` file of a matching version");
    return convert(fab.get(), path);
}

Fabric discover_ib(const std::string &ca, int port, bool progress)
{
    ibnd_config_t config{};
    config.show_progress = progress ? 1 : 0;
    std::string ca_copy = ca;
    std::unique_ptr<ibnd_fabric_t, FabricDeleter> fab(ibnd_discover_fabric(
        ca_copy.empty() ? nullptr : &ca_copy[0], port, nullptr, &config));
    if (!fab)
        throw std::runtime_error("InfiniBand discovery failed (ibnd_discover_fabric): is an "
                                 "HCA present and is the subnet manager running?");
    return convert(fab.get(), "ibnetdisc" + (ca.empty() ? "" : ":" + ca));
}

}  // namespace atl
