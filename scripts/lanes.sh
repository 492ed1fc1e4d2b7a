#!/bin/sh
# Runs lanes of integration scripts at the same time: each lane's scripts
# one after the other (scripts/run-integration.sh), its output kept in
# build/integration-LANE.log and printed, lane by lane in the order given,
# once every lane has ended.  Exit 1 when a lane failed.
# usage: scripts/lanes.sh LANE:"NAME NAME..." ...
set -u
mkdir -p build
for lane in "$@"; do
    name=${lane%%:*}
    rm -f "build/integration-$name.rc"
    { scripts/run-integration.sh ${lane#*:} > "build/integration-$name.log" 2>&1
      echo $? > "build/integration-$name.rc"; } &
done
wait
rc=0
for lane in "$@"; do
    name=${lane%%:*}
    cat "build/integration-$name.log"
    [ "$(cat "build/integration-$name.rc" 2>/dev/null)" = 0 ] || { echo "make test: lane $name failed"; rc=1; }
done
exit $rc
