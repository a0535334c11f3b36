/*
 * Hash functions for key spreading: MD5, SHA-1, SHA-256 (OpenSSL libcrypto),
 * XXH3-64 (libxxhash), MurmurHash3
 * x86_32 and Phoenix's 31-based byte hash. Each produces a fixed-size digest
 * (the byte string a key embeds) and a bucket number (digest mod N).
 * Layouts and the bucket rule per hash are in docs/formats.md.
 */
#ifndef RK_KEY_HASH_H
#define RK_KEY_HASH_H

#include <stddef.h>
#include <stdint.h>

/* Frozen: names and numbers appear in describe output. */
typedef enum rk_hash_alg {
	RK_HASH_MD5 = 1,
	RK_HASH_SHA1 = 2,
	RK_HASH_SHA256 = 3,
	RK_HASH_XXH3 = 4,
	RK_HASH_MURMUR3 = 5,
	RK_HASH_PHOENIX = 6
} rk_hash_alg;

#define RK_HASH_MAX_SIZE 32

/* Parses a hash name ("md5", "xxh3", ...); returns 0 when unknown. */
rk_hash_alg rk_hash__by_name(const char *name, size_t len);
const char *rk_hash__name(rk_hash_alg alg);
size_t rk_hash__size(rk_hash_alg alg);

/* Writes rk_hash__size(alg) bytes of digest to out. */
int rk_hash__digest(uint8_t *out, rk_hash_alg alg, const uint8_t *in, size_t n);

/* The bucket in [0, n) for a digest of alg (see docs/formats.md). */
unsigned rk_hash__bucket(rk_hash_alg alg, const uint8_t *digest, unsigned n);

/* The same bucket, hashing `in` directly (faster for xxh3 and murmur3). */
unsigned rk_hash__bucket_of(rk_hash_alg alg, const uint8_t *in, size_t len, unsigned n);

/* Phoenix's hash: h = 1; h = 31*h + (signed char)b, in 32-bit two's complement. */
int32_t rk_hash__phoenix(const uint8_t *in, size_t n);

/* The Phoenix salt byte of a key whose bytes after the salt are `rest`:
 * Java's Math.abs(phoenix31(rest) % buckets) (formats.md A.7.3). */
unsigned rk_hash__phoenix_salt(const uint8_t *rest, size_t n, unsigned buckets);

/* MurmurHash3_x86_32 with the given seed. */
uint32_t rk_hash__murmur3_32(const uint8_t *in, size_t n, uint32_t seed);

#endif
