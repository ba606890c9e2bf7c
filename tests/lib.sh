# Shared helpers for the shell tests: TAP output, temporary directories, cleanup.
# Each test script sources this, calls plan N, then ok/not_ok/skip per check.
: "${ATOLL_SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${ATOLL_BUILDDIR:=$ATOLL_SRCDIR/build}"
TOPO="$ATOLL_BUILDDIR/tools/atoll-topo"
PLACE="$ATOLL_BUILDDIR/tools/atoll-place"
DATA="$ATOLL_SRCDIR/tests/data"
_n=0
_cleanups=
plan() { echo "1..$1"; }
ok() { _n=$((_n + 1)); echo "ok $_n - $1"; }
not_ok() { _n=$((_n + 1)); echo "not ok $_n - $1"; }
skip() { _n=$((_n + 1)); echo "ok $_n - $1 # SKIP $2"; }
diag() { printf '%s\n' "$@" | sed 's/^/# /'; }
# check NAME COMMAND...: ok when the one simple command succeeds. A compound
# condition (a && b, a | b) would be split by the shell around check: write
# "if a && b; then ok NAME; else not_ok NAME; diag ...; fi" instead.
check() {
    _what=$1
    shift
    if "$@"; then ok "$_what"; else not_ok "$_what"; fi
}
at_exit() { _cleanups="$1; $_cleanups"; }
trap 'eval "$_cleanups"' EXIT
trap 'exit 130' INT TERM HUP PIPE
# tmpdir: a fresh directory, removed at exit. Callers write work=$(tmpdir),
# a subshell, so the removal is registered here, for one root per script.
_tmproot=$(mktemp -d "${TMPDIR:-/tmp}/atoll-test.XXXXXX")
chmod 755 "$_tmproot"  # daemons that drop privileges (lldpd) reach their sockets below
at_exit "rm -rf '$_tmproot'"
tmpdir() {
    mktemp -d "$_tmproot/XXXXXX"
}

# sysfs_from_show_gids FILE ROOT: the class/infiniband tree that Mellanox's
# show_gids read, rebuilt from its output (DEV PORT INDEX GID [IPv4] VER DEV,
# tabs or spaces): gids/N, gid_attrs/types/N, gid_attrs/ndevs/N; every port
# Ethernet and ACTIVE
sysfs_from_show_gids() {
    awk -v root="$2" '$1 == "DEV" || $1 ~ /^-/ || $1 ~ /^n_gids/ || NF < 6 { next }
        { d = root "/class/infiniband/" $1 "/ports/" $2
          system("mkdir -p " d "/gids " d "/gid_attrs/types " d "/gid_attrs/ndevs")
          print $4 > (d "/gids/" $3); close(d "/gids/" $3)
          print ($(NF-1) == "v2" ? "RoCE v2" : "IB/RoCE v1") > (d "/gid_attrs/types/" $3); close(d "/gid_attrs/types/" $3)
          print $NF > (d "/gid_attrs/ndevs/" $3); close(d "/gid_attrs/ndevs/" $3)
          print "Ethernet" > (d "/link_layer"); close(d "/link_layer")
          print "4: ACTIVE" > (d "/state"); close(d "/state") }' "$1"
}
