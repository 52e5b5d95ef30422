#!/bin/sh
# tests/boot/trace_html.sh - ptelab --trace-html in a real browser: boot a
# traced benchmark, load the page in headless chromium at #end (the page's
# script steps to the last record), and check that the counters the page
# added up from the trace records equal the RESULT line's for the same run.
# A page whose adding up is broken must fail that check. SKIP where no
# browser or no backend can run.
. "$(dirname "$0")/../lib.sh"

BENCH="run=bench:zap size=2 reps=1 folios=64K caps=4"

# browser_ok: can headless chromium dump a page's DOM here? Sets $why if not.
browser_ok() {
	BROWSER=$(command -v chromium || command -v chromium-browser) ||
		{ why="no chromium installed (Debian: apt-get install chromium)"; return 1; }
	printf '<p id="x"></p><script>document.getElementById("x").textContent="ran"</script>' \
		>"$TMPD/probe.html"
	dump "$TMPD/probe.html" >"$TMPD/probe.dom" 2>"$TMPD/probe.err"
	grep -q '<p id="x">ran</p>' "$TMPD/probe.dom" && return 0
	why="chromium cannot run a page here: $(grep -v dbus "$TMPD/probe.err" | tail -n 1)"
	return 1
}

# dump FILE [FRAGMENT]: the DOM of FILE#FRAGMENT after its scripts ran.
# --no-sandbox: chromium's sandbox refuses to run as root.
dump() {
	timeout 60 "$BROWSER" --headless --disable-gpu --no-sandbox --no-first-run \
		--user-data-dir="$TMPD/chromium" --virtual-time-budget=5000 --dump-dom \
		"file://$1${2:+#$2}"
}

# backend: $BE, KVM when ptelab can use it, else QEMU TCG; $why if neither.
backend() {
	if have_kvm x86_64; then BE="--backend kvm --arch x86_64"; return 0; fi
	have_cmd qemu-system-x86_64 && { BE="--backend qemu --arch x86_64"; return 0; }
	why="neither KVM ($kvm_why) nor qemu-system-x86_64"
	return 1
}

# result_counters FILE: the RESULT line's non-zero counters, name=value sorted.
result_counters() {
	grep '"bench"' "$1" | sed 's/.*"counters":{//; s/}}$//' | tr ',' '\n' |
		sed 's/"//g; s/:/=/' | grep -v '=0$' | sort
}

# page_counters DOM OP: the counters the page shows for operation OP
# (its summary line "op N cpuC OP name=value ..."), sorted.
page_counters() {
	sed -n '/<pre id="summary">/,/<\/pre>/p' "$1" | sed 's/<[^>]*>//g' |
		awk -v op="$2" '$4 == op { for (i = 5; i <= NF; i++) print $i; exit }' | sort
}

# same_counters DOM: are the page's munmap counters the RESULT's? If
# not, $diff says how they differ.
same_counters() {
	result_counters "$TMPD/res.json" >"$TMPD/want"
	page_counters "$1" munmap >"$TMPD/got"
	diff="page: $(tr '\n' ' ' <"$TMPD/got")/ RESULT: $(tr '\n' ' ' <"$TMPD/want")"
	[ -s "$TMPD/want" ] && cmp -s "$TMPD/want" "$TMPD/got"
}

run_cases() {
	be=$1
	name="--trace-html: $BENCH: the page's counters at #end are the RESULT line's"
	# shellcheck disable=SC2086
	expect_status "$name" 0 "$PTELAB" $be --timeout 120 --results "$TMPD/res.json" \
		--trace-html "$TMPD/page.html" $BENCH || return
	out_lacks "$name" "^TRACE " || return
	grep -q '^{"trace":"run",' "$TMPD/res.json" ||
		{ fail "$name" "--results has no trace records"; return; }
	dump "$TMPD/page.html" end >"$TMPD/end.dom" 2>/dev/null
	grep -q 'id="pos">step [0-9]* of [0-9]*<' "$TMPD/end.dom" ||
		{ fail "$name" "the page did not run: $(head -c 200 "$TMPD/end.dom")"; return; }
	if same_counters "$TMPD/end.dom"; then pass "$name"; else fail "$name" "$diff"; fi

	name="--trace-html: a page that adds up its counters wrongly fails that check"
	sed 's/sum\[k\] = (sum\[k\] || 0) + v;/sum[k] = v;/' "$TMPD/page.html" >"$TMPD/broken.html"
	cmp -s "$TMPD/page.html" "$TMPD/broken.html" &&
		{ fail "$name" "the page's adding up is no longer where this test breaks it"; return; }
	dump "$TMPD/broken.html" end >"$TMPD/broken.dom" 2>/dev/null
	if same_counters "$TMPD/broken.dom"; then
		fail "$name" "the broken page passed: $diff"
	else
		echo "     the check on the broken page: $diff"
		pass "$name"
	fi

	name="--trace-html --cpus 2: a CPU column, the strip, the step's batch"
	# shellcheck disable=SC2086
	expect_status "$name" 0 "$PTELAB" $be --cpus 2 --timeout 120 \
		--trace-html "$TMPD/smp.html" run=ptdump:munmap zap=4 || return
	dump "$TMPD/smp.html" step=2 >"$TMPD/smp.dom" 2>/dev/null
	grep -q '<th>CPU</th>' "$TMPD/smp.dom" || { fail "$name" "no CPU column"; return; }
	grep -q 'class="row"' "$TMPD/smp.dom" || { fail "$name" "no strip"; return; }
	grep -q 'class="pte f[0-9n][^"]* batch' "$TMPD/smp.dom" ||
		{ fail "$name" "no entry of the batch is marked"; return; }
	grep -q 'ended by the cap or the range' "$TMPD/smp.dom" ||
		{ fail "$name" "the batch's limit is not said"; return; }
	pass "$name"
}

# No image of --backend host has the trace: refused before anything runs.
if [ -x "$PTELAB" ]; then
	name="--trace-html --backend host -> exit 2, no page"
	expect_status "$name" 2 "$PTELAB" --backend host --trace-html "$TMPD/host.html" \
		run=ptdump:munmap &&
		out_has "$name" "--backend host has no trace built in" &&
		{ [ ! -e "$TMPD/host.html" ] || fail "$name" "a page was written"; } && pass "$name"
else
	skip "--trace-html --backend host" "$PTELAB is not built"
fi

CASES="counters broken-page cpus-2"
if ! browser_ok || ! backend; then
	for c in $CASES; do skip "--trace-html: $c" "$why"; done
elif [ ! -x "$PTELAB" ] || [ ! -f "$TOP/build/x86_64/guest-trace.elf" ]; then
	for c in $CASES; do skip "--trace-html: $c" "ptelab or the x86_64 trace image is not built"; done
else
	run_cases "$BE"
fi
summary
