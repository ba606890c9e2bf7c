# A real Slurm cluster on loopback for tests and the demo: slurmctld and one
# slurmd per node of a fabric (multiple-slurmd), the atoll SPANK plugin and
# job_submit.lua and cli_filter.lua, topology.conf and island features from
# atoll-topo. Sourced.
#   cluster_up DIR FABRIC.json PLUGIN.so "plugstack keys"   -> exports SLURM_CONF
#   cluster_down
# CLUSTER_SCHED_PARAMS: SchedulerParameters (the benchmarks vary them).
# CLUSTER_UP_TRIES: how many 0.2 s waits for every node to be idle (default 150).
# CLUSTER_GRES="node002=gpu:4 ...": those nodes get the gres, described by a
# gres.conf the caller puts in DIR beforehand (GresTypes=gpu is added).
# CLUSTER_INSTALLED=DIR: the Lua hooks as installed in DIR (a package's
# /usr/share/atoll), unchanged, with their own atoll-place and tables; the
# plugstack configuration is then the one PLUGIN names (e.g. Debian's
# /etc/slurm/plugstack.conf, which includes plugstack.conf.d/*.conf).
# Everything lives under DIR; auth/none (tests only). Needs TOPO (atoll-topo).

# slurm_version: the installed Slurm as MAJORMINOR (2205, 2411, 2605), from slurmctld -V
slurm_version() {
    slurmctld -V 2>/dev/null | sed -n 's/^slurm[^ ]* \([0-9][0-9]*\)\.\([0-9][0-9]*\).*/\1\2/p' | head -1
}

# slurm_conf_base DIR PORT NAME: the slurm.conf lines every test cluster shares
# (state and logs under DIR, auth/none, container-safe plugins). Slurm 24.05
# and later initialise cgroups in slurmd whatever the plugins: DIR/cgroup.conf
# turns that off (a chroot or container may have no writable cgroup tree).
slurm_conf_base() {
    if [ "$(slurm_version)" -ge 2405 ] 2>/dev/null && [ ! -e "$1/cgroup.conf" ]; then
        echo "CgroupPlugin=disabled" >"$1/cgroup.conf"
    fi
    cat <<CONF
ClusterName=$3
SlurmctldHost=localhost
SlurmctldPort=$2
SlurmdPort=$(($2 + 1))
AuthType=auth/none
CredType=cred/none
StateSaveLocation=$1/state
SlurmdSpoolDir=$1/spool/%n
SlurmctldPidFile=$1/slurmctld.pid
SlurmctldLogFile=$1/log/slurmctld.log
SlurmctldDebug=info
SlurmUser=root
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MailProg=/bin/true
MpiDefault=none
CONF
}

# free_ports: the first of a block of 500 ports (slurmctld, slurmd, one per
# node) in 21000-30999, below the kernel's ephemeral range, claimed for this
# test: make check runs several clusters at once, and two that read "nobody
# listens there" at the same moment took the same block (a cluster then did
# not start). A claim is a directory ATOLL_PORTS_DIR/BLOCK made with mkdir
# (atomic) holding the claimer's PID; a claim whose process is gone is taken
# over; release_ports drops it. Every test that starts a Slurm daemon takes
# its ports here.
free_ports() {
    _root=${ATOLL_PORTS_DIR:-/tmp/atoll-test-ports}
    mkdir -p "$_root" 2>/dev/null || true
    _b=$((21000 + ($$ % 20) * 500))
    _tries=0
    while [ $_tries -lt 60 ]; do
        _tries=$((_tries + 1))
        _l=$_root/$_b
        if mkdir "$_l" 2>/dev/null; then
            echo $$ >"$_l/pid"
            if ! ss -Htln 2>/dev/null | awk -v lo=$_b -v hi=$((_b + 500)) \
                    '{ n = split($4, a, ":"); p = a[n] + 0; if (p >= lo && p < hi) f = 1 } END { exit !f }'; then
                echo $_b
                return 0
            fi
            rm -rf "$_l"
        else
            _owner=$(cat "$_l/pid" 2>/dev/null || true)
            # taken over when its owner is gone (a claim without a PID yet is being made)
            if [ -n "$_owner" ] && ! kill -0 "$_owner" 2>/dev/null; then
                rm -rf "$_l"
                continue
            fi
        fi
        _b=$((_b + 500))
        [ $_b -ge 31000 ] && _b=21000
    done
    echo $((21000 + ($$ % 20) * 500))
}

# release_ports BLOCK: give back a block free_ports claimed for this shell
release_ports() {
    _l=${ATOLL_PORTS_DIR:-/tmp/atoll-test-ports}/$1
    [ "$(cat "$_l/pid" 2>/dev/null)" = "$$" ] && rm -rf "$_l"
    return 0
}

# cluster_up DIR FABRIC PLUGIN KEYS: a cluster whose nodes are all idle, or 1.
# A cluster whose nodes did not come up is taken down and started once more
# on other ports (its logs keep both tries).
cluster_up() {
    _try=0
    while :; do
        _try=$((_try + 1))
        CLUSTER_PORT_BLOCK=
        if [ -n "${CLUSTER_PORT:-}" ]; then _port=$CLUSTER_PORT; else _port=$(free_ports); CLUSTER_PORT_BLOCK=$_port; fi
        cluster_up_once "$@" && return 0
        cluster_down
        [ $_try -lt 2 ] || return 1
        echo "cluster_up: trying again on other ports" >&2
    done
}

cluster_up_once() {
    _cd=$1 _fabric=$2 _plugin=$3 _keys=$4
    mkdir -p "$_cd/state" "$_cd/spool" "$_cd/log"
    # CLUSTER_TOPOLOGY=block: topology/block (Slurm 23.11+) from atoll-topo --format block;
    # yaml: topology.yaml (25.05+), tree by default and a partition "blk" on atoll-block
    _plugin_topo=${CLUSTER_TOPOLOGY:-tree}
    case "$_plugin_topo" in
    block) "$TOPO" slurm --format block "$_fabric" -o "$_cd/topology.conf" 2>"$_cd/log/block.err" || return 1 ;;
    yaml)
        "$TOPO" slurm --format yaml "$_fabric" -o "$_cd/topology.yaml" 2>"$_cd/log/block.err" || return 1
        "$TOPO" slurm --format requests --topology block "$_fabric" -o "$_cd/atoll-requests-block.conf" || return 1
        _plugin_topo=tree ;;
    *) "$TOPO" slurm "$_fabric" -o "$_cd/topology.conf" || return 1 ;;
    esac
    "$TOPO" slurm --format islands "$_fabric" -o "$_cd/atoll-islands.conf" || return 1
    "$TOPO" slurm --format requests --topology "$_plugin_topo" "$_fabric" -o "$_cd/atoll-requests.conf" || return 1
    "$TOPO" slurm --format features "$_fabric" -o "$_cd/features.conf" || return 1
    # both Lua scripts run this build's atoll-place: job_submit.lua for the
    # plugstack settings (read again for every job: the tests rewrite the
    # plugstack line between jobs), cli_filter.lua for the engine on live state
    if [ -n "${CLUSTER_INSTALLED:-}" ]; then
        cp "$CLUSTER_INSTALLED/job_submit.lua" "$CLUSTER_INSTALLED/cli_filter.lua" "$_cd/"
    else
    sed -e "s|^local ATOLL_PLACE = .*|local ATOLL_PLACE = \"${ATOLL_BUILDDIR:-$ATOLL_SRCDIR/build}/tools/atoll-place\"|" \
        -e "s|^local SETTINGS_TTL = .*|local SETTINGS_TTL = 0|" \
        -e "s|^local CONF_DIR = .*|local CONF_DIR = \"$_cd/\"|" \
        "$ATOLL_SRCDIR/contrib/job_submit.lua" >"$_cd/job_submit.lua"
    sed -e "s|^local ATOLL_PLACE = .*|local ATOLL_PLACE = \"${ATOLL_BUILDDIR:-$ATOLL_SRCDIR/build}/tools/atoll-place\"|" \
        -e "s|^local FABRIC = .*|local FABRIC = \"$_fabric\"|" \
        "$ATOLL_SRCDIR/contrib/cli_filter.lua" >"$_cd/cli_filter.lua"
    fi
    _stack=$_cd/plugstack.conf
    [ -n "${CLUSTER_INSTALLED:-}" ] && _stack=$_plugin
    slurm_conf_base "$_cd" "$_port" atoll >"$_cd/slurm.conf"
    cat >>"$_cd/slurm.conf" <<CONF
SlurmdPidFile=$_cd/slurmd-%n.pid
SlurmdLogFile=$_cd/log/slurmd-%n.log
SlurmdDebug=${CLUSTER_SLURMD_DEBUG:-info}
SlurmdUser=root
SlurmdParameters=config_overrides
TmpFS=$_cd/spool
ReturnToService=2
SchedulerParameters=${CLUSTER_SCHED_PARAMS:-batch_sched_delay=0,bf_interval=5,max_switch_wait=3600}
TopologyPlugin=topology/$_plugin_topo
JobSubmitPlugins=lua
CliFilterPlugins=lua
PlugStackConfig=$_stack
CONF
    export SLURM_CONF="$_cd/slurm.conf"   # scontrol show hostnames reads it
    CLUSTER_NODES=
    _nodes=
    _p=$((_port + 2))
    # one line per node: its own port, its island features; CLUSTER_NODE_WEIGHT=leaf:
    # Weight=k for the nodes of the k-th leaf (Slurm fills the lowest weights first)
    _w=0
    while read -r _line; do
        case "$_line" in NodeName=*) ;; *) continue ;; esac
        _w=$((_w + 1))
        _hl=${_line#NodeName=}
        _hl=${_hl%% *}
        _feat=$(echo "$_line" | sed -n 's/.* Features=\([^ ]*\).*/\1/p')
        for _node in $(scontrol show hostnames "$_hl"); do
            _gres= _cpus=2
            for _g in ${CLUSTER_GRES:-}; do
                # a GPU node runs a task per GPU (SlurmdParameters=config_overrides lets it claim 4 CPUs)
                [ "${_g%%=*}" = "$_node" ] && _gres=" Gres=${_g#*=}" && _cpus=4
            done
            _nodes="$_nodes
NodeName=$_node NodeHostname=localhost NodeAddr=127.0.0.1 Port=$_p CPUs=$_cpus Features=$_feat$_gres${CLUSTER_NODE_WEIGHT:+ Weight=$_w} State=UNKNOWN"
            _p=$((_p + 1))
            CLUSTER_NODES="$CLUSTER_NODES $_node"
        done
    done <"$_cd/features.conf"
    [ -n "$CLUSTER_NODES" ] || { echo "cluster_up: no nodes in $_cd/features.conf" >&2; return 1; }
    # CLUSTER_SELECT=cons_tres: what GPU clusters run (and the default from 23.11;
    # 22.05's default is select/linear); GPU gres needs it
    [ -n "${CLUSTER_GRES:-}" ] && printf 'GresTypes=gpu\n' >>"$_cd/slurm.conf"
    if [ -n "${CLUSTER_GRES:-}" ] || [ "${CLUSTER_SELECT:-}" = cons_tres ]; then
        echo "SelectType=select/cons_tres" >>"$_cd/slurm.conf"
    fi
    echo "$_nodes" >>"$_cd/slurm.conf"
    echo "PartitionName=all Nodes=ALL Default=YES State=UP MaxTime=INFINITE" >>"$_cd/slurm.conf"
    [ "${CLUSTER_TOPOLOGY:-tree}" = yaml ] &&
        echo "PartitionName=blk Nodes=ALL State=UP MaxTime=INFINITE Topology=atoll-block" >>"$_cd/slurm.conf"
    # no plugin (PLUGIN ""): Slurm alone, as under the sanitizers (Slurm's programs are not instrumented)
    if [ -n "${CLUSTER_INSTALLED:-}" ]; then :
    elif [ -n "$_plugin" ]; then echo "required $_plugin $_keys" >"$_cd/plugstack.conf"; else : >"$_cd/plugstack.conf"; fi
    CLUSTER_DIR=$_cd
    slurmctld -D -i >"$_cd/log/slurmctld.out" 2>&1 &
    CLUSTER_PIDS=$!
    for _node in $CLUSTER_NODES; do
        slurmd -D -N "$_node" >"$_cd/log/slurmd-$_node.out" 2>&1 &
        CLUSTER_PIDS="$CLUSTER_PIDS $!"
    done
    _i=0
    _want=$(echo $CLUSTER_NODES | wc -w)
    until [ "$(timeout 5 sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | wc -l)" -eq "$_want" ]; do
        _i=$((_i + 1))
        if [ $_i -gt "${CLUSTER_UP_TRIES:-150}" ]; then
            echo "cluster_up: nodes did not come up:" >&2
            timeout 5 sinfo -N >&2
            tail -5 "$_cd/log/slurmctld.log" >&2
            return 1
        fi
        sleep 0.2
    done
}

# Safe under set -e and twice in a row (the demo calls it, then its EXIT trap):
# nothing here may fail the caller.
cluster_down() {
    if [ -n "${CLUSTER_PIDS:-}" ]; then
        _pids=$CLUSTER_PIDS
        CLUSTER_PIDS=
        timeout 10 scancel --user=root >/dev/null 2>&1 || true
        wait_idle || true  # the jobs' slurmstepd end before their slurmd
        kill $_pids 2>/dev/null || true
        for _pid in $_pids; do
            _i=0
            while kill -0 "$_pid" 2>/dev/null && [ $_i -lt 50 ]; do sleep 0.1; _i=$((_i + 1)); done
            kill -9 "$_pid" 2>/dev/null || true
        done
        _i=0  # let the last slurmstepd finish (bounded)
        while pgrep -x slurmstepd >/dev/null && [ $_i -lt 50 ]; do sleep 0.1; _i=$((_i + 1)); done
    fi
    # the ports go back once nothing of this cluster listens on them
    [ -n "${CLUSTER_PORT_BLOCK:-}" ] && release_ports "$CLUSTER_PORT_BLOCK"
    CLUSTER_PORT_BLOCK=
    return 0
}

# wait_idle: until no job is left and every node is idle
wait_idle() {
    _i=0
    while [ -n "$(timeout 5 squeue -h -o %i 2>/dev/null)" ] ||
          [ -n "$(timeout 5 sinfo -h -N -t alloc,mix,comp -o %N 2>/dev/null)" ]; do
        _i=$((_i + 1))
        [ $_i -gt 100 ] && return 1
        sleep 0.2
    done
}

# job_nodes JOBID: the job's node list once it has one (up to 30 s), else nothing
job_nodes() {
    _i=0
    while [ $_i -lt 100 ]; do
        _nl=$(timeout 5 scontrol show job "$1" 2>/dev/null | sed -n 's/^ *NodeList=\([^ ]*\).*/\1/p')
        if [ -n "$_nl" ] && [ "$_nl" != "(null)" ]; then echo "$_nl"; return 0; fi
        sleep 0.3
        _i=$((_i + 1))
    done
}
