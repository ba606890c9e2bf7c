#!/bin/sh
# The Slurm release matrix: build atoll and run its tests against the Slurm of
# another Debian release, in a chroot made with debootstrap from the mirror apt
# already uses. Run as root on a Debian host.
#
#   tests/slurm-matrix.sh setup SUITE     make (or reuse) the chroot of SUITE
#   tests/slurm-matrix.sh run SUITE       setup, then copy this tree in, build it
#                                         (Catch2 of that release), make check there
#   tests/slurm-matrix.sh build SUITE     setup, copy this tree in and build it (/build/atoll/b)
#   tests/slurm-matrix.sh shell SUITE CMD run CMD in the prepared chroot
#
# SUITE: trixie (Slurm 24.11) or forky (Slurm 26.05); the host (bookworm) has 22.05
# (a bookworm chroot, for tests/integration/packages.sh: a clean root to install into).
# Chroots live in ATOLL_CHROOTS (default /var/cache/atoll/chroots), one per
# suite, kept between runs; one whose setup did not finish (no .atoll-ready
# holding this script's package list) is made again.
#
# What a chroot needs to look like a host: / a mount point (ip netns exec
# remounts /sys), proc, sys, dev, dev/pts and the cgroup filesystem bound, the
# host name resolvable (slurmctld looks up the submit host at every job end),
# no service started by a package's install (policy-rc.d).
#
# run prints the failed tests' logs, "skipped: SUITE: SCRIPT: TEST # SKIP REASON" lines and
#   matrix SUITE slurm VERSION: N passed, N failed, N skipped
# and exits non-zero when a test failed or nothing ran.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
what=${1:-}
suite=${2:-}
root_dir=${ATOLL_CHROOTS:-/var/cache/atoll/chroots}

packages="build-essential autoconf automake libtool pkg-config ca-certificates
 libslurm-dev libhwloc-dev libibnetdisc-dev libibmad-dev libibumad-dev
 libboost-graph-dev nlohmann-json3-dev catch2
 infiniband-diags ibsim-utils opensm slurmctld slurmd slurm-client munge lldpd iproute2
 procps psmisc util-linux debhelper rpm"
# (debhelper and rpm: tests/integration/packages.sh builds the packages in these chroots)

die() { echo "slurm-matrix: $*" >&2; exit 1; }

case "$suite" in
bookworm | trixie | forky) ;;
*) die "SUITE must be trixie (Slurm 24.11), forky (Slurm 26.05) or bookworm (22.05), not '$suite'" ;;
esac
[ "$(id -u)" -eq 0 ] || die "must run as root (debootstrap, chroot, mounts)"

dir=$root_dir/$suite
ready=$dir/.atoll-ready
stamp=$(printf '%s\n' "$suite" $packages | cksum | cut -d' ' -f1)

mirror() {
    m=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
    [ -n "$m" ] || m=$(awk '$1 == "deb" { print $2; exit }' /etc/apt/sources.list 2>/dev/null || true)
    echo "${m:-http://deb.debian.org/debian}"
}

# mounted PATH: PATH is a mount point
mounted() { awk -v p="$1" '$2 == p { f = 1 } END { exit !f }' /proc/mounts; }

mount_all() {
    mounted "$dir" || mount --bind "$dir" "$dir"
    for m in proc sys dev dev/pts; do
        mounted "$dir/$m" || mount --bind "/$m" "$dir/$m"
    done
    if [ -d /sys/fs/cgroup ] && ! mounted "$dir/sys/fs/cgroup"; then
        mount --rbind /sys/fs/cgroup "$dir/sys/fs/cgroup" 2>/dev/null || true
    fi
}

umount_all() {
    # deepest first: everything under the chroot, then the chroot itself
    awk -v p="$dir" '$2 == p || index($2, p "/") == 1 { print $2 }' /proc/mounts | sort -r |
        while read -r m; do umount -l "$m" 2>/dev/null || true; done
}

in_chroot() {
    chroot "$dir" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
        PATH=/usr/sbin:/usr/bin:/sbin:/bin sh -c "$1"
}

setup() {
    if [ -f "$ready" ] && [ "$(cat "$ready")" = "$stamp" ]; then
        return 0
    fi
    command -v debootstrap >/dev/null || {
        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends debootstrap >/dev/null 2>&1 ||
            { apt-get update >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends debootstrap >/dev/null; }
    }
    umount_all
    rm -rf "$dir"
    mkdir -p "$root_dir"
    m=$(mirror)
    script=/usr/share/debootstrap/scripts/$suite
    [ -e "$script" ] || script=/usr/share/debootstrap/scripts/sid
    echo "slurm-matrix: debootstrap $suite from $m into $dir"
    debootstrap --variant=minbase --keyring=/usr/share/keyrings/debian-archive-keyring.gpg \
        "$suite" "$dir" "$m" "$script" >"$root_dir/$suite.debootstrap.log" 2>&1 ||
        die "debootstrap $suite failed (log: $root_dir/$suite.debootstrap.log)"
    printf '#!/bin/sh\nexit 101\n' >"$dir/usr/sbin/policy-rc.d"
    chmod 755 "$dir/usr/sbin/policy-rc.d"
    # a suite still in development (forky) may carry an expired Release date on the mirror
    echo 'Acquire::Check-Valid-Until "false";' >"$dir/etc/apt/apt.conf.d/99atoll-matrix"
    mount_all
    trap umount_all EXIT
    echo "slurm-matrix: installing Slurm and the build dependencies in $suite"
    # shellcheck disable=SC2086
    in_chroot "export DEBIAN_FRONTEND=noninteractive; apt-get update && apt-get install -y --no-install-recommends $(echo $packages)" \
        >"$root_dir/$suite.apt.log" 2>&1 || die "apt-get in $suite failed (log: $root_dir/$suite.apt.log)"
    umount_all
    trap - EXIT
    echo "$stamp" >"$ready"
}

# the host's name (and localhost) resolvable inside, as slurmctld needs
hosts() {
    h=$(hostname)
    grep -q "[[:space:]]$h\$" "$dir/etc/hosts" 2>/dev/null || echo "127.0.1.1 $h" >>"$dir/etc/hosts"
    grep -q localhost "$dir/etc/hosts" || echo "127.0.0.1 localhost" >>"$dir/etc/hosts"
}

# build: copy this tree into the chroot (/build/atoll) and build it there (b/)
build() {
    # this tree as a clean copy (what git tracks, plus uncommitted changes to tracked files)
    rm -rf "$dir/build/atoll"
    mkdir -p "$dir/build/atoll"
    if [ -d "$here/.git" ] && command -v git >/dev/null; then
        (cd "$here" && git ls-files -z --cached --others --exclude-standard | xargs -0 tar cf - 2>/dev/null) |
            tar xf - -C "$dir/build/atoll"
    else
        (cd "$here" && tar cf - --exclude=./build --exclude=./build-asan --exclude=./fuzz-build .) | tar xf - -C "$dir/build/atoll"
    fi
    version=$(in_chroot "dpkg-query -W -f='\${Version}' slurmctld" 2>/dev/null | sed 's/-[^-]*$//')
    echo "slurm-matrix: $suite, Slurm $version: building"
    status=0
    # -O1: what is tested here is the build and the tests against this release's
    # Slurm, Catch2 and compiler, not the optimiser (the host build and the
    # packages are -O2); a third less compile time
    in_chroot "cd /build/atoll && autoreconf -fi >/dev/null 2>&1 && mkdir -p b && cd b &&
        ../configure -q CFLAGS='-g -O1' CXXFLAGS='-g -O1' && make -s -j\$(nproc) >build.log 2>&1" || status=$?
    log=$dir/build/atoll/b
    if [ "$status" -ne 0 ]; then
        tail -30 "$log/build.log" 2>/dev/null || true
        echo "matrix $suite slurm $version: 0 passed, 1 failed, 0 skipped (the build failed)"
        return 1
    fi
}

run() {
    setup
    mount_all
    trap umount_all EXIT
    hosts
    build || return 1
    in_chroot "cd /build/atoll/b && make -s -j\$(nproc) check ${ATOLL_MATRIX_TESTS:+TESTS='$ATOLL_MATRIX_TESTS'} >check-output.log 2>&1" || status=$?
    pass=0 fail=0 skip=0
    if ! grep -q 'S\["HAVE_CATCH2_TRUE"\]=""' "$log/config.status" 2>/dev/null; then
        echo "skipped: $suite: the Catch2 unit tests (configure found no Catch2)"
        skip=1
    fi
    skipped=$(mktemp)
    . "$here/tests/count-results.sh"
    count_results "$log" "$suite"
    sed 's/^/skipped: /' "$skipped"
    rm -f "$skipped"
    if [ "$status" -ne 0 ] && [ "$fail" -eq 0 ]; then
        tail -30 "$log/check-output.log" || true
        fail=1
    fi
    echo "matrix $suite slurm $version: $pass passed, $fail failed, $skip skipped"
    [ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
}

case "$what" in
setup) setup ;;
run) run ;;
build)
    setup
    mount_all
    trap umount_all EXIT
    hosts
    build
    ;;
shell)
    setup
    mount_all
    trap umount_all EXIT
    hosts
    in_chroot "${3:-sh}"
    ;;
*) die "usage: slurm-matrix.sh setup|run|build|shell SUITE [CMD]" ;;
esac
