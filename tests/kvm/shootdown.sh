#!/bin/sh
# tests/kvm/shootdown.sh BACKEND - the shootdown benchmark inside the nested
# VM of tests/kvm/run.sh --shootdown (BACKEND kvm-x86_64 or kvm-arm64):
# bench:zap, bench:mprotect and bench:migrate on 4 vCPUs with active=0 and
# active=3 (3 CPUs in the mm while CPU 0 times), as docs/smp.md's tables
# show them on icount. Clock "kvm": the nested kernel's CLOCK_MONOTONIC,
# which TCG derives from the host's wall clock; the 4 vCPU threads share the
# nested VM's one CPU. Not hardware figures.
be=$1
arch=${be#kvm-}
B=$(cd "$(dirname "$0")/../../build" && pwd)
for k in ${ACTIVE:-0 3}; do
	"$B/ptelab" --backend kvm --arch "$arch" --mem 1G --nodes 2 --cpus 4 --quiet \
		run=bench:zap,bench:mprotect,bench:migrate size="${SIZE:-16}" reps="${REPS:-3}" \
		folios=4K,64K,2M-pte active="$k" 2>&1 | grep -v '^mm: '
done
