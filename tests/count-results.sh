# count_results DIR NAME: add the results of a finished make check in DIR to
# pass, fail and skip; print each failed test's log lines; append the skipped
# tests ("NAME: SCRIPT: test # SKIP reason") to the file $skipped when set.
# Sourced by quickstart and tests/slurm-matrix.sh.
count_results() {
    for _trs in $(find "$1" -name '*.trs'); do
        _p=$(grep -c '^:test-result: PASS' "$_trs" || true)
        _f=$(grep -c -E '^:test-result: (FAIL|XPASS|ERROR)' "$_trs" || true)
        _s=$(grep -c '^:test-result: SKIP' "$_trs" || true)
        pass=$((pass + _p)) fail=$((fail + _f)) skip=$((skip + _s))
        if [ "$_s" -gt 0 ] && [ -n "${skipped:-}" ]; then
            grep -E '^ok .*# SKIP' "${_trs%.trs}.log" | sed "s|^ok [0-9]* - |$2: $(basename "${_trs%.trs}"): |" >>"$skipped"
        fi
        if [ "$_f" -gt 0 ]; then
            echo "---- $2: ${_trs%.trs}.log"
            grep -E '^(not ok|#)' "${_trs%.trs}.log" | head -40 || true
        fi
    done
}
