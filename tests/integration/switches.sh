#!/bin/sh
# What Slurm's topology/tree does with --switches=K@WAIT, K above one, on the
# Slurm installed here (22.05 on Debian 12; 24.11 and 26.05 in the release
# matrix): atoll asks it for the fewest leaves a job above one leaf can have.
# 16 slurmd, 4 leaf islands of 4, atoll's topology.conf; with 2 nodes busy in
# three leaves and 1 in the fourth (free: 2, 2, 2, 3), a 6-node job fits on
# no two leaves: with --switches=2@10:00 it waits (and a plain one runs at
# once on three), then runs on two leaves once they free up. select/cons_tres,
# as GPU clusters run (22.05's select/linear picks leaves its own way and
# found 3 leaves where cons_tres finds 2: atoll's counts assume cons_tres).
. "$(dirname "$0")/../lib.sh"
. "$ATOLL_SRCDIR/tests/slurm-cluster.sh"
n=4
plan $n
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null; then
    i=0
    while [ $i -lt $n ]; do i=$((i + 1)); skip "--switches $i" "Slurm (slurmctld, slurmd) not installed"; done
    exit 0
fi
version=$(slurmctld -V | sed 's/^[^ ]* //')
work=$(tmpdir)
"$TOPO" generate --rails 1 --groups 4 --pods 1 --hosts 4 -o "$work/f.net"
"$TOPO" discover "$work/f.net" -o "$work/f.json"
chmod 644 "$work/f.json"
if ! CLUSTER_SELECT=cons_tres cluster_up "$work/c" "$work/f.json" "" "" >"$work/up.log" 2>&1; then
    diag "$(cat "$work/up.log")"
    i=0
    while [ $i -lt $n ]; do i=$((i + 1)); not_ok "--switches $i (the cluster did not start)"; done
    exit 0
fi
at_exit cluster_down
leaf_of() { scontrol show node "$1" | sed -n 's/.*AvailableFeatures=\([^,]*\).*/\1/p'; }
leaves() { for h in $(scontrol show hostnames "$1"); do leaf_of "$h"; done | sort -u | wc -l; }
# blockers: 2 nodes of leaves 1-3, 1 of leaf 4
busy=
for l in 1 2 3 4; do
    k=2
    [ $l -eq 4 ] && k=1
    hosts=$(sed -n "s/^SwitchName=[^ ]* Nodes=//p" "$work/c/topology.conf" | sed -n "${l}p")
    busy="$busy $(sbatch --parsable -o /dev/null -N$k --exclusive -w "$(scontrol show hostnames "$hosts" | head -$k | paste -sd, -)" --wrap 'sleep 600')"
done
sleep 2
job=$(sbatch --parsable -o /dev/null -N6 --exclusive --switches=2@10:00 --wrap 'sleep 1')
plain=$(timeout 60 srun -N6 --exclusive sh -c 'echo $SLURMD_NODENAME' 2>/dev/null | sort | paste -sd, -)
check "Slurm $version: a plain 6-node job runs at once, across 3 leaves [$plain]" [ "$(leaves "$plain")" -eq 3 ]
state=$(squeue -h -j "$job" -o '%T %r')
check "Slurm $version: with --switches=2@10:00 it waits ($state)" [ "${state%% *}" = PENDING ]
# free two leaves: the job may run on exactly two
scancel $(echo $busy | cut -d' ' -f1,2) 2>/dev/null
nodes=$(job_nodes "$job")
[ -n "$nodes" ] || diag "$(squeue -a 2>&1)" "$(scontrol show job "$job" 2>&1 | head -5)"
check "Slurm $version: then it runs [$nodes]" [ -n "$nodes" ]
check "Slurm $version: on two leaves, as asked (the count was not reset)" [ "$(leaves "$nodes")" -eq 2 ]
grep -q "Resetting.*leaf switch count" "$work/c/log/slurmctld.log" && diag "slurmctld reset the count: $(grep -m1 Resetting "$work/c/log/slurmctld.log")"
cluster_down
