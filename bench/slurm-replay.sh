# Replaying a job stream on the loopback Slurm of tests/slurm-cluster.sh, for
# the benchmarks (sourced after cluster_up). A stream file has one job per
# line: ID SUBMIT_S NODES DURATION_S (submit times from 0). Leaves are 8 hosts
# named nodeNNN in order (atoll-topo generate --hosts 8).
#   replay NAME MODE STREAM OUT  -> OUT/NAME.jobs: ID NODES SUBMIT START LEAVES DURATION
#                                   and one summary line on stdout
# MODE: plain (no island asked), auto (--fabric-island=auto for every job),
# leaf (--fabric-island=leaf for jobs a leaf holds, auto for the others);
# MODE@PARAMS runs it with
# PARAMS added to SchedulerParameters (scontrol reconfigure before the replay,
# e.g. leaf@bf_min_age_reserve=30). REPLAY_TIME=M: every job asks --time=M
# (minutes; backfill plans with time limits), none when empty. REPLAY_HOSTS: the
# cluster's size for the utilisation (default 64). REPLAY_COST="PLACE FABRIC
# ARGS...": each job sleeps DURATION_S x the step model's slowdown for the
# nodes it got, computed inside the job from its own allocation
# (PLACE cost FABRIC $SLURM_JOB_NODELIST ARGS...; ARGS e.g. --comm-share 0.7),
# and its .jobs line holds the time it slept. REPLAY_UPLINK=running (the
# default): the job prices its uplinks shared with the jobs running as it
# starts (squeue, cost --running), as the simulator charges it; busy: the
# busy-fabric assumption (its own allocation alone).

drain() {  # until the queue is empty (at most 30 minutes)
    _i=0
    while [ -n "$(timeout 10 squeue -h -o %i 2>/dev/null)" ] && [ $_i -lt 1800 ]; do sleep 1; _i=$((_i + 1)); done
    wait_idle || true
}

# sched_params EXTRA: SchedulerParameters as cluster_up wrote them plus EXTRA
sched_params() {
    _conf="$CLUSTER_DIR/slurm.conf"
    [ -n "${REPLAY_BASE_PARAMS:-}" ] || REPLAY_BASE_PARAMS=$(sed -n 's/^SchedulerParameters=//p' "$_conf")
    _want=$REPLAY_BASE_PARAMS${1:+,$1}
    [ "$(sed -n 's/^SchedulerParameters=//p' "$_conf")" = "$_want" ] && return 0
    sed "s|^SchedulerParameters=.*|SchedulerParameters=$_want|" "$_conf" >"$_conf.new" && mv "$_conf.new" "$_conf"
    timeout 30 scontrol reconfigure
    sleep 2
}

# started_counts: "STARTED BACKFILLED" since slurmctld started, from sdiag
# (26.05 logs a backfill start only under DebugFlags=HetJob)
started_counts() {
    timeout 10 sdiag 2>/dev/null | awk '/^Jobs started:/ { s = $3 } /Total backfilled jobs \(since last slurm start\)/ { b = $NF }
        END { print s + 0, b + 0 }'
}

replay() {
    _name=$1 _mode=${2%%@*} _stream=$3 _out=$4
    _extra=
    case "$2" in *@*) _extra=${2#*@} ;; esac
    if [ -n "${REPLAY_COST:-}" ]; then
        # PLACE FABRIC ARGS: the job's nodes go between FABRIC and ARGS
        set -- $REPLAY_COST
        REPLAY_COST_PLACE=$1
        REPLAY_COST_ARGS="$2 \$SLURM_JOB_NODELIST"
        shift 2
        REPLAY_COST_ARGS="$REPLAY_COST_ARGS $*"
    fi
    drain
    sched_params "$_extra"
    _raw="$_out/$_name.raw"
    : >"$_raw"
    _s0=$(started_counts)
    _t0=$(date +%s.%N)
    while read -r _id _at _size _dur; do
        _sl=$(awk -v at="$_at" -v t0="$_t0" -v now="$(date +%s.%N)" 'BEGIN { d = at - (now - t0); if (d > 0) printf "%.3f", d }')
        [ -z "$_sl" ] || sleep "$_sl"
        _sub=$(date +%s.%N)
        case "$_mode" in
        plain) _opt= ;;
        auto) _opt=--fabric-island=auto ;;
        leaf) if [ "$_size" -le 8 ]; then _opt=--fabric-island=leaf; else _opt=--fabric-island=auto; fi ;;
        *) echo "replay: unknown mode $_mode" >&2; return 1 ;;
        esac
        # REPLAY_EXPLAIN=1: what cli_filter.lua weighed, job by job, in NAME.explain
        if [ -n "$_opt" ] && [ "${REPLAY_EXPLAIN:-0}" = 1 ]; then
            _opt="$_opt --fabric-explain"
            echo "job $_id ($_size nodes)" >>"$_out/$_name.explain"
        fi
        if [ -n "${REPLAY_COST:-}" ]; then
            # the job's own allocation decides how long it runs
            # shellcheck disable=SC2086
            sbatch -o /dev/null --exclusive -N "$_size" ${REPLAY_TIME:+--time=$REPLAY_TIME} $_opt -J "b$_id" \
                --wrap "_t=\$(date +%s.%N); _r=\$(mktemp); _ru=;
                        if [ \"${REPLAY_UPLINK:-running}\" = running ]; then
                            timeout 10 squeue -h -t R -o '%N %L' >\$_r 2>/dev/null; _ru=\"--running \$_r\"; fi;
                        _s=\$($REPLAY_COST_PLACE cost $REPLAY_COST_ARGS \$_ru | sed -n 's/^slowdown=//p'); rm -f \$_r;
                        _d=\$(awk -v d=$_dur -v s=\"\${_s:-1}\" 'BEGIN { printf \"%.2f\", d * s }');
                        echo $_id $_size $_sub \$_t \$SLURM_JOB_NODELIST \$_d >>$_raw; sleep \$_d" 2>>"$_out/$_name.explain" >/dev/null
        else
            # shellcheck disable=SC2086
            sbatch -o /dev/null --exclusive -N "$_size" ${REPLAY_TIME:+--time=$REPLAY_TIME} $_opt -J "b$_id" \
                --wrap "echo $_id $_size $_sub \$(date +%s.%N) \$SLURM_JOB_NODELIST $_dur >>$_raw; sleep $_dur" >/dev/null
        fi
    done <"$_stream"
    drain
    # jobs started by the main scheduler and by backfill (sdiag's counters)
    _s1=$(started_counts)
    _main=$(( (${_s1% *} - ${_s0% *}) - (${_s1#* } - ${_s0#* }) ))
    _bf=$(( ${_s1#* } - ${_s0#* } ))
    # leaf of nodeNNN is (NNN-1)/8
    while read -r _id _size _sub _start _list _d; do
        _leaves=$(scontrol show hostnames "$_list" | sed 's/node0*//' | awk '{print int(($1 - 1) / 8)}' | sort -u | wc -l)
        echo "$_id $_size $_sub $_start $_leaves $_d"
    done <"$_raw" | sort -n >"$_out/$_name.jobs"
    summarise "$_name" "$_out/$_name.jobs" "main $_main backfill $_bf"
}

# summarise NAME JOBS [EXTRA]: one line of figures for a .jobs file
summarise() {
    awk -v name="$1" -v extra="${3:-}" -v hosts="${REPLAY_HOSTS:-64}" '{
        w += $4 - $3; n++
        if (NF >= 6) { work += $2 * $6; if (n == 1 || $3 < first) first = $3; if ($4 + $6 > last) last = $4 + $6 }
        if ($2 >= 2) { multi++; minl = int(($2 + 7) / 8); ex += $5 - minl }
        if ($2 >= 2 && $2 <= 8) { lf++; if ($5 == 1) one++; lw += $4 - $3 }
        if (NF >= 6) turn += $4 - $3 + $6
    } END {
        # utilisation: node-seconds run over hosts x (first submit to last end, by the runs asked)
        if (work > 0 && last > first) extra = sprintf("turnaround %.1f s makespan %.0f s utilisation %.3f  %s", turn / n, last - first, work / (hosts * (last - first)), extra)
        printf "%-12s %4d jobs  leaf-fitting in one leaf %5.1f%% (%d of %d)  excess leaves/job %.3f  mean wait %.1f s (leaf-fitting %.1f s)  %s\n",
               name, n, 100 * one / lf, one, lf, ex / multi, w / n, lw / lf, extra }' "$2"
}
