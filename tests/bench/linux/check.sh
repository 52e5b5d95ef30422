#!/bin/sh
# tests/bench/linux/check.sh [ARCH...] - the `linux` stage of make test:
# the Linux side of `make compare` works. For each ARCH (default: x86_64
# arm64, side by side) boot Debian's 6.12 under QEMU icount with lbench
# running one operation on 4 MiB of 4K, 64K (mTHP) and 2M (PMD) folios,
# five repetitions, twice; check that every row
# came back, got the folio size it asked for (pagemap + kpageflags), and
# that the two runs' medians agree within 1% (icount; Linux's own arm64
# mprotect 64K medians were 658.2 to 661.6 us across the recent clean clones,
# 0.52%: the same kernel, lbench and clock), and that ptelab's
# CSV writer (build/results-csv) takes the rows unchanged. No QEMU or no
# network for the first fetch: SKIP with the reason. The operation is
# mprotect RO then RW: it allocates nothing, so no allocator state (6.12
# tunes its per-CPU free lists as it runs: munmap of 4K pages costs twice
# as much in the first seconds) carries over from one run to the next.
# The same boot checks the swap device of `make compare`'s pageout and
# swapin cells (init.sh's RAM disk, swap=on): a MADV_PAGEOUT of the same
# regions puts every page on swap (lbench's pagemap check, folio_ok).
# Measured on x86_64 6.12: lbench's part of the boot grows from 0.46 to
# 1.25 s of guest time (brd and swapon: 0.06 s), the boot from 61 to 73 s
# of wall time on a loaded machine (load 14 on 2 CPUs).
# 4 MiB keeps one repetition (1.5 M instructions at most) well under the
# 4 M between two timer ticks (HZ=250), so the median of five has none.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../../lib.sh"
TOP=$(cd "$(dirname "$0")/../../.." && pwd) # lib.sh assumes tests/NAME/
# shellcheck source=tests/bench/linux/boot.sh
. "$TOP/tests/bench/linux/boot.sh"
ARCHES=${*:-x86_64 arm64}
FOLIOS="4K 64K 2M-pmd"
LX_TIMEOUT=${LX_TIMEOUT:-300}

# check_swap ARCH LOG: the pageout rows of one boot, every page on swap.
check_swap() {
	a=$1 log=$2
	if ! grep -q 'compare: swap on /dev/ram0' "$log"; then
		fail "linux-$a: swap device" "$(grep -o 'compare: no swap.*' "$log" || echo "no swap line")"
		return
	fi
	for f in $FOLIOS; do
		rows=$(grep "^RESULT .*\"bench\":\"pageout\".*\"folio\":\"$f\"" "$log")
		n=$(echo "$rows" | grep -c '"folio_ok":true')
		got=$(echo "$rows" | sed -n 's/.*"folio_got":"\([^"]*\)".*/\1/p' | sort -u | tr '\n' ' ')
		if [ "$n" -eq 2 ]; then
			pass "linux-$a: pageout $f: every page on the RAM swap device (pagemap)"
		else
			fail "linux-$a: pageout $f" "wanted 2 rows with every page swapped, got $n (${got:-none})"
		fi
	done
}

# check_arch ARCH LOG: the case lines of one boot.
check_arch() {
	a=$1 log=$2
	if ! grep -q '^compare: end' "$log"; then
		fail "linux-$a: boot" "lbench did not finish: $(tail -n 3 "$log" | tr '\n' '|')"
		return
	fi
	check_swap "$a" "$log"
	for f in $FOLIOS; do
		rows=$(grep "^RESULT .*\"bench\":\"mprotect\".*\"folio\":\"$f\"" "$log")
		n=$(echo "$rows" | grep -c '"folio_ok":true')
		got=$(echo "$rows" | sed -n 's/.*"folio_got":"\([^"]*\)".*/\1/p' | sort -u | tr '\n' ' ')
		if [ "$n" -ne 2 ]; then
			fail "linux-$a: mprotect $f" "wanted 2 rows with $f folios, got $n (folios: ${got:-none})"
			continue
		fi
		pass "linux-$a: mprotect $f: every folio is $f"
		meds=$(echo "$rows" | sed -n 's/.*"median_us":\([0-9.]*\).*/\1/p' | tr '\n' ' ')
		if echo "$meds" | awk '{ d = $1 - $2; if (d < 0) d = -d; exit !(d <= 0.01 * $1) }'; then
			pass "linux-$a: mprotect $f repeats within 1% (median us, icount: $meds)"
		else
			fail "linux-$a: mprotect $f repeats" "medians $meds differ by more than 1%"
		fi
	done
}

# csv_check ARCH LOG: the rows go through ptelab's CSV writer unchanged.
csv_check() {
	a=$1
	if ! "$TOP/build/results-csv" <"$2" >"$TMPD/$a.csv"; then
		fail "linux-$a: csv" "build/results-csv read no RESULT line"
		return
	fi
	bad=$(awk -F, 'NR == 1 { gsub(/"/, ""); for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["backend"] != "linux" || $c["clock"] != "icount" || $c["version"] !~ /^6\.12\./ ||
		$c["median_us"] + 0 <= 0 { n++ } END { print n + 0 }' "$TMPD/$a.csv")
	rows=$(($(wc -l <"$TMPD/$a.csv") - 1))
	if [ "$rows" -eq 12 ] && [ "$bad" -eq 0 ]; then
		pass "linux-$a: 12 rows in ptelab's CSV schema (backend linux, clock icount, version 6.12)"
	else
		fail "linux-$a: csv" "$rows rows, $bad without backend linux, clock icount, a 6.12 version or a time"
	fi
}

booted=""
why=$(lx_make build/results-csv 2>&1) || { fail "linux: build" "build/results-csv: $why"; summary; exit; }
for a in $ARCHES; do
	lx_prepare "$a"
	case $? in
	0) booted="$booted $a" ;;
	1) skip "linux-$a" "$why" ;;
	*) fail "linux-$a" "$why" ;;
	esac
done
for a in $booted; do
	lx_boot "$a" 6.12 tuned "$TMPD/linux-$a.log" bench=mprotect,pageout \
		"folios=$(echo $FOLIOS | tr ' ' ,)" size=4 reps=5 runs=2 swap=on &
done
wait
for a in $booted; do
	check_arch "$a" "$TMPD/linux-$a.log"
	csv_check "$a" "$TMPD/linux-$a.log"
done
summary
