#!/bin/sh
# atoll-place ranks end to end on the 8-rack NVL72 unit of
# tests/data/nvlink/su-nvl72.txt (gb001-gb144, 18 trays of 4 GPUs per domain,
# two domains per leaf island), generated with --domain-size 18: the hostfile
# it writes, the groups it reports, and its errors (usage 2 naming the flag,
# input 1).
. "$(dirname "$0")/../lib.sh"
plan 20
work=$(tmpdir)
"$TOPO" generate --groups 4 --rails 4 --hosts 36 --domain-size 18 --host-prefix gb --format json -o "$work/su.json" \
    --nvlink-output "$work/smi.txt"
check "the generated unit has the fixture's domains" cmp -s "$work/smi.txt" "$DATA/nvlink/su-nvl72.txt"

# TP=4: each TP group of 4 consecutive ranks on one tray, ranks consecutive in
# topology order (what Megatron's generator assumes), so the hostfile's node
# order is atoll-place order's
"$PLACE" ranks "$work/su.json" 'gb[001-144]' --gpus-per-node 4 --tp 4 --output "$work/tp4" >"$work/tp4.out"
check "TP=4: one line per rank, 576" [ "$(wc -l <"$work/tp4")" -eq 576 ]
if [ "$(sed -n 1p "$work/tp4")" = "0 gb001 0" ] && [ "$(sed -n 576p "$work/tp4")" = "575 gb144 3" ]; then
    ok "TP=4: RANK HOST LOCAL_GPU, rank 0 on gb001 GPU 0, 575 on gb144 GPU 3"
else not_ok "TP=4: RANK HOST LOCAL_GPU, rank 0 on gb001 GPU 0, 575 on gb144 GPU 3"; diag "$(head -2 "$work/tp4")"; fi
bad=$(awk '{ g = int($1 / 4); if (g in h && h[g] != $2) n++; h[g] = $2 } END { print n + 0 }' "$work/tp4")
check "TP=4: every TP group (ranks 4k..4k+3) on one tray" [ "$bad" -eq 0 ]
awk '!seen[$2]++ { print $2 }' "$work/tp4" >"$work/tp4.nodes"
"$PLACE" order "$work/su.json" 'gb[001-144]' >"$work/order"
check "TP=4: the node order is atoll-place order's" cmp -s "$work/tp4.nodes" "$work/order"
if grep -q '^  tp        4     144     144       0       0       0       0       0$' "$work/tp4.out" &&
   grep -q '^crossing dp: .*; 572 of 572 neighbours on other nodes on the same rail$' "$work/tp4.out"; then
    ok "TP=4: 144 groups within a node; DP neighbours on other trays on the same rail"
else not_ok "TP=4: 144 groups within a node; DP neighbours on other trays on the same rail"; diag "$(cat "$work/tp4.out")"; fi

# TP=8 x EP=8: Megatron's expert groups are ranks 64k..64k+63, 16 trays; one
# per rack (two need 32 of its 18 trays), 8 whole, the ninth on the 2 trays
# each rack has left
"$PLACE" ranks "$work/su.json" 'gb[001-144]' --gpus-per-node 4 --tp 8 --ep 8 --output "$work/ep" >"$work/ep.out"
if grep -q '^  tp-ep    64       9       0       8       0       0       1       0$' "$work/ep.out"; then
    ok "TP8 x EP8: 8 expert groups in one domain, 1 across the pod"
else not_ok "TP8 x EP8: 8 expert groups in one domain, 1 across the pod"; diag "$(cat "$work/ep.out")"; fi
first=$(awk '$1 < 64 { print $2 }' "$work/ep" | sort -u | tr '\n' ' ')
check "TP8 x EP8: expert group 0 on gb001-gb016" [ "$first" = "$(printf 'gb%03d ' $(seq 1 16))" ]
ninth=$(awk '$1 >= 512 { print $2 }' "$work/ep" | sort -u | tr '\n' ' ')
want=$(for r in 0 1 2 3 4 5 6 7; do printf 'gb%03d gb%03d ' $((18 * r + 17)) $((18 * r + 18)); done)
if [ "$ninth" = "$want" ]; then ok "TP8 x EP8: the ninth group on trays 17-18 of each rack"
else not_ok "TP8 x EP8: the ninth group on trays 17-18 of each rack"; diag "$ninth"; fi
# the cost model: consecutive ranks' slowest expert group is 2 + 14 trays of
# two racks on one leaf (the 2 trays' NICs carry all its traffic between
# the domains), not 4 + 12 across two leaves
if grep -q '^cost tp-ep: all-to-all of 1 GiB on the slowest group .* (16 nodes, 4 leaves), consecutive ranks .* (16 nodes, 1 leaves)$' "$work/ep.out" &&
   grep -q '^cost dp: all-reduce of 1 GiB on the slowest group .* (72 nodes, 4 leaves)' "$work/ep.out"; then
    ok "TP8 x EP8: the cost model prices the slowest expert all-to-all and DP all-reduce"
else not_ok "TP8 x EP8: the cost model prices the slowest expert all-to-all and DP all-reduce"; diag "$(grep ^cost "$work/ep.out")"; fi
"$PLACE" ranks "$work/su.json" 'gb[001-004]' --gpus-per-node 4 --bytes 1X 2>"$work/err" >/dev/null
if [ $? -eq 2 ] && grep -q -- '--bytes: "1X", expected a size' "$work/err"; then ok "a bad --bytes exits 2 naming it"
else not_ok "a bad --bytes exits 2 naming it"; diag "$(head -3 "$work/err")"; fi
"$PLACE" ranks "$work/su.json" 'gb[001-144]' --gpus-per-node 4 --tp 8 --ep 8 --json >"$work/ep.json"
if grep -q '"kind": "tp-ep"' "$work/ep.json" && grep -q '"consecutive": false' "$work/ep.json" &&
   grep -q '"node_order": \[' "$work/ep.json" && grep -q '"collective": "all-to-all"' "$work/ep.json"; then ok "--json: the groups, the choice and the node order"
else not_ok "--json: the groups, the choice and the node order"; diag "$(head -30 "$work/ep.json")"; fi

# TP=8 PP=4 on 72 trays: 216 stage-to-stage rank pairs, 192 in one rack, 16
# across racks of a leaf, 8 (the ninth pipeline's middle) across leaves
"$PLACE" ranks "$work/su.json" 'gb[001-072]' --gpus-per-node 4 --tp 8 --pp 4 >"$work/pp.out"
if grep -q '^  pp/s+1    2     216       0     192      16       0       8       0$' "$work/pp.out"; then
    ok "TP8 PP4: pipeline neighbours in one domain or leaf but the ninth pipeline's middle"
else not_ok "TP8 PP4: pipeline neighbours in one domain or leaf but the ninth pipeline's middle"; diag "$(cat "$work/pp.out")"; fi

# errors: sizes are usage errors naming the flag, hosts input errors
"$PLACE" ranks "$work/su.json" 'gb[001-004]' --gpus-per-node 4 --tp 3 2>"$work/err" >/dev/null
if [ $? -eq 2 ] && grep -q '^atoll-place: --tp: tp x cp x pp = 3 does not divide the 16 GPUs' "$work/err"; then
    ok "a TP that does not divide the GPUs exits 2 naming --tp"
else not_ok "a TP that does not divide the GPUs exits 2 naming --tp"; diag "$(head -3 "$work/err")"; fi
"$PLACE" ranks "$work/su.json" 'gb[001-004]' --gpus-per-node 4 --tp 4 --dp 2 -o "$work/none" 2>"$work/err" >/dev/null
if [ $? -eq 2 ] && grep -q -- '--dp: tp x cp x dp x pp = 8, but the hosts have 16 GPUs' "$work/err" && [ ! -e "$work/none" ]; then
    ok "a product that does not match exits 2 naming --dp, no file written"
else not_ok "a product that does not match exits 2 naming --dp, no file written"; diag "$(head -3 "$work/err")"; fi
"$PLACE" ranks "$work/su.json" 'gb[001-004]' --gpus-per-node 4 --tp 4 --ep 3 2>"$work/err" >/dev/null
if [ $? -eq 2 ] && grep -q -- '--ep: 3 does not divide cp x dp = 4' "$work/err"; then ok "an EP that does not divide cp x dp exits 2 naming --ep"
else not_ok "an EP that does not divide cp x dp exits 2 naming --ep"; diag "$(head -3 "$work/err")"; fi
"$PLACE" ranks "$work/su.json" 'gb[001-004]' --gpus-per-node 4 --order tp-mp-dp 2>"$work/err" >/dev/null
if [ $? -eq 2 ] && grep -q -- '--order: "tp-mp-dp": "mp" is not one of tp, cp, ep, dp, pp' "$work/err"; then ok "an unknown order token exits 2 naming --order"
else not_ok "an unknown order token exits 2 naming --order"; diag "$(head -3 "$work/err")"; fi
"$PLACE" ranks "$work/su.json" 'gb[001-003],gb999' --gpus-per-node 4 2>"$work/err" >/dev/null
if [ $? -eq 1 ] && grep -q 'ranks: host .gb999. is not in the fabric' "$work/err"; then ok "an unknown host exits 1 naming it"
else not_ok "an unknown host exits 1 naming it"; diag "$(head -3 "$work/err")"; fi
"$PLACE" ranks "$work/su.json" 'gb[001-004]' --tp 4 2>"$work/err" >/dev/null
if [ $? -eq 2 ] && grep -q -- '--gpus-per-node: required' "$work/err"; then ok "--gpus-per-node is required (exit 2)"
else not_ok "--gpus-per-node is required (exit 2)"; diag "$(head -3 "$work/err")"; fi
"$PLACE" ranks "$work/su.json" 'gb[001-004]' --gpus-per-node 4 --tp 0 2>"$work/err" >/dev/null
check "--tp 0 exits 2" [ $? -eq 2 ]
