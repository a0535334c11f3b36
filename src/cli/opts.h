/*
 * A command's options and words, written once: each subcommand describes
 * itself in an rk_cli_spec (usage, description, one entry per option), and
 * everything a user reads about it comes from there:
 *   - parsing: rk_cli_getopt, getopt_long over the table, which reports an
 *     unknown option once, with the closest real one ("did you mean");
 *   - `rowkey CMD --help`: rk_cli_help;
 *   - the man pages rowkey(1) and rowkey-CMD(1), and the bash and zsh
 *     completions, written at build time by docgen.c from the same tables.
 * So the help, the pages and the completions cannot drift apart.
 *
 * Text in a spec is plain: paragraphs separated by a blank line, and lines
 * that start with two spaces kept as they are (examples, lists). Help text
 * wraps at 80 columns; the man pages let the pager wrap.
 */
#ifndef RK_CLI_OPTS_H
#define RK_CLI_OPTS_H

#include <stddef.h>
#include <stdio.h>

/* What an option's argument (or a command's operand) is, for completion. */
typedef enum rk_cli_arg {
	RK_ARG_NONE = 0, /* a flag: no argument */
	RK_ARG_TEXT,     /* anything */
	RK_ARG_NUMBER,   /* a count or a number */
	RK_ARG_SIZE,     /* bytes: 4M, 64MiB, 1.5G (rk_cli__parse_size) */
	RK_ARG_FILE,     /* a file to read or write */
	RK_ARG_DIR,      /* a directory */
	RK_ARG_SCHEMA,   /* a schema file, or schema text */
	RK_ARG_STORE,    /* a store: a directory, or bigtable://PROJECT/INSTANCE */
	RK_ARG_TABLE,    /* a table of the store named by --db */
	RK_ARG_WORKLOAD, /* an analyzer workload (rk_workload_names) */
	RK_ARG_CHOICE    /* one of the words in `choices` */
} rk_cli_arg;

/* One option. An entry whose `name` is NULL starts a group of options: its
 * `help` is the group's title. */
typedef struct rk_cli_opt {
	const char *name;   /* the long name, without "--" */
	char letter;        /* the short name (-x), or 0 */
	int key;            /* what rk_cli_getopt returns for it (a letter, or a code >= 256) */
	const char *metavar; /* the argument's name in help ("DIR"), NULL for a flag */
	rk_cli_arg arg;     /* the argument's kind (RK_ARG_NONE for a flag) */
	const char *choices; /* RK_ARG_CHOICE: the words, separated by spaces */
	const char *help;   /* what it does */
} rk_cli_opt;

typedef struct rk_cli_spec {
	const char *name;        /* the command ("create"); its one-line summary is in commands.def */
	const char *usage;       /* after "rowkey NAME ": one synopsis a line, '\n' between */
	const char *description; /* paragraphs */
	const rk_cli_opt *opts;  /* --help is added to every command */
	size_t nopts;
	rk_cli_arg operand;      /* completion of the first operand (RK_ARG_NONE: none) */
	const char *words;       /* words the first operand may also be ("move split"), or NULL */
	const char *examples;    /* "$ rowkey ..." lines with what they show, or NULL */
	const char *see_also;    /* "rowkey-get(1), rowkey-schema(5)", or NULL */
} rk_cli_spec;

#define RK_CLI_NOPTS(a) (sizeof(a) / sizeof((a)[0]))

/* A subcommand: commands.def's line, and the spec its file defines
 * (rk_cli_spec_NAME). */
typedef struct rk_cli_command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
	const rk_cli_spec *spec;
} rk_cli_command;

/* Every command, in the order of commands.def (commands.c). */
extern const rk_cli_command rk_cli_commands[];
extern const size_t rk_cli_ncommands;

/* The command named `name` (n bytes), or NULL. */
const rk_cli_command *rk_cli_command_find(const char *name, size_t n);

/* The top page: rowkey(1) and `rowkey --help`. */
extern const rk_cli_spec rk_cli_main_spec;

/* getopt_long over spec's table, argv[0] being the command's name. Returns
 * the key of the next option (optarg set as getopt sets it), 'h' for
 * --help / -h, -1 after the last option (optind: the first operand), or '?'
 * after printing, once, "rowkey CMD: unknown option '--x' (did you mean
 * '--y'?)" or "option '--x' needs an argument" on stderr. *idx (may be NULL)
 * is the option's index in spec->opts. A process parses one command line
 * (optind starts at 1); to parse another argv, set optind = 0 first. */
int rk_cli_getopt(const rk_cli_spec *spec, int argc, char **argv, int *idx);

/* An option's help text as --help and the man page show it, into buf:
 * o->help, and for a workload argument the workloads there are. */
void rk_cli_opt_help(char *buf, size_t cap, const rk_cli_opt *o);

/* Prints `rowkey CMD --help` to f. */
void rk_cli_help(const rk_cli_spec *spec, FILE *f);

/* Calls fn for each paragraph of text (plain text; `pre`: lines kept as
 * written) and for each line of a `pre` paragraph. */
void rk_cli_paragraphs(const char *text,
                       void (*fn)(const char *p, size_t len, int pre, void *payload),
                       void *payload);

#endif
