/*
 * grow: how every array here grows, so the doubling is written once.  arr
 * is the address of the array's pointer (any element type), *cap its room
 * in elements; after 0, the room is at least need (first, or the room
 * doubled until it is); FPM_ENOMEM or a size that does not fit, and the
 * array is untouched.
 */
#ifndef GROW_H
#define GROW_H

#include <stdint.h>
#include "rc.h"
#include <stdlib.h>
#include <string.h>

static inline int grow(void *arr, size_t *cap, size_t need, size_t elem, size_t first)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : first;
    while (c < need) {
        if (c > SIZE_MAX / 2)
            return FPM_ENOMEM;
        c *= 2;
    }
    if (c > SIZE_MAX / elem)
        return FPM_ENOMEM;
    void *p;
    memcpy(&p, arr, sizeof p); /* arr is a T **: its pointer read as void * */
    void *np = realloc(p, c * elem);
    if (!np)
        return FPM_ENOMEM;
    memcpy(arr, &np, sizeof np);
    *cap = c;
    return 0;
}

/* Appends n bytes at src and a NUL after them to the byte blob *p (*len
 * used, *cap room, grown from 64 KiB); where they start in *at.  0, or -1
 * ENOMEM (the blob untouched). */
static inline int grow_append(unsigned char **p, size_t *cap, size_t *len, const void *src,
                              size_t n, size_t *at)
{
    if (grow(p, cap, *len + n + 1, 1, 65536))
        return FPM_ENOMEM;
    if (n)
        memcpy(*p + *len, src, n);
    (*p)[*len + n] = '\0';
    *at = *len;
    *len += n + 1;
    return 0;
}

#endif
