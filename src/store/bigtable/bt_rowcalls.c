/*
 * The Bigtable client's atomic row calls: CheckAndMutateRow and
 * ReadModifyWriteRow (bt_client.h), each one unary call with the table's
 * routing header. The predicate and the rules are the store's public types,
 * mapped by bt_map.c; the response row is decoded as hostile input.
 */
#include "store/bigtable/bt_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_data.pb-c.h"
#include "key/error.h"
#include "store/bigtable/bt_map.h"
#include "store/rowasm.h"

/* Packs req and makes the unary call `method` on table_name. */
static int call(uint8_t **resp, size_t *resp_len, rk_bt_client *c, const char *method,
                const char *table_name, const ProtobufCMessage *req, const char *what)
{
	size_t len = protobuf_c_message_get_packed_size(req);
	uint8_t *buf = malloc(len ? len : 1);
	char *routing = rk_bt__routing(table_name);
	int rc;
	if (!buf || !routing) {
		rc = rk__err(RK_ENOMEM, "%s: out of memory", what);
	} else {
		protobuf_c_message_pack(req, buf);
		rc = rk_bt__unary(resp, resp_len, c->data, method, buf, len, routing,
		                  rk_bt__deadline(c->opts.timeout_ms), what);
	}
	free(buf);
	free(routing);
	return rc;
}

int rk_bt__check_and_mutate_row(int *matched, rk_bt_client *c, const char *table,
                                const uint8_t *row, size_t row_len, const rk_filter *predicate,
                                const rk_bt_mutation *yes, size_t nyes,
                                const rk_bt_mutation *no, size_t nno)
{
	char what[128];
	snprintf(what, sizeof what, "bigtable CheckAndMutateRow %.60s", table);
	Rkbt__CheckAndMutateRowRequest req = RKBT__CHECK_AND_MUTATE_ROW_REQUEST__INIT;
	Rkbt__Mutation **ym = NULL, **nm = NULL;
	void *ymem = NULL, *nmem = NULL;
	uint8_t *resp = NULL;
	size_t resp_len;
	int rc = rk_bt__table_name(&req.table_name, c, table);
	if (rc < 0)
		return rc;
	if ((nyes && (rc = rk_bt__pack_mutations(&ym, &ymem, yes, nyes, what, row, row_len)) < 0) ||
	    (nno && (rc = rk_bt__pack_mutations(&nm, &nmem, no, nno, what, row, row_len)) < 0) ||
	    (predicate && (rc = rk_bt__filter_to_pb(&req.predicate_filter, predicate)) < 0))
		goto done;
	req.row_key = (ProtobufCBinaryData){row_len, (uint8_t *)row};
	req.n_true_mutations = nyes;
	req.true_mutations = ym;
	req.n_false_mutations = nno;
	req.false_mutations = nm;
	if ((rc = call(&resp, &resp_len, c, RK_BT_M_CHECK_AND_MUTATE, req.table_name, &req.base,
	               what)) < 0)
		goto done;
	Rkbt__CheckAndMutateRowResponse *r =
	        rkbt__check_and_mutate_row_response__unpack(NULL, resp_len, resp);
	if (!r) {
		rc = rk__err(RK_ECORRUPT, "%s: the response does not parse", what);
		goto done;
	}
	*matched = r->predicate_matched != 0;
	rkbt__check_and_mutate_row_response__free_unpacked(r, NULL);
done:
	rk_bt__filter_pb_free(req.predicate_filter);
	free(req.table_name);
	free(ymem);
	free(nmem);
	free(resp);
	return rc;
}

/* The store row of a ReadModifyWriteRow response (its cells in row order,
 * as the server sent them), in one allocation. */
static int row_of(rk_row **out, const Rkbt__Row *r, const char *what)
{
	size_t n = 0;
	for (size_t f = 0; f < r->n_families; f++)
		for (size_t q = 0; q < r->families[f]->n_columns; q++)
			n += r->families[f]->columns[q]->n_cells;
	rk_cell *cells = calloc(n ? n : 1, sizeof *cells);
	if (!cells)
		return rk__err(RK_ENOMEM, "%s: out of memory", what);
	size_t k = 0;
	for (size_t f = 0; f < r->n_families; f++) {
		const Rkbt__Family *fa = r->families[f];
		for (size_t q = 0; q < fa->n_columns; q++) {
			const Rkbt__Column *col = fa->columns[q];
			for (size_t i = 0; i < col->n_cells; i++) {
				const Rkbt__Cell *x = col->cells[i];
				if (x->timestamp_micros < 0) {
					free(cells);
					return rk__err(RK_ECORRUPT, "%s: a cell with timestamp %lld", what,
					               (long long)x->timestamp_micros);
				}
				cells[k++] = (rk_cell){fa->name, col->qualifier.data, col->qualifier.len,
				                       (uint64_t)x->timestamp_micros, x->value.data,
				                       x->value.len, NULL};
			}
		}
	}
	rk_row view = {r->key.data, r->key.len, cells, n};
	int rc = rk_rowbuf__copy(out, &view);
	free(cells);
	return rc;
}

int rk_bt__read_modify_write_row(rk_row **out, rk_bt_client *c, const char *table,
                                 const uint8_t *row, size_t row_len, const rk_rmw_rule *rules,
                                 size_t n)
{
	char what[128];
	snprintf(what, sizeof what, "bigtable ReadModifyWriteRow %.60s", table);
	Rkbt__ReadModifyWriteRowRequest req = RKBT__READ_MODIFY_WRITE_ROW_REQUEST__INIT;
	Rkbt__ReadModifyWriteRule *rs = calloc(n, sizeof *rs);
	Rkbt__ReadModifyWriteRule **rp = calloc(n, sizeof *rp);
	uint8_t *resp = NULL;
	size_t resp_len;
	int rc = rk_bt__table_name(&req.table_name, c, table);
	if (rc < 0 || !rs || !rp) {
		rc = rc < 0 ? rc : rk__err(RK_ENOMEM, "%s: out of memory", what);
		goto done;
	}
	for (size_t i = 0; i < n; i++) {
		rkbt__read_modify_write_rule__init(&rs[i]);
		rs[i].family_name = (char *)rules[i].family;
		rs[i].column_qualifier = (ProtobufCBinaryData){rules[i].qualifier_len,
		                                               (uint8_t *)rules[i].qualifier};
		if (rules[i].kind == RK_RMW_APPEND) {
			rs[i].rule_case = RKBT__READ_MODIFY_WRITE_RULE__RULE_APPEND_VALUE;
			rs[i].append_value = (ProtobufCBinaryData){rules[i].append_len,
			                                           (uint8_t *)rules[i].append};
		} else {
			rs[i].rule_case = RKBT__READ_MODIFY_WRITE_RULE__RULE_INCREMENT_AMOUNT;
			rs[i].increment_amount = rules[i].increment;
		}
		rp[i] = &rs[i];
	}
	req.row_key = (ProtobufCBinaryData){row_len, (uint8_t *)row};
	req.n_rules = n;
	req.rules = rp;
	if ((rc = call(&resp, &resp_len, c, RK_BT_M_READ_MODIFY_WRITE, req.table_name, &req.base,
	               what)) < 0)
		goto done;
	Rkbt__ReadModifyWriteRowResponse *r =
	        rkbt__read_modify_write_row_response__unpack(NULL, resp_len, resp);
	if (!r || !r->row)
		rc = rk__err(RK_ECORRUPT, "%s: the response does not parse as a row", what);
	else
		rc = row_of(out, r->row, what);
	if (r)
		rkbt__read_modify_write_row_response__free_unpacked(r, NULL);
done:
	free(req.table_name);
	free(rs);
	free(rp);
	free(resp);
	return rc;
}
