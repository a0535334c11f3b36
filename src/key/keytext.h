/*
 * Row keys as people read them, through the schema a table remembers:
 * decoded into their fields ("bucket 3: user=7 ts=1686465031000"), as
 * labels, as JSON (the fields as an object beside the raw key in hex), and
 * as parts in key-template order for a prefix hierarchy (first field, then
 * the next), as Key Visualizer's key axis shows it. Shared by the heatmap
 * pictures, the live page and the region listings, so a key reads the same
 * everywhere. A key that does not decode (a split point that is only a
 * prefix, a bucket boundary cut short) is shown as its bytes.
 */
#ifndef RK_KEY_KEYTEXT_H
#define RK_KEY_KEYTEXT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "key/bytes.h"

typedef struct rk__keytext rk__keytext;

/* A key reader for schema text `schema` (NULL, or text that does not parse:
 * keys are shown as bytes). NULL only when out of memory. Owned by the
 * caller (rk__keytext_free); one per thread (decoding uses scratch). */
rk__keytext *rk__keytext_new(const char *schema);
void rk__keytext_free(rk__keytext *k);
/* 1 when keys are decoded through a schema. */
int rk__keytext_decodes(const rk__keytext *k);

/* Key bytes printable as they are, others (and the backslash) as \xNN;
 * "..." when cut to fit cap. Returns buf. */
const char *rk__key_text(char *buf, size_t cap, const uint8_t *k, size_t n);

/* "bucket N: field=value ..." of a whole key; "" when it does not decode. */
const char *rk__keytext_fields(rk__keytext *k, char *buf, size_t cap, const uint8_t *key,
                               size_t len);

/* A label: the key's bytes when all printable, else its fields, else
 * "bucket N" for a bare bucket prefix, else its bytes with escapes; a key
 * that is another key followed by a 00 byte (the first key after it, where
 * a bucket of keys ends) reads "after <that key's label>". */
const char *rk__keytext_label(rk__keytext *k, char *buf, size_t cap, const uint8_t *key,
                              size_t len);

/* The key's parts in key-template order ("bucket 3", "user=7", ...) into
 * parts[0..max) (pointing into buf); the number found. A key that does not
 * decode gives its delimited text parts when printable (a:b:c by ':', '#',
 * '/', '|'), else none. */
size_t rk__keytext_parts(rk__keytext *k, const char **parts, size_t max, char *buf, size_t cap,
                         const uint8_t *key, size_t len);

/* A prefix hierarchy over sorted keys (a heatmap's rows, row r starting at
 * keys[r]): at level L, the runs of rows whose first L + 1 parts agree,
 * labelled with part L ("bucket 3", then "user=7", ...). A row whose key
 * gives fewer parts (a boundary that is only a prefix) carries the parts
 * of the row before it. groups[L] (malloc'd, *ngroups[L] entries; the
 * caller frees each) for L < nlevels. 0 or RK_ENOMEM. */
typedef struct rk__keygroup {
	size_t row, rows;
	char label[96];
} rk__keygroup;
int rk__keytext_groups(rk__keygroup **groups, size_t *ngroups, size_t nlevels, rk__keytext *k,
                       const uint8_t *const *keys, const size_t *lens, size_t n);

/* The key as a JSON object: {"hex":"..","text":"..","bucket":N,"fields":{..}}
 * (bucket when the design has one, fields when the key decodes: numbers as
 * numbers, those past 2^53 and strings as strings). */
void rk__keytext_json(FILE *f, rk__keytext *k, const uint8_t *key, size_t len);


#endif
