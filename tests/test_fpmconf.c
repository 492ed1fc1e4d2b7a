/* php-fpm configuration discovery on a sample tree. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fpmconf.h"

static void test_pools_from_a_config_with_includes(void **state)
{
    (void)state;
    fpmconf c;
    char err[512];
    assert_int_equal(fpmconf_load("fixtures/fpmconf/php-fpm.conf", &c, err, sizeof err), 0);
    assert_string_equal(c.pid_file, "/run/php/php8.2-fpm.pid");
    assert_int_equal(c.n, 3);
    fpmconf_pool *shop = &c.pools[0], *api = &c.pools[1], *legacy = &c.pools[2];
    assert_string_equal(shop->name, "shop");
    assert_string_equal(shop->endpoint, "unix:/run/php/shop.sock"); /* $pool */
    assert_string_equal(shop->status_path, "/fpm-status");         /* quotes */
    assert_string_equal(shop->status_endpoint, "tcp:127.0.0.1:9100");
    assert_string_equal(shop->pm, "dynamic");
    assert_int_equal(shop->max_children, 40);                      /* comment */
    assert_string_equal(api->endpoint, "tcp:127.0.0.1:9001");       /* a bare port */
    assert_string_equal(api->pm, "ondemand");
    assert_int_equal(api->max_children, 12);
    assert_string_equal(api->status_path, "/status");
    assert_null(api->status_endpoint);
    assert_string_equal(legacy->endpoint, "tcp:[::1]:9002");
    assert_null(legacy->status_path); /* no status path: the recorder skips it */
    /* where each pool is defined: its section header, in the included file */
    assert_string_equal(shop->where, "fixtures/fpmconf/pool.d/a-shop.conf:1");
    assert_string_equal(api->where, "fixtures/fpmconf/pool.d/b-api.conf:2");
    assert_string_equal(legacy->where, "fixtures/fpmconf/pool.d/b-api.conf:8");
    /* where each pm.max_children is set (fpmlog(5) POOL conf_*): the file's
     * absolute path, the line, its text as written; the last one read wins,
     * a CR of a CRLF line kept */
    char *abs = realpath("fixtures/fpmconf/pool.d/a-shop.conf", NULL);
    assert_non_null(abs);
    assert_string_equal(shop->conf_file, abs);
    assert_int_equal(shop->conf_line, 6);
    assert_string_equal(shop->conf_text, "pm.max_children = 40 ; forty");
    assert_int_equal(api->conf_line, 5);
    assert_string_equal(api->conf_text, "pm.max_children=12");
    assert_int_equal(legacy->conf_line, 12);
    assert_string_equal(legacy->conf_text, "\tpm.max_children = 6\r");
    assert_int_equal(legacy->max_children, 6);
    free(abs);
    fpmconf_free(&c);
}

/* A pool's access log and its format as php-fpm 8.2 reads them (checked
 * against php-fpm8.2 -tt): "..." with \" and \\, '...' as written, bare up
 * to a comment; $pool; a relative path under the pool's prefix, else
 * php-fpm's; php-fpm's default format where a pool sets none */
static void test_access_log_and_format_as_php_fpm_reads_them(void **state)
{
    (void)state;
    char path[] = "/tmp/fpmcpu-access-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("[www]\nlisten = /run/www.sock\nprefix = /srv/pre/\n"
          "access.log = logs/$pool.access.log\n"
          "access.format = \"%R - %u %t \\\"%m %r%Q%q\\\" %s ; x \\\\ y \\n 'q'\"\n"
          "[b]\nlisten = /run/b.sock\naccess.log = rel/$pool.log\n"
          "access.format = '%t %p \\\"x\\\" %C%%'\n"
          "[c]\nlisten = /run/c.sock\naccess.log = /var/log/c.log\n"
          "access.format = %t $pool  %p %C%% ; a comment\n"
          "[d]\nlisten = /run/d.sock\naccess.log = /var/log/d.log\n"
          "[e]\nlisten = /run/e.sock\naccess.format = %C %d %p\n", f);
    fclose(f);
    fpmconf c;
    char err[512];
    assert_int_equal(fpmconf_load(path, &c, err, sizeof err), 0);
    unlink(path);
    assert_int_equal(c.n, 5);
    assert_string_equal(c.pools[0].access_log, "/srv/pre//logs/www.access.log"); /* php-fpm's join */
    assert_string_equal(c.pools[0].access_format, "%R - %u %t \"%m %r%Q%q\" %s ; x \\ y \\n 'q'");
    assert_string_equal(c.pools[1].access_log, FPMCONF_PREFIX "/rel/b.log");
    assert_string_equal(c.pools[1].access_format, "%t %p \\\"x\\\" %C%%");
    assert_string_equal(c.pools[2].access_format, "%t c  %p %C%%");
    assert_string_equal(c.pools[3].access_format, "%R - %u %t \"%m %r\" %s"); /* the default */
    assert_null(c.pools[4].access_log); /* a format without a log: neither */
    assert_null(c.pools[4].access_format);
    fpmconf_free(&c);
}

static void test_config_errors_name_the_file_and_line(void **state)
{
    (void)state;
    fpmconf c;
    char err[512];
    assert_int_equal(fpmconf_load("fixtures/fpmconf/none.conf", &c, err, sizeof err), -1);
    assert_string_equal(err, "fixtures/fpmconf/none.conf: No such file or directory");
    char path[] = "/tmp/fpmcpu-bad-XXXXXX", want[600];
    FILE *f = fdopen(mkstemp(path), "w");
    assert_non_null(f);
    fputs("[www]\nlisten = /x.sock\nthis line has no equals\n", f);
    fclose(f);
    assert_int_equal(fpmconf_load(path, &c, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:3: expected KEY = VALUE", path);
    assert_string_equal(err, want);
    remove(path);
}

/* include=/dev/zero once made the recorder spin; a line over the buffer was
 * split and reported past the end of the file. */
static void test_non_regular_includes_and_long_lines_are_refused(void **state)
{
    (void)state;
    fpmconf c;
    char err[512], path[] = "/tmp/fpmcpu-conf-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("[global]\ninclude = /dev/zero\n", f);
    fclose(f);
    assert_int_equal(fpmconf_load(path, &c, err, sizeof err), -1);
    assert_string_equal(err, "/dev/zero: not a regular file (a configuration file is one)");
    f = fopen(path, "w");
    fputs("[www]\nlisten = /x.sock\n;", f);
    for (int i = 0; i < 9000; i++)
        fputc('x', f);
    fputs("\npm.status_path = /status\n", f);
    fclose(f);
    assert_int_equal(fpmconf_load(path, &c, err, sizeof err), -1);
    char want[600];
    snprintf(want, sizeof want, "%s:3: line longer than 8190 bytes", path);
    assert_string_equal(err, want);
    remove(path);
}

static void test_listen_values_as_endpoints(void **state)
{
    (void)state;
    char ep[64];
    static const char *const c[][2] = {
        {"/run/php/x.sock", "unix:/run/php/x.sock"}, {"9000", "tcp:127.0.0.1:9000"},
        {"127.0.0.1:9000", "tcp:127.0.0.1:9000"}, {"[::1]:9000", "tcp:[::1]:9000"},
        {"localhost:9000", "tcp:localhost:9000"},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        assert_int_equal(fpmconf_endpoint(c[i][0], ep, sizeof ep), 0);
        assert_string_equal(ep, c[i][1]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pools_from_a_config_with_includes),
        cmocka_unit_test(test_config_errors_name_the_file_and_line),
        cmocka_unit_test(test_non_regular_includes_and_long_lines_are_refused),
        cmocka_unit_test(test_listen_values_as_endpoints),
        cmocka_unit_test(test_access_log_and_format_as_php_fpm_reads_them),
    };
    return cmocka_run_group_tests_name("fpmconf", tests, NULL, NULL);
}
