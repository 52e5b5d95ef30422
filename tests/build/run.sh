#!/bin/sh
# tests/build/run.sh - the first build on a fresh machine. A fresh clone is
# built with a PATH in which the arm64 cross compiler does not exist yet and
# a stand-in package installer (DEPS_INSTALL) that makes it appear, as
# apt-get would, in the middle of the same make. Every arm64 compile must
# then see the compiler's own headers: nothing about a tool may be asked
# before the packages are installed. newlib is borrowed from this tree's
# build (it is slow to build and not what is being tested).
. "$(dirname "$0")/../lib.sh"

NL=$TOP/build/newlib
name="fresh clone: make compiles arm64 with a cross compiler installed mid-build"
if ! have_cmd aarch64-linux-gnu-gcc || ! have_cmd git || ! have_cmd tar || [ ! -f "$NL/.built-aarch64-elf" ]; then
	skip "$name" "needs aarch64-linux-gnu-gcc, git, tar and build/newlib (run make first)"
	summary
	exit
fi

# A bin directory with everything in /usr/bin and /bin but the cross tools.
shim=$TMPD/bin
mkdir -p "$shim"
for d in /usr/local/bin /usr/bin /bin; do
	for f in "$d"/*; do
		b=${f##*/}
		case $b in aarch64-linux-gnu-*) continue ;; esac
		[ -e "$shim/$b" ] || ln -s "$f" "$shim/$b"
	done
done
# The stand-in installer: links the cross tools in, as apt-get would.
cat >"$TMPD/install.sh" <<EOS
#!/bin/sh
echo "installer ran; cross compiler before: \$(command -v aarch64-linux-gnu-gcc || echo none)" >"$TMPD/installer.log"
for f in /usr/bin/aarch64-linux-gnu-*; do ln -sf "\$f" "$shim/\${f##*/}"; done
EOS

# The clone: every file git knows or would add, as the work tree has it.
mkdir -p "$TMPD/clone/build"
(cd "$TOP" && git ls-files -co --exclude-standard -z | xargs -0 tar -cf -) | tar -C "$TMPD/clone" -xf - ||
	{ fail "$name" "cannot copy the tree"; summary; exit; }
ln -s "$NL" "$TMPD/clone/build/newlib"
obj=build/arm64/obj/guest/main.c.o
if PATH=$shim command -v aarch64-linux-gnu-gcc >/dev/null; then
	fail "$name" "the shim PATH still has the cross compiler"
elif ! (cd "$TMPD/clone" && PATH=$shim make "$obj" DEPS_INSTALL="sh $TMPD/install.sh") \
	>"$TMPD/out" 2>&1; then
	fail "$name" "make failed: $(tail -n 4 "$TMPD/out" | tr '\n' '|')"
elif ! grep -q "before: none" "$TMPD/installer.log" 2>/dev/null; then
	fail "$name" "the installer did not run before the compiler existed: $(cat "$TMPD/installer.log" 2>&1)"
elif grep -q "No such file" "$TMPD/out"; then
	fail "$name" "make looked for a missing tool: $(grep "No such file" "$TMPD/out" | head -n 2 | tr '\n' '|')"
elif [ ! -s "$TMPD/clone/$obj" ]; then
	fail "$name" "$obj was not built"
else
	libgcc=$(sed -n 's/^LIBGCC_arm64 := //p' "$TMPD/clone/build/toolchain.mk")
	if [ -f "$libgcc" ]; then pass "$name"; else fail "$name" "LIBGCC_arm64 is '$libgcc'"; fi
fi
summary
