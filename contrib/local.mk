# contrib/: what an admin installs beside Slurm's own configuration.
atollcontribdir = $(datadir)/atoll
dist_atollcontrib_DATA = contrib/job_submit.lua contrib/cli_filter.lua contrib/plugstack.conf.d/atoll.conf
dist_sbin_SCRIPTS = contrib/atoll-widen
