#include "node/sysfs.hpp"

#include <algorithm>
#include <iterator>
#include <array>
#include <sstream>
#include <cctype>
#include <cstdlib>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "topology/fabric.hpp"

namespace atl {
namespace {

std::vector<std::string> list_dir(const std::string &dir)
{
    std::vector<std::string> out;
    DIR *d = opendir(dir.c_str());
    if (!d)
        return out;
    while (struct dirent *e = readdir(d))
        if (e->d_name[0] != '.')
            out.push_back(e->d_name);
    closedir(d);
    std::sort(out.begin(), out.end(), [](const std::string &a, const std::string &b) {
        return a.size() != b.size() ? a.size() < b.size() : a < b;  // 2 before 10
    });
    return out;
}

std::string read_line(const std::string &path)
{
    std::string s = read_small_file(path, 4096).value_or("");
    return s.substr(0, s.find('\n'));
}

// A netdev stacked on another, whose lower_* link names where its frames
// leave: a VLAN (uevent DEVTYPE=vlan), or a macvlan, ipvlan or their taps,
// whose drivers set no DEVTYPE but, as VLAN's, an iflink that is the lower
// device's ifindex (a bond's or team's is its own)
bool stacked_netdev(const std::string &net)
{
    if (uevent_vlan(read_small_file(net + "/uevent", 4096)))
        return true;
    const std::string iflink = read_line(net + "/iflink"), ifindex = read_line(net + "/ifindex");
    return !iflink.empty() && !ifindex.empty() && iflink != ifindex;
}

// sysfs prints a GID as eight groups of four hex digits; false otherwise
bool parse_gid(const std::string &s, std::array<unsigned, 8> &w)
{
    if (s.size() != 39)
        return false;
    for (std::size_t g = 0; g < 8; ++g) {
        unsigned v = 0;
        for (std::size_t k = 0; k < 4; ++k) {
            char c = s[g * 5 + k];
            int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
            if (d < 0)
                return false;
            v = v * 16 + static_cast<unsigned>(d);
        }
        if (g < 7 && s[g * 5 + 4] != ':')
            return false;
        w[g] = v;
    }
    return true;
}

std::array<unsigned, 8> words_of(const std::string &gid)
{
    std::array<unsigned, 8> w{};
    if (!parse_gid(gid, w))
        w.fill(0);
    return w;
}

const GidEntry *entry_at(const NodePort &p, int index)
{
    for (const GidEntry &e : p.gids)
        if (e.index == index)
            return &e;
    return nullptr;  // an unused slot: all zero
}

// NCCL's validGid(): configured (not zero, not fe80:: alone) and not link-local
bool nccl_valid(const GidEntry *e) { return e && !e->zero() && !e->link_local(); }

}  // namespace

bool GidEntry::ipv4() const
{
    auto w = words_of(gid);
    return w[0] == 0 && w[1] == 0 && w[2] == 0 && w[3] == 0 && w[4] == 0 && w[5] == 0xffff;
}

bool GidEntry::zero() const
{
    auto w = words_of(gid);
    return std::all_of(w.begin(), w.end(), [](unsigned x) { return x == 0; });
}

bool GidEntry::link_local() const
{
    auto w = words_of(gid);
    return w[0] == 0xfe80 && w[1] == 0 && w[2] == 0 && w[3] == 0;
}

bool GidEntry::routable() const
{
    auto w = words_of(gid);
    if (zero())
        return false;
    if (ipv4()) {
        unsigned a = w[6] >> 8, b = w[6] & 0xff;
        return !(a == 169 && b == 254) && a != 127 && !(w[6] == 0 && w[7] == 0);
    }
    bool loopback = std::all_of(w.begin(), w.begin() + 7, [](unsigned x) { return x == 0; }) && w[7] == 1;
    return (w[0] & 0xffc0) != 0xfe80 && !loopback;
}

std::string NodePort::state_text() const
{
    // "%d: %s" (drivers/infiniband/core/sysfs.c state_show); blanks at its end allowed
    const std::size_t e = state.find_last_not_of(" \t\r\n");
    return e == std::string::npos ? std::string() : state.substr(0, e + 1);
}

bool NodePort::active() const { return state_text() == "4: ACTIVE"; }

bool NodePort::known_inactive() const
{
    const std::string s = state_text();
    for (const char *k : {"0: NOP", "1: DOWN", "2: INIT", "3: ARMED", "5: ACTIVE_DEFER"})
        if (s == k)
            return true;
    return false;
}

int nccl_gid_index(const NodePort &p, bool want_ipv6, int roce_version)
{
    int cur = 0;
    for (int c = 1; c < p.gid_table_len; ++c) {
        const GidEntry *g = entry_at(p, cur), *k = entry_at(p, c);
        bool g6 = !(g && g->ipv4()), k6 = !(k && k->ipv4());  // an unused slot is not IPv4-mapped
        if (k6 != g6 && k6 == want_ipv6) {
            cur = c;
            continue;
        }
        if (k6 != want_ipv6 || !nccl_valid(k))
            continue;
        int gv = g ? g->version : 0;
        if ((gv != k->version || !nccl_valid(g)) && k->version == roce_version)
            cur = c;
    }
    return cur;
}

int ucx_gid_index(const NodePort &p, bool before_1_21)
{
    struct Prio {
        int version;
        bool ipv4;
        bool allow_ll;
    };
    static const Prio prio[] = {{2, true, true}, {2, false, false}, {2, false, true},
                                {1, true, true}, {1, false, false}, {1, false, true}};
    static const Prio old[] = {{2, true, true}, {2, false, true}, {1, true, true}, {1, false, true}};
    const Prio *const from = before_1_21 ? std::begin(old) : std::begin(prio);
    const Prio *const to = before_1_21 ? std::end(old) : std::end(prio);
    for (const Prio *it = from; it != to; ++it) {
        const Prio &pr = *it;
        for (const GidEntry &e : p.gids) {
            auto w = words_of(e.gid);
            if (w[4] == 0 && w[5] == 0 && w[6] == 0 && w[7] == 0)
                continue;  // uct_ib_device_is_gid_valid: interface ID zero
            bool ll = (w[0] & 0xffc0) == 0xfe80;  // IN6_IS_ADDR_LINKLOCAL: fe80::/10
            if (e.version == pr.version && e.ipv4() == pr.ipv4 && (pr.allow_ll || !ll))
                return e.index;
        }
    }
    return -1;
}

std::vector<const GidEntry *> routable_gids(const NodePort &p)
{
    std::vector<const GidEntry *> v4, v6;
    for (const GidEntry &e : p.gids)
        if (e.version == 2 && e.routable())
            (e.ipv4() ? v4 : v6).push_back(&e);
    v4.insert(v4.end(), v6.begin(), v6.end());
    return v4;
}

bool uevent_vlan(const std::optional<std::string> &uevent)
{
    std::istringstream lines(uevent.value_or(""));
    for (std::string l; std::getline(lines, l);) {
        if (!l.empty() && l.back() == '\r')
            l.pop_back();
        if (l == "DEVTYPE=vlan")
            return true;
    }
    return false;
}

bool netdev_name_ok(const std::string &n)
{
    return !n.empty() && n.find('/') == std::string::npos && n != "." && n != "..";
}

bool representor_port_name(const std::string &name)
{
    std::size_t i = 0;
    auto digits = [&]() {
        const std::size_t from = i;
        while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i])))
            ++i;
        return i > from && i - from <= 10;
    };
    if (i < name.size() && name[i] == 'c' && !(++i, digits()))
        return false;
    if (name.compare(i, 2, "pf") != 0)
        return false;
    i += 2;
    if (!digits())
        return false;
    if (i == name.size())
        return true;
    if (name.compare(i, 2, "vf") != 0 && name.compare(i, 2, "sf") != 0)
        return false;
    i += 2;
    return digits() && i == name.size();
}

std::optional<std::string> read_small_file(const std::string &path, std::size_t max)
{
    int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return std::nullopt;
    struct stat st;
    std::optional<std::string> out;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        std::string s(max, '\0');
        std::size_t got = 0;
        while (got < max) {
            ssize_t n = ::read(fd, &s[got], max - got);
            if (n <= 0)
                break;
            got += static_cast<std::size_t>(n);
        }
        s.resize(got);
        out = s;
    }
    ::close(fd);
    return out;
}

namespace {

// The last component of what `path` resolves to, lower case; of the link's
// own text when it does not resolve (a copy of a node's tree without the
// devices); "" neither
std::string resolved_name(const std::string &path)
{
    std::string r;
    if (char *real = ::realpath(path.c_str(), nullptr)) {
        r = real;
        std::free(real);
    } else {
        char link[4096];
        ssize_t n = ::readlink(path.c_str(), link, sizeof link - 1);
        if (n <= 0)
            return "";
        r.assign(link, static_cast<std::size_t>(n));
    }
    std::string name = r.substr(r.rfind('/') + 1);
    for (char &c : name)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return name;
}

// DDDD:BB:DD.F, as the kernel names a PCI function (pci_name(): "%04x:%02x:%02x.%d";
// a domain may have more digits)
bool pci_function(const std::string &s)
{
    auto hex = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || (c >= 'a' && c <= 'f'); };
    const std::size_t c1 = s.find(':');  // after the domain
    if (c1 == std::string::npos || c1 < 4 || s.size() != c1 + 8)
        return false;
    for (std::size_t i = 0; i < c1; ++i)
        if (!hex(s[i]))
            return false;
    return hex(s[c1 + 1]) && hex(s[c1 + 2]) && s[c1 + 3] == ':' && hex(s[c1 + 4]) && hex(s[c1 + 5]) &&
           s[c1 + 6] == '.' && s[c1 + 7] >= '0' && s[c1 + 7] <= '7';
}

}  // namespace

std::string gid_unread_note(const NodePort &p)
{
    std::string out;
    for (const std::string &u : p.gid_unread)
        out += (out.empty() ? " (" : ", ") + u;
    return out.empty() ? out : out + ": not a GID as the kernel writes one, eight groups of four hex digits)";
}

std::vector<std::string> node_netdevs(const std::string &sysfs_root)
{
    // an interface is a directory (a link to one under devices/); the
    // bonding driver's class/net/bonding_masters is a file no interface
    // list (getifaddrs, NCCL's) holds
    std::vector<std::string> out;
    for (const std::string &n : list_dir(sysfs_root + "/class/net")) {
        struct stat st;
        if (::stat((sysfs_root + "/class/net/" + n).c_str(), &st) == 0 && S_ISDIR(st.st_mode))
            out.push_back(n);
    }
    return out;
}

std::vector<NodePort> node_ports(const std::string &sysfs_root, std::vector<std::string> *unreadable)
{
    std::vector<NodePort> out;
    std::string base = sysfs_root + "/class/infiniband";
    for (const std::string &dev : list_dir(base)) {
        if (unreadable) {
            DIR *d = opendir((base + "/" + dev + "/ports").c_str());
            if (d)
                closedir(d);
            else
                unreadable->push_back(dev);
        }
        for (const std::string &p : list_dir(base + "/" + dev + "/ports")) {
            std::string dir = base + "/" + dev + "/ports/" + p;
            NodePort np;
            np.hca = dev;
            np.port = std::atoi(p.c_str());
            np.link_layer = read_line(dir + "/link_layer");
            np.state = read_line(dir + "/state");
            np.rate = read_line(dir + "/rate");
            for (const std::string &i : list_dir(dir + "/gid_attrs/ndevs")) {
                std::string nd = read_line(dir + "/gid_attrs/ndevs/" + i);
                if (!nd.empty() && std::find(np.netdevs.begin(), np.netdevs.end(), nd) == np.netdevs.end())
                    np.netdevs.push_back(nd);
            }
            np.own_net = list_dir(base + "/" + dev + "/device/net");
            np.hca_type = read_line(base + "/" + dev + "/hca_type");
            {
                // the kernel writes four groups of four hex digits
                std::optional<std::string> text = read_small_file(base + "/" + dev + "/node_guid", 4096);
                std::string g = text ? text->substr(0, text->find('\n')) : std::string(), hex;
                bool ok = g.size() == 19;
                for (std::size_t i = 0; ok && i < g.size(); ++i)
                    if (i % 5 == 4)
                        ok = g[i] == ':';
                    else if (std::isdigit(static_cast<unsigned char>(g[i])) || (g[i] >= 'a' && g[i] <= 'f'))
                        hex += g[i];  // %04x: lower case
                    else
                        ok = false;
                if (ok && hex.size() == 16)
                    np.node_guid = std::stoull(hex, nullptr, 16);
                np.node_guid_bad = text && np.node_guid == 0;
            }
            {
                // the PCI function: where the device link resolves, when that
                // is a function's address (DDDD:BB:DD.F); a link of another
                // shape ("../..") names none, and two such are not one function
                std::string fn = resolved_name(base + "/" + dev + "/device");
                if (pci_function(fn))
                    np.pci = fn;
                // a software device: the kernel puts rxe and siw under
                // devices/virtual, and rxe has a 'parent' (its netdev)
                char *real = ::realpath((base + "/" + dev).c_str(), nullptr);
                if (real) {
                    np.soft = std::string(real).find("/devices/virtual/") != std::string::npos;
                    std::free(real);
                }
                struct stat st;
                np.soft = np.soft || ::stat((base + "/" + dev + "/parent").c_str(), &st) == 0;
            }
            const bool from_gids = !np.netdevs.empty();
            if (np.netdevs.empty())
                np.netdevs = np.own_net;
            // a RoCE LAG (mlx5_bond_0) names the bond; LLDP names its members.
            // A VLAN, macvlan or ipvlan device has a lower_* link too, to the
            // device its frames leave by: that is no LAG member but the
            // port's own netdev (LLDP names it; a VLAN over a bond leads to
            // the bond and so to its members), taken after the GIDs' ones
            for (std::size_t k = 0; k < np.netdevs.size(); ++k) {
                const std::string nd = np.netdevs[k];
                if (!netdev_name_ok(nd))
                    continue;
                std::string net = sysfs_root + "/class/net/" + nd;
                std::vector<std::string> members;
                for (const std::string &e : list_dir(net))
                    if (e.rfind("lower_", 0) == 0 && e.size() > 6)
                        members.push_back(e.substr(6));
                if (stacked_netdev(net)) {
                    np.stacked.push_back(nd);
                    for (const std::string &m : members)
                        if (np.netdevs.size() < 64 && std::find(np.netdevs.begin(), np.netdevs.end(), m) == np.netdevs.end())
                            np.netdevs.push_back(m);
                    continue;
                }
                std::istringstream slaves(read_line(net + "/bonding/slaves"));
                for (std::string m; slaves >> m;)
                    members.push_back(m);
                // a member that is itself a VLAN (a bond or team over VLANs):
                // its frames, and its QoS, are the device's below it
                for (std::string &m : members) {
                    if (!netdev_name_ok(m))
                        continue;
                    const std::string mnet = sysfs_root + "/class/net/" + m;
                    if (!stacked_netdev(mnet))
                        continue;
                    for (const std::string &e : list_dir(mnet))
                        if (e.rfind("lower_", 0) == 0 && e.size() > 6) {
                            m = e.substr(6);
                            break;
                        }
                }
                for (const std::string &m : members)
                    if (std::find(np.lower.begin(), np.lower.end(), m) == np.lower.end())
                        np.lower.push_back(m);
            }
            // a representor's port: its GIDs' netdev is the representor (the
            // device's own net/ lists the uplink and every representor, so
            // only the GIDs tell; a VLAN or macvlan over a representor is
            // one through the device below it, appended above). Every
            // netdev of the port that is not stacked must be one: a port
            // with the uplink's netdev (p0) among them is a network port
            // (helper 60: one representor GID hid a real port from health).
            std::string rep;
            bool all_rep = from_gids;
            for (std::size_t k = 0; all_rep && k < np.netdevs.size(); ++k) {
                const std::string &nd = np.netdevs[k];
                if (std::find(np.stacked.begin(), np.stacked.end(), nd) != np.stacked.end())
                    continue;
                std::string ppn;
                if (netdev_name_ok(nd)) {
                    ppn = read_small_file(sysfs_root + "/class/net/" + nd + "/phys_port_name", 64).value_or("");
                    ppn = ppn.substr(0, ppn.find('\n'));
                }
                all_rep = representor_port_name(ppn);
                if (all_rep && rep.empty())
                    rep = nd + " (" + ppn + ")";
            }
            if (all_rep && !rep.empty())
                np.representor = rep;
            if (np.link_layer == "Ethernet") {
                for (const std::string &i : list_dir(dir + "/gids")) {
                    char *end = nullptr;
                    long idx = std::strtol(i.c_str(), &end, 10);
                    if (*end || idx < 0 || idx > 65535)
                        continue;
                    np.gid_table_len = std::max(np.gid_table_len, static_cast<int>(idx) + 1);
                    GidEntry e;
                    e.index = static_cast<int>(idx);
                    e.gid = read_line(dir + "/gids/" + i);
                    std::array<unsigned, 8> w{};
                    if (!parse_gid(e.gid, w)) {
                        if (np.gid_unread.size() < 3)  // named in the message of a port with none routable
                            np.gid_unread.push_back("gids/" + i + " holds " + shown(e.gid, 48));
                        continue;
                    }
                    if (e.zero())
                        continue;
                    std::string type = read_line(dir + "/gid_attrs/types/" + i);
                    e.version = type.rfind("RoCE v2", 0) == 0 ? 2 : type.rfind("IB/RoCE v1", 0) == 0 || type.rfind("RoCE v1", 0) == 0 ? 1 : 0;
                    e.ndev = read_line(dir + "/gid_attrs/ndevs/" + i);
                    np.gids.push_back(e);
                }
                std::sort(np.gids.begin(), np.gids.end(), [](const GidEntry &a, const GidEntry &b) { return a.index < b.index; });
                std::vector<const GidEntry *> r = routable_gids(np);
                if (!r.empty()) {
                    np.roce_v2_gid_index = r[0]->index;
                    np.roce_v2_gid = r[0]->gid;
                }
            }
            // mlx5: "Global tclass=106" once set (cma_roce_tos or the tc file itself)
            std::string tc = read_line(base + "/" + dev + "/tc/" + p + "/traffic_class");
            // decimal as the driver prints it; anything else ("0x6a",
            // "106junk", "+106") is no class known, never a misread one
            const std::size_t at = 14;  // after "Global tclass="
            if (tc.rfind("Global tclass=", 0) == 0) {
                std::size_t e = at;
                while (e < tc.size() && std::isdigit(static_cast<unsigned char>(tc[e])))
                    ++e;
                bool rest_blank = tc.find_first_not_of(" \t\r\n", e) == std::string::npos;
                int v = e > at && e - at <= 3 ? std::atoi(tc.substr(at, e - at).c_str()) : -1;
                if (v >= 0 && v <= 255 && rest_blank)
                    np.traffic_class = v;
            }
            // not what the driver writes: a class of its own, unknown (an
            // empty file, or none, is no class set)
            if (np.traffic_class < 0 && tc.find_first_not_of(" \t\r\n") != std::string::npos)
                np.traffic_class_bad = tc.size() > 40 ? tc.substr(0, 37) + "..." : tc;
            out.push_back(np);
        }
    }
    return out;
}

std::map<int, std::string> nvidia_gpus(const std::string &proc_root, std::map<int, std::string> *models)
{
    std::map<int, std::string> out;
    std::string base = proc_root + "/driver/nvidia/gpus";
    for (const std::string &bus : list_dir(base)) {
        std::string text = read_small_file(base + "/" + bus + "/information", 8192).value_or("");
        std::size_t at = text.find("Device Minor:");
        if (at == std::string::npos)
            continue;
        int minor = std::atoi(text.c_str() + at + 13);
        if (minor < 0 || minor >= 4096)
            continue;
        std::string id = bus;
        for (char &c : id)
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        out[minor] = id;
        std::size_t mo = text.find("Model:");
        if (!models || mo == std::string::npos)
            continue;
        std::string model = text.substr(mo + 6, text.find('\n', mo) == std::string::npos ? std::string::npos
                                                                                        : text.find('\n', mo) - mo - 6);
        const std::size_t b = model.find_first_not_of(" \t"), e = model.find_last_not_of(" \t\r");
        if (b != std::string::npos)
            (*models)[minor] = model.substr(b, e - b + 1);
    }
    return out;
}

}  // namespace atl
