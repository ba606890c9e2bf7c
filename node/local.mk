# node/: the node's own view (hwloc, sysfs): GPUs, HCAs, GPU-to-HCA distance.
# libatoll-nodesys (sysfs and procfs only) is what the SPANK plugin links;
# libatoll-node adds hwloc for the tools.
noinst_LTLIBRARIES += node/libatoll-nodesys.la node/libatoll-node.la
node_libatoll_nodesys_la_SOURCES = node/sysfs.hpp node/sysfs.cpp
node_libatoll_node_la_SOURCES = node/nodeview.hpp node/nodeview.cpp node/gpu_hca.h node/gpu_hca.c
node_libatoll_node_la_CPPFLAGS = $(AM_CPPFLAGS) $(HWLOC_CFLAGS) $(JSON_CFLAGS)
node_libatoll_node_la_LIBADD = node/libatoll-nodesys.la
