# Benchmarks: programs that print figures (run bench/bench-topo.sh); not tests.
noinst_PROGRAMS += bench/atoll-bench-topo
bench_atoll_bench_topo_SOURCES = bench/bench-topo.cpp
bench_atoll_bench_topo_LDADD = topology/libatoll-topology.la topology/libatoll-ibnetdisc.la
bench_atoll_bench_topo_CPPFLAGS = $(AM_CPPFLAGS) $(JSON_CFLAGS)
EXTRA_DIST += bench/bench-topo.sh bench/data
noinst_PROGRAMS += bench/atoll-bench-place
bench_atoll_bench_place_SOURCES = bench/bench-place.cpp
bench_atoll_bench_place_LDADD = placement/libatoll-placement.la topology/libatoll-topology.la topology/libatoll-ibnetdisc.la
bench_atoll_bench_place_CPPFLAGS = $(AM_CPPFLAGS) $(JSON_CFLAGS)
EXTRA_DIST += bench/bench-place.sh bench/bench-slurm.sh bench/bench-islands.sh bench/slurm-replay.sh bench/bench-cost.sh
