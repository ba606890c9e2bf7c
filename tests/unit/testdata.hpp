#pragma once
#include <fstream>
#include <sstream>
#include <string>

#include "topology/ibnetdiscover.hpp"
#include "topology/io.hpp"

inline std::string test_data(const std::string &rel) { return std::string(ATOLL_SRCDIR "/tests/data/") + rel; }
inline std::string selene_path() { return std::string(ATOLL_SRCDIR "/data/fabrics/selene-compute.ibnetdiscover"); }

inline atl::Fabric parse_string(const std::string &text, const std::string &name = "test.txt")
{
    std::istringstream in(text);
    return atl::parse_ibnetdiscover(in, name);
}
