// ATOLL_ENV_SET, the record of what atoll set in a step.
#pragma once

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "spank/env.hpp"

namespace atl {

// ATOLL_ENV_SET: "NAME:HASH,..." for what atoll set (HASH: FNV-1a of the
// value), so that a later step tells atoll's values, which it recomputes,
// from ones the user changed since, which it keeps.
std::string env_set_record(const std::vector<EnvVar> &vars);
std::string env_set_add(const std::string &record, const EnvVar &v);
// The names of `record` whose current value (`value_of`, nullopt when unset)
// is still the one atoll set, and ATOLL_ENV_SET itself when it is set.
std::set<std::string> atoll_unchanged(const std::string &record,
                                      const std::function<std::optional<std::string>(const std::string &)> &value_of);

}  // namespace atl
