# tests/lib.sh - shared helpers for the shell test runners.
# Source it, call pass/fail/skip per case, end with summary (which prints
# "N passed, N failed, N skipped" and returns non-zero on any failure).
PASSED=0
FAILED=0
SKIPPED=0
TOP=$(cd "$(dirname "$0")/../.." && pwd)
PTELAB=${PTELAB:-$TOP/build/ptelab}
TMPD=$(mktemp -d /tmp/ptelab-test.XXXXXX)
trap 'rm -rf "$TMPD"' EXIT

pass() { PASSED=$((PASSED + 1)); echo "ok   $1"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL $1: $2"; }
skip() { SKIPPED=$((SKIPPED + 1)); echo "SKIP: $1: $2"; }

# expect_status NAME WANT CMD...: run CMD, output in $TMPD/out, check status.
expect_status() {
	es_name=$1 es_want=$2
	shift 2
	"$@" >"$TMPD/out" 2>&1
	es_got=$?
	if [ "$es_got" -eq "$es_want" ]; then
		return 0
	fi
	# The failed cases and checks first (a selftest's are far above its
	# tail), then the tail.
	fail "$es_name" "exit status $es_got, wanted $es_want; output: $({
		grep -E '^(FAIL|panic)|check failed' "$TMPD/out" | head -n 8
		tail -n 5 "$TMPD/out"
	} | tr '\n' '|')"
	return 1
}

# out_has NAME PATTERN: the last command's output matches the grep -E pattern.
out_has() {
	if grep -Eq -- "$2" "$TMPD/out"; then
		return 0
	fi
	fail "$1" "output lacks /$2/: $(tail -n 5 "$TMPD/out" | tr '\n' '|')"
	return 1
}

# out_lacks NAME PATTERN: the last command's output does not match it.
out_lacks() {
	if ! grep -Eq -- "$2" "$TMPD/out"; then
		return 0
	fi
	fail "$1" "output has /$2/: $(grep -E -- "$2" "$TMPD/out" | head -n 2 | tr '\n' '|')"
	return 1
}

# have_kvm [ARCH]: can ptelab's KVM backend run the guest (of ARCH, default
# x86_64) here? ptelab decides (it also refuses kvm-pvm, and guests of
# another arch than the host's); its reason is left in $kvm_why.
have_kvm() {
	kvm_why=$("$PTELAB" --backend kvm --arch "${1:-x86_64}" --dtb-out /dev/null 2>&1) && return 0
	kvm_why=${kvm_why#ptelab: --backend kvm: }
	return 1
}
have_cmd() { command -v "$1" >/dev/null 2>&1; }

# slowest_cases FILE N: the N slowest in-guest selftest cases in FILE (its
# "ok   suite/case (K checks, T us)" lines) on one line, slowest first:
# where a stage's selftest time goes, for whoever has to trim it.
slowest_cases() {
	sed -nE 's/^(ok  |FAIL) ([^ ]+) \([0-9]+ checks, ([0-9]+) us\)$/\3 \2/p' "$1" | sort -rn |
		head -n "$2" | awk '{ printf "%s%s %.1f s", (NR > 1 ? ", " : ""), $2, $1 / 1e6 }'
}

summary() {
	echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
	[ "$FAILED" -eq 0 ]
}
