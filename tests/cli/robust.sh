#!/bin/sh
# No internal error reaches a user: every subcommand on every fixture, in every
# output format, and on hostile variants of them (a byte that is not UTF-8 in
# a description, a NUL byte, a truncated file, CR line ends, numbers out of
# range, 100,000-deep JSON). Fails on a signal, on an exception's text
# (map::at, json.exception, std::, terminate) and on an error line that does
# not name the file it is about.
. "$(dirname "$0")/../lib.sh"
work=$(tmpdir)
fixtures=$(cd "$DATA" && ls ibnetdiscover/* ibnetdiscover-p/* ibsim/*/ibnetdiscover*.txt ibsim/*/topology.net \
    ibsim/*/ibnetdiscover.cache csv/* cloud/* lldp/*.json lldp/*.json0 lldp/*.keyvalue lldp/*.xml)

# hostile variants, made here from the fixtures
small="$DATA/ibsim/fattree_4x8_2s/ibnetdiscover.txt"
sed 's/"gpu001 mlx5_0"/"gpu001\xff\xfe mlx5_0"/' "$small" >"$work/nonutf8.txt"
sed 's/"gpu002 mlx5_0"/"gp\xc3u002 mlx5_0"/' "$small" >"$work/badutf8-host.txt"
head -c 5000 "$small" >"$work/truncated.txt"
{ head -c 3000 "$small"; printf '\0\0\0\0'; tail -c +3001 "$small"; } >"$work/nul.txt"
tr '\n' '\r' <"$small" >"$work/cr.txt"
"$TOPO" discover "$small" -o "$work/good.json" 2>/dev/null
sed '0,/"ports": [0-9]*/s//"ports": 1e999/' "$work/good.json" >"$work/bignum.json"
sed '0,/"ports": [0-9]*/s//"ports": 99999999999999999999999/' "$work/good.json" >"$work/overlong.json"
sed '0,/"ports": [0-9]*/s//"ports": 3.5e300/' "$work/good.json" >"$work/float.json"
sed '0,/"desc": "[^"]*"/s//"desc": 12/' "$work/good.json" >"$work/wrongtype.json"
deep() { i=0; s=; while [ $i -lt 1000 ]; do s="$s[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["; i=$((i + 1)); done; printf '%s' "$s"; }
{ printf '{"lldp": {"interface": [{"name": "eth0", "chassis": '; deep; } >"$work/deep.json0"
{ printf '{"format": "atoll-fabric", "version": 1, "source": "x", "nodes": '; deep; } >"$work/deep-fabric.json"
{ printf '{"Instances": [{"InstanceId": "i-1", "NetworkNodes": ["a", "b", 1e999]}]}'; } >"$work/aws-bignum.json"
printf '{"Instances": [{"InstanceId": "i-1", "NetworkNodes": ["a", "b", "c"], "X": 1e999}]}' >"$work/aws-bignum2.json"
# a whole document, 100,000 deep inside a section the reader keeps (each of
# them once crashed the reader: a recursive copy), in a member it never reads,
# and a link that is no object
closed() { deep; deep | tr '[' ']'; }
for k in frontend undecided refused_claims unhealthy domains; do
    { sed '$d' "$work/good.json"; printf ', "%s": [{"zz": ' "$k"; closed; printf '}]}\n'; } >"$work/deep-$k.json"
done
{ sed '$d' "$work/good.json"; printf ', "zz": '; closed; printf '}\n'; } >"$work/deep-unread.json"
sed '0,/"links": \[/s//"links": [[1], /' "$work/good.json" >"$work/link-array.json"
cache="$DATA/ibsim/fattree_4x8_2s/ibnetdiscover.cache"
{ head -c 8 "$cache"; printf '\377\377\377\017\377\377\377\017'; tail -c +17 "$cache"; } >"$work/hugecounts.cache"
head -c 20000 "$cache" >"$work/truncated.cache"
cp "$cache" "$work/corrupt.cache"
printf '\377\377\377\377\377\377\377\377' | dd of="$work/corrupt.cache" bs=1 seek=100 conv=notrunc 2>/dev/null
printf 'abc\000def' >"$work/nul-short.bin"
hostile="hugecounts.cache truncated.cache corrupt.cache nul-short.bin nonutf8.txt badutf8-host.txt truncated.txt nul.txt cr.txt bignum.json overlong.json float.json wrongtype.json deep.json0 deep-fabric.json aws-bignum.json aws-bignum2.json deep-frontend.json deep-undecided.json deep-refused_claims.json deep-unhealthy.json deep-domains.json deep-unread.json link-array.json"

n=$(($(echo $fixtures | wc -w) + $(echo $hostile | wc -w) + 14))
plan "$n"

# run_all FILE TAG: every subcommand and format; prints what went wrong, if anything
# (TAG names its scratch files: the files are checked in parallel lanes)
run_all() {
    f=$1 err=$work/err.$2
    for cmd in "show" "show --json" "show --links" "check" "check --json" "slurm" "slurm --format block" \
        "slurm --format features" "slurm --format scontrol" "slurm --format islands" "slurm --format view" \
        "slurm --format k8s-labels" "dot" "dot --hosts" "discover -o $work/out.$2.json"; do
        # shellcheck disable=SC2086
        timeout 60 "$TOPO" $cmd "$f" >/dev/null 2>"$err"
        rc=$?
        report "atoll-topo $cmd" "$rc" "$f" "$err"
    done
    timeout 60 "$PLACE" place "$f" --nodes 2 >/dev/null 2>"$err"
    report "atoll-place place --nodes 2" $? "$f" "$err"
}
report() {
    if [ "$2" -ge 124 ]; then
        echo "$1: exit $2 (signal or timeout)"
    elif grep -q -e 'map::at' -e 'json.exception' -e 'std::' -e 'terminate' -e 'what()' -e 'basic_string' "$4"; then
        echo "$1: an internal error reached the user: $(head -2 "$4")"
    elif [ "$2" -ne 0 ] && grep '^atoll-[a-z]*: ' "$4" | grep -v ': warning: ' | grep -v -q -F "$(basename "$3")"; then
        echo "$1: an error that does not name the file: $(head -2 "$4")"
    fi
}

# every file in one of nproc lanes (each file's commands in turn), then the
# results in the list's order
inputs=
for f in $fixtures; do inputs="$inputs $DATA/$f"; done
for f in $hostile; do inputs="$inputs $work/$f"; done
lanes=$(nproc 2>/dev/null || echo 2)
lane=0
while [ $lane -lt "$lanes" ]; do
    (i=0
     for f in $inputs; do
         i=$((i + 1))
         [ $(((i - 1) % lanes)) -eq $lane ] || continue
         run_all "$f" "$i" >"$work/got.$i" 2>&1
     done) &
    lane=$((lane + 1))
done
wait
i=0
for f in $fixtures; do
    i=$((i + 1))
    [ -f "$work/got.$i" ] || echo "no result (its lane did not finish)" >"$work/got.$i"
    if [ ! -s "$work/got.$i" ]; then ok "every command on $f: no crash, no internal error"
    else not_ok "every command on $f: no crash, no internal error"; diag "$(cat "$work/got.$i")"; fi
done
for f in $hostile; do
    i=$((i + 1))
    [ -f "$work/got.$i" ] || echo "no result (its lane did not finish)" >"$work/got.$i"
    if [ ! -s "$work/got.$i" ]; then ok "every command on hostile $f: no crash, no internal error, errors name the file"
    else not_ok "every command on hostile $f: no crash, no internal error, errors name the file"; diag "$(cat "$work/got.$i")"; fi
done

# the "source" a fabric.json claims goes into every file's comment escaped:
# a newline in it must not start a live topology.conf or view line
sed '0,/"source": "[^"]*"/s//"source": "x\\nSwitchName=evil Nodes=node[001-032]\\n#"/' "$work/good.json" >"$work/inject.json"
bad=
for fmt in tree block yaml view islands features; do
    "$TOPO" slurm "$work/inject.json" --format "$fmt" -o "$work/inject.$fmt" 2>/dev/null || bad="$bad $fmt:exit"
    grep -q '^SwitchName=evil' "$work/inject.$fmt" && bad="$bad $fmt"
done
if [ -z "$bad" ] && grep -q 'from x\\nSwitchName=evil' "$work/inject.tree"; then
    ok "a newline in fabric.json's source stays in the comment, escaped (tree, block, yaml, view, islands, features)"
else
    not_ok "a newline in fabric.json's source stays in the comment, escaped"; diag "bad:$bad" "$(head -3 "$work/inject.tree")"
fi
# a pipe or FIFO named as the input is refused at once, naming the path
# (its first bytes cannot be read twice); standard input is -
mkfifo "$work/fifo"
timeout 20 "$TOPO" show "$work/fifo" >/dev/null 2>"$work/fifo.err"; rc=$?
if [ $rc -eq 1 ] && grep -q "fifo: not a regular file (a pipe or FIFO)" "$work/fifo.err"; then
    ok "a FIFO as the input: refused at once (no writer needed), naming it"
else
    not_ok "a FIFO as the input: refused at once (no writer needed), naming it"; diag "rc $rc" "$(cat "$work/fifo.err")"
fi
timeout 20 "$PLACE" place "$work/fifo" --nodes 2 >/dev/null 2>"$work/fifo.err"; rc1=$?
"$TOPO" show - <"$work/good.json" >/dev/null 2>&1; rc2=$?
if [ $rc1 -eq 1 ] && grep -q "not a regular file" "$work/fifo.err" && [ $rc2 -eq 0 ]; then
    ok "atoll-place refuses the FIFO too (it used to open it twice and hang); - reads standard input"
else
    not_ok "atoll-place refuses the FIFO too; - reads standard input"; diag "rc $rc1 $rc2" "$(cat "$work/fifo.err")"
fi
# standard input is read as it streams in, as a file is: its line numbers
# are the input's (leading blank lines kept), and bytes after a NUL that
# ends the JSON document are refused, from a file or a pipe
{ printf '\n\n\n  x'; cat "$work/good.json"; } | "$TOPO" show - >/dev/null 2>"$work/pipe.err"; rc=$?
if [ $rc -eq 1 ] && grep -q '^atoll-topo: <stdin>:4: ' "$work/pipe.err"; then
    ok "a pipe: the error names <stdin> and the input's own line (blank lines before it counted)"
else
    not_ok "a pipe: the error names <stdin> and the input's own line"; diag "rc $rc" "$(cat "$work/pipe.err")"
fi
{ cat "$work/good.json"; printf '\000{"nodes":[]}'; } >"$work/nul.json"
"$TOPO" show "$work/nul.json" >/dev/null 2>"$work/nul.err"; rc1=$?
cat "$work/nul.json" | "$TOPO" show - >/dev/null 2>>"$work/nul.err"; rc2=$?
cat "$work/good.json" | "$PLACE" place - --nodes 2 >/dev/null 2>&1; rc3=$?
if [ $rc1 -eq 1 ] && [ $rc2 -eq 1 ] && [ "$(grep -c 'a NUL byte and more after the end of the JSON document' "$work/nul.err")" -eq 2 ] &&
    grep -q '^atoll-topo: .*nul.json: a NUL' "$work/nul.err" && [ $rc3 -eq 0 ]; then
    ok "bytes after a NUL byte that ends fabric.json are refused (file and pipe); atoll-place reads a pipe"
else
    not_ok "bytes after a NUL byte that ends fabric.json are refused"; diag "rc $rc1 $rc2 $rc3" "$(cat "$work/nul.err")"
fi
# a directory of LLDP tables, where nodes may drop their own: a FIFO or a
# device in it is refused at once, naming it; a symbolic link is not followed
# (a node's root could point it at any file and a parse error would quote
# it); CRLF line ends read as LF ones
kv="$DATA/lldp/rails8/keyvalue"
for d in fifo zero link crlf; do mkdir "$work/dir-$d"; cp "$kv"/* "$work/dir-$d/"; done
victim=$(ls "$work/dir-fifo" | head -1)
rm "$work/dir-fifo/$victim" "$work/dir-zero/$victim" "$work/dir-link/$victim"
mkfifo "$work/dir-fifo/$victim"
ln -s /dev/zero "$work/dir-zero/$victim"
printf 'root:SECRET:19000\n' >"$work/secret"
ln -s "$work/secret" "$work/dir-link/$victim"
rc=
for d in fifo zero link; do timeout 20 "$TOPO" show "$work/dir-$d" >/dev/null 2>"$work/dir-$d.err"; rc="$rc $?"; done
if [ "$rc" = " 1 1 1" ] && grep -q "dir-fifo/$victim: not a regular file (a pipe or FIFO)" "$work/dir-fifo.err" &&
    grep -q "dir-zero/$victim: a symbolic link, not followed" "$work/dir-zero.err" &&
    grep -q "dir-link/$victim: a symbolic link, not followed" "$work/dir-link.err" && ! grep -q SECRET "$work/dir-link.err"; then
    ok "a FIFO or a symbolic link in a directory of LLDP tables: refused at once, naming it, nothing quoted"
else
    not_ok "a FIFO or a symbolic link in a directory of LLDP tables: refused at once, naming it"
    diag "rc$rc" "$(cat "$work"/dir-*.err)"
fi
for f in "$work"/dir-crlf/*; do sed 's/$/\r/' "$f" >"$f.tmp" && mv "$f.tmp" "$f"; done
"$TOPO" slurm "$kv" 2>"$work/lf.err" | grep -v '^#' >"$work/lf.conf"
"$TOPO" slurm "$work/dir-crlf" 2>"$work/crlf.err" | grep -v '^#' >"$work/crlf.conf"
if grep -q . "$work/lf.conf" && cmp -s "$work/lf.conf" "$work/crlf.conf" && ! grep -q 'alone' "$work/crlf.err"; then
    ok "LLDP tables with CRLF line ends: the same topology.conf as with LF"
else
    not_ok "LLDP tables with CRLF line ends: the same topology.conf as with LF"
    diag "$(diff "$work/lf.conf" "$work/crlf.conf" | head -5)" "$(head -3 "$work/crlf.err")"
fi
# (helper 24) ibnetdiscover text cut after a record's line (its port
# lines gone) is an error naming that line; a -p report cut short, whose
# cables then show from one end only, is warned (a filtered report reads so too)
awk '/^Ca/ { n++ } { print } /^Ca/ && n == 3 { exit }' "$small" >"$work/cut-ca.txt"
"$TOPO" check "$work/cut-ca.txt" >/dev/null 2>"$work/cut-ca.err"; rc=$?
last=$(wc -l <"$work/cut-ca.txt")
if [ $rc -eq 1 ] && grep -q "cut-ca.txt:$last: found the end of the input after this record and no port line of it" "$work/cut-ca.err"; then
    ok "ibnetdiscover text cut after a Ca record's line: an error naming it"
else
    not_ok "ibnetdiscover text cut after a Ca record's line: an error naming it"; diag "rc $rc" "$(cat "$work/cut-ca.err")"
fi
pfile="$DATA/ibsim/fattree_4x8_2s/ibnetdiscover_p.txt"
head -n 100 "$pfile" >"$work/cut-p.txt"
"$TOPO" slurm "$work/cut-p.txt" >/dev/null 2>"$work/cut-p.err"; rc1=$?
"$TOPO" slurm "$pfile" >/dev/null 2>"$work/full-p.err"; rc2=$?
if [ $rc1 -eq 0 ] && grep -q "cut-p.txt:[0-9]*: [0-9]* cables seen from one end only" "$work/cut-p.err" && [ $rc2 -eq 0 ] && ! grep -q "one end only" "$work/full-p.err"; then
    ok "a -p report cut short: its one-sided cables warned; the whole report is not"
else
    not_ok "a -p report cut short: its one-sided cables warned"; diag "rc $rc1 $rc2" "$(cat "$work/cut-p.err" "$work/full-p.err")"
fi
# (helper 26) two tables of one system in a directory (gpu01.x.keyvalue
# beside gpu01.keyvalue, which another node may drop there): an error, not
# one table merged from both
mkdir "$work/dir-two"; cp "$kv"/* "$work/dir-two/"
cp "$work/dir-two/$victim" "$work/dir-two/${victim%%.*}.zz.keyvalue"
"$TOPO" show "$work/dir-two" >/dev/null 2>"$work/dir-two.err"; rc=$?
if [ $rc -eq 1 ] && grep -q "a second file of system '${victim%%.*}'" "$work/dir-two.err"; then
    ok "two tables of one system in a directory of LLDP tables: an error naming both"
else
    not_ok "two tables of one system in a directory of LLDP tables: an error naming both"; diag "rc $rc" "$(cat "$work/dir-two.err")"
fi
# (helper 34) a FIFO no one writes as --ib-cache or --nvlink blocked the open
# for ever (libibnetdisc opens the cache path itself): exit 1 at once
mkfifo "$work/idle.fifo"
timeout 20 "$TOPO" show --ib-cache "$work/idle.fifo" >"$work/fifo1.err" 2>&1
r1=$?
timeout 20 "$TOPO" slurm "$DATA/cloud/aws-two-layer1.json" --nvlink "$work/idle.fifo" >"$work/fifo2.err" 2>&1
r2=$?
if [ "$r1$r2" = 11 ] && grep -q "not a regular file, expected an .ibnetdiscover --cache. file" "$work/fifo1.err" &&
   grep -q "not a regular file or directory, expected the nvidia-smi outputs" "$work/fifo2.err"; then
    ok "--ib-cache and --nvlink on a FIFO: exit 1 at once, no hang"
else
    not_ok "--ib-cache and --nvlink on a FIFO: exit 1 at once"; diag "rc $r1 $r2" "$(cat "$work/fifo1.err" "$work/fifo2.err")"
fi

# (helper 36) a UTF-8 byte order mark (a spreadsheet's CSV, a file written on
# Windows) is not text: the CSV and the fabric.json read as without it, with
# the format told or given
{ printf '\357\273\277'; echo host,leaf; echo h1,L0; echo h2,L0; } >"$work/bom.csv"
"$TOPO" generate --groups 1 --hosts 2 --format json -o "$work/nobom.json"
{ printf '\357\273\277'; cat "$work/nobom.json"; } >"$work/bom.json"
check "a byte order mark before a CSV or a fabric.json is skipped" sh -c '
    "$1" cost "$2" "h[1-2]" >/dev/null && "$1" cost --format csv "$2" "h[1-2]" >/dev/null &&
    "$1" cost "$3" "node[001-002]" >/dev/null' _ "$PLACE" "$work/bom.csv" "$work/bom.json"
# (helper 36) a number no double holds says where and in what
"$TOPO" generate --groups 1 --hosts 2 --format json -o "$work/v.json"
sed 's/"version": 1/"version": 4e400/' "$work/v.json" >"$work/4e400.json"
"$PLACE" cost "$work/4e400.json" 'node[001-002]' >/dev/null 2>"$work/4e400.err"
rc=$?
check "a number out of range names its byte and member" sh -c '[ "$1" = 1 ] &&
    grep -q "number overflow parsing .4e400. at byte [0-9]* in the member \"version\"" "$2"' _ "$rc" "$work/4e400.err"
# (helper 36) a key twice in one object of a fabric.json: the last one was
# read, where jq or Python may read the other; an error naming the key and
# where (a link's "speed", the top's "kind"), but not in "analysis", which is
# derived and never read
# (awk, not python: the matrix chroots have no python3)
awk 'done == 0 && /"links"/ { in_links = 1 }
     done == 0 && in_links && /"speed":/ { sub(/"speed":/, "\"speed\": \"EDR\", \"speed\":"); done = 1 }
     { print }' "$work/v.json" >"$work/dup-link.json"
awk 'done == 0 && /"kind":/ { sub(/"kind":/, "\"kind\": \"roce\", \"kind\":"); done = 1 } { print }' \
    "$work/v.json" >"$work/dup-top.json"
awk 'done == 0 && /"analysis"/ { in_a = 1 }
     done == 0 && in_a && /"name":/ { sub(/"name":/, "\"name\": \"x\", \"name\":"); done = 1 }
     { print }' "$work/v.json" >"$work/dup-analysis.json"
"$TOPO" show "$work/dup-link.json" >/dev/null 2>"$work/dup-link.err"; r1=$?
"$TOPO" show "$work/dup-top.json" >/dev/null 2>"$work/dup-top.err"; r2=$?
"$TOPO" show "$work/dup-analysis.json" >/dev/null 2>&1; r3=$?
check "a key twice in one object of a fabric.json: exit 1 naming it and where" sh -c '[ "$1$2$3" = 110 ] &&
    grep -q "dup-link.json: the key .speed. twice in links\[0\], expected each key once" "$4" &&
    grep -q "dup-top.json: the key .kind. twice in the top-level object" "$5"' _ "$r1" "$r2" "$r3" "$work/dup-link.err" "$work/dup-top.err"
