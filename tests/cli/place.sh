#!/bin/sh
# atoll-place end to end: placements on a generated fabric and the real
# Alibaba Clos, traces replayed with every policy, outputs written whole, and
# clear errors (usage 2, input 1 with FILE:LINE, no placement now 3).
. "$(dirname "$0")/../lib.sh"
plan 105
work=$(tmpdir)
"$TOPO" generate --groups 4 --hosts 8 --format json -o "$work/ft.json"
crux="$DATA/csv/crux_topology_hosts.csv"

out=$("$PLACE" place "$work/ft.json" --nodes 8)
check "8 nodes fill one leaf" [ "$out" = "node[001-008]" ]
out=$("$PLACE" place "$work/ft.json" --nodes 12 --free "node[003-016]" --split even)
if [ "$out" = "node[003-014]" ]; then ok "12 over two leaves with 6 and 8 free is 6+6 with --split even"; else not_ok "12 over two leaves with 6 and 8 free is 6+6 with --split even"; diag "$out"; fi
out=$("$PLACE" place "$work/ft.json" --nodes 12 --free "node[003-016]")
if [ "$out" = "node[003-006,009-016]" ]; then ok "12 packed by Slurm's best fit by default: the fuller leaf whole, then 4"; else not_ok "12 packed by Slurm's best fit by default: the fuller leaf whole, then 4"; diag "$out"; fi
out=$("$PLACE" place "$work/ft.json" --nodes 12 --free "node[003-016]" --policy slurm-tree)
if [ "$out" = "node[003-006,009-016]" ]; then ok "slurm-tree takes the fuller leaf whole, then 4"; else not_ok "slurm-tree takes the fuller leaf whole, then 4"; diag "$out"; fi
"$PLACE" place "$work/ft.json" --nodes 12 --json --explain >"$work/p.json" 2>"$work/explain"
if \
    grep -q '"island": "pod-ib-leaf01"' "$work/p.json" && grep -q '"leaves": 2' "$work/p.json" && grep -q '"hops": 4' "$work/p.json"; then ok "--json names the island, leaves and hops"; else not_ok "--json names the island, leaves and hops"; fi
if \
    grep -q "leaf: none of 4 has 12 free" "$work/explain" && grep -q "allreduce:  ring over 12 nodes of 1 GiB" "$work/explain"; then ok "--explain gives the reasoning and an all-reduce estimate"; else not_ok "--explain gives the reasoning and an all-reduce estimate"; fi

"$PLACE" place "$work/ft.json" --nodes 9 --level leaf 2>"$work/err"
rc=$?
if [ $rc -eq 3 ] && grep -q "the largest leaf holds 8" "$work/err"; then ok "a request no leaf can ever hold exits 3 and names the largest"; else not_ok "a request no leaf can ever hold exits 3 and names the largest"; fi
"$PLACE" place "$work/ft.json" --nodes 4 --level leaf --free "node[001-003,009-011]" 2>"$work/err"
if [ $? -eq 3 ] && grep -q "no leaf has 4 free nodes" "$work/err"; then ok "no leaf with room now exits 3"; else not_ok "no leaf with room now exits 3"; fi
out=$("$PLACE" place "$work/ft.json" --nodes 4 --level leaf --fit preferred --free "node[001-003,009-011]" --split even)
if [ "$out" = "node[001-002,009-010]" ]; then ok "preferred widens to the pod (even split)"; else not_ok "preferred widens to the pod (even split)"; diag "$out"; fi
out=$("$PLACE" place "$work/ft.json" --nodes 4 --level leaf --fit preferred --free "node[001-003,009-011]")
if [ "$out" = "node[001-003,009]" ]; then ok "preferred widens to the pod, packed: the first leaf of 3 whole, then 1"; else not_ok "preferred widens to the pod, packed: the first leaf of 3 whole, then 1"; diag "$out"; fi

# --slurm: what cli_filter.lua hands Slurm. node001-004 (leaf 1) and
# node009-016 (leaf 2) are free: leaf 1 is the exact fit, then leaf 2, then
# the busy leaves; sinfo's nodes off the fabric (login1) are ignored.
out=$("$PLACE" place "$work/ft.json" --nodes 4 --island leaf --slurm --free "node[001-004,009-016],login1" | grep -v '^free=')
if \
    [ "$out" = "constraint=[ib-leaf01|ib-leaf02|ib-leaf03|ib-leaf04]" ]; then ok "--slurm: a required leaf is a constraint over the leaves, best fit first"; else not_ok "--slurm: a required leaf is a constraint over the leaves, best fit first"; diag "$out"; fi
out=$("$PLACE" place "$work/ft.json" --nodes 4 --island leaf --slurm --free "node[001-008,013-032]" | tr '\n' ' ')
if \
    [ "$out" = "free=28 constraint=[ib-leaf02|ib-leaf01|ib-leaf03|ib-leaf04] " ]; then ok "--slurm: the ranking follows the free hosts (leaf 2 has exactly 4 now)"; else not_ok "--slurm: the ranking follows the free hosts (leaf 2 has exactly 4 now)"; diag "$out"; fi
"$TOPO" generate --pods 2 --groups 2 --hosts 4 --format json -o "$work/pods.json"
out=$("$PLACE" place "$work/pods.json" --nodes 2 --island leaf:preferred --island-wait 90 --slurm --free "node[001-004,007-016]" | grep -v '^free=' | tr '\n' ' ')
if \
    [ "$out" = "switches=1@1:30 constraint=[pod-ib-leaf01|pod-ib-leaf03] " ]; then ok "--slurm: a preferred leaf waits one leaf switch (MM:SS), then one pod, the fuller pod first"; else not_ok "--slurm: a preferred leaf waits one leaf switch (MM:SS), then one pod, the fuller pod first"; diag "$out"; fi
out=$("$PLACE" place "$work/pods.json" --nodes 6 --island pod --island-wait 90 --leaf-wait 14400 --slurm --free "node[001-016]" | grep '^switches=')
check "--slurm: above a leaf, --switches=K waits --leaf-wait (240 minutes)" [ "$out" = "switches=2@240:00" ]
out=$("$PLACE" place "$work/pods.json" --nodes 2 --island leaf:preferred --island-wait 90 --leaf-wait 14400 --slurm | grep '^switches=')
check "--slurm: a preferred leaf still waits --island-wait" [ "$out" = "switches=1@1:30" ]
# auto asks for an island only where spanning costs something: not on the
# non-blocking pods.json, on a 4:1 one of the same shape (at 2:1 a ring over
# 4 leaves instead of 3 loses under 1 %: nothing asked there either)
out=$("$PLACE" place "$work/pods.json" --nodes 12 --island auto --leaf-wait 14400 --slurm | grep -v '^free=')
check "--slurm: auto on a non-blocking fat tree asks nothing" [ -z "$out" ]
"$TOPO" generate --pods 2 --groups 2 --hosts 4 --spines 1 --oversub 4 --format json -o "$work/pods4.json"
out=$("$PLACE" place "$work/pods4.json" --nodes 12 --island auto --leaf-wait 14400 --slurm | grep -v '^free=')
check "--slurm: auto larger than any pod: the fewest leaves (3 of 4 hosts), no constraint" [ "$out" = "switches=3@240:00" ]
# --time-limit: the wait is what spanning would cost, (slowdown - 1) x the
# limit, at most --island-wait; nothing when the running jobs free a leaf
# later than that. node001-003 and node005-007 busy: a leaf whole when one ends.
out=$("$PLACE" place "$work/pods4.json" --nodes 2 --island auto --island-wait 3600 --slurm --free "node004,node008" | grep '^switches=')
check "--slurm: auto without --time-limit waits --island-wait" [ "$out" = "switches=1@60:00" ]
printf 'node[001-003] 10:00:00\nnode[005-007] 2-00:00:00\n' >"$work/late"
out=$("$PLACE" place "$work/pods4.json" --nodes 2 --island auto --island-wait 3600 --slurm --free "node004,node008" \
    --time-limit 1:00 --comm-share 0.7 --running "$work/late" | grep -v '^free=')
check "--slurm: auto whose leaf is 10 hours away spans now (asks nothing)" [ -z "$out" ]
# spanning now is priced with the running jobs that cross the uplinks: with
# none crossing (the two jobs above, one leaf each) the 4:1 uplinks carry the
# job's ring at its NIC rate, so it spans now whenever its leaf frees
printf 'node[001-003] 0:30\nnode[005-007] 2-00:00:00\n' >"$work/idle"
out=$("$PLACE" place "$work/pods4.json" --nodes 2 --island auto --island-wait 3600 --slurm --free "node004,node008" \
    --time-limit 1:00 --comm-share 0.7 --running "$work/idle" | grep -v '^free=')
check "--slurm: auto asks nothing when no running job crosses the uplinks it would use" [ -z "$out" ]
# one job across both leaves shares them: the ring at half its rate, 1.7 x
# the step with communication 0.7, 42 s of a 60 s job against 30 s of wait
printf 'node[001-003,005-007] 0:30\n' >"$work/soon"
out=$("$PLACE" place "$work/pods4.json" --nodes 2 --island auto --island-wait 3600 --slurm --free "node004,node008" \
    --time-limit 1:00 --comm-share 0.7 --running "$work/soon" | grep '^switches=')
case $out in
switches=1@1:00 | switches=1@60:00 | "") not_ok "--slurm: auto whose leaf frees in 30 s waits what spanning a 60 s job costs"; diag "$out" ;;
switches=1@*) ok "--slurm: auto whose leaf frees in 30 s waits what spanning a 60 s job costs" ;;
*) not_ok "--slurm: auto whose leaf frees in 30 s waits what spanning a 60 s job costs"; diag "$out" ;;
esac
# --pending (squeue's pending jobs): the queue takes the hosts that free up,
# each job as soon as they hold it (the fullest leaf that holds it), and
# gives them back after its time limit (never when squeue gives none). Two
# 3-node jobs take 3 of each leaf's 4 hosts the job above frees at 30 s;
# no other end frees a leaf, so spanning now is the cheaper (atoll-place(1))
# the decision for 2 nodes with node004 and node008 free, the job above
# running, and the queue of FILE
queued() {
    "$PLACE" place "$work/pods4.json" --nodes 2 --island auto --island-wait 3600 --slurm --free "node004,node008" \
        --time-limit 1:00 --comm-share 0.7 --running "$work/soon" --pending "$1" --explain | grep -v '^free=\|^constraint='
}
printf '3|Priority|\n3|Resources|\n' >"$work/pend"
out=$(queued "$work/pend")
check "--slurm --pending: queued jobs take the hosts that free up: auto spans now, saying why" \
    [ "$out" = "decision=spanning now adds 42 s to the 60 s limit; no leaf frees up as the running jobs end (2 queued jobs, 6 nodes, take hosts as they free up): no wait" ]
# with their time limits (squeue's third field, 0:10) they give the leaves
# back at 40 s: a leaf in 40 s, against 42 s of spanning, is worth the wait
printf '3|Priority|0:10|\n3|Resources|0:10|\n' >"$work/pend10"
out=$(queued "$work/pend10")
check "--slurm --pending with time limits: the queue gives hosts back when its jobs end: auto waits" \
    [ "$out" = "decision=spanning now adds 42 s to the 60 s limit; a leaf frees up in 40 s (2 queued jobs, 6 nodes, take hosts as they free up): waits up to 42 s
switches=1@0:42" ]
# a job larger than a leaf takes 4 + 1 of the 8 hosts, leaving 3 in a leaf;
# jobs held or waiting for a dependency take none (counted, the next 3-node
# job would take that leaf too, and none would free up)
printf '5|Priority|\n3|JobHeldUser|\n3|Dependency|\n' >"$work/pend0"
out=$(queued "$work/pend0")
check "--slurm --pending: a job larger than a leaf spans what frees up, held or dependent jobs take nothing: auto waits" \
    [ "$out" = "decision=spanning now adds 42 s to the 60 s limit; a leaf frees up in 30 s (1 queued job, 5 nodes, take hosts as they free up): waits up to 42 s
switches=1@0:42" ]
# (helper 40) only jobs waiting for nodes (None, Priority, Resources) take
# hosts as they free up: 20 one-node jobs over their QOS limit switched the
# wait off for every job (a leaf in 300 s, counted as taken by them)
printf 'node004 5:00\nnode008 10:00\nnode[009-016] 5-00:00:00\n' >"$work/r40"
for r in QOSMaxJobsPerUserLimit Priority; do
    i=0; while [ $i -lt 20 ]; do echo "1|$r|UNLIMITED|"; i=$((i + 1)); done >"$work/p40.$r"
    "$PLACE" place "$work/pods4.json" --nodes 4 --island auto --slurm --free 'node[001-003,005-007]' --time-limit 1:00:00 \
        --running "$work/r40" --pending "$work/p40.$r" --uplink-load busy --explain >"$work/d40.$r" 2>&1
done
check "--slurm --pending: jobs over a QOS limit take no host that frees up (the job waits); jobs by priority do" \
    sh -c 'grep -q "^decision=.*a leaf frees up in 300 s (no job queued): waits up to" "$1.QOSMaxJobsPerUserLimit" &&
        grep -q "^decision=.*: no wait" "$1.Priority"' _ "$work/d40"
# a pending time limit as squeue never prints it (1:60, a bare 5) is an
# error, as in --running; a limit of 0 is none imposed: never frees
printf '3|Priority|1:60|\n' >"$work/p60"
printf '3|Priority|5|\n' >"$work/p5"
printf '3|Priority|0:00|\n3|Resources|0:00|\n' >"$work/p00"
"$PLACE" place "$work/pods4.json" --nodes 2 --island auto --slurm --free "node004,node008" --time-limit 1:00 \
    --running "$work/soon" --pending "$work/p60" >/dev/null 2>"$work/p60.err"; r1=$?
"$PLACE" place "$work/pods4.json" --nodes 2 --island auto --slurm --free "node004,node008" --time-limit 1:00 \
    --running "$work/soon" --pending "$work/p5" >/dev/null 2>"$work/p5.err"; r2=$?
out=$(queued "$work/p00")
check "--pending: TIMELIMIT 1:60 and 5 are FILE:LINE errors; 0:00 never frees (no wait, as without a limit)" \
    sh -c '[ "$1$2" = 11 ] && grep -q "p60:1: TIMELIMIT .1:60. is not a time limit squeue prints" "$3" &&
        grep -q "p5:1: TIMELIMIT .5. is not a time limit squeue prints" "$4" && [ "${5##*: }" = "no wait" ]' \
    _ "$r1" "$r2" "$work/p60.err" "$work/p5.err" "$out"
# auto held to an NVLink domain: the wait decided reaches job_submit.lua's
# atoll-widen deadline as --switches=K@WAIT, K the leaf switches a domain
# lies on (here 1: each leaf is one domain); never on topology/block, which
# takes no --switches; without --time-limit nothing is decided, nothing added
"$TOPO" generate --pods 2 --groups 2 --rails 1 --hosts 4 --spines 1 --oversub 4 --domain-size 4 --format json \
    -o "$work/dom.json" 2>/dev/null
dom() { "$PLACE" place "$work/dom.json" --nodes 3 --island auto --slurm "$@" | grep -v '^free=\|^constraint='; }
d1=$(dom --time-limit 20 --comm-share 0.002 --explain)
d2=$(dom --time-limit 20 --comm-share 0.002 --topology block)
d3=$(dom)
w=$(echo "$d1" | sed -n 's/^decision=.*: waits up to \([0-9]*\) s$/\1/p')
check "--slurm: auto on a domain carries the model's wait as --switches=1@WAIT (tree only)" \
    sh -c '[ -n "$1" ] && [ "$1" -lt 600 ] && echo "$2" | grep -qx "switches=1@$(($1 / 60)):$(printf %02d $(($1 % 60)))" &&
        [ -z "$3" ] && [ -z "$4" ]' _ "$w" "$d1" "$d2" "$d3"
# (helper 42) --explain says why nothing is weighed, and a cost under 1 s
# is not shown as "1 s" beside "no wait"
"$TOPO" generate --groups 4 --hosts 4 --format json -o "$work/nb.json" 2>/dev/null
e1=$("$PLACE" place "$work/dom.json" --nodes 3 --island auto --slurm --time-limit 20 --topology block --explain | grep '^decision=')
e2=$("$PLACE" place "$work/nb.json" --nodes 2 --island auto --slurm --time-limit 20 --explain | grep '^decision=')
e3=$("$PLACE" place "$work/dom.json" --nodes 3 --island auto --slurm --time-limit 0:01 --comm-share 0.006 --explain | grep '^decision=')
check "--explain: nothing to wait for on a block or where spanning is free says why; under 1 s is said so" \
    sh -c '[ "$1" = "decision=nothing to wait for: topology/block keeps the job in one block: no wait" ] &&
        [ "$2" = "decision=nothing to wait for: spanning costs under 1 % on this fabric: no wait" ] &&
        echo "$3" | grep -q "spanning adds under 1 s to the 1 s limit.*: no wait\$"' _ "$e1" "$e2" "$e3"
# (helper 43) a job array's pending tasks listed once (squeue without -r)
# join their reasons with commas (squeue's _merge_job_reason()): queued when
# every one is; a job over a limit in any part is not
printf '3|Priority,Resources|\n3|Resources,Priority|\n' >"$work/pendm"
printf '3|Priority,JobHeldUser|\n3|,|\n' >"$work/pendh"
om=$(queued "$work/pendm")
oh=$(queued "$work/pendh")
e4=$("$PLACE" place "$work/pods4.json" --nodes 16 --island auto --slurm --time-limit 10 --explain | grep '^decision=')
check "--pending: merged reasons count when all are queued; a job of every leaf is told so, not that spanning is free" \
    sh -c 'echo "$1" | grep -q "(2 queued jobs, 6 nodes, take hosts" && echo "$2" | grep -q "(no job queued)" &&
        [ "$3" = "decision=nothing to wait for: the job needs every leaf of the fabric: no wait" ]' _ "$om" "$oh" "$e4"
# --scontrol-nodes with a format that never reads it: a usage error
"$TOPO" slurm "$work/pods4.json" --scontrol-nodes /nonexistent >/dev/null 2>"$work/sn.err"
check "slurm --scontrol-nodes without --format scontrol: usage error" \
    sh -c '[ "$1" = 2 ] && grep -q -- "--scontrol-nodes: only with --format scontrol" "$2"' _ "$?" "$work/sn.err"
# uplink_load=busy (--uplink-load busy): the uplinks carry traffic squeue does
# not show, so every other host of the two leaves crosses the 4:1 uplinks
# too: the ring at a quarter of its rate, 0.3 + 0.7 x 4 = 3.1 x the step,
# 126 s of a 60 s job against a leaf free in 30 s (with no job crossing,
# "running" asked nothing above)
out=$("$PLACE" place "$work/pods4.json" --nodes 2 --island auto --island-wait 3600 --slurm --free "node004,node008" \
    --time-limit 1:00 --comm-share 0.7 --running "$work/idle" --uplink-load busy --explain | grep -v '^free=\|^constraint=')
check "--slurm --uplink-load busy: spanning priced as if the leaves' other hosts cross the uplinks: auto waits" \
    [ "$out" = "decision=spanning now adds 126 s to the 60 s limit (busy uplinks); a leaf frees up in 30 s: waits up to 126 s
switches=1@2:06" ]
printf 'node[001-003]\n' >"$work/bad"
"$PLACE" place "$work/pods4.json" --nodes 2 --island auto --slurm --time-limit 60 --running "$work/bad" >/dev/null 2>"$work/err"
rc=$?
if [ $rc -eq 1 ] && grep -q "bad:1: expected NODELIST TIMELEFT" "$work/err"; then ok "--slurm --running: a line without time left is FILE:LINE, exit 1"; else not_ok "--slurm --running: a line without time left is FILE:LINE, exit 1"; diag "$rc $(cat "$work/err")"; fi
"$PLACE" place "$work/pods4.json" --nodes 2 --island auto --slurm --running "$work/bad" >/dev/null 2>"$work/err"
rc=$?
if [ $rc -eq 2 ] && grep -q "goes with --time-limit" "$work/err"; then ok "--running without --time-limit is a usage error"; else not_ok "--running without --time-limit is a usage error"; diag "$rc $(cat "$work/err")"; fi
out=$("$PLACE" place "$work/pods.json" --nodes 20 --island auto --slurm)
check "--slurm: auto larger than the fabric is refused, naming its size" \
    [ "$out" = "refuse=--fabric-island=auto: no fabric can hold 20 nodes; the largest fabric holds 16" ]
out=$("$PLACE" place "$work/ft.json" --nodes 9 --island leaf --slurm)
if \
    [ "$out" = "refuse=--fabric-island=leaf: no leaf can hold 9 nodes; the largest leaf holds 8" ]; then ok "--slurm: a request no leaf can hold is refused, naming the largest"; else not_ok "--slurm: a request no leaf can hold is refused, naming the largest"; diag "$out"; fi

out=$("$PLACE" place "$crux" --nodes 8 --json)
check "the Alibaba Clos places 8 nodes in one leaf" sh -c 'echo "$1" | grep -q "\"leaves\": 1"' _ "$out"

expect() {  # NAME RC PATTERN COMMAND...
    name=$1 want=$2 pat=$3
    shift 3
    "$@" >/dev/null 2>"$work/err"
    rc=$?
    if [ $rc -eq "$want" ] && grep -q -- "$pat" "$work/err"; then ok "$name"; else not_ok "$name"; diag "exit $rc" "$(cat "$work/err")"; fi
}
printf '3|Priority\n' >"$work/pendbad"
expect "--slurm --pending: a line of one field is FILE:LINE" 1 "pendbad:1: .* is not two or three fields, expected NODES|REASON|TIMELIMIT|" \
    "$PLACE" place "$work/pods4.json" --nodes 2 --island auto --slurm --time-limit 60 --running "$work/soon" --pending "$work/pendbad"
expect "--pending without --running is a usage error" 2 "--pending goes with --running" \
    "$PLACE" place "$work/pods4.json" --nodes 2 --island auto --slurm --time-limit 60 --pending "$work/pend"
expect "--nodes must be a number" 2 "\-\-nodes: \"x\", expected an integer" "$PLACE" place "$work/ft.json" --nodes x
expect "an unknown policy is named" 2 "\-\-policy: \"best\"" "$PLACE" place "$work/ft.json" --nodes 2 --policy best
expect "an unknown level is named" 2 "\-\-level: \"rack\"" "$PLACE" place "$work/ft.json" --nodes 2 --level rack
expect "--slurm: a bad --island value is named as the plugin's flag" 2 "\-\-fabric-island=rack: expected" \
    "$PLACE" place "$work/ft.json" --nodes 2 --island rack --slurm
# --slurm-conf: the site's policy and waits from the atoll.so line that
# slurm.conf's plugstack configuration holds (what cli_filter.lua passes),
# and `settings`, what job_submit.lua reads; a bad key names FILE:LINE
mkdir -p "$work/etc/plugstack.d"
echo "PlugStackConfig=$work/etc/plugstack.conf" >"$work/etc/slurm.conf"
echo "include plugstack.d/*.conf" >"$work/etc/plugstack.conf"
echo "optional /usr/lib/slurm/atoll.so fabric=/x.json policy=slurm-tree island_wait=2m leaf_wait=1h strict" >"$work/etc/plugstack.d/atoll.conf"
out=$("$PLACE" place "$work/pods.json" --nodes 2 --island leaf:preferred --slurm --slurm-conf "$work/etc/slurm.conf" | grep -v '^free=' | tr '\n' ' ')
check "--slurm-conf: policy=slurm-tree and island_wait=2m from the plugstack line (no constraint, one switch for 2:00)" [ "$out" = "switches=1@2:00 " ]
out=$("$PLACE" place "$work/pods.json" --nodes 2 --island leaf:preferred --slurm --slurm-conf "$work/etc/slurm.conf" --policy atoll --island-wait 90 | grep -v '^free=' | tr '\n' ' ')
check "--slurm-conf: --policy and --island-wait given win over the line" [ "$out" = "switches=1@1:30 constraint=[pod-ib-leaf01|pod-ib-leaf03] " ]
out=$(SLURM_CONF="$work/etc/slurm.conf" "$PLACE" settings | tr '\n' ' ')
check "settings: the line's keys for job_submit.lua, from \$SLURM_CONF" \
    [ "$out" = "found=yes where=$work/etc/plugstack.d/atoll.conf:1 policy=slurm-tree island_wait=120 leaf_wait=3600 strict=yes max_switch_wait=300 warning=leaf_wait=3600 is over Slurm's max_switch_wait=300 (SchedulerParameters, its default): Slurm waits 300 s at most for the leaves asked; raise max_switch_wait topology=tree " ]
# Slurm cuts every --switches wait to max_switch_wait (slurmctld's
# _max_switch_wait(): the first "max_switch_wait=" of SchedulerParameters,
# any case, 300 without one): a longer wait is said, one at or under it not
printf 'PlugStackConfig=%s\nSchedulerParameters=bf_interval=5,MAX_SWITCH_WAIT=3600\n' "$work/etc/plugstack.conf" >"$work/etc/slurm-msw.conf"
out=$("$PLACE" settings --slurm-conf "$work/etc/slurm-msw.conf" | grep -e '^max_switch_wait=' -e '^warning=' | tr '\n' ' ')
check "settings: max_switch_wait=3600 from SchedulerParameters, so leaf_wait=3600 draws no warning" [ "$out" = "max_switch_wait=3600 " ]
printf 'PlugStackConfig=%s\nSchedulerParameters=max_switch_wait=60\n' "$work/etc/plugstack.conf" >"$work/etc/slurm-msw.conf"
out=$("$PLACE" settings --slurm-conf "$work/etc/slurm-msw.conf" | grep -c '^warning=.* is over Slurm.s max_switch_wait=60 (SchedulerParameters): Slurm waits 60 s')
check "settings: max_switch_wait=60: island_wait=120 and leaf_wait=3600 are both said" [ "$out" = 2 ]
# topology/block: a preferred leaf of 2 is held by one block, nothing asked;
# slurm.conf's TopologyPlugin and topology.conf's BlockSizes=4 (no aggregate):
# a required pod of 8 gets the pods and --segment=4, never --switches
out=$("$PLACE" place "$work/pods.json" --nodes 2 --island leaf:preferred --slurm --topology block | grep -v '^free=')
check "--topology block: a leaf-sized job gets no constraint and no --switches" [ -z "$out" ]
printf 'PlugStackConfig=%s\nTopologyPlugin = topology/block # ours\n' "$work/etc/plugstack.conf" >"$work/etc/slurm.conf"
printf 'BlockName=b1 Nodes=node[001-004]\nBlockSizes=4\n' >"$work/etc/topology.conf"
out=$("$PLACE" place "$work/pods.json" --nodes 8 --island pod --slurm --slurm-conf "$work/etc/slurm.conf" --policy atoll | grep -v '^free=' | tr '\n' ' ')
check "--slurm-conf on topology/block (BlockSizes=4): a required pod of 8 gets the pods and --segment=4" \
    [ "$out" = "constraint=[pod-ib-leaf01|pod-ib-leaf03] segment=4 " ]
# the site's job shape and uplink load for auto's wait: comm_share=0.7 and
# uplink_load=busy on the line give the decision above without the options;
# --uplink-load running given wins (nothing crosses: no wait)
echo "optional /usr/lib/slurm/atoll.so comm_share=0.7 uplink_load=busy collective=all-reduce island_wait=1h" >"$work/etc/plugstack.d/atoll.conf"
printf 'PlugStackConfig=%s\n' "$work/etc/plugstack.conf" >"$work/etc/slurm.conf"
out=$("$PLACE" place "$work/pods4.json" --nodes 2 --island auto --slurm --slurm-conf "$work/etc/slurm.conf" --free "node004,node008" \
    --time-limit 1:00 --running "$work/idle" | grep '^switches=')
check "--slurm-conf: comm_share=0.7 and uplink_load=busy from the plugstack line: auto waits 126 s" [ "$out" = "switches=1@2:06" ]
out=$("$PLACE" place "$work/pods4.json" --nodes 2 --island auto --slurm --slurm-conf "$work/etc/slurm.conf" --free "node004,node008" \
    --time-limit 1:00 --running "$work/idle" --uplink-load running | grep -v '^free=')
check "--slurm-conf: --uplink-load running given wins over the line: nothing asked" [ -z "$out" ]
for bad in "comm_share=0 expected the share of a step" "uplink_load=idle expected running or busy" "collective=ring expected all-reduce or all-to-all"; do
    echo "optional /usr/lib/slurm/atoll.so ${bad%% *}" >"$work/etc/plugstack.d/atoll.conf"
    expect "settings: ${bad%% *} is refused, naming the file, line and key" 1 "plugstack.d/atoll.conf:1: plugstack.conf: ${bad%% *}: ${bad#* }" \
        "$PLACE" settings --slurm-conf "$work/etc/slurm.conf"
done
echo "optional /usr/lib/slurm/atoll.so island_wait=2min" >"$work/etc/plugstack.d/atoll.conf"
expect "settings: a bad value names the file and line, exit 1" 1 "plugstack.d/atoll.conf:1: plugstack.conf: island_wait=2min: expected seconds" \
    "$PLACE" settings --slurm-conf "$work/etc/slurm.conf"
expect "a host outside the fabric is named" 1 "host gpu001 is not in the fabric" \
    "$PLACE" place "$work/ft.json" --nodes 2 --free "gpu[001-002]"

# simulate: a small trace, every policy, three seeds
cat >"$work/trace.csv" <<'CSV'
job_id,submit_s,duration_s,nodes
1,0,100,6
2,10,50,3
3,20,80,8
4,30,40,12
5,40,60,2
6,50,30,5
7,60,90,4
8,70,20,16
CSV
"$PLACE" simulate "$work/ft.json" "$work/trace.csv" --policy all --seeds 3 --csv "$work/runs.csv" \
    --json "$work/sum.json" --plot "$work/plot.svg" --jobs "$work/jobs.csv" >"$work/table"
# --jobs: 8 jobs x 4 policies x 3 seeds; job 8 (16 nodes) needs 2 of the 8-host leaves at least
if [ "$(tail -n +2 "$work/jobs.csv" | wc -l)" -eq 96 ] &&
    [ "$(awk -F, '$3 == 8 && $9 != 2' "$work/jobs.csv" | wc -l)" -eq 0 ] &&
    [ "$(awk -F, 'NR > 1 && $8 < $9' "$work/jobs.csv" | wc -l)" -eq 0 ]
then ok "--jobs: a row per started job and run, never fewer leaves than the minimum"
else not_ok "--jobs: a row per started job and run, never fewer leaves than the minimum"; diag "$(head -5 "$work/jobs.csv")"; fi
check "simulate prints a row per metric for each policy" grep -q "^% leaf-fitting jobs in one leaf" "$work/table"
check "the CSV has a row per policy and seed" [ "$(tail -n +2 "$work/runs.csv" | wc -l)" -eq 12 ]
if grep -q '"slurm-tree"' "$work/sum.json" && grep -q '"random"' "$work/sum.json"; then ok "the JSON has every policy"; else not_ok "the JSON has every policy"; fi
check "the plot is an SVG with one bar per policy and metric" [ "$(grep -c '<rect x=' "$work/plot.svg")" -ge 24 ]
head -n 4 "$work/trace.csv" >"$work/bad.csv"
echo "9,80,x,2" >>"$work/bad.csv"
expect "a bad trace row names file and line" 1 "bad.csv:5: found duration 'x', expected a number" \
    "$PLACE" simulate "$work/ft.json" "$work/bad.csv" --csv "$work/never.csv"
check "nothing is written on a failed run" [ ! -e "$work/never.csv" ]
# (helper 47) the trace is an input: no output of the run replaces it; two
# outputs naming one file are refused; a device or FIFO is no trace
cp "$work/trace.csv" "$work/keep.csv"
expect "--csv naming the trace is refused, the trace kept" 1 "keep.csv: is also an input of this run" \
    "$PLACE" simulate "$work/ft.json" "$work/keep.csv" --seeds 1 --csv "$work/keep.csv"
check "the trace named by --csv is whole afterwards" cmp -s "$work/trace.csv" "$work/keep.csv"
expect "--csv and --json naming one file: a usage error" 2 "--csv and --json name one file" \
    "$PLACE" simulate "$work/ft.json" "$work/trace.csv" --seeds 1 --csv "$work/one.out" --json "$work/one.out"
expect "--csv and --jobs naming one file as two.out and ./two.out: a usage error" 2 "--csv and --jobs name one file" \
    sh -c 'cd "$1" && exec "$2" simulate ft.json trace.csv --seeds 1 --csv two.out --jobs ./two.out' _ "$work" "$PLACE"
# --csv writes two.out, then --json through a link to it would replace it
ln -s two.out "$work/two.link"
"$PLACE" simulate "$work/ft.json" "$work/trace.csv" --seeds 1 --csv "$work/two.out" --json "$work/two.link" >/dev/null 2>&1
check "a symbolic link to another output's file (not there yet) is refused too, nothing written" \
    sh -c '[ "$1" -eq 2 ] && [ ! -e "$2" ]' _ $? "$work/two.out"
expect "a trace that never ends (/dev/zero): refused at once" 1 "/dev/zero: not a regular file or a pipe" \
    timeout 20 "$PLACE" simulate "$work/ft.json" /dev/zero --seeds 1
"$PLACE" simulate "$work/ft.json" - --seeds 1 --csv "$work/piped.csv" <"$work/trace.csv" >/dev/null
check "a trace piped in (-) is read as the file is" sh -c '[ "$(sed -n 2p "$1" | cut -d, -f5)" = 8 ]' _ "$work/piped.csv"
# jobs of one submit time run by job ID, as Slurm numbers them, whatever
# the rows' order (sacct's export order is not stable)
{ echo "job_id,submit_s,duration_s,nodes"; for i in 1 2 3 4 5 6 7 8 9; do echo "$i,0,$((i * 37 % 100 + 10)),$((i % 5 + 2))"; done; } >"$work/ties.csv"
{ head -1 "$work/ties.csv"; tail -n +2 "$work/ties.csv" | sort -r; } >"$work/ties-rev.csv"
"$PLACE" simulate "$work/ft.json" "$work/ties.csv" --seeds 1 --jobs "$work/ties.jobs" >/dev/null
"$PLACE" simulate "$work/ft.json" "$work/ties-rev.csv" --seeds 1 --jobs "$work/ties-rev.jobs" >/dev/null
check "jobs submitted together start in job ID order whatever the rows' order" cmp -s "$work/ties.jobs" "$work/ties-rev.jobs"
# leaves of mixed sizes: the share of the work that reaches the fewest leaves
# only on the largest. L1, L2: 4 hosts, L3: 3, L4: 2 (8 of 13 hosts in 4-host
# leaves, 62 %). 8 nodes (4+3 < 8) and 4 nodes need 4-host leaves: 800 + 200
# of 1,800 node-seconds, 56 %; 6 nodes (4+3) and 2 nodes do not.
{
    echo "host,leaf"
    for h in a1 a2 a3 a4; do echo "$h,L1"; done
    for h in b1 b2 b3 b4; do echo "$h,L2"; done
    for h in c1 c2 c3; do echo "$h,L3"; done
    for h in d1 d2; do echo "$h,L4"; done
} >"$work/mixed.csv"
cat >"$work/mixed-trace.csv" <<'CSV'
job_id,submit_s,duration_s,nodes
1,0,100,8
2,10,100,6
3,20,50,4
4,30,100,2
CSV
"$PLACE" simulate "$work/mixed.csv" "$work/mixed-trace.csv" --seeds 1 --policy atoll >"$work/mixed.out"
check "simulate: the work that needs the largest leaves, on a fabric of mixed leaves" \
    grep -q "^leaves: 2 of 4 leaves hold 4 hosts, 62 % of the hosts; 56 % of the trace's node-seconds" "$work/mixed.out"
if grep -q "^leaves:" "$work/table"; then not_ok "simulate: no such line when every leaf is the same size"
else ok "simulate: no such line when every leaf is the same size"; fi
expect "a trace without the columns says how to map them" 1 "name it with --columns submit=COLUMN" \
    "$PLACE" simulate "$work/ft.json" "$DATA/csv/crux_topology_hosts.csv"
expect "simulate: --leaf-wait without an island request is a usage error (jobs would ask nothing)" 2 \
    "\-\-leaf-wait: jobs ask for no island without --fit required or --island-wait" \
    "$PLACE" simulate "$work/ft.json" "$work/trace.csv" --leaf-wait 60
expect "simulate: --bf-reserve without conservative backfill is a usage error" 2 \
    "\-\-bf-reserve: only with --backfill conservative" \
    "$PLACE" simulate "$work/ft.json" "$work/trace.csv" --bf-reserve 1

# cost: the step model on a 2:1 fat tree of 24 leaves x 12. One leaf is the
# best placement of 12 (slowdown 1); 6+6 over two leaves shares each leaf's
# uplinks (12 x 23.5 / 2 GB/s) with its 6 other hosts: the ring runs at 6/7
# of the NIC rate, so with half of a step communication (1 + 7/6) / 2 = 1.083.
"$TOPO" generate --groups 24 --hosts 12 --spines 6 --oversub 2 --format json -o "$work/os2.json"
out=$("$PLACE" cost "$work/os2.json" "node[001-012]" | grep '^slowdown=')
check "cost: one leaf is the best placement" [ "$out" = "slowdown=1.000" ]
out=$("$PLACE" cost "$work/os2.json" "node[001-006,013-018]" --comm-share 0.5 | grep '^slowdown=')
check "cost: 6+6 over two 2:1 leaves with half the step communication is 1.083" [ "$out" = "slowdown=1.083" ]
# --running: the uplinks shared with the running jobs that span them. One
# other ring across both leaves: 2 flows on 6 hosts' worth of uplinks, the
# NIC rate (slowdown 1); six such jobs: 7 flows, 6/7 of it, as the busy
# assumption's 6 other hosts (1.083). The job itself (its own hosts) is not counted.
printf 'node[001-006,013-018] 10:00\nnode[007,019] 5:00\n' >"$work/run1"
out=$("$PLACE" cost "$work/os2.json" "node[001-006,013-018]" --comm-share 0.5 --running "$work/run1" | grep '^slowdown=')
check "cost --running: one other ring across the 2:1 uplinks costs nothing" [ "$out" = "slowdown=1.000" ]
: >"$work/run6"
for i in 7 8 9 10 11 12; do printf 'node[%03d,%03d] 5:00\n' "$i" $((i + 12)) >>"$work/run6"; done
out=$("$PLACE" cost "$work/os2.json" "node[001-006,013-018]" --comm-share 0.5 --running "$work/run6" | grep '^slowdown=')
check "cost --running: six other rings share the uplinks as the busy assumption says" [ "$out" = "slowdown=1.083" ]
printf 'node001\n' >"$work/runbad"
expect "cost --running: a line that is not two words is FILE:LINE" 1 "runbad:1" \
    "$PLACE" cost "$work/os2.json" "node[001-002]" --running "$work/runbad"
expect "cost: a host off the fabric is an input error" 1 "host 'nodeX' is not a compute host" \
    "$PLACE" cost "$work/os2.json" "nodeX"
expect "cost: --compute-ms and --comm-share together are a usage error" 2 "give one of them" \
    "$PLACE" cost "$work/os2.json" "node[001-002]" --compute-ms 10 --comm-share 0.5
expect "simulate: --model-wait without --island-wait is a usage error" 2 \
    "\-\-model-wait needs \-\-comm-share and \-\-island-wait" \
    "$PLACE" simulate "$work/ft.json" "$work/trace.csv" --comm-share 0.3 --model-wait
expect "simulate: --comm-share with --span-slowdown is a usage error" 2 "give one of them" \
    "$PLACE" simulate "$work/ft.json" "$work/trace.csv" --comm-share 0.3 --span-slowdown 0.2
expect "simulate: --uplink-load without --comm-share is a usage error" 2 "\-\-uplink-load goes with \-\-comm-share" \
    "$PLACE" simulate "$work/ft.json" "$work/trace.csv" --uplink-load busy
expect "simulate: --uplink-load takes running or busy" 2 "running" \
    "$PLACE" simulate "$work/ft.json" "$work/trace.csv" --comm-share 0.3 --uplink-load some
expect "simulate: --select takes only Slurm's own choice" 2 "slurm-tree" \
    "$PLACE" simulate "$work/ft.json" "$work/trace.csv" --select atoll
# on the non-blocking ft.json auto asks nothing: Slurm's own choice inside
# it is plain Slurm's, the same figures
a=$("$PLACE" simulate "$work/ft.json" "$work/trace.csv" --seeds 2 --comm-share 0.7 --policy slurm-tree | grep '^ *mean turnaround')
b=$("$PLACE" simulate "$work/ft.json" "$work/trace.csv" --seeds 2 --comm-share 0.7 --policy atoll --select slurm-tree \
    --island-wait 3600 --model-wait | grep '^ *mean turnaround' | sed 's/atoll/slurm-tree/')
if [ -n "$a" ] && [ "$a" = "$b" ]; then ok "simulate: auto on a non-blocking fabric is plain Slurm"; else not_ok "simulate: auto on a non-blocking fabric is plain Slurm"; diag "$a / $b"; fi
# auto's wait is decided at submit, as cli_filter.lua decides it, from the
# queue ahead: X (2 nodes) comes when one free host is left in each leaf;
# at 100 s two free up apart, at 300 s leaf 2 has room. Deciding at its first
# try (100 s) counted Y1-Y3, submitted behind it, as taking leaf 2 first: X
# asked nothing and spanned both leaves at 100 s. From its submit (10 s,
# nothing queued ahead) leaf 2 is 290 s away against 0.7 x 1000 s of slower
# steps: it waits and runs in one leaf at 300 s.
"$TOPO" generate --groups 2 --hosts 4 --spines 2 --oversub 2 --format json -o "$work/two.json"
printf 'id,submit,duration,nodes\nJ1,0,2000,3\nJ2,0,300,3\nJ3,0,100,1\nJ4,0,100,1\nX,10,1000,2\nY1,20,1000,3\nY2,30,1000,3\nY3,40,1000,3\n' >"$work/ahead.csv"
"$PLACE" simulate "$work/two.json" "$work/ahead.csv" --policy atoll --select slurm-tree --comm-share 0.7 --island-wait 3600 \
    --model-wait --leaf-wait 0 --seeds 1 --jitter 0 --jobs "$work/ahead.jobs" >/dev/null
check "simulate --model-wait: auto decides at submit from the queue ahead (X waits 290 s for one leaf)" \
    grep -q "^atoll,1,X,10.000,300.000,1000.000,2,1,1,1," "$work/ahead.jobs"
out=$("$PLACE" simulate "$work/ft.json" "$work/trace.csv" --comm-share 0.3 | grep -c '^GPU-hours lost to slow steps')
check "simulate --comm-share reports the GPU-hours lost" [ "$out" = 1 ]
# the simulator replays what the plugin asks: its leaf_wait= is its
# island_wait= (600 s by default) for every job that asks an island
runs_line() { "$PLACE" simulate "$work/ft.json" "$work/trace.csv" --seeds 1 "$@" | grep '^runs:'; }
r1=$(runs_line --fit required); r2=$(runs_line --island-wait 90); r3=$(runs_line --fit required --leaf-wait 0); r4=$(runs_line)
if echo "$r1" | grep -q ", leaf wait 600 s (the plugin's default)," && echo "$r2" | grep -q ", leaf wait 90 s (the plugin's default)," &&
   echo "$r3" | grep -q ", no leaf wait," && ! echo "$r4" | grep -q "leaf wait"; then
    ok "simulate: the leaf wait defaults to the plugin's (the island wait, else 600 s under required); --leaf-wait 0 replays none"
else
    not_ok "simulate: the leaf wait defaults to the plugin's"; diag "$r1" "$r2" "$r3" "$r4"
fi
# NVLink domains: a leaf wait replayed over a required domain kept the job
# to a leaf, not its domain (16 of 865 domain-fitting jobs spanned two)
"$TOPO" generate --groups 4 --rails 4 --hosts 36 --host-prefix gb -o "$work/nvl72.net"
"$TOPO" discover "$work/nvl72.net" --nvlink "$DATA/nvlink/su-nvl72.txt" -o "$work/nvl72.json" 2>/dev/null
out=$("$PLACE" simulate "$work/nvl72.json" "$ATOLL_SRCDIR/bench/data/nvl72-stream.csv" --policy atoll --seeds 2 --load 0.8 \
      --island-wait 600 --fit required --leaf-wait 600 | grep '^% domain-fitting jobs in one domain')
check "simulate: a required domain stays one domain under a leaf wait" sh -c "echo '$out' | grep -q ' 100.0 ('"
# (helper 31) topology/block ignores --switches: a leaf wait holds no job of
# the slurm-block policy (excess leaves and waits moved with it)
"$TOPO" generate --pods 2 --groups 4 --hosts 12 --domain-size 6 --format json -o "$work/d96.json"
blk() { "$PLACE" simulate "$work/d96.json" "$ATOLL_SRCDIR/bench/data/nvl72-stream.csv" --policy slurm-block --seeds 1 --load 0.7 \
        --fit required --leaf-wait "$1" | grep -E '^(excess leaves|mean wait)'; }
b0=$(blk 0); b1=$(blk 36000)
if [ -n "$b0" ] && [ "$b0" = "$b1" ]; then ok "simulate: slurm-block is not held by a leaf wait"; else not_ok "simulate: slurm-block is not held by a leaf wait"; diag "$b0" "$b1"; fi
# (helper 31) NVLink domains that reach two leaves (shifted by 9 hosts), as
# topology/block blocks: a leaf:required job was asked nothing, as if every
# block lay in one leaf; now held to the leaves by a constraint, and no
# --segment where no leaf has the job's whole blocks (it could never start)
awk -F': ' '{ n = substr($1, 3) + 0; d = int((n + 8) / 18); printf "%s: 8d6e40c4-d722-4357-9ba6-%012d, 32766\n", $1, d }' \
    "$DATA/nvlink/su-nvl72.txt" >"$work/cross.txt"
"$TOPO" discover "$work/nvl72.net" --nvlink "$work/cross.txt" -o "$work/cross.json" 2>/dev/null
c18=$("$PLACE" place "$work/cross.json" --nodes 18 --island leaf:required --slurm --topology block | grep -v '^free=')
c36=$("$PLACE" place "$work/cross.json" --nodes 36 --island leaf:required --slurm --topology block | grep -v '^free=')
a36=$("$PLACE" place "$work/nvl72.json" --nodes 36 --island leaf:required --slurm --topology block | grep -v '^free=')
if echo "$c18" | grep -q '^constraint=\[grp-' && echo "$c36" | grep -q '^constraint=\[grp-' && ! echo "$c36" | grep -q segment &&
   [ "$a36" = "segment=18" ]; then
    ok "topology/block: blocks that reach two leaves get a leaf constraint, no unsatisfiable --segment; aligned blocks ask a segment alone"
else
    not_ok "topology/block: blocks that reach two leaves"; diag "$c18" "$c36" "$a36"
fi
# (helper 31) a --time-limit is checked whatever the request (it was only for auto)
expect "place --time-limit xyz with a required pod is a usage error" 2 "\\-\\-time-limit: \"xyz\", expected Slurm's" \
    "$PLACE" place "$work/pods.json" --nodes 4 --island pod:required --slurm --time-limit xyz
# --select: the constraint's islands in the order cli_filter.lua gave at
# submit, Slurm taking the first listed island that holds the job when it
# starts (node_scheduler.c's matching-OR loop), not ranked again at each try
"$TOPO" generate --groups 16 --hosts 16 --spines 4 --oversub 4 --format json -o "$work/f4.json"
gunzip -c "$ATOLL_SRCDIR/bench/data/thunder_multinode_14d.csv.gz" >"$work/thunder.csv"
for r in start submit; do
    "$PLACE" simulate "$work/f4.json" "$work/thunder.csv" --seeds 1 --max-jobs 1000 --policy atoll --select slurm-tree \
        --rank-at "$r" --fit required --leaf-wait 0 --comm-share 0.7 --jobs "$work/rank-$r.csv" >/dev/null 2>&1
done
"$PLACE" simulate "$work/f4.json" "$work/thunder.csv" --seeds 1 --max-jobs 1000 --policy atoll --select slurm-tree \
    --fit required --leaf-wait 0 --comm-share 0.7 --jobs "$work/rank-default.csv" >/dev/null 2>&1
"$PLACE" simulate "$work/f4.json" "$work/thunder.csv" --seeds 1 --max-jobs 10 --policy atoll --rank-at submit >/dev/null 2>&1
rc=$?
check "simulate --select ranks at submit by default (Slurm takes the first listed island), --rank-at start differs, --rank-at needs --select" \
    sh -c '[ -s "$1/rank-submit.csv" ] && cmp -s "$1/rank-submit.csv" "$1/rank-default.csv" && ! cmp -s "$1/rank-submit.csv" "$1/rank-start.csv" && [ "$2" = 2 ]' _ "$work" "$rc"
# (helper 36) a pod constraint with --switches=K: K the fewest leaves inside
# one pod (pod P1: leaves of 16, 4, 4, 4; P2: 12, 12, 1, 1), not over the
# fabric (16 + 12 across pods), which no constrained pod can meet: Slurm
# waited the whole leaf wait for it
{
    echo "node,host_hash,core_dsw,pod_psw,leaf_asw,leaf_id"
    i=0
    for spec in P1-S1:16 P1-S2:4 P1-S3:4 P1-S4:4 P2-S5:12 P2-S6:12 P2-S7:1 P2-S8:1; do
        leaf=${spec%%:*} k=${spec#*:}
        j=0
        while [ $j -lt "$k" ]; do i=$((i + 1)) j=$((j + 1)); printf 'h%03d,x,G1,%s,%s,%s\n' $i "${leaf%%-*}" "${leaf#*-}" "$leaf"; done
    done
} >"$work/asym.csv"
k26=$("$PLACE" place "$work/asym.csv" --nodes 26 --island pod --slurm | grep '^switches=')
k28=$("$PLACE" place "$work/asym.csv" --nodes 28 --island pod:preferred --slurm | grep '^switches=')
check "--island pod: switches= the fewest leaves inside one pod (4), not across pods (2)" \
    [ "$k26 $k28" = "switches=4@10:00 switches=4@10:00" ]
# (helper 36) auto for one node asks for no NVLink domain: on a fabric with
# hosts in none, the constraint only kept it off them (busy for days);
# a time limit of zero is no limit (sbatch(1)): the wait alone, not "0 s"
"$TOPO" generate --groups 4 --hosts 36 --domain-size 18 --format json -o "$work/nvl.json"
one=$("$PLACE" place "$work/nvl.json" --nodes 1 --island auto --slurm --free "node[037-144]" | grep -v '^free=')
two=$("$PLACE" place "$work/nvl.json" --nodes 2 --island auto --slurm | grep -c '^constraint=\[nvl-')
printf 'node[001-003] 10:00\n' >"$work/soon3"
z=$("$PLACE" place "$work/pods4.json" --nodes 2 --island auto --island-wait 3600 --slurm --free "node004,node008" \
    --time-limit 0 --running "$work/soon3" | grep '^switches=')
check "auto: 1 node asks no NVLink domain, 2 nodes do; --time-limit 0 waits island_wait" \
    [ "$one|$two|$z" = "|1|switches=1@60:00" ]
# (issue 26) auto weighs an NVLink domain as it weighs a leaf: with one
# host free in each domain and the rest busy for 30 days, a 2-node job of an
# hour asks for none (it held the constraint for island_wait, then spanned)
: >"$work/dom30"
for d in 0 1 2 3 4 5 6 7; do printf 'node[%03d-%03d] 30-00:00:00\n' $((d * 18 + 2)) $((d * 18 + 18)) >>"$work/dom30"; done
dfree=node001,node019,node037,node055,node073,node091,node109,node127
dom=$("$PLACE" place "$work/nvl.json" --nodes 2 --island auto --slurm --free "$dfree" --time-limit 1:00:00 \
      --running "$work/dom30" --explain)
check "auto: no NVLink domain asked when one frees up in 30 days and spanning costs an hour at most" \
    sh -c 'echo "$1" | grep -q "^decision=spanning now adds [0-9]* s to the 3600 s limit; a domain frees up in 2592000 s: no wait" &&
           ! echo "$1" | grep -q "^constraint="' _ "$dom"
# (helper 39) a job that cannot start now (16 hosts free for 18 nodes) is
# weighed by what the domain adds to its wait: 24 hosts are free in 2:50, a
# domain whole in 3:00, so the domain costs 10 minutes, not 3 hours (it was
# not asked); and on an idle fabric the domain constraint costs nothing while
# one has room, so it is asked under the running jobs' load too (it was not:
# no uplink crossed, no charge, though crossing domains costs NVLink)
cat >"$work/run18" <<'RUN'
node[001-016] 3:00:00
node[019-030] 3-00:00:00
node[031-034] 2:50:00
node[037-048] 3-00:00:00
node[049-052] 2:50:00
node[055-070] 3-00:00:00
node[073-088] 3-00:00:00
node[091-106] 3-00:00:00
node[109-124] 3-00:00:00
node[127-142] 3-00:00:00
RUN
free18='node[017-018,035-036,053-054,071-072,089-090,107-108,125-126,143-144]'
d18=$("$PLACE" place "$work/nvl.json" --nodes 18 --island auto --slurm --free "$free18" --time-limit 1:00:00 \
      --running "$work/run18" --explain)
echo "node144 1:00" >"$work/norun"
d4=$("$PLACE" place "$work/nvl.json" --nodes 4 --island auto --slurm --time-limit 1:00:00 --running "$work/norun")
check "auto: a domain 10 minutes after any 18 nodes is asked; an idle domain is asked under the running load" sh -c '
    echo "$1" | grep -q "^decision=spanning adds [0-9]* s to the 3600 s limit; a domain frees up 600 s after 18 nodes anywhere do (in 10200 s): waits up to 600 s" &&
    echo "$1" | grep -q "^constraint=\[nvl-" && echo "$2" | grep -q "^constraint=\[nvl-"' _ "$d18" "$d4"
# (helper 36) slurm.conf, plugstack.conf and their includes are regular
# files: a FIFO blocked settings (run by job_submit.lua at each submission)
# for ever and /dev/zero grew without bound; refused at once, naming it. A
# --slurm-conf that is not there is exit 1 (it printed found=no, exit 0).
mkdir -p "$work/cf/d"
mkfifo "$work/cf/fifo"
printf 'PlugStackConfig=%s\n' "$work/cf/plugstack.conf" >"$work/cf/slurm.conf"
echo "include $work/cf/fifo" >"$work/cf/plugstack.conf"
timeout 20 "$PLACE" settings --slurm-conf "$work/cf/slurm.conf" >"$work/cf/o1" 2>&1; r1=$?
echo "include /dev/zero" >"$work/cf/plugstack.conf"
timeout 20 "$PLACE" settings --slurm-conf "$work/cf/slurm.conf" >"$work/cf/o2" 2>&1; r2=$?
timeout 20 "$PLACE" settings --slurm-conf "$work/cf/fifo" >"$work/cf/o3" 2>&1; r3=$?
"$PLACE" settings --slurm-conf "$work/cf/no-such.conf" >"$work/cf/o4" 2>&1; r4=$?
echo "include $work/cf/d/*" >"$work/cf/plugstack.conf"  # a directory an include glob matches: no line, as before
mkdir -p "$work/cf/d/old"
"$PLACE" settings --slurm-conf "$work/cf/slurm.conf" >"$work/cf/o5" 2>&1; r5=$?
check "settings: a FIFO or device as slurm.conf or an include: exit 1 at once; a missing --slurm-conf: exit 1" \
    sh -c '[ "$2$3$4$5$6" = 11110 ] && grep -q "fifo: not a regular file (a FIFO, never waited on)" "$1/o1" &&
           grep -q "/dev/zero: not a regular file (a device" "$1/o2" && grep -q "fifo: not a regular file" "$1/o3" &&
           grep -q "no-such.conf (--slurm-conf): No such file" "$1/o4" && grep -q "^found=no" "$1/o5"' \
    _ "$work/cf" "$r1" "$r2" "$r3" "$r4" "$r5"
# (helper 36) --running's names in all are bounded as --free's: 41 lines of
# 100,000 names (0.9 KB) took minutes to read at each submit
i=0
while [ $i -lt 41 ]; do echo "x[000000-099999] 1:00"; i=$((i + 1)); done >"$work/run-big"
expect "--running naming more than 4,000,000 hosts in all: exit 1, FILE:LINE" 1 "run-big:41: more than 4000000 host names in all" \
    "$PLACE" place "$work/pods4.json" --nodes 2 --island auto --slurm --time-limit 1:00 --running "$work/run-big"
# (helper 36) under --uplink-load running with no job running, a job every
# leaf holds is charged nothing (it was the busy charge, 3235 s of 3600,
# unmarked); under busy the charge stays
: >"$work/none-running"
r=$("$PLACE" place "$work/pods4.json" --nodes 2 --island auto --slurm --time-limit 1:00:00 --running "$work/none-running" \
    --uplink-load running --explain | grep -c -e '^decision=.*spanning adds 0 s .*: no wait$' -e '^switches=')
b=$("$PLACE" place "$work/pods4.json" --nodes 2 --island auto --slurm --time-limit 1:00:00 --running "$work/none-running" \
    --uplink-load busy | grep -c '^switches=1@10:00$')
check "auto, running load with nothing running: no charge, no wait; the busy charge still waits" [ "$r $b" = "1 1" ]
# Slurm sets a bit per feature of a constraint's brackets in a bitmap of
# 64 (MAX_FEATURES, node_scheduler.c): until 2026-12-06 --slurm named every
# island of the level, and a job held to 72 NVLink domains took slurmctld
# 22.05 down at submit. The first 64 of the ranking now.
"$TOPO" generate --pods 2 --groups 2 --rails 1 --hosts 36 --spines 1 --domain-size 2 --format json -o "$work/dom72.json"
k=$("$PLACE" place "$work/dom72.json" --nodes 2 --island domain --slurm | sed -n 's/^constraint=\[\(.*\)\]$/\1/p' | tr '|' '\n' |
    sort -u | grep -c .)
all=$("$TOPO" slurm --format requests "$work/dom72.json" | awk '$1 == "domain:required" && $2 == "atoll" && $3 == 1 {print $8}' |
    tr '|' '\n' | grep -c .)
check "--slurm names at most 64 islands in one constraint (72 domains; the table keeps all for job_submit.lua's turns)" \
    [ "$k $all" = "64 72" ]
