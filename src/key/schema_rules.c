/*
 * What a parsed key template means: each part's width, the fixed tail after
 * it, the encoder's fast paths, the rules that make every accepted template
 * decodable (docs/schema.md 2.6), and the summary in rk_schema_info.
 */
#include <limits.h>

#include "key/schema_parse.h"

/* ---- derived properties and decodability checks ---- */

uint64_t rk_schema__fields_used(const rk_part *parts, size_t n)
{
	uint64_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (parts[i].kind == P_VAL)
			m |= 1ULL << parts[i].field;
		m |= rk_schema__fields_used(parts[i].sub, parts[i].nsub);
	}
	return m;
}

static long digits_of(unsigned n)
{
	long d = 1;
	while (n >= 10) {
		n /= 10;
		d++;
	}
	return d;
}

/* A part's width in bytes (p->fixed, -1: variable), its slice bounds made
 * absolute, and the rules on widths: hex() over fixed-width input, slices
 * inside their input, phoenix_salt() first. Part i of a template at depth. */
static int part_width(parser *ps, rk_part *p, size_t i, int depth)
{
	long subfixed = 0;
	for (size_t j = 0; j < p->nsub; j++)
		subfixed = (subfixed < 0 || p->sub[j].fixed < 0) ? -1 : subfixed + p->sub[j].fixed;
	switch (p->kind) {
	case P_LIT: p->fixed = (long)p->litlen; break;
	case P_VAL:
		switch (p->enc) {
		case E_UINT: case E_INT: p->fixed = p->width; break;
		case E_F64: p->fixed = 8; break;
		case E_DEC: p->fixed = p->width; break;
		case E_OB: p->fixed = p->width + 1; break;
		case E_PHX: p->fixed = p->width ? p->width : -1; break;
		default: p->fixed = -1;
		}
		if (p->enc == E_TEXT && p->vop == V_REVNUM)
			p->fixed = (long)p->varg;
		break;
	case P_HASH: p->fixed = (long)rk_hash__size(p->alg); break;
	case P_HEX:
		if (subfixed < 0)
			return rk__err(RK_EINVALID, "%s:%d:%d: hex() needs a fixed-width input (a hash, or fixed-width fields)",
			               ps->name, p->line, p->col);
		p->fixed = 2 * subfixed;
		break;
	case P_SLICE: {
		long w = p->sub[0].fixed;
		long a = p->sa, b = p->sb;
		if (w < 0 && (a < 0 || b < 0 || b == LONG_MAX))
			return rk__err(RK_EINVALID, "%s:%d:%d: a slice of a variable-width part needs explicit non-negative bounds, e.g. [0:6]",
			               ps->name, p->line, p->col);
		if (w >= 0) {
			if (a < 0) a += w;
			if (b == LONG_MAX) b = w;
			else if (b < 0) b += w;
			if (a < 0 || b > w || a >= b)
				return rk__err(RK_EINVALID, "%s:%d:%d: slice [%ld:%ld] is empty or outside the %ld bytes of its input",
				                ps->name, p->line, p->col, p->sa, p->sb == LONG_MAX ? w : p->sb, w);
			p->sa = a;
			p->sb = b;
		} else if (a >= b) {
			return rk__err(RK_EINVALID, "%s:%d:%d: slice [%ld:%ld] is empty", ps->name, p->line, p->col, a, b);
		}
		p->fixed = b - a;
		break;
	}
	case P_BUCKET:
	case P_SALT:
		p->fixed = p->form == F_DEC ? digits_of(p->n - 1) : 1;
		break;
	case P_PSALT:
		p->fixed = 1;
		if (depth != 0 || i != 0)
			return rk__err(RK_EINVALID, "%s:%d:%d: phoenix_salt() must be the first part of the key",
			               ps->name, p->line, p->col);
		break;
	}
	return 0;
}

/* What each part knows of those after it: the fixed width of the rest
 * (-1: variable), whether it is last, whether a literal follows. */
static void set_tails(rk_part *parts, size_t n)
{
	long tail = 0;
	for (size_t k = n; k-- > 0;) {
		rk_part *p = &parts[k];
		p->tail_fixed = tail;
		p->last = k == n - 1;
		p->next_is_lit = k + 1 < n && parts[k + 1].kind == P_LIT;
		tail = (tail < 0 || p->fixed < 0) ? -1 : tail + p->fixed;
	}
}

/* The encoder's hot path: the fast form of each value part and what must
 * follow writing it (inverting, checking a separator). */
static void set_fast_paths(rk_part *parts, size_t n, int depth)
{
	for (size_t k = 0; k < n; k++) {
		rk_part *p = &parts[k];
		if (p->kind != P_VAL)
			continue;
		rk_type t = p->vtype;
		int str = t == RK_T_STR || t == RK_T_BYTES;
		if (p->vop == V_FIELD) {
			if (p->enc == E_TEXT)
				p->fast = str ? FAST_TEXT_STR : rk_type__is_signed(t) ? FAST_TEXT_I : rk_type__is_int(t) ? FAST_TEXT_U : 0;
			else if (p->enc == E_UINT && rk_type__is_int(t) && !rk_type__is_signed(t))
				p->fast = FAST_UINT;
			else if (p->enc == E_INT && rk_type__is_signed(t))
				p->fast = FAST_INT;
			else if (p->enc == E_ESC)
				p->fast = FAST_ESC;
		}
		if (p->desc && !(p->enc == E_PHX && str))
			p->post |= POST_INVERT; /* Phoenix strings place their own separator after inverting */
		if (depth == 0 && p->enc == E_TEXT && p->fixed < 0 && p->next_is_lit)
			p->post |= POST_SEPCHECK;
	}
}

/* The rules of a key's top level (sub-templates are hashed, never
 * decoded): one salt or bucket, before the fields, and every field
 * decodable where it stands. */
static int check_top_level(parser *ps, const rk_schema *s, const rk_part *parts, size_t n)
{
	int spread = 0, seen_field = 0;
	for (size_t k = 0; k < n; k++) {
		const rk_part *p = &parts[k];
		if (p->kind == P_BUCKET || p->kind == P_SALT || p->kind == P_PSALT) {
			if (spread++)
				return rk__err(RK_EINVALID, "%s:%d:%d: a key has at most one salt or bucket part",
				               ps->name, p->line, p->col);
			/* a salt leads (it decides where a row lands and a Phoenix salt hashes
			   the whole key); a bucket may follow fields: it spreads the rows of one
			   prefix (a hot tenant's) over N sub-ranges, read back one range each */
			if (seen_field && p->kind != P_BUCKET)
				return rk__err(RK_EINVALID, "%s:%d:%d: a salt part must come before the key's fields "
				               "(it decides where a row lands); a bucket() may follow them",
				               ps->name, p->line, p->col);
		}
		if (p->kind != P_VAL)
			continue;
		seen_field = 1;
		int delimited = p->enc == E_TEXT && p->fixed < 0;
		if (delimited && !p->next_is_lit && p->tail_fixed < 0)
			return rk__err(RK_EINVALID,
			               "%s:%d:%d: field '%s' in text form must be followed by a literal separator, "
			               "only fixed-width parts, or end the key (else it cannot be decoded); "
			               "use esc() or a separator",
			               ps->name, p->line, p->col, s->fname[p->field]);
		if (p->enc == E_BYTES && !p->last)
			return rk__err(RK_EINVALID, "%s:%d:%d: bytes(%s) takes the rest of the key and must be its last part",
			               ps->name, p->line, p->col, s->fname[p->field]);
		if (p->enc == E_PHX && p->fixed < 0 && !p->desc && !p->last && p->next_is_lit)
			return rk__err(RK_EINVALID, "%s:%d:%d: phoenix(%s) writes its own 0x00 separator; drop the literal after it",
			               ps->name, p->line, p->col, s->fname[p->field]);
	}
	return 0;
}

int rk_schema__derive(parser *ps, rk_schema *s, rk_part *parts, size_t n, int depth)
{
	int rc;
	if (depth > RK_MAX_DEPTH)
		return rk__err(RK_EINVALID, "%s:%d:%d: functions and slices nested deeper than %d", ps->name,
		               parts[0].line, parts[0].col, RK_MAX_DEPTH);
	if (depth > s->depth)
		s->depth = depth;
	for (size_t i = 0; i < n; i++) {
		rk_part *p = &parts[i];
		if (p->nsub && (rc = rk_schema__derive(ps, s, p->sub, p->nsub, depth + 1)) < 0)
			return rc;
		if ((rc = part_width(ps, p, i, depth)) < 0)
			return rc;
	}
	set_tails(parts, n);
	set_fast_paths(parts, n, depth);
	return depth > 0 ? 0 : check_top_level(ps, s, parts, n);
}

static int has_desc_or_unordered(const rk_part *parts, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const rk_part *p = &parts[i];
		if (p->kind == P_HASH || p->kind == P_HEX || p->kind == P_SLICE || p->kind == P_BUCKET ||
		    p->kind == P_SALT || p->kind == P_PSALT || p->desc)
			return 1;
		if (p->kind == P_VAL) {
			if (p->vop != V_FIELD && p->vop != V_TBUCKET)
				return 1;
			if (p->enc == E_TEXT && (rk_type__is_int(p->vtype) || p->vtype == RK_T_F64))
				return 1;
			if (p->enc == E_TEXT && !p->last && p->fixed < 0)
				return 1; /* a separator can sort above the string's own bytes */
		}
	}
	return 0;
}

void rk_schema__compute_info(rk_schema *s)
{
	rk_schema_info *in = &s->info;
	memset(in, 0, sizeof *in);
	in->nfields = s->nfields;
	in->point_get_mask = rk_schema__fields_used(s->parts, s->nparts);
	in->buckets = 1;
	in->deterministic = 1;
	int unbounded = 0, seen_field = 0;
	for (size_t i = 0; i < s->nparts; i++) {
		const rk_part *p = &s->parts[i];
		if (p->fixed >= 0) {
			in->key_min_len += (size_t)p->fixed;
			in->key_max_len += (size_t)p->fixed;
		} else {
			unbounded = 1;
			in->key_min_len += p->enc == E_ESC || p->enc == E_OC ? 2 : p->enc == E_PHX && p->desc ? 1 : 0;
		}
		if (p->kind == P_VAL && (p->vop == V_FIELD || p->vop == V_RTS || p->vop == V_REVERSE ||
		                         p->vop == V_REVLABELS || p->vop == V_REVNUM))
			in->decodable_mask |= 1ULL << p->field;
		/* the table's buckets are a leading spread part's: one after fields
		   spreads inside a prefix, and the table splits anywhere */
		if ((p->kind == P_BUCKET || p->kind == P_SALT || p->kind == P_PSALT) && in->buckets == 1 &&
		    !seen_field)
			in->buckets = p->n;
		seen_field |= p->kind == P_VAL;
		if (p->kind == P_SALT)
			in->deterministic = 0;
	}
	if (unbounded)
		in->key_max_len = 0;
	for (size_t i = 0; i < s->nparts; i++) {
		const rk_part *p = &s->parts[i];
		if (p->kind == P_LIT || p->kind == P_VAL)
			break;
		in->prefix_len += (unsigned)p->fixed;
	}
	in->order_preserving = !has_desc_or_unordered(s->parts, s->nparts);
}
