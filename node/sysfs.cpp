#include "node/sysfs.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace atl {
namespace {

std::vector<std::string> list_dir(const std::string &dir)
{
    std::vector<std::string> out;
    DIR *d = opendir(dir.c_str());
    if (!d)
        return out;
    while (struct dirent *e = readdir(d))
        if (e->d_name[0] != '.')
            out.push_back(e->d_name);
    closedir(d);
    std::sort(out.begin(), out.end(), [](const std::string &a, const std::string &b) {
        return a.size() != b.size() ? a.size() < b.size() : a < b;  // 2 before 10
    });
    return out;
}

std::string read_line(const std::string &path)
{
    std::string s = read_small_file(path, 4096).value_or("");
    return s.substr(0, s.find('\n'));
}

}  // namespace

std::optional<std::string> read_small_file(const std::string &path, std::size_t max)
{
    int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return std::nullopt;
    struct stat st;
    std::optional<std::string> out;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        std::string s(max, '\0');
        std::size_t got = 0;
        while (got < max) {
            ssize_t n = ::read(fd, &s[got], max - got);
            if (n <= 0)
                break;
            got += static_cast<std::size_t>(n);
        }
        s.resize(got);
        out = s;
    }
    ::close(fd);
    return out;
}

std::vector<NodePort> node_ports(const std::string &sysfs_root)
{
    std::vector<NodePort> out;
    std::string base = sysfs_root + "/class/infiniband";
    for (const std::string &dev : list_dir(base)) {
        for (const std::string &p : list_dir(base + "/" + dev + "/ports")) {
            std::string dir = base + "/" + dev + "/ports/" + p;
            NodePort np;
            np.hca = dev;
            np.port = std::atoi(p.c_str());
            np.link_layer = read_line(dir + "/link_layer");
            np.state = read_line(dir + "/state");
            np.rate = read_line(dir + "/rate");
            for (const std::string &i : list_dir(dir + "/gid_attrs/ndevs")) {
                std::string nd = read_line(dir + "/gid_attrs/ndevs/" + i);
                if (!nd.empty() && std::find(np.netdevs.begin(), np.netdevs.end(), nd) == np.netdevs.end())
                    np.netdevs.push_back(nd);
            }
            if (np.netdevs.empty())
                np.netdevs = list_dir(base + "/" + dev + "/device/net");
            if (np.link_layer == "Ethernet")
                for (const std::string &i : list_dir(dir + "/gid_attrs/types")) {
                    std::string gid = read_line(dir + "/gids/" + i);
                    bool unset = gid.empty() || gid.find_first_not_of("0:") == std::string::npos;
                    if (read_line(dir + "/gid_attrs/types/" + i).rfind("RoCE v2", 0) == 0 && !unset) {
                        np.roce_v2_gid_index = std::atoi(i.c_str());
                        np.roce_v2_gid = gid;
                        break;
                    }
                }
            // mlx5: "Global tclass=106" once set (cma_roce_tos or the tc file itself)
            std::string tc = read_line(base + "/" + dev + "/tc/" + p + "/traffic_class");
            std::size_t at = tc.find("tclass=");
            if (at != std::string::npos) {
                int v = std::atoi(tc.c_str() + at + 7);
                if (v >= 0 && v <= 255)
                    np.traffic_class = v;
            }
            out.push_back(np);
        }
    }
    return out;
}

std::map<int, std::string> nvidia_gpus(const std::string &proc_root)
{
    std::map<int, std::string> out;
    std::string base = proc_root + "/driver/nvidia/gpus";
    for (const std::string &bus : list_dir(base)) {
        std::string text = read_small_file(base + "/" + bus + "/information", 8192).value_or("");
        std::size_t at = text.find("Device Minor:");
        if (at == std::string::npos)
            continue;
        int minor = std::atoi(text.c_str() + at + 13);
        std::string id = bus;
        for (char &c : id)
            c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (minor >= 0 && minor < 4096)
            out[minor] = id;
    }
    return out;
}

}  // namespace atl
