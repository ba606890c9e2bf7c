# placement/: which hosts a job gets (policies), the cost model and the
# trace reader. Depends on topology/ only.
noinst_LTLIBRARIES += placement/libatoll-placement.la
placement_libatoll_placement_la_SOURCES = \
	placement/cluster.hpp placement/cluster.cpp \
	placement/policy.hpp placement/policies.hpp placement/policy.cpp \
	placement/policy_atoll.cpp placement/policy_slurm_tree.cpp placement/policy_slurm_block.cpp \
	placement/cost.hpp placement/cost.cpp \
	placement/trace.hpp placement/trace.cpp \
	placement/view.hpp placement/view.cpp \
	placement/ranks.hpp placement/ranks.cpp
placement_libatoll_placement_la_CPPFLAGS = $(AM_CPPFLAGS) $(JSON_CFLAGS)
