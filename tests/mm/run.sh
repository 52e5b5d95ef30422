#!/bin/sh
# tests/mm/run.sh - the mm host runner for both PTE formats.
# Runs build/mm-tests-x86_64 and build/mm-tests-arm64 (make builds them),
# shows their output, and ends with one "N passed, N failed" line summing
# both. A binary that is missing, crashes or prints no summary counts as
# one failure. Extra arguments (a case-name filter) go to both binaries.
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP" || exit 1
passed=0 failed=0

for fmt in x86_64 arm64; do
	bin=build/mm-tests-$fmt
	echo "--- mm host runner, $fmt PTE format"
	if [ ! -x "$bin" ]; then
		echo "FAIL $bin: not built (run make)"
		failed=$((failed + 1))
		continue
	fi
	out=$(mktemp /tmp/ptelab-mm.XXXXXX)
	"$bin" "$@" >"$out" 2>&1
	rc=$?
	cat "$out"
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$out" | tail -n 1)
	rm -f "$out"
	if [ -z "$line" ]; then
		echo "FAIL $bin: exited $rc without a summary line"
		failed=$((failed + 1))
		continue
	fi
	p=${line%% passed*}
	f=${line#*passed, }
	f=${f%% failed*}
	passed=$((passed + p))
	failed=$((failed + f))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL $bin: exited $rc"
		failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
