// The unit tests build against Catch2 2.x (Debian 12) and 3.x (Debian 13):
// configure defines ATOLL_CATCH2_V3 for 3.x. Contains, StartsWith and
// EndsWith are the 2.x names of the string matchers.
#pragma once
#ifdef ATOLL_CATCH2_V3
#include <catch2/catch_all.hpp>
#include <string>
namespace Catch {
inline auto Contains(const std::string &s) { return Matchers::ContainsSubstring(s); }
inline auto StartsWith(const std::string &s) { return Matchers::StartsWith(s); }
inline auto EndsWith(const std::string &s) { return Matchers::EndsWith(s); }
}  // namespace Catch
using Catch::Approx;  // 2.x has it at global scope
#else
#include <catch2/catch.hpp>
#endif
