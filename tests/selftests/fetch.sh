#!/bin/sh
# tests/selftests/fetch.sh [OUT] - Linux's mm selftests, unmodified, as
# static glibc programs for ptelab's user space: fetch Debian 12's
# linux-source-6.12 (the security archive carries it), unpack the parts a
# headers_install and the selftests need (mm/gup_test.h too: cow.c's
# ioctls), install each arch's UAPI headers, and compile the programs of PROGS (tools/testing/selftests/mm,
# each with vm_util.c and thp_settings.c, Linux's own flags) with gcc for
# x86_64 and aarch64-linux-gnu-gcc for arm64. The programs of NUMA_PROGS
# link Debian's static libnuma too (libnuma-dev of each arch, fetched with
# apt-get download and unpacked into OUT/numa-ARCH, never installed);
# without it they are left out with one "SKIP" line.
#
#   OUT/src/linux-source-6.12   the unpacked subset of the tree
#   OUT/hdr-ARCH                make headers_install's output
#   OUT/numa-ARCH               libnuma-dev's headers and libnuma.a
#   OUT/ARCH/bin/PROG           the programs: run=exec:/bin/PROG with
#                               ptelab --initramfs OUT/ARCH
#   OUT/VERSION                 the Debian version the programs came from
#
# OUT defaults to build/selftests. Nothing is redone when OUT/.built is
# newer than this script. Exit 0 when the programs are there; 3 with one
# line "SKIP: reason" when the sources cannot be had (no network, no apt,
# no such package); 1 when a step that should work fails.
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${1:-$TOP/build/selftests}
PKG=linux-source-6.12
PROGS="madv_populate map_fixed_noreplace mkdirty cow"
NUMA_PROGS="migration"
SRC=$OUT/src/$PKG

skip() { echo "SKIP: $*"; exit 3; }
die() { echo "selftests/fetch: $*" >&2; exit 1; }

[ "$OUT/.built" -nt "$0" ] && exit 0
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) && SRC=$OUT/src/$PKG || die "cannot create $OUT"
. "$TOP/tests/debfetch.sh"

# fetch_source: the package into OUT/debs and its tree into SRC. The
# machine's own lists are used (the package is arch "all"); when they do
# not know it, one apt-get update as root.
fetch_source() {
	debfetch_init "$(uname -m | sed 's/aarch64/arm64/')" "$OUT" 2>"$OUT/why" ||
		skip "$(cat "$OUT/why")"
	if ! apt-cache show "$PKG" >/dev/null 2>&1; then
		[ "$(id -u)" = 0 ] || skip "apt does not know $PKG and we are not root to apt-get update"
		apt-get -q update >>"$DEB_LOG" 2>&1
		apt-cache show "$PKG" >/dev/null 2>&1 ||
			skip "$PKG is in no apt list (bookworm-security in sources.list?)"
	fi
	debfetch_download "$OUT" "$PKG" 2>"$OUT/why" || skip "$(cat "$OUT/why")"
	rm -rf "$OUT/src" "$OUT/deb" && mkdir -p "$OUT/src" || return 1
	debfetch_unpack "$OUT" "$PKG" "$OUT/deb" "./usr/src/$PKG.tar.xz" || return 1
	# What headers_install and tools/testing/selftests read; drivers/,
	# fs/, sound/ and the other arches stay packed.
	tar -xJf "$OUT/deb/usr/src/$PKG.tar.xz" -C "$OUT/src" \
		"$PKG/Makefile" "$PKG/scripts" "$PKG/include" "$PKG/arch/x86" "$PKG/arch/arm64" \
		"$PKG/tools" "$PKG/usr" "$PKG/mm/gup_test.h" || return 1
	dpkg-deb -f "$(ls "$OUT"/debs/"$PKG"_*.deb)" Version >"$OUT/VERSION" || return 1
	rm -rf "$OUT/deb" "$OUT/debs"
}

# fetch_numa ARCH: libnuma-dev of ARCH into OUT/numa-ARCH (kept across
# rebuilds); non-zero with the reason in OUT/numa-ARCH.why.
fetch_numa() {
	[ -f "$OUT/numa-$1/usr/include/numa.h" ] && return 0
	(debfetch_init "$1" "$OUT/numa-dl-$1" && debfetch_download "$OUT/numa-dl-$1" libnuma-dev &&
		debfetch_unpack "$OUT/numa-dl-$1" libnuma-dev "$OUT/numa-$1" './usr/include/*' './usr/lib/*') \
		2>"$OUT/numa-$1.why"
	rc=$?
	rm -rf "$OUT/numa-dl-$1"
	return $rc
}

# cc_prog ARCH CC PROG [FLAGS...]: tools/testing/selftests/mm/Makefile's
# CFLAGS and LDLIBS, plus -static, and FLAGS (before the libraries).
cc_prog() {
	a=$1 cc=$2 p=$3
	shift 3
	(cd "$st" && "$cc" -Wall -O2 -I "$SRC" -isystem "$OUT/hdr-$a/include" \
		-isystem "$SRC/tools/include/uapi" -U_FORTIFY_SOURCE -static \
		-o "$OUT/$a/bin/$p" "$p.c" vm_util.c thp_settings.c "$@" \
		-lrt -lpthread -lm) >"$OUT/cc-$a-$p.log" 2>&1 ||
		die "$a: compiling $p failed: $(tail -n 3 "$OUT/cc-$a-$p.log")"
}

# build_arch ARCH KARCH CC: ARCH's headers, then each program.
build_arch() {
	rm -rf "$OUT/obj-$1" "$OUT/hdr-$1" "$OUT/$1" && mkdir -p "$OUT/obj-$1" "$OUT/$1/bin" || return 1
	make -s -C "$SRC" O="$OUT/obj-$1" ARCH="$2" INSTALL_HDR_PATH="$OUT/hdr-$1" \
		headers_install >"$OUT/headers-$1.log" 2>&1 ||
		die "$1: make headers_install failed: $(tail -n 3 "$OUT/headers-$1.log")"
	rm -rf "$OUT/obj-$1"
	command -v "$3" >/dev/null || die "$1: $3 is not installed (make deps)"
	st=$SRC/tools/testing/selftests/mm
	# The selftests Makefile's own probe (liburing) writes local_config.h
	# for this compiler; cow.c includes it.
	(cd "$st" && sh ./check_config.sh "$3") || die "$1: check_config.sh failed"
	for p in $PROGS; do
		cc_prog "$1" "$3" "$p"
	done
	if ! fetch_numa "$1"; then
		echo "  SKIP    $1: $NUMA_PROGS: no libnuma-dev: $(tail -n 1 "$OUT/numa-$1.why")"
		return 0
	fi
	lib=$(find "$OUT/numa-$1/usr/lib" -name libnuma.a | head -n 1)
	for p in $NUMA_PROGS; do
		cc_prog "$1" "$3" "$p" -isystem "$OUT/numa-$1/usr/include" "${lib%/*}/libnuma.a"
	done
}

rm -f "$OUT/.built"
if [ ! -f "$SRC/tools/testing/selftests/mm/vm_util.c" ] || [ ! -f "$SRC/mm/gup_test.h" ]; then
	echo "  FETCH   $PKG (about 150 MB, once; log in $OUT/fetch.log)"
	fetch_source || die "unpacking $PKG failed (log: $OUT/fetch.log)"
fi
echo "  BUILD   selftests/mm: $PROGS $NUMA_PROGS ($(cat "$OUT/VERSION"); x86_64, arm64)"
build_arch x86_64 x86 gcc
build_arch arm64 arm64 aarch64-linux-gnu-gcc
touch "$OUT/.built"
