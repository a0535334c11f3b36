/*
 * Where do a workload's writes land under a key design? The analyzer runs a
 * chat workload through two designs on a simulated cluster (the store's own
 * region and split code) and prints the comparison; with a file name it also
 * draws both heatmaps side by side as a PNG.
 *
 *   cc hotspot.c $(pkg-config --cflags --libs rowkey-analyze) -o hotspot
 *   ./hotspot [heatmap.png]
 */
#include <rowkey/analyze.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *what)
{
	fprintf(stderr, "hotspot: %s: %s\n", what, rk_error_last());
	return 1;
}

int main(int argc, char **argv)
{
	const char *labels[2] = {"date-first", "salted"};
	const char *designs[2] = {
		"fields date:str, time:str, id:u64; key date \":\" time \":\" id",
		"fields date:str, time:str, id:u64; key bucket(8, xxh3(id), dec) \":\" date \":\" time \":\" id",
	};
	rk_workload_options wo = RK_WORKLOAD_OPTIONS_INIT;
	rk_analyze_options ao = RK_ANALYZE_OPTIONS_INIT;
	wo.name = "messages";
	wo.duration = 60;
	ao.servers = 8;
	ao.split_threshold = 1 << 20;

	rk_analysis *runs[2];
	for (int i = 0; i < 2; i++) {
		rk_schema *s;
		if (rk_schema_parse(&s, designs[i], strlen(designs[i]), labels[i]))
			return fail("schema");
		if (rk_analyze_run(&runs[i], s, labels[i], &wo, &ao))
			return fail("simulator");
		rk_schema_free(s);
		const rk_report *r = rk_analysis_report(runs[i]);
		printf("%-10s hottest server %4.1f%% of writes, %.1f servers effectively used\n",
		       labels[i], r->hottest_share * 100, r->effective_servers);
	}
	char *text;
	if (rk_analysis_compare_text(&text, (const rk_analysis *const *)runs, 2))
		return fail("report");
	fputs(text, stdout);
	free(text);
	if (argc > 1 && rk_analysis_write_compare_png(argv[1], (const rk_analysis *const *)runs, 2))
		return fail("png");
	for (int i = 0; i < 2; i++)
		rk_analysis_free(runs[i]);
	return 0;
}
