/* A line of php-fpm's access log, read (census.h; docs/rules.md 20.2-20.5). */
#include "census.h"

#include <string.h>

#include "status.h"

/* Digits only, as an int64: 0, or -1 (none, another byte, or too large). */
static int digits(const unsigned char *v, size_t n, int64_t *out)
{
    if (n == 0)
        return -1;
    int64_t x = 0;
    const int64_t top = INT64_MAX / 10; /* a constant: no division a digit */
    for (size_t i = 0; i < n; i++) {
        int d = v[i] - '0';
        if (d < 0 || d > 9 || x > top || (x == top && d > INT64_MAX % 10))
            return -1;
        x = x * 10 + d;
    }
    *out = x;
    return 0;
}

cs_verdict cs_read(af_matcher *m, const af_format *f, const unsigned char *line, size_t len,
                   cs_line *out)
{
    if (!af_match(m, f, line, len))
        return CS_UNPARSABLE;
    af_span pid, cpu, dur, v;
    out->has_pool = af_value(m, f, AF_POOL, &v); /* whose line it is, valid or not */
    out->pool = out->has_pool ? line + v.off : NULL;
    out->pool_len = out->has_pool ? v.len : 0;
    /* a usable format has the three: rule 2 */
    if (!af_value(m, f, AF_PID, &pid) || digits(line + pid.off, pid.len, &out->pid) != 0 ||
        out->pid <= 0)
        return CS_INVALID;
    if (!af_value(m, f, AF_CPU, &cpu) ||
        status_cpu_hundredths((const char *)line + cpu.off, cpu.len, &out->share) != 0)
        return CS_INVALID;
    uint64_t us;
    if (!af_value(m, f, AF_DURATION, &dur) ||
        af_duration_us(line + dur.off, dur.len, f->duration_unit, &us) != 0 || us > INT64_MAX)
        return CS_INVALID;
    out->duration_us = (int64_t)us;
    int64_t mem;
    out->memory = -1;
    if (af_value(m, f, AF_MEMORY, &v) && digits(line + v.off, v.len, &mem) == 0 &&
        mem <= INT64_MAX / (int64_t)f->memory_unit)
        out->memory = mem * (int64_t)f->memory_unit;
    out->uri_len = af_uri(m, f, line, out->buf, &out->uri);
    out->method_len = 0;
    if (af_value(m, f, AF_METHOD, &v) && v.len >= 1 && v.len <= CS_MAX_METHOD) {
        size_t i = 0;
        while (i < v.len && line[v.off + i] >= 'A' && line[v.off + i] <= 'Z')
            i++;
        if (i == v.len) {
            memcpy(out->method, line + v.off, v.len);
            out->method_len = v.len;
        }
    }
    return CS_READING;
}

size_t cs_route(const cs_line *l, const rt_params *params, char *out)
{
    return rt_route_of_method(l->method_len ? l->method : NULL, l->method_len,
                              l->uri_len >= 0 ? l->uri : NULL,
                              l->uri_len >= 0 ? (size_t)l->uri_len : 0, params, out);
}
