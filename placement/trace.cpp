#include "placement/trace.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <istream>

#include "topology/csv.hpp"
#include "topology/fabric.hpp"

namespace atl {
namespace {

const char *const kRoles[] = {"id", "submit", "duration", "nodes", "limit"};

const std::vector<std::string> &usual_names(const std::string &role)
{
    static const std::map<std::string, std::vector<std::string>> names = {
        {"id", {"id", "job_id", "jobid"}},
        {"submit", {"submit", "submit_s", "submit_time_s", "arrival_s"}},
        {"duration", {"duration", "duration_s", "run_s", "runtime", "runtime_s"}},
        {"nodes", {"nodes", "num_nodes", "nnodes", "nodes_min_8gpu"}},
        // the time limit Slurm plans with; not req_time_s unless asked (--columns limit=req_time_s)
        {"limit", {"limit", "limit_s", "time_limit_s"}},
    };
    return names.at(role);
}

}  // namespace

TraceColumns parse_trace_columns(const std::string &spec)
{
    return parse_role_columns(spec, {std::begin(kRoles), std::end(kRoles)}, "--columns");
}

std::vector<Job> read_trace(std::istream &in, const std::string &source, const TraceColumns &columns)
{
    std::string line;
    std::size_t lineno = 0;
    std::vector<std::string> header;
    while (std::getline(in, line)) {
        ++lineno;
        if (line.find_first_not_of(" \t\r") == std::string::npos || line[0] == '#')
            continue;
        header = split_csv_line(line);
        break;
    }
    if (header.empty())
        throw InputError(source, lineno, "found no header, expected a CSV header naming submit, duration and nodes");
    // what a site may hand over instead (helper 47): sacct -P's '|' fields,
    // the Parallel Workloads Archive's Standard Workload Format (';' header
    // lines, blank-separated fields)
    if (header.size() == 1 && line.find('|') != std::string::npos)
        throw InputError(source, lineno,
                         "found fields separated by '|' (" + shown(line, 80) +
                             ", as sacct -P writes them), expected a CSV (comma-separated) header naming submit, "
                             "duration and nodes in seconds and whole nodes");
    if (!line.empty() && line[0] == ';')
        throw InputError(source, lineno,
                         "found " + shown(line, 80) +
                             ", a Standard Workload Format header line, expected a CSV header naming submit, duration "
                             "and nodes (SWF is not read: convert its fields 2, 4 and 5 to such a CSV; '#' starts a comment)");
    // headers match in any case, blanks around them ignored (JOB_ID, Submit_S)
    auto folded = [](std::string h) {
        h.erase(0, h.find_first_not_of(" \t\r"));
        h.erase(h.find_last_not_of(" \t\r") + 1);
        for (char &ch : h)
            ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        return h;
    };
    std::map<std::string, std::size_t> col;
    for (const char *role : kRoles) {
        auto given = columns.find(role);
        for (std::size_t i = 0; i < header.size() && !col.count(role); ++i) {
            const std::string h = folded(header[i]);
            bool match = given != columns.end() ? h == folded(given->second)
                                                : std::find(usual_names(role).begin(), usual_names(role).end(), h) !=
                                                      usual_names(role).end();
            if (match)
                col[role] = i;
        }
        // id is optional; so is limit, unless named with --columns
        bool optional = std::string(role) == "id" || (std::string(role) == "limit" && given == columns.end());
        if (!col.count(role) && !optional)
            throw InputError(source, lineno,
                             "found no " + std::string(role) + " column in " + shown(line, 200) + ", expected one of " +
                                 (given != columns.end() ? given->second : usual_names(role)[0] + ", " + usual_names(role)[1]) +
                                 " (name it with --columns " + role + "=COLUMN)");
    }
    std::vector<Job> jobs;
    auto number = [&](const std::string &field, const char *what) {
        char *end = nullptr;
        errno = 0;
        double v = std::strtod(field.c_str(), &end);
        // (a NUL inside the field ends strtod's string, not the field)
        if (field.empty() || *end || errno || !std::isfinite(v) || field.find('\0') != std::string::npos)
            throw InputError(source, lineno, std::string("found ") + what + " " + shown(field, 40) + ", expected a number");
        if (v < 0)
            throw InputError(source, lineno, std::string("found ") + what + " " + field + ", expected >= 0");
        if (v > 1e10)  // seconds: 300 years
            throw InputError(source, lineno, std::string("found ") + what + " " + field + ", expected at most 1e10");
        return v;
    };
    while (std::getline(in, line)) {
        ++lineno;
        if (line.find_first_not_of(" \t\r") == std::string::npos || line[0] == '#')
            continue;
        auto f = split_csv_line(line);
        if (f.size() != header.size())
            throw InputError(source, lineno, "found " + std::to_string(f.size()) + " fields, expected " +
                                                 std::to_string(header.size()) + " as in the header");
        Job j;
        j.line = lineno;
        j.id = col.count("id") ? f[col["id"]] : std::to_string(jobs.size() + 1);
        j.submit = number(f[col["submit"]], "submit time");
        j.duration = number(f[col["duration"]], "duration");
        const std::string &nf = f[col["nodes"]];
        if (!nf.empty() && nf[0] == '-')
            throw InputError(source, lineno, "found node count " + nf + ", expected a whole number >= 1");
        double n = number(nf, "node count");
        if (n < 1 || n != std::floor(n))
            throw InputError(source, lineno, "found node count " + nf + ", expected a whole number >= 1");
        if (n > 1e7)
            throw InputError(source, lineno, "found node count " + nf + ", expected at most 10000000");
        j.nodes = static_cast<int>(n);
        if (col.count("limit")) {
            // -1: not known (the Standard Workload Format's convention, as
            // in Thunder's req_time_s); planned with the duration
            // sacct's words for none: UNLIMITED, Partition_Limit (the
            // partition's), NOT_SET, INVALID: not known either
            const std::string &lf = f[col["limit"]];
            const std::string lw = folded(lf);
            j.limit = lf == "-1" || lw == "unlimited" || lw == "partition_limit" || lw == "not_set" || lw == "invalid"
                          ? 0
                          : number(lf, "time limit");
            // a job runs past its limit by Slurm's OverTimeLimit and KillWait
            // (Curie: 257 jobs, by up to 251 s): it held its hosts that long,
            // so it is planned with its duration (simulate's Live::limit)
        }
        jobs.push_back(j);
    }
    if (jobs.empty())
        throw InputError(source, lineno, "found no jobs, expected one row per job after the header");
    return jobs;
}

}  // namespace atl
