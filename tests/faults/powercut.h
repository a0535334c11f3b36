/*
 * Applies a power-cut journal (tests/faults/powercut_shim.c) to the files of
 * a killed process: what a machine losing power at that moment could have
 * kept. Header-only, for the tests.
 *   POWERCUT_DROP     every byte written since a file's last sync is lost
 *                     (the file is cut back to its synced size; a file
 *                     created and never synced is empty)
 *   POWERCUT_REORDER  each write since the last sync reached the disk or
 *                     not, at random and independently: bytes of lost writes
 *                     before the end of the last kept one read as zeros
 */
#ifndef RK_POWERCUT_H
#define RK_POWERCUT_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { POWERCUT_DROP = 0, POWERCUT_REORDER = 1 };

typedef struct pc_write {
	long long off, len;
} pc_write;

typedef struct pc_file {
	char path[PATH_MAX];
	long long durable;
	pc_write *w;
	size_t nw, cap;
	int live;
} pc_file;

typedef struct pc_state {
	pc_file *f;
	size_t n, cap;
} pc_state;

static inline pc_file *pc_find(pc_state *s, const char *path, int make)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->f[i].live && !strcmp(s->f[i].path, path))
			return &s->f[i];
	if (!make)
		return NULL;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->f = realloc(s->f, s->cap * sizeof *s->f);
		if (!s->f)
			abort();
	}
	pc_file *f = &s->f[s->n++];
	memset(f, 0, sizeof *f);
	size_t n = strlen(path);
	if (n >= sizeof f->path)
		abort();
	memcpy(f->path, path, n + 1);
	f->live = 1;
	return f;
}

static inline void pc_drop(pc_file *f)
{
	free(f->w);
	f->w = NULL;
	f->nw = f->cap = 0;
	f->live = 0;
}

static inline uint64_t pc_rand(uint64_t *seed)
{
	*seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
	return *seed >> 33;
}

/* Applies journal `jpath` in `mode`; returns how many files lost bytes. */
static inline int powercut_apply(const char *jpath, int mode, uint64_t seed)
{
	FILE *j = fopen(jpath, "r");
	pc_state s = {NULL, 0, 0};
	char line[3 * PATH_MAX];
	int changed = 0;
	if (!j)
		return 0;
	while (fgets(line, sizeof line, j)) {
		size_t ln = strlen(line);
		if (!ln || line[ln - 1] != '\n')
			continue; /* a kill mid-line cannot happen (one write), but be safe */
		line[--ln] = 0;
		long long a = 0, b = 0;
		int pos = 0;
		pc_file *f;
		switch (line[0]) {
		case 'O':
			f = pc_find(&s, line + 2, 1);
			f->durable = 0;
			f->nw = 0;
			break;
		case 'W':
			if (sscanf(line, "W %lld %lld %n", &a, &b, &pos) < 2 || !pos)
				break;
			if (!(f = pc_find(&s, line + pos, 0))) {
				f = pc_find(&s, line + pos, 1);
				f->durable = a; /* what was there before is durable */
			}
			if (f->nw == f->cap) {
				f->cap = f->cap ? 2 * f->cap : 16;
				f->w = realloc(f->w, f->cap * sizeof *f->w);
				if (!f->w)
					abort();
			}
			f->w[f->nw++] = (pc_write){a, b};
			break;
		case 'S':
			if (sscanf(line, "S %lld %n", &a, &pos) < 1 || !pos)
				break;
			f = pc_find(&s, line + pos, 1);
			f->durable = a;
			f->nw = 0;
			break;
		case 'R': {
			char *tab = strchr(line, '\t');
			if (!tab)
				break;
			*tab = 0;
			pc_file *from = pc_find(&s, line + 2, 0), *to = pc_find(&s, tab + 1, 0);
			if (to)
				pc_drop(to);
			if (from && strlen(tab + 1) < sizeof from->path)
				memcpy(from->path, tab + 1, strlen(tab + 1) + 1);
			break;
		}
		case 'U':
			if ((f = pc_find(&s, line + 2, 0)) != NULL)
				pc_drop(f);
			break;
		}
	}
	fclose(j);
	for (size_t i = 0; i < s.n; i++) {
		pc_file *f = &s.f[i];
		struct stat st;
		if (!f->live || stat(f->path, &st))
			continue;
		long long size = st.st_size, keep_end = f->durable;
		if (mode == POWERCUT_REORDER) {
			unsigned char *kept = calloc(f->nw ? f->nw : 1, 1);
			for (size_t k = 0; k < f->nw; k++) {
				kept[k] = pc_rand(&seed) & 1;
				if (kept[k] && f->w[k].off + f->w[k].len > keep_end)
					keep_end = f->w[k].off + f->w[k].len;
			}
			FILE *w = fopen(f->path, "r+b");
			for (size_t k = 0; w && k < f->nw; k++) {
				long long lo = f->w[k].off > f->durable ? f->w[k].off : f->durable;
				long long hi = f->w[k].off + f->w[k].len;
				hi = hi < keep_end ? hi : keep_end;
				if (kept[k] || lo >= hi)
					continue;
				fseek(w, lo, SEEK_SET);
				for (long long x = lo; x < hi; x++)
					fputc(0, w);
				changed++;
			}
			if (w)
				fclose(w);
			free(kept);
		}
		if (size > keep_end) {
			if (truncate(f->path, keep_end))
				abort();
			changed++;
		}
	}
	for (size_t i = 0; i < s.n; i++)
		free(s.f[i].w);
	free(s.f);
	return changed;
}

#endif
