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
