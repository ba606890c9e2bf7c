// Placement speed: decisions on a large fabric (default 10,000 hosts on 1,000
// leaves in 10 pods), each policy on the same busy state in the same run.
// Prints the median and p99 decision time and what-if evaluations per second.
//   atoll-bench-place [PODS LEAVES_PER_POD HOSTS_PER_LEAF [DECISIONS [POLICY,... [MIN-MAX nodes]]]]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "placement/policy.hpp"
#include "topology/generate.hpp"

using clk = std::chrono::steady_clock;

int main(int argc, char **argv)
{
    int pods = argc > 3 ? std::atoi(argv[1]) : 10, leaves = argc > 3 ? std::atoi(argv[2]) : 100,
        hosts = argc > 3 ? std::atoi(argv[3]) : 10, decisions = argc > 4 ? std::atoi(argv[4]) : 5000;
    try {
        atl::GenSpec g;
        g.pods = pods;
        g.groups_per_pod = leaves;
        g.hosts_per_group = hosts;
        g.spines_per_pod = 8;
        g.cores = 8;
        g.host_digits = 5;
        auto t0 = clk::now();
        atl::Topology t = atl::analyse(atl::generate(g));
        atl::Cluster c(t);
        double setup = std::chrono::duration<double>(clk::now() - t0).count();
        std::printf("fabric: %d hosts, %zu leaf islands, %zu pods (analyse + placement index %.2f s)\n",
                    c.pool_size(), c.at(atl::Level::Leaf).size(), c.at(atl::Level::Pod).size(), setup);
        // A busy cluster: 70 % of the hosts taken by jobs of 1-32 nodes placed
        // by first-fit after a random shuffle of leaves, so leaves are ragged.
        int lo = 2, hi = 64;
        if (argc > 6 && std::sscanf(argv[6], "%d-%d", &lo, &hi) != 2)
            throw std::runtime_error(std::string("sizes: ") + argv[6] + ", expected MIN-MAX");
        std::mt19937_64 rng(42);
        atl::FreeState free(c);
        std::vector<int> hosts_all;
        for (std::size_t h = 0; h < c.host_count(); ++h)
            if (c.in_pool(static_cast<int>(h)))
                hosts_all.push_back(static_cast<int>(h));
        std::shuffle(hosts_all.begin(), hosts_all.end(), rng);
        for (std::size_t i = 0; i < hosts_all.size() * 7 / 10; ++i)
            free.set(hosts_all[i], false);
        std::printf("state: %d of %d hosts free; requests of %d-%d nodes, auto level; %d decisions per policy\n\n",
                    free.total(), c.pool_size(), lo, hi, decisions);
        std::vector<int> sizes;
        std::uniform_int_distribution<int> sz(lo, hi);
        for (int i = 0; i < decisions; ++i)
            sizes.push_back(sz(rng));
        std::printf("%-12s %12s %12s %12s %16s\n", "policy", "median us", "p99 us", "max us", "what-ifs/s");
        std::vector<std::string> names;
        std::stringstream list(argc > 5 ? argv[5] : "atoll,slurm-tree,first-fit,random");
        for (std::string n; std::getline(list, n, ',');)
            names.push_back(n);
        // The policies take turns on every request (the first of them
        // rotating), so that a busy machine slows each of them alike: the
        // figures are for comparing policies within one run.
        struct Run {
            std::string name;
            std::unique_ptr<atl::Policy> pol;
            std::vector<double> us, in_leaf, spanning;  // all; requests a leaf can hold; larger ones
            double total = 0;
            int ok = 0;
        };
        std::vector<Run> runs;
        for (const std::string &name : names) {
            Run r;
            r.name = name;
            r.pol = atl::make_policy(name, c, 7);
            if (!r.pol)
                throw std::runtime_error("no policy " + name);
            r.us.reserve(sizes.size());
            runs.push_back(std::move(r));
        }
        for (std::size_t i = 0; i < sizes.size(); ++i)
            for (std::size_t k = 0; k < runs.size(); ++k) {
                Run &r = runs[(i + k) % runs.size()];
                atl::Request req;
                req.nodes = sizes[i];
                req.explain = false;  // every policy: the decision, as Slurm makes it, without the text of --explain
                auto a = clk::now();
                atl::Placement p = r.pol->place(free, req);
                double us = std::chrono::duration<double, std::micro>(clk::now() - a).count();
                r.us.push_back(us);
                r.total += us / 1e6;
                (sizes[i] <= c.largest(atl::Level::Leaf) ? r.in_leaf : r.spanning).push_back(us);
                r.ok += p.ok;
            }
        auto pct = [](std::vector<double> &v, double q) {
            if (v.empty())
                return 0.0;
            std::sort(v.begin(), v.end());
            return v[static_cast<std::size_t>(static_cast<double>(v.size() - 1) * q + 0.5)];
        };
        for (Run &r : runs) {
            double med = pct(r.us, 0.5), p99 = pct(r.us, 0.99);
            std::printf("%-12s %12.1f %12.1f %12.1f %16.0f   (%d of %d placed; in a leaf %.1f / %.1f, spanning %.1f / %.1f)\n",
                        r.name.c_str(), med, p99, r.us.back(), decisions / r.total, r.ok, decisions,
                        pct(r.in_leaf, 0.5), pct(r.in_leaf, 0.99), pct(r.spanning, 0.5), pct(r.spanning, 0.99));
        }
    } catch (const std::exception &e) {
        std::fprintf(stderr, "atoll-bench-place: %s\n", e.what());
        return 1;
    }
    return 0;
}
