#!/bin/sh
# Installs what fpm-cpu needs on Debian when it is missing.
# usage: scripts/deps.sh build|test|bench|fuzz|deb
# As root it runs apt-get; otherwise it prints the exact line to run and fails.
set -u
want="gcc make pkg-config libzstd-dev libdeflate-dev libcsv-dev libjansson-dev"
case "${1:-build}" in
test)  want="$want zlib1g-dev libcmocka-dev php8.2-fpm libfcgi-bin python3 zstd gnuplot-nox python3-prometheus-client prometheus adduser debhelper dpkg-dev lintian fakeroot postgresql nginx chromium tidy python3-pil" ;;
bench) want="$want zstd time php8.2-fpm postgresql" ;;
fuzz)  want="$want clang libclang-rt-14-dev" ;;
deb)   want="$want debhelper dpkg-dev lintian fakeroot" ;;
esac
missing=""
for p in $want; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' ||
        missing="$missing $p"
done
[ -z "$missing" ] && exit 0
line="apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" -ne 0 ]; then
    echo "fpm-cpu: missing packages:$missing" >&2
    echo "fpm-cpu: run as root: apt-get update && $line" >&2
    exit 2
fi
echo "fpm-cpu: installing:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2 && $line >&2
