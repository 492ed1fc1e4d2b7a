/* What a file given as a LOG is when it is not one (notlog.h). */
#define _POSIX_C_SOURCE 200809L
#include "notlog.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

const char *notlog_kind(const char *path)
{
    struct stat sb;
    if (strcmp(path, "-") == 0 || stat(path, &sb) != 0)
        return NULL;
    if (S_ISDIR(sb.st_mode))
        return "is a directory, not a log";
    if (!S_ISREG(sb.st_mode))
        return NULL;
    if (sb.st_size == 0)
        return "is empty: not a log (no record in it)";
    unsigned char m[6] = {0};
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(m, 1, sizeof m, f) : 0;
    if (f)
        fclose(f);
    if (n >= 2 && m[0] == 0x1f && m[1] == 0x8b)
        return "is gzip-compressed, not a log: decompress it first (gzip -dc FILE | "
               "fpm-analyze -, or gunzip FILE)";
    if (n >= 6 && memcmp(m, "\xfd" "7zXZ\0", 6) == 0)
        return "is xz-compressed, not a log: decompress it first (xz -dc FILE | fpm-analyze -, "
               "or unxz FILE)";
    if (n >= 3 && memcmp(m, "BZh", 3) == 0)
        return "is bzip2-compressed, not a log: decompress it first (bzip2 -dc FILE | "
               "fpm-analyze -, or bunzip2 FILE)";
    return NULL;
}
