/*
 * engine_files.c: the engine's files read beside LevelDB (see there).
 */
#ifndef RK_LOCAL_ENGINE_FILES_H
#define RK_LOCAL_ENGINE_FILES_H

#include <stddef.h>
#include <stdint.h>

#include "store/local/engine.h"

/* Reads a whole file (what is there, should it shrink meanwhile) into *out
 * (malloc'd, the caller frees); 0, or -1 with errno. */
int rk_engine__slurp(uint8_t **out, size_t *len, const char *path);

/* Scans the logs of the engine directory `dir` before LevelDB replays them
 * (a directory not yet made has none); see rk__engine_options.repair. */
int rk_engine__check_logs(const char *dir, const rk__engine_options *o);

/* The numbers of the write-ahead logs (NUMBER.log) in `dir`, in increasing
 * order, into *out (malloc'd, the caller frees; none for a directory not
 * yet made). */
int rk_engine__list_logs(const char *dir, uint64_t **out, size_t *n);

/* Checks the logs the engine recorded it expects (engine_wals.c,
 * formats.md B.5) before LevelDB replays them: a lost one refuses the open
 * (RK_ECORRUPT naming it), or with o->repair is accepted and reported. */
int rk_engine__check_wals(const char *dir, const rk__engine_options *o);

#endif
