#!/bin/sh
# atoll-topo diff: what changed between two discoveries, and an exit status a
# cron job can act on (3: Slurm's files must be rewritten, 0: they stay).
. "$(dirname "$0")/../lib.sh"
plan 9
work=$(tmpdir)
"$TOPO" generate --rails 4 --groups 3 --hosts 4 -o "$work/a.net"
"$TOPO" generate --rails 4 --groups 3 --hosts 4 --degrade node007:3 -o "$work/degraded.net"
"$TOPO" generate --rails 4 --groups 3 --hosts 4 --drop-leaf ib-leaf10 -o "$work/dropped.net"
"$TOPO" generate --rails 4 --groups 2 --hosts 6 -o "$work/reshaped.net"

"$TOPO" diff "$work/a.net" "$work/a.net" >"$work/same"
if [ $? -eq 0 ] && grep -q "^0 changes; scheduling unchanged" "$work/same"; then ok "the same fabric: no change, exit 0"; else not_ok "the same fabric: no change, exit 0"; fi
"$TOPO" diff "$work/a.net" "$work/degraded.net" >"$work/deg"
rc=$?
if [ $rc -eq 3 ] &&
    grep -q "^link-speed: node007 mlx5_3\[1\] - ib-leaf08\[3\] (4xHDR -> 1xHDR)" "$work/deg" &&
    grep -q "^island-degraded: grp-ib-leaf05" "$work/deg"; then ok "a link at 1x: its speed change, its island degraded, exit 3"; else not_ok "a link at 1x: its speed change, its island degraded, exit 3"; fi
"$TOPO" diff "$work/degraded.net" "$work/a.net" >"$work/healed"
if [ $? -eq 3 ] && grep -q "^island-healthy: grp-ib-leaf05" "$work/healed"; then ok "repaired: the island is healthy again, exit 3"; else not_ok "repaired: the island is healthy again, exit 3"; fi
"$TOPO" diff "$work/a.net" "$work/dropped.net" >"$work/drop"
rc=$?
if [ $rc -eq 0 ] &&
    grep -q "^switch-removed: ib-leaf10" "$work/drop" && [ "$(grep -c '^link-down:' "$work/drop")" -eq 8 ] &&
    grep -q "scheduling unchanged" "$work/drop"; then ok "a rail leaf gone: its 8 links down (4 hosts, 4 uplinks), islands unchanged, exit 0"; else not_ok "a rail leaf gone: its 8 links down (4 hosts, 4 uplinks), islands unchanged, exit 0"; fi
"$TOPO" diff "$work/a.net" "$work/reshaped.net" >"$work/reshaped"
rc=$?
if [ $rc -eq 3 ] &&
    grep -q "^host-moved: node005 " "$work/reshaped" && grep -q "^topology-conf: " "$work/reshaped"; then ok "hosts in other islands: host-moved, topology.conf changes, exit 3"; else not_ok "hosts in other islands: host-moved, topology.conf changes, exit 3"; fi
"$TOPO" diff --json "$work/a.net" "$work/degraded.net" >"$work/deg.json"
check "--json says scheduling_changed" grep -q '"scheduling_changed": true' "$work/deg.json"
head -c 200 "$work/a.net" >"$work/cut.net"
"$TOPO" diff "$work/a.net" "$work/cut.net" 2>"$work/err"
if [ $? -eq 1 ] && grep -q "cut.net:[0-9]*: found" "$work/err"; then ok "a bad input: exit 1, FILE:LINE"; else not_ok "a bad input: exit 1, FILE:LINE"; fi
"$TOPO" diff "$work/a.net" 2>/dev/null
check "one operand is a usage error" [ $? -eq 2 ]
# node001 and node005 swap names (their roots write each other's
# descriptions): --topology-updates moves neither, and says why; a host
# recabled on its own adapters is still moved
sed 's/"node001 /"nodeXXX /; s/"node005 /"node001 /; s/"nodeXXX /"node005 /' "$work/a.net" >"$work/swap.net"
"$TOPO" diff --topology-updates "$work/a.net" "$work/swap.net" >"$work/swap.up"; rc1=$?
"$TOPO" diff --topology-updates "$work/a.net" "$work/reshaped.net" >"$work/reshaped.up"; rc2=$?
if [ $rc1 -eq 0 ] && ! grep -q "^scontrol" "$work/swap.up" &&
    grep -q "^# node001 not moved: its adapters are not the ones it had (0x[0-9a-f]* was node005's)" "$work/swap.up" &&
    grep -q "^# node005 not moved" "$work/swap.up" && [ $rc2 -eq 3 ] && grep -q "^scontrol update NodeName=node005 " "$work/reshaped.up"; then
    ok "--topology-updates moves no name onto another host's adapters (a swap), and still moves a recabled host"
else
    not_ok "--topology-updates moves no name onto another host's adapters"; diag "rc $rc1 $rc2" "$(cat "$work/swap.up")"
fi
