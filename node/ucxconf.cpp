// A ucx.conf as UCX's bundled inih reads it.
#include "node/ucxconf.hpp"

#include <algorithm>
#include <cctype>

namespace atl {

namespace {

bool space(char c)
{
    return std::isspace(static_cast<unsigned char>(c)) != 0;
}

// find_chars_or_comment(): the first of `chars`, or an inline ';' after
// whitespace, or the end
std::size_t find_chars_or_comment(const std::string &s, std::size_t from, const char *chars)
{
    bool was_space = false;
    for (std::size_t i = from; i < s.size(); ++i) {
        if ((chars && std::string(chars).find(s[i]) != std::string::npos) || (was_space && s[i] == ';'))
            return i;
        was_space = space(s[i]);
    }
    return s.size();
}

std::string rstrip(std::string s)
{
    while (!s.empty() && space(s.back()))
        s.pop_back();
    return s;
}

}  // namespace

std::vector<UcxConfLine> ucx_conf_lines(const std::string &text)
{
    constexpr std::size_t buffer = 200;  // INI_MAX_LINE
    std::vector<UcxConfLine> out;
    std::string section, prev_name;
    std::size_t at = 0;
    int lineno = 0;
    while (at < text.size()) {
        // fgets(line, 200, file): up to 199 bytes, ending after a newline
        std::size_t nl = text.find('\n', at);
        std::size_t end = nl == std::string::npos ? text.size() : nl + 1;
        end = std::min(end, at + buffer - 1);
        std::string line = text.substr(at, end - at);
        at = end;
        ++lineno;
        std::size_t nul = line.find('\0');  // the C string ends there
        if (nul != std::string::npos)
            line.resize(nul);
        std::size_t start = 0;
        if (lineno == 1 && line.compare(0, 3, "\xEF\xBB\xBF") == 0)
            start = 3;
        std::size_t bom = start;
        line = rstrip(line);
        while (start < line.size() && space(line[start]))
            ++start;
        if (start >= line.size()) {
            continue;  // blank: no name, no change
        }
        char c = line[start];
        if (c == ';' || c == '#')
            continue;
        if (!prev_name.empty() && start > bom) {
            // leading whitespace: the previous name's value continues
            out.push_back({prev_name, section, lineno});
            continue;
        }
        if (c == '[') {
            std::size_t close = find_chars_or_comment(line, start + 1, "]");
            if (close < line.size() && line[close] == ']') {
                section = line.substr(start + 1, close - start - 1).substr(0, 49);  // MAX_SECTION 50
                prev_name.clear();
            }
            continue;
        }
        std::size_t sep = find_chars_or_comment(line, start, "=:");
        if (sep < line.size() && (line[sep] == '=' || line[sep] == ':')) {
            std::string name = rstrip(line.substr(start, sep - start));
            prev_name = name.substr(0, 49);  // strncpy0(prev_name, name, MAX_NAME 50)
            out.push_back({name, section, lineno});
        }
    }
    return out;
}

}  // namespace atl
