#!/bin/sh
# atoll-widen's lock: a directory only its owner writes (created 0700), no
# FIFO or symbolic link followed, a held lock an error exit. Slurm is not
# needed: squeue is a stub printing no pending job, so a pass that takes the
# lock does nothing and exits 0. Every run is bounded by timeout(1).
. "$(dirname "$0")/../lib.sh"
plan 17
work=$(tmpdir)
chmod 755 "$work"
widen="$ATOLL_SRCDIR/contrib/atoll-widen"
mkdir -p "$work/bin"
printf '#!/bin/sh\nexit 0\n' >"$work/bin/squeue"
chmod 755 "$work/bin/squeue"
PATH="$work/bin:$PATH"
export PATH

# run NAME LOCK: atoll-widen with ATOLL_WIDEN_LOCK=LOCK, 5 s at most; sets rc
run() {
    ATOLL_WIDEN_LOCK=$1 timeout 5 sh "$widen" >"$work/out" 2>"$work/err"
    rc=$?
}

run "$work/new/widen.lock"
mode=$(stat -c '%a' "$work/new" 2>/dev/null)
if [ $rc -eq 0 ] && [ "$mode" = 700 ] && [ -f "$work/new/widen.lock" ]; then
    ok "a missing lock directory is created 0700 and the pass runs"
else
    not_ok "a missing lock directory is created 0700 and the pass runs"; diag "rc=$rc mode=$mode" "$(cat "$work/err")"
fi

# another atoll-widen (or anything) holding the lock: exit 1, not 0
flock "$work/new/widen.lock" sh -c "ATOLL_WIDEN_LOCK='$work/new/widen.lock' timeout 5 sh '$widen'" >"$work/out" 2>"$work/err"
rc=$?
if [ $rc -eq 1 ] && grep -q "atoll-widen: another atoll-widen holds $work/new/widen.lock; nothing done" "$work/err"; then
    ok "a held lock is an error exit (1), saying who holds what"
else
    not_ok "a held lock is an error exit (1), saying who holds what"; diag "rc=$rc" "$(cat "$work/err")"
fi

# a local user cannot even open the lock to hold it
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
    if setpriv --reuid=65534 --regid=65534 --clear-groups -- timeout 5 flock -s -n "$work/new/widen.lock" true 2>/dev/null; then
        not_ok "another user cannot open the lock to hold a shared flock on it"
    else
        ok "another user cannot open the lock to hold a shared flock on it"
    fi
else
    skip "another user cannot open the lock to hold a shared flock on it" "needs root and setpriv"
fi

# a FIFO where the lock should be: refused at once, no hang
mkdir -m 700 "$work/fifo"
mkfifo "$work/fifo/widen.lock"
run "$work/fifo/widen.lock"
if [ $rc -eq 1 ] && grep -q "is not a regular file" "$work/err"; then
    ok "a FIFO at the lock path is refused with a message, without blocking"
else
    not_ok "a FIFO at the lock path is refused with a message, without blocking"; diag "rc=$rc" "$(cat "$work/err")"
fi

# a symbolic link there: refused, its target never created
mkdir -m 700 "$work/link"
ln -s "$work/created-by-root" "$work/link/widen.lock"
run "$work/link/widen.lock"
if [ $rc -eq 1 ] && grep -q "is not a regular file" "$work/err" && [ ! -e "$work/created-by-root" ]; then
    ok "a symbolic link at the lock path is refused; its target is not created"
else
    not_ok "a symbolic link at the lock path is refused; its target is not created"; diag "rc=$rc" "$(cat "$work/err")"
fi

# the default's old home: a world-writable (sticky) directory such as /run/lock
mkdir -m 1777 "$work/shared"
run "$work/shared/widen.lock"
if [ $rc -eq 1 ] && grep -q "lock directory $work/shared is writable by others than its owner (mode 1777)" "$work/err" &&
   [ ! -e "$work/shared/widen.lock" ]; then
    ok "a lock directory others can write (mode 1777) is refused"
else
    not_ok "a lock directory others can write (mode 1777) is refused"; diag "rc=$rc" "$(cat "$work/err")"
fi

# a lock directory owned by another user, or a symbolic link to one
mkdir -m 700 "$work/theirs"
chown 65534 "$work/theirs" 2>/dev/null
ln -s "$work/new" "$work/dirlink"
run "$work/theirs/widen.lock"
rc1=$rc
cp "$work/err" "$work/err1"
run "$work/dirlink/widen.lock"
if { [ "$(id -u)" -ne 0 ] || { [ $rc1 -eq 1 ] && grep -q "belongs to uid 65534, not to uid 0" "$work/err1"; }; } &&
   [ $rc -eq 1 ] && grep -q "is not a directory (or is a symbolic link)" "$work/err"; then
    ok "a lock directory of another owner, or a symbolic link to a directory, is refused"
else
    not_ok "a lock directory of another owner, or a symbolic link to a directory, is refused"; diag "rc=$rc1 $rc" "$(cat "$work/err1" "$work/err")"
fi

# the default path is in a root-only directory, not /run/lock
if grep -q '^lock=${ATOLL_WIDEN_LOCK:-/run/atoll/atoll-widen.lock}$' "$widen"; then
    ok "the default lock is /run/atoll/atoll-widen.lock"
else
    not_ok "the default lock is /run/atoll/atoll-widen.lock"
fi

# the installed script knows its release (configure's PACKAGE_VERSION, as the other tools print)
built="$ATOLL_BUILDDIR/contrib/gen/atoll-widen"
want=$("$TOPO" --version | sed 's/^atoll-topo //')
got=$(timeout 5 sh "$built" --version 2>&1)
if [ -n "$want" ] && [ "$got" = "atoll-widen (atoll) $want" ]; then
    ok "atoll-widen --version prints the configured release"
else
    not_ok "atoll-widen --version prints the configured release"; diag "got '$got', atoll-topo says '$want'"
fi
# squeue as Slurm's prints -O "NAME:WIDTHSUFFIX,...": each field cut and
# padded to WIDTH, whole for 0 (src/squeue/print.c _print_str), then its suffix; the
# jobs' JobID, feature and admin_comment from $work/rows, tab-separated
cat >"$work/squeue-O" <<'SQ'
#!/bin/sh
spec=
while [ $# -gt 0 ]; do case "$1" in -O) spec=$2; shift 2 ;; -O*) spec=${1#-O}; shift ;; *) shift ;; esac; done
exec awk -F '\t' -v spec="$spec" '{
    n = split(spec, t, ",")
    for (k = 1; k <= n; k++) {
        c = index(t[k], ":"); name = tolower(substr(t[k], 1, c - 1)); rest = substr(t[k], c + 1)
        match(rest, /^[0-9]+/); w = substr(rest, 1, RLENGTH); sfx = substr(rest, RLENGTH + 1)
        v = name == "jobid" ? $1 : name == "feature" ? $2 : name == "admin_comment" ? $3 : "?"
        printf("%-" w "s%s", w > 0 ? substr(v, 1, w) : v, sfx)
    }
    printf("\n")
}' "$(dirname "$0")/../rows"
SQ
# (helper 38) a deadline test(1) cannot compare (a mark of 23 digits) is
# skipped without a shell error each pass; --every without a value is the
# tool's own usage error
mkdir -p "$work/big"
printf '104\t[leaf1|leaf2]\tatoll-widen 99999999999999999999999 [leaf1|leaf2] [pod1]\n' >"$work/rows"
cp "$work/squeue-O" "$work/bin/squeue"
printf '#!/bin/sh\necho scontrol "$@" >>"%s/big/calls"\n' "$work" >"$work/bin/scontrol"
chmod 755 "$work/bin/squeue" "$work/bin/scontrol"
mkdir -m 700 "$work/big/l"
ATOLL_WIDEN_LOCK="$work/big/l/widen.lock" timeout 5 sh "$widen" >"$work/out" 2>"$work/err"
rc=$?
timeout 5 sh "$widen" --every >/dev/null 2>"$work/err2"
rc2=$?
check "a 23-digit deadline is skipped quietly; --every with no value is exit 2 naming it" sh -c '
    [ "$1" = 0 ] && [ ! -s "$2" ] && [ ! -e "$3" ] && [ "$4" = 2 ] && grep -q "^atoll-widen: --every: no value" "$5"' _ \
    "$rc" "$work/err" "$work/big/calls" "$rc2" "$work/err2"
# (helper 38) a throttled array listed as ID_[1-8%2] (squeue's JobArrayID
# form) was skipped, its tasks held to their island for ever: updated as
# ID_[1-8], the form scontrol update takes (its _is_job_id() refuses '%')
mkdir -p "$work/arr"
printf '123_[1-8%%2]\t(null)\tatoll-widen 1 -\n' >"$work/rows"
printf '#!/bin/sh\necho scontrol "$@" >>"%s/arr/calls"\n' "$work" >"$work/bin/scontrol"
mkdir -m 700 "$work/arr/l"
ATOLL_WIDEN_LOCK="$work/arr/l/widen.lock" timeout 5 sh "$widen" >"$work/out" 2>"$work/err"
check "a throttled array's tasks (ID_[1-8%2]) are widened as ID_[1-8]" sh -c '
    [ "$(cat "$1")" = "scontrol update JobId=123_[1-8] Features= AdminComment=" ]' _ "$work/arr/calls"
# The mark names the islands held and the wider ones; atoll-widen swaps
# them in the job's features as they are then, so a change the user made
# while the job waited stands (2026-12-06: the features of submit time were
# written back). A job no longer holding the islands only loses the mark;
# the older whole-features mark still widens. One pass, one call per job.
mkdir -p "$work/user" && mkdir -m 700 "$work/user/l"
printf '#!/bin/sh\nprintf "%%s\\n" "scontrol $*" >>"%s/user/calls"\n' "$work" >"$work/bin/scontrol"
{
    printf '201\tgpu80g&[d1|d2]&ib\tatoll-widen 1 [d1|d2] [pod1|pod2]\n'
    printf '202\tbigmem\tatoll-widen 1 [d1|d2] [pod1|pod2]\n'
    printf '203\t[g1|g2]&(a|b)\tatoll-widen 1 [g1|g2] -\n'
    printf '204\t[g1|g2]\tatoll-widen 1 [pod1]\n'
    printf '205\t[d1|d2]\tatoll-widen 9999999999 [d1|d2] [pod1]\n'
    printf '206\t(null)\tatoll-widen 1 [d1|d2] -\n'
} >"$work/rows"
ATOLL_WIDEN_LOCK="$work/user/l/widen.lock" timeout 5 sh "$widen" >"$work/out" 2>"$work/err"
cat >"$work/user/want" <<'EOF2'
scontrol update JobId=201 Features=gpu80g&[pod1|pod2]&ib AdminComment=
scontrol update JobId=202 AdminComment=
scontrol update JobId=203 Features=(a|b) AdminComment=
scontrol update JobId=204 Features=[pod1] AdminComment=
scontrol update JobId=206 AdminComment=
EOF2
check "atoll-widen swaps the islands in the features as they are now; islands taken out: only the mark cleared" \
    cmp "$work/user/want" "$work/user/calls"
check "atoll-widen says when a job no longer holds its islands" \
    grep -q '^atoll-widen: job 202 no longer holds \[d1|d2\] in its features ("bigmem"); mark cleared' "$work/out"
# (helper 44) islands to be dropped (WIDER -) that the user wrote into
# another operator: dropping them left "gpu|", "(x&)" or "*2", which Slurm
# refuses, and the job stayed held, "scontrol update failed" every pass.
# The user's features stand, the mark goes. Messages print features as
# they are (dash's echo read "\c" and "\n" in them).
: >"$work/user/calls"
{
    printf '301\tgpu|[g1|g2]\tatoll-widen 1 [g1|g2] -\n'
    printf '302\t(x&[g1|g2])\tatoll-widen 1 [g1|g2] -\n'
    printf '303\t[g1|g2]*2\tatoll-widen 1 [g1|g2] -\n'
    printf '304\t[g1|g2]*2\tatoll-widen 1 [g1|g2] [pod1]\n'
    printf '305\tq\\c&[g1|g2]\tatoll-widen 1 [g1|g2] -\n'
} >"$work/rows"
ATOLL_WIDEN_LOCK="$work/user/l/widen.lock" timeout 5 sh "$widen" >"$work/out" 2>"$work/err"
cat >"$work/user/want" <<'EOF2'
scontrol update JobId=301 AdminComment=
scontrol update JobId=302 AdminComment=
scontrol update JobId=303 AdminComment=
scontrol update JobId=304 Features=[pod1]*2 AdminComment=
scontrol update JobId=305 Features=q\c AdminComment=
EOF2
check "islands inside another operator are left to the user's expression (mark cleared); a bracket for a bracket is swapped" \
    cmp "$work/user/want" "$work/user/calls"
check "atoll-widen prints features as they are (a backslash too)" sh -c '
    grep -q "^atoll-widen: job 301 holds \[g1|g2\] inside an expression it cannot be dropped from (\"gpu|\[g1|g2\]\")" "$1" &&
    grep -qF "atoll-widen: job 305 waited past its island deadline; features now \"q\\c\"" "$1"' _ "$work/out"
# (helper 44) a lock file that cannot be opened: the tool's message and
# exit 1, not the shell's "cannot create" and exit 2
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
    mkdir -p "$work/ro" && chown 65534 "$work/ro" && chmod 500 "$work/ro"
    setpriv --reuid=65534 --regid=65534 --clear-groups -- env ATOLL_WIDEN_LOCK="$work/ro/l" timeout 5 sh "$widen" \
        >"$work/out" 2>"$work/err"
    rc=$?
    check "a lock file that cannot be created: exit 1 with atoll-widen's own message" sh -c '
        [ "$1" = 1 ] && grep -q "^atoll-widen: cannot open the lock file .*/ro/l; nothing done" "$2" && ! grep -q "cannot create" "$2"' \
        _ "$rc" "$work/err"
else
    skip "a lock file that cannot be created: exit 1 with atoll-widen's own message" "needs root and setpriv"
fi
# (helper 41) an --every test(1) cannot compare: exit 2 at once, not one
# pass and a sleep for ever
timeout 5 sh "$widen" --every 99999999999999999999999 >/dev/null 2>"$work/err3"
check "--every of 23 digits: exit 2 naming it" sh -c '[ "$1" = 2 ] && grep -q "^atoll-widen: --every: .*at most 9 digits" "$2"' _ "$?" "$work/err3"
