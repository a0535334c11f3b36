/*
 * A tiny protobuf writer for the Bigtable tests: builds ReadRowsResponse
 * messages by hand, field by field, so that the chunk decoder is tested
 * against bytes written independently of protobuf-c (and so that tests can
 * write messages a correct encoder never would). Field numbers are those of
 * google/bigtable/v2/bigtable.proto, ReadRowsResponse.CellChunk.
 */
#ifndef RK_TEST_BT_PBENC_H
#define RK_TEST_BT_PBENC_H

#include <stdint.h>
#include <string.h>

typedef struct pbuf {
	uint8_t b[1 << 16];
	size_t n;
} pbuf;

static inline void pb_varint(pbuf *p, uint64_t v)
{
	while (v >= 0x80) {
		p->b[p->n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p->b[p->n++] = (uint8_t)v;
}

static inline void pb_tag(pbuf *p, unsigned field, unsigned wire)
{
	pb_varint(p, (uint64_t)field << 3 | wire);
}

static inline void pb_bytes(pbuf *p, unsigned field, const void *data, size_t len)
{
	pb_tag(p, field, 2);
	pb_varint(p, len);
	memcpy(p->b + p->n, data, len);
	p->n += len;
}

static inline void pb_int(pbuf *p, unsigned field, int64_t v)
{
	pb_tag(p, field, 0);
	pb_varint(p, (uint64_t)v);
}

/* One CellChunk. NULL family/qualifier: field absent; key NULL: absent. */
typedef struct chunk {
	const char *key;
	const char *family;
	const char *qualifier;
	int64_t ts;
	const char *value;
	size_t value_len; /* 0: strlen(value) */
	int32_t value_size;
	int reset, commit;
	const char *label;
} chunk;

static inline void pb_chunk(pbuf *out, const chunk *c)
{
	static pbuf m, w;
	m.n = 0;
	if (c->key)
		pb_bytes(&m, 1, c->key, strlen(c->key));
	if (c->family) {
		w.n = 0;
		if (*c->family)
			pb_bytes(&w, 1, c->family, strlen(c->family));
		pb_bytes(&m, 2, w.b, w.n);
	}
	if (c->qualifier) {
		w.n = 0;
		if (*c->qualifier)
			pb_bytes(&w, 1, c->qualifier, strlen(c->qualifier));
		pb_bytes(&m, 3, w.b, w.n);
	}
	if (c->ts)
		pb_int(&m, 4, c->ts);
	if (c->label)
		pb_bytes(&m, 5, c->label, strlen(c->label));
	if (c->value) {
		size_t vl = c->value_len ? c->value_len : strlen(c->value);
		if (vl)
			pb_bytes(&m, 6, c->value, vl);
	}
	if (c->value_size)
		pb_int(&m, 7, c->value_size);
	if (c->reset)
		pb_int(&m, 8, 1);
	if (c->commit)
		pb_int(&m, 9, 1);
	pb_bytes(out, 1, m.b, m.n);
}

/* A ReadRowsResponse with chunks c[0..n). */
static inline void pb_response(pbuf *out, const chunk *c, size_t n)
{
	out->n = 0;
	for (size_t i = 0; i < n; i++)
		pb_chunk(out, &c[i]);
}

#endif
