#!/bin/sh
# tests/kvm/fetch.sh ARCH DIR - fetch what the nested KVM stage needs for
# ARCH (x86_64 or arm64) into DIR, once: Debian's current 6.1 kernel
# (linux-image-6.1.0-NN-<debarch>, resolved through the linux-image-<debarch>
# metapackage), busybox-static and, for arm64, libfdt (to link an arm64
# ptelab). Nothing is installed: `apt-get download` + `dpkg -x`. arm64
# packages come through a private apt state (package lists under DIR), so
# the machine's dpkg architectures and apt lists stay as they are.
#
# DIR afterwards: kernel (vmlinuz or Image), modules/*.ko (x86_64: the KVM
# modules, uncompressed), busybox, and for arm64 libfdt/ (headers and
# libfdt.a); DIR/.fetched marks it complete. Exit 1 with the reason on
# stderr when something cannot be fetched (no network, no apt).
set -u
arch=$1
# Absolute: apt takes a relative Dir::State::Lists as relative to /var/lib/apt.
dir=$(mkdir -p "$2" && cd "$2" && pwd) || exit 1
[ -f "$dir/.fetched" ] && exit 0
command -v apt-get >/dev/null || { echo "apt-get is not available" >&2; exit 1; }
mkdir -p "$dir/debs" || exit 1
log=$dir/fetch.log
: >"$log"

case $arch in
x86_64) debarch=amd64 ;;
arm64) debarch=arm64 ;;
*) echo "unknown arch $arch" >&2; exit 1 ;;
esac
hostarch=$(dpkg --print-architecture)
apt_opts=""
if [ "$debarch" != "$hostarch" ]; then
	state=$dir/apt
	mkdir -p "$state/lists/partial" "$state/cache/archives/partial" || exit 1
	: >"$state/status"
	apt_opts="-o APT::Architecture=$debarch -o APT::Architectures=$debarch
		-o Dir::State::Lists=$state/lists -o Dir::Cache=$state/cache
		-o Dir::State::status=$state/status"
	# shellcheck disable=SC2086
	apt-get $apt_opts -q update >>"$log" 2>&1 ||
		{ echo "apt-get update ($debarch lists): $(tail -n 1 "$log")" >&2; exit 1; }
	# It exits 0 when every mirror failed (no network): look at the lists.
	ls "$state"/lists/*_Packages* >/dev/null 2>&1 || {
		echo "apt-get update ($debarch lists) got none: $(grep -A1 '^Err:' "$log" | head -n 2 | tr -s ' \n' ' ')" >&2
		exit 1
	}
fi

# The kernel package the metapackage points at: linux-image-6.1.0-NN-<arch>.
# shellcheck disable=SC2086
kpkg=$(apt-cache $apt_opts depends "linux-image-$debarch" 2>>"$log" |
	sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -n 1)
[ -n "$kpkg" ] || {
	echo "cannot resolve linux-image-$debarch with apt-cache ($(grep -E '^(E|W|Err):' "$log" | tail -n 1))" >&2
	exit 1
}
pkgs="$kpkg busybox-static"
[ "$arch" = arm64 ] && pkgs="$pkgs libfdt-dev"
echo "fetching $pkgs ($debarch)" >>"$log"
# shellcheck disable=SC2086
(cd "$dir/debs" && rm -f ./*.deb && apt-get $apt_opts -q download $pkgs) >>"$log" 2>&1 ||
	{ echo "apt-get download $pkgs: $(grep -E '^(E|W):' "$log" | tail -n 1)" >&2; exit 1; }

# Unpack only what the initramfs needs.
unpack() { # PACKAGE-GLOB DEST PATHS...
	deb=$(ls "$dir"/debs/"$1"_*.deb) && dest=$2 && shift 2 && mkdir -p "$dest" &&
		dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$dest" --wildcards "$@"
}
rm -rf "$dir/x" "$dir/modules" "$dir/libfdt"
if ! unpack busybox-static "$dir/x" ./bin/busybox >>"$log" 2>&1 ||
	! mv "$dir/x/bin/busybox" "$dir/busybox"; then
	echo "unpacking busybox failed" >&2
	exit 1
fi
case $arch in
x86_64)
	unpack "$kpkg" "$dir/x" './boot/vmlinuz-*' '*/irqbypass.ko' '*/kvm.ko' '*/ccp.ko' \
		'*/kvm-amd.ko' >>"$log" 2>&1 || { echo "unpacking $kpkg failed" >&2; exit 1; }
	mkdir -p "$dir/modules"
	find "$dir/x" -name '*.ko' -exec mv {} "$dir/modules/" \;
	mv "$dir"/x/boot/vmlinuz-* "$dir/kernel"
	;;
arm64)
	unpack "$kpkg" "$dir/x" './boot/vmlinuz-*' >>"$log" 2>&1 ||
		{ echo "unpacking $kpkg failed" >&2; exit 1; }
	mv "$dir"/x/boot/vmlinuz-* "$dir/kernel"
	unpack libfdt-dev "$dir/libfdt" './usr/include/*' './usr/lib/*/libfdt.a' >>"$log" 2>&1 ||
		{ echo "unpacking libfdt-dev failed" >&2; exit 1; }
	;;
esac
rm -rf "$dir/x" "$dir/debs"
echo "$kpkg" >"$dir/.fetched"
