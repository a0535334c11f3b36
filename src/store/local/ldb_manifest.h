/*
 * LevelDB's MANIFEST (the file CURRENT names), read by rowkey's own code for
 * the one thing the store checks against it: which write-ahead logs LevelDB
 * still needs. A MANIFEST is a log (ldb_log.h) of VersionEdit records
 * (LevelDB's db/version_edit.cc): tagged fields, varint-coded,
 *   1 comparator name      (length-prefixed)
 *   2 log number           (varint64)   logs below it are replayed no more
 *   3 next file number     (varint64)
 *   4 last sequence        (varint64)
 *   5 compact pointer      (varint32 level, length-prefixed key)
 *   6 deleted file         (varint32 level, varint64 number)
 *   7 new file             (varint32 level, varint64 number, varint64 size,
 *                           length-prefixed smallest and largest keys)
 *   9 previous log number  (varint64)
 * The last record that sets a field wins, as LevelDB's recovery reads it.
 */
#ifndef RK_LOCAL_LDB_MANIFEST_H
#define RK_LOCAL_LDB_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

typedef struct rk__ldb_manifest {
	uint64_t log_number;  /* 0: never set */
	uint64_t prev_log;    /* 0: never set */
	uint64_t edits;       /* VersionEdit records read */
} rk__ldb_manifest;

/* Reads a MANIFEST held in memory (p[0..n)). RK_ECORRUPT with the reason in
 * why[0..cap) when a record does not parse or the file is damaged before
 * its end (a tail cut short by a crash is not damage: LevelDB ignores it
 * too); RK_ENOMEM (why says so) when a record fragmented across blocks
 * cannot be held. Never reads outside p[0..n). */
int rk_ldb__read_manifest(rk__ldb_manifest *out, const uint8_t *p, size_t n, char *why, size_t cap);

#endif
