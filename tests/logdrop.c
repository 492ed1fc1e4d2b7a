/* logdrop TYPE < LOG > OUT: the records of LOG but those of TYPE, as a
 * plain log (tests: the same recording read without its MASTER records,
 * as a recorder before them would have written it).  Damage ends it. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fpmlog.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: logdrop TYPE < LOG > OUT\n");
        return 2;
    }
    fpmlog_reader *r = fpmlog_reader_fdopen(0);
    fpmlog_writer *w = fpmlog_writer_new(1, 0);
    if (!r || !w)
        return 2;
    fpmlog_record rec;
    fpmlog_damage dmg;
    int ret;
    unsigned long kept = 0, dropped = 0;
    while ((ret = fpmlog_reader_next(r, &rec, &dmg)) == 1) {
        if (strcmp(rec.type, argv[1]) == 0) {
            dropped++;
            continue;
        }
        if (fpmlog_write(w, rec.type, rec.mono, rec.real, rec.has_source ? rec.source : NULL,
                         rec.source_len, rec.payload, rec.len) != 0) {
            perror("logdrop: write");
            return 2;
        }
        kept++;
    }
    if (ret != 0) {
        fprintf(stderr, "logdrop: damage at offset %llu: %s\n",
                (unsigned long long)dmg.pos.offset, dmg.what);
        return 2;
    }
    if (fpmlog_writer_flush(w) != 0) {
        perror("logdrop: write");
        return 2;
    }
    fpmlog_writer_free(w);
    fpmlog_reader_free(r);
    fprintf(stderr, "logdrop: %lu records kept, %lu %s dropped\n", kept, dropped, argv[1]);
    return 0;
}
