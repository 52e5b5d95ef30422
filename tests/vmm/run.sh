#!/bin/sh
# tests/vmm/run.sh - the real build/ptelab on bad input and on guests that
# exit, crash or hang, on every backend this machine has.
#
#  1. every ELF defect of tests/host/elf_build.c, written by build/mkelf
#     from a synthetic image and from the real guest kernels: exit 2 and
#     one line naming the problem; likewise missing kernels, bad options;
#  2. --dtb-out: a tree dtc accepts, with numa nodes and the command line;
#  3. tiny hand-made guests (build/mkelf guests) on each backend: status
#     pass-through, serial output, SSE, triple fault and bad accesses (3),
#     halt and spin (124); on kvm-pvm, which ptelab refuses for the real
#     guest, these still run (PTELAB_ALLOW_PVM=1), all but the SSE one;
#  4. the real guest on each backend: run=fault (3, the exception and its
#     address), run=hang (124 within the timeout + 2 s);
#  5. no backend (4): KVM refused or hidden in a private mount namespace,
#     QEMU missing from $PATH; auto then falls back to QEMU.
# A missing backend, tool or guest image prints a SKIP line per case.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
MKELF=${MKELF:-$TOP/build/mkelf}
REAL_X86=$TOP/build/x86_64/guest.elf
REAL_ARM64=$TOP/build/arm64/guest.elf
TAB=$(printf '\t')

# one_line NAME PREFIX TEXT: the output is exactly one line; it starts with
# PREFIX and contains TEXT (both plain strings).
one_line() {
	n=$(wc -l <"$TMPD/out")
	if [ "$n" -ne 1 ]; then
		fail "$1" "$n lines of output, wanted 1: $(head -n 3 "$TMPD/out" | tr '\n' '|')"
		return 1
	fi
	line=$(cat "$TMPD/out")
	case $line in
	"$2"*"$3"*) return 0 ;;
	"$2"*) fail "$1" "message lacks '$3': $line" ;;
	*) fail "$1" "message does not start with '$2': $line" ;;
	esac
	return 1
}

# usage_case WANT_TEXT ARGS...: ptelab ARGS exits 2 with one line naming it.
usage_case() {
	want=$1
	shift
	name=$(printf 'usage: %.70s' "$*")
	expect_status "$name" 2 "$PTELAB" "$@" || return
	one_line "$name" "ptelab: " "$want" && pass "$name"
}

# --- 1. bad guest images --------------------------------------------------------

# defect_cases LABEL [X86_ELF [ARM64_ELF]]: every defect mkelf writes.
defect_cases() {
	label=$1
	shift
	dir=$TMPD/defects-$label
	mkdir -p "$dir"
	if ! "$MKELF" defects "$dir" "$@" >"$dir/list" 2>"$TMPD/out"; then
		fail "elf $label: mkelf" "$(cat "$TMPD/out")"
		return
	fi
	while IFS=$TAB read -r dname base run source msg; do
		name="elf $label $dname (--arch $run)"
		case $label:$source in
		*:n/a) skip "$name" "$msg"; continue ;;
		real:synthetic) skip "$name" "no real $base guest (build/$base/guest.elf)"; continue ;;
		esac
		expect_status "$name" 2 "$PTELAB" --arch "$run" --kernel "$dir/$dname.elf" \
			run=hello || continue
		one_line "$name" "ptelab: $dir/$dname.elf: " "$msg" && pass "$name"
	done <"$dir/list"
}

image_cases() {
	defect_cases synthetic
	if [ -f "$REAL_X86" ] || [ -f "$REAL_ARM64" ]; then
		x=-
		a=-
		[ -f "$REAL_X86" ] && x=$REAL_X86
		[ -f "$REAL_ARM64" ] && a=$REAL_ARM64
		defect_cases real "$x" "$a"
	else
		skip "elf real: every defect" "no real guest image is built (build/*/guest.elf)"
	fi

	name="kernel: nonexistent file"
	if expect_status "$name" 2 "$PTELAB" --kernel "$TMPD/nonexistent.elf"; then
		one_line "$name" "ptelab: $TMPD/nonexistent.elf: " \
			"cannot open: No such file or directory" && pass "$name"
	fi
	name="kernel: a directory"
	if expect_status "$name" 2 "$PTELAB" --kernel "$TMPD"; then
		one_line "$name" "ptelab: $TMPD: " "not a regular file" && pass "$name"
	fi
	name="kernel: a device"
	if expect_status "$name" 2 "$PTELAB" --kernel /dev/null; then
		one_line "$name" "ptelab: /dev/null: " "not a regular file" && pass "$name"
	fi
	name="kernel: larger than 256M (refused unread)"
	truncate -s 300M "$TMPD/huge.elf"
	if expect_status "$name" 2 "$PTELAB" --kernel "$TMPD/huge.elf"; then
		one_line "$name" "ptelab: $TMPD/huge.elf: " "larger than the limit of 268435456 bytes" &&
			pass "$name"
	fi
	rm -f "$TMPD/huge.elf"
	# The default kernel is <ptelab's directory>/<arch>/guest.elf.
	mkdir -p "$TMPD/bin"
	cp "$PTELAB" "$TMPD/bin/ptelab"
	name="kernel: default path next to the binary"
	if expect_status "$name" 2 "$TMPD/bin/ptelab" --arch arm64; then
		one_line "$name" "ptelab: $TMPD/bin/arm64/guest.elf: " "cannot open" && pass "$name"
	fi
}

# --- bad options -------------------------------------------------------------

option_cases() {
	usage_case "unknown option '--bogus' (try 'ptelab --help')" --bogus
	usage_case "unknown option '-m'" -m 1G
	usage_case "--mem: 0 over 2 nodes is 0 per node (limit: at least 16M per node)" --mem 0
	usage_case "--mem: '1T' is not a size (limit: digits with an optional K, M or G suffix, at most 64G)" --mem 1T
	usage_case "--mem: 3M over 2 nodes is 1536K per node (limit: at least 16M per node)" --mem 3M
	usage_case "--mem: 65G is too large (limit 64G)" --mem 65G
	usage_case "(limit: each node's share a multiple of 2M)" --mem 100M --nodes 3
	usage_case "--nodes: '0' is out of range (limit 1..8)" --nodes 0
	usage_case "--nodes: '9' is out of range (limit 1..8)" --nodes 9
	usage_case "--cpus: '0' is out of range (limit 1..8)" --cpus 0
	usage_case "--cpus: '9' is out of range (limit 1..8)" --cpus 9
	usage_case "--timeout: '0' is out of range (limit 1..86400)" --timeout 0
	usage_case "--timeout: 'soon' is not a number (limit 1..86400)" --timeout soon
	usage_case "--backend: 'foo' is not one of auto, kvm, qemu" --backend foo
	usage_case "--arch: 'foo' is not one of x86_64, arm64" --arch foo
	usage_case "--accel: 'foo' is not one of tcg, kvm" --accel foo
	usage_case "option '--mem' needs a value" --mem
	usage_case "option '--kernel' needs a value" run=hello --kernel
	usage_case "option '--verbose' takes no value" --verbose=yes
	usage_case "--backend kvm: arm64 guests run on QEMU TCG only" --backend kvm --arch arm64
	usage_case "guest arguments: too long (limit 1023 bytes)" \
		"run=$(printf '%01100d' 0)"
	usage_case "--results: $TMPD/no/such/dir/r.json: No such file or directory" \
		--kernel "$GUESTS/x86_64-exit0.elf" --results "$TMPD/no/such/dir/r.json"
	usage_case "--dtb-out: $TMPD/no/such/dir/t.dtb: No such file or directory" \
		--dtb-out "$TMPD/no/such/dir/t.dtb"

	name="usage: --help"
	if expect_status "$name" 0 "$PTELAB" --help; then
		for o in --backend --arch --mem --nodes --cpus --timeout --kernel --results --dtb-out; do
			out_has "$name" "^  $o " || return
		done
		out_has "$name" "^Exit status:" && pass "$name"
	fi
}

# --- 2. --dtb-out ------------------------------------------------------------------

# dts_case NAME DTB WANT_NODES BOOTARGS: dtc reads DTB; it has WANT_NODES
# memory@ nodes, each with a numa-node-id, and /chosen/bootargs BOOTARGS.
dts_case() {
	name=$1 dtb=$2 want=$3 args=$4
	if ! dtc -I dtb -O dts -o "$TMPD/t.dts" "$dtb" 2>"$TMPD/out"; then
		fail "$name" "dtc refused it: $(head -n 3 "$TMPD/out" | tr '\n' '|')"
		return 1
	fi
	# Each memory node's block, joined on one line, names its node id.
	n=$(awk '/memory@/ { m = 1; s = "" } m { s = s $0 } m && /};/ { print s; m = 0 }' \
		"$TMPD/t.dts" | grep -c 'numa-node-id = <0x[0-9a-f]*>')
	[ "$n" -eq "$want" ] || { fail "$name" "$n memory@ nodes with numa-node-id, wanted $want"; return 1; }
	# The user's words, then what ptelab adds (its clock, backend, version).
	grep -q "bootargs = \"$args ptelab.clock=[a-z]* ptelab.backend=[a-z]* ptelab.version=[^ \"]*\";" \
		"$TMPD/t.dts" ||
		{ fail "$name" "no /chosen/bootargs \"$args\""; return 1; }
	grep -q "distance-matrix" "$TMPD/t.dts" || { fail "$name" "no distance-matrix"; return 1; }
	return 0
}

dtb_cases() {
	if ! have_cmd dtc; then
		for c in x86_64 x86_64-pc arm64; do
			skip "dtb-out: $c" "dtc is not installed (device-tree-compiler)"
		done
		return
	fi
	name="dtb-out: x86_64, 3 nodes, 2 cpus"
	if expect_status "$name" 0 "$PTELAB" --dtb-out "$TMPD/a.dtb" --mem 768M --nodes 3 \
		--cpus 2 run=hello zap=1 &&
		dts_case "$name" "$TMPD/a.dtb" 3 "run=hello zap=1"; then
		if grep -q "cpu@1" "$TMPD/t.dts" && grep -q "timebase-frequency" "$TMPD/t.dts"; then
			pass "$name"
		else
			fail "$name" "no cpu@1 or no timebase-frequency"
		fi
	fi
	# QEMU pc keeps 3G below 4 GiB: node 1 gets two ranges.
	name="dtb-out: x86_64 QEMU layout, a node split by the PCI hole"
	if expect_status "$name" 0 "$PTELAB" --backend qemu --dtb-out "$TMPD/b.dtb" --mem 4G \
		--nodes 2 run=hello &&
		dts_case "$name" "$TMPD/b.dtb" 2 "run=hello"; then
		if grep -q "reg = <0x00 0x80000000 0x00 0x40000000 0x01 0x00 0x00 0x40000000>" \
			"$TMPD/t.dts"; then
			pass "$name"
		else
			fail "$name" "memory@80000000 lacks its two ranges: $(grep -A3 memory@8 "$TMPD/t.dts" | tr '\n' ' ')"
		fi
	fi
	name="dtb-out: arm64 (QEMU's own tree)"
	if ! have_cmd qemu-system-aarch64; then
		skip "$name" "qemu-system-aarch64 is not installed"
	elif expect_status "$name" 0 "$PTELAB" --arch arm64 --kernel "$GUESTS/arm64-exit0.elf" \
		--dtb-out "$TMPD/c.dtb" --mem 1G --nodes 2 run=hello fork=2 &&
		dts_case "$name" "$TMPD/c.dtb" 2 "run=hello fork=2"; then
		pass "$name"
	fi
	# QEMU's dumpdtb replaces its target by a rename; ptelab writes into
	# the user's file instead, so a link (or a device: /dev/null) stays one.
	name="dtb-out: arm64 writes through a symlink, never replacing it"
	if have_cmd qemu-system-aarch64; then
		: >"$TMPD/target.dtb"
		ln -sf "$TMPD/target.dtb" "$TMPD/link.dtb"
		if expect_status "$name" 0 "$PTELAB" --arch arm64 \
			--kernel "$GUESTS/arm64-exit0.elf" --dtb-out "$TMPD/link.dtb" run=hello; then
			if [ -L "$TMPD/link.dtb" ] && [ -s "$TMPD/target.dtb" ]; then
				pass "$name"
			else
				fail "$name" "$(ls -l "$TMPD/link.dtb" "$TMPD/target.dtb" | tr '\n' '|')"
			fi
		fi
	fi
}

# --- backends ------------------------------------------------------------------

# VMM_BACKENDS and VMM_PARTS (the environment) narrow the run; the nested
# KVM stage (tests/kvm/run.sh) runs "backends nobackend" on kvm-x86_64.
BACKENDS=${VMM_BACKENDS:-kvm-x86_64 qemu-x86_64 qemu-arm64}
PARTS=${VMM_PARTS:-images options dtb backends nobackend}

# backend_ok NAME: can this machine run backend NAME? Sets $why if not.
backend_ok() {
	case $1 in
	kvm-*) have_kvm "${1#kvm-}" || { why="KVM backend not usable: $kvm_why"; return 1; } ;;
	qemu-x86_64) have_cmd qemu-system-x86_64 || { why="qemu-system-x86_64 is not installed"; return 1; } ;;
	qemu-arm64) have_cmd qemu-system-aarch64 || { why="qemu-system-aarch64 is not installed"; return 1; } ;;
	esac
}

backend_args() {
	case $1 in
	kvm-x86_64) echo "--backend kvm --arch x86_64" ;;
	kvm-arm64) echo "--backend kvm --arch arm64" ;;
	qemu-x86_64) echo "--backend qemu --arch x86_64" ;;
	qemu-arm64) echo "--backend qemu --arch arm64" ;;
	esac
}

# now_ms: a millisecond clock; busybox's date has no %N, so from
# /proc/uptime (10 ms steps) there.
now_ms() {
	case $(date +%N) in
	[0-9]*) date +%s%3N ;;
	*)
		read -r up _ </proc/uptime
		echo $((${up%.*} * 1000 + 1${up#*.}0 - 1000))
		;;
	esac
}

# run_be NAME WANT BACKEND ARGS...: ptelab on BACKEND exits WANT; the time
# it took is in $ms.
run_be() {
	name=$1 want=$2 be=$3
	shift 3
	t0=$(now_ms)
	# shellcheck disable=SC2046
	expect_status "$name" "$want" "$PTELAB" $(backend_args "$be") "$@"
	rc=$?
	ms=$(($(now_ms) - t0))
	return $rc
}

# hang_case NAME BACKEND ARGS...: with --timeout 2, exit 124 after 2 s and
# within 4 s, saying it timed out.
hang_case() {
	name=$1 be=$2
	shift 2
	run_be "$name" 124 "$be" --timeout 2 "$@" || return
	if [ "$ms" -lt 1900 ] || [ "$ms" -gt 4000 ]; then
		fail "$name" "took $ms ms, wanted 2000..4000"
		return
	fi
	out_has "$name" "^ptelab: guest timed out after 2 s" && pass "$name"
}

# --- 3. hand-made guests ---------------------------------------------------------

# semihosting_case BACKEND: a guest asks QEMU's semihosting to run a host
# command and to create a host file (both relative to ptelab's working
# directory), then to exit 0. Neither may happen: ptelab gives QEMU no
# semihosting, so the guest traps and runs into the timeout.
semihosting_case() {
	dir=$TMPD/semihost
	rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || return
	run_be "$1: hostile guest's semihosting calls reach nothing on the host" 124 "$1" \
		--timeout 2 --kernel "$GUESTS/arm64-semihost.elf"
	rc=$?
	cd "$TOP" || exit 1
	[ "$rc" -eq 0 ] || return
	if [ -n "$(ls -A "$dir")" ]; then
		fail "$name" "files appeared: $(ls -A "$dir" | tr '\n' ' ')"
		return
	fi
	out_has "$name" "^ptelab: guest timed out after 2 s" && pass "$name"
}

# synthetic_cases BACKEND [pvm]: pvm means KVM is kvm-pvm, allowed for
# these guests only (they use no SSE).
synthetic_cases() {
	be=$1 pvm=${2:-}
	case $be in
	kvm-arm64)
		g=$GUESTS/arm64-kvm
		run_be "$be: tiny guest exits 7 (exit device)" 7 "$be" --kernel "$g-exit7.elf" &&
			pass "$name"
		run_be "$be: tiny guest prints on the PL011" 0 "$be" --kernel "$g-hello.elf" &&
			out_has "$name" "^hi$" && pass "$name"
		run_be "$be: tiny guest writes exit status 0x1234" 3 "$be" --kernel "$g-bigexit.elf" &&
			out_has "$name" "exit status 4660 \(limit 0..255\)" && pass "$name"
		run_be "$be: tiny guest stores where there is no device (named, with registers)" 3 \
			"$be" --kernel "$g-mmio.elf" &&
			out_has "$name" "unhandled exit KVM_EXIT_MMIO" &&
			out_has "$name" "MMIO write of 4 bytes at 0xa000000 \(no device there\)" &&
			out_has "$name" "^ptelab: PC=0x[0-9a-f]{16} PSTATE=0x3c5 \(EL1h\)" &&
			out_has "$name" "^ptelab: ESR_EL1=0x[0-9a-f]+ .* FAR_EL1=0x[0-9a-f]{16} ELR_EL1=" &&
			pass "$name"
		hang_case "$be: tiny guest spins" "$be" --kernel "$GUESTS/arm64-spin.elf"
		return
		;;
	*-arm64)
		run_be "$be: tiny guest exits 0" 0 "$be" --kernel "$GUESTS/arm64-exit0.elf" &&
			pass "$name"
		run_be "$be: tiny guest exits 7 (status line hidden)" 7 "$be" \
			--kernel "$GUESTS/arm64-exit7.elf" &&
			out_has "$name" "^hi$" && out_lacks "$name" "ptelab-exit-status" &&
			pass "$name"
		run_be "$be: tiny guest powers off without a status line" 3 "$be" \
			--kernel "$GUESTS/arm64-poweroff.elf" &&
			out_has "$name" "powered the machine off without an exit status line" &&
			pass "$name"
		hang_case "$be: tiny guest spins" "$be" --kernel "$GUESTS/arm64-spin.elf"
		semihosting_case "$be"
		return
		;;
	esac
	g=$GUESTS/x86_64
	run_be "$be: tiny guest exits 0" 0 "$be" --kernel "$g-exit0.elf" && pass "$name"
	run_be "$be: tiny guest exits 7" 7 "$be" --kernel "$g-exit7.elf" && pass "$name"
	rm -f "$TMPD/r.json"
	run_be "$be: tiny guest prints on the serial port, a RESULT line to --results" 0 "$be" \
		--kernel "$g-hello.elf" --results "$TMPD/r.json" &&
		out_has "$name" "^hi$" && out_has "$name" '^RESULT \{"n":1\}$' &&
		if [ "$(cat "$TMPD/r.json")" = '{"n":1}' ]; then
			pass "$name"
		else
			fail "$name" "--results file has '$(cat "$TMPD/r.json")', wanted '{\"n\":1}'"
		fi
	run_be "$be: tiny guest triple-faults" 3 "$be" --kernel "$g-triple.elf" &&
		out_has "$name" "^ptelab: guest crashed: " && pass "$name"
	hang_case "$be: tiny guest halts with interrupts off" "$be" --kernel "$g-halt.elf"
	hang_case "$be: tiny guest spins with interrupts off" "$be" --kernel "$g-spin.elf"
	name="$be: tiny guest enables SSE and uses it"
	if [ -n "$pvm" ]; then
		skip "$name" "kvm-pvm cannot run SSE code at ring 0"
	else
		run_be "$name" 5 "$be" --kernel "$g-sse.elf" && pass "$name"
	fi
	[ "$be" = kvm-x86_64 ] || return
	# (Not the RIP: on AMD, KVM resets the vCPU before it reports a triple fault.)
	name="$be: tiny guest triple-faults (named, with registers)"
	run_be "$name" 3 "$be" --kernel "$g-triple.elf" &&
		out_has "$name" "unhandled exit KVM_EXIT_SHUTDOWN" &&
		out_has "$name" "^ptelab: RIP=0x[0-9a-f]{16} " && pass "$name"
	run_be "$be: tiny guest stores where there is no RAM" 3 "$be" --kernel "$g-mmio.elf" &&
		out_has "$name" "MMIO write of 4 bytes at 0xfed00000 \(no device there\)" &&
		pass "$name"
	run_be "$be: tiny guest writes exit status 0x1234" 3 "$be" --kernel "$g-bigexit.elf" &&
		out_has "$name" "exit status 4660 \(limit 0..255\)" && pass "$name"
}

# --- 4. the real guest -----------------------------------------------------------

# real_guest_ok BACKEND: is there a real guest image for BACKEND? Sets
# $why if not.
real_guest_ok() {
	case $1 in
	*-arm64) img=$REAL_ARM64 ;;
	*) img=$REAL_X86 ;;
	esac
	[ -f "$img" ] || { why="no guest image ($img is not built)"; return 1; }
}

real_cases() {
	be=$1
	if ! real_guest_ok "$be"; then
		skip "$be: real guest run=fault" "$why"
		skip "$be: real guest run=hang" "$why"
		return
	fi
	name="$be: real guest run=fault"
	if run_be "$name" 3 "$be" --timeout 60 run=fault; then
		# The exception by name or vector, and the faulting address.
		out_has "$name" "(vector [0-9]+|#[A-Z][A-Z]|[Pp]age fault|[Dd]ata [Aa]bort|ESR)" &&
			out_has "$name" "(CR2|FAR|[Aa]ddress)[^0-9]*0x[0-9a-f]+" && pass "$name"
	fi
	hang_case "$be: real guest run=hang" "$be" run=hang
}

# --- 5. no backend -----------------------------------------------------------------

nobackend_cases() {
	name="no backend: --backend qemu without qemu-system-x86_64 in \$PATH"
	if expect_status "$name" 4 env PATH=/nonexistent "$PTELAB" --backend qemu \
		--kernel "$GUESTS/x86_64-exit0.elf"; then
		one_line "$name" "ptelab: " \
			"qemu-system-x86_64 not found in \$PATH; install the Debian package qemu-system-x86" &&
			pass "$name"
	fi
	name="no backend: arm64 without qemu-system-aarch64 in \$PATH"
	if expect_status "$name" 4 env PATH=/nonexistent "$PTELAB" --arch arm64 \
		--kernel "$GUESTS/arm64-exit0.elf"; then
		one_line "$name" "ptelab: " "qemu-system-aarch64 not found in \$PATH" && pass "$name"
	fi
	name="no backend: --backend kvm where KVM is refused"
	if have_kvm; then
		skip "$name" "ptelab can use KVM here"
	elif expect_status "$name" 4 "$PTELAB" --backend kvm --kernel "$GUESTS/x86_64-exit0.elf"; then
		one_line "$name" "ptelab: --backend kvm: " "$kvm_why" && pass "$name"
	fi
	# ptelab has no knob to ignore /dev/kvm; hide it instead, in a private
	# mount namespace (root only), behind /dev/null.
	name="no backend: --backend kvm with /dev/kvm hidden behind /dev/null"
	if ! [ -c /dev/kvm ] || ! unshare -m true 2>/dev/null; then
		skip "$name" "no /dev/kvm to hide, or no private mount namespace (unshare -m)"
		skip "auto: QEMU when /dev/kvm is unusable" "as above"
		return
	fi
	if expect_status "$name" 4 hide_kvm "$PTELAB" --backend kvm \
		--kernel "$GUESTS/x86_64-exit0.elf"; then
		one_line "$name" "ptelab: --backend kvm: /dev/kvm: " \
			"KVM_GET_API_VERSION: Inappropriate ioctl for device (is it KVM?)" && pass "$name"
	fi
	name="auto: QEMU when /dev/kvm is unusable"
	if ! have_cmd qemu-system-x86_64; then
		skip "$name" "qemu-system-x86_64 is not installed"
	elif expect_status "$name" 7 hide_kvm "$PTELAB" --verbose \
		--kernel "$GUESTS/x86_64-exit7.elf"; then
		out_has "$name" "^ptelab: KVM is not usable \(/dev/kvm: .*\); using QEMU TCG" &&
			out_has "$name" "^ptelab: qemu-system-x86_64 -M pc -accel tcg" && pass "$name"
	fi
}

# hide_kvm CMD...: run CMD with /dev/null bound over /dev/kvm in a private
# mount namespace, and kvm-pvm allowed, so only the hiding makes KVM fail.
hide_kvm() {
	# shellcheck disable=SC2016 # $0 and $@ are for the inner sh
	PTELAB_ALLOW_PVM=1 unshare -m sh -c 'mount --bind /dev/null /dev/kvm && exec "$0" "$@"' "$@"
}

# --- main ------------------------------------------------------------------------

for f in "$PTELAB" "$MKELF"; do
	if [ ! -x "$f" ]; then
		fail "setup" "$f is not built (run make)"
		summary
		exit
	fi
done
GUESTS=$TMPD/guests
mkdir -p "$GUESTS"
if ! "$MKELF" guests "$GUESTS" >/dev/null 2>"$TMPD/out"; then
	fail "setup" "mkelf guests: $(cat "$TMPD/out")"
	summary
	exit
fi

has_part() { case " $PARTS " in *" $1 "*) return 0 ;; esac; return 1; }

has_part images && image_cases
has_part options && option_cases
has_part dtb && dtb_cases
has_part backends || BACKENDS=""
for be in $BACKENDS; do
	if backend_ok "$be"; then
		synthetic_cases "$be"
		real_cases "$be"
	elif [ "$be" = kvm-x86_64 ] &&
		PTELAB_ALLOW_PVM=1 "$PTELAB" --backend kvm --dtb-out /dev/null >/dev/null 2>&1; then
		# ptelab refuses kvm-pvm for the real guest (SSE at ring 0), but
		# the tiny guests test its KVM exit paths there too.
		PTELAB_ALLOW_PVM=1
		export PTELAB_ALLOW_PVM
		synthetic_cases "$be" pvm
		unset PTELAB_ALLOW_PVM
		skip "$be: real guest run=fault" "$why"
		skip "$be: real guest run=hang" "$why"
	else
		for c in exits-0 exits-7 hangs real-fault real-hang; do
			skip "$be: $c" "$why"
		done
	fi
done
has_part nobackend && nobackend_cases
summary
