#!/bin/sh
# tests/bench/clocks.sh - the two clocks side by side, in one run: what
# full batching buys (time at cap 1 over time at cap max) for zap,
# mprotect, fork and GUP at 4K, 64K and 2M-pte, measured in guest
# instructions (icount) and in real time of the same mm code on the host
# CPU (--backend host), both PTE formats. Prints a Markdown table
# (docs/clocks.md has one, and explains why the columns differ).
# The host ratios use the minimum of HOST_REPS repetitions: on a shared
# machine the least disturbed run is the best estimate of the code's own
# cost (icount has no noise: one repetition).
# SIZE in MiB (default 256), HOST_REPS (default 11), ARCHES (x86_64 arm64).
TOP=$(cd "$(dirname "$0")/../.." && pwd)
P=$TOP/build/ptelab
SIZE=${SIZE:-256}
HOST_REPS=${HOST_REPS:-11}
ARCHES=${ARCHES:-x86_64 arm64}
FOLIOS=4K,64K,2M-pte
RUNS=bench:zap,bench:mprotect,bench:fork,bench:gup
mem=$("$P" --mem-needed run="$RUNS" size="$SIZE") || exit 2
T=$(mktemp -d /tmp/ptelab-clocks.XXXXXX)
trap 'rm -rf "$T"' EXIT

# ratio FILE BENCH FOLIO KEY: KEY (median_us, min_us) of the first
# variant over the last.
ratio() {
	awk -v b="\"bench\":\"$2\"" -v f="\"folio\":\"$3\"" -v k="\"$4\":" '
		index($0, b) && index($0, f) {
			s = substr($0, index($0, k) + length(k)); m = s + 0
			if (first == "") first = m; last = m
		}
		END { if (first != "" && last > 0) printf "%.2fx", first / last; else printf "-" }' "$1"
}

for a in $ARCHES; do
	"$P" --arch "$a" --accel icount --mem "$mem" --quiet --results "$T/icount-$a.jsonl" \
		run=$RUNS size="$SIZE" reps=1 folios=$FOLIOS >"$T/icount-$a.log" 2>&1 ||
		{ echo "clocks: icount $a failed: $(tail -n 2 "$T/icount-$a.log")"; exit 1; }
	"$P" --arch "$a" --backend host --mem "$mem" --quiet --results "$T/host-$a.jsonl" \
		run=$RUNS size="$SIZE" reps="$HOST_REPS" folios=$FOLIOS >"$T/host-$a.log" 2>&1 ||
		{ echo "clocks: host $a failed: $(tail -n 2 "$T/host-$a.log")"; exit 1; }
	grep '^host backend: the machine was' "$T/host-$a.log" | sed "s/^/$a /"
done
echo "== clocks: cap 1 over cap max (GUP: unbatched over walk+grab), $SIZE MiB;" \
	"icount: medians of 1 rep; host: minimums of $HOST_REPS reps; ptelab $("$P" --version | cut -d' ' -f2)"
printf '| bench | folio |'
for a in $ARCHES; do printf ' %s icount | %s host |' "$a" "$a"; done
printf '\n|---|---|'
for a in $ARCHES; do printf -- '---|---|'; done
printf '\n'
for b in zap mprotect fork gup; do
	for f in 4K 64K 2M-pte; do
		printf '| %s | %s |' "$b" "$f"
		for a in $ARCHES; do
			printf ' %s | %s |' "$(ratio "$T/icount-$a.jsonl" $b $f median_us)" \
				"$(ratio "$T/host-$a.jsonl" $b $f min_us)"
		done
		printf '\n'
	done
done
cat "$T"/*.jsonl | sed 's/^/RESULT /'
