# node/: the node's own view (hwloc, sysfs): GPUs, HCAs, GPU-to-HCA distance.
# libatoll-nodesys (sysfs and procfs only) is what the SPANK plugin links;
# libatoll-node adds hwloc for the tools.
noinst_LTLIBRARIES += node/libatoll-nodesys.la node/libatoll-node.la
node_libatoll_nodesys_la_SOURCES = node/sysfs.hpp node/sysfs.cpp node/imex.hpp node/imex.cpp
node_libatoll_node_la_SOURCES = node/nodeview.hpp node/nodeview.cpp node/gpu_hca.h node/gpu_hca.c
node_libatoll_node_la_CPPFLAGS = $(AM_CPPFLAGS) $(HWLOC_CFLAGS) $(JSON_CFLAGS)
node_libatoll_node_la_LIBADD = node/libatoll-nodesys.la
# the node's health against the site's policy (atoll-topo health): readers of
# `mlnx_qos -i IF` and `ethtool -S IF` text, and the checks; for the tools
noinst_LTLIBRARIES += node/libatoll-health.la
node_libatoll_health_la_SOURCES = node/qos.hpp node/qos.cpp node/ethtool.hpp node/ethtool.cpp node/health.hpp node/health.cpp
# each cloud's own NCCL environment (what its plugin or image sets, what a
# node shows of it) and the compute adapters by a cloud's rules: pure, for
# the tools now and the plugin later
node_libatoll_nodesys_la_SOURCES += node/cloudenv.hpp node/cloudenv.cpp node/ncclconf.hpp node/ncclconf.cpp \
	node/ucxconf.hpp node/ucxconf.cpp
EXTRA_DIST += docs/cloud-profiles.md
