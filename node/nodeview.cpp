#include "node/nodeview.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <hwloc.h>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace atl {
namespace {

std::vector<std::string> list_dir(const std::string &dir)
{
    std::vector<std::string> out;
    DIR *d = opendir(dir.c_str());
    if (!d)
        return out;
    while (struct dirent *e = readdir(d))
        if (e->d_name[0] != '.')
            out.push_back(e->d_name);
    closedir(d);
    std::sort(out.begin(), out.end(), [](const std::string &a, const std::string &b) {
        return a.size() != b.size() ? a.size() < b.size() : a < b;  // 2 before 10
    });
    return out;
}

std::string read_line(const std::string &path)
{
    std::ifstream in(path);
    std::string s;
    if (in)
        std::getline(in, s);
    return s;
}

}  // namespace

std::vector<GpuHca> node_gpu_hcas(const std::string &xml, const std::function<bool(const std::string &)> &keep)
{
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0)
        throw std::runtime_error("hwloc: cannot initialise");
    struct Guard {
        hwloc_topology_t t;
        ~Guard() { hwloc_topology_destroy(t); }
    } guard{topo};
    hwloc_topology_set_io_types_filter(topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    if ((!xml.empty() && hwloc_topology_set_xml(topo, xml.c_str()) != 0) || hwloc_topology_load(topo) != 0)
        throw std::runtime_error("hwloc: cannot load " + (xml.empty() ? std::string("this machine") : xml) + ": " +
                                 std::strerror(errno));
    std::vector<hwloc_obj_t> gpus, hcas;
    std::vector<std::string> hca_names;
    for (hwloc_obj_t o = hwloc_get_next_pcidev(topo, nullptr); o; o = hwloc_get_next_pcidev(topo, o))
        if (o->attr->pcidev.vendor_id == 0x10de && (o->attr->pcidev.class_id >> 8) == 0x03)
            gpus.push_back(o);
    for (hwloc_obj_t o = hwloc_get_next_osdev(topo, nullptr); o; o = hwloc_get_next_osdev(topo, o))
        if (o->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS && o->parent && (!keep || keep(o->name ? o->name : ""))) {
            hcas.push_back(o->parent);
            hca_names.push_back(o->name ? o->name : "");
        }
    auto busid = [](hwloc_obj_t o) {
        char b[32];
        std::snprintf(b, sizeof b, "%04x:%02x:%02x.%01x", o->attr->pcidev.domain, o->attr->pcidev.bus,
                      o->attr->pcidev.dev, o->attr->pcidev.func);
        return std::string(b);
    };
    // NCCL's path classes, best first
    // The lowest common ancestor by parent links (hwloc's helper compares
    // depths, which are negative virtual depths for I/O objects: it crashed on
    // a GPU and an HCA behind one PCIe switch) and its distance from the root,
    // the deeper the nearer within one class.
    auto common_ancestor = [](hwloc_obj_t a, hwloc_obj_t b, int &depth) -> hwloc_obj_t {
        for (hwloc_obj_t x = a; x; x = x->parent)
            for (hwloc_obj_t y = b; y; y = y->parent)
                if (x == y) {
                    depth = 0;
                    for (hwloc_obj_t z = x; z->parent; z = z->parent)
                        ++depth;
                    return x;
                }
        depth = -1;
        return nullptr;
    };
    auto classify = [&](hwloc_obj_t a, hwloc_obj_t b, int &depth) {
        hwloc_obj_t lca = common_ancestor(a, b, depth);
        if (!lca)
            return 4;
        if (lca->type == HWLOC_OBJ_BRIDGE) {
            if (lca->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_HOST)
                return 2;  // PHB
            auto bridges_up = [&](hwloc_obj_t x) {
                int n = 0;
                for (hwloc_obj_t y = x->parent; y && y != lca; y = y->parent)
                    n += y->type == HWLOC_OBJ_BRIDGE;
                return n;
            };
            return bridges_up(a) == 0 && bridges_up(b) == 0 ? 0 : 1;  // PIX : PXB
        }
        if (lca->type == HWLOC_OBJ_PCI_DEVICE)
            return 0;
        hwloc_obj_t nonio = lca;
        while (nonio && !nonio->cpuset)
            nonio = nonio->parent;
        if (nonio && nonio->nodeset && hwloc_bitmap_weight(nonio->nodeset) <= 1)
            return 3;  // NODE
        return 4;      // SYS
    };
    static const char *names[] = {"PIX", "PXB", "PHB", "NODE", "SYS"};
    std::vector<GpuHca> out;
    for (std::size_t g = 0; g < gpus.size(); ++g) {
        GpuHca r;
        r.gpu = static_cast<int>(g);
        r.gpu_busid = busid(gpus[g]);
        int best = 99, best_depth = -1;
        for (std::size_t h = 0; h < hcas.size(); ++h) {
            int depth = 0;
            int cls = classify(gpus[g], hcas[h], depth);
            if (cls < best || (cls == best && depth > best_depth)) {
                best = cls;
                best_depth = depth;
                r.hca = hca_names[h];
                r.distance = names[cls];
            }
        }
        out.push_back(r);
    }
    return out;
}

std::vector<NodePort> node_ports(const std::string &sysfs_root)
{
    std::vector<NodePort> out;
    std::string base = sysfs_root + "/class/infiniband";
    for (const std::string &dev : list_dir(base)) {
        for (const std::string &p : list_dir(base + "/" + dev + "/ports")) {
            std::string dir = base + "/" + dev + "/ports/" + p;
            NodePort np;
            np.hca = dev;
            np.port = std::atoi(p.c_str());
            np.link_layer = read_line(dir + "/link_layer");
            np.state = read_line(dir + "/state");
            np.rate = read_line(dir + "/rate");
            for (const std::string &i : list_dir(dir + "/gid_attrs/ndevs")) {
                std::string nd = read_line(dir + "/gid_attrs/ndevs/" + i);
                if (!nd.empty() && std::find(np.netdevs.begin(), np.netdevs.end(), nd) == np.netdevs.end())
                    np.netdevs.push_back(nd);
            }
            if (np.netdevs.empty())
                np.netdevs = list_dir(base + "/" + dev + "/device/net");
            if (np.link_layer == "Ethernet")
                for (const std::string &i : list_dir(dir + "/gid_attrs/types")) {
                    std::string gid = read_line(dir + "/gids/" + i);
                    bool unset = gid.empty() || gid.find_first_not_of("0:") == std::string::npos;
                    if (read_line(dir + "/gid_attrs/types/" + i).rfind("RoCE v2", 0) == 0 && !unset) {
                        np.roce_v2_gid_index = std::atoi(i.c_str());
                        np.roce_v2_gid = gid;
                        break;
                    }
                }
            out.push_back(np);
        }
    }
    return out;
}

nlohmann::json node_json(const std::vector<GpuHca> &gpus, const std::vector<NodePort> &ports)
{
    nlohmann::json g = nlohmann::json::array(), p = nlohmann::json::array();
    for (const auto &x : gpus)
        g.push_back({{"gpu", x.gpu}, {"pci", x.gpu_busid}, {"nearest_hca", x.hca}, {"distance", x.distance}});
    for (const auto &x : ports) {
        nlohmann::json j = {{"hca", x.hca},       {"port", x.port},   {"link_layer", x.link_layer},
                            {"state", x.state},   {"rate", x.rate},   {"netdevs", x.netdevs}};
        if (x.link_layer == "Ethernet") {
            j["roce_v2_gid_index"] = x.roce_v2_gid_index;
            j["roce_v2_gid"] = x.roce_v2_gid;
        }
        p.push_back(j);
    }
    return {{"gpus", g}, {"ports", p}};
}

}  // namespace atl
