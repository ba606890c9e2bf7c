#!/bin/sh
# Live topology changes (Slurm 25.05 and later): a host recabled to another
# leaf, and `atoll-topo diff OLD NEW --topology-updates` moves that node alone
# on the running slurmctld (scontrol update NodeName=... Topology=...), with
# no restart and no reconfigure: `scontrol show topology` puts it under its
# new leaf, and a job that asks for one leaf switch is placed by it. Skipped
# on older releases (Debian 12's 22.05, 24.11: scontrol has no Topology=).
. "$(dirname "$0")/../lib.sh"
. "$ATOLL_SRCDIR/tests/slurm-cluster.sh"
n=5
plan $n
skip_all() {
    i=$_n
    while [ $i -lt $n ]; do i=$((i + 1)); skip "live topology $i" "$1"; done
    exit 0
}
work=$(tmpdir)
# 4 leaves of 4 under 2 pods; then node004 is recabled from leaf1 to leaf4
{
    echo "host,leaf,pod,core"
    for h in 01 02 03 04 05 06 07 08 09 10 11 12 13 14 15 16; do
        l=$(( (1${h} - 100 - 1) / 4 + 1 ))
        echo "node0$h,leaf$l,pod$(( (l + 1) / 2 )),core1"
    done
} >"$work/old.csv"
sed 's/^node004,leaf1,pod1,/node004,leaf4,pod2,/' "$work/old.csv" >"$work/new.csv"
"$TOPO" discover "$work/old.csv" -o "$work/old.json" 2>/dev/null
"$TOPO" discover "$work/new.csv" -o "$work/new.json" 2>/dev/null
chmod 644 "$work/old.json" "$work/new.json"
"$TOPO" diff "$work/old.json" "$work/new.json" --topology-updates >"$work/updates" 2>"$work/diff.err"
rc=$?
if [ $rc -eq 3 ] && [ "$(wc -l <"$work/updates")" -eq 1 ] &&
   grep -q "^scontrol update NodeName=node004 Topology=default:fabric:pod-leaf3:leaf4\$" "$work/updates"; then
    ok "diff --topology-updates: one line, for the one node that moved (exit 3)"
else
    not_ok "diff --topology-updates: one line, for the one node that moved (exit 3)"
    diag "exit $rc" "$(cat "$work/updates" "$work/diff.err")"
fi
# the rest on a running Slurm that can take it
command -v slurmctld >/dev/null && command -v slurmd >/dev/null || skip_all "Slurm (slurmctld, slurmd) not installed"
version=$(slurm_version)
release=$(slurmctld -V | sed 's/^[^ ]* //')
[ "${version:-0}" -ge 2505 ] || skip_all "Slurm $release cannot change a node's topology live (25.05 and later)"
if ! CLUSTER_SELECT=cons_tres cluster_up "$work/c" "$work/old.json" "" "" >"$work/up.log" 2>&1; then
    diag "$(cat "$work/up.log")"
    i=$_n
    while [ $i -lt $n ]; do i=$((i + 1)); not_ok "live topology $i (the cluster did not start)"; done
    exit 0
fi
at_exit cluster_down
# this cluster's slurmctld (make check runs other clusters beside it): the first of CLUSTER_PIDS
set -- $CLUSTER_PIDS
pid=$1
sh "$work/updates" >"$work/apply.out" 2>&1
check "Slurm $release takes the update" [ $? -eq 0 ]
timeout 10 scontrol show topology >"$work/topology.out" 2>&1
if grep -q "SwitchName=leaf4 .*Nodes=node\[004,013-016\]" "$work/topology.out" &&
   grep -q "SwitchName=leaf1 .*Nodes=node\[001-003\]" "$work/topology.out"; then
    ok "scontrol show topology: node004 is under leaf4 now, no longer under leaf1"
else
    not_ok "scontrol show topology: node004 is under leaf4 now, no longer under leaf1"
    diag "$(cat "$work/apply.out" "$work/topology.out")"
fi
# only leaf4 has 5 nodes now: a job on one leaf switch runs there at once
jid=$(sbatch --parsable -o /dev/null -N5 --exclusive --switches=1@10:00 --wrap 'sleep 2')
nodes=$(job_nodes "$jid")
check "a 5-node job on one leaf switch runs on the new leaf4 with node004 [$nodes]" [ "$nodes" = "node[004,013-016]" ]
if kill -0 "$pid" 2>/dev/null && [ "$(grep -c 'slurmctld version .* started' "$work/c/log/slurmctld.log")" -eq 1 ]; then
    ok "no restart: slurmctld is the same process, started once"
else
    not_ok "no restart: slurmctld is the same process, started once"
    diag "$(grep 'started\|reconfigure' "$work/c/log/slurmctld.log")"
fi
cluster_down
