// atoll-topo health: the command (reads, runs the checks of node/health,
// writes the report and the node_exporter textfile).
#pragma once

namespace atl {

// exit 0 healthy (warnings may be printed), 4 a check failed; errors in the
// inputs throw (1), usage errors throw Usage (2)
int cmd_health(int argc, char **argv);

}  // namespace atl
