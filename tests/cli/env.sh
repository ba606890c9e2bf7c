#!/bin/sh
# atoll-topo env: the plugin's environment from the same code, on fixture
# sysfs and procfs trees built here, against tables worked out by hand (the
# same cases as tests/unit/test_env.cpp, through the command an admin runs).
. "$(dirname "$0")/../lib.sh"
plan 6
work=$(tmpdir)
"$TOPO" generate --pods 1 --groups 2 --rails 8 --hosts 2 --sharp --format json -o "$work/dgx.json"
"$TOPO" slurm --format view "$work/dgx.json" -o "$work/dgx.view"
# node001: mlx5_0..7 compute rails and mlx5_8 (storage), InfiniBand, ACTIVE;
# its 8 GPUs (PCI 07 0f 47 4e 87 90 b7 bd) have device minors 2 3 0 1 6 7 4 5
for k in 0 1 2 3 4 5 6 7 8; do
    d="$work/sys/node001/class/infiniband/mlx5_$k/ports/1"
    mkdir -p "$d"; echo InfiniBand >"$d/link_layer"; echo "4: ACTIVE" >"$d/state"
done
set -- 07 2 0f 3 47 0 4e 1 87 6 90 7 b7 4 bd 5
while [ $# -gt 0 ]; do
    mkdir -p "$work/proc/node001/driver/nvidia/gpus/0000:$1:00.0"
    printf 'Device Minor:\t %s\n' "$2" >"$work/proc/node001/driver/nvidia/gpus/0000:$1:00.0/information"
    shift 2
done
env_of() { "$TOPO" env "$work/dgx.view" --node node001 --sysfs-root "$work/sys/%n" --proc-root "$work/proc/%n" "$@" 2>&1; }

env_of --nodes node001,node003 >"$work/out"
cat >"$work/want" <<'TABLE'
node node001, 2 node(s) in the step; fabric generated (ib)
  ATOLL_ISLAND=pod-ib-leaf01 (the smallest island holding the step's nodes (pod))
  ATOLL_LEAVES=grp-ib-leaf01,grp-ib-leaf09 (2 leaf island(s) spanned)
  ATOLL_HOPS=4 (cables on the longest host-to-host path)
  NCCL_IB_HCA==mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1 (this node's compute-rail adapters, checked in sysfs)
  ATOLL_SHARP=1 (SHARP aggregation on every switch of pod-ib-leaf01, rails correct: a communicator may enable CollNet)
  ATOLL_SHARP_ISLAND=pod-ib-leaf01 (the island SHARP covers for this step)
  NCCL_COLLNET_ENABLE not set: left to the application per communicator (--fabric-sharp=on sets it)
TABLE
if grep -v -e '^  ATOLL_ENV_SET=' -e '^task' -e 'UCX_NET_DEVICES' "$work/out" | cmp -s - "$work/want"; then
    ok "DGX-like node over two rail groups: the eight compute rails, not the storage HCA; SHARP offered, CollNet left alone"
else
    not_ok "DGX-like node over two rail groups: the eight compute rails, not the storage HCA; SHARP offered, CollNet left alone"
    diag "$(diff "$work/want" "$work/out")"
fi
check "without hwloc_xml no UCX_NET_DEVICES, and why" grep -q "UCX_NET_DEVICES not set: no hwloc_xml= for GPU-to-HCA affinity" "$work/out"
# a user's variable is kept and shown as the user has it
env_of --nodes node001 --set NCCL_IB_HCA=mlx5_0 >"$work/kept"
check "a variable the user set is kept" grep -q "^  NCCL_IB_HCA=mlx5_0 (set by the user, kept)$" "$work/kept"
# the node's sysfs without the rails (another machine's names): nothing
env_of --sysfs-root "$work/nothing" >"$work/none"
check "no RDMA device: NCCL_IB_HCA not set, and why" grep -q "^  NCCL_IB_HCA not set: no RDMA device in sysfs ($work/nothing/class/infiniband)" "$work/none"

# RoCE, named by netdevs in the LLDP tables: the RDMA devices behind them
"$TOPO" slurm --format view "$DATA/lldp/2_three_interfaces.neighbors_details.json" -o "$work/roce.view"
h=2_three_interfaces
set -- mlx5_0 ens1f0np0 0a mlx5_1 ens1f1np1 0b mlx5_2 ens2f0np0 0c
while [ $# -gt 0 ]; do
    d="$work/sys/$h/class/infiniband/$1"
    mkdir -p "$d/ports/1/gid_attrs/ndevs" "$d/ports/1/gid_attrs/types" "$d/ports/1/gids" "$d/tc/1"
    echo Ethernet >"$d/ports/1/link_layer"; echo "4: ACTIVE" >"$d/ports/1/state"
    echo "$2" >"$d/ports/1/gid_attrs/ndevs/3"; echo "RoCE v2" >"$d/ports/1/gid_attrs/types/3"
    echo "0000:0000:0000:0000:0000:ffff:c0a8:${3}05" >"$d/ports/1/gids/3"
    echo "Global tclass=106" >"$d/tc/1/traffic_class"
    shift 3
done
"$TOPO" env "$work/roce.view" --node "$h" --sysfs-root "$work/sys/%n" >"$work/roce" 2>&1
if grep -q "^  NCCL_IB_HCA==mlx5_0:1,mlx5_1:1,mlx5_2:1 " "$work/roce" && grep -q "^  NCCL_IB_TC=106 " "$work/roce" &&
   grep -q "^  UCX_IB_TRAFFIC_CLASS=106 " "$work/roce" && grep -q "^  NCCL_IB_GID_INDEX=3 " "$work/roce" &&
   grep -q "^  UCX_IB_GID_INDEX=3 " "$work/roce" && ! grep -q "=.*ens" "$work/roce"; then
    ok "RoCE: device names behind the LLDP netdevs, the ports' class 106 and RoCE v2 GID 3 for NCCL and UCX alike"
else
    not_ok "RoCE: device names behind the LLDP netdevs, the ports' class 106 and RoCE v2 GID 3 for NCCL and UCX alike"; diag "$(cat "$work/roce")"
fi
# AWS: ATOLL_* only
"$TOPO" slurm --format view "$DATA/cloud/aws-instance-topology.json" -o "$work/aws.view"
"$TOPO" env "$work/aws.view" --node i-0a1 --nodes i-0a1,i-0a3 --sysfs-root "$work/sys/%n" >"$work/aws" 2>&1
if grep -q "^  ATOLL_ISLAND=" "$work/aws" && grep -q "^  NCCL_IB_HCA not set: AWS: aws-ofi-nccl configures EFA itself" "$work/aws" &&
   [ "$(grep -c '^  [A-Z_]*=' "$work/aws")" -eq 4 ]; then
    ok "AWS: the ATOLL_* variables only"
else
    not_ok "AWS: the ATOLL_* variables only"; diag "$(cat "$work/aws")"
fi
