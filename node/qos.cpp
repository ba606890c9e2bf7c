#include "node/qos.hpp"

#include <istream>
#include <sstream>
#include <vector>

#include "topology/fabric.hpp"

namespace atl {
namespace {

std::string trim(const std::string &s)
{
    std::size_t b = s.find_first_not_of(" \t\r"), e = s.find_last_not_of(" \t\r");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

bool starts(const std::string &s, const char *p) { return s.rfind(p, 0) == 0; }

// a small decimal number, all of `s`; -1 otherwise
int small_int(const std::string &s, int hi)
{
    if (s.empty() || s.size() > 5)
        return -1;
    int v = 0;
    for (char c : s) {
        if (c < '0' || c > '9')
            return -1;
        v = v * 10 + (c - '0');
    }
    return v <= hi ? v : -1;
}

}  // namespace

MlnxQos parse_mlnx_qos(std::istream &in, const std::string &source)
{
    MlnxQos q;
    q.source = source;
    enum class Section { None, Dscp, Pfc, Tc } sec = Section::None;
    int tc = -1;
    // the line each once-only item was read on (0: not yet), for "a second ..." errors
    std::size_t trust_line = 0, pfc_line = 0, enabled_line = 0;
    auto once = [&](std::size_t &seen, std::size_t lineno, const std::string &what) {
        if (seen)
            throw InputError(source, lineno, "found a second " + what + " (the first on line " + std::to_string(seen) +
                                                 "), expected one");
        seen = lineno;
    };
    std::string raw;
    for (std::size_t lineno = 1; std::getline(in, raw); ++lineno) {
        std::string line = trim(raw);
        bool indented = !raw.empty() && (raw[0] == ' ' || raw[0] == '\t');
        if (line.empty())
            continue;
        if (!indented)
            sec = Section::None;
        if (starts(line, "DCBX mode:")) {
            q.dcbx = trim(line.substr(10));
        } else if (starts(line, "Priority trust state:")) {
            once(trust_line, lineno, "\"Priority trust state:\" line");
            q.trust = trim(line.substr(21));
            if (q.trust != "dscp" && q.trust != "pcp" && q.trust != "none")
                throw InputError(source, lineno, "trust state " + shown(q.trust) + ", expected dscp, pcp or none");
        } else if (line == "dscp2prio mapping:") {
            sec = Section::Dscp;
            q.has_dscp2prio = true;
        } else if (starts(line, "Cable len:")) {
            q.cable_len = small_int(trim(line.substr(10)), 65535);
        } else if (line == "PFC configuration:") {
            once(pfc_line, lineno, "\"PFC configuration:\" section");
            sec = Section::Pfc;
        } else if (starts(line, "tc:") && !indented) {
            // "tc: 3 ratelimit: unlimited, tsa: vendor"
            std::istringstream w(line.substr(3));
            std::string n;
            w >> n;
            tc = small_int(n, 7);
            if (tc < 0)
                throw InputError(source, lineno, "traffic class " + shown(n) + ", expected tc: 0 to 7");
            sec = Section::Tc;
        } else if (sec == Section::Dscp && starts(line, "prio:")) {
            // "prio:3 dscp:31,30,29,28,27,26,25,24," (8 a line, more lines for more)
            std::size_t d = line.find(" dscp:");
            int prio = d == std::string::npos ? -1 : small_int(line.substr(5, d - 5), 7);
            if (prio < 0)
                throw InputError(source, lineno, shown(line) + ", expected \"prio:N dscp:D,D,...\" with N from 0 to 7");
            std::istringstream list(line.substr(d + 6));
            for (std::string item; std::getline(list, item, ',');) {
                item = trim(item);
                if (item.empty())
                    continue;
                int dscp = small_int(item, 63);
                if (dscp < 0)
                    throw InputError(source, lineno, "DSCP " + shown(item) + ", expected a number from 0 to 63");
                if (q.dscp2prio[static_cast<std::size_t>(dscp)] >= 0)
                    throw InputError(source, lineno,
                                     "DSCP " + std::to_string(dscp) + " mapped to priority " + std::to_string(prio) +
                                         " and before to " + std::to_string(q.dscp2prio[static_cast<std::size_t>(dscp)]) +
                                         ", expected each DSCP once");
                q.dscp2prio[static_cast<std::size_t>(dscp)] = prio;
            }
        } else if (sec == Section::Pfc && (starts(line, "enabled") || starts(line, "priority") || starts(line, "buffer"))) {
            std::istringstream w(line);
            std::string head, v;
            w >> head;
            std::vector<std::string> vals;
            while (w >> v)
                vals.push_back(v);
            if (head == "enabled") {
                once(enabled_line, lineno, "PFC \"enabled\" row");
                if (vals.size() != 8)
                    throw InputError(source, lineno, "PFC enabled row with " + std::to_string(vals.size()) +
                                                         " values, expected 8 (priorities 0 to 7)");
                for (std::size_t p = 0; p < 8; ++p) {
                    if (vals[p] != "0" && vals[p] != "1")
                        throw InputError(source, lineno, "PFC enabled " + shown(vals[p]) + " for priority " +
                                                             std::to_string(p) + ", expected 0 or 1");
                    q.pfc[p] = vals[p] == "1";
                }
            }
        } else if (sec == Section::Tc && starts(line, "priority:")) {
            int prio = small_int(trim(line.substr(9)), 7);
            if (prio < 0)
                throw InputError(source, lineno, shown(line) + ", expected \"priority: N\" with N from 0 to 7");
            q.prio_tc[static_cast<std::size_t>(prio)] = tc;
        }
    }
    if (!pfc_line || !enabled_line)
        throw InputError(source + ": no \"PFC configuration:\" section with its \"enabled\" row, expected the output of "
                                  "mlnx_qos -i IF");
    return q;
}

}  // namespace atl
