// ATOLL_ENV_SET: what atoll set, so that a later step recomputes its own values and keeps the user's.
#include "spank/record.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <cstdio>

namespace atl {

namespace {

std::string value_hash(const std::string &v)
{
    std::uint32_t h = 2166136261u;
    for (unsigned char c : v) {
        h ^= c;
        h *= 16777619u;
    }
    char buf[9];
    std::snprintf(buf, sizeof buf, "%08x", h);
    return buf;
}

}  // namespace

std::string env_set_add(const std::string &record, const EnvVar &v)
{
    return record + (record.empty() ? "" : ",") + v.name + ":" + value_hash(v.value);
}

std::string env_set_record(const std::vector<EnvVar> &vars)
{
    std::string r;
    for (const EnvVar &v : vars)
        if (v.set && !v.kept)
            r = env_set_add(r, v);
    return r;
}

std::set<std::string> atoll_unchanged(const std::string &record,
                                      const std::function<std::optional<std::string>(const std::string &)> &value_of)
{
    std::set<std::string> out;
    std::size_t p = 0;
    int n = 0;
    while (p < record.size() && n++ < 64) {
        std::size_t q = record.find(',', p);
        if (q == std::string::npos)
            q = record.size();
        std::string item = record.substr(p, q - p);
        std::size_t colon = item.rfind(':');
        if (colon != std::string::npos) {
            std::string name = item.substr(0, colon);
            auto v = value_of(name);
            if (v && value_hash(*v) == item.substr(colon + 1))
                out.insert(name);
        }
        p = q + 1;
    }
    if (value_of("ATOLL_ENV_SET"))
        out.insert("ATOLL_ENV_SET");
    return out;
}

}  // namespace atl
