/*
 * test_console.c - the guest's serial output in the VMM (vmm/console.c):
 * bytes pass through unchanged, RESULT lines are captured whole and only
 * whole, whatever chunks the guest's bytes arrive in. The bytes are the
 * guest's, so they are untrusted input: overlong lines are among them.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <unistd.h>

#include "test.h"
#include "vmm_console.h"

static struct vmm_console con;
static char dir[32], out_path[64], res_path[64];
static int out_fd;

static void open_console(void)
{
	strcpy(dir, "/tmp/ptelab-con.XXXXXX");
	CHECK(mkdtemp(dir) != NULL);
	snprintf(out_path, sizeof(out_path), "%s/out", dir);
	snprintf(res_path, sizeof(res_path), "%s/results", dir);
	out_fd = open(out_path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	CHECK_EQ(vmm_console_init(&con, out_fd, res_path), 0);
}

/* Read all of @path into a malloc'ed, NUL-terminated string. */
static char *slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY);
	off_t size = fd < 0 ? 0 : lseek(fd, 0, SEEK_END);
	char *s = malloc((size_t)size + 1);

	*len = 0;
	if (fd >= 0 && pread(fd, s, (size_t)size, 0) == size)
		*len = (size_t)size;
	s[*len] = 0;
	if (fd >= 0)
		close(fd);
	return s;
}

/* Close the console; its stdout and results file as strings. */
static void close_console(char **out, size_t *out_len, char **res)
{
	size_t n;

	CHECK_EQ(vmm_console_close(&con), 0);
	close(out_fd);
	*out = slurp(out_path, out_len);
	*res = slurp(res_path, &n);
	unlink(out_path);
	unlink(res_path);
	rmdir(dir);
}

static const char stream[] = "boot: hello\n"
			     "RESULT {\"bench\":\"fault\",\"reps\":4}\n"
			     "RESULT {\"bench\":\"zap\"}\r\n"
			     "not a RESULT {\"x\":1}\n"
			     "RESULT\n"
			     "RESULT {\"tail\":1}"; /* no newline: not captured */

/* Whole RESULT lines become JSON lines (without the tag or a CR); other
 * lines and a partial last line only pass through. */
TEST(result_lines_captured)
{
	char *out, *res;
	size_t n;

	open_console();
	vmm_console_put(&con, stream, strlen(stream));
	close_console(&out, &n, &res);
	CHECK_EQ(n, strlen(stream));
	CHECK(memcmp(out, stream, n) == 0);
	CHECK_STR(res, "{\"bench\":\"fault\",\"reps\":4}\n{\"bench\":\"zap\"}\n");
	CHECK_EQ(con.nr_results, 2);
	free(out);
	free(res);
}

/* The same stream cut into random chunks gives the same output. */
TEST(any_chunking_same_result)
{
	uint64_t seed = 12345;

	for (int round = 0; round < 200; round++) {
		size_t len = strlen(stream), pos = 0, n;
		char *out, *res;

		open_console();
		while (pos < len) {
			size_t take;

			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			take = 1 + (size_t)(seed >> 33) % 9;
			take = take < len - pos ? take : len - pos;
			vmm_console_put(&con, stream + pos, take);
			pos += take;
		}
		close_console(&out, &n, &res);
		CHECK_EQ(n, len);
		CHECK(memcmp(out, stream, n) == 0);
		CHECK_STR(res, "{\"bench\":\"fault\",\"reps\":4}\n{\"bench\":\"zap\"}\n");
		free(out);
		free(res);
	}
}

/* A RESULT line longer than the line buffer passes through whole but is
 * not captured (it would be cut); the next line is captured again. */
TEST(overlong_line_passes_uncaptured)
{
	size_t big = VMM_CONSOLE_LINE_MAX + 1000, n;
	char *line = malloc(big + 1), *out, *res, err_path[64], *err;
	int saved = dup(2), fd;

	memcpy(line, "RESULT {\"", 9);
	memset(line + 9, 'a', big - 9);
	line[big - 1] = '\n';
	line[big] = 0;

	open_console();
	snprintf(err_path, sizeof(err_path), "%s/stderr", dir);
	fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	dup2(fd, 2); /* the warning goes to stderr: catch it */
	vmm_console_put(&con, line, 5000);
	vmm_console_put(&con, line + 5000, big - 5000);
	vmm_console_put(&con, "RESULT {}\n", 10);
	dup2(saved, 2);
	close(saved);
	close(fd);
	err = slurp(err_path, &n);
	CHECK_STR(err, "ptelab: a RESULT line longer than 65536 bytes was not captured\n");
	free(err);
	unlink(err_path);
	close_console(&out, &n, &res);
	CHECK_EQ(n, big + 10);
	CHECK(memcmp(out, line, big) == 0);
	CHECK_STR(res, "{}\n");
	free(line);
	free(out);
	free(res);
}

/* A flush (before ptelab reports on stderr) passes the partial line on;
 * the rest of that line is no longer a RESULT. */
TEST(flush_ends_capture)
{
	char *out, *res;
	size_t n;

	open_console();
	vmm_console_put(&con, "RESULT {\"a\"", 11);
	vmm_console_flush(&con);
	vmm_console_put(&con, ":1}\nRESULT {\"b\":2}\n", 19);
	close_console(&out, &n, &res);
	CHECK_STR(out, "RESULT {\"a\":1}\nRESULT {\"b\":2}\n");
	CHECK_STR(res, "{\"b\":2}\n");
	free(out);
	free(res);
}

/* A reader that went away (closed pipe) stops output, not the VMM. */
TEST(broken_stdout_survived)
{
	int p[2];

	CHECK_EQ(pipe(p), 0);
	close(p[0]);
	CHECK_EQ(vmm_console_init(&con, p[1], NULL), 0);
	vmm_console_put(&con, "one\ntwo\n", 8); /* EPIPE: SIGPIPE is ignored below */
	CHECK(con.out_broken);
	CHECK_EQ(vmm_console_close(&con), 0);
	close(p[1]);
}

/* ptelab ignores SIGPIPE (run.c); so must this process for the case above. */
__attribute__((constructor)) static void ignore_sigpipe(void)
{
	signal(SIGPIPE, SIG_IGN);
}

/* Progress dots show at once: a partial line that cannot be a RESULT line
 * is written out as it comes, one that still may be one is held. */
TEST(progress_passes_at_once)
{
	char *out, *res;
	size_t n;
	struct stat st;

	open_console();
	vmm_console_put(&con, "  zap 64K: ", strlen("  zap 64K: "));
	vmm_console_put(&con, ".", 1);
	CHECK_EQ(fstat(out_fd, &st), 0);
	CHECK_EQ(st.st_size, 12);
	vmm_console_put(&con, ". 2 reps\nRESUL", strlen(". 2 reps\nRESUL"));
	CHECK_EQ(fstat(out_fd, &st), 0);
	CHECK_EQ(st.st_size, 21); /* "RESUL" is held */
	vmm_console_put(&con, "T {\"a\":1}\n", strlen("T {\"a\":1}\n"));
	close_console(&out, &n, &res);
	CHECK_STR(out, "  zap 64K: .. 2 reps\nRESULT {\"a\":1}\n");
	CHECK_STR(res, "{\"a\":1}\n");
	free(out);
	free(res);
}

/* The status line (ptelab/abi.h) is taken and hidden, in any chunking;
 * the last one counts; anything that is not exactly a tag and a status
 * 0..255 is ordinary output. */
TEST(status_line_taken_and_hidden)
{
	static const char in[] = "a\nptelab-exit-status 9\nptelab-exit-status 256\n"
				 "ptelab-exit-status 7x\nptelab-exit-status 1234\n"
				 "ptelab-exit-status 42\r\nb\n";
	static const char want[] = "a\nptelab-exit-status 256\nptelab-exit-status 7x\n"
				   "ptelab-exit-status 1234\nb\n";
	char *out, *res;
	size_t len;

	for (size_t chunk = 1; chunk <= 7; chunk += 3) {
		open_console();
		CHECK_EQ(con.exit_status, -1);
		for (size_t i = 0; i < sizeof(in) - 1; i += chunk)
			vmm_console_put(&con, in + i,
					i + chunk < sizeof(in) - 1 ? chunk : sizeof(in) - 1 - i);
		CHECK_EQ(con.exit_status, 42);
		close_console(&out, &len, &res);
		CHECK_STR(out, want);
		free(out);
		free(res);
	}
}

/* Only strict JSON reaches the results file: a flood of bad RESULT lines
 * leaves it with the good ones, and stdout shows ESC and other controls
 * as ^X (but keeps \t and \r). */
TEST(bad_results_dropped_controls_shown)
{
	static const char in[] =
		"RESULT {\"a\":1}\n"
		"RESULT {\"a\":\"\x01\"}\n"
		"RESULT {\"a\":1} x\n"
		"RESULT {\"\":{\"\":{\"\":{\"\":{\"\":{\"\":{\"\":{\"\":{\"\":1}}}}}}}}}\n"
		"\x1b[2J\tx\x7f\r\n"
		"RESULT {\"b\":2}\n";
	char *out, *res;
	size_t n;

	open_console();
	for (int i = 0; i < 3; i++)
		vmm_console_put(&con, in, sizeof(in) - 1);
	CHECK_EQ(con.nr_dropped, 9);
	close_console(&out, &n, &res);
	CHECK_STR(res, "{\"a\":1}\n{\"b\":2}\n{\"a\":1}\n{\"b\":2}\n{\"a\":1}\n{\"b\":2}\n");
	CHECK_HAS(out, "\n^[[2J\tx^?\r\n");
	CHECK(strchr(out, 0x1b) == NULL);
	CHECK(strstr(out, "\"^A\"") != NULL);
	free(out);
	free(res);
}

/* trace=on records (PTELAB_TRACE_LINE): their JSON to the results file in
 * order with the RESULT lines and to the --trace-html records, the line
 * not shown; a record that is not JSON is dropped. */
TEST(trace_records_routed)
{
	static const char in[] = "trace: cpu0 munmap\n"
				 "TRACE {\"trace\":\"op\",\"cpu\":0}\n"
				 "RESULT {\"bench\":\"zap\"}\n"
				 "TRACE {\"trace\":\"end\"\n"
				 "TRACE {\"trace\":\"end\",\"cpu\":0}\r\n";
	struct vmm_trace_records t = { 0 };
	int saved = dup(2), null = open("/dev/null", O_WRONLY);
	char *out, *res;
	size_t n;

	open_console();
	con.trace = &t;
	dup2(null, 2); /* the dropped record is reported */
	for (size_t i = 0; i < sizeof(in) - 1; i += 7)
		vmm_console_put(&con, in + i, sizeof(in) - 1 - i < 7 ? sizeof(in) - 1 - i : 7);
	dup2(saved, 2);
	close(saved);
	close(null);
	close_console(&out, &n, &res);
	CHECK_STR(out, "trace: cpu0 munmap\nRESULT {\"bench\":\"zap\"}\n");
	CHECK_STR(res, "{\"trace\":\"op\",\"cpu\":0}\n{\"bench\":\"zap\"}\n"
		       "{\"trace\":\"end\",\"cpu\":0}\n");
	CHECK_EQ(t.nr, 2);
	if (t.nr == 2) {
		CHECK_STR(t.rec[0], "{\"trace\":\"op\",\"cpu\":0}");
		CHECK_STR(t.rec[1], "{\"trace\":\"end\",\"cpu\":0}");
	}
	CHECK_EQ(con.nr_traces, 3);
	vmm_trace_records_free(&t);
	free(out);
	free(res);
}

TEST_SUITE(console, result_lines_captured, trace_records_routed, bad_results_dropped_controls_shown,
	   any_chunking_same_result, overlong_line_passes_uncaptured, flush_ends_capture,
	   broken_stdout_survived, progress_passes_at_once, status_line_taken_and_hidden)
