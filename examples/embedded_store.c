/*
 * Write and read the embedded store: a table cut into regions on region
 * servers, each a LevelDB engine, in one directory.
 *
 *   cc embedded_store.c $(pkg-config --cflags --libs rowkey-store) -o embedded_store
 *   ./embedded_store DIR      (DIR is created; run it twice to see the rows kept)
 */
#include <rowkey/store.h>

#include <stdio.h>
#include <string.h>

static int fail(const char *what)
{
	fprintf(stderr, "embedded_store: %s: %s\n", what, rk_error_last());
	return 1;
}

#define TEXT(s) (const uint8_t *)(s), strlen(s)

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: embedded_store DIR\n");
		return 2;
	}
	rk_store_options opts = RK_STORE_OPTIONS_INIT;
	opts.n_servers = 2;
	rk_store *store;
	if (rk_store_open(&store, argv[1], &opts))
		return fail("open");

	/* a table with one family and a split point at "m": two regions */
	rk_family_def fam = {.name = "d", .max_versions = 3};
	rk_bytes split = {TEXT("m")};
	rk_table_def def = {"users", &fam, 1, &split, 1, 0};
	int rc = rk_table_create(store, &def);
	if (rc && rc != RK_EEXISTS)
		return fail("create");

	rk_table *t;
	if (rk_table_open(&t, store, "users"))
		return fail("table");
	const char *names[] = {"alice", "bob", "mallory", "zoe"};
	for (size_t i = 0; i < 4; i++)
		if (rk_table_put(t, TEXT(names[i]), "d", TEXT("email"), 0, TEXT(names[i])))
			return fail("put");

	rk_row *row;
	if (rk_table_get(&row, t, TEXT("bob"), NULL))
		return fail("get");
	printf("get bob: %.*s\n", (int)row->cells[0].value_len, (const char *)row->cells[0].value);
	rk_row_free(row);

	/* a scan reads the rows of both regions in key order */
	rk_scan_options so = RK_SCAN_OPTIONS_INIT;
	rk_scan *scan;
	const rk_row *r;
	if (rk_scan_open(&scan, t, &so))
		return fail("scan");
	printf("scan:");
	while ((rc = rk_scan_next(&r, scan)) == 0)
		printf(" %.*s", (int)r->key_len, (const char *)r->key);
	printf("\n");
	rk_scan_close(scan);
	if (rc != RK_EITEROVER)
		return fail("scan");
	rk_table_close(t);

	rk_region_info *regions;
	size_t n;
	if (rk_store_regions(&regions, &n, store, "users"))
		return fail("regions");
	printf("regions: %zu\n", n);
	rk_region_info_free(regions, n);

	if (rk_store_close(store))
		return fail("close");
	return 0;
}
