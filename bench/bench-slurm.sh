#!/bin/sh
# End-to-end on a real Slurm: a 64-node loopback cluster (8 leaves x 8,
# slurmctld + 64 slurmd, topology/tree with atoll's topology.conf, the atoll
# plugin and job_submit.lua).
#  1. srun -N2 true with and without the plugin, alternating, same run.
#  2. A job stream cut from a real trace (every k-th job of CEA Curie, nodes
#     halved: 2-8 for most, 16-32 for some), sizes scaled so that
#     most jobs need a quarter of a leaf to a whole leaf and some need 2-4
#     leaves, durations scaled to seconds, arrivals to the offered load asked
#     for; replayed three times: plain (topology/tree only), with
#     --fabric-island=auto (one leaf preferred: --switches=1@WAIT), and with
#     --fabric-island=leaf (required; cli_filter.lua ranks the leaves on the
#     idle nodes) for jobs one leaf can hold. Reports % of leaf-fitting jobs
#     in one leaf, excess leaves per multi-node job and mean wait for each.
# Prints figures; asserts nothing.
#   bench/bench-slurm.sh [BUILDDIR]   (JOBS=150 LOAD=0.85 RUNS=40 WAIT=60; JOBS=0: srun only)
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
ATOLL_SRCDIR=$src ATOLL_BUILDDIR=$build TOPO="$build/tools/atoll-topo"
export ATOLL_SRCDIR TOPO
. "$src/tests/slurm-cluster.sh"
. "$src/bench/slurm-replay.sh"
jobs=${JOBS:-150} load=${LOAD:-0.85} runs=${RUNS:-40} wait=${WAIT:-60}
work=$(mktemp -d /tmp/atoll-bench-slurm.XXXXXX)
trap 'cluster_down || true; rm -rf "$work" || true' EXIT
"$TOPO" generate --groups 8 --hosts 8 --spines 4 --format json -o "$work/fabric.json"
chmod 644 "$work/fabric.json"
cluster_up "$work/c" "$work/fabric.json" "$build/spank/.libs/atoll.so" "fabric=$work/fabric.json island_wait=$wait"
with_plugin=$(cat "$work/c/plugstack.conf")

"$TOPO" slurm --format view "$work/fabric.json" -o "$work/fabric.view"
chmod 644 "$work/fabric.view"
with_view=$(echo "$with_plugin" | sed "s|fabric=$work/fabric.json|fabric=$work/fabric.view|")
# the client's view without atoll's cli_filter.lua (srun reads SLURM_CONF)
grep -v '^CliFilterPlugins=' "$work/c/slurm.conf" >"$work/c/slurm-nofilter.conf"
echo "== srun -N2 true, $runs runs each, rotating: no atoll at all / atoll.so on fabric.view /"
echo "   atoll.so and cli_filter.lua (the full install) / atoll.so on a whole fabric.json"
: >"$work/t.none"
: >"$work/t.view"
: >"$work/t.full"
: >"$work/t.json"
timed() {  # FILE [SLURM_CONF]: append the wall time of srun -N2 true, in seconds (ns clock)
    a=$(date +%s%N)
    SLURM_CONF=${2:-$work/c/slurm.conf} srun -N2 true
    b=$(date +%s%N)
    echo "$(( (b - a) / 1000 ))" | awk '{printf "%.4f\n", $1 / 1e6}' >>"$1"
}
i=0
while [ $i -lt "$runs" ]; do
    : >"$work/c/plugstack.conf"
    timed "$work/t.none" "$work/c/slurm-nofilter.conf"
    echo "$with_view" >"$work/c/plugstack.conf"
    timed "$work/t.view" "$work/c/slurm-nofilter.conf"
    timed "$work/t.full"
    echo "$with_plugin" >"$work/c/plugstack.conf"
    timed "$work/t.json" "$work/c/slurm-nofilter.conf"
    i=$((i + 1))
done
echo "$with_view" >"$work/c/plugstack.conf"
median() { sort -n "$1" | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
mn=$(median "$work/t.none") mv=$(median "$work/t.view") mf=$(median "$work/t.full") mj=$(median "$work/t.json")
ratio() { echo "$1 / $mn" | bc -l | cut -c1-5; }
echo "median: no atoll $mn s; atoll.so on fabric.view $mv s (x$(ratio "$mv")); with cli_filter.lua too $mf s (x$(ratio "$mf")); atoll.so on fabric.json $mj s (x$(ratio "$mj"))"

[ "$jobs" -gt 0 ] || exit 0
# the job stream: Curie, first $jobs jobs, scaled
gunzip -c "$src/bench/data/curie_multinode_14d.csv.gz" | awk -F, -v n="$jobs" -v load="$load" '
    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { row[NR - 1] = $0 }
    END {
        stride = int((NR - 1) / n); if (stride < 1) stride = 1
        for (j = 1; j <= n && j * stride <= NR - 1; j++) {
            split(row[j * stride], f, ",")
            s = int(f[c["nodes"]] / 2 + 0.5); if (s < 2) s = 2; if (s > 32) s = 32
            d = f[c["duration_s"]] / 600; if (d < 2) d = 2; if (d > 20) d = 20
            k++; sub_t[k] = f[c["submit_s"]]; size[k] = s; dur[k] = int(d + 0.5); work += s * int(d + 0.5)
        }
        span = work / (64 * load); t0 = sub_t[1]; raw = sub_t[k] - t0; if (raw <= 0) raw = 1
        for (i = 1; i <= k; i++) printf "%d %.2f %d %d\n", i, (sub_t[i] - t0) * span / raw, size[i], dur[i]
    }' >"$work/stream"
awk '{n[$3 <= 8 ? "leaf-fitting" : "multi-leaf"]++; w += $3 * $4} END {
    printf "== job stream: %d jobs (%d need 8 nodes or fewer, %d need 2-4 leaves), %d node-seconds, offered load %s\n",
           NR, n["leaf-fitting"], n["multi-leaf"], w, "'"$load"'" }' "$work/stream"

echo
replay plain plain "$work/stream" "$work"
replay atoll auto "$work/stream" "$work"
replay leaf leaf "$work/stream" "$work"
exit 0
