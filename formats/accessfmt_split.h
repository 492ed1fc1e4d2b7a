/*
 * accessfmt_split: what accessfmt's two files share, private to them:
 * accessfmt.c compiles a format, accessfmt_match.c matches its lines and
 * says, once the format is compiled, whether they split in one pass.
 */
#ifndef ACCESSFMT_SPLIT_H
#define ACCESSFMT_SPLIT_H

#include "accessfmt.h"

/* Sets f->split, f->text_first and f->text_last (accessfmt.h), from f's
 * items and its class table f->in. */
void af_plan_split(af_format *f);

#endif
