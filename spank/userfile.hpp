// Files a job's user names (NCCL_CONF_FILE, HOME/.nccl.conf), read where a
// stall cannot hold the caller. A user can point such a path at a FUSE file
// whose read never answers, or at a hung network file system: a process that
// reads it sits in the kernel, unkillable, and in slurmstepd that holds the
// step and leaves the node completing. So the caller never touches the path:
// a forked child opens and reads it, as the caller's effective user with no
// way back to root, and writes it back over a pipe; the caller waits with a
// deadline and, when it passes, kills the child and goes on without the file.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <sys/types.h>
#include <vector>

namespace atl {

struct UserFile {
    // NotAsUser: the child could not take `as`'s ids; ThroughProcess: the path
    // goes through a magic link of /proc (/proc/self/cwd, /dev/fd/N), so it
    // names a file of whichever process opens it
    enum class Status { Read, Unreadable, TimedOut, NotAsUser, ThroughProcess };
    Status status = Status::Unreadable;
    std::string text;  // Read: the first `max` bytes
    int error = 0;     // Unreadable: errno of open/read, EISDIR a directory (0: another file that is not
                       // regular, such as a device, a file of procfs, or no child)
};

// The first `max` bytes of the regular file `path`, read by a child process
// (open, fstat, read and write only: it is a copy of a multithreaded
// slurmstepd, so it allocates nothing and takes no lock) under the caller's
// effective uid and gid, set as real and saved ids too. The caller polls the
// pipe until `deadline`; past it, the child is sent SIGKILL and reaped if it
// dies at once, else left behind (one stuck in a FUSE request dies when the
// file system answers or goes away; init reaps it). A FIFO blocks the child's
// open and times out like any other stall. Never throws for the file's sake.
// With `as`, the child takes those ids instead (and their supplementary
// groups): root's tools reading a file as the job's user would
// (atoll-topo env --user).
struct ReadAs {
    uid_t uid = 0;
    gid_t gid = 0;
    std::vector<gid_t> groups;
};
UserFile read_user_file(const std::string &path, std::size_t max, std::chrono::steady_clock::time_point deadline,
                        const ReadAs *as = nullptr);

}  // namespace atl
