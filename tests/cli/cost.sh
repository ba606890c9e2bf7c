#!/bin/sh
# atoll-place cost and auto's decision against what NCCL does (a helper's
# attack on the step model, 2026-12-04). Expected values come from NCCL's
# src/graph/tuning.cc (NVIDIA/nccl 5067397c): a ring's bus bandwidth is the
# node's, busBw = nChannels x bwInter, its channels spread over the node's
# NICs, so GPUs per node do not divide it; every edge of a ring carries
# 2(n-1)/n of the bytes, so its slowest link sets its pace. Fabrics are
# synthetic: atoll-topo generate, edited by awk/sed here.
. "$(dirname "$0")/../lib.sh"
plan 28
work=$(tmpdir)
"$TOPO" generate --groups 4 --hosts 16 -o "$work/ft.txt"
"$TOPO" generate --groups 4 --hosts 16 --oversub 2 -o "$work/o2.txt"
# field NAME FILE: the value of NAME= in cost's output
field() { sed -n "s/^$1=//p" "$2"; }
# a host's links at another width or speed: both ends of each of its cables
slow() {  # slow HOSTREGEX FROM TO IN OUT
    awk -v h="$1" -v from="$2" -v to="$3" 'BEGIN { RS = ""; ORS = "\n\n" }
        { n = split($0, l, "\n"); out = ""; ca = ($0 ~ ("Ca\t[0-9]+ \"H-[0-9a-f]*\"\t\t# \"" h " "))
          for (i = 1; i <= n; i++) { if (ca || l[i] ~ ("# \"" h " ")) sub(from "$", to, l[i]); out = out (i > 1 ? "\n" : "") l[i] }
          print out }' "$4" >"$5"
}

# 8 hosts of one 4x HDR NIC and 8 GPUs: the ring's bus bandwidth is the NIC's
# 200 Gb/s x 0.94 = 23.5 GB/s, not an eighth of it
"$PLACE" cost "$work/ft.txt" 'node[001-008]' --explain >"$work/nic.out" 2>&1
if grep -q '^here: 8 nodes x 8 GPUs on 1 leaves; ring .*per GPU 23.5 GB/s across nodes' "$work/nic.out"; then
    ok "a ring's bus bandwidth is the node's NIC, whatever its GPUs"
else not_ok "a ring's bus bandwidth is the node's NIC, whatever its GPUs"; diag "$(cat "$work/nic.out")"; fi

# node003 at 1x: the whole ring runs at its 50 Gb/s (x 0.94 = 5.875 GB/s)
slow node003 4xHDR 1xHDR "$work/ft.txt" "$work/x1.txt"
"$PLACE" cost "$work/x1.txt" 'node[001-008]' --explain >"$work/x1.out" 2>&1
if grep -q '^here: .*per GPU 5.875 GB/s across nodes' "$work/x1.out"; then
    ok "a host's own degraded link sets the ring's pace"
else not_ok "a host's own degraded link sets the ring's pace"; diag "$(cat "$work/x1.out")"; fi

# 2:1, the first leaf's 16 hosts EDR: the best placement of 8 is an HDR leaf
slow 'node0(0[1-9]|1[0-6])' 4xHDR 4xEDR "$work/o2.txt" "$work/edr.txt"
"$PLACE" cost "$work/edr.txt" 'node[017-024]' >"$work/edr.out" 2>&1
"$PLACE" cost "$work/edr.txt" 'node[001-008]' >"$work/edr1.out" 2>&1
if [ "$(field slowdown "$work/edr.out")" = 1.000 ] && [ "$(field best_ms "$work/edr.out")" = "$(field step_ms "$work/edr.out")" ]; then
    ok "the best placement is the fastest leaf, not the first"
else not_ok "the best placement is the fastest leaf, not the first"; diag "$(cat "$work/edr.out")"; fi
if awk -v s="$(field slowdown "$work/edr1.out")" 'BEGIN { exit !(s > 1.2) }'; then
    ok "EDR hosts are slower than the best (HDR) placement"
else not_ok "EDR hosts are slower than the best (HDR) placement"; diag "$(cat "$work/edr1.out")"; fi
# auto on the free hosts of three leaves: spanning costs what it costs on
# the plain 2:1 fabric, whichever leaf is EDR
free='node[017-022,033-038,049-054]'
for f in o2 edr; do
    "$PLACE" place "$work/$f.txt" --nodes 8 --island auto --slurm --time-limit 4:00:00 --comm-share 0.5 \
        --free "$free" >"$work/$f.auto" 2>&1
done
if grep -q '^switches=1@' "$work/edr.auto" && cmp -s "$work/o2.auto" "$work/edr.auto"; then
    ok "auto waits for a leaf on 2:1 whichever leaf is slower"
else not_ok "auto waits for a leaf on 2:1 whichever leaf is slower"; diag "$(cat "$work/o2.auto" "$work/edr.auto")"; fi

# 2 pods whose spines keep 2 of their 8 core cables (4:1 between pods):
# within a pod spanning is free, across pods it is not, and auto asks a pod
"$TOPO" generate --pods 2 --groups 2 --hosts 8 --spines 2 --cores 1 -o "$work/p.txt"
awk '!/^\[1[1-6]\]\t"S-b8599f0300a80000"/ && !/"S-b8599f0300a0000[0-3]"\[1[1-6]\]/' "$work/p.txt" >"$work/p4.txt"
"$PLACE" cost "$work/p4.txt" 'node[001-004,009-012]' >"$work/in.out" 2>&1
"$PLACE" cost "$work/p4.txt" 'node[001-004,017-020]' >"$work/across.out" 2>&1
if [ "$(field slowdown "$work/in.out")" = 1.000 ] &&
   awk -v s="$(field slowdown "$work/across.out")" 'BEGIN { exit !(s > 1.3) }'; then
    ok "the spines' uplink ratio prices a job across pods"
else not_ok "the spines' uplink ratio prices a job across pods"; diag "$(cat "$work/in.out" "$work/across.out")"; fi
"$PLACE" place "$work/p4.txt" --nodes 12 --island auto --slurm >"$work/p4.auto" 2>&1
if grep -q '^switches=2@' "$work/p4.auto" && grep -q '^constraint=\[pod-' "$work/p4.auto"; then
    ok "auto asks for a pod when pods are oversubscribed above the spines"
else not_ok "auto asks for a pod when pods are oversubscribed above the spines"; diag "$(cat "$work/p4.auto")"; fi
# above a leaf too, auto with a time limit asks for the pod and the fewest
# leaves only while the wait is worth it, and the leaf wait is at most the
# model's: 12 nodes on 4 free in one pod and 8 in the other must span pods
# now; a 1-minute job of little communication is not worth a wait
for spec in "1 0.001 cheap" "5 0.5 short" "100:00:00 0.5 long"; do
    set -- $spec
    "$PLACE" place "$work/p4.txt" --nodes 12 --island auto --slurm --time-limit "$1" --comm-share "$2" \
        --free 'node[001-004,017-024]' >"$work/p4.$3" 2>&1
done
if ! grep -q '^switches=' "$work/p4.cheap" && ! grep -q '^constraint=' "$work/p4.cheap" &&
   grep -q '^switches=2@[0-4]:' "$work/p4.short" && grep -q '^constraint=\[pod-' "$work/p4.short" &&
   grep -q '^switches=2@10:00$' "$work/p4.long" && grep -q '^constraint=\[pod-' "$work/p4.long"; then
    ok "auto above a leaf: nothing asked when spanning is cheap, the leaf wait at most the model's"
else not_ok "auto above a leaf: nothing asked when spanning is cheap, the leaf wait at most the model's"
    diag "$(cat "$work/p4.cheap" "$work/p4.short" "$work/p4.long")"; fi

# speeds unknown (fabric.json "unknown"): the ratio is of cables, not lost
"$TOPO" generate --groups 4 --hosts 16 --oversub 4 --format json -o "$work/o4.json"
sed 's/"speed": "HDR"/"speed": "unknown"/' "$work/o4.json" >"$work/unk.json"
"$PLACE" cost "$work/o4.json" 'node[001-004,017-020]' >"$work/o4.out" 2>&1
"$PLACE" cost "$work/unk.json" 'node[001-004,017-020]' >"$work/unk.out" 2>&1
if grep -q '"speed": "unknown"' "$work/unk.json" &&
   awk -v a="$(field slowdown "$work/o4.out")" -v b="$(field slowdown "$work/unk.out")" 'BEGIN { exit !(a > 1.3 && b > a - 0.01 && b < a + 0.01) }'; then
    ok "links of unknown speed keep the leaves' uplink ratio"
else not_ok "links of unknown speed keep the leaves' uplink ratio"; diag "$(cat "$work/o4.out" "$work/unk.out")"; fi

# all-to-all on a non-blocking fat tree: each host's NIC is the limit, split or not
"$PLACE" cost "$work/ft.txt" 'node[001-004,017-020]' --all-to-all >"$work/a2a.out" 2>&1
if [ "$(field slowdown "$work/a2a.out")" = 1.000 ]; then
    ok "all-to-all split over two 1:1 leaves loses nothing"
else not_ok "all-to-all split over two 1:1 leaves loses nothing"; diag "$(cat "$work/a2a.out")"; fi

# figures that would overflow are refused, not printed as inf or nan
"$PLACE" cost "$work/ft.txt" 'node[001-008]' --bytes 1e308G >"$work/inf.out" 2>&1
rc=$?
if [ $rc = 2 ] && grep -q -- '--bytes: "1e308G", expected a size from 1 byte' "$work/inf.out" && ! grep -qi 'inf\|nan' "$work/inf.out"; then
    ok "--bytes beyond a petabyte: usage error naming the flag"
else not_ok "--bytes beyond a petabyte: usage error naming the flag"; diag "rc $rc" "$(cat "$work/inf.out")"; fi
printf 'job_id,submit_s,duration_s,nodes\n1,0,1e308,2\n' >"$work/huge.csv"
"$PLACE" simulate "$work/ft.txt" "$work/huge.csv" >"$work/huge.out" 2>&1
rc=$?
if [ $rc = 1 ] && grep -q 'huge.csv:2: found duration 1e308, expected at most 1e10' "$work/huge.out"; then
    ok "a trace duration of 1e308 s: FILE:LINE error"
else not_ok "a trace duration of 1e308 s: FILE:LINE error"; diag "rc $rc" "$(cat "$work/huge.out")"; fi

# a CSV says nothing of its uplinks: its made-up cables are no ratio (a
# helper's attack: 32 hosts a leaf read as 32:1, slowdown 5.8, and auto waited)
{ echo host,leaf; i=0; while [ $i -lt 64 ]; do i=$((i + 1)); echo "h$i,L$(( (i - 1) / 32 ))"; done; } >"$work/flat.csv"
"$PLACE" cost "$work/flat.csv" 'h[1-4,33-36]' >"$work/csv.out" 2>&1
if [ "$(field slowdown "$work/csv.out")" = 1.000 ]; then
    ok "a CSV fabric's made-up cables are no oversubscription"
else not_ok "a CSV fabric's made-up cables are no oversubscription"; diag "$(cat "$work/csv.out")"; fi

# (helper 25) the squeue files the submit path reads: a FIFO no one writes,
# a device, a directory are refused at once (a FIFO blocked, /dev/zero took
# 2.5 GB); a TIMELEFT squeue never prints and a pending job of 0 nodes are
# FILE:LINE errors (they read as "never ends", and changed the wait)
mkfifo "$work/run.fifo"
rc=
for r in "$work/run.fifo" /dev/zero "$work"; do
    timeout 20 "$PLACE" place "$work/o4.json" --nodes 4 --island auto --slurm --time-limit 60 --running "$r" >/dev/null 2>"$work/run.err"
    rc="$rc $?"
done
if [ "$rc" = " 1 1 1" ] && grep -q "not a regular file, expected squeue's output saved to a file" "$work/run.err"; then
    ok "--running a FIFO, a device or a directory: refused at once"
else not_ok "--running a FIFO, a device or a directory: refused at once"; diag "rc$rc" "$(cat "$work/run.err")"; fi
printf 'node[001-004] abc\n' >"$work/run.bad"
printf '4x|Priority|\n' >"$work/pend.bad"
printf '0|Priority|1:00|\n' >"$work/pend.zero"
printf 'node[001-004] UNLIMITED\nnode005 INVALID\n' >"$work/run.ok"
"$PLACE" place "$work/o4.json" --nodes 4 --island auto --slurm --time-limit 60 --running "$work/run.bad" >/dev/null 2>"$work/bad1.err"; rc1=$?
"$PLACE" place "$work/o4.json" --nodes 4 --island auto --slurm --time-limit 60 --running "$work/run.ok" --pending "$work/pend.bad" >/dev/null 2>"$work/bad2.err"; rc2=$?
"$PLACE" place "$work/o4.json" --nodes 4 --island auto --slurm --time-limit 60 --running "$work/run.ok" --pending "$work/pend.zero" >/dev/null 2>"$work/zero.err"; rc4=$?
"$PLACE" place "$work/o4.json" --nodes 4 --island auto --slurm --time-limit 60 --running "$work/run.ok" >/dev/null 2>&1; rc3=$?
if [ $rc1 = 1 ] && grep -q "run.bad:1: found TIMELEFT 'abc', expected squeue's" "$work/bad1.err" &&
    [ $rc2 = 1 ] && grep -q 'pend.bad:1: NODES .4x. is not a node count' "$work/bad2.err" && [ $rc3 = 0 ] &&
    [ $rc4 = 0 ] && ! [ -s "$work/zero.err" ]; then
    ok "a TIMELEFT or NODES squeue never prints: FILE:LINE errors; UNLIMITED, INVALID and a zero-node job (-N0) read"
else not_ok "a bad TIMELEFT or NODES: FILE:LINE errors; a zero-node job read"; diag "rc $rc1 $rc2 $rc3 $rc4" "$(cat "$work/bad1.err" "$work/bad2.err" "$work/zero.err")"; fi
# (helper 39) a TIMELEFT out of squeue's ranges (1:60, 1-24:00:00) and a
# pending range whose maximum is below its minimum (8-2) were read as 120 s,
# 2 days and 8 nodes; --time-limit UNLIMITED (sbatch's own word for none) was
# a usage error, and a limit of none printed no decision= line
printf 'node[001-004] 1:60\n' >"$work/run.60"
printf 'node[001-004] 1-24:00:00\n' >"$work/run.24"
printf '8-2|Priority|\n' >"$work/pend.82"
printf '8-12|Priority|\n' >"$work/pend.812"
"$PLACE" place "$work/o4.json" --nodes 4 --island auto --slurm --time-limit 60 --running "$work/run.60" >/dev/null 2>"$work/r60.err"; rc1=$?
"$PLACE" place "$work/o4.json" --nodes 4 --island auto --slurm --time-limit 60 --running "$work/run.24" >/dev/null 2>"$work/r24.err"; rc2=$?
"$PLACE" place "$work/o4.json" --nodes 4 --island auto --slurm --time-limit 60 --running "$work/run.ok" --pending "$work/pend.82" >/dev/null 2>"$work/p82.err"; rc3=$?
"$PLACE" place "$work/o4.json" --nodes 4 --island auto --slurm --time-limit 60 --running "$work/run.ok" --pending "$work/pend.812" >/dev/null 2>&1; rc4=$?
if [ $rc1 = 1 ] && grep -q "run.60:1: found TIMELEFT '1:60'" "$work/r60.err" &&
    [ $rc2 = 1 ] && grep -q "run.24:1: found TIMELEFT '1-24:00:00'" "$work/r24.err" &&
    [ $rc3 = 1 ] && grep -q 'pend.82:1: NODES .8-2. is not a node count or range' "$work/p82.err" && [ $rc4 = 0 ]; then
    ok "TIMELEFT 1:60 and 1-24:00:00, pending 8-2: FILE:LINE errors; 8-12 read"
else not_ok "TIMELEFT 1:60 and 1-24:00:00, pending 8-2: FILE:LINE errors"; diag "rc $rc1 $rc2 $rc3 $rc4" "$(cat "$work/r60.err" "$work/r24.err" "$work/p82.err")"; fi
rc=
for tl in UNLIMITED infinite -1 0; do
    "$PLACE" place "$work/o4.json" --nodes 4 --island auto --slurm --time-limit "$tl" --explain >"$work/tl.out" 2>&1
    rc="$rc $?"
    grep -q "^decision=no time limit ($tl): waits up to 600 s (island_wait)" "$work/tl.out" || rc="$rc no-decision"
done
if [ "$rc" = " 0 0 0 0" ]; then
    ok "--time-limit UNLIMITED, INFINITE, -1 and 0: no limit, island_wait, said on a decision= line"
else not_ok "--time-limit UNLIMITED, INFINITE, -1 and 0: no limit"; diag "rc$rc" "$(cat "$work/tl.out")"; fi
# --jobs: times to the millisecond, never in %g's 6 digits (1.03743e+06)
printf 'job_id,submit_s,duration_s,nodes\n1,0,100,2\n2,1234567.25,100,2\n' >"$work/late.csv"
"$PLACE" simulate "$work/o4.json" "$work/late.csv" --seeds 1 --policy atoll --jobs "$work/late.jobs" >/dev/null 2>&1
if grep -q ",1234567.250,1234567.250,100.000," "$work/late.jobs" && ! grep -q 'e+0' "$work/late.jobs"; then
    ok "simulate --jobs: submit and start times to the millisecond past 10^6 s"
else not_ok "simulate --jobs: submit and start times to the millisecond"; diag "$(cat "$work/late.jobs")"; fi
# (helper 31) on 4 pods of 8 leaves at 4:1 auto asked nothing for 78-80,
# 91-96, 104-112, 117-128 and 130 nodes or more: the model judged spanning by
# an even split only, while Slurm's best fit on a fragmented fabric leaves a
# thin slice on the extra leaf, and `cost` itself prices 72+6 hosts across two
# pods 1.49 times the best. On a non-blocking fabric auto still asks nothing.
"$TOPO" generate --pods 4 --groups 8 --hosts 16 --oversub 4 --format json -o "$work/p4.json"
"$TOPO" generate --pods 4 --groups 8 --hosts 16 --format json -o "$work/p1.json"
thin=$("$PLACE" cost "$work/p4.json" 'node[001-072,129-134]' | sed -n 's/^slowdown=//p')
asked=""; none=""
for n in 78 80 91 96 104 112 117 128 130 256; do
    [ -n "$("$PLACE" place "$work/p4.json" --nodes $n --island auto --slurm | grep '^switches=')" ] || asked="$asked $n"
    [ -z "$("$PLACE" place "$work/p1.json" --nodes $n --island auto --slurm | grep -v '^free=')" ] || none="$none $n"
done
if [ -z "$asked" ] && [ -z "$none" ] && awk -v s="$thin" 'BEGIN { exit !(s > 1.3) }'; then
    ok "auto at 4:1 asks --switches at every size a thin slice would cost (72+6: $thin), nothing on 1:1"
else
    not_ok "auto at 4:1 asks at every size a thin slice would cost"; diag "not asked at 4:1:$asked; asked at 1:1:$none; thin $thin"
fi
# (helper 31) under the busy charge the island's own placement crosses busy
# uplinks too: 13 nodes of 12-host leaves at 4:1, Slurm's 5+5+3 now (cost
# 2.19) against the 12+1 a two-leaf wait buys (2.48): no wait. It waited 600 s.
"$TOPO" generate --pods 2 --groups 4 --hosts 12 --oversub 4 --format json -o "$work/p96.json"
printf 'node[037-048] 2:00\nnode[006-012,018-024,028-036] 5:00:00\nnode[049-096] 5:00:00\n' >"$work/run1"
now=$("$PLACE" cost "$work/p96.json" 'node[001-005,013-017,025-027]' | sed -n 's/^slowdown=//p')
wait=$("$PLACE" cost "$work/p96.json" 'node[001-013]' | sed -n 's/^slowdown=//p')
out=$("$PLACE" place "$work/p96.json" --nodes 13 --island auto --slurm --free 'node[001-005,013-017,025-027]' \
      --time-limit 2:00:00 --running "$work/run1" --uplink-load busy --explain 2>&1)
if awk -v a="$now" -v b="$wait" 'BEGIN { exit !(a < b) }' && echo "$out" | grep -q 'spanning adds 0 s .*(busy uplinks): no wait' &&
   ! echo "$out" | grep -q '^switches='; then
    ok "busy uplinks: no wait for an island whose own placement is no faster ($wait) than Slurm's now ($now)"
else
    not_ok "busy uplinks: no wait for an island whose own placement is no faster"; diag "now $now wait $wait" "$out"
fi
# (helper 36) a host twice in HOSTLIST is an error: it was priced as one
# node, a smaller job than asked, without a word
"$PLACE" cost "$work/p96.json" 'node001,node[001-002]' >"$work/dup" 2>&1
rc=$?
check "cost: a host given twice is exit 1, naming it" sh -c '[ "$1" = 1 ] && grep -q "host .node001. given twice" "$2"' _ "$rc" "$work/dup"
# (helper 36) NCCL splits a collective evenly over its channels, one NIC
# each (src/graph/search.cc, connect.cc), so one rail of eight at 1x NDR
# (100 Gb/s) sets the node's pace: 8 x 100 x 0.94 / 8 = 94 GB/s, not the
# sum's 340.75; and a GPU's channels use its nearest NIC, so one GPU a node
# of 8 x 400 Gb/s reaches 400 x 0.94 / 8 = 47 GB/s, four GPUs 188
"$TOPO" generate --groups 2 --rails 8 --hosts 4 --speed NDR --degrade node001:0 --format json -o "$work/r8d.json" 2>/dev/null
"$TOPO" generate --groups 2 --rails 8 --hosts 4 --speed NDR --format json -o "$work/r8.json"
d=$("$PLACE" cost "$work/r8d.json" 'node[001-002]' --explain 2>&1 | sed -n 's/^here: .*per GPU \([0-9.]*\) GB\/s across nodes.*/\1/p')
g1=$("$PLACE" cost "$work/r8.json" 'node[001-002]' --gpus-per-node 1 --explain 2>&1 | sed -n 's/^here: .*per GPU \([0-9.]*\) GB\/s across nodes.*/\1/p')
g4=$("$PLACE" cost "$work/r8.json" 'node[001-002]' --gpus-per-node 4 --explain 2>&1 | sed -n 's/^here: .*per GPU \([0-9.]*\) GB\/s across nodes.*/\1/p')
check "cost: a 1x rail of eight sets the node's pace (94 GB/s); 1 and 4 GPUs a node use 1 and 4 of 8 NICs (47, 188 GB/s)" \
    [ "$d $g1 $g4" = "94 47 188" ]

# (issue 26) NVLink domains: NCCL takes the hosts of one multi-node NVLink
# domain for one NVLink node (MNNVL), so its rings cross the network only
# between domains, each crossing carried by the NICs of the smallest domain
# part together. NVIDIA/nccl#1801 measured GB200 partitions of 1 and 2 trays
# over InfiniBand at ring busBW 196.7 and 393.7 GB/s: here 4 x 400 Gb/s x
# 0.94 / 8 = 188 GB/s a tray, 376 for two. Inside one domain the network is
# not used: 835 GB/s, a whole NVL72 rack's (coreweave/nccl-tests#43, 835-847).
"$TOPO" generate --groups 4 --hosts 36 --rails 4 --speed NDR --domain-size 18 --format json -o "$work/nvl.json"
gbps() { "$PLACE" cost "$work/nvl.json" "$1" --gpus-per-node 4 --explain 2>&1 | sed -n 's/^here: .*per GPU \([0-9.]*\) GB\/s across nodes.*/\1/p'; }
check "cost: in one NVLink domain 835 GB/s; 3 domains of 1 and of 2 trays 188, 376; 17+1 as slow as its 1" \
    [ "$(gbps 'node[001-002]') $(gbps 'node[001,019,037]') $(gbps 'node[001-002,019-020,037-038]') $(gbps 'node[001-017,019]')" = "835 188 376 188" ]
sd=$("$PLACE" cost "$work/nvl.json" 'node[001,019]' --gpus-per-node 4 | sed -n 's/^slowdown=//p')
check "cost: 2 trays in two domains step $sd times as long as in one" awk -v s="$sd" 'BEGIN { exit !(s > 1.9 && s < 2.1) }'
# the best placement of a size is in a domain, though a larger leaf of hosts
# in none holds it in as few leaves (CSV: 100 Gb/s assumed a host)
{ echo host,leaf,domain; i=0; while [ $i -lt 32 ]; do i=$((i + 1)); echo "a$i,L0,"; done
  i=0; while [ $i -lt 18 ]; do i=$((i + 1)); echo "b$i,L1,rack1"; done; } >"$work/mixed.csv"
on_a=$("$PLACE" cost "$work/mixed.csv" 'a[1-2]' --gpus-per-node 4 | sed -n 's/^slowdown=//p')
on_b=$("$PLACE" cost "$work/mixed.csv" 'b[1-2]' --gpus-per-node 4 | sed -n 's/^slowdown=//p')
check "cost: 2 hosts outside the domain are the slower ($on_a), in it the best (1.000)" \
    sh -c '[ "$2" = 1.000 ] && awk -v s="$1" "BEGIN { exit !(s > 1.5) }"' _ "$on_a" "$on_b"
# the best placement splits a job over the fewest domains as evenly as they
# hold: 20 one-GPU trays over two racks cross at 10 trays' NICs (10 x 47 GB/s),
# 18 + 2 at 2 trays' (94)
even=$("$PLACE" cost "$work/nvl.json" 'node[001-018,019-020]' --gpus-per-node 1 --explain 2>&1)
check "cost: 18 + 2 trays cross at 94 GB/s, the best (10 + 10) at 470" \
    sh -c 'echo "$1" | grep -q "^here: 20 nodes x 1 GPUs on 1 leaves, 2 NVLink domains; .*per GPU 94 GB/s" &&
           echo "$1" | grep -q "^best: 20 nodes x 1 GPUs on 1 leaves, 2 NVLink domains; .*per GPU 470 GB/s"' _ "$even"
# (helper 36) --bytes is a decimal number: strtod's hex, leading blanks, inf
# and signs are usage errors
bad=0
for b in 0x10 ' 7' inf +5; do
    "$PLACE" cost "$work/ft.txt" 'node[001-002]' --bytes "$b" >/dev/null 2>"$work/berr"
    [ $? -eq 2 ] && grep -q -- "--bytes: \"$b\", expected a size" "$work/berr" || bad=$((bad + 1))
done
check "cost: --bytes 0x10, ' 7', inf and +5 are usage errors naming it" [ "$bad" = 0 ]
# (helper 37) the best is the fewest whole domains split evenly wherever
# their leaves are: on leaves of one domain each, 18 + 1 trays cross at one
# tray's NICs and 10 + 9 at 9 trays' (capped by NVLink's 835), so 18 + 1 is
# the slower; and a domain over two leaves is one NVLink node, not two
"$TOPO" generate --groups 4 --rails 4 --hosts 18 --speed NDR --domain-size 18 --format json -o "$work/d18.json"
"$TOPO" generate --groups 4 --rails 4 --hosts 18 --speed NDR --domain-size 36 --format json -o "$work/d36.json"
s181=$("$PLACE" cost "$work/d18.json" 'node[001-019]' --gpus-per-node 4 | sed -n 's/^slowdown=//p')
s109=$("$PLACE" cost "$work/d18.json" 'node[001-010,019-027]' --gpus-per-node 4 | sed -n 's/^slowdown=//p')
one=$("$PLACE" cost "$work/d36.json" 'node[001-036]' --gpus-per-node 4 --explain 2>&1)
check "cost: 18 + 1 trays over two leaves slower ($s181) than 10 + 9 (the best, $s109); a domain over two leaves is one" \
    sh -c 'awk -v s="$1" "BEGIN { exit !(s > 1.5) }" && [ "$2" = 1.000 ] && echo "$3" | grep -q "^slowdown=1.000" &&
           echo "$3" | grep -q "^best: 36 nodes x 4 GPUs on 2 leaves, 1 NVLink domain;"' _ "$s181" "$s109" "$one"
