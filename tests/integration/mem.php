<?php
// The memory tests' request: ?mb= MiB held to the end of the request,
// ?busy= ms of CPU time (by getrusage), then ?sleep= ms asleep, the memory
// still held; ?opcache=1 prints the bytes
// opcache's shared segment holds instead.
if (isset($_GET['opcache'])) {
    $s = function_exists('opcache_get_status') ? opcache_get_status(false) : false;
    echo $s ? $s['memory_usage']['used_memory'] : 0;
    return;
}
function cpu_ms() {
    $r = getrusage();
    return ($r['ru_utime.tv_sec'] + $r['ru_stime.tv_sec']) * 1000.0 +
           ($r['ru_utime.tv_usec'] + $r['ru_stime.tv_usec']) / 1000.0;
}
$t = cpu_ms();
$held = str_repeat('x', (int)($_GET['mb'] ?? 0) << 20);
while (cpu_ms() - $t < (int)($_GET['busy'] ?? 0)) {}
usleep((int)($_GET['sleep'] ?? 0) * 1000);
echo strlen($held);
