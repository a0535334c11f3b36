/*
 * A request's shape, checked on its wire bytes before protobuf-c decodes
 * them. protobuf-c's decoder recurses once per nested message and keeps no
 * depth limit of its own, so a RowFilter chain nested a few thousand deep
 * would take the server's stack, and with it every client's calls. This
 * pass walks the same bytes with an explicit stack of at most
 * RK_SV_MAX_NESTING frames, guided by the message descriptors, and refuses:
 *   - messages nested deeper than RK_SV_MAX_NESTING (protobuf's own default
 *     recursion limit, which Bigtable's servers keep);
 *   - more than RK_SV_MAX_FILTERS RowFilter or RK_SV_MAX_GC_RULES GcRule
 *     messages in one request;
 *   - a field the message does not define (our proto subset names every
 *     field rowkey serve honours; others are refused by number, never
 *     dropped on the floor as protobuf-c would);
 *   - bytes that do not follow the wire grammar (with the offset).
 * It decodes nothing: what passes is then unpacked by protobuf-c as before.
 */
#include <stdio.h>
#include <string.h>

#include "bt_admin.pb-c.h"
#include "bt_data.pb-c.h"
#include "key/error.h"
#include "serve/serve_int.h"

typedef struct frame {
	const ProtobufCMessageDescriptor *d;
	size_t end;         /* offset just past this message's bytes */
	const char *field;  /* the field of the parent holding it (NULL: the request) */
} frame;

/* Reads a varint at *pos (< end); 0, or -1 when it runs past end or 10 bytes. */
static int varint(uint64_t *out, const uint8_t *b, size_t *pos, size_t end)
{
	uint64_t v = 0;
	for (unsigned shift = 0; shift < 70 && *pos < end; shift += 7) {
		uint8_t c = b[(*pos)++];
		v |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*out = v;
			return 0;
		}
	}
	return -1;
}

/* "filter.chain.filters" from the frames' field names; a deep path keeps
 * its start and its end. */
static void path_of(char *out, size_t cap, const frame *st, size_t n)
{
	size_t len = 0;
	out[0] = 0;
	for (size_t i = 1; i < n && len + 1 < cap; i++) {
		if (n > 12 && i == 6) {
			len += (size_t)snprintf(out + len, cap - len, "...");
			i = n - 5;
		}
		len += (size_t)snprintf(out + len, cap - len, "%s%s", len ? "." : "", st[i].field);
	}
	if (!len)
		snprintf(out, cap, "request");
}

int rk_sv__wire_check(const ProtobufCMessageDescriptor *d, const uint8_t *b, size_t len,
                      rk_sv_status *st)
{
	frame stack[RK_SV_MAX_NESTING + 1];
	size_t n = 1, pos = 0, filters = 0, gc_rules = 0;
	char path[200];
	stack[0] = (frame){d, len, NULL};
	while (n) {
		frame *f = &stack[n - 1];
		if (pos == f->end) {
			n--;
			continue;
		}
		size_t at = pos;
		uint64_t tag, l;
		if (varint(&tag, b, &pos, f->end) || (tag >> 3) == 0 || (tag >> 3) > 0x1fffffff)
			goto malformed;
		unsigned num = (unsigned)(tag >> 3), wt = (unsigned)(tag & 7);
		const ProtobufCFieldDescriptor *fd = protobuf_c_message_descriptor_get_field(f->d, num);
		if (!fd) {
			path_of(path, sizeof path, stack, n);
			return rk_sv__fail(st, RK_SV_UNIMPLEMENTED, RK_EINVALID,
			                   "%s: field %u of %s is not supported by rowkey serve (docs/"
			                   "serve.md lists the fields it honours)",
			                   path, num, f->d->short_name);
		}
		switch (wt) {
		case 0:
			if (varint(&l, b, &pos, f->end))
				goto malformed;
			break;
		case 1:
		case 5:
			if (f->end - pos < (wt == 1 ? 8u : 4u))
				goto malformed;
			pos += wt == 1 ? 8 : 4;
			break;
		case 2:
			if (varint(&l, b, &pos, f->end) || l > f->end - pos)
				goto malformed;
			if (fd->type != PROTOBUF_C_TYPE_MESSAGE) {
				pos += (size_t)l;
				break;
			}
			if (n > RK_SV_MAX_NESTING) {
				path_of(path, sizeof path, stack, n);
				return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
				                   "%s.%s: messages nested more than %u deep", path,
				                   fd->name, RK_SV_MAX_NESTING);
			}
			stack[n++] = (frame){fd->descriptor, pos + (size_t)l, fd->name};
			if (fd->descriptor == &rkbt__row_filter__descriptor &&
			    ++filters > RK_SV_MAX_FILTERS)
				return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
				                   "filter: more than %u RowFilters in one request",
				                   RK_SV_MAX_FILTERS);
			if (fd->descriptor == &rkbt__gc_rule__descriptor && ++gc_rules > RK_SV_MAX_GC_RULES)
				return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_EINVALID,
				                   "gc_rule: more than %u GcRules in one request",
				                   RK_SV_MAX_GC_RULES);
			break;
		default:
			goto malformed;
		}
		if (fd->type == PROTOBUF_C_TYPE_MESSAGE && wt != 2)
			goto malformed;
		continue;
	malformed:
		path_of(path, sizeof path, stack, n);
		return rk_sv__fail(st, RK_SV_INVALID_ARGUMENT, RK_ECORRUPT,
		                   "the request does not parse as %s: %s: bad field at byte %zu",
		                   d->short_name, path, at);
	}
	return 0;
}
