/* readlog LOG [DECODERS]: reads every record of LOG, the frames decoded
 * ahead on DECODERS threads (0, the default: the reader alone), and prints
 * how many records and bytes it read.  make bench times it against
 * zstd -dc: what decoding frames in parallel does on its own. */
#include <stdio.h>
#include <stdlib.h>

#include "fpmlog.h"

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 3) {
        fprintf(stderr, "usage: readlog LOG [DECODERS]\n");
        return 2;
    }
    char err[256];
    fpmlog_reader *r = fpmlog_reader_open(argv[1], err, sizeof err);
    if (!r) {
        fprintf(stderr, "readlog: %s: %s\n", argv[1], err);
        return 2;
    }
    int decoders = argc == 3 ? atoi(argv[2]) : 0;
    if (decoders > 0 && fpmlog_reader_ahead(r, decoders) != 0)
        fprintf(stderr, "readlog: %s: frames not decoded ahead\n", argv[1]);
    fpmlog_record rec;
    fpmlog_damage dmg;
    unsigned long long records = 0, bytes = 0, damaged = 0;
    int ret;
    while ((ret = fpmlog_reader_next(r, &rec, &dmg)) != 0 && ret != -2) {
        if (ret == 1) {
            records++;
            bytes += rec.len;
        } else {
            damaged++;
        }
    }
    fpmlog_reader_free(r);
    printf("%llu records, %llu payload bytes, %llu damaged\n", records, bytes, damaged);
    return ret == -2 ? 2 : 0;
}
