#include "topology/nodehealth.hpp"

#include <istream>

#include "topology/fabric.hpp"
#include "topology/topology.hpp"

namespace atl {

std::map<std::string, std::string> parse_health_results(std::istream &in, const std::string &source)
{
    std::map<std::string, std::string> failed;
    std::string line;
    std::size_t lineno = 0;
    while (std::getline(in, line)) {
        ++lineno;
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        if (line.find_first_not_of(" \t") == std::string::npos || line.rfind("pdsh@", 0) == 0 || line.rfind("clush:", 0) == 0)
            continue;
        std::size_t colon = line.find(": ");
        if (colon == std::string::npos || colon == 0)
            throw InputError(source, lineno, "found " + shown(line) + ", expected pdsh output of atoll-topo health (HOST: line)");
        std::string host = line.substr(0, colon), text = line.substr(colon + 2);
        bool ours = false;  // what atoll-topo health prints: a severity or its summary
        for (const char *k : {"ERROR: ", "WARNING: ", "SKIPPED: ", "OK: ", "health: "})
            ours = ours || text.rfind(k, 0) == 0;
        if (!ours)
            throw InputError(source, lineno, "found " + shown(line) +
                                                 ", expected pdsh output of atoll-topo health (HOST: ERROR|WARNING|SKIPPED|OK|health: ...)");
        std::string why = host_name_problem(host);
        if (!why.empty())
            throw InputError(source, lineno, "host name " + shown(host) + ": " + why);
        if (text.rfind("ERROR: ", 0) == 0) {
            failed.emplace(host, text.substr(0, 400));
        } else if (text.rfind("health: FAILED", 0) == 0) {
            failed.emplace(host, text.substr(0, 400));
        }
    }
    return failed;
}

}  // namespace atl
