// The SPANK entry points in C++: every function catches everything and turns
// it into a logged error or warning; none lets an exception reach Slurm.
#include <dlfcn.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "spank/core.hpp"
#include "spank/glue.h"
#include "topology/hostlist.hpp"

using namespace atl;

namespace {

PluginConfig g_cfg;
UserOptions g_opt;
std::unique_ptr<FabricView> g_fabric;   // loaded once per process
std::string g_fabric_error;
bool g_fabric_tried = false;
std::vector<EnvVar> g_node_env;         // set in user_init, shown in task_init
std::string g_node, g_warning, g_node_warning;  // job-wide (shown once) and this node's
std::vector<GpuHca> g_gpus;
std::vector<std::pair<std::string, int>> g_hcas;  // this node's compute-rail HCAs and ports

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
    fn = reinterpret_cast<atl_gpu_hcas_fn>(dlsym(h, "atl_gpu_hcas"));
    if (!fn)
        throw std::runtime_error(path + " has no atl_gpu_hcas");
    return fn;
}

const FabricView *fabric()
{
    if (!g_fabric_tried) {
        g_fabric_tried = true;
        try {
            g_fabric = load_fabric_view(g_cfg, g_cfg.fabric);
        } catch (const std::exception &e) {
            g_fabric_error = e.what();
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

// Our own failure: one warning and the job runs, or with strict an error.
int our_failure(const std::string &what, bool user_visible_now)
{
    if (g_cfg.strict) {
        slurm_error("atoll: %s (strict: refusing to run without the fabric)", what.c_str());
        return -1;
    }
    if (user_visible_now)
        slurm_error("atoll: warning: %s; the job runs without atoll's help", what.c_str());
    else
        slurm_info("atoll: warning: %s; the job runs without atoll's help", what.c_str());
    return 0;
}

}  // namespace

extern "C" int atl_configure(int ac, char **av)
{
    try {
        std::vector<std::string> args(av, av + ac);
        g_cfg = parse_plugstack(args);
        return 0;
    } catch (const std::exception &e) {
        slurm_error("atoll: %s", e.what());
    } catch (...) {
        slurm_error("atoll: unexpected error reading plugstack.conf arguments");
    }
    return -1;
}

extern "C" int atl_option(int which, const char *value, int remote)
{
    (void)remote;  // Slurm calls us again in slurmstepd: same values, same result
    try {
        std::string v = value ? value : "";
        switch (which) {
        case ATL_OPT_ISLAND: g_opt.island = parse_island(v); break;
        case ATL_OPT_ENV: g_opt.env = parse_env_mode(v); break;
        case ATL_OPT_SHARP: g_opt.sharp = parse_sharp_mode(v); break;
        case ATL_OPT_EXPLAIN: g_opt.explain = true; break;
        default: return -1;
        }
        return 0;
    } catch (const std::exception &e) {
        slurm_error("atoll: %s", e.what());
    } catch (...) {
        slurm_error("atoll: unexpected error in an option");
    }
    return -1;
}

extern "C" int atl_submit(spank_t sp)
{
    try {
        // srun inside an allocation starts a step: the job is placed already
        if (spank_context() == S_CTX_LOCAL && std::getenv("SLURM_JOB_ID"))
            return 0;
        IslandRequest req = g_opt.island.set ? g_opt.island : parse_island(g_cfg.default_island);
        if (req.none)
            return 0;
        const FabricView *f = fabric();
        if (!f)
            return our_failure(g_fabric_error, true);
        std::string r = req.str();
        if (spank_job_control_setenv(sp, "ATOLL_ISLAND", r.c_str(), 1) != ESPANK_SUCCESS ||
            spank_job_control_setenv(sp, "ATOLL_POLICY", g_cfg.policy.c_str(), 1) != ESPANK_SUCCESS ||
            spank_job_control_setenv(sp, "ATOLL_ISLAND_WAIT", std::to_string(g_cfg.island_wait).c_str(), 1) !=
                ESPANK_SUCCESS ||
            spank_job_control_setenv(sp, "ATOLL_LEAF_WAIT", std::to_string(g_cfg.leaf_wait_s()).c_str(), 1) !=
                ESPANK_SUCCESS)
            return our_failure("cannot pass the island request to slurmctld", true);
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
        return our_failure(e.what(), true);
    } catch (...) {
        return our_failure("unexpected error", true);
    }
}

extern "C" int atl_node(spank_t sp)
{
    try {
        if (!g_cfg.env || g_opt.env == EnvMode::Off)
            return 0;
        const FabricView *f = fabric();
        if (!f) {
            g_warning = g_fabric_error;
            return our_failure(g_fabric_error, false);
        }
        // which node am I: S_JOB_NODEID in the step's node list, else SLURMD_NODENAME
        std::string list = get(sp, "SLURM_STEP_NODELIST");
        if (list.empty())
            list = get(sp, "SLURM_JOB_NODELIST");
        std::vector<std::string> step_nodes = list.empty() ? std::vector<std::string>{} : expand_hostlist(list);
        uint32_t nodeid = 0, nnodes = 0;
        spank_get_item(sp, S_JOB_NNODES, &nnodes);
        if (nnodes > 0 && spank_get_item(sp, S_JOB_NODEID, &nodeid) == ESPANK_SUCCESS && nodeid < step_nodes.size())
            g_node = step_nodes[nodeid];
        else
            g_node = get(sp, "SLURMD_NODENAME");
        std::string job_list = get(sp, "SLURM_JOB_NODELIST");
        std::vector<std::string> job_nodes = job_list.empty() ? step_nodes : expand_hostlist(job_list);
        if (g_node.empty()) {
            g_warning = "cannot tell which node this is";
            return our_failure(g_warning, false);
        }
        g_node_env = node_env(*f, g_cfg, g_opt, job_nodes, g_node, [&](const std::string &n) { return has(sp, n.c_str()); });
        for (const EnvVar &v : g_node_env)
            if (!v.kept)
                spank_setenv(sp, v.name.c_str(), v.value.c_str(), 0);
        for (const std::string &w : roce_gid_warnings(*f, g_cfg, g_node)) {
            slurm_info("atoll: warning: %s", w.c_str());
            g_node_warning += (g_node_warning.empty() ? "" : "; ") + w;
        }
        if (!g_cfg.hwloc_xml.empty()) {
            std::string xml = per_node_path(g_cfg.hwloc_xml, g_node);
            try {
                g_hcas = compute_hcas(*f, g_cfg, g_node);
                g_gpus = gpu_hca_pairs(hwloc_module(), xml, g_hcas);
            } catch (const std::exception &e) {
                g_warning = std::string("no GPU-to-HCA map: ") + e.what();
                slurm_info("atoll: %s", g_warning.c_str());
            }
        }
        return 0;
    } catch (const std::exception &e) {
        g_warning = e.what();
        return our_failure(e.what(), false);
    } catch (...) {
        g_warning = "unexpected error";
        return our_failure(g_warning, false);
    }
}

extern "C" int atl_task(spank_t sp)
{
    try {
        int local = -1;
        spank_get_item(sp, S_TASK_ID, &local);
        uint32_t nodeid = 0;
        spank_get_item(sp, S_JOB_NODEID, &nodeid);
        if (!g_warning.empty() && local == 0 && nodeid == 0)
            std::fprintf(stderr, "atoll: warning: %s%s\n", g_warning.c_str(),
                         g_fabric ? "" : "; the job runs without atoll's help");
        if (!g_node_warning.empty() && local == 0)
            std::fprintf(stderr, "atoll: warning: %s\n", g_node_warning.c_str());
        if (!g_cfg.env || g_opt.env == EnvMode::Off || !g_fabric)
            return 0;
        std::vector<EnvVar> mine;
        if (!g_gpus.empty() && !has(sp, "UCX_NET_DEVICES")) {
            int gpu = task_gpu(get(sp, "CUDA_VISIBLE_DEVICES"), get(sp, "SLURM_STEP_GPUS"), local,
                               static_cast<int>(g_gpus.size()));
            if (gpu >= 0 && gpu < static_cast<int>(g_gpus.size()) && !g_gpus[static_cast<std::size_t>(gpu)].hca.empty()) {
                const GpuHca &gh = g_gpus[static_cast<std::size_t>(gpu)];
                int port = 1;
                for (const auto &hp : g_hcas)
                    if (hp.first == gh.hca)
                        port = hp.second;
                std::string v = gh.hca + ":" + std::to_string(port);
                spank_setenv(sp, "UCX_NET_DEVICES", v.c_str(), 0);
                mine.push_back({"UCX_NET_DEVICES", v, "nearest HCA to GPU " + std::to_string(gpu) + " (" + gh.gpu_busid +
                                                          ", " + gh.distance + ")", false});
            }
        } else if (has(sp, "UCX_NET_DEVICES")) {
            mine.push_back({"UCX_NET_DEVICES", get(sp, "UCX_NET_DEVICES"), "", true});
        }
        if (g_opt.env == EnvMode::Show) {
            std::vector<EnvVar> all = g_node_env;
            all.insert(all.end(), mine.begin(), mine.end());
            for (const EnvVar &v : all)
                std::fprintf(stderr, "atoll: %s task %d: %s=%s (%s)\n", g_node.c_str(), local, v.name.c_str(),
                             v.value.c_str(), v.kept ? "set by the user, kept" : v.why.c_str());
        }
        return 0;
    } catch (...) {
        return 0;  // a task never fails for our environment
    }
}
