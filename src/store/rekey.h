/*
 * What `rowkey rekey` (src/cli/rekey_*.c) and `rowkey serve`'s live mirror
 * (src/serve/mirror.c) share: the checkpoint (rekey_ckpt.c, docs/formats.md
 * B.6), an old row's new key (rekey_map.c), and the hooks through which a
 * rekey run inside the server keeps step with the mirror. Internal to the
 * static parts that link it (the command and serve): not exported.
 */
#ifndef RK_STORE_REKEY_H
#define RK_STORE_REKEY_H

#include <stddef.h>
#include <stdint.h>

#include <rowkey/key.h>
#include <rowkey/store.h>

#define RK_REKEY_SETTING "rekey" /* the target table's setting (B.6) */

/* The checkpoint (docs/formats.md B.6). Strings are malloc'd. */
typedef struct rk_rekey_ckpt {
	char *source, *target, *old_schema, *new_schema;
	char state[16];     /* copying | copied | verified | cutover */
	uint8_t *done;      /* the last old row key copied; NULL: none */
	size_t done_len;
	uint64_t pending, rows, cells;
	char verify[80];    /* "-", "clean N M HEX16", "failed N" */
} rk_rekey_ckpt;

void rk_rekey__ckpt_free(rk_rekey_ckpt *c);

/* Reads the target table's checkpoint. 0; RK_ENOTFOUND when the table has
 * none (no message); RK_ECORRUPT naming the table and line; another code
 * with rk_error_last(). */
int rk_rekey__ckpt_load(rk_rekey_ckpt *c, rk_store *s, const char *table);

/* The checkpoint's text (B.6) into *out (malloc'd, NUL-terminated). */
int rk_rekey__ckpt_text(char **out, size_t *len, const rk_rekey_ckpt *c);

/* Writes the checkpoint as table `table`'s setting, atomically. */
int rk_rekey__ckpt_save(rk_store *s, const char *table, const rk_rekey_ckpt *c);

/* 1 when table `name` exists, 0 when not, -1 when that cannot be told. */
int rk_rekey__table_exists(rk_store *s, const char *name);

/* Escaped text of a row key for messages: printable ASCII as is, other
 * bytes as \xNN, cut with "..." past about 200 bytes. Returns buf. */
const char *rk_rekey__key_text(char *buf, size_t cap, const uint8_t *k, size_t n);
#define RK_REKEY_KEYTEXT 256

/* ---- an old row's new key ---- */

typedef struct rk_rekey_map {
	rk_schema *olds, *news;
	rk_encoder *olde, *newe;
	size_t nold, nnew;
	long *from_old;   /* per new field: the old field of that name, or -1 */
	rk_value *ov, *nv;
	char **text;      /* per new field: its value's text, when converted */
	size_t *text_cap;
	uint8_t *key;     /* the new key, maxkey bytes */
	size_t maxkey;
} rk_rekey_map;

/* Prepares the mapping from schema texts. 0, or an RK_E* code with
 * rk_error_last(); rk_rekey__map_free either way. */
int rk_rekey__map_init(rk_rekey_map *m, const char *old_text, const char *new_text);
void rk_rekey__map_free(rk_rekey_map *m);

/* Old row r's values for the new schema's fields into m->nv (a field no
 * source gives is not present): decoded from the old key, else the row's
 * cell of that qualifier. RK_ECORRUPT / RK_EINVALID naming the row when its
 * key does not decode or a value does not fit. */
int rk_rekey__map_fields(rk_rekey_map *m, const rk_row *r);

/* The new key of old row r into m->key[0..*len): its fields decoded with
 * the old schema, matched to the new schema's by name (a value of another
 * type converted through its text); a field the old key does not carry is
 * taken from the row's cell of that qualifier (what `rowkey load` writes),
 * the newest version. RK_EINVALID / RK_ECORRUPT with a message naming the
 * row and the field when it cannot be done. */
int rk_rekey__map_row(rk_rekey_map *m, size_t *len, const rk_row *r);

/* The fields old key `key` decodes to, as "id=1 ts=5" for messages (empty
 * when it does not decode). Uses the map's old encoder. Returns buf. */
const char *rk_rekey__fields_text(rk_rekey_map *m, char *buf, size_t cap, const uint8_t *key,
                                  size_t len);


/* ---- a rekey of a served table (docs/rekey.md, "While rowkey serve
 * serves the table") ---- */

/* What the server gives a rekey it runs: every hook is called from the
 * rekey's thread. `ctx` is the server's. */
typedef struct rk_rekey_live {
	void *ctx;
	/* Turns the mirror of writes to c->source into c->target on (again);
	 * from its return on, every write to the old table reaches the new one.
	 * 0, or an RK_E* code with rk_error_last(). */
	int (*mirror_on)(void *ctx, const rk_rekey_ckpt *c);
	/* Holds (1) or lets go (0) the mirror's lock of each of these old rows
	 * (the copy's batch): while held, no write to them runs. */
	void (*rows)(void *ctx, const char *source, const uint8_t *const *keys, const size_t *lens,
	             size_t n, int hold);
	/* Holds every write of the server (1) or lets them go (0): the verify
	 * compares two tables that must not change under it. */
	void (*writes)(void *ctx, int hold);
	/* Before renaming or dropping tables names[0..n): the calls using them
	 * drained, new ones held, the mirror of `source` turned off. After
	 * (done 1): the server's names read again and the calls let go. */
	void (*tables)(void *ctx, const char *source, const char *const *names, size_t n,
	               int done);
	/* The first error the mirror met since it was turned on (a row the new
	 * design cannot encode, a failed write), or NULL: the verify fails
	 * with it. The text lives until the mirror is turned off. */
	const char *(*mirror_error)(void *ctx, const char *source);
} rk_rekey_live;

#endif
