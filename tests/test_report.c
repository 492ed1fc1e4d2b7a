/* docs/rules.md sections 4 (shape), 7 (what-if arithmetic) and 8 (JSON), and
 * the text table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "pipeline_harness.h"
#include "report.h"

/* A pool with n readings at share s (hundredths) and max_children now. */
static pl_pool pool_of(int n, int64_t s, int64_t now)
{
    pl_pool p = {0};
    p.name = "p";
    p.name_len = 1;
    for (int i = 0; i < n; i++)
        hist_add(&p.h, s, 0);
    p.max_children = now;
    return p;
}

/* A believed fit whose slope is exactly 1.25 (all sums exact in binary). */
static void fit_125(pl_pool *p)
{
    p->f = (fit){.n = 40, .sx = 40, .sxx = 80, .sy = 80, .sxy = 130};
}

static void test_shape_needs_20_readings(void **state)
{
    (void)state;
    pl_pool p = pool_of(19, 7000, 10);
    wi_view v = whatif_pool_view(&p, 4000, 200, p.max_children);
    assert_null(v.shape);
    assert_int_equal(v.has_typical, 1);
    assert_int_equal(v.typical_pct, 70);
    assert_int_equal(v.has_fill, 0);
    assert_int_equal(v.limit, WI_LIMIT_UNKNOWN);
    p = pool_of(20, 7000, 10);
    v = whatif_pool_view(&p, 4000, 200, p.max_children);
    assert_string_equal(v.shape, "cpu-bound");
}

static void test_shape_thresholds_50_and_20(void **state)
{
    (void)state;
    static const struct { int64_t s; const char *shape; } c[] = {
        {5000, "cpu-bound"}, {4999, "mixed"}, {2000, "mixed"}, {1999, "i/o-bound"},
        {0, "i/o-bound"}, {30000, "cpu-bound"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        pl_pool p = pool_of(20, c[i].s, 0);
        assert_string_equal(whatif_pool_view(&p, 4000, 200, p.max_children).shape, c[i].shape);
    }
}

static void test_php_millicores_is_typical_times_10(void **state)
{
    (void)state;
    pl_pool p = pool_of(30, 7099, 0);
    wi_view v = whatif_pool_view(&p, 4000, 200, p.max_children);
    assert_int_equal(v.php_millicores, 700);
    assert_int_equal(v.host_millicores_per_worker, 700); /* no fit: PHP's own */
}

static void test_host_cost_is_php_times_overhead_rounded_half_away(void **state)
{
    (void)state;
    pl_pool p = pool_of(30, 500, 0); /* TYPICAL 5%: 50m */
    fit_125(&p);
    wi_view v = whatif_pool_view(&p, 4000, 200, p.max_children);
    assert_int_equal(v.line.believed, 1);
    assert_true(v.line.overhead == 1.25);
    assert_int_equal(v.host_millicores_per_worker, 63); /* 62.5 rounds up */
    p = pool_of(30, 7000, 0);
    fit_125(&p);
    assert_int_equal(whatif_pool_view(&p, 4000, 200, p.max_children).host_millicores_per_worker, 875);
}

static void test_fill_is_the_ceiling_of_host_over_cost(void **state)
{
    (void)state;
    pl_pool p = pool_of(30, 7000, 0);
    wi_view v = whatif_pool_view(&p, 4000, 200, p.max_children);
    assert_int_equal(v.fill, 6); /* 4000 / 700 = 5.7 */
    p = pool_of(30, 10000, 0);
    v = whatif_pool_view(&p, 4000, 200, p.max_children);
    assert_int_equal(v.fill, 4); /* exactly 4 */
}

static void test_ceiling_is_the_knee_times_headroom_at_least_cores_plus_1(void **state)
{
    (void)state;
    pl_pool p = pool_of(30, 7000, 0);
    assert_int_equal(whatif_pool_view(&p, 4000, 200, p.max_children).ceiling, 11); /* 5.71 x 2 */
    p = pool_of(30, 320000, 0); /* 32000m: fill 1 */
    assert_int_equal(whatif_pool_view(&p, 4000, 200, p.max_children).fill, 1);
    assert_int_equal(whatif_pool_view(&p, 4000, 200, p.max_children).ceiling, 5);  /* 4 cores + 1 */
    assert_int_equal(whatif_pool_view(&p, 2500, 200, p.max_children).ceiling, 4);  /* ceil(2.5) + 1 */
    assert_int_equal(whatif_pool_view(&p, 4000, 100, p.max_children).ceiling, 5);
}

static void test_headroom_is_exact_in_hundredths(void **state)
{
    (void)state;
    pl_pool p = pool_of(30, 10000, 0); /* 1000m: fill 48 on 50 cores (95%) */
    wi_view v = whatif_pool_view(&p, 50000, 110, p.max_children);
    assert_int_equal(v.fill, 48);
    assert_int_equal(v.ceiling, 55); /* not 56 */
    v = whatif_pool_view(&p, 50000, 101, p.max_children);
    assert_int_equal(v.ceiling, 51); /* 50.5 rounds down, and ceil(50) + 1 = 51 */
    v = whatif_pool_view(&p, 49000, 133, p.max_children);
    assert_int_equal(v.ceiling, 65); /* 49 x 1.33 = 65.17, rounded down */
    v = whatif_pool_view(&p, 100000, 115, p.max_children);
    assert_int_equal(v.ceiling, 115); /* 100 x 1.15 is 115, where doubles say 114.99999999999999 */
}

static void test_limit_is_cpu_past_the_ceiling_workers_within_it(void **state)
{
    (void)state;
    pl_pool p = pool_of(30, 7000, 12);
    assert_int_equal(whatif_pool_view(&p, 4000, 200, p.max_children).limit, WI_LIMIT_CPU);
    p = pool_of(30, 7000, 11);
    assert_int_equal(whatif_pool_view(&p, 4000, 200, p.max_children).limit, WI_LIMIT_WORKERS);
    p = pool_of(30, 7000, 0);
    assert_int_equal(whatif_pool_view(&p, 4000, 200, p.max_children).limit, WI_LIMIT_UNKNOWN);
}

static void test_no_fill_without_a_host_size_or_a_cost(void **state)
{
    (void)state;
    pl_pool p = pool_of(30, 7000, 40);
    wi_view v = whatif_pool_view(&p, 0, 200, p.max_children);
    assert_int_equal(v.has_fill, 0);
    assert_int_equal(v.limit, WI_LIMIT_UNKNOWN);
    p = pool_of(30, 499, 40); /* TYPICAL <5%: 0m per worker */
    v = whatif_pool_view(&p, 4000, 200, p.max_children);
    assert_string_equal(v.shape, "i/o-bound");
    assert_int_equal(v.host_millicores_per_worker, 0);
    assert_int_equal(v.has_fill, 0);
}

static void test_host_line_sums_now_and_ceiling(void **state)
{
    (void)state;
    pl_pool a = pool_of(30, 7000, 40), b = pool_of(30, 1000, 0), c = pool_of(5, 7000, 9);
    wi_view v[3] = {whatif_pool_view(&a, 4000, 200, a.max_children), whatif_pool_view(&b, 4000, 200, b.max_children),
                         whatif_pool_view(&c, 4000, 200, c.max_children)};
    int64_t now, atc;
    whatif_host_needs(v, 3, &now, &atc);
    assert_int_equal(now, 40 * 700);            /* b's now unknown, c has no shape */
    assert_int_equal(atc, 11 * 700 + 80 * 100); /* a: ceiling 11; b: fill 40, ceiling 80 */
    whatif_host_needs(v, 0, &now, &atc);
    assert_int_equal(now, 0);
    assert_int_equal(atc, 0);
}

static char *render(const pipeline *pl, const char *format, const wi_scenario *sc)
{
    char *s = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&s, &n);
    wi_answers a = th_answers(pl, sc);
    assert_int_equal(report_print(f, report_format(format), &a, sc), 0);
    whatif_answers_free(&a);
    fclose(f);
    return s;
}

/* A small history: host web1 with 4 cores, pool "shop" with 20 readings at
 * 70%, the last 2 in starved rounds (so its shares are floors: 17.4) or,
 * calm, none; pool "young" with 3 readings. */
static pipeline *history_of(int starved)
{
    pipeline *pl = pipeline_new(NULL);
    th_host(pl, "web1", 4, "b", 0);
    th_pool(pl, "shop", 40, "/status");
    th_pool(pl, "young", 0, NULL);
    for (int k = 0; k < 21; k++) {
        int full = starved && k >= 19;
        th_round *r = th_round_at(30.0 * k, (full ? 11600ULL * (unsigned)(k - 18) : 0) + 1000ULL * k);
        tworker w[] = {{100, "Idle", k + 1, 90000, "/buy", "70.00"}};
        th_status(r, "shop", full ? 2 : 0, w, k ? 1 : 0);
        tworker y[] = {{200, "Idle", k / 7 + 1, 90000, "/y", "4.99"}};
        th_status(r, "young", 0, y, k ? 1 : 0); /* round 0 empty: nothing primed (12.4) */
        th_run(pl, r);
    }
    return pl;
}

static pipeline *small_history(void)
{
    return history_of(1);
}

/* want with each @MEM@ replaced by a pool's memory object without readings
 * (14.6): 213 zero buckets, nulls. */
static char *with_memory(const char *want)
{
    char mem[2048];
    size_t o = (size_t)snprintf(mem, sizeof mem, "{\"readings\": 0, \"histogram\": [");
    for (int i = 0; i < MEM_BUCKETS; i++)
        o += (size_t)snprintf(mem + o, sizeof mem - o, "%s0", i ? ", " : "");
    snprintf(mem + o, sizeof mem - o, "], \"per_worker_bytes\": null, \"per_worker_source\": null, \"max_bytes\": null, "
             "\"mem_ceiling\": null, \"advice\": null, \"binds\": null");
    char *out = malloc(strlen(want) + 4 * strlen(mem) + 1);
    assert_non_null(out);
    out[0] = '\0';
    const char *p = want, *at;
    while ((at = strstr(p, "@MEM@"))) {
        strncat(out, p, (size_t)(at - p));
        strcat(out, mem);
        p = at + 5;
    }
    strcat(out, p);
    return out;
}

static void test_json_output_is_section_8(void **state)
{
    (void)state;
    pipeline *pl = small_history();
    wi_scenario sc = {.headroom = 200};
    char *j = render(pl, "json", &sc);
    const char *want =
        "{\"format\": 1, \"hosts\": [\n"
        "  {\"hostname\": \"web1\", \"host_millicores\": 4000, \"cpus\": null, "
        "\"cpu_source\": \"host\", \"sched_group\": null, \"rounds\": 21, "
        "\"first_round_at\": \"2027-01-15T08:00:00Z\", \"last_round_at\": \"2027-01-15T08:10:00Z\", "
        "\"steal\": {\"pairs\": 20, \"p10_pct\": 0.00, \"p50_pct\": 0.00, \"p90_pct\": 0.00, "
        "\"max_pct\": 0.00}, \"throttled\": {\"pairs\": 0, \"p10_pct\": null, \"p50_pct\": null, "
        "\"p90_pct\": null, \"max_pct\": null}, \"throttled_seconds\": 0.000000, "
        "\"pressure\": {\"pairs\": 0, \"p10_pct\": null, \"p50_pct\": null, \"p90_pct\": null, "
        "\"max_pct\": null}, \"php_accounted\": {\"pairs\": 0, \"p10_pct\": null, "
        "\"p50_pct\": null, \"p90_pct\": null, \"max_pct\": null}, \"steal_probe\": null, "
        "\"inconsistent_pairs\": 0, \"joint\": null, \"needed_now_millicores\": 28000, \"needed_at_ceiling_millicores\": 0, \"memory\": {\"total_bytes\": null, "
        "\"budget_bytes\": null, \"other_max_bytes\": null, \"php_max_bytes\": null, "
        "\"needed_now_bytes\": null, \"needed_at_advice_bytes\": null, \"needs_fraction\": null, "
        "\"room_fraction\": null}, \"pools\": [\n"
        "    {\"pool\": \"shop\", \"readings\": 20, \"histogram\": [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, "
        "0, 0, 0, 0, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, "
        "0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], \"typical_pct\": 70, "
        "\"p90_pct\": 70, \"shape\": \"cpu-bound\", \"php_millicores\": 700, \"busy_pct\": 70.00, "
        "\"busy_millicores\": 700, \"cpu_ms_per_request\": 63.00, \"fit\": null, \"joint\": null, "
        "\"overhead_source\": null, \"recovered_pct\": null, \"overhead\": null, "
        "\"host_millicores_per_worker\": 700, \"knee\": null, \"fill_workers\": null, "
        "\"ceiling\": null, \"max_children\": 40, \"limit\": null, \"memory\": @MEM@, \"no_advice\": \"floor\"}, \"activity\": {\"cores_mean\": null, "
        "\"cores_max\": null, \"active_max\": 1, \"full_rounds\": 0, \"maxed_rounds\": 0, "
        "\"queue_max\": 2}, \"contended_readings\": 2, \"measured_under_contention\": true, "
        "\"unanswered_full_queue_max\": null, \"starved_rounds\": 2, "
        "\"starved_by_steal_rounds\": 0, \"throttled_rounds\": 0, "
        "\"unanswered_full_rounds\": 0, \"error_rounds\": 0, \"filtered\": {\"no_request\": 0, \"running\": 0, \"repeat\": 0, \"own\": 0, "
        "\"short\": 0, \"invalid\": 0, \"primed\": 0}, \"predicted\": null, \"routes\": [{\"route\": \"/buy\", "
        "\"readings\": 20, \"cpu_share_pct\": 100.00, \"cpu_ms_per_request\": 63.00, \"busy_pct\": 70.00, "
        "\"p50_ms\": 90, \"p95_ms\": 90, \"p95_ms_at_advice\": null, \"memory_max_bytes\": 2097152"
        ", \"requests\": null, \"requests_per_s\": null}], \"source\": \"status_page\", \"requests\": null, \"requests_per_s\": null, \"measured\": null, \"access\": null},\n"
        "    {\"pool\": \"young\", \"readings\": 3, \"histogram\": [3, 0, 0, 0, 0, 0, 0, 0, 0, 0, "
        "0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, "
        "0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], \"typical_pct\": 0, "
        "\"p90_pct\": 0, \"shape\": null, \"php_millicores\": null, \"busy_pct\": null, "
        "\"busy_millicores\": null, \"cpu_ms_per_request\": null, \"fit\": null, \"joint\": null, "
        "\"overhead_source\": null, \"recovered_pct\": null, \"overhead\": null, "
        "\"host_millicores_per_worker\": null, \"knee\": null, \"fill_workers\": null, "
        "\"ceiling\": null, \"max_children\": null, \"limit\": null, \"memory\": @MEM@, \"no_advice\": \"no_ceiling\"}, \"activity\": {\"cores_mean\": null, "
        "\"cores_max\": null, \"active_max\": 1, \"full_rounds\": null, \"maxed_rounds\": 0, "
        "\"queue_max\": 0}, \"contended_readings\": 0, \"measured_under_contention\": false, "
        "\"unanswered_full_queue_max\": null, \"starved_rounds\": 0, "
        "\"starved_by_steal_rounds\": 0, \"throttled_rounds\": 0, "
        "\"unanswered_full_rounds\": 0, \"error_rounds\": 0, \"filtered\": {\"no_request\": 0, \"running\": 0, \"repeat\": 17, \"own\": 0, "
        "\"short\": 0, \"invalid\": 0, \"primed\": 0}, \"predicted\": null, \"routes\": [{\"route\": \"/y\", "
        "\"readings\": 3, \"cpu_share_pct\": 100.00, \"cpu_ms_per_request\": 4.49, \"busy_pct\": 4.99, "
        "\"p50_ms\": null, \"p95_ms\": null, \"p95_ms_at_advice\": null, \"memory_max_bytes\": 2097152"
        ", \"requests\": null, \"requests_per_s\": null}], \"source\": \"status_page\", \"requests\": null, \"requests_per_s\": null, \"measured\": null, \"access\": null}\n"
        "  ]}\n"
        "]}\n";
    char *w = with_memory(want);
    assert_string_equal(j, w);
    free(w);
    free(j);
    pipeline_free(pl);
}

static void test_what_if_host_size_does_not_rewrite_history(void **state)
{
    (void)state;
    pipeline *pl = small_history();
    wi_scenario sc = {.has_host_millicores = 1, .host_millicores = 8000, .headroom = 150};
    char *j = render(pl, "json", &sc);
    assert_non_null(strstr(j, "\"host_millicores\": 8000"));
    /* its shares stay floors: no knee, fill or ceiling on any host (17.4) */
    assert_non_null(strstr(j, "\"knee\": null, \"fill_workers\": null, \"ceiling\": null"));
    assert_non_null(strstr(j, "\"starved_rounds\": 2")); /* judged on the measured 4 cores */
    free(j);
    pipeline_free(pl);
    pl = history_of(0);
    j = render(pl, "json", &sc);
    assert_non_null(strstr(j, "\"knee\": 11.43, \"fill_workers\": 11, \"ceiling\": 17"));
    free(j);
    pipeline_free(pl);
}

static void test_what_if_max_children_replaces_now_for_that_pool(void **state)
{
    (void)state;
    pipeline *pl = history_of(0);
    wi_override o[] = {{"shop", 12}, {"shop", 13}, {"nosuch", 5}};
    wi_scenario sc = {.headroom = 200, .max_children = o, .nmax_children = 3};
    assert_int_equal(whatif_differs(&sc), 1);
    pl_pool *shop = th_find(pl, "web1", "shop"), *young = th_find(pl, "web1", "young");
    assert_int_equal(whatif_now(shop, &sc), 13); /* the last one given wins */
    assert_int_equal(whatif_now(young, &sc), 0);
    /* 700m a worker on 4 cores: knee 5.71, fill 6, ceiling 11; 13 is past it */
    wi_view v = whatif_pool_view(shop, 4000, 200, whatif_now(shop, &sc));
    assert_int_equal(v.limit, WI_LIMIT_CPU);
    char *j = render(pl, "json", &sc);
    assert_non_null(strstr(j, "\"scenario\": {\"host_millicores\": null, \"mem_limit_bytes\": null, \"headroom\": 2.00, "
                              "\"max_children\": {\"shop\": 13, \"nosuch\": 5}, \"cost\": \"busy\"}"));
    assert_non_null(strstr(j, "\"needed_now_millicores\": 9100")); /* 13 x 700 */
    assert_non_null(strstr(j, "\"max_children\": 13, \"limit\": \"cpu\""));
    free(j);
    char *t = render(pl, "text", &sc);
    assert_non_null(strstr(t, "what-if: headroom 2.00, pm.max_children shop=12, pm.max_children "
                              "shop=13, pm.max_children nosuch=5\n"));
    assert_non_null(strstr(t, "shop     6 \xe2\x86\x92 6  11 \xe2\x86\x92 11  40 \xe2\x86\x92 13  "
                              "28000m \xe2\x86\x92 9100m  cpu \xe2\x86\x92 cpu\n"));
    free(t);
    sc.nmax_children = 0;
    assert_int_equal(whatif_differs(&sc), 0);
    pipeline_free(pl);
}

static void test_text_table_and_why_sentences(void **state)
{
    (void)state;
    pipeline *pl = small_history();
    wi_scenario sc = {.headroom = 200};
    char *t = render(pl, "text", &sc);
    const char *want =
        "web1: 4 cores (4000m), 21 rounds (2027-01-15T08:00:00Z to 2027-01-15T08:10:00Z) every 30 s, headroom 2.00\n"
        "\n"
        "POOL   READINGS  TYPICAL  P90    BUSY  SHAPE      PHP/W  HOST/W  FILL  CEILING  MEM/W  MEMCEIL  MAX  ADVICE  LIMIT  STARVED  ERRORS\n"
        "shop         20      70%  70%  70.00%  cpu-bound   700m    700m     -        -      -        -   40       -  -            2       0\n"
        "young         3      <5%  <5%       -  -              -       -     -        -      -        -    ?       -  -            0       0\n"
        "\n"
        "ACTIVITY  CORES  PEAK  BUSY MAX  ALL BUSY  RAN OUT  QUEUE MAX\n"
        "shop          -     -   1 of 40         0        -          2\n"
        "young         -     -         1         -        -          0\n"
        "\n"
        "shop: cpu-bound. Measured while it waited for the CPU and its waits were not recorded: "
        "no ceiling from shares that are floors. `/buy` computes 100% of its CPU, 63 ms a request. Measured under contention: 2 of its readings "
        "came while the CPU was full, when each request also waited for it, so its shares are a "
        "floor. Queued in 2 rounds while the CPU was full.\n"
        "young: too few readings yet (3 of 20). `/y` computes 100% of its CPU, 4 ms a request.\n"
        "\n"
        "host web1: busy 0.72 cores on average, 4.20 at its busiest pair.\n"
        "host web1: every worker busy at once would need 28.00 cores, 7.00x its 4 cores; every "
        "pool at its ceiling 0.00 cores, 0.00x.\n"
        "host web1: not in these sums, no cost measured: young.\n"
        "host web1: not in the ceilings' sum, its shares floors: shop.\n";
    assert_string_equal(t, want);
    free(t);
    pipeline_free(pl);
}

/* 17.5: the WHY gives the knee and the ceiling as latency */
static void test_17_5_why_says_the_knee_and_the_ceiling_as_latency(void **state)
{
    (void)state;
    pipeline *pl = history_of(0);
    wi_scenario sc = {.headroom = 150};
    char *t = render(pl, "text", &sc);
    assert_non_null(strstr(t, "\nshop: cpu-bound. ~6 busy workers fill 4 cores, at PHP's own "
                              "cost: "));
    assert_non_null(strstr(t, " The knee is at 5.71: past it more workers add only latency. "));
    assert_non_null(strstr(t, " Ceiling 8: with that many busy, each request takes at most 1.50x "
                              "as long as alone. pm.max_children 40 is past it."
                              " `/buy` computes 100% of its CPU, 63 ms a request.\n"));
    free(t);
    sc.headroom = 100; /* floor(5.71) = 5, the cores + 1 too: no request slower than alone */
    t = render(pl, "text", &sc);
    assert_non_null(strstr(t, " Ceiling 5: with that many busy, each request takes at most 1.00x "
                              "as long as alone."));
    free(t);
    sc.has_host_millicores = 1, sc.host_millicores = 2000; /* knee 2.86: the cores + 1, 3 */
    t = render(pl, "text", &sc);
    assert_non_null(strstr(t, " Ceiling 3. pm.max_children 40 is past it. `/buy` computes 100% of its CPU, 63 ms a request.\n"));
    free(t);
    pipeline_free(pl);
}

static void test_names_are_escaped_in_json_and_text(void **state)
{
    (void)state;
    pipeline *pl = pipeline_new(NULL);
    th_host(pl, "h\"1", 1, "b", 0);
    const char name[] = "a\"\\\n\xff\xc3\xa9";
    assert_int_equal(pipeline_pool(pl, name, sizeof name - 1, (const unsigned char *)"", 0), 0);
    wi_scenario sc = {.headroom = 200};
    char *j = render(pl, "json", &sc);
    assert_non_null(strstr(j, "\"hostname\": \"h\\\"1\""));
    assert_non_null(strstr(j, "\"pool\": \"a\\\"\\\\\\u000a\xef\xbf\xbd\xc3\xa9\""));
    free(j);
    char *t = render(pl, "text", &sc);
    assert_non_null(strstr(t, "a\"\\\xef\xbf\xbd\xef\xbf\xbd\xc3\xa9: no readings: no request finished while it was recorded."));
    free(t);
    pipeline_free(pl);
}

/* A pool without readings says which filter took its requests. */
static void test_why_says_why_a_pool_has_no_readings(void **state)
{
    (void)state;
    pipeline *pl = pipeline_new(NULL);
    th_host(pl, "h", 4, "b", 0);
    th_pool(pl, "quiet", 4, "/status");
    for (int k = 0; k < 4; k++) { /* round 0's pages empty: nothing primed (12.4) */
        th_round *r = th_round_at(30.0 * k, 100ULL * k);
        tworker s[] = {{300, "Idle", k, 20000, "/short", "50.00"}};
        th_status(r, "fast", 0, s, k ? 1 : 0);
        tworker o[] = {{400, "Idle", k, 90000, "/status?json&full", "0.00"}};
        th_status(r, "quiet", 0, o, k ? 1 : 0);
        th_page(r, "down", "cannot connect to /d.sock: Connection refused", 1);
        th_run(pl, r);
    }
    wi_scenario sc = {.headroom = 200};
    char *t = render(pl, "text", &sc);
    assert_non_null(strstr(t, "\ndown: no readings: its status page could not be read in any of "
                              "its 4 rounds. Last error: cannot connect to /d.sock: Connection "
                              "refused.\n"));
    assert_non_null(strstr(t, "\nfast: no readings: every request that finished was under 50 ms "
                              "(3), too short for its CPU share to mean anything. `/short` computes "
                              "100% of its CPU, 10 ms a request.\n"));
    assert_non_null(strstr(t, "\nquiet: no readings: only monitoring requests finished (3 own, "
                              "such as the recorder's status requests). Visitors' requests count "
                              "once they come.\n"));
    assert_non_null(strstr(t, "ERRORS\ndown "));
    free(t);
    pipeline_free(pl);
}

/* The host line says what the pools need together, one idea a line, and
 * names the pools without a cost instead of adding 0m for them. */
static void test_host_line_says_what_the_pools_need_together(void **state)
{
    (void)state;
    pipeline *pl = history_of(0);
    th_pool(pl, "shop", 6, "/status"); /* within its ceiling of 11; 6 x 700m = 4200m of 4000m */
    wi_scenario sc = {.headroom = 200};
    char *t = render(pl, "text", &sc);
    assert_non_null(strstr(t, "pm.max_children 6 is within it: the pool runs out of workers "
                              "before the host runs out of CPU. `/buy` computes 100% of its CPU, 63 ms a request.\n"));
    assert_non_null(strstr(t, "\nhost web1: every worker busy at once would need 4.20 cores, "
                              "1.05x its 4 cores; every pool at its ceiling 7.70 cores, 1.93x.\n"
                              "host web1: not in these sums, no cost measured: young.\n"));
    free(t);
    sc.has_host_millicores = 1; /* the ratio is the what-if's */
    sc.host_millicores = 8000;
    t = render(pl, "text", &sc);
    assert_non_null(strstr(t, "\nhost web1 in the what-if: every worker busy at once would need "
                              "4.20 cores, 0.53x its 8 cores;"));
    free(t);
    pipeline_free(pl);
}

/* A POOL's max_children or a HOST's nproc out of range reads as unknown, and
 * the host line's products saturate instead of wrapping. */
static void test_numbers_from_a_log_are_range_checked_and_products_saturate(void **state)
{
    (void)state;
    pipeline *pl = small_history();
    const char *big = "name=shop\nmax_children=9223372036854775807\n";
    assert_int_equal(pipeline_pool(pl, "shop", 4, (const unsigned char *)big, strlen(big)), 0);
    assert_int_equal(th_find(pl, "web1", "shop")->max_children, 0);
    wi_scenario sc = {.headroom = 200};
    char *t = render(pl, "text", &sc);
    assert_non_null(strstr(t, "host web1: every worker busy at once would need 0.00 cores, 0.00x "
                              "its 4 cores;"));
    free(t);
    wi_view v[2] = {{.shape = "cpu-bound", .now = INT64_MAX / 2, .host_millicores_per_worker = 700},
                         {.shape = "cpu-bound", .now = 1, .host_millicores_per_worker = 700}};
    int64_t now, atc;
    whatif_host_needs(v, 2, &now, &atc);
    assert_true(now == INT64_MAX);
    pipeline_free(pl);
    pl = pipeline_new(NULL);
    const char *host = "hostname=h\nnproc=18446744073709551\n";
    assert_int_equal(pipeline_host(pl, (const unsigned char *)host, strlen(host)), 0);
    assert_int_equal(th_find_host(pl, "h")->host_millicores, 0);
    pipeline_free(pl);
}

/* A bimodal pool: 90 requests of 100 ms at 20%, 10 of 5 s at 95%. */
static pl_pool bimodal(int64_t now)
{
    pl_pool p = {0};
    p.name = "mix";
    p.name_len = 3;
    for (int i = 0; i < 90; i++)
        hist_add(&p.h, 2000, 100000);
    for (int i = 0; i < 10; i++)
        hist_add(&p.h, 9500, 5000000);
    p.max_children = now;
    return p;
}

/* busy_pct and busy_millicores are null under 20 readings. */
static void test_busy_is_null_under_20_readings(void **state)
{
    (void)state;
    pl_pool p = pool_of(19, 7000, 0);
    for (int i = 0; i < 19; i++)
        p.h.busy_w += 100, p.h.busy_c += 700000;
    wi_view v = whatif_pool_view(&p, 4000, 200, 0);
    assert_int_equal(v.has_busy, 0);
    hist_add(&p.h, 7000, 100000);
    v = whatif_pool_view(&p, 4000, 200, 0);
    assert_int_equal(v.has_busy, 1);
    assert_int_equal(v.busy_hundredths, 7000);
    assert_int_equal(v.busy_millicores, 700);
}

/* --cost busy: the busy millicores stand for PHP's in fill, ceiling, limit
 * and the host line; php_millicores stays TYPICAL x 10; with a believed
 * overhead the host cost is round(busy x overhead). */
static void test_cost_busy_drives_fill_ceiling_limit_and_the_host_line(void **state)
{
    (void)state;
    pl_pool p = bimodal(10);
    wi_view t = whatif_pool_view_cost(&p, 4000, 200, 10, WI_COST_TYPICAL, WI_FIT_DOMINANT, NULL, NULL);
    wi_view b = whatif_pool_view_cost(&p, 4000, 200, 10, WI_COST_BUSY, WI_FIT_DOMINANT, NULL, NULL);
    assert_int_equal(t.php_millicores, 200);
    assert_int_equal(t.fill, 19);
    assert_int_equal(t.limit, WI_LIMIT_WORKERS);
    assert_int_equal(b.php_millicores, 200);
    assert_int_equal(b.host_millicores_per_worker, 836);
    assert_int_equal(b.fill, 5);              /* ceil(95 x 4000 / (100 x 836)) */
    assert_int_equal(b.ceiling, 9);           /* floor(4.78 x 2) */
    assert_int_equal(b.limit, WI_LIMIT_CPU);  /* 10 > 9 */
    int64_t now, atc;
    whatif_host_needs(&b, 1, &now, &atc);
    assert_int_equal(now, 8360);
    assert_int_equal(atc, 9 * 836);
    fit_125(&p);
    b = whatif_pool_view_cost(&p, 4000, 200, 10, WI_COST_BUSY, WI_FIT_DOMINANT, NULL, NULL);
    assert_int_equal(b.host_millicores_per_worker, 1045); /* round(836 x 1.25) */
}

/* The JSON has busy_pct with two decimals and busy_millicores; the busy
 * cost sizes by default (17.5) and --cost typical is a scenario that says
 * so; the WHY says when the median hides heavy requests. */
static void test_busy_in_json_scenario_and_why(void **state)
{
    (void)state;
    pipeline *pl = pipeline_new(NULL);
    th_host(pl, "h", 4, "b", 0);
    th_pool(pl, "mix", 10, "/status");
    for (int k = 0; k <= 100; k++) { /* round 0 empty: nothing primed (12.4) */
        th_round *r = th_round_at(30.0 * k, 100ULL * (unsigned)k);
        tworker w[] = {{100, "Idle", k, k <= 90 ? 100000 : 5000000, "/m",
                        k <= 90 ? "20.00" : "95.00"}};
        th_status(r, "mix", 0, w, k ? 1 : 0);
        th_run(pl, r);
    }
    wi_scenario sc = {.headroom = 200};
    char *j = render(pl, "json", &sc);
    assert_non_null(strstr(j, "\"php_millicores\": 200, \"busy_pct\": 83.56, "
                              "\"busy_millicores\": 836, "));
    assert_null(strstr(j, "\"scenario\""));
    free(j);
    char *t = render(pl, "text", &sc);
    assert_non_null(strstr(t, " 83.56% "));
    assert_non_null(strstr(t, "The median hides heavy requests: a busy worker costs ~836m, not "
                              "200m (TYPICAL's; the busy cost sizes it)."));
    free(t);
    sc.cost = WI_COST_TYPICAL;
    j = render(pl, "json", &sc);
    assert_non_null(strstr(j, "\"scenario\": {\"host_millicores\": null, \"mem_limit_bytes\": null, \"headroom\": 2.00, "
                              "\"max_children\": {}, \"cost\": \"typical\"}"));
    assert_non_null(strstr(j, "\"fill_workers\": 19, "));
    free(j);
    t = render(pl, "text", &sc);
    assert_non_null(strstr(t, "; the default, --cost busy, sizes the pool by it."));
    assert_non_null(strstr(t, "mix      5 \xe2\x86\x92 19   9 \xe2\x86\x92 40"));
    free(t);
    pipeline_free(pl);
}

/* 17.3, 17.8: a pool whose workers waited 1.2 times their CPU, each reading
 * 50% of 200 ms: own share 125% (50 x 200 / 80) in the sums, shown at 100%
 * in the histogram; the WHY says the busy share is above 100% */
static pipeline *waited_history(void)
{
    pipeline *pl = pipeline_new(NULL);
    th_host(pl, "web1", 4, "b", 0);
    th_pool(pl, "cpu", 8, "/status");
    for (int k = 0; k < 23; k++) {
        th_round *r = th_round_at(30.0 * k, 1000ULL * k);
        tworker w[] = {{100, "Idle", k + 1, 200000, "/buy", "50.00"}};
        th_status(r, "cpu", 0, w, 1);
        th_pids(r, "cpu", 1, 100LL, 10ULL * k);
        th_sched(r, "cpu", 1, 100LL, 100000000ULL * k, 120000000ULL * k);
        th_run(pl, r);
    }
    return pl;
}

static void test_17_3_a_corrected_share_above_100_in_the_sums_at_100_in_the_histogram(void **state)
{
    (void)state;
    pipeline *pl = waited_history();
    pl_pool *p = th_find(pl, "web1", "cpu");
    const hist *h = pl_hist(p);
    assert_int_equal(h->total, 22); /* round 0 primes its worker */
    assert_int_equal(h->count[20], 22); /* every reading shown at 100% */
    int64_t busy, mc;
    assert_int_equal(hist_busy(h, &busy, &mc), 0);
    assert_int_equal(busy, 12500); /* the sums keep 125% */
    assert_int_equal(p->keep.r[0].s, 12500);
    assert_int_equal(p->keep.r[0].d_ms, 80);
    pipeline_free(pl);
}

static void test_17_8_why_says_the_wake_up_waits_are_charged(void **state)
{
    (void)state;
    pipeline *pl = waited_history();
    wi_scenario sc = {.headroom = 200};
    char *t = render(pl, "text", &sc);
    assert_non_null(strstr(t, " Its busy share reads 125.00%, above 100%: its workers queued for "
                              "the CPU, and the wake-up waits are charged to its requests (it "
                              "errs toward fewer workers)."));
    free(t);
    pipeline_free(pl);
    pl = history_of(0); /* no wait known: never said */
    t = render(pl, "text", &sc);
    assert_null(strstr(t, "wake-up waits"));
    free(t);
    pipeline_free(pl);
}

/* The WHY says the median hides heavy requests from 1.5x TYPICAL's cost on:
 * 300m against 200m does, 280m does not. */
static void test_why_median_hides_heavy_requests_from_1_5x(void **state)
{
    (void)state;
    for (int heavy = 4; heavy <= 5; heavy++) {
        pipeline *pl = pipeline_new(NULL);
        th_host(pl, "h", 4, "b", 0);
        for (int k = 0; k <= 20; k++) { /* round 0 empty: nothing primed (12.4) */
            th_round *r = th_round_at(30.0 * k, 100ULL * (unsigned)k);
            tworker w[] = {{100, "Idle", k, 100000, "/m", k <= 20 - heavy ? "20.00" : "60.00"}};
            th_status(r, "mix", 0, w, k ? 1 : 0);
            th_run(pl, r);
        }
        wi_scenario sc = {.headroom = 200};
        char *t = render(pl, "text", &sc);
        const char *said = strstr(t, "The median hides heavy requests: a busy worker costs ~300m, "
                                     "not 200m");
        if (heavy == 5)
            assert_non_null(said);
        else
            assert_null(strstr(t, "The median hides"));
        free(t);
        pipeline_free(pl);
    }
}

/* 19.4: the WHY names the first route when it computes at least half of
 * the pool's CPU, not under */
static void test_19_4_why_names_the_first_route_from_50_pct(void **state)
{
    (void)state;
    for (int heavy = 0; heavy < 2; heavy++) {
        pipeline *pl = pipeline_new(NULL);
        th_host(pl, "web1", 4, "b", 0);
        th_pool(pl, "shop", 8, "/status");
        for (int k = 0; k < 22; k++) {
            th_round *r = th_round_at(30.0 * k, 1000ULL * k);
            /* /checkout 140 ms at 100% against /a, /b at 60% of 100 ms (or
             * 150% of 100 ms, heavy: no route then holds half) */
            tworker w[] = {{100, "Idle", k + 1, 140000, "/checkout?x=1", "100.00"},
                           {101, "Idle", k + 1, 100000, "/a", heavy ? "150.00" : "60.00"},
                           {102, "Idle", k + 1, 100000, "/b", "60.00"}};
            th_status(r, "shop", 0, w, 3);
            th_run(pl, r);
        }
        wi_scenario sc = {.headroom = 200};
        char *t = render(pl, "text", &sc);
        const char *s = " `/checkout` computes 54% of its CPU, 140 ms a request.";
        if (heavy)
            assert_null(strstr(t, "computes"));
        else
            assert_non_null(strstr(t, s)); /* 14000 x 140 over that and 2 x 6000 x 100 */
        free(t);
        pipeline_free(pl);
    }
}

/* The page: what it says of the run, through report_print_meta. */
static char *render_page(const pipeline *pl, const wi_scenario *sc, const rp_meta *m)
{
    char *s = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&s, &n);
    wi_answers a = th_answers(pl, sc);
    assert_int_equal(report_print_meta(f, report_format("html"), &a, sc, m), 0);
    whatif_answers_free(&a);
    fclose(f);
    return s;
}

/* The page: a name from a log is text wherever it is printed (the title,
 * a heading, a table, a sentence, a link), its markup as entities, its
 * invalid UTF-8 as U+FFFD; a Content-Security-Policy forbids scripts and
 * loads */
static void test_page_names_are_text_and_scripts_forbidden(void **state)
{
    (void)state;
    pipeline *pl = pipeline_new(NULL);
    th_host(pl, "h<b>1</b>", 1, "b", 0);
    const char name[] = "<img src=x onerror=\"alert('1')\">\xff";
    assert_int_equal(pipeline_pool(pl, name, sizeof name - 1, (const unsigned char *)"", 0), 0);
    wi_scenario sc = {.headroom = 200};
    char *h = render_page(pl, &sc, NULL);
    assert_null(strstr(h, "<img"));
    assert_null(strstr(h, "<b>"));
    assert_non_null(strstr(h, "<title>php-fpm capacity: h&lt;b&gt;1&lt;/b&gt;</title>"));
    const char esc[] = "&lt;img src=x onerror=&quot;alert(&#39;1&#39;)&quot;&gt;\xef\xbf\xbd";
    assert_non_null(strstr(h, "<h3>pool "));
    char link[200];
    snprintf(link, sizeof link, "<a href=\"#h1-p1\">%s</a>", esc);
    assert_non_null(strstr(h, link));
    snprintf(link, sizeof link, "<h3>pool %s <span class=\"meta\">on h&lt;b&gt;1&lt;/b&gt;</span>", esc);
    assert_non_null(strstr(h, link));
    assert_non_null(strstr(h, "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src "
                              "'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; "
                              "form-action 'none'\">"));
    assert_null(strstr(h, "<script"));
    free(h);
    pipeline_free(pl);
}

/* The page's header: the logs read, their records, when it was made, and
 * what the logs lost; without charts, why in one line */
static void test_page_header_says_the_logs_and_what_they_lost(void **state)
{
    (void)state;
    pipeline *pl = small_history();
    wi_scenario sc = {.headroom = 200};
    char *logs[] = {"a.fpmlog", "b&c.fpmlog.zst"};
    rp_meta m = {.logs = logs, .nlogs = 2, .records = 1234, .damaged = 3, .dropped_rounds = 1,
                 .made_ns = 1796000000ull * 1000000000ull,
                 .charts_note = "they are drawn by gnuplot, which is not installed"};
    char *h = render_page(pl, &sc, &m);
    assert_non_null(strstr(h, "<p class=\"meta\">Made 2026-11-30T00:53:20Z by fpm-analyze "));
    assert_non_null(strstr(h, "Logs read: <code>a.fpmlog</code>, <code>b&amp;c.fpmlog.zst</code>; "
                              "1234 records.</p>"));
    assert_non_null(strstr(h, "What the logs lost: 3 damaged records skipped, 1 round cut short "
                              "dropped, 0 copied rounds dropped, 0 rounds before any HOST record "
                              "ignored, 0 logs that could not be read; the figures stand on the "
                              "rest.</p>"));
    assert_non_null(strstr(h, "<p class=\"note\">No charts: they are drawn by gnuplot, which is "
                              "not installed</p>"));
    free(h);
    m.damaged = m.dropped_rounds = 0;
    h = render_page(pl, &sc, &m);
    assert_null(strstr(h, "What the logs lost"));
    free(h);
    pipeline_free(pl);
}

/* The page's answer first: a row per pool as advise prints it (now, the
 * CPU ceiling, the memory ceiling, the advice, what binds), then each
 * pool's figures from the text's table, each with its words */
static void test_page_answer_and_figures(void **state)
{
    (void)state;
    pipeline *pl = small_history();
    wi_scenario sc = {.headroom = 200};
    char *h = render_page(pl, &sc, NULL);
    assert_non_null(strstr(h, "<tr class=\"binds-none\"><td class=\"name\"><a href=\"#h1-p1\">shop"
                              "</a></td><td>40</td><td>-</td><td>-</td><td>-</td>"
                              "<td class=\"name binds\">-</td></tr>"));
    assert_non_null(strstr(h, "<tr><th class=\"name\" scope=\"row\">READINGS</th><td class=\""
                              "name\">requests read</td><td>20</td></tr>"));
    assert_non_null(strstr(h, "<tr><th class=\"name\" scope=\"row\">TYPICAL</th><td class=\""
                              "name\">the median request&#39;s CPU share</td><td>70%</td></tr>"));
    assert_true(strstr(h, "<h3>The answer</h3>") < strstr(h, "<section class=\"pool\""));
    free(h);
    pipeline_free(pl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_19_4_why_names_the_first_route_from_50_pct),
        cmocka_unit_test(test_shape_needs_20_readings),
        cmocka_unit_test(test_shape_thresholds_50_and_20),
        cmocka_unit_test(test_php_millicores_is_typical_times_10),
        cmocka_unit_test(test_host_cost_is_php_times_overhead_rounded_half_away),
        cmocka_unit_test(test_fill_is_the_ceiling_of_host_over_cost),
        cmocka_unit_test(test_ceiling_is_the_knee_times_headroom_at_least_cores_plus_1),
        cmocka_unit_test(test_headroom_is_exact_in_hundredths),
        cmocka_unit_test(test_limit_is_cpu_past_the_ceiling_workers_within_it),
        cmocka_unit_test(test_no_fill_without_a_host_size_or_a_cost),
        cmocka_unit_test(test_host_line_sums_now_and_ceiling),
        cmocka_unit_test(test_json_output_is_section_8),
        cmocka_unit_test(test_what_if_host_size_does_not_rewrite_history),
        cmocka_unit_test(test_what_if_max_children_replaces_now_for_that_pool),
        cmocka_unit_test(test_text_table_and_why_sentences),
        cmocka_unit_test(test_why_says_why_a_pool_has_no_readings),
        cmocka_unit_test(test_host_line_says_what_the_pools_need_together),
        cmocka_unit_test(test_17_5_why_says_the_knee_and_the_ceiling_as_latency),
        cmocka_unit_test(test_names_are_escaped_in_json_and_text),
        cmocka_unit_test(test_busy_is_null_under_20_readings),
        cmocka_unit_test(test_cost_busy_drives_fill_ceiling_limit_and_the_host_line),
        cmocka_unit_test(test_busy_in_json_scenario_and_why),
        cmocka_unit_test(test_why_median_hides_heavy_requests_from_1_5x),
        cmocka_unit_test(test_17_3_a_corrected_share_above_100_in_the_sums_at_100_in_the_histogram),
        cmocka_unit_test(test_17_8_why_says_the_wake_up_waits_are_charged),
        cmocka_unit_test(test_numbers_from_a_log_are_range_checked_and_products_saturate),
        cmocka_unit_test(test_page_names_are_text_and_scripts_forbidden),
        cmocka_unit_test(test_page_header_says_the_logs_and_what_they_lost),
        cmocka_unit_test(test_page_answer_and_figures),
    };
    return cmocka_run_group_tests_name("report", tests, NULL, NULL);
}
