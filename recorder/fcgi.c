/* A FastCGI client for php-fpm's status page. */
#define _POSIX_C_SOURCE 200809L
#include "rc.h"
#include "fcgi.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static void put_record_header(unsigned char *h, int type, size_t len, size_t pad)
{
    h[0] = 1;
    h[1] = (unsigned char)type;
    h[2] = 0;
    h[3] = 1; /* request id 1 */
    h[4] = (unsigned char)(len >> 8);
    h[5] = (unsigned char)len;
    h[6] = (unsigned char)pad;
    h[7] = 0;
}

static size_t put_length(unsigned char *p, size_t n)
{
    if (n < 128) {
        p[0] = (unsigned char)n;
        return 1;
    }
    p[0] = (unsigned char)(0x80 | (n >> 24));
    p[1] = (unsigned char)(n >> 16);
    p[2] = (unsigned char)(n >> 8);
    p[3] = (unsigned char)n;
    return 4;
}

unsigned char *fcgi_encode_request(const fcgi_param *params, size_t n, size_t *len)
{
    size_t body = 0;
    for (size_t i = 0; i < n; i++) {
        size_t nl = strlen(params[i].name), vl = strlen(params[i].value);
        body += (nl < 128 ? 1 : 4) + (vl < 128 ? 1 : 4) + nl + vl;
    }
    /* PARAMS may be split into several records of at most 65535 bytes */
    size_t cap = 16 + 8 + 8 + body + 8 * (body / 65535 + 1) + 8 * 2 + 8;
    unsigned char *out = malloc(cap), *kv = malloc(body ? body : 1);
    if (!out || !kv) {
        free(out);
        free(kv);
        return NULL;
    }
    size_t o = 0, k = 0;
    for (size_t i = 0; i < n; i++) {
        size_t nl = strlen(params[i].name), vl = strlen(params[i].value);
        k += put_length(kv + k, nl);
        k += put_length(kv + k, vl);
        memcpy(kv + k, params[i].name, nl);
        k += nl;
        memcpy(kv + k, params[i].value, vl);
        k += vl;
    }
    put_record_header(out + o, FCGI_BEGIN_REQUEST, 8, 0);
    o += 8;
    memset(out + o, 0, 8);
    out[o + 1] = 1; /* role RESPONDER; flags 0: close the connection after */
    o += 8;
    for (size_t off = 0; off < k;) {
        size_t chunk = k - off < 65535 ? k - off : 65535;
        size_t pad = (8 - chunk % 8) % 8;
        put_record_header(out + o, FCGI_PARAMS, chunk, pad);
        o += 8;
        memcpy(out + o, kv + off, chunk);
        o += chunk;
        memset(out + o, 0, pad);
        o += pad;
        off += chunk;
    }
    put_record_header(out + o, FCGI_PARAMS, 0, 0);
    o += 8;
    put_record_header(out + o, FCGI_STDIN, 0, 0);
    o += 8;
    free(kv);
    *len = o;
    return out;
}

void fcgi_decoder_init(fcgi_decoder *d, size_t max_body)
{
    memset(d, 0, sizeof *d);
    d->max_body = max_body;
}

void fcgi_decoder_free(fcgi_decoder *d)
{
    free(d->out);
    d->out = NULL;
}

static int take_stdout(fcgi_decoder *d, const unsigned char *p, size_t n)
{
    if (d->out_len + n > d->max_body) {
        d->too_big = 1;
        return -1;
    }
    if (d->out_len + n > d->out_cap) {
        size_t cap = d->out_cap ? d->out_cap : 8192;
        while (cap < d->out_len + n)
            cap *= 2;
        unsigned char *o = realloc(d->out, cap);
        if (!o)
            return FPM_ENOMEM;
        d->out = o;
        d->out_cap = cap;
    }
    memcpy(d->out + d->out_len, p, n);
    d->out_len += n;
    return 0;
}

int fcgi_decoder_feed(fcgi_decoder *d, const unsigned char *p, size_t n)
{
    size_t i = 0;
    while (i < n && !d->ended) {
        if (d->hdr_have < 8) {
            d->hdr[d->hdr_have++] = p[i++];
            if (d->hdr_have == 8) {
                if (d->hdr[0] != 1) {
                    d->bad = 1;
                    return -1;
                }
                d->type = d->hdr[1];
                d->content_left = (size_t)d->hdr[4] << 8 | d->hdr[5];
                d->padding_left = d->hdr[6];
                d->end_have = 0;
            }
            continue;
        }
        if (d->content_left > 0) {
            size_t take = n - i < d->content_left ? n - i : d->content_left;
            if (d->type == FCGI_STDOUT) {
                if (take_stdout(d, p + i, take) != 0)
                    return -1;
            } else if (d->type == FCGI_STDERR) {
                size_t room = sizeof d->err - 1 - d->err_len;
                size_t c = take < room ? take : room;
                memcpy(d->err + d->err_len, p + i, c);
                d->err_len += c;
                d->err[d->err_len] = '\0';
            } else if (d->type == FCGI_END_REQUEST) {
                for (size_t k = 0; k < take && d->end_have < 8; k++)
                    d->end_body[d->end_have++] = p[i + k];
            }
            i += take;
            d->content_left -= take;
        } else if (d->padding_left > 0) {
            size_t take = n - i < d->padding_left ? n - i : d->padding_left;
            i += take;
            d->padding_left -= take;
        }
        if (d->hdr_have == 8 && d->content_left == 0 && d->padding_left == 0) {
            if (d->type == FCGI_END_REQUEST) {
                d->ended = 1;
                d->app_status = (uint32_t)d->end_body[0] << 24 | (uint32_t)d->end_body[1] << 16 |
                                (uint32_t)d->end_body[2] << 8 | d->end_body[3];
                d->protocol_status = d->end_body[4];
            }
            d->hdr_have = 0;
        }
    }
    return d->ended ? 1 : 0;
}

int fcgi_split_response(const unsigned char *resp, size_t len, int *status,
                        const unsigned char **body, size_t *body_len)
{
    *status = 200;
    if (!resp || len == 0)
        return -1; /* no STDOUT at all (found by fuzzing: memchr on NULL) */
    size_t i = 0;
    for (;;) {
        const unsigned char *nl = memchr(resp + i, '\n', len - i);
        if (!nl)
            return -1;
        size_t ll = (size_t)(nl - (resp + i));
        size_t content = ll && resp[i + ll - 1] == '\r' ? ll - 1 : ll;
        if (content == 0) {
            *body = nl + 1;
            *body_len = len - (size_t)(nl + 1 - resp);
            return 0;
        }
        if (content > 7 && strncasecmp((const char *)resp + i, "Status:", 7) == 0) {
            int code = 0;
            size_t k = i + 7;
            while (k < i + content && resp[k] == ' ')
                k++;
            for (int digits = 0; k < i + content && digits < 3 && resp[k] >= '0' &&
                                 resp[k] <= '9'; k++, digits++)
                code = code * 10 + (resp[k] - '0');
            if (code >= 100)
                *status = code;
        }
        i += ll + 1;
    }
}

/* ------------------------------------------------------------------ I/O */

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits for events on fd until deadline; 1 ready, 0 timed out, -1 error. */
static int wait_fd(int fd, short events, long long deadline)
{
    for (;;) {
        long long left = deadline - now_ms();
        if (left <= 0)
            return 0;
        struct pollfd p = {fd, events, 0};
        int r = poll(&p, 1, (int)(left > 60000 ? 60000 : left));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r > 0)
            return 1;
    }
}

static int connect_endpoint(const char *endpoint, long long deadline, char *err, size_t errlen)
{
    int fd = -1;
    if (strncmp(endpoint, "unix:", 5) == 0) {
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        if (strlen(endpoint + 5) >= sizeof sa.sun_path) {
            snprintf(err, errlen, "socket path too long");
            return -1;
        }
        strcpy(sa.sun_path, endpoint + 5);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0 || (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0 && errno != EINPROGRESS &&
                       errno != EAGAIN)) {
            snprintf(err, errlen, "cannot connect to %s: %s", endpoint + 5, strerror(errno));
            if (fd >= 0)
                close(fd);
            return -1;
        }
    } else if (strncmp(endpoint, "tcp:", 4) == 0) {
        char host[256];
        const char *hp = endpoint + 4, *colon = strrchr(hp, ':');
        if (!colon || (size_t)(colon - hp) >= sizeof host || colon == hp) {
            snprintf(err, errlen, "bad endpoint \"%s\"", endpoint);
            return -1;
        }
        memcpy(host, hp, (size_t)(colon - hp));
        host[colon - hp] = '\0';
        if (host[0] == '[' && host[strlen(host) - 1] == ']') { /* [::1]:9000 */
            memmove(host, host + 1, strlen(host));
            host[strlen(host) - 1] = '\0';
        }
        struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *ai;
        int rc = getaddrinfo(host, colon + 1, &hints, &ai);
        if (rc != 0) {
            snprintf(err, errlen, "cannot resolve %s: %s", host, gai_strerror(rc));
            return -1;
        }
        fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0 || (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0 && errno != EINPROGRESS)) {
            snprintf(err, errlen, "cannot connect to %s: %s", endpoint + 4, strerror(errno));
            freeaddrinfo(ai);
            if (fd >= 0)
                close(fd);
            return -1;
        }
        freeaddrinfo(ai);
    } else {
        snprintf(err, errlen, "bad endpoint \"%s\" (unix:/path or tcp:host:port)", endpoint);
        return -1;
    }
    int w = wait_fd(fd, POLLOUT, deadline);
    int soerr = 0;
    socklen_t sl = sizeof soerr;
    if (w == 1)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
    if (w != 1 || soerr) {
        if (w == 0)
            snprintf(err, errlen, "timed out connecting to %s", endpoint);
        else
            snprintf(err, errlen, "cannot connect to %s: %s", endpoint,
                     strerror(soerr ? soerr : errno));
        close(fd);
        return -1;
    }
    return fd;
}

/* PATH?QUERY (PATH alone for no query) into uri, cut to fit as snprintf
 * would; without printf, as this is every pool's every round. */
static void request_uri(char *uri, size_t cap, const char *path, const char *query)
{
    size_t o = strnlen(path, cap - 1), ql = query[0] ? strlen(query) : 0;
    memcpy(uri, path, o);
    if (ql && o < cap - 1) {
        uri[o++] = '?';
        ql = ql < cap - 1 - o ? ql : cap - 1 - o;
        memcpy(uri + o, query, ql);
        o += ql;
    }
    uri[o] = '\0';
}

/* The request for GET PATH?QUERY, encoded (malloc'd), or NULL on ENOMEM. */
static unsigned char *encode_get(const char *path, const char *query, size_t *len)
{
    char uri[4096];
    request_uri(uri, sizeof uri, path, query);
    const fcgi_param params[] = {
        {"GATEWAY_INTERFACE", "FastCGI/1.0"}, {"REQUEST_METHOD", "GET"},
        {"SCRIPT_NAME", path}, {"SCRIPT_FILENAME", path}, {"REQUEST_URI", uri},
        {"DOCUMENT_URI", path}, {"QUERY_STRING", query}, {"SERVER_PROTOCOL", "HTTP/1.1"},
        {"SERVER_SOFTWARE", "fpm-record"}, {"SERVER_NAME", "localhost"},
        {"REMOTE_ADDR", "127.0.0.1"}, {"CONTENT_LENGTH", "0"}, {"CONTENT_TYPE", ""},
    };
    return fcgi_encode_request(params, sizeof params / sizeof params[0], len);
}

/* All len bytes of req sent before the deadline: 0, or -1 with why in err. */
static int send_request(int fd, const unsigned char *req, size_t len, long long deadline,
                        int timeout_ms, char *err, size_t errlen)
{
    for (size_t off = 0; off < len;) {
        if (wait_fd(fd, POLLOUT, deadline) != 1) {
            snprintf(err, errlen, "timed out after %d ms sending the request", timeout_ms);
            return -1;
        }
        ssize_t w = send(fd, req + off, len - off, MSG_NOSIGNAL);
        if (w < 0 && (errno == EAGAIN || errno == EINTR))
            continue;
        if (w < 0) {
            snprintf(err, errlen, "cannot send the request: %s", strerror(errno));
            return -1;
        }
        off += (size_t)w;
    }
    return 0;
}

int fcgi_get(const char *endpoint, const char *path, const char *query, int timeout_ms,
             size_t max_body, fcgi_response *resp, char *err, size_t errlen)
{
    memset(resp, 0, sizeof *resp);
    size_t reqlen;
    unsigned char *req = encode_get(path, query, &reqlen);
    if (!req) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    long long deadline = now_ms() + timeout_ms;
    int fd = connect_endpoint(endpoint, deadline, err, errlen);
    if (fd < 0) {
        free(req);
        return -1;
    }
    int rc = -1;
    fcgi_decoder d;
    fcgi_decoder_init(&d, max_body + 65536); /* room for the headers */
    if (send_request(fd, req, reqlen, deadline, timeout_ms, err, errlen) != 0)
        goto out;
    deadline = now_ms() + timeout_ms;
    unsigned char buf[65536];
    for (;;) {
        int ready = wait_fd(fd, POLLIN, deadline);
        if (ready != 1) {
            snprintf(err, errlen, "timed out after %d ms waiting for the status page "
                                  "(every worker busy?)", timeout_ms);
            goto out;
        }
        ssize_t r = recv(fd, buf, sizeof buf, 0);
        if (r < 0 && (errno == EAGAIN || errno == EINTR))
            continue;
        if (r < 0) {
            snprintf(err, errlen, "cannot read the response: %s", strerror(errno));
            goto out;
        }
        if (r == 0) {
            snprintf(err, errlen, "connection closed before the response ended");
            goto out;
        }
        int f = fcgi_decoder_feed(&d, buf, (size_t)r);
        if (f < 0) {
            snprintf(err, errlen, d.too_big ? "status page larger than %zu bytes"
                                            : "not a FastCGI response", max_body);
            goto out;
        }
        if (f == 1)
            break;
    }
    const unsigned char *body;
    size_t blen;
    if (fcgi_split_response(d.out ? d.out : (const unsigned char *)"", d.out_len, &resp->status,
                            &body, &blen) != 0) {
        snprintf(err, errlen, "response without headers%s%s", d.err_len ? ": " : "", d.err);
        goto out;
    }
    if (blen > max_body) {
        snprintf(err, errlen, "status page larger than %zu bytes", max_body);
        goto out;
    }
    resp->body = malloc(blen + 1);
    if (!resp->body) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    memcpy(resp->body, body, blen);
    resp->body[blen] = '\0';
    resp->body_len = blen;
    snprintf(resp->stderr_text, sizeof resp->stderr_text, "%s", d.err);
    rc = 0;
out:
    fcgi_decoder_free(&d);
    free(req);
    close(fd);
    return rc;
}
