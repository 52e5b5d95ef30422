/*
 * trace_html.c - --trace-html: one self-contained HTML page that steps
 * through a run's trace records (the contract: vmm_trace_html.h).
 *
 * The page is the records as JSON data, and a script that draws every
 * step from them: the strip of the operation's range (the entries the
 * operation has reached in their state after it, from the strips of its
 * first and last record), the batch of the step with what ended it, the
 * counters added up from the records, the flushes, the operations ended.
 * Guest bytes reach the page only inside JSON strings, with '<', '>' and
 * '&' written as \u escapes (so no "</script>" can end the data), and the
 * script puts them in the document as text, never as markup. A Content
 * Security Policy forbids every fetch: the page works from a file, offline.
 */
#include <stdlib.h>
#include <string.h>

#include "vmm_json.h"
#include "vmm_trace_html.h"

static const char page_css[] =
	"body { font: 14px/1.4 sans-serif; margin: 1em 2em; color: #222; }\n"
	"code, pre, .row, #now, #log td { font-family: monospace; }\n"
	"#controls button { font-size: 15px; margin-right: .3em; }\n"
	"#now { font-weight: bold; margin: .5em 0 0; white-space: pre; }\n"
	"#limit { color: #7a3b00; min-height: 1.4em; }\n"
	".row { white-space: pre; line-height: 1.5; }\n"
	".addr { color: #666; display: inline-block; width: 9em; }\n"
	".pte { display: inline-block; width: .9em; text-align: center; }\n"
	".pte.g { margin-left: .5em; }\n"
	".fn { color: #999; } .f0 { background: #e8f0ff; } .f1 { background: #fff1d6; }\n"
	".f2 { background: #e6f7e6; } .f3 { background: #f6e6f7; }\n"
	".cont { text-decoration: underline; }\n"
	".batch { outline: 2px solid #d40; background: #ffd0c0; }\n"
	".flush { outline: 2px dashed #06c; }\n"
	"table { border-collapse: collapse; margin: .3em 0 1em; }\n"
	"td, th { border: 1px solid #ccc; padding: 1px 6px; text-align: left; vertical-align: top; "
	"}\n"
	".num { text-align: right; } .bad { background: #fbb; }\n"
	"tr.now, li.now { background: #ffe9a8; }\n"
	".ev { white-space: pre; }\n"
	".note, .legend { color: #555; }\n"
	"#summary { background: #f4f4f4; padding: .5em; }\n";

static const char page_body[] =
	"<body>\n"
	"<h1>ptelab trace</h1>\n"
	"<p><code id=\"cmd\"></code><br><span id=\"meta\"></span></p>\n"
	"<p id=\"empty\" hidden>This run printed no trace records: its commands made no batched "
	"operation.</p>\n"
	"<div id=\"controls\"><button id=\"first\" title=\"Home\">&#x25C0;&#x25C0; "
	"first</button><button "
	"id=\"prev\" title=\"Left arrow, p\">&#x25C0; prev</button><button id=\"next\" "
	"title=\"Right arrow, n, space\">next &#x25B6;</button><button id=\"last\" "
	"title=\"End\">end &#x25B6;&#x25B6;</button> <span id=\"pos\"></span></div>\n"
	"<p class=\"note\">Keys: left/right arrows (or p/n) step, Home/End jump; the address bar "
	"keeps the step (#step=N, #end).</p>\n"
	"<div id=\"now\"></div>\n"
	"<div id=\"limit\"></div>\n"
	"<h2>The PTE strip</h2>\n"
	"<div id=\"strip\"></div>\n"
	"<p class=\"note\">Entries the operation has reached show their state after it; the batch "
	"of this step is outlined red, a flushed range dashed blue; the background colour changes "
	"with the folio; underlined entries carry the contiguous bit.</p>\n"
	"<h2 id=\"counters-title\">Counters</h2>\n"
	"<table id=\"counters\"></table>\n"
	"<h2>TLB flushes of the operation</h2>\n"
	"<ul id=\"flushes\"></ul>\n"
	"<h2>Events</h2>\n"
	"<table id=\"log\"></table>\n"
	"<h2>Operations ended so far</h2>\n"
	"<table id=\"ops\"></table>\n"
	"<pre id=\"summary\"></pre>\n";

static const char page_js[] =
	"\"use strict\";\n"
	"// The viewer: R is the run's trace records in order (docs/mm-core.md,\n"
	"// \"The trace as JSON\"); step `cur` shows records 0..cur.\n"
	"const R = JSON.parse(document.getElementById(\"trace-data\").textContent);\n"
	"const INFO = JSON.parse(document.getElementById(\"trace-info\").textContent);\n"
	"const $ = (id) => document.getElementById(id);\n"
	"const SEVERAL = INFO.cpus > 1 || new Set(R.map((r) => r.cpu)).size > 1;\n"
	"const ROW = 64;\n"
	"let cur = 0;\n"
	"\n"
	"function el(tag, cls, text) {\n"
	"\tconst e = document.createElement(tag);\n"
	"\tif (cls) e.className = cls;\n"
	"\tif (text !== undefined) e.textContent = String(text);\n"
	"\treturn e;\n"
	"}\n"
	"function hex(s) { return parseInt(s, 16); }\n"
	"\n"
	"// Each outermost operation: its first and end record, per CPU.\n"
	"const ops = [], opOf = new Array(R.length).fill(-1);\n"
	"(function link() {\n"
	"\tconst open = {};\n"
	"\tR.forEach((r, i) => {\n"
	"\t\tif (r.trace === \"op\" && r.depth === 0) {\n"
	"\t\t\topen[r.cpu] = ops.length;\n"
	"\t\t\tops.push({ begin: i, end: -1, cpu: r.cpu, name: r.op, rec: r });\n"
	"\t\t}\n"
	"\t\tconst o = open[r.cpu];\n"
	"\t\tif (o === undefined) return;\n"
	"\t\topOf[i] = o;\n"
	"\t\tif (r.trace === \"end\") { ops[o].end = i; delete open[r.cpu]; }\n"
	"\t});\n"
	"})();\n"
	"\n"
	"// The counters of op @o's records up to step @upto, added up.\n"
	"function accumulate(o, upto) {\n"
	"\tconst sum = {};\n"
	"\tfor (let i = ops[o].begin; i <= upto && i < R.length; i++) {\n"
	"\t\tif (opOf[i] !== o || !R[i].counters) continue;\n"
	"\t\tfor (const [k, v] of Object.entries(R[i].counters)) sum[k] = (sum[k] || 0) + v;\n"
	"\t}\n"
	"\treturn sum;\n"
	"}\n"
	"\n"
	"function describe(r) {\n"
	"\tswitch (r.trace) {\n"
	"\tcase \"op\": return r.op + \" \" + r.start + \"-\" + r.end + (r.cap === null ? \"\" : "
	"\" cap=\" + r.cap);\n"
	"\tcase \"run\": return \"run \" + r.addr + \" +\" + r.nr + \" (bound \" + r.limit + \": "
	"folio \" +\n"
	"\t\tr.in_folio + \", table \" + r.in_table + \", max \" + r.max_nr + \"; ended by \" +\n"
	"\t\t{ differs: \"an entry differs\", folio: \"folio end\", table: \"table end\", cap: "
	"\"cap or range\" }[r.ended_by] + \")\";\n"
	"\tcase \"pmd\": return \"pmd \" + r.addr + \": \" + r.what + \" (a 2 MiB leaf, one "
	"entry)\";\n"
	"\tcase \"flush\": return \"flush \" + r.start + \"-\" + r.end + \" (\" + r.pages + \" "
	"pages)\";\n"
	"\tcase \"sent\": return \"  sent: \" + r.how;\n"
	"\tcase \"fold\": case \"unfold\": return r.trace + \" \" + r.addr + \" (contpte "
	"block)\";\n"
	"\tcase \"gather\": return \"gather: \" + r.pages + \" folio references and \" + r.tables "
	"+ \" page tables given back\";\n"
	"\tcase \"end\": return \"end \" + r.op;\n"
	"\t}\n"
	"\treturn r.trace;\n"
	"}\n"
	"function countersText(c) {\n"
	"\treturn Object.entries(c || {}).map(([k, v]) => k + \"+\" + v).join(\" \");\n"
	"}\n"
	"\n"
	"// The entries [first, first + n) of op @o's strip that a record covers.\n"
	"function covered(o, r) {\n"
	"\tconst s = ops[o].rec.strip;\n"
	"\tif (!s) return null;\n"
	"\tlet a, n;\n"
	"\tif (r.trace === \"run\") { a = hex(r.addr); n = r.nr; }\n"
	"\telse if (r.trace === \"pmd\") { a = hex(r.addr); n = 512; }\n"
	"\telse if (r.trace === \"flush\") { a = hex(r.start); n = (hex(r.end) - a) / 4096; }\n"
	"\telse return null;\n"
	"\treturn { first: (a - hex(s.start)) / 4096, n: n };\n"
	"}\n"
	"\n"
	"function drawStrip(o) {\n"
	"\tconst box = $(\"strip\");\n"
	"\tbox.textContent = \"\";\n"
	"\tif (o < 0) { box.append(el(\"p\", \"note\", \"No operation yet.\")); return; }\n"
	"\tconst op = ops[o], before = op.rec.strip;\n"
	"\tif (!before) { box.append(el(\"p\", \"note\", \"No strip: the range is over \" + 1024 + "
	"\" entries or outside every VMA.\")); return; }\n"
	"\tconst done = op.end >= 0 && cur >= op.end;\n"
	"\tconst after = op.end >= 0 ? R[op.end].strip : null;\n"
	"\tconst n = before.ptes.length, state = before.ptes.split(\"\"), mark = new "
	"Array(n).fill(\"\");\n"
	"\tfor (let i = op.begin; i <= cur && i < R.length; i++) {\n"
	"\t\tif (opOf[i] !== o) continue;\n"
	"\t\tconst c = covered(o, R[i]);\n"
	"\t\tif (!c) continue;\n"
	"\t\tfor (let j = Math.max(0, c.first); j < Math.min(n, c.first + c.n); j++) {\n"
	"\t\t\tif (R[i].trace !== \"flush\" && after) state[j] = after.ptes[j];\n"
	"\t\t\tif (i === cur) mark[j] = R[i].trace === \"flush\" ? \"flush\" : \"batch\";\n"
	"\t\t}\n"
	"\t}\n"
	"\tconst src = done && after ? after : before;\n"
	"\tbox.append(el(\"div\", \"legend\", \"strip \" + before.start + \"-\" + before.end +\n"
	"\t\t(done ? \" after \" : \" at this step of \") + op.name +\n"
	"\t\t\": W/w writable dirty/clean, R/r read-only dirty/clean, P 2 MiB leaf, m migration, s "
	"swap, . none\"));\n"
	"\t// Rows of ROW entries from a ROW-aligned address, groups of 16, as\n"
	"\t// run=ptdump:OP prints them: the first row is indented to its column.\n"
	"\tconst p0 = hex(before.start) / 4096;\n"
	"\tlet line = null;\n"
	"\tfor (let j = 0; j < n; j++) {\n"
	"\t\tif (!line || (p0 + j) % ROW === 0) {\n"
	"\t\t\tline = el(\"div\", \"row\");\n"
	"\t\t\tline.append(el(\"span\", \"addr\", \"0x\" + ((p0 + j - (p0 + j) % ROW) * "
	"4096).toString(16)));\n"
	"\t\t\tbox.append(line);\n"
	"\t\t\tfor (let k = (p0 + j) % ROW; j === 0 && k > 0; k--)\n"
	"\t\t\t\tline.append(el(\"span\", \"pte\" + ((p0 - k) % 16 === 0 && (p0 - k) % ROW ? \" "
	"g\" : \"\"), \" \"));\n"
	"\t\t}\n"
	"\t\tconst f = done ? src.folios[j] : before.folios[j];\n"
	"\t\tconst e = el(\"span\", \"pte f\" + (f === \"-\" ? \"n\" : f.charCodeAt(0) % 4) +\n"
	"\t\t\t((p0 + j) % 16 === 0 && (p0 + j) % ROW ? \" g\" : \"\") + (mark[j] ? \" \" + "
	"mark[j] : \"\") +\n"
	"\t\t\t(before.cont[j] === \"c\" ? \" cont\" : \"\"), state[j]);\n"
	"\t\te.title = \"0x\" + ((p0 + j) * 4096).toString(16) + \" folio \" + f;\n"
	"\t\tline.append(e);\n"
	"\t}\n"
	"}\n"
	"\n"
	"function drawCounters(o) {\n"
	"\tconst t = $(\"counters\");\n"
	"\tt.textContent = \"\";\n"
	"\tif (o < 0) return;\n"
	"\tconst op = ops[o], sum = accumulate(o, cur), total = op.end >= 0 && cur >= op.end ? "
	"R[op.end].total : null;\n"
	"\t$(\"counters-title\").textContent = \"Counters of \" + op.name + \" on cpu\" + op.cpu + "
	"(total ? \" (ended)\" : \" so far\");\n"
	"\tconst hd = el(\"tr\");\n"
	"\t[\"counter\", \"so far\", \"this step\"].concat(total ? [\"the guest's total\"] : "
	"[]).forEach((h) => hd.append(el(\"th\", \"\", h)));\n"
	"\tt.append(hd);\n"
	"\tconst step = R[cur].counters || {};\n"
	"\tfor (const k of Object.keys(Object.assign({}, sum, total || {}))) {\n"
	"\t\tconst tr = el(\"tr\");\n"
	"\t\ttr.append(el(\"td\", \"\", k), el(\"td\", \"num\", sum[k] || 0), el(\"td\", \"num\", "
	"step[k] || \"\"));\n"
	"\t\tif (total) tr.append(el(\"td\", \"num\" + ((total[k] || 0) === (sum[k] || 0) ? \"\" : "
	"\" bad\"), total[k] || 0));\n"
	"\t\tt.append(tr);\n"
	"\t}\n"
	"}\n"
	"\n"
	"function drawLog() {\n"
	"\tconst t = $(\"log\");\n"
	"\tt.textContent = \"\";\n"
	"\tconst hd = el(\"tr\");\n"
	"\t[\"#\"].concat(SEVERAL ? [\"CPU\"] : []).concat([\"event\", \"counters of the "
	"step\"]).forEach((h) => hd.append(el(\"th\", \"\", h)));\n"
	"\tt.append(hd);\n"
	"\tfor (let i = Math.max(0, cur - 40); i <= cur && i < R.length; i++) {\n"
	"\t\tconst r = R[i], tr = el(\"tr\", i === cur ? \"now\" : \"\");\n"
	"\t\ttr.append(el(\"td\", \"num\", i));\n"
	"\t\tif (SEVERAL) tr.append(el(\"td\", \"cpu\", \"cpu\" + r.cpu));\n"
	"\t\ttr.append(el(\"td\", \"ev\", \"  \".repeat(r.depth) + describe(r)), el(\"td\", \"\", "
	"countersText(r.counters)));\n"
	"\t\tt.append(tr);\n"
	"\t}\n"
	"}\n"
	"\n"
	"function drawFlushes(o) {\n"
	"\tconst u = $(\"flushes\");\n"
	"\tu.textContent = \"\";\n"
	"\tif (o < 0) return;\n"
	"\tfor (let i = ops[o].begin; i <= cur; i++)\n"
	"\t\tif (opOf[i] === o && (R[i].trace === \"flush\" || R[i].trace === \"sent\"))\n"
	"\t\t\tu.append(el(\"li\", i === cur ? \"now\" : \"\", describe(R[i])));\n"
	"}\n"
	"\n"
	"// Every operation ended by this step, with its counters added up from its\n"
	"// records: the table and the text the tests read.\n"
	"function drawSummary() {\n"
	"\tconst t = $(\"ops\"), pre = $(\"summary\");\n"
	"\tt.textContent = \"\";\n"
	"\tconst lines = [];\n"
	"\tops.forEach((op, o) => {\n"
	"\t\tif (op.end < 0 || op.end > cur) return;\n"
	"\t\tconst sum = accumulate(o, op.end), tr = el(\"tr\");\n"
	"\t\ttr.dataset.op = op.name;\n"
	"\t\ttr.append(el(\"td\", \"num\", o));\n"
	"\t\tif (SEVERAL) tr.append(el(\"td\", \"cpu\", \"cpu\" + op.cpu));\n"
	"\t\ttr.append(el(\"td\", \"\", op.name + \" \" + op.rec.start + \"-\" + op.rec.end), "
	"el(\"td\", \"\", countersText(sum)));\n"
	"\t\tt.append(tr);\n"
	"\t\tlines.push(\"op \" + o + \" cpu\" + op.cpu + \" \" + op.name + \" \" +\n"
	"\t\t\tObject.entries(sum).map(([k, v]) => k + \"=\" + v).join(\" \"));\n"
	"\t});\n"
	"\tpre.textContent = lines.join(\"\\n\");\n"
	"}\n"
	"\n"
	"// The operation step @i belongs to, or else the last one begun before it.\n"
	"function opAt(i) {\n"
	"\tif (opOf[i] >= 0) return opOf[i];\n"
	"\tlet o = -1;\n"
	"\tops.forEach((op, k) => { if (op.begin <= i) o = k; });\n"
	"\treturn o;\n"
	"}\n"
	"\n"
	"function render() {\n"
	"\t$(\"pos\").textContent = R.length ? \"step \" + cur + \" of \" + (R.length - 1) : \"no "
	"records\";\n"
	"\tif (!R.length) return;\n"
	"\tconst r = R[cur], o = opAt(cur);\n"
	"\t$(\"now\").textContent = (SEVERAL ? \"cpu\" + r.cpu + \": \" : \"\") + describe(r);\n"
	"\t$(\"limit\").textContent = r.trace === \"run\" ? \"the batch: \" + r.nr + \" entries "
	"from \" + r.addr +\n"
	"\t\t\", ended by \" + { differs: \"an entry that differs\", folio: \"the folio's end\", "
	"table: \"the table's end\", cap: \"the cap or the range\" }[r.ended_by] +\n"
	"\t\t\" (bound \" + r.limit + \": folio \" + r.in_folio + \", table \" + r.in_table + \", "
	"max \" + r.max_nr + \")\" : \"\";\n"
	"\tdrawStrip(o);\n"
	"\tdrawCounters(o);\n"
	"\tdrawFlushes(o);\n"
	"\tdrawLog();\n"
	"\tdrawSummary();\n"
	"\tdocument.body.dataset.step = String(cur);\n"
	"}\n"
	"\n"
	"function go(i) {\n"
	"\tcur = Math.max(0, Math.min(R.length - 1, i));\n"
	"\thistory.replaceState(null, \"\", cur === R.length - 1 ? \"#end\" : \"#step=\" + cur);\n"
	"\trender();\n"
	"}\n"
	"\n"
	"function fromHash() {\n"
	"\tconst h = location.hash;\n"
	"\tif (h === \"#end\") cur = Math.max(0, R.length - 1);\n"
	"\telse if (/^#step=\\d+$/.test(h)) cur = Math.min(Math.max(0, R.length - 1), "
	"parseInt(h.slice(6), 10));\n"
	"\trender();\n"
	"}\n"
	"\n"
	"$(\"first\").onclick = () => go(0);\n"
	"$(\"prev\").onclick = () => go(cur - 1);\n"
	"$(\"next\").onclick = () => go(cur + 1);\n"
	"$(\"last\").onclick = () => go(R.length - 1);\n"
	"document.addEventListener(\"keydown\", (e) => {\n"
	"\tconst k = { ArrowLeft: -1, p: -1, k: -1, ArrowRight: 1, n: 1, j: 1, \" \": 1 }[e.key];\n"
	"\tif (k) { go(cur + k); e.preventDefault(); }\n"
	"\telse if (e.key === \"Home\") go(0);\n"
	"\telse if (e.key === \"End\") go(R.length - 1);\n"
	"});\n"
	"window.addEventListener(\"hashchange\", fromHash);\n"
	"$(\"cmd\").textContent = INFO.command;\n"
	"$(\"meta\").textContent = INFO.arch + \", \" + INFO.cpus + \" CPU\" + (INFO.cpus > 1 ? "
	"\"s\" : \"\") + \", \" + R.length + \" records, \" + ops.length + \" operations\";\n"
	"if (!R.length) $(\"empty\").hidden = false;\n"
	"fromHash();\n";

int vmm_trace_records_add(struct vmm_trace_records *t, const char *json, size_t n)
{
	char *copy;

	if (t->bytes + n > VMM_TRACE_BYTES_MAX)
		return -1;
	if (t->nr == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 256;
		char **rec = realloc(t->rec, cap * sizeof(*rec));

		if (!rec)
			return -1;
		t->rec = rec;
		t->cap = cap;
	}
	copy = malloc(n + 1);
	if (!copy)
		return -1;
	memcpy(copy, json, n);
	copy[n] = '\0';
	t->rec[t->nr++] = copy;
	t->bytes += n;
	return 0;
}

void vmm_trace_records_free(struct vmm_trace_records *t)
{
	for (size_t i = 0; i < t->nr; i++)
		free(t->rec[i]);
	free(t->rec);
	*t = (struct vmm_trace_records){ 0 };
}

/* @s as HTML text: the five characters markup gives a meaning escaped. */
static void put_html_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		default:
			fputc(*s, f);
		}
	}
}

/* Could byte @c end or open markup inside a <script> element? */
static bool script_unsafe(unsigned char c)
{
	return c == '<' || c == '>' || c == '&';
}

/* @json (strict JSON, so these bytes sit inside strings) into a <script>
 * element: script_unsafe() bytes as \u escapes. */
static void put_json_in_script(FILE *f, const char *json)
{
	for (; *json; json++) {
		if (script_unsafe((unsigned char)*json))
			fprintf(f, "\\u%04x", (unsigned char)*json);
		else
			fputc(*json, f);
	}
}

/* @s as a JSON string inside a <script> element. */
static void put_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c == 0x7f || script_unsafe(c))
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void put_head(FILE *f, const struct vmm_trace_page *p)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n<title>ptelab trace: ",
	      f);
	put_html_text(f, p->command);
	fputs("</title>\n<style>\n", f);
	fputs(page_css, f);
	fputs("</style>\n</head>\n", f);
}

/* The records that are strict JSON objects, as one JSON array. */
static unsigned long put_records(FILE *f, const struct vmm_trace_records *t)
{
	unsigned long dropped = 0;
	bool first = true;

	fputs("<script id=\"trace-data\" type=\"application/json\">[", f);
	for (size_t i = 0; i < t->nr; i++) {
		size_t at;

		if (vmm_json_walk(t->rec[i], strlen(t->rec[i]), NULL, NULL, &at)) {
			dropped++;
			continue;
		}
		fputs(first ? "\n" : ",\n", f);
		put_json_in_script(f, t->rec[i]);
		first = false;
	}
	fputs("\n]</script>\n", f);
	return dropped;
}

int vmm_trace_html_write(FILE *f, const struct vmm_trace_page *p, const struct vmm_trace_records *t,
			 unsigned long *dropped)
{
	put_head(f, p);
	fputs(page_body, f);
	fputs("<script id=\"trace-info\" type=\"application/json\">{\"command\":", f);
	put_json_string(f, p->command);
	fputs(",\"arch\":", f);
	put_json_string(f, p->arch);
	fprintf(f, ",\"cpus\":%d}</script>\n", p->cpus);
	*dropped = put_records(f, t);
	fputs("<script>\n", f);
	fputs(page_js, f);
	fputs("</script>\n</body>\n</html>\n", f);
	return ferror(f) ? -1 : 0;
}
