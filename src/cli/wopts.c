/*
 * The shared workload and cluster options (see wopts.h).
 */
#include "cli/wopts.h"

#include <string.h>

#include "cli/cli.h"
#include "key/error.h"
#include "records/reader.h"

void rk_cli_wopts_init(rk_cli_wopts *w)
{
	rk_workload_options wo = RK_WORKLOAD_OPTIONS_INIT;
	rk_analyze_options ao = RK_ANALYZE_OPTIONS_INIT;
	memset(w, 0, sizeof *w);
	w->wo = wo;
	w->wo.name = NULL;
	w->ao = ao;
	w->wo.queries = w->queries;
}

int rk_cli_wopts_set(rk_cli_wopts *w, const char *name, const char *value)
{
	if (!strcmp(name, "query")) {
		if (w->wo.nqueries == RK_CLI_MAX_QUERIES)
			return rk__err(RK_EINVALID, "--query: at most %d query shapes", RK_CLI_MAX_QUERIES);
		w->queries[w->wo.nqueries++] = value;
		return 0;
	}
	if (!strcmp(name, "fixed-rate")) {
		w->wo.fixed_rate = 1;
		return 0;
	}
	if (!strcmp(name, "no-header")) {
		w->wo.no_header = 1;
		return 0;
	}
	if (!strcmp(name, "format")) {
		rk_rec_format f;
		if (rk_rec__format_parse(&f, value) < 0)
			return RK_EINVALID;
		w->wo.format = (int)f;
		return 0;
	}
	if (!strcmp(name, "file") && !w->wo.name)
		w->wo.name = "file"; /* --file alone means the file workload */
	return rk_analyze_option(&w->wo, &w->ao, name, value);
}

int rk_cli_wopts_check(const rk_cli_wopts *w, const char *cmd)
{
	if (!w->wo.name || strcmp(w->wo.name, "file")) {
		double ops = w->wo.rate * w->wo.duration;
		if (ops > RK_CLI_MAX_OPERATIONS)
			return rk_cli_usage_error(cmd, "--rate %g x --duration %g is %.3g operations; a run takes "
			                               "at most %.0f (lower --rate or --duration)",
			                          w->wo.rate, w->wo.duration, ops, RK_CLI_MAX_OPERATIONS);
		return -1;
	}
	if (!w->wo.file || !w->wo.file[0])
		return rk_cli_usage_error(cmd, "-w file needs --file PATH (the records to replay)");
	return -1;
}
