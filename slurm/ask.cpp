#include "slurm/ask.hpp"

#include <algorithm>
#include <climits>
#include <functional>
#include <iomanip>
#include <istream>
#include <map>
#include <ostream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace atl {
namespace {

using Ranker = std::function<std::vector<int>(Level, int)>;

// The hosts of each island of a level: two levels that cut the hosts the
// same way (a rail group of one leaf is that leaf under another name) are one.
std::set<std::vector<int>> partition(const Cluster &c, Level l)
{
    std::set<std::vector<int>> parts;
    for (int is : c.at(l))
        parts.insert(c.island(is).hosts);
    return parts;
}

SlurmAsk ask_with(const Cluster &c, const IslandRequest &ir, const std::string &request, int n, bool slurm_tree,
                  const Ranker &rank)
{
    SlurmAsk a;
    if (ir.none) {
        a.none = true;
        return a;
    }
    const Level order[] = {Level::Leaf, Level::Group, Level::Pod};
    Level level = ir.level;
    bool required = ir.required;
    if (ir.auto_level) {
        required = false;
        level = Level::Fabric;
        for (Level l : order)
            if (c.largest(l) >= n) {
                level = l;
                break;
            }
    }
    a.level = level;
    if (c.largest(level) < n) {
        // auto too: a job larger than the fabric can never run
        a.refuse = "--fabric-island=" + request + ": no " + to_string(level) + " can hold " + std::to_string(n) +
                   " nodes; the largest " + to_string(level) + " holds " + std::to_string(c.largest(level));
        return a;
    }
    if (level == Level::Fabric) {
        // auto, larger than any pod: the whole fabric, on the fewest leaves for the leaf wait
        if (!slurm_tree) {
            a.switches = c.min_leaves(n);
            a.wait = SwitchWait::Leaf;
        }
        return a;
    }
    if (slurm_tree) {
        // Slurm's own choice: topology/tree's one leaf switch, no constraint
        if (level == Level::Leaf) {
            a.switches = 1;
            a.wait = SwitchWait::Island;
        }
        return a;
    }
    // the islands one level up: the first level above whose islands are not these
    auto wider = [&]() -> std::vector<int> {
        const auto here = partition(c, level);
        for (Level l : order)
            if (l > level && c.largest(l) >= n && partition(c, l) != here)
                return rank(l, n);
        return {};
    };
    // above a leaf, --switches=K@leaf_wait with K the fewest leaves that can hold the job
    if (level != Level::Leaf) {
        a.switches = c.min_leaves(n);
        a.wait = SwitchWait::Leaf;
    }
    if (required) {
        a.constraint = rank(level, n);
        return a;
    }
    if (level == Level::Leaf) {
        // preferred leaf: topology/tree waits for one leaf switch, and the
        // constraint one level up keeps the job from widening further
        a.switches = 1;
        a.wait = SwitchWait::Island;
        a.constraint = wider();
        return a;
    }
    // preferred group or pod: held to the level now, atoll-widen swaps in the
    // level above once island_wait is over (Slurm cannot drop a constraint)
    a.constraint = rank(level, n);
    a.widen = true;
    a.wider = wider();
    return a;
}

std::string join_names(const Cluster &c, const std::vector<int> &islands)
{
    std::string s;
    for (std::size_t i = 0; i < islands.size(); ++i)
        s += (i ? "|" : "") + c.island(islands[i]).name;
    return s;
}

const char *wait_word(SwitchWait w) { return w == SwitchWait::Island ? "island" : w == SwitchWait::Leaf ? "leaf" : "-"; }

// One table answer on one line (after REQUEST POLICY FROM TO); {n} stands
// for the node count in a refusal.
std::string row_text(const Cluster &c, const SlurmAsk &a, int n)
{
    if (!a.refuse.empty()) {
        std::string m = a.refuse;
        std::string num = " " + std::to_string(n) + " nodes";
        auto p = m.find(" can hold" + num);
        if (p != std::string::npos)
            m.replace(p + 9, num.size(), " {n} nodes");
        return "refuse " + m;
    }
    std::string s = std::string(to_string(a.level)) + " " + std::to_string(a.switches) + " " + wait_word(a.wait) + " " +
                    (a.constraint.empty() ? "-" : join_names(c, a.constraint)) + " ";
    if (!a.widen)
        s += "-";
    else
        s += a.wider.empty() ? "*" : join_names(c, a.wider);
    return s;
}

}  // namespace

SlurmAsk slurm_ask(const Cluster &c, Policy &policy, const FreeState &free, const IslandRequest &ir,
                   const std::string &request, int n)
{
    return ask_with(c, ir, request, n, std::string(policy.name()) == "slurm-tree",
                    [&](Level l, int k) { return rank_islands(policy, free, l, k); });
}

std::string constraint_text(const Cluster &c, const std::vector<int> &islands)
{
    return islands.empty() ? std::string() : "[" + join_names(c, islands) + "]";
}

std::string mm_ss(long seconds)
{
    std::ostringstream o;
    o << seconds / 60 << ":" << std::setw(2) << std::setfill('0') << seconds % 60;
    return o.str();
}

const std::vector<std::string> &table_requests()
{
    static const std::vector<std::string> r{"auto",          "leaf:required", "leaf:preferred", "group:required",
                                            "group:preferred", "pod:required",  "pod:preferred"};
    return r;
}

void write_requests_table(std::ostream &out, const Cluster &c)
{
    out << "# atoll-requests 1: what job_submit.lua asks Slurm, written by atoll-topo from " << c.source() << "\n"
        << "# REQUEST POLICY FROM TO refuse MESSAGE ({n}: the node count)\n"
        << "# REQUEST POLICY FROM TO LEVEL SWITCHES WAIT(island|leaf|-) CONSTRAINT(a|b|-) WIDEN(-|*|a|b)\n"
        << "# TO '-': every larger node count. random's islands by name (job_submit.lua shuffles them).\n";
    FreeState idle(c, true);
    const int last = c.pool_size() + 1;
    for (const std::string &pname : policy_names()) {
        auto policy = make_policy(pname, c);
        // one ranking per level and node count (the requests share them)
        std::map<std::pair<int, int>, std::vector<int>> cache;
        Ranker rank = [&](Level l, int n) {
            auto key = std::make_pair(static_cast<int>(l), n);
            auto it = cache.find(key);
            if (it != cache.end())
                return it->second;
            std::vector<int> r;
            if (pname == "random") {
                for (int is : c.at(l))
                    if (c.capacity(is) >= n)
                        r.push_back(is);
                std::sort(r.begin(), r.end(), [&](int a, int b) { return c.island(a).name < c.island(b).name; });
            }
            else
                r = rank_islands(*policy, idle, l, n);
            cache[key] = r;
            return r;
        };
        for (const std::string &req : table_requests()) {
            IslandRequest ir = parse_island(req);
            std::string prev;
            int from = 1;
            for (int n = 1; n <= last; ++n) {
                std::string row = row_text(c, ask_with(c, ir, req, n, pname == "slurm-tree", rank), n);
                if (n > 1 && row != prev) {
                    out << req << " " << pname << " " << from << " " << n - 1 << " " << prev << "\n";
                    from = n;
                }
                prev = row;
            }
            out << req << " " << pname << " " << from << " - " << prev << "\n";
        }
    }
}

std::vector<TableRow> read_requests_table(std::istream &in, const Cluster &c, const std::string &source)
{
    std::map<std::string, int> by_name;
    for (std::size_t i = 0; i < c.islands().size(); ++i)
        by_name[c.islands()[i].name] = static_cast<int>(i);
    std::vector<TableRow> rows;
    std::string line;
    int lineno = 0;
    auto islands = [&](const std::string &w) {
        std::vector<int> v;
        if (w == "-" || w == "*")
            return v;
        std::istringstream s(w);
        for (std::string name; std::getline(s, name, '|');) {
            auto it = by_name.find(name);
            if (it == by_name.end())
                throw std::invalid_argument(source + ":" + std::to_string(lineno) + ": found island '" + name +
                                            "', expected an island of the fabric");
            v.push_back(it->second);
        }
        return v;
    };
    while (std::getline(in, line)) {
        ++lineno;
        if (line.empty() || line[0] == '#')
            continue;
        std::istringstream s(line);
        TableRow r;
        std::string to, kind;
        if (!(s >> r.request >> r.policy >> r.from >> to >> kind))
            throw std::invalid_argument(source + ":" + std::to_string(lineno) + ": found '" + line +
                                        "', expected REQUEST POLICY FROM TO ...");
        r.to = to == "-" ? INT_MAX : std::stoi(to);
        if (kind == "refuse") {
            std::getline(s >> std::ws, r.ask.refuse);
        }
        else {
            std::string wait, cons, widen;
            if (!level_from_string(kind, r.ask.level) || !(s >> r.ask.switches >> wait >> cons >> widen))
                throw std::invalid_argument(source + ":" + std::to_string(lineno) + ": found '" + line +
                                            "', expected LEVEL SWITCHES WAIT CONSTRAINT WIDEN");
            r.ask.wait = wait == "island" ? SwitchWait::Island : wait == "leaf" ? SwitchWait::Leaf : SwitchWait::None;
            r.ask.constraint = islands(cons);
            r.ask.widen = widen != "-";
            r.ask.wider = islands(widen);
        }
        rows.push_back(r);
    }
    return rows;
}

}  // namespace atl
