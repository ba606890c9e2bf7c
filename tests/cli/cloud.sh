#!/bin/sh
# Every cloud's topology through atoll-topo: each provider's 64-instance
# fixture (tests/data/cloud/generate.py lays them out) found by its first
# bytes, islands as the generator built them, hosts named as Slurm names them
# through --host-map, check against Slurm's node list both ways, and hostile
# inputs refused (exit 1, the file named, no output file left).
. "$(dirname "$0")/../lib.sh"
plan 33
work=$(tmpdir)
C="$DATA/cloud"

# file, then the islands line show prints for it (from generate.py's layout)
while read -r f want; do
    "$TOPO" show "$C/$f" >"$work/show" 2>"$work/show.err"
    if [ $? -eq 0 ] && grep -q "^hosts: *64 (64 compute)" "$work/show" && grep -q "^islands: *$want" "$work/show"; then
        ok "$f: found by its first bytes, 64 hosts, islands $want"
    else
        not_ok "$f: found by its first bytes, 64 hosts, islands $want"; diag "$(cat "$work/show" "$work/show.err")"
    fi
done <<EOF2
gcp-instances.json leaf 4 (largest 18), group 4 (largest 18), pod 2 (largest 36), fabric 1 (largest 64)
gke-nodes.json leaf 4 (largest 18), group 4 (largest 18), pod 2 (largest 36), fabric 1 (largest 64)
oci-rdma-topology.pdsh leaf 8 (largest 8), group 8 (largest 8), pod 2 (largest 32), fabric 1 (largest 64)
oci-compute-hosts.json leaf 8 (largest 8), group 8 (largest 8), pod 2 (largest 32), fabric 1 (largest 64)
nebius-instances.json leaf 8 (largest 8), group 8 (largest 8), pod 2 (largest 32), fabric 1 (largest 64)
aws-p6e-gb200.json leaf 8 (largest 8), group 8 (largest 8), pod 2 (largest 32), fabric 1 (largest 64)
EOF2

# --format names the reader; the wrong one says what it expected
"$TOPO" show --format oci "$C/oci-rdma-topology.pdsh" >/dev/null 2>&1 && r1=0 || r1=$?
"$TOPO" show --format nebius "$C/oci-compute-hosts.json" >/dev/null 2>"$work/wrong"; r2=$?
if [ "$r1" -eq 0 ] && [ $r2 -eq 1 ] && grep -q "oci-compute-hosts.json: items\[0\]: found no metadata" "$work/wrong"; then
    ok "--format oci reads pdsh output; --format nebius on OCI's JSON: exit 1, what it expected"
else
    not_ok "--format oci reads pdsh output; --format nebius on OCI's JSON: exit 1, what it expected"; diag "$r1 $r2 $(cat "$work/wrong")"
fi

# AWS ParallelCluster names (QUEUE-st-RESOURCE-N): the map, the NVLink domain
# under the Slurm name, and check against scontrol's list (63 of the 64, and
# one node the fabric lacks)
n=0
sed -n 's/.*"InstanceId": "\([^"]*\)".*/\1/p' "$C/aws-p6e-gb200.json" | while read -r id; do
    n=$((n + 1)); echo "$id gpu-st-p6e-$n"
done >"$work/aws.map"
i=1
while [ $i -le 63 ]; do echo "NodeName=gpu-st-p6e-$i Arch=aarch64 CoresPerSocket=72 CPUAlloc=0 State=IDLE Partitions=gpu"; i=$((i + 1)); done >"$work/scontrol.txt"
echo "NodeName=gpu-st-p6e-99 Arch=aarch64 CoresPerSocket=72 CPUAlloc=0 State=DOWN* Partitions=gpu" >>"$work/scontrol.txt"
"$TOPO" discover "$C/aws-p6e-gb200.json" --host-map "$work/aws.map" -o "$work/aws.fabric.json" 2>/dev/null
if [ "$(wc -l <"$work/aws.map")" -eq 64 ] && grep -q '"host": "gpu-st-p6e-17"' "$work/aws.fabric.json" &&
    ! grep -q '"host": "i-' "$work/aws.fabric.json" &&
    grep -B1 '"host": "gpu-st-p6e-17"' "$work/aws.fabric.json" | grep -q "cr-00000000000000cb1" ; then
    ok "--host-map: every AWS instance under its Slurm name, instance 17 in capacity block cb1"
else
    not_ok "--host-map: every AWS instance under its Slurm name, instance 17 in capacity block cb1"; diag "$(head -3 "$work/aws.map")"
fi
"$TOPO" check "$C/aws-p6e-gb200.json" --host-map "$work/aws.map" --slurm-nodes "$work/scontrol.txt" >"$work/check" 2>&1; rc=$?
if [ $rc -eq 4 ] && grep -q "^error: not-in-slurm: gpu-st-p6e-64: " "$work/check" &&
    grep -q "^warning: not-in-fabric: gpu-st-p6e-99: 1 Slurm node" "$work/check" && [ "$(grep -c '^error: not-in-slurm' "$work/check")" -eq 1 ]; then
    ok "check --slurm-nodes scontrol output: the one host Slurm lacks (exit 4) and the one node the cloud lacks"
else
    not_ok "check --slurm-nodes scontrol output: the one host Slurm lacks (exit 4) and the one node the cloud lacks"; diag "rc=$rc" "$(cat "$work/check")"
fi
# a later describe-instance-topology against the saved fabric: the same names, no change
"$TOPO" diff "$work/aws.fabric.json" "$C/aws-p6e-gb200.json" --host-map "$work/aws.map" >"$work/diff" 2>&1; rc=$?
check "diff --host-map: the saved fabric and the cloud's answer under the same Slurm names, 0 changes" \
    sh -c "[ $rc -eq 0 ] && grep -q '^0 changes; scheduling unchanged' '$work/diff'"
# without the map no instance is a Slurm node: every one is reported
"$TOPO" check "$C/aws-p6e-gb200.json" --slurm-nodes "$work/scontrol.txt" >"$work/nomap" 2>&1
check "without --host-map: all 64 instance IDs are hosts Slurm lacks" [ "$(grep -c '^error: not-in-slurm: i-' "$work/nomap")" -eq 64 ]

# the node as Slurm names it gets its island through atoll-topo env
printf '4611686018427387905 gpu-1\na4x-002 gpu-2\n' >"$work/gcp.map"
"$TOPO" slurm --format view "$C/gcp-instances.json" --host-map "$work/gcp.map" -o "$work/gcp.view" 2>/dev/null
"$TOPO" env "$work/gcp.view" --node gpu-1 --nodes gpu-1,gpu-2 --sysfs-root "$work/sys/%n" >"$work/env" 2>&1
check "GCP: the Slurm name from the map (by instance ID and by name) gets ATOLL_ISLAND of its sub-block" \
    grep -q "^  ATOLL_ISLAND=s1a9 " "$work/env"

# one host by its two names (instance ID and name): onto one Slurm name it is
# one host; onto two Slurm names, an error naming both map lines
printf '4611686018427387905 gpu-1\na4x-001 gpu-1\n' >"$work/alias1.map"
printf '4611686018427387905 gpu-1\na4x-001 gpu-9\n' >"$work/alias2.map"
"$TOPO" slurm --format view "$C/gcp-instances.json" --host-map "$work/alias1.map" -o "$work/alias1.view" 2>/dev/null; r1=$?
"$TOPO" slurm --format view "$C/gcp-instances.json" --host-map "$work/alias2.map" -o "$work/alias2.view" 2>"$work/alias2"; r2=$?
if [ $r1 -eq 0 ] && grep -q '^host gpu-1 ' "$work/alias1.view" && ! grep -q '^host a4x-001 ' "$work/alias1.view" && [ $r2 -eq 1 ] && [ ! -e "$work/alias2.view" ] &&
    grep -q "alias2.map:1" "$work/alias2" && grep -q "alias2.map:2" "$work/alias2" &&
    grep -q "expected one Slurm name per host" "$work/alias2"; then
    ok "a host's two names onto one Slurm name: accepted; onto two: FILE:LINE of both map lines, exit 1"
else
    not_ok "a host's two names onto one Slurm name: accepted; onto two: FILE:LINE of both map lines, exit 1"
    diag "$r1 $r2" "$(cat "$work/alias2")"
fi

# OCI: IMDS v2's indented answers as pdsh prints them (line by line, hosts
# interleaved), beside pdsh's own line and an IMDS error object
{
    printf 'gpu-1: {\ngpu-2: {\n'
    printf 'gpu-1:   "customerHPCIslandId": "I",\ngpu-2:   "customerHPCIslandId": "I",\n'
    printf 'gpu-1:   "customerNetworkBlock": "N",\ngpu-2:   "customerNetworkBlock": "N",\n'
    printf 'gpu-1:   "customerLocalBlock": "L1"\ngpu-2:   "customerLocalBlock": "L2"\n'
    printf 'gpu-1: }\ngpu-2: }\n'
    printf 'pdsh@head: gpu-6: ssh exited with exit code 255\n'
    printf 'gpu-7: {"code":"NotAuthorizedOrNotFound","message":"Not found"}\n'
} >"$work/pretty.pdsh"
"$TOPO" show "$work/pretty.pdsh" >"$work/pretty" 2>"$work/pretty.err"; r1=$?
if [ $r1 -eq 0 ] && grep -q "leaf 2 (largest 1)" "$work/pretty" && grep -q "pretty.pdsh:11: pdsh says" "$work/pretty.err" &&
    grep -q "pretty.pdsh:12 (gpu-7): the instance metadata service answered error 'NotAuthorizedOrNotFound'" "$work/pretty.err"; then
    ok "OCI pdsh of indented JSON: 2 hosts on 2 leaves; pdsh's line and an IMDS error: FILE:LINE warnings, left out"
else
    not_ok "OCI pdsh of indented JSON: 2 hosts on 2 leaves; pdsh's line and an IMDS error: FILE:LINE warnings, left out"
    diag "exit $r1" "$(cat "$work/pretty" "$work/pretty.err")"
fi

# bad maps: FILE:LINE, exit 1; a map on an InfiniBand fabric: usage, exit 2
printf 'i-00000000000001f01 a\n# two IDs onto one name\ni-00000000000001f02 a\n' >"$work/onto.map"
"$TOPO" show "$C/aws-p6e-gb200.json" --host-map "$work/onto.map" >/dev/null 2>"$work/onto"; r1=$?
"$TOPO" generate --groups 2 --hosts 2 -o "$work/ib.net"
"$TOPO" show "$work/ib.net" --host-map "$work/aws.map" >/dev/null 2>"$work/ib"; r2=$?
if [ $r1 -eq 1 ] && grep -q "onto.map:3: found 'a' again (first at .*onto.map:1), expected one cloud ID per Slurm node" "$work/onto" &&
    [ $r2 -eq 2 ] && grep -q -- "--host-map: only for a cloud" "$work/ib"; then
    ok "two IDs onto one Slurm name: FILE:LINE, exit 1; --host-map on InfiniBand: exit 2"
else
    not_ok "two IDs onto one Slurm name: FILE:LINE, exit 1; --host-map on InfiniBand: exit 2"; diag "$r1 $r2" "$(cat "$work/onto" "$work/ib")"
fi

# hostile inputs: exit 1, the file and what was expected, no output file, one line
bad=0
for f in hostile-gcp-truncated.json hostile-gcp-wrongtype.json hostile-oci-duplicate.pdsh hostile-nebius-hugename.json \
    hostile-gke-control.json hostile-aws-duplicate.json; do
    "$TOPO" discover "$C/$f" -o "$work/out.json" 2>"$work/err"; rc=$?
    if [ $rc -ne 1 ] || [ -e "$work/out.json" ] || ! grep -q "$f" "$work/err" || ! grep -q "expected" "$work/err" ||
        [ "$(wc -l <"$work/err")" -ne 1 ] || [ "$(wc -c <"$work/err")" -gt 600 ]; then
        bad=$((bad + 1)); diag "$f: rc=$rc $(cat "$work/err")"
    fi
done
check "6 hostile cloud inputs (truncated, wrong type, duplicate IDs, 70 kB name, control bytes): exit 1, one short line each, no file" [ $bad -eq 0 ]
"$TOPO" discover "$C/hostile-gke-control.json" -o "$work/out.json" 2>"$work/ctl"
check "a control byte in a node name is shown escaped, never as a forged line" grep -q "found metadata.name 'gke-a\\\\x1b\[31m-1\\\\nNodeName=forged'" "$work/ctl"
# (helper 33) every instance refused (IDs that are no Slurm name): exit 1,
# nothing written, the old topology.conf kept (it was replaced by switches
# alone, exit 0, and slurmctld stops on such a file)
printf 'SwitchName=old Nodes=keep[1-4]\n' >"$work/keep.conf"
"$TOPO" slurm "$C/hostile-aws-names.json" -o "$work/keep.conf" >"$work/out" 2>&1
rc=$?
check "every instance refused: exit 1, 'no host left to write', the old topology.conf kept" \
    sh -c '[ "$1" = 1 ] && grep -q "no host left to write (4 refused" "$2/out" && [ "$(cat "$2/keep.conf")" = "SwitchName=old Nodes=keep[1-4]" ]' _ "$rc" "$work"
# EC2's layer 1 is only the highest layer it shows: instances under two of
# its nodes are joined by one switch above, and a job may span them
"$TOPO" slurm "$C/aws-two-layer1.json" >"$work/two.conf" 2>&1
n6=$("$PLACE" place "$C/aws-two-layer1.json" --nodes 6 2>&1)
check "AWS under two layer-1 nodes: one fabric above them in topology.conf, a 6-node job placed across" \
    sh -c 'grep -q "^SwitchName=fabric Switches=pod-nn-l1,pod-nn-l3$" "$1/two.conf" && [ "$2" = "i-[1-6]" ]' _ "$work" "$n6"
# --host-map on a cloud's fabric.json (discover without the map: hosts are
# instance IDs) renames them as the cloud's answer would; a map that is a
# directory or a FIFO is refused at once (it was an empty map, or a hang)
printf 'i-%s gpu-%s\n' 1 01 2 02 3 03 4 04 5 05 6 06 7 07 8 08 >"$work/two.map"
"$TOPO" discover "$C/aws-two-layer1.json" -o "$work/two.fabric.json" 2>/dev/null
"$TOPO" slurm "$work/two.fabric.json" --host-map "$work/two.map" >"$work/two-mapped.conf" 2>&1
# a pipe is read (a process substitution, a FIFO someone writes), within
# 60 s: a FIFO no one writes is an error after it, never a hang
mkfifo "$work/map.fifo" "$work/idle.fifo"
(cat "$work/two.map" >"$work/map.fifo") &
"$TOPO" slurm "$C/aws-two-layer1.json" --host-map "$work/map.fifo" >"$work/fifo.conf" 2>&1
r_fifo=$?
wait
timeout 90 "$TOPO" slurm "$C/aws-two-layer1.json" --host-map "$work/idle.fifo" >"$work/idle.out" 2>&1
r_idle=$?
"$TOPO" slurm "$C/aws-two-layer1.json" --host-map "$work" >"$work/dir.out" 2>&1
r_dir=$?
"$TOPO" slurm "$C/aws-two-layer1.json" --host-map /dev/null >"$work/null.out" 2>&1
r_null=$?
check "--host-map: renames a cloud fabric.json's hosts; a written FIFO is read; an idle one fails after 60 s; a directory or /dev/null: exit 1" \
    sh -c 'grep -q "^SwitchName=nn-l1 Nodes=gpu-\[01-02\]$" "$1/two-mapped.conf" && [ "$2$3$4$5" = 0111 ] &&
           grep -q "^SwitchName=nn-l1 Nodes=gpu-\[01-02\]$" "$1/fifo.conf" &&
           grep -q "a pipe that did not end within 60 s" "$1/idle.out" &&
           grep -q "not a regular file or a pipe (a directory)" "$1/dir.out" && grep -q "(a device or special file)" "$1/null.out"' \
    _ "$work" "$r_fifo" "$r_idle" "$r_dir" "$r_null"
# --host-map - reads standard input (it was "cannot open"); standard input
# for two inputs is a usage error before either is read; a map file is an
# input: -o naming it is refused, the map kept
"$TOPO" slurm "$C/aws-two-layer1.json" --host-map - <"$work/two.map" >"$work/stdin.conf" 2>&1
r_in=$?
"$TOPO" slurm - --host-map - <"$work/two.map" >"$work/stdin2.out" 2>&1
r_two=$?
cp "$work/two.map" "$work/keep.map"
"$TOPO" slurm "$C/aws-two-layer1.json" --host-map "$work/keep.map" -o "$work/keep.map" >"$work/keep.out" 2>&1
r_keep=$?
check "--host-map -: read from standard input; - for the fabric too: exit 2 naming both; -o the map: exit 1, map kept" \
    sh -c '[ "$2$3$4" = 021 ] && grep -q "^SwitchName=nn-l1 Nodes=gpu-\[01-02\]$" "$1/stdin.conf" &&
           grep -q "standard input) given for --host-map and the input operand" "$1/stdin2.out" &&
           grep -q "is also an input of this run" "$1/keep.out" && cmp -s "$1/keep.map" "$1/two.map"' \
    _ "$work" "$r_in" "$r_two" "$r_keep"
# kubectl's chunked list (metadata.continue) is one page, as the other clouds' tokens
sed 's/"resourceVersion": ""/"continue": "eyJ2IjoibWV0YS5rOHMuaW8vdjEifQ", "remainingItemCount": 60/' \
    "$C/gke-nodes.json" >"$work/gke-chunk.json"
"$TOPO" show "$work/gke-chunk.json" >"$work/out" 2>&1
rc=$?
check "a GKE list with metadata.continue: exit 1, one chunk of a longer list" \
    sh -c '[ "$1" = 1 ] && grep -q "metadata.continue.*one chunk of a longer list" "$2/out"' _ "$rc" "$work"
# a key twice in one object: JSON readers keep one without a word ("Instances"
# twice dropped the first array's hosts); refused, naming the key; a key
# again in another object, or in a nested one, is no duplicate
printf '{"Instances": [{"InstanceId": "i-1", "NetworkNodes": ["a", "b", "c"]}], "Instances": []}' >"$work/dup1.json"
printf '{"Instances": [{"InstanceId": "i-1", "NetworkNodes": ["a", "b", "c"], "NetworkNodes": ["x", "y", "z"]}]}' >"$work/dup2.json"
printf '{"Instances": [{"InstanceId": "i-1", "Tags": {"InstanceId": "t"}, "NetworkNodes": ["a", "b", "c"]}, {"InstanceId": "i-2", "NetworkNodes": ["a", "b", "c"]}]}' >"$work/nodup.json"
"$TOPO" show "$work/dup1.json" >"$work/d1" 2>&1; r1=$?
"$TOPO" show "$work/dup2.json" >"$work/d2" 2>&1; r2=$?
"$TOPO" show "$work/nodup.json" >"$work/d3" 2>&1; r3=$?
check "a JSON key twice in one object: exit 1 naming it (and where); the same key in other objects is fine" \
    sh -c '[ "$1$2$3" = 110 ] && grep -q "found the key .Instances. twice in one object, expected" "$4/d1" &&
           grep -q "found the key .NetworkNodes. twice in one object (under .Instances.)" "$4/d2"' _ "$r1" "$r2" "$r3" "$work"
# two cloud answers (pages saved apart) are no fabrics to merge: one error
# naming both, where it was "port ... cabled to two peers"
"$TOPO" slurm "$C/aws-two-layer1.json" "$C/aws-instance-topology.json" >"$work/two-ans" 2>&1
rc=$?
check "two cloud answers in one run: exit 1 naming both, one answer expected" \
    sh -c '[ "$1" = 1 ] && grep -q "aws-two-layer1.json, .*aws-instance-topology.json: found two cloud answers, expected one with every instance" "$2/two-ans"' _ "$rc" "$work"
# a cloud's NVLink group over two leaves of 8 (Nebius): a job the group
# holds takes the fewest leaves inside it, not hosts in name order
# (worker-1,worker-[10-12] reached two leaves where worker-1..7 had room)
p4=$("$PLACE" place "$C/nebius-instances.json" --nodes 4 --free 'worker-[1-63]' 2>/dev/null)
p8=$("$PLACE" place "$C/nebius-instances.json" --nodes 8 --free 'worker-[1-63]' 2>/dev/null)
check "inside an NVLink domain over two leaves: 4 nodes in one leaf (worker-[1-4]), 8 on the whole free leaf" \
    [ "$p4 $p8" = "worker-[1-4] worker-[10-15],worker-[8-9]" ]
# one network node at two tiers (a leaf that is another instance's spine,
# or its own parent) is no tree: refused, naming both instances (it was
# split into two hashed switches without a word)
printf '{"Instances": [{"InstanceId": "i-1", "NetworkNodes": ["c", "s", "l1"]}, {"InstanceId": "i-2", "NetworkNodes": ["c", "l1", "l2"]}]}' >"$work/tiers.json"
"$TOPO" show "$work/tiers.json" >"$work/tiers.out" 2>&1
rc=$?
check "a network node at two tiers: exit 1, naming the node and both instances" \
    sh -c '[ "$1" = 1 ] && grep -q "Instances\[1\] (i-2): found network node .l1. as a spine (pod), and as a leaf at .*Instances\[0\] (i-1)" "$2/tiers.out"' _ "$rc" "$work"
# an instance the answer lists as not running (a stopped VM) is kept where
# it was placed, but said: it may start again on another host
sed '0,/"status": "RUNNING"/s//"status": "TERMINATED"/' "$C/gcp-instances.json" >"$work/gcp-stopped.json"
"$TOPO" show "$work/gcp-stopped.json" >"$work/stopped.out" 2>&1
rc=$?
check "a TERMINATED GCP instance: kept (64 hosts) with one warning naming it" \
    sh -c '[ "$1" = 0 ] && grep -q "^hosts: *64" "$2/stopped.out" && grep -q "warning: .*1 instance not running by status (first .*items\[0\] .*TERMINATED" "$2/stopped.out"' _ "$rc" "$work"
# a host's GUID is hashed from the cloud's own ID, not the Slurm name the
# map gives: a map that swaps two names shows as name-moved to check
# --previous (the GUIDs followed the names, and it found nothing)
printf 'i-%s gpu-%s\n' 1 08 2 02 3 03 4 04 5 05 6 06 7 07 8 01 >"$work/two-swapped.map"
"$TOPO" discover "$C/aws-two-layer1.json" --host-map "$work/two.map" -o "$work/map-a.json" 2>/dev/null
"$TOPO" discover "$C/aws-two-layer1.json" --host-map "$work/two-swapped.map" -o "$work/map-b.json" 2>/dev/null
"$TOPO" check "$work/map-b.json" --previous "$work/map-a.json" >"$work/swap.out" 2>&1
check "a host map that swaps two Slurm names: check --previous says name-moved for both" \
    [ "$(grep -c '^error: name-moved: gpu-0[18]: host is on adapters that were gpu-0[18].s' "$work/swap.out")" = 2 ]
# (helper 34) --slurm-nodes that names none of the hosts (a map forgotten)
# left a features file of its header alone, exit 0: exit 1, the old file
# kept; GCP scopes IDs per level, so a sub-block ID equal to its block's is
# two nodes, not one at two tiers (that rule is EC2's alone)
"$TOPO" slurm --format features "$C/aws-two-layer1.json" --host-map "$work/two.map" -o "$work/feat.conf" 2>/dev/null
cp "$work/feat.conf" "$work/feat.before"
printf 'NodeName=gpu-01\nNodeName=gpu-02\n' >"$work/slurm-nodes.conf"
"$TOPO" slurm --format features "$C/aws-two-layer1.json" --slurm-nodes "$work/slurm-nodes.conf" -o "$work/feat.conf" >"$work/feat.out" 2>&1
rc=$?
sed 's/"subblock": "[^"]*"/"subblock": "SAME"/; s/"block": "[^"]*"/"block": "SAME"/' "$C/gcp-instances.json" >"$work/gcp-same.json"
"$TOPO" show "$work/gcp-same.json" >"$work/gcp-same.out" 2>&1
rg=$?
check "--slurm-nodes naming no host: exit 1, the old features file kept; a GCP sub-block ID equal to its block's is accepted" \
    sh -c '[ "$1" = 1 ] && cmp -s "$2/feat.conf" "$2/feat.before" && grep -q "names none of the 8 hosts" "$2/feat.out" && [ "$3" = 0 ]' _ "$rc" "$work" "$rg"
# (helper 38) --host-map given twice: the second map replaced the first,
# silently, and the first map's names were lost; it is a usage error now.
# Options of one value keep the last (a wrapper's default, then the user's).
"$TOPO" discover "$C/aws-p6e-gb200.json" --host-map "$work/aws.map" --host-map "$work/aws.map" -o "$work/twice.json" >"$work/twice.out" 2>&1
rc=$?
check "--host-map given twice: usage error naming the flag, nothing written" \
    sh -c '[ "$1" = 2 ] && grep -q -- "--host-map given 2 times" "$2/twice.out" && [ ! -e "$2/twice.json" ]' _ "$rc" "$work"
# (helper 38) a map line whose cloud ID no instance has (a typo) passed in
# silence: the host it meant kept the cloud's name; it is named in a warning
cp "$work/aws.map" "$work/typo.map"
echo "i-0typo00000000000 gpu-st-p6e-99" >>"$work/typo.map"
"$TOPO" discover "$C/aws-p6e-gb200.json" --host-map "$work/typo.map" -o "$work/typo.json" 2>"$work/typo.err"
rc=$?
check "--host-map: a line naming a cloud ID no host has is named in a warning, the fabric still written" \
    sh -c '[ "$1" = 0 ] && [ -s "$2/typo.json" ] &&
        grep -q "warning: --host-map: 1 of its 65 lines name a cloud ID no host of the input has: .*typo.map:65 (.i-0typo00000000000.)" "$2/typo.err"' _ "$rc" "$work"
# (helper 70) gpu-008's node writes gpu-001's customerHostId, which the
# admin's map names: the error named the map's one line twice ("found node1
# again, first at oci.map:1"); it names the two instances and their ID
id1=ocid1.computebaremetalhost.oc1.ap-osaka-1.anvwgljr000000000000000000000001
sed "/^gpu-008: /s/anvwgljr000000000000000000000008/anvwgljr000000000000000000000001/" "$C/oci-rdma-topology.pdsh" >"$work/ocidup.pdsh"
echo "$id1 node001" >"$work/ocidup.map"
"$TOPO" slurm "$work/ocidup.pdsh" --host-map "$work/ocidup.map" >/dev/null 2>"$work/ocidup.err"
rc=$?
check "two OCI instances under one mapped customerHostId: exit 1, the error names both instances and the ID" \
    sh -c '[ "$1" = 1 ] && grep -q "ocidup.pdsh:8 (gpu-008): has the ID .ocid1.computebaremetalhost[^ ]*. that .*ocidup.pdsh:1 (gpu-001) has too, which .*ocidup.map:1 maps onto .node001.: two instances under one ID" "$2/ocidup.err"' _ "$rc" "$work"
# (helper 70) an instance whose physicalHostTopology lacks its subblock: the
# warning named all three fields as missing; it names the one that is
sed '17{/"subblock": "s1a9",/d}' "$C/gcp-instances.json" >"$work/gcpnosub.json"
"$TOPO" slurm "$work/gcpnosub.json" >/dev/null 2>"$work/gcpnosub.err"
check "GCP: a physicalHostTopology without its subblock is named so, the instance left out" \
    grep -q "items\[0\] (.*): physicalHostTopology without subblock (a placed VM's has cluster, block and subblock), left out" "$work/gcpnosub.err"
