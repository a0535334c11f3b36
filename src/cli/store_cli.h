/*
 * Helpers shared by the store subcommands (cmd_create.c, cmd_put.c, ...):
 * opening the store named by --db, turning command-line text into row bytes
 * (\xNN escapes) and printing rows and cells.
 */
#ifndef RK_CLI_STORE_CLI_H
#define RK_CLI_STORE_CLI_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <rowkey/key.h>
#include <rowkey/store.h>

#include "cli/opts.h"

#define RK_CLI_DEFAULT_DB "./rowkey-data"

/* --db, the same in every command that opens a store (key 'd'). */
#define RK_CLI_OPT_DB                                                                              \
	{"db", 0, 'd', "DIR", RK_ARG_STORE, NULL,                                                  \
	 "the store: a directory (default " RK_CLI_DEFAULT_DB "), or bigtable://PROJECT/INSTANCE"}

/* How encode and load read records (keys 'H', 'N', 'M'; --format differs:
 * -f is load's family). */
#define RK_CLI_OPTS_RECORDS                                                                        \
	{"header", 0, 'H', NULL, RK_ARG_NONE, NULL,                                                \
	 "the first line names the fields (the default): columns map by name, in any order"},      \
	{"no-header", 0, 'N', NULL, RK_ARG_NONE, NULL,                                             \
	 "no header line: cells are the schema's fields in order"},                                \
	{"max-record", 0, 'M', "SIZE", RK_ARG_SIZE, NULL,                                          \
	 "refuse records longer than this (default 16MiB)"},                                       \
	{"number", 0, 'U', "FIELD", RK_ARG_TEXT, NULL,                                              \
	 "give FIELD (a u64 the input lacks) each record's number, 1, 2, ...: the uniquifier "      \
	 "rowkey suggest asks the writer for when no fields identify a record"}

/* Why encode and load refuse a record whose key encodes to no bytes (say,
 * one text field, empty): HBase and Bigtable refuse an empty row key, so a
 * key printed or loaded would fail later, far from its record. */
#define RK_CLI_EMPTY_KEY_WHY                                                                       \
	"the row key is empty (the key's fields encode to no bytes); HBase and Bigtable refuse "   \
	"an empty row key"

/* --max-ranges (key 'M'), parsed by rk_cli__parse_max_ranges. */
#define RK_CLI_OPT_MAX_RANGES                                                                      \
	{"max-ranges", 0, 'M', "N", RK_ARG_NUMBER, NULL,                                           \
	 "the most point gets or ranges IN lists may expand to (default 10000, at most 65536); "   \
	 "past it the plan reads whole key prefixes and says so"}

/* When DIR/SERVING says `rowkey serve` holds the store (docs/formats.md
 * B.4), prints which process and address on stderr and returns 1; else 0. */
int rk_cli__say_served(const char *cmd, const char *dir);

/* Opens the store at dir; create: make it when missing. On failure prints
 * the error for `cmd` and returns NULL. */
rk_store *rk_cli__open_store(const char *cmd, const char *dir, int create,
                             const rk_store_options *opts);

/* On a Bigtable store, the Bigtable table id that holds `table` (what cbt
 * and Google's client libraries open; it differs from the name after a
 * rowkey rekey --cutover): malloc'd, the caller frees it. NULL on any other
 * store, or when there is no such table. */
char *rk_cli__bigtable_id(rk_store *s, const char *table);

/* Closes the store. When that fails after a command that succeeded (rc 0),
 * says what was done (`done`, "the delete was applied"; NULL: "the command
 * finished") and what failed, and returns RK_EXIT_CLOSE; after a command
 * that failed, adds what failed and keeps rc. Else returns rc. */
int rk_cli__close_store_after(const char *cmd, rk_store *s, int rc, const char *done);
int rk_cli__close_store(const char *cmd, rk_store *s, int rc); /* done: NULL */

/* The exit statuses, for the descriptions of the commands that change a
 * store. */
#define RK_CLI_EXIT_STATUS_TEXT                                                                    \
	"Exit status: 0 done; 1 failed (nothing was changed, or the message says what was); 2 a "  \
	"usage error; 3 the change was applied but closing the store failed (its metrics, the "    \
	"load counters, were not saved: the message says why)."


/* Decodes text with \xNN and \\ escapes into a malloc'd buffer (*out, caller
 * frees). Returns 0, or -1 on a bad escape. */
int rk_cli__unescape(uint8_t **out, size_t *len, const char *text);

/* Prints bytes with printable ASCII as is and everything else as \xNN. */
void rk_cli__print_bytes(FILE *f, const uint8_t *p, size_t n);

/* Prints bytes as a JSON string body (no quotes). */
void rk_cli__print_json_bytes(FILE *f, const uint8_t *p, size_t n);

/* Splits "family[:qualifier]" into column c (pointers into a copy the
 * caller frees through *buf). Returns 0 or -1 when empty. */
int rk_cli__parse_column(rk_column *c, char **buf, const char *text);

/* Appends column `text` ("family[:qualifier]", \xNN escapes in the
 * qualifier) to cols[*nc], keeping its buffers in colbufs / qbufs for the
 * caller to free (entries below *nc). -1 when full or malformed. */
int rk_cli__add_column(rk_column *cols, char **colbufs, uint8_t **qbufs, size_t *nc, size_t max,
                       const char *text);

/* The columns a read keeps (--column, --columns), with the buffers they
 * point into. Start from a zeroed one; rk_cli__columns_free frees it. */
#define RK_CLI_MAX_COLUMNS 64
typedef struct rk_cli_columns {
	rk_column cols[RK_CLI_MAX_COLUMNS];
	char *colbufs[RK_CLI_MAX_COLUMNS];
	uint8_t *qbufs[RK_CLI_MAX_COLUMNS];
	size_t n;
} rk_cli_columns;

/* Adds column `text` as rk_cli__add_column does; when it is malformed or one
 * too many, prints a usage error for `cmd` and returns -1. */
int rk_cli__columns_add(rk_cli_columns *c, const char *cmd, const char *text);

/* Frees the columns' buffers (c itself is the caller's). */
void rk_cli__columns_free(rk_cli_columns *c);

/* Prints a row: one line per cell, "row<TAB>family:qualifier<TAB>ts<TAB>value",
 * or one JSON object per row when json. */
void rk_cli__print_row(FILE *f, const rk_row *r, int json, int keys_only);

/* Parses the size given to option --opt (4M, 64MiB, 1.5G: rk__size_parse;
 * a bare number counts `unit` bytes) within min..max bytes; otherwise
 * prints a usage error for `cmd` saying why and returns -1. */
int rk_cli__parse_size(uint64_t *out, const char *cmd, const char *opt, const char *text,
                       uint64_t unit, uint64_t min, uint64_t max);

/* The schema a table remembers (its `schema` setting, canonical text from
 * rk_schema_text). Checks `schema` against it: none stored and remember set:
 * stores it; stored and different: refused (prints both, returns -1) unless
 * force, when it is a note. A backend that keeps no table settings gives
 * a note that nothing can be checked. Returns 0 to go on. */
int rk_cli__table_schema(rk_store *s, const char *cmd, const char *table, const rk_schema *schema,
                         int remember, int force);

/* Loads the schema a table remembers into *out (caller frees). Returns 0, or
 * -1 after printing why not (none stored: say to give -s). */
int rk_cli__stored_schema(rk_schema **out, rk_store *s, const char *cmd, const char *table);

/* Parses --max-ranges N (1..65536) into o->max_ranges; on junk prints a usage
 * error for `cmd` and returns -1. */
int rk_cli__parse_max_ranges(rk_plan_options *o, const char *cmd, const char *text);

#endif
