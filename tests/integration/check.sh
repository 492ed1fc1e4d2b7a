# Sourced by the integration scripts: count checks and close with the line
# CI reads.   check "what it shows" $?   ...   summary "NAME"
pass=0 fail=0
check() {
    if [ "$2" -eq 0 ]; then pass=$((pass + 1)); else echo "FAIL: $1" >&2; fail=$((fail + 1)); fi
}
summary() {
    echo "$1: $pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}
