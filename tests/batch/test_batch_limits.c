/* Per-call limits of the batch manifest reader (skf_batch_options.limits;
 * skf_limits in base.h): batch-jobs (from memory and from a file) and
 * manifest-bytes (a file) stop a load below the process-wide value with a
 * message naming the caller's field; the process-wide table is not touched;
 * two threads loading at once with different limits each get their own
 * answer. */
#include "limits_check.h"
#include "skinfit/batch.h"

#include <stdio.h>
#include <stdlib.h>

static const char manifest[] = "[{\"source\": \"a.glb\", \"target\": \"b.glb\"},"
                               " {\"source\": \"a.glb\", \"target\": \"c.glb\"},"
                               " {\"source\": \"a.glb\", \"target\": \"d.glb\"}]";

/* arg NULL: from memory; else the manifest file arg. */
static skf_status load_call(const skf_limits *lim, void *arg, skf_error *e)
{
    skf_batch_options o = {.limits = lim};
    skf_batch *b = NULL;
    skf_status st = arg ? skf_batch_load(arg, &o, &b, e)
                        : skf_batch_load_memory(manifest, strlen(manifest), "/jobs/jobs.json", &o, &b, e);
    if (st)
        CHECK(!b);
    else
        CHECK(b && b->job_count == 3);
    skf_batch_free(b);
    return st;
}

int main(void)
{
    skf_error e = {0};
    CHECK_MSG(load_call(NULL, NULL, &e) == SKF_OK, "%s", e.message);
    limits_check_call(load_call, NULL, SKF_LIMIT_BATCH_JOBS, 2, 0,
                      "/jobs/jobs.json: jobs: 3 jobs exceed the limit batch-jobs=2 (set by the caller: "
                      "skf_limits.value[SKF_LIMIT_BATCH_JOBS]), or split the manifest");

    const char *bd = getenv("SKF_BUILD_DIR");
    char path[4096], want[4400];
    snprintf(path, sizeof path, "%s/batch_limits.json", bd && *bd ? bd : ".");
    size_t n = strlen(manifest);
    CHECK(skf_write_file_atomic(path, manifest, n, &e) == SKF_OK);
    snprintf(want, sizeof want,
             "%s: file is %zu bytes, above the limit manifest-bytes=%zu (set by the caller: "
             "skf_limits.value[SKF_LIMIT_MANIFEST_BYTES])",
             path, n, n - 1);
    limits_check_call(load_call, path, SKF_LIMIT_MANIFEST_BYTES, n - 1, 0, want);
    limits_check_call(load_call, path, SKF_LIMIT_BATCH_JOBS, 1, 3, NULL);

    limits_check_threads("manifest", load_call, NULL, SKF_LIMIT_BATCH_JOBS, 2, 300);
    limits_check_threads("manifest file", load_call, path, SKF_LIMIT_MANIFEST_BYTES, 16, 300);
    remove(path);
    return skf_test_done();
}
