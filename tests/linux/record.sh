#!/bin/sh
# tests/linux/record.sh [KERNEL...] - `make linux-semantics`: run the
# scenario program (tests/linux/semantics.c) as the only process of
# Debian's Linux KERNEL (default: 6.12 6.1; fetched into build/compare by
# tests/bench/linux/fetch.sh) under QEMU, x86_64, with three NUMA nodes of
# 1 GiB and one CPU on node 0 (tests/bench/linux/boot.sh's lx_boot with
# LX_NODES=3: the mm host runners have three nodes, and the scenarios
# that migrate between two other nodes need the third), and write its
# lines to tests/linux/semantics-KERNEL.out, the expected output that
# tests/linux/semantics.sh diffs ptelab against.
TOP=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/bench/linux/boot.sh
. "$TOP/tests/bench/linux/boot.sh"
KERNELS=${*:-6.12 6.1}
a=x86_64
export LX_NODES=3 LX_MEM=3G LX_TIMEOUT=${LX_TIMEOUT:-900}

command -v qemu-system-x86_64 >/dev/null || { echo "record: qemu-system-x86_64 is not installed"; exit 1; }
"$TOP/tests/bench/linux/fetch.sh" $a "$LX/$a" || exit 1
lx_make "build/compare/$a/semantics" || exit 1
r=$LX/$a/sem-root
rm -rf "$r"
mkdir -p "$r/bin" "$r/proc" "$r/sys" "$r/dev" || exit 1
cp "$LX/$a/busybox" "$r/bin/busybox" && ln -s busybox "$r/bin/sh" &&
	cp "$TOP/tests/linux/init.sh" "$r/init" && chmod +x "$r/init" &&
	cp "$LX/$a/semantics" "$r/semantics" && lx_cpio "$r" "$LX/$a/sem-initrd" || exit 1
for k in $KERNELS; do
	log=$LX/$a/semantics-$k.log
	echo "record: Linux $k ($(cat "$LX/$a/$k/version")), console in $log"
	LX_INITRD=$LX/$a/sem-initrd lx_boot "$a" "$k" debian "$log"
	if ! grep -q '^semantics: end' "$log"; then
		echo "record: the program did not finish on $k: $(tail -n 3 "$log" | tr '\n' '|')"
		exit 1
	fi
	# The firmware's escape codes share the line of "semantics: begin".
	grep -E '^(SEM |# semantics)' "$log" >"$TOP/tests/linux/semantics-$k.out"
	echo "record: $(grep -c '^SEM ' "$TOP/tests/linux/semantics-$k.out") lines in tests/linux/semantics-$k.out"
done
