#!/bin/sh
# tests/bench/linux/fetch.sh ARCH DIR - fetch the kernels `make compare`
# boots for ARCH (x86_64 or arm64) into DIR, once: Debian 12's 6.1
# (linux-image-6.1.0-NN-<debarch>, through the linux-image-<debarch>
# metapackage) and the newest 6.12 the lists name (bookworm-security's
# linux-image-6.12.N+deb12-<debarch>-unsigned), with busybox-static.
# Nothing is installed (tests/debfetch.sh).
#
# DIR afterwards: busybox; 6.1/ and 6.12/, each with kernel (vmlinuz),
# config (the kernel's .config), version (its uname -r, the package's
# version after it) and brd.ko: the RAM disk module of the same package,
# uncompressed here (6.12's package ships it xz-compressed, 6.1's plain;
# busybox's insmod hands the file to the kernel as it is), the swap device
# of the pageout and swapin benches (init.sh); DIR/.fetched marks it complete (a DIR
# fetched before brd.ko was taken along is fetched again). Exit 1 with the
# reason on stderr when something cannot be fetched.
set -u
arch=$1
[ -f "$2/.fetched" ] && [ -f "$2/6.12/brd.ko" ] && exit 0
# shellcheck source=tests/debfetch.sh
. "$(dirname "$0")/../../debfetch.sh"
debfetch_init "$arch" "$2" || exit 1

# unpack_module KO DEST: KO, KO.xz or KO.zst as a plain module at DEST.
unpack_module() {
	if [ -f "$1" ]; then
		cp "$1" "$2"
	elif [ -f "$1.xz" ]; then
		xz -dc "$1.xz" >"$2"
	elif [ -f "$1.zst" ]; then
		zstd -qdc "$1.zst" >"$2"
	else
		echo "no $(basename "$1") in the kernel package" >&2
		false
	fi || { echo "cannot unpack $(basename "$1")" >&2; rm -f "$2"; return 1; }
}
dir=$DEB_DIR
k61=$(debfetch_depends "linux-image-$DEB_ARCH") || exit 1
k612=$(debfetch_newest "^linux-image-6\.12\.[0-9]+\+deb12-$DEB_ARCH-unsigned\$") || exit 1
debfetch_download "$dir" "$k61" "$k612" busybox-static || exit 1
rm -rf "$dir/x" "$dir/6.1" "$dir/6.12"
debfetch_unpack "$dir" busybox-static "$dir/x" ./bin/busybox && mv "$dir/x/bin/busybox" "$dir/busybox" ||
	exit 1
for k in "6.1 $k61" "6.12 $k612"; do
	set -- $k
	debfetch_unpack "$dir" "$2" "$dir/x" './boot/vmlinuz-*' './boot/config-*' \
		'./lib/modules/*/kernel/drivers/block/brd.ko*' || exit 1
	mkdir -p "$dir/$1"
	uname_r=$(basename "$dir"/x/boot/vmlinuz-*) && uname_r=${uname_r#vmlinuz-}
	mv "$dir/x/boot/vmlinuz-$uname_r" "$dir/$1/kernel" && mv "$dir/x/boot/config-$uname_r" "$dir/$1/config" ||
		exit 1
	unpack_module "$dir/x/lib/modules/$uname_r/kernel/drivers/block/brd.ko" "$dir/$1/brd.ko" || exit 1
	ver=$(basename "$dir"/debs/"$2"_*.deb | cut -d_ -f2 | sed 's/%3a/:/')
	echo "$uname_r $ver" >"$dir/$1/version"
	rm -rf "$dir/x"
done
rm -rf "$dir/debs"
echo "$k61 $k612" >"$dir/.fetched"
