/*
 * seen: which rounds each file of a replay held, per host and boot, so
 * that a log given twice, or rotated logs given newest first, is said once
 * per file and host (the rounds still count).  Said through msg.h.
 */
#ifndef SEEN_H
#define SEEN_H

#include <stddef.h>
#include <stdint.h>

typedef struct seen seen;

seen *seen_new(void);   /* NULL ENOMEM */
void  seen_free(seen *s);

/* A HOST record: its hostname and boot_id (NULL: "") are in force for the
 * rounds that follow.  0, FPM_ENOMEM. */
int seen_host(seen *s, const char *host, size_t host_len, const char *boot, size_t boot_len);

/* A complete round of the host in force, of file number file (path): warns
 * when it lies inside what an earlier file held (given twice) or before it
 * (out of order), and widens this file's span.  0, FPM_ENOMEM. */
int seen_round(seen *s, uint64_t file, const char *path, uint64_t mono, uint64_t real);

/* A file is done: the next may be warned about again. */
void seen_file_end(seen *s);

#endif
