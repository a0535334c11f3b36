/*
 * The two table-driven CRCs the local store checks files with: CRC-32 (the
 * zlib polynomial) over the META file, and CRC-32C (Castagnoli) as LevelDB
 * uses it in its table files. Plain values, no masking.
 */
#ifndef RK_LOCAL_CRC_H
#define RK_LOCAL_CRC_H

#include <stddef.h>
#include <stdint.h>

/* CRC-32 (zlib's crc32) of p[0..n). */
uint32_t rk_crc__32(const uint8_t *p, size_t n);

/* CRC-32C of p[0..n), as LevelDB's crc32c::Value. */
uint32_t rk_crc__32c(const uint8_t *p, size_t n);

#endif
