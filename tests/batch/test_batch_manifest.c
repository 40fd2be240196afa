/* Batch manifests: parsing and its errors, derived names, scheduling order,
 * shards, and stamps that follow inputs and options. */
#include "check.h"
#include "skinfit/batch.h"

#include <unistd.h>

static skf_status parse(const char *json, skf_batch **b, skf_error *err)
{
    return skf_batch_load_memory(json, strlen(json), "/jobs/jobs.json", NULL, b, err);
}

static void expect_error(const char *json, const char *place)
{
    skf_batch *b = NULL;
    skf_error err = {0};
    skf_status st = parse(json, &b, &err);
    CHECK_MSG(st == SKF_ERR_FORMAT, "%s", json);
    CHECK_MSG(strstr(err.message, "/jobs/jobs.json: ") == err.message && strstr(err.message, place),
              "message '%s' lacks '%s'", err.message, place);
    CHECK(b == NULL);
}

int main(void)
{
    skf_batch *b = NULL;
    skf_error err = {0};
    const char *ok = "{\"defaults\": {\"source\": \"art/Horse.glb\", \"mode\": \"both\"},"
                     " \"jobs\": [{\"target\": \"rigs/Horse.glb\"},"
                     " {\"target\": \"/abs/Horse.glb\", \"clips\": [\"Walk\", \"Gallop\"], \"mode\": \"free\","
                     "  \"fps\": 24, \"max_constraints\": 5000, \"min_quality\": 0.9},"
                     " {\"target\": \"rigs/Horse.glb\", \"name\": \"explicit_1\"}]}";
    CHECK(parse(ok, &b, &err) == SKF_OK);
    if (b) {
        CHECK(b->job_count == 3);
        CHECK(!strcmp(b->jobs[0].source, "/jobs/art/Horse.glb"));
        CHECK(!strcmp(b->jobs[0].target, "/jobs/rigs/Horse.glb"));
        CHECK(!strcmp(b->jobs[1].target, "/abs/Horse.glb"));
        CHECK(b->jobs[0].all_clips && b->jobs[0].mode == 3 && b->jobs[0].min_quality < 0);
        CHECK(!b->jobs[1].all_clips && b->jobs[1].clip_count == 2 && !strcmp(b->jobs[1].clips[1], "Gallop"));
        CHECK(b->jobs[1].mode == 1 && b->jobs[1].fps == 24 && b->jobs[1].max_constraints == 5000);
        CHECK_NEAR(b->jobs[1].min_quality, 0.9, 0);
        /* derived names: target-from-source, made unique in manifest order */
        CHECK(!strcmp(b->jobs[0].name, "Horse-from-Horse"));
        CHECK(!strcmp(b->jobs[1].name, "Horse-from-Horse-2"));
        CHECK(!strcmp(b->jobs[2].name, "explicit_1"));
        skf_batch_free(b);
    }

    expect_error("{\"jobs\": [{\"target\": \"a.glb\"}]}", "jobs[0].source: expected a file path");
    expect_error("{\"jobs\": [{\"source\": \"a.glb\", \"target\": \"b.glb\", \"mode\": \"fast\"}]}",
                 "jobs[0].mode: 'fast' is not one of");
    expect_error("{\"jobs\": [{\"source\": \"a\", \"target\": \"b\"}, {\"source\": \"a\", \"target\": \"b\", \"clips\": [1]}]}",
                 "jobs[1].clips[0]: expected a clip name");
    expect_error("{\"jobs\": [{\"source\": \"a\", \"target\": \"b\", \"fps\": -1}]}", "jobs[0].fps");
    expect_error("{\"jobs\": [{\"source\": \"a\", \"target\": \"b\", \"name\": \"../x\"}]}", "jobs[0].name");
    expect_error("{\"jobs\": [{\"source\": \"a\", \"target\": \"b\", \"name\": \"x\"},"
                 " {\"source\": \"a\", \"target\": \"c\", \"name\": \"x\"}]}",
                 "jobs[1].name: 'x' is already used by jobs[0]");
    expect_error("{\"jobs\": []}", "jobs: the list is empty");
    expect_error("{\"jobs\": [{\"source\": \"a\", \"target\": \"b\"}", "byte");
    expect_error("{\"jobs\": [{\"source\": \"a\", \"target\": \"b\", \"min_quality\": 99}]}", "jobs[0].min_quality");

    /* Shards partition any job list. */
    for (size_t n = 1; n <= 5; ++n)
        for (size_t i = 0; i < 23; ++i) {
            int owners = 0;
            for (size_t k = 1; k <= n; ++k)
                owners += skf_batch_in_shard(i, k, n);
            CHECK(owners == 1);
        }

    /* Order: largest cost first, ties in manifest order; stamps follow the
     * inputs' bytes and the options. */
    char dir[] = "/tmp/skf-batch-unit-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char small[300], big[300], manifest[300];
    snprintf(small, sizeof small, "%s/small.glb", dir);
    snprintf(big, sizeof big, "%s/big.glb", dir);
    snprintf(manifest, sizeof manifest, "%s/jobs.json", dir);
    CHECK(skf_write_file_atomic(small, "s", 1, &err) == SKF_OK);
    CHECK(skf_write_file_atomic(big, "bbbbbbbbbbbbbbbbbbbbbbbbbbbb", 28, &err) == SKF_OK);
    const char *m = "[{\"source\": \"small.glb\", \"target\": \"small.glb\", \"clips\": [\"A\"]},"
                    " {\"source\": \"small.glb\", \"target\": \"big.glb\", \"clips\": [\"A\"]},"
                    " {\"source\": \"small.glb\", \"target\": \"small.glb\", \"clips\": [\"A\"], \"mode\": \"both\"},"
                    " {\"source\": \"small.glb\", \"target\": \"missing.glb\"}]";
    CHECK(skf_write_file_atomic(manifest, m, strlen(m), &err) == SKF_OK);
    CHECK(skf_batch_load(manifest, NULL, &b, &err) == SKF_OK);
    if (b) {
        size_t order[4];
        skf_batch_order(b, order);
        /* costs: 29, 8 (all clips count as 8, a missing file as 0 bytes), 2, 2 */
        CHECK(order[0] == 1 && order[1] == 3 && order[2] == 0 && order[3] == 2);
        char s0[65], s2[65], s0b[65];
        CHECK(skf_batch_job_stamp(&b->jobs[0], s0, &err) == SKF_OK);
        CHECK(skf_batch_job_stamp(&b->jobs[2], s2, &err) == SKF_OK);
        CHECK(strcmp(s0, s2) != 0); /* mode differs */
        CHECK(skf_write_file_atomic(small, "t", 1, &err) == SKF_OK);
        CHECK(skf_batch_job_stamp(&b->jobs[0], s0b, &err) == SKF_OK);
        CHECK(strcmp(s0, s0b) != 0); /* input bytes differ */
        CHECK(skf_batch_job_stamp(&b->jobs[3], s0b, &err) == SKF_ERR_IO);
        CHECK(strstr(err.message, "missing.glb") != NULL);
        CHECK(!skf_batch_job_is_current(&b->jobs[0], dir, s0));
        skf_batch_free(b);
    }
    unlink(small);
    unlink(big);
    unlink(manifest);
    rmdir(dir);
    return skf_test_done();
}
