// Placement speed: decisions on a large fabric (default 10,000 hosts on 1,000
// leaves in 10 pods), each policy on the same busy state in the same run.
// Prints the median and p99 decision time and what-if evaluations per second.
//   atoll-bench-place [PODS LEAVES_PER_POD HOSTS_PER_LEAF [DECISIONS]]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>

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
        std::mt19937_64 rng(42);
        atl::FreeState free(c);
        std::vector<int> hosts_all;
        for (std::size_t h = 0; h < c.host_count(); ++h)
            if (c.in_pool(static_cast<int>(h)))
                hosts_all.push_back(static_cast<int>(h));
        std::shuffle(hosts_all.begin(), hosts_all.end(), rng);
        for (std::size_t i = 0; i < hosts_all.size() * 7 / 10; ++i)
            free.set(hosts_all[i], false);
        std::printf("state: %d of %d hosts free; requests of 2-64 nodes, auto level; %d decisions per policy\n\n",
                    free.total(), c.pool_size(), decisions);
        std::vector<int> sizes;
        std::uniform_int_distribution<int> sz(2, 64);
        for (int i = 0; i < decisions; ++i)
            sizes.push_back(sz(rng));
        std::printf("%-12s %12s %12s %12s %16s\n", "policy", "median us", "p99 us", "max us", "what-ifs/s");
        for (const char *name : {"atoll", "slurm-tree", "first-fit", "random"}) {
            auto pol = atl::make_policy(name, c, 7);
            std::vector<double> us;
            us.reserve(sizes.size());
            int ok = 0;
            auto all0 = clk::now();
            for (int n : sizes) {
                atl::Request r;
                r.nodes = n;
                auto a = clk::now();
                atl::Placement p = pol->place(free, r);
                us.push_back(std::chrono::duration<double, std::micro>(clk::now() - a).count());
                ok += p.ok;
            }
            double total = std::chrono::duration<double>(clk::now() - all0).count();
            std::sort(us.begin(), us.end());
            std::printf("%-12s %12.1f %12.1f %12.1f %16.0f   (%d of %d placed)\n", name, us[us.size() / 2],
                        us[us.size() * 99 / 100], us.back(), decisions / total, ok, decisions);
        }
    } catch (const std::exception &e) {
        std::fprintf(stderr, "atoll-bench-place: %s\n", e.what());
        return 1;
    }
    return 0;
}
