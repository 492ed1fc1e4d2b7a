/* libFuzzer: the FastCGI response decoder, fed in pieces whose size the
 * first byte picks, as a hostile or slow peer would send them. */
#include <stddef.h>
#include <stdint.h>

#include "fcgi.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    size_t step = (size_t)data[0] % 97 + 1;
    fcgi_decoder d;
    fcgi_decoder_init(&d, 1u << 16);
    int rc = 0;
    for (size_t i = 1; i < size && rc == 0; i += step) {
        size_t n = size - i < step ? size - i : step;
        rc = fcgi_decoder_feed(&d, data + i, n);
    }
    if (d.out_len > (1u << 16))
        __builtin_trap(); /* never more than max_body */
    if (rc == 1) {
        int status;
        const unsigned char *body;
        size_t blen;
        if (fcgi_split_response(d.out, d.out_len, &status, &body, &blen) == 0 &&
            (body < d.out || body + blen > d.out + d.out_len))
            __builtin_trap();
    }
    fcgi_decoder_free(&d);
    return 0;
}
