#!/bin/sh
# tests/boot/run.sh - boot the guest on every backend this machine has and
# check what it reports: exact memory and nodes, exit statuses, selftest.
# A missing backend prints SKIP for each of its cases. KVM: the host's arch.
. "$(dirname "$0")/../lib.sh"

# backend_ok NAME: can this machine run backend NAME? Sets $why if not.
backend_ok() {
	case $1 in
	kvm-*) have_kvm "${1#kvm-}" || { why="KVM backend not usable: $kvm_why"; return 1; } ;;
	qemu-x86_64) have_cmd qemu-system-x86_64 || { why="qemu-system-x86_64 not installed"; return 1; } ;;
	qemu-arm64) have_cmd qemu-system-aarch64 || { why="qemu-system-aarch64 not installed"; return 1; } ;;
	esac
	[ -x "$PTELAB" ] || { why="$PTELAB is not built"; return 1; }
	return 0
}

backend_args() {
	case $1 in
	kvm-x86_64) echo "--backend kvm --arch x86_64" ;;
	kvm-arm64) echo "--backend kvm --arch arm64" ;;
	qemu-x86_64) echo "--backend qemu --arch x86_64" ;;
	qemu-arm64) echo "--backend qemu --arch arm64" ;;
	esac
}

# hello_case BACKEND MEM NODES WANT_MIB WANT_NODE_SIZE
hello_case() {
	be=$1 mem=$2 nodes=$3 want=$4 nodesz=$5
	name="$be: hello --mem $mem --nodes $nodes"
	# shellcheck disable=SC2046
	expect_status "$name" 0 "$PTELAB" $(backend_args "$be") --mem "$mem" --nodes "$nodes" \
		--timeout 60 run=hello || return
	out_has "$name" "^memory: $want MiB in $nodes nodes?\$" || return
	n=$(grep -cE "^node [0-9]+:.* $nodesz\$" "$TMPD/out")
	[ "$n" -eq "$nodes" ] || { fail "$name" "$n of $nodes nodes report $nodesz"; return; }
	out_has "$name" "^cmdline: run=hello\$" || return
	out_has "$name" "^timer: [1-9][0-9]* kHz" || return
	pass "$name"
}

# status_case BACKEND WANT ARGS...: the guest's status passes through.
status_case() {
	be=$1 want=$2
	shift 2
	name="$be: $* -> exit $want"
	# shellcheck disable=SC2046
	expect_status "$name" "$want" "$PTELAB" $(backend_args "$be") --timeout 60 "$@" && pass "$name"
}

selftest_case() {
	be=$1
	name="$be: selftest"
	# shellcheck disable=SC2046
	expect_status "$name" 0 "$PTELAB" $(backend_args "$be") --timeout 300 run=selftest || return
	out_has "$name" "^[1-9][0-9]* passed, 0 failed\$" && pass "$name"
}

# KVM runs the guest of the host's arch.
case $(uname -m) in
aarch64 | arm64) kvm_be=kvm-arm64 ;;
*) kvm_be=kvm-x86_64 ;;
esac
for be in $kvm_be qemu-x86_64 qemu-arm64; do
	if ! backend_ok "$be"; then
		for c in hello-1G-2 hello-768M-3 hello-big exit selftest usage; do
			skip "$be: $c" "$why"
		done
		continue
	fi
	hello_case "$be" 1G 2 1024 "512 MiB"
	hello_case "$be" 768M 3 768 "256 MiB"
	hello_case "$be" 5G 1 5120 "5 GiB"
	status_case "$be" 0 run=exit:0
	status_case "$be" 5 run=hello,exit:5
	selftest_case "$be"
	name="$be: unknown command -> exit 2"
	# shellcheck disable=SC2046
	expect_status "$name" 2 "$PTELAB" $(backend_args "$be") --timeout 60 run=nosuchcommand &&
		out_has "$name" "unknown command 'nosuchcommand'" && pass "$name"
done
summary
