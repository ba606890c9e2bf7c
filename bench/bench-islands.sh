#!/bin/sh
# Islands at what wait, on a real Slurm (issue 15): a hard job stream replayed
# on a 64-node loopback Slurm (8 leaves x 8, slurmctld + 64 slurmd,
# topology/tree on atoll's topology.conf (CLUSTER_TOPOLOGY=block: topology/block), select/cons_tres unless
# CLUSTER_SELECT says otherwise, the atoll plugin, cli_filter.lua and
# job_submit.lua), each mode REPEATS times, the modes taking turns in the same
# run; then atoll's simulator on the same stream and fabric.
#
# The stream: every k-th job of the CEA Curie trace (bench/data), sizes mapped
# so that most jobs need half a leaf or less (Curie's 2 nodes -> 2, 3-16 -> 3,
# 17-64 -> 4, 65-256 -> 6, more -> 12), durations log-scaled from Curie's
# seconds-to-days onto 5-60 s, arrivals scaled to the offered load LOAD.
#
#   bench/bench-islands.sh [BUILDDIR]
#   JOBS=150 LOAD=0.9 REPEATS=3 (0: the simulator only) MODES="plain auto leaf" WAIT=30
#   TIME=1 (every job's --time in minutes, what backfill plans with; "": none, a year)
#   BF_INTERVAL=5 OUT=DIR (keep the per-job files)
# Modes: see bench/slurm-replay.sh. Prints figures; asserts nothing.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
ATOLL_SRCDIR=$src ATOLL_BUILDDIR=$build TOPO="$build/tools/atoll-topo"
export ATOLL_SRCDIR TOPO
. "$src/tests/slurm-cluster.sh"
. "$src/bench/slurm-replay.sh"
jobs=${JOBS:-150} load=${LOAD:-0.9} repeats=${REPEATS:-3} modes=${MODES:-plain auto leaf} wait=${WAIT:-30}
REPLAY_TIME=${TIME-1} bf_interval=${BF_INTERVAL:-5}
CLUSTER_SCHED_PARAMS="batch_sched_delay=0,bf_interval=$bf_interval,max_switch_wait=3600"
export CLUSTER_SCHED_PARAMS
CLUSTER_SELECT=${CLUSTER_SELECT:-cons_tres}
work=$(mktemp -d /tmp/atoll-bench-islands.XXXXXX)
out=${OUT:-$work}
mkdir -p "$out"
trap 'cluster_down || true; rm -rf "$work" || true' EXIT
trap 'exit 1' INT TERM

# FABRIC_ARGS: e.g. "--spines 2 --oversub 4" for an oversubscribed one
# shellcheck disable=SC2086
"$TOPO" generate --groups 8 --hosts 8 ${FABRIC_ARGS:---spines 4} --format json -o "$work/fabric.json"
chmod 644 "$work/fabric.json"
# COST="--comm-share S [--all-to-all]": every job sleeps its duration x the
# step model's slowdown for the nodes it got (bench/slurm-replay.sh, REPLAY_COST;
# REPLAY_UPLINK=running|busy: who shares its uplinks)
[ -z "${COST:-}" ] || REPLAY_COST="$build/tools/atoll-place $work/fabric.json $COST"

# the stream: ID SUBMIT NODES DURATION, and the same as CSV for the simulator
gunzip -c "$src/bench/data/curie_multinode_14d.csv.gz" | awk -F, -v n="$jobs" -v load="$load" '
    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { row[NR - 1] = $0 }
    END {
        stride = int((NR - 1) / n); if (stride < 1) stride = 1
        lmax = log(1 + 86400)
        for (j = 1; j <= n && j * stride <= NR - 1; j++) {
            split(row[j * stride], f, ",")
            m = f[c["nodes"]]
            s = m <= 2 ? 2 : m <= 16 ? 3 : m <= 64 ? 4 : m <= 256 ? 6 : 12
            d = f[c["duration_s"]]; if (d > 86400) d = 86400
            d = int(5 + 55 * log(1 + d) / lmax + 0.5)
            k++; sub_t[k] = f[c["submit_s"]]; size[k] = s; dur[k] = d; work += s * d
        }
        span = work / (64 * load); t0 = sub_t[1]; raw = sub_t[k] - t0; if (raw <= 0) raw = 1
        for (i = 1; i <= k; i++) printf "%d %.2f %d %d\n", i, (sub_t[i] - t0) * span / raw, size[i], dur[i]
    }' >"$work/stream"
[ "$out" = "$work" ] || cp "$work/stream" "$out/stream"
# the limit backfill plans with: --time, or a year (Slurm's partition MaxTime=INFINITE)
limit=31536000
[ -z "$REPLAY_TIME" ] || limit=$((REPLAY_TIME * 60))
{ echo "id,submit,nodes,duration,limit"; awk -v l=$limit '{ print $1 "," $2 "," $3 "," $4 "," l }' "$work/stream"; } >"$out/stream.csv"
awk '{ if ($3 <= 4) h++; else if ($3 <= 8) l++; else m++; w += $3 * $4; if ($2 > end) end = $2 }
    END { printf "== stream: %d jobs (%d of half a leaf or less, %d of 5-8 nodes, %d of 2 leaves), %d node-seconds over %.0f s, offered load %s\n",
                 NR, h, l, m, w, end, "'"$load"'" }' "$work/stream"

if [ "$repeats" -gt 0 ]; then
# the site tells auto's model what the jobs are and who loads the uplinks
# (plugstack comm_share=, collective=, uplink_load=; atoll(8)), as the
# simulator below is told
site="fabric=$work/fabric.json island_wait=$wait"
if [ -n "${COST:-}" ]; then
    share=$(echo "$COST" | sed -n 's/.*--comm-share  *\([0-9.]*\).*/\1/p')
    [ -z "$share" ] || site="$site comm_share=$share"
    case " $COST " in *" --all-to-all "*) site="$site collective=all-to-all" ;; esac
    site="$site uplink_load=${REPLAY_UPLINK:-running}"
fi
cluster_up "$work/c" "$work/fabric.json" "$build/spank/.libs/atoll.so" "$site"
echo "== Slurm $(slurmctld -V | cut -d' ' -f2), select/$CLUSTER_SELECT, $(sed -n "s/^TopologyPlugin=//p" "$CLUSTER_DIR/slurm.conf"); $(grep ^SchedulerParameters "$CLUSTER_DIR/slurm.conf")"
r=1
while [ "$r" -le "$repeats" ]; do
    for mode in $modes; do
        replay "$mode.$r" "$mode" "$work/stream" "$out"
    done
    r=$((r + 1))
done

echo "== per mode, over $repeats repeats (mean, min-max)"
for mode in $modes; do
    for f in "$out/$mode".*.jobs; do summarise x "$f"; done |
        sed 's/.* one leaf *\([0-9.]*\)%.*mean wait \([0-9.]*\) s.*/\1 \2/' |
        awk -v m="$mode" '{ p[NR] = $1; w[NR] = $2; sp += $1; sw += $2 }
            END { lo = hi = p[1]; wl = wh = w[1]
                  for (i = 2; i <= NR; i++) { if (p[i] < lo) lo = p[i]; if (p[i] > hi) hi = p[i]; if (w[i] < wl) wl = w[i]; if (w[i] > wh) wh = w[i] }
                  printf "%-8s leaf-fitting in one leaf %5.1f%% (%.1f-%.1f)  mean wait %5.1f s (%.1f-%.1f)\n", m, sp / NR, lo, hi, sw / NR, wl, wh }'
done


echo "== mean wait by job size, over the repeats (s)"
for mode in $modes; do
    cat "$out/$mode".*.jobs | awk -v m="$mode" '{ n[$2]++; w[$2] += $4 - $3 }
        END { printf "%-12s", m; for (s = 1; s <= 64; s++) if (n[s]) printf "  %d nodes: %5.1f (%d)", s, w[s] / n[s], n[s]; print "" }'
done
fi

echo "== atoll's simulator on the same stream and fabric, as Slurm schedules (FCFS stopping at the first"
echo "   job that cannot start; conservative backfill every $bf_interval s (plans for the first N jobs under bf_job_part_count_reserve=N), planned with the jobs' limits;"
echo "   one seed, no jitter)"
sim() {  # NAME OPTIONS...
    _n=$1; shift
    "$build/tools/atoll-place" simulate "$work/fabric.json" "$out/stream.csv" --seeds 1 --jitter 0 \
        --backfill conservative --bf-interval "$bf_interval" --bf-window 86400 "$@" |
        awk -v n="$_n" '/in one leaf/ { p = $(NF - 2) } /^mean wait/ { w = $(NF - 2) }
            /^mean turnaround/ { t = $(NF - 2) } /^makespan/ { m = $(NF - 2) }
            END { printf "%-12s leaf-fitting in one leaf %5.1f%%  mean wait %5.1f s", n, p, w
                  if (cost) printf "  turnaround %.1f s makespan %.0f s", t, m
                  print "" }' cost="${COST:+1}"
}
# with COST, the jobs run as long as the step model says, under the uplink
# load the real jobs price themselves with (REPLAY_UPLINK, bench/slurm-replay.sh), and
# atoll's requests are the ones cli_filter.lua and job_submit.lua make: the
# island ranked by atoll, Slurm's node choice inside it (--select slurm-tree),
# auto's wait from the model (--model-wait, island_wait its bound)
simcost=
# shellcheck disable=SC2086
[ -z "${COST:-}" ] || simcost="$COST --uplink-load ${REPLAY_UPLINK:-running}"
for mode in $modes; do
    age=0 reserve=0
    case "$mode" in *bf_min_age_reserve=*) age=$(echo "$mode" | sed 's/.*bf_min_age_reserve=\([0-9]*\).*/\1/') ;; esac
    case "$mode" in *bf_job_part_count_reserve=*) reserve=$(echo "$mode" | sed 's/.*bf_job_part_count_reserve=\([0-9]*\).*/\1/') ;; esac
    case "${mode%%@*}" in
    # shellcheck disable=SC2086
    plain) sim "$mode" --policy slurm-tree --bf-min-age-reserve "$age" --bf-reserve "$reserve" $simcost ;;
    # shellcheck disable=SC2086
    auto) sim "$mode" --policy atoll --island-wait "$wait" --bf-min-age-reserve "$age" --bf-reserve "$reserve" \
        $simcost ${COST:+--model-wait --select slurm-tree} ;;
    # shellcheck disable=SC2086
    leaf) sim "$mode" --policy atoll --fit required --leaf-wait "$wait" --bf-min-age-reserve "$age" --bf-reserve "$reserve" \
        $simcost ${COST:+--select slurm-tree} ;;
    esac
done
