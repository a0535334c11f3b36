/*
 * A file replaced whole and durably, the one way the local store rewrites
 * its small files (META, an engine's WALS, a repaired log): the new bytes go
 * to NAME.tmp, are fsynced, renamed over NAME, and the directory is fsynced,
 * so a crash leaves the old file or the new one, never a mix.
 */
#ifndef RK_LOCAL_DURABLE_H
#define RK_LOCAL_DURABLE_H

#include <stddef.h>
#include <stdint.h>

/* Replaces dir/name by buf[0..len). 0, or RK_EIO naming the file and the
 * step that failed (NAME.tmp removed). sync_dir 0 skips the directory's
 * fsync, for a file whose older version is as good after a crash (the
 * rename may then be lost, never half done). */
int rk_local__replace_file(const char *dir, const char *name, const uint8_t *buf, size_t len,
                           int sync_dir);

#endif
