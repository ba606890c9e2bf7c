# spank/: the SPANK plugin atoll.so. One C file holds the ABI (atoll.c); the
# C++ behind it (glue.cpp, and the core, unit-tested on its own: one file per
# concern, core.hpp includes them all) is noexcept at the boundary; a version
# script exports only what Slurm looks up.
noinst_LTLIBRARIES += spank/libatoll-spankcore.la
spank_libatoll_spankcore_la_SOURCES = spank/core.hpp \
	spank/config.hpp spank/config.cpp spank/trusted.hpp spank/trusted.cpp spank/view.hpp spank/view.cpp \
	spank/facts.hpp spank/facts.cpp spank/env.hpp spank/env.cpp spank/record.hpp spank/record.cpp \
	spank/userfile.hpp spank/userfile.cpp
spank_libatoll_spankcore_la_CPPFLAGS = $(AM_CPPFLAGS) $(HWLOC_CFLAGS) $(JSON_CFLAGS)

# Slurm's PluginDir (configure --with-slurm-plugindir; the default is the
# installed Slurm's). Slurm loads the .so by path: the libtool archives are
# removed after install, as for Slurm's own plugins.
plugindir = @SLURM_PLUGINDIR@
plugin_LTLIBRARIES = spank/atoll.la
spank_atoll_la_SOURCES = spank/atoll.c spank/glue.h spank/glue.cpp
spank_atoll_la_CPPFLAGS = $(AM_CPPFLAGS) $(SLURM_CFLAGS) $(JSON_CFLAGS)
spank_atoll_la_LDFLAGS = -module -avoid-version -shared -Wl,--version-script=$(top_srcdir)/spank/atoll.map
spank_atoll_la_LIBADD = spank/libatoll-spankcore.la node/libatoll-nodesys.la placement/libatoll-placement.la \
	topology/libatoll-topology.la topology/libatoll-noibnetdisc.la
if STATIC_LIBSTDCXX
# Linked by the C driver so that libtool adds no shared libstdc++; the static
# one and libgcc come in whole, hidden by atoll.map (see configure.ac).
spank_atoll_la_LIBADD += $(STATIC_LIBSTDCXX) -lm
spank_atoll_la_LDFLAGS += -Wc,-static-libgcc
spank_atoll_la_LINK = $(LIBTOOL) $(AM_V_lt) --tag=CC $(AM_LIBTOOLFLAGS) $(LIBTOOLFLAGS) --mode=link $(CCLD) \
	$(AM_CFLAGS) $(CFLAGS) $(spank_atoll_la_LDFLAGS) $(LDFLAGS) -o $@
else
# the shared libstdc++ (no PIC libstdc++.a, or a sanitizer build)
spank_atoll_la_LINK = $(LIBTOOL) $(AM_V_lt) --tag=CXX $(AM_LIBTOOLFLAGS) $(LIBTOOLFLAGS) --mode=link $(CXXLD) \
	$(AM_CXXFLAGS) $(CXXFLAGS) $(spank_atoll_la_LDFLAGS) $(LDFLAGS) -o $@
endif
EXTRA_DIST += spank/atoll.map

# hwloc, loaded by atoll.so from its own directory only where hwloc_xml= asks
# for GPU affinity: srun and slurmstepd never load it otherwise.
plugin_LTLIBRARIES += spank/atoll-hwloc.la
spank_atoll_hwloc_la_SOURCES = node/gpu_hca.h node/gpu_hca.c
spank_atoll_hwloc_la_CPPFLAGS = $(AM_CPPFLAGS) $(HWLOC_CFLAGS)
spank_atoll_hwloc_la_LDFLAGS = -module -avoid-version -shared -export-symbols-regex '^atl_gpu_hcas3$$'
spank_atoll_hwloc_la_LIBADD = $(HWLOC_LIBS)

install-data-hook: atoll-remove-la
atoll-remove-la:
	rm -f $(DESTDIR)$(plugindir)/atoll.la $(DESTDIR)$(plugindir)/atoll-hwloc.la
uninstall-hook:
	rm -f $(DESTDIR)$(plugindir)/atoll.so $(DESTDIR)$(plugindir)/atoll-hwloc.so
.PHONY: atoll-remove-la
