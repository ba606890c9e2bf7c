#include "tools/topo_health.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <optional>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <poll.h>
#include <sstream>
#include <string>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

#include "node/cloudenv.hpp"

#include <pwd.h>
#include <unistd.h>
#include "node/health.hpp"
#include "node/sysfs.hpp"
#include "tools/args.hpp"
#include "topology/io.hpp"
#include "topology/topology.hpp"

namespace atl {
namespace {

// IF=FILE options: netdev -> files, in the order given
std::map<std::string, std::vector<std::string>> per_netdev(const Args &a, const std::string &opt)
{
    std::map<std::string, std::vector<std::string>> m;
    for (const std::string &v : a.all(opt)) {
        std::size_t eq = v.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == v.size())
            throw Usage("--" + opt + " " + v + ": expected IF=FILE");
        m[v.substr(0, eq)].push_back(v.substr(eq + 1));
    }
    return m;
}

// An input file the admin names (--policy, --mlnx-qos IF=FILE, --ethtool
// IF=FILE): a regular file of at most 16 MiB, never a FIFO or a device, so
// health under HealthCheckProgram cannot block or grow without bound.
std::string slurp(const std::string &path)
{
    constexpr std::size_t kMax = std::size_t(16) << 20;
    struct stat st;
    if (stat(path.c_str(), &st) != 0)
        throw InputError(path + ": cannot open (" + std::string(std::strerror(errno)) + ")");
    if (!S_ISREG(st.st_mode))
        throw InputError(path + ": not a regular file (a " +
                         (S_ISFIFO(st.st_mode) ? std::string("FIFO") : S_ISDIR(st.st_mode) ? "directory" : "device") +
                         "), expected a file of command output or a policy");
    if (static_cast<std::size_t>(st.st_size) > kMax)
        throw InputError(path + ": " + std::to_string(st.st_size) + " bytes, expected at most 16 MiB");
    std::optional<std::string> text = read_small_file(path, kMax + 1);
    if (!text)
        throw InputError(path + ": cannot open");
    if (text->size() > kMax)
        throw InputError(path + ": more than 16 MiB, expected at most that");
    return *text;
}

// The standard output of argv (no shell), at most 10 s; nullopt when it
// cannot be run or fails, and then `why` says how ("not installed", "exit 3",
// "timed out after 10 s").
std::optional<std::string> run_capture(const std::vector<std::string> &argv, std::string &why)
{
    int fds[2];
    if (pipe(fds) != 0) {
        why = "cannot make a pipe";
        return std::nullopt;
    }
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        why = "cannot fork";
        return std::nullopt;
    }
    if (pid == 0) {
        dup2(fds[1], 1);
        int devnull = ::open("/dev/null", O_RDWR);
        if (devnull >= 0) {
            dup2(devnull, 0);
            dup2(devnull, 2);
        }
        close(fds[0]);
        std::vector<char *> args;
        for (const std::string &s : argv)
            args.push_back(const_cast<char *>(s.c_str()));
        args.push_back(nullptr);
        execvp(args[0], args.data());
        _exit(127);
    }
    close(fds[1]);
    std::string out;
    bool timed_out = false;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    char buf[4096];
    for (;;) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
        struct pollfd p = {fds[0], POLLIN, 0};
        if (left <= 0 || poll(&p, 1, static_cast<int>(left)) <= 0) {
            kill(pid, SIGKILL);
            timed_out = true;
            break;
        }
        ssize_t n = read(fds[0], buf, sizeof buf);
        if (n <= 0)
            break;
        out.append(buf, static_cast<std::size_t>(n));
        if (out.size() > (1u << 22))
            break;
    }
    close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (timed_out)
        why = "timed out after 10 s";
    else if (WIFSIGNALED(status))
        why = "killed by signal " + std::to_string(WTERMSIG(status));
    else if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        why = "not installed: exit 127, " + argv[0] + " not found on PATH or not runnable";
    else if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
        why = "exit " + std::to_string(WEXITSTATUS(status));
    else if (!WIFEXITED(status))
        why = "did not exit";
    else
        return out;
    return std::nullopt;
}

}  // namespace

namespace {

int health_run(int argc, char **argv, std::string &prometheus)
{
    std::vector<std::string> vals = {"sysfs-root", "then-sysfs-root", "interval", "mlnx-qos", "ethtool", "policy", "prometheus",
                                     "cloud", "root", "machine-type", "dev-root", "proc-root", "imex-uid"};
    for (const std::string &k : health_policy_keys())
        vals.push_back(k);
    Args a = parse_args(argc, argv, 2, vals, {"verbose", "imex"});
    if (a.flag("prometheus"))
        prometheus = a.get("prometheus");
    if (!a.operands.empty())
        throw Usage("health takes no operands");
    if ((a.flag("dev-root") || a.flag("proc-root") || a.flag("imex-uid")) && !a.flag("imex"))
        throw Usage("--dev-root, --proc-root and --imex-uid need --imex");
    HealthPolicy policy;
    if (a.flag("policy")) {
        std::string p = a.get("policy");
        std::istringstream in(slurp(p));
        std::vector<std::string> said;
        policy = parse_health_policy(in, p, HealthPolicy(), &said);
        for (const std::string &w : said)
            std::cerr << "atoll-topo: warning: " << one_line(w) << "\n";
    }
    for (const std::string &k : health_policy_keys())
        if (a.flag(k)) {
            try {
                set_health_policy(policy, k, a.get(k));
            } catch (const std::invalid_argument &e) {
                throw Usage(std::string("--") + e.what());
            }
        }
    double interval = a.get_double("interval", 1, 0, 600);
    std::string root = a.get("sysfs-root", "/sys");
    // the programs are run only on the node's own /sys, never for a test tree
    bool live = !a.flag("sysfs-root") || root == "/sys";
    auto qos_files = per_netdev(a, "mlnx-qos"), eth_files = per_netdev(a, "ethtool");
    for (const auto &kv : qos_files)
        if (kv.second.size() > 1)
            throw Usage("--mlnx-qos " + kv.first + "=...: give it once (the last would silently win)");
    for (const auto &kv : eth_files)
        if (kv.second.size() > 2)
            throw Usage("--ethtool " + kv.first + "=...: give it once (one read) or twice (before and after)");

    // the cloud's own NCCL profile: --cloud, else the cloud the DMI strings
    // name (none off the clouds); files under --root, DMI under --sysfs-root
    std::string cloud = a.get("cloud", "auto");
    if (cloud != "auto" && cloud != "none" && !cloud_profile(cloud))
        throw Usage("--cloud " + cloud + ": expected auto, none, aws, azure, gcp, oci or nebius");
    if (a.flag("root"))  // a mistyped root would read as a node with no nccl.conf at all
        require_directory("root", a.get("root"), "the node's root directory");
    CloudNode cnode = read_cloud_node(a.get("root", "/"), root, a.get("machine-type", ""));
    if (cloud == "auto")
        cloud = cloud_of(cnode);
    // the node's nccl.conf (read whatever the cloud): the class and GID
    // index every job's NCCL takes from it, as NCCL's ncclLoadParam reads a
    // parameter: an empty value or an overflow leaves the default (class 0;
    // the GID index NCCL's own), else strtoll(s, NULL, 0) with no end check
    // ("abc" is 0); the class is a byte (net_ib: 297 is 41, 256 is 0), -1
    // the default (0 from NCCL 2.27, 255 before); the GID index an int
    std::vector<HealthFinding> conf_findings;
    const std::string conf_path = path_in_root(a.get("root", "/"), "/etc/nccl.conf");
    policy.nccl_conf = escaped(a.get("root", "/") == "/" ? "/etc/nccl.conf" : conf_path, 200);
    auto conf_finding = [&](const std::string &msg) {
        HealthFinding h;
        h.check = "nccl-conf";
        h.status = policy.qos_required() ? HealthStatus::Error : HealthStatus::Warning;
        h.message = policy.nccl_conf + ": " + msg;
        conf_findings.push_back(h);
    };
    struct stat conf_st;
    const bool conf_exists = ::stat(conf_path.c_str(), &conf_st) == 0;
    // the SL NCCL sends where the file gives none: its default, 0
    auto sl_default = [&](const std::string &why) { policy.nccl_sl = {{0, "NCCL's default: " + why}}; };
    if (conf_exists && !S_ISREG(conf_st.st_mode)) {
        conf_finding("not a regular file: every job's NCCL opens it (a FIFO blocks it), and the class it sends "
                     "cannot be verified");
        policy.nccl_unknown = true;
    } else if (!cnode.nccl_conf_problem.empty()) {
        conf_finding(cnode.nccl_conf_problem.substr(cnode.nccl_conf_problem.rfind("/etc/nccl.conf: ", 0) == 0 ? 16 : 0) +
                     ": the class every job's NCCL takes from it cannot be verified");
        policy.nccl_unknown = true;
    } else if (conf_exists && !(conf_st.st_mode & S_IROTH)) {
        HealthFinding h;  // a file jobs cannot read sets nothing for them
        h.check = "nccl-conf";
        h.status = HealthStatus::Warning;
        h.message = policy.nccl_conf + ": not readable by every user: jobs' NCCL does not read it, its values are not checked";
        conf_findings.push_back(h);
        sl_default(policy.nccl_conf + " is not readable by every user, so jobs' NCCL reads nothing from it");
    } else if (!conf_exists) {
        sl_default("there is no " + policy.nccl_conf);
    } else {
        // each reading: NCCL 2.30 and later (fgets: a line over 4095 bytes
        // in pieces), and before (getline: whole lines)
        const std::pair<const std::map<std::string, std::string> *, std::string> readings[] = {
            {&cnode.nccl_conf, ""}, {&cnode.nccl_conf_before_2_30, ", as NCCL before 2.30 reads its long lines"}};
        auto param = [&](const std::map<std::string, std::string> &conf, const char *name, long long def, long long &into) {
            auto it = conf.find(name);
            if (it == conf.end())
                return false;
            errno = 0;
            long long v = std::strtoll(it->second.c_str(), nullptr, 0);
            into = it->second.empty() || errno != 0 ? def : v;
            return true;
        };
        // a byte (the class: net_ib; the SL: ibv_ah_attr.sl), -1 the default:
        // 0 from NCCL 2.27, 255 before; each value once, its first reading
        auto bytes = [&](const char *name, std::vector<HealthPolicy::NcclValue> &into, bool with_default) {
            for (const auto &r : readings) {
                long long v = 0;
                std::vector<HealthPolicy::NcclValue> got;
                if (!param(*r.first, name, 0, v)) {
                    if (with_default)
                        got.push_back({0, "NCCL's default: " + policy.nccl_conf + " sets no " + name + r.second});
                } else if (v == -1) {
                    got.push_back({0, std::string(name) + "=-1 in " + policy.nccl_conf + ": 0 from NCCL 2.27" + r.second});
                    got.push_back({255, std::string(name) + "=-1 in " + policy.nccl_conf + ": 255 before NCCL 2.27" + r.second});
                } else {
                    got.push_back({static_cast<int>(static_cast<unsigned long long>(v) & 0xff),
                                   std::string(name) + " in " + policy.nccl_conf + r.second});
                }
                for (const HealthPolicy::NcclValue &g : got)
                    if (std::none_of(into.begin(), into.end(), [&](const HealthPolicy::NcclValue &x) { return x.value == g.value; }))
                        into.push_back(g);
            }
        };
        bytes("NCCL_IB_TC", policy.nccl_tc, false);
        bytes("NCCL_IB_SL", policy.nccl_sl, true);
        long long gid = -1;
        const auto &conf = cnode.nccl_conf;
        for (const char *k : {"NCCL_IB_ADDR_RANGE", "NCCL_IB_ADDR_FAMILY", "NCCL_IB_ROCE_VERSION_NUM"})
            if (policy.nccl_gid_chooser.empty() && conf.count(k))
                policy.nccl_gid_chooser = k;
        if (param(conf, "NCCL_IB_GID_INDEX", -1, gid)) {
            const int as_int = static_cast<int>(static_cast<std::uint32_t>(static_cast<unsigned long long>(gid)));
            policy.nccl_gid_index = as_int < 0 ? -1 : as_int;
        }
    }
    std::vector<NodePort> all_ports = node_ports(root);
    std::vector<HealthFinding> cloud_findings;
    if (cloud != "none")
        for (const CloudFinding &c : check_cloud_profile(cloud, cnode, all_ports)) {
            HealthFinding h;
            h.check = c.check;
            h.status = c.level == CloudFinding::Error     ? HealthStatus::Error
                       : c.level == CloudFinding::Warning ? HealthStatus::Warning
                       : c.level == CloudFinding::Skipped ? HealthStatus::Skipped
                                                          : HealthStatus::Ok;
            h.message = cloud + ": " + c.message;
            cloud_findings.push_back(h);
        }
    // multi-node NVLink: an IMEX channel the job's user (--imex-uid, default
    // the caller) may open, under --dev-root (default /dev), of the major
    // --proc-root's devices gives the driver's channels (default /proc)
    if (a.flag("imex")) {
        uid_t uid = getuid();
        gid_t gid = getgid();
        std::vector<gid_t> groups;
        if (a.flag("imex-uid")) {
            uid = static_cast<uid_t>(a.get_int("imex-uid", 0, 0, 4294967294L));
            struct passwd *pw = getpwuid(uid);
            gid = pw ? pw->pw_gid : static_cast<gid_t>(uid);
        } else {
            int n = getgroups(0, nullptr);
            groups.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
            if (n > 0 && getgroups(n, groups.data()) != n)
                groups.clear();
        }
        cloud_findings.push_back(
            imex_health(imex_channels(a.get("dev-root", "/dev"), uid, gid, groups, a.get("proc-root", "/proc")), uid));
    }

    // on azure and gcp's gIB machines only the compute adapters by the
    // cloud's rule (never Azure's accelerated-networking device), unless
    // --hca/hca= chooses them; one line says what was left out
    bool by_rule = policy.hca.empty() &&
                   (cloud == "azure" || (cloud == "gcp" && (cnode.machine_type.empty() ||
                                                             gcp_network_stack(cnode.machine_type) == "gib")));
    std::string left_out, representors;
    std::vector<PortFacts> ports;
    // (helper 74) without hca=, ports that are no rail: a port not ACTIVE
    // whose number is ACTIVE on no adapter of its link layer, on an adapter
    // another of whose ports is (a dual-port card cabled once: NCCL and UCX
    // open ACTIVE ports only; port 1 down where the other adapters run
    // port 1 is a dead rail, whichever port the adapter still runs), and an
    // ACTIVE port of another model (hca_type) than most ACTIVE ports of its
    // link layer, at another rate than theirs (a front-end ConnectX or a
    // BlueField beside the rails, slower or faster: helper 75). A port of
    // the rails' own model at another rate trained down: checked, an error.
    auto fmt_gbps = [](double g) {
        std::ostringstream o;
        o << g;
        return o.str();
    };
    auto model_of = [](const NodePort &p) {
        std::string m;
        for (char c : p.hca_type)
            if (!std::isspace(static_cast<unsigned char>(c)))
                m += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
        return m;
    };
    std::map<std::string, int> active_on;                    // adapter -> its ACTIVE ports
    std::map<std::string, std::set<int>> active_numbers;     // link layer -> port numbers ACTIVE somewhere
    std::map<std::string, std::map<std::string, int>> models;      // link layer -> model -> its ACTIVE ports
    std::map<std::string, std::map<std::string, double>> model_rate;  // link layer -> model -> its fastest
    auto candidate = [&](const NodePort &p) {
        return hca_selected(policy.hca, p.hca) && p.representor.empty() && (!by_rule || cloud_non_compute(cloud, p).empty());
    };
    for (const NodePort &p : all_ports)
        if (candidate(p) && p.active()) {
            ++active_on[p.hca];
            active_numbers[p.link_layer].insert(p.port);
            ++models[p.link_layer][model_of(p)];
            double &r = model_rate[p.link_layer][model_of(p)];
            r = std::max(r, port_rate_gbps(p.rate));
        }
    std::map<std::string, std::set<std::string>> at_rails_rate;  // link layer -> models with a port at the rails' rate
    std::map<std::string, std::string> rails_model;  // link layer -> the model of most ACTIVE ports ("" a tie or unknown)
    for (const auto &ll : models) {
        int most = 0, at = 0;
        for (const auto &m : ll.second)
            most = std::max(most, m.second);
        for (const auto &m : ll.second)
            if (m.second == most) {
                ++at;
                rails_model[ll.first] = m.first;
            }
        if (at != 1)
            rails_model[ll.first].clear();
    }
    for (const NodePort &p : all_ports)
        if (candidate(p) && p.active() && !rails_model[p.link_layer].empty() &&
            port_rate_gbps(p.rate) == model_rate[p.link_layer][rails_model[p.link_layer]])
            at_rails_rate[p.link_layer].insert(model_of(p));
    auto no_rail = [&](const NodePort &p) -> std::string {
        if (!policy.hca.empty())
            return "";
        if (!p.active() && active_on.count(p.hca) && !active_numbers[p.link_layer].count(p.port))
            return "not ACTIVE (" + escaped(p.state, 40) + ") where another port of " + p.hca +
                   " is, and no adapter here runs port " + std::to_string(p.port) + ": an unused port";
        const std::string &rails = rails_model[p.link_layer], mine = model_of(p);
        const double g = port_rate_gbps(p.rate), theirs = rails.empty() ? 0 : model_rate[p.link_layer][rails];
        // (a model some port of which runs at the rails' rate is a rail
        // model of a mixed node: its slower port trained down; helper 76)
        if (p.active() && g > 0 && theirs > 0 && !mine.empty() && mine != rails && g != theirs &&
            !at_rails_rate[p.link_layer].count(mine))
            return "a " + escaped(p.hca_type, 40) + " at " + escaped(p.rate, 60) + " beside " +
                   std::to_string(models[p.link_layer][rails]) + " ACTIVE ports of " + escaped(rails, 40) + " at " +
                   fmt_gbps(theirs) + " Gb/sec: another model at another rate, not a rail (name the rails with hca= to check it)";
        return "";
    };
    std::string not_rails;
    for (const NodePort &p : all_ports) {
        if (!hca_selected(policy.hca, p.hca))
            continue;
        // an e-switch representor's port (switchdev) is no network port: its
        // link is a VF's, it has no QoS of its own, mlnx_qos refuses it
        if (!p.representor.empty()) {
            representors += (representors.empty() ? "" : ", ") + p.hca + " port " + std::to_string(p.port) + " (" +
                            escaped(p.representor, 100) + ")";
            continue;
        }
        std::string why = by_rule ? cloud_non_compute(cloud, p) : "";
        if (!why.empty()) {
            left_out += (left_out.empty() ? "" : ", ") + p.hca + " port " + std::to_string(p.port) + " (" + why + ")";
            continue;
        }
        if (std::string nr = no_rail(p); !nr.empty()) {
            not_rails += (not_rails.empty() ? "" : ", ") + p.hca + " port " + std::to_string(p.port) + " (" + nr + ")";
            continue;
        }
        for (PortFacts &f : port_facts(root, p))
            ports.push_back(f);
    }
    for (HealthFinding &h : missing_hcas(policy, all_ports, root))
        conf_findings.push_back(std::move(h));
    // ports=: the ACTIVE RDMA ports checked, at least the site's count (a
    // pattern in hca=, or none, cannot tell an adapter gone: helper 74, a
    // p5.48xlarge with 31 of its 32 EFA devices passed)
    if (policy.ports > 0) {
        const long up = std::count_if(ports.begin(), ports.end(), [](const PortFacts &f) { return f.bond.empty() && f.port.active(); });
        HealthFinding h;
        h.check = "ports";
        h.status = up < policy.ports ? HealthStatus::Error : HealthStatus::Ok;
        h.message = std::to_string(up) + " ACTIVE RDMA port" + (up == 1 ? "" : "s") +
                    (up < policy.ports ? " where the policy's ports= is " + std::to_string(policy.ports) +
                                             ": an adapter is gone (off the PCI bus, its driver not loaded), down or left out"
                                       : ", ports=" + std::to_string(policy.ports));
        conf_findings.push_back(h);
    }
    // after the report: its first line is the drain reason a site's wrapper gives
    auto adapters_line = [&]() {
        if (!left_out.empty())
            std::cout << "adapters: " << cloud << ": left out, not compute adapters by the cloud's rule: " << left_out << "\n";
        if (!representors.empty())
            std::cout << "adapters: left out, e-switch representor ports (switchdev), no network port: " << representors << "\n";
        if (!not_rails.empty())
            std::cout << "adapters: left out, no rail: " << not_rails << "\n";
    };
    // the textfile once the node was checked: a failed write is said, but the
    // exit status stays the node's (a wrapper drains on a non-zero one)
    auto metrics = [&](const std::vector<HealthFinding> &fs, double secs) {
        if (!a.flag("prometheus"))
            return;
        try {
            write_file_atomically(a.get("prometheus"), [&](std::ostream &o) { write_health_metrics(o, fs, ports, secs); });
        } catch (const std::exception &e) {
            std::cerr << "atoll-topo: warning: --prometheus " << escaped(a.get("prometheus"), 200) << ": " << e.what()
                      << " (the node was checked: the exit status is its health)\n";
        }
    };
    // a RoCE LAG's bond: mlnx_qos and ethtool are read on its members, not on it
    auto is_bond = [](const PortFacts &f) { return f.bond.empty() && !f.port.lower.empty(); };
    // a cloud node without RDMA ports that expects a profile (A3 Mega's TCPXO): that alone
    bool cloud_expects = std::any_of(cloud_findings.begin(), cloud_findings.end(),
                                     [](const HealthFinding &h) { return h.status != HealthStatus::Skipped; });
    if (ports.empty() && cloud_expects) {
        write_health_report(std::cout, cloud_findings, 0, a.flag("verbose"));
        adapters_line();
        metrics(cloud_findings, 0);
        for (const HealthFinding &h : cloud_findings)
            if (h.status == HealthStatus::Error)
                return 4;
        return 0;
    }
    if (ports.empty())
        throw InputError(root + "/class/infiniband: no RDMA port" + (policy.hca.empty() ? "" : " matching hca=" + policy.hca) +
                         (representors.empty() ? "" : " but e-switch representor ports: " + representors));

    // a program's text for a netdev: the n-th saved file given for it, else
    // (on the node itself, when `run`) the program's output; source names it
    // in errors, why says why there is none
    auto text_of = [&](const std::map<std::string, std::vector<std::string>> &files, const std::string &netdev,
                       std::size_t n, const std::vector<std::string> &cmd, bool run, std::string &source,
                       std::string &why) -> std::optional<std::string> {
        auto it = files.find(netdev);
        if (it != files.end()) {
            if (n >= it->second.size())
                return std::nullopt;
            source = it->second[n];
            return slurp(source);
        }
        source = cmd[0] + " " + cmd[1] + " " + netdev;
        if (!live) {
            std::string opt = cmd[0];
            std::replace(opt.begin(), opt.end(), '_', '-');  // mlnx_qos: --mlnx-qos
            why = "no --" + opt + " " + netdev + "=FILE, and " + root + " is not the node's own /sys";
            return std::nullopt;
        }
        if (!run) {
            why = "not run";
            return std::nullopt;
        }
        return run_capture(cmd, why);
    };
    for (PortFacts &f : ports) {
        std::string source;
        std::optional<std::string> text;
        if (!f.netdev.empty() && !is_bond(f) && (text = text_of(qos_files, f.netdev, qos_files.count(f.netdev) ? qos_files[f.netdev].size() - 1 : 0,
                                                 {"mlnx_qos", "-i", f.netdev}, policy.qos, source, f.qos_missing))) {
            std::istringstream in(*text);
            f.qos = parse_mlnx_qos(in, source);
        }
    }
    // ethtool -S, read `n`-th (0 before, 1 after)
    auto ethtool = [&](const PortFacts &f, std::size_t n, std::map<std::string, std::uint64_t> &into) {
        std::string source, why;
        std::optional<std::string> text;
        if (!f.netdev.empty() && !is_bond(f) && (text = text_of(eth_files, f.netdev, n, {"ethtool", "-S", f.netdev}, true, source, why))) {
            std::istringstream in(*text);
            add_ethtool_counters(into, parse_ethtool_stats(in, source));
        }
    };
    for (PortFacts &f : ports) {
        if (f.bond.empty())  // a member shares its bond's port counters
            f.before = read_port_counters(root, f.port);
        ethtool(f, 0, f.before);
    }
    if (interval > 0) {
        std::string then = a.get("then-sysfs-root", root);
        if (!a.flag("then-sysfs-root"))
            std::this_thread::sleep_for(std::chrono::duration<double>(interval));
        for (PortFacts &f : ports) {
            if (f.bond.empty())
                f.after = read_port_counters(then, f.port);
            ethtool(f, 1, f.after);
        }
    } else if (a.flag("then-sysfs-root")) {
        throw Usage("--then-sysfs-root needs an --interval above 0 (the seconds between the two reads)");
    }

    std::vector<HealthFinding> findings = check_health(ports, policy, interval);
    findings.insert(findings.end(), conf_findings.begin(), conf_findings.end());
    findings.insert(findings.end(), cloud_findings.begin(), cloud_findings.end());
    std::size_t nports = static_cast<std::size_t>(
        std::count_if(ports.begin(), ports.end(), [](const PortFacts &f) { return f.bond.empty(); }));
    write_health_report(std::cout, findings, nports, a.flag("verbose"));
    adapters_line();
    metrics(findings, interval);
    for (const HealthFinding &h : findings)
        if (h.status == HealthStatus::Error)
            return 4;
    return 0;
}

}  // namespace

int cmd_health(int argc, char **argv)
{
    PlainStdout plain;  // its lines are NHC's drain reason: no terminal codes from a node's sysfs
    // the textfile of a run that fails (a usage or input error) says so,
    // atoll_health_up 0, in place of the last run's gauges: a node whose
    // health cannot be read must not go on showing as healthy. Where the
    // arguments do not parse, the path is the last --prometheus given.
    std::string prometheus;
    for (int i = 2; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--prometheus" && i + 1 < argc)
            prometheus = argv[++i];
        else if (arg.rfind("--prometheus=", 0) == 0)
            prometheus = arg.substr(13);
    }
    try {
        return health_run(argc, argv, prometheus);
    } catch (...) {
        if (!prometheus.empty() && prometheus != "-") {
            try {
                write_file_atomically(prometheus, [](std::ostream &o) { write_health_down(o); });
            } catch (const std::exception &e) {
                std::cerr << "atoll-topo: warning: --prometheus " << escaped(prometheus, 200) << ": " << e.what() << "\n";
            }
        }
        throw;
    }
}

}  // namespace atl
