#!/bin/sh
# Switch tiers when service hosts hang off the spines. On real 3-tier fabrics
# the UFM server and the login and management nodes are often cabled to a
# spine: in a public ibnetdiscover capture of a 140-node, 8-rail QM8790
# cluster (HyungKwang/My-Programing, "Topology examples (ibnetdiscover).zip",
# Topo.5: two spines carry five such hosts each; not copied here, it has no
# licence) those two spines became leaves, the cores a tier too low, and
# check warned of missing uplinks on eight healthy leaves. The fabric here is
# synthetic and shaped from it: atoll-topo generate's 3-tier, 4-rail fabric
# (2 pods of 2 rail groups, 2 spines a pod, 2 cores), with ufm01 and login01
# (one port each, as there) on spine01, and a management leaf with mgmt01 and
# mgmt02 cabled to spine01 and spine02. Expected, by construction: 16 compute
# leaves and the management leaf are leaves, the 4 spines spines, the 2 cores
# cores; the two pods stay two (a core is no pod's spine). Then the same
# management leaf cabled to the two cores instead (a helper's attack made
# it: the cores came a tier down, level with the spines, and the fabric
# read as two-tier, one pod). And hosts cabled to the cores: a storage
# server with the usual four adapters, two on each core, and one adapter
# whose description (written by its node's root) claims to be node001's:
# either made both cores compute leaves, and one pod of the fabric.
# Last, a single-rail fabric (every host one adapter, so every host counts as
# compute) with a leaf of two hosts cabled straight to the cores, as an
# extension rack or a management leaf is: the cores were a hop from compute
# leaves, level with the spines, and the fabric one pod (a helper's attack).
# And one cable by mistake from a leaf of one pod to a spine of the other:
# the pods were one (the helper's attack on Selene's capture did the same).
# And one host cable moved to the other pod's leaf of the same rail: the two
# rail groups, and so the pods, were one. And two-tier: two leaf-spine
# clusters (the generated pods without their cores) that one stray cable
# joins were one pod, as every two-tier subnet was.
. "$(dirname "$0")/../lib.sh"
plan 29
work=$(tmpdir)
# the fabric could not be built: every test fails (the plan is not met)
die() { diag "$1"; exit 1; }
"$TOPO" generate --pods 2 --groups 2 --rails 4 --hosts 2 --spines 2 --cores 2 -o "$work/base.txt" ||
    die "atoll-topo generate failed"
# the generated spines have 16 ports: spine01 gets ufm01 (17), login01 (18)
# and the management leaf (19), spine02 the management leaf (17)
grep -q '^Switch	16 "S-b8599f0300a00000"' "$work/base.txt" && grep -q '^Switch	16 "S-b8599f0300a00001"' "$work/base.txt" ||
    die "the generated fabric changed: $(grep '^Switch.*spine0[12]' "$work/base.txt")"
# with_mgmt SVC LINKS: the generated fabric, plus (SVC 1) ufm01 and login01 on
# spine01's ports 17 and 18, plus the management leaf ib-mgmt01 (mgmt01 and
# mgmt02 on its ports 1 and 2) whose ports 3 and 4 go to LINKS: "GUID:PORT:NAME:LID"
# of the two switches it is cabled to, on the port given
with_mgmt() {
    awk -v svc="$1" -v links="$2" '
BEGIN {
    n = split(links, l, " ")
    for (i = 1; i <= n; i++) { split(l[i], f, ":"); port[f[1]] = f[2]; mport[f[1]] = i + 2 }
}
/^Switch\t16 "S-/ {
    g = substr($3, 4, 16)
    if (g in port) { cur = g; sub(/^Switch\t16/, "Switch\t" port[g]) }
}
cur != "" && /^$/ {
    if (svc && cur == "b8599f0300a00000") {
        print "[17]\t\"H-0c42a10300000010\"[1](0c42a10300000011) \t\t# \"ufm01 mlx5_0\" lid 41 4xHDR"
        print "[18]\t\"H-0c42a10300000020\"[1](0c42a10300000021) \t\t# \"login01 mlx5_0\" lid 42 4xHDR"
    }
    printf "[%d]\t\"S-0c42a10300000100\"[%d]\t\t# \"MF0;ib-mgmt01:MQM8700/U1\" lid 45 4xHDR\n", port[cur], mport[cur]
    cur = ""
}
{ print }
END {
    print "\nvendid=0x2c9\ndevid=0xd2f0\nsysimgguid=0x0c42a10300000100\nswitchguid=0x0c42a10300000100(0c42a10300000100)"
    print "Switch\t4 \"S-0c42a10300000100\"\t\t# \"MF0;ib-mgmt01:MQM8700/U1\" enhanced port 0 lid 45 lmc 0"
    print "[1]\t\"H-0c42a10300000030\"[1](0c42a10300000031) \t\t# \"mgmt01 mlx5_0\" lid 43 4xHDR"
    print "[2]\t\"H-0c42a10300000040\"[1](0c42a10300000041) \t\t# \"mgmt02 mlx5_0\" lid 44 4xHDR"
    for (i = 1; i <= n; i++) {
        split(l[i], f, ":")
        printf "[%d]\t\"S-%s\"[%d]\t\t# \"MF0;%s:MQM8700/U1\" lid %d 4xHDR\n", i + 2, f[1], f[2], f[3], f[4]
    }
    cas = "mgmt01:30:S-0c42a10300000100:1:ib-mgmt01 mgmt02:40:S-0c42a10300000100:2:ib-mgmt01"
    if (svc) cas = "ufm01:10:S-b8599f0300a00000:17:ib-spine01 login01:20:S-b8599f0300a00000:18:ib-spine01 " cas
    m = split(cas, ca, " ")
    for (i = 1; i <= m; i++) {
        split(ca[i], f, ":")
        g = "0c42a103000000" f[2]
        print "\nvendid=0x2c9\ndevid=0x101b\nsysimgguid=0x" g "\ncaguid=0x" g
        print "Ca\t1 \"H-" g "\"\t\t# \"" f[1] " mlx5_0\""
        printf "[1](%s) \t\"%s\"[%s]\t\t# lid %d lmc 0 \"MF0;%s:MQM8700/U1\" lid 17 4xHDR\n", substr(g, 1, 15) "1", f[3], f[4], 40 + i, f[5]
    }
}' "$work/base.txt"
}
with_mgmt 1 "b8599f0300a00000:19:ib-spine01:17 b8599f0300a00001:17:ib-spine02:18" >"$work/svc.txt"

"$TOPO" discover "$work/svc.txt" -o "$work/svc.json" 2>"$work/err" || die "discover: $(cat "$work/err")"
"$TOPO" show "$work/svc.json" >"$work/show"
line=$(grep '^switches:' "$work/show")
if echo "$line" | grep -q '(core 2, leaf 17, spine 4)'; then ok "spines carrying service hosts stay spines: core 2, leaf 17, spine 4"
else not_ok "spines carrying service hosts stay spines: core 2, leaf 17, spine 4"; diag "$line"; fi

line=$(grep '^islands:' "$work/show")
# two compute pods of 4 hosts, and one pod each for the two service switches
if echo "$line" | grep -q 'pod 4 (largest 4)'; then ok "the two compute pods stay two (a core is no pod's spine)"
else not_ok "the two compute pods stay two (a core is no pod's spine)"; diag "$line"; fi

"$TOPO" check "$work/svc.json" >"$work/check" 2>&1
if grep -q '^[0-9]* findings\|^no findings' "$work/check" && ! grep -q 'missing-uplinks' "$work/check"; then ok "check: no missing-uplinks on healthy leaves"
else not_ok "check: no missing-uplinks on healthy leaves"; diag "$(cat "$work/check")"; fi

"$TOPO" slurm "$work/svc.json" -o "$work/topology.conf" 2>"$work/err"
if grep -qx 'SwitchName=ib-spine01 Nodes=login01,ufm01' "$work/topology.conf" &&
   grep -qx 'SwitchName=ib-mgmt01 Nodes=mgmt\[01-02\]' "$work/topology.conf"; then
    ok "topology.conf keeps the service hosts, under the switch they are cabled to"
else not_ok "topology.conf keeps the service hosts, under the switch they are cabled to"; diag "$(cat "$work/topology.conf" "$work/err")"; fi

# the management leaf is a leaf: tier 0 in the JSON, and the spine with hosts tier 1
tiers=$(tr -d ' \n' <"$work/svc.json" | grep -o '"name":"ib-[a-z]*01","sharp":[a-z]*,"tier":[0-9]' | sed 's/"name":"\(ib-[a-z]*01\)".*"tier":\([0-9]\)/\1=\2/' | sort | tr '\n' ' ')
if [ "$tiers" = "ib-core01=2 ib-mgmt01=0 ib-spine01=1 " ]; then ok "tiers: the management leaf 0, the spine with hosts 1, the core 2"
else not_ok "tiers: the management leaf 0, the spine with hosts 1, the core 2"; diag "got: $tiers"; fi

# a fabric of one port per host (every host compute): a switch with hosts is a leaf, as before
"$TOPO" generate --groups 2 --hosts 2 --spines 2 -o "$work/flat.txt"
"$TOPO" show "$work/flat.txt" >"$work/flat.show"
if grep -q '^switches:  4 (leaf 2, spine 2)' "$work/flat.show"; then ok "a one-port fabric: leaves and spines as before"
else not_ok "a one-port fabric: leaves and spines as before"; diag "$(head -3 "$work/flat.show")"; fi


# the management leaf on the cores: core01's and core02's port 17 go to it
with_mgmt 0 "b8599f0300a80000:17:ib-core01:21 b8599f0300a80001:17:ib-core02:22" >"$work/mcore.txt"
"$TOPO" show "$work/mcore.txt" >"$work/mcore.show" 2>&1
line=$(grep '^switches:' "$work/mcore.show")
if echo "$line" | grep -q '(core 2, leaf 17, spine 4)'; then ok "a management leaf on the cores: they stay cores (core 2, leaf 17, spine 4)"
else not_ok "a management leaf on the cores: they stay cores (core 2, leaf 17, spine 4)"; diag "$line"; fi
line=$(grep '^islands:' "$work/mcore.show")
# the two compute pods of 4 hosts, and the management leaf's own
if echo "$line" | grep -q 'pod 3 (largest 4)'; then ok "a management leaf on the cores: the two compute pods stay two"
else not_ok "a management leaf on the cores: the two compute pods stay two"; diag "$line"; fi

# on_cores "NAME:DEV:GUID:CORE:PORT ...": CAs on core01 (CORE 0) or core02 (1), ports 17 up
on_cores() {
    awk -v hosts="$1" '
BEGIN {
    n = split(hosts, h, " ")
    for (i = 1; i <= n; i++) { split(h[i], f, ":"); c = "b8599f0300a8000" f[4]; if (f[5] > top[c]) top[c] = f[5] }
}
/^Switch\t16 "S-b8599f0300a8000[01]"/ { cur = substr($3, 4, 16); if (cur in top) sub(/^Switch\t16/, "Switch\t" top[cur]); else cur = "" }
cur != "" && /^$/ {
    for (i = 1; i <= n; i++) {
        split(h[i], f, ":")
        if ("b8599f0300a8000" f[4] == cur)
            printf "[%d]\t\"H-%s\"[1](%s) \t\t# \"%s %s\" lid %d 4xHDR\n", f[5], f[3], substr(f[3], 1, 15) "1", f[1], f[2], 60 + i
    }
    cur = ""
}
{ print }
END {
    for (i = 1; i <= n; i++) {
        split(h[i], f, ":")
        print "\nvendid=0x2c9\ndevid=0x101b\nsysimgguid=0x" f[3] "\ncaguid=0x" f[3]
        print "Ca\t1 \"H-" f[3] "\"\t\t# \"" f[1] " " f[2] "\""
        printf "[1](%s) \t\"S-b8599f0300a8000%d\"[%d]\t\t# lid %d lmc 0 \"MF0;ib-core0%d:MQM8700/U1\" lid %d 4xHDR\n", substr(f[3], 1, 15) "1", f[4], f[5], 60 + i, f[4] + 1, 21 + f[4]
    }
}' "$work/base.txt"
}
on_cores "storage01:mlx5_0:0c42a10300000500:0:17 storage01:mlx5_1:0c42a10300000510:1:17 storage01:mlx5_2:0c42a10300000520:0:18 storage01:mlx5_3:0c42a10300000530:1:18" >"$work/stor.txt"
"$TOPO" show "$work/stor.txt" >"$work/stor.show" 2>&1
"$TOPO" slurm "$work/stor.txt" -o "$work/stor.conf" 2>&1
if grep -q '^switches: .*(core 2, leaf 16, spine 4)' "$work/stor.show" && grep -q '^islands: .*pod 3 (largest 4)' "$work/stor.show" &&
   ! grep '^SwitchName=pod-' "$work/stor.conf" | grep -q core; then
    ok "a storage server with the usual adapters on the cores: cores stay cores, the compute pods two"
else not_ok "a storage server with the usual adapters on the cores: cores stay cores, the compute pods two"; diag "$(sed -n '2p;$p' "$work/stor.show")" "$(grep -v '^#' "$work/stor.conf")"; fi
"$TOPO" check "$work/stor.txt" >"$work/stor.check" 2>&1
if ! grep -q 'missing-uplinks' "$work/stor.check"; then ok "check: a core that carries hosts is no leaf missing uplinks"
else not_ok "check: a core that carries hosts is no leaf missing uplinks"; diag "$(cat "$work/stor.check")"; fi

on_cores "node001:mlx5_4:0c42a10300000600:0:17" >"$work/claim.txt"
"$TOPO" show "$work/claim.txt" >"$work/claim.show" 2>&1
"$TOPO" slurm "$work/claim.txt" -o "$work/claim.conf" 2>&1
if grep -q '^switches: .*(core 2, leaf 16, spine 4)' "$work/claim.show" && grep -q '^islands: .*pod 2 (largest 4)' "$work/claim.show" &&
   grep -qx 'SwitchName=grp-ib-leaf01 Nodes=node\[001-002\]' "$work/claim.conf"; then
    ok "a description on a core claiming node001's name: node001 keeps its leaves, the pods stay two"
else not_ok "a description on a core claiming node001's name: node001 keeps its leaves, the pods stay two"; diag "$(sed -n '2p;$p' "$work/claim.show")" "$(grep -v '^#' "$work/claim.conf")"; fi
"$TOPO" check "$work/claim.txt" >"$work/claim.check" 2>&1
if grep -q '^warning: host-port-off-leaf: node001: adapter mlx5_4 on ib-core01 (tier 2)' "$work/claim.check"; then ok "check names the port on the core (host-port-off-leaf)"
else not_ok "check names the port on the core (host-port-off-leaf)"; diag "$(cat "$work/claim.check")"; fi

# ext_on_cores "LEAF:CORE ...": a single-rail generated fabric (4-port
# switches) plus one leaf per item, cabled to ib-core0CORE's port 5 (CORE 1
# or 2, or 12 for both, ports 5), with two one-adapter hosts LEAFa and LEAFb
"$TOPO" generate --pods 2 --groups 2 --rails 1 --hosts 2 --spines 2 --cores 2 -o "$work/one.txt" ||
    die "atoll-topo generate failed"
ext_on_cores() {
    awk -v items="$1" '
function ca(i, k, port) { return sprintf("0c42a10300081%d%d%d", i, k, port) }
BEGIN { n = split(items, it, " ") }
/^Switch\t4 "S-b8599f0300a8000[01]"/ {
    cur = substr($3, 19, 1) + 1
    links = ""
    for (i = 1; i <= n; i++) { split(it[i], f, ":"); if (index(f[2], cur)) links = links " " i }
    if (links != "") sub(/^Switch\t4/, "Switch\t5"); else cur = ""
}
cur != "" && /^$/ {
    split(substr(links, 2), ls, " ")
    for (j in ls) { split(it[ls[j]], f, ":"); printf "[5]\t\"S-0c42a103000007%02d\"[%d]\t\t# \"MF0;%s:MQM8700/U1\" lid %d 4xHDR\n", ls[j], 2 + cur, f[1], 70 + ls[j] }
    cur = ""
}
{ print }
END {
    for (i = 1; i <= n; i++) {
        split(it[i], f, ":")
        g = sprintf("0c42a103000007%02d", i)
        print "\nvendid=0x2c9\ndevid=0xd2f0\nsysimgguid=0x" g "\nswitchguid=0x" g "(" g ")"
        print "Switch\t4 \"S-" g "\"\t\t# \"MF0;" f[1] ":MQM8700/U1\" enhanced port 0 lid " 70 + i " lmc 0"
        for (k = 0; k < 2; k++)
            printf "[%d]\t\"H-%s\"[1](%s) \t\t# \"%s%s mlx5_0\" lid %d 4xHDR\n", k + 1, ca(i, k, 0), ca(i, k, 1), f[1], k ? "b" : "a", 80 + 2 * i + k
        for (c = 1; c <= 2; c++)
            if (index(f[2], c))
                printf "[%d]\t\"S-b8599f0300a8000%d\"[5]\t\t# \"MF0;ib-core0%d:MQM8700/U1\" lid %d 4xHDR\n", 2 + c, c - 1, c, 8 + c
        for (k = 0; k < 2; k++) {
            h = ca(i, k, 0)
            print "\nvendid=0x2c9\ndevid=0x101b\nsysimgguid=0x" h "\ncaguid=0x" h
            print "Ca\t1 \"H-" h "\"\t\t# \"" f[1] (k ? "b" : "a") " mlx5_0\""
            printf "[1](%s) \t\"S-%s\"[%d]\t\t# lid %d lmc 0 \"MF0;%s:MQM8700/U1\" lid %d 4xHDR\n", ca(i, k, 1), g, k + 1, 80 + 2 * i + k, f[1], 70 + i
        }
    }
}' "$work/one.txt"
}
ext_on_cores "ext01:12" >"$work/ext.txt"
"$TOPO" show "$work/ext.txt" >"$work/ext.show" 2>&1
"$TOPO" slurm "$work/ext.txt" -o "$work/ext.conf" 2>&1
if grep -q '^switches: .*(core 2, leaf 5, spine 4)' "$work/ext.show" && grep -q '^islands: .*pod 3 (largest 4)' "$work/ext.show" &&
   grep -qx 'SwitchName=pod-ib-leaf01 Switches=ib-leaf01,ib-leaf02' "$work/ext.conf"; then
    ok "a leaf of compute hosts cabled to the cores: cores stay cores, the two pods two"
else not_ok "a leaf of compute hosts cabled to the cores: cores stay cores, the two pods two"; diag "$(sed -n '2p;$p' "$work/ext.show")" "$(grep -v '^#' "$work/ext.conf")"; fi
if grep -qx 'SwitchName=ext01 Nodes=ext01a,ext01b' "$work/ext.conf"; then ok "the leaf on the cores keeps its hosts"
else not_ok "the leaf on the cores keeps its hosts"; diag "$(grep -v '^#' "$work/ext.conf")"; fi
# one such leaf on each core: the path between them runs down through a spine
ext_on_cores "ext01:1 ext02:2" >"$work/ext2.txt"
"$TOPO" show "$work/ext2.txt" >"$work/ext2.show" 2>&1
if grep -q '^switches: .*(core 2, leaf 6, spine 4)' "$work/ext2.show" && grep -q '^islands: .*pod 4 (largest 4)' "$work/ext2.show"; then
    ok "a leaf on each core: cores stay cores, spines spines, the two pods two"
else not_ok "a leaf on each core: cores stay cores, spines spines, the two pods two"; diag "$(sed -n '2p;6p' "$work/ext2.show")"; fi

# add_cables "A:B ...": the single-rail fabric plus a cable from each switch
# A to B (generated names, ports from 5 up)
add_cables() {
    awk -v pairs="$1" '
BEGIN {
    n = split(pairs, p, " ")
    for (i = 1; i <= n; i++) { split(p[i], f, ":"); a[i] = f[1]; b[i] = f[2]; ports[f[1]]++; ports[f[2]]++ }
}
/^Switch\t4 "S-/ {
    cur = ""
    if (match($0, /"MF0;[^:]*:/)) name = substr($0, RSTART + 5, RLENGTH - 6)
    guid[name] = substr($3, 4, 16)
    if (name in ports) { cur = name; sub(/^Switch\t4/, "Switch\t" 4 + ports[name]) }
}
{ lines[++nl] = $0; owner[nl] = cur; if (cur != "" && /^$/) { endof[cur] = nl; cur = "" } }
END {
    for (i = 1; i <= n; i++) {
        pa[i] = 4 + (++used[a[i]]); pb[i] = 4 + (++used[b[i]])
        extra[a[i]] = extra[a[i]] sprintf("[%d]\t\"S-%s\"[%d]\t\t# \"MF0;%s:MQM8700/U1\" lid 1 4xHDR\n", pa[i], guid[b[i]], pb[i], b[i])
        extra[b[i]] = extra[b[i]] sprintf("[%d]\t\"S-%s\"[%d]\t\t# \"MF0;%s:MQM8700/U1\" lid 1 4xHDR\n", pb[i], guid[a[i]], pa[i], a[i])
    }
    for (k = 1; k <= nl; k++) {
        for (sw in endof) if (endof[sw] == k) printf "%s", extra[sw]
        print lines[k]
    }
}' "${2:-$work/one.txt}"
}
# ib-leaf01 (pod 1) cabled to ib-spine03 (pod 2)
add_cables "ib-leaf01:ib-spine03" >"$work/stray.txt"
"$TOPO" show "$work/stray.txt" >"$work/stray.show" 2>&1
"$TOPO" slurm "$work/stray.txt" -o "$work/stray.conf" 2>&1
if grep -q '^links: *25 ' "$work/stray.show" && grep -q '^islands: .*pod 2 (largest 4)' "$work/stray.show" &&
   grep -qx 'SwitchName=pod-ib-leaf01 Switches=ib-leaf01,ib-leaf02' "$work/stray.conf"; then
    ok "a leaf's one cable to the other pod's spine: the two pods stay two"
else not_ok "a leaf's one cable to the other pod's spine: the two pods stay two"; diag "$(sed -n '4p;6p' "$work/stray.show")" "$(grep -v '^#' "$work/stray.conf")"; fi
"$TOPO" check "$work/stray.txt" >"$work/stray.check" 2>&1
if grep -q '^warning: cross-pod-uplink: ib-leaf01: leaf is cabled to ib-spine03, a spine whose other cables come mostly from another pod' "$work/stray.check"; then
    ok "check names the stray cable (cross-pod-uplink)"
else not_ok "check names the stray cable (cross-pod-uplink)"; diag "$(cat "$work/stray.check")"; fi

# two stray cables, from ib-leaf01 to both spines of pod 2: a bridge rule
# misses them (the pods were one)
add_cables "ib-leaf01:ib-spine03 ib-leaf01:ib-spine04" >"$work/stray2.txt"
"$TOPO" show "$work/stray2.txt" >"$work/stray2.show" 2>&1
"$TOPO" check "$work/stray2.txt" >"$work/stray2.check" 2>&1
if grep -q '^links: *26 ' "$work/stray2.show" && grep -q '^islands: .*pod 2 (largest 4)' "$work/stray2.show"; then
    ok "two stray cables to the other pod's spines: the two pods stay two"
else not_ok "two stray cables to the other pod's spines: the two pods stay two"; diag "$(sed -n '4p;6p' "$work/stray2.show")"; fi
if [ "$(grep -c '^warning: cross-pod-uplink: ib-leaf01: leaf is cabled to ib-spine0[34],' "$work/stray2.check")" = 2 ]; then
    ok "check names both stray cables"
else not_ok "check names both stray cables"; diag "$(cat "$work/stray2.check")"; fi

# node001's mlx5_3 moved from ib-leaf04 (pod 1, rail 3) to port 5 of ib-leaf12 (pod 2, rail 3)
sed -e '/^\[1\]	"H-98039b030000000c"\[1\]/d' \
    -e 's/^Switch	4 "S-b8599f0300b0000b"/Switch	5 "S-b8599f0300b0000b"/' \
    -e 's/^\[4\]	"S-b8599f0300a00003"\[4\]\(.*\)$/&\n[5]	"H-98039b030000000c"[1](98039b030000000d) 		# "node001 mlx5_3" lid 26 4xHDR/' \
    -e 's/^\[1\](98039b030000000d) 	"S-b8599f0300b00003"\[1\]		# lid 26 lmc 0 "MF0;ib-leaf04:MQM8700\/U1" lid 4 /[1](98039b030000000d) 	"S-b8599f0300b0000b"[5]		# lid 26 lmc 0 "MF0;ib-leaf12:MQM8700\/U1" lid 12 /' \
    "$work/base.txt" >"$work/moved.txt"
"$TOPO" show "$work/moved.txt" >"$work/moved.show" 2>&1
"$TOPO" slurm "$work/moved.txt" -o "$work/moved.conf" 2>&1
if [ "$(grep -c '"S-b8599f0300b0000b"\[5\]' "$work/moved.txt")" = 1 ] && [ "$(grep -c '^\[5\]	"H-98039b030000000c"' "$work/moved.txt")" = 1 ] &&
   grep -q '^islands: .*group 4 (largest 2), pod 2 (largest 4)' "$work/moved.show" &&
   grep -qx 'SwitchName=grp-ib-leaf01 Nodes=node\[001-002\]' "$work/moved.conf"; then
    ok "a host cable moved to the other pod's leaf: its rail groups and the pods stay apart"
else not_ok "a host cable moved to the other pod's leaf: its rail groups and the pods stay apart"; diag "$(sed -n '6p' "$work/moved.show")" "$(grep -v '^#' "$work/moved.conf")"; fi
"$TOPO" check "$work/moved.txt" >"$work/moved.check" 2>&1
if grep -q '^warning: host-port-other-group: node001: adapter mlx5_3 on ib-leaf12, a leaf of another rail group than its other 3 (ib-leaf01, ib-leaf02, ib-leaf03)' "$work/moved.check"; then
    ok "check names the moved cable (host-port-other-group)"
else not_ok "check names the moved cable (host-port-other-group)"; diag "$(cat "$work/moved.check")"; fi

# the two pods without the cores: two 2-tier clusters, and the stray cable
awk 'BEGIN { RS = ""; ORS = "\n\n" }
     /Switch\t4 "S-b8599f0300a8000/ { next }
     { n = split($0, l, "\n"); out = ""; for (i = 1; i <= n; i++) if (l[i] !~ /ib-core0/) out = out l[i] "\n"; printf "%s\n", out }' \
    "$work/one.txt" >"$work/nocore.txt"
add_cables "ib-leaf01:ib-spine03" "$work/nocore.txt" >"$work/two2.txt"
"$TOPO" show "$work/two2.txt" >"$work/two2.show" 2>&1
"$TOPO" check "$work/two2.txt" >"$work/two2.check" 2>&1
if grep -q '^switches: *8 (leaf 4, spine 4)' "$work/two2.show" && grep -q '^islands: .*pod 2 (largest 4)' "$work/two2.show" &&
   grep -q '^warning: cross-pod-uplink: ib-leaf01: leaf is cabled to ib-spine03' "$work/two2.check"; then
    ok "two leaf-spine clusters a stray cable joins: two pods, and the cable named"
else not_ok "two leaf-spine clusters a stray cable joins: two pods, and the cable named"; diag "$(sed -n '2p;6p' "$work/two2.show")" "$(cat "$work/two2.check")"; fi

# a leaf's stray cable to a core, and one leaf cabled to another: named by check
add_cables "ib-leaf01:ib-core01" >"$work/odd.txt"
"$TOPO" check "$work/odd.txt" >"$work/odd.check" 2>&1
if grep -q '^warning: uplink-skips-tier: ib-leaf01: leaf is cabled to ib-core01 (tier 2) as well as to its 2 spine cables' "$work/odd.check" &&
   ! grep -q 'missing-uplinks' "$work/odd.check"; then ok "check names a leaf's cable to a core (uplink-skips-tier)"
else not_ok "check names a leaf's cable to a core (uplink-skips-tier)"; diag "$(cat "$work/odd.check")"; fi
add_cables "ib-leaf02:ib-leaf03" >"$work/l2l.txt"
"$TOPO" check "$work/l2l.txt" >"$work/l2l.check" 2>&1
if [ "$(grep -c 'leaf-to-leaf-cable' "$work/l2l.check")" = 1 ] && grep -q '^warning: leaf-to-leaf-cable: ib-leaf02: leaf is cabled to leaf ib-leaf03' "$work/l2l.check"; then
    ok "check names a cable between two leaves, once (leaf-to-leaf-cable)"
else not_ok "check names a cable between two leaves, once (leaf-to-leaf-cable)"; diag "$(cat "$work/l2l.check")"; fi

# a pod of 4 rail groups and 4 spines whose ib-leaf01 and ib-leaf02 lost
# their cables to ib-spine03 and ib-spine04 (maintenance, a cut trunk): the
# two degraded groups share each other's spines, and the pod was split in two
# with false cross-pod-uplink warnings (a helper's attack)
"$TOPO" generate --pods 2 --groups 4 --rails 1 --hosts 2 --spines 4 --cores 2 -o "$work/four.txt"
awk 'BEGIN { RS = ""; ORS = "\n\n" }
     { sw = ""; if (match($0, /"MF0;[^:]*:[^"]*" enhanced/)) { sw = substr($0, RSTART + 5, RLENGTH - 5); sub(/:.*/, "", sw) }
       n = split($0, l, "\n"); out = ""
       for (i = 1; i <= n; i++) {
           if ((sw == "ib-leaf01" || sw == "ib-leaf02") && l[i] ~ /ib-spine0[34]:/) continue
           if ((sw == "ib-spine03" || sw == "ib-spine04") && l[i] ~ /ib-leaf0[12]:/) continue
           out = out l[i] "\n"
       }
       printf "%s\n", out }' "$work/four.txt" >"$work/deg.txt"
"$TOPO" show "$work/deg.txt" >"$work/deg.show" 2>&1
"$TOPO" check "$work/deg.txt" >"$work/deg.check" 2>&1
if grep -q '^links: *76 ' "$work/deg.show" && grep -q '^islands: .*pod 2 (largest 8)' "$work/deg.show"; then
    ok "two leaves with the same uplinks missing: their pod stays one"
else not_ok "two leaves with the same uplinks missing: their pod stays one"; diag "$(sed -n '4p;6p' "$work/deg.show")"; fi
if [ "$(grep -c 'missing-uplinks: ib-leaf0[12]: leaf has 2 uplinks where its peers have 4' "$work/deg.check")" = 2 ] &&
   ! grep -q 'cross-pod-uplink' "$work/deg.check"; then ok "check: missing-uplinks on both, no cross-pod-uplink"
else not_ok "check: missing-uplinks on both, no cross-pod-uplink"; diag "$(cat "$work/deg.check")"; fi

# a storage rail: every host's mlx5_0 on one leaf (ib-leaf01's ports 5 up
# take the hosts of the other rail-0 leaves). Each rack's other leaves still
# serve the same hosts: four rail groups, two pods, and no finding (a helper's
# attack: the shared leaf made all 8 hosts one group)
awk '
FNR == NR {
    if ($0 ~ /^Switch\t/) { cur = $0; sub(/^.*"MF0;/, "", cur); sub(/:.*/, "", cur) }
    if ($0 ~ /^$/) cur = ""
    if ((cur == "ib-leaf05" || cur == "ib-leaf09" || cur == "ib-leaf13") && $0 ~ /^\[[0-9]+\]\t"H-/) {
        line = $0; sub(/^\[[0-9]+\]/, "", line)
        g = $0; sub(/^[^"]*"H-/, "", g); sub(/".*/, "", g)
        n++; moved[g] = 4 + n; rest[n] = line
    }
    next
}
/^Switch\t/ { cur = $0; sub(/^.*"MF0;/, "", cur); sub(/:.*/, "", cur); if (cur == "ib-leaf01") sub(/^Switch\t4/, "Switch\t" 4 + n) }
/^Ca\t/ { ca = $3; gsub(/"|H-/, "", ca) }
/^$/ { if (cur == "ib-leaf01") for (i = 1; i <= n; i++) printf "[%d]%s\n", 4 + i, rest[i]; cur = ""; ca = "" }
(cur == "ib-leaf05" || cur == "ib-leaf09" || cur == "ib-leaf13") && /^\[[0-9]+\]\t"H-/ { next }
ca != "" && (ca in moved) && /^\[1\]\(/ {
    sub(/"S-[0-9a-f]*"\[[0-9]+\]/, "\"S-b8599f0300b00000\"[" moved[ca] "]")
    sub(/"MF0;ib-leaf(05|09|13):/, "\"MF0;ib-leaf01:")
}
{ print }' "$work/base.txt" "$work/base.txt" >"$work/stor8.txt"
"$TOPO" show "$work/stor8.txt" >"$work/stor8.show" 2>&1
"$TOPO" check "$work/stor8.txt" >"$work/stor8.check" 2>&1
if grep -q '^Switch	10 "S-b8599f0300b00000"' "$work/stor8.txt" && grep -q '^links: *96 ' "$work/stor8.show" &&
   grep -q '^islands: .*group 4 (largest 2), pod 2 (largest 4)' "$work/stor8.show" &&
   ! grep -q 'host-port-other-group' "$work/stor8.check"; then
    ok "a storage rail on one leaf: four rail groups, two pods, no finding"
else not_ok "a storage rail on one leaf: four rail groups, two pods, no finding"; diag "$(sed -n '4p;6p' "$work/stor8.show")" "$(cat "$work/stor8.check")"; fi

# a rack of one host with one cable moved: node008 gone from the last rail
# group, and node007's mlx5_3 cabled to ib-leaf04 (the first group's rail-4
# leaf) instead of ib-leaf16. The lone host's three other ports keep its rack a
# group of its own (a helper's attack on a partial rack: it joined the first
# group, 3 groups), and check names the moved port
"$TOPO" generate --groups 4 --rails 4 --hosts 2 --spines 2 -o "$work/two.txt"
awk 'BEGIN { RS = ""; ORS = "\n\n" }
/Ca\t1 "H-98039b03000001c[048c]"/ { next }
{
    n = split($0, l, "\n"); out = ""
    for (i = 1; i <= n; i++) {
        if (l[i] ~ /^\[[0-9]+\]\t"H-98039b03000001c[048c]"/) continue
        if (l[i] ~ /^\[1\]\t"H-98039b030000018c"/) continue
        if (l[i] ~ /ib-leaf04:MQM8700\/U1" enhanced/) sub(/^Switch\t4/, "Switch\t5", l[i])
        if (l[i] ~ /^\[1\]\(98039b030000018d\)/)
            l[i] = "[1](98039b030000018d) \t\"S-b8599f0300b00003\"[5]\t\t# lid 46 lmc 0 \"MF0;ib-leaf04:MQM8700/U1\" lid 4 4xHDR"
        out = out (out == "" ? "" : "\n") l[i]
        if (l[i] ~ /^\[4\]\t"S-b8599f0300a00001"\[4\]/)
            out = out "\n[5]\t\"H-98039b030000018c\"[1](98039b030000018d) \t\t# \"node007 mlx5_3\" lid 46 4xHDR"
    }
    print out
}' "$work/two.txt" >"$work/lone.txt"
"$TOPO" show "$work/lone.txt" >"$work/lone.show" 2>&1
"$TOPO" check "$work/lone.txt" >"$work/lone.check" 2>&1
if grep -q '^hosts: *7 ' "$work/lone.show" && grep -q '^links: *60 ' "$work/lone.show" &&
   grep -q '^islands: .*group 4 (largest 2), pod 1 (largest 7)' "$work/lone.show"; then
    ok "a one-host rack with a moved cable stays a rail group of its own"
else not_ok "a one-host rack with a moved cable stays a rail group of its own"; diag "$(sed -n '3,6p' "$work/lone.show")"; fi
if grep -q '^warning: host-port-other-group: node007: adapter mlx5_3 on ib-leaf04' "$work/lone.check"; then
    ok "check names the lone host's moved port (host-port-other-group)"
else not_ok "check names the lone host's moved port (host-port-other-group)"; diag "$(cat "$work/lone.check")"; fi
