#include "topology/cloud.hpp"

#include <algorithm>
#include <cctype>
#include <iomanip>
#include <istream>
#include <map>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <unordered_set>

#include "topology/csv.hpp"
#include "topology/json.hpp"
#include "topology/topology.hpp"

namespace atl {
namespace {

using nlohmann::json;

// One instance as a cloud describes it, before it is named as Slurm names it.
struct CloudHost {
    std::vector<std::string> names;  // its name first, then its other IDs (aliases)
    std::string leaf, pod, core, domain;
    std::string where;               // "FILE: items[3]" or "FILE:LINE"
};

const std::size_t max_name = 255;

// A name or ID from the input: 1..255 printable, non-blank ASCII bytes. They
// become switch and host names, Slurm node names and file contents, so a
// control byte, a blank or a megabyte string is refused here.
std::string checked_name(const json &v, const std::string &where, const std::string &field)
{
    if (!v.is_string())
        throw InputError(where + ": found " + field + " " + json_value_text(v) + ", expected a string");
    const std::string &s = v.get_ref<const std::string &>();
    bool ok = !s.empty() && s.size() <= max_name &&
              std::all_of(s.begin(), s.end(), [](char c) { return c > ' ' && c < 0x7f; });
    if (!ok)
        throw InputError(where + ": found " + field + " " + shown(s) + (s.size() > max_name ? " (" + std::to_string(s.size()) + " bytes)" : "") +
                         ", expected 1 to " + std::to_string(max_name) + " printable characters with no blank");
    return s;
}

// The first of `keys` that `o` has (an API's camelCase, its CLI's kebab-case
// or snake_case), or null.
const json *member(const json &o, std::initializer_list<const char *> keys)
{
    if (!o.is_object())
        return nullptr;
    for (const char *k : keys) {
        auto it = o.find(k);
        if (it != o.end() && !it->is_null())
            return &*it;
    }
    return nullptr;
}

// The array of items of a list answer: a bare array, or under one of `keys`
// (nested objects allowed, e.g. the oci CLI's data.items).
const json *items_of(const json &j, std::initializer_list<const char *> keys)
{
    if (j.is_array())
        return &j;
    const json *at = &j;
    for (int depth = 0; depth < 2 && at->is_object(); ++depth) {
        const json *m = member(*at, keys);
        if (!m)
            return nullptr;
        if (m->is_array())
            return m;
        at = m;
    }
    return nullptr;
}

// A key twice in one object: JSON readers keep one of the two without a
// word ("Instances" twice lost the first array's hosts), so it is refused.
// A second pass over the document's text, SAX, that builds nothing.
struct DuplicateKeys : nlohmann::json_sax<json> {
    std::vector<std::vector<std::string>> open;  // the keys of each open object (few: a linear search)
    std::vector<std::string> path;               // the key each open container was reached by
    std::string last_key, found, under;
    std::map<std::size_t, std::unordered_set<std::string>> big;  // depth -> the keys of an object of many
    bool null() override { return true; }
    bool boolean(bool) override { return true; }
    bool number_integer(number_integer_t) override { return true; }
    bool number_unsigned(number_unsigned_t) override { return true; }
    bool number_float(number_float_t, const string_t &) override { return true; }
    bool string(string_t &) override { return true; }
    bool binary(binary_t &) override { return true; }
    bool start_object(std::size_t) override
    {
        path.push_back(last_key);
        open.emplace_back();
        return true;
    }
    bool end_object() override
    {
        big.erase(open.size());
        open.pop_back();
        path.pop_back();
        return true;
    }
    bool start_array(std::size_t) override
    {
        path.push_back(last_key);
        last_key.clear();
        return true;
    }
    bool end_array() override
    {
        path.pop_back();
        return true;
    }
    bool key(string_t &k) override
    {
        last_key = k;
        std::vector<std::string> &keys = open.back();
        // few keys: a linear search; many (one object of 100,000): a set
        if (keys.size() == 32 && !big.count(open.size()))
            big[open.size()].insert(keys.begin(), keys.end());
        auto set = big.find(open.size());
        const bool again = set != big.end() ? !set->second.insert(k).second
                                            : std::find(keys.begin(), keys.end(), k) != keys.end();
        if (again) {
            found = k;
            for (const std::string &p : path)
                if (!p.empty())
                    under += (under.empty() ? "" : ".") + p;
            return false;  // stop here
        }
        keys.push_back(k);
        return true;
    }
    bool parse_error(std::size_t, const std::string &, const nlohmann::detail::exception &) override { return false; }
};

void refuse_duplicate_keys(const std::string &text, const std::string &source, const std::string &expected)
{
    DuplicateKeys d;
    json::sax_parse(text, &d, nlohmann::detail::input_format_t::json, false);
    if (!d.found.empty())
        throw InputError(source + ": found the key " + shown(d.found) + " twice in one object" +
                         (d.under.empty() ? std::string() : " (under " + shown(d.under) + ")") +
                         ", expected each key once in " + expected + " (a reader would keep one of them)");
}

json read_json(std::istream &in, const std::string &source, const std::string &expected)
{
    json j;
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::istringstream doc(text);
    try {
        doc >> j;
    } catch (const json::exception &e) {
        throw InputError(source + ": not valid JSON (" + json_error_text(e) + "), expected " + expected);
    }
    std::istream &in_rest = doc;
    // one document: a second one (pages concatenated) or trailing bytes would
    // otherwise be dropped without a word
    char c = 0;
    std::size_t at = 0;
    if (in_rest.rdstate() == std::ios::goodbit) {
        std::streampos p = in_rest.tellg();
        at = p < 0 ? 0 : static_cast<std::size_t>(p);
        while (in_rest.get(c) && std::isspace(static_cast<unsigned char>(c)))
            ++at;
        if (in_rest)
            throw InputError(source + ": found " + shown(std::string(1, c)) + " after the JSON document (at byte " +
                             std::to_string(at) + "), expected one " + expected +
                             " (pages printed one after another: let the CLI follow the pages and print one answer)");
    }
    refuse_duplicate_keys(text, source, expected);
    // a page of a longer answer names the next one: the cluster would be cut short
    if (j.is_object())
        for (const char *k : {"NextToken", "nextPageToken", "next_page_token", "opc-next-page"})
            if (j.contains(k) && j[k].is_string() && !j[k].get<std::string>().empty())
                throw InputError(source + ": found \"" + k + "\": one page of a longer answer, expected the whole " + expected +
                                 " (let the CLI follow the pages: no --max-results or --no-paginate)");
    // kubectl's list: metadata.continue (and remainingItemCount) on a chunk (--chunk-size, --limit)
    if (j.is_object() && j.contains("metadata") && j["metadata"].is_object()) {
        const json &md = j["metadata"];
        if ((md.contains("continue") && md["continue"].is_string() && !md["continue"].get<std::string>().empty()) ||
            (md.contains("remainingItemCount") && md["remainingItemCount"].is_number() && md["remainingItemCount"].get<double>() > 0))
            throw InputError(source + ": found a non-empty \"metadata.continue\" or \"remainingItemCount\": one chunk of a longer list, expected the whole " +
                             expected + " (kubectl get nodes -o json without --chunk-size or --limit)");
    }
    return j;
}

// The fabric of a cloud's hosts, each named by the map where it names one of
// the host's names, else by its own first name. Refuses two hosts of one
// name and a leaf that hangs under two pods (or a pod under two cores).
Fabric cloud_fabric(const std::vector<CloudHost> &hosts, const std::string &source, const std::string &kind,
                    const std::string &domain_field, const HostMap *map, std::vector<std::string> warnings,
                    const std::string &above_cores = "", bool one_namespace = false)
{
    if (hosts.empty())
        throw InputError(source + ": found no instance with a topology, expected at least one");
    std::vector<HostPlacement> rows;
    std::map<std::string, std::string> named;  // host name -> where
    std::map<std::string, std::pair<std::string, std::string>> up;  // "leaf:X" -> (parent, where)
    std::map<std::string, std::pair<std::string, std::string>> tier_of;  // network node -> (its tier, where)
    std::vector<HostDomain> domains;
    std::size_t unmapped = 0;
    std::string first_unmapped;
    bool have_core = !hosts.front().core.empty();
    std::map<std::string, std::string> by_line;  // Slurm name -> the map line that gave it
    for (const CloudHost &h : hosts) {
        std::string name = h.names.front();
        std::string line;       // the map line naming this host
        std::string mapped_by;  // the host's name (an ID) that line maps
        if (map) {
            // every map line that names the host by one of its names (an
            // instance ID, a hostname) must give the same Slurm name
            for (const std::string &n : h.names) {
                auto it = map->names.find(n);
                if (it == map->names.end())
                    continue;
                const std::string &w = map->where.at(n);
                if (line.empty()) {
                    name = it->second;
                    line = w;
                    mapped_by = n;
                } else if (it->second != name) {
                    throw InputError(w + ": maps " + shown(n) + " onto " + shown(it->second) + ", but " + line +
                                     " maps the same host (" + h.where + ") onto " + shown(name) +
                                     ", expected one Slurm name per host");
                }
            }
            if (line.empty() && unmapped++ == 0)
                first_unmapped = name;
        }
        auto seen = named.emplace(name, h.where);
        if (!seen.second) {
            auto first = by_line.find(name);
            if (!line.empty() && first != by_line.end() && first->second == line)  // two hosts under the ID one line maps
                throw InputError(h.where + ": has the ID " + shown(mapped_by) + " that " + seen.first->second +
                                 " has too, which " + line + " maps onto " + shown(name) +
                                 ": two instances under one ID (the cloud's answer, written on each node, or a VM "
                                 "beside another on one host), expected one instance per mapped ID");
            if (!line.empty() && first != by_line.end())  // two hosts onto one name by two map lines
                throw InputError(line + ": found " + shown(name) + " again (first at " + first->second +
                                 "), expected one cloud ID per Slurm node");
            throw InputError(h.where + ": found host " + shown(name) + " again (first at " + seen.first->second +
                             "), expected each host once");
        }
        if (!line.empty())
            by_line.emplace(name, line);
        if (have_core != !h.core.empty())
            throw InputError(h.where + ": found " + (h.core.empty() ? "no top tier" : "a top tier") +
                             ", expected every instance to have one as the first has" + (have_core ? "" : " not"));
        auto parent = [&](const std::string &level, const std::string &child, const std::string &p) {
            auto e = up.emplace(level + ":" + child, std::make_pair(p, h.where));
            if (e.second || e.first->second.first == p)
                return;
            throw InputError(h.where + ": found " + level + " " + shown(child) + " under " + shown(p) + " and under " +
                             shown(e.first->second.first) + " (" + e.first->second.second +
                             "), expected each network node under one parent");
        };
        // one network node at one tier, where the tiers' names are one
        // namespace (EC2's network nodes): a leaf that is another host's
        // spine (or its own parent) is no tree (it was split in two). GCP
        // scopes a sub-block's ID to its block, a block's to its cluster:
        // one ID at two levels is two nodes there.
        auto tier = [&](const std::string &node, const std::string &what) {
            if (!one_namespace)
                return;
            auto e = tier_of.emplace(node, std::make_pair(what, h.where));
            if (!e.second && e.first->second.first != what)
                throw InputError(h.where + ": found network node " + shown(node) + " as a " + what + ", and as a " +
                                 e.first->second.first + " at " + e.first->second.second +
                                 ", expected each network node at one tier");
        };
        tier(h.leaf, "leaf");
        tier(h.pod, "spine (pod)");
        if (have_core)
            tier(h.core, "core");
        parent("leaf", h.leaf, h.pod);
        if (have_core)
            parent("pod", h.pod, h.core);
        HostPlacement r;
        r.host = name;
        r.id = h.names.front();
        r.leaf = h.leaf;
        r.pod = h.pod;
        r.core = h.core;
        rows.push_back(r);
        if (!h.domain.empty())
            domains.push_back({name, h.domain, "", h.where + " " + domain_field});
    }
    if (unmapped)
        warnings.push_back(source + ": " + std::to_string(unmapped) + " of " + std::to_string(hosts.size()) +
                           " instances the host map does not name (first " + shown(first_unmapped) +
                           "): kept as the cloud names them");
    Fabric f = fabric_from_placements(rows, source, true, have_core, above_cores);
    f.kind = kind;
    f.domains = std::move(domains);
    f.warnings.insert(f.warnings.end(), warnings.begin(), warnings.end());
    normalise(f);
    return f;
}

std::string item_where(const std::string &source, const std::string &list, std::size_t k)
{
    return source + ": " + list + "[" + std::to_string(k) + "]";
}

// Instances the answer lists in another state than running (a stopped VM, a
// host in repair): kept where the answer places them, as Slurm keeps the
// node (DOWN), but said once: a VM that starts again may land on another
// host, and the topology is then stale until discovered again.
struct NotRunning {
    std::size_t n = 0;
    std::string first;
    void note(const json *state, const std::string &where, std::initializer_list<const char *> running)
    {
        if (!state || !state->is_string())
            return;
        const std::string &v = state->get_ref<const std::string &>();
        for (const char *r : running)
            if (v == r)
                return;
        if (n++ == 0)
            first = where + ": " + shown(v, 40);
    }
    void warn(std::vector<std::string> &w, const std::string &source, const std::string &field) const
    {
        if (n)
            w.push_back(source + ": " + std::to_string(n) + " instance" + (n == 1 ? "" : "s") + " not running by " + field +
                        " (first " + first + "): kept where the answer places them; one that starts again may land "
                        "on another host: discover again after it does");
    }
};

}  // namespace

HostMap parse_host_map(std::istream &in, const std::string &source)
{
    HostMap m;
    std::string line;
    for (std::size_t n = 1; std::getline(in, line); ++n) {
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        std::string body = line.substr(0, line.find('#'));
        std::istringstream words(body);
        std::string id, name, extra;
        if (!(words >> id))
            continue;
        std::string where = source + ":" + std::to_string(n);
        if (!(words >> name) || (words >> extra))
            throw InputError(source, n, "found " + shown(line) + ", expected CLOUD-ID SLURM-NAME (two names)");
        for (const std::string *w : {&id, &name})
            if (w->size() > max_name ||
                !std::all_of(w->begin(), w->end(), [](char c) { return c > ' ' && c < 0x7f; }))
                throw InputError(source, n, "found " + shown(*w) + ", expected a name of 1 to " + std::to_string(max_name) +
                                                " printable characters");
        std::string why = host_name_problem(name);
        if (!why.empty())
            throw InputError(source, n, "found Slurm name " + shown(name) + ": " + why);
        auto a = m.where.emplace(id, where);
        if (!a.second)
            throw InputError(source, n, "found " + shown(id) + " again (first at " + a.first->second +
                                            "), expected each cloud ID once");
        // two IDs onto one Slurm name may be one host's two names (its
        // instance ID and its hostname): the readers, which know the
        // host's names, refuse two hosts onto one name
        m.names[id] = name;
    }
    return m;
}

std::set<std::string> host_names(const Fabric &f)
{
    std::set<std::string> names;
    for (const Node &n : f.nodes)
        if (n.type == NodeType::Ca)
            names.insert(n.desc.substr(0, n.desc.find(' ')));
    return names;
}

std::size_t apply_host_map(Fabric &f, const HostMap &map)
{
    const std::set<std::string> names = host_names(f);
    std::size_t done = 0;
    std::map<std::string, std::string> renamed;
    std::map<std::string, std::string> onto;  // Slurm name -> the host renamed onto it
    for (Node &n : f.nodes) {
        if (n.type != NodeType::Ca)
            continue;
        std::string host = n.desc.substr(0, n.desc.find(' '));
        auto it = map.names.find(host);
        if (it == map.names.end() || it->second == host)
            continue;
        if (names.count(it->second) && !map.names.count(it->second))
            throw InputError(map.where.at(host) + ": maps " + shown(host) + " onto " + shown(it->second) +
                             ", a host the input already has; expected a name no other host has");
        auto e = onto.emplace(it->second, host);
        if (!e.second && e.first->second != host)
            throw InputError(map.where.at(host) + ": found " + shown(it->second) + " again (first at " +
                             map.where.at(e.first->second) + "), expected one cloud ID per Slurm node");
        n.desc = it->second + n.desc.substr(host.size());
        renamed[host] = it->second;
        ++done;
    }
    for (HostDomain &d : f.domains)
        if (renamed.count(d.host))
            d.host = renamed[d.host];
    normalise(f);
    return done;
}

std::string cloud_format(const std::string &head)
{
    if (head.find("atoll-fabric") != std::string::npos)
        return "";
    std::string packed;  // without blanks, so "kind" : "Node" is found however printed
    for (char c : head)
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            packed += c;
    auto has = [&](std::initializer_list<const char *> words) {
        return std::any_of(words.begin(), words.end(), [&](const char *w) { return packed.find(w) != std::string::npos; });
    };
    if (has({"\"Instances\""}))
        return "aws";
    if (has({"physicalHostTopology", "compute#instance", "gce-topology", "\"kind\":\"Node\"", "\"kind\":\"NodeList\""}))
        return "gcp";
    if (has({"customerHPCIslandId", "customerLocalBlock", "customerNetworkBlock", "hpcIslandId", "hpc-island-id",
             "localBlockId", "local-block-id", "ocid1.computehost"}))
        return "oci";
    if (has({"infiniband_topology_path", "infinibandTopologyPath", "nvl_instance_group_id", "\"computeinstance-"}))
        return "nebius";
    return "";
}

bool looks_like_aws_topology(const std::string &head) { return cloud_format(head) == "aws"; }

Fabric parse_aws_topology(std::istream &in, const std::string &source, const HostMap *map)
{
    json j = read_json(in, source, "aws ec2 describe-instance-topology output");
    if (!j.is_object() || !j.contains("Instances") || !j["Instances"].is_array())
        throw InputError(source + ": found no \"Instances\" array, expected aws ec2 describe-instance-topology output");
    std::vector<CloudHost> hosts;
    std::vector<std::string> warnings;
    std::size_t k = 0;
    for (const auto &inst : j["Instances"]) {
        std::string where = item_where(source, "Instances", k++);
        if (!inst.is_object() || !inst.contains("InstanceId"))
            throw InputError(where + ": found no InstanceId, expected a string such as i-0123456789abcdef0");
        std::string id = checked_name(inst["InstanceId"], where, "InstanceId");
        where += " (" + id + ")";
        if (!inst.contains("NetworkNodes") || (inst["NetworkNodes"].is_array() && inst["NetworkNodes"].empty())) {
            // a login or CPU instance: describe-instance-topology lists it with no network nodes
            warnings.push_back(where + ": no NetworkNodes (an instance type that reports no topology), left out");
            continue;
        }
        if (!inst["NetworkNodes"].is_array() || inst["NetworkNodes"].size() < 3)
            throw InputError(where + ": found " + json_value_text(inst["NetworkNodes"]) +
                             ", expected three or more network nodes (the instance type may not report its topology)");
        std::vector<std::string> nn;
        for (const auto &n : inst["NetworkNodes"])
            nn.push_back(checked_name(n, where, "network node"));
        CloudHost h;
        h.names = {id};
        h.leaf = nn.back();
        h.pod = nn[nn.size() - 2];
        h.core = nn.front();
        if (const json *cb = member(inst, {"CapacityBlockId"}))
            h.domain = checked_name(*cb, where, "CapacityBlockId");
        h.where = where;
        hosts.push_back(h);
    }
    // layer 1 is only the highest layer EC2 shows: instances under two of
    // its nodes still reach each other above them (one AZ, one placement
    // group), so one switch joins them, or Slurm would run no job across
    return cloud_fabric(hosts, source, "aws", "CapacityBlockId", map, warnings, "aws-above-layer1", true);
}

Fabric parse_gcp_topology(std::istream &in, const std::string &source, const HostMap *map)
{
    json j = read_json(in, source, "gcloud compute instances list or kubectl get nodes JSON");
    const json *items = items_of(j, {"items"});
    if (!items)
        throw InputError(source + ": found no \"items\" array, expected gcloud compute instances list --format=json, "
                                  "the instances.list API answer, or kubectl get nodes -o json");
    std::vector<CloudHost> hosts;
    std::vector<std::string> warnings;
    NotRunning stopped;
    std::size_t k = 0;
    std::vector<bool> nvlink_subblock;  // per host kept: its machine type is A4X
    for (const auto &it : *items) {
        std::string where = item_where(source, "items", k++);
        if (!it.is_object())
            throw InputError(where + ": found " + json_value_text(it) + ", expected an instance or node object");
        CloudHost h;
        std::string machine;
        const json *meta = member(it, {"metadata"});
        if (meta && meta->is_object() && member(*meta, {"labels"})) {
            // a Kubernetes node of GKE
            const json *name = member(*meta, {"name"});
            if (!name)
                throw InputError(where + ": found no metadata.name, expected the node's name");
            h.names = {checked_name(*name, where, "metadata.name")};
            where += " (" + h.names[0] + ")";
            const json &labels = *member(*meta, {"labels"});
            if (!labels.is_object())
                throw InputError(where + ": found labels " + json_value_text(labels) + ", expected an object");
            const json *block = member(labels, {"cloud.google.com/gce-topology-block"});
            const json *sub = member(labels, {"cloud.google.com/gce-topology-subblock"});
            if (!block || !sub) {
                warnings.push_back(where + ": no cloud.google.com/gce-topology-block and -subblock labels, left out");
                continue;
            }
            h.pod = checked_name(*block, where, "gce-topology-block");
            h.leaf = checked_name(*sub, where, "gce-topology-subblock");
            for (const char *key : {"node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type"})
                if (const json *mt = member(labels, {key}))
                    if (mt->is_string() && machine.empty())
                        machine = mt->get<std::string>();
        } else {
            const json *name = member(it, {"name"});
            if (!name)
                throw InputError(where + ": found no name, expected a Compute Engine instance");
            h.names = {checked_name(*name, where, "name")};
            if (const json *id = member(it, {"id"})) {
                if (id->is_number_unsigned())
                    h.names.push_back(std::to_string(id->get<std::uint64_t>()));
                else
                    h.names.push_back(checked_name(*id, where, "id"));
            }
            where += " (" + h.names[0] + ")";
            stopped.note(member(it, {"status"}), where, {"RUNNING"});
            const json *rs = member(it, {"resourceStatus"});
            const json *pht = rs ? member(*rs, {"physicalHostTopology"}) : nullptr;
            if (!pht) {
                warnings.push_back(where + ": no resourceStatus.physicalHostTopology (not a placed A3/A4 VM?), left out");
                continue;
            }
            if (!pht->is_object())
                throw InputError(where + ": found physicalHostTopology " + json_value_text(*pht) + ", expected an object");
            const json *cl = member(*pht, {"cluster"}), *bl = member(*pht, {"block"}), *sb = member(*pht, {"subblock"});
            if (!cl || !bl || !sb) {
                std::string missing;
                for (const auto &km : {std::make_pair("cluster", cl), std::make_pair("block", bl), std::make_pair("subblock", sb)})
                    if (!km.second)
                        missing += std::string(missing.empty() ? "" : ", ") + km.first;
                warnings.push_back(where + ": physicalHostTopology without " + missing +
                                   " (a placed VM's has cluster, block and subblock), left out");
                continue;
            }
            h.core = checked_name(*cl, where, "cluster");
            h.pod = checked_name(*bl, where, "block");
            h.leaf = checked_name(*sb, where, "subblock");
            if (const json *mt = member(it, {"machineType"}))
                if (mt->is_string())
                    machine = mt->get<std::string>().substr(mt->get<std::string>().rfind('/') + 1);
        }
        h.where = where;
        // a sub-block is one NVLink domain on A4X (GB200: 18 hosts of 4
        // GPUs) alone; A3 and A4 are 8-GPU machines whose NVLink ends at
        // the host, and a machine type not given is not known to be A4X
        nvlink_subblock.push_back(machine.rfind("a4x-", 0) == 0);
        hosts.push_back(h);
    }
    // Compute Engine's IDs are scoped (HostPhysicalTopology: "the unique
    // identifier of the capacity sub-block within the capacity block", of the
    // block "within the cluster"): an ID found under two parents is two
    // islands, named PARENT-ID.
    std::map<std::string, std::set<std::string>> block_in, sub_in;  // ID -> the parents' full paths
    for (const CloudHost &h : hosts) {
        block_in[h.pod].insert(h.core);
        sub_in[h.leaf].insert(h.core + "/" + h.pod);
    }
    // (each host's block and sub-block by their full paths, "/" joining
    // the IDs: what tells two islands apart)
    std::vector<std::string> pod_path, leaf_path;
    for (const CloudHost &h : hosts) {
        pod_path.push_back(h.core + "/" + h.pod);
        leaf_path.push_back(h.core + "/" + h.pod + "/" + h.leaf);
    }
    for (CloudHost &h : hosts) {
        std::string pod = block_in[h.pod].size() > 1 ? h.core + "-" + h.pod : h.pod;
        if (sub_in[h.leaf].size() > 1)
            h.leaf = pod + "-" + h.leaf;
        h.pod = pod;
    }
    // a name so made may spell another's ID (block "b1" of cluster "c1",
    // named c1-b1, and a block "c1-b1"; helper 38): two islands would be
    // one. Each name of more than one path gets its path's hash; true when
    // one did.
    auto unique = [&](const std::vector<std::string> &path, std::string CloudHost::*name) {
        std::map<std::string, std::set<std::string>> paths;  // name -> the full paths named so
        for (std::size_t i = 0; i < hosts.size(); ++i)
            paths[hosts[i].*name].insert(path[i]);
        bool hashed = false;
        for (std::size_t i = 0; i < hosts.size(); ++i)
            if (paths[hosts[i].*name].size() > 1) {
                std::ostringstream x;
                x << std::hex << std::setw(8) << std::setfill('0') << (name_guid("gcp", path[i]) & 0xffffffffu);
                hosts[i].*name += "-" + x.str();
                hashed = true;
            }
        return hashed;
    };
    // (a hashed name may spell yet another ID: again, until every name is
    // one path's; helper 45)
    for (int round = 0;; ++round) {
        bool leaves = unique(leaf_path, &CloudHost::leaf);
        if (!unique(pod_path, &CloudHost::pod) && !leaves)
            break;
        if (round == 4)
            throw InputError(source + ": block and sub-block names still meet after 4 rounds of hashing their paths");
    }
    for (std::size_t i = 0; i < hosts.size(); ++i)
        if (nvlink_subblock[i])
            hosts[i].domain = hosts[i].leaf;
    stopped.warn(warnings, source, "status");
    return cloud_fabric(hosts, source, "gcp", "sub-block", map, warnings);
}

Fabric parse_oci_topology(std::istream &in, const std::string &source, const HostMap *map)
{
    std::ostringstream all;
    all << in.rdbuf();
    std::string text = all.str();
    std::size_t i = text.find_first_not_of(" \t\r\n");
    std::vector<CloudHost> hosts;
    std::vector<std::string> warnings;
    NotRunning stopped;
    if (i != std::string::npos && (text[i] == '{' || text[i] == '[')) {
        std::istringstream js(text);
        json j = read_json(js, source, "the OCI ListComputeHosts answer (oci compute compute-host list)");
        const json *items = items_of(j, {"items", "data"});
        if (!items)
            throw InputError(source + ": found no \"items\" array, expected the ListComputeHosts answer");
        std::size_t k = 0;
        for (const auto &it : *items) {
            std::string where = item_where(source, "items", k++);
            if (!it.is_object())
                throw InputError(where + ": found " + json_value_text(it) + ", expected a compute host object");
            CloudHost h;
            const json *inst = member(it, {"instanceId", "instance-id"});
            if (!inst) {
                warnings.push_back(where + ": a compute host running no instance, left out");
                continue;
            }
            h.names = {checked_name(*inst, where, "instanceId")};
            if (const json *id = member(it, {"id"}))
                h.names.push_back(checked_name(*id, where, "id"));
            where += " (" + h.names[0] + ")";
            stopped.note(member(it, {"lifecycleState", "lifecycle-state"}), where, {"ACTIVE", "AVAILABLE"});
            const json *lb = member(it, {"localBlockId", "local-block-id"});
            const json *nb = member(it, {"networkBlockId", "network-block-id"});
            const json *hi = member(it, {"hpcIslandId", "hpc-island-id"});
            if (!lb || !nb || !hi)
                throw InputError(where + ": found no " + std::string(!lb ? "localBlockId" : !nb ? "networkBlockId" : "hpcIslandId") +
                                 ", expected localBlockId, networkBlockId and hpcIslandId");
            h.leaf = checked_name(*lb, where, "localBlockId");
            h.pod = checked_name(*nb, where, "networkBlockId");
            h.core = checked_name(*hi, where, "hpcIslandId");
            if (const json *g = member(it, {"gpuMemoryFabricId", "gpu-memory-fabric-id"}))
                h.domain = checked_name(*g, where, "gpuMemoryFabricId");
            h.where = where;
            hosts.push_back(h);
        }
        stopped.warn(warnings, source, "lifecycleState");
        return cloud_fabric(hosts, source, "oci", "gpuMemoryFabricId", map, warnings);
    }
    // pdsh output of curl .../opc/v2/host/rdmaTopologyData: "HOST: TEXT"
    // lines. IMDS v2 answers indented JSON over many lines, which pdsh
    // prefixes line by line, the hosts' lines interleaved but each host's in
    // order: a host's lines are joined and parsed as one answer, named by
    // the line of its first.
    struct Answer {
        std::size_t line = 0;
        std::string host, text;
    };
    std::vector<Answer> answers;
    std::map<std::string, std::size_t> answer_of;  // host -> index in answers
    std::istringstream lines(text);
    std::string line;
    for (std::size_t n = 1; std::getline(lines, line); ++n) {
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        if (line.find_first_not_of(" \t") == std::string::npos)
            continue;
        if (line.compare(0, 5, "pdsh@") == 0) {  // pdsh's own report ("pdsh@head: gpu-6: ssh exited ...")
            warnings.push_back(source + ":" + std::to_string(n) + ": pdsh says " + shown(line) +
                               ": that host gave no rdmaTopologyData, left out");
            continue;
        }
        std::size_t colon = line.find(": ");
        if (colon == std::string::npos || colon == 0)
            throw InputError(source, n, "found " + shown(line) + ", expected HOST: {rdmaTopologyData JSON} (pdsh output)");
        std::string where = source + ":" + std::to_string(n);
        std::string host = checked_name(json(line.substr(0, colon)), where, "host");
        auto e = answer_of.emplace(host, answers.size());
        if (e.second)
            answers.push_back({n, host, ""});
        Answer &a = answers[e.first->second];
        a.text += (a.text.empty() ? "" : "\n") + line.substr(colon + 2);
    }
    for (const Answer &a : answers) {
        std::string where = source + ":" + std::to_string(a.line) + " (" + a.host + ")";
        CloudHost h;
        h.names = {a.host};
        std::size_t first = a.text.find_first_not_of(" \t\n");
        if (first == std::string::npos || a.text[first] != '{') {  // curl's error, not an answer
            std::string shown_line = a.text.substr(0, a.text.find('\n'));
            warnings.push_back(where + ": found " + shown(shown_line) + ", not rdmaTopologyData: left out");
            continue;
        }
        json d;
        try {
            d = json::parse(a.text);
        } catch (const json::exception &e) {
            throw InputError(where + ": not valid JSON (" + json_error_text(e) + "), expected rdmaTopologyData");
        }
        if (!d.is_object())
            throw InputError(where + ": found " + json_value_text(d) + ", expected the rdmaTopologyData object");
        const json *lb = member(d, {"customerLocalBlock"});
        const json *nb = member(d, {"customerNetworkBlock"});
        const json *hi = member(d, {"customerHPCIslandId"});
        const json *code = member(d, {"code"});
        if (!lb && !nb && !hi && code) {  // the metadata service's error object
            warnings.push_back(where + ": the instance metadata service answered error " +
                               (code->is_string() ? shown(code->get<std::string>()) : json_value_text(*code)) +
                               ", not rdmaTopologyData: left out");
            continue;
        }
        if (!lb || !nb || !hi)
            throw InputError(where + ": found no " +
                             std::string(!lb ? "customerLocalBlock" : !nb ? "customerNetworkBlock" : "customerHPCIslandId") +
                             ", expected customerLocalBlock, customerNetworkBlock and customerHPCIslandId");
        h.leaf = checked_name(*lb, where, "customerLocalBlock");
        h.pod = checked_name(*nb, where, "customerNetworkBlock");
        h.core = checked_name(*hi, where, "customerHPCIslandId");
        if (const json *hid = member(d, {"customerHostId"}))
            h.names.push_back(checked_name(*hid, where, "customerHostId"));
        if (const json *g = member(d, {"customerGpuMemoryFabric"}))
            h.domain = checked_name(*g, where, "customerGpuMemoryFabric");
        h.where = where;
        hosts.push_back(h);
    }
    return cloud_fabric(hosts, source, "oci", "customerGpuMemoryFabric", map, warnings);
}

Fabric parse_nebius_topology(std::istream &in, const std::string &source, const HostMap *map)
{
    json j = read_json(in, source, "nebius compute instance list --format json");
    const json *items = items_of(j, {"items"});
    if (!items)
        throw InputError(source + ": found no \"items\" array, expected nebius compute instance list --format json");
    std::vector<CloudHost> hosts;
    std::vector<std::string> warnings;
    NotRunning stopped;
    std::size_t k = 0;
    for (const auto &it : *items) {
        std::string where = item_where(source, "items", k++);
        const json *meta = member(it, {"metadata"});
        if (!meta || !meta->is_object())
            throw InputError(where + ": found no metadata, expected an instance with metadata.id");
        CloudHost h;
        const json *name = member(*meta, {"name"}), *id = member(*meta, {"id"});
        if (!id)
            throw InputError(where + ": found no metadata.id, expected the instance's ID");
        if (name)
            h.names.push_back(checked_name(*name, where, "metadata.name"));
        h.names.push_back(checked_name(*id, where, "metadata.id"));
        where += " (" + h.names[0] + ")";
        const json *st = member(it, {"status"});
        if (st && st->is_object())
            stopped.note(member(*st, {"state"}), where, {"RUNNING"});
        const json *tp = st ? member(*st, {"infiniband_topology_path", "infinibandTopologyPath"}) : nullptr;
        if (!tp) {
            warnings.push_back(where + ": no status.infiniband_topology_path (not in a GPU cluster?), left out");
            continue;
        }
        const json *path = member(*tp, {"path"});
        if (!path || !path->is_array() || path->size() != 3)
            throw InputError(where + ": found infiniband_topology_path.path " + (path ? json_value_text(*path) : std::string("missing")) +
                             ", expected three tiers, root first");
        h.core = checked_name((*path)[0], where, "path[0]");
        h.pod = checked_name((*path)[1], where, "path[1]");
        h.leaf = checked_name((*path)[2], where, "path[2]");
        const json *spec = member(it, {"spec"});
        if (const json *g = spec ? member(*spec, {"nvl_instance_group_id", "nvlInstanceGroupId"}) : nullptr)
            h.domain = checked_name(*g, where, "nvl_instance_group_id");
        h.where = where;
        hosts.push_back(h);
    }
    stopped.warn(warnings, source, "status.state");
    return cloud_fabric(hosts, source, "nebius", "nvl_instance_group_id", map, warnings);
}

}  // namespace atl
