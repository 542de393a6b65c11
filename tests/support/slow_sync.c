/* Slow log storage for a throwaway server: LD_PRELOAD this library and every fsync, fdatasync
 * and sync_file_range the process makes returns MTOP_SYNC_DELAY_US microseconds later than the
 * real call (which still runs, via dlsym(RTLD_NEXT)). Unset, empty or <= 0: no delay.
 * Built at test time by tests/support/slow_sync.py; nothing else in the process is touched. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long delay_us = -1;

static void add_latency(void)
{
    if (delay_us < 0) {
        const char *s = getenv("MTOP_SYNC_DELAY_US");
        long v = s ? strtol(s, NULL, 10) : 0;
        delay_us = v > 0 && v < 10000000 ? v : 0;   /* a bounded delay: at most 10 s */
    }
    if (delay_us == 0)
        return;
    struct timespec left = { delay_us / 1000000, (delay_us % 1000000) * 1000 };
    int saved = errno;
    while (nanosleep(&left, &left) != 0 && errno == EINTR)
        ;
    errno = saved;
}

int fsync(int fd)
{
    static int (*real)(int);
    if (!real)
        real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    int rc = real(fd);
    add_latency();
    return rc;
}

int fdatasync(int fd)
{
    static int (*real)(int);
    if (!real)
        real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    int rc = real(fd);
    add_latency();
    return rc;
}

int sync_file_range(int fd, off64_t offset, off64_t nbytes, unsigned int flags)
{
    static int (*real)(int, off64_t, off64_t, unsigned int);
    if (!real)
        real = (int (*)(int, off64_t, off64_t, unsigned int))dlsym(RTLD_NEXT, "sync_file_range");
    int rc = real(fd, offset, nbytes, flags);
    add_latency();
    return rc;
}
