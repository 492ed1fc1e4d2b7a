/* FastCGI framing: the request we send and the responses we must read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fcgi.h"
#include "testlib.h"

/* A server record: header, content, padding. */
static void srec(buf *b, int type, const void *p, size_t n, size_t pad)
{
    unsigned char h[8] = {1, (unsigned char)type, 0, 1, (unsigned char)(n >> 8), (unsigned char)n,
                          (unsigned char)pad, 0};
    buf_add(b, h, 8);
    buf_add(b, p, n);
    static const char zeros[256] = {0};
    buf_add(b, zeros, pad);
}

static void end_request(buf *b)
{
    static const unsigned char body[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    srec(b, FCGI_END_REQUEST, body, 8, 0);
}

static void test_request_framing(void **state)
{
    (void)state;
    char big[300];
    memset(big, 'v', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    fcgi_param p[] = {{"SCRIPT_NAME", "/status"}, {"LONG", big}};
    size_t n;
    unsigned char *r = fcgi_encode_request(p, 2, &n);
    /* BEGIN_REQUEST: role 1, keep-alive off */
    assert_memory_equal(r, "\x01\x01\x00\x01\x00\x08\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00", 16);
    /* PARAMS: 1+1+11+7 and 1+4+4+299 bytes, padded to 8 */
    size_t plen = 20 + 308;
    assert_int_equal(r[17], FCGI_PARAMS);
    assert_int_equal(r[20] << 8 | r[21], plen);
    assert_int_equal(r[22], (8 - plen % 8) % 8);
    assert_memory_equal(r + 24, "\x0b\x07SCRIPT_NAME/status", 20);
    assert_memory_equal(r + 44, "\x04\x80\x00\x01\x2bLONG", 9);
    size_t o = 24 + plen + r[22];
    assert_memory_equal(r + o, "\x01\x04\x00\x01\x00\x00\x00\x00", 8);  /* empty PARAMS */
    assert_memory_equal(r + o + 8, "\x01\x05\x00\x01\x00\x00\x00\x00", 8); /* empty STDIN */
    assert_int_equal(n, o + 16);
    free(r);
}

static void test_response_split_across_reads_with_padding(void **state)
{
    (void)state;
    buf b = {0};
    srec(&b, FCGI_STDOUT, "Content-type: application/json\r\n\r\n{\"pro", 39, 1);
    srec(&b, FCGI_STDERR, "PHP Warning: x", 14, 2);
    srec(&b, FCGI_STDOUT, "cesses\":[]}", 11, 5);
    srec(&b, FCGI_STDOUT, "", 0, 0);
    end_request(&b);
    for (size_t step = 1; step <= b.n; step++) {
        fcgi_decoder d;
        fcgi_decoder_init(&d, 1 << 20);
        int rc = 0;
        for (size_t i = 0; i < b.n && rc == 0; i += step)
            rc = fcgi_decoder_feed(&d, (unsigned char *)b.p + i, i + step > b.n ? b.n - i : step);
        assert_int_equal(rc, 1);
        assert_int_equal(d.out_len, 50);
        assert_string_equal(d.err, "PHP Warning: x");
        int status;
        const unsigned char *body;
        size_t bl;
        assert_int_equal(fcgi_split_response(d.out, d.out_len, &status, &body, &bl), 0);
        assert_int_equal(status, 200);
        assert_int_equal(bl, 16);
        assert_memory_equal(body, "{\"processes\":[]}", 16);
        fcgi_decoder_free(&d);
    }
    buf_free(&b);
}

static void test_truncated_and_bad_responses(void **state)
{
    (void)state;
    buf b = {0};
    srec(&b, FCGI_STDOUT, "Status: 404 Not Found\r\n\r\nFile not found.\n", 41, 0);
    end_request(&b);
    fcgi_decoder d;
    fcgi_decoder_init(&d, 1 << 20);
    /* cut anywhere before the END_REQUEST's last byte: not done yet */
    assert_int_equal(fcgi_decoder_feed(&d, (unsigned char *)b.p, b.n - 1), 0);
    assert_int_equal(fcgi_decoder_feed(&d, (unsigned char *)b.p + b.n - 1, 1), 1);
    int status;
    const unsigned char *body;
    size_t bl;
    assert_int_equal(fcgi_split_response(d.out, d.out_len, &status, &body, &bl), 0);
    assert_int_equal(status, 404);
    assert_memory_equal(body, "File not found.\n", 16);
    fcgi_decoder_free(&d);
    /* not FastCGI */
    fcgi_decoder_init(&d, 1 << 20);
    assert_int_equal(fcgi_decoder_feed(&d, (const unsigned char *)"HTTP/1.1 200 OK\r\n", 17), -1);
    assert_int_equal(d.bad, 1);
    fcgi_decoder_free(&d);
    /* too big */
    fcgi_decoder_init(&d, 10);
    assert_int_equal(fcgi_decoder_feed(&d, (unsigned char *)b.p, b.n), -1);
    assert_int_equal(d.too_big, 1);
    fcgi_decoder_free(&d);
    /* no blank line: no headers */
    assert_int_equal(fcgi_split_response((const unsigned char *)"abc", 3, &status, &body, &bl), -1);
    buf_free(&b);
}

static void test_get_reports_unreachable_endpoints(void **state)
{
    (void)state;
    fcgi_response r;
    char err[600];
    assert_int_equal(fcgi_get("unix:/nonexistent/x.sock", "/status", "json&full", 1000, 100, &r,
                              err, sizeof err), -1);
    assert_string_equal(err, "cannot connect to /nonexistent/x.sock: No such file or directory");
    assert_int_equal(fcgi_get("http://x", "/status", "", 1000, 100, &r, err, sizeof err), -1);
    assert_string_equal(err, "bad endpoint \"http://x\" (unix:/path or tcp:host:port)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_request_framing),
        cmocka_unit_test(test_response_split_across_reads_with_padding),
        cmocka_unit_test(test_truncated_and_bad_responses),
        cmocka_unit_test(test_get_reports_unreachable_endpoints),
    };
    return cmocka_run_group_tests_name("fcgi", tests, NULL, NULL);
}
