// An nccl.conf as NCCL reads it.
#pragma once

#include <string>
#include <vector>

namespace atl {

// One variable line of an nccl.conf.
struct NcclConfLine {
    std::string name;
    std::string value;  // as NCCL 2.30 and later read it: a CR before the newline dropped
    bool cr = false;    // the line ended in CR LF: NCCL before 2.30 keeps the CR in the value
    int line = 0;       // the file's line it came from (1-based)
};

// The variable lines of an nccl.conf's text, in file order, read as NCCL's
// setEnvFile (src/misc/param.cc) reads them: fgets into a 4096-byte buffer,
// so a longer line is read as several, each parsed alone; each up to its
// first NUL byte (strlen); the newline dropped, then a CR before it (2.30
// and later); '#' in the first column a comment; the name verbatim up to the
// first '=' (at most 1023 bytes: " NCCL_X = 1" names " NCCL_X "), the value
// after it (at most 1023 bytes); a line without '=', or with '=' first, sets
// nothing. NCCL's setenv does not overwrite: the first line naming a
// variable wins, and the environment wins over every file.
std::vector<NcclConfLine> nccl_conf_lines(const std::string &text);
// The same as NCCL before 2.30 reads it (getline): each line whole, however
// long, so a line past 4095 bytes is one line, not several (NCCL keeps a
// CR: cr true, value without it, as above); the name up to the first '=',
// a NUL before it setting nothing.
std::vector<NcclConfLine> nccl_conf_lines_before_2_30(const std::string &text);

}  // namespace atl
