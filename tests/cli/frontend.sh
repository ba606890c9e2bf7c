#!/bin/sh
# A GPU host's front-end NIC (eno1 to a management switch, beside 8 x 400G
# rails ens1np0..ens8np0 to 8 rail leaves) is no rail: lldpcli tables of 4
# such hosts and their leaves and spines (tests/data/lldp/rails8) in json and
# keyvalue, with speeds, with HOST.node.json instead, with neither, and the
# admin's --frontend / --compute. Expected values are the fabric as cabled.
. "$(dirname "$0")/../lib.sh"
plan 24
work=$(tmpdir)
d="$DATA/lldp/rails8"
view_hcas="ens1np0:1,ens2np0:1,ens3np0:1,ens4np0:1,ens5np0:1,ens6np0:1,ens7np0:1,ens8np0:1"
# compute_only NAME ARGS...: rails 8, mgmt01 in no island nor topology.conf,
# the view's host lines without eno1, check names eno1 on gpu[01-04]
compute_only() {
    name=$1
    shift
    "$TOPO" show "$@" >"$work/show" 2>&1
    "$TOPO" slurm "$@" >"$work/tree" 2>&1
    "$TOPO" slurm --format view "$@" >"$work/view" 2>&1
    "$TOPO" check "$@" >"$work/check" 2>&1
    if grep -q "^rails:     8 (ens1np0 ens2np0 ens3np0 ens4np0 ens5np0 ens6np0 ens7np0 ens8np0), rail-optimised$" "$work/show" &&
        grep -q "^switches:  10 (leaf 8, spine 2)" "$work/show"; then ok "$name: 8 rails, 8 leaves and 2 spines"
    else not_ok "$name: 8 rails, 8 leaves and 2 spines"; diag "$(cat "$work/show")"; fi
    if [ "$(grep -c "^host gpu0[1-4] 0 1 $view_hcas 1 -1 - -\$" "$work/view")" -eq 4 ] && ! grep -q "eno1\|mgmt01" "$work/view" "$work/tree" &&
        grep -q "^SwitchName=grp-leaf-r1 Nodes=gpu\[01-04\]$" "$work/tree"; then ok "$name: no eno1 in the view, mgmt01 in no island nor topology.conf"
    else not_ok "$name: no eno1 in the view, mgmt01 in no island nor topology.conf"; diag "$(cat "$work/view" "$work/tree")"; fi
    if grep -q "^warning: frontend-nic: gpu\[01-04\]: front-end NIC eno1 (.*to mgmt01): " "$work/check" &&
        grep -q "^${findings:-1 findings: 0 errors, 1 warnings}\$" "$work/check"; then ok "$name: check names eno1 as front-end"
    else not_ok "$name: check names eno1 as front-end"; diag "$(cat "$work/check")"; fi
}
compute_only "json, MAU speeds" "$d/json"
compute_only "keyvalue, MAU speeds" "$d/keyvalue"
# node.json tells eno1 out (no RDMA port), but its eight RDMA ports are of one
# speed: a storage ConnectX as fast would be among them, so check also warns
# undecided-nics (a helper's attack: a 400G front-end ConnectX became a rail)
findings="2 findings: 0 errors, 2 warnings"
compute_only "no speeds, HOST.node.json" "$d/nospeed"
findings=
if grep -q "^warning: undecided-nics: gpu\[01-04\]" "$work/check"; then ok "no speeds, HOST.node.json: eight RDMA ports of one speed stay undecided"
else not_ok "no speeds, HOST.node.json: eight RDMA ports of one speed stay undecided"; diag "$(cat "$work/check")"; fi
mkdir "$work/bare"
cp "$d"/nospeed/*.keyvalue "$work/bare"
compute_only "no speeds, --frontend eno1" --frontend eno1 "$work/bare"
# nothing tells eno1 apart: check says so (and eno1 is a 9th rail)
"$TOPO" check "$work/bare" >"$work/check" 2>&1
if grep -q "^warning: undecided-nics: gpu\[01-04\]: host interfaces could not be told apart" "$work/check"; then ok "no speeds, no node.json: check says the NICs could not be told apart"
else not_ok "no speeds, no node.json: check says the NICs could not be told apart"; diag "$(cat "$work/check")"; fi
# discover keeps the split: check on its fabric.json says what check on the tables said
"$TOPO" discover -o "$work/fabric.json" "$d/json" 2>/dev/null
# (the warning that switches were taken on their neighbours' word is the
# tables' reading, said at discovery, not a finding kept in fabric.json)
"$TOPO" check "$d/json" 2>&1 | grep -v ': taken for switches because' >"$work/a"
"$TOPO" check "$work/fabric.json" >"$work/b" 2>&1
if cmp -s "$work/a" "$work/b"; then ok "fabric.json keeps the front-end NICs for check"; else not_ok "fabric.json keeps the front-end NICs for check"; diag "$(diff "$work/a" "$work/b")"; fi
# the options are for LLDP tables only
"$TOPO" show --frontend eno1 "$DATA/ibsim/fattree_4x8_2s/ibnetdiscover.txt" >/dev/null 2>"$work/err"
if [ $? -eq 2 ] && grep -q "^atoll-topo: --frontend: only for LLDP tables" "$work/err"; then ok "--frontend on ibnetdiscover input is a usage error"
else not_ok "--frontend on ibnetdiscover input is a usage error"; diag "$(cat "$work/err")"; fi
# a CPU partition beside the GPU hosts (rails8/mixed: six one-NIC CPU hosts at
# 100G on leaf-cpu, more than the four GPU hosts): the GPU hosts keep their
# eight rails in the plugin's view, the CPU hosts their one, and 100G links of
# another class of hosts are no degraded links
m="$d/mixed"
"$TOPO" show "$m" >"$work/show" 2>&1
"$TOPO" slurm --format view "$m" >"$work/view" 2>&1
"$TOPO" check "$m" >"$work/check" 2>&1
if grep -q "^rails:     8 (ens1np0 ens2np0 ens3np0 ens4np0 ens5np0 ens6np0 ens7np0 ens8np0), rail-optimised$" "$work/show"; then ok "mixed: 8 rails, rail-optimised"
else not_ok "mixed: 8 rails, rail-optimised"; diag "$(cat "$work/show")"; fi
if [ "$(grep -c "^host gpu0[1-4] 0 1 $view_hcas 1 -1 - -\$" "$work/view")" -eq 4 ] &&
    [ "$(grep -c "^host cpu0[1-6] 1 1 ens1np0:1 1 -1 - -\$" "$work/view")" -eq 6 ]; then ok "mixed: the GPU hosts' view lines name 8 rails, the CPU hosts' one"
else not_ok "mixed: the GPU hosts' view lines name 8 rails, the CPU hosts' one"; diag "$(cat "$work/view")"; fi
if ! grep -q "^error" "$work/check" && grep -q "^2 findings: 0 errors, 2 warnings$" "$work/check"; then ok "mixed: check finds no error (two front-end warnings)"
else not_ok "mixed: check finds no error (two front-end warnings)"; diag "$(cat "$work/check")"; fi
# two storage ports as fast as the rails, on a storage fabric whose switches'
# tables show it joined to the rails' by no cable (rails8/storage): no rails
s="$d/storage"
"$TOPO" show "$s" >"$work/show" 2>&1
"$TOPO" slurm --format view "$s" >"$work/view" 2>&1
"$TOPO" check "$s" >"$work/check" 2>&1
if grep -q "^rails:     8 (ens1np0 ens2np0 ens3np0 ens4np0 ens5np0 ens6np0 ens7np0 ens8np0), rail-optimised$" "$work/show" &&
    [ "$(grep -c "^host gpu0[1-4] 0 1 $view_hcas 1 -1 - -\$" "$work/view")" -eq 4 ]; then ok "storage fabric apart: 8 rails, the view names the rails only"
else not_ok "storage fabric apart: 8 rails, the view names the rails only"; diag "$(cat "$work/show" "$work/view")"; fi
if grep -q "^warning: frontend-nic: gpu\[01-04\]: front-end NIC enp170s0f0np0 (400 Gb/s, to stor-leaf1): on stor-leaf1, which no switch cable joins to leaf-r1 " "$work/check" &&
    grep -q "^3 findings: 0 errors, 3 warnings$" "$work/check"; then ok "storage fabric apart: check names the storage ports as another network"
else not_ok "storage fabric apart: check names the storage ports as another network"; diag "$(cat "$work/check")"; fi
# the same storage ports with no storage switch tables, and each host's
# node.json (rails8/dgx): every GPU has a rail adapter of its own under its
# PCIe switch and the storage adapters are no GPU's, as on a DGX H100
x="$d/dgx"
"$TOPO" show "$x" >"$work/show" 2>&1
"$TOPO" check "$x" >"$work/check" 2>&1
if grep -q "^rails:     8 (ens1np0 ens2np0 ens3np0 ens4np0 ens5np0 ens6np0 ens7np0 ens8np0), rail-optimised$" "$work/show" &&
    grep -q "^warning: frontend-nic: gpu\[01-04\]: front-end NIC enp170s0f1np1 (400 Gb/s, to stor-leaf2): the host's node.json shows every GPU with an adapter of its own" "$work/check"; then ok "node.json GPU affinity: the storage adapters no GPU has are no rails"
else not_ok "node.json GPU affinity: the storage adapters no GPU has are no rails"; diag "$(cat "$work/show" "$work/check")"; fi
# a GPU of two equally near adapters (DGX A100's PCIe switches): which
# adapters are the GPUs' is not known, the rule does not apply
mkdir "$work/tie"
cp "$x"/* "$work/tie/"
for f in "$work"/tie/*.node.json; do
    awk '/"equally_near": 1/ && !done { sub(/"equally_near": 1/, "\"equally_near\": 2"); done = 1 } { print }' "$f" >"$f.new" && mv "$f.new" "$f"
done
"$TOPO" show "$work/tie" >"$work/show" 2>&1
if grep -q "^rails:     10 " "$work/show"; then ok "node.json GPU affinity with a tie: not applied (10 rails, as without it)"
else not_ok "node.json GPU affinity with a tie: not applied (10 rails, as without it)"; diag "$(cat "$work/show")"; fi
# node.json on three hosts of four (a rollout): the three, whose node.json
# put their storage ports out, are not missing those as rails; gpu04, without
# it, has two ports more than the others and enp170s0f0np0 sorts before
# ens1np0: its rails are those of the leaves its ports land on, not their
# places (helper 16: the storage ports were two of its rails, ens7np0 and
# ens8np0 none, and check called six cables miswired)
mkdir "$work/part"
cp "$x"/* "$work/part/"
rm "$work/part/gpu04.node.json"
"$TOPO" check "$work/part" >"$work/check" 2>&1
"$TOPO" slurm --format view "$work/part" >"$work/view" 2>&1
if ! grep -q "^error" "$work/check" && [ "$(grep -c "^host gpu0[1-4] 0 1 $view_hcas 1 -1 - -\$" "$work/view")" -eq 4 ]; then ok "node.json on 3 of 4 hosts: no missing-rail for the ports they put out; every view names the 8 rails, by their leaves"
else not_ok "node.json on 3 of 4 hosts: no missing-rail for the ports they put out; every view names the 8 rails, by their leaves"; diag "$(cat "$work/check" "$work/view")"; fi
