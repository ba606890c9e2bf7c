#!/bin/sh
# The generated 8-rack GB200 NVL72 unit (144 trays, rail-optimised IB, rail
# groups of two racks; tests/data/nvlink/su-nvl72.txt gives each tray's
# NVLink domain) on a real Slurm with topology/block from atoll's file: 144
# slurmd on loopback. Slurm 23.11 and later (Debian 12's 22.05 has no
# topology/block: these skip there and run in the release matrix,
# tests/slurm-matrix.sh). The domain of every node comes from the nvidia-smi
# fixture, not from atoll: every job of 1 to 18 nodes (all eighteen sizes
# submitted at once, more than the unit holds, so later ones start as
# earlier ones end) lands in one domain, by plain sbatch and through atoll's
# request path (atoll.so, cli_filter.lua, job_submit.lua, --fabric-island);
# a 36-node job gets two whole domains of one aggregated block of two, and
# --fabric-island=leaf:required asks --segment=18 for it (and, on 25.11 and
# later, --consolidate-segments).
. "$(dirname "$0")/../lib.sh"
. "$ATOLL_SRCDIR/tests/slurm-cluster.sh"
n=12
plan $n
skip_all() {
    i=0
    while [ $i -lt $n ]; do i=$((i + 1)); skip "NVL72 on topology/block $i" "$1"; done
    exit 0
}
command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v sbatch >/dev/null ||
    skip_all "Slurm (slurmctld, slurmd, sbatch) not installed"
version=$(slurm_version)
release=$(slurmctld -V | sed 's/^[^ ]* //')
[ "${version:-0}" -ge 2311 ] || skip_all "Slurm $release has no topology/block (23.11 and later)"
[ -x "$ATOLL_BUILDDIR/spank/.libs/atoll.so" ] || skip_all "the plugin (spank/.libs/atoll.so) is not built"
work=$(tmpdir)

# the unit: 4 rail groups of 36 trays (two racks), 4 rails; the domains from nvidia-smi
"$TOPO" generate --groups 4 --rails 4 --hosts 36 --host-prefix gb -o "$work/nvl72.net"
"$TOPO" discover "$work/nvl72.net" --nvlink "$DATA/nvlink/su-nvl72.txt" -o "$work/nvl72.json" 2>/dev/null
"$TOPO" slurm --format view "$work/nvl72.json" -o "$work/nvl72.view"
chmod 644 "$work/nvl72.json" "$work/nvl72.view"
# host -> domain (ClusterUUID.CliqueId) straight from the fixture
awk -F': ' '{ split($2, a, ", "); print $1, a[1] "." a[2] }' "$DATA/nvlink/su-nvl72.txt" | sort -u >"$work/domain.map"
# domains NODELIST: the distinct domains of the nodes; whole NODELIST: "18,18" per-domain counts
domains() { scontrol show hostnames "$1" | awk 'NR == FNR { d[$1] = $2; next } { print d[$1] }' "$work/domain.map" - | sort -u; }
counts() { scontrol show hostnames "$1" | awk 'NR == FNR { d[$1] = $2; next } { c[d[$1]]++ } END { for (k in c) print c[k] }' "$work/domain.map" - | sort -n | paste -sd, -; }

export CLUSTER_UP_TRIES=600  # 144 slurmd on a shared machine: up to two minutes
t0=$(date +%s)
if ! CLUSTER_TOPOLOGY=block CLUSTER_SELECT=cons_tres cluster_up "$work/c" "$work/nvl72.json" \
        "$ATOLL_BUILDDIR/spank/.libs/atoll.so" "fabric=$work/nvl72.view" >"$work/up.log" 2>&1; then
    diag "$(cat "$work/up.log")" "$(grep -iE 'fatal|error' "$work/c/log/slurmctld.log" 2>/dev/null | head -5)"
    i=0
    while [ $i -lt $n ]; do i=$((i + 1)); not_ok "NVL72 cluster $i (the cluster did not start)"; done
    exit 0
fi
at_exit cluster_down
up=$(($(date +%s) - t0))
# this cluster's slurmd only (CLUSTER_PIDS: slurmctld, then one slurmd per node)
rss=$(ps -o rss= -p "$(echo "$CLUSTER_PIDS" | tr ' ' '\n' | tail -n +2 | paste -sd, -)" | awk '{ s += $1; n++ } END { printf "%d slurmd, %.0f MB RSS in all, %.1f MB each", n, s / 1024, s / 1024 / n }')
diag "Slurm $release: 144 nodes idle after ${up} s; $rss"
timeout 10 scontrol show topology >"$work/topology.out" 2>&1
if [ "$(grep -c '^BlockName=nvl-.* BlockSize=18$' "$work/topology.out")" -eq 8 ] &&
   grep -q '^BlockSizes=18,36,72,144$' "$work/c/topology.conf" &&
   [ "$(grep -c '^AggregatedBlock=.* BlockSize=36$' "$work/topology.out")" -eq 4 ]; then
    ok "slurmctld $release runs atoll's block file: 8 domain blocks of 18, 4 aggregated blocks of 36"
else
    not_ok "slurmctld $release runs atoll's block file: 8 domain blocks of 18, 4 aggregated blocks of 36"
    diag "$(head -14 "$work/topology.out")"
fi

# stream ARGS...: sizes 1..18 submitted at once (171 nodes: more than the
# unit), each sleeping 4 s; prints "SIZE NODELIST" per job once all have run
stream() {
    : >"$work/jobs"
    for k in 18 1 17 2 16 3 15 4 14 5 13 6 12 7 11 8 10 9; do
        j=$(sbatch -o /dev/null -N$k --exclusive "$@" --wrap 'sleep 4' 2>>"$work/sbatch.err" | awk '{ print $4 }')
        echo "$k $j" >>"$work/jobs"
    done
    i=0
    while [ -n "$(squeue -h -o %i 2>/dev/null)" ] && [ $i -lt 240 ]; do sleep 0.5; i=$((i + 1)); done
    while read -r k j; do
        [ -n "$j" ] || { echo "$k -"; continue; }
        echo "$k $(scontrol show job -o "$j" 2>/dev/null | sed -n 's/.* NodeList=\([^ ]*\).*/\1/p')"
    done <"$work/jobs"
}
# judge FILE: "ok" when every job ran in exactly one domain with its size, else the bad lines
judge() {
    bad=
    while read -r k nl; do
        if [ -z "$nl" ] || [ "$nl" = "-" ] || [ "$nl" = "(null)" ] ||
           [ "$(scontrol show hostnames "$nl" | wc -l)" -ne "$k" ] || [ "$(domains "$nl" | wc -l)" -ne 1 ]; then
            bad="$bad $k:$nl"
        fi
    done <"$1"
    echo "${bad:-ok}"
}
# scontrol show job keeps ended jobs for MinJobAge (300 s): enough here
stream >"$work/plain.out"
res=$(judge "$work/plain.out")
check "plain sbatch: each of the 18 jobs of 1..18 nodes (171 nodes at once) ran in one domain [$res]" [ "$res" = ok ]
diag "$(paste -sd' ' "$work/plain.out")"
stream --fabric-island=domain >"$work/atoll.out"
res=$(judge "$work/atoll.out")
check "--fabric-island=domain: each of the 18 jobs of 1..18 nodes ran in one domain [$res]" [ "$res" = ok ]
stream --fabric-island=auto >"$work/auto.out"
res=$(judge "$work/auto.out")
check "--fabric-island=auto: each of the 18 jobs of 1..18 nodes ran in one domain [$res]" [ "$res" = ok ]
check "no sbatch was refused" [ ! -s "$work/sbatch.err" ]
wait_idle >/dev/null 2>&1

# pairs: the aggregated blocks of 36 (two domains each), as slurmctld reports them
grep '^AggregatedBlock=.* BlockSize=36$' "$work/topology.out" | sed 's/.* Nodes=\([^ ]*\).*/\1/' >"$work/pairs"
# in_pair NODELIST: the nodes lie inside one aggregated block of 36
in_pair() {
    scontrol show hostnames "$1" | sort >"$work/j.tmp"
    while read -r p; do
        scontrol show hostnames "$p" | sort >"$work/p.tmp"
        [ -z "$(comm -23 "$work/j.tmp" "$work/p.tmp")" ] && return 0
    done <"$work/pairs"
    return 1
}
# 36 nodes, one domain half busy (gb001-009 held): two whole domains of one pair
sbatch -o /dev/null -N9 -w 'gb[001-009]' --exclusive --wrap 'sleep 300' >/dev/null
sleep 1
j=$(sbatch -o /dev/null -N36 --exclusive --wrap 'sleep 30' | awk '{ print $4 }')
i=0
until scontrol show job -o "$j" | grep -q 'JobState=RUNNING' || [ $i -gt 60 ]; do sleep 0.5; i=$((i + 1)); done
nl36=$(scontrol show job -o "$j" | sed -n 's/.* NodeList=\([^ ]*\).*/\1/p')
if [ "$(counts "$nl36")" = "18,18" ] && in_pair "$nl36"; then
    ok "a 36-node job (plain sbatch): two whole domains of one aggregated block [$nl36]"
else
    not_ok "a 36-node job (plain sbatch): two whole domains of one aggregated block [$nl36]"
    diag "$(scontrol show job -o "$j")"
fi
scancel "$j"
# through atoll: a rail group (leaf island: two racks) required, 36 nodes
jl=$(sbatch -o /dev/null -N36 --exclusive --fabric-island=leaf:required --fabric-explain --wrap 'sleep 30' 2>"$work/seg.err" |
    awk '{ print $4 }')
i=0
until scontrol show job -o "$jl" | grep -q 'JobState=RUNNING' || [ $i -gt 60 ]; do sleep 0.5; i=$((i + 1)); done
info=$(scontrol show job -o "$jl")
nll=$(echo "$info" | sed -n 's/.* NodeList=\([^ ]*\).*/\1/p')
if [ "$(counts "$nll")" = "18,18" ] && in_pair "$nll"; then
    ok "--fabric-island=leaf:required, 36 nodes: two whole domains of one aggregated block [$nll]"
else
    not_ok "--fabric-island=leaf:required, 36 nodes: two whole domains of one aggregated block [$nll]"
    diag "$info" "$(cat "$work/seg.err")"
fi
# scontrol prints SegmentSize from 25.05 (src/scontrol/info_job.c); before, cli_filter.lua's explanation
if grep -q 'segment 18' "$work/seg.err" && { [ "$version" -lt 2505 ] || echo "$info" | grep -q 'SegmentSize=18'; }; then
    ok "atoll asked --segment=18 for it (cli_filter.lua's explanation; scontrol's SegmentSize=18 from 25.05)"
else
    not_ok "atoll asked --segment=18 for it (cli_filter.lua's explanation; scontrol's SegmentSize=18 from 25.05)"
    diag "$info" "$(cat "$work/seg.err")"
fi
if [ "$version" -ge 2511 ]; then
    check "on $release also --consolidate-segments (ConsolidateSegments=Yes)" sh -c 'echo "$1" | grep -q "ConsolidateSegments=Yes"' _ "$info"
else
    skip "--consolidate-segments" "Slurm $release has none (25.11 and later)"
fi
scancel "$jl"
wait_idle >/dev/null 2>&1
# what --consolidate-segments changes (eval_nodes_block.c): one node busy in
# domains 2 and 7; --segment=18 alone places each segment as an 18-node job
# (the fullest-fitting domain, the last on a tie: domains 8, then 6: two
# pairs), with --consolidate-segments both in one pair of 36 free (5 and 6)
if [ "$version" -ge 2511 ]; then
    for w in gb019 gb109; do sbatch -o /dev/null -N1 -w $w --exclusive --wrap 'sleep 300' >/dev/null; done
    sleep 1
    run36() {
        _j=$(sbatch -o /dev/null -N36 --exclusive --segment=18 "$@" --wrap 'sleep 30' | awk '{ print $4 }')
        _i=0
        until scontrol show job -o "$_j" | grep -q 'JobState=RUNNING' || [ $_i -gt 60 ]; do sleep 0.5; _i=$((_i + 1)); done
        scontrol show job -o "$_j" | sed -n 's/.* NodeList=\([^ ]*\).*/\1/p'
        scancel "$_j"
        _i=0
        while squeue -h -j "$_j" 2>/dev/null | grep -q . && [ $_i -lt 60 ]; do sleep 0.5; _i=$((_i + 1)); done
    }
    spread=$(run36)
    together=$(run36 --consolidate-segments)
    if [ "$(counts "$spread")" = "18,18" ] && ! in_pair "$spread"; then
        ok "--segment=18 alone: two whole domains of two different pairs [$spread]"
    else
        not_ok "--segment=18 alone: two whole domains of two different pairs [$spread]"
    fi
    if [ "$(counts "$together")" = "18,18" ] && in_pair "$together"; then
        ok "--segment=18 --consolidate-segments: two whole domains of one pair [$together]"
    else
        not_ok "--segment=18 --consolidate-segments: two whole domains of one pair [$together]"
    fi
else
    skip "--segment=18 alone spreads the segments" "Slurm $release has no --consolidate-segments (25.11 and later)"
    skip "--consolidate-segments keeps them in one pair" "Slurm $release has no --consolidate-segments (25.11 and later)"
fi
check "no node was drained or downed" sh -c '! sinfo -h -o "%t" | grep -qE "drain|down"'
