# topology/: the fabric model, its readers and writers. No Slurm headers here.
noinst_LTLIBRARIES += topology/libatoll-topology.la
topology_libatoll_topology_la_SOURCES = \
	topology/fabric.hpp topology/fabric.cpp \
	topology/ibnetdiscover.hpp topology/ibnetdiscover.cpp \
	topology/topology.hpp topology/tally.hpp topology/analyse.cpp \
	topology/json.hpp topology/json.cpp topology/check.hpp topology/check.cpp \
	topology/hostlist.hpp topology/hostlist.cpp topology/slurm.hpp topology/slurm.cpp \
	topology/csv.hpp topology/csv.cpp topology/cloud.hpp topology/cloud.cpp topology/lldp.hpp topology/lldp.cpp topology/diff.hpp topology/diff.cpp topology/dot.hpp topology/dot.cpp topology/io.hpp topology/io.cpp topology/generate.hpp topology/generate.cpp \
	topology/nodehealth.hpp topology/nodehealth.cpp topology/report.hpp topology/report.cpp
topology_libatoll_topology_la_CPPFLAGS = $(AM_CPPFLAGS) $(JSON_CFLAGS)
# --cache files and live discovery through libibnetdisc; programs that must
# not load it (the SPANK plugin) link the stub instead.
noinst_LTLIBRARIES += topology/libatoll-ibnetdisc.la topology/libatoll-noibnetdisc.la
topology_libatoll_ibnetdisc_la_SOURCES = topology/ibnetdisc.cpp
topology_libatoll_ibnetdisc_la_CPPFLAGS = $(AM_CPPFLAGS) $(IBNETDISC_CFLAGS)
topology_libatoll_ibnetdisc_la_LIBADD = $(IBNETDISC_LIBS) -libmad
topology_libatoll_noibnetdisc_la_SOURCES = topology/noibnetdisc.cpp
