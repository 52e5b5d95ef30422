#!/bin/sh
# tests/linux/semantics.sh - the `semantics` stage of make test: ptelab's
# mbind / get_mempolicy / migrate_pages / move_pages answer as Linux 6.12.
# Runs the scenario table (tests/linux/semantics_table.c) through mm/ in
# both mm host runners (case semantics/linux_scenarios, MM_SEMANTICS=1)
# and compares its SEM lines, scenario by scenario, with Linux 6.12's
# recorded output (tests/linux/semantics-6.12.out, `make
# linux-semantics`; the arm64 PTE format's also with Linux 6.12 arm64's,
# semantics-6.12-arm64.out, where recorded). A scenario whose lines differ must be listed in
# tests/linux/semantics.allow with its reason, and each listed scenario
# must be named in docs/migrate.md's differences section; a listed
# scenario that no longer differs fails too (the list stays exact). Both
# PTE formats must print the same lines. Linux 6.1's recording is only
# counted (docs/migrate.md says where it differs and that ptelab follows
# 6.12).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP" || exit 1
EXPECT=${SEM_EXPECT:-tests/linux/semantics-6.12.out}
ALLOW=${SEM_ALLOW:-tests/linux/semantics.allow}
DOC=${SEM_DOC:-docs/migrate.md}

# sem_lines FILE: the SEM lines, without the "SEM " prefix.
sem_lines() { sed -n 's/^SEM //p' "$1"; }

# keys FILE: the scenarios (name/kind) of a SEM file, in order, once.
keys() { sem_lines "$1" | awk '!seen[$1]++ { print $1 }'; }

# differing A B: the scenarios whose lines differ between SEM files A and
# B (or that only one has), in A's order, in one pass.
differing() {
	awk 'FNR == 1 { f++ } !/^SEM / { next }
		{ k = $2; t[f, k] = t[f, k] "\n" $0 } f == 1 && !seen[k]++ { order[++n] = k }
		f == 2 && !seen[k]++ { order[++n] = k }
		END { for (i = 1; i <= n; i++) if (t[1, order[i]] != t[2, order[i]]) print order[i] }' "$1" "$2"
}

# allowed KEY: the allow-list line that covers KEY (name/kind or name).
allowed() {
	awk -v k="$1" '!/^#/ && NF { n = k; sub(/\/.*/, "", n); if ($1 == k || $1 == n) { print; exit } }' "$ALLOW"
}

# The differences section of the doc, one scenario name per `name`.
doc_section() {
	awk '/^## Where ptelab still differs from Linux/ { on = 1; next } /^## / { on = 0 } on' "$DOC"
}

# build_side FMT: make the runner (already built in make test).
build_side() {
	if ! out=$(env -u MAKEFLAGS -u MAKELEVEL make --no-print-directory -s "build/mm-tests-$1" 2>&1); then
		fail "semantics: build $1" "$(echo "$out" | tail -n 3 | tr '\n' '|')"
		return 1
	fi
}

# run_side FMT: the scenarios through mm/, lines in $TMPD/FMT.log.
run_side() {
	MM_SEMANTICS=1 "build/mm-tests-$1" semantics/linux_scenarios >"$TMPD/$1.log" 2>&1
}

# check_side FMT: the case passed; its SEM lines into $TMPD/FMT.sem.
check_side() {
	if grep -q '^ok   semantics/linux_scenarios' "$TMPD/$1.log"; then
		pass "semantics: ptelab ($1 PTE format) ran every scenario and stayed consistent"
	else
		fail "semantics: ptelab ($1 PTE format)" "$(grep -E 'FAIL|check' "$TMPD/$1.log" | head -n 3 | tr '\n' '|')"
	fi
	grep '^SEM ' "$TMPD/$1.log" >"$TMPD/$1.sem"
}

[ -f "$EXPECT" ] || { fail "semantics" "$EXPECT is missing (make linux-semantics)"; summary; exit; }
if ! build_side x86_64 || ! build_side arm64; then
	summary
	exit
fi
run_side x86_64 &
run_side arm64 &
wait
check_side x86_64
check_side arm64
if [ -s "$TMPD/x86_64.sem" ] && cmp -s "$TMPD/x86_64.sem" "$TMPD/arm64.sem"; then
	pass "semantics: both PTE formats print the same $(wc -l <"$TMPD/x86_64.sem") lines"
else
	fail "semantics: PTE formats" "x86_64 and arm64 differ: $(diff "$TMPD/x86_64.sem" "$TMPD/arm64.sem" | sed -n 2p)"
fi
# compare EXPECT SEM LABEL: every scenario of SEM answers as in the Linux
# recording EXPECT or is allowed; the allowed ones are added to $listed.
compare() {
	if [ "$(keys "$1")" != "$(keys "$2")" ]; then
		fail "semantics: scenario list" "ptelab's and $1's scenarios differ (re-record with make linux-semantics)"
	fi
	differing "$1" "$2" >"$TMPD/differ"
	for k in $(cat "$TMPD/differ"); do
		sem_lines "$1" | awk -v k="$k" '$1 == k' >"$TMPD/l"
		sem_lines "$2" | awk -v k="$k" '$1 == k' >"$TMPD/p"
		a=$(allowed "$k")
		if [ -z "$a" ]; then
			first=$(diff "$TMPD/l" "$TMPD/p" | grep '^[<>]' | head -n 2 | cut -c1-160 | tr '\n' '|')
			fail "semantics: $3 $k" "differs from Linux 6.12 and is not in $ALLOW: $first"
			continue
		fi
		listed="$listed $(echo "$a" | awk '{ print $1 }')"
		pass "semantics: $3 $k differs as listed: $(echo "$a" | cut -d' ' -f2- | sed 's/^ *//' | cut -c1-90)"
	done
	pass "semantics: $3 $(($(keys "$1" | wc -l) - $(wc -l <"$TMPD/differ"))) scenarios answer exactly as Linux 6.12"
}

# user_run ARCH: the Linux program itself (build/compare/ARCH/semantics,
# unmodified) as a ptelab user process on QEMU TCG with three nodes and
# the same THP settings (--set-thp), its SEM lines into user-ARCH.sem.
# The two arches run side by side; user_check judges them in this shell
# (a pass or fail counted in a background job would be lost).
user_run() {
	ifs=$TMPD/ifs-$1
	mkdir -p "$ifs/bin" && cp "build/compare/$1/semantics" "$ifs/bin/" || return 1
	"$PTELAB" --backend qemu --arch "$1" --nodes 3 --mem 1536M --timeout 300 --initramfs "$ifs" \
		-- run=exec:/bin/semantics -- --set-thp >"$TMPD/user-$1.log" 2>&1
	grep '^SEM ' "$TMPD/user-$1.log" >"$TMPD/user-$1.sem"
}

# user_check ARCH: its lines must be the host runner's, line for line:
# the system calls add nothing and lose nothing.
user_check() {
	if [ -s "$TMPD/user-$1.sem" ] && cmp -s "$TMPD/x86_64.sem" "$TMPD/user-$1.sem"; then
		pass "semantics: the Linux program on ptelab ($1 user process) prints mm/'s $(wc -l <"$TMPD/user-$1.sem") lines"
	else
		fail "semantics: the Linux program on ptelab ($1)" \
			"$(diff "$TMPD/x86_64.sem" "$TMPD/user-$1.sem" 2>&1 | grep '^[<>]' | head -n 2 | cut -c1-160 | tr '\n' '|')$(tail -n 2 "$TMPD/user-$1.log" 2>&1 | tr '\n' '|')"
	fi
}
if out=$(env -u MAKEFLAGS -u MAKELEVEL make --no-print-directory -s build/ptelab \
	build/compare/x86_64/semantics build/compare/arm64/semantics 2>&1); then
	user_run x86_64 &
	user_run arm64 &
	wait
	user_check x86_64
	user_check arm64
else
	fail "semantics: build the Linux program" "$(echo "$out" | tail -n 3 | tr '\n' '|')"
fi

listed=""
compare "$EXPECT" "$TMPD/x86_64.sem" x86_64
# Linux's own arm64 answers, where recorded (ARCHES=arm64 make
# linux-semantics), against the arm64 PTE format.
A64=${EXPECT%.out}-arm64.out
[ -f "$A64" ] && compare "$A64" "$TMPD/arm64.sem" arm64

# The allow-list is exact, and docs/migrate.md names each entry.
for e in $(awk '!/^#/ && NF { print $1 }' "$ALLOW"); do
	case " $listed " in
	*" $e "*) ;;
	*) fail "semantics: allow-list" "$e is listed but answers as Linux 6.12 now: remove it" ;;
	esac
	n=${e%%/*}
	if doc_section | grep -q "\`$n\`"; then
		pass "semantics: $DOC's differences name \`$n\`"
	else
		fail "semantics: $DOC" "the differences section does not name \`$n\` ($ALLOW lists it)"
	fi
done

if [ -f tests/linux/semantics-6.1.out ]; then
	n=$(differing "$EXPECT" tests/linux/semantics-6.1.out | wc -l)
	echo "note: Linux 6.1 answers differently from 6.12 in $n scenarios (ptelab follows 6.12; docs/migrate.md)"
fi
summary
