/*
 * rowkey vectors: records of a design and their keys as JSON lines, with the
 * errors the library gives for records it refuses, damaged keys with what
 * the decoder makes of them, and the planner's ranges for bound fields
 * (docs/formats.md part E), so that any implementation can be checked
 * against this one in its own CI.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <rowkey/key.h>

#include "cli/cli.h"
#include "cli/outfile.h"
#include "cli/store_cli.h"
#include "gen/gen.h"

static void help(FILE *f)
{
	fprintf(f, "usage: rowkey vectors -s SCHEMA [-n N] [--seed N] [-o FILE]\n\n"
	           "Writes test vectors of a design as JSON lines: N random records, each with its key\n"
	           "or the error that refuses it; damaged keys with their fields or error; and the key\n"
	           "ranges of some fields bound by equality. docs/formats.md part E has the format.\n\n"
	           "  -s, --schema SCHEMA   schema file or schema text\n"
	           "  -n, --count N         records (default 1000)\n"
	           "      --seed N          seed of the records and of random salts (default 1)\n"
	           "  -o, --out FILE        write to FILE (default: standard output)\n"
	           "  -h, --help            this help\n");
}

int rk_cli_vectors(int argc, char **argv)
{
	static const struct option opts[] = {{"schema", required_argument, 0, 's'},
	                                     {"count", required_argument, 0, 'n'},
	                                     {"seed", required_argument, 0, 'S'},
	                                     {"out", required_argument, 0, 'o'},
	                                     {"help", no_argument, 0, 'h'},
	                                     {0, 0, 0, 0}};
	const char *schema_arg = NULL, *out_path = NULL;
	uint64_t n = 1000, seed = 1;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "s:n:o:h", opts, NULL)) != -1) {
		switch (c) {
		case 's': schema_arg = optarg; break;
		case 'n':
			if (rk_cli__parse_u64(&n, optarg) < 0 || n > 100000000)
				return rk_cli_usage_error("vectors", "-n takes a count 0..100000000, not '%s'", optarg);
			break;
		case 'S':
			if (rk_cli__parse_u64(&seed, optarg) < 0)
				return rk_cli_usage_error("vectors", "--seed takes a whole number, not '%s'", optarg);
			break;
		case 'o': out_path = optarg; break;
		case 'h': help(stdout); return RK_EXIT_OK;
		default: help(stderr); return RK_EXIT_USAGE;
		}
	}
	if (optind < argc)
		return rk_cli_usage_error("vectors", "unexpected argument '%s'", argv[optind]);
	if (!schema_arg)
		return rk_cli_usage_error("vectors", "a schema is required (-s SCHEMA)");
	rk_schema *s = NULL;
	if (rk_schema_load(&s, schema_arg) < 0)
		return rk_cli_fail("vectors", "schema");
	rk_outfile o = {.f = stdout};
	if (out_path && rk_outfile_open(&o, out_path) < 0) {
		fprintf(stderr, "rowkey vectors: cannot write %s: %s\n", out_path, strerror(errno));
		rk_schema_free(s);
		return RK_EXIT_FAIL;
	}
	int rc = rk_gen_vectors(o.f, s, (size_t)n, seed);
	int status = rc < 0 ? rk_cli_fail("vectors", out_path ? out_path : "<stdout>") : RK_EXIT_OK;
	if (out_path && rk_outfile_close(&o, rc == 0) < 0 && status == RK_EXIT_OK) {
		fprintf(stderr, "rowkey vectors: writing %s failed: %s\n", out_path, strerror(errno));
		status = RK_EXIT_FAIL;
	}
	rk_schema_free(s);
	return status;
}
