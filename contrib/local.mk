# contrib/: what an admin installs beside Slurm's own configuration. The Lua
# hooks and the plugstack line carry the configured paths (atoll_subst in
# Makefile.am): the sources hold @bindir@-style names, the build writes
# contrib/gen/. The hooks go to $(datadir)/atoll, to be copied next to
# slurm.conf; atoll.conf to Slurm's plugstack.conf.d/ with its line commented
# out (Debian's plugstack.conf includes plugstack.conf.d/*.conf).
atollcontribdir = $(datadir)/atoll
atollcontrib_DATA = contrib/gen/job_submit.lua contrib/gen/cli_filter.lua
plugstackdir = $(slurmconfdir)/plugstack.conf.d
plugstack_DATA = contrib/gen/atoll.conf
EXTRA_DIST += contrib/job_submit.lua contrib/cli_filter.lua contrib/plugstack.conf.d/atoll.conf
CLEANFILES += $(atollcontrib_DATA) $(plugstack_DATA)
contrib/gen/%.lua: contrib/%.lua Makefile
	$(AM_V_GEN)$(MKDIR_P) contrib/gen && $(atoll_subst) $< > $@.tmp && mv $@.tmp $@
contrib/gen/atoll.conf: contrib/plugstack.conf.d/atoll.conf Makefile
	$(AM_V_GEN)$(MKDIR_P) contrib/gen && $(atoll_subst) $< > $@.tmp && mv $@.tmp $@
# atoll-widen carries the release for --version
sbin_SCRIPTS = contrib/gen/atoll-widen
EXTRA_DIST += contrib/atoll-widen
CLEANFILES += contrib/gen/atoll-widen
contrib/gen/atoll-widen: contrib/atoll-widen Makefile
	$(AM_V_GEN)$(MKDIR_P) contrib/gen && $(atoll_subst) $< > $@.tmp && chmod +x $@.tmp && mv $@.tmp $@
