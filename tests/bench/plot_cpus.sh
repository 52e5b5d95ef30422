#!/bin/sh
# tests/bench/plot_cpus.sh DIR BENCHES FOLIOS TITLE [KEY] - the plots against
# CPUs of a sweep with several CPUS (tests/bench/sweep.sh), from
# DIR/sweep.csv, with gnuplot, into DIR:
#   cpus-<bench>.png  a row per folio size, three panels: median time,
#                     tlb_ipis and the contended lock acquisitions
#                     (ptl + mm_lock + alloc_lock + other_lock) against the
#                     CSV's cpus column; a line per variant (cap), and per
#                     value of the knob column KEY when given (ACTIVE=,
#                     KNOB=)
DIR=$1 BENCHES=$(echo "$2" | tr ',' ' ') FOLIOS=$(echo "$3" | tr ',' ' ') TITLE=$4 KEY=$5
CSV=$DIR/sweep.csv
D=$DIR/plotdata
mkdir -p "$D"

# series BENCH FOLIO: one file per line of the plot, $D/BENCH-FOLIO-cpus.N,
# rows "cpus median_us tlb_ipis contended" in CPU order; prints
# "N title" per file.
series() {
	awk -F, -v b="$1" -v f="$2" -v key="$KEY" -v out="$D/$1-$2-cpus" '
		NR == 1 { gsub(/"/, ""); for (i = 1; i <= NF; i++) col[$i] = i; next }
		$col["bench"] == b && $col["folio"] == f {
			s = $col["variant"] (key != "" && $col[key] != "" ? " " key "=" $col[key] : "")
			if (!(s in idx)) { idx[s] = ++n; name[n] = s }
			c = $col["counters.ptl_contended"] + $col["counters.mm_lock_contended"] + \
				$col["counters.alloc_lock_contended"] + $col["counters.other_lock_contended"]
			row[idx[s], $col["cpus"]] = $col["cpus"] " " $col["median_us"] " " \
				$col["counters.tlb_ipis"] " " c
		}
		END {
			for (i = 1; i <= n; i++) {
				for (cpu = 1; cpu <= 8; cpu++)
					if ((i, cpu) in row) print row[i, cpu] > (out "." i)
				close(out "." i)
				print i, name[i]
			}
		}' "$CSV"
}

CLK=$(awk -F, 'NR == 1 { gsub(/"/, ""); for (i = 1; i <= NF; i++) if ($i == "clock") c = i } NR == 2 { print $c }' "$CSV")
case $CLK in
icount) YL="median us (icount, all CPUs)" ;;
*) YL="median us ($CLK)" ;;
esac
for b in $BENCHES; do
	n=$(echo "$FOLIOS" | wc -w)
	script="set terminal pngcairo size 1500,$((300 * n)) font ',9' noenhanced; set grid;
		set output '$DIR/cpus-$b.png'; set multiplot layout $n,3; set xlabel 'CPUs';
		set xtics 1; set key top left; set yrange [0:*]"
	for f in $FOLIOS; do
		series "$b" "$f" >"$D/$b-$f-cpus.list"
		for panel in "2|$YL|time" "3|tlb_ipis|IPIs" "4|contended lock acquisitions|contention"; do
			k=${panel%%|*} rest=${panel#*|}
			plot=""
			while read -r i t; do
				plot="$plot${plot:+, }'$D/$b-$f-cpus.$i' using 1:$k with linespoints title '$t'"
			done <"$D/$b-$f-cpus.list"
			[ -n "$plot" ] || plot="0 notitle"
			script="$script; set ylabel '${rest%%|*}'; set title '$b $f: ${rest#*|} against CPUs ($TITLE)'; plot $plot"
		done
	done
	gnuplot -e "$script; unset multiplot" 2>"$D/gnuplot.err" || { cat "$D/gnuplot.err"; exit 1; }
done
