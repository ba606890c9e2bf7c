#include "topology/fabric.hpp"

#include <algorithm>
#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <map>
#include <tuple>

namespace atl {

const char *to_string(NodeType t)
{
    switch (t) {
    case NodeType::Switch: return "switch";
    case NodeType::Ca: return "ca";
    case NodeType::Router: return "router";
    }
    return "?";
}

namespace {
struct SpeedName {
    Speed speed;
    const char *name;
    double lane_gbps;  // the rate the industry quotes: 4xHDR = 200 Gb/s
};
constexpr SpeedName speed_names[] = {
    {Speed::SDR, "SDR", 2.5},  {Speed::DDR, "DDR", 5},   {Speed::QDR, "QDR", 10},
    {Speed::FDR10, "FDR10", 10}, {Speed::FDR, "FDR", 14}, {Speed::EDR, "EDR", 25},
    {Speed::HDR, "HDR", 50},  {Speed::NDR, "NDR", 100}, {Speed::XDR, "XDR", 200},
};
}  // namespace

const char *to_string(Speed s)
{
    for (const auto &n : speed_names)
        if (n.speed == s)
            return n.name;
    return "unknown";
}

Speed speed_from_string(const std::string &s)
{
    for (const auto &n : speed_names)
        if (s == n.name)
            return n.speed;
    return Speed::Unknown;
}

double lane_gbps(Speed s)
{
    for (const auto &n : speed_names)
        if (n.speed == s)
            return n.lane_gbps;
    return 0;
}

std::string rate_name(int width, Speed s)
{
    return width ? std::to_string(width) + "x" + to_string(s) : "unknown";
}

double link_gbps(int width, Speed s) { return width * lane_gbps(s); }

bool Node::operator==(const Node &o) const
{
    return std::tie(type, guid, sysimg_guid, num_ports, desc, lid, vendor_id, device_id) ==
           std::tie(o.type, o.guid, o.sysimg_guid, o.num_ports, o.desc, o.lid, o.vendor_id,
                    o.device_id);
}

bool LinkEnd::operator==(const LinkEnd &o) const
{
    return std::tie(guid, port, port_guid, lid) == std::tie(o.guid, o.port, o.port_guid, o.lid);
}

bool LinkEnd::operator<(const LinkEnd &o) const
{
    return std::tie(guid, port) < std::tie(o.guid, o.port);
}

bool Link::operator==(const Link &o) const
{
    return std::tie(a, b, width, speed, supported_width, supported_speed) ==
           std::tie(o.a, o.b, o.width, o.speed, o.supported_width, o.supported_speed);
}

std::string gbps_name(double gbps)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g Gb/s", gbps);
    return buf;
}

bool FrontEndNic::operator==(const FrontEndNic &o) const
{
    return std::tie(host, iface, sw, gbps, why) == std::tie(o.host, o.iface, o.sw, o.gbps, o.why);
}

bool HostDomain::operator==(const HostDomain &o) const
{
    return std::tie(host, domain, subdomain, source) == std::tie(o.host, o.domain, o.subdomain, o.source);
}

bool Fabric::operator==(const Fabric &o) const
{
    return source == o.source && nodes == o.nodes && links == o.links && frontend == o.frontend &&
           undecided == o.undecided && refused_claims == o.refused_claims &&
           unhealthy == o.unhealthy && contested == o.contested && domains == o.domains;
}

const Node *Fabric::find(std::uint64_t guid) const
{
    auto it = std::lower_bound(nodes.begin(), nodes.end(), guid,
                               [](const Node &n, std::uint64_t g) { return n.guid < g; });
    return (it != nodes.end() && it->guid == guid) ? &*it : nullptr;
}

void normalise(Fabric &f)
{
    std::sort(f.nodes.begin(), f.nodes.end(),
              [](const Node &x, const Node &y) { return x.guid < y.guid; });
    for (std::size_t i = 1; i < f.nodes.size(); ++i)
        if (f.nodes[i].guid == f.nodes[i - 1].guid)
            throw InputError(f.source + ": node " + guid_str(f.nodes[i].guid) +
                             " appears twice");
    std::sort(f.frontend.begin(), f.frontend.end(), [](const FrontEndNic &x, const FrontEndNic &y) {
        return std::tie(x.host, x.iface, x.sw) < std::tie(y.host, y.iface, y.sw);
    });
    f.frontend.erase(std::unique(f.frontend.begin(), f.frontend.end()), f.frontend.end());
    std::sort(f.undecided.begin(), f.undecided.end());
    f.undecided.erase(std::unique(f.undecided.begin(), f.undecided.end()), f.undecided.end());
    std::sort(f.refused_claims.begin(), f.refused_claims.end());
    f.refused_claims.erase(std::unique(f.refused_claims.begin(), f.refused_claims.end()), f.refused_claims.end());
    std::sort(f.unhealthy.begin(), f.unhealthy.end());
    f.unhealthy.erase(std::unique(f.unhealthy.begin(), f.unhealthy.end()), f.unhealthy.end());
    std::sort(f.contested.begin(), f.contested.end());
    f.contested.erase(std::unique(f.contested.begin(), f.contested.end()), f.contested.end());
    std::sort(f.domains.begin(), f.domains.end(), [](const HostDomain &x, const HostDomain &y) {
        return std::tie(x.host, x.domain, x.subdomain, x.source) < std::tie(y.host, y.domain, y.subdomain, y.source);
    });
    f.domains.erase(std::unique(f.domains.begin(), f.domains.end()), f.domains.end());
    for (std::size_t i = 1; i < f.domains.size(); ++i)
        if (f.domains[i].host == f.domains[i - 1].host)
            throw InputError(f.source + ": host " + shown(f.domains[i].host) + " is in NVLink domain " +
                             shown(f.domains[i - 1].domain) + " (" + f.domains[i - 1].source + ") and " +
                             shown(f.domains[i].domain) + " (" + f.domains[i].source + "), expected one domain per host");
    for (auto &l : f.links) {
        if (l.b < l.a)
            std::swap(l.a, l.b);
    }
    std::sort(f.links.begin(), f.links.end(), [](const Link &x, const Link &y) {
        return std::tie(x.a, x.b) < std::tie(y.a, y.b);
    });
    // Drop the second sighting of each cable, merging what each end knew.
    std::vector<Link> out;
    out.reserve(f.links.size());
    for (auto &l : f.links) {
        if (!out.empty() && !(out.back().a < l.a) && !(l.a < out.back().a) &&
            !(out.back().b < l.b) && !(l.b < out.back().b)) {
            Link &m = out.back();
            if (!m.a.port_guid) m.a.port_guid = l.a.port_guid;
            if (!m.b.port_guid) m.b.port_guid = l.b.port_guid;
            if (!m.a.lid) m.a.lid = l.a.lid;
            if (!m.b.lid) m.b.lid = l.b.lid;
            if (!m.width) m.width = l.width;
            if (m.speed == Speed::Unknown) m.speed = l.speed;
            if (!m.supported_width) m.supported_width = l.supported_width;
            if (m.supported_speed == Speed::Unknown) m.supported_speed = l.supported_speed;
            continue;
        }
        out.push_back(l);
    }
    f.links.swap(out);
    // A port has one cable.
    std::map<std::pair<std::uint64_t, int>, const Link *> seen;
    // a cable end as errors name it, so the cable can be found
    auto named = [&](const LinkEnd &x) {
        const Node *xn = f.find(x.guid);
        return guid_str(x.guid) + "[" + std::to_string(x.port) + "]" +
               (xn && !xn->desc.empty() ? " " + shown(xn->desc) : std::string());
    };
    for (const auto &l : f.links) {
        for (const LinkEnd *e : {&l.a, &l.b}) {
            const Node *n = f.find(e->guid);
            if (!n)
                throw InputError(f.source + ": a link names node " + guid_str(e->guid) +
                                 ", which the input never describes");
            if (e->port < 1 || (n->num_ports && e->port > n->num_ports))
                throw InputError(f.source + ": a link names port " + std::to_string(e->port) + " of node " +
                                 guid_str(e->guid) + (n->desc.empty() ? std::string() : " " + shown(n->desc)) +
                                 ", expected 1.." + std::to_string(n->num_ports ? n->num_ports : 65535) +
                                 " (the node's port count)");
            if (l.a.guid == l.b.guid && l.a.port == l.b.port)
                throw InputError(f.source + ": port " + named(*e) + " is cabled to itself, expected a peer on another port");
            auto r = seen.emplace(std::make_pair(e->guid, e->port), &l);
            if (!r.second) {
                // name the node and both peers
                const Link &o = *r.first->second;
                const LinkEnd &p1 = (o.a.guid == e->guid && o.a.port == e->port) ? o.b : o.a;
                const LinkEnd &p2 = &l.a == e ? l.b : l.a;
                throw InputError(f.source + ": port " + named(*e) + " is cabled to two peers: " + named(p1) + " and " + named(p2));
            }
        }
    }
}

InputError::InputError(const std::string &file, std::size_t line, const std::string &what)
    : std::runtime_error(file + ":" + std::to_string(line) + ": " + what)
{
}

namespace {

// escaped() and one_line(): controls, DEL and non-ASCII as \xNN, at most
// `max` characters, then "..."; `whole` (escaped()) also a backslash as
// \x5c and a newline as \n, one_line() keeps a backslash (a part escaped
// already) and writes a newline as \x0a
std::string escape_bytes(const std::string &s, std::size_t max, bool whole)
{
    static const char hex[] = "0123456789abcdef";
    std::string out;
    for (unsigned char c : s) {
        char piece[5] = {static_cast<char>(c), 0, 0, 0, 0};
        if (whole && c == '\n')
            std::memcpy(piece, "\\n", 3);
        else if (c < 0x20 || c >= 0x7f || (whole && c == '\\'))
            piece[0] = '\\', piece[1] = 'x', piece[2] = hex[c >> 4], piece[3] = hex[c & 15];
        if (out.size() + std::strlen(piece) > max) {
            out += "...";
            break;
        }
        out += piece;
    }
    return out;
}

}  // namespace

std::string escaped(const std::string &s, std::size_t max) { return escape_bytes(s, max, true); }

std::string unpadded_name(const std::string &hca)
{
    std::string k;
    bool leading = true;  // at a number's leading zeros (or before any digit of it)
    for (std::size_t i = 0; i < hca.size(); ++i) {
        const auto c = static_cast<unsigned char>(hca[i]);
        if (!std::isdigit(c))
            leading = true;
        else if (c == '0' && leading && i + 1 < hca.size() && std::isdigit(static_cast<unsigned char>(hca[i + 1])))
            continue;  // a leading zero of a number (not the number 0 itself)
        else
            leading = false;
        k += hca[i];
    }
    return k;
}

std::string adapter_name_key(const std::string &hca)
{
    std::string k = unpadded_name(hca);
    for (char &c : k)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return k;
}

std::string one_line(const std::string &s, std::size_t max) { return escape_bytes(s, max, false); }

std::string shown(const std::string &s, std::size_t max)
{
    return "'" + escaped(s, max) + "'";
}

std::string first_of(const std::vector<std::string> &items, std::size_t n)
{
    std::string out;
    for (std::size_t i = 0; i < items.size() && i < n; ++i)
        out += (i ? ", " : "") + items[i];
    if (items.size() > n)
        out += " and " + std::to_string(items.size() - n) + " more";
    return out;
}

std::string guid_str(std::uint64_t guid)
{
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%016" PRIx64, guid);
    return buf;
}

bool parse_guid(const std::string &s, std::uint64_t &out)
{
    std::size_t i = 0;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        i = 2;
    if (i == s.size() || s.size() - i > 16)
        return false;
    std::uint64_t v = 0;
    for (; i < s.size(); ++i) {
        char c = s[i];
        int d;
        if (c >= '0' && c <= '9') d = c - '0';
        else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
        else return false;
        v = (v << 4) | static_cast<std::uint64_t>(d);
    }
    out = v;
    return true;
}

}  // namespace atl
