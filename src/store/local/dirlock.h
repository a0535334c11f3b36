/*
 * The store directory's lock (DIR/LOCK), held for as long as the store is
 * open, against other processes and against a second open in this process.
 *
 * POSIX record locks (fcntl F_SETLK) belong to the process, and closing any
 * descriptor of the file releases them all: a second open of the same store
 * in one process would succeed against the first one's lock, and LevelDB,
 * which closes its descriptor when it finds its LOCK "already held by
 * process", would then release the first open's engine locks. So a
 * per-process registry of the directories held (by device and inode) refuses
 * a second open before any file of the store is touched, and the lock is an
 * open-file-description lock (F_OFD_SETLK) where the system has one, which
 * no other descriptor's close releases.
 */
#ifndef RK_LOCAL_DIRLOCK_H
#define RK_LOCAL_DIRLOCK_H

typedef struct rk__dirlock {
	int fd; /* DIR/LOCK, -1 when not held */
	unsigned long long dev, ino; /* of DIR */
} rk__dirlock;

/* Locks directory `dir` (which exists). 0, or RK_EBUSY naming the directory
 * when this process (another open) or another process holds it, RK_EIO when
 * DIR/LOCK cannot be opened. On success the caller releases the lock with
 * rk_dirlock__release; on failure *l is left unheld (fd -1). */
int rk_dirlock__acquire(rk__dirlock *l, const char *dir);
void rk_dirlock__release(rk__dirlock *l);

#endif
