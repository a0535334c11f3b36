/* The store directory's lock: see dirlock.h. */
#define _GNU_SOURCE /* F_OFD_SETLK */
#include "store/local/dirlock.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "key/error.h"

/* The directories this process holds: a short list (a process opens few
 * stores), guarded by its mutex. */
typedef struct held {
	unsigned long long dev, ino;
	struct held *next;
} held;

static pthread_mutex_t held_mu = PTHREAD_MUTEX_INITIALIZER;
static held *held_list;

static int lock_fd(int fd)
{
	struct flock fl;
	memset(&fl, 0, sizeof fl);
	fl.l_type = F_WRLCK;
	fl.l_whence = SEEK_SET;
#ifdef F_OFD_SETLK
	if (fcntl(fd, F_OFD_SETLK, &fl) == 0)
		return 0;
	if (errno != EINVAL)
		return -1;
	/* a kernel without OFD locks: the process-wide lock, which the
	 * registry still protects within this process */
#endif
	return fcntl(fd, F_SETLK, &fl);
}

int rk_dirlock__acquire(rk__dirlock *l, const char *dir)
{
	char path[4200];
	struct stat st;
	int rc = 0;
	l->fd = -1;
	if (stat(dir, &st))
		return rk__err(RK_EIO, "store %s: %s", dir, strerror(errno));
	l->dev = (unsigned long long)st.st_dev;
	l->ino = (unsigned long long)st.st_ino;
	held *h = malloc(sizeof *h);
	if (!h)
		return rk__err(RK_ENOMEM, "store %s: out of memory", dir);
	h->dev = l->dev;
	h->ino = l->ino;
	pthread_mutex_lock(&held_mu);
	for (held *p = held_list; p; p = p->next) {
		if (p->dev == l->dev && p->ino == l->ino) {
			pthread_mutex_unlock(&held_mu);
			free(h);
			return rk__err(RK_EBUSY, "store %s: already open in this process (close it first)",
			               dir);
		}
	}
	snprintf(path, sizeof path, "%s/LOCK", dir);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		rc = rk__err(RK_EIO, "store %s: cannot open %s: %s", dir, path, strerror(errno));
	} else if (lock_fd(fd)) {
		int e = errno;
		close(fd);
		fd = -1;
		if (e == EACCES || e == EAGAIN)
			rc = rk__err(RK_EBUSY, "store %s: in use by another process (%s is locked)", dir,
			             path);
		else
			rc = rk__err(RK_EIO, "store %s: cannot lock %s: %s", dir, path, strerror(e));
	}
	if (!rc) {
		h->next = held_list;
		held_list = h;
		h = NULL;
		l->fd = fd;
	}
	pthread_mutex_unlock(&held_mu);
	free(h);
	return rc;
}

void rk_dirlock__release(rk__dirlock *l)
{
	if (l->fd < 0)
		return;
	pthread_mutex_lock(&held_mu);
	for (held **pp = &held_list; *pp; pp = &(*pp)->next) {
		if ((*pp)->dev == l->dev && (*pp)->ino == l->ino) {
			held *h = *pp;
			*pp = h->next;
			free(h);
			break;
		}
	}
	close(l->fd); /* releases the lock, under the mutex: no new open slips in before */
	pthread_mutex_unlock(&held_mu);
	l->fd = -1;
}
