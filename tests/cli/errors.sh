#!/bin/sh
# Bad input: a clear FILE:LINE error, exit 1, no output written, no crash;
# an existing topology.conf survives a failed run. Usage errors exit 2.
. "$(dirname "$0")/../lib.sh"
plan 37
work=$(tmpdir)
good="$DATA/ibsim/fattree_4x8_2s/ibnetdiscover.txt"

# expect_error NAME INPUT-FILE PATTERN: exit 1, message matching PATTERN, no output file
expect_error() {
    rm -f "$work/out.json"
    "$TOPO" discover "$2" -o "$work/out.json" 2>"$work/err"
    rc=$?
    if [ $rc -eq 1 ] && grep -q -- "$3" "$work/err" && [ ! -e "$work/out.json" ] &&
       [ -z "$(ls "$work" | grep '\.tmp\.')" ]; then
        ok "$1"
    else
        not_ok "$1"
        diag "exit $rc" "$(cat "$work/err")"
    fi
}
# an output cut short after whole lines (a full disk, a capture stopped):
# switches named by cables but never described, or a header with no record
x5="$DATA/ibnetdiscover/hpc_toolset_X5_voltaire_qdr.topofile"
head -n 60 "$x5" >"$work/cut60.txt"
expect_error "an ibnetdiscover output cut after whole lines (switches with no record) is refused, naming the first" \
    "$work/cut60.txt" "cut60.txt:11: found a cable to switch 0x0008f10500108c5c ('Voltaire 4036 # 4036-8C5C'), which has no record of its own (nor have 1 more switches)"
head -n 46 "$x5" >"$work/cut46.txt"
expect_error "an ibnetdiscover output cut after a record's header is refused" \
    "$work/cut46.txt" "cut46.txt:46: found the end of the input after a record's header"
# an InfiniBand router (Rt) joins subnets: never a host, whatever its description
"$TOPO" discover "$DATA/ibnetdiscover/ufm_small_topo_router.txt" -o "$work/rt.json" 2>/dev/null
"$TOPO" slurm "$work/rt.json" -o "$work/rt.conf" 2>/dev/null
if [ -s "$work/rt.conf" ] && ! grep -q 'ib-router01' "$work/rt.conf" && grep -q 'Nodes=r-dcs\[100-101\],r-dcs\[97-99\]$' "$work/rt.conf" &&
   ! "$PLACE" place "$work/rt.json" --nodes 7 2>/dev/null | grep -q router; then
    ok "an InfiniBand router's Rt record is no Slurm node (not in topology.conf, never placed)"
else
    not_ok "an InfiniBand router's Rt record is no Slurm node"; diag "$(cat "$work/rt.conf")"
fi
# two subnets no cable joins, merged: a root each in topology.conf, none
# above them (Slurm then places no job across them), and check says so
"$TOPO" generate --pods 2 --groups 2 --hosts 2 --host-prefix a -o "$work/a.net"
sed 's/b8599f03/c8599f03/g; s/98039b03/a8039b03/g; s/ib-/jb-/g; s/"a0/"b0/g' "$work/a.net" >"$work/b.net"
"$TOPO" discover "$work/a.net" "$work/b.net" -o "$work/ab.json" 2>/dev/null
"$TOPO" slurm "$work/ab.json" -o "$work/ab.conf" 2>/dev/null
"$TOPO" slurm "$work/ab.json" --format yaml -o "$work/ab.yaml" 2>/dev/null
"$TOPO" check "$work/ab.json" >"$work/ab.check" 2>&1
if grep -q '^SwitchName=fabric-1 Switches=pod-ib-leaf01,pod-ib-leaf03$' "$work/ab.conf" &&
   grep -q '^SwitchName=fabric-2 Switches=pod-jb-leaf01,pod-jb-leaf03$' "$work/ab.conf" &&
   ! grep -q '^SwitchName=fabric ' "$work/ab.conf" && grep -q 'switch: "fabric-2"' "$work/ab.yaml" &&
   grep -q 'disconnected-subnets: 2 subnets' "$work/ab.check"; then
    ok "two subnets no cable joins: a root each in topology.conf and topology.yaml, none above them; check warns"
else
    not_ok "two subnets no cable joins: a root each, none above them"; diag "$(grep -v Nodes= "$work/ab.conf")" "$(cat "$work/ab.check")"
fi
# the same with two-tier subnets, where every rail group of a fabric is one
# pod: a pod each, none joining them, and atoll-place places no job across them
"$TOPO" generate --groups 3 --hosts 2 --spines 2 --host-prefix a -o "$work/a2.net"
sed 's/b8599f03/c8599f03/g; s/98039b03/a8039b03/g; s/ib-/jb-/g; s/"a0/"b0/g' "$work/a2.net" >"$work/b2.net"
"$TOPO" discover "$work/a2.net" "$work/b2.net" -o "$work/ab2.json" 2>/dev/null
"$TOPO" slurm "$work/ab2.json" -o "$work/ab2.conf" 2>/dev/null
"$PLACE" place "$work/ab2.json" --nodes 8 >"$work/ab2.8" 2>&1; rc8=$?
"$PLACE" place "$work/ab2.json" --nodes 6 >"$work/ab2.6" 2>&1; rc6=$?
if grep -qx 'SwitchName=pod-ib-leaf01 Switches=ib-leaf01,ib-leaf02,ib-leaf03' "$work/ab2.conf" &&
   grep -qx 'SwitchName=pod-jb-leaf01 Switches=jb-leaf01,jb-leaf02,jb-leaf03' "$work/ab2.conf" &&
   [ "$(grep -c Switches= "$work/ab2.conf")" -eq 2 ] &&
   [ $rc8 -ne 0 ] && grep -q 'no subnet has 8 free nodes (the fabric is 2 subnets no cable joins' "$work/ab2.8" &&
   [ $rc6 -eq 0 ] && grep -qx 'a\[001-006\]\|b\[001-006\]' "$work/ab2.6"; then
    ok "two-tier subnets no cable joins: a pod each, none above; atoll-place places 6 in one, refuses 8"
else
    not_ok "two-tier subnets no cable joins: a pod each, none above; atoll-place places 6 in one, refuses 8"
    diag "$(grep -v Nodes= "$work/ab2.conf")" "$(cat "$work/ab2.8" "$work/ab2.6")"
fi
# every policy chooses within the one subnet that holds the job (Slurm's best
# fit once counted a subnet's root as the whole fabric and stalled), and the
# live request refuses at submit a job no subnet can hold (Slurm would hold it
# forever)
got=
for pol in slurm-tree random first-fit atoll; do
    got="$got $pol=$("$PLACE" place "$work/ab2.json" --nodes 6 --free 'a[001-006],b[001-003]' --policy $pol 2>&1 | head -1)"
done
"$PLACE" place "$work/ab2.json" --nodes 7 --island auto --slurm --time-limit 60 >"$work/ab2.slurm" 2>&1
if [ "$got" = " slurm-tree=a[001-006] random=a[001-006] first-fit=a[001-006] atoll=a[001-006]" ] &&
   grep -qx 'refuse=--fabric-island=auto: no subnet can hold 7 nodes; the largest subnet holds 6 (the fabric is 2 subnets no cable joins)' "$work/ab2.slurm"; then
    ok "subnets: every policy places in the one that holds the job; place --slurm refuses one none holds"
else not_ok "subnets: every policy places in the one that holds the job; place --slurm refuses one none holds"; diag "$got" "$(cat "$work/ab2.slurm")"; fi
# two captures of one fabric, the later with four more hosts: merged in
# either order (the node lookup searched a list the merge had unsorted, and
# called a switch both describe "appears twice")
cp "$work/a.net" "$work/am.net"
for h in 002 003 005 006; do
    g=$(grep -m1 "\"a$h mlx5_0\"" "$work/a.net" | sed 's/.*"H-\([0-9a-f]*\)".*/\1/')
    awk -v g="$g" '$0 ~ "\"H-"g"\"\\[1\\]" {next}
        $0 ~ "^vendid" {hdr=$0; getline d; getline s; getline c; if (c ~ "caguid=0x"g) {getline; getline; getline; next}
                        print hdr; print d; print s; print c; next} {print}' "$work/am.net" >"$work/am2.net"
    mv "$work/am2.net" "$work/am.net"
done
"$TOPO" discover "$work/am.net" "$work/a.net" -o "$work/m1.json" 2>"$work/m1.err"; rc1=$?
"$TOPO" discover "$work/a.net" "$work/am.net" -o "$work/m2.json" 2>"$work/m2.err"; rc2=$?
if [ "$(grep -c '^Ca' "$work/am.net")" -eq 4 ] && [ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] &&
   grep -q '8 hosts' "$work/m1.err" && grep -q '8 hosts' "$work/m2.err"; then
    ok "two captures of one fabric, one with more hosts, merge in either order (8 hosts)"
else
    not_ok "two captures of one fabric merge in either order"; diag "exit $rc1 $rc2" "$(cat "$work/m1.err" "$work/m2.err")"
fi
head -c 300 "$good" >"$work/truncated.txt"
expect_error "a truncated file names file and line" "$work/truncated.txt" "truncated.txt:[0-9]*: found .*expected"
sed 's/^switchguid=0x\([0-9a-f]*\)/switchguid=0xQQ\1/' "$good" >"$work/badguid.txt"
expect_error "a bad GUID names file and line" "$work/badguid.txt" "badguid.txt:9: found '0xQQ.*expected a node GUID"
# (helper 50) a cabled port 0 and an overlong port number name their line;
# a fabric file's own "source" text cannot start a line of the error
sed '12s/^\[[0-9]*\]/[0]/' "$good" >"$work/port0.txt"
expect_error "a cabled port [0] names file and line" "$work/port0.txt" "port0.txt:12: found port 0, expected 1"
sed '12s/^\[[0-9]*\]/[99999999999]/' "$good" >"$work/portbig.txt"
expect_error "an overlong port number names file and line" "$work/portbig.txt" "portbig.txt:12: found '99999999999].*at most 9 digits"
printf '{"format":"atoll-fabric","version":1,"source":"x\\nerror: injected","nodes":[],"links":[]}' >"$work/src.json"
"$TOPO" show "$work/src.json" 2>"$work/src.err"
check "a fabric file's \"source\" with a newline stays on the error's one line" sh -c \
    '[ "$(wc -l <"$1")" = 1 ] && grep -q "x\\\\x0aerror: injected: the fabric has no switch" "$1"' _ "$work/src.err"
sed '12s/^\[/Bridge [/' "$good" >"$work/unknown.txt"
expect_error "an unknown record names file and line" "$work/unknown.txt" "unknown.txt:12: found 'Bridge.*expected a node record"
head -c 4096 /bin/ls >"$work/junk.bin"
expect_error "binary junk is refused" "$work/junk.bin" "junk.bin"
printf '{"format": "atoll-fabric", "version": 1, "nodes": [' >"$work/cut.json"
expect_error "a truncated fabric.json is refused" "$work/cut.json" "cut.json"
expect_error "a missing file is an error" "$work/nope.txt" "nope.txt: cannot open"

# an existing topology.conf is never lost to a failed run
echo "SwitchName=keep Nodes=n1" >"$work/topology.conf"
"$TOPO" slurm "$work/truncated.txt" -o "$work/topology.conf" 2>/dev/null
rc=$?
if [ $rc -eq 1 ] && grep -q keep "$work/topology.conf"; then ok "a failed slurm run exits 1 and keeps topology.conf"; else not_ok "a failed slurm run exits 1 and keeps topology.conf"; fi
"$TOPO" slurm "$good" -o "$work/topology.conf"
check "a good run replaces it" grep -q "SwitchName=ib-leaf01 Nodes=gpu\[001-008\]" "$work/topology.conf"

"$TOPO" show --bogus "$good" >/dev/null 2>"$work/err"
if [ $? -eq 2 ] && grep -q "unknown option --bogus" "$work/err"; then ok "an unknown option exits 2 and names it"; else not_ok "an unknown option exits 2 and names it"; fi
"$TOPO" frobnicate >/dev/null 2>&1
check "an unknown command exits 2" [ $? -eq 2 ]
"$TOPO" generate --rails x >/dev/null 2>"$work/err"
if [ $? -eq 2 ] && grep -q -- '--rails: "x"' "$work/err"; then ok "a bad number names the flag"; else not_ok "a bad number names the flag"; fi
"$TOPO" show --format text - <"$good" | grep -q "hosts:     32"
check "standard input works as an input" [ $? -eq 0 ]
"$PLACE" simulate --help >"$work/help" 2>"$work/err"
if [ $? -eq 0 ] && [ ! -s "$work/err" ] && grep -q "^usage: atoll-place" "$work/help"; then ok "--help after a command prints the usage and exits 0"
else not_ok "--help after a command prints the usage and exits 0"; diag "$(cat "$work/err")"; fi
# issue 27, item 3: a command's --help is that command's usage, not the global one
"$TOPO" generate --help >"$work/help" 2>"$work/err"
if [ $? -eq 0 ] && grep -q -- "--pods N" "$work/help" && grep -q "^usage: atoll-topo generate" "$work/help" &&
    ! grep -q "discover" "$work/help"; then ok "atoll-topo generate --help prints generate's options, not every command"
else not_ok "atoll-topo generate --help prints generate's options, not every command"; diag "$(head -5 "$work/help")"; fi
# the input options apply to the commands that read inputs: not to generate
"$TOPO" generate --help >"$work/help" 2>&1
"$TOPO" show --help >"$work/help2" 2>&1
if grep -q -- "--domain-size N" "$work/help" && ! grep -q -- "--node-name-map" "$work/help" &&
    grep -q -- "--node-name-map" "$work/help2" && grep -q -- "--nvlink FILE" "$work/help2"; then
    ok "generate --help lists --domain-size and no input options; show --help lists them"
else not_ok "generate --help lists --domain-size and no input options; show --help lists them"; diag "$(cat "$work/help")"; fi
# discover takes every common option its usage lists (it refused --nvlink and --unmapped)
"$TOPO" generate --pods 1 --groups 2 --hosts 4 --domain-size 4 --nvlink-output "$work/nv.txt" -o "$work/g.net"
printf '0x0002c903000e0b72 "xyz"\n' >"$work/map"
"$TOPO" discover "$work/g.net" --nvlink "$work/nv.txt" -o "$work/d.json" 2>"$work/err" &&
    "$TOPO" discover "$work/g.net" --node-name-map "$work/map" --unmapped trust -o "$work/d2.json" 2>>"$work/err"
rc=$?
if [ $rc -eq 0 ] && "$TOPO" show "$work/d.json" | grep -q "^nvlink: *2 domain islands"; then
    ok "discover accepts --nvlink (the domains reach fabric.json) and --unmapped"
else not_ok "discover accepts --nvlink (the domains reach fabric.json) and --unmapped"; diag "rc=$rc" "$(cat "$work/err")"; fi
# (helper 38) nvidia-smi outputs of some nodes only, or none: the blocks
# are the domains, so a host with no report is in no block, and an empty
# file gives no domains; both said on standard error, not taken quietly
grep '^node001' "$work/nv.txt" >"$work/nv1.txt"
: >"$work/nv0.txt"
"$TOPO" slurm --format block --nvlink "$work/nv1.txt" "$work/g.net" >/dev/null 2>"$work/nv1.err"
"$TOPO" slurm --format block --nvlink "$work/nv0.txt" "$work/g.net" >/dev/null 2>"$work/nv0.err"
check "block: hosts no --nvlink output reports are named as in no block; an empty --nvlink file is said" sh -c '
    grep -q "topology/block: 7 compute hosts in no NVLink domain (node\[002-008\]) in no block" "$1" &&
    grep -q "nv0.txt: no host in it reports an NVLink domain" "$2"' _ "$work/nv1.err" "$work/nv0.err"
"$PLACE" settings --help >"$work/help" 2>&1
if grep -q "^usage: atoll-place settings" "$work/help" && ! grep -q "simulate" "$work/help"; then
    ok "atoll-place settings --help prints the settings synopsis only"
else not_ok "atoll-place settings --help prints the settings synopsis only"; diag "$(head -5 "$work/help")"; fi
# issue 27, item 9: slurmstepd reads the view as the job's user; check --view
# warns when others cannot read it or reach it
vd=$(tmpdir)
chmod 755 "$vd"
"$TOPO" generate --pods 1 --groups 1 --hosts 2 --format json -o "$vd/fabric.json"
"$TOPO" slurm --format view "$vd/fabric.json" -o "$vd/fabric.view"
chmod 644 "$vd/fabric.json"; chmod 600 "$vd/fabric.view"
"$TOPO" check "$vd/fabric.json" --view "$vd/fabric.view" >"$work/out" 2>&1
rc=$?
if [ $rc -eq 3 ] && grep -q "^warning: unreadable-by-users: '$vd/fabric.view': mode 600, not readable by others: slurmstepd reads it as the job's user" "$work/out"; then
    ok "check --view warns that a 0600 view breaks other users' steps (exit 3)"
else not_ok "check --view warns that a 0600 view breaks other users' steps (exit 3)"; diag "rc=$rc" "$(cat "$work/out")"; fi
chmod 644 "$vd/fabric.view"; mkdir -m 700 "$vd/private"; cp "$vd/fabric.view" "$vd/private/"; chmod 644 "$vd/private/fabric.view"
"$TOPO" check "$vd/fabric.json" --view "$vd/fabric.view" --view "$vd/private/fabric.view" >"$work/out" 2>&1
if [ "$(grep -c unreadable-by-users "$work/out")" -eq 1 ] && grep -q "'$vd/private/fabric.view': its directory '$vd/private' is not searchable by others" "$work/out"; then
    ok "check --view: a 0644 view in a 0755 directory is fine, one under a 0700 directory is not"
else not_ok "check --view: a 0644 view in a 0755 directory is fine, one under a 0700 directory is not"; diag "$(cat "$work/out")"; fi
# (helper 56) a view the plugin itself refuses: written by others than root,
# or a record it does not read; check --view errors (exit 4) with its reason
cp "$vd/fabric.view" "$vd/open.view"; chmod 666 "$vd/open.view"
printf 'atoll-view 5\ngarbage\n' >"$vd/bad.view"; chmod 644 "$vd/bad.view"
"$TOPO" check "$vd/fabric.json" --view "$vd/open.view" --view "$vd/bad.view" --view "$vd/fabric.view" >"$work/out" 2>&1
rc=$?
if [ $rc -eq 4 ] && [ "$(grep -c '^error: view-refused' "$work/out")" = 2 ] &&
   grep -q "^error: view-refused: '$vd/open.view': the plugin refuses it, .*writable by someone other than root" "$work/out" &&
   grep -q "^error: view-refused: '$vd/bad.view': .*$vd/bad.view:2: found 'garbage', expected" "$work/out"; then
    ok "check --view errors on a view the plugin refuses (written by others, a record it does not read): exit 4"
else not_ok "check --view errors on a view the plugin refuses"; diag "rc=$rc" "$(cat "$work/out")"; fi
# and the fabric.json itself: cli_filter.lua's atoll-place reads it as the submitting user
chmod 600 "$vd/fabric.json"
"$TOPO" check "$vd/fabric.json" >"$work/out" 2>&1
rc=$?
chmod 644 "$vd/fabric.json"
if [ $rc -eq 3 ] && grep -q "^warning: unreadable-by-users: '$vd/fabric.json': mode 600.*atoll-place reads it as the submitting user" "$work/out"; then
    ok "check warns that a 0600 fabric.json breaks other users' live placement (exit 3)"
else not_ok "check warns that a 0600 fabric.json breaks other users' live placement (exit 3)"; diag "rc=$rc" "$(cat "$work/out")"; fi
# the man pages' footer names the release, substituted at build time
version=$("$TOPO" --version | sed 's/^atoll-topo //')
bad=
for m in atoll.8 atoll-topo.8 atoll-fabric.5 atoll-place.1 atoll-widen.8; do
    grep -q "^\.TH .* \"atoll $version\"" "$ATOLL_BUILDDIR/man/$m" 2>/dev/null || bad="$bad $m"
done
if [ -z "$bad" ]; then ok "every man page's footer says atoll $version"
else not_ok "every man page's footer says atoll $version"; diag "wrong or missing:$bad"; fi
# ibdiagnet2's ibnetdiscover file: a director's boards share the chassis's
# system image GUID, and switchguid= gives it before the parentheses and the
# node's own GUID inside them (the real CS8500 capture of
# HyungKwang/My-Programing's Topo.6 has 0xb8cef603008fbe36(b8cef6030019c882)
# over "S-b8cef6030019c882"). The hand-written director, rewritten that way,
# reads as the original; a record whose name is neither, or a switchguid= whose
# first GUID is not the system image's, is still refused.
dir="$DATA/ibnetdiscover/director_mcs8500_hand.txt"
ibdiag() {  # the director in ibdiagnet2's form; $1: sed applied to the result
    { echo '# This database file was automatically generated by IBDIAG'
      sed 's/^sysimgguid=.*/sysimgguid=0xb8599f0300ffff00/; s/^switchguid=0x\([0-9a-f]*\)(.*/switchguid=0xb8599f0300ffff00(\1)/' "$dir"; } | sed "$1"
}
ibdiag 's/^Switch	/Switch  /' >"$work/ibdiag.txt"
"$TOPO" show "$dir" | grep -v '^fabric:' >"$work/want"
"$TOPO" show "$work/ibdiag.txt" 2>"$work/err" | grep -v '^fabric:' >"$work/got"
if grep -q '^switchguid=0xb8599f0300ffff00(b8599f0300b00000)$' "$work/ibdiag.txt" && [ -s "$work/want" ] && cmp -s "$work/want" "$work/got"; then
    ok "ibdiagnet2's switchguid=SYSIMG(NODE) reads as ibnetdiscover's switchguid=NODE(NODE)"
else not_ok "ibdiagnet2's switchguid=SYSIMG(NODE) reads as ibnetdiscover's switchguid=NODE(NODE)"; diag "$(cat "$work/err")" "$(diff "$work/want" "$work/got")"; fi
ibdiag '0,/^switchguid=0xb8599f0300ffff00(b8599f0300a00000)/s//switchguid=0xb8599f0300ffff00(b8599f0300a00001)/' >"$work/ibdiag-bad1.txt"
ibdiag '0,/^sysimgguid=0xb8599f0300ffff00/s//sysimgguid=0xb8599f0300ffff01/' >"$work/ibdiag-bad2.txt"
"$TOPO" show "$work/ibdiag-bad1.txt" >/dev/null 2>"$work/err1"; rc1=$?
"$TOPO" show "$work/ibdiag-bad2.txt" >/dev/null 2>"$work/err2"; rc2=$?
if [ $rc1 -eq 1 ] && grep -q "ibdiag-bad1.txt:10: found node 0xb8599f0300a00000, expected 0xb8599f0300ffff00 as its guid= line said" "$work/err1" &&
   [ $rc2 -eq 1 ] && grep -q "ibdiag-bad2.txt:10: found node 0xb8599f0300a00000, expected 0xb8599f0300ffff00 as its guid= line said" "$work/err2"; then
    ok "a switchguid= that names another node, or a first GUID that is not the system image's, is still refused"
else not_ok "a switchguid= that names another node, or a first GUID that is not the system image's, is still refused"; diag "rc $rc1 $rc2" "$(cat "$work/err1" "$work/err2")"; fi
# (helper 41) --format of slurm names the output, the input, or one of each:
# "--format features --format csv" wrote topology.conf (the last value was
# the input's, the output the default); two outputs are a usage error
printf 'host,leaf\nh1,A\nh2,B\n' >"$work/fmt.csv"
"$TOPO" slurm --format features --format csv "$work/fmt.csv" -o "$work/fmt.out" 2>/dev/null; r1=$?
"$TOPO" slurm --format features --format tree "$work/fmt.csv" -o "$work/fmt2.out" 2>"$work/fmt2.err"; r2=$?
check "slurm --format: one output and one input format each taken; two outputs exit 2, nothing written" \
    sh -c '[ "$1$2" = 02 ] && grep -q "^NodeName=h1 Features=" "$3/fmt.out" && [ ! -e "$3/fmt2.out" ] &&
        grep -q -- "--format given twice for the output (.features., then .tree.)" "$3/fmt2.err"' _ "$r1" "$r2" "$work"
# --running or --pending twice is a usage error whether or not the request
# reads it (a 1:1 fabric asks nothing, so they were never read)
"$TOPO" generate --groups 2 --hosts 2 --format json -o "$work/flat.json"
: >"$work/run.txt"
"$PLACE" place "$work/flat.json" --nodes 2 --island auto --slurm --time-limit 1:00:00 --running "$work/run.txt" \
    --running="$work/run.txt" >/dev/null 2>"$work/twice.err"
check "place --slurm --running twice: exit 2 on any fabric" sh -c '[ "$1" = 2 ] && grep -q -- "--running given 2 times" "$2"' _ "$?" "$work/twice.err"
