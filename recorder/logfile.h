/*
 * logfile: the recorder's side of an fpmlog file.  Records of a round are
 * compressed into memory and written at the round's end with ZSTD_e_flush,
 * so a crash loses only the round in flight.  A write that fails (ENOSPC,
 * EIO) abandons the frame; the next commit cuts the file back to the last
 * good byte, closes the old frame and starts a new one, so every round
 * written before the failure and after the recovery reads back.  Nothing
 * prints.
 */
#ifndef LOGFILE_H
#define LOGFILE_H

#include <stddef.h>
#include <stdint.h>

typedef struct logfile logfile;

/* Opens path for appending: created mode 0600 (an empty file it adopts is
 * made 0600), never through a symlink, and locked (an fcntl open file
 * description lock, for as long as it is open): a log another recorder holds is refused, naming
 * its pid, before anything is read or repaired.
 * Only a file that is ours is opened: a new one, or a regular file that is
 * empty or begins with a record or a zstd frame; anything else (a text
 * file, a directory, a device, a FIFO) is refused with not a byte written.  An
 * existing log whose last zstd frame was left open is closed first (a
 * partial block cut off, the empty last block 01 00 00 appended); what was
 * done is put in repaired ("" when nothing).  level 0 writes plain records;
 * a log that ends in plain records stays plain.  NULL with err on failure. */
logfile *logfile_open(const char *path, int level, char *repaired, size_t rlen,
                      char *err, size_t errlen);

/* Adds a record to what the next commit writes.  0, or -1 (errno). */
int logfile_add(logfile *lf, const char *type, uint64_t mono, uint64_t real,
                const char *source, size_t source_len, const void *payload, size_t len);

/* Writes what was added, flushed; with end_frame the zstd frame is ended.
 * 0 ok; -1 with errno when it could not all be written: those records are
 * lost and the next commit starts a new frame. */
int logfile_commit(logfile *lf, int end_frame);

/* Bytes written to the file so far (after the last good commit). */
uint64_t logfile_size(const logfile *lf);

/* The bytes of records in the frame being written (fpmlog_writer_frame_bytes). */
uint64_t logfile_frame_bytes(const logfile *lf);

/* Commits with the frame ended and closes; NULL is fine.  0, or -1. */
int logfile_close(logfile *lf);

/* Closes without writing anything more, leaving the file as a crash would
 * (for tests); NULL is fine. */
void logfile_drop(logfile *lf);

/* Closes a zstd frame left open at the end of fd (see logfile_open).
 * Returns 0 with what was done in repaired, or -1 (errno).  *plain_tail
 * says whether the file ends in plain records. */
int logfile_repair(int fd, char *repaired, size_t rlen, int *plain_tail);

#endif
