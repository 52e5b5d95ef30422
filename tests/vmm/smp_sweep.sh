#!/bin/sh
# tests/vmm/smp_sweep.sh - benchmarks on several CPUs and sweeps across CPUs
# and hosts, from the outside:
#
#  1. cpus= is checked: beyond 1..8 before boot, beyond the machine's CPUs
#     and for a benchmark that runs on CPU 0 by the guest (exit 2);
#  2. bench:fault cpus=2 faults each page once (the faults count is the
#     1-CPU one) and bench:gup cpus=2 grabs everything twice (ref_updates
#     doubles), with cpus and workers in the RESULT lines;
#  3. make sweep CPUS=1,2 KNOB=KEY=LIST: a row per point with the cpus and
#     KEY columns, and the plots against CPUs;
#  4. make sweep HOSTS=FILE through a real ssh login: a local sshd on a free
#     port with throwaway keys in build/sshtest, the points run in the
#     login's ~/ptelab-sweep/<stamp> (the build copied there, removed
#     after), their parts come back and merge into one CSV with one
#     version. SKIP when sshd cannot start here.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
REAL_X86=$TOP/build/x86_64/guest.elf

# refused WANT ARGS...: exit 2 with a line containing WANT.
refused() {
	want=$1
	shift
	name="refused: $*"
	expect_status "$name" 2 "$PTELAB" --accel icount "$@" && out_has "$name" "$want" && pass "$name"
}

# result_field FILE VARIANT FIELD: FIELD's number in FILE's RESULT line of
# VARIANT (the first one).
result_field() {
	grep "\"variant\":\"$2\"" "$1" | head -n 1 | sed -E "s/.*\"$3\":([0-9]+).*/\1/"
}

cpus_cases() {
	refused "cpus=9: want a number 1..8" run=bench:fault cpus=9
	refused "guest command line: cpus=2: the machine has 1 CPU \\(ptelab --cpus 2\\)" run=bench:fault cpus=2
	refused "^ptelab: guest command line: bench zap: cpus= does not apply" --cpus 2 run=bench:zap cpus=2
	for b in fault gup; do
		name="bench:$b cpus=2: the work of two CPUs, cpus, workers and params in RESULT"
		for k in 1 2; do
			expect_status "$name" 0 "$PTELAB" --accel icount --cpus 2 --mem 256M \
				--results "$TMPD/$b$k.json" run=bench:$b cpus=$k size=8 reps=1 folios=64K ||
				continue 2
		done
		v=batched c=faults
		[ $b = gup ] && v=walk+grab c=ref_updates
		one=$(result_field "$TMPD/${b}1.json" $v $c) two=$(result_field "$TMPD/${b}2.json" $v $c)
		want=$one
		[ $b = gup ] && want=$((2 * one))
		if [ -z "$one" ] || [ "$one" -eq 0 ] || [ "$two" != "$want" ]; then
			fail "$name" "$c: $one on 1 CPU, $two on 2 (wanted $want)"
		elif ! grep -q '"cpus":2,"workers":2,' "$TMPD/${b}2.json" ||
			! grep -q '"cpus":2,"workers":1,' "$TMPD/${b}1.json"; then
			fail "$name" "cpus/workers: $(grep -o '"cpus":[0-9]*,"workers":[0-9]*' "$TMPD/${b}2.json" | head -n 1)"
		elif [ $b = gup ] && ! grep -q '"params":"gup_op=longterm gup_keep=pages gup_write=on gup_touch=off gup_nr=65536"' "$TMPD/${b}2.json"; then
			fail "$name" "params: $(grep -o '"params":"[^"]*"' "$TMPD/${b}2.json" | head -n 1)"
		elif [ $b = fault ] && ! grep -q '"params":"",' "$TMPD/${b}2.json"; then
			fail "$name" "params of bench:fault: $(grep -o '"params":"[^"]*"' "$TMPD/${b}2.json" | head -n 1)"
		else
			pass "$name"
		fi
	done
}

# is_png FILE...: every FILE starts with the PNG signature.
is_png() {
	for f in "$@"; do
		head -c 8 "$f" 2>/dev/null | od -An -c | grep -q 'P   N   G' || return 1
	done
}

sweep_cpus_case() {
	name="sweep.sh CPUS=1,2 KNOB=gup_walk=on,off: rows per point, cpus and knob columns, plots"
	if [ ! -f "$REAL_X86" ] || ! have_cmd gnuplot || ! have_cmd parallel; then
		skip "$name" "no build/x86_64/guest.elf, gnuplot or GNU parallel"
		return
	fi
	if ! CPUS=1,2 KNOB=gup_walk=on,off BENCH=fault,zap FOLIOS=64K CAPS=1,max SIZE=8 \
		"$TOP/tests/bench/sweep.sh" >"$TMPD/out" 2>&1; then
		fail "$name" "$(tail -n 3 "$TMPD/out" | tr '\n' '|')"
		return
	fi
	d=$TOP/build/sweep/latest
	rows=$(awk -F, 'NR == 1 { gsub(/"/, ""); for (i = 1; i <= NF; i++) col[$i] = i; next }
		{ printf "%s:%s:%s:%s:%s ", $col["bench"], $col["variant"], $col["cpus"],
			$col["workers"], $col["gup_walk"] }' "$d/sweep.csv")
	want="fault:batched:1:1:on fault:batched:1:1:off fault:batched:2:2:on fault:batched:2:2:off"
	want="$want zap:cap=1:1:1:on zap:cap=max:1:1:on zap:cap=1:1:1:off zap:cap=max:1:1:off"
	want="$want zap:cap=1:2:1:on zap:cap=max:2:1:on zap:cap=1:2:1:off zap:cap=max:2:1:off "
	if [ "$rows" != "$want" ]; then
		fail "$name" "rows: $rows"
	elif ! is_png "$d/cpus-fault.png" "$d/cpus-zap.png" "$d/time-zap.png"; then
		fail "$name" "missing or not PNG: $(ls "$d")"
	else
		pass "$name"
	fi
	name="sweep.sh: a bad CPUS or KNOB is refused before any run"
	expect_status "$name" 2 env CPUS=1,9 BENCH=zap "$TOP/tests/bench/sweep.sh" &&
		expect_status "$name" 2 env KNOB=gup_walk BENCH=zap "$TOP/tests/bench/sweep.sh" &&
		pass "$name"
}

SSHD_PID=""
stop_sshd() { [ -z "$SSHD_PID" ] || kill "$SSHD_PID" 2>/dev/null; }

# start_sshd DIR: an sshd for 127.0.0.1 on a free port with throwaway keys
# in DIR; sets SSHD_PID and PORT. Return: 0, or 1 with the reason in $why.
start_sshd() {
	s=$1
	sshd=$(command -v sshd || echo /usr/sbin/sshd)
	[ -x "$sshd" ] || { why="no sshd (Debian's openssh-server)"; return 1; }
	[ "$(id -u)" = 0 ] || { why="sshd logins need root here"; return 1; }
	rm -rf "$s" && mkdir -p "$s" /run/sshd || { why="cannot make $s or /run/sshd"; return 1; }
	ssh-keygen -q -t ed25519 -N '' -f "$s/host_key" && ssh-keygen -q -t ed25519 -N '' -f "$s/id" &&
		cp "$s/id.pub" "$s/authorized_keys" || { why="ssh-keygen failed"; return 1; }
	for try in 1 2 3 4 5; do
		PORT=$((20000 + ($$ * 7 + try * 997) % 40000))
		printf '%s\n' "Port $PORT" "ListenAddress 127.0.0.1" "HostKey $s/host_key" \
			"AuthorizedKeysFile $s/authorized_keys" "PidFile $s/sshd.pid" \
			"PermitRootLogin prohibit-password" "PasswordAuthentication no" \
			"KbdInteractiveAuthentication no" "UsePAM no" "StrictModes no" >"$s/sshd_config"
		: >"$s/sshd.log"
		"$sshd" -D -e -f "$s/sshd_config" 2>>"$s/sshd.log" &
		SSHD_PID=$!
		for _ in 1 2 3 4 5 6 7 8 9 10; do
			grep -q "Server listening" "$s/sshd.log" && return 0
			kill -0 "$SSHD_PID" 2>/dev/null || break
			sleep 0.5
		done
		stop_sshd
		wait "$SSHD_PID" 2>/dev/null
		SSHD_PID=""
	done
	why="sshd cannot start: $(tail -n 1 "$s/sshd.log")"
	return 1
}

sweep_ssh_case() {
	name="sweep.sh HOSTS=FILE through an ssh login: parts copied back, one CSV, one version"
	if [ ! -f "$REAL_X86" ] || ! have_cmd gnuplot || ! have_cmd parallel || ! have_cmd ssh ||
		! have_cmd rsync; then
		skip "$name" "no build/x86_64/guest.elf, gnuplot, GNU parallel, ssh or rsync"
		return
	fi
	s=$TOP/build/sshtest
	start_sshd "$s" || { skip "$name" "$why"; return; }
	login="ssh -p $PORT -i $s/id -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null"
	login="$login -o BatchMode=yes -o LogLevel=ERROR $(id -un)@127.0.0.1"
	if ! home=$($login 'echo $HOME' 2>&1); then
		fail "$name" "ssh login to the test sshd failed: $home"
		stop_sshd
		return
	fi
	echo "2/$login" >"$s/hosts"
	if ! HOSTS=$s/hosts CPUS=1,2 BENCH=zap,fault FOLIOS=4K CAPS=1,max SIZE=8 \
		"$TOP/tests/bench/sweep.sh" >"$TMPD/out" 2>&1; then
		fail "$name" "$(tail -n 3 "$TMPD/out" | tr '\n' '|')"
	elif [ "$(tail -n +2 "$TOP/build/sweep/latest/sweep.csv" | wc -l)" -ne 6 ]; then
		fail "$name" "$(tail -n +2 "$TOP/build/sweep/latest/sweep.csv" | wc -l) rows, wanted 6"
	elif [ "$(grep -c " done on .* in $home/ptelab-sweep/" "$TMPD/out")" -ne 4 ]; then
		fail "$name" "not 4 points run in the login's work directory: $(grep ' done ' "$TMPD/out" | tr '\n' '|')"
	elif stamp=$(basename "$(readlink "$TOP/build/sweep/latest")") &&
		[ -e "$home/ptelab-sweep/$stamp" ]; then
		fail "$name" "the copies were not cleaned up: $(ls "$home/ptelab-sweep/$stamp")"
	else
		pass "$name"
	fi
	stop_sshd
	wait "$SSHD_PID" 2>/dev/null
}

cpus_cases
sweep_cpus_case
sweep_ssh_case
summary
