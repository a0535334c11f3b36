/*
 * What the benchmarks share: the process's CPU time and the median of a
 * few rounds (a round disturbed by the other work of a shared machine
 * moves it less than a mean).
 */
#ifndef RK_BENCH_UTIL_H
#define RK_BENCH_UTIL_H

#include <stdlib.h>
#include <sys/resource.h>

/* CPU seconds this process (every thread: clients, writers, LevelDB's
 * background thread) has used so far. */
static inline double rk_bench_cpu_s(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static inline int rk_bench_dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The median of v[0..n) (n > 0); v is sorted in place. */
static inline double rk_bench_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, rk_bench_dbl_cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#endif
