/* libFuzzer: sock_diag dump replies, as a hostile or truncated kernel reply
 * would come.  The first byte picks unix_diag (0) or inet_diag (1, the
 * next two bytes the port); the rest is the reply. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "sockdiag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3)
        return 0;
    /* a copy of its own size, so that any read past it is caught */
    size_t n = size - 3;
    unsigned char *b = malloc(n ? n : 1);
    if (!b)
        return 0;
    memcpy(b, data + 3, n);
    int rc;
    uint16_t v = (uint16_t)(data[1] << 8 | data[2]);
    sd_want w[2] = {{.endpoint = "unix:/tmp/fpmcpu-seed.sock", .kind = 0, .ino = v},
                    {.endpoint = "tcp:127.0.0.1:1", .kind = 1, .family = AF_INET,
                     .addr = {127, 0, 0, 1}, .has_addr = !(data[0] & 2), .port = v}};
    if (data[0] & 1)
        rc = sd_parse_inet(b, n, AF_INET, w, 2);
    else
        rc = sd_parse_unix(b, n, w, 2);
    if (rc < -1 || rc > 2)
        __builtin_trap();
    free(b);
    return 0;
}
