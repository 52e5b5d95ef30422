#!/bin/sh
# tests/mm/explore.sh - the schedule explorer's stage of make test: the
# "explore/" cases (tests/mm/test_explore.c) of the mm host runner for
# both PTE formats, each case a small budget of schedules
# (MM_EXPLORE_SCHEDULES, default 50) on up to
# MM_TEST_CPUS CPUs (default 4). A failure prints the command that
# replays its one schedule. Ends with "N passed, N failed".
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP" || exit 1
. tests/mm/formats.sh
export MM_TEST_CPUS=${MM_TEST_CPUS:-4}
export MM_EXPLORE_SCHEDULES=${MM_EXPLORE_SCHEDULES:-50}
run_formats build/mm-tests "schedule explorer mixes ($MM_TEST_CPUS CPUs)" explore/
