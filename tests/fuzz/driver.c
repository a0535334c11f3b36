/*
 * Plain fuzz driver: lets every libFuzzer target build and run under gcc as an
 * ordinary test. It replays each file of the corpus directory given on the
 * command line, then a fixed number of seeded mutations of them (bit flips,
 * byte inserts and deletes, truncations, splices), so the suite exercises the
 * target's error paths on every build. It is no substitute for coverage-guided
 * fuzzing (scripts/fuzz.sh runs libFuzzer with clang); it is the floor.
 *
 * Each input has a time limit (RK_FUZZ_INPUT_SECONDS, default 20: generous
 * for a loaded machine; libFuzzer's -timeout plays this part there): an
 * input that takes longer is a failure, like a crash, so a combinatorial
 * blow-up in a parser or the planner is caught as a timeout.
 */
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_INPUT 65536
#define MAX_FILES 4096

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static const char *current = "?"; /* what the input is, for the timeout message */
static char current_buf[64];

static void on_timeout(int sig)
{
	(void)sig;
	static const char msg[] = "fuzz driver: an input ran past its time limit (RK_FUZZ_INPUT_SECONDS): ";
	(void)!write(2, msg, sizeof msg - 1);
	(void)!write(2, current, strlen(current));
	(void)!write(2, "\n", 1);
	_exit(70);
}

static uint8_t *files[MAX_FILES];
static const char *names[MAX_FILES];
static size_t sizes[MAX_FILES];
static int nfiles;

static void load(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f || nfiles >= MAX_FILES)
		goto done;
	uint8_t *buf = malloc(MAX_INPUT);
	if (!buf)
		goto done;
	size_t n = fread(buf, 1, MAX_INPUT, f);
	names[nfiles] = strdup(path);
	files[nfiles] = buf;
	sizes[nfiles++] = n;
done:
	if (f)
		fclose(f);
}

int main(int argc, char **argv)
{
	long rounds = getenv("RK_FUZZ_ROUNDS") ? atol(getenv("RK_FUZZ_ROUNDS")) : 20000;
	unsigned limit = getenv("RK_FUZZ_INPUT_SECONDS") ? (unsigned)atoi(getenv("RK_FUZZ_INPUT_SECONDS")) : 20;
	signal(SIGALRM, on_timeout);
	for (int i = 1; i < argc; i++) {
		DIR *d = opendir(argv[i]);
		if (!d) {
			load(argv[i]);
			continue;
		}
		struct dirent *e;
		while ((e = readdir(d)) != NULL) {
			if (e->d_name[0] == '.')
				continue;
			char path[4096];
			snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
			load(path);
		}
		closedir(d);
	}
	if (nfiles == 0) {
		fprintf(stderr, "fuzz driver: no corpus files under the given paths\n");
		return 1;
	}
	for (int i = 0; i < nfiles; i++) {
		current = names[i] ? names[i] : "?";
		alarm(limit);
		LLVMFuzzerTestOneInput(files[i], sizes[i]);
		alarm(0);
	}
	uint8_t *buf = malloc(MAX_INPUT);
	for (long r = 0; r < rounds; r++) {
		int k = (int)(rng() % (uint64_t)nfiles);
		size_t n = sizes[k];
		memcpy(buf, files[k], n);
		int edits = 1 + (int)(rng() % 4);
		for (int e = 0; e < edits; e++) {
			switch (rng() % 5) {
			case 0: /* flip a bit */
				if (n)
					buf[rng() % n] ^= (uint8_t)(1u << (rng() % 8));
				break;
			case 1: /* random byte */
				if (n)
					buf[rng() % n] = (uint8_t)rng();
				break;
			case 2: /* insert a byte */
				if (n < MAX_INPUT) {
					size_t at = n ? rng() % (n + 1) : 0;
					memmove(buf + at + 1, buf + at, n - at);
					buf[at] = (uint8_t)rng();
					n++;
				}
				break;
			case 3: /* delete a byte */
				if (n) {
					size_t at = rng() % n;
					memmove(buf + at, buf + at + 1, n - at - 1);
					n--;
				}
				break;
			default: /* truncate */
				if (n)
					n = rng() % n;
				break;
			}
		}
		/* hand the target an exact-size copy so ASan sees overreads */
		uint8_t *exact = malloc(n ? n : 1);
		memcpy(exact, buf, n);
		snprintf(current_buf, sizeof current_buf, "mutation %ld of %s", r, names[k] ? names[k] : "?");
		current = current_buf;
		alarm(limit);
		LLVMFuzzerTestOneInput(exact, n);
		alarm(0);
		free(exact);
	}
	free(buf);
	for (int i = 0; i < nfiles; i++) {
		free(files[i]);
		free((void *)names[i]);
	}
	printf("fuzz driver: %d corpus files, %ld mutations, no crash\n", nfiles, rounds);
	return 0;
}
