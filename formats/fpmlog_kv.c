/* key=value payloads (HOST, POOL, ROUND, STEAL, TIMING). */
#include "fpmlog.h"

#include <string.h>

const char *fpmlog_kv(const unsigned char *payload, size_t len, const char *key,
                      unsigned n, size_t *vlen)
{
    size_t kl = strlen(key);
    size_t i = 0;
    while (i < len) {
        const unsigned char *line = payload + i;
        const unsigned char *nl = memchr(line, '\n', len - i);
        size_t ll = nl ? (size_t)(nl - line) : len - i;
        if (ll > kl && line[kl] == '=' && memcmp(line, key, kl) == 0) {
            if (n == 0) {
                *vlen = ll - kl - 1;
                return (const char *)line + kl + 1;
            }
            n--;
        }
        i += ll + 1;
    }
    return NULL;
}

int fpmlog_u64(const char *s, size_t n, uint64_t *out)
{
    uint64_t v = 0;
    if (n == 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1; /* does not fit */
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

int fpmlog_kv_u64(const unsigned char *payload, size_t len, const char *key, uint64_t *v)
{
    size_t n;
    const char *s = fpmlog_kv(payload, len, key, 0, &n);
    return s ? fpmlog_u64(s, n, v) : -1;
}
