#!/bin/sh
# tests/mm/stress.sh - make stress: the schedule explorer's mixes for a
# long budget. Both PTE formats run side by side (one core each), each
# running every "explore/" mix over seeds BASE .. BASE + SCHEDULES - 1,
# CHUNK seeds per runner start; after a schedule that panics the runner
# starts again at the next seed. Every few seconds: schedules done, failures, rate. A failure
# prints its replay command (from the runner). Ends with one
# "N passed, N failed" line counting schedules.
#   SCHEDULES  seeds per mix per format (default 6000: 60,000 schedules
#              per format for the ten mixes, about twenty minutes on two
#              quiet cores at the explorer's 50 schedules/s per format;
#              SCHEDULES=20000 is 200,000 per format)
#   BASE       first seed (default 1000000, beyond make test's seeds)
#   CHUNK      seeds per runner start (default 50)
#   MM_EXPLORE_MODE, MM_EXPLORE_CPUS, MM_TEST_CPUS as for the runner.
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP" || exit 1
SCHEDULES=${SCHEDULES:-6000}
BASE=${BASE:-1000000}
CHUNK=${CHUNK:-50}
export MM_TEST_CPUS=${MM_TEST_CPUS:-4}
# Every mix but "found" (the fixed list of schedules already found).
MIXES=$(build/mm-tests-x86_64 explore/ 2>/dev/null | sed -nE 's|^SKIP explore/([a-z_]+):.*|\1|p' |
	grep -vx found)
NMIX=$(echo "$MIXES" | wc -w)
dir=$(mktemp -d /tmp/ptelab-stress.XXXXXX)
trap 'rm -rf "$dir"' EXIT
passed=0 failed=0

# run_seeds FMT MIX FROM TO: seeds [FROM, TO) of one mix, restarting the
# runner after the seed that killed it (panic, sanitizer: its replay
# line names it); a hang (timeout) gives up the rest. Adds to passed and
# failed, and copies every failure report to $dir/failures.
run_seeds() {
	fmt=$1 mix=$2 s=$3 to=$4
	while [ "$s" -lt "$to" ]; do
		out=$dir/$fmt.out
		MM_EXPLORE_BASE=$s MM_EXPLORE_SCHEDULES=$((to - s)) timeout 600 \
			"$dir/mm-tests-$fmt" "explore/$mix" >"$out" 2>&1
		rc=$?
		[ $rc -eq 124 ] && echo "timeout: $fmt explore/$mix seeds $s.. hung" >>"$out"
		grep -E '^    explore |^    [0-9]+ problem|^panic: |^replay: |ERROR: |runtime error:|^timeout' \
			"$out" | sed "s/^/[$fmt] /" >>"$dir/failures"
		bad=$(grep -c '^    [0-9]* problem' "$out")
		line=$(grep -E "^    $mix: [0-9]+ schedule" "$out")
		dead=$(sed -nE 's/^replay: .*MM_EXPLORE_SEED=([0-9]+) .*/\1/p' "$out" | head -n 1)
		if [ -n "$line" ]; then
			passed=$((passed + to - s - bad)) failed=$((failed + bad)) s=$to
		elif [ -n "$dead" ]; then
			passed=$((passed + dead - s - bad)) failed=$((failed + bad + 1)) s=$((dead + 1))
		else
			failed=$((failed + bad + 1)) s=$to
		fi
		echo "$passed $failed" >"$dir/$fmt.count"
	done
}

# run_format FMT: every mix, CHUNK seeds at a time; progress in
# $dir/FMT.count.
run_format() {
	c=$BASE
	while [ "$c" -lt $((BASE + SCHEDULES)) ]; do
		e=$((c + CHUNK))
		[ "$e" -gt $((BASE + SCHEDULES)) ] && e=$((BASE + SCHEDULES))
		for mix in $MIXES; do
			run_seeds "$1" "$mix" "$c" "$e"
		done
		c=$e
	done
	echo finished >"$dir/$1.done"
}

: >"$dir/failures"
for fmt in x86_64 arm64; do
	if [ ! -x "build/mm-tests-$fmt" ]; then
		echo "FAIL build/mm-tests-$fmt: not built (run make)"
		echo "0 passed, 1 failed"
		exit 1
	fi
	# A copy: a make during the run must not change or lock the binary.
	cp "build/mm-tests-$fmt" "$dir/mm-tests-$fmt" || exit 1
	echo "0 0" >"$dir/$fmt.count"
	run_format "$fmt" &
done
total=$((SCHEDULES * NMIX * 2))
start=$(date +%s)
shown=0
echo "stress: $total schedules ($NMIX mixes x $SCHEDULES seeds from $BASE x 2 formats)"
# progress: the failures found since the last call, then one line.
progress() {
	p=0 f=0
	for fmt in x86_64 arm64; do
		read -r fp ff <"$dir/$fmt.count"
		p=$((p + fp)) f=$((f + ff))
	done
	t=$(($(date +%s) - start))
	lines=$(wc -l <"$dir/failures")
	[ "$lines" -gt "$shown" ] && tail -n +$((shown + 1)) "$dir/failures" && shown=$lines
	echo "stress: $((p + f))/$total schedules, $f failed, $(((p + f) / (t > 0 ? t : 1)))/s, ${t}s"
}

until [ -f "$dir/x86_64.done" ] && [ -f "$dir/arm64.done" ]; do
	sleep 5
	progress
done
wait
progress
echo "$p passed, $f failed"
[ "$f" -eq 0 ]
