// The SPANK entry points in C++: every function catches everything and turns
// it into a logged error or warning; none lets an exception reach Slurm.
#include <dlfcn.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "spank/core.hpp"
#include "spank/glue.h"
#include <slurm/slurm.h>
#include "topology/hostlist.hpp"

using namespace atl;

namespace {

PluginConfig g_cfg;
bool g_disabled = false;                // plugstack.conf arguments refused: a step does nothing
UserOptions g_opt;
std::unique_ptr<FabricView> g_fabric;   // loaded once per process
char g_fabric_error[1024];            // why g_fabric is null (fixed: set in a catch)
char g_option_error[1024];            // a refused option value Slurm must not echo (see atl_option)
bool g_fabric_tried = false;
// The job asked for atoll (a --fabric-* option; the callbacks run again in
// slurmstepd): only then does it see atoll's warnings. A job that asked for
// nothing is told nothing; slurmd's log has it.
bool g_asked = false;
// ... and for the fabric environment itself (--fabric-env, --fabric-sharp,
// --fabric-explain): a job that asked for an island alone is not told about
// its nodes' adapters (slurmd's log has it)
bool g_asked_env = false;
std::vector<EnvVar> g_node_env;         // set in user_init, shown in task_init
// Messages for the task's stderr: fixed buffers, so that a catch handler can
// set them without allocating (a bad_alloc there would end slurmstepd).
char g_warning[1024];                   // job-wide, shown once (node 0, task 0)
char g_node_warning[1024];              // this node's, shown by its task 0
StepInfo g_step;                        // this step, as user_init saw it
StepOrder g_order;                      // its nodes in topology order (user_init)
std::map<std::string, std::string> g_job_own;  // the job's own values of order_env_names, removed
std::string g_env_record;               // ATOLL_ENV_SET of this node's variables
NodeFacts g_facts;                      // what the node says of itself (sysfs, procfs, hwloc, nccl.conf)
NodeDevices g_dev;                      // the fabric's compute-rail adapters as the node names them
constexpr std::size_t max_batch_nodes = 1u << 16;  // the batch step's job node list, at most

void set_msg(char *buf, std::size_t n, const char *what) noexcept
{
    std::snprintf(buf, n, "%s", what ? what : "unexpected error");
}

void add_node_warning(const char *what) noexcept
{
    std::size_t used = std::strlen(g_node_warning);
    std::snprintf(g_node_warning + used, sizeof g_node_warning - used, "%s%s", used ? "; " : "", what);
}

// A note about the node's adapters and the environment: to the job only when
// it asked for the environment, and not again under --fabric-env=show when
// `shown` (show's own line says it); slurmd's log in every case.
void env_warning(const std::string &what, bool shown)
{
    const std::string w = one_line(what);  // sysfs names and file lines: one line, no terminal codes
    if (g_asked_env && !(shown && g_opt.env == EnvMode::Show)) {
        slurm_info("atoll: warning: %s", w.c_str());
        add_node_warning(w.c_str());
    } else if (g_asked) {
        slurm_info("atoll: warning: %s", w.c_str());
    } else {
        slurm_verbose("atoll: warning: %s", w.c_str());
    }
}

// hwloc lives in atoll-hwloc.so beside this plugin, loaded only when a node
// asks for GPU affinity (hwloc_xml=): srun and the other steps never load it.
atl_gpu_hcas_fn hwloc_module()
{
    static atl_gpu_hcas_fn fn = nullptr;
    if (fn)
        return fn;
    Dl_info self;
    if (!dladdr(reinterpret_cast<void *>(&hwloc_module), &self) || !self.dli_fname)
        throw std::runtime_error("cannot tell where atoll.so was loaded from");
    std::string path = self.dli_fname;
    path = path.substr(0, path.find_last_of('/') + 1) + "atoll-hwloc.so";
    void *h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h)
        throw std::runtime_error(std::string("cannot load ") + dlerror());
    fn = reinterpret_cast<atl_gpu_hcas_fn>(dlsym(h, "atl_gpu_hcas3"));
    if (!fn)
        throw std::runtime_error(path + " has no atl_gpu_hcas3");
    return fn;
}

const FabricView *fabric()
{
    if (!g_fabric_tried) {
        g_fabric_tried = true;
        try {
            g_fabric = load_fabric_view(g_cfg, g_cfg.fabric);
        } catch (const std::exception &e) {
            set_msg(g_fabric_error, sizeof g_fabric_error, e.what());
        } catch (...) {
            set_msg(g_fabric_error, sizeof g_fabric_error, "unexpected error reading the fabric file");
        }
    }
    return g_fabric.get();
}

std::string get(spank_t sp, const char *name)
{
    std::vector<char> buf(1 << 16);  // node lists of large, fragmented jobs are long
    if (spank_getenv(sp, name, buf.data(), static_cast<int>(buf.size())) == ESPANK_SUCCESS)
        return buf.data();
    return "";
}

bool has(spank_t sp, const char *name)
{
    char buf[1];
    spank_err_t e = spank_getenv(sp, name, buf, sizeof buf);
    return e == ESPANK_SUCCESS || e == ESPANK_NOSPACE;  // set, however long
}

// Our own failure at submit (srun, sbatch, salloc): with strict the job is
// refused: a required plugstack line fails the command here, and
// job_submit.lua refuses what an optional line lets through (ATOLL_REFUSE).
// Without strict, one warning and the job runs. Allocates nothing.
int submit_failure(spank_t sp, const char *what) noexcept
{
    if (g_cfg.strict) {
        slurm_error("atoll: %s (strict: the job is refused rather than run without atoll)", what);
        spank_job_control_setenv(sp, "ATOLL_REFUSE", what, 1);
        return -1;
    }
    // what still applies: placement (cli_filter.lua, job_submit.lua) reads
    // no view; the steps' environment does. Told on stderr (slurm_error
    // would make it "srun: error:"), and only to a job that asked.
    slurm_verbose("atoll: warning: %s", what);
    if (g_asked)
        std::fprintf(stderr, "atoll: warning: %s; the island request still applies (cli_filter.lua, job_submit.lua), "
                             "but the job's steps get no fabric environment\n", what);
    return 0;
}

// Our own failure in a job step (slurmstepd): never fails the step, strict or
// not (a failing step can drain its node); logged, and told to the job by
// its first task. Allocates nothing.
int step_failure(const char *what) noexcept
{
    set_msg(g_warning, sizeof g_warning, what);
    slurm_info("atoll: warning: %s; the step gets no fabric environment (its placement is not affected)", g_warning);
    return 0;
}

}  // namespace

extern "C" int atl_configure(int ac, char **av, int submit)
{
    try {
        std::vector<std::string> args(av, av + ac);
        g_cfg = parse_plugstack(args);
        for (const std::string &w : g_cfg.warnings)
            slurm_info("atoll: warning: %s", w.c_str());
        return 0;
    } catch (const std::exception &e) {
        slurm_error("atoll: %s%s", e.what(), submit ? "" : " (atoll does nothing in this step)");
    } catch (...) {
        slurm_error("atoll: unexpected error reading plugstack.conf arguments");
    }
    g_disabled = true;
    return submit ? -1 : 0;
}

extern "C" int atl_option(int which, const char *value, int remote)
{
    // Slurm calls us again in slurmstepd with the values checked at submit; a
    // value that did not pass through srun/sbatch is logged and ignored there:
    // a failing option would fail the step.
    bool unsafe = false;  // a value a log line must not hold as it is
    try {
        std::string v = value ? value : "";
        unsafe = escaped(v) != v;
        switch (which) {
        case ATL_OPT_ISLAND: g_opt.island = parse_island(v); break;
        case ATL_OPT_ENV: g_opt.env = parse_env_mode(v); g_asked_env = true; break;
        case ATL_OPT_SHARP: g_opt.sharp = parse_sharp_mode(v); g_asked_env = true; break;
        case ATL_OPT_EXPLAIN: g_opt.explain = true; g_asked_env = true; break;
        case ATL_OPT_RANKS:
            try {
                g_opt.par = parse_parallelism(v);
            } catch (const RankError &e) {
                throw std::invalid_argument("--fabric-ranks: " + std::string(e.what()));
            }
            g_opt.ranks = v;
            g_asked_env = true;
            break;
        default: return -1;
        }
        g_asked = true;
        return 0;
    } catch (const std::exception &e) {
        // e.what() holds the value escaped: one line, whatever the user wrote
        slurm_error("atoll: %s%s", e.what(), remote ? " (ignored in this step)" : "");
        // Slurm reports a failing callback with the value raw ("Invalid
        // --fabric-island argument: ..."), newlines and all: such a value is
        // refused in init_post_opt instead (atl_submit), before any job exists
        if (unsafe && !remote) {
            set_msg(g_option_error, sizeof g_option_error, e.what());
            return 0;
        }
    } catch (...) {
        slurm_error("atoll: unexpected error in an option");
    }
    return remote ? 0 : -1;
}

extern "C" int atl_submit(spank_t sp)
{
    if (g_option_error[0])
        return -1;  // logged by atl_option already
    try {
        if (g_disabled)
            return 0;
        // srun inside an allocation starts a step: the job is placed already.
        // An island the job asked on sbatch or salloc reaches this srun by
        // Slurm's option variable (spank_process_env_options); one asked on
        // this srun alone places nothing, and the user is told so
        if (spank_context() == S_CTX_LOCAL && std::getenv("SLURM_JOB_ID")) {
            if (g_opt.island.set) {
                const char *from_job = std::getenv("SLURM_SPANK__SLURM_SPANK_OPTION_atoll_fabric_island");
                bool same = false;
                if (from_job) {
                    try {
                        same = parse_island(from_job).str() == g_opt.island.str();
                    } catch (const std::exception &) {
                    }
                }
                if (!same)
                    std::fprintf(stderr,
                                 "atoll: --fabric-island=%s on srun inside job %s places nothing: the job's "
                                 "nodes are allocated already; ask for the island on sbatch or salloc\n",
                                 g_opt.island.str().c_str(), std::getenv("SLURM_JOB_ID"));
            }
            return 0;
        }
        IslandRequest req = g_opt.island.set ? g_opt.island : parse_island(g_cfg.default_island);
        bool wants_env = g_cfg.env && g_opt.env != EnvMode::Off;
        // strict: a job that would run without atoll's help is refused here,
        // at submit, never in a step
        if (req.none && !(g_cfg.strict && wants_env))
            return 0;
        const FabricView *f = fabric();
        if (!f && (g_cfg.strict || req.none))
            return submit_failure(sp, g_fabric_error);
        if (req.none)
            return 0;
        std::string r = req.str();
        if (spank_job_control_setenv(sp, "ATOLL_ISLAND", r.c_str(), 1) != ESPANK_SUCCESS)
            return submit_failure(sp, "cannot pass the island request to slurmctld");
        if (!f)
            return submit_failure(sp, g_fabric_error);
        if (g_opt.explain) {
            spank_job_control_setenv(sp, "ATOLL_EXPLAIN", "1", 1);
            const FabricSummary &sm = f->summary;
            std::vector<int> cap(sm.islands.size(), 0);
            for (const auto &h : sm.hosts)
                for (int i = h.second.leaf; i >= 0; i = sm.islands[static_cast<std::size_t>(i)].parent)
                    cap[static_cast<std::size_t>(i)]++;
            std::fprintf(stderr, "atoll: --fabric-island=%s on %s: ", r.c_str(), sm.source.c_str());
            for (Level l : {Level::Leaf, Level::Group, Level::Pod}) {
                int n = 0, largest = 0;
                for (std::size_t i = 0; i < sm.islands.size(); ++i)
                    if (sm.islands[i].level == l && cap[i] > 0) {
                        ++n;
                        largest = std::max(largest, cap[i]);
                    }
                std::fprintf(stderr, "%d %s islands of up to %d nodes%s", n, to_string(l), largest,
                             l == Level::Pod ? "\n" : ", ");
            }
            std::fprintf(stderr, "atoll: the constraint for the job's node count: cli_filter.lua ranks the islands on "
                                 "the idle nodes, job_submit.lua sets or keeps it\n");
        }
        return 0;
    } catch (const std::exception &e) {
        return submit_failure(sp, e.what());
    } catch (...) {
        return submit_failure(sp, "unexpected error");
    }
}

extern "C" int atl_node(spank_t sp)
{
    try {
        // the order's variables are atoll's alone: a job's own value (or an
        // earlier step's, the batch step's) goes first, whatever follows, and
        // even in a step that gets no fabric environment (--fabric-env=off):
        // set again below when atoll knows them
        g_job_own.clear();
        g_order = StepOrder();
        for (const char *n : order_env_names)
            if (has(sp, n)) {
                g_job_own[n] = get(sp, n);
                spank_unsetenv(sp, n);
            }
        if (g_disabled || !g_cfg.env || g_opt.env == EnvMode::Off)
            return 0;
        const FabricView *f = fabric();
        if (!f)
            return step_failure(g_fabric_error);
        uint32_t nodeid = 0, nnodes = 0, stepid = 0;
        spank_get_item(sp, S_JOB_NNODES, &nnodes);
        g_step = StepInfo();
        g_step.batch = nnodes == 0 ||
                       (spank_get_item(sp, S_JOB_STEPID, &stepid) == ESPANK_SUCCESS && stepid == SLURM_BATCH_SCRIPT);
        if (g_step.batch) {
            // the job script runs on the job's first node; its variables
            // describe the job (no per-GPU ones); its srun steps recompute
            g_step.nodes = expand_hostlist(get(sp, "SLURM_JOB_NODELIST"), max_batch_nodes);
            if (!g_step.nodes.empty())
                g_step.node = g_step.nodes[0];
        } else {
            // this node's index in the step's node list, read no further than
            // S_JOB_NNODES names (the list comes from the user's srun)
            if (spank_get_item(sp, S_JOB_NODEID, &nodeid) != ESPANK_SUCCESS || nodeid >= nnodes)
                return step_failure("cannot tell which node of the step this is");
            try {
                g_step.nodes = expand_hostlist(get(sp, "SLURM_STEP_NODELIST"), nnodes);
            } catch (const std::exception &) {
                // a heterogeneous step's components share one node list but
                // each counts only its own nodes: no order atoll could trust
                if (!has(sp, "SLURM_HET_SIZE"))
                    throw;
                return step_failure("a heterogeneous step: its components' nodes are not told apart in "
                                    "SLURM_STEP_NODELIST (run each component as its own step for a fabric environment)");
            }
            if (g_step.nodes.size() != nnodes)
                return step_failure("the step's node list does not have the step's node count");
            g_step.node = g_step.nodes[nodeid];
            // the step's layout from slurmstepd's own counts, and srun's
            // SLURM_STEP_TASKS_PER_NODE (srun sets it over any job value)
            uint32_t total = 0, local = 0;
            spank_get_item(sp, S_JOB_TOTAL_TASK_COUNT, &total);
            spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &local);
            g_step.tasks_per_node = uniform_tasks_per_node(nnodes, total, local, get(sp, "SLURM_STEP_TASKS_PER_NODE"),
                                                           g_step.layout_why);
        }
        if (g_step.node.empty())
            return step_failure("cannot tell which node this is");
        // what an earlier step of atoll set, unchanged since, is recomputed;
        // what the user changed since is the user's
        g_step.atoll_set = atoll_unchanged(get(sp, "ATOLL_ENV_SET"), [&](const std::string &n) -> std::optional<std::string> {
            auto own = g_job_own.find(n);
            if (own != g_job_own.end())
                return own->second;
            if (!has(sp, n.c_str()))
                return std::nullopt;
            return get(sp, n.c_str());
        });
        // the user's nccl.conf where NCCL looks for it: HOME (2.30 and
        // later) and the passwd entry's home (before)
        auto env_of = [&](const char *n) { return has(sp, n) ? std::optional<std::string>(get(sp, n)) : std::nullopt; };
        std::optional<std::string> pw_home;
        std::string pw_problem;
        uid_t job_uid = 0;
        if (!(env_of("NCCL_CONF_FILE").value_or("").size()) && spank_get_item(sp, S_JOB_UID, &job_uid) == ESPANK_SUCCESS)
            pw_home = passwd_home_bounded(job_uid, pw_problem);
        NcclUserFiles conf = nccl_user_files(env_of("NCCL_CONF_FILE"), env_of("HOME"), pw_home, pw_problem);
        // and its ucx.conf files (HOME, UCX_CONFIG_DIR; ./ucx.conf is the task's)
        UcxUserFiles ucx = ucx_user_files(env_of("HOME"), env_of("UCX_CONFIG_DIR"));
        g_facts = read_node_facts(*f, g_cfg, g_step.node, conf, g_dev, ucx);
        if (!g_cfg.hwloc_xml.empty() && !g_step.batch && g_dev.usable) {
            std::string xml = per_node_path(g_cfg.hwloc_xml, g_step.node);
            try {
                g_facts.gpu_hcas = gpu_hca_pairs(hwloc_module(), xml, g_dev.active, g_cfg.owner, &g_facts.hwloc_hcas);
            } catch (const std::exception &e) {
                std::snprintf(g_warning, sizeof g_warning, "no GPU-to-HCA map: %s", e.what());
                slurm_info("atoll: %s", g_warning);
                if (!g_asked)
                    g_warning[0] = 0;
            }
        }
        // IMEX channels, where this node is in an NVLink domain and the step
        // has another node (order_env() judges them only then)
        auto me = f->summary.hosts.find(g_step.node);
        if (me != f->summary.hosts.end() && me->second.domain >= 0 && g_step.nodes.size() > 1) {
            uid_t uid = 0;
            gid_t gid = 0;
            gid_t *gids = nullptr;
            int ngids = 0;
            std::vector<gid_t> groups;
            if (spank_get_item(sp, S_JOB_UID, &uid) == ESPANK_SUCCESS && spank_get_item(sp, S_JOB_GID, &gid) == ESPANK_SUCCESS) {
                if (spank_get_item(sp, S_JOB_SUPPLEMENTARY_GIDS, &gids, &ngids) == ESPANK_SUCCESS && gids)
                    groups.assign(gids, gids + std::max(0, std::min(ngids, 65536)));
                std::string problem;
                g_facts.imex = read_imex_bounded(g_cfg, g_step.node, uid, gid, groups, problem);
                g_facts.imex_read = true;
                if (!problem.empty())
                    g_facts.problems.push_back(problem);
            }
        }
        auto user_has = [&](const std::string &n) { return g_job_own.count(n) || has(sp, n.c_str()); };
        g_order = step_order(f->summary, g_step);
        if (!g_opt.ranks.empty())
            plan_step_ranks(f->summary, g_step, g_opt.par, g_opt.ranks, g_order);
        g_node_env = node_env(*f, g_cfg, g_opt, g_step, g_facts, user_has);
        std::set<std::string> mine;
        for (EnvVar &v : g_node_env) {
            if (v.kept && v.why.rfind("set in ", 0) != 0)
                v.value = get(sp, v.name.c_str());  // shown as the user has it
            if (v.set && !v.kept) {
                spank_setenv(sp, v.name.c_str(), v.value.c_str(), 1);
                mine.insert(v.name);
            }
            // (an nccl.conf atoll could not read is warned below, once)
            if (!v.set && v.name == "NCCL_IB_HCA" && v.why != g_facts.nccl_conf_unknown) {
                std::string w = g_step.node + ": NCCL_IB_HCA not set: " + v.why;
                env_warning(w, true);
            }
        }
        // an earlier step's values that this step does not set go, and a
        // (ATOLL_RANK: task_init)
        for (const std::string &n : g_step.atoll_set)
            if (!mine.count(n) && n != "UCX_NET_DEVICES" && n != "ATOLL_RANK")
                spank_unsetenv(sp, n.c_str());
        for (const std::string &w : user_value_problems(g_facts, g_dev, g_node_env))
            env_warning(g_step.node + ": " + w, true);
        g_env_record = env_set_record(g_node_env);
        std::vector<std::string> problems = g_facts.problems;  // the user's files not read in time
        if (!g_facts.ports.empty())
            problems.insert(problems.end(), g_dev.problems.begin(), g_dev.problems.end());
        for (const std::string &w : problems)
            env_warning(g_step.node + ": " + w, false);
        return 0;
    } catch (const std::exception &e) {
        return step_failure(e.what());
    } catch (...) {
        return step_failure("unexpected error");
    }
}

namespace {

// --fabric-explain: where the step landed, told by its first task
void landed() noexcept
{
    try {
        std::string island, leaves, hops, domains, order_why;
        for (const EnvVar &v : g_node_env) {
            if (v.name == "ATOLL_ISLAND" && v.set) island = v.value;
            if (v.name == "ATOLL_LEAVES" && v.set) leaves = v.value;
            if (v.name == "ATOLL_HOPS" && v.set) hops = v.value;
            if (v.name == "ATOLL_DOMAINS" && v.set) domains = v.value;
            if (v.name == "ATOLL_NODE_ORDER" && !v.set) order_why = v.why;
        }
        std::size_t n = g_step.nodes.size();
        std::string where = g_step.nodes.empty() ? std::string("?") : g_step.nodes[0] + (n > 1 ? ", ..." : "");
        if (!island.empty())
            std::fprintf(stderr, "atoll: the %s landed on %zu node%s (%s): island %s, leaves %s, %s hops\n",
                         g_step.batch ? "job" : "step", n, n == 1 ? "" : "s", where.c_str(), island.c_str(),
                         leaves.c_str(), hops.c_str());
        else if (n)
            std::fprintf(stderr, "atoll: the %s landed on %zu node%s (%s): its island is not known\n",
                         g_step.batch ? "job" : "step", n, n == 1 ? "" : "s", where.c_str());
        if (!domains.empty())
            std::fprintf(stderr, "atoll: NVLink domains %s\n", domains.c_str());
        if (!order_why.empty())
            std::fprintf(stderr, "atoll: no topology order (ATOLL_NODE_ORDER, ATOLL_NODE_RANK, ATOLL_RANK): %s\n",
                         order_why.c_str());
    } catch (...) {
    }
}

}  // namespace

extern "C" int atl_task(spank_t sp)
{
    try {
        int local = -1;
        spank_get_item(sp, S_TASK_ID, &local);
        uint32_t nodeid = 0;
        spank_get_item(sp, S_JOB_NODEID, &nodeid);
        if (g_warning[0] && local == 0 && nodeid == 0 && g_asked)
            std::fprintf(stderr, "atoll: warning: %s%s\n", g_warning,
                         g_fabric ? "" : "; the step gets no fabric environment (its placement is not affected)");
        if (g_node_warning[0] && local == 0)
            std::fprintf(stderr, "atoll: warning: %s\n", g_node_warning);
        if (g_opt.explain && local == 0 && nodeid == 0)
            landed();
        if (g_disabled || !g_cfg.env || g_opt.env == EnvMode::Off || !g_fabric || g_step.node.empty())
            return 0;
        auto user_has = [&](const std::string &n) { return has(sp, n.c_str()); };
        std::vector<EnvVar> mine = task_env(g_cfg, g_facts, g_dev, g_step, get(sp, "CUDA_VISIBLE_DEVICES"),
                                            get(sp, "SLURM_STEP_GPUS"), user_has);
        // the task's global rank in atoll's order: always atoll's (a job's
        // own ATOLL_RANK is replaced or removed, never read)
        EnvVar rank = task_rank(g_order, g_step, local);
        bool own = g_job_own.count("ATOLL_RANK") > 0;  // removed in user_init
        if (rank.set)
            spank_setenv(sp, rank.name.c_str(), rank.value.c_str(), 1);
        if (own)
            rank.why += rank.set ? "; the job's own value replaced" : "; the job's own value removed";
        // ./ucx.conf: UCX reads it from the task's working directory, the
        // step's here (slurmstepd changes to it before forking the task), and
        // atoll's variables in the environment would override it
        std::vector<EnvVar> node_vars = g_node_env;
        std::string record = g_env_record;
        auto ucx_ours = [](const std::vector<EnvVar> &vs) {
            return std::any_of(vs.begin(), vs.end(), [](const EnvVar &v) { return v.set && !v.kept && v.name.rfind("UCX_", 0) == 0; });
        };
        if (ucx_ours(node_vars) || ucx_ours(mine)) {
            std::vector<std::string> problems;
            NcclConfVars cwd = ucx_conf_vars({}, {"ucx.conf"}, problems);  // relative: the reader child's working directory
            std::vector<std::string> gone = leave_to_cwd_ucx_conf(node_vars, cwd.vars, cwd.unknown, g_cfg.roce_tc >= 0);
            leave_to_cwd_ucx_conf(mine, cwd.vars, cwd.unknown, g_cfg.roce_tc >= 0);
            for (const std::string &n : gone)
                spank_unsetenv(sp, n.c_str());
            for (const EnvVar &v : node_vars)
                if (!gone.empty() && v.name == "ATOLL_ENV_SET" && v.set) {
                    record = v.value;
                    spank_setenv(sp, "ATOLL_ENV_SET", record.c_str(), 1);
                }
            if (!cwd.unknown.empty() && local == 0)
                std::fprintf(stderr, "atoll: warning: %s: %s\n", g_step.node.c_str(), cwd.unknown.c_str());
        }
        for (EnvVar &v : mine) {
            if (v.kept)
                v.value = get(sp, v.name.c_str());
            if (v.set && !v.kept) {
                spank_setenv(sp, v.name.c_str(), v.value.c_str(), 1);
                spank_setenv(sp, "ATOLL_ENV_SET", env_set_add(record, v).c_str(), 1);
            } else if (!v.set && g_step.atoll_set.count(v.name)) {
                spank_unsetenv(sp, v.name.c_str());
            }
        }
        if (g_opt.env == EnvMode::Show) {
            std::vector<EnvVar> all = node_vars;
            all.insert(all.end(), mine.begin(), mine.end());
            all.push_back(rank);
            for (const EnvVar &v : all)
                std::fprintf(stderr, "atoll: %s task %d: %s\n", g_step.node.c_str(), local, describe(v).c_str());
            if (local == 0 && !g_order.order.empty() && !g_step.batch) {
                // Slurm's order: SLURM_NODEID is the step's node list order;
                // its task ids follow it (block), or on 26.05 the topology's
                // node ranks (slurm_step_layout.c _task_layout_topo)
                std::string d = slurm_order_note(g_step, g_order);
                uint32_t gid = 0;
                std::string tasks;
                if (spank_get_item(sp, S_TASK_GLOBAL_ID, &gid) == ESPANK_SUCCESS && g_step.tasks_per_node > 0) {
                    // atoll's rank of this task (local id 0): the plan's, or the order's
                    long long mine0 = !g_order.task_ranks.empty() ? g_order.task_ranks[0]
                                                                  : static_cast<long long>(g_order.node_rank) * g_step.tasks_per_node;
                    tasks = "; its first task is Slurm's rank " + std::to_string(gid) + ", atoll's " + std::to_string(mine0) +
                            (gid == static_cast<unsigned long long>(mine0) ? " (the same)" : " (different)");
                }
                std::fprintf(stderr, "atoll: %s: Slurm's node order (SLURM_NODEID) %s atoll's%s%s%s\n", g_step.node.c_str(),
                             d.empty() ? "agrees with" : "differs from", d.empty() ? "" : ": ", d.c_str(), tasks.c_str());
            }
            // an expected cloud profile missing (--fabric-env=show only: a
            // job that asked for nothing is told nothing)
            if (local == 0)
                for (const CloudFinding &c : g_facts.cloud_findings)
                    if (c.level == CloudFinding::Warning || c.level == CloudFinding::Error)
                        std::fprintf(stderr, "atoll: %s: note: %s (%s): %s\n", g_step.node.c_str(), c.check.c_str(),
                                     c.level == CloudFinding::Error ? "error" : "warning", c.message.c_str());
        }
        return 0;
    } catch (...) {
        return 0;  // a task never fails for our environment
    }
}
