#!/bin/sh
# The atoll SPANK plugin in a real Slurm on NVLink domains: 8 loopback nodes
# in 2 rail groups (one leaf each) of 4, and the NVLink domains nvidia-smi
# reports (pdsh output of --query-gpu=fabric.clusterUuid,fabric.cliqueId, 4
# GPUs a tray, as in tests/data/nvlink/su-nvl72.txt):
#   U.1: node001 node003   U.2: node002 node004   (leaf 1)
#   U.3: node005-node008                          (leaf 2)
# Orders and ranks are worked out by hand from the definition (pod, group,
# leaf island, domain; Slurm's order inside): analyse() makes domain islands
# in the order of their IDs, so U.1 comes before U.2, and the step
# node[001-004] runs in the order node001 node003 node002 node004. node008 is
# left out of the plugin's view (a node the fabric file does not place).
# IMEX channels under dev_root=: none on node001-004, channel0 (a character
# device every user may open) on node005-007.
. "$(dirname "$0")/../lib.sh"
. "$ATOLL_SRCDIR/tests/slurm-cluster.sh"
N=21
plan $N
so="$ATOLL_BUILDDIR/spank/.libs/atoll.so"
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v srun >/dev/null; then
    i=0; while [ $i -lt $N ]; do i=$((i + 1)); skip "spank-nvl $i" "slurmctld, slurmd or slurm-client not installed"; done
    exit 0
fi
work=$(tmpdir)
at_exit cluster_down
U=8d6e40c4-d722-4357-9ba6-000000000000
for n in 1:1 3:1 2:2 4:2 5:3 6:3 7:3 8:3; do
    for g in 1 2 3 4; do echo "node00${n%%:*}: $U, ${n#*:}"; done
done >"$work/smi.txt"
"$TOPO" generate --pods 1 --groups 2 --rails 1 --hosts 4 -o "$work/fabric.net"
"$TOPO" slurm --format view "$work/fabric.net" --nvlink "$work/smi.txt" -o "$work/full.view"
grep -v '^host node008 ' "$work/full.view" >"$work/fabric.view"
chmod 644 "$work/fabric.net" "$work/fabric.view"
check "the view (version 4) carries each host's domain" \
    sh -c "head -1 '$work/fabric.view' | grep -qx 'atoll-view 4' && grep -q '^host node003 .* $U.1 -\$' '$work/fabric.view'"
mkdir -p "$work/c"
# each node's /proc/devices, in the kernel's format (fs/proc/devices.c), with
# the region the NVIDIA driver registers for IMEX channels (major 508 here;
# the driver's is dynamic): a channel is a device of that major, nothing else
for n in node001 node002 node003 node004 node005 node006 node007 node008; do
    mkdir -p "$work/proc/$n"
    printf 'Character devices:\n  1 mem\n  4 /dev/vc/0\n195 nvidia\n508 nvidia-caps-imex-channels\n509 nvidia-caps\n\nBlock devices:\n  7 loop\n  8 sd\n' \
        >"$work/proc/$n/devices"
done
for n in node005 node006 node007; do
    mkdir -p "$work/dev/$n/nvidia-caps-imex-channels"
    mknod "$work/dev/$n/nvidia-caps-imex-channels/channel0" c 508 0 && chmod 666 "$work/dev/$n/nvidia-caps-imex-channels/channel0"
done
# /dev/null's 1:3 under a channel's name (for atoll-topo health below)
mkdir -p "$work/dev/nullch/nvidia-caps-imex-channels"
mknod "$work/dev/nullch/nvidia-caps-imex-channels/channel0" c 1 3 && chmod 666 "$work/dev/nullch/nvidia-caps-imex-channels/channel0"
mkdir -p "$work/dev/node001" "$work/dev/node003"
chmod -R a+rX "$work"

cluster_up "$work/c" "$work/fabric.net" "$so" "fabric=$work/fabric.view dev_root=$work/dev/%n proc_root=$work/proc/%n sysfs_root=$work/sys/%n" || {
    i=1; while [ $i -lt $N ]; do i=$((i + 1)); not_ok "cluster did not start"; done; exit 0; }
# a job of an unprivileged user (IMEX channels are judged for it), with a
# forged ATOLL_RANK and ATOLL_NODE_RANK of its own: never believed
as_user() { ATOLL_RANK=99 ATOLL_NODE_RANK=99 timeout 60 setpriv --reuid=65534 --regid=65534 --clear-groups -- srun --chdir=/ "$@"; }
vars='echo "$SLURMD_NODENAME $SLURM_PROCID $SLURM_LOCALID ${ATOLL_NODE_RANK:-unset} ${ATOLL_RANK:-unset} ${ATOLL_DOMAIN:-unset} ${ATOLL_DOMAINS:-unset} ${ATOLL_NODE_ORDER:-unset}"'

# a 2-node step in one domain: its domain, the order, ranks
as_user -N2 -n2 -w node001,node003 --fabric-env=show sh -c "$vars" 2>"$work/one.err" | sort >"$work/one"
want="node001 0 0 0 0 $U.1 $U.1 node001,node003
node003 1 0 1 1 $U.1 $U.1 node001,node003"
if [ "$(cat "$work/one")" = "$want" ]; then ok "2 nodes of domain U.1: ATOLL_DOMAIN, ATOLL_DOMAINS, node ranks 0 1, ATOLL_RANK 0 1"
else not_ok "2 nodes of domain U.1: ATOLL_DOMAIN, ATOLL_DOMAINS, node ranks 0 1, ATOLL_RANK 0 1"; diag "$(cat "$work/one" "$work/one.err")"; fi
# what NCCL then does (src/mnnvl.cc since 2.25: a FABRIC allocation is tried
# and its failure is an error, "Set NCCL_MNNVL_ENABLE=0 to ignore this issue")
check "no IMEX channel there: show says multi-node NVLink cannot work, and what NCCL does" \
    grep -q "NCCL_MNNVL_ENABLE not set: the 2 nodes share NVLink domain $U.1 but $work/dev/node00[13]/nvidia-caps-imex-channels does not exist: multi-node NVLink cannot work (NCCL >= 2.25 fails the communicator's init, \"MNNVL ... available but not working\"; only NCCL_MNNVL_ENABLE=0 makes it fall back to the network) (atoll never sets it)" "$work/one.err"

# two domains of one leaf, 2 tasks a node: atoll's order node001 node003
# node002 node004, so ATOLL_RANK = node rank x 2 + local id:
#   node001 0 1, node003 2 3, node002 4 5, node004 6 7
as_user -N4 -n8 -w 'node[001-004]' --fabric-env=show sh -c "$vars" 2>"$work/four.err" | sort -k2n >"$work/four"
ord=node001,node003,node002,node004
D="$U.1,$U.2"
want="node001 0 0 0 0 $U.1 $D $ord
node001 1 1 0 1 $U.1 $D $ord
node002 2 0 2 4 $U.2 $D $ord
node002 3 1 2 5 $U.2 $D $ord
node003 4 0 1 2 $U.1 $D $ord
node003 5 1 1 3 $U.1 $D $ord
node004 6 0 3 6 $U.2 $D $ord
node004 7 1 3 7 $U.2 $D $ord"
if [ "$(cat "$work/four")" = "$want" ]; then ok "4 nodes over domains U.1 and U.2: ATOLL_NODE_ORDER by domain, ATOLL_RANK = node rank x 2 + SLURM_LOCALID"
else not_ok "4 nodes over domains U.1 and U.2: ATOLL_NODE_ORDER by domain, ATOLL_RANK = node rank x 2 + SLURM_LOCALID"; diag "$(cat "$work/four" "$work/four.err")"; fi
check "show: Slurm's node order (SLURM_NODEID) differs from atoll's in the middle two places" \
    grep -q "atoll: node001: Slurm's node order (SLURM_NODEID) differs from atoll's: 2 of 4 positions differ (node 1 is node002 for Slurm, node003 for atoll, node 2 is node003 for Slurm, node002 for atoll)" "$work/four.err"
# Slurm 22.05-25.11 number tasks in node list order (block): node003's
# first task is Slurm's rank 4, atoll's 2. 26.05 numbers them by the
# topology's node ranks (slurm_step_layout.c _task_layout_topo), ties by node
# index: under topology/tree the four nodes of one leaf tie, so the same
check "show: node003's first task is Slurm's rank 4, atoll's 2" \
    grep -q "atoll: node003: Slurm's node order .*; its first task is Slurm's rank 4, atoll's 2 (different)" "$work/four.err"

# 3 tasks on 2 nodes (2 and 1): the node rank, but no global rank, and why
as_user -N2 -n3 -w 'node[001-002]' --fabric-env=show sh -c "$vars" 2>"$work/uneven.err" | sort -k2n >"$work/uneven"
if [ "$(awk '{print $1, $4, $5}' "$work/uneven" | tr '\n' ' ')" = "node001 0 unset node001 0 unset node002 1 unset " ] &&
   grep -q "atoll: node001 task 0: ATOLL_RANK not set: 3 tasks on 2 nodes, 2 here: the nodes run different numbers of tasks: no global rank in atoll's order; the job's own value removed" "$work/uneven.err"; then
    ok "an uneven step (2 and 1 tasks): ATOLL_NODE_RANK only; ATOLL_RANK unset (the forged 99 removed), and why"
else not_ok "an uneven step (2 and 1 tasks): ATOLL_NODE_RANK only; ATOLL_RANK unset (the forged 99 removed), and why"; diag "$(cat "$work/uneven" "$work/uneven.err")"; fi

# a node the view does not place: none of them, the forged values removed
as_user -N2 -n2 -w 'node[007-008]' --fabric-env=show sh -c "$vars" 2>"$work/unk.err" | sort >"$work/unk"
want="node007 0 0 unset unset unset unset unset
node008 1 0 unset unset unset unset unset"
if [ "$(cat "$work/unk")" = "$want" ]; then ok "a step with a node the view lacks: no ATOLL_DOMAIN, ATOLL_NODE_ORDER, ATOLL_NODE_RANK or ATOLL_RANK (not the job's 99 either)"
else not_ok "a step with a node the view lacks: no ATOLL_DOMAIN, ATOLL_NODE_ORDER, ATOLL_NODE_RANK or ATOLL_RANK (not the job's 99 either)"; diag "$(cat "$work/unk" "$work/unk.err")"; fi
as_user -N2 -n2 -w 'node[007-008]' --fabric-explain true 2>"$work/unk.explain"
check "--fabric-explain says why there is no order" \
    grep -q "^atoll: no topology order (ATOLL_NODE_ORDER, ATOLL_NODE_RANK, ATOLL_RANK): 1 step node(s) absent from the fabric file (node008)" "$work/unk.explain"
# node008 itself is not in the fabric: its node fails as before; node007 says why
check "show says why: 1 step node absent from the fabric file (node008)" \
    grep -q "atoll: node007 task 0: ATOLL_NODE_ORDER not set: 1 step node(s) absent from the fabric file (node008): the step's topology order is not known" "$work/unk.err"

# a step over two domains, each holding two of its nodes: each node is
# told about its own domain (NCCL >= 2.25 fails per domain, red team)
as_user -N4 -n4 -w 'node[001-004]' --fabric-env=show true 2>"$work/two.err"
if grep -q "atoll: node002 task 0: NCCL_MNNVL_ENABLE not set: the 2 nodes share NVLink domain $U.2 (of the 2 domains of the step) but $work/dev/node002/nvidia-caps-imex-channels does not exist" "$work/two.err" &&
   grep -q "atoll: node001 task 0: NCCL_MNNVL_ENABLE not set: the 2 nodes share NVLink domain $U.1 (of the 2 domains of the step)" "$work/two.err"; then
    ok "a step over two domains of two nodes each: each node's domain is checked for IMEX"
else not_ok "a step over two domains of two nodes each: each node's domain is checked for IMEX"; diag "$(grep MNNVL "$work/two.err")"; fi
# --fabric-env=off in a batch job: the batch step's order variables do not
# reach the step's tasks (they would name node 0's domain and rank on every node)
cat >"$work/batch.sh" <<'EOS'
#!/bin/sh
srun -N2 -n2 --fabric-env=off sh -c 'echo "$SLURMD_NODENAME ${ATOLL_NODE_RANK:-unset} ${ATOLL_DOMAIN:-unset} ${ATOLL_NODE_ORDER:-unset}"'
EOS
chmod 755 "$work/batch.sh"
mkdir -p "$work/out" && chmod 1777 "$work/out"
timeout 90 setpriv --reuid=65534 --regid=65534 --clear-groups -- sbatch --chdir=/ --wait -N2 -w 'node[001-002]' \
    -o "$work/out/batch.out" "$work/batch.sh" >/dev/null 2>"$work/batch.err"
if [ "$(sort "$work/out/batch.out" 2>/dev/null)" = "node001 unset unset unset
node002 unset unset unset" ]; then ok "--fabric-env=off in a batch job: no stale ATOLL_NODE_RANK, ATOLL_DOMAIN or ATOLL_NODE_ORDER"
else not_ok "--fabric-env=off in a batch job: no stale ATOLL_NODE_RANK, ATOLL_DOMAIN or ATOLL_NODE_ORDER"; diag "$(cat "$work/out/batch.out" "$work/batch.err")"; fi

# a heterogeneous step: its components share one node list; atoll says so
# (it printed a bare hostlist count error) and sets nothing
as_user -N1 -w node001 --fabric-env=show sh -c 'echo "${ATOLL_NODE_RANK:-unset}"' : -N1 -w node005 sh -c 'echo "${ATOLL_NODE_RANK:-unset}"' \
    >"$work/het" 2>"$work/het.err"
if grep -q "a heterogeneous step: its components' nodes are not told apart" "$work/het.err" && [ "$(sort -u "$work/het")" = unset ]; then
    ok "a heterogeneous step: no order variables, and a message that says why"
else not_ok "a heterogeneous step: no order variables, and a message that says why"; diag "$(cat "$work/het" "$work/het.err")"; fi

# nodes of domain U.3 with an IMEX channel the user may open: no warning
as_user -N2 -n2 -w 'node[005-006]' --fabric-env=show sh -c "$vars" 2>"$work/imex.err" >"$work/imex"
if grep -q "NCCL_MNNVL_ENABLE not set: IMEX channel $work/dev/node005/nvidia-caps-imex-channels/channel0 is usable" "$work/imex.err" &&
   ! grep -q "fall back to the network" "$work/imex.err"; then ok "with a usable IMEX channel: no fallback warning"
else not_ok "with a usable IMEX channel: no fallback warning"; diag "$(cat "$work/imex" "$work/imex.err")"; fi
# and atoll sets no NCCL NVLink variable, ever
# (srun's own notes on a loaded machine go to stderr, kept apart)
as_user -N2 -n2 -w 'node[005-006]' sh -c 'echo "${NCCL_MNNVL_ENABLE:-unset} ${NCCL_NVLS_ENABLE:-unset}"' \
    >"$work/nccl" 2>"$work/nccl.err"
if [ "$(sort -u "$work/nccl")" = "unset unset" ] && [ "$(wc -l <"$work/nccl")" -eq 2 ]; then
    ok "NCCL_MNNVL_ENABLE and NCCL_NVLS_ENABLE are never set"
else not_ok "NCCL_MNNVL_ENABLE and NCCL_NVLS_ENABLE are never set"; diag "$(cat "$work/nccl" "$work/nccl.err")"; fi

# --fabric-ranks: the plan of atoll-place ranks per task. Six nodes, two
# tasks (GPUs) each, tp=4: a TP group is two nodes. Topology order node001
# (U.1) node002 node004 (U.2) node005 node006 node007 (U.3, leaf 2).
# Consecutive ranks would put TP group 0 on node001+node002 (two domains) and
# group 1 on node004+node005 (two leaves). The plan packs whole groups into
# domains: node002+node004 (ranks 0-3), node005+node006 (4-7), and the
# leftover node001+node007 (8-11), each node's two tasks consecutive.
as_user -N6 -n12 --ntasks-per-node=2 -w 'node[001-002,004-007]' --fabric-ranks=tp=4 --fabric-env=show \
    sh -c 'echo "$SLURMD_NODENAME $SLURM_LOCALID ${ATOLL_RANK:-unset}"' 2>"$work/plan.err" | sort >"$work/plan"
want="node001 0 8
node001 1 9
node002 0 0
node002 1 1
node004 0 2
node004 1 3
node005 0 4
node005 1 5
node006 0 6
node006 1 7
node007 0 10
node007 1 11"
if [ "$(cat "$work/plan")" = "$want" ]; then ok "--fabric-ranks=tp=4: every TP group of two nodes inside one NVLink domain but the leftover"
else not_ok "--fabric-ranks=tp=4: every TP group of two nodes inside one NVLink domain but the leftover"; diag "$(cat "$work/plan" "$work/plan.err")"; fi
# sizes that do not divide this step: no ATOLL_RANK at all (not the plain order), and why
as_user -N2 -n4 --ntasks-per-node=2 -w 'node[005-006]' --fabric-ranks=tp=8 --fabric-env=show \
    sh -c 'echo "${ATOLL_RANK:-unset}"' 2>"$work/plan8.err" >"$work/plan8"
if [ "$(sort -u "$work/plan8")" = unset ] && grep -q "ATOLL_RANK not set: --fabric-ranks='tp=8': --tp: 8 makes the sizes' product more than the 4 GPUs" "$work/plan8.err"; then
    ok "--fabric-ranks whose sizes the step cannot hold: no ATOLL_RANK, and show says why"
else not_ok "--fabric-ranks whose sizes the step cannot hold: no ATOLL_RANK, and show says why"; diag "$(cat "$work/plan8" "$work/plan8.err")"; fi
# a spec that is no spec fails at submit, naming the flag
as_user -N1 --fabric-ranks=tp=4,xx=2 true >"$work/bad" 2>&1
rc=$?
if [ $rc -ne 0 ] && grep -q -- "--fabric-ranks: " "$work/bad"; then ok "--fabric-ranks=tp=4,xx=2 is refused at submit, naming the flag"
else not_ok "--fabric-ranks=tp=4,xx=2 is refused at submit, naming the flag"; diag "rc=$rc" "$(cat "$work/bad")"; fi

# atoll-topo health --imex: the same check on a node, for the job's user
mkdir -p "$work/nosys"
"$TOPO" health --imex --dev-root "$work/dev/node001" --proc-root "$work/proc/node001" --imex-uid 65534 --sysfs-root "$work/nosys" >"$work/h1" 2>&1
rc1=$?
"$TOPO" health --imex --dev-root "$work/dev/node005" --proc-root "$work/proc/node005" --imex-uid 65534 --sysfs-root "$work/nosys" --verbose >"$work/h5" 2>&1
rc5=$?
"$TOPO" health --imex --dev-root "$work/dev/nullch" --proc-root "$work/proc/node005" --imex-uid 65534 --sysfs-root "$work/nosys" >"$work/hnull" 2>&1
rcn=$?
check "health --imex without a channel: a warning that multi-node NVLink cannot work (exit 0)" \
    sh -c "[ $rc1 -eq 0 ] && grep -q '^WARNING: imex: node: no IMEX channel: $work/dev/node001/nvidia-caps-imex-channels does not exist: multi-node NVLink cannot work for this user' '$work/h1'"
check "health --imex with channel0: OK" \
    sh -c "[ $rc5 -eq 0 ] && grep -q '^OK: imex: node: IMEX channel channel0 in $work/dev/node005/nvidia-caps-imex-channels is usable by uid 65534' '$work/h5'"
check "health --imex: /dev/null's 1:3 named channel0 is no channel (its major is not the driver's)" \
    sh -c "[ $rcn -eq 0 ] && grep -q '^WARNING: imex: node: no IMEX channel uid 65534 may open in $work/dev/nullch/nvidia-caps-imex-channels (channel0: device 1:3 is not an IMEX channel ($work/proc/node005/devices: nvidia-caps-imex-channels is major 508))' '$work/hnull'"
