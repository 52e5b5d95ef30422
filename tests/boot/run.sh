#!/bin/sh
# tests/boot/run.sh - boot the guest on every backend this machine has and
# check what it reports: exact memory and nodes, exit statuses, selftest.
# A missing backend prints SKIP for each of its cases. KVM: the host's arch.
. "$(dirname "$0")/../lib.sh"

# backend_ok NAME: can this machine run backend NAME? Sets $why if not.
backend_ok() {
	case $1 in
	kvm-*) have_kvm "${1#kvm-}" || { why="KVM backend not usable: $kvm_why"; return 1; } ;;
	qemu-x86_64) have_cmd qemu-system-x86_64 || { why="qemu-system-x86_64 not installed"; return 1; } ;;
	qemu-arm64) have_cmd qemu-system-aarch64 || { why="qemu-system-aarch64 not installed"; return 1; } ;;
	esac
	[ -x "$PTELAB" ] || { why="$PTELAB is not built"; return 1; }
	return 0
}

backend_args() {
	case $1 in
	kvm-x86_64) echo "--backend kvm --arch x86_64" ;;
	kvm-arm64) echo "--backend kvm --arch arm64" ;;
	qemu-x86_64) echo "--backend qemu --arch x86_64" ;;
	qemu-arm64) echo "--backend qemu --arch arm64" ;;
	esac
}

# hello_case BACKEND MEM NODES WANT_MIB WANT_NODE_SIZE
hello_case() {
	be=$1 mem=$2 nodes=$3 want=$4 nodesz=$5
	name="$be: hello --mem $mem --nodes $nodes"
	# shellcheck disable=SC2046
	expect_status "$name" 0 "$PTELAB" $(backend_args "$be") --mem "$mem" --nodes "$nodes" \
		--timeout 60 run=hello || return
	out_has "$name" "^memory: $want MiB in $nodes nodes?\$" || return
	n=$(grep -cE "^node [0-9]+:.* $nodesz\$" "$TMPD/out")
	[ "$n" -eq "$nodes" ] || { fail "$name" "$n of $nodes nodes report $nodesz"; return; }
	out_has "$name" "^cmdline: run=hello\$" || return
	out_has "$name" "^timer: [1-9][0-9]* kHz" || return
	pass "$name"
}

# status_case BACKEND WANT ARGS...: the guest's status passes through.
status_case() {
	be=$1 want=$2
	shift 2
	name="$be: $* -> exit $want"
	# shellcheck disable=SC2046
	expect_status "$name" "$want" "$PTELAB" $(backend_args "$be") --timeout 60 "$@" && pass "$name"
}

# selftest_start BACKEND CPUS: run the whole in-guest selftest on CPUS cpus
# and three nodes (the migration cases that map {0,1} -> {1,2} need them)
# in the background (the longest case: it overlaps the others); its output
# goes to $TMPD/selftest-BACKEND-CPUS, its status to the same with .rc.
selftest_start() {
	st_out=$TMPD/selftest-$1-$2
	# shellcheck disable=SC2046
	("$PTELAB" $(backend_args "$1") --cpus "$2" --nodes 3 --mem 1536M \
		--timeout 400 run=selftest >"$st_out" 2>&1
	echo $? >"$st_out.rc") &
}

# selftest_check BACKEND CPUS: wait for selftest_start's run; every case
# passed (on more than one CPU the smp suite's stale-TLB detector ran on
# all of them).
selftest_check() {
	name="$1: selftest --cpus $2"
	st_out=$TMPD/selftest-$1-$2
	while [ ! -f "$st_out.rc" ]; do sleep 1; done
	cp "$st_out" "$TMPD/out"
	[ "$(cat "$st_out.rc")" -eq 0 ] || {
		fail "$name" "exit status $(cat "$st_out.rc"), wanted 0; output: $(tail -n 5 "$TMPD/out" | tr '\n' '|')"
		return
	}
	echo "boot-stage: $name, slowest (guest clock): $(slowest_cases "$TMPD/out" 8)"
	out_has "$name" "^ok   smp/stale_tlb_munmap" || return
	out_has "$name" "^[1-9][0-9]* passed, 0 failed(, [0-9]+ skipped)?\$" && pass "$name"
}

# stress_case BACKEND: run=stress:mm, the explorer's random mixes on 4
# real vCPUs and 2 nodes for 5 s: schedules ran, none failed.
stress_case() {
	name="$1: stress:mm --cpus 4 seconds=5"
	# shellcheck disable=SC2046
	expect_status "$name" 0 "$PTELAB" $(backend_args "$1") --cpus 4 --nodes 2 --mem 1G \
		--timeout 120 run=stress:mm seconds=5 || return
	out_has "$name" "^[1-9][0-9]* passed, 0 failed\$" && pass "$name"
}

# smp_hello_case BACKEND: --cpus 4 brings every cpu up, each on its node.
smp_hello_case() {
	be=$1
	name="$be: hello --cpus 4"
	# shellcheck disable=SC2046
	expect_status "$name" 0 "$PTELAB" $(backend_args "$be") --cpus 4 --nodes 2 --timeout 60 \
		run=hello || return
	for c in 0 1 2 3; do
		out_has "$name" "^cpu$c: online, node $((c % 2)), hwid " || return
	done
	out_has "$name" "^smp: 4 of 4 cpus online, secondaries up in [0-9]+ us\$" && pass "$name"
}

# Every exit status must pass through exactly: these cover isa-debug-exit's
# lost top bit (128 -> 0 would be a false pass) and its 127 (= "cannot run").
STATUSES="0 1 2 63 127 128 200 255"
STATUS_CASES=$(for st in $STATUSES; do printf 'exit:%s ' "$st"; done)

# signal_case SIG WANT: SIGNAL stops a hanging QEMU run; ptelab exits WANT,
# QEMU is gone and the run's temporary directory is removed.
signal_case() {
	sig=$1 want=$2 name="qemu-x86_64: SIG$1 -> exit $2, QEMU stopped, no files left"
	tmp=$TMPD/sig-$sig
	mkdir -p "$tmp"
	TMPDIR=$tmp "$PTELAB" --backend qemu --arch x86_64 --timeout 60 run=hang >"$TMPD/out" 2>&1 &
	pid=$!
	running=0
	for _ in $(seq 100); do # wait until QEMU runs with the run's files
		pgrep -f "$tmp/ptelab" >/dev/null && running=1 && break
		sleep 0.1
	done
	if [ "$running" = 0 ]; then
		kill -s KILL "$pid"
		wait "$pid"
		fail "$name" "QEMU never ran with the run's files: $(tail -n 3 "$TMPD/out" | tr '\n' '|')"
		return
	fi
	sleep 0.3
	kill -s "$sig" "$pid"
	wait "$pid"
	got=$?
	[ "$got" -eq "$want" ] || { fail "$name" "exit status $got; $(tail -n 3 "$TMPD/out" | tr '\n' '|')"; return; }
	sleep 0.2
	pgrep -f "$tmp/ptelab" >/dev/null && { fail "$name" "QEMU still runs"; return; }
	[ -z "$(ls -A "$tmp")" ] || { fail "$name" "left behind: $(ls -A "$tmp")"; return; }
	pass "$name"
}

# verbose_case: --verbose --keep prints a QEMU command that runs as pasted
# and exits with the guest's status in QEMU's own encoding.
verbose_case() {
	name="qemu-x86_64: --verbose --keep prints a command that runs as pasted"
	tmp=$TMPD/verbose
	mkdir -p "$tmp"
	TMPDIR=$tmp expect_status "$name" 7 "$PTELAB" --backend qemu --arch x86_64 --verbose --keep \
		--timeout 60 run=exit:7 || return
	cmd=$(grep '^ptelab: qemu-system-x86_64 ' "$TMPD/out" | sed 's/^ptelab: //')
	[ -n "$cmd" ] || { fail "$name" "no command printed"; return; }
	out_has "$name" "^ptelab: kept $tmp/ptelab" || return
	(eval "$cmd") >"$TMPD/pasted" 2>&1
	got=$?
	[ "$got" -eq 15 ] || { fail "$name" "pasted command exited $got, wanted 15 ((7 << 1) | 1): $(tail -n 3 "$TMPD/pasted" | tr '\n' '|')"; return; }
	st=$(od -An -tu1 "$(ls -d "$tmp"/ptelab.*)/status" | tr -s ' \n' ' ' | sed 's/ *$//;s/.* //')
	[ "$st" = 7 ] || { fail "$name" "status byte file holds '$st', wanted 7"; return; }
	pass "$name"
	name="qemu-x86_64: --verbose without --keep says the files go away"
	TMPDIR=$tmp expect_status "$name" 0 "$PTELAB" --backend qemu --arch x86_64 --verbose \
		--timeout 60 run=exit:0 || return
	out_has "$name" "removes when it exits; add --keep" || return
	[ "$(ls "$tmp" | wc -l)" -eq 1 ] || { fail "$name" "files left: $(ls "$tmp")"; return; }
	pass "$name"
}

# trace_case BACKEND: trace=on boots guest-trace.elf, whose selftest of
# the trace passes and prints trace lines; the measured image refuses
# trace=on with a usage error.
trace_case() {
	name="$1: trace=on boots the trace image"
	# shellcheck disable=SC2046
	expect_status "$name" 0 "$PTELAB" $(backend_args "$1") --timeout 120 \
		run=selftest:trace/ trace=on || return
	out_has "$name" "^3 passed, 0 failed" && out_has "$name" "^trace: cpu0 exit " &&
		pass "$name"
	name="$1: trace=on on the measured image -> exit 2"
	# shellcheck disable=SC2046
	expect_status "$name" 2 "$PTELAB" $(backend_args "$1") --timeout 60 \
		--kernel "$TOP/build/${1#*-}/guest.elf" run=hello trace=on || return
	out_has "$name" "this image has no trace built in" && pass "$name"
	name="$1: ptdump:fork prints the strips of parent and child"
	# shellcheck disable=SC2046
	expect_status "$name" 0 "$PTELAB" $(backend_args "$1") --timeout 60 run=ptdump:fork || return
	out_has "$name" "^-- the child" && out_has "$name" "^  folio +aaaaaaaaaaaaaaaa " &&
		pass "$name"
	name="$1: ptdump:bogus -> exit 2"
	# shellcheck disable=SC2046
	expect_status "$name" 2 "$PTELAB" $(backend_args "$1") --timeout 60 run=ptdump:bogus || return
	out_has "$name" "the operation is one of munmap, mprotect, fork, gup, migrate" && pass "$name"
}

# reclaim_case BACKEND: bench:reclaim and bench:reclaim_shared once (8
# MiB, one rep): a RESULT line per folio size and variant of each; in
# each the pages reclaim freed all went to swap (pgsteal = pswpout > 0);
# bench:reclaim's came back (pswpin > 0), bench:reclaim_shared's were
# unmapped from both mms (reclaim_shared > 0).
reclaim_case() {
	name="$1: bench:reclaim and reclaim_shared reclaim to swap"
	# shellcheck disable=SC2046
	expect_status "$name" 0 "$PTELAB" $(backend_args "$1") --timeout 120 \
		run=bench:reclaim,bench:reclaim_shared size=8 reps=1 || return
	for b in reclaim reclaim_shared; do
		n=$(grep -c "^RESULT {\"bench\":\"$b\"" "$TMPD/out")
		[ "$n" -eq 10 ] || { fail "$name" "$b: $n RESULT lines, wanted 10"; return; }
	done
	bad=$(grep '^RESULT {"bench":"reclaim' "$TMPD/out" | awk '
		function c(name,  v) { v = $0; sub(".*\"" name "\":", "", v); sub(/[,}].*/, "", v); return v + 0 }
		{ shared = $0 ~ /"bench":"reclaim_shared"/
		  if (c("pgsteal") == 0 || c("pgsteal") != c("pswpout") ||
		      (!shared && c("pswpin") == 0) || (shared && c("reclaim_shared") == 0)) print }' | wc -l)
	[ "$bad" -eq 0 ] || { fail "$name" "$bad RESULT line(s) without pgsteal = pswpout > 0 and pswpin > 0 (reclaim) or reclaim_shared > 0 (reclaim_shared)"; return; }
	pass "$name"
}

# KVM runs the guest of the host's arch.
case $(uname -m) in
aarch64 | arm64) kvm_be=kvm-arm64 ;;
*) kvm_be=kvm-x86_64 ;;
esac
# Every backend's 4-CPU selftest starts first: the longest runs overlap
# each other and all the cases below (on 2 cores, one arch's selftest and
# the other's cases keep both busy).
for be in $kvm_be qemu-x86_64 qemu-arm64; do
	backend_ok "$be" && selftest_start "$be" 4
done
for be in $kvm_be qemu-x86_64 qemu-arm64; do
	if ! backend_ok "$be"; then
		for c in hello-1G-2 hello-768M-3 hello-big $STATUS_CASES hello-cpus-4 stress \
			selftest-cpus-4 usage trace trace-refused ptdump-fork ptdump-bogus reclaim; do
			skip "$be: $c" "$why"
		done
		continue
	fi
	hello_case "$be" 1G 2 1024 "512 MiB"
	hello_case "$be" 768M 3 768 "256 MiB"
	hello_case "$be" 5G 1 5120 "5 GiB"
	for st in $STATUSES; do
		status_case "$be" "$st" run=exit:"$st"
	done
	status_case "$be" 5 run=hello,exit:5
	smp_hello_case "$be"
	stress_case "$be"
	trace_case "$be"
	reclaim_case "$be"
	# The one-CPU run has no case the 4-CPU run lacks: make stress
	# (BOOT_FULL=1) runs it, make test does not.
	if [ "${BOOT_FULL:-0}" = 1 ]; then
		selftest_start "$be" 1
		selftest_check "$be" 1
	fi
	selftest_check "$be" 4
	name="$be: unknown command -> exit 2"
	# shellcheck disable=SC2046
	expect_status "$name" 2 "$PTELAB" $(backend_args "$be") --timeout 60 run=nosuchcommand &&
		out_has "$name" "unknown command 'nosuchcommand'" && pass "$name"
done

if backend_ok qemu-x86_64; then
	signal_case INT 130
	signal_case TERM 143
	signal_case HUP 129
	verbose_case
else
	for c in SIGINT SIGTERM SIGHUP verbose-keep verbose; do skip "qemu-x86_64: $c" "$why"; done
fi
summary
