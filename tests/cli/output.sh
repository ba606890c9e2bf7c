#!/bin/sh
# Where an output goes (red team of issue 24): -o onto a device or a FIFO
# writes through it and never renames a file over it; -o through a symlink
# replaces the file it names and keeps the link; a directory or a full device
# is an error (exit 1) that leaves what was there. And a cloud answer is read
# whole or refused: a second document or trailing bytes, a page token (one page
# of a longer answer) are errors; an instance with no network nodes (a login
# VM) is left out with a warning.
. "$(dirname "$0")/../lib.sh"
work=$(tmpdir)
plan 16
good="$work/aws.json"
printf '{"Instances": [{"InstanceId": "i-1", "NetworkNodes": ["c", "p", "l1"]}, {"InstanceId": "i-2", "NetworkNodes": ["c", "p", "l1"]}, {"InstanceId": "i-login", "NetworkNodes": []}]}\n' >"$good"

if [ "$(id -u)" = 0 ] && mknod "$work/null" c 1 3 2>/dev/null; then
    "$TOPO" slurm "$good" -o "$work/null" 2>/dev/null; rc=$?
    if [ $rc -eq 0 ] && [ -c "$work/null" ]; then ok "-o onto a character device writes through it (the device is still a device)"
    else not_ok "-o onto a character device writes through it (the device is still a device)"; diag "exit $rc" "$(ls -l "$work/null")"; fi
else skip "-o onto a character device writes through it (the device is still a device)" "needs root for mknod"; fi

mkfifo "$work/fifo"
cat "$work/fifo" >"$work/fifo.out" &
reader=$!
timeout 20 "$TOPO" slurm "$good" -o "$work/fifo" 2>/dev/null; rc=$?
wait $reader
if [ $rc -eq 0 ] && [ -p "$work/fifo" ] && grep -q '^SwitchName=l1 Nodes=i-\[1-2\]' "$work/fifo.out"; then ok "-o onto a FIFO writes topology.conf into it and leaves the FIFO"
else not_ok "-o onto a FIFO writes topology.conf into it and leaves the FIFO"; diag "exit $rc" "$(ls -l "$work/fifo")" "$(cat "$work/fifo.out")"; fi

mkdir "$work/repo"
echo "old" >"$work/repo/topology.conf"
ln -s "$work/repo/topology.conf" "$work/topology.conf"
"$TOPO" slurm "$good" -o "$work/topology.conf" 2>/dev/null; rc=$?
if [ $rc -eq 0 ] && [ -L "$work/topology.conf" ] && grep -q '^SwitchName=l1' "$work/repo/topology.conf"; then ok "-o through a symlink replaces the file it names and keeps the link"
else not_ok "-o through a symlink replaces the file it names and keeps the link"; diag "exit $rc" "$(ls -l "$work/topology.conf")"; fi

mkdir "$work/dir"
"$TOPO" slurm "$good" -o "$work/dir" 2>"$work/err"; rc=$?
if [ $rc -eq 1 ] && [ -d "$work/dir" ] && grep -q 'a directory, expected a file name' "$work/err"; then ok "-o onto a directory is an error, exit 1, the directory kept"
else not_ok "-o onto a directory is an error, exit 1, the directory kept"; diag "exit $rc" "$(cat "$work/err")"; fi

if [ -c /dev/full ]; then
    "$TOPO" slurm "$good" -o /dev/full 2>"$work/err"; rc=$?
    if [ $rc -eq 1 ] && [ -c /dev/full ] && grep -q '/dev/full: write failed' "$work/err"; then ok "-o onto /dev/full: write failed, exit 1, /dev/full still a device"
    else not_ok "-o onto /dev/full: write failed, exit 1, /dev/full still a device"; diag "exit $rc" "$(cat "$work/err")"; fi
else skip "-o onto /dev/full: write failed, exit 1, /dev/full still a device" "no /dev/full"; fi

"$TOPO" slurm "$good" -o "$work/t.conf" 2>"$work/err"; rc=$?
if [ $rc -eq 0 ] && grep -q 'Instances\[2\] (i-login): no NetworkNodes' "$work/err" && ! grep -q 'i-login' "$work/t.conf"; then ok "an instance with no network nodes (a login VM) is left out with a warning"
else not_ok "an instance with no network nodes (a login VM) is left out with a warning"; diag "exit $rc" "$(cat "$work/err")"; fi

{ cat "$good"; cat "$good"; } >"$work/two.json"
echo "keep" >"$work/kept.conf"
"$TOPO" slurm "$work/two.json" -o "$work/kept.conf" 2>"$work/err"; rc=$?
if [ $rc -eq 1 ] && grep -q "two.json: found '{' after the JSON document" "$work/err" && [ "$(cat "$work/kept.conf")" = keep ]; then ok "two concatenated answers: an error naming the second document, the old output kept"
else not_ok "two concatenated answers: an error naming the second document, the old output kept"; diag "exit $rc" "$(cat "$work/err")"; fi

printf '{"Instances": [{"InstanceId": "i-1", "NetworkNodes": ["c", "p", "l1"]}]} trailing' >"$work/trail.json"
"$TOPO" slurm "$work/trail.json" 2>"$work/err" >/dev/null; rc=$?
if [ $rc -eq 1 ] && grep -q "trail.json: found 't' after the JSON document (at byte 73)" "$work/err"; then ok "trailing bytes after the answer are an error with their offset"
else not_ok "trailing bytes after the answer are an error with their offset"; diag "exit $rc" "$(cat "$work/err")"; fi

printf '{"Instances": [{"InstanceId": "i-1", "NetworkNodes": ["c", "p", "l1"]}], "NextToken": "eyJ2IjoxfQ=="}\n' >"$work/page.json"
"$TOPO" slurm "$work/page.json" 2>"$work/err" >/dev/null; rc=$?
if [ $rc -eq 1 ] && grep -q 'page.json: found "NextToken": one page of a longer answer' "$work/err"; then ok "one page of a paginated answer (NextToken) is refused, not read as the whole cluster"
else not_ok "one page of a paginated answer (NextToken) is refused, not read as the whole cluster"; diag "exit $rc" "$(cat "$work/err")"; fi

# -o naming the input (or a link to it): refused, the input kept as it was
cp "$good" "$work/in.json"
ln -s "$work/in.json" "$work/in-link.json"
"$TOPO" slurm "$work/in.json" -o "$work/in.json" 2>"$work/err1"; rc1=$?
"$TOPO" discover "$work/in.json" -o "$work/in-link.json" 2>"$work/err2"; rc2=$?
if [ $rc1 -eq 1 ] && [ $rc2 -eq 1 ] && cmp -s "$good" "$work/in.json" && grep -q 'in.json: is also an input of this run' "$work/err1" &&
   grep -q 'in-link.json: is also an input of this run' "$work/err2"; then
    ok "-o naming the input, or a link to it: exit 1, the input kept"
else
    not_ok "-o naming the input, or a link to it: exit 1, the input kept"; diag "exit $rc1 $rc2" "$(cat "$work/err1" "$work/err2")"
fi
# a file replaced keeps its owner and mode (a site's 0640 slurm:slurm
# topology.conf); a new one is 0644 whatever the umask
echo old >"$work/kept.conf"
chmod 640 "$work/kept.conf"
owner=
if [ "$(id -u)" = 0 ] && getent passwd nobody >/dev/null; then chown nobody "$work/kept.conf"; owner=nobody; fi
"$TOPO" slurm "$good" -o "$work/kept.conf" 2>/dev/null; rc=$?
(umask 077; "$TOPO" slurm "$good" -o "$work/new.conf" 2>/dev/null)
if [ $rc -eq 0 ] && grep -q '^SwitchName=l1' "$work/kept.conf" && [ "$(stat -c %a "$work/kept.conf")" = 640 ] &&
   { [ -z "$owner" ] || [ "$(stat -c %U "$work/kept.conf")" = "$owner" ]; } && [ "$(stat -c %a "$work/new.conf")" = 644 ]; then
    ok "a replaced file keeps its mode and owner (640 ${owner:-self}); a new one is 644"
else
    not_ok "a replaced file keeps its mode and owner; a new one is 644"; diag "exit $rc" "$(ls -l "$work/kept.conf" "$work/new.conf")"
fi
# (helper 38) a FIFO no process reads: exit 1 after 10 s, not a wedged cron job
rm -f "$work/fifo2"; mkfifo "$work/fifo2"
timeout 30 "$TOPO" slurm "$good" -o "$work/fifo2" 2>"$work/fifo2.err"; rc=$?
check "-o onto a FIFO no one reads: exit 1 within 10 s, saying so" sh -c \
    '[ "$1" = 1 ] && grep -q "a FIFO no process read within 10 s" "$2"' _ "$rc" "$work/fifo2.err"
# (helper 38) --node-params is words of one NodeName line: a newline, '#' or
# a NodeName= of its own would write slurm.conf lines of the caller's choosing
bad=0
for np in 'CPUs=1
NodeName=evil State=DRAIN' 'CPUs=1 # x' 'Features=x' 'CPUs=1 Weight=1\' 'PartitionName=evil Nodes=ALL' 'Weight' \
    'MaxTime=1' 'Switches=x' "Reason='a b'" 'Reason="open'; do
    "$TOPO" slurm --format features --node-params "$np" "$good" >"$work/np.out" 2>"$work/np.err"
    [ $? -eq 2 ] && [ ! -s "$work/np.out" ] && grep -q -- "--node-params: " "$work/np.err" || bad=$((bad + 1))
done
"$TOPO" slurm --format features --node-params 'CPUs=128 Gres=gpu:8' "$good" >"$work/np.ok"
np_ok() { "$TOPO" slurm --format features --node-params "$1" "$good" | grep -c "^NodeName=i-\[1-2\] Features=.* $1$"; }
check "--node-params: Slurm's own NodeName keys, a double-quoted value and a tab are taken" sh -c \
    '[ "$1$2" = 11 ]' _ "$(np_ok 'Reason="being tested" Boards=1 SocketsPerBoard=2 State=UNKNOWN')" "$(np_ok "$(printf 'CPUs=8\tWeight=2')")"
check "--node-params with a newline, '#', Features=, a trailing '\\', a key no NodeName line takes, a bare word or a quote not closed is a usage error; KEY=VALUE words are appended" sh -c \
    '[ "$1" = 0 ] && grep -q "^NodeName=i-\[1-2\] Features=.* CPUs=128 Gres=gpu:8$" "$2"' _ "$bad" "$work/np.ok"
# (helper 38) names an admin or a cloud gave are Slurm's as written: a host
# map's gpu.1 and a CSV's h3.5 were cut at the dot (h3.5 became another
# node's h3), and h1 beside h1.a left both out of topology.conf
printf 'i-1 gpu.1\n' >"$work/dot.map"
printf 'host,leaf\nh1,L1\nh1.a,L1\nh3.5,L1\nh2,L2\n' >"$work/dot.csv"
"$TOPO" slurm --host-map "$work/dot.map" "$good" >"$work/dotmap.out" 2>&1
"$TOPO" slurm "$work/dot.csv" >"$work/dotcsv.out" 2>&1
check "a host map's and a CSV's dotted names are written as given" sh -c \
    'grep -q "^SwitchName=l1 Nodes=gpu.1,i-2$" "$1" && grep -q "^SwitchName=L1 Nodes=h1,h1.a,h3.5$" "$2"' _ \
    "$work/dotmap.out" "$work/dotcsv.out"
# a run killed while its temporary file exists (here by a file size limit's
# SIGXFSZ; a cron job's timeout sends SIGTERM) removes it: the old output
# stays whole and no fabric.json.tmp.XXXXXX is left beside it
mkdir "$work/killed"
echo "old" >"$work/killed/fabric.json"
sh -c 'ulimit -f 8; exec "$1" generate --groups 16 --hosts 16 --format json -o "$2"' _ "$TOPO" "$work/killed/fabric.json" 2>/dev/null; rc=$?
check "a run killed while writing leaves the old file and no temporary file" sh -c \
    '[ "$1" -gt 128 ] && [ "$(cat "$2/fabric.json")" = old ] && [ "$(ls "$2")" = fabric.json ]' _ "$rc" "$work/killed"
