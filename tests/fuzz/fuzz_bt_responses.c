/*
 * Fuzz target: the Bigtable client's decoding of what a server answers to
 * GetTable (a Table: the column families), ListTables (table ids, page
 * token), SampleRowKeys (one sample) and MutateRows (per-entry statuses).
 * The first byte picks the response kind, the rest is the message. A hostile
 * server may make a call fail, never crash the client, leak, or make it
 * write outside the request's entries.
 */
#include <stdlib.h>
#include <string.h>

#include "store/bigtable/bt_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct seen {
	size_t n;
	unsigned char *hit;
} seen;

static void entry(void *arg, size_t index, int code, const char *message)
{
	seen *s = arg;
	if (index >= s->n)
		abort(); /* an index the request did not have reached the caller */
	s->hit[index] = 1;
	if (code && message)
		(void)strlen(message);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	const uint8_t *m = data + 2;
	size_t ml = size - 2;
	switch (data[0] % 4) {
	case 0: {
		rk_bt_family *f = NULL;
		size_t n = 0;
		if (rk_bt__families_from_table(&f, &n, m, ml, "fuzz") == 0) {
			for (size_t i = 1; i < n; i++)
				if (strcmp(f[i - 1].name, f[i].name) >= 0)
					abort(); /* sorted, no duplicates */
			rk_bt__families_free(f, n);
		}
		break;
	}
	case 1: {
		char **v = NULL, *token = strdup("");
		size_t n = 0;
		if (!token)
			return 0;
		int rc = rk_bt__table_ids_from_list(&v, &n, &token, m, ml, "projects/p/instances/i",
		                                    "fuzz");
		if (v) {
			if (rc == 0 && v[n] != NULL)
				abort(); /* NULL-terminated */
			rk_bt__strv_free(v);
		}
		free(token);
		break;
	}
	case 2: {
		rk_bt_sample s = {0};
		if (rk_bt__sample_from_response(&s, m, ml, 0, "fuzz") == 0) {
			if (s.key_len > RK_BT_MAX_KEY || s.offset_bytes < 0)
				abort();
			free(s.key);
		}
		break;
	}
	default: {
		seen s = {1 + data[1] % 64, NULL};
		s.hit = calloc(s.n, 1);
		if (!s.hit)
			return 0;
		rk_bt__mutate_rows_entries(m, ml, s.n, entry, &s);
		free(s.hit);
	}
	}
	return 0;
}
