#!/bin/sh
# LLDP tables as sites have them (helper 70): switches that share a system
# name (SONiC's factory "sonic"), a node whose table came back empty, a
# VLAN interface whose name holds a dot, and lldpcli's plain output.
. "$(dirname "$0")/../lib.sh"
plan 20
work=$(tmpdir)
d="$DATA/lldp/sonic"
# variant NAME: a copy of the fabric's tables in $work/NAME, to change
variant() { mkdir "$work/$1" && cp "$d"/*.keyvalue "$work/$1/"; }
# slurm_of NAME: topology.conf of the variant in NAME.conf, stderr in NAME.err
slurm_of() { "$TOPO" slurm "$work/$1" >"$work/$1.conf" 2>"$work/$1.err"; }
# cabled FILE: topology.conf FILE holds the two groups' hosts as cabled
cabled() {
    grep -q "^SwitchName=grp-leaf-g1-r1 Nodes=gpu\[01-04\]$" "$1" && grep -q "^SwitchName=grp-leaf-g2-r1 Nodes=gpu\[05-08\]$" "$1"
}

# Two leaves of two groups both send the name "sonic" under their own chassis
# IDs: two switches, the hosts in two leaf islands as cabled (they were one
# island of gpu[01-08], exit 0, nothing said)
"$TOPO" slurm "$d" >"$work/sonic.conf" 2>"$work/sonic.err"
if cabled "$work/sonic.conf" && ! grep -q "gpu\[01-08\]" "$work/sonic.conf"; then
    ok "two leaves named sonic with two chassis IDs are two switches: two leaf islands as cabled"
else
    not_ok "two leaves named sonic"; diag "$(cat "$work/sonic.conf")"
fi
if grep -q "warning: .*: the switch name 'sonic' is sent by 2 chassis IDs, 'aa:bb:cc:00:00:00' (4 tables: sonic-aabbcc000000), 'aa:bb:cc:01:00:00' (4 tables: sonic-aabbcc010000): taken for that many switches; give each switch its own hostname" "$work/sonic.err"; then
    ok "the shared name is said, with each chassis ID and the name it is given"
else
    not_ok "the shared name is said"; diag "$(cat "$work/sonic.err")"
fi
# one host's table naming sonic under a third chassis ID: its own sonic is
# a switch one table names (not believed), and the leaves keep their hosts
variant third
sed -i 's/^lldp.ens1np0.chassis.mac=aa:bb:cc:01:00:00$/lldp.ens1np0.chassis.mac=de:ad:be:ef:00:00/' "$work/third/gpu08.keyvalue"
slurm_of third
if cabled "$work/third.conf"; then
    ok "a third chassis ID under the shared name from one table moves no other host"
else
    not_ok "a third chassis ID under the shared name"; diag "$(cat "$work/third.conf" "$work/third.err")"
fi

# (helper 71) entry FILE IFACE NAME IDKEY ID PORT [station]: an interface's
# neighbour appended to a table
entry() {
    { echo "lldp.$2.via=LLDP"; echo "lldp.$2.chassis.$4=$5"; [ -n "$3" ] && echo "lldp.$2.chassis.name=$3"
      if [ "${7:-}" = station ]; then echo "lldp.$2.chassis.Bridge.enabled=off"; echo "lldp.$2.chassis.Station.enabled=on"
      else echo "lldp.$2.chassis.Bridge.enabled=on"; fi
      echo "lldp.$2.port.ifname=$6"; } >>"$1"
}
# gpu01's root names gpu05's port on the g2 leaf under a made-up chassis ID,
# as a Station: a switch its table alone names (it stopped the files, gpu05
# lost to a port contest); two roots naming sonic under an ID whose letters
# spell the g2 leaf's new name: a switch of its own, no contest
variant station
entry "$work/station/gpu01.keyvalue" eno5 sonic mac de:ad:00:00:00:01 Ethernet60 station
variant spell
for h in gpu01 gpu02; do entry "$work/spell/$h.keyvalue" eno6 sonic local aabbcc010000 Ethernet60; done
# (helper 72) gpu01 and gpu02 each list both leaves' IDs under sonic on one
# interface: two switches still (the IDs are seen apart by six tables)
variant join
for h in gpu01 gpu02; do
    entry "$work/join/$h.keyvalue" eno5 sonic mac aa:bb:cc:00:00:00 Ethernet70
    entry "$work/join/$h.keyvalue" eno5 sonic mac aa:bb:cc:01:00:00 Ethernet71
done
slurm_of station; slurm_of spell; slurm_of join
if grep -q "^SwitchName=grp-leaf-g2-r1 Nodes=gpu\[05-08\]$" "$work/station.conf" "$work/spell.conf" "$work/join.conf" &&
   [ "$(grep -c "^SwitchName=grp-leaf-g2-r1 Nodes=gpu\[05-08\]$" "$work/station.conf" "$work/spell.conf" "$work/join.conf" | grep -c ':1$')" -eq 3 ] &&
   grep -q "'aabbcc010000' (2 tables: sonic-[0-9a-f]\{8\})" "$work/spell.err"; then
    ok "a made-up chassis ID (as a Station, spelling another switch's new name) or two switches' IDs on one interface move no honest host"
else
    not_ok "a made-up chassis ID moves no honest host"; diag "$(cat "$work/station.conf" "$work/station.err" "$work/spell.conf" "$work/spell.err" "$work/join.conf" "$work/join.err")"
fi
# honest: leaf-g1-r1 replaced, gpu01 and gpu02 still list the old chassis
# beside the new one on ens2np0 (lldpd keeps it until its TTL), at another
# port (helper 72: the two links contested the host's port, nothing
# written); gpu03 sees its leaf with no system name, the same MAC: one switch
variant rma
for h in gpu01 gpu02; do entry "$work/rma/$h.keyvalue" ens2np0 leaf-g1-r1 mac aa:bb:cc:00:99:99 Ethernet99; done
sed -i '/^lldp\.ens2np0\.chassis\.name=/d' "$work/rma/gpu03.keyvalue"
slurm_of rma
if grep -q "^SwitchName=grp-leaf-g1-r1 Nodes=gpu\[01-04\]$" "$work/rma.conf" && ! grep -q "nothing written\|not believed" "$work/rma.err" &&
   grep -q "'leaf-g1-r1': chassis ID 'aa:bb:cc:00:99:99' beside 'aa:bb:cc:00:01:00', only on the interfaces that see the other: a replaced switch's entry" "$work/rma.err"; then
    ok "a replaced switch's stale entry beside the new one, and a neighbour seen without its name: one switch each"
else
    not_ok "a stale entry and a nameless neighbour"; diag "$(cat "$work/rma.conf" "$work/rma.err")"
fi

# SONiC's own test output: one chassis seen on Ethernet0 by its MAC alone
# and on Ethernet100 as switch13 is one switch (it was two, and the host's
# two ports two rails)
"$TOPO" slurm --format view "$DATA/lldp/sonic-interface-only.json" >"$work/nameless.view" 2>&1
if grep -q "^island leaf switch13 " "$work/nameless.view" && ! grep -q "00-11-22-33-44-55" "$work/nameless.view" &&
   grep -q "^host sonic-interface-only 0 1 Ethernet0:1,Ethernet100:1 2 " "$work/nameless.view"; then
    ok "a chassis seen by its ID alone on one port and by name on another is one switch (SONiC's interface_only)"
else
    not_ok "a chassis seen by ID alone and by name"; diag "$(cat "$work/nameless.view")"
fi

# gpu08's table empty (lldpd down, the copy cut short): said, naming the file
variant empty
: >"$work/empty/gpu08.keyvalue"
slurm_of empty
if grep -q "^atoll-topo: warning: $work/empty/gpu08.keyvalue: a table with no LLDP neighbour (empty, or cut short; is lldpd running there?): its system is not placed$" "$work/empty.err" &&
   grep -q "^SwitchName=grp-leaf-g2-r1 Nodes=gpu\[05-07\]$" "$work/empty.conf"; then
    ok "an empty table is said, naming its file; the others are placed"
else
    not_ok "an empty table"; diag "$(cat "$work/empty.err" "$work/empty.conf")"
fi

# a VLAN interface ens1np0.100 (lldpcli: lldp.ens1np0.100.via=LLDP): its
# neighbour is read whole, not dropped for a missing rail
variant vlan
sed -i 's/^lldp\.ens1np0\./lldp.ens1np0.100./' "$work/vlan/gpu01.keyvalue"
"$TOPO" check "$work/vlan" >"$work/vlan.check" 2>&1
"$TOPO" slurm --format view "$work/vlan" >"$work/vlan.view" 2>&1
if ! grep -q "missing-rail" "$work/vlan.check" && grep -q "^host gpu01 .*ens1np0\.100:1" "$work/vlan.view"; then
    ok "an interface name with a dot (a VLAN's ens1np0.100) is read whole"
else
    not_ok "an interface name with a dot"; diag "$(grep -h gpu01 "$work/vlan.check" "$work/vlan.view")"
fi

# lldpcli's plain output (the default, what an admin gathers first): a clear
# error naming the option, not "is this ibnetdiscover output?"
for f in 1_one_neighbor.neighbors_details.plain 1_one_neighbor.chassis.plain; do
    "$TOPO" show "$DATA/lldp/$f" >/dev/null 2>>"$work/plain.err" && echo "exit 0 on $f" >>"$work/plain.err"
done
if [ "$(grep -c "lldpcli's default (plain) output ('\(LLDP neighbors\|Local chassis\):'), expected lldpcli -f keyvalue show neighbors details" "$work/plain.err")" -eq 2 ] &&
   ! grep -q "exit 0\|ibnetdiscover" "$work/plain.err"; then
    ok "lldpcli's plain output: a clear error naming -f keyvalue, non-zero exit"
else
    not_ok "lldpcli's plain output"; diag "$(cat "$work/plain.err")"
fi

# every chassis and port ID subtype lldpcli -f keyvalue writes (lldpd's
# chassis_id_subtype_map and port_id_subtype_map: ifname, ifalias, local,
# mac, ip, unhandled): a switch that sends its port as an interface alias,
# or its chassis as a component, is still a switch (the site had "no switch")
variant subtypes
sed -i 's/^\(lldp\.[a-z0-9]*\)\.port\.ifname=/\1.port.ifalias=/; s/\.chassis\.mac=/.chassis.unhandled=/' "$work/subtypes/"gpu0[1-4].keyvalue
sed -i 's/^\(lldp\.[a-z0-9]*\)\.port\.ifname=/\1.port.unhandled=/; s/\.chassis\.mac=/.chassis.ifname=/' "$work/subtypes/"gpu0[5-8].keyvalue
slurm_of subtypes
if cabled "$work/subtypes.conf" && grep -q "'aa:bb:cc:01:00:00' (4 tables: sonic-aabbcc010000)" "$work/subtypes.err"; then
    ok "chassis and port IDs of every lldpcli subtype (ifalias, ifname, unhandled) are read"
else
    not_ok "chassis and port ID subtypes"; diag "$(cat "$work/subtypes.conf" "$work/subtypes.err")"
fi

# an MLAG pair sending one chassis ID under two names, and gpu04 seeing it
# by the ID alone: which of the two it is no table says; said, not silent
# (helper 72: a switch of its own without a word)
variant mlag
sed -i 's/aa:bb:cc:01:01:00/aa:bb:cc:00:01:00/' "$work/mlag/"gpu0[5-8].keyvalue
sed -i '/^lldp\.ens2np0\.chassis\.name=/d' "$work/mlag/gpu04.keyvalue"
slurm_of mlag
if grep -q "warning: $work/mlag: a neighbour given by chassis ID 'aa:bb:cc:00:01:00' alone (gpu04) is sent by 'leaf-g1-r1', 'leaf-g2-r1' with their names: taken for a switch of its own" "$work/mlag.err" &&
   cabled "$work/mlag.conf"; then
    ok "a neighbour given by an ID two named switches send (an MLAG pair) is said, and moves no host"
else
    not_ok "a neighbour given by an MLAG pair's ID"; diag "$(cat "$work/mlag.conf" "$work/mlag.err")"
fi

# (helper 73) one table that cannot be read (cut mid-line, lldpcli's error
# where lldpd was down, pdsh's ssh error in its place) among others: warned,
# naming the file and line, that system not placed, the others written (one
# such table stopped every file of the site); a pdsh collection the same
variant unread
printf '[lldpcli] unable to connect to lldpd daemon\n' >"$work/unread/gpu08.keyvalue"
{ head -n 5 "$d/gpu07.keyvalue"; printf "lldp.ens1np0.chassi"; } >"$work/unread/gpu07.keyvalue"
slurm_of unread
for h in gpu01 gpu02 gpu03 gpu04 gpu05 gpu06 gpu07; do sed "s/^/$h: /" "$d/$h.keyvalue"; done >"$work/pdsh.txt"
echo "gpu08: ssh: connect to host gpu08 port 22: Connection refused" >>"$work/pdsh.txt"
"$TOPO" slurm "$work/pdsh.txt" >"$work/pdsh.conf" 2>"$work/pdsh.err"
if grep -q "^atoll-topo: warning: $work/unread/gpu08.keyvalue:1: found '\[lldpcli\] unable to connect to lldpd daemon', expected lldp.INTERFACE.KEY=VALUE: that table is not read, its system not placed$" "$work/unread.err" &&
   grep -q "^atoll-topo: warning: $work/unread/gpu07.keyvalue:[0-9]*: found .*: that table is not read" "$work/unread.err" &&
   grep -q "^SwitchName=grp-leaf-g2-r1 Nodes=gpu\[05-06\]$" "$work/unread.conf" &&
   grep -q "^atoll-topo: warning: $work/pdsh.txt (gpu08):1: found 'ssh: connect to host gpu08 port 22: Connection refused'.*: that table is not read" "$work/pdsh.err" &&
   grep -q "^SwitchName=grp-leaf-g2-r1 Nodes=gpu\[05-07\]$" "$work/pdsh.conf"; then
    ok "a table that cannot be read among others (lldpd down, cut short, pdsh's ssh error): warned with FILE:LINE, the others written"
else
    not_ok "a table that cannot be read among others"; diag "$(cat "$work/unread.err" "$work/unread.conf" "$work/pdsh.err" "$work/pdsh.conf")"
fi
# lldpcli before 0.9.1 wrote a multi-line description as it came (NX-OS's
# system description): its next lines are part of it, not an error
variant nxos
sed -i 's/^\(lldp\.ens1np0\.chassis\.descr=\)Linux$/\1Cisco Nexus Operating System (NX-OS) Software 10.2(5)\nTAC support: http:\/\/www.cisco.com\/tac\nCopyright (c) 2002-2022, Cisco Systems, Inc. All rights reserved./' "$work/nxos/"gpu0[1-4].keyvalue
slurm_of nxos
if cabled "$work/nxos.conf" && ! grep -q "not read" "$work/nxos.err"; then
    ok "a multi-line description (lldpcli before 0.9.1) is read as one value"
else
    not_ok "a multi-line description"; diag "$(cat "$work/nxos.err" "$work/nxos.conf")"
fi
# lldpd hearing CDPv2 too (-c) beside LLDP from the same switch: a second
# entry on each interface, its chassis ID the device ID, no MAU; where an
# interface has an LLDP entry the CDP one is not read (every host was
# undecided, the plugin setting nothing; one host's switches were split)
variant cdp
for h in gpu01 gpu02 gpu03 gpu04 gpu05 gpu06 gpu07 gpu08; do
    for i in ens1np0 ens2np0; do
        name=$(sed -n "s/^lldp\.$i\.chassis\.name=//p" "$work/cdp/$h.keyvalue")
        port=$(sed -n "s/^lldp\.$i\.port\.ifname=//p" "$work/cdp/$h.keyvalue")
        { echo "lldp.$i.via=CDPv2"; echo "lldp.$i.chassis.local=$name(FDO2231ABCD)"; echo "lldp.$i.chassis.name=$name(FDO2231ABCD)"
          echo "lldp.$i.chassis.Bridge.enabled=on"; echo "lldp.$i.port.ifname=$port"; } >>"$work/cdp/$h.keyvalue"
    done
done
slurm_of cdp
"$TOPO" slurm --format view "$work/cdp" >"$work/cdp.view" 2>/dev/null
if cabled "$work/cdp.conf" && ! grep -q "^undecided\|FDO" "$work/cdp.view" "$work/cdp.conf"; then
    ok "CDPv2 entries beside LLDP ones on an interface are not read: the hosts decided, no switch split"
else
    not_ok "CDPv2 beside LLDP"; diag "$(cat "$work/cdp.err" "$work/cdp.conf")" "$(grep -v "^host" "$work/cdp.view" | head)"
fi
# one host's lldpd still holding a replaced leaf's entry (its TTL) beside
# the new one, the others collected after: that one table's old ID is
# stale, left out; the host keeps its rail (a port contest took it)
variant stale1
entry "$work/stale1/gpu01.keyvalue" ens2np0 leaf-g1-r1 mac aa:bb:cc:00:99:99 Ethernet0
slurm_of stale1
"$TOPO" slurm --format view "$work/stale1" >"$work/stale1.view" 2>/dev/null
if grep -q "^host gpu01 .*ens2np0:1" "$work/stale1.view" && grep -q "a replaced switch's entry" "$work/stale1.err" &&
   ! grep -q "not believed" "$work/stale1.err"; then
    ok "a replaced leaf's stale entry in one host's table is left out: the host keeps its rail"
else
    not_ok "a stale entry in one table"; diag "$(cat "$work/stale1.err")" "$(grep "^host gpu01" "$work/stale1.view")"
fi
# (helper 73) gpu01's root names gpu05's leaf port from a made-up
# interface of its own, one more than most hosts have: gpu05's link stands
# (gpu05 lost the rail, gpu01 nothing)
variant claim
entry "$work/claim/gpu01.keyvalue" eno5 leaf-g2-r1 mac aa:bb:cc:01:01:00 Ethernet60
slurm_of claim
"$TOPO" slurm --format view "$work/claim" >"$work/claim.view" 2>/dev/null
if grep -q "port Ethernet60 of leaf-g2-r1 is claimed by 2 peers (gpu01 eno5, gpu05 ens2np0): the other claimant has an interface no other host on leaf-g2-r1 has and more switch links than the 3 most hosts have, gpu05 neither: its link stands" "$work/claim.err" &&
   grep -q "^host gpu05 .*ens2np0:1" "$work/claim.view" && ! grep -q "^host gpu01 .*eno5" "$work/claim.view"; then
    ok "a port claimed from an interface beyond the host's peers' count: the other claimant keeps it"
else
    not_ok "a port claimed from a made-up interface"; diag "$(cat "$work/claim.err")" "$(grep "^host gpu0[15]" "$work/claim.view")"
fi
# (helper 75) cut short where the cut still parses: a last line with no
# newline (Ethernet60 cut to Ethernet6), an error text after a description at
# the end: warned, not read; more than half of the tables unread: an error,
# nothing written
variant cut
{ cat "$d/gpu08.keyvalue" | sed '$d'; printf 'lldp.eno1.port.ifname=Ethernet6'; } >"$work/cut/gpu08.keyvalue"
{ sed -n '1,/^lldp\.ens1np0\.chassis\.descr=/p' "$d/gpu07.keyvalue"; echo "Unable to connect to lldpd daemon (/run/lldpd.socket): Connection refused"; } >"$work/cut/gpu07.keyvalue"
slurm_of cut
# every table without its final newline: the collector's way (printf %s
# "$(lldpcli ...)", Ansible's stdout), read
variant strip
for f in "$work"/strip/*.keyvalue; do t=$(cat "$f"); printf %s "$t" >"$f"; done
slurm_of strip
variant most
for h in gpu01 gpu02 gpu03 gpu04 gpu05; do echo "Unable to connect to lldpd daemon" >"$work/most/$h.keyvalue"; done
echo "# the site's file" >"$work/most.conf"
"$TOPO" slurm "$work/most" -o "$work/most.conf" 2>"$work/most.err"; rc=$?
if grep -q "gpu08.keyvalue: found no newline at the end of its last line, where most tables end with one: the table looks cut short: that table is not read" "$work/cut.err" &&
   grep -q "gpu07.keyvalue:[0-9]*: found 'Unable to connect to lldpd daemon .*' after a description, at the end.*: that table is not read" "$work/cut.err" &&
   grep -q "^SwitchName=grp-leaf-g2-r1 Nodes=gpu\[05-06\]$" "$work/cut.conf" &&
   [ $rc -ne 0 ] && grep -q "(5 of 8 tables cannot be read: more than half, nothing written)" "$work/most.err" &&
   [ "$(cat "$work/most.conf")" = "# the site's file" ] && cabled "$work/strip.conf" && ! grep -q "not read" "$work/strip.err"; then
    ok "tables cut where the cut still parses are warned, not read; more than half unread is an error, the site's file kept; every table without its final newline is read"
else
    not_ok "tables cut short"; diag "exit $rc" "$(cat "$work/cut.err" "$work/cut.conf" "$work/most.err")"
fi
# a leaf some hosts hear by LLDP and others by CDPv2 alone (lldpd -c; NX-OS's
# device ID leaf-g2-r1.example.com, or NX-OS's leaf-g2-r1(FDO2231ABCD)): one
# switch, not split by the IDs; and
# a host whose rails are named otherwise (another model) is not outvoted for
# its port by a root that moved its own link there (gpu06 and gpu07 name
# that rail enp65s0f1np1)
variant cdponly
for hd in gpu07:leaf-g2-r1.example.com gpu08:'leaf-g2-r1(FDO2231ABCD)'; do
    h=${hd%%:*} id=${hd#*:}
    sed -i -e 's/^lldp\.ens2np0\.via=LLDP$/lldp.ens2np0.via=CDPv2/' -e "s/^lldp\.ens2np0\.chassis\.mac=.*/lldp.ens2np0.chassis.local=$id/" \
        -e "s/^lldp\.ens2np0\.chassis\.name=.*/lldp.ens2np0.chassis.name=$id/" "$work/cdponly/$h.keyvalue"
done
slurm_of cdponly
variant model
for h in gpu06 gpu07; do sed -i "s/^lldp\.ens2np0\./lldp.enp65s0f1np1./" "$work/model/$h.keyvalue"; done
port=$(sed -n 's/^lldp\.enp65s0f1np1\.port\.ifname=//p' "$work/model/gpu06.keyvalue")
sed -i "s/^lldp\.ens2np0\.port\.ifname=.*/lldp.ens2np0.port.ifname=$port/" "$work/model/gpu05.keyvalue"
slurm_of model
if cabled "$work/cdponly.conf" && ! grep -q "FDO\|sent by 2 chassis IDs, 'aa:bb:cc:01:01:00'" "$work/cdponly.conf" "$work/cdponly.err" &&
   grep -q "port $port of leaf-g2-r1 is claimed by 2 peers (gpu05 ens2np0, gpu06 enp65s0f1np1): none of these links is believed" "$work/model.err"; then
    ok "a leaf heard by LLDP and by CDP alone is one switch; a host of another NIC naming is not outvoted for its port"
else
    not_ok "CDP alone, and another NIC naming"; diag "$(cat "$work/cdponly.conf" "$work/cdponly.err" "$work/model.err")"
fi
# (helper 76) gpu08 hearing its sonic leaf by CDP alone, no chassis ID,
# where two switches send the name sonic: which one is not known, its link
# left out and said (it joined the g1 leaf, the one keeping the name)
variant cdpsplit
sed -i -e 's/^lldp\.ens1np0\.via=LLDP$/lldp.ens1np0.via=CDPv2/' -e 's/^lldp\.ens1np0\.chassis\.mac=.*/lldp.ens1np0.chassis.local=sonic/' "$work/cdpsplit/gpu08.keyvalue"
sed -i 's/^lldp\.ens1np0\.chassis\.mac=aa:bb:cc:01:00:00$/lldp.ens1np0.chassis.mac=aa:bb:cc:00:00:00/' "$work/cdpsplit/gpu07.keyvalue"
slurm_of cdpsplit
"$TOPO" slurm --format view "$work/cdpsplit" >"$work/cdpsplit.view" 2>/dev/null
if grep -q "gpu08 ens1np0 names 'sonic' without a chassis ID (CDP, or an ID not read): that name is several switches', which is not known; left out" "$work/cdpsplit.err" &&
   ! grep -q "^host gpu08 .*ens1np0" "$work/cdpsplit.view"; then
    ok "a neighbour heard without a chassis ID under a name several switches send is left out, said"
else
    not_ok "an ID-less neighbour under a split name"; diag "$(cat "$work/cdpsplit.err")" "$(grep "^host gpu08" "$work/cdpsplit.view")"
fi
# (helper 77) a root that drops its front-end line and claims gpu05's leaf
# port from a made-up interface, where gpu05 and gpu06 also have a storage
# NIC (more links than most hosts): no side looks made up on both counts,
# both claims are refused (the root kept the port). And a made-up chassis ID
# of one table under leaf-g2-r1's name leaves gpu08's CDP-only entry for it
# standing (it was left out as a name several switches send)
variant steal
for h in gpu05 gpu06; do entry "$work/steal/$h.keyvalue" ens3np0 stor01 mac 11:22:33:44:55:66 "Ethernet${h#gpu}"; done
sed -i '/^lldp\.eno1\./d' "$work/steal/gpu01.keyvalue"
entry "$work/steal/gpu01.keyvalue" eno5 leaf-g2-r1 mac aa:bb:cc:01:01:00 Ethernet60
sed -i -e 's/^lldp\.ens2np0\.via=LLDP$/lldp.ens2np0.via=CDPv2/' -e '/^lldp\.ens2np0\.chassis\.mac=/d' "$work/steal/gpu08.keyvalue"
entry "$work/steal/gpu02.keyvalue" eno6 leaf-g2-r1 mac de:ad:00:00:00:01 Ethernet99
slurm_of steal
"$TOPO" slurm --format view "$work/steal" >"$work/steal.view" 2>/dev/null
if grep -q "port Ethernet60 of leaf-g2-r1 is claimed by 2 peers (gpu01 eno5, gpu05 ens2np0): none of these links is believed" "$work/steal.err" &&
   ! grep -q "^host gpu01 .*eno5" "$work/steal.view" && grep -q "^host gpu08 .*ens2np0:1" "$work/steal.view"; then
    ok "a claim from a host with its peers' link count is refused with the victim's; a one-table chassis ID leaves a CDP entry standing"
else
    not_ok "helper 77's steals"; diag "$(cat "$work/steal.err")" "$(grep "^host gpu0[158]" "$work/steal.view")"
fi
