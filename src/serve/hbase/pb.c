/*
 * The protobuf representation (application/x-protobuf): HBase's REST
 * messages (proto/hb_rest.proto) to and from the JSON model, driven by
 * protoc-c's descriptors rather than by code per message: a field maps to
 * the JSON member of the same name, or to the name the table below gives
 * (rows <-> "Row", data <-> "$"...). By type: bytes <-> base64 strings (as
 * the JSON model carries them), strings, integers (from a JSON integer or a
 * string of digits, as ColumnSchema's "VERSIONS"), doubles and bools as
 * themselves, messages <-> objects, repeated <-> arrays. Three shapes are
 * special: `attrs` (name/value messages) holds the members no field names
 * (a TableSchema's IS_META, a ColumnSchema's BLOCKSIZE...), a repeated
 * key/value message is a JSON object (NamespaceProperties), and TableList's
 * names are {"name": N} objects in JSON.
 *
 * A body is read as the gRPC door reads one: rk_sv__wire_check first (the
 * wire grammar, nesting, and fields the message does not define, refused by
 * number), then protobuf-c unpacks it. Messages are built in an arena and
 * packed by protobuf-c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hb_rest.pb-c.h"
#include "serve/hbase/hbase_int.h"

static const ProtobufCMessageDescriptor *const msgs[RK_HB_M_COUNT] = {
	&rkhb__cell_set__descriptor, &rkhb__table_schema__descriptor,
	&rkhb__table_list__descriptor, &rkhb__version__descriptor,
	NULL, /* ClusterVersion: HBase has no message for it */
	&rkhb__storage_cluster_status__descriptor, &rkhb__table_info__descriptor,
	&rkhb__scanner__descriptor, &rkhb__namespaces__descriptor,
	&rkhb__namespace_properties__descriptor,
};

static const struct {
	const ProtobufCMessageDescriptor *d;
	const char *field, *json;
} names[] = {
	{&rkhb__cell_set__descriptor, "rows", "Row"},
	{&rkhb__cell_set__row__descriptor, "values", "Cell"},
	{&rkhb__cell__descriptor, "data", "$"},
	{&rkhb__table_schema__descriptor, "columns", "ColumnSchema"},
	{&rkhb__column_schema__descriptor, "ttl", "TTL"},
	{&rkhb__column_schema__descriptor, "maxVersions", "VERSIONS"},
	{&rkhb__column_schema__descriptor, "compression", "COMPRESSION"},
	{&rkhb__table_list__descriptor, "name", "table"},
	{&rkhb__table_info__descriptor, "regions", "Region"},
	{&rkhb__version__descriptor, "restVersion", "REST"},
	{&rkhb__version__descriptor, "jvmVersion", "JVM"},
	{&rkhb__version__descriptor, "osVersion", "OS"},
	{&rkhb__version__descriptor, "serverVersion", "Server"},
	{&rkhb__version__descriptor, "jerseyVersion", "Jersey"},
	{&rkhb__storage_cluster_status__descriptor, "liveNodes", "LiveNodes"},
	{&rkhb__storage_cluster_status__descriptor, "deadNodes", "DeadNodes"},
	{&rkhb__storage_cluster_status__node__descriptor, "regions", "Region"},
	{&rkhb__scanner__descriptor, "columns", "column"},
	{&rkhb__namespaces__descriptor, "namespace", "Namespace"},
	{&rkhb__namespace_properties__descriptor, "props", "properties"},
};

int rk_hb__pb_has(rk_hb_model m)
{
	return m < RK_HB_M_COUNT && msgs[m];
}

static const char *json_name(const ProtobufCMessageDescriptor *d, const char *field)
{
	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		if (names[i].d == d && !strcmp(names[i].field, field))
			return names[i].json;
	return field;
}

static int is_attrs(const ProtobufCFieldDescriptor *fd)
{
	return fd->type == PROTOBUF_C_TYPE_MESSAGE && !strcmp(fd->name, "attrs");
}

/* a repeated message of two strings, `key` and `value`: a JSON object */
static int is_map(const ProtobufCFieldDescriptor *fd)
{
	const ProtobufCMessageDescriptor *d = fd->descriptor;
	return fd->type == PROTOBUF_C_TYPE_MESSAGE && fd->label == PROTOBUF_C_LABEL_REPEATED &&
	       d->n_fields == 2 && !strcmp(d->fields[0].name, "key") &&
	       !strcmp(d->fields[1].name, "value");
}

static size_t elem_size(ProtobufCType t)
{
	switch (t) {
	case PROTOBUF_C_TYPE_INT32: return sizeof(int32_t);
	case PROTOBUF_C_TYPE_INT64: return sizeof(int64_t);
	case PROTOBUF_C_TYPE_BOOL: return sizeof(protobuf_c_boolean);
	case PROTOBUF_C_TYPE_DOUBLE: return sizeof(double);
	case PROTOBUF_C_TYPE_BYTES: return sizeof(ProtobufCBinaryData);
	default: return sizeof(void *); /* strings, messages */
	}
}

/* ---- JSON model -> message ---- */

static ProtobufCMessage *build(const ProtobufCMessageDescriptor *d, const json_t *o,
                               rk_hb_arena *a);

static int integer(long long *v, const json_t *j)
{
	if (json_is_integer(j)) {
		*v = json_integer_value(j);
		return 0;
	}
	const char *s = json_string_value(j);
	if (!s || !*s || strlen(s) > 18 || strspn(s, "0123456789") != strlen(s))
		return -1;
	*v = strtoll(s, NULL, 10);
	return 0;
}

/* one value j of field fd's type at p; -1 when j is not of that type */
static int set(void *p, const ProtobufCFieldDescriptor *fd, const json_t *j, rk_hb_arena *a)
{
	long long v;
	switch (fd->type) {
	case PROTOBUF_C_TYPE_INT32:
		if (integer(&v, j) || v < INT32_MIN || v > INT32_MAX)
			return -1;
		*(int32_t *)p = (int32_t)v;
		return 0;
	case PROTOBUF_C_TYPE_INT64:
		if (integer(&v, j))
			return -1;
		*(int64_t *)p = v;
		return 0;
	case PROTOBUF_C_TYPE_BOOL:
		if (!json_is_boolean(j))
			return -1;
		*(protobuf_c_boolean *)p = json_is_true(j);
		return 0;
	case PROTOBUF_C_TYPE_DOUBLE:
		if (!json_is_number(j))
			return -1;
		*(double *)p = json_number_value(j);
		return 0;
	case PROTOBUF_C_TYPE_STRING: {
		/* TableList: {"name": N} objects */
		const json_t *s = json_is_object(j) ? json_object_get(j, "name") : j;
		char *c;
		if (!json_is_string(s) || !(c = rk_hb__alloc(a, json_string_length(s) + 1)))
			return -1;
		memcpy(c, json_string_value(s), json_string_length(s));
		*(char **)p = c;
		return 0;
	}
	case PROTOBUF_C_TYPE_BYTES: {
		ProtobufCBinaryData *b = p;
		return json_is_string(j) ? rk_hb__b64_decode(&b->data, &b->len, a, json_string_value(j),
		                                             json_string_length(j))
		                         : -1;
	}
	case PROTOBUF_C_TYPE_MESSAGE:
		return (*(ProtobufCMessage **)p = build(fd->descriptor, j, a)) ? 0 : -1;
	default:
		return -1;
	}
}

/* a name/value message (attrs) or a key/value one (a map entry) from
 * member k: v (a string, or an integer said in digits) */
static ProtobufCMessage *pair(const ProtobufCMessageDescriptor *d, const char *k,
                              const json_t *v, rk_hb_arena *a)
{
	char num[32];
	json_t *o = json_object();
	if (json_is_integer(v))
		snprintf(num, sizeof num, "%lld", (long long)json_integer_value(v));
	json_object_set_new(o, d->fields[0].name, json_string(k));
	json_object_set_new(o, d->fields[1].name,
	                    json_is_integer(v) ? json_string(num) : json_incref((json_t *)v));
	ProtobufCMessage *m = build(d, o, a);
	json_decref(o);
	return m;
}

/* 1 when member k of a d is no field's (an attribute for attrs) */
static int leftover(const ProtobufCMessageDescriptor *d, const char *k, const json_t *v)
{
	if (!json_is_string(v) && !json_is_integer(v))
		return 0;
	for (unsigned i = 0; i < d->n_fields; i++)
		if (!strcmp(json_name(d, d->fields[i].name), k))
			return 0;
	return strcmp(k, "$") != 0;
}

/* attrs (o's leftover members) or a map (object src) into fd's array */
static int pairs(char *base, const ProtobufCFieldDescriptor *fd, const ProtobufCMessageDescriptor *d,
                 const json_t *o, rk_hb_arena *a)
{
	const json_t *src = is_attrs(fd) ? o : json_object_get(o, json_name(d, fd->name));
	const char *k;
	json_t *v;
	size_t n = 0;
	if (!json_is_object(src))
		return 0;
	ProtobufCMessage **arr = rk_hb__alloc(a, (json_object_size(src) + 1) * sizeof *arr);
	if (!arr)
		return -1;
	json_object_foreach((json_t *)src, k, v) {
		if (is_attrs(fd) ? !leftover(d, k, v) : !json_is_string(v))
			continue;
		if (!(arr[n++] = pair(fd->descriptor, k, v, a)))
			return -1;
	}
	*(size_t *)(base + fd->quantifier_offset) = n;
	*(ProtobufCMessage ***)(base + fd->offset) = arr;
	return 0;
}

static ProtobufCMessage *build(const ProtobufCMessageDescriptor *d, const json_t *o,
                               rk_hb_arena *a)
{
	ProtobufCMessage *m = json_is_object(o) ? rk_hb__alloc(a, d->sizeof_message) : NULL;
	if (!m)
		return NULL;
	d->message_init(m);
	char *base = (char *)m;
	for (unsigned i = 0; i < d->n_fields; i++) {
		const ProtobufCFieldDescriptor *fd = &d->fields[i];
		const json_t *v = json_object_get(o, json_name(d, fd->name));
		if (is_attrs(fd) || is_map(fd)) {
			if (pairs(base, fd, d, o, a))
				return NULL;
			continue;
		}
		if (!v || json_is_null(v))
			continue;
		if (fd->label == PROTOBUF_C_LABEL_REPEATED) {
			size_t n = json_array_size(v), es = elem_size(fd->type);
			char *arr = n ? rk_hb__alloc(a, n * es) : NULL;
			if (!json_is_array(v) || (n && !arr))
				return NULL;
			for (size_t k = 0; k < n; k++)
				if (set(arr + k * es, fd, json_array_get(v, k), a))
					return NULL;
			*(size_t *)(base + fd->quantifier_offset) = n;
			*(void **)(base + fd->offset) = arr;
			continue;
		}
		if (set(base + fd->offset, fd, v, a))
			return NULL;
		if (fd->label == PROTOBUF_C_LABEL_OPTIONAL && fd->quantifier_offset)
			*(protobuf_c_boolean *)(base + fd->quantifier_offset) = 1;
	}
	return m;
}

uint8_t *rk_hb__pb_write(const json_t *j, rk_hb_model m, size_t *len)
{
	rk_hb_arena a = {0};
	uint8_t *out = NULL;
	ProtobufCMessage *pm = rk_hb__pb_has(m) ? build(msgs[m], j, &a) : NULL;
	if (pm) {
		size_t n = protobuf_c_message_get_packed_size(pm);
		if ((out = malloc(n ? n : 1)) != NULL) {
			protobuf_c_message_pack(pm, out);
			*len = n;
		}
	}
	rk_hb__arena_free(&a);
	return out;
}

/* ---- message -> JSON model ---- */

static json_t *tojson(const ProtobufCMessage *m);

static json_t *value(const ProtobufCFieldDescriptor *fd, const void *p)
{
	switch (fd->type) {
	case PROTOBUF_C_TYPE_INT32: return json_integer(*(const int32_t *)p);
	case PROTOBUF_C_TYPE_INT64: return json_integer(*(const int64_t *)p);
	case PROTOBUF_C_TYPE_BOOL: return json_boolean(*(const protobuf_c_boolean *)p);
	case PROTOBUF_C_TYPE_DOUBLE: return json_real(*(const double *)p);
	case PROTOBUF_C_TYPE_STRING: return json_string(*(char *const *)p);
	case PROTOBUF_C_TYPE_BYTES: {
		const ProtobufCBinaryData *b = p;
		char *s = rk_hb__b64_encode(b->data, b->len);
		json_t *j = s ? json_string(s) : NULL;
		free(s);
		return j;
	}
	case PROTOBUF_C_TYPE_MESSAGE: return tojson(*(ProtobufCMessage *const *)p);
	default: return NULL;
	}
}

/* a pair message's two strings */
static void strings(const ProtobufCMessage *m, const char **k, const char **v)
{
	const char *base = (const char *)m;
	*k = *(char *const *)(base + m->descriptor->fields[0].offset);
	*v = *(char *const *)(base + m->descriptor->fields[1].offset);
}

static json_t *tojson(const ProtobufCMessage *m)
{
	const ProtobufCMessageDescriptor *d = m->descriptor;
	const char *base = (const char *)m;
	json_t *o = json_object();
	for (unsigned i = 0; o && i < d->n_fields; i++) {
		const ProtobufCFieldDescriptor *fd = &d->fields[i];
		const char *name = json_name(d, fd->name);
		json_t *v;
		if (fd->label == PROTOBUF_C_LABEL_REPEATED) {
			size_t n = *(const size_t *)(base + fd->quantifier_offset), es = elem_size(fd->type);
			const char *arr = *(char *const *)(base + fd->offset);
			v = is_map(fd) ? json_object() : json_array();
			for (size_t k = 0; v && k < n; k++) {
				const char *key, *val;
				if (is_attrs(fd) || is_map(fd)) {
					strings(((ProtobufCMessage *const *)arr)[k], &key, &val);
					json_t *into = is_map(fd) ? v : o;
					json_t *t = json_object_get(into, key) ? NULL : json_string(val);
					if (t && json_object_set_new(into, key, t))
						goto fail;
					continue;
				}
				json_t *e = value(fd, arr + k * es);
				if (e && d == &rkhb__table_list__descriptor)
					e = json_pack("{s:o}", "name", e);
				if (!e || json_array_append_new(v, e))
					goto fail;
			}
			if (is_attrs(fd)) {
				json_decref(v);
				continue;
			}
		} else {
			const void *p = base + fd->offset;
			if (fd->label == PROTOBUF_C_LABEL_OPTIONAL && fd->quantifier_offset &&
			    !*(const protobuf_c_boolean *)(base + fd->quantifier_offset))
				continue;
			if ((fd->type == PROTOBUF_C_TYPE_STRING || fd->type == PROTOBUF_C_TYPE_MESSAGE) &&
			    !*(void *const *)p)
				continue;
			v = value(fd, p);
		}
		if (!v || json_object_set_new(o, name, v))
			goto fail;
		continue;
	fail:
		json_decref(v);
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *rk_hb__pb_read(const uint8_t *body, size_t len, rk_hb_model m, char *err, size_t cap)
{
	rk_sv_status st = {0};
	if (!rk_hb__pb_has(m))
		return snprintf(err, cap, "Unsupported media type: %s has no protobuf representation",
		                rk_hb__xml_root(m)), NULL;
	if (rk_sv__wire_check(msgs[m], body, len, &st))
		return snprintf(err, cap, "Bad request: protobuf %s: %s", rk_hb__xml_root(m), st.msg),
		       NULL;
	ProtobufCMessage *pm = protobuf_c_message_unpack(msgs[m], NULL, len, body);
	if (!pm)
		return snprintf(err, cap, "Bad request: protobuf %s: does not unpack (a required field "
		                          "missing?)", rk_hb__xml_root(m)), NULL;
	json_t *j = tojson(pm);
	protobuf_c_message_free_unpacked(pm, NULL);
	if (!j)
		snprintf(err, cap, "Bad request: protobuf %s: a string that is not UTF-8, or a number "
		                   "JSON cannot hold", rk_hb__xml_root(m));
	return j;
}
