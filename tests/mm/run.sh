#!/bin/sh
# tests/mm/run.sh - the mm host runner for both PTE formats.
# Runs build/mm-tests-x86_64 and build/mm-tests-arm64 (make builds them),
# shows their output, and ends with one "N passed, N failed" line summing
# both. A binary that is missing, crashes or prints no summary counts as
# one failure. Extra arguments (a case-name filter) go to both binaries.
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP" || exit 1
. tests/mm/formats.sh
run_formats build/mm-tests "mm host runner" "$@"
