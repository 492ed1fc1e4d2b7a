/*
 * fcgi: a small FastCGI client for one GET at a time (the FastCGI 1.0
 * specification: BEGIN_REQUEST, PARAMS, STDIN; STDOUT, STDERR, END_REQUEST;
 * records of up to 64 KiB with padding).  The encoder and the decoder are
 * pure, for tests; fcgi_get() does the I/O with timeouts.  Nothing prints.
 */
#ifndef FCGI_H
#define FCGI_H

#include <stddef.h>
#include <stdint.h>

#define FCGI_MAX_BODY (16u << 20) /* 16 MiB */

enum { FCGI_BEGIN_REQUEST = 1, FCGI_ABORT_REQUEST = 2, FCGI_END_REQUEST = 3,
       FCGI_PARAMS = 4, FCGI_STDIN = 5, FCGI_STDOUT = 6, FCGI_STDERR = 7 };

typedef struct {
    const char *name, *value;
} fcgi_param;

/* The bytes of a whole request (request id 1, role RESPONDER, no keep-alive,
 * empty STDIN).  Returns a malloc'd buffer and its length in *len, or NULL. */
unsigned char *fcgi_encode_request(const fcgi_param *params, size_t n, size_t *len);

/* Streaming decoder of the server's records. */
typedef struct {
    unsigned char hdr[8];
    size_t   hdr_have;
    int      type;
    size_t   content_left, padding_left;
    size_t   max_body;
    unsigned char *out;        /* STDOUT bytes, malloc'd */
    size_t   out_len, out_cap;
    char     err[512];         /* the first STDERR bytes, NUL-terminated */
    size_t   err_len;
    int      ended;            /* END_REQUEST seen */
    uint32_t app_status;
    int      protocol_status;
    int      too_big;          /* STDOUT passed max_body */
    int      bad;              /* not FastCGI */
    unsigned char end_body[8];
    size_t   end_have;
} fcgi_decoder;

void fcgi_decoder_init(fcgi_decoder *d, size_t max_body);

/* Feeds n bytes; returns 1 once END_REQUEST is complete, 0 for more,
 * -1 when the stream is not FastCGI or STDOUT is too big. */
int fcgi_decoder_feed(fcgi_decoder *d, const unsigned char *p, size_t n);
void fcgi_decoder_free(fcgi_decoder *d);

/* Splits a CGI response (headers, blank line, body).  *status is the
 * Status: header's code, 200 without one; *body points into resp.  Returns
 * 0, or -1 when there is no header block. */
int fcgi_split_response(const unsigned char *resp, size_t len, int *status,
                        const unsigned char **body, size_t *body_len);

/* A response: the body is malloc'd and the caller frees it. */
typedef struct {
    int            status;     /* the Status: header's code, 200 without */
    unsigned char *body;
    size_t         body_len;
    char           stderr_text[512];
} fcgi_response;

/* Sends GET path?query to endpoint ("unix:/path" or "tcp:host:port") and
 * reads the response, each step within timeout_ms.  0 ok; -1 with a one-line
 * reason in err ("connection refused", "timed out after 5 s reading", ...). */
int fcgi_get(const char *endpoint, const char *path, const char *query, int timeout_ms,
             size_t max_body, fcgi_response *resp, char *err, size_t errlen);

#endif
