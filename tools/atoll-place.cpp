// atoll-place: choose the hosts of a multi-node job on a fabric, and replay
// job traces to compare placement policies.
#include <algorithm>
#include <filesystem>
#include <cerrno>
#include <cctype>
#include <cmath>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>
#include <sys/stat.h>

#include "topology/json.hpp"
#include "node/sysfs.hpp"
#include "slurm/ask.hpp"
#include "spank/core.hpp"
#include "placement/cost.hpp"
#include "placement/ranks.hpp"
#include "slurm/simulate.hpp"
#include "topology/cloud.hpp"
#include "topology/hostlist.hpp"
#include "tools/args.hpp"

using namespace atl;
using nlohmann::json;

namespace {

const char *usage_text =
    "usage: atoll-place place FABRIC --nodes N [--free HOSTLIST] [--level domain|leaf|group|pod|fabric]\n"
    "                   [--fit required|preferred] [--spread N] [--split pack|even]\n"
    "                   [--policy NAME] [--seed N]\n"
    "                   [--json] [--explain] [--message-size BYTES] [--fabric-type ib|roce|cloud]\n"
    "       atoll-place place FABRIC --nodes N --island REQUEST --slurm [--free HOSTLIST]\n"
    "                   [--slurm-conf FILE [--partition NAME]] [--topology tree|block] [--block-size N]\n"
    "                   [--island-wait SECONDS] [--leaf-wait SECONDS] [--policy NAME]\n"
    "                   [--time-limit TIME [--running FILE [--pending FILE]] [--comm-share S]\n"
    "                    [--all-to-all] [--uplink-load running|busy] [--gpus-per-node N]]\n"
    "       atoll-place cost FABRIC HOSTLIST [--gpus-per-node N] [--bytes B]\n"
    "                   [--compute-ms T | --comm-share S] [--all-to-all] [--running FILE] [--explain]\n"
    "       atoll-place settings [--slurm-conf FILE]\n"
    "       atoll-place simulate FABRIC TRACE [--policy NAME,...|all] [--seeds K] [--jitter J]\n"
    "                   [--load X] [--fit required|preferred] [--island-wait SECONDS] [--leaf-wait SECONDS]\n"
    "                   [--bf-depth N] [--bf-interval SECONDS]\n"
    "                   [--backfill easy|conservative] [--bf-window SECONDS] [--bf-min-age-reserve SECONDS]\n"
    "                   [--bf-reserve N]\n"
    "                   [--span-slowdown F | --comm-share S [--gpus-per-node N] [--all-to-all] [--model-wait]\n"
    "                    [--uplink-load running|busy]]\n"
    "                   [--select slurm-tree [--rank-at submit|start]]\n"
    "                   [--max-jobs N] [--split pack|even]\n"
    "                   [--columns ROLE=COLUMN,...] [--csv FILE] [--json FILE] [--plot FILE.svg] [--jobs FILE]\n"
    "       atoll-place order FABRIC HOSTLIST [--output FILE]   (the hosts in topology order, one a line)\n"
    "       atoll-place ranks FABRIC HOSTLIST --gpus-per-node N [--tp N] [--cp N] [--ep N] [--pp N] [--dp N]\n"
    "                   [--order tp-cp-ep-dp-pp] [--bytes B] [--output FILE] [--json]   (a global rank for every GPU)\n"
    "       atoll-place policies\n"
    "\n"
    "FABRIC is anything atoll-topo reads (fabric.json, ibnetdiscover output, a cache file,\n"
    "a host,leaf,pod,core CSV, aws ec2 describe-instance-topology JSON, lldpcli tables;\n"
    "--format and --csv-columns as in atoll-topo).\n"
    "Policies: atoll, slurm-tree, slurm-block, first-fit, random.\n"
    "exit status: 0 success, 1 input or runtime error, 2 usage error, 3 no placement now\n";

Cluster load_cluster(const Args &a, const std::string &path, std::unique_ptr<Topology> &keep)
{
    Fabric f = load_fabric(path, input_format(a), parse_csv_columns(a.get("csv-columns")));
    bool unknown_speed = f.links.empty() || f.links[0].width == 0;  // CSV or cloud API
    std::string head(4096, '\0');
    std::ifstream peek(path);
    peek.read(&head[0], static_cast<std::streamsize>(head.size()));
    bool aws = looks_like_aws_topology(head.substr(0, static_cast<std::size_t>(peek.gcount())));
    keep = std::make_unique<Topology>(analysed(std::move(f), "atoll-place"));
    FabricKind kind = aws ? FabricKind::Cloud : unknown_speed ? FabricKind::RoCE : FabricKind::InfiniBand;
    if (a.flag("fabric-type") && !fabric_kind_from_string(a.get("fabric-type"), kind))
        throw Usage("--fabric-type: \"" + a.get("fabric-type") + "\", expected ib, roce or cloud");
    return Cluster(*keep, kind);
}

double parse_size(const std::string &s, const std::string &flag = "--message-size")
{
    char *end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    std::string unit = end ? end : "";
    // a decimal number: strtod also takes leading blanks, hex, inf and nan
    const std::string num = s.substr(0, s.size() - unit.size());
    if (num.empty() || !(std::isdigit(static_cast<unsigned char>(num[0])) || num[0] == '.') ||
        num.find_first_not_of("0123456789.eE+-") != std::string::npos)
        throw Usage(flag + ": \"" + s + "\", expected a size from 1 byte to 1e15 bytes, with an optional K, M or G");
    double mult = 1;
    if (unit == "" || unit == "B")
        mult = 1;
    // (K, M and G as nccl-tests' -b/-e read them: powers of 1024, KB too)
    else if (unit == "K" || unit == "KiB" || unit == "k" || unit == "KB")
        mult = 1024;
    else if (unit == "M" || unit == "MiB" || unit == "MB")
        mult = 1024.0 * 1024;
    else if (unit == "G" || unit == "GiB" || unit == "GB")
        mult = 1024.0 * 1024 * 1024;
    else
        throw Usage(flag + ": \"" + s + "\", expected a size from 1 byte to 1e15 bytes, with an optional K, M or G");
    // a step moves whole bytes, and no step moves a petabyte
    if (s.empty() || !(v > 0) || !std::isfinite(v) || !(v * mult >= 1) || v * mult > 1e15)
        throw Usage(flag + ": \"" + s + "\", expected a size from 1 byte to 1e15 bytes, with an optional K, M or G");
    return v * mult;
}

Split parse_split(const Args &a)
{
    return a.get_one_of("split", {"pack", "even"}) == "pack" ? Split::Pack : Split::Even;
}

Level parse_level(const std::string &opt, const std::string &v)
{
    Level l;
    if (!level_from_string(v, l))
        throw Usage("--" + opt + ": \"" + v + "\", expected domain, leaf, group, pod or fabric");
    return l;
}

std::string human_bytes(double b)
{
    std::ostringstream o;
    const char *units[] = {"B", "KiB", "MiB", "GiB"};
    int u = 0;
    while (b >= 1024 && u < 3) {
        b /= 1024;
        ++u;
    }
    o << b << " " << units[u];
    return o.str();
}

std::string human_seconds(double s)
{
    std::ostringstream o;
    o << std::fixed << std::setprecision(s < 1e-3 ? 1 : 2);
    if (s < 1e-3)
        o << s * 1e6 << " us";
    else if (s < 1)
        o << s * 1e3 << " ms";
    else
        o << s << " s";
    return o.str();
}


// The atoll.so line of the plugstack configuration slurm.conf names; a bad
// key or value is an input error naming FILE:LINE.
PlugstackLine site_settings(const std::string &slurm_conf)
{
    try {
        return read_plugstack_line(slurm_conf);
    } catch (const std::invalid_argument &e) {
        throw InputError(e.what());
    }
}

// slurm.conf as a user named it (--slurm-conf, SLURM_CONF): missing, it
// printed found=no and Slurm's defaults, exit 0, for a typo
void require_slurm_conf(const std::string &path, const char *named_by)
{
    struct stat st;
    if (::stat(path.c_str(), &st) != 0)
        throw InputError(path + " (" + named_by + "): " + std::strerror(errno) + ", expected slurm.conf");
    check_config_file(path);  // a directory, FIFO or device: named, at once
}

// settings: the site's keys that job_submit.lua and cli_filter.lua use, as
// key=value lines (the only reader of them is read_plugstack_line()):
//   found=yes|no  where=FILE:LINE  policy=  island_wait=  leaf_wait=  strict=yes|no
//   max_switch_wait=  warning= (a wait over it)  topology=  topology@PART=
int cmd_settings(int argc, char **argv)
{
    Args a = parse_args(argc, argv, 2, {"slurm-conf"}, {});
    if (!a.operands.empty())
        throw Usage("settings: no operands (--slurm-conf FILE names slurm.conf)");
    const char *env = std::getenv("SLURM_CONF");
    std::string conf = a.get("slurm-conf", env && *env ? env : "/etc/slurm/slurm.conf");
    if (a.flag("slurm-conf") || (env && *env))
        require_slurm_conf(conf, a.flag("slurm-conf") ? "--slurm-conf" : "SLURM_CONF");
    PlugstackLine l = site_settings(conf);
    std::cout << "found=" << (l.found ? "yes" : "no") << "\n";
    if (l.found)
        std::cout << "where=" << l.where << "\n";
    std::cout << "policy=" << l.config.policy << "\n"
              << "island_wait=" << l.config.island_wait << "\n"
              << "leaf_wait=" << l.config.leaf_wait_s() << "\n"
              << "strict=" << (l.config.strict ? "yes" : "no") << "\n";
    // Slurm cuts every --switches wait to max_switch_wait, silently: a
    // longer island or leaf wait is not what the site's jobs get
    const long msw = max_switch_wait(conf);
    std::cout << "max_switch_wait=" << msw << "\n";
    for (const auto &w : {std::make_pair("island_wait", static_cast<long>(l.config.island_wait)),
                          std::make_pair("leaf_wait", static_cast<long>(l.config.leaf_wait_s()))})
        if (w.second > msw)
            std::cout << "warning=" << w.first << "=" << w.second << " is over Slurm's max_switch_wait=" << msw
                      << " (SchedulerParameters" << (msw == 300 ? ", its default" : "")
                      << "): Slurm waits " << msw << " s at most for the leaves asked; raise max_switch_wait\n";
    // what the default partition runs, then each partition (topology.yaml)
    std::cout << "topology=" << (read_site_topology(conf).block ? "block" : "tree") << "\n";
    for (const auto &p : partition_topologies(conf))
        std::cout << "topology@" << p.first << "=" << (p.second.block ? "block" : "tree") << "\n";
    return 0;
}

// --slurm: what cli_filter.lua hands Slurm for an island request on the live
// free hosts (free=N: how many of the fabric's compute hosts are free), from
// slurm_ask() (slurm/ask.hpp), which also writes job_submit.lua's table:
//   refuse=MESSAGE | free=N, then switches=K@MM:SS and constraint=[...]
// (a preferred group or pod is marked for atoll-widen by job_submit.lua).
// squeue's output in FILE through its reader, the reader's errors as input errors
template <class Read> auto squeue_file(const std::string &path, Read read)
{
    // a file squeue's output was saved to: a FIFO no one writes, a device or
    // a directory would stall or mislead the submit (cli_filter.lua waits)
    constexpr std::size_t cap = 64u << 20;
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0)
        throw InputError(path + ": cannot read: " + std::strerror(errno));
    if (!S_ISREG(st.st_mode))
        throw InputError(path + ": not a regular file, expected squeue's output saved to a file");
    std::optional<std::string> text = read_small_file(path, cap + 1);  // never blocks: a FIFO swapped in is no file
    if (!text)
        throw InputError(path + ": cannot read, or not a regular file");
    if (text->size() > cap)
        throw InputError(path + ": larger than 64 MiB, expected squeue's output of running or pending jobs");
    std::istringstream in(*text);
    try {
        return read(in);
    } catch (const std::invalid_argument &e) {
        throw InputError(e.what());
    }
}

// squeue -h -t R -o '%N %L' (read_running())
std::vector<std::pair<double, std::vector<int>>> running_file(const std::string &path, const Cluster &c)
{
    return squeue_file(path, [&](std::istream &in) { return read_running(in, c, path); });
}

// squeue -h -r -t PD -O "NumNodes:|,Reason:|,TimeLimit:|" (read_pending())
std::vector<PendingJob> pending_file(const std::string &path)
{
    return squeue_file(path, [&](std::istream &in) { return read_pending(in, path); });
}

// --time-limit in seconds, as sbatch(1) --time takes it: Slurm's
// [D-]HH:MM:SS or minutes; 0 for no limit (0, UNLIMITED, INFINITE or -1:
// none imposed, the wait alone). A usage error otherwise.
long time_limit(const Args &a)
{
    const std::string t = a.get("time-limit");
    std::string u;
    for (char ch : t)
        u += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    if (u == "UNLIMITED" || u == "INFINITE" || u == "-1")
        return 0;
    const long s = slurm_seconds(t);
    if (s < 0)
        throw Usage("--time-limit: \"" + t + "\", expected Slurm's [D-]HH:MM:SS, minutes or UNLIMITED");
    return s;
}

int slurm_request(const Args &a, const Cluster &c, const Topology &t, Policy &policy, const FreeState &free, int n,
                  const PluginConfig &site)
{
    if (!a.flag("island"))
        throw Usage("--slurm needs --island REQUEST (a --fabric-island value)");
    IslandRequest ir;
    try {
        ir = parse_island(a.get("island"));
    } catch (const std::invalid_argument &e) {
        throw Usage(e.what());
    }
    long wait = a.get_int("island-wait", site.island_wait, 0, 365L * 86400);
    long leaf_wait = a.get_int("leaf-wait", a.flag("island-wait") ? wait : site.leaf_wait_s(), 0, 365L * 86400);
    // topology/block: --topology, else what --slurm-conf's slurm.conf says;
    // the blocks from --block-size, else BlockSizes, else atoll's layout
    SiteTopology st;
    if (a.flag("slurm-conf")) {
        require_slurm_conf(a.get("slurm-conf"), "--slurm-conf");
        st = read_site_topology(a.get("slurm-conf"), a.get("partition", ""));
    }
    if (a.flag("topology"))
        st.block = a.get_one_of("topology", {"tree", "block"}) == "block";
    if (a.flag("block-size") && !st.block)
        throw Usage("--block-size goes with topology/block (--topology block)");
    BlockSite block;
    if (st.block) {
        try {
            if (a.flag("block-size"))
                block = block_site(t, static_cast<int>(a.get_int("block-size", 0, 1, 1000000)));
            else
                block = block_site(t, st.block_sizes);
        } catch (const std::invalid_argument &e) {
            throw InputError(c.source() + ": " + e.what());
        }
    }
    SlurmAsk ask = slurm_ask(c, policy, free, ir, a.get("island"), n, st.block ? &block : nullptr);
    if (ask.none)
        return 0;
    // the first islands of the ranking, as many as Slurm can take in one
    // matching OR (kMaxMatchingOr)
    if (ask.constraint.size() > kMaxMatchingOr)
        ask.constraint.resize(kMaxMatchingOr);
    // auto with the job's time limit: the island is worth waiting for only
    // while the expected wait (--running: the running jobs' time left) costs
    // less than spanning now; island_wait is the upper bound. Above a leaf
    // too: a group or pod (its constraint, widened by atoll-widen) and the
    // fewest leaves (--switches=K@leaf_wait) are asked only when worth a
    // wait, and the leaf wait is at most the model's
    // a time limit of zero is no limit (sbatch(1) --time: "A time limit of
    // zero requests that no time limit be imposed"): the wait alone, as
    // without --time-limit, never a 0 s job that nothing is worth a wait for
    // An NVLink domain too (its constraint, widened by atoll-widen): not
    // asked when the expected wait for one costs more than spanning domains
    // now; the wait decided reaches job_submit.lua's atoll-widen deadline
    // on --switches (below)
    const bool domain_ask = ask.level == Level::Domain && ask.widen && !ask.constraint.empty();
    const bool weighed = ir.auto_level && ask.refuse.empty() &&
                         ((ask.switches > 0 && (ask.wait == SwitchWait::Island || ask.wait == SwitchWait::Leaf)) ||
                          domain_ask);
    if (!weighed && ir.auto_level && ask.refuse.empty() && a.flag("time-limit") && a.flag("explain")) {
        // nothing the model could weigh (helper 42: --explain said nothing)
        std::cout << "decision=nothing to wait for: "
                  << (st.block && ask.constraint.empty() && ask.switches == 0 && n > 1
                          ? "topology/block keeps the job in one block"
                      // (helper 43: a job of every leaf was told spanning is free)
                      : n > 1 && static_cast<std::size_t>(c.min_leaves(n)) >= c.at(Level::Leaf).size()
                          ? "the job needs every leaf of the fabric"
                      : n > 1 && spanning_free(c, n) ? "spanning costs under 1 % on this fabric"
                                                     : "no island or switch count is asked")
                  << ": no wait\n";
    }
    if (weighed && a.flag("time-limit") && time_limit(a) == 0 && a.flag("explain"))
        std::cout << "decision=no time limit (" << a.get("time-limit") << "): waits up to " << wait
                  << " s (island_wait)\n";
    if (weighed && a.flag("time-limit") && time_limit(a) != 0) {
        long limit = time_limit(a);
        // the job: the site's (plugstack comm_share=, collective=) unless
        // the options say otherwise
        JobShape shape;
        shape.comm_share = a.get_double("comm-share", site.comm_share, 0.001, 1);
        shape.all_to_all = a.flag("all-to-all") || site.all_to_all;
        shape.gpus_per_node = static_cast<int>(a.get_int("gpus-per-node", 8, 1, 1024));
        // what spanning now costs: Slurm's choice on the idle nodes, priced
        // under the running jobs' load on the uplinks; without --running, or
        // when the site says its uplinks carry traffic squeue does not show
        // (uplink_load=busy), the busy-fabric assumption: every other host
        // of the leaves crosses them too
        const bool busy = a.flag("uplink-load") ? a.get_one_of("uplink-load", {"running", "busy"}) == "busy"
                                                : site.busy_uplinks;
        const StepModel model = default_step_model(c.kind());
        double span, expected = -1, anywhere = 0;
        long ahead = 0, queue_jobs = 0;  // the queue's nodes and jobs (--explain)
        if (a.flag("running")) {
            auto running = running_file(a.get("running"), c);
            UplinkLoad load;  // the running jobs' crossings; not needed when the site says busy
            if (!busy) {
                std::vector<std::vector<int>> hosts;
                for (const auto &r : running)
                    hosts.push_back(r.second);
                load = uplink_load(c, hosts);
            }
            span = span_cost_now(c, free, n, shape, model, busy ? nullptr : &load, ask.level);
            // the queue (--pending: squeue's pending jobs) takes the first
            // hosts to free up
            std::vector<PendingJob> queue;
            if (a.flag("pending")) {
                queue = pending_file(a.get("pending"));
                queue_jobs = static_cast<long>(queue.size());
                for (std::size_t i = 0; i < queue.size() && i < kModelledQueue; ++i)
                    ahead += queue[i].nodes;
            }
            // what the island adds: beyond the job's wait for any nodes
            expected = island_extra_wait(c, free, ask.level, n, running, queue, &anywhere);
        } else {
            span = span_cost_now(c, free, n, shape, model, nullptr, ask.level);
        }
        double w = auto_wait(span, static_cast<double>(limit), expected, static_cast<double>(wait));
        if (a.flag("explain")) {
            // one line for cli_filter.lua's --fabric-explain: what was weighed
            std::ostringstream d;
            d << std::fixed << std::setprecision(0);
            const char *lv = to_string(ask.level);
            const bool fits_now = free.most_free(ask.level) >= n;
            if (fits_now)  // the wait only matters should those hosts go before it starts
                d << "decision=a " << lv << " has room now; should its hosts go first, spanning adds ";
            else  // (not now when the free hosts are too few: once they are)
                d << (anywhere > 0 ? "decision=spanning adds " : "decision=spanning now adds ");
            // (0.5 to 1 s: "1 s" beside "no wait" read as a contradiction)
            const double adds = std::max(0.0, span) * static_cast<double>(limit);
            if (adds >= 0.5 && adds < 1)
                d << "under 1";
            else
                d << adds;
            d << " s to the " << limit << " s limit"
              << (busy || !a.flag("running") ? " (busy uplinks)" : "");
            if (!fits_now) {  // when one frees up
                if (expected < 0)
                    d << "; when a " << lv << " frees up is unknown (no running jobs given)";
                else if (std::isinf(expected))
                    d << "; no " << lv << " frees up as the running jobs end";
                else if (anywhere > 0 && expected < 1)  // the job waits for its turn anyway
                    d << "; a " << lv << " frees up when " << n << " nodes anywhere do (in " << anywhere << " s)";
                else if (anywhere > 0)  // what the island adds
                    d << "; a " << lv << " frees up " << expected << " s after " << n << " nodes anywhere do (in "
                      << anywhere << " s)";
                else
                    d << "; a " << lv << " frees up in " << expected << " s";
                if (a.flag("pending") && queue_jobs == 0)
                    d << " (no job queued)";
                else if (a.flag("pending") && queue_jobs > static_cast<long>(kModelledQueue))
                    d << " (" << queue_jobs << " queued jobs; the first " << kModelledQueue << ", " << ahead
                      << " nodes, take hosts as they free up)";
                else if (a.flag("pending"))  // (island_extra_wait())
                    d << " (" << queue_jobs << " queued job" << (queue_jobs == 1 ? "" : "s") << ", " << ahead
                      << " node" << (ahead == 1 ? "" : "s") << ", take hosts as they free up)";
            }
            if (w < 1 && span > 0 && span < kFreeSpan)  // (auto_wait(): spanning is free)
                d << ": under " << std::lround(kFreeSpan * 100) << " % of the run: no wait";
            else if (w < 1)
                d << ": no wait";
            else
                d << ": waits up to " << std::lround(w) << " s"
                  << (w >= static_cast<double>(wait) && w < span * static_cast<double>(limit) ? " (island_wait)" : "");
            std::cout << d.str() << "\n";
        }
        if (w < 1) {  // not worth a wait: nothing asked
            std::cout << "free=" << free.total() << "\n";
            return 0;
        }
        wait = std::lround(w);
        leaf_wait = std::min(leaf_wait, wait);
        // a domain has no --switches of its own: --switches=K@WAIT, K the
        // most leaf switches one listed domain lies on (topology/tree's leaf
        // switches are the leaf islands), is met by every domain the
        // constraint allows and carries the wait to job_submit.lua, whose
        // atoll-widen deadline it bounds (else island_wait, a job held
        // longer than the model decided). topology/block takes no --switches.
        if (domain_ask && !st.block && ask.switches == 0) {
            for (int d : ask.constraint)
                ask.switches = std::max(ask.switches, static_cast<int>(c.island(d).leaf_islands.size()));
            ask.switches = std::max(ask.switches, 1);
            ask.wait = SwitchWait::Island;
        }
    }
    if (!ask.refuse.empty()) {
        // a user mistake, not a failure: said on stdout for cli_filter.lua to refuse the job
        std::cout << "refuse=" << ask.refuse << "\n";
        return 0;
    }
    std::cout << "free=" << free.total() << "\n";
    if (ask.switches > 0)
        std::cout << "switches=" << ask.switches << "@" << mm_ss(ask.wait == SwitchWait::Leaf ? leaf_wait : wait) << "\n";
    if (!ask.constraint.empty())
        std::cout << "constraint=" << constraint_text(c, ask.constraint) << "\n";
    if (ask.segment > 0)
        std::cout << "segment=" << ask.segment << "\n";
    return 0;
}

int cmd_place(int argc, char **argv)
{
    Args a = parse_args(argc, argv, 2,
                        {"nodes", "free", "level", "fit", "spread", "split", "policy", "seed", "message-size",
                         "fabric-type", "format", "csv-columns", "island", "island-wait", "leaf-wait", "slurm-conf",
                         "topology", "block-size", "partition", "time-limit", "running", "pending",
                         "comm-share", "uplink-load", "gpus-per-node"},
                        {"json", "explain", "slurm", "all-to-all"});
    for (const char *o : {"slurm-conf", "topology", "block-size", "partition", "time-limit", "running", "pending"})
        if (a.flag(o) && !a.flag("slurm"))
            throw Usage(std::string("--") + o + " goes with --slurm");
    if (a.flag("partition") && !a.flag("slurm-conf"))
        throw Usage("--partition goes with --slurm-conf (its topology comes from slurm.conf)");
    for (const char *o : {"running", "comm-share", "all-to-all", "uplink-load", "gpus-per-node"})
        if (a.flag(o) && !a.flag("time-limit"))
            throw Usage(std::string("--") + o + " goes with --time-limit (auto's wait decision)");
    if (a.flag("pending") && !a.flag("running"))
        throw Usage("--pending goes with --running (the queue ahead waits for the running jobs' ends)");
    // checked whatever the request: cli_filter.lua passes every job's --time
    if (a.flag("time-limit"))
        time_limit(a);
    // and an input given twice, whether or not this request reads it
    // (helper 41: --running twice passed where the decision was not weighed)
    for (const char *o : {"free", "running", "pending"})
        if (a.flag(o))
            a.get(o);
    // a pending file is read whatever the request: one fabric asked nothing
    // and took a file another refused (helper 47)
    if (a.flag("pending"))
        pending_file(a.get("pending"));
    // the site's policy and waits: the atoll.so line of the plugstack
    // configuration, unless --policy, --island-wait or --leaf-wait say otherwise
    PluginConfig site;
    if (a.flag("slurm-conf"))
        site = site_settings(a.get("slurm-conf")).config;
    if (a.operands.size() != 1)
        throw Usage("place: give one FABRIC");
    if (!a.flag("nodes"))
        throw Usage("place: --nodes N is required");
    std::unique_ptr<Topology> topo;
    Cluster c = load_cluster(a, a.operands[0], topo);
    Request req;
    req.nodes = static_cast<int>(a.get_int("nodes", 1, 1, 10000000));
    req.explain = a.flag("explain") || a.flag("json");
    if (a.flag("level")) {
        req.level = parse_level("level", a.get("level"));
        req.fit = Fit::Required;
    }
    if (a.flag("fit")) {
        std::string f = a.get("fit");
        if (f == "required")
            req.fit = Fit::Required;
        else if (f == "preferred")
            req.fit = Fit::Preferred;
        else if (f == "auto")
            req.fit = Fit::Auto;
        else
            throw Usage("--fit: \"" + f + "\", expected required, preferred or auto");
        if (req.fit != Fit::Auto && !a.flag("level"))
            throw Usage("--fit " + f + " needs --level");
    }
    req.max_per_leaf = static_cast<int>(a.get_int("spread", 0, 1, 10000000));
    req.split = parse_split(a);
    std::string pname = a.get("policy", site.policy);
    auto policy = make_policy(pname, c, static_cast<std::uint64_t>(a.get_int("seed", 1, 0, 1L << 62)));
    if (!policy)
        throw Usage("--policy: \"" + pname + "\", expected atoll, slurm-tree, slurm-block, first-fit or random");
    double bytes = parse_size(a.get("message-size", "1G"));

    FreeState free(c, !a.flag("free"));
    if (a.flag("free")) {
        std::vector<std::string> names;
        try {
            names = expand_hostlist(a.get("free"));
        } catch (const std::invalid_argument &e) {
            throw Usage(std::string("--free: ") + e.what());
        }
        for (const auto &n : names) {
            int h = c.find_host(n);
            if (a.flag("slurm") && (h < 0 || !c.in_pool(h)))
                continue;  // sinfo lists every node; those off the fabric hold no island
            if (h < 0)
                throw InputError("--free: host " + n + " is not in the fabric " + c.source());
            if (!c.in_pool(h))
                throw InputError("--free: host " + n + " is not a compute host (see atoll-topo show)");
            free.set(h, true);
        }
    }
    if (a.flag("slurm"))
        return slurm_request(a, c, *topo, *policy, free, req.nodes, site);
    Placement p = policy->place(free, req);
    std::vector<std::string> names;
    for (int h : p.hosts)
        names.push_back(c.host_name(h));
    std::string hl = compress_hostlist(names);
    Estimate est;
    if (p.ok)
        est = ring_allreduce(c, p, bytes, default_cost_model(c.kind()));
    if (a.flag("json")) {
        json j = {{"ok", p.ok}, {"policy", policy->name()}, {"nodes", req.nodes},
                  {"level", to_string(req.level)}, {"fit", to_string(req.fit)}, {"free", free.total()}};
        if (!p.ok)
            j["error"] = p.error;
        else {
            json per_leaf = json::object();
            for (const auto &pl : p.per_leaf)
                per_leaf[c.island(pl.first).name] = pl.second;
            j.update({{"hosts", hl},
                      {"host_list", names},
                      {"island", c.island(p.island).name},
                      {"island_level", to_string(p.level)},
                      {"leaves", p.leaves},
                      {"groups", p.groups},
                      {"pods", p.pods},
                      {"hops", p.hops},
                      {"per_leaf", per_leaf},
                      {"allreduce", {{"bytes", bytes},
                                     {"seconds", est.seconds},
                                     {"step_latency_us", est.latency_us},
                                     {"gbps_per_host", est.gbps},
                                     {"gbps_assumed", est.assumed},
                                     {"fabric_type", to_string(c.kind())}}}});
        }
        json cands = json::array();
        for (const auto &cd : p.considered)
            cands.push_back({{"island", c.island(cd.island).name}, {"free", cd.free}, {"verdict", cd.verdict}});
        j["considered"] = cands;
        j["notes"] = p.notes;
        std::cout << json_text(j, 2) << "\n";
    } else if (p.ok) {
        std::cout << hl << "\n";
    }
    if (a.flag("explain")) {
        std::ostream &o = a.flag("json") ? std::cerr : std::cout;
        o << "policy:     " << policy->name() << "\n"
          << "request:    " << req.nodes << " nodes, " << to_string(req.fit);
        if (req.fit != Fit::Auto)
            o << " " << to_string(req.level);
        if (req.max_per_leaf)
            o << ", at most " << req.max_per_leaf << " per leaf";
        o << "; " << free.total() << " of " << c.pool_size() << " hosts free; the largest leaf island holds "
          << c.largest(Level::Leaf) << ", pod " << c.largest(Level::Pod) << "\n";
        bool first = true;
        for (const auto &n : p.notes) {
            o << (first ? "reasoning:  " : "            ") << n << "\n";
            first = false;
        }
        first = true;
        for (const auto &cd : p.considered) {
            o << (first ? "considered: " : "            ") << c.island(cd.island).name << " (" << cd.free
              << " free): " << cd.verdict << "\n";
            first = false;
        }
        if (p.ok) {
            o << "choice:     " << hl << "\n"
              << "island:     " << c.island(p.island).name << " (" << to_string(p.level) << "), " << p.leaves
              << (p.leaves == 1 ? " leaf island, " : " leaf islands, ") << p.pods << (p.pods == 1 ? " pod" : " pods")
              << ", hops diameter " << p.hops << " (cables on the longest host-to-host path)\n"
              << "allreduce:  ring over " << est.ranks << " nodes of " << human_bytes(bytes) << ": about "
              << human_seconds(est.seconds) << " (" << est.switches << " switches x "
              << default_cost_model(c.kind()).hop_latency_us << " us per step on " << to_string(c.kind()) << ", "
              << est.gbps << " Gb/s per host" << (est.assumed ? " assumed" : "")
              << (p.level != Level::Leaf && c.island(p.island).oversub > 1
                      ? ", after " + std::to_string(c.island(p.island).oversub).substr(0, 4) + ":1 oversubscription"
                      : std::string())
              << ")\n";
        }
    }
    if (!p.ok) {
        std::cerr << "atoll-place: cannot place " << req.nodes << " nodes: " << p.error << "\n";
        return 3;
    }
    return 0;
}

// --- simulate ---------------------------------------------------------------

struct Metric {
    const char *key;
    const char *title;
    double SimMetrics::*field;
};
const Metric kMetrics[] = {
    {"leaf_pct", "% leaf-fitting jobs in one leaf", &SimMetrics::leaf_pct},
    {"pod_pct", "% pod-fitting jobs in one pod", &SimMetrics::pod_pct},
    {"excess_leaves", "excess leaves per multi-node job", &SimMetrics::excess_leaves},
    {"mean_hops", "mean hops diameter", &SimMetrics::mean_hops},
    {"utilisation", "utilisation", &SimMetrics::utilisation},
    {"mean_wait", "mean wait (s)", &SimMetrics::mean_wait},
    {"mean_turnaround", "mean turnaround (s)", &SimMetrics::mean_turnaround},
    {"bounded_slowdown", "bounded slowdown", &SimMetrics::bounded_slowdown},
    {"fragmentation", "fragmentation", &SimMetrics::fragmentation},
    {"makespan", "makespan (s)", &SimMetrics::makespan},
    {"gpu_hours_lost", "GPU-hours lost to slow steps", &SimMetrics::gpu_hours_lost},
};

void write_svg(std::ostream &o, const std::string &title, const std::vector<std::string> &policies,
               const std::map<std::string, std::map<std::string, Stat>> &stats)
{
    const char *shown[] = {"leaf_pct", "pod_pct", "excess_leaves", "mean_wait", "utilisation"};
    const char *colours[] = {"#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e"};
    const int pw = 210, ph = 220, top = 50, left = 20;
    int W = left + 5 * pw + 10, H = top + ph + 90;
    o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H
      << "\" font-family=\"sans-serif\" font-size=\"11\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      << "<text x=\"" << left << "\" y=\"22\" font-size=\"14\" font-weight=\"bold\">" << title << "</text>\n";
    for (int k = 0; k < 5; ++k) {
        const Metric *m = nullptr;
        for (const auto &mm : kMetrics)
            if (std::string(mm.key) == shown[k])
                m = &mm;
        double maxv = 0;
        for (const auto &p : policies) {
            const Stat &s = stats.at(p).at(m->key);
            maxv = std::max(maxv, s.mean + s.ci);
        }
        if (m->key == std::string("leaf_pct") || m->key == std::string("pod_pct"))
            maxv = 100;
        if (maxv <= 0)
            maxv = 1;
        int x0 = left + k * pw, y0 = top + ph;
        o << "<text x=\"" << x0 + 5 << "\" y=\"" << top - 8 << "\">" << m->title << "</text>\n"
          << "<line x1=\"" << x0 + 5 << "\" y1=\"" << y0 << "\" x2=\"" << x0 + pw - 15 << "\" y2=\"" << y0
          << "\" stroke=\"black\"/>\n";
        int bw = (pw - 30) / static_cast<int>(policies.size());
        for (std::size_t i = 0; i < policies.size(); ++i) {
            const Stat &s = stats.at(policies[i]).at(m->key);
            double h = (ph - 20) * s.mean / maxv;
            int bx = x0 + 10 + static_cast<int>(i) * bw;
            o << "<rect x=\"" << bx << "\" y=\"" << y0 - h << "\" width=\"" << bw - 6 << "\" height=\"" << h
              << "\" fill=\"" << colours[i % 5] << "\"/>\n";
            double ch = (ph - 20) * s.ci / maxv;
            o << "<line x1=\"" << bx + (bw - 6) / 2 << "\" y1=\"" << y0 - h - ch << "\" x2=\"" << bx + (bw - 6) / 2
              << "\" y2=\"" << y0 - h + ch << "\" stroke=\"black\"/>\n";
            std::ostringstream v;
            v << std::setprecision(3) << s.mean;
            o << "<text x=\"" << bx << "\" y=\"" << y0 - h - ch - 4 << "\" font-size=\"9\">" << v.str() << "</text>\n";
        }
    }
    for (std::size_t i = 0; i < policies.size(); ++i)
        o << "<rect x=\"" << left + 10 + 120 * static_cast<int>(i) << "\" y=\"" << top + ph + 30
          << "\" width=\"12\" height=\"12\" fill=\"" << colours[i % 5] << "\"/><text x=\""
          << left + 26 + 120 * static_cast<int>(i) << "\" y=\"" << top + ph + 40 << "\">" << policies[i]
          << "</text>\n";
    o << "<text x=\"" << left << "\" y=\"" << top + ph + 70
      << "\" font-size=\"9\">bars: mean over seeds; whiskers: 95 % confidence interval</text>\n</svg>\n";
}

// A HOSTLIST operand expanded; a bad one is a usage error with `prefix`
std::vector<std::string> hostlist_operand(const std::string &list, const char *prefix)
{
    try {
        return expand_hostlist(list);
    } catch (const std::invalid_argument &e) {
        throw Usage(std::string(prefix) + e.what());
    }
}

// The compute hosts of c the names give, in the names' order, each once;
// InputError (prefixed "order: ", "ranks: ") naming one the fabric lacks or
// that is not a compute host.
std::vector<int> pool_hosts(const Cluster &c, const std::vector<std::string> &names, const char *prefix)
{
    std::vector<int> hosts;
    std::set<int> seen;
    for (const auto &n : names) {
        int h = c.find_host(n);
        if (h < 0)
            throw InputError(prefix + std::string("host ") + shown(n) + " is not in the fabric " + c.source());
        if (!c.in_pool(h))
            throw InputError(prefix + std::string("host ") + shown(n) + " is not a compute host (see atoll-topo show)");
        if (seen.insert(h).second)
            hosts.push_back(h);
    }
    return hosts;
}

// atoll-place order FABRIC HOSTLIST: the hosts in topology order, one a line
// (a hostfile for torchrun, mpirun or SLURM_HOSTFILE)
int cmd_order(int argc, char **argv)
{
    Args a = parse_args(argc, argv, 2, {"format", "csv-columns", "fabric-type", "output"}, {});
    if (a.operands.size() != 2)
        throw Usage("order: give a FABRIC and a HOSTLIST");
    std::unique_ptr<Topology> topo;
    Cluster c = load_cluster(a, a.operands[0], topo);
    std::vector<int> hosts = pool_hosts(c, hostlist_operand(a.operands[1], "order: "), "order: ");
    write_file_atomically(a.get("output", "-"), [&](std::ostream &o) {
        for (int h : topology_order(c, hosts))
            o << c.host_name(h) << "\n";
    });
    return 0;
}

// atoll-place ranks FABRIC HOSTLIST: the global rank of every GPU so that the
// TP, CP and EP groups Megatron-Core builds from the rank order land inside a
// node or an NVLink domain and pipeline stages next to each other
// (placement/ranks.hpp); the groups and what crosses which level on stdout,
// "RANK HOST LOCAL_GPU" lines in --output.
int cmd_ranks(int argc, char **argv)
{
    Args a = parse_args(argc, argv, 2,
                        {"format", "csv-columns", "fabric-type", "output", "gpus-per-node", "tp", "cp", "ep", "dp",
                         "pp", "order", "bytes"},
                        {"json"});
    if (a.operands.size() != 2)
        throw Usage("ranks: give a FABRIC and a HOSTLIST");
    double bytes = parse_size(a.get("bytes", "1G"), "--bytes");
    if (!a.flag("gpus-per-node"))
        throw Usage("--gpus-per-node: required (the GPUs, and so the ranks, of each host)");
    Parallelism par;
    const long big = 1L << 24;
    int gpus = static_cast<int>(a.get_int("gpus-per-node", 8, 1, 4096));
    par.tp = static_cast<int>(a.get_int("tp", 1, 1, big));
    par.cp = static_cast<int>(a.get_int("cp", 1, 1, big));
    par.ep = static_cast<int>(a.get_int("ep", 1, 1, big));
    par.pp = static_cast<int>(a.get_int("pp", 1, 1, big));
    par.dp = static_cast<int>(a.get_int("dp", 0, 1, big));
    par.order = a.get("order", par.order);
    std::vector<std::string> names = hostlist_operand(a.operands[1], "ranks: ");
    if (static_cast<long>(names.size()) * gpus > big)
        throw Usage("ranks: " + std::to_string(names.size()) + " hosts x " + std::to_string(gpus) +
                    " GPUs is more than " + std::to_string(big) + " ranks");
    std::unique_ptr<Topology> topo;
    Cluster c = load_cluster(a, a.operands[0], topo);
    std::vector<int> hosts = pool_hosts(c, names, "ranks: ");
    RankPlan plan;
    try {
        plan = plan_ranks(c, hosts, gpus, par);
    } catch (const RankError &e) {
        throw Usage(e.what());
    }
    const Parallelism &p = plan.par;
    std::vector<int> node_order;  // hosts by their lowest rank
    for (int r = 0; r < static_cast<int>(plan.slot.size()); ++r) {
        int i = plan.slot[static_cast<std::size_t>(r)] / gpus;
        if (node_order.empty() || node_order.back() != i)
            if (std::find(node_order.begin(), node_order.end(), i) == node_order.end())
                node_order.push_back(i);
    }
    auto host_name = [&](int i) { return c.host_name(plan.hosts[static_cast<std::size_t>(i)]); };
    // torchrun's rank is node rank x GPUs + local rank: each host one block
    bool torchrun = true;
    for (std::size_t s = 0; s < plan.rank.size(); ++s)
        torchrun = torchrun && plan.rank[s] % gpus == static_cast<int>(s) % gpus &&
                   plan.rank[s] / gpus == plan.rank[s - s % static_cast<std::size_t>(gpus)] / gpus;
    // the cost model (placement/cost.hpp) on the slowest group of a kind: the
    // plan against plain consecutive ranks in topology order
    std::vector<int> plain(plan.rank.size());
    {
        std::vector<int> pos(c.host_count(), -1);
        int k = 0;
        for (int h : topology_order(c, plan.hosts))
            pos[static_cast<std::size_t>(h)] = k++;
        for (std::size_t s = 0; s < plain.size(); ++s)
            plain[pos[static_cast<std::size_t>(plan.hosts[s / static_cast<std::size_t>(gpus)])] * gpus + s % gpus] =
                static_cast<int>(s);
    }
    StepModel model = default_step_model(c.kind());
    auto slowest = [&](const std::string &kind, bool a2a, const std::vector<int> &slot_of) {
        StepEstimate worst;
        for (const auto &grp : rank_groups(p, kind)) {
            Placement pl;
            for (int r : grp)
                pl.hosts.push_back(plan.hosts[static_cast<std::size_t>(slot_of[static_cast<std::size_t>(r)] / gpus)]);
            std::sort(pl.hosts.begin(), pl.hosts.end());
            pl.hosts.erase(std::unique(pl.hosts.begin(), pl.hosts.end()), pl.hosts.end());
            describe(c, pl);
            JobShape j;
            j.gpus_per_node = static_cast<int>((grp.size() + pl.hosts.size() - 1) / pl.hosts.size());
            j.bytes = bytes;
            j.all_to_all = a2a;
            StepEstimate e = step_time(c, pl, j, model);
            if (e.comm_s > worst.comm_s)
                worst = e;
        }
        return worst;
    };
    struct Priced { std::string kind, what; StepEstimate here, plain; };
    std::vector<Priced> priced;
    for (const auto &g : plan.groups)
        if (g.kind == "dp" || g.kind == "tp-ep")
            priced.push_back({g.kind, g.kind == "dp" ? "all-reduce" : "all-to-all",
                              slowest(g.kind, g.kind == "tp-ep", plan.slot), slowest(g.kind, g.kind == "tp-ep", plain)});
    if (a.flag("output"))
        write_file_atomically(a.get("output"), [&](std::ostream &o) {
            for (int r = 0; r < static_cast<int>(plan.slot.size()); ++r) {
                int s = plan.slot[static_cast<std::size_t>(r)];
                o << r << " " << host_name(s / gpus) << " " << s % gpus << "\n";
            }
        });
    if (a.flag("json")) {
        json j;
        j["nodes"] = plan.hosts.size();
        j["gpus_per_node"] = gpus;
        j["world"] = plan.rank.size();
        j["parallelism"] = {{"tp", p.tp}, {"cp", p.cp}, {"ep", p.ep}, {"dp", p.dp}, {"pp", p.pp}, {"order", p.order}};
        j["unit"] = plan.unit;
        j["consecutive"] = plan.consecutive;
        j["note"] = plan.note;
        j["torchrun"] = torchrun;
        j["node_order"] = json::array();
        for (int i : node_order)
            j["node_order"].push_back(host_name(i));
        j["groups"] = json::array();
        for (const auto &g : plan.groups) {
            json k = {{"kind", g.kind}, {"size", g.size}, {"groups", g.groups}};
            int wider = g.groups;
            for (int x = 0; x < reach_count; ++x) {
                k["within"][to_string(static_cast<Reach>(x))] = g.within[static_cast<std::size_t>(x)];
                wider -= g.within[static_cast<std::size_t>(x)];
                if (x + 1 < reach_count)
                    k["crossing"][to_string(static_cast<Reach>(x))] = wider;
            }
            if (g.kind == "pp") {
                k["pairs"] = g.pairs;
                for (int x = 0; x < reach_count; ++x)
                    k["pairs_within"][to_string(static_cast<Reach>(x))] = g.pairs_within[static_cast<std::size_t>(x)];
            }
            if (g.kind == "dp") {
                k["pairs"] = g.pairs;
                k["rail_pairs"] = g.rail_pairs;
            }
            j["groups"].push_back(k);
        }
        j["cost"] = json::array();
        for (const auto &pr : priced)
            j["cost"].push_back({{"kind", pr.kind}, {"collective", pr.what}, {"bytes", bytes},
                                 {"slowest_ms", pr.here.comm_s * 1e3}, {"consecutive_ms", pr.plain.comm_s * 1e3},
                                 {"leaves", pr.here.leaves}, {"assumed", pr.here.assumed}});
        std::cout << j.dump(2) << "\n";
        return 0;
    }
    std::cout << "ranks: " << plan.hosts.size() << " nodes x " << gpus << " GPUs, tp=" << p.tp << " cp=" << p.cp
              << " ep=" << p.ep << " dp=" << p.dp << " pp=" << p.pp << ", order " << p.order << "\n"
              << "plan: " << plan.note << "\n"
              << "groups (how many lie within each level; pp also counts adjacent stages per rank pair):\n"
              << "  kind   size  groups    node  domain    leaf   group     pod  fabric\n";
    for (const auto &g : plan.groups) {
        auto row = [&](const std::string &kind, int size, int count, const std::array<int, reach_count> &h) {
            std::cout << "  " << std::left << std::setw(6) << kind << std::right << std::setw(5) << size
                      << std::setw(8) << count;
            for (int v : h)
                std::cout << std::setw(8) << v;
            std::cout << "\n";
        };
        row(g.kind, g.size, g.groups, g.within);
        if (g.kind == "pp")
            row("pp/s+1", 2, g.pairs, g.pairs_within);
    }
    for (const auto &g : plan.groups) {
        int wider = g.groups;
        std::cout << "crossing " << g.kind << ":";
        for (int x = 0; x + 1 < reach_count; ++x) {
            wider -= g.within[static_cast<std::size_t>(x)];
            std::cout << " " << to_string(static_cast<Reach>(x)) << " " << wider;
        }
        if (g.kind == "dp")
            std::cout << "; " << g.rail_pairs << " of " << g.pairs << " neighbours on other nodes on the same rail";
        std::cout << "\n";
    }
    for (const auto &pr : priced)
        std::cout << "cost " << pr.kind << ": " << pr.what << " of " << human_bytes(bytes) << " on the slowest group "
                  << human_seconds(pr.here.comm_s) << " (" << pr.here.nodes << " nodes, " << pr.here.leaves
                  << " leaves), consecutive ranks " << human_seconds(pr.plain.comm_s) << " ("
                  << pr.plain.nodes << " nodes, " << pr.plain.leaves << " leaves)"
                  << (pr.here.assumed ? "; host bandwidth assumed" : "") << "\n";
    std::cout << "torchrun: " << (torchrun ? "yes, start the hosts in the node order" : "no, a host's ranks are not one block in GPU order") << "\n"
              << "node order:";
    for (int i : node_order)
        std::cout << " " << host_name(i);
    std::cout << "\n";
    return 0;
}

int cmd_simulate(int argc, char **argv)
{
    Args a = parse_args(argc, argv, 2,
                        {"policy", "seeds", "jitter", "load", "island-wait", "bf-depth", "bf-interval", "bf-window", "bf-min-age-reserve", "bf-reserve", "backfill", "span-slowdown", "max-jobs", "columns", "split", "comm-share", "gpus-per-node", "select",
                         "uplink-load", "csv", "json", "plot", "format", "csv-columns", "fabric-type", "title", "fit", "leaf-wait", "jobs", "rank-at"},
                        {"model-wait", "all-to-all"});
    if (a.operands.size() != 2)
        throw Usage("simulate: give a FABRIC and a TRACE");
    // two outputs naming one file: the one written last replaced the other
    // (helpers 47, 49); compared as the file each names, a symbolic link
    // followed to where it points, whether or not the file exists yet
    std::vector<std::pair<std::string, std::string>> outs;
    for (const char *o : {"csv", "json", "plot", "jobs"})
        if (a.flag(o) && a.get(o) != "-")
            outs.push_back({o, a.get(o)});
    {
        namespace fs = std::filesystem;
        auto file_of = [](const std::string &path) {
            std::error_code ec;
            fs::path p(path);
            for (int hops = 0; hops < 40 && fs::is_symlink(fs::symlink_status(p, ec)); ++hops) {
                fs::path to = fs::read_symlink(p, ec);
                if (ec)
                    break;
                p = to.is_absolute() ? to : p.parent_path() / to;
            }
            fs::path c = fs::weakly_canonical(fs::absolute(p, ec), ec);
            return ec ? path : c.string();
        };
        for (std::size_t i = 0; i < outs.size(); ++i)
            for (std::size_t k = i + 1; k < outs.size(); ++k)
                if (file_of(outs[i].second) == file_of(outs[k].second))
                    throw Usage("--" + outs[i].first + " and --" + outs[k].first + " name one file (" +
                                escaped(outs[i].second) + ", " + escaped(outs[k].second) + "), expected a file for each");
    }
    std::unique_ptr<Topology> topo;
    Cluster c = load_cluster(a, a.operands[0], topo);
    // a regular file, a pipe (<(zcat trace.csv.gz), - for standard input)
    // read within a time bound, never a device, at most 1 GiB; an output
    // of this run never replaces it (helper 47: /dev/zero grew without end,
    // a FIFO no one wrote hung, --csv naming the trace replaced it)
    std::istringstream trace_text(read_option_file(a.operands[1], "a CSV job trace", std::size_t(1) << 30));
    std::vector<Job> trace = read_trace(trace_text, a.operands[1] == "-" ? "<stdin>" : a.operands[1],
                                        parse_trace_columns(a.get("columns")));
    // an output naming an input: refused before the runs, not after them
    // (helper 49: a whole run was spent, then its results dropped)
    for (const auto &o : outs)
        refuse_input_as_output(o.second);
    {
        // nothing the fabric can run, or arrivals --load cannot scale
        int fits = 0;
        double first = trace.front().submit, last = first;
        for (const Job &j : trace) {
            fits += j.nodes <= c.subnet_pool();
            first = std::min(first, j.submit);
            last = std::max(last, j.submit);
        }
        if (fits == 0)
            throw InputError(a.operands[1] + ": all " + std::to_string(trace.size()) + " jobs ask more nodes than " +
                             c.source() + " can give one job (" + std::to_string(c.subnet_pool()) +
                             "): nothing to replay");
        if (a.flag("load") && last == first)
            std::cerr << "atoll-place: warning: --load: every job of " << escaped(a.operands[1])
                      << " is submitted at the same time, so arrivals cannot be scaled: replayed as traced, all at once\n";
    }
    std::vector<std::string> policies;
    std::string pl = a.get("policy", "atoll,slurm-tree");
    if (pl == "all")
        policies = policy_names();
    else {
        std::stringstream ss(pl);
        std::string item;
        while (std::getline(ss, item, ','))
            if (!item.empty()) {
                if (!make_policy(item, c))  // policy_names() and slurm-block (the simulator's model of topology/block)
                    throw Usage("--policy: \"" + item + "\", expected atoll, slurm-tree, slurm-block, first-fit, random or all");
                policies.push_back(item);
            }
    }
    if (policies.empty())
        throw Usage("--policy: no policy named");
    int seeds = static_cast<int>(a.get_int("seeds", 5, 1, 1000));
    SimOptions opt;
    opt.jitter = a.get_double("jitter", seeds > 1 ? 0.2 : 0, 0, 0.99);
    opt.load = a.get_double("load", 0, 0, 10);
    opt.island_wait = a.get_double("island-wait", 0, 0, 1e9);
    opt.required = a.get_one_of("fit", {"preferred", "required"}) == "required";
    // what the plugin asks by default: leaf_wait= is island_wait= (600 s
    // unless the site says otherwise), for every job that asks an island
    const double plugin_leaf_wait = opt.island_wait > 0 ? opt.island_wait : PluginConfig().leaf_wait_s();
    opt.leaf_wait = a.get_double("leaf-wait", opt.required || opt.island_wait > 0 ? plugin_leaf_wait : 0, 0, 1e9);
    // the replay asks what job_submit.lua asks: without an island request
    // (--fit required or --island-wait) a job asks nothing, so no leaf wait
    if (opt.leaf_wait > 0 && !opt.required && opt.island_wait <= 0)
        throw Usage("--leaf-wait: jobs ask for no island without --fit required or --island-wait");
    opt.bf_depth = static_cast<int>(a.get_int("bf-depth", 500, 0, 1000000));
    opt.bf_interval = a.get_double("bf-interval", 0, 0, 1e6);
    opt.bf_window = a.get_double("bf-window", 0, 0, 1e9);
    opt.min_age_reserve = a.get_double("bf-min-age-reserve", 0, 0, 1e9);
    opt.span_slowdown = a.get_double("span-slowdown", 0, 0, 100);
    opt.comm_share = a.get_double("comm-share", 0, 0.001, 1);
    opt.gpus_per_node = static_cast<int>(a.get_int("gpus-per-node", 8, 1, 1024));
    opt.model_wait = a.flag("model-wait");
    opt.all_to_all = a.flag("all-to-all");
    opt.busy_fabric = a.get_one_of("uplink-load", {"running", "busy"}) == "busy";
    if (a.flag("uplink-load") && opt.comm_share <= 0)
        throw Usage("--uplink-load goes with --comm-share");
    if (opt.all_to_all && opt.comm_share <= 0)
        throw Usage("--all-to-all goes with --comm-share");
    if (opt.model_wait && (opt.comm_share <= 0 || opt.island_wait <= 0))
        throw Usage("--model-wait needs --comm-share and --island-wait (its upper bound)");
    if (opt.comm_share > 0 && opt.span_slowdown > 0)
        throw Usage("--comm-share and --span-slowdown: give one of them");
    opt.conservative = a.get_one_of("backfill", {"easy", "conservative"}) == "conservative";
    opt.bf_reserve = static_cast<int>(a.get_int("bf-reserve", 0, 0, 1000000));
    if (opt.bf_reserve > 0 && !opt.conservative)
        throw Usage("--bf-reserve: only with --backfill conservative (easy plans for the head job alone)");
    opt.max_jobs = static_cast<std::size_t>(a.get_int("max-jobs", 0, 0, 100000000));
    opt.split = parse_split(a);
    // Slurm's node choice inside the asks: only slurm-tree is Slurm's
    std::unique_ptr<Policy> select;
    if (a.flag("select")) {
        if (a.get_one_of("select", {"slurm-tree"}) == "slurm-tree")
            select = make_policy("slurm-tree", c);
        opt.select = select.get();
    }
    // where Slurm picks the hosts, the policy's order is the one cli_filter.lua
    // gave at submit, Slurm taking the first listed island that holds the job
    if (a.flag("rank-at") && !opt.select)
        throw Usage("--rank-at needs --select slurm-tree (Slurm then takes the first listed island)");
    opt.rank_at_submit = opt.select && (!a.flag("rank-at") || a.get_one_of("rank-at", {"submit", "start"}) == "submit");

    std::vector<SimMetrics> runs;
    std::map<std::string, std::map<std::string, Stat>> stats;
    struct Rec {
        std::string policy;
        int seed;
        JobRecord r;
    };
    std::vector<Rec> records;
    std::vector<JobRecord> one_run;
    if (a.flag("jobs"))
        opt.records = &one_run;
    for (const auto &pname : policies) {
        std::map<std::string, std::vector<double>> samples;
        for (int s = 1; s <= seeds; ++s) {
            auto policy = make_policy(pname, c, static_cast<std::uint64_t>(s));
            opt.seed = static_cast<std::uint64_t>(s);
            one_run.clear();
            SimMetrics m = simulate(c, trace, *policy, opt);
            for (const JobRecord &r : one_run)
                records.push_back({pname, s, r});
            for (const auto &mm : kMetrics)
                samples[mm.key].push_back(m.*(mm.field));
            runs.push_back(m);
        }
        for (const auto &kv : samples)
            stats[pname][kv.first] = stat_of(kv.second);
    }
    const SimMetrics &r0 = runs.front();
    std::string title = a.get("title", c.source() + " x " + a.operands[1]);
    std::cout << "fabric: " << c.source() << " (" << c.pool_size() << " compute hosts, "
              << (c.at(Level::Domain).empty() ? std::string()
                                              : std::to_string(c.at(Level::Domain).size()) + " NVLink domains up to " +
                                                    std::to_string(c.largest(Level::Domain)) + ", ")
              << c.at(Level::Leaf).size() << " leaf islands up to " << c.largest(Level::Leaf) << ", "
              << c.at(Level::Pod).size() << " pods up to " << c.largest(Level::Pod) << ")\n";
    LeafDemand ld = leaf_demand(c, trace);
    if (ld.mixed)
        std::cout << "leaves: " << ld.largest_leaves << " of " << ld.leaves << " leaves hold " << ld.largest
                  << " hosts, " << std::lround(100 * ld.host_share) << " % of the hosts; "
                  << std::lround(100 * ld.work_share) << " % of the trace's node-seconds are in jobs whose fewest leaves are all "
                  << ld.largest << "-host leaves\n";
    std::cout << "trace:  " << a.operands[1] << ": " << r0.jobs << " jobs replayed, " << r0.skipped
              << (c.subnets() > 1 ? " larger than the largest subnet skipped; " : " larger than the pool skipped; ") << r0.multi << " multi-node (" << r0.leaf_fit
              << " fit a leaf, " << r0.pod_fit << " need a pod)\n"
              << "runs:   " << seeds << " seeds, arrival jitter " << opt.jitter << ", "
              << [&]() {
                     std::ostringstream l;  // (no span of submit times: no load to scale, helper 47)
                     if (r0.offered_load > 0)
                         l << "offered load " << std::setprecision(3) << r0.offered_load
                           << (opt.load > 0 ? " (scaled)" : " (as traced)");
                     else
                         l << "every job submitted at once";
                     return l.str();
                 }()
              << (opt.required ? ", islands required" : "") << ", island wait " << opt.island_wait << " s"
              << (opt.leaf_wait > 0 ? ", leaf wait " + std::to_string(static_cast<long>(opt.leaf_wait)) + " s" +
                                          (a.flag("leaf-wait") ? "" : " (the plugin's default)")
                                    : opt.required || opt.island_wait > 0 ? ", no leaf wait" : "")
              << (opt.conservative ? ", conservative backfill" : ", EASY backfill") << ", backfill depth " << opt.bf_depth
              << (opt.bf_interval > 0 ? ", backfill every " + std::to_string(static_cast<long>(opt.bf_interval)) + " s" : "")
              << ", split "
              << to_string(opt.split) << "\n\n";
    // a column as wide as its widest value and two blanks (a makespan of
    // 24530626.6 +- 221754.8 ran into the next policy's, helper 47)
    auto cell = [&](const std::string &p, const Metric &mm) {
        const Stat &s = stats[p][mm.key];
        std::ostringstream v;
        v << std::fixed << std::setprecision(mm.key == std::string("mean_wait") || mm.key == std::string("mean_turnaround") || mm.key == std::string("makespan") ? 1 : 3) << s.mean << " +- "
          << s.ci;
        return v.str();
    };
    std::size_t width = 22;
    for (const auto &p : policies) {
        width = std::max(width, p.size() + 2);
        for (const auto &mm : kMetrics)
            width = std::max(width, cell(p, mm).size() + 2);
    }
    const int w = static_cast<int>(width);
    std::cout << std::left << std::setw(36) << "metric (mean +- 95% CI)";
    for (const auto &p : policies)
        std::cout << std::setw(w) << p;
    std::cout << "\n";
    for (const auto &mm : kMetrics) {
        std::cout << std::setw(36) << mm.title;
        for (const auto &p : policies)
            std::cout << std::setw(w) << cell(p, mm);
        std::cout << "\n";
    }
    if (!c.at(Level::Domain).empty()) {  // NVLink domains: per policy, over every run
        const char *rows[] = {"% domain-fitting jobs in one domain", "% larger jobs in the fewest domains"};
        for (int k = 0; k < 2; ++k) {
            std::cout << std::setw(36) << rows[k];
            for (const auto &pn : policies) {
                int num = 0, den = 0;
                for (const auto &r : runs)
                    if (r.policy == pn) {
                        num += k == 0 ? r.domain_fit_one : r.domain_span_fewest;
                        den += k == 0 ? r.domain_fit : r.domain_span;
                    }
                std::ostringstream v;
                v << std::fixed << std::setprecision(1) << (den ? 100.0 * num / den : 100.0) << " (" << num << "/" << den << ")";
                std::cout << std::setw(w) << v.str();
            }
            std::cout << "\n";
        }
    }
    int max_hops = 0;
    for (const auto &r : runs)
        max_hops = std::max(max_hops, r.max_hops);
    std::cout << std::setw(36) << "max hops (any run)";
    for (const auto &p : policies) {
        int mh = 0;
        for (const auto &r : runs)
            if (r.policy == p)
                mh = std::max(mh, r.max_hops);
        std::cout << std::setw(w) << mh;
    }
    std::cout << "\n";

    if (a.flag("jobs"))
        write_file_atomically(a.get("jobs"), [&](std::ostream &o) {
            o << "policy,seed,job_id,submit_s,start_s,duration_s,nodes,leaves,min_leaves,pods,hops\n";
            o << std::fixed << std::setprecision(3);  // seconds to the millisecond (6 digits of %g lost tens of seconds past 10^6)
            for (const Rec &x : records)
                o << x.policy << "," << x.seed << "," << x.r.id << "," << x.r.submit << "," << x.r.start << ","
                  << x.r.duration << "," << x.r.nodes << "," << x.r.leaves << "," << x.r.min_leaves << ","
                  << x.r.pods << "," << x.r.hops << "\n";
        });
    if (a.flag("csv"))
        write_file_atomically(a.get("csv"), [&](std::ostream &o) {
            o << "fabric,trace,policy,seed,jobs,skipped,multi,leaf_fit,leaf_fit_one,pod_fit,pod_fit_one,widened";
            for (const auto &mm : kMetrics)
                o << "," << mm.key;
            o << ",max_hops,offered_load\n";
            for (const auto &r : runs) {
                o << c.source() << "," << a.operands[1] << "," << r.policy << "," << r.seed << "," << r.jobs << ","
                  << r.skipped << "," << r.multi << "," << r.leaf_fit << "," << r.leaf_fit_one << "," << r.pod_fit
                  << "," << r.pod_fit_one << "," << r.widened;
                for (const auto &mm : kMetrics)
                    o << "," << r.*(mm.field);
                o << "," << r.max_hops << "," << r.offered_load << "\n";
            }
        });
    if (a.flag("json"))
        write_file_atomically(a.get("json"), [&](std::ostream &o) {
            json j = {{"fabric", c.source()}, {"trace", a.operands[1]}, {"seeds", seeds},
                      {"jitter", opt.jitter}, {"offered_load", r0.offered_load},
                      {"island_wait", opt.island_wait}, {"required", opt.required},
                      {"leaf_wait", opt.leaf_wait}, {"bf_depth", opt.bf_depth},
                      {"jobs", r0.jobs}, {"skipped", r0.skipped}};
            json pol = json::object();
            for (const auto &p : policies) {
                json ms = json::object();
                for (const auto &kv : stats[p])
                    ms[kv.first] = {{"mean", kv.second.mean}, {"ci95", kv.second.ci}};
                int mh = 0;
                for (const auto &r : runs)
                    if (r.policy == p)
                        mh = std::max(mh, r.max_hops);
                ms["max_hops"] = mh;
                pol[p] = ms;
            }
            j["policies"] = pol;
            o << json_text(j, 2) << "\n";
        });
    if (a.flag("plot"))
        write_file_atomically(a.get("plot"), [&](std::ostream &o) { write_svg(o, title, policies, stats); });
    return 0;
}

// The model's step time of a job on these hosts, against the best placement
// of the same size (placement/cost.hpp).
int cmd_cost(int argc, char **argv)
{
    Args a = parse_args(argc, argv, 2,
                        {"gpus-per-node", "bytes", "compute-ms", "comm-share", "running", "fabric-type", "format",
                         "csv-columns"},
                        {"explain", "all-to-all"});
    if (a.operands.size() != 2)
        throw Usage("cost: give FABRIC and HOSTLIST");
    if (a.flag("compute-ms") && a.flag("comm-share"))
        throw Usage("--compute-ms and --comm-share: give one of them");
    std::unique_ptr<Topology> topo;
    Cluster c = load_cluster(a, a.operands[0], topo);
    std::vector<std::string> names = hostlist_operand(a.operands[1], "HOSTLIST: ");
    if (names.empty())
        throw InputError("HOSTLIST: \"" + a.operands[1] + "\" names no host, expected the job's hosts");
    Placement p;
    for (const auto &n : names) {
        int h = c.find_host(n);
        if (h < 0 || !c.in_pool(h))
            throw InputError("HOSTLIST: host " + shown(n) + " is not a compute host of the fabric " + c.source());
        p.hosts.push_back(h);
    }
    std::sort(p.hosts.begin(), p.hosts.end());
    // a job's node list names each node once: a host twice was priced as
    // one node, a smaller job than asked, without a word
    auto twice = std::adjacent_find(p.hosts.begin(), p.hosts.end());
    if (twice != p.hosts.end())
        throw InputError("HOSTLIST: host " + shown(c.host_name(*twice)) + " given twice, expected each of the job's hosts once");
    describe(c, p);
    JobShape job;
    job.gpus_per_node = static_cast<int>(a.get_int("gpus-per-node", 8, 1, 1024));
    job.bytes = parse_size(a.get("bytes", "1G"), "--bytes");
    if (a.flag("compute-ms"))
        job.compute_s = a.get_double("compute-ms", 0, 0, 1e9) / 1000;
    job.comm_share = a.get_double("comm-share", 0.3, 0.001, 1);
    job.all_to_all = a.flag("all-to-all");
    StepModel m = default_step_model(c.kind());
    // --running: the uplinks shared with the running jobs that span them
    // (a job on any of these hosts is this one); else the busy-fabric assumption
    UplinkLoad load;
    if (a.flag("running")) {
        std::vector<std::vector<int>> others;
        for (auto &r : running_file(a.get("running"), c)) {
            bool mine = std::any_of(r.second.begin(), r.second.end(), [&](int h) {
                return std::binary_search(p.hosts.begin(), p.hosts.end(), h);
            });
            if (!mine)
                others.push_back(std::move(r.second));
        }
        load = uplink_load(c, others);
    }
    const UplinkLoad *shared = a.flag("running") ? &load : nullptr;
    StepEstimate here = step_time(c, p, job, m, shared);
    StepEstimate best = best_step_time(c, static_cast<int>(p.hosts.size()), job, m);
    if (here.step_s < best.step_s)  // as fast as the best: it is the best
        best = here;
    if (!std::isfinite(here.step_s) || !std::isfinite(best.step_s))
        throw InputError("the step model's figures for " + std::to_string(p.hosts.size()) +
                         " hosts overflow: give a smaller --bytes or --compute-ms");
    std::cout << std::fixed << std::setprecision(3) << "step_ms=" << here.step_s * 1e3 << "\n"
              << "best_ms=" << best.step_s * 1e3 << "\n"
              << "slowdown=" << (best.step_s > 0 ? here.step_s / best.step_s : 1.0) << "\n";
    if (a.flag("explain")) {
        auto line = [&](const char *what, const StepEstimate &e) {
            std::cerr << what << ": " << e.nodes << " nodes x " << job.gpus_per_node << " GPUs on " << e.leaves
                      << " leaves";
            if (e.domains > 0 || e.outside > 0)
                std::cerr << ", " << e.domains << " NVLink domain" << (e.domains == 1 ? "" : "s")
                          << (e.outside > 0 ? " and " + std::to_string(e.outside) + " host" +
                                                  (e.outside == 1 ? "" : "s") + " in none"
                                            : "");
            std::cerr << "; " << e.algo << " " << e.comm_s * 1e3 << " ms (ring " << e.ring_s * 1e3
                      << ", tree " << e.tree_s * 1e3 << "); per GPU " << e.inter_GBps << " GB/s across nodes";
            if (e.leaves > 1 && e.uplink_GBps > 0)  // 0: one domain over the leaves, NVLink alone
                std::cerr << ", " << e.uplink_GBps << " GB/s across leaves";
            std::cerr << "; step " << e.step_s * 1e3 << " ms" << (e.assumed ? " (host bandwidth assumed)" : "")
                      << "\n";
        };
        line("here", here);
        line("best", best);
        std::cerr << "model: NCCL's ring and tree formulas (src/graph/tuning.cc), NVLink " << m.nvlink_GBps
                  << " GB/s per GPU (" << m.domain_GBps << " in and across an NVLink domain), NIC busBW " << m.net_efficiency * 100
                  << " % of line rate; "
                  << (shared ? "the leaves' uplinks shared with the running jobs that span them\n"
                             : "the leaf's other hosts assumed to cross its uplinks too\n");
    }
    return 0;
}

}  // namespace

int main(int argc, char **argv)
{
    return run_tool("atoll-place", usage_text, argc, argv, [&](const std::string &cmd) {
        if (cmd == "place") return cmd_place(argc, argv);
        if (cmd == "simulate") return cmd_simulate(argc, argv);
        if (cmd == "order") return cmd_order(argc, argv);
        if (cmd == "settings") return cmd_settings(argc, argv);
        if (cmd == "cost") return cmd_cost(argc, argv);
        if (cmd == "ranks") return cmd_ranks(argc, argv);
        if (cmd == "policies") {
            for (const auto &p : policy_names())
                std::cout << p << "\n";
            return 0;
        }
        throw Usage("unknown command \"" + cmd + "\"");
    });
}
