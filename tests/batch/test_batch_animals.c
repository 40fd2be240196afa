/* Issue 8 acceptance 1: a manifest of the six shared animals × all their
 * clips onto their autoweights rigs completes (two local processes), and the
 * summary matches the individual job reports number for number. */
#include "check.h"

#include <jansson.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *animals[] = {"Horse", "Deer", "Fox", "Wolf", "Cow", "Alpaca"};

static int run(const char *cmd)
{
    int rc = system(cmd);
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

int main(void)
{
    const char *bin = getenv("SKF_BIN");
    if (!bin)
        SKF_SKIP("SKF_BIN not set");
    if (!skf_test_data("quaternius/animals/Horse.glb"))
        SKF_SKIP("shared assets not found under %s", skf_test_data_dir());
    char dir[] = "/tmp/skf-batch-animals-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char cmd[8192], manifest[512];
    snprintf(manifest, sizeof manifest, "%s/jobs.json", dir);
    json_t *jobs = json_array();
    for (size_t a = 0; a < 6; ++a) {
        char in[1024], out[1024];
        snprintf(in, sizeof in, "%s/quaternius/animals/%s.glb", skf_test_data_dir(), animals[a]);
        snprintf(out, sizeof out, "%s/%s_aw.glb", dir, animals[a]);
        snprintf(cmd, sizeof cmd, "'%s' autoweights '%s' -o '%s' > /dev/null", bin, in, out);
        CHECK_MSG(run(cmd) == 0, "autoweights %s", animals[a]);
        json_t *j = json_object();
        json_object_set_new(j, "name", json_string(animals[a]));
        json_object_set_new(j, "source", json_string(in));
        json_object_set_new(j, "target", json_string(out));
        json_object_set_new(j, "clips", json_string("all"));
        json_array_append_new(jobs, j);
    }
    json_t *root = json_object();
    json_object_set_new(root, "jobs", jobs);
    CHECK(json_dump_file(root, manifest, JSON_INDENT(2)) == 0);
    json_decref(root);

    snprintf(cmd, sizeof cmd, "'%s' batch '%s' -o '%s/out' --jobs 2 > '%s/batch.log' 2>&1", bin,
             manifest, dir, dir);
    int rc = run(cmd);
    CHECK_MSG(rc == 0, "batch exit code %d", rc);

    char path[1024];
    snprintf(path, sizeof path, "%s/out/summary.json", dir);
    json_error_t je;
    json_t *summary = json_load_file(path, 0, &je);
    CHECK_MSG(summary != NULL, "summary: %s", je.text);
    size_t clips_total = 0, compared = 0;
    double worst_q = 1;
    if (summary) {
        CHECK(json_integer_value(json_object_get(summary, "ok")) == 6);
        CHECK(json_integer_value(json_object_get(summary, "failed")) == 0);
        json_t *list = json_object_get(summary, "jobs");
        CHECK(json_array_size(list) == 6);
        for (size_t a = 0; a < json_array_size(list); ++a) {
            json_t *e = json_array_get(list, a);
            const char *name = json_string_value(json_object_get(e, "name"));
            CHECK(name && !strcmp(name, animals[a]));
            CHECK(!strcmp(json_string_value(json_object_get(e, "status")), "ok"));
            snprintf(path, sizeof path, "%s/out/%s.json", dir, animals[a]);
            json_t *rep = json_load_file(path, 0, &je);
            CHECK_MSG(rep != NULL, "%s", path);
            if (!rep)
                continue;
            json_t *sc = json_object_get(e, "clips"), *rc2 = json_object_get(rep, "clips");
            CHECK(json_array_size(sc) == json_array_size(rc2) && json_array_size(sc) >= 12);
            for (size_t c = 0; c < json_array_size(sc) && c < json_array_size(rc2); ++c) {
                json_t *s = json_array_get(sc, c), *r = json_array_get(rc2, c);
                json_t *free_run = json_object_get(r, "free");
                CHECK(json_equal(json_object_get(s, "name"), json_object_get(r, "name")));
                double qs = json_number_value(json_object_get(s, "quality"));
                double qr = json_number_value(json_object_get(free_run, "quality"));
                CHECK_NEAR(qs, qr, 0);
                CHECK_NEAR(json_number_value(json_object_get(s, "max_error_pct")),
                           json_number_value(json_object_get(free_run, "max_error_pct")), 0);
                /* every job ran its control first; it must land on zero */
                json_t *ctl = json_object_get(r, "control");
                CHECK(ctl && json_number_value(json_object_get(ctl, "quality")) >= 0.99999);
                worst_q = qs < worst_q ? qs : worst_q;
                ++compared;
            }
            clips_total += json_array_size(rc2);
            json_decref(rep);
        }
        json_decref(summary);
    }
    printf("6 animals, %zu clips baked, %zu summary entries equal to their reports; "
           "lowest autoweights quality %.4f %%\n", clips_total, compared, 100 * worst_q);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    run(cmd);
    return skf_test_done();
}
