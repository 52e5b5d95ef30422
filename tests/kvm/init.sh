#!/bin/sh
# tests/kvm/init.sh - /init of the nested VM that tests/kvm/run.sh boots:
# mount the pseudo file systems, load KVM (x86_64: AMD SVM modules; arm64:
# built in), then run tests/kvm/cases.sh on /dev/kvm and power off.
#
# The host side reads the serial console: the case lines (ok/FAIL/SKIP)
# between "kvm-stage: begin" and "kvm-stage: end", or one
# "kvm-stage: no-kvm: REASON" line when there is no usable /dev/kvm.
export PATH=/bin
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
mount -t tmpfs tmp /tmp

arch=$(uname -m)
[ "$arch" = aarch64 ] && arch=arm64
# kvm-amd needs ccp (the AMD secure processor), kvm needs irqbypass.
if [ "$arch" = x86_64 ]; then
	for m in irqbypass kvm ccp kvm-amd; do
		insmod "/lib/modules/$m.ko" 2>/tmp/insmod || echo "kvm-stage: insmod $m: $(cat /tmp/insmod)"
	done
fi
dmesg | grep -iE 'kvm|svm|hyp' | sed 's/^/kvm-stage: dmesg: /'
# Whether a guest's PAUSE leaves it (AMD's pause filter), which decides
# what a lock's spin costs on this KVM (docs/smp.md, "When vCPUs outnumber CPUs").
if [ -d /sys/module/kvm_amd ]; then
	echo "kvm-stage: kvm_amd pause_filter_count=$(cat /sys/module/kvm_amd/parameters/pause_filter_count 2>&1)" \
		"cpu flags: $(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -xE 'svm|pausefilter|pfthreshold' | tr '\n' ' ')"
fi
if [ -c /dev/kvm ]; then
	echo "kvm-stage: begin kvm-$arch at $(cut -d' ' -f1 /proc/uptime) s"
	# kvm_stage=bench on the kernel command line (it reaches us as an
	# environment variable): the boot benchmark instead of the cases.
	cd /ptelab && sh "tests/kvm/${kvm_stage:-cases}.sh" "kvm-$arch"
	echo "kvm-stage: end at $(cut -d' ' -f1 /proc/uptime) s"
else
	echo "kvm-stage: no-kvm: the nested $arch kernel has no /dev/kvm ($(dmesg | grep -iE 'kvm' | tail -n 1))"
fi
poweroff -f
