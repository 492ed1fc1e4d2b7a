/*
 * rc: the one convention for what a function returns when it can fail
 * (docs/design.md, "Return codes").  0 is success.  FPM_ENOMEM, always -2,
 * is out of memory (or a size that cannot fit), everywhere, so it is
 * passed up as it is and never translated.  FPM_EFAIL, -1, is the other
 * failure a function names in its comment (a record ignored, no host yet,
 * a file that cannot be read).  Pointers say out of memory with NULL.
 */
#ifndef RC_H
#define RC_H

enum {
    FPM_OK = 0,
    FPM_EFAIL = -1,
    FPM_ENOMEM = -2,
};

#endif
