#!/bin/sh
# tests/format.sh - every tracked C file matches .clang-format.
. "$(dirname "$0")/lib.sh"
TOP=$(cd "$(dirname "$0")/.." && pwd) # lib.sh assumes tests/<runner>/
cd "$TOP" || exit 1
if ! have_cmd clang-format; then
	skip format "clang-format is not installed"
	summary
	exit
fi
for f in $(git ls-files '*.c' '*.h' 2>/dev/null); do
	if clang-format --dry-run -Werror "$f" >/dev/null 2>&1; then
		pass "format $f"
	else
		fail "format $f" "differs from .clang-format (run make format)"
	fi
done
[ $((PASSED + FAILED)) -gt 0 ] || fail format "no tracked C files found in $TOP"
summary
