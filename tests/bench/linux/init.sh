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
