#!/bin/sh
# tests/bench/compare.sh - `make compare`: ptelab beside Linux on the same
# clock. For each arch (ARCHES, default "x86_64 arm64", one after the
# other), boots Debian's Linux 6.1 and 6.12 (KERNELS) under QEMU with
# -icount shift=0, with lbench (tests/bench/linux/lbench.c) as the work of
# /init, side by side, and runs ptelab's own benchmarks under --accel
# icount with the same --mem and --nodes (LX_MEM=2G, LX_NODES=2), the same
# size (SIZE MiB, default 64) and folio sizes (FOLIOS). Linux runs REPS
# repetitions (default 3; the median), ptelab one (icount is exact).
# OPTS=tuned (default: mitigations=off init_on_alloc=0) or debian (the
# distribution's defaults). BENCH: fault,zap,mprotect,fork,migrate,
# move_pages,gup,mremap,madvise,pageout,swapin,young,numa_hint,reclaim,
# reclaim_shared (gup also
# times the unpin, as gup_put; madvise is madvise_free, _dontneed and
# _populate, ptelab's advice=free,dontneed,populate; pageout and swapin
# boot Linux with a RAM swap device, tests/bench/linux/init.sh; young is
# Linux's /proc/self/clear_refs; numa_hint is ptelab's alone: Linux's
# change_prot_numa() has no system call, docs/linux.md; reclaim runs
# Linux in a memory cgroup whose limit is half the region, ptelab with
# its watermark half the region below the free pages; reclaim_shared
# forks a child that maps the first half, then writes the second past a
# limit of three quarters, ptelab's watermark a quarter below the free
# pages). ptelab's gup runs
# with gup_keep=ranges: like io_uring, it keeps the pins as runs of one
# folio (coalesced inside the timed get) and releases a run at a time.
#
# The same lbench binary also runs on ptelab as a user process (PT_USER=on,
# the default): ptelab --accel icount --initramfs with /bin/lbench and the
# same words, the column "ptelab (same binary)". Both kernels then pay the
# same system-call, fault and copy-to-user costs. MICRO (default
# syscall,ufault,forkexit: lbench's micro-benchmarks, per operation) runs
# on Linux and there.
#
# Writes build/compare/<time>/: linux-ARCH-KERNEL.log, ptelab-ARCH.log and
# ptelab-user-ARCH.log (the consoles), results.csv (every RESULT line, ptelab --csv's schema),
# and through tests/bench/linux/table.sh table.txt, table.csv and one plot
# per arch and operation (plot-ARCH-BENCH.png).
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/bench/linux/boot.sh
. "$TOP/tests/bench/linux/boot.sh"
ARCHES=${ARCHES:-x86_64 arm64}
KERNELS=${KERNELS:-6.1 6.12}
SIZE=${SIZE:-64}
REPS=${REPS:-3}
BENCH=${BENCH:-fault,zap,mprotect,fork,migrate,move_pages,gup,mremap,madvise,pageout,swapin,young,numa_hint,reclaim,reclaim_shared}
FOLIOS=${FOLIOS:-4K,16K,32K,64K,128K,256K,512K,1M,2M-pte,2M-pmd}
OPTS=${OPTS:-tuned}
PT_USER=${PT_USER:-on}
MICRO=${MICRO-syscall,ufault,forkexit}
OUT=${OUT:-$LX/$(date +%Y%m%d-%H%M%S)-$OPTS}
mkdir -p "$OUT" || exit 1

# ptelab's benches for BENCH: gup runs bench:gup_put too; madvise runs
# its three advices, which lbench names one by one. Their own keys go
# only with them (ptelab refuses a key no command of the line reads).
pt_benches="" lx_benches="" pt_keys=""
for b in $(echo "$BENCH" | tr ',' ' '); do
	case $b in
	gup)
		pt_benches="$pt_benches,bench:gup,bench:gup_put"
		pt_keys="$pt_keys gup_keep=ranges"
		;;
	madvise)
		pt_benches="$pt_benches,bench:$b"
		pt_keys="$pt_keys advice=free,dontneed,populate"
		;;
	*) pt_benches="$pt_benches,bench:$b" ;;
	esac
	case $b in
	madvise) lx_benches="$lx_benches,madvise_free,madvise_dontneed,madvise_populate" ;;
	numa_hint) ;;
	*) lx_benches="$lx_benches,$b" ;;
	esac
done
pt_benches=${pt_benches#,} lx_benches=${lx_benches#,}
# Linux's pageout, swapin and the reclaims need a swap device: init.sh's RAM disk.
lx_swap=off
case ",$lx_benches," in *,pageout,* | *,swapin,* | *,reclaim,* | *,reclaim_shared,*) lx_swap=on ;; esac
[ -n "$MICRO" ] && lx_benches=${lx_benches:+$lx_benches,}$MICRO

# pt_user ARCH WORDS...: lbench as a ptelab user process, its console in
# ptelab-user-ARCH.log: the same binary Linux runs, from an initramfs;
# mm_debug=off as run=bench (no poisoning, no contract checks).
pt_user() {
	pu_a=$1
	shift
	mkdir -p "$OUT/user-$pu_a/bin" && cp "$LX/$pu_a/lbench" "$OUT/user-$pu_a/bin/lbench" || return 1
	# The Linux boots' time limit: lbench's whole list, under icount on a
	# busy machine, outlasts the 120 s ptelab gives a command by default.
	"$PTELAB" --arch "$pu_a" --accel icount --mem "$LX_MEM" --nodes "$LX_NODES" --quiet \
		--timeout "$LX_TIMEOUT" --initramfs "$OUT/user-$pu_a" -- run=exec:/bin/lbench mm_debug=off -- "$@" \
		>"$OUT/ptelab-user-$pu_a.log" 2>&1 ||
		echo "compare: ptelab (same binary) $pu_a exited $?: $(tail -n 3 "$OUT/ptelab-user-$pu_a.log" | tr '\n' '|')"
}

t0=$(date +%s)
for a in $ARCHES; do
	lx_prepare "$a"
	case $? in
	0) ;;
	1) echo "compare: SKIP Linux on $a: $why" && continue ;;
	*) echo "compare: $why" && exit 1 ;;
	esac
	echo "compare: $a: booting Linux $KERNELS under icount ($OPTS boot options), ptelab beside it"
	for k in $KERNELS; do
		# x86_64: Linux's page copies as QEMU counts them (docs/linux.md).
		extra=fork_bare
		[ "$a" = x86_64 ] && extra=$extra,copy_movsq
		lx_boot "$a" "$k" "$OPTS" "$OUT/linux-$a-$k.log" "bench=$lx_benches,$extra" \
			"folios=$FOLIOS" "size=$SIZE" "reps=$REPS" "swap=$lx_swap" &
	done
	if [ -n "$pt_benches" ]; then
		# shellcheck disable=SC2086 # $pt_keys: one word per key
		"$PTELAB" --arch "$a" --accel icount --mem "$LX_MEM" --nodes "$LX_NODES" --quiet \
			"run=$pt_benches" "size=$SIZE" reps=1 "folios=$FOLIOS" $pt_keys \
			>"$OUT/ptelab-$a.log" 2>&1 ||
			echo "compare: ptelab $a exited $?: $(tail -n 3 "$OUT/ptelab-$a.log" | tr '\n' '|')"
	fi
	[ "$PT_USER" = on ] && pt_user "$a" "bench=$lx_benches,$extra" "folios=$FOLIOS" "size=$SIZE" \
		"reps=$REPS"
	wait
	for k in $KERNELS; do
		grep -q '^compare: end' "$OUT/linux-$a-$k.log" ||
			echo "compare: Linux $k on $a did not finish: $(tail -n 3 "$OUT/linux-$a-$k.log" | tr '\n' '|')"
		grep -o '^lbench: .*\|compare: .*swap.*' "$OUT/linux-$a-$k.log" | grep -v 'done$' | sed "s/^/  $k: /"
	done
	[ "$PT_USER" = on ] && grep '^lbench: \|^exec: ' "$OUT/ptelab-user-$a.log" | grep -v 'done$' |
		sed "s/^/  ptelab (same binary): /"
	echo "compare: $a done after $(($(date +%s) - t0)) s"
done
cat "$OUT"/linux-*.log "$OUT"/ptelab-*.log 2>/dev/null | "$TOP/build/results-csv" >"$OUT/results.csv" ||
	{ echo "compare: no RESULT line in $OUT"; exit 1; }
"$TOP/tests/bench/linux/table.sh" "$OUT"
echo "compare: results in ${OUT#"$TOP"/} ($(($(date +%s) - t0)) s)"
