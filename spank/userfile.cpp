#include "spank/userfile.hpp"

#include <cerrno>
#include <csignal>
#include <ctime>
#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace atl {
namespace {

using Clock = std::chrono::steady_clock;

// The child's first byte: 0 and the file follow, or why not.
constexpr unsigned char not_regular = 255;
constexpr unsigned char not_as_user = 254;
constexpr unsigned char through_process = 253;

bool write_all(int fd, const char *p, std::size_t n)
{
    while (n > 0) {
        ssize_t k = ::write(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return false;
        p += k;
        n -= static_cast<std::size_t>(k);
    }
    return true;
}

// After fork, in a copy of a process whose other threads may hold any lock:
// system calls only, no allocation, no C++ library, and _exit. Every signal
// is blocked (the caller's mask), so no handler of the parent's runs here.
[[noreturn]] void reader_child(const char *path, std::size_t max, int out, int open_max, const ReadAs *as)
{
    prctl(PR_SET_NAME, "atoll-reader", 0, 0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    // Nothing of the caller's but the pipe: a child stuck in the kernel
    // would otherwise hold the caller's descriptors open (its stdout and
    // stderr, so that whoever reads them waits for the child; in
    // slurmstepd, the step's). 0-2 become /dev/null, the pipe 3, the rest go.
    if (out < 3) {
        int o = fcntl(out, F_DUPFD, 3);
        if (o < 0)
            _exit(1);
        out = o;
    }
    int nul = ::open("/dev/null", O_RDWR);
    if (nul < 0)
        _exit(1);
    for (int fd = 0; fd < 3; ++fd)
        if (nul != fd && dup2(nul, fd) != fd)
            _exit(1);
    if (out != 3) {
        if (dup2(out, 3) != 3)
            _exit(1);
        out = 3;
    }
    if (syscall(SYS_close_range, 4u, ~0u, 0u) != 0)
        for (int fd = 4; fd < open_max; ++fd)
            ::close(fd);  // before Linux 5.9
    // The caller's effective ids as real and saved ones too (slurmstepd runs
    // user_init as the job's user with root's real uid): the child can never
    // become root again. Raw system calls: glibc's wrappers would signal the
    // parent's threads, which the child does not have.
    unsigned char status = 0;
    uid_t u = as ? as->uid : geteuid();
    gid_t g = as ? as->gid : getegid();
    // (the vector's data() and size() read two pointers: no allocation)
    if ((as && syscall(SYS_setgroups, as->groups.size(), as->groups.data()) != 0) || syscall(SYS_setresgid, g, g, g) != 0 ||
        syscall(SYS_setresuid, u, u, u) != 0) {
        status = not_as_user;
        write_all(out, reinterpret_cast<const char *>(&status), 1);
        _exit(1);
    }
    struct stat st;
    // A path through a magic link of /proc (/proc/self/cwd, /dev/fd/N, as
    // a symlink of the user's may lead) names a file of whichever process
    // opens it: this child's, not NCCL's in the task (helper 48: a link to
    // /proc/self/cwd/.nccl.conf read as absent, and atoll's NCCL_IB_HCA
    // overrode the user's file). The kernel refuses such a walk
    // (RESOLVE_NO_MAGICLINKS, Linux 5.6): where plain open then opens it,
    // or fails for another reason than a loop (no such file in this
    // child's working directory, which the task's may have), the path went
    // through one; a kernel without openat2 (or a seccomp filter refusing
    // it) gets plain open alone.
    int fd = -1;
#ifdef SYS_openat2
    struct open_how how {};
    how.flags = O_RDONLY | O_NOCTTY | O_CLOEXEC;
    how.resolve = RESOLVE_NO_MAGICLINKS;
    fd = static_cast<int>(syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how));
    if (fd < 0 && errno == ELOOP) {
        int plain = ::open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC);
        if (plain >= 0 || errno != ELOOP) {
            status = through_process;
            write_all(out, reinterpret_cast<const char *>(&status), 1);
            _exit(0);
        }
        errno = ELOOP;  // a loop of symlinks: NCCL's fopen fails too
    } else if (fd < 0 && (errno == ENOSYS || errno == EPERM)) {
        fd = ::open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC);
    }
#else
    fd = ::open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC);
#endif
    if (fd < 0 || fstat(fd, &st) != 0)
        status = static_cast<unsigned char>(errno > 0 && errno < not_as_user ? errno : EIO);
    else if (S_ISDIR(st.st_mode))
        status = EISDIR;  // as NCCL's fgets finds it: nothing
    else if (!S_ISREG(st.st_mode))
        status = not_regular;
    else {
        // a file of procfs reads what the process opening it is (its
        // environ, its descriptors): this child's, not the task's
        struct statfs fs;
        if (fstatfs(fd, &fs) != 0 || fs.f_type == PROC_SUPER_MAGIC)
            status = not_regular;
    }
    if (!write_all(out, reinterpret_cast<const char *>(&status), 1) || status != 0)
        _exit(0);
    char buf[4096];
    while (max > 0) {
        ssize_t n = ::read(fd, buf, max < sizeof buf ? max : sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0 || !write_all(out, buf, static_cast<std::size_t>(n)))
            break;
        max -= static_cast<std::size_t>(n);
    }
    _exit(0);
}

int ms_left(Clock::time_point deadline)
{
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    return left <= 0 ? 0 : left > 1000000 ? 1000000 : static_cast<int>(left);
}

// Reaps the child if it is gone within about `ms`; else leaves it.
bool reap(pid_t pid, int ms)
{
    for (int i = 0;; ++i) {
        int st;
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid || (w < 0 && errno != EINTR))
            return true;  // reaped (ECHILD: SIGCHLD ignored, the kernel did)
        if (i >= ms)
            return false;
        struct timespec one_ms = {0, 1000000};
        nanosleep(&one_ms, nullptr);
    }
}

}  // namespace

UserFile read_user_file(const std::string &path, std::size_t max, Clock::time_point deadline, const ReadAs *as)
{
    UserFile r;
    if (ms_left(deadline) == 0) {
        r.status = UserFile::Status::TimedOut;
        return r;
    }
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0) {
        r.error = errno;
        return r;
    }
    const char *cpath = path.c_str();
    // the child's descriptor bound, for a kernel without close_range
    struct rlimit nofile{};
    int open_max = getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur != RLIM_INFINITY && nofile.rlim_cur < (1u << 20)
                       ? static_cast<int>(nofile.rlim_cur)
                       : 1 << 20;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pid_t pid = fork();
    if (pid == 0) {
        ::close(p[0]);
        reader_child(cpath, max, p[1], open_max, as);
    }
    int fork_errno = errno;
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    ::close(p[1]);
    if (pid < 0) {
        ::close(p[0]);
        r.error = fork_errno;
        return r;
    }
    std::string got;  // the status byte, then the file
    bool eof = false;
    char buf[4096];
    while (!eof && got.size() <= max + 1) {  // the child writes no more
        struct pollfd pfd = {p[0], POLLIN, 0};
        int n = poll(&pfd, 1, ms_left(deadline));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;  // the deadline (or poll failing): the child is stuck
        ssize_t k = ::read(p[0], buf, sizeof buf);
        if (k < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (k <= 0)
            eof = true;
        else
            got.append(buf, static_cast<std::size_t>(k));
    }
    ::close(p[0]);
    if (!eof) {
        kill(pid, SIGKILL);
        reap(pid, 50);  // one stuck in the kernel does not die: left to init
        r.status = UserFile::Status::TimedOut;
        return r;
    }
    if (!reap(pid, 200))
        kill(pid, SIGKILL);  // past its _exit; cannot happen
    if (got.empty())
        return r;  // the child died before saying anything
    unsigned char status = static_cast<unsigned char>(got[0]);
    if (status == not_as_user) {
        r.status = UserFile::Status::NotAsUser;
        return r;
    }
    if (status == through_process) {
        r.status = UserFile::Status::ThroughProcess;
        return r;
    }
    if (status != 0) {
        r.error = status == not_regular ? 0 : status;
        return r;
    }
    r.status = UserFile::Status::Read;
    r.text = got.substr(1, max);
    return r;
}

}  // namespace atl
