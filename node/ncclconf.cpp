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

}  // namespace atl
