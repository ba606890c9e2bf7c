// Files slurmstepd reads as root: opened once, checked on the descriptor.
#include "spank/trusted.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <deque>
#include <fcntl.h>
#include <unistd.h>
#include <vector>

namespace atl {

namespace {

bool trusted_owner(uid_t uid, uid_t owner) { return uid == 0 || uid == owner; }

std::string owner_text(uid_t owner)
{
    return owner == 0 ? "root" : "root or uid " + std::to_string(owner);
}

}  // namespace

int open_trusted(const std::string &path, const std::string &what, struct stat &st, uid_t owner)
{
    auto refuse = [&](const std::string &where, const std::string &why) -> void {
        throw std::runtime_error(what + " " + path + ": refused: " + where + why);
    };
    // errno as the message; EACCES says whose read failed: slurmstepd reads
    // these as the job's user (user_init runs under its euid), not as root
    auto failed = [&](const std::string &where) -> void {
        int e = errno;
        std::string m = what + " " + path + ": " + where + std::strerror(e);
        if (e == EACCES)
            m += ": not readable by uid " + std::to_string(geteuid()) +
                 " (slurmstepd reads it as the job's user): make it world-readable (0644, its directories 0755)";
        throw std::runtime_error(m);
    };
    if (path.empty() || path[0] != '/')
        refuse("", "expected an absolute path");
    std::deque<std::string> comps;
    auto push_path = [&](const std::string &p, bool front) {
        std::vector<std::string> parts;
        std::size_t i = 0;
        while (i <= p.size()) {
            std::size_t j = p.find('/', i);
            if (j == std::string::npos)
                j = p.size();
            std::string c = p.substr(i, j - i);
            if (!c.empty() && c != ".")
                parts.push_back(c);
            i = j + 1;
        }
        if (front)
            comps.insert(comps.begin(), parts.begin(), parts.end());
        else
            comps.insert(comps.end(), parts.begin(), parts.end());
    };
    push_path(path, false);
    std::vector<Fd> dirs;
    std::vector<std::string> names;  // the directories walked, for messages
    auto open_root = [&]() {
        dirs.clear();
        names.clear();
        dirs.emplace_back(::open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
        names.push_back("/");
    };
    auto check_dir = [&]() {
        struct stat ds;
        if (dirs.back().fd < 0 || fstat(dirs.back().fd, &ds) != 0)
            failed("");
        if (!trusted_owner(ds.st_uid, owner))
            refuse("directory " + names.back(), " is owned by uid " + std::to_string(ds.st_uid) + ", expected " + owner_text(owner));
        if ((ds.st_mode & (S_IWGRP | S_IWOTH)) && !((ds.st_mode & S_ISVTX) && ds.st_uid == 0))
            refuse("directory " + names.back(), " is writable by someone other than root");
    };
    open_root();
    check_dir();
    int links = 0;
    while (!comps.empty()) {
        std::string c = comps.front();
        comps.pop_front();
        if (c == "..") {
            if (dirs.size() > 1) {
                dirs.pop_back();
                names.pop_back();
            }
            continue;
        }
        std::string here = (names.back() == "/" ? "/" : names.back() + "/") + c;
        struct stat ls;
        if (fstatat(dirs.back().fd, c.c_str(), &ls, AT_SYMLINK_NOFOLLOW) != 0)
            failed("");
        if (S_ISLNK(ls.st_mode)) {
            if (!trusted_owner(ls.st_uid, owner))
                refuse("symbolic link " + here, " is owned by uid " + std::to_string(ls.st_uid) + ", expected " + owner_text(owner));
            if (++links > 16)
                refuse("", "more than 16 symbolic links");
            std::vector<char> buf(4096);
            ssize_t n = readlinkat(dirs.back().fd, c.c_str(), buf.data(), buf.size() - 1);
            if (n < 0)
                failed(here + ": ");
            std::string target(buf.data(), static_cast<std::size_t>(n));
            if (!target.empty() && target[0] == '/') {
                open_root();
                check_dir();
            }
            push_path(target, true);
            continue;
        }
        if (!comps.empty()) {
            int fd = openat(dirs.back().fd, c.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (fd < 0)
                failed(here + ": ");
            dirs.emplace_back(fd);
            names.push_back(here);
            check_dir();
            continue;
        }
        // the file itself: never blocks (a FIFO is refused below), never a link
        Fd f(openat(dirs.back().fd, c.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY));
        if (f.fd < 0)
            failed("");
        if (fstat(f.fd, &st) != 0)
            failed("");
        if (!S_ISREG(st.st_mode))
            refuse("", "not a regular file");
        if (!trusted_owner(st.st_uid, owner))
            refuse("", "owned by uid " + std::to_string(st.st_uid) + ", expected " + owner_text(owner));
        if (st.st_mode & (S_IWGRP | S_IWOTH))
            refuse("", "writable by someone other than root");
        int flags = fcntl(f.fd, F_GETFL);
        if (flags >= 0)
            fcntl(f.fd, F_SETFL, flags & ~O_NONBLOCK);
        return f.release();
    }
    refuse("", "it names a directory, expected a file");
    return -1;
}

std::string read_trusted(int fd, const std::string &path, std::size_t max)
{
    std::string data;
    char buf[65536];
    for (;;) {
        ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            throw std::runtime_error(path + ": read failed: " + std::strerror(errno));
        if (n == 0)
            break;
        if (data.size() + static_cast<std::size_t>(n) > max)
            throw std::runtime_error(path + ": refused: larger than " + std::to_string(max >> 20) + " MiB");
        data.append(buf, static_cast<std::size_t>(n));
    }
    return data;
}

}  // namespace atl
