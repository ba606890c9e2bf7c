#include "topology/cloud.hpp"

#include <istream>
#include <nlohmann/json.hpp>
#include <set>

#include "topology/csv.hpp"
#include "topology/json.hpp"

namespace atl {

bool looks_like_aws_topology(const std::string &head)
{
    return head.find("\"Instances\"") != std::string::npos && head.find("atoll-fabric") == std::string::npos;
}

Fabric parse_aws_topology(std::istream &in, const std::string &source)
{
    nlohmann::json j;
    try {
        in >> j;
    } catch (const nlohmann::json::exception &e) {
        throw InputError(source + ": not valid JSON (" + json_error_text(e) +
                         "), expected aws ec2 describe-instance-topology output");
    }
    if (!j.is_object() || !j.contains("Instances") || !j["Instances"].is_array())
        throw InputError(source + ": found no \"Instances\" array, expected aws ec2 describe-instance-topology output");
    std::vector<HostPlacement> rows;
    std::set<std::string> seen;
    std::size_t k = 0;
    for (const auto &inst : j["Instances"]) {
        std::string where = source + ": Instances[" + std::to_string(k++) + "]";
        if (!inst.is_object() || !inst.contains("InstanceId") || !inst["InstanceId"].is_string())
            throw InputError(where + ": found no InstanceId, expected a string such as i-0123456789abcdef0");
        std::string id = inst["InstanceId"].get<std::string>();
        if (!inst.contains("NetworkNodes") || !inst["NetworkNodes"].is_array() || inst["NetworkNodes"].size() < 3)
            throw InputError(where + " (" + id + "): found " +
                             (inst.contains("NetworkNodes") ? json_value_text(inst["NetworkNodes"]) : std::string("no NetworkNodes")) +
                             ", expected three or more network nodes (the instance type may not report its topology)");
        std::vector<std::string> nn;
        for (const auto &n : inst["NetworkNodes"]) {
            if (!n.is_string() || n.get<std::string>().empty())
                throw InputError(where + " (" + id + "): found a network node " + json_value_text(n) + ", expected a name");
            nn.push_back(n.get<std::string>());
        }
        if (!seen.insert(id).second)
            throw InputError(where + ": found " + id + " again, expected each instance once");
        rows.push_back({id, nn.back(), nn[nn.size() - 2], nn.front()});
    }
    if (rows.empty())
        throw InputError(source + ": found no instances, expected at least one");
    Fabric f = fabric_from_placements(rows, source, true, true);
    f.kind = "aws";
    return f;
}

}  // namespace atl
