#!/bin/sh
# The atoll SPANK plugin in a real Slurm on RoCE nodes as they are: 4 hosts
# with 2 rails each (ens1f0np0, ens1f1np1) under 2 rail leaves, mapped from
# LLDP; each node's sysfs is a GID table pasted in a public thread
# (tests/data/roce, PROVENANCE), so NCCL_IB_GID_INDEX is checked against the
# index NCCL 2.21+ itself takes there (ncclIbGetGidIndex, worked by hand):
#   node001, node002: NVIDIA/nccl#1131 (link-local at 0/1, IPv4 at 2/3) -> 3
#   node003: NVIDIA/nccl#1573, a macvlan pod (slots 0-3 empty) -> 7
#   node004: NVIDIA/nccl#769's RoCE LAG: mlx5_bond_0 on bond0, whose members
#            LLDP names -> the bond's device, 3
# UCX takes each port's IPv4 RoCE v2 GID itself: UCX_IB_GID_INDEX stays unset.
# Every host also has its front-end NIC eno1 (10 Gb/s, to mgmt1, an RDMA
# device mlx5_9 with no traffic class): no rail, and it changes no variable.
# node002 plays a GPU node (hwloc: GPU 0000:12 beside mlx5_0, 0000:16 beside
# mlx5_1) whose mlx5_0 is DOWN: UCX refuses a port that is not ACTIVE.
. "$(dirname "$0")/../lib.sh"
. "$ATOLL_SRCDIR/tests/slurm-cluster.sh"
N=12
plan $N
so="$ATOLL_BUILDDIR/spank/.libs/atoll.so"
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v srun >/dev/null; then
    i=0; while [ $i -lt $N ]; do i=$((i + 1)); skip "spank-roce $i" "slurmctld, slurmd or slurm-client not installed"; done
    exit 0
fi
work=$(tmpdir)
at_exit cluster_down
# LLDP as pdsh gathers it (lldpcli -f keyvalue show neighbors details): every
# host's ens1f0np0 on rail leaf r0-leaf1, ens1f1np1 on r1-leaf1 (synthetic,
# shaped from tests/data/lldp/2_three_interfaces: lldpd 1.0.16's keyvalue)
for n in 1 2 3 4; do
    for r in 0 1; do
        i=ens1f${r}np$r
        cat <<KV
node00$n: lldp.$i.via=LLDP
node00$n: lldp.$i.chassis.mac=1c:34:da:7a:0$r:01
node00$n: lldp.$i.chassis.name=r$r-leaf1
node00$n: lldp.$i.chassis.Bridge.enabled=on
node00$n: lldp.$i.port.ifname=swp$n
node00$n: lldp.$i.port.auto-negotiation.current=100GbaseCR4 - 100GBASE-R PCS/PMA over 4 lane shielded copper balanced cable
KV
    done
    cat <<KV
node00$n: lldp.eno1.via=LLDP
node00$n: lldp.eno1.chassis.name=mgmt1
node00$n: lldp.eno1.chassis.Bridge.enabled=on
node00$n: lldp.eno1.port.ifname=ge-0/0/$n
node00$n: lldp.eno1.port.auto-negotiation.current=10GbaseT - Four-pair Category 6A or better, full duplex mode only
KV
done >"$work/lldp.txt"
"$TOPO" discover "$work/lldp.txt" -o "$work/fabric.json" 2>"$work/discover.err" || diag "$(cat "$work/discover.err")"
"$TOPO" slurm --format view "$work/fabric.json" -o "$work/fabric.view"
chmod 644 "$work/fabric.json" "$work/fabric.view"
# each node's sysfs from its show_gids table, netdevs renamed to the LLDP ones
gids() {  # TABLE NODE FROM0 FROM1
    sed -e "s/$3/ens1f0np0/; s/$4/ens1f1np1/" "$1" >"$work/$2.gids"
    sysfs_from_show_gids "$work/$2.gids" "$work/sys/$2"
}
gids "$DATA/roce/nccl1131.show_gids" node001 ens3np0 ens2np0
gids "$DATA/roce/nccl1131.show_gids" node002 ens3np0 ens2np0
gids "$DATA/roce/nccl1573-macvlan.show_gids" node003 net1 net2
# node004: nccl#769's ibv_devinfo GID lines, one RoCE LAG device on bond0
d="$work/sys/node004/class/infiniband/mlx5_bond_0/ports/1"
mkdir -p "$d/gids" "$d/gid_attrs/types" "$d/gid_attrs/ndevs" "$work/sys/node004/class/net/bond0/bonding"
echo Ethernet >"$d/link_layer"; echo "4: ACTIVE" >"$d/state"
sed -n 's/^[[:space:]]*GID\[ *\([0-9]*\)\]:[[:space:]]*\([^,]*\), \(.*\)$/\1 \2 \3/p' "$DATA/roce/nccl769-bond.ibv_devinfo" |
while read -r i g t; do
    # ibv_devinfo shortens a GID as inet_ntop does; sysfs prints it whole
    case "$g" in
    fe80::ac0:ebff:feda:1cfb) g=fe80:0000:0000:0000:0ac0:ebff:feda:1cfb ;;
    ::ffff:200.0.209.6) g=0000:0000:0000:0000:0000:ffff:c800:d106 ;;
    esac
    echo "$g" >"$d/gids/$i"; echo bond0 >"$d/gid_attrs/ndevs/$i"
    [ "$t" = "RoCE v2" ] && echo "RoCE v2" >"$d/gid_attrs/types/$i" || echo "IB/RoCE v1" >"$d/gid_attrs/types/$i"
done
echo "ens1f0np0 ens1f1np1" >"$work/sys/node004/class/net/bond0/bonding/slaves"
# the ports' own class (cma_roce_tos / the tc file): 106 on every compute
# device; the front-end mlx5_9 (an RDMA-capable NIC on eno1) has none
for n in node001 node002 node003 node004; do
    for d in "$work/sys/$n/class/infiniband/"*; do
        mkdir -p "$d/tc/1"; echo "Global tclass=106" >"$d/tc/1/traffic_class"
    done
    d="$work/sys/$n/class/infiniband/mlx5_9/ports/1"
    mkdir -p "$d/gids" "$d/gid_attrs/types" "$d/gid_attrs/ndevs"
    echo Ethernet >"$d/link_layer"; echo "4: ACTIVE" >"$d/state"
    echo 0000:0000:0000:0000:0000:ffff:0a00:0009 >"$d/gids/3"; echo "RoCE v2" >"$d/gid_attrs/types/3"; echo eno1 >"$d/gid_attrs/ndevs/3"
done
echo "1: DOWN" >"$work/sys/node002/class/infiniband/mlx5_0/ports/1/state"
# node002's two GPUs (device minors 0 and 1) as Slurm's gres, and its hwloc map
set -- 0000:12:00.0 0 0000:16:00.0 1
while [ $# -gt 0 ]; do
    mkdir -p "$work/proc/node002/driver/nvidia/gpus/$1"
    printf 'Model:\t\t NVIDIA A100-SXM4-80GB (fake)\nDevice Minor:\t %s\n' "$2" >"$work/proc/node002/driver/nvidia/gpus/$1/information"
    shift 2
done
mkdir -p "$work/dev" "$work/c" "$work/hwloc"
for m in 0 1; do mknod "$work/dev/nvidia$m" c 195 "$m" 2>/dev/null || : >"$work/dev/nvidia$m"; done
echo "NodeName=node002 Name=gpu File=$work/dev/nvidia[0-1]" >"$work/c/gres.conf"
export CLUSTER_GRES="node002=gpu:2"
for n in node001 node002 node003 node004; do cp "$DATA/hwloc/dgx-a100-like-4gpu-5hca.xml" "$work/hwloc/$n.xml"; done
chmod 644 "$work/hwloc/"*.xml

cluster_up "$work/c" "$work/fabric.json" "$so" "fabric=$work/fabric.view sysfs_root=$work/sys/%n proc_root=$work/proc/%n hwloc_xml=$work/hwloc/%n.xml" || {
    i=0; while [ $i -lt $N ]; do i=$((i + 1)); not_ok "cluster did not start"; done; exit 0; }

timeout 30 srun -N4 -l sh -c 'echo "$SLURMD_NODENAME $NCCL_IB_HCA ${NCCL_IB_GID_INDEX:-unset} ${UCX_IB_GID_INDEX:-unset} ${NCCL_IB_TC:-unset}"' \
    2>"$work/env.err" | sed 's/^[0-9]*: //' | sort >"$work/env"
line() { grep "^$1 " "$work/env"; }
check "node001 (nccl#1131's table): GID 3, the IPv4 RoCE v2 one NCCL 2.21+ takes, never the link-local 1" \
    [ "$(line node001)" = "node001 =mlx5_0:1,mlx5_1:1 3 unset 106" ]
check "node002 (mlx5_0 DOWN): the same GID, from its ACTIVE port" [ "$(line node002)" = "node002 =mlx5_0:1,mlx5_1:1 3 unset 106" ]
check "node003 (nccl#1573's macvlan table, slots 0-3 empty): GID 7" [ "$(line node003)" = "node003 =mlx5_0:1,mlx5_1:1 7 unset 106" ]
check "node004 (nccl#769's RoCE LAG): the bond's device through its members, GID 3" \
    [ "$(line node004)" = "node004 =mlx5_bond_0:1 3 unset 106" ]
[ "$(wc -l <"$work/env")" -eq 4 ] || diag "$(cat "$work/env" "$work/env.err")"
# --fabric-env=show says why UCX is left to choose
timeout 30 srun -N1 -w node003 --fabric-env=show true 2>"$work/show.err"
check "show: UCX picks each port's GID itself (7 on node003)" \
    grep -q "UCX_IB_GID_INDEX not set: UCX picks each port's RoCE v2 GID itself, IPv4 first (mlx5_0:1 7, mlx5_1:1 7)" "$work/show.err"
# the user's address family is the user's: no index overrides it
NCCL_IB_ADDR_FAMILY=AF_INET6 timeout 30 srun -N1 -w node001 sh -c 'echo "${NCCL_IB_GID_INDEX:-unset} $NCCL_IB_ADDR_FAMILY"' \
    >"$work/fam" 2>"$work/fam.err"
check "a user's NCCL_IB_ADDR_FAMILY=AF_INET6 is kept and no GID index is set over it" [ "$(cat "$work/fam")" = "unset AF_INET6" ]
check "the front-end NIC is no rail: check names eno1, the view lists no mlx5_9 or eno1" \
    sh -c "\"$TOPO\" check \"$work/fabric.json\" 2>&1 | grep -q 'front-end NIC eno1' && ! grep -q 'eno1' \"$work/fabric.view\""
# UCX_NET_DEVICES on node002: GPU 0 (PCI 12) sits beside mlx5_0, which is
# DOWN; its nearest ACTIVE compute HCA is mlx5_1 (one PCIe switch up); GPU 1
# (PCI 16) is beside mlx5_1
timeout 30 srun -N1 -n2 -w node002 --gpus-per-task=1 -l sh -c 'echo "$CUDA_VISIBLE_DEVICES ${UCX_NET_DEVICES:-unset}"' \
    2>"$work/ucx.err" | sort | tr '\n' ' ' >"$work/ucx"
if [ "$(cat "$work/ucx")" = "0: 0 mlx5_1:1 1: 1 mlx5_1:1 " ]; then
    ok "UCX_NET_DEVICES never names the DOWN port: GPU 0's nearest ACTIVE HCA is mlx5_1"
else
    not_ok "UCX_NET_DEVICES never names the DOWN port: GPU 0's nearest ACTIVE HCA is mlx5_1"; diag "$(cat "$work/ucx" "$work/ucx.err")"
fi
# one step over a node the fabric has and one it does not place: no island
"$TOPO" env "$work/fabric.view" --node node001 --nodes node001,gpu-x9 --sysfs-root "$work/sys/%n" >"$work/unmapped" 2>&1
check "a step with a node the fabric does not place gets no ATOLL_ISLAND or ATOLL_HOPS" \
    sh -c "grep -q '^  ATOLL_HOPS not set: 1 step node(s) absent from the fabric file (gpu-x9)' \"$work/unmapped\" && ! grep -q '^  ATOLL_ISLAND=' \"$work/unmapped\""
# ucx.conf: UCX reads the system's, HOME's, UCX_CONFIG_DIR's and the task's
# working directory's, and the environment overrides them all
# (ucs_config_parse_config_files, ucs_config_apply_config_vars): atoll sets
# none of the UCX variables they name (a helper's finding: atoll's
# UCX_IB_TRAFFIC_CLASS overrode the user's ~/ucx.conf)
mkdir -p "$work/home" "$work/wd"
printf '# mine\n[any]\nUCX_IB_TRAFFIC_CLASS = 96 ; lossless on my VLAN\n' >"$work/home/ucx.conf"
printf 'UCX_NET_DEVICES=mlx5_0:1\n' >"$work/wd/ucx.conf"
chmod -R a+rX "$work/home" "$work/wd"
timeout 30 srun -N1 -w node001 --chdir=/ sh -c 'echo "${UCX_IB_TRAFFIC_CLASS:-unset} ${NCCL_IB_TC:-unset}"' >"$work/uc0" 2>&1
HOME="$work/home" timeout 30 srun -N1 -w node001 --chdir=/ sh -c 'echo "${UCX_IB_TRAFFIC_CLASS:-unset} ${NCCL_IB_TC:-unset} $ATOLL_ENV_SET"' >"$work/uc1" 2>&1
# (the task's line is the last: srun may say first that the job queued)
if [ "$(tail -n1 "$work/uc0")" = "106 106" ] && [ "$(tail -n1 "$work/uc1" | cut -d' ' -f1-2)" = "unset 106" ] && ! grep -q UCX_IB_TRAFFIC_CLASS "$work/uc1"; then
    ok "HOME's ucx.conf names UCX_IB_TRAFFIC_CLASS: atoll leaves it to UCX (NCCL_IB_TC still set)"
else not_ok "HOME's ucx.conf names UCX_IB_TRAFFIC_CLASS: atoll leaves it to UCX"; diag "$(cat "$work/uc0" "$work/uc1")"; fi
# the task's working directory's: UCX_NET_DEVICES (a task variable) and,
# through UCX_CONFIG_DIR, a node variable; ATOLL_ENV_SET no longer names them
mkdir -p "$work/cfgdir"; cp "$work/home/ucx.conf" "$work/cfgdir/ucx.conf"; chmod -R a+rX "$work/cfgdir"
timeout 30 srun -N1 -n2 -w node002 --gpus-per-task=1 --chdir="$work/wd" -l sh -c 'echo "${UCX_NET_DEVICES:-unset} ${UCX_IB_TRAFFIC_CLASS:-unset}"' \
    2>"$work/uc2.err" | sort | tr '\n' ' ' >"$work/uc2"
UCX_CONFIG_DIR="$work/cfgdir" timeout 30 srun -N1 -w node001 --chdir=/ sh -c 'echo "${UCX_IB_TRAFFIC_CLASS:-unset}"' >"$work/uc3" 2>&1
# (a UCX_NET_DEVICES of the job's takes the ports' class with it: the
# devices it names were not checked)
if [ "$(cat "$work/uc2")" = "0: unset unset 1: unset unset " ] && [ "$(cat "$work/uc3")" = "unset" ]; then
    ok "the working directory's ucx.conf keeps atoll's UCX_NET_DEVICES and class out; UCX_CONFIG_DIR's its UCX_IB_TRAFFIC_CLASS"
else not_ok "the working directory's ucx.conf and UCX_CONFIG_DIR's"; diag "$(cat "$work/uc2" "$work/uc2.err" "$work/uc3")"; fi
timeout 30 srun -N1 -w node002 --gpus=1 --chdir="$work/wd" --fabric-env=show true 2>"$work/uc4.err"
check "show: UCX_NET_DEVICES not set, left to the working directory's ucx.conf" \
    grep -q "atoll: node002 task 0: UCX_NET_DEVICES not set: set in ucx.conf of the task's working directory, which UCX reads" "$work/uc4.err"
