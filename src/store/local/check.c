/*
 * rk_store_check on the local backend: the meta map's own invariants, then
 * every cell of every server engine (its key decodes, its table exists, its
 * family is declared, a delete marker holds no value, its region is on this
 * server), then each table file on its own so that damage is named by file.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key/error.h"
#include "store/cell.h"
#include "store/local/local_int.h"

typedef struct checker {
	size_t problems;
	void (*report)(const char *, void *);
	void *payload;
} checker;

static void problem(checker *c, const char *fmt, ...) RK_PRINTF(2, 3);

static void problem(checker *c, const char *fmt, ...)
{
	char msg[1200];
	va_list ap;
	c->problems++;
	if (!c->report || c->problems > 1000)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	c->report(msg, c->payload);
}

typedef struct file_checker {
	checker *c;
	unsigned server;
} file_checker;

static void damaged_file(const char *file, const char *why, void *payload)
{
	file_checker *f = payload;
	problem(f->c, "server %u: table file %s: %s", f->server, file, why);
}

int rk_local__check(size_t *out, rk_store *st, void (*report)(const char *, void *),
                       void *payload)
{
	rk__local *s = (rk__local *)st;
	checker c = {0, report, payload};
	char b1[200];
	uint8_t *row = NULL;
	size_t row_cap = 0;
	int rc = 0;
	pthread_rwlock_rdlock(&s->lock);
	for (size_t t = 0; t < s->meta.ntables; t++)
		if (rk_meta__validate_table(&s->meta, s->meta.tables[t]))
			problem(&c, "meta: %s", rk_error_last());
	for (unsigned i = 0; i < s->nservers; i++) {
		rk__engine *e = s->servers[i].engine;
		rk__eiter *it = rk_eiter__new(e);
		for (rk_eiter__seek_first(it); rk_eiter__valid(it); rk_eiter__next(it)) {
			size_t kl, vl;
			const uint8_t *k = rk_eiter__key(it, &kl);
			rk_eiter__value(it, &vl);
			rk__cellkey ck;
			if (rk_cell__decode(&ck, k, kl)) {
				problem(&c, "server %u (%s): key '%s': %s", i, rk_engine__path(e),
				        rk__err_bytes(b1, sizeof b1, k, kl), rk_error_last());
				continue;
			}
			rk__tmeta *t = rk_meta__table_by_id(&s->meta, ck.table_id);
			if (!t) {
				problem(&c, "server %u (%s): cell of unknown table id %u", i,
				        rk_engine__path(e), ck.table_id);
				continue;
			}
			if ((rc = rk_local__grow(&row, &row_cap, ck.row_len + 1)) != 0)
				break;
			size_t rl = rk_cell__unesc(row, ck.row, ck.row_len);
			if (!rk_store__family(&(struct rk_table){.families = t->families,
			                                         .nfamilies = t->nfamilies},
			                      (const char *)ck.family, ck.family_len))
				problem(&c, "server %u: table %s: row '%s': cell of undeclared family '%.*s'",
				        i, t->name, rk__err_bytes(b1, sizeof b1, row, rl), (int)ck.family_len,
				        (const char *)ck.family);
			if (ck.type != RK_CELL_PUT && vl)
				problem(&c, "server %u: table %s: row '%s': delete marker carries %zu value "
				            "bytes",
				        i, t->name, rk__err_bytes(b1, sizeof b1, row, rl), vl);
			rk__region *r = rk_meta__lookup(t, row, rl);
			if (r->server != i)
				problem(&c, "server %u: table %s: row '%s' lies in region %llu, held by "
				            "server %u, not by this server",
				        i, t->name, rk__err_bytes(b1, sizeof b1, row, rl),
				        (unsigned long long)r->id, r->server);
		}
		int st_rc = rk_eiter__status(it);
		if (st_rc)
			problem(&c, "server %u: engine read failed: %s", i, rk_error_last());
		rk_eiter__free(it);
		if (rc)
			break;
		/* each table file on its own, naming the damaged one */
		file_checker fc = {&c, i};
		rk_engine__verify_tables(e, damaged_file, &fc);
	}
	pthread_rwlock_unlock(&s->lock);
	free(row);
	*out = c.problems;
	if (rc)
		return rc;
	if (c.problems)
		return rk__err(RK_ECORRUPT, "store %s: %zu problem%s found", s->dir, c.problems,
		               c.problems == 1 ? "" : "s");
	return 0;
}
