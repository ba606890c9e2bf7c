// The node's own view of its GPUs and NICs, for `atoll-topo node` and the
// SPANK plugin: GPUs (PCI devices of vendor 0x10de: Debian's hwloc has no CUDA
// backend), HCAs and their netdevs, link state and RoCE v2 GIDs from sysfs, and
// each GPU's nearest HCA with the PCIe distance class as NCCL names it.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "node/gpu_hca.h"
#include "node/sysfs.hpp"

namespace atl {

struct GpuHca {
    int gpu = -1;               // index among the node's GPUs, PCI order
    std::string gpu_busid;      // "0000:07:00.0"
    std::string hca;            // "mlx5_0"; empty when the node has none
    std::string distance;       // PIX, PXB, PHB, NODE, SYS
    int ties = 1;               // HCAs equally near (same class and depth); > 1: none is this GPU's own
    std::string hca_busid;      // the PCI device hwloc puts the HCA under; "" unknown
};
// From a saved hwloc XML, or the live machine when xml is "". Nearest = the
// best distance class, then the deepest common ancestor, among the HCAs
// `keep` accepts (all when it is empty). Throws std::runtime_error when hwloc
// cannot load it.
std::vector<GpuHca> node_gpu_hcas(const std::string &xml,
                                  const std::function<bool(const std::string &)> &keep = nullptr);

// The same through `fn`: atl_gpu_hcas3 itself, or as the plugin finds it in
// atoll-hwloc.so (header-only, so that the plugin does not link hwloc).
// `seen`, given, gets every HCA of the XML and the PCI addresses it puts it
// at ("" under no PCI device), kept or not.
inline std::vector<GpuHca> gpu_hcas_via(atl_gpu_hcas_fn fn, const std::string &xml,
                                        const std::function<bool(const std::string &)> &keep = nullptr,
                                        std::map<std::string, std::set<std::string>> *seen = nullptr)
{
    struct Keep {
        const std::function<bool(const std::string &)> &keep;
        std::map<std::string, std::set<std::string>> *seen;
        static int call(const char *name, const char *busid, void *arg)
        {
            const Keep *k = static_cast<const Keep *>(arg);
            if (k->seen)
                (*k->seen)[name].insert(busid);
            return !k->keep || k->keep(name) ? 1 : 0;
        }
    } k{keep, seen};
    const bool any = keep || seen;
    std::vector<atl_gpu_hca> raw(64);
    char err[512] = "";
    int n = fn(xml.c_str(), any ? Keep::call : nullptr, any ? &k : nullptr, raw.data(), static_cast<int>(raw.size()),
               err, sizeof err);
    if (n < 0)
        throw std::runtime_error(err);
    if (n > static_cast<int>(raw.size())) {
        raw.resize(static_cast<std::size_t>(n));
        if (seen)
            seen->clear();
        n = fn(xml.c_str(), any ? Keep::call : nullptr, any ? &k : nullptr, raw.data(),
               static_cast<int>(raw.size()), err, sizeof err);
        if (n < 0)
            throw std::runtime_error(err);
    }
    std::vector<GpuHca> out;
    for (int g = 0; g < n; ++g) {
        GpuHca r;
        r.gpu = g;
        r.gpu_busid = raw[static_cast<std::size_t>(g)].gpu_busid;
        r.hca = raw[static_cast<std::size_t>(g)].hca;
        r.distance = raw[static_cast<std::size_t>(g)].distance;
        r.ties = raw[static_cast<std::size_t>(g)].ties;
        r.hca_busid = raw[static_cast<std::size_t>(g)].hca_busid;
        out.push_back(r);
    }
    return out;
}

nlohmann::json node_json(const std::vector<GpuHca> &gpus, const std::vector<NodePort> &ports);

}  // namespace atl
