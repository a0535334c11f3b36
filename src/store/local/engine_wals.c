/*
 * The engine's expected write-ahead logs (formats.md B.5), kept and checked.
 *
 * LevelDB replays whatever logs it finds: one deleted, cut short or
 * replaced while the store was closed costs acknowledged writes without a
 * word. So the engine records, in its WALS file, the logs it will replay
 * and what is known of each, and checks them before LevelDB opens:
 *
 * - at open, after LevelDB replayed its logs and started a new one: the new
 *   log, live (it must exist; a crash may cut it short);
 * - when LevelDB starts a new log (seen after a write that did not grow the
 *   log the engine knows; one fstat a write): the old log, synced here and
 *   closed with its size, and the new one live;
 * - at a clean close: every log there is, synced, sealed with its size and
 *   the CRC-32C of its bytes.
 *
 * The check: the logs LevelDB still needs (at or past the log number of its
 * MANIFEST) must be there, closed ones with their size, sealed ones with
 * their bytes. A lost log refuses the open unless it repairs
 * (rk__engine_options.repair): then the loss is accepted and reported, a
 * replaced log moved aside, a grown one cut back.
 *
 * What it does not do: know the live log's length between two rewrites (a
 * crash cuts logs short; that is the torn tail engine_files.c accepts), or
 * keep anything of a log LevelDB deleted after flushing it into a table.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "key/error.h"
#include "store/local/crc.h"
#include "store/local/engine_files.h"
#include "store/local/engine_int.h"
#include "store/local/ldb_log.h"
#include "store/local/ldb_manifest.h"

static void log_path(char *out, size_t cap, const char *dir, uint64_t number)
{
	snprintf(out, cap, "%s/%06llu.log", dir, (unsigned long long)number);
}

/* fsyncs a file by name; 0 or -1 with errno. */
static int sync_file(const char *path)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	int rc = fsync(fd);
	int e = errno;
	close(fd);
	errno = e;
	return rc;
}

/* ---- the check before LevelDB opens ---- */

/* The log numbers LevelDB's MANIFEST still needs: 0 in *ok when there is
 * no MANIFEST to read (a new engine) or it does not parse (LevelDB's own
 * open then refuses it, naming it). */
static void manifest_logs(const char *dir, rk__ldb_manifest *m, int *ok)
{
	char path[4200], why[200];
	uint8_t *cur, *buf;
	size_t cl, len;
	*ok = 0;
	snprintf(path, sizeof path, "%s/CURRENT", dir);
	if (rk_engine__slurp(&cur, &cl, path))
		return;
	while (cl && (cur[cl - 1] == '\n' || cur[cl - 1] == '\r'))
		cl--;
	int named = cl > 9 && cl < 200 && !memcmp(cur, "MANIFEST-", 9) && !memchr(cur, '/', cl);
	snprintf(path, sizeof path, "%s/%.*s", dir, (int)(named ? cl : 0), (const char *)cur);
	free(cur);
	if (!named || rk_engine__slurp(&buf, &len, path))
		return;
	*ok = rk_ldb__read_manifest(m, buf, len, why, sizeof why) == 0;
	free(buf);
}

typedef struct lost {
	uint64_t number;
	enum { L_MISSING = 1, L_SHORT, L_LONG, L_CHANGED } kind;
	uint64_t found;  /* its length now */
	char what[4800]; /* said in words */
} lost;

/* What was recorded of a log, in words. */
static const char *recorded(const rk__wal *w, char *buf, size_t cap)
{
	if (!w || w->state == RK_WAL_LIVE)
		snprintf(buf, cap, "the log LevelDB was writing when it was last recorded");
	else
		snprintf(buf, cap, "%llu bytes of acknowledged writes, synced%s",
		         (unsigned long long)w->size, w->state == RK_WAL_SEALED ? " at the last close" : "");
	return buf;
}

/* Checks one expected log; 1 and *l filled when it is lost. */
static int check_one(lost *l, const char *dir, uint64_t number, const rk__wal *w)
{
	char path[4200], rec[160];
	struct stat st;
	log_path(path, sizeof path, dir, number);
	memset(l, 0, sizeof *l);
	l->number = number;
	if (stat(path, &st)) {
		l->kind = L_MISSING;
		snprintf(l->what, sizeof l->what, "write-ahead log %s is missing (%s)", path,
		         recorded(w, rec, sizeof rec));
		return 1;
	}
	l->found = (uint64_t)st.st_size;
	if (!w || w->state == RK_WAL_LIVE)
		return 0;
	if (l->found < w->size) {
		l->kind = L_SHORT;
		snprintf(l->what, sizeof l->what,
		         "write-ahead log %s has %llu bytes, %llu were written and synced (cut short: "
		         "the last %llu bytes of acknowledged writes are gone)",
		         path, (unsigned long long)l->found, (unsigned long long)w->size,
		         (unsigned long long)(w->size - l->found));
		return 1;
	}
	if (w->state == RK_WAL_SEALED) {
		uint8_t *buf;
		size_t len;
		if (rk_engine__slurp(&buf, &len, path) == 0) {
			rk__ldb_log_scan sc;
			int same = len >= w->size && rk_crc__32c(buf, (size_t)w->size) == w->sum;
			/* bytes damaged in place are for the record check to name, with
			   their offset and the records after them; a log whose records
			   are all sound but not those closed there was replaced */
			if (!same)
				rk_ldb__scan_log(&sc, buf, len);
			free(buf);
			if (!same && !sc.middle_damage && !(sc.tail_damage && sc.tail_hard)) {
				l->kind = L_CHANGED;
				snprintf(l->what, sizeof l->what,
				         "write-ahead log %s is not the log closed there (its first %llu bytes "
				         "differ from those recorded: replaced or overwritten)",
				         path, (unsigned long long)w->size);
				return 1;
			}
		}
	}
	if (l->found > w->size) {
		l->kind = L_LONG;
		snprintf(l->what, sizeof l->what,
		         "write-ahead log %s has %llu bytes, %llu when LevelDB closed it (written to since)",
		         path, (unsigned long long)l->found, (unsigned long long)w->size);
		return 1;
	}
	return 0;
}

/* Accepts a lost log: what is on disk made what the list says. */
static int accept_loss(const char *dir, rk__wals *w, const lost *l, char *done, size_t cap)
{
	char path[4200], aside[4300];
	rk__wal *e = rk_wals__find(w, l->number);
	log_path(path, sizeof path, dir, l->number);
	switch (l->kind) {
	case L_MISSING:
		rk_wals__remove(w, l->number);
		snprintf(done, cap, "its writes are lost");
		return 0;
	case L_SHORT:
		if (e)
			*e = (rk__wal){l->number, RK_WAL_CLOSED, l->found, 0};
		snprintf(done, cap, "the %llu bytes there are replayed, the rest is lost",
		         (unsigned long long)l->found);
		return 0;
	case L_LONG:
		if (truncate(path, (off_t)e->size) || sync_file(path))
			return rk__err(RK_EIO, "engine %s: cannot cut %s back: %s", dir, path, strerror(errno));
		snprintf(done, cap, "cut back to its %llu bytes", (unsigned long long)e->size);
		return 0;
	default:
		snprintf(aside, sizeof aside, "%s.lost", path);
		if (rename(path, aside))
			return rk__err(RK_EIO, "engine %s: cannot move %s aside: %s", dir, path, strerror(errno));
		rk_wals__remove(w, l->number);
		snprintf(done, cap, "moved aside to %s, not replayed; the writes it held are lost", aside);
		return 0;
	}
}

/* The recorded list, or why it cannot be used. */
static int load_list(rk__wals *w, int *found, const char *dir, const rk__engine_options *o)
{
	int rc = rk_wals__load(w, found, dir);
	char msg[800];
	if (rc == RK_ECORRUPT && o->repair) {
		snprintf(msg, sizeof msg, "%s: the list of expected write-ahead logs is dropped: the logs "
		         "there are replayed as found", rk_error_last());
		o->repair(msg, o->repair_payload);
		return 0;
	}
	if (rc == RK_ECORRUPT)
		return rk__err(rc, "engine %s: %s; refusing to open, as which write-ahead logs the "
		               "engine expects is not known (`rowkey check --repair` replays the logs "
		               "there as found and says so)", dir, rk_error_last());
	if (rc)
		return rk__err_wrap(rc, "engine %s", dir);
	if (!*found && o->require_wals) {
		char cur[4200];
		struct stat st;
		snprintf(cur, sizeof cur, "%s/CURRENT", dir);
		if (stat(cur, &st))
			return 0; /* a new engine */
		snprintf(msg, sizeof msg, "%s/WALS is missing: which write-ahead logs the engine expects "
		         "is not known", dir);
		if (!o->repair)
			return rk__err(RK_ECORRUPT, "engine %s: %s; refusing to open (`rowkey check --repair` "
			               "replays the logs there as found and says so)", dir, msg);
		strncat(msg, ": the logs there are replayed as found", sizeof msg - strlen(msg) - 1);
		o->repair(msg, o->repair_payload);
	}
	return 0;
}

/* The logs LevelDB will replay and the list says it must find: the
 * recorded ones at or past the MANIFEST's log number (or its previous
 * one), and the MANIFEST's log itself. *out (malloc'd) in order. */
static int expected_logs(uint64_t **out, size_t *n, const rk__wals *w, const rk__ldb_manifest *m)
{
	*n = 0;
	if (!(*out = malloc((w->n + 1) * sizeof **out)))
		return rk__err(RK_ENOMEM, "out of memory checking write-ahead logs");
	int have_current = 0;
	for (size_t i = 0; i < w->n; i++) {
		uint64_t num = w->logs[i].number;
		if (num >= m->log_number || num == m->prev_log)
			(*out)[(*n)++] = num;
		have_current |= num == m->log_number;
	}
	if (m->log_number && !have_current)
		(*out)[(*n)++] = m->log_number;
	return 0;
}

int rk_engine__check_wals(const char *dir, const rk__engine_options *o)
{
	rk__wals w = {0};
	rk__ldb_manifest m;
	uint64_t *want = NULL;
	size_t nwant = 0, nlost = 0;
	int found = 0, ok, rc, changed = 0;
	lost first, l;
	if ((rc = load_list(&w, &found, dir, o)) != 0)
		goto out;
	manifest_logs(dir, &m, &ok);
	if (!ok || (rc = expected_logs(&want, &nwant, &w, &m)) != 0)
		goto out;
	for (size_t i = 0; i < nwant && !rc; i++) {
		if (!check_one(&l, dir, want[i], rk_wals__find(&w, want[i])))
			continue;
		if (!nlost++)
			first = l;
		if (o->repair) {
			char done[4800], msg[9800];
			if ((rc = accept_loss(dir, &w, &l, done, sizeof done)) == 0) {
				snprintf(msg, sizeof msg, "%s: %s", l.what, done);
				o->repair(msg, o->repair_payload);
				changed = 1;
			}
		}
	}
	if (!rc && nlost && !o->repair)
		rc = rk__err(RK_ECORRUPT,
		             "engine %s: %s%s; refusing to open, as LevelDB would open without it "
		             "(`rowkey check --repair` accepts the loss and says what is lost)",
		             dir, first.what, nlost > 1 ? " (and more lost logs)" : "");
	if (!rc && changed)
		rc = rk_wals__save(dir, &w);
out:
	free(want);
	rk_wals__free(&w);
	return rc;
}

/* ---- keeping the list while the engine runs ---- */

/* Makes the list say what the directory holds after LevelDB opened or
 * started a new log: the newest log live, older ones closed (synced here,
 * their size recorded once), logs LevelDB deleted gone; written when save.
 * Engine's wal_mu held (or the engine not shared yet). */
static int relist(rk__engine *e, int save)
{
	uint64_t *nums = NULL;
	size_t n = 0;
	int rc = rk_engine__list_logs(e->path, &nums, &n);
	if (rc)
		return rc;
	rk__wals next = {0};
	char path[4200];
	struct stat st;
	for (size_t i = 0; i < n && !rc; i++) {
		rk__wal *old = rk_wals__find(&e->wals, nums[i]);
		log_path(path, sizeof path, e->path, nums[i]);
		if (i + 1 == n)
			rc = rk_wals__set(&next, nums[i], RK_WAL_LIVE, 0, 0);
		else if (old && old->state != RK_WAL_LIVE)
			rc = rk_wals__set(&next, nums[i], old->state, old->size, old->sum);
		else if (sync_file(path) == 0 && stat(path, &st) == 0)
			rc = rk_wals__set(&next, nums[i], RK_WAL_CLOSED, (uint64_t)st.st_size, 0);
		else if (errno != ENOENT) /* deleted meanwhile: no longer expected */
			rc = rk__err(RK_EIO, "engine %s: syncing %s: %s", e->path, path, strerror(errno));
	}
	if (!rc && save)
		rc = rk_wals__save(e->path, &next);
	if (!rc) {
		rk_wals__free(&e->wals);
		e->wals = next;
		next = (rk__wals){0};
		if (e->wal_fd >= 0)
			close(e->wal_fd);
		e->wal_fd = -1;
		e->wal_live = n ? nums[n - 1] : 0;
		e->wal_seen = 0;
		if (n) {
			log_path(path, sizeof path, e->path, nums[n - 1]);
			if ((e->wal_fd = open(path, O_RDONLY)) >= 0 && fstat(e->wal_fd, &st) == 0)
				e->wal_seen = (uint64_t)st.st_size;
		}
	}
	rk_wals__free(&next);
	free(nums);
	return rc ? rk__err_wrap(rc, "engine %s: recording its write-ahead logs", e->path) : 0;
}

int rk_engine__wals_start(rk__engine *e)
{
	int found = 0;
	e->wal_fd = -1;
	/* what was recorded (checked before the open) carries closed sizes */
	if (rk_wals__load(&e->wals, &found, e->path))
		rk_wals__free(&e->wals);
	/* written only when there is none yet (a new engine, or one from before
	   the list): otherwise the new log is the MANIFEST's log number, which
	   the check at the next open requires anyway, and an open that writes
	   nothing (a read, a listing) costs no file write */
	return relist(e, !found);
}

int rk_engine__wals_after_write(rk__engine *e)
{
	struct stat st;
	int rc = 0;
	pthread_mutex_lock(&e->wal_mu);
	/* every write appends a record to the live log: a log that did not
	 * grow means LevelDB started another (or a concurrent write's record
	 * held this one's batch too: the listing then finds nothing new) */
	if (e->wal_fd >= 0 && fstat(e->wal_fd, &st) == 0 && (uint64_t)st.st_size > e->wal_seen)
		e->wal_seen = (uint64_t)st.st_size;
	else
		rc = relist(e, 1);
	e->wals_dirty = 1;
	pthread_mutex_unlock(&e->wal_mu);
	return rc;
}

void rk_engine__wals_seal(rk__engine *e)
{
	uint64_t *nums = NULL;
	size_t n = 0;
	if (e->wal_fd >= 0)
		close(e->wal_fd);
	e->wal_fd = -1;
	/* an engine whose write failed may end in a torn record: its list stays
	 * as it was (the live log's length unknown); one that wrote nothing
	 * since it opened has only an empty log, which the MANIFEST names */
	if (e->wals_dirty && !atomic_load(&e->failed) &&
	    rk_engine__list_logs(e->path, &nums, &n) == 0) {
		rk__wals sealed = {0};
		int rc = 0;
		for (size_t i = 0; i < n && !rc; i++) {
			char path[4200];
			uint8_t *buf;
			size_t len;
			log_path(path, sizeof path, e->path, nums[i]);
			if (sync_file(path) || rk_engine__slurp(&buf, &len, path)) {
				rc = -1;
				break;
			}
			rc = rk_wals__set(&sealed, nums[i], RK_WAL_SEALED, len, rk_crc__32c(buf, len));
			free(buf);
		}
		/* best effort: a list that cannot be written keeps the older, weaker one */
		if (!rc)
			rk_wals__save(e->path, &sealed);
		rk_wals__free(&sealed);
	}
	free(nums);
	rk_wals__free(&e->wals);
}
