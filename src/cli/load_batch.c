/*
 * rowkey load's batches and the ledger of written rows (see load_batch.h).
 */
#include "cli/load_batch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "key/units.h"

#define CMD "load"

long rk_load__arena_put(arena *a, const void *src, size_t n)
{
	if (a->len + n > a->cap) {
		size_t c = a->cap ? a->cap * 2 : 1 << 16;
		while (c < a->len + n)
			c *= 2;
		uint8_t *q = realloc(a->p, c);
		if (!q)
			return -1;
		a->p = q;
		a->cap = c;
	}
	memcpy(a->p + a->len, src, n);
	a->len += n;
	return (long)(a->len - n);
}

void rk_load__ledger_ack(ledger *l, unsigned n)
{
	for (unsigned i = 0; i < n && i < l->nfly; i++)
		l->written += l->fly[i].nrows;
	n = n < l->nfly ? n : l->nfly;
	for (unsigned i = n; i < l->nfly; i++)
		l->fly[i - n] = l->fly[i];
	l->nfly -= n;
}

static void pending_reset(pending *p, arena *a)
{
	p->n = 0;
	p->sp.first_row += p->sp.nrows;
	p->sp.nrows = 0;
	a->len = 0;
}

/* Queues the pending batch (which must have cells). On success the ledger
 * records it and the batch and arena are empty again; on failure nothing was
 * queued and they are left as they were, for the report. */
int rk_load__send(rk_table *t, ledger *l, pending *p, arena *a)
{
	for (size_t i = 0; i < p->n; i++) {
		p->m[i].row = a->p + p->row_off[i];
		p->m[i].value = a->p + p->val_off[i];
	}
	if (!rk_table_apply_is_async(t)) { /* applied row by row before it returns */
		for (size_t i = 0; i < p->n; i++)
			p->res[i] = -1000; /* not reported */
		int rc = rk_table_apply(t, p->m, p->n, p->res);
		if (rc)
			return rc;
		l->written += p->sp.nrows;
		pending_reset(p, a);
		return 0;
	}
	int rc = rk_table_apply_async(t, p->m, p->n);
	if (rc)
		return rc;
	if (l->nfly == 2)
		rk_load__ledger_ack(l, 1); /* this call's 0 acknowledges the batch before the last */
	l->fly[l->nfly++] = p->sp;
	pending_reset(p, a);
	return 0;
}

/* 1 when every cell of record r of the batch reads back with its value, 0
 * when one does not, -1 when a read fails (the backend is gone). */
static int record_present(rk_table *t, const pending *p, const arena *a, size_t r)
{
	for (size_t i = 0; i < p->n; i++) {
		if (p->rec[i] != r)
			continue;
		const rk_mutation *m = &p->m[i];
		rk_column col = {m->family, m->qualifier, m->qualifier_len};
		rk_read_options ro = RK_READ_OPTIONS_INIT;
		ro.columns = &col;
		ro.ncolumns = 1;
		rk_row *row;
		int rc = rk_table_get(&row, t, a->p + p->row_off[i], m->row_len, &ro);
		if (rc) /* a key the backend cannot hold is not there either */
			return rc == RK_ENOTFOUND || rc == RK_EINVALID || rc == RK_ETOOLONG ? 0 : -1;
		int same = row->ncells == 1 && row->cells[0].value_len == m->value_len &&
		           !memcmp(row->cells[0].value, a->p + p->val_off[i], m->value_len);
		rk_row_free(row);
		if (!same)
			return 0;
	}
	return 1;
}

/* A backend that writes row by row (Bigtable) failed a batch: which of its
 * records are there (read back: every cell with its value) and which are
 * not, by input line. */
static void report_rows(rk_table *t, const pending *p, const arena *a, ledger *l)
{
	uint64_t ok = 0, bad = 0, acked = 0, unknown = 0;
	char lines[200] = "", why[300] = "";
	size_t ll = 0;
	int reads_fail = 0;
	for (size_t r = 0; r < p->sp.nrows; r++) {
		int present = reads_fail ? -1 : record_present(t, p, a, r); /* a failed read: stop */
		if (present > 0) {
			ok++;
			continue;
		}
		if (present < 0) {
			if (!reads_fail)
				snprintf(why, sizeof why, "%s", rk_error_last());
			reads_fail = 1;
			/* cannot read back: the backend's own word for the row */
			int res = 0, said = 0;
			for (size_t i = 0; i < p->n; i++)
				if (p->rec[i] == r) {
					said |= p->res[i] != -1000;
					res |= p->res[i];
				}
			if (!said) {
				unknown++;
				continue;
			}
			if (!res) {
				acked++;
				continue;
			}
		}
		if (bad++ < 10 && ll < sizeof lines - 24)
			ll += (size_t)snprintf(lines + ll, sizeof lines - ll, "%s%ld", bad > 1 ? ", " : "",
			                       p->line[r]);
	}
	char n[RK_NUM_STR];
	fprintf(stderr,
	        "; of the batch at lines %ld..%ld (rows %llu..%llu; this backend writes each row "
	        "on its own), %s row%s read back as written",
	        p->sp.first_line, p->sp.last_line, (unsigned long long)p->sp.first_row,
	        (unsigned long long)(p->sp.first_row + p->sp.nrows - 1),
	        rk__count_text(n, sizeof n, ok), ok == 1 ? "" : "s");
	if (reads_fail)
		fprintf(stderr, ", %s acknowledged by the backend (reading back failed: %s)",
		        rk__count_text(n, sizeof n, acked), why);
	fprintf(stderr, ", %s failed", rk__count_text(n, sizeof n, bad));
	if (bad)
		fprintf(stderr, " (line%s %s%s)", bad == 1 ? "" : "s", lines, bad > 10 ? ", ..." : "");
	if (unknown)
		fprintf(stderr, ", %s uncertain", rk__count_text(n, sizeof n, unknown));
	l->written += ok + acked;
}

/* A write failed (a full disk, ...), at `what`. Keeps the first error's
 * text, lets the batches in flight finish (rk_table_flush: the store closes
 * cleanly and a second failure is shown), then says what is known written,
 * what failed or is uncertain, and from where nothing was written (the
 * unsent batch `p`, when it has records, and the rest of the input). */
void rk_load__failed_write(rk_table *t, ledger *l, const pending *p, const arena *a,
                         const char *what)
{
	char first[1024];
	snprintf(first, sizeof first, "%s", rk_error_last());
	fprintf(stderr, "rowkey " CMD ": %s: %s\n", what, first);
	if (rk_table_flush(t) && !strstr(first, rk_error_last()))
		fprintf(stderr, "rowkey " CMD ": then also: %s\n", rk_error_last());

	char n[RK_NUM_STR];
	fprintf(stderr, "rowkey " CMD ": the %s rows", rk__count_text(n, sizeof n, l->written));
	if (l->nfly || p->sp.nrows)
		fprintf(stderr, " before line %ld",
		        l->nfly ? l->fly[0].first_line : p->sp.first_line);
	fprintf(stderr, " are written");
	if (l->nfly) {
		const span *lo = &l->fly[0], *hi = &l->fly[l->nfly - 1];
		fprintf(stderr,
		        "; rows %llu..%llu (lines %ld..%ld, %u batch%s in flight) failed or are "
		        "uncertain: each region server's share of a batch is written whole or not "
		        "at all",
		        (unsigned long long)lo->first_row,
		        (unsigned long long)(hi->first_row + hi->nrows - 1), lo->first_line,
		        hi->last_line, l->nfly, l->nfly == 1 ? "" : "es");
	}
	if (p->sp.nrows && !rk_table_apply_is_async(t) && p->n) {
		report_rows(t, p, a, l);
		fprintf(stderr, "; nothing after line %ld was written", p->sp.last_line);
	} else if (p->sp.nrows) {
		fprintf(stderr, "; nothing from line %ld on was written", p->sp.first_line);
	}
	fputc('\n', stderr);
	l->nfly = 0; /* reported; nothing is in flight any more */
}

