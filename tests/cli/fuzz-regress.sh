#!/bin/sh
# Every fuzz target's seeds and every input that once crashed a reader
# (fuzz/regress/TARGET/) through the same harness, built as a plain program
# (and with the sanitizers in a --enable-sanitizers build): no crash, no
# exception that is not an input error.
. "$(dirname "$0")/../lib.sh"
replay="$ATOLL_BUILDDIR/fuzz/atoll-fuzz-replay"
targets="ibnetdiscover namemap fabricjson csv aws gcp oci nebius hostmap lldp view hostlist scontrol trace slurmconf mlnxqos ethtool healthpolicy healthresults ncclconf ofinccl report nvlink ranks squeue procdevices plugstack userconf nodejson"
plan $(echo $targets | wc -w)
for t in $targets; do
    case $t in
    ibnetdiscover) files=$(ls "$DATA"/ibnetdiscover/* "$DATA"/ibnetdiscover-p/* "$DATA"/ibsim/*/ibnetdiscover*.txt) ;;
    csv) files=$(ls "$DATA"/csv/*) ;;
    aws | gcp | oci | nebius) files=$(ls "$DATA"/cloud/*) ;;
    lldp) files=$(find "$DATA/lldp" -type f ! -name '*.py' | sort) ;;
    mlnxqos) files=$(ls "$DATA"/health/*.mlnx_qos "$ATOLL_SRCDIR"/fuzz/seeds/mlnxqos/*) ;;
    ethtool) files=$(ls "$DATA"/health/*.ethtool) ;;
    nvlink) files=$(ls "$DATA"/nvlink/*) ;;
    ncclconf) files=$(ls "$DATA"/cloudenv/*.nccl.conf) ;;
    userconf) files=$(ls "$DATA"/ucx/ucx.conf "$DATA"/cloudenv/*.nccl.conf) ;;
    nodejson) files=$(ls "$DATA"/lldp/rails8/nospeed/*.node.json "$DATA"/lldp/rails8/dgx/*.node.json) ;;
    report) files=$(ls "$DATA"/ibnetdiscover/*.topo "$DATA"/ibnetdiscover/director_mcs8500_hand.txt "$ATOLL_SRCDIR"/fuzz/seeds/report/*) ;;
    *) files=$(ls "$ATOLL_SRCDIR/fuzz/seeds/$t"/*) ;;
    esac
    [ -d "$ATOLL_SRCDIR/fuzz/regress/$t" ] && files="$files $(ls "$ATOLL_SRCDIR/fuzz/regress/$t"/* 2>/dev/null)"
    n=$(echo $files | wc -w)
    # shellcheck disable=SC2086
    timeout 300 "$replay" "$t" $files >"$_tmproot/out" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && ! grep -q -e 'runtime error' -e 'ERROR: AddressSanitizer' "$_tmproot/out"; then
        ok "$t: $n inputs replayed, no crash"
    else
        not_ok "$t: $n inputs replayed, no crash"; diag "exit $rc" "$(head -20 "$_tmproot/out")"
    fi
done
