/* CRC-32 and CRC-32C, reflected, one table each, filled once (crc.h). */
#include "store/local/crc.h"

#include <pthread.h>

static uint32_t table32[256], table32c[256];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void fill(uint32_t *table, uint32_t poly)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? poly ^ (c >> 1) : c >> 1;
		table[i] = c;
	}
}

static void init(void)
{
	fill(table32, 0xEDB88320u);
	fill(table32c, 0x82F63B78u);
}

static uint32_t crc(const uint32_t *table, const uint8_t *p, size_t n)
{
	pthread_once(&once, init); /* two first callers must not both fill the tables */
	uint32_t c = 0xFFFFFFFFu;
	for (size_t i = 0; i < n; i++)
		c = table[(c ^ p[i]) & 0xFF] ^ (c >> 8);
	return c ^ 0xFFFFFFFFu;
}

uint32_t rk_crc__32(const uint8_t *p, size_t n)
{
	return crc(table32, p, n);
}

uint32_t rk_crc__32c(const uint8_t *p, size_t n)
{
	return crc(table32c, p, n);
}
