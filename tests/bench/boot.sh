#!/bin/sh
# tests/bench/boot.sh - whole-process boot time of the smallest guest run,
# `ptelab --mem 1G --nodes 2 run=exit:0`, side by side on every backend:
# ptelab's KVM backend, QEMU TCG, QEMU with accel=kvm (slow to start on a
# nested machine, so fewer repeats), and ptelab's KVM backend of both
# arches on the nested KVM of tests/kvm/run.sh --bench, with --timing
# breakdowns. Medians of REPS runs (default 20).
TOP=$(cd "$(dirname "$0")/../.." && pwd)
P=$TOP/build/ptelab
T=$TOP/build/timeit
REPS=${REPS:-20}
QKVM_REPS=${QKVM_REPS:-5}
args="--mem 1G --nodes 2 run=exit:0"
res=$(mktemp)
echo "== boot: whole-process time of ptelab $args"
# KVM only where ptelab's KVM backend can run the guest (it refuses kvm-pvm).
if kvm_why=$("$P" --backend kvm --dtb-out /dev/null 2>&1); then
	# shellcheck disable=SC2086
	"$T" "$REPS" ptelab-kvm "$P" --backend kvm $args >>"$res"
	"$P" --backend kvm --timing $args 2>&1 | grep timing
	kvm=1
else
	echo "SKIP: ptelab-kvm: ${kvm_why#ptelab: --backend kvm: }"
	kvm=0
fi
# shellcheck disable=SC2086
"$T" "$REPS" qemu-tcg "$P" --backend qemu --accel tcg $args >>"$res"
# shellcheck disable=SC2086
"$P" --backend qemu --accel tcg --timing $args 2>&1 | sed -n 's/^ptelab: timing: /timing qemu-tcg: /p'
if [ "$kvm" = 1 ]; then
	# shellcheck disable=SC2086
	"$T" "$QKVM_REPS" qemu-kvm "$P" --backend qemu --accel kvm $args >>"$res"
fi
# shellcheck disable=SC2086
"$T" "$REPS" qemu-arm64-tcg "$P" --arch arm64 $args >>"$res"
# shellcheck disable=SC2086
"$P" --arch arm64 --timing $args 2>&1 | sed -n 's/^ptelab: timing: /timing qemu-arm64-tcg: /p'
# The same boot on ptelab's KVM backend inside the nested VMs of
# tests/kvm/run.sh (a real Linux KVM under QEMU TCG): nested figures, not
# hardware ones. BENCH_NESTED=0 leaves them out.
if [ "${BENCH_NESTED:-1}" = 1 ]; then
	"$TOP/tests/kvm/run.sh" --bench >"$res.nested" 2>&1
	grep '^RESULT ' "$res.nested" >>"$res"
	sed -n -e 's/^kvm-stage: timing \(kvm-[a-z0-9_]*\): /timing nested-\1: /p' \
		-e '/^SKIP: /p' "$res.nested"
	rm -f "$res.nested"
fi
printf '%-18s %6s %12s %12s %12s\n' variant reps median_ms min_ms max_ms
sed 's/^RESULT //' "$res" | while read -r j; do
	v=$(echo "$j" | sed -E 's/.*"variant":"([^"]*)".*/\1/')
	r=$(echo "$j" | sed -E 's/.*"reps":([0-9]+).*/\1/')
	med=$(echo "$j" | sed -E 's/.*"median_us":([0-9.]+).*/\1/')
	mn=$(echo "$j" | sed -E 's/.*"min_us":([0-9.]+).*/\1/')
	mx=$(echo "$j" | sed -E 's/.*"max_us":([0-9.]+).*/\1/')
	awk -v v="$v" -v r="$r" -v a="$med" -v b="$mn" -v c="$mx" \
		'BEGIN { printf "%-18s %6d %12.2f %12.2f %12.2f\n", v, r, a/1000, b/1000, c/1000 }'
done
cat "$res"
rm -f "$res"
