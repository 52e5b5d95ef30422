# tests/selftests/linux.awk - put Linux 6.12's results (the recording of
# tests/selftests/record.sh) beside ptelab's for one program on one arch.
# Called by tests/selftests/run.sh as
#
#   awk -v arch=ARCH -v prog=PROG -f linux.awk EXPECTED LINUX_TAP PTELAB_OUT
#
# A case is named by its heading, the last "# [RUN] " or "# [INFO] " line
# before it (cow names every case so; Linux plans cases ptelab does not,
# the hugetlb and soft-dirty ones, so the numbers differ), and its place
# under that heading: "[RUN] test_softdirty #2". Prints one line per
# finding, "RESULT<TAB>NAME<TAB>WHY":
#
#   fail   Linux passes the case, ptelab does not, and EXPECTED has no
#          "PROG linux NAME -- REASON" line for it; or such a line is
#          stale (ptelab passes the case, or Linux does not); or the
#          recording lacks PROG
#   skip   Linux passes it, ptelab does not, and EXPECTED says why
#   note   ptelab passes it and Linux 6.12 does not (not a failure)
#   pass   one line when every case Linux passes is accounted for
#   sum    the counts of both kernels
#   used   an EXPECTED line that applied (or is stale), by NAME
BEGIN { FS = "\n" }

# name_case(line, side): remember the case of a TAP line under its heading.
function name_case(line, side,   m, r) {
	if (line ~ /^# \[(RUN|INFO)\] /) {
		head[side] = substr(line, 3)
		k[side] = 0
		return
	}
	if (line !~ /^(not )?ok [0-9]+ /)
		return
	m = line
	sub(/^(not )?ok [0-9]+ ?/, "", m)
	r = line ~ /^not / ? "fail" : (m ~ /(^| )# SKIP/ ? "skip" : "pass")
	sub(/^# SKIP ?/, "", m)
	name = head[side] " #" ++k[side]
	res[side, name] = r
	text[side, name] = m
	count[side, r]++
	if (side == "linux")
		order[++nlinux] = name
	else
		porder[++nptelab] = name
}

FILENAME == ARGV[1] {
	if (index($0, prog " linux ") != 1)
		next
	line = substr($0, length(prog) + 8)
	i = index(line, " -- ")
	if (i)
		listed[substr(line, 1, i - 1)] = substr(line, i + 4)
	else
		listed[line] = ""
	next
}
FILENAME == ARGV[2] {
	if ($0 == "selftest: begin " prog)
		inside = recorded = 1
	else if (index($0, "selftest: end " prog " ") == 1)
		inside = 0
	else if (inside)
		name_case($0, "linux")
	next
}
{ name_case($0, "ptelab") }

function result(side, name) {
	return ((side, name) in res) ? res[side, name] : "absent"
}

END {
	p = arch ": " prog ": "
	bad = 0
	if (!recorded) {
		printf "fail\t%sLinux 6.12\tnot in %s (make selftests-linux)\n", p, ARGV[2]
		exit
	}
	for (i = 1; i <= nlinux; i++) {
		n = order[i]
		if (res["linux", n] != "pass" || result("ptelab", n) == "pass")
			continue
		got = "Linux 6.12 passes, ptelab " result("ptelab", n)
		if (n in listed) {
			printf "skip\t%s%s\t%s: %s\n", p, n, got, listed[n]
			printf "used\t%s\n", n
		} else {
			printf "fail\t%s%s\t%s, and tests/selftests/expected has no \"%s linux %s -- REASON\"\n",
				p, n, got, prog, n
			bad++
		}
	}
	for (n in listed)
		if (result("ptelab", n) == "pass" || result("linux", n) ~ /skip|fail/) {
			printf "fail\t%s%s\tstale line in tests/selftests/expected: Linux 6.12 %s, ptelab %s\n",
				p, n, result("linux", n), result("ptelab", n)
			printf "used\t%s\n", n
			bad++
		}
	for (i = 1; i <= nptelab; i++) {
		n = porder[i]
		if (res["ptelab", n] == "pass" && result("linux", n) != "pass")
			printf "note\t%s%s\tptelab passes, Linux 6.12 %s%s\n", p, n, result("linux", n),
				((("linux", n) in text) && text["linux", n] != "") ? " (" text["linux", n] ")" : ""
	}
	if (!bad)
		printf "pass\t%severy case Linux 6.12 passes (%d) passes on ptelab or is listed\t\n",
			p, count["linux", "pass"]
	printf "sum\t%sLinux 6.12 pass %d skip %d fail %d; ptelab pass %d skip %d fail %d\t\n", p,
		count["linux", "pass"], count["linux", "skip"], count["linux", "fail"],
		count["ptelab", "pass"], count["ptelab", "skip"], count["ptelab", "fail"]
}
