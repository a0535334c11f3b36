/*
 * Sources (see source.h).
 */
#include "analyze/source.h"

#include <stdlib.h>
#include <string.h>

#include "analyze/profile_int.h"
#include "key/error.h"

static int is_file(const rk_workload_options *o)
{
	return o->name && !strcmp(o->name, "file");
}

int rk__source_open(rk__source **out, const rk_workload_options *o, rk__progress_fn progress,
                    void *payload)
{
	rk_profile_options po = RK_PROFILE_OPTIONS_INIT;
	int rc;
	*out = NULL;
	rk__source *s = calloc(1, sizeof *s);
	if (!s)
		return rk__err(RK_ENOMEM, "out of memory");
	s->o = *o;
	if (o->file && !(s->file = strdup(o->file))) {
		free(s);
		return rk__err(RK_ENOMEM, "out of memory");
	}
	s->o.file = s->file;
	po.memory = o->memory;
	po.limit = o->limit;
	po.format = o->format;
	po.no_header = o->no_header;
	po.label = o->file_label; /* a table's rows: named as the table, not their spool file */
	po.progress = progress;
	po.payload = payload;
	/* validate the options (and name the workload) before reading anything */
	if (!is_file(o) && (rc = rk__workload_open(&s->shapes, &s->o)) != 0)
		goto fail;
	if ((rc = rk_profile_workload(&s->profile, &s->o, &po)) != 0)
		goto fail;
	s->d = rk__profile_dataset(s->profile);
	if (is_file(o) && (rc = rk__workload_open_on(&s->shapes, &s->o, s->d)) != 0)
		goto fail;
	if ((rc = rk__qset_build(&s->q, s->shapes, s->d, o->seed)) != 0)
		goto fail;
	*out = s;
	return 0;
fail:
	rk__source_free(s);
	return rc;
}

void rk__source_free(rk__source *s)
{
	if (!s)
		return;
	rk__qset_free(&s->q);
	rk__workload_close(s->shapes);
	rk_profile_free(s->profile);
	free(s->file);
	free(s);
}

int rk__source_workload(rk__workload **out, const rk__source *s)
{
	if (is_file(&s->o))
		return rk__workload_open_on(out, &s->o, s->d);
	return rk__workload_open(out, &s->o);
}

int rk_workload_source_open(rk_workload_source **out, const rk_workload_options *wopts)
{
	return rk__source_open(out, wopts, NULL, NULL);
}

void rk_workload_source_free(rk_workload_source *src)
{
	rk__source_free(src);
}
