/*
 * The data's clock (see dataset.h): which time field orders the records,
 * rising, or falling in a file written newest first (then replayed last
 * record first); each held record's time in replay order (d->t_ms); and the
 * clock's busiest second (d->peak_per_s), the rate a replay must carry at its
 * worst. Reads the held columns only; nothing here reads the file.
 */
#include <stdint.h>
#include <stdlib.h>

#include "analyze/dataset.h"
#include "key/error.h"

/* The clock's busiest second (d->peak_per_s): a window of 1,000 ms slid
 * over the records in replay order, where the times never fall. A log that
 * sleeps for days between bursts of hundreds of records a second has the
 * bursts' rate here, not its average. */
static void busiest_second(rk__dataset *d)
{
	uint64_t most = 0, lo = 0;
	for (uint64_t k = 0; k < d->held; k++) {
		int64_t t = d->t_ms[d->clock_falls > 0 ? d->held - 1 - k : k];
		while (t - d->t_ms[d->clock_falls > 0 ? d->held - 1 - lo : lo] >= 1000)
			lo++;
		most = k - lo + 1 > most ? k - lo + 1 : most;
	}
	d->peak_per_s = (double)most;
}

/* The share of consecutive records (both with a value) in which time field
 * f falls or repeats, over the records held. */
static double falls(const rk__dataset *d, size_t f)
{
	const rk__column *c = &d->col[f];
	uint64_t pairs = 0, down = 0;
	int64_t prev = 0;
	int have = 0;
	for (uint64_t i = 0; i < d->held; i++) {
		if (c->len[i] == RK__ABSENT)
			continue;
		int64_t t = rk__tunit_ms(c->tu, (int64_t)c->v[i]);
		if (have) {
			pairs++;
			down += t <= prev;
		}
		prev = t;
		have = 1;
	}
	return pairs ? (double)down / (double)pairs : 0;
}

/* The data's clock: the time field most often in order (>= 90% of
 * consecutive records), when there is one; else, when every record is
 * held, a time field that falls in 90% of them: a file written newest
 * first, replayed from its last record to its first, forward in time (a
 * file too large to hold is read once forward and has no clock then). */
int rk__dataset_pick_clock(rk__dataset *d)
{
	double best = 0.9;
	d->time_field = -1;
	d->clock_falls = 0;
	for (size_t f = 0; f < d->nf; f++) {
		double m = rk__column_monotonic(&d->col[f]);
		if (d->col[f].tu && m >= best) {
			best = m;
			d->time_field = (int)f;
		}
	}
	for (size_t f = 0; d->time_field < 0 && d->complete && f < d->nf; f++) {
		double m = d->col[f].tu && d->col[f].tu != RK__TU_ISO ? falls(d, f) : 0;
		if (m >= 0.9 && m > d->clock_falls) {
			d->clock_falls = m;
			d->time_field = (int)f;
		}
	}
	if (d->time_field < 0 || !d->held)
		return 0;
	rk__column *c = &d->col[d->time_field];
	if (!(d->t_ms = malloc(d->held * sizeof *d->t_ms)))
		return rk__err(RK_ENOMEM, "%s: out of memory", d->source);
	/* in replay order; a record out of order keeps its place */
	int64_t last = INT64_MIN;
	for (uint64_t k = 0; k < d->held; k++) {
		uint64_t i = d->clock_falls > 0 ? d->held - 1 - k : k;
		int64_t t = c->len[i] == RK__ABSENT ? last : rk__tunit_ms(c->tu, (int64_t)c->v[i]);
		d->t_ms[i] = last = t > last ? t : last;
	}
	for (uint64_t k = 0; k < d->held; k++) {
		uint64_t i = d->clock_falls > 0 ? d->held - 1 - k : k;
		if (d->t_ms[i] != INT64_MIN)
			break;
		d->t_ms[i] = 0;
	}
	busiest_second(d);
	return 0;
}
