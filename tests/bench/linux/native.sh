#!/bin/sh
# tests/bench/linux/native.sh - item 3 of `make compare`: the same
# operations in real time (clock host). lbench runs natively on this
# machine's own kernel, pinned to one CPU, beside `ptelab --backend host`
# (ptelab's mm code natively against its simulated MMU, PTE format of this
# machine's arch) and a plain memcpy of the same bytes there and back
# (lbench's copy: the physical limit of a migration round trip).
#
# Folio sizes: 4K and 2M through madvise alone; the mTHP sizes only with
# NATIVE_KNOBS=1, which writes this machine's global THP knobs
# (/sys/kernel/mm/transparent_hugepage/hugepages-*kB/enabled, as root) for
# the run and puts every one back afterwards: other processes on the
# machine see them meanwhile. SIZE (64), REPS (11: the minimum is taken as
# the least disturbed), BENCH (fault,zap,mprotect,fork,migrate,gup).
# Output: build/compare/native-<time>/ with the consoles, results.csv and
# table.txt (ns per 4 KiB page, minimum of REPS).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../../lib.sh"
TOP=$(cd "$(dirname "$0")/../../.." && pwd) # lib.sh assumes tests/NAME/
PTELAB=$TOP/build/ptelab
SIZE=${SIZE:-64}
REPS=${REPS:-11}
BENCH=${BENCH:-fault,zap,mprotect,fork,migrate,gup}
a=$(uname -m | sed 's/aarch64/arm64/')
OUT=${OUT:-$TOP/build/compare/native-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT" || exit 1
THP=/sys/kernel/mm/transparent_hugepage
if [ "${NATIVE_KNOBS:-0}" = 1 ]; then
	folios=4K,16K,32K,64K,128K,256K,512K,1M,2M-pte,2M-pmd knobs=on
	saved=""
	for f in "$THP/enabled" "$THP"/hugepages-*kB/enabled; do
		saved="$saved $f=$(sed 's/.*\[\(.*\)\].*/\1/' "$f")"
	done
	# shellcheck disable=SC2064
	trap "for s in $saved; do echo \"\${s#*=}\" >\"\${s%%=*}\"; done; rm -rf '$TMPD'" EXIT
else
	folios=4K,2M-pte,2M-pmd knobs=off
fi
cpu=$(($(nproc) - 1))
nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
echo "native: lbench on $(uname -r) ($a, CPU $cpu, $nodes NUMA node(s), knobs=$knobs), ptelab --backend host"
# One node: Linux cannot migrate here; ptelab's simulated nodes can.
lb=$BENCH
[ "$nodes" -lt 2 ] && lb=$(echo "$BENCH" | sed 's/migrate,\{0,1\}//; s/,$//') &&
	echo "native: this machine has one NUMA node: no Linux migration row (ptelab's and the copy stay)"
taskset -c "$cpu" "$TOP/build/compare/$a/lbench" "bench=$lb,fork_bare,copy" "folios=$folios" \
	"size=$SIZE" "reps=$REPS" clock=host "knobs=$knobs" >"$OUT/linux-native.log" 2>&1
pt=$(echo "$BENCH" | sed 's/\([a-z_]*\)/bench:\1/g; s/bench:gup/bench:gup,bench:gup_put/')
taskset -c "$cpu" "$PTELAB" --backend host --arch "$a" --mem 2G --nodes 2 --quiet "run=$pt" "size=$SIZE" \
	"reps=$REPS" "folios=$folios" gup_keep=ranges >"$OUT/ptelab-host.log" 2>&1
cat "$OUT/linux-native.log" "$OUT/ptelab-host.log" | "$TOP/build/results-csv" >"$OUT/results.csv" ||
	{ echo "native: no RESULT lines"; exit 1; }
awk -F, -v pages=$((SIZE * 256)) '
NR == 1 { gsub(/"/, ""); for (i = 1; i <= NF; i++) c[$i] = i; next }
{
	b = $c["bench"]; f = $c["folio"]; v = $c["variant"]; t = $c["min_us"] * 1000 / pages
	if ($c["backend"] == "linux") { if (b == "fork_bare") bare = t; else if (b == "copy") copy = t;
		else { L[b, f] = v == "linux" ? t : -1 } }
	else if (v == "unbatched") P1[b, f] = t
	else if (v == "batched" || v == "walk+grab") PB[b, f] = t
	seen[b, f] = 1; if (!(b in bo)) { bo[b] = ++nb; bn[nb] = b }
}
END {
	printf "real time (clock host), ns per 4 KiB page, minimum of the repetitions\n"
	printf "fork is net of the bare fork (%.0f ns in all); copy = memcpy of the same bytes there and back: %.1f ns a page\n", bare * pages, copy
	printf "  %-9s %-7s %10s %10s %10s\n", "bench", "folio", "linux", "cap1", "batched"
	n = split("4K 16K 32K 64K 128K 256K 512K 1M 2M-pte 2M-pmd", F, " ")
	for (i = 1; i <= nb; i++) for (j = 1; j <= n; j++) {
		b = bn[i]; f = F[j]
		if (!((b, f) in seen)) continue
		l = (b, f) in L ? (L[b, f] < 0 ? "!size" : sprintf("%.1f", L[b, f] - (b == "fork" ? bare : 0))) : "n/a"
		printf "  %-9s %-7s %10s %10s %10s\n", b, f, l, (b, f) in P1 ? sprintf("%.1f", P1[b, f]) : "n/a",
			(b, f) in PB ? sprintf("%.1f", PB[b, f]) : "n/a"
	}
}' "$OUT/results.csv" | tee "$OUT/table.txt"
