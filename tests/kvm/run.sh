#!/bin/sh
# tests/kvm/run.sh [--bench] [ARCH...] - ptelab's KVM backend on a real Linux KVM,
# nested in QEMU TCG: for each ARCH (default: x86_64 arm64) boot Debian's
# kernel with an initramfs holding busybox, a static ptelab and the real
# guest images, and run tests/kvm/cases.sh there on /dev/kvm.
#
#  x86_64: qemu-system-x86_64 -M q35 -cpu max; TCG emulates AMD SVM with
#          nested paging, so /init loads irqbypass, kvm, ccp and kvm-amd.
#  arm64:  qemu-system-aarch64 -M virt,virtualization=on,gic-version=3
#          -cpu max; the kernel starts at EL2 and KVM is built in.
#
# The packages are fetched once into build/kvm/ARCH (tests/kvm/fetch.sh);
# the initramfs is rebuilt on every run (about a second); it carries
# build/user/ARCH/bin and build/selftests/ARCH/bin when they are built,
# for the run=exec cases. Every case line
# printed inside (ok/FAIL/SKIP) counts here. No QEMU, no package (no
# network) or no /dev/kvm in the nested VM: one SKIP line per arch.
# The nested VMs run side by side under nice; each has NESTED_TIMEOUT
# seconds (800).
# --bench runs tests/kvm/bench.sh there instead (the boot benchmark of
# tests/bench/boot.sh, on the nested KVM) and passes its RESULT and timing
# lines on; --shootdown runs tests/kvm/shootdown.sh (bench:zap, mprotect,
# migrate on 4 vCPUs, active=0 and 3) and passes its RESULT lines on;
# --full (make stress) runs the cases with the one-vCPU selftest too
# (kvm_full=1; make test's cases run the selftest on 4 vCPUs only, which
# covers every case the one-vCPU run has: about 200 s less a nested VM),
# and the run=exec cases make test leaves out (procmem, two sigtest
# cases, Linux's map_fixed_noreplace and cow);
# --scaling runs tests/kvm/scaling.sh (bench:fault and bench:gup
# with cpus=1,2,4,8 on the nested KVM) and passes its RESULT lines on; the
# nested VM then has NESTED_SMP vCPUs (default 1, for every stage).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
K=$TOP/build/kvm
STAGE=cases
[ "${1:-}" = --bench ] && STAGE=bench && shift
[ "${1:-}" = --shootdown ] && STAGE=shootdown && shift
[ "${1:-}" = --scaling ] && STAGE=scaling && shift
FULL=0
[ "${1:-}" = --full ] && FULL=1 && shift
ARCHES=${*:-x86_64 arm64}
NESTED_TIMEOUT=${NESTED_TIMEOUT:-800}
HOST_ARCH=$(uname -m)
[ "$HOST_ARCH" = aarch64 ] && HOST_ARCH=arm64

# A quiet `make` of build targets, outside any make that runs this script.
make_targets() {
	(cd "$TOP" && env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make --no-print-directory -s "$@")
}

qemu_of() {
	case $1 in
	x86_64) echo qemu-system-x86_64 ;;
	arm64) echo qemu-system-aarch64 ;;
	esac
}

# mkcpio DIR OUT: a newc archive of DIR (cpio, or the fetched busybox's).
mkcpio() {
	if have_cmd cpio; then
		(cd "$1" && find . | cpio -o -H newc -R 0:0 --quiet) >"$2"
	else
		(cd "$1" && find . | "$K/$HOST_ARCH/busybox" cpio -o -H newc -R 0:0 2>/dev/null) >"$2"
	fi
}

# prepare ARCH: fetch, build the static tools, write $K/ARCH/initrd.
# Return: 0; 1 with the reason in $why when this machine lacks something
# (QEMU, the packages: a skip); 2 when ptelab's own build fails (a failure).
prepare() {
	a=$1
	q=$(qemu_of "$a")
	have_cmd "$q" || { why="$q is not installed"; return 1; }
	for f in "$a" "$HOST_ARCH"; do
		why=$("$TOP/tests/kvm/fetch.sh" "$f" "$K/$f" 2>&1) ||
			{ why="cannot fetch the $f packages: $why"; return 1; }
	done
	[ -f "$TOP/build/$a/guest.elf" ] || { why="build/$a/guest.elf is not built"; return 2; }
	why=$(make_targets "build/kvm/$a/ptelab" "build/kvm/$a/mkelf" "build/kvm/$a/timeit" 2>&1) ||
		{ why="cannot build the static ptelab for $a: $(echo "$why" | tail -n 3 | tr '\n' '|')"; return 2; }
	r=$K/$a/root
	rm -rf "$r"
	mkdir -p "$r/bin" "$r/proc" "$r/sys" "$r/dev" "$r/tmp" "$r/lib/modules" \
		"$r/ptelab/build/x86_64" "$r/ptelab/build/arm64" "$r/ptelab/tests/kvm" "$r/ptelab/tests/vmm" \
		"$r/ptelab/tests/user" "$r/ptelab/tests/selftests"
	cp "$K/$a/busybox" "$r/bin/busybox"
	ln -s busybox "$r/bin/sh"
	[ -d "$K/$a/modules" ] && cp "$K/$a"/modules/*.ko "$r/lib/modules/"
	cp "$TOP/tests/kvm/init.sh" "$r/init"
	cp "$TOP/tests/lib.sh" "$r/ptelab/tests/"
	cp "$TOP/tests/kvm/cases.sh" "$TOP/tests/kvm/bench.sh" "$TOP/tests/kvm/shootdown.sh" \
		"$TOP/tests/kvm/scaling.sh" "$r/ptelab/tests/kvm/"
	cp "$TOP/tests/vmm/run.sh" "$TOP/tests/vmm/hostile.sh" "$r/ptelab/tests/vmm/"
	cp "$TOP/tests/user/cases.sh" "$r/ptelab/tests/user/"
	cp "$TOP/tests/selftests/check.sh" "$TOP/tests/selftests/expected" "$r/ptelab/tests/selftests/"
	cp "$K/$a/ptelab" "$K/$a/mkelf" "$K/$a/timeit" "$r/ptelab/build/"
	for g in x86_64 arm64; do
		[ -f "$TOP/build/$g/guest.elf" ] && cp "$TOP/build/$g/guest.elf" "$r/ptelab/build/$g/"
		# Other builds of the guest to compare (SCALING_GUESTS).
		for e in "$TOP/build/$g"/guest-*.elf; do
			[ -f "$e" ] && cp "$e" "$r/ptelab/build/$g/"
		done
	done
	# The static programs run=exec runs (tests/kvm/cases.sh), when built.
	for d in user selftests; do
		if [ -d "$TOP/build/$d/$a/bin" ]; then
			mkdir -p "$r/ptelab/build/$d/$a" && cp -r "$TOP/build/$d/$a/bin" "$r/ptelab/build/$d/$a/"
		fi
	done
	mkcpio "$r" "$K/$a/initrd" || { why="cannot write the initramfs"; return 2; }
}

# The SCALING_* settings of tests/kvm/scaling.sh, for the nested VM's
# command line (which reaches /init as its environment): a word list
# travels with commas, since the kernel splits its command line at spaces.
scaling_args() {
	for v in SCALING_CPUS SCALING_BENCHES SCALING_REPS SCALING_SIZE SCALING_FOLIOS SCALING_GUESTS; do
		eval "x=\${$v:-}"
		[ -n "$x" ] && printf ' %s=%s' "$v" "$(echo "$x" | tr ' ' ,)"
	done
}

# boot ARCH: run the nested VM; its console in $K/ARCH/console.log.
boot() {
	a=$1
	args="panic=-1 quiet kvm_stage=$STAGE kvm_full=$FULL$(scaling_args)"
	case $a in
	x86_64) set -- qemu-system-x86_64 -M q35 -cpu max -kernel "$K/$a/kernel" \
		-append "console=ttyS0 $args" ;;
	arm64) set -- qemu-system-aarch64 -M virt,virtualization=on,gic-version=3 -cpu max,pauth-impdef=on \
		-kernel "$K/$a/kernel" -append "console=ttyAMA0 $args" ;;
	esac
	timeout "$NESTED_TIMEOUT" nice -n 10 "$@" -m 2G -smp "${NESTED_SMP:-1}" -nographic -no-reboot \
		-initrd "$K/$a/initrd" </dev/null 2>&1 | tr -d '\r' >"$K/$a/console.log"
}

# collect ARCH: count the case lines of the console log.
collect() {
	a=$1 log=$K/$1/console.log
	nokvm=$(sed -n 's/^kvm-stage: no-kvm: //p' "$log")
	insmod=$(sed -n 's/^kvm-stage: insmod //p' "$log" | tr '\n' '|')
	if [ -n "$nokvm" ] && [ -n "$insmod" ]; then
		# The modules are the ones fetched with the kernel: not loading
		# them is this stage's failure, not a missing feature.
		fail "kvm-$a: nested stage" "insmod failed: $insmod $nokvm"
		return
	elif [ -n "$nokvm" ]; then
		skip "kvm-$a: nested stage" "$nokvm"
		return
	fi
	if ! grep -q "^kvm-stage: begin" "$log"; then
		fail "kvm-$a: nested VM" "no /init output in $NESTED_TIMEOUT s: $(tail -n 5 "$log" | tr '\n' '|')"
		return
	fi
	p0=$PASSED
	while IFS= read -r line; do
		case $line in
		"RESULT "* | "kvm-stage: timing "*) ;;
		"ok   "*) PASSED=$((PASSED + 1)) ;;
		"FAIL "*) FAILED=$((FAILED + 1)) ;;
		"SKIP: "*) SKIPPED=$((SKIPPED + 1)) ;;
		"kvm-stage: timing: "* | "kvm-stage: selftest"* | "kvm-stage: scaling"* | "kvm-stage: begin"* | "kvm-stage: end"*) ;;
		*) continue ;;
		esac
		echo "$line"
	done <"$log"
	if ! grep -q "^kvm-stage: end" "$log"; then
		fail "kvm-$a: nested VM" "stopped before the end ($NESTED_TIMEOUT s?): $(tail -n 5 "$log" | tr '\n' '|')"
	elif [ "$STAGE" = cases ] && { [ "$PASSED" -eq "$p0" ] ||
		! grep -qE '^[0-9]+ passed, [0-9]+ failed' "$log"; }; then
		# cases.sh ends with its own summary; without it (or without
		# one passing case) it did not run to the end.
		fail "kvm-$a: nested cases" "no case passed or no summary: $(tail -n 5 "$log" | tr '\n' '|')"
	fi
}

# Prepare each arch in turn, then run the nested VMs side by side (each
# is one single-threaded TCG process; NESTED_JOBS=1 runs one at a time)
# and read their consoles in order.
t0=$(date +%s)
booted=""
for a in $ARCHES; do
	prepare "$a"
	case $? in
	0) booted="$booted $a" ;;
	1) skip "kvm-$a: nested stage" "$why" ;;
	*) fail "kvm-$a: nested stage" "$why" ;;
	esac
done
for a in $booted; do
	if [ "${NESTED_JOBS:-2}" = 1 ]; then
		boot "$a"
	else
		boot "$a" &
	fi
done
wait
for a in $booted; do
	collect "$a"
	echo "kvm-$a: $(sed -n 's/^kvm-stage: end at //p' "$K/$a/console.log") in the nested VM" \
		"(console: build/kvm/$a/console.log)"
done
echo "kvm: nested stage took $(($(date +%s) - t0)) s"
summary
