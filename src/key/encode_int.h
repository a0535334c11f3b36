/*
 * Internal entry points of the encoder for the query planner: encode one
 * top-level part with given field values, or a whole key with a chosen salt.
 */
#ifndef RK_KEY_ENCODE_INT_H
#define RK_KEY_ENCODE_INT_H

#include "key/codec.h"
#include "key/schema_int.h"

/* Appends the bytes of top-level part p for `fields` to w. */
int rk_key__encode_part(rk_encoder *e, rk_wbuf *w, const rk_part *p, const rk_value *fields);

/* rk_key_encode with the salt part (random / round-robin) forced to `salt`. */
int rk_key__encode_salted(uint8_t *out, size_t cap, size_t *outlen, rk_encoder *e, const rk_value *fields,
                          int salt);

#endif
