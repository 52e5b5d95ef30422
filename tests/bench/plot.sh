#!/bin/sh
# tests/bench/plot.sh DIR BENCHES FOLIOS TITLE [CSV] - the plots of a sweep
# (tests/bench/sweep.sh) from CSV (default DIR/sweep.csv; one row per
# bench, folio and cap), with gnuplot, into DIR:
#   time-<bench>.png      median time against cap, log2 x axis, a line per
#                         folio size; "max" sits one step right of the
#                         largest number
#   ratio.png             time at cap=1 over time at cap=max against folio
#                         size, a line per benchmark (how many times faster
#                         full batching is; GUP's cap 1 has the walk on)
#   counters-<bench>.png  the counters that change with the cap, against
#                         cap, one panel per folio size
# (benchmarks without a cap get none of these)
DIR=$1 BENCHES=$(echo "$2" | tr ',' ' ') FOLIOS=$(echo "$3" | tr ',' ' ') TITLE=$4
CSV=${5:-$DIR/sweep.csv}
command -v gnuplot >/dev/null || { echo "plot: gnuplot is missing (apt-get install gnuplot-nox)"; exit 1; }
D=$DIR/plotdata
mkdir -p "$D"
# Only benchmarks with a cap have plots against it (bench:fault has none).
BENCHES=$(for b in $BENCHES; do
	awk -F, -v b="$b" 'NR == 1 { gsub(/"/, ""); for (i = 1; i <= NF; i++) col[$i] = i; next }
		$col["bench"] == b && $col["cap"] != "" { print b; exit }' "$CSV"
done)
[ -n "$BENCHES" ] || exit 0

# csv_pick BENCH FOLIO COLUMNS...: "capx value..." rows of one series,
# capx the numeric cap (max = twice the largest number given).
csv_pick() {
	awk -F, -v b="$1" -v f="$2" -v cols="$3" '
		NR == 1 { gsub(/"/, ""); for (i = 1; i <= NF; i++) col[$i] = i; n = split(cols, want, " "); next }
		$col["bench"] == b && $col["folio"] == f {
			rows[++nr] = $0
			if ($col["cap"] + 0 > big) big = $col["cap"] + 0
		}
		END {
			for (r = 1; r <= nr; r++) {
				split(rows[r], v, ",")
				x = v[col["cap"]] == "max" ? 2 * (big ? big : 1) : v[col["cap"]]
				line = x
				for (i = 1; i <= n; i++) line = line " " v[col[want[i]]]
				print line
			}
		}' "$CSV"
}

# The x tics: every cap given, "max" at twice the largest.
xtics() {
	awk -F, 'NR == 1 { gsub(/"/, ""); for (i = 1; i <= NF; i++) if ($i == "cap") c = i; next }
		{ if ($c == "max") m = 1; else { caps[$c + 0] = 1; if ($c + 0 > big) big = $c + 0 } }
		END { s = ""; for (k in caps) s = s (s ? ", " : "") "\"" k "\" " k
			if (m) s = s (s ? ", " : "") "\"max\" " 2 * (big ? big : 1); print "(" s ")" }' "$CSV"
}
XT=$(xtics)
CLK=$(awk -F, 'NR == 1 { gsub(/"/, ""); for (i = 1; i <= NF; i++) if ($i == "clock") c = i } NR == 2 { print $c }' "$CSV")
case $CLK in
icount) YL="median us (icount: thousands of guest instructions)" ;;
host) YL="median us (host: real time, simulated MMU)" ;;
*) YL="median us ($CLK)" ;;
esac
# The x range: a little room around 1 and "max" so their tics show.
XMAX=$(echo "$XT" | sed -E 's/.* ([0-9]+)\)$/\1/')
XR="set xrange [0.8:$((XMAX * 5 / 4 + 1))]"
COMMON="set terminal pngcairo size 900,600 font ',10' noenhanced; set grid; set key outside right top"

for b in $BENCHES; do
	plot="" i=0
	for f in $FOLIOS; do
		csv_pick "$b" "$f" "median_us" >"$D/$b-$f.time"
		plot="$plot${plot:+, }'$D/$b-$f.time' using 1:2 with linespoints title '$f'"
	done
	gnuplot -e "$COMMON; set output '$DIR/time-$b.png'; set logscale x 2; set xtics $XT; $XR;
		set xlabel 'cap (PTEs per batch)'; set ylabel '$YL';
		set yrange [0:*]; set title '$b: time against batch cap ($TITLE)'; plot $plot" ||
		exit 1
done

# ratio.png: cap=1 over cap=max per folio, folios in the order given.
plot=""
for b in $BENCHES; do
	i=0
	for f in $FOLIOS; do
		awk -F, -v b="$b" -v f="$f" -v i="$i" '
			NR == 1 { gsub(/"/, ""); for (k = 1; k <= NF; k++) col[$k] = k; next }
			$col["bench"] == b && $col["folio"] == f && $col["cap"] == "1" { one = $col["median_us"] }
			$col["bench"] == b && $col["folio"] == f && $col["cap"] == "max" { mx = $col["median_us"] }
			END { if (one && mx) printf "%d %s %.3f\n", i, f, one / mx }' "$CSV"
		i=$((i + 1))
	done >"$D/$b.ratio"
	# GUP's cap is gup_grab with the walk on: its cap 1 is the walk
	# variant, not the unbatched code, and the key says so.
	t=$b
	case $b in gup | gup_put) t="$b (walk on: walk over walk+grab)" ;; esac
	plot="$plot${plot:+, }'$D/$b.ratio' using 1:3:xtic(2) with linespoints title '$t'"
done
gnuplot -e "$COMMON; set output '$DIR/ratio.png'; set xlabel 'folio size';
	set ylabel 'time at cap=1 / time at cap=max'; set yrange [0:*];
	set title 'how many times faster full batching is ($TITLE)'; plot $plot" || exit 1

# counters-<bench>.png: a panel per folio, the counters that vary.
CNT="pt_descents ptl_takes ptep_gets ref_updates mapcount_updates tlb_flushes cont_folds cont_unfolds"
for b in $BENCHES; do
	n=$(echo "$FOLIOS" | wc -w)
	script="$COMMON; set terminal pngcairo size 900,$((260 * n)) font ',9' noenhanced; $XR;
		set output '$DIR/counters-$b.png'; set multiplot layout $n,1;
		set logscale x 2; set logscale y 10; set xtics $XT; set ylabel 'per repetition'"
	for f in $FOLIOS; do
		csv_pick "$b" "$f" "$(for c in $CNT; do printf 'counters.%s ' "$c"; done)" >"$D/$b-$f.cnt"
		plot="" k=2
		for c in $CNT; do
			# Only counters that change with the cap, and are not zero.
			if awk -v k=$k 'NR == 1 { a = $k } $k != a { d = 1 } END { exit !(d) }' "$D/$b-$f.cnt"; then
				plot="$plot${plot:+, }'$D/$b-$f.cnt' using 1:$k with linespoints title '$c'"
			fi
			k=$((k + 1))
		done
		if [ -z "$plot" ]; then
			# Nothing changes with the cap: show the first counter that is not 0.
			k=$(awk 'NR == 1 { for (i = 2; i <= NF; i++) if ($i > 0) { print i; exit } }' \
				"$D/$b-$f.cnt")
			c=$(echo "$CNT" | cut -d' ' -f$((${k:-2} - 1)))
			plot="'$D/$b-$f.cnt' using 1:${k:-2} with linespoints title '$c (flat)'"
		fi
		script="$script; set title '$b $f: counters against cap ($TITLE)'; plot $plot"
	done
	gnuplot -e "$script; unset multiplot" 2>"$D/gnuplot.err" || { cat "$D/gnuplot.err"; exit 1; }
done
