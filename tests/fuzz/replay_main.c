/* Runs a libFuzzer harness over files, without libFuzzer: make test replays
 * the seeds and every input a fuzzing run once crashed on, under ASan and
 * UBSan.  usage: fuzz_X_replay FILE... */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
    int n = 0;
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) {
            perror(argv[i]);
            return 2;
        }
        size_t cap = 4096, len = 0, got;
        unsigned char *b = malloc(cap);
        while (b && (got = fread(b + len, 1, cap - len, f)) > 0) {
            len += got;
            if (len == cap) {
                unsigned char *nb = realloc(b, cap *= 2);
                if (!nb)
                    free(b);
                b = nb;
            }
        }
        fclose(f);
        if (!b)
            return 2;
        LLVMFuzzerTestOneInput(b, len);
        free(b);
        n++;
    }
    printf("%d passed, 0 failed\n", n);
    return 0;
}
