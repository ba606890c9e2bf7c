#!/bin/sh
# Placement benchmark: quality on real traces and fabrics, atoll against
# slurm-tree in the same runs, then decision speed on 10,000 hosts.
# Prints figures; asserts nothing.
#   bench/bench-place.sh [BUILDDIR]     (SEEDS, LOAD, WAIT, LEAFWAIT, FRONTIER override the defaults)
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
place="$build/tools/atoll-place"
topo="$build/tools/atoll-topo"
work=$(mktemp -d /tmp/atoll-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
seeds=${SEEDS:-5} load=${LOAD:-0.8} wait=${WAIT:-28800} leafwait=${LEAFWAIT:-3600}

# fabrics
cp "$src/data/fabrics/selene-compute.ibnetdiscover" "$work/selene.txt"
cp "$src/tests/data/csv/crux_topology_hosts.csv" "$work/alibaba.csv"
"$topo" generate --groups 32 --hosts 16 --spines 16 --oversub 1 --format json -o "$work/ft32x16-1to1.json"
"$topo" generate --groups 32 --hosts 16 --spines 8 --oversub 2 --format json -o "$work/ft32x16-2to1.json"
"$topo" generate --pods 4 --groups 8 --hosts 16 --spines 8 --cores 8 --format json -o "$work/3level-4pods.json"
"$topo" generate --pods 4 --groups 4 --rails 8 --hosts 32 --spines 8 --cores 8 --format json -o "$work/rails8.json"
for t in curie_multinode_14d thunder_multinode_14d philly_ge4gpu_jobs; do
    gunzip -c "$src/bench/data/$t.csv.gz" >"$work/$t.csv"
done

# summary CONFIG FABRIC TRACE RUNS.csv: one line per policy, means and 95 % CIs over the seeds
summary() {
    awk -F, -v cfg="$1" -v fab="$2" -v tr="$3" '
        NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
        { p = $col["policy"]; n[p]++
          for (k in want) { s[p, k] += $col[k]; ss[p, k] += $col[k] * $col[k] } }
        # 95 % Student t half-width of the mean over the seeds
        function ci(p, k,   m, v) {
            if (n[p] < 2) return 0
            m = s[p, k] / n[p]; v = (ss[p, k] - n[p] * m * m) / (n[p] - 1)
            return (n[p] - 1 <= 9 ? t95[n[p] - 1] : 1.96) * sqrt(v > 0 ? v : 0) / sqrt(n[p]) }
        BEGIN { split("leaf_pct pod_pct excess_leaves utilisation mean_wait fragmentation", ks, " ")
                for (i in ks) want[ks[i]] = 1
                split("12.706 4.303 3.182 2.776 2.571 2.447 2.365 2.306 2.262", t95, " ") }
        END { for (p in n)
                printf "%-18s %-22s %s %-11s leaf %6.2f%%  pod %6.2f%%  excess %.3f  util %.3f+-%.3f  wait %6.0f+-%-5.0f s  frag %.3f\n",
                       fab, tr, cfg, p, s[p, "leaf_pct"] / n[p], s[p, "pod_pct"] / n[p],
                       s[p, "excess_leaves"] / n[p], s[p, "utilisation"] / n[p], ci(p, "utilisation"),
                       s[p, "mean_wait"] / n[p], ci(p, "mean_wait"), s[p, "fragmentation"] / n[p] }' "$4" | sort
}

echo "== quality: $seeds seeds (arrival jitter 0.2), offered load $load, backfill depth 500"
echo "   A: atoll and slurm-tree, each job required in its smallest island (what --fabric-island=LEVEL:required does)"
echo "   B: atoll and slurm-tree without waiting (Slurm's default)"
echo "   C: atoll and slurm-tree, waiting up to ${wait} s for the smallest island, then widening (preferred)"
echo "   D: atoll with --split pack, required"
echo "   E: atoll and slurm-tree, required, and waiting up to ${leafwait} s for the fewest leaves (what --switches=K@time adds)"
echo "   G: atoll and slurm-tree, required, with the plugin's defaults: the fewest leaves waited for up to its leaf_wait (600 s)"
echo
for f in selene.txt alibaba.csv ft32x16-1to1.json ft32x16-2to1.json 3level-4pods.json rails8.json; do
    for t in curie_multinode_14d thunder_multinode_14d philly_ge4gpu_jobs; do
        common="--seeds $seeds --load $load"
        "$place" simulate "$work/$f" "$work/$t.csv" $common --policy atoll,slurm-tree --fit required --leaf-wait 0 \
            --csv "$work/A.csv" >"$work/A.txt"
        "$place" simulate "$work/$f" "$work/$t.csv" $common --policy atoll,slurm-tree --csv "$work/B.csv" >/dev/null
        "$place" simulate "$work/$f" "$work/$t.csv" $common --policy atoll,slurm-tree --island-wait "$wait" --leaf-wait 0 \
            --csv "$work/C.csv" >/dev/null
        "$place" simulate "$work/$f" "$work/$t.csv" $common --policy atoll --split pack --fit required --leaf-wait 0 \
            --csv "$work/D.csv" >/dev/null
        "$place" simulate "$work/$f" "$work/$t.csv" $common --policy atoll,slurm-tree --fit required \
            --leaf-wait "$leafwait" --csv "$work/E.csv" >/dev/null
        "$place" simulate "$work/$f" "$work/$t.csv" $common --policy atoll,slurm-tree --fit required \
            --csv "$work/G.csv" >/dev/null
        grep -E '^(fabric|leaves|trace):' "$work/A.txt" | sed 's/^/# /'
        for cfg in A B C D E G; do
            summary "$cfg" "$f" "$t" "$work/$cfg.csv"
        done
    done
done
echo
echo "== the Alibaba Clos: the leaf wait against excess leaves (F<seconds>: E with that leaf wait)"
echo "   Its 8-host leaves hold 64 % of the hosts, but most of the work is in jobs that reach the"
echo "   fewest leaves only on whole 8-host leaves (the leaves: line), so they queue for those leaves."
for t in curie_multinode_14d thunder_multinode_14d; do
    for lw in ${FRONTIER:-3600 14400 86400 259200}; do
        "$place" simulate "$work/alibaba.csv" "$work/$t.csv" --seeds "$seeds" --load "$load" \
            --policy atoll,slurm-tree --fit required --leaf-wait "$lw" --csv "$work/F.csv" >/dev/null
        summary "F$lw" alibaba.csv "$t" "$work/F.csv"
    done
done
echo
echo "== speed: 10,000 hosts on 1,000 leaves, 70 % busy, same state for every policy"
"$build/bench/atoll-bench-place"
echo "== speed: 100,000 hosts, 70 % busy: 1,000 leaves of 100, then 10,000 leaves of 10"
"$build/bench/atoll-bench-place" 10 100 100 2000
"$build/bench/atoll-bench-place" 10 1000 10 1000
