#!/bin/sh
# tests/selftests/run.sh - Linux 6.12's mm selftests, unmodified static
# glibc programs (tests/selftests/fetch.sh builds them), run on ptelab by
# run=exec:/bin/PROGRAM on QEMU TCG, x86_64 and arm64. Each TAP case is
# one line, checked against tests/selftests/expected: a case that does
# what the file says passes (a listed skip or failure is reported as a
# skip with its reason); any other outcome fails, and so does a plan whose
# number of cases the file does not list.
#
# Beside each arch's recording of Linux 6.12 itself running the same
# programs (tests/selftests/linux-6.12-ARCH.tap, `make selftests-linux`)
# every case Linux passes must pass on ptelab too, or the file's
# "PROGRAM linux" lines must say why not (tests/selftests/linux.awk); a
# case only ptelab passes is a "note" line, and each program gets one line
# with both kernels' counts.
#
# Without the sources (no network to Debian, no apt) the stage prints
# "SKIP: reason". SELFTESTS_ARCHES (default "x86_64 arm64") picks arches;
# SELFTESTS_DIR (default build/selftests) is where fetch.sh builds.
#
# The slow programs (SLOW_PROGS: migration, 20 s of guest clock a case,
# about 2 minutes of TCG per arch) run only with SELFTESTS_FULL=1, which
# `make selftests` sets; `make test`'s stage lists them as skipped. They
# boot with --cpus 4 --nodes 2 (migration wants 3 threads and 2 nodes),
# and are compared beside Linux 6.12 where its recording has them (a
# second boot with 4 CPUs, record.sh).
. "$(dirname "$0")/../lib.sh"

# shellcheck source=tests/selftests/check.sh
. "$TOP/tests/selftests/check.sh"
BIN=${SELFTESTS_DIR:-$TOP/build/selftests}
SLOW_PROGS="migration"

# run_prog ARCH PROG: boot, run, report each case.
run_prog() {
	out=$TMPD/$1-$2.out
	opts="--timeout 60"
	case " $SLOW_PROGS " in *" $2 "*) opts="--timeout 400 --cpus 4 --nodes 2" ;; esac
	# shellcheck disable=SC2086 # opts is words
	"$PTELAB" --backend qemu --arch "$1" --accel tcg $opts --initramfs "$BIN/$1" \
		-- "run=exec:/bin/$2" >"$out" 2>&1
	if grep -Eq 'panic|unhandled exception' "$out"; then
		fail "$1: $2" "the kernel failed: $(grep -E 'panic|unhandled exception' "$out" | head -n 1)"
		echo "$2" >>"$TMPD/uncompared"
		return
	fi
	grep '^exec: unknown system call' "$out" | sed "s/^/# $1: $2: /"
	check_cases "$1" "$2" "$out" >"$TMPD/cases"
	report_cases "$TMPD/cases"
	case " $SLOW_PROGS " in
	*" $2 "*)
		# Compared where the recording has them (its second boot, 4 CPUs).
		if grep -qx "selftest: begin $2" "$TOP/tests/selftests/linux-6.12-$1.tap" 2>/dev/null; then
			beside_linux "$1" "$2" "$out"
		else
			echo "$2" >>"$TMPD/uncompared"
		fi
		;;
	*) beside_linux "$1" "$2" "$out" ;;
	esac
}

# beside_linux ARCH PROG OUT: Linux 6.12's recorded cases against OUT's.
beside_linux() {
	tap=$TOP/tests/selftests/linux-6.12-$1.tap
	[ -f "$tap" ] || return 0
	awk -v arch="$1" -v prog="$2" -f "$TOP/tests/selftests/linux.awk" "$EXPECTED" "$tap" "$3" \
		>"$TMPD/linux"
	notes=0
	while IFS='	' read -r res name why; do
		case $res in
		pass) pass "$name" ;;
		skip) skip "$name" "$why" ;;
		note)
			notes=$((notes + 1))
			# The first few in full; all of them with SELFTESTS_NOTES=all.
			[ "$notes" -le 3 ] || [ "${SELFTESTS_NOTES:-}" = all ] && echo "note $name: $why"
			;;
		sum) echo "$name" ;;
		used) echo "$2 linux $name" >>"$TMPD/used" ;;
		*) fail "$name" "$why" ;;
		esac
	done <"$TMPD/linux"
	[ "$notes" -gt 3 ] && [ "${SELFTESTS_NOTES:-}" != all ] &&
		echo "note $1: $2: $notes cases ptelab passes and Linux 6.12 does not (SELFTESTS_NOTES=all lists them)"
	return 0
}

# unused_linux_lines: after every arch with a recording ran, each
# "PROGRAM linux" line of the expected file must have applied on one
# (unless PROGRAM's run failed on some arch: then it was not compared).
unused_linux_lines() {
	for t in "$TOP"/tests/selftests/linux-6.12-*.tap; do
		a=${t##*/linux-6.12-} && a=${a%.tap}
		case " $ARCHES_RUN " in *" $a "*) ;; *) return 0 ;; esac
	done
	touch "$TMPD/used" "$TMPD/uncompared"
	sed -n 's/ -- .*//; /^[a-z_]* linux /p' "$EXPECTED" | while read -r line; do
		grep -Fqx "$line" "$TMPD/used" || grep -Fqx "${line%% *}" "$TMPD/uncompared" ||
			echo "$line"
	done >"$TMPD/unused"
	while read -r line; do
		fail "selftests: $line" "no arch needs this line of tests/selftests/expected (Linux 6.12 does not pass the case, or ptelab does)"
	done <"$TMPD/unused"
}

sh "$TOP/tests/selftests/fetch.sh" "$BIN" >"$TMPD/fetch" 2>&1
rc=$?
if [ $rc -eq 3 ]; then
	skip "selftests" "$(sed -n 's/^SKIP: //p' "$TMPD/fetch")"
	summary
	exit
elif [ $rc -ne 0 ]; then
	fail "selftests: fetch.sh" "$(tail -n 2 "$TMPD/fetch" | tr '\n' '|')"
	summary
	exit
fi
ARCHES_RUN=""
progs=$(sed -n 's/^\([a-z_]*\) [0-9].*/\1/p' "$EXPECTED" | uniq)
for a in ${SELFTESTS_ARCHES:-x86_64 arm64}; do
	qemu=qemu-system-x86_64
	[ "$a" = arm64 ] && qemu=qemu-system-aarch64
	if ! have_cmd $qemu; then
		skip "$a" "$qemu not installed"
	elif [ ! -x "$PTELAB" ]; then
		fail "$a" "build/ptelab not built (make)"
	else
		for p in $progs; do
			case " $SLOW_PROGS " in
			*" $p "*) if [ "${SELFTESTS_FULL:-}" != 1 ]; then
				skip "$a: $p" "slow (20 s a case): make selftests runs it"
				continue
			fi ;;
			esac
			run_prog "$a" "$p"
		done
		ARCHES_RUN="$ARCHES_RUN $a"
	fi
done
unused_linux_lines
summary
