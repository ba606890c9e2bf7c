#!/bin/sh
# topology/block from atoll-topo --format block in a real Slurm (23.11 and
# later; Debian 12's 22.05 has no topology/block, so these skip there and run
# in the release matrix, tests/slurm-matrix.sh): Selene's file loads into
# slurmctld (service leaves left out, blocks of 14 nodes or more), where the
# file of one block per leaf island in fabric order makes 24.11's slurmctld
# exit; on a 16-node cluster (2 pods x 2 leaves x 4 hosts) jobs are placed by
# the blocks: a 4-node job in one leaf, 5- and 8-node jobs in one pod. Then
# atoll's island requests on topology/block (atoll.so, cli_filter.lua and
# job_submit.lua, 2 pods x 3 leaves x 4 hosts: no aggregate, it would join
# the pods): nothing asked where a block already holds the job, a pod
# constraint where Slurm alone spans pods, --segment for whole blocks; and on
# 25.05+ the same fabric in a topology.yaml, tree by default and atoll-block
# for partition blk: atoll asks per partition.
. "$(dirname "$0")/../lib.sh"
. "$ATOLL_SRCDIR/tests/slurm-cluster.sh"
n=22
plan $n
skip_all() {
    i=0
    while [ $i -lt $n ]; do i=$((i + 1)); skip "topology/block $i" "$1"; done
    exit 0
}
command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v srun >/dev/null ||
    skip_all "Slurm (slurmctld, slurmd, srun) not installed"
version=$(slurm_version)
release=$(slurmctld -V | sed 's/^[^ ]* //')
[ "${version:-0}" -ge 2311 ] || skip_all "Slurm $release has no topology/block (23.11 and later)"
work=$(tmpdir)
port=$(free_ports)  # a block of ports of its own (tests/slurm-cluster.sh)
at_exit "release_ports $port"

# ctld NAME FILE LINES: slurmctld on FILE (topology.conf for topology/block, or a
# topology.yaml) with LINES added to slurm.conf (nodes, partitions); 0 when it
# answers (then scontrol show topology and show partition gpu are in NAME/),
# 1 when it exits
ctld() {
    d="$work/$1"
    mkdir -p "$d/state" "$d/log"
    slurm_conf_base "$d" "$port" "atoll$1" >"$d/slurm.conf"
    case "$2" in
    *.yaml) cp "$2" "$d/topology.yaml" ;;
    *) cp "$2" "$d/topology.conf"; echo "TopologyPlugin=topology/block" >>"$d/slurm.conf" ;;
    esac
    printf '%s\n' "$3" >>"$d/slurm.conf"
    SLURM_CONF="$d/slurm.conf" slurmctld -D -i >"$d/stdout" 2>&1 &
    pid=$!
    at_exit "kill $pid 2>/dev/null"
    port=$((port + 2))
    i=0
    until SLURM_CONF="$d/slurm.conf" timeout 5 scontrol ping 2>/dev/null | grep -q UP; do
        i=$((i + 1))
        if ! kill -0 $pid 2>/dev/null; then wait $pid 2>/dev/null; return 1; fi
        [ $i -gt 100 ] && { kill $pid; return 1; }
        sleep 0.2
    done
    SLURM_CONF="$d/slurm.conf" timeout 10 scontrol show topology >"$d/topology.out" 2>&1
    SLURM_CONF="$d/slurm.conf" timeout 10 scontrol show partition gpu >"$d/gpu.out" 2>&1
    kill $pid 2>/dev/null
    wait $pid 2>/dev/null
    return 0
}

selene=$ATOLL_SRCDIR/data/fabrics/selene-compute.ibnetdiscover
"$TOPO" slurm --format block "$selene" -o "$work/selene.conf" 2>"$work/selene.err"
# every host of the fabric is a node (the service leaves' hosts too)
"$TOPO" slurm --format tree "$selene" -o "$work/tree.conf"
nodes=$(grep -o 'Nodes=[^ ]*' "$work/tree.conf" | sed 's/Nodes=//' | paste -sd, -)
nodeline="NodeName=$nodes CPUs=2 State=UNKNOWN NodeHostname=localhost NodeAddr=127.0.0.1
PartitionName=all Nodes=ALL Default=YES State=UP"
if ctld selene "$work/selene.conf" "$nodeline" && grep -q 'BlockName=grp-LG01-01 ' "$work/selene/topology.out"; then
    ok "slurmctld $release loads Selene's topology/block file"
else
    not_ok "slurmctld $release loads Selene's topology/block file"
    diag "$(grep -iE 'fatal|error' "$work/selene/log/slurmctld.log" "$work/selene/stdout" 2>/dev/null | head -5)"
fi
if grep -q 'left out (5 nodes, a service leaf)' "$work/selene.err" && grep -q '^BlockSizes=14$' "$work/selene.conf" &&
   [ "$(grep -c '^BlockName=' "$work/selene.conf")" -eq 25 ]; then
    ok "Selene: 25 blocks of 14 nodes or more, the 3 service leaves left out with a warning"
else
    not_ok "Selene: 25 blocks of 14 nodes or more, the 3 service leaves left out with a warning"
    diag "$(cat "$work/selene.err")" "$(grep -v '^BlockName' "$work/selene.conf")"
fi
# the naive file: one block per leaf island in the fabric's order, service leaves first
"$TOPO" slurm --format view "$selene" -o "$work/selene.view"
awk '$1 == "island" && $2 == "leaf" { print $3 }' "$work/selene.view" >"$work/leaves"
grep -o 'SwitchName=[^ ]* Nodes=[^ ]*' "$work/tree.conf" | sed 's/SwitchName=/BlockName=/' >"$work/naive.conf"
if [ "$version" -eq 2411 ]; then
    if ctld naive "$work/naive.conf" "$nodeline"; then
        not_ok "24.11 refuses the naive file (a later block smaller than the first): the check above can fail"
    else
        ok "24.11 refuses the naive file (a later block smaller than the first): the check above can fail"
    fi
else
    skip "24.11 refuses the naive file" "Slurm $release (26.05 accepts smaller later blocks)"
fi

# an 8-rack GB200 NVL72 unit (144 trays, rail-optimised IB, rail groups of
# two racks): its NVLink domains (nvidia-smi csv per tray) are the blocks,
# 18 trays each, and Slurm aggregates them up to the unit
"$TOPO" generate --groups 4 --rails 4 --hosts 36 --host-prefix gb -o "$work/nvl72.net"
"$TOPO" slurm --format block "$work/nvl72.net" --nvlink "$ATOLL_SRCDIR/tests/data/nvlink/su-nvl72.txt" \
    -o "$work/nvl72.conf" 2>"$work/nvl72.err"
nvlnodes="NodeName=gb[001-144] CPUs=2 State=UNKNOWN NodeHostname=localhost NodeAddr=127.0.0.1
PartitionName=all Nodes=ALL Default=YES State=UP"
if [ "$(grep -c '^BlockName=nvl-' "$work/nvl72.conf")" -eq 8 ] && grep -q '^BlockSizes=18,36,72,144$' "$work/nvl72.conf" &&
   ctld nvl72 "$work/nvl72.conf" "$nvlnodes" &&
   [ "$(grep -c '^BlockName=nvl-.* BlockSize=18$' "$work/nvl72/topology.out")" -eq 8 ] &&
   grep -q '^AggregatedBlock=.* Nodes=gb\[001-072\] BlockSize=72$' "$work/nvl72/topology.out"; then
    ok "slurmctld $release loads the NVL72 unit's domain blocks: 8 of 18 trays, BlockSizes 18,36,72,144"
else
    not_ok "slurmctld $release loads the NVL72 unit's domain blocks: 8 of 18 trays, BlockSizes 18,36,72,144"
    diag "$(cat "$work/nvl72.err" "$work/nvl72.conf" | head -12)" "$(head -12 "$work/nvl72/topology.out" 2>/dev/null)" \
        "$(grep -iE 'fatal|error' "$work/nvl72/log/slurmctld.log" "$work/nvl72/stdout" 2>/dev/null | head -5)"
fi

# uneven pods (2 pods of 3 domains of 18): --slurm-version 25.05 pads the first
# pod with a placeholder block (no nodes), so every aggregate up to a pod's is
# kept; 25.05 and later load it, 24.11 refuses a block of no node
"$TOPO" generate --pods 2 --groups 3 --rails 1 --hosts 18 --domain-size 18 --nvlink-output "$work/pods.nvl" -o "$work/pods.net"
"$TOPO" slurm --format block "$work/pods.net" --nvlink "$work/pods.nvl" --slurm-version 25.05 -o "$work/pods.conf"
podnodes="NodeName=node[001-108] CPUs=2 State=UNKNOWN NodeHostname=localhost NodeAddr=127.0.0.1
PartitionName=all Nodes=ALL Default=YES State=UP"
if [ "$version" -ge 2505 ]; then
    if grep -q '^BlockName=atoll-placeholder-1$' "$work/pods.conf" && grep -q '^BlockSizes=18,36,72$' "$work/pods.conf" &&
       ctld pods "$work/pods.conf" "$podnodes" &&
       grep -q '^AggregatedBlock=.* Nodes=node\[001-054\] BlockSize=72$' "$work/pods/topology.out" &&
       grep -q '^AggregatedBlock=.* Nodes=node\[055-108\] BlockSize=72$' "$work/pods/topology.out"; then
        ok "slurmctld $release loads the placeholder file of 2 pods x 3 domains: each pod one aggregated block of 72"
    else
        not_ok "slurmctld $release loads the placeholder file of 2 pods x 3 domains: each pod one aggregated block of 72"
        diag "$(grep -v '^#' "$work/pods.conf")" "$(cat "$work/pods/topology.out" 2>/dev/null)" \
            "$(grep -iE 'fatal|error' "$work/pods/log/slurmctld.log" "$work/pods/stdout" 2>/dev/null | head -5)"
    fi
    skip "24.11 refuses a placeholder block" "Slurm $release takes them (25.05 and later)"
    # the same layout in a topology.yaml (a placeholder: a block entry without nodes)
    "$TOPO" slurm --format yaml "$work/pods.net" --nvlink "$work/pods.nvl" --slurm-version 25.05 -o "$work/pods.yaml"
    if grep -q '^      - block: "atoll-placeholder-1"$' "$work/pods.yaml" &&
       ctld podsy "$work/pods.yaml" "$podnodes
PartitionName=gpu Nodes=ALL Topology=atoll-block State=UP" && grep -q 'Topology=atoll-block' "$work/podsy/gpu.out" &&
       ! grep -qiE 'fatal|error' "$work/podsy/log/slurmctld.log"; then
        ok "slurmctld $release loads the placeholder topology.yaml (atoll-block for partition gpu)"
    else
        not_ok "slurmctld $release loads the placeholder topology.yaml (atoll-block for partition gpu)"
        diag "$(sed -n '/atoll-block/,$p' "$work/pods.yaml" | head -20)" \
            "$(grep -iE 'fatal|error' "$work/podsy/log/slurmctld.log" "$work/podsy/stdout" 2>/dev/null | head -5)"
    fi
else
    skip "the placeholder file loads" "Slurm $release takes no block of no node (25.05 and later)"
    if ctld pods "$work/pods.conf" "$podnodes"; then
        not_ok "$release refuses the 25.05 file (a block of no node): --slurm-version matters"
    else
        ok "$release refuses the 25.05 file (a block of no node): --slurm-version matters"
        diag "$(grep -iE 'fatal' "$work/pods/log/slurmctld.log" "$work/pods/stdout" 2>/dev/null | head -2)"
    fi
    skip "the placeholder topology.yaml loads" "Slurm $release has no topology.yaml (25.05 and later)"
fi

# topology.yaml (25.05 and later): Selene's tree as the default, its blocks for
# one partition, the service nodes in a flat topology for another
if [ "$version" -ge 2505 ]; then
    "$TOPO" slurm --format yaml "$selene" -o "$work/topology.yaml"
    gpu=$(grep -o 'Nodes=[^ ]*' "$work/selene.conf" | sed 's/Nodes=//' | paste -sd, -)
    service=$(sed -n 's/^# left out of atoll-block (service leaves): \([^ ]*\) .*/\1/p' "$work/topology.yaml")
    up=no
    ctld yaml "$work/topology.yaml" "$nodeline
PartitionName=gpu Nodes=$gpu Topology=atoll-block State=UP
PartitionName=service Nodes=$service Topology=atoll-flat State=UP" && up=yes
    d=$work/yaml
    if [ $up = yes ] && grep -q "Topology=atoll-block" "$d/gpu.out"; then
        ok "slurmctld $release loads Selene's topology.yaml: tree by default, atoll-block for the GPU partition"
    else
        not_ok "slurmctld $release loads Selene's topology.yaml: tree by default, atoll-block for the GPU partition"
        diag "$(grep -iE 'fatal|error' "$d/log/slurmctld.log" "$d/stdout" 2>/dev/null | head -5)" "$(cat "$d/gpu.out")"
    fi
else
    skip "topology.yaml" "Slurm $release has no topology.yaml (25.05 and later)"
fi

# a cluster of 16 slurmd: 2 pods of 2 leaf islands of 4 hosts
"$TOPO" generate --rails 1 --groups 2 --pods 2 --hosts 4 -o "$work/small.net"
"$TOPO" discover "$work/small.net" -o "$work/small.json"
"$TOPO" slurm --format block "$work/small.json" -o "$work/small.conf"
check "a fabric of 2 pods x 2 leaves: BlockSizes=4,8 (a pod is an aggregated block)" grep -q '^BlockSizes=4,8$' "$work/small.conf"
chmod 644 "$work/small.json"
# block_cluster block|yaml DIR FABRIC PLUGIN KEYS: a topology/block cluster
# (yaml: topology.yaml, partition blk on atoll-block), or every test left
# fails and the script ends
block_cluster() {
    _topo=$1
    shift
    if ! CLUSTER_TOPOLOGY=$_topo CLUSTER_SELECT=cons_tres cluster_up "$@" >"$1.up.log" 2>&1; then
        diag "$(cat "$1.up.log")" "$(tail -5 "$1/log/slurmctld.log" 2>/dev/null)"
        i=$_n
        while [ $i -lt $n ]; do i=$((i + 1)); not_ok "topology/block cluster $i (the cluster did not start)"; done
        exit 0
    fi
    at_exit cluster_down
}
block_cluster block "$work/c" "$work/small.json" "" ""
if timeout 10 scontrol show topology | grep -q 'BlockName='; then
    ok "slurmctld $release runs topology/block on atoll's file"
else
    not_ok "slurmctld $release runs topology/block on atoll's file"
    diag "$(timeout 10 scontrol show topology 2>&1 | head -8)"
fi
# a node's island features: LEAF,POD
leaf_of() { scontrol show node "$1" | sed -n 's/.*AvailableFeatures=\([^ ]*\).*/\1/p'; }
# islands JOBNODES: the distinct feature sets (leaf,pod) of the nodes
islands() { for h in $(scontrol show hostnames "$1"); do leaf_of "$h"; done | sort -u; }
pods() { islands "$1" | sed 's/.*,//' | sort -u | wc -l; }
leaves() { islands "$1" | wc -l; }
# two nodes of the first leaf busy: 6 free there, 8 in the other pod
first=$(scontrol show hostnames "$(sed -n 's/^BlockName=[^ ]* Nodes=//p' "$work/c/topology.conf" | head -1)" | head -2 | paste -sd, -)
sbatch -o /dev/null -N2 -w "$first" --exclusive --wrap 'sleep 300' >/dev/null
sleep 1
n4=$(timeout 60 srun -N4 --exclusive sh -c 'echo $SLURMD_NODENAME' 2>/dev/null | sort | paste -sd, -)
check "a 4-node job lands in one leaf (block) [$n4]" [ "$(leaves "$n4")" -eq 1 ]
n5=$(timeout 60 srun -N5 --exclusive sh -c 'echo $SLURMD_NODENAME' 2>/dev/null | sort | paste -sd, -)
check "a 5-node job lands in one pod (an aggregated block of 2) [$n5]" [ "$(pods "$n5")" -eq 1 ]
n8=$(timeout 60 srun -N8 --exclusive sh -c 'echo $SLURMD_NODENAME' 2>/dev/null | sort | paste -sd, -)
if [ -n "$n8" ] && [ "$(pods "$n8")" -eq 1 ] && ! echo ",$n8," | grep -q ",$(echo "$first" | cut -d, -f1),"; then
    ok "an 8-node job lands in the pod with 8 free nodes, not across pods [$n8]"
else
    not_ok "an 8-node job lands in the pod with 8 free nodes, not across pods [$n8]"
fi
cluster_down

# island requests on topology/block: 2 pods of 3 leaves of 4 (node001-012,
# node013-024); BlockSizes=4 alone (an aggregate of 2 would join the pods)
so="$ATOLL_BUILDDIR/spank/.libs/atoll.so"
"$TOPO" generate --rails 1 --groups 3 --pods 2 --hosts 4 -o "$work/six.net"
"$TOPO" discover "$work/six.net" -o "$work/six.json" 2>/dev/null
"$TOPO" slurm --format view "$work/six.json" -o "$work/six.view"
chmod 644 "$work/six.json" "$work/six.view"
block_cluster block "$work/d" "$work/six.json" "$so" "fabric=$work/six.view"
if grep -q '^# topology: block 4$' "$work/d/atoll-requests.conf" && grep -q '^BlockSizes=4$' "$work/d/topology.conf" &&
   [ "$("$PLACE" settings | sed -n 's/^topology=//p')" = block ]; then
    ok "the request table is for topology/block (base 4), and atoll-place reads topology/block from slurm.conf"
else
    not_ok "the request table is for topology/block (base 4), and atoll-place reads topology/block from slurm.conf"
    diag "$(head -3 "$work/d/atoll-requests.conf")" "$(grep BlockSizes "$work/d/topology.conf")" "$("$PLACE" settings 2>&1)"
fi
# a leaf: one block holds it, so atoll asks for nothing (no constraint, no --switches)
jid=$(sbatch -H -o /dev/null -N3 --fabric-island=leaf --wrap true 2>/dev/null | awk '{print $4}')
info=$(scontrol show job -o "$jid" 2>&1)
scancel "$jid" 2>/dev/null
if [ -n "$jid" ] && echo "$info" | grep -q " Features=(null) " && ! echo "$info" | grep -q "Switches=[1-9]"; then
    ok "--fabric-island=leaf on topology/block: no constraint, no --switches (the block plugin holds it to one block)"
else
    not_ok "--fabric-island=leaf on topology/block: no constraint, no --switches (the block plugin holds it to one block)"
    diag "$info"
fi
# busy: pod 1 has 4 + 1 + 1 free, pod 2 has 3 + 3 + 0. Slurm alone gives a
# 6-node job the two fullest blocks (4 in pod 1, 3 in pod 2): across pods
leaf_of() { scontrol show node "$1" | sed -n 's/.*AvailableFeatures=\([^ ]*\).*/\1/p'; }
pods() { for h in $(scontrol show hostnames "$1"); do leaf_of "$h"; done | sed 's/.*,//' | sort -u | wc -l; }
# (one job per block: topology/block wants a job's listed nodes in one block)
for w in "node[005-007]" "node[009-011]" node013 node017 "node[021-024]"; do
    sbatch -o /dev/null -w "$w" -N"$(scontrol show hostnames "$w" | wc -l)" --exclusive --wrap 'sleep 300' >/dev/null
done
sleep 1
plain=$(timeout 60 srun -N6 --exclusive sh -c 'echo $SLURMD_NODENAME' 2>/dev/null | sort | paste -sd, -)
island=$(timeout 60 srun -N6 --exclusive --fabric-island=pod sh -c 'echo $SLURMD_NODENAME' 2>/dev/null | sort | paste -sd, -)
if [ -n "$plain" ] && [ -n "$island" ] && [ "$(pods "$plain")" -eq 2 ] && [ "$(pods "$island")" -eq 1 ]; then
    ok "6 nodes: Slurm's block plugin alone spans the pods [$plain], --fabric-island=pod keeps one [$island]"
else
    not_ok "6 nodes: Slurm's block plugin alone spans the pods [$plain], --fabric-island=pod keeps one [$island]"
fi
scancel --user=root >/dev/null 2>&1
wait_idle >/dev/null 2>&1
# a required pod of 8 (two blocks' worth): --segment=4, two whole blocks in one pod
out=$(timeout 60 srun -N8 --exclusive --fabric-island=pod --fabric-explain sh -c 'echo $SLURMD_NODENAME' 2>"$work/seg.err" | sort | paste -sd, -)
blocks=$(for h in $(scontrol show hostnames "$out"); do leaf_of "$h"; done | sort | uniq -c | awk '{print $1}' | paste -sd, -)
if grep -q "segment 4" "$work/seg.err" && [ "$(pods "$out")" -eq 1 ] && [ "$blocks" = "4,4" ]; then
    ok "--fabric-island=pod, 8 nodes: --segment=4 from cli_filter.lua, two whole blocks of one pod [$out]"
else
    not_ok "--fabric-island=pod, 8 nodes: --segment=4 from cli_filter.lua, two whole blocks of one pod [$out]"
    diag "$(cat "$work/seg.err")" "blocks: $blocks"
fi
# a pod that widens: the constraint and the atoll-widen mark, no --switches
jid=$(sbatch -H -o /dev/null -N6 --fabric-island=pod:preferred --wrap true 2>/dev/null | awk '{print $4}')
info=$(scontrol show job -o "$jid" 2>&1)
scancel "$jid" 2>/dev/null
if echo "$info" | grep -q "Features=\[pod-ib-leaf0[1-9]|pod-ib-leaf0[1-9]\] " && echo "$info" | grep -q "AdminComment=atoll-widen " &&
   ! echo "$info" | grep -q "Switches=[1-9]"; then
    ok "--fabric-island=pod:preferred on topology/block: held to the pods, marked for atoll-widen, no --switches"
else
    not_ok "--fabric-island=pod:preferred on topology/block: held to the pods, marked for atoll-widen, no --switches"
    diag "$info"
fi
check "no node was drained or downed" sh -c '! sinfo -h -o "%t" | grep -qE "drain|down"'
cluster_down

# topology.yaml (25.05+): partition all on atoll-tree (the default), blk on atoll-block
if [ "$version" -lt 2505 ]; then
    for what in "settings per partition" "asks per partition" "blk keeps a pod"; do
        skip "topology.yaml: $what" "Slurm $release has no topology.yaml (25.05 and later)"
    done
    exit 0
fi
block_cluster yaml "$work/y" "$work/six.json" "$so" "fabric=$work/six.view"
set_out=$("$PLACE" settings | tr '\n' ' ')
check "topology.yaml: atoll-place settings says tree for all, block for blk [$set_out]" \
    sh -c 'echo "$1" | grep -q "topology=tree topology@all=tree topology@blk=block "' _ "$set_out"
# the same leaf request: a leaf constraint in all (tree), none in blk (a block holds it)
ja=$(sbatch -H -o /dev/null -p all -N3 --fabric-island=leaf --wrap true 2>/dev/null | awk '{print $4}')
jb=$(sbatch -H -o /dev/null -p blk -N3 --fabric-island=leaf --wrap true 2>/dev/null | awk '{print $4}')
ia=$(scontrol show job -o "$ja" 2>&1)
ib=$(scontrol show job -o "$jb" 2>&1)
scancel "$ja" "$jb" 2>/dev/null
if echo "$ia" | grep -q " Features=\[ib-leaf0" && echo "$ib" | grep -q " Features=(null) "; then
    ok "topology.yaml: --fabric-island=leaf is a leaf constraint in partition all (tree), nothing in blk (block)"
else
    not_ok "topology.yaml: --fabric-island=leaf is a leaf constraint in partition all (tree), nothing in blk (block)"
    diag "$ia" "$ib"
fi
for w in "node[005-007]" "node[009-011]" node013 node017 "node[021-024]"; do
    sbatch -o /dev/null -p blk -w "$w" -N"$(scontrol show hostnames "$w" | wc -l)" --exclusive --wrap 'sleep 300' >/dev/null
done
sleep 1
plain=$(timeout 60 srun -p blk -N6 --exclusive sh -c 'echo $SLURMD_NODENAME' 2>/dev/null | sort | paste -sd, -)
island=$(timeout 60 srun -p blk -N6 --exclusive --fabric-island=pod sh -c 'echo $SLURMD_NODENAME' 2>/dev/null | sort | paste -sd, -)
if [ -n "$plain" ] && [ -n "$island" ] && [ "$(pods "$plain")" -eq 2 ] && [ "$(pods "$island")" -eq 1 ]; then
    ok "topology.yaml, partition blk: Slurm alone spans the pods [$plain], --fabric-island=pod keeps one [$island]"
else
    not_ok "topology.yaml, partition blk: Slurm alone spans the pods [$plain], --fabric-island=pod keeps one [$island]"
fi
cluster_down
