/* The C side of the atoll SPANK plugin calls these; they are C++ behind a
 * noexcept boundary: no exception crosses into Slurm. */
#ifndef ATOLL_SPANK_GLUE_H
#define ATOLL_SPANK_GLUE_H

#include <stddef.h>
#include <slurm/spank.h>

#ifdef __cplusplus
extern "C" {
#endif

enum atl_opt { ATL_OPT_ISLAND = 1, ATL_OPT_ENV, ATL_OPT_SHARP, ATL_OPT_EXPLAIN, ATL_OPT_RANKS };

/* plugstack.conf arguments. A bad one is logged naming the key; at submit
 * (submit nonzero) it returns -1, elsewhere 0 with atoll doing nothing: a step
 * or slurmd never fails for it. */
int atl_configure(int ac, char **av, int submit);
/* an option callback; -1 (after slurm_error naming the flag) on a bad value
 * at submit; in a step (remote) a bad value is logged and ignored */
int atl_option(int which, const char *value, int remote);
/* init_post_opt on the submit side: record the island request for job_submit.lua */
int atl_submit(spank_t sp);
/* user_init in slurmstepd: this node's fabric environment */
int atl_node(spank_t sp);
/* task_init: the task's own variables (its nearest HCA), and --fabric-env=show */
int atl_task(spank_t sp);

#ifdef __cplusplus
}
#endif
#endif
