/*
 * LevelDB's write-ahead log files (NUMBER.log), read by rowkey's own code
 * before an engine opens, to tell a torn tail (the last record cut short by
 * a crash: expected, its write was never acknowledged) from damage in the
 * middle (records LevelDB would skip while replaying later ones, dropping
 * acknowledged writes without a word). The format is LevelDB's
 * doc/log_format.md: 32 KiB blocks of physical records
 *   crc:u32le (masked CRC-32C of type and data) length:u16le type:u8 data
 * type 1 FULL, 2 FIRST, 3 MIDDLE, 4 LAST; a block's last < 7 bytes are
 * zero padding. Where a record does not check out, the scan resynchronises
 * at the next offset where an intact record starts (LevelDB's reader skips
 * the rest of the block instead), so it finds every intact record.
 */
#ifndef RK_LOCAL_LDB_LOG_H
#define RK_LOCAL_LDB_LOG_H

#include <stddef.h>
#include <stdint.h>

typedef struct rk__ldb_log_scan {
	uint64_t records;      /* intact complete logical records */
	uint64_t good_end;     /* offset just past the last complete record (0: none) */
	/* damage before good_end (what a replay would skip while replaying later
	 * records): the first damaged offset and what is wrong there, the
	 * damaged bytes in all and the complete records after the first damage */
	int middle_damage;
	uint64_t first_bad;
	char why[160];
	uint64_t dropped_bytes;
	uint64_t records_after;
	/* damage after good_end (no complete record follows it), its first
	 * offset and what is wrong there. A crash leaves a tail cut short, or
	 * (writes that reached the disk out of order) a hole of zeros with
	 * fragments after it: tail_hard is 0 then. A checksum mismatch, a bad
	 * length or an unknown type in a record that is all there is damage to
	 * written bytes, not a torn write: tail_hard is 1. */
	int tail_damage, tail_hard;
	uint64_t tail_off;
	char tail_why[160];
} rk__ldb_log_scan;

/* Scans one log file held in memory (p, n: the whole file). Never fails,
 * never reads outside p[0..n). */
void rk_ldb__scan_log(rk__ldb_log_scan *out, const uint8_t *p, size_t n);

/* The same walk over any file in LevelDB's log format (a MANIFEST too):
 * each(data, length, payload) for every intact complete record in file
 * order, whatever its size (a record fragmented across 32 KiB blocks is
 * handed on whole); *s says what was damaged. 0, or RK_ENOMEM when a
 * fragmented record could not be held (it and the records after it were
 * not handed on). */
int rk_ldb__log_records(rk__ldb_log_scan *s, const uint8_t *p, size_t n,
                        void (*each)(const uint8_t *d, size_t len, void *payload), void *payload);

/* The same scan (*s), and a new log image holding every intact complete
 * record of p[0..n) in order, written as LevelDB's log::Writer writes them:
 * what a repair keeps. The caller frees *out. 0 or RK_ENOMEM. */
int rk_ldb__salvage_log(uint8_t **out, size_t *outlen, rk__ldb_log_scan *s, const uint8_t *p,
                        size_t n);

#endif
