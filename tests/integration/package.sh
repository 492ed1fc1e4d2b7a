#!/bin/sh
# Installing: make install / make uninstall into a DESTDIR with another
# prefix, then the Debian package (make deb), lintian-clean, installed on
# this machine with dpkg -i: its user, its conffile, the installed
# fpm-record -n against a real php-fpm as that user, the installed
# fpm-analyze on a fixture; then purged.  The package part needs root.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
. "$top/tests/integration/fpm.sh"
. "$top/tests/integration/check.sh"
dir=$(mktemp -d /tmp/fpmcpu-pkg.XXXXXX)
installed=0
trap 'fpm_stop "$dir"; [ $installed = 1 ] && dpkg --purge fpm-cpu >/dev/null 2>&1; rm -rf "$dir"' EXIT INT TERM

# 1. make install / uninstall
d=$dir/root
make -s install DESTDIR="$d" PREFIX=/opt/fpm BINDIR=/opt/fpm/sbin SYSCONFDIR=/opt/etc >/dev/null
check "make install runs" $?
for f in /opt/fpm/sbin/fpm-record /opt/fpm/sbin/fpm-analyze /opt/fpm/share/man/man1/fpm-record.1 \
         /opt/fpm/share/man/man1/fpm-analyze.1 /opt/fpm/share/man/man7/fpm-cpu.7 \
         /opt/fpm/share/man/man5/fpmlog.5 \
         /opt/etc/systemd/system/fpm-record.service /opt/etc/logrotate.d/fpm-record \
         /opt/etc/default/fpm-record; do
    [ -f "$d$f" ]; check "make install puts $f" $?
done
grep -q '^ExecStart=/opt/fpm/sbin/fpm-record --interval 5s ' "$d/opt/etc/systemd/system/fpm-record.service"
check "the unit's ExecStart follows BINDIR" $?
grep -q '^EnvironmentFile=-/opt/etc/default/fpm-record$' "$d/opt/etc/systemd/system/fpm-record.service"
check "the unit reads its options from SYSCONFDIR/default/fpm-record" $?
! grep -q '@' "$d/opt/etc/systemd/system/fpm-record.service"; check "no placeholder is left in the unit" $?
"$d/opt/fpm/sbin/fpm-analyze" --version | grep -q '^fpm-analyze '; check "the installed analyzer runs" $?
echo 'FPM_RECORD_OPTS="--hostname mine"' > "$d/opt/etc/default/fpm-record"
make -s install DESTDIR="$d" PREFIX=/opt/fpm BINDIR=/opt/fpm/sbin SYSCONFDIR=/opt/etc >/dev/null
grep -q mine "$d/opt/etc/default/fpm-record"; check "make install again keeps the operator's defaults file" $?
make -s uninstall DESTDIR="$d" PREFIX=/opt/fpm BINDIR=/opt/fpm/sbin SYSCONFDIR=/opt/etc >/dev/null
check "make uninstall runs" $?
left=$(cd "$d" && find . -type f | sort | tr '\n' ' ')
[ "$left" = "./opt/etc/default/fpm-record " ]; check "make uninstall leaves only the changed defaults file ($left)" $?

# 2. the Debian package
if [ "$(id -u)" -ne 0 ]; then
    echo "package: not root: dpkg -i skipped" >&2
    summary "install and package"
    exit $?
fi
dpkg --purge fpm-cpu >/dev/null 2>&1 # what an interrupted run left
if [ -n "${DEB_PREBUILT:-}" ] && [ -s build/deb.rc ]; then
    # make test built it while the scripts that measure waited on their rounds
    cp build/deb.log "$dir/deb.out"
    [ "$(cat build/deb.rc)" = 0 ]; check "make deb builds a lintian-clean package (built beside the measuring scripts)" $?
else
    make -s deb >"$dir/deb.out" 2>&1; check "make deb builds a lintian-clean package" $?
fi
[ $? -eq 0 ] || cat "$dir/deb.out" >&2
deb=$(ls build/deb/fpm-cpu_*_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || { summary "install and package"; exit 1; }
dpkg -i "$deb" >"$dir/dpkg.out" 2>&1; rc=$?
installed=1
check "dpkg -i installs it" $rc
[ $rc -eq 0 ] || cat "$dir/dpkg.out" >&2
id -u fpm-cpu >/dev/null 2>&1; check "postinst creates the fpm-cpu user" $?
id -nG fpm-cpu | tr ' ' '\n' | grep -qx www-data; check "fpm-cpu is in www-data" $?
[ "$(getent passwd fpm-cpu | cut -d: -f7)" = /usr/sbin/nologin ]; check "fpm-cpu has no login shell" $?
dpkg-query -W -f='${Conffiles}\n' fpm-cpu | grep -q '^ /etc/default/fpm-record '
check "/etc/default/fpm-record is a conffile" $?
grep -q '^ExecStart=/usr/bin/fpm-record .*\$FPM_RECORD_OPTS' /lib/systemd/system/fpm-record.service
check "the packaged unit runs /usr/bin/fpm-record with FPM_RECORD_OPTS" $?
grep -qx 'AmbientCapabilities=CAP_DAC_READ_SEARCH' /lib/systemd/system/fpm-record.service &&
    grep -qx 'CapabilityBoundingSet=CAP_DAC_READ_SEARCH' /lib/systemd/system/fpm-record.service
check "the unit gives the recorder CAP_DAC_READ_SEARCH and nothing broader" $?
[ ! -e /etc/systemd/system/multi-user.target.wants/fpm-record.service ]
check "the unit is not enabled until configured" $?
for m in man1/fpm-record.1.gz man1/fpm-analyze.1.gz man7/fpm-cpu.7.gz man5/fpmlog.5.gz; do
    [ -f /usr/share/man/$m ]; check "man page $m" $?
done

# the installed recorder, as the package's user, checks a real pool whose
# socket is group www-data, and whose access log php-fpm's master creates
# root's, mode 0600
printf '[www]\nlisten = %s/www.sock\nlisten.owner = nobody\nlisten.group = www-data\nlisten.mode = 0660\npm = static\npm.max_children = 2\npm.status_path = /status\naccess.log = %s/www.access.log\naccess.format = "%%t %%p %%m %%{REQUEST_URI}e %%s %%{mili}d %%{kilo}M %%C%%%%"\n' \
    "$dir" "$dir" > "$dir/www.conf"
fpm_start "$dir" "$dir/www.conf" || { cat "$dir/fpm.log" >&2; exit 1; }
chmod 755 "$dir"
runuser -u fpm-cpu -- /usr/bin/fpm-record -n --pool "www=unix:$dir/www.sock" >"$dir/n.out" 2>&1
check "installed fpm-record -n, run as fpm-cpu, reaches the pool" $?
grep -q '^configuration OK$' "$dir/n.out"; check "and says configuration OK" $?
[ $? -eq 0 ] || cat "$dir/n.out" >&2
/usr/bin/fpm-analyze fixtures/logs/small.fpmlog >"$dir/a.out" 2>&1
cmp -s "$dir/a.out" tests/cli/cases/small-text.out; check "installed fpm-analyze prints the fixture's report" $?
# the access log as the unit reads it: as fpm-cpu, with CAP_DAC_READ_SEARCH
# ambient (the unit's AmbientCapabilities), and without it (said, once)
[ "$(stat -c '%U %a' "$dir/www.access.log")" = "root 600" ]
check "php-fpm's master made the access log root's, mode 0600" $?
mkdir "$dir/out" && chown fpm-cpu "$dir/out" && chmod 644 "$dir/fpm.conf"
as_fpm_cpu() { # the unit's user and group, and its capability when $1 is cap
    c=$1; shift
    setpriv --reuid=fpm-cpu --regid=www-data --init-groups \
        ${c:+--inh-caps=+dac_read_search --ambient-caps=+dac_read_search} "$@"
}
as_fpm_cpu "" /usr/bin/fpm-record --fpm-config "$dir/fpm.conf" --interval 1s --rounds 3 \
    -o "$dir/out/nocap.fpmlog" >"$dir/nocap.out" 2>&1
[ "$(grep -c 'access log .* cannot be opened: Permission denied' "$dir/nocap.out")" = 1 ]
check "without the capability its access log cannot be opened, said once" $?
( sleep 1.5; for i in 1 2 3; do fcgi "$dir/www.sock" /status /status "" >/dev/null; done ) &
as_fpm_cpu cap /usr/bin/fpm-record --fpm-config "$dir/fpm.conf" --interval 1s --rounds 4 \
    -o "$dir/out/cap.fpmlog" >"$dir/cap.out" 2>&1
wait
check "with it, the installed fpm-record runs as fpm-cpu" $?
zstdcat "$dir/out/cap.fpmlog" | grep -a -c '^[0-9].* GET /status ' >"$dir/cap.n"
[ "$(cat "$dir/cap.n")" -ge 3 ] && ! grep -q 'cannot be opened' "$dir/cap.out"
check "and records the access log's lines ($(cat "$dir/cap.n") seen)" $?

dpkg --purge fpm-cpu >"$dir/purge.out" 2>&1; check "dpkg --purge removes it" $?
installed=0
[ ! -e /usr/bin/fpm-record ] && [ ! -e /etc/default/fpm-record ] && [ ! -e /lib/systemd/system/fpm-record.service ]
check "nothing of the package is left" $?
summary "install and package"
