/*
 * The `rowkey` command: dispatches to one function per subcommand (one file
 * each, listed in commands.def). Ordinary conventions: --help everywhere,
 * errors on stderr, exit 0 / 1 (failed while working) / 2 (usage).
 */
#include "cli/cli.h"

#include <rowkey/key.h>
#include <stdarg.h>
#include <string.h>

struct command {
	const char *name;
	int (*fn)(int, char **);
	const char *summary;
};

static const struct command commands[] = {
#define RK_CMD(name, fn, summary) {#name, fn, summary},
#include "cli/commands.def"
#undef RK_CMD
};

static void usage(FILE *f)
{
	fprintf(f, "usage: rowkey <command> [options]\n\n"
	           "Design, encode, store and analyze row keys for HBase and Bigtable.\n\n"
	           "commands:\n");
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\nrowkey <command> --help shows a command's options.\n");
}

int rk_cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "rowkey %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n(see rowkey %s --help)\n", cmd);
	return RK_EXIT_USAGE;
}

int rk_cli_fail(const char *cmd, const char *what)
{
	fprintf(stderr, "rowkey %s: %s: %s\n", cmd, what, rk_error_last());
	return RK_EXIT_FAIL;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return RK_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return RK_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("rowkey 0.1.0\n");
		return RK_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "rowkey: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return RK_EXIT_USAGE;
}
