#!/bin/sh
# atoll-widen's lock: a directory only its owner writes (created 0700), no
# FIFO or symbolic link followed, a held lock an error exit. Slurm is not
# needed: squeue is a stub printing no pending job, so a pass that takes the
# lock does nothing and exits 0. Every run is bounded by timeout(1).
. "$(dirname "$0")/../lib.sh"
plan 12
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
# (helper 38) a deadline test(1) cannot compare (a mark of 23 digits) is
# skipped without a shell error each pass; --every without a value is the
# tool's own usage error
mkdir -p "$work/big"
printf '#!/bin/sh\necho "104|atoll-widen 99999999999999999999999 leaf1"\n' >"$work/bin/squeue"
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
printf '#!/bin/sh\necho "123_[1-8%%2]|atoll-widen 1 -"\n' >"$work/bin/squeue"
printf '#!/bin/sh\necho scontrol "$@" >>"%s/arr/calls"\n' "$work" >"$work/bin/scontrol"
mkdir -m 700 "$work/arr/l"
ATOLL_WIDEN_LOCK="$work/arr/l/widen.lock" timeout 5 sh "$widen" >"$work/out" 2>"$work/err"
check "a throttled array's tasks (ID_[1-8%2]) are widened as ID_[1-8]" sh -c '
    [ "$(cat "$1")" = "scontrol update JobId=123_[1-8] Features= AdminComment=" ]' _ "$work/arr/calls"
# (helper 41) an --every test(1) cannot compare: exit 2 at once, not one
# pass and a sleep for ever
timeout 5 sh "$widen" --every 99999999999999999999999 >/dev/null 2>"$work/err3"
check "--every of 23 digits: exit 2 naming it" sh -c '[ "$1" = 2 ] && grep -q "^atoll-widen: --every: .*at most 9 digits" "$2"' _ "$?" "$work/err3"
