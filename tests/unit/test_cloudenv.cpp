// Each cloud's own NCCL environment: the table of what the stacks set (values
// from aws-ofi-nccl src/platform-aws.cpp, azhpc-images' customizations,
// cluster-toolkit's gIB examples, oci-hpc's nccl-conf templates), the
// nccl.conf reader on the images' real files, the aws-ofi-nccl release in a
// library's bytes, the expected-profile checks and the adapters a cloud's
// rules pick from the node's ports (docs/cloud-profiles.md has the sources).
#include "catch.hpp"

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

#include "node/cloudenv.hpp"
#include "node/ncclconf.hpp"
#include "testdata.hpp"
#include "topology/fabric.hpp"

using namespace atl;

namespace {

std::map<std::string, std::string> conf_file(const std::string &name)
{
    std::ifstream in(test_data("cloudenv/" + name));
    REQUIRE(in);
    return parse_nccl_conf(in, name);
}

NodePort port(const std::string &hca, const std::string &ll, const std::string &state = "4: ACTIVE")
{
    NodePort p;
    p.hca = hca;
    p.port = 1;
    p.link_layer = ll;
    p.state = state;
    return p;
}

// ND v5 as the Azure HPC image names it: mlx5_ib0..7 InfiniBand, mlx5_an0 the
// accelerated-networking VF (Ethernet), azure_persistent_rdma_naming.sh
std::vector<NodePort> ndv5_ports()
{
    std::vector<NodePort> v;
    v.push_back(port("mlx5_an0", "Ethernet"));
    for (int i = 0; i < 8; ++i)
        v.push_back(port("mlx5_ib" + std::to_string(i), "InfiniBand"));
    return v;
}

std::vector<NodePort> a3ultra_ports()
{
    std::vector<NodePort> v;
    for (int i = 0; i < 8; ++i)
        v.push_back(port("mlx5_" + std::to_string(i), "Ethernet"));
    return v;
}

}  // namespace

// ROOT + REL with REL's directories made
static std::string make_parents(const std::string &root, const std::string &rel)
{
    std::string path = root + rel;
    for (std::size_t s = path.find('/', root.size() + 1); s != std::string::npos; s = path.find('/', s + 1))
        mkdir(path.substr(0, s).c_str(), 0755);
    return path;
}

TEST_CASE("every cloud profile is in the table, and an unknown name is none of them", "[cloudenv]")
{
    for (const char *p : {"aws", "azure", "gcp", "oci", "nebius"})
        CHECK(cloud_profile(p) != nullptr);
    CHECK(cloud_profile("ib") == nullptr);
    CHECK(cloud_profile("") == nullptr);
}

TEST_CASE("atoll refrains from what aws-ofi-nccl sets itself, by instance type", "[cloudenv]")
{
    // env_manager insert_envvar calls in platform-aws.cpp and nccl_ofi_net.cpp
    CHECK(cloud_refrains("aws", "FI_EFA_FORK_SAFE") != "");
    CHECK(cloud_refrains("aws", "NCCL_PROTO") != "");
    CHECK(cloud_refrains("aws", "NCCL_TOPO_FILE", "p4d.24xlarge") != "");
    CHECK(cloud_refrains("aws", "NCCL_BUFFSIZE", "p5.48xlarge").find("=8388608") != std::string::npos);
    // NCCL_NETDEVS_POLICY=max:1 is in the p5en/p6-b200 entry only
    CHECK(cloud_refrains("aws", "NCCL_NETDEVS_POLICY", "p5en.48xlarge") != "");
    CHECK(cloud_refrains("aws", "NCCL_NETDEVS_POLICY", "p5.48xlarge") == "");
    // p3dn's entry has no env: its buffer size is the user's (and atoll's) to set
    CHECK(cloud_refrains("aws", "NCCL_BUFFSIZE", "p3dn.24xlarge") == "");
    // unknown type: every variable the plugin may set counts
    CHECK(cloud_refrains("aws", "NCCL_NETDEVS_POLICY") != "");
    // aws-ofi-nccl never sets NCCL_IB_HCA: ATOLL_* and the like stay atoll's
    CHECK(cloud_refrains("aws", "ATOLL_ISLAND") == "");
}

TEST_CASE("atoll refrains from the Azure image's nccl.conf variables and keeps NCCL_IB_HCA", "[cloudenv]")
{
    CHECK(cloud_refrains("azure", "NCCL_TOPO_FILE") != "");
    CHECK(cloud_refrains("azure", "NCCL_IB_PCI_RELAXED_ORDERING") != "");
    CHECK(cloud_refrains("azure", "NCCL_IGNORE_CPU_AFFINITY") != "");
    CHECK(cloud_refrains("azure", "NCCL_IB_HCA") == "");
    // NCCL_SOCKET_IFNAME=eth0 only on NCv6 (ncv6.sh)
    CHECK(cloud_refrains("azure", "NCCL_SOCKET_IFNAME", "Standard_ND96isr_H100_v5") == "");
    CHECK(cloud_refrains("azure", "NCCL_SOCKET_IFNAME", "standard_nc128ds_rtxpro6000bse_v6") != "");
}

TEST_CASE("on a gIB machine atoll leaves the RoCE class, FIFO class, GID and cross-NIC to set_nccl_env.sh", "[cloudenv]")
{
    for (const char *v : {"NCCL_IB_TC", "NCCL_IB_FIFO_TC", "NCCL_IB_GID_INDEX", "NCCL_CROSS_NIC", "NCCL_NET"})
        CHECK(cloud_refrains("gcp", v, "a3-ultragpu-8g") != "");
    CHECK(cloud_refrains("gcp", "NCCL_IB_TC", "a3-ultragpu-8g").find("=52") != std::string::npos);
    CHECK(cloud_refrains("gcp", "NCCL_IB_FIFO_TC", "projects/1/machineTypes/a4-highgpu-8g").find("=84") != std::string::npos);
    // A3 Mega is TCPXO: no gIB class, its own FASTRAK variables
    CHECK(cloud_refrains("gcp", "NCCL_IB_TC", "a3-megagpu-8g") == "");
    CHECK(cloud_refrains("gcp", "NCCL_FASTRAK_IFNAME", "a3-megagpu-8g") != "");
}

TEST_CASE("on OCI atoll leaves GID index 3, class 41 and the shape's NIC list to the image's nccl.conf", "[cloudenv]")
{
    CHECK(cloud_refrains("oci", "NCCL_IB_GID_INDEX").find("=3") != std::string::npos);
    CHECK(cloud_refrains("oci", "NCCL_IB_TC").find("=41") != std::string::npos);
    CHECK(cloud_refrains("oci", "NCCL_IB_HCA") != "");
    CHECK(cloud_refrains("oci", "NCCL_IB_QPS_PER_CONNECTION") != "");
    CHECK(cloud_refrains("nebius", "NCCL_IB_HCA") == "");
}

TEST_CASE("the Azure and OCI images' nccl.conf files read as NCCL reads them", "[cloudenv]")
{
    auto nd = conf_file("azure-ndv5.nccl.conf");
    CHECK(nd.size() == 3);
    CHECK(nd.at("NCCL_TOPO_FILE") == "/opt/microsoft/ndv5/topo.xml");
    CHECK(nd.at("NCCL_IB_PCI_RELAXED_ORDERING") == "1");
    auto oci = conf_file("oci-h100.nccl.conf");
    CHECK(oci.at("NCCL_IB_TC") == "41");
    // NCCL_IB_HCA==mlx5_0,...: the name ends at the first '=', the value keeps the exact-match '='
    CHECK(oci.at("NCCL_IB_HCA").substr(0, 8) == "=mlx5_0,");
    SECTION("comments in the first column only, the first line of a name wins, a CR dropped and noted")
    {
        std::istringstream in("# NCCL_A=1\n #x=2\nNCCL_B=one\r\nNCCL_B=two\nnoequals\n=x\n");
        std::set<std::string> cr;
        auto m = parse_nccl_conf(in, "t.conf", &cr);
        CHECK(m.size() == 2);
        CHECK(m.at(" #x") == "2");
        CHECK(m.at("NCCL_B") == "one");
        CHECK(cr == std::set<std::string>{"NCCL_B"});
    }
    SECTION("read as NCCL reads it: a NUL ends a line, a long line comes in 4095-byte pieces")
    {
        // (helper 30: a NUL or a line over 4096 bytes was refused, and health
        // then checked none of the file's class, which every job's NCCL takes)
        std::istringstream in(std::string("A=1\nB=\0x\n", 9) + "#" + std::string(5000, 'c') + "\nNCCL_IB_TC=41\n");
        auto m = parse_nccl_conf(in, "t.conf");
        CHECK(m.at("A") == "1");
        CHECK(m.at("B") == "");
        CHECK(m.at("NCCL_IB_TC") == "41");
    }
}

TEST_CASE("the aws-ofi-nccl release is read from the library's PACKAGE_STRING and compared", "[cloudenv]")
{
    // `strings libnccl-net.so` on an EFA installer's plugin, as a user quoted it
    CHECK(ofi_nccl_version_in(std::string("\x7f" "ELF\0\0NET/OFI Initializing aws-ofi-nccl 1.18.0-aws\0", 50)) == "1.18.0");
    CHECK(ofi_nccl_version_in("aws-ofi-nccl \0aws-ofi-nccl 1.21.1") == "");  // the literal ends at the NUL
    CHECK(ofi_nccl_version_in(std::string("aws-ofi-nccl x\0aws-ofi-nccl 1.21.1\n", 35)) == "1.21.1");
    CHECK(ofi_nccl_version_in("aws-ofi-nccl 1.") == "");
    CHECK(ofi_nccl_version_in("aws-ofi-nccl 1.21") == "");  // cut after the digits: maybe 1.21.1
    CHECK(ofi_nccl_version_in(std::string("aws-ofi-nccl 1.21\0", 18)) == "1.21");
    CHECK(compare_versions("1.7.0", "1.13.0") < 0);
    CHECK(compare_versions("1.13.2-aws", "1.13.0") > 0);
    CHECK(compare_versions("1.14", "1.14.0") == 0);
    // the first release whose platform table names the type (git tags of aws/aws-ofi-nccl)
    CHECK(ofi_nccl_minimum("p5.48xlarge") == "1.7.0");
    CHECK(ofi_nccl_minimum("p5e.48xlarge") == "1.11.0");
    CHECK(ofi_nccl_minimum("p5en.48xlarge") == "1.13.0");
    CHECK(ofi_nccl_minimum("p6-b200.48xlarge") == "1.14.0");
    CHECK(ofi_nccl_minimum("c5.large") == "");
}

TEST_CASE("an old aws-ofi-nccl on a P5 is an error, a new one passes, none is an error", "[cloudenv]")
{
    CloudNode n;
    n.machine_type = "p5.48xlarge";
    n.ofi_nccl_library = "/opt/amazon/ofi-nccl/lib/libnccl-net.so";
    n.ofi_nccl_version = "1.6.0";
    auto f = check_cloud_profile("aws", n, {});
    REQUIRE(f.size() == 1);
    CHECK(f[0].level == CloudFinding::Error);
    CHECK(f[0].message.find("older than 1.7.0") != std::string::npos);
    n.ofi_nccl_version = "1.18.0";
    CHECK(check_cloud_profile("aws", n, {})[0].level == CloudFinding::Ok);
    n.ofi_nccl_version = "";
    CHECK(check_cloud_profile("aws", n, {})[0].level == CloudFinding::Warning);
    n.ofi_nccl_library = "";
    CHECK(check_cloud_profile("aws", n, {})[0].level == CloudFinding::Error);
    n.machine_type = "";
    CHECK(check_cloud_profile("aws", n, {})[0].level == CloudFinding::Skipped);
}

TEST_CASE("Azure ND without the image's NCCL_TOPO_FILE is found, GB200 (no topology file) is not asked for one", "[cloudenv]")
{
    CloudNode n;
    n.machine_type = "Standard_ND96isr_H100_v5";
    CHECK(check_cloud_profile("azure", n, ndv5_ports())[0].level == CloudFinding::Error);
    n.nccl_conf_present = true;
    n.nccl_conf = conf_file("azure-ndv5.nccl.conf");
    CHECK(check_cloud_profile("azure", n, ndv5_ports())[0].level == CloudFinding::Ok);
    // ndv6.sh (gb-family) writes no nccl.conf
    n.machine_type = "Standard_ND128isr_GB200_v6";
    n.nccl_conf.clear();
    CHECK(check_cloud_profile("azure", n, ndv5_ports())[0].level == CloudFinding::Skipped);
    SECTION("without the VM size, 8 InfiniBand ports make it a warning")
    {
        n.machine_type = "";
        auto f = check_cloud_profile("azure", n, ndv5_ports());
        CHECK(f[0].level == CloudFinding::Warning);
        CHECK(f[0].message.find("sets no NCCL_TOPO_FILE") != std::string::npos);
        CHECK(check_cloud_profile("azure", n, {port("mlx5_ib0", "InfiniBand")})[0].level == CloudFinding::Skipped);
    }
}

TEST_CASE("GCP's gIB machine types need the gIB profile, A3 Mega the TCPXO one", "[cloudenv]")
{
    CloudNode n;
    n.machine_type = "a3-ultragpu-8g";
    auto f = check_cloud_profile("gcp", n, a3ultra_ports());
    CHECK(f[0].level == CloudFinding::Error);
    CHECK(f[0].message.find("no gIB profile") != std::string::npos);
    n.gib_env_script = n.gib_plugin = true;
    CHECK(check_cloud_profile("gcp", n, a3ultra_ports())[0].level == CloudFinding::Ok);
    n.machine_type = "a3-megagpu-8g";
    CHECK(check_cloud_profile("gcp", n, {})[0].level == CloudFinding::Error);
    n.tcpxo_profile = true;
    CHECK(check_cloud_profile("gcp", n, {})[0].level == CloudFinding::Ok);
    n.machine_type = "n2-standard-8";
    CHECK(check_cloud_profile("gcp", n, {})[0].level == CloudFinding::Skipped);
    SECTION("without the machine type, RoCE mlx5 NICs show a gIB machine: a warning")
    {
        CloudNode m;
        CHECK(check_cloud_profile("gcp", m, a3ultra_ports())[0].level == CloudFinding::Warning);
        CHECK(check_cloud_profile("gcp", m, {})[0].level == CloudFinding::Skipped);
    }
}

TEST_CASE("OCI without the image's RoCE settings warns, naming what is missing", "[cloudenv]")
{
    CloudNode n;
    auto f = check_cloud_profile("oci", n, a3ultra_ports());
    CHECK(f[0].level == CloudFinding::Warning);
    CHECK(f[0].message.find("NCCL_IB_GID_INDEX, NCCL_IB_TC, NCCL_IB_HCA") != std::string::npos);
    n.nccl_conf_present = true;
    n.nccl_conf = conf_file("oci-h100.nccl.conf");
    CHECK(check_cloud_profile("oci", n, a3ultra_ports())[0].level == CloudFinding::Ok);
}

TEST_CASE("Azure's compute adapters are the InfiniBand ports, never mlx5_an0", "[cloudenv]")
{
    CloudAdapters a = cloud_adapters("azure", ndv5_ports(), "Standard_ND96isr_H100_v5");
    REQUIRE(a.ports.size() == 8);
    CHECK(a.ports[0] == std::make_pair(std::string("mlx5_ib0"), 1));
    REQUIRE(a.left_out.size() == 1);
    CHECK(a.left_out[0].find("mlx5_an0 port 1: accelerated networking") == 0);
    SECTION("a port down on an 8-NIC VM size: refused, the lists would differ between nodes")
    {
        auto p = ndv5_ports();
        p[3].state = "1: DOWN";
        CloudAdapters b = cloud_adapters("azure", p, "Standard_ND96isr_H100_v5");
        CHECK(b.ports.empty());
        CHECK(b.why.find("has 8 compute NICs and 7 are active") != std::string::npos);
        // without the VM size how many it has is not known: a list of the
        // seven active ones may differ from the other nodes' (helper 23)
        CloudAdapters c = cloud_adapters("azure", p);
        CHECK(c.ports.empty());
        CHECK(c.why.find("azure: 1 of 8 compute ports not active here (mlx5_ib2 port 1: 1: DOWN), and the machine type") == 0);
    }
    SECTION("an mlx5_an name on an InfiniBand port: refused")
    {
        auto p = ndv5_ports();
        p[0].link_layer = "InfiniBand";
        CloudAdapters b = cloud_adapters("azure", p);
        CHECK(b.ports.empty());
        CHECK(b.why.find("mlx5_an0 port 1 is named as Azure's accelerated-networking device") == 0);
    }
    SECTION("no InfiniBand port (an NC VM): refused")
    {
        CloudAdapters b = cloud_adapters("azure", {port("mlx5_an0", "Ethernet")});
        CHECK(b.ports.empty());
        CHECK(b.why == "azure: no active InfiniBand port taken (mlx5_an0 port 1: accelerated networking (Ethernet))");
    }
}

TEST_CASE("GCP's compute adapters are the RoCE mlx5 NICs of a gIB machine", "[cloudenv]")
{
    auto p = a3ultra_ports();
    p.push_back(port("irdma0", "Ethernet"));
    CloudAdapters a = cloud_adapters("gcp", p, "a3-ultragpu-8g");
    CHECK(a.ports.size() == 8);
    CHECK(a.left_out.size() == 1);
    CHECK(cloud_adapters("gcp", a3ultra_ports(), "a3-megagpu-8g").ports.empty());
    CHECK(cloud_adapters("gcp", a3ultra_ports(), "a4x-highgpu-4g").why.find("has 4 compute NICs and 8") != std::string::npos);
    CHECK(cloud_adapters("aws", a3ultra_ports()).ports.empty());
}

TEST_CASE("the cloud is told by the node's DMI strings, read under a root", "[cloudenv]")
{
    char tmpl[] = "/tmp/atoll-cloudenv-XXXXXX";
    REQUIRE(mkdtemp(tmpl));
    std::string root = tmpl;
    auto put = [&](const std::string &rel, const std::string &text) { std::ofstream(make_parents(root, rel)) << text; };
    put("/sys/class/dmi/id/sys_vendor", "Amazon EC2\n");
    put("/sys/class/dmi/id/product_name", "p5.48xlarge\n");
    put("/opt/amazon/ofi-nccl/lib/libnccl-net-ofi.so", std::string("\x7f" "ELF\0NET/OFI Initializing aws-ofi-nccl 1.13.2-aws\0", 50));
    CloudNode n = read_cloud_node(root);
    CHECK(cloud_of(n) == "aws");
    CHECK(n.machine_type == "p5.48xlarge");
    CHECK(n.ofi_nccl_library == "/opt/amazon/ofi-nccl/lib/libnccl-net-ofi.so");
    CHECK(n.ofi_nccl_version == "1.13.2");
    CHECK(!n.nccl_conf_present);
    CHECK(read_cloud_node(root, "", "p5en.48xlarge").machine_type == "p5en.48xlarge");
    // the string across the library's first 1 MiB read
    std::string big(std::size_t(1) << 20, '\0');
    big.replace(big.size() - 16, 16, "aws-ofi-nccl 1.1");  // the first read ends in "1.1"
    REQUIRE(big.size() == std::size_t(1) << 20);
    put("/opt/amazon/ofi-nccl/lib/libnccl-net-ofi.so", big + "9.2-aws" + std::string(1, '\0'));
    CHECK(read_cloud_node(root).ofi_nccl_version == "1.19.2");
    CloudNode g;
    g.product_name = "Google Compute Engine";
    CHECK(cloud_of(g) == "gcp");
    CloudNode z;
    z.sys_vendor = "Microsoft Corporation";
    CHECK(cloud_of(z) == "");  // Hyper-V off Azure: no Azure asset tag
    z.chassis_asset_tag = "7783-7084-3265-9085-8269-3286-77";
    CHECK(cloud_of(z) == "azure");
    std::string rm = "rm -rf '" + root + "'";
    CHECK(std::system(rm.c_str()) == 0);
}

TEST_CASE("nccl.conf lines as NCCL's setEnvFile reads them", "[cloudenv]")
{
    // src/misc/param.cc: fgets(line, 4096), strlen, '\n' then (v2.30.3 and
    // later) '\r' dropped, '#' at [0], the name up to the first '=' and at
    // most 1023 bytes, the value strncpy'd to 1023 bytes, setenv(.., 0)
    SECTION("CRLF: the CR is dropped, and noted for the releases before 2.30")
    {
        auto l = nccl_conf_lines("NCCL_TOPO_FILE=/opt/microsoft/ndv5-topo.xml\r\nNCCL_IB_PCI_RELAXED_ORDERING=1\r\nNCCL_X=2\n");
        REQUIRE(l.size() == 3);
        CHECK(l[0].name == "NCCL_TOPO_FILE");
        CHECK(l[0].value == "/opt/microsoft/ndv5-topo.xml");
        CHECK(l[0].cr);
        CHECK(l[1].value == "1");
        CHECK(!l[2].cr);
        CHECK(l[2].line == 3);
    }
    SECTION("a line over 4095 bytes is read as several, and the rest is parsed as a line of its own")
    {
        std::string text = "#" + std::string(4094, 'x') + "NCCL_IB_HCA=mlx5_7\nNCCL_A=1";
        auto l = nccl_conf_lines(text);
        REQUIRE(l.size() == 2);
        CHECK(l[0].name == "NCCL_IB_HCA");  // what fgets' second read of line 1 holds
        CHECK(l[0].value == "mlx5_7");
        CHECK(l[0].line == 1);
        CHECK(l[1].name == "NCCL_A");  // no newline at the end: still read
        CHECK(l[1].line == 2);
    }
    SECTION("a NUL byte ends what NCCL sees of the line")
    {
        auto l = nccl_conf_lines(std::string("NCCL_A\0=1\nNCCL_B=2\0junk=3\n", 26));
        REQUIRE(l.size() == 1);
        CHECK(l[0].name == "NCCL_B");
        CHECK(l[0].value == "2");
    }
    SECTION("names and values of 1023 bytes at most; a CR past them is not kept")
    {
        auto l = nccl_conf_lines(std::string(1030, 'N') + "=" + std::string(1023, 'v') + "\r\n");
        REQUIRE(l.size() == 1);
        CHECK(l[0].name.size() == 1023);
        CHECK(l[0].value.size() == 1023);
        CHECK(!l[0].cr);  // strncpy took the 1023 bytes before it
    }
    SECTION("no name, no '=', a comment, a blank CRLF line: nothing")
    {
        CHECK(nccl_conf_lines("=x\nnoequals\n#NCCL_A=1\n\r\n\n").empty());
    }
}

TEST_CASE("the aws-ofi-nccl release is the plugin's own banner's, before any other mention", "[cloudenv]")
{
    std::string lib("requires aws-ofi-nccl 1.0 or newer\0NET/OFI Initializing aws-ofi-nccl 1.18.0-aws\0", 80);
    CHECK(ofi_nccl_version_in(lib) == "1.18.0");
    CHECK(ofi_nccl_version_in(std::string("Initializing aws-ofi-nccl ...\0aws-ofi-nccl 1.13.2\n", 50)) == "1.13.2");
}

TEST_CASE("symbolic links under a root are followed inside it, never onto the running host", "[cloudenv]")
{
    char tmpl[] = "/tmp/atoll-cloudroot-XXXXXX";
    REQUIRE(mkdtemp(tmpl));
    std::string root = tmpl;
    auto put = [&](const std::string &rel, const std::string &text) { std::ofstream(make_parents(root, rel)) << text; };
    auto link = [&](const std::string &target, const std::string &rel) {
        REQUIRE(symlink(target.c_str(), make_parents(root, rel).c_str()) == 0);
    };
    // the image links /etc/nccl.conf to its own copy by an absolute path, as
    // azhpc-images link /opt/microsoft/ndv5-topo.xml into place
    put("/opt/azhpc/nccl.conf", "NCCL_TOPO_FILE=/opt/microsoft/ndv5-topo.xml\n");
    link("/opt/azhpc/nccl.conf", "/etc/nccl.conf");
    put("/opt/azhpc/topo/ndv5.xml", "<system/>\n");
    link("../azhpc/topo/ndv5.xml", "/opt/microsoft/ndv5-topo.xml");  // relative, through the directory
    CloudNode n = read_cloud_node(root);
    CHECK(n.nccl_conf_present);
    CHECK(n.nccl_conf.at("NCCL_TOPO_FILE") == "/opt/microsoft/ndv5-topo.xml");
    CHECK(n.topo_file_found == 1);
    CHECK(n.azure_topo_files == std::vector<std::string>{"/opt/microsoft/ndv5-topo.xml"});
    // a link to a path that only the running host has is not there inside the root
    std::string rm0 = "rm -f '" + root + "/etc/nccl.conf'";
    REQUIRE(std::system(rm0.c_str()) == 0);
    link("/proc/self/status", "/etc/nccl.conf");
    CHECK(!read_cloud_node(root).nccl_conf_present);
    // ".." stops at the root, and a loop of links ends
    std::string rm1 = "rm -f '" + root + "/etc/nccl.conf'";
    REQUIRE(std::system(rm1.c_str()) == 0);
    link("../../../../../../opt/azhpc/nccl.conf", "/etc/nccl.conf");
    CHECK(read_cloud_node(root).nccl_conf_present);
    link("/opt/b", "/opt/a");
    link("/opt/a", "/opt/b");
    put("/opt/microsoft/ndv4-topo.xml.keep", "");
    link("/opt/a", "/opt/microsoft/ndv4-topo.xml");
    CHECK(read_cloud_node(root).azure_topo_files == std::vector<std::string>{"/opt/microsoft/ndv5-topo.xml"});
    std::string rm = "rm -rf '" + root + "'";
    CHECK(std::system(rm.c_str()) == 0);
}
