/*
 * Per-thread error messages. Each thread keeps one message buffer; a failing
 * call overwrites it. Messages say what failed, where and why; codes stay few.
 * This file holds the buffer, so only rowkey-key links it: every other part
 * sets messages through the public rk_error_set/rk_error_wrap (key/error.h).
 */
#include "key/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define RK_ERRMSG_MAX 1024

static _Thread_local char errmsg[RK_ERRMSG_MAX];

const char *rk_error_last(void)
{
	return errmsg[0] ? errmsg : "no error";
}

const char *rk_strerror(int code)
{
	switch (code) {
	case RK_OK: return "ok";
	case RK_ENOTFOUND: return "not found";
	case RK_EEXISTS: return "already exists";
	case RK_EINVALID: return "invalid";
	case RK_ETOOLONG: return "too long";
	case RK_ECORRUPT: return "corrupt";
	case RK_EBUSY: return "busy";
	case RK_EIO: return "i/o error";
	case RK_ENOMEM: return "out of memory";
	case RK_EITEROVER: return "no more items";
	default: return "unknown error";
	}
}

int rk_error_set(int code, const char *fmt, ...)
{
	/* format aside first: callers may pass rk_error_last() as an argument */
	char buf[RK_ERRMSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	memcpy(errmsg, buf, sizeof errmsg);
	return code;
}

int rk_error_wrap(int code, const char *fmt, ...)
{
	char prefix[RK_ERRMSG_MAX], old[RK_ERRMSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof prefix, fmt, ap);
	va_end(ap);
	memcpy(old, errmsg, sizeof old);
	size_t n = strlen(prefix);
	if (n > sizeof errmsg - 3)
		n = sizeof errmsg - 3;
	memcpy(errmsg, prefix, n);
	memcpy(errmsg + n, ": ", 2);
	size_t rest = sizeof errmsg - n - 3;
	size_t m = strnlen(old, rest);
	memcpy(errmsg + n + 2, old, m);
	errmsg[n + 2 + m] = 0;
	return code;
}
