/*
 * Fuzz target: the generators and the test vectors. Any schema the parser
 * accepts must generate in every language (names, literals and alphabets
 * of any bytes written so the language reads them back) and give vectors;
 * a failure to do either is a bug, not a refusal.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rowkey/key.h>

#include "gen/gen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rk_schema *s = NULL;
	if (rk_schema_parse(&s, (const char *)data, size, "fuzz") != 0)
		return 0;
	static const rk_gen_lang langs[] = {RK_GEN_JAVA, RK_GEN_PYTHON, RK_GEN_GO, RK_GEN_TS};
	for (size_t i = 0; i < sizeof langs / sizeof langs[0]; i++) {
		rk_gen_options o = {.lang = langs[i], .name = "Fuzz"};
		rk_gen_file f[2];
		if (rk_gen_source(f, s, &o) != 0 || strlen(f[0].text) != f[0].len || !strstr(f[0].text, "DO NOT EDIT"))
			abort();
		rk_gen_files_free(f, 2);
	}
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	if (!out || rk_gen_vectors(out, s, 6, 1) != 0)
		abort();
	fclose(out);
	free(buf);
	rk_schema_free(s);
	return 0;
}
