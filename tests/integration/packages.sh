#!/bin/sh
# The packages, end to end, for one Slurm release of the matrix: build the .deb
# in the chroot of SUITE (tests/slurm-matrix.sh: bookworm 22.05, trixie 24.11,
# forky 26.05) with `make deb`, remove the build tree, install the package with
# apt, enable its plugstack line and run jobs on a loopback Slurm
# (tests/slurm-cluster.sh) from the installed files only: /usr/share/atoll's
# Lua hooks unchanged, /etc/atoll's view and table, the installed plugstack
# line, as a user who is not root. On bookworm the rpm is built too
# (`make rpm`, Debian's rpm package) and its file list checked.
#
#   tests/integration/packages.sh SUITE     (root; not part of make check)
#   ATOLL_PACKAGES_DEB=FILE: install FILE instead of building; ATOLL_PACKAGES_RPM=no: no rpm
#
# TAP on stdout, then "packages SUITE slurm VERSION: N passed, N failed, N skipped".
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
suite=${1:-}
matrix=$here/tests/slurm-matrix.sh
root_dir=${ATOLL_CHROOTS:-/var/cache/atoll/chroots}
dir=$root_dir/$suite
pass=0 fail=0 skip=0 n=0
ok() { n=$((n + 1)) pass=$((pass + 1)); echo "ok $n - $suite: $1"; }
not_ok() { n=$((n + 1)) fail=$((fail + 1)); echo "not ok $n - $suite: $1"; }
skip() { n=$((n + 1)) skip=$((skip + 1)); echo "ok $n - $suite: $1 # SKIP $2"; echo "skipped: $suite: packages.sh: $1 # SKIP $2" >&2; }
diag() { printf '%s\n' "$@" | sed 's/^/# /'; }
in_chroot() { "$matrix" shell "$suite" "$1"; }
version=unknown
finish() {
    echo "packages $suite slurm $version: $pass passed, $fail failed, $skip skipped"
    [ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
    exit $?
}

case "$suite" in bookworm | trixie | forky) ;; *) echo "usage: packages.sh bookworm|trixie|forky" >&2; exit 2 ;; esac
"$matrix" setup "$suite" >&2 || { not_ok "the chroot"; finish; }
version=$(in_chroot "dpkg-query -W -f='\${Version}' slurmctld" 2>/dev/null | sed 's/-[^-]*$//')

# the tree as git has it (tracked files and uncommitted changes), nothing built
src=/build/atoll-pkg
copy_tree() {
    rm -rf "$dir$src"
    mkdir -p "$dir$src"
    (cd "$here" && git ls-files -z --cached --others --exclude-standard | xargs -0 tar cf - 2>/dev/null) | tar xf - -C "$dir$src"
}
rm -rf "$dir$src" "$dir/tmp/atoll-pkg"
mkdir -p "$dir/tmp/atoll-pkg"
in_chroot "export DEBIAN_FRONTEND=noninteractive; apt-get install -y --no-install-recommends debhelper rpm >/dev/null 2>&1 ||
    { apt-get update >/dev/null && apt-get install -y --no-install-recommends debhelper rpm >/dev/null; }" >&2

# make deb: dpkg-buildpackage against the chroot's libslurm-dev (ATOLL_PACKAGES_DEB=FILE:
# install that .deb instead, e.g. to run the rest again)
if [ -n "${ATOLL_PACKAGES_DEB:-}" ] && deb=$ATOLL_PACKAGES_DEB && [ -f "$deb" ]; then
    ok "the given $(basename "$deb") (not built here)"
elif copy_tree && in_chroot "cd $src && autoreconf -fi >/dev/null 2>&1 && ./configure -q >/dev/null && make deb" >"$dir/tmp/atoll-pkg/deb.log" 2>&1 &&
        deb=$(ls "$dir$src"/atoll_*.deb 2>/dev/null | head -1) && [ -n "$deb" ]; then
    ok "make deb built $(basename "$deb")"
else
    not_ok "make deb"; tail -30 "$dir/tmp/atoll-pkg/deb.log" | diag
    finish
fi
cp "$deb" "$dir/tmp/atoll-pkg/"
deb=/tmp/atoll-pkg/$(basename "$deb")
release=$(echo "$version" | cut -d. -f1,2)
deps=$(in_chroot "dpkg-deb -f $deb Depends")
next=$(echo "$release" | awk -F. '{ printf "%d.%02d", $1, $2 + 1 }')
case "$deps" in
*"slurm-wlm-basic-plugins (>= $release)"*"slurm-wlm-basic-plugins (<< $next~)"*) ok "the package depends on Slurm $release only" ;;
*) not_ok "the package depends on Slurm $release only"; diag "Depends: $deps" ;;
esac

# no build tree from here on: it waits outside the chroot for the rpm
aside=$root_dir/.$suite-atoll-pkg
rm -rf "$aside"
[ -d "$dir$src" ] && mv "$dir$src" "$aside"

if in_chroot "export DEBIAN_FRONTEND=noninteractive; dpkg --purge atoll >/dev/null 2>&1; rm -rf /etc/atoll;
        apt-get install -y --no-install-recommends $deb" >"$dir/tmp/atoll-pkg/install.log" 2>&1; then
    ok "apt-get install ./$(basename "$deb")"
else
    not_ok "apt-get install ./$(basename "$deb")"; tail -20 "$dir/tmp/atoll-pkg/install.log" | diag
    finish
fi
files=$(in_chroot "dpkg -L atoll")
plugindir=/usr/lib/$(in_chroot "dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch")/slurm-wlm
missing=
for f in "$plugindir/atoll.so" "$plugindir/atoll-hwloc.so" /usr/bin/atoll-place /usr/sbin/atoll-topo /usr/sbin/atoll-widen \
        /usr/share/atoll/job_submit.lua /usr/share/atoll/cli_filter.lua /usr/share/man/man8/atoll.8.gz \
        /usr/share/man/man8/atoll-topo.8.gz /usr/share/man/man1/atoll-place.1.gz /etc/slurm/plugstack.conf.d/atoll.conf /etc/atoll; do
    echo "$files" | grep -qx "$f" || missing="$missing $f"
done
if [ -z "$missing" ] && ! echo "$files" | grep -q '\.la$'; then ok "the package holds the plugin in Slurm's PluginDir, the tools, hooks and man pages, no .la"
else not_ok "the package's files"; diag "missing:$missing" "$files"; fi
if in_chroot "dpkg-query -W -f='\${Conffiles}' atoll" | grep -q '/etc/slurm/plugstack.conf.d/atoll.conf'; then
    ok "plugstack.conf.d/atoll.conf is a conffile"
else not_ok "plugstack.conf.d/atoll.conf is a conffile"; fi
line=$(grep -v '^# ' "$dir/etc/slurm/plugstack.conf.d/atoll.conf" | grep 'atoll\.so')
if [ "$line" = "#optional $plugindir/atoll.so fabric=/etc/atoll/fabric.view default_island=none" ]; then
    ok "the installed line is commented out and names the installed paths"
else not_ok "the installed plugstack line"; diag "$line"; fi
# nothing installed names the build tree or a placeholder
# (a placeholder in text files only: a binary's bytes can spell @H@ by chance)
leaks=$(in_chroot "dpkg -L atoll | while read -r f; do [ -f \"\$f\" ] || continue
    pat='/build/atoll-pkg|@[a-zA-Z_]+@'; [ \"\$(head -c4 \"\$f\" | od -An -c | tr -d ' ')\" = '177ELF' ] && pat='/build/atoll-pkg'
    case \"\$f\" in *.gz) zcat \"\$f\";; *) cat \"\$f\";; esac | grep -aqE \"\$pat\" && echo \"\$f\"; done")
if [ -z "$leaks" ]; then ok "no installed file names the build tree or an unsubstituted @name@"
else not_ok "installed files name the build tree or a placeholder"; diag "$leaks"; fi

# the admin's steps from the README, with the installed tools, then jobs as a user
cp "$here/tests/slurm-cluster.sh" "$dir/tmp/atoll-pkg/"
cat >"$dir/tmp/atoll-pkg/run.sh" <<'EOF'
set -eu
export TOPO=/usr/sbin/atoll-topo
. /tmp/atoll-pkg/slurm-cluster.sh
atoll-topo generate --pods 2 --groups 2 --rails 2 --hosts 2 --format json -o /etc/atoll/fabric.json
atoll-topo slurm --format view /etc/atoll/fabric.json -o /etc/atoll/fabric.view
atoll-topo slurm --format requests /etc/atoll/fabric.json -o /etc/atoll/atoll-requests.conf
chmod 644 /etc/atoll/fabric.json /etc/atoll/fabric.view /etc/atoll/atoll-requests.conf
sed -i 's|^#optional|optional|' /etc/slurm/plugstack.conf.d/atoll.conf
id atolluser >/dev/null 2>&1 || useradd -M -d /nonexistent -s /bin/sh atolluser
c=/tmp/atoll-pkg/c
mkdir -p $c && chmod 755 $c
CLUSTER_INSTALLED=/usr/share/atoll cluster_up $c /etc/atoll/fabric.json /etc/slurm/plugstack.conf ""
trap cluster_down EXIT
chmod -R a+rX $c
as_user() { su -s /bin/sh atolluser -c "cd /tmp && SLURM_CONF=$SLURM_CONF $1"; }
# the leaf islands as Slurm has them: each SwitchName line of topology.conf that lists nodes
echo "== leaves"
sed -n 's/^SwitchName=\([^ ]*\) Nodes=\([^ ]*\).*/\1 \2/p' $c/topology.conf | while read -r name hl; do
    for h in $(scontrol show hostnames "$hl"); do echo "$name $h"; done
done
printf '#!/bin/sh\necho "node=$SLURMD_NODENAME leaves=${ATOLL_LEAVES:-}"\n' >/tmp/atoll-pkg/task.sh
chmod 755 /tmp/atoll-pkg/task.sh
echo "== srun"; as_user "timeout 60 srun -N2 --fabric-island=leaf /tmp/atoll-pkg/task.sh" 2>$c/srun.err || true
echo "== srun.err"; cat $c/srun.err
jid=$(as_user "sbatch -H -o /dev/null -N2 --fabric-island=leaf --wrap true" | awk '{print $4}')
echo "== job"; scontrol show job "$jid" | tr ' ' '\n' | grep -E '^(Features|UserId)='
scancel "$jid" || true
EOF
out=$(in_chroot "sh /tmp/atoll-pkg/run.sh" 2>&1)
section() { echo "$out" | awk -v s="== $1" '$0 == s { f = 1; next } /^== / { f = 0 } f'; }
ran=$(section srun | sort)
n1=$(echo "$ran" | sed -n '1s/^node=\([^ ]*\) .*/\1/p') n2=$(echo "$ran" | sed -n '2s/^node=\([^ ]*\) .*/\1/p')
l1=$(section leaves | awk -v h="$n1" '$2 == h { print $1 }') l2=$(section leaves | awk -v h="$n2" '$2 == h { print $1 }')
got=$(echo "$ran" | sed 's/.* leaves=//' | sort -u)
if [ "$(echo "$ran" | wc -l)" -eq 2 ] && [ -n "$n1" ] && [ "$n1" != "$n2" ] && [ -n "$l1" ] && [ "$l1" = "$l2" ] && [ "$got" = "$l1" ]; then
    ok "a user's srun -N2 --fabric-island=leaf ran in one leaf of topology.conf ($l1), ATOLL_LEAVES=$got from the installed plugin"
else
    not_ok "a user's srun -N2 --fabric-island=leaf in one leaf, ATOLL_LEAVES set"; diag "$n1 in $l1, $n2 in $l2, ATOLL_LEAVES: $got" "$out"
fi
job=$(section job)
feat=$(echo "$job" | sed -n 's/^Features=//p')
case "$feat" in
"["*"|"*"]")
    uid=$(echo "$job" | sed -n 's/^UserId=//p')
    case "$uid" in atolluser*) ok "the installed job_submit.lua constrained a user's batch job: Features=$feat" ;;
    *) not_ok "the batch job ran as the user"; diag "$job" ;; esac ;;
*) not_ok "the installed job_submit.lua constrained the batch job"; diag "$job" "$out" ;;
esac
# make rpm (bookworm: one rpm build is enough to check the spec; ATOLL_PACKAGES_RPM=no leaves it out)
if [ "$suite" = bookworm ] && [ "${ATOLL_PACKAGES_RPM:-yes}" != no ]; then
    if [ -d "$aside" ]; then mv "$aside" "$dir$src"; else copy_tree; in_chroot "cd $src && autoreconf -fi >/dev/null 2>&1 && ./configure -q" >&2; fi
    # at -O0 (optflags): this rpm, built on Debian, checks the spec and its file
    # list and is never shipped; the debs above are built as shipped
    if in_chroot "cd $src && make rpm RPMBUILD_FLAGS='--nodeps --define \"optflags -O0\"'" >"$dir/tmp/atoll-pkg/rpm.log" 2>&1 &&
            rpm=$(ls "$dir$src"/rpm/RPMS/*/atoll-*.rpm 2>/dev/null | head -1) && [ -n "$rpm" ]; then
        rpm=${rpm#"$dir"}
        in_chroot "rpm -qlp $rpm 2>/dev/null" | sort >"$dir/tmp/atoll-pkg/rpm.files"
        want="/etc/atoll /etc/slurm/plugstack.conf.d/atoll.conf /usr/bin/atoll-place /usr/sbin/atoll-topo
/usr/sbin/atoll-widen /usr/share/atoll/cli_filter.lua /usr/share/atoll/job_submit.lua"
        missing=
        for f in $want; do grep -qx "$f" "$dir/tmp/atoll-pkg/rpm.files" || missing="$missing $f"; done
        grep -q '/slurm/atoll\.so$' "$dir/tmp/atoll-pkg/rpm.files" || missing="$missing .../slurm/atoll.so"
        grep -q '/man8/atoll\.8' "$dir/tmp/atoll-pkg/rpm.files" || missing="$missing atoll.8"
        if [ -z "$missing" ] && ! grep -q '\.la$' "$dir/tmp/atoll-pkg/rpm.files"; then
            ok "make rpm: plugin, tools, Lua hooks, atoll-widen, man pages, the plugstack line, no .la"
        else
            not_ok "make rpm file list"; diag "missing:$missing"; diag "$(cat "$dir/tmp/atoll-pkg/rpm.files")"
        fi
        reqs=$(in_chroot "rpm -qp --requires $rpm 2>/dev/null")
        case "$reqs" in
        *"slurm >= $release"*"slurm < $next"*) ok "the rpm requires Slurm $release only" ;;
        *) not_ok "the rpm requires Slurm $release only"; diag "$reqs" ;;
        esac
        conf=$(in_chroot "rpm -qcp $rpm 2>/dev/null")
        case "$conf" in
        */etc/slurm/plugstack.conf.d/atoll.conf*) ok "the rpm's plugstack line is a config file" ;;
        *) not_ok "the rpm's plugstack line is a config file"; diag "$conf" ;;
        esac
    else
        not_ok "make rpm"; tail -30 "$dir/tmp/atoll-pkg/rpm.log" | diag
    fi
fi

rm -rf "${dir:?}$src" "$aside"
in_chroot "dpkg --purge atoll >/dev/null 2>&1; rm -rf /etc/atoll" >/dev/null 2>&1 || true  # /tmp/atoll-pkg/c (the logs) stays until the next run
finish
