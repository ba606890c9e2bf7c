#!/bin/sh
# Generated fabrics, run in the ibsim simulator with opensm, discovered by the
# real ibnetdiscover: the graph must equal the generated one, and check must
# report exactly the faults injected.
. "$(dirname "$0")/../lib.sh"
plan 23
UMAD2SIM=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
if ! command -v ibsim >/dev/null || ! command -v ibnetdiscover >/dev/null || ! command -v opensm >/dev/null ||
   [ ! -f "$UMAD2SIM" ]; then
    for i in $(seq 1 23); do skip "ibsim scenario $i" "ibsim-utils, opensm or infiniband-diags not installed"; done
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
    if [ "${ATOLL_SANITIZERS:-no}" = yes ]; then
        skip "$name: discover --ib (live, libibnetdisc) gives the same graph" "umad2sim overruns its read buffer under ASan (the simulator's shim, not atoll)"
    elif cmp -s "$name.want" "$name.live"; then
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

# Hostile node descriptions: whoever is root on a node sets its description.
# Through ibnetdiscover's text, its --cache file and live libibnetdisc (raw
# bytes: a newline put into the cache file), the adapters are refused with a
# warning and no output a shell or slurm.conf reads carries them.
"$TOPO" generate --groups 2 --hosts 4 -o hostile0.net
sed -e 's/"node001 mlx5_0"/"node001;touch${IFS}\/tmp\/atoll-pwned mlx5_0"/g' \
    -e 's/"node002 mlx5_0"/"node002 PrologSlurmctld=\/x"/g' -e 's/"node003 mlx5_0"/"node003$(reboot) mlx5_0"/g' \
    hostile0.net >hostile.net
if start_fabric hostile hostile.net; then
    discover >hostile.txt
    discover --cache hostile.cache >/dev/null
    LD_PRELOAD=$UMAD2SIM timeout 60 "$TOPO" discover --ib -o hostile.live.json 2>hostile.live.err
fi
stop_fabric
# the cache holds each description as 64 raw bytes: make one a newline
printf 'node004\nmlx5_0' >nl.desc
python3 - hostile.cache <<'PY' 2>/dev/null || perl -0777 -pi -e 's/node004 mlx5_0/node004\nmlx5_0/g' hostile.cache
import sys
p = sys.argv[1]
b = open(p, 'rb').read().replace(b'node004 mlx5_0', b'node004\nmlx5_0')
open(p, 'wb').write(b)
PY
live=hostile.live.json
[ "${ATOLL_SANITIZERS:-no}" = yes ] && live=
for src in hostile.txt hostile.cache $live; do
    out=$("$TOPO" slurm --format scontrol "$src" 2>"$src.err"; "$TOPO" slurm --format features "$src" 2>/dev/null;
          "$TOPO" slurm "$src" 2>/dev/null; "$TOPO" slurm --format k8s-labels "$src" 2>/dev/null)
    # node004's newline is in the cache file alone
    want=5 gone='node00[1-3]'
    [ "$src" = hostile.cache ] && want=4 gone='node00[1-4]'
    nodes=$(printf '%s\n' "$out" | grep -c '^scontrol update NodeName=node00[4-8] ')
    if printf '%s\n' "$out" | grep -q -e "$gone" -e 'reboot' -e 'touch' -e 'Prolog' -e '^mlx5'; then
        not_ok "hostile descriptions ($src): nothing of them reaches Slurm's files or shell lines"; diag "$out"
    elif [ "$nodes" -ne "$want" ]; then
        not_ok "hostile descriptions ($src): nothing of them reaches Slurm's files or shell lines"; diag "$out"
    else
        ok "hostile descriptions ($src): nothing of them reaches Slurm's files or shell lines"
    fi
done
# one warning per refused adapter, naming the line for text input, bytes escaped
if grep -q "^atoll-topo: warning: hostile.txt:[0-9]*: adapter 0x[0-9a-f]*, node description 'node001;touch\${IFS}/tmp/atoll-pwned mlx5_0': host name .* refused" hostile.txt.err &&
   grep -q "node description 'node004\\\\nmlx5_0'" hostile.cache.err &&
   [ "$(grep -c 'refused' hostile.txt.err)" -eq 3 ] && [ "$(grep -c 'refused' hostile.cache.err)" -eq 4 ]; then
    ok "each refused adapter is one warning: FILE:LINE for text, the newline shown as \\n"
else
    not_ok "each refused adapter is one warning: FILE:LINE for text, the newline shown as \\n"; diag "$(cat hostile.txt.err hostile.cache.err)"
fi
check "a refused name makes check exit 4" sh -c '"$1" check hostile.txt >/dev/null 2>&1; [ $? -eq 4 ]' _ "$TOPO"
check "nothing ran: /tmp/atoll-pwned does not exist" [ ! -e /tmp/atoll-pwned ]
[ -z "$live" ] && skip "hostile descriptions (live): nothing of them reaches Slurm's files" "umad2sim overruns its read buffer under ASan"
true
