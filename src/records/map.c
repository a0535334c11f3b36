/*
 * Records onto schema fields (see map.h).
 */
#include "records/map.h"

#include <string.h>

#include "key/error.h"
#include "key/schema_int.h"

static int header_column(rk_rec *r, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; i < rk_rec__ncolumns(r); i++) {
		size_t len;
		const char *c = rk_rec__column(r, i, &len);
		if (len == n && !memcmp(c, name, n))
			return (int)i;
	}
	return -1;
}

/* The field numbered records fill: an unsigned integer no column feeds. */
static int number_field(rk_rec_map *m, rk_rec *r, const char *name)
{
	m->number = -1;
	if (!name)
		return 0;
	int f = rk_schema_field_index(m->schema, name, strlen(name));
	if (f < 0)
		return rk__err(RK_EINVALID, "--number %s: the schema has no field '%s'", name, name);
	rk_type t = rk_schema_field_type(m->schema, (size_t)f);
	if (t != RK_T_U64 && t != RK_T_U32)
		return rk__err(RK_EINVALID, "--number %s: the field is %s; record numbers need u64",
		               name, rk_type__name(t));
	if (!m->by_name && !m->positional && header_column(r, name) >= 0)
		return rk__err(RK_EINVALID, "--number %s: the input has a column '%s' already", name,
		               name);
	m->number = f;
	return 0;
}

int rk_rec__map_init(rk_rec_map *m, rk_rec *r, const rk_schema *s, const char *number)
{
	rk_schema_info info;
	int rc;
	memset(m, 0, sizeof *m);
	m->schema = s;
	m->nf = rk_schema_nfields(s);
	if (m->nf > RK_REC_MAP_MAX)
		return rk__err(RK_EINVALID, "the schema has %zu fields; records map at most %d", m->nf,
		               RK_REC_MAP_MAX);
	m->by_name = rk_rec__format(r) == RK_REC_JSONL;
	m->positional = !m->by_name && rk_rec__ncolumns(r) == 0;
	if ((rc = number_field(m, r, number)) != 0)
		return rc;
	m->by_name = rk_rec__format(r) == RK_REC_JSONL;
	m->positional = !m->by_name && rk_rec__ncolumns(r) == 0;
	if (m->by_name || m->positional)
		return 0;
	rk_schema_get_info(&info, s);
	for (size_t f = 0; f < m->nf; f++) {
		m->col[f] = header_column(r, rk_schema_field_name(s, f));
		if (m->col[f] < 0 && (info.point_get_mask >> f & 1) && (int)f != m->number)
			return rk__err(RK_EINVALID,
			               "%s: the header has no column '%s', which the key needs (the header: "
			               "%s; columns map by name: rename the column, or use --no-header for "
			               "positional records)",
			               rk_rec__name(r), rk_schema_field_name(s, f), rk_rec__header_text(r));
	}
	return 0;
}

void rk_rec__map_notes(const rk_rec_map *m, rk_rec *r, FILE *out, const char *cmd)
{
	if (m->by_name || m->positional)
		return;
	for (size_t i = 0; i < rk_rec__ncolumns(r); i++) {
		size_t f = 0;
		while (f < m->nf && m->col[f] != (int)i)
			f++;
		if (f == m->nf)
			fprintf(out, "rowkey %s: note: column %zu ('%s') names no schema field; ignored\n", cmd,
			        i + 1, rk_rec__column(r, i, NULL));
	}
	int last = -1, reordered = 0;
	for (size_t f = 0; f < m->nf; f++) {
		if (m->col[f] < 0 && (int)f != m->number) {
			fprintf(out, "rowkey %s: note: the header has no column '%s'; the field stays empty\n",
			        cmd, rk_schema_field_name(m->schema, f));
			continue;
		}
		reordered |= m->col[f] < last;
		last = m->col[f];
	}
	if (reordered) /* said, in case the order was meant to be positional */
		fprintf(out, "rowkey %s: note: the header names the fields in another order than the "
		             "schema; columns map by name\n",
		        cmd);
}

static int is_number_type(rk_type t)
{
	return t != RK_T_STR && t != RK_T_BYTES;
}

/* One cell into field f. */
static int convert(rk_value *v, const rk_rec_map *m, size_t f, const rk_rec_cell *c, rk_rec *r,
                   const rk_record *rec)
{
	rk_type t = rk_schema_field_type(m->schema, f);
	const char *fname = rk_schema_field_name(m->schema, f);
	memset(v, 0, sizeof *v);
	/* an empty cell of a number field holds no number: the field is absent in
	 * that record (no cell written, as a sparse column in HBase or Bigtable),
	 * and a key that needs it says so */
	if (c->kind == RK_CELL_NULL || (c->len == 0 && is_number_type(t) && c->kind != RK_CELL_BOOL))
		return 0;
	if (c->kind == RK_CELL_BOOL)
		return rk__err(RK_EINVALID, "%s: line %ld, column %u, field '%s': %s is a boolean, not %s",
		               rk_rec__name(r), rec->line, c->col, fname, c->p,
		               is_number_type(t) ? "a number" : "a string");
	if (c->kind == RK_CELL_NUMBER && t == RK_T_BYTES)
		return rk__err(RK_EINVALID, "%s: line %ld, column %u, field '%s': a number is not bytes",
		               rk_rec__name(r), rec->line, c->col, fname);
	if (rk_schema_value_parse(v, m->schema, f, c->p, c->len) < 0)
		return rk__err(RK_EINVALID, "%s: line %ld, column %u, field '%s': %s", rk_rec__name(r),
		               rec->line, c->col, fname, rk_error_last());
	return 0;
}

/* The record's number into the numbered field. */
static int numbered(rk_value *vals, const rk_rec_map *m)
{
	if (m->number >= 0) {
		vals[m->number].present = 1;
		vals[m->number].v.u = m->numbered;
	}
	return 0;
}

int rk_rec__map_values(rk_value *vals, rk_rec_map *m, rk_rec *r, const rk_record *rec)
{
	int rc;
	memset(vals, 0, m->nf * sizeof *vals);
	m->numbered++;
	if (m->positional && rec->n != m->nf)
		return rk__err(RK_EINVALID, "%s: line %ld: %zu cells, but the schema has %zu fields "
		                            "(records without a header are positional)",
		               rk_rec__name(r), rec->line, rec->n, m->nf);
	if (m->by_name) {
		for (size_t i = 0; i < rec->n; i++) {
			const rk_rec_cell *c = &rec->cell[i];
			int f = rk_schema_field_index(m->schema, c->name, c->name_len);
			if (f < 0 || f == m->number)
				continue; /* members the schema does not name are not its fields */
			if ((rc = convert(&vals[f], m, (size_t)f, c, r, rec)) != 0)
				return rc;
		}
		return numbered(vals, m);
	}
	for (size_t f = 0; f < m->nf; f++) {
		int col = m->positional ? (int)f : m->col[f];
		if (col < 0 || (int)f == m->number)
			continue;
		if ((rc = convert(&vals[f], m, f, &rec->cell[col], r, rec)) != 0)
			return rc;
	}
	return numbered(vals, m);
}
