/*
 * test_json.c - the strict JSON reader (vmm/json.c) and the CSV rows it
 * feeds (vmm/csv.c): what RFC 8259 refuses is refused, nesting is bounded
 * however deep the guest goes, and a CSV reader or spreadsheet sees the
 * columns the JSON had, whatever the strings hold.
 */
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "vmm_csv.h"
#include "vmm_json.h"

static const char *check_json(const char *s)
{
	size_t at;

	return vmm_json_walk(s, strlen(s), NULL, NULL, &at);
}

/* Strict JSON objects pass, with any whitespace, escapes and UTF-8. */
TEST(json_accepts_strict)
{
	static const char *const good[] = {
		"{}",
		" {\"a\":1} ",
		"{\"a\":-0.5e+3,\"b\":[1,2,{\"c\":null}],\"d\":true,\"e\":false}",
		"{\"s\":\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\"}",
		"{\"u\":\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"}",
		"{\"\":1}", /* an empty key is JSON (refused only for CSV) */
		"{\"a\":[]}",
		"{\"a\":{\"b\":{\"c\":{\"d\":{\"e\":{\"f\":{\"g\":1}}}}}}}", /* 8 deep */
	};

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		CHECK(check_json(good[i]) == NULL);
}

/* Everything outside the grammar is refused, each with its reason. */
TEST(json_refuses_non_strict)
{
	static const char *const bad[] = {
		"",
		"[1]",
		"1",
		"{\"a\":1",
		"{\"a\" 1}",
		"{\"a\":1}x",
		"{a:1}",
		"{\"a\":}",
		"{\"a\":1,}",
		"{\"a\":01}",
		"{\"a\":1.}",
		"{\"a\":.5}",
		"{\"a\":1e}",
		"{\"a\":+1}",
		"{\"a\":-}",
		"{\"a\":tru}",
		"{\"a\":nul}",
		"{\"a\":NaN}",
		"{\"a\":\"\t\"}",
		"{\"a\":\"\r\"}",
		"{\"a\":\"\\x\"}",
		"{\"a\":\"\\u12g4\"}",
		"{\"a\":\"\\u12\"}",
		"{\"a\":\"x}",
		"{\"a\":\"\xff\"}",
		"{\"a\":\"\xc0\xaf\"}",
		"{\"a\":\"\xed\xa0\x80\"}",
		"{\"a\":\"\xf4\x90\x80\x80\"}",
		"{\"a\":\"\xe2\x82\"}",
		"{\"a\":[1,]}",
		"{\"a\":[1}",
		"{\"a\":1]",
		"{\"a\":\"\x7f\"}x",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(check_json(bad[i]) != NULL);
	/* A NUL byte inside the text is a control character, not its end. */
	CHECK(vmm_json_walk("{\"a\":\"\0\"}", 9, NULL, NULL, &(size_t){ 0 }) != NULL);
}

/* A guest's 64 KiB line of {"":{"":... is refused at the ninth level,
 * in constant stack: checked here on a line of 13,000 levels. */
TEST(json_depth_bounded)
{
	enum { LEVELS = 13000 };
	size_t n = 0, at = 0;
	char *s = malloc(LEVELS * 5 + 2);
	const char *why;

	for (int i = 0; i < LEVELS; i++) {
		memcpy(s + n, "{\"\":", 4);
		n += 4;
	}
	s[n++] = '1';
	memset(s + n, '}', LEVELS);
	n += LEVELS;
	why = vmm_json_walk(s, n, NULL, NULL, &at);
	CHECK(why != NULL);
	CHECK_HAS(why ? why : "", "deep");
	CHECK_EQ(at, (size_t)4 * VMM_JSON_MAX_DEPTH);
	free(s);
}

/* Run @json through a fresh CSV writer; *@buf holds the file (free it). */
static const char *csv_one(const char *json, char **buf)
{
	static struct vmm_csv csv;
	size_t len = 0, at;
	const char *why;

	memset(&csv, 0, sizeof(csv));
	csv.f = open_memstream(buf, &len);
	why = vmm_csv_row(&csv, json, strlen(json), &at);
	fclose(csv.f);
	return why;
}

/* Names are always quoted, a comma in a key stays in its column, and
 * strings a spreadsheet would run are neutralised; numbers are not. */
TEST(csv_quotes_and_neutralises)
{
	char *buf = NULL;

	CHECK(csv_one("{\"bench,fake\":\"=1+1\",\"b\":\"+x\",\"c\":\"-y\",\"d\":\"@z\","
		      "\"e\":\"\\tq\",\"n\":-5,\"q\":\"a\\\"b\"}",
		      &buf) == NULL);
	CHECK_STR(buf, "\"bench,fake\",\"b\",\"c\",\"d\",\"e\",\"n\",\"q\"\n"
		       "'=1+1,'+x,'-y,'@z,\\tq,-5,\"a\\\"\"b\"\n");
	free(buf);
}

/* CSV refuses what has no column: empty keys (also deep ones), arrays,
 * names too long, and of course text that is not strict JSON. */
TEST(csv_refuses_columnless)
{
	static const char *const bad[] = {
		"{\"\":1}",
		"{\"a\":{\"\":1}}",
		"{\"a\":[1]}",
		"{\"a\":\"\r\"}",
		"{\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\":{\"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\":1}}",
	};
	char *buf = NULL;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(csv_one(bad[i], &buf) != NULL);
		CHECK_STR(buf, "");
		free(buf);
		buf = NULL;
	}
}

TEST_SUITE(json, json_accepts_strict, json_refuses_non_strict, json_depth_bounded,
	   csv_quotes_and_neutralises, csv_refuses_columnless);
