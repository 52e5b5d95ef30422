# tests/docs/compare.awk - does a documented output still match what the
# command prints? Reads the block (FILE N.txt: "LINE<TAB>TEXT") first,
# then the command's output. Both are normalised: spaces collapsed, blank
# lines dropped; numbers with a decimal point (times, ratios, spreads) and
# pfn ranges (where the allocator put a folio) masked, since they are not
# what the docs teach; a line that starts with '"' continues the one above
# (a wrapped counters line). Everything else (addresses, run lengths,
# folio sizes, bits, counters, node counts) must match. In the block, a
# line starting with "..." is a gap (any number of output lines); "..."
# inside a line matches any text. Lines between gaps must match
# consecutive output lines, and the pieces in order.
# Then the figures (the variables RATIOS and FIGURES: a tolerance in
# percent, or "-" not to check; the marker's ratios= and figures=). The
# decimal figures of each matched line are paired with those of its
# output line, in order; a figure followed by "%" (a spread, a change)
# is left out, and so is a line whose figures "..." hides some of. With
# RATIOS: a figure followed by "x" (a speed-up) must be within RATIOS
# percent of the printed one, and every other figure, divided by the
# first figure of its column (the Nth plain figure of the first line that
# has one), must give within RATIOS percent of the printed quotient.
# With FIGURES: every plain figure within FIGURES percent of the printed.
# Prints "ok", or "LINE<TAB>EXPECTED<TAB>NEAREST OUTPUT" for the first
# block line that no longer matches, or whose figures are off.
function spaces(s) {
	gsub(/[ \t\r]+/, " ", s)
	sub(/^ /, "", s)
	sub(/ $/, "", s)
	return s
}
function norm(s) {
	s = spaces(s)
	gsub(/pfn 0x[0-9a-f]+-0x[0-9a-f]+/, "pfn #", s)
	gsub(/[0-9]+\.[0-9]+/, "#", s)
	return s
}
# The decimal figures of @s into @val (from 1) and their kinds into
# @kind: "x" a ratio, "%" a percentage, "" a plain figure. Returns the count.
function figures(s, val, kind,    n, c) {
	n = 0
	while (match(s, /[0-9]+\.[0-9]+[x%]?/)) {
		n++
		val[n] = substr(s, RSTART, RLENGTH) + 0
		c = substr(s, RSTART + RLENGTH - 1, 1)
		kind[n] = c == "x" || c == "%" ? c : ""
		s = substr(s, RSTART + RLENGTH)
	}
	return n
}
# How far @got is from @want, in percent of @want (0 when both are 0).
function off(want, got) {
	if (want == 0)
		return got == 0 ? 0 : 100
	return (got > want ? got - want : want - got) * 100 / (want < 0 ? -want : want)
}
function fig(v) { return sprintf("%.4g", v) }
# Check the figures of block line @k against output line @j; sets @why
# and returns 0 on the first figure out of tolerance.
function check_figures(k, j,    dn, on, dv, dk, ov, ok_, i, c, q, qo) {
	dn = figures(raw[k], dv, dk)
	on = figures(rawout[j], ov, ok_)
	if (dn == 0 || dn != on)
		return 1
	c = 0
	for (i = 1; i <= dn; i++) {
		if (dk[i] != ok_[i] || dk[i] == "%")
			continue
		if (dk[i] == "x") {
			if (RATIOS != "-" && off(dv[i], ov[i]) > RATIOS + 0) {
				why = dv[i] "x is " ov[i] "x now, off by " fig(off(dv[i], ov[i])) "% (ratios=" RATIOS "%)"
				return 0
			}
			continue
		}
		c++
		if (FIGURES != "-" && off(dv[i], ov[i]) > FIGURES + 0) {
			why = dv[i] " is " ov[i] " now, off by " fig(off(dv[i], ov[i])) "% (figures=" FIGURES "%)"
			return 0
		}
		if (RATIOS == "-")
			continue
		if (!(c in base)) {
			base[c] = dv[i]
			baseout[c] = ov[i]
			continue
		}
		if (base[c] == 0 || baseout[c] == 0)
			continue
		q = dv[i] / base[c]
		qo = ov[i] / baseout[c]
		if (off(q, qo) > RATIOS + 0) {
			why = dv[i] " / " base[c] " = " fig(q) " is " ov[i] " / " baseout[c] " = " fig(qo) \
			      " now, off by " fig(off(q, qo)) "% (ratios=" RATIOS "%)"
			return 0
		}
	}
	return 1
}
# Does @line match @pat ("..." = any text)?
function like(pat, line,    k, p, i, at, pos) {
	if (index(pat, "...") == 0)
		return pat == line
	k = split(pat, p, /\.\.\./)
	if (substr(line, 1, length(p[1])) != p[1])
		return 0
	pos = length(p[1]) + 1
	for (i = 2; i < k; i++) {
		at = index(substr(line, pos), p[i])
		if (!at)
			return 0
		pos += at - 1 + length(p[i])
	}
	return length(p[k]) == 0 || (length(line) - length(p[k]) + 1 >= pos &&
		substr(line, length(line) - length(p[k]) + 1) == p[k])
}
# How many leading characters @a and @b share.
function prefix(a, b,    i) {
	for (i = 1; i <= length(a) && substr(a, i, 1) == substr(b, i, 1); i++)
		;
	return i - 1
}
BEGIN {
	if (RATIOS == "")
		RATIOS = "-"
	if (FIGURES == "")
		FIGURES = "-"
}
FNR == NR {
	t = $0
	sub(/^[^\t]*\t/, "", t)
	t = norm(t)
	if (t == "")
		next
	if (substr(t, 1, 1) == "\"" && n > 0 && !gap_next) {
		item[n] = item[n] t
		raw[n] = raw[n] spaces($0)
		next
	}
	if (substr(t, 1, 3) == "...") {
		gap_next = 1
		next
	}
	n++
	item[n] = t
	r = $0
	sub(/^[^\t]*\t/, "", r)
	raw[n] = spaces(r)
	line[n] = $1
	seg[n] = gap_next || n == 1
	gap_next = 0
	next
}
{
	t = norm($0)
	if (t != "") {
		out[++m] = t
		rawout[m] = spaces($0)
	}
}
END {
	pos = 1
	for (s = 1; s <= n; s = e + 1) {
		for (e = s; e < n && !seg[e + 1]; e++)
			;
		best = -1
		cp = -1
		found = 0
		for (j = pos; j + (e - s) <= m && !found; j++) {
			for (k = s; k <= e && like(item[k], out[j + k - s]); k++)
				;
			if (k > e) {
				found = 1
				for (k = s; k <= e; k++)
					at[k] = j + k - s
				pos = j + e - s + 1
			} else if (k - s > best || (k == s && best <= 0 && prefix(item[s], out[j]) > cp)) {
				best = k - s
				bad = k
				near = out[j + k - s]
				cp = k == s ? prefix(item[s], out[j]) : cp
			}
		}
		if (!found) {
			if (best < 0) {
				bad = s
				near = "(end of output)"
			}
			print line[bad] "\t" item[bad] "\t" near
			exit
		}
	}
	for (k = 1; k <= n; k++)
		if ((RATIOS != "-" || FIGURES != "-") && !check_figures(k, at[k])) {
			print line[k] "\t" raw[k] "\t" rawout[at[k]] ": " why
			exit
		}
	print "ok"
}
