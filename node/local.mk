# node/: the node's own view (hwloc, sysfs): GPUs, HCAs, GPU-to-HCA distance.
noinst_LTLIBRARIES += node/libatoll-node.la
node_libatoll_node_la_SOURCES = node/nodeview.hpp node/nodeview.cpp node/gpu_hca.h node/gpu_hca.c
node_libatoll_node_la_CPPFLAGS = $(AM_CPPFLAGS) $(HWLOC_CFLAGS) $(JSON_CFLAGS)
