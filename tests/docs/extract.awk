# tests/docs/extract.awk - the runnable examples of one Markdown file.
# A runnable example is a fenced code block right after the marker line
#   <!-- doc-test[ ratios=P%][ figures=P%][: COMMAND] -->
# (blank lines may come between). COMMAND may be left out when the
# block's first line is "$ COMMAND". ratios= and figures= are the
# tolerances compare.awk checks the block's decimal figures with. For
# block N, writes DIR/N.cmd (the command), DIR/N.loc ("FILE:LINE" of the
# marker), DIR/N.tol ("RATIOS FIGURES", a percentage or "-" each) and
# DIR/N.txt (one "LINE<TAB>TEXT" per block line, the "$ " line left
# out). Prints the number of the last block. Variables: DIR, FIRST (the
# first N to use).
BEGIN { n = FIRST - 1; state = 0 }
# The value of "WORD=P%" in the marker @m, "-" without it.
function tol(m, word,    v) {
	if (!match(m, " " word "=[0-9]+(\\.[0-9]+)?%"))
		return "-"
	v = substr(m, RSTART + length(word) + 2, RLENGTH - length(word) - 3)
	return v
}
state == 0 && /^<!-- doc-test( (ratios|figures)=[0-9.]+%)*(:.*)? -->[ \t]*$/ {
	cmd = $0
	head = cmd
	sub(/:.*/, "", head)
	tols = tol(head, "ratios") " " tol(head, "figures")
	sub(/^<!-- doc-test( (ratios|figures)=[0-9.]+%)*:?[ \t]*/, "", cmd)
	sub(/[ \t]*-->[ \t]*$/, "", cmd)
	mline = FNR
	state = 1
	next
}
state == 1 && /^[ \t]*$/ { next }
state == 1 && /^```/ {
	n++
	print FILENAME ":" mline >(DIR "/" n ".loc")
	print tols >(DIR "/" n ".tol")
	printf "" >(DIR "/" n ".txt")
	first = 1
	state = 2
	next
}
state == 1 {
	print FILENAME ":" mline ": doc-test marker not followed by a code block" >"/dev/stderr"
	state = 0
}
state == 2 && /^```/ {
	print cmd >(DIR "/" n ".cmd")
	close(DIR "/" n ".cmd"); close(DIR "/" n ".txt"); close(DIR "/" n ".loc")
	close(DIR "/" n ".tol")
	state = 0
	next
}
state == 2 {
	if (first && /^\$ /) {
		if (cmd == "")
			cmd = substr($0, 3)
	} else
		print FNR "\t" $0 >(DIR "/" n ".txt")
	first = 0
}
END { print n }
