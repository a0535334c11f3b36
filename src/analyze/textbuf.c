/*
 * Text for reports, on the growing string of key/strbuf.h: JSON numbers and
 * strings, handing the text over, and one way to write shares (counts:
 * rk__count_text, key/units.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/analyze_int.h"
#include "key/error.h"

int rk__sb_done(char **out, rk__sb *b)
{
	if (b->oom || !b->p) {
		free(b->p);
		*out = NULL;
		return rk__err(RK_ENOMEM, "out of memory writing a report");
	}
	*out = b->p;
	return 0;
}

const char *rk__share_text(double share)
{
	static _Thread_local char ring[8][16];
	static _Thread_local unsigned next;
	char *b = ring[next++ % 8];
	double pc = share * 100;
	if (pc > 0 && pc < 0.1)
		snprintf(b, 16, "<0.1%%");
	else if (pc < 10 && fabs(pc - round(pc)) > 0.05)
		snprintf(b, 16, "%.1f%%", pc);
	else
		snprintf(b, 16, "%.0f%%", pc > 100 ? 100 : pc);
	return b;
}

/* A JSON number (null for inf and NaN, which JSON cannot say). */
void rk__sb_jnum(rk__sb *b, double v)
{
	if (isfinite(v))
		rk__sb_printf(b, "%.6g", v);
	else
		RK__SB_LIT(b, "null");
}

/* A JSON string, or null for NULL. */
void rk__sb_jstr(rk__sb *b, const char *s)
{
	if (s)
		rk__sb_json_str(b, (const uint8_t *)s, strlen(s));
	else
		RK__SB_LIT(b, "null");
}

