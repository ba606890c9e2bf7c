#include "node/cloudenv.hpp"

#include <algorithm>
#include <cctype>
#include <fcntl.h>
#include <fnmatch.h>
#include <glob.h>
#include <istream>
#include <iterator>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

#include "node/ncclconf.hpp"
#include "topology/fabric.hpp"

namespace atl {

namespace {

// where each stack's variables are set (docs/cloud-profiles.md cites the commits)
const char *const ofi_platform = "aws-ofi-nccl src/platform-aws.cpp";
const char *const azure_conf = "azhpc-images components/customizations/<family>.sh (/etc/nccl.conf)";
const char *const gib_env = "/usr/local/gib/scripts/set_nccl_env.sh (nccl-gib)";
const char *const tcpxo_env = "/var/lib/tcpxo/lib64/nccl-env-profile.sh (TCPXO)";
const char *const oci_conf = "oci-hpc playbooks/roles/nccl-conf/templates (/etc/nccl.conf)";

// the EC2 types whose platform entry sets buffer and chunk sizes
const std::vector<std::string> ofi_tuned = {"p4d.", "p4de.", "p5.", "p5e.", "p5en.", "p6", "g7e."};
const std::vector<std::string> ofi_nvls = {"p5.", "p5e.", "p5en.", "p6"};

std::vector<CloudProfile> make_profiles()
{
    std::vector<CloudProfile> v;
    v.push_back({"aws", "aws-ofi-nccl", {
        {"FI_EFA_FORK_SAFE", "1", ofi_platform, {}},
        {"RDMAV_FORK_SAFE", "1", std::string(ofi_platform) + " (libfabric < 1.13)", {}},
        {"NCCL_TOPO_FILE", "", std::string(ofi_platform) + ", src/nccl_ofi_rdma.cpp (a topology file per instance type)", {}},
        {"NCCL_PROTO", "simple", "aws-ofi-nccl src/nccl_ofi_net.cpp (when EFA cannot order 128-byte writes)", {}},
        {"NCCL_NVLS_ENABLE", "0", std::string(ofi_platform) + " (NCCL versions without NVLS on EFA)", {}},
        {"NCCL_TUNER_PLUGIN", "", std::string(ofi_platform) + " (its own tuner)", {}},
        {"NCCL_BUFFSIZE", "8388608", ofi_platform, ofi_tuned},
        {"NCCL_P2P_NET_CHUNKSIZE", "524288", ofi_platform, ofi_tuned},
        {"NCCL_NVLSTREE_MAX_CHUNKSIZE", "524288", ofi_platform, ofi_nvls},
        {"NCCL_NVLS_CHUNKSIZE", "524288", ofi_platform, ofi_nvls},
        {"NCCL_NET_FORCE_FLUSH", "0", ofi_platform, ofi_nvls},
        {"NCCL_NETDEVS_POLICY", "max:1", ofi_platform, {"p5en.", "p6-b200."}},
    }});
    v.push_back({"azure", "Azure HPC image (/etc/nccl.conf)", {
        {"NCCL_TOPO_FILE", "/opt/microsoft/<family>/topo.xml", azure_conf, {}},
        {"NCCL_IB_PCI_RELAXED_ORDERING", "1", azure_conf, {}},
        {"NCCL_IGNORE_CPU_AFFINITY", "1", azure_conf, {}},
        {"NCCL_GRAPH_FILE", "/opt/microsoft/ncv4/graph.xml", azure_conf, {"standard_nc96ads_a100_v4"}},
        {"NCCL_SOCKET_IFNAME", "eth0", azure_conf, {"standard_nc*_rtxpro6000bse_v6"}},
    }});
    std::vector<std::string> gib = {"a3-ultragpu*", "a4-highgpu*", "a4x-highgpu*"};
    std::vector<std::string> tcpxo = {"a3-megagpu*"};
    v.push_back({"gcp", "gIB (set_nccl_env.sh) or TCPXO (nccl-env-profile.sh)", {
        {"NCCL_NET", "gIB", gib_env, gib},
        {"NCCL_CROSS_NIC", "0", gib_env, {}},
        {"NCCL_NET_GDR_LEVEL", "PIX", gib_env, gib},
        {"NCCL_P2P_NET_CHUNKSIZE", "131072", gib_env, gib},
        {"NCCL_NVLS_CHUNKSIZE", "524288", gib_env, gib},
        {"NCCL_IB_ADAPTIVE_ROUTING", "1", gib_env, gib},
        {"NCCL_IB_QPS_PER_CONNECTION", "4", gib_env, gib},
        {"NCCL_IB_TC", "52", gib_env, gib},
        {"NCCL_IB_FIFO_TC", "84", gib_env, gib},
        {"NCCL_IB_GID_INDEX", "3", "cluster-toolkit examples/machine-learning/a4-highgpu-8g/a4high-vm.yaml (gIB defaults)", gib},
        {"NCCL_TUNER_CONFIG_PATH", "", gib_env, {}},
        {"NCCL_FASTRAK_CTRL_DEV", "", tcpxo_env, tcpxo},
        {"NCCL_FASTRAK_IFNAME", "", tcpxo_env, tcpxo},
        {"NCCL_SOCKET_IFNAME", "", "cluster-toolkit nccl-tests run-nccl-tests.sh (A3 Mega, A3 Ultra)",
         {"a3-ultragpu*", "a4-highgpu*", "a4x-highgpu*", "a3-megagpu*"}},
        {"NCCL_TUNER_PLUGIN", "libnccl-tuner.so", tcpxo_env, tcpxo},
    }});
    v.push_back({"oci", "oci-hpc (/etc/nccl.conf)", {
        {"NCCL_IB_GID_INDEX", "3", oci_conf, {}},
        {"NCCL_IB_TC", "41", oci_conf, {}},
        {"NCCL_IB_SL", "0", oci_conf, {}},
        {"NCCL_IB_QPS_PER_CONNECTION", "", oci_conf + std::string(" (4 on A100 shapes, 1 on H100/H200/B200)"), {}},
        {"NCCL_IB_SPLIT_DATA_ON_QPS", "0", oci_conf, {}},
        {"NCCL_IB_TIMEOUT", "22", oci_conf, {}},
        {"NCCL_IB_HCA", "", oci_conf + std::string(" (the shape's RDMA NICs, in its order)"), {}},
        {"NCCL_SOCKET_IFNAME", "eth0", oci_conf, {}},
        {"NCCL_IGNORE_CPU_AFFINITY", "1", oci_conf, {}},
        {"NCCL_NET_PLUGIN", "", oci_conf, {}},
        {"NCCL_CUMEM_ENABLE", "0", oci_conf, {}},
    }});
    v.push_back({"nebius", "none published", {}});
    return v;
}

std::string lower(std::string s)
{
    for (char &c : s)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

bool starts_with(const std::string &s, const std::string &p) { return s.compare(0, p.size(), p) == 0; }

// "projects/123/machineTypes/a3-ultragpu-8g" -> "a3-ultragpu-8g"; lower case
std::string machine_name(const std::string &t)
{
    std::size_t slash = t.rfind('/');
    return lower(slash == std::string::npos ? t : t.substr(slash + 1));
}

// a machine type against the patterns of a CloudVar: a prefix ("p5."), or a
// shell pattern when it holds '*'
bool type_matches(const std::vector<std::string> &types, const std::string &machine_type)
{
    if (types.empty() || machine_type.empty())
        return true;
    std::string m = machine_name(machine_type);
    for (const std::string &t : types)
        if (t.find('*') != std::string::npos ? fnmatch(t.c_str(), m.c_str(), 0) == 0 : starts_with(m, t))
            return true;
    return false;
}

bool exists(const std::string &path)
{
    struct stat st;
    return ::stat(path.c_str(), &st) == 0;
}

// PATH as seen from inside ROOT (an image or a test tree): each symbolic
// link on the way is followed inside ROOT, an absolute target from ROOT
// itself and ".." never above it, at most 40 links (the kernel's
// MAXSYMLINKS). ROOT empty or "/": PATH itself.
std::string in_root(const std::string &root, const std::string &path)
{
    if (root.empty() || root == "/")
        return path;
    std::vector<std::string> todo, done;  // todo: components left, last first
    auto push_path = [&](const std::string &p) {
        std::vector<std::string> parts;
        std::string part;
        std::istringstream in(p);
        while (std::getline(in, part, '/'))
            if (!part.empty() && part != ".")
                parts.push_back(part);
        todo.insert(todo.end(), parts.rbegin(), parts.rend());
    };
    auto joined = [&]() {
        std::string p;
        for (const auto &d : done)
            p += "/" + d;
        return p;
    };
    push_path(path);
    int links = 0;
    while (!todo.empty()) {
        std::string c = todo.back();
        todo.pop_back();
        if (c == "..") {
            if (!done.empty())
                done.pop_back();
            continue;
        }
        done.push_back(c);
        std::string here = root + joined();
        struct stat st;
        if (::lstat(here.c_str(), &st) != 0 || !S_ISLNK(st.st_mode))
            continue;
        char buf[4096];
        ssize_t n = ::readlink(here.c_str(), buf, sizeof buf);
        if (n <= 0 || n == static_cast<ssize_t>(sizeof buf) || ++links > 40)
            return root + joined();  // unreadable or looping: stat then fails or finds the link itself
        std::string target(buf, static_cast<std::size_t>(n));
        done.pop_back();
        if (target[0] == '/')
            done.clear();
        push_path(target);
    }
    return root + joined();
}

std::string dmi(const std::string &sysfs, const char *name)
{
    std::string s = read_small_file(sysfs + "/class/dmi/id/" + name, 256).value_or("");
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r'))
        s.pop_back();
    return s;
}

// Azure: the image's topology family for a VM size (setup_sku_customizations.sh)
std::string azure_family(const std::string &vm_size)
{
    static const std::vector<std::pair<const char *, const char *>> fam = {
        {"standard_nc96ads_a100_v4", "ncv4"},   {"standard_nd*v4", "ndv4"},
        {"standard_nd40rs_v2", "ndv2"},         {"standard_hb176*v4", "hbv4"},
        {"standard_nc80adis_h100_v5", "ncv5"},  {"standard_nd96is*_h[1-2]00_v5", "ndv5"},
        {"standard_nd128is*_gb[2-3]00_v6", "gb-family"}, {"standard_nc*_rtxpro6000bse_v6", "ncv6"},
    };
    std::string m = lower(vm_size);
    for (const auto &f : fam)
        if (fnmatch(f.first, m.c_str(), 0) == 0)
            return f.second;
    return "";
}

// compute NICs per machine of a family, where the provider documents it
int expected_nics(const std::string &profile, const std::string &machine_type)
{
    std::string m = machine_name(machine_type);
    if (profile == "azure") {
        std::string f = azure_family(m);
        return f == "ndv4" || f == "ndv5" ? 8 : f == "gb-family" ? 4 : 0;
    }
    if (profile == "gcp") {
        if (starts_with(m, "a3-ultragpu") || starts_with(m, "a4-highgpu"))
            return 8;
        if (starts_with(m, "a4x-highgpu"))
            return 4;
    }
    return 0;
}

// the release named in a library file, read 1 MiB at a time (at most 256
// MiB; a regular file only, never blocking), keeping the last bytes of each
// chunk so that a string across two chunks is found
std::string ofi_nccl_version_of_file(const std::string &path)
{
    int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return "";
    struct stat st;
    std::string found;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        constexpr std::size_t chunk = std::size_t(1) << 20, keep = 64, limit = std::size_t(256) << 20;
        std::string buf;
        std::size_t total = 0;
        std::vector<char> b(chunk);
        while (found.empty() && total < limit) {
            ssize_t n = ::read(fd, b.data(), chunk);
            if (n <= 0)
                break;
            total += static_cast<std::size_t>(n);
            buf.append(b.data(), static_cast<std::size_t>(n));
            found = ofi_nccl_version_in(buf);
            if (buf.size() > keep)
                buf.erase(0, buf.size() - keep);
        }
    }
    ::close(fd);
    return found;
}

std::string port_name(const NodePort &p) { return p.hca + " port " + std::to_string(p.port); }

CloudFinding finding(CloudFinding::Level l, const std::string &m) { return {"cloud-profile", l, m}; }

}  // namespace

std::string path_in_root(const std::string &root, const std::string &path) { return in_root(root, path); }

const std::vector<CloudProfile> &cloud_profiles()
{
    static const std::vector<CloudProfile> p = make_profiles();
    return p;
}

const CloudProfile *cloud_profile(const std::string &name)
{
    for (const CloudProfile &p : cloud_profiles())
        if (p.name == name)
            return &p;
    return nullptr;
}

std::string cloud_refrains(const std::string &profile, const std::string &var, const std::string &machine_type)
{
    const CloudProfile *p = cloud_profile(profile);
    if (!p)
        return "";
    for (const CloudVar &v : p->vars)
        if (v.name == var && type_matches(v.types, machine_type))
            return p->stack + " sets " + var + (v.value.empty() ? "" : "=" + v.value) + " (" + v.where + ")";
    return "";
}

std::string cloud_refrains(const std::string &profile, const std::string &var, const std::string &machine_type,
                           const CloudNode &node)
{
    std::string theirs = cloud_refrains(profile, var, machine_type);
    if (theirs.empty() || profile != "azure" || !node.nccl_conf_present || !node.nccl_conf_problem.empty())
        return theirs;
    // (helpers 48, 49: NCCL_SOCKET_IFNAME, the rtxpro6000 VMs' alone, was
    // withheld from every VM of an unknown type, and warned as the image's)
    for (const auto *conf : {&node.nccl_conf, &node.nccl_conf_before_2_30}) {
        auto it = conf->find(var);
        if (it != conf->end() && !it->second.empty())
            return cloud_profile(profile)->stack + " sets " + var + "=" + escaped(it->second, 200) + " (/etc/nccl.conf)";
    }
    return "";
}

std::map<std::string, std::string> parse_nccl_conf(std::istream &in, const std::string &source,
                                                   std::set<std::string> *cr)
{
    // as NCCL reads it (nccl_conf_lines: fgets into 4096 bytes, a long line
    // in pieces, a NUL ending what it sees of a line): what every job's NCCL
    // takes from the file, whatever else is in it
    (void)source;
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::map<std::string, std::string> out;
    for (const NcclConfLine &l : nccl_conf_lines(text))
        if (out.emplace(l.name, l.value).second && l.cr && cr)
            cr->insert(l.name);
    return out;
}

std::string ofi_nccl_version_in(const std::string &bytes)
{
    // the plugin's own banner first ("NET/OFI Initializing aws-ofi-nccl 1.18.0-aws"),
    // then any other "aws-ofi-nccl X.Y" (PACKAGE_STRING)
    static const std::string banner = "Initializing aws-ofi-nccl ";
    for (std::size_t at = bytes.find(banner); at != std::string::npos; at = bytes.find(banner, at + 1)) {
        std::size_t p = at + banner.size(), q = p;
        while (q < bytes.size() && (std::isdigit(static_cast<unsigned char>(bytes[q])) || (bytes[q] == '.' && q > p)))
            ++q;
        if (q > p && q - p <= 24 && std::isdigit(static_cast<unsigned char>(bytes[q - 1])) &&
            bytes.compare(p, q - p, std::string(q - p, '.')) != 0 && bytes.substr(p, q - p).find('.') != std::string::npos)
            return bytes.substr(p, q - p);
    }
    static const std::string tag = "aws-ofi-nccl ";
    for (std::size_t at = bytes.find(tag); at != std::string::npos; at = bytes.find(tag, at + 1)) {
        std::size_t p = at + tag.size(), q = p;
        int dots = 0;
        while (q < bytes.size() && (std::isdigit(static_cast<unsigned char>(bytes[q])) || (bytes[q] == '.' && q > p))) {
            dots += bytes[q] == '.';
            ++q;
        }
        // a whole release: its string goes on (NUL, '-aws', a newline) after the digits
        if (dots >= 1 && q - p <= 24 && q < bytes.size() && std::isdigit(static_cast<unsigned char>(bytes[q - 1])))
            return bytes.substr(p, q - p);
    }
    return "";
}

int compare_versions(const std::string &a, const std::string &b)
{
    auto parts = [](const std::string &s) {
        std::vector<long> v;
        std::size_t i = 0;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) {
            long x = 0;
            while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) && x < 100000000)
                x = x * 10 + (s[i++] - '0');
            v.push_back(x);
            if (i < s.size() && s[i] == '.')
                ++i;
            else
                break;
        }
        return v;
    };
    std::vector<long> x = parts(a), y = parts(b);
    for (std::size_t i = 0; i < std::max(x.size(), y.size()); ++i) {
        long l = i < x.size() ? x[i] : 0, r = i < y.size() ? y[i] : 0;
        if (l != r)
            return l < r ? -1 : 1;
    }
    return 0;
}

std::string ofi_nccl_minimum(const std::string &instance_type)
{
    // the first release whose platform table has an entry matching the type
    // (git tags of aws/aws-ofi-nccl, docs/cloud-profiles.md)
    static const std::vector<std::pair<const char *, const char *>> first = {
        {"p4d.24xlarge", "1.1.1"}, {"p5.48xlarge", "1.7.0"},
        {"p5e.48xlarge", "1.11.0"}, {"p5en.48xlarge", "1.13.0"}, {"p6-b200.*", "1.14.0"},
        {"p6e-gb200.*", "1.14.0"}, {"p6-b300.*", "1.14.0"}, {"p6*", "1.14.0"},
    };
    std::string m = lower(instance_type);
    for (const auto &f : first)
        if (fnmatch(f.first, m.c_str(), 0) == 0)
            return f.second;
    return "";
}

CloudNode read_cloud_node(const std::string &root, const std::string &sysfs_root, const std::string &machine_type)
{
    CloudNode n;
    std::string sys = sysfs_root.empty() ? root + "/sys" : sysfs_root;
    n.sys_vendor = dmi(sys, "sys_vendor");
    n.product_name = dmi(sys, "product_name");
    n.chassis_asset_tag = dmi(sys, "chassis_asset_tag");
    n.machine_type = machine_type;
    if (n.machine_type.empty() && cloud_of(n) == "aws")
        n.machine_type = n.product_name;  // EC2 names the instance type there
    constexpr std::size_t conf_max = 1 << 20;
    if (auto conf = read_small_file(in_root(root, "/etc/nccl.conf"), conf_max + 1)) {
        n.nccl_conf_present = true;
        std::istringstream in(*conf);
        try {
            if (conf->size() > conf_max)
                throw InputError("/etc/nccl.conf: over " + std::to_string(conf_max) +
                                 " bytes, expected a short NAME=VALUE file (NCCL reads it whole; atoll does not)");
            n.nccl_conf = parse_nccl_conf(in, "/etc/nccl.conf", &n.nccl_conf_cr);
            for (const NcclConfLine &l : nccl_conf_lines_before_2_30(*conf))
                n.nccl_conf_before_2_30.emplace(l.name, l.value);
        } catch (const InputError &e) {
            n.nccl_conf_problem = e.what();
        }
        auto t = n.nccl_conf.find("NCCL_TOPO_FILE");
        if (t != n.nccl_conf.end())
            n.topo_file_found = !t->second.empty() && t->second[0] == '/' && exists(in_root(root, t->second));
    }
    // the EFA installer's layouts: lib64 on RPM systems, the multiarch
    // directory on Debian and Ubuntu (lib/x86_64-linux-gnu, and
    // lib/aarch64-linux-gnu on Graviton and GB200 hosts), lib elsewhere;
    // then where NCCL's dlopen("libnccl-net.so") finds it without
    // NCCL_NET_PLUGIN: the dynamic loader's directories, /usr/local's and
    // /usr's (a source build's default prefix, a package) and those
    // ld.so.conf lists (helper 74: a plugin in /usr/local/lib drained a p5)
    n.ofi_nccl_library = [&]() -> std::string {
        std::vector<std::string> dirs;
        for (const char *prefix : {"/opt/amazon/ofi-nccl", "/opt/aws-ofi-nccl", "/usr/local", "/usr"})
            for (const char *dir : {"/lib/", "/lib64/", "/lib/x86_64-linux-gnu/", "/lib/aarch64-linux-gnu/"})
                dirs.push_back(std::string(prefix) + dir);
        // ld.so.conf and what its include lines name (paths inside the
        // root: a symbolic link among them is followed inside it, helper
        // 75), 64 files at most
        std::vector<std::string> confs = {"/etc/ld.so.conf"};
        std::set<std::string> seen(confs.begin(), confs.end());
        auto include = [&](std::string pattern) {
            if (pattern.empty() || pattern[0] != '/')
                pattern = "/etc/" + pattern;  // ldconfig: relative to the file's directory, /etc
            const std::size_t slash = pattern.rfind('/');
            const std::string dir = pattern.substr(0, slash), base = pattern.substr(slash + 1);
            if (dir.find_first_of("*?[") != std::string::npos || dir.find("..") != std::string::npos)
                return;
            glob_t g{};
            if (::glob((in_root(root, dir.empty() ? "/" : dir) + "/" + base).c_str(), 0, nullptr, &g) == 0)
                for (std::size_t i = 0; i < g.gl_pathc && confs.size() < 64; ++i) {
                    std::string name = g.gl_pathv[i];
                    name = dir + "/" + name.substr(name.rfind('/') + 1);
                    if (seen.insert(name).second)
                        confs.push_back(name);
                }
            ::globfree(&g);
        };
        include("/etc/ld.so.conf.d/*.conf");
        for (std::size_t k = 0; k < confs.size(); ++k)
            if (auto text = read_small_file(in_root(root, confs[k]), 65536)) {
                std::istringstream in(*text);
                for (std::string line; std::getline(in, line);) {
                    line = line.substr(0, line.find('#'));
                    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back())))
                        line.pop_back();
                    std::size_t b = line.find_first_not_of(" \t");
                    if (b == std::string::npos)
                        continue;
                    line = line.substr(b);
                    if (line.compare(0, 8, "include ") == 0 || line.compare(0, 8, "include\t") == 0)
                        include(line.substr(std::min(line.size(), line.find_first_not_of(" \t", 8))));
                    else if (line[0] == '/' && line.find("..") == std::string::npos)
                        dirs.push_back(line + "/");
                }
            }
        for (const std::string &dir : dirs)
            for (const char *name : {"libnccl-net-ofi.so", "libnccl-net.so"})
                if (std::string lib = dir + name; exists(in_root(root, lib)))
                    return lib;
        return "";
    }();
    if (!n.ofi_nccl_library.empty())
        n.ofi_nccl_version = ofi_nccl_version_of_file(in_root(root, n.ofi_nccl_library));
    // jobs may bring their NCCL plugin in a container image (AWS's and NGC's
    // EFA images carry aws-ofi-nccl): what the host lacks they may not
    for (const char *rt : {"/usr/bin/enroot", "/usr/local/bin/enroot", "/usr/bin/apptainer", "/usr/local/bin/apptainer",
                           "/usr/bin/singularity", "/usr/local/bin/singularity", "/etc/slurm/oci.conf"})
        if (struct stat st; ::stat(in_root(root, rt).c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
            n.container_runtime = rt;
            break;
        }
    n.gib_env_script = exists(in_root(root, "/usr/local/gib/scripts/set_nccl_env.sh"));
    n.gib_plugin = exists(in_root(root, "/usr/local/gib/lib64/libnccl-net.so")) || exists(in_root(root, "/usr/local/gib/lib64/libnccl-net_internal.so"));
    n.tcpxo_profile = exists(in_root(root, "/var/lib/tcpxo/lib64/nccl-env-profile.sh"));
    for (const char *f : {"ndv2", "ndv4", "ndv5", "ncv4", "ncv5", "hbv4"}) {
        std::string t = std::string("/opt/microsoft/") + f + "-topo.xml";
        if (exists(in_root(root, t)))
            n.azure_topo_files.push_back(t);
    }
    return n;
}

std::string cloud_of(const CloudNode &n)
{
    if (n.sys_vendor == "Amazon EC2")
        return "aws";
    if (n.chassis_asset_tag == "7783-7084-3265-9085-8269-3286-77")  // Azure's, as cloud-init's ds-identify checks it
        return "azure";
    if (n.product_name == "Google Compute Engine" || n.sys_vendor == "Google")
        return "gcp";
    if (n.chassis_asset_tag == "OracleCloud.com")
        return "oci";
    return "";
}

std::string gcp_network_stack(const std::string &machine_type)
{
    std::string m = machine_name(machine_type);
    if (starts_with(m, "a3-ultragpu") || starts_with(m, "a4-highgpu") || starts_with(m, "a4x-highgpu"))
        return "gib";
    if (starts_with(m, "a3-megagpu"))
        return "tcpxo";
    if (starts_with(m, "a3-highgpu"))
        return "tcpx";
    return "";
}

namespace {

std::vector<const NodePort *> roce_mlx5(const std::vector<NodePort> &ports)
{
    std::vector<const NodePort *> v;
    for (const NodePort &p : ports)
        if (p.link_layer == "Ethernet" && starts_with(p.hca, "mlx5_"))
            v.push_back(&p);
    return v;
}

std::vector<CloudFinding> check_aws(const CloudNode &n)
{
    std::string type = n.machine_type;
    if (type.empty())
        return {finding(CloudFinding::Skipped, "the instance type is unknown (DMI product_name, or --machine-type)")};
    std::string min = ofi_nccl_minimum(type);
    if (min.empty())
        return {finding(CloudFinding::Skipped, shown(type) + ": aws-ofi-nccl has no platform entry for it; nothing expected")};
    // a container runtime on the host: its jobs' images may carry their own
    // plugin, so what the host has is a warning, never a reason to drain
    const CloudFinding::Level bad = n.container_runtime.empty() ? CloudFinding::Error : CloudFinding::Warning;
    const std::string images = n.container_runtime.empty() ? std::string()
                                                           : "; " + n.container_runtime +
                                                                 " is here: jobs in container images must bring their own";
    if (n.ofi_nccl_library.empty())
        return {finding(bad, shown(type) + " needs aws-ofi-nccl >= " + min +
                                 ", and there is none under /opt/amazon/ofi-nccl, /opt/aws-ofi-nccl, /usr/local, /usr "
                                 "or a directory ld.so.conf lists: NCCL would fall back to sockets (a plugin only "
                                 "LD_LIBRARY_PATH reaches, a module's, is not seen: list its directory in ld.so.conf.d)" + images)};
    if (n.ofi_nccl_version.empty())
        return {finding(CloudFinding::Warning, n.ofi_nccl_library + " names no \"aws-ofi-nccl X.Y\" release: cannot tell whether it is >= " +
                                                   min + ", which " + shown(type) + " needs")};
    if (compare_versions(n.ofi_nccl_version, min) < 0)
        return {finding(bad, "aws-ofi-nccl " + n.ofi_nccl_version + " (" + n.ofi_nccl_library + ") is older than " + min +
                                 ", the first release that knows " + shown(type) + ": it sets none of that platform's variables" +
                                 images)};
    return {finding(CloudFinding::Ok, "aws-ofi-nccl " + n.ofi_nccl_version + " >= " + min + " for " + shown(type))};
}

std::vector<CloudFinding> check_azure(const CloudNode &n, const std::vector<NodePort> &ports)
{
    std::string fam = azure_family(n.machine_type);
    CloudFinding::Level missing = CloudFinding::Error;
    std::string subject;
    if (!n.machine_type.empty()) {
        if (fam != "ndv2" && fam != "ndv4" && fam != "ndv5" && fam != "ncv4")
            return {finding(CloudFinding::Skipped, shown(n.machine_type) + ": the Azure HPC image writes no NCCL_TOPO_FILE for it")};
        subject = shown(n.machine_type) + " (" + fam + ")";
    } else {
        int ib = 0;
        for (const NodePort &p : ports)
            ib += p.link_layer == "InfiniBand";
        if (ib != 8)
            return {finding(CloudFinding::Skipped, "the VM size is unknown (--machine-type, from IMDS compute.vmSize) and " +
                                                       std::to_string(ib) + " InfiniBand port(s) are not ND v4/v5's 8")};
        subject = "8 InfiniBand ports (ND v4/v5, VM size not given)";
        missing = CloudFinding::Warning;
    }
    if (!n.nccl_conf_problem.empty())
        return {finding(missing, n.nccl_conf_problem)};
    auto it = n.nccl_conf.find("NCCL_TOPO_FILE");
    if (it == n.nccl_conf.end())
        return {finding(missing, subject + ": " + (n.nccl_conf_present ? "/etc/nccl.conf sets no NCCL_TOPO_FILE" : "no /etc/nccl.conf") +
                                     " (the image's sku-customizations service writes it): NCCL does not see the VM's "
                                     "virtual PCI topology and pairs GPUs and HCAs badly")};
    if (n.topo_file_found == 0)
        return {finding(missing, subject + ": /etc/nccl.conf NCCL_TOPO_FILE=" + shown(it->second, 200) +
                                     " names no file (the image links /opt/microsoft/<family>-topo.xml there)")};
    if (n.nccl_conf_cr.count("NCCL_TOPO_FILE"))
        return {finding(CloudFinding::Warning,
                        subject + ": /etc/nccl.conf has CRLF line ends: NCCL 2.30 and later drop the CR and read NCCL_TOPO_FILE=" +
                            shown(it->second, 200) + ", earlier releases keep it in the name and find no file (write it with LF ends)")};
    return {finding(CloudFinding::Ok, "/etc/nccl.conf NCCL_TOPO_FILE=" + shown(it->second, 200))};
}

std::vector<CloudFinding> check_gcp(const CloudNode &n, const std::vector<NodePort> &ports)
{
    std::string stack = gcp_network_stack(n.machine_type);
    CloudFinding::Level missing = CloudFinding::Error;
    std::string subject = shown(n.machine_type);
    if (n.machine_type.empty()) {
        std::size_t r = roce_mlx5(ports).size();
        if (r == 0)
            return {finding(CloudFinding::Skipped, "the machine type is unknown (--machine-type, from the metadata server's "
                                                   "instance/machine-type) and no RoCE mlx5 NIC shows a gIB machine")};
        stack = "gib";
        missing = CloudFinding::Warning;
        subject = std::to_string(r) + " RoCE mlx5 NIC(s) (a gIB machine; machine type not given)";
    }
    if (stack == "gib") {
        if (!n.gib_env_script || !n.gib_plugin)
            return {finding(missing, subject + ": no gIB profile (" +
                                         std::string(!n.gib_env_script ? "/usr/local/gib/scripts/set_nccl_env.sh" : "") +
                                         (!n.gib_env_script && !n.gib_plugin ? ", " : "") +
                                         (!n.gib_plugin ? "/usr/local/gib/lib64/libnccl-net.so" : "") +
                                         " missing; the nccl-gib package installs them): NCCL runs without the gIB plugin")};
        return {finding(CloudFinding::Ok, subject + ": the gIB profile is installed (jobs must source set_nccl_env.sh)")};
    }
    if (stack == "tcpxo") {
        if (!n.tcpxo_profile)
            return {finding(missing, subject + ": no /var/lib/tcpxo/lib64/nccl-env-profile.sh (the TCPXO profile): NCCL "
                                               "runs over plain TCP")};
        return {finding(CloudFinding::Ok, subject + ": the TCPXO profile is installed")};
    }
    return {finding(CloudFinding::Skipped, subject + ": no GPU network profile is checked for this machine type")};
}

std::vector<CloudFinding> check_oci(const CloudNode &n, const std::vector<NodePort> &ports)
{
    if (roce_mlx5(ports).empty())
        return {finding(CloudFinding::Skipped, "no RoCE mlx5 NIC: not an OCI RDMA GPU shape")};
    std::vector<std::string> miss;
    for (const char *v : {"NCCL_IB_GID_INDEX", "NCCL_IB_TC", "NCCL_IB_HCA"})
        if (!n.nccl_conf.count(v))
            miss.push_back(v);
    if (miss.empty())
        return {finding(CloudFinding::Ok, "/etc/nccl.conf sets NCCL_IB_GID_INDEX, NCCL_IB_TC and NCCL_IB_HCA")};
    std::string m;
    for (const std::string &s : miss)
        m += (m.empty() ? "" : ", ") + s;
    return {finding(CloudFinding::Warning, std::string(n.nccl_conf_present ? "/etc/nccl.conf" : "no /etc/nccl.conf, so it") +
                                               " sets no " + m + " (oci-hpc's nccl-conf role writes them: GID 3, class 41, "
                                               "the shape's NICs); unless each job sets them, RoCE runs on the default class")};
}

}  // namespace

std::vector<CloudFinding> check_cloud_profile(const std::string &profile, const CloudNode &node, const std::vector<NodePort> &ports)
{
    if (profile == "aws")
        return check_aws(node);
    if (profile == "azure")
        return check_azure(node, ports);
    if (profile == "gcp")
        return check_gcp(node, ports);
    if (profile == "oci")
        return check_oci(node, ports);
    if (profile == "nebius")
        return {finding(CloudFinding::Skipped, "nebius: no image NCCL profile is published, nothing to check")};
    return {};
}

std::string cloud_non_compute(const std::string &profile, const NodePort &p)
{
    std::string layer = p.link_layer.empty() ? "no link layer" : p.link_layer;
    if (profile == "azure") {
        bool an = starts_with(p.hca, "mlx5_an");
        if (an && p.link_layer == "InfiniBand")
            return "";  // a contradiction cloud_adapters reports; health checks it as any port
        if (an || p.link_layer != "InfiniBand")
            return std::string(an ? "accelerated networking" : "not InfiniBand") + " (" + layer + ")";
    } else if (profile == "gcp") {
        if (p.link_layer != "Ethernet" || !starts_with(p.hca, "mlx5_"))
            return "not a RoCE mlx5 GPU NIC (" + layer + ")";
    }
    return "";
}

CloudAdapters cloud_adapters(const std::string &profile, const std::vector<NodePort> &ports, const std::string &machine_type)
{
    CloudAdapters a;
    std::vector<const NodePort *> take;
    // a port whose link layer could not be read (missing, a FIFO, bytes
    // that are neither Ethernet nor InfiniBand) may be a compute NIC or not:
    // a list without it would hold this node to fewer than its peers
    if (profile == "azure" || profile == "gcp")
        for (const NodePort &p : ports)
            if (p.link_layer != "Ethernet" && p.link_layer != "InfiniBand" &&
                !(profile == "azure" && starts_with(p.hca, "mlx5_an"))) {
                a.why = port_name(p) + " has no link layer atoll could read (" +
                        (p.link_layer.empty() ? std::string("none") : shown(p.link_layer)) +
                        "): whether it is a compute NIC is not known, and a list without it may differ from "
                        "the other nodes'";
                return a;
            }
    if (profile == "azure") {
        for (const NodePort &p : ports) {
            bool an = starts_with(p.hca, "mlx5_an");
            if (an && p.link_layer == "InfiniBand") {
                a.why = port_name(p) + " is named as Azure's accelerated-networking device but its link layer is InfiniBand: "
                                       "which ports are compute is unclear";
                return a;
            }
            std::string out = cloud_non_compute(profile, p);
            if (!out.empty())
                a.left_out.push_back(port_name(p) + ": " + out);
            else
                take.push_back(&p);
        }
        a.why = "azure: the InfiniBand ports, never the accelerated-networking device";
    } else if (profile == "gcp") {
        std::string stack = gcp_network_stack(machine_type);
        if (!machine_type.empty() && stack != "gib") {
            a.why = shown(machine_type) + " is no gIB machine type (a3-ultragpu, a4-highgpu, a4x-highgpu): it has no RDMA "
                    "GPU NICs for NCCL_IB_HCA to name";
            return a;
        }
        // with the machine type unknown (no machine_type=), the count of GPU
        // NICs is not known either: only ports with Google's GPU-NIC netdev
        // names (gpu0rdma0 .. gpu7rdma0) are taken, never another RoCE mlx5
        // the GPU's number N of a GPU NIC's netdev, spelt as Google does
        // (gpuNrdma0, N without a leading zero); -1: none
        auto gpu_nic = [](const NodePort &p) {
            for (const std::string &nd : p.netdevs) {
                std::size_t i = 3, j;
                if (nd.compare(0, 3, "gpu") != 0)
                    continue;
                for (j = i; j < nd.size() && std::isdigit(static_cast<unsigned char>(nd[j])); ++j) {
                }
                if (j == i || j - i > 2 || (nd[i] == '0' && j - i > 1) || nd.compare(j, std::string::npos, "rdma0") != 0)
                    continue;
                return std::stoi(nd.substr(i, j - i));
            }
            return -1;
        };
        std::set<int> gpus;
        bool twice = false;  // two ports of one GPU's name (gpu0rdma0 on two)
        std::string unnamed;  // a RoCE mlx5 port without such a name
        for (const NodePort &p : ports) {
            std::string out = cloud_non_compute(profile, p);
            const int gpu = gpu_nic(p);
            if (out.empty() && machine_type.empty() && gpu < 0) {
                out = "the machine type is unknown (machine_type=) and its netdev is not a GPU NIC's (gpuNrdmaM)";
                if (unnamed.empty())
                    unnamed = port_name(p);
            }
            if (out.empty()) {
                take.push_back(&p);
                twice = twice || (gpu >= 0 && gpus.count(gpu));
                gpus.insert(gpu);
            } else
                a.left_out.push_back(port_name(p) + ": " + out);
        }
        // By name alone the GPU NICs are known only when they are the whole
        // set, gpu0rdma0 to gpu7rdma0 (gpu3rdma0 on a4x): where one of those
        // is missing, the port without the name may be that GPU's NIC with
        // its rename not done (helper 48: eth5 left out, and GPU 3 sent over
        // another GPU's NIC), and a list without it differs from the other
        // nodes'
        const bool whole = !twice && !gpus.empty() && *gpus.begin() == 0 &&
                           *gpus.rbegin() + 1 == static_cast<int>(gpus.size()) && (gpus.size() == 8 || gpus.size() == 4);
        if (machine_type.empty() && !gpus.empty() && !whole) {
            a.why = "the GPU NICs by Google's netdev names (gpuNrdma0) are " + std::to_string(gpus.size()) +
                    (twice ? " GPUs' with one name on two ports" : std::string()) +
                    ", not gpu0rdma0 to gpu7rdma0 (or to gpu3rdma0) once each" +
                    (unnamed.empty() ? std::string(": one is missing here")
                                     : ", and " + unnamed + " has no such name: it may be a GPU's NIC not renamed") +
                    "; the machine type, which says how many there are, is not known (machine_type=): a list of "
                    "these may differ from the other nodes'";
            a.left_out.clear();
            return a;
        }
        a.why = machine_type.empty() ? "gcp gIB: the RoCE mlx5 GPU NICs by Google's netdev names (gpuNrdmaM; no machine_type=)"
                                     : "gcp gIB: the RoCE mlx5 GPU NICs (gVNIC is no RDMA device)";
    } else {
        a.why = profile + ": no rule to take adapters from the node";
        return a;
    }
    std::vector<const NodePort *> active;
    for (const NodePort *p : take) {
        if (p->active())
            active.push_back(p);
        else
            a.left_out.push_back(port_name(*p) + ": " + (p->state.empty() ? "in no known state" : p->state));
    }
    int want = expected_nics(profile, machine_type);
    if (active.empty()) {
        a.why = profile + ": no active " + (profile == "azure" ? "InfiniBand" : "RoCE mlx5") + " port" +
                (a.left_out.empty() ? std::string() : " taken (" + a.left_out[0] + (a.left_out.size() > 1 ? ", ..." : "") + ")");
        return a;
    }
    if (want <= 0 && active.size() != take.size()) {
        // how many the machine has is not known: the active ones alone may
        // be fewer than the other nodes list (a DOWN rail), and NCCL's rings
        // need the same list on every node
        a.why = profile + ": " + std::to_string(take.size() - active.size()) + " of " + std::to_string(take.size()) +
                " compute ports not active here (" + a.left_out.back() +
                "), and the machine type, which says how many it has, is not known (machine_type=): "
                "a list of the active ones may differ from the other nodes'";
        return a;
    }
    if (want > 0 && static_cast<int>(active.size()) != want) {
        a.why = shown(machine_type) + " has " + std::to_string(want) + " compute NICs and " + std::to_string(active.size()) +
                " are active here: a list differing between nodes breaks NCCL's rings";
        return a;
    }
    for (const NodePort *p : active)
        a.ports.emplace_back(p->hca, p->port);
    return a;
}

}  // namespace atl
