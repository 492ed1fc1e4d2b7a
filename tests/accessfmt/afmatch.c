/* tests/accessfmt/re_equal.py's C side: for a format (argv[1]) and lines on
 * standard input (one per line, as written), prints for each "-" when it
 * does not match, else each item's span as "off:len", space separated,
 * then in both cases " #STEPS" (the matcher's steps); "unusable ..." when
 * the format is not compiled to a pattern. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accessfmt.h"

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    af_format f = {0};
    if (af_compile(&f, argv[1], strlen(argv[1])) != 0)
        return 2;
    if (strncmp(f.reason, "unusable: %", 11) == 0) { /* an unknown field: no pattern */
        printf("%s\n", f.reason);
        return 0;
    }
    af_matcher m;
    if (af_matcher_init(&m, &f) != 0)
        return 2;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, stdin)) > 0) {
        if (line[n - 1] == '\n')
            n--;
        if (!af_match(&m, &f, (unsigned char *)line, (size_t)n)) {
            printf("- #%llu\n", (unsigned long long)m.steps);
            continue;
        }
        for (size_t i = 0; i < f.n; i++)
            printf("%s%u:%u", i ? " " : "", m.span[i].off, m.span[i].len);
        printf(" #%llu\n", (unsigned long long)m.steps);
    }
    free(line);
    af_matcher_free(&m);
    af_free(&f);
    return 0;
}
