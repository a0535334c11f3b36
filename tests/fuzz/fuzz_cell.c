/*
 * Fuzz target for the store's decoders of on-disk bytes: the cell key
 * (src/store/cell.c), with the one-pass row decoder and same-family
 * shortcut that scans use, the META file (src/store/local/meta.c) and a
 * family's GC rule in it (src/store/gc.c). The first input byte picks the
 * decoder. A cell key that decodes must re-encode to the same bytes; a META
 * image that decodes must re-encode to the same image (or, for versions
 * this build rewrites, to one that then stays the same); a GC rule must
 * survive encoding and the public tree. Anything else must be rejected with
 * RK_ECORRUPT, never a crash.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "store/cell.h"
#include "store/gc.h"
#include "store/local/crc.h"
#include "store/local/meta.h"

/* The one-pass row decoder (scans) must agree with decode_row + unesc, and
 * the same-family shortcut with the full decode of the rest. */
static void fuzz_row_paths(const uint8_t *data, size_t size)
{
	rk__cellkey a, b;
	int ra = rk_cell__decode_row(&a, data, size);
	uint8_t *u1 = malloc(size + 8), *u2 = malloc(size + 8);
	size_t l2 = 0;
	int rb = rk_cell__decode_row_unesc(&b, data, size, u2, &l2);
	if ((ra == 0) != (rb == 0) || (ra && (ra != RK_ECORRUPT || rb != RK_ECORRUPT)))
		abort();
	if (!ra) {
		size_t l1 = rk_cell__unesc(u1, a.row, a.row_len);
		if (a.table_id != b.table_id || a.row != b.row || a.row_len != b.row_len ||
		    a.row_part_end != b.row_part_end || l1 != l2 || memcmp(u1, u2, l1))
			abort();
		rk__cellkey full = a;
		if (rk_cell__decode_rest(&full, data, size) == 0) {
			rk__cellkey fast = b;
			fast.family = full.family;
			fast.family_len = full.family_len;
			if (rk_cell__decode_rest_same_family(&fast, data, size) ||
			    fast.qual != full.qual || fast.qual_len != full.qual_len ||
			    fast.ts != full.ts || fast.type != full.type ||
			    fast.family_marker != full.family_marker)
				abort();
		}
	}
	free(u1);
	free(u2);
}

static void fuzz_cell_key(const uint8_t *data, size_t size)
{
	rk__cellkey ck;
	fuzz_row_paths(data, size);
	int rc = rk_cell__decode(&ck, data, size);
	if (rc) {
		if (rc != RK_ECORRUPT)
			abort();
		return;
	}
	uint8_t *row = malloc(ck.row_len + 1), *qual = malloc(ck.qual_len + 1);
	char *fam = malloc(ck.family_len + 1);
	size_t rl = rk_cell__unesc(row, ck.row, ck.row_len);
	size_t ql = rk_cell__unesc(qual, ck.qual, ck.qual_len);
	memcpy(fam, ck.family, ck.family_len);
	fam[ck.family_len] = 0;
	size_t need = rk_cell__key_len(rk_cell__esc_len(row, rl), ck.family_len, qual, ql,
	                               ck.family_marker);
	uint8_t *again = malloc(need);
	size_t n = rk_cell__encode(again, ck.table_id, row, rl, fam, ck.family_len, qual, ql,
	                           ck.family_marker, ck.ts, ck.type);
	if (n != size || n != need || memcmp(again, data, size))
		abort(); /* decoding is not the inverse of encoding */
	free(again);
	free(row);
	free(qual);
	free(fam);
}

/* Patches the length and checksum so mutations reach the parser instead of
 * all dying at the CRC (the CRC check itself is covered by test_meta). */
static void fuzz_meta(const uint8_t *in, size_t size)
{
	rk__meta m;
	uint8_t *data = malloc(size ? size : 1);
	memcpy(data, in, size);
	if (size >= 16) {
		rk_cell__put_u32(data + 8, (uint32_t)(size - 16));
		rk_cell__put_u32(data + size - 4, rk_crc__32(data + 12, size - 16));
	}
	rk_meta__init(&m, 1);
	int rc = rk_meta__decode(&m, data, size, "META");
	if (rc && rc != RK_ECORRUPT && rc != RK_ENOMEM)
		abort();
	if (!rc) {
		uint8_t *buf;
		size_t len;
		if (rk_meta__encode(&buf, &len, &m) == 0) {
			if (rk_cell__get_u32(data + 12) != 2) {
				/* version 1 is rewritten as 2, and 3 as 2 when no family
				 * has a rule beyond a version count: rewrites are stable */
				rk__meta m2;
				uint8_t *buf2;
				size_t len2;
				rk_meta__init(&m2, 1);
				if (rk_meta__decode(&m2, buf, len, "META") ||
				    rk_meta__encode(&buf2, &len2, &m2))
					abort();
				if (len2 != len || memcmp(buf, buf2, len))
					abort();
				free(buf2);
				rk_meta__fini(&m2);
			} else if (len != size || memcmp(buf, data, size)) {
				abort();
			}
			free(buf);
		}
	}
	rk_meta__fini(&m);
	free(data);
}

/* A rule that decodes encodes back to its bytes (plain version counts and
 * "keep all" decode to no rule: a family keeps those as max_versions), and
 * its public tree compiles to the same rule. */
static void fuzz_gc(const uint8_t *data, size_t size)
{
	rk__gc *g;
	int rc = rk_gc__decode(&g, data, size);
	if (rc) {
		if (rc != RK_ECORRUPT && rc != RK_ENOMEM)
			abort();
		return;
	}
	if (!g)
		return;
	uint8_t *again = malloc(rk_gc__encoded_len(g) + 1);
	rk_gc__encode(again, g);
	if (rk_gc__encoded_len(g) != size || memcmp(again, data, size))
		abort();
	rk_gc_rule *tree;
	rk__gc *g2;
	unsigned versions;
	if (rk_gc__to_rule(&tree, g) == 0) {
		if (rk_gc__check(tree, "t", "f") || rk_gc__compile(&g2, &versions, tree) || !g2 ||
		    g2->n != g->n || memcmp(g2->node, g->node, g->n * sizeof g->node[0]))
			abort();
		free(g2);
		free(tree);
	}
	free(again);
	free(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	if ((data[0] & 3) == 2)
		fuzz_gc(data + 1, size - 1);
	else if (data[0] & 1)
		fuzz_meta(data + 1, size - 1);
	else
		fuzz_cell_key(data + 1, size - 1);
	return 0;
}
