#!/bin/sh
# Who says which node is where (issue 22, items 2 and 6): the fabric held
# against Slurm's node list and an earlier discovery; Kubernetes label values
# checked against Kubernetes' rules (IsLabelValue: 63 characters at most,
# a letter or digit at both ends).
. "$(dirname "$0")/../lib.sh"
plan 9
work=$(tmpdir)
"$TOPO" generate --rails 2 --hosts 4 >"$work/f.txt"
"$TOPO" discover "$work/f.txt" -o "$work/old.json" 2>/dev/null
hosts=$("$TOPO" slurm --format features "$work/f.txt" | sed -n 's/^NodeName=\([^ ]*\) .*/\1/p' | paste -sd, -)

# a slurm.conf without node003, with a login node the fabric lacks
{ echo "ClusterName=c"; echo "NodeName=DEFAULT CPUs=2"
  echo "NodeName=$hosts,login01 CPUs=2" | sed 's/node003,//; s/node\[001-004\]/node[001-002,004]/'; } >"$work/slurm.conf"
grep -q 'node003' "$work/slurm.conf" && diag "slurm.conf still names node003: $(cat "$work/slurm.conf")"
"$TOPO" check "$work/f.txt" --slurm-nodes "$work/slurm.conf" >"$work/check.out" 2>&1; rc=$?
if [ $rc -eq 4 ] && grep -q "^error: not-in-slurm: node003: compute host that Slurm has no node of" "$work/check.out" &&
   grep -q "^warning: not-in-fabric: login01: 1 Slurm node" "$work/check.out"; then
    ok "check --slurm-nodes slurm.conf: a host Slurm lacks is an error (exit 4), a node the fabric lacks a warning"
else
    not_ok "check --slurm-nodes slurm.conf: a host Slurm lacks is an error (exit 4), a node the fabric lacks a warning"; diag "rc=$rc" "$(cat "$work/slurm.conf" "$work/check.out")"
fi
"$TOPO" slurm --format features "$work/f.txt" --slurm-nodes "$work/slurm.conf" -o "$work/features.conf" 2>"$work/features.err"; rc=$?
if [ $rc -eq 0 ] && ! grep -q node003 "$work/features.conf" && grep -q "NodeName=node\[001-002,004\] " "$work/features.conf" &&
   grep -q "warning: node003: Slurm has no node of this name" "$work/features.err"; then
    ok "slurm --format features --slurm-nodes: no NodeName line for node003, a warning names it"
else
    not_ok "slurm --format features --slurm-nodes: no NodeName line for node003, a warning names it"; diag "rc=$rc" "$(cat "$work/features.conf" "$work/features.err")"
fi
# scontrol show nodes --oneliner output, as Slurm 22.05 prints it
for h in node001 node002 node004; do
    echo "NodeName=$h Arch=x86_64 CoresPerSocket=1 CPUAlloc=0 CPUTot=2 AvailableFeatures=(null) ActiveFeatures=(null) Gres=(null) NodeAddr=$h NodeHostName=$h State=IDLE Partitions=debug"
done >"$work/nodes"
"$TOPO" slurm --format scontrol "$work/f.txt" --slurm-nodes "$work/nodes" 2>"$work/scontrol.err" >"$work/scontrol.out"; rc=$?
if [ $rc -eq 0 ] && ! grep -q node003 "$work/scontrol.out" && grep -q "^scontrol update NodeName=node004 " "$work/scontrol.out" &&
   grep -q "node003: Slurm has no node" "$work/scontrol.err"; then
    ok "slurm --format scontrol --slurm-nodes (scontrol output): no update line for node003"
else
    not_ok "slurm --format scontrol --slurm-nodes (scontrol output): no update line for node003"; diag "rc=$rc" "$(cat "$work/scontrol.out" "$work/scontrol.err")"
fi
# the topology files list every host of the fabric; --slurm-nodes there
# decides only which contested hosts stop them (one warning names the rest)
"$TOPO" slurm --format tree "$work/f.txt" --slurm-nodes "$work/nodes" >"$work/tree.out" 2>"$work/tree.err"; rc=$?
"$TOPO" slurm --format islands "$work/f.txt" --slurm-nodes "$work/nodes" >/dev/null 2>&1; rc2=$?
if [ $rc -eq 0 ] && grep -q "Nodes=node\[001-004\]$" "$work/tree.out" && grep -q "node\[003,005-016\].: compute hosts Slurm has no node of .*written all the same" "$work/tree.err" &&
   [ $rc2 -eq 2 ]; then
    ok "--slurm-nodes with --format tree: every host written, a warning names Slurm's missing ones; with islands a usage error"
else
    not_ok "--slurm-nodes with --format tree"; diag "rc=$rc $rc2" "$(cat "$work/tree.err")"
fi

# check --previous: node002's root takes the name node099 (node002 vanishes)
sed 's/"node002 mlx5_\([01]\)"/"node099 mlx5_\1"/' "$work/f.txt" >"$work/renamed.txt"
"$TOPO" check "$work/renamed.txt" --previous "$work/old.json" >"$work/renamed.out" 2>&1; rc=$?
if [ $rc -eq 4 ] && grep -q "^error: name-moved: node099: host is on adapters that were node002's" "$work/renamed.out" &&
   grep -q "^warning: host-vanished: node002: 1 host" "$work/renamed.out"; then
    ok "check --previous: a host on another host's adapters is an error, the host gone a warning"
else
    not_ok "check --previous: a host on another host's adapters is an error, the host gone a warning"; diag "rc=$rc" "$(cat "$work/renamed.out")"
fi
# node001's mlx5_0 replaced: a new CA GUID for the same host and adapter
guid=$(awk '/^caguid=/ { g = substr($1, 8) } /^Ca/ && /"node001 mlx5_0"/ { print g; exit }' "$work/f.txt")
sed "s/${guid#0x}/0002c90300abcdef/g" "$work/f.txt" >"$work/swapped.txt"  # caguid=0x..., "H-..." in the links
"$TOPO" check "$work/swapped.txt" --previous "$work/old.json" >"$work/swapped.out" 2>&1; rc=$?
if [ -n "$guid" ] && [ $rc -eq 4 ] &&
   grep -q "^error: guid-changed: node001 mlx5_0: adapter is CA 0x0002c90300abcdef where it was $guid" "$work/swapped.out"; then
    ok "check --previous: an adapter whose GUID changed is an error naming both GUIDs"
else
    not_ok "check --previous: an adapter whose GUID changed is an error naming both GUIDs"; diag "rc=$rc guid=$guid" "$(cat "$work/swapped.out")"
fi
"$TOPO" check "$work/f.txt" --previous "$work/old.json" >/dev/null 2>&1
check "check --previous against the same fabric: nothing found (exit 0)" [ $? -eq 0 ]

# Kubernetes label values: a switch named ib-leaf01_, and a 60-character one whose pod is "pod-" + 60
long=a$(printf 'x%.0s' $(seq 59))
"$TOPO" generate --rails 1 --hosts 4 |
    sed "s/\"MF0;ib-leaf02:MQM8700\/U1\"/\"ib-leaf02_\"/g; s/\"MF0;ib-leaf01:MQM8700\/U1\"/\"$long\"/g" >"$work/k8s.txt"
echo keep >"$work/labels"
"$TOPO" slurm --format k8s-labels "$work/k8s.txt" -o "$work/labels" 2>"$work/labels.err"; rc=$?
# every value as Kubernetes' labelValueFmt takes it, at most 63 characters
bad=$(grep '^kubectl' "$work/labels" | tr ' ' '\n' | sed -n 's/^network\.topology\.nvidia\.com\/[a-z]*=//p' |
      grep -Ev '^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$' ; grep '^kubectl' "$work/labels" | tr ' ' '\n' |
      sed -n 's/^network\.topology\.nvidia\.com\/[a-z]*=//p' | awk 'length($0) > 63')
if [ $rc -eq 3 ] && [ -z "$bad" ] && [ "$(grep -c '^kubectl' "$work/labels")" -eq 16 ] &&
   grep -q "block=ib-leaf02-[0-9a-f]\{8\} " "$work/labels" &&
   grep -q "node\[005-008\]: label network.topology.nvidia.com/block: island name 'ib-leaf02_' is no Kubernetes label value (ends with '_'" "$work/labels.err" &&
   grep -q "label network.topology.nvidia.com/spine: island name 'pod-$long' is no Kubernetes label value (64 characters, more than 63)" "$work/labels.err"; then
    ok "k8s labels: names Kubernetes refuses are written shortened with a hash, warned of, exit 3"
else
    not_ok "k8s labels: names Kubernetes refuses are written shortened with a hash, warned of, exit 3"; diag "rc=$rc bad=$bad" "$(cat "$work/labels" "$work/labels.err")"
fi
"$TOPO" slurm --format k8s-labels "$work/k8s.txt" --slurm-nodes "$work/nodes" 2>/dev/null >"$work/some"
check "k8s labels --slurm-nodes: only Slurm's nodes get a kubectl line" [ "$(grep -c '^kubectl' "$work/some")" -eq 3 ]
