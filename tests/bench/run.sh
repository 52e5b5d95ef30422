#!/bin/sh
# tests/bench/run.sh [NAME...] - the benchmarks (make bench). With no
# names runs them all. Each prints a table and RESULT lines; RESULT lines
# are also collected in build/bench-results.jsonl.
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$TOP/build/bench-results.jsonl
: >"$OUT"
: >"$OUT.raw" # a fresh file every run: an interrupted run's rows never mix in
names=${*:-boot mm clocks}
for b in $names; do
	sh "$TOP/tests/bench/$b.sh" | tee -a "$OUT.raw"
done
grep '^RESULT ' "$OUT.raw" | sed 's/^RESULT //' >"$OUT"
rm -f "$OUT.raw"
echo "results: $OUT"
