/* bench_gltf_read: glTF reader throughput. Builds the procedural creature
 * (include/skinfit/creature.h) at 5k, 50k and 200k vertices, writes each as a
 * GLB, then times skf_gltf_load_memory (container + JSON parse + every range
 * and content check) and skf_gltf_reparse (views + checks only) on the bytes
 * in memory; also the shared Horse.glb when ../shared/data is present.
 * Prints MB/s and ns per vertex; the figure is the minimum over repetitions.
 *
 * Usage: bench_gltf_read [repetitions=5] */
#include "skinfit/creature.h"
#include "skinfit/gltf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static size_t vertices_of(const skf_gltf *d)
{
    size_t n = 0;
    for (size_t m = 0; m < d->mesh_count; ++m)
        for (size_t p = 0; p < d->meshes[m].primitive_count; ++p)
            for (size_t a = 0; a < d->meshes[m].primitives[p].attribute_count; ++a)
                if (strcmp(d->meshes[m].primitives[p].attributes[a].name, "POSITION") == 0)
                    n += d->accessors[d->meshes[m].primitives[p].attributes[a].accessor].count;
    return n;
}

static int measure(const char *label, const uint8_t *bytes, size_t size, int reps)
{
    double best_load = 1e30, best_reparse = 1e30;
    size_t verts = 0;
    for (int r = 0; r < reps; ++r) {
        skf_gltf *d;
        skf_error e;
        double t0 = now();
        if (skf_gltf_load_memory(bytes, size, label, NULL, &d, NULL, &e)) {
            fprintf(stderr, "%s\n", e.message);
            return 1;
        }
        double t1 = now();
        if (skf_gltf_reparse(d, NULL, &e)) {
            fprintf(stderr, "%s\n", e.message);
            skf_gltf_free(d);
            return 1;
        }
        double t2 = now();
        verts = vertices_of(d);
        skf_gltf_free(d);
        if (t1 - t0 < best_load)
            best_load = t1 - t0;
        if (t2 - t1 < best_reparse)
            best_reparse = t2 - t1;
    }
    printf("%-22s %8.2f MB %8zu verts  load %8.2f ms (%7.1f MB/s, %6.1f ns/vertex)  reparse %8.2f ms "
           "(%4.0f%% of load)\n", label, (double)size / 1e6, verts, best_load * 1e3,
           (double)size / 1e6 / best_load, best_load * 1e9 / (double)verts, best_reparse * 1e3,
           100.0 * best_reparse / best_load);
    return 0;
}

static uint8_t *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(n > 0 ? (size_t)n : 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return b;
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 5;
    if (reps < 1)
        reps = 1;
    const size_t sizes[] = {5000, 50000, 200000};
    char tmp[] = "/tmp/bench-gltf-read-XXXXXX";
    if (!mkdtemp(tmp))
        return 1;
    int bad = 0;
    for (size_t i = 0; i < 3 && !bad; ++i) {
        skf_creature_options opt = {.vertices = sizes[i]};
        skf_gltf *doc;
        skf_error e;
        if (skf_creature_build(&opt, &doc, &e)) {
            fprintf(stderr, "%s\n", e.message);
            return 1;
        }
        char path[128], label[64];
        snprintf(path, sizeof path, "%s/creature.glb", tmp);
        snprintf(label, sizeof label, "creature %zuk", sizes[i] / 1000);
        bad = skf_gltf_write_glb(doc, path, NULL, &e) != SKF_OK;
        skf_gltf_free(doc);
        if (bad) {
            fprintf(stderr, "%s\n", e.message);
            break;
        }
        size_t n;
        uint8_t *bytes = read_all(path, &n);
        unlink(path);
        bad = !bytes || measure(label, bytes, n, reps);
        free(bytes);
    }
    rmdir(tmp);
    const char *data = getenv("SKF_DATA");
    char horse[4096];
    snprintf(horse, sizeof horse, "%s/quaternius/animals/Horse.glb", data && *data ? data : "../shared/data");
    size_t n;
    uint8_t *bytes = read_all(horse, &n);
    if (bytes) {
        bad |= measure("Horse.glb", bytes, n, reps);
        free(bytes);
    } else {
        printf("Horse.glb: not found (set SKF_DATA)\n");
    }
    return bad;
}
