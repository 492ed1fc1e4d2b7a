#!/bin/sh
# Runs the integration scripts named (tests/integration/NAME.sh) one after
# the other, each timed; stops at the first that fails (exit 1).
# usage: scripts/run-integration.sh NAME...
set -u
for t in "$@"; do
    s=$(date +%s)
    tests/integration/"$t".sh || exit 1
    echo "  ($t: $(( $(date +%s) - s )) s)"
done
