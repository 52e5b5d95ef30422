# shellcheck shell=sh
# tests/user/cases.sh - the checks of the user programs (tests/user/*.c)
# that more than one stage runs, sourced after tests/lib.sh: by
# tests/user/run.sh on QEMU TCG and by tests/kvm/cases.sh on the nested
# KVM. BACKEND (default qemu) is ptelab's --backend; each function takes
# ARCH and the initramfs (a directory or an archive) and prints its cases.

# user_case ARCH NAME WANT_STATUS INITRAMFS RUN_ARGS...: boot, check the
# status, and that no panic and no tick taken twice (kernel/preempt.c) showed.
# ARCH may carry the backend (kvm-arm64): the cases are named by it.
user_case() {
	uc_arch=${1#kvm-} uc_name="$1: $2" uc_want=$3 uc_ifs=$4
	shift 4
	expect_status "$uc_name" "$uc_want" "$PTELAB" --backend "${BACKEND:-qemu}" --arch "$uc_arch" \
		--timeout 60 --initramfs "$uc_ifs" "$@" || return 1
	out_lacks "$uc_name" "panic|unhandled exception|interrupt was taken twice" || return 1
}

# hello_cases ARCH INITRAMFS: glibc's startup, argv, envp, the status.
hello_cases() {
	user_case "$1" "hello with arguments, status from main" 7 "$2" -- run=exec:/bin/hello -- a 7 &&
		out_has "$1: hello" "^hello from user space: argc=3" &&
		out_has "$1: hello" "^argv\[1\]=a\$" && out_has "$1: hello" "^HOME=/\$" &&
		out_lacks "$1: hello" "unknown system call" &&
		pass "$1: hello: glibc's startup and printf, argv, envp, exit status 7"
}

# procmem_cases ARCH INITRAMFS: /proc/self/mem and the policy calls.
procmem_cases() {
	user_case "$1" "procmem" 0 "$2" run=exec:/bin/procmem && out_has "$1: procmem" "^procmem: ok\$" &&
		pass "$1: procmem: /proc/self/mem writes into read-only pages (4K, THP) stay read-only; hpage_pmd_size; mbind, get_mempolicy, move_pages, capget/capset; MADV_PAGEOUT to swap and back"
}

# fork_cases ARCH INITRAMFS: forktest (tests/user/forktest.c), every
# case named in the output; then pid 1 exiting before its children.
fork_cases() {
	a=$1 n="$1: forktest"
	user_case "$a" "forktest" 0 "$2" run=exec:/bin/forktest || return 1
	for c in cow pipe pipe_refcount many segv zombie wnohang echild dup2 fcntl vfork clone orphan sigchld sigpipe; do
		out_has "$n" "^forktest: $c ok\$" || return 1
	done
	out_has "$n" "^forktest: 0 failed\$" &&
		out_has "$n" "^exec: pid [0-9]+ killed by signal 11 \(SIGSEGV\)" &&
		out_has "$n" "^exec: unknown system call (56|220): 1 time\(s\), -ENOSYS\$" &&
		pass "$n: fork+COW, 200 KiB pipe, 20 children, a child's SIGSEGV, zombie, WNOHANG, ECHILD, dup2, fcntl, vfork, clone tids, CLONE_VM -ENOSYS, orphan to pid 1, SIGCHLD (CLD_EXITED, CLD_KILLED), SIGPIPE"
	user_case "$a" "forktest late" 0 "$2" -- run=exec:/bin/forktest -- late &&
		out_has "$n late" "^forktest: late child 2 ran after pid 1 exited, parent 1\$" &&
		pass "$n: a child outlives pid 1 and runs to its end"
	user_case "$a" "forktest stuck" 0 "$2" -- run=exec:/bin/forktest -- stuck &&
		out_has "$n stuck" "^exec: 1 process\(es\) blocked with nothing to wake them: killed\$" &&
		pass "$n: a child blocked for good after pid 1 exited is killed, the run ends"
	user_case "$a" "forktest stuck_init" 137 "$2" -- run=exec:/bin/forktest -- stuck_init &&
		out_has "$n stuck_init" "^exec: 1 process\(es\) blocked with nothing to wake them: killed\$" &&
		out_lacks "$n stuck_init" "read returned" &&
		pass "$n: pid 1 blocked for good is killed: status 137"
}

# thread_cases ARCH INITRAMFS: preemption of user code (preempt.c: two
# processes spinning in user space on each other, which never ends
# without the tick), threads (threads.c: every case named), and
# migration's private_anon and private_anon_thp done by ptelab's own
# migthreads.c (Linux's migration.c needs MAP_SHARED for its harness).
# A third argument "quick" leaves out shared and migthreads (the nested
# KVM stage of make test: 4 vCPUs on one nested CPU make them its longest
# cases; make stress and the user stage run them).
thread_cases() {
	user_case "$1" "preempt" 0 "$2" run=exec:/bin/preempt &&
		out_has "$1: preempt" "^preempt: ok 20 rounds\$" &&
		pass "$1: preempt: two processes spinning in user space take turns (timer tick, round robin)"
	user_case "$1" "preempt fifo" 0 "$2" -- run=exec:/bin/preempt -- fifo &&
		out_has "$1: preempt fifo" "^preempt: fifo ok\$" &&
		pass "$1: preempt fifo: the tick does not preempt a SCHED_FIFO process for its child"
	n="$1: threads"
	user_case "$1" "threads" 0 "$2" --cpus 2 run=exec:/bin/threads || return 1
	for c in create_join mutex cancel tgkill futex_timeout fork affinity exit_group; do
		out_has "$n" "^threads: $c ok\$" || return 1
	done
	out_has "$n" "^threads: sched_getaffinity: 2 CPU\(s\)\$" && out_has "$n" "^threads: 0 failed\$" &&
		out_has "$n" "^exec: unknown system call 1000: 1 time\(s\), -ENOSYS\$" &&
		[ "$(grep -c 'unknown system call' "$TMPD/out")" = 1 ] &&
		pass "$n: pthread create/join, a mutex counter over 4 threads, cancel of a spinning thread, tgkill, futex timeout, fork from a thread, sched_getaffinity, exit_group from a thread (its -ENOSYS count printed)"
	[ "${3:-}" = quick ] && return 0
	user_case "$1" "shared" 0 "$2" --nodes 2 run=exec:/bin/shared && out_has "$1: shared" "^shared: ok\$" &&
		pass "$1: shared: MAP_SHARED|MAP_ANONYMOUS: parent and fork child see each other's writes, munmap in one keeps the other's data, maps rw-s, pagemap file/not exclusive, move_pages MOVE_ALL of a page both map; file MAP_SHARED EINVAL, MAP_HUGETLB ENOMEM"
	for m in anon thp; do
		user_case "$1" "migthreads $m" 0 "$2" --cpus 4 --nodes 2 -- run=exec:/bin/migthreads -- $m &&
			out_has "$1: migthreads $m" "^migthreads: $m ok [0-9]+ moves\$" &&
			pass "$1: migthreads $m: 3 threads read a 2M buffer ($m) while move_pages moves it between nodes for 2 s; cancel, join, data intact"
	done
}

# sig_picked CASE: is CASE in SIG_CASES (or SIG_CASES empty)?
sig_picked() {
	[ -z "${SIG_CASES:-}" ] && return 0
	case " $SIG_CASES " in
	*" $1 "*) return 0 ;;
	esac
	return 1
}

# sig_cases ARCH DIR: signal delivery (tests/user/sigtest.c), one boot a
# case; SIG_CASES (a word list, default all) picks cases by name.
sig_cases() {
	while read -r c what; do
		sig_picked "$c" || continue
		user_case "$1" "sigtest $c" 0 "$2" -- run=exec:/bin/sigtest -- "$c" </dev/null &&
			out_has "$1: sigtest $c" "^sigtest $c: ok\$" && pass "$1: sigtest $c: $what"
	done <<-EOF
		longjmp SIGSEGV handler (si_addr, ACCERR, MAPERR), siglongjmp out, page unmodified, mask restored
		resume rt_sigreturn resumes the store after mprotect; GPRs and FP/SIMD registers restored from the frame
		kill kill/raise to itself: handler, blocked then unblocked, SIG_IGN, SA_RESETHAND, errors
		altstack sigaltstack: SA_ONSTACK handler on it, SS_ONSTACK and EPERM inside
		badframe rt_sigreturn of a frame Linux refuses: SIGSEGV (SI_KERNEL) to the handler, no kernel fault
		traps SIGILL, SIGTRAP (and SIGFPE on x86) handlers: si_code, si_addr, trapno/ESR, PC changed in the frame
	EOF
	sig_picked dfl && user_case "$1" "sigtest dfl" 138 "$2" -- run=exec:/bin/sigtest -- dfl &&
		out_has "$1: sigtest dfl" "^exec: pid 1 killed by signal 10 \(SIGUSR1\)\$" &&
		pass "$1: sigtest dfl: SIGUSR1 with SIG_DFL ends the process with 138"
	sig_picked blocked && user_case "$1" "sigtest blocked" 139 "$2" -- run=exec:/bin/sigtest -- blocked &&
		out_has "$1: sigtest blocked" "^exec: pid 1 killed by signal 11 \(SIGSEGV\) at address" &&
		out_lacks "$1: sigtest blocked" "^FAIL" &&
		pass "$1: sigtest blocked: a fault with SIGSEGV blocked ends the process, handler or not"
}
