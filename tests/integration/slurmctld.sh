#!/bin/sh
# The topology.conf atoll-topo writes, loaded by a real slurmctld (topology/tree):
# accepted without errors, and no "multiple leaf switches contain nodes" warning
# for a rail-optimised fabric, where listing each leaf with its hosts does warn.
. "$(dirname "$0")/../lib.sh"
. "$ATOLL_SRCDIR/tests/slurm-cluster.sh"
plan 7
if ! command -v slurmctld >/dev/null || ! command -v scontrol >/dev/null; then
    for i in 1 2 3 4 5 6 7; do skip "slurmctld $i" "slurmctld or slurm-client not installed"; done
    exit 0
fi
work=$(tmpdir)
port=$(free_ports)  # a block of ports of its own (tests/slurm-cluster.sh)
at_exit "release_ports $port"

# run_ctld NAME TOPOLOGY.CONF: start slurmctld on it, wait until it answers
run_ctld() {
    d="$work/$1"
    mkdir -p "$d/state"
    cp "$2" "$d/topology.conf"
    mkdir -p "$d/log"
    slurm_conf_base "$d" "$port" "atoll$1" >"$d/slurm.conf"
    cat >>"$d/slurm.conf" <<CONF
PlugStackConfig=$d/plugstack.conf
TopologyPlugin=topology/tree
$3
PartitionName=all Nodes=ALL Default=YES State=UP
CONF
    : >"$d/plugstack.conf"
    SLURM_CONF="$d/slurm.conf" slurmctld -D -i >"$d/stdout" 2>&1 &
    ctld=$!
    at_exit "kill $ctld 2>/dev/null"
    i=0
    until SLURM_CONF="$d/slurm.conf" timeout 5 scontrol ping 2>/dev/null | grep -q UP; do
        i=$((i + 1))
        if [ $i -gt 50 ] || ! kill -0 $ctld 2>/dev/null; then
            diag "slurmctld did not come up" "$(tail -5 "$d/log/slurmctld.log" 2>/dev/null)"
            return 1
        fi
        sleep 0.2
    done
    SLURM_CONF="$d/slurm.conf" timeout 10 scontrol show topology >"$d/topology.out" 2>&1
    SLURM_CONF="$d/slurm.conf" timeout 10 scontrol show node node010 >"$d/node.out" 2>&1
    kill $ctld 2>/dev/null
    wait $ctld 2>/dev/null
    port=$((port + 2))
}

"$TOPO" generate --rails 4 --groups 2 --pods 2 --hosts 4 -o "$work/rails.net"
"$TOPO" slurm "$work/rails.net" -o "$work/rails.conf"
run_ctld rails "$work/rails.conf" "NodeName=node[001-016] CPUs=2 State=UNKNOWN NodeHostname=localhost NodeAddr=127.0.0.1"
check "slurmctld loads atoll's topology.conf for a rail-optimised 3-level fabric" \
    grep -q "SwitchName=fabric Level=2" "$work/rails/topology.out"
check "every node sits under one leaf switch" \
    grep -q "SwitchName=grp-ib-leaf05 Level=0 .*Nodes=node\[005-008\]" "$work/rails/topology.out"
if grep -qiE "multiple leaf switches|(error|warning).*(topolog|switch)" "$work/rails/log/slurmctld.log"; then
    not_ok "no topology warning or error in slurmctld's log"
    diag "$(grep -iE 'multiple leaf|topolog|switch' "$work/rails/log/slurmctld.log" | head -5)"
else
    ok "no topology warning or error in slurmctld's log"
fi

# the naive file (each rail leaf with its hosts) is what Slurm warns about
for l in 1 2 3 4; do echo "SwitchName=leaf$l Nodes=node[001-004]"; done >"$work/naive.conf"
echo "SwitchName=top Switches=leaf[1-4]" >>"$work/naive.conf"
run_ctld naive "$work/naive.conf" "NodeName=node[001-004] CPUs=2 State=UNKNOWN NodeHostname=localhost NodeAddr=127.0.0.1"
check "slurmctld warns about the naive rail layout (the check above can fail)" \
    grep -qi "multiple leaf switches" "$work/naive/log/slurmctld.log"

# Selene, as the demo writes it
"$TOPO" slurm "$ATOLL_SRCDIR/data/fabrics/selene-compute.ibnetdiscover" -o "$work/selene.conf"
nodes=$(grep -o 'Nodes=[^ ]*' "$work/selene.conf" | sed 's/Nodes=//' | paste -sd, -)
run_ctld selene "$work/selene.conf" "NodeName=$nodes CPUs=2 State=UNKNOWN NodeHostname=localhost NodeAddr=127.0.0.1"
check "slurmctld loads Selene's topology.conf" grep -q "SwitchName=pod-LG01-01 Level=1" "$work/selene/topology.out"
if grep -qiE "multiple leaf switches|(error|warning).*(topolog|switch)" "$work/selene/log/slurmctld.log"; then
    not_ok "no warning or error for Selene"
    diag "$(grep -iE 'multiple leaf|topolog|switch' "$work/selene/log/slurmctld.log" | head -5)"
else
    ok "no warning or error for Selene"
fi

# the features include, with --node-params, defines the nodes with their island features
"$TOPO" slurm --format features --node-params "CPUs=2 State=UNKNOWN NodeHostname=localhost NodeAddr=127.0.0.1" \
    "$work/rails.net" -o "$work/features.conf"
run_ctld features "$work/rails.conf" "Include $work/features.conf"
grep -q "AvailableFeatures=grp-ib-leaf09,pod-ib-leaf09" "$work/features/node.out"
check "slurmctld reads the features include: node010 has its island features" [ $? -eq 0 ]
