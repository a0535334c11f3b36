/*
 * The `rowkey` command: dispatches to one function per subcommand (one file
 * each, listed in commands.def). Ordinary conventions: --help everywhere,
 * errors on stderr, exit 0 / 1 (failed while working) / 2 (usage).
 */
#include "cli/cli.h"
#include "key/suggest.h"

#include <rowkey/bigtable.h>
#include <rowkey/key.h>
#include <rowkey/version.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *f)
{
	rk_cli_help(&rk_cli_main_spec, f);
}

/* Says that `word` is no command, and which one was meant if one is close. */
static int unknown_command(const char *word)
{
	rk__suggest sg;
	rk__suggest_init(&sg, word, strlen(word));
	for (size_t i = 0; i < rk_cli_ncommands; i++)
		rk__suggest_add(&sg, rk_cli_commands[i].name);
	const char *best = rk__suggest_best(&sg);
	if (best)
		fprintf(stderr, "rowkey: unknown command '%s' (did you mean '%s'?)\n", word, best);
	else
		fprintf(stderr, "rowkey: unknown command '%s'\n", word);
	fprintf(stderr, "(see rowkey --help for the commands)\n");
	return RK_EXIT_USAGE;
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
	if (!err)
		err = rk_cli_out_errno();
	if (err != EPIPE) /* the reader went away: end quietly */
		fprintf(stderr, "rowkey %s: writing the output failed: %s\n", cmd,
		        err ? strerror(err) : "a write to standard output failed");
	return status == RK_EXIT_OK ? RK_EXIT_FAIL : status;
}

/* A standard stream the caller closed (rowkey load ... >&-) would be
 * reused by the next file opened: a store's LOCK or log file would then
 * receive what the command prints. Each closed one is held by /dev/null
 * opened the other way round, so that writing (or reading) it fails with
 * EBADF as it would have closed, and no file of ours gets its number. */
static void hold_closed_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
			int h = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
			if (h >= 0 && h != fd) /* lower fds are open: h == fd unless /dev/null is gone */
				close(h);
		}
}

int main(int argc, char **argv)
{
	hold_closed_std_fds();
	/* Into a file or a pipe, what a command prints (a report, --help) goes
	 * out whole at the final flush, where a failure keeps its errno; a
	 * 4 KiB buffer wrote it in pieces from inside printf, and a full disk
	 * then ended as "a write to standard output failed", its cause lost. */
	static char outbuf[1 << 16];
	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
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
	const rk_cli_command *cmd = rk_cli_command_find(argv[1], strlen(argv[1]));
	if (cmd)
		return finish_output(argv[1], cmd->fn(argc - 1, argv + 1));
	if (argv[1][0] == '-') {
		fprintf(stderr, "rowkey: unknown option '%s' (a command comes first: rowkey <command> "
		                "[options]; see rowkey --help)\n",
		        argv[1]);
		return RK_EXIT_USAGE;
	}
	return unknown_command(argv[1]);
}
