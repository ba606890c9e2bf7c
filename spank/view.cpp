// The fabric view the plugin loads: the compact view or a fabric.json.
#include "spank/view.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <ctime>

#include "topology/json.hpp"
#include "spank/trusted.hpp"

namespace atl {

std::unique_ptr<FabricView> load_fabric_view(const PluginConfig &cfg, const std::string &path)
{
    if (path.empty())
        throw std::runtime_error("no fabric file configured (plugstack.conf fabric=)");
    struct stat st;
    Fd fd(open_trusted(path, "fabric file", st, cfg.owner));
    if (cfg.max_age > 0 && std::time(nullptr) - st.st_mtime > cfg.max_age)
        throw std::runtime_error("fabric file " + path + ": stale, last written " +
                                 std::to_string((std::time(nullptr) - st.st_mtime) / 86400) +
                                 " days ago (max_age is " + std::to_string(cfg.max_age / 86400) + " days)");
    std::string data = read_trusted(fd.fd, "fabric file " + path, std::size_t(256) << 20);
    auto v = std::make_unique<FabricView>();
    std::istringstream in(data);
    std::size_t first = data.find_first_not_of(" \t\r\n");
    if (data.compare(0, std::strlen(summary_magic_v6), summary_magic_v6) == 0 ||
        data.compare(0, std::strlen(summary_magic_v5), summary_magic_v5) == 0 ||
        data.compare(0, std::strlen(summary_magic), summary_magic) == 0 ||
        data.compare(0, std::strlen(summary_magic_v3), summary_magic_v3) == 0 ||
        data.compare(0, std::strlen(summary_magic_v2), summary_magic_v2) == 0 ||
        data.compare(0, std::strlen(summary_magic_v1), summary_magic_v1) == 0) {
        v->summary = read_summary(in, path);
    } else if (first != std::string::npos && data[first] == '{') {
        Topology t = analyse(load_fabric_json(in, path));
        v->summary = summarise(t, Cluster(t, v->kind));
    } else {
        throw std::runtime_error("fabric file " + path +
                                 ": neither the view (atoll-topo slurm --format view) nor a fabric.json");
    }
    v->profile = !cfg.fabric_type.empty() ? cfg.fabric_type
                 : known_profile(v->summary.kind) ? v->summary.kind
                                                  : "ib";
    if (v->profile == "roce")
        v->kind = FabricKind::RoCE;
    else if (v->profile == "aws" || v->profile == "gcp" || v->profile == "oci" || v->profile == "nebius" ||
             v->profile == "cloud" || v->profile == "generic")
        v->kind = FabricKind::Cloud;
    return v;
}


bool device_profile(const std::string &p) { return p == "ib" || p == "roce" || p == "azure"; }
bool node_adapter_profile(const std::string &p) { return p == "azure" || p == "gcp"; }

}  // namespace atl
