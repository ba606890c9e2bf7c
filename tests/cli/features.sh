#!/bin/sh
# Every island the requests table (job_submit.lua) and atoll-place can ask
# Slurm for is a node feature of the features include, on fabrics where a rail
# group holds the same hosts as its leaf (not rail-optimised) and where it
# does not: a --fabric-island=group job is never "Invalid feature
# specification" (red team of issue 27).
. "$(dirname "$0")/../lib.sh"
work=$(tmpdir)
plan 3
for shape in "--groups 2 --hosts 2 --rails 1" "--pods 2 --groups 2 --hosts 2 --rails 1" "--groups 2 --hosts 4 --rails 2"; do
    # shellcheck disable=SC2086
    "$TOPO" generate $shape --format json -o "$work/f.json" 2>/dev/null
    "$TOPO" slurm --format features "$work/f.json" -o "$work/features.conf" 2>/dev/null
    "$TOPO" slurm --format requests "$work/f.json" -o "$work/requests.conf" 2>/dev/null
    have=$(sed -n 's/.* Features=\([^ ]*\).*/\1/p' "$work/features.conf" | tr ',' '\n' | sort -u)
    asked=$(grep -v '^#' "$work/requests.conf" | awk '$5 != "refuse" && $8 != "-" { print $8 }' | tr '|' '\n' | sort -u)
    missing=$(printf '%s\n' "$asked" | while read -r n; do [ -n "$n" ] && ! printf '%s\n' "$have" | grep -qx "$n" && echo "$n"; done)
    if [ -n "$asked" ] && [ -z "$missing" ]; then ok "generate $shape: every island the requests table asks for is a node feature"
    else not_ok "generate $shape: every island the requests table asks for is a node feature"; diag "asked: $(echo $asked)" "missing: $(echo $missing)"; fi
done
