<?php
// The integration tests' request: ?busy= ms of CPU time (by getrusage, not
// the wall clock), then, with ?side=FIFO, tells that pool's side burner how
// much it spent, then ?sleep= ms asleep.
function cpu_ms() {
    $r = getrusage();
    return ($r['ru_utime.tv_sec'] + $r['ru_stime.tv_sec']) * 1000.0 +
           ($r['ru_utime.tv_usec'] + $r['ru_stime.tv_usec']) / 1000.0;
}
$t = cpu_ms();
while (cpu_ms() - $t < (int)($_GET['busy'] ?? 0)) {}
if (isset($_GET['side'])) {
    $f = fopen($_GET['side'], 'w');
    fwrite($f, sprintf("%.3f\n", cpu_ms() - $t));
    fclose($f);
}
usleep((int)($_GET['sleep'] ?? 0) * 1000);
echo "ok";
