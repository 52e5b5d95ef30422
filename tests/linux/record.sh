#!/bin/sh
# tests/linux/record.sh [KERNEL...] - `make linux-semantics`: run the
# scenario program (tests/linux/semantics.c) as the only process of
# Debian's Linux KERNEL (default: 6.12 6.1; fetched into build/compare by
# tests/bench/linux/fetch.sh) under QEMU with three NUMA nodes of 1 GiB
# and one CPU on node 0 (tests/bench/linux/boot.sh's lx_boot with
# LX_NODES=3: the mm host runners have three nodes, and the scenarios
# that migrate between two other nodes need the third), and write its
# lines to tests/linux/semantics-KERNEL.out, the expected output that
# tests/linux/semantics.sh diffs ptelab against. ARCHES (default x86_64)
# may add arm64, whose lines go to semantics-KERNEL-arm64.out.
TOP=$(cd "$(dirname "$0")/../.." && pwd)
export LX_NODES=3 LX_MEM=3G LX_TIMEOUT=${LX_TIMEOUT:-900}
# shellcheck source=tests/bench/linux/boot.sh
. "$TOP/tests/bench/linux/boot.sh"
KERNELS=${*:-6.12 6.1}

# prepare ARCH: the kernels, the program and the initramfs.
prepare() {
	a=$1
	command -v "$(lx_qemu "$a")" >/dev/null || { echo "record: $(lx_qemu "$a") is not installed"; return 1; }
	"$TOP/tests/bench/linux/fetch.sh" "$a" "$LX/$a" || return 1
	lx_make "build/compare/$a/semantics" || return 1
	r=$LX/$a/sem-root
	rm -rf "$r"
	mkdir -p "$r/bin" "$r/proc" "$r/sys" "$r/dev" || return 1
	cp "$LX/$a/busybox" "$r/bin/busybox" && ln -s busybox "$r/bin/sh" &&
		cp "$TOP/tests/linux/init.sh" "$r/init" && chmod +x "$r/init" &&
		cp "$LX/$a/semantics" "$r/semantics" && lx_cpio "$r" "$LX/$a/sem-initrd"
}

# record ARCH KERNEL: boot, check the program finished, keep its lines.
record() {
	a=$1 k=$2
	log=$LX/$a/semantics-$k.log
	out=$TOP/tests/linux/semantics-$k.out
	[ "$a" = x86_64 ] || out=$TOP/tests/linux/semantics-$k-$a.out
	echo "record: Linux $k ($(cat "$LX/$a/$k/version")) on $a, console in $log"
	LX_INITRD=$LX/$a/sem-initrd lx_boot "$a" "$k" debian "$log"
	if ! grep -q '^semantics: end' "$log"; then
		echo "record: the program did not finish on $k: $(tail -n 3 "$log" | tr '\n' '|')"
		return 1
	fi
	# The firmware's escape codes share the line of "semantics: begin".
	grep -E '^(SEM |# semantics)' "$log" >"$out"
	echo "record: $(grep -c '^SEM ' "$out") lines in ${out#"$TOP"/}"
}

for a in ${ARCHES:-x86_64}; do
	prepare "$a" || exit 1
	for k in $KERNELS; do
		record "$a" "$k" || exit 1
	done
done
