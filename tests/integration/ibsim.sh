#!/bin/sh
# Generated fabrics, run in the ibsim simulator with opensm, discovered by the
# real ibnetdiscover: the graph must equal the generated one, and check must
# report exactly the faults injected.
. "$(dirname "$0")/../lib.sh"
plan 17
UMAD2SIM=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
if ! command -v ibsim >/dev/null || ! command -v ibnetdiscover >/dev/null || ! command -v opensm >/dev/null ||
   [ ! -f "$UMAD2SIM" ]; then
    for i in $(seq 1 17); do skip "ibsim scenario $i" "ibsim-utils, opensm or infiniband-diags not installed"; done
    exit 0
fi
work=$(tmpdir)
cd "$work" || exit 1

# start NAME NETFILE: ibsim on a private socket, then opensm --once to bring
# every port to ACTIVE and assign LIDs (it configures the subnet and exits)
start_fabric() {
    export IBSIM_SOCKNAME="atoll-$$-$1"
    ibsim -s -n "$2" >"$1.ibsim.log" 2>&1 &
    sim=$!
    at_exit "kill -9 $sim 2>/dev/null"
    sleep 0.3
    mkdir -p "$1.osm"
    OSM_TMP_DIR="$work/$1.osm" OSM_CACHE_DIR="$work/$1.osm" LD_PRELOAD=$UMAD2SIM \
        timeout 60 opensm --once -f "$work/$1.osm/opensm.log" >"$1.osm/stdout" 2>&1 ||
        { diag "opensm --once failed: $(tail -3 "$1.osm/stdout")"; return 1; }
}
stop_fabric() {
    kill "$sim" 2>/dev/null
    i=0
    while kill -0 "$sim" 2>/dev/null && [ $i -lt 20 ]; do sleep 0.1; i=$((i + 1)); done
    kill -9 "$sim" 2>/dev/null
    wait "$sim" 2>/dev/null
}
discover() { LD_PRELOAD=$UMAD2SIM timeout 60 ibnetdiscover "$@" 2>/dev/null; }
findings() { "$TOPO" check "$1" | grep -E '^(error|warning):' | cut -d: -f2,3 | sed 's/^ //; s/: / /'; }
summary() { "$TOPO" show --json "$1" | grep -v '"source"'; }

scenario() {
    name=$1
    expected=$2
    shift 2
    "$TOPO" generate "$@" -o "$name.net" || { not_ok "$name: generate"; return; }
    if ! start_fabric "$name" "$name.net"; then
        not_ok "$name: ibsim and opensm start"
        stop_fabric
        return
    fi
    discover >"$name.txt"
    discover --cache "$name.cache" >/dev/null
    # live, through libibnetdisc in atoll-topo itself
    LD_PRELOAD=$UMAD2SIM timeout 60 "$TOPO" discover --ib -o "$name.live.json" 2>"$name.live.err"
    stop_fabric
    "$TOPO" show --links "$name.net" >"$name.want"
    "$TOPO" show --links "$name.txt" >"$name.got"
    if cmp -s "$name.want" "$name.got" && [ "$(summary "$name.net")" = "$(summary "$name.txt")" ]; then
        ok "$name: the discovered graph equals the generated one"
    else
        not_ok "$name: the discovered graph equals the generated one"
        diag "$(diff "$name.want" "$name.got" | head -20)"
    fi
    "$TOPO" show --links "$name.cache" >"$name.cached"
    check "$name: the --cache file gives the same graph" cmp -s "$name.want" "$name.cached"
    "$TOPO" show --links "$name.live.json" >"$name.live" 2>/dev/null
    if cmp -s "$name.want" "$name.live"; then
        ok "$name: discover --ib (live, libibnetdisc) gives the same graph"
    else
        not_ok "$name: discover --ib (live, libibnetdisc) gives the same graph"
        diag "$(cat "$name.live.err" | tail -3)" "$(diff "$name.want" "$name.live" | head -10)"
    fi
    got=$(findings "$name.txt")
    if [ "$got" = "$expected" ]; then
        ok "$name: check reports exactly the injected faults"
    else
        not_ok "$name: check reports exactly the injected faults"
        diag "expected:" "$expected" "got:" "$got"
    fi
}

scenario two-level "" --groups 4 --hosts 8 --spines 2
scenario three-level "" --pods 2 --groups 2 --hosts 4 --spines 2 --cores 2 --oversub 2
pods=$("$TOPO" show --json three-level.txt | grep -A1 '"pod"' | grep -o '"count": [0-9]*')
check "three-level: two pods found" [ "$pods" = '"count": 2' ]
scenario rails-faults "default-description 0x98039b0300000240
degraded-link ib-leaf08[3] - node007 mlx5_3[1]
miswired-rail node002 mlx5_1
miswired-rail node002 mlx5_2
small-rail-group grp-ib-leaf09" \
    --rails 4 --groups 3 --hosts 4 --swap-rails node002:1:2 --degrade node007:3 --drop-leaf ib-leaf10 \
    --default-desc node010:0
"$TOPO" check rails-faults.txt >/dev/null
check "check exits 4 when it finds errors" [ $? -eq 4 ]
"$TOPO" check two-level.txt >/dev/null
check "check exits 0 on a healthy fabric" [ $? -eq 0 ]
# a node name map gives the default-description adapter its name back
echo '0x98039b0300000240 "node010 mlx5_0"' >map
got=$("$TOPO" check --node-name-map map rails-faults.txt | grep -c default-description)
check "--node-name-map names the adapter, the finding goes" [ "$got" = 0 ]
"$TOPO" discover rails-faults.txt -o rails.json && "$TOPO" discover rails.json -o rails2.json
check "discover of its own fabric.json is stable" cmp -s rails.json rails2.json
