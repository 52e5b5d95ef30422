#!/bin/sh
# tests/mm/tsan.sh - the mm SMP cases under ThreadSanitizer, both PTE
# formats: build/mm-tsan-<fmt> runs the "concurrency/", "family/" (the
# anon family lock against a migration), "gup_fast_race/" and
# "migrate_race/" (pins against a migration), "fault_gup_race/" (a
# fault and a GUP pin against a migration) and "shared_race/" (a fault
# on a shared page against its migration) cases, and reclaim's isolation
# inside another CPU's folio_free() and the free-running reclaim loop
# ("reclaim/isolate_skips", "reclaim/reclaim_against"), and the reclaim
# of shared folios against a COW fault, a fault on its migration entries
# and a child's reads, gets and forks ("reclaim_shared/": the whole
# suite, whose one-CPU cases are short), with MM_TEST_CPUS
# threads (default 4). A data race or any other TSan report fails the
# format even when its cases pass. Ends with "N passed, N failed".
TOP=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TOP" || exit 1
. tests/mm/formats.sh
export MM_TEST_CPUS=${MM_TEST_CPUS:-4}
# halt_on_error: the first report ends the runner with exit 66.
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 ${TSAN_OPTIONS:-}"

format_extra_failure() {
	n=$(grep -c 'WARNING: ThreadSanitizer' "$1")
	[ "$n" -eq 0 ] || echo "$n ThreadSanitizer report(s)"
}

run_formats build/mm-tsan "mm SMP cases under ThreadSanitizer ($MM_TEST_CPUS CPUs)" \
	concurrency/,family/,gup_fast_race/,migrate_race/,fault_gup_race/,mremap_race/,protnone_smp/,reclaim/isolate_skips,reclaim/reclaim_against,shared_race/,reclaim_shared/
