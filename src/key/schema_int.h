/*
 * The parsed form of a schema, shared by the parser (schema*.c), the encoder
 * and decoder (encode.c, decode.c) and the query planner. A key template is
 * a list of parts; hashes, hex and slices own a sub-template of their own.
 */
#ifndef RK_KEY_SCHEMA_INT_H
#define RK_KEY_SCHEMA_INT_H

#include <rowkey/key.h>

#include "key/hash.h"

#define RK_MAX_FIELDS 64
#define RK_MAX_IDENT 255        /* bytes in a field name or other identifier */
#define RK_MAX_DEPTH 4          /* nesting of hash / hex / slice */
#define RK_SUB_MAX (64 * 1024)  /* bytes a hash or hex input may have */

typedef enum {
	P_LIT = 1,  /* literal bytes */
	P_VAL,      /* a value expression in an encoding */
	P_HASH,     /* digest of a sub-template */
	P_HEX,      /* hex of a sub-template */
	P_SLICE,    /* bytes [a, b) of one sub-part */
	P_BUCKET,   /* hash mod N */
	P_SALT,     /* random or round-robin bucket */
	P_PSALT     /* Phoenix salt byte over the rest of the key */
} rk_part_kind;

typedef enum {
	E_TEXT = 1, /* decimal / raw text, delimited by the next literal or fixed tail */
	E_UINT,     /* big-endian, width bytes */
	E_INT,      /* big-endian, sign bit flipped, width bytes */
	E_F64,      /* order-preserving 8 bytes */
	E_DEC,      /* zero-padded decimal, width digits */
	E_ESC,      /* escaped string, 00 01 terminated */
	E_BYTES,    /* raw bytes to the end of the key */
	E_OC,       /* Bigtable ordered code */
	E_OB,       /* HBase OrderedBytes fixed width */
	E_PHX       /* Phoenix row-key form */
} rk_enc_kind;

typedef enum {
	V_FIELD = 1,
	V_RTS,       /* max - ts */
	V_TBUCKET,   /* ts - ts mod w */
	V_REVERSE,   /* string reversed */
	V_REVLABELS, /* dot-separated labels reversed */
	V_REVNUM     /* w-digit decimal, least significant digit first */
} rk_val_op;

typedef enum { F_BIN = 1, F_DEC, F_ALPHA } rk_bucket_form;

/* The encoder's hot path, decided once per part when the schema is parsed. */
enum { FAST_TEXT_STR = 1, FAST_TEXT_U, FAST_TEXT_I, FAST_UINT, FAST_INT, FAST_ESC };
enum { POST_INVERT = 1, POST_SEPCHECK = 2 };
typedef enum { SALT_RANDOM = 1, SALT_ROUNDROBIN } rk_salt_kind;

typedef struct rk_part rk_part;
struct rk_part {
	rk_part_kind kind;
	int line, col; /* where it was written, for messages */
	int desc;      /* bytes inverted */

	/* P_LIT */
	uint8_t *lit;
	size_t litlen;

	/* P_VAL */
	rk_enc_kind enc;
	int width; /* E_UINT/E_INT/E_OB: bytes; E_DEC: digits */
	rk_val_op vop;
	int field;
	int64_t varg;  /* V_TBUCKET width, V_REVNUM digits */
	uint64_t vmax; /* V_RTS maximum */
	rk_type vtype; /* type of the value expression's result */

	/* P_HASH, P_HEX, P_SLICE, P_BUCKET: a sub-template */
	rk_part *sub;
	size_t nsub;
	rk_hash_alg alg; /* P_HASH */
	int upper;       /* P_HEX */
	long sa, sb;     /* P_SLICE: [sa, sb), python-style; sb = LONG_MAX for open */

	/* P_BUCKET, P_SALT, P_PSALT */
	unsigned n;
	rk_bucket_form form;
	rk_salt_kind salt;
	char alpha[257];

	/* derived */
	uint8_t fast;     /* P_VAL of a plain field in a common encoding: FAST_* (0: general path) */
	uint8_t post;     /* P_VAL: POST_* work after the bytes are written */
	long fixed;       /* bytes this part always takes, or -1 when variable */
	long tail_fixed;  /* bytes of all following parts at this level, -1 if any is variable */
	int next_is_lit;  /* the next part at this level is a literal */
	int last;         /* no part follows at this level */
};

struct rk_schema {
	char *name;
	size_t nfields;
	char *fname[RK_MAX_FIELDS];
	rk_type ftype[RK_MAX_FIELDS];
	uint64_t time_mask; /* fields declared `ts`: integers that also take ISO-8601 text */
	char *tfmt[RK_MAX_FIELDS]; /* a `ts` field's own text format (timefmt.h), or NULL */
	rk_part *parts;
	size_t nparts;
	size_t max_key_len;
	int depth;       /* deepest sub-template nesting */
	char *text;      /* the canonical key template, for describe */
	rk_schema_info info;
};

/* Bitmask of the fields a (sub-)template reads. */
uint64_t rk_schema__fields_used(const rk_part *parts, size_t n);

/* 1 for a part that only places a row (a salt, bucket, hash, hex or slice):
 * its bytes order nothing, and a key's logical form leaves them out
 * (rk_key_logical); 0 for literals and value parts. */
static inline int rk_part__places(const rk_part *p)
{
	return p->kind == P_HASH || p->kind == P_HEX || p->kind == P_SLICE || p->kind == P_BUCKET ||
	       p->kind == P_SALT || p->kind == P_PSALT;
}

/* Appends the canonical text of a template to buf (for describe and plans). */
void rk_schema__render(char **buf, size_t *len, size_t *cap, const rk_schema *s, const rk_part *parts,
                       size_t n);

/* 1 when text (n bytes) is s's canonical text (rk_schema_text), or the text
 * a table written before `ts` fields were printed as `ts` holds for s (each
 * `ts` as i64: the same key bytes); 0 when not, -1 out of memory. */
int rk_schema__matches_text(const rk_schema *s, const void *text, size_t n);

/* Type helpers. */
static inline int rk_type__is_int(rk_type t)
{
	return t >= RK_T_U8 && t <= RK_T_I64;
}

static inline int rk_type__is_signed(rk_type t)
{
	return t >= RK_T_I8 && t <= RK_T_I64;
}

/* schema_types.c */
int rk_type__width(rk_type t); /* bytes of an integer type, 8 for f64 */
const char *rk_type__name(rk_type t);
/* The type a schema's name spells (n bytes at p, "ts" gives RK_T_I64), 0
 * when it names none. */
rk_type rk_type__parse(const char *p, size_t n);

#endif
