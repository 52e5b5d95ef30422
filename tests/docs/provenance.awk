# tests/docs/provenance.awk - does every table of measured figures in a
# Markdown file say where its figures came from? A table (rows starting
# with "|", outside code blocks) with two or more decimal figures in its
# body (Linux versions such as 6.1 and 6.12 are not figures) must name a
# commit (7 or more hex digits, a letter and a digit among them) and a
# clock (icount, host, kvm, tcg, real time, wall clock) in itself, the 12
# lines before it or the 3 after it: "(icount, at be2fda6.)" under it is
# the usual form. Figures in a doc-test block are re-measured instead
# (run.sh). Prints "LINE<TAB>FIRST ROW" for each table that does not.
function figures(s,    n) {
	n = 0
	gsub(/(^|[^0-9.])6\.(1|12|18)([^0-9.]|$)/, " ", s)
	while (match(s, /(^|[^0-9.])[0-9]+\.[0-9]+([^0-9.]|$)/)) {
		n++
		s = substr(s, RSTART + RLENGTH)
	}
	return n
}
function named(from, to,    i, s) {
	s = ""
	for (i = from < 1 ? 1 : from; i <= to && i <= NR; i++)
		s = s " " L[i]
	return match(s, /(^|[^0-9a-zA-Z])[0-9a-f]*([a-f][0-9a-f]*[0-9]|[0-9][0-9a-f]*[a-f])[0-9a-f]*([^0-9a-zA-Z]|$)/) &&
	       hexlen(s) && s ~ /icount|host|kvm|KVM|tcg|TCG|real time|wall.clock/
}
# Is there a hex word of 7 to 12 digits in @s?
function hexlen(s,    w, n, i) {
	n = split(s, w, /[^0-9a-zA-Z]+/)
	for (i = 1; i <= n; i++)
		if (w[i] ~ /^[0-9a-f]+$/ && length(w[i]) >= 7 && length(w[i]) <= 12 &&
		    w[i] ~ /[a-f]/ && w[i] ~ /[0-9]/)
			return 1
	return 0
}
{ L[NR] = $0 }
/^```/ { code = !code }
!code && /^\|/ {
	if (!intable) {
		intable = 1
		start = NR
		nfig = 0
	} else if (NR > start + 1)
		nfig += figures($0)
	next
}
intable {
	intable = 0
	if (nfig >= 2)
		pending[start] = NR - 1
}
END {
	if (intable && nfig >= 2)
		pending[start] = NR
	for (s in pending)
		if (!named(s - 12, pending[s] + 3))
			print s "\t" L[s]
}
