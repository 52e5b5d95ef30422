#!/bin/sh
# tests/docs/run.sh - the docs cannot drift: every example in README.md
# and docs/*.md marked as runnable (an HTML comment right before its code
# block, see extract.awk) is run, and the counters and structure the block
# shows are compared with what the command prints now (compare.awk: times,
# ratios and pfns are masked). A stale block fails naming the doc, its
# line, the expected line and the nearest one printed. Each distinct
# command runs once (several blocks may show parts of one output).
#
# Times and ratios are checked too where the marker says how closely:
#   <!-- doc-test ratios=3% figures=5% -->
# ratios=P%: every speed-up the block shows ("2.09x") within P percent of
# the one printed, and every other decimal figure, over the first figure
# of its column in the block (the first row of a table), within P percent
# of the same quotient printed now. figures=P%: every decimal figure
# within P percent of the printed one. Figures followed by "%" (spreads,
# changes) are not checked. The tolerances the docs use: icount figures
# are exact and the same on every run, so only a code change moves them:
# ratios=3% figures=5%; host, KVM and TCG clocks vary with the load:
# ratios=25% and no figures=. A figure a doc keeps without a doc-test
# names the commit and clock it was measured at ("icount, at be2fda6"):
# provenance.awk fails a table of figures that names neither.
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
		read -r ratios figures <"$B/$i.tol"
		r=$(awk -v RATIOS="$ratios" -v FIGURES="$figures" -f "$D/compare.awk" "$B/$i.txt" "$out")
		if [ "$r" = ok ]; then
			pass "$name"
		else
			dl=$(echo "$r" | cut -f1)
			fail "${loc%%:*}:$dl: stale" "the doc shows '$(echo "$r" | cut -f2)', the command prints '$(echo "$r" | cut -f3)' (block of $name)"
		fi
	fi
	i=$((i + 1))
done

# Figures that no doc-test re-measures say where they came from.
bad=0
for f in README.md docs/*.md; do
	awk -f "$D/provenance.awk" "$f" >"$TMPD/prov" || exit 1
	while IFS='	' read -r l row; do
		bad=$((bad + 1))
		fail "$f:$l: figures of unknown origin" "the table names no commit and clock; add '(icount, at HASH.)' under it, or make it a doc-test: $row"
	done <"$TMPD/prov"
done
[ "$bad" -eq 0 ] && pass "every table of figures in README.md and docs/*.md names its commit and clock"
summary
