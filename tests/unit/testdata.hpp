#pragma once
#include <fstream>
#include <sstream>
#include <string>

#include "topology/generate.hpp"
#include "topology/ibnetdiscover.hpp"
#include "topology/topology.hpp"
#include "topology/io.hpp"

inline std::string test_data(const std::string &rel) { return std::string(ATOLL_SRCDIR "/tests/data/") + rel; }
inline std::string selene_path() { return std::string(ATOLL_SRCDIR "/data/fabrics/selene-compute.ibnetdiscover"); }

inline atl::Fabric parse_string(const std::string &text, const std::string &name = "test.txt")
{
    std::istringstream in(text);
    return atl::parse_ibnetdiscover(in, name);
}

// A generated fabric, analysed: pods x groups_per_pod rail groups of `hosts`
// hosts, in NVLink domains of `domain_size` hosts (0: none).
inline atl::Topology generated(int pods, int groups_per_pod, int hosts, int rails = 1, int domain_size = 0)
{
    atl::GenSpec g;
    g.pods = pods;
    g.groups_per_pod = groups_per_pod;
    g.hosts_per_group = hosts;
    g.rails = rails;
    g.domain_size = domain_size;
    return atl::analyse(atl::generate(g));
}
