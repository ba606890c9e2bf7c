// Job traces for the simulator: CSV with a header, one job per row.
#pragma once

#include <iosfwd>
#include <map>
#include <string>
#include <vector>

namespace atl {

struct Job {
    std::string id;
    double submit = 0;     // seconds
    double duration = 0;   // seconds
    int nodes = 1;
    double limit = 0;      // seconds; what the scheduler plans with (0: the duration)
    std::size_t line = 0;  // where it came from
};

// Column names by role ("id", "submit", "duration", "nodes"). Roles left out
// are found by their usual names: id|job_id, submit|submit_s|submit_time_s,
// duration|duration_s|run_s|runtime, nodes|num_nodes|nodes_min_8gpu, and
// the optional limit|limit_s|time_limit_s (the time limit backfill plans with;
// -1 is unknown; a limit below the duration, a job that ran past it, is
// planned with the duration).
using TraceColumns = std::map<std::string, std::string>;
TraceColumns parse_trace_columns(const std::string &spec);  // "nodes=nodes_min_8gpu,..."

// Throws InputError (FILE:LINE) on a missing column, a field that is not a
// number, a negative time or fewer than one node.
std::vector<Job> read_trace(std::istream &in, const std::string &source, const TraceColumns &columns = {});

}  // namespace atl
