/*
 * test_trace_html.c - the --trace-html page (vmm/trace_html.c) as text:
 * guest bytes cannot end the data or become markup, a run without records
 * still makes a page, records of two CPUs keep their order. What the page
 * draws is tested in a browser (tests/boot/trace_html.sh).
 */
#include <stdlib.h>

#include "test.h"
#include "vmm_trace_html.h"

/* The page for the @n records @recs as a malloc'ed string. */
static char *page_of(const char *command, int cpus, const char *const recs[], size_t n,
		     unsigned long *dropped)
{
	struct vmm_trace_page p = { command, "x86_64", cpus };
	struct vmm_trace_records t = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	for (size_t i = 0; i < n; i++)
		CHECK_EQ(vmm_trace_records_add(&t, recs[i], strlen(recs[i])), 0);
	CHECK_EQ(vmm_trace_html_write(f, &p, &t, dropped), 0);
	fclose(f);
	vmm_trace_records_free(&t);
	return buf;
}

/* How many times @needle occurs in @s. */
static unsigned count(const char *s, const char *needle)
{
	unsigned n = 0;

	for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* A record and a command line full of markup: in the page only as
 * escapes; the record that is not JSON is left out; nothing is fetched. */
TEST(trace_html_escapes_everything)
{
	static const char *const recs[] = {
		"{\"trace\":\"sent\",\"cpu\":0,\"depth\":1,\"op\":\"munmap\","
		"\"how\":\"</script><script>alert(1)</script>&amp;<!--\",\"counters\":{}}",
		"{\"trace\":\"end\" <b>",
	};
	unsigned long dropped = 0;
	char *html = page_of("run=ptdump <b>&'\"</title>", 1, recs, 2, &dropped);

	CHECK_EQ(dropped, 1);
	CHECK_EQ(count(html, "</script>"), 3); /* the page's own three */
	CHECK_EQ(count(html, "<script"), 3);
	CHECK_EQ(count(html, "</title>"), 1);
	CHECK_EQ(count(html, "<!--"), 0);
	CHECK(strstr(html, "<b>") == NULL);
	CHECK(strstr(html, "run=ptdump &lt;b&gt;&amp;&#39;&quot;&lt;/title&gt;</title>") != NULL);
	CHECK(strstr(html, "\"how\":\"\\u003c/script\\u003e\\u003cscript\\u003ealert(1)"
			   "\\u003c/script\\u003e\\u0026amp;\\u003c!--\"") != NULL);
	CHECK(strstr(html, "\"command\":\"run=ptdump \\u003cb\\u003e\\u0026'\\\"\\u003c/title"
			   "\\u003e\"") != NULL);
	CHECK(strstr(html, "://") == NULL); /* no URL: nothing to fetch */
	CHECK(strstr(html, " src=") == NULL);
	CHECK(strstr(html, "default-src 'none'") != NULL);
	CHECK(strstr(html, "innerHTML") == NULL);
	free(html);
}

/* No records: a whole page with an empty array and the note that says so. */
TEST(trace_html_empty_trace)
{
	unsigned long dropped = 1;
	char *html = page_of("run=hello trace=on", 1, NULL, 0, &dropped);

	CHECK_EQ(dropped, 0);
	CHECK(strstr(html, "<!DOCTYPE html>") == html);
	CHECK(strstr(html, "type=\"application/json\">[\n]</script>") != NULL);
	CHECK(strstr(html, "<p id=\"empty\" hidden>") != NULL);
	CHECK(strstr(html, "</html>\n") != NULL);
	free(html);
}

/* Records of two CPUs, interleaved: all in, in the order given, and the
 * page knows the run had two CPUs (it then shows a CPU column). */
TEST(trace_html_two_cpus)
{
	static const char *const recs[] = {
		"{\"trace\":\"op\",\"cpu\":0,\"depth\":0,\"op\":\"munmap\",\"counters\":{}}",
		"{\"trace\":\"op\",\"cpu\":1,\"depth\":0,\"op\":\"mprotect\",\"counters\":{}}",
		"{\"trace\":\"end\",\"cpu\":1,\"depth\":0,\"op\":\"mprotect\",\"total\":{}}",
		"{\"trace\":\"end\",\"cpu\":0,\"depth\":0,\"op\":\"munmap\",\"total\":{}}",
	};
	unsigned long dropped = 1;
	char *html = page_of("run=stress:mm", 2, recs, 4, &dropped);
	const char *at = html;

	CHECK_EQ(dropped, 0);
	CHECK(strstr(html, ",\"cpus\":2}</script>") != NULL);
	for (int i = 0; i < 4; i++) {
		const char *p = strstr(at, recs[i]);

		CHECK(p != NULL);
		at = p ? p : at;
	}
	CHECK(strstr(html, "SEVERAL ? [\"CPU\"]") != NULL);
	free(html);
}

TEST_SUITE(trace_html, trace_html_escapes_everything, trace_html_empty_trace, trace_html_two_cpus)
