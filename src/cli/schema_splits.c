/*
 * Split points derived from a key design (rowkey create --schema, rowkey
 * rekey): one region per bucket of a salted design, the split points being
 * the buckets' prefixes as the encoder writes them, or N regions at
 * quantiles of a hash prefix. Both are found by encoding sample records, so
 * any bucket or prefix form works without knowing its byte layout here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/splits.h"

/* Where the split points go, and the command that speaks. */
typedef struct split_out {
	rk_bytes **sp;
	size_t *nsp;
	unsigned *bpl;
	uint64_t nregions;
	const char *cmd;
} split_out;

static int out_of_memory(const char *cmd)
{
	fprintf(stderr, "rowkey %s: out of memory for the split points\n", cmd);
	return RK_EXIT_FAIL;
}

static uint64_t rng_next(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static size_t sort_len; /* prefix length for prefix_cmp (the CLI is single-threaded) */

static int prefix_cmp(const void *a, const void *b)
{
	return memcmp(a, b, sort_len);
}

/* Encodes random records and returns their key prefixes (plen bytes each,
 * *n of them, malloc'd). Records the design rejects are skipped. */
static int sample_prefixes(uint8_t **out, size_t *n, const rk_schema *sc, size_t plen,
                           size_t want, int distinct)
{
	size_t nf = rk_schema_nfields(sc), maxkey = rk_schema_max_key_len(sc), got = 0;
	rk_encoder *enc = NULL;
	rk_value *v = calloc(nf ? nf : 1, sizeof *v);
	char (*str)[17] = calloc(nf ? nf : 1, sizeof *str);
	uint8_t *key = malloc(maxkey ? maxkey : 1), *pre = malloc(want * plen + 1);
	uint64_t x = 0x9e3779b97f4a7c15ull;
	int rc = -1;
	if (!v || !str || !key || !pre || rk_encoder_new(&enc, sc, 1))
		goto out;
	for (size_t attempt = 0; attempt < 200000 && got < want; attempt++) {
		for (size_t i = 0; i < nf; i++) {
			uint64_t r = rng_next(&x);
			v[i].present = 1;
			switch (rk_schema_field_type(sc, i)) {
			case RK_T_U8: v[i].v.u = r & 0xFF; break;
			case RK_T_U16: v[i].v.u = r & 0xFFFF; break;
			case RK_T_U32: v[i].v.u = r & 0xFFFFFFFF; break;
			case RK_T_U64: v[i].v.u = r >> 1; break;
			case RK_T_I8: v[i].v.i = (int64_t)(r & 0x7F); break;
			case RK_T_I16: v[i].v.i = (int64_t)(r & 0x7FFF); break;
			case RK_T_I32: v[i].v.i = (int64_t)(r & 0x7FFFFFFF); break;
			case RK_T_I64: v[i].v.i = (int64_t)(r >> 12); break;
			case RK_T_F64: v[i].v.f = (double)(r >> 11) / 9007199254740992.0; break;
			default:
				snprintf(str[i], sizeof str[i], "%016llx", (unsigned long long)r);
				v[i].v.s.ptr = (const uint8_t *)str[i];
				v[i].v.s.len = 16;
				break;
			}
		}
		size_t klen;
		if (rk_key_encode(key, maxkey, &klen, enc, v) || klen < plen)
			continue;
		int seen = 0;
		for (size_t k = 0; distinct && k < got && !seen; k++)
			seen = !memcmp(pre + k * plen, key, plen);
		if (!seen)
			memcpy(pre + got++ * plen, key, plen);
	}
	sort_len = plen;
	qsort(pre, got, plen, prefix_cmp);
	*out = pre;
	*n = got;
	pre = NULL;
	rc = 0;
out:
	rk_encoder_free(enc);
	free(v);
	free(str);
	free(key);
	free(pre);
	return rc;
}

/* A salted design: one region per bucket, the split points being the
 * buckets' prefixes as the encoder writes them. */
static int bucket_splits(split_out *a, const rk_schema *sc, const rk_schema_info *info)
{
	size_t plen = info->prefix_len, np = 0;
	uint8_t *pre = NULL;
	if (plen > 8) {
		fprintf(stderr, "rowkey %s: bucket prefix of %zu bytes (the store keeps up to 8)\n",
		        a->cmd, plen);
		return RK_EXIT_FAIL;
	}
	if (sample_prefixes(&pre, &np, sc, plen, info->buckets, 1) || np != info->buckets) {
		free(pre);
		fprintf(stderr, "rowkey %s: found %zu of the schema's %u buckets by encoding sample "
		                "records\n", a->cmd, np, info->buckets);
		return RK_EXIT_FAIL;
	}
	*a->bpl = (unsigned)plen;
	for (size_t i = 1; i < np; i++)
		if (rk_cli__split_add_copy(a->sp, a->nsp, pre + i * plen, plen)) {
			free(pre);
			return out_of_memory(a->cmd);
		}
	free(pre);
	return 0;
}

/* A hash prefix: --regions N regions at quantiles of sampled prefixes, so
 * any hash or prefix form splits evenly. */
static int quantile_splits(split_out *a, const rk_schema *sc, size_t plen)
{
	size_t want = a->nregions ? a->nregions : 1, np = 0;
	uint8_t *pre = NULL;
	if (want > 1 && (sample_prefixes(&pre, &np, sc, plen, 20000, 0) || np < want)) {
		free(pre);
		fprintf(stderr, "rowkey %s: could not sample the schema's key prefix\n", a->cmd);
		return RK_EXIT_FAIL;
	}
	for (size_t i = 1; i < want; i++) {
		const uint8_t *q = pre + (np * i / want) * plen;
		if (*a->nsp && (*a->sp)[*a->nsp - 1].len == plen && !memcmp((*a->sp)[*a->nsp - 1].ptr, q, plen))
			continue; /* a repeated quantile */
		if (rk_cli__split_add_copy(a->sp, a->nsp, q, plen)) {
			free(pre);
			return out_of_memory(a->cmd);
		}
	}
	free(pre);
	return 0;
}

int rk_cli__schema_splits(rk_bytes **sp, size_t *n, unsigned *bpl, const rk_schema *sc,
                          uint64_t nregions, const char *cmd)
{
	rk_schema_info info;
	split_out a = {sp, n, bpl, nregions, cmd};
	rk_schema_get_info(&info, sc);
	if (info.prefix_len == 0)
		return 0;
	return info.buckets > 1 ? bucket_splits(&a, sc, &info) : quantile_splits(&a, sc, info.prefix_len);
}
