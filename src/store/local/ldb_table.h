/*
 * LevelDB's table files (.ldb), read by rowkey's own code for one purpose:
 * to tell which file of an engine is damaged, and where. LevelDB's C API
 * reports a failed checksum without naming the file; `rowkey check` and the
 * engine's read errors name it with this verifier. The format is LevelDB's
 * doc/table_format.md (what is verified: docs/store.md, "What check
 * verifies"). Nothing here writes a table or reads a key for the store.
 */
#ifndef RK_LOCAL_LDB_TABLE_H
#define RK_LOCAL_LDB_TABLE_H

#include <stddef.h>
#include <stdint.h>

/* Verifies one table file held in memory (p, n: the whole file): footer
 * magic, every block handle inside the file, every block's checksum (data,
 * filter, metaindex, index), and that the index and metaindex blocks parse.
 * Returns 0, or RK_ECORRUPT with the first problem written to why[0..cap)
 * naming the block and its byte offset (plus how many more data blocks are
 * bad). Bytes are untrusted: never reads outside p[0..n). */
int rk_ldb__verify_table(const uint8_t *p, size_t n, char *why, size_t cap);

/* For fuzzing and tests: walks the table as rk_ldb__verify_table does but
 * sets every block checksum it meets to the right value (in place) instead
 * of checking it, so mutated bytes reach the block parsers. RK_ECORRUPT when
 * the structure itself does not parse. */
int rk_ldb__fix_table_crcs(uint8_t *p, size_t n);

/* Decompresses a Snappy block (LevelDB's compression type 1) into a new
 * buffer the caller frees. RK_ECORRUPT on malformed input, RK_ENOMEM. */
int rk_ldb__snappy_uncompress(uint8_t **out, size_t *outlen, const uint8_t *p, size_t n);

#endif
