# Shared by the fleet test and make bench: a real PostgreSQL in a temp dir,
# on a unix socket only.
#   pg_start DIR   initdb DIR/data, start it on DIR/sock; $PGCONN is its
#                  connection string (user fpm, trust)
#   pg_stop DIR    stops it
# Sourced, not run.
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
as_pg() { "$@"; }
if [ "$(id -u)" -eq 0 ]; then # the server will not run as root
    as_pg() { runuser -u postgres -- "$@"; }
fi

pg_start() {
    [ -x "$pgbin/initdb" ] || { echo "FAIL: no PostgreSQL server (Debian: postgresql)" >&2; return 1; }
    chmod 755 "$1"
    [ "$(id -u)" -eq 0 ] && chown postgres "$1"
    as_pg "$pgbin/initdb" -D "$1/data" -A trust -U fpm -E UTF8 --locale=C --no-sync \
        >"$1/initdb.log" 2>&1 || { cat "$1/initdb.log" >&2; return 1; }
    as_pg mkdir "$1/sock"
    as_pg "$pgbin/pg_ctl" -D "$1/data" -l "$1/pg.log" -w \
        -o "-c listen_addresses='' -k $1/sock -c fsync=off" start >/dev/null ||
        { cat "$1/pg.log" >&2; return 1; }
    PGCONN="host=$1/sock user=fpm dbname=postgres"
}

pg_stop() {
    [ -d "$1/data" ] && as_pg "$pgbin/pg_ctl" -D "$1/data" -m immediate stop >/dev/null 2>&1
    return 0
}
