/*
 * The `rowkey` command: dispatches to one function per subcommand (one file
 * each, listed in commands.def). Ordinary conventions: --help everywhere,
 * errors on stderr, exit 0 / 1 (failed while working) / 2 (usage).
 */
#include "cli/cli.h"

#include <rowkey/bigtable.h>
#include <rowkey/key.h>
#include <rowkey/version.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
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

int rk_cli__parse_u64(uint64_t *out, const char *text)
{
	char *end;
	/* digits only: strtoull would take a sign or leading blanks */
	if (!text || *text < '0' || *text > '9')
		return -1;
	errno = 0;
	unsigned long long v = strtoull(text, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int rk_cli__parse_range(uint64_t *out, const char *cmd, const char *opt, const char *text,
                        uint64_t lo, uint64_t hi)
{
	if (rk_cli__parse_u64(out, text) || *out < lo || *out > hi) {
		rk_cli_usage_error(cmd, "%s takes %llu..%llu, not '%s'", opt, (unsigned long long)lo,
		                   (unsigned long long)hi, text);
		return -1;
	}
	return 0;
}

int rk_cli_fail(const char *cmd, const char *what)
{
	fprintf(stderr, "rowkey %s: %s: %s\n", cmd, what, rk_error_last());
	return RK_EXIT_FAIL;
}

int rk_cli_out_failed(void)
{
	return ferror(stdout) != 0;
}

/* Standard output flushed and closed: what a command wrote is only written
 * once this succeeds (a full disk shows at the flush, a network file system
 * at the close). Returns the exit status. */
static int finish_output(const char *cmd, int status)
{
	int bad = ferror(stdout) != 0, err = 0;
	errno = 0;
	if (fflush(stdout) != 0) {
		bad = 1;
		err = errno;
	}
	if (fclose(stdout) != 0 && !bad) {
		bad = 1;
		err = errno;
	}
	if (!bad)
		return status;
	if (err != EPIPE) /* the reader went away: end quietly */
		fprintf(stderr, "rowkey %s: writing the output failed: %s\n", cmd,
		        err ? strerror(err) : "a write to standard output failed");
	return status == RK_EXIT_OK ? RK_EXIT_FAIL : status;
}

int main(int argc, char **argv)
{
#ifdef RK_WITH_BIGTABLE
	rk_bigtable_register(); /* --db bigtable://PROJECT/INSTANCE */
#endif
	if (argc < 2) {
		usage(stderr);
		return RK_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return finish_output("--help", RK_EXIT_OK);
	}
	if (!strcmp(argv[1], "--version")) {
		printf("rowkey %s\n", rk_version());
		return finish_output("--version", RK_EXIT_OK);
	}
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (!strcmp(argv[1], commands[i].name))
			return finish_output(argv[1], commands[i].fn(argc - 1, argv + 1));
	fprintf(stderr, "rowkey: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return RK_EXIT_USAGE;
}
