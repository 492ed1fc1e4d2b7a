/* tests/accessfmt/re_equal.py's C side, one process for every case: reads
 * standard input a line at a time; "F<format>" compiles a format (printing
 * "unusable ..." when an unknown field leaves it no pattern, else "ok"),
 * "L<line>" matches a line against the last format, printing "-" when it
 * does not match, else each item's span as "off:len", space separated,
 * then in both cases " #STEPS" (the matcher's steps). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accessfmt.h"

int main(void)
{
    af_format f = {0};
    af_matcher m = {0};
    int have = 0;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, stdin)) > 0) {
        if (line[n - 1] == '\n')
            n--;
        if (line[0] == 'F') {
            af_matcher_free(&m);
            if (af_compile(&f, line + 1, (size_t)n - 1) != 0 || af_matcher_init(&m, &f) != 0)
                return 2;
            have = strncmp(f.reason, "unusable: %", 11) != 0; /* an unknown field: no pattern */
            puts(have ? "ok" : f.reason);
        } else if (line[0] == 'L' && have) {
            if (!af_match(&m, &f, (unsigned char *)line + 1, (size_t)n - 1)) {
                printf("- #%llu\n", (unsigned long long)m.steps);
                continue;
            }
            for (size_t i = 0; i < f.n; i++)
                printf("%s%u:%u", i ? " " : "", m.span[i].off, m.span[i].len);
            printf(" #%llu\n", (unsigned long long)m.steps);
        }
    }
    free(line);
    af_matcher_free(&m);
    af_free(&f);
    return 0;
}
