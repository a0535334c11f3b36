/*
 * The writing calls of google.bigtable.v2.Bigtable for `rowkey serve`:
 * MutateRow, MutateRows, CheckAndMutateRow and ReadModifyWriteRow, mapped
 * onto the store's rk_table_apply, rk_table_check_and_mutate and
 * rk_table_read_modify_write, which order deletes as Bigtable does and make
 * the row operations atomic. Protocol work only: fields checked and named,
 * timestamps at Bigtable's millisecond granularity (server time -1, and 0,
 * become the wall clock's millisecond), statuses per entry.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "key/bytes.h"
#include "key/error.h"
#include "serve/serve_int.h"

/* The wall clock in whole milliseconds (as microseconds): Bigtable's server
 * time. */
static uint64_t now_ms_micros(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)(ts.tv_nsec / 1000000) * 1000u;
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

/* A timestamp the table's millisecond granularity takes. */
static int ts_ok(int64_t ts)
{
	return ts >= 0 && ts % 1000 == 0;
}

static int set_cell(rk_mutation *x, const Rkbt__Mutation__SetCell *c, const char *field,
                    size_t i, uint64_t now, rk_sv_status *st)
{
	if (c->timestamp_micros < -1 || (c->timestamp_micros > 0 && !ts_ok(c->timestamp_micros)))
		return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
		                   "%s[%zu].set_cell.timestamp_micros: %lld (must be -1 or a multiple "
		                   "of 1000: the table keeps milliseconds)",
		                   field, i, (long long)c->timestamp_micros);
	if (c->column_qualifier.len > RK_SV_MAX_QUALIFIER)
		return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
		                   "%s[%zu].set_cell.column_qualifier: %zu bytes (at most %u)", field,
		                   i, c->column_qualifier.len, RK_SV_MAX_QUALIFIER);
	if (c->value.len > RK_SV_MAX_VALUE)
		return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
		                   "%s[%zu].set_cell.value: %zu bytes (at most %u)", field, i,
		                   c->value.len, RK_SV_MAX_VALUE);
	x->type = RK_MUT_PUT;
	x->family = c->family_name;
	x->qualifier = c->column_qualifier.data;
	x->qualifier_len = c->column_qualifier.len;
	x->ts = c->timestamp_micros > 0 ? (uint64_t)c->timestamp_micros : now;
	x->value = c->value.data;
	x->value_len = c->value.len;
	return 0;
}

static int delete_from_column(rk_mutation *x, const Rkbt__Mutation__DeleteFromColumn *c,
                              const char *field, size_t i, rk_sv_status *st)
{
	int64_t a = c->time_range ? c->time_range->start_timestamp_micros : 0;
	int64_t b = c->time_range ? c->time_range->end_timestamp_micros : 0;
	if (!ts_ok(a) || !ts_ok(b) || (b && b <= a))
		return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
		                   "%s[%zu].delete_from_column.time_range: [%lld, %lld) is not a "
		                   "range of whole milliseconds",
		                   field, i, (long long)a, (long long)b);
	x->type = RK_MUT_DELETE_COLUMN;
	x->family = c->family_name;
	x->qualifier = c->column_qualifier.data;
	x->qualifier_len = c->column_qualifier.len;
	x->ts_from = (uint64_t)a;
	x->ts = b ? (uint64_t)b - 1 : RK_TS_MAX;
	return 0;
}

/* Appends the store mutations for the Bigtable mutations of one row, in
 * order: a delete removes what exists when it applies (the store orders
 * deletes as Bigtable does), every version unless a time range says. */
static int convert(mvec *out, rk_table *t, const char *table, const ProtobufCBinaryData *row,
                   Rkbt__Mutation *const *muts, size_t n, const char *field, rk_sv_status *st)
{
	uint64_t now = now_ms_micros();
	if (n == 0)
		return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID, "%s: no mutations", field);
	for (size_t i = 0; i < n; i++) {
		const Rkbt__Mutation *m = muts[i];
		rk_mutation x = {0, row->data, row->len, NULL, NULL, 0, RK_TS_MAX, NULL, 0, 0};
		int rc = 0;
		switch (m->mutation_case) {
		case RKBT__MUTATION__MUTATION_SET_CELL:
			rc = set_cell(&x, m->set_cell, field, i, now, st);
			break;
		case RKBT__MUTATION__MUTATION_DELETE_FROM_COLUMN:
			rc = delete_from_column(&x, m->delete_from_column, field, i, st);
			break;
		case RKBT__MUTATION__MUTATION_DELETE_FROM_FAMILY:
			x.type = RK_MUT_DELETE_FAMILY;
			x.family = m->delete_from_family->family_name;
			break;
		case RKBT__MUTATION__MUTATION_DELETE_FROM_ROW:
			x.type = RK_MUT_DELETE_ROW;
			break;
		case RKBT__MUTATION__MUTATION_ADD_TO_CELL:
		case RKBT__MUTATION__MUTATION_MERGE_TO_CELL:
			return rk_sv__fail(st, RK_SV_UNIMPLEMENTED, RK_EINVALID,
			                   "%s[%zu].%s: aggregate cells are not implemented by rowkey "
			                   "serve", field, i,
			                   m->mutation_case == RKBT__MUTATION__MUTATION_ADD_TO_CELL
			                           ? "add_to_cell"
			                           : "merge_to_cell");
		default:
			return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
			                   "%s[%zu]: no mutation set", field, i);
		}
		if (rc)
			return rc;
		if (x.type != RK_MUT_DELETE_ROW && (!x.family || !*x.family))
			return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
			                   "%s[%zu]: family_name is empty", field, i);
		if (x.type != RK_MUT_DELETE_ROW && !rk_table_has_family(t, x.family))
			return rk_sv__fail(st, RK_SV_NOT_FOUND, RK_ENOTFOUND,
			                   "%s[%zu]: column family '%.100s' not found in table %s", field,
			                   i, x.family, table);
		if (mvec_push(out, &x))
			return rk_sv__fail(st, RK_SV_RESOURCE_EXHAUSTED, RK_ENOMEM, "out of memory");
	}
	return 0;
}

/* ---- MutateRow, MutateRows ---- */

int rk_sv__mutate_row(const rk_sv_env *env, const Rkbt__MutateRowRequest *r,
                      const rk_sv_sink *sink, rk_sv_status *st)
{
	rk_table *t;
	char store[RK_MAX_TABLE_NAME_LEN + 1];
	int rc = rk_sv__no_views(r->authorized_view_name, NULL, st);
	if (rc || (rc = rk_sv__check_row_key(&r->row_key, "row_key", st)) != 0)
		return rc;
	if (r->n_mutations > RK_SV_MAX_MUTATIONS)
		return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
		                   "mutations: %zu (at most %u)", r->n_mutations, RK_SV_MAX_MUTATIONS);
	if ((rc = rk_sv__open_table(&t, store, env, r->table_name, "table_name", st)) != 0)
		return rc;
	mvec v = {0};
	rc = convert(&v, t, r->table_name, &r->row_key, r->mutations, r->n_mutations, "mutations", st);
	if (!rc) {
		const uint8_t *k = r->row_key.data;
		void *mw = rk_sv__mirror_enter(env->mirrors, store, &k, &r->row_key.len, 1);
		if ((rc = rk_table_apply(t, v.m, v.n, NULL)) != 0)
			rk_sv__from_store(st, rc, "applying the mutations");
		rk_sv__mirror_leave(env->mirrors, mw, t, &k, &r->row_key.len, 1);
	}
	if (!rc) {
		Rkbt__MutateRowResponse resp = RKBT__MUTATE_ROW_RESPONSE__INIT;
		rc = rk_sv__send(sink, &resp.base, st);
	}
	free(v.m);
	rk_sv__table_release(env->tables, store, t);
	return rc;
}

/* Checks and converts each entry of r alone into v: a bad entry gets its
 * own status in est[i] and nothing of it goes to the store; first[i] ..
 * first[i + 1] are the mutations of entry i. */
static void convert_entries(mvec *v, size_t *first, rk_sv_status *est, rk_table *t,
                            const char *table, const Rkbt__MutateRowsRequest *r)
{
	for (size_t i = 0; i < r->n_entries; i++) {
		const Rkbt__MutateRowsRequest__Entry *e = r->entries[i];
		char field[64];
		size_t before = v->n;
		snprintf(field, sizeof field, "entries[%zu].mutations", i);
		est[i].code = RK_SV_OK;
		if (rk_sv__check_row_key(&e->row_key, field, &est[i]) ||
		    convert(v, t, table, &e->row_key, e->mutations, e->n_mutations, field, &est[i]))
			v->n = before;
		first[i] = before;
		first[i + 1] = v->n;
	}
}

/* The response: entry i's status, or the store's for the mutations of it
 * that failed. */
static int send_entries(const rk_sv_sink *sink, const Rkbt__MutateRowsRequest *r,
                        rk_sv_status *est, const size_t *first, const int *results,
                        const rk_sv_status *store_st, rk_sv_status *st)
{
	size_t n = r->n_entries;
	Rkbt__MutateRowsResponse__Entry *ents = calloc(n, sizeof *ents);
	Rkbt__MutateRowsResponse__Entry **ep = calloc(n, sizeof *ep);
	Rkbt__Status *sts = calloc(n, sizeof *sts);
	int rc;
	if (!ents || !ep || !sts) {
		rc = rk_sv__fail(st, RK_SV_RESOURCE_EXHAUSTED, RK_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		for (size_t k = first[i]; k < first[i + 1] && est[i].code == RK_SV_OK; k++)
			if (results[k]) {
				rk_sv__from_store(&est[i], results[k], "applying the mutations");
				if (store_st->msg[0])
					snprintf(est[i].msg, sizeof est[i].msg, "%s", store_st->msg);
			}
		rkbt__mutate_rows_response__entry__init(&ents[i]);
		rkbt__status__init(&sts[i]);
		sts[i].code = est[i].code;
		sts[i].message = est[i].code ? est[i].msg : (char *)"";
		ents[i].index = (int64_t)i;
		ents[i].status = &sts[i];
		ep[i] = &ents[i];
	}
	Rkbt__MutateRowsResponse resp = RKBT__MUTATE_ROWS_RESPONSE__INIT;
	resp.n_entries = n;
	resp.entries = ep;
	rc = rk_sv__send(sink, &resp.base, st);
out:
	free(ents);
	free(ep);
	free(sts);
	return rc;
}

/* The entries' mutations applied in one batch, mirrored (mirror.c). */
static int apply_entries(const rk_sv_env *env, const char *store, rk_table *t,
                         const Rkbt__MutateRowsRequest *r, const mvec *v, int *results)
{
	const uint8_t **keys = malloc(r->n_entries * sizeof *keys);
	size_t *lens = malloc(r->n_entries * sizeof *lens);
	if (!keys || !lens) {
		free(keys);
		free(lens);
		return rk__err(RK_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < r->n_entries; i++) {
		keys[i] = r->entries[i]->row_key.data;
		lens[i] = r->entries[i]->row_key.len;
	}
	void *mw = rk_sv__mirror_enter(env->mirrors, store, keys, lens, r->n_entries);
	int rc = rk_table_apply(t, v->m, v->n, results);
	rk_sv__mirror_leave(env->mirrors, mw, t, keys, lens, r->n_entries);
	free(keys);
	free(lens);
	return rc;
}

/* Each entry is checked alone: a bad entry gets its own status and the
 * others are applied (as Bigtable does), in one batch. */
int rk_sv__mutate_rows(const rk_sv_env *env, const Rkbt__MutateRowsRequest *r,
                       const rk_sv_sink *sink, rk_sv_status *st)
{
	if (rk_sv__no_views(r->authorized_view_name, NULL, st))
		return RK_EINVALID;
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
	char store[RK_MAX_TABLE_NAME_LEN + 1];
	int rc = rk_sv__open_table(&t, store, env, r->table_name, "table_name", st);
	if (rc)
		return rc;
	size_t n = r->n_entries;
	rk_sv_status *est = calloc(n, sizeof *est), store_st = {RK_SV_OK, ""};
	size_t *first = calloc(n + 1, sizeof *first);
	int *results = NULL;
	mvec v = {0};
	if (!est || !first) {
		rc = rk_sv__fail(st, RK_SV_RESOURCE_EXHAUSTED, RK_ENOMEM, "out of memory");
		goto out;
	}
	convert_entries(&v, first, est, t, r->table_name, r);
	if (v.n && !(results = calloc(v.n, sizeof *results))) {
		rc = rk_sv__fail(st, RK_SV_RESOURCE_EXHAUSTED, RK_ENOMEM, "out of memory");
		goto out;
	}
	if (v.n && (rc = apply_entries(env, store, t, r, &v, results)) != 0)
		rk_sv__from_store(&store_st, rc, "applying the mutations"); /* its message per entry */
	rc = send_entries(sink, r, est, first, results, &store_st, st);
out:
	free(v.m);
	free(est);
	free(first);
	free(results);
	rk_sv__table_release(env->tables, store, t);
	return rc;
}

/* ---- CheckAndMutateRow ---- */

int rk_sv__check_and_mutate(const rk_sv_env *env, const Rkbt__CheckAndMutateRowRequest *r,
                            const rk_sv_sink *sink, rk_sv_status *st)
{
	int rc = rk_sv__no_views(r->authorized_view_name, NULL, st);
	if (rc || (rc = rk_sv__check_row_key(&r->row_key, "row_key", st)) != 0)
		return rc;
	if (r->n_true_mutations + r->n_false_mutations > RK_SV_MAX_MUTATIONS)
		return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
		                   "true_mutations, false_mutations: %zu in all (at most %u)",
		                   r->n_true_mutations + r->n_false_mutations, RK_SV_MAX_MUTATIONS);
	rk_filter *f = NULL;
	if (r->predicate_filter && (rc = rk_sv__filter(&f, r->predicate_filter,
	                                                "predicate_filter", st)) != 0)
		return rc;
	rk_table *t;
	char store[RK_MAX_TABLE_NAME_LEN + 1];
	if ((rc = rk_sv__open_table(&t, store, env, r->table_name, "table_name", st)) != 0) {
		free(f);
		return rc;
	}
	mvec yes = {0}, no = {0};
	int matched = 0;
	/* both branches are checked first, so a bad one fails the call either way */
	if ((r->n_true_mutations && (rc = convert(&yes, t, r->table_name, &r->row_key, r->true_mutations,
	                                          r->n_true_mutations, "true_mutations", st))) ||
	    (r->n_false_mutations && (rc = convert(&no, t, r->table_name, &r->row_key, r->false_mutations,
	                                           r->n_false_mutations, "false_mutations", st))))
		goto out;
	const uint8_t *k = r->row_key.data;
	void *mw = rk_sv__mirror_enter(env->mirrors, store, &k, &r->row_key.len, 1);
	rc = rk_table_check_and_mutate(&matched, t, r->row_key.data, r->row_key.len, f, yes.m, yes.n,
	                               no.m, no.n);
	rk_sv__mirror_leave(env->mirrors, mw, t, &k, &r->row_key.len, 1);
	if (rc) {
		rk_sv__from_store(st, rc, "CheckAndMutateRow");
		goto out;
	}
	Rkbt__CheckAndMutateRowResponse resp = RKBT__CHECK_AND_MUTATE_ROW_RESPONSE__INIT;
	resp.predicate_matched = matched;
	rc = rk_sv__send(sink, &resp.base, st);
out:
	free(yes.m);
	free(no.m);
	free(f);
	rk_sv__table_release(env->tables, store, t);
	return rc;
}

/* ---- ReadModifyWriteRow ---- */

/* The response: the row's new cells, one family after the other. */
static int rmw_reply(const rk_row *row, const rk_sv_sink *sink, rk_sv_status *st)
{
	size_t n = row->ncells;
	Rkbt__Family *fams = calloc(n ? n : 1, sizeof *fams);
	Rkbt__Family **fp = calloc(n ? n : 1, sizeof *fp);
	Rkbt__Column *cols = calloc(n ? n : 1, sizeof *cols);
	Rkbt__Column **cp = calloc(n ? n : 1, sizeof *cp);
	Rkbt__Cell *cells = calloc(n ? n : 1, sizeof *cells);
	Rkbt__Cell **clp = calloc(n ? n : 1, sizeof *clp);
	int rc;
	if (!fams || !fp || !cols || !cp || !cells || !clp) {
		rc = rk_sv__fail(st, RK_SV_RESOURCE_EXHAUSTED, RK_ENOMEM, "out of memory");
		goto out;
	}
	size_t nf = 0;
	for (size_t i = 0; i < n; i++) {
		const rk_cell *c = &row->cells[i];
		if (!nf || strcmp(fams[nf - 1].name, c->family) != 0) {
			rkbt__family__init(&fams[nf]);
			fams[nf].name = (char *)c->family;
			fams[nf].columns = &cp[i];
			fp[nf] = &fams[nf];
			nf++;
		}
		rkbt__column__init(&cols[i]);
		cols[i].qualifier = (ProtobufCBinaryData){c->qualifier_len, (uint8_t *)c->qualifier};
		rkbt__cell__init(&cells[i]);
		cells[i].timestamp_micros = (int64_t)c->ts;
		cells[i].value = (ProtobufCBinaryData){c->value_len, (uint8_t *)c->value};
		clp[i] = &cells[i];
		cols[i].n_cells = 1;
		cols[i].cells = &clp[i];
		cp[i] = &cols[i];
		fams[nf - 1].n_columns++;
	}
	Rkbt__Row out = RKBT__ROW__INIT;
	out.key = (ProtobufCBinaryData){row->key_len, (uint8_t *)row->key};
	out.n_families = nf;
	out.families = fp;
	Rkbt__ReadModifyWriteRowResponse resp = RKBT__READ_MODIFY_WRITE_ROW_RESPONSE__INIT;
	resp.row = &out;
	rc = rk_sv__send(sink, &resp.base, st);
out:
	free(fams);
	free(fp);
	free(cols);
	free(cp);
	free(cells);
	free(clp);
	return rc;
}

/* The store rules of r's (checked: a known family, a rule set). */
static int rules_of(rk_rmw_rule *out, rk_table *t, const char *table,
                    const Rkbt__ReadModifyWriteRowRequest *r, rk_sv_status *st)
{
	for (size_t i = 0; i < r->n_rules; i++) {
		const Rkbt__ReadModifyWriteRule *u = r->rules[i];
		if (!*u->family_name || !rk_table_has_family(t, u->family_name))
			return rk_sv__fail(st, RK_SV_NOT_FOUND, RK_ENOTFOUND,
			                   "rules[%zu]: column family '%.100s' not found in table %s", i,
			                   u->family_name, table);
		if (u->column_qualifier.len > RK_SV_MAX_QUALIFIER)
			return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
			                   "rules[%zu].column_qualifier: %zu bytes (at most %u)", i,
			                   u->column_qualifier.len, RK_SV_MAX_QUALIFIER);
		out[i] = (rk_rmw_rule){0, u->family_name, u->column_qualifier.data,
		                       u->column_qualifier.len, NULL, 0, 0};
		if (u->rule_case == RKBT__READ_MODIFY_WRITE_RULE__RULE_APPEND_VALUE) {
			out[i].kind = RK_RMW_APPEND;
			out[i].append = u->append_value.data;
			out[i].append_len = u->append_value.len;
		} else if (u->rule_case == RKBT__READ_MODIFY_WRITE_RULE__RULE_INCREMENT_AMOUNT) {
			out[i].kind = RK_RMW_INCREMENT;
			out[i].increment = u->increment_amount;
		} else {
			return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
			                   "rules[%zu]: append_value or increment_amount is needed", i);
		}
	}
	return 0;
}

int rk_sv__read_modify_write(const rk_sv_env *env, const Rkbt__ReadModifyWriteRowRequest *r,
                             const rk_sv_sink *sink, rk_sv_status *st)
{
	int rc = rk_sv__no_views(r->authorized_view_name, NULL, st);
	if (rc || (rc = rk_sv__check_row_key(&r->row_key, "row_key", st)) != 0)
		return rc;
	if (r->n_rules == 0)
		return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID, "rules: none given");
	if (r->n_rules > RK_SV_MAX_MUTATIONS)
		return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID, "rules: %zu (at most %u)",
		                   r->n_rules, RK_SV_MAX_MUTATIONS);
	rk_table *t;
	char store[RK_MAX_TABLE_NAME_LEN + 1];
	if ((rc = rk_sv__open_table(&t, store, env, r->table_name, "table_name", st)) != 0)
		return rc;
	rk_rmw_rule *rules = calloc(r->n_rules, sizeof *rules);
	rk_row *row = NULL;
	if (!rules) {
		rc = rk_sv__fail(st, RK_SV_RESOURCE_EXHAUSTED, RK_ENOMEM, "out of memory");
		goto out;
	}
	if ((rc = rules_of(rules, t, r->table_name, r, st)) != 0)
		goto out;
	const uint8_t *k = r->row_key.data;
	void *mw = rk_sv__mirror_enter(env->mirrors, store, &k, &r->row_key.len, 1);
	rc = rk_table_read_modify_write(&row, t, r->row_key.data, r->row_key.len, rules, r->n_rules,
	                                now_ms_micros());
	rk_sv__mirror_leave(env->mirrors, mw, t, &k, &r->row_key.len, 1);
	if (rc) {
		rk_sv__from_store(st, rc, "ReadModifyWriteRow");
		/* the rules were checked above, so what the store still refuses is
		 * the row as it stands (an increment of a value not 8 bytes, an
		 * append past the value limit): Bigtable's FAILED_PRECONDITION */
		if (rc == RK_EINVALID)
			st->code = RK_SV_FAILED_PRECONDITION;
		goto out;
	}
	rc = rmw_reply(row, sink, st);
out:
	rk_row_free(row);
	free(rules);
	rk_sv__table_release(env->tables, store, t);
	return rc;
}
