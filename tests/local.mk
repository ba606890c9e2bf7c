# make check: Catch2 unit tests (TAP, one result per test case) and shell tests
# against the real programs (ibsim, ibnetdiscover, slurmctld), also TAP.
LOG_DRIVER = env AM_TAP_AWK='$(AWK)' $(SHELL) $(top_srcdir)/build-aux/tap-driver.sh
TEST_EXTENSIONS = .sh
SH_LOG_DRIVER = env AM_TAP_AWK='$(AWK)' $(SHELL) $(top_srcdir)/build-aux/tap-driver.sh
AM_TESTS_ENVIRONMENT = ATOLL_SRCDIR='$(abs_top_srcdir)' ATOLL_BUILDDIR='$(abs_top_builddir)' ATOLL_SANITIZERS='$(enable_sanitizers)'; \
	export ATOLL_SRCDIR ATOLL_BUILDDIR ATOLL_SANITIZERS;

if HAVE_CATCH2
check_PROGRAMS += tests/unit/atoll-unit
tests_unit_atoll_unit_SOURCES = tests/unit/main.cpp tests/unit/catch.hpp tests/unit/testdata.hpp \
	tests/unit/test_ibnetdiscover.cpp tests/unit/test_topology.cpp tests/unit/test_check.cpp \
	tests/unit/test_json.cpp tests/unit/test_slurm.cpp tests/unit/test_generate.cpp \
	tests/unit/test_placement.cpp tests/unit/test_ask.cpp tests/unit/test_spank.cpp tests/unit/test_lldp.cpp tests/unit/test_env.cpp tests/unit/test_health.cpp tests/unit/test_cloud.cpp tests/unit/test_cloudenv.cpp tests/unit/test_report.cpp tests/unit/test_nvlink.cpp tests/unit/test_ranks.cpp
tests_unit_atoll_unit_CPPFLAGS = $(AM_CPPFLAGS) $(JSON_CFLAGS) $(HWLOC_CFLAGS) $(CATCH2_CFLAGS) -DATOLL_SRCDIR='"$(abs_top_srcdir)"'
tests_unit_atoll_unit_LDADD = spank/libatoll-spankcore.la node/libatoll-health.la node/libatoll-node.la slurm/libatoll-slurm.la placement/libatoll-placement.la topology/libatoll-topology.la \
	topology/libatoll-ibnetdisc.la $(HWLOC_LIBS) $(CATCH2_LIBS)
TESTS += tests/unit/atoll-unit
endif

# tests/unit/atoll-unit speaks TAP when asked
AM_TESTS_FD_REDIRECT =
LOG_COMPILER = $(top_srcdir)/tests/run-unit

SHELL_TESTS = tests/cli/identity.sh tests/cli/crosscheck.sh tests/cli/errors.sh tests/cli/frontend.sh tests/cli/env.sh tests/cli/robust.sh tests/cli/golden.sh tests/cli/place.sh tests/cli/diff.sh tests/cli/fuzz-regress.sh tests/cli/widen.sh tests/cli/health.sh tests/cli/cloudenv.sh tests/cli/cloud.sh tests/cli/output.sh tests/cli/features.sh tests/integration/ibsim.sh tests/integration/slurmctld.sh tests/integration/block.sh tests/integration/nvl72.sh tests/integration/switches.sh tests/integration/live-topology.sh tests/integration/lldpd.sh tests/cli/report.sh tests/cli/ranks.sh tests/cli/roce-node.sh tests/cli/tiers.sh tests/cli/cost.sh tests/cli/lldp.sh
TESTS += $(SHELL_TESTS)
# atoll.so loaded into srun and slurmstepd: not with sanitizers (Slurm's
# programs are not instrumented); the same code runs in the unit tests
if !SANITIZERS
TESTS += tests/integration/spank.sh tests/integration/spank-roce.sh tests/integration/spank-nvl.sh tests/integration/domain-wait.sh
endif
EXTRA_DIST += tests/integration/spank.sh tests/integration/spank-roce.sh tests/integration/spank-nvl.sh tests/integration/domain-wait.sh tests/integration/packages.sh

# the fuzz harnesses as a program that replays files (fuzz/regress, the seeds)
check_PROGRAMS += fuzz/atoll-fuzz-replay
fuzz_atoll_fuzz_replay_SOURCES = fuzz/harness.cpp
fuzz_atoll_fuzz_replay_CPPFLAGS = $(AM_CPPFLAGS) $(JSON_CFLAGS) -DATOLL_FUZZ_REPLAY
fuzz_atoll_fuzz_replay_LDADD = spank/libatoll-spankcore.la node/libatoll-health.la node/libatoll-nodesys.la slurm/libatoll-slurm.la placement/libatoll-placement.la topology/libatoll-topology.la topology/libatoll-noibnetdisc.la
EXTRA_DIST += fuzz/harness.cpp fuzz/run.sh fuzz/seeds fuzz/regress
# Files, not whole directories: a directory in the build tree would bring its logs along.
EXTRA_DIST += $(SHELL_TESTS) tests/lsan.supp tests/run-unit tests/lib.sh tests/slurm-cluster.sh tests/count-results.sh tests/slurm-matrix.sh tests/cli/golden tests/data tests/unit/testdata.hpp
# Cancel GNU make's built-in "%: %.sh" rule: it would "make" the directory
# tests/cli/golden by copying golden.sh over it whenever the script is newer.
%: %.sh
