/*
 * sockdiag: the kernel's view of pools' listen sockets, read through
 * NETLINK_SOCK_DIAG as `ss -l` reads it: the connections waiting to be
 * accepted (queue) and the most it will queue (backlog).  php-fpm's own
 * "listen queue" is 0 on unix sockets whatever waits; this is the real one.
 * Every endpoint of a round is looked up at once: one dump of listening
 * unix sockets, one of TCP listeners per address family, so the cost does
 * not grow with the number of pools, nor with the host's other sockets.  A
 * unix socket found before is asked for alone, by its socket inode (the
 * dump is for those it cannot find so), so a host's thousands of other
 * listening unix sockets cost the recorder nothing.
 * The replies are parsed by sd_parse_*, pure functions over bytes from the
 * kernel (fuzzed).  Nothing prints.
 */
#ifndef SOCKDIAG_H
#define SOCKDIAG_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t queue, backlog;
} sd_listen;

/* An endpoint to look up: "unix:/path" or "tcp:host:port" (host an IPv4 or
 * IPv6 address, or a name that matches any address).  The lookup fills the
 * rest: found, and then l. */
typedef struct {
    const char *endpoint;
    uint32_t    sock_ino;      /* unix: its socket's inode when last found (the
                                  caller keeps it), 0 unknown; set when found */
    int         found;
    int         exact;         /* found by asking for its socket alone */
    sd_listen   l;
    /* what the lookup matches by (filled by it) */
    int           kind;        /* 0 unix, 1 tcp, -1 neither */
    uint64_t      ino;         /* unix: the path's inode */
    int           family;      /* tcp: AF_INET or AF_INET6, 0 for a name (both) */
    unsigned char addr[16];
    int           has_addr;
    uint16_t      port;
} sd_want;

/* Looks every endpoint of w up.  0, or -1 when the kernel could not be
 * asked (errno); an endpoint with no listener is not found. */
int sd_lookup(sd_want *w, size_t n);

/* One buffer of a unix_diag dump's reply, matched against the unix wants
 * of w (by path and the path's inode); a want matched gets found and l.
 * 0 more to read, 2 the dump is done, -1 an error reply or bytes that are
 * not netlink messages. */
int sd_parse_unix(const void *buf, size_t len, sd_want *w, size_t n);

/* The same for an inet_diag dump of family's TCP listeners: a want of that
 * family (or a name's) whose port is the listener's, and whose address is
 * the listener's or the listener listens on every address. */
int sd_parse_inet(const void *buf, size_t len, int family, sd_want *w, size_t n);

#endif
