/*
 * Internal contracts of the HBase REST front door:
 *
 *   hbase.c    libmicrohttpd: listens, gathers a request (its body up to
 *              the limit), checks Host and content types, answers.
 *   route.c    a request's path taken apart (RowSpec's grammar) and sent to
 *              its handler; the base64, buffers and JSON helpers all use.
 *   model.c    the JSON representations read: CellSet (puts) and
 *              TableSchema, each into store calls' arguments.
 *   filter.c   the Scanner model and its filters into rk_scan_options.
 *   schema.c   cluster, table list, schema, regions.
 *   cells.c    rows: get, put, delete, multiget, the stateless scan.
 *   scanner.c  scanners: create, next batch, delete, idle expiry.
 *   check.c    check-and-put and check-and-delete (?check=put|delete).
 *   repr.c     representations: which one a request sends and accepts;
 *              a body into the JSON model, an answer out of it.
 *   xml.c      the XML representation read (a bounded parser).
 *   xml_write.c  the XML representation written.
 *   pb.c       the protobuf representation, both ways (proto/hb_rest.proto).
 *
 * The JSON model is the one inside: an XML or protobuf body becomes the
 * JSON a client would have sent, and an answer is built as JSON and then
 * written in the representation the client accepts. So model.c and
 * filter.c hold the one set of rules for what a body may say.
 *
 * The parsers (route.c's path, model.c, filter.c, xml.c, pb.c) need no store: the fuzz
 * target (tests/fuzz/fuzz_hbase_rest.c) drives them alone. Timestamps are
 * HBase's milliseconds on the wire and the store's microseconds inside.
 */
#ifndef RK_SERVE_HBASE_INT_H
#define RK_SERVE_HBASE_INT_H

#include <jansson.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "rowkey/store.h"
#include "serve/hbase/hbase.h"
#include "serve/serve_int.h"

/* ---- an arena: buffers freed together ---- */

typedef struct rk_hb_arena {
	void **v;
	size_t n, cap;
} rk_hb_arena;

/* n bytes (zeroed) owned by a, or NULL when out of memory */
void *rk_hb__alloc(rk_hb_arena *a, size_t n);
void rk_hb__arena_free(rk_hb_arena *a);

/* ---- base64 (RFC 4648, padded; HBase's java.util.Base64) ---- */

/* Strict decode of s[n] into an arena buffer (NUL after the bytes): 0, or
 * -1 for a character outside the alphabet, bad padding or length. */
int rk_hb__b64_decode(uint8_t **out, size_t *len, rk_hb_arena *a, const char *s, size_t n);
/* malloc'd, NUL-terminated; NULL when out of memory */
char *rk_hb__b64_encode(const uint8_t *p, size_t n);

/* ---- requests and answers ---- */

typedef struct rk_hb_arg {
	char *name, *value; /* percent-decoded (value: '+' is a space) */
	size_t value_len;
} rk_hb_arg;

typedef struct rk_hb_req {
	const char *method;
	const char *url;    /* the path as sent, not decoded */
	const rk_hb_arg *args;
	size_t nargs;
	const char *ctype;  /* Content-Type, or NULL */
	const char *accept; /* Accept, or NULL */
	const char *x_timestamp; /* X-Timestamp (a raw cell's put), or NULL */
	const char *host;   /* Host, or NULL (a scanner's Location) */
	const uint8_t *body;
	size_t body_len;
} rk_hb_req;

typedef struct rk_hb_resp {
	int status;
	int repr;          /* RK_HB_JSON, _XML, _PB: what a model answer is written as */
	const char *type;  /* static */
	char *body;        /* malloc'd */
	size_t len;
	char location[256];  /* Location: a scanner's path ("" none) */
	char timestamp[24];  /* X-Timestamp of a raw cell ("" none) */
} rk_hb_resp;

/* A plain-text answer "what: why\r\n" with status; returns status. */
int rk_hb__fail(rk_hb_resp *r, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A success without a body (HBase's writes answer none; clients such as
 * npm's hbase parse any body of a 200 or 201 as JSON). Returns status. */
int rk_hb__ok(rk_hb_resp *r, int status);
/* Answers JSON j (taking it, whatever happens) with status. */
int rk_hb__json(rk_hb_resp *r, int status, json_t *j);

/* ---- representations (repr.c, xml.c, xml_write.c, pb.c) ---- */

enum { RK_HB_JSON = 0, RK_HB_XML, RK_HB_PB };

/* HBase's models, each with its XML root element and protobuf message */
typedef enum rk_hb_model {
	RK_HB_M_CELLSET = 0, RK_HB_M_SCHEMA, RK_HB_M_TABLES, RK_HB_M_VERSION, RK_HB_M_CVERSION,
	RK_HB_M_STATUS, RK_HB_M_TABLEINFO, RK_HB_M_SCANNER, RK_HB_M_NAMESPACES, RK_HB_M_NSPROPS,
	RK_HB_M_COUNT
} rk_hb_model;

/* The representation an Accept header takes (the first it names of
 * application/json, text/xml, application/x-protobuf or
 * application/protobuf; none, or anything: JSON), or -1. */
int rk_hb__negotiate(const char *accept);
/* Answers model m, built as JSON j (taken, whatever happens), in r->repr:
 * 406 when m has no such representation (ClusterVersion in protobuf). */
int rk_hb__model(rk_hb_resp *r, rk_hb_model m, int status, json_t *j);

/* A request body as the JSON model (JSON bodies as sent): p[len], with
 * owned what to free. 0, or the status said in r (415 for another content
 * type, 400 for a body that does not parse). */
typedef struct rk_hb_body {
	const uint8_t *p;
	size_t len;
	char *owned;
} rk_hb_body;
int rk_hb__body(rk_hb_body *b, const rk_hb_req *q, rk_hb_model m, rk_hb_resp *r);

/* XML (xml.c): nesting deeper than this, or more elements or attributes
 * than these, is refused (400) before anything is built from it */
#define RK_HB_XML_MAX_DEPTH 32u
#define RK_HB_XML_MAX_NODES 2000000u
#define RK_HB_XML_MAX_ATTRS 256u
/* An XML body of model m as its JSON model: NULL with err (400) when it
 * does not parse, is not m's root element, or passes a limit above. */
json_t *rk_hb__xml_read(const uint8_t *body, size_t len, rk_hb_model m, char *err, size_t cap);
/* JSON model j of m as an XML document (malloc'd, *len bytes); NULL when
 * out of memory. */
char *rk_hb__xml_write(const json_t *j, rk_hb_model m, size_t *len);
/* m's XML root element name */
const char *rk_hb__xml_root(rk_hb_model m);

/* protobuf (pb.c): a body of model m (its HBase message) as the JSON model,
 * or NULL with err (400); and JSON model j as m's message (malloc'd, *len
 * bytes), NULL when m has no message or out of memory. */
json_t *rk_hb__pb_read(const uint8_t *body, size_t len, rk_hb_model m, char *err, size_t cap);
uint8_t *rk_hb__pb_write(const json_t *j, rk_hb_model m, size_t *len);
int rk_hb__pb_has(rk_hb_model m);
/* 400, 404, 409, 503... for a store error rc (rk_error_last()). */
int rk_hb__from_store(rk_hb_resp *r, int rc, const char *what);

/* The value of query argument `name` (the first), or NULL. */
const rk_hb_arg *rk_hb__arg(const rk_hb_req *q, const char *name);
/* query argument `name` as a number in 0..max: 0, or 400 said in r; *v
 * untouched when absent */
int rk_hb__arg_u64(uint64_t *v, const rk_hb_req *q, const char *name, uint64_t max,
                   rk_hb_resp *r);
/* 1 when content type ct (parameters ignored) is `want` */
int rk_hb__ctype_is(const char *ct, const char *want);

/* ---- paths ---- */

enum {
	RK_HB_ROOT = 1,    /* /            table list */
	RK_HB_VERSION,     /* /version */
	RK_HB_CVERSION,    /* /version/cluster */
	RK_HB_CSTATUS,     /* /status/cluster */
	RK_HB_SCHEMA,      /* /T/schema */
	RK_HB_REGIONS,     /* /T/regions */
	RK_HB_EXISTS,      /* /T/exists */
	RK_HB_SCANNERS,    /* /T/scanner */
	RK_HB_SCANNER,     /* /T/scanner/ID */
	RK_HB_MULTIGET,    /* /T/multiget */
	RK_HB_ROW,         /* /T/ROW[/COLUMNS[/TS[,TS]]] */
	RK_HB_SCAN,        /* /T/PREFIX*[/COLUMNS...]: rows beginning with PREFIX */
	RK_HB_NAMESPACES,  /* /namespaces */
	RK_HB_NAMESPACE,   /* /namespaces/NS (table: the namespace) */
	RK_HB_NS_TABLES    /* /namespaces/NS/tables */
};

typedef struct rk_hb_col {
	char family[RK_MAX_FAMILY_LEN + 1];
	uint8_t *qual; /* NULL: the whole family */
	size_t qual_len;
} rk_hb_col;

typedef struct rk_hb_path {
	int route;
	char table[RK_MAX_TABLE_NAME_LEN + 1];
	uint8_t *row; /* ROW: the key; SCAN: the prefix */
	size_t row_len;
	rk_hb_col *cols;
	size_t ncols;
	int has_ts;        /* ts_from..ts_to, milliseconds, [from, to) */
	uint64_t ts_from, ts_to;
	char scanner[40];
	rk_hb_arena a;     /* owns row, cols */
} rk_hb_path;

/* Takes url apart: 0, or 400/404 with err[cap] saying why. */
int rk_hb__path_parse(rk_hb_path *p, const char *url, char *err, size_t cap);
void rk_hb__path_free(rk_hb_path *p);

/* Percent-decodes s[n] into an arena buffer (NUL after): -1 for a bad %XX. */
int rk_hb__unescape(char **out, size_t *len, rk_hb_arena *a, const char *s, size_t n, int plus);

/* "family" or "family:qualifier" (bytes) into c: -1 for a bad family */
int rk_hb__column(rk_hb_col *c, rk_hb_arena *a, const uint8_t *s, size_t n);

/* ---- models (model.c) ---- */

/* A CellSet's cells as puts: m[n] and what they point at in a. A Row
 * without a key takes the path's row, a Cell without a column the path's
 * one column. 0, or 400 (bad JSON, base64, column) with err. */
typedef struct rk_hb_puts {
	rk_mutation *m;
	size_t n;
	size_t nrows;  /* the CellSet's Rows */
	rk_hb_arena a;
} rk_hb_puts;

/* flags: a Cell may leave out "$" (an empty value; a check's cells) */
#define RK_HB_CELLS_NO_VALUE 1
int rk_hb__cellset_parse(rk_hb_puts *out, const uint8_t *body, size_t len,
                         const rk_hb_path *path, int flags, char *err, size_t cap);

/* ms (HBase) -> the store's microseconds; -1 past what the store takes */
int rk_hb__ms_to_us(uint64_t *us, json_int_t ms);

/* A TableSchema: its name and families (VERSIONS and TTL as GC rules). */
typedef struct rk_hb_schema {
	char name[RK_MAX_TABLE_NAME_LEN + 1];
	rk_family_def *fams;
	size_t n;
	rk_hb_arena a;
} rk_hb_schema;

int rk_hb__schema_parse(rk_hb_schema *out, const uint8_t *body, size_t len, char *err,
                        size_t cap);

/* The ColumnSchema object of family f (VERSIONS, TTL from its GC rule). */
json_t *rk_hb__family_json(const rk_family_def *f);

/* Adds row's cells [skip, skip + max) (max 0: all) to CellSet rows array
 * `rows` as one Row; returns the bytes of cells added, or -1 out of
 * memory. */
long rk_hb__row_json(json_t *rows, const rk_row *row, size_t skip, size_t max);

/* ---- scanners' model (filter.c) ---- */

typedef struct rk_hb_scanspec {
	rk_scan_options so;
	uint64_t limit;    /* rows in all (a PageFilter, "limit"; 0: all) */
	uint64_t batch;    /* cells an answer carries (0: up to the byte limit) */
	rk_hb_arena a;
} rk_hb_scanspec;

/* A Scanner model (JSON) into s: 0, or 400 with err naming the field or
 * the filter refused. */
int rk_hb__scanner_parse(rk_hb_scanspec *s, const uint8_t *body, size_t len, char *err,
                         size_t cap);
/* A filter (the Scanner's "filter" string) into s->so.read.filter and the
 * scan's prefix and limit. */
int rk_hb__filter_parse(rk_hb_scanspec *s, const char *text, char *err, size_t cap);

/* ---- the server ---- */

typedef struct rk_hb_scanners rk_hb_scanners;

struct rk_hb {
	struct MHD_Daemon *d;
	const rk_sv_env *env;
	rk_hb_limits lim;
	int loopback;
	char port[8];
	rk_hb_scanners *sc;
};

/* Answers one request (route.c). */
void rk_hb__handle(rk_hb *h, const rk_hb_req *q, rk_hb_resp *r);

/* schema.c */
int rk_hb__root(rk_hb *h, rk_hb_resp *r);
int rk_hb__version(rk_hb *h, int cluster, rk_hb_resp *r);
int rk_hb__status(rk_hb *h, rk_hb_resp *r);
int rk_hb__schema(rk_hb *h, const rk_hb_req *q, const rk_hb_path *p, rk_hb_resp *r);
int rk_hb__regions(rk_hb *h, const rk_hb_path *p, rk_hb_resp *r);

/* namespaces (schema.c): /namespaces[/default[/tables]] */
int rk_hb__namespaces(rk_hb *h, const rk_hb_req *q, const rk_hb_path *p, rk_hb_resp *r);

/* check.c: PUT or POST ?check=put|delete on a row */
int rk_hb__check(rk_hb *h, const rk_hb_req *q, const rk_hb_path *p, const char *check,
                 rk_hb_resp *r);

/* cells.c */
/* The table's handle for this request (release with rk_hb__release): 404
 * when there is no such table. */
int rk_hb__acquire(rk_table **t, rk_hb *h, const char *table, rk_hb_resp *r);
void rk_hb__release(rk_hb *h, const char *table, rk_table *t);
int rk_hb__row_get(rk_hb *h, const rk_hb_req *q, const rk_hb_path *p, rk_hb_resp *r);
int rk_hb__row_put(rk_hb *h, const rk_hb_req *q, const rk_hb_path *p, rk_hb_resp *r);
int rk_hb__row_delete(rk_hb *h, const rk_hb_req *q, const rk_hb_path *p, rk_hb_resp *r);
int rk_hb__multiget(rk_hb *h, const rk_hb_req *q, const rk_hb_path *p, rk_hb_resp *r);
int rk_hb__scan(rk_hb *h, const rk_hb_req *q, const rk_hb_path *p, rk_hb_resp *r);

/* scanner.c */
int rk_hb__scanners_new(rk_hb_scanners **out);
void rk_hb__scanners_free(rk_hb_scanners *s);
int rk_hb__scanner_create(rk_hb *h, const rk_hb_req *q, const rk_hb_path *p, rk_hb_resp *r);
int rk_hb__scanner_next(rk_hb *h, const rk_hb_req *q, const rk_hb_path *p, rk_hb_resp *r);
int rk_hb__scanner_delete(rk_hb *h, const rk_hb_path *p, rk_hb_resp *r);

#endif
