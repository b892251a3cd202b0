/* libFuzzer target: the config loader (cfg_parse) on arbitrary bytes.
 * The config sits in a temporary directory holding t.cu and t_ref.cu, so inputs naming those
 * templates get past the file checks. Checks: no crash, leak or hang (the sanitizers and
 * libFuzzer), and every error is one line "PATH:LINE:COL: msg" with LINE inside the input. */
#include "config.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[] = "/tmp/fuzz_config.XXXXXX", path[64];
static const char *const names[] = {"t.cu", "t_ref.cu"};

static void cleanup(void)
{
	char f[64];
	size_t i;

	for (i = 0; i < LEN(names); i++) {
		snprintf(f, sizeof f, "%s/%s", dir, names[i]);
		unlink(f);
	}
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char f[64];
	size_t i;

	(void)argc;
	(void)argv;
	if (!mkdtemp(dir))
		abort();
	atexit(cleanup);
	for (i = 0; i < LEN(names); i++) {
		FILE *fp;
		snprintf(f, sizeof f, "%s/%s", dir, names[i]);
		if (!(fp = fopen(f, "w")))
			abort();
		fputs("extern \"C\" __global__ void k(float *o) { o[0] = 0; }\n", fp);
		fclose(fp);
	}
	snprintf(path, sizeof path, "%s/c.yaml", dir);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[1024] = "";
	struct config *c = cfg_parse(path, (const char *)data, size, err, sizeof err);
	size_t plen = strlen(path), i, lines = 1;
	long line, col;
	char *end;

	if (c) {
		if (err[0] || !c->name || !c->kernel.source || !c->nbuffers || !c->has_reference)
			abort();
		cfg_free(c);
		return 0;
	}
	/* "PATH:LINE:COL: msg" on one line, LINE within the input */
	if (strncmp(err, path, plen) || err[plen] != ':' || strchr(err, '\n'))
		abort();
	line = strtol(err + plen + 1, &end, 10);
	if (*end != ':' || line < 1)
		abort();
	col = strtol(end + 1, &end, 10);
	if (strncmp(end, ": ", 2) || col < 1 || !end[2])
		abort();
	for (i = 0; i < size; i++) /* line breaks as YAML counts them: CR LF, CR, LF, NEL, LS, PS */
		lines += data[i] == '\n' || (data[i] == '\r' && (i + 1 == size || data[i + 1] != '\n')) ||
		         (data[i] == 0x85 && i > 0 && data[i - 1] == 0xc2) ||
		         ((data[i] == 0xa8 || data[i] == 0xa9) && i > 1 && data[i - 1] == 0x80 &&
		          data[i - 2] == 0xe2);
	if ((size_t)line > lines + 1)
		abort();
	return 0;
}
