#!/bin/sh
# Who says which node is where (issue 22): a node description is written by
# that node's root; atoll-topo must not let it rename, move or define nodes.
. "$(dirname "$0")/../lib.sh"
plan 52
work=$(tmpdir)
"$TOPO" generate --rails 2 --hosts 4 --sharp >"$work/f.txt"
# node002's root writes "DEFAULT mlx5_0": slurm.conf's defaults line for every later node
sed 's/"node002 mlx5_0"/"DEFAULT mlx5_0"/; s/"node002 mlx5_1"/"DEFAULT mlx5_1"/' "$work/f.txt" >"$work/default.txt"
"$TOPO" slurm --format features "$work/default.txt" -o "$work/features.conf" 2>"$work/default.err"
if ! grep -qi "NodeName=DEFAULT" "$work/features.conf" && grep -q "a word Slurm reserves" "$work/default.err"; then
    ok "a host named DEFAULT is refused: no NodeName=DEFAULT line, a warning says why"
else
    not_ok "a host named DEFAULT is refused: no NodeName=DEFAULT line, a warning says why"; diag "$(cat "$work/features.conf" "$work/default.err")"
fi
# node002's root copies node003's description: neither claim is believed;
# node003 keeps its place by its other adapter (one root must not take
# another node out of Slurm's tree), and the view lists it undecided (the
# plugin sets no device variable there)
sed 's/"node002 mlx5_1"/"node003 mlx5_1"/' "$work/f.txt" >"$work/claim.txt"
"$TOPO" check "$work/claim.txt" >"$work/claim.out" 2>&1; rc=$?
"$TOPO" slurm --format feature-list "$work/claim.txt" >"$work/claim.fl" 2>/dev/null
"$TOPO" slurm --format view "$work/claim.txt" >"$work/claim.view" 2>/dev/null
if [ $rc -eq 4 ] && grep -q "'node003 mlx5_1' is claimed by 2 adapters" "$work/claim.out" &&
   grep -q "^node003 " "$work/claim.fl" && grep -q "^undecided node003$" "$work/claim.view" && ! grep -q "^undecided node002$" "$work/claim.view"; then
    ok "an adapter name claimed twice: check errors (exit 4), node003 stays in the Slurm files, undecided in the view"
else
    not_ok "an adapter name claimed twice: check errors (exit 4), node003 stays, undecided in the view"; diag "rc=$rc" "$(cat "$work/claim.out" "$work/claim.fl")"
fi
# a CA describing itself as an aggregation node (with a host name) makes no leaf SHARP-capable
# (a fabric without SHARP: before, "node004 Aggregation Node" made its leaf SHARP-capable)
"$TOPO" generate --rails 2 --hosts 4 | sed 's/"node004 mlx5_1"/"node004 Aggregation Node"/' >"$work/an.txt"
"$TOPO" show --json "$work/an.txt" >"$work/an.json"
check "a host's 'Aggregation Node' description is not an aggregation node" grep -q '"sharp_switches": *0' "$work/an.json"
# --node-name-map with --unmapped refuse: the map's names only
awk '/^caguid=/ { g = substr($1, 8) } /^Ca/ && /"node00[1-3] / { d = $0; sub(/^[^#]*# "/, "", d); sub(/".*/, "", d); print g " \"" d "\"" }' \
    "$work/f.txt" >"$work/map"
"$TOPO" slurm --format features "$work/f.txt" --node-name-map "$work/map" --unmapped refuse -o "$work/mapped.conf" 2>"$work/mapped.err"
if ! grep -q node004 "$work/mapped.conf" && grep -q "NodeName=node\[001-003\] " "$work/mapped.conf" &&
   grep -q "(node description 'node004 mlx5_0') is not in the node name map" "$work/mapped.err"; then
    ok "--unmapped refuse: an adapter the map does not name is on no host, and a warning names it"
else
    not_ok "--unmapped refuse: an adapter the map does not name is on no host, and a warning names it"; diag "$(cat "$work/map" "$work/mapped.conf" "$work/mapped.err")"
fi
# the map names node003's adapters; node002's root copies node003's
# description: the map is the admin's word, so node003 stays, in the map's
# place, and only the copy is refused (before, node003 was refused whole);
# through fabric.json as well
grep '"node003 ' "$work/map" >"$work/map3"
"$TOPO" slurm --format feature-list "$work/claim.txt" --node-name-map "$work/map3" -o "$work/m3.conf" 2>"$work/m3.err"; rc1=$?
"$TOPO" discover "$work/claim.txt" --node-name-map "$work/map3" -o "$work/m3.json" 2>/dev/null
"$TOPO" slurm --format feature-list "$work/m3.json" 2>/dev/null | grep -v '^#' >"$work/m3j.conf"
"$TOPO" check --node-name-map "$work/map3" "$work/claim.txt" >"$work/m3.check" 2>&1
if [ $rc1 -eq 0 ] && grep -q "^node003 " "$work/m3.conf" && grep -q "^node002 " "$work/m3.conf" &&
   grep -q "adapter name 'node003 mlx5_1' refused: the node name map gives it to another adapter" "$work/m3.err" &&
   ! grep -q "claimed by 2 adapters" "$work/m3.check" && grep -v '^#' "$work/m3.conf" | cmp -s - "$work/m3j.conf"; then
    ok "a description copying one the node name map gives: only the copy is refused, the mapped host stays (fabric.json too)"
else
    not_ok "a description copying one the node name map gives: only the copy is refused, the mapped host stays"
    diag "rc=$rc1" "$(cat "$work/m3.conf" "$work/m3.err" "$work/m3.check")"
fi
# a GUID the map names twice, differently: which the admin meant is not known
{ head -1 "$work/map"; head -1 "$work/map" | sed 's/"node00[0-9]/"node099/'; } >"$work/map2"
"$TOPO" slurm "$work/f.txt" --node-name-map "$work/map2" >/dev/null 2>"$work/map2.err"; rc=$?
if [ $rc -eq 1 ] && grep -q "map2:2: found 0x[0-9a-f]* named 'node099 .*on line 1: expected each GUID once" "$work/map2.err"; then
    ok "a GUID the node name map names twice, differently: an error naming the line"
else
    not_ok "a GUID the node name map names twice, differently: an error naming the line"; diag "rc=$rc" "$(cat "$work/map2" "$work/map2.err")"
fi
# one host adapter name the map gives to two GUIDs: the map contradicts itself
{ head -1 "$work/map"; sed -n 2p "$work/map" | sed 's/"[^"]*"/'"$(head -1 "$work/map" | grep -o '"[^"]*"')"'/'; } >"$work/map6"
"$TOPO" slurm "$work/f.txt" --node-name-map "$work/map6" >/dev/null 2>"$work/map6.err"; rc=$?
if [ $rc -eq 1 ] && grep -q "map6:2: found '[^']*' for 0x[0-9a-f]*, given to 0x[0-9a-f]* on line 1: expected each host adapter name once" "$work/map6.err"; then
    ok "one host adapter name the node name map gives to two GUIDs: an error naming the line"
else
    not_ok "one host adapter name the node name map gives to two GUIDs: an error naming the line"; diag "rc=$rc" "$(cat "$work/map6" "$work/map6.err")"
fi
"$TOPO" slurm --format features "$work/f.txt" --unmapped refuse >/dev/null 2>"$work/nomap.err"
check "--unmapped without a map is a usage error" [ $? -eq 2 ]
# a site feature equal to an island name: nothing written, exit 1
# (one rail: a leaf island is named after its switch)
"$TOPO" generate --rails 1 --hosts 4 | sed 's/"MF0;ib-leaf02:MQM8700\/U1"/"bigmem"/g' >"$work/bigmem.txt"
echo "NodeName=node001 AvailableFeatures=bigmem ActiveFeatures=bigmem" >"$work/nodes"
echo keep >"$work/updates"
"$TOPO" slurm --format scontrol --scontrol-nodes "$work/nodes" "$work/bigmem.txt" -o "$work/updates" 2>"$work/bigmem.err"; rc=$?
if [ $rc -eq 1 ] && [ "$(cat "$work/updates")" = keep ] && grep -q "bigmem (on node001)" "$work/bigmem.err"; then
    ok "an island named after a site feature: exit 1, the old file kept, the node named"
else
    not_ok "an island named after a site feature: exit 1, the old file kept, the node named"; diag "rc=$rc" "$(cat "$work/bigmem.err" "$work/updates")"
fi
# LLDP: node004's root names a "switch" bigmem that no other system sees
for n in 1 2 3 4; do for r in 0 1; do
    printf 'node00%s: lldp.ens1f%snp%s.chassis.name=r%s-leaf1\nnode00%s: lldp.ens1f%snp%s.chassis.Bridge.enabled=on\nnode00%s: lldp.ens1f%snp%s.port.ifname=swp%s\n' \
        $n $r $r $r $n $r $r $n $r $r $n
done; done >"$work/lldp.txt"
printf 'node004: lldp.eno9.chassis.name=bigmem\nnode004: lldp.eno9.chassis.Bridge.enabled=on\nnode004: lldp.eno9.port.ifname=x1\n' >>"$work/lldp.txt"
"$TOPO" check "$work/lldp.txt" >"$work/lldp.out" 2>&1; rc=$?
"$TOPO" slurm --format features "$work/lldp.txt" 2>/dev/null >"$work/lldp.features"
if [ $rc -eq 4 ] && grep -q "names the switch 'bigmem' alone: not believed" "$work/lldp.out" && ! grep -q bigmem "$work/lldp.features"; then
    ok "LLDP: a switch one host names alone is refused (check exit 4), and is no feature"
else
    not_ok "LLDP: a switch one host names alone is refused (check exit 4), and is no feature"; diag "rc=$rc" "$(cat "$work/lldp.out" "$work/lldp.features")"
fi
# LLDP, switches' tables collected beside hosts running Docker (lldpd there
# advertises Bridge and Router, and both leaves of each 2-rail host report
# it so): by the tables alone the hosts are switches, as the spine is.
# Slurm's node list decides: four hosts under their leaves, and spine2 (one
# cable) no host; without it, discovery says what it took for switches.
mkdir "$work/docker"
for r in 0 1; do
    printf 'lldp.swp5%s.chassis.name=spine1\nlldp.swp5%s.chassis.Bridge.enabled=on\nlldp.swp5%s.port.ifname=swp%s\n' $r $r $r $((r + 1)) >>"$work/docker/r$r-leaf1.keyvalue"
    printf 'lldp.swp%s.chassis.name=r%s-leaf1\nlldp.swp%s.chassis.Bridge.enabled=on\nlldp.swp%s.port.ifname=swp5%s\n' $((r + 1)) $r $((r + 1)) $((r + 1)) $r >>"$work/docker/spine1.keyvalue"
    for n in 1 2 3 4; do
        printf 'lldp.swp%s.chassis.name=node00%s\nlldp.swp%s.chassis.Bridge.enabled=on\nlldp.swp%s.chassis.Router.enabled=on\nlldp.swp%s.port.ifname=ens1f%snp%s\n' \
            $n $n $n $n $n $r $r >>"$work/docker/r$r-leaf1.keyvalue"
        printf 'lldp.ens1f%snp%s.chassis.name=r%s-leaf1\nlldp.ens1f%snp%s.chassis.Bridge.enabled=on\nlldp.ens1f%snp%s.port.ifname=swp%s\n' \
            $r $r $r $r $r $r $r $n >>"$work/docker/node00$n.keyvalue"
    done
done
printf 'lldp.swp60.chassis.name=spine2\nlldp.swp60.chassis.Bridge.enabled=on\nlldp.swp60.port.ifname=swp1\n' >>"$work/docker/r0-leaf1.keyvalue"
printf 'lldp.swp1.chassis.name=r0-leaf1\nlldp.swp1.chassis.Bridge.enabled=on\nlldp.swp1.port.ifname=swp60\n' >"$work/docker/spine2.keyvalue"
printf 'NodeName=node[001-004] CPUs=64 Gres=gpu:8\n' >"$work/nodes.conf"
"$TOPO" slurm --format tree "$work/docker" --slurm-nodes "$work/nodes.conf" >"$work/docker.conf" 2>"$work/docker.err"; rc=$?
"$TOPO" slurm --format tree "$work/docker" >"$work/docker0.conf" 2>"$work/docker0.err"
if [ $rc -eq 0 ] && grep -q "Nodes=node\[001-004\]$" "$work/docker.conf" && ! grep -q "spine2" "$work/docker.conf" &&
   grep -q "spine2: a table of a system Slurm has no node of" "$work/docker.err" &&
   grep -q "node001, node002, node003, node004, r0-leaf1, r1-leaf1, spine1: taken for switches" "$work/docker0.err"; then
    ok "LLDP with switch tables and Docker hosts: --slurm-nodes keeps the hosts hosts; without it a warning names them"
else
    not_ok "LLDP with switch tables and Docker hosts: --slurm-nodes keeps the hosts hosts; without it a warning names them"
    diag "rc=$rc" "$(cat "$work/docker.conf" "$work/docker.err" "$work/docker0.err")"
fi
# (helper 27) the node list is the admin's file, read strictly: a name
# Slurm would not take is a FILE:LINE error, not a "no node" warning that
# lies; --slurm-nodes on a fabric.json is refused (discovery decided who is
# a host there); pdsh prefixes are cut at the first '.', as file names are
printf 'NodeName=node001;node002 CPUs=8\n' >"$work/semi.conf"
"$TOPO" slurm --format tree "$work/docker" --slurm-nodes "$work/semi.conf" >/dev/null 2>"$work/semi.err"; rc1=$?
"$TOPO" discover "$work/docker" -o "$work/docker.json" 2>/dev/null
"$TOPO" slurm --format islands "$work/docker.json" --slurm-nodes "$work/nodes.conf" >/dev/null 2>&1; rc2=$?
for f in "$work"/docker/*.keyvalue; do
    s=$(basename "$f" .keyvalue)
    sed "s/^/$s.cluster.example.com: /" "$f"
done >"$work/fqdn.txt"
"$TOPO" slurm --format tree "$work/fqdn.txt" --slurm-nodes "$work/nodes.conf" >"$work/fqdn.conf" 2>/dev/null; rc3=$?
if [ $rc1 -eq 1 ] && grep -q "semi.conf:1: found NodeName=node001;node002" "$work/semi.err" && [ $rc2 -eq 2 ] &&
   [ $rc3 -eq 0 ] && grep -q "Nodes=node\[001-004\]$" "$work/fqdn.conf"; then
    ok "--slurm-nodes: a bad name is FILE:LINE, a fabric.json is refused, FQDN pdsh prefixes are short names"
else
    not_ok "--slurm-nodes: a bad name is FILE:LINE, a fabric.json is refused, FQDN pdsh prefixes are short names"
    diag "rc=$rc1 $rc2 $rc3" "$(cat "$work/semi.err" "$work/fqdn.conf")"
fi
# (helper 50) a host left with no adapter believed would vanish from Slurm's
# files: node009's root naming its one adapter "node001.evil mlx5_0" (an
# FQDN of node001's short name) refused both of node001's own, and on a
# one-rail fabric a copy of node001's description refused its only one. The
# slurm command now writes nothing (the site's file stays), check says
# contested-host; with the admin's map the copy alone is refused
printf 'SwitchName=old Nodes=node[001-016]\n' >"$work/site.conf"
cp "$work/site.conf" "$work/site.keep"
sed 's/"node009 mlx5_0"/"node001.evil mlx5_0"/' "$work/f.txt" >"$work/knock.txt"
"$TOPO" slurm "$work/knock.txt" -o "$work/knock.conf" 2>"$work/knock.err"; rc1=$?
"$TOPO" generate --rails 1 --hosts 4 --pods 2 --groups 2 --cores 2 | sed 's/"node009 mlx5_0"/"node001 mlx5_0"/' >"$work/one.txt"
"$TOPO" slurm --format block "$work/one.txt" -o "$work/site.conf" 2>"$work/one.err"; rc2=$?
"$TOPO" check "$work/one.txt" >"$work/one.check" 2>&1; rc3=$?
awk '/^caguid=/ { g = substr($1, 8) } /^Ca/ && /"node001 / { d = $0; sub(/^[^#]*# "/, "", d); sub(/".*/, "", d); print g " \"" d "\""; exit }' \
    "$work/one.txt" >"$work/one.map"
"$TOPO" slurm "$work/one.txt" --node-name-map "$work/one.map" >"$work/one.conf" 2>/dev/null; rc4=$?
if [ $rc1 -eq 0 ] && grep -q "'node001.evil mlx5_0': adapter name 'node001 mlx5_0' refused: .* claimed by 2 adapters" "$work/knock.err" &&
   grep -q "^SwitchName=.* Nodes=node\[001-004\]$" "$work/knock.conf" && ! grep -q "evil" "$work/knock.conf" &&
   [ $rc2 -eq 1 ] && grep -q "host node001 would be left out of Slurm's files: .*'node001 mlx5_0' is claimed by 2 adapters" "$work/one.err" &&
   cmp -s "$work/site.conf" "$work/site.keep" && [ $rc3 -eq 4 ] && grep -q "^error: contested-host: node001: " "$work/one.check" &&
   [ $rc4 -eq 0 ] && grep -q "Nodes=node\[001-004\]$" "$work/one.conf"; then
    ok "an FQDN of node001 on another adapter costs node001 that adapter only; a host whose every adapter name is claimed twice: slurm writes nothing, the site's file kept, check errors; the map settles it"
else
    not_ok "a host whose every adapter name is claimed twice"; diag "rc=$rc1 $rc2 $rc3 $rc4" "$(cat "$work/knock.err" "$work/one.err" "$work/one.check" "$work/one.conf")"
fi
# LLDP: gpu04's table names gpu01's switch ports as its own (host tables
# only: no switch's word settles it); gpu01 would vanish
mkdir -p "$work/l8"
cp "$DATA/lldp/rails8/keyvalue/"* "$work/l8/"
sed 's/\(ens[0-9]np0\.port\.ifname=\)swp4/\1swp1/' "$DATA/lldp/rails8/keyvalue/gpu04.keyvalue" >"$work/l8/gpu04.keyvalue"
"$TOPO" discover "$work/l8" -o "$work/l8.json" 2>/dev/null
"$TOPO" slurm "$work/l8.json" >"$work/l8.conf" 2>"$work/l8.err"; rc1=$?
"$TOPO" check "$work/l8.json" >"$work/l8.check" 2>&1; rc2=$?
if [ $rc1 -eq 1 ] && [ ! -s "$work/l8.conf" ] && grep -q "hosts gpu\[01,04\] would be left out of Slurm's files: .*port swp1 of leaf-r1 is claimed by 2 peers" "$work/l8.err" &&
   [ $rc2 -eq 4 ] && grep -q "^error: contested-host: gpu01: " "$work/l8.check"; then
    ok "LLDP: a host whose every switch port another table claims: slurm writes nothing, check errors (contested_hosts kept in fabric.json)"
else
    not_ok "LLDP: a host whose switch ports another table claims"; diag "rc=$rc1 $rc2" "$(cat "$work/l8.err" "$work/l8.check")"
fi
# (helper 52) the refusal froze every topology update: one node whose own
# adapters say node003 and node003.cluster.example.com (one host, merged
# now), and two nodes calling themselves a name no one has ('ghost'): with
# Slurm's node list that name is no loss to Slurm (a warning, the file
# written); a Slurm node's loss still stops it
sed 's/"node003 mlx5_1"/"node003.cluster.example.com mlx5_1"/' "$work/f.txt" >"$work/mixed.txt"
"$TOPO" slurm "$work/mixed.txt" >"$work/mixed.conf" 2>"$work/mixed.err"; rc1=$?
"$TOPO" check "$work/mixed.txt" >"$work/mixed.check" 2>&1
"$TOPO" generate --rails 1 --hosts 4 --pods 2 --groups 2 --cores 2 |
    sed 's/"node005 mlx5_0"/"ghost mlx5_0"/; s/"node006 mlx5_0"/"ghost mlx5_0"/' >"$work/ghost.txt"
printf 'NodeName=node[001-016] CPUs=8\n' >"$work/slurm16.conf"
cp "$work/site.keep" "$work/site.conf"
"$TOPO" slurm --format block "$work/ghost.txt" -o "$work/site.conf" 2>"$work/ghost0.err"; rc2=$?
cmp -s "$work/site.conf" "$work/site.keep"; kept=$?
"$TOPO" slurm "$work/ghost.txt" --slurm-nodes "$work/slurm16.conf" -o "$work/ghost.conf" 2>"$work/ghost.err"; rc3=$?
"$TOPO" check "$work/ghost.txt" --slurm-nodes "$work/slurm16.conf" >"$work/ghost.check" 2>&1
"$TOPO" slurm "$work/one.txt" --slurm-nodes "$work/slurm16.conf" -o "$work/one16.conf" 2>"$work/one16.err"; rc4=$?
if [ $rc1 -eq 0 ] && grep -q "^SwitchName=.* Nodes=node\[001-004\]$" "$work/mixed.conf" && ! grep -q "contested\|refused" "$work/mixed.check" &&
   [ $rc2 -eq 1 ] && [ $kept -eq 0 ] && grep -q "host ghost would be left out.*stops nothing with --slurm-nodes" "$work/ghost0.err" &&
   [ $rc3 -eq 0 ] && grep -q "warning: 'ghost': no adapter or link of this host is believed .*Slurm has no node of this name" "$work/ghost.err" &&
   grep -q "Nodes=node\[001-004\]$" "$work/ghost.conf" && grep -q "^warning: contested-host: ghost: " "$work/ghost.check" &&
   ! grep -q "^error: contested-host" "$work/ghost.check" &&
   [ $rc4 -eq 1 ] && grep -q "host node001 would be left out" "$work/one16.err" && [ ! -e "$work/one16.conf" ]; then
    ok "one node's FQDN and short descriptions are one host; a contested name Slurm lacks stops nothing with --slurm-nodes, a Slurm node's loss still does"
else
    not_ok "contested-host freeze"; diag "rc=$rc1 $rc2 $kept $rc3 $rc4" "$(cat "$work/mixed.err" "$work/mixed.check" "$work/ghost0.err" "$work/ghost.err" "$work/ghost.check" "$work/one16.err")"
fi
# (helper 53) FQDNs kept whole let one root take a node's Slurm name: on
# a site of FQDN descriptions, "gpu001.evil.example mlx5_0" kept both whole
# and gpu001 (Slurm's name) was in no switch, exit 0; two FQDNs beside a
# short name refused the node's own adapters (a freeze). Every self-given
# FQDN is now its first label (the adapter contest decides), and Slurm's
# node list continues lines as slurmctld does (no blank at the join)
sed 's/"gpu032.cluster.example.com mlx5_0"/"gpu001.evil.example mlx5_0"/' "$DATA/ibnetdiscover/fattree_4x8_2s_fqdn.txt" >"$work/evil.txt"
printf 'NodeName=DEFAULT CPUs=8\nNodeName=gpu[001-032]\n' >"$work/sl32.conf"
"$TOPO" slurm "$work/evil.txt" --slurm-nodes "$work/sl32.conf" -o "$work/evil.conf" 2>"$work/evil.err"; rc1=$?
sed -e 's/"node013 mlx5_0"/"node003.a mlx5_7"/' -e 's/"node013 mlx5_1"/"node003.b mlx5_8"/' "$work/f.txt" >"$work/two.txt"
"$TOPO" slurm "$work/two.txt" >"$work/two.conf" 2>"$work/two.err"; rc2=$?
"$TOPO" check "$work/two.txt" >"$work/two.check" 2>&1
printf 'NodeName=DEFAULT CPUs=8\nNodeName=node[001-008],\\\nnode[009-016] Gres=gpu:8\n' >"$work/cont.conf"
sed -e 's/"node013 mlx5_0"/"node010 mlx5_0"/' -e 's/"node013 mlx5_1"/"node010 mlx5_1"/' "$work/f.txt" >"$work/c1.txt"
cp "$work/site.keep" "$work/site2.conf"
"$TOPO" slurm "$work/c1.txt" --slurm-nodes "$work/cont.conf" -o "$work/site2.conf" 2>"$work/c1.err"; rc3=$?
if [ $rc1 -eq 1 ] && [ ! -e "$work/evil.conf" ] && grep -q "host gpu001 would be left out" "$work/evil.err" &&
   [ $rc2 -eq 0 ] && grep -q "Nodes=node\[001-004\]$" "$work/two.conf" && ! grep -q "node003\.[ab]" "$work/two.conf" &&
   grep -q "^warning: fqdn-host-names: node003: host names node003, node003.a, node003.b are one host" "$work/two.check" &&
   grep -q "^warning: host-port-other-group: node003: adapters mlx5_7 on ib-leaf07, mlx5_8 on ib-leaf08 (2), leaves of another rail group than its other 2 (ib-leaf01, ib-leaf02)" "$work/two.check" &&
   [ $rc3 -eq 1 ] && grep -q "host node010 would be left out" "$work/c1.err" && cmp -s "$work/site2.conf" "$work/site.keep"; then
    ok "an FQDN of another node's name is that name: one root neither drops gpu001 nor freezes node003; a continued NodeName hostlist is whole"
else
    not_ok "FQDN claims on another node's name"; diag "rc=$rc1 $rc2 $rc3" "$(cat "$work/evil.err" "$work/two.err" "$work/two.check" "$work/c1.err")"
fi
# (helper 54) slurmctld cuts each line's comment before it continues
# lines: "# ... \\" continued into the next NodeName line and hid node013,
# whose loss to a copy then went through with exit 0; a map's FQDN stays
# whole even where the node's other adapters describe themselves so
printf 'NodeName=node[001-012] CPUs=4\n# NodeName=node[013-016] Gres=gpu:8 \\\nNodeName=node[013-016] CPUs=4\n' >"$work/comment.conf"
sed -e 's/"node005 mlx5_0"/"node013 mlx5_0"/' -e 's/"node005 mlx5_1"/"node013 mlx5_1"/' "$work/f.txt" >"$work/cm.txt"
cp "$work/site.keep" "$work/site3.conf"
"$TOPO" slurm "$work/cm.txt" --slurm-nodes "$work/comment.conf" -o "$work/site3.conf" 2>"$work/cm.err"; rc1=$?
sed -E 's/"(node[0-9]+) (mlx5_[0-9])"/"\1.cluster.example.com \2"/g' "$work/f.txt" >"$work/fq.txt"
awk '/^caguid=/ { g = substr($1, 8) } /^Ca/ && /"node013.cluster.example.com mlx5_0"/ { print g " \"node013.cluster.example.com mlx5_0\""; exit }' \
    "$work/fq.txt" >"$work/fq.map"
"$TOPO" slurm "$work/fq.txt" --node-name-map "$work/fq.map" >"$work/fq.conf" 2>/dev/null; rc2=$?
if [ $rc1 -eq 1 ] && grep -q "host node013 would be left out" "$work/cm.err" && cmp -s "$work/site3.conf" "$work/site.keep" &&
   [ -s "$work/fq.map" ] && [ $rc2 -eq 0 ] && grep -q "Nodes=node013.cluster.example.com,node\[014-016\]$" "$work/fq.conf"; then
    ok "--slurm-nodes: a comment ending in a backslash continues nothing (node013 stays Slurm's); a map's FQDN stays whole"
else
    not_ok "comment continuation and mapped FQDN"; diag "rc=$rc1 $rc2" "$(cat "$work/cm.err" "$work/fq.map" "$work/fq.conf")"
fi
# (helper 54) Slurm's node names all FQDNs: an LLDP table's system is its
# first label and can never be one; the error says so instead of asking
# for tables named by NodeName, which cannot help
mkdir -p "$work/lfq"
for f in "$DATA/lldp/rails8/keyvalue/"gpu*.keyvalue; do
    b=$(basename "$f" .keyvalue)
    cp "$f" "$work/lfq/$b.cluster.example.com.keyvalue"
done
printf 'NodeName=gpu[01-04].cluster.example.com CPUs=8\n' >"$work/lfq.conf"
"$TOPO" slurm "$work/lfq" --slurm-nodes "$work/lfq.conf" >"$work/lfq.out" 2>"$work/lfq.err"; rc=$?
if [ $rc -eq 1 ] && grep -q "Slurm's node names here are FQDNs, and an LLDP table's system is the file name or pdsh prefix up to its first '.'" "$work/lfq.err" &&
   ! grep -q "expected tables named by Slurm's NodeName" "$work/lfq.err"; then
    ok "LLDP with Slurm node names that are all FQDNs: the error says why no table can match"
else
    not_ok "LLDP with FQDN Slurm node names"; diag "rc=$rc" "$(cat "$work/lfq.err")"
fi
# The node a copied description names can tell its own adapter from the
# copy by the GUIDs its own sysfs gives (the kernel's, not a claim): the
# view (5) lists each claimant's GUID, and the plugin on node003 takes the
# one that is its own and sets NCCL_IB_HCA as on any other node; where
# neither GUID is here (the card replaced since), or the copy's, it sets
# nothing. node002, whose root wrote the copy, gains nothing.
ibnode() {  # DIR HCA:GUID...: InfiniBand devices, ACTIVE, with node GUIDs as the kernel writes them
    d=$1; shift
    for a in "$@"; do
        p="$d/class/infiniband/${a%%:*}"
        mkdir -p "$p/ports/1"; echo InfiniBand >"$p/ports/1/link_layer"; echo "4: ACTIVE" >"$p/ports/1/state"
        echo "${a#*:}" | sed 's/\(....\)\(....\)\(....\)\(....\)/\1:\2:\3:\4/' >"$p/node_guid"
    done
}
fixture_outputs() {  # NAME FIXTURE: the fixture's view and check output in $work/NAME.view, NAME.check
    "$TOPO" slurm --format view "$DATA/ibnetdiscover/$2" -o "$work/$1.view" 2>/dev/null
    "$TOPO" check "$DATA/ibnetdiscover/$2" >"$work/$1.check" 2>&1
}
guid_in() { awk -v d="\"$2\"" '/^caguid=/ { g = substr($1, 10) } /^Ca/ && index($0, d) { print g; exit }' "$1"; }  # FILE DESC: its CA's GUID
g() { guid_in "$work/f.txt" "$1"; }
ibnode "$work/own/node003" mlx5_0:"$(g 'node003 mlx5_0')" mlx5_1:"$(g 'node003 mlx5_1')"
ibnode "$work/swap/node003" mlx5_0:"$(g 'node003 mlx5_0')" mlx5_1:0c42a10300ff0001
ibnode "$work/own/node002" mlx5_0:"$(g 'node002 mlx5_0')" mlx5_1:"$(g 'node002 mlx5_1')"
for t in own swap; do
    "$TOPO" env "$work/claim.view" --node node003 --nodes node003,node002 --sysfs-root "$work/$t/%n" 2>&1 | grep '^  NCCL_IB_HCA'
done >"$work/settle.out"
"$TOPO" env "$work/claim.view" --node node002 --nodes node003,node002 --sysfs-root "$work/own/%n" 2>&1 | grep '^  NCCL_IB_HCA' >>"$work/settle.out"
# (helper 56) a host like no class of the fabric's (odd-rails: two adapters
# under names no other host has) stays undecided when another root copies
# one of its names: a claim must not lift odd-rails and hold it to two rails
"$TOPO" generate --rails 4 --hosts 4 >"$work/h4.txt"
sed 's/"node003 mlx5_2"/"node003 mlx5_7"/; s/"node003 mlx5_3"/"node003 mlx5_8"/; s/"node004 mlx5_0"/"node003 mlx5_0"/' \
    "$work/h4.txt" >"$work/odd.txt"
"$TOPO" slurm --format view "$work/odd.txt" -o "$work/odd.view" 2>/dev/null
# (helper 58) and 17 claimants (two roots' 8-rail nodes all copying one
# name): more than the plugin reads; the host stays undecided, the view 4
"$TOPO" generate --rails 8 --hosts 4 | sed 's/"node00[45] mlx5_[0-7]"/"node003 mlx5_1"/g' >"$work/c17.txt"
"$TOPO" slurm --format view "$work/c17.txt" -o "$work/c17.view" 2>/dev/null
if [ "$(head -1 "$work/odd.view")" = "atoll-view 4" ] && grep -q "^undecided node003$" "$work/odd.view" &&
   [ "$(head -1 "$work/c17.view")" = "atoll-view 4" ] && grep -q "^undecided node003$" "$work/c17.view" &&
   [ "$(head -1 "$work/claim.view")" = "atoll-view 5" ] &&
   grep -q "^claimed node003 1 mlx5_1:1 [0-9a-f]\{16\},[0-9a-f]\{16\}$" "$work/claim.view" &&
   sed -n 1p "$work/settle.out" | grep -q "^  NCCL_IB_HCA==mlx5_0:1,mlx5_1:1 (this node's compute-rail adapters, checked in sysfs" &&
   sed -n 2p "$work/settle.out" | grep -q "^  NCCL_IB_HCA not set: .*; mlx5_1 port 1 is claimed by 2 adapters cabled there, none of them here, by their GUIDs" &&
   sed -n 3p "$work/settle.out" | grep -q "^  NCCL_IB_HCA==mlx5_0:1 "; then
    ok "a copied description: node003's plugin takes the claimant whose GUID its sysfs gives (NCCL_IB_HCA both rails); none here: nothing"
else
    not_ok "a copied description: node003's plugin settles the claim by its own GUIDs"; diag "$(grep -e '^claimed' -e '^atoll-view' "$work/claim.view")" "$(cat "$work/settle.out")"
fi
# an FQDN cut to a word Slurm reserves says so once
sed 's/"node002 mlx5_0"/"default.evil mlx5_0"/' "$work/f.txt" >"$work/defq.txt"
"$TOPO" slurm --format features "$work/defq.txt" -o "$work/defq.conf" 2>"$work/defq.err"
check "an FQDN shortened to 'default' is refused with one plain reason" \
    grep -q "host name 'default.evil' refused: shortened to 'default', a word Slurm reserves (NodeName=DEFAULT); the adapter is left out" "$work/defq.err"
# (helper 58) one root copying three of a four-rail host's four adapter
# names: node003 keeps its rail group in topology.conf and its class (its
# contested adapters counted with it), so the view lists its claims and its
# plugin sets all four rails; no rail is called missing (refused-name says
# why). Before, it was left one port, no compute host, put on a leaf of its
# own with the copier, with no host line and no device variable.
"$TOPO" generate --rails 4 --hosts 8 >"$work/r4.txt"
sed 's/"node005 mlx5_\([0-2]\)"/"node003 mlx5_\1"/' "$work/r4.txt" >"$work/c3.txt"
"$TOPO" slurm "$work/c3.txt" -o "$work/c3.conf" 2>/dev/null
"$TOPO" slurm --format view "$work/c3.txt" -o "$work/c3.view" 2>/dev/null
"$TOPO" check "$work/c3.txt" >"$work/c3.check" 2>&1
g4() { guid_in "$work/r4.txt" "$1"; }
ibnode "$work/r4/node003" mlx5_0:"$(g4 'node003 mlx5_0')" mlx5_1:"$(g4 'node003 mlx5_1')" mlx5_2:"$(g4 'node003 mlx5_2')" mlx5_3:"$(g4 'node003 mlx5_3')"
"$TOPO" env "$work/c3.view" --node node003 --nodes node003,node001 --sysfs-root "$work/r4/%n" >"$work/c3.env" 2>&1
if grep -q "^SwitchName=grp-ib-leaf01 Nodes=node\[001-004,006-008\]$" "$work/c3.conf" &&
   [ "$(grep -c "^claimed node003 [0-2] mlx5_[0-2]:1 " "$work/c3.view")" -eq 3 ] &&
   grep -q "^  NCCL_IB_HCA==mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1 " "$work/c3.env" &&
   ! grep -q "missing-rail: node003" "$work/c3.check" && grep -q "refused-name: .*'node003 mlx5_2' is claimed by 2" "$work/c3.check"; then
    ok "three of a host's four names copied: it keeps its rail group and class; its plugin settles the claims and sets all four rails"
else
    not_ok "three of a host's four names copied"; diag "$(grep -v '^#' "$work/c3.conf")" "$(grep -e '^claimed' -e node003 "$work/c3.view")" "$(cat "$work/c3.env")" "$(grep node003 "$work/c3.check")"
fi
# (helper 58) a made-up adapter name beside a copy (node011's root names one
# of its own adapters node003 mlx5_9, another copies node003 mlx5_2): the
# made-up name is on no rail of the class, so node003 holds its four rails,
# one of them claimed, and settles as a host with one odd adapter is decided
sed 's/"node011 mlx5_3"/"node003 mlx5_9"/; s/"node011 mlx5_2"/"node003 mlx5_2"/' "$work/r4.txt" >"$work/x2.txt"
"$TOPO" slurm --format view "$work/x2.txt" -o "$work/x2.view" 2>/dev/null
"$TOPO" env "$work/x2.view" --node node003 --nodes node003,node001 --sysfs-root "$work/r4/%n" >"$work/x2.env" 2>&1
if grep -q "^claimed node003 2 mlx5_2:1 " "$work/x2.view" && grep -q "^  NCCL_IB_HCA==mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1 " "$work/x2.env"; then
    ok "a made-up adapter name beside a copy: the claim still settles on the host's own node"
else
    not_ok "a made-up adapter name beside a copy"; diag "$(grep -e '^claimed' -e node003 "$work/x2.view")" "$(cat "$work/x2.env")"
fi
# (helper 59) every rail name of node003 copied by node005's root, and one
# made-up name (node003 mlx5_4) on node009's adapter in another rail group:
# the made-up adapter, on no rail of node003's class, is not believed beside
# the copies, so no adapter of node003's is: slurm writes neither
# topology.conf nor the view (exit 1, the files kept). Before, node003 was
# moved to node009's rail group (its island on every step).
sed -e 's/"node005 mlx5_\([0-3]\)"/"node003 mlx5_\1"/' -e 's/"node009 mlx5_0"/"node003 mlx5_4"/' "$work/r4.txt" >"$work/mv.txt"
echo kept >"$work/mv.conf"; echo kept >"$work/mv.view"
"$TOPO" slurm "$work/mv.txt" -o "$work/mv.conf" 2>"$work/mv.err"; rc1=$?
"$TOPO" slurm --format view "$work/mv.txt" -o "$work/mv.view" 2>"$work/mv.verr"; rc2=$?
if [ $rc1 -eq 1 ] && [ $rc2 -eq 1 ] && [ "$(cat "$work/mv.conf" "$work/mv.view")" = "kept
kept" ] && grep -q "'node003 mlx5_4' refused: 'node003''s other adapter names are contested .* on no rail of its class" "$work/mv.err" &&
   grep -q "host node003 would be left out of Slurm's files and the plugin's view" "$work/mv.verr"; then
    ok "all of a host's rail names copied and a made-up one beside them: the made-up one is refused; no topology.conf or view is written, both kept"
else
    not_ok "copies and a made-up name must not move a host"; diag "rc=$rc1 $rc2" "$(cat "$work/mv.conf" "$work/mv.err" "$work/mv.verr")"
fi
# (helper 59) a copy on the copier's port 2 (its dual-port card cabled
# there): the claim lists every claimant's GUID, whatever its port, and
# node003's plugin settles it by its own GUID and port
g5=$(awk '/^caguid=/ { g = substr($1, 10) } /^Ca/ && /"node005 mlx5_0"/ { print g; exit }' "$work/r4.txt")
sed -e 's/"node005 mlx5_0"/"node003 mlx5_0"/' -e "s/\"H-$g5\"\[1\]/\"H-$g5\"[2]/" -e "s/^Ca\t1 \"H-$g5\"/Ca\t2 \"H-$g5\"/" \
    -e "/^Ca\t2 \"H-$g5\"/{n;s/^\[1\]/[2]/}" "$work/r4.txt" >"$work/p2c.txt"
"$TOPO" slurm --format view "$work/p2c.txt" -o "$work/p2.view" 2>/dev/null
"$TOPO" env "$work/p2.view" --node node003 --nodes node003,node001 --sysfs-root "$work/r4/%n" >"$work/p2.env" 2>&1
# (helper 60) and the other way round: node003's own mlx5_0 cabled on its
# port 2 (port 1 up on another subnet) and a copy on node005's port 1, the
# class's rail port: the claim lists node005's GUID alone, and node003's
# plugin must not take its own card's port 1, which no cable joins to the rail
g3=$(awk '/^caguid=/ { g = substr($1, 10) } /^Ca/ && /"node003 mlx5_0"/ { print g; exit }' "$work/r4.txt")
sed -e 's/"node005 mlx5_0"/"node003 mlx5_0"/' -e "s/\"H-$g3\"\[1\]/\"H-$g3\"[2]/" -e "s/^Ca\t1 \"H-$g3\"/Ca\t2 \"H-$g3\"/" \
    -e "/^Ca\t2 \"H-$g3\"/{n;s/^\[1\]/[2]/}" "$work/r4.txt" >"$work/own2.txt"
"$TOPO" slurm --format view "$work/own2.txt" -o "$work/own2.view" 2>/dev/null
cp -r "$work/r4" "$work/r4p2"; mkdir -p "$work/r4p2/node003/class/infiniband/mlx5_0/ports/2"
echo InfiniBand >"$work/r4p2/node003/class/infiniband/mlx5_0/ports/2/link_layer"; echo "4: ACTIVE" >"$work/r4p2/node003/class/infiniband/mlx5_0/ports/2/state"
"$TOPO" env "$work/own2.view" --node node003 --nodes node003,node001 --sysfs-root "$work/r4p2/%n" >"$work/own2.env" 2>&1
if [ "$(head -1 "$work/p2.view")" = "atoll-view 6" ] && grep -q "^claimed node003 0 mlx5_0:1 $(g4 'node003 mlx5_0')$" "$work/p2.view" &&
   grep -q "^  NCCL_IB_HCA==mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1 " "$work/p2.env" &&
   grep -q "^claimed node003 0 mlx5_0:1 $g5$" "$work/own2.view" && grep -q "^  NCCL_IB_HCA not set: .*mlx5_0 port 1 is claimed by 1 adapter cabled there, none of them here" "$work/own2.env"; then
    ok "a copy cabled on the copier's port 2: the claim lists the one claimant on the rail's port and settles on node003; node003's own card on port 2 is not taken for port 1's rail"
else
    not_ok "a copy on port 2"; diag "$(grep -e '^claimed' -e node003 "$work/p2.view" "$work/own2.view")" "$(cat "$work/p2.env" "$work/own2.env")"
fi
# (helper 59) adapters named by their PCI netdev (numbered by their place):
# one copied name keeps its place among node003's, so its other adapters
# keep their rails (no miswired-rail on them) and the claim settles
sed 's/ mlx5_0"/ ibp12s0f0"/; s/ mlx5_1"/ ibp75s0f0"/; s/ mlx5_2"/ ibp141s0f0"/; s/ mlx5_3"/ ibp186s0f0"/' "$work/r4.txt" >"$work/ibp.txt"
sed -e 's/"node005 ibp12s0f0"/"node003 ibp12s0f0"/' -e 's/"node005 ibp186s0f0"/"node003 ibp250s0f0"/' "$work/ibp.txt" >"$work/ibpc.txt"
"$TOPO" check "$work/ibpc.txt" >"$work/ibpc.check" 2>&1
"$TOPO" slurm --format view "$work/ibpc.txt" -o "$work/ibpc.view" 2>/dev/null
if ! grep -q "miswired-rail: node003" "$work/ibpc.check" && grep -q "^claimed node003 0 ibp12s0f0:1 " "$work/ibpc.view" &&
   grep -q "^host node003 [0-9]* 1 ibp75s0f0:1@[0-9a-f]*,ibp141s0f0:1@[0-9a-f]*,ibp186s0f0:1@[0-9a-f]* " "$work/ibpc.view"; then
    ok "netdev-named adapters: a copied name keeps its place; no miswired-rail on the victim, the claim settles"
else
    not_ok "netdev-named adapters and a copied name"; diag "$(grep node003 "$work/ibpc.check" | grep -v refused)" "$(grep -e '^claimed' -e node003 "$work/ibpc.view")"
fi
# (helper 59) node005's root describes its four adapters as node003's
# mlx5_4-7: no name is copied, but node003 then has more adapters on no rail
# than on them (odd-rails) and was undecided, its jobs without NCCL_IB_HCA.
# The view (6) marks it odd; node003's plugin finds its four rails its own
# by GUID and no other active port, and sets them. A node that does have
# four more active InfiniBand ports of its own stays undecided.
sed 's/"node005 mlx5_0"/"node003 mlx5_4"/; s/"node005 mlx5_1"/"node003 mlx5_5"/; s/"node005 mlx5_2"/"node003 mlx5_6"/; s/"node005 mlx5_3"/"node003 mlx5_7"/' \
    "$work/r4.txt" >"$work/made.txt"
"$TOPO" slurm --format view "$work/made.txt" -o "$work/made.view" 2>/dev/null
cp -r "$work/r4" "$work/r4x"
ibnode "$work/r4x/node003" mlx5_4:0c42a10300aa0001 mlx5_5:0c42a10300aa0002 mlx5_6:0c42a10300aa0003 mlx5_7:0c42a10300aa0004
for r in r4 r4x; do
    "$TOPO" env "$work/made.view" --node node003 --nodes node003,node001 --sysfs-root "$work/$r/%n" 2>&1 | grep '^  NCCL_IB_HCA'
done >"$work/made.env"
if [ "$(head -1 "$work/made.view")" = "atoll-view 6" ] && grep -q "^odd node003$" "$work/made.view" &&
   sed -n 1p "$work/made.env" | grep -q "^  NCCL_IB_HCA==mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1 " &&
   sed -n 2p "$work/made.env" | grep -q "^  NCCL_IB_HCA not set: .*4 other active InfiniBand port(s) beside its 4 rail(s)"; then
    ok "adapter names made up for a host beside its rails: its own plugin decides it by its own ports (all four rails); with four more of its own, nothing"
else
    not_ok "made-up adapter names beside a host's rails"; diag "$(grep -e '^odd' -e node003 -e '^atoll-view' "$work/made.view")" "$(cat "$work/made.env")"
fi
# (helper 60) a name that is another spelling of one of node003's adapters
# (node005's root writes "node003 MLX5_0"; node006-008's "node003 mlx5_01",
# "mlx5_001", "mlx5_0001"): one adapter name to a person, so a copy. It was
# a fifth (and sixth...) adapter of node003's that check never named, and
# the padded ones left node003 odd-rails, its jobs without NCCL_IB_HCA.
# Now each is contested with node003's own: check names it, the claim
# lists every claimant cabled there, and node003's plugin settles it by its
# own GUID; a name no device can have ("..") is refused as a name.
sed -e 's/"node005 mlx5_0"/"node003 MLX5_0"/' -e 's/"node006 mlx5_1"/"node003 mlx5_01"/' \
    -e 's/"node007 mlx5_1"/"node003 mlx5_001"/' -e 's/"node008 mlx5_1"/"node003 mlx5_0001"/' \
    -e 's/"node009 mlx5_2"/"node003 .."/' "$work/r4.txt" >"$work/alias.txt"
"$TOPO" check "$work/alias.txt" >"$work/alias.check" 2>&1
"$TOPO" slurm --format view "$work/alias.txt" -o "$work/alias.view" 2>/dev/null
"$TOPO" env "$work/alias.view" --node node003 --nodes node003,node001 --sysfs-root "$work/r4/%n" >"$work/alias.env" 2>&1
if grep -q "refused-name: .*'node003 MLX5_0' refused: adapter 'node003 mlx5_0' is claimed by 2 adapters" "$work/alias.check" &&
   grep -q "refused-name: .*'node003 mlx5_0001' refused: adapter 'node003 mlx5_1' is claimed by 4 adapters" "$work/alias.check" &&
   grep -q "refused-name: .*adapter name '\.\.' refused: it is '\.\.', which no device can be named" "$work/alias.check" &&
   grep -q "^claimed node003 0 mlx5_0:1 [0-9a-f]\{16\},[0-9a-f]\{16\}$" "$work/alias.view" &&
   grep -q "^claimed node003 1 mlx5_1:1 [0-9a-f]\{16\},[0-9a-f]\{16\},[0-9a-f]\{16\},[0-9a-f]\{16\}$" "$work/alias.view" &&
   grep -q "^host node003 [0-9]* 1 mlx5_2:1@[0-9a-f]*,mlx5_3:1@[0-9a-f]* " "$work/alias.view" && ! grep -q "^odd" "$work/alias.view" &&
   grep -q "^  NCCL_IB_HCA==mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1 " "$work/alias.env"; then
    ok "another spelling of a host's adapter name (case, leading zeros) is a copy: check names it, the claims settle on the host's own node; '..' is no adapter name"
else
    not_ok "spellings of a host's adapter name"; diag "$(grep node003 "$work/alias.check")" "$(grep -e '^claimed' -e node003 -e '^odd' "$work/alias.view")" "$(cat "$work/alias.env")"
fi
# (helper 61) one made-up name beside copies: node005's root copies three
# (or all four) of node003's rail names and node020's root names an adapter
# of its own node003 foo (or mlx5-0, ibp1s0: named unlike node003's, so not
# judged by a rail's name). It moved node003 to node020's rail group with
# exit 0. Now a name unlike most of a contested host's names is not
# believed, and a host all of whose rails are contested is placed by none
# of its other adapters (contested-host: no file written); with netdev-named
# adapters (a made-up ibp250s0f0 is named like the rest) the same. A copy
# spelt hca-01 beside the fabric's HCA-1 names goes by HCA-1, and settles.
for x in foo mlx5-0 ibp1s0; do
    sed -e 's/"node005 mlx5_\([0-2]\)"/"node003 mlx5_\1"/' -e "s/\"node020 mlx5_0\"/\"node003 $x\"/" "$work/r4.txt" >"$work/mk3.txt"
    sed -e 's/"node005 mlx5_\([0-3]\)"/"node003 MLX5_0\1"/' -e "s/\"node020 mlx5_0\"/\"node003 $x\"/" "$work/r4.txt" >"$work/mk4.txt"
    "$TOPO" slurm "$work/mk3.txt" -o "$work/mk3.$x.conf" 2>/dev/null; echo "$x 3 $?"
    echo kept >"$work/mk4.$x.conf"; "$TOPO" slurm "$work/mk4.txt" -o "$work/mk4.$x.conf" 2>/dev/null; echo "$x 4 $? $(cat "$work/mk4.$x.conf")"
done >"$work/mk.rc"
sed -e 's/"node005 ibp\([0-9]*\)s0f0"/"node003 ibp\1s0f0"/' -e 's/"node020 ibp12s0f0"/"node003 ibp250s0f0"/' "$work/ibp.txt" >"$work/ibpa.txt"
echo kept >"$work/ibpa.conf"; "$TOPO" slurm "$work/ibpa.txt" -o "$work/ibpa.conf" 2>"$work/ibpa.err"; rc=$?
sed -E 's/"(node[0-9]+) mlx5_([0-3])"/"\1 HCA-\2"/; s/HCA-3"/HCA-4"/; s/HCA-2"/HCA-3"/; s/HCA-1"/HCA-2"/; s/HCA-0"/HCA-1"/' "$work/r4.txt" >"$work/hca.txt"
sed 's/"node005 HCA-1"/"node003 hca-01"/' "$work/hca.txt" >"$work/hcac.txt"
"$TOPO" slurm --format view "$work/hcac.txt" -o "$work/hcac.view" 2>/dev/null
if [ "$(cat "$work"/mk3.*.conf | grep -c "^SwitchName=grp-ib-leaf01 Nodes=node\[001-004,006-008\]$")" -eq 3 ] &&
   [ "$(grep -c " 0$" "$work/mk.rc")" -eq 3 ] && [ "$(grep -c " 4 1 kept$" "$work/mk.rc")" -eq 3 ] &&
   [ $rc -eq 1 ] && [ "$(cat "$work/ibpa.conf")" = kept ] && grep -q "'node003 ibp250s0f0' refused: 'node003''s rails are all contested" "$work/ibpa.err" &&
   grep -q "^claimed node003 0 HCA-1:1 [0-9a-f]\{16\},[0-9a-f]\{16\}$" "$work/hcac.view"; then
    ok "a made-up name beside copies moves no host: numberless or on a contested rail, refused; all its rails contested, no file written; a copy spelt hca-01 goes by the fabric's HCA-1"
else
    not_ok "a made-up name beside copies"; diag "$(cat "$work/mk.rc")" "$(grep -h "^SwitchName=grp" "$work"/mk3.*.conf)" "rc=$rc" "$(cat "$work/ibpa.conf")" "$(grep node003 "$work/hcac.view")"
fi
# (helper 61) an admin's map spelling an adapter MLX5_0 (the kernel's
# mlx5_0) and hca=mlx5_[0-3] on the plugstack line: the pattern was matched
# against MLX5_0 and left it out, three rails of four. Another spelling of
# the kernel's name is the kernel's name.
printf '0x%s "node003 MLX5_0"\n' "$(g4 'node003 mlx5_0')" >"$work/spell.map"
"$TOPO" slurm --format view --node-name-map "$work/spell.map" "$work/r4.txt" -o "$work/spell.view" 2>/dev/null
check "hca= matches a map's other spelling of a device as the kernel's name (all four rails)" \
    sh -c "'$TOPO' env '$work/spell.view' --node node003 --nodes node003,node001 --plugstack 'hca=mlx5_[0-3]' --sysfs-root '$work/r4/%n' 2>&1 | grep -q '^  NCCL_IB_HCA==mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1 '"
# (helper 61) and the same name in two spellings (mlx5_0 and MLX5_00): the
# map contradicts itself as much
printf '0x%s "node003 mlx5_0"\n0x%s "node003 MLX5_00"\n' "$(g4 'node003 mlx5_0')" "$(g4 'node005 mlx5_0')" >"$work/map7"
"$TOPO" slurm "$work/r4.txt" --node-name-map "$work/map7" >/dev/null 2>"$work/map7.err"; rc=$?
check "one host adapter name in two spellings for two GUIDs in the map: an error naming the line" \
    sh -c "[ $rc -eq 1 ] && grep -q \"map7:2: found 'node003 MLX5_00' for 0x[0-9a-f]*, given to 0x[0-9a-f]* as 'node003 mlx5_0' on line 1: expected each host adapter name once, in any spelling\" '$work/map7.err'"
# (helper 62) descriptions padded (mlx5_00..03) and node003's devices
# renumbered (the fabric's mlx5_00 is mlx5_3 here...): hca=mlx5_*,!mlx5_3
# names adapters as a healthy node does, so the fabric's mlx5_03 is left out
# (it was matched as mlx5_03 and taken)
sed 's/ mlx5_\([0-3]\)"/ mlx5_0\1"/' "$work/r4.txt" >"$work/pad.txt"
"$TOPO" slurm --format view "$work/pad.txt" -o "$work/pad.view" 2>/dev/null
ibnode "$work/ren/node003" mlx5_3:"$(g4 'node003 mlx5_0')" mlx5_0:"$(g4 'node003 mlx5_1')" mlx5_1:"$(g4 'node003 mlx5_2')" mlx5_2:"$(g4 'node003 mlx5_3')"
check "hca= on a renumbered node reads a padded fabric name as the kernel would write it (!mlx5_3 leaves out the fabric's mlx5_03)" \
    sh -c "'$TOPO' env '$work/pad.view' --node node003 --nodes node003,node001 --plugstack 'hca=mlx5_*,!mlx5_3' --sysfs-root '$work/ren/%n' 2>&1 | grep -q '^  NCCL_IB_HCA==mlx5_3:1,mlx5_0:1,mlx5_1:1 '"
# (helper 62) an honest host's storage card of another generation (mlx4_0,
# on a storage leaf) beside its rails: by its number it was rail 0 beside
# mlx5_0 and went into NCCL_IB_HCA. The adapter named as the rail is named
# is the rail's.
"$TOPO" slurm --format view "$DATA/ibnetdiscover/storage_leaf_mlx4.txt" -o "$work/stor.view" 2>/dev/null
check "a storage card numbered like a rail (mlx4_0 beside mlx5_0) is not the rail's adapter" \
    grep -q "^host node003 [0-9]* 1 mlx5_0:1@[0-9a-f]*,mlx5_1:1@[0-9a-f]*,mlx5_2:1@[0-9a-f]*,mlx5_3:1@[0-9a-f]* " "$work/stor.view"
# ...and with node003's mlx5_0 gone (a dead card, or its cable out), the
# storage card is still no rail: it is on none of the leaves its rail-group
# peers' rail 0 is on. It was rail 0 by its number, no finding, and went
# into NCCL_IB_HCA (mlx4_0:1,mlx5_1:1,...); now node003 lacks rail 0
# (missing-rail) and its plugin sets the three rails it has.
awk 'BEGIN { RS = ""; ORS = "\n\n" } /Ca\t1 "H-98039b0300000080"/ { next }
     { n = split($0, l, "\n"); s = ""
       for (i = 1; i <= n; i++) if (!(l[i] ~ /^\[3\]/ && index(l[i], "\"node003 mlx5_0\""))) s = s (s == "" ? "" : "\n") l[i]
       print s }' "$DATA/ibnetdiscover/storage_leaf_mlx4.txt" >"$work/dead0.txt"
"$TOPO" slurm --format view "$work/dead0.txt" -o "$work/dead0.view" 2>/dev/null
"$TOPO" check "$work/dead0.txt" >"$work/dead0.check" 2>&1
ibnode "$work/dead0/node003" $(for a in mlx4_0 mlx5_1 mlx5_2 mlx5_3; do echo "$a:$(guid_in "$work/dead0.txt" "node003 $a")"; done)
"$TOPO" env "$work/dead0.view" --node node003 --nodes node003,node001 --sysfs-root "$work/dead0/%n" >"$work/dead0.env" 2>&1
if grep -q "^host node003 [0-9]* [0-9]* mlx5_1:1@[0-9a-f]*,mlx5_2:1@[0-9a-f]*,mlx5_3:1@[0-9a-f]* " "$work/dead0.view" &&
   grep -q "missing-rail: node003: host has no adapter on rail mlx5_0" "$work/dead0.check" &&
   grep -q "^  NCCL_IB_HCA==mlx5_1:1,mlx5_2:1,mlx5_3:1 " "$work/dead0.env"; then
    ok "a storage card numbered like a missing rail adapter (mlx4_0, no mlx5_0) is not that rail: missing-rail, NCCL_IB_HCA without it"
else
    not_ok "a storage card numbered like a missing rail adapter"; diag "$(grep node003 "$work/dead0.view" "$work/dead0.check" "$work/dead0.env")"
fi
# ...nor with node004's mlx5_0 gone too: its mlx4_0 on the storage leaf is
# one peer's port of rail 0 there, against six on ib-leaf01
awk 'BEGIN { RS = ""; ORS = "\n\n" } /Ca\t1 "H-98039b03000000c0"/ { next }
     { n = split($0, l, "\n"); s = ""
       for (i = 1; i <= n; i++) if (!(l[i] ~ /^\[4\]/ && index(l[i], "\"node004 mlx5_0\""))) s = s (s == "" ? "" : "\n") l[i]
       print s }' "$work/dead0.txt" >"$work/dead2.txt"
"$TOPO" slurm --format view "$work/dead2.txt" -o "$work/dead2.view" 2>/dev/null
check "two hosts' storage cards numbered like their missing rail adapters are no rail" \
    [ "$(grep -c "^host node00[34] [0-9]* [0-9]* mlx5_1:1@[0-9a-f]*,mlx5_2:1@[0-9a-f]*,mlx5_3:1@[0-9a-f]* " "$work/dead2.view")" -eq 2 ]
# (helper 63) every host with a storage card mlx4_0 beside its mlx5_0: the
# two names tied for rail 0 and the first by its letters (mlx4_0) was the
# rail's, so every host's NCCL_IB_HCA had the storage card and not rail 0;
# with one root renaming its own mlx5_0 (node007 mlx5_9) mlx4_0 won by
# count. A rail is named as the fabric's adapters are (mlx5_).
"$TOPO" slurm --format view "$DATA/ibnetdiscover/storage_card_every_host.txt" -o "$work/sce.view" 2>/dev/null
sed 's/"node007 mlx5_0"/"node007 mlx5_9"/' "$DATA/ibnetdiscover/storage_card_every_host.txt" >"$work/sce9.txt"
"$TOPO" slurm --format view "$work/sce9.txt" -o "$work/sce9.view" 2>/dev/null
check "a storage card on every host (mlx4_0 beside mlx5_0) is no host's rail, nor when one root renames its own mlx5_0" \
    [ "$(cat "$work/sce.view" "$work/sce9.view" | grep -c "^host node0[01][0-9] [0-9]* 1 mlx5_0:1@[0-9a-f]*,mlx5_1:1@[0-9a-f]*,mlx5_2:1@[0-9a-f]*,mlx5_3:1@[0-9a-f]* ")" -eq 23 ]
# (helper 63) a host named apart from the fabric (ibp12s0f0 where most are
# mlx5_0) with its rail-0 cable moved to another group's rail-0 leaf: a
# miscabled rail, kept (the rule above called it missing)
"$TOPO" slurm --format view "$DATA/ibnetdiscover/two_namings_moved_rail.txt" -o "$work/tnm.view" 2>/dev/null
check "a rail of a host named apart, its cable moved to another group's leaf, stays its rail" \
    grep -q "^host node010 [0-9]* 1 ibp12s0f0:1@[0-9a-f]*,ibp75s0f0:1@[0-9a-f]*,ibp141s0f0:1@[0-9a-f]*,ibp186s0f0:1@[0-9a-f]* " "$work/tnm.view"
# (helper 63) not rail-optimised (every host's ports on its rack's leaf):
# one moved cable tied with the other three (a leaf each) and took node003
# to the next rack's group; one made-up name from node006's root made it an
# island of its own beside its rack's leaf. The leaf of most of its rail
# ports is its own.
for f in moved_cable made_up; do
    "$TOPO" slurm "$DATA/ibnetdiscover/not_rail_optimised_$f.txt" -o "$work/nro.$f.conf" 2>/dev/null
done
check "not rail-optimised: a moved cable or a made-up name on the next rack's leaf leaves node003 in its rack's leaf" \
    [ "$(grep -c "^SwitchName=ib-leaf01 Nodes=node\[001-004\]$" "$work/nro.moved_cable.conf" "$work/nro.made_up.conf" | grep -c ':1$')" -eq 2 ]
# a dual-port card with port 1 on the storage leaf and port 2 on the leaf
# of its peers' rail 0: the rail is port 2 (NCCL_IB_HCA had mlx5_0:1)
"$TOPO" slurm --format view "$DATA/ibnetdiscover/storage_port1_dualport.txt" -o "$work/dp.view" 2>/dev/null
ibnode "$work/dp/node003" $(for a in mlx5_0 mlx5_1 mlx5_2 mlx5_3; do echo "$a:$(guid_in "$DATA/ibnetdiscover/storage_port1_dualport.txt" "node003 $a")"; done)
mkdir -p "$work/dp/node003/class/infiniband/mlx5_0/ports/2"
echo InfiniBand >"$work/dp/node003/class/infiniband/mlx5_0/ports/2/link_layer"
echo "4: ACTIVE" >"$work/dp/node003/class/infiniband/mlx5_0/ports/2/state"
check "a dual-port card, port 1 on a storage leaf and port 2 on its peers' rail-0 leaf: the rail is port 2" \
    sh -c "'$TOPO' env '$work/dp.view' --node node003 --nodes node003,node001 --sysfs-root '$work/dp/%n' 2>&1 | grep -q '^  NCCL_IB_HCA==mlx5_0:2,mlx5_1:1,mlx5_2:1,mlx5_3:1 '"
# (helper 62's p3) netdev-named hosts: one copied ibp12s0f0 (node020's
# root) beside seven made-up ibp2NNs0f0 names of node003 (node020's and
# node021's roots), on another rail group's leaves, moved node003 there with
# exit 0: such names carry no number to judge them by. A contested host on
# two rail groups, the second as wide as its own uncontested names could
# reach, is lost (no file written); a copy beside two made-up names still
# leaves it in its own group.
mkp3() {  # M OUT: the copy and M made-up names
    awk -v m="$1" '{ if (index($0, "\"node020 ibp12s0f0\"")) sub(/"node020 ibp12s0f0"/, "\"node003 ibp12s0f0\"")
                     split("node020 ibp75s0f0|node020 ibp141s0f0|node020 ibp186s0f0|node021 ibp12s0f0|node021 ibp75s0f0|node021 ibp141s0f0|node021 ibp186s0f0", a, "|")
                     for (i = 1; i <= m; i++) if (index($0, "\"" a[i] "\"")) sub("\"" a[i] "\"", "\"node003 ibp" (199 + i) "s0f0\"")
                     print }' "$work/ibp.txt" >"$2"
}
mkp3 7 "$work/p3.txt"; mkp3 2 "$work/p3b.txt"
echo kept >"$work/p3.conf"; "$TOPO" slurm "$work/p3.txt" -o "$work/p3.conf" 2>"$work/p3.err"; rc=$?
"$TOPO" slurm "$work/p3b.txt" -o "$work/p3b.conf" 2>/dev/null; rcb=$?
if [ $rc -eq 1 ] && [ "$(cat "$work/p3.conf")" = kept ] && grep -q "node003 would be left out.*its ports are on 2 rail groups (grp-ib-leaf01: 3 leaves, grp-ib-leaf09: 4 leaves)" "$work/p3.err" &&
   [ $rcb -eq 0 ] && grep -q "^SwitchName=grp-ib-leaf01 Nodes=node\[001-008\]$" "$work/p3b.conf"; then
    ok "a copied netdev name beside made-up ones on another rail group's leaves moves no host: lost, no file written (two made-up: it stays)"
else
    not_ok "a copied netdev name beside made-up ones on another rail group"; diag "rc=$rc rcb=$rcb" "$(cat "$work/p3.conf")" "$(grep -v 'refused: adapter' "$work/p3.err")" "$(grep -v '^#' "$work/p3b.conf")"
fi
# (helper 64) a copy of node003's last netdev name and one made-up name
# sorting before its first (ibp11s0f0) took place 0 and shifted its own
# adapters by a rail: node003 went to node021's group, exit 0. Four names
# one root made up for it (ibp1s0f0..ibp4s0f0, no copy), sorting first, on
# another group's four leaves tied with its own four and won; so did
# numberless ones (a..d) for an mlx5-named node027. A contested host's
# shifted places go by their leaves, and a tie by the fabric's rail names.
sed -e 's/"node021 ibp141s0f0"/"node003 ibp11s0f0"/' -e 's/"node021 ibp186s0f0"/"node003 ibp186s0f0"/' "$work/ibp.txt" >"$work/h64a.txt"
sed -e 's/"node020 ibp12s0f0"/"node003 ibp1s0f0"/' -e 's/"node020 ibp75s0f0"/"node003 ibp2s0f0"/' \
    -e 's/"node020 ibp141s0f0"/"node003 ibp3s0f0"/' -e 's/"node020 ibp186s0f0"/"node003 ibp4s0f0"/' "$work/ibp.txt" >"$work/h64b.txt"
"$TOPO" generate --rails 4 --hosts 8 | sed -e 's/"node020 mlx5_0"/"node027 a"/' -e 's/"node020 mlx5_1"/"node027 b"/' \
    -e 's/"node020 mlx5_2"/"node027 c"/' -e 's/"node020 mlx5_3"/"node027 d"/' >"$work/h64c.txt"
for x in a b c; do "$TOPO" slurm "$work/h64$x.txt" -o "$work/h64$x.conf" 2>/dev/null; echo "$x $?"; done >"$work/h64.rc"
if [ "$(grep -c ' 0$' "$work/h64.rc")" -eq 3 ] && grep -q "^SwitchName=grp-ib-leaf01 Nodes=node\[001-008\]$" "$work/h64a.conf" &&
   grep -q "^SwitchName=grp-ib-leaf01 Nodes=node\[001-008\]$" "$work/h64b.conf" && grep -q "^SwitchName=grp-ib-leaf13 Nodes=node\[025-032\]$" "$work/h64c.conf"; then
    ok "made-up names sorting before a host's own (beside a copy, or four with none) move no host: shifted places go by leaves, a tie by rail names"
else
    not_ok "made-up names sorting before a host's own"; diag "$(cat "$work/h64.rc")" "$(grep -h -v '^#' "$work"/h64?.conf)"
fi
# (helper 64) one root giving two of its own adapters the one made-up name
# node003 mlx5_7 (nothing of node003's copied) made it contested, and
# node003's four netdev names were refused as numberless beside it: the
# Slurm files froze. A numberless name that is a rail's name is no made-up one.
sed -e 's/"node022 ibp12s0f0"/"node003 mlx5_7"/' -e 's/"node022 ibp75s0f0"/"node003 mlx5_7"/' "$work/ibp.txt" >"$work/h64d.txt"
printf 'NodeName=node[001-032]\n' >"$work/h64d.slurm.conf"
"$TOPO" slurm --format view "$work/h64d.txt" -o "$work/h64d.view" 2>/dev/null
check "a made-up numbered name two adapters claim freezes nothing beside a host's own netdev-named rails, nor refuses one" \
    sh -c "'$TOPO' slurm '$work/h64d.txt' --slurm-nodes '$work/h64d.slurm.conf' -o '$work/h64d.conf' 2>/dev/null &&
           grep -q '^host node003 [0-9]* 1 ibp12s0f0:1@[0-9a-f]*,ibp75s0f0:1@[0-9a-f]*,ibp141s0f0:1@[0-9a-f]*,ibp186s0f0:1@[0-9a-f]* ' '$work/h64d.view'"
# (helper 65) one made-up name sorting first (node003 ibp1s0f0, node020's
# root, no copy) was listed in node003's host line beside its own
# ibp12s0f0, node020's GUID first; beside a copy of ibp12s0f0 it took rail
# 0's place and the claimed record was gone. Two ports on one rail: the
# one named as the rail is.
sed 's/"node020 ibp12s0f0"/"node003 ibp1s0f0"/' "$work/ibp.txt" >"$work/h65a.txt"
sed -e 's/"node020 ibp12s0f0"/"node003 ibp12s0f0"/' -e 's/"node020 ibp75s0f0"/"node003 ibp1s0f0"/' "$work/ibp.txt" >"$work/h65b.txt"
"$TOPO" slurm --format view "$work/h65a.txt" -o "$work/h65a.view" 2>/dev/null
"$TOPO" slurm --format view "$work/h65b.txt" -o "$work/h65b.view" 2>/dev/null
g20=$(guid_in "$work/ibp.txt" "node020 ibp12s0f0")
if grep -q "^host node003 [0-9]* 1 ibp12s0f0:1@[0-9a-f]*,ibp75s0f0:1@[0-9a-f]*,ibp141s0f0:1@[0-9a-f]*,ibp186s0f0:1@[0-9a-f]* " "$work/h65a.view" &&
   grep -q "^host node003 [0-9]* 1 ibp75s0f0:1@[0-9a-f]*,ibp141s0f0:1@[0-9a-f]*,ibp186s0f0:1@[0-9a-f]* " "$work/h65b.view" &&
   grep -q "^claimed node003 0 ibp12s0f0:1 [0-9a-f]*,$g20$" "$work/h65b.view"; then
    ok "a made-up name sorting first joins no host line (alone, or beside a copy, whose claim stays)"
else
    not_ok "a made-up name sorting first"; diag "$(grep node003 "$work/h65a.view" "$work/h65b.view")"
fi
# (helper 63) node003's first card dead, the kernel's numbering moved down:
# its storage card (now mlx5_3, on ib-stor01) was rail 3 in NCCL_IB_HCA
# and node003 went onto the storage leaf in topology.conf. A port on a
# leaf where no other host has a rail but another has other ports is no
# rail, and a host whose rail ports are all on other rails' leaves goes
# by them.
"$TOPO" slurm "$DATA/ibnetdiscover/renumbered_dead_card.txt" -o "$work/ren.conf" 2>/dev/null
"$TOPO" slurm --format view "$DATA/ibnetdiscover/renumbered_dead_card.txt" -o "$work/ren.view" 2>/dev/null
if grep -q "^SwitchName=grp-ib-leaf01 Nodes=node\[001-004\]$" "$work/ren.conf" &&
   grep -q "^host node003 [0-9]* [0-9]* mlx5_0:1@[0-9a-f]*,mlx5_1:1@[0-9a-f]*,mlx5_2:1@[0-9a-f]* " "$work/ren.view"; then
    ok "a renumbered node (first card dead): its storage card is no rail, and it stays in its rail group"
else
    not_ok "a renumbered node"; diag "$(grep -v '^#' "$work/ren.conf")" "$(grep node003 "$work/ren.view")"
fi
# A site's own HCA-N names counting from 0 (gpu01 HCA-0..HCA-3): read as
# OFED's, from 1, HCA-0 took HCA-1's place and one rail of every host was
# gone from NCCL_IB_HCA with 0 findings. The fabric's names decide, by
# hosts; one root's made-up names decide nothing of a fabric that is named
# otherwise (a per-host rule let one made-up "node003 HCA-0" shift node003's
# rails, helper 62): 20 roots' HCA-0s on 20 of 32 hosts of an OFED-named
# fabric move no host, nor do 20 ghost hosts' HCA-1s a fabric counting from 0.
sed -E 's/"(node[0-9]+) mlx5_([0-3])"/"\1 HCA-\2"/' "$work/r4.txt" >"$work/hz.txt"
"$TOPO" slurm --format view "$work/hz.txt" -o "$work/hz.view" 2>/dev/null
"$TOPO" check "$work/hz.txt" >"$work/hz.check" 2>&1
ibnode "$work/hz/node003" mlx5_0:"$(g4 'node003 mlx5_0')" mlx5_1:"$(g4 'node003 mlx5_1')" mlx5_2:"$(g4 'node003 mlx5_2')" mlx5_3:"$(g4 'node003 mlx5_3')"
"$TOPO" env "$work/hz.view" --node node003 --nodes node003,node001 --sysfs-root "$work/hz/%n" >"$work/hz.env" 2>&1
awk '/^Ca/ && /"node02[5-9] HCA-[1-4]"/ { sub(/"node02[5-9] HCA-[1-4]"/, sprintf("\"node%03d HCA-0\"", ++n)) } { print }' "$work/hca.txt" >"$work/hz1.txt"
awk '/^Ca/ && /"node02[5-9] HCA-[0-3]"/ { sub(/"node02[5-9] HCA-[0-3]"/, sprintf("\"ghost%02d HCA-1\"", ++n)) } { print }' "$work/hz.txt" >"$work/hz0.txt"
for f in hca hz1 hz hz0; do "$TOPO" slurm "$work/$f.txt" -o - 2>/dev/null | grep "^SwitchName=grp" | grep -v "leaf13"; done >"$work/hz.conf"
# (helper 66) one root's eight adapters named as eight made-up hosts' HCA-1
# outvoted eight honest hosts counting from 0 (each lost HCA-0, 0 findings):
# a host counted for 1 now takes two adapters. One dead HCA-0 on a fabric
# of two tied, and read from 1: a tie reads from 0. Hosts named the other
# way are named (hca-numbering).
"$TOPO" generate --groups 1 --hosts 8 --rails 8 | sed -E 's/"(node[0-9]+) mlx5_([0-9]+)"/"\1 HCA-\2"/' >"$work/g8z.txt"
awk '/^Ca/ && /"node008 HCA-[0-7]"/ { sub(/"node008 HCA-[0-7]"/, sprintf("\"evil%02d HCA-1\"", n++)) } { print }' "$work/g8z.txt" >"$work/g8e.txt"
"$TOPO" generate --groups 1 --hosts 2 --rails 4 | sed -E 's/"(node[0-9]+) mlx5_([0-9]+)"/"\1 HCA-\2"/; s/"node002 HCA-0"/"MT4129 ConnectX7 Mellanox Technologies"/' >"$work/z2.txt"
"$TOPO" check "$work/z2.txt" >"$work/z2.check" 2>&1
if grep -q "^host node003 [0-9]* [0-9]* HCA-0:1@[0-9a-f]*,HCA-1:1@[0-9a-f]*,HCA-2:1@[0-9a-f]*,HCA-3:1@[0-9a-f]* " "$work/hz.view" &&
   grep -q "^0 findings" "$work/hz.check" && grep -q "^  NCCL_IB_HCA==mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1 " "$work/hz.env" &&
   [ "$(grep -c "^SwitchName=grp-ib-leaf01 Nodes=node\[001-008\]$" "$work/hz.conf")" -eq 4 ] &&
   [ "$(grep -c "^SwitchName=grp-ib-leaf09 Nodes=node\[017-024\]$" "$work/hz.conf")" -eq 4 ] &&
   "$TOPO" slurm --format view "$work/g8e.txt" -o - 2>/dev/null | grep -q "^host node001 [0-9]* [0-9]* HCA-0:1@[0-9a-f]*,HCA-1:1@[0-9a-f]*,HCA-2:1@[0-9a-f]*,HCA-3:1@[0-9a-f]*,HCA-4:1@[0-9a-f]*,HCA-5:1@[0-9a-f]*,HCA-6:1@[0-9a-f]*,HCA-7:1@[0-9a-f]* " &&
   "$TOPO" slurm --format view "$work/z2.txt" -o - 2>/dev/null | grep -q "^host node001 [0-9]* [0-9]* HCA-0:1@[0-9a-f]*,HCA-1:1@[0-9a-f]*,HCA-2:1@[0-9a-f]*,HCA-3:1@[0-9a-f]* " &&
   grep -q "^warning: hca-numbering: node002: adapter names HCA-N are read from 0 .*1 host(s) have no HCA-0.*: node002\." "$work/z2.check"; then
    ok "HCA-N names counting from 0: all four rails; made-up HCA-0s, ghost hosts' HCA-1s or one root's eight made-up hosts move no host and take no rail; a tie reads from 0"
else
    not_ok "HCA-N names counting from 0"; diag "$(grep node003 "$work/hz.view")" "$(tail -3 "$work/hz.check")" "$(cat "$work/hz.env")" "$(cat "$work/hz.conf")" "$(cat "$work/z2.check")"
fi
# (helper 63) DGX-style hosts (storage rails mlx5_1, mlx5_2 on ib-stor01)
# and HGX-style hosts (mlx5_0..7 on the rail leaves) on one group's leaves:
# an HGX host's storage mlx4_1 beside its dead mlx5_1 went by the DGX
# hosts' ports of that rail, on the storage leaf, and into NCCL_IB_HCA. A
# port goes by the peers of its own class when it has some.
fixture_outputs dh dgx_hgx_dead_card.txt
# (helper 66) and with node008, node007's one class peer in its group, gone
# (its CAs back to the firmware's description: powered off, or its root's
# doing), node007 went by the DGX hosts again
sed 's/"node008 mlx5_[0-7]"/"MT4129 ConnectX7 Mellanox Technologies"/' "$DATA/ibnetdiscover/dgx_hgx_dead_card.txt" >"$work/dh8.txt"
"$TOPO" slurm --format view "$work/dh8.txt" -o "$work/dh8.view" 2>/dev/null
if grep -q "^host node007 [0-9]* [0-9]* mlx5_0:1@[0-9a-f]*,mlx5_2:1@[0-9a-f]*,mlx5_3:1@[0-9a-f]*,mlx5_4:1@[0-9a-f]*,mlx5_5:1@[0-9a-f]*,mlx5_6:1@[0-9a-f]*,mlx5_7:1@[0-9a-f]* " "$work/dh8.view" &&
   grep -q "^host node007 [0-9]* [0-9]* mlx5_0:1@[0-9a-f]*,mlx5_2:1@[0-9a-f]*,mlx5_3:1@[0-9a-f]*,mlx5_4:1@[0-9a-f]*,mlx5_5:1@[0-9a-f]*,mlx5_6:1@[0-9a-f]*,mlx5_7:1@[0-9a-f]* " "$work/dh.view" &&
   grep -q "^host node001 [0-9]* [0-9]* mlx5_0:1@[0-9a-f]*,mlx5_1:1@[0-9a-f]*,mlx5_2:1@[0-9a-f]*,mlx5_3:1@[0-9a-f]*,mlx5_4:1@[0-9a-f]*,mlx5_5:1@[0-9a-f]*,mlx5_6:1@[0-9a-f]*,mlx5_9:1@[0-9a-f]*,mlx5_10:1@[0-9a-f]*,mlx5_11:1@[0-9a-f]* " "$work/dh.view" &&
   grep -q "missing-rail: node007" "$work/dh.check"; then
    ok "an HGX host's storage card beside a dead rail adapter is no rail, where DGX hosts' storage rails share the leaf (and with its one class peer gone)"
else
    not_ok "an HGX host's storage card among DGX hosts"; diag "$(grep -e node007 -e node001 "$work/dh.view" "$work/dh8.view")" "$(grep node007 "$work/dh.check")"
fi
# (helper 63's F5) a rail group of one host (node009), its mlx5_0 dead and
# its storage mlx4_0 on ib-stor01: with no peers to judge it by, the card
# was its rail 0 in NCCL_IB_HCA. Named otherwise than the rail, on a switch
# where no host of its class has rail 0 while the others have it on their
# leaves, on a host whose other rails carry their names: no rail.
fixture_outputs og one_host_group_dead_card.txt
if grep -q "^host node009 [0-9]* [0-9]* mlx5_1:1@[0-9a-f]*,mlx5_2:1@[0-9a-f]*,mlx5_3:1@[0-9a-f]* " "$work/og.view" &&
   grep -q "^error: small-rail-group: .*no leaf for rail mlx5_0" "$work/og.check"; then
    ok "a rail group of one host: its storage card beside a dead rail adapter is no rail"
else
    not_ok "a rail group of one host with a storage card"; diag "$(grep node009 "$work/og.view")" "$(cat "$work/og.check")"
fi
# The view took no --slurm-nodes on an InfiniBand fabric: at a site whose
# Slurm names a node by its FQDN (node003.cl.local), topology.conf had the
# FQDN and the view the first label, so the plugin on that node found no
# line of it; and a contested name Slurm has no node of ('ghost') froze the
# view where it no longer froze topology.conf. The view now takes the list.
sed 's/"node003 mlx5_\([0-3]\)"/"node003.cl.local mlx5_\1"/' "$work/r4.txt" >"$work/fq.txt"
printf 'NodeName=node[001-002,004-032] CPUs=64\nNodeName=node003.cl.local CPUs=64\n' >"$work/fq.nodes"
"$TOPO" slurm --format view "$work/fq.txt" --slurm-nodes "$work/fq.nodes" -o "$work/fq.view" 2>"$work/fq.err"; rc1=$?
ibnode "$work/fq/node003.cl.local" mlx5_0:"$(g4 'node003 mlx5_0')" mlx5_1:"$(g4 'node003 mlx5_1')" mlx5_2:"$(g4 'node003 mlx5_2')" mlx5_3:"$(g4 'node003 mlx5_3')"
"$TOPO" env "$work/fq.view" --node node003.cl.local --nodes node003.cl.local,node001 --sysfs-root "$work/fq/%n" >"$work/fq.env" 2>&1
"$TOPO" slurm --format view "$work/ghost.txt" --slurm-nodes "$work/slurm16.conf" -o "$work/ghost.view" 2>"$work/ghostv.err"; rc2=$?
if [ $rc1 -eq 0 ] && grep -q "^host node003.cl.local [0-9]* 1 mlx5_0:1@" "$work/fq.view" &&
   grep -q "^  NCCL_IB_HCA==mlx5_0:1,mlx5_1:1,mlx5_2:1,mlx5_3:1 " "$work/fq.env" &&
   [ $rc2 -eq 0 ] && grep -q "^host node004 " "$work/ghost.view" && grep -q "'ghost': .*Slurm has no node of this name" "$work/ghostv.err"; then
    ok "the view with Slurm's node list: an FQDN Slurm names stays whole (its plugin finds its line), a contested name Slurm lacks freezes nothing"
else
    not_ok "the view with --slurm-nodes"; diag "rc=$rc1 $rc2" "$(cat "$work/fq.err" "$work/ghostv.err")" "$(grep node003 "$work/fq.view")" "$(cat "$work/fq.env")"
fi
# Every adapter of a fabric of 4,096 copying one name: each refusal named
# every claimant's GUID, 671 MB written by check (and as much memory).
# Eight are named, then how many more.
"$TOPO" generate --rails 8 --hosts 64 --pods 2 --groups 4 |
    awk '/^Ca/ && !/"node001 /{ sub(/"node[0-9]+ mlx5_[0-9]+"/, "\"node001 mlx5_0\"") } { print }' >"$work/all1.txt"
"$TOPO" check "$work/all1.txt" >"$work/all1.out" 2>&1; rc=$?
if [ $rc -eq 4 ] && [ "$(wc -c <"$work/all1.out")" -lt 20000000 ] &&
   grep -q "is claimed by 4089 adapters (0x[0-9a-f]*\(, 0x[0-9a-f]*\)\{7\} and 4081 more)" "$work/all1.out"; then
    ok "4,089 copies of one adapter name: each refusal names eight claimants and how many more"
else
    not_ok "4,089 copies of one name"; diag "rc=$rc $(wc -c <"$work/all1.out")" "$(grep -m1 'claimed by' "$work/all1.out" | cut -c1-600)"
fi
# (helper 67) a netdev-named node among mlx5 hosts whose first card died
# (ibp13s0..ibp15s0, numbered by their order, on the leaves of rails 1-3),
# its storage card ibp200s0 on the storage servers' leaf and no other GPU
# host's card there: the card was rail 3 in NCCL_IB_HCA, the node on that
# leaf in topology.conf. A storage or login server's port there counts as
# another host's other port for a port named otherwise than the rail.
"$TOPO" slurm --format view "$DATA/ibnetdiscover/netdev_host_dead_card.txt" -o "$work/nd.view" 2>/dev/null
"$TOPO" slurm "$DATA/ibnetdiscover/netdev_host_dead_card.txt" -o "$work/nd.conf" 2>/dev/null
if grep -q "^host node012 [0-9]* [0-9]* ibp13s0:1@[0-9a-f]*,ibp14s0:1@[0-9a-f]*,ibp15s0:1@[0-9a-f]* " "$work/nd.view" &&
   grep -q "^SwitchName=grp-ib-leaf09 Nodes=node\[009-012\]$" "$work/nd.conf"; then
    ok "a netdev-named node whose first card died: its storage card beside storage servers is no rail, and it stays in its group"
else
    not_ok "a netdev-named node whose first card died"; diag "$(grep node012 "$work/nd.view")" "$(grep -v '^#' "$work/nd.conf")"
fi
# (helper 67) two HGX hosts of one group, each with its mlx5_1 dead and a
# storage mlx4_1 on ib-stor01: the two cards vouched for each other as the
# rail's ports there, and both went into NCCL_IB_HCA with 0 findings; with
# one dead and the other's root renaming its own mlx5_1 (mlx5_8), the
# honest host's card did. A peer's port counts where it is named as the
# class names the rail (here mlx5_1, as every other HGX host has it).
for f in two_dead_cards peer_renamed; do
    "$TOPO" slurm --format view "$DATA/ibnetdiscover/dgx_hgx_$f.txt" -o - 2>/dev/null | grep "^host node00[78] "
    "$TOPO" check "$DATA/ibnetdiscover/dgx_hgx_$f.txt" 2>&1 | grep "missing-rail"
done >"$work/dh2.out"
if [ "$(grep -c '^host node00[78] .*mlx4_1' "$work/dh2.out")" -eq 0 ] && [ "$(grep -c '^host node007 ' "$work/dh2.out")" -eq 2 ] &&
   [ "$(grep -c 'missing-rail: node007: host has no adapter on rail mlx5_1' "$work/dh2.out")" -eq 2 ] &&
   grep -q 'missing-rail: node008: host has no adapter on rail mlx5_1' "$work/dh2.out"; then
    ok "two hosts' storage cards on one leaf, each beside a dead rail adapter, vouch for neither; a peer's own rename makes no storage card a rail"
else
    not_ok "storage cards vouching for each other"; diag "$(cat "$work/dh2.out")"
fi
# (helper 68) node003's last card dead, the kernel named its storage card
# mlx5_3, cabled to the storage server's leaf where no other GPU host has a
# rail port: named as the rail, it stayed rail 3 in NCCL_IB_HCA and the dead
# card was never reported. On a leaf of servers, where its class peers
# have the rail elsewhere, it is no rail.
fixture_outputs rs renumbered_server_leaf.txt
if grep -q "^host node003 [0-9]* [0-9]* mlx5_0:1@[0-9a-f]*,mlx5_1:1@[0-9a-f]*,mlx5_2:1@[0-9a-f]* " "$work/rs.view" &&
   grep -q "missing-rail: node003: host has no adapter on rail mlx5_3" "$work/rs.check"; then
    ok "a renumbered storage card named as the dead rail, on the storage server's leaf: no rail, the dead card reported"
else
    not_ok "a renumbered storage card on a server's leaf"; diag "$(grep node003 "$work/rs.view" "$work/rs.check")"
fi
# (helper 68's worst) the same, the storage server of four cards named
# mlx5_0..3 all on ib-stor01: it was a compute host of the GPU nodes' class,
# so the storage leaf counted as a leaf of rails and node003's renumbered
# storage card stayed rail 3, exit 0, 0 findings. A host of two rails or
# more on one switch, where its class spreads its rails, makes no leaf of
# rails; node003 stays off the storage leaf in topology.conf.
fixture_outputs rs4 renumbered_storage_server4.txt
rs4="$DATA/ibnetdiscover/renumbered_storage_server4.txt"
"$TOPO" slurm "$rs4" >"$work/rs4.conf" 2>&1
ibnode "$work/rs4/node003" $(for a in mlx5_0 mlx5_1 mlx5_2 mlx5_3; do echo "$a:$(guid_in "$rs4" "node003 $a")"; done)
"$TOPO" env "$work/rs4.view" --node node003 --nodes node003,node001 --sysfs-root "$work/rs4/%n" >"$work/rs4.env" 2>&1
grep -q "missing-rail: node003: host has no adapter on rail mlx5_3" "$work/rs4.check" &&
    grep -q "^SwitchName=ib-stor01 Nodes=stor01$" "$work/rs4.conf" && rs4_ok=1
if [ -n "${rs4_ok:-}" ] && grep -q "^  NCCL_IB_HCA==mlx5_0:1,mlx5_1:1,mlx5_2:1 " "$work/rs4.env"; then
    ok "a renumbered storage card beside a four-card storage server on its leaf: no rail, the dead card reported"
else
    not_ok "a renumbered storage card beside a four-card storage server"; diag "$(grep -h -E 'node003|stor01|NCCL_IB_HCA' "$work/rs4.check" "$work/rs4.conf" "$work/rs4.env")"
fi
