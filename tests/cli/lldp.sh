#!/bin/sh
# LLDP tables as sites have them (helper 70): switches that share a system
# name (SONiC's factory "sonic"), a node whose table came back empty, a
# VLAN interface whose name holds a dot, and lldpcli's plain output.
. "$(dirname "$0")/../lib.sh"
plan 6
work=$(tmpdir)
d="$DATA/lldp/sonic"
# variant NAME: a copy of the fabric's tables in $work/NAME, to change
variant() { mkdir "$work/$1" && cp "$d"/*.keyvalue "$work/$1/"; }
# slurm_of NAME: topology.conf of the variant in NAME.conf, stderr in NAME.err
slurm_of() { "$TOPO" slurm "$work/$1" >"$work/$1.conf" 2>"$work/$1.err"; }

# Two leaves of two groups both send the name "sonic" under their own chassis
# IDs: two switches, the hosts in two leaf islands as cabled (they were one
# island of gpu[01-08], exit 0, nothing said)
"$TOPO" slurm "$d" >"$work/sonic.conf" 2>"$work/sonic.err"
if grep -q "^SwitchName=grp-leaf-g1-r1 Nodes=gpu\[01-04\]$" "$work/sonic.conf" &&
   grep -q "^SwitchName=grp-leaf-g2-r1 Nodes=gpu\[05-08\]$" "$work/sonic.conf" && ! grep -q "gpu\[01-08\]" "$work/sonic.conf"; then
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
if grep -q "^SwitchName=grp-leaf-g1-r1 Nodes=gpu\[01-04\]$" "$work/third.conf" &&
   grep -q "^SwitchName=grp-leaf-g2-r1 Nodes=gpu\[05-08\]$" "$work/third.conf"; then
    ok "a third chassis ID under the shared name from one table moves no other host"
else
    not_ok "a third chassis ID under the shared name"; diag "$(cat "$work/third.conf" "$work/third.err")"
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
