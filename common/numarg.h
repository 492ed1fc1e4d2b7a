/*
 * numarg: the one checked reading of a number from outside (a command-line
 * option, a configuration value): all of the text, in a range, no
 * overflow, no cast that wraps.  Nothing prints; the caller says the range.
 */
#ifndef NUMARG_H
#define NUMARG_H

#include <stdint.h>

/* A whole decimal number in [lo, hi], the whole of s (no sign but a
 * leading '-' when lo < 0, no spaces, no suffix): 0 with *v, or -1. */
int num_whole(const char *s, long long lo, long long hi, long long *v);

/* A decimal number (fractions allowed) in [lo, hi], the whole of s: 0 with
 * *v, or -1 (also for nan and inf). */
int num_real(const char *s, double lo, double hi, double *v);

/* A size: digits and an optional k or M (KiB, MiB), in [min, max] bytes:
 * 0 with *bytes, or -1. */
int num_size(const char *s, uint64_t *bytes, uint64_t min, uint64_t max);

#endif
