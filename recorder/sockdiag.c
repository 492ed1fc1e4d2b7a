/* Listen queues through NETLINK_SOCK_DIAG. */
#include "sockdiag.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define TCP_LISTEN_STATE 10 /* the kernel's TCP_LISTEN, as unix sockets use it too */

/* Walks the netlink messages of buf: each whole SOCK_DIAG_BY_FAMILY message
 * goes to fn; NLMSG_DONE ends it (2); NLMSG_ERROR or a broken header is -1. */
static int walk(const void *buf, size_t len, void (*fn)(const unsigned char *, size_t, void *),
                void *arg)
{
    const unsigned char *b = buf;
    size_t off = 0;
    while (len - off >= sizeof(struct nlmsghdr)) {
        struct nlmsghdr h;
        memcpy(&h, b + off, sizeof h);
        if (h.nlmsg_len < sizeof h || h.nlmsg_len > len - off)
            return -1;
        if (h.nlmsg_type == NLMSG_DONE)
            return 2;
        if (h.nlmsg_type == NLMSG_ERROR)
            return -1;
        if (h.nlmsg_type == SOCK_DIAG_BY_FAMILY)
            fn(b + off + sizeof h, h.nlmsg_len - sizeof h, arg);
        size_t step = NLMSG_ALIGN(h.nlmsg_len);
        if (step > len - off)
            break;
        off += step;
    }
    return 0;
}

typedef struct {
    sd_want *w;
    size_t   n;
    int      family;
} wants;

/* One unix_diag_msg and its attributes, against the unix wants. */
static void one_unix(const unsigned char *p, size_t n, void *arg)
{
    const wants *ws = arg;
    struct unix_diag_msg m;
    if (n < sizeof m)
        return;
    memcpy(&m, p, sizeof m);
    if (m.udiag_state != TCP_LISTEN_STATE)
        return;
    const unsigned char *name = NULL;
    size_t name_len = 0;
    int has_vfs = 0, has_rq = 0;
    struct unix_diag_vfs vfs = {0, 0};
    struct unix_diag_rqlen rq = {0, 0};
    for (size_t off = NLMSG_ALIGN(sizeof m); off + sizeof(struct rtattr) <= n;) {
        struct rtattr a;
        memcpy(&a, p + off, sizeof a);
        if (a.rta_len < sizeof a || a.rta_len > n - off)
            break;
        const unsigned char *v = p + off + RTA_LENGTH(0);
        size_t vl = a.rta_len - RTA_LENGTH(0);
        if (a.rta_type == UNIX_DIAG_NAME) { /* a path's name ends with its NUL */
            name = v;
            name_len = vl && v[vl - 1] == '\0' ? vl - 1 : vl;
        } else if (a.rta_type == UNIX_DIAG_VFS && vl >= sizeof vfs) {
            memcpy(&vfs, v, sizeof vfs);
            has_vfs = 1;
        } else if (a.rta_type == UNIX_DIAG_RQLEN && vl >= sizeof rq) {
            memcpy(&rq, v, sizeof rq);
            has_rq = 1;
        }
        off += RTA_ALIGN(a.rta_len);
    }
    if (!name || !has_vfs || !has_rq)
        return;
    for (size_t i = 0; i < ws->n; i++) {
        sd_want *w = &ws->w[i];
        const char *path = w->endpoint + 5;
        if (w->kind == 0 && !w->found && vfs.udiag_vfs_ino == w->ino &&
            strlen(path) == name_len && memcmp(path, name, name_len) == 0) {
            w->found = 1;
            w->sock_ino = m.udiag_ino;
            w->l = (sd_listen){rq.udiag_rqueue, rq.udiag_wqueue};
        }
    }
}

int sd_parse_unix(const void *buf, size_t len, sd_want *w, size_t n)
{
    wants ws = {w, n, AF_UNIX};
    return walk(buf, len, one_unix, &ws);
}

static void one_inet(const unsigned char *p, size_t n, void *arg)
{
    const wants *ws = arg;
    struct inet_diag_msg m;
    if (n < sizeof m)
        return;
    memcpy(&m, p, sizeof m);
    if (m.idiag_state != TCP_LISTEN_STATE || m.idiag_family != ws->family)
        return;
    static const unsigned char any[16];
    size_t al = ws->family == AF_INET ? 4 : 16;
    int wildcard = memcmp(m.id.idiag_src, any, al) == 0;
    for (size_t i = 0; i < ws->n; i++) {
        sd_want *w = &ws->w[i];
        if (w->kind != 1 || w->found || ntohs(m.id.idiag_sport) != w->port ||
            (w->family && w->family != ws->family))
            continue;
        if (w->has_addr && !wildcard && memcmp(m.id.idiag_src, w->addr, al) != 0)
            continue;
        w->found = 1;
        w->l = (sd_listen){m.idiag_rqueue, m.idiag_wqueue};
    }
}

int sd_parse_inet(const void *buf, size_t len, int family, sd_want *w, size_t n)
{
    wants ws = {w, n, family};
    return walk(buf, len, one_inet, &ws);
}

/* Sends req (a netlink message of len bytes) and parses the dump's replies
 * with parse until it is done.  0, or -1 (errno). */
static int dump(void *req, size_t len, int (*parse)(const void *, size_t, void *), void *arg)
{
    int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (fd < 0)
        return -1;
    struct sockaddr_nl nl = {.nl_family = AF_NETLINK};
    int rc = -1, err = EPROTO;
    if (sendto(fd, req, len, 0, (struct sockaddr *)&nl, sizeof nl) != (ssize_t)len) {
        err = errno;
    } else {
        static unsigned char buf[32768] __attribute__((aligned(4)));
        for (;;) {
            ssize_t got = recv(fd, buf, sizeof buf, 0);
            if (got < 0 && errno == EINTR)
                continue;
            if (got <= 0) {
                err = got < 0 ? errno : err;
                break;
            }
            int r = parse(buf, (size_t)got, arg);
            if (r != 0) {
                rc = r == 2 ? 0 : -1;
                break;
            }
        }
    }
    close(fd);
    if (rc != 0)
        errno = err;
    return rc;
}

static int parse_unix_w(const void *b, size_t n, void *arg)
{
    wants *ws = arg;
    return sd_parse_unix(b, n, ws->w, ws->n);
}

static int parse_inet_w(const void *b, size_t n, void *arg)
{
    wants *ws = arg;
    return sd_parse_inet(b, n, ws->family, ws->w, ws->n);
}

/* What a want matches by, from its endpoint. */
static void prepare(sd_want *w)
{
    w->found = w->exact = 0;
    w->kind = -1;
    w->has_addr = w->family = 0;
    if (strncmp(w->endpoint, "unix:", 5) == 0) {
        struct stat st;
        if (stat(w->endpoint + 5, &st) == 0) {
            w->kind = 0;
            w->ino = (uint64_t)st.st_ino;
        }
        return;
    }
    if (strncmp(w->endpoint, "tcp:", 4) != 0)
        return;
    const char *hp = w->endpoint + 4, *colon = strrchr(hp, ':');
    char host[256];
    size_t hl = colon ? (size_t)(colon - hp) : 0;
    long port = colon ? strtol(colon + 1, NULL, 10) : 0;
    if (!colon || hl >= sizeof host || port <= 0 || port > 65535)
        return;
    memcpy(host, hp, hl);
    host[hl] = '\0';
    if (hl >= 2 && host[0] == '[' && host[hl - 1] == ']') {
        memmove(host, host + 1, hl - 2);
        host[hl - 2] = '\0';
    }
    w->kind = 1;
    w->port = (uint16_t)port;
    if (inet_pton(AF_INET, host, w->addr) == 1)
        w->family = AF_INET, w->has_addr = 1;
    else if (inet_pton(AF_INET6, host, w->addr) == 1)
        w->family = AF_INET6, w->has_addr = 1;
}

/* The unix sockets found before, each asked for alone by its socket
 * inode: one request and one reply each, whatever else the host listens
 * on.  A socket since replaced (another VFS inode, or gone) is not found,
 * and the dump looks for it. */
static void exact_unix(sd_want *w, size_t n)
{
    int fd = -1;
    for (size_t i = 0; i < n; i++) {
        uint32_t ino = w[i].sock_ino;
        w[i].sock_ino = 0;
        if (w[i].kind != 0 || !ino)
            continue;
        if (fd < 0 && (fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG)) < 0)
            return;
        struct {
            struct nlmsghdr      h;
            struct unix_diag_req r;
        } req = {{sizeof req, SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST, 1, 0},
                 {.sdiag_family = AF_UNIX, .udiag_ino = ino,
                  .udiag_show = UDIAG_SHOW_NAME | UDIAG_SHOW_VFS | UDIAG_SHOW_RQLEN,
                  .udiag_cookie = {INET_DIAG_NOCOOKIE, INET_DIAG_NOCOOKIE}}};
        struct sockaddr_nl nl = {.nl_family = AF_NETLINK};
        static unsigned char buf[8192] __attribute__((aligned(4)));
        ssize_t got = -1;
        if (sendto(fd, &req, sizeof req, 0, (struct sockaddr *)&nl, sizeof nl) == (ssize_t)sizeof req)
            while ((got = recv(fd, buf, sizeof buf, 0)) < 0 && errno == EINTR)
                ;
        if (got > 0)
            sd_parse_unix(buf, (size_t)got, &w[i], 1); /* its reply, or an error */
        w[i].exact = w[i].found;
    }
    if (fd >= 0)
        close(fd);
}

int sd_lookup(sd_want *w, size_t n)
{
    int any_unix = 0, any4 = 0, any6 = 0;
    for (size_t i = 0; i < n; i++)
        prepare(&w[i]);
    exact_unix(w, n);
    for (size_t i = 0; i < n; i++) {
        any_unix |= w[i].kind == 0 && !w[i].found;
        any4 |= w[i].kind == 1 && w[i].family != AF_INET6;
        any6 |= w[i].kind == 1 && w[i].family != AF_INET;
    }
    int rc = 0;
    if (any_unix) {
        struct {
            struct nlmsghdr      h;
            struct unix_diag_req r;
        } req = {{sizeof req, SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_DUMP, 1, 0},
                 {.sdiag_family = AF_UNIX, .udiag_states = 1u << TCP_LISTEN_STATE,
                  .udiag_show = UDIAG_SHOW_NAME | UDIAG_SHOW_VFS | UDIAG_SHOW_RQLEN}};
        wants ws = {w, n, AF_UNIX};
        rc |= dump(&req, sizeof req, parse_unix_w, &ws);
    }
    for (int k = 0; k < 2; k++) {
        int fam = k ? AF_INET6 : AF_INET;
        if (!(k ? any6 : any4))
            continue;
        struct {
            struct nlmsghdr         h;
            struct inet_diag_req_v2 r;
        } req = {{sizeof req, SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_DUMP, 1, 0},
                 {.sdiag_family = (uint8_t)fam, .sdiag_protocol = IPPROTO_TCP,
                  .idiag_states = 1u << TCP_LISTEN_STATE}};
        wants ws = {w, n, fam};
        rc |= dump(&req, sizeof req, parse_inet_w, &ws);
    }
    return rc ? -1 : 0;
}
