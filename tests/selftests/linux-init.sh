#!/bin/sh
# tests/selftests/linux-init.sh - /init of the Linux 6.12 that
# tests/selftests/record.sh boots: mount what the selftests read (/proc,
# /sys, /dev, and debugfs for /sys/kernel/debug/gup_test), show the THP
# defaults the programs start from, run every program of /bin/selftests
# and print its TAP between "selftest: begin PROG" and "selftest: end PROG
# STATUS", then power off. Each program writes to a file first, so kernel
# messages cannot split a TAP line on the console.
export PATH=/bin
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t debugfs debugfs /sys/kernel/debug
mount -t tmpfs tmp /tmp
echo 1 >/proc/sys/kernel/printk
thp=/sys/kernel/mm/transparent_hugepage
echo "selftest: uname $(uname -r -m)"
for f in enabled defrag shmem_enabled use_zero_page hpage_pmd_size khugepaged/defrag; do
	echo "selftest: thp $f: $(cat $thp/$f)"
done
for f in "$thp"/hugepages-*kB/enabled; do
	d=${f%/enabled}
	echo "selftest: thp ${d##*/}/enabled: $(cat "$f")"
done
echo "selftest: gup_test: $(ls /sys/kernel/debug/gup_test 2>&1)"
echo "selftest: swap: $(tail -n +2 /proc/swaps | wc -l) devices"
echo "selftest: hugetlb: $(cat /proc/sys/vm/nr_hugepages) pages"
for p in $(cat /bin/selftests); do
	/bin/$p >/tmp/out 2>&1
	st=$?
	echo "selftest: begin $p"
	cat /tmp/out
	echo "selftest: end $p $st"
done
poweroff -f
