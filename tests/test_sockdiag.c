/* The kernel's listen queues through NETLINK_SOCK_DIAG, on real sockets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "sockdiag.h"

/* The one endpoint's listener, as sd_lookup finds it: 0, or -1 none. */
static int listen_of(const char *endpoint, sd_listen *out)
{
    sd_want w = {.endpoint = endpoint};
    if (sd_lookup(&w, 1) != 0 || !w.found)
        return -1;
    *out = w.l;
    return 0;
}

/* A unix socket listening at path (removed first) with backlog; its
 * address in *a. */
static int unix_listener(const char *path, int backlog, struct sockaddr_un *a)
{
    unlink(path);
    int l = socket(AF_UNIX, SOCK_STREAM, 0);
    *a = (struct sockaddr_un){.sun_family = AF_UNIX};
    snprintf(a->sun_path, sizeof a->sun_path, "%s", path);
    assert_int_equal(bind(l, (struct sockaddr *)a, sizeof *a), 0);
    assert_int_equal(listen(l, backlog), 0);
    return l;
}

/* A unix socket listening at path with backlog, and n connections it has
 * not accepted. */
static void test_a_unix_listener_s_queue_and_backlog(void **state)
{
    (void)state;
    char path[64];
    snprintf(path, sizeof path, "/tmp/fpmcpu-sockdiag-%d.sock", (int)getpid());
    struct sockaddr_un a;
    int l = unix_listener(path, 7, &a);
    char ep[80];
    snprintf(ep, sizeof ep, "unix:%s", path);
    sd_listen s = {99, 99};
    assert_int_equal(listen_of(ep, &s), 0);
    assert_int_equal(s.queue, 0);
    assert_int_equal(s.backlog, 7);
    int c[3];
    for (int i = 0; i < 3; i++) {
        c[i] = socket(AF_UNIX, SOCK_STREAM, 0);
        assert_int_equal(connect(c[i], (struct sockaddr *)&a, sizeof a), 0);
    }
    assert_int_equal(listen_of(ep, &s), 0);
    assert_int_equal(s.queue, 3);
    assert_int_equal(s.backlog, 7);
    for (int i = 0; i < 3; i++)
        close(c[i]);
    close(l);
    /* the path is there, no socket listens on it */
    assert_int_equal(listen_of(ep, &s), -1);
    unlink(path);
    assert_int_equal(listen_of(ep, &s), -1);
}

static void test_a_tcp_listener_s_queue_and_backlog(void **state)
{
    (void)state;
    int l = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    assert_int_equal(bind(l, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(l, 5), 0);
    socklen_t al = sizeof a;
    getsockname(l, (struct sockaddr *)&a, &al);
    int c[2];
    for (int i = 0; i < 2; i++) {
        c[i] = socket(AF_INET, SOCK_STREAM, 0);
        assert_int_equal(connect(c[i], (struct sockaddr *)&a, sizeof a), 0);
    }
    char ep[80];
    snprintf(ep, sizeof ep, "tcp:127.0.0.1:%d", ntohs(a.sin_port));
    sd_listen s = {99, 99};
    assert_int_equal(listen_of(ep, &s), 0);
    assert_int_equal(s.queue, 2);
    assert_int_equal(s.backlog, 5);
    snprintf(ep, sizeof ep, "tcp:localhost:%d", ntohs(a.sin_port)); /* a name: any address */
    assert_int_equal(listen_of(ep, &s), 0);
    assert_int_equal(s.queue, 2);
    for (int i = 0; i < 2; i++)
        close(c[i]);
    close(l);
    assert_int_equal(listen_of(ep, &s), -1);
}

/* Two pools, a unix and a TCP one, and one with no listener: one lookup. */
static void test_every_endpoint_of_a_round_at_once(void **state)
{
    (void)state;
    char path[64];
    snprintf(path, sizeof path, "/tmp/fpmcpu-sockdiag-%d-b.sock", (int)getpid());
    struct sockaddr_un ua;
    int u = unix_listener(path, 3, &ua);
    int t = socket(AF_INET6, SOCK_STREAM, 0);
    struct sockaddr_in6 ta = {.sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT};
    assert_int_equal(bind(t, (struct sockaddr *)&ta, sizeof ta), 0);
    assert_int_equal(listen(t, 9), 0);
    socklen_t tl = sizeof ta;
    getsockname(t, (struct sockaddr *)&ta, &tl);
    char e0[80], e1[80];
    snprintf(e0, sizeof e0, "unix:%s", path);
    snprintf(e1, sizeof e1, "tcp:[::1]:%d", ntohs(ta.sin6_port));
    sd_want w[3] = {{.endpoint = e0}, {.endpoint = e1}, {.endpoint = "unix:/nonexistent/x.sock"}};
    assert_int_equal(sd_lookup(w, 3), 0);
    assert_true(w[0].found && w[0].l.backlog == 3);
    assert_true(w[1].found && w[1].l.backlog == 9);
    assert_false(w[2].found);
    close(u);
    close(t);
    unlink(path);
}

/* Replies that are not what the kernel sends are read within their bytes. */
static void test_broken_replies_are_errors_not_reads(void **state)
{
    (void)state;
    sd_want w = {.endpoint = "unix:/x", .kind = 0, .ino = 1};
    unsigned char b[64] = {0};
    struct nlmsghdr h = {.nlmsg_len = 200, .nlmsg_type = SOCK_DIAG_BY_FAMILY};
    memcpy(b, &h, sizeof h);
    assert_int_equal(sd_parse_unix(b, sizeof b, &w, 1), -1); /* longer than the buffer */
    h.nlmsg_len = 8;
    memcpy(b, &h, sizeof h);
    assert_int_equal(sd_parse_unix(b, sizeof b, &w, 1), -1); /* shorter than a header */
    h.nlmsg_len = sizeof h + 4; /* a message too short to be one */
    memcpy(b, &h, sizeof h);
    assert_int_equal(sd_parse_inet(b, h.nlmsg_len, AF_INET, &w, 1), 0);
    h.nlmsg_type = NLMSG_DONE;
    memcpy(b, &h, sizeof h);
    assert_int_equal(sd_parse_unix(b, sizeof b, &w, 1), 2);
    assert_int_equal(sd_parse_unix(b, 3, &w, 1), 0); /* not even a header */
    assert_false(w.found);
}

/* A unix socket found once is asked for alone the next round, by its
 * socket inode; one replaced since (another socket at the path) is found
 * by the dump again. */
static void test_a_unix_socket_found_before_is_asked_for_alone(void **state)
{
    (void)state;
    char path[64], ep[80];
    snprintf(path, sizeof path, "/tmp/fpmcpu-sockdiag-x%d.sock", (int)getpid());
    snprintf(ep, sizeof ep, "unix:%s", path);
    struct sockaddr_un a;
    int l = unix_listener(path, 5, &a);
    sd_want w = {.endpoint = ep};
    assert_int_equal(sd_lookup(&w, 1), 0);
    assert_true(w.found && !w.exact && w.sock_ino != 0);
    uint32_t ino = w.sock_ino;
    assert_int_equal(sd_lookup(&w, 1), 0); /* sock_ino kept, as the recorder keeps it */
    assert_true(w.found && w.exact && w.sock_ino == ino);
    assert_int_equal(w.l.backlog, 5);
    close(l);
    l = unix_listener(path, 9, &a); /* php-fpm restarted: a new socket, a new path inode */
    assert_int_equal(sd_lookup(&w, 1), 0);
    assert_true(w.found && !w.exact && w.sock_ino != ino);
    assert_int_equal(w.l.backlog, 9);
    close(l);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_unix_listener_s_queue_and_backlog),
        cmocka_unit_test(test_a_tcp_listener_s_queue_and_backlog),
        cmocka_unit_test(test_every_endpoint_of_a_round_at_once),
        cmocka_unit_test(test_broken_replies_are_errors_not_reads),
        cmocka_unit_test(test_a_unix_socket_found_before_is_asked_for_alone),
    };
    return cmocka_run_group_tests_name("sockdiag", tests, NULL, NULL);
}
