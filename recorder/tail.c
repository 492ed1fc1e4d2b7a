/* php-fpm's access logs followed as tail -F follows a file (tail.h). */
#define _GNU_SOURCE /* memrchr */
#include "tail.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grow.h"
#include "rc.h"

#define CHUNK (1u << 20) /* read at a time */

/* Opens t->path as t->cur, read from 0: 0, or -1 with t->err (errno, or
 * EINVAL: not a regular file: a FIFO or a device is never read). */
static int open_cur(tail_file *t)
{
    int fd = open(t->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        t->err = errno;
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        t->err = EINVAL;
        close(fd);
        return -1;
    }
    t->cur.fd = fd;
    t->cur.pos = 0;
    t->dev = st.st_dev;
    t->ino = st.st_ino;
    t->err = 0;
    t->moved = 0;
    return 0;
}

static void src_close(tail_src *s)
{
    if (s->fd >= 0)
        close(s->fd);
    free(s->part);
    memset(s, 0, sizeof *s);
    s->fd = -1;
}

/* Where a start at the file's end begins: after its last newline, when it
 * is among the last TAIL_MAX_PARTIAL + 1 bytes (the line after it is
 * still being written); else at the end, a longer line's rest dropped. */
static uint64_t end_of_lines(tail_src *s, uint64_t size)
{
    unsigned char b[TAIL_MAX_PARTIAL + 1];
    uint64_t from = size > sizeof b ? size - sizeof b : 0;
    ssize_t n = size ? pread(s->fd, b, (size_t)(size - from), (off_t)from) : 0;
    if (n <= 0)
        return size;
    const unsigned char *nl = memrchr(b, '\n', (size_t)n);
    if (nl)
        return from + (uint64_t)(nl - b) + 1;
    s->dropping = from > 0; /* a line over the limit, its newline still to come */
    return from > 0 ? size : 0;
}

int tail_start(tail_file *t, const char *path, const tail_saved *saved, size_t n,
               tail_note_fn note, void *arg)
{
    memset(t, 0, sizeof *t);
    t->cur.fd = t->old.fd = -1;
    if (!(t->path = strdup(path)))
        return FPM_ENOMEM;
    if (open_cur(t) != 0)
        return 0; /* tried again at each read, and then read from its start */
    struct stat st;
    uint64_t size = fstat(t->cur.fd, &st) == 0 ? (uint64_t)st.st_size : 0;
    const tail_saved *s = NULL;
    for (size_t i = 0; i < n && !s; i++)
        if (strcmp(saved[i].path, path) == 0)
            s = &saved[i];
    if (s && s->dev == t->dev && s->ino == t->ino && size >= s->pos) {
        t->cur.pos = s->pos;
        t->cur.dropping = s->dropping;
        note(arg, "access log %s: resumed where the last run left it, at byte %llu of %llu "
                  "(nothing skipped)", path, (unsigned long long)t->cur.pos,
             (unsigned long long)size);
        return 0;
    }
    t->cur.pos = end_of_lines(&t->cur, size);
    note(arg, "access log %s: started at its end, %llu bytes skipped (%s)", path,
         (unsigned long long)t->cur.pos,
         !s ? "no state of it from a run before"
         : s->dev != t->dev || s->ino != t->ino ? "another file is at its path since the run "
                                                  "before: what that one gained is lost"
                                                : "it is shorter than where the run before left it");
    return 0;
}

/* Appends the complete lines of s from s->pos to its end to *buf at *len
 * (at most TAIL_MAX_READ in all), the last line begun kept in s->part; 1
 * when the read is full (more may wait), 0 at the file's end, FPM_ENOMEM. */
static int take(const char *path, tail_src *s, unsigned char **buf, size_t *cap, size_t *len,
                tail_note_fn note, void *arg)
{
    for (;;) {
        size_t room = TAIL_MAX_READ - *len; /* for complete lines */
        if (room <= s->plen)
            return 1;
        size_t chunk = room - s->plen < CHUNK ? room - s->plen : CHUNK;
        if (grow(buf, cap, *len + s->plen + chunk, 1, 65536))
            return FPM_ENOMEM;
        unsigned char *r = *buf + *len;
        if (s->plen)
            memcpy(r, s->part, s->plen);
        ssize_t n = pread(s->fd, r + s->plen, chunk, (off_t)s->pos);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0; /* the end (or an error: tried again next read) */
        s->pos += (uint64_t)n;
        size_t rl = s->plen + (size_t)n;
        s->plen = 0;
        if (s->dropping) { /* a line too long, up to its newline */
            const unsigned char *nl = memchr(r, '\n', rl);
            if (!nl)
                continue;
            size_t d = (size_t)(nl - r) + 1;
            note(arg, "access log %s: the rest of a line longer than %d bytes dropped, %zu bytes "
                      "up to its newline", path, TAIL_MAX_PARTIAL, d);
            memmove(r, r + d, rl - d);
            rl -= d;
            s->dropping = 0;
        }
        const unsigned char *last = memrchr(r, '\n', rl);
        size_t complete = last ? (size_t)(last - r) + 1 : 0, rest = rl - complete;
        if (rest > TAIL_MAX_PARTIAL) {
            note(arg, "access log %s: a line grew past %d bytes without its newline: %zu bytes "
                      "of it dropped, and the rest up to its newline", path, TAIL_MAX_PARTIAL,
                 rest);
            s->dropping = 1;
        } else if (rest) {
            if (grow(&s->part, &s->pcap, rest, 1, 4096))
                return FPM_ENOMEM;
            memcpy(s->part, r + complete, rest);
            s->plen = rest;
        }
        *len += complete;
    }
}

/* A line begun that will not be finished, said, and forgotten. */
static void drop_part(const char *path, tail_src *s, const char *why, tail_note_fn note,
                      void *arg)
{
    if (s->plen)
        note(arg, "access log %s: %zu bytes of a line without its newline dropped: %s", path,
             s->plen, why);
    s->plen = 0;
    s->dropping = 0;
}

/* The read is full: said once until it catches up. */
static long behind(tail_file *t, size_t len, tail_note_fn note, void *arg)
{
    if (!t->behind)
        note(arg, "access log %s: falling behind: more than %u bytes of lines a round, the "
                  "rest waits for the next", t->path, TAIL_MAX_READ);
    t->behind = 1;
    return (long)len;
}

long tail_read(tail_file *t, unsigned char **buf, size_t *cap, tail_note_fn note, void *arg)
{
    size_t len = 0;
    if (t->old.fd >= 0) { /* renamed away: what its last writers finished since */
        uint64_t was = t->old.pos;
        int rc = take(t->path, &t->old, buf, cap, &len, note, arg);
        if (rc < 0)
            return rc;
        if (rc == 1)
            return behind(t, len, note, arg);
        if (t->old.pos == was) {
            drop_part(t->path, &t->old, "its file was renamed away and gains no more", note, arg);
            src_close(&t->old);
        }
    }
    if (t->cur.fd < 0) {
        if (open_cur(t) != 0)
            return len ? (long)len : -1;
        note(arg, "access log %s: opened, read from its start", t->path);
    }
    for (int files = 0; files < 4; files++) { /* a rename since: the old file, then the new */
        struct stat st;
        if (fstat(t->cur.fd, &st) != 0)
            break;
        if ((uint64_t)st.st_size < t->cur.pos) {
            note(arg, "access log %s: truncated (%llu bytes now, %llu read: copytruncate), "
                      "read again from 0; the lines it gained after byte %llu before its "
                      "truncation are lost (in logrotate's copy, or in no file when written "
                      "between the copy and the truncation)", t->path,
                 (unsigned long long)st.st_size, (unsigned long long)t->cur.pos,
                 (unsigned long long)t->cur.pos);
            drop_part(t->path, &t->cur, "the file was truncated", note, arg);
            t->cur.pos = 0;
        }
        int rc = take(t->path, &t->cur, buf, cap, &len, note, arg);
        if (rc < 0)
            return rc;
        if (rc == 1)
            return behind(t, len, note, arg);
        if (t->behind)
            note(arg, "access log %s: caught up", t->path);
        t->behind = 0;
        struct stat ps;
        if (stat(t->path, &ps) != 0) { /* renamed away, no new file yet: still this one */
            if (!t->moved)
                note(arg, "access log %s: renamed away; followed until a new file is at its "
                          "path", t->path);
            t->moved = 1;
            break;
        }
        if (ps.st_dev == t->dev && ps.st_ino == t->ino)
            break;
        /* a new file at its path: the old one is read to its end (above), and
         * again at the next reads until it gains nothing; the new one from 0 */
        if (t->old.fd >= 0) {
            drop_part(t->path, &t->old, "a second file was renamed away", note, arg);
            src_close(&t->old);
        }
        t->old = t->cur;
        t->cur = (tail_src){.fd = -1};
        if (open_cur(t) != 0) /* gone again already: the next read opens it */
            break;
        note(arg, "access log %s: renamed away and read to its end; the new file at its path "
                  "read from its start", t->path);
    }
    return (long)len;
}

void tail_close(tail_file *t)
{
    src_close(&t->cur);
    src_close(&t->old);
    free(t->path);
    memset(t, 0, sizeof *t);
    t->cur.fd = t->old.fd = -1;
}

/* a path in a state line: bytes <= 0x20, 0x7f and % as %XX */
static void put_path(FILE *f, const char *p)
{
    for (; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c <= 0x20 || c == 0x7f || c == '%')
            fprintf(f, "%%%02X", c);
        else
            fputc(c, f);
    }
}

int tail_state_write(const char *path, const tail_file *t, size_t n)
{
    char tmp[PATH_MAX + 8];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp", path) >= sizeof tmp) {
        errno = ENAMETOOLONG;
        return -1;
    }
    struct stat st;
    if (lstat(tmp, &st) == 0 && S_ISREG(st.st_mode))
        unlink(tmp); /* a crash's; anything but a file is left alone, and refused */
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        const tail_src *s = &t[i].cur;
        if (!t[i].dev && !t[i].ino) /* never opened */
            continue;
        uint64_t pos = s->dropping ? s->pos : s->pos - s->plen; /* a line begun: its start */
        fprintf(f, "%llu %llu %llu %d ", (unsigned long long)t[i].dev,
                (unsigned long long)t[i].ino, (unsigned long long)pos, s->dropping);
        put_path(f, t[i].path);
        fputc('\n', f);
    }
    int bad = ferror(f);
    bad |= fclose(f) != 0;
    if (bad || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        errno = e;
        return -1;
    }
    return 0;
}

static int hex(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                           : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* A state line's path, decoded in place; its length, 0 for none. */
static size_t decode_path(char *p)
{
    char *d = p, *s = p;
    for (; *s && *s != '\n'; s++) {
        int h1 = s[0] == '%' ? hex(s[1]) : -1, h2 = h1 >= 0 ? hex(s[2]) : -1;
        if (h2 >= 0) {
            *d++ = (char)(h1 * 16 + h2);
            s += 2;
        } else {
            *d++ = *s;
        }
    }
    *d = '\0';
    return (size_t)(d - p);
}

int tail_state_read(const char *path, tail_saved **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);
    struct stat st;
    FILE *f = NULL;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
        f = fdopen(fd, "r");
    if (!f) {
        if (fd >= 0)
            close(fd);
        return 0; /* no state */
    }
    char line[PATH_MAX * 3 + 128];
    size_t cap = 0;
    int rc = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        unsigned long long dev, ino, pos;
        int drop, at = 0;
        if (sscanf(line, "%llu %llu %llu %d %n", &dev, &ino, &pos, &drop, &at) != 4 || !at ||
            decode_path(line + at) == 0)
            continue;
        char *p = strdup(line + at);
        if (!p || grow(out, &cap, *n + 1, sizeof **out, 8)) {
            free(p);
            rc = FPM_ENOMEM;
            break;
        }
        (*out)[(*n)++] = (tail_saved){p, (dev_t)dev, (ino_t)ino, pos, drop != 0};
    }
    fclose(f);
    if (rc) {
        tail_saved_free(*out, *n);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

void tail_saved_free(tail_saved *s, size_t n)
{
    for (size_t i = 0; s && i < n; i++)
        free(s[i].path);
    free(s);
}
