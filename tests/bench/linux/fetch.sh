#!/bin/sh
# tests/bench/linux/fetch.sh ARCH DIR - fetch the kernels `make compare`
# boots for ARCH (x86_64 or arm64) into DIR, once: Debian 12's 6.1
# (linux-image-6.1.0-NN-<debarch>, through the linux-image-<debarch>
# metapackage) and the newest 6.12 the lists name (bookworm-security's
# linux-image-6.12.N+deb12-<debarch>-unsigned), with busybox-static.
# Nothing is installed (tests/debfetch.sh).
#
# DIR afterwards: busybox; 6.1/ and 6.12/, each with kernel (vmlinuz),
# config (the kernel's .config) and version (its uname -r, the package's
# version after it); DIR/.fetched marks it complete. Exit 1 with the reason
# on stderr when something cannot be fetched.
set -u
arch=$1
[ -f "$2/.fetched" ] && exit 0
# shellcheck source=tests/debfetch.sh
. "$(dirname "$0")/../../debfetch.sh"
debfetch_init "$arch" "$2" || exit 1
dir=$DEB_DIR
k61=$(debfetch_depends "linux-image-$DEB_ARCH") || exit 1
k612=$(debfetch_newest "^linux-image-6\.12\.[0-9]+\+deb12-$DEB_ARCH-unsigned\$") || exit 1
debfetch_download "$dir" "$k61" "$k612" busybox-static || exit 1
rm -rf "$dir/x" "$dir/6.1" "$dir/6.12"
debfetch_unpack "$dir" busybox-static "$dir/x" ./bin/busybox && mv "$dir/x/bin/busybox" "$dir/busybox" ||
	exit 1
for k in "6.1 $k61" "6.12 $k612"; do
	set -- $k
	debfetch_unpack "$dir" "$2" "$dir/x" './boot/vmlinuz-*' './boot/config-*' || exit 1
	mkdir -p "$dir/$1"
	uname_r=$(basename "$dir"/x/boot/vmlinuz-*) && uname_r=${uname_r#vmlinuz-}
	mv "$dir/x/boot/vmlinuz-$uname_r" "$dir/$1/kernel" && mv "$dir/x/boot/config-$uname_r" "$dir/$1/config" ||
		exit 1
	ver=$(basename "$dir"/debs/"$2"_*.deb | cut -d_ -f2 | sed 's/%3a/:/')
	echo "$uname_r $ver" >"$dir/$1/version"
	rm -rf "$dir/x"
done
rm -rf "$dir/debs"
echo "$k61 $k612" >"$dir/.fetched"
