#!/bin/sh
# Job completion under the step model (placement/cost.hpp): plain Slurm
# (slurm-tree, no island asked), atoll's auto (an island wait only while the
# expected wait costs less than spanning, at most WAIT; nothing where spanning
# is free) and required islands, each replayed as Slurm runs them: atoll ranks
# the constraint's islands, Slurm's own node choice (slurm-tree, --select)
# picks the hosts inside them, every job
# running as long as the model says for where it landed. Prints figures;
# asserts nothing.
#   bench/bench-cost.sh [BUILDDIR]   (SEEDS, LOAD, WAIT, SHARES, TRACES, FABRICS override the defaults;
#   UPLINK=busy: every job's slowdown under the busy-fabric assumption, simulate --uplink-load;
#   LIMITS=req_time_s: the traces' own time limits, what users asked, for backfill and auto's
#   decision (simulate --columns limit=req_time_s); without it every limit is the run time)
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
place="$build/tools/atoll-place"
topo="$build/tools/atoll-topo"
work=$(mktemp -d /tmp/atoll-bench-cost.XXXXXX)
trap 'rm -rf "$work"' EXIT
seeds=${SEEDS:-3} load=${LOAD:-0.8} wait=${WAIT:-28800}
# S: all-reduce jobs (data parallel) whose communication is S of a step;
# SA: all-to-all jobs (expert parallel), communication S of a step
shares=${SHARES:-0.05 0.3 0.7 0.3A 0.7A}
traces=${TRACES:-thunder_multinode_14d curie_multinode_14d}
fabrics=${FABRICS:-ft32x16-1to1 ft24x12-2to1 ft16x16-4to1} uplink=${UPLINK:-running}
limits=${LIMITS:+--columns limit=$LIMITS}

"$topo" generate --groups 32 --hosts 16 --spines 16 --oversub 1 --format json -o "$work/ft32x16-1to1.json"
"$topo" generate --groups 24 --hosts 12 --spines 6 --oversub 2 --format json -o "$work/ft24x12-2to1.json"
"$topo" generate --groups 16 --hosts 16 --spines 4 --oversub 4 --format json -o "$work/ft16x16-4to1.json"
for t in $traces; do
    gunzip -c "$src/bench/data/$t.csv.gz" >"$work/$t.csv"
done

echo "== $seeds seeds, offered load $load; communication share S of a step on the best placement (A: all-to-all);"
echo "   uplink load: $uplink (simulate --uplink-load); time limits: ${LIMITS:-the run times}"
echo "   plain: slurm-tree, no island; auto: --island-wait $wait --model-wait; required: --fit required (both --leaf-wait 0)"
printf '%-14s %-22s %5s %-9s %16s %8s %12s %10s %8s %7s\n' fabric trace S mode turnaround_s vs_plain makespan_s gpu_h_lost leaf_pct excess
for f in $fabrics; do
    for t in $traces; do
        for s in $shares; do
            plain=0
            for mode in plain auto required; do
                # plain Slurm picks every node itself; atoll's modes ask
                # (islands ranked by atoll) and Slurm picks inside (--select)
                case $mode in
                plain) extra="--policy slurm-tree" ;;
                auto) extra="--policy atoll --select slurm-tree --island-wait $wait --model-wait --leaf-wait 0" ;;
                required) extra="--policy atoll --select slurm-tree --fit required --leaf-wait 0" ;;
                esac
                case $s in
                *A) extra="$extra --all-to-all --comm-share ${s%A}" ;;
                *) extra="$extra --comm-share $s" ;;
                esac
                extra="$extra --uplink-load $uplink $limits"
                # shellcheck disable=SC2086
                "$place" simulate "$work/$f.json" "$work/$t.csv" --seeds "$seeds" --load "$load" \
                    $extra --csv "$work/r.csv" >/dev/null
                # mean turnaround +- 95 % Student t half-width over the seeds
                line=$(awk -F, -v f="$f" -v t="$t" -v s="$s" -v m="$mode" -v plain="$plain" '
                    BEGIN { split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262", t95, " ") }
                    NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
                    { n++; x = $c["mean_turnaround"]; ta += x; tt += x * x; ms += $c["makespan"]
                      gl += $c["gpu_hours_lost"]; lp += $c["leaf_pct"]; ex += $c["excess_leaves"] }
                    END { mt = ta / n; v = n > 1 ? (tt - n * mt * mt) / (n - 1) : 0
                          ci = n > 1 ? (n - 1 <= 9 ? t95[n - 1] : 1.96) * sqrt(v > 0 ? v : 0) / sqrt(n) : 0
                          d = plain > 0 ? sprintf("%+.1f%%", 100 * (mt / plain - 1)) : "-"
                          printf "%.0f %-14s %-22s %5s %-9s %9.0f+-%-5.0f %8s %12.0f %10.1f %7.2f%% %7.3f\n",
                                 mt, f, t, s, m, mt, ci, d, ms / n, gl / n, lp / n, ex / n }' "$work/r.csv")
                [ "$mode" = plain ] && plain=${line%% *}
                echo "${line#* }"
            done
        done
    done
done
