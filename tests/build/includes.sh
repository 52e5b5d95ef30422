#!/bin/sh
# tests/build/includes.sh - the include paths keep each side to its own
# headers and the guest's published interface (Makefile, VMM_INC), and
# each kernel room to itself and the rooms below (ROOM_INC_*): a probe
# file that includes a header is compiled with the flags the build gives
# each side; a backward include must fail for want of the header, and the
# allowed ones (the controls) must compile, so a failure is the path's doing.
. "$(dirname "$0")/../lib.sh"
cd "$TOP" || exit 1

flags() { make -s --no-print-directory "print-$1"; }

# probe SIDE CC FLAGS HEADER WANT: compile '#include "HEADER"' with FLAGS;
# WANT is "ok" (it compiles) or "refused" (HEADER is not found).
probe() {
	name="$1 includes $4: $5"
	printf '#include "%s"\nint probe_unused;\n' "$4" >"$TMPD/probe.c"
	# shellcheck disable=SC2086
	$2 -std=gnu11 -fsyntax-only $3 -MMD -MF "$TMPD/probe.d" "$TMPD/probe.c" >"$TMPD/err" 2>&1
	rc=$?
	case $5 in
	ok) [ $rc -eq 0 ] && pass "$name" || fail "$name" "$(head -n 3 "$TMPD/err" | tr '\n' '|')" ;;
	refused)
		if [ $rc -ne 0 ] && grep -q "$4: No such file or directory" "$TMPD/err"; then
			pass "$name"
		else
			fail "$name" "it compiled or failed otherwise: $(head -n 3 "$TMPD/err" | tr '\n' '|')"
		fi
		;;
	esac
}

vmm=$(flags VMM_INC)
[ -n "$vmm" ] || { fail "make print-VMM_INC" "empty"; summary; exit; }
# The VMM: its own headers and include/ptelab/, nothing of the guest, mm/
# or the tests.
for h in vmm_config.h ptelab/abi.h ptelab/cmdline.h; do probe vmm gcc "$vmm" $h ok; done
for h in bench.h kernel.h knob_parse.h mm.h knobs.h counters.h pgtable.h test.h asm/pgtable.h \
	user_arch.h process.h; do
	probe vmm gcc "$vmm" $h refused
done
# cmdline/, the grammar both sides build: include/ptelab/ and nothing of
# either side (ptelab's build compiles it with these flags).
c=$(flags CMDLINE_INC)
[ -n "$c" ] || fail "make print-CMDLINE_INC" "empty"
for h in ptelab/cmdline.h ptelab/cmdline_keys.h ptelab/cmdline_cmds.h; do probe cmdline gcc "$c" $h ok; done
for h in vmm_config.h kernel.h knob_parse.h knobs.h bench.h test.h; do probe cmdline gcc "$c" $h refused; done
# The kernel's rooms (Makefile, ROOM_INC_*): each file compiles with its
# build's flags and its room's paths (make print-inc FILE=...), so a room
# sees itself and the rooms below it, never one above it nor tests/.
inc() { make -s --no-print-directory print-inc FILE="$1"; }
i_core=$(inc core/x.c) i_mm=$(inc mm/x.c) i_kernel=$(inc kernel/x.c) i_arch=$(inc arch/x/x.c)
i_guest=$(inc guest/x.c) i_cmdline=$(inc cmdline/x.c) i_tests=$(inc tests/x.c)
i_hostmain=$(inc arch/host/boot/main.c)
[ -n "$i_core" ] || fail "make print-inc FILE=core/x.c" "empty"
# rooms FLAGS CC WHERE: probe every room's edges under one build's FLAGS.
rooms() {
	for h in kernel.h spinlock.h smp.h percpu.h list.h ptelab/abi.h; do probe "$3 core" $2 "$1 $i_core" $h ok; done
	for h in mm.h page.h counters.h process.h commands.h bench.h knob_parse.h test.h mm/mm_test.h \
		vmm_config.h; do
		probe "$3 core" $2 "$1 $i_core" $h refused
	done
	for h in kernel.h spinlock.h mm.h counters.h; do probe "$3 mm" $2 "$1 $i_mm" $h ok; done
	for h in process.h commands.h bench.h knob_parse.h test.h mm/mm_test.h vmm_config.h; do
		probe "$3 mm" $2 "$1 $i_mm" $h refused
	done
	probe "$3 kernel" $2 "$1 $i_kernel" process.h ok
	for h in commands.h bench.h test.h; do probe "$3 kernel" $2 "$1 $i_kernel" $h refused; done
	for h in kernel.h mm.h process.h; do probe "$3 arch" $2 "$1 $i_arch" $h ok; done
	for h in commands.h test.h; do probe "$3 arch" $2 "$1 $i_arch" $h refused; done
	for h in commands.h bench.h mm.h process.h kernel.h; do probe "$3 guest" $2 "$1 $i_guest" $h ok; done
	for h in test.h mm/explore_mix.h vmm_config.h; do probe "$3 guest" $2 "$1 $i_guest" $h refused; done
	for h in kernel.h mm.h; do probe "$3 cmdline" $2 "$1 $i_cmdline" $h refused; done
	for h in test.h mm/mm_test.h commands.h; do probe "$3 tests" $2 "$1 $i_tests" $h ok; done
}
# The guest of each arch: include/ptelab/ and its rooms, never the VMM's
# headers.
for a in x86_64 arm64; do
	case $a in x86_64) cc=gcc ;; arm64) cc=aarch64-linux-gnu-gcc ;; esac
	if ! have_cmd $cc; then
		skip "guest $a includes" "$cc is not installed"
		continue
	fi
	g=$(flags ${a}_CFLAGS)
	for h in ptelab/abi.h ptelab/cmdline.h user_arch.h; do probe "guest $a" $cc "$g $i_kernel" $h ok; done
	for h in vmm_config.h vmm_kvm.h vmm_util.h; do probe "guest $a" $cc "$g $i_tests" $h refused; done
	rooms "$g" $cc "guest $a"
done
# The mm host runner (its mm/ and core/ as the guest's) and the host
# backend (guest commands, mm/, arch/host natively): no VMM header, and
# the backend has no test runner (the TLB model reports through a
# callback).
rooms "$(flags MM_HOST_CFLAGS_x86_64)" gcc "mm host runner"
h=$(flags HOSTRUN_CFLAGS_x86_64)
probe "host backend" gcc "$h $i_hostmain" commands.h ok
for x in vmm_config.h test.h; do probe "host backend" gcc "$h $i_hostmain" $x refused; done
rooms "$h" gcc "host backend"
# guest-trace.elf recompiles only the sources that include trace.h or
# pte_batch.h themselves (Makefile, $(ARCH)_TSRCS): a header that included
# either would leave its users untraced in that image without a word.
name="only mm/pte_batch.h among the headers includes trace.h or pte_batch.h"
bad=$(git ls-files '*.h' | xargs grep -l -E '^#include "(trace|pte_batch)\.h"' | grep -vx mm/pte_batch.h)
[ -z "$bad" ] && pass "$name" || fail "$name" "also: $(echo $bad)"

summary
