/* Plain replay driver for the fuzz harnesses: runs LLVMFuzzerTestOneInput on
 * every file named on the command line or found (non-recursively) in the
 * folders named there. Missing folders are skipped. Built with gcc in every
 * configuration so fuzz/regressions/ replays under ctest (ASan+UBSan in CI).
 * Prints "N passed, 0 failed": an input "passes" when the harness returns
 * without a crash or sanitizer report (either aborts the process). Exits 77
 * (ctest: skipped, visibly) when no input was found at all, so a replay
 * never passes having run nothing. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return 0;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
    if (!buf || (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n)) {
        fprintf(stderr, "replay: cannot read %s\n", path);
        free(buf);
        fclose(f);
        return 0;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(buf, (size_t)n);
    free(buf);
    return 1;
}

int main(int argc, char **argv)
{
    int replayed = 0, unreadable = 0;
    for (int i = 1; i < argc; ++i) {
        struct stat st;
        if (stat(argv[i], &st) != 0)
            continue;
        if (!S_ISDIR(st.st_mode)) {
            if (replay_file(argv[i]))
                ++replayed;
            else
                ++unreadable;
            continue;
        }
        DIR *d = opendir(argv[i]);
        if (!d)
            continue;
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.')
                continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
            if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
                if (replay_file(path))
                    ++replayed;
                else
                    ++unreadable;
            }
        }
        closedir(d);
    }
    printf("%d passed, %d failed\n", replayed, unreadable);
    if (replayed == 0 && unreadable == 0) {
        printf("replay: no input found: skipped\n");
        return 77;
    }
    return unreadable ? 1 : 0;
}
