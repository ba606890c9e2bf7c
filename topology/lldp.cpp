#include "topology/lldp.hpp"
#include "topology/hostlist.hpp"
#include "topology/json.hpp"
#include "topology/topology.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <iterator>
#include <sstream>
#include <sys/stat.h>
#include <tuple>
#include <unistd.h>

#include "topology/csv.hpp"
#include "topology/topology.hpp"


namespace atl {
namespace {

using nlohmann::json;

// The first eight names, comma-separated, then how many in all.
std::string first_names(const std::vector<std::string> &names)
{
    std::string who;
    for (std::size_t i = 0; i < names.size() && i < 8; ++i)
        who += (i ? ", " : "") + names[i];
    if (names.size() > 8)
        who += ", ... (" + std::to_string(names.size()) + " in all)";
    return who;
}

// leaf01.example.net -> leaf01 (an address stays whole)
std::string short_name(const std::string &n)
{
    bool numeric = !n.empty() && std::all_of(n.begin(), n.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '.'; });
    if (numeric)
        return n;
    return n.substr(0, n.find('.'));
}

// lldpd's json0 wraps every value in a list of objects; json does not.
const json *first(const json &j, const char *key)
{
    if (!j.is_object() || !j.contains(key))
        return nullptr;
    const json &v = j[key];
    if (v.is_array())
        return v.empty() ? nullptr : &v[0];
    return &v;
}

std::string value_of(const json *j)
{
    // a loop, not recursion: input depth must not reach the stack
    while (j && j->is_array() && !j->empty())
        j = &(*j)[0];
    if (!j)
        return "";
    if (j->is_string())
        return j->get<std::string>();
    if (j->is_object() && j->contains("value")) {
        const json &v = (*j)["value"];
        if (v.is_string())
            return v.get<std::string>();
        if (v.is_array() && !v.empty() && v[0].is_object() && v[0].contains("value") && v[0]["value"].is_string())
            return v[0]["value"].get<std::string>();
    }
    return "";
}

// one neighbour entry (an interface's object) of json or json0
LldpNeighbor neighbour(const std::string &local, const std::string &iface, const json &e)
{
    LldpNeighbor n;
    n.local = local;
    n.iface = iface;
    n.via = value_of(first(e, "via"));
    const json *ch = first(e, "chassis");
    if (ch && ch->is_object()) {
        std::string name = value_of(first(*ch, "name"));
        const json *id = first(*ch, "id");
        if (!id && ch->size() == 1 && ch->begin().value().is_object()) {
            // json: the chassis is keyed by its system name
            name = ch->begin().key();
            id = first(ch->begin().value(), "id");
        }
        n.chassis_id = value_of(id);
        n.chassis = !name.empty() ? short_name(name) : n.chassis_id;
        const json &body = (ch->contains("id") || ch->contains("name") || ch->size() != 1) ? *ch : ch->begin().value();
        if (body.is_object() && body.contains("capability") && body["capability"].is_array())
            for (const auto &cap : body["capability"]) {
                if (!cap.is_object() || !cap.contains("type") || !cap.contains("enabled") || !cap["enabled"].is_boolean() ||
                    !cap["enabled"].get<bool>())
                    continue;
                if (cap["type"] == "Bridge" || cap["type"] == "Router")
                    n.bridge = true;
                else if (cap["type"] == "Station")
                    n.station = true;
            }
    }
    const json *port = first(e, "port");
    if (port) {
        n.port = value_of(first(*port, "id"));
        const json *an = first(*port, "auto-negotiation");
        if (an)
            n.gbps = mau_gbps(value_of(first(*an, "current")));
    }
    return n;
}

std::vector<LldpNeighbor> parse_json(const std::string &text, const std::string &source, std::string local)
{
    json j;
    try {
        j = json::parse(text);
    } catch (const json::exception &e) {
        throw InputError(source + ": not valid JSON (" + json_error_text(e) + "), expected lldpcli -f json or json0");
    }
    std::string claimed;
    bool self_bridge = false;
    if (j.contains("lldp_loc_chassis")) {  // SONiC: the local system names itself
        const json *lc = first(j["lldp_loc_chassis"], "local-chassis");
        const json *ch = lc ? first(*lc, "chassis") : nullptr;
        if (ch && ch->is_object() && !ch->empty() && !ch->contains("id")) {
            claimed = short_name(ch->begin().key());
            const json &body = ch->begin().value();
            if (body.is_object() && body.contains("capability") && body["capability"].is_array())
                for (const auto &cap : body["capability"])
                    if (cap.is_object() && cap.contains("type") && cap.contains("enabled") && cap["enabled"].is_boolean() &&
                        cap["enabled"].get<bool>() && (cap["type"] == "Bridge" || cap["type"] == "Router"))
                        self_bridge = true;
        }
    }
    if (local.empty())
        local = claimed;
    const json *l = first(j, "lldp");
    if (!l)
        throw InputError(source + ": found no \"lldp\" object, expected lldpcli show neighbors output (-f json or json0)");
    std::vector<LldpNeighbor> out;
    if (!l->contains("interface"))
        return out;  // no neighbour
    const json &ifs = (*l)["interface"];
    auto one = [&](const json &item) {
        if (!item.is_object())
            throw InputError(source + ": found an interface that is not an object, expected lldpcli output");
        if (item.contains("name") && item["name"].is_string())  // json0
            out.push_back(neighbour(local, item["name"].get<std::string>(), item));
        else
            for (auto it = item.begin(); it != item.end(); ++it)  // json: {"eth0": {...}}
                out.push_back(neighbour(local, it.key(), it.value()));
    };
    if (ifs.is_array())
        for (const auto &item : ifs)
            one(item);
    else
        one(ifs);
    for (LldpNeighbor &n : out) {
        n.claimed = claimed;
        n.self_bridge = self_bridge;
    }
    return out;
}

// lldpcli -f keyvalue gives a chassis or port ID under its subtype's name
// (lldpd's chassis_id_subtype_map and port_id_subtype_map: a switch may
// send any of them; json, json0 and xml give it as "type")
bool id_subtype(const std::string &key)
{
    for (const char *t : {"mac", "local", "ip", "ifname", "ifalias", "unhandled"})
        if (key == t)
            return true;
    return false;
}

std::vector<LldpNeighbor> parse_keyvalue(const std::string &text, const std::string &source, const std::string &local)
{
    std::vector<LldpNeighbor> out;
    std::istringstream in(text);
    std::string line;
    std::size_t lineno = 0;
    // lldpcli before 0.9.1 (lldpd 8755512e, 2016) wrote a value's newlines
    // as they came: a switch's multi-line system or port description
    // (NX-OS, IOS) goes on over lines of its own, read as part of it
    bool in_descr = false;
    std::string continuation;  // the last line read so, while no key line follows it
    std::size_t continued_at = 0;
    while (std::getline(in, line)) {
        ++lineno;
        if (!line.empty() && line.back() == '\r')  // a CRLF file: the CR ends the line, it is no part of a value
            line.pop_back();
        if (line.empty())
            continue;
        if (in_descr && line.compare(0, 5, "lldp.") != 0) {
            continuation = line;  // (last: none may end the table, helper 75)
            continued_at = lineno;
            continue;
        }
        continuation.clear();
        std::size_t eq = line.find('=');
        if (line.compare(0, 5, "lldp.") != 0 || eq == std::string::npos)
            throw InputError(source, lineno, "found " + shown(line, 80) + ", expected lldp.INTERFACE.KEY=VALUE");
        std::string key = line.substr(5, eq - 5), val = line.substr(eq + 1);
        // An interface's name may hold dots (a VLAN's ens1np0.100): the
        // entry's first key, via, gives it whole, and the keys after it
        // begin with it
        std::size_t dot = key.find('.');
        if (dot == std::string::npos)
            continue;
        if (key.size() > 4 && key.compare(key.size() - 4, 4, ".via") == 0)
            dot = key.size() - 4;
        else if (!out.empty() && key.size() > out.back().iface.size() + 1 &&
                 key.compare(0, out.back().iface.size(), out.back().iface) == 0 && key[out.back().iface.size()] == '.')
            dot = out.back().iface.size();
        std::string iface = key.substr(0, dot), rest = key.substr(dot + 1);
        if (rest == "via" || out.empty() || out.back().iface != iface) {
            LldpNeighbor n;
            n.local = local;
            n.iface = iface;
            out.push_back(n);
        }
        LldpNeighbor &n = out.back();
        in_descr = rest.size() >= 5 && rest.compare(rest.size() - 5, 5, "descr") == 0;
        if (rest == "via")
            n.via = val;
        else if (rest == "chassis.name")
            n.chassis = short_name(val);
        else if (rest.compare(0, 8, "chassis.") == 0 && n.chassis_id.empty() && id_subtype(rest.substr(8))) {
            n.chassis_id = val;
            if (n.chassis.empty())
                n.chassis = val;
        }
        else if (rest.compare(0, 5, "port.") == 0 && id_subtype(rest.substr(5)))
            n.port = val;
        else if (rest == "port.auto-negotiation.current")
            n.gbps = mau_gbps(val);
        else if ((rest == "chassis.Bridge.enabled" || rest == "chassis.Router.enabled") && val == "on")
            n.bridge = true;
        else if (rest == "chassis.Station.enabled" && val == "on")
            n.station = true;
    }
    // a table cut short: lldpcli ends its table with a key, so an error
    // text after a description is no table's end (helper 75)
    if (!continuation.empty())
        throw InputError(source, continued_at, "found " + shown(continuation, 80) +
                                                   " after a description, at the end, expected lldp.INTERFACE.KEY=VALUE: the table looks cut short");
    return out;
}

// `what` in s[from, to): searches never run past the element at hand, so a
// document of many interfaces is read in linear time
std::size_t find_in(const std::string &s, const std::string &what, std::size_t from, std::size_t to)
{
    if (from == std::string::npos || from >= s.size())
        return std::string::npos;
    to = std::min(to, s.size());
    if (to <= from)
        return std::string::npos;
    auto it = std::search(s.begin() + static_cast<std::ptrdiff_t>(from), s.begin() + static_cast<std::ptrdiff_t>(to),
                          what.begin(), what.end());
    return it == s.begin() + static_cast<std::ptrdiff_t>(to) ? std::string::npos : static_cast<std::size_t>(it - s.begin());
}

// &amp; &lt; &gt; &quot; &apos; decoded in one pass (&amp;lt; is "&lt;")
std::string xml_decode(const std::string &v)
{
    std::string out;
    out.reserve(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (v[i] == '&') {
            bool done = false;
            for (auto [ent, ch] : {std::make_pair("&amp;", '&'), std::make_pair("&lt;", '<'), std::make_pair("&gt;", '>'),
                                   std::make_pair("&quot;", '"'), std::make_pair("&apos;", '\'')}) {
                std::size_t n = std::strlen(ent);
                if (v.compare(i, n, ent) == 0) {
                    out += ch;
                    i += n - 1;
                    done = true;
                    break;
                }
            }
            if (done)
                continue;
        }
        out += v[i];
    }
    return out;
}

// the text of the first <tag ...>...</tag> in s[from, to)
std::string xml_text(const std::string &s, const std::string &tag, std::size_t from, std::size_t to)
{
    std::size_t a = find_in(s, "<" + tag + " ", from, to);
    if (a == std::string::npos)
        a = find_in(s, "<" + tag + ">", from, to);
    if (a == std::string::npos)
        return "";
    std::size_t b = find_in(s, ">", a, to);
    std::size_t c = find_in(s, "</" + tag + ">", b, to);
    if (b == std::string::npos || c == std::string::npos)
        return "";
    return xml_decode(s.substr(b + 1, c - b - 1));
}

std::vector<LldpNeighbor> parse_xml(const std::string &s, const std::string &source, const std::string &local)
{
    if (s.find("<lldp") == std::string::npos)
        throw InputError(source + ": found no <lldp> element, expected lldpcli -f xml output");
    std::vector<LldpNeighbor> out;
    std::size_t pos = 0;
    while ((pos = s.find("<interface ", pos)) != std::string::npos) {
        std::size_t end = s.find("</interface>", pos);
        if (end == std::string::npos)
            throw InputError(source + ": an <interface> element is not closed, expected lldpcli -f xml output");
        std::size_t tag_end = find_in(s, ">", pos, end);
        std::size_t np = find_in(s, "name=\"", pos, tag_end);
        LldpNeighbor n;
        n.local = local;
        if (np != std::string::npos) {
            std::size_t q = find_in(s, "\"", np + 6, tag_end);
            if (q != std::string::npos)
                n.iface = xml_decode(s.substr(np + 6, q - np - 6));
        }
        if (std::size_t vp = find_in(s, " via=\"", pos, tag_end); vp != std::string::npos) {
            std::size_t q = find_in(s, "\"", vp + 6, tag_end);
            if (q != std::string::npos)
                n.via = xml_decode(s.substr(vp + 6, q - vp - 6));
        }
        std::size_t cs = find_in(s, "<chassis", pos, end), ps = find_in(s, "<port", pos, end);
        std::size_t ce = cs != std::string::npos ? find_in(s, "</chassis>", cs, end) : std::string::npos;
        if (ce == std::string::npos)
            ce = end;
        std::string name = xml_text(s, "name", cs, ce);
        n.chassis_id = xml_text(s, "id", cs, ce);
        n.chassis = !name.empty() ? short_name(name) : n.chassis_id;
        for (const char *cap : {"type=\"Bridge\" enabled=\"on\"", "type=\"Router\" enabled=\"on\""})
            if (find_in(s, cap, cs, ce) != std::string::npos)
                n.bridge = true;
        if (find_in(s, "type=\"Station\" enabled=\"on\"", cs, ce) != std::string::npos)
            n.station = true;
        if (ps != std::string::npos) {
            n.port = xml_text(s, "id", ps, end);
            n.gbps = mau_gbps(xml_text(s, "current", ps, end));
        }
        out.push_back(n);
        pos = end;
    }
    return out;
}

// lldpcli's plain output opens with a rule and a title: "LLDP neighbors:"
// (show neighbors), "LLDP interfaces:", "Local chassis:", "Global
// configuration:"; the title, or ""
std::string plain_marker(const std::string &head)
{
    std::size_t i = head.find_first_not_of(" \t\r\n");
    if (i == std::string::npos || head.compare(i, 10, "----------") != 0)
        return "";
    std::size_t nl = head.find('\n', i);
    if (nl == std::string::npos)
        return "";
    std::size_t e = head.find('\n', nl + 1);
    std::string title = head.substr(nl + 1, e == std::string::npos ? std::string::npos : e - nl - 1);
    if (!title.empty() && title.back() == '\r')
        title.pop_back();
    for (const char *t : {"LLDP neighbors:", "LLDP interfaces:", "Local chassis:", "Global configuration:", "LLDP statistics:"})
        if (title == t)
            return title;
    return "";
}

std::vector<LldpNeighbor> parse_one(const std::string &text, const std::string &source, const std::string &local)
{
    std::size_t i = text.find_first_not_of(" \t\r\n");
    if (i == std::string::npos)
        return {};
    if (text[i] == '{')
        return parse_json(text, source, local);
    if (text[i] == '<')
        return parse_xml(text, source, local);
    if (std::string m = plain_marker(text); !m.empty())
        throw InputError(source + ": lldpcli's default (plain) output ('" + m + "'), expected lldpcli -f keyvalue show "
                                  "neighbors details (or -f json, -f xml): the plain form is for people");
    return parse_keyvalue(text, source, local);
}

std::string basename_system(const std::string &path)
{
    std::string b = path.substr(path.rfind('/') == std::string::npos ? 0 : path.rfind('/') + 1);
    // a table named by its host's address (10.0.0.5.json): the address
    std::size_t i = 0, dots = 0;
    while (i < b.size() && (std::isdigit(static_cast<unsigned char>(b[i])) || (b[i] == '.' && dots < 3))) {
        dots += b[i] == '.';
        ++i;
    }
    if (dots == 3 && i > 6 && std::isdigit(static_cast<unsigned char>(b[i - 1])) && (i == b.size() || b[i] == '.'))
        return b.substr(0, i);
    return b.substr(0, b.find('.'));
}

}  // namespace

double mau_gbps(const std::string &mau)
{
    // "10GbaseT", "100GbaseCR4", "25GBASE-CR", "1000BaseT", "100BaseTX"
    std::size_t i = 0;
    while (i < mau.size() && std::isdigit(static_cast<unsigned char>(mau[i])))
        ++i;
    if (i == 0)
        return 0;
    double v = std::atof(mau.substr(0, i).c_str());
    // lldpd writes a decimal point as "p": "2p5GigT", "2p5GbaseX" (2.5G)
    if (i + 1 < mau.size() && mau[i] == 'p' && std::isdigit(static_cast<unsigned char>(mau[i + 1]))) {
        v += (mau[i + 1] - '0') / 10.0;
        i += 2;
    }
    std::string unit = mau.substr(i, 5);
    std::transform(unit.begin(), unit.end(), unit.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (unit.compare(0, 1, "g") == 0)
        return v;
    if (unit.compare(0, 4, "base") == 0)
        return v / 1000;
    return 0;
}

bool looks_like_lldp(const std::string &head)
{
    return head.find("\"lldp\"") != std::string::npos || head.find("<lldp") != std::string::npos ||
           head.compare(0, 5, "lldp.") == 0 || head.find("\nlldp.") != std::string::npos ||
           head.find(": lldp.") != std::string::npos || !plain_marker(head).empty();
}

std::vector<LldpNeighbor> parse_lldp(std::istream &in, const std::string &source, const std::string &local,
                                     std::vector<std::string> *unread)
{
    std::ostringstream all;
    all << in.rdbuf();
    return parse_lldp_text(all.str(), source, local, unread);
}

std::vector<LldpNeighbor> parse_lldp_text(const std::string &text, const std::string &source, const std::string &local,
                                          std::vector<std::string> *unread)
{
    // pdsh/clush: "host: line" on every line -> one table per host
    std::istringstream lines(text);
    std::string line;
    std::map<std::string, std::string> per_host, prefix_of;
    std::vector<std::string> order;
    bool prefixed = true, any = false;
    while (std::getline(lines, line)) {
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        if (line.empty())
            continue;
        any = true;
        std::size_t c = line.find(": ");
        std::string host = c == std::string::npos ? "" : line.substr(0, c);
        if (host.empty() || host.find_first_of(" \t{\"<=") != std::string::npos) {
            prefixed = false;
            break;
        }
        // the system is the prefix up to its first '.' (an address whole),
        // as for a table's file name: gpu02.cluster.example.com is gpu02
        std::string whole = host;
        host = short_name(host);
        auto seen = prefix_of.emplace(host, whole).first;
        if (seen->second != whole)
            throw InputError(source + ": found the prefixes " + shown(seen->second) + " and " + shown(whole) +
                             ", two tables of one system " + shown(host) + ", expected one table per system");
        if (!per_host.count(host))
            order.push_back(host);
        per_host[host] += line.substr(c + 2) + "\n";
    }
    if (!any)
        return {};
    if (!prefixed)
        return parse_one(text, source, local);
    std::vector<LldpNeighbor> out;
    for (const auto &h : order) {
        std::vector<LldpNeighbor> part;
        try {
            part = parse_one(per_host[h], source + " (" + h + ")", h);
        } catch (const InputError &e) {
            if (!unread || order.size() < 2)
                throw;
            unread->push_back(e.what());  // (helper 73: "gpu07: ssh: connect to host ..." stopped the site)
        }
        out.insert(out.end(), part.begin(), part.end());
    }
    return out;
}

namespace {

// Hosts that may be of the storage or front-end network, whose tables were
// given too (a storage server's two ports on the switches where the GPU
// hosts have their storage NICs): a switch that carries front-end NICs of a
// host with R compute interfaces, and compute ports only of hosts with at
// most R/2, may be a front-end switch; a host with a compute interface on
// such a switch, and none on a switch of hosts with more than R/2, may be a
// storage server, or a small partition on a converged switch. Which is not
// known: the host is undecided (no device variable; its interfaces kept, so
// it stays in Slurm's topology), and analyse() leaves undecided hosts out
// of the vote on rails, so such servers cannot set the GPU hosts' rails.
// (A GPU host with most rails down keeps its rail leaves, which carry
// other GPU hosts' rails.)
void undecide_service_hosts(NicSplit &out)
{
    std::map<std::string, int> rails;  // host -> compute interfaces
    std::map<std::string, std::vector<const LldpNeighbor *>> compute_of;
    for (const LldpNeighbor &n : out.compute) {
        rails[n.local]++;
        compute_of[n.local].push_back(&n);
    }
    std::map<std::string, int> front_of;  // switch -> the most rails of a host with a front-end NIC on it
    for (const FrontEndNic &f : out.frontend)
        front_of[f.sw] = std::max(front_of[f.sw], rails.count(f.host) ? rails[f.host] : 0);
    std::map<std::string, bool> fe_switch;
    for (const auto &kv : front_of)
        fe_switch[kv.first] = kv.second > 0;
    for (const LldpNeighbor &n : out.compute)
        if (fe_switch.count(n.chassis) && 2 * rails[n.local] > front_of[n.chassis])
            fe_switch[n.chassis] = false;
    // the most rails of a host with a compute port on each switch
    std::map<std::string, int> biggest;
    for (const LldpNeighbor &n : out.compute)
        biggest[n.chassis] = std::max(biggest[n.chassis], rails[n.local]);
    std::set<std::string> und(out.undecided.begin(), out.undecided.end());
    for (const auto &kv : rails) {
        // on a front-end switch, and on no switch of the hosts of that many rails
        int r = 0;
        for (const LldpNeighbor *n : compute_of[kv.first])
            if (fe_switch.count(n->chassis) && fe_switch[n->chassis])
                r = std::max(r, front_of[n->chassis]);
        bool apart = r > 0;
        for (const LldpNeighbor *n : compute_of[kv.first])
            apart = apart && 2 * biggest[n->chassis] <= r;
        if (apart && und.insert(kv.first).second)
            out.undecided.push_back(kv.first);
    }
}

}  // namespace

// A host's ports on another network. Where switch tables show how the
// switches are cabled, a switch that no cable joins to the switches of most
// of a host's ports is on another network: a DGX's two storage ports on the
// storage fabric's leaves, as fast as its eight rails. A port whose network
// holds at most a third of its host's ports, while another holds more than
// half, is no rail. Only networks known to be apart count, those of two
// switches or more: a leaf whose cables to other switches no table shows
// (its table not given) may be one of the rails' own.
// `main` gets the ports on a network that holds more than half of their
// host's ports and carries no slower one (the rails' network, as the
// switches' tables show it): no other rule puts those out.
std::map<const LldpNeighbor *, std::string> on_other_networks(
    const std::map<std::string, std::vector<const LldpNeighbor *>> &by_host,
    const std::vector<std::pair<std::string, std::string>> &switch_links, std::set<const LldpNeighbor *> &main)
{
    std::map<const LldpNeighbor *, std::string> out;
    if (switch_links.empty())
        return out;
    std::map<std::string, std::string> parent;
    auto root = [&](const std::string &x) {
        std::string r = x;
        while (parent.count(r) && parent[r] != r)
            r = parent[r];
        for (std::string y = x; parent.count(y) && parent[y] != r;) {  // path compression
            std::string next = parent[y];
            parent[y] = r;
            y = next;
        }
        return r;
    };
    for (const auto &l : switch_links) {
        std::string a = root(l.first), b = root(l.second);
        parent.emplace(a, a);
        parent.emplace(b, b);
        if (a != b)
            parent[std::max(a, b)] = std::min(a, b);
    }
    std::map<std::string, int> size;  // network -> switches
    for (const auto &kv : parent)
        size[root(kv.first)]++;
    for (const auto &kv : by_host) {
        std::map<std::string, int> ports;  // known network -> the host's ports on it
        std::set<std::string> slow;        // networks where a port of the host runs below its fastest
        double fastest = 0;
        for (const LldpNeighbor *n : kv.second)
            fastest = std::max(fastest, n->gbps);
        for (const LldpNeighbor *n : kv.second)
            if (parent.count(n->chassis)) {
                ports[root(n->chassis)]++;
                if (n->gbps > 0 && n->gbps < fastest)
                    slow.insert(root(n->chassis));
            }
        const int total = static_cast<int>(kv.second.size());
        for (const LldpNeighbor *n : kv.second)
            if (parent.count(n->chassis) && size[root(n->chassis)] >= 2 && 2 * ports[root(n->chassis)] > total &&
                !slow.count(root(n->chassis)))
                main.insert(n);
        if (ports.size() < 2)
            continue;
        for (const LldpNeighbor *n : kv.second) {
            if (!parent.count(n->chassis))
                continue;
            const std::string net = root(n->chassis);
            const int mine = ports[net];
            if (size[net] < 2 || 3 * mine > total)
                continue;
            // the networks that hold more of the host's ports (the rails:
            // one, or several planes that never meet) hold most of them, and
            // none carries a slower port of the host (then it may be the
            // front-end network: a CPU node's bond and eno1 beside its one
            // RoCE port)
            int more = 0;
            bool front_like = false;
            std::string main_sw;  // a switch of the biggest, to name it
            int biggest = 0;
            for (const auto &pn : ports)
                if (pn.second > mine) {
                    more += pn.second;
                    front_like = front_like || slow.count(pn.first);
                    if (pn.second > biggest)
                        biggest = pn.second;
                }
            if (2 * more <= total || front_like)
                continue;
            for (const LldpNeighbor *m : kv.second)
                if (main_sw.empty() && parent.count(m->chassis) && ports[root(m->chassis)] == biggest)
                    main_sw = m->chassis;
            out[n] = "on " + n->chassis + ", which no switch cable joins to " + main_sw + " or the other switches of " +
                     std::to_string(more) + " of the host's " + std::to_string(total) +
                     " ports: another network, storage or front-end";
        }
    }
    return out;
}

NicSplit split_nics(const std::vector<LldpNeighbor> &hosts, const NicRoles &roles,
                    const std::map<std::string, HostNics> &nics,
                    const std::vector<std::pair<std::string, std::string>> &switch_links)
{
    NicSplit out;
    std::map<std::string, std::vector<const LldpNeighbor *>> by_host, by_iface, by_switch;
    for (const auto &n : hosts) {
        by_host[n.local].push_back(&n);
        by_iface[n.iface].push_back(&n);
        by_switch[n.chassis].push_back(&n);
    }
    std::set<const LldpNeighbor *> on_rails_net;
    const auto apart = on_other_networks(by_host, switch_links, on_rails_net);
    // A slower interface: a rail that came up slow, or a port of another use
    // (front-end, storage)? The same port on the other hosts tells: a fault
    // is one host's, a design every host's. The evidence, the first that
    // has any: (1) the other hosts' interfaces of that name on that switch
    // (the same rail); (2) their interfaces of that name anywhere (the same
    // port of a host model; converged storage ports spread over the rail
    // leaves); (3) the other hosts on that switch, whether each has a port
    // there as slow (a front-end switch every host reaches at 10G, beside
    // one fast storage server). From (1) and (2): the same port at this
    // host's fastest on every other host, or on most, is a rail that came
    // up slow; on none, another use; on some but not most, not known (the
    // host is undecided). From (3): a rail unless most other hosts on the
    // switch have a port there as slow. Before all: an interface beside a
    // faster one of its host on its switch, where the other hosts there
    // have fewer ports, is one more port, not a rail.
    enum class Slow { Rail, Other, Unknown };
    auto judge = [&](const LldpNeighbor &n, double fastest) -> std::pair<Slow, std::string> {
        std::map<std::string, int> on_switch;  // host -> its ports on n's switch
        for (const LldpNeighbor *p : by_switch[n.chassis])
            on_switch[p->local]++;
        std::vector<int> counts;
        for (const auto &kv : on_switch)
            if (kv.first != n.local)
                counts.push_back(kv.second);
        std::sort(counts.begin(), counts.end());
        bool faster_here = std::any_of(by_switch[n.chassis].begin(), by_switch[n.chassis].end(), [&](const LldpNeighbor *p) {
            return p->local == n.local && p != &n && p->gbps >= fastest;
        });
        if (faster_here && !counts.empty() && on_switch[n.local] > counts[counts.size() / 2])
            return {Slow::Other, "beside a faster port of the host on " + n.chassis + ", where the other hosts have fewer ports: one more port, no rail"};
        for (int level = 1; level <= 2; ++level) {
            int fast = 0, slow = 0;
            for (const LldpNeighbor *p : by_iface[n.iface])
                if (p->local != n.local && p->gbps > 0 && (level == 2 || p->chassis == n.chassis))
                    (p->gbps >= fastest ? fast : slow) += 1;
            if (fast + slow == 0)
                continue;
            std::string where = level == 1 ? " on " + n.chassis : "";
            std::string tally = " (" + std::to_string(fast) + " of " + std::to_string(fast + slow) + ")";
            if (slow == 0 || fast > slow)
                return {Slow::Rail, ""};
            if (fast == 0)
                return {Slow::Other, "and no other host's " + n.iface + where + " runs at " + gbps_name(fastest) + tally};
            // some fast, as many slow or more: on a leaf that carries this
            // one port of every host and nothing else (a rail leaf), it is
            // that rail, some of whose links came up slow
            if (level == 1 && std::all_of(by_switch[n.chassis].begin(), by_switch[n.chassis].end(),
                                          [&](const LldpNeighbor *p) { return p->iface == n.iface; }))
                return {Slow::Rail, ""};
            return {Slow::Unknown, ""};
        }
        // (hosts of at least half as many interfaces: a storage server's
        // one fast port on the front-end switch says nothing of the rails)
        std::set<std::string> others, slow_hosts;
        const std::size_t mine = by_host[n.local].size();
        for (const LldpNeighbor *p : by_switch[n.chassis])
            if (p->local != n.local && p->gbps > 0 && 2 * by_host[p->local].size() >= mine) {
                others.insert(p->local);
                if (p->gbps < fastest)
                    slow_hosts.insert(p->local);
            }
        if (2 * slow_hosts.size() >= others.size() && !others.empty())
            return {Slow::Other, "and " + std::to_string(slow_hosts.size()) + " of the " + std::to_string(others.size()) +
                                     " other hosts on " + n.chassis + " have a port there slower than that too"};
        return {Slow::Rail, ""};
    };
    auto matches = [](const std::string &patterns, const LldpNeighbor &n) {
        return !patterns.empty() && (hca_selected(patterns, n.iface) || hca_selected(patterns, n.chassis));
    };
    std::set<std::string> decided_rails;  // hosts whose interfaces were told apart, and several kept
    std::set<std::string> one_speed;      // hosts undecided for all their interfaces running alike
    for (const auto &kv : by_host) {
        const std::string &host = kv.first;
        auto front = [&](const LldpNeighbor &n, const std::string &why) {
            out.frontend.push_back({n.local, n.iface, n.chassis, n.gbps, why});
        };
        if (roles.given()) {  // the admin's word, and nothing else
            for (const LldpNeighbor *n : kv.second)
                if (matches(roles.frontend, *n))
                    front(*n, "matches --frontend " + roles.frontend);
                else if (!roles.compute.empty() && !matches(roles.compute, *n))
                    front(*n, "matches no --compute pattern (" + roles.compute + ")");
                else
                    out.compute.push_back(*n);
            continue;
        }
        // HOST.node.json: RoCE needs an Ethernet RDMA port behind the netdev.
        // Not applied when it names a RoCE netdev LLDP does not show (a LAG's
        // bond, whose members LLDP names; a port with no neighbour).
        auto nic = nics.find(host);
        bool by_rdma = nic != nics.end() && !nic->second.roce.empty();
        for (const std::string &nd : by_rdma ? nic->second.roce : std::set<std::string>{})
            by_rdma = by_rdma && std::any_of(kv.second.begin(), kv.second.end(),
                                             [&](const LldpNeighbor *n) { return n->iface == nd; });
        std::vector<const LldpNeighbor *> left;
        for (const LldpNeighbor *n : kv.second)
            if (apart.count(n))
                front(*n, apart.at(n));
            else if (by_rdma && !nic->second.roce.count(n->iface))
                front(*n, "the host's node.json (atoll-topo node --json) shows no Ethernet RDMA port behind it, and RoCE needs one");
            else if (nic != nics.end() && !nic->second.gpu_own.empty() && nic->second.no_gpu.count(n->iface) &&
                     !on_rails_net.count(n))
                front(*n, "the host's node.json shows every GPU with an adapter of its own under its PCIe switch, and this "
                          "one no GPU's: storage or front-end, no rail");
            else
                left.push_back(n);
        // Speeds: slower than the host's fastest, to a switch with no port that fast.
        double fastest = 0;
        bool unknown = false;
        for (const LldpNeighbor *n : left) {
            fastest = std::max(fastest, n->gbps);
            unknown = unknown || n->gbps <= 0;
        }
        // a front-end NIC that shows itself by being slower, whichever rule
        // took it out (node.json's, or the one below)
        double fastest_all = 0;
        for (const LldpNeighbor *n : kv.second)
            fastest_all = std::max(fastest_all, n->gbps);
        int slower = 0, kept = 0;
        bool unsure = false;
        for (const LldpNeighbor *n : kv.second)
            if (n->gbps > 0 && n->gbps < fastest_all &&
                std::find(left.begin(), left.end(), n) == left.end())
                ++slower;
        for (const LldpNeighbor *n : left) {
            std::pair<Slow, std::string> j{Slow::Rail, ""};
            if (n->gbps > 0 && n->gbps < fastest)
                j = judge(*n, fastest);
            if (j.first == Slow::Other) {
                front(*n, gbps_name(n->gbps) + " where the host's fastest run at " + gbps_name(fastest) + ", " + j.second);
                ++slower;
            } else {
                // a rail, or not known: kept, so the host's other rails keep their numbers
                unsure = unsure || j.first == Slow::Unknown;
                out.compute.push_back(*n);
                ++kept;
            }
        }
        if (unsure) {
            out.undecided.push_back(host);
            continue;
        }
        // Several interfaces left that speed does not tell apart: all the
        // same speed proves nothing (a storage or front-end ConnectX as fast
        // as the rails, with RDMA, is as likely as one more rail), nor does
        // an unknown one. Only a host whose front-end NIC showed itself by
        // being slower has its fast interfaces taken as its rails.
        if (kept > 1 && ((unknown && !by_rdma) || slower == 0)) {
            out.undecided.push_back(host);
            if (!unknown && slower == 0)
                one_speed.insert(host);
        } else if (kept > 1)
            decided_rails.insert(host);
    }
    // A host undecided for want of a slower NIC (its front-end switch runs
    // no LLDP) whose every interface has the name and the switch of a rail
    // of a decided host is decided too: those are that rail.
    std::set<std::pair<std::string, std::string>> rail_at;  // (interface, switch) of decided hosts' rails
    std::map<std::string, std::vector<const LldpNeighbor *>> kept_of;
    for (const LldpNeighbor &n : out.compute) {
        if (decided_rails.count(n.local))
            rail_at.insert({n.iface, n.chassis});
        kept_of[n.local].push_back(&n);
    }
    std::vector<std::string> still;
    for (const std::string &h : out.undecided) {
        bool known = one_speed.count(h) && !rail_at.empty() &&
                     std::all_of(kept_of[h].begin(), kept_of[h].end(),
                                 [&](const LldpNeighbor *n) { return rail_at.count({n->iface, n->chassis}) > 0; });
        if (!known)
            still.push_back(h);
    }
    out.undecided = std::move(still);
    if (!roles.given())
        undecide_service_hosts(out);
    return out;
}

// One system name sent under several chassis IDs (SONiC's factory hostname
// "sonic" on every switch, leaf01 in two data halls): they are several
// switches, and taken for one they would join their hosts into one leaf.
// An ID seen only beside another on the same interfaces, of two tables or
// more, is a replaced switch's entry lldpd keeps until its TTL ends: left
// out (its port beside the new one's would contest the host's); two IDs
// always seen together are one switch. The ID the most tables name keeps
// the name; each other one (and every one on a tie: no table's word
// outweighs another's) is NAME-ID, the ID's letters and digits (or a hash
// of it, where that spells a name in use). A name with a table of its own
// is never split, nor one no table sends as a Bridge or Router (a host seen
// from its leaves: its NIC firmware may send each port's MAC as its chassis
// ID); an entry without an ID stays with the name. An entry with no
// name (only an ID) is the switch that ID is sent under with a name; its
// ID never spells a named switch's name. Said, so the site names its
// switches.
std::vector<std::string> split_shared_names(std::vector<LldpNeighbor> &ns, const std::string &source)
{
    auto lower = [](std::string v) {
        std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        return v;
    };
    auto named = [](const LldpNeighbor &n) { return !n.chassis_id.empty() && n.chassis != n.chassis_id; };
    std::set<std::string> tables, in_use, bridges;  // (names some table sends as a Bridge or Router)
    for (const auto &n : ns) {
        tables.insert(n.local);
        in_use.insert(n.chassis);
        if (n.bridge)
            bridges.insert(n.chassis);
    }
    using Where = std::pair<std::string, std::string>;  // (table, interface)
    std::map<std::string, std::map<std::string, std::set<Where>>> seen;  // name -> ID -> where
    std::map<std::pair<std::string, Where>, std::set<std::string>> ids_at;  // (name, where) -> IDs
    for (const auto &n : ns)
        if (named(n) && !tables.count(n.chassis) && bridges.count(n.chassis)) {
            const std::string id = lower(n.chassis_id);
            seen[n.chassis][id].insert({n.local, n.iface});
            ids_at[{n.chassis, {n.local, n.iface}}].insert(id);
        }
    std::map<std::pair<std::string, std::string>, std::string> rename;  // (name, ID) -> switch
    std::set<std::pair<std::string, std::string>> stale;                // (name, ID) left out
    std::set<std::string> split_sure;  // names taken for two switches or more of two tables or more each
    std::vector<std::string> said;
    for (auto &kv : seen) {
        if (kv.second.size() < 2)
            continue;
        // ID -> the ID it is one switch with (its group's least)
        std::map<std::string, std::string> group;
        for (const auto &id : kv.second)
            group[id.first] = id.first;
        std::vector<std::string> left_out;
        for (const auto &id : kv.second) {
            std::set<std::string> by;
            for (const Where &w : id.second)
                by.insert(w.first);
            const auto &beside = ids_at[{kv.first, *id.second.begin()}];
            if (beside.size() > 4)  // (a stale entry or two, not a list of hundreds)
                continue;
            // an ID of one table is stale beside an ID more tables see (that
            // table's own entry is dropped: helper 73, a switch replaced while
            // its one host's lldpd still held the old entry lost the host a
            // rail to a port contest), but joins nothing: one root alone
            // cannot make two switches one
            const bool one = by.size() < 2;
            for (const std::string &other : beside) {
                const auto &there = kv.second[other];
                if (other == id.first || !std::includes(there.begin(), there.end(), id.second.begin(), id.second.end()))
                    continue;
                if (there.size() > id.second.size()) {
                    stale.insert({kv.first, id.first});
                    left_out.push_back(shown(id.first) + " beside " + shown(other));
                } else if (!one) {
                    group[id.first] = std::min(group[id.first], group[other] = std::min(group[other], id.first));
                }
                break;
            }
        }
        if (!left_out.empty())
            said.push_back(source + ": " + shown(kv.first) + ": chassis ID " + first_names(left_out) +
                           ", only on the interfaces that see the other: a replaced switch's entry lldpd keeps until its "
                           "TTL ends, left out");
        std::map<std::string, std::set<std::string>> tables_of;  // group -> tables
        for (const auto &id : kv.second)
            if (!stale.count({kv.first, id.first}))
                for (const Where &w : id.second)
                    tables_of[group[id.first]].insert(w.first);
        if (tables_of.size() < 2)
            continue;
        std::size_t most = 0, at_most = 0;
        for (const auto &g : tables_of)
            most = std::max(most, g.second.size());
        for (const auto &g : tables_of)
            at_most += g.second.size() == most;
        std::map<std::string, std::string> name_of;  // group -> its switch
        std::vector<std::string> ids;
        for (const auto &g : tables_of) {
            std::string name = kv.first;
            if (g.second.size() != most || at_most != 1) {
                std::string tail;
                for (char c : g.first)
                    if (std::isalnum(static_cast<unsigned char>(c)))
                        tail += c;
                for (int round = 0; tail.size() > 32 || in_use.count(kv.first + "-" + tail); ++round) {
                    char x[9];
                    std::snprintf(x, sizeof x, "%08x",
                                  static_cast<unsigned>(name_guid("lldp", g.first + std::string(round, '#')) & 0xffffffffu));
                    tail = x;
                }
                name = kv.first + "-" + tail;
                in_use.insert(name);
            }
            name_of[g.first] = name;
            ids.push_back(shown(g.first) + " (" + std::to_string(g.second.size()) + " table" +
                          (g.second.size() == 1 ? "" : "s") + ": " + name + ")");
        }
        for (const auto &id : kv.second)
            if (name_of.count(group[id.first]) && name_of[group[id.first]] != kv.first)
                rename[{kv.first, id.first}] = name_of[group[id.first]];
        if (std::count_if(tables_of.begin(), tables_of.end(), [](const auto &g) { return g.second.size() > 1; }) > 1)
            split_sure.insert(kv.first);
        said.push_back(source + ": the switch name " + shown(kv.first) + " is sent by " + std::to_string(tables_of.size()) +
                       " chassis IDs, " + first_names(ids) + ": taken for that many switches; give each switch its own hostname");
    }
    if (!stale.empty())
        ns.erase(std::remove_if(ns.begin(), ns.end(), [&](const LldpNeighbor &n) {
                     return named(n) && stale.count({n.chassis, lower(n.chassis_id)});
                 }),
                 ns.end());
    // an entry with no chassis ID under a name several switches send (a
    // host hearing one by CDP alone): which of them it is, no table says
    // (helper 76: it joined the switch that kept the name). Only where two
    // of them are named by two tables or more each: an ID one root makes
    // up must not leave an honest entry out (helper 77)
    std::map<std::string, std::vector<std::string>> unsure;  // name -> "TABLE IFACE"
    ns.erase(std::remove_if(ns.begin(), ns.end(), [&](const LldpNeighbor &n) {
                 if (!n.chassis_id.empty() || !split_sure.count(n.chassis))
                     return false;
                 unsure[n.chassis].push_back(n.local + " " + n.iface);
                 return true;
             }),
             ns.end());
    for (const auto &kv : unsure)
        said.push_back(source + ": " + first_names(kv.second) + " name" + (kv.second.size() == 1 ? "s " : " ") + shown(kv.first) +
                       " without a chassis ID (CDP, or an ID not read): that name is several switches', which is not known; left out");
    // each ID's switch, where it is one (an ID sent under two names is none's)
    std::map<std::string, std::set<std::string>> switch_of;
    std::set<std::string> named_switches;
    for (auto &n : ns) {
        if (!named(n))
            continue;
        auto it = rename.find({n.chassis, lower(n.chassis_id)});
        if (it != rename.end())
            n.chassis = it->second;
        switch_of[lower(n.chassis_id)].insert(n.chassis);
        named_switches.insert(n.chassis);
    }
    std::map<std::string, std::set<std::string>> shared;  // an ID of two named switches -> the tables naming it alone
    for (auto &n : ns)
        if (!n.chassis_id.empty() && n.chassis == n.chassis_id) {
            auto it = switch_of.find(lower(n.chassis_id));
            if (it != switch_of.end() && it->second.size() == 1)
                n.chassis = *it->second.begin();
            else {
                if (it != switch_of.end())
                    shared[it->first].insert(n.local);
                if (named_switches.count(n.chassis))  // an ID that spells another switch's name
                    n.chassis += "-noname";
            }
        }
    // (an MLAG pair may send one system MAC: which of the two it is, no
    // table says; helper 72)
    for (const auto &kv : shared) {
        std::vector<std::string> by(kv.second.begin(), kv.second.end()), names;
        for (const std::string &s : switch_of[kv.first])
            names.push_back(shown(s));
        said.push_back(source + ": a neighbour given by chassis ID " + shown(kv.first) + " alone (" + first_names(by) + ") is sent by " +
                       first_names(names) +
                       " with their names: taken for a switch of its own, not placed beside either; have the switches send their names");
    }
    return said;
}

Fabric lldp_fabric(const std::vector<LldpNeighbor> &all, const std::string &source, const NicRoles &roles,
                   const std::map<std::string, HostNics> &nics)
{
    // lldpd also hears CDP, EDP, FDP and SONMP (-c, -e, -f, -s): a Cisco
    // switch sending LLDP and CDPv2 is two entries of one interface, the
    // CDP one with its device ID for chassis ID and no MAU (helper 73:
    // every host undecided, one host's switches split). Where an
    // interface has an LLDP entry, the others are not read; alone, they are.
    std::set<std::pair<std::string, std::string>> by_lldp;  // (system, interface)
    auto lldp = [](const LldpNeighbor &n) { return n.via.empty() || n.via == "LLDP"; };
    for (const auto &n : all)
        if (lldp(n) && !n.chassis.empty())
            by_lldp.insert({n.local, n.iface});
    // An entry of another protocol read alone is known by its name: its ID
    // (CDP's device ID, lldpd's chassis ID for it) is no LLDP chassis ID,
    // and would split a switch some hosts hear by LLDP and others by CDP
    // (helper 75); NX-OS's device ID "leaf1(FDO2231ABCD)" is leaf1.
    std::vector<LldpNeighbor> ns;
    for (const auto &n : all)
        if (!n.chassis.empty() && !n.local.empty() && (lldp(n) || !by_lldp.count({n.local, n.iface}))) {
            ns.push_back(n);
            if (!lldp(n)) {
                LldpNeighbor &c = ns.back();
                c.chassis_id.clear();
                const std::size_t paren = c.chassis.find('(');
                if (paren != std::string::npos && paren > 0 && c.chassis.back() == ')')
                    c.chassis.erase(paren);
            }
        }
    if (ns.empty())
        throw InputError(source + ": found no LLDP neighbour, expected lldpcli show neighbors details output with "
                                  "at least one neighbour");
    std::vector<std::string> f_warnings_early = split_shared_names(ns, source);
    // Who is a switch. Each table is written by its system's root: no one
    // system's word makes another a switch, or a host a switch.
    std::set<std::string> tables, switches;
    std::map<std::string, std::set<std::string>> seen_by, bridge_by;  // neighbour -> systems naming it (as a Bridge)
    std::map<std::string, std::set<std::string>> station_by;          // ... as a Station alone (a host)
    std::set<std::string> self_switch;                                 // tables that say their own system is one
    std::vector<std::string> refused;
    std::set<std::pair<std::string, std::string>> said;  // (table, neighbour): who names whom
    for (const auto &n : ns) {
        said.insert({n.local, n.chassis});
        tables.insert(n.local);
        seen_by[n.chassis].insert(n.local);
        if (n.bridge)
            bridge_by[n.chassis].insert(n.local);
        else if (n.station)
            station_by[n.chassis].insert(n.local);
        if (n.self_bridge)
            self_switch.insert(n.local);
        if (!n.claimed.empty() && n.claimed != n.local)
            refused.push_back(n.local + ": its table names its own system " + shown(n.claimed) +
                              ": taken as " + n.local + "'s (the file name or pdsh prefix is the admin's word)");
    }
    const bool listed_only = !roles.switches.empty();
    // Slurm's node list, given, is the word on who is a host: never a switch
    auto slurm_host = [&](const std::string &name) { return roles.slurm_given && roles.slurm_nodes.count(name) > 0; };
    auto listed = [&](const std::string &name) {
        return listed_only && !slurm_host(name) && hca_selected(roles.switches, name);
    };
    auto others = [&](const std::set<std::string> &who, const std::string &name) {
        std::set<std::string> o;
        for (const auto &w : who)
            if (w != name)
                o.insert(w);
        return o;
    };
    for (const auto &t : tables)  // a switch's own table, as the admin lists it
        if (listed(t))
            switches.insert(t);
    if (!listed_only) {
        // A system with a table of its own is a switch on the word of the
        // systems cabled to it, never on its own: two tables or more that
        // name it as a Bridge or Router neighbour, one of which its own table
        // names back (where one other table is given, that one). Its own
        // table calling it a switch (SONiC's lldp_loc_chassis) is no
        // witness: a host declaring itself a Bridge would join the leaves it
        // names into one fabric, and a leaf naming a host as a Station does
        // not vouch for it either. (One switch's word is not enough: lldpd
        // on a host with a bridge or IP forwarding, as Docker sets up,
        // advertises Bridge and Router, and its leaf reports it so.)
        auto vouched = [&](const std::string &t) {
            std::set<std::string> b = others(bridge_by[t], t);
            std::size_t named_back = 0;
            for (const auto &w : b)
                named_back += said.count({t, w});
            if (tables.size() == 1)
                return self_switch.count(t) > 0;  // a lone switch table: no one else to ask
            if (tables.size() == 2)
                return !b.empty() && (named_back > 0 || self_switch.count(t) > 0);
            return b.size() >= 2 && named_back > 0;
        };
        for (const auto &t : tables)
            if (vouched(t) && !slurm_host(t))
                switches.insert(t);
        for (const auto &t : self_switch)
            if (!switches.count(t))
                refused.push_back(t + ": its own table calls it a switch (Bridge or Router), and the tables of the systems "
                                      "cabled to it do not: not believed (" + t + " stays a host: a switch is one two "
                                      "neighbours name as a Bridge, one of which it names back, or --switches lists it)");
    }
    // With Slurm's node list, a system with a table that is neither a switch
    // nor a node of Slurm's (a login or storage node, a spine with one cable)
    // is no host: its links are left out, and its table vouches for no one
    // (a left-out login node must not make a fake switch the second witness).
    std::set<std::string> not_slurm;
    if (roles.slurm_given)
        for (const auto &t : tables)
            if (!switches.count(t) && !roles.slurm_nodes.count(t))
                not_slurm.insert(t);
    std::size_t host_tables = 0;
    for (const auto &t : tables)
        host_tables += !switches.count(t) && !not_slurm.count(t);
    for (const auto &kv : seen_by) {
        const std::string &c = kv.first;
        if (switches.count(c))
            continue;
        std::set<std::string> by;
        for (const auto &w : others(kv.second, c))
            if (!not_slurm.count(w))
                by.insert(w);
        if (by.empty())
            continue;  // named by left-out tables alone
        // a switch the admin listed vouches for its neighbours; a table that
        // calls its own system a switch is one witness like any other
        bool by_switch = std::any_of(by.begin(), by.end(), [&](const std::string &w) { return listed(w); });
        if (tables.count(c)) {
            // a system with a table of its own: decided above (the tables
            // naming it as a Bridge that it names back, or the admin's list)
            std::set<std::string> b = others(bridge_by[c], c);
            if (!b.empty() && !switches.count(c) && !self_switch.count(c) && !slurm_host(c)) {
                std::string who;
                for (const auto &w : b)
                    who += (who.empty() ? "" : ", ") + w;
                refused.push_back(*b.begin() + ": " + who + " name" + (b.size() > 1 ? "" : "s") + " " + c +
                                  ", a system with a table of its own, as a Bridge neighbour: not believed (" + c +
                                  " stays a host: a switch is one two neighbours name as a Bridge, one of which it names back, or --switches lists it)");
            }
            continue;
        }
        if (slurm_host(c)) {
            // a host Slurm names, without a table of its own: never a switch
        } else if (listed_only) {
            if (listed(c))
                switches.insert(c);
            else
                refused.push_back(*by.begin() + ": names the neighbour " + shown(c) + ", which --switches does not list: "
                                  "not a switch, its links left out");
        } else if (!station_by[c].empty() && station_by[c].size() == seen_by[c].size() && !bridge_by.count(c) &&
                   std::all_of(station_by[c].begin(), station_by[c].end(), [&](const std::string &w) { return switches.count(w) > 0; })) {
            // named by switches' tables alone, each saying it is a Station and
            // none a Bridge: a host without a table of its own, no switch
            // (a collection of switches' tables has no hosts to place)
        } else if (by.size() >= 2 || by_switch || host_tables <= 1) {
            switches.insert(c);
        } else {
            refused.push_back(*by.begin() + ": names the switch " + shown(c) + " alone: not believed (a node's root "
                              "writes its LLDP table; list the switches with --switches), its links left out");
        }
    }
    // Without the admin's word, a system with a table taken for a switch on
    // its neighbours' word may be a host running Docker (lldpd advertises
    // Bridge and Router there, and its leaves report it so): said, naming
    // them, so a lost host is not silent.
    if (!listed_only) {
        std::vector<std::string> on_witness;
        for (const auto &t : tables)
            if (switches.count(t) && !others(bridge_by[t], t).empty())
                on_witness.push_back(t);
        const std::size_t k = on_witness.size();
        if (k > 0)
            f_warnings_early.push_back(
                source + ": " + first_names(on_witness) + ": taken for switch" + (k > 1 ? "es" : "") + " because the tables cabled to " +
                (k > 1 ? "them" : "it") + " name " + (k > 1 ? "them" : "it") + " as a Bridge; a host running Docker "
                "is named so too (its lldpd advertises Bridge and Router): " +
                (roles.slurm_given ? "Slurm does not name " + std::string(k > 1 ? "them" : "it") +
                                         "; a login or storage node on two switches would join them: list the "
                                         "switches (--switches) to be sure"
                                   : "give Slurm's nodes (--slurm-nodes) or the switches (--switches) to be sure"));
    }
    std::size_t in_slurm = 0;
    for (const auto &t : tables)
        in_slurm += roles.slurm_nodes.count(t);
    // Slurm's node names all FQDNs: a table's system (up to its first dot)
    // can never be one, and renaming the tables would not help (helper 54)
    const bool fqdn_names = !roles.slurm_nodes.empty() &&
                            std::all_of(roles.slurm_nodes.begin(), roles.slurm_nodes.end(), [](const std::string &n) {
                                return n.find('.') != std::string::npos &&
                                       n.find_first_not_of("0123456789.") != std::string::npos;
                            });
    if (roles.slurm_given && in_slurm == 0 && !not_slurm.empty())
        throw InputError(source + ": found none of the " + std::to_string(tables.size()) + " systems with tables (" +
                         shown(*not_slurm.begin()) + ", ...) among the " + std::to_string(roles.slurm_nodes.size()) +
                         " nodes of " + (roles.slurm_source.empty() ? "--slurm-nodes" : roles.slurm_source) +
                         (roles.slurm_nodes.empty() ? std::string() : " (" + shown(*roles.slurm_nodes.begin()) + ", ...)") +
                         (fqdn_names ? std::string(": Slurm's node names here are FQDNs, and an LLDP table's system is "
                                                   "the file name or pdsh prefix up to its first '.' (a first label): "
                                                   "LLDP discovery needs short Slurm node names")
                                     : std::string(", expected tables named by Slurm's NodeName (the file name up to its "
                                                   "first '.', or the pdsh prefix), not by NodeHostname")));
    if (!not_slurm.empty())
        f_warnings_early.push_back(source + ": " + first_names({not_slurm.begin(), not_slurm.end()}) +
                                   ": a table of a system Slurm has no node of (--slurm-nodes) and no switch by its "
                                   "neighbours' word: not a host, its links left out");
    if (roles.slurm_given) {  // a Slurm node others' tables name, with no table of its own: not placed
        std::vector<std::string> tableless;
        for (const auto &kv : seen_by)
            if (roles.slurm_nodes.count(kv.first) && !tables.count(kv.first))
                tableless.push_back(kv.first);
        if (!tableless.empty())
            f_warnings_early.push_back(source + ": " + compress_hostlist(tableless) + ": Slurm node" +
                                       (tableless.size() == 1 ? "" : "s") + " that other tables name but with no "
                                       "table of " + (tableless.size() == 1 ? "its" : "their") + " own: not placed "
                                       "(atoll takes a host's NICs from its own lldpcli output)");
    }
    // Front-end NICs out; with them the switches that carry nothing else.
    std::vector<LldpNeighbor> host_links;
    for (const auto &n : ns)
        if (switches.count(n.chassis) && !switches.count(n.local) && !not_slurm.count(n.local))
            host_links.push_back(n);
    if (host_links.empty())  // nothing to place jobs on: never an empty topology.conf
        throw InputError(source + ": found no host's table naming a switch (" + std::to_string(tables.size()) + " table" +
                         (tables.size() == 1 ? "" : "s") + ", " + std::to_string(switches.size()) +
                         " switch" + (switches.size() == 1 ? "" : "es") +
                         "), expected the hosts' own tables (lldpcli on each node): atoll takes hosts and their NICs "
                         "from them; a switch's table adds its cables only");
    // the switches' cables, as believed below (a link one switch's table
    // claims and the other's, given, does not name is none)
    std::vector<std::pair<std::string, std::string>> switch_links;
    for (const auto &n : ns)
        if (switches.count(n.local) && switches.count(n.chassis) && n.local != n.chassis &&
            !(tables.count(n.chassis) && !said.count({n.chassis, n.local})))
            switch_links.push_back({n.local, n.chassis});
    NicSplit split = split_nics(host_links, roles, nics, switch_links);
    std::set<std::pair<std::string, std::string>> front_if;  // (host, interface)
    std::set<std::string> compute_sw, front_sw;
    for (const auto &n : split.compute)
        compute_sw.insert(n.chassis);
    for (const auto &fe : split.frontend) {
        front_if.insert({fe.host, fe.iface});
        if (!compute_sw.count(fe.sw))
            front_sw.insert(fe.sw);
    }
    Fabric f;
    f.source = source;
    f.kind = "roce";
    f.warnings = f_warnings_early;
    f.from_lldp_tables = true;
    f.frontend = split.frontend;
    f.undecided = split.undecided;
    std::map<std::string, std::map<std::string, int>> port_no;  // switch -> port id -> number
    auto sw_port = [&](const std::string &sw, const std::string &port) {
        auto &m = port_no[sw];
        auto it = m.find(port);
        if (it != m.end())
            return it->second;
        int n = static_cast<int>(m.size()) + 1;
        m[port] = n;
        return n;
    };
    std::set<std::uint64_t> have;
    auto add_node = [&](NodeType t, std::uint64_t g, const std::string &desc) {
        if (!have.insert(g).second)
            return;
        Node n;
        n.type = t;
        n.guid = g;
        n.desc = desc;
        f.nodes.push_back(n);
    };
    // a link's speed in lane terms the bandwidth model knows (Ethernet has no IB lanes)
    auto set_speed = [](Link &l, double gbps) {
        static const std::pair<double, std::pair<int, Speed>> table[] = {
            {10, {1, Speed::FDR10}}, {25, {1, Speed::EDR}}, {40, {4, Speed::FDR10}}, {50, {1, Speed::HDR}},
            {100, {4, Speed::EDR}}, {200, {4, Speed::HDR}}, {400, {4, Speed::NDR}}, {800, {4, Speed::XDR}}};
        for (const auto &e : table)
            if (gbps == e.first) {
                l.width = e.second.first;
                l.speed = e.second.second;
            }
    };
    std::vector<LldpNeighbor> sorted;
    for (const auto &n : ns)
        if (!not_slurm.count(n.local))  // no host: its claims contest no one's port either
            sorted.push_back(n);
    std::sort(sorted.begin(), sorted.end(), [](const LldpNeighbor &a, const LldpNeighbor &b) {
        return std::tie(a.local, a.iface, a.chassis, a.port) < std::tie(b.local, b.iface, b.chassis, b.port);
    });
    // A port two peers claim (one table naming another host's switch port):
    // neither claim is believed, rather than the whole input refused
    using End = std::pair<std::string, std::string>;  // (system, port), a host's interface as ("host iface", "1")
    auto ends_of = [&](const LldpNeighbor &n) {
        End near = switches.count(n.local) ? End{n.local, n.iface} : End{n.local + " " + n.iface, "1"};
        return std::make_pair(near, End{n.chassis, n.port});
    };
    // a switch-to-switch link one switch's table claims and the other's,
    // given, does not: not believed (a table that calls its own system a
    // switch must not cable itself between pods)
    auto one_sided = [&](const LldpNeighbor &n) {
        return switches.count(n.local) && switches.count(n.chassis) && tables.count(n.chassis) &&
               !said.count({n.chassis, n.local});
    };
    for (const auto &n : sorted)
        if (n.local != n.chassis && one_sided(n))
            refused.push_back(n.local + ": names a link to " + n.chassis + ", whose own table does not name " + n.local +
                              ": not believed");
    std::map<End, std::set<End>> peers;
    for (const auto &n : sorted)
        if (switches.count(n.chassis) && n.local != n.chassis && !one_sided(n)) {
            auto e = ends_of(n);
            peers[e.first].insert(e.second);
            peers[e.second].insert(e.first);
        }
    // What a switch's own table says is on each of its ports (its word on
    // its own port): the system there, when one
    std::map<End, std::set<std::string>> own_word;
    for (const auto &n : sorted)
        if (switches.count(n.local) && n.local != n.chassis)
            own_word[{n.local, n.iface}].insert(n.chassis);
    auto system_of = [](const End &e) { return e.first.substr(0, e.first.find(' ')); };
    // each host's interfaces with a switch neighbour, and the count most
    // hosts have; each switch's host links
    std::map<std::string, std::set<std::string>> ifaces_of;
    std::map<std::string, std::vector<const LldpNeighbor *>> by_switch_hosts;
    for (const auto &n : sorted)
        if (switches.count(n.chassis) && !switches.count(n.local)) {
            ifaces_of[n.local].insert(n.iface);
            by_switch_hosts[n.chassis].push_back(&n);
        }
    std::map<std::string, std::size_t> links_of;
    std::map<std::size_t, int> hosts_with;
    for (const auto &h : ifaces_of)
        ++hosts_with[links_of[h.first] = h.second.size()];
    std::size_t usual_links = 0;
    for (const auto &c : hosts_with)  // (a tie: the larger count, fewer hosts beyond it)
        if (c.second >= hosts_with[usual_links])
            usual_links = c.first;
    std::set<End> contested;
    std::map<End, std::string> kept_for;  // a contested port its switch's table settles: the system kept
    std::map<End, std::string> contest_of;  // the sentence of each contested port
    for (const auto &kv : peers)
        if (kv.second.size() > 1) {
            contested.insert(kv.first);
            std::string who;
            for (const End &p : kv.second)
                who += (who.empty() ? "" : ", ") + p.first + (p.second == "1" && p.first.find(' ') != std::string::npos ? "" : " " + p.second);
            std::string hosts;  // every claimant, not only the first: one of them caused it
            for (const End &p : kv.second)
                hosts += (hosts.empty() ? "" : ",") + system_of(p);
            const std::string contest = "port " + kv.first.second + " of " + kv.first.first + " is claimed by " +
                                        std::to_string(kv.second.size()) + " peers (" + who + ")";
            // the switch's own table names one system on that port, and one
            // claimant is it: that link stands, the others' claims do not
            auto w = own_word.find(kv.first);
            std::size_t matching = 0;
            if (w != own_word.end() && w->second.size() == 1)
                for (const End &p : kv.second)
                    matching += system_of(p) == *w->second.begin();
            // else the one claimant that looks like the port's own host, where
            // every other looks made up: its interface has a name other hosts
            // on the switch have, its host no more switch links than most
            // hosts, its interface on no other switch; every other claimant's
            // interface a name no other host there has, on a host with more
            // links than most (helper 73: a made-up ens9np0 beside a root's
            // own rails took gpu05's rail for free). Interface names alone let
            // a root outvote a host of another PCI layout, and link counts
            // alone one of a host class with a storage NIC (helpers 76, 77):
            // both must agree, else both claims are refused, as before.
            std::string usual_kept;
            if (matching != 1 && switches.count(kv.first.first)) {
                std::map<std::string, int> names;  // interface -> the switch's other host links by it
                for (const auto &n : by_switch_hosts[kv.first.first])
                    if (n->port != kv.first.second)
                        ++names[n->iface];
                std::vector<const End *> fit;
                std::size_t made_up = 0;
                for (const End &p : kv.second) {
                    std::size_t sp = p.first.find(' ');
                    const std::string iface = sp == std::string::npos ? std::string() : p.first.substr(sp + 1);
                    const std::size_t links = links_of[system_of(p)];
                    if (!names.count(iface) && links > usual_links)
                        ++made_up;
                    else if (names.count(iface) && links <= usual_links && peers[p].size() == 1)
                        fit.push_back(&p);
                }
                if (fit.size() == 1 && made_up + 1 == kv.second.size())
                    usual_kept = system_of(*fit[0]);
                if (!usual_kept.empty()) {
                    kept_for[kv.first] = usual_kept;
                    refused.push_back(hosts + ": " + contest + ": the other claimant" + (kv.second.size() > 2 ? "s have" : " has") +
                                      " an interface no other host on " + kv.first.first + " has and more switch links than the " +
                                      std::to_string(usual_links) + " most hosts have, " + usual_kept +
                                      " neither: its link stands and the other claims are not believed");
                }
            }
            if (matching == 1) {
                kept_for[kv.first] = *w->second.begin();
                refused.push_back(hosts + ": " + contest + ": " + kv.first.first + "'s own table names " + *w->second.begin() +
                                  " there, so that link stands and the other claims are not believed");
            } else if (usual_kept.empty()) {
                refused.push_back(hosts + ": " + contest + ": none of these links is believed");
            }
            contest_of[kv.first] = contest;
        }
    // hosts with a table whose links fell to a contest, and those left a link
    std::map<std::string, std::string> lost_to_contest;
    std::set<std::string> linked;
    // a link with a contested end stands only where that port's switch named its other end
    auto refused_link = [&](const LldpNeighbor &n) {
        auto e = ends_of(n);
        auto out = [&](const End &end, const End &other) {
            if (!contested.count(end))
                return false;
            auto k = kept_for.find(end);
            return k == kept_for.end() || k->second != system_of(other);
        };
        return out(e.first, e.second) || out(e.second, e.first);
    };
    f.refused_claims = refused;
    for (const std::string &r : refused)  // said at discover too, not only by check
        f.warnings.push_back(source + ": identity claim not believed: " + r);
    for (const auto &n : sorted) {
        if (!switches.count(n.chassis))
            continue;  // host to host: not a fabric link
        if (front_sw.count(n.chassis) || front_sw.count(n.local) ||
            (!switches.count(n.local) && front_if.count({n.local, n.iface})))
            continue;  // the front-end network
        if (n.local != n.chassis && !one_sided(n) && refused_link(n) && !switches.count(n.local)) {
            auto e = ends_of(n);
            auto c = contest_of.find(contested.count(e.first) ? e.first : e.second);
            if (c != contest_of.end())
                lost_to_contest.emplace(n.local, c->second);
        }
        if (n.local != n.chassis && (one_sided(n) || refused_link(n)))
            continue;
        if (!switches.count(n.local))
            linked.insert(n.local);
        std::uint64_t sw = name_guid("switch", n.chassis);
        add_node(NodeType::Switch, sw, n.chassis);
        Link l;
        if (switches.count(n.local)) {
            if (n.local == n.chassis)
                continue;
            std::uint64_t me = name_guid("switch", n.local);
            add_node(NodeType::Switch, me, n.local);
            l.a = LinkEnd{me, sw_port(n.local, n.iface), 0, 0};
            l.b = LinkEnd{sw, sw_port(n.chassis, n.port), 0, 0};
        } else {
            std::uint64_t ca = name_guid("host", n.local + " " + n.iface);
            add_node(NodeType::Ca, ca, n.local + " " + n.iface);
            l.a = LinkEnd{ca, 1, ca, 0};
            l.b = LinkEnd{sw, sw_port(n.chassis, n.port), 0, 0};
        }
        set_speed(l, n.gbps);
        f.links.push_back(l);
    }
    // a host whose every link fell to another's claim on its port: the
    // slurm command must not write files without it
    for (const auto &kv : lost_to_contest)
        if (!linked.count(kv.first))
            f.contested.push_back(kv.first + ": " + kv.second);
    for (Node &n : f.nodes)
        n.num_ports = n.type == NodeType::Ca ? 1 : static_cast<int>(port_no[n.desc].size());
    normalise(f);
    return f;
}

HostNics read_node_json(std::istream &in, const std::string &file)
{
    // `atoll-topo node --json` of that host: its NICs' own rates
    json j;
    try {
        in >> j;
    } catch (const json::exception &e) {
        throw InputError(file + ": not valid JSON (" + std::string(e.what()) + "), expected atoll-topo node --json");
    }
    if (!j.is_object() || !j.contains("ports") || !j["ports"].is_array())
        throw InputError(file + ": found no \"ports\" array, expected atoll-topo node --json");
    HostNics hn;
    // the adapters each GPU has to itself under its PCIe switch
    // (every GPU one, PIX or PXB; else nothing is known of them)
    // (each GPU its own adapter, no two GPUs one, and the adapters no GPU
    // has at most half as many: a DGX H100's 8 and 2; not 8 GPUs on 4
    // adapters, nor 4 GPUs with a second adapter each)
    std::set<std::string> own, hcas;
    bool all_own = j.contains("gpus") && j["gpus"].is_array() && !j["gpus"].empty();
    std::size_t gpus = 0;
    for (const auto &g : all_own ? j["gpus"] : json::array()) {
        auto str = [&](const char *k) { return g.is_object() && g.contains(k) && g[k].is_string() ? g[k].get<std::string>() : ""; };
        const bool alone = g.is_object() && g.contains("equally_near") && g["equally_near"] == 1;
        const std::string d = str("distance"), hca = str("nearest_hca");
        all_own = all_own && alone && !hca.empty() && (d == "PIX" || d == "PXB");
        own.insert(hca);
        ++gpus;
    }
    for (const auto &p : j["ports"])
        if (p.is_object() && p.contains("hca") && p["hca"].is_string())
            hcas.insert(p["hca"].get<std::string>());
    all_own = all_own && own.size() == gpus && std::includes(hcas.begin(), hcas.end(), own.begin(), own.end()) &&
              2 * (hcas.size() - own.size()) <= own.size();
    for (const auto &p : j["ports"]) {
        double g = p.contains("rate") && p["rate"].is_string() ? std::atof(p["rate"].get<std::string>().c_str()) : 0;
        bool ethernet = p.contains("link_layer") && p["link_layer"] == "Ethernet";
        const bool gpus_own = all_own && p.contains("hca") && p["hca"].is_string() && own.count(p["hca"].get<std::string>());
        if (p.contains("netdevs") && p["netdevs"].is_array())
            for (const auto &nd : p["netdevs"])
                if (nd.is_string()) {
                    if (g > 0)
                        hn.gbps[nd.get<std::string>()] = g;
                    if (ethernet)
                        hn.roce.insert(nd.get<std::string>());
                    if (all_own)
                        (gpus_own ? hn.gpu_own : hn.no_gpu).insert(nd.get<std::string>());
                }
        // a RoCE LAG's members, which LLDP shows: of the bond's adapter
        if (all_own && p.contains("bond_members") && p["bond_members"].is_array())
            for (const auto &m : p["bond_members"])
                if (m.is_string())
                    (gpus_own ? hn.gpu_own : hn.no_gpu).insert(m.get<std::string>());
    }
    return hn;
}

Fabric load_lldp(const std::string &path, const NicRoles &roles)
{
    struct stat st;
    if (stat(path.c_str(), &st) != 0)
        throw InputError(path + ": cannot open: " + std::strerror(errno));
    std::vector<std::string> files;
    const bool in_dir = S_ISDIR(st.st_mode);
    if (in_dir) {
        DIR *d = opendir(path.c_str());
        if (!d)
            throw InputError(path + ": cannot open: " + std::strerror(errno));
        while (struct dirent *e = readdir(d))
            if (e->d_name[0] != '.')
                files.push_back(path + "/" + e->d_name);
        closedir(d);
        std::sort(files.begin(), files.end());
    } else {
        files.push_back(path);
    }
    std::vector<LldpNeighbor> all;
    std::map<std::string, HostNics> nics;  // host -> what its node.json says
    // the system is the file name up to its first dot: two files of one
    // system (gpu03.txt beside gpu03.zz.txt, which another node may have
    // dropped there) would merge into one table
    std::map<std::string, std::string> file_of;  // (system, kind) -> file
    std::vector<std::string> no_neighbour;         // tables empty or cut short
    std::vector<std::string> unread;               // tables that cannot be read, the errors
    std::size_t read = 0;                           // tables read
    std::vector<std::pair<std::string, std::string>> no_newline;  // keyvalue tables without a final newline: (file, system)
    for (const auto &file : files) {
        const bool node_json = file.size() > 10 && file.compare(file.size() - 10, 10, ".node.json") == 0;
        // a table is a file: a FIFO or a device another root left in the
        // directory (or swapped in after a look) would never end. Opened
        // without blocking, checked, then read through that descriptor.
        // In a directory (where nodes may drop their own tables) a symbolic
        // link is not followed: a node's root could point one at any file
        // the reader may read, and a parse error quotes its first line.
        int fd = ::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | (in_dir ? O_NOFOLLOW : 0));
        if (fd < 0 && in_dir && errno == ELOOP)
            throw InputError(file + ": a symbolic link, not followed in a directory of LLDP tables; expected a file");
        if (fd < 0)
            throw InputError(file + ": cannot open: " + std::strerror(errno));
        struct stat fs {};
        const bool stated = ::fstat(fd, &fs) == 0;
        if (in_dir && stated && S_ISDIR(fs.st_mode)) {  // not read: one level only
            ::close(fd);
            continue;
        }
        if (!stated || !S_ISREG(fs.st_mode)) {
            ::close(fd);
            throw InputError(file + ": not a regular file (" +
                             (S_ISFIFO(fs.st_mode) ? "a pipe or FIFO" : S_ISCHR(fs.st_mode) ? "a character device"
                                                  : "a special file") +
                             "), expected an LLDP table or a .node.json file");
        }
        std::ifstream in("/proc/self/fd/" + std::to_string(fd));
        ::close(fd);
        if (!in)  // no /proc: the file checked above, by name
            in.open(file);
        if (!in)
            throw InputError(file + ": cannot open: " + std::strerror(errno));
        auto [had, fresh] = file_of.emplace(basename_system(file) + (node_json ? " node.json" : ""), file);
        if (!fresh)
            throw InputError(file + ": a second file of system " + shown(basename_system(file)) + " (" + had->second +
                             "), expected one table a system (the system is the file name up to its first dot)");
        if (node_json) {
            nics[basename_system(file)] = read_node_json(in, file);
            continue;
        }
        // a table that cannot be read, among others: warned, its system
        // not placed (helper 73: one cut short, or one root's junk line,
        // stopped every file of the site); alone, the error
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::vector<LldpNeighbor> part;
        try {
            part = parse_lldp_text(text, file, basename_system(file), &unread);
        } catch (const InputError &e) {
            if (!in_dir)
                throw;
            unread.push_back(e.what());
            continue;
        }
        ++read;
        if (std::none_of(part.begin(), part.end(), [](const LldpNeighbor &n) { return !n.chassis.empty(); }))
            no_neighbour.push_back(file);
        // (a keyvalue table whose last line has no newline: cut, unless most
        // are so, a collector's way: printf %s "$(lldpcli ...)", Ansible's stdout)
        const std::size_t first = text.find_first_not_of(" \t\r\n");
        if (first != std::string::npos && text.back() != '\n' && text.compare(first, 5, "lldp.") == 0)
            no_newline.push_back({file, basename_system(file)});
        all.insert(all.end(), part.begin(), part.end());
    }
    // lldpcli ends every line with a newline: where most tables keep it, one
    // without is cut at a line's end ("port.ifname=Ethernet4" of
    // Ethernet48 contested another host's port: helper 75); where most lack
    // it, the collector strips it (helper 76: every table was refused)
    if (!no_newline.empty() && 2 * no_newline.size() < read) {
        for (const auto &nl : no_newline) {
            all.erase(std::remove_if(all.begin(), all.end(), [&](const LldpNeighbor &n) { return n.local == nl.second; }), all.end());
            unread.push_back(nl.first + ": found no newline at the end of its last line, where most tables end with one: the table "
                                        "looks cut short");
            --read;
        }
    }
    check_unread(unread, read, all.empty());
    for (auto &n : all) {  // where LLDP carries no speed, the NIC's own rate
        auto h = nics.find(n.local);
        if (n.gbps > 0 || h == nics.end())
            continue;
        auto it = h->second.gbps.find(n.iface);
        if (it != h->second.gbps.end())
            n.gbps = it->second;
    }
    Fabric f = lldp_fabric(all, path, roles, nics);
    // a node whose table came back empty (lldpd down, the copy cut short)
    // is missing from every file: said, so it is not lost in silence
    if (!no_neighbour.empty())
        f.warnings.push_back(first_names(no_neighbour) + ": " + (no_neighbour.size() == 1 ? "a table" : "tables") +
                             " with no LLDP neighbour (empty, or cut short; is lldpd running there?): " +
                             (no_neighbour.size() == 1 ? "its system is" : "their systems are") + " not placed");
    warn_unread(f, unread);
    return f;
}

void check_unread(const std::vector<std::string> &unread, std::size_t read, bool none)
{
    // (more than half of them unread is no site's fabric: helper 75)
    if (!unread.empty() && (none || unread.size() > read))
        throw InputError(unread.front() + (unread.size() + read < 2 ? std::string()
                                           : " (" + std::to_string(unread.size()) + " of " + std::to_string(unread.size() + read) +
                                                 " tables cannot be read" + (none ? "" : ": more than half, nothing written") + ")"));
}

void warn_unread(Fabric &f, const std::vector<std::string> &unread)
{
    for (const std::string &e : unread)
        f.warnings.push_back(e + ": that table is not read, its system not placed");
}

}  // namespace atl
