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
#include "cli/outfile.h"
#include "gen/gen.h"

static void help(FILE *f)
{
	fprintf(f, "usage: rowkey gen --lang java|python|go|ts -s SCHEMA [--name NAME] [--package P] [-o DIR]\n\n"
	           "Writes an encoder and decoder of the design's keys in another language, equal to\n"
	           "this library byte for byte: the design's source file (its record type, its codec)\n"
	           "and the language's runtime beside it. Standard library only. See docs/gen.md.\n\n"
	           "  -l, --lang LANG       java, python, go or ts\n"
	           "  -s, --schema SCHEMA   schema file or schema text\n"
	           "  -n, --name NAME       the design's name: the generated types and file are named\n"
	           "                        after it (default: the schema's name, else RowKey)\n"
	           "  -p, --package P       the Java package (default: none) or Go package (default rowkey)\n"
	           "  -o, --out DIR         the directory to write into, made when missing (default: the\n"
	           "                        current one)\n"
	           "  -h, --help            this help\n");
}

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
	rk_outfile o;
	if (!path)
		return -1;
	snprintf(path, n, "%s/%s", dir, g->name);
	if (rk_outfile_open(&o, path) < 0) {
		fprintf(stderr, "rowkey gen: cannot write %s: %s\n", path, strerror(errno));
		free(path);
		return -1;
	}
	int ok = fwrite(g->text, 1, g->len, o.f) == g->len;
	if (rk_outfile_close(&o, ok) < 0) {
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
	static const struct option opts[] = {{"lang", required_argument, 0, 'l'},
	                                     {"schema", required_argument, 0, 's'},
	                                     {"name", required_argument, 0, 'n'},
	                                     {"package", required_argument, 0, 'p'},
	                                     {"out", required_argument, 0, 'o'},
	                                     {"help", no_argument, 0, 'h'},
	                                     {0, 0, 0, 0}};
	const char *lang = NULL, *schema_arg = NULL, *dir = ".";
	rk_gen_options go = {0};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "l:s:n:p:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'l': lang = optarg; break;
		case 's': schema_arg = optarg; break;
		case 'n': go.name = optarg; break;
		case 'p': go.package = optarg; break;
		case 'o': dir = optarg; break;
		case 'h': help(stdout); return RK_EXIT_OK;
		default: help(stderr); return RK_EXIT_USAGE;
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
