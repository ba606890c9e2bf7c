sbin_PROGRAMS += tools/atoll-topo
tools_atoll_topo_SOURCES = tools/atoll-topo.cpp tools/args.hpp tools/args.cpp tools/topo_health.hpp tools/topo_health.cpp
tools_atoll_topo_CPPFLAGS = $(AM_CPPFLAGS) $(JSON_CFLAGS) $(HWLOC_CFLAGS)
tools_atoll_topo_LDADD = spank/libatoll-spankcore.la node/libatoll-health.la node/libatoll-node.la slurm/libatoll-slurm.la placement/libatoll-placement.la topology/libatoll-topology.la topology/libatoll-ibnetdisc.la \
	$(HWLOC_LIBS)
bin_PROGRAMS += tools/atoll-place
tools_atoll_place_SOURCES = tools/atoll-place.cpp tools/args.hpp tools/args.cpp
tools_atoll_place_CPPFLAGS = $(AM_CPPFLAGS) $(JSON_CFLAGS) $(HWLOC_CFLAGS)
tools_atoll_place_LDADD = spank/libatoll-spankcore.la node/libatoll-node.la slurm/libatoll-slurm.la placement/libatoll-placement.la \
	topology/libatoll-topology.la topology/libatoll-ibnetdisc.la $(HWLOC_LIBS)
