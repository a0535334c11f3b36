/*
 * What every subcommand reports errors with (cli.h): one line on stderr
 * naming the command, and the exit status that goes with it; and how every
 * subcommand reads a number option and notices a failed write.
 */
#include "cli/cli.h"

#include <rowkey/key.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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
	const char *msg = rk_error_last();
	size_t n = what ? strlen(what) : 0;
	if (n && !strncmp(msg, what, n) && msg[n] == ':') /* the message names it already */
		fprintf(stderr, "rowkey %s: %s\n", cmd, msg);
	else
		fprintf(stderr, "rowkey %s: %s: %s\n", cmd, what, msg);
	return RK_EXIT_FAIL;
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

int rk_cli__parse_limit(uint64_t *out, const char *cmd, const char *text)
{
	if (rk_cli__parse_u64(out, text) == 0 && *out == 0) {
		rk_cli_usage_error(cmd, "--limit takes 1 or more rows, not 0 (leave --limit out for every row)");
		return -1;
	}
	return rk_cli__parse_range(out, cmd, "--limit", text, 1, UINT64_MAX);
}

int rk_cli_out_failed(void)
{
	return ferror(stdout) != 0;
}

static int out_errno;

void rk_cli_out_text(const char *text)
{
	errno = 0;
	if (fputs(text, stdout) == EOF && !out_errno)
		out_errno = errno;
}

int rk_cli_out_errno(void)
{
	return out_errno;
}

int rk_cli__parse_on_error(int *skip, const char *cmd, const char *mode)
{
	*skip = !strcmp(mode, "skip");
	if (!*skip && strcmp(mode, "stop")) {
		rk_cli_usage_error(cmd, "--on-error takes stop or skip, not '%s'", mode);
		return -1;
	}
	return 0;
}

int rk_cli__open_input(FILE **in, const char *cmd, const char *path)
{
	*in = path ? fopen(path, "rb") : stdin;
	if (*in)
		return 0;
	fprintf(stderr, "rowkey %s: cannot open '%s'\n", cmd, path);
	return -1;
}
