#!/bin/sh
# tests/mm/tsan.sh - the mm SMP cases under ThreadSanitizer, both PTE
# formats: build/mm-tsan-<fmt> runs the "concurrency/" cases with MM_TEST_CPUS
# threads (default 4). A data race or any other TSan report fails the
# format even when its cases pass. Ends with "N passed, N failed".
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP" || exit 1
passed=0 failed=0
export MM_TEST_CPUS=${MM_TEST_CPUS:-4}
# halt_on_error: the first report ends the runner with exit 66.
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 ${TSAN_OPTIONS:-}"

for fmt in x86_64 arm64; do
	bin=build/mm-tsan-$fmt
	echo "--- mm SMP cases under ThreadSanitizer, $fmt PTE format, $MM_TEST_CPUS CPUs"
	if [ ! -x "$bin" ]; then
		echo "FAIL $bin: not built (run make)"
		failed=$((failed + 1))
		continue
	fi
	out=$(mktemp /tmp/ptelab-tsan.XXXXXX)
	"$bin" concurrency/ >"$out" 2>&1
	rc=$?
	grep -v '^mm: ' "$out"
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$out" | tail -n 1)
	reports=$(grep -c 'WARNING: ThreadSanitizer' "$out")
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
	if [ "$reports" -ne 0 ] || [ "$rc" -ne 0 ]; then
		echo "FAIL $bin: $reports ThreadSanitizer report(s), exit $rc"
		failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
