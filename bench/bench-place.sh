#!/bin/sh
# Placement benchmark: quality on real traces and fabrics, atoll against
# slurm-tree in the same runs, then decision speed on 10,000 hosts.
# Prints figures; asserts nothing.
#   bench/bench-place.sh [BUILDDIR]     (SEEDS, LOAD, WAIT override the defaults)
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
place="$build/tools/atoll-place"
topo="$build/tools/atoll-topo"
work=$(mktemp -d /tmp/atoll-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
seeds=${SEEDS:-5} load=${LOAD:-0.8} wait=${WAIT:-28800}

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

echo "== quality: $seeds seeds (arrival jitter 0.2), offered load $load, backfill depth 500"
echo "   A: atoll and slurm-tree, both waiting up to ${wait} s for their smallest island (like --switches=1@${wait})"
echo "   B: atoll and slurm-tree without waiting (Slurm's default)"
echo "   C: atoll with --split pack, waiting ${wait} s"
echo
for f in selene.txt alibaba.csv ft32x16-1to1.json ft32x16-2to1.json 3level-4pods.json rails8.json; do
    for t in curie_multinode_14d thunder_multinode_14d philly_ge4gpu_jobs; do
        common="--seeds $seeds --load $load"
        "$place" simulate "$work/$f" "$work/$t.csv" $common --policy atoll,slurm-tree --island-wait "$wait" \
            --csv "$work/A.csv" >"$work/A.txt"
        "$place" simulate "$work/$f" "$work/$t.csv" $common --policy atoll,slurm-tree --csv "$work/B.csv" >/dev/null
        "$place" simulate "$work/$f" "$work/$t.csv" $common --policy atoll --split pack --island-wait "$wait" \
            --csv "$work/C.csv" >/dev/null
        head -n 2 "$work/A.txt" | sed 's/^/# /'
        for cfg in A B C; do
            awk -F, -v cfg="$cfg" -v fab="$f" -v tr="$t" '
                NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
                { p = $col["policy"]; n[p]++
                  for (k in want) s[p, k] += $col[k] }
                BEGIN { split("leaf_pct pod_pct excess_leaves utilisation mean_wait fragmentation", ks, " ")
                        for (i in ks) want[ks[i]] = 1 }
                END { for (p in n)
                        printf "%-18s %-22s %s %-11s leaf %6.2f%%  pod %6.2f%%  excess %.3f  util %.3f  wait %8.0f s  frag %.3f\n",
                               fab, tr, cfg, p, s[p, "leaf_pct"] / n[p], s[p, "pod_pct"] / n[p],
                               s[p, "excess_leaves"] / n[p], s[p, "utilisation"] / n[p],
                               s[p, "mean_wait"] / n[p], s[p, "fragmentation"] / n[p] }' "$work/$cfg.csv" | sort
        done
    done
done
echo
echo "== speed: 10,000 hosts on 1,000 leaves, 70 % busy, same state for every policy"
"$build/bench/atoll-bench-place"
