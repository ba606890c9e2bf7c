// Time the discovery pipeline on one input: parse, graph + tiers + islands
// (analyse), check; print wall times and peak RSS. One process per input so
// the peak RSS is that input's.
#include <chrono>
#include <cstdio>
#include <sys/resource.h>

#include "topology/check.hpp"
#include "topology/io.hpp"

using clk = std::chrono::steady_clock;

static double since(clk::time_point t) { return std::chrono::duration<double>(clk::now() - t).count(); }

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: atoll-bench-topo INPUT\n");
        return 2;
    }
    try {
        auto t0 = clk::now();
        atl::Fabric f = atl::load_fabric(argv[1]);
        double parse = since(t0);
        auto t1 = clk::now();
        atl::Topology t = atl::analyse(std::move(f));
        double graph = since(t1);
        auto t2 = clk::now();
        auto findings = atl::check(t);
        double chk = since(t2);
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        std::printf("%-44s switches %6zu hosts %6zu links %7zu | parse %.3f s, graph+tiers+islands %.3f s, "
                    "check %.3f s, total %.3f s, peak RSS %.1f MiB (%zu findings)\n",
                    argv[1], t.switches.size(), t.hosts.size(), t.fabric.links.size(), parse, graph, chk,
                    parse + graph + chk, ru.ru_maxrss / 1024.0, findings.size());
    } catch (const std::exception &e) {
        std::fprintf(stderr, "atoll-bench-topo: %s\n", e.what());
        return 1;
    }
    return 0;
}
