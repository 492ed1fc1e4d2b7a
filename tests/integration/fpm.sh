# Shared by the integration scripts: a real php-fpm 8.2 in a temp dir.
#   fpm_start DIR POOLCONF...   writes DIR/fpm.conf from the pool snippets and starts it
#                               (through $FPM_WRAP, a command that runs it, when set)
#   fpm_stop DIR                stops it by its pid file
#   fcgi SOCKET SCRIPT QUERY    one request with cgi-fcgi; the body, headers stripped
#   fcgi_load SOCKET SCRIPT FILE QUERY   the same, output dropped (for load)
#   cg_wrap FILE CGROUP...      writes FILE, a command that runs its arguments
#                               inside the cgroup v1 groups named (for FPM_WRAP)
#   cg_remove CGROUP...         moves their tasks to the parents, removes them
#   cg_first CGROUP             makes a cgroup v1 cpu group of the highest
#                               cpu.shares (root only; fails otherwise)
#   cg_memory CGROUP MIB        makes a cgroup v1 memory group of MIB MiB, no swap
#   cg_oom_ready                root with a v1 memory controller that counts OOM kills
#   mem_test NAME MIB, mem_record, mem_kills   a script in a memory group (below)
# Sourced, not run.

PHP_FPM=${PHP_FPM:-$(command -v php-fpm8.2 || echo /usr/sbin/php-fpm8.2)}

fpm_user_lines() {
    # as root php-fpm insists on a user to run the workers as
    if [ "$(id -u)" -eq 0 ]; then
        printf 'user = nobody\ngroup = nogroup\n'
    fi
}

fpm_start() {
    fdir=$1; shift
    chmod 755 "$fdir"
    {
        printf '[global]\npid = %s/fpm.pid\nerror_log = %s/fpm.log\ndaemonize = yes\n' "$fdir" "$fdir"
        for pool in "$@"; do
            cat "$pool"
            fpm_user_lines
        done
    } > "$fdir/fpm.conf"
    ${FPM_WRAP:-} "$PHP_FPM" -y "$fdir/fpm.conf" ${FPM_ROOT_FLAG:-$( [ "$(id -u)" -eq 0 ] && echo -R )} || return 1
    i=0
    while [ ! -s "$fdir/fpm.pid" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    [ -s "$fdir/fpm.pid" ]
}

fpm_stop() {
    fdir=$1
    [ -s "$fdir/fpm.pid" ] || return 0
    pid=$(cat "$fdir/fpm.pid")
    kill -QUIT "$pid" 2>/dev/null
    i=0
    while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    kill -KILL "$pid" 2>/dev/null || true
    rm -f "$fdir/fpm.pid"
}

# fcgi_load SOCKET SCRIPT_NAME SCRIPT_FILENAME QUERY: one request, output
# dropped; cheap enough to be load
fcgi_load() {
    env -i SCRIPT_NAME="$2" SCRIPT_FILENAME="$3" QUERY_STRING="$4" \
        REQUEST_URI="$2?$4" REQUEST_METHOD=GET SERVER_PROTOCOL=HTTP/1.1 \
        cgi-fcgi -bind -connect "$1" >/dev/null 2>&1
}

# fcgi SOCKET SCRIPT_NAME SCRIPT_FILENAME QUERY [METHOD]: prints the body
fcgi() {
    env -i SCRIPT_NAME="$2" SCRIPT_FILENAME="$3" QUERY_STRING="$4" \
        REQUEST_URI="$2${4:+?$4}" REQUEST_METHOD="${5:-GET}" SERVER_PROTOCOL=HTTP/1.1 \
        cgi-fcgi -bind -connect "$1" 2>/dev/null | python3 -c '
import sys
d = sys.stdin.buffer.read()
i = d.find(b"\r\n\r\n")
sys.stdout.buffer.write(d[i + 4:] if i >= 0 else d)'
}

# cg_wrap FILE CGROUP...: FILE runs its arguments inside each CGROUP (a v1
# group's folder), as php-fpm's master must start to fork its workers there
cg_wrap() {
    f=$1; shift
    {
        echo '#!/bin/sh'
        for g in "$@"; do printf 'echo $$ > %s/cgroup.procs || exit 1\n' "$g"; done
        echo 'exec "$@"'
    } > "$f"
    chmod 755 "$f"
}

# cg_first CGROUP: CGROUP (a folder under the v1 cpu controller) made with
# the highest cpu.shares, so that what runs in it gets the CPU before the
# machine's other load (the scripts measure against the truth, not that
# load); fails, making nothing, when not root or when it cannot be made
cg_first() {
    [ "$(id -u)" -eq 0 ] && [ -w "${1%/*}" ] && mkdir "$1" 2>/dev/null &&
        echo 262144 > "$1/cpu.shares"
}

# cg_memory CGROUP MIB: CGROUP (a folder under the v1 memory controller)
# made with a limit of MIB MiB and no swap; fails when it cannot be made
cg_memory() {
    mkdir "$1" && echo $(($2 * 1048576)) > "$1/memory.limit_in_bytes" || return 1
    echo 0 > "$1/memory.swappiness" 2>/dev/null
    return 0
}

# cg_oom_ready: root, and a cgroup v1 memory controller that counts OOM kills
cg_oom_ready() {
    [ "$(id -u)" -eq 0 ] && [ -w /sys/fs/cgroup/memory ] &&
        grep -q '^oom_kill ' /sys/fs/cgroup/memory/memory.oom_control 2>/dev/null
}

# mem_test NAME MIB: the start of a script that runs php-fpm in a memory
# group: skipped (said, exit 0) unless cg_oom_ready; then dir (a scratch
# folder), cg (the memory group of MIB MiB, made and checked), ccg (the name
# of a cpu group, for cg_first), load and script (the load client and
# mem.php), and on exit php-fpm stopped, the groups removed, dir removed
# (unless KEEP is set).  top must be set, check.sh sourced.
mem_test() {
    if ! cg_oom_ready; then
        echo "$1: skipped: needs root and a cgroup v1 memory controller that counts OOM kills"
        exit 0
    fi
    dir=$(mktemp -d "/tmp/fpmcpu-$1.XXXXXX")
    cg=/sys/fs/cgroup/memory/fpmcpu-$1-$$ ccg=/sys/fs/cgroup/cpu/fpmcpu-$1-$$
    load=$top/tests/integration/fcgi_load.py
    script=$top/tests/integration/mem.php
    chmod 755 "$dir"
    trap mem_test_end EXIT INT TERM
    cg_memory "$cg" "$2"
    check "a memory group of $2 MiB is made" $?
}
# mem_kills: the OOM kills the kernel counted in mem_test's group
mem_kills() { sed -n 's/^oom_kill //p' "$cg/memory.oom_control"; }

# mem_record: with the load clients started (stopped by $dir/stop), a
# second to warm up, then fpm-record of $dir/fpm.conf at 1 s for ROUNDS
# rounds (18 by default) into $dir/log; the clients stopped, and checked:
# the recorder exited 0 and the kernel OOM-killed nothing meanwhile
mem_record() {
    sleep 1
    # in the cpu group of the highest shares (when made): a memory reading
    # pairs a worker idle on the status page with its statm read a moment
    # later, and a recorder kept waiting by the machine's other load between
    # the two sees more workers already in their next request, holding its
    # memory (section 14 counts that request's memory twice)
    rec_in=""
    if [ -d "$ccg" ]; then cg_wrap "$dir/rec-incpu" "$ccg"; rec_in=$dir/rec-incpu; fi
    $rec_in "$top/bin/fpm-record" -q --fpm-config "$dir/fpm.conf" --interval 1s --rounds "${ROUNDS:-18}" \
        -o "$dir/log" 2>/dev/null
    check "fpm-record exits 0" $?
    touch "$dir/stop"
    wait
    rm -f "$dir/stop"
    [ "$(mem_kills)" = 0 ]; check "no OOM kill while it was recorded" $?
}

mem_test_end() {
    touch "$dir/stop"
    fpm_stop "$dir"
    wait
    cg_remove "$cg" "$ccg"
    [ -n "${KEEP:-}" ] || rm -rf "$dir"
}

# cg_remove CGROUP...: the tasks left go back to each group's parent, then
# the group is removed
cg_remove() {
    for g in "$@"; do
        [ -d "$g" ] || continue
        for p in $(cat "$g/cgroup.procs" 2>/dev/null); do echo "$p" > "${g%/*}/cgroup.procs"; done
        rmdir "$g"
    done
}
