#include "topology/nodehealth.hpp"

#include <algorithm>
#include <cctype>
#include <istream>

#include "topology/fabric.hpp"
#include "topology/topology.hpp"

namespace atl {

std::map<std::string, std::string> parse_health_results(std::istream &in, const std::string &source,
                                                        std::vector<std::string> *warnings)
{
    auto skip = [&](std::size_t lineno, const std::string &what) {
        if (warnings)
            warnings->push_back(source + ":" + std::to_string(lineno) + ": skipped " + what);
    };
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
        if (colon == std::string::npos || colon == 0) {
            skip(lineno, shown(line) + ": expected pdsh output of atoll-topo health (HOST: line)");
            continue;
        }
        std::string host = line.substr(0, colon), text = line.substr(colon + 2);
        bool ours = false;  // what atoll-topo health prints: a severity or its summary
        for (const char *k : {"ERROR: ", "WARNING: ", "SKIPPED: ", "OK: ", "health: "})
            ours = ours || text.rfind(k, 0) == 0;
        if (!ours) {
            skip(lineno, shown(line) + ": expected pdsh output of atoll-topo health (HOST: ERROR|WARNING|SKIPPED|OK|health: ...)");
            continue;
        }
        std::string why = host_name_problem(host);
        if (!why.empty()) {
            skip(lineno, "host name " + shown(host) + ": " + why);
            continue;
        }
        if (text.rfind("ERROR: ", 0) == 0) {
            failed.emplace(host, text.substr(0, 400));
        } else if (text.rfind("health: FAILED", 0) == 0) {
            failed.emplace(host, text.substr(0, 400));
        }
    }
    return failed;
}

}  // namespace atl

namespace atl {

int health_host(const std::map<std::string, int> &host_index, const std::string &name)
{
    auto it = host_index.find(name);
    if (it == host_index.end() && name.find('.') != std::string::npos &&
        !std::all_of(name.begin(), name.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '.'; }))
        it = host_index.find(name.substr(0, name.find('.')));
    return it == host_index.end() ? -1 : it->second;
}

}  // namespace atl
