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
# verdicts FILE NAME: the lines a script's python step wrote to FILE, "ok
# WHAT", "FAIL WHAT" (a check each) and "note TEXT" (printed as NAME: TEXT)
verdicts() {
    while read -r verdict rest; do
        case $verdict in
        note) echo "$2: $rest" ;;
        *) [ "$verdict" = ok ]; check "$rest" $? ;;
        esac
    done < "$1"
}
# watch_rss PID: waits for PID to end, its peak RSS (VmHWM, KiB) in $peak
watch_rss() {
    peak=0
    while kill -0 "$1" 2>/dev/null; do
        r=$(awk '/^VmHWM/ {print $2}' "/proc/$1/status" 2>/dev/null)
        [ -n "$r" ] && peak=$r
        sleep 0.2
    done
}
