// Slurm hostlist expressions: "dgx[01-04,07],login1" <-> a list of names.
#pragma once

#include <string>
#include <vector>

namespace atl {

// Sorted, bracketed form, as Slurm prints it.
std::string compress_hostlist(std::vector<std::string> names);
// Throws std::invalid_argument naming what it found on a malformed expression,
// or when it names more than `max` hosts (counted before any is made).
std::vector<std::string> expand_hostlist(const std::string &expr, std::size_t max = 1000000);

}  // namespace atl
