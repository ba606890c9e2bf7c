#!/bin/sh
# atoll-topo env on RoCE and GPU nodes as a helper's attack built them (2026-12-04):
# the kernel's port states, link-local addresses beyond fe80::/64 and in
# 169.254/16, the mlx5 traffic_class file, a user's own NCCL_IB_HCA, a soft-RoCE
# device over the NIC's netdev, a host whose NICs LLDP could not tell apart, a
# rail missing under NCCL_CROSS_NIC=0, and a saved hwloc XML that no longer
# matches sysfs; (helper 19, 2026-12-05) a DOWN port whose GID moved, an
# unreadable state file, a front-end RoCE device UCX opens too. Each case: a
# value atoll used to set that is wrong there.
# Expected values from the kernel (drivers/infiniband/core/sysfs.c state_show:
# "%d: %s", 4 ACTIVE, 5 ACTIVE_DEFER), RFC 4291 / RFC 3927, MLNX's
# traffic_class_show ("Global tclass=%d"), and NCCL/UCX opening only
# IBV_PORT_ACTIVE ports.
. "$(dirname "$0")/../lib.sh"
plan 36
work=$(tmpdir)
h=2_three_interfaces
"$TOPO" slurm --format view "$DATA/lldp/$h.neighbors_details.json" --compute 'ens*' -o "$work/roce.view"
# port DEV NETDEV GID2: an mlx5 RoCE port (lib.sh)
port() { mlx5_roce_port "$work/sys/$h/class/infiniband/$1" "$2" "$3"; }
# node KIND: the three ports, with KIND's addresses
node() {
    rm -rf "$work/sys/$h"
    case $1 in
    v4) a=0000:0000:0000:0000:0000:ffff:c0a8:0a05 b=0000:0000:0000:0000:0000:ffff:c0a8:0b05 c=0000:0000:0000:0000:0000:ffff:c0a8:0c05 ;;
    ll10) a=fe80:0000:0000:0001:0000:0000:0000:0001 b=febf:0000:0000:0000:0000:0000:0000:0001 c=fe80:0000:0000:0001:0000:0000:0000:0003 ;;
    apipa) a=0000:0000:0000:0000:0000:ffff:a9fe:0a05 b=0000:0000:0000:0000:0000:ffff:a9fe:0b05 c=0000:0000:0000:0000:0000:ffff:a9fe:0c05 ;;
    mixed) a=0000:0000:0000:0000:0000:ffff:c0a8:0a05 b=2001:0db8:0000:000b:0000:0000:0000:0005 c=2001:0db8:0000:000c:0000:0000:0000:0005 ;;
    v6) a=2001:0db8:0000:000a:0000:0000:0000:0005 b=2001:0db8:0000:000b:0000:0000:0000:0005 c=2001:0db8:0000:000c:0000:0000:0000:0005 ;;
    esac
    port mlx5_0 ens1f0np0 "$a"; port mlx5_1 ens1f1np1 "$b"; port mlx5_2 ens2f0np0 "$c"
}
# tc_all CLASS: the mlx5 traffic_class file of the three ports
tc_all() { for d in mlx5_0 mlx5_1 mlx5_2; do echo "Global tclass=$1" >"$work/sys/$h/class/infiniband/$d/tc/1/traffic_class"; done; }
env_of() { "$TOPO" env "$work/roce.view" --node "$h" --sysfs-root "$work/sys/%n" "$@" 2>&1; }

# 5: ACTIVE_DEFER is not ACTIVE: NCCL and UCX open state 4 alone; it stays
# in NCCL_IB_HCA, and NCCL opens it should it come up first, so its GID
# table is read too (helper 19: one DOWN port whose IPv4 GID moved to 5
# got NCCL_IB_GID_INDEX=3, an empty slot there)
node v4
echo "5: ACTIVE_DEFER" >"$work/sys/$h/class/infiniband/mlx5_0/ports/1/state"
env_of >"$work/defer"
if grep -q "^  NCCL_IB_HCA==mlx5_0:1,mlx5_1:1,mlx5_2:1 (.*mlx5_0 port 1 is 5: ACTIVE_DEFER (NCCL skips it while it stays so)" "$work/defer" &&
   grep -q "^  NCCL_IB_GID_INDEX=3 " "$work/defer" &&
   grep -q "^  UCX_IB_GID_INDEX not set: .*(mlx5_0:1 (5: ACTIVE_DEFER now, opened should it come up) 3, mlx5_1:1 3, mlx5_2:1 3)$" "$work/defer"; then
    ok "a port in 5: ACTIVE_DEFER is not ACTIVE: named as skipped, its GID table read all the same"
else
    not_ok "a port in 5: ACTIVE_DEFER is not ACTIVE"; diag "$(cat "$work/defer")"
fi
# gid_move DEV: DEV's IPv4 GIDs at 4 and 5, slots 2 and 3 empty (the kernel
# gives a re-added address the first free slots after a flap)
gid_move() {
    q="$work/sys/$h/class/infiniband/$1/ports/1"
    for i in 2 3; do
        mv "$q/gids/$i" "$q/gids/$((i + 2))"; mv "$q/gid_attrs/types/$i" "$q/gid_attrs/types/$((i + 2))"
        mv "$q/gid_attrs/ndevs/$i" "$q/gid_attrs/ndevs/$((i + 2))"
        echo "0000:0000:0000:0000:0000:0000:0000:0000" >"$q/gids/$i"
    done
}
node v4
gid_move mlx5_0
echo "1: DOWN" >"$work/sys/$h/class/infiniband/mlx5_0/ports/1/state"
env_of >"$work/down"
env_of --plugstack gid_index=3 >"$work/downpin"
rm "$work/sys/$h/class/infiniband/mlx5_0/ports/1/state"; mkfifo "$work/sys/$h/class/infiniband/mlx5_0/ports/1/state"
env_of --plugstack gid_index=3 >"$work/fifopin"
if grep -q "^  NCCL_IB_GID_INDEX not set: the ports' IPv4 RoCE v2 GIDs have different indexes" "$work/down" &&
   grep -q "^  NCCL_IB_GID_INDEX not set: gid_index=3 is no address on mlx5_0:1 (1: DOWN now, opened should it come up)" "$work/downpin" &&
   grep -q "^  UCX_IB_GID_INDEX not set: gid_index=3 is no address on mlx5_0:1 " "$work/downpin" &&
   grep -q "^  NCCL_IB_HCA==.*mlx5_0 port 1 is in no known state (its state file unread: NCCL opens it if it is up)" "$work/fifopin" &&
   grep -q "^  NCCL_IB_GID_INDEX not set: gid_index=3 is no address on mlx5_0:1:" "$work/fifopin"; then
    ok "a DOWN or unreadable port in NCCL_IB_HCA: its GID table decides the index with the others', pinned or not"
else
    not_ok "a DOWN or unreadable port in NCCL_IB_HCA: its GID table decides the index"; diag "$(cat "$work/down" "$work/downpin" "$work/fifopin")"
fi
# a front-end RoCE device the fabric does not name: UCX opens it too unless
# UCX_NET_DEVICES names others, so a pinned UCX_IB_GID_INDEX must hold there,
# and a class read from the compute ports must be UCX's own there (106)
node v4
port mlx5_3 eno1np0 0000:0000:0000:0000:0000:ffff:0a00:0005
q="$work/sys/$h/class/infiniband/mlx5_3"
echo "0000:0000:0000:0000:0000:0000:0000:0000" >"$q/ports/1/gids/3"; rm "$q/tc/1/traffic_class"
env_of --plugstack gid_index=3 >"$work/fepin"
tc_all 96
env_of >"$work/fetc96"
tc_all 106
env_of >"$work/fetc106"
if grep -q "^  NCCL_IB_GID_INDEX=3 (site RoCE GID index (gid_index))" "$work/fepin" &&
   grep -q "^  UCX_IB_GID_INDEX not set: gid_index=3 is no address on mlx5_3:1, no compute port, which UCX opens too" "$work/fepin" &&
   grep -q "^  NCCL_IB_TC=96 " "$work/fetc96" &&
   grep -q "^  UCX_IB_TRAFFIC_CLASS not set: mlx5_3:1 has no class configured (UCX's 106 there), no compute port" "$work/fetc96" &&
   grep -q "^  UCX_IB_TRAFFIC_CLASS=106 " "$work/fetc106"; then
    ok "a front-end RoCE device: a pinned UCX_IB_GID_INDEX and a class read from the compute ports must hold there too"
else
    not_ok "a front-end RoCE device: UCX's index and class must hold there too"; diag "$(cat "$work/fepin" "$work/fetc96" "$work/fetc106")"
fi
# (helper 46) the user's NCCL_IB_HCA names that front-end device too: by
# prefix (mlx5 matches mlx5_3) or as an empty list (every device,
# matchIfList): the user's index must hold there
env_of --set NCCL_IB_HCA=mlx5 --set NCCL_IB_GID_INDEX=3 >"$work/feprefix"
env_of --set NCCL_IB_HCA= --set NCCL_IB_GID_INDEX=3 >"$work/feempty"
env_of --set NCCL_IB_HCA==mlx5_0,mlx5_1,mlx5_2 --set NCCL_IB_GID_INDEX=3 >"$work/feexact"
check "the user's NCCL_IB_GID_INDEX on a front-end port the user's NCCL_IB_HCA names (prefix, empty list): warned; not when it names the rails alone" \
    sh -c 'for f in "$1" "$2"; do grep -q "^  warning: NCCL_IB_GID_INDEX=3 (the user.s) is no address on mlx5_3:1, a port the NCCL_IB_HCA in force names" "$f" || exit 1; done
           ! grep -q "warning: NCCL_IB_GID_INDEX" "$3"' _ "$work/feprefix" "$work/feempty" "$work/feexact"
# an NCCL_IB_HCA the user's nccl.conf sets is not read here: not taken for
# an empty list naming every device (that warned of the front-end port)
printf 'NCCL_IB_HCA==mlx5_0,mlx5_1,mlx5_2\n' >"$work/fe-nccl.conf"
env_of --set NCCL_CONF_FILE="$work/fe-nccl.conf" --set NCCL_IB_GID_INDEX=3 >"$work/feconf"
check "NCCL_IB_HCA from the user's nccl.conf: the user's index checked on the compute ports, no warning of the front-end one" \
    sh -c '! grep -q "warning: NCCL_IB_GID_INDEX" "$1" && grep -q "^  NCCL_IB_HCA (set in " "$1"' _ "$work/feconf"
# the site's pin (helper 21): not over the user's own NCCL_IB_HCA where a
# device it may name lacks the index, nor over the user's address family;
# an InfiniBand port (its table not read) blocks UCX's in any state; a
# compute port DOWN with no address and no tc directory leaves the class
node v4
port mlx5_3 eno1np0 0000:0000:0000:0000:0000:ffff:0a00:0005
echo "0000:0000:0000:0000:0000:0000:0000:0000" >"$work/sys/$h/class/infiniband/mlx5_3/ports/1/gids/3"
env_of --plugstack gid_index=3 --set NCCL_IB_HCA=mlx5_3 >"$work/pinhca"
rm -r "$work/sys/$h/class/infiniband/mlx5_3"
env_of --plugstack gid_index=3 --set NCCL_IB_ADDR_FAMILY=AF_INET6 >"$work/pinfam"
d="$work/sys/$h/class/infiniband/mlx5_4/ports/1"
mkdir -p "$d"; echo InfiniBand >"$d/link_layer"; echo "2: INIT" >"$d/state"
env_of --plugstack gid_index=3 >"$work/pinib"
rm -r "$work/sys/$h/class/infiniband/mlx5_4"
q="$work/sys/$h/class/infiniband/mlx5_2"
echo "1: DOWN" >"$q/ports/1/state"; rm -r "$q/tc"
for i in 2 3; do echo "0000:0000:0000:0000:0000:0000:0000:0000" >"$q/ports/1/gids/$i"; done
env_of >"$work/downtc"
if grep -q "^  NCCL_IB_GID_INDEX not set: gid_index=3 is no address on mlx5_3:1, no compute port, which the devices NCCL_IB_HCA names" "$work/pinhca" &&
   grep -q "^  NCCL_IB_GID_INDEX not set: the user's NCCL_IB_ADDR_FAMILY chooses NCCL's GID" "$work/pinfam" &&
   grep -q "^  UCX_IB_GID_INDEX=3 " "$work/pinfam" &&
   grep -q "^  NCCL_IB_GID_INDEX=3 " "$work/pinib" && grep -q "^  UCX_IB_GID_INDEX not set: gid_index=3 is not read (an 'InfiniBand' port) on mlx5_4:1" "$work/pinib" &&
   grep -q "^  NCCL_IB_TC=106 " "$work/downtc"; then
    ok "gid_index= gives way to the user's NCCL_IB_HCA and address family, and to an InfiniBand port for UCX; a DOWN port without address or class keeps the class"
else
    not_ok "gid_index= against the user's NCCL_IB_HCA, family and an InfiniBand port; a DOWN port's class"; diag "$(cat "$work/pinhca" "$work/pinfam" "$work/pinib" "$work/downtc")"
fi
# IPv6 link-local is fe80::/10, not just fe80::/64; IPv4 link-local 169.254/16
node ll10
env_of >"$work/ll10"
check "IPv6 GIDs in fe80::/10 beyond fe80::/64 (fe80:0:0:1::1, febf::1) are link-local: no NCCL_IB_GID_INDEX" \
    grep -q "^  NCCL_IB_GID_INDEX not set: mlx5_0:1 has no routable RoCE v2 GID" "$work/ll10"
node apipa
env_of >"$work/apipa"
check "IPv4 GIDs in 169.254/16 (no DHCP lease) are link-local: no NCCL_IB_GID_INDEX, nor UCX's, which would take it" \
    sh -c 'grep -q "^  NCCL_IB_GID_INDEX not set: mlx5_0:1 has no routable RoCE v2 GID" "$1" &&
           grep -q "^  UCX_IB_GID_INDEX not set: mlx5_0:1 has no routable RoCE v2 GID (UCX alone would take 3 on mlx5_0:1, a link-local" "$1"' _ "$work/apipa"
# (helper 46) a 169.254 address first (2, 3), the routable one after it (4,
# 5): UCX takes the first IPv4 RoCE v2 GID, 3 (uct_ib_device_select_gid), so
# leaving UCX to choose sent it to a GID routers drop; both get 5
node apipa
for d in mlx5_0 mlx5_1 mlx5_2; do
    g="$work/sys/$h/class/infiniband/$d/ports/1"
    echo "0000:0000:0000:0000:0000:ffff:c0a8:0a1$d" | sed 's/mlx5_//' >"$g/gids/4"; cp "$g/gids/4" "$g/gids/5"
    echo "IB/RoCE v1" >"$g/gid_attrs/types/4"; echo "RoCE v2" >"$g/gid_attrs/types/5"
    cp "$g/gid_attrs/ndevs/3" "$g/gid_attrs/ndevs/4"; cp "$g/gid_attrs/ndevs/3" "$g/gid_attrs/ndevs/5"
done
env_of >"$work/apipa5"
check "a 169.254 GID before the routable one: NCCL_IB_GID_INDEX and UCX_IB_GID_INDEX are both 5 (UCX alone takes 3)" \
    sh -c 'grep -q "^  NCCL_IB_GID_INDEX=5 (the only routable RoCE v2 GID of every compute port here (IPv4); NCCL alone would take 3" "$1" &&
           grep -q "^  UCX_IB_GID_INDEX=5 (the only routable RoCE v2 GID of every compute port here (IPv4); UCX alone would take 3 on mlx5_0:1, a link-local" "$1"' _ "$work/apipa5"
# (helper 49) one index serves every device UCX opens: a front-end RoCE
# port whose slot 5 is empty takes the 5 back (NCCL's stays: NCCL_IB_HCA is
# atoll's compute ports)
port mlx5_3 eno1np0 0000:0000:0000:0000:0000:ffff:0a00:0005
env_of >"$work/apipa5fe"
check "a front-end port without slot 5: UCX_IB_GID_INDEX not set, said why; NCCL_IB_GID_INDEX still 5" \
    sh -c 'grep -q "^  UCX_IB_GID_INDEX not set: index 5 is no address on mlx5_3:1, no compute port, which UCX opens too" "$1" &&
           grep -q "^  NCCL_IB_GID_INDEX=5 " "$1"' _ "$work/apipa5fe"
# (helper 49) IPv6-only ports: UCX before 1.21 (openucx/ucx#10939) takes the
# fe80 RoCE v2 GID at 1, which routers drop; 1.21 takes 3: both get 3
node v6
env_of >"$work/v6"
check "IPv6-only ports: UCX_IB_GID_INDEX=3, since UCX before 1.21 would take the link-local 1" \
    grep -q "^  UCX_IB_GID_INDEX=3 (the only routable RoCE v2 GID of every compute port here (IPv6); UCX alone would take 1 on mlx5_0:1 (UCX before 1.21), a link-local" "$work/v6"
# (helper 46) NCCL reads its parameters by strtoll and keeps its default only
# on errno (ncclLoadParam): "auto" has no digits and is index 0, mlx5's
# link-local RoCE v1 GID; an empty value is NCCL's own choice
node v4
env_of --set NCCL_IB_GID_INDEX=auto >"$work/gidauto"
env_of --set NCCL_IB_GID_INDEX= >"$work/gidempty"
# (helper 49) NCCL keeps the index in an int (ncclIbGetGidIndex): 2^32+1 is
# 1, the link-local RoCE v2 GID; and it reads NCCL_IB_HCA's port with atoi
# (mlx5_1:01 is port 1)
node v4
gid_move mlx5_1
env_of --set NCCL_IB_GID_INDEX=4294967297 >"$work/gidwrap"
env_of --set NCCL_IB_HCA==mlx5_1:01 --set NCCL_IB_GID_INDEX=3 >"$work/gidport"
env_of --set NCCL_IB_GID_INDEX=259 >"$work/gid259"
check "NCCL_IB_GID_INDEX=4294967297 is 1 to NCCL (an int); NCCL_IB_HCA==mlx5_1:01 names port 1: both warned" \
    sh -c 'grep -q "^  warning: NCCL_IB_GID_INDEX=4294967297 (the user.s), which NCCL stores as 1 (an int), from 4294967297, is a link-local" "$1" &&
           grep -q "^  warning: NCCL_IB_GID_INDEX=3 (the user.s) is no address on mlx5_1:1" "$2"' _ "$work/gidwrap" "$work/gidport"
# NCCL before 2.21 puts the 64-bit parameter straight into the 8-bit sgid_index
check "NCCL_IB_GID_INDEX=259: beyond any table, and index 3 to NCCL before 2.21 (8 bits)" \
    grep -q "^  warning: NCCL_IB_GID_INDEX=259 (the user.s) is beyond any GID table here (NCCL before 2.21 keeps 8 bits of it, index 3)" "$work/gid259"
node v4
check "the user's NCCL_IB_GID_INDEX=auto is index 0 to NCCL, a RoCE v1 GID: warned; an empty one is not" \
    sh -c 'grep -q "^  warning: NCCL_IB_GID_INDEX=auto (the user.s), which NCCL reads as index 0 (no digits), is a RoCE v1 GID on mlx5_0:1" "$1" &&
           ! grep -q "warning: NCCL_IB_GID_INDEX" "$2"' _ "$work/gidauto" "$work/gidempty"
# the driver prints the class in decimal: anything else is no class known
node v4
tc_all 0x6a
env_of >"$work/tchex"
if grep -q "^  NCCL_IB_TC not set: mlx5_0:1's tc/1/traffic_class reads \"Global tclass=0x6a\", not \"Global tclass=N\" as mlx5 writes it: its class is unknown: set roce_tc=" "$work/tchex" &&
   ! grep -q "UCX_IB_TRAFFIC_CLASS=" "$work/tchex"; then
    ok "a traffic_class file not in the driver's decimal (0x6a) is no class: NCCL_IB_TC not set (it was 0), the file named"
else
    not_ok "a traffic_class file not in the driver's decimal (0x6a) is no class"; diag "$(cat "$work/tchex")"
fi
# (helper 35) and on a front-end port UCX opens too, no class known is not
# UCX's 106: the compute ports' 106 was set for UCX there
node v4
port mlx5_3 eno1np0 0000:0000:0000:0000:0000:ffff:0a00:0005
echo "Global tclass=abc" >"$work/sys/$h/class/infiniband/mlx5_3/tc/1/traffic_class"
tc_all 106
env_of >"$work/fejunk"
check "a front-end port whose traffic_class file is junk: no UCX_IB_TRAFFIC_CLASS, the file's text named" sh -c '
    grep -q "^  NCCL_IB_TC=106 " "$1" &&
    grep -q "^  UCX_IB_TRAFFIC_CLASS not set: mlx5_3:1 has a traffic_class file that reads \"Global tclass=abc\", no class known, no compute port" "$1"' _ "$work/fejunk"
# the user's NCCL_IB_HCA: the class of atoll's ports says nothing of the user's devices
node v4
env_of --set NCCL_IB_HCA=mlx5_2 >"$work/userhca"
env_of --set NCCL_IB_HCA=mlx5_2 --plugstack roce_tc=106 >"$work/userhca2"
if grep -q "^  NCCL_IB_TC not set: NCCL_IB_HCA is not atoll's" "$work/userhca" && ! grep -q "UCX_IB_TRAFFIC_CLASS=" "$work/userhca" &&
   grep -q "^  NCCL_IB_TC=106 (site RoCE traffic class (roce_tc))" "$work/userhca2"; then
    ok "a user's NCCL_IB_HCA: no traffic class read from atoll's ports; the site's roce_tc= still set"
else
    not_ok "a user's NCCL_IB_HCA: no traffic class read from atoll's ports"; diag "$(cat "$work/userhca" "$work/userhca2")"
fi
# the user's UCX_NET_DEVICES: the same for UCX's class (a helper's attack:
# UCX_IB_TRAFFIC_CLASS=106 was set from the compute ports for the user's storage NIC)
node v4
env_of --set UCX_NET_DEVICES=mlx5_2:1 >"$work/userucx"
env_of --set UCX_NET_DEVICES=mlx5_2:1 --plugstack roce_tc=106 >"$work/userucx2"
if grep -q "^  UCX_IB_TRAFFIC_CLASS not set: UCX_NET_DEVICES is the job's own" "$work/userucx" &&
   ! grep -q "^  UCX_IB_TRAFFIC_CLASS=" "$work/userucx" && grep -q "^  UCX_IB_TRAFFIC_CLASS=106 " "$work/userucx2"; then
    ok "a user's UCX_NET_DEVICES: no UCX traffic class read from atoll's ports; the site's roce_tc= still set"
else
    not_ok "a user's UCX_NET_DEVICES: no UCX traffic class read from atoll's ports"; diag "$(cat "$work/userucx" "$work/userucx2")"
fi
# a soft-RoCE device whose GIDs name the NIC's netdev: the device whose PCI
# function holds the netdev is the adapter, and a soft device (rxe has a
# 'parent' file; the kernel puts it under devices/virtual) never is; when two
# hardware devices claim the netdev and neither holds it, which is the rail
# is not known, and (helper 29) no NCCL_IB_HCA is set: a list of the others
# would hold this node to fewer rails than its peers
node v4
r="$work/sys/$h/class/infiniband/aaarxe0/ports/1"
mkdir -p "$r/gids" "$r/gid_attrs/types" "$r/gid_attrs/ndevs"
echo ens1f0np0 >"$work/sys/$h/class/infiniband/aaarxe0/parent"
echo Ethernet >"$r/link_layer"; echo "4: ACTIVE" >"$r/state"
echo "0000:0000:0000:0000:0000:ffff:c0a8:0a05" >"$r/gids/1"; echo "RoCE v2" >"$r/gid_attrs/types/1"; echo ens1f0np0 >"$r/gid_attrs/ndevs/1"
env_of >"$work/rxe"
rm -r "$work/sys/$h/class/infiniband/mlx5_0/device/net"
env_of >"$work/rxe2"
rm "$work/sys/$h/class/infiniband/aaarxe0/parent"
env_of >"$work/rxe3"
if grep -q "^  NCCL_IB_HCA==mlx5_0:1,mlx5_1:1,mlx5_2:1 (this node's compute-rail adapters, checked in sysfs)$" "$work/rxe" &&
   grep -q "^  NCCL_IB_HCA==mlx5_0:1,mlx5_1:1,mlx5_2:1 (this node's compute-rail adapters, checked in sysfs)$" "$work/rxe2" &&
   grep -Eq "^  NCCL_IB_HCA not set: ens1f0np0 port 1 is claimed by two RDMA devices \((aaarxe0 and mlx5_0|mlx5_0 and aaarxe0)\)" "$work/rxe3" &&
   ! grep -q "aaarxe0:1" "$work/rxe" "$work/rxe2" "$work/rxe3"; then
    ok "an rxe device over the NIC's netdev is never the rail; two hardware devices claiming it: no NCCL_IB_HCA"
else
    not_ok "an rxe device over the NIC's netdev"; diag "$(cat "$work/rxe" "$work/rxe2")"
fi
# LLDP without speeds and no HOST.node.json: the NICs are undecided, so the
# rails are not known and NCCL_IB_HCA is not set (eno1 would be among them)
mkdir -p "$work/nospeed"
cp "$DATA"/lldp/rails8/nospeed/*.keyvalue "$work/nospeed/"
"$TOPO" discover "$work/nospeed" -o "$work/ns.json" 2>/dev/null
"$TOPO" slurm --format view "$work/ns.json" -o "$work/ns.view"
"$TOPO" env "$work/ns.view" --node gpu01 --nodes gpu01,gpu02 --sysfs-root "$work/sys/%n" >"$work/ns" 2>&1
if grep -q "^undecided gpu01$" "$work/ns.view" &&
   grep -q "^  NCCL_IB_HCA not set: the fabric could not tell which of this node's adapters are its compute rails" "$work/ns" &&
   ! grep -q "^  NCCL_[A-Z_]*=" "$work/ns"; then
    ok "a host whose NICs LLDP could not tell apart: the view says so, no NCCL variable is set"
else
    not_ok "a host whose NICs LLDP could not tell apart"; diag "$(grep undecided "$work/ns.view")" "$(cat "$work/ns")"
fi
# NCCL_CROSS_NIC=0 on rail planes that do not meet, only with every rail here
"$TOPO" generate --groups 1 --rails 2 --hosts 2 --format json -o "$work/r2.json"
"$TOPO" slurm --format view "$work/r2.json" -o "$work/r2.view"
sed -i 's/^rails 1 1$/rails 1 0/' "$work/r2.view"
for n in node001 node002; do
    for k in 0 1; do
        d="$work/sys/$n/class/infiniband/mlx5_$k/ports/1"
        mkdir -p "$d"; echo InfiniBand >"$d/link_layer"; echo "4: ACTIVE" >"$d/state"
    done
done
rm -r "$work/sys/node002/class/infiniband/mlx5_1"
ib_of() { n=$1; shift; "$TOPO" env "$work/r2.view" --node "$n" --nodes node001,node002 --sysfs-root "$work/sys/%n" "$@" 2>&1; }
ib_of node001 >"$work/x1"; ib_of node002 >"$work/x2"
if grep -q "^  NCCL_CROSS_NIC=0 " "$work/x1" &&
   grep -q "^  NCCL_CROSS_NIC not set: not every compute rail of this node is ACTIVE here (mlx5_1 port 1 is not an RDMA port of this node)" "$work/x2"; then
    ok "NCCL_CROSS_NIC=0 only where every rail is here: a node missing one sets nothing"
else
    not_ok "NCCL_CROSS_NIC=0 only where every rail is here"; diag "$(cat "$work/x1" "$work/x2")"
fi
# a saved hwloc XML whose HCAs sysfs puts elsewhere (renumbered): no
# UCX_NET_DEVICES; where they agree, GPU 0's own mlx5_0 (PIX, PCI 13)
xml="$DATA/hwloc/dgx-a100-like-4gpu-5hca.xml"
mkdir -p "$work/proc/node001/driver/nvidia/gpus/0000:12:00.0" "$work/pci"
printf 'Device Minor:\t 0\n' >"$work/proc/node001/driver/nvidia/gpus/0000:12:00.0/information"
mkdir -p "$work/pci/0000:13:00.0" "$work/pci/0000:17:00.0"
ln -s "$work/pci/0000:13:00.0" "$work/sys/node001/class/infiniband/mlx5_0/device"
ln -s "$work/pci/0000:17:00.0" "$work/sys/node001/class/infiniband/mlx5_1/device"
gpu_of() { ib_of node001 --hwloc-xml "$xml" --proc-root "$work/proc/%n" --step-gpus 0 --cuda-visible-devices 0 --plugstack constrain_devices=no; }
gpu_of >"$work/hw1"
rm "$work/sys/node001/class/infiniband/mlx5_0/device" "$work/sys/node001/class/infiniband/mlx5_1/device"
ln -s "$work/pci/0000:17:00.0" "$work/sys/node001/class/infiniband/mlx5_0/device"
ln -s "$work/pci/0000:13:00.0" "$work/sys/node001/class/infiniband/mlx5_1/device"
gpu_of >"$work/hw2"
if grep -q "UCX_NET_DEVICES=mlx5_0:1 (nearest compute HCA to the task's GPU (0000:12:00.0 PIX))" "$work/hw1" &&
   grep -q "UCX_NET_DEVICES not set: the hwloc topology puts mlx5_0 at PCI 0000:13:00.0, sysfs at 0000:17:00.0" "$work/hw2"; then
    ok "UCX_NET_DEVICES: hwloc's HCA must sit where sysfs puts it; a renumbered node's XML sets nothing"
else
    not_ok "UCX_NET_DEVICES: hwloc's HCA must sit where sysfs puts it"; diag "$(cat "$work/hw1" "$work/hw2")"
fi
# (helper 69) a compute HCA sysfs has that the XML does not name (saved with
# no verbs backend, or before the devices were renumbered: mlx5_4 at its
# place): GPU 0's nearest was mlx5_1, across the PCIe switches; nothing now
rm "$work/sys/node001/class/infiniband/mlx5_0/device" "$work/sys/node001/class/infiniband/mlx5_1/device"
ln -s "$work/pci/0000:13:00.0" "$work/sys/node001/class/infiniband/mlx5_0/device"
ln -s "$work/pci/0000:17:00.0" "$work/sys/node001/class/infiniband/mlx5_1/device"
xml_full=$xml
xml="$work/noosdev.xml"; sed '/name="mlx5_0"/d' "$xml_full" >"$xml"; gpu_of >"$work/hw3"
xml="$work/stale.xml"; sed 's/name="mlx5_0"/name="mlx5_4"/' "$xml_full" >"$xml"; gpu_of >"$work/hw4"
# (helper 71) mlx5_0 and mlx5_4 swapped in the XML: mlx5_0 is there, elsewhere
xml="$work/swap.xml"; sed 's/name="mlx5_0"/name="mlx5_X"/; s/name="mlx5_4"/name="mlx5_0"/; s/name="mlx5_X"/name="mlx5_4"/' "$xml_full" >"$xml"
gpu_of >"$work/hw5"
xml=$xml_full
if [ "$(grep -c "UCX_NET_DEVICES not set: the hwloc topology has no mlx5_0 (sysfs: PCI 0000:13:00.0), a compute HCA of this node" "$work/hw3" "$work/hw4" | grep -c ':1$')" -eq 2 ] &&
   grep -q "UCX_NET_DEVICES not set: the hwloc topology puts mlx5_0 at PCI 0000:[0-9a-f:.]*, sysfs at 0000:13:00.0" "$work/hw5"; then
    ok "UCX_NET_DEVICES: a compute HCA the saved XML lacks, names otherwise or puts elsewhere sets nothing (no GPU sent across the sockets)"
else
    not_ok "UCX_NET_DEVICES: a compute HCA the saved XML lacks"; diag "$(cat "$work/hw3" "$work/hw4" "$work/hw5")"
fi
# (helper 69) both ports of one device compute rails (a ConnectX-3 or
# Connect-IB): one PCI function, so no port is the GPU's own; it was the last
d="$work/sys/node001/class/infiniband/mlx5_0/ports/2"
mkdir -p "$d"; echo InfiniBand >"$d/link_layer"; echo "4: ACTIVE" >"$d/state"
sed 's/^host node001 .*/host node001 0 1 mlx5_0:1,mlx5_0:2 1 -1 - -/; s/^host node002 .*/host node002 0 1 mlx5_0:1,mlx5_0:2 1 -1 - -/' "$work/r2.view" >"$work/dual.view"
"$TOPO" env "$work/dual.view" --node node001 --nodes node001,node002 --sysfs-root "$work/sys/%n" --hwloc-xml "$xml" \
    --proc-root "$work/proc/%n" --step-gpus 0 --cuda-visible-devices 0 --plugstack constrain_devices=no >"$work/dual" 2>&1
if grep -q "^  NCCL_IB_HCA==mlx5_0:1,mlx5_0:2 " "$work/dual" &&
   grep -q "UCX_NET_DEVICES not set: the nearest HCA mlx5_0 has compute-rail ports 1, 2 on one PCI function" "$work/dual"; then
    ok "UCX_NET_DEVICES: a device with two compute-rail ports near the GPU sets nothing"
else
    not_ok "UCX_NET_DEVICES: a device with two compute-rail ports"; diag "$(cat "$work/dual")"
fi
rm -r "$d"
# the GID index itself still follows NCCL on the plain table; with one port
# IPv4 and two IPv6-only the reason names both families (it said IPv6)
node v4
env_of >"$work/v4"
node mixed
env_of >"$work/mixed"
if grep -q "^  NCCL_IB_GID_INDEX=3 (the IPv4 RoCE v2 GID of every compute port here" "$work/v4" &&
   grep -q "^  NCCL_IB_GID_INDEX=3 (the only routable RoCE v2 GID of every compute port here (IPv4 on some ports, IPv6 on others)" "$work/mixed"; then
    ok "NCCL_IB_GID_INDEX=3 on the plain IPv4 table; on mixed ports the reason names both families"
else
    not_ok "NCCL_IB_GID_INDEX=3 on the plain IPv4 table; on mixed ports the reason names both families"; diag "$(cat "$work/v4" "$work/mixed")"
fi
# (helper 23) the user's own NCCL_IB_GID_INDEX: kept and said so (it read
# "not set: NCCL picks each itself" while the user's index was in force), with
# a warning where it names an empty slot on a compute port
node v4
gid_move mlx5_1
env_of --set NCCL_IB_GID_INDEX=3 >"$work/ugid"
env_of --set NCCL_IB_GID_INDEX=3 --set NCCL_IB_HCA==mlx5_0:1 >"$work/ugid0"
env_of --set "NCCL_IB_GID_INDEX=0x3" --set UCX_IB_GID_INDEX=auto >"$work/ugidx"
if grep -q "^  NCCL_IB_GID_INDEX=3 (set by the user, kept; atoll would set none: " "$work/ugid" &&
   grep -q "^  warning: NCCL_IB_GID_INDEX=3 (the user's) is no address on mlx5_1:1, a compute port here" "$work/ugid" &&
   ! grep -q "warning: NCCL_IB_GID_INDEX" "$work/ugid0" &&
   grep -q "warning: NCCL_IB_GID_INDEX=0x3 (the user's) is no address on mlx5_1:1" "$work/ugidx" && ! grep -q "warning: UCX_IB_GID_INDEX" "$work/ugidx"; then
    ok "the user's NCCL_IB_GID_INDEX: kept and said so; an empty slot on a port NCCL opens warned (not on one the user's NCCL_IB_HCA leaves out)"
else
    not_ok "the user's NCCL_IB_GID_INDEX: kept and said so, an empty slot warned"; diag "$(cat "$work/ugid" "$work/ugid0")"
fi
# a link_layer file no one can read (here a FIFO) on one rail: whether it is
# a rail is not known; a list of the other two would hold this node to fewer
# rails than its peers
node v4
rm "$work/sys/$h/class/infiniband/mlx5_0/ports/1/link_layer"
mkfifo "$work/sys/$h/class/infiniband/mlx5_0/ports/1/link_layer"
env_of >"$work/ll"
if grep -q "^  NCCL_IB_HCA not set: .* (mlx5_0) has no link layer atoll could read (link_layer unread)" "$work/ll" &&
   ! grep -q "^  NCCL_IB_GID_INDEX=" "$work/ll"; then
    ok "a rail whose link_layer cannot be read: no NCCL_IB_HCA of the others, and why"
else
    not_ok "a rail whose link_layer cannot be read: no NCCL_IB_HCA of the others"; diag "$(cat "$work/ll")"
fi
# (helper 28) UCX reads UCX_IB_GID_INDEX by %lu, "auto" alone its own choice:
# "-1" (NCCL's "pick it") and "inf" are index 2^64-1 there
# (uct_ib_iface_init_roce_gid_info queries any value but UCS_ULUNITS_AUTO)
node v4
env_of --set UCX_IB_GID_INDEX=-1 >"$work/ucxm1"
env_of --set UCX_IB_GID_INDEX=inf >"$work/ucxinf"
env_of --set UCX_IB_GID_INDEX=AUTO --set NCCL_IB_GID_INDEX=-1 >"$work/ucxauto"
if grep -q "^  warning: UCX_IB_GID_INDEX=-1 (the user's) is beyond any GID table here: UCX reads it as index 2^64-1" "$work/ucxm1" &&
   grep -q "^  warning: UCX_IB_GID_INDEX=inf (the user's) is beyond any GID table here" "$work/ucxinf" &&
   ! grep -q "warning: .*GID_INDEX" "$work/ucxauto"; then
    ok "the user's UCX_IB_GID_INDEX=-1 or inf warned (UCX's own choice is auto); NCCL's -1 and UCX's auto are not"
else
    not_ok "the user's UCX_IB_GID_INDEX=-1 or inf warned"; diag "$(cat "$work/ucxm1" "$work/ucxinf" "$work/ucxauto")"
fi
# (helper 28) bytes a node's root wrote (here an ESC sequence and a newline in
# a port's link_layer file) reach the job's stderr and slurmd's log escaped: one
# line each, no terminal codes
node v4
printf 'Eth\033[2J\033]0;owned\007ernet\n' >"$work/sys/$h/class/infiniband/mlx5_0/ports/1/link_layer"
env_of >"$work/esc"
if ! LC_ALL=C grep -q "$(printf '\033')" "$work/esc" && ! LC_ALL=C grep -q "$(printf '\007')" "$work/esc" &&
   grep -q "^  NCCL_IB_HCA not set: .*(mlx5_0) has no link layer atoll could read ('Eth\\\\x1b\\[2J\\\\x1b\\]0;owned\\\\x07ernet')" "$work/esc"; then
    ok "a sysfs string with terminal codes and a newline comes out escaped, on its own line"
else
    not_ok "a sysfs string with terminal codes comes out escaped"; diag "$(cat -v "$work/esc")"
fi
# (helper 29) the same bytes in `node` and `health`: a container may name its
# own interface with ESC in it (the kernel's dev_valid_name() refuses only
# '/', ':', blanks, "." and ".."), and the host's gid_attrs/ndevs shows it;
# health's first error line is NHC's drain reason
node v4
printf 'ens1f0np0\033]0;pwned\007\n' >"$work/sys/$h/class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/3"
printf '4: ACTIVE\033[2J\n' >"$work/sys/$h/class/infiniband/mlx5_1/ports/1/state"
"$TOPO" node --sysfs-root "$work/sys/$h" >"$work/escnode" 2>&1
"$TOPO" health --sysfs-root "$work/sys/$h" --interval 0 >"$work/eschealth" 2>&1
if ! LC_ALL=C grep -q "$(printf '\033')" "$work/escnode" "$work/eschealth" &&
   grep -q 'netdev .*ens1f0np0\\x1b\]0;pwned\\x07' "$work/escnode" && grep -q 'ACTIVE\\x1b\[2J' "$work/eschealth"; then
    ok "node and health print a root-written interface name and port state escaped"
else
    not_ok "node and health print root-written bytes escaped"; diag "$(cat -v "$work/escnode" "$work/eschealth")"
fi
# (helper 29) one address on two adapters whose device links do not resolve
# to a PCI function ("../.." both: no function is known, so not the same one)
# is the cross-card bond still; a class entry that cannot be read (a symlink
# loop) may be the missing rail: no list of the others
node v4
for d in mlx5_0 mlx5_1; do
    rm -r "$work/sys/$h/class/infiniband/$d/device"; ln -s ../.. "$work/sys/$h/class/infiniband/$d/device"
done
cp "$work/sys/$h/class/infiniband/mlx5_0/ports/1/gids/3" "$work/sys/$h/class/infiniband/mlx5_1/ports/1/gids/3"
env_of >"$work/dotdev"
node v4
rm -r "$work/sys/$h/class/infiniband/mlx5_0"; ln -s mlx5_0 "$work/sys/$h/class/infiniband/mlx5_0"
env_of >"$work/loop"
if grep -q "^  NCCL_IB_HCA not set: mlx5_0 and mlx5_1 carry the same RoCE address (0000:0000:0000:0000:0000:ffff:c0a8:0a05" "$work/dotdev" &&
   grep -q "^  NCCL_IB_HCA not set: ens1f0np0 port 1 is no RDMA port atoll could read here, and RDMA device 'mlx5_0' cannot be read" "$work/loop"; then
    ok "one address on two adapters of no known PCI function: refused; an unreadable device: no list of the others"
else
    not_ok "one address on two adapters of no known PCI function; an unreadable device"; diag "$(cat "$work/dotdev" "$work/loop")"
fi
# (helper 29) device minors not in PCI bus order (as a driver may number
# them: ceems-dev/ceems#513, a 4x H100 NVL node): Slurm's index (by minor,
# gres.conf's File) and CUDA's (by bus) name different GPUs; no UCX_NET_DEVICES
rm "$work/sys/node001/class/infiniband/mlx5_0/device" "$work/sys/node001/class/infiniband/mlx5_1/device"
ln -s "$work/pci/0000:13:00.0" "$work/sys/node001/class/infiniband/mlx5_0/device"
ln -s "$work/pci/0000:17:00.0" "$work/sys/node001/class/infiniband/mlx5_1/device"
mkdir -p "$work/proc/node001/driver/nvidia/gpus/0000:16:00.0"
printf 'Device Minor:\t 1\n' >"$work/proc/node001/driver/nvidia/gpus/0000:16:00.0/information"
gpu_of >"$work/inorder"
printf 'Device Minor:\t 0\n' >"$work/proc/node001/driver/nvidia/gpus/0000:16:00.0/information"
printf 'Device Minor:\t 1\n' >"$work/proc/node001/driver/nvidia/gpus/0000:12:00.0/information"
gpu_of >"$work/minors"
if grep -q "UCX_NET_DEVICES=mlx5_0:1 (nearest compute HCA to the task's GPU (0000:12:00.0 PIX))" "$work/inorder" &&
   grep -q "UCX_NET_DEVICES not set: this node's GPU device minors are not in PCI bus order (0000:16:00.0 before 0000:12:00.0)" "$work/minors"; then
    ok "GPU device minors out of PCI bus order: which GPU a task has is not known, no UCX_NET_DEVICES"
else
    not_ok "GPU device minors out of PCI bus order: no UCX_NET_DEVICES"; diag "$(cat "$work/inorder" "$work/minors")"
fi
# (helper 29) socket_ifname= the site gives is set only where NCCL would find
# an interface by it (misc/socket.cc findInterfaces: '^' excludes, '='
# exact, else prefixes); where none matches, its bootstrap fails: nothing set
node v4
mkdir -p "$work/sys/$h/class/net/lo" "$work/sys/$h/class/net/ens1f0np0" "$work/sys/$h/class/net/eno1"
for spec in nosuch ens =ens1f0 '^ens,eno,lo' '^ens,lo' =eno1 '^,' e a1,a2,a3,a4,a5,a6,a7,a8,a9,a10,a11,a12,a13,a14,a15,a16,ens '^ens,eno' '^docker' eno1,lo; do
    env_of --plugstack "socket_ifname=$spec" | grep "^  NCCL_SOCKET_IFNAME"
done >"$work/ifname"
# (helper 30) "^," is an empty list excluded: none; one character NCCL
# ignores; only NCCL's first 16 entries (MAX_IFS) count; (helpers 69, 71) a
# list that matches lo: NCCL skips IPv6 loopback only, and its bootstrap
# takes the first match, lo, so it would listen on 127.0.0.1
if [ "$(sed 's/ (.*//; s/: .*//' "$work/ifname" | tr '\n' ' ')" = "  NCCL_SOCKET_IFNAME not set   NCCL_SOCKET_IFNAME=ens   NCCL_SOCKET_IFNAME not set   NCCL_SOCKET_IFNAME not set   NCCL_SOCKET_IFNAME=^ens,lo   NCCL_SOCKET_IFNAME==eno1   NCCL_SOCKET_IFNAME not set   NCCL_SOCKET_IFNAME not set   NCCL_SOCKET_IFNAME not set   NCCL_SOCKET_IFNAME not set   NCCL_SOCKET_IFNAME not set   NCCL_SOCKET_IFNAME not set " ] &&
   grep -q "not set: socket_ifname=e is one character, which NCCL ignores" "$work/ifname" &&
   grep -q "not set: socket_ifname=^ens,eno matches the loopback lo on this node (lo, eno1, ens1f0np0), the first interface NCCL's bootstrap finds" "$work/ifname" &&
   grep -q "not set: socket_ifname=nosuch matches no interface of this node (lo, eno1, ens1f0np0): NCCL's bootstrap would find no socket interface" "$work/ifname"; then
    ok "socket_ifname= set only where NCCL would match an interface by it (prefix, =exact, ^exclusion, 16 entries)"
else
    not_ok "socket_ifname= set only where NCCL would match an interface"; diag "$(cat "$work/ifname")"
fi
# (helper 30) GPUs of two models among those CUDA numbers: its default order
# (FASTEST_FIRST) is the bus order among equal GPUs only; no UCX_NET_DEVICES
printf 'Model:\t\t NVIDIA L40S\nDevice Minor:\t 1\n' >"$work/proc/node001/driver/nvidia/gpus/0000:16:00.0/information"
printf 'Model:\t\t NVIDIA H100 80GB HBM3\nDevice Minor:\t 0\n' >"$work/proc/node001/driver/nvidia/gpus/0000:12:00.0/information"
gpu_of >"$work/models"
if grep -q "UCX_NET_DEVICES not set: CUDA numbers GPUs of two models here (NVIDIA H100 80GB HBM3, NVIDIA L40S), fastest first" "$work/models"; then
    ok "GPUs of two models: which one CUDA_VISIBLE_DEVICES names is not known, no UCX_NET_DEVICES"
else
    not_ok "GPUs of two models: no UCX_NET_DEVICES"; diag "$(cat "$work/models")"
fi
# (helper 35) class/net/bonding_masters is the bonding driver's file, no
# interface (getifaddrs, NCCL's findInterfaces never list it): socket_ifname=bond
# matched it and was set on a node with no bond, where NCCL's bootstrap fails
node v4
mkdir -p "$work/sys/$h/class/net/lo" "$work/sys/$h/class/net/ens1f0np0"
echo >"$work/sys/$h/class/net/bonding_masters"
env_of --plugstack socket_ifname=bond >"$work/bm"
if grep -q "^  NCCL_SOCKET_IFNAME not set: socket_ifname=bond matches no interface of this node (lo, ens1f0np0)" "$work/bm"; then
    ok "socket_ifname=bond with only bonding_masters in class/net: not set (no interface)"
else
    not_ok "socket_ifname=bond with only bonding_masters: not set"; diag "$(cat "$work/bm")"
fi
# (helper 35) a rail's netdev renamed (ens1f0np0 now eth2), its adapter
# still here: the list of the other two held this node to fewer rails than
# its peers; nothing is set, naming the port that may be it. A GID slot not
# as the kernel writes one is named where a port has no routable GID.
node v4
rm -rf "$work/sys/$h/class/infiniband/mlx5_0"
port mlx5_0 eth2 0000:0000:0000:0000:0000:ffff:c0a8:0a05
env_of >"$work/renamed"
node v4
echo "::ffff:192.168.12.5" >"$work/sys/$h/class/infiniband/mlx5_2/ports/1/gids/3"
echo "::ffff:192.168.12.5" >"$work/sys/$h/class/infiniband/mlx5_2/ports/1/gids/2"
env_of >"$work/badgid"
env_of --plugstack roce_tc=106 --plugstack roce_tc=0 >"$work/twice"; r_twice=$?
"$TOPO" env "$work/roce.view" --node "$h" --sysfs-root "$work/no-such-sys" >"$work/nosys" 2>&1; r_nosys=$?
if grep -q "^  NCCL_IB_HCA not set: ens1f0np0 port 1 is no netdev of an RDMA port here, and 'mlx5_0' port 1 ('eth2') is an Ethernet RDMA port no rail" "$work/renamed" &&
   ! grep -q "^  NCCL_IB_HCA=" "$work/renamed" &&
   grep -q "mlx5_2 port 1 has no routable RoCE v2 GID .*gids/3 holds '::ffff:192.168.12.5': not a GID as the kernel writes one" "$work/badgid" &&
   [ "$r_twice" = 0 ] && grep -q '^atoll-topo: warning: --plugstack: plugstack.conf: roce_tc given twice ("roce_tc=106", then "roce_tc=0"): the last is used$' "$work/twice" &&
   [ "$r_nosys" = 1 ] && grep -q "sysfs-root .*no-such-sys: No such file or directory, expected the node's /sys" "$work/nosys"; then
    ok "a renamed rail netdev: no NCCL_IB_HCA; a bad GID slot named; a plugstack key twice: a warning; a missing --sysfs-root: exit 1"
else
    not_ok "helper 35: renamed netdev, bad GID slot, key twice, missing root"
    diag "$(cat "$work/renamed" "$work/badgid")" "twice: $r_twice $(cat "$work/twice")" "no sysfs: $r_nosys $(cat "$work/nosys")"
fi
