#!/bin/sh
# tests/kvm/cases.sh BACKEND - the cases tests/kvm/run.sh runs inside its
# nested VM, on the real /dev/kvm there; BACKEND is kvm-x86_64 or kvm-arm64.
# The real guest: hello at several sizes and node counts (exact memory and
# nodes), exit statuses 0..255 (a sample) with --timing, a bad command,
# static user programs and Linux's mm selftests by run=exec (user_cases,
# selftest_cases), run=selftest on 1 and on 4 vCPUs; then
# the backend cases of tests/vmm/run.sh: tiny guests, crashes named with
# registers, the real guest's run=fault (3, the exception and its address)
# and run=hang (124 at --timeout).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/user/cases.sh
. "$TOP/tests/user/cases.sh"
# shellcheck source=tests/selftests/check.sh
. "$TOP/tests/selftests/check.sh"
be=$1
arch=${be#kvm-}
args="--backend kvm --arch $arch"

# user_cases: tests/user's programs, checked as tests/user/run.sh checks
# them (tests/user/cases.sh): hello, forktest (with the children that
# outlive pid 1), mm, segv; with kvm_full=1 also procmem and sigtest's
# SIGSEGV-handler and rt_sigreturn cases.
user_cases() {
	u=$TOP/build/user/$arch
	if [ ! -x "$u/bin/hello" ]; then
		skip "$be: user programs" "build/user/$arch was not built (make user-progs)"
		return
	fi
	BACKEND=kvm hello_cases "$be" "$u"
	BACKEND=kvm fork_cases "$be" "$u"
	if [ "${kvm_full:-0}" = 1 ]; then
		BACKEND=kvm thread_cases "$be" "$u"
	else
		BACKEND=kvm thread_cases "$be" "$u" quick
	fi
	status_case 0 --timeout 60 --initramfs "$u" -- run=exec:/bin/mm &&
		out_has "$name" "^mm: ok\$" && pass "$name"
	status_case 139 --timeout 60 --initramfs "$u" -- run=exec:/bin/segv &&
		out_has "$name" "killed by signal 11" && pass "$name"
	[ "${kvm_full:-0}" = 1 ] || return
	BACKEND=kvm procmem_cases "$be" "$u"
	BACKEND=kvm SIG_CASES="longjmp resume" sig_cases "$be" "$u"
}

# selftest_case PROG: Linux's selftest PROG on this backend, each TAP case
# judged against tests/selftests/expected (tests/selftests/check.sh); its
# time on the nested VM's clock.
selftest_case() {
	out=$TMPD/selftest-$1.out
	t0=$(uptime_ms)
	# shellcheck disable=SC2086
	"$PTELAB" $args --timeout 600 --initramfs "$TOP/build/selftests/$arch" -- "run=exec:/bin/$1" \
		>"$out" 2>&1
	rc=$?
	echo "kvm-stage: selftest exec:/bin/$1: status $rc in $(($(uptime_ms) - t0)) ms"
	if grep -Eq 'panic|unhandled exception' "$out"; then
		fail "$be: $1" "the kernel failed: $(grep -E 'panic|unhandled exception' "$out" | head -n 1)"
		return
	fi
	check_cases "$be" "$1" "$out" >"$TMPD/cases"
	report_cases "$TMPD/cases"
}

# selftest_cases: mkdirty and madv_populate; with kvm_full=1 (make stress)
# map_fixed_noreplace and cow too.
selftest_cases() {
	if [ ! -d "$TOP/build/selftests/$arch/bin" ]; then
		skip "$be: Linux's mm selftests" "build/selftests/$arch was not built (make selftests-fetch)"
		return
	fi
	progs="mkdirty madv_populate"
	[ "${kvm_full:-0}" = 1 ] && progs="$progs map_fixed_noreplace cow"
	for p in $progs; do
		selftest_case "$p"
	done
}

# hello_case MEM NODES WANT_MIB WANT_NODE_SIZE
hello_case() {
	name="$be: hello --mem $1 --nodes $2"
	# shellcheck disable=SC2086
	expect_status "$name" 0 "$PTELAB" $args --mem "$1" --nodes "$2" --timeout 60 run=hello ||
		return
	out_has "$name" "^memory: $3 MiB in $2 nodes?\$" || return
	n=$(grep -cE "^node [0-9]+:.* $4\$" "$TMPD/out")
	[ "$n" -eq "$2" ] || { fail "$name" "$n of $2 nodes report $4"; return; }
	out_has "$name" "^cmdline: run=hello\$" && out_has "$name" "^timer: [1-9][0-9]* kHz" &&
		pass "$name"
}

# status_case WANT ARGS...: ptelab exits WANT; the output is in $TMPD/out.
status_case() {
	want=$1
	shift
	name="$be: $* -> exit $want"
	# shellcheck disable=SC2086
	expect_status "$name" "$want" "$PTELAB" $args "$@"
}

# uptime_ms: milliseconds since boot (busybox date has no %N).
uptime_ms() {
	read -r up _ </proc/uptime
	echo $((${up%.*} * 1000 + 1${up#*.}0 - 1000))
}

hello_case 256M 1 256 "256 MiB"
hello_case 1G 2 1024 "512 MiB"
hello_case 768M 3 768 "256 MiB"
status_case 0 --timing --mem 1G --nodes 2 run=exit:0 &&
	out_has "$name" "^ptelab: timing: vm_create=[0-9]+us load=[0-9]+us first_exit=[0-9]+us" &&
	pass "$name" && sed -n 's/^ptelab: timing: /kvm-stage: timing: /p' "$TMPD/out"
status_case 7 --timeout 60 run=hello,exit:7 && out_has "$name" "^cmdline: " && pass "$name"
# Every status byte passes through exactly (the boot stage's set).
for st in 1 2 63 127 128 200 255; do
	status_case "$st" --timeout 60 run=exit:"$st" && pass "$name"
done
case $arch in
x86_64) ram=0x0 ;;
arm64) ram=0x40000000 ;;
esac
status_case 0 --verbose --mem 512M --nodes 2 run=exit:0 &&
	out_has "$name" "^ptelab: layout: memslot 0: GPA \[$ram, " &&
	out_has "$name" "^ptelab: layout: node 1: " && out_has "$name" "^ptelab: layout: boot: " &&
	pass "$name"
status_case 2 --timeout 60 run=nosuchcommand &&
	out_has "$name" "unknown command 'nosuchcommand'" && pass "$name"
# Static user programs (tests/user) and Linux's mm selftests from an
# initramfs, which this backend passes as PVH module 1 on x86_64 and names
# in the tree's /chosen/linux,initrd-* on arm64 (docs/user.md).
t0=$(uptime_ms)
user_cases
echo "kvm-stage: timing: run=exec of tests/user (kvm_full=${kvm_full:-0}): $(($(uptime_ms) - t0)) ms"
selftest_cases
# The whole selftest on one vCPU: make stress only (kvm_full=1 from
# tests/kvm/run.sh --full); make test runs it on 4 vCPUs below.
if [ "${kvm_full:-0}" = 1 ]; then
	t0=$(uptime_ms)
	status_case 0 --timeout 400 run=selftest && out_has "$name" "^[1-9][0-9]* passed, 0 failed(, [0-9]+ skipped)?\$" &&
		pass "$name" && echo "kvm-stage: selftest: $(grep -E '^[0-9]+ passed' "$TMPD/out") in $(($(uptime_ms) - t0)) ms"
fi
# SMP: every cpu comes up (one vCPU thread each, in-kernel LAPIC / PSCI and
# vGICv3), and the selftest passes on 4 vCPUs too: the smp suite (smp_run
# on every CPU, the stale-TLB detector), the concurrency and race suites
# among them. The nested VM has one CPU for the 4 vCPU threads. make test
# leaves out what only repeats mm logic at length, which the boot stage
# runs under QEMU on 4 vCPUs: the suites fork, mm_diff, migrate, gup,
# gup_batch and madvise (most of the selftest's time), mremap's cap-1
# against max differential, and the cases that fill the guest's memory to
# make an allocation fail (oom_in_*, the fragmented and PMD fallbacks:
# each page first touched is an exit to the nested KVM, which runs under
# TCG). A new suite runs here unless named below. make stress
# (kvm_full=1) runs the whole selftest.
st_filter=-mm_diff/+-fork/+-migrate/+-gup/+-gup_batch/+-madvise/+-oom_in_+-memory_is_fragmented
st_filter=$st_filter+-pmd_fault_falls_back+-_cap1_equals_max
[ "${kvm_full:-0}" = 1 ] && st_filter=""
status_case 0 --cpus 4 --timeout 60 run=hello && out_has "$name" "^smp: 4 of 4 cpus online" &&
	out_has "$name" "^cpu3: online, node 1" && pass "$name"
t0=$(uptime_ms)
status_case 0 --cpus 4 --timeout 600 "run=selftest${st_filter:+:$st_filter}" && out_has "$name" "^[1-9][0-9]* passed, 0 failed(, [0-9]+ skipped)?\$" &&
	out_has "$name" "^ok   smp/stale_tlb_migrate" && out_has "$name" "^ok   concurrency/" &&
	pass "$name" && echo "kvm-stage: selftest --cpus 4: $(grep -E '^[0-9]+ passed' "$TMPD/out") in $(($(uptime_ms) - t0)) ms"
echo "kvm-stage: selftest --cpus 4, slowest (guest clock): $(slowest_cases "$TMPD/out" 10)"
# The explorer's random mixes on the 4 real vCPUs for 5 s (run=stress:mm).
status_case 0 --cpus 4 --nodes 2 --mem 1G --timeout 120 run=stress:mm seconds=5 &&
	out_has "$name" "^[1-9][0-9]* passed, 0 failed\$" && pass "$name"
# The backend cases of tests/vmm/run.sh (tiny guests, crashes named with
# registers, the real guest's fault and hang) and, on x86_64, its
# no-backend cases (an arm64 host refuses their x86_64 guests). Its lines
# count; its summary does not.
parts=backends
[ "$arch" = x86_64 ] && parts="backends nobackend"
VMM_BACKENDS=$be VMM_PARTS=$parts sh tests/vmm/run.sh >"$TMPD/vmm" 2>&1
grep -v -E '^[0-9]+ passed, [0-9]+ failed' "$TMPD/vmm"
grep -q -E '^[0-9]+ passed, [0-9]+ failed' "$TMPD/vmm" ||
	fail "$be: tests/vmm/run.sh" "ended without a summary: $(tail -n 3 "$TMPD/vmm" | tr '\n' '|')"
# The hostile guests (tests/vmm/hostile.sh) on this backend, the
# shutdown race of vmm/kvm.c (--cpus 8, vCPU 0 exits at once) among them.
VMM_BACKENDS=$be sh tests/vmm/hostile.sh >"$TMPD/hostile" 2>&1
grep -v -E '^[0-9]+ passed, [0-9]+ failed' "$TMPD/hostile"
grep -q -E '^[0-9]+ passed, [0-9]+ failed' "$TMPD/hostile" ||
	fail "$be: tests/vmm/hostile.sh" "ended without a summary: $(tail -n 3 "$TMPD/hostile" | tr '\n' '|')"
summary
