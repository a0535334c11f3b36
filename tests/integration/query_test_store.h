/*
 * The store the query tests read: a fresh directory under /tmp with a
 * three-server store, asynchronous durability (the tests never crash it)
 * and no background splits (the tests split when they mean to), opened by
 * the group setup and closed and removed by its teardown. Also the
 * tests' xorshift generator, seeded by each file for its own draws.
 */
#ifndef RK_QUERY_TEST_STORE_H
#define RK_QUERY_TEST_STORE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <rowkey/store.h>

static char qt_dir[] = "/tmp/rk_query_XXXXXX";
static rk_store *store;
static uint64_t rs; /* each test file seeds it */

static uint64_t rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(qt_dir))
		return -1;
	rk_store_options o = RK_STORE_OPTIONS_INIT;
	o.durability = RK_DURABILITY_ASYNC;
	o.n_servers = 3;
	o.background_splits = 0;
	return rk_store_open(&store, qt_dir, &o);
}

static int teardown(void **state)
{
	(void)state;
	rk_store_close(store);
	char cmd[256];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", qt_dir);
	return system(cmd);
}

#endif
