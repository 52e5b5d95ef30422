#!/bin/sh
# tests/user/run.sh - user programs (tests/user/*.c, static glibc) run by
# run=exec:PATH from an initramfs: output, exit status, the -ENOSYS
# counts, a fault that ends the process and not the kernel, a truncated
# ELF refused, and --initramfs's checks before boot. x86_64 and arm64 on
# QEMU TCG (x86_64 also on KVM where usable).
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/user/cases.sh
. "$TOP/tests/user/cases.sh"

USER=$TOP/build/user

# mkcpio DIR OUT: DIR's files (one level of subdirectories) as a newc
# archive written by the shell, so that a ready archive is tested with
# bytes ptelab did not write.
mkcpio() {
	ino=100
	: >"$2"
	(cd "$1" && find . -mindepth 1 | sort) | while read -r p; do
		name=${p#./}
		if [ -d "$1/$p" ]; then mode=040755 size=0; else mode=0100755 size=$(wc -c <"$1/$p"); fi
		cpio_member "$2" "$name" "$mode" "$size" "$1/$p"
	done
	cpio_member "$2" "TRAILER!!!" 0 0 ""
}

# cpio_member OUT NAME MODE SIZE FILE: one header, name, padding, body, padding.
cpio_member() {
	nlen=$((${#2} + 1))
	printf '070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X' \
		$((ino = ino + 1)) $((0$3)) 0 0 1 0 "$4" 0 0 0 0 "$nlen" 0 >>"$1"
	printf '%s\000' "$2" >>"$1"
	head -c $(((4 - (110 + nlen) % 4) % 4)) /dev/zero >>"$1"
	[ "$4" -gt 0 ] && cat "$5" >>"$1"
	head -c $(((4 - $4 % 4) % 4)) /dev/zero >>"$1"
}

# lbench_case ARCH DIR: lbench, the binary `make compare` boots Linux with,
# as a ptelab user process: its micro-benchmarks must print one valid
# RESULT line per row (syscall; ufault at every fault size: 4K to 1M and
# 2M-pmd), each with the asked folio size found through
# /proc/self/pagemap and /proc/kpageflags (folio_ok true), no failed row.
# The figures (TCG wall time) are not checked.
lbench_case() {
	n="$1: lbench"
	user_case $1 "lbench" 0 "$2" -- run=exec:/bin/lbench -- bench=syscall,ufault size=2 reps=1 \
		clock=host || return 1
	lb_ok=$(grep -Ec '^RESULT \{"bench":"(syscall|ufault)",.*"median_us":[0-9.]+,.*"folio_ok":true,' "$TMPD/out")
	[ "$lb_ok" -eq 10 ] || { fail "$n" "$lb_ok of 10 RESULT lines valid with folio_ok true: $(grep -E '^RESULT|^lbench' "$TMPD/out" | grep -v 'folio_ok":true' | head -n 2 | cut -c1-300 | tr '\n' '|')"; return 1; }
	out_lacks "$n" "folio_ok\":false|^lbench: .* failed" && out_has "$n" "^lbench: done\$" &&
		pass "$n: syscall, ufault 4K..1M and 2M-pmd: 10 RESULT lines, every folio the asked size (pagemap + kpageflags)"
}

# arch_cases ARCH: the programs of build/user/ARCH on QEMU TCG.
arch_cases() {
	a=$1 ifs=$USER/$1
	hello_cases $a "$ifs"
	user_case $a "mm" 0 "$ifs" run=exec:/bin/mm && out_has "$a: mm" "^mm: ok\$" &&
		pass "$a: mm: mmap 2M, touch, mprotect, DONTNEED, FIXED_NOREPLACE, POPULATE, file map, munmap, brk"
	user_case $a "proc" 0 "$ifs" run=exec:/bin/proc && out_has "$a: proc" "^proc: ok\$" &&
		pass "$a: proc: /proc/self/pagemap (present, exclusive, PFNs of a 2M folio, EINVAL), maps, smaps"
	user_case $a "kpf" 0 "$ifs" run=exec:/bin/kpf && out_has "$a: kpf" "^kpf: ok\$" &&
		pass "$a: kpf: /proc/kpageflags (PMD THP and 64K mTHP head/tails with THP, a 4K page, EOF, EINVAL), /proc/vmstat pgfault, smaps_rollup"
	procmem_cases $a "$ifs"
	user_case $a "segv" 139 "$ifs" run=exec:/bin/segv &&
		out_has "$a: segv" "^exec: pid 1 killed by signal 11 \(SIGSEGV\) at address 0x[0-9a-f]+001," &&
		pass "$a: segv: a store to a read-only page ends the process with 139, the kernel goes on"
	sig_cases $a "$ifs"
	user_case $a "enosys" 0 "$ifs" run=exec:/bin/enosys &&
		out_has "$a: enosys" "^exec: unknown system call 1000: 2 time\(s\), -ENOSYS\$" &&
		out_has "$a: enosys" "^exec: unknown system call >=1024: 1 time\(s\), -ENOSYS\$" &&
		pass "$a: enosys: unknown numbers return -ENOSYS and are counted per number"
	fork_cases $a "$ifs"
	thread_cases $a "$ifs"
	lbench_case $a "$ifs"
	mkdir -p "$TMPD/bad-$a/bin"
	head -c 3000 "$ifs/bin/hello" >"$TMPD/bad-$a/bin/truncated"
	user_case $a "truncated ELF" 126 "$TMPD/bad-$a" run=exec:/bin/truncated &&
		out_has "$a: truncated ELF" "^exec: /bin/truncated: .*truncated\?" &&
		pass "$a: a truncated ELF is refused with a reason and status 126, no panic"
	user_case $a "missing program" 127 "$TMPD/bad-$a" run=exec:/bin/none &&
		out_has "$a: missing program" "no such file in the initramfs" &&
		pass "$a: a missing program: status 127"
	mkdir -p "$TMPD/cpio-$a/bin" && cp "$ifs/bin/hello" "$TMPD/cpio-$a/bin/"
	mkcpio "$TMPD/cpio-$a" "$TMPD/ready-$a.cpio"
	user_case $a "ready cpio" 0 "$TMPD/ready-$a.cpio" run=exec:/bin/hello &&
		out_has "$a: ready cpio" "^hello from user space: argc=1" &&
		pass "$a: --initramfs FILE: a newc archive written by the shell"
}

vmm_cases() {
	name="--initramfs: a missing path is refused before boot"
	expect_status "$name" 2 "$PTELAB" --backend qemu --initramfs "$TMPD/none" run=exec:/bin/hello &&
		out_has "$name" "^ptelab: --initramfs: .*No such file" && pass "$name"
	name="--initramfs: a file that is not newc is refused before boot"
	expect_status "$name" 2 "$PTELAB" --backend qemu --initramfs "$USER/x86_64/bin/hello" \
		run=exec:/bin/hello && out_has "$name" "not a cpio newc archive" && pass "$name"
	name="--initramfs: an archive cut short is refused before boot"
	head -c 200 "$TMPD/ready-x86_64.cpio" >"$TMPD/short.cpio"
	expect_status "$name" 2 "$PTELAB" --backend qemu --initramfs "$TMPD/short.cpio" \
		run=exec:/bin/hello && out_has "$name" "cut short at byte" && pass "$name"
	name="run=exec without --initramfs is refused before boot"
	expect_status "$name" 2 "$PTELAB" --backend qemu run=exec:/bin/hello &&
		out_has "$name" "^ptelab: exec: no initramfs" && pass "$name"
	name="run=exec:relative is refused before boot"
	expect_status "$name" 2 "$PTELAB" --backend qemu run=exec:bin/hello &&
		out_has "$name" "PATH must be absolute" && pass "$name"
}

if ! have_cmd qemu-system-x86_64; then
	skip "x86_64" "qemu-system-x86_64 not installed"
elif [ ! -x "$USER/x86_64/bin/hello" ] || [ ! -x "$PTELAB" ]; then
	fail "x86_64" "build/user/x86_64 or ptelab not built (make)"
else
	arch_cases x86_64
	vmm_cases
	if have_kvm x86_64; then
		BACKEND=kvm user_case x86_64 "kvm hello" 5 "$USER/x86_64" -- run=exec:/bin/hello -- kvm 5 &&
			out_has "x86_64: kvm hello" "^argv\[1\]=kvm\$" && pass "x86_64: hello on KVM"
	else
		skip "x86_64: hello on KVM" "$kvm_why"
	fi
fi
if ! have_cmd qemu-system-aarch64; then
	skip "arm64" "qemu-system-aarch64 not installed"
elif [ ! -x "$USER/arm64/bin/hello" ] || [ ! -x "$PTELAB" ]; then
	fail "arm64" "build/user/arm64 or ptelab not built (make)"
else
	arch_cases arm64
	# The process runs on the boot CPU; the others idle with the GIC set
	# up, so an interrupt taken at EL0 is possible.
	user_case arm64 "hello on 2 CPUs" 3 "$USER/arm64" --cpus 2 -- run=exec:/bin/hello -- b 3 &&
		out_has "arm64: hello on 2 CPUs" "^argv\[2\]=3\$" && pass "arm64: hello with --cpus 2"
	# The arch's own EL0 checks: hand-written programs (tests/guest/arm64/test_user.c).
	name="arm64: run=selftest:arm64_user on 2 CPUs"
	expect_status "$name" 0 "$PTELAB" --backend qemu --arch arm64 --cpus 2 --timeout 60 \
		run=selftest:arm64_user && out_has "$name" "^6 passed, 0 failed\$" && pass "$name"
fi
summary
