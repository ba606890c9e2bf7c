#include "slurm/simulate.hpp"

#include "slurm/ask.hpp"
#include "placement/cost.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <queue>
#include <random>
#include <set>
#include <stdexcept>

namespace atl {
namespace {

struct Live {
    std::string id;
    double submit = 0, duration = 0, start = -1;
    double limit = 0;       // what backfill plans with: the time limit, or the duration
    int nodes = 0;
    double wait_from = -1;  // first time it could have started by node count
    std::vector<int> hosts;
    Level min_level = Level::Fabric;
    const SlurmAsk *ask = nullptr;  // what job_submit.lua would ask Slurm for it
    double island_wait = 0;         // its own bound (opt.model_wait: what spanning costs it, at most opt's)
    double span_cost = 0;           // opt.model_wait: span_slowdown - 1 for its size
    std::vector<int> crossing;      // leaves whose uplinks its ring crosses while it runs
    std::vector<int> order, wider_order;  // opt.rank_at_submit: its constraints' islands as ranked at submit
};

// The island request a job of the replay makes: its smallest level,
// required (--fit required), or auto (an island wait), or none.
std::string request_text(const SimOptions &opt, Level min_level, double island_wait)
{
    if (opt.required)
        return min_level == Level::Fabric ? "auto" : std::string(to_string(min_level)) + ":required";
    return island_wait > 0 ? "auto" : "none";
}

}  // namespace

SimMetrics simulate(const Cluster &c, const std::vector<Job> &trace, Policy &policy, const SimOptions &opt)
{
    SimMetrics m;
    m.policy = policy.name();
    m.seed = opt.seed;
    const int pool = c.pool_size();
    const int fits = c.subnet_pool();  // a job larger than every subnet never runs: skipped
    std::vector<Live> jobs;
    // by submit time, then as Slurm numbers jobs (the lower ID first: the
    // one submitted first, which the same priority schedules first), not
    // as the rows happen to lie: sacct's export order is not stable, and
    // ties moved the results (helper 47: Philly's excess leaves 0.807 or
    // 0.861 by row order). IDs without a leading number come after, in file
    // order. Each ID's number is read once, not at every comparison.
    std::vector<std::pair<double, const Job *>> by_id;  // leading number (-1: none), job
    by_id.reserve(trace.size());
    for (const Job &j : trace) {
        std::size_t k = 0;
        while (k < j.id.size() && k < 19 && std::isdigit(static_cast<unsigned char>(j.id[k])))
            ++k;
        by_id.push_back({k == 0 ? -1.0 : std::stod(j.id.substr(0, k)), &j});
    }
    std::stable_sort(by_id.begin(), by_id.end(), [](const auto &a, const auto &b) {
        if (a.second->submit != b.second->submit)
            return a.second->submit < b.second->submit;
        // (numbered IDs first, then the others in file order: one strict order)
        if ((a.first >= 0) != (b.first >= 0))
            return a.first >= 0;
        return a.first < b.first;
    });
    for (const auto &ij : by_id) {
        const Job &j = *ij.second;
        if (j.nodes > fits) {
            ++m.skipped;
            continue;
        }
        if (opt.max_jobs && jobs.size() >= opt.max_jobs)
            break;
        Live l;
        l.id = j.id;
        l.submit = j.submit;
        l.duration = j.duration;
        l.limit = j.limit > 0 ? std::max(j.limit, j.duration) : j.duration;
        l.nodes = j.nodes;
        for (Level lv : {Level::Domain, Level::Leaf, Level::Group, Level::Pod, Level::Fabric})
            if (c.largest(lv) >= j.nodes) {  // Domain: 0 when the fabric has no NVLink domains
                l.min_level = lv;
                break;
            }
        jobs.push_back(l);
    }
    JobShape shape;
    shape.gpus_per_node = opt.gpus_per_node;
    shape.comm_share = opt.comm_share;
    shape.all_to_all = opt.all_to_all;
    const StepModel model = default_step_model(c.kind());
    std::map<int, double> span_cost;  // nodes -> span_slowdown
    for (Live &l : jobs) {
        l.island_wait = opt.island_wait;
        if (opt.model_wait && opt.comm_share > 0) {
            auto it = span_cost.find(l.nodes);
            if (it == span_cost.end())
                it = span_cost.emplace(l.nodes, span_slowdown(c, l.nodes, shape, model)).first;
            l.span_cost = it->second - 1;
            // the bound before the wait is known: spanning free, nothing asked
            l.island_wait = auto_wait(l.span_cost, l.limit, -1, opt.island_wait);
            if (l.island_wait < 1)
                l.island_wait = 0;
        }
    }
    // what each job asks Slurm: slurm/ask.cpp, the author of job_submit.lua's
    // table and of cli_filter.lua's answers (one per request and node count)
    std::map<std::pair<std::string, int>, SlurmAsk> asks;
    for (Live &l : jobs) {
        std::string text = request_text(opt, l.min_level, l.island_wait);
        auto key = std::make_pair(text, l.nodes);
        auto it = asks.find(key);
        if (it == asks.end())
            it = asks.emplace(key, slurm_ask_unranked(c, parse_island(text), text, l.nodes)).first;
        l.ask = &it->second;
        const SlurmAsk &a = *l.ask;
        if (a.switches == 0 && a.constraint.empty() && !a.widen)
            l.island_wait = 0;  // nothing asked (spanning is free): nothing to wait for
    }
    static const SlurmAsk nothing;  // auto that does not wait: asks nothing
    m.jobs = static_cast<int>(jobs.size());
    if (jobs.empty())
        return m;
    UplinkLoad crossing(c.islands().size(), 0);

    // Arrivals: jitter the gaps, then scale them to the offered load asked for.
    std::mt19937_64 rng(opt.seed);
    if (opt.jitter > 0 && jobs.size() > 1) {
        std::uniform_real_distribution<double> u(1 - opt.jitter, 1 + opt.jitter);
        double prev_orig = jobs[0].submit, t = jobs[0].submit;
        for (std::size_t i = 1; i < jobs.size(); ++i) {
            double gap = jobs[i].submit - prev_orig;
            prev_orig = jobs[i].submit;
            t += gap * u(rng);
            jobs[i].submit = t;
        }
    }
    double t0 = jobs.front().submit, span = jobs.back().submit - t0, work = 0;
    for (const Live &l : jobs)
        work += l.nodes * l.duration;
    if (span > 0) {
        double offered = work / (pool * span);
        if (opt.load > 0) {
            double f = offered / opt.load;
            for (Live &l : jobs)
                l.submit = t0 + (l.submit - t0) * f;
            span *= f;
        }
        m.offered_load = work / (pool * span);
    }

    FreeState free(c);
    using End = std::pair<double, int>;
    std::priority_queue<End, std::vector<End>, std::greater<End>> ends;
    std::multiset<End> running;  // by planned end (start + limit), for EASY's shadow time
    std::priority_queue<double, std::vector<double>, std::greater<double>> wakeups;
    std::deque<int> queue;
    std::size_t next = 0;
    double now = t0, last_end = t0, frag_area = 0;
    double busy = 0, wait_sum = 0, turn_sum = 0, bsld_sum = 0, excess_sum = 0, hops_sum = 0;

    // The request a job makes at time t, as Slurm enforces what it was asked:
    // a matching-OR constraint holds it to one island of that level (after
    // island_wait the wider one atoll-widen swaps in, or none); --switches=K
    // holds it to K leaf switches while its wait runs (island_wait or
    // leaf_wait); the policy picks the island and hosts.
    auto waiting = [&](const Live &j, double t, double bound) {
        return bound > 0 && (j.wait_from < 0 || t < j.wait_from + bound);
    };
    // the fewest leaves' wait: the site's leaf wait, at most the model's
    // wait for the job (atoll-place caps --switches=K@leaf_wait so)
    // a leaf wait holds only a policy that takes --switches (not topology/block's)
    const bool switches_count = policy.takes_switches();
    auto leaf_bound = [&](const Live &j) { return opt.model_wait ? std::min(opt.leaf_wait, j.island_wait) : opt.leaf_wait; };
    // held: the constraint's level, when one holds the job (Fabric: none)
    auto request_for = [&](const Live &j, double t, Level *held_level = nullptr) {
        if (held_level)
            *held_level = Level::Fabric;
        Request req;
        req.nodes = j.nodes;
        req.split = opt.split;
        req.explain = false;
        const SlurmAsk &a = *j.ask;
        if (a.none)
            return req;
        bool island = waiting(j, t, j.island_wait);
        const std::vector<int> *held = a.constraint.empty() ? nullptr : &a.constraint;
        if (a.widen && !island)
            held = a.wider.empty() ? nullptr : &a.wider;
        if (held) {
            req.level = c.island(held->front()).level;
            req.fit = Fit::Required;
            if (held_level)
                *held_level = req.level;
        }
        if (switches_count && a.switches > 0 && (a.wait == SwitchWait::Island ? island : waiting(j, t, leaf_bound(j)))) {
            if (a.switches == 1) {
                if (!(req.fit == Fit::Required && req.level < Level::Leaf)) {  // not over a domain's constraint
                    req.level = Level::Leaf;  // one leaf switch: one leaf island
                    req.fit = Fit::Required;
                }
            } else
                req.max_leaves = a.switches;
        }
        return req;
    };
    // Where the job lands. With opt.select, as in Slurm: the policy only
    // ranks the constraint's islands (the first that can hold the job: the
    // island the policy would place it in), and Slurm's select plugin
    // (opt.select) picks the hosts inside it, under --switches as asked.
    auto place = [&](const Live &j, const FreeState &state, double t) {
        Level held = Level::Fabric;
        Request req = request_for(j, t, &held);
        if (!opt.select)
            return policy.place(state, req);
        if (held == Level::Fabric)
            return opt.select->place(state, req);
        if (opt.rank_at_submit && !(j.order.empty() && j.wider_order.empty())) {
            // Slurm's matching OR: the first listed island where its select
            // places the job under the --switches asked; none: it waits
            const SlurmAsk &a = *j.ask;
            const bool wide = a.widen && !waiting(j, t, j.island_wait);
            for (int is : wide ? j.wider_order : j.order) {
                if (state.free_in(is) < j.nodes)
                    continue;
                FreeState inside(c, false);
                for (int h : c.island(is).hosts)
                    if (state.is_free(h))
                        inside.set(h, true);
                Placement p = opt.select->place(inside, req);
                if (p.ok)
                    return p;
            }
            Placement none;
            none.error = "no listed island holds the job";
            return none;
        }
        Request rank;
        rank.nodes = j.nodes;
        rank.level = held;
        rank.fit = Fit::Required;
        rank.split = opt.split;
        rank.explain = false;
        Placement first = policy.place(state, rank);
        if (!first.ok)
            return first;
        int is = c.island_of(first.hosts.front(), held);
        FreeState inside(c, false);
        for (int h : c.island(is).hosts)
            if (state.is_free(h))
                inside.set(h, true);
        Placement p = opt.select->place(inside, req);
        if (!p.ok)  // the island holds the job, not under the --switches asked: Slurm's next island
            return opt.select->place(state, req);
        return p;
    };
    auto start = [&](int ji, Placement &p, FreeState *also) {
        Live &j = jobs[static_cast<std::size_t>(ji)];
        if ((opt.required || opt.island_wait > 0) && p.level > j.min_level)
            ++m.widened;
        for (int h : p.hosts)
            if (!free.is_free(h))  // a host in two jobs at once would be capacity Slurm does not have
                throw std::logic_error("simulate: job " + j.id + " placed on a busy host");
        free.take(p.hosts);
        if (also)
            also->take(p.hosts);
        if (opt.comm_share > 0 && j.nodes >= 2) {
            double sd = slowdown(c, p, shape, model, opt.busy_fabric ? nullptr : &crossing);
            m.gpu_hours_lost += j.nodes * opt.gpus_per_node * j.duration * (sd - 1) / 3600;
            j.duration *= sd;
            j.limit = std::max(j.limit, j.duration);
            if (p.leaves > 1)
                for (const auto &pl : p.per_leaf) {
                    j.crossing.push_back(pl.first);
                    ++crossing[static_cast<std::size_t>(pl.first)];
                }
        }
        if (opt.span_slowdown > 0 && p.leaves > c.min_leaves(j.nodes)) {
            j.duration *= 1 + opt.span_slowdown;  // all-reduce over the slower path
            j.limit = std::max(j.limit, j.duration);
        }
        j.start = now;
        j.hosts = std::move(p.hosts);
        ends.push({now + j.duration, ji});
        running.insert({now + j.limit, ji});
        double wait = now - j.submit;
        wait_sum += wait;
        turn_sum += wait + j.duration;
        bsld_sum += std::max(1.0, (wait + j.duration) / std::max(j.duration, 10.0));
        busy += j.nodes * j.duration;
        last_end = std::max(last_end, now + j.duration);
        if (opt.records) {
            JobRecord r;
            r.id = j.id;
            r.submit = j.submit;
            r.start = now;
            r.duration = j.duration;
            r.nodes = j.nodes;
            r.leaves = p.leaves;
            r.min_leaves = c.min_leaves(j.nodes);
            r.pods = p.pods;
            r.hops = p.hops;
            opt.records->push_back(r);
        }
        if (j.nodes >= 2) {
            ++m.multi;
            excess_sum += p.leaves - c.min_leaves(j.nodes);
            hops_sum += p.hops;
            m.max_hops = std::max(m.max_hops, p.hops);
            const int dom = c.largest(Level::Domain);
            if (dom > 0 && j.nodes <= dom) {
                ++m.domain_fit;
                m.domain_fit_one += p.domains == 1 && p.domain_hosts_only;
            } else if (dom > 0) {
                ++m.domain_span;
                m.domain_span_fewest += p.domain_hosts_only && p.domains == (j.nodes + dom - 1) / dom;
            }
            if (j.nodes <= c.largest(Level::Leaf)) {
                ++m.leaf_fit;
                m.leaf_fit_one += p.leaves == 1;
            } else if (j.nodes <= c.largest(Level::Pod)) {
                ++m.pod_fit;
                m.pod_fit_one += p.pods == 1;
            }
        }
    };
    // auto's decision (--model-wait), made where the live path makes it: at
    // submit (cli_filter.lua's atoll-place place --slurm, with squeue's
    // running and pending jobs then), its wait bound fixed in the job's
    // --switches=K@wait. The expected wait for its island is from the
    // running jobs' planned ends (start + limit) and the queue ahead of it
    // (every job queued before it: before it by priority, or after it by
    // backfill, each takes hosts as they free up and gives them back after
    // its limit, island_extra_wait()); spanning now is Slurm's choice on
    // the free hosts, under the uplink load the run is charged. Decided at
    // the first try instead (2026-12-06 and before), it counted the jobs
    // submitted while it waited, which the live path never sees: on the
    // NVL72 stream a first try came 12,457 s after submit with 20 jobs
    // behind it counted, and auto gave up islands a fixed wait won.
    auto decide = [&](int ji) {
        Live &j = jobs[static_cast<std::size_t>(ji)];
        std::vector<std::pair<double, std::vector<int>>> ends_at;
        for (const End &e : running)
            ends_at.push_back({e.first - now, jobs[static_cast<std::size_t>(e.second)].hosts});
        std::vector<PendingJob> ahead;
        for (int q : queue)
            if (q != ji) {
                PendingJob pj;
                pj.nodes = jobs[static_cast<std::size_t>(q)].nodes;
                pj.limit = jobs[static_cast<std::size_t>(q)].limit;
                ahead.push_back(pj);
            }
        double expected = island_extra_wait(c, free, j.ask->level, j.nodes, ends_at, ahead);
        double cost = span_cost_now(c, free, j.nodes, shape, model, opt.busy_fabric ? nullptr : &crossing,
                                    j.ask->level);
        // priced over its time limit, as cli_filter.lua prices it
        // (--time-limit): its run time is not known before it runs
        j.island_wait = auto_wait(cost, j.limit, expected, opt.island_wait);
        if (j.island_wait < 1) {
            j.island_wait = 0;
            j.ask = &nothing;
        }
    };
    // Try to start a job now on `state` (free hosts, or free minus a reservation).
    auto try_start = [&](int ji, const FreeState &state, FreeState *also) {
        Live &j = jobs[static_cast<std::size_t>(ji)];
        if (j.nodes > state.total())
            return false;
        if (j.wait_from < 0) {
            // like Slurm's wait4switch_start: the clock starts at the first try
            j.wait_from = now;
            for (double bound : {j.island_wait, leaf_bound(j)})
                if (bound > 0)
                    wakeups.push(now + bound);
        }
        Placement p = place(j, state, now);
        if (!p.ok)
            return false;
        start(ji, p, also);
        return true;
    };

    // Slurm's backfill pass as it is: every queued job it looks at (in queue
    // order) starts now if the policy finds it hosts free from now to the end
    // of its limit, outside the hosts planned for the jobs before it; else it
    // gets its own plan (the earliest time, by running jobs' limits and the
    // plans made so far, at which the policy finds it hosts) and later jobs
    // keep off those hosts for that time. Plans are made again each pass.
    struct Plan {
        double from, to;
        std::vector<int> hosts;
    };
    // (a host's planned release: now when free, its running job's planned
    // end; and a stamp per host to count a time's planned hosts once)
    std::vector<double> release(c.host_count(), 0);
    std::vector<std::uint64_t> stamp(c.host_count(), 0);
    std::uint64_t stamp_now = 0;
    auto backfill_conservative = [&]() {
        std::vector<Plan> plans;
        std::vector<double> times{now};
        for (const End &e : running)
            if (e.first > now)
                times.push_back(e.first);
        // How many hosts a time offers, counted before a host-level state is
        // built for it (copying the state and taking each plan's hosts out
        // was most of the pass, at every time of every job: a busy queue
        // slowed as n^4, helpers 39 and 47). The count is the state's total
        // exactly: the free hosts, those of running jobs planned to end by
        // then, less the hosts of plans overlapping the job's run, each once.
        // (taken again after a job starts in the pass: its hosts leave
        // the free ones and end at its limit)
        const double free_now = -std::numeric_limits<double>::infinity();
        std::vector<double> end_at;    // planned ends, in order (running is)
        std::vector<long> freed_by;    // hosts freed by the first k of them
        auto snapshot = [&]() {
            std::fill(release.begin(), release.end(), std::numeric_limits<double>::infinity());
            for (std::size_t h = 0; h < release.size(); ++h)
                if (free.is_free(static_cast<int>(h)))
                    release[h] = free_now;
            end_at.clear();
            freed_by.assign(1, 0);
            for (const End &e : running) {
                const auto &hs = jobs[static_cast<std::size_t>(e.second)].hosts;
                for (int h : hs)
                    release[static_cast<std::size_t>(h)] = e.first;
                end_at.push_back(e.first);
                freed_by.push_back(freed_by.back() + static_cast<long>(hs.size()));
            }
        };
        snapshot();
        auto offered = [&](double t, double limit, int want) {
            long n = free.total();
            if (t > now)
                n += freed_by[static_cast<std::size_t>(std::upper_bound(end_at.begin(), end_at.end(), t) - end_at.begin())];
            if (n < want)
                return n;  // too few before the plans take theirs
            ++stamp_now;
            for (const Plan &pl : plans)
                if (pl.from < t + limit && t < pl.to)
                    for (int h : pl.hosts) {
                        const std::size_t uh = static_cast<std::size_t>(h);
                        if (stamp[uh] != stamp_now && (release[uh] == free_now || (t > now && release[uh] <= t))) {
                            stamp[uh] = stamp_now;
                            --n;
                        }
                    }
            return n;
        };
        int looked = 0;
        for (auto it = queue.begin(); it != queue.end() && looked < opt.bf_depth;) {
            const Live &j = jobs[static_cast<std::size_t>(*it)];
            ++looked;
            std::sort(times.begin(), times.end());
            times.erase(std::unique(times.begin(), times.end()), times.end());
            bool started = false;
            // test now only: too young, or the pass has made its bf_reserve plans
            bool young = now - j.submit < opt.min_age_reserve ||
                         (opt.bf_reserve > 0 && plans.size() >= static_cast<std::size_t>(opt.bf_reserve));
            for (double t : times) {
                if (young && t > now)
                    break;
                if (opt.bf_window > 0 && t > now + opt.bf_window)
                    break;  // beyond the window: no plan (Slurm's bf_window)
                if (offered(t, j.limit, j.nodes) < j.nodes)
                    continue;
                FreeState avail = free;
                // later: the hosts of the jobs planned to end by then; now:
                // only what is free (a job started in this pass with a zero
                // limit still holds its hosts until its end is processed)
                for (const End &e : running)
                    if (t > now && e.first <= t)
                        avail.give(jobs[static_cast<std::size_t>(e.second)].hosts);
                for (const Plan &pl : plans)
                    if (pl.from < t + j.limit && t < pl.to)
                        for (int h : pl.hosts)
                            avail.set(h, false);
                if (avail.total() < j.nodes)
                    continue;
                if (t <= now) {
                    if (try_start(*it, avail, nullptr)) {
                        started = true;
                        times.push_back(now + j.limit);
                        break;
                    }
                    continue;
                }
                Placement p = place(j, avail, t);
                if (!p.ok)
                    continue;
                plans.push_back({t, t + j.limit, std::move(p.hosts)});
                times.push_back(t + j.limit);
                break;
            }
            if (started) {
                it = queue.erase(it);
                snapshot();
            } else
                ++it;
        }
    };

    // FCFS (Slurm's main scheduler: it stops at the first job that cannot
    // start), then, on backfill passes, backfill around a host-level
    // reservation for the queue's head, as Slurm's backfill plans one: the
    // hosts the same policy would give the head when enough running jobs have
    // ended (by their time limits). A backfilled job that would still run at
    // that time (by its limit) must not use those hosts.
    auto schedule = [&](bool backfill) {
        // a job pending less than min_age_reserve does not stop it
        for (auto it = queue.begin(); it != queue.end();) {
            if (try_start(*it, free, nullptr))
                it = queue.erase(it);
            else if (now - jobs[static_cast<std::size_t>(*it)].submit >= opt.min_age_reserve)
                break;
            else
                ++it;
        }
        if (queue.empty() || !backfill)
            return;
        if (opt.conservative) {
            backfill_conservative();
            return;
        }
        const Live &head = jobs[static_cast<std::size_t>(queue.front())];
        FreeState future = free;
        double shadow = std::numeric_limits<double>::infinity();
        std::vector<int> reserved;
        for (const End &e : running) {
            if (now - head.submit < opt.min_age_reserve)
                break;  // too young for a reservation
            future.give(jobs[static_cast<std::size_t>(e.second)].hosts);
            if (future.total() < head.nodes)
                continue;
            Placement r = place(head, future, e.first);
            if (r.ok) {
                shadow = e.first;
                reserved = std::move(r.hosts);
                break;
            }
        }
        FreeState outside = free;  // free hosts not reserved for the head
        for (int h : reserved)
            outside.set(h, false);
        int looked = 0;
        for (auto it = queue.begin() + 1; it != queue.end() && looked < opt.bf_depth;) {
            const Live &j = jobs[static_cast<std::size_t>(*it)];
            ++looked;
            bool before_shadow = now + j.limit <= shadow;
            if (j.nodes <= free.total() &&
                (before_shadow ? try_start(*it, free, &outside) : try_start(*it, outside, &outside)))
                it = queue.erase(it);
            else
                ++it;
        }
    };

    auto stranded = [&]() {
        if (queue.empty())
            return 0;
        int smallest = std::numeric_limits<int>::max();
        int looked = 0;
        for (int ji : queue) {
            smallest = std::min(smallest, jobs[static_cast<std::size_t>(ji)].nodes);
            if (++looked >= opt.bf_depth)
                break;
        }
        int s = 0;
        for (int l : c.at(Level::Leaf))
            if (free.free_in(l) < smallest)
                s += free.free_in(l);
        return s;
    };

    const double inf = std::numeric_limits<double>::infinity();
    // backfill passes: at every event, or every bf_interval seconds (Slurm's
    // bf_interval) while jobs are queued
    double next_bf = opt.bf_interval > 0 ? t0 : -inf;
    double bf_woken = -inf;  // the pass time last put on wakeups
    bool pass_needed = true; // something changed since the last backfill pass
    while (next < jobs.size() || !ends.empty()) {
        double t_arr = next < jobs.size() ? jobs[next].submit : inf;
        double t_end = ends.empty() ? inf : ends.top().first;
        double t_wake = wakeups.empty() ? inf : wakeups.top();
        double t = std::min({t_arr, t_end, t_wake});
        if (t == inf)
            break;  // jobs left in the queue can never start (cannot happen: each fits the pool)
        frag_area += stranded() * (t - now);
        now = t;
        while (!ends.empty() && ends.top().first <= now) {
            pass_needed = true;
            int ji = ends.top().second;
            ends.pop();
            const Live &e = jobs[static_cast<std::size_t>(ji)];
            running.erase(running.find({e.start + e.limit, ji}));
            free.give(jobs[static_cast<std::size_t>(ji)].hosts);
            for (int l : e.crossing)
                --crossing[static_cast<std::size_t>(l)];
        }
        while (!wakeups.empty() && wakeups.top() <= now) {
            pass_needed = pass_needed || wakeups.top() != bf_woken;  // a wait ran out, an age was reached
            wakeups.pop();
        }
        while (next < jobs.size() && jobs[next].submit <= now) {
            Live &a = jobs[next];
            if (opt.rank_at_submit && opt.select && !a.ask->none && policy.takes_switches() &&
                std::string(policy.name()) != "slurm-tree") {
                // cli_filter.lua's order: the policy's ranking on the hosts free now
                if (!a.ask->constraint.empty())
                    a.order = rank_islands(policy, free, c.island(a.ask->constraint.front()).level, a.nodes);
                if (!a.ask->wider.empty())
                    a.wider_order = rank_islands(policy, free, c.island(a.ask->wider.front()).level, a.nodes);
            }
            queue.push_back(static_cast<int>(next));
            if (opt.model_wait && a.island_wait > 0 && !a.ask->none)
                decide(static_cast<int>(next));  // at submit, as cli_filter.lua decides
            if (opt.min_age_reserve > 0)
                wakeups.push(jobs[next].submit + opt.min_age_reserve);
            pass_needed = true;
            ++next;
        }
        if (opt.bf_interval > 0 && now > next_bf)  // no pass was due since: the next one on the grid
            next_bf = t0 + std::ceil((now - t0) / opt.bf_interval) * opt.bf_interval;
        bool bf = now >= next_bf;
        if (bf && opt.bf_interval > 0)
            next_bf = t0 + (std::floor((now - t0) / opt.bf_interval) + 1) * opt.bf_interval;
        std::size_t queued = queue.size();
        schedule(bf);
        if (bf)  // a pass over an unchanged state finds nothing new: the next waits for a change
            pass_needed = queue.size() != queued;
        else if (queue.size() != queued)
            pass_needed = true;
        if (opt.bf_interval > 0 && !queue.empty() && pass_needed && next_bf != bf_woken) {
            wakeups.push(next_bf);  // once per pass time
            bf_woken = next_bf;
        }
    }
    if (!queue.empty())
        m.skipped += static_cast<int>(queue.size());

    int started = m.jobs - static_cast<int>(queue.size());
    m.makespan = last_end - t0;
    m.utilisation = m.makespan > 0 ? busy / (pool * m.makespan) : 0;
    m.mean_wait = started ? wait_sum / started : 0;
    m.mean_turnaround = started ? turn_sum / started : 0;
    m.bounded_slowdown = started ? bsld_sum / started : 0;
    m.fragmentation = m.makespan > 0 ? frag_area / (pool * m.makespan) : 0;
    m.excess_leaves = m.multi ? excess_sum / m.multi : 0;
    m.mean_hops = m.multi ? hops_sum / m.multi : 0;
    m.leaf_pct = m.leaf_fit ? 100.0 * m.leaf_fit_one / m.leaf_fit : 100;
    m.pod_pct = m.pod_fit ? 100.0 * m.pod_fit_one / m.pod_fit : 100;
    m.domain_pct = m.domain_fit ? 100.0 * m.domain_fit_one / m.domain_fit : 100;
    m.domain_fewest_pct = m.domain_span ? 100.0 * m.domain_span_fewest / m.domain_span : 100;
    return m;
}

LeafDemand leaf_demand(const Cluster &c, const std::vector<Job> &trace)
{
    LeafDemand d;
    std::vector<int> caps;
    for (int l : c.at(Level::Leaf))
        caps.push_back(c.capacity(l));
    std::sort(caps.begin(), caps.end(), std::greater<int>());
    d.leaves = static_cast<int>(caps.size());
    if (caps.empty() || c.pool_size() == 0)
        return d;
    d.largest = caps.front();
    int next_size = 0, in_largest = 0;
    for (int cap : caps) {
        if (cap == d.largest) {
            ++d.largest_leaves;
            in_largest += cap;
        } else if (next_size == 0) {
            next_size = cap;
        }
    }
    d.mixed = next_size > 0;
    d.host_share = static_cast<double>(in_largest) / c.pool_size();
    // prefix sums of the capacities, largest first
    std::vector<long> sum(caps.size() + 1, 0);
    for (std::size_t i = 0; i < caps.size(); ++i)
        sum[i + 1] = sum[i] + caps[i];
    double all = 0, only_largest = 0;
    for (const Job &j : trace) {
        if (j.nodes > c.pool_size())
            continue;
        double w = j.nodes * j.duration;
        all += w;
        auto k = static_cast<std::size_t>(c.min_leaves(j.nodes));
        if (d.mixed && caps[k - 1] == d.largest && sum[k - 1] + next_size < j.nodes)
            only_largest += w;
    }
    d.work_share = all > 0 ? only_largest / all : 0;
    return d;
}

Stat stat_of(const std::vector<double> &v)
{
    Stat s;
    if (v.empty())
        return s;
    double sum = 0;
    for (double x : v)
        sum += x;
    s.mean = sum / static_cast<double>(v.size());
    if (v.size() < 2)
        return s;
    double ss = 0;
    for (double x : v)
        ss += (x - s.mean) * (x - s.mean);
    double sd = std::sqrt(ss / static_cast<double>(v.size() - 1));
    // two-sided 95 % Student t quantiles for 1..30 degrees of freedom
    static const double t95[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                 2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                 2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
    std::size_t df = v.size() - 1;
    double t = df <= 30 ? t95[df - 1] : 1.96;
    s.ci = t * sd / std::sqrt(static_cast<double>(v.size()));
    return s;
}

}  // namespace atl
