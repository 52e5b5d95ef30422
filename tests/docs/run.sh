#!/bin/sh
# tests/docs/run.sh - the docs cannot drift: every example in README.md
# and docs/*.md marked as runnable (an HTML comment right before its code
# block, see extract.awk) is run, and the counters and structure the block
# shows are compared with what the command prints now (compare.awk: times,
# ratios and pfns are masked). A stale block fails naming the doc, its
# line, the expected line and the nearest one printed. Each distinct
# command runs once (several blocks may show parts of one output).
. "$(dirname "$0")/../lib.sh"
cd "$TOP" || exit 1
D=$TOP/tests/docs
B=$TMPD/blocks
mkdir -p "$B"

last=0
for f in README.md docs/*.md; do
	last=$(awk -v DIR="$B" -v FIRST=$((last + 1)) -f "$D/extract.awk" "$f") || exit 1
done
[ "$last" -gt 0 ] || fail "doc examples" "no <!-- doc-test --> block in README.md or docs/*.md"

i=1
while [ "$i" -le "$last" ]; do
	loc=$(cat "$B/$i.loc")
	cmd=$(cat "$B/$i.cmd")
	out=$TMPD/out.$(printf '%s' "$cmd" | cksum | cut -d' ' -f1)
	if [ ! -f "$out" ]; then
		timeout 300 sh -c "$cmd" >"$out" 2>&1
		echo $? >"$out.rc"
	fi
	rc=$(cat "$out.rc")
	name="$loc: $cmd"
	if [ "$rc" -eq 4 ]; then
		skip "$name" "no backend for it here: $(tail -n 1 "$out")"
	elif [ "$rc" -ne 0 ]; then
		fail "$name" "exit status $rc: $(tail -n 3 "$out" | tr '\n' '|')"
	else
		r=$(awk -f "$D/compare.awk" "$B/$i.txt" "$out")
		if [ "$r" = ok ]; then
			pass "$name"
		else
			dl=$(echo "$r" | cut -f1)
			fail "${loc%%:*}:$dl: stale" "the doc shows '$(echo "$r" | cut -f2)', the command prints '$(echo "$r" | cut -f3)' (block of $name)"
		fi
	fi
	i=$((i + 1))
done
summary
