/*
 * sockdiag: the kernel's view of a pool's listen socket, read through
 * NETLINK_SOCK_DIAG as `ss -l` reads it: the connections waiting to be
 * accepted (queue) and the most it will queue (backlog).  php-fpm's own
 * "listen queue" is 0 on unix sockets whatever waits; this is the real one.
 * The dumps ask for listening sockets only, so their cost does not grow
 * with the host's other sockets.  The replies are parsed by sd_parse_*,
 * pure functions over bytes from the kernel (fuzzed).  Nothing prints.
 */
#ifndef SOCKDIAG_H
#define SOCKDIAG_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t queue, backlog;
} sd_listen;

/* The listening socket of an endpoint ("unix:/path" or "tcp:host:port",
 * host an IPv4 or IPv6 address, or a name that matches any address): 0 with
 * *out, or -1 when none was found or the kernel could not be asked (errno). */
int sd_listen_of(const char *endpoint, sd_listen *out);

/* One buffer of a unix_diag dump's reply: the entry bound to path whose
 * inode is ino.  1 found (*out filled), 0 not in this buffer, 2 the dump is
 * done, -1 an error reply or bytes that are not netlink messages. */
int sd_parse_unix(const void *buf, size_t len, const char *path, uint64_t ino, sd_listen *out);

/* One buffer of an inet_diag dump's reply: the listener on port (host
 * order) whose address is addr (16 bytes, IPv4 in the first 4; NULL: any),
 * or a wildcard one.  Returns as sd_parse_unix. */
int sd_parse_inet(const void *buf, size_t len, int family, const unsigned char *addr,
                  uint16_t port, sd_listen *out);

#endif
