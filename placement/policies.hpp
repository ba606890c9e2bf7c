// The policies that live in their own files (internal to placement/).
#pragma once

#include <memory>

#include "placement/policy.hpp"

namespace atl {

std::unique_ptr<Policy> make_atoll_policy();
std::unique_ptr<Policy> make_slurm_tree_policy();
std::unique_ptr<Policy> make_slurm_block_policy();

}  // namespace atl
