#include "topology/hostlist.hpp"
#include "topology/fabric.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <stdexcept>
#include <tuple>

namespace atl {

std::string compress_hostlist(std::vector<std::string> names)
{
    struct Key {
        std::string prefix;
        std::size_t width;
        bool operator<(const Key &o) const { return std::tie(prefix, width) < std::tie(o.prefix, o.width); }
    };
    std::map<Key, std::vector<unsigned long>> numbered;
    std::vector<std::string> plain;
    std::sort(names.begin(), names.end());
    names.erase(std::unique(names.begin(), names.end()), names.end());
    for (const auto &n : names) {
        std::size_t b = n.size();
        while (b > 0 && std::isdigit(static_cast<unsigned char>(n[b - 1])))
            --b;
        if (b == n.size() || n.size() - b > 9) {
            plain.push_back(n);
            continue;
        }
        numbered[{n.substr(0, b), n.size() - b}].push_back(std::stoul(n.substr(b)));
    }
    std::vector<std::string> parts = plain;
    for (auto &kv : numbered) {
        auto &v = kv.second;
        std::sort(v.begin(), v.end());
        auto fmt = [&](unsigned long x) {
            std::string s = std::to_string(x);
            if (s.size() < kv.first.width)
                s.insert(0, kv.first.width - s.size(), '0');
            return s;
        };
        if (v.size() == 1) {
            parts.push_back(kv.first.prefix + fmt(v[0]));
            continue;
        }
        std::string ranges;
        for (std::size_t i = 0; i < v.size();) {
            std::size_t j = i;
            while (j + 1 < v.size() && v[j + 1] == v[j] + 1)
                ++j;
            ranges += (ranges.empty() ? "" : ",") + fmt(v[i]) + (j > i ? "-" + fmt(v[j]) : "");
            i = j + 1;
        }
        parts.push_back(kv.first.prefix + "[" + ranges + "]");
    }
    std::sort(parts.begin(), parts.end());
    std::string out;
    for (const auto &p : parts)
        out += (out.empty() ? "" : ",") + p;
    return out;
}

std::vector<std::string> expand_hostlist(const std::string &expr, std::size_t max)
{
    std::vector<std::string> out;
    std::size_t i = 0;
    auto bad = [&](const std::string &what) {
        throw std::invalid_argument("hostlist \"" + escaped(expr, 80) + "\": " + what);
    };
    while (i < expr.size()) {
        std::size_t j = i;
        std::string prefix;
        while (j < expr.size() && expr[j] != ',' && expr[j] != '[')
            prefix += expr[j++];
        if (j < expr.size() && expr[j] == '[') {
            std::size_t close = expr.find(']', j);
            if (close == std::string::npos)
                bad("found '[' without ']', expected a range such as dgx[01-04]");
            std::string body = expr.substr(j + 1, close - j - 1);
            std::string suffix;
            std::size_t k = close + 1;
            while (k < expr.size() && expr[k] != ',')
                suffix += expr[k++];
            if (suffix.find('[') != std::string::npos)
                bad("found a second bracket in one name, expected one range per name");
            std::size_t p = 0;
            while (p <= body.size()) {
                std::size_t q = body.find(',', p);
                std::string r = body.substr(p, q == std::string::npos ? std::string::npos : q - p);
                std::size_t dash = r.find('-');
                std::string lo = r.substr(0, dash), hi = dash == std::string::npos ? lo : r.substr(dash + 1);
                auto digits = [](const std::string &s) {
                    return !s.empty() && s.size() <= 9 &&
                           std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
                };
                if (!digits(lo) || !digits(hi))
                    bad("found range \"" + r + "\", expected numbers such as 01-04");
                unsigned long a = std::stoul(lo), b = std::stoul(hi);
                if (b < a)
                    bad("found range \"" + r + "\", expected a rising range");
                if (b - a > 100000)
                    bad("found range \"" + r + "\" of " + std::to_string(b - a + 1) + " names, expected at most 100001 in one range");
                if (b - a + 1 > max - std::min(max, out.size()))
                    bad("more than " + std::to_string(max) + " names, expected at most that many");
                for (unsigned long x = a; x <= b; ++x) {
                    std::string s = std::to_string(x);
                    if (s.size() < lo.size())
                        s.insert(0, lo.size() - s.size(), '0');
                    out.push_back(prefix + s + suffix);
                }
                if (q == std::string::npos)
                    break;
                p = q + 1;
            }
            j = k;
        } else if (!prefix.empty()) {
            if (out.size() >= max)
                bad("more than " + std::to_string(max) + " names, expected at most that many");
            out.push_back(prefix);
        }
        if (j < expr.size() && expr[j] == ',')
            ++j;
        i = j;
    }
    return out;
}

}  // namespace atl
