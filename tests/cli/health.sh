#!/bin/sh
# atoll-topo health on a RoCE node: the correct node passes, and each
# misconfiguration injected into it is found, named and fails the run (exit
# 4). The node's sysfs tree is built here (synthetic, shaped as mlx5 lays it
# out) around the real GID table of NVIDIA/nccl#1131; the QoS is the real
# `mlnx_qos -i eth4` of att/netarbiter, the counters ethq's real ConnectX-4
# `ethtool -S` with priority-3 PFC counters added (tests/data/PROVENANCE.md).
# Expected findings follow the sources: DSCP = class >> 2 (106 -> 26), the
# dscp2prio map as printed (26 -> 3), the kernel's iboe_get_mtu() (1500 - 96
# header bytes -> 1024), mlx5's counter names (en_stats.c).
. "$(dirname "$0")/../lib.sh"
plan 49
work=$(tmpdir)
H="$DATA/health"
# netdev ROOT IF: MTU 9000, ECN on priority 3 (np and rp)
netdev() {
    n="$1/class/net/$2"
    mkdir -p "$n/ecn/roce_np/enable" "$n/ecn/roce_rp/enable"
    echo 9000 >"$n/mtu"
    for i in 0 1 2 3 4 5 6 7; do
        v=0; [ $i = 3 ] && v=1
        echo $v >"$n/ecn/roce_np/enable/$i"; echo $v >"$n/ecn/roce_rp/enable/$i"
    done
}
# node: mlx5_0 (ens3np0), mlx5_1 (ens2np0), RoCE, 400 Gb/sec, class 106, MTU
# 9000, ECN on priority 3 (np and rp), quiet error counters
node() {  # ROOT
    sysfs_from_show_gids "$DATA/roce/nccl1131.show_gids" "$1"
    for d in mlx5_0:ens3np0 mlx5_1:ens2np0; do
        hca=${d%%:*} nd=${d#*:}
        p="$1/class/infiniband/$hca/ports/1"
        echo "400 Gb/sec (4X NDR)" >"$p/rate"
        mkdir -p "$1/class/infiniband/$hca/tc/1" "$p/counters" "$p/hw_counters"
        echo "Global tclass=106" >"$1/class/infiniband/$hca/tc/1/traffic_class"
        for c in symbol_error link_downed port_rcv_errors; do echo 0 >"$p/counters/$c"; done
        for c in out_of_sequence local_ack_timeout_err; do echo 0 >"$p/hw_counters/$c"; done
        echo 1200 >"$p/hw_counters/np_cnp_sent"; echo 1180 >"$p/hw_counters/rp_cnp_handled"
        netdev "$1" "$nd"
    done
}
node "$work/good"
cp -r "$work/good" "$work/good2"
echo 1290 >"$work/good2/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent"
policy="$work/site.policy"
cat >"$policy" <<'EOF'
# the lossless class of the common RoCE config: 106 = DSCP 26, priority 3
roce-tc=106
pfc-priority=3
trust=dscp
mtu=9000
rdma-mtu=4096
rate=400
EOF
qos() { echo "--mlnx-qos ens3np0=$H/$1 --mlnx-qos ens2np0=$H/netarbiter-eth4.mlnx_qos"; }
health() {  # ROOT THEN QOS-FILE ARGS...: stdout and stderr in $work/out, exit status in $rc
    r=$1 t=$2 q=$3
    shift 3
    # shellcheck disable=SC2046
    "$TOPO" health --policy "$policy" --sysfs-root "$r" --then-sysfs-root "$t" $(qos "$q") \
        --ethtool ens3np0="$H/pfc3-before.ethtool" --ethtool ens3np0="$H/pfc3-after.ethtool" "$@" >"$work/out" 2>&1
    rc=$?
}
finds() {  # NAME PATTERN: exit 4 and a line matching PATTERN
    if [ $rc -eq 4 ] && grep -q "$2" "$work/out"; then ok "$1"; else not_ok "$1"; diag "exit $rc" "$(cat "$work/out")"; fi
}

health "$work/good" "$work/good2" netarbiter-eth4.mlnx_qos --prometheus "$work/metrics.prom"
if [ $rc -eq 0 ] && grep -q "^health: OK, 0 errors, 0 warnings, 25 checks passed, 1 skipped on 2 ports$" "$work/out"; then
    ok "the correct node passes (exit 0): 13 checks on each of 2 ports, pause-storm skipped where no ethtool text was given"
else
    not_ok "the correct node passes (exit 0)"; diag "exit $rc" "$(cat "$work/out")"
fi
if grep -q '^# TYPE atoll_health_pfc_ok gauge$' "$work/metrics.prom" &&
    grep -q '^atoll_health_pfc_ok{hca="mlx5_0",port="1",netdev="ens3np0"} 1$' "$work/metrics.prom" &&
    grep -q '^atoll_health_counter_rate{hca="mlx5_0",port="1",netdev="ens3np0",counter="ethtool/tx_prio3_pause"} 84$' "$work/metrics.prom" &&
    grep -q '^atoll_health_counter_rate{hca="mlx5_0",port="1",netdev="ens3np0",counter="hw_counters/np_cnp_sent"} 90$' "$work/metrics.prom" &&
    grep -q '^atoll_health_errors 0$' "$work/metrics.prom" && [ ! -e "$work/metrics.prom.tmp" ] &&
    [ -z "$(ls "$work" | grep -v -e '^good' -e '^site.policy$' -e '^metrics.prom$' -e '^out$')" ]; then
    ok "--prometheus: a gauge per check with HELP/TYPE, counter rates (tx_prio3_pause 1290502 - 1290418 = 84/s, CNPs 90/s), no temporary left"
else
    not_ok "--prometheus: a gauge per check with HELP/TYPE, counter rates, no temporary left"; diag "$(cat "$work/metrics.prom")" "$(ls "$work")"
fi

# a run that cannot read the node (a usage or input error) replaces the last
# run's gauges with atoll_health_up 0: a node whose health cannot be read
# must not go on showing the old values as if read now
up1=$(grep -c '^atoll_health_up 1$' "$work/metrics.prom")
cp "$work/metrics.prom" "$work/up.prom"
"$TOPO" health --sysfs-root "$work/no-such-sysfs" --interval 0 --cloud none --prometheus "$work/up.prom" >"$work/out" 2>&1
d1="$? $(grep -c . "$work/up.prom") $(grep -c '^atoll_health_up 0$' "$work/up.prom")"
cp "$work/metrics.prom" "$work/up.prom"
"$TOPO" health --sysfs-root "$work/good" --no-such-flag --prometheus="$work/up.prom" >"$work/out" 2>&1
d2="$? $(grep -c '^atoll_health_up 0$' "$work/up.prom") $(grep -c '_ok{' "$work/up.prom")"
rm -f "$work/up.prom"
if [ "$up1" = 1 ] && [ "${d1% * *}" != 0 ] && [ "${d1#* }" = "3 1" ] && [ "${d2% * *}" = 2 ] && [ "${d2#* }" = "1 0" ]; then
    ok "--prometheus: atoll_health_up 1 on a run that checked; a failed run (no sysfs, an unknown flag) leaves only atoll_health_up 0"
else
    not_ok "--prometheus on a failed run"; diag "up after a good run: $up1, no sysfs: $d1, bad flag: $d2"
fi

health "$work/good" "$work/good" pfc-prio4.mlnx_qos
finds "PFC on the wrong priority: found on ens3np0, named" \
    "^ERROR: pfc: mlx5_0 port 1 (ens3np0): PFC is on priority 4, not on 3, the RoCE priority: the RoCE queue is lossy"

health "$work/good" "$work/good" trust-pcp.mlnx_qos
finds "trust pcp: found, DSCP-marked RoCE lands in priority 0" \
    "^ERROR: trust: mlx5_0 port 1 (ens3np0): trust pcp, the policy says dscp: .*class 106.*lands in priority 0, the lossy queue"

cp -r "$work/good" "$work/noecn"
echo 0 >"$work/noecn/class/net/ens2np0/ecn/roce_rp/enable/3"
health "$work/noecn" "$work/noecn" netarbiter-eth4.mlnx_qos
finds "ECN off on the RoCE priority (roce_rp/enable/3 = 0): found on ens2np0" \
    "^ERROR: ecn: mlx5_1 port 1 (ens2np0): ECN is off on priority 3 (roce_np on, roce_rp off)"

cp -r "$work/good" "$work/mtu1500"
echo 1500 >"$work/mtu1500/class/net/ens3np0/mtu"
health "$work/mtu1500" "$work/mtu1500" netarbiter-eth4.mlnx_qos
finds "MTU 1500: found, with the active RDMA MTU the kernel derives (1500 - 96 -> 1024)" \
    "^ERROR: mtu: mlx5_0 port 1 (ens3np0): netdev MTU 1500, the policy's 9000: RDMA's active MTU becomes 1024"
check "MTU 1500: the rdma-mtu check fails too (1024 < 4096)" \
    grep -q "^ERROR: rdma-mtu: mlx5_0 port 1 (ens3np0): active RDMA MTU 1024 (netdev MTU 1500 less 96 header bytes), the policy's 4096" "$work/out"

"$TOPO" health --policy "$policy" --sysfs-root "$work/good" --then-sysfs-root "$work/good" $(qos netarbiter-eth4.mlnx_qos) \
    --ethtool ens3np0="$H/pfc3-before.ethtool" --ethtool ens3np0="$H/pfc3-storm.ethtool" --interval 2 >"$work/out" 2>&1
rc=$?
finds "a pause storm (tx_pause_storm_* rising between the two ethtool -S reads): found" \
    "^ERROR: pause-storm: mlx5_0 port 1 (ens3np0): tx_pause_storm_warning_events +3, tx_pause_storm_error_events +1 in 2 s"

cp -r "$work/good" "$work/slow"
echo "200 Gb/sec (4X HDR)" >"$work/slow/class/infiniband/mlx5_1/ports/1/rate"
health "$work/slow" "$work/slow" netarbiter-eth4.mlnx_qos --rate 0
finds "a downgraded link (200 Gb/s where the node's other port runs 400): found against the peer, without a policy rate" \
    "^ERROR: rate: mlx5_1 port 1 (ens2np0): 200 Gb/sec (4X HDR) where mlx5_0 port 1 runs 400 Gb/sec (4X NDR)"
health "$work/slow" "$work/slow" netarbiter-eth4.mlnx_qos
finds "a downgraded link against the policy's rate=400" \
    "^ERROR: rate: mlx5_1 port 1 (ens2np0): 200 Gb/sec (4X HDR), the policy's least rate is 400 Gb/sec"

cp -r "$work/good" "$work/tc96"
echo "Global tclass=96" >"$work/tc96/class/infiniband/mlx5_0/tc/1/traffic_class"
health "$work/tc96" "$work/tc96" netarbiter-eth4.mlnx_qos
finds "the port's tc file disagrees with the policy's class (96, not 106): found" \
    "^ERROR: class: mlx5_0 port 1 (ens3np0): the port's tc file says class 96, the policy 106"

# (helper 28) no class in the tc file where the policy asks 106: class 0,
# the lossy queue, for RDMA-CM, verbs users and NCCL without NCCL_IB_TC
cp -r "$work/good" "$work/notc"
rm -r "$work/notc/class/infiniband/mlx5_0/tc"
health "$work/notc" "$work/notc" netarbiter-eth4.mlnx_qos
finds "no class in the port's tc file where the policy asks one: an error" \
    "^ERROR: class: mlx5_0 port 1 (ens3np0): no class in the port's tc file (tc/1/traffic_class), the policy 106"
# inputs the admin names are regular files: a FIFO would block health
# (under HealthCheckProgram nothing stops it), a device would grow forever
mkfifo "$work/fifo.policy"
timeout 20 "$TOPO" health --policy "$work/fifo.policy" --sysfs-root "$work/good" --interval 0 >"$work/out" 2>&1; rc1=$?
timeout 20 "$TOPO" health --policy "$policy" --sysfs-root "$work/good" --interval 0 --mlnx-qos ens3np0=/dev/zero >"$work/out2" 2>&1; rc2=$?
if [ $rc1 -eq 1 ] && grep -q "fifo.policy: not a regular file (a FIFO)" "$work/out" &&
   [ $rc2 -eq 1 ] && grep -q "/dev/zero: not a regular file (a device)" "$work/out2"; then
    ok "health: a FIFO policy or a device as mlnx_qos output is refused at once"
else
    not_ok "health: a FIFO policy or a device as mlnx_qos output is refused at once"; diag "rc=$rc1 $rc2" "$(cat "$work/out" "$work/out2")"
fi

cp -r "$work/good" "$work/flap"
echo 2 >"$work/flap/class/infiniband/mlx5_1/ports/1/counters/link_downed"
health "$work/good" "$work/flap" netarbiter-eth4.mlnx_qos
finds "link_downed rising between the two reads: found" \
    "^ERROR: errors: mlx5_1 port 1 (ens2np0): link_downed +2 in 1 s: the link went down and up"
# (helper 51) an error counter at the top of its PMA width (symbol_error
# 16 bits) rises no more: not "no errors", a warning saying it is pegged
cp -r "$work/good" "$work/peg"
echo 65535 >"$work/peg/class/infiniband/mlx5_1/ports/1/counters/symbol_error"
health "$work/peg" "$work/peg" netarbiter-eth4.mlnx_qos
check "symbol_error pegged at 65535 in both reads: a warning that new errors cannot be seen, exit 0" sh -c \
    '[ "$1" = 0 ] && grep -q "^WARNING: errors: mlx5_1 port 1 (ens2np0): symbol_error 65535: the counter stops at its maximum" "$2"' _ "$rc" "$work/out"

# the first line is the drain reason a site's wrapper passes on
health "$work/mtu1500" "$work/mtu1500" pfc-prio4.mlnx_qos
if [ $rc -eq 4 ] && head -1 "$work/out" | grep -q "^ERROR: " && tail -1 "$work/out" | grep -q "^health: FAILED, 3 errors, "; then
    ok "several findings: errors first (the first line is a drain reason), a summary last"
else
    not_ok "several findings: errors first, a summary last"; diag "$(cat "$work/out")"
fi

printf 'DCBX mode: OS controlled\nPFC configuration:\n\tpriority    0   1   2   3   4   5   6   7\n\tenabled     0   0   0   1   0   0   0\n' >"$work/bad.qos"
"$TOPO" health --policy "$policy" --sysfs-root "$work/good" --mlnx-qos ens3np0="$work/bad.qos" --interval 0 >"$work/out" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -q "^atoll-topo: $work/bad.qos:4: PFC enabled row with 7 values, expected 8" "$work/out"; then
    ok "a malformed mlnx_qos text: exit 1, FILE:LINE: what was found, what was expected"
else
    not_ok "a malformed mlnx_qos text: exit 1, FILE:LINE"; diag "exit $rc" "$(cat "$work/out")"
fi
"$TOPO" health --pfc-priority 9 --sysfs-root "$work/good" >"$work/out" 2>&1
rc=$?
check "a bad policy flag is a usage error (exit 2)" [ $rc -eq 2 ]
printf 'roce-tc=106\npfc-prio=3\n' >"$work/typo.policy"
"$TOPO" health --policy "$work/typo.policy" --sysfs-root "$work/good" >"$work/out" 2>&1
rc=$?
if [ $rc -eq 1 ] && grep -q "typo.policy:2: unknown key \"pfc-prio\", expected one of roce-tc, pfc-priority" "$work/out"; then
    ok "an unknown key in the policy file: exit 1, FILE:LINE names it"
else
    not_ok "an unknown key in the policy file: exit 1, FILE:LINE names it"; diag "exit $rc" "$(cat "$work/out")"
fi

# no mlnx_qos text for ens2np0 (on a node: not installed, a non-zero exit, a
# timeout) under a policy with pfc-priority: PFC cannot be verified, an error
"$TOPO" health --policy "$policy" --sysfs-root "$work/good" --mlnx-qos ens3np0="$H/netarbiter-eth4.mlnx_qos" \
    --interval 0 >"$work/out" 2>&1
rc=$?
finds "no mlnx_qos text for a RoCE netdev under a lossless policy: cannot verify PFC, exit 4 (not OK)" \
    "^ERROR: pfc: mlx5_1 port 1 (ens2np0): cannot verify PFC: mlnx_qos gave nothing for ens2np0 (no --mlnx-qos ens2np0=FILE, and $work/good is not the node's own /sys)"
"$TOPO" health --policy "$policy" --qos skip --sysfs-root "$work/good" --mlnx-qos ens3np0="$H/netarbiter-eth4.mlnx_qos" \
    --interval 0 --verbose >"$work/out" 2>&1
rc=$?
if [ $rc -eq 0 ] && grep -q "^SKIPPED: pfc: mlx5_1 port 1 (ens2np0): the policy says qos=skip: mlnx_qos gave nothing for ens2np0" "$work/out" &&
    grep -q "^OK: pfc: mlx5_0 port 1 (ens3np0): PFC on priority 3 only" "$work/out"; then
    ok "qos=skip (a site without mlnx_qos): skipped where there is no text, still checked where there is, exit 0"
else
    not_ok "qos=skip: skipped where there is no text, still checked where there is, exit 0"; diag "exit $rc" "$(cat "$work/out")"
fi

# a RoCE LAG: mlx5_bond_0 on bond0 over ens1f0np0 and ens1f1np1 (lower_* and
# bonding/slaves, as the bonding driver lays them out). mlnx_qos -i bond0
# fails on a real node and bond0 has no ecn: QoS, ECN, MTU and the ethtool
# counters are the members', and each member must pass.
lag() {  # ROOT
    b="$1/class/infiniband/mlx5_bond_0"
    p="$b/ports/1"
    mkdir -p "$p/gids" "$p/gid_attrs/types" "$p/gid_attrs/ndevs" "$p/counters" "$b/tc/1"
    echo Ethernet >"$p/link_layer"; echo "4: ACTIVE" >"$p/state"; echo "400 Gb/sec (4X NDR)" >"$p/rate"
    echo "Global tclass=106" >"$b/tc/1/traffic_class"
    for i in 0 1; do echo fe80:0000:0000:0000:a288:c2ff:fe5b:03ec >"$p/gids/$i"; done
    for i in 2 3; do echo 0000:0000:0000:0000:0000:ffff:0a00:0005 >"$p/gids/$i"; done
    for i in 0 2; do echo "IB/RoCE v1" >"$p/gid_attrs/types/$i"; done
    for i in 1 3; do echo "RoCE v2" >"$p/gid_attrs/types/$i"; done
    for i in 0 1 2 3; do echo bond0 >"$p/gid_attrs/ndevs/$i"; done
    mkdir -p "$1/class/net/bond0/bonding" "$1/class/net/bond0/lower_ens1f0np0" "$1/class/net/bond0/lower_ens1f1np1"
    echo 9000 >"$1/class/net/bond0/mtu"
    echo "ens1f0np0 ens1f1np1" >"$1/class/net/bond0/bonding/slaves"
    for nd in ens1f0np0 ens1f1np1; do
        netdev "$1" "$nd"
        mkdir -p "$1/class/net/$nd/bonding_slave"
        echo up >"$1/class/net/$nd/operstate"; echo up >"$1/class/net/$nd/bonding_slave/mii_status"
    done
}
lag_health() {  # ROOT QOS-FILE-FOR-ens1f0np0 ARGS...
    r=$1 q=$2
    shift 2
    "$TOPO" health --policy "$policy" --sysfs-root "$r" --interval 0 --mlnx-qos ens1f0np0="$q" \
        --mlnx-qos ens1f1np1="$H/netarbiter-eth4.mlnx_qos" "$@" >"$work/out" 2>&1
    rc=$?
}
lag "$work/lag"
lag_health "$work/lag" "$H/netarbiter-eth4.mlnx_qos"
if [ $rc -eq 0 ] && grep -q "^health: OK, 0 errors, 0 warnings, 18 checks passed, 4 skipped on 1 ports$" "$work/out"; then
    ok "a correct RoCE LAG passes: port checks on bond0, link, trust, dscp2prio, pfc, ecn and mtu on each member, nothing read on bond0"
else
    not_ok "a correct RoCE LAG passes"; diag "exit $rc" "$(cat "$work/out")"
fi

cp -r "$work/lag" "$work/lagoff"
for i in 0 1 2 3 4 5 6 7; do
    echo 0 >"$work/lagoff/class/net/ens1f0np0/ecn/roce_np/enable/$i"; echo 0 >"$work/lagoff/class/net/ens1f0np0/ecn/roce_rp/enable/$i"
done
sed 's/^\([[:space:]]*enabled[[:space:]]*0   0   0   \)1/\10/' "$H/netarbiter-eth4.mlnx_qos" >"$work/pfc-off.mlnx_qos"
lag_health "$work/lagoff" "$work/pfc-off.mlnx_qos"
finds "a RoCE LAG with PFC off on a member: found on the member (ens1f0np0), not skipped on bond0" \
    "^ERROR: pfc: mlx5_bond_0 port 1 (ens1f0np0): PFC is off on priority 3, the RoCE priority"
if grep -q "^ERROR: ecn: mlx5_bond_0 port 1 (ens1f0np0): ECN is off on priority 3 (roce_np off, roce_rp off)" "$work/out" &&
    ! grep -q "bond0.*no mlnx_qos\|bond0/ecn" "$work/out"; then
    ok "a RoCE LAG with ECN off on a member: found on the member's class/net/ens1f0np0/ecn"
else
    not_ok "a RoCE LAG with ECN off on a member: found on the member"; diag "exit $rc" "$(cat "$work/out")"
fi

# (helper 51) what a drain wrapper reads: a textfile that cannot be written
# does not turn a checked, healthy node's exit status into 1; an adapter the
# policy's hca= names that is gone is an error, and a blank or NCCL's =
# syntax in hca= is refused; ECN read on one side only is no OK
health "$work/good" "$work/good2" netarbiter-eth4.mlnx_qos --prometheus "$work/no-such-dir/x.prom"
r1="$rc $(grep -c '^health: OK' "$work/out") $(grep -c 'warning: --prometheus .*no-such-dir.*the exit status is its health' "$work/out")"
health "$work/good" "$work/good2" netarbiter-eth4.mlnx_qos --hca mlx5_0,mlx5_1,mlx5_3
r2="$rc $(grep -c "^ERROR: hca: node: hca=mlx5_3: no such RDMA device under" "$work/out")"
health "$work/good" "$work/good2" netarbiter-eth4.mlnx_qos --hca "mlx5_0, mlx5_1"
r3="$rc $(grep -c "found a blank in ' mlx5_1'" "$work/out")"
health "$work/good" "$work/good2" netarbiter-eth4.mlnx_qos --hca "=mlx5_0,mlx5_1"
r4="$rc $(grep -c "NCCL_IB_HCA's =, ^ and :PORT are not this list's syntax" "$work/out")"
health "$work/good" "$work/good2" netarbiter-eth4.mlnx_qos --hca "mlx5_0:1,mlx5_1"
[ $rc -ne 0 ] && grep -q "found .mlx5_0:1." "$work/out" || r4="$r4 (:1 accepted: $rc)"
# fnmatch's own classes hold a ':' and stay patterns (helper 52 used them)
health "$work/good" "$work/good2" netarbiter-eth4.mlnx_qos --hca "mlx5_[[:digit:]]"
[ $rc -eq 0 ] || r4="$r4 ([[:digit:]] refused: $rc)"
cp -r "$work/good" "$work/ecnhalf"
rm -r "$work/ecnhalf/class/net/ens2np0/ecn/roce_rp"
health "$work/ecnhalf" "$work/good2" netarbiter-eth4.mlnx_qos
r5="$rc $(grep -c '^WARNING: ecn: mlx5_1 port 1 (ens2np0): ECN on priority 3 not verified: .*roce_rp/enable/3 could not be read' "$work/out")"
if [ "$r1" = "0 1 1" ] && [ "$r2" = "4 1" ] && [ "${r3% *}" -ne 0 ] && [ "${r3#* }" = 1 ] && [ "${r4% *}" -ne 0 ] && [ "${r4#* }" = 1 ] && [ "$r5" = "0 1" ]; then
    ok "a failed --prometheus write keeps exit 0; hca= names a gone adapter: error; blank or '=' in hca=: refused; half-read ECN: a warning"
else
    not_ok "helper 51's health cases"; diag "prometheus: $r1, gone hca: $r2, blank: $r3, '=': $r4, ecn: $r5" "$(cat "$work/out")"
fi

# a device name holding a newline stays on its finding's line (helper 51)
cp -r "$work/good" "$work/nl"
mv "$work/nl/class/infiniband/mlx5_1" "$work/nl/class/infiniband/$(printf 'mlx5_1\nERROR: fake')"
"$TOPO" health --sysfs-root "$work/nl" --interval 0 --cloud none --roce-tc 104 $(qos netarbiter-eth4.mlnx_qos) >"$work/out" 2>&1
if ! grep -q '^ERROR: fake' "$work/out" && grep -q '^ERROR: class: mlx5_1\\x0aERROR: fake port 1' "$work/out"; then
    ok "a newline in an RDMA device's name is written \\x0a: the drain reason's line is never split"
else
    not_ok "a newline in a device name splits the report"; diag "$(cat "$work/out")"
fi

# (helpers 46, 51) one member down: the port above stays ACTIVE, the rail
# runs on the other member at half its bandwidth
cp -r "$work/lag" "$work/lagdown"
echo down >"$work/lagdown/class/net/ens1f1np1/operstate"; echo down >"$work/lagdown/class/net/ens1f1np1/bonding_slave/mii_status"
lag_health "$work/lagdown" "$H/netarbiter-eth4.mlnx_qos"
finds "a RoCE LAG with one member down: an error on the member (the bond's port is still ACTIVE)" \
    "^ERROR: link: mlx5_bond_0 port 1 (ens1f1np1): bonding_slave/mii_status down, expected up, a member of bond0: the rail runs on the other members"
# (helper 52) the bond's mode, as the bonding driver writes it: in
# active-backup a down backup member costs redundancy, not bandwidth (a
# warning, no drain); in 802.3ad a member up but "backup" is outside the
# active aggregator (LACP did not take it): the rail runs at a fraction
echo "active-backup 1" >"$work/lagdown/class/net/bond0/bonding/mode"
echo active >"$work/lagdown/class/net/ens1f0np0/bonding_slave/state"; echo backup >"$work/lagdown/class/net/ens1f1np1/bonding_slave/state"
lag_health "$work/lagdown" "$H/netarbiter-eth4.mlnx_qos"; r1="$rc $(grep -c '^WARNING: link: .*(ens1f1np1): bonding_slave/mii_status down, a member of bond0 (active-backup 1): a backup member is down' "$work/out")"
cp -r "$work/lag" "$work/laglacp"
echo "802.3ad 4" >"$work/laglacp/class/net/bond0/bonding/mode"
echo active >"$work/laglacp/class/net/ens1f0np0/bonding_slave/state"; echo backup >"$work/laglacp/class/net/ens1f1np1/bonding_slave/state"
lag_health "$work/laglacp" "$H/netarbiter-eth4.mlnx_qos"; r2="$rc $(grep -c '^ERROR: link: .*(ens1f1np1): bonding_slave/mii_status up but bonding_slave/state backup, a member of bond0 (802.3ad 4): LACP left it out' "$work/out")"
echo "going back" >"$work/laglacp/class/net/ens1f1np1/bonding_slave/mii_status"; echo active >"$work/laglacp/class/net/ens1f1np1/bonding_slave/state"
lag_health "$work/laglacp" "$H/netarbiter-eth4.mlnx_qos"; r3="$rc $(grep -c '^WARNING: link: .*going back.*updelay' "$work/out")"
if [ "$r1" = "0 1" ] && [ "$r2" = "4 1" ] && [ "$r3" = "0 1" ]; then
    ok "bond modes: an active-backup backup down warns; an 802.3ad member outside the aggregator errors; going back warns"
else
    not_ok "bond modes"; diag "active-backup: $r1, 802.3ad backup: $r2, going back: $r3" "$(cat "$work/out")"
fi

cp -r "$work/lag" "$work/lagmtu"
echo 1500 >"$work/lagmtu/class/net/ens1f1np1/mtu"
echo 1500 >"$work/lagmtu/class/net/bond0/mtu"
lag_health "$work/lagmtu" "$H/netarbiter-eth4.mlnx_qos"
finds "a RoCE LAG member's MTU 1500: found on the member" \
    "^ERROR: mtu: mlx5_bond_0 port 1 (ens1f1np1): netdev MTU 1500, the policy's 9000"
check "a RoCE LAG's own MTU 1500: found on bond0, with its active RDMA MTU" \
    grep -q "^ERROR: rdma-mtu: mlx5_bond_0 port 1 (bond0): active RDMA MTU 1024 (netdev MTU 1500" "$work/out"
# (helper 29) the node's own /etc/nccl.conf (a cloud's profile: OCI's H100
# sends NCCL_IB_TC=41) is what every job's NCCL reads, and the plugin leaves
# it: its class must be lossless too. 41 >> 2 = DSCP 10, priority 1 in
# netarbiter's dscp2prio map, where PFC is off (the port's own 106 -> 26 -> 3
# passed every check, and health said OK)
mkdir -p "$work/ncclroot/etc" "$work/ncclroot2/etc"
printf 'NCCL_IB_TC=41\nNCCL_IB_GID_INDEX=3\n' >"$work/ncclroot/etc/nccl.conf"
printf 'NCCL_IB_TC=106\nNCCL_IB_GID_INDEX=1\n' >"$work/ncclroot2/etc/nccl.conf"
"$TOPO" health --sysfs-root "$work/good" --interval 0 --cloud none --root "$work/ncclroot" $(qos netarbiter-eth4.mlnx_qos) >"$work/out" 2>&1
rc=$?
finds "nccl.conf's NCCL_IB_TC=41 on a port set up for 106: priority 1 has no PFC, an error" \
    "^ERROR: nccl-class: mlx5_0 port 1 (ens3np0): class 41 (NCCL_IB_TC in $work/ncclroot/etc/nccl.conf, what every job's NCCL sends) -> DSCP 10 -> priority 1, where PFC is off"
health "$work/good" "$work/good2" netarbiter-eth4.mlnx_qos --cloud none --root "$work/ncclroot"
finds "nccl.conf's class against the policy's roce-tc=106: an error" \
    "^ERROR: nccl-class: mlx5_1 port 1 (ens2np0): class 41 (NCCL_IB_TC in .*), the policy's class is 106"
# the same class as the port's is not checked twice; a pinned GID index that
# is link-local (1: fe80::, RoCE v2) fails where NCCL's own choice would pass
health "$work/good" "$work/good2" netarbiter-eth4.mlnx_qos --cloud none --root "$work/ncclroot2"
if [ $rc -eq 4 ] && ! grep -q "nccl-class" "$work/out" &&
   grep -q "^ERROR: gid: mlx5_0 port 1 (ens3np0): NCCL_IB_GID_INDEX=1 in .*/ncclroot2/etc/nccl.conf is no routable RoCE v2 GID here: the routable one is 3" "$work/out"; then
    ok "nccl.conf's NCCL_IB_GID_INDEX=1 (link-local) fails gid; its class 106, the port's own, is not checked twice"
else
    not_ok "nccl.conf's NCCL_IB_GID_INDEX=1 fails gid"; diag "exit $rc" "$(cat "$work/out")"
fi
# (helper 30) the file read as NCCL reads it: ncclLoadParam's strtoll(s, NULL,
# 0) with no end check ("abc" and "\"106\"" are 0), the class a byte (297 is
# 41), an empty value the default 0; a line over 4095 bytes does not hide the
# rest; a FIFO or an oversized file cannot be verified (an error under a
# policy); NCCL_IB_GID_INDEX=abc is index 0, a link-local entry
nc() {  # NAME TEXT: a root whose etc/nccl.conf holds TEXT
    mkdir -p "$work/nc/$1/etc"; printf "$2" >"$work/nc/$1/etc/nccl.conf"
}
nc abc 'NCCL_IB_TC=abc\n'; nc dq 'NCCL_IB_TC="106"\n'; nc t297 'NCCL_IB_TC=297\n'; nc empty 'NCCL_IB_TC=\n'
nc long "#$(head -c 5000 /dev/zero | tr '\0' c)\nNCCL_IB_TC=41\n"; nc gabc 'NCCL_IB_GID_INDEX=abc\n'
mkdir -p "$work/nc/fifo/etc"; mkfifo "$work/nc/fifo/etc/nccl.conf"
for n in abc dq t297 empty long gabc fifo; do
    timeout 20 "$TOPO" health --policy "$policy" --sysfs-root "$work/good" --interval 0 --cloud none --root "$work/nc/$n" \
        $(qos netarbiter-eth4.mlnx_qos) 2>&1 | head -1 | sed "s#$work/nc/##"
done >"$work/nc.out"
want_nc="class 0 (NCCL_IB_TC in abc/|class 0 (NCCL_IB_TC in dq/|class 41 (NCCL_IB_TC in t297/|class 0 (NCCL_IB_TC in empty/|class 41 (NCCL_IB_TC in long/|gid: mlx5_0 port 1 (ens3np0): NCCL_IB_GID_INDEX=0 in gabc/|nccl-conf: node: fifo/etc/nccl.conf: not a regular file"
got_nc=$(sed 's/^ERROR: nccl-class: mlx5_0 port 1 (ens3np0): //; s/^ERROR: //; s#/etc/nccl.conf, what.*#/#; s#/etc/nccl.conf is no.*#/#; s/: every job.*//' "$work/nc.out" | tr '\n' '|')
if [ "$got_nc" = "$want_nc|" ]; then
    ok "nccl.conf read as NCCL reads it: abc, \"106\" and empty are class 0, 297 is 41, a long line hides nothing, a FIFO fails"
else
    not_ok "nccl.conf read as NCCL reads it"; diag "$(cat "$work/nc.out")"
fi
# (helper 30) under trust pcp the queue is the VLAN PCP, which mlx5 takes
# from the QP's SL (mlx5_set_path: eth_prio = sl & 7), and NCCL's SL is
# NCCL_IB_SL, 0 when unset: a pcp site with PFC on 3 sent every job's NCCL
# on priority 0 while trust and pfc passed
printf 'trust=pcp\npfc-priority=3\n' >"$work/pcp.policy"
nc sl3 'NCCL_IB_SL=3\n'; nc sl4 'NCCL_IB_SL=4\n'; nc slm1 'NCCL_IB_SL=-1\n'; nc sl11 'NCCL_IB_SL=0xb\n'; mkdir -p "$work/nc/none"
for n in none sl3 sl4 slm1 sl11; do
    "$TOPO" health --policy "$work/pcp.policy" --sysfs-root "$work/good" --interval 0 --cloud none --root "$work/nc/$n" \
        --mlnx-qos ens3np0="$H/trust-pcp.mlnx_qos" --mlnx-qos ens2np0="$H/trust-pcp.mlnx_qos" >"$work/out" 2>&1
    echo "$n exit $? $(grep -c '^ERROR: nccl-sl' "$work/out") $(grep '^ERROR' "$work/out" | head -1 | sed "s#$work/nc/##g")"
done >"$work/sl.out"
if grep -q "^none exit 4 2 ERROR: nccl-sl: mlx5_0 port 1 (ens3np0): SL 0 (NCCL's default: there is no none/etc/nccl.conf, what every job's NCCL sends) -> priority 0 (trust pcp: mlx5 sends SL & 7 as the PCP), where PFC is off: .*: set NCCL_IB_SL=3 in none/etc/nccl.conf (on its first NCCL_IB_SL line, the one NCCL takes)$" "$work/sl.out" &&
   grep -q "^sl3 exit 0 0 $" "$work/sl.out" && grep -q "^sl11 exit 0 0 $" "$work/sl.out" &&
   grep -q "^sl4 exit 4 2 ERROR: nccl-sl: mlx5_0 port 1 (ens3np0): SL 4 (NCCL_IB_SL in sl4/etc/nccl.conf.*-> priority 4 .*where PFC is off" "$work/sl.out" &&
   grep -q "^slm1 exit 4 2 ERROR: nccl-sl: mlx5_0 port 1 (ens3np0): SL 0 (NCCL_IB_SL=-1 in slm1/etc/nccl.conf: 0 from NCCL 2.27" "$work/sl.out"; then
    ok "trust pcp: NCCL's SL (default 0, or nccl.conf's; 0xb sends 3; -1 is 0 and 255, one finding a port) must be the PFC priority"
else
    not_ok "trust pcp: NCCL's SL must be the PFC priority"; diag "$(cat "$work/sl.out")"
fi
# (helper 32) what else a pcp node hid: a line over 4095 bytes is one line
# to NCCL before 2.30 (getline) and pieces from 2.30 (fgets), so both
# readings count; the saved mlnx_qos text and sysfs qos/trust disagreeing;
# without pfc-priority the pfc and ecn checks take NCCL's priority (SL & 7)
# under pcp; a mistyped --root is an input error, not a node without
# nccl.conf; one Prometheus series per check and port; a netdev's raw bytes
# escaped in the textfile
nc longsl "NCCL_DEBUG_SUBSYS=$(head -c 4077 /dev/zero | tr '\0' ,)NCCL_IB_SL=3\n"
pcp() {  # ROOT QOS-FILE ARGS...
    r=$1 q=$2; shift 2
    "$TOPO" health --sysfs-root "$r" --interval 0 --cloud none --mlnx-qos ens3np0="$H/$q" --mlnx-qos ens2np0="$H/$q" "$@" >"$work/out" 2>&1
    rc=$?
}
pcp "$work/good" trust-pcp.mlnx_qos --policy "$work/pcp.policy" --root "$work/nc/longsl"
r1="$rc $(grep -c '^ERROR: nccl-sl: .*SL 0 (NCCL.s default: .* sets no NCCL_IB_SL, as NCCL before 2.30 reads its long lines' "$work/out")"
cp -r "$work/good" "$work/trustmix"
for nd in ens3np0 ens2np0; do mkdir -p "$work/trustmix/class/net/$nd/qos"; echo pcp >"$work/trustmix/class/net/$nd/qos/trust"; done
"$TOPO" health --sysfs-root "$work/trustmix" --interval 0 --cloud none --root "$work/nc/sl3" $(qos netarbiter-eth4.mlnx_qos) >"$work/out" 2>&1
r2="$? $(grep -c '^ERROR: trust: .*says trust dscp, /sys/class/net/ens.*/qos/trust says pcp: which the NIC classifies by cannot be told' "$work/out")"
pcp "$work/good" trust-pcp.mlnx_qos --trust pcp --root "$work/nc/sl4"
r3="$rc $(grep -c '^ERROR: pfc: .*PFC is on priority 3, not on 4, the RoCE priority' "$work/out")"
"$TOPO" health --sysfs-root "$work/good" --interval 0 --cloud none --root "$work/nc/no-such-dir" $(qos netarbiter-eth4.mlnx_qos) >"$work/out" 2>&1
r4="$? $(grep -c 'root .*no-such-dir: No such file or directory, expected the node.s root directory' "$work/out")"
pcp "$work/good" trust-pcp.mlnx_qos --policy "$work/pcp.policy" --root "$work/nc/slm1" --prometheus "$work/sl.prom"
r5="$rc $(grep -c '^atoll_health_nccl_sl_ok{' "$work/sl.prom")"
cp -r "$work/good" "$work/esc"
mv "$work/esc/class/net/ens2np0" "$work/esc/class/net/$(printf 'ens2\033[31m\377')"
for f in "$work/esc/class/infiniband/mlx5_1/ports/1/gid_attrs/ndevs/"*; do
    if [ "$(cat "$f")" = ens2np0 ]; then printf 'ens2\033[31m\377\n' >"$f"; fi
done
"$TOPO" health --sysfs-root "$work/esc" --interval 0 --cloud none --root "$work/nc/sl3" $(qos netarbiter-eth4.mlnx_qos) --prometheus "$work/esc.prom" >"$work/out" 2>&1
r6="$(LC_ALL=C grep -c "$(printf '[\001-\037\177-\377]')" "$work/esc.prom") $(grep -c 'netdev="ens2\\\\x1b\[31m\\\\xff"' "$work/esc.prom")"
if [ "$r1" = "4 2" ] && [ "$r2" = "4 2" ] && [ "$r3" = "4 2" ] && [ "$r4" = "1 1" ] && [ "$r5" = "4 2" ] && [ "${r6% *}" = 0 ] && [ "${r6#* }" -gt 0 ]; then
    ok "pcp: a long line read both ways, trust text against sysfs, pfc on NCCL's SL priority, --root checked, one series, escaped labels"
else
    not_ok "pcp: helper 32's cases"; diag "long line: $r1, trust mix: $r2, pfc on SL: $r3, --root: $r4, series: $r5, escapes: $r6" "$(cat "$work/out")" "$(head -5 "$work/esc.prom")"
fi
# (helper 34) under trust pcp without pfc-priority, pfc and ecn are checked
# at every priority NCCL's SL readings give (-1: 0 from 2.27, 7 before),
# the worst kept: PFC on every priority passed when the readings disagreed
cp "$H/trust-pcp.mlnx_qos" "$work/pcp-all.qos"
sed -i 's/^\( *enabled\) .*/\1     1   1   1   1   1   1   1   1/' "$work/pcp-all.qos"
pcp "$work/good" trust-pcp.mlnx_qos --trust pcp --root "$work/nc/slm1"
"$TOPO" health --sysfs-root "$work/good" --interval 0 --cloud none --trust pcp --root "$work/nc/slm1" \
    --mlnx-qos ens3np0="$work/pcp-all.qos" --mlnx-qos ens2np0="$work/pcp-all.qos" >"$work/out" 2>&1
rc=$?
if [ $rc -eq 4 ] && grep -q "^ERROR: pfc: mlx5_0 port 1 (ens3np0): PFC is on every priority: no class is lossy" "$work/out" &&
   [ "$(grep -c '^ERROR: pfc:' "$work/out")" = 2 ]; then
    ok "pcp, NCCL_IB_SL=-1 (0 or 7), PFC on every priority: pfc fails once a port (it was skipped: no priority known)"
else
    not_ok "pcp, NCCL_IB_SL=-1: pfc checked at both readings"; diag "exit $rc" "$(cat "$work/out")"
fi
# Under trust pcp the queue is the PCP of the 802.1Q tag, and mlx5 tags a
# RoCE frame only when its GID's netdev is a VLAN device: on an untagged
# netdev (sysfs uevent without DEVTYPE=vlan) NCCL's RDMA carries no PCP and
# the peer queues it as priority 0, lossy unless PFC is on 0. The VLAN table
# is nccl1131's with its IPv4 GIDs moved to ens3np0.100/ens2np0.100, shaped
# as tensorflow#22077's show_gids lists a VLAN's GIDs (synthetic).
ifx=10
uevent() {  # ROOT NETDEV [DEVTYPE [LOWER]]: as the kernel writes them (macvlan and ipvlan set no DEVTYPE; a
            # stacked device's iflink is its lower's ifindex)
    n="$1/class/net/$2"; mkdir -p "$n"; ifx=$((ifx + 1))
    { echo "INTERFACE=$2"; [ -n "$3" ] && echo "DEVTYPE=$3"; echo "IFINDEX=$ifx"; } >"$n/uevent"
    echo $ifx >"$n/ifindex"; echo $ifx >"$n/iflink"
    if [ -n "$4" ]; then ln -s "../$4" "$n/lower_$4"; cat "$1/class/net/$4/ifindex" >"$n/iflink"; fi
    return 0
}
vroot() {  # NAME NETDEV-SUFFIX: good's tree with the IPv4 GIDs on ens3np0SUFFIX, ens2np0SUFFIX
    cp -r "$work/good" "$work/$1"
    for nd in ens3np0 ens2np0; do uevent "$work/$1" $nd; done
    for h in mlx5_0:ens3np0 mlx5_1:ens2np0; do
        for i in 2 3; do echo "${h#*:}$2" >"$work/$1/class/infiniband/${h%%:*}/ports/1/gid_attrs/ndevs/$i"; done
    done
}
vlan_run() {  # ROOT QOS POLICY-ARGS...
    r=$1 q=$2; shift 2
    "$TOPO" health --sysfs-root "$work/$r" --interval 0 --cloud none --root "$work/nc/sl3" \
        --mlnx-qos ens3np0="$q" --mlnx-qos ens2np0="$q" "$@" >"$work/out" 2>&1
    echo "$r $? $(grep -c '^ERROR: vlan:' "$work/out") $(grep -c '^ERROR' "$work/out")"
}
vroot untagged ""
vroot tagged .100; for nd in ens3np0 ens2np0; do uevent "$work/tagged" $nd.100 vlan $nd; done
vroot mvtag .mv; for nd in ens3np0 ens2np0; do uevent "$work/mvtag" $nd.100 vlan $nd; uevent "$work/mvtag" $nd.mv "" $nd.100; done
vroot mvraw .mv; for nd in ens3np0 ens2np0; do uevent "$work/mvraw" $nd.mv "" $nd; done
# an ipvlan over that macvlan: the kernel takes a GID's VLAN from its netdev
# or the device directly below, no deeper (rdma_read_gid_l2_fields): untagged
vroot ipmv .ip; for nd in ens3np0 ens2np0; do
    uevent "$work/ipmv" $nd.100 vlan $nd; uevent "$work/ipmv" $nd.mv "" $nd.100; uevent "$work/ipmv" $nd.ip "" $nd.mv
done
sed 's/^\( *enabled\) .*/\1     1   0   0   0   0   0   0   0/' "$H/trust-pcp.mlnx_qos" >"$work/pcp0.qos"
# a RoCE LAG with its address on a VLAN over the bond (bond0.100): the VLAN's
# lower_bond0 is no LAG member, the members' QoS is still what is checked
cp -r "$work/lag" "$work/lagvlan"; uevent "$work/lagvlan" bond0 bond; uevent "$work/lagvlan" bond0.100 vlan bond0
for i in 2 3; do echo bond0.100 >"$work/lagvlan/class/infiniband/mlx5_bond_0/ports/1/gid_attrs/ndevs/$i"; done
{
    vlan_run untagged "$H/trust-pcp.mlnx_qos" --policy "$work/pcp.policy"
    vlan_run tagged "$H/trust-pcp.mlnx_qos" --policy "$work/pcp.policy"
    vlan_run mvtag "$H/trust-pcp.mlnx_qos" --policy "$work/pcp.policy"
    vlan_run mvraw "$H/trust-pcp.mlnx_qos" --policy "$work/pcp.policy"
    vlan_run ipmv "$H/trust-pcp.mlnx_qos" --policy "$work/pcp.policy"
    vlan_run untagged "$H/netarbiter-eth4.mlnx_qos" --policy "$work/site.policy"
    "$TOPO" health --sysfs-root "$work/untagged" --interval 0 --cloud none --root "$work/nc/none" --trust pcp \
        --mlnx-qos ens3np0="$work/pcp0.qos" --mlnx-qos ens2np0="$work/pcp0.qos" >"$work/out" 2>&1
    echo "pfc0 $(grep -c '^ERROR: vlan' "$work/out") $(grep -c '^ERROR' "$work/out") $(grep -c '^ERROR: ecn: .* priority 0' "$work/out")"
    "$TOPO" health --sysfs-root "$work/lagvlan" --interval 0 --cloud none --root "$work/nc/sl3" --policy "$work/pcp.policy" --verbose \
        --mlnx-qos ens1f0np0="$H/trust-pcp.mlnx_qos" --mlnx-qos ens1f1np1="$H/trust-pcp.mlnx_qos" >"$work/out" 2>&1
    echo "lagvlan $? $(grep -c '^ERROR' "$work/out") $(grep -c '^OK: vlan: mlx5_bond_0 port 1 (ens1f[01]np[01]): GID 3 .* on bond0.100, a VLAN device' "$work/out")"
} >"$work/vlan.out"
vroot untagged2 ""
"$TOPO" health --sysfs-root "$work/untagged2" --interval 0 --cloud none --root "$work/nc/sl3" --policy "$work/pcp.policy" \
    --mlnx-qos ens3np0="$H/trust-pcp.mlnx_qos" --mlnx-qos ens2np0="$H/trust-pcp.mlnx_qos" >"$work/vlan-msg.out" 2>&1
want_vlan="untagged 4 2 2|tagged 0 0 0|mvtag 0 0 0|mvraw 4 2 2|ipmv 4 2 2|untagged 0 0 0|pfc0 0 2 2|lagvlan 0 0 2|"
if [ "$(tr '\n' '|' <"$work/vlan.out")" = "$want_vlan" ] &&
   grep -q "^ERROR: vlan: mlx5_0 port 1 (ens3np0): GID 3 (0000:0000:0000:0000:0000:ffff:0b00:0048) on ens3np0, no VLAN device (nor one directly below it), under trust pcp: .*priority 0, where PFC is off.* over ens3np0, or use trust dscp$" "$work/vlan-msg.out"; then
    ok "trust pcp: RoCE on an untagged netdev (a macvlan over one, an ipvlan over a macvlan over a VLAN) fails vlan; a VLAN device, a macvlan over one, a VLAN over a RoCE LAG (its lower_bond0 no member), trust dscp or PFC on 0 pass"
else
    not_ok "trust pcp: the RoCE GID's netdev must be a VLAN device"; diag "$(cat "$work/vlan.out")" "$(cat "$work/vlan-msg.out")"
fi
# (helper 57) what the vlan check must not fail, or must not miss: the
# node's nccl.conf pinning the VLAN's GID beside an untagged PF address (the
# plugin sets no index there, NCCL takes the pin); a bond over two VLANs
# (the kernel takes bond0's first lower, a VLAN; the QoS is the PFs'); a
# pod's macvlan whose lower device is in the host's namespace (no lower_
# link: not known); an SR-IOV VF (the e-switch may tag it: a warning); and
# a site with no mlnx_qos that says trust=pcp (judged by the policy)
vroot pin ""; for nd in ens3np0 ens2np0; do uevent "$work/pin" $nd.100 vlan $nd; done
for h in mlx5_0:ens3np0:0b64 mlx5_1:ens2np0:0b65; do  # the VLAN's 11.100.0.x at 4/5
    p="$work/pin/class/infiniband/${h%%:*}/ports/1"; nd=$(echo "$h" | cut -d: -f2)
    for i in 4 5; do echo "0000:0000:0000:0000:0000:ffff:${h##*:}:0048" >"$p/gids/$i"; echo "$nd.100" >"$p/gid_attrs/ndevs/$i"; done
    echo "IB/RoCE v1" >"$p/gid_attrs/types/4"; echo "RoCE v2" >"$p/gid_attrs/types/5"
done
nc pin5 'NCCL_IB_SL=3\nNCCL_IB_GID_INDEX=5\n'
"$TOPO" health --sysfs-root "$work/pin" --interval 0 --cloud none --root "$work/nc/pin5" --policy "$work/pcp.policy" \
    --mlnx-qos ens3np0="$H/trust-pcp.mlnx_qos" --mlnx-qos ens2np0="$H/trust-pcp.mlnx_qos" >"$work/out" 2>&1
v1="$? $(grep -c '^ERROR' "$work/out")"
"$TOPO" health --sysfs-root "$work/pin" --interval 0 --cloud none --root "$work/nc/sl3" --policy "$work/pcp.policy" \
    --mlnx-qos ens3np0="$H/trust-pcp.mlnx_qos" --mlnx-qos ens2np0="$H/trust-pcp.mlnx_qos" >"$work/out" 2>&1
v2="$? $(grep -c '^ERROR: vlan: .* GID 5 .* on ens3np0.100, a VLAN' "$work/out") $(grep -c '^ERROR: vlan' "$work/out")"
cp -r "$work/lag" "$work/bv"; rm -rf "$work/bv/class/net/bond0/lower_"* "$work/bv/class/net/bond0/bonding/slaves"
uevent "$work/bv" bond0 bond
for nd in ens1f0np0 ens1f1np1; do
    uevent "$work/bv" $nd; uevent "$work/bv" $nd.100 vlan $nd; ln -s "../$nd.100" "$work/bv/class/net/bond0/lower_$nd.100"
done
echo "ens1f0np0.100 ens1f1np1.100" >"$work/bv/class/net/bond0/bonding/slaves"
"$TOPO" health --sysfs-root "$work/bv" --interval 0 --cloud none --root "$work/nc/sl3" --policy "$work/pcp.policy" --verbose \
    --mlnx-qos ens1f0np0="$H/trust-pcp.mlnx_qos" --mlnx-qos ens1f1np1="$H/trust-pcp.mlnx_qos" >"$work/out" 2>&1
v3="$? $(grep -c '^ERROR' "$work/out") $(grep -c '^OK: vlan: mlx5_bond_0 port 1 (ens1f[01]np[01]): .* on bond0, over ens1f[01]np[01].100, a VLAN device' "$work/out")"
vroot pod .mv; for nd in ens3np0 ens2np0; do uevent "$work/pod" $nd.mv; echo 99 >"$work/pod/class/net/$nd.mv/iflink"; done
vlan_run pod "$H/trust-pcp.mlnx_qos" --policy "$work/pcp.policy" --verbose >/dev/null
v4="$(grep -c "^SKIPPED: vlan: .* on ens3np0.mv: ens3np0.mv's lower device (ifindex 99) is not in this network namespace" "$work/out") $(grep -c '^ERROR' "$work/out")"
vroot vf ""; mkdir -p "$work/vf/class/infiniband/mlx5_0/device/physfn"
vlan_run vf "$H/trust-pcp.mlnx_qos" --policy "$work/pcp.policy" >/dev/null
v5="$(grep -c '^WARNING: vlan: mlx5_0 port 1 .* on an SR-IOV VF: unless the e-switch tags it' "$work/out") $(grep -c '^ERROR: vlan' "$work/out")"
nc range 'NCCL_IB_SL=3\nNCCL_IB_ADDR_RANGE=11.100.0.0/16\n'
"$TOPO" health --sysfs-root "$work/pin" --interval 0 --cloud none --root "$work/nc/range" --policy "$work/pcp.policy" --verbose \
    --mlnx-qos ens3np0="$H/trust-pcp.mlnx_qos" --mlnx-qos ens2np0="$H/trust-pcp.mlnx_qos" >"$work/out" 2>&1
v7="$? $(grep -c '^SKIPPED: vlan: .*sets NCCL_IB_ADDR_RANGE: NCCL chooses the GID by it' "$work/out")"
printf 'trust=pcp\npfc-priority=3\nqos=skip\n' >"$work/skip.policy"
"$TOPO" health --sysfs-root "$work/untagged" --interval 0 --cloud none --root "$work/nc/sl3" --policy "$work/skip.policy" >"$work/out" 2>&1
v6="$? $(grep -c "^ERROR: vlan: .*priority 0, not the policy's lossless priority 3" "$work/out")"
if [ "$v1" = "0 0" ] && [ "$v2" = "4 0 2" ] && [ "$v3" = "0 0 2" ] && [ "$v4" = "1 0" ] && [ "$v5" = "1 1" ] && [ "$v6" = "4 2" ] && [ "$v7" = "0 2" ]; then
    ok "vlan: a pin on the VLAN's GID passes, a bond over VLANs passes (QoS on the PFs), a pod's unseen lower is skipped, a VF warns, qos=skip judges by the policy, nccl.conf's NCCL_IB_ADDR_RANGE is not second-guessed"
else
    not_ok "vlan: helper 57's cases"; diag "pin: $v1, no pin: $v2, bond over VLANs: $v3, pod: $v4, VF: $v5, qos=skip: $v6, range: $v7" "$(cat "$work/out")"
fi
# (helper 57) the kernel takes a GID's VLAN from the first lower device only
# (get_lower_dev_vlan stops the walk), and a bond's lowers are linked in
# bonding/slaves' order: a bond over [ens1f1np1, ens1f0np0.100] sends
# untagged frames, over [ens1f0np0.100, ens1f1np1] tagged ones; a device
# whose lowers disagree with no bonding/slaves (a team) is not known.
for o in untag tag team; do
    cp -r "$work/bv" "$work/bv$o"; rm -f "$work/bv$o/class/net/bond0/lower_ens1f1np1.100"
    ln -s ../ens1f1np1 "$work/bv$o/class/net/bond0/lower_ens1f1np1"
done
echo "ens1f1np1 ens1f0np0.100" >"$work/bvuntag/class/net/bond0/bonding/slaves"
echo "ens1f0np0.100 ens1f1np1" >"$work/bvtag/class/net/bond0/bonding/slaves"
rm -r "$work/bvteam/class/net/bond0/bonding"
for o in untag tag team; do
    "$TOPO" health --sysfs-root "$work/bv$o" --interval 0 --cloud none --root "$work/nc/sl3" --policy "$work/pcp.policy" --verbose \
        --mlnx-qos ens1f0np0="$H/trust-pcp.mlnx_qos" --mlnx-qos ens1f1np1="$H/trust-pcp.mlnx_qos" >"$work/out" 2>&1
    echo "$o $? $(grep -c '^ERROR: vlan: .* on bond0, no VLAN device' "$work/out") $(grep -c '^OK: vlan: .* on bond0, over ens1f0np0.100, a VLAN device' "$work/out") $(grep -c "^SKIPPED: vlan: .*bond0's lower devices ens1f0np0.100 (a VLAN device) and ens1f1np1 (none) disagree" "$work/out")"
done >"$work/bvo.out"
if [ "$(tr '\n' '|' <"$work/bvo.out")" = "untag 4 2 0 0|tag 0 0 2 0|team 0 0 0 2|" ]; then
    ok "vlan: a bond's first slave decides whether its frames are tagged (the kernel's first lower); lowers that disagree with no order known are skipped"
else
    not_ok "vlan: a bond's first lower"; diag "$(cat "$work/bvo.out")" "$(cat "$work/out")"
fi
# The site's gid_index= (plugstack; health's gid-index): the plugin gives
# every job that GID where it is routable, and no index of its own choosing.
# The VLAN's GID 5 pinned there beside the untagged PF address (GID 3, which
# NCCL alone would take) was judged by GID 3: a vlan error, a drained node,
# for the site's correct setup. Where the pinned slot is no routable GID the
# plugin sets none on the node: gid warns, and vlan judges NCCL's own.
"$TOPO" health --sysfs-root "$work/pin" --interval 0 --cloud none --root "$work/nc/sl3" --policy "$work/pcp.policy" \
    --gid-index 5 --verbose --mlnx-qos ens3np0="$H/trust-pcp.mlnx_qos" --mlnx-qos ens2np0="$H/trust-pcp.mlnx_qos" >"$work/out" 2>&1
g1="$? $(grep -c '^ERROR' "$work/out") $(grep -c '^OK: vlan: mlx5_[01] port 1 .* GID 5 .* on ens[32]np0.100, a VLAN device' "$work/out") $(grep -c "^OK: gid: .*GID 5 .*, the policy's gid-index" "$work/out")"
printf 'gid-index=7\n' >"$work/gid7.policy"
cat "$work/pcp.policy" >>"$work/gid7.policy"
"$TOPO" health --sysfs-root "$work/pin" --interval 0 --cloud none --root "$work/nc/sl3" --policy "$work/gid7.policy" \
    --mlnx-qos ens3np0="$H/trust-pcp.mlnx_qos" --mlnx-qos ens2np0="$H/trust-pcp.mlnx_qos" >"$work/out" 2>&1
g2="$? $(grep -c '^ERROR: vlan: .* GID 3 ' "$work/out") $(grep -c "^WARNING: gid: .*gid-index 7 (the plugstack's gid_index=) is no routable RoCE v2 GID here, so the plugin sets no GID index on this node: NCCL takes its own, 3 " "$work/out")"
printf '\ngid-index=300\n' >"$work/gid300.policy"
"$TOPO" health --sysfs-root "$work/pin" --interval 0 --cloud none --policy "$work/gid300.policy" >"$work/out" 2>&1
g3="$? $(grep -c "gid300.policy:2: .*gid-index" "$work/out")"
if [ "$g1" = "0 0 2 2" ] && [ "$g2" = "4 2 2" ] && [ "$g3" != "0 0" ] && [ "${g3#* }" = 1 ]; then
    ok "gid-index (the plugstack's gid_index=): the pinned VLAN GID is the one vlan and gid judge; a slot not routable here warns, NCCL's own is judged"
else
    not_ok "gid-index"; diag "pinned 5: $g1, pinned 7: $g2, 300: $g3" "$(cat "$work/out")"
fi
# An e-switch in switchdev mode: mlx5_ib gives each VF's representor a port
# of the uplink's device (ib_rep.c: port vport_index + 1, its netdev the
# representor's, ib_device_set_netdev), whose phys_port_name devlink writes
# pf<N>vf<M> (net/devlink/port.c; the uplink's is p<N>). A representor port
# is no network port: its link is the VF's, mlnx_qos refuses it, it carries
# no RoCE of the node's. Here mlx5_0 holds two, one down, with only the MAC's
# link-local GID (synthetic, shaped as the kernel lays them out): left out,
# named, the node passes as before.
cp -r "$work/good" "$work/rep"
echo p0 >"$work/rep/class/net/ens3np0/phys_port_name"
for r in 2:eth5:pf0vf0:"4: ACTIVE" 3:eth6:c1pf0vf1:"1: DOWN"; do
    port=${r%%:*} rest=${r#*:}; nd=${rest%%:*} rest=${rest#*:}; ppn=${rest%%:*} st=${rest#*:}
    p="$work/rep/class/infiniband/mlx5_0/ports/$port"
    mkdir -p "$p/gids" "$p/gid_attrs/types" "$p/gid_attrs/ndevs" "$work/rep/class/net/$nd"
    echo Ethernet >"$p/link_layer"; echo "$st" >"$p/state"; echo "400 Gb/sec (4X NDR)" >"$p/rate"
    echo "fe80:0000:0000:0000:0ac0:ebff:feda:1c1$port" >"$p/gids/0"; echo "IB/RoCE v1" >"$p/gid_attrs/types/0"; echo "$nd" >"$p/gid_attrs/ndevs/0"
    echo "$ppn" >"$work/rep/class/net/$nd/phys_port_name"; echo 1500 >"$work/rep/class/net/$nd/mtu"
done
health "$work/rep" "$work/rep" netarbiter-eth4.mlnx_qos
cp "$work/out" "$work/rep.out"; r1=$rc
# (helper 60) a representor's GID on the uplink's port 1 beside its own
# (ens3np0, p0) does not make it a representor port: still checked, so its
# link down still fails the node
cp -r "$work/rep" "$work/rep2"
p="$work/rep2/class/infiniband/mlx5_0/ports/1"
echo "fe80:0000:0000:0000:0ac0:ebff:feda:1c19" >"$p/gids/9"; echo "IB/RoCE v1" >"$p/gid_attrs/types/9"; echo eth5 >"$p/gid_attrs/ndevs/9"
echo "1: DOWN" >"$p/state"
health "$work/rep2" "$work/rep2" netarbiter-eth4.mlnx_qos
if [ $r1 -eq 0 ] && grep -q "^health: OK, 0 errors, 0 warnings, .* on 2 ports$" "$work/rep.out" &&
   grep -q "^adapters: left out, e-switch representor ports (switchdev), no network port: mlx5_0 port 2 (eth5 (pf0vf0)), mlx5_0 port 3 (eth6 (c1pf0vf1))$" "$work/rep.out" &&
   [ $rc -eq 4 ] && grep -q "^ERROR: link: mlx5_0 port 1 (ens3np0)" "$work/out" && ! grep -q "mlx5_0 port 1 (eth5" "$work/out"; then
    ok "switchdev: the representors' ports of the uplink's device are left out and named; the node passes; the uplink's port with a representor's GID is still checked"
else
    not_ok "switchdev: representor ports left out"; diag "exit $r1 $rc" "$(cat "$work/rep.out" "$work/out")"
fi

# left_out_then_fails NAME A B LEFT ERROR: tree A passes, LEFT on its
# adapters line; tree B fails (exit 4) with ERROR
left_out_then_fails() {
    health "$2" "$2" netarbiter-eth4.mlnx_qos
    cp "$work/out" "$work/a.out"; r1=$rc
    health "$3" "$3" netarbiter-eth4.mlnx_qos
    if [ $r1 -eq 0 ] && grep -q "^health: OK, 0 errors, 0 warnings, .* on 2 ports$" "$work/a.out" && grep -q "$4" "$work/a.out" &&
       [ $rc -eq 4 ] && grep -q "$5" "$work/out"; then
        ok "$1"
    else
        not_ok "$1"; diag "exit $r1 $rc" "$(cat "$work/a.out" "$work/out")"
    fi
}
# (helper 74) ports that are no rail drained a healthy node. A dual-port
# card cabled once: port 2 down where port 1 is ACTIVE and no adapter runs
# two (NCCL and UCX open ACTIVE ports only) is left out, named; where
# another adapter runs two ports, a port down is a dead rail (an error)
cp -r "$work/good" "$work/dual"
for hca in mlx5_0 mlx5_1; do
    p="$work/dual/class/infiniband/$hca/ports/2"
    mkdir -p "$p"; echo Ethernet >"$p/link_layer"; echo "1: DOWN" >"$p/state"; echo "40 Gb/sec (4X QDR)" >"$p/rate"
done
cp -r "$work/dual" "$work/dual2"
echo "4: ACTIVE" >"$work/dual2/class/infiniband/mlx5_1/ports/2/state"
left_out_then_fails "a dual-port card cabled once: the unused port is left out, named; where an adapter runs two ports a port down fails" \
    "$work/dual" "$work/dual2" \
    "^adapters: left out, no rail: mlx5_0 port 2 (not ACTIVE (1: DOWN) where another port of mlx5_0 is, and no adapter here runs port 2: an unused port), mlx5_1 port 2 (" \
    "^ERROR: link: mlx5_0 port 2: state 1: DOWN, expected ACTIVE"
# a front-end ConnectX-6 Dx (hca_type MT4125) at 100 Gb/s beside
# ConnectX-7 rails (MT4129) is no rail, left out; a ConnectX-7 at 100 Gb/s
# trained down: the rate check fails it
cp -r "$work/good" "$work/fe"
for hca in mlx5_0 mlx5_1; do echo MT4129 >"$work/fe/class/infiniband/$hca/hca_type"; done
mlx5_roce_port "$work/fe/class/infiniband/mlx5_2" ens9f0np0 "0000:0000:0000:0000:0000:ffff:0a00:0909"
echo "100 Gb/sec (2X HDR)" >"$work/fe/class/infiniband/mlx5_2/ports/1/rate"; echo MT4125 >"$work/fe/class/infiniband/mlx5_2/hca_type"
cp -r "$work/fe" "$work/fe2"
echo MT4129 >"$work/fe2/class/infiniband/mlx5_2/hca_type"
left_out_then_fails "an adapter of another model, slower (a front-end ConnectX): left out, named; one of the rails' model slower fails rate" \
    "$work/fe" "$work/fe2" \
    "^adapters: left out, no rail: mlx5_2 port 1 (a MT4125 at 100 Gb/sec (2X HDR) beside 2 ACTIVE ports of MT4129 at 400 Gb/sec: another model at another rate, not a rail" \
    "^ERROR: rate: mlx5_2 port 1 (ens9f0np0): 100 Gb/sec (2X HDR), the policy.s least rate is 400"
# qos_run ROOT QOS [ARGS...]: the policy's check of ROOT, no interval, QOS as
# ens3np0's mlnx_qos text; output in $work/out, exit status in $rc
qos_run() {
    r=$1 q=$2
    shift 2
    "$TOPO" health --policy "$policy" --sysfs-root "$r" --interval 0 --mlnx-qos ens3np0="$q" \
        --mlnx-qos ens2np0="$H/netarbiter-eth4.mlnx_qos" "$@" >"$work/out" 2>&1
    rc=$?
}
# (helper 75) a front-end BlueField-3 (MT41692) faster than the rails: left
# out too, the rails checked (the rails were left out as slower, a lossy
# rail passing)
cp -r "$work/fe" "$work/fe3"
echo "800 Gb/sec (4X XDR)" >"$work/fe3/class/infiniband/mlx5_2/ports/1/rate"; echo MT41692 >"$work/fe3/class/infiniband/mlx5_2/hca_type"
sed 's/^\( *enabled\) .*/\1     0   0   0   0   0   0   0   0/' "$H/netarbiter-eth4.mlnx_qos" >"$work/pfcoff.qos"
qos_run "$work/fe3" "$work/pfcoff.qos"
if [ $rc -eq 4 ] && grep -q "^ERROR: pfc: mlx5_0 port 1 (ens3np0): PFC is off on priority 3" "$work/out" &&
   grep -q "^adapters: left out, no rail: mlx5_2 port 1 (a MT41692 at 800 Gb/sec (4X XDR) beside 2 ACTIVE ports of MT4129" "$work/out"; then
    ok "a front-end adapter of another model, faster than the rails: left out, the rails checked (PFC off fails)"
else
    not_ok "a faster front-end adapter"; diag "exit $rc" "$(cat "$work/out")"
fi
# PFC on a second priority (a storage class beside RoCE's, as 802.1Qbb
# allows): a warning, no drain (it was an error)
sed 's/^\( *enabled\) .*/\1     0   0   0   1   1   0   0   0/' "$H/netarbiter-eth4.mlnx_qos" >"$work/pfc34.qos"
qos_run "$work/good" "$work/pfc34.qos"
if [ $rc -eq 0 ] && grep -q "^WARNING: pfc: mlx5_0 port 1 (ens3np0): PFC is on priority 4 as well as on 3: unless that is another lossless class" "$work/out"; then
    ok "PFC on a second priority: a warning, exit 0"
else
    not_ok "PFC on a second priority"; diag "exit $rc" "$(cat "$work/out")"
fi
# (helper 74) ports=: a pattern in hca= (or none) cannot tell an adapter
# gone; the count the site gives can (a p5 with 31 of its 32 EFA passed)
qos_run "$work/good" "$H/netarbiter-eth4.mlnx_qos" --ports 2
cp "$work/out" "$work/out2"; rc2=$rc
qos_run "$work/good" "$H/netarbiter-eth4.mlnx_qos" --ports 3
if [ $rc -eq 4 ] && grep -q "^ERROR: ports: node: 2 ACTIVE RDMA ports where the policy's ports= is 3: an adapter is gone" "$work/out" &&
   [ $rc2 -eq 0 ] && grep -q "^health: OK" "$work/out2"; then
    ok "ports=: fewer ACTIVE RDMA ports than the site's count fails; as many passes"
else
    not_ok "ports="; diag "exit $rc" "$(cat "$work/out" "$work/out2")"
fi
# (helper 76) a node of mixed rail models: a model with a port at the rails'
# rate is a rail model, and its port at 200 Gb/s trained down (it was left
# out as another model, the node passing)
cp -r "$work/good" "$work/mixed"
for hca in mlx5_0 mlx5_1; do echo MT4129 >"$work/mixed/class/infiniband/$hca/hca_type"; done
for r in mlx5_2:MT4129:400:NDR mlx5_3:MT4130:400:NDR mlx5_4:MT4130:200:HDR; do
    hca=${r%%:*} rest=${r#*:}; model=${rest%%:*} rest=${rest#*:}; g=${rest%%:*} gen=${rest#*:}
    mlx5_roce_port "$work/mixed/class/infiniband/$hca" "ens${hca#mlx5_}f0np0" "0000:0000:0000:0000:0000:ffff:0a00:090${hca#mlx5_}"
    echo "$g Gb/sec (4X $gen)" >"$work/mixed/class/infiniband/$hca/ports/1/rate"; echo "$model" >"$work/mixed/class/infiniband/$hca/hca_type"
done
"$TOPO" health --qos skip --sysfs-root "$work/mixed" --interval 0 --cloud none >"$work/out" 2>&1
rc=$?
if [ $rc -eq 4 ] && grep -q "^ERROR: rate: mlx5_4 port 1 (ens4f0np0): 200 Gb/sec (4X HDR) where mlx5_0 port 1 runs 400" "$work/out" && ! grep -q "no rail" "$work/out"; then
    ok "a rail of the node's second model that trained down fails rate (not left out as another model)"
else
    not_ok "a trained-down rail of a second model"; diag "exit $rc" "$(cat "$work/out")"
fi
