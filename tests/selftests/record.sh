#!/bin/sh
# tests/selftests/record.sh - `make selftests-linux`: run the programs
# tests/selftests/fetch.sh builds (Linux 6.12's mm selftests, the same
# static binaries ptelab runs) on Debian's Linux 6.12 itself, and keep
# their TAP in tests/selftests/linux-6.12-ARCH.tap, which
# tests/selftests/run.sh reads to put Linux's result beside ptelab's.
#
# The machine is the one ptelab's selftests stage asks QEMU for: TCG
# without icount, -cpu max, ptelab's -M (pc; virt with a GICv3), 1 CPU,
# ptelab's default memory (1 GiB over 2 nodes); the slow programs
# (migration: it wants 3 threads and 2 nodes) boot a second time with 4
# CPUs, as the stage runs them (--cpus 4 --nodes 2), and their TAP
# follows the first boot's in the same file. The initramfs is busybox,
# the programs and tests/selftests/linux-init.sh, which prints the THP
# defaults the kernel starts with, whether gup_test exists (Debian builds
# no CONFIG_GUP_TEST), swap and hugetlb pages, then each program's TAP.
# The recording is not part of `make test`: a boot takes minutes.
# ARCHES (default "x86_64 arm64") picks arches.
TOP=$(cd "$(dirname "$0")/../.." && pwd)
BIN=${SELFTESTS_DIR:-$TOP/build/selftests}
export LX_NODES=2 LX_MEM=1G LX_ACCEL=tcg LX_TIMEOUT="${LX_TIMEOUT:-1800}"
export LX_MACHINE_x86_64=pc LX_MACHINE_arm64=virt,gic-version=3
# shellcheck source=tests/bench/linux/boot.sh
. "$TOP/tests/bench/linux/boot.sh"
PROGS="madv_populate map_fixed_noreplace mkdirty cow"
SLOW_PROGS="migration"

# prepare ARCH NAME PROGS...: the kernel, the programs and the initramfs
# $LX/ARCH/NAME-initrd.
prepare() {
	a=$1 n=$2
	shift 2
	command -v "$(lx_qemu "$a")" >/dev/null || { echo "record: $(lx_qemu "$a") is not installed"; return 1; }
	"$TOP/tests/bench/linux/fetch.sh" "$a" "$LX/$a" || return 1
	r=$LX/$a/$n-root
	rm -rf "$r"
	mkdir -p "$r/bin" "$r/proc" "$r/sys" "$r/dev" "$r/tmp" || return 1
	cp "$LX/$a/busybox" "$r/bin/busybox" && ln -s busybox "$r/bin/sh" &&
		cp "$TOP/tests/selftests/linux-init.sh" "$r/init" && chmod +x "$r/init" || return 1
	for p in "$@"; do
		cp "$BIN/$a/bin/$p" "$r/bin/$p" || return 1
	done
	echo "$*" >"$r/bin/selftests" && lx_cpio "$r" "$LX/$a/$n-initrd"
}

# boot_progs ARCH NAME CPUS PROGS...: boot NAME's initramfs on CPUS CPUs,
# check every program ended; the console in $log.
boot_progs() {
	a=$1 n=$2 cpus=$3
	shift 3
	log=$LX/$a/$n-6.12.log
	echo "record: Linux 6.12 ($(cat "$LX/$a/6.12/version")) on $a, $cpus CPU(s), console in $log"
	LX_SMP=$cpus LX_INITRD=$LX/$a/$n-initrd lx_boot "$a" 6.12 debian "$log"
	for p in "$@"; do
		grep -q "^selftest: end $p " "$log" ||
			{ echo "record: $p did not finish: $(tail -n 3 "$log" | tr '\n' '|')"; return 1; }
	done
}

# tap LOG: the TAP of LOG's programs. The firmware's escape codes may
# share a line with the first marker.
tap() {
	sed -n 's/.*\(selftest: \)/\1/p; /^selftest: begin/,/^selftest: end/{/^selftest: /!p}' "$1"
}

# record ARCH: both boots, the TAP kept. RECORD_PARTS=slow boots the
# second only and replaces its part of the file (from its first program's
# "selftest: begin" on), keeping the first boot's as recorded.
record() {
	a=$1
	out=$TOP/tests/selftests/linux-6.12-$a.tap
	prepare "$a" selftests-slow $SLOW_PROGS || return 1
	if [ "${RECORD_PARTS:-all}" = slow ]; then
		[ -f "$out" ] || { echo "record: RECORD_PARTS=slow needs ${out#"$TOP"/}"; return 1; }
		first=${SLOW_PROGS%% *}
		sed "/^selftest: begin $first\$/,\$d" "$out" >"$out.new" || return 1
	else
		prepare "$a" selftests $PROGS && boot_progs "$a" selftests 1 $PROGS || return 1
		{
			echo "# Linux's mm selftests on Debian's Linux $(cat "$LX/$a/6.12/version"), $a,"
			echo "# QEMU TCG as ptelab's selftests stage; tests/selftests/record.sh wrote this."
			tap "$log"
		} >"$out.new"
	fi
	boot_progs "$a" selftests-slow 4 $SLOW_PROGS && tap "$log" >>"$out.new" && mv "$out.new" "$out" ||
		return 1
	echo "record: ${out#"$TOP"/}: $(grep -c '^ok ' "$out") ok, $(grep -c '^not ok ' "$out") not ok"
}

sh "$TOP/tests/selftests/fetch.sh" "$BIN" || exit 1
for a in ${ARCHES:-x86_64 arm64}; do
	record "$a" || exit 1
done
