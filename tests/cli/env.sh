#!/bin/sh
# atoll-topo env: the plugin's environment from the same code, on fixture
# sysfs and procfs trees built here, against tables worked out by hand (the
# same cases as tests/unit/test_env.cpp, through the command an admin runs).
. "$(dirname "$0")/../lib.sh"
plan 27
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
  ATOLL_DOMAIN not set: this node is in no NVLink domain of the fabric file
  ATOLL_DOMAINS not set: no node of the step is in an NVLink domain
  ATOLL_NODE_ORDER=node001,node003 (the step's nodes in topology order (pod, group, leaf, NVLink domain))
  ATOLL_NODE_RANK=0 (this node's place in that order, from 0)
TABLE
if grep -v -e '^  ATOLL_ENV_SET=' -e '^task' -e 'UCX_NET_DEVICES' -e '^  ATOLL_RANK' "$work/out" | cmp -s - "$work/want"; then
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
mkdir -p "$work/nothing/class"
env_of --sysfs-root "$work/nothing" >"$work/none"
check "no RDMA device: NCCL_IB_HCA not set, and why" grep -q "^  NCCL_IB_HCA not set: no RDMA device in sysfs ($work/nothing/class/infiniband)" "$work/none"

# InfiniBand adapters are matched by the node GUID the fabric saw (view 4),
# not by name: the kernel names mlx5_N in probe order, so a card that fails
# to probe (or one added) renumbers the rest (a helper's attack: the storage
# HCA took a rail's name and NCCL_IB_HCA named it). node001 again: a storage
# card now first (mlx5_0, a GUID the fabric never saw) and the eight rails
# one name later, each with its own GUID (the kernel's node_guid format)
guid_of() {  # the view's GUID of node001's mlx5_K, as the kernel writes it
    awk '$1 == "host" && $2 == "node001" { print $5 }' "$work/dgx.view" | tr ',' '\n' | sed -n "s/^mlx5_$1:1@//p" |
        sed 's/\(....\)\(....\)\(....\)\(....\)/\1:\2:\3:\4/'
}
for k in 0 1 2 3 4 5 6 7 8; do
    d="$work/ren/node001/class/infiniband/mlx5_$k"
    mkdir -p "$d/ports/1"; echo InfiniBand >"$d/ports/1/link_layer"; echo "4: ACTIVE" >"$d/ports/1/state"
    if [ $k = 0 ]; then echo "0c42:a103:00ff:0001" >"$d/node_guid"; else guid_of $((k - 1)) >"$d/node_guid"; fi
done
env_of --nodes node001 --sysfs-root "$work/ren/%n" >"$work/ren.out"
if grep -q "^  NCCL_IB_HCA==mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1,mlx5_8:1 (this node's compute-rail adapters, checked in sysfs by GUID (mlx5_0 is mlx5_1 here, ...))" "$work/ren.out"; then
    ok "renumbered InfiniBand devices: NCCL_IB_HCA names the fabric's adapters by GUID, not the storage card that took mlx5_0"
else not_ok "renumbered InfiniBand devices: NCCL_IB_HCA names the fabric's adapters by GUID"; diag "$(guid_of 0)" "$(cat "$work/ren.out")"; fi
# hca= names adapters as a healthy node does: on the renumbered node, the
# pattern keeping the storage card out by the fabric's names ('!mlx5_8' is
# none of the fabric's: it excludes nothing; 'mlx5_[0-7]') keeps the eight
# rails; matched against the kernel's new names it dropped mlx5_7 (mlx5_8 here)
# with no warning (a helper's attack)
env_of --nodes node001 --sysfs-root "$work/ren/%n" --hca 'mlx5_[0-7]' >"$work/ren-hca.out"
if grep -q "^  NCCL_IB_HCA==mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1,mlx5_8:1 " "$work/ren-hca.out"; then
    ok "hca= on a renumbered node selects by the fabric's adapter names: all eight rails kept"
else not_ok "hca= on a renumbered node selects by the fabric's adapter names"; diag "$(cat "$work/ren-hca.out")"; fi
# hca= patterns that select none of the rails (NCCL's ":port" syntax, a
# stray space): said so, not "not ACTIVE" (a helper's attack)
env_of --nodes node001 --sysfs-root "$work/ren/%n" --hca 'mlx5_0:1' >"$work/ren-none.out"
check "hca= selecting none of the rails says so, naming the patterns" \
    grep -q "^  NCCL_IB_HCA not set: hca='mlx5_0:1' selects none of this node's compute-rail adapters (mlx5_0,mlx5_1,.*without NCCL's :port)" "$work/ren-none.out"
# a device whose node_guid is all zero (a VF no one gave a GUID) under a
# rail's name is not the fabric's adapter: left out with the reason, not
# taken by name (a helper's attack)
cp -r "$work/sys" "$work/zero"
for k in 0 1 2 3 4 5 6 7; do guid_of $k >"$work/zero/node001/class/infiniband/mlx5_$k/node_guid"; done
echo "0000:0000:0000:0000" >"$work/zero/node001/class/infiniband/mlx5_2/node_guid"
env_of --nodes node001 --sysfs-root "$work/zero/%n" >"$work/zero.out"
check "an all-zero node GUID under a rail's name is another adapter: left out, and why" \
    grep -q "^  NCCL_IB_HCA==mlx5_0:1,mlx5_1:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1 (.*mlx5_2 here has no node GUID the fabric could have seen (its node_guid is all zero" "$work/zero.out"
# the kernel writes node_guid with %04x: an upper-case one is no kernel's
sed 's/[a-f]/\U&/g' "$work/zero/node001/class/infiniband/mlx5_3/node_guid" >"$work/upper"
cp "$work/upper" "$work/zero/node001/class/infiniband/mlx5_3/node_guid"
env_of --nodes node001 --sysfs-root "$work/zero/%n" >"$work/upper.out"
check "an upper-case node_guid is not as the kernel writes it: left out" \
    grep -q "^  NCCL_IB_HCA==mlx5_0:1,mlx5_1:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1 " "$work/upper.out"
# a view 3 (before GUIDs, an older atoll-topo's) is still read: by name
sed -e '1s/^atoll-view 4$/atoll-view 3/' -e 's/@[0-9a-f]\{16\}//g' "$work/dgx.view" >"$work/dgx3.view"
"$TOPO" env "$work/dgx3.view" --node node001 --nodes node001 --sysfs-root "$work/sys/%n" >"$work/v3.out" 2>&1
if head -1 "$work/dgx3.view" | grep -qx 'atoll-view 3' && ! grep -q ':1@' "$work/dgx3.view" &&
   grep -q "^  NCCL_IB_HCA==mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1 (this node's compute-rail adapters, checked in sysfs)$" "$work/v3.out"; then
    ok "a view 3 without GUIDs is still read, adapters by name"
else not_ok "a view 3 without GUIDs is still read, adapters by name"; diag "$(cat "$work/v3.out")"; fi
# a rail's card replaced: mlx5_3 is another adapter and no device has the
# fabric's GUID: it is left out and named, and rails no longer line up
for k in 0 1 2 3 4 5 6 7; do
    d="$work/rep/node001/class/infiniband/mlx5_$k"
    mkdir -p "$d/ports/1"; echo InfiniBand >"$d/ports/1/link_layer"; echo "4: ACTIVE" >"$d/ports/1/state"
    if [ $k = 3 ]; then echo "0c42:a103:00ff:0003" >"$d/node_guid"; else guid_of $k >"$d/node_guid"; fi
done
env_of --nodes node001 --sysfs-root "$work/rep/%n" >"$work/rep.out"
if grep -q "^  NCCL_IB_HCA==mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_4:1,mlx5_5:1,mlx5_6:1,mlx5_7:1 (.*; mlx5_3 here is another adapter (node GUID 0c42a10300ff0003, the fabric's mlx5_3 is $(guid_of 3 | tr -d :))" "$work/rep.out"; then
    ok "a replaced card: its name is not taken for the fabric's adapter, and the reason says so"
else not_ok "a replaced card: its name is not taken for the fabric's adapter"; diag "$(cat "$work/rep.out")"; fi

# RoCE, named by netdevs in the LLDP tables: the RDMA devices behind them
"$TOPO" slurm --format view "$DATA/lldp/2_three_interfaces.neighbors_details.json" --compute 'ens*' -o "$work/roce.view"
h=2_three_interfaces
set -- mlx5_0 ens1f0np0 0a mlx5_1 ens1f1np1 0b mlx5_2 ens2f0np0 0c
while [ $# -gt 0 ]; do
    mlx5_roce_port "$work/sys/$h/class/infiniband/$1" "$2" "0000:0000:0000:0000:0000:ffff:c0a8:${3}05"
    shift 3
done
"$TOPO" env "$work/roce.view" --node "$h" --sysfs-root "$work/sys/%n" >"$work/roce" 2>&1
if grep -q "^  NCCL_IB_HCA==mlx5_0:1,mlx5_1:1,mlx5_2:1 " "$work/roce" && grep -q "^  NCCL_IB_TC=106 " "$work/roce" &&
   grep -q "^  UCX_IB_TRAFFIC_CLASS=106 " "$work/roce" && grep -q "^  NCCL_IB_GID_INDEX=3 (the IPv4 RoCE v2 GID of every compute port here: what NCCL >= 2.21 picks itself" "$work/roce" &&
   grep -q "^  UCX_IB_GID_INDEX not set: UCX picks each port's RoCE v2 GID itself, IPv4 first (mlx5_0:1 3, mlx5_1:1 3, mlx5_2:1 3)" "$work/roce" &&
   ! grep -q "=.*ens" "$work/roce" && ! grep -q "GID_INDEX=1" "$work/roce"; then
    ok "RoCE: device names behind the LLDP netdevs, class 106, the IPv4 RoCE v2 GID 3 (never the link-local 1); UCX left to choose"
else
    not_ok "RoCE: device names behind the LLDP netdevs, class 106, the IPv4 RoCE v2 GID 3 (never the link-local 1); UCX left to choose"; diag "$(cat "$work/roce")"
fi
# ucx.conf: HOME's (as --set gives HOME) and the task's working directory's
# (--workdir) name UCX variables: atoll sets none of those (the environment
# would override the file), and a FIFO there, which UCX's read would block
# on, leaves every UCX variable unset within the bound
mkdir -p "$work/uhome" "$work/uwd" "$work/ufifo"
printf 'UCX_IB_TRAFFIC_CLASS = 96 ; mine\n' >"$work/uhome/ucx.conf"
printf '[x]\nCPU vendor = *\nUCX_IB_GID_INDEX=1\n' >"$work/uwd/ucx.conf"
mkfifo "$work/ufifo/ucx.conf"
"$TOPO" env "$work/roce.view" --node "$h" --sysfs-root "$work/sys/%n" --plugstack gid_index=3 --set HOME="$work/uhome" \
    --workdir "$work/uwd" >"$work/ucx-files" 2>&1
"$TOPO" env "$work/roce.view" --node "$h" --sysfs-root "$work/sys/%n" --plugstack gid_index=3 --workdir "$work/ufifo" >"$work/ucx-fifo" 2>&1
if grep -q "^  UCX_IB_TRAFFIC_CLASS not set: set in $work/uhome/ucx.conf, which UCX reads" "$work/ucx-files" &&
   grep -q "^  UCX_IB_GID_INDEX not set: set in ucx.conf of the task's working directory" "$work/ucx-files" &&
   grep -q "^  NCCL_IB_GID_INDEX=3 " "$work/ucx-files" && grep -q "^  NCCL_IB_TC=106 " "$work/ucx-files" &&
   ! grep -q "ATOLL_ENV_SET=.*UCX_" "$work/ucx-files" &&
   grep -q "^  UCX_IB_GID_INDEX not set: the user's ucx.conf '$work/ufifo/ucx.conf' was not read within 2 s" "$work/ucx-fifo" &&
   grep -q "^  NCCL_IB_GID_INDEX=3 " "$work/ucx-fifo"; then
    ok "ucx.conf (HOME's, the working directory's) names a UCX variable: atoll leaves it; a FIFO there: no UCX variable"
else not_ok "ucx.conf (HOME's, the working directory's) names a UCX variable: atoll leaves it"; diag "$(cat "$work/ucx-files" "$work/ucx-fifo")"; fi
# an nccl.conf not read in time: the RoCE classes say so (NCCL_IB_TC said
# "NCCL_IB_HCA is not atoll's", UCX_IB_TRAFFIC_CLASS nothing: a helper's attack)
mkdir -p "$work/stall"; mkfifo "$work/stall/.nccl.conf"
"$TOPO" env "$work/roce.view" --node "$h" --sysfs-root "$work/sys/%n" --set HOME="$work/stall" >"$work/stall.out" 2>&1
if grep -q "^  NCCL_IB_TC not set: the user's nccl.conf '$work/stall/.nccl.conf' was not read within 2 s" "$work/stall.out" &&
   grep -q "^  UCX_IB_TRAFFIC_CLASS not set: the user's nccl.conf '$work/stall/.nccl.conf' was not read within 2 s" "$work/stall.out"; then
    ok "a stalled nccl.conf: NCCL_IB_TC and UCX_IB_TRAFFIC_CLASS not set, and that is the reason given"
else not_ok "a stalled nccl.conf: NCCL_IB_TC and UCX_IB_TRAFFIC_CLASS not set, and that is the reason given"; diag "$(cat "$work/stall.out")"; fi
# a ucx.conf naming UCX_NET_DEVICES is the job's choice of devices, as the
# environment's is: their class was not checked, so no UCX_IB_TRAFFIC_CLASS
# but the site's roce_tc= (a helper's attack)
mkdir -p "$work/undev"
printf 'UCX_NET_DEVICES=mlx5_2:1\n' >"$work/undev/ucx.conf"
"$TOPO" env "$work/roce.view" --node "$h" --sysfs-root "$work/sys/%n" --set HOME="$work/undev" >"$work/undev.out" 2>&1
"$TOPO" env "$work/roce.view" --node "$h" --sysfs-root "$work/sys/%n" --workdir "$work/undev" --plugstack roce_tc=106 >"$work/undev-tc.out" 2>&1
if grep -q "^  UCX_IB_TRAFFIC_CLASS not set: UCX_NET_DEVICES is set in $work/undev/ucx.conf: the traffic class" "$work/undev.out" &&
   grep -q "^  NCCL_IB_TC=106 " "$work/undev.out" && grep -q "^  UCX_IB_TRAFFIC_CLASS=106 (site RoCE traffic class (roce_tc)" "$work/undev-tc.out"; then
    ok "UCX_NET_DEVICES in a ucx.conf: no UCX_IB_TRAFFIC_CLASS from the ports, the site's roce_tc= still"
else not_ok "UCX_NET_DEVICES in a ucx.conf: no UCX_IB_TRAFFIC_CLASS from the ports"; diag "$(cat "$work/undev.out" "$work/undev-tc.out")"; fi
# LLDP taken on the hosts alone shows no switch above the leaves: whether the
# rail planes meet there is not known, so no NCCL_CROSS_NIC=0 (a helper's
# attack: it was set "on rail planes that do not meet above the leaves")
if grep -q '^rails 1 1$' "$work/roce.view" && ! grep -q "NCCL_CROSS_NIC=" "$work/roce"; then
    ok "host-side LLDP only: the rails may meet above the leaves, no NCCL_CROSS_NIC"
else not_ok "host-side LLDP only: the rails may meet above the leaves, no NCCL_CROSS_NIC"; diag "$(grep '^rails' "$work/roce.view")" "$(cat "$work/roce")"; fi
# real GID tables (show_gids pasted in NVIDIA/nccl#1131 and #1573), their
# netdevs renamed to the LLDP fixture's; expected indexes worked from
# ncclIbGetGidIndex (NCCL 2.21+) and uct_ib_device_select_gid
table_node() {  # TABLE HOST: HOST's sysfs from a show_gids table with two devices; mlx5_2 a copy of mlx5_1 at .99
    rm -rf "$work/sys/$2"
    sed -e "s/$3/ens1f0np0/; s/$4/ens1f1np1/" "$1" >"$work/$2.gids"
    awk '$1 == "mlx5_1" { $1 = "mlx5_2"; $NF = "ens2f0np0"; sub(/:....$/, ":6399", $4); print }' "$work/$2.gids" >>"$work/$2.gids"
    sysfs_from_show_gids "$work/$2.gids" "$work/sys/$2"
}
table_node "$DATA/roce/nccl1131.show_gids" "$h" ens3np0 ens2np0
"$TOPO" env "$work/roce.view" --node "$h" --sysfs-root "$work/sys/%n" >"$work/t1131" 2>&1
check "nccl#1131's table (link-local at 0/1, IPv4 at 2/3): NCCL_IB_GID_INDEX=3" grep -q "^  NCCL_IB_GID_INDEX=3 " "$work/t1131"
table_node "$DATA/roce/nccl1573-macvlan.show_gids" "$h" net1 net2
"$TOPO" env "$work/roce.view" --node "$h" --sysfs-root "$work/sys/%n" >"$work/t1573" 2>&1
if grep -q "^  NCCL_IB_GID_INDEX=7 " "$work/t1573" && grep -q "^  UCX_IB_GID_INDEX not set: .*(mlx5_0:1 7, mlx5_1:1 7, mlx5_2:1 7)" "$work/t1573"; then
    ok "nccl#1573's macvlan table (slots 0-3 empty): NCCL_IB_GID_INDEX=7, UCX's own 7"
else
    not_ok "nccl#1573's macvlan table (slots 0-3 empty): NCCL_IB_GID_INDEX=7, UCX's own 7"; diag "$(cat "$work/t1573")"
fi
# a user's address family: NCCL chooses from it, no index overrides it
"$TOPO" env "$work/roce.view" --node "$h" --sysfs-root "$work/sys/%n" --set NCCL_IB_ADDR_FAMILY=AF_INET6 >"$work/tfam" 2>&1
check "a user's NCCL_IB_ADDR_FAMILY=AF_INET6 is not overridden by an index" \
    grep -q "^  NCCL_IB_GID_INDEX not set: the user's NCCL_IB_ADDR_FAMILY chooses NCCL's GID" "$work/tfam"
# NCCL reads NCCL_CONF_FILE instead of HOME/.nccl.conf (misc/param.cc
# initEnvFunc): a HOME file's NCCL_IB_HCA does not count when the job names another
mkdir -p "$work/home"
echo "NCCL_IB_HCA=mlx5_9" >"$work/home/.nccl.conf"
echo "NCCL_DEBUG=INFO" >"$work/job.conf"
env_of --nodes node001 --set HOME="$work/home" >"$work/h1"
env_of --nodes node001 --set HOME="$work/home" --set NCCL_CONF_FILE="$work/job.conf" >"$work/h2"
if grep -q "^  NCCL_IB_HCA (set in $work/home/.nccl.conf, kept)" "$work/h1" && grep -q "^  NCCL_IB_HCA==mlx5_0:1," "$work/h2"; then
    ok "HOME's .nccl.conf counts, unless NCCL_CONF_FILE replaces it as NCCL does"
else
    not_ok "HOME's .nccl.conf counts, unless NCCL_CONF_FILE replaces it as NCCL does"; diag "$(cat "$work/h1" "$work/h2")"
fi
# a file NCCL reads whole that atoll cannot (past 64 KiB), or one it cannot
# find (a relative NCCL_CONF_FILE, opened from the task's directory): what it
# sets is not known, so no NCCL variable is set, and the reason is said
awk 'BEGIN { for (i = 0; i < 700; i++) printf "#%099d\n", i; print "NCCL_IB_HCA=mlx5_9" }' >"$work/home/.nccl.conf"
env_of --nodes node001 --set HOME="$work/home" >"$work/h3"
env_of --nodes node001 --set HOME="$work/home" --set NCCL_CONF_FILE=job.conf >"$work/h4"
if grep -q "^  NCCL_IB_HCA not set: the user's nccl.conf '$work/home/.nccl.conf' is longer than 64 KiB" "$work/h3" &&
   grep -q "^  warning: the user's nccl.conf '$work/home/.nccl.conf' is longer than 64 KiB" "$work/h3" &&
   grep -q "^  ATOLL_ISLAND=" "$work/h3" && ! grep -q '^  NCCL_[A-Z_]*=' "$work/h3" &&
   grep -q "^  NCCL_IB_HCA not set: NCCL_CONF_FILE 'job.conf' is a relative path" "$work/h4"; then
    ok "an nccl.conf past 64 KiB, or a relative NCCL_CONF_FILE: no NCCL variable set, the reason said"
else
    not_ok "an nccl.conf past 64 KiB, or a relative NCCL_CONF_FILE: no NCCL variable set, the reason said"; diag "$(cat "$work/h3" "$work/h4")"
fi
# NCCL before 2.30 reads the passwd home's .nccl.conf, not HOME's
# (--user: the job's user, as the plugin looks up the job's uid)
pwhome=$(getent passwd "$(id -un)" | cut -d: -f6)
env_of --nodes node001 --set HOME="$work/home2" --user "$(id -un)" >"$work/h5"
env_of --nodes node001 --user no-such-user-atoll >"$work/h6"; rc=$?
if grep -q "^  NCCL_IB_HCA==mlx5_0:1," "$work/h5" && [ $rc -eq 2 ] && grep -q "user no-such-user-atoll: no such user" "$work/h6"; then
    ok "--user: the passwd home ($pwhome) looked at beside HOME; an unknown user is a usage error"
else
    not_ok "--user: the passwd home ($pwhome) looked at beside HOME; an unknown user is a usage error"; diag "rc $rc" "$(cat "$work/h5" "$work/h6")"
fi
# --user reads the job's nccl.conf files as that user (uid, gid and groups),
# as the plugin's reader does in slurmstepd: a file only root can read is no
# file for the job; run by anyone but root, --user leaves the files unknown
if [ "$(id -u)" = 0 ] && getent passwd nobody >/dev/null && command -v setpriv >/dev/null; then
    pub=$(mktemp -d /tmp/atoll-env-user.XXXXXX)
    chmod 755 "$pub"
    mkdir -p "$pub/home"
    echo "NCCL_IB_HCA=mlx5_9" >"$pub/home/.nccl.conf"
    chmod 600 "$pub/home/.nccl.conf"
    echo "NCCL_IB_HCA=mlx5_9" >"$pub/group.conf"
    chgrp "$(id -gn nobody)" "$pub/group.conf"
    chmod 640 "$pub/group.conf"
    cp "$work/dgx.view" "$pub/dgx.view" && cp -r "$work/sys" "$pub/sys" && chmod -R a+rX "$pub/dgx.view" "$pub/sys"
    env_of --nodes node001 --set HOME="$pub/home" >"$work/u1"
    env_of --nodes node001 --set HOME="$pub/home" --user nobody >"$work/u2"
    env_of --nodes node001 --set HOME="$pub/home" --set NCCL_CONF_FILE="$pub/group.conf" --user nobody >"$work/u3"
    setpriv --reuid=nobody --regid="$(id -gn nobody)" --clear-groups \
        "$TOPO" env "$pub/dgx.view" --node node001 --nodes node001 --sysfs-root "$pub/sys/%n" --set HOME="$pub/home" --user root >"$work/u4" 2>&1
    if grep -q "^  NCCL_IB_HCA (set in $pub/home/.nccl.conf, kept)" "$work/u1" &&
       grep -q "^  NCCL_IB_HCA==mlx5_0:1," "$work/u2" &&
       grep -q "^  NCCL_IB_HCA (set in $pub/group.conf, kept)" "$work/u3" &&
       grep -q "^  NCCL_IB_HCA not set: atoll-topo env runs as uid [0-9]*, not as --user's uid 0, and only root can read files as another user" "$work/u4" &&
       ! grep -q '^  NCCL_[A-Z_]*=' "$work/u4"; then
        ok "--user: the nccl.conf files read as that user (a root-only file is none, its group's is read); not root: unknown"
    else
        not_ok "--user: the nccl.conf files read as that user (a root-only file is none, its group's is read); not root: unknown"
        diag "$(cat "$work/u1" "$work/u2" "$work/u3" "$work/u4")"
    fi
    rm -rf "$pub"
else
    ok "# SKIP --user reading as another user needs root, a nobody user and setpriv"
fi
# the task's global rank: the step's nodes in topology order (node001's
# leaf before node003's), node rank x tasks per node + Slurm's local id, as
# SLURM_PROCID is for a block layout in that order
"$TOPO" env "$work/dgx.view" --node node003 --nodes node003,node001 --sysfs-root "$work/sys/%n" --tasks-per-node 8 --local-id 3 >"$work/r1" 2>&1
env_of --nodes node003,node001 >"$work/r2"
env_of --nodes node003,node001 --tasks-per-node 8 --local-id 8 >"$work/r3"; rc=$?
if grep -q "^  ATOLL_RANK=11 (node rank 1 x 8 tasks per node + local id 3" "$work/r1" &&
   grep -q "^  ATOLL_RANK not set: --tasks-per-node not given" "$work/r2" &&
   [ $rc -eq 2 ] && grep -q -- "--local-id 8: expected less than --tasks-per-node 8" "$work/r3"; then
    ok "ATOLL_RANK in the dry run: node rank 1 x 8 + local id 3 = 11; none without the layout; a local id past it refused"
else
    not_ok "ATOLL_RANK in the dry run: node rank 1 x 8 + local id 3 = 11; none without the layout; a local id past it refused"
    diag "rc $rc" "$(cat "$work/r1" "$work/r2" "$work/r3")"
fi
# AWS: ATOLL_* only
"$TOPO" slurm --format view "$DATA/cloud/aws-instance-topology.json" -o "$work/aws.view"
"$TOPO" env "$work/aws.view" --node i-0a1 --nodes i-0a1,i-0a3 --sysfs-root "$work/sys/%n" >"$work/aws" 2>&1
if grep -q "^  ATOLL_ISLAND=" "$work/aws" && grep -q "^  NCCL_IB_HCA not set: AWS: aws-ofi-nccl configures EFA itself" "$work/aws" &&
   [ "$(grep -c '^  [A-Z_]*=' "$work/aws")" -eq 6 ] && ! grep '^  [A-Z_]*=' "$work/aws" | grep -qv '^  ATOLL_'; then
    ok "AWS: the ATOLL_* variables only"
else
    not_ok "AWS: the ATOLL_* variables only"; diag "$(cat "$work/aws")"
fi
# Azure ND v5 on a CSV fabric (no adapter names): the InfiniBand ports from
# sysfs, mlx5_ib0..7, never mlx5_an0 (Microsoft's "Enable InfiniBand" and ND
# H100 v5 pages name them so); the image's /etc/nccl.conf missing is said
"$TOPO" slurm --format view "$DATA/csv/crux_topology_hosts.csv" -o "$work/az.view"
for d in mlx5_ib0 mlx5_ib1 mlx5_ib2 mlx5_ib3 mlx5_ib4 mlx5_ib5 mlx5_ib6 mlx5_ib7 mlx5_an0; do
    p="$work/sys/h0001/class/infiniband/$d/ports/1"
    mkdir -p "$p"; echo InfiniBand >"$p/link_layer"; echo "4: ACTIVE" >"$p/state"
done
echo Ethernet >"$work/sys/h0001/class/infiniband/mlx5_an0/ports/1/link_layer"
mkdir -p "$work/root/h0001/etc" "$work/root/h0002/etc" "$work/root/h0002/opt/microsoft/ndv5"
az_of() { "$TOPO" env "$work/az.view" --node h0001 --plugstack fabric_type=azure --sysfs-root "$work/sys/%n" \
              --machine-type Standard_ND96isr_H100_v5 "$@" 2>&1; }
az_of --root "$work/root/h0001" >"$work/az"
# the image's nccl.conf for ND v5 (azhpc-images), its topology file present
cp "$DATA/cloudenv/azure-ndv5.nccl.conf" "$work/root/h0002/etc/nccl.conf"
: >"$work/root/h0002/opt/microsoft/ndv5/topo.xml"
az_of --root "$work/root/h0002" >"$work/az2"
if grep -q "^  NCCL_IB_HCA==mlx5_ib0:1,mlx5_ib1:1,mlx5_ib2:1,mlx5_ib3:1,mlx5_ib4:1,mlx5_ib5:1,mlx5_ib6:1,mlx5_ib7:1 (the fabric names no adapter" "$work/az" &&
   grep -q "left out: mlx5_an0 port 1: accelerated networking" "$work/az" &&
   grep -q "^  error: cloud-profile: .*no /etc/nccl.conf" "$work/az" &&
   ! grep -q "error: cloud-profile" "$work/az2" && grep -q "^  NCCL_IB_HCA==mlx5_ib0:1," "$work/az2"; then
    ok "Azure: the InfiniBand ports from sysfs, not mlx5_an0; a missing image nccl.conf is an error"
else
    not_ok "Azure: the InfiniBand ports from sysfs, not mlx5_an0; a missing image nccl.conf is an error"; diag "$(cat "$work/az" "$work/az2")"
fi
# AWS p5.48xlarge, named by EC2's DMI: aws-ofi-nccl >= 1.7.0 (the first with a
# p5.48xlarge platform entry) is expected, and none of its variables set
mkdir -p "$work/sys/i-0a1/class/dmi/id" "$work/root/i-0a1"
echo "Amazon EC2" >"$work/sys/i-0a1/class/dmi/id/sys_vendor"
echo "p5.48xlarge" >"$work/sys/i-0a1/class/dmi/id/product_name"
"$TOPO" env "$work/aws.view" --node i-0a1 --nodes i-0a1,i-0a3 --sysfs-root "$work/sys/%n" --root "$work/root/i-0a1" >"$work/p5" 2>&1
if grep -q "^cloud aws (aws-ofi-nccl), machine type 'p5.48xlarge'" "$work/p5" &&
   grep -q "^  error: cloud-profile: 'p5.48xlarge' needs aws-ofi-nccl >= 1.7.0" "$work/p5" &&
   ! grep -Eq "^  (FI_EFA_FORK_SAFE|NCCL_PROTO|NCCL_BUFFSIZE|NCCL_P2P_NET_CHUNKSIZE|NCCL_NVLS_CHUNKSIZE|NCCL_TOPO_FILE)=" "$work/p5"; then
    ok "AWS p5.48xlarge: an aws-ofi-nccl older than its platform entry or missing is an error; none of its variables set"
else
    not_ok "AWS p5.48xlarge: an aws-ofi-nccl older than its platform entry or missing is an error; none of its variables set"; diag "$(cat "$work/p5")"
fi
