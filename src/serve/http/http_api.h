/*
 * The JSON the live page reads (http.h serves it): each answer is made
 * from one metrics record, so it knows nothing of the server. http.c
 * fetches the record and routes /api/tables and /api/heatmap here; the
 * fuzzer calls rk_http__heatmap with records of its own.
 */
#ifndef RK_SERVE_HTTP_API_H
#define RK_SERVE_HTTP_API_H

#include <stddef.h>

#include <rowkey/metrics.h>

/* A request's query argument (NULL when absent). */
typedef const char *(*rk_http_arg)(void *req, const char *name);

/* The JSON answers of record m (live: an open store's, its times reaching
 * now): *body malloc'd (the caller frees it), *len its bytes; the HTTP
 * status. A bad argument is 400 with {"error": "..."}. */
int rk_http__tables(char **body, size_t *len, const rk_metrics *m, int live);
int rk_http__heatmap(char **body, size_t *len, const rk_metrics *m, int live, rk_http_arg arg,
                     void *req);

/* A JSON error body {"error": msg}. */
int rk_http__error(char **body, size_t *len, int status, const char *msg);

#endif
