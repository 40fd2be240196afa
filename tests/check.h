/* Minimal test harness: CHECK macros count failures; skf_test_done() prints
 * "N passed, N failed" and returns the exit code. SKF_SKIP exits 77 (ctest:
 * skipped) with a visible reason. Checks stay on in release builds. */
#ifndef SKF_TESTS_CHECK_H
#define SKF_TESTS_CHECK_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int skf_checks_passed, skf_checks_failed;

#define CHECK(cond)                                                                    \
    do {                                                                               \
        if (cond) {                                                                    \
            ++skf_checks_passed;                                                       \
        } else {                                                                       \
            ++skf_checks_failed;                                                       \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);   \
        }                                                                              \
    } while (0)

#define CHECK_MSG(cond, ...)                                                           \
    do {                                                                               \
        if (cond) {                                                                    \
            ++skf_checks_passed;                                                       \
        } else {                                                                       \
            ++skf_checks_failed;                                                       \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);   \
            fprintf(stderr, __VA_ARGS__);                                              \
            fputc('\n', stderr);                                                       \
        }                                                                              \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                          \
    do {                                                                               \
        double skf_a_ = (a), skf_b_ = (b), skf_t_ = (tol);                             \
        if (fabs(skf_a_ - skf_b_) <= skf_t_) {                                         \
            ++skf_checks_passed;                                                       \
        } else {                                                                       \
            ++skf_checks_failed;                                                       \
            fprintf(stderr, "%s:%d: CHECK_NEAR failed: %s = %.17g, %s = %.17g, |diff| = %.3g > %.3g\n", \
                    __FILE__, __LINE__, #a, skf_a_, #b, skf_b_, fabs(skf_a_ - skf_b_), skf_t_); \
        }                                                                              \
    } while (0)

#define SKF_SKIP(...)                                                                  \
    do {                                                                               \
        printf("SKIPPED: ");                                                           \
        printf(__VA_ARGS__);                                                           \
        printf("\n");                                                                  \
        exit(77);                                                                      \
    } while (0)

static inline int skf_test_done(void)
{
    printf("%d passed, %d failed\n", skf_checks_passed, skf_checks_failed);
    return skf_checks_failed ? 1 : 0;
}

/* Folder of the shared assets: $SKF_DATA, else ../shared/data. */
static inline const char *skf_test_data_dir(void)
{
    const char *d = getenv("SKF_DATA");
    return (d && *d) ? d : "../shared/data";
}

/* Path of a shared asset, or NULL (after printing why) if it is absent. */
static inline const char *skf_test_data(const char *rel)
{
    static char buf[8][4096];
    static int slot;
    char *p = buf[slot++ & 7];
    snprintf(p, 4096, "%s/%s", skf_test_data_dir(), rel);
    FILE *f = fopen(p, "rb");
    if (!f)
        return NULL;
    fclose(f);
    return p;
}

#endif
