// The grammar follows infiniband-diags/ibnetdiscover.c (rdma-core): out_switch(),
// out_ca(), out_switch_port(), out_ca_port() and dump_ports_report().
#include "topology/ibnetdiscover.hpp"
#include "topology/topology.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <iterator>
#include <sstream>
#include <istream>
#include <map>
#include <optional>

namespace atl {
namespace {

// A cursor over one line, with the error context at hand.
struct Cursor {
    const std::string &s;
    std::size_t i = 0;
    const std::string &file;
    std::size_t line;

    Cursor(const std::string &str, const std::string &f, std::size_t l) : s(str), file(f), line(l) {}

    [[noreturn]] void fail(const std::string &expected) const
    {
        std::string found = i < s.size() ? shown(s.substr(i)) : "end of line";
        throw InputError(file, line, "found " + found + ", expected " + expected);
    }
    bool eof() const { return i >= s.size(); }
    void ws()
    {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t'))
            ++i;
    }
    bool peek(char c) const { return i < s.size() && s[i] == c; }
    bool accept(char c)
    {
        if (peek(c)) {
            ++i;
            return true;
        }
        return false;
    }
    bool accept(const char *word)
    {
        std::size_t n = std::char_traits<char>::length(word);
        if (s.compare(i, n, word) == 0) {
            i += n;
            return true;
        }
        return false;
    }
    void expect(char c, const char *what)
    {
        if (!accept(c))
            fail(what);
    }
    long integer(const char *what)
    {
        std::size_t j = i;
        long v = 0;
        while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j])) && j - i < 9)
            v = v * 10 + (s[j++] - '0');
        if (j == i)
            fail(what);
        if (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j])))
            fail(std::string(what) + " of at most 9 digits");
        i = j;
        return v;
    }
    std::uint64_t hex(const char *what, bool prefix)
    {
        std::size_t j = i;
        if (prefix) {
            if (s.compare(j, 2, "0x") != 0)
                fail(what);
            j += 2;
        }
        std::size_t start = j;
        while (j < s.size() && std::isxdigit(static_cast<unsigned char>(s[j])))
            ++j;
        std::uint64_t v;
        if (j == start || !parse_guid(s.substr(start, j - start), v))
            fail(what);
        i = j;
        return v;
    }
    // "S-0002c90300a1b2c3" including the quotes
    std::uint64_t node_ref(NodeType &type)
    {
        if (!accept('"'))
            fail("a quoted node name such as \"S-0002c903000e0b72\"");
        if (accept("S-")) type = NodeType::Switch;
        else if (accept("H-")) type = NodeType::Ca;
        else if (accept("R-")) type = NodeType::Router;
        else fail("\"S-\", \"H-\" or \"R-\" and a GUID");
        std::uint64_t g = hex("a hexadecimal GUID", false);
        expect('"', "'\"' closing the node name");
        return g;
    }
    void ext_port()
    {
        // -g prints "[ext N]" after a port number
        if (accept("[ext ")) {
            integer("an external port number");
            expect(']', "']'");
        }
    }
};

// Width token as printed by dump_linkwidth_compat(): "1x", "4x", "??".
int parse_width_speed(Cursor &c, Speed &speed)
{
    int width = 0;
    if (c.accept("??")) {
        width = 0;
    } else {
        width = static_cast<int>(c.integer("a link width such as 4x"));
        if (!c.accept('x'))
            c.fail("'x' after the link width");
        if (width != 1 && width != 2 && width != 4 && width != 8 && width != 12)
            throw InputError(c.file, c.line,
                             "found link width " + std::to_string(width) +
                                 "x, expected 1x, 2x, 4x, 8x or 12x");
    }
    if (c.peek(' '))
        c.ws();  // the -p report prints "4x EDR"
    std::size_t j = c.i;
    while (j < c.s.size() && (std::isalnum(static_cast<unsigned char>(c.s[j])) || c.s[j] == '?'))
        ++j;
    std::string tok = c.s.substr(c.i, j - c.i);
    if (tok == "???") {
        speed = Speed::Unknown;
    } else {
        speed = speed_from_string(tok);
        if (speed == Speed::Unknown)
            c.fail("a link speed (SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR, XDR)");
    }
    c.i = j;
    return width;
}

// "src/query_smp.c:195; umad (DR path ...) bad status 110; ..." or "ibwarn: ...":
// what the diagnostics print on stderr, often captured into the same file.
bool diagnostic(const std::string &s)
{
    if (s.rfind("ibwarn: ", 0) == 0 || s.rfind("ibwarn:", 0) == 0)
        return true;
    std::size_t c = s.find(".c:");
    if (c == std::string::npos || c == 0)
        return false;
    for (std::size_t i = 0; i < c; ++i)
        if (!(std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_' || s[i] == '/' || s[i] == '-'))
            return false;
    std::size_t i = c + 3, d = i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])))
        ++i;
    return i > d && i < s.size() && s[i] == ';';
}

bool is_blank(const std::string &s)
{
    for (char ch : s)
        if (ch != ' ' && ch != '\t')
            return false;
    return true;
}

struct Builder {
    const std::string &source;
    std::map<std::uint64_t, Node> nodes;        // described by their own record
    std::map<std::uint64_t, Node> referenced;   // seen only as a link's far end
    std::vector<Link> links;

    void reference(std::uint64_t guid, NodeType type, const std::string &desc, int lid, std::size_t line)
    {
        if (nodes.count(guid))
            return;
        auto &n = referenced[guid];
        n.guid = guid;
        n.type = type;
        if (!n.line)
            n.line = line;
        if (!desc.empty())
            n.desc = desc;
        if (type == NodeType::Switch && lid)
            n.lid = lid;
    }

    Fabric finish()
    {
        Fabric f;
        f.source = source;
        f.kind = "ib";
        for (auto &kv : referenced)
            if (!nodes.count(kv.first))
                nodes.emplace(kv.first, kv.second);
        f.nodes.reserve(nodes.size());
        for (auto &kv : nodes)
            f.nodes.push_back(std::move(kv.second));
        // CA lid: base LID of its lowest port seen.
        f.links = std::move(links);
        normalise(f);
        std::map<std::uint64_t, std::pair<int, int>> ca_lid;  // guid -> (port, lid)
        for (const auto &l : f.links)
            for (const LinkEnd *e : {&l.a, &l.b})
                if (e->lid) {
                    auto it = ca_lid.find(e->guid);
                    if (it == ca_lid.end() || e->port < it->second.first)
                        ca_lid[e->guid] = {e->port, e->lid};
                }
        for (auto &n : f.nodes)
            if (n.type != NodeType::Switch && !n.lid) {
                auto it = ca_lid.find(n.guid);
                if (it != ca_lid.end())
                    n.lid = it->second.second;
            }
        return f;
    }
};

// The comment after a port line: [lid N lmc N ]"desc" lid N WxSPEED [extras]
void parse_port_comment(Cursor &c, bool ca_side, int &local_lid, std::string &desc, int &rlid,
                        int &width, Speed &speed)
{
    c.ws();
    if (!c.accept('#'))
        c.fail("'#' and the far end's description");
    c.ws();
    if (ca_side) {
        if (!c.accept("lid "))
            c.fail("\"lid N lmc N\" for the CA port");
        local_lid = static_cast<int>(c.integer("the port's LID"));
        c.ws();
        if (!c.accept("lmc "))
            c.fail("\"lmc N\"");
        c.integer("the port's LMC");
        c.ws();
    }
    if (!c.peek('"'))
        c.fail("the far end's quoted description");
    // The description may itself hold '"' and '#': it ends at the last "\" lid ".
    std::size_t end = c.s.rfind("\" lid ");
    if (end == std::string::npos || end <= c.i)
        c.fail("a quoted description followed by \" lid N WxSPEED\"");
    desc = c.s.substr(c.i + 1, end - c.i - 1);
    c.i = end + 6;
    rlid = static_cast<int>(c.integer("the far end's LID"));
    c.ws();
    width = parse_width_speed(c, speed);
    // Extras: -f " s=N w=N v=N", grouped " slot N" / " (scp)", ibsim "w=1". Ignored.
}

Fabric parse_topology(std::istream &in, const std::string &source, std::string line,
                      std::size_t lineno)
{
    Builder b{source, {}, {}, {}};
    Node pending;       // vendid/devid/sysimgguid/xxguid collected before a record
    std::uint64_t paren_guid = 0;  // the GUID in parentheses after xxguid=, if any
    Node *cur = nullptr;
    std::size_t last_line = 0, last_ports = 0;  // the last record's line and its port lines
    bool have_line = true;
    do {
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        Cursor c(line, source, lineno);
        c.ws();
        if (c.eof() || c.peek('#') || diagnostic(line)) {
            // blank, comment, or a libibmad/umad message captured with 2>&1
        } else if (line.compare(c.i, 7, "vendid=") == 0) {
            c.i += 7;
            pending.vendor_id = static_cast<std::uint32_t>(c.hex("a vendor id such as 0x2c9", true));
            cur = nullptr;
        } else if (line.compare(c.i, 6, "devid=") == 0) {
            c.i += 6;
            pending.device_id = static_cast<std::uint32_t>(c.hex("a device id such as 0xd2f0", true));
        } else if (line.compare(c.i, 11, "sysimgguid=") == 0) {
            c.i += 11;
            pending.sysimg_guid = c.hex("a system image GUID such as 0x0002c903000e0b72", true);
        } else if (line.compare(c.i, 11, "switchguid=") == 0 ||
                   line.compare(c.i, 7, "caguid=") == 0 || line.compare(c.i, 7, "rtguid=") == 0) {
            c.i = line.find('=', c.i) + 1;
            pending.guid = c.hex("a node GUID such as 0x0002c903000e0b72", true);
            // ibnetdiscover: GUID(port GUID); ibdiagnet2's file: SYSIMG(node GUID)
            paren_guid = 0;
            if (c.accept('(')) {  // anything else there is ignored, as it always was
                std::size_t j = c.i;
                while (j < line.size() && std::isxdigit(static_cast<unsigned char>(line[j])))
                    ++j;
                if (j == c.i || !parse_guid(line.substr(c.i, j - c.i), paren_guid))
                    paren_guid = 0;
            }
        } else if (line.compare(c.i, 7, "Chassis") == 0 || line.compare(c.i, 9, "Hostname:") == 0 ||
                   line.compare(c.i, 17, "Non-Chassis Nodes") == 0) {
            // -g section headers
        } else if (line.compare(c.i, 6, "Switch") == 0 || line.compare(c.i, 2, "Ca") == 0 ||
                   line.compare(c.i, 2, "Rt") == 0) {
            Node n = pending;
            pending = Node{};
            std::size_t kw = line.compare(c.i, 6, "Switch") == 0 ? 6 : 2;
            c.i += kw;
            // a terminal capture may lose the tab: "Switch41 \"S-...\""
            if (!c.peek(' ') && !c.peek('\t') && !(c.i < line.size() && std::isdigit(static_cast<unsigned char>(line[c.i]))))
                c.fail("a port count after the record type");
            c.ws();
            n.num_ports = static_cast<int>(c.integer("the node's port count"));
            c.ws();
            NodeType t;
            std::uint64_t g = c.node_ref(t);
            if ((kw == 6) != (t == NodeType::Switch))
                throw InputError(source, lineno,
                                 "found node name " + shown(line.substr(line.find('"'))) +
                                     ", expected \"S-\" for a Switch record and \"H-\" or "
                                     "\"R-\" for a Ca or Rt record");
            n.type = t;
            // ibdiagnet2 writes the system image GUID before the
            // parentheses and the node's own GUID inside them (switchguid=
            // of a director's line board): the record's name settles it
            if (t == NodeType::Switch && n.guid && n.guid != g && n.guid == n.sysimg_guid && paren_guid == g)
                n.guid = g;
            if (n.guid && n.guid != g)
                throw InputError(source, lineno,
                                 "found node " + guid_str(g) + ", expected " + guid_str(n.guid) +
                                     " as its guid= line said");
            n.guid = g;
            c.ws();
            if (!c.accept('#'))
                c.fail("'#' and the quoted node description");
            c.ws();
            if (!c.peek('"'))
                c.fail("the quoted node description");
            std::size_t end;
            if (t == NodeType::Switch) {
                // "desc" enhanced|base port 0 lid N lmc N
                std::size_t p = line.rfind(" port 0 lid ");
                if (p == std::string::npos || p <= c.i)
                    c.fail("\"desc\" enhanced|base port 0 lid N lmc N");
                end = line.rfind('"', p);
                Cursor l(line, source, lineno);
                l.i = p + 12;
                n.lid = static_cast<int>(l.integer("the switch LID"));
            } else {
                end = line.rfind('"');  // -g may add " (scp)" after it
            }
            if (end == std::string::npos || end <= c.i)
                c.fail("a closing '\"' after the node description");
            n.desc = line.substr(c.i + 1, end - c.i - 1);
            n.line = lineno;
            if (b.nodes.count(g))
                throw InputError(source, lineno, "found node " + guid_str(g) +
                                                     " a second time, expected each node once");
            b.referenced.erase(g);
            cur = &(b.nodes[g] = n);
            last_line = lineno;
            last_ports = 0;
        } else if (c.peek('[')) {
            if (!cur)
                c.fail("a Switch, Ca or Rt record before its port lines");
            c.i++;
            Link l;
            l.a.guid = cur->guid;
            l.a.port = static_cast<int>(c.integer("a port number"));
            c.expect(']', "']' after the port number");
            c.ext_port();
            if (c.accept('(')) {
                l.a.port_guid = c.hex("the port GUID", false);
                c.expect(')', "')' after the port GUID");
            }
            c.ws();
            NodeType rt;
            l.b.guid = c.node_ref(rt);
            c.expect('[', "'[' and the far end's port number");
            l.b.port = static_cast<int>(c.integer("the far end's port number"));
            c.expect(']', "']'");
            c.ext_port();
            c.ws();
            if (c.accept('(')) {
                l.b.port_guid = c.hex("the far end's port GUID", false);
                c.expect(')', "')'");
            }
            int local_lid = 0, rlid = 0;
            std::string rdesc;
            parse_port_comment(c, cur->type != NodeType::Switch, local_lid, rdesc, rlid, l.width,
                               l.speed);
            if (cur->type != NodeType::Switch)
                l.a.lid = local_lid;
            if (rt != NodeType::Switch)
                l.b.lid = rlid;
            if (l.b.port < 1)
                throw InputError(source, lineno, "found far end port 0, expected a port from 1 (port 0 is a switch's management port, cabled to nothing)");
            if (l.a.port < 1 || (cur->num_ports && l.a.port > cur->num_ports))
                throw InputError(source, lineno,
                                 "found port " + std::to_string(l.a.port) + ", expected 1.." +
                                     std::to_string(cur->num_ports) + " for this node");
            b.reference(l.b.guid, rt, rdesc, rlid, lineno);
            b.links.push_back(l);
            ++last_ports;
        } else {
            c.fail("a node record (Switch, Ca, Rt), a port line \"[N]\", or vendid=, devid=, "
                   "sysimgguid=, switchguid=, caguid=");
        }
        have_line = static_cast<bool>(std::getline(in, line));
        ++lineno;
    } while (have_line);
    if (b.nodes.empty())
        throw InputError(source + ": no Switch, Ca or Rt record found: is this ibnetdiscover output?");
    // ibnetdiscover prints a record for every node it reaches, and a port line
    // only towards a node it reached: a far end with no record, or a record's
    // header with no record after it, is an output cut short (a full disk, a
    // capture stopped early), whose nodes would silently vanish
    if (pending.vendor_id || pending.device_id || pending.sysimg_guid || pending.guid)
        throw InputError(source, lineno - 1, "found the end of the input after a record's header (vendid=, devid=, "
                                             "sysimgguid=, ...), expected its Switch, Ca or Rt line: the output looks cut short");
    // ibnetdiscover reaches every node through a cable, and prints that
    // cable under its record: a last record with no port line was cut
    if (last_line && last_ports == 0 && b.nodes.size() > 1)
        throw InputError(source, last_line, "found the end of the input after this record and no port line of it, "
                                            "expected its port lines (ibnetdiscover prints the cable it reached each "
                                            "node by): the output looks cut short");
    // (a CA known only from switch port lines keeps its name and cables: those
    // lines say all a host needs; a switch's own cables are in its record alone)
    const Node *first = nullptr;
    std::size_t missing = 0;
    for (const auto &kv : b.referenced)
        if (kv.second.type == NodeType::Switch) {
            ++missing;
            if (!first || kv.second.line < first->line)
                first = &kv.second;
        }
    if (first)
        throw InputError(source, first->line,
                         "found a cable to switch " + guid_str(first->guid) +
                             (first->desc.empty() ? "" : " (" + shown(first->desc, 60) + ")") + ", which has no record of its own" +
                             (missing > 1 ? " (nor have " + std::to_string(missing - 1) + " more switches)" : "") +
                             "; expected ibnetdiscover's whole output, which describes every switch it reaches: the output "
                             "looks cut short, and the cables of those switches with it");
    return b.finish();
}

// -p: "%2s %5d %2d 0x%016x %s %s" then " - %2s %5d %2d 0x%016x ( '%s' - '%s' )" or "'%s'"
struct PortsEnd {
    NodeType type;
    int lid;
    int port;
    std::uint64_t guid;
};

PortsEnd ports_end(Cursor &c)
{
    PortsEnd e{};
    c.ws();
    if (c.accept("SW")) e.type = NodeType::Switch;
    else if (c.accept("CA")) e.type = NodeType::Ca;
    else if (c.accept("RT")) e.type = NodeType::Router;
    else c.fail("a node type SW, CA or RT");
    c.ws();
    e.lid = static_cast<int>(c.integer("a LID"));
    c.ws();
    e.port = static_cast<int>(c.integer("a port number"));
    c.ws();
    e.guid = c.hex("a port GUID such as 0x0002c903000e0b72", true);
    return e;
}

bool default_like(const std::string &d)
{
    return d.empty() || d.find("Mellanox Technologies") != std::string::npos;
}

Fabric parse_ports_report(std::istream &in, const std::string &source, std::string line,
                          std::size_t lineno)
{
    struct CaPort {
        PortsEnd e;
        std::string desc;
        std::size_t line;
    };
    std::map<std::uint64_t, Node> switches;
    std::vector<CaPort> ca_ports;
    struct RawLink {
        PortsEnd a, b;
        int width;
        Speed speed;
        std::size_t line;
    };
    std::vector<RawLink> raw;
    bool have_line = true;
    do {
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        Cursor c(line, source, lineno);
        c.ws();
        if (c.eof() || c.peek('#')) {
            have_line = static_cast<bool>(std::getline(in, line));
            ++lineno;
            continue;
        }
        PortsEnd a = ports_end(c);
        c.ws();
        Speed speed;
        int width = parse_width_speed(c, speed);
        c.ws();
        auto note = [&](const PortsEnd &e, const std::string &desc) {
            if (e.type == NodeType::Switch) {
                auto &n = switches[e.guid];
                n.type = NodeType::Switch;
                n.guid = e.guid;
                n.lid = e.lid;
                if (!n.line)
                    n.line = lineno;
                if (n.desc.empty())
                    n.desc = desc;
            } else {
                ca_ports.push_back({e, desc, lineno});
            }
        };
        if (c.accept('-')) {
            PortsEnd b = ports_end(c);
            c.ws();
            if (!c.accept("( '"))
                c.fail("\"( '\" and the two node descriptions");
            std::size_t close = line.rfind("' )");
            std::size_t sep = line.find("' - '", c.i);
            if (close == std::string::npos || sep == std::string::npos || sep > close)
                c.fail("'<description>' - '<description>' )");
            note(a, line.substr(c.i, sep - c.i));
            note(b, line.substr(sep + 5, close - sep - 5));
            raw.push_back({a, b, width, speed, lineno});
        } else {
            // a port with nothing behind it: just the node's description
            std::string d = line.substr(c.i);
            if (d.size() >= 2 && d.front() == '\'' && d.back() == '\'')
                d = d.substr(1, d.size() - 2);
            if (d.empty())
                c.fail("the node's description");
            note(a, d);
        }
        have_line = static_cast<bool>(std::getline(in, line));
        ++lineno;
    } while (have_line);

    // A CA is known here only by its port GUIDs: ports sharing a description
    // (that is not a firmware default) and GUIDs within 16 of each other are one
    // adapter, whose node GUID is taken as its lowest port GUID.
    std::map<std::uint64_t, std::uint64_t> port_to_node;
    std::map<std::uint64_t, Node> cas;
    // the port GUIDs of each description, sorted: the lowest within 16 below a
    // port is found by one search, not a scan of every port (65,536 CA ports
    // took 10 s that way)
    std::map<std::string, std::vector<std::uint64_t>> guids_of;
    for (const auto &p : ca_ports)
        if (!default_like(p.desc))
            guids_of[p.desc].push_back(p.e.guid);
    for (auto &kv : guids_of)
        std::sort(kv.second.begin(), kv.second.end());
    for (const auto &p : ca_ports) {
        if (port_to_node.count(p.e.guid))
            continue;
        std::uint64_t node = p.e.guid;
        if (!default_like(p.desc)) {
            const auto &g = guids_of[p.desc];
            std::uint64_t lo = p.e.guid >= 15 ? p.e.guid - 15 : 0;
            auto it = std::lower_bound(g.begin(), g.end(), lo);
            if (it != g.end() && *it < node)
                node = *it;
        }
        port_to_node[p.e.guid] = node;
        auto &n = cas[node];
        n.type = p.e.type;
        n.guid = node;
        n.desc = p.desc;
        if (!n.line)
            n.line = p.line;
        if (!n.lid || p.e.port == 1)
            n.lid = p.e.lid;
        n.num_ports = std::max(n.num_ports, p.e.port);
    }
    Fabric f;
    f.source = source;
    f.kind = "ib";
    // -p prints every cable from both of its ends: one seen from one end
    // only is an output cut short, or filtered (then its nodes may be gone)
    {
        using End = std::pair<std::uint64_t, int>;  // port GUID (a switch's node GUID), port
        std::set<std::pair<End, End>> seen;
        for (const auto &r : raw)
            seen.insert({{r.a.guid, r.a.port}, {r.b.guid, r.b.port}});
        std::size_t one = 0, first = 0;
        for (const auto &r : raw)
            if (!seen.count({{r.b.guid, r.b.port}, {r.a.guid, r.a.port}}) && ++one == 1)
                first = r.line;
        if (one)
            f.warnings.push_back(source + ":" + std::to_string(first) + ": " + std::to_string(one) + " cable" +
                                 (one == 1 ? "" : "s") + " seen from one end only (ibnetdiscover -p prints each from both): "
                                 "the output looks cut short or filtered, and nodes beyond them may be missing");
    }
    for (auto &kv : switches)
        f.nodes.push_back(kv.second);
    for (auto &kv : cas)
        f.nodes.push_back(kv.second);
    auto end_of = [&](const PortsEnd &e) {
        LinkEnd le;
        le.port = e.port;
        if (e.type == NodeType::Switch) {
            le.guid = e.guid;
        } else {
            le.guid = port_to_node.at(e.guid);
            le.port_guid = e.guid;
            le.lid = e.lid;
        }
        return le;
    };
    for (const auto &r : raw) {
        Link l;
        l.a = end_of(r.a);
        l.b = end_of(r.b);
        l.width = r.width;
        l.speed = r.speed;
        f.links.push_back(l);
    }
    normalise(f);
    return f;
}

bool looks_like_ports_report(const std::string &line)
{
    std::size_t i = line.find_first_not_of(" \t");
    if (i == std::string::npos)
        return false;
    if (line.compare(i, 2, "SW") != 0 && line.compare(i, 2, "CA") != 0 &&
        line.compare(i, 2, "RT") != 0)
        return false;
    return i + 2 < line.size() && line[i + 2] == ' ';
}

// A line of ibnetdiscover's topology output: a record, a port, a node
// attribute, a -g header or a comment. Anything else before the first or
// after the last of them is a capture's banner or prompt.
bool topology_line(const std::string &l)
{
    std::size_t i = l.find_first_not_of(" \t");
    if (i == std::string::npos)
        return false;
    auto at = [&](const char *w) { return l.compare(i, std::strlen(w), w) == 0; };
    if (at("#") || at("vendid=") || at("devid=") || at("sysimgguid=") || at("switchguid=") || at("caguid=") ||
        at("rtguid=") || at("Chassis") || at("Hostname:") || at("Non-Chassis Nodes"))
        return true;
    for (const char *kw : {"Switch", "Ca", "Rt"})
        if (at(kw)) {
            std::size_t j = i + std::strlen(kw);
            return j < l.size() && (l[j] == ' ' || l[j] == '\t' || std::isdigit(static_cast<unsigned char>(l[j])));
        }
    // a port: "[12]", "[12](guid)", "[12][ext 3]"
    std::size_t j = i + 1;
    while (j < l.size() && std::isdigit(static_cast<unsigned char>(l[j])))
        ++j;
    return at("[") && j > i + 1 && j < l.size() && l[j] == ']';
}

}  // namespace

Fabric parse_ibnetdiscover(std::istream &in, const std::string &source)
{
    // Files as people save them: LF, CRLF or CR-only line ends; a terminal
    // logger's banner before the first record and the next prompt after the
    // last are skipped with one warning each, naming their lines.
    std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::vector<std::string> lines;
    {
        std::string cur;
        for (std::size_t k = 0; k < all.size(); ++k) {
            char ch = all[k];
            if (ch == '\r' || ch == '\n') {
                lines.push_back(std::move(cur));
                cur.clear();
                if (ch == '\r' && k + 1 < all.size() && all[k + 1] == '\n')
                    ++k;
            } else {
                cur += ch;
            }
        }
        if (!cur.empty())
            lines.push_back(std::move(cur));
    }
    // a line naming a node ("S-...", "H-...") is ibnetdiscover's, however broken
    auto names_node = [](const std::string &t) {
        for (std::size_t q = t.find('"'); q != std::string::npos && q + 2 < t.size(); q = t.find('"', q + 1))
            if (std::isupper(static_cast<unsigned char>(t[q + 1])) && t[q + 2] == '-')
                return true;
        return false;
    };
    auto meaningful = [&](const std::string &t) {
        return !is_blank(t) && !diagnostic(t) && (topology_line(t) || looks_like_ports_report(t) || names_node(t));
    };
    std::size_t first = 0, last = lines.size();
    while (first < lines.size() && !meaningful(lines[first]))
        ++first;
    if (first == lines.size()) {
        std::size_t k = 0;
        while (k < lines.size() && (is_blank(lines[k]) || diagnostic(lines[k])))
            ++k;
        if (k == lines.size())
            throw InputError(source + ": empty input: expected ibnetdiscover output");
        throw InputError(source, k + 1, "found " + shown(lines[k]) + ", expected ibnetdiscover output (no Switch, Ca "
                                        "or port record anywhere in it)");
    }
    while (last > first && !meaningful(lines[last - 1]))
        --last;
    std::vector<std::string> warnings;
    auto skipped = [&](std::size_t from, std::size_t to, const char *what) {
        std::size_t n = 0;
        for (std::size_t k = from; k < to; ++k)
            n += !is_blank(lines[k]) && !diagnostic(lines[k]);
        if (n)
            warnings.push_back(source + ":" + std::to_string(from + 1) + ": skipped " + std::to_string(n) + " line" +
                               (n > 1 ? "s" : "") + " " + what + " (" + shown(lines[from], 40) +
                               (n > 1 ? ", ..." : "") + "), not ibnetdiscover output");
    };
    skipped(0, first, "before the first record");
    skipped(last, lines.size(), "after the last record");
    std::string body;
    for (std::size_t k = first + 1; k < last; ++k)
        body += lines[k] + "\n";
    std::istringstream rest(body);
    Fabric f = looks_like_ports_report(lines[first]) ? parse_ports_report(rest, source, lines[first], first + 1)
                                                      : parse_topology(rest, source, lines[first], first + 1);
    warnings.insert(warnings.end(), f.warnings.begin(), f.warnings.end());
    f.warnings = std::move(warnings);
    return f;
}

NodeNameMap parse_node_name_map(std::istream &in, const std::string &source)
{
    NodeNameMap m;
    std::map<std::uint64_t, std::size_t> first_line;
    std::map<std::string, std::pair<std::uint64_t, std::string>> host_names;  // "host adapter_name_key" -> its GUID, as written
    std::string line;
    std::size_t lineno = 0;
    while (std::getline(in, line)) {
        ++lineno;
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        Cursor c(line, source, lineno);
        c.ws();
        if (c.eof() || c.peek('#'))
            continue;
        std::uint64_t g = c.hex("a GUID such as 0x0002c903000e0b72", true);
        c.ws();
        if (!c.accept('"'))
            c.fail("a quoted name after the GUID");
        std::size_t end = line.rfind('"');
        if (end < c.i)
            c.fail("a closing '\"'");
        std::string name = line.substr(c.i, end - c.i);
        auto had = m.find(g);
        if (had != m.end() && had->second != name)  // which the admin meant is not known
            throw InputError(source, lineno, "found " + guid_str(g) + " named " + shown(name) + ", named " +
                                                 shown(had->second) + " on line " + std::to_string(first_line[g]) +
                                                 ": expected each GUID once");
        if (had == m.end())
            first_line[g] = lineno;
        // one host adapter name for two GUIDs: the admin's map contradicts
        // itself (switch names may repeat: a director's ASICs)
        // (in any spelling: MLX5_0 and mlx5_00 are mlx5_0, helper 61)
        if (had == m.end() && classify_ca(name) == CaKind::Host) {
            const auto hd = split_ca_desc(name);
            auto [it, fresh] = host_names.emplace(hd.first + " " + adapter_name_key(hd.second), std::make_pair(g, name));
            if (!fresh && it->second.first != g)
                throw InputError(source, lineno, "found " + shown(name) + " for " + guid_str(g) + ", given to " +
                                                     guid_str(it->second.first) +
                                                     (it->second.second != name ? " as " + shown(it->second.second) : std::string()) +
                                                     " on line " + std::to_string(first_line[it->second.first]) +
                                                     ": expected each host adapter name once, in any spelling");
        }
        m[g] = name;
    }
    return m;
}

std::size_t apply_node_name_map(Fabric &f, const NodeNameMap &map, bool refuse_unmapped)
{
    std::size_t n = 0;
    for (auto &node : f.nodes) {
        auto it = map.find(node.guid);
        if (it != map.end()) {
            node.desc = it->second;
            node.mapped = true;
            ++n;
        } else if (refuse_unmapped && node.type == NodeType::Ca && !node.desc.empty()) {
            // a SHARP aggregation node is part of its switch: the same system
            // image GUID as the switch it is cabled to, which no host sets
            bool an = false;
            for (const Link &l : f.links)
                for (const auto &ends : {std::make_pair(l.a, l.b), std::make_pair(l.b, l.a)})
                    if (ends.first.guid == node.guid)
                        if (const Node *sw = f.find(ends.second.guid))
                            an = an || (sw->type == NodeType::Switch && node.sysimg_guid != 0 &&
                                        node.sysimg_guid == sw->sysimg_guid &&
                                        classify_ca(node.desc) == CaKind::Sharp);
            if (an)
                continue;
            f.warnings.push_back("adapter " + guid_str(node.guid) + " (node description " + shown(node.desc) +
                                 ") is not in the node name map: its description is not believed (--unmapped refuse)");
            node.desc.clear();
        }
    }
    return n;
}

}  // namespace atl
