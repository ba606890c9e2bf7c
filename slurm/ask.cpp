#include "slurm/ask.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <functional>
#include <iomanip>
#include <istream>
#include <limits>
#include <map>
#include <mutex>
#include <ostream>
#include <queue>
#include <set>
#include <sstream>
#include <system_error>
#include <thread>
#include <stdexcept>
#include <unordered_map>

#include "placement/cost.hpp"
#include "topology/hostlist.hpp"
#include "topology/io.hpp"
#include "topology/slurm.hpp"

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

// The island each block of the file names (a leaf island, or an NVLink
// domain), in the file's order; -1 for a name the fabric lacks (a
// placeholder)
std::vector<int> block_islands(const Cluster &c, const BlockSite &b)
{
    // the requests table asks this for every node count and request: the
    // answer of the last fabric and file kept (a Cluster never changes
    // once built; the blocks are compared whole)
    thread_local std::uint64_t memo_of = 0;
    thread_local std::vector<std::string> memo_blocks;
    thread_local std::vector<int> memo;
    if (memo_of == c.serial() && memo_blocks == b.blocks)
        return memo;
    std::map<std::string, int> by_name;
    for (Level bl : {Level::Domain, Level::Leaf})
        for (int is : c.at(bl))
            by_name[c.island(is).name] = is;
    std::vector<int> out;
    for (const std::string &name : b.blocks) {
        auto it = by_name.find(name);
        out.push_back(it == by_name.end() ? -1 : it->second);
    }
    memo_of = c.serial();
    memo_blocks = b.blocks;
    memo = out;
    return out;
}

// Whether Slurm's block plugin alone keeps a job of n nodes in one island of
// `level`: every aggregated block of the level it picks lies in one.
bool block_holds(const Cluster &c, const BlockSite &b, Level level, int n)
{
    if (b.base <= 0 || b.blocks.empty())
        return false;
    long need = (n + b.base - 1) / b.base, k = 0;
    while ((1L << k) < need)
        ++k;
    auto lv = std::find_if(b.levels.begin(), b.levels.end(), [&](int x) { return x >= k; });
    if (lv == b.levels.end())
        return false;  // every block as one: the whole system
    const std::vector<int> blocks = block_islands(c, b);
    const std::size_t per = std::size_t{1} << *lv;
    for (std::size_t first = 0; first < blocks.size(); first += per) {
        int island = -1;
        for (std::size_t i = first; i < std::min(first + per, blocks.size()); ++i) {
            if (blocks[i] < 0)
                continue;
            // every host: an NVLink domain may reach two leaves (helper 31:
            // a block across two leaves held a leaf:required job to neither)
            for (int h : c.island(blocks[i]).hosts) {
                int here = c.island_of(h, level);
                if (island >= 0 && here != island)
                    return false;
                island = here;
            }
        }
    }
    return true;
}

SlurmAsk ask_block(const Cluster &c, SlurmAsk a, const std::string &request, bool required, int n, bool slurm_tree,
                   const BlockSite &b, const Ranker &rank, const std::function<std::vector<int>()> &wider)
{
    if (slurm_tree)
        return a;
    // no time bound on it: for required requests only
    a.segment = required && b.base > 0 && n > b.base && n % b.base == 0 ? b.base : 0;
    if (a.level == Level::Fabric || block_holds(c, b, a.level, n))
        return a;
    // an island whose nodes the blocks hold (topology/block runs no job on
    // a node of no block), and under --segment the whole blocks each island
    // holds: only one with n/segment of them can ever start the job (a
    // block that reaches two leaves is whole in neither); without one such
    // island the segment is not asked
    std::vector<char> in_block(c.host_count(), 0);
    std::map<int, int> whole;  // island -> blocks all of whose hosts lie in it
    for (int bi : block_islands(c, b)) {
        if (bi < 0 || c.island(bi).hosts.empty())
            continue;
        const std::vector<int> &hs = c.island(bi).hosts;
        for (int h : hs)
            in_block[static_cast<std::size_t>(h)] = 1;
        const int is = c.island_of(hs.front(), a.level);
        if (std::all_of(hs.begin(), hs.end(), [&](int h) { return c.island_of(h, a.level) == is; }))
            ++whole[is];
    }
    std::vector<int> with_segments;
    for (int is : rank(a.level, n)) {
        int held = 0;
        for (int h : c.island(is).hosts)
            held += in_block[static_cast<std::size_t>(h)];
        if (a.level != Level::Leaf || held >= n) {
            a.constraint.push_back(is);
            if (a.segment > 0 && whole[is] >= n / a.segment)
                with_segments.push_back(is);
        }
    }
    if (a.segment > 0) {
        if (with_segments.empty())
            a.segment = 0;
        else
            a.constraint = with_segments;
    }
    if (a.constraint.empty()) {
        a.refuse = "--fabric-island=" + request + ": no leaf written as a block can hold " + std::to_string(n) +
                   " nodes (topology/block)";
        a.segment = 0;
        return a;
    }
    if (!required) {
        a.widen = true;
        a.wider = wider();
    }
    return a;
}

SlurmAsk ask_with(const Cluster &c, const IslandRequest &ir, const std::string &request, int n, bool slurm_tree,
                  const Ranker &rank, const BlockSite *block)
{
    SlurmAsk a;
    if (ir.none) {
        a.none = true;
        return a;
    }
    // NVLink domains first when the fabric has them (auto: a job that fits one asks for one)
    std::vector<Level> order{Level::Leaf, Level::Group, Level::Pod};
    if (!c.at(Level::Domain).empty())
        order.insert(order.begin(), Level::Domain);
    Level level = ir.level;
    bool required = ir.required;
    if (ir.auto_level) {
        required = false;
        level = Level::Fabric;
        for (Level l : order)
            // one node gains nothing from an NVLink domain (its GPUs share
            // NVLink in any case): on a fabric with hosts in no domain the
            // constraint only kept it off them
            if (c.largest(l) >= n && !(l == Level::Domain && n < 2)) {
                level = l;
                break;
            }
    }
    a.level = level;
    if (level == Level::Domain && c.at(Level::Domain).empty()) {
        a.refuse = "--fabric-island=" + request + ": no NVLink domain can hold " + std::to_string(n) +
                   " nodes: this fabric has none (atoll-topo discover --nvlink, or a cloud topology that names them)";
        return a;
    }
    if (c.largest(level) < n) {
        // auto too: a job larger than the fabric can never run
        a.refuse = "--fabric-island=" + request + ": no " + to_string(level) + " can hold " + std::to_string(n) +
                   " nodes; the largest " + to_string(level) + " holds " + std::to_string(c.largest(level));
        return a;
    }
    if (c.subnets() > 1 && n > c.subnet_pool()) {
        // subnets no cable joins: Slurm runs no job across them (topology.conf
        // gives each its own root), so one larger than all would never start
        a.refuse = "--fabric-island=" + request + ": no subnet can hold " + std::to_string(n) +
                   " nodes; the largest subnet holds " + std::to_string(c.subnet_pool()) + " (the fabric is " +
                   std::to_string(c.subnets()) + " subnets no cable joins)";
        return a;
    }
    // auto where spanning is free (a non-blocking fabric): nothing is worth
    // a wait, Slurm's own choice is as good; an NVLink domain never is free
    if (ir.auto_level && level != Level::Domain && spanning_free(c, n))
        return a;
    // the islands one level up: the first level above whose islands are not these
    auto wider = [&]() -> std::vector<int> {
        const auto here = partition(c, level);
        for (Level l : order)
            if (l > level && c.largest(l) >= n && partition(c, l) != here)
                return rank(l, n);
        return {};
    };
    if (block)
        return ask_block(c, a, request, required, n, slurm_tree, *block, rank, wider);
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
    // above a leaf, --switches=K@leaf_wait with K the fewest leaves that can
    // hold the job inside one island of the level the constraint holds it
    // to (the fewest over the whole fabric may lie across pods: a K no
    // constrained island can meet, waited for in vain); an NVLink domain
    // lies in a leaf: its constraint says more
    if (level > Level::Leaf) {
        a.switches = c.min_leaves(n, level);
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
    return s + " " + std::to_string(a.segment);
}

}  // namespace

namespace {

// The answers of spanning_free() for one fabric, by node count (a Cluster
// never changes once built; its serial tells it from one built later at
// the same address)
std::map<int, bool> &spanning_memo(const Cluster &c)
{
    thread_local std::uint64_t memo_of = 0;
    thread_local std::map<int, bool> memo;
    if (memo_of != c.serial()) {
        memo_of = c.serial();
        memo.clear();
    }
    return memo;
}

bool spanning_free_now(const Cluster &c, int n)
{
    // only a fabric that says so: without link speeds (a CSV, LLDP without
    // them) its uplinks are unknown, not free
    bool known = !c.at(Level::Leaf).empty();
    for (int l : c.at(Level::Leaf))
        known = known && c.island(l).host_gbps > 0;
    JobShape job;
    job.comm_share = kFreeSpanShare;
    return known && span_slowdown(c, n, job, default_step_model(c.kind())) - 1 < kFreeSpan;
}

}  // namespace

// The requests table asks spanning_free() for every node count of the
// pool, each priced leaf by leaf: computed ahead on the machine's cores
// (the cost model reads the Cluster only). Threads that cannot be started
// leave the counts to be computed one by one, as asked.
void spanning_free_ahead(const Cluster &c, int last, unsigned threads)
{
    const unsigned cores = threads ? threads : std::min(8u, std::max(1u, std::thread::hardware_concurrency()));
    if (cores < 2 || last < 1)
        return;
    std::vector<char> answer(static_cast<std::size_t>(last) + 1, 0), done(answer.size(), 0);
    std::vector<std::thread> started;
    started.reserve(cores);  // no allocation once a thread runs: a joinable thread destroyed is std::terminate
    std::mutex failed_mu;
    std::exception_ptr failed;
    try {
        for (unsigned t = 0; t < cores; ++t)
            started.emplace_back([&, t] {
                try {
                    for (int n = 1 + static_cast<int>(t); n <= last; n += static_cast<int>(cores)) {
                        answer[static_cast<std::size_t>(n)] = spanning_free_now(c, n);
                        done[static_cast<std::size_t>(n)] = 1;
                    }
                } catch (...) {
                    std::lock_guard<std::mutex> lock(failed_mu);
                    failed = std::current_exception();
                }
            });
    } catch (...) {
        // no thread to be had (std::system_error): the ones started
        // finish, the rest is computed as asked
    }
    for (std::thread &th : started)
        th.join();
    if (failed)
        std::rethrow_exception(failed);
    std::map<int, bool> &memo = spanning_memo(c);
    for (int n = 1; n <= last; ++n)
        if (done[static_cast<std::size_t>(n)])
            memo.emplace(n, answer[static_cast<std::size_t>(n)] != 0);
}

bool spanning_free(const Cluster &c, int n)
{
    std::map<int, bool> &memo = spanning_memo(c);
    auto it = memo.find(n);
    if (it != memo.end())
        return it->second;
    bool free = spanning_free_now(c, n);
    memo.emplace(n, free);
    return free;
}

double auto_wait(double span_cost, double run_s, double expected_s, double island_wait_s)
{
    if (span_cost < kFreeSpan || run_s <= 0)
        return 0;
    double cost = span_cost * run_s;  // what spanning now adds to the run
    if (expected_s > 0 && expected_s >= cost)
        return 0;
    // An island expected only after island_wait is still waited for: the
    // expectation comes from time limits, and jobs end before them
    // (helper 40 asked for no wait there; on the NVL72 stream that took
    // the weighed auto at S 0.7 from 40,459 s to 63,323 s, above plain's
    // 58,448)
    return std::min(island_wait_s, cost);
}

double span_cost_now(const Cluster &c, const FreeState &free, int n, const JobShape &job, const StepModel &m,
                     const UplinkLoad *load, Level level)
{
    auto slurm = make_policy("slurm-tree", c);
    Request req;
    req.nodes = n;
    req.explain = false;
    Placement p = slurm->place(free, req);
    if (!p.ok)
        return span_slowdown(c, n, job, m) - 1;
    // the island auto asks for: a domain (Slurm's topology/tree does not
    // see them: its choice in one leaf may cross two), else a leaf
    const bool domain = level == Level::Domain && !c.at(Level::Domain).empty();
    auto in_one = [&](const Placement &x) { return domain ? x.domains == 1 && x.domain_hosts_only : x.leaves <= 1; };
    if (in_one(p)) {
        // It fits one now, but the request is made before the job starts
        // (live, a second or more later): what it risks is spanning should
        // those hosts go first, Slurm's choice outside every island that holds it
        FreeState rest = free;
        for (int l : c.at(domain ? Level::Domain : Level::Leaf))
            if (free.free_in(l) >= n)
                for (int h : c.island(l).hosts)
                    if (rest.is_free(h))
                        rest.set(h, false);
        Placement q = slurm->place(rest, req);
        if (!q.ok)  // nothing else holds it: no span to price; under the
                    // running jobs' load (none crossing here) nothing is charged,
                    // the busy charge is the site's own assumption (helper 36);
                    // but crossing domains costs NVLink, whatever the uplinks
                    // carry, and the constraint costs nothing while one has
                    // room (helper 39: idle domains asked nothing)
            return load && !domain ? 0 : span_slowdown(c, n, job, m) - 1;
        return in_one(q) ? 0 : span_slowdown_of(c, q, job, m, load) - 1;
    }
    // against what the wait buys: under the busy charge (no load given)
    // the island's own placement crosses busy uplinks too (helper 31: a
    // 13-node job waited 600 s for 12+1 on two leaves, 2.48 times the idle
    // best, while Slurm's 5+5+3 now was 2.19)
    return span_slowdown_of(c, p, job, m, load) - (load ? 1 : island_slowdown(c, n, job, m));
}

long slurm_seconds(const std::string &text)
{
    // [D-]HH:MM:SS, [D-]HH:MM, D-HH, MM:SS, MM
    long days = 0;
    std::string rest = text;
    auto dash = rest.find('-');
    bool with_days = dash != std::string::npos;
    std::vector<long> f;
    auto num = [](const std::string &w, long &out) {
        if (w.empty() || w.size() > 9 || w.find_first_not_of("0123456789") != std::string::npos)
            return false;
        out = std::stol(w);
        return true;
    };
    if (with_days) {
        if (!num(rest.substr(0, dash), days))
            return -1;
        rest = rest.substr(dash + 1);
    }
    std::stringstream ss(rest);
    std::string w;
    while (std::getline(ss, w, ':')) {
        long v = 0;
        if (!num(w, v))
            return -1;
        f.push_back(v);
    }
    if (f.empty() || f.size() > 3 || (!rest.empty() && rest.back() == ':'))
        return -1;
    if (with_days) {  // D-HH, D-HH:MM, D-HH:MM:SS
        long h = f[0], m = f.size() > 1 ? f[1] : 0, s = f.size() > 2 ? f[2] : 0;
        return ((days * 24 + h) * 60 + m) * 60 + s;
    }
    if (f.size() == 1)
        return f[0] * 60;  // minutes
    if (f.size() == 2)
        return f[0] * 60 + f[1];
    return (f[0] * 60 + f[1]) * 60 + f[2];
}

namespace {

// A time as squeue prints one (%L, TimeLimit: secs2time_str and
// mins2time_str): MM:SS, H:MM:SS or D-HH:MM:SS, each field after the first
// in its range, in seconds; -1 for UNLIMITED, INVALID or NOT_SET (never
// ends); -2 for anything else (1:60, 1-24:00:00, a bare 5 or 1-00: what
// --time takes, not what squeue writes)
long squeue_seconds(const std::string &text)
{
    // (Partition_Limit: the partition's limit, unknown here, as sacct and
    // some squeue builds print a job that asked none)
    if (text == "UNLIMITED" || text == "INVALID" || text == "NOT_SET" || text == "Partition_Limit")
        return -1;
    const long s = slurm_seconds(text);
    const bool days = text.find('-') != std::string::npos;
    const auto colons = std::count(text.begin(), text.end(), ':');
    if (s < 0 || colons == 0 || (days && colons != 2))
        return -2;
    std::vector<long> f;
    for (std::size_t i = days ? text.find('-') + 1 : 0; i <= text.size();) {
        const std::size_t e = std::min(text.find(':', i), text.size());
        f.push_back(std::stol(text.substr(i, e - i)));
        i = e + 1;
    }
    for (std::size_t i = 0; i < f.size(); ++i)
        if ((i > 0 || days) && f[i] >= (days && i == 0 ? 24 : 60))
            return -2;
    return s;
}

}  // namespace

std::vector<std::pair<double, std::vector<int>>> read_running(std::istream &in, const Cluster &c,
                                                               const std::string &source)
{
    std::vector<std::pair<double, std::vector<int>>> out;
    constexpr std::size_t kMaxRunningNames = 4000000;
    std::size_t total = 0;
    std::string line;
    int no = 0;
    while (std::getline(in, line)) {
        ++no;
        std::stringstream ss(line);
        std::string nodes, left, extra;
        if (!(ss >> nodes))
            continue;
        if (!(ss >> left) || (ss >> extra))
            throw std::invalid_argument(source + ":" + std::to_string(no) +
                                        ": expected NODELIST TIMELEFT (squeue -h -t R -o '%N %L')");
        const long s = squeue_seconds(left);
        if (s == -2)
            throw std::invalid_argument(source + ":" + std::to_string(no) + ": found TIMELEFT " + shown(left, 40) +
                                        ", expected squeue's [D-]HH:MM:SS, MM:SS or UNLIMITED");
        if (s < 0)
            continue;  // unlimited (or squeue's INVALID, NOT_SET): never frees its hosts
        std::vector<std::string> names;
        try {
            names = expand_hostlist(nodes);
        } catch (const std::exception &e) {
            throw std::invalid_argument(source + ":" + std::to_string(no) + ": " + e.what());
        }
        // every line's names together, as --free's: squeue names real
        // nodes, a few jobs a node at most; a file naming more would take
        // minutes to read at each submit
        total += names.size();
        if (total > kMaxRunningNames)
            throw std::invalid_argument(source + ":" + std::to_string(no) + ": more than " +
                                        std::to_string(kMaxRunningNames) +
                                        " host names in all, expected squeue's running jobs (NODELIST TIMELEFT)");
        std::vector<int> hosts;
        for (const std::string &h : names) {
            int i = c.find_host(h);
            if (i >= 0 && c.in_pool(i))
                hosts.push_back(i);
        }
        out.push_back({static_cast<double>(s), std::move(hosts)});
    }
    return out;
}

std::vector<PendingJob> read_pending(std::istream &in, const std::string &source)
{
    std::vector<PendingJob> out;
    std::string line;
    int no = 0;
    auto trim = [](std::string w) {
        w.erase(0, w.find_first_not_of(" \t\r"));
        w.erase(w.find_last_not_of(" \t\r") + 1);
        return w;
    };
    // waiting for nodes now, and only for them (Slurm's job_reason_string:
    // WAIT_NO_REASON, WAIT_PRIORITY, WAIT_RESOURCES). A job held, waiting
    // for a dependency, its begin time, a reservation or a node that is down,
    // or over a QOS, association or partition limit takes no host that frees
    // up (helper 40: 20 one-node jobs over their QOS limit switched every
    // job's island wait off); all of these reasons are under squeue's 20
    // columns, which cut the longer ones
    static const std::set<std::string> queued_reasons{"None", "Priority", "Resources"};
    while (std::getline(in, line)) {
        ++no;
        std::string t = trim(line);
        if (t.empty())
            continue;
        auto bad = [&](const std::string &what) {
            return std::invalid_argument(source + ":" + std::to_string(no) + ": " + what +
                                         ", expected NODES|REASON|TIMELIMIT| (squeue -h -t PD -O \"NumNodes:|,Reason:|,TimeLimit:|\")");
        };
        // NODES|REASON| or NODES|REASON|TIMELIMIT|
        std::size_t bar = t.find('|');
        const std::size_t bars = static_cast<std::size_t>(std::count(t.begin(), t.end(), '|'));
        if (bar == std::string::npos || t.back() != '|' || bars < 2 || bars > 3)
            throw bad(shown(t, 80) + " is not two or three fields");
        const std::size_t bar2 = t.find('|', bar + 1);
        double limit = -1;  // not given, UNLIMITED or 0 (none imposed): never frees its hosts
        if (bars == 3) {
            const std::string tl = trim(t.substr(bar2 + 1, t.size() - bar2 - 2));
            const long secs = squeue_seconds(tl);
            if (secs == -2)
                throw bad("TIMELIMIT " + shown(tl, 40) + " is not a time limit squeue prints");
            limit = secs > 0 ? static_cast<double>(secs) : -1;
        }
        std::string count = trim(t.substr(0, bar));
        const std::size_t dash = count.find('-');
        if (dash != std::string::npos) {  // a range: its minimum (squeue's min-max, min <= max)
            const std::string hi = count.substr(dash + 1);
            const std::string lo = count.substr(0, dash);
            if (hi.empty() || hi.size() > 9 || hi.find_first_not_of("0123456789") != std::string::npos ||
                lo.size() > 9 || lo.find_first_not_of("0123456789") != std::string::npos ||
                (!lo.empty() && std::stol(hi) < std::stol(lo)))
                throw bad("NODES " + shown(t.substr(0, bar), 40) + " is not a node count or range");
            count = lo;
        }
        if (count.empty() || count.size() > 9 || count.find_first_not_of("0123456789") != std::string::npos)
            throw bad("NODES " + shown(t.substr(0, bar), 40) + " is not a node count");
        // a job of no nodes (Slurm's zero-node job, `sbatch -N0 --bb=...`,
        // which stages a burst buffer) takes no host that frees up; it was
        // an error, and one such job switched every submit's model off
        // (helper 43)
        if (count.find_first_not_of('0') == std::string::npos)
            continue;
        // a job array's pending tasks listed as one line (squeue without
        // -r) join their reasons with commas (_merge_job_reason()): queued
        // when every one is (helper 43)
        const std::string reasons = trim(t.substr(bar + 1, bar2 - bar - 1));
        bool queued = !reasons.empty();
        std::istringstream parts(reasons);
        for (std::string r; std::getline(parts, r, ',');)
            queued = queued && queued_reasons.count(trim(r)) > 0;
        if (!queued)
            continue;
        PendingJob j;
        j.nodes = std::stoi(count);
        j.limit = limit;
        out.push_back(j);
    }
    return out;
}

namespace {

// When, as the running jobs end and the queue ahead starts on the hosts
// they free (in order, any that fits: priority and backfill) and ends in
// turn after its time limit, one island of `level` first has n hosts free
// (first) and when n are free anywhere (second). The queue does not take
// the hosts free now: it was tried on them and waits.
std::pair<double, double> queue_waits(const Cluster &c, const FreeState &free, Level level, int n,
                                      const std::vector<std::pair<double, std::vector<int>>> &ends,
                                      const std::vector<PendingJob> &queue)
{
    const double never = std::numeric_limits<double>::infinity();
    const std::vector<int> &islands = c.at(level);
    std::unordered_map<int, std::size_t> index;
    std::vector<long> have(islands.size());
    long total = 0;
    for (std::size_t i = 0; i < islands.size(); ++i) {
        index[islands[i]] = i;
        have[i] = free.free_in(islands[i]);
        total += have[i];
        if (have[i] >= n)
            return {0, 0};
    }
    double any = total >= n ? 0 : never;
    std::map<int, double> frees;  // a host frees up when the last job on it ends
    for (const auto &e : ends)
        for (int h : e.second)
            if (c.in_pool(h) && !free.is_free(h)) {
                auto it = frees.emplace(h, e.first).first;
                it->second = std::max(it->second, e.first);
            }
    using Event = std::pair<double, std::pair<std::size_t, long>>;  // time, (island, hosts)
    std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events;
    for (const auto &hf : frees) {
        auto it = index.find(c.island_of(hf.first, level));
        if (it != index.end())
            events.push({std::max(0.0, hf.second), {it->second, 1}});
    }
    // the queue not started, in order: its first kModelledQueue jobs (squeue
    // lists pending jobs by priority); a pass over them at each time a job
    // of them fits, so the work grows as their number squared (200,000
    // pending jobs took 19 s a submit; 10,000 take 0.4 s), and the jobs past
    // them start after a horizon the decision does not reach
    std::vector<std::size_t> waiting;
    long smallest = LONG_MAX;  // the fewest nodes a waiting job needs
    for (std::size_t q = 0; q < queue.size() && waiting.size() < kModelledQueue; ++q)
        if (queue[q].nodes > 0) {
            waiting.push_back(q);
            smallest = std::min<long>(smallest, queue[q].nodes);
        }
    std::vector<std::size_t> touched, still;
    while (!events.empty()) {
        const double t = events.top().first;
        touched.clear();
        while (!events.empty() && events.top().first <= t) {
            have[events.top().second.first] += events.top().second.second;
            total += events.top().second.second;
            touched.push_back(events.top().second.first);
            events.pop();
        }
        // the queue takes what it fits, in order (one pass: a job passed
        // over needs more than was free then, and starts take hosts only):
        // the fullest island that holds a job (best fit), else the islands
        // with most free first
        if (smallest <= total) {
            still.clear();
            smallest = LONG_MAX;
            for (std::size_t q : waiting) {
                const PendingJob &j = queue[q];
                if (j.nodes > total) {
                    still.push_back(q);
                    smallest = std::min<long>(smallest, j.nodes);
                    continue;
                }
                std::size_t best = islands.size();
                for (std::size_t i = 0; i < islands.size(); ++i)
                    if (have[i] >= j.nodes && (best == islands.size() || have[i] < have[best]))
                        best = i;
                std::vector<std::pair<std::size_t, long>> took;
                if (best < islands.size()) {
                    took.push_back({best, j.nodes});
                } else {
                    std::vector<std::size_t> order(islands.size());
                    for (std::size_t i = 0; i < order.size(); ++i)
                        order[i] = i;
                    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return have[a] > have[b]; });
                    long need = j.nodes;
                    for (std::size_t i : order) {
                        if (need == 0 || have[i] == 0)
                            break;
                        long k = std::min(need, have[i]);
                        took.push_back({i, k});
                        need -= k;
                    }
                }
                for (const auto &tk : took) {
                    have[tk.first] -= tk.second;
                    total -= tk.second;
                    if (j.limit >= 0)  // gives them back after its limit
                        events.push({t + j.limit, tk});
                }
            }
            waiting.swap(still);
        }
        if (std::isinf(any) && total >= n)
            any = t;
        // only an island hosts freed up in can hold n now (the queue takes)
        for (std::size_t i : touched)
            if (have[i] >= n)
                return {t, any};
    }
    return {never, any};
}

}  // namespace

double expected_island_wait(const Cluster &c, const FreeState &free, Level level, int n,
                            const std::vector<std::pair<double, std::vector<int>>> &ends)
{
    return queue_waits(c, free, level, n, ends, {}).first;
}

double island_extra_wait(const Cluster &c, const FreeState &free, Level level, int n,
                         const std::vector<std::pair<double, std::vector<int>>> &ends,
                         const std::vector<PendingJob> &queue, double *anywhere)
{
    const auto w = queue_waits(c, free, level, n, ends, queue);
    const double island = w.first, any = w.second;
    if (anywhere)
        *anywhere = any;
    if (std::isinf(island) || std::isinf(any))
        return island;  // never, or never anywhere: as the island's own
    return std::max(0.0, island - any);
}

SlurmAsk slurm_ask(const Cluster &c, Policy &policy, const FreeState &free, const IslandRequest &ir,
                   const std::string &request, int n, const BlockSite *block)
{
    return ask_with(c, ir, request, n, std::string(policy.name()) == "slurm-tree",
                    [&](Level l, int k) { return rank_islands(policy, free, l, k); }, block);
}

namespace {

// PartitionName lines of slurm.conf: name -> its words
std::vector<std::pair<std::string, std::map<std::string, std::string>>> partitions(const std::string &slurm_conf)
{
    std::vector<std::pair<std::string, std::map<std::string, std::string>>> out;
    std::ifstream conf = open_config(slurm_conf);
    std::string line;
    while (std::getline(conf, line)) {
        auto w = slurm_conf_words(line);
        auto it = w.find("partitionname");
        if (it != w.end() && !it->second.empty() && it->second != "DEFAULT")
            out.push_back({it->second, w});
    }
    return out;
}

SiteTopology site_topology(const std::string &slurm_conf, const std::string &topology_name)
{
    SiteTopology st;
    std::ifstream yaml = open_config(directory_of(slurm_conf) + "/topology.yaml");
    if (yaml) {
        std::vector<TopologyYamlEntry> all = read_topology_yaml(yaml);
        const TopologyYamlEntry *pick = nullptr;
        for (const TopologyYamlEntry &e : all)
            if (topology_name.empty() ? e.cluster_default : e.name == topology_name)
                pick = &e;
        if (pick) {
            st.name = pick->name;
            st.block = pick->kind == "block";
            st.block_sizes = pick->block_sizes;
        }
        return st;
    }
    std::ifstream conf = open_config(slurm_conf);
    std::string plugin = slurm_conf_value(conf, "TopologyPlugin");
    st.name = plugin;
    st.block = plugin == "topology/block" || plugin == "block";
    if (!st.block)
        return st;
    conf.clear();
    conf.seekg(0);
    std::string file = slurm_conf_value(conf, "TopologyConf");
    if (file.empty())
        file = directory_of(slurm_conf) + "/topology.conf";
    std::ifstream topo = open_config(file);
    std::istringstream sizes(slurm_conf_value(topo, "BlockSizes"));
    for (std::string x; std::getline(sizes, x, ',');) {
        int v = std::atoi(x.c_str());
        if (v > 0 && v <= 1000000)
            st.block_sizes.push_back(v);
    }
    return st;
}

}  // namespace

namespace {

// The Topology= a partition names ("" for none); no partition: the Default=YES one's
std::string topology_name(const std::vector<std::pair<std::string, std::map<std::string, std::string>>> &parts,
                          const std::string &partition)
{
    for (const auto &p : parts) {
        auto def = p.second.find("default");
        bool is_default = def != p.second.end() && (def->second == "YES" || def->second == "yes");
        if (partition.empty() ? is_default : p.first == partition) {
            auto t = p.second.find("topology");
            return t != p.second.end() ? t->second : std::string();
        }
    }
    return {};
}

}  // namespace

SiteTopology read_site_topology(const std::string &slurm_conf, const std::string &partition)
{
    return site_topology(slurm_conf, topology_name(partitions(slurm_conf), partition));
}

long max_switch_wait(const std::string &slurm_conf)
{
    std::ifstream conf = open_config(slurm_conf);
    std::string params = slurm_conf_value(conf, "SchedulerParameters");
    std::string low = params;
    std::transform(low.begin(), low.end(), low.begin(), [](unsigned char ch) { return std::tolower(ch); });
    const std::string key = "max_switch_wait=";
    auto at = low.find(key);
    if (at == std::string::npos)
        return 300;
    long v = std::strtol(params.c_str() + at + key.size(), nullptr, 10);
    return v < 0 ? 300 : std::min(v, static_cast<long>(INT_MAX));
}

std::vector<std::pair<std::string, SiteTopology>> partition_topologies(const std::string &slurm_conf)
{
    const auto parts = partitions(slurm_conf);
    std::vector<std::pair<std::string, SiteTopology>> out;
    for (const auto &p : parts)
        out.push_back({p.first, site_topology(slurm_conf, topology_name(parts, p.first))});
    return out;
}

SlurmAsk slurm_ask_unranked(const Cluster &c, const IslandRequest &ir, const std::string &request, int n)
{
    return ask_with(c, ir, request, n, false, [&](Level l, int k) {
        std::vector<int> r;
        for (int is : c.at(l))
            if (c.capacity(is) >= k)
                r.push_back(is);
        return r;
    }, nullptr);
}

BlockSite block_site(const Topology &t, const std::vector<int> &block_sizes)
{
    if (block_sizes.empty())
        return block_site(t);
    BlockSite b = block_site(t, block_sizes.front());
    b.levels.clear();
    for (int size : block_sizes)
        for (int k = 0; k <= 20; ++k)
            if (static_cast<long>(b.base) << k == size) {
                b.levels.push_back(k);
                break;
            }
    std::sort(b.levels.begin(), b.levels.end());
    if (b.levels.empty() || b.levels.front() != 0)
        b.levels.insert(b.levels.begin(), 0);
    return b;
}

BlockSite block_site(const Topology &t, int base_nodes, bool placeholders)
{
    BlockLayout l = block_layout(t, base_nodes, placeholders);
    BlockSite b;
    b.base = l.base;
    b.levels = l.levels;
    for (int is : l.blocks)  // a placeholder block (-1) holds no island: ""
        b.blocks.push_back(is < 0 ? std::string() : t.islands[static_cast<std::size_t>(is)].name);
    return b;
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
    // domain: an NVLink domain (a fabric without them refuses it, saying so)
    static const std::vector<std::string> r{"auto",           "domain:required", "domain:preferred", "leaf:required",
                                            "leaf:preferred", "group:required",  "group:preferred",  "pod:required",
                                            "pod:preferred"};
    return r;
}

void write_requests_table(std::ostream &out, const Cluster &c, const BlockSite *block)
{
    out << "# atoll-requests 2: what job_submit.lua asks Slurm, written by atoll-topo from " << c.source() << "\n"
        << "# topology: " << (block ? "block " + std::to_string(block->base) : std::string("tree")) << "\n"
        << "# REQUEST POLICY FROM TO refuse MESSAGE ({n}: the node count)\n"
        << "# REQUEST POLICY FROM TO LEVEL SWITCHES WAIT(island|leaf|-) CONSTRAINT(a|b|-) WIDEN(-|*|a|b) SEGMENT\n"
        << "# TO '-': every larger node count. random's islands by name (job_submit.lua shuffles them).\n";
    FreeState idle(c, true);
    const int last = c.pool_size() + 1;
    if (c.pool_size() >= 4096)
        spanning_free_ahead(c, c.pool_size());
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
                std::string row = row_text(c, ask_with(c, ir, req, n, pname == "slurm-tree", rank, block), n);
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
            if (!level_from_string(kind, r.ask.level) ||
                !(s >> r.ask.switches >> wait >> cons >> widen >> r.ask.segment))
                throw std::invalid_argument(source + ":" + std::to_string(lineno) + ": found '" + line +
                                            "', expected LEVEL SWITCHES WAIT CONSTRAINT WIDEN SEGMENT");
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
