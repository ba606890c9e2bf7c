// libFuzzer harnesses for every reader of atoll and the view file the plugin
// reads as root. One source: fuzz_one(target, bytes) is the harness; built
// with -DATOLL_FUZZ_LIBFUZZER it is the libFuzzer program of every target
// (run as fuzz-NAME, a link to it), built with
// -DATOLL_FUZZ_REPLAY a program that runs files through any target (the
// regression inputs in make check). A harness may throw atl::InputError (or
// std::invalid_argument / std::runtime_error naming the input): that is a
// clear error. Anything else, a crash, a sanitizer report or a hang, is a bug.
#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>

#include "node/cloudenv.hpp"
#include "node/health.hpp"
#include "node/imex.hpp"
#include "node/ncclconf.hpp"
#include "node/ucxconf.hpp"
#include "placement/cluster.hpp"
#include "placement/policy.hpp"
#include "slurm/ask.hpp"
#include "slurm/simulate.hpp"
#include "spank/config.hpp"
#include "placement/trace.hpp"
#include "placement/view.hpp"
#include "topology/check.hpp"
#include "topology/cloud.hpp"
#include "topology/csv.hpp"
#include "topology/generate.hpp"
#include "topology/hostlist.hpp"
#include "topology/ibnetdiscover.hpp"
#include "topology/json.hpp"
#include "topology/lldp.hpp"
#include "topology/nodehealth.hpp"
#include "topology/nvlink.hpp"
#include "placement/ranks.hpp"
#include "topology/report.hpp"
#include "topology/slurm.hpp"
#include "topology/topology.hpp"

using namespace atl;

namespace {

// what a tool does after reading: analysis and every writer
void downstream(const Fabric &f)
{
    Topology t = analyse(f);
    check(t);
    std::ostringstream o;
    write_topology_tree(o, t);
    write_features_conf(o, t, "");
    write_scontrol_updates(o, t, {});
    Cluster c(t);
    write_islands(o, c);
    write_summary(o, summarise(t, c));
    save_fabric_json(o, t);
}

// The report of a fabric read from the bytes, with the bytes also as its
// source name, a health result and a Slurm file: every one must come out
// escaped. Anything of the input reaching the page raw is a bug (abort).
void report_of(const std::string &bytes)
{
    std::istringstream in(bytes);
    Fabric f = parse_ibnetdiscover(in, "fuzz.txt");
    f.source = bytes.substr(0, 200);
    f.unhealthy = {bytes.substr(0, 200)};
    Topology t = analyse(f);
    std::ostringstream o;
    write_report(o, t, check(t), {{bytes, bytes, bytes}}, "fuzz");
    const std::string html = o.str();
    std::size_t styles = 0;
    for (std::size_t p = html.find("</style>"); p != std::string::npos; p = html.find("</style>", p + 1))
        ++styles;
    bool ascii = std::all_of(html.begin(), html.end(), [](char c) { return c == '\n' || c == '\t' || (c >= 0x20 && c < 0x7f); });
    if (!ascii || styles != 1 || html.find("<script") != std::string::npos || html.find("<SCRIPT") != std::string::npos)
        std::abort();
}

// a trace replayed as the simulator does, EASY and as Slurm schedules
void simulate_trace(const std::vector<Job> &trace)
{
    static const Topology t = [] {
        GenSpec g;
        g.groups_per_pod = 2;
        g.hosts_per_group = 4;
        return analyse(generate(g));
    }();
    static const Cluster c(t);
    SimOptions opt;
    opt.max_jobs = 50;
    opt.island_wait = 30;
    auto p = make_policy("atoll", c);
    simulate(c, trace, *p, opt);  // a host in two jobs at once throws logic_error: a finding
    opt.required = true;
    simulate(c, trace, *p, opt);
    opt.required = false;
    opt.conservative = true;
    opt.bf_reserve = 2;
    simulate(c, trace, *p, opt);
    opt.bf_reserve = 0;
    opt.bf_interval = 5;
    opt.min_age_reserve = 10;
    opt.span_slowdown = 0.5;
    opt.required = true;
    auto q = make_policy("slurm-tree", c);
    simulate(c, trace, *q, opt);
}

// what atoll-topo health does with a port's QoS and counters
void health_checks(const std::optional<MlnxQos> &qos, const std::map<std::string, std::uint64_t> &counters)
{
    PortFacts f;
    f.port.hca = "mlx5_0";
    f.port.port = 1;
    f.port.link_layer = "Ethernet";
    f.port.state = "4: ACTIVE";
    f.port.rate = "400 Gb/sec (4X NDR)";
    f.port.traffic_class = 106;
    f.netdev = "eth0";
    f.qos = qos;
    f.before = counters;
    f.after = counters;
    for (auto &kv : f.after)
        kv.second += kv.second & 1;
    HealthPolicy p;
    std::ostringstream o;
    for (int prio : {-1, 3}) {
        p.pfc_priority = prio;
        auto v = check_health({f}, p, 1);
        write_health_report(o, v, 1, true);
        write_health_metrics(o, v, {f}, 1);
    }
}

// load_fabric_json() streams; the reference is the whole document parsed
// first, then fabric_from_json(). Both must agree on every input: the same
// fabric, or the same message; except that the streaming reader refuses a
// key twice in one object, which the whole document keeps the last of.
Fabric fabric_json_both_ways(const std::string &bytes)
{
    std::istringstream in(bytes);
    std::optional<Fabric> streamed, whole;
    std::string streamed_error, whole_error;
    try {
        streamed = load_fabric_json(in, "fuzz.json");
    } catch (const InputError &e) {
        streamed_error = e.what();
    }
    if (streamed_error.find(", expected each key once in an object") != std::string::npos)
        throw InputError(streamed_error);  // (test_json.cpp checks the document has one)
    try {
        nlohmann::json j = nlohmann::json::parse(bytes);
        whole = fabric_from_json(j, "fuzz.json");
        std::size_t nul = bytes.find('\0');
        if (nul != std::string::npos && nul + 1 < bytes.size()) {
            whole.reset();
            whole_error = std::string("fuzz.json: ") + kBytesAfterNul;
        }
    } catch (const nlohmann::json::exception &e) {
        whole_error = "fuzz.json: " + json_error_text(e);
    } catch (const InputError &e) {
        whole_error = e.what();
    }
    // a number no double holds: the streaming reader adds where it was
    // (" at byte N in the member M, expected ..."), the whole document cannot
    const bool same_error = streamed_error == whole_error ||
                            (!whole_error.empty() && whole_error.find("number overflow") != std::string::npos &&
                             streamed_error.rfind(whole_error + " at byte ", 0) == 0);
    if (streamed.has_value() != whole.has_value() || !same_error || (streamed && !(*streamed == *whole))) {
        std::fprintf(stderr, "fabricjson: the streaming reader and the whole-document reader differ:\n  streamed: %s\n  whole: %s\n",
                     streamed ? "a fabric" : streamed_error.c_str(), whole ? "a fabric" : whole_error.c_str());
        std::abort();
    }
    if (!streamed)
        throw InputError(streamed_error);
    return *streamed;
}

}  // namespace

const char *const fuzz_targets[] = {"ibnetdiscover", "namemap", "fabricjson", "csv", "aws", "gcp", "oci", "nebius", "hostmap", "lldp", "view", "hostlist", "scontrol", "trace", "slurmconf", "mlnxqos", "ethtool", "healthpolicy", "healthresults", "ncclconf", "ofinccl", "report", "nvlink", "ranks", "squeue", "procdevices", "plugstack", "userconf", "nodejson", nullptr};

// 0: consumed (maybe with a clear error); -1: unknown target
int fuzz_one(const std::string &target, const std::string &bytes)
{
    std::istringstream in(bytes);
    try {
        if (target == "ibnetdiscover")
            downstream(parse_ibnetdiscover(in, "fuzz.txt"));
        else if (target == "namemap")
            parse_node_name_map(in, "fuzz.map");
        else if (target == "fabricjson")
            downstream(fabric_json_both_ways(bytes));
        else if (target == "csv")
            downstream(parse_topology_csv(in, "fuzz.csv"));
        else if (target == "aws")
            downstream(parse_aws_topology(in, "fuzz.json"));
        else if (target == "gcp" || target == "oci" || target == "nebius") {
            // each reader alone, then again through a host map naming the
            // fixtures' first hosts (renaming, collisions)
            std::istringstream names("a4x-001 n1\ngpu-001 n2\nworker-0 n3\n4611686018427387906 a4x-001\n");
            HostMap m = parse_host_map(names, "fuzz.map");
            const HostMap *maps[] = {nullptr, &m};
            for (const HostMap *hm : maps) {
                std::istringstream again(bytes);
                try {
                    downstream(target == "gcp"   ? parse_gcp_topology(again, "fuzz.json", hm)
                               : target == "oci" ? parse_oci_topology(again, "fuzz.txt", hm)
                                                 : parse_nebius_topology(again, "fuzz.json", hm));
                } catch (const InputError &) {
                }
            }
        } else if (target == "hostmap") {
            HostMap m = parse_host_map(in, "fuzz.map");
            std::istringstream csv("host,leaf\na,L1\nb,L1\nc,L2\n");
            Fabric f = parse_topology_csv(csv, "fuzz.csv");
            apply_host_map(f, m);
            downstream(f);
        }
        else if (target == "lldp")
            downstream(lldp_fabric(parse_lldp(in, "fuzz.lldp", "host"), "fuzz.lldp"));
        else if (target == "nodejson") {
            // a host's node.json, then the split it steers on two hosts' tables
            std::map<std::string, HostNics> nics{{"h1", read_node_json(in, "fuzz.node.json")}};
            std::vector<LldpNeighbor> ns;
            for (const char *h : {"h1", "h2"})
                for (const char *i : {"ens1np0", "ens2np0", "enp170s0f0np0", "eno1"}) {
                    LldpNeighbor n;
                    n.local = h;
                    n.iface = i;
                    n.chassis = std::string("sw-") + i;
                    n.bridge = true;
                    n.gbps = i[2] == 'o' ? 25 : 400;
                    ns.push_back(n);
                }
            split_nics(ns, {}, nics, {{"sw-ens1np0", "spine"}, {"sw-ens2np0", "spine"}, {"sw-enp170s0f0np0", "sspine"}, {"sw-eno1", "sspine"}});
        }
        else if (target == "view") {
            FabricSummary s = read_summary(in, "fuzz.view");
            std::ostringstream o;
            write_summary(o, s);
        } else if (target == "hostlist")
            expand_hostlist(bytes, 100000);
        else if (target == "scontrol")
            parse_scontrol_nodes(in, "fuzz.txt");
        else if (target == "trace")
            simulate_trace(read_trace(in, "fuzz.csv"));
        else if (target == "slurmconf") {
            // slurm.conf and topology.conf keys, PartitionName words, topology.yaml
            slurm_conf_value(in, "TopologyPlugin");
            std::istringstream lines(bytes);
            for (std::string l; std::getline(lines, l);)
                slurm_conf_words(l);
            std::istringstream yaml(bytes);
            read_topology_yaml(yaml);
        }
        else if (target == "mlnxqos")
            health_checks(parse_mlnx_qos(in, "fuzz.qos"), {});
        else if (target == "ethtool") {
            std::map<std::string, std::uint64_t> c;
            add_ethtool_counters(c, parse_ethtool_stats(in, "fuzz.ethtool"));
            health_checks(std::nullopt, c);
        } else if (target == "healthpolicy")
            parse_health_policy(in, "fuzz.policy");
        else if (target == "healthresults")
            parse_health_results(in, "fuzz.txt");
        else if (target == "userconf") {
            // a user's nccl.conf and ucx.conf, as NCCL (both releases' rules) and UCX's inih read them
            nccl_conf_lines(bytes);
            nccl_conf_lines_before_2_30(bytes);
            ucx_conf_lines(bytes);
        } else if (target == "ncclconf") {
            // an image's /etc/nccl.conf, then the checks that read it
            CloudNode n;
            n.nccl_conf_present = true;
            n.nccl_conf = parse_nccl_conf(in, "fuzz.conf");
            n.machine_type = "Standard_ND96isr_H100_v5";
            for (const char *p : {"azure", "oci"})
                check_cloud_profile(p, n, {});
        } else if (target == "ofinccl") {
            // the bytes of an aws-ofi-nccl library: its release against each minimum
            std::string v = ofi_nccl_version_in(bytes);
            for (const char *t : {"p5.48xlarge", "p5en.48xlarge", "p6-b200.48xlarge"})
                compare_versions(v, ofi_nccl_minimum(t));
        } else if (target == "report")
            report_of(bytes);
        else if (target == "nvlink") {
            Fabric f;
            add_nvlink(f, parse_nvlink_pdsh(in, "fuzz.txt"));
        } else if (target == "squeue") {
            // squeue's running and pending jobs, as cli_filter.lua passes
            // them to auto's decision: read, then weighed on a 4:1 fabric
            static const Topology t = [] {
                GenSpec g;
                g.pods = 2;
                g.groups_per_pod = 2;
                g.hosts_per_group = 4;
                g.spines_per_pod = 1;
                g.oversub = 4;
                return analyse(generate(g));
            }();
            static const Cluster c(t);
            std::string run = bytes.substr(0, bytes.find("\n\n"));
            std::string pend = run.size() < bytes.size() ? bytes.substr(run.size() + 2) : bytes;
            std::vector<std::pair<double, std::vector<int>>> ends;
            std::vector<PendingJob> queue;
            try {
                std::istringstream r(run);
                ends = read_running(r, c, "running.txt");
            } catch (const std::invalid_argument &) {
            }
            std::istringstream q(pend);
            queue = read_pending(q, "pending.txt");
            FreeState free(c, true);
            for (const auto &e : ends)
                free.take(e.second);  // a node may be in two jobs (shared)
            for (Level l : {Level::Leaf, Level::Group, Level::Pod})
                island_extra_wait(c, free, l, 2, ends, queue);
        } else if (target == "plugstack") {
            // a plugstack.conf (root's, but a typo must be an error, not a
            // crash): its atoll.so line and keys, includes not followed
            PlugstackLine l = read_plugstack_text(in, "fuzz/plugstack.conf", false);
            if (l.found && (l.config.leaf_wait_s() < 0 || l.where.empty()))
                __builtin_trap();
        } else if (target == "procdevices") {
            // /proc/devices for the IMEX channels' major
            long m = char_major(in, "nvidia-caps-imex-channels");
            if (m < -1 || m >= 4096)
                __builtin_trap();
        } else if (target == "ranks") {
            // --fabric-ranks SPEC, as a job's user writes it: parsed, then
            // planned for a step of 144 trays x 4 GPUs in racks of 18
            std::string spec = bytes.substr(0, bytes.find('\n'));
            Parallelism par = parse_parallelism(spec);
            std::vector<RankHost> hs(144);
            std::vector<int> topo(144);
            for (int i = 0; i < 144; ++i) {
                hs[static_cast<std::size_t>(i)].island = {{i / 18, i / 36, i / 36, i / 72, 0}};
                topo[static_cast<std::size_t>(i)] = i;
            }
            RankPlan plan = plan_ranks(hs, topo, 4, par);
            std::vector<char> seen(plan.rank.size(), 0);
            for (int r : plan.rank)
                if (r < 0 || static_cast<std::size_t>(r) >= seen.size() || seen[static_cast<std::size_t>(r)]++)
                    __builtin_trap();  // a plan must give every rank once
        }
        else
            return -1;
    } catch (const InputError &) {
    } catch (const std::invalid_argument &) {
    } catch (const std::runtime_error &) {
    }
    return 0;
}

#if defined(ATOLL_FUZZ_LIBFUZZER)
// One libFuzzer program for every target, built once: its target is its own
// name, fuzz-TARGET (fuzz/run.sh links each name to it).
namespace {
std::string libfuzzer_target;
}
extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    std::string name = *argc > 0 && (*argv)[0] ? (*argv)[0] : "";
    name = name.substr(name.rfind('/') == std::string::npos ? 0 : name.rfind('/') + 1);
    if (name.compare(0, 5, "fuzz-") == 0)
        name = name.substr(5);
    for (const char *const *t = fuzz_targets; *t; ++t)
        if (name == *t)
            libfuzzer_target = name;
    if (libfuzzer_target.empty()) {
        std::fprintf(stderr, "atoll fuzz: run as fuzz-TARGET, a link to this program (\"%s\" names no target)\n",
                     name.c_str());
        std::exit(2);
    }
    return 0;
}
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    fuzz_one(libfuzzer_target, std::string(reinterpret_cast<const char *>(data), size));
    return 0;
}
#elif defined(ATOLL_FUZZ_REPLAY)
// atoll-fuzz-replay TARGET FILE...: each file through the harness
int main(int argc, char **argv)
{
    if (argc < 3) {
        std::fprintf(stderr, "usage: atoll-fuzz-replay TARGET FILE...\n");
        return 2;
    }
    for (int i = 2; i < argc; ++i) {
        std::ifstream f(argv[i], std::ios::binary);
        if (!f) {
            std::fprintf(stderr, "atoll-fuzz-replay: cannot open %s\n", argv[i]);
            return 1;
        }
        std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
        if (fuzz_one(argv[1], bytes) < 0) {
            std::fprintf(stderr, "atoll-fuzz-replay: unknown target %s\n", argv[1]);
            return 2;
        }
    }
    return 0;
}
#endif
