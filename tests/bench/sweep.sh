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
#   CPUS    CPU counts (default 1): each point runs with --cpus N, and
#           bench fault, gup and gup_put with cpus=N too (N CPUs do the
#           timed work); the CSV's cpus column
#   ACTIVE  values of active= for zap, mprotect and migrate (other CPUs
#           with the mm loaded; skipped where ACTIVE >= the point's CPUS);
#           the CSV's active column (empty: not swept, no such key passed)
#   KNOB    KEY=V1,V2,...: any other guest key as an axis of its own, a
#           column KEY in the CSV (e.g. KNOB=gup_walk=on,off)
#   HOSTS   a GNU parallel sshloginfile: run the points on those hosts
#           (":" is this machine), each with this build copied over
#
# Every (benchmark, folio size, CPUs, knob value) point is one ptelab run
# that sweeps all the caps; the points are independent and GNU parallel
# runs them, one per core
# (icount figures do not depend on load; real-time clocks then share the
# machine, so CLOCK=host runs them one at a time). Output, in
# build/sweep/<time>-<pid>-<clock>-<arch>/ (build/sweep/latest links to it):
#   sweep.csv            every RESULT row (ptelab --csv)
#   time-<bench>.png     median time against cap (log2), a line per folio
#   ratio.png            unbatched/batched (cap=1 over cap=max) against
#                        folio size, a line per benchmark
#   counters-<bench>.png counter deltas against cap, per folio size
#   (these three at the first CPUS and knob value), and with more than one
#   CPU count (tests/bench/plot_cpus.sh):
#   cpus-<bench>.png     time, tlb_ipis and the lock contention counters
#                        against CPUs, a panel per folio size, a line per
#                        cap (and knob value)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
P=$TOP/build/ptelab
# The benchmarks that take cpus=, have no cap for caps= and take active=
# (the smp, cap_key and takes_active columns of CMDLINE_BENCHES,
# include/ptelab/cmdline_cmds.h).
SMP_BENCHES=" fault gup gup_put "
NOCAP_BENCHES=" fault "
ACTIVE_BENCHES=" zap mprotect migrate "

# --one DIR BENCH FOLIO CPUS KVAL: one point, run by GNU parallel from the
# top of a tree holding build/ptelab and the guest (this one, or a copy on
# another host); DIR is relative to it, KVAL is the knob's value or "-".
# The settings come through the environment (parallel's --env passes them
# to other hosts). Its CSV gets the knob's column when the guest does not
# print one.
if [ "$1" = --one ]; then
	dir=$2 b=$3 f=$4 c=$5 k=$6
	part=$dir/parts/$b-$f-$c-$k
	mkdir -p "$dir/parts" || exit 255
	set -- --cpus "$c"
	case $NOCAP_BENCHES in *" $b "*) ;; *) set -- "$@" caps="$CAPS" ;; esac
	case $SMP_BENCHES in *" $b "*) set -- "$@" cpus="$c" ;; esac
	[ "$k" = - ] || set -- "$@" "$SWEEP_KEY=$k"
	# shellcheck disable=SC2086
	if build/ptelab $SWEEP_CLK --arch "$ARCH" --mem "$SWEEP_MEM" --quiet --timeout 3600 \
		--csv "$part.csv" "$@" run=bench:"$b" folios="$f" size="$SIZE" reps="$REPS" >"$part.log" 2>&1; then
		if [ -n "$SWEEP_KEY" ] && ! head -n 1 "$part.csv" | tr ',' '\n' | tr -d '"' | grep -qx "$SWEEP_KEY"; then
			awk -v key="$SWEEP_KEY" -v v="$k" 'BEGIN { OFS = "," }
				{ print $0, (NR == 1 ? "\"" key "\"" : (v == "-" ? "" : v)) }' "$part.csv" >"$part.tmp" &&
				mv "$part.tmp" "$part.csv"
		fi
		echo "  $b $f cpus=$c${SWEEP_KEY:+ $SWEEP_KEY=$k} done on $(hostname) in $PWD"
		exit 0
	fi
	echo "  $b $f cpus=$c${SWEEP_KEY:+ $SWEEP_KEY=$k} FAILED on $(hostname): $(tail -n 2 "$part.log" | tr '\n' ' ')"
	exit 255 # parallel stops (--halt)
fi
BENCH=${BENCH:-zap,mprotect,fork}
ARCH=${ARCH:-x86_64}
FOLIOS=${FOLIOS:-4K,16K,64K,2M-pte}
CAPS=${CAPS:-1,2,4,8,16,32,64,128,256,512,max}
SIZE=${SIZE:-64}
CLOCK=${CLOCK:-icount}
CPUS=${CPUS:-1}
# The knob axis: ACTIVE=LIST is active=LIST for the benches that take it.
[ -z "$ACTIVE" ] || [ -z "$KNOB" ] || { echo "sweep: give ACTIVE= or KNOB=, not both" >&2; exit 2; }
SWEEP_KEY=${KNOB%%=*} KVALS=${KNOB#*=}
[ -z "$ACTIVE" ] || SWEEP_KEY=active KVALS=$ACTIVE
if [ -n "$KNOB" ] && { [ "$KNOB" = "$SWEEP_KEY" ] || [ -z "$KVALS" ]; }; then
	echo "sweep: KNOB=$KNOB: want KEY=V1,V2,..." >&2
	exit 2
fi
for c in $(echo "$CPUS" | tr ',' ' '); do
	case $c in [1-8]) ;; *) echo "sweep: CPUS=$CPUS: want CPU counts 1..8" >&2; exit 2 ;; esac
done
case $CLOCK in
icount) clk="--accel icount" reps=1 jobs=$(nproc) ;;
host) clk="--backend host" reps=5 jobs=1 ;;
kvm) clk="--backend kvm" reps=5 jobs=1 ;;
tcg) clk="--accel tcg" reps=5 jobs=$(nproc) ;;
*) echo "sweep: CLOCK=$CLOCK: want icount, host, kvm or tcg" >&2; exit 2 ;;
esac
REPS=${REPS:-$reps}
export ARCH CAPS SIZE REPS SWEEP_CLK="$clk" SWEEP_KEY
# --mem for SIZE by ptelab's rule (--mem-needed), enough for every BENCH.
mem=$("$P" --mem-needed run="$(echo "$BENCH" | sed 's/[^,][^,]*/bench:&/g')" size="$SIZE") ||
	exit 2
export SWEEP_MEM="$mem"
# Check each benchmark's command line once, before any run (exit 2 on a
# typo), with caps= where a point gives it: --dtb-out makes ptelab stop
# after its checks (x86_64 only).
for b in $(echo "$BENCH" | tr ',' ' '); do
	case $NOCAP_BENCHES in *" $b "*) caps="" ;; *) caps="caps=$CAPS" ;; esac
	# shellcheck disable=SC2086
	[ "$ARCH" != x86_64 ] || "$P" $clk --mem "$mem" --dtb-out /dev/null run=bench:"$b" \
		folios="$FOLIOS" $caps size="$SIZE" reps="$REPS" \
		${SWEEP_KEY:+"$SWEEP_KEY=${KVALS%%,*}"} >/dev/null || exit 2
done
STAMP=$(date +%Y%m%d-%H%M%S)-$$-$CLOCK-$ARCH
REL=build/sweep/$STAMP
OUT=$TOP/$REL
mkdir -p "$OUT/parts" || exit 1
ln -sfn "$STAMP" "$TOP/build/sweep/latest"
start=$(date +%s)

# The points, one "bench folio cpus kval" line each, go to GNU parallel:
# here, a job per core (or one at a time on a real-time clock); with
# HOSTS=FILE (one parallel sshlogin a line, ":" = this machine, or a whole
# ssh command such as "4/ssh -p 2222 -i KEY user@host"), on those hosts,
# each as many at a time as it has cores (or as the N/ prefix says).
# Another host gets this build of ptelab, the guest (and the host backend)
# once (--basefile, into ~/ptelab-sweep/<stamp>/ there: --workdir, so
# nothing of the login's own is overwritten; --cleanup removes them) and
# sends its parts back (--return); it needs only QEMU, libfdt and rsync
# (Debian's qemu-system-x86 / qemu-system-arm, libfdt1, rsync). A ":" job
# runs in that work directory too, where nothing was copied: it goes back
# to this tree.
where="-j $jobs"
if [ -n "$HOSTS" ]; then
	[ -r "$HOSTS" ] || { echo "sweep: HOSTS=$HOSTS: no such file" >&2; exit 2; }
	where="--sshloginfile $HOSTS --workdir ptelab-sweep/$STAMP --basefile build/ptelab"
	where="$where --basefile build/$ARCH/guest.elf --basefile tests/bench/sweep.sh"
	[ "$CLOCK" != host ] || where="$where --basefile build/ptelab-host-$ARCH"
	where="$where --return $REL/parts/{1}-{2}-{3}-{4}.csv"
	where="$where --return $REL/parts/{1}-{2}-{3}-{4}.log --cleanup"
	[ "$jobs" = 1 ] && where="$where -j 1"
fi
echo "sweep: $BENCH x $FOLIOS x caps $CAPS x cpus $CPUS${SWEEP_KEY:+ x $SWEEP_KEY $KVALS}," \
	"$SIZE MiB, $REPS reps, clock $CLOCK, $ARCH, ${HOSTS:+hosts in $HOSTS, }$jobs at a time -> $OUT"
# points: "bench folio cpus kval" lines, in the CSV's order; a bench the
# knob does not apply to (ACTIVE=) runs once per CPU count, with "-".
points() {
	for b in $(echo "$BENCH" | tr ',' ' '); do
		for f in $(echo "$FOLIOS" | tr ',' ' '); do
			for c in $(echo "$CPUS" | tr ',' ' '); do
				vals=${SWEEP_KEY:+$KVALS}
				[ -z "$ACTIVE" ] || case $ACTIVE_BENCHES in *" $b "*) ;; *) vals= ;; esac
				for k in $(echo "${vals:--}" | tr ',' ' '); do
					[ -z "$ACTIVE" ] || [ "$k" = - ] || [ "$k" -lt "$c" ] || continue
					echo "$b $f $c $k"
				done
			done
		done
	done
}
[ -z "$ACTIVE" ] || echo "sweep: active=K runs where K < CPUS (K other CPUs besides CPU 0)"
points | (cd "$TOP" && parallel --will-cite --halt now,fail=1 --colsep ' ' $where \
	--env ARCH --env CAPS --env SIZE --env REPS --env SWEEP_CLK --env SWEEP_MEM --env SWEEP_KEY \
	"[ -f tests/bench/sweep.sh ] || cd '$TOP' &&" sh tests/bench/sweep.sh --one "$REL" \
	{1} {2} {3} {4}) ||
	{ echo "sweep: a run failed; see $OUT/parts/"; exit 1; }
# A ":" login's work directory is made in this tree (relative to the
# current directory), and --cleanup leaves it, empty.
[ -z "$HOSTS" ] || rmdir "$TOP/ptelab-sweep/$STAMP" "$TOP/ptelab-sweep" 2>/dev/null

# One CSV, header once, rows in benchmark, folio, CPUs, knob, cap order.
# A part that did not come back (a host's --return failed) fails the sweep.
first=1
points | while read -r b f c k; do
	part=$OUT/parts/$b-$f-$c-$k.csv
	[ -s "$part" ] || { echo "sweep: no CSV for $b $f cpus=$c${SWEEP_KEY:+ $SWEEP_KEY=$k}" >&2; exit 1; }
	if [ $first = 1 ]; then cat "$part"; else tail -n +2 "$part"; fi
	first=0
done >"$OUT/sweep.csv" || exit 1
# Every point must come from the same build: one value in the version column.
versions=$(awk -F, 'NR == 1 { gsub(/"/, ""); for (i = 1; i <= NF; i++) if ($i == "version") c = i; next }
	c { print $c }' "$OUT/sweep.csv" | sort -u)
if [ "$(echo "$versions" | wc -l)" -ne 1 ]; then
	echo "sweep: the points come from different ptelab builds: $(echo "$versions" | tr '\n' ' ')"
	exit 1
fi
# The plots against cap take the rows of the first CPU count and knob value.
mkdir -p "$OUT/plotdata"
awk -F, -v c="${CPUS%%,*}" -v key="$SWEEP_KEY" -v k="${KVALS%%,*}" '
	NR == 1 { gsub(/"/, ""); for (i = 1; i <= NF; i++) col[$i] = i; print; next }
	$col["cpus"] == c && (key == "" || $col[key] == "" || $col[key] == k)' \
	"$OUT/sweep.csv" >"$OUT/plotdata/caps.csv"
title="$CLOCK $ARCH, $SIZE MiB"
[ "$CPUS" = 1 ] || title="$title, ${CPUS%%,*} CPUs"
[ -z "$SWEEP_KEY" ] || title="$title, $SWEEP_KEY=${KVALS%%,*}"
sh "$TOP/tests/bench/plot.sh" "$OUT" "$BENCH" "$FOLIOS" "$title" "$OUT/plotdata/caps.csv" || exit 1
[ "$CPUS" = "${CPUS%%,*}" ] || sh "$TOP/tests/bench/plot_cpus.sh" "$OUT" "$BENCH" "$FOLIOS" \
	"$CLOCK $ARCH, $SIZE MiB" "$SWEEP_KEY" || exit 1
echo "sweep: $(($(wc -l <"$OUT/sweep.csv") - 1)) rows in $OUT/sweep.csv, plots:" \
	"$(cd "$OUT" && ls ./*.png | tr '\n' ' ')"
echo "sweep: $(($(date +%s) - start)) s on $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
