#!/bin/sh
# tests/build/includes.sh - the include paths keep each side to its own
# headers and the guest's published interface (Makefile, VMM_INC): a probe
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
# The guest of each arch (mm/ and arch/ compile with the same flags):
# include/ptelab/, never the VMM's headers.
for a in x86_64 arm64; do
	case $a in x86_64) cc=gcc ;; arm64) cc=aarch64-linux-gnu-gcc ;; esac
	if ! have_cmd $cc; then
		skip "guest $a includes" "$cc is not installed"
		continue
	fi
	g=$(flags ${a}_CFLAGS)
	for h in ptelab/abi.h ptelab/cmdline.h kernel.h user_arch.h; do probe "guest $a" $cc "$g" $h ok; done
	for h in vmm_config.h vmm_kvm.h vmm_util.h; do probe "guest $a" $cc "$g" $h refused; done
done
# The host backend (guest commands, mm/, arch/host natively): no VMM
# header, and no test runner (the TLB model reports through a callback).
h=$(flags HOSTRUN_CFLAGS_x86_64)
probe "host backend" gcc "$h" kernel.h ok
for x in vmm_config.h test.h; do probe "host backend" gcc "$h" $x refused; done
# guest-trace.elf recompiles only the sources that include trace.h or
# pte_batch.h themselves (Makefile, $(ARCH)_TSRCS): a header that included
# either would leave its users untraced in that image without a word.
name="only mm/pte_batch.h among the headers includes trace.h or pte_batch.h"
bad=$(git ls-files '*.h' | xargs grep -l -E '^#include "(trace|pte_batch)\.h"' | grep -vx mm/pte_batch.h)
[ -z "$bad" ] && pass "$name" || fail "$name" "also: $(echo $bad)"

summary
