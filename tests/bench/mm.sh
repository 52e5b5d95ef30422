#!/bin/sh
# tests/bench/mm.sh - the batched mm paths, unbatched vs batched side by
# side in one boot, on both guest architectures.
#
# Clock: under QEMU the guest runs with --accel icount, so a "us" is a
# thousand guest instructions: exact and repeatable (the same figures on
# every run), but blind to cache and TLB effects. Where ptelab's KVM
# backend works, the guest of the host's arch also runs there on the real
# clock.
# BENCHES (default: every benchmark the guest has, as bench:none lists
# them), SIZE in MiB (default 1024), REPS (default 5), ARCHES (x86_64 arm64).
TOP=$(cd "$(dirname "$0")/../.." && pwd)
P=$TOP/build/ptelab
SIZE=${SIZE:-1024}
REPS=${REPS:-5}
ARCHES=${ARCHES:-x86_64 arm64}
have=$("$P" --accel icount run=bench:none 2>&1 | sed -n 's/.*(have: *\(.*\))$/\1/p')
BENCHES=${BENCHES:-$have}
runs=""
for b in $BENCHES; do runs="$runs${runs:+,}bench:$b"; done
mem=$("$P" --mem-needed run="$runs" size="$SIZE") || exit 2

# run LABEL ARGS...: one boot (its RESULT lines say their clock themselves).
run() {
	label=$1
	shift
	echo "== mm benchmarks, $label: $BENCHES; $SIZE MiB, $REPS reps"
	"$P" "$@" --mem "$mem" --timeout 7200 run="$runs" size="$SIZE" reps="$REPS" 2>&1 |
		grep -v '^mm: '
}

for a in $ARCHES; do
	run icount --arch "$a" --accel icount
done
# KVM runs the guest of the host's arch: x86_64 counting TSC cycles, arm64
# (an arm64 server, where contpte's effect on the TLB is real) counting
# the generic timer (CNTVCT_EL0). The RESULT lines say clock "kvm".
case $(uname -m) in
aarch64 | arm64) karch=arm64 ;;
*) karch=x86_64 ;;
esac
if "$P" --backend kvm --arch "$karch" --dtb-out /dev/null >/dev/null 2>&1; then
	run kvm --backend kvm --arch "$karch"
else
	echo "SKIP: mm benchmarks on KVM: $("$P" --backend kvm --arch "$karch" --dtb-out /dev/null 2>&1)"
fi
