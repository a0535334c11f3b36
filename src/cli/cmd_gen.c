/*
 * rowkey gen: an encoder and decoder of a design's keys in Java, Python, Go
 * or TypeScript (src/gen/, docs/gen.md): two files written into a
 * directory, the design's own and the language's runtime, each whole or
 * not at all.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rowkey/key.h>

#include "cli/cli.h"
#include "key/outfile.h"
#include "gen/gen.h"

static const rk_cli_opt gen_opts[] = {
	{"lang", 'l', 'l', "LANG", RK_ARG_CHOICE, "java python go ts", "the language to write"},
	{"schema", 's', 's', "SCHEMA", RK_ARG_SCHEMA, NULL, "the key design: a schema file, or schema text"},
	{"name", 'n', 'n', "NAME", RK_ARG_TEXT, NULL,
	 "the design's name: the generated types and file are named after it (default: the "
	 "schema's name, else RowKey)"},
	{"package", 'p', 'p', "P", RK_ARG_TEXT, NULL,
	 "the Java package (default: none) or Go package (default rowkey)"},
	{"out", 'o', 'o', "DIR", RK_ARG_DIR, NULL,
	 "the directory to write into, made when missing (default: the current one)"},
};

const rk_cli_spec rk_cli_spec_gen = {
	"gen",
	"--lang java|python|go|ts -s SCHEMA [--name NAME] [--package P] [-o DIR]",
	"Writes an encoder and decoder of the design's keys in another language, equal to this "
	"library byte for byte: the design's source file (its record type, its codec) and the "
	"language's runtime beside it, each written whole or not at all. Standard library only; "
	"see docs/gen.md. It prints the paths of the files it wrote.",
	gen_opts, RK_CLI_NOPTS(gen_opts), RK_ARG_NONE, NULL,
	"  $ rowkey gen --lang python -s 'fields user:u64, ts:ts; key bucket(8, xxh3(user)) u64(user) u64(ts)' -o out\n",
	"rowkey-vectors(1), rowkey-schema(5)",
};

/* mkdir -p: a missing directory and its parents are made (a source tree's
 * package directories usually are). */
static int make_dirs(const char *dir)
{
	struct stat st;
	if (stat(dir, &st) == 0) {
		errno = ENOTDIR;
		return S_ISDIR(st.st_mode) ? 0 : -1;
	}
	char *p = strdup(dir);
	if (!p)
		return -1;
	for (char *c = p + 1;; c++) {
		if (*c != '/' && *c)
			continue;
		char was = *c;
		*c = 0;
		if (mkdir(p, 0777) != 0 && errno != EEXIST) {
			free(p);
			return -1;
		}
		if (!was)
			break;
		*c = was;
	}
	free(p);
	return stat(dir, &st) == 0 && S_ISDIR(st.st_mode) ? 0 : -1;
}

static int write_file(const char *dir, const rk_gen_file *g)
{
	size_t n = strlen(dir) + strlen(g->name) + 2;
	char *path = malloc(n);
	rk__outfile o;
	if (!path)
		return -1;
	snprintf(path, n, "%s/%s", dir, g->name);
	if (rk__outfile_open(&o, path) < 0) {
		fprintf(stderr, "rowkey gen: cannot write %s: %s\n", path, strerror(errno));
		free(path);
		return -1;
	}
	int ok = fwrite(g->text, 1, g->len, o.f) == g->len;
	if (rk__outfile_close(&o, ok) < 0) {
		fprintf(stderr, "rowkey gen: writing %s failed: %s\n", path, strerror(errno));
		free(path);
		return -1;
	}
	printf("%s\n", path);
	free(path);
	return 0;
}

int rk_cli_gen(int argc, char **argv)
{
	const char *lang = NULL, *schema_arg = NULL, *dir = ".";
	rk_gen_options go = {0};
	int c;
	optind = 1;
	while ((c = rk_cli_getopt(&rk_cli_spec_gen, argc, argv, NULL)) != -1) {
		switch (c) {
		case 'l': lang = optarg; break;
		case 's': schema_arg = optarg; break;
		case 'n': go.name = optarg; break;
		case 'p': go.package = optarg; break;
		case 'o': dir = optarg; break;
		case 'h': rk_cli_help(&rk_cli_spec_gen, stdout); return RK_EXIT_OK;
		default: return RK_EXIT_USAGE; /* rk_cli_getopt said why */
		}
	}
	if (optind < argc)
		return rk_cli_usage_error("gen", "unexpected argument '%s'", argv[optind]);
	if (!lang)
		return rk_cli_usage_error("gen", "a language is required (--lang java|python|go|ts)");
	if (!schema_arg)
		return rk_cli_usage_error("gen", "a schema is required (-s SCHEMA)");
	if (rk_gen_lang_parse(&go.lang, lang) < 0)
		return rk_cli_usage_error("gen", "%s", rk_error_last());
	rk_schema *s = NULL;
	if (rk_schema_load(&s, schema_arg) < 0)
		return rk_cli_fail("gen", "schema");
	rk_gen_file files[2];
	int rc = rk_gen_source(files, s, &go);
	rk_schema_free(s);
	if (rc == RK_EINVALID)
		return rk_cli_usage_error("gen", "%s", rk_error_last());
	if (rc < 0)
		return rk_cli_fail("gen", "generating");
	int status = RK_EXIT_OK;
	if (make_dirs(dir) < 0) {
		rk_gen_files_free(files, 2);
		return rk_cli_usage_error("gen", "cannot make the directory '%s' (-o DIR): %s", dir, strerror(errno));
	}
	for (int i = 0; i < 2 && status == RK_EXIT_OK; i++)
		if (write_file(dir, &files[i]) < 0)
			status = RK_EXIT_FAIL;
	rk_gen_files_free(files, 2);
	return status;
}
