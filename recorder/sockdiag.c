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

/* Walks the netlink messages of buf: each whole message of type SOCK_DIAG_BY_FAMILY
 * goes to fn (0 go on, 1 found); NLMSG_DONE ends it (2), NLMSG_ERROR or
 * a broken header is -1. */
static int walk(const void *buf, size_t len, int (*fn)(const unsigned char *p, size_t n, void *arg),
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
        if (h.nlmsg_type == SOCK_DIAG_BY_FAMILY) {
            int rc = fn(b + off + sizeof h, h.nlmsg_len - sizeof h, arg);
            if (rc)
                return rc;
        }
        size_t step = NLMSG_ALIGN(h.nlmsg_len);
        if (step > len - off)
            break;
        off += step;
    }
    return 0;
}

typedef struct {
    const char *path;
    uint64_t    ino;
    sd_listen  *out;
} unix_want;

/* One unix_diag_msg and its attributes. */
static int one_unix(const unsigned char *p, size_t n, void *arg)
{
    unix_want *w = arg;
    if (n < sizeof(struct unix_diag_msg))
        return 0;
    struct unix_diag_msg m;
    memcpy(&m, p, sizeof m);
    if (m.udiag_state != TCP_LISTEN_STATE)
        return 0;
    int named = 0, same_inode = 0, has_rq = 0;
    struct unix_diag_rqlen rq = {0, 0};
    size_t off = NLMSG_ALIGN(sizeof m);
    while (off + sizeof(struct rtattr) <= n) {
        struct rtattr a;
        memcpy(&a, p + off, sizeof a);
        if (a.rta_len < sizeof a || a.rta_len > n - off)
            break;
        const unsigned char *v = p + off + RTA_LENGTH(0);
        size_t vl = a.rta_len - RTA_LENGTH(0);
        if (a.rta_type == UNIX_DIAG_NAME) { /* a path's name ends with its NUL */
            size_t nl = vl && v[vl - 1] == '\0' ? vl - 1 : vl;
            named = nl == strlen(w->path) && memcmp(v, w->path, nl) == 0;
        }
        else if (a.rta_type == UNIX_DIAG_VFS && vl >= sizeof(struct unix_diag_vfs)) {
            struct unix_diag_vfs vfs;
            memcpy(&vfs, v, sizeof vfs);
            same_inode = vfs.udiag_vfs_ino == w->ino;
        } else if (a.rta_type == UNIX_DIAG_RQLEN && vl >= sizeof rq) {
            memcpy(&rq, v, sizeof rq);
            has_rq = 1;
        }
        off += RTA_ALIGN(a.rta_len);
    }
    if (!named || !same_inode || !has_rq)
        return 0;
    *w->out = (sd_listen){rq.udiag_rqueue, rq.udiag_wqueue};
    return 1;
}

int sd_parse_unix(const void *buf, size_t len, const char *path, uint64_t ino, sd_listen *out)
{
    unix_want w = {path, ino, out};
    return walk(buf, len, one_unix, &w);
}

typedef struct {
    int                  family;
    const unsigned char *addr;
    uint16_t             port;
    sd_listen           *out;
} inet_want;

static int one_inet(const unsigned char *p, size_t n, void *arg)
{
    inet_want *w = arg;
    if (n < sizeof(struct inet_diag_msg))
        return 0;
    struct inet_diag_msg m;
    memcpy(&m, p, sizeof m);
    if (m.idiag_state != TCP_LISTEN_STATE || m.idiag_family != w->family ||
        ntohs(m.id.idiag_sport) != w->port)
        return 0;
    static const unsigned char any[16];
    size_t al = w->family == AF_INET ? 4 : 16;
    if (w->addr && memcmp(m.id.idiag_src, w->addr, al) != 0 && memcmp(m.id.idiag_src, any, al) != 0)
        return 0;
    *w->out = (sd_listen){m.idiag_rqueue, m.idiag_wqueue};
    return 1;
}

int sd_parse_inet(const void *buf, size_t len, int family, const unsigned char *addr,
                  uint16_t port, sd_listen *out)
{
    inet_want w = {family, addr, port, out};
    return walk(buf, len, one_inet, &w);
}

/* Sends req (a netlink message of len bytes) and parses the dump's replies
 * with parse until one says found or done.  0 found, -1 not (errno). */
static int ask(void *req, size_t len, int (*parse)(const void *, size_t, void *), void *arg)
{
    int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
    if (fd < 0)
        return -1;
    struct sockaddr_nl nl = {.nl_family = AF_NETLINK};
    int rc = -1, err = ENOENT; /* not found, unless a call failed */
    if (sendto(fd, req, len, 0, (struct sockaddr *)&nl, sizeof nl) != (ssize_t)len) {
        err = errno;
    } else {
        static unsigned char buf[32768] __attribute__((aligned(4)));
        for (;;) {
            ssize_t n = recv(fd, buf, sizeof buf, 0);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                err = n < 0 ? errno : err;
                break;
            }
            int r = parse(buf, (size_t)n, arg);
            if (r == 1)
                rc = 0;
            if (r != 0)
                break;
        }
    }
    close(fd);
    if (rc != 0)
        errno = err;
    return rc;
}

typedef struct {
    const char *path;
    uint64_t    ino;
    int         family;
    unsigned char addr[16];
    int         has_addr;
    uint16_t    port;
    sd_listen  *out;
} query;

static int parse_unix_q(const void *b, size_t n, void *arg)
{
    query *q = arg;
    return sd_parse_unix(b, n, q->path, q->ino, q->out);
}

static int parse_inet_q(const void *b, size_t n, void *arg)
{
    query *q = arg;
    return sd_parse_inet(b, n, q->family, q->has_addr ? q->addr : NULL, q->port, q->out);
}

static int unix_listen(const char *path, sd_listen *out)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return -1;
    struct {
        struct nlmsghdr       h;
        struct unix_diag_req r;
    } req = {{sizeof req, SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_DUMP, 1, 0},
             {.sdiag_family = AF_UNIX, .udiag_states = 1u << TCP_LISTEN_STATE,
              .udiag_show = UDIAG_SHOW_NAME | UDIAG_SHOW_VFS | UDIAG_SHOW_RQLEN}};
    query q = {.path = path, .ino = (uint64_t)st.st_ino, .out = out};
    return ask(&req, sizeof req, parse_unix_q, &q);
}

static int tcp_listen(const char *hostport, sd_listen *out)
{
    const char *colon = strrchr(hostport, ':');
    if (!colon || colon == hostport)
        return errno = EINVAL, -1;
    char host[256];
    size_t hl = (size_t)(colon - hostport);
    if (hostport[0] == '[' && hl >= 2 && hostport[hl - 1] == ']')
        memcpy(host, hostport + 1, hl -= 2);
    else if (hl < sizeof host)
        memcpy(host, hostport, hl);
    else
        return errno = EINVAL, -1;
    host[hl] = '\0';
    long port = strtol(colon + 1, NULL, 10);
    if (port <= 0 || port > 65535)
        return errno = EINVAL, -1;
    query q = {.port = (uint16_t)port, .out = out};
    int fams[2] = {AF_INET, AF_INET6}, nf = 2;
    if (inet_pton(AF_INET, host, q.addr) == 1)
        q.has_addr = 1, nf = 1;
    else if (inet_pton(AF_INET6, host, q.addr) == 1)
        q.has_addr = 1, fams[0] = AF_INET6, nf = 1;
    for (int k = 0; k < nf; k++) { /* a name: its port on any address */
        struct {
            struct nlmsghdr         h;
            struct inet_diag_req_v2 r;
        } req = {{sizeof req, SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST | NLM_F_DUMP, 1, 0},
                 {.sdiag_family = (uint8_t)fams[k], .sdiag_protocol = IPPROTO_TCP,
                  .idiag_states = 1u << TCP_LISTEN_STATE}};
        q.family = fams[k];
        if (ask(&req, sizeof req, parse_inet_q, &q) == 0)
            return 0;
    }
    return -1;
}

int sd_listen_of(const char *endpoint, sd_listen *out)
{
    if (strncmp(endpoint, "unix:", 5) == 0)
        return unix_listen(endpoint + 5, out);
    if (strncmp(endpoint, "tcp:", 4) == 0)
        return tcp_listen(endpoint + 4, out);
    errno = EINVAL;
    return -1;
}
