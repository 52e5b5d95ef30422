# shellcheck shell=sh
# tests/mm/formats.sh - sourced by tests/mm/run.sh and tests/mm/tsan.sh:
# run one mm host runner binary per PTE format and add up the results.
#
# run_formats PREFIX TITLE ARGS...: runs PREFIX-x86_64 and PREFIX-arm64
# with ARGS, shows their output (less the "mm:" setup lines), and ends with
# one "N passed, N failed, N skipped" line summing both. A binary that is missing,
# exits non-zero or prints no summary counts as one failure; so does
# anything the optional function format_extra_failure (given the output
# file) prints, one line naming the failure. Returns non-zero on failure.
run_formats() {
	prefix=$1 title=$2
	shift 2
	passed=0 failed=0 skipped=0
	for fmt in x86_64 arm64; do
		bin=$prefix-$fmt
		echo "--- $title, $fmt PTE format"
		if [ ! -x "$bin" ]; then
			echo "FAIL $bin: not built (run make)"
			failed=$((failed + 1))
			continue
		fi
		out=$(mktemp /tmp/ptelab-mm.XXXXXX)
		"$bin" "$@" >"$out" 2>&1
		rc=$?
		grep -v '^mm: ' "$out"
		line=$(grep -E '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$out" | tail -n 1)
		extra=$(command -v format_extra_failure >/dev/null && format_extra_failure "$out")
		rm -f "$out"
		if [ -z "$line" ]; then
			echo "FAIL $bin: exited $rc without a summary line"
			failed=$((failed + 1))
			continue
		fi
		p=${line%% passed*}
		f=${line#*passed, }
		f=${f%% failed*}
		s=$(echo "$line" | sed -nE 's/.*, ([0-9]+) skipped$/\1/p')
		passed=$((passed + p))
		failed=$((failed + f))
		skipped=$((skipped + ${s:-0}))
		if [ -n "$extra" ]; then
			echo "FAIL $bin: $extra"
			failed=$((failed + 1))
		elif [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
			echo "FAIL $bin: exited $rc"
			failed=$((failed + 1))
		fi
	done
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" -eq 0 ]
}
