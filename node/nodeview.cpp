#include "node/nodeview.hpp"

#include <algorithm>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace atl {

std::vector<GpuHca> node_gpu_hcas(const std::string &xml, const std::function<bool(const std::string &)> &keep)
{
    return gpu_hcas_via(atl_gpu_hcas3, xml, keep);
}

nlohmann::json node_json(const std::vector<GpuHca> &gpus, const std::vector<NodePort> &ports)
{
    nlohmann::json g = nlohmann::json::array(), p = nlohmann::json::array();
    for (const auto &x : gpus)
        g.push_back({{"gpu", x.gpu}, {"pci", x.gpu_busid}, {"nearest_hca", x.hca}, {"distance", x.distance}, {"equally_near", x.ties}});
    for (const auto &x : ports) {
        nlohmann::json j = {{"hca", x.hca},       {"port", x.port},   {"link_layer", x.link_layer},
                            {"state", x.state},   {"rate", x.rate},   {"netdevs", x.netdevs}};
        if (x.link_layer == "Ethernet") {
            j["roce_v2_gid_index"] = x.roce_v2_gid_index;
            j["roce_v2_gid"] = x.roce_v2_gid;
            j["nccl_gid_index"] = nccl_gid_index(x);
            j["ucx_gid_index"] = ucx_gid_index(x);
            nlohmann::json gids = nlohmann::json::array();
            for (const GidEntry &e : x.gids)
                gids.push_back({{"index", e.index}, {"gid", e.gid}, {"version", e.version}, {"ndev", e.ndev}});
            j["gids"] = gids;
            if (!x.lower.empty())
                j["bond_members"] = x.lower;
            if (!x.representor.empty())
                j["representor"] = x.representor;
        }
        p.push_back(j);
    }
    return {{"gpus", g}, {"ports", p}};
}

}  // namespace atl
