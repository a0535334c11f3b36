/*
 * The field types of the schema language (docs/schema.md): their names as
 * a schema spells them (ts is an i64 that also takes ISO-8601 text) and the
 * width of the fixed-width ones. Below all that names or sizes a type: the
 * parser (schema.c), the template grammar, printing, values, decoding.
 */
#include <string.h>

#include "key/schema_int.h"

static const struct {
	const char *name;
	rk_type type;
} type_names[] = {
	{"u8", RK_T_U8},   {"u16", RK_T_U16}, {"u32", RK_T_U32}, {"u64", RK_T_U64},
	{"i8", RK_T_I8},   {"i16", RK_T_I16}, {"i32", RK_T_I32}, {"i64", RK_T_I64},
	{"ts", RK_T_I64},  {"f64", RK_T_F64}, {"str", RK_T_STR}, {"bytes", RK_T_BYTES},
};

int rk_type__width(rk_type t)
{
	switch (t) {
	case RK_T_U8: case RK_T_I8: return 1;
	case RK_T_U16: case RK_T_I16: return 2;
	case RK_T_U32: case RK_T_I32: return 4;
	case RK_T_U64: case RK_T_I64: case RK_T_F64: return 8;
	default: return 0;
	}
}

const char *rk_type__name(rk_type t)
{
	for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++)
		if (type_names[i].type == t)
			return type_names[i].name;
	return "?";
}

rk_type rk_type__parse(const char *p, size_t n)
{
	rk_type ty = 0;
	for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++)
		if (strlen(type_names[i].name) == n && !memcmp(p, type_names[i].name, n))
			ty = type_names[i].type;
	return ty;
}
