/*
 * Fuzz target for the MANIFEST reader (src/store/local/ldb_manifest.c),
 * which reads LevelDB's VersionEdit records before an engine opens to learn
 * which write-ahead logs LevelDB still needs. It must never crash or read
 * outside the input; a rejection says why.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "store/local/ldb_manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rk__ldb_manifest m;
	char why[128];
	int rc = rk_ldb__read_manifest(&m, data, size, why, sizeof why);
	if (rc != 0 && !why[0])
		abort();
	return 0;
}
