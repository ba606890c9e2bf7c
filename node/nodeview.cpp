#include "node/nodeview.hpp"

#include <algorithm>
#include <cstdlib>
#include <dirent.h>
#include <fstream>
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
    return gpu_hcas_via(atl_gpu_hcas, xml, keep);
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
