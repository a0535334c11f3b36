/*
 * The table of subcommands (commands.def), shared by the command itself
 * (main.c) and the build step that writes the man pages and completions
 * (docgen.c).
 */
#include "cli/cli.h"

#include <string.h>

const rk_cli_command rk_cli_commands[] = {
#define RK_CMD(name, fn, summary) {#name, fn, summary, &rk_cli_spec_##name},
#include "cli/commands.def"
#undef RK_CMD
};

const size_t rk_cli_ncommands = sizeof rk_cli_commands / sizeof rk_cli_commands[0];

const rk_cli_command *rk_cli_command_find(const char *name, size_t n)
{
	for (size_t i = 0; i < rk_cli_ncommands; i++)
		if (strlen(rk_cli_commands[i].name) == n && !memcmp(rk_cli_commands[i].name, name, n))
			return &rk_cli_commands[i];
	return NULL;
}

static const rk_cli_opt main_opts[] = {
	{"version", 0, 'V', NULL, RK_ARG_NONE, NULL, "print rowkey's version and exit"},
};

const rk_cli_spec rk_cli_main_spec = {
	"",
	"<command> [options] [arguments]\n"
	"--version",
	"Design, encode, store and analyze row keys for HBase and Bigtable. A schema states a "
	"key design once (rowkey-schema(5)); the commands encode and decode keys with it, show "
	"what it costs, store and query data with it on an embedded store that behaves like an "
	"HBase cluster on one machine, or on Bigtable, serve that store over the Bigtable API, and "
	"show where a workload's writes land under it.",
	main_opts, RK_CLI_NOPTS(main_opts), RK_ARG_NONE, NULL,
	"  $ rowkey encode -s 'fields date:str, id:u64; key bucket(8, xxh3(id), dec) \":\" date \":\" id' --in m.csv\n"
	"  $ rowkey create --db /tmp/rk events -f d --buckets 8\n"
	"  $ rowkey analyze -w messages --servers 8 -s 'fields date:str, time:str, id:u64; key date \":\" time \":\" id'\n",
	"rowkey-schema(5)",
};
