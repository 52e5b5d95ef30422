#!/bin/sh
# tests/kvm/scaling.sh BACKEND - fault scaling and GUP contention inside the
# nested VM of tests/kvm/run.sh --scaling (BACKEND kvm-x86_64 or kvm-arm64):
# for each K in SCALING_CPUS (1 2 4 8), ptelab --backend kvm --cpus K runs
# bench:fault and bench:gup with cpus=K (SCALING_BENCHES picks fewer), and
# prints their RESULT lines. run.sh passes the SCALING_* settings of its
# own environment in (lists with commas for spaces).
# Clock kvm: the guest's timer on the nested KVM, whose vCPUs are threads of
# a nested kernel that TCG emulates on the host (run.sh's NESTED_SMP vCPUs):
# not a hardware figure.
be=$1
arch=${be#kvm-}
B=$(cd "$(dirname "$0")/../../build" && pwd)
cpus=$(echo "${SCALING_CPUS:-1 2 4 8}" | tr , ' ')
benches=$(echo "${SCALING_BENCHES:-fault gup}" | tr , ' ')
for k in $cpus; do
	for b in $benches; do
		"$B/ptelab" --backend kvm --arch "$arch" --cpus "$k" --mem 512M --quiet --timeout 600 \
			run=bench:$b cpus="$k" size="${SCALING_SIZE:-32}" reps="${SCALING_REPS:-3}" \
			folios=4K,64K,2M-pte 2>&1 | grep -E '^(RESULT |pvlock: )' ||
			echo "kvm-stage: scaling: bench:$b cpus=$k printed no RESULT line"
	done
done
