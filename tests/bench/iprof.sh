#!/bin/sh
# tests/bench/iprof.sh ARCH GUEST_ARGS... - where a benchmark's guest
# instructions go: runs ptelab's guest under QEMU icount with one
# instruction per translation block and QEMU's exec log (-singlestep -d
# exec,nochain: one line per executed instruction, with its PC), counts the
# instructions between bench_start() and bench_stop() per function of
# build/ARCH/guest.elf (nm), and prints the functions, most first, with
# their share. Use size= small and one variant (e.g. fork=max) and reps=1:
# the log is streamed, but QEMU runs about 10x slower.
#   tests/bench/iprof.sh arm64 run=bench:fork size=4 reps=1 folios=4K fork=max
# IPROF_FUNC=NAME also prints the counts per instruction address inside
# function NAME (beside `objdump -d build/ARCH/guest.elf`).
# Clock: icount (guest instructions), exact. Addresses are compared on
# their low 40 bits (awk numbers are doubles).
TOP=$(cd "$(dirname "$0")/../.." && pwd)
arch=$1
shift
elf=$TOP/build/$arch/guest.elf
tmp=$(mktemp -d /tmp/ptelab-iprof.XXXXXX)
kept=""
trap 'rm -rf "$tmp" $kept' EXIT
# ptelab's own QEMU command line (its files kept), plus the trace.
# (It runs the guest once without the trace; its kept directory is removed.)
"$TOP/build/ptelab" --arch "$arch" --accel icount --verbose --keep --timeout 600 --quiet "$@" \
	>"$tmp/verbose" 2>&1
cmd=$(sed -n 's/^ptelab: \(qemu-system-[^ ]* .*\)$/\1/p' "$tmp/verbose" | head -n 1)
kept=$(grep -o '/tmp/ptelab\.[A-Za-z0-9]*' "$tmp/verbose" | head -n 1)
[ -n "$cmd" ] || { echo "iprof: no QEMU command from ptelab --verbose"; exit 1; }
mkfifo "$tmp/trace"
nm -n "$elf" | awk '$2 ~ /^[tT]$/ { print $1, $3 }' >"$tmp/syms"
start=$(awk '$2 == "bench_start" { print $1 }' "$tmp/syms")
stop=$(awk '$2 == "bench_stop" { print $1 }' "$tmp/syms")
awk -v start="$start" -v stop="$stop" -v syms="$tmp/syms" -v func_="${IPROF_FUNC:-}" '
function hex(s,    i, v, c) { v = 0; s = tolower(substr(s, length(s) - 9)); for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)); v = v * 16 + c - 1 } return v }
BEGIN { n = 0; while ((getline l < syms) > 0) { split(l, p, " "); addr[++n] = hex(p[1]); name[n] = p[2] }
	s0 = hex(start); s1 = hex(stop) }
/^Trace/ {
	split($0, part, "/"); pc = part[2]
	if (!(pc in val)) val[pc] = hex(pc)
	v = val[pc]
	if (v == s0) on = 1
	else if (v == s1) on = 0
	if (on) { cnt[pc]++; total++ }
}
END {
	for (pc in cnt) {
		v = val[pc]; lo = 1; hi = n
		while (lo < hi) { mid = int((lo + hi + 1) / 2); if (addr[mid] <= v) lo = mid; else hi = mid - 1 }
		fn[name[lo]] += cnt[pc]
		if (name[lo] == func_) inside[pc] = cnt[pc]
	}
	for (pc in inside) printf "  %s %10d\n", pc, inside[pc] | "sort"
	close("sort")
	printf "%d guest instructions between bench_start and bench_stop (all repetitions and variants)\n", total
	for (g in fn) printf "%10d %5.1f%%  %s\n", fn[g], 100 * fn[g] / total, g | "sort -rn"
}' "$tmp/trace" &
# shellcheck disable=SC2086
eval "$cmd -singlestep -d exec,nochain -D $tmp/trace" >/dev/null 2>&1 </dev/null
wait
