/*
 * Closing a key-bucket interval (keyviz.h): the cut of the key space the
 * interval is kept with, and the next one is counted in.
 *
 * A bucket that took more than HEAVY times its share of the interval's rows
 * (and at least HEAVY_MIN rows) is cut at the keys sampled from it: first
 * to the keys it saw (a zero bucket below its smallest sample, one from just
 * after its largest), then into about as many pieces as its share of the
 * bucket budget; its counts go to the pieces in proportion to the samples
 * in each. So a sequential key's bucket, which took every write of
 * the interval in a sliver of its range, becomes about a thousand pieces
 * along that sliver: the diagonal. The other buckets keep their bounds,
 * so a steady load keeps its layout (and the history shares it). When
 * anything was cut, the least loaded neighbours merge (idle ones first)
 * until there are at most twice as many buckets as took load, and at most
 * the budget.
 */
#include <stdlib.h>
#include <string.h>

#include "key/bytes.h"
#include "key/error.h"
#include "store/local/keyviz.h"

enum { HEAVY = 4, HEAVY_MIN = 8 };

typedef struct piece {
	const uint8_t *k; /* where it starts */
	size_t len;
	rk_metrics_counts c;
	uint64_t w;       /* rows: the weight merges go by */
} piece;

typedef struct skey {
	const uint8_t *k;
	size_t len;
} skey;

typedef struct cutter {
	const rk__kvt *t;
	piece *p;
	size_t n, cap;
	skey *order;      /* the samples, sorted */
	uint8_t *succ;    /* one slot per bucket: the key after its largest */
	int split;        /* some bucket was cut */
} cutter;

static int push(cutter *C, const uint8_t *k, size_t len, const rk_metrics_counts *c)
{
	if (C->n == C->cap) {
		size_t n = C->cap ? 2 * C->cap : 256;
		piece *q = realloc(C->p, n * sizeof *q);
		if (!q)
			return RK_ENOMEM;
		C->p = q;
		C->cap = n;
	}
	piece *p = &C->p[C->n++];
	p->k = k;
	p->len = len;
	p->c = c ? *c : (rk_metrics_counts){0};
	p->w = rk_metrics__add_sat(p->c.writes, p->c.reads);
	return 0;
}

static int skey_cmp(const void *x, const void *y)
{
	const skey *a = x, *b = y;
	return rk__bytes_cmp(a->k, a->len, b->k, b->len);
}

/* The smallest key after every key starting with k[0..len): k 00 when
 * shorter than the cut length, else the prefix with its last byte below
 * ff raised. 0 when there is none (all ff). */
static size_t succ(uint8_t *out, const uint8_t *k, size_t len)
{
	if (len < RK_KV_KEY_MAX) {
		memcpy(out, k, len);
		out[len] = 0;
		return len + 1;
	}
	while (len && k[len - 1] == 0xff)
		len--;
	if (!len)
		return 0;
	memcpy(out, k, len);
	out[len - 1]++;
	return len;
}

/* Bucket j cut at its samples s[0..m) (sorted, m >= 1) into about k
 * pieces: trimmed to [first sample, just after the last), a zero piece
 * below and above when that leaves keys out, cut at samples in between;
 * its counts shared in proportion to the samples in each piece (the rows
 * below the first or above the last sample, a sample's stride at most,
 * count in the pieces next to them). */
static int cut_bucket(cutter *C, size_t j, const skey *s, size_t m, size_t k)
{
	const rk_metrics_counts *b = &C->t->b[j];
	const rk_keyviz_layout *l = &C->t->layout->pub;
	const uint8_t *lo = s[0].k;
	size_t lo_len = s[0].len, ncut = 0;
	if (rk__bytes_cmp(lo, lo_len, l->start[j], l->start_len[j]) <= 0) {
		lo = l->start[j];
		lo_len = l->start_len[j];
	} else if (push(C, l->start[j], l->start_len[j], NULL)) {
		return RK_ENOMEM;
	}
	uint32_t cutat[RK_KV_BUCKETS + 1];
	uint64_t cnt[RK_KV_BUCKETS + 1];
	if (k > RK_KV_BUCKETS)
		k = RK_KV_BUCKETS;
	for (size_t i = 1; i < k; i++) {
		size_t r = i * m / k;
		const skey *prev = ncut ? &s[cutat[ncut - 1]] : NULL;
		if (rk__bytes_cmp(s[r].k, s[r].len, prev ? prev->k : lo, prev ? prev->len : lo_len) > 0)
			cutat[ncut++] = (uint32_t)r;
	}
	/* samples per piece: piece 0 is [lo, cut 0), piece i [cut i-1, cut i) */
	memset(cnt, 0, (ncut + 1) * sizeof *cnt);
	for (size_t i = 0, p = 0; i < m; i++) {
		while (p < ncut && i >= cutat[p])
			p++;
		cnt[p]++;
	}
	rk_metrics_counts part[RK_KV_BUCKETS + 1];
	memset(part, 0, (ncut + 1) * sizeof *part);
	rk_kvmap__share(part, b, cnt, ncut + 1, m);
	for (size_t i = 0; i <= ncut; i++) {
		const uint8_t *key = i ? s[cutat[i - 1]].k : lo;
		size_t kl = i ? s[cutat[i - 1]].len : lo_len;
		if (push(C, key, kl, &part[i]))
			return RK_ENOMEM;
	}
	/* the idle rest of the bucket, from just after its largest sample */
	uint8_t *sk = C->succ + j * (RK_KV_KEY_MAX + 1);
	size_t sl = succ(sk, s[m - 1].k, s[m - 1].len);
	if (sl && rk__bytes_cmp(sk, sl, C->p[C->n - 1].k, C->p[C->n - 1].len) > 0 &&
	    (j + 1 == l->nbuckets || rk__bytes_cmp(sk, sl, l->start[j + 1], l->start_len[j + 1]) < 0))
		return push(C, sk, sl, NULL);
	return 0;
}

static int build_pieces(cutter *C)
{
	const rk__kvt *t = C->t;
	const rk_keyviz_layout *l = &t->layout->pub;
	const skey *o = C->order;
	uint64_t total = 0;
	for (size_t j = 0; j < l->nbuckets; j++)
		total = rk_metrics__add_sat(total, rk_metrics__add_sat(t->b[j].writes, t->b[j].reads));
	double target = (double)(total ? total : 1) / t->budget;
	for (size_t j = 0, s0 = 0; j < l->nbuckets; j++) {
		const rk_metrics_counts *b = &t->b[j];
		/* the samples of this bucket: below the next bucket's start */
		size_t s1 = s0;
		while (s1 < t->nsamples && (j + 1 == l->nbuckets ||
		                            rk__bytes_cmp(o[s1].k, o[s1].len, l->start[j + 1], l->start_len[j + 1]) < 0))
			s1++;
		uint64_t w = rk_metrics__add_sat(b->writes, b->reads);
		int any = w || b->bytes_written || b->bytes_read, rc;
		if (!any || w < HEAVY_MIN || (double)w <= HEAVY * target || s1 == s0) {
			rc = push(C, l->start[j], l->start_len[j], any ? b : NULL);
		} else {
			size_t k = (size_t)rk_metrics__u64_sat((double)w / target + 0.5);
			if (k > s1 - s0 + 1)
				k = s1 - s0 + 1;
			C->split = 1;
			rc = cut_bucket(C, j, o + s0, s1 - s0, k ? k : 1);
		}
		if (rc)
			return rc;
		s0 = s1;
	}
	return 0;
}

/* pieces -> the layout and its cells */
static int make(rk__kvlayout **out, rk_keyviz_cell **cells, size_t *ncells, cutter *C)
{
	uint8_t *keep = calloc(C->n, 1);
	const uint8_t **keys = malloc(C->n * sizeof *keys);
	size_t *lens = malloc(C->n * sizeof *lens), nb = 0, nc = 0;
	uint64_t *w = malloc(C->n * sizeof *w);
	rk_keyviz_cell *cl = malloc(C->n * sizeof *cl);
	int rc = RK_ENOMEM;
	if (!keep || !keys || !lens || !w || !cl)
		goto out;
	/* as many buckets as twice those with load (at most the budget): old
	 * idle ones merge away, the layout stays about the size of the load */
	size_t busy = 0, max;
	for (size_t i = 0; i < C->n; i++)
		busy += (w[i] = C->p[i].w) != 0;
	max = 2 * busy + 2 < C->t->budget ? 2 * busy + 2 : C->t->budget;
	if ((rc = rk_kvmap__reduce(keep, w, C->n, max, 1)) != 0)
		goto out;
	for (size_t i = 0; i < C->n; i++) {
		if (keep[i]) {
			keys[nb] = C->p[i].k;
			lens[nb] = C->p[i].len;
			cl[nb] = (rk_keyviz_cell){(uint32_t)nb, {0}};
			nb++;
		}
		rk_metrics__counts_add(&cl[nb - 1].c, &C->p[i].c);
	}
	for (size_t i = 0; i < nb; i++)
		if (cl[i].c.writes || cl[i].c.reads || cl[i].c.bytes_written || cl[i].c.bytes_read)
			cl[nc++] = cl[i];
	rc = RK_ENOMEM;
	if (!(*out = rk_kvlayout__new(nb, keys, lens)))
		goto out;
	*cells = cl;
	*ncells = nc;
	cl = NULL;
	rc = 0;
out:
	free(keep);
	free(keys);
	free(lens);
	free(w);
	free(cl);
	return rc;
}

int rk_kvt__cut(rk__kvlayout **out, rk_keyviz_cell **cells, size_t *ncells, const rk__kvt *t)
{
	cutter C = {.t = t};
	const rk_keyviz_layout *l = &t->layout->pub;
	int rc = RK_ENOMEM;
	*out = NULL;
	*cells = NULL;
	*ncells = 0;
	if (!(C.order = malloc((t->nsamples ? t->nsamples : 1) * sizeof *C.order)) ||
	    !(C.succ = malloc(l->nbuckets * (RK_KV_KEY_MAX + 1))))
		goto out;
	for (size_t i = 0; i < t->nsamples; i++)
		C.order[i] = (skey){t->skeys + i * RK_KV_KEY_MAX, t->slen[i]};
	qsort(C.order, t->nsamples, sizeof *C.order, skey_cmp);
	if ((rc = build_pieces(&C)) != 0)
		goto out;
	if (!C.split && C.n <= t->budget) { /* nothing cut: the layout stays */
		rk_keyviz_cell *cl = malloc((C.n ? C.n : 1) * sizeof *cl);
		rc = RK_ENOMEM;
		if (!cl)
			goto out;
		for (size_t j = 0; j < C.n; j++)
			if (C.p[j].w || C.p[j].c.bytes_written || C.p[j].c.bytes_read)
				cl[(*ncells)++] = (rk_keyviz_cell){(uint32_t)j, C.p[j].c};
		*cells = cl;
		*out = rk_kvlayout__ref(t->layout);
		rc = 0;
		goto out;
	}
	rc = make(out, cells, ncells, &C);
out:
	free(C.p);
	free(C.order);
	free(C.succ);
	if (rc == RK_ENOMEM)
		rk__err(RK_ENOMEM, "out of memory closing a key-bucket interval");
	return rc;
}
