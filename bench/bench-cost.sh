#!/bin/sh
# Job completion under the step model (placement/cost.hpp): plain Slurm
# (slurm-tree, no island asked), atoll's auto (an island wait bounded by what
# spanning would cost, at most WAIT) and required islands, each replayed with
# Slurm's own node choice (slurm-tree) inside atoll's requests, every job
# running as long as the model says for where it landed. Prints figures;
# asserts nothing.
#   bench/bench-cost.sh [BUILDDIR]   (SEEDS, LOAD, WAIT, SHARES, TRACES override the defaults)
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
place="$build/tools/atoll-place"
topo="$build/tools/atoll-topo"
work=$(mktemp -d /tmp/atoll-bench-cost.XXXXXX)
trap 'rm -rf "$work"' EXIT
seeds=${SEEDS:-3} load=${LOAD:-0.8} wait=${WAIT:-28800}
shares=${SHARES:-0.05 0.3 0.7}
traces=${TRACES:-thunder_multinode_14d curie_multinode_14d}

"$topo" generate --groups 32 --hosts 16 --spines 16 --oversub 1 --format json -o "$work/ft32x16-1to1.json"
"$topo" generate --groups 24 --hosts 12 --spines 6 --oversub 2 --format json -o "$work/ft24x12-2to1.json"
"$topo" generate --groups 16 --hosts 16 --spines 4 --oversub 4 --format json -o "$work/ft16x16-4to1.json"
for t in $traces; do
    gunzip -c "$src/bench/data/$t.csv.gz" >"$work/$t.csv"
done

echo "== $seeds seeds, offered load $load; communication share S of a step on the best placement"
echo "   plain: slurm-tree, no island; auto: --island-wait $wait --model-wait; required: --fit required"
printf '%-18s %-22s %5s %-9s %14s %12s %10s %8s %8s\n' fabric trace S mode turnaround_s makespan_s gpu_h_lost leaf_pct excess
for f in ft32x16-1to1 ft24x12-2to1 ft16x16-4to1; do
    for t in $traces; do
        for s in $shares; do
            for mode in plain auto required; do
                case $mode in
                plain) extra="" ;;
                auto) extra="--island-wait $wait --model-wait" ;;
                required) extra="--fit required" ;;
                esac
                # shellcheck disable=SC2086
                "$place" simulate "$work/$f.json" "$work/$t.csv" --seeds "$seeds" --load "$load" \
                    --policy slurm-tree --comm-share "$s" $extra --csv "$work/r.csv" >/dev/null
                awk -F, -v f="$f" -v t="$t" -v s="$s" -v m="$mode" '
                    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
                    { n++; ta += $c["mean_turnaround"]; ms += $c["makespan"]; gl += $c["gpu_hours_lost"]
                      lp += $c["leaf_pct"]; ex += $c["excess_leaves"] }
                    END { printf "%-18s %-22s %5s %-9s %14.0f %12.0f %10.1f %7.2f%% %8.3f\n",
                          f, t, s, m, ta / n, ms / n, gl / n, lp / n, ex / n }' "$work/r.csv"
            done
        done
    done
done
