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
#include "key/outfile.h"
#include "cli/store_cli.h"
#include "gen/gen.h"

static const rk_cli_opt vectors_opts[] = {
	{"schema", 's', 's', "SCHEMA", RK_ARG_SCHEMA, NULL, "the key design: a schema file, or schema text"},
	{"count", 'n', 'n', "N", RK_ARG_NUMBER, NULL, "records (default 1000)"},
	{"seed", 0, 'S', "N", RK_ARG_NUMBER, NULL, "seed of the records and of random salts (default 1)"},
	{"out", 'o', 'o', "FILE", RK_ARG_FILE, NULL, "write to FILE (default: standard output)"},
};

const rk_cli_spec rk_cli_spec_vectors = {
	"vectors",
	"-s SCHEMA [-n N] [--seed N] [-o FILE]",
	"Writes test vectors of a design as JSON lines: N random records, each with its key or the "
	"error that refuses it; damaged keys with their fields or error; and the key ranges of some "
	"fields bound by equality, so that any implementation can be checked against this one. "
	"docs/formats.md part E has the format.",
	vectors_opts, RK_CLI_NOPTS(vectors_opts), RK_ARG_NONE, NULL,
	"  $ rowkey vectors -s design.schema -n 200 -o design.jsonl\n",
	"rowkey-gen(1), rowkey-schema(5)",
};

int rk_cli_vectors(int argc, char **argv)
{
	const char *schema_arg = NULL, *out_path = NULL;
	uint64_t n = 1000, seed = 1;
	int c;
	optind = 1;
	while ((c = rk_cli_getopt(&rk_cli_spec_vectors, argc, argv, NULL)) != -1) {
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
		case 'h': rk_cli_help(&rk_cli_spec_vectors, stdout); return RK_EXIT_OK;
		default: return RK_EXIT_USAGE; /* rk_cli_getopt said why */
		}
	}
	if (optind < argc)
		return rk_cli_usage_error("vectors", "unexpected argument '%s'", argv[optind]);
	if (!schema_arg)
		return rk_cli_usage_error("vectors", "a schema is required (-s SCHEMA)");
	rk_schema *s = NULL;
	if (rk_schema_load(&s, schema_arg) < 0)
		return rk_cli_fail("vectors", "schema");
	rk__outfile o = {.f = stdout};
	if (out_path && rk__outfile_open(&o, out_path) < 0) {
		fprintf(stderr, "rowkey vectors: cannot write %s: %s\n", out_path, strerror(errno));
		rk_schema_free(s);
		return RK_EXIT_FAIL;
	}
	int rc = rk_gen_vectors(o.f, s, (size_t)n, seed);
	int status = rc < 0 ? rk_cli_fail("vectors", out_path ? out_path : "<stdout>") : RK_EXIT_OK;
	if (out_path && rk__outfile_close(&o, rc == 0) < 0 && status == RK_EXIT_OK) {
		fprintf(stderr, "rowkey vectors: writing %s failed: %s\n", out_path, strerror(errno));
		status = RK_EXIT_FAIL;
	}
	rk_schema_free(s);
	return status;
}
