#!/bin/sh
# tests/kvm/fetch.sh ARCH DIR - fetch what the nested KVM stage needs for
# ARCH (x86_64 or arm64) into DIR, once: Debian's current 6.1 kernel
# (linux-image-6.1.0-NN-<debarch>, resolved through the linux-image-<debarch>
# metapackage), busybox-static and, for arm64, libfdt (to link an arm64
# ptelab). Nothing is installed (tests/debfetch.sh: `apt-get download` +
# `dpkg-deb`, a private apt state for arm64).
#
# DIR afterwards: kernel (vmlinuz or Image), modules/*.ko (x86_64: the KVM
# modules, uncompressed), busybox, and for arm64 libfdt/ (headers and
# libfdt.a); DIR/.fetched marks it complete. Exit 1 with the reason on
# stderr when something cannot be fetched (no network, no apt).
set -u
arch=$1
[ -f "$2/.fetched" ] && exit 0
# shellcheck source=tests/debfetch.sh
. "$(dirname "$0")/../debfetch.sh"
debfetch_init "$arch" "$2" || exit 1
dir=$DEB_DIR
kpkg=$(debfetch_depends "linux-image-$DEB_ARCH") || exit 1
pkgs="$kpkg busybox-static"
[ "$arch" = arm64 ] && pkgs="$pkgs libfdt-dev"
# shellcheck disable=SC2086
debfetch_download "$dir" $pkgs || exit 1

# Unpack only what the initramfs needs.
rm -rf "$dir/x" "$dir/modules" "$dir/libfdt"
debfetch_unpack "$dir" busybox-static "$dir/x" ./bin/busybox && mv "$dir/x/bin/busybox" "$dir/busybox" ||
	exit 1
case $arch in
x86_64)
	debfetch_unpack "$dir" "$kpkg" "$dir/x" './boot/vmlinuz-*' '*/irqbypass.ko' '*/kvm.ko' \
		'*/ccp.ko' '*/kvm-amd.ko' || exit 1
	mkdir -p "$dir/modules"
	find "$dir/x" -name '*.ko' -exec mv {} "$dir/modules/" \;
	mv "$dir"/x/boot/vmlinuz-* "$dir/kernel"
	;;
arm64)
	debfetch_unpack "$dir" "$kpkg" "$dir/x" './boot/vmlinuz-*' || exit 1
	mv "$dir"/x/boot/vmlinuz-* "$dir/kernel"
	debfetch_unpack "$dir" libfdt-dev "$dir/libfdt" './usr/include/*' './usr/lib/*/libfdt.a' || exit 1
	;;
esac
rm -rf "$dir/x" "$dir/debs"
echo "$kpkg" >"$dir/.fetched"
