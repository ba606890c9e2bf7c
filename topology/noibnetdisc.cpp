// For programs built without libibnetdisc (the SPANK plugin, which must load
// fast in every job step): the cache and live readers say what to use instead.
#include <stdexcept>

#include "topology/ibnetdiscover.hpp"

namespace atl {

Fabric load_ibnetdiscover_cache(const std::string &path)
{
    throw std::runtime_error(path + ": an ibnetdiscover cache file; this program reads fabric.json or the "
                                    "view from atoll-topo slurm --format view");
}

Fabric discover_ib(const std::string &, int, bool)
{
    throw std::runtime_error("live InfiniBand discovery is not built into this program; use atoll-topo discover --ib");
}

}  // namespace atl
