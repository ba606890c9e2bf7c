// An nccl.conf as NCCL's setEnvFile reads it.
#include "node/ncclconf.hpp"

#include <algorithm>

namespace atl {

std::vector<NcclConfLine> nccl_conf_lines(const std::string &text)
{
    constexpr std::size_t buffer = 4096, field = 1023;
    std::vector<NcclConfLine> out;
    std::size_t at = 0;
    int line = 1;
    while (at < text.size()) {
        // fgets(line, 4096, file): up to 4095 bytes, ending after a newline
        std::size_t nl = text.find('\n', at);
        std::size_t end = nl == std::string::npos ? text.size() : nl + 1;
        end = std::min(end, at + buffer - 1);
        std::string chunk = text.substr(at, end - at);
        int from = line;
        bool newline = !chunk.empty() && chunk.back() == '\n';
        if (newline)
            ++line;
        at = end;
        // strlen(): a NUL ends what NCCL sees of it
        std::size_t nul = chunk.find('\0');
        if (nul != std::string::npos)
            chunk.resize(nul);
        if (!chunk.empty() && chunk.back() == '\n')
            chunk.pop_back();
        bool cr = false;
        if (!chunk.empty() && chunk.back() == '\r') {
            chunk.pop_back();
            cr = true;
        }
        if (chunk.empty() || chunk[0] == '#')
            continue;
        std::size_t eq = chunk.find('=');
        if (eq == std::string::npos || eq == 0)
            continue;
        NcclConfLine l;
        l.name = chunk.substr(0, std::min(eq, field));
        l.value = chunk.substr(eq + 1, field);
        // before 2.30 the CR stayed, inside the 1023 bytes the value keeps
        l.cr = cr && chunk.size() - (eq + 1) < field;
        l.line = from;
        out.push_back(std::move(l));
    }
    return out;
}

std::vector<NcclConfLine> nccl_conf_lines_before_2_30(const std::string &text)
{
    constexpr std::size_t field = 1023;
    std::vector<NcclConfLine> out;
    std::size_t at = 0;
    int line = 1;
    for (; at < text.size(); ++line) {
        // getline(): the line and its newline; '#' first a comment (2.26 and
        // later; before, "#X=1" set "#X", no variable of NCCL's)
        std::size_t nl = text.find('\n', at);
        std::size_t end = nl == std::string::npos ? text.size() : nl;
        std::string l = text.substr(at, end - at);
        at = end + 1;
        if (l.empty() || l[0] == '#')
            continue;
        // the name: up to '=', and a NUL first ends the line (line[s] == '\0')
        std::size_t eq = l.find_first_of(std::string("=\0", 2));
        if (eq == std::string::npos || l[eq] != '=' || eq == 0)
            continue;
        NcclConfLine c;
        c.name = l.substr(0, std::min(eq, field));
        // strncpy(envValue, ...): up to a NUL, 1023 bytes at most
        std::string v = l.substr(eq + 1);
        v = v.substr(0, std::min(v.find('\0'), field));
        c.cr = !v.empty() && v.back() == '\r';
        if (c.cr)
            v.pop_back();  // value as the struct keeps it; NCCL before 2.30 keeps the CR
        c.value = v;
        c.line = line;
        out.push_back(std::move(c));
    }
    return out;
}

}  // namespace atl
