/* File helpers of the URI-confinement tests (test_gltf_refs,
 * test_gltf_refs_race): write a small file, or fail the test and exit; and
 * whether the first 64 KiB of a file hold a byte string. */
#ifndef SKF_TESTS_REFS_FILES_H
#define SKF_TESTS_REFS_FILES_H

#include "check.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    CHECK_MSG(f != NULL, "cannot create %s", path);
    if (!f)
        exit(1);
    fwrite(data, 1, size, f);
    fclose(f);
}

static bool file_has(const char *path, const char *needle)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    size_t m = strlen(needle);
    for (size_t i = 0; i + m <= n; ++i)
        if (!memcmp(buf + i, needle, m))
            return true;
    return false;
}

#endif
