#!/bin/sh
# tests/demo.sh ARCH - the `make run` demo: boot the guest and show the
# machine it sees. Later parts add batching tables here.
TOP=$(cd "$(dirname "$0")/.." && pwd)
arch=${1:-x86_64}
echo "== ptelab demo ($arch): booting the guest; it prints the machine it was given"
exec "$TOP/build/ptelab" --arch "$arch" --mem 1G --nodes 2 --timing run=hello
