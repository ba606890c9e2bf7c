# slurm/: what atoll asks Slurm for an island request (constraint, switches,
# atoll-widen mark, refusal), the one author of it, and the trace replay
# that schedules as Slurm does with those requests. Depends on placement/.
noinst_LTLIBRARIES += slurm/libatoll-slurm.la
slurm_libatoll_slurm_la_SOURCES = slurm/ask.hpp slurm/ask.cpp slurm/simulate.hpp slurm/simulate.cpp
slurm_libatoll_slurm_la_CPPFLAGS = $(AM_CPPFLAGS) $(JSON_CFLAGS)
