// The atoll SPANK plugin's logic, free of the SPANK ABI so that it can be
// unit-tested: plugstack.conf keys, the user's options, and the fabric
// environment a node and a task get from where the job landed. One header
// per concern; this one includes them all.
#pragma once

#include "spank/config.hpp"   // plugstack.conf keys, the user's options
#include "spank/trusted.hpp"  // files read as root, checked on the descriptor
#include "spank/view.hpp"     // the fabric view
#include "spank/facts.hpp"    // what the node says of itself
#include "spank/env.hpp"      // the node's and the task's variables
#include "spank/record.hpp"   // ATOLL_ENV_SET
