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
# mlx5_roce_port DIR NETDEV GID2 [STATE]: DIR (a class/infiniband/DEV
# directory) as the mlx5 driver fills a RoCE port 1: the MAC's link-local
# GID at 0 (RoCE v1) and 1 (v2), GID2 at 2 (v1) and 3 (v2), all on NETDEV,
# which the device's PCI function holds (device/net); class 106 in its tc file
mlx5_roce_port() {
    mkdir -p "$1/ports/1/gid_attrs/ndevs" "$1/ports/1/gid_attrs/types" "$1/ports/1/gids" "$1/tc/1" "$1/device/net/$2"
    echo Ethernet >"$1/ports/1/link_layer"; echo "${4:-4: ACTIVE}" >"$1/ports/1/state"
    for i in 0 1 2 3; do echo "$2" >"$1/ports/1/gid_attrs/ndevs/$i"; done
    echo "IB/RoCE v1" >"$1/ports/1/gid_attrs/types/0"; echo "RoCE v2" >"$1/ports/1/gid_attrs/types/1"
    echo "IB/RoCE v1" >"$1/ports/1/gid_attrs/types/2"; echo "RoCE v2" >"$1/ports/1/gid_attrs/types/3"
    echo "fe80:0000:0000:0000:0ac0:ebff:feda:1c0a" >"$1/ports/1/gids/0"; cp "$1/ports/1/gids/0" "$1/ports/1/gids/1"
    echo "$3" >"$1/ports/1/gids/2"; cp "$1/ports/1/gids/2" "$1/ports/1/gids/3"
    echo "Global tclass=106" >"$1/tc/1/traffic_class"
}
