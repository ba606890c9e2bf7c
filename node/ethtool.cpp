#include "node/ethtool.hpp"

#include <cerrno>
#include <cstdlib>
#include <istream>

#include "topology/fabric.hpp"

namespace atl {

EthtoolStats parse_ethtool_stats(std::istream &in, const std::string &source)
{
    EthtoolStats s;
    s.source = source;
    std::string raw;
    for (std::size_t lineno = 1; std::getline(in, raw); ++lineno) {
        std::size_t b = raw.find_first_not_of(" \t"), e = raw.find_last_not_of(" \t\r");
        if (b == std::string::npos || raw[b] == '\r')
            continue;
        std::string line = raw.substr(b, e - b + 1);
        if (line == "NIC statistics:")
            continue;
        // the value follows the last ": " (bnx2x prints "[0]: rx_bytes: N")
        std::size_t colon = line.rfind(": ");
        std::string name = colon == std::string::npos ? std::string() : line.substr(0, colon);
        std::string value = colon == std::string::npos ? std::string() : line.substr(colon + 2);
        value = value.substr(value.find_first_not_of(' ') == std::string::npos ? value.size() : value.find_first_not_of(' '));
        char *end = nullptr;
        errno = 0;
        unsigned long long v = value.empty() || value[0] == '-' ? 0 : std::strtoull(value.c_str(), &end, 10);
        if (name.empty() || value.empty() || value[0] == '-' || *end || errno)
            throw InputError(source, lineno, shown(line) + ", expected \"NAME: VALUE\" with an unsigned counter (ethtool -S)");
        s.counters[name] = v;
    }
    if (s.counters.empty())
        throw InputError(source + ": no counter, expected the output of ethtool -S IF");
    return s;
}

}  // namespace atl
