#include "topology/json.hpp"

#include <istream>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <vector>

namespace atl {
namespace {

using nlohmann::json;

std::uint64_t guid_at(const json &j, const char *key, const std::string &where)
{
    if (!j.is_object() || !j.contains(key))
        throw InputError(where + ": found no \"" + key + "\", expected a GUID string such as \"0x0002c903000e0b72\"");
    const json &v = j.at(key);
    std::uint64_t g;
    if (!v.is_string() || !parse_guid(v.get<std::string>(), g))
        throw InputError(where + ": \"" + key + "\" is " + json_value_text(v) +
                         ", expected a GUID string such as \"0x0002c903000e0b72\"");
    return g;
}

// An integer member in [lo, hi]; `def` when absent and def is given.
long int_at(const json &j, const char *key, const std::string &where, long lo, long hi, const long *def = nullptr)
{
    if (!j.is_object() || !j.contains(key)) {
        if (def)
            return *def;
        throw InputError(where + ": found no \"" + key + "\", expected a whole number");
    }
    const json &v = j.at(key);
    if (!v.is_number_integer() || (v.is_number_unsigned() ? v.get<std::uint64_t>() > static_cast<std::uint64_t>(hi)
                                                          : v.get<std::int64_t>() < lo || v.get<std::int64_t>() > hi))
        throw InputError(where + ": \"" + key + "\" is " + json_value_text(v) + ", expected a whole number from " +
                         std::to_string(lo) + " to " + std::to_string(hi));
    return static_cast<long>(v.get<std::int64_t>());
}

std::string string_at(const json &j, const char *key, const std::string &where)
{
    if (!j.is_object() || !j.contains(key) || !j.at(key).is_string())
        throw InputError(where + ": \"" + key + "\" is " +
                         (j.is_object() && j.contains(key) ? json_value_text(j.at(key)) : std::string("missing")) +
                         ", expected a string");
    return j.at(key).get<std::string>();
}

json end_json(const LinkEnd &e)
{
    json j = {{"guid", guid_str(e.guid)}, {"port", e.port}};
    if (e.port_guid)
        j["port_guid"] = guid_str(e.port_guid);
    if (e.lid)
        j["lid"] = e.lid;
    return j;
}

LinkEnd end_from(const json &j, const std::string &where)
{
    LinkEnd e;
    e.guid = guid_at(j, "guid", where);
    e.port = static_cast<int>(int_at(j, "port", where, 0, 65535));
    if (j.contains("port_guid"))
        e.port_guid = guid_at(j, "port_guid", where);
    const long zero = 0;
    e.lid = static_cast<int>(int_at(j, "lid", where, 0, 65535, &zero));
    return e;
}

NodeType type_from(const std::string &s, const std::string &where)
{
    for (NodeType t : {NodeType::Switch, NodeType::Ca, NodeType::Router})
        if (s == to_string(t))
            return t;
    throw InputError(where + ": node type \"" + s + "\", expected switch, ca or router");
}

Speed speed_from(const json &j, const char *key, const std::string &where, bool required = false)
{
    if (!j.contains(key)) {
        if (required)  // as "width" is: a link of no stated speed is a file cut or edited by hand
            throw InputError(where + ": found no \"" + key + "\", expected SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR, XDR or unknown");
        return Speed::Unknown;
    }
    std::string s = string_at(j, key, where);
    Speed sp = speed_from_string(s);
    if (sp == Speed::Unknown && s != "unknown")
        throw InputError(where + ": speed \"" + s + "\", expected SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR, XDR or unknown");
    return sp;
}

}  // namespace

json fabric_to_json(const Topology &t)
{
    const Fabric &f = t.fabric;
    json nodes = json::array();
    for (const Node &n : f.nodes) {
        json j = {{"guid", guid_str(n.guid)}, {"type", to_string(n.type)}, {"ports", n.num_ports},
                  {"desc", n.desc}, {"lid", n.lid}};
        if (n.sysimg_guid)
            j["sysimgguid"] = guid_str(n.sysimg_guid);
        if (n.vendor_id)
            j["vendid"] = n.vendor_id;
        if (n.device_id)
            j["devid"] = n.device_id;
        if (n.mapped)
            j["mapped"] = true;
        nodes.push_back(std::move(j));
    }
    json links = json::array();
    for (const Link &l : f.links) {
        json j = {{"a", end_json(l.a)}, {"b", end_json(l.b)}, {"width", l.width},
                  {"speed", to_string(l.speed)}};
        if (l.supported_width)
            j["supported_width"] = l.supported_width;
        if (l.supported_speed != Speed::Unknown)
            j["supported_speed"] = to_string(l.supported_speed);
        links.push_back(std::move(j));
    }
    json sw = json::array();
    for (const Switch &s : t.switches) {
        json j = {{"guid", guid_str(s.guid)}, {"name", s.name}, {"tier", s.tier},
                  {"sharp", s.sharp}, {"uplinks", s.uplinks}, {"host_ports", s.host_ports}};
        if (s.group >= 0)
            j["group"] = s.group;
        if (s.rail >= 0)
            j["rail"] = s.rail;
        sw.push_back(std::move(j));
    }
    json hosts = json::array();
    for (const Host &h : t.hosts) {
        json ports = json::array();
        for (const HostPort &p : h.ports)
            ports.push_back({{"hca", p.hca}, {"guid", guid_str(p.ca_guid)}, {"port", p.port},
                             {"rail", p.rail}, {"switch", t.sw(p.sw).name},
                             {"gbps", f.links[p.link].gbps()}});
        hosts.push_back({{"name", h.name}, {"compute", h.compute}, {"ports", ports},
                         {"leaf", h.leaf_island >= 0 ? t.islands[static_cast<std::size_t>(h.leaf_island)].name : ""},
                         {"group", h.group >= 0 ? t.islands[static_cast<std::size_t>(h.group)].name : ""},
                         {"pod", h.pod >= 0 ? t.islands[static_cast<std::size_t>(h.pod)].name : ""}});
        if (h.domain >= 0)  // only on a fabric with NVLink domains
            hosts.back()["domain"] = t.islands[static_cast<std::size_t>(h.domain)].name;
    }
    json islands = json::array();
    for (const Island &is : t.islands) {
        json hs = json::array(), ls = json::array();
        for (int h : is.hosts)
            hs.push_back(t.hosts[static_cast<std::size_t>(h)].name);
        for (int l : is.leaves)
            ls.push_back(t.sw(l).name);
        islands.push_back({{"level", to_string(is.level)}, {"name", is.name}, {"hosts", hs},
                           {"leaves", ls}, {"parent", is.parent}});
    }
    json out = {{"format", "atoll-fabric"},
                {"version", fabric_json_version},
                {"source", f.source},
                {"kind", f.kind},
                {"nodes", nodes},
                {"links", links}};
    if (!f.frontend.empty()) {
        json fe = json::array();
        for (const FrontEndNic &n : f.frontend)
            fe.push_back({{"host", n.host}, {"iface", n.iface}, {"switch", n.sw}, {"gbps", n.gbps}, {"why", n.why}});
        out["frontend"] = fe;
    }
    if (!f.undecided.empty())
        out["undecided"] = f.undecided;
    if (!f.refused_claims.empty())
        out["refused_claims"] = f.refused_claims;
    if (!f.unhealthy.empty())
        out["unhealthy"] = f.unhealthy;
    if (!f.contested.empty())
        out["contested_hosts"] = f.contested;
    if (!f.domains.empty()) {
        json ds = json::array();
        for (const HostDomain &d : f.domains)
            ds.push_back({{"host", d.host}, {"domain", d.domain}, {"subdomain", d.subdomain}, {"source", d.source}});
        out["domains"] = ds;
    }
    out["analysis"] = {{"rails", t.rails}, {"rail_optimised", t.rail_optimised}, {"max_tier", t.max_tier},
                       {"switches", sw}, {"hosts", hosts}, {"islands", islands}};
    return out;
}

namespace {

Node node_from(const json &n, const std::string &where)
{
    const long zero = 0;
    Node node;
    node.guid = guid_at(n, "guid", where);
    node.type = type_from(string_at(n, "type", where), where);
    node.num_ports = static_cast<int>(int_at(n, "ports", where, 0, 65535));
    node.desc = string_at(n, "desc", where);
    node.lid = static_cast<int>(int_at(n, "lid", where, 0, 65535, &zero));
    if (n.contains("sysimgguid"))
        node.sysimg_guid = guid_at(n, "sysimgguid", where);
    node.vendor_id = static_cast<std::uint32_t>(int_at(n, "vendid", where, 0, 0xffffff, &zero));
    node.device_id = static_cast<std::uint32_t>(int_at(n, "devid", where, 0, 0xffff, &zero));
    if (n.contains("mapped")) {
        if (!n["mapped"].is_boolean())
            throw InputError(where + ": \"mapped\" is " + json_value_text(n["mapped"]) + ", expected true or false");
        node.mapped = n["mapped"].get<bool>();
    }
    return node;
}

Link link_from(const json &l, const std::string &where)
{
    const long zero = 0;
    Link link;
    if (!l.is_object())
        throw InputError(where + " is " + json_value_text(l) + ", expected a link {\"a\": ..., \"b\": ..., ...}");
    for (const char *end : {"a", "b"})
        if (!l.contains(end) || !l.at(end).is_object())
            throw InputError(where + ": \"" + end + "\" is " +
                             (l.contains(end) ? json_value_text(l.at(end)) : std::string("missing")) +
                             ", expected a cable end {\"guid\": ..., \"port\": ...}");
    link.a = end_from(l.at("a"), where);
    link.b = end_from(l.at("b"), where);
    link.width = static_cast<int>(int_at(l, "width", where, 0, 32));
    link.speed = speed_from(l, "speed", where, true);
    link.supported_width = static_cast<int>(int_at(l, "supported_width", where, 0, 32, &zero));
    link.supported_speed = speed_from(l, "supported_speed", where);
    return link;
}

// One of the "nodes" and "links" arrays, its elements already read (by the
// streaming reader), and the first element that was wrong, if one was.
template <class T> struct Read {
    std::vector<T> items;
    std::string error;  // the whole message, source first; empty while every element was right
};

template <class T>
void read_element(Read<T> &r, const json &e, const std::string &source, const char *array, T (*from)(const json &, const std::string &))
{
    if (!r.error.empty())
        return;
    try {
        r.items.push_back(from(e, source + ": " + array + "[" + std::to_string(r.items.size()) + "]"));
    } catch (const InputError &x) {
        r.error = x.what();
    } catch (const json::exception &x) {
        r.error = source + ": " + json_error_text(x);
    }
}

// The checks of an atoll fabric file, in one order whichever reader read it:
// `j` is the file, except that where `nodes` and `links` are given, their
// elements were read as they streamed past and j's arrays are left empty.
Fabric assemble(const json &j, const std::string &source, Read<Node> *nodes, Read<Link> *links)
{
    try {
        if (!j.is_object() || j.value("format", "") != "atoll-fabric")
            throw InputError(source + ": not an atoll fabric file: expected {\"format\": \"atoll-fabric\", ...}");
        int v = static_cast<int>(int_at(j, "version", source, 0, 1000000));
        if (v != fabric_json_version)
            throw InputError(source + ": fabric format version " + std::to_string(v) +
                             ", expected version " + std::to_string(fabric_json_version));
        Fabric f;
        f.source = string_at(j, "source", source);
        if (j.contains("kind") && j["kind"].is_string())
            f.kind = j["kind"].get<std::string>();
        std::size_t i = 0;
        if (!j.contains("nodes") || !j["nodes"].is_array() || !j.contains("links") || !j["links"].is_array())
            throw InputError(source + ": found no \"nodes\" and \"links\" arrays, expected an atoll fabric file");
        if (nodes) {
            if (!nodes->error.empty())
                throw InputError(nodes->error);
            f.nodes = std::move(nodes->items);
        } else {
            for (const json &n : j.at("nodes"))
                f.nodes.push_back(node_from(n, source + ": nodes[" + std::to_string(i++) + "]"));
        }
        if (links) {
            if (!links->error.empty())
                throw InputError(links->error);
            f.links = std::move(links->items);
        } else {
            i = 0;
            for (const json &l : j.at("links"))
                f.links.push_back(link_from(l, source + ": links[" + std::to_string(i++) + "]"));
        }
        // (a reference, never a copy: copying a value is recursive, and its depth is the file's)
        static const json none = json::array();
        for (const char *k : {"frontend", "undecided", "refused_claims", "unhealthy", "contested_hosts", "domains"})
            if (j.contains(k) && !j.at(k).is_array())
                throw InputError(source + ": \"" + k + "\" is " + json_value_text(j.at(k)) + ", expected an array");
        i = 0;
        for (const json &n : j.contains("frontend") ? j.at("frontend") : none) {
            std::string where = source + ": frontend[" + std::to_string(i++) + "]";
            FrontEndNic fe;
            fe.host = string_at(n, "host", where);
            fe.iface = string_at(n, "iface", where);
            fe.sw = string_at(n, "switch", where);
            if (!n.contains("gbps") || !n.at("gbps").is_number() || !(n.at("gbps").get<double>() >= 0))
                throw InputError(where + ": \"gbps\" is " + (n.contains("gbps") ? json_value_text(n.at("gbps")) : std::string("missing")) +
                                 ", expected a rate in Gb/s (0 unknown)");
            fe.gbps = n.at("gbps").get<double>();
            fe.why = string_at(n, "why", where);
            f.frontend.push_back(std::move(fe));
        }
        i = 0;
        for (const json &h : j.contains("undecided") ? j.at("undecided") : none) {
            if (!h.is_string())
                throw InputError(source + ": undecided[" + std::to_string(i) + "] is " + json_value_text(h) + ", expected a host name");
            f.undecided.push_back(h.get<std::string>());
            ++i;
        }
        i = 0;
        for (const json &c : j.contains("refused_claims") ? j.at("refused_claims") : none) {
            if (!c.is_string())
                throw InputError(source + ": refused_claims[" + std::to_string(i) + "] is " + json_value_text(c) +
                                 ", expected a sentence");
            f.refused_claims.push_back(c.get<std::string>());
            ++i;
        }
        // arrays of "HOST: reason"
        for (auto key_into : {std::make_pair("unhealthy", &f.unhealthy), std::make_pair("contested_hosts", &f.contested)}) {
            i = 0;
            for (const json &c : j.contains(key_into.first) ? j.at(key_into.first) : none) {
                if (!c.is_string() || c.get<std::string>().find(": ") == std::string::npos)
                    throw InputError(source + ": " + key_into.first + "[" + std::to_string(i) + "] is " + json_value_text(c) +
                                     ", expected \"HOST: reason\"");
                key_into.second->push_back(c.get<std::string>());
                ++i;
            }
        }
        i = 0;
        for (const json &d : j.contains("domains") ? j.at("domains") : none) {
            std::string where = source + ": domains[" + std::to_string(i++) + "]";
            HostDomain hd;
            hd.host = string_at(d, "host", where);
            hd.domain = string_at(d, "domain", where);
            hd.subdomain = string_at(d, "subdomain", where);
            hd.source = string_at(d, "source", where);
            if (hd.host.empty() || hd.domain.empty())
                throw InputError(where + ": found an empty host or domain, expected both named");
            f.domains.push_back(std::move(hd));
        }
        // its messages name the file read, not the "source" the file claims
        std::string claimed = std::move(f.source);
        f.source = source;
        normalise(f);
        f.source = std::move(claimed);
        return f;
    } catch (const json::exception &e) {
        throw InputError(source + ": " + json_error_text(e));
    }
}

// Values built from SAX events, as nlohmann's own DOM parser builds them
// (a repeated key is refused: key() says so).
class Builder {
public:
    void reset(json *root)
    {
        root_ = root;
        stack_.clear();
        slot_ = nullptr;
    }
    void value(json v) { *place() = std::move(v); }
    void open(json v) { stack_.push_back(place()); *stack_.back() = std::move(v); }
    void close() { stack_.pop_back(); }
    // false when the object has the key already
    bool key(const std::string &k)
    {
        json &top = *stack_.back();
        if (top.is_object() && top.contains(k))
            return false;
        slot_ = &top[k];
        return true;
    }

private:
    json *place()
    {
        if (stack_.empty())
            return root_;
        json &top = *stack_.back();
        if (top.is_array()) {
            top.push_back(nullptr);
            return &top.back();
        }
        return slot_;
    }
    json *root_ = nullptr;
    std::vector<json *> stack_;
    json *slot_ = nullptr;
};

// fabric.json as it streams in: each element of "nodes" and "links" is read
// and dropped as soon as it is complete, and "analysis" (derived, often a
// third of the file) is never built; the rest is kept as a DOM for
// assemble(). At 100,000 hosts that reads in 1.7 s and 134 MiB against the
// whole document's 2.8 s and 830 MiB (docs/benchmarks.md).
class FabricSax : public nlohmann::json_sax<json> {
public:
    explicit FabricSax(const std::string &source) : source_(source) {}

    json top;
    Read<Node> nodes;
    Read<Link> links;
    std::string parse_message;  // a syntax error, when there was one

    bool null() override { return scalar(json(nullptr)); }
    bool boolean(bool v) override { return scalar(json(v)); }
    bool number_integer(number_integer_t v) override { return scalar(json(v)); }
    bool number_unsigned(number_unsigned_t v) override { return scalar(json(v)); }
    bool number_float(number_float_t v, const string_t &) override { return scalar(json(v)); }
    bool string(string_t &v) override { return scalar(json(std::move(v))); }
    bool binary(binary_t &) override { return scalar(json()); }  // never from JSON text
    bool start_object(std::size_t) override { return open(json::object()); }
    bool start_array(std::size_t) override { return open(json::array()); }
    bool end_object() override { return close(); }
    bool end_array() override { return close(); }
    bool key(string_t &k) override
    {
        if (mode_ == Mode::Skip)
            return true;
        // A key given twice in one object: JSON leaves it undefined, and
        // another reader (jq, Python) may take the other value than ours
        // (helper 36: two "speed" members of a link, the last one read)
        if (depth_ == 1 && mode_ == Mode::Top) {
            key_ = k;
            if (!top_seen_.insert(k).second)
                return twice(k, "the top-level object");
            skip_next_ = !one_of(k, top_keys);  // "analysis" among them: derived, never read
        } else if (depth_ == 3 && (mode_ == Mode::Nodes || mode_ == Mode::Links) &&
                   !one_of(k, mode_ == Mode::Nodes ? node_keys : link_keys)) {
            skip_next_ = true;  // a member no reader looks at
        } else if (!b_.key(k)) {
            return twice(k, (mode_ == Mode::Nodes || mode_ == Mode::Links) && depth_ == 3
                                ? key_ + "[" + std::to_string(count_) + "]"
                            : mode_ == Mode::Nodes || mode_ == Mode::Links
                                ? "an object in " + key_ + "[" + std::to_string(count_) + "]"
                                : "an object in \"" + key_ + "\"");
        }
        return true;
    }
    bool parse_error(std::size_t byte, const std::string &, const json::exception &e) override
    {
        parse_message = source_ + ": " + json_error_text(e);
        // a number out of range says neither where nor in what (a syntax
        // error says its line and column)
        if (e.id == 406)
            parse_message += " at byte " + std::to_string(byte) +
                             (depth_ >= 1 && !key_.empty() ? " in the member \"" + key_ + "\"" : std::string()) +
                             ", expected a number a double holds";
        return false;
    }

private:
    enum class Mode { Top, Skip, Build, Nodes, Links };

    bool twice(const std::string &k, const std::string &where)
    {
        parse_message = source_ + ": the key " + shown(k) + " twice in " + where +
                        ", expected each key once in an object";
        return false;
    }

    // the members assemble(), node_from() and link_from() read; the values
    // of any other are never built (a file of one deep or wide one would
    // otherwise cost many times its size)
    static constexpr const char *top_keys[] = {"format", "version", "source", "kind", "nodes", "links", "frontend",
                                               "undecided", "refused_claims", "unhealthy", "contested_hosts", "domains", nullptr};
    static constexpr const char *node_keys[] = {"guid", "type", "ports", "desc", "lid", "sysimgguid", "vendid", "devid", "mapped", nullptr};
    static constexpr const char *link_keys[] = {"a", "b", "width", "speed", "supported_width", "supported_speed", nullptr};
    static bool one_of(const std::string &k, const char *const *keys)
    {
        for (; *keys; ++keys)
            if (k == *keys)
                return true;
        return false;
    }

    // a member of the top object begins (each once: key() refuses a
    // second): its elements are counted from 1
    void restart(const std::string &) { count_ = 0; }
    void element(const json &e)
    {
        ++count_;
        if (mode_ == Mode::Nodes)
            read_element(nodes, e, source_, "nodes", node_from);
        else
            read_element(links, e, source_, "links", link_from);
    }
    bool scalar(json v)
    {
        if (skip_next_) {
            skip_next_ = false;
        } else if (depth_ == 0) {
            top = std::move(v);
        } else if (depth_ == 1 && mode_ == Mode::Top) {  // a member of the top object
            restart(key_);
            top[key_] = std::move(v);
        } else if (mode_ == Mode::Build) {
            b_.value(std::move(v));
        } else if ((mode_ == Mode::Nodes || mode_ == Mode::Links) && depth_ == 2) {
            element(v);
        } else if (mode_ != Mode::Skip) {
            b_.value(std::move(v));
        }
        return true;
    }
    bool open(json v)
    {
        if (skip_next_) {
            skip_next_ = false;
            skip_return_ = mode_;
            skip_base_ = depth_;
            mode_ = Mode::Skip;
        } else if (mode_ == Mode::Skip) {
        } else if (depth_ == 0) {
            if (v.is_object()) {
                top = std::move(v);
                mode_ = Mode::Top;
            } else {  // not an object: kept whole, for assemble() to refuse
                mode_ = Mode::Build;
                b_.reset(&top);
                b_.open(std::move(v));
            }
        } else if (depth_ == 1 && mode_ == Mode::Top) {
            restart(key_);
            if ((key_ == "nodes" || key_ == "links") && v.is_array()) {
                mode_ = key_ == "nodes" ? Mode::Nodes : Mode::Links;
                top[key_] = json::array();
            } else {
                mode_ = Mode::Build;
                b_.reset(&top[key_]);
                b_.open(std::move(v));
            }
        } else if ((mode_ == Mode::Nodes || mode_ == Mode::Links) && depth_ == 2) {
            elem_ = json();
            b_.reset(&elem_);
            b_.open(std::move(v));
        } else {
            b_.open(std::move(v));
        }
        ++depth_;
        return true;
    }
    bool close()
    {
        --depth_;
        if (mode_ == Mode::Skip) {
            if (depth_ == skip_base_)
                mode_ = skip_return_;
        } else if (mode_ == Mode::Nodes || mode_ == Mode::Links) {
            if (depth_ == 1) {
                mode_ = Mode::Top;
            } else {
                b_.close();
                if (depth_ == 2) {
                    element(elem_);
                    elem_ = json();
                }
            }
        } else if (mode_ == Mode::Build) {
            b_.close();
            if (depth_ == 1 && top.is_object())
                mode_ = Mode::Top;
        }
        return true;
    }

    const std::string &source_;
    int depth_ = 0;
    Mode mode_ = Mode::Top;
    std::string key_;
    Builder b_;
    json elem_;
    bool skip_next_ = false;  // the next value is one no reader looks at
    std::set<std::string> top_seen_;  // the top-level keys read so far
    std::size_t count_ = 0;           // elements of "nodes" or "links" read so far
    Mode skip_return_ = Mode::Top;
    int skip_base_ = 0;  // the depth the skipped value opened at
};

}  // namespace

Fabric fabric_from_json(const json &j, const std::string &source) { return assemble(j, source, nullptr, nullptr); }

void save_fabric_json(std::ostream &out, const Topology &t) { out << json_text(fabric_to_json(t), 1) << '\n'; }

Fabric load_fabric_json(std::istream &in, const std::string &source)
{
    FabricSax sax(source);
    try {
        json::sax_parse(in, &sax);
    } catch (const json::exception &e) {
        // parse errors say the line and column; an overlong number is out_of_range
        throw InputError(source + ": " + json_error_text(e));
    }
    if (!sax.parse_message.empty())
        throw InputError(sax.parse_message);
    Fabric f = assemble(sax.top, source, &sax.nodes, &sax.links);
    // nlohmann's lexer takes a NUL byte for the end of the input: bytes
    // after one are not part of the document, not ignored
    if (in.rdbuf() && in.rdbuf()->sgetc() != std::char_traits<char>::eof())
        throw InputError(source + ": " + kBytesAfterNul);
    return f;
}

std::string json_text(const json &j, int indent)
{
    return j.dump(indent, ' ', false, json::error_handler_t::replace);
}

std::string json_value_text(const json &j)
{
    if (j.is_array())
        return j.empty() ? "[]" : "an array of " + std::to_string(j.size());
    if (j.is_object())
        return j.empty() ? "{}" : "an object of " + std::to_string(j.size()) + " members";
    std::string s = j.dump(-1, ' ', false, json::error_handler_t::replace);
    return s.size() > 60 ? s.substr(0, 57) + "..." : s;
}

std::string json_error_text(const std::exception &e)
{
    std::string s = e.what();
    if (s.rfind("[json.exception.", 0) == 0 && s.find("] ") != std::string::npos)
        s = s.substr(s.find("] ") + 2);
    // nlohmann quotes the whole token (a number of a million digits)
    return s.size() > 300 ? s.substr(0, 297) + "..." : s;
}

json summary_json(const Topology &t)
{
    std::size_t hcas = 0, cas = 0;
    for (const Node &n : t.fabric.nodes)
        if (n.type != NodeType::Switch)
            ++cas;
    std::map<std::uint64_t, bool> seen;
    for (const Host &h : t.hosts)
        for (const HostPort &p : h.ports)
            seen[p.ca_guid] = true;
    hcas = seen.size();
    std::size_t compute = 0;
    for (const Host &h : t.hosts)
        compute += h.compute;
    json tiers = json::object();
    std::map<int, int> tier_count;
    for (const Switch &s : t.switches)
        tier_count[s.tier]++;
    auto tier_name = [](int tier) -> std::string {
        switch (tier) {
        case -1: return "unreachable";
        case 0: return "leaf";
        case 1: return "spine";
        case 2: return "core";
        }
        return "tier" + std::to_string(tier);
    };
    for (const auto &kv : tier_count)
        tiers[tier_name(kv.first)] = kv.second;
    json levels = json::object();
    for (Level l : {Level::Domain, Level::Leaf, Level::Group, Level::Pod, Level::Fabric}) {
        auto ids = t.islands_at(l);
        if (l == Level::Domain && ids.empty())
            continue;  // a fabric without NVLink domains
        std::size_t largest = 0;
        for (int i : ids)
            largest = std::max(largest, t.islands[static_cast<std::size_t>(i)].hosts.size());
        levels[to_string(l)] = {{"count", ids.size()}, {"largest", largest}};
    }
    std::map<std::string, int> speeds;
    for (const Link &l : t.fabric.links)
        speeds[rate_name(l.width, l.speed)]++;
    std::size_t sharp = 0;
    for (const Switch &s : t.switches)
        sharp += s.sharp;
    return {{"source", t.fabric.source},
            {"switches", t.switches.size()},
            {"cas", cas},
            {"hosts", t.hosts.size()},
            {"compute_hosts", compute},
            {"hcas", hcas},
            {"links", t.fabric.links.size()},
            {"tiers", tiers},
            {"rails", t.rails.size()},
            {"rail_names", t.rails},
            {"rail_optimised", t.rail_optimised},
            {"sharp_switches", sharp},
            {"unnamed_cas", t.unnamed.size()},
            {"islands", levels},
            {"link_speeds", speeds}};
}

}  // namespace atl
