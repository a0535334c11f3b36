/*
 * The store API on Bigtable: the same calls as the embedded store, on
 * "bigtable://PROJECT/INSTANCE". With BIGTABLE_EMULATOR_HOST set they go to
 * that emulator (or to `rowkey serve`); otherwise to Cloud Bigtable with
 * Application Default Credentials.
 *
 *   cc bigtable.c $(pkg-config --cflags --libs rowkey-bigtable) -o bigtable
 *   gcloud beta emulators bigtable start --host-port=127.0.0.1:8086 &
 *   BIGTABLE_EMULATOR_HOST=127.0.0.1:8086 ./bigtable bigtable://my-project/my-instance
 */
#include <rowkey/bigtable.h>

#include <stdio.h>
#include <string.h>

static int fail(const char *what)
{
	fprintf(stderr, "bigtable: %s: %s\n", what, rk_error_last());
	return 1;
}

#define TEXT(s) (const uint8_t *)(s), strlen(s)

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: bigtable bigtable://PROJECT/INSTANCE\n");
		return 2;
	}
	rk_bigtable_register(); /* rk_store_open now takes bigtable:// names */
	rk_store *store;
	if (rk_store_open(&store, argv[1], NULL))
		return fail("open");

	/* initial splits become the table's first tablets */
	rk_family_def fam = {.name = "cf", .max_versions = 1};
	rk_bytes split = {TEXT("m")};
	rk_table_def def = {"greetings", &fam, 1, &split, 1, 0};
	rk_table *t;
	if (rk_table_create(store, &def) || rk_table_open(&t, store, "greetings"))
		return fail("table");
	const char *rows[] = {"greeting#0", "greeting#1", "zz-last"};
	for (size_t i = 0; i < 3; i++)
		if (rk_table_put(t, TEXT(rows[i]), "cf", TEXT("text"), 0, TEXT("Hello World!")))
			return fail("put");

	rk_scan_options so = RK_SCAN_OPTIONS_INIT;
	rk_scan *scan;
	const rk_row *r;
	int rc;
	if (rk_scan_open(&scan, t, &so))
		return fail("scan");
	while ((rc = rk_scan_next(&r, scan)) == 0)
		printf("%.*s\tcf:text\t%.*s\n", (int)r->key_len, (const char *)r->key,
		       (int)r->cells[0].value_len, (const char *)r->cells[0].value);
	rk_scan_close(scan);
	if (rc != RK_EITEROVER)
		return fail("scan");
	rk_table_close(t);

	rk_region_info *tablets;
	size_t n;
	if (rk_store_regions(&tablets, &n, store, "greetings"))
		return fail("tablets");
	printf("tablets: %zu\n", n);
	rk_region_info_free(tablets, n);

	if (rk_table_drop(store, "greetings"))
		return fail("drop");
	return rk_store_close(store) ? fail("close") : 0;
}
