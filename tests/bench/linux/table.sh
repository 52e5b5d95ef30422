#!/bin/sh
# tests/bench/linux/table.sh DIR - the comparison table of a `make compare`
# run from DIR/results.csv: operation x folio size x {Linux 6.1, Linux
# 6.12, ptelab cap 1, ptelab batched, ptelab (same binary)} in guest
# instructions per 4 KiB page (icount: median_us x 1000 / pages), per arch.
# "same binary" is lbench itself run as a ptelab user process (its uname
# release says ptelab): its cells are read as Linux's are (fork net of its
# own fork_bare), "L/same" is the cheaper Linux over it. lbench's
# micro-benchmarks (syscall, ufault, forkexit: "ops=N" in params) get a
# table of their own, in guest instructions per operation. Writes DIR/table.txt,
# DIR/table.csv and, with gnuplot, DIR/plot-ARCH-BENCH.png (log y axis, a
# line per column, the folio sizes along x; as tests/bench/plot.sh's).
#
# Linux cells: fork is net of fork_bare (the same kernel's fork with no
# region); "!SIZE" = the kernel gave folios of SIZE, not the asked size,
# not compared; "~" = migrate/move_pages whose way back split the folios
# (6.12): twice the way there; "N*" = a swapin whose pages came back as
# smaller folios than asked (variant back-SIZE: the kernel's choice,
# compared); "n/a" = no such row (6.1 has no mTHP; numa_hint has no Linux
# side).
# "ahead": ptelab batched below the cheaper kernel. Notes: x86_64
# migrate/move_pages ("6.12 copies with rep movsb"): QEMU counts a rep
# string per iteration, and 6.12 copies a page with rep movsb (4096),
# ptelab and 6.1 with rep movsq (512); fault ("zeroing differs"): Linux
# clears pages with rep stos, ptelab with memset; gup/gup_put ("Linux: io_uring"): the
# pin is io_uring's buffer registration, with its own per-page work
# (docs/linux.md).
DIR=$1
CSV=$DIR/results.csv
[ -s "$CSV" ] || { echo "table: no $CSV"; exit 1; }
awk -F, -v out="$DIR" '
# A figure: one decimal below 10, none above.
function num(v) { return v < 10 ? sprintf("%.1f", v) : sprintf("%.0f", v) }
NR == 1 { gsub(/"/, ""); for (i = 1; i <= NF; i++) c[$i] = i; next }
{
	a = $c["arch"]; b = $c["bench"]; f = $c["folio"]; var = $c["variant"]
	if (f == "\047-") f = "-" # the CSV writer guards a leading "-" from spreadsheets
	pages[$c["arch"]] = $c["size_mb"] * 256
	pp = $c["median_us"] * 1000 / pages[$c["arch"]]
	if ($c["backend"] == "linux") {
		k = $c["version"] ~ /ptelab/ ? "pt" : $c["version"] ~ /^6\.12\./ ? "6.12" : $c["version"] ~ /^6\.1\./ ? "6.1" : $c["version"]
		kernels[k] = 1
		ver[a, k] = $c["version"]
		if ($c["params"] ~ /^ops=[0-9]+$/) {
			M[a, b, f, k] = $c["median_us"] * 1000 / substr($c["params"], 5)
			MV[a, b, f, k] = var; micro[a, b, f] = 1; arches[a] = 1; has_micro[a] = 1
			next
		}
		if (b == "fork_bare") { bare[a, k] = pp; next }
		# User space, the same on every kernel: the least disturbed.
		if (b ~ /^copy_movs/) { if (!((a, b) in rep) || pp < rep[a, b]) rep[a, b] = pp; next }
		L[a, b, f, k] = pp; LV[a, b, f, k] = var
		if (var ~ /^back-/) has_back[a] = 1
	} else if (var == "unbatched") P1[a, b, f] = pp
	else if (var == "batched" || var == "walk+grab") PB[a, b, f] = pp
	else next
	arches[a] = 1; seen[a, b, f] = 1
}
# The Linux cell: value (or empty when not comparable) and its text.
function lin(a, b, f, k,    v, t) {
	lv = ""; lt = "n/a"
	if (!((a, b, f, k) in L)) return
	v = L[a, b, f, k]; t = LV[a, b, f, k]
	if (t ~ /^got-/) { lt = "!" substr(t, 5); return }
	if (t ~ /^back-/) { lv = v; lt = num(v) "*"; return }
	if (b == "fork") v -= bare[a, k]
	if (t == "split-back") { v = 2 * L[a, b "_leg1", f, k]; lt = "~" num(v); lv = v; return }
	lv = v; lt = num(v)
}
# The micro-benchmarks of arch @a: guest instructions per operation, the
# same lbench on each kernel; "L/same" as in the main table.
function micro_table(a, F, nf, ttxt, tcsv,    nm, MB, i, j, b, f, v61, t61, v612, t612, best, r, v) {
	nm = split("syscall ufault forkexit", MB, " ")
	if (!has_micro[a]) return
	printf "  micro-benchmarks, guest instructions per operation (syscall: getpid round trip; ufault: one fault of a whole folio; forkexit: fork + _exit + waitpid)\n" >> ttxt
	printf "  %-10s %-7s %9s %9s %9s %8s\n", "bench", "folio", "6.1", "6.12", "same-bin", "L/same" >> ttxt
	for (i = 1; i <= nm; i++)
		for (j = 0; j <= nf; j++) {
			b = MB[i]; f = j ? F[j] : "-"
			if (!((a, b, f) in micro)) continue
			mic(a, b, f, "6.1"); v61 = mv; t61 = mt
			mic(a, b, f, "6.12"); v612 = mv; t612 = mt
			mic(a, b, f, "pt")
			best = v61 != "" && (v612 == "" || v61 < v612) ? v61 : v612
			r = best != "" && mv != "" && mv > 0 ? sprintf("%.2f", best / mv) : ""
			v = r == "" ? "" : best > mv ? "ahead" : "BEHIND"
			printf "  %-10s %-7s %9s %9s %9s %8s %s\n", b, f, t61, t612, mt, r == "" ? "-" : r "x", v >> ttxt
			printf "%s,%s,%s,%s,%s,,,%s,,,per operation,%s,%s,%s\n", a, b, f, t61, t612,
				best == "" ? "" : sprintf("%.1f", best), mv == "" ? "" : sprintf("%.1f", mv), r,
				v == "" ? "-" : v >> tcsv
		}
}

# The micro-benchmark cell: value in mv (empty when absent or not
# comparable), its text in mt.
function mic(a, b, f, k) {
	mv = ""; mt = "n/a"
	if (!((a, b, f, k) in M)) return
	if (MV[a, b, f, k] ~ /^got-/) { mt = "!" substr(MV[a, b, f, k], 5); return }
	mv = M[a, b, f, k]; mt = num(mv)
}
END {
	nb = split("fault zap mprotect fork migrate move_pages gup gup_put mremap madvise_free madvise_dontneed madvise_populate pageout swapin young numa_hint reclaim reclaim_shared", B, " ")
	nf = split("4K 16K 32K 64K 128K 256K 512K 1M 2M-pte 2M-pmd", F, " ")
	tcsv = out "/table.csv"; ttxt = out "/table.txt"
	print "arch,bench,folio,linux_6.1,linux_6.12,ptelab_cap1,ptelab_batched,best_linux,linux_over_ptelab,ahead,note,ptelab_same_binary,linux_over_same,same_ahead" > tcsv
	printf "" > ttxt
	for (a in arches) {
		printf "%s, guest instructions per 4 KiB page (icount); Linux: 6.1 = %s, 6.12 = %s\n", a, (a, "6.1") in ver ? ver[a, "6.1"] : "-", (a, "6.12") in ver ? ver[a, "6.12"] : "-" >> ttxt
		printf "  fork is net of the bare fork (6.1: %.0f, 6.12: %.0f instructions in all)\n", bare[a, "6.1"] * pages[a], bare[a, "6.12"] * pages[a] >> ttxt
		if (has_back[a])
			printf "  N* = the swap-in read the pages back as smaller folios than the asked size (Linux: no PMD-size swap-in, none at all on 6.1)\n" >> ttxt
		if ((a, "copy_movsq") in rep)
			printf "  a page copied there and back as QEMU counts it: rep movsq %.0f (6.1), rep movsb %.0f (6.12)\n", rep[a, "copy_movsq"], rep[a, "copy_movsb"] >> ttxt
		printf "  %-10s %-7s %9s %9s %9s %9s %8s %-6s %9s %8s %s\n", "bench", "folio", "6.1", "6.12", "cap1", "batched", "L/ptelab", "", "same-bin", "L/same", "" >> ttxt
		for (i = 1; i <= nb; i++) {
			b = B[i]
			dat = out "/plot-" a "-" b ".dat"; rows = 0
			for (j = 1; j <= nf; j++) {
				f = F[j]
				if (!((a, b, f) in seen)) continue
				lin(a, b, f, "6.1"); v61 = lv; t61 = lt
				lin(a, b, f, "6.12"); v612 = lv; t612 = lt
				best = v61 != "" && (v612 == "" || v61 < v612) ? v61 : v612
				pb = (a, b, f) in PB ? PB[a, b, f] : ""
				p1 = (a, b, f) in P1 ? P1[a, b, f] : ""
				ratio = best != "" && pb != "" && pb > 0 ? sprintf("%.2f", best / pb) : ""
				ahead = ratio == "" ? "-" : best > pb ? "ahead" : "BEHIND"
				lin(a, b, f, "pt"); vpt = lv; tpt = lt
				rpt = best != "" && vpt != "" && vpt > 0 ? sprintf("%.2f", best / vpt) : ""
				apt = rpt == "" ? "-" : best > vpt ? "ahead" : "BEHIND"
				note = a == "x86_64" && (b == "migrate" || b == "move_pages") ? "6.12 copies with rep movsb" : ""
				if (a == "x86_64" && b == "fault") note = "zeroing differs"
				if (b ~ /^gup/) note = "Linux: io_uring"
				if (b == "madvise_populate") note = "no cap; zeroing differs"
				if (b == "pageout" || b == "swapin") note = "Linux: swap cache, block layer"
				if (b == "reclaim" || b == "reclaim_shared") note = "Linux: memcg limit, swap cache, block layer"
				if (b == "young") note = "Linux: whole mm, no flush"
				if (b == "numa_hint") note = "no Linux cell: no system call"
				printf "  %-10s %-7s %9s %9s %9s %9s %8s %-6s %9s %8s %s%s\n", b, f, t61, t612,
					p1 == "" ? "n/a" : num(p1), pb == "" ? "n/a" : num(pb),
					ratio == "" ? "-" : ratio "x", ahead == "-" ? "" : ahead, tpt,
					rpt == "" ? "-" : rpt "x", apt == "-" ? "" : apt, note == "" ? "" : " (" note ")" >> ttxt
				printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", a, b, f, t61, t612, p1 == "" ? "" : sprintf("%.1f", p1),
					pb == "" ? "" : sprintf("%.1f", pb), best == "" ? "" : sprintf("%.1f", best), ratio, ahead, note,
					vpt == "" ? "" : sprintf("%.1f", vpt), rpt, apt >> tcsv
				if (!rows++) print "# folio linux_6.1 linux_6.12 ptelab_cap1 ptelab_batched ptelab_same_binary" > dat
				# NaN, not a missing-value mark: gnuplot breaks a line at an
				# undefined point but draws across a missing one, and a kernel
				# without the size (6.1 has no mTHP) must show no line there.
				printf "%s %s %s %s %s %s\n", f, v61 == "" ? "NaN" : v61, v612 == "" ? "NaN" : v612, p1 == "" ? "NaN" : p1, pb == "" ? "NaN" : pb, vpt == "" ? "NaN" : vpt >> dat
			}
			if (rows) close(dat)
		}
		micro_table(a, F, nf, ttxt, tcsv)
		printf "\n" >> ttxt
	}
}' "$CSV"
cat "$DIR/table.txt"
command -v gnuplot >/dev/null || { echo "table: gnuplot is missing, no plots"; exit 0; }
for dat in "$DIR"/plot-*.dat; do
	[ -f "$dat" ] || continue
	png=${dat%.dat}.png name=$(basename "${dat%.dat}" | sed 's/^plot-//')
	gnuplot -e "set terminal pngcairo size 900,600 font ',10' noenhanced; set output '$png';
		set grid; set key outside right top; set logscale y;
		set title '$name: guest instructions per 4 KiB page (icount)';
		set ylabel 'instructions per 4 KiB page'; set xlabel 'folio size';
		plot '$dat' using 0:2:xtic(1) with linespoints title 'Linux 6.1',
		'' using 0:3 with linespoints title 'Linux 6.12',
		'' using 0:4 with linespoints title 'ptelab cap 1',
		'' using 0:5 with linespoints title 'ptelab batched',
		'' using 0:6 with linespoints title 'ptelab (same binary)'" 2>>"$DIR/gnuplot.log"
done
