#!/bin/sh
# Build newlib once for one guest arch from Debian's newlib-source tarball.
# usage: build-newlib.sh ARCH OUTDIR
# ARCH is x86_64 or arm64; the result is OUTDIR/install/<triple>/{include,lib}.
# A stamp file makes a second call a no-op.
set -eu
arch=$1
mkdir -p "$2"; out=$(cd "$2" && pwd)
tarball=$(ls /usr/src/newlib/newlib-*.tar.* 2>/dev/null | head -n 1)
[ -n "$tarball" ] || { echo "build-newlib: newlib-source is not installed (apt-get install newlib-source)" >&2; exit 1; }
common="-O2 -g -ffreestanding -fno-pie -fno-stack-protector -fno-builtin -D_POSIX_MODE=0"
case $arch in
x86_64)
	triple=x86_64-elf
	cc=gcc ar=ar ranlib=ranlib as=as ld=ld
	flags="$common -mno-red-zone -mcmodel=kernel"
	;;
arm64)
	triple=aarch64-elf
	cc=aarch64-linux-gnu-gcc ar=aarch64-linux-gnu-ar ranlib=aarch64-linux-gnu-ranlib
	as=aarch64-linux-gnu-as ld=aarch64-linux-gnu-ld
	flags="$common"
	;;
*) echo "build-newlib: unknown arch $arch" >&2; exit 1 ;;
esac
stamp=$out/.built-$triple
[ -f "$stamp" ] && exit 0
mkdir -p "$out"
src=$out/src
if [ ! -d "$src" ]; then
	rm -rf "$out/src.tmp" && mkdir -p "$out/src.tmp"
	tar -C "$out/src.tmp" -xf "$tarball"
	mv "$out/src.tmp"/newlib-* "$src" && rmdir "$out/src.tmp"
fi
obj=$out/obj-$triple
rm -rf "$obj" && mkdir -p "$obj"
start=$(date +%s)
echo "  NEWLIB  $triple (once; 2 to 5 minutes on 2 cores; logs in $obj)"
cd "$obj"
"$src/configure" --target=$triple --prefix="$out/install" \
	--disable-multilib --disable-newlib-supplied-syscalls \
	--enable-newlib-nano-malloc --disable-nls --disable-libgloss \
	CC_FOR_TARGET="$cc" AR_FOR_TARGET="$ar" RANLIB_FOR_TARGET="$ranlib" \
	AS_FOR_TARGET="$as" LD_FOR_TARGET="$ld" CFLAGS_FOR_TARGET="$flags" \
	>"$obj/configure.log" 2>&1 || { tail -n 30 "$obj/configure.log" >&2; exit 1; }
make -j"$(nproc)" all-target-newlib >"$obj/make.log" 2>&1 || { tail -n 40 "$obj/make.log" >&2; exit 1; }
make install-target-newlib >"$obj/install.log" 2>&1 || { tail -n 20 "$obj/install.log" >&2; exit 1; }
touch "$stamp"
echo "  NEWLIB  $triple done in $(($(date +%s) - start)) s"
