/*
 * window: the plan of a window (--from/--until) over logs, made by tries:
 * each try replays the logs on a pipeline of its own (messages silenced,
 * nothing exported) with the seek's plan, until no round of the window
 * meets what a jump left unknown (docs/design.md, "The analyzer").  It is here,
 * not in read/seek.c, because it runs whole replays: the frame index
 * (seek.h) knows nothing of the replay that reads through it.
 */
#ifndef WINDOW_H
#define WINDOW_H

#include "pipeline.h"
#include "seek.h"

/* Whether FPM_ANALYZE_FULL_READ asks for every frame to be read (the
 * tests compare both ways). */
int window_full_read(void);

/* The plan for opt's window over logs.  NULL: every frame is read (no
 * window, the full read forced, or memory ran out).  With
 * FPM_ANALYZE_SEEK_STATS set, says how much it reads. */
seek *window_plan(const pl_options *opt, char *const *logs, int nlogs);

#endif
