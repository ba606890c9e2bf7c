#include "placement/view.hpp"

#include <istream>
#include <ostream>
#include <set>
#include <sstream>

#include "topology/check.hpp"

namespace atl {

FabricSummary summarise(const Topology &t, const Cluster &c)
{
    FabricSummary s;
    s.source = t.fabric.source;
    s.rail_optimised = t.rail_optimised;
    // Do rail planes meet above the leaves? Components of the switch graph.
    std::vector<int> comp(t.switches.size(), -1);
    int ncomp = 0;
    for (std::size_t v = 0; v < t.switches.size(); ++v) {
        if (comp[v] >= 0)
            continue;
        std::vector<std::size_t> stack = {v};
        comp[v] = ncomp;
        while (!stack.empty()) {
            std::size_t x = stack.back();
            stack.pop_back();
            auto adj = boost::adjacent_vertices(x, t.graph);
            for (auto it = adj.first; it != adj.second; ++it)
                if (comp[*it] < 0) {
                    comp[*it] = ncomp;
                    stack.push_back(*it);
                }
        }
        ++ncomp;
    }
    std::map<int, std::set<int>> rails_in;
    for (std::size_t v = 0; v < t.switches.size(); ++v)
        if (t.switches[v].tier == 0 && t.switches[v].rail >= 0)
            rails_in[comp[v]].insert(t.switches[v].rail);
    s.rails_meet = false;
    for (const auto &kv : rails_in)
        s.rails_meet = s.rails_meet || kv.second.size() > 1;

    for (std::size_t i = 0; i < c.islands().size(); ++i) {
        const PlaceIsland &pi = c.island(static_cast<int>(i));
        ViewIsland vi;
        vi.level = pi.level;
        vi.name = pi.name;
        vi.parent = pi.parent;
        vi.hops = 2;
        const auto &ls = pi.leaf_islands;
        for (std::size_t a = 0; a < ls.size(); ++a)
            for (std::size_t b = a + 1; b < ls.size(); ++b)
                vi.hops = std::max(vi.hops, c.hops(ls[a], ls[b]));
        if (pi.level == Level::Leaf) {
            vi.sharp = !t.islands[i].leaves.empty();
            for (int sw : t.islands[i].leaves)
                vi.sharp = vi.sharp && t.sw(sw).sharp;
        }
        s.islands.push_back(vi);
    }
    std::set<std::string> bad;
    for (const Finding &f : check(t))
        if (f.code == "miswired-rail" || f.code == "missing-rail")
            bad.insert(f.subject.substr(0, f.subject.find(' ')));
    for (std::size_t h = 0; h < t.hosts.size(); ++h) {
        if (!c.in_pool(static_cast<int>(h)))
            continue;
        ViewHost vh;
        vh.leaf = c.leaf_of(static_cast<int>(h));
        vh.rails_ok = !bad.count(t.hosts[h].name);
        std::set<std::pair<std::string, int>> seen;
        for (const HostPort &p : t.hosts[h].ports)
            if (p.rail >= 0 && !p.hca.empty() && seen.insert({p.hca, p.port}).second)
                vh.hcas.push_back({p.hca, p.port});
        s.hosts[t.hosts[h].name] = vh;
    }
    return s;
}

void write_summary(std::ostream &out, const FabricSummary &s)
{
    out << summary_magic << "\n"
        << "# the atoll plugin's view of " << s.source << ", written by atoll-topo slurm --format view\n"
        << "source " << s.source << "\n"
        << "rails " << (s.rail_optimised ? 1 : 0) << " " << (s.rails_meet ? 1 : 0) << "\n"
        << "# island LEVEL NAME PARENT HOPS SHARP (in index order)\n";
    for (const ViewIsland &i : s.islands)
        out << "island " << to_string(i.level) << " " << i.name << " " << i.parent << " " << i.hops << " "
            << (i.sharp ? 1 : 0) << "\n";
    out << "# host NAME LEAF-ISLAND RAILS-OK HCA:PORT,...\n";
    for (const auto &kv : s.hosts) {
        out << "host " << kv.first << " " << kv.second.leaf << " " << (kv.second.rails_ok ? 1 : 0) << " ";
        if (kv.second.hcas.empty())
            out << "-";
        for (std::size_t k = 0; k < kv.second.hcas.size(); ++k)
            out << (k ? "," : "") << kv.second.hcas[k].first << ":" << kv.second.hcas[k].second;
        out << "\n";
    }
}

FabricSummary read_summary(std::istream &in, const std::string &source)
{
    FabricSummary s;
    std::string line;
    std::size_t lineno = 0;
    if (!std::getline(in, line) || line != summary_magic)
        throw InputError(source, 1, "found \"" + line.substr(0, 40) + "\", expected \"" + summary_magic + "\"");
    ++lineno;
    auto fail = [&](const std::string &what) { throw InputError(source, lineno, "found \"" + line + "\", expected " + what); };
    auto flag = [&](const std::string &v) {
        if (v != "0" && v != "1")
            fail("0 or 1");
        return v == "1";
    };
    while (std::getline(in, line)) {
        ++lineno;
        if (line.empty() || line[0] == '#')
            continue;
        std::istringstream ls(line);
        std::string kind;
        ls >> kind;
        if (kind == "source") {
            std::getline(ls >> std::ws, s.source);
        } else if (kind == "rails") {
            std::string a, b;
            if (!(ls >> a >> b))
                fail("rails RAIL-OPTIMISED RAILS-MEET");
            s.rail_optimised = flag(a);
            s.rails_meet = flag(b);
        } else if (kind == "island") {
            std::string lv, name, sharp;
            ViewIsland i;
            if (!(ls >> lv >> name >> i.parent >> i.hops >> sharp) || !level_from_string(lv, i.level) ||
                i.parent < -1 || i.parent >= 1 << 30)
                fail("island LEVEL NAME PARENT HOPS SHARP");
            i.name = name;
            i.sharp = flag(sharp);
            s.islands.push_back(i);
        } else if (kind == "host") {
            std::string name, ok, hcas;
            ViewHost h;
            if (!(ls >> name >> h.leaf >> ok >> hcas) || h.leaf < 0 || h.leaf >= static_cast<int>(s.islands.size()))
                fail("host NAME LEAF-ISLAND RAILS-OK HCA:PORT,... after the islands");
            h.rails_ok = flag(ok);
            if (hcas != "-") {
                std::istringstream hs(hcas);
                std::string item;
                while (std::getline(hs, item, ',')) {
                    std::size_t colon = item.rfind(':');
                    if (colon == std::string::npos || colon == 0)
                        fail("HCA:PORT");
                    h.hcas.push_back({item.substr(0, colon), std::atoi(item.c_str() + colon + 1)});
                }
            }
            s.hosts[name] = h;
        } else {
            fail("a source, rails, island or host line");
        }
    }
    for (const ViewIsland &i : s.islands)
        if (i.parent >= static_cast<int>(s.islands.size()))
            throw InputError(source, lineno, "found island " + i.name + " with parent " + std::to_string(i.parent) +
                                                 ", expected an island index");
    return s;
}

}  // namespace atl
