/* The CSV exports, parsed back with libcsv. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <csv.h>

#include "rows.h"
#include "msg.h"
#include "replay.h"
#include "pipeline_harness.h"

typedef struct {
    char   *f[32];
    size_t  nf;
    char ***rows;      /* rows[r][c] */
    size_t *ncols;
    size_t  nrows;
} table_t;

static void on_field(void *s, size_t len, void *arg)
{
    table_t *t = arg;
    char *c = malloc(len + 1);
    memcpy(c, s, len);
    c[len] = '\0';
    if (t->nf < 32)
        t->f[t->nf++] = c;
    else
        free(c);
}

static void on_row(int term, void *arg)
{
    (void)term;
    table_t *t = arg;
    t->rows = realloc(t->rows, (t->nrows + 1) * sizeof *t->rows);
    t->ncols = realloc(t->ncols, (t->nrows + 1) * sizeof *t->ncols);
    t->rows[t->nrows] = malloc(t->nf * sizeof(char *));
    memcpy(t->rows[t->nrows], t->f, t->nf * sizeof(char *));
    t->ncols[t->nrows++] = t->nf;
    t->nf = 0;
}

static table_t parse(const char *text, size_t n)
{
    table_t t = {0};
    struct csv_parser p;
    assert_int_equal(csv_init(&p, CSV_STRICT | CSV_STRICT_FINI), 0);
    assert_int_equal(csv_parse(&p, text, n, on_field, on_row, &t), n);
    assert_int_equal(csv_fini(&p, on_field, on_row, &t), 0);
    csv_free(&p);
    return t;
}

static void table_free_all(table_t *t)
{
    for (size_t r = 0; r < t->nrows; r++) {
        for (size_t c = 0; c < t->ncols[r]; c++)
            free(t->rows[r][c]);
        free(t->rows[r]);
    }
    free(t->rows);
    free(t->ncols);
}

/* Replays log with both CSV exports attached; *r and *o get them parsed
 * back with libcsv. */
static pipeline *csv_of(const char *log, table_t *r, table_t *o)
{
    char *rt = NULL, *ot = NULL;
    size_t rl = 0, ol = 0;
    csvout c = {open_memstream(&rt, &rl), open_memstream(&ot, &ol)};
    pipeline *pl = pipeline_new(NULL);
    rows_attach(&c, pl);
    th_replay_quiet(pl, log);
    fclose(c.readings);
    fclose(c.rounds);
    *r = parse(rt, rl);
    *o = parse(ot, ol);
    free(rt);
    free(ot);
    return pl;
}

static void test_csv_of_readings_and_rounds_parses_back(void **state)
{
    (void)state;
    table_t r, o;
    pipeline *pl = csv_of("fixtures/logs/odd-names.fpmlog", &r, &o);
    assert_string_equal(r.rows[0][0], "time");
    assert_string_equal(r.rows[0][8], "verdict");
    assert_string_equal(o.rows[0][11], "recovered_cores");
    assert_string_equal(o.rows[0][13], "active");
    assert_string_equal(o.rows[0][14], "maxed");
    assert_string_equal(o.rows[0][15], "queue");
    assert_string_equal(o.rows[0][16], "fit_point");
    assert_string_equal(o.rows[0][17], "joint_point");
    assert_string_equal(o.rows[0][18], "inconsistent");
    assert_string_equal(o.rows[0][5], "steal_pct");
    assert_string_equal(o.rows[0][22], "unanswered_full");
    const char *odd = "a\"; system(\"touch /tmp/fpmcpu-pwned\"); \"";
    pl_host *const *hs;
    pipeline_hosts(pl, &hs);
    const pl_host *h = hs[0];
    uint64_t accepted = 0, starved = 0, odd_rows = 0;
    for (size_t i = 1; i < r.nrows; i++) {
        assert_int_equal(r.ncols[i], 9);
        assert_string_equal(r.rows[i][1], "web\"4");
        accepted += strcmp(r.rows[i][8], "accepted") == 0;
        odd_rows += strcmp(r.rows[i][2], odd) == 0;
        assert_int_equal(strlen(r.rows[i][0]), 24); /* 2026-11-29T22:07:10.008Z */
    }
    for (size_t i = 1; i < o.nrows; i++) {
        assert_int_equal(o.ncols[i], 25);
        starved += strcmp(o.rows[i][19], "1") == 0;
    }
    uint64_t readings = 0, want_starved = 0;
    for (size_t i = 0; i < h->npools; i++) {
        readings += h->pools[i]->h.total;
        want_starved += h->pools[i]->starved;
    }
    assert_int_equal(accepted, readings);
    assert_int_equal(starved, want_starved);
    assert_true(odd_rows > 0);
    assert_int_equal(o.nrows - 1, 3 * h->rounds); /* three pools in every round */
    table_free_all(&r);
    table_free_all(&o);
    pipeline_free(pl);
}

/* One convention with --format csv: numbers bare, words quoted.  small.fpmlog
 * has no comma nor quote in its names, so a raw line splits at commas. */
static void test_numbers_are_bare_and_words_quoted(void **state)
{
    (void)state;
    char *rt = NULL, *ot = NULL;
    size_t rl = 0, ol = 0;
    csvout c = {open_memstream(&rt, &rl), open_memstream(&ot, &ol)};
    pipeline *pl = pipeline_new(NULL);
    rows_attach(&c, pl);
    th_replay_quiet(pl, "fixtures/logs/small.fpmlog");
    fclose(c.readings);
    fclose(c.rounds);
    size_t numbers = 0, words = 0;
    char *texts[2] = {rt, ot};
    for (int k = 0; k < 2; k++) {
        char *save = NULL;
        strtok_r(texts[k], "\r\n", &save); /* the header: names, quoted */
        for (char *line; (line = strtok_r(NULL, "\r\n", &save));) {
            char *fs = NULL;
            for (char *f = strtok_r(line, ",", &fs); f; f = strtok_r(NULL, ",", &fs)) {
                if (f[0] == '"') {
                    words++;
                    char *end;
                    strtod(f + 1, &end);
                    assert_false(end > f + 1 && *end == '"'); /* a quoted number */
                } else {
                    numbers++;
                    char *end;
                    strtod(f, &end);
                    assert_true(end > f && *end == '\0'); /* a bare word */
                }
            }
        }
    }
    assert_true(numbers > 1000 && words > 1000);
    free(rt);
    free(ot);
    pipeline_free(pl);
}

static void assert_row(const table_t *t, size_t row, const char *const *want, size_t n)
{
    assert_int_equal(t->ncols[row], n);
    for (size_t k = 0; k < n; k++)
        assert_string_equal(t->rows[row][k], want[k]);
}

/* The values of the first rows of small.fpmlog, exactly: times in UTC with
 * milliseconds, a pair's figures with a fixed number of decimals, an
 * unusable pair's left empty. */
static void test_csv_values(void **state)
{
    (void)state;
    table_t r, o;
    pipeline *pl = csv_of("fixtures/logs/small.fpmlog", &r, &o);
    static const char *const reading[] = {"2026-11-29T22:07:10.008Z", "web1", "api", "4200", "17",
                                          "Idle", "323333", "8.37", "primed"};
    assert_row(&r, 1, reading, 9);
    static const char *const first[] = {"2026-11-29T22:07:10.008Z", "web1", "api", "", "", "", "",
                                        "", "", "", "", "", "0", "1", "0", "", "none", "0", "0",
                                        "0", "0", "0", "0", "", ""};
    assert_row(&o, 1, first, 25);
    static const char *const pair[] = {"2026-11-29T22:07:40.043Z", "web1", "shop", "30.028",
                                       "2.2682", "0.00", "", "", "", "0.5671", "1.4460", "0.0000",
                                       "0", "2", "0", "", "dominant", "1", "0", "0", "0", "0",
                                       "0", "", ""};
    assert_row(&o, 4, pair, 25);
    table_free_all(&r);
    table_free_all(&o);
    pipeline_free(pl);
    /* section 9's shares, in percent with two decimals */
    pl = csv_of("fixtures/logs/throttled.fpmlog", &r, &o);
    static const char *const box[] = {"2026-11-29T22:07:40.047Z", "box2", "shop", "30.016",
                                      "1.4992", "0.00", "35.00", "19.99", "94.31", "0.9995",
                                      "1.3932", "0.0000", "0", "1", "0", "", "none", "0", "0",
                                      "0", "0", "0", "0", "", ""};
    assert_row(&o, 4, box, 25);
    table_free_all(&r);
    table_free_all(&o);
    pipeline_free(pl);
    /* 14.1, 14.3: the shop's 8 workers hold 40 to 47 MiB private (348 MiB);
     * the host's other is MemTotal - MemAvailable (whole kB) - the pools' 483 MiB */
    pl = csv_of("fixtures/logs/memory.fpmlog", &r, &o);
    assert_string_equal(o.rows[2][2], "shop");
    assert_string_equal(o.rows[2][23], "364904448");
    assert_string_equal(o.rows[2][24], "1661004800");
    table_free_all(&r);
    table_free_all(&o);
    pipeline_free(pl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_csv_of_readings_and_rounds_parses_back),
        cmocka_unit_test(test_numbers_are_bare_and_words_quoted),
        cmocka_unit_test(test_csv_values),
    };
    return cmocka_run_group_tests_name("csvout", tests, NULL, NULL);
}
