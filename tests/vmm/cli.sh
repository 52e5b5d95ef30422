#!/bin/sh
# tests/vmm/cli.sh - the real build/ptelab's command line and benchmark
# workflow from the outside:
#
#  1. bad guest words and bad run= items exit 2 with one line before
#     anything boots (checked by ptelab: no guest output at all), and the
#     guest's own check gives the same words;
#  2. -h/--help lists the options, commands, keys and PTELAB_ALLOW_PVM;
#     --version says git describe; run=help, run=list and selftest:list
#     answer without running anything; hello reads right on arm64;
#  3. a caps= sweep gives one RESULT per cap named cap=N, whose icount
#     times fall as the cap grows, with clock, arch, backend, caps and
#     version in every line; --csv writes the same rows;
#  4. --backend host runs a small benchmark natively: RESULT lines with
#     clock "host"; a command that needs a booted guest is refused;
#  5. without --arch the guest is the host's arch.
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
REAL_X86=$TOP/build/x86_64/guest.elf
REAL_ARM64=$TOP/build/arm64/guest.elf
HOSTBIN=${HOSTBIN:-$TOP/build/ptelab-host-x86_64}

# early NAME WANT ARGS...: exit 2, exactly one line, from ptelab itself
# (so nothing booted), containing WANT.
early() {
	name=$1 want=$2
	shift 2
	expect_status "$name" 2 "$PTELAB" "$@" || return
	if [ "$(wc -l <"$TMPD/out")" -ne 1 ]; then
		fail "$name" "not one line: $(tr '\n' '|' <"$TMPD/out")"
	elif ! grep -q "^ptelab: .*$want" "$TMPD/out"; then
		fail "$name" "wanted 'ptelab: ...$want', got: $(cat "$TMPD/out")"
	else
		pass "$name"
	fi
}

# refused_early WANT ARGS...: early, named for ARGS.
refused_early() {
	early "refused before boot: $*" "$@"
}

# refused_before_boot WANT ARGS...: early with a --kernel that does not
# exist: a word that got past ptelab's check would end in "cannot open"
# instead, so the guest's rules ran before any boot.
refused_before_boot() {
	want=$1
	shift
	early "refused before boot, no kernel needed: $*" "$want" --kernel "$TMPD/no-such-guest.elf" "$@"
}

# same_in_guest WANT WORDS: the guest's own check (the host backend's
# binary, run by hand without ptelab) refuses WORDS with exit 2 and the one
# line "guest: WANT", the text ptelab gives before it boots.
same_in_guest() {
	name="the guest's own check, same words: $2"
	if [ ! -x "$HOSTBIN" ]; then
		skip "$name" "no build/ptelab-host-x86_64"
		return
	fi
	expect_status "$name" 2 "$HOSTBIN" --mem 268435456 --nodes 2 -- "$2" || return
	if [ "$(grep -c "^guest: $1\$" "$TMPD/out")" -ne 1 ] || grep -qv '^guest: ' "$TMPD/out"; then
		fail "$name" "wanted the one line 'guest: $1', got: $(tr '\n' '|' <"$TMPD/out")"
	else
		pass "$name"
	fi
}

early_cases() {
	refused_early "folios=3K: '3K' is not a folio size" run=bench:zap folios=3K
	refused_early "'64k' is not a folio size" run=bench:zap folios=64k
	refused_early "unknown option 'seed'" run=bench seed=abc
	refused_early "contpte exists on arm64 only, not on x86_64" run=bench contpte=off
	refused_early "gup_op=foo: want one of get,pin,longterm,get-fast,pin-fast" \
		run=bench:gup gup_op=foo
	refused_early "caps=1,2,2: '2' is given twice" run=bench:zap caps=1,2,2
	refused_early "zap=none: a cap is a number" run=bench:zap zap=none
	refused_early "active=8: want 0..7 other CPUs" run=bench:zap active=8
	refused_early "active=3 needs 4 CPUs, the machine has 2 (ptelab --cpus 4)" \
		--cpus 2 run=bench:zap active=3
	refused_early "active=2 needs 3 CPUs, the machine has 1 (ptelab --cpus 3)" run=bench:zap active=2
	refused_early "cpus=3: the machine has 2 CPUs (ptelab --cpus 3)" --cpus 2 run=bench:fault cpus=3
	refused_early "run=numa_maps needs two nodes, the machine has 1 (ptelab --nodes 2)" \
		--nodes 1 run=numa_maps
	# Benchmarks that move memory between nodes, and the stress mixes,
	# which need a second CPU: refused before boot, not failing after it.
	refused_early "run=bench:migrate needs two nodes, the machine has 1 (ptelab --nodes 2)" \
		--nodes 1 run=bench:migrate size=16
	refused_early "run=bench:move_pages needs two nodes, the machine has 1 (ptelab --nodes 2)" \
		--nodes 1 run=bench:move_pages size=16
	refused_early "run=bench runs bench:migrate and bench:move_pages, which need two nodes; the machine has 1 (ptelab --nodes 2)" \
		--nodes 1 run=bench size=16
	refused_early "run=stress:mm needs 2 CPUs, the machine has 1 (ptelab --cpus 2)" run=stress:mm
	refused_early "cpus=1: run=stress:mm needs 2 CPUs or more" --cpus 2 run=stress:mm cpus=1
	refused_early "size=1024 needs --mem 1216M or more (have 1G)" run=bench:zap size=1024
	refused_early "size=512 needs --mem 1280M or more (have 1G): bench:migrate needs it on every node" \
		run=bench:migrate size=512
	refused_early "--mem-needed: give a benchmark (run=bench...) and its size=" --mem-needed run=hello
	refused_early "ptelab.clock= is ptelab's to set" run=hello ptelab.clock=x
	refused_early "unknown option '--bogus' (try 'ptelab --help')" -h --bogus
	# A key given to a command that does not read it, and values out of range.
	refused_early "gup_nr=5: run=bench:zap does not read it (gup_nr= is for bench:gup,bench:gup_put)" \
		run=bench:zap gup_nr=5
	refused_early "size=64: run=hello does not read it (size= is for bench)" run=hello size=64
	refused_early "seconds=0: want a number 1..86400" --cpus 2 run=stress:mm seconds=0
	refused_early "gup_nr=16777217: want 0..16777216 pages" run=bench:gup gup_nr=16777217
}

# table_rows: "name|dflt|lo|hi" for each row of the key table a user may give
# (include/ptelab/cmdline_keys.h: X(id, "name", kind, lo, hi, what, dflt, ...)
# or CMDLINE_KNOB(X, id, kind, lo, hi, what, dflt, ...)).
table_rows() {
	awk -F', ' '
		/^\tX\(/ { sub(/^\tX\(/, ""); gsub(/"/, "", $2); print $2 "|" $7 "|" $4 "|" $5 }
		/^\tCMDLINE_KNOB\(X, / { sub(/^\tCMDLINE_KNOB\(X, /, ""); print $1 "|" $6 "|" $3 "|" $4 }
	' "$TOP/include/ptelab/cmdline_keys.h" | grep -v '^ptelab\.'
}

# keys_listed NAME: the help in $TMPD/out has a line for every row of the
# table, with its default and, where it is a number range, the range.
keys_listed() {
	table_rows >"$TMPD/rows"
	[ "$(wc -l <"$TMPD/rows")" -gt 20 ] || { fail "$1" "read $(wc -l <"$TMPD/rows") rows of the table"; return; }
	while IFS='|' read -r k d lo hi; do
		line=$(grep "^  $k " "$TMPD/out")
		if [ -z "$line" ]; then
			fail "$1" "no line for $k"
			return
		fi
		if [ -n "$d" ] && ! echo "$line" | grep -qF "(default $d)"; then
			fail "$1" "$k lacks (default $d): $line"
			return
		fi
		case $lo$hi in *[!0-9]* | 00) continue ;; esac
		echo "$line" | grep -qF "$lo..$hi" || { fail "$1" "$k lacks $lo..$hi: $line"; return; }
	done <"$TMPD/rows"
	pass "$1"
}

# Every run= item the guest refuses is refused by ptelab before it boots,
# with the guest's words (cmdline_check_run(), include/ptelab/cmdline_cmds.h).
run_cases() {
	refused_before_boot "exit:N needs N in 0..255, not '256'" run=exit:256
	refused_before_boot "exit:N needs N in 0..255, not '256'" run=hello,exit:256
	refused_before_boot "exit needs an argument: exit:N - stop with status N (0..255)" run=exit
	refused_before_boot "unknown command 'nosuch' (run=list lists the commands)" run=nosuch
	refused_before_boot "unknown command 'nope' (run=list lists the commands)" run=hello,nope
	refused_before_boot "no benchmark 'nosuch' (have: fault zap mprotect fork fork_exit gup gup_put migrate move_pages mremap madvise_free madvise_dontneed madvise_populate numa_hint pageout swapin reclaim reclaim_shared young)" \
		run=bench:nosuch
	refused_before_boot "bench fault: caps= does not apply (its timed operation has no batching cap)" \
		run=bench:fault caps=1,max
	refused_before_boot "bench fork: active= does not apply (it is for bench zap, mprotect, migrate, madvise_free, madvise_dontneed, madvise_populate, numa_hint, young)" \
		run=bench:fork active=2
	refused_before_boot "bench fork: active= does not apply (it is for bench zap" \
		--cpus 3 run=bench:fork active=2
	refused_before_boot "bench zap: cpus= does not apply (it runs on CPU 0; cpus= is for bench fault, gup, gup_put)" \
		--cpus 2 run=bench:zap cpus=2
	refused_before_boot "bench zap: give caps= or the zap= knob, not both (caps= sweeps zap)" \
		run=bench:zap zap=4 caps=1,2
	refused_before_boot "bench zap: give caps= or the batch= knob, not both (caps= sweeps zap)" \
		run=bench:zap batch=4 caps=1,2
	refused_before_boot "bench migrate: give caps= or the migrate_flush= knob, not both (caps= sweeps migrate)" \
		run=bench:migrate migrate_flush=1 caps=1,2
	refused_before_boot "bench madvise_free: give caps= or the madvise= knob, not both (caps= sweeps madvise)" \
		run=bench:madvise madvise=4 caps=1,2
	refused_before_boot "hello takes no argument (got 'hello:x')" run=hello:x
	refused_before_boot "exec needs an argument: exec:PATH - run the static program PATH from the initramfs as a user process" \
		run=exec
	refused_before_boot "exec:rel/path: PATH must be absolute (e.g. exec:/bin/hello)" run=exec:rel/path
	refused_before_boot "exec: no initramfs (give ptelab --initramfs DIR|FILE)" run=exec:/bin/hello
	refused_before_boot "stress:x: the one stress is stress:mm" --cpus 2 run=stress:x
	refused_before_boot "ptdump:bogus: the operation is one of munmap, mprotect, fork, gup, migrate" \
		run=ptdump:bogus
	refused_before_boot "folios=2M-pte: ptdump:munmap takes one size of 4K..1M" \
		run=ptdump:munmap folios=2M-pte
	refused_before_boot "run=ptdump:migrate needs two nodes, the machine has 1 (ptelab --nodes 2)" \
		--nodes 1 run=ptdump:migrate
	refused_before_boot "nothing to run (give run=NAME; run=list lists the commands)" reps=3
	refused_before_boot "hello needs a booted guest; --backend host runs only the mm commands" \
		--backend host run=hello
	refused_before_boot "exit needs a booted guest; --backend host runs only the mm commands" \
		--backend host run=bench:zap,exit:0
	# The guest keeps the same check for a command line ptelab did not
	# write: the same words.
	same_in_guest "no benchmark 'nosuch' (have: fault zap mprotect fork fork_exit gup gup_put migrate move_pages mremap madvise_free madvise_dontneed madvise_populate numa_hint pageout swapin reclaim reclaim_shared young)" \
		run=bench:nosuch
	same_in_guest "bench fault: caps= does not apply (its timed operation has no batching cap)" \
		"run=bench:fault caps=1,max"
	same_in_guest "ptdump:bogus: the operation is one of munmap, mprotect, fork, gup, migrate" \
		run=ptdump:bogus
	same_in_guest "unknown command 'nosuch' (run=list lists the commands)" run=nosuch
	same_in_guest "hello needs a booted guest; --backend host runs only the mm commands" run=hello
	same_in_guest "folios=2M-pte: ptdump:munmap takes one size of 4K..1M" \
		"run=ptdump:munmap folios=2M-pte"
}

help_cases() {
	for h in -h --help; do
		name="$h lists options, commands, keys, PTELAB_ALLOW_PVM"
		expect_status "$name" 0 "$PTELAB" "$h" || continue
		ok=1
		for w in "--backend auto|kvm|qemu|host" "--csv FILE" "--trace-html FILE" "--quiet" "--version" \
			"selftest:list" "bench\[:NAME\]" "run=help" "caps " "folios " "gup_op " \
			"contpte " "PTELAB_ALLOW_PVM" "124 timeout" "--keep" "numa_maps" "gup_put migrate" \
			"migrate_unmap " "migrate_flush " "gup_keep .*(default pages)"; do
			grep -q -- "$w" "$TMPD/out" || { fail "$name" "lacks '$w'"; ok=0; break; }
		done
		[ "$ok" = 1 ] && pass "$name"
	done
	name="-h lists every key of the table with its range and default"
	expect_status "$name" 0 "$PTELAB" -h && keys_listed "$name"
	# The binary may predate the last commit: its commit must exist.
	name="--version says git describe (a commit of this repository)"
	if expect_status "$name" 0 "$PTELAB" --version; then
		v=$(sed -nE 's/^ptelab ([^ ]+)$/\1/p' "$TMPD/out")
		c=$(echo "$v" | sed -E 's/-dirty$//; s/.*-g([0-9a-f]+)$/\1/')
		[ -n "$v" ] && git -C "$TOP" cat-file -e "$c^{commit}" 2>/dev/null && pass "$name" ||
			fail "$name" "got $(cat "$TMPD/out")"
	fi
	[ -f "$REAL_X86" ] || { skip "guest help commands" "no build/x86_64/guest.elf"; return; }
	name="run=help lists commands and keys"
	if expect_status "$name" 0 "$PTELAB" --accel icount run=help; then
		grep -q "^  help " "$TMPD/out" && grep -q "^  caps " "$TMPD/out" &&
			grep -q "^  selftest " "$TMPD/out" && pass "$name" ||
			fail "$name" "$(tr '\n' '|' <"$TMPD/out")"
	fi
	name="run=help lists every key of the table with its range and default"
	expect_status "$name" 0 "$PTELAB" --accel icount run=help && keys_listed "$name"
	name="selftest:list names the cases without running them"
	if expect_status "$name" 0 "$PTELAB" --accel icount run=selftest:list; then
		if grep -qE '^(ok|FAIL) ' "$TMPD/out"; then
			fail "$name" "it ran cases"
		elif grep -qE '^[a-z_]+/[a-z_0-9]+$' "$TMPD/out" && grep -qE '^[0-9]+ cases$' "$TMPD/out"; then
			pass "$name"
		else
			fail "$name" "$(head -n 3 "$TMPD/out" | tr '\n' '|')"
		fi
	fi
	if [ -f "$REAL_ARM64" ]; then
		name="arm64 hello: tree built by QEMU, no abi mismatch wording"
		if expect_status "$name" 0 "$PTELAB" --arch arm64 run=hello; then
			grep -q "^tree: built by QEMU" "$TMPD/out" && ! grep -q "tree says" "$TMPD/out" &&
				pass "$name" || fail "$name" "$(head -n 3 "$TMPD/out" | tr '\n' '|')"
		fi
	else
		skip "arm64 hello" "no build/arm64/guest.elf"
	fi
}

# field JSON KEY: the value of "KEY" in a RESULT line's JSON (string or number).
field() { echo "$1" | sed -E "s/.*\"$2\":\"?([^\",}]*).*/\1/"; }

sweep_cases() {
	[ -f "$REAL_X86" ] || { skip "caps sweep" "no build/x86_64/guest.elf"; return; }
	name="caps=1,4,16,max: four cap=N variants, times falling, clock icount"
	if expect_status "$name" 0 "$PTELAB" --accel icount --mem 2G --quiet --results "$TMPD/r.jsonl" \
		--csv "$TMPD/r.csv" run=bench:zap size=64 reps=1 folios=64K caps=1,4,16,max; then
		variants=$(sed -E 's/.*"variant":"([^"]*)".*/\1/' "$TMPD/r.jsonl" | tr '\n' ' ')
		times=$(sed -E 's/.*"median_us":([0-9.]+).*/\1/' "$TMPD/r.jsonl" | tr '\n' ' ')
		line=$(head -n 1 "$TMPD/r.jsonl")
		if [ "$variants" != "cap=1 cap=4 cap=16 cap=max " ]; then
			fail "$name" "variants: $variants"
		elif ! echo "$times" | awk '{ for (i = 2; i <= NF; i++) if ($i > $(i-1)) exit 1;
				if (!($NF < $1)) exit 1 }'; then
			fail "$name" "times do not fall: $times"
		elif [ "$(field "$line" clock)" != icount ] || [ "$(field "$line" arch)" != x86_64 ] ||
			[ "$(field "$line" backend)" != qemu ] || [ "$(field "$line" version)" = unknown ] ||
			! echo "$line" | grep -q '"caps":{"zap":1,'; then
			fail "$name" "keys: $line"
		elif ! tail -n 1 "$TMPD/r.jsonl" | grep -q '"cap":"max",.*"caps":{"zap":"max",'; then
			fail "$name" "max is not written \"max\": $(tail -n 1 "$TMPD/r.jsonl" | cut -c 1-300)"
		elif grep -q '^\.' "$TMPD/out"; then
			fail "$name" "--quiet printed progress"
		else
			pass "$name"
		fi
		name="--csv: a header and the same four rows, caps 1 4 16 max"
		if [ "$(wc -l <"$TMPD/r.csv")" -eq 5 ] &&
			head -n 1 "$TMPD/r.csv" | tr -d '"' | grep -q '^bench,arch,backend,clock,version,folio,variant,cap,active,reps,.*,caps\.zap,.*,counters\.pt_descents,' &&
			[ "$(cut -d, -f7 "$TMPD/r.csv" | tail -n 4 | tr '\n' ' ')" = "$variants" ] &&
			[ "$(cut -d, -f8 "$TMPD/r.csv" | tail -n 4 | tr '\n' ' ')" = "1 4 16 max " ]; then
			pass "$name"
		else
			fail "$name" "$(tr '\n' '|' <"$TMPD/r.csv")"
		fi
	fi
	name="--accel tcg: the clock is tcg and the output warns that it is noise"
	if expect_status "$name" 0 "$PTELAB" --accel tcg run=bench:zap size=16 reps=1 folios=64K; then
		grep -q '^  WARNING: clock tcg' "$TMPD/out" && grep -q '"clock":"tcg"' "$TMPD/out" &&
			pass "$name" || fail "$name" "$(grep -v '^mm:' "$TMPD/out" | head -n 3 | tr '\n' '|')"
	fi
	name="zap=4 is honoured by bench:zap (one variant cap=4)"
	if expect_status "$name" 0 "$PTELAB" --accel icount --mem 2G --results "$TMPD/z.jsonl" \
		run=bench:zap size=64 reps=1 folios=64K zap=4; then
		[ "$(wc -l <"$TMPD/z.jsonl")" -eq 1 ] && grep -q '"variant":"cap=4"' "$TMPD/z.jsonl" &&
			grep -q '"ref_updates":4130' "$TMPD/z.jsonl" && pass "$name" ||
			fail "$name" "$(cat "$TMPD/z.jsonl")"
	fi
}

# make sweep's script end to end on a tiny sweep: a CSV with one row per
# cap and the three kinds of plot, as PNG files.
make_sweep_case() {
	name="sweep.sh: CSV rows per cap and PNG plots"
	if [ ! -f "$REAL_X86" ] || ! have_cmd gnuplot; then
		skip "$name" "no build/x86_64/guest.elf or no gnuplot"
		return
	fi
	if ! BENCH=zap FOLIOS=4K,64K CAPS=1,16,max SIZE=16 "$TOP/tests/bench/sweep.sh" >"$TMPD/out" 2>&1; then
		fail "$name" "$(tail -n 3 "$TMPD/out" | tr '\n' '|')"
		return
	fi
	d=$TOP/build/sweep/latest
	rows=$(tail -n +2 "$d/sweep.csv" | cut -d, -f1,6-8 | tr '\n' ' ')
	want="zap,4K,cap=1,1 zap,4K,cap=16,16 zap,4K,cap=max,max zap,64K,cap=1,1 zap,64K,cap=16,16 zap,64K,cap=max,max "
	if [ "$rows" != "$want" ]; then
		fail "$name" "rows: $rows"
	elif ! (for f in time-zap ratio counters-zap; do
		head -c 8 "$d/$f.png" | od -An -c | grep -q 'P   N   G' || exit 1
	done); then
		fail "$name" "missing or not PNG: $(ls "$d")"
	else
		pass "$name"
	fi
}

# HOSTS=: the same sweep through GNU parallel's sshloginfile path, with
# ":" (this machine) as the one host: the parts come back, one version.
sweep_hosts_case() {
	name="sweep.sh HOSTS=: the points run through parallel's host list"
	if [ ! -f "$REAL_X86" ] || ! have_cmd gnuplot || ! have_cmd parallel; then
		skip "$name" "no build/x86_64/guest.elf, gnuplot or GNU parallel"
		return
	fi
	echo ':' >"$TMPD/hosts"
	if ! HOSTS=$TMPD/hosts BENCH=zap FOLIOS=4K,64K CAPS=1,max SIZE=16 \
		"$TOP/tests/bench/sweep.sh" >"$TMPD/out" 2>&1; then
		fail "$name" "$(tail -n 3 "$TMPD/out" | tr '\n' '|')"
		return
	fi
	rows=$(tail -n +2 "$TOP/build/sweep/latest/sweep.csv" | wc -l)
	if [ "$rows" -ne 4 ] || ! grep -q "hosts in $TMPD/hosts" "$TMPD/out" ||
		[ "$(grep -c ' done on ' "$TMPD/out")" -ne 2 ]; then
		fail "$name" "$rows rows; $(tr '\n' '|' <"$TMPD/out")"
	else
		pass "$name"
	fi
	name="sweep.sh HOSTS=: a missing file is refused before any run"
	expect_status "$name" 2 env HOSTS="$TMPD/nosuchfile" BENCH=zap FOLIOS=4K CAPS=1 SIZE=16 \
		"$TOP/tests/bench/sweep.sh" && pass "$name"
}

host_cases() {
	if [ ! -x "$HOSTBIN" ]; then
		skip "--backend host" "no build/ptelab-host-x86_64"
		return
	fi
	name="--backend host: RESULT lines with clock host"
	if expect_status "$name" 0 "$PTELAB" --backend host --mem 256M --results "$TMPD/h.jsonl" \
		run=bench:zap,bench:fork size=16 reps=3 folios=4K,64K; then
		n=$(grep -c '"clock":"host","version"' "$TMPD/h.jsonl")
		if [ "$n" -ne 8 ] || ! grep -q '"backend":"host"' "$TMPD/h.jsonl" ||
			! grep -q '"arch":"host-x86_64"' "$TMPD/h.jsonl"; then
			fail "$name" "$n host lines: $(head -n 2 "$TMPD/h.jsonl")"
		elif ! grep -q '^  clock host: real time' "$TMPD/out" ||
			! grep -qE '^host backend: the machine was (busy|quiet)' "$TMPD/out"; then
			fail "$name" "no clock or load line: $(grep -v RESULT "$TMPD/out" | tr '\n' '|')"
		else
			pass "$name"
		fi
	fi
	name="--backend host: --timeout stops it with 124"
	expect_status "$name" 124 "$PTELAB" --backend host --timeout 1 run=bench size=256 && pass "$name"
	name="--backend host: the same counters as the guest (the same mm code)"
	[ -f "$REAL_X86" ] || { skip "$name" "no build/x86_64/guest.elf"; return; }
	if expect_status "$name" 0 "$PTELAB" --accel icount --mem 256M --results "$TMPD/g.jsonl" \
		run=bench:zap,bench:fork size=16 reps=1 folios=4K,64K; then
		sed -E 's/.*"variant":"([^"]*)".*"counters":/\1 /' "$TMPD/h.jsonl" >"$TMPD/hc"
		sed -E 's/.*"variant":"([^"]*)".*"counters":/\1 /' "$TMPD/g.jsonl" >"$TMPD/gc"
		[ "$(wc -l <"$TMPD/gc")" -eq 8 ] && cmp -s "$TMPD/hc" "$TMPD/gc" && pass "$name" ||
			fail "$name" "$(diff "$TMPD/hc" "$TMPD/gc" | head -n 4 | tr '\n' '|')"
	fi
}

# --mem-needed prints the one rule's figure, and that much memory runs the
# benchmark: bench:migrate, which needs the room on every node, included.
mem_needed_cases() {
	name="--mem-needed: the figure, and bench:migrate runs in it"
	mem=$("$PTELAB" --mem-needed run=bench:zap,bench:migrate size=16 2>&1)
	if [ "$mem" != 164M ]; then
		fail "$name" "printed '$mem', wanted 164M"
	elif [ ! -f "$REAL_X86" ]; then
		skip "$name" "no build/x86_64/guest.elf"
	elif expect_status "$name" 0 "$PTELAB" --accel icount --mem "$mem" --quiet \
		run=bench:zap,bench:migrate size=16 reps=1 folios=4K,2M-pmd; then
		pass "$name"
	fi
}

early_cases
run_cases
mem_needed_cases
help_cases
sweep_cases
sweep_hosts_case
make_sweep_case
host_cases
# bench:migrate's default variants record the caps they ran with: the
# step variants set all three migration caps, not only migrate=.
name="bench:migrate RESULT caps are the caps each variant ran with"
if expect_status "$name" 0 "$PTELAB" --accel icount --mem 2G --quiet --results "$TMPD/m.json" \
	run=bench:migrate size=16 reps=1 folios=64K; then
	u=$(grep '"variant":"unbatched"' "$TMPD/m.json")
	q=$(grep '"variant":"unmap"' "$TMPD/m.json")
	case "$u|$q" in
	*'"cap":1,'*'"migrate_unmap":1,"migrate_flush":1'*'|'*'"cap":1,'*'"migrate":1,"migrate_unmap":"max","migrate_flush":1'*)
		pass "$name" ;;
	*) fail "$name" "unbatched: $u; unmap: $q" ;;
	esac
fi
# counter FILE VARIANT NAME: counter NAME of the RESULT line of VARIANT.
counter() {
	grep "\"variant\":\"$2\"" "$1" | sed -n "s/.*\"$3\":\([0-9]*\).*/\1/p"
}

# active=3 on 4 CPUs: x86 interrupts the 3 readers once per shootdown and
# the batched zap shoots down fewer times; arm64's broadcast TLBI sends no
# IPI. A flush that skipped the readers, or IPIs per page, fails here.
for arch in x86_64 arm64; do
	name="$arch: bench:zap active=3 on --cpus 4: IPIs per shootdown and the batched cut"
	expect_status "$name" 0 "$PTELAB" --arch "$arch" --accel icount --cpus 4 --quiet \
		--results "$TMPD/a.json" run=bench:zap size=16 reps=1 folios=64K active=3 || continue
	su=$(counter "$TMPD/a.json" unbatched tlb_shootdowns)
	sb=$(counter "$TMPD/a.json" batched tlb_shootdowns)
	iu=$(counter "$TMPD/a.json" unbatched tlb_ipis)
	ib=$(counter "$TMPD/a.json" batched tlb_ipis)
	fb=$(counter "$TMPD/a.json" batched tlb_flushes)
	got="shootdowns $su/$sb, ipis $iu/$ib, batched flushes $fb, active $(counter "$TMPD/a.json" batched active)"
	if [ "$(counter "$TMPD/a.json" batched active)" != 3 ]; then
		fail "$name" "RESULT lacks active 3: $got"
	elif [ "$arch" = x86_64 ] && { [ "${su:-0}" -eq 0 ] || [ "$sb" -ge "$su" ] ||
		[ "$iu" -ne $((3 * su)) ] || [ "$ib" -ne $((3 * sb)) ]; }; then
		fail "$name" "$got"
	elif [ "$arch" = arm64 ] && { [ "${fb:-0}" -eq 0 ] || [ "$iu$ib" != 00 ]; }; then
		fail "$name" "$got"
	else
		pass "$name"
	fi
done
# Without --arch the guest is the host's arch (the one KVM can run).
name="no --arch: the guest of the host's arch"
case $(uname -m) in aarch64 | arm64) want=qemu-system-aarch64 ;; *) want=qemu-system-x86_64 ;; esac
if have_cmd "$want"; then
	expect_status "$name" 0 "$PTELAB" --backend qemu --verbose --timeout 60 run=exit:0 &&
		out_has "$name" "^ptelab: $want " && pass "$name"
else
	skip "$name" "$want is not installed"
fi
summary
