/*
 * --engine for rowkey analyze and compare (engine.h).
 */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rowkey/key.h>

#include "cli/cli.h"
#include "cli/engine.h"
#include "key/error.h"

int rk_cli_engine_parse(rk_cli_engine *e, const char *arg)
{
	if (!strcmp(arg, "sim")) {
		e->sim = 1, e->store = 0;
	} else if (!strcmp(arg, "store")) {
		e->sim = 0, e->store = 1;
	} else if (!strcmp(arg, "both")) {
		e->sim = 1, e->store = 1;
	} else {
		return rk__err(RK_EINVALID, "--engine '%s': expected sim, store or both", arg);
	}
	return 0;
}

int rk_cli_engine_ready(rk_cli_engine *e, int engine_given, const char *store)
{
	e->tmp[0] = 0;
	e->dir = store;
	if (!engine_given) {
		e->sim = 1;
		e->store = store != NULL;
	}
	if (store && !e->store)
		return rk__err(RK_EINVALID, "--store DIR is where store runs go: it needs --engine "
		                            "store or both, not sim");
	if (!e->store || store)
		return 0;
	const char *t = getenv("TMPDIR");
	snprintf(e->tmp, sizeof e->tmp, "%s/rowkey-engine-XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(e->tmp)) {
		int rc = rk__err(RK_EIO, "cannot make a temporary directory %s for the store run",
		                 e->tmp);
		e->tmp[0] = 0;
		return rc;
	}
	e->dir = e->tmp;
	return 0;
}

int rk_cli__engine_start(rk_cli_engine *e, const char *cmd, int engine_given, const char *store)
{
	int er = rk_cli_engine_ready(e, engine_given, store);
	if (er == RK_EINVALID)
		return rk_cli_usage_error(cmd, "%s", rk_error_last());
	if (er < 0)
		return rk_cli_fail(cmd, "store run");
	return 0;
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb, (void)flag, (void)ftw;
	remove(path);
	return 0;
}

void rk_cli_engine_done(rk_cli_engine *e)
{
	if (e->tmp[0])
		nftw(e->tmp, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	e->tmp[0] = 0;
}
