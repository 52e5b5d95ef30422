# shellcheck shell=sh
# tests/selftests/check.sh - the TAP check of Linux's mm selftests on
# ptelab, sourced (after tests/lib.sh) by tests/selftests/run.sh (QEMU TCG)
# and tests/kvm/cases.sh (the nested KVM), so both judge a run alike:
# each case against its line of tests/selftests/expected, and the plan
# against the number of lines listed. Busybox awk runs it too.
EXPECTED=$TOP/tests/selftests/expected

# check_cases ARCH PROG OUT: compare OUT's TAP lines with PROG's lines of
# the expected file; print "pass|skip|fail<TAB>name<TAB>why" per case.
check_cases() {
	awk -v arch="$1" -v prog="$2" -v out="$3" '
	BEGIN { FS = "\n" }
	function tap(line,   m) {	# "ok 3 desc # SKIP why" -> res[3], desc[3]
		if (line !~ /^(not )?ok [0-9]+ /) return
		m = line; sub(/^(not )?ok /, "", m)
		n = m + 0; sub(/^[0-9]+ /, "", m)
		if (m ~ /(^| )# SKIP/) { res[n] = "skip"; sub(/ ?# SKIP.*/, "", m) }
		else res[n] = line ~ /^ok / ? "pass" : "fail"
		got[n] = m
	}
	FILENAME == out {
		if ($0 ~ /^1\.\.[0-9]+$/) plan = substr($0, 4) + 0
		else if ($0 ~ /^Bail out!/ && bail == "") bail = $0
		tap($0); next
	}
	$0 ~ "^" prog " [0-9]" {
		line = substr($0, length(prog) + 2)
		n = line + 0; sub(/^[0-9]+ /, "", line)
		want = line; sub(/ .*/, "", want); sub(/^[a-z]+ /, "", line)
		why = ""
		if (index(line, " -- ")) { why = substr(line, index(line, " -- ") + 4); line = substr(line, 1, index(line, " -- ") - 1) }
		listed++
		name = arch ": " prog " " n ": " line
		have = (n in res) ? res[n] : "fail"
		if ((n in got) && got[n] != line)
			printf "fail\t%s\tthe program says \"%s\"\n", name, got[n]
		else if (have == want && want == "pass")
			printf "pass\t%s\t\n", name
		else if (have == want)
			printf "skip\t%s\texpected %s: %s\n", name, want, why
		else
			printf "fail\t%s\t%s%s, expected %s (tests/selftests/expected)\n", name, have,
				(n in res) ? "" : " (not run: " (bail == "" ? "no TAP line" : bail) ")", want
	}
	END {
		if (plan != listed)
			printf "fail\t%s: %s: plan\tthe program plans %d cases, tests/selftests/expected lists %d\n",
				arch, prog, plan, listed
	}' "$3" "$EXPECTED"
}

# report_cases FILE: check_cases's lines as pass/skip/fail of tests/lib.sh.
report_cases() {
	while IFS='	' read -r res name why; do
		case $res in
		pass) pass "$name" ;;
		skip) skip "$name" "$why" ;;
		*) fail "$name" "$why" ;;
		esac
	done <"$1"
}
