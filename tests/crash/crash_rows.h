/*
 * The rows of the crash and power-cut tests: row i's 17-byte name spreads
 * rows over the key space (so every region and server takes writes) and
 * ends in i; its 100-byte value is a function of i. Header-only.
 */
#ifndef RK_CRASH_ROWS_H
#define RK_CRASH_ROWS_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static inline void row_name(char *buf, uint64_t i)
{
	snprintf(buf, 24, "%08llx-%08llu", (unsigned long long)((i * 2654435761u) & 0xffffffffu),
	         (unsigned long long)(i % 100000000u));
}

static inline void value_of(char *buf, uint64_t i)
{
	memset(buf, 'a' + (int)(i % 26), 100);
	snprintf(buf, 40, "value-%llu", (unsigned long long)i);
}

#endif
