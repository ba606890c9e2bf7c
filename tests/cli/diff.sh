#!/bin/sh
# atoll-topo diff: what changed between two discoveries, and an exit status a
# cron job can act on (3: Slurm's files must be rewritten, 0: they stay).
. "$(dirname "$0")/../lib.sh"
plan 8
work=$(tmpdir)
"$TOPO" generate --rails 4 --groups 3 --hosts 4 -o "$work/a.net"
"$TOPO" generate --rails 4 --groups 3 --hosts 4 --degrade node007:3 -o "$work/degraded.net"
"$TOPO" generate --rails 4 --groups 3 --hosts 4 --drop-leaf ib-leaf10 -o "$work/dropped.net"
"$TOPO" generate --rails 4 --groups 2 --hosts 6 -o "$work/reshaped.net"

"$TOPO" diff "$work/a.net" "$work/a.net" >"$work/same"
check "the same fabric: no change, exit 0" [ $? -eq 0 ] && grep -q "^0 changes; scheduling unchanged" "$work/same"
"$TOPO" diff "$work/a.net" "$work/degraded.net" >"$work/deg"
rc=$?
check "a link at 1x: its speed change, its island degraded, exit 3" [ $rc -eq 3 ] &&
    grep -q "^link-speed: node007 mlx5_3\[1\] - ib-leaf08\[3\] (4xHDR -> 1xHDR)" "$work/deg" &&
    grep -q "^island-degraded: grp-ib-leaf05" "$work/deg"
"$TOPO" diff "$work/degraded.net" "$work/a.net" >"$work/healed"
check "repaired: the island is healthy again, exit 3" [ $? -eq 3 ] && grep -q "^island-healthy: grp-ib-leaf05" "$work/healed"
"$TOPO" diff "$work/a.net" "$work/dropped.net" >"$work/drop"
rc=$?
check "a rail leaf gone: its links down, islands unchanged, exit 0" [ $rc -eq 0 ] &&
    grep -q "^switch-removed: ib-leaf10" "$work/drop" && [ "$(grep -c '^link-down:' "$work/drop")" -eq 6 ] &&
    grep -q "scheduling unchanged" "$work/drop"
"$TOPO" diff "$work/a.net" "$work/reshaped.net" >"$work/reshaped"
rc=$?
check "hosts in other islands: host-moved, topology.conf changes, exit 3" [ $rc -eq 3 ] &&
    grep -q "^host-moved: node005 " "$work/reshaped" && grep -q "^topology-conf: " "$work/reshaped"
"$TOPO" diff --json "$work/a.net" "$work/degraded.net" >"$work/deg.json"
check "--json says scheduling_changed" grep -q '"scheduling_changed": true' "$work/deg.json"
head -c 200 "$work/a.net" >"$work/cut.net"
"$TOPO" diff "$work/a.net" "$work/cut.net" 2>"$work/err"
check "a bad input: exit 1, FILE:LINE" [ $? -eq 1 ] && grep -q "cut.net:[0-9]*: found" "$work/err"
"$TOPO" diff "$work/a.net" 2>/dev/null
check "one operand is a usage error" [ $? -eq 2 ]
