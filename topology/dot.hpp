// Graphviz pictures of the switch graph.
#pragma once

#include <iosfwd>

#include "topology/topology.hpp"

namespace atl {

struct DotOptions {
    bool hosts = false;  // draw hosts too (large fabrics: leave off)
};

// Islands as clusters (pod > group), tiers ranked (cores on top), parallel
// cables as one edge labelled with their count, degraded links in red.
void write_dot(std::ostream &out, const Topology &t, const DotOptions &opt);

}  // namespace atl
