/* zstd frame and block headers, read by hand. */
#define _POSIX_C_SOURCE 200809L
#include "zframe.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "fpmlog.h"

const unsigned char ZF_EMPTY_LAST_BLOCK[3] = {0x01, 0x00, 0x00};

int zf_is_frame(const unsigned char *p)
{
    return p[0] == 0x28 && p[1] == 0xB5 && p[2] == 0x2F && p[3] == 0xFD;
}

int zf_is_skippable(const unsigned char *p)
{
    return (p[0] & 0xF0) == 0x50 && p[1] == 0x2A && p[2] == 0x4D && p[3] == 0x18;
}

uint64_t zf_skippable_size(const unsigned char *p)
{
    return 8 + ((uint64_t)p[4] | (uint64_t)p[5] << 8 | (uint64_t)p[6] << 16 |
                (uint64_t)p[7] << 24);
}

size_t zf_header_size(unsigned char fhd)
{
    static const size_t did_size[4] = {0, 1, 2, 4};
    int fcs = fhd >> 6, single = fhd >> 5 & 1;
    return 1 + (single ? 0 : 1) + did_size[fhd & 3] +
           (fcs == 0 ? (size_t)single : fcs == 1 ? 2u : fcs == 2 ? 4u : 8u);
}

int zf_has_checksum(unsigned char fhd)
{
    return fhd >> 2 & 1;
}

zf_block zf_block_header(const unsigned char *p)
{
    uint32_t h = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16;
    zf_block b = {(int)(h & 1), (int)(h >> 1 & 3), 0};
    b.content = b.type == 1 ? 1 : h >> 3; /* an RLE block holds one byte */
    return b;
}

size_t zf_pread_all(int fd, void *buf, size_t len, uint64_t off)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = pread(fd, (char *)buf + got, len - got, (off_t)(off + got));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    return got;
}

int zf_write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int zf_begins_like_log(int fd)
{
    unsigned char m[FPMLOG_MAGIC_LEN];
    size_t n = zf_pread_all(fd, m, sizeof m, 0);
    if (n == 0)
        return 0;
    if (n >= ZF_MAGIC_LEN && (zf_is_frame(m) || zf_is_skippable(m)))
        return 1;
    return memcmp(m, FPMLOG_MAGIC, n) == 0;
}

int zf_frame_extent(int fd, uint64_t off, uint64_t size, uint64_t *len)
{
    /* a block header and what follows it in one read: the headers of a
     * frame of 4 MiB of records are some 9 KiB apart, so reading more would
     * copy the frame for nothing */
    unsigned char chunk[1024];
    uint64_t at = off, got = 0; /* chunk holds the file's bytes [at, at + got) */
    uint64_t pos = off + 4;
    int csum = 0;
    *len = 0;
    for (int first = 1;; first = 0) {
        if (pos + 3 > at + got || pos < at) {
            at = pos - (first ? 4 : 0);
            got = zf_pread_all(fd, chunk, sizeof chunk, at);
        }
        if (first) {
            if (pos >= at + got)
                return ZF_HEADER_CUT;
            unsigned char fhd = chunk[pos - at];
            uint64_t hs = zf_header_size(fhd);
            if (pos + hs > size)
                return ZF_HEADER_CUT;
            pos += hs;
            csum = zf_has_checksum(fhd);
            continue;
        }
        zf_block b = {0, 0, 0};
        if (pos + 3 <= at + got) {
            b = zf_block_header(chunk + (pos - at));
            if (b.type == 3)
                return ZF_NOT_BLOCKS;
        }
        if (pos + 3 > at + got || pos + 3 + b.content > size) {
            *len = pos - off; /* the whole blocks; a partial one starts here */
            return ZF_OPEN;
        }
        pos += 3 + b.content;
        if (b.last) {
            /* with a checksum cut short, the frame is still whole: its
             * blocks are (and the caller finds the file's end past it) */
            *len = pos + (csum ? 4 : 0) - off;
            return 0;
        }
    }
}

