// A ucx.conf as UCX reads it.
#pragma once

#include <string>
#include <vector>

namespace atl {

// One variable line of a ucx.conf.
struct UcxConfLine {
    std::string name;  // as UCX looks it up: the full variable name (UCX_NET_DEVICES)
    std::string section;
    int line = 0;  // the read it came from (1-based; a line longer than 199 bytes is several)
};

// The variable lines of a ucx.conf's text, in file order, as UCX's
// ucs_config_parse_config_file() reads them with its bundled inih
// (src/ucs/config/ini.c, INI_MAX_LINE 200, multi-line and inline comments
// on): fgets into a 200-byte buffer, so a longer line is read as several,
// each parsed alone and each up to its first NUL; a UTF-8 BOM first skipped;
// whitespace stripped at both ends; ';' or '#' first a comment; "[name]" a
// section; a line that begins with whitespace continues the previous name's
// value (and sets that name again); "name = value" or "name : value" (the
// first '=' or ':', unless a ';' after whitespace comes first) sets `name`,
// trimmed. Sections filter by CPU and machine (CPU vendor, CPU model, DMI
// product name); their lines are all returned, with the section named.
std::vector<UcxConfLine> ucx_conf_lines(const std::string &text);

}  // namespace atl
