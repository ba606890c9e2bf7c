#include "node/imex.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>

#include <dirent.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

namespace atl {

namespace {

// "channelN" with N a decimal number without leading zeros: N, else -1
long channel_number(const char *name)
{
    if (std::strncmp(name, "channel", 7) != 0 || !name[7] || (name[7] == '0' && name[8]))
        return -1;
    char *end = nullptr;
    errno = 0;
    long n = std::strtol(name + 7, &end, 10);
    return *end || errno || n < 0 || name[7] == '-' || name[7] == '+' ? -1 : n;
}

}  // namespace

long char_major(std::istream &in, const std::string &name)
{
    std::string line;
    bool chars = false;
    while (std::getline(in, line)) {
        if (line.rfind("Character devices:", 0) == 0) {
            chars = true;
            continue;
        }
        if (line.find(':') != std::string::npos)  // "Block devices:"
            chars = false;
        if (!chars)
            continue;
        std::istringstream ss(line);
        long major = -1;
        std::string n, extra;
        if ((ss >> major >> n) && !(ss >> extra) && n == name && major >= 0 && major < 4096)
            return major;
    }
    return -1;
}

ImexChannels imex_channels(const std::string &dev_root, uid_t uid, gid_t gid, const std::vector<gid_t> &groups,
                           const std::string &proc_root)
{
    ImexChannels c;
    c.dir = (dev_root.empty() ? std::string("/dev") : dev_root) + "/nvidia-caps-imex-channels";
    std::unique_ptr<DIR, int (*)(DIR *)> d(opendir(c.dir.c_str()), closedir);
    if (!d) {
        if (errno != ENOENT)
            c.problem = c.dir + ": " + std::strerror(errno);
        return c;
    }
    c.dir_found = true;
    // the driver's region for IMEX channels: only its devices are channels
    const std::string devices = (proc_root.empty() ? std::string("/proc") : proc_root) + "/devices";
    long major = -1;
    std::string no_major;
    {
        std::ifstream f(devices);
        if (!f) {
            no_major = devices + " cannot be read (" + std::strerror(errno) + "): no device is known to be a channel";
        } else {
            std::string text(65536, '\0');
            f.read(&text[0], static_cast<std::streamsize>(text.size()));
            text.resize(static_cast<std::size_t>(f.gcount()));
            std::istringstream in(text);
            major = char_major(in, "nvidia-caps-imex-channels");
            if (major < 0)
                no_major = devices + " names no nvidia-caps-imex-channels (the driver made no IMEX channels)";
        }
    }
    std::vector<std::pair<long, std::string>> found;
    std::size_t seen = 0;
    while (struct dirent *e = readdir(d.get())) {
        long n = channel_number(e->d_name);
        if (n < 0)
            continue;
        if (++seen > 256)
            break;
        std::string name = e->d_name;
        struct stat st;
        if (stat((c.dir + "/" + name).c_str(), &st) != 0) {
            c.refused.push_back(name + ": " + std::strerror(errno));
            continue;
        }
        if (!S_ISCHR(st.st_mode)) {
            c.refused.push_back(name + ": not a character device");
            continue;
        }
        if (major < 0) {
            c.refused.push_back(name + ": " + no_major);
            continue;
        }
        if (static_cast<long>(::major(st.st_rdev)) != major) {
            c.refused.push_back(name + ": device " + std::to_string(::major(st.st_rdev)) + ":" +
                                std::to_string(::minor(st.st_rdev)) + " is not an IMEX channel (" + devices +
                                ": nvidia-caps-imex-channels is major " + std::to_string(major) + ")");
            continue;
        }
        bool ok;
        if (uid == 0)
            ok = true;
        else if (st.st_uid == uid)
            ok = (st.st_mode & (S_IRUSR | S_IWUSR)) == (S_IRUSR | S_IWUSR);
        else if (st.st_gid == gid || std::find(groups.begin(), groups.end(), st.st_gid) != groups.end())
            ok = (st.st_mode & (S_IRGRP | S_IWGRP)) == (S_IRGRP | S_IWGRP);
        else
            ok = (st.st_mode & (S_IROTH | S_IWOTH)) == (S_IROTH | S_IWOTH);
        if (ok) {
            found.push_back({n, name});
        } else {
            char mode[8];
            std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
            c.refused.push_back(name + ": mode " + mode + " owner " + std::to_string(st.st_uid) + ":" +
                                std::to_string(st.st_gid) + " does not let uid " + std::to_string(uid) + " open it");
        }
    }
    std::sort(found.begin(), found.end());
    for (auto &f : found)
        c.usable.push_back(f.second);
    return c;
}

std::string imex_summary(const ImexChannels &c, uid_t uid)
{
    if (!c.usable.empty())
        return "IMEX channel " + c.usable[0] + " in " + c.dir + " is usable by uid " + std::to_string(uid);
    if (!c.problem.empty())
        return "no usable IMEX channel (" + c.problem + ")";
    if (!c.dir_found)
        return "no IMEX channel: " + c.dir + " does not exist";
    if (!c.refused.empty())
        return "no IMEX channel uid " + std::to_string(uid) + " may open in " + c.dir + " (" + c.refused[0] +
               (c.refused.size() > 1 ? ", ..." : "") + ")";
    return "no IMEX channel in " + c.dir;
}

}  // namespace atl
