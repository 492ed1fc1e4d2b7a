/* The recorder's log writer. */
#define _GNU_SOURCE /* F_OFD_SETLK */
#include "logfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fpmlog.h"
#include "fpmidx.h"
#include "rc.h"
#include "zframe.h"

struct logfile {
    int            fd;
    int            level;         /* 0 plain */
    fpmlog_writer *w;             /* records into pend */
    unsigned char *pend;          /* bytes for the next commit */
    size_t         pend_len, pend_cap;
    uint64_t       good_size;     /* file size after the last good commit */
    int            disk_frame_open; /* the file ends inside an open frame */
    int            abandoned;     /* a write failed: cut back, start anew */
    uint64_t       index_start;   /* the first byte the index written at close covers */
};

static int full_pread(int fd, void *buf, size_t n, uint64_t off)
{
    return zf_pread_all(fd, buf, n, off) == n ? 0 : -1;
}

int logfile_repair(int fd, char *repaired, size_t rlen, int *plain_tail)
{
    struct stat st;
    repaired[0] = '\0';
    *plain_tail = 0;
    if (fstat(fd, &st) != 0)
        return -1;
    uint64_t size = (uint64_t)st.st_size, off = 0;
    while (off < size) {
        unsigned char m[8];
        if (size - off < 4 || full_pread(fd, m, 4, off) != 0) {
            *plain_tail = 1;
            return 0;
        }
        if (zf_is_skippable(m)) {
            if (size - off < 8 || full_pread(fd, m, 8, off) != 0 ||
                zf_skippable_size(m) > size - off) {
                /* a frame's summary cut short (killed while ending the frame):
                 * the frame before it is whole, the summary is removed */
                if (ftruncate(fd, (off_t)off) != 0)
                    return -1;
                snprintf(repaired, rlen, "removed a frame summary cut short at offset %llu "
                         "(the frame before it is whole and is read as it is)",
                         (unsigned long long)off);
                return 0;
            }
            off += zf_skippable_size(m);
            continue;
        }
        if (!zf_is_frame(m)) {
            *plain_tail = 1;
            return 0;
        }
        uint64_t frame = off, len;
        int rc = zf_frame_extent(fd, off, size, &len);
        if (rc == ZF_NOT_BLOCKS)
            return 0; /* not a block: damage, not ours to mend */
        if (rc == ZF_HEADER_CUT) {
            /* a frame cut inside its header: remove it whole */
            if (ftruncate(fd, (off_t)frame) != 0)
                return -1;
            snprintf(repaired, rlen, "removed a zstd frame header cut short at offset %llu",
                     (unsigned long long)frame);
            return 0;
        }
        uint64_t pos = off + len;
        if (rc == ZF_OPEN) {
            /* the frame was left open: cut the partial block, close it */
            if (pos < size && ftruncate(fd, (off_t)pos) != 0)
                return -1;
            if (zf_write_all(fd, ZF_EMPTY_LAST_BLOCK, 3) != 0)
                return -1;
            snprintf(repaired, rlen, "closed the zstd frame at offset %llu that a stopped "
                     "recorder left open (cut %llu bytes of a partial block at offset %llu)",
                     (unsigned long long)frame, (unsigned long long)(size - pos),
                     (unsigned long long)pos);
            return 0;
        }
        off = pos;
    }
    return 0;
}

/* The writer's sink: bytes wait in memory for the commit. */
static int pend_sink(void *arg, const void *buf, size_t len)
{
    logfile *lf = arg;
    if (lf->pend_len + len > lf->pend_cap) {
        size_t cap = lf->pend_cap ? lf->pend_cap : 65536;
        while (cap < lf->pend_len + len)
            cap *= 2;
        unsigned char *p = realloc(lf->pend, cap);
        if (!p) {
            errno = ENOMEM;
            return FPM_ENOMEM;
        }
        lf->pend = p;
        lf->pend_cap = cap;
    }
    memcpy(lf->pend + lf->pend_len, buf, len);
    lf->pend_len += len;
    return 0;
}

static const char *kind_of(mode_t m)
{
    return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket"
         : S_ISCHR(m) || S_ISBLK(m) ? "a device" : "not a regular file";
}

/* The log's lock: an open file description lock over the file (it holds
 * for as long as this descriptor is open, whatever else the process opens
 * and closes), and a classic record lock on one byte past it that a
 * second recorder reads the first one's pid from. */
#define LOCK_SPAN ((off_t)1 << 62)

/* Takes the log's write lock: 0, or -1 with err. */
static int lock_log(int fd, char *err, size_t errlen)
{
    struct flock whole = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0,
                          .l_len = LOCK_SPAN};
    struct flock tag = {.l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = LOCK_SPAN,
                        .l_len = 1};
    if (fcntl(fd, F_OFD_SETLK, &whole) == 0) {
        if (fcntl(fd, F_SETLK, &tag) != 0) { /* only names us to a second recorder */ }
        return 0;
    }
    if (errno != EACCES && errno != EAGAIN) {
        snprintf(err, errlen, "could not lock: %s", strerror(errno));
        return -1;
    }
    if (fcntl(fd, F_GETLK, &tag) == 0 && tag.l_type != F_UNLCK && tag.l_pid > 0)
        snprintf(err, errlen, "another fpm-record (pid %ld) is writing this log: refused, "
                 "nothing written", (long)tag.l_pid);
    else
        snprintf(err, errlen, "another process holds this log's lock: refused, nothing written");
    return -1;
}

/* Opens path for appending, only where it is ours: a new file, or a regular
 * file that is empty or begins like a log.  -1 with err otherwise. */
static int open_own(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
        snprintf(err, errlen, "is %s, not a log: refused", kind_of(st.st_mode));
        return -1;
    }
    /* O_NONBLOCK: a FIFO put there in between must not hang the open */
    int fd = open(path, O_RDWR | O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0 && errno == ENOENT)
        fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(err, errlen, "could not open: %s", strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0) {
        snprintf(err, errlen, "could not open: %s", strerror(errno));
    } else if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "is %s, not a log: refused", kind_of(st.st_mode));
    } else if (st.st_size > 0 && !zf_begins_like_log(fd)) {
        snprintf(err, errlen, "is not an fpmlog (it begins with neither a record nor a zstd "
                              "frame): refused, nothing written; give a new file or a log");
    } else if (lock_log(fd, err, errlen) != 0) {
        /* said */
    } else if (st.st_size == 0 && (st.st_mode & 077) && fchmod(fd, 0600) != 0) {
        snprintf(err, errlen, "could not make it mode 0600: %s", strerror(errno));
    } else {
        int fl = fcntl(fd, F_GETFL);
        if (fl != -1 && fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) == 0)
            return fd;
        snprintf(err, errlen, "could not open: %s", strerror(errno));
    }
    close(fd);
    return -1;
}

logfile *logfile_open(const char *path, int level, char *repaired, size_t rlen,
                      char *err, size_t errlen)
{
    logfile *lf = calloc(1, sizeof *lf);
    if (!lf) {
        snprintf(err, errlen, "%s", strerror(ENOMEM));
        return NULL;
    }
    lf->fd = open_own(path, err, errlen);
    if (lf->fd < 0) {
        free(lf);
        return NULL;
    }
    int plain_tail = 0;
    /* the index a closed log ends with comes off, and is written again,
     * covering the same frames and these, when this recorder closes it */
    struct stat st;
    uint64_t at, start = UINT64_MAX;
    if (fstat(lf->fd, &st) == 0 && fpmidx_find(lf->fd, (uint64_t)st.st_size, &at, &start) == 0) {
        if (ftruncate(lf->fd, (off_t)at) != 0) {
            snprintf(err, errlen, "could not take its index off: %s", strerror(errno));
            close(lf->fd);
            free(lf);
            return NULL;
        }
    } else {
        start = UINT64_MAX;
    }
    if (logfile_repair(lf->fd, repaired, rlen, &plain_tail) != 0) {
        snprintf(err, errlen, "could not close the frame left open: %s", strerror(errno));
        close(lf->fd);
        free(lf);
        return NULL;
    }
    if (fstat(lf->fd, &st) != 0) {
        snprintf(err, errlen, "could not open: %s", strerror(errno));
        close(lf->fd);
        free(lf);
        return NULL;
    }
    lf->good_size = (uint64_t)st.st_size;
    lf->index_start = start <= lf->good_size ? start : lf->good_size;
    lf->level = plain_tail ? 0 : level;
    lf->w = fpmlog_writer_to(pend_sink, lf, lf->level);
    if (!lf->w) {
        snprintf(err, errlen, "%s", strerror(ENOMEM));
        logfile_drop(lf);
        return NULL;
    }
    return lf;
}

int logfile_add(logfile *lf, const char *type, uint64_t mono, uint64_t real,
                const char *source, size_t source_len, const void *payload, size_t len)
{
    return fpmlog_write(lf->w, type, mono, real, source, source_len, payload, len);
}

/* After a failed write: cut the file back to its last good byte and close
 * the frame that was open there.  0 when the file is sound again. */
static int recover(logfile *lf)
{
    if (ftruncate(lf->fd, (off_t)lf->good_size) != 0)
        return -1;
    if (lf->disk_frame_open) {
        if (zf_write_all(lf->fd, ZF_EMPTY_LAST_BLOCK, 3) != 0) {
            int e = errno;
            if (ftruncate(lf->fd, (off_t)lf->good_size) != 0) { /* nothing more to do */ }
            errno = e;
            return -1;
        }
        lf->good_size += 3;
        lf->disk_frame_open = 0;
    }
    lf->abandoned = 0;
    return 0;
}

int logfile_commit(logfile *lf, int end_frame)
{
    int e;
    if (lf->abandoned && recover(lf) != 0)
        goto fail;
    if ((end_frame ? fpmlog_writer_end_frame(lf->w) : fpmlog_writer_flush(lf->w)) != 0)
        goto fail;
    if (lf->pend_len == 0)
        return 0;
    if (zf_write_all(lf->fd, lf->pend, lf->pend_len) != 0)
        goto fail;
    lf->good_size += lf->pend_len;
    lf->disk_frame_open = lf->level > 0 && !end_frame;
    lf->pend_len = 0;
    return 0;
fail:
    e = errno;
    /* this round's bytes are lost; the next records start a new frame */
    lf->abandoned = 1;
    lf->pend_len = 0;
    fpmlog_writer_reset(lf->w);
    errno = e;
    return -1;
}

uint64_t logfile_size(const logfile *lf)
{
    return lf->good_size;
}

uint64_t logfile_frame_bytes(const logfile *lf)
{
    return fpmlog_writer_frame_bytes(lf->w);
}

void logfile_drop(logfile *lf)
{
    if (!lf)
        return;
    close(lf->fd);
    fpmlog_writer_free(lf->w);
    free(lf->pend);
    free(lf);
}

int logfile_close(logfile *lf)
{
    if (!lf)
        return 0;
    int rc = logfile_commit(lf, 1);
    /* a closed log ends with its index (fpmlog(5)): where it cannot be
     * written whole, the next open takes off what was */
    if (rc == 0 && lf->level > 0 && fpmidx_append(lf->fd, lf->index_start) == FPM_ENOMEM)
        rc = -1;
    if (fsync(lf->fd) != 0 && errno != EINVAL)
        rc = -1;
    logfile_drop(lf);
    return rc;
}
