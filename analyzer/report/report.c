/* The table of output formats and the driver of their steps. */
#include "report.h"
#include "rc.h"

#include <stdlib.h>
#include <string.h>

extern const rp_format rp_text, rp_json, rp_csv, rp_openmetrics, rp_prometheus, rp_html;

static const rp_format *const FORMATS[] = {&rp_text, &rp_json, &rp_csv, &rp_openmetrics,
                                           &rp_prometheus, &rp_html};
#define NFORMATS (sizeof FORMATS / sizeof FORMATS[0])

const rp_format *report_format(const char *name)
{
    for (size_t i = 0; i < NFORMATS; i++)
        if (strcmp(FORMATS[i]->name, name) == 0)
            return FORMATS[i];
    return NULL;
}

const char *report_format_names(void)
{
    static char names[128];
    if (!names[0]) {
        size_t o = 0;
        for (size_t i = 0; i < NFORMATS; i++)
            o += (size_t)snprintf(names + o, sizeof names - o, "%s%s",
                                  i == 0 ? "" : i + 1 == NFORMATS ? " or " : ", ",
                                  FORMATS[i]->name);
    }
    return names;
}

void report_format_help(FILE *out)
{
    for (size_t i = 0; i < NFORMATS; i++)
        fprintf(out, "                            %-12s %s\n", FORMATS[i]->name,
                FORMATS[i]->help);
}

#define STEP(f, call) ((f) ? (f)call : 0)

int report_print(FILE *out, const rp_format *f, const wi_answers *ans, const wi_scenario *sc)
{
    return report_print_meta(out, f, ans, sc, NULL);
}

int report_print_meta(FILE *out, const rp_format *f, const wi_answers *ans,
                      const wi_scenario *sc, const rp_meta *meta)
{
    rp_ctx c = {out, ans, sc, 0, 0, 1, NULL, meta};
    int rc = STEP(f->begin, (&c));
    for (size_t i = 0; rc == 0 && i < ans->n; i++) {
        const wi_host *a = &ans->host[i]; /* the host's answer, decided once */
        rc = STEP(f->host, (&c, a));
        for (size_t k = 0; rc == 0 && k < a->n; k++, c.pool_index++)
            rc = STEP(f->pool, (&c, a, k));
        if (rc == 0)
            rc = STEP(f->host_end, (&c, a));
        c.pool_index = 0;
        c.host_index++;
    }
    c.ok = rc == 0;
    if (STEP(f->end, (&c)) != 0)
        rc = FPM_ENOMEM;
    return rc;
}
