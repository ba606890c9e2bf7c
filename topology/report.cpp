#include "topology/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <ostream>
#include <set>
#include <stdexcept>

#include "topology/hostlist.hpp"
#include "topology/nodehealth.hpp"

namespace atl {

namespace {

std::string hex(unsigned v, int digits)
{
    char b[16];
    std::snprintf(b, sizeof b, "%0*X", digits, v);
    return b;
}

// The length of a valid UTF-8 sequence at s[i] and its code point; 0 when the
// bytes there are not one (overlong, surrogate, beyond U+10FFFF, truncated).
std::size_t utf8_at(const std::string &s, std::size_t i, unsigned &cp)
{
    auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    unsigned c = byte(i);
    std::size_t n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
    if (n == 0 || c >= 0xF5 || i + n > s.size())
        return 0;
    cp = c & (n == 2 ? 0x1F : n == 3 ? 0x0F : 0x07);
    for (std::size_t k = 1; k < n; ++k) {
        if ((byte(i + k) & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (byte(i + k) & 0x3F);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

// C1 controls, bidirectional and invisible formatting characters, line and
// paragraph separators, noncharacters: shown as \u{N}, never rendered
bool shown_as_code(unsigned cp)
{
    return cp < 0xA0 || cp == 0xAD || (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202E) ||
           (cp >= 0x2060 && cp <= 0x206F) || cp == 0xFEFF || (cp >= 0xFFF9 && cp <= 0xFFFB) ||
           (cp >= 0xFDD0 && cp <= 0xFDEF) || (cp & 0xFFFE) == 0xFFFE || (cp >= 0xE0000 && cp <= 0xE007F);
}

}  // namespace

std::string html_escaped(const std::string &s, bool keep_newlines)
{
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size();) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        unsigned cp = 0;
        std::size_t n = 0;
        if (c == '&')
            out += "&amp;";
        else if (c == '<')
            out += "&lt;";
        else if (c == '>')
            out += "&gt;";
        else if (c == '"')
            out += "&quot;";
        else if (c == '\'')
            out += "&#39;";
        else if ((c == '\n' || c == '\t') && keep_newlines)
            out += static_cast<char>(c);
        else if (c == '\n')
            out += "\\n";
        else if (c >= 0x20 && c < 0x7F)
            out += static_cast<char>(c);
        else if (c >= 0x80 && (n = utf8_at(s, i, cp)) > 0) {
            out += shown_as_code(cp) ? "\\u{" + hex(cp, 4) + "}" : "&#x" + hex(cp, 1) + ";";
            i += n;
            continue;
        } else
            out += "\\x" + hex(c, 2);
        ++i;
    }
    return out;
}

namespace {

std::string h(const std::string &s) { return html_escaped(s); }

std::string plural(std::size_t n, const char *one, const char *many)
{
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

// Leaf islands each switch is on (leaf switches) or above (higher tiers).
std::vector<std::vector<int>> islands_below(const Topology &t)
{
    std::vector<std::vector<int>> below(t.switches.size());
    for (int i : t.islands_at(Level::Leaf))
        for (int l : t.islands[static_cast<std::size_t>(i)].leaves)
            below.at(static_cast<std::size_t>(l)).push_back(i);
    // tier by tier upwards: a switch is above what its lower neighbours are on or above
    for (int tier = 1; tier <= t.max_tier; ++tier)
        for (std::size_t s = 0; s < t.switches.size(); ++s) {
            if (t.switches[s].tier != tier)
                continue;
            std::set<int> acc;
            for (auto [it, end] = boost::adjacent_vertices(s, t.graph); it != end; ++it)
                if (t.switches[*it].tier >= 0 && t.switches[*it].tier < tier)
                    acc.insert(below[*it].begin(), below[*it].end());
            below[s].assign(acc.begin(), acc.end());
        }
    return below;
}

bool contains(const Topology &t, int outer, int inner)
{
    for (int i = inner; i >= 0; i = t.islands[static_cast<std::size_t>(i)].parent)
        if (i == outer)
            return true;
    return false;
}

int common_island(const Topology &t, const std::set<int> &islands)
{
    if (islands.empty())
        return -1;
    int c = *islands.begin();
    for (int i : islands)
        while (c >= 0 && !contains(t, c, i))
            c = t.islands[static_cast<std::size_t>(c)].parent;
    return c;
}

FindingPlace place(const Topology &t, const Finding &f, const std::vector<std::vector<int>> &below,
                   const std::map<std::string, int> &switch_names, const std::map<std::string, int> &island_names)
{
    std::set<int> hosts, switches, islands;
    auto name = [&](const std::string &w) {
        auto hi = t.host_index.find(w);
        if (hi != t.host_index.end()) {
            hosts.insert(hi->second);
            return true;
        }
        auto si = switch_names.find(w);
        if (si != switch_names.end()) {
            switches.insert(si->second);
            return true;
        }
        auto ii = island_names.find(w);
        if (ii != island_names.end()) {
            islands.insert(ii->second);
            return true;
        }
        std::uint64_t g = 0;
        if (w.size() > 2 && w.compare(0, 2, "0x") == 0 && parse_guid(w, g)) {
            for (const UnnamedCa &u : t.unnamed)
                if (u.guid == g && u.sw >= 0)
                    switches.insert(u.sw);
            for (const RefusedCa &r : t.refused)
                if (r.guid == g && r.sw >= 0)
                    switches.insert(r.sw);
            return true;
        }
        return false;
    };
    std::string word;
    auto take = [&] {
        if (word.empty())
            return;
        if (!name(word)) {
            // a port, "ib-leaf01[3]", or a hostlist, "dgx[01-04],login1"
            std::size_t open = word.rfind('[');
            bool port = open != std::string::npos && open > 0 && open + 2 < word.size() && word.back() == ']' &&
                        word.find_first_not_of("0123456789", open + 1) == word.size() - 1;
            if (port && name(word.substr(0, open))) {
            } else if (word.find_first_of("[,") != std::string::npos) {
                try {
                    for (const std::string &n : expand_hostlist(word, 100000)) {
                        auto hi = t.host_index.find(n);
                        if (hi != t.host_index.end())
                            hosts.insert(hi->second);
                    }
                } catch (const std::invalid_argument &) {
                }
            }
        }
        word.clear();
    };
    for (char c : f.subject) {
        if (c == ' ')
            take();
        else
            word += c;
    }
    take();
    std::set<int> touched = islands;
    for (int hs : hosts)
        if (t.hosts[static_cast<std::size_t>(hs)].leaf_island >= 0)
            touched.insert(t.hosts[static_cast<std::size_t>(hs)].leaf_island);
    for (int s : switches)
        touched.insert(below[static_cast<std::size_t>(s)].begin(), below[static_cast<std::size_t>(s)].end());
    FindingPlace p;
    p.island = common_island(t, touched);
    p.hosts.assign(hosts.begin(), hosts.end());
    p.switches.assign(switches.begin(), switches.end());
    return p;
}

std::map<std::string, int> switch_names(const Topology &t)
{
    std::map<std::string, int> m;
    for (std::size_t i = 0; i < t.switches.size(); ++i)
        m.emplace(t.switches[i].name, static_cast<int>(i));
    return m;
}

std::map<std::string, int> island_names(const Topology &t)
{
    std::map<std::string, int> m;
    for (std::size_t i = 0; i < t.islands.size(); ++i)
        m.emplace(t.islands[i].name, static_cast<int>(i));
    return m;
}

// Health: 0 fine, 1 warnings, 2 errors or a failed health check
const char *state_class(int s) { return s >= 2 ? "bad" : s == 1 ? "warn" : "good"; }

struct Bar {
    std::string label;
    std::size_t ok = 0, bad = 0;  // drawn as one bar: ok, then bad in red
};

// A horizontal bar chart as inline SVG.
void write_bars(std::ostream &o, const std::string &id, const std::string &title, const std::vector<Bar> &bars,
                const char *ok_name, const char *bad_name, const char *bad_class = "bad")
{
    std::size_t most = 1;
    for (const Bar &b : bars)
        most = std::max(most, b.ok + b.bad);
    const int label_w = 120, bar_w = 360, row = 26, top = 8;
    int height = top + row * static_cast<int>(bars.size()) + 8;
    o << "<figure class=\"chart\" id=\"" << id << "\"><figcaption>" << h(title) << "</figcaption>\n"
      << "<svg class=\"histogram\" width=\"" << label_w + bar_w + 110 << "\" height=\"" << height
      << "\" role=\"img\" aria-label=\"" << h(title) << "\">\n";
    int y = top;
    for (const Bar &b : bars) {
        double scale = static_cast<double>(bar_w) / static_cast<double>(most);
        int w_ok = static_cast<int>(std::lround(static_cast<double>(b.ok) * scale));
        int w_bad = static_cast<int>(std::lround(static_cast<double>(b.bad) * scale));
        if (b.ok && !w_ok) w_ok = 1;
        if (b.bad && !w_bad) w_bad = 1;
        o << "<g class=\"bar\"><text x=\"" << label_w - 8 << "\" y=\"" << y + 15 << "\" text-anchor=\"end\">"
          << h(b.label) << "</text>";
        if (w_ok)
            o << "<rect class=\"ok\" x=\"" << label_w << "\" y=\"" << y + 3 << "\" width=\"" << w_ok
              << "\" height=\"18\"><title>" << b.ok << " " << ok_name << "</title></rect>";
        if (w_bad)
            o << "<rect class=\"" << bad_class << "\" x=\"" << label_w + w_ok << "\" y=\"" << y + 3 << "\" width=\"" << w_bad
              << "\" height=\"18\"><title>" << b.bad << " " << bad_name << "</title></rect>";
        o << "<text x=\"" << label_w + w_ok + w_bad + 6 << "\" y=\"" << y + 15 << "\">" << b.ok + b.bad
          << (b.bad ? " (" + std::to_string(b.bad) + " " + bad_name + ")" : std::string()) << "</text></g>\n";
        y += row;
    }
    o << "</svg></figure>\n";
}

const char *style_sheet =
    "body{font:14px/1.4 system-ui,-apple-system,'Segoe UI',Roboto,'DejaVu Sans',sans-serif;margin:0;"
    "color:#1d2733;background:#f3f5f8}\n"
    "header{background:#1f3a5f;color:#fff;padding:14px 24px}header h1{margin:0 0 4px;font-size:20px}\n"
    "header .sub{opacity:.85;font-size:13px}main{padding:8px 24px 32px}\n"
    "section{background:#fff;border-radius:8px;box-shadow:0 1px 3px rgba(0,0,0,.12);margin:16px 0;padding:12px 16px}\n"
    "h2{font-size:17px;margin:4px 0 10px;color:#1f3a5f}h3{font-size:14px;margin:14px 0 6px}\n"
    ".facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px;margin:0}.facts dt{font-weight:600}"
    ".facts dd{margin:0}\n"
    ".legend span{display:inline-block;margin-right:14px}.sw{display:inline-block;width:12px;height:12px;"
    "border-radius:2px;vertical-align:-1px;margin-right:4px}\n"
    ".island{border:2px solid #9aa8b8;border-radius:6px;padding:4px 6px 6px;margin:4px;display:flex;"
    "flex-direction:column;background:#fff}\n"
    ".island>.name{font-size:12px;font-weight:600;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}\n"
    ".island>.name .n{font-weight:400;color:#566}\n"
    ".kids{display:flex;flex-wrap:wrap;align-items:flex-start}\n"
    ".island.fabric{background:#eef2f7}.island.pod{background:#f7f9fc}.island.group{background:#fff}\n"
    ".island.leaf{border-width:1px;max-width:260px}.island.leaf.good{background:#e6f5ea;border-color:#3b9b5b}\n"
    ".island.leaf.warn{background:#fdf3dc;border-color:#d99a1e}.island.leaf.bad{background:#fbe3e1;border-color:#c9372c}\n"
    ".island.warn:not(.leaf){border-color:#d99a1e}.island.bad:not(.leaf){border-color:#c9372c}\n"
    ".hosts{display:grid;gap:2px;margin:4px 0 2px}.host{width:10px;height:10px;border-radius:2px}\n"
    ".host.good,.sw.good{background:#3b9b5b}.host.warn,.sw.warn{background:#e6a823}.host.bad,.sw.bad{background:#d2392e}\n"
    ".host.service,.sw.service{background:#a7b1bd}\n"
    ".leaves{display:flex;flex-wrap:wrap;gap:2px;margin-top:2px}.leafsw{width:6px;height:10px;border-radius:1px}\n"
    ".leafsw.good{background:#1f3a5f}.leafsw.warn{background:#e6a823}.leafsw.bad{background:#d2392e}\n"
    ".hostlist{font-size:11px;color:#445;word-break:break-all}\n"
    "table{border-collapse:collapse;width:100%;font-size:13px}th,td{text-align:left;padding:3px 8px;"
    "border-bottom:1px solid #e3e7ec;vertical-align:top}th{background:#f0f3f7}\n"
    "table.findings{table-layout:fixed}table.findings th:nth-child(1){width:70px}table.findings th:nth-child(2)"
    "{width:170px}table.findings th:nth-child(3){width:24%}table.findings th:nth-child(4){width:14%}"
    "table.findings td{overflow-wrap:anywhere}\n"
    "td.sev{font-weight:600;white-space:nowrap}tr.error td.sev{color:#c9372c}tr.warning td.sev{color:#a56c00}\n"
    "table.codes{margin-bottom:8px}\n"
    "code,pre{font-family:'DejaVu Sans Mono',Menlo,Consolas,monospace;font-size:12px}\n"
    "pre{background:#f6f8fa;border:1px solid #e3e7ec;border-radius:4px;padding:8px;max-height:420px;overflow:auto}\n"
    ".charts{display:flex;flex-wrap:wrap;gap:24px}figure{margin:0}figcaption{font-weight:600;margin-bottom:4px}\n"
    "svg.histogram text{font-size:12px;fill:#1d2733}svg.histogram rect.ok{fill:#3f78b5}"
    "svg.histogram rect.bad{fill:#d2392e}svg.histogram rect.other{fill:#a7b1bd}\n"
    "details{margin:6px 0}summary{cursor:pointer;font-weight:600}.muted{color:#667}.none{color:#3b9b5b}\n"
    "footer{color:#667;font-size:12px;padding:0 24px 24px}\n";

class Report {
public:
    Report(std::ostream &out, const Topology &topo, const std::vector<Finding> &found)
        : o(out), t(topo), findings(found), host_state(topo.hosts.size(), 0), switch_state(topo.switches.size(), 0),
          island_state(topo.islands.size(), 0)
    {
        auto below = islands_below(t);
        auto sn = switch_names(t);
        auto in = island_names(t);
        for (const Finding &f : findings) {
            places.push_back(place(t, f, below, sn, in));
            const FindingPlace &p = places.back();
            int s = f.severity == Severity::Error ? 2 : 1;
            for (int x : p.hosts)
                host_state[static_cast<std::size_t>(x)] = std::max(host_state[static_cast<std::size_t>(x)], s);
            for (int x : p.switches)
                switch_state[static_cast<std::size_t>(x)] = std::max(switch_state[static_cast<std::size_t>(x)], s);
            if (p.island >= 0)
                island_state[static_cast<std::size_t>(p.island)] =
                    std::max(island_state[static_cast<std::size_t>(p.island)], s);
        }
        // a host whose own health check failed is red, whatever check says
        for (const std::string &u : t.fabric.unhealthy) {
            int x = health_host(t.host_index, u.substr(0, u.find(": ")));
            if (x >= 0) {
                host_state[static_cast<std::size_t>(x)] = 2;
                health_failed[x] = u;
            }
        }
        // an island is as unwell as anything in it
        for (std::size_t i = 0; i < t.islands.size(); ++i) {
            int &s = island_state[i];
            for (int x : t.islands[i].hosts)
                s = std::max(s, host_state[static_cast<std::size_t>(x)]);
            for (int l : t.islands[i].leaves)
                s = std::max(s, switch_state[static_cast<std::size_t>(l)]);
        }
        for (std::size_t i = 0; i < t.islands.size(); ++i)
            for (int p = t.islands[i].parent; p >= 0; p = t.islands[static_cast<std::size_t>(p)].parent)
                island_state[static_cast<std::size_t>(p)] =
                    std::max(island_state[static_cast<std::size_t>(p)], island_state[i]);
    }

    void write(const std::vector<ReportFile> &files, const std::string &generator)
    {
        std::string title = "atoll fabric report: " + t.fabric.source;
        o << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          // nothing may be fetched or run, whatever a string in the page says
          << "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
          << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          << "<title>" << h(title) << "</title>\n<style>\n"
          << style_sheet << "</style>\n</head>\n<body>\n";
        o << "<header><h1>" << h(title) << "</h1><div class=\"sub\">" << plural(t.hosts.size(), "host", "hosts")
          << ", " << plural(t.switches.size(), "switch", "switches") << ", "
          << plural(t.islands_at(Level::Leaf).size(), "leaf island", "leaf islands") << "; "
          << plural(errors(), "error", "errors") << ", " << plural(findings.size() - errors(), "warning", "warnings")
          << "</div></header>\n<main>\n";
        summary();
        islands();
        findings_by_island();
        links();
        rails();
        slurm_files(files);
        o << "</main>\n<footer>Written by " << h(generator)
          << ". A self-contained page: no script, nothing loaded from anywhere.</footer>\n</body>\n</html>\n";
    }

private:
    std::ostream &o;
    const Topology &t;
    const std::vector<Finding> &findings;
    std::vector<FindingPlace> places;
    std::vector<int> host_state, switch_state, island_state;
    std::map<int, std::string> health_failed;

    std::size_t errors() const
    {
        return static_cast<std::size_t>(std::count_if(findings.begin(), findings.end(),
                                                      [](const Finding &f) { return f.severity == Severity::Error; }));
    }

    std::string hostlist(const std::vector<int> &hosts) const
    {
        std::vector<std::string> names;
        for (int x : hosts)
            names.push_back(t.hosts[static_cast<std::size_t>(x)].name);
        return compress_hostlist(names);
    }

    void summary()
    {
        std::map<int, int> tiers;
        for (const Switch &s : t.switches)
            tiers[s.tier]++;
        std::size_t compute = static_cast<std::size_t>(
            std::count_if(t.hosts.begin(), t.hosts.end(), [](const Host &x) { return x.compute; }));
        o << "<section id=\"summary\"><h2>Fabric</h2><dl class=\"facts\">\n";
        o << "<dt>source</dt><dd>" << h(t.fabric.source) << (t.fabric.kind.empty() ? "" : " (" + h(t.fabric.kind) + ")")
          << "</dd>\n<dt>switches</dt><dd>" << t.switches.size() << " (";
        const char *names[] = {"leaf", "spine", "core"};
        bool first = true;
        for (const auto &kv : tiers) {
            o << (first ? "" : ", ") << kv.second << " "
              << (kv.first < 0 ? "unreachable" : kv.first < 3 ? names[kv.first] : ("tier " + std::to_string(kv.first)).c_str());
            first = false;
        }
        o << ")</dd>\n<dt>hosts</dt><dd>" << t.hosts.size() << " (" << compute << " compute)</dd>\n"
          << "<dt>links</dt><dd>" << t.fabric.links.size() << "</dd>\n<dt>rails</dt><dd>" << t.rails.size();
        if (!t.rails.empty())
            o << (t.rail_optimised ? ", rail-optimised" : "")
              << (t.not_rail_optimised.empty() ? "" : ", not rail-optimised: " + h(t.not_rail_optimised));
        o << "</dd>\n<dt>islands</dt><dd>";
        for (Level l : {Level::Leaf, Level::Group, Level::Pod, Level::Fabric})
            o << (l == Level::Leaf ? "" : ", ") << t.islands_at(l).size() << " " << to_string(l);
        o << "</dd>\n<dt>check</dt><dd>" << plural(errors(), "error", "errors") << ", "
          << plural(findings.size() - errors(), "warning", "warnings") << "</dd>\n";
        if (!t.fabric.unhealthy.empty())
            o << "<dt>health</dt><dd>" << plural(t.fabric.unhealthy.size(), "host", "hosts")
              << " failed atoll-topo health</dd>\n";
        o << "</dl></section>\n";
    }

    void island_box(int i, const std::map<int, std::vector<int>> &kids)
    {
        const Island &is = t.islands[static_cast<std::size_t>(i)];
        std::string st = state_class(island_state[static_cast<std::size_t>(i)]);
        o << "<div class=\"island " << to_string(is.level) << " " << st << "\" id=\"island-" << i
          << "\" data-level=\"" << to_string(is.level) << "\" data-hosts=\"" << is.hosts.size() << "\" title=\""
          << to_string(is.level) << " " << h(is.name) << ": " << plural(is.hosts.size(), "host", "hosts") << "\">"
          << "<div class=\"name\">" << h(is.name) << " <span class=\"n\">" << to_string(is.level) << ", "
          << is.hosts.size() << "</span></div>";
        auto k = kids.find(i);
        if (k != kids.end()) {
            o << "<div class=\"kids\">\n";
            for (int c : k->second)
                island_box(c, kids);
            o << "</div>";
        }
        if (is.level == Level::Leaf) {
            // sized by hosts: one square each, about twice as wide as high
            int cols = std::max(4, static_cast<int>(std::ceil(std::sqrt(2.0 * static_cast<double>(is.hosts.size())))));
            o << "<div class=\"hosts\" style=\"grid-template-columns:repeat(" << cols << ",10px)\">";
            for (int x : is.hosts) {
                const Host &ho = t.hosts[static_cast<std::size_t>(x)];
                int s = host_state[static_cast<std::size_t>(x)];
                auto hf = health_failed.find(x);
                o << "<div class=\"host " << (s == 0 && !ho.compute ? "service" : state_class(s)) << "\" title=\""
                  << h(ho.name) << (ho.compute ? "" : " (not a compute host)")
                  << (hf != health_failed.end() ? ": health failed: " + h(hf->second) : std::string()) << "\"></div>";
            }
            o << "</div><div class=\"leaves\">";
            for (int l : is.leaves) {
                const Switch &sw = t.sw(l);
                o << "<div class=\"leafsw " << state_class(switch_state[static_cast<std::size_t>(l)]) << "\" title=\"leaf "
                  << h(sw.name) << (sw.rail >= 0 ? ", rail " + h(t.rails[static_cast<std::size_t>(sw.rail)]) : "")
                  << "\"></div>";
            }
            o << "</div><div class=\"hostlist\">" << h(hostlist(is.hosts)) << "</div>";
        }
        o << "</div>\n";
    }

    void islands()
    {
        std::map<int, std::vector<int>> kids;
        std::vector<int> roots;
        for (std::size_t i = 0; i < t.islands.size(); ++i) {
            int p = t.islands[i].parent;
            (p >= 0 ? kids[p] : roots).push_back(static_cast<int>(i));
        }
        o << "<section id=\"islands\"><h2>Islands</h2>\n<p class=\"legend\">Pods hold rail groups, groups hold leaf "
             "islands; a square is a host, a bar under it a leaf switch. "
          << "<span><i class=\"sw good\"></i>fine</span><span><i class=\"sw warn\"></i>check warnings</span>"
          << "<span><i class=\"sw bad\"></i>check errors or a failed health check</span>"
          << "<span><i class=\"sw service\"></i>not a compute host</span></p>\n<div class=\"kids\">\n";
        for (int r : roots)
            island_box(r, kids);
        o << "</div>\n";
        std::vector<int> outside;
        for (std::size_t x = 0; x < t.hosts.size(); ++x)
            if (t.hosts[x].leaf_island < 0)
                outside.push_back(static_cast<int>(x));
        if (!outside.empty())
            o << "<p>" << plural(outside.size(), "host", "hosts") << " on no leaf island: " << h(hostlist(outside))
              << "</p>\n";
        o << "</section>\n";
    }

    void finding_rows(const std::vector<std::size_t> &which)
    {
        o << "<table class=\"findings\"><thead><tr><th>severity</th><th>code</th><th>subject</th><th>hosts</th>"
             "<th>finding</th></tr></thead><tbody>\n";
        for (std::size_t k : which) {
            const Finding &f = findings[k];
            o << "<tr class=\"finding " << to_string(f.severity) << "\"><td class=\"sev\">" << to_string(f.severity)
              << "</td><td><code>" << h(f.code) << "</code></td><td>" << h(f.subject) << "</td><td>"
              << h(hostlist(places[k].hosts)) << "</td><td>" << h(f.message) << "</td></tr>\n";
        }
        o << "</tbody></table>\n";
    }

    // what kinds of trouble, how often and on how many islands, before the lists
    void findings_by_code()
    {
        struct Tally {
            Severity severity = Severity::Warning;
            std::size_t n = 0;
            std::set<int> islands;
        };
        std::map<std::string, Tally> by;
        for (std::size_t k = 0; k < findings.size(); ++k) {
            Tally &c = by[findings[k].code];
            c.severity = std::max(c.severity, findings[k].severity);
            c.n++;
            c.islands.insert(places[k].island);
        }
        o << "<table class=\"codes\" style=\"width:auto\"><thead><tr><th>code</th><th>severity</th><th>findings</th>"
             "<th>islands</th></tr></thead><tbody>\n";
        for (const auto &kv : by)
            o << "<tr class=\"" << to_string(kv.second.severity) << "\"><td><code>" << h(kv.first) << "</code></td><td class=\"sev\">"
              << to_string(kv.second.severity) << "</td><td>" << kv.second.n << "</td><td>"
              << kv.second.islands.size() - kv.second.islands.count(-1)
              << (kv.second.islands.count(-1) ? " (and not on an island)" : "") << "</td></tr>\n";
        o << "</tbody></table>\n";
    }

    void findings_by_island()
    {
        std::map<int, std::vector<std::size_t>> by;  // island (-1 none) -> findings
        for (std::size_t k = 0; k < findings.size(); ++k)
            by[places[k].island].push_back(k);
        o << "<section id=\"findings\"><h2>Check findings by island</h2>\n";
        if (findings.empty())
            o << "<p class=\"none\">atoll-topo check found nothing.</p>\n";
        else
            findings_by_code();
        for (const auto &kv : by) {
            if (kv.first < 0) {
                o << "<h3>Not on an island</h3>\n";
            } else {
                const Island &is = t.islands[static_cast<std::size_t>(kv.first)];
                o << "<h3>" << to_string(is.level) << " island " << h(is.name) << " <span class=\"muted\">("
                  << plural(is.hosts.size(), "host", "hosts") << (is.hosts.empty() ? "" : ": " + h(hostlist(is.hosts)))
                  << ")</span></h3>\n";
            }
            finding_rows(kv.second);
        }
        o << "</section>\n";
    }

    void links()
    {
        auto reasons = degraded_reasons(t);
        std::map<Speed, Bar> speeds;
        std::map<int, Bar> widths;
        std::size_t host_links = 0;
        for (std::size_t k = 0; k < t.fabric.links.size(); ++k) {
            const Link &l = t.fabric.links[k];
            bool bad = !reasons[k].empty();
            (bad ? speeds[l.speed].bad : speeds[l.speed].ok)++;
            (bad ? widths[l.width].bad : widths[l.width].ok)++;
            host_links += !t.switch_index.count(l.a.guid) || !t.switch_index.count(l.b.guid);
        }
        std::vector<Bar> sb, wb;
        for (auto &kv : speeds) {
            kv.second.label = kv.first == Speed::Unknown ? "unknown" : to_string(kv.first);
            sb.push_back(kv.second);
        }
        for (auto &kv : widths) {
            kv.second.label = kv.first ? std::to_string(kv.first) + "x" : "unknown";
            wb.push_back(kv.second);
        }
        o << "<section id=\"links\"><h2>Links</h2>\n<p>" << t.fabric.links.size() << " links: " << host_links
          << " to host adapters, " << t.fabric.links.size() - host_links
          << " between switches. Red: below what both ends support.</p>\n<div class=\"charts\">\n";
        write_bars(o, "link-speeds", "Links by lane speed", sb, "links", "degraded");
        write_bars(o, "link-widths", "Links by width (lanes)", wb, "links", "degraded");
        o << "</div>\n";
        std::vector<std::size_t> degraded;
        for (std::size_t k = 0; k < findings.size(); ++k)
            if (findings[k].code == "degraded-link")
                degraded.push_back(k);
        // listed here when there are few; many are read by island, above
        if (!degraded.empty() && degraded.size() <= 50) {
            o << "<h3>Degraded links</h3>\n";
            finding_rows(degraded);
        } else if (!degraded.empty()) {
            o << "<p>" << degraded.size() << " degraded links: listed under their islands, above.</p>\n";
        }
        o << "</section>\n";
    }

    void rails()
    {
        o << "<section id=\"rails\"><h2>Rails</h2>\n";
        std::map<std::size_t, std::vector<int>> per_host;  // rails on a host -> hosts
        std::vector<std::set<int>> rail_hosts(t.rails.size());
        for (std::size_t x = 0; x < t.hosts.size(); ++x) {
            std::set<int> on;
            for (const HostPort &p : t.hosts[x].ports)
                if (p.rail >= 0) {
                    on.insert(p.rail);
                    rail_hosts[static_cast<std::size_t>(p.rail)].insert(static_cast<int>(x));
                }
            per_host[on.size()].push_back(static_cast<int>(x));
        }
        std::vector<Bar> bars;
        for (const auto &kv : per_host) {
            Bar b;
            b.label = plural(kv.first, "rail", "rails");
            for (int x : kv.second)
                (t.hosts[static_cast<std::size_t>(x)].compute ? b.ok : b.bad)++;
            bars.push_back(b);
        }
        o << "<p>" << plural(t.rails.size(), "rail", "rails")
          << (t.rail_optimised ? ", rail-optimised (a host's rails land on different leaves)" : "")
          << (t.not_rail_optimised.empty() ? "" : "; not rail-optimised: " + h(t.not_rail_optimised))
          << ". Grey: hosts that are not compute hosts (another adapter count than most).</p>\n<div class=\"charts\">\n";
        write_bars(o, "rails-per-host", "Hosts by rails", bars, "compute hosts", "not compute", "other");
        o << "<table class=\"rails\" style=\"width:auto\"><thead><tr><th>rail</th><th>hosts</th><th>leaf switches</th>"
             "</tr></thead><tbody>\n";
        for (std::size_t r = 0; r < t.rails.size(); ++r) {
            std::size_t leaves = static_cast<std::size_t>(std::count_if(
                t.switches.begin(), t.switches.end(),
                [&](const Switch &s) { return s.tier == 0 && s.rail == static_cast<int>(r); }));
            o << "<tr><td><code>" << h(t.rails[r]) << "</code></td><td>" << rail_hosts[r].size() << "</td><td>" << leaves
              << "</td></tr>\n";
        }
        o << "</tbody></table></div>\n";
        for (const auto &kv : per_host)
            if (per_host.size() > 1)
                o << "<p><b>" << plural(kv.first, "rail", "rails") << "</b>: " << h(hostlist(kv.second)) << "</p>\n";
        o << "</section>\n";
    }

    void slurm_files(const std::vector<ReportFile> &files)
    {
        o << "<section id=\"slurm\"><h2>Slurm files</h2>\n<p>What <code>atoll-topo slurm</code> would write from this "
             "fabric.</p>\n";
        bool first = true;
        for (const ReportFile &f : files) {
            o << "<details class=\"file\"" << (first ? " open" : "") << "><summary>" << h(f.name)
              << " <span class=\"muted\"><code>" << h(f.command) << "</code></span></summary><pre>"
              << html_escaped(f.text, true) << "</pre></details>\n";
            first = false;
        }
        o << "</section>\n";
    }
};

}  // namespace

FindingPlace place_finding(const Topology &t, const Finding &f)
{
    return place(t, f, islands_below(t), switch_names(t), island_names(t));
}

void write_report(std::ostream &out, const Topology &t, const std::vector<Finding> &findings,
                  const std::vector<ReportFile> &files, const std::string &generator)
{
    Report(out, t, findings).write(files, generator);
}

}  // namespace atl
