#!/bin/sh
# Each cloud's own NCCL profile through `atoll-topo health` and `atoll-topo
# env`, on fake node roots built here: the DMI strings each cloud shows, the
# Azure HPC image's real /etc/nccl.conf (azhpc-images ndv5.sh), OCI's real
# nccl.conf template (oci-hpc h100), the gIB and TCPXO files cluster-toolkit's
# examples source, and an aws-ofi-nccl library reduced to the PACKAGE_STRING
# its binary carries (tests/data/PROVENANCE.md). Expected findings follow the
# providers' files: ND v5 writes NCCL_TOPO_FILE, ND GB200 v6 writes none;
# aws-ofi-nccl first knows p5.48xlarge in 1.7.0.
. "$(dirname "$0")/../lib.sh"
plan 30
work=$(tmpdir)
C="$DATA/cloudenv"
# dmi ROOT VENDOR PRODUCT ASSET
dmi() {
    mkdir -p "$1/sys/class/dmi/id"
    echo "$2" >"$1/sys/class/dmi/id/sys_vendor"; echo "$3" >"$1/sys/class/dmi/id/product_name"
    echo "$4" >"$1/sys/class/dmi/id/chassis_asset_tag"
}
# rdma ROOT HCA LINK_LAYER
rdma() {
    d="$1/sys/class/infiniband/$2/ports/1"
    mkdir -p "$d"; echo "$3" >"$d/link_layer"; echo "4: ACTIVE" >"$d/state"; echo "400 Gb/sec (4X NDR)" >"$d/rate"
}
# health ROOT ARGS...: the cloud-profile lines only (--hca matches no port
# unless HCA says: the port checks have their own test), exit status in $rc
health() {
    r=$1; shift
    "$TOPO" health --root "$r" --sysfs-root "$r/sys" --interval 0 --hca "${HCA:-nomatch}" --verbose "$@" >"$work/out" 2>&1
    rc=$?
    grep cloud-profile "$work/out" >"$work/cloud"
}
want() {  # NAME STATUS TEXT RC
    if grep -q "^$2: cloud-profile: node: .*$3" "$work/cloud" && [ "$rc" -eq "$4" ] && [ "$(wc -l <"$work/cloud")" -eq 1 ]; then
        ok "$1"
    else
        not_ok "$1"; diag "exit $rc, expected $4" "$(cat "$work/out")"
    fi
}

# Azure ND H100 v5: mlx5_ib0..7 InfiniBand, mlx5_an0 the accelerated-networking VF
az="$work/azure"
dmi "$az" "Microsoft Corporation" "Virtual Machine" "7783-7084-3265-9085-8269-3286-77"
for i in 0 1 2 3 4 5 6 7; do rdma "$az" mlx5_ib$i InfiniBand; done
rdma "$az" mlx5_an0 Ethernet
health "$az" --machine-type Standard_ND96isr_H100_v5
want "Azure ND v5 without /etc/nccl.conf: an error, exit 4" ERROR "(ndv5): no /etc/nccl.conf" 4
health "$az"
want "Azure, VM size not given, 8 InfiniBand ports: a warning only, exit 0" WARNING "VM size not given.*no /etc/nccl.conf" 0
mkdir -p "$az/etc" "$az/opt/microsoft/ndv5"
cp "$C/azure-ndv5.nccl.conf" "$az/etc/nccl.conf"
health "$az" --machine-type Standard_ND96isr_H100_v5
want "the image's nccl.conf naming a topology file that is not there: an error" ERROR "NCCL_TOPO_FILE='/opt/microsoft/ndv5/topo.xml' names no file" 4
echo '<system version="1"/>' >"$az/opt/microsoft/ndv5/topo.xml"
health "$az" --machine-type Standard_ND96isr_H100_v5
want "the image's nccl.conf and its topology file: OK" OK "NCCL_TOPO_FILE='/opt/microsoft/ndv5/topo.xml'" 0
# all ports, as an admin runs it: the accelerated-networking device (Ethernet, no
# RoCE v2 GID) is no compute adapter on Azure, left out in one line, not failed
"$TOPO" health --root "$az" --sysfs-root "$az/sys" --interval 0 --machine-type Standard_ND96isr_H100_v5 >"$work/out" 2>&1; rc=$?
if [ $rc -eq 0 ] && [ "$(grep -c 'mlx5_an0' "$work/out")" -eq 1 ] &&
    grep -q "^adapters: azure: left out, not compute adapters by the cloud's rule: mlx5_an0 port 1 (accelerated networking (Ethernet))" "$work/out" &&
    grep -q "on 8 ports" "$work/out"; then
    ok "Azure health checks the 8 InfiniBand ports only: mlx5_an0 left out in one line, exit 0"
else
    not_ok "Azure health checks the 8 InfiniBand ports only: mlx5_an0 left out in one line, exit 0"; diag "exit $rc" "$(cat "$work/out")"
fi
# the first line is the drain reason a wrapper gives: the error, not the
# adapters left out (helper 51)
mv "$az/opt/microsoft/ndv5/topo.xml" "$work/topo.xml"
"$TOPO" health --root "$az" --sysfs-root "$az/sys" --interval 0 --machine-type Standard_ND96isr_H100_v5 >"$work/out" 2>&1; rc=$?
if [ $rc -eq 4 ] && head -1 "$work/out" | grep -q "^ERROR: cloud-profile: node: .*names no file" && grep -q "^adapters: azure: left out" "$work/out"; then
    ok "Azure, topology file gone, all ports: the error is the first line, the adapters left out after it"
else
    not_ok "Azure, topology file gone: the error first"; diag "exit $rc" "$(cat "$work/out")"
fi
mv "$work/topo.xml" "$az/opt/microsoft/ndv5/topo.xml"
rm "$az/etc/nccl.conf"
HCA='mlx5_ib*'
health "$az" --machine-type Standard_ND128isr_GB200_v6
HCA=
want "ND GB200 v6, for which the image writes no topology file: skipped (its InfiniBand ports checked alone)" SKIPPED "writes no NCCL_TOPO_FILE" 0

# Google Cloud A3 Ultra: eight RoCE mlx5 GPU NICs; gVNIC is no RDMA device
g="$work/gcp"
dmi "$g" Google "Google Compute Engine" ""
for i in 0 1 2 3 4 5 6 7; do rdma "$g" mlx5_$i Ethernet; done
health "$g" --machine-type a3-ultragpu-8g
want "A3 Ultra without the gIB profile: an error" ERROR "no gIB profile" 4
mkdir -p "$g/usr/local/gib/scripts" "$g/usr/local/gib/lib64"
: >"$g/usr/local/gib/scripts/set_nccl_env.sh"; : >"$g/usr/local/gib/lib64/libnccl-net.so"
health "$g" --machine-type projects/12345/machineTypes/a3-ultragpu-8g
want "A3 Ultra with set_nccl_env.sh and the gIB plugin: OK" OK "the gIB profile is installed" 0
# A3 Mega: no RDMA port at all, the TCPXO profile expected
m="$work/mega"
dmi "$m" Google "Google Compute Engine" ""
health "$m" --machine-type a3-megagpu-8g
want "A3 Mega (no RDMA port) without the TCPXO profile: an error, the profile reported alone" ERROR "nccl-env-profile.sh" 4

n="$work/n2"
dmi "$n" Google "Google Compute Engine" ""
"$TOPO" health --root "$n" --sysfs-root "$n/sys" --interval 0 --machine-type n2-standard-8 >"$work/out" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -q "no RDMA port" "$work/out"; then
    ok "a cloud node that expects no profile and has no RDMA port: still the input error (exit 1)"
else
    not_ok "a cloud node that expects no profile and has no RDMA port: still the input error (exit 1)"; diag "exit $rc" "$(cat "$work/out")"
fi

# AWS p5.48xlarge: the instance type is the DMI product name
a="$work/aws"
dmi "$a" "Amazon EC2" "p5.48xlarge" "Amazon EC2"
rdma "$a" rdmap79s0 Unspecified
health "$a"
want "P5 without aws-ofi-nccl: an error" ERROR "needs aws-ofi-nccl >= 1.7.0, and there is none" 4
mkdir -p "$a/opt/amazon/ofi-nccl/lib"
printf '\177ELF\002\001\001\000\000NET/OFI Initializing aws-ofi-nccl 1.6.0\000' >"$a/opt/amazon/ofi-nccl/lib/libnccl-net.so"
health "$a"
want "P5 with aws-ofi-nccl 1.6.0: older than 1.7.0, an error" ERROR "aws-ofi-nccl 1.6.0 .* is older than 1.7.0" 4
# enroot on the host (pyxis): jobs' images may carry their own plugin (AWS's
# EFA images install aws-ofi-nccl), so the host's is a warning, no drain
mkdir -p "$a/usr/bin" && : >"$a/usr/bin/enroot"
health "$a"
want "P5 with enroot and aws-ofi-nccl 1.6.0: a warning, exit 0" WARNING "older than 1.7.0.*/usr/bin/enroot is here: jobs in container images must bring their own" 0
mv "$a/opt/amazon/ofi-nccl/lib/libnccl-net.so" "$work/ofi.so"
health "$a"
want "P5 with enroot and no aws-ofi-nccl: a warning, exit 0" WARNING "there is none .*/usr/bin/enroot is here" 0
rm "$a/usr/bin/enroot"; mkdir "$a/usr/bin/enroot"
health "$a"
want "P5 with a directory named /usr/bin/enroot: no runtime, still an error (helper 52)" ERROR "there is none under" 4
mv "$work/ofi.so" "$a/opt/amazon/ofi-nccl/lib/libnccl-net.so"; rmdir "$a/usr/bin/enroot"
printf '\177ELF\002\001\001\000\000NET/OFI Initializing aws-ofi-nccl 1.18.0-aws\000' >"$a/opt/amazon/ofi-nccl/lib/libnccl-net.so"
health "$a"
want "P5 with aws-ofi-nccl 1.18.0-aws: OK" OK "aws-ofi-nccl 1.18.0 >= 1.7.0" 0
# the EFA installer on Ubuntu and Debian: the multiarch directory (helper 51)
mkdir -p "$a/opt/amazon/ofi-nccl/lib/x86_64-linux-gnu"
mv "$a/opt/amazon/ofi-nccl/lib/libnccl-net.so" "$a/opt/amazon/ofi-nccl/lib/x86_64-linux-gnu/libnccl-net-ofi.so"
health "$a"
want "P5 with aws-ofi-nccl under lib/x86_64-linux-gnu (Ubuntu's EFA installer): found, OK" OK "aws-ofi-nccl 1.18.0 >= 1.7.0" 0
# (helper 74) where NCCL's dlopen("libnccl-net.so") finds it without
# NCCL_NET_PLUGIN: a source build's /usr/local/lib (configure's prefix), a
# directory ld.so.conf.d lists (it was an error: a p5 drained)
mkdir -p "$a/usr/local/lib"
mv "$a/opt/amazon/ofi-nccl/lib/x86_64-linux-gnu/libnccl-net-ofi.so" "$a/usr/local/lib/libnccl-net.so"
health "$a"
want "P5 with aws-ofi-nccl in /usr/local/lib (a source build): found, OK" OK "aws-ofi-nccl 1.18.0 >= 1.7.0" 0
mkdir -p "$a/etc/ld.so.conf.d" "$a/apps/ofi/1.18/lib"
printf '# the site''s modules\n/apps/ofi/1.18/lib  # aws-ofi-nccl\n' >"$a/etc/ld.so.conf.d/ofi.conf"
mv "$a/usr/local/lib/libnccl-net.so" "$a/apps/ofi/1.18/lib/libnccl-net.so"
health "$a"
want "P5 with aws-ofi-nccl in a directory ld.so.conf.d lists: found, OK" OK "aws-ofi-nccl 1.18.0 >= 1.7.0" 0
# (helper 75) a conf file that is a symbolic link to an absolute path is
# read inside the root, never the host's (none there: not found); an
# include line of ld.so.conf is followed, as ldconfig does
rm "$a/etc/ld.so.conf.d/ofi.conf"
printf '/apps/ofi/1.18/lib\n' >"$work/host-side.conf"
ln -s "$work/host-side.conf" "$a/etc/ld.so.conf.d/link.conf"
health "$a"
want "P5 with a conf linked to a file outside --root: not read, not found" ERROR "there is none under" 4
rm "$a/etc/ld.so.conf.d/link.conf"; mkdir -p "$a/etc/ld.so.conf.local"
printf 'include /etc/ld.so.conf.local/*.conf\n' >"$a/etc/ld.so.conf"
printf '/apps/ofi/1.18/lib\n' >"$a/etc/ld.so.conf.local/ofi.conf"
health "$a"
want "P5 with aws-ofi-nccl in a directory an include line of ld.so.conf lists: found, OK" OK "aws-ofi-nccl 1.18.0 >= 1.7.0" 0

# OCI BM.GPU.H100.8: RoCE mlx5 NICs, the oci-hpc nccl.conf
o="$work/oci"
dmi "$o" "Oracle Corporation" "" "OracleCloud.com"
for i in 0 1 3 4; do rdma "$o" mlx5_$i Ethernet; done
health "$o"
want "OCI RoCE without the image's nccl.conf: a warning naming what is missing" WARNING "NCCL_IB_GID_INDEX, NCCL_IB_TC, NCCL_IB_HCA" 0
mkdir -p "$o/etc"; cp "$C/oci-h100.nccl.conf" "$o/etc/nccl.conf"
health "$o"
want "OCI with oci-hpc's nccl.conf: OK" OK "sets NCCL_IB_GID_INDEX, NCCL_IB_TC and NCCL_IB_HCA" 0

"$TOPO" health --sysfs-root "$az/sys" --cloud bogus >"$work/out" 2>&1
rc=$?
check "an unknown --cloud is a usage error (exit 2)" [ $rc -eq 2 ]

# atoll-topo env on an Azure fabric: the compute adapters from the node
"$TOPO" generate --pods 1 --groups 1 --hosts 2 --format json -o "$work/f.json"
"$TOPO" slurm --format view "$work/f.json" -o "$work/f.view"
mkdir -p "$work/nodes"; ln -s "$az/sys" "$work/nodes/node001"
"$TOPO" env "$work/f.view" --node node001 --plugstack fabric_type=azure --sysfs-root "$work/nodes/%n" \
    --root "$az" --machine-type Standard_ND96isr_H100_v5 >"$work/env" 2>&1
if grep -q "^cloud azure (Azure HPC image (/etc/nccl.conf)), machine type 'Standard_ND96isr_H100_v5'" "$work/env" &&
   grep -q "^  compute adapters from the node: =mlx5_ib0:1,mlx5_ib1:1,mlx5_ib2:1,mlx5_ib3:1,mlx5_ib4:1,mlx5_ib5:1,mlx5_ib6:1,mlx5_ib7:1 (azure: the InfiniBand ports" "$work/env" &&
   grep -q "^    left out: mlx5_an0 port 1: accelerated networking (Ethernet)" "$work/env" &&
   grep -q "^  error: cloud-profile: 'Standard_ND96isr_H100_v5' (ndv5): no /etc/nccl.conf" "$work/env"; then
    ok "env on Azure: the eight InfiniBand ports from sysfs, mlx5_an0 left out, the missing nccl.conf named"
else
    not_ok "env on Azure: the eight InfiniBand ports from sysfs, mlx5_an0 left out, the missing nccl.conf named"; diag "$(cat "$work/env")"
fi

# (helper 23) the machine type unknown and one of the eight InfiniBand
# ports DOWN: a list of the seven active would differ from the other
# nodes' (NCCL's rings need one list): nothing set, and why
cp -r "$az/sys" "$work/azdown"
echo "1: DOWN" >"$work/azdown/class/infiniband/mlx5_ib3/ports/1/state"
mkdir -p "$work/nodes2"; ln -s "$work/azdown" "$work/nodes2/node001"
"$TOPO" env "$work/f.view" --node node001 --plugstack fabric_type=azure --sysfs-root "$work/nodes2/%n" >"$work/azd" 2>&1
if grep -q "^  NCCL_IB_HCA not set: no compute adapter from the node: azure: 1 of 8 compute ports not active here (mlx5_ib3 port 1: 1: DOWN), and the machine type" "$work/azd"; then
    ok "env on Azure, machine type unknown, one InfiniBand port DOWN: no list of the seven others, and why"
else
    not_ok "env on Azure, machine type unknown, one InfiniBand port DOWN: no list of the seven others"; diag "$(cat "$work/azd")"
fi
# (helper 28) a port whose link layer cannot be read (gone, a FIFO) may be
# a compute NIC: a list without it would hold this node to fewer rails than
# its peers; Azure and GCP, machine type unknown: nothing set, and why
cp -r "$az/sys" "$work/azll"
rm "$work/azll/class/infiniband/mlx5_ib5/ports/1/link_layer"
mkdir -p "$work/nodes3"; ln -s "$work/azll" "$work/nodes3/node001"
"$TOPO" env "$work/f.view" --node node001 --plugstack fabric_type=azure --sysfs-root "$work/nodes3/%n" >"$work/azll.env" 2>&1
cp -r "$g/sys" "$work/gll"
for i in 0 1 2 3 4 5 6 7; do mkdir -p "$work/gll/class/net/gpu${i}rdma0" "$work/gll/class/infiniband/mlx5_$i/ports/1/gid_attrs/ndevs"
    echo "gpu${i}rdma0" >"$work/gll/class/infiniband/mlx5_$i/ports/1/gid_attrs/ndevs/0"; done
"$TOPO" env "$work/f.view" --node node001 --plugstack fabric_type=gcp --sysfs-root "$work/gll" >"$work/gll.ok" 2>&1
rm "$work/gll/class/infiniband/mlx5_2/ports/1/link_layer"; mkfifo "$work/gll/class/infiniband/mlx5_2/ports/1/link_layer"
"$TOPO" env "$work/f.view" --node node001 --plugstack fabric_type=gcp --sysfs-root "$work/gll" >"$work/gll.env" 2>&1
if grep -q "^  NCCL_IB_HCA not set: no compute adapter from the node: mlx5_ib5 port 1 has no link layer atoll could read" "$work/azll.env" &&
   grep -q "^  compute adapters from the node: none (mlx5_2 port 1 has no link layer atoll could read" "$work/gll.env" &&
   ! grep -q "^  NCCL_IB_HCA=" "$work/azll.env" "$work/gll.env" &&
   grep -q "^  compute adapters from the node: =mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1 " "$work/gll.ok"; then
    ok "env on Azure and GCP, machine type unknown, a port's link layer unreadable: no list of the others, and why"
else
    not_ok "env on Azure and GCP, machine type unknown, a port's link layer unreadable: no list of the others"
    diag "$(cat "$work/azll.env" "$work/gll.ok" "$work/gll.env")"
fi
# the site's network keys on a fabric where atoll sets no network variable:
# each said, not dropped without a word
"$TOPO" env "$work/f.view" --node node001 --plugstack "fabric_type=oci socket_ifname=ens5 roce_tc=106 roce_fifo_tc=84" >"$work/oci.env" 2>&1
if grep -q "^  NCCL_SOCKET_IFNAME not set: socket_ifname= not applied: atoll sets no network variable on oci fabrics" "$work/oci.env" &&
   grep -q "^  NCCL_IB_TC not set: roce_tc= not applied" "$work/oci.env" && grep -q "^  NCCL_IB_FIFO_TC not set: roce_fifo_tc= not applied" "$work/oci.env"; then
    ok "socket_ifname=, roce_tc=, roce_fifo_tc= on an OCI fabric: not applied, and said"
else
    not_ok "socket_ifname=, roce_tc=, roce_fifo_tc= on an OCI fabric: not applied, and said"; diag "$(cat "$work/oci.env")"
fi

# a RoCE fabric (LLDP) on a GCP gIB machine: what atoll's RoCE profile sets
# and set_nccl_env.sh sets too (NCCL_IB_TC=52 there, 106 from the node's tc
# file here; NCCL_IB_GID_INDEX=3 in the A4 VM's defaults) is named
"$TOPO" slurm --format view "$DATA/lldp/2_three_interfaces.neighbors_details.json" --compute 'ens*' -o "$work/roce.view"
h=2_three_interfaces
set -- mlx5_0 ens1f0np0 0a mlx5_1 ens1f1np1 0b mlx5_2 ens2f0np0 0c
while [ $# -gt 0 ]; do
    mlx5_roce_port "$work/rsys/$h/class/infiniband/$1" "$2" "0000:0000:0000:0000:0000:ffff:c0a8:${3}05"
    shift 3
done
"$TOPO" env "$work/roce.view" --node "$h" --sysfs-root "$work/rsys/%n" --cloud gcp --root "$g" \
    --machine-type a3-ultragpu-8g >"$work/genv" 2>&1
if grep -q "^  NCCL_IB_TC=106 " "$work/genv" &&
   grep -q "^  warning: atoll sets NCCL_IB_TC, but gIB (set_nccl_env.sh) or TCPXO (nccl-env-profile.sh) sets NCCL_IB_TC=52 (/usr/local/gib/scripts/set_nccl_env.sh" "$work/genv" &&
   grep -q "^  warning: atoll sets NCCL_IB_GID_INDEX, but .* sets NCCL_IB_GID_INDEX=3 " "$work/genv" &&
   grep -q "^  compute adapters from the node: none ('a3-ultragpu-8g' has 8 compute NICs and 3 are active here" "$work/genv" &&
   ! grep -q "warning: atoll sets NCCL_IB_HCA" "$work/genv"; then
    ok "env on a gIB machine: the RoCE class and GID atoll sets are named as set_nccl_env.sh's, and 3 of 8 NICs are refused"
else
    not_ok "env on a gIB machine: the RoCE class and GID atoll sets are named as set_nccl_env.sh's, and 3 of 8 NICs are refused"; diag "$(cat "$work/genv")"
fi
