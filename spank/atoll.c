/* atoll SPANK plugin: the ABI Slurm sees. Everything else is C++ behind glue.h. */
#include <stddef.h>
#include <slurm/slurm_errno.h>
#include <slurm/slurm_version.h>
#include <slurm/spank.h>

#include "spank/glue.h"

SPANK_PLUGIN(atoll, 1);

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(25, 5, 0)
/* Slurm 25.05 and later drain the node when a required plugin's
 * slurm_spank_init fails in slurmd or a job step, unless the plugin says the
 * job is at fault. atoll's returns 0 there whatever happens (a fault of ours
 * turns atoll off in the step); this is the second line: never a node. */
int slurm_spank_init_failure_mode = ESPANK_JOB_FAILURE;
#endif

static int opt_island(int val, const char *optarg, int remote)
{
    (void)val;
    return atl_option(ATL_OPT_ISLAND, optarg, remote);
}
static int opt_env(int val, const char *optarg, int remote)
{
    (void)val;
    return atl_option(ATL_OPT_ENV, optarg, remote);
}
static int opt_sharp(int val, const char *optarg, int remote)
{
    (void)val;
    return atl_option(ATL_OPT_SHARP, optarg, remote);
}
static int opt_explain(int val, const char *optarg, int remote)
{
    (void)val;
    return atl_option(ATL_OPT_EXPLAIN, optarg, remote);
}

static int opt_ranks(int val, const char *optarg, int remote)
{
    (void)val;
    return atl_option(ATL_OPT_RANKS, optarg, remote);
}

static struct spank_option atoll_options[] = {
    {"fabric-island", "LEVEL",
     "[atoll] Run in one fabric island: auto, none, or domain, leaf, group or pod, with :required (default) or "
     ":preferred (wait a bounded time, then widen)",
     1, 0, opt_island},
    {"fabric-env", "MODE",
     "[atoll] NCCL/UCX fabric environment for each task: auto (default), off, or show (print what was set and "
     "why)",
     1, 0, opt_env},
    {"fabric-sharp", "MODE", "[atoll] SHARP in-network reduction (NCCL CollNet): auto (default), on or off", 1, 0,
     opt_sharp},
    {"fabric-explain", NULL, "[atoll] Explain the island request at submit", 0, 0, opt_explain},
    {"fabric-ranks", "SPEC",
     "[atoll] ATOLL_RANK from a training job's parallelism, one task per GPU: tp=N[,cp=N][,ep=N][,pp=N][,dp=N]"
     "[,order=tp-cp-ep-dp-pp] (Megatron-Core's groups kept in a node or NVLink domain; atoll-place ranks)",
     1, 0, opt_ranks},
    SPANK_OPTIONS_TABLE_END};

int slurm_spank_init(spank_t sp, int ac, char **av)
{
    spank_context_t ctx = spank_context();
    int submit = ctx == S_CTX_LOCAL || ctx == S_CTX_ALLOCATOR;
    /* Only srun, sbatch and salloc may fail: never slurmd or a job step. */
    if (atl_configure(ac, av, submit) != 0)
        return -1;
    if (!submit && ctx != S_CTX_REMOTE)
        return 0;
    for (struct spank_option *o = atoll_options; o->name; o++)
        if (spank_option_register(sp, o) != ESPANK_SUCCESS) {
            slurm_error("atoll: cannot register --%s", o->name);
            return submit ? -1 : 0;
        }
    return 0;
}

int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
    (void)ac;
    (void)av;
    spank_context_t ctx = spank_context();
    if (ctx == S_CTX_LOCAL || ctx == S_CTX_ALLOCATOR)
        return atl_submit(sp);
    return 0;
}

/* In slurmstepd: these always return 0 (see glue.h). */
int slurm_spank_user_init(spank_t sp, int ac, char **av)
{
    (void)ac;
    (void)av;
    atl_node(sp);
    return 0;
}

int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
    (void)ac;
    (void)av;
    atl_task(sp);
    return 0;
}
