/*
 * "Did you mean": the closest of a set of names to a word that named none
 * of them, for the messages of every layer (commands and options, tables,
 * fields, workloads). Internal: shared by the parts through rk_ names.
 *
 *   rk__suggest sg;
 *   rk__suggest_init(&sg, word);
 *   for (...) rk__suggest_add(&sg, name);
 *   const char *best = rk__suggest_best(&sg);   (NULL: nothing close)
 */
#ifndef RK_KEY_SUGGEST_H
#define RK_KEY_SUGGEST_H

#include <stddef.h>

typedef struct rk__suggest {
	const char *word;
	size_t word_len;
	const char *best; /* borrowed from the caller's names */
	unsigned dist;
} rk__suggest;

void rk__suggest_init(rk__suggest *sg, const char *word, size_t len);

/* Considers `name` (NUL-terminated; borrowed until rk__suggest_best). */
void rk__suggest_add(rk__suggest *sg, const char *name);

/* The closest name, if it is close enough to be what was meant: a few
 * typing slips (letters swapped, missing, doubled or wrong: one for a short
 * word, up to three for a long one), case aside, or a name the word is the
 * start of. NULL otherwise. */
const char *rk__suggest_best(const rk__suggest *sg);

/* The closest of names[0..count) to word[0..len), as rk__suggest_best. */
const char *rk__suggest_among(const char *word, size_t len, char *const *names, size_t count);

#endif
