#!/bin/sh
# atoll-topo outputs against golden files checked by hand once.
# Regenerate after a deliberate change: ATOLL_REGEN=1 make check, then review the diff.
. "$(dirname "$0")/../lib.sh"
golden="$ATOLL_SRCDIR/tests/cli/golden"
cases="fattree-show:show ibsim/fattree_4x8_2s/ibnetdiscover.txt
fattree-tree:slurm ibsim/fattree_4x8_2s/ibnetdiscover.txt
rails-tree:slurm ibsim/fattree_ndr_rails8_8dgx_ibsim012/ibnetdiscover.txt
rails-features:slurm --format features ibsim/fattree_ndr_rails8_8dgx_ibsim012/ibnetdiscover.txt
degraded-check:check ibsim/fattree_dualport_degraded/ibnetdiscover.txt
degraded-dot:dot ibsim/fattree_dualport_degraded/ibnetdiscover.txt
small-check:check ibnetdiscover/ufm_small_topo_mixed_fdr_edr_hdr.txt"
plan "$(printf '%s\n' "$cases" | wc -l)"
work=$(tmpdir)
printf '%s\n' "$cases" | while IFS=: read -r name cmd; do
    set -- $cmd
    last=$#
    eval "file=\${$last}"
    args=$(printf '%s\n' "$cmd" | sed "s|[^ ]*\$||")
    # shellcheck disable=SC2086
    (cd "$DATA" && "$TOPO" $args "$file") >"$work/$name" 2>&1
    if [ -n "${ATOLL_REGEN:-}" ]; then
        cp "$work/$name" "$golden/$name"
    fi
    if cmp -s "$work/$name" "$golden/$name"; then
        ok "$name matches its golden file"
    else
        not_ok "$name matches its golden file"
        diag "$(diff "$golden/$name" "$work/$name" | head -20)"
    fi
done
