// IMEX channels: multi-node NVLink (NCCL's MNNVL, CUDA fabric memory) needs
// the job's user to open a channel device /dev/nvidia-caps-imex-channels/
// channelN, made by the NVIDIA driver (NVreg_CreateImexChannel0) or by
// nvidia-modprobe / Slurm's switch/nvidia_imex for the job. Without one NCCL
// falls back to the network between the nodes of one NVLink domain, and says
// so only at NCCL_DEBUG=INFO.
#pragma once

#include <istream>
#include <string>
#include <vector>

#include <sys/types.h>

namespace atl {

struct ImexChannels {
    std::string dir;                  // <dev_root>/nvidia-caps-imex-channels
    std::vector<std::string> usable;  // channelN the user may open (read and write), by N
    std::vector<std::string> refused; // "channelN: why" (not a character device, mode)
    std::string problem;              // the directory could not be read ("" when it is there or absent)
    bool dir_found = false;
};

// The channels under `dev_root` (default "/dev") that uid/gid (and `groups`)
// may open, judged from each entry's mode and owner as the kernel would for
// open(O_RDWR) (root may open any; ACLs and device cgroups are not seen). A
// channel is a character device of the major that `proc_root`/devices
// (default /proc) gives nvidia-caps-imex-channels, the driver's own region;
// any other device there (/dev/null's 1:3, a GPU's 195:N) is refused, and so
// is every entry when that file names no such region or cannot be read.
// Reads one directory, at most 256 entries and /proc/devices (64 KiB at
// most); never opens a device.
ImexChannels imex_channels(const std::string &dev_root, uid_t uid, gid_t gid, const std::vector<gid_t> &groups = {},
                           const std::string &proc_root = "");
// The major of `name` among the character devices of a /proc/devices text
// ("Character devices:" then "MAJOR NAME" lines), or -1.
long char_major(std::istream &proc_devices, const std::string &name);

// One line for a report: "channel0 usable", or why none is.
std::string imex_summary(const ImexChannels &c, uid_t uid);

}  // namespace atl
