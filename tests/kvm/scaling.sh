#!/bin/sh
# tests/kvm/scaling.sh BACKEND - fault scaling and GUP contention inside the
# nested VM of tests/kvm/run.sh --scaling (BACKEND kvm-x86_64 or kvm-arm64):
# for each K in SCALING_CPUS (1 2 4 8), ptelab --backend kvm --cpus K runs
# bench:fault and bench:gup with cpus=K (SCALING_BENCHES picks fewer), and
# prints their RESULT lines. SCALING_FOLIOS (4K,64K,2M-pte), SCALING_REPS
# (3), SCALING_SIZE (32 MiB) go to the benchmark; SCALING_GUESTS names
# builds of the guest to run in turn (default guest: build/ARCH/guest.elf;
# NAME runs build/ARCH/NAME.elf, which run.sh copies in when it is there).
# run.sh passes the SCALING_* settings of its own environment in (lists
# with commas for spaces).
# Clock kvm: the guest's timer on the nested KVM, whose vCPUs are threads of
# a nested kernel that TCG emulates on the host (run.sh's NESTED_SMP vCPUs):
# not a hardware figure.
be=$1
arch=${be#kvm-}
B=$(cd "$(dirname "$0")/../../build" && pwd)
cpus=$(echo "${SCALING_CPUS:-1 2 4 8}" | tr , ' ')
benches=$(echo "${SCALING_BENCHES:-fault gup}" | tr , ' ')
guests=$(echo "${SCALING_GUESTS:-guest}" | tr , ' ')
for g in $guests; do
	[ "$g" = guest ] || echo "kvm-stage: scaling: guest $g"
	for k in $cpus; do
		for b in $benches; do
			"$B/ptelab" --backend kvm --arch "$arch" --cpus "$k" --mem 512M --quiet --timeout 600 \
				--kernel "$B/$arch/$g.elf" run=bench:$b cpus="$k" size="${SCALING_SIZE:-32}" \
				reps="${SCALING_REPS:-3}" folios="${SCALING_FOLIOS:-4K,64K,2M-pte}" 2>&1 |
				grep -E '^(RESULT |pvlock: )' ||
				echo "kvm-stage: scaling: bench:$b cpus=$k printed no RESULT line"
		done
	done
done
