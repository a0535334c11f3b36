/*
 * google.bigtable.v2.Bigtable for `rowkey serve`: reads, writes, atomic
 * read-modify-writes and samples over the store, on raw request bytes; the
 * responses go to a sink (server.c sends them on the call; tests and the
 * fuzz target collect them).
 *
 * Timestamps: a SetCell timestamp of -1 (server time) or 0 is assigned by
 * the store (its clock, microseconds); others are kept as given. A delete
 * removes the cells that exist when it applies, as Bigtable's do.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bt_data.pb-c.h"
#include "key/error.h"
#include "key/bytes.h"
#include "serve/filter.h"
#include "serve/serve_int.h"
#include "store/backend.h"

/* ---- row locks ---- */

#define NSTRIPES 1024

struct rk_sv_locks {
	pthread_rwlock_t l[NSTRIPES];
};

int rk_sv__locks_new(rk_sv_locks **out)
{
	rk_sv_locks *l = malloc(sizeof *l);
	if (!l)
		return rk__err(RK_ENOMEM, "serve: out of memory");
	for (int i = 0; i < NSTRIPES; i++)
		pthread_rwlock_init(&l->l[i], NULL);
	*out = l;
	return 0;
}

void rk_sv__locks_free(rk_sv_locks *l)
{
	if (!l)
		return;
	for (int i = 0; i < NSTRIPES; i++)
		pthread_rwlock_destroy(&l->l[i]);
	free(l);
}

static unsigned stripe(const uint8_t *k, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ k[i]) * 16777619u;
	return h % NSTRIPES;
}

/* ---- small helpers ---- */

static int send_msg(const rk_sv_sink *sink, const ProtobufCMessage *m, rk_sv_status *st)
{
	size_t n = protobuf_c_message_get_packed_size(m);
	uint8_t *b = malloc(n ? n : 1);
	if (!b)
		return rk_sv__fail(st, RK_SV_RESOURCE_EXHAUSTED, RK_ENOMEM, "out of memory");
	protobuf_c_message_pack(m, b);
	int rc = sink->send(sink->arg, b, n);
	free(b);
	if (rc)
		return rk_sv__fail(st, RK_SV_CANCELLED, RK_EIO, "the client went away");
	return 0;
}

/* The table a request names, acquired; NOT_FOUND when it does not exist. */
static int open_table(rk_table **t, const rk_sv_env *env, const char *name, rk_sv_status *st)
{
	char id[RK_MAX_TABLE_NAME_LEN + 1];
	int rc = rk_sv__table_id(id, env, name, "table_name", st);
	if (rc)
		return rc;
	if ((rc = rk_sv__table_acquire(t, env->tables, id)) != 0) {
		if (rc == RK_ENOTFOUND)
			return rk_sv__fail(st, RK_SV_NOT_FOUND, rc, "table %.300s not found", name);
		return rk_sv__from_store(st, rc, "opening the table");
	}
	return 0;
}

static int check_row_key(const ProtobufCBinaryData *k, const char *field, rk_sv_status *st)
{
	if (k->len == 0)
		return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID, "%s: empty row key",
		                   field);
	if (k->len > RK_SV_MAX_ROW_KEY)
		return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
		                   "%s: row key of %zu bytes (at most %u)", field, k->len,
		                   RK_SV_MAX_ROW_KEY);
	return 0;
}

/* A growable list of store mutations. */
typedef struct mvec {
	rk_mutation *m;
	size_t n, cap;
} mvec;

static int mvec_push(mvec *v, const rk_mutation *m)
{
	if (v->n == v->cap) {
		size_t c = v->cap ? v->cap * 2 : 16;
		rk_mutation *nm = realloc(v->m, c * sizeof *nm);
		if (!nm)
			return RK_ENOMEM;
		v->m = nm;
		v->cap = c;
	}
	v->m[v->n++] = *m;
	return 0;
}

static int family_known(rk_table *t, const char *fam)
{
	return rk_store__family(t, fam, strlen(fam)) != NULL;
}

/* Appends the store mutations for the Bigtable mutations of one row, in
 * order: a delete removes what exists when it applies (the store orders
 * deletes as Bigtable does), every version unless a time range says. */
static int convert(mvec *out, rk_table *t, const ProtobufCBinaryData *row,
                   Rkbt__Mutation *const *muts, size_t n, const char *field, rk_sv_status *st)
{
	if (n == 0)
		return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
		                   "%s: no mutations", field);
	for (size_t i = 0; i < n; i++) {
		const Rkbt__Mutation *m = muts[i];
		rk_mutation x = {0, row->data, row->len, NULL, NULL, 0, 0, NULL, 0, 0};
		const char *fam = NULL;
		switch (m->mutation_case) {
		case RKBT__MUTATION__MUTATION_SET_CELL: {
			const Rkbt__Mutation__SetCell *c = m->set_cell;
			fam = c->family_name;
			if (c->timestamp_micros < -1)
				return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
				                   "%s[%zu].set_cell.timestamp_micros: %lld (must be >= -1)",
				                   field, i, (long long)c->timestamp_micros);
			if (c->column_qualifier.len > RK_MAX_QUALIFIER_LEN)
				return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
				                   "%s[%zu].set_cell.column_qualifier: %zu bytes (at most %u)",
				                   field, i, c->column_qualifier.len, RK_MAX_QUALIFIER_LEN);
			if (c->value.len > RK_MAX_VALUE_LEN)
				return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
				                   "%s[%zu].set_cell.value: %zu bytes (at most %u)", field, i,
				                   c->value.len, RK_MAX_VALUE_LEN);
			x.type = RK_MUT_PUT;
			x.qualifier = c->column_qualifier.data;
			x.qualifier_len = c->column_qualifier.len;
			x.ts = c->timestamp_micros > 0 ? (uint64_t)c->timestamp_micros : 0;
			x.value = c->value.data;
			x.value_len = c->value.len;
			break;
		}
		case RKBT__MUTATION__MUTATION_DELETE_FROM_COLUMN: {
			const Rkbt__Mutation__DeleteFromColumn *c = m->delete_from_column;
			fam = c->family_name;
			x.type = RK_MUT_DELETE_COLUMN;
			x.qualifier = c->column_qualifier.data;
			x.qualifier_len = c->column_qualifier.len;
			int64_t a = c->time_range ? c->time_range->start_timestamp_micros : 0;
			int64_t b = c->time_range ? c->time_range->end_timestamp_micros : 0;
			if (a < 0 || b < 0 || (b && b <= a))
				return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
				                   "%s[%zu].delete_from_column.time_range: [%lld, %lld) is "
				                   "not a valid range",
				                   field, i, (long long)a, (long long)b);
			x.ts_from = (uint64_t)a;
			x.ts = b ? (uint64_t)b - 1 : RK_TS_MAX;
			break;
		}
		case RKBT__MUTATION__MUTATION_DELETE_FROM_FAMILY:
			fam = m->delete_from_family->family_name;
			x.type = RK_MUT_DELETE_FAMILY;
			x.ts = RK_TS_MAX;
			break;
		case RKBT__MUTATION__MUTATION_DELETE_FROM_ROW:
			x.type = RK_MUT_DELETE_ROW;
			x.ts = RK_TS_MAX;
			break;
		default:
			return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
			                   "%s[%zu]: no mutation set (or one rowkey serve does not know)",
			                   field, i);
		}
		if (x.type != RK_MUT_DELETE_ROW) {
			if (!fam || !*fam)
				return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
				                   "%s[%zu]: family_name is empty", field, i);
			if (!family_known(t, fam))
				return rk_sv__fail(st, RK_SV_NOT_FOUND, RK_ENOTFOUND,
				                   "%s[%zu]: column family '%.100s' not found in table %s",
				                   field, i, fam, t->name);
			x.family = fam;
		}
		if (mvec_push(out, &x))
			return rk_sv__fail(st, RK_SV_RESOURCE_EXHAUSTED, RK_ENOMEM, "out of memory");
	}
	return 0;
}

static int apply(rk_table *t, const mvec *v, rk_sv_status *st)
{
	if (!v->n)
		return 0;
	int rc = rk_table_apply(t, v->m, v->n, NULL);
	return rc ? rk_sv__from_store(st, rc, "applying the mutations") : 0;
}

/* ---- MutateRow, MutateRows ---- */

static int mutate_row(const rk_sv_env *env, rk_sv_locks *lk, const Rkbt__MutateRowRequest *r,
                      const rk_sv_sink *sink, rk_sv_status *st)
{
	rk_table *t;
	int rc = check_row_key(&r->row_key, "row_key", st);
	if (rc || (rc = open_table(&t, env, r->table_name, st)) != 0)
		return rc;
	mvec v = {0};
	if (r->n_mutations > RK_SV_MAX_MUTATIONS) {
		rc = rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
		                 "mutations: %zu (at most %u)", r->n_mutations, RK_SV_MAX_MUTATIONS);
		goto out;
	}
	pthread_rwlock_t *l = &lk->l[stripe(r->row_key.data, r->row_key.len)];
	pthread_rwlock_rdlock(l);
	rc = convert(&v, t, &r->row_key, r->mutations, r->n_mutations, "mutations", st);
	if (!rc)
		rc = apply(t, &v, st);
	pthread_rwlock_unlock(l);
	if (!rc) {
		Rkbt__MutateRowResponse resp = RKBT__MUTATE_ROW_RESPONSE__INIT;
		rc = send_msg(sink, &resp.base, st);
	}
out:
	free(v.m);
	rk_sv__table_release(env->tables, t);
	return rc;
}

static int uint_cmp(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return (x > y) - (x < y);
}

/* Each entry is checked alone: a bad entry gets its own status and the
 * others are applied (as Bigtable does). The good entries go to the store
 * in one batch, under their rows' locks taken in stripe order. */
static int mutate_rows(const rk_sv_env *env, rk_sv_locks *lk, const Rkbt__MutateRowsRequest *r,
                       const rk_sv_sink *sink, rk_sv_status *st)
{
	if (r->n_entries == 0)
		return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID, "entries: none given");
	size_t total = 0;
	for (size_t i = 0; i < r->n_entries; i++)
		total += r->entries[i]->n_mutations;
	if (total > RK_SV_MAX_MUTATIONS)
		return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
		                   "entries: %zu mutations in all (at most %u)", total,
		                   RK_SV_MAX_MUTATIONS);
	rk_table *t;
	int rc = open_table(&t, env, r->table_name, st);
	if (rc)
		return rc;
	size_t n = r->n_entries;
	rk_sv_status *est = calloc(n, sizeof *est);
	size_t *first = calloc(n + 1, sizeof *first); /* entry i: v.m[first[i] .. first[i+1]) */
	unsigned *stripes = calloc(n, sizeof *stripes);
	int *results = NULL;
	Rkbt__MutateRowsResponse__Entry *ents = calloc(n, sizeof *ents);
	Rkbt__MutateRowsResponse__Entry **ep = calloc(n, sizeof *ep);
	Rkbt__Status *sts = calloc(n, sizeof *sts);
	mvec v = {0};
	size_t ns = 0;
	if (!est || !first || !stripes || !ents || !ep || !sts) {
		rc = rk_sv__fail(st, RK_SV_RESOURCE_EXHAUSTED, RK_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		stripes[i] = stripe(r->entries[i]->row_key.data, r->entries[i]->row_key.len);
	qsort(stripes, n, sizeof *stripes, uint_cmp);
	for (size_t i = 0; i < n; i++)
		if (!ns || stripes[ns - 1] != stripes[i])
			stripes[ns++] = stripes[i];
	for (size_t i = 0; i < ns; i++)
		pthread_rwlock_rdlock(&lk->l[stripes[i]]);
	for (size_t i = 0; i < n; i++) {
		const Rkbt__MutateRowsRequest__Entry *e = r->entries[i];
		char field[64];
		size_t before = v.n;
		snprintf(field, sizeof field, "entries[%zu].mutations", i);
		est[i].code = RK_SV_OK;
		if (check_row_key(&e->row_key, field, &est[i]) ||
		    convert(&v, t, &e->row_key, e->mutations, e->n_mutations, field, &est[i]))
			v.n = before; /* nothing of a bad entry is applied */
		first[i] = before;
		first[i + 1] = v.n;
	}
	if (v.n && !(results = calloc(v.n, sizeof *results)))
		rc = rk_sv__fail(st, RK_SV_RESOURCE_EXHAUSTED, RK_ENOMEM, "out of memory");
	if (!rc && v.n) {
		int arc = rk_table_apply(t, v.m, v.n, results);
		if (arc)
			rk_sv__from_store(st, arc, "applying the mutations"); /* message per entry */
	}
	for (size_t i = 0; i < ns; i++)
		pthread_rwlock_unlock(&lk->l[stripes[i]]);
	if (rc)
		goto out;
	for (size_t i = 0; i < n; i++) {
		for (size_t k = first[i]; k < first[i + 1] && est[i].code == RK_SV_OK; k++)
			if (results[k]) {
				rk_sv_status tmp;
				rk_sv__from_store(&tmp, results[k], "applying the mutations");
				est[i] = tmp;
				snprintf(est[i].msg, sizeof est[i].msg, "%s", st->msg[0] ? st->msg : tmp.msg);
			}
		rkbt__mutate_rows_response__entry__init(&ents[i]);
		rkbt__status__init(&sts[i]);
		sts[i].code = est[i].code;
		sts[i].message = est[i].code ? est[i].msg : (char *)"";
		ents[i].index = (int64_t)i;
		ents[i].status = &sts[i];
		ep[i] = &ents[i];
	}
	st->code = RK_SV_OK;
	st->msg[0] = 0;
	Rkbt__MutateRowsResponse resp = RKBT__MUTATE_ROWS_RESPONSE__INIT;
	resp.n_entries = n;
	resp.entries = ep;
	rc = send_msg(sink, &resp.base, st);
out:
	free(v.m);
	free(est);
	free(first);
	free(stripes);
	free(results);
	free(ents);
	free(ep);
	free(sts);
	rk_sv__table_release(env->tables, t);
	return rc;
}

/* ---- reading rows ---- */

/* One row's cells handed to the filter (rk_sv_cell), reused row to row. */
typedef struct cellbuf {
	rk_sv_cell *c;
	size_t n, cap;
} cellbuf;

static int cell_order(const void *a, const void *b)
{
	const rk_sv_cell *x = a, *y = b;
	int c = strcmp(x->family, y->family);
	if (c)
		return c;
	size_t n = x->qualifier_len < y->qualifier_len ? x->qualifier_len : y->qualifier_len;
	c = n ? memcmp(x->qualifier, y->qualifier, n) : 0;
	if (c)
		return c;
	if (x->qualifier_len != y->qualifier_len)
		return x->qualifier_len < y->qualifier_len ? -1 : 1;
	return (x->ts < y->ts) - (x->ts > y->ts); /* newest first */
}

static int to_cells(cellbuf *b, const rk_row *row)
{
	if (row->ncells > b->cap) {
		rk_sv_cell *n = realloc(b->c, row->ncells * sizeof *n);
		if (!n)
			return RK_ENOMEM;
		b->c = n;
		b->cap = row->ncells;
	}
	int sorted = 1;
	for (size_t i = 0; i < row->ncells; i++) {
		const rk_cell *c = &row->cells[i];
		b->c[i] = (rk_sv_cell){c->family, c->qualifier, c->qualifier_len, (int64_t)c->ts,
		                       c->value, c->value_len, NULL};
		if (i && cell_order(&b->c[i - 1], &b->c[i]) > 0)
			sorted = 0;
	}
	b->n = row->ncells;
	if (!sorted)
		qsort(b->c, b->n, sizeof *b->c, cell_order);
	return 0;
}

/* Builds ReadRowsResponse bytes: field 1 (chunks) repeated, each chunk
 * packed by protobuf-c; sent when over FLUSH bytes and at the end. */
#define FLUSH (1u << 20)
#define VALUE_PIECE (1u << 20)

typedef struct rbuf {
	uint8_t *b;
	size_t n, cap;
	const rk_sv_sink *sink;
} rbuf;

static int rbuf_room(rbuf *r, size_t more)
{
	if (r->n + more <= r->cap)
		return 0;
	size_t c = r->cap ? r->cap : 4096;
	while (c < r->n + more)
		c *= 2;
	uint8_t *nb = realloc(r->b, c);
	if (!nb)
		return RK_ENOMEM;
	r->b = nb;
	r->cap = c;
	return 0;
}

static int add_chunk(rbuf *r, const Rkbt__ReadRowsResponse__CellChunk *ch)
{
	size_t n = protobuf_c_message_get_packed_size(&ch->base);
	if (rbuf_room(r, n + 11))
		return RK_ENOMEM;
	r->b[r->n++] = 0x0a; /* field 1, length-delimited */
	size_t v = n;
	do {
		uint8_t byte = v & 0x7f;
		v >>= 7;
		r->b[r->n++] = byte | (v ? 0x80 : 0);
	} while (v);
	protobuf_c_message_pack(&ch->base, r->b + r->n);
	r->n += n;
	return 0;
}

static int rbuf_flush(rbuf *r, rk_sv_status *st)
{
	if (!r->n)
		return 0;
	int rc = r->sink->send(r->sink->arg, r->b, r->n);
	r->n = 0;
	return rc ? rk_sv__fail(st, RK_SV_CANCELLED, RK_EIO, "the client went away") : 0;
}

/* The chunks of one row (cells out[0..n), n >= 1). */
static int emit_row(rbuf *r, const uint8_t *key, size_t key_len, const rk_sv_cells *cells,
                    rk_sv_status *st)
{
	for (size_t i = 0; i < cells->n; i++) {
		const rk_sv_cell *c = &cells->cells[i];
		const rk_sv_cell *p = i ? &cells->cells[i - 1] : NULL;
		Rkbt__ReadRowsResponse__CellChunk ch = RKBT__READ_ROWS_RESPONSE__CELL_CHUNK__INIT;
		Rkbt__StringValue fam = RKBT__STRING_VALUE__INIT;
		Rkbt__BytesValue qual = RKBT__BYTES_VALUE__INIT;
		char *label = (char *)c->label;
		if (!p) {
			ch.row_key.data = (uint8_t *)key;
			ch.row_key.len = key_len;
		}
		int new_fam = !p || strcmp(p->family, c->family) != 0;
		if (new_fam) {
			fam.value = (char *)c->family;
			ch.family_name = &fam;
		}
		if (new_fam || p->qualifier_len != c->qualifier_len ||
		    (c->qualifier_len && memcmp(p->qualifier, c->qualifier, c->qualifier_len))) {
			qual.value.data = (uint8_t *)c->qualifier;
			qual.value.len = c->qualifier_len;
			ch.qualifier = &qual;
		}
		ch.timestamp_micros = c->ts;
		if (label) {
			ch.n_labels = 1;
			ch.labels = &label;
		}
		size_t off = 0;
		do {
			size_t piece = c->value_len - off;
			if (piece > VALUE_PIECE)
				piece = VALUE_PIECE;
			ch.value.data = off ? (uint8_t *)c->value + off : (uint8_t *)c->value;
			ch.value.len = piece;
			int last_piece = off + piece == c->value_len;
			ch.value_size = last_piece ? 0 : (int32_t)c->value_len;
			if (last_piece && i + 1 == cells->n) {
				ch.row_status_case = RKBT__READ_ROWS_RESPONSE__CELL_CHUNK__ROW_STATUS_COMMIT_ROW;
				ch.commit_row = 1;
			}
			if (add_chunk(r, &ch))
				return rk_sv__fail(st, RK_SV_RESOURCE_EXHAUSTED, RK_ENOMEM, "out of memory");
			if (r->n >= FLUSH && rbuf_flush(r, st))
				return RK_EIO;
			off += piece;
			/* the pieces after the first carry the value only */
			ch.row_key.len = 0;
			ch.family_name = NULL;
			ch.qualifier = NULL;
			ch.timestamp_micros = 0;
			ch.n_labels = 0;
		} while (off < c->value_len);
	}
	return 0;
}

/* A row range [start, end) in bytes; end_inf: unbounded. */
typedef struct range {
	uint8_t *start;
	size_t slen;
	uint8_t *end;
	size_t elen;
	int end_inf;
} range;

static int range_cmp(const void *a, const void *b)
{
	const range *x = a, *y = b;
	return rk__bytes_cmp(x->start, x->slen, y->start, y->slen);
}

/* Copies k, with a 0 byte after it when plus0 (the next key in order). */
static uint8_t *keycopy(const uint8_t *k, size_t n, int plus0, size_t *len)
{
	uint8_t *c = malloc(n + 1);
	if (!c)
		return NULL;
	if (n)
		memcpy(c, k, n);
	c[n] = 0;
	*len = n + (plus0 ? 1 : 0);
	return c;
}

static void free_ranges(range *r, size_t n)
{
	for (size_t i = 0; r && i < n; i++) {
		free(r[i].start);
		free(r[i].end);
	}
	free(r);
}

/* The request's row set as sorted, disjoint ranges (whole table when empty). */
static int build_ranges(range **out, size_t *count, const Rkbt__RowSet *rs, rk_sv_status *st)
{
	size_t nk = rs ? rs->n_row_keys : 0, nr = rs ? rs->n_row_ranges : 0;
	range *r = calloc(nk + nr + 1, sizeof *r);
	size_t n = 0;
	if (!r)
		return rk_sv__fail(st, RK_SV_RESOURCE_EXHAUSTED, RK_ENOMEM, "out of memory");
	if (nk + nr == 0) {
		r[0].start = keycopy(NULL, 0, 0, &r[0].slen);
		r[0].end_inf = 1;
		if (!r[0].start)
			goto oom;
		*out = r;
		*count = 1;
		return 0;
	}
	for (size_t i = 0; i < nk; i++) {
		const ProtobufCBinaryData *k = &rs->row_keys[i];
		if (k->len == 0) {
			free_ranges(r, n);
			return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
			                   "rows.row_keys[%zu]: empty row key", i);
		}
		r[n].start = keycopy(k->data, k->len, 0, &r[n].slen);
		r[n].end = keycopy(k->data, k->len, 1, &r[n].elen);
		n++;
		if (!r[n - 1].start || !r[n - 1].end)
			goto oom;
	}
	for (size_t i = 0; i < nr; i++) {
		const Rkbt__RowRange *g = rs->row_ranges[i];
		range x = {0};
		switch (g->start_key_case) {
		case RKBT__ROW_RANGE__START_KEY_START_KEY_CLOSED:
			x.start = keycopy(g->start_key_closed.data, g->start_key_closed.len, 0, &x.slen);
			break;
		case RKBT__ROW_RANGE__START_KEY_START_KEY_OPEN:
			x.start = keycopy(g->start_key_open.data, g->start_key_open.len,
			                  g->start_key_open.len > 0, &x.slen);
			break;
		default: x.start = keycopy(NULL, 0, 0, &x.slen);
		}
		const ProtobufCBinaryData *e = NULL;
		int closed = 0;
		if (g->end_key_case == RKBT__ROW_RANGE__END_KEY_END_KEY_OPEN)
			e = &g->end_key_open;
		else if (g->end_key_case == RKBT__ROW_RANGE__END_KEY_END_KEY_CLOSED)
			e = &g->end_key_closed, closed = 1;
		if (!e || e->len == 0)
			x.end_inf = 1;
		else
			x.end = keycopy(e->data, e->len, closed, &x.elen);
		r[n++] = x;
		if (!x.start || (!x.end_inf && !x.end))
			goto oom;
		if (!x.end_inf && rk__bytes_cmp(x.start, x.slen, x.end, x.elen) >= 0) { /* empty */
			n--;
			free(x.start);
			free(x.end);
		}
	}
	qsort(r, n, sizeof *r, range_cmp);
	size_t w = 0;
	for (size_t i = 0; i < n; i++) {
		range *c = w ? &r[w - 1] : NULL;
		if (c && (c->end_inf || rk__bytes_cmp(r[i].start, r[i].slen, c->end, c->elen) <= 0)) {
			/* overlaps or touches: extend c */
			if (!c->end_inf &&
			    (r[i].end_inf || rk__bytes_cmp(r[i].end, r[i].elen, c->end, c->elen) > 0)) {
				free(c->end);
				c->end = r[i].end;
				c->elen = r[i].elen;
				c->end_inf = r[i].end_inf;
				r[i].end = NULL;
			}
			free(r[i].start);
			free(r[i].end);
			continue;
		}
		r[w++] = r[i];
	}
	*out = r;
	*count = w;
	return 0;
oom:
	free_ranges(r, n + 1);
	return rk_sv__fail(st, RK_SV_RESOURCE_EXHAUSTED, RK_ENOMEM, "out of memory");
}

/* Scans one range, filters and emits rows; *left counts the rows still
 * wanted (UINT64_MAX: no limit). */
static int read_range(rk_table *t, const range *g, int reversed, const rk_sv_filter *f,
                      cellbuf *cb, rk_sv_cells *out, rbuf *rb, uint64_t *left, rk_sv_status *st)
{
	rk_scan_options so = RK_SCAN_OPTIONS_INIT;
	so.start = g->start;
	so.start_len = g->slen;
	if (!g->end_inf) {
		so.stop = g->end;
		so.stop_len = g->elen;
	}
	so.reverse = reversed;
	so.read.max_versions = UINT32_MAX;
	rk_scan *sc;
	int rc = rk_scan_open(&sc, t, &so);
	if (rc)
		return rk_sv__from_store(st, rc, "reading rows");
	while (*left) {
		const rk_row *row;
		rc = rk_scan_next(&row, sc);
		if (rc == RK_EITEROVER) {
			rc = 0;
			break;
		}
		if (rc) {
			rk_sv__from_store(st, rc, "reading rows");
			break;
		}
		if (to_cells(cb, row) ||
		    rk_sv__filter_row(out, f, row->key, row->key_len, cb->c, cb->n)) {
			rc = rk_sv__fail(st, RK_SV_RESOURCE_EXHAUSTED, RK_ENOMEM, "out of memory");
			break;
		}
		if (!out->n)
			continue; /* a row without cells is not returned */
		if ((rc = emit_row(rb, row->key, row->key_len, out, st)) != 0)
			break;
		if (*left != UINT64_MAX)
			(*left)--;
	}
	rk_scan_close(sc);
	return rc;
}

static int read_rows(const rk_sv_env *env, const Rkbt__ReadRowsRequest *r,
                     const rk_sv_sink *sink, rk_sv_status *st)
{
	if (r->rows_limit < 0)
		return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
		                   "rows_limit: must not be negative (got %lld)",
		                   (long long)r->rows_limit);
	rk_sv_filter *f = NULL;
	int code = 0;
	char err[400];
	int rc = rk_sv__filter_compile(&f, r->filter, &code, err, sizeof err);
	if (rc)
		return rk_sv__fail(st, code ? code : RK_SV_INVALID_ARGUMENT, rc, "%s", err);
	rk_table *t = NULL;
	range *g = NULL;
	size_t ng = 0;
	cellbuf cb = {0};
	rk_sv_cells out = {0};
	rbuf rb = {NULL, 0, 0, sink};
	if ((rc = open_table(&t, env, r->table_name, st)) != 0)
		goto done;
	if ((rc = build_ranges(&g, &ng, r->rows, st)) != 0)
		goto done;
	uint64_t left = r->rows_limit ? (uint64_t)r->rows_limit : UINT64_MAX;
	for (size_t i = 0; i < ng && left && !rc; i++)
		rc = read_range(t, &g[r->reversed ? ng - 1 - i : i], r->reversed, f, &cb, &out, &rb,
		                &left, st);
	if (!rc)
		rc = rbuf_flush(&rb, st);
done:
	free_ranges(g, ng);
	free(cb.c);
	free(out.cells);
	free(rb.b);
	rk_sv__filter_free(f);
	rk_sv__table_release(env->tables, t);
	return rc;
}

/* ---- SampleRowKeys: the real region boundaries ---- */

static int region_cmp(const void *a, const void *b)
{
	const rk_region_info *x = a, *y = b;
	return rk__bytes_cmp(x->start, x->start_len, y->start, y->start_len);
}

static int sample_row_keys(const rk_sv_env *env, const Rkbt__SampleRowKeysRequest *r,
                           const rk_sv_sink *sink, rk_sv_status *st)
{
	char id[RK_MAX_TABLE_NAME_LEN + 1];
	int rc = rk_sv__table_id(id, env, r->table_name, "table_name", st);
	if (rc)
		return rc;
	rk_region_info *regs;
	size_t n;
	if ((rc = rk_store_regions(&regs, &n, env->store, id)) != 0) {
		if (rc == RK_ENOTFOUND)
			return rk_sv__fail(st, RK_SV_NOT_FOUND, rc, "table %.300s not found",
			                   r->table_name);
		return rk_sv__from_store(st, rc, "listing regions");
	}
	qsort(regs, n, sizeof *regs, region_cmp);
	uint64_t off = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		off += regs[i].size_bytes;
		Rkbt__SampleRowKeysResponse s = RKBT__SAMPLE_ROW_KEYS_RESPONSE__INIT;
		if (regs[i].end) { /* the last sample is the empty key: the table's end */
			s.row_key.data = regs[i].end;
			s.row_key.len = regs[i].end_len;
		}
		s.offset_bytes = (int64_t)off;
		rc = send_msg(sink, &s.base, st);
	}
	rk_region_info_free(regs, n);
	return rc;
}

/* ---- CheckAndMutateRow ---- */

/* The row's cells (all versions, all columns) through filter f into out;
 * *row_out the row (rk_row_free) or NULL when it has no cells. */
static int read_one(rk_row **row_out, rk_table *t, const ProtobufCBinaryData *key,
                    const rk_sv_filter *f, cellbuf *cb, rk_sv_cells *out, rk_sv_status *st)
{
	rk_read_options ro = RK_READ_OPTIONS_INIT;
	ro.max_versions = UINT32_MAX;
	rk_row *row = NULL;
	out->n = 0;
	*row_out = NULL;
	int rc = rk_table_get(&row, t, key->data, key->len, &ro);
	if (rc == RK_ENOTFOUND)
		return 0;
	if (rc)
		return rk_sv__from_store(st, rc, "reading the row");
	if (to_cells(cb, row) || rk_sv__filter_row(out, f, row->key, row->key_len, cb->c, cb->n)) {
		rk_row_free(row);
		return rk_sv__fail(st, RK_SV_RESOURCE_EXHAUSTED, RK_ENOMEM, "out of memory");
	}
	*row_out = row;
	return 0;
}

static int check_and_mutate(const rk_sv_env *env, rk_sv_locks *lk,
                            const Rkbt__CheckAndMutateRowRequest *r, const rk_sv_sink *sink,
                            rk_sv_status *st)
{
	int rc = check_row_key(&r->row_key, "row_key", st);
	if (rc)
		return rc;
	if (r->n_true_mutations + r->n_false_mutations > RK_SV_MAX_MUTATIONS)
		return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
		                   "true_mutations, false_mutations: %zu in all (at most %u)",
		                   r->n_true_mutations + r->n_false_mutations, RK_SV_MAX_MUTATIONS);
	rk_sv_filter *f = NULL;
	int code = 0;
	char err[400];
	if ((rc = rk_sv__filter_compile(&f, r->predicate_filter, &code, err, sizeof err)) != 0)
		return rk_sv__fail(st, code ? code : RK_SV_INVALID_ARGUMENT, rc, "predicate_%s", err);
	rk_table *t;
	if ((rc = open_table(&t, env, r->table_name, st)) != 0) {
		rk_sv__filter_free(f);
		return rc;
	}
	cellbuf cb = {0};
	rk_sv_cells out = {0};
	mvec v = {0};
	rk_row *row = NULL;
	pthread_rwlock_t *l = &lk->l[stripe(r->row_key.data, r->row_key.len)];
	pthread_rwlock_wrlock(l);
	/* both branches are checked first, so a bad one fails the call either way */
	if ((r->n_true_mutations &&
	     (rc = convert(&v, t, &r->row_key, r->true_mutations, r->n_true_mutations,
	                   "true_mutations", st)) != 0) ||
	    (r->n_false_mutations &&
	     (rc = convert(&v, t, &r->row_key, r->false_mutations, r->n_false_mutations,
	                   "false_mutations", st)) != 0))
		goto unlock;
	if ((rc = read_one(&row, t, &r->row_key, f, &cb, &out, st)) != 0)
		goto unlock;
	int matched = out.n > 0;
	v.n = 0;
	if (matched && r->n_true_mutations)
		rc = convert(&v, t, &r->row_key, r->true_mutations, r->n_true_mutations,
		             "true_mutations", st);
	else if (!matched && r->n_false_mutations)
		rc = convert(&v, t, &r->row_key, r->false_mutations, r->n_false_mutations,
		             "false_mutations", st);
	if (!rc)
		rc = apply(t, &v, st);
	if (!rc) {
		Rkbt__CheckAndMutateRowResponse resp = RKBT__CHECK_AND_MUTATE_ROW_RESPONSE__INIT;
		resp.predicate_matched = matched;
		pthread_rwlock_unlock(l);
		rc = send_msg(sink, &resp.base, st);
		goto done;
	}
unlock:
	pthread_rwlock_unlock(l);
done:
	rk_row_free(row);
	free(cb.c);
	free(out.cells);
	free(v.m);
	rk_sv__filter_free(f);
	rk_sv__table_release(env->tables, t);
	return rc;
}

/* ---- ReadModifyWriteRow ---- */

static uint64_t now_ms_micros(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)(ts.tv_nsec / 1000000) * 1000u;
}

typedef struct newcell {
	const char *family;
	const uint8_t *qual;
	size_t qlen;
	uint8_t *val;
	size_t vlen;
	uint64_t ts;
} newcell;

static int newcell_cmp(const void *a, const void *b)
{
	const newcell *x = a, *y = b;
	int c = strcmp(x->family, y->family);
	return c ? c : rk__bytes_cmp(x->qual, x->qlen, y->qual, y->qlen);
}

static int rmw_reply(const ProtobufCBinaryData *key, newcell *nc, size_t n,
                     const rk_sv_sink *sink, rk_sv_status *st)
{
	qsort(nc, n, sizeof *nc, newcell_cmp);
	Rkbt__Family *fams = calloc(n, sizeof *fams);
	Rkbt__Family **fp = calloc(n, sizeof *fp);
	Rkbt__Column *cols = calloc(n, sizeof *cols);
	Rkbt__Column **cp = calloc(n, sizeof *cp);
	Rkbt__Cell *cells = calloc(n, sizeof *cells);
	Rkbt__Cell **clp = calloc(n, sizeof *clp);
	int rc;
	if (!fams || !fp || !cols || !cp || !cells || !clp) {
		rc = rk_sv__fail(st, RK_SV_RESOURCE_EXHAUSTED, RK_ENOMEM, "out of memory");
		goto out;
	}
	size_t nf = 0;
	for (size_t i = 0; i < n; i++) {
		if (!nf || strcmp(fams[nf - 1].name, nc[i].family) != 0) {
			rkbt__family__init(&fams[nf]);
			fams[nf].name = (char *)nc[i].family;
			fams[nf].columns = &cp[i];
			fp[nf] = &fams[nf];
			nf++;
		}
		rkbt__column__init(&cols[i]);
		cols[i].qualifier.data = (uint8_t *)nc[i].qual;
		cols[i].qualifier.len = nc[i].qlen;
		rkbt__cell__init(&cells[i]);
		cells[i].timestamp_micros = (int64_t)nc[i].ts;
		cells[i].value.data = nc[i].val;
		cells[i].value.len = nc[i].vlen;
		clp[i] = &cells[i];
		cols[i].n_cells = 1;
		cols[i].cells = &clp[i];
		cp[i] = &cols[i];
		fams[nf - 1].n_columns++;
	}
	Rkbt__Row row = RKBT__ROW__INIT;
	row.key = *key;
	row.n_families = nf;
	row.families = fp;
	Rkbt__ReadModifyWriteRowResponse resp = RKBT__READ_MODIFY_WRITE_ROW_RESPONSE__INIT;
	resp.row = &row;
	rc = send_msg(sink, &resp.base, st);
out:
	free(fams);
	free(fp);
	free(cols);
	free(cp);
	free(cells);
	free(clp);
	return rc;
}

static int read_modify_write(const rk_sv_env *env, rk_sv_locks *lk,
                             const Rkbt__ReadModifyWriteRowRequest *r, const rk_sv_sink *sink,
                             rk_sv_status *st)
{
	int rc = check_row_key(&r->row_key, "row_key", st);
	if (rc)
		return rc;
	if (r->n_rules == 0)
		return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID, "rules: none given");
	if (r->n_rules > RK_SV_MAX_MUTATIONS)
		return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID, "rules: %zu (at most %u)",
		                   r->n_rules, RK_SV_MAX_MUTATIONS);
	rk_table *t;
	if ((rc = open_table(&t, env, r->table_name, st)) != 0)
		return rc;
	size_t n = r->n_rules, nn = 0;
	newcell *nc = calloc(n, sizeof *nc);
	rk_mutation *muts = calloc(n, sizeof *muts);
	if (!nc || !muts) {
		free(nc);
		free(muts);
		rk_sv__table_release(env->tables, t);
		return rk_sv__fail(st, RK_SV_RESOURCE_EXHAUSTED, RK_ENOMEM, "out of memory");
	}
	pthread_rwlock_t *l = &lk->l[stripe(r->row_key.data, r->row_key.len)];
	pthread_rwlock_wrlock(l);
	uint64_t now = now_ms_micros();
	for (size_t i = 0; i < n && !rc; i++) {
		const Rkbt__ReadModifyWriteRule *u = r->rules[i];
		if (!*u->family_name || !family_known(t, u->family_name)) {
			rc = rk_sv__fail(st, RK_SV_NOT_FOUND, RK_ENOTFOUND,
			                 "rules[%zu]: column family '%.100s' not found in table %s", i,
			                 u->family_name, t->name);
			break;
		}
		if (u->rule_case != RKBT__READ_MODIFY_WRITE_RULE__RULE_APPEND_VALUE &&
		    u->rule_case != RKBT__READ_MODIFY_WRITE_RULE__RULE_INCREMENT_AMOUNT) {
			rc = rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
			                 "rules[%zu]: append_value or increment_amount is needed", i);
			break;
		}
		/* the current value: an earlier rule of this request, or the store */
		newcell cur = {u->family_name, u->column_qualifier.data, u->column_qualifier.len,
		               NULL, 0, 0};
		newcell *prev = NULL;
		for (size_t k = 0; k < nn; k++)
			if (!newcell_cmp(&nc[k], &cur))
				prev = &nc[k];
		const uint8_t *ov = NULL;
		size_t ol = 0;
		uint64_t ots = 0;
		rk_row *row = NULL;
		if (prev) {
			ov = prev->val;
			ol = prev->vlen;
			ots = prev->ts;
		} else {
			rk_column col = {u->family_name, u->column_qualifier.data, u->column_qualifier.len};
			rk_read_options ro = RK_READ_OPTIONS_INIT;
			ro.columns = &col;
			ro.ncolumns = 1;
			rc = rk_table_get(&row, t, r->row_key.data, r->row_key.len, &ro);
			if (rc == RK_ENOTFOUND) {
				rc = 0;
			} else if (rc) {
				rk_sv__from_store(st, rc, "reading the row");
				break;
			} else if (row->ncells) {
				ov = row->cells[0].value;
				ol = row->cells[0].value_len;
				ots = row->cells[0].ts;
			}
		}
		uint8_t *nv;
		size_t nl;
		if (u->rule_case == RKBT__READ_MODIFY_WRITE_RULE__RULE_APPEND_VALUE) {
			nl = ol + u->append_value.len;
			nv = malloc(nl ? nl : 1);
			if (nv) {
				if (ol)
					memcpy(nv, ov, ol);
				if (u->append_value.len)
					memcpy(nv + ol, u->append_value.data, u->append_value.len);
			}
		} else {
			if (ol != 0 && ol != 8) {
				rk_row_free(row);
				rc = rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
				                 "rules[%zu]: the cell's value is %zu bytes, not a 64-bit "
				                 "big-endian integer",
				                 i, ol);
				break;
			}
			uint64_t x = 0;
			for (size_t b = 0; b < ol; b++)
				x = x << 8 | ov[b];
			x += (uint64_t)u->increment_amount; /* two's complement wraps as Bigtable's */
			nl = 8;
			if ((nv = malloc(8)) != NULL)
				for (int b = 7; b >= 0; b--, x >>= 8)
					nv[b] = (uint8_t)(x & 0xff);
		}
		rk_row_free(row);
		if (!nv) {
			rc = rk_sv__fail(st, RK_SV_RESOURCE_EXHAUSTED, RK_ENOMEM, "out of memory");
			break;
		}
		if (nl > RK_MAX_VALUE_LEN) {
			free(nv);
			rc = rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
			                 "rules[%zu]: the new value would be %zu bytes (at most %u)", i, nl,
			                 RK_MAX_VALUE_LEN);
			break;
		}
		uint64_t ts = now > ots ? now : ots + 1000;
		if (prev) {
			free(prev->val);
			prev->val = nv;
			prev->vlen = nl;
			prev->ts = ts;
		} else {
			cur.val = nv;
			cur.vlen = nl;
			cur.ts = ts;
			nc[nn++] = cur;
		}
	}
	if (!rc) {
		for (size_t k = 0; k < nn; k++)
			muts[k] = (rk_mutation){RK_MUT_PUT, r->row_key.data, r->row_key.len,
			                        nc[k].family, nc[k].qual, nc[k].qlen, nc[k].ts,
			                        nc[k].val, nc[k].vlen, 0};
		int arc = rk_table_apply(t, muts, nn, NULL);
		if (arc)
			rc = rk_sv__from_store(st, arc, "writing the new values");
	}
	pthread_rwlock_unlock(l);
	if (!rc)
		rc = rmw_reply(&r->row_key, nc, nn, sink, st);
	for (size_t k = 0; k < nn; k++)
		free(nc[k].val);
	free(nc);
	free(muts);
	rk_sv__table_release(env->tables, t);
	return rc;
}

/* ---- dispatch ---- */

int rk_sv__data_call(const rk_sv_env *env, rk_sv_locks *locks, const char *method,
                     const uint8_t *req, size_t len, const rk_sv_sink *sink, rk_sv_status *st)
{
	st->code = RK_SV_OK;
	st->msg[0] = 0;
	if (strcmp(method, "PingAndWarm") == 0) { /* PingAndWarmResponse is empty */
		static const uint8_t none[1];
		return sink->send(sink->arg, none, 0)
		               ? rk_sv__fail(st, RK_SV_CANCELLED, RK_EIO, "the client went away")
		               : 0;
	}
#define CALL(NAME, type, fn, ...)                                                              \
	if (strcmp(method, NAME) == 0) {                                                       \
		int wrc_ = rk_sv__wire_check(&rkbt__##fn##__descriptor, req, len, st);          \
		if (wrc_)                                                                          \
			return wrc_;                                                               \
		Rkbt__##type *r = rkbt__##fn##__unpack(NULL, len, req);                         \
		if (!r)                                                                            \
			return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_ECORRUPT,                 \
			                   "%s: the request does not parse as " #type, NAME);     \
		int rc_ = __VA_ARGS__;                                                             \
		rkbt__##fn##__free_unpacked(r, NULL);                                              \
		if (rc_ && st->code == RK_SV_OK)                                                   \
			rk_sv__fail(st, RK_SV_INTERNAL, rc_, "%s failed", NAME);                       \
		return rc_;                                                                        \
	}
	CALL("ReadRows", ReadRowsRequest, read_rows_request, read_rows(env, r, sink, st))
	CALL("MutateRow", MutateRowRequest, mutate_row_request, mutate_row(env, locks, r, sink, st))
	CALL("MutateRows", MutateRowsRequest, mutate_rows_request,
	     mutate_rows(env, locks, r, sink, st))
	CALL("CheckAndMutateRow", CheckAndMutateRowRequest, check_and_mutate_row_request,
	     check_and_mutate(env, locks, r, sink, st))
	CALL("ReadModifyWriteRow", ReadModifyWriteRowRequest, read_modify_write_row_request,
	     read_modify_write(env, locks, r, sink, st))
	CALL("SampleRowKeys", SampleRowKeysRequest, sample_row_keys_request,
	     sample_row_keys(env, r, sink, st))
#undef CALL
	return rk_sv__fail(st, RK_SV_UNIMPLEMENTED, RK_EINVALID,
	                   "google.bigtable.v2.Bigtable/%.100s is not implemented by rowkey serve",
	                   method);
}
