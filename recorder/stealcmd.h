/*
 * stealcmd: `fpm-record steal [--duration D] [--cpu N]`: the steal probe on
 * its own, for "is my VPS stealing?" without recording: per CPU, what the
 * kernel says (/proc/stat steal over the probe), the plain gap count, the
 * gaps less this guest's own run delay, and the gap histogram.
 */
#ifndef STEALCMD_H
#define STEALCMD_H

/* argv[0] is "steal"; returns the exit code. */
int steal_command(int argc, char **argv);

#endif
