// atoll-topo: map an InfiniBand fabric, check it, and write what Slurm reads.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <strings.h>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "node/cloudenv.hpp"
#include "node/nodeview.hpp"
#include "spank/core.hpp"
#include "topology/hostlist.hpp"
#include <optional>
#include <unistd.h>
#include <pwd.h>
#include <sys/stat.h>
#include "topology/check.hpp"
#include "topology/diff.hpp"
#include "topology/dot.hpp"
#include "topology/generate.hpp"
#include "topology/io.hpp"
#include "topology/json.hpp"
#include "topology/nodehealth.hpp"
#include "topology/report.hpp"
#include "topology/nvlink.hpp"
#include "placement/view.hpp"
#include "topology/slurm.hpp"
#include "slurm/ask.hpp"
#include "tools/args.hpp"
#include "tools/topo_health.hpp"

using namespace atl;

namespace {

const char *usage_text =
    "usage: atoll-topo COMMAND [OPTIONS] [INPUT...]\n"
    "\n"
    "commands:\n"
    "  discover  read inputs (ibnetdiscover text, -p report, --cache file, fabric.json,\n"
    "            host,leaf,pod,core CSV [--csv-columns ROLE=COLUMN,...])\n"
    "            and write fabric.json                     [-o FILE] [--ib-cache FILE] [--ib]\n"
    "  show      summarise a fabric                        [--json] [--links]\n"
    "  check     report the fabric's health                [--json] [--previous FABRIC] [--slurm-nodes FILE]\n"
    "            [--view FILE]... (the plugin's fabric=: warns unless everyone can read it)\n"
    "  slurm     write Slurm (and Kubernetes) files\n"
    "            [--format tree|block|yaml|features|feature-list|scontrol|islands|requests|view|k8s-labels]\n"
    "            [--node-params STR] [--scontrol-nodes FILE [--previous FABRIC]] [--block-size N] [--slurm-version X.Y]\n"
    "            [--topology tree|block] [-o FILE]\n"
    "            [--slurm-nodes FILE] (features, feature-list, scontrol, k8s-labels: hosts Slurm lacks get no line;\n"
    "            tree, block, yaml, view: only Slurm's nodes lost to a contest stop the file; FQDNs it names stay whole;\n"
    "            LLDP tables, any format: Slurm's nodes are the hosts)\n"
    "  dot       draw the switch graph for Graphviz        [--hosts] [-o FILE]\n"
    "  report    one self-contained HTML page: islands by health, check's findings by island,\n"
    "            link and rail histograms, the Slurm files  [--previous FABRIC] [--slurm-nodes FILE] [-o FILE]\n"
    "  diff      what changed from OLD to NEW, and whether scheduling must follow [--json]\n"
    "            [--topology-updates [--block] [--topology-name NAME]]: scontrol lines that\n"
    "            move the nodes whose leaf changed (Slurm 25.05 and later)\n"
    "  node      this node's GPUs, HCAs and the nearest HCA of each GPU\n"
    "            [--hwloc-xml FILE] [--sysfs-root DIR] [--json]\n"
    "  env       the plugin's environment for one node and task, and why (a dry run)\n"
    "            VIEW --node NAME [--nodes HOSTLIST] [--batch] [--plugstack 'KEY=VALUE ...']\n"
    "            [--sysfs-root DIR] [--proc-root DIR] [--hwloc-xml FILE] [--fabric-sharp MODE]\n"
    "            [--cuda-visible-devices LIST] [--step-gpus LIST] [--set NAME=VALUE]...\n"
    "            [--cloud PROFILE] [--root DIR] [--machine-type TYPE] [--user NAME|UID]\n"
    "            [--tasks-per-node N [--local-id K]] [--fabric-ranks SPEC] [--workdir DIR]\n"
    "  health    this node's RoCE/InfiniBand ports against the site's lossless policy\n"
    "            [--policy FILE] [--roce-tc N] [--pfc-priority N] [--trust dscp|pcp] [--mtu N]\n"
    "            [--rdma-mtu N] [--rate GBPS] [--ecn yes|no] [--max-error-rate N] [--hca PATTERNS] [--gid-index N]\n"
    "            [--ports N]\n"
    "            [--interval SECONDS] [--sysfs-root DIR [--then-sysfs-root DIR]]\n"
    "            [--mlnx-qos IF=FILE]... [--ethtool IF=FILE]... [--prometheus FILE] [--verbose]\n"
    "            [--cloud auto|none|aws|azure|gcp|oci|nebius] [--root DIR] [--machine-type TYPE]\n"
    "            [--imex [--dev-root DIR] [--proc-root DIR] [--imex-uid UID]] (an IMEX channel the user may open)\n"
    "  generate  write a synthetic fabric                  [--format net|json] [-o FILE]\n"
    "            [--pods N] [--groups N] [--hosts N] [--rails N] [--spines N] [--cores N] [--oversub RATIO]\n"
    "            [--speed SDR|...|NDR|XDR] [--sharp] [--host-prefix STR] [--swap-rails HOST:RAIL:RAIL]...\n"
    "            [--degrade HOST:RAIL]... [--default-desc HOST:RAIL]... [--drop-leaf NAME]...\n"
    "            [--domain-size N [--nvlink-output FILE [--gpus N]]] (NVLink domains of N hosts)\n"
    "\n"
    "common options (discover, show, check, slurm, dot, report, diff):\n"
    "  --node-name-map FILE [--unmapped trust|refuse], --host-map FILE (cloud ID -> Slurm name),\n"
    "  --format (inputs: auto|text|json|cache|csv|aws|gcp|oci|nebius|lldp),\n"
    "  --hca PATTERNS (host adapters to keep, e.g. 'mlx5_*,!mlx5_8'),\n"
    "  --frontend PATTERNS, --compute PATTERNS (LLDP: which host interfaces, or the switches they\n"
    "  reach, are front-end NICs or compute rails, e.g. --frontend 'eno*,mgmt-*'),\n"
    "  --switches PATTERNS (LLDP: the neighbours that are switches; default those two systems name),\n"
    "  --slurm-nodes FILE (LLDP: Slurm's nodes are the hosts, never switches; give it with switch tables),\n"
    "  --health FILE (pdsh output of atoll-topo health: failed hosts' islands rank last),\n"
    "  --nvlink FILE|DIR (nvidia-smi's fabric.clusterUuid,fabric.cliqueId or -q per node, pdsh output or\n"
    "  one file per host: hosts' NVLink domains, the innermost island), -h, --version\n"
    "exit status: 0 success, 1 input or runtime error, 2 usage error;\n"
    "  check: 3 warnings found, 4 errors found; health: 4 a check failed; diff: 3 scheduling changed;\n"
    "  slurm: 3 written, but a Kubernetes label value is not its island's name (shortened or removed)\n";

// --host-map lines whose Slurm name no host of the input took: the cloud ID
// on the left matched none (a typo, or a map for more hosts than the input
// has). Said, not an error: the host the line meant keeps the cloud's name,
// which Slurm does not know (helper 38: such a line passed in silence).
void warn_unused_map_lines(Fabric &f, const HostMap &map)
{
    const std::set<std::string> names = host_names(f);
    std::vector<std::string> unused;
    for (const auto &kv : map.names)
        if (!names.count(kv.second))
            unused.push_back(map.where.at(kv.first) + " (" + shown(kv.first) + ")");
    if (unused.empty() || unused.size() == map.names.size())
        return;  // all used, or none: the readers say that one
    std::string first;
    for (std::size_t i = 0; i < unused.size() && i < 3; ++i)
        first += (i ? ", " : "") + unused[i];
    f.warnings.push_back("--host-map: " + std::to_string(unused.size()) + " of its " +
                         std::to_string(map.names.size()) + " lines name a cloud ID no host of the input has: " + first +
                         (unused.size() > 3 ? ", ..." : "") +
                         "; a host such a line meant keeps the cloud's name, which Slurm does not know");
}

// --slurm-nodes FILE: Slurm's node names (scontrol show nodes --oneliner, or a slurm.conf)
std::unique_ptr<std::set<std::string>> slurm_nodes(const Args &a)
{
    if (!a.flag("slurm-nodes"))
        return nullptr;
    std::string p = a.get("slurm-nodes");
    std::istringstream in(read_option_file(p, "Slurm's node list (--slurm-nodes)"));
    return std::make_unique<std::set<std::string>>(read_slurm_node_names(in, option_source(p)));
}

// Slurm's node list as load_inputs() read it into the fabric (nullptr
// without --slurm-nodes): read once, not again by each command
const std::set<std::string> *slurm_list(const Args &a, const Topology &t)
{
    return a.flag("slurm-nodes") ? &t.fabric.slurm_names : nullptr;
}

// All inputs merged into one fabric, the node name map applied. Slurm's node
// list (--slurm-nodes) decides who is a host among LLDP tables; on other
// inputs only a command that uses it itself (`nodes_for_output`) takes it.
Fabric load_inputs(const Args &a, bool allow_live, bool nodes_for_output = false)
{
    std::vector<Fabric> parts;
    InputFormat fmt = input_format(a);
    CsvColumns cols = parse_csv_columns(a.get("csv-columns"));
    NicRoles roles;
    roles.frontend = a.get("frontend");
    roles.compute = a.get("compute");
    roles.switches = a.get("switches");
    if (std::unique_ptr<std::set<std::string>> nodes = slurm_nodes(a)) {
        roles.slurm_given = true;
        roles.slurm_nodes = std::move(*nodes);
        roles.slurm_source = a.get("slurm-nodes");
    }
    std::unique_ptr<HostMap> hosts;
    if (a.flag("host-map")) {
        std::string p = a.get("host-map");
        std::istringstream in(read_option_file(p, "the host map (--host-map)"));
        hosts = std::make_unique<HostMap>(parse_host_map(in, option_source(p)));
    }
    for (const auto &p : a.operands)
        parts.push_back(load_fabric(p, fmt, cols, roles, hosts.get()));
    // a cloud's answers are not cabled fabrics to merge: two pages would
    // number one switch's ports twice ("cabled to two peers"); the CLI
    // follows the pages and prints one answer with every instance
    std::vector<std::string> clouds;
    for (std::size_t i = 0; i < parts.size(); ++i)
        if (parts[i].kind == "aws" || parts[i].kind == "gcp" || parts[i].kind == "oci" || parts[i].kind == "nebius")
            clouds.push_back(a.operands[i]);
    if (clouds.size() > 1)
        throw InputError(clouds[0] + ", " + clouds[1] + ": found two cloud answers, expected one with every instance "
                         "(the cloud's CLI follows the pages itself; a fabric.json from discover is one answer too)");
    if (hosts && std::none_of(parts.begin(), parts.end(), [](const Fabric &p) {
            return p.kind == "aws" || p.kind == "gcp" || p.kind == "oci" || p.kind == "nebius" || p.kind == "generic";
        }))
        throw Usage("--host-map: only for a cloud's topology or a CSV (hosts named by cloud IDs); "
                    "InfiniBand adapters are renamed by --node-name-map");
    if ((roles.given() || a.flag("switches")) &&
        std::none_of(parts.begin(), parts.end(), [](const Fabric &p) { return p.kind == "roce"; }))
        throw Usage(std::string(a.flag("frontend") ? "--frontend" : a.flag("compute") ? "--compute" : "--switches") +
                    ": only for LLDP tables (lldpcli output), where a host's front-end NIC shows beside its rails");
    if (a.flag("slurm-nodes") && !nodes_for_output &&
        std::none_of(parts.begin(), parts.end(), [](const Fabric &p) { return p.from_lldp_tables; }))
        throw Usage("--slurm-nodes: only for LLDP tables (Slurm's nodes are the hosts; a fabric.json keeps what "
                    "discovery decided: give it to discover), or with check, report, or slurm --format tree, "
                    "block, yaml, view, features, feature-list, scontrol or k8s-labels");
    for (const auto &p : a.all("ib-cache"))
        parts.push_back(load_fabric(p, InputFormat::Cache));
    if (allow_live && a.flag("ib"))
        parts.push_back(discover_ib(a.get("ib-ca"), std::atoi(a.get("ib-port", "0").c_str()), a.flag("progress")));
    if (parts.empty())
        throw Usage("no input: give an ibnetdiscover output, a cache file (--ib-cache) or a fabric.json");
    Fabric f = std::move(parts[0]);
    for (std::size_t i = 1; i < parts.size(); ++i) {
        f.source += "+" + parts[i].source;
        f.warnings.insert(f.warnings.end(), parts[i].warnings.begin(), parts[i].warnings.end());
        f.frontend.insert(f.frontend.end(), parts[i].frontend.begin(), parts[i].frontend.end());
        f.undecided.insert(f.undecided.end(), parts[i].undecided.begin(), parts[i].undecided.end());
        if (f.kind != parts[i].kind)
            f.kind = f.kind.empty() ? parts[i].kind : parts[i].kind.empty() ? f.kind : "generic";
        // (looked up among the nodes before this part only: find() searches
        // a sorted list, and a node appended here would unsort it, so a node
        // both parts describe could be missed and appended twice)
        std::vector<Node> added;
        for (auto &n : parts[i].nodes)
            if (!f.find(n.guid))
                added.push_back(n);
        f.nodes.insert(f.nodes.end(), added.begin(), added.end());
        f.links.insert(f.links.end(), parts[i].links.begin(), parts[i].links.end());
        normalise(f);
    }
    if (hosts)
        warn_unused_map_lines(f, *hosts);
    if (roles.slurm_given)
        f.slurm_names = roles.slurm_nodes;  // the FQDNs it names stay whole
    if (a.flag("health")) {
        std::string p = a.get("health");
        std::istringstream in(read_option_file(p, "the health results (--health)"));
        for (const auto &kv : parse_health_results(in, option_source(p), &f.warnings))
            f.unhealthy.push_back(kv.first + ": " + kv.second);
        normalise(f);
    }
    for (const std::string &p : a.all("nvlink")) {
        NvlinkDomains d = load_nvlink(p);
        // an empty file (pdsh that reached no node) says nothing of the
        // domains: said, not taken quietly for a fabric without them
        if (d.domains.empty() && d.problems.empty())
            f.warnings.push_back(p + ": no host in it reports an NVLink domain (an empty file, or every node's "
                                     "nvidia-smi found no GPU): the fabric gets no domains from it");
        add_nvlink(f, d);
    }
    std::string unmapped = a.get("unmapped", "trust");
    if (unmapped != "trust" && unmapped != "refuse")
        throw Usage("--unmapped: \"" + unmapped + "\", expected trust or refuse");
    if (a.flag("unmapped") && !a.flag("node-name-map"))
        throw Usage("--unmapped needs --node-name-map");
    if (a.flag("node-name-map")) {
        std::string p = a.get("node-name-map");
        std::istringstream in(read_option_file(p, "the node name map (--node-name-map)"));
        apply_node_name_map(f, parse_node_name_map(in, option_source(p)), unmapped == "refuse");
    }
    return select_hcas(std::move(f), a.get("hca"));
}

const std::vector<std::string> common_values = {"node-name-map", "host-map", "unmapped", "format", "ib-cache", "output", "csv-columns", "hca",
                                                "frontend", "compute", "switches", "health", "nvlink", "slurm-nodes"};

// --previous FABRIC: an earlier discovery (check, slurm --format scontrol)
std::unique_ptr<Topology> previous_fabric(const Args &a)
{
    if (!a.flag("previous"))
        return nullptr;
    Fabric f = load_fabric(a.get("previous"));
    f.source = a.get("previous");  // findings name the file given, not where it was discovered from
    return std::make_unique<Topology>(analysed(std::move(f), "atoll-topo"));
}

void print_summary(std::ostream &o, const Topology &t)
{
    nlohmann::json s = summary_json(t);
    o << "fabric:    " << t.fabric.source << "\n";
    o << "switches:  " << s["switches"].get<int>() << " (";
    bool first = true;
    for (auto it = s["tiers"].begin(); it != s["tiers"].end(); ++it) {
        o << (first ? "" : ", ") << it.key() << " " << it.value().get<int>();
        first = false;
    }
    o << "), " << s["sharp_switches"].get<int>() << " with SHARP\n";
    // director chassis: their ASICs are one box to an admin
    std::map<std::string, std::pair<std::string, std::pair<int, int>>> chassis;  // name -> model, (line, spine)
    for (const Switch &sw : t.switches)
        if (!sw.chassis.empty()) {
            auto &c = chassis[sw.chassis];
            c.first = sw.model;
            (sw.slot[0] == 'L' ? c.second.first : c.second.second)++;
        }
    if (!chassis.empty()) {
        o << "chassis:   " << chassis.size() << " director" << (chassis.size() > 1 ? "s" : "") << " (";
        bool first_c = true;
        for (const auto &kv : chassis) {
            o << (first_c ? "" : ", ") << kv.first << ": " << kv.second.first << ", " << kv.second.second.first
              << " line and " << kv.second.second.second << " spine ASICs";
            first_c = false;
        }
        o << ")\n";
    }
    o << "hosts:     " << s["hosts"].get<int>() << " (" << s["compute_hosts"].get<int>() << " compute), "
      << s["hcas"].get<int>() << " host HCAs, " << s["cas"].get<int>() << " CAs in all\n";
    o << "links:     " << s["links"].get<int>() << " (";
    first = true;
    for (auto it = s["link_speeds"].begin(); it != s["link_speeds"].end(); ++it) {
        o << (first ? "" : ", ") << it.value().get<int>() << " " << it.key();
        first = false;
    }
    o << ")\n";
    o << "rails:     " << t.rails.size();
    if (!t.rails.empty()) {
        o << " (";
        for (std::size_t i = 0; i < t.rails.size(); ++i)
            o << (i ? " " : "") << t.rails[i];
        o << ")" << (t.rail_optimised ? ", rail-optimised" : "");
        if (!t.not_rail_optimised.empty())
            o << ", not rail-optimised: " << t.not_rail_optimised;
    }
    o << "\n";
    o << "islands:  ";
    for (Level l : {Level::Leaf, Level::Group, Level::Pod, Level::Fabric}) {
        auto &lv = s["islands"][to_string(l)];
        o << " " << to_string(l) << " " << lv["count"].get<int>() << " (largest " << lv["largest"].get<int>() << ")"
          << (l == Level::Fabric ? "" : ",");
    }
    o << "\n";
    if (s["islands"].contains("domain")) {
        int none = 0;
        for (const Host &h : t.hosts)
            none += h.compute && h.leaf_island >= 0 && h.domain < 0;
        o << "nvlink:    " << s["islands"]["domain"]["count"].get<int>() << " domain islands (largest "
          << s["islands"]["domain"]["largest"].get<int>() << "), " << none << " compute hosts in none\n";
    }
    if (t.max_tier == 0 && t.switches.size() > 1)
        o << "tiers:     only leaf switches are seen (host-side LLDP?): add tables taken on the switches to see "
             "the tiers above\n";
    if (!t.unnamed.empty())
        o << "unnamed:   " << t.unnamed.size() << " CAs with firmware default descriptions (see check)\n";
}

int cmd_discover(int argc, char **argv)
{
    std::vector<std::string> vals = common_values;  // every input option, as the usage says
    vals.insert(vals.end(), {"ib-ca", "ib-port"});
    Args a = parse_args(argc, argv, 2, vals, {"ib", "progress"});
    Topology t = analysed(load_inputs(a, true), "atoll-topo");
    std::string out = a.get("output", "-");
    write_file_atomically(out, [&](std::ostream &o) { save_fabric_json(o, t); });
    if (out != "-")
        std::cerr << "atoll-topo: wrote " << out << ": " << t.switches.size() << " switches, " << t.hosts.size()
                  << " hosts, " << t.fabric.links.size() << " links\n";
    return 0;
}

int cmd_show(int argc, char **argv)
{
    Args a = parse_args(argc, argv, 2, common_values, {"json", "links"});
    Topology t = analysed(load_inputs(a, false), "atoll-topo");
    write_file_atomically(a.get("output", "-"), [&](std::ostream &o) {
        if (a.flag("links")) {
            for (const Link &l : t.fabric.links)
                o << link_name(t, l) << " " << rate_name(l.width, l.speed) << "\n";
        } else if (a.flag("json")) {
            o << json_text(summary_json(t), 2) << "\n";
        } else {
            print_summary(o, t);
        }
    });
    return 0;
}

// slurmstepd reads the fabric file as the job's user: a finding when `path`
// (a file the plugin reads) or a directory above it is not readable, or
// not traversable, by everyone. Nothing for a path that does not exist.
std::optional<Finding> unreadable_by_users(const std::string &path, bool dirs = true)
{
    char *real = ::realpath(path.c_str(), nullptr);
    if (!real)
        return std::nullopt;
    std::string abs = real;
    std::free(real);
    struct stat st;
    if (::stat(abs.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
        return std::nullopt;
    std::string why;
    if (!(st.st_mode & S_IROTH))
        why = "mode " + std::string(1, "01234567"[(st.st_mode >> 6) & 7]) + "01234567"[(st.st_mode >> 3) & 7] +
              "01234567"[st.st_mode & 7] + ", not readable by others";
    for (std::string d = abs.substr(0, abs.rfind('/')); dirs && why.empty() && !d.empty(); d = d.substr(0, d.rfind('/'))) {
        struct stat ds;
        if (::stat(d.c_str(), &ds) == 0 && !(ds.st_mode & S_IXOTH))
            why = "its directory " + shown(d) + " is not searchable by others";
    }
    if (why.empty())
        return std::nullopt;
    return Finding{"unreadable-by-users", Severity::Warning, shown(abs),
                   why + ": slurmstepd reads it as the job's user, so every other user's steps get no fabric "
                         "environment (make it 0644, its directories 0755)"};
}

int cmd_check(int argc, char **argv)
{
    std::vector<std::string> vals = common_values;
    vals.insert(vals.end(), {"previous", "view"});
    Args a = parse_args(argc, argv, 2, vals, {"json"});
    Topology t = analysed(load_inputs(a, false, true), "atoll-topo");
    std::unique_ptr<Topology> previous = previous_fabric(a);
    auto findings = check(t, CheckContext{previous.get(), slurm_list(a, t)});
    // a fabric.json checked here is what cli_filter.lua's atoll-place reads
    // as the submitting user: the same rule as the view's
    for (const std::string &p : a.operands) {
        std::ifstream in(p, std::ios::binary);
        if (in && is_atoll_fabric(input_head(in)))
            // the file's own mode only: a working copy in the admin's own
            // directory is no finding, one only root can read is
            if (auto f = unreadable_by_users(p, false)) {
                f->message += "; cli_filter.lua's atoll-place reads it as the submitting user too";
                findings.push_back(*f);
            }
    }
    // --view FILE: what the plugin's fabric= names (the view, or a fabric.json)
    for (const std::string &p : a.all("view")) {
        struct stat st;
        if (::stat(p.c_str(), &st) != 0)
            throw std::runtime_error("--view " + shown(p) + ": " + std::strerror(errno));
        if (auto f = unreadable_by_users(p))
            findings.push_back(*f);
        // what the plugin itself would do with it: its owner and mode
        // (root's, written by no one else), its records read as it reads them
        try {
            PluginConfig cfg;
            (void)load_fabric_view(cfg, p);
        } catch (const std::exception &e) {
            findings.push_back({"view-refused", Severity::Error, shown(p),
                                "the plugin refuses it, so every job step gets no fabric environment: " +
                                    one_line(e.what(), 400)});
        }
    }
    std::size_t errors = 0;
    for (const auto &f : findings)
        errors += f.severity == Severity::Error;
    write_file_atomically(a.get("output", "-"), [&](std::ostream &o) {
        if (a.flag("json")) {
            o << json_text(findings_json(findings), 2) << "\n";
            return;
        }
        for (const auto &f : findings)
            o << to_string(f.severity) << ": " << f.code << ": " << f.subject << ": " << f.message << "\n";
        o << findings.size() << " findings: " << errors << " errors, " << findings.size() - errors
          << " warnings\n";
    });
    return errors ? 4 : findings.empty() ? 0 : 3;
}

int to_int(const std::string &opt, const std::string &v);

int cmd_slurm(int argc, char **argv)
{
    std::vector<std::string> vals = common_values;
    vals.insert(vals.end(), {"node-params", "scontrol-nodes", "block-size", "topology", "previous", "slurm-version"});
    // --format names the input format elsewhere; here a Slurm format name
    // (tree, block, features, scontrol) selects the output.
    Args a = parse_args(argc, argv, 2, vals, {"k8s-labels"});
    // appended to each compute host's NodeName line: one line's words, no
    // line or comment of their own, no second Features= (helper 38: a
    // newline wrote "NodeName=evil State=DRAIN" after every host)
    if (a.flag("node-params")) {
        const std::string np = a.get("node-params");
        std::string lower = np;
        for (char &ch : lower)
            ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        if (std::any_of(np.begin(), np.end(), [](char ch) { return (static_cast<unsigned char>(ch) < 0x20 && ch != '\t') || ch == 0x7f; }) ||
            np.find('#') != std::string::npos || lower.find("nodename=") != std::string::npos ||
            lower.find("features=") != std::string::npos)
            throw Usage("--node-params: " + shown(np) + ", expected KEY=VALUE words of one NodeName line (no "
                        "control character, '#', NodeName= or Features=: atoll writes those)");
        // each word KEY=VALUE (a value may be quoted, blanks and all), KEY
        // one a NodeName line takes: slurmctld refuses the file at any other
        // ("Parsing error at unrecognized key"), and a trailing '\' joins
        // the next line to every NodeName line (helpers 50, 52). The keys
        // are Slurm's _nodename_options (read_config.c) of 22.05 to 26.05.
        static const char *const keys[] = {"BcastAddr", "Boards", "CoreSpecCount", "CoresPerSocket", "CPUs", "CPUSpecList",
                                           "CpuBind", "Gres", "MemSpecLimit", "NodeAddr", "NodeHostname", "Port", "Procs",
                                           "RealMemory", "Reason", "RestrictedCoresPerGPU", "Sockets", "SocketsPerBoard",
                                           "State", "ThreadsPerCore", "TmpDisk", "Topology", "TRESWeights", "Weight"};
        std::size_t i = 0;
        while (i < np.size()) {
            if (np[i] == ' ' || np[i] == '\t') {
                ++i;
                continue;
            }
            const std::size_t from = i;
            char quote = 0;
            for (; i < np.size() && (quote || (np[i] != ' ' && np[i] != '\t')); ++i) {
                if (np[i] == '"')
                    quote = quote ? 0 : '"';
            }
            const std::string w = np.substr(from, i - from);
            if (quote)
                throw Usage("--node-params: " + shown(w) + " opens a quote it does not close");
            const std::size_t eq = w.find('=');
            const std::string key = w.substr(0, eq == std::string::npos ? 0 : eq);
            bool known = false;
            for (const char *k : keys)
                known = known || (key.size() == std::strlen(k) && strncasecmp(key.c_str(), k, key.size()) == 0);
            if (eq == std::string::npos || !known) {
                std::string list;
                for (const char *k : keys)
                    list += (list.empty() ? "" : ", ") + std::string(k);
                throw Usage("--node-params: found " + shown(w) + ", expected KEY=VALUE with KEY a NodeName parameter (" + list +
                            "): slurmctld refuses a NodeName line with a key it does not know");
            }
            if (w.back() == '\\')
                throw Usage("--node-params: " + shown(w) + " ends in '\\', which Slurm reads as joining the next line: "
                            "every NodeName line would run into the next");
            // Slurm's parser takes a value in double quotes, never escaped
            // quotes or single quotes
            if (w.find_first_of("\\'") != std::string::npos)
                throw Usage("--node-params: found " + shown(w) + ", expected a value bare or in double quotes, without "
                            "'\\' or single quotes (slurm.conf has no escapes)");
        }
    }
    std::string what = a.flag("k8s-labels") ? "k8s-labels" : "tree";
    // --format names what to write, or the input's format, or one of each
    // (helper 41: "--format features --format csv" took the last, and wrote
    // topology.conf where a features file was asked for)
    std::string output, input;
    for (const std::string &f : a.all("format")) {
        const bool out = f == "tree" || f == "block" || f == "yaml" || f == "features" || f == "feature-list" ||
                         f == "scontrol" || f == "islands" || f == "requests" || f == "view" || f == "k8s-labels";
        const bool in = f == "auto" || f == "text" || f == "json" || f == "cache" || f == "csv" || f == "aws" ||
                        f == "gcp" || f == "oci" || f == "nebius" || f == "lldp";
        if (!out && !in)
            throw Usage("--format: \"" + f + "\", expected tree, block, yaml, features, feature-list, scontrol, islands, requests, view or k8s-labels "
                        "(or an input format: auto, text, json, cache, csv, aws, gcp, oci, nebius, lldp)");
        std::string &slot = out ? output : input;
        if (!slot.empty())
            throw Usage("--format given twice for the " + std::string(out ? "output" : "input") + " (\"" + slot +
                        "\", then \"" + f + "\"): expected one output format and at most one input format");
        slot = f;
    }
    if (!output.empty())
        what = output;
    if (input.empty())
        a.opts.erase("format");
    else
        a.opts["format"] = {input};
    // --format requests --topology block: the answers for a site that runs
    // topology/block on the file --format block writes (same --block-size)
    bool block_requests = a.flag("topology") && a.get_one_of("topology", {"tree", "block"}) == "block";
    if (a.flag("topology") && what != "requests")
        throw Usage("--topology: only with --format requests");
    if (a.flag("block-size") && what != "block" && !block_requests)
        throw Usage("--block-size: only with --format block (or --format requests --topology block)");
    int block_size = a.flag("block-size") ? to_int("block-size", a.get("block-size")) : 0;
    if (a.flag("block-size") && block_size < 1)
        throw Usage("--block-size: \"" + a.get("block-size") + "\", expected a node count of 1 or more");
    // --slurm-version X.Y: the release the block file is for (25.05 and
    // later take placeholder blocks and blocks smaller than the base; the
    // default is a file every release with topology/block loads)
    bool placeholders = false;
    if (a.flag("slurm-version")) {
        if (what != "block" && what != "yaml" && !block_requests)
            throw Usage("--slurm-version: only with --format block, yaml or requests --topology block");
        std::string v = a.get("slurm-version");
        // a whole release (25.05.1, slurmctld -V's) stands for its MAJOR.MINOR
        std::size_t second = v.find('.', v.find('.') + 1);
        if (v.find('.') != std::string::npos && second != std::string::npos && second + 1 < v.size() &&
            v.find_first_not_of("0123456789", second + 1) == std::string::npos)
            v = v.substr(0, second);
        std::size_t dot = v.find('.');
        int major = 0, minor = 0;
        if (dot == std::string::npos || dot == 0 || v.find_first_not_of("0123456789.") != std::string::npos ||
            v.find('.', dot + 1) != std::string::npos || dot + 1 == v.size() ||
            (major = std::atoi(v.substr(0, dot).c_str())) < 17 || major > 99 ||
            (minor = std::atoi(v.substr(dot + 1).c_str())) < 0 || minor > 12)
            throw Usage("--slurm-version: \"" + a.get("slurm-version") + "\", expected a Slurm release as MAJOR.MINOR (24.11, 26.05) or MAJOR.MINOR.MICRO");
        if (major * 100 + minor < 2311)
            throw Usage("--slurm-version: Slurm " + v + " has no topology/block (23.11 and later)");
        placeholders = major * 100 + minor >= 2505;
        if (what == "yaml" && !placeholders)
            throw Usage("--slurm-version: Slurm " + v + " reads no topology.yaml (25.05 and later)");
    }
    const bool topology_file = what == "tree" || what == "block" || what == "yaml";
    // (the view too: with Slurm's node list an FQDN Slurm names stays whole
    // there as in topology.conf, or the plugin on that node found no line;
    // and a contested name Slurm has no node of freezes it no more than them)
    const bool every_host = topology_file || what == "view";
    Topology t = analysed(load_inputs(a, false, every_host || what == "features" || what == "feature-list" ||
                                                    what == "scontrol" || what == "k8s-labels"),
                          "atoll-topo");
    // a host Slurm has no node of is no loss to Slurm's files: with Slurm's
    // node list, only its own nodes stop them (helper 52: two nodes
    // calling themselves a name no one has froze the cluster's files)
    const std::set<std::string> *only = slurm_list(a, t);
    for (auto c = t.contested_lost.begin(); only && c != t.contested_lost.end();) {
        if (only->count(c->first)) {
            ++c;
            continue;
        }
        std::cerr << "atoll-topo: warning: " << shown(c->first, 80) << ": no adapter or link of this host is believed ("
                  << one_line(c->second) << "); Slurm has no node of this name (" << a.get("slurm-nodes")
                  << "): written without it\n";
        c = t.contested_lost.erase(c);
    }
    // (helper 50) a host whose every name is claimed twice over would be
    // left out of the Slurm files: one node's root copying another's
    // description (or an FQDN of its short name) would take it out of the
    // tree. The site's file is kept until the admin says who is who.
    // So is the plugin's view (helper 59): without the host its own plugin
    // sets nothing and its step-mates' lose their islands and order.
    if (!t.contested_lost.empty() && (what == "tree" || what == "block" || what == "yaml" || what == "features" ||
                                      what == "feature-list" || what == "k8s-labels" || what == "view")) {
        std::vector<std::string> names;
        for (const auto &c : t.contested_lost)
            names.push_back(c.first);
        throw InputError(t.fabric.source + ": host" + (names.size() == 1 ? " " : "s ") + compress_hostlist(names) +
                         " would be left out of Slurm's files" + (what == "view" ? " and the plugin's view" : "") +
                         ": no adapter or link of " + (names.size() == 1 ? "it" : "theirs") +
                         " is believed, its name or switch port is claimed twice over (" + t.contested_lost.begin()->second +
                         "): nothing written" + (a.get("output", "-") == "-" ? "" : ", " + a.get("output") + " kept") +
                         "; say who is who with --node-name-map (InfiniBand) or the switches' own LLDP tables, "
                         "or correct the copied node description or table" +
                         (only ? std::string() : "; a name Slurm has no node of stops nothing with --slurm-nodes"));
    }
    BlockSite site;
    if (block_requests) {
        try {
            site = block_site(t, block_size, placeholders);
        } catch (const std::invalid_argument &e) {
            throw InputError(t.fabric.source + ": " + e.what() + " (see --block-size in atoll-topo(8))");
        }
    }
    BlockLayout layout;
    if (what == "block") {
        try {
            layout = block_layout(t, block_size, placeholders);
        } catch (const std::invalid_argument &e) {
            throw InputError(t.fabric.source + ": " + e.what() + " (see --block-size in atoll-topo(8))");
        }
        for (std::size_t k = 0; k < layout.left_out.size(); ++k)
            std::cerr << "atoll-topo: warning: topology/block: leaf island "
                      << t.islands[static_cast<std::size_t>(layout.left_out[k])].name << " left out ("
                      << layout.why_left_out[k] << "): its nodes run no job under topology/block\n";
        // the blocks are the domains: a compute host in none is in no block
        // (helper 38: nvidia-smi outputs of one node of eight gave one block
        // and seven nodes that could run nothing, without a word)
        if (layout.level == Level::Domain) {
            std::vector<std::string> none;
            for (const Host &h : t.hosts)
                if (h.compute && h.leaf_island >= 0 && h.domain < 0)
                    none.push_back(h.name);
            if (!none.empty())
                std::cerr << "atoll-topo: warning: topology/block: " << none.size() << " compute host"
                          << (none.size() == 1 ? "" : "s") << " in no NVLink domain ("
                          << compress_hostlist(none)
                          << ") in no block: they run no job under topology/block (hosts the --nvlink outputs do not "
                             "report, or whose GPUs report no domain)\n";
        }
    }
    std::map<std::string, NodeFeatures> current;
    // (helper 40: with another format it was never read, a missing file
    // and a second one unsaid)
    if (a.flag("scontrol-nodes") && what != "scontrol")
        throw Usage("--scontrol-nodes: only with --format scontrol");
    if (what == "scontrol" && a.flag("scontrol-nodes")) {
        std::string p = a.get("scontrol-nodes");
        std::istringstream in(read_option_file(p, "scontrol show nodes output (--scontrol-nodes)"));
        current = parse_scontrol_nodes(in, option_source(p));
    }
    if (a.flag("previous") && what != "scontrol")
        throw Usage("--previous: only with --format scontrol");
    std::unique_ptr<Topology> previous = previous_fabric(a);
    // a host the fabric names that Slurm lacks is a finding (check), never a
    // line; the topology files list every host the fabric has (their
    // switches are the fabric's)
    if (only) {
        const std::vector<std::string> outside = hosts_outside(t, *only);
        // none of them Slurm's (a map forgotten): no file of nothing over a good one
        if (!t.hosts.empty() && outside.size() >= t.hosts.size())
            throw InputError(a.get("slurm-nodes") + ": names none of the " + std::to_string(t.hosts.size()) +
                             " hosts of " + t.fabric.source + " (first " + shown(outside.front(), 80) +
                             "; a --host-map forgotten?): nothing written" +
                             (a.get("output", "-") == "-" ? "" : ", " + a.get("output") + " kept"));
        // (the topology files: compute hosts only, in one line; a storage
        // or login host Slurm lacks is the usual case, and a daily cron
        // job would say so every day)
        std::vector<std::string> compute_outside;
        for (const std::string &h : outside)
            if (!every_host)
                std::cerr << "atoll-topo: warning: " << h << ": Slurm has no node of this name (" << a.get("slurm-nodes")
                          << "): no line written for it\n";
            else if (t.host_index.count(h) && t.hosts[static_cast<std::size_t>(t.host_index.at(h))].compute)
                compute_outside.push_back(h);
        if (every_host && !compute_outside.empty())
            std::cerr << "atoll-topo: warning: " << shown(compress_hostlist(compute_outside), 200)
                      << ": compute host" << (compute_outside.size() == 1 ? "" : "s") << " Slurm has no node of ("
                      << a.get("slurm-nodes")
                      << "): written all the same (" << (topology_file ? "a topology file" : "the view")
                      << " lists every host of the fabric; "
                         "--slurm-nodes decides only whether a contested host stops it)\n";
    }
    // every host refused (or none in the input): a file of switches alone
    // would replace a good one and stop slurmctld ("No switches configured"
    // once they hold no node); the old file is kept
    if (t.hosts.empty())
        throw InputError(t.fabric.source + ": no host left to write (" +
                         (t.refused.empty() ? std::string("the input names none")
                                            : std::to_string(t.refused.size()) + " refused, see the warnings") +
                         "): nothing written" + (a.get("output", "-") == "-" ? "" : ", " + a.get("output") + " kept"));
    std::vector<K8sLabelChange> changed;
    write_file_atomically(a.get("output", "-"), [&](std::ostream &o) {
        if (what == "tree")
            write_topology_tree(o, t);
        else if (what == "block")
            write_topology_block(o, t, layout);
        else if (what == "yaml")
            write_topology_yaml(o, t, placeholders);
        else if (what == "features")
            write_features_conf(o, t, a.get("node-params"), only);
        else if (what == "feature-list")
            write_feature_list(o, t, only);
        else if (what == "islands")
            write_islands(o, Cluster(t));
        else if (what == "requests")
            write_requests_table(o, Cluster(t), block_requests ? &site : nullptr);
        else if (what == "view")
            write_summary(o, summarise(t, Cluster(t)));
        else if (what == "k8s-labels")
            changed = write_k8s_labels(o, t, only);
        else
            write_scontrol_updates(o, t, current, previous.get(), only);
    });
    // written whole and valid, but not as the island names: exit 3, as check's warnings
    for (const K8sLabelChange &c : changed)
        std::cerr << "atoll-topo: warning: " << compress_hostlist(c.hosts) << ": label " << c.key << ": island name "
                  << shown(c.name, 100) << " is no Kubernetes label value (" << k8s_label_value_problem(c.name) << "): "
                  << (c.value.empty() ? std::string("label removed (no letter or digit to keep)")
                                      : "written as " + c.value)
                  << "\n";
    return changed.empty() ? 0 : 3;
}

int cmd_diff(int argc, char **argv)
{
    Args a = parse_args(argc, argv, 2, {"node-name-map", "host-map", "format", "csv-columns", "hca", "frontend", "compute", "topology-name"},
                        {"json", "topology-updates", "block"});
    if (a.operands.size() != 2)
        throw Usage("diff: give OLD and NEW (any input atoll-topo reads)");
    if ((a.flag("block") || a.flag("topology-name")) && !a.flag("topology-updates"))
        throw Usage("--block and --topology-name go with --topology-updates");
    auto load_one = [&](const std::string &p) {
        Args one = a;
        one.operands = {p};
        return analysed(load_inputs(one, false), "atoll-topo");
    };
    Topology old_t = load_one(a.operands[0]), new_t = load_one(a.operands[1]);
    FabricDiff d = diff_fabrics(old_t, new_t);
    if (a.flag("topology-updates")) {
        // Slurm 25.05 and later move nodes on a running slurmctld; exit 3 when any moved
        std::string name = a.get("topology-name", "default");
        if (name.empty() || name.find_first_of(" :,=\t\n'\"") != std::string::npos)
            throw Usage("--topology-name: \"" + name + "\", expected a topology name of topology.yaml (or default)");
        return write_topology_updates(std::cout, old_t, new_t, name, a.flag("block")) > 0 ? 3 : 0;
    }
    if (a.flag("json")) {
        std::cout << json_text(diff_json(d), 2) << "\n";
    } else {
        for (const auto &c : d.changes)
            std::cout << c.kind << ": " << c.subject << " (" << c.detail << ")\n";
        std::cout << d.changes.size() << " changes; scheduling "
                  << (d.scheduling ? "changed: rewrite Slurm's files (atoll-topo slurm: tree, features, islands, view), "
                                                 "then scontrol reconfigure"
                                   : "unchanged")
                  << "\n";
    }
    return d.scheduling ? 3 : 0;
}

int cmd_node(int argc, char **argv)
{
    Args a = parse_args(argc, argv, 2, {"hwloc-xml", "sysfs-root"}, {"json"});
    if (!a.operands.empty())
        throw Usage("node takes no operands");
    std::vector<GpuHca> gpus = node_gpu_hcas(a.get("hwloc-xml"));
    std::vector<NodePort> ports = node_ports(a.get("sysfs-root", "/sys"));
    if (a.flag("json")) {
        std::cout << json_text(node_json(gpus, ports), 2) << "\n";
        return 0;
    }
    PlainStdout plain;  // sysfs names and states as a node's root wrote them
    std::cout << "gpus:      " << gpus.size() << (a.flag("hwloc-xml") ? " (from " + a.get("hwloc-xml") + ")" : "") << "\n";
    for (const auto &g : gpus)
        std::cout << "  gpu" << g.gpu << " " << g.gpu_busid << " -> "
                  << (g.hca.empty() ? std::string("no HCA") : g.hca + " (" + g.distance + ")")
                  << (g.ties > 1 ? " and " + std::to_string(g.ties - 1) + " more equally near" : std::string()) << "\n";
    std::cout << "hca ports: " << ports.size() << " (under " << a.get("sysfs-root", "/sys") << "/class/infiniband)\n";
    for (const auto &p : ports) {
        std::cout << "  " << p.hca << " port " << p.port << ": " << (p.link_layer.empty() ? "?" : p.link_layer) << ", "
                  << (p.state.empty() ? "?" : p.state) << ", " << (p.rate.empty() ? "?" : p.rate);
        if (!p.netdevs.empty()) {
            std::cout << ", netdev";
            for (const auto &n : p.netdevs)
                std::cout << " " << n;
        }
        if (!p.lower.empty()) {
            std::cout << ", bond of";
            for (const auto &n : p.lower)
                std::cout << " " << n;
        }
        if (!p.representor.empty())
            std::cout << ", e-switch representor " << p.representor << " (no network port)";
        if (p.link_layer == "Ethernet")
            std::cout << (p.roce_v2_gid_index >= 0 ? ", routable RoCE v2 GID " + std::to_string(p.roce_v2_gid_index) + " " + p.roce_v2_gid
                                                   : std::string(", no routable RoCE v2 GID"))
                      << "; NCCL >= 2.21 takes " << nccl_gid_index(p) << ", UCX " << ucx_gid_index(p);
        std::cout << "\n";
    }
    return 0;
}

// The cloud's own profile on this node, for `env`: the compute adapters the
// cloud's rules take from the node (azure, gcp), any variable atoll set that
// the cloud's stack sets itself (node_env() refrains: a line here is a bug or
// --cloud naming another profile than the fabric's), and a missing expected
// profile, as the plugin notes it under --fabric-env=show.
void write_cloud_env(std::ostream &o, const Args &a, const std::string &fabric_profile, const std::vector<NodePort> &ports,
                     const std::vector<EnvVar> &node, const NodeFacts &facts, const std::string &sysfs_root)
{
    std::string cloud = a.get("cloud", "auto");
    if (cloud != "auto" && cloud != "none" && !cloud_profile(cloud))
        throw Usage("--cloud " + cloud + ": expected auto, none, aws, azure, gcp, oci or nebius");
    CloudNode n = cloud_profile(fabric_profile) ? facts.cloud
                                                : read_cloud_node(a.get("root", "/"), sysfs_root, a.get("machine-type", ""));
    if (cloud == "auto")
        cloud = cloud_profile(fabric_profile) ? fabric_profile : "";  // the fabric's profile, not the host running this
    if (cloud == "none" || cloud.empty())
        return;
    o << "cloud " << cloud << " (" << cloud_profile(cloud)->stack << ")"
      << (n.machine_type.empty() ? "" : ", machine type " + shown(n.machine_type)) << "\n";
    if (cloud == "azure" || cloud == "gcp") {
        CloudAdapters c = cloud_adapters(cloud, ports, n.machine_type);
        std::string list;
        for (const auto &hp : c.ports)
            list += (list.empty() ? "=" : ",") + hp.first + ":" + std::to_string(hp.second);
        if (c.ports.empty())
            o << "  compute adapters from the node: none (" << c.why << ")\n";
        else
            o << "  compute adapters from the node: " << list << " (" << c.why << ")\n";
        for (const std::string &l : c.left_out)
            o << "    left out: " << l << "\n";
    }
    for (const EnvVar &v : node) {
        std::string why = v.set && !v.kept ? cloud_refrains(cloud, v.name, n.machine_type, n) : "";
        if (!why.empty())
            o << "  warning: atoll sets " << v.name << ", but " << why << ": atoll must leave it\n";
    }
    for (const CloudFinding &c : check_cloud_profile(cloud, n, ports))
        if (c.level == CloudFinding::Warning || c.level == CloudFinding::Error)
            o << "  " << (c.level == CloudFinding::Error ? "error" : "warning") << ": " << c.check << ": " << c.message << "\n";
}

// The plugin's environment for one node and task, from the same code, with
// every variable set, kept or left alone and why: an admin's dry run.
int cmd_env(int argc, char **argv)
{
    Args a = parse_args(argc, argv, 2,
                        {"node", "nodes", "plugstack", "sysfs-root", "proc-root", "hwloc-xml", "cuda-visible-devices",
                         "step-gpus", "fabric-sharp", "set", "hca", "cloud", "root", "machine-type", "user",
                         "tasks-per-node", "local-id", "fabric-ranks", "workdir"},
                        {"batch"});
    PlainStdout plain;  // sysfs names, file lines and the user's values, on the admin's terminal
    if (a.operands.size() != 1)
        throw Usage("env takes one fabric file (the plugin's view, or a fabric.json)");
    if (!a.flag("node"))
        throw Usage("env needs --node NAME");
    std::vector<std::string> keys;  // every --plugstack given, as one line: a key twice is refused
    if (a.flag("plugstack"))
        for (const std::string &line : a.all("plugstack")) {
            std::istringstream ps(line);
            for (std::string k; ps >> k;)
                keys.push_back(k);
        }
    PluginConfig cfg;
    try {
        cfg = parse_plugstack(keys);
    } catch (const std::invalid_argument &e) {
        throw Usage(std::string("--plugstack: ") + e.what());
    }
    for (const std::string &w : cfg.warnings)
        std::cerr << "atoll-topo: warning: --plugstack: " << w << "\n";
    cfg.owner = geteuid();  // an admin's own copy may be checked too
    for (const char *k : {"sysfs-root", "proc-root", "hwloc-xml", "hca", "root", "machine-type"})
        if (a.flag(k)) {
            std::string v = a.get(k);
            if (std::string(k) == "sysfs-root") cfg.sysfs_root = v;
            if (std::string(k) == "root") cfg.cloud_root = v;
            if (std::string(k) == "machine-type") cfg.machine_type = v;
            if (std::string(k) == "proc-root") cfg.proc_root = v;
            if (std::string(k) == "hwloc-xml") cfg.hwloc_xml = v;
            if (std::string(k) == "hca") cfg.hca = v;
            // a mistyped root reads as a node with no RDMA device, no
            // nccl.conf: a plausible dry run of another node, exit 0
            if ((std::string(k) == "sysfs-root" || std::string(k) == "root" || std::string(k) == "proc-root") &&
                v.find('%') == std::string::npos)
                require_directory(k, v, std::string("the node's ") +
                                            (std::string(k) == "sysfs-root" ? "/sys" : std::string(k) == "root" ? "root directory" : "/proc"));
        }
    UserOptions opt;
    if (a.flag("fabric-sharp"))
        opt.sharp = parse_sharp_mode(a.get("fabric-sharp"));
    if (a.flag("fabric-ranks")) {
        opt.ranks = a.get("fabric-ranks");
        try {
            opt.par = parse_parallelism(opt.ranks);
        } catch (const RankError &e) {
            throw Usage("--fabric-ranks: " + std::string(e.what()));
        }
    }
    // the task: Slurm's layout (tasks on every node) and its local id
    int tasks_per_node = static_cast<int>(a.get_int("tasks-per-node", -1, 1, 65535));
    int local_id = static_cast<int>(a.get_int("local-id", 0, 0, 65535));
    if (tasks_per_node > 0 && local_id >= tasks_per_node)
        throw Usage("--local-id " + std::to_string(local_id) + ": expected less than --tasks-per-node " +
                    std::to_string(tasks_per_node));
    // the task's environment as the user would have it
    std::map<std::string, std::string> env;
    for (const std::string &kv : a.all("set")) {
        std::size_t eq = kv.find('=');
        if (eq == std::string::npos || eq == 0)
            throw Usage("--set " + kv + ": expected NAME=VALUE");
        env[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    if (a.flag("cuda-visible-devices"))
        env["CUDA_VISIBLE_DEVICES"] = a.get("cuda-visible-devices");
    if (a.flag("step-gpus"))
        env["SLURM_STEP_GPUS"] = a.get("step-gpus");
    auto user_has = [&](const std::string &n) { return env.count(n) > 0; };
    auto value_of = [&](const std::string &n) -> std::optional<std::string> {
        auto it = env.find(n);
        if (it == env.end())
            return std::nullopt;
        return it->second;
    };
    std::unique_ptr<FabricView> f = load_fabric_view(cfg, a.operands[0]);
    StepInfo step;
    step.node = a.get("node");
    step.nodes = expand_hostlist(a.get("nodes", step.node));
    step.batch = a.flag("batch");
    step.tasks_per_node = step.batch ? -1 : tasks_per_node;
    step.layout_why = tasks_per_node > 0 ? "" : "--tasks-per-node not given";
    step.atoll_set = atoll_unchanged(value_of("ATOLL_ENV_SET").value_or(""), value_of);
    NodeDevices dev;
    // the job user's passwd home (NCCL before 2.30 reads its .nccl.conf):
    // --user's, else the invoking user's
    std::optional<std::string> pw_home;
    std::string pw_problem;
    uid_t uid = geteuid();
    {
        if (a.flag("user")) {
            std::string who = a.get("user");
            char *end = nullptr;
            errno = 0;
            unsigned long long id = std::strtoull(who.c_str(), &end, 10);
            bool number = !who.empty() && std::isdigit(static_cast<unsigned char>(who[0])) && *end == '\0';
            if (number && (errno || id >= static_cast<unsigned long long>(static_cast<uid_t>(-1))))
                throw Usage("--user " + escaped(who) + ": expected a user name or a uid below 4294967295");
            struct passwd *pw = who.empty() ? nullptr : getpwnam(who.c_str());
            if (pw)
                uid = pw->pw_uid;
            else if (number)
                uid = static_cast<uid_t>(id);
            else
                throw Usage("--user " + escaped(who) + ": no such user (expected a user name or uid with a passwd entry)");
        }
        // as the plugin looks it up: bounded, a directory service may stall
        pw_home = passwd_home_bounded(uid, pw_problem);
        if (a.flag("user") && !pw_home && pw_problem.empty())
            throw Usage("--user " + escaped(a.get("user")) + ": no passwd entry for uid " + std::to_string(uid));
    }
    NcclUserFiles conf = nccl_user_files(value_of("NCCL_CONF_FILE"), value_of("HOME"), pw_home, pw_problem);
    // the job's files as the job reads them: as --user, with its groups
    // (a file only the user, or only root, can read reads differently)
    if (a.flag("user") && uid != geteuid() && conf.unknown.empty()) {
        const std::string also = ": atoll does not know which NCCL variables the nccl.conf files set, so it sets none";
        if (geteuid() != 0) {
            conf.unknown = "atoll-topo env runs as uid " + std::to_string(geteuid()) + ", not as --user's uid " +
                           std::to_string(uid) + ", and only root can read files as another user" + also;
        } else {
            std::string problem;
            conf.read_as = user_ids_bounded(uid, problem);
            if (!conf.read_as)
                conf.unknown = problem + also;
        }
    }
    UcxUserFiles ucx = ucx_user_files(value_of("HOME"), value_of("UCX_CONFIG_DIR"));
    NodeFacts facts = read_node_facts(*f, cfg, step.node, conf, dev, ucx);
    if (!cfg.hwloc_xml.empty() && dev.usable && !step.batch)
        facts.gpu_hcas = gpu_hca_pairs(atl_gpu_hcas3, per_node_path(cfg.hwloc_xml, step.node), dev.active, cfg.owner,
                                       &facts.hwloc_hcas);
    std::vector<EnvVar> node = node_env(*f, cfg, opt, step, facts, user_has);
    std::vector<EnvVar> task = task_env(cfg, facts, dev, step, value_of("CUDA_VISIBLE_DEVICES").value_or(""),
                                        value_of("SLURM_STEP_GPUS").value_or(""), user_has);
    // the task's working directory's ucx.conf (--workdir), as the task reads it
    if (a.flag("workdir")) {
        std::vector<std::string> problems;
        NcclConfVars cwd = ucx_conf_vars({}, {a.get("workdir") + "/ucx.conf"}, problems, user_file_bound,
                                         conf.read_as ? &*conf.read_as : nullptr);
        leave_to_cwd_ucx_conf(node, cwd.vars, cwd.unknown, cfg.roce_tc >= 0);
        leave_to_cwd_ucx_conf(task, cwd.vars, cwd.unknown, cfg.roce_tc >= 0);
        facts.problems.insert(facts.problems.end(), problems.begin(), problems.end());
    }
    std::cout << "node " << step.node << (step.batch ? ", the batch step" : "") << ", " << step.nodes.size()
              << " node(s) in the step; fabric " << f->summary.source << " (" << f->profile << ")\n";
    for (const auto *ws : {&facts.problems, &dev.problems})
        for (const std::string &w : *ws)
            std::cout << "  warning: " << one_line(w) << "\n";
    for (EnvVar &v : node)
        if (v.kept && v.why.rfind("set in ", 0) != 0 && env.count(v.name))
            v.value = env[v.name];  // the user's own (one an nccl.conf sets goes: the plugin unsets it)
    for (const std::string &w : user_value_problems(facts, dev, node))
        std::cout << "  warning: " << one_line(w) << "\n";
    for (const EnvVar &v : node)
        std::cout << "  " << describe(v) << "\n";
    write_cloud_env(std::cout, a, f->profile, facts.ports, node, facts,
                    cfg.sysfs_root.empty() ? "/sys" : per_node_path(cfg.sysfs_root, step.node));
    std::cout << "task (CUDA_VISIBLE_DEVICES=" << escaped(value_of("CUDA_VISIBLE_DEVICES").value_or("")) << " SLURM_STEP_GPUS="
              << escaped(value_of("SLURM_STEP_GPUS").value_or("")) << ")\n";
    for (EnvVar &v : task) {
        if (v.kept && env.count(v.name))
            v.value = env[v.name];
        std::cout << "  " << describe(v) << "\n";
    }
    // the task's global rank in atoll's order (--fabric-ranks: the plan's)
    StepOrder order = step_order(f->summary, step);
    if (!opt.ranks.empty())
        plan_step_ranks(f->summary, step, opt.par, opt.ranks, order);
    EnvVar rank = task_rank(order, step, local_id);
    if (env.count("ATOLL_RANK"))
        rank.why += rank.set ? "; the job's own value replaced" : "; the job's own value removed";
    std::cout << "  " << describe(rank) << "\n";
    return 0;
}

int cmd_dot(int argc, char **argv)
{
    Args a = parse_args(argc, argv, 2, common_values, {"hosts"});
    Topology t = analysed(load_inputs(a, false), "atoll-topo");
    DotOptions opt;
    opt.hosts = a.flag("hosts");
    write_file_atomically(a.get("output", "-"), [&](std::ostream &o) { write_dot(o, t, opt); });
    return 0;
}

// The fabric as one HTML page, for the admin and the network team: what
// check finds, where, and what slurm would write (files it cannot write are
// shown with the reason).
int cmd_report(int argc, char **argv)
{
    std::vector<std::string> vals = common_values;
    vals.insert(vals.end(), {"previous"});
    Args a = parse_args(argc, argv, 2, vals, {});
    Topology t = analysed(load_inputs(a, false, true), "atoll-topo");
    std::unique_ptr<Topology> previous = previous_fabric(a);
    auto findings = check(t, CheckContext{previous.get(), slurm_list(a, t)});
    auto file = [&](const std::string &name, const std::string &command, const std::function<void(std::ostream &)> &w) {
        std::ostringstream s;
        try {
            w(s);
        } catch (const std::exception &e) {
            s.str("");
            s << "# not written: " << e.what() << "\n";
        }
        return ReportFile{name, command, s.str()};
    };
    std::vector<ReportFile> files = {
        file("topology.conf (topology/tree)", "atoll-topo slurm --format tree", [&](std::ostream &o) { write_topology_tree(o, t); }),
        file("topology.conf (topology/block)", "atoll-topo slurm --format block",
             [&](std::ostream &o) { write_topology_block(o, t); }),
        file("topology.yaml (Slurm 25.05 and later)", "atoll-topo slurm --format yaml",
             [&](std::ostream &o) { write_topology_yaml(o, t); }),
        file("island features (a slurm.conf include)", "atoll-topo slurm --format features",
             [&](std::ostream &o) { write_features_conf(o, t, "", slurm_list(a, t)); }),
    };
    write_file_atomically(a.get("output", "-"), [&](std::ostream &o) {
        write_report(o, t, findings, files, std::string("atoll-topo ") + PACKAGE_VERSION);
    });
    return 0;
}

int to_int(const std::string &opt, const std::string &v)
{
    char *end = nullptr;
    long n = std::strtol(v.c_str(), &end, 10);
    if (v.empty() || *end || n < 0 || n > 100000)
        throw Usage("--" + opt + ": \"" + v + "\", expected a whole number");
    return static_cast<int>(n);
}

std::vector<std::string> split(const std::string &s, char c)
{
    std::vector<std::string> out;
    std::string cur;
    std::istringstream ss(s);
    while (std::getline(ss, cur, c))
        out.push_back(cur);
    return out;
}

int cmd_generate(int argc, char **argv)
{
    Args a = parse_args(argc, argv, 2,
                        {"pods", "groups", "rails", "hosts", "spines", "cores", "oversub", "speed", "host-prefix",
                         "swap-rails", "degrade", "drop-leaf", "default-desc", "output", "format", "domain-size",
                         "nvlink-output", "gpus"},
                        {"sharp"});
    if (!a.operands.empty())
        throw Usage("generate takes no operands");
    GenSpec s;
    if (a.flag("pods")) s.pods = to_int("pods", a.get("pods"));
    if (a.flag("groups")) s.groups_per_pod = to_int("groups", a.get("groups"));
    if (a.flag("rails")) s.rails = to_int("rails", a.get("rails"));
    if (a.flag("hosts")) s.hosts_per_group = to_int("hosts", a.get("hosts"));
    if (a.flag("spines")) s.spines_per_pod = to_int("spines", a.get("spines"));
    if (a.flag("cores")) s.cores = to_int("cores", a.get("cores"));
    if (a.flag("domain-size")) s.domain_size = to_int("domain-size", a.get("domain-size"));
    if (a.flag("nvlink-output") && !a.flag("domain-size"))
        throw Usage("--nvlink-output needs --domain-size");
    int gpus = a.flag("gpus") ? to_int("gpus", a.get("gpus")) : 4;
    if (gpus < 1 || gpus > 64)
        throw Usage("--gpus: \"" + a.get("gpus") + "\", expected 1 to 64 GPUs per host");
    if (a.flag("oversub")) {
        const std::string ov = a.get("oversub");  // `end` points into it: it must outlive the check
        char *end = nullptr;
        s.oversub = std::strtod(ov.c_str(), &end);
        if (ov.empty() || *end || !(s.oversub > 0) || s.oversub > 1000)
            throw Usage("--oversub: \"" + ov + "\", expected a ratio such as 2 (for 2:1)");
    }
    if (a.flag("speed")) {
        s.speed = speed_from_string(a.get("speed"));
        if (s.speed == Speed::Unknown)
            throw Usage("--speed: \"" + a.get("speed") + "\", expected SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR or XDR");
    }
    s.sharp = a.flag("sharp");
    if (a.flag("host-prefix")) s.host_prefix = a.get("host-prefix");
    for (const auto &v : a.all("swap-rails")) {
        auto p = split(v, ':');
        if (p.size() != 3)
            throw Usage("--swap-rails: \"" + v + "\", expected HOST:RAIL:RAIL");
        s.swap_rails.push_back({p[0], to_int("swap-rails", p[1]), to_int("swap-rails", p[2])});
    }
    auto host_rail = [&](const char *opt, std::vector<GenSpec::HostRail> &dst) {
        for (const auto &v : a.all(opt)) {
            auto p = split(v, ':');
            if (p.size() != 2)
                throw Usage(std::string("--") + opt + ": \"" + v + "\", expected HOST:RAIL");
            dst.push_back({p[0], to_int(opt, p[1])});
        }
    };
    host_rail("degrade", s.degrade);
    host_rail("default-desc", s.default_desc);
    s.drop_leaves = a.all("drop-leaf");
    std::string fmt = a.get("format", "net");
    if (fmt != "net" && fmt != "json")
        throw Usage("--format: \"" + fmt + "\", expected net or json");
    Fabric f;
    try {
        f = generate(s);
    } catch (const std::invalid_argument &e) {
        throw Usage(e.what());
    }
    write_file_atomically(a.get("output", "-"), [&](std::ostream &o) {
        if (fmt == "net")
            write_ibnetdiscover(o, f);
        else
            save_fabric_json(o, analyse(f));
    });
    if (a.flag("nvlink-output"))
        write_file_atomically(a.get("nvlink-output"), [&](std::ostream &o) { write_nvidia_smi_pdsh(o, f, gpus); });
    return 0;
}

}  // namespace

int main(int argc, char **argv)
{
    return run_tool("atoll-topo", usage_text, argc, argv, [&](const std::string &cmd) {
        if (cmd == "discover") return cmd_discover(argc, argv);
        if (cmd == "show") return cmd_show(argc, argv);
        if (cmd == "check") return cmd_check(argc, argv);
        if (cmd == "slurm") return cmd_slurm(argc, argv);
        if (cmd == "dot") return cmd_dot(argc, argv);
        if (cmd == "report") return cmd_report(argc, argv);
        if (cmd == "diff") return cmd_diff(argc, argv);
        if (cmd == "node") return cmd_node(argc, argv);
        if (cmd == "env") return cmd_env(argc, argv);
        if (cmd == "generate") return cmd_generate(argc, argv);
        if (cmd == "health") return cmd_health(argc, argv);
        throw Usage("unknown command \"" + cmd + "\"");
    });
}
