/*
 * Hash functions for key spreading (see hash.h).
 *
 * MD5 / SHA-1 / SHA-256 use OpenSSL's low-level functions (MD5_Init /
 * Update / Final and the like), deprecated in OpenSSL 3 but present and fastest: keys
 * hash a few bytes, and per call the EVP route (init + update + final on a
 * reused context, digest fetched once) measured 1.6x the digest itself on
 * 16-byte inputs under callgrind (1534 vs 958 instructions), while a fetch
 * per call costs about 3x. Contexts live on the stack, so hashing is
 * thread-safe without per-thread state.
 */
#define OPENSSL_SUPPRESS_DEPRECATED
#include "key/hash.h"

#include <openssl/md5.h>
#include <openssl/sha.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#include "key/error.h"

static const struct {
	const char *name;
	rk_hash_alg alg;
	size_t size;
} algs[] = {
	{"md5", RK_HASH_MD5, 16},         {"sha1", RK_HASH_SHA1, 20},
	{"sha256", RK_HASH_SHA256, 32},   {"xxh3", RK_HASH_XXH3, 8},
	{"murmur3", RK_HASH_MURMUR3, 4},  {"phoenix31", RK_HASH_PHOENIX, 4},
};

rk_hash_alg rk_hash__by_name(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof algs / sizeof algs[0]; i++)
		if (strlen(algs[i].name) == len && !memcmp(algs[i].name, name, len))
			return algs[i].alg;
	return 0;
}

const char *rk_hash__name(rk_hash_alg alg)
{
	for (size_t i = 0; i < sizeof algs / sizeof algs[0]; i++)
		if (algs[i].alg == alg)
			return algs[i].name;
	return "?";
}

size_t rk_hash__size(rk_hash_alg alg)
{
	switch (alg) {
	case RK_HASH_MD5: return 16;
	case RK_HASH_SHA1: return 20;
	case RK_HASH_SHA256: return 32;
	case RK_HASH_XXH3: return 8;
	case RK_HASH_MURMUR3: return 4;
	case RK_HASH_PHOENIX: return 4;
	}
	return 0;
}

int32_t rk_hash__phoenix(const uint8_t *in, size_t n)
{
	uint32_t h = 1; /* unsigned arithmetic: Java's int overflow wraps the same way */
	for (size_t i = 0; i < n; i++)
		h = 31 * h + (uint32_t)(int32_t)(int8_t)in[i];
	return (int32_t)h;
}

/* Java's Math.abs(h % n) on a signed int: % truncates, so the remainder has
 * h's sign, and its absolute value is below n for every h (-2^31 included). */
static unsigned java_abs_mod(int32_t h, unsigned n)
{
	int32_t m = h % (int32_t)n;
	return (unsigned)(m < 0 ? -m : m);
}

unsigned rk_hash__phoenix_salt(const uint8_t *rest, size_t n, unsigned buckets)
{
	return java_abs_mod(rk_hash__phoenix(rest, n), buckets);
}

static uint32_t rotl32(uint32_t x, int r)
{
	return (x << r) | (x >> (32 - r));
}

uint32_t rk_hash__murmur3_32(const uint8_t *in, size_t n, uint32_t seed)
{
	const uint32_t c1 = 0xcc9e2d51, c2 = 0x1b873593;
	uint32_t h = seed;
	size_t nblocks = n / 4;
	for (size_t i = 0; i < nblocks; i++) {
		const uint8_t *b = in + 4 * i;
		uint32_t k = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
		k *= c1;
		k = rotl32(k, 15);
		k *= c2;
		h ^= k;
		h = rotl32(h, 13);
		h = h * 5 + 0xe6546b64;
	}
	const uint8_t *tail = in + 4 * nblocks;
	uint32_t k = 0;
	switch (n & 3) {
	case 3: k ^= (uint32_t)tail[2] << 16; /* fall through */
	case 2: k ^= (uint32_t)tail[1] << 8;  /* fall through */
	case 1:
		k ^= tail[0];
		k *= c1;
		k = rotl32(k, 15);
		k *= c2;
		h ^= k;
	}
	h ^= (uint32_t)n;
	h ^= h >> 16;
	h *= 0x85ebca6b;
	h ^= h >> 13;
	h *= 0xc2b2ae35;
	h ^= h >> 16;
	return h;
}

static void put_be(uint8_t *out, uint64_t v, int width)
{
	for (int i = width - 1; i >= 0; i--, v >>= 8)
		out[i] = (uint8_t)v;
}

int rk_hash__digest(uint8_t *out, rk_hash_alg alg, const uint8_t *in, size_t n)
{
	switch (alg) {
	/* Init/Update/Final on a stack context: the one-shot MD5() also wipes its
	   context (OPENSSL_cleanse), 13% of the digest's cost; a key hash is no secret */
	case RK_HASH_MD5: {
		MD5_CTX c;
		MD5_Init(&c);
		MD5_Update(&c, in, n);
		MD5_Final(out, &c);
		return 0;
	}
	case RK_HASH_SHA1: {
		SHA_CTX c;
		SHA1_Init(&c);
		SHA1_Update(&c, in, n);
		SHA1_Final(out, &c);
		return 0;
	}
	case RK_HASH_SHA256: {
		SHA256_CTX c;
		SHA256_Init(&c);
		SHA256_Update(&c, in, n);
		SHA256_Final(out, &c);
		return 0;
	}
	case RK_HASH_XXH3:
		put_be(out, XXH3_64bits(in, n), 8);
		return 0;
	case RK_HASH_MURMUR3:
		put_be(out, rk_hash__murmur3_32(in, n, 0), 4);
		return 0;
	case RK_HASH_PHOENIX:
		put_be(out, (uint32_t)rk_hash__phoenix(in, n), 4);
		return 0;
	}
	return rk__err(RK_EINVALID, "unknown hash algorithm %d", (int)alg);
}

unsigned rk_hash__bucket_of(rk_hash_alg alg, const uint8_t *in, size_t len, unsigned n)
{
	/* the 64-bit and 32-bit hashes straight from their value: no digest bytes */
	switch (alg) {
	case RK_HASH_XXH3: return (unsigned)(XXH3_64bits(in, len) % n);
	case RK_HASH_MURMUR3: return rk_hash__murmur3_32(in, len, 0) % n;
	default: {
		uint8_t d[RK_HASH_MAX_SIZE];
		rk_hash__digest(d, alg, in, len);
		return rk_hash__bucket(alg, d, n);
	}
	}
}

unsigned rk_hash__bucket(rk_hash_alg alg, const uint8_t *digest, unsigned n)
{
	if (alg == RK_HASH_PHOENIX) {
		int32_t v = (int32_t)((uint32_t)digest[0] << 24 | (uint32_t)digest[1] << 16 |
		                      (uint32_t)digest[2] << 8 | digest[3]);
		return java_abs_mod(v, n);
	}
	size_t w = rk_hash__size(alg) < 8 ? rk_hash__size(alg) : 8;
	uint64_t v = 0;
	for (size_t i = 0; i < w; i++)
		v = (v << 8) | digest[i];
	return (unsigned)(v % n);
}
