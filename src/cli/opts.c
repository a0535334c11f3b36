/*
 * Parsing a command's options from its table, and its --help (opts.h).
 * getopt_long does the parsing (permuting, abbreviations, -xVALUE and
 * --name=value); this file turns the table into getopt's arrays and
 * getopt's silent failures into one message each, with a suggestion.
 */
#include "cli/opts.h"

#include <ctype.h>
#include <getopt.h>
#include <string.h>

#include <rowkey/analyze.h>

#include "cli/cli.h"
#include "key/suggest.h"

#define MAX_OPTS 96
#define WIDTH 80
#define OPT_COL 26 /* where an option's help starts in --help */

static const rk_cli_opt help_opt = {"help", 'h', 'h', NULL, RK_ARG_NONE, NULL, "this help"};

/* getopt's view of a spec: built on the first call for a spec, kept while
 * the command runs (the command is single-threaded). */
static const rk_cli_spec *built;
static struct option longopts[MAX_OPTS + 2];
static int longidx[MAX_OPTS + 2]; /* longopts[i] is spec->opts[longidx[i]]; -1: --help */
static char shortopts[3 * MAX_OPTS + 4];

static void build(const rk_cli_spec *spec)
{
	size_t nl = 0, ns = 0;
	shortopts[ns++] = ':'; /* report a missing argument as ':' */
	for (size_t i = 0; i < spec->nopts && nl < MAX_OPTS; i++) {
		const rk_cli_opt *o = &spec->opts[i];
		if (!o->name)
			continue;
		longopts[nl] = (struct option){o->name, o->metavar ? required_argument : no_argument,
		                               NULL, o->key};
		longidx[nl++] = (int)i;
		if (o->letter) {
			shortopts[ns++] = o->letter;
			if (o->metavar)
				shortopts[ns++] = ':';
		}
	}
	longopts[nl] = (struct option){"help", no_argument, NULL, 'h'};
	longidx[nl++] = -1;
	longopts[nl] = (struct option){NULL, 0, NULL, 0};
	shortopts[ns++] = 'h';
	shortopts[ns] = 0;
	built = spec;
}

/* The spec entry of a short option letter, or -1 (--help's -h). */
static int by_letter(const rk_cli_spec *spec, int c)
{
	for (size_t i = 0; i < spec->nopts; i++)
		if (spec->opts[i].name && spec->opts[i].letter == c)
			return (int)i;
	return -1;
}

/* The long option `word` (without "--", up to '=' or the end) is not one of
 * the command's: says whether it is ambiguous, or what was meant. */
static void unknown_long(const rk_cli_spec *spec, const char *word)
{
	size_t n = strcspn(word, "=");
	char names[512] = "";
	size_t nprefix = 0;
	rk__suggest sg;
	rk__suggest_init(&sg, word, n);
	for (size_t i = 0; longopts[i].name; i++) {
		const char *name = longopts[i].name;
		if (strlen(name) == n && !strncmp(name, word, n)) {
			/* the name is right: then the argument was wrong */
			rk_cli_usage_error(spec->name, "option '--%s' %s", name,
			                   longopts[i].has_arg ? "needs an argument"
			                                       : "takes no argument");
			return;
		}
		if (!strncmp(name, word, n) && strlen(names) + strlen(name) + 8 < sizeof names) {
			snprintf(names + strlen(names), sizeof names - strlen(names), "%s--%s",
			         nprefix++ ? ", " : "", name);
		}
		rk__suggest_add(&sg, name);
	}
	if (nprefix > 1) {
		rk_cli_usage_error(spec->name, "option '--%.*s' is ambiguous: %s", (int)n, word, names);
		return;
	}
	const char *best = rk__suggest_best(&sg);
	if (best)
		rk_cli_usage_error(spec->name, "unknown option '--%.*s' (did you mean '--%s'?)", (int)n,
		                   word, best);
	else
		rk_cli_usage_error(spec->name, "unknown option '--%.*s'", (int)n, word);
}

/* The longopts entry named exactly by "--name[=value]", or -1. */
static int long_named(const char *arg)
{
	size_t n = strcspn(arg + 2, "=");
	for (int i = 0; longopts[i].name; i++)
		if (strlen(longopts[i].name) == n && !strncmp(longopts[i].name, arg + 2, n))
			return i;
	return -1;
}

/* getopt_long failed with '?' or ':': one message, naming what was wrong. */
static void report(const rk_cli_spec *spec, int c, int argc, char **argv)
{
	const char *arg = optind > 0 && optind <= argc ? argv[optind - 1] : "";
	int li = strncmp(arg, "--", 2) ? -1 : long_named(arg);
	/* glibc: optopt is 0 for an unknown long option, else the option's value */
	int is_long = !strncmp(arg, "--", 2) && (optopt == 0 || (li >= 0 && longopts[li].val == optopt));
	if (is_long && c == '?') {
		unknown_long(spec, arg + 2);
	} else if (is_long) {
		int i = li >= 0 ? longidx[li] : -1;
		rk_cli_usage_error(spec->name, "option '--%s' needs an argument (%s)",
		                   li >= 0 ? longopts[li].name : arg + 2,
		                   i >= 0 ? spec->opts[i].metavar : "a value");
	} else if (c == ':') {
		int i = by_letter(spec, optopt);
		rk_cli_usage_error(spec->name, "option '-%c' needs an argument (%s)", optopt,
		                   i >= 0 ? spec->opts[i].metavar : "a value");
	} else if (isprint(optopt)) {
		rk_cli_usage_error(spec->name, "unknown option '-%c'", optopt);
	} else {
		rk_cli_usage_error(spec->name, "unknown option '%s'", arg);
	}
}

int rk_cli_getopt(const rk_cli_spec *spec, int argc, char **argv, int *idx)
{
	if (built != spec)
		build(spec);
	opterr = 0;
	int li = -1;
	int c = getopt_long(argc, argv, shortopts, longopts, &li);
	if (idx)
		*idx = -1;
	if (c == -1 || c == 'h')
		return c;
	if (c == '?' || c == ':') {
		report(spec, c, argc, argv);
		return '?';
	}
	int i = li >= 0 ? longidx[li] : by_letter(spec, c);
	if (idx)
		*idx = i;
	return i >= 0 ? spec->opts[i].key : c;
}

/* ---- help ---- */

void rk_cli_opt_help(char *buf, size_t cap, const rk_cli_opt *o)
{
	size_t n = (size_t)snprintf(buf, cap, "%s", o->help);
	if (o->arg == RK_ARG_SIZE) /* one way to write a size, said the same everywhere */
		snprintf(buf + n, n < cap ? cap - n : 0, "; a size: 4M, 64MiB, 1.5G, 2KB");
	if (o->arg != RK_ARG_WORKLOAD)
		return;
	/* the workloads the analyzer has, named where they are defined */
	const char *const *w = rk_workload_names();
	for (size_t i = 0; w[i] && n < cap; i++)
		n += (size_t)snprintf(buf + n, cap - n, "%s%s", i ? ", " : ": ", w[i]);
}

void rk_cli_paragraphs(const char *text,
                       void (*fn)(const char *p, size_t len, int pre, void *payload),
                       void *payload)
{
	const char *p = text;
	while (p && *p) {
		while (*p == '\n')
			p++;
		if (!*p)
			break;
		const char *end = strstr(p, "\n\n");
		if (!end)
			end = p + strlen(p);
		fn(p, (size_t)(end - p), p[0] == ' ' && p[1] == ' ', payload);
		p = end;
	}
}

/* Prints text wrapped at WIDTH, each line indented by `indent`, the first
 * line starting at column `col` (already printed up to there). */
static void wrap(FILE *f, const char *t, size_t len, int indent, int col)
{
	const char *end = t + len;
	int first = 1;
	while (t < end) {
		while (t < end && (*t == ' ' || *t == '\n'))
			t++;
		if (t == end)
			break;
		size_t w = 0;
		while (t + w < end && t[w] != ' ' && t[w] != '\n')
			w++;
		if (!first && col + 1 + (int)w > WIDTH) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else if (!first) {
			fputc(' ', f);
			col++;
		}
		fprintf(f, "%.*s", (int)w, t);
		col += (int)w;
		first = 0;
		t += w;
	}
	fputc('\n', f);
}

static void help_paragraph(const char *p, size_t len, int pre, void *payload)
{
	FILE *f = payload;
	if (pre)
		fprintf(f, "%.*s\n\n", (int)len, p);
	else {
		wrap(f, p, len, 0, 0);
		fputc('\n', f);
	}
}

static void help_option(FILE *f, const rk_cli_opt *o)
{
	char head[128];
	int n = snprintf(head, sizeof head, "  %c%c%s--%s%s%s", o->letter ? '-' : ' ',
	                 o->letter ? o->letter : ' ', o->letter ? ", " : "  ", o->name,
	                 o->metavar ? " " : "", o->metavar ? o->metavar : "");
	fputs(head, f);
	if (n + 2 > OPT_COL) {
		fprintf(f, "\n%*s", OPT_COL, "");
	} else {
		fprintf(f, "%*s", OPT_COL - n, "");
	}
	char help[1024];
	rk_cli_opt_help(help, sizeof help, o);
	wrap(f, help, strlen(help), OPT_COL, OPT_COL);
}

void rk_cli_help(const rk_cli_spec *spec, FILE *f)
{
	const char *u = spec->usage;
	int first = 1;
	while (u && *u) {
		size_t n = strcspn(u, "\n");
		fprintf(f, "%s rowkey %s%s%.*s\n", first ? "usage:" : "      ", spec->name,
		        *spec->name ? " " : "", (int)n, u);
		first = 0;
		u += n + (u[n] == '\n');
	}
	fputc('\n', f);
	rk_cli_paragraphs(spec->description, help_paragraph, f);
	if (spec == &rk_cli_main_spec) {
		fprintf(f, "commands:\n");
		for (size_t i = 0; i < rk_cli_ncommands; i++)
			fprintf(f, "  %-10s %s\n", rk_cli_commands[i].name, rk_cli_commands[i].summary);
		fprintf(f, "\n");
	}
	fprintf(f, "options:\n");
	for (size_t i = 0; i < spec->nopts; i++) {
		if (!spec->opts[i].name)
			fprintf(f, "\n%s:\n", spec->opts[i].help);
		else
			help_option(f, &spec->opts[i]);
	}
	help_option(f, &help_opt);
	if (spec->examples)
		fprintf(f, "\nexamples:\n%s", spec->examples);
	if (*spec->name)
		fprintf(f, "\nThe manual page: man rowkey-%s\n", spec->name);
	else
		fprintf(f, "\nrowkey <command> --help shows a command's options; man rowkey and man "
		           "rowkey-<command> say more.\n");
}
