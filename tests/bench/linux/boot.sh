# tests/bench/linux/boot.sh - boot Debian's kernels with lbench under
# QEMU icount, for tests/bench/compare.sh and tests/bench/linux/check.sh.
# Source it after tests/lib.sh (TOP).
#
#   lx_prepare ARCH     fetch the kernels, their brd.ko and busybox
#                       (build/compare/ARCH, tests/bench/linux/fetch.sh),
#                       build the static lbench, write the initramfs
#                       (busybox, lbench, brd-RELEASE.ko). Return 1 with the
#                       reason in $why when this machine lacks something
#                       (QEMU, network: a skip), 2 when our build fails.
#   lx_boot ARCH KERNEL OPTS LOG LBENCH_WORDS...
#                       boot build/compare/ARCH/KERNEL/kernel (6.1, 6.12)
#                       with -icount shift=0,sleep=off (as ptelab: an idle
#                       CPU jumps to its next timer event, so a wait is
#                       counted the same on every run, not in wall time),
#                       LX_MEM of RAM over LX_NODES
#                       nodes (ptelab's --mem/--nodes), LX_SMP CPUs (1),
#                       CPU c on node c % LX_NODES;
#                       OPTS: tuned (mitigations=off init_on_alloc=0) or
#                       debian (Debian's defaults); numa_balancing is off in
#                       both. LBENCH_WORDS (bench=, folios=, size=, reps=,
#                       swap=on: init.sh's RAM swap device) become lb_*
#                       words that init.sh passes on or acts on. The
#                       console (CR-free) goes to LOG. LX_INITRD: another
#                       initramfs (tests/linux/record.sh). LX_ACCEL=tcg: plain
#                       TCG, no -icount; LX_MACHINE_x86_64, LX_MACHINE_arm64:
#                       another -M (tests/selftests/record.sh: ptelab's).
LX=$TOP/build/compare
LX_MEM=${LX_MEM:-2G}
LX_NODES=${LX_NODES:-2}
LX_TIMEOUT=${LX_TIMEOUT:-1800}

lx_qemu() {
	case $1 in
	x86_64) echo qemu-system-x86_64 ;;
	arm64) echo qemu-system-aarch64 ;;
	esac
}

lx_make() {
	(cd "$TOP" && env -u MAKEFLAGS -u MAKELEVEL -u MFLAGS make --no-print-directory -s "$@")
}

# lx_cpio DIR OUT: a newc archive of DIR (cpio, or the fetched busybox's).
lx_cpio() {
	if command -v cpio >/dev/null; then
		(cd "$1" && find . | cpio -o -H newc -R 0:0 --quiet) >"$2"
	else
		bb=$LX/$(uname -m | sed 's/aarch64/arm64/')/busybox
		[ -x "$bb" ] || bb=$LX/x86_64/busybox
		(cd "$1" && find . | "$bb" cpio -o -H newc -R 0:0 2>/dev/null) >"$2"
	fi
}

lx_prepare() {
	a=$1
	command -v "$(lx_qemu "$a")" >/dev/null || { why="$(lx_qemu "$a") is not installed"; return 1; }
	why=$("$TOP/tests/bench/linux/fetch.sh" "$a" "$LX/$a" 2>&1) ||
		{ why="cannot fetch Debian's kernels for $a: $why"; return 1; }
	why=$(lx_make "build/compare/$a/lbench" 2>&1) ||
		{ why="cannot build lbench for $a: $(echo "$why" | tail -n 3 | tr '\n' '|')"; return 2; }
	r=$LX/$a/root
	rm -rf "$r"
	mkdir -p "$r/bin" "$r/proc" "$r/sys" "$r/dev" || return 2
	cp "$LX/$a/busybox" "$r/bin/busybox" && ln -s busybox "$r/bin/sh" &&
		cp "$TOP/tests/bench/linux/init.sh" "$r/init" && chmod +x "$r/init" &&
		cp "$LX/$a/lbench" "$r/lbench" || { why="cannot write the initramfs"; return 2; }
	# Each kernel's RAM disk module, by release: init.sh's swap device.
	for k in 6.1 6.12; do
		cp "$LX/$a/$k/brd.ko" "$r/brd-$(cut -d' ' -f1 "$LX/$a/$k/version").ko" ||
			{ why="cannot write the initramfs"; return 2; }
	done
	lx_cpio "$r" "$LX/$a/initrd" || { why="cannot write the initramfs"; return 2; }
}

lx_boot() {
	a=$1 k=$2 opts=$3 log=$4
	shift 4
	words=""
	for w in "$@"; do words="$words lb_$w"; done
	case $opts in
	tuned) opts="mitigations=off init_on_alloc=0" ;;
	*) opts="" ;;
	esac
	mb=$(echo "$LX_MEM" | awk '/G$/ { print $0 * 1024; next } { print $0 + 0 }')
	numa="" i=0 smp=${LX_SMP:-1}
	while [ "$i" -lt "$LX_NODES" ]; do
		cpus="" c=$i
		while [ "$c" -lt "$smp" ]; do # CPU c on node c % nodes
			cpus="$cpus,cpus=$c"
			c=$((c + LX_NODES))
		done
		numa="$numa -object memory-backend-ram,id=m$i,size=$((mb / LX_NODES))M
			-numa node,nodeid=$i$cpus,memdev=m$i"
		i=$((i + 1))
	done
	case $a in
	x86_64) set -- qemu-system-x86_64 -M "${LX_MACHINE_x86_64:-q35}" -cpu max -append \
		"console=ttyS0 panic=-1 quiet numa_balancing=disable $opts$words" ;;
	arm64) set -- qemu-system-aarch64 -M "${LX_MACHINE_arm64:-virt}" -cpu max,pauth-impdef=on -append \
		"console=ttyAMA0 panic=-1 quiet numa_balancing=disable $opts$words" ;;
	esac
	icount="-icount shift=0,sleep=off"
	[ "${LX_ACCEL:-icount}" = tcg ] && icount=""
	# shellcheck disable=SC2086
	timeout "$LX_TIMEOUT" nice -n 5 "$@" $icount -m "${mb}M" -smp "$smp" $numa \
		-kernel "$LX/$a/$k/kernel" -initrd "${LX_INITRD:-$LX/$a/initrd}" -nographic -no-reboot \
		</dev/null 2>&1 | tr -d '\r' >"$log"
}
