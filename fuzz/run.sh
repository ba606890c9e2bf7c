#!/bin/sh
# Fuzz every reader with libFuzzer (Debian's clang), AddressSanitizer and
# UndefinedBehaviorSanitizer, from a seed corpus of the project's fixtures.
#   fuzz/run.sh [SECONDS-PER-TARGET] [TARGET...]     (default 60, every target)
# Builds into ${ATOLL_FUZZ_BUILD:-fuzz-build} beside the sources, prints one TAP
# line per target and the CPU seconds and runs each took; a crash fails its
# target and is copied to fuzz/found/TARGET/ (then reduce it, fix the bug and
# move it to fuzz/regress/TARGET/, which make check replays).
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-60}
[ $# -gt 0 ] && shift
targets=${*:-"ibnetdiscover namemap fabricjson csv aws gcp oci nebius hostmap lldp view hostlist scontrol trace slurmconf mlnxqos ethtool healthpolicy healthresults ncclconf ofinccl report nvlink ranks squeue procdevices plugstack userconf nodejson"}
out=${ATOLL_FUZZ_BUILD:-$here/fuzz-build}
CXX=${FUZZ_CXX:-clang++}
command -v "$CXX" >/dev/null || { echo "1..0 # SKIP $CXX not installed"; exit 0; }
mkdir -p "$out/obj"
flags="-std=c++17 -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -I$here -I/usr/include"
# every library source the readers link against: the four libraries' C++
# files, so a new one is never missed, less the two that need what the fuzz
# build leaves out: ibnetdisc.cpp (libibnetdisc; noibnetdisc.cpp stands in)
# and nodeview.cpp (the node library, with gpu_hca.c over hwloc)
srcs=$(cd "$here" && ls topology/*.cpp placement/*.cpp slurm/*.cpp node/*.cpp spank/config.cpp | grep -v -e '^topology/ibnetdisc\.cpp$' -e '^node/nodeview\.cpp$')
objs=
# an object is stale when its source or any header changed since it was built
mkdir -p "$out/obj"
if [ -f "$out/obj/.built" ] && [ -n "$(find "$here/topology" "$here/placement" "$here/slurm" "$here/node" "$here/spank" -name '*.h*' -newer "$out/obj/.built" 2>/dev/null | head -1)" ]; then
    rm -f "$out"/obj/*.o
fi
# the stale ones compiled one per core (ATOLL_FUZZ_JOBS, below)
lanes=${ATOLL_FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
[ "$lanes" -ge 1 ] 2>/dev/null || lanes=1
stale=
for s in $srcs; do
    o="$out/obj/$(echo "$s" | tr / _).o"
    objs="$objs $o"
    if [ ! -f "$o" ] || [ "$here/$s" -nt "$o" ]; then
        rm -f "$o"
        stale="$stale $s"
    fi
done
if [ -n "$stale" ]; then
    export CXX flags here out
    # shellcheck disable=SC2016,SC2086
    printf '%s\n' $stale | xargs -P "$lanes" -n 1 sh -c \
        '$CXX $flags -c "$here/$1" -o "$out/obj/$(echo "$1" | tr / _).o" 2>"$out/obj/$(echo "$1" | tr / _).log"' sh
    for s in $stale; do
        o="$out/obj/$(echo "$s" | tr / _).o"
        [ -f "$o" ] || { echo "1..1"; echo "not ok 1 - fuzz build: $s"; sed 's/^/# /' "$out/obj/$(echo "$s" | tr / _).log" | head -20; exit 1; }
    done
fi
touch "$out/obj/.built"
# one libFuzzer program for every target (its name picks the target: fuzz-NAME
# is a link to it), compiled and linked once
# shellcheck disable=SC2086
if ! $CXX $flags -fsanitize=fuzzer -DATOLL_FUZZ_LIBFUZZER "$here/fuzz/harness.cpp" $objs -o "$out/fuzz-atoll" 2>"$out/fuzz-atoll.build.log"; then
    echo "1..1"
    echo "not ok 1 - fuzz build: fuzz/harness.cpp (see $out/fuzz-atoll.build.log)"
    sed 's/^/# /' "$out/fuzz-atoll.build.log" | head -20
    exit 1
fi
n=0
for t in $targets; do n=$((n + 1)); done
echo "1..$n"
# one target: seed, fuzz; its TAP line on stdout
one() {
    i=$1 t=$2
    bin="$out/fuzz-$t"
    ln -sf fuzz-atoll "$bin"
    corpus="$out/corpus-$t"
    mkdir -p "$corpus" "$here/fuzz/found/$t"
    case $t in
    ibnetdiscover) seeds="$here/tests/data/ibnetdiscover/* $here/tests/data/ibnetdiscover-p/* $here/tests/data/ibsim/*/ibnetdiscover*.txt" ;;
    namemap) seeds="$here/fuzz/seeds/namemap/*" ;;
    fabricjson) seeds="$here/fuzz/seeds/fabricjson/*" ;;
    csv) seeds="$here/tests/data/csv/*" ;;
    aws | gcp | oci | nebius) seeds="$here/tests/data/cloud/*" ;;
    hostmap) seeds="$here/fuzz/seeds/hostmap/*" ;;
    lldp) seeds="$here/tests/data/lldp/*" ;;
    nodejson) seeds="$here/tests/data/lldp/rails8/nospeed/*.node.json $here/tests/data/lldp/rails8/dgx/*.node.json" ;;
    view) seeds="$here/fuzz/seeds/view/*" ;;
    hostlist) seeds="$here/fuzz/seeds/hostlist/*" ;;
    scontrol) seeds="$here/fuzz/seeds/scontrol/*" ;;
    trace) seeds="$here/fuzz/seeds/trace/*" ;;
    slurmconf) seeds="$here/fuzz/seeds/slurmconf/*" ;;
    mlnxqos) seeds="$here/tests/data/health/*.mlnx_qos $here/fuzz/seeds/mlnxqos/*" ;;
    ethtool) seeds="$here/tests/data/health/*.ethtool" ;;
    healthpolicy) seeds="$here/fuzz/seeds/healthpolicy/*" ;;
    healthresults) seeds="$here/fuzz/seeds/healthresults/*" ;;
    ncclconf) seeds="$here/tests/data/cloudenv/*.nccl.conf" ;;
    ofinccl) seeds="$here/fuzz/seeds/ofinccl/*" ;;
    report) seeds="$here/tests/data/ibnetdiscover/*.topo $here/tests/data/ibnetdiscover/director_mcs8500_hand.txt $here/fuzz/seeds/report/*" ;;
    nvlink) seeds="$here/tests/data/nvlink/*.txt" ;;
    ranks) seeds="$here/fuzz/seeds/ranks/*" ;;
    squeue) seeds="$here/fuzz/seeds/squeue/*" ;;
    procdevices) seeds="$here/fuzz/seeds/procdevices/*" ;;
    plugstack) seeds="$here/fuzz/seeds/plugstack/*" ;;
    userconf) seeds="$here/tests/data/ucx/ucx.conf $here/tests/data/cloudenv/*.nccl.conf" ;;
    esac
    for s in $seeds $here/fuzz/regress/$t/*; do [ -f "$s" ] && cp "$s" "$corpus/" 2>/dev/null; done
    start=$(cut -d' ' -f14,15 /proc/self/stat 2>/dev/null)
    t0=$(date +%s)
    ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
        "$bin" "$corpus" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=262144 \
        -artifact_prefix="$here/fuzz/found/$t/" -print_final_stats=1 >"$out/$t.log" 2>&1
    rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$t.log")
    if [ $rc -eq 0 ]; then
        echo "ok $i - fuzz $t: ${runs:-?} runs in $(( $(date +%s) - t0 )) s, no crash"
    else
        echo "not ok $i - fuzz $t: crash or sanitizer report after ${runs:-?} runs (see $out/$t.log; input in fuzz/found/$t/)"
        grep -m5 -E 'ERROR|runtime error|SUMMARY' "$out/$t.log" | sed 's/^/# /'
    fi
}

# the targets in lanes, one per core (ATOLL_FUZZ_JOBS), each lane its targets in
# turn: the whole run takes about (targets / lanes) x SECONDS; the lines are
# printed in the targets' order once all have run
lane=0
while [ $lane -lt "$lanes" ]; do
    (
        i=0
        for t in $targets; do
            i=$((i + 1))
            [ $(((i - 1) % lanes)) -eq $lane ] && one "$i" "$t" >"$out/$t.tap" 2>&1
        done
    ) &
    lane=$((lane + 1))
done
wait
i=0
for t in $targets; do
    i=$((i + 1))
    if [ -s "$out/$t.tap" ]; then cat "$out/$t.tap"; else echo "not ok $i - fuzz $t: no result"; fi
    rm -f "$out/$t.tap"
done
