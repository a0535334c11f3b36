/*
 * Did-you-mean suggestions (suggest.h): the optimal-string-alignment edit
 * distance (insertions, deletions, substitutions and swaps of neighbours,
 * each costing 1), case-insensitive, over names of at most 64 bytes.
 */
#include "key/suggest.h"

#include <ctype.h>
#include <string.h>

#define MAXLEN 64u
#define FAR 1000u

static unsigned distance(const char *a, size_t n, const char *b, size_t m)
{
	unsigned d[MAXLEN + 1][MAXLEN + 1];
	if (n > MAXLEN || m > MAXLEN)
		return FAR;
	for (size_t i = 0; i <= n; i++)
		d[i][0] = (unsigned)i;
	for (size_t j = 0; j <= m; j++)
		d[0][j] = (unsigned)j;
	for (size_t i = 1; i <= n; i++) {
		for (size_t j = 1; j <= m; j++) {
			int same = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]);
			unsigned v = d[i - 1][j - 1] + !same;
			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	}
	return d[n][m];
}

/* How many slips a word of this length may carry and still be recognised. */
static unsigned allowed(size_t len)
{
	return len <= 4 ? 1 : len <= 8 ? 2 : 3;
}

void rk__suggest_init(rk__suggest *sg, const char *word, size_t len)
{
	sg->word = word;
	sg->word_len = len;
	sg->best = NULL;
	sg->dist = FAR;
}

void rk__suggest_add(rk__suggest *sg, const char *name)
{
	size_t m = strlen(name);
	if (m == sg->word_len && !memcmp(name, sg->word, m))
		return; /* the word itself is no suggestion */
	unsigned d = distance(sg->word, sg->word_len, name, m);
	/* the start of a name (3 bytes at least) counts as close */
	if (d > allowed(sg->word_len) && sg->word_len >= 3 && sg->word_len < m &&
	    !strncmp(name, sg->word, sg->word_len))
		d = allowed(sg->word_len);
	if (d < sg->dist && d <= allowed(sg->word_len) && d <= allowed(m)) {
		sg->best = name;
		sg->dist = d;
	}
}

const char *rk__suggest_best(const rk__suggest *sg)
{
	return sg->best;
}

const char *rk__suggest_among(const char *word, size_t len, char *const *names, size_t count)
{
	rk__suggest sg;
	rk__suggest_init(&sg, word, len);
	for (size_t i = 0; i < count; i++)
		rk__suggest_add(&sg, names[i]);
	return rk__suggest_best(&sg);
}
