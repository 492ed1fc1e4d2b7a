/* Replay: records into rounds into the pipeline. */
#include "replay.h"
#include "pending.h"
#include "rc.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "applier.h"
#include "fpmlog.h"
#include "grow.h"
#include "loss.h"
#include "namemap.h"
#include "notlog.h"
#include "progress.h"
#include "records.h"
#include "seen.h"
#include "seek.h"
#include "msg.h"

struct replay {
    pipeline *pl;
    uint64_t  records, rounds, damaged, dropped_rounds, hostless_rounds, unreadable, copies;
    double    progress_start, progress_shown; /* the progress line's clock, over files */
    uint64_t  progress_bytes;   /* bytes of the files replayed before this one */
    uint64_t  files;            /* files replayed so far */
    uint64_t  seq;              /* the last ROUND's seq in this recorder run ... */
    int       has_seq;          /* ... since its HOST record */
    seen     *seen;             /* which rounds each file held, per host */
    int       threads;          /* above 1: rounds parsed and applied on threads */
    struct applier *apply;      /* those threads */
    seek     *seek;             /* frames to jump over, or NULL */
    uint64_t  jumps;            /* jumps over frames, which hold records too */
    loss      loss;             /* what damage cost, in rounds and time */
};

void replay_set_seek(replay *st, seek *sk)
{
    st->seek = sk;
}

static int finish_round(replay *st, pending *p, const fpmlog_record *rec)
{
    /* with threads the applier takes the blob (the round's bytes), and gives
     * one back for the next round; alone, the pipeline reads them where the
     * reader holds them */
    if (st->apply && pend_take(p))
        return FPM_ENOMEM;
    pl_round r = pend_round(p, rec->real, rec->mono);
    int rc = st->apply ? applier_round(st->apply, &r, &p->blob.p, &p->blob.cap)
                       : pipeline_round(st->pl, &r);
    pend_drop(p);
    if (rc == FPM_ENOMEM)
        return FPM_ENOMEM;
    if (rc == FPM_EFAIL)
        st->hostless_rounds++;
    else
        st->rounds++;
    return 0;
}

int replay_drain(replay *st)
{
    if (st->apply && applier_drain(st->apply) != 0) {
        msg_warnx("out of memory");
        return FPM_ENOMEM;
    }
    return 0;
}

replay *replay_new(pipeline *pl, int threads)
{
    replay *st = calloc(1, sizeof *st);
    if (st && !(st->seen = seen_new())) {
        free(st);
        return NULL;
    }
    if (st) {
        st->pl = pl;
        st->threads = threads;
    }
    return st;
}

replay_counts replay_counts_of(const replay *st)
{
    return (replay_counts){st->records, st->rounds, st->damaged, st->dropped_rounds,
                           st->hostless_rounds, st->unreadable, st->copies};
}

void replay_free(replay *st)
{
    if (!st)
        return;
    applier_free(st->apply);
    seen_free(st->seen);
    free(st);
}

/* A HOST record: the host in force for the rounds that follow.  0, FPM_ENOMEM. */
static int seen_host_of(replay *st, const fpmlog_record *rec)
{
    size_t hn, bn;
    const char *h = fpmlog_kv(rec->payload, rec->len, "hostname", 0, &hn);
    const char *b = fpmlog_kv(rec->payload, rec->len, "boot_id", 0, &bn);
    return seen_host(st->seen, h, hn, b, bn);
}

static void say_pos(const char *path, const fpmlog_pos *pos, const char *what, const char *tail)
{
    char b[400];
    snprintf(b, sizeof b, "%s%s", what, tail);
    msg_damage(path, pos->offset, pos->compressed, pos->in_frame, b);
}

/* Whether a ROUND repeats an earlier one of the same recorder run: its seq
 * not above the last (fpmlog(5): a corrupted match can copy records, CRCs
 * and all).  A ROUND without a readable seq is not checked. */
static int round_is_copy(const fpmlog_record *rec, const char *path, replay *st, int *has_seq,
                         uint64_t *seq_out)
{
    uint64_t seq;
    *has_seq = fpmlog_kv_u64(rec->payload, rec->len, ROUND_SEQ, &seq) == 0;
    *seq_out = *has_seq ? seq : 0;
    if (!*has_seq)
        return 0;
    if (st->has_seq && seq <= st->seq) {
        char what[128];
        snprintf(what, sizeof what, "ROUND seq=%llu is not above the seq=%llu before it: a copy "
                 "of earlier records, the round is dropped", (unsigned long long)seq,
                 (unsigned long long)st->seq);
        say_pos(path, &rec->pos, what, "");
        st->copies++;
        return 1;
    }
    st->seq = seq;
    st->has_seq = 1;
    return 0;
}

/* One record, by its kind: HOST and POOL take effect, a round's records
 * are gathered, ROUND applies the round.  0, or FPM_ENOMEM. */
static int take_record(replay *st, pending *p, const fpmlog_record *rec, const char *path)
{
    rec_kind k = rec_kind_of(rec->type);
    switch (k.type) {
    case REC_ROUND: {
        uint64_t seq;
        int has_seq;
        if (round_is_copy(rec, path, st, &has_seq, &seq)) {
            pend_drop(p);
            return 0;
        }
        uint64_t before = st->rounds;
        int e = finish_round(st, p, rec);
        if (!e) {
            char say[300];
            loss_round(&st->loss, rec->real, has_seq, seq, rec->pos.compressed, rec->pos.offset,
                       say, sizeof say);
            if (say[0])
                msg_warnx("%s: %s", path, say);
        }
        if (!e && st->rounds > before)
            e = seen_round(st->seen, st->files, path, rec->mono, rec->real);
        return e;
    }
    case REC_HOST: {
        if (p->any) {
            st->dropped_rounds++;
            pend_drop(p); /* a new recorder: the old one died mid-round */
        }
        st->has_seq = 0; /* a new recorder run counts from 1 */
        loss_new_run(&st->loss);
        int hr = st->apply ? applier_host(st->apply, rec->payload, rec->len)
                           : pipeline_host(st->pl, rec->payload, rec->len);
        if (hr == FPM_EFAIL)
            say_pos(path, &rec->pos, "HOST record without hostname, ignored", "");
        if (hr == FPM_ENOMEM)
            return FPM_ENOMEM;
        return hr == FPM_OK ? seen_host_of(st, rec) : FPM_OK;
    }
    case REC_POOL:
        if (!rec->has_source)
            return 0;
        return (st->apply ? applier_pool(st->apply, rec->source, rec->source_len, rec->payload,
                                         rec->len)
                          : pipeline_pool(st->pl, rec->source, rec->source_len, rec->payload,
                                          rec->len)) == FPM_ENOMEM ? FPM_ENOMEM : FPM_OK;
    default:
        return k.role == REC_IN_ROUND ? pend_gather(p, k, rec) : 0;
    }
}


/* A jumped frame's own HOST and POOL records take effect as if read. */
typedef struct {
    replay     *st;
    pending    *p;
    const char *path;
} jump_ctx;

static int jump_record(void *arg, const fpmlog_record *rec)
{
    jump_ctx *c = arg;
    return take_record(c->st, c->p, rec, c->path);
}

/* A jumped frame done: its pools made known, its rounds' state unknown. */
static int jump_done(void *arg, const seek_frame *f)
{
    jump_ctx *c = arg;
    const fpmsum *sum = f->sum;
    int rc = replay_drain(c->st); /* its records are applied before */
    for (size_t i = 0; rc == 0 && i < f->npools; i++)
        rc = pipeline_skipped_pool(c->st->pl, sum->hostname, sum->hostname_len, f->pools[i],
                                   f->lens[i], f->id);
    pipeline_skipped(c->st->pl, sum->hostname, sum->hostname_len, sum->rounds, sum->min_real,
                     sum->max_real, f->id);
    if (sum->rounds)
        c->st->has_seq = 0; /* the seq of the rounds jumped over is not known */
    return rc;
}

/* The reader jumped over [off, off + len): the pipeline is told what those
 * frames' summaries hold: their records as read, then (once the threads
 * applied everything before) their pools and rounds directly.  0,
 * FPM_ENOMEM, or FPM_EFAIL when a summary no longer checks out. */
static int take_jump(replay *st, pending *p, const char *path, uint64_t off, uint64_t len)
{
    pend_drop(p); /* a skipped frame begins between rounds: nothing is pending */
    st->jumps++;
    loss_new_run(&st->loss);
    jump_ctx c = {st, p, path};
    return seek_jumped(st->seek, st->files, off, len, jump_record, jump_done, &c);
}

/* Damage met before a file's first record is said only once a record shows
 * the file is a log at all. */
#define EARLY 8

static void flush_early(const char *path, fpmlog_damage *early, size_t *n)
{
    for (size_t i = 0; i < *n; i++)
        say_pos(path, &early[i].pos, early[i].what, "");
    *n = 0;
}

/* The counters as a file began. */
typedef struct {
    uint64_t hostless, damaged, records, jumps;
    int      open_tail; /* the file ended inside its last frame */
} file_marks;

/* What a file's end says: a round left open, hostless rounds, the damage,
 * or that it was no log at all (-1).  Returns rc. */
static int file_end(const char *path, replay *st, const file_marks *m, int rc, int in_round)
{
    if (in_round && rc == 0) {
        st->dropped_rounds++;
        msg_warnx("%s: the file ends inside a round (no ROUND record): that round is dropped",
                  path);
    }
    if (st->hostless_rounds > m->hostless)
        msg_warnx("%s: %llu round(s) before any HOST record belong to no host: ignored", path,
                  (unsigned long long)(st->hostless_rounds - m->hostless));
    int no_record = st->records == m->records && st->jumps == m->jumps;
    if (no_record)
        st->damaged = m->damaged; /* not a log: its bytes are no damage */
    char say[300];
    loss_file_end(&st->loss, say, sizeof say);
    if (say[0] && !no_record)
        msg_warnx("%s: %s", path, say);
    if (st->damaged > m->damaged) {
        loss_summary(&st->loss, say, sizeof say);
        msg_warnx("%s: %llu damaged record(s) skipped; %s", path,
                  (unsigned long long)(st->damaged - m->damaged), say);
    }
    if (rc == 0 && no_record) {
        if (m->open_tail) /* a log's first frame, cut short before its first record */
            msg_warnx("%s: no complete record before the file ends: nothing to read", path);
        else
            msg_warnx("%s: no fpmlog record in it: not a log", path);
        st->unreadable++;
        rc = FPM_EFAIL;
    }
    return rc;
}

/* How the replay's threads share the work, threads in all up to 6: the
 * reader, the apply thread (which parses what no parse thread took), parse
 * threads, and from 4 threads on decoders of frames ahead (decoding is
 * about a third of a replay's work, parsing a half: on 3 threads a parse
 * thread takes more off the others than a decoder would).  Past 2 decoders
 * and 2 parse threads the reader and the apply thread are the slowest: more
 * would only hold memory. */
static void split_threads(int threads, int *decoders, int *parsers)
{
    *decoders = threads >= 5 ? 2 : threads >= 4 ? 1 : 0;
    *parsers = threads - 2 - *decoders;
    if (*parsers > 2)
        *parsers = 2;
}

/* A reader of path, and the replay threads when they are wanted and not
 * started yet; NULL when the file is no log or cannot be opened (said and
 * counted unreadable).  Frames are decoded ahead when there are threads for
 * it and the log is a regular file. */
static fpmlog_reader *open_log(replay *st, const char *path)
{
    char why[256];
    int decoders, parsers;
    split_threads(st->threads, &decoders, &parsers);
    const char *kind = notlog_kind(path);
    fpmlog_reader *r = kind ? NULL : fpmlog_reader_open(path, why, sizeof why);
    if (kind)
        msg_warnx("%s: %s", path, kind);
    else if (!r)
        msg_warnx("%s: could not open: %s", path, why);
    else if (st->threads > 1 && !st->apply && !(st->apply = applier_new(st->pl, parsers))) {
        msg_warnx("%s: could not start the replay threads", path);
        fpmlog_reader_free(r);
        r = NULL;
    } else if (st->seek) {
        /* frames decoded ahead would be the ones jumped over */
        fpmlog_reader_set_skip(r, seek_skip, seek_file(st->seek, st->files));
    } else if (decoders) {
        fpmlog_reader_ahead(r, decoders); /* else the reader decodes */
    }
    if (!r)
        st->unreadable++;
    return r;
}

/* The progress line, every 256 records when a quarter second has gone by
 * since the last; 1 when it was shown (and is to be wiped). */
static int tick_progress(const char *path, fpmlog_reader *r, uint64_t total, replay *st)
{
    if ((st->records & 255) != 0 || progress_now() - st->progress_shown < 0.25)
        return 0;
    st->progress_shown = progress_now();
    uint64_t done = fpmlog_reader_tell(r);
    double secs = st->progress_shown - st->progress_start;
    progress_show(path, done, total,
                  secs > 0 ? (double)(st->progress_bytes + done) / secs : 0, st->rounds);
    return 1;
}

/* Damage the reader met: said (held while the file has shown no record
 * yet), counted, and the round it broke dropped; or, with open_tail, the
 * notice that the file ends inside its last frame, with the rounds read
 * from that frame. */
static void take_damage(replay *st, pending *p, const char *path, const fpmlog_damage *dmg,
                        file_marks *m, fpmlog_damage *early, size_t *nearly)
{
    if (dmg->open_tail) { /* no damage: said as it is */
        flush_early(path, early, nearly);
        m->open_tail = 1;
        uint64_t n = loss_frame_rounds(&st->loss, dmg->pos.offset);
        msg_warnx("%s: %s: %llu round%s read from it", path, dmg->what, (unsigned long long)n,
                  n == 1 ? "" : "s");
        return;
    }
    st->damaged++;
    loss_damage(&st->loss, dmg->pos.offset);
    if (st->records == m->records && st->jumps == m->jumps && *nearly < EARLY) {
        early[(*nearly)++] = *dmg; /* said once the file shows it is a log */
        return;
    }
    flush_early(path, early, nearly);
    int lose = dmg->breaks_round && p->any;
    say_pos(path, &dmg->pos, dmg->what, lose ? "; the round it was in is dropped" : "");
    if (lose) {
        st->dropped_rounds++;
        pend_drop(p);
    }
}

int replay_file(replay *st, const char *path, int progress)
{
    fpmlog_reader *r = open_log(st, path);
    if (!r)
        return FPM_EFAIL;
    pending p = {.rd = r};
    struct stat sb;
    uint64_t total = stat(path, &sb) == 0 && S_ISREG(sb.st_mode) ? (uint64_t)sb.st_size : 0;
    if (progress && st->progress_start == 0)
        st->progress_start = st->progress_shown = progress_now();
    int progress_on_screen = 0;
    fpmlog_record rec;
    fpmlog_damage dmg;
    file_marks m = {st->hostless_rounds, st->damaged, st->records, st->jumps, 0};
    loss_file(&st->loss);
    fpmlog_damage early[EARLY];
    size_t nearly = 0;
    int rc = 0, ret;
    while ((ret = fpmlog_reader_next(r, &rec, &dmg)) != 0) {
        if (progress_on_screen) {
            msg_progress_clear();
            progress_on_screen = 0;
        }
        if (ret == -2) {
            say_pos(path, &dmg.pos, dmg.what, "");
            st->unreadable++;
            rc = FPM_EFAIL;
            break;
        }
        if (ret == 2) {
            int e = take_jump(st, &p, path, rec.pos.offset, rec.len);
            if (e == FPM_EFAIL) {
                msg_warnx("%s: offset %llu: a frame's summary no longer checks out: the file "
                          "changed while it was read", path, (unsigned long long)rec.pos.offset);
                st->unreadable++;
                rc = FPM_EFAIL;
                break;
            }
            if (e) {
                msg_warnx("%s: out of memory", path);
                rc = FPM_ENOMEM;
                break;
            }
            continue;
        }
        if (ret == -1) {
            take_damage(st, &p, path, &dmg, &m, early, &nearly);
            continue;
        }
        st->records++;
        flush_early(path, early, &nearly);
        if (progress)
            progress_on_screen = tick_progress(path, r, total, st);
        int e = take_record(st, &p, &rec, path);
        if (e) {
            msg_warnx("%s: out of memory", path);
            rc = FPM_ENOMEM;
            break;
        }
    }
    if (progress_on_screen)
        msg_progress_clear();
    rc = file_end(path, st, &m, rc, p.any);
    st->progress_bytes += fpmlog_reader_tell(r);
    st->files++;
    seen_file_end(st->seen);
    pend_free(&p);
    fpmlog_reader_free(r);
    return rc;
}
