#!/bin/sh
# tests/linux/init.sh - /init of the kernels tests/linux/record.sh boots:
# mount what the scenarios read (/proc for pagemap, /sys for the THP
# knobs), run the scenario program and power off. The host reads the
# console between "semantics: begin" and "semantics: end".
export PATH=/bin
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
echo "semantics: begin"
/semantics --set-thp
echo "semantics: end"
poweroff -f
