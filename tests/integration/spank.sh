#!/bin/sh
# The atoll SPANK plugin in a real Slurm: slurmctld and 16 slurmd on loopback,
# job_submit.lua, topology.conf and island features from atoll-topo, a fabric
# of 2 pods x 2 rail groups x 4 hosts with 2 rails and SHARP. Checks the
# options, placement into one leaf under load, each task's environment against
# a table worked out by hand, bad values, a missing fabric file, strict.
. "$(dirname "$0")/../lib.sh"
. "$ATOLL_SRCDIR/tests/slurm-cluster.sh"
N=74
plan $N
so="$ATOLL_BUILDDIR/spank/.libs/atoll.so"
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v srun >/dev/null; then
    i=0; while [ $i -lt $N ]; do i=$((i + 1)); skip "spank $i" "slurmctld, slurmd or slurm-client not installed"; done
    exit 0
fi
work=$(tmpdir)
at_exit cluster_down
"$TOPO" generate --pods 2 --groups 2 --rails 2 --hosts 4 --sharp --format json -o "$work/fabric.json"
"$TOPO" slurm --format view "$work/fabric.json" -o "$work/fabric.view"
chmod 644 "$work/fabric.json" "$work/fabric.view"
# every node plays the 32em64t server (one HCA), node002 a multi-HCA one
mkdir -p "$work/hwloc"
for i in $(seq -w 1 16); do cp "$DATA/hwloc/32em64t-2n8c2t-pci-normalio.xml" "$work/hwloc/node0$i.xml"; done
cp "$DATA/hwloc/dgx-a100-like-4gpu-5hca.xml" "$work/hwloc/node002.xml"
chmod 644 "$work/hwloc/"*.xml
xml="$work/hwloc/%n.xml"
# each node's sysfs: mlx5_0 and mlx5_1 port 1, InfiniBand, ACTIVE (node002
# has a third, mlx5_4, its storage HCA); node002's NVIDIA driver numbers its 4
# GPUs (PCI 12, 16, 92, 96) by device minors 1, 0, 3, 2, and Slurm gives them
# as gres gpu:4 (fake device files: the mapping is what is tested)
for i in $(seq -w 1 16); do
    for h in 0 1; do
        d="$work/sys/node0$i/class/infiniband/mlx5_$h/ports/1"
        mkdir -p "$d"; echo InfiniBand >"$d/link_layer"; echo "4: ACTIVE" >"$d/state"
    done
done
d="$work/sys/node002/class/infiniband/mlx5_4/ports/1"
mkdir -p "$d"; echo InfiniBand >"$d/link_layer"; echo "4: ACTIVE" >"$d/state"
set -- 0000:12:00.0 0 0000:16:00.0 1 0000:92:00.0 2 0000:96:00.0 3
while [ $# -gt 0 ]; do
    mkdir -p "$work/proc/node002/driver/nvidia/gpus/$1"
    printf 'Model:\t\t NVIDIA A100-SXM4-80GB (fake)\nDevice Minor:\t %s\n' "$2" >"$work/proc/node002/driver/nvidia/gpus/$1/information"
    shift 2
done
mkdir -p "$work/dev" "$work/c"
for m in 0 1 2 3; do mknod "$work/dev/nvidia$m" c 195 "$m" 2>/dev/null || : >"$work/dev/nvidia$m"; done
echo "NodeName=node002 Name=gpu File=$work/dev/nvidia[0-3]" >"$work/c/gres.conf"
export CLUSTER_GRES="node002=gpu:4"

# exported symbols: what Slurm looks up, nothing else
syms=$(nm -D --defined-only "$so" | awk '{print $3}' | sort | tr '\n' ' ')
# Slurm 25.05 and later: also slurm_spank_init_failure_mode (ESPANK_JOB_FAILURE: never drain a node)
mode=
[ "$(slurm_version)" -ge 2505 ] && mode="slurm_spank_init_failure_mode "
if [ "$syms" = "plugin_name plugin_type plugin_version slurm_spank_init ${mode}slurm_spank_init_post_opt slurm_spank_task_init slurm_spank_user_init spank_plugin_version " ]; then ok "atoll.so exports only the SPANK symbols"; else not_ok "atoll.so exports only the SPANK symbols"; diag "$syms"; fi
# hwloc stays out of srun: atoll.so does not link it, atoll-hwloc.so (loaded
# on demand) exports its one function
deps=$(ldd "$so" | grep -c -E 'libhwloc|libstdc\+\+')
hsyms=$(nm -D --defined-only "$(dirname "$so")/atoll-hwloc.so" | awk '{print $3}' | tr '\n' ' ')
if [ "$deps" -eq 0 ] && [ "$hsyms" = "atl_gpu_hcas3 " ]; then ok "atoll.so links neither hwloc nor a shared libstdc++; atoll-hwloc.so exports atl_gpu_hcas3 alone"
else not_ok "atoll.so links neither hwloc nor a shared libstdc++; atoll-hwloc.so exports atl_gpu_hcas3 alone"; diag "$(ldd "$so")" "$hsyms"; fi

# slurmd logs at verbose: where a job that asked for nothing has atoll's notes
export CLUSTER_SLURMD_DEBUG=verbose
cluster_up "$work/c" "$work/fabric.json" "$so" "fabric=$work/fabric.view hwloc_xml=$xml sysfs_root=$work/sys/%n proc_root=$work/proc/%n" || {
    i=2; while [ $i -lt $N ]; do i=$((i + 1)); not_ok "cluster did not start"; done; exit 0; }

# The site's keys live in the one plugstack.conf that srun, slurmstepd and
# job_submit.lua (in slurmctld) all read: a scenario rewrites it, each reads
# it afresh per job or step.
cp "$work/c/plugstack.conf" "$work/c/plugstack.base"
set_plugstack() { sed "s|^\(required .*\)$|\1 $1|" "$work/c/plugstack.base" >"$work/c/plugstack.conf"; }
reset_plugstack() { cp "$work/c/plugstack.base" "$work/c/plugstack.conf"; }

srun --help >"$work/help" 2>&1
check "srun --help lists the options with [atoll]" grep -q -- "--fabric-island=LEVEL *\[atoll\]" "$work/help"
if \
    grep -q -- "--fabric-env=MODE" "$work/help" && grep -q -- "--fabric-sharp=MODE" "$work/help" && grep -q -- "--fabric-explain" "$work/help"; then ok "srun --help lists --fabric-env, --fabric-sharp, --fabric-explain"; else not_ok "srun --help lists --fabric-env, --fabric-sharp, --fabric-explain"; fi
sbatch --help >"$work/shelp" 2>&1
check "sbatch --help lists them too" grep -q -- "--fabric-island=LEVEL *\[atoll\]" "$work/shelp"

timeout 10 srun --fabric-island=rack true 2>"$work/err"
rc=$?
if [ $rc -ne 0 ] && grep -q -- "--fabric-island=rack: expected" "$work/err"; then ok "a bad --fabric-island fails at once, naming the flag"; else not_ok "a bad --fabric-island fails at once, naming the flag"; fi
timeout 10 sbatch --fabric-env=loud --wrap true 2>"$work/err"
if [ $? -ne 0 ] && grep -q -- "--fabric-env=loud: expected auto, off or show" "$work/err"; then ok "a bad --fabric-env fails sbatch, naming the flag"; else not_ok "a bad --fabric-env fails sbatch, naming the flag"; fi
timeout 10 srun -N5 --fabric-island=leaf true 2>"$work/err"
if [ $? -ne 0 ] && grep -q "no leaf can hold 5 nodes; the largest leaf holds 4" "$work/err"; then ok "a job no leaf can ever hold is refused, naming the largest"; else not_ok "a job no leaf can ever hold is refused, naming the largest"; fi

# Load: grp-ib-leaf01 and grp-ib-leaf03 have 2 free each, the other two leaves
# are busy for a few seconds. Plain Slurm (topology/tree) starts 4 nodes at
# once across two leaves; --fabric-island=leaf waits and lands in one.
hold() { sbatch -o /dev/null --exclusive -N "$1" -w "$2" --wrap "sleep $3" | awk '{print $4}'; }
hold 2 "node[001-002]" 60 >/dev/null
hold 2 "node[005-006]" 60 >/dev/null
hold 8 "node[009-016]" 6 >/dev/null
sleep 1
timeout 60 srun -N4 --exclusive printenv SLURMD_NODENAME 2>/dev/null | sort >"$work/plain"
timeout 60 srun -N4 --exclusive --fabric-island=leaf printenv SLURMD_NODENAME ATOLL_LEAVES 2>/dev/null | sort >"$work/atoll"
if [ "$(tr '\n' ' ' <"$work/plain")" = "node003 node004 node007 node008 " ]; then ok "plain Slurm spans two leaves under that load"; else not_ok "plain Slurm spans two leaves under that load"; diag "$(cat "$work/plain")"; fi
leafs=$(grep '^node' "$work/atoll" | tr '\n' ' ')
case "$leafs" in
"node009 node010 node011 node012 " | "node013 node014 node015 node016 ") ok "--fabric-island=leaf waits and lands in one leaf" ;;
*) not_ok "--fabric-island=leaf waits and lands in one leaf"; diag "$(cat "$work/atoll")" ;;
esac
check "ATOLL_LEAVES names that one leaf" [ "$(grep -c '^grp-ib-leaf0[57]$' "$work/atoll")" -eq 4 ]
scancel --user=root; wait_idle

# Live state: cli_filter.lua runs atoll's engine on the idle nodes. With
# node005-006 busy, grp-ib-leaf03 has exactly 2 free: the best fit for 2
# nodes, ranked first in the constraint, so whole leaves stay whole. (The
# static order job_submit.lua gives without live state starts with
# grp-ib-leaf01, and Slurm takes the first option with room: node001-002.)
hold 2 "node[005-006]" 60 >/dev/null
sleep 1
timeout 60 srun -N2 --exclusive --fabric-island=leaf --fabric-explain printenv SLURMD_NODENAME \
    2>"$work/live.err" | sort | tr '\n' ' ' >"$work/live"
if \
    [ "$(cat "$work/live")" = "node007 node008 " ] && \
    grep -q "atoll: 2 nodes, --fabric-island=leaf, 14 of the fabric's nodes idle: constraint \[grp-ib-leaf03|grp-ib-leaf01|grp-ib-leaf05|grp-ib-leaf07\]" "$work/live.err"
then ok "on live state the job gets the best-fit leaf (cli_filter ranks the islands)"
else not_ok "on live state the job gets the best-fit leaf (cli_filter ranks the islands)"; diag "$(cat "$work/live")" "$(cat "$work/live.err")"; fi
scancel --user=root; wait_idle

# The environment of each task, worked out by hand: node001 (grp-ib-leaf01)
# and node005 (grp-ib-leaf03) meet in pod-ib-leaf01 through a spine (4 cables);
# both have mlx5_0 and mlx5_1 on port 1 in sysfs; every switch has SHARP and
# the step spans two leaves, so SHARP is offered (ATOLL_SHARP) and CollNet left
# to each communicator; no GPU gres, so no UCX_NET_DEVICES (which GPU a task
# drives is not known).
timeout 30 srun -N2 -n4 -w node001,node005 -l sh -c 'echo "$SLURMD_NODENAME $SLURM_LOCALID $ATOLL_ISLAND $ATOLL_LEAVES $ATOLL_HOPS $NCCL_IB_HCA ${ATOLL_SHARP:-unset} ${NCCL_COLLNET_ENABLE:-unset} ${UCX_NET_DEVICES:-unset} ${NCCL_CROSS_NIC:-unset} ${NCCL_DEBUG:-unset}"' \
    2>/dev/null | sed 's/^[0-9]*: //' | sort >"$work/env"
cat >"$work/env.want" <<'TABLE'
node001 0 pod-ib-leaf01 grp-ib-leaf01,grp-ib-leaf03 4 =mlx5_0:1,mlx5_1:1 1 unset unset unset unset
node001 1 pod-ib-leaf01 grp-ib-leaf01,grp-ib-leaf03 4 =mlx5_0:1,mlx5_1:1 1 unset unset unset unset
node005 0 pod-ib-leaf01 grp-ib-leaf01,grp-ib-leaf03 4 =mlx5_0:1,mlx5_1:1 1 unset unset unset unset
node005 1 pod-ib-leaf01 grp-ib-leaf01,grp-ib-leaf03 4 =mlx5_0:1,mlx5_1:1 1 unset unset unset unset
TABLE
if cmp -s "$work/env" "$work/env.want"; then ok "each task's environment matches the hand-checked table"; else not_ok "each task's environment matches the hand-checked table"; diag "$(diff "$work/env.want" "$work/env")"; fi
# A multi-HCA node with GPU gres: node002 plays a hand-written DGX A100-like
# hwloc XML (GPU k beside mlx5_k on one PCIe switch). Slurm's GPU i is the
# GPU of device minor i (here in PCI bus order, as CUDA numbers them): 0 is
# PCI 12 (beside mlx5_0), 1 is PCI 16 (mlx5_1), 2 and 3 (PCI 92, 96) sit
# beside mlx5_2 and mlx5_3, which are no compute rails:
# the compute HCAs mlx5_0 and mlx5_1 are both across the socket link (SYS) from
# them, equally near: a tie, so none is set (the first by order was wrong half
# the time). One GPU per task.
timeout 30 srun -N1 -n4 -w node002 --gpus-per-task=1 -l sh -c 'echo "$CUDA_VISIBLE_DEVICES ${UCX_NET_DEVICES:-unset}"' \
    2>"$work/ucx.err" | sort | tr '\n' ' ' >"$work/ucx"
if [ "$(cat "$work/ucx")" = "0: 0 mlx5_0:1 1: 1 mlx5_1:1 2: 2 unset 3: 3 unset " ]; then
    ok "GPU gres: each task's UCX_NET_DEVICES is its own GPU's (by device minor) nearest compute HCA"
else
    not_ok "GPU gres: each task's UCX_NET_DEVICES is its own GPU's (by device minor) nearest compute HCA"; diag "$(cat "$work/ucx" "$work/ucx.err")"
fi
# one task holding GPUs 0 and 1 (beside mlx5_0 and mlx5_1): no single HCA is right, none set;
# the storage HCA mlx5_4 is never listed
timeout 30 srun -N1 -n1 -w node002 --gpus=2 --fabric-env=show sh -c 'echo "${UCX_NET_DEVICES:-unset} $NCCL_IB_HCA"' \
    >"$work/ucx2" 2>"$work/ucx2.err"
if [ "$(cat "$work/ucx2")" = "unset =mlx5_0:1,mlx5_1:1" ] &&
   grep -q "UCX_NET_DEVICES not set: the task's 2 GPUs have 2 nearest HCAs" "$work/ucx2.err"; then
    ok "a task holding two GPUs with two nearest HCAs gets no UCX_NET_DEVICES, and show says why"
else
    not_ok "a task holding two GPUs with two nearest HCAs gets no UCX_NET_DEVICES, and show says why"; diag "$(cat "$work/ucx2" "$work/ucx2.err")"
fi
timeout 30 srun -N1 -w node009 sh -c 'echo "$ATOLL_ISLAND $ATOLL_HOPS ${NCCL_COLLNET_ENABLE:-unset}"' >"$work/one" 2>/dev/null
if [ "$(cat "$work/one")" = "grp-ib-leaf05 0 unset" ]; then ok "one node: its leaf island, no CollNet"; else not_ok "one node: its leaf island, no CollNet"; diag "$(cat "$work/one")"; fi
NCCL_IB_HCA=mine timeout 30 srun -N1 -w node001 printenv NCCL_IB_HCA >"$work/kept" 2>/dev/null
check "a variable the user set is kept" [ "$(cat "$work/kept")" = "mine" ]
timeout 30 srun -N1 -w node001 --fabric-env=off sh -c 'echo "${NCCL_IB_HCA:-unset} ${ATOLL_ISLAND:-unset}"' >"$work/off" 2>/dev/null
check "--fabric-env=off sets nothing" [ "$(cat "$work/off")" = "unset unset" ]
timeout 30 srun -N1 -w node001 --fabric-env=show true 2>"$work/show"
check "--fabric-env=show says what was set and why" \
    grep -q "atoll: node001 task 0: NCCL_IB_HCA==mlx5_0:1,mlx5_1:1 (this node's compute-rail adapters, checked in sysfs)" "$work/show"
timeout 30 srun -N1 -w node001 --fabric-sharp=off printenv NCCL_COLLNET_ENABLE >"$work/nosharp" 2>/dev/null
timeout 30 srun -N2 -w node001,node005 --fabric-sharp=off printenv NCCL_COLLNET_ENABLE >>"$work/nosharp" 2>/dev/null
check "--fabric-sharp=off leaves CollNet alone" [ ! -s "$work/nosharp" ]
timeout 30 srun -N2 -w node001,node005 --fabric-sharp=on printenv NCCL_COLLNET_ENABLE >"$work/sharpon" 2>/dev/null
check "--fabric-sharp=on sets NCCL_COLLNET_ENABLE=1 for a step over two SHARP leaves" [ "$(sort -u "$work/sharpon")" = 1 ]

# A --fabric-* value with a newline and a timestamp cannot forge a log line:
# srun refuses it at once in one message, the newline shown as \n; given to
# slurmstepd past srun (the option's variable in the job's environment), it is
# logged the same way and ignored.
nl='
'
forged="leaf${nl}[2026-01-01T00:00:00.000] error: forged"
timeout 10 srun --fabric-island="$forged" true >/dev/null 2>"$work/forged.err"
rc=$?
if [ $rc -ne 0 ] && [ "$(grep -c 'atoll: --fabric-island=leaf\\n\[2026-01-01T00:00:00.000\] error: forged: expected' "$work/forged.err")" -eq 1 ] &&
   ! grep -q '^\[2026-01-01T00:00:00.000\]' "$work/forged.err"; then
    ok "a --fabric-island value with a newline fails at submit in one message line, the newline escaped"
else
    not_ok "a --fabric-island value with a newline fails at submit in one message line, the newline escaped"; diag "rc=$rc" "$(cat "$work/forged.err")"
fi
_SLURM_SPANK_OPTION_atoll_fabric_island="$forged" timeout 30 srun -N1 -w node003 true >/dev/null 2>&1
if grep -q 'atoll: --fabric-island=leaf\\n\[2026-01-01T00:00:00.000\] error: forged: expected.*(ignored in this step)' "$work/c/log/slurmd-node003.log" &&
   ! grep -q '^\[2026-01-01T00:00:00.000\]' "$work/c/log/"*.log; then
    ok "the same value passed to slurmstepd is logged escaped and ignored: no forged line in slurmd's log"
else
    not_ok "the same value passed to slurmstepd is logged escaped and ignored: no forged line in slurmd's log"
    diag "$(grep -h 'forged' "$work/c/log/"*.log)"
fi

# A user's NCCL_CONF_FILE on a FUSE file whose read never answers (the
# server is built here): slurmstepd reads the user's files only in a child
# with a deadline (2 s), so the job of an unprivileged user starts within the
# bound, ends, says which file it could not read, and the node goes idle.
chmod 755 "$work"  # jobs of nobody read slurm.conf and the view below it
fuse_skip=
if [ ! -c /dev/fuse ]; then fuse_skip="no /dev/fuse"
elif ! command -v fusermount3 >/dev/null || ! pkg-config --exists fuse3; then fuse_skip="fuse3 or libfuse3-dev not installed"
elif [ "$(id -u)" -ne 0 ] || ! command -v setpriv >/dev/null; then fuse_skip="needs root and setpriv (allow_other, a job as nobody)"
fi
if [ -z "$fuse_skip" ]; then
    cat >"$work/stall.c" <<'C'
/* A FUSE file system of one file, /nccl.conf, whose read never answers. */
#define FUSE_USE_VERSION 31
#include <errno.h>
#include <fuse.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int fs_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
    (void)fi;
    memset(st, 0, sizeof *st);
    if (strcmp(path, "/") == 0) {
        st->st_mode = S_IFDIR | 0755;
        st->st_nlink = 2;
        return 0;
    }
    if (strcmp(path, "/nccl.conf") != 0)
        return -ENOENT;
    st->st_mode = S_IFREG | 0644;
    st->st_nlink = 1;
    st->st_size = 4096;
    return 0;
}

static int fs_open(const char *path, struct fuse_file_info *fi)
{
    (void)fi;
    fprintf(stderr, "open %s uid=%u\n", path, (unsigned)fuse_get_context()->uid);
    return strcmp(path, "/nccl.conf") == 0 ? 0 : -ENOENT;
}

static int fs_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
    (void)path, (void)buf, (void)size, (void)off, (void)fi;
    fprintf(stderr, "read: never answered\n");
    for (;;)
        pause();
    return -EIO;
}

static const struct fuse_operations ops = {.getattr = fs_getattr, .open = fs_open, .read = fs_read};

int main(int argc, char **argv)
{
    setvbuf(stderr, NULL, _IOLBF, 0);
    return fuse_main(argc, argv, &ops, NULL);
}
C
    # shellcheck disable=SC2046
    cc -o "$work/stall" "$work/stall.c" $(pkg-config --cflags --libs fuse3) 2>"$work/stall.cc" ||
        fuse_skip="cannot build the FUSE server: $(head -1 "$work/stall.cc")"
fi
if [ -z "$fuse_skip" ]; then
    mkdir -p "$work/fuse"
    "$work/stall" -f -o allow_other "$work/fuse" 2>"$work/stall.log" &
    stall_pid=$!
    # before cluster_down: a reader stuck in the file system dies with its server
    at_exit "kill -9 $stall_pid 2>/dev/null; sleep 0.2; fusermount3 -u -z '$work/fuse' 2>/dev/null || umount -l '$work/fuse' 2>/dev/null"
    i=0; until mountpoint -q "$work/fuse" || [ $i -ge 50 ]; do sleep 0.1; i=$((i + 1)); done
    mountpoint -q "$work/fuse" || fuse_skip="the FUSE server did not mount: $(head -1 "$work/stall.log")"
fi
if [ -n "$fuse_skip" ]; then
    for i in 1 2 3; do skip "a never-answering NCCL_CONF_FILE" "$fuse_skip"; done
else
    t0=$(date +%s.%N)
    NCCL_CONF_FILE="$work/fuse/nccl.conf" HOME=/nonexistent timeout 30 \
        setpriv --reuid=65534 --regid=65534 --clear-groups -- \
        srun -N1 -w node003 --chdir=/ --fabric-env=auto sh -c 'date +%s.%N; id -u' >"$work/stall.out" 2>"$work/stall.err"
    rc=$?
    t1=$(date +%s.%N)
    started=$(awk -v a="$t0" 'NR == 1 { printf "%.2f", $1 - a }' "$work/stall.out")
    took=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
    diag "the job started after $started s and srun returned after $took s (bound 2 s)"
    if [ $rc -eq 0 ] && [ "$(sed -n 2p "$work/stall.out")" = 65534 ] &&
       awk -v s="$started" -v t="$took" 'BEGIN { exit !(s >= 1.9 && s < 5 && t < 8) }' &&
       grep -q "open /nccl.conf uid=65534" "$work/stall.log" && grep -q "read: never answered" "$work/stall.log"; then
        ok "a job of nobody whose NCCL_CONF_FILE never answers starts within the 2 s bound and ends (read as uid 65534)"
    else
        not_ok "a job of nobody whose NCCL_CONF_FILE never answers starts within the 2 s bound and ends (read as uid 65534)"
        diag "rc=$rc" "$(cat "$work/stall.out" "$work/stall.err" "$work/stall.log")"
    fi
    want="atoll: warning: node003: the user's nccl.conf '$work/fuse/nccl.conf' was not read within 2 s (a stalled file system?)"
    if grep -qF "$want" "$work/stall.err" && grep -qF "$want" "$work/c/log/slurmd-node003.log"; then
        ok "the warning names the file and the bound, in the job's stderr and slurmd's log"
    else
        not_ok "the warning names the file and the bound, in the job's stderr and slurmd's log"
        diag "$(cat "$work/stall.err")" "$(grep 'atoll' "$work/c/log/slurmd-node003.log" | tail -3)"
    fi
    i=0
    while [ "$(sinfo -h -n node003 -o %T)" != idle ] && [ $i -lt 50 ]; do sleep 0.2; i=$((i + 1)); done
    st=$(sinfo -h -n node003 -o %T)
    diag "node003 $st after $(awk -v i=$i 'BEGIN { printf "%.1f", i * 0.2 }') s more; readers left: $(pgrep -c -x atoll-reader)"
    check "node003 is idle again" [ "$st" = idle ]
fi

# slurmstepd reads the view as the job's user (user_init runs under its
# euid on 22.05): a 0600 view gives every step a warning that says so
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
    chmod 600 "$work/fabric.view"
    HOME=/nonexistent timeout 30 setpriv --reuid=65534 --regid=65534 --clear-groups -- \
        srun -N1 -w node003 --chdir=/ --fabric-env=auto true >/dev/null 2>"$work/perm.err"
    rc=$?
    HOME=/nonexistent timeout 30 setpriv --reuid=65534 --regid=65534 --clear-groups -- \
        srun -N1 -w node003 --chdir=/ true >/dev/null 2>"$work/perm-plain.err"
    chmod 644 "$work/fabric.view"
    if [ ! -s "$work/perm-plain.err" ] && grep -q "fabric file $work/fabric.view: Permission denied" "$work/c/log/slurmd-node003.log"; then
        ok "the same view, a job that asked for nothing: nothing on its stderr, the reason in slurmd's log"
    else
        not_ok "the same view, a job that asked for nothing: nothing on its stderr, the reason in slurmd's log"; diag "$(cat "$work/perm-plain.err")"
    fi
    if [ $rc -eq 0 ] && grep -q "atoll: warning: fabric file $work/fabric.view: Permission denied: not readable by uid 65534 (slurmstepd reads it as the job's user): make it world-readable (0644" "$work/perm.err"; then
        ok "a view the job's user cannot read: the step runs and the warning names the uid and the fix"
    else
        not_ok "a view the job's user cannot read: the step runs and the warning names the uid and the fix"; diag "rc=$rc" "$(cat "$work/perm.err")"
    fi
else
    skip "a view the job's user cannot read" "needs root and setpriv"
    skip "a view the job's user cannot read, plain job" "needs root and setpriv"
fi

# Quiet defaults (issue 27, item 5): a node without RDMA devices. A job that
# asked for nothing is told nothing, slurmd's log has the note at verbose; a
# job that asked for atoll's environment is told.
mv "$work/sys/node016" "$work/sys-node016"
timeout 30 srun -N1 -w node016 hostname >/dev/null 2>"$work/quiet.err"
timeout 30 srun -N1 -w node016 --fabric-env=auto hostname >/dev/null 2>"$work/told.err"
timeout 30 srun -N1 -w node016 --fabric-island=leaf hostname >/dev/null 2>"$work/island-only.err"
mv "$work/sys-node016" "$work/sys/node016"
if [ ! -s "$work/quiet.err" ] && grep -q "atoll: warning: node016: NCCL_IB_HCA not set: no RDMA device in sysfs" "$work/c/log/slurmd-node016.log"; then
    ok "a plain job on a node without RDMA devices prints nothing; slurmd's log has the note"
else not_ok "a plain job on a node without RDMA devices prints nothing; slurmd's log has the note"; diag "$(cat "$work/quiet.err")"; fi
check "a job that asked for atoll's environment there is told NCCL_IB_HCA is not set" \
    grep -q "atoll: warning: node016: NCCL_IB_HCA not set: no RDMA device in sysfs" "$work/told.err"
check "a job that asked for an island alone is not told about the node's adapters (red team of issue 27)" \
    sh -c "! grep -q 'NCCL_IB_HCA not set' '$work/island-only.err'"

# The node count without -N (item 7): --ntasks over --ntasks-per-node, or
# over the most CPUs a node has (4, node002): atoll's refusal, not Slurm's
timeout 10 srun -n5 --ntasks-per-node=1 --fabric-island=leaf true 2>"$work/ntasks.err"
if [ $? -ne 0 ] && grep -q "no leaf can hold 5 nodes; the largest leaf holds 4" "$work/ntasks.err"; then
    ok "srun -n5 --ntasks-per-node=1 --fabric-island=leaf is counted as 5 nodes and refused by atoll"
else not_ok "srun -n5 --ntasks-per-node=1 --fabric-island=leaf is counted as 5 nodes and refused by atoll"; diag "$(cat "$work/ntasks.err")"; fi
timeout 10 srun -n20 --fabric-island=leaf true 2>"$work/ntasks.err"
if [ $? -ne 0 ] && grep -q "no leaf can hold 5 nodes; the largest leaf holds 4" "$work/ntasks.err"; then
    ok "srun -n20 --fabric-island=leaf (4 CPUs a node at most) is counted as 5 nodes and refused by atoll"
else not_ok "srun -n20 --fabric-island=leaf (4 CPUs a node at most) is counted as 5 nodes and refused by atoll"; diag "$(cat "$work/ntasks.err")"; fi

timeout 10 srun --gpus=20 --gpus-per-node=4 --fabric-island=leaf true 2>"$work/ntasks.err"
if [ $? -ne 0 ] && grep -q "no leaf can hold 5 nodes; the largest leaf holds 4" "$work/ntasks.err"; then
    ok "srun --gpus=20 --gpus-per-node=4 --fabric-island=leaf is counted as 5 nodes and refused by atoll"
else not_ok "srun --gpus=20 --gpus-per-node=4 --fabric-island=leaf is counted as 5 nodes and refused by atoll"; diag "$(cat "$work/ntasks.err")"; fi

# --fabric-explain (item 6): the node count of -n2, no "nil", no "srun: error:"
# on atoll's lines, and where the step landed
timeout 30 srun -n2 --ntasks-per-node=1 --fabric-island=auto --fabric-explain true 2>"$work/explain.err"
if grep -q "atoll: 2 nodes, --fabric-island=auto" "$work/explain.err" && ! grep -q "atoll: 1 node" "$work/explain.err" && ! grep -q "nil" "$work/explain.err" &&
    ! grep -q "error: atoll" "$work/explain.err" && grep -q "^atoll: the step landed on 2 nodes (node0[0-9][0-9], ...): island .*, leaves .*, [0-9] hops$" "$work/explain.err"; then
    ok "--fabric-explain counts -n2 as 2 nodes, says no nil and where the step landed"
else not_ok "--fabric-explain counts -n2 as 2 nodes, says no nil and where the step landed"; diag "$(cat "$work/explain.err")"; fi

# What still applies (item 8): the plugin's view missing (a misspelt
# fabric=): the island request still goes to job_submit.lua, and the warning
# says so; the requests table missing: the job keeps cli_filter's constraint
set_plugstack "fabric=$work/no-such.view"
timeout 30 srun -N2 --fabric-island=leaf printenv SLURMD_NODENAME >"$work/half.out" 2>"$work/half.err"
reset_plugstack
if grep -q "atoll: warning: fabric file $work/no-such.view: No such file.*; the island request still applies (cli_filter.lua, job_submit.lua), but the job's steps get no fabric environment" "$work/half.err" &&
    ! grep -q "without atoll's help" "$work/half.err"; then
    ok "a misspelt fabric=: the warning says the island request still applies and the steps get no environment"
else not_ok "a misspelt fabric=: the warning says the island request still applies and the steps get no environment"; diag "$(cat "$work/half.out" "$work/half.err")"; fi
mv "$work/c/atoll-requests.conf" "$work/c/atoll-requests.away"
timeout 30 srun -N2 --fabric-island=leaf true 2>"$work/noreq.err"
mv "$work/c/atoll-requests.away" "$work/c/atoll-requests.conf"
if grep -q "atoll: warning: cannot open .*atoll-requests.conf; the job keeps the constraint it was submitted with (\[grp-ib-leaf" "$work/noreq.err" &&
    ! grep -q "without island placement" "$work/noreq.err"; then
    ok "atoll-requests.conf missing: the warning says the job keeps cli_filter's island constraint"
else not_ok "atoll-requests.conf missing: the warning says the job keeps cli_filter's island constraint"; diag "$(cat "$work/noreq.err")"; fi
scancel --user=root; wait_idle

# A batch script with two srun steps: the script gets the job's node
# variables; step 1 (node005 alone) recomputes them; step 2 keeps the
# NCCL_IB_HCA the script exported, and recomputes the rest
timeout 60 sbatch -W -N2 -w node001,node005 -o "$work/steps.out" --wrap '
echo "B $ATOLL_ISLAND $NCCL_IB_HCA ${UCX_NET_DEVICES:-unset}"
srun -N1 -w node005 sh -c "echo S1 \$ATOLL_ISLAND \$ATOLL_HOPS \${ATOLL_SHARP:-unset} \$NCCL_IB_HCA"
export NCCL_IB_HCA==mlx5_1:1
srun -N2 -l sh -c "echo S2 \$SLURMD_NODENAME \$ATOLL_ISLAND \$NCCL_IB_HCA" | sort' >/dev/null 2>&1
cat >"$work/steps.want" <<'TABLE'
B pod-ib-leaf01 =mlx5_0:1,mlx5_1:1 unset
S1 grp-ib-leaf03 0 unset =mlx5_0:1,mlx5_1:1
0: S2 node001 pod-ib-leaf01 =mlx5_1:1
1: S2 node005 pod-ib-leaf01 =mlx5_1:1
TABLE
if grep -v '^atoll:' "$work/steps.out" | cmp -s - "$work/steps.want"; then ok "a batch script's steps each get their own environment; a variable the script set is kept"
else not_ok "a batch script's steps each get their own environment; a variable the script set is kept"; diag "$(cat "$work/steps.out")"; fi

# --fabric-island on srun inside an allocation cannot move the job: a user
# who asks it there alone is told so; the island the job asked on sbatch or
# salloc, which Slurm passes to its sruns, is no news and says nothing
timeout 60 sbatch -W -N1 -w node001 -o "$work/instep.out" --wrap 'srun -N1 --fabric-island=leaf true' >/dev/null 2>&1
timeout 60 sbatch -W -N1 -w node001 --fabric-island=leaf -o "$work/inherit.out" --wrap 'srun -N1 true; srun -N1 --fabric-island=leaf true' >/dev/null 2>&1
timeout 60 salloc -N1 -w node001 srun -N1 --fabric-island=leaf true >/dev/null 2>"$work/salloc-instep.err"
timeout 60 salloc -N1 -w node001 --fabric-island=leaf srun -N1 true >/dev/null 2>"$work/salloc-inherit.err"
if grep -q "atoll: --fabric-island=leaf:required on srun inside job [0-9]* places nothing: the job's nodes are allocated already" "$work/instep.out" &&
   grep -q "atoll: --fabric-island=leaf:required on srun inside job [0-9]* places nothing" "$work/salloc-instep.err" &&
   ! grep -q "places nothing" "$work/inherit.out" "$work/salloc-inherit.err"; then
    ok "srun --fabric-island inside an allocation says it places nothing; the job's own island from sbatch or salloc is silent"
else
    not_ok "srun --fabric-island inside an allocation says it places nothing; the job's own island from sbatch or salloc is silent"
    diag "$(cat "$work/instep.out" "$work/inherit.out" "$work/salloc-instep.err" "$work/salloc-inherit.err")"
fi

timeout 30 srun -N2 --fabric-island=leaf:preferred --fabric-explain true 2>"$work/pref.err"
if \
    grep -q "constraint \[pod-ib-leaf01|pod-ib-leaf05\], switches 1@10:00" "$work/pref.err"; then ok "leaf:preferred waits for one leaf switch, then widens to one pod only"; else not_ok "leaf:preferred waits for one leaf switch, then widens to one pod only"; diag "$(cat "$work/pref.err")"; fi

# pod:preferred: Slurm cannot wait a bounded time for one pod, so the job is
# held to the pods and marked; atoll-widen lifts the constraint once
# island_wait (3 s here) is over. Each pod has 4 free: 5 nodes wait.
scancel --user=root; wait_idle
set_plugstack "island_wait=3"
hold 4 "node[001-004]" 60 >/dev/null
hold 4 "node[009-012]" 60 >/dev/null
sleep 1
jid=$(sbatch -o /dev/null --exclusive -N5 --fabric-island=pod:preferred --wrap "sleep 30" | awk '{print $4}')
# a throttled array, marked the same (helper 38 feared squeue would list
# its pending tasks as ID_[1-2%1], which scontrol update refuses as written;
# -O JobID lists the array's job ID, and atoll-widen takes either form)
aid=$(sbatch -o /dev/null --exclusive -N5 --array=1-2%1 --fabric-island=pod:preferred --wrap "sleep 30" | awk '{print $4}')
reset_plugstack
# a user's own comment that looks like the mark is never applied
fake=$(sbatch -H -o /dev/null -N1 --comment "AdminComment=atoll-widen 0 bigmem&gpu80g" --wrap true | awk '{print $4}')
export ATOLL_WIDEN_LOCK="$work/widen.lock"
sleep 1
"$ATOLL_SRCDIR/contrib/atoll-widen" >"$work/widen0"
st=$(squeue -h -j "$jid" -o %t)
info=$(scontrol show job -o "$jid")
if \
    [ "$st" = PD ] && [ ! -s "$work/widen0" ] && echo "$info" | grep -q "Features=\[pod-ib-leaf01|pod-ib-leaf05\]" &&
    echo "$info" | grep -q "AdminComment=atoll-widen [0-9]* \[pod-ib-leaf01|pod-ib-leaf05\] -"; then ok "pod:preferred waits within the pods, marked for atoll-widen, not widened early"; else not_ok "pod:preferred waits within the pods, marked for atoll-widen, not widened early"; fi
sleep 3
flock "$ATOLL_WIDEN_LOCK" "$ATOLL_SRCDIR/contrib/atoll-widen" >"$work/widen-locked" 2>&1
locked_rc=$?
"$ATOLL_SRCDIR/contrib/atoll-widen" >"$work/widen1"
finfo=$(scontrol show job -o "$fake")
ainfo=$(scontrol show job -o "$aid" | head -1)
scancel "$fake" "$aid"
if grep -q "job ${aid}\(_\[1-2\]\)* waited past its island deadline" "$work/widen1" && echo "$ainfo" | grep -q "Features=(null) " &&
   ! echo "$ainfo" | grep -q "AdminComment=atoll-widen"; then
    ok "atoll-widen: a throttled array's pending tasks are widened too"
else
    not_ok "atoll-widen: a throttled array's pending tasks are widened too"
    diag "$ainfo" "$(cat "$work/widen0" "$work/widen1")"
fi
if echo "$finfo" | grep -q "Features=(null) " && ! grep -q "job $fake " "$work/widen0" "$work/widen1" &&
   [ $locked_rc -eq 1 ] && grep -q "another atoll-widen holds" "$work/widen-locked" && ! grep -q "job $jid" "$work/widen-locked"; then
    ok "atoll-widen: a user's Comment posing as the mark is ignored; a second atoll-widen waits for none, does nothing, exits 1"
else
    not_ok "atoll-widen: a user's Comment posing as the mark is ignored; a second atoll-widen waits for none, does nothing, exits 1"
    diag "$finfo" "rc=$locked_rc" "$(cat "$work/widen0" "$work/widen1" "$work/widen-locked")"
fi
i=0; while [ "$(squeue -h -j "$jid" -o %t)" != R ] && [ $i -lt 50 ]; do sleep 0.2; i=$((i + 1)); done
nodes=$(squeue -h -j "$jid" -o %N)
if \
    grep -q "job $jid waited past its island deadline" "$work/widen1" && [ "$nodes" = "node[005-008,013]" ]; then ok "after island_wait atoll-widen lifts the constraint and the job spans both pods"; else not_ok "after island_wait atoll-widen lifts the constraint and the job spans both pods"; fi
[ "$nodes" = "node[005-008,013]" ] || diag "$nodes" "$(cat "$work/widen1")"
scancel --user=root; wait_idle

# pod:required: held to the pods (best first) and, for island_wait, to the
# fewest leaf switches (2 for 6 nodes), which Slurm 22.05 waits for
jid=$(sbatch -H -o /dev/null -N6 --fabric-island=pod --wrap true | awk '{print $4}')
info=$(scontrol show job -o "$jid")
scancel "$jid"
check "pod:required: the pods in atoll's order and --switches=2 for island_wait" \
    sh -c 'echo "$1" | grep -q "Features=\[pod-ib-leaf01|pod-ib-leaf05\] .*Switches=2@00:10:00"' _ "$info"
echo "$info" | grep -q "Switches=2@00:10:00" || diag "$info"

# cli_filter.lua failing (here: its fabric file is gone) warns once; the job
# is submitted as it was and job_submit.lua still keeps it in one leaf
mkdir -p "$work/c2"
cp "$work/c/slurm.conf" "$work/c2/"
sed "s|^local FABRIC = .*|local FABRIC = \"$work/no-such-fabric.json\"|" "$work/c/cli_filter.lua" >"$work/c2/cli_filter.lua"
SLURM_CONF="$work/c2/slurm.conf" timeout 30 srun -N2 --fabric-island=leaf printenv ATOLL_LEAVES >"$work/nolive" 2>"$work/nolive.err"
rc=$?
if \
    [ $rc -eq 0 ] && [ "$(sort -u "$work/nolive" | wc -l)" -eq 1 ] && \
    [ "$(grep -c "atoll: warning: .*no-such-fabric.json.*; the job is submitted without live placement" "$work/nolive.err")" -eq 1 ]
then ok "cli_filter failing: one warning, the job runs in one leaf all the same"
else not_ok "cli_filter failing: one warning, the job runs in one leaf all the same"; diag "$(cat "$work/nolive")" "$(cat "$work/nolive.err")"; fi
# without the filter, job_submit.lua alone holds a preferred pod and marks it
jid=$(SLURM_CONF="$work/c2/slurm.conf" sbatch -H -o /dev/null -N5 --fabric-island=pod:preferred --wrap true 2>/dev/null | awk '{print $4}')
info=$(scontrol show job -o "$jid")
scancel "$jid"
if echo "$info" | grep -q "Features=\[pod-ib-leaf01|pod-ib-leaf05\] " && echo "$info" | grep -q "AdminComment=atoll-widen [0-9]* \[pod-ib-leaf01|pod-ib-leaf05\] -" &&
    echo "$info" | grep -q "Switches=2@00:10:00"
then ok "job_submit.lua alone: a preferred pod held to the pods, --switches=2, marked for atoll-widen"
else not_ok "job_submit.lua alone: a preferred pod held to the pods, --switches=2, marked for atoll-widen"; diag "$info"; fi

# leaf_wait= apart from island_wait: above a leaf, --switches=K waits
# leaf_wait, from cli_filter.lua (live) and from job_submit.lua alone (c2)
set_plugstack "leaf_wait=20m"
# held_job CONF NAME PATTERN SBATCH-ARGS...: submit held, check scontrol's line, cancel
held_job() {
    _conf=$1 _what=$2 _pat=$3
    shift 3
    _jid=$(SLURM_CONF="$_conf" sbatch -H -o /dev/null "$@" --wrap true 2>/dev/null | awk '{print $4}')
    _info=$(scontrol show job -o "$_jid")
    scancel "$_jid"
    if echo "$_info" | grep -q "$_pat"; then ok "$_what"; else not_ok "$_what"; diag "$_info"; fi
}
for d in c c2; do
    by="cli_filter.lua"
    [ "$d" = c2 ] && by="job_submit.lua alone"
    held_job "$work/$d/slurm.conf" "leaf_wait=20m: a required pod waits 20 minutes for 2 leaf switches ($by)" \
        "Switches=2@00:20:00" -N6 --fabric-island=pod
    # auto, larger than any pod (8 hosts), on this non-blocking fabric:
    # spanning is free, nothing is asked (atoll-place(1); the --switches
    # mechanics of auto on a 4:1 fabric are in tests/cli/place.sh)
    held_job "$work/$d/slurm.conf" "auto, 12 nodes, on a non-blocking fabric: no constraint ($by)" \
        "Features=(null) " -N12 --fabric-island=auto
done
# auto with --time: cli_filter.lua has the step model decide; spanning is
# free here, so nothing is asked, and --switches=1@0 keeps job_submit.lua's
# table from adding its wait (a bug the real replay of bench-islands.sh found)
held_job "$work/c/slurm.conf" "auto with --time, not worth a wait: --switches=1@0, no constraint, no wait" \
    "Features=(null) .*Switches=1@00:00:00" -N2 --time=10 --fabric-island=auto
# auto with --time weighs the running jobs' ends and the queue ahead (squeue
# -t R and -t PD in cli_filter.lua). c3's cli_filter.lua reads a 4:1 view of
# the same nodes (slurmctld keeps its own). A job across node001-003 and
# node005-007 shares both leaves' uplinks and ends within 2 minutes,
# node009-016 are busy for 10: a 2-node job on the idle node004 and node008
# would run slower spanning, and its leaf frees up soon: it waits. With two
# 3-node jobs queued, which take the first hosts to free up, no leaf frees
# up for it before node009-016 end: it spans now.
"$TOPO" generate --pods 2 --groups 2 --rails 2 --hosts 4 --spines 1 --oversub 4 --format json -o "$work/fabric4.json"
chmod 644 "$work/fabric4.json"
mkdir -p "$work/c3"
cp "$work/c/slurm.conf" "$work/c3/"
sed "s|^local FABRIC = .*|local FABRIC = \"$work/fabric4.json\"|" "$work/c/cli_filter.lua" >"$work/c3/cli_filter.lua"
wait_idle
ja=$(sbatch -o /dev/null -w 'node[001-003,005-007]' --time=2 --wrap 'sleep 300' | awk '{print $4}')
jb=$(sbatch -o /dev/null -w 'node[009-016]' --time=10 --wrap 'sleep 600' | awk '{print $4}')
i=0
while [ "$(squeue -h -t R -o %i | wc -l)" -lt 2 ] && [ $i -lt 75 ]; do i=$((i + 1)); sleep 0.2; done
auto_queue() {  # NAME PATTERN EXPLAIN-PATTERN
    _jid=$(SLURM_CONF="$work/c3/slurm.conf" sbatch -H -o /dev/null -N2 --time=10 --fabric-island=auto --fabric-explain \
        --wrap true 2>"$work/queue.err" | awk '{print $4}')
    _info=$(scontrol show job -o "$_jid")
    scancel "$_jid"
    if echo "$_info" | grep -q "$2" && grep -q "atoll: auto with --time: spanning now adds .*$3" "$work/queue.err"; then ok "$1"
    else not_ok "$1"; diag "$_info" "$(cat "$work/queue.err")" "$(squeue)"; fi
}
auto_queue "auto with --time on a 4:1 view: its leaf frees up soon, it waits for it" \
    "Switches=1@00:0[1-9]:[0-9][0-9]" "a leaf frees up in [0-9]* s (no job queued): waits up to"
for k in 1 2; do
    SLURM_CONF="$work/c3/slurm.conf" sbatch -o /dev/null -N3 --fabric-island=leaf:required --wrap true >/dev/null
done
i=0
while [ "$(squeue -h -t PD -o %i | wc -l)" -lt 2 ] && [ $i -lt 25 ]; do i=$((i + 1)); sleep 0.2; done
auto_queue "auto with --time: two jobs queued take the hosts that free up, it spans now (squeue -t PD)" \
    "Switches=1@00:00:00" "a leaf frees up in [0-9]* s (2 queued jobs, 6 nodes, take hosts as they free up): no wait"
scancel --user=root
wait_idle
# uplink_load=busy (atoll(8)): the uplinks carry traffic squeue does not
# show. With one job on each leaf and none across them, the running jobs'
# charge finds spanning free and asks no wait; the site's busy charge
# (every other host of the two leaves crossing the 4:1 uplinks, comm_share
# 0.7: 0.3 + 0.7 x 4 = 3.1 x the step, 1,260 s of the 600 s limit) finds it
# costly, and the job waits
# for its leaf up to island_wait (600 s)
sbatch -o /dev/null -w 'node[001-003]' --time=2 --wrap 'sleep 300' >/dev/null
sbatch -o /dev/null -w 'node[005-007]' --time=10 --wrap 'sleep 600' >/dev/null
sbatch -o /dev/null -w 'node[009-016]' --time=10 --wrap 'sleep 600' >/dev/null
i=0
while [ "$(squeue -h -t R -o %i | wc -l)" -lt 3 ] && [ $i -lt 75 ]; do i=$((i + 1)); sleep 0.2; done
set_plugstack "comm_share=0.7"
auto_queue "auto with --time, comm_share=0.7: no job crosses the uplinks, it spans now" \
    "Switches=1@00:00:00" "0 s to the 600 s limit; a leaf frees up in [0-9]* s (no job queued): under 1 % of the run: no wait"
set_plugstack "comm_share=0.7 uplink_load=busy"
auto_queue "auto with --time, uplink_load=busy: spanning priced as if the leaves' hosts crossed the uplinks, it waits" \
    "Switches=1@00:10:00" "12[56][0-9] s to the 600 s limit (busy uplinks); a leaf frees up in [0-9]* s (no job queued): waits up to 600 s (island_wait)"
# no --time: Slurm 22.05's cli_filter gets NO_VAL (4294967294 minutes), which
# is no limit: the wait alone, not a model of an 8,000-year job
_jid=$(SLURM_CONF="$work/c3/slurm.conf" sbatch -H -o /dev/null -N2 --fabric-island=auto --fabric-explain \
    --wrap true 2>"$work/notime.err" | awk '{print $4}')
_info=$(scontrol show job -o "$_jid")
scancel "$_jid"
if echo "$_info" | grep -q "Switches=1@00:10:00" && ! grep -q "auto with --time" "$work/notime.err"; then
    ok "auto without --time: Slurm's NO_VAL is no limit, the island wait alone"
else not_ok "auto without --time: Slurm's NO_VAL is no limit, the island wait alone"; diag "$_info" "$(cat "$work/notime.err")"; fi
scancel --user=root
wait_idle
reset_plugstack

# policy=slurm-tree: no island constraint, Slurm's own --switches instead
set_plugstack "policy=slurm-tree"
timeout 30 srun -N2 --fabric-island=leaf --fabric-explain true 2>"$work/tree.err"
if \
    grep -q "atoll: 2 nodes, --fabric-island=leaf:required (leaf): no constraint, at most 1 leaf switch for up to 600 s" "$work/tree.err"; then ok "policy=slurm-tree asks Slurm for one leaf switch instead of a constraint"; else not_ok "policy=slurm-tree asks Slurm for one leaf switch instead of a constraint"; diag "$(cat "$work/tree.err")"; fi

reset_plugstack

# A cloud-shaped fabric: a site's CSV (leaves only, no adapter names) for
# node001-002. As azure, the node's InfiniBand ports come from sysfs; as aws
# on a p5.48xlarge with no aws-ofi-nccl under cloud_root=, --fabric-env=show
# notes the missing profile, and a job that asked nothing is told nothing.
printf 'node,host_hash,core_dsw,pod_psw,leaf_asw,leaf_id\nnode001,a1,G1,P1,S1,P1-S1\nnode002,a2,G1,P1,S2,P1-S2\n' >"$work/cloud.csv"
"$TOPO" slurm --format view "$work/cloud.csv" -o "$work/cloud.view"
mkdir -p "$work/root/node001"
set_plugstack "fabric=$work/cloud.view fabric_type=azure"
timeout 30 srun -N1 -w node001 --fabric-env=show true 2>"$work/azure.err"
check "azure on a CSV fabric: NCCL_IB_HCA from the node's InfiniBand ports" \
    grep -q "atoll: node001 task 0: NCCL_IB_HCA==mlx5_0:1,mlx5_1:1 (the fabric names no adapter of this node; from sysfs by the cloud's rule" "$work/azure.err"
set_plugstack "fabric=$work/cloud.view fabric_type=aws machine_type=p5.48xlarge cloud_root=$work/root/%n"
timeout 30 srun -N1 -w node001 --fabric-env=show true 2>"$work/aws.err"
timeout 30 srun -N1 -w node001 true 2>"$work/aws-quiet.err"
if grep -q "atoll: node001: note: cloud-profile (error): 'p5.48xlarge' needs aws-ofi-nccl >= 1.7.0" "$work/aws.err" &&
   ! grep -q "cloud-profile" "$work/aws-quiet.err"; then
    ok "aws: a missing aws-ofi-nccl is noted under --fabric-env=show only"
else
    not_ok "aws: a missing aws-ofi-nccl is noted under --fabric-env=show only"; diag "$(cat "$work/aws.err" "$work/aws-quiet.err")"
fi
reset_plugstack

# Our own failures, as a batch job and as srun, with a required and an
# optional plugstack line, with and without strict: a missing, a stale and a
# corrupt fabric file. Without strict the job runs with one warning; with
# strict it is refused at submit, naming the reason. No node is ever drained.
mv "$work/fabric.view" "$work/fabric.good"
fabric_state() {
    rm -f "$work/fabric.view"
    case "$1" in
    missing) ;;
    stale) cp "$work/fabric.good" "$work/fabric.view"; touch -d '3 days ago' "$work/fabric.view" ;;
    corrupt) printf 'atoll-view 1\nisland leaf L1 0 2 1\n' >"$work/fabric.view" ;;
    esac
    [ -f "$work/fabric.view" ] && chmod 644 "$work/fabric.view"
}
reason_of() {
    case "$1" in
    missing) echo "fabric file .*fabric.view: No such file" ;;
    stale) echo "fabric file .*fabric.view: stale, last written 3 days ago" ;;
    corrupt) echo "fabric.view:2: found 'island L1 ... parent 0', expected a parent at a higher level" ;;
    esac
}
for line in required optional; do
    for strict in no yes; do
        for state in missing stale corrupt; do
            sed -e "s|^required |$line |" -e "s|^\(.*\)$|\1 max_age=1d strict=$strict|" "$work/c/plugstack.base" >"$work/c/plugstack.conf"
            fabric_state "$state"
            what="$line line, strict=$strict, $state fabric file"
            reason=$(reason_of "$state")
            timeout 30 srun -N1 -w node003 --fabric-island=leaf printenv SLURMD_NODENAME >"$work/f.out" 2>"$work/f.err"
            src=$?
            rm -f "$work/batch.out"
            timeout 60 sbatch -W -w node004 -o "$work/batch.out" --wrap 'echo ran on $SLURMD_NODENAME' >"$work/b.out" 2>"$work/b.err"
            sbrc=$?
            if [ "$strict" = no ]; then
                if [ $src -eq 0 ] && [ "$(cat "$work/f.out")" = node003 ] && grep -q "atoll: warning: .*$reason" "$work/f.err" &&
                   [ $sbrc -eq 0 ] && grep -q "^ran on node004$" "$work/batch.out"; then
                    ok "$what: srun and sbatch jobs run, with a warning"
                else
                    not_ok "$what: srun and sbatch jobs run, with a warning"
                    diag "srun rc=$src: $(cat "$work/f.out" "$work/f.err")" "sbatch rc=$sbrc: $(cat "$work/b.out" "$work/b.err" "$work/batch.out" 2>/dev/null)"
                fi
            else
                if [ $src -ne 0 ] && [ ! -s "$work/f.out" ] && grep -q "atoll: .*$reason" "$work/f.err" &&
                   [ $sbrc -ne 0 ] && ! grep -q "Submitted" "$work/b.out" && grep -q "atoll: .*$reason.*(strict" "$work/b.err"; then
                    ok "$what: srun and sbatch refused at submit, naming the reason"
                else
                    not_ok "$what: srun and sbatch refused at submit, naming the reason"
                    diag "srun rc=$src: $(cat "$work/f.out" "$work/f.err")" "sbatch rc=$sbrc: $(cat "$work/b.out" "$work/b.err")"
                fi
            fi
        done
    done
done
fabric_state missing
mv "$work/fabric.good" "$work/fabric.view"
sed -e "s|^\(.*\)$|\1 strict=yes|" "$work/c/plugstack.base" >"$work/c/plugstack.conf"
timeout 60 sbatch -W -w node004 -o "$work/batch.out" --wrap 'echo "ran ${ATOLL_ISLAND:-unset}"; srun printenv ATOLL_ISLAND' >/dev/null 2>&1
if [ "$(cat "$work/batch.out" | tr '\n' ' ')" = "ran grp-ib-leaf01 grp-ib-leaf01 " ]; then ok "strict, good fabric file: the batch job runs with its environment, and so does its srun step"
else not_ok "strict, good fabric file: the batch job runs with its environment, and so does its srun step"; diag "$(cat "$work/batch.out")"; fi
reset_plugstack
drained=$(sinfo -h -N -t drain,drained,draining,fail,down -o %N | sort -u | tr '\n' ' ')
if [ -z "$drained" ]; then ok "no node was drained or downed by any of it"; else not_ok "no node was drained or downed by any of it"; diag "$drained" "$(sinfo -R)"; fi
