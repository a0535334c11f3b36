/*
 * A table read as records, so that rowkey profile and suggest take a table
 * of a store (either backend) as they take a file: every row, or the first
 * `sample`, decoded through the table's remembered schema into its fields,
 * a field the key does not carry taken from the row's cell of that name
 * (rekey's mapping: rk_rekey__map_fields), written as a CSV file whose
 * header is the schema's fields. The analyzer then reads it through the
 * one records reader; nothing here profiles or ranks.
 */
#ifndef RK_CLI_TABLE_RECORDS_H
#define RK_CLI_TABLE_RECORDS_H

#include <stdint.h>

typedef struct rk_cli_table_records {
	char *path;        /* the CSV file (in a directory of its own under $TMPDIR) */
	char *schema_text; /* the table's schema, as it remembers it */
	char key[1200];    /* its key template alone (no fields, no options) */
	uint64_t rows;     /* rows written */
	int sampled;       /* 1: the table holds more rows than were read */
	char label[300];   /* how the output names the records: "TABLE of DB" */
} rk_cli_table_records;

/* Reads table `table` of store `db` into out. 0, or -1 after printing why
 * (for `cmd`): no such table, no remembered schema, a row that does not
 * decode (named), a full disk. Free with rk_cli__table_records_free. */
int rk_cli__table_records(rk_cli_table_records *out, const char *cmd, const char *db,
                          const char *table, uint64_t sample);

/* Removes the file and its directory, and frees. */
void rk_cli__table_records_free(rk_cli_table_records *t);

#endif
