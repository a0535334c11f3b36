/*
 * rk_store_repair for the local store: each server's engine is opened with
 * the write-ahead log check in repair mode (engine.h), so LevelDB replays
 * what is sound and drops the damaged records the check names, then closed.
 * The replay writes the log's records into a table and deletes the log: the
 * next rk_store_open finds no damage. Every drop is reported and appended to
 * DIR/repair.log (text lines: an ISO 8601 UTC time, a tab, the line).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "key/error.h"
#include "store/backend.h"
#include "store/local/dirlock.h"
#include "store/local/engine.h"
#include "store/local/local.h"
#include "store/local/meta.h"

typedef struct repair_ctx {
	const char *dir;
	FILE *log; /* DIR/repair.log, opened at the first drop */
	size_t damaged;
	int log_rc;
	void (*report)(const char *, void *);
	void *payload;
} repair_ctx;

static void dropped(const char *msg, void *payload)
{
	repair_ctx *c = payload;
	c->damaged++;
	if (c->report)
		c->report(msg, c->payload);
	if (!c->log && !c->log_rc) {
		char path[4200];
		snprintf(path, sizeof path, "%s/repair.log", c->dir);
		if (!(c->log = fopen(path, "a")))
			c->log_rc = rk__err(RK_EIO, "store %s: cannot write %s: %s", c->dir, path,
			                    strerror(errno));
	}
	if (c->log) {
		char when[32];
		time_t now = time(NULL);
		struct tm tm;
		gmtime_r(&now, &tm);
		strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
		fprintf(c->log, "%s\t%s\n", when, msg);
		fflush(c->log);
	}
}

/* 1 when META says every engine keeps its list of expected logs (an
 * unreadable META: 0, the logs are taken as found). */
static int wals_required(const char *dir)
{
	uint8_t *buf;
	size_t len;
	rk__meta m;
	const uint8_t *v;
	size_t n;
	char path[4200];
	int required = 0;
	if (rk_meta__read(&buf, &len, dir))
		return 0;
	snprintf(path, sizeof path, "%s/META", dir);
	rk_meta__init(&m, 1);
	if (rk_meta__decode(&m, buf, len, path) == 0)
		required = rk_meta__prop_get(&m.props, "wals", &v, &n) == 0 && n == 1 && v[0] == '1';
	rk_meta__fini(&m);
	free(buf);
	return required;
}

int rk_local__repair(size_t *out, const char *dir, void (*report)(const char *, void *),
                     void *payload)
{
	rk__dirlock lock;
	repair_ctx c = {dir, NULL, 0, 0, report, payload};
	struct stat st;
	char meta[4200];
	int rc;
	snprintf(meta, sizeof meta, "%s/META", dir);
	if (stat(meta, &st))
		return rk__err(RK_ENOTFOUND, "store %s: no META file (not a rowkey store)", dir);
	if ((rc = rk_dirlock__acquire(&lock, dir)) != 0)
		return rc;
	int wals = wals_required(dir);
	/* every server directory there is (META may be what is damaged) */
	for (unsigned i = 0; i < RK_MAX_SERVERS && !rc; i++) {
		char path[4200];
		snprintf(path, sizeof path, "%s/rs-%03u", dir, i);
		if (stat(path, &st))
			break;
		rk__engine_options eo = {0, 0, 1, dropped, &c, NULL, wals};
		rk__engine *e = NULL;
		rc = rk_engine__open(&e, path, &eo);
		rk_engine__close(e);
	}
	if (c.log) {
		int bad = fsync(fileno(c.log)) != 0;
		bad |= fclose(c.log) != 0;
		if (bad && !rc && !c.log_rc)
			c.log_rc = rk__err(RK_EIO, "store %s: cannot write repair.log: %s", dir,
			                   strerror(errno));
	}
	rk_dirlock__release(&lock);
	if (out)
		*out = c.damaged;
	return rc ? rc : c.log_rc;
}
