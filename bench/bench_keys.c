/*
 * bench_keys: key-encoding throughput per design, on one core.
 *
 * Encodes N generated records (default 10,000,000) under each design through
 * the public API (rk_key_encode, caller-owned buffer, one encoder) and reports
 * keys/s and ns/key, next to the bare cost of the hashes the designs use,
 * measured in the same run: MD5 of 16 bytes through OpenSSL's low-level
 * MD5() and through a reused EVP context, and XXH3-64 of 16 bytes.
 *
 * Each figure is the best of ROUNDS (default 5, env RK_BENCH_ROUNDS) runs of
 * N/ROUNDS records: on a shared VM the same loop moves by 30% or more from
 * one run to the next, and the fastest run is the one least disturbed.
 *
 * usage: bench_keys [N] [--json FILE] [--design NAME]
 *
 * Wall-clock figures need an otherwise idle core; for a load-independent
 * figure run one design under callgrind and divide rk_key_encode's inclusive
 * instructions by N:
 *   valgrind --tool=callgrind --toggle-collect=rk_key_encode bench_keys 100000 --design NAME
 */
#define _GNU_SOURCE
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/evp.h>
#include <openssl/md5.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <xxhash.h>

#include <rowkey/key.h>

#define NREC (1 << 20) /* distinct records, cycled */

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static volatile uint64_t sink;

typedef struct {
	char date[8], time[8], kind[8];
	uint64_t id, user;
	int64_t ts;
} record;

static record *recs;

static void gen(void)
{
	recs = malloc(NREC * sizeof *recs);
	uint64_t x = 12345;
	for (size_t i = 0; i < NREC; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		int64_t ts = 1686465031000LL + (int64_t)i * 37;
		int64_t sec = ts / 1000;
		snprintf(recs[i].date, sizeof recs[i].date, "23%02d%02d", (int)(sec / 2592000 % 12) + 1,
		         (int)(sec / 86400 % 28) + 1);
		snprintf(recs[i].time, sizeof recs[i].time, "%02d%02d%02d", (int)(sec / 3600 % 24),
		         (int)(sec / 60 % 60), (int)(sec % 60));
		snprintf(recs[i].kind, sizeof recs[i].kind, "k%u", (unsigned)(x >> 60));
		recs[i].id = 1000000 + i;
		recs[i].user = (x >> 20) % 100000;
		recs[i].ts = ts;
	}
}

static const struct {
	const char *name;
	const char *schema;
} designs[] = {
	{"composite-text", "fields date:str, time:str, id:u64; key date \":\" time \":\" id"},
	{"composite-binary", "fields user:u64, ts:ts, kind:str; key u64(user) i64(ts) esc(kind)"},
	{"md5-hex-prefix", "fields date:str, time:str, id:u64; key HEX(md5(id)) \":\" date \":\" time \":\" id"},
	{"md5-6-prefix", "fields date:str, time:str, id:u64; key hex(md5(date time id))[0:6] date \":\" time \":\" id"},
	{"xxh3-bucket", "fields user:u64, ts:ts, kind:str; key bucket(16, xxh3(u64(user))) u64(user) i64(ts) esc(kind)"},
	{"salt-rts", "fields user:u64, ts:ts, kind:str; key roundrobin(8) u64(user) u64(rts(ts)) esc(kind)"},
	{"phoenix-salt", "fields user:u64, ts:ts, kind:str; key phoenix_salt(8) phoenix(kind) phoenix(user) phoenix(ts)"},
	{"reverse-domain", "fields date:str, time:str, id:u64; key reverse(date) \":\" time \":\" id"},
};

int main(int argc, char **argv)
{
	long n = 10000000;
	const char *json = NULL, *only = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json") && i + 1 < argc)
			json = argv[++i];
		else if (!strcmp(argv[i], "--design") && i + 1 < argc)
			only = argv[++i];
		else
			n = atol(argv[i]);
	}
	int rounds = getenv("RK_BENCH_ROUNDS") ? atoi(getenv("RK_BENCH_ROUNDS")) : 5;
	if (rounds < 1)
		rounds = 1;
	long per = n / rounds > 0 ? n / rounds : 1;
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof set, &set); /* one core */
	gen();

	/* bare hash costs, 16-byte inputs */
	uint8_t in[16] = "0123456789abcdef", dig[16];
	double t0, md5_ns = 1e30, evp_ns = 1e30, xxh_ns = 1e30;
	for (int r = 0; r < rounds; r++) {
		t0 = now();
		for (long i = 0; i < per; i++) {
			in[0] = (uint8_t)i;
			MD5(in, 16, dig);
			sink += dig[0];
		}
		double ns = (now() - t0) * 1e9 / (double)per;
		md5_ns = ns < md5_ns ? ns : md5_ns;
	}
	EVP_MD *md = EVP_MD_fetch(NULL, "MD5", NULL);
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	for (int r = 0; r < rounds; r++) {
		t0 = now();
		for (long i = 0; i < per; i++) {
			unsigned l;
			in[0] = (uint8_t)i;
			EVP_DigestInit_ex(ctx, md, NULL);
			EVP_DigestUpdate(ctx, in, 16);
			EVP_DigestFinal_ex(ctx, dig, &l);
			sink += dig[0];
		}
		double ns = (now() - t0) * 1e9 / (double)per;
		evp_ns = ns < evp_ns ? ns : evp_ns;
	}
	EVP_MD_CTX_free(ctx);
	EVP_MD_free(md);
	for (int r = 0; r < rounds; r++) {
		t0 = now();
		for (long i = 0; i < per; i++) {
			in[0] = (uint8_t)i;
			sink += XXH3_64bits(in, 16);
		}
		double ns = (now() - t0) * 1e9 / (double)per;
		xxh_ns = ns < xxh_ns ? ns : xxh_ns;
	}

	printf("records: %ld per design, best of %d rounds of %ld, one core (CPU 0)\n", per * rounds, rounds, per);
	printf("%-18s %12s %9s %s\n", "design", "keys/s", "ns/key", "ratio");
	printf("%-18s %12.0f %9.1f\n", "bare MD5() 16B", 1e9 / md5_ns, md5_ns);
	printf("%-18s %12.0f %9.1f\n", "bare EVP MD5 16B", 1e9 / evp_ns, evp_ns);
	printf("%-18s %12.0f %9.1f\n", "bare XXH3 16B", 1e9 / xxh_ns, xxh_ns);
	FILE *jf = json ? fopen(json, "w") : NULL;
	if (jf)
		fprintf(jf, "{\"records\":%ld,\"md5_ns\":%.2f,\"evp_md5_ns\":%.2f,\"xxh3_ns\":%.2f,\"designs\":[", n, md5_ns,
		        evp_ns, xxh_ns);

	for (size_t d = 0; d < sizeof designs / sizeof designs[0]; d++) {
		if (only && strcmp(only, designs[d].name))
			continue;
		rk_schema *s;
		rk_encoder *e;
		if (rk_schema_parse(&s, designs[d].schema, strlen(designs[d].schema), designs[d].name) ||
		    rk_encoder_new(&e, s, 1)) {
			fprintf(stderr, "bench_keys: %s\n", rk_error_last());
			return 1;
		}
		int fdate = rk_schema_field_index(s, "date", 4), ftime = rk_schema_field_index(s, "time", 4),
		    fid = rk_schema_field_index(s, "id", 2), fuser = rk_schema_field_index(s, "user", 4),
		    fts = rk_schema_field_index(s, "ts", 2), fkind = rk_schema_field_index(s, "kind", 4);
		rk_value v[8];
		memset(v, 0, sizeof v);
		uint8_t key[256];
		size_t klen, total = 0;
		double ns = 1e30;
		for (int round = 0; round < rounds; round++) {
		total = 0;
		t0 = now();
		for (long i = 0; i < per; i++) {
			const record *r = &recs[i & (NREC - 1)];
			if (fdate >= 0) {
				v[fdate] = (rk_value){.present = 1, .v.s = {(const uint8_t *)r->date, 6}};
				v[ftime] = (rk_value){.present = 1, .v.s = {(const uint8_t *)r->time, 6}};
				v[fid] = (rk_value){.present = 1, .v.u = r->id};
			} else {
				v[fuser] = (rk_value){.present = 1, .v.u = r->user};
				v[fts] = (rk_value){.present = 1, .v.i = r->ts};
				v[fkind] = (rk_value){.present = 1, .v.s = {(const uint8_t *)r->kind, strlen(r->kind)}};
			}
			if (rk_key_encode(key, sizeof key, &klen, e, v)) {
				fprintf(stderr, "bench_keys: %s: %s\n", designs[d].name, rk_error_last());
				return 1;
			}
			total += klen;
		}
		double rns = (now() - t0) * 1e9 / (double)per;
		ns = rns < ns ? rns : ns;
		}
		sink += total;
		const char *ratio_to = strstr(designs[d].name, "md5") ? "MD5()" : strstr(designs[d].name, "xxh3") ? "XXH3" : NULL;
		double ratio = ratio_to ? ns / (ratio_to[0] == 'M' ? md5_ns : xxh_ns) : 0;
		printf("%-18s %12.0f %9.1f", designs[d].name, 1e9 / ns, ns);
		if (ratio_to)
			printf(" %.2fx %s", ratio, ratio_to);
		printf("   (%.1f bytes/key)\n", (double)total / (double)per);
		if (jf)
			fprintf(jf, "%s{\"name\":\"%s\",\"ns_per_key\":%.2f,\"keys_per_s\":%.0f,\"bytes_per_key\":%.1f}",
			        d ? "," : "", designs[d].name, ns, 1e9 / ns, (double)total / (double)per);
		rk_encoder_free(e);
		rk_schema_free(s);
	}
	if (jf) {
		fprintf(jf, "]}\n");
		fclose(jf);
	}
	free(recs);
	return 0;
}
