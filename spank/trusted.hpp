// Files slurmstepd reads as root (the view, the fabric file, hwloc's XML).
#pragma once

#include <cstddef>
#include <string>

#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

namespace atl {

// A file slurmstepd reads as root, opened once and checked on the open
// descriptor: the path is absolute and walked from "/" one component at a
// time (openat, O_NOFOLLOW), every directory owned by root (or `owner`) and
// writable by nobody else (a root-owned sticky directory such as /tmp
// excepted), a symbolic link followed only when root (or `owner`) owns it; the
// file itself a regular file owned by root (or `owner`), writable by nobody
// else. Whatever the effective uid. Returns the descriptor (close it) and its
// fstat; throws std::runtime_error naming `what`, the path and the reason.
int open_trusted(const std::string &path, const std::string &what, struct stat &st, uid_t owner = 0);
// The whole file behind `fd`, at most `max` bytes (std::runtime_error beyond).
std::string read_trusted(int fd, const std::string &path, std::size_t max);

// An owned file descriptor, closed on destruction.
struct Fd {
    int fd = -1;
    Fd() = default;
    explicit Fd(int f) : fd(f) {}
    Fd(const Fd &) = delete;
    Fd &operator=(const Fd &) = delete;
    Fd(Fd &&o) noexcept : fd(o.fd) { o.fd = -1; }
    ~Fd()
    {
        if (fd >= 0)
            ::close(fd);
    }
    int release()
    {
        int f = fd;
        fd = -1;
        return f;
    }
};

}  // namespace atl
