#!/bin/sh
# tests/demo.sh [ARCH] - the `make run` demo: boot the guest, show the
# machine it sees, then small side-by-side tables of what PTE batching buys
# (unbatched = every cap 1, batched = every cap max), with the counters
# behind them. The tables run under QEMU with -icount (--accel icount), so
# their times are exact guest instruction counts (1 ns each): repeatable,
# but blind to cache and TLB effects. `make bench` runs the full sizes.
TOP=$(cd "$(dirname "$0")/.." && pwd)
P=$TOP/build/ptelab
arch=${1:-x86_64}
SIZE=${DEMO_SIZE:-64}
REPS=${DEMO_REPS:-3}

echo "== ptelab demo ($arch): booting the guest; it prints the machine it was given"
"$P" --arch "$arch" --mem 1G --nodes 2 --timing run=hello || exit

# counters: one line per RESULT with the counters that tell the story.
counters() {
	awk '/^RESULT /{
		line = $0; out = ""
		match(line, /"folio":"[^"]*"/); f = substr(line, RSTART + 9, RLENGTH - 10)
		match(line, /"variant":"[^"]*"/); v = substr(line, RSTART + 11, RLENGTH - 12)
		n = split("pt_descents ptl_takes ptep_gets ref_updates mapcount_updates tlb_flushes cont_unfolds", k, " ")
		for (i = 1; i <= n; i++)
			if (match(line, "\"" k[i] "\":[0-9]+")) {
				c = substr(line, RSTART, RLENGTH); gsub(/"/, "", c); out = out " " c
			}
		printf "    %-7s %-10s%s\n", f, v, out
	}'
}

# bench NAME FOLIOS: one benchmark's table, then its counters.
bench() {
	echo
	"$P" --arch "$arch" --accel icount --mem 2G --timeout 600 run=bench:"$1" \
		size="$SIZE" reps="$REPS" folios="$2" >"$out" 2>&1
	sed -n '/^== bench/,$p' "$out" | grep -v '^RESULT ' | grep -v ' reps in ' | grep -v '^$' |
		grep -v '^  phases [^ ]* \(queue\|unmap\|flush\):'
	echo "  counters of one repetition:"
	counters <"$out"
}

out=$(mktemp)
trap 'rm -f "$out"' EXIT
echo
echo "== what batching buys: $SIZE MiB per run, median of $REPS, times in guest-instruction us"
for b in ${DEMO_BENCHES:-zap mprotect fault fork gup migrate}; do
	bench "$b" 4K,64K,2M-pte,2M-pmd
done
echo
echo "More: make bench (full sizes, RESULT lines in build/bench-results.jsonl), README.md, docs/."
