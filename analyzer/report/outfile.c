/* Output files that are the analyzer's own. */
#define _POSIX_C_SOURCE 200809L
#include "outfile.h"
#include "rc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "zframe.h"

/* The run's inputs: their paths as given, and what they are on disk. */
static struct input {
    const char *path;
    int         has_stat;
    dev_t       dev;
    ino_t       ino;
} *inputs;
static int ninputs;

int outfile_protect(char *const *paths, int n)
{
    outfile_unprotect();
    if (n <= 0)
        return 0;
    if (!(inputs = calloc((size_t)n, sizeof *inputs)))
        return FPM_ENOMEM;
    for (int i = 0; i < n; i++) {
        struct stat st;
        int is_stdin = strcmp(paths[i], "-") == 0;
        inputs[i].path = is_stdin ? NULL : paths[i];
        if ((is_stdin ? fstat(0, &st) : stat(paths[i], &st)) == 0) {
            inputs[i].has_stat = 1;
            inputs[i].dev = st.st_dev;
            inputs[i].ino = st.st_ino;
        }
    }
    ninputs = n;
    return 0;
}

void outfile_unprotect(void)
{
    free(inputs);
    inputs = NULL;
    ninputs = 0;
}

static const char *kind_of(mode_t m)
{
    return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket"
         : S_ISLNK(m) ? "a symbolic link" : S_ISCHR(m) || S_ISBLK(m) ? "a device"
         : "not a regular file";
}

static int is_input(const char *path, const struct stat *st)
{
    for (int i = 0; i < ninputs; i++) {
        if (inputs[i].path && strcmp(inputs[i].path, path) == 0)
            return 1;
        if (st && inputs[i].has_stat && inputs[i].dev == st->st_dev && inputs[i].ino == st->st_ino)
            return 1;
    }
    return 0;
}

/* What a regular file st (open as fd, or -1) is not allowed to be: 0 when
 * it may be written, else -1 with why. */
static int refuse_log(const char *path, const struct stat *st, int fd, char *err, size_t errlen)
{
    if (is_input(path, st)) {
        snprintf(err, errlen, "is an input of this run: refusing to write over a log");
        return FPM_EFAIL;
    }
    if (!st || st->st_size == 0)
        return 0;
    int own = fd < 0;
    if (own && (fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) < 0)
        return 0; /* unreadable: the open for writing says why, if anything */
    int log = zf_begins_like_log(fd);
    if (own)
        close(fd);
    if (log) {
        snprintf(err, errlen, "begins like an fpmlog: refusing to write over a log");
        return FPM_EFAIL;
    }
    return 0;
}

int outfile_is_null(const char *path)
{
    struct stat st, null;
    return path && lstat(path, &st) == 0 && S_ISCHR(st.st_mode) && stat("/dev/null", &null) == 0 &&
           S_ISCHR(null.st_mode) && st.st_rdev == null.st_rdev;
}

int outfile_replaceable(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT)
            return refuse_log(path, NULL, -1, err, errlen);
        snprintf(err, errlen, "%s", strerror(errno));
        return FPM_EFAIL;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "is %s, not a regular file: refused", kind_of(st.st_mode));
        return FPM_EFAIL;
    }
    return refuse_log(path, &st, -1, err, errlen);
}

FILE *outfile_open(const char *path, char *err, size_t errlen)
{
    if (outfile_replaceable(path, err, errlen) != 0)
        return NULL;
    /* O_NONBLOCK: a FIFO put there in between must not hang the open; no
     * O_TRUNC: what is there is looked at again before it is cut */
    int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0644);
    if (fd < 0 && errno == EACCES)
        fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "could not open: %s", strerror(errno));
        return NULL;
    }
    struct stat st;
    FILE *f = NULL;
    if (fstat(fd, &st) != 0)
        snprintf(err, errlen, "could not open: %s", strerror(errno));
    else if (!S_ISREG(st.st_mode))
        snprintf(err, errlen, "is %s, not a regular file: refused", kind_of(st.st_mode));
    else if (refuse_log(path, &st, fd, err, errlen) != 0)
        ;
    else if (ftruncate(fd, 0) != 0 || fcntl(fd, F_SETFL, 0) != 0)
        snprintf(err, errlen, "could not open: %s", strerror(errno));
    else if (!(f = fdopen(fd, "w")))
        snprintf(err, errlen, "could not open: %s", strerror(errno));
    if (!f)
        close(fd);
    return f;
}
