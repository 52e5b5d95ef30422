#!/bin/sh
# tests/kvm/bench.sh BACKEND - the boot benchmark inside the nested VM of
# tests/kvm/run.sh --bench (BACKEND kvm-x86_64 or kvm-arm64): the
# whole-process time of `ptelab --mem 1G --nodes 2 run=exit:0` on the
# nested /dev/kvm, REPS runs (20), as tests/bench/boot.sh measures it on
# the host, then three --timing breakdowns. Clock: the nested kernel's
# CLOCK_MONOTONIC, which TCG derives from the host's wall clock.
be=$1
arch=${be#kvm-}
B=$(cd "$(dirname "$0")/../../build" && pwd)
args="--backend kvm --arch $arch --mem 1G --nodes 2 run=exit:0"
# shellcheck disable=SC2086
"$B/timeit" "${REPS:-20}" "nested-$be" "$B/ptelab" $args
for _ in 1 2 3; do
	# shellcheck disable=SC2086
	"$B/ptelab" --timing $args 2>&1 | sed -n "s/^ptelab: timing: /kvm-stage: timing $be: /p"
done
