#!/bin/sh
# tests/run-all.sh - every test runner, then one total line.
# Each runner ends with "N passed, N failed[, N skipped]"; this script adds
# them up, prints the same line for the whole suite and fails if any failed.
# STAGES="docs cli" runs only the stages named (make test STAGES=...).
TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP" || exit 1
total_p=0 total_f=0 total_s=0 broken=""

# run_one NAME CMD...: run a runner, echo its output, add its summary.
run_one() {
	name=$1
	shift
	case " ${STAGES:-$name} " in *" $name "*) ;; *) return ;; esac
	echo "=== $name"
	start=$(date +%s)
	"$@" >"$log" 2>&1
	rc=$?
	cat "$log"
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	if [ -z "$line" ]; then
		echo "FAIL $name: runner exited $rc without a summary line"
		total_f=$((total_f + 1))
		broken="$broken $name"
		return
	fi
	p=$(echo "$line" | sed -E 's/^([0-9]+) passed.*/\1/')
	f=$(echo "$line" | sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/')
	s=$(echo "$line" | sed -nE 's/.*, ([0-9]+) skipped.*/\1/p')
	total_p=$((total_p + p)) total_f=$((total_f + f)) total_s=$((total_s + ${s:-0}))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL $name: runner exited $rc"
		total_f=$((total_f + 1))
	fi
	[ "$f" -ne 0 ] && broken="$broken $name"
	echo "--- $name: $line ($(($(date +%s) - start)) s)"
}

log=$(mktemp /tmp/ptelab-run.XXXXXX)
trap 'rm -f "$log"' EXIT
run_one build tests/build/run.sh
run_one includes tests/build/includes.sh
run_one host build/host-tests
run_one mm tests/mm/run.sh
run_one semantics tests/linux/semantics.sh
run_one tsan tests/mm/tsan.sh
run_one explore tests/mm/explore.sh
run_one format tests/format.sh
run_one vmm tests/vmm/run.sh
run_one hostile tests/vmm/hostile.sh
run_one cli tests/vmm/cli.sh
run_one sweep tests/vmm/smp_sweep.sh
run_one docs tests/docs/run.sh
run_one boot tests/boot/run.sh
run_one tracehtml tests/boot/trace_html.sh
run_one user tests/user/run.sh
run_one selftests tests/selftests/run.sh
run_one kvm tests/kvm/run.sh
run_one linux tests/bench/linux/check.sh
echo
[ -n "$broken" ] && echo "failing runners:$broken"
echo "$total_p passed, $total_f failed, $total_s skipped"
[ "$total_f" -eq 0 ]
