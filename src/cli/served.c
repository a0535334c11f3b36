/*
 * Who serves a store: its SERVING note (served.h).
 */
#include "cli/served.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rk_cli__served(const char *dir, long *pid, char *listen, size_t cap)
{
	char path[4200], line[256];
	snprintf(path, sizeof path, "%s/SERVING", dir);
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	int ok = fgets(line, sizeof line, f) && strncmp(line, "rowkey-serving 1", 16) == 0;
	*pid = 0;
	listen[0] = 0;
	while (ok && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		if (strncmp(line, "pid ", 4) == 0)
			*pid = strtol(line + 4, NULL, 10);
		else if (strncmp(line, "listen ", 7) == 0)
			snprintf(listen, cap, "%.200s", line + 7);
	}
	fclose(f);
	if (!ok || !listen[0])
		return 0;
	/* a note left by a killed server: the lock is free, the store opens */
	rk_store_options o = RK_STORE_OPTIONS_INIT;
	o.create_if_missing = 0;
	o.background_splits = 0;
	rk_store *s;
	int rc = rk_store_open(&s, dir, &o);
	if (rc == 0) {
		rk_store_close(s);
		return 0;
	}
	return rc == RK_EBUSY;
}

int rk_cli__served_admin(const char *dir, char *admin, size_t cap)
{
	long pid;
	char listen[256], path[4200], line[300];
	if (!rk_cli__served(dir, &pid, listen, sizeof listen))
		return 0;
	snprintf(path, sizeof path, "%s/SERVING", dir);
	FILE *f = fopen(path, "r");
	admin[0] = 0;
	while (f && fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = 0;
		if (strncmp(line, "admin ", 6) == 0)
			snprintf(admin, cap, "%.200s", line + 6);
	}
	if (f)
		fclose(f);
	return admin[0] != 0;
}
