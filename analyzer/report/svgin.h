/*
 * svgin: a chart's SVG file, as gnuplot's svg terminal writes it, inlined
 * into the page (docs: fpm-analyze(1), THE PAGE).
 */
#ifndef SVGIN_H
#define SVGIN_H

#include <stddef.h>
#include <stdio.h>

/* Writes the <svg> of s[0..n) as the page's <svg class="chart" role="img"
 * aria-label="LABEL">: its opening tag without namespaces (HTML gives inline
 * SVG its own), its body without its title, description, empty groups,
 * the attributes SVG has anyway and the layout between tags; its <defs>
 * (the point markers) only when keep_defs (one set serves a page); invalid
 * UTF-8 and control bytes as U+FFFD.  Every tag must be one gnuplot writes
 * without `mouse`: no script, no handler (on...), no link out of the chart
 * (href and url() to #ids only).  0, or -1 when s holds no whole <svg> or
 * a tag refused (nothing written). */
int svgin_write(FILE *out, const char *s, size_t n, const char *label, int keep_defs);

#endif
