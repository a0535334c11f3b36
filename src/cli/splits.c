/*
 * Split points on the command line (see splits.h).
 */
#include "cli/splits.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/store_cli.h"

int rk_cli__split_add(rk_bytes **sp, size_t *n, uint8_t *p, size_t len)
{
	rk_bytes *q = p ? realloc(*sp, (*n + 1) * sizeof *q) : NULL;
	if (!q) {
		free(p);
		return -1;
	}
	*sp = q;
	q[*n].ptr = p;
	q[*n].len = len;
	++*n;
	return 0;
}

int rk_cli__split_add_copy(rk_bytes **sp, size_t *n, const void *src, size_t len)
{
	uint8_t *p = malloc(len ? len : 1);
	if (p)
		memcpy(p, src, len);
	return rk_cli__split_add(sp, n, p, len);
}

void rk_cli__splits_free(rk_bytes *sp, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free((void *)sp[i].ptr);
	free(sp);
}

int rk_cli__splits_read(rk_bytes **sp, size_t *nsp, const char *path, const char *cmd)
{
	FILE *f = fopen(path, "r");
	char line[4 * RK_MAX_ROW_LEN + 8];
	long n = 0;
	if (!f) {
		fprintf(stderr, "rowkey %s: --splits %s: %s\n", cmd, path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof line, f)) {
		size_t len = strlen(line);
		n++;
		if (len && line[len - 1] != '\n' && !feof(f)) {
			fprintf(stderr, "rowkey %s: --splits %s: line %ld is longer than a row key may be\n",
			        cmd, path, n);
			fclose(f);
			return -1;
		}
		while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
			line[--len] = 0;
		if (!len)
			continue;
		uint8_t *p;
		size_t pl;
		if (rk_cli__unescape(&p, &pl, line) || rk_cli__split_add(sp, nsp, p, pl)) {
			fprintf(stderr, "rowkey %s: --splits %s: line %ld: bad split point (escapes are "
			                "\\xNN and \\\\)\n",
			        cmd, path, n);
			fclose(f);
			return -1;
		}
	}
	int bad = ferror(f);
	fclose(f);
	if (bad)
		fprintf(stderr, "rowkey %s: --splits %s: reading it failed\n", cmd, path);
	return bad ? -1 : 0;
}
