#!/bin/sh
# auto's wait for an NVLink domain, on a real Slurm (topology/tree): 16 nodes
# in 2 pods of 2 leaves of 4 at 4:1, each leaf one NVLink domain of 4
# (atoll-topo generate --domain-size 4). A job of 2 to 4 nodes with
# --fabric-island=auto is held to the domains and marked for atoll-widen,
# which lifts it to the pods at the deadline. The deadline is the wait the
# step model decided (cli_filter.lua, atoll-place --slurm --time-limit) when
# that is shorter than island_wait: it reaches job_submit.lua on
# --switches=K@WAIT (K: the leaf switches a domain lies on). Until
# 2026-12-06 the deadline was island_wait whatever the model said, so such a
# job was held up to island_wait (600 s) where the model gave it 316 s. A
# user's own --switches=K@T bounds the deadline the same way.
. "$(dirname "$0")/../lib.sh"
. "$ATOLL_SRCDIR/tests/slurm-cluster.sh"
N=16
plan $N
so="$ATOLL_BUILDDIR/spank/.libs/atoll.so"
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v sbatch >/dev/null; then
    i=0; while [ $i -lt $N ]; do i=$((i + 1)); skip "domain-wait $i" "slurmctld, slurmd or sbatch not installed"; done
    exit 0
fi
work=$(tmpdir)
at_exit cluster_down
"$TOPO" generate --pods 2 --groups 2 --rails 1 --hosts 4 --spines 1 --oversub 4 --domain-size 4 --format json \
    -o "$work/fabric.json"
"$TOPO" slurm --format view "$work/fabric.json" -o "$work/fabric.view"
chmod 644 "$work/fabric.json" "$work/fabric.view"
cluster_up "$work/c" "$work/fabric.json" "$so" "fabric=$work/fabric.view" || {
    i=0; while [ $i -lt $N ]; do i=$((i + 1)); not_ok "domain-wait cluster did not start"; done; exit 0; }
cp "$work/c/plugstack.conf" "$work/c/plugstack.base"
set_plugstack() { sed "s|^\(required .*\)$|\1 $1|" "$work/c/plugstack.base" >"$work/c/plugstack.conf"; }
export ATOLL_WIDEN_LOCK="$work/widen.lock"
D=nvl-8d6e40c4-d722-4357-9ba6

# submit ARGS...: a held job; its id in $jid, scontrol's line in $info, the
# seconds from just before sbatch to its atoll-widen deadline in $after
submit() {
    _t0=$(date +%s)
    jid=$(sbatch -H -o /dev/null "$@" --wrap true 2>"$work/submit.err" | awk '{print $4}')
    info=$(scontrol show job -o "$jid")
    _dl=$(echo "$info" | sed -n 's/.*AdminComment=atoll-widen \([0-9]*\) .*/\1/p')
    after=$(( ${_dl:-0} - _t0 ))
    scancel "$jid"
}

# comm_share=0.002, 20 minutes: spanning the 4:1 uplinks out of a domain
# adds 316 s (the step model; its decision line says so), under
# island_wait's 600 s: the job waits 316 s for a domain, then the pods
set_plugstack "comm_share=0.002"
submit -N3 --time=20 --fabric-island=auto --fabric-explain
w=$(sed -n 's/.*: waits up to \([0-9]*\) s$/\1/p' "$work/submit.err")
if [ -n "$w" ] && [ "$w" -lt 600 ] && [ "$w" -gt 100 ] && [ "$after" -ge $((w - 2)) ] && [ "$after" -le $((w + 3)) ] &&
   echo "$info" | grep -q "Features=\[$D-000000000000.32766|"; then
    ok "auto, 3 nodes, --time=20: held to the domains until the model's wait ($w s), not island_wait"
else not_ok "auto, 3 nodes, --time=20: held to the domains until the model's wait ($w s), not island_wait"
    diag "deadline after $after s" "$info" "$(cat "$work/submit.err")"; fi
hms=$(printf '%02d:%02d:%02d' $((w / 3600)) $((w % 3600 / 60)) $((w % 60)))
if echo "$info" | grep -q "Switches=1@$hms"; then
    ok "the wait reaches Slurm as --switches=1@WAIT (one leaf switch holds every domain: nothing more is asked)"
else not_ok "the wait reaches Slurm as --switches=1@WAIT (one leaf switch holds every domain: nothing more is asked)"
    diag "$info"; fi
# without --time nothing is modelled: island_wait
submit -N3 --fabric-island=auto
if [ "$after" -ge 598 ] && [ "$after" -le 603 ]; then ok "auto without --time: the deadline is island_wait (600 s)"
else not_ok "auto without --time: the deadline is island_wait (600 s)"; diag "deadline after $after s" "$info"; fi
# a user's own --switches=1@2:00 (120 s): the deadline too
submit -N3 --time=20 --switches=1@2:00 --fabric-island=auto
if [ "$after" -ge 118 ] && [ "$after" -le 123 ] && echo "$info" | grep -q "Switches=1@00:02:00"; then
    ok "auto with the user's own --switches=1@2:00: the deadline is 120 s, the switches the user's"
else not_ok "auto with the user's own --switches=1@2:00: the deadline is 120 s, the switches the user's"
    diag "deadline after $after s" "$info"; fi

# a pod (6 nodes): --switches=K@WAIT is also the leaf wait, so a wait under
# leaf_wait is the deadline; the user's own 30 s here
submit -N6 --switches=2@0:30 --fabric-island=auto
if [ "$after" -ge 28 ] && [ "$after" -le 33 ] && echo "$info" | grep -q "Features=\[pod-"; then
    ok "auto, 6 nodes (a pod) with --switches=2@0:30: held to the pods, the deadline 30 s"
else not_ok "auto, 6 nodes (a pod) with --switches=2@0:30: held to the pods, the deadline 30 s"
    diag "deadline after $after s" "$info"; fi

# (helper 42) --switches=K@0 with islands named is a wait of 0, not "no
# wait, nothing asked": leaf_wait=0 makes cli_filter.lua's pod answer
# switches=2@0:00, and the job is still marked (at island_wait; the leaf
# wait is the same number); a user's own --switches=1@0 on a domain widens
# at once. Both had no mark: held to their islands for ever
set_plugstack "leaf_wait=0"
submit -N6 --fabric-island=auto
if [ "$after" -ge 598 ] && [ "$after" -le 603 ] && echo "$info" | grep -q "Features=\[pod-.*Switches=2@00:00:00"; then
    ok "leaf_wait=0: a pod job (switches 2@0) is still marked to widen, at island_wait"
else not_ok "leaf_wait=0: a pod job (switches 2@0) is still marked to widen, at island_wait"
    diag "deadline after $after s" "$info"; fi
set_plugstack ""
submit -N3 --switches=1@0 --fabric-island=auto
if [ "$after" -ge -1 ] && [ "$after" -le 2 ] && echo "$info" | grep -q "Features=\[$D-"; then
    ok "a user's own --switches=1@0 on a domain: marked to widen at once"
else not_ok "a user's own --switches=1@0 on a domain: marked to widen at once"; diag "deadline after $after s" "$info"; fi
# (helper 42) --ntasks=8 without -N on nodes of 2 CPUs: cli_filter.lua
# counts 4 nodes and holds the job to the domains; job_submit.lua, which
# sees no CPUs, counts 1, whose row (a leaf) never widens: it takes the
# domains' row from the islands named
submit -n8 --fabric-island=auto
if [ "$after" -ge 598 ] && [ "$after" -le 603 ] && echo "$info" | grep -q "Features=\[$D-.*AdminComment=atoll-widen [0-9]* \[$D-[^ ]* \[pod-"; then
    ok "--ntasks=8 alone (4 nodes to cli_filter.lua, 1 to job_submit.lua): held to the domains and marked to widen"
else not_ok "--ntasks=8 alone (4 nodes to cli_filter.lua, 1 to job_submit.lua): held to the domains and marked to widen"
    diag "deadline after $after s" "$info"; fi

# The user changes a marked job's features while it waits (2026-12-06:
# atoll-widen wrote back the features of submit time, islands widened,
# and so undid the change): the islands are widened in the features as they
# are then. A job whose islands the user took out only loses the mark.
jid=$(sbatch -H -o /dev/null -N3 --switches=1@0:01 --fabric-island=auto --wrap true | awk '{print $4}')
info=$(scontrol show job -o "$jid")
feat=$(echo "$info" | sed -n 's/.* Features=\([^ ]*\) .*/\1/p')
pod=$(echo "$info" | sed -n 's/.*AdminComment=atoll-widen [0-9]* [^ ]* \[\(pod-[^]|]*\).*/\1/p')
scontrol update JobId="$jid" Features="$feat&$pod"
jid2=$(sbatch -H -o /dev/null -N3 --switches=1@0:01 --fabric-island=auto --wrap true | awk '{print $4}')
scontrol update JobId="$jid2" Features="$pod"
sleep 2
"$ATOLL_SRCDIR/contrib/atoll-widen" >"$work/widen-user" 2>&1
info=$(scontrol show job -o "$jid")
info2=$(scontrol show job -o "$jid2")
scancel "$jid" "$jid2"
if [ -n "$pod" ] && echo "$info" | grep -q "Features=\[pod-[^ ]*\]&$pod " && ! echo "$info" | grep -q "AdminComment=atoll-widen"; then
    ok "a feature the user added while the job waited is kept when atoll-widen widens its islands"
else not_ok "a feature the user added while the job waited is kept when atoll-widen widens its islands"
    diag "pod=$pod" "$info" "$(cat "$work/widen-user")"; fi
if echo "$info2" | grep -q "Features=$pod " && ! echo "$info2" | grep -q "AdminComment=atoll-widen" &&
   grep -q "job $jid2 no longer holds" "$work/widen-user"; then
    ok "a job whose islands the user replaced keeps the user's features; atoll-widen only clears the mark"
else not_ok "a job whose islands the user replaced keeps the user's features; atoll-widen only clears the mark"
    diag "$info2" "$(cat "$work/widen-user")"; fi

# Slurm takes 64 features in a constraint's brackets (MAX_FEATURES,
# node_scheduler.c): until 2026-12-06 a table row of more islands (a large
# NVL72 cluster has hundreds of domains) went to Slurm whole, and slurmctld
# 22.05 died at submit. Here the domain row lists 128 islands (zz001 to
# zz124, features of node016, then the real domains): each job gets 64 in
# the row's order, the next job of the row the other 64, even with a job of
# another row between them (helper 44: one turn counter for all rows gave
# a row of 128 the same 64 whenever rows alternated). job_submit.lua alone:
# cli_filter.lua's fabric is gone.
set_plugstack ""
zz=$(seq -f 'zz%03g' 1 124 | paste -sd,)
f16=$(scontrol show node node016 | sed -n 's/.*AvailableFeatures=\([^ ]*\).*/\1/p')
scontrol update NodeName=node016 AvailableFeatures="$f16,$zz" ActiveFeatures="$f16,$zz"
cp "$work/c/atoll-requests.conf" "$work/requests.orig"
sed "s/^\(auto atoll 2 [0-9]* domain [0-9]* [a-z-]* \)\([^ ]*\)/\1$(echo "$zz" | tr , '|')|\2/" "$work/requests.orig" \
    >"$work/c/atoll-requests.conf"
mkdir -p "$work/c2"
cp "$work/c/slurm.conf" "$work/c2/"
sed "s|^local FABRIC = .*|local FABRIC = \"$work/no-such-fabric.json\"|" "$work/c/cli_filter.lua" >"$work/c2/cli_filter.lua"
for a in -N3 -N6 -N3; do
    SLURM_CONF="$work/c2/slurm.conf" sbatch -H -o /dev/null $a --fabric-island=auto --wrap true >>"$work/long" 2>&1
done
j1=$(sed -n 's/^Submitted batch job //p' "$work/long" | head -1)
jx=$(sed -n 's/^Submitted batch job //p' "$work/long" | sed -n 2p)
j2=$(sed -n 's/^Submitted batch job //p' "$work/long" | sed -n 3p)
up=$(scontrol ping 2>&1)
f1=$(scontrol show job -o "$j1" | sed -n 's/.* Features=\([^ ]*\) .*/\1/p')
f2=$(scontrol show job -o "$j2" | sed -n 's/.* Features=\([^ ]*\) .*/\1/p')
m1=$(scontrol show job -o "$j1" | sed -n 's/.*AdminComment=atoll-widen [0-9]* \([^ ]*\) .*/\1/p')
# the row's list; each job's islands by their place in it
awk '$1 == "auto" && $2 == "atoll" && $5 == "domain" && $3 == 2 {print $8}' "$work/c/atoll-requests.conf" | tr '|' '\n' >"$work/list"
places() { echo "$1" | tr -d '[]' | tr '|' '\n' | awk 'NR == FNR {at[$0] = FNR; next} {print (at[$0] ? at[$0] : "missing")}' "$work/list" -; }
p1=$(places "$f1" | paste -sd' ')
p2=$(places "$f2" | paste -sd' ')
sorted1=$(places "$f1" | sort -n | paste -sd' ')
sorted2=$(places "$f2" | sort -n | paste -sd' ')
both=$({ places "$f1"; places "$f2"; } | sort -u | grep -c '^[0-9]')
cp "$work/requests.orig" "$work/c/atoll-requests.conf"
scancel "$j1" "$jx" "$j2" 2>/dev/null
if echo "$up" | grep -q "is UP" && [ "$(wc -l <"$work/list")" = 128 ] && [ "$both" = 128 ] && [ "$m1" = "$f1" ] &&
   [ "$p1" = "$sorted1" ] && [ "$p2" = "$sorted2" ] && [ "$(echo "$p1" | wc -w)" = 64 ] && [ "$(echo "$p2" | wc -w)" = 64 ]; then
    ok "a table row of 128 islands: two jobs of the row held to 64 each in its order, all 128 between them; slurmctld up"
else not_ok "a table row of 128 islands: two jobs of the row held to 64 each in its order, all 128 between them; slurmctld up"
    diag "$up" "both=$both" "$p1" "$p2" "$m1" "$(cat "$work/long")"; fi
# Slurm takes one set of brackets in a constraint ("Invalid feature
# specification" for two): until 2026-12-06 a job with its own bracketed
# --constraint and an island request was refused by Slurm with that message
# alone. auto (and :preferred) now go on without atoll's islands and say so;
# a required request is refused naming both options. cli_filter.lua (live)
# and job_submit.lua alone (c2) alike.
own="[zz001|zz002]"
sbatch -H -o /dev/null -N3 --constraint="$own" --fabric-island=auto --wrap true >"$work/own-live" 2>&1
SLURM_CONF="$work/c2/slurm.conf" sbatch -H -o /dev/null -N3 --constraint="$own" --fabric-island=auto --wrap true \
    >"$work/own-table" 2>&1
jl=$(sed -n 's/^Submitted batch job //p' "$work/own-live")
jt=$(sed -n 's/^Submitted batch job //p' "$work/own-table")
fl= ft=
[ -n "$jl" ] && fl=$(scontrol show job -o "$jl" | sed -n 's/.* Features=\([^ ]*\) .*/\1/p')
[ -n "$jt" ] && ft=$(scontrol show job -o "$jt" | sed -n 's/.* Features=\([^ ]*\) .*/\1/p')
[ -n "$jl$jt" ] && scancel $jl $jt 2>/dev/null
if [ "$fl" = "$own" ] && [ "$ft" = "$own" ] &&
   grep -q "atoll: warning: --constraint=\[zz001|zz002\] has brackets, and Slurm takes one set: --fabric-island=auto adds no island constraint" "$work/own-live" &&
   grep -q "atoll: warning: --constraint=\[zz001|zz002\] has brackets, and Slurm takes one set" "$work/own-table"; then
    ok "auto with the job's own bracketed --constraint: submitted with the user's brackets alone, and told why"
else not_ok "auto with the job's own bracketed --constraint: submitted with the user's brackets alone, and told why"
    diag "$fl" "$ft" "$(cat "$work/own-live" "$work/own-table")"; fi
# (helper 44) the user's own brackets naming atoll's islands (a constraint
# --fabric-explain printed) are the island constraint, for cli_filter.lua
# as for job_submit.lua: a required domain job keeps them
d2="[$D-000000000002.32766|$D-000000000003.32766]"
jo=$(sbatch -H -o /dev/null -N3 --constraint="$d2" --fabric-island=domain --wrap true 2>"$work/own-d.err" | awk '{print $4}')
fo=
[ -n "$jo" ] && fo=$(scontrol show job -o "$jo" | sed -n 's/.* Features=\([^ ]*\) .*/\1/p') && scancel "$jo"
check "a required domain with the user's own bracket of domains: submitted with those" [ "$fo" = "$d2" ]
[ "$fo" = "$d2" ] || diag "$fo" "$(cat "$work/own-d.err")"
sbatch -H -o /dev/null -N3 --constraint="$own" --fabric-island=domain --wrap true >"$work/own-req" 2>&1
rc1=$?
SLURM_CONF="$work/c2/slurm.conf" sbatch -H -o /dev/null -N3 --constraint="$own" --fabric-island=domain --wrap true \
    >>"$work/own-req" 2>&1
rc2=$?
scancel $(sed -n 's/^Submitted batch job //p' "$work/own-req") 2>/dev/null
if [ $rc1 -ne 0 ] && [ $rc2 -ne 0 ] &&
   [ "$(grep -c "atoll: --fabric-island=domain\(:required\)\{0,1\} holds the job to its islands with a bracketed --constraint, and Slurm takes one set of brackets, which --constraint=\[zz001|zz002\] has" "$work/own-req")" = 2 ]; then
    ok "a required island with the job's own bracketed --constraint: refused at submit naming both options"
else not_ok "a required island with the job's own bracketed --constraint: refused at submit naming both options"
    diag "rc $rc1 $rc2" "$(cat "$work/own-req")"; fi
scontrol update NodeName=node016 AvailableFeatures="$f16" ActiveFeatures="$f16"

# End to end: two nodes of every domain busy, a 3-node job with its own
# --switches=1@0:03 waits 3 s for a domain, then atoll-widen lifts it to the
# pods and it runs in one pod across its two leaves
wait_idle
set_plugstack ""
busy=$(sbatch -o /dev/null --exclusive -N8 -w 'node[001-002,005-006,009-010,013-014]' --time=5 --wrap 'sleep 120' |
    awk '{print $4}')
i=0; while [ "$(squeue -h -j "$busy" -o %t)" != R ] && [ $i -lt 75 ]; do i=$((i + 1)); sleep 0.2; done
jid=$(sbatch -o /dev/null --exclusive -N3 --time=5 --switches=1@0:03 --fabric-island=auto --wrap 'sleep 1' |
    awk '{print $4}')
sleep 1
st=$(squeue -h -j "$jid" -o %t)
info=$(scontrol show job -o "$jid")
if [ "$st" = PD ] && echo "$info" | grep -q "Features=\[$D-" && echo "$info" | grep -q "AdminComment=atoll-widen [0-9]* \[$D-[^ ]* \[pod-"; then
    ok "no domain has 3 free: the job waits, held to the domains, marked to widen to the pods"
else not_ok "no domain has 3 free: the job waits, held to the domains, marked to widen to the pods"; diag "$st" "$info"; fi
sleep 3
"$ATOLL_SRCDIR/contrib/atoll-widen" >"$work/widen" 2>&1
i=0; while [ "$(squeue -h -j "$jid" -o %t)" = PD ] && [ $i -lt 75 ]; do i=$((i + 1)); sleep 0.2; done
nodes=$(scontrol show job -o "$jid" | sed -n 's/.* NodeList=\([^ ]*\) .*/\1/p')
case "$nodes" in
node\[003-004,007\] | node\[003,007-008\] | node\[011-012,015\] | node\[011,015-016\] | node\[003-004,008\] | node\[004,007-008\] | node\[011-012,016\] | node\[012,015-016\])
    ok "after its 3 s atoll-widen lifts it to the pods: it runs in one pod ($nodes)" ;;
*) not_ok "after its 3 s atoll-widen lifts it to the pods: it runs in one pod ($nodes)"; diag "$(cat "$work/widen")" "$(scontrol show job -o "$jid")" ;;
esac
scancel --user=root
exit 0
