sbin_PROGRAMS += tools/atoll-topo
tools_atoll_topo_SOURCES = tools/atoll-topo.cpp
tools_atoll_topo_CPPFLAGS = $(AM_CPPFLAGS) $(JSON_CFLAGS)
tools_atoll_topo_LDADD = topology/libatoll-topology.la
