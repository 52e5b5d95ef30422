#!/bin/sh
# tests/bench/linux/init.sh - /init of the Linux kernels `make compare`
# boots (tests/bench/compare.sh): mount the pseudo file systems, run
# lbench with the lb_* words of the kernel command line (they reach /init
# as environment variables) and power off. The host reads the console:
# RESULT lines between "compare: begin" and "compare: end".
export PATH=/bin
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
# lbench's fork runs SCHED_FIFO: no RT throttling (a throttled window
# would be idle time, which icount skips ahead through).
echo -1 >/proc/sys/kernel/sched_rt_runtime_us
# lb_swap=on: a swap device for lbench's pageout and swapin, RAM as
# ptelab's swap area is (no I/O in the figures): brd, the RAM disk, from
# the kernel's own package (/brd-RELEASE.ko, fetch.sh), lb_swap_mb MiB
# (default 256, ptelab's SWAP_SLOTS), busybox's mkswap and swapon. zswap
# is off in Debian's configs (no CONFIG_ZSWAP_DEFAULT_ON): pages reach
# the device as they are.
if [ "${lb_swap:-off}" = on ]; then
	if insmod "/brd-$(uname -r).ko" rd_nr=1 "rd_size=$((${lb_swap_mb:-256} * 1024))" max_part=0 &&
		mkswap /dev/ram0 >/dev/null && swapon /dev/ram0; then
		echo "compare: swap on $(sed -n 2p /proc/swaps | tr -s ' \t' ' ')"
	else
		echo "compare: no swap device: brd or swapon failed"
	fi
fi
echo "compare: begin $(uname -r) at $(cut -d' ' -f1 /proc/uptime) s"
# lb_runs=N runs the whole set N times (tests/bench/linux/check.sh
# compares them).
i=0
while [ "$i" -lt "${lb_runs:-1}" ]; do
	/lbench "bench=${lb_bench:-fork}" "folios=${lb_folios:-4K}" "size=${lb_size:-64}" \
		"reps=${lb_reps:-3}" clock=icount
	i=$((i + 1))
done
echo "compare: end at $(cut -d' ' -f1 /proc/uptime) s"
poweroff -f
