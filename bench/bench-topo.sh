#!/bin/sh
# Discovery benchmark: atoll (parse + graph + tiers + check) against
# `ibnetdiscover --load-cache` on the same fabric, in the same run, and a
# generated fabric ten times Selene's size. Prints figures; asserts nothing.
#   bench/bench-topo.sh [BUILDDIR]
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
work=$(mktemp -d /tmp/atoll-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
bench="$build/bench/atoll-bench-topo"
topo="$build/tools/atoll-topo"
gunzip -c "$src/bench/data/selene-compute.cache.gz" >"$work/selene.cache"
runs=${RUNS:-5}
measure() {  # label command...: best wall time and peak RSS of $runs runs
    label=$1
    shift
    best=
    for i in $(seq "$runs"); do
        /usr/bin/time -f "%e %M" -o "$work/t" "$@" >/dev/null 2>&1 || true  # check exits 3/4 on findings
        read -r s kb <<TIMES
$(tail -n 1 "$work/t")
TIMES
        if [ -z "$best" ] || [ "$(echo "$s < $best" | bc)" = 1 ]; then best=$s rss=$kb; fi
    done
    printf '%-58s %6.2f s  %7.1f MiB peak\n' "$label" "$best" "$(echo "$rss / 1024" | bc -l)"
}
echo "== Selene compute (666 switches, 4341 CAs), best of $runs"
measure "ibnetdiscover --load-cache (text to /dev/null)" ibnetdiscover --load-cache "$work/selene.cache"
measure "atoll-topo check, ibnetdiscover text" "$topo" check "$src/data/fabrics/selene-compute.ibnetdiscover"
measure "atoll-topo check, the same cache file" "$topo" check "$work/selene.cache"
"$bench" "$src/data/fabrics/selene-compute.ibnetdiscover"
"$bench" "$work/selene.cache"
echo "== Generated: 1x and 10x Selene's switch count"
"$topo" generate --pods 8 --groups 7 --rails 8 --hosts 20 --spines 20 --cores 20 -o "$work/1x.net"
"$topo" generate --pods 80 --groups 7 --rails 8 --hosts 20 --spines 20 --cores 20 -o "$work/10x.net"
"$bench" "$work/1x.net"
"$bench" "$work/10x.net"
measure "atoll-topo check, 10x fabric" "$topo" check "$work/10x.net"
