#!/bin/sh
# tests/bench/sweep.sh - `make sweep`: time and counters against the batch
# cap, from one command to a CSV and PNG plots.
#
#   BENCH   benchmarks, comma-separated (default zap,mprotect,fork)
#   ARCH    x86_64 or arm64 (default x86_64)
#   FOLIOS  folio sizes (default 4K,16K,64K,2M-pte)
#   CAPS    the caps (default 1,2,4,8,16,32,64,128,256,512,max)
#   SIZE    MiB per repetition (default 64)
#   CLOCK   icount (default: exact guest instructions), host (the mm code
#           natively, real time), kvm, tcg (noise)
#   REPS    repetitions (default 1 on icount, which is exact; else 5)
#   HOSTS   a GNU parallel sshloginfile: run the points on those hosts
#           (":" is this machine), each with this build copied over
#
# Every (benchmark, folio size) pair is one ptelab run that sweeps all the
# caps; the pairs are independent and GNU parallel runs them, one per core
# (icount figures do not depend on load; real-time clocks then share the
# machine, so CLOCK=host runs them one at a time). Output, in
# build/sweep/<time>-<clock>-<arch>/ (build/sweep/latest links to it):
#   sweep.csv            every RESULT row (ptelab --csv)
#   time-<bench>.png     median time against cap (log2), a line per folio
#   ratio.png            unbatched/batched (cap=1 over cap=max) against
#                        folio size, a line per benchmark
#   counters-<bench>.png counter deltas against cap, per folio size
TOP=$(cd "$(dirname "$0")/../.." && pwd)
P=$TOP/build/ptelab
# --one DIR BENCH FOLIO: one point, run by GNU parallel from the top of a
# tree holding build/ptelab and the guest (this one, or a copy on another
# host); DIR is relative to it. The settings come through the environment
# (parallel's --env passes them to other hosts).
if [ "$1" = --one ]; then
	mkdir -p "$2/parts" || exit 255
	# shellcheck disable=SC2086
	if build/ptelab $SWEEP_CLK --arch "$ARCH" --mem "$SWEEP_MEM" --quiet --timeout 3600 \
		--csv "$2/parts/$3-$4.csv" run=bench:"$3" folios="$4" caps="$CAPS" size="$SIZE" \
		reps="$REPS" >"$2/parts/$3-$4.log" 2>&1; then
		echo "  $3 $4 done on $(hostname)"
		exit 0
	fi
	echo "  $3 $4 FAILED on $(hostname): $(tail -n 2 "$2/parts/$3-$4.log" | tr '\n' ' ')"
	exit 255 # parallel stops (--halt)
fi
BENCH=${BENCH:-zap,mprotect,fork}
ARCH=${ARCH:-x86_64}
FOLIOS=${FOLIOS:-4K,16K,64K,2M-pte}
CAPS=${CAPS:-1,2,4,8,16,32,64,128,256,512,max}
SIZE=${SIZE:-64}
CLOCK=${CLOCK:-icount}
case $CLOCK in
icount) clk="--accel icount" reps=1 jobs=$(nproc) ;;
host) clk="--backend host" reps=5 jobs=1 ;;
kvm) clk="--backend kvm" reps=5 jobs=1 ;;
tcg) clk="--accel tcg" reps=5 jobs=$(nproc) ;;
*) echo "sweep: CLOCK=$CLOCK: want icount, host, kvm or tcg" >&2; exit 2 ;;
esac
REPS=${REPS:-$reps}
export ARCH CAPS SIZE REPS SWEEP_CLK="$clk"
# --mem for SIZE by ptelab's rule (--mem-needed), enough for every BENCH.
mem=$("$P" --mem-needed run="$(echo "$BENCH" | sed 's/[^,][^,]*/bench:&/g')" size="$SIZE") ||
	exit 2
export SWEEP_MEM="$mem"
# Check the whole command line once, before any run (exit 2 on a typo):
# --dtb-out makes ptelab stop after its checks (x86_64 only).
# shellcheck disable=SC2086
[ "$ARCH" != x86_64 ] || "$P" $clk --mem "$mem" --dtb-out /dev/null run=bench:"${BENCH%%,*}" \
	folios="$FOLIOS" caps="$CAPS" size="$SIZE" reps="$REPS" >/dev/null || exit 2
STAMP=$(date +%Y%m%d-%H%M%S)-$CLOCK-$ARCH
REL=build/sweep/$STAMP
OUT=$TOP/$REL
mkdir -p "$OUT/parts" || exit 1
ln -sfn "$STAMP" "$TOP/build/sweep/latest"
start=$(date +%s)

# The points, one "bench folio" line each, go to GNU parallel: here, a job
# per core (or one at a time on a real-time clock); with HOSTS=FILE (one
# parallel sshlogin a line, ":" = this machine), on those hosts, each as
# many at a time as it has cores. Another host gets this build of ptelab,
# the guest (and the host backend) once (--basefile, into the same paths
# under the login's home directory, removed again by --cleanup) and sends
# its parts back (--return); it needs only QEMU, libfdt and rsync
# (Debian's qemu-system-x86 / qemu-system-arm, libfdt1, rsync).
where="-j $jobs"
if [ -n "$HOSTS" ]; then
	[ -r "$HOSTS" ] || { echo "sweep: HOSTS=$HOSTS: no such file" >&2; exit 2; }
	where="--sshloginfile $HOSTS --basefile build/ptelab"
	where="$where --basefile build/$ARCH/guest.elf --basefile tests/bench/sweep.sh"
	[ "$CLOCK" != host ] || where="$where --basefile build/ptelab-host-$ARCH"
	where="$where --return $REL/parts/{1}-{2}.csv --return $REL/parts/{1}-{2}.log --cleanup"
	[ "$jobs" = 1 ] && where="$where -j 1"
fi
echo "sweep: $BENCH x $FOLIOS x caps $CAPS, $SIZE MiB, $REPS reps, clock $CLOCK, $ARCH," \
	"${HOSTS:+hosts in $HOSTS, }$jobs at a time -> $OUT"
for b in $(echo "$BENCH" | tr ',' ' '); do
	for f in $(echo "$FOLIOS" | tr ',' ' '); do
		echo "$b $f"
	done
done | (cd "$TOP" && parallel --will-cite --halt now,fail=1 --colsep ' ' $where \
	--env ARCH --env CAPS --env SIZE --env REPS --env SWEEP_CLK --env SWEEP_MEM \
	sh tests/bench/sweep.sh --one "$REL" {1} {2}) ||
	{ echo "sweep: a run failed; see $OUT/parts/"; exit 1; }

# One CSV, header once, rows in benchmark, folio, cap order.
first=1
for b in $(echo "$BENCH" | tr ',' ' '); do
	for f in $(echo "$FOLIOS" | tr ',' ' '); do
		if [ $first = 1 ]; then cat "$OUT/parts/$b-$f.csv"; else tail -n +2 "$OUT/parts/$b-$f.csv"; fi
		first=0
	done
done >"$OUT/sweep.csv"
# Every point must come from the same build: one value in the version column.
versions=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "version") c = i; next }
	c { print $c }' "$OUT/sweep.csv" | sort -u)
if [ "$(echo "$versions" | wc -l)" -ne 1 ]; then
	echo "sweep: the points come from different ptelab builds: $(echo "$versions" | tr '\n' ' ')"
	exit 1
fi
sh "$TOP/tests/bench/plot.sh" "$OUT" "$BENCH" "$FOLIOS" "$CLOCK $ARCH, $SIZE MiB" || exit 1
echo "sweep: $(($(wc -l <"$OUT/sweep.csv") - 1)) rows in $OUT/sweep.csv, plots:" \
	"$(cd "$OUT" && ls ./*.png | tr '\n' ' ')"
echo "sweep: $(($(date +%s) - start)) s on $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
