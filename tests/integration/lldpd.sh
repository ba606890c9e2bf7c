#!/bin/sh
# A small Ethernet fabric of network namespaces joined by veth pairs, a real
# lldpd in each: three hosts with two NICs (eth0 to leaf01, eth1 to leaf02),
# two leaves cabled to spine01. Each system's lldpcli output is collected as a
# RoCE fabric would be, and atoll-topo must see exactly that fabric. The
# namespaces go away even when a check fails.
. "$(dirname "$0")/../lib.sh"
N=6
plan $N
if ! command -v lldpd >/dev/null || ! command -v lldpcli >/dev/null || ! command -v ip >/dev/null ||
   [ "$(id -u)" != 0 ] || ! ip netns add "atoll-probe-$$" 2>/dev/null; then
    i=0; while [ $i -lt $N ]; do i=$((i + 1)); skip "lldpd $i" "needs root, ip netns and lldpd"; done
    exit 0
fi
ip netns del "atoll-probe-$$"
work=$(tmpdir)
chmod 755 "$work"  # lldpd's control sockets live here
tag="a$$"
systems="gpu01 gpu02 gpu03 leaf01 leaf02 spine01"
pids=
cleanup() {  # every process in our namespaces (lldpd forks), then the namespaces
    [ -n "$pids" ] && kill $pids 2>/dev/null
    for s in $systems; do ip netns pids "$tag-$s" 2>/dev/null | xargs -r kill 2>/dev/null; done
    sleep 0.3
    for s in $systems; do ip netns pids "$tag-$s" 2>/dev/null | xargs -r kill -9 2>/dev/null; done
    for s in $systems; do ip netns del "$tag-$s" 2>/dev/null; done
    i=0  # lldpd's children end a moment later (bounded)
    while [ $i -lt 30 ] && pgrep -x lldpd >/dev/null; do sleep 0.1; i=$((i + 1)); done
}
at_exit cleanup
for s in $systems; do
    ip netns add "$tag-$s"
    ip netns exec "$tag-$s" ip link set lo up
done
n=0
cable() {  # SYSTEM-A IFACE-A SYSTEM-B IFACE-B
    n=$((n + 1))
    ip link add "$tag-x$n" type veth peer name "$tag-y$n"
    ip link set "$tag-x$n" netns "$tag-$1" name "$2"
    ip link set "$tag-y$n" netns "$tag-$3" name "$4"
    ip netns exec "$tag-$1" ip link set "$2" up
    ip netns exec "$tag-$3" ip link set "$4" up
}
port=0
for h in gpu01 gpu02 gpu03; do
    port=$((port + 1))
    cable "$h" eth0 leaf01 "swp$port"
    cable "$h" eth1 leaf02 "swp$port"
done
cable leaf01 swp49 spine01 swp1
cable leaf02 swp49 spine01 swp2
# Each lldpd starts paused and runs its configuration (-O) before the first
# frame, so no neighbour ever sees the shared host name the namespaces have.
for s in $systems; do
    {
        echo "configure system hostname $s"
        echo "configure lldp tx-interval 1"
        case $s in  # switches say so, as SONiC and Cumulus do
        leaf* | spine*) echo "configure system capabilities enabled bridge,router" ;;
        esac
    } >"$work/$s.conf"
    ip netns exec "$tag-$s" lldpd -d -u "$work/$s.sock" -O "$work/$s.conf" >"$work/$s.log" 2>&1 &
    pids="$pids $!"
done
# wait until every system sees its neighbours, switches as switches (bounded)
want() { case $1 in gpu*) echo 2 ;; leaf*) echo 4 ;; spine*) echo 2 ;; esac; }
want_bridges() { case $1 in gpu*) echo 2 ;; leaf*) echo 1 ;; spine*) echo 2 ;; esac; }
i=0
while [ $i -lt 30 ]; do
    ready=1
    for s in $systems; do
        ip netns exec "$tag-$s" lldpcli -u "$work/$s.sock" -f keyvalue show neighbors details >"$work/now" 2>/dev/null
        [ "$(grep -c '\.chassis\.name=' "$work/now")" -ge "$(want "$s")" ] || ready=0
        [ "$(grep -c '\.chassis\.Bridge\.enabled=on' "$work/now")" -ge "$(want_bridges "$s")" ] || ready=0
    done
    [ $ready = 1 ] && break
    sleep 1
    i=$((i + 1))
done
check "every lldpd sees its neighbours" [ $ready = 1 ]
mkdir "$work/tables"
fmt=json0
for s in $systems; do
    # hosts in different formats, as a site's collection might be
    case $s in gpu01) fmt=keyvalue ;; gpu02) fmt=json ;; gpu03) fmt=xml ;; *) fmt=json0 ;; esac
    ip netns exec "$tag-$s" lldpcli -u "$work/$s.sock" -f "$fmt" show neighbors details >"$work/tables/$s.$fmt"
done

"$TOPO" show --json "$work/tables" >"$work/show.json" 2>"$work/err"
if [ $? -eq 0 ]; then ok "atoll-topo reads the directory of lldpcli tables"; else not_ok "atoll-topo reads the directory of lldpcli tables"; diag "$(cat "$work/err")"; fi
"$TOPO" show "$work/tables" >"$work/show.txt" 2>&1
if grep -q '"hosts": 3' "$work/show.json" && grep -q '"switches": 3' "$work/show.json" &&
    grep -q '"leaf": 2' "$work/show.json" && grep -q '"spine": 1' "$work/show.json"; then ok "3 hosts, 2 leaves and a spine"; else not_ok "3 hosts, 2 leaves and a spine"; diag "$(cat "$work/show.txt")"; fi
if grep -q '"rails": 2' "$work/show.json" && grep -q '"rail_optimised": true' "$work/show.json"; then ok "two rails, rail-optimised"; else not_ok "two rails, rail-optimised"; fi
"$TOPO" show --links "$work/tables" >"$work/links"
if \
    [ "$(grep -c '^leaf01\[[0-9]*\] - gpu0[123] eth0\[1\]' "$work/links")" -eq 3 ] &&
    [ "$(grep -c '^leaf02\[[0-9]*\] - gpu0[123] eth1\[1\]' "$work/links")" -eq 3 ]; then ok "each host's eth0 is on leaf01 and eth1 on leaf02"; else not_ok "each host's eth0 is on leaf01 and eth1 on leaf02"; fi
"$TOPO" slurm "$work/tables" >"$work/topology.conf"
if grep -q "^SwitchName=grp-leaf01 Nodes=gpu\[01-03\]" "$work/topology.conf"; then ok "topology.conf: one rail group of the three hosts"
else not_ok "topology.conf: one rail group of the three hosts"; diag "$(cat "$work/topology.conf")"; fi
