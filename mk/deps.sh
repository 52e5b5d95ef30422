#!/bin/sh
# mk/deps.sh BUILD_DIR PACKAGE... - make sure the Debian packages are
# installed: as root with apt-get, install the missing ones (one line on the
# terminal, apt's output in BUILD_DIR/apt.log); otherwise print the command
# to run and fail. The Makefile runs it (as $(DEPS_INSTALL)) before it asks
# any of the installed tools anything.
set -u
build=$1
shift
missing=""
for p in "$@"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
	echo "ptelab needs these Debian packages; run:"
	echo "  sudo apt-get install -y$missing"
	exit 1
fi
mkdir -p "$build"
start=$(date +%s)
echo "  APT     installing:$missing (about 2 minutes; log in $build/apt.log)"
if ! { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing; } \
	>"$build/apt.log" 2>&1; then
	tail -n 20 "$build/apt.log"
	exit 1
fi
echo "  APT     done in $(($(date +%s) - start)) s"
