/* Output files that are the analyzer's own. */
#define _POSIX_C_SOURCE 200809L
#include "outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind_of(mode_t m)
{
    return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket"
         : S_ISLNK(m) ? "a symbolic link" : S_ISCHR(m) || S_ISBLK(m) ? "a device"
         : "not a regular file";
}

int outfile_replaceable(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT)
            return 0;
        snprintf(err, errlen, "%s", strerror(errno));
        return -1;
    }
    if (S_ISREG(st.st_mode))
        return 0;
    snprintf(err, errlen, "is %s, not a regular file: refused", kind_of(st.st_mode));
    return -1;
}

FILE *outfile_open(const char *path, char *err, size_t errlen)
{
    if (outfile_replaceable(path, err, errlen) != 0)
        return NULL;
    /* O_NONBLOCK: a FIFO put there in between must not hang the open */
    int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC,
                  0644);
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
    else if (ftruncate(fd, 0) != 0 || fcntl(fd, F_SETFL, 0) != 0)
        snprintf(err, errlen, "could not open: %s", strerror(errno));
    else if (!(f = fdopen(fd, "w")))
        snprintf(err, errlen, "could not open: %s", strerror(errno));
    if (!f)
        close(fd);
    return f;
}
