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
# Prints "ok", or "LINE<TAB>EXPECTED<TAB>NEAREST OUTPUT" for the first
# block line that no longer matches.
function norm(s) {
	gsub(/[ \t\r]+/, " ", s)
	sub(/^ /, "", s)
	sub(/ $/, "", s)
	gsub(/pfn 0x[0-9a-f]+-0x[0-9a-f]+/, "pfn #", s)
	gsub(/[0-9]+\.[0-9]+/, "#", s)
	return s
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
FNR == NR {
	t = $0
	sub(/^[^\t]*\t/, "", t)
	t = norm(t)
	if (t == "")
		next
	if (substr(t, 1, 1) == "\"" && n > 0 && !gap_next) {
		item[n] = item[n] t
		next
	}
	if (substr(t, 1, 3) == "...") {
		gap_next = 1
		next
	}
	n++
	item[n] = t
	line[n] = $1
	seg[n] = gap_next || n == 1
	gap_next = 0
	next
}
{
	t = norm($0)
	if (t != "")
		out[++m] = t
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
	print "ok"
}
