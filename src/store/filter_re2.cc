// RE2 behind filter_re2.h: the regex engine of the store's row filters.
#include "store/filter_re2.h"

#include <re2/re2.h>

#include <cstdio>
#include <new>

struct rk_re2 {
	RE2 re;
	rk_re2(const re2::StringPiece &p, const RE2::Options &o) : re(p, o) {}
};

extern "C" rk_re2 *rk_re2__compile(const uint8_t *pat, size_t len, char *err, size_t errcap)
{
	RE2::Options o;
	o.set_encoding(RE2::Options::EncodingLatin1);
	o.set_log_errors(false);
	o.set_max_mem(16 << 20); // a hostile pattern gets an error, not the machine
	rk_re2 *r = new (std::nothrow) rk_re2(
	        re2::StringPiece(reinterpret_cast<const char *>(pat), len), o);
	if (!r) {
		std::snprintf(err, errcap, "out of memory");
		return nullptr;
	}
	if (!r->re.ok()) {
		std::snprintf(err, errcap, "%s", r->re.error().c_str());
		delete r;
		return nullptr;
	}
	return r;
}

extern "C" int rk_re2__full_match(const rk_re2 *r, const uint8_t *s, size_t n)
{
	return RE2::FullMatch(re2::StringPiece(reinterpret_cast<const char *>(s), n), r->re) ? 1
	                                                                                      : 0;
}

extern "C" void rk_re2__free(rk_re2 *r)
{
	delete r;
}
