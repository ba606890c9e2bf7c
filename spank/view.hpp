// The fabric view the plugin loads once per process.
#pragma once

#include <memory>
#include <string>

#include "placement/view.hpp"
#include "spank/config.hpp"

namespace atl {

// The loaded fabric, with everything the environment needs.
struct FabricView {
    FabricSummary summary;
    FabricKind kind = FabricKind::InfiniBand;  // for placement's cost model
    // The environment profile: ib, roce, azure (InfiniBand VMs: as ib, no
    // SHARP), aws, gcp, oci, nebius (a cloud's topology API: placement's
    // cloud cost model), generic (a site's CSV) or cloud (any cloud): from
    // fabric_type=, else the view's kind, else ib.
    std::string profile = "ib";
};
// Opens the file with open_trusted() (not older than max_age either) and reads
// it from that descriptor, at most 256 MiB: the compact view (`atoll-topo
// slurm --format view`), or a fabric.json through a full analysis. Throws
// std::runtime_error saying what is wrong.
std::unique_ptr<FabricView> load_fabric_view(const PluginConfig &cfg, const std::string &path);

// A profile whose adapters atoll names (ib, roce, azure), not a cloud's own plugin.
bool device_profile(const std::string &p);
// A profile whose compute adapters, when the fabric names none for a host,
// come from the node's sysfs by the cloud's rules (cloud_adapters()): azure, gcp.
bool node_adapter_profile(const std::string &p);

}  // namespace atl
