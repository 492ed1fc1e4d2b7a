/* readlog LOG [DECODERS [WORK]]: reads every record of LOG, the frames
 * decoded ahead on DECODERS threads (0, the default: the reader alone), and
 * prints how many records and bytes it read.  make bench times it against
 * zstd -dc: what decoding frames in parallel does on its own.
 *
 * WORK is what is done to each line of the ACCESS records besides, the
 * floors of a census's replay (docs/maintaining.md): `lines` finds each
 * line's end; `bytes` also takes each of its bytes once through a table
 * (the least any reading of a line's fields can do); `match` also matches
 * it against 20.7's access.format (formats/accessfmt.h), as fpm-analyze
 * does before the rules read its values.  `pages` is the floor of a
 * status-page log's replay: each STATUS record parsed as fpm-analyze parses
 * it (formats/status.h) and each PIDS line read (procfs_proc_stat), nothing
 * applied. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accessfmt.h"
#include "fpmlog.h"
#include "procfs.h"
#include "status.h"

enum { NONE, LINES, BYTES, MATCH, PAGES };

/* The work on one ACCESS record's lines: a sum, so that none is left out. */
static unsigned long long lines_of(const fpmlog_record *rec, int work, const af_format *f,
                                   af_matcher *m, unsigned long long *lines)
{
    unsigned long long sum = 0;
    const unsigned char *b = rec->payload, *end = b + rec->len;
    while (b < end) {
        const unsigned char *nl = memchr(b, '\n', (size_t)(end - b));
        size_t len = nl ? (size_t)(nl - b) : (size_t)(end - b);
        if (work == BYTES)
            for (size_t k = 0; k < len; k++)
                sum += f->in[b[k]];
        else if (work == MATCH)
            sum += (unsigned)af_match(m, f, b, len);
        else
            sum += len;
        (*lines)++;
        b += len + (nl != NULL);
    }
    return sum;
}

static void pid_seen(void *arg, const procfs_proc *p)
{
    *(unsigned long long *)arg += p->ticks;
}

/* The work on a STATUS or PIDS record: its workers (or processes) counted. */
static unsigned long long page_of(const fpmlog_record *rec, status_page *pg,
                                  unsigned long long *lines)
{
    unsigned long long sum = 0;
    if (strcmp(rec->type, "STATUS") == 0) {
        if (status_parse(pg, (const char *)rec->payload, rec->len) == 0)
            *lines += pg->nworkers;
    } else if (strcmp(rec->type, "PIDS") == 0) {
        procfs_each_pid((const char *)rec->payload, rec->len, pid_seen, &sum);
    }
    return sum;
}

int main(int argc, char **argv)
{
    static const char *const works[] = {"", "lines", "bytes", "match", "pages"};
    int work = NONE;
    if (argc == 4)
        for (work = LINES; work <= PAGES && strcmp(argv[3], works[work]) != 0; work++)
            ;
    if (argc < 2 || argc > 4 || work > PAGES) {
        fprintf(stderr, "usage: readlog LOG [DECODERS [lines|bytes|match|pages]]\n");
        return 2;
    }
    char err[256];
    fpmlog_reader *r = fpmlog_reader_open(argv[1], err, sizeof err);
    if (!r) {
        fprintf(stderr, "readlog: %s: %s\n", argv[1], err);
        return 2;
    }
    int decoders = argc >= 3 ? atoi(argv[2]) : 0;
    if (decoders > 0 && fpmlog_reader_ahead(r, decoders) != 0)
        fprintf(stderr, "readlog: %s: frames not decoded ahead\n", argv[1]);
    af_format f = {0};
    af_matcher m = {0};
    if (work != NONE && (af_compile(&f, AF_CENSUS_FORMAT, strlen(AF_CENSUS_FORMAT)) != 0 ||
                         af_matcher_init(&m, &f) != 0)) {
        fprintf(stderr, "readlog: out of memory\n");
        return 2;
    }
    status_page pg = {0};
    fpmlog_record rec;
    fpmlog_damage dmg;
    unsigned long long records = 0, bytes = 0, damaged = 0, lines = 0, sum = 0;
    int ret;
    while ((ret = fpmlog_reader_next(r, &rec, &dmg)) != 0 && ret != -2) {
        if (ret == 1) {
            records++;
            bytes += rec.len;
            if (work == PAGES)
                sum += page_of(&rec, &pg, &lines);
            else if (work != NONE && strcmp(rec.type, "ACCESS") == 0)
                sum += lines_of(&rec, work, &f, &m, &lines);
        } else {
            damaged++;
        }
    }
    fpmlog_reader_free(r);
    af_matcher_free(&m);
    af_free(&f);
    status_page_free(&pg);
    printf("%llu records, %llu payload bytes, %llu damaged", records, bytes, damaged);
    if (work != NONE)
        printf(work == PAGES ? "; %llu workers (%llu ticks)" : "; %llu access lines (%llu)",
               lines, sum);
    printf("\n");
    return ret == -2 ? 2 : 0;
}
