/* The procedural creature: size scaling, skeleton and bind pose, weights,
 * normals, closed tubes, clips that loop and match the analytic pose, and
 * determinism. Writes creature GLBs to $SKF_BUILD_DIR/gltfwrite_out/creature
 * for the gltf-validator test. */
#include "check.h"
#include "io/gltf_invariants.h"
#include "skinfit/creature.h"
#include "skinfit/math.h"
#include "skinfit/rig.h" /* skf_clip_find: the clip lookup by name is rig's */

#include <jansson.h>
#include <sys/stat.h>

static int attr(const skf_gltf_primitive *p, const char *name)
{
    for (size_t i = 0; i < p->attribute_count; ++i)
        if (!strcmp(p->attributes[i].name, name))
            return p->attributes[i].accessor;
    return -1;
}

static double *read_all(const skf_gltf *d, int a)
{
    const skf_gltf_accessor *ac = &d->accessors[a];
    double *v = malloc(ac->count * (size_t)ac->components * sizeof *v + 8);
    skf_error e;
    CHECK(v && skf_gltf_accessor_read(d, a, v, false, &e) == SKF_OK);
    return v;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Structural checks on one built creature; returns its vertex count. */
static size_t check_creature(const skf_gltf *d, size_t target, bool topology)
{
    check_gltf_invariants(d);
    CHECK(d->mesh_count == 1 && d->skin_count == 1 && d->meshes[0].primitive_count == 1);
    const skf_gltf_primitive *p = &d->meshes[0].primitives[0];
    int ap = attr(p, "POSITION"), an = attr(p, "NORMAL"), aj = attr(p, "JOINTS_0"),
        aw = attr(p, "WEIGHTS_0");
    CHECK(ap >= 0 && an >= 0 && aj >= 0 && aw >= 0 && p->indices >= 0);
    size_t nv = d->accessors[ap].count;
    CHECK_MSG(nv >= target * 9 / 10 && nv <= target * 11 / 10, "%zu vertices for target %zu", nv,
              target);
    size_t nj = skf_creature_joint_count();
    const skf_gltf_skin *sk = &d->skins[0];
    CHECK(sk->joint_count == nj && nj >= 25 && nj <= 35);
    /* joints: names, parents, rest TRS = bind pose (global rest x IBM = I) */
    double *ibm = read_all(d, sk->inverse_bind_matrices);
    double worst_bind = 0, worst_pos = 0;
    for (size_t j = 0; j < nj; ++j) {
        int n = sk->joints[j];
        CHECK(!strcmp(d->nodes[n].name, skf_creature_joint_name(j)));
        int par = skf_creature_joint_parent(j);
        CHECK(d->nodes[n].parent == (par >= 0 ? sk->joints[par] : -1));
        double g[16], l[16], m[16];
        skf_mat4_identity(g);
        int chain[64], depth = 0;
        for (int k = n; k >= 0 && depth < 64; k = d->nodes[k].parent)
            chain[depth++] = k;
        while (depth > 0) {
            skf_gltf_node_local_matrix(&d->nodes[chain[--depth]], l);
            skf_mat4_mul(g, g, l);
        }
        skf_mat4_mul(m, g, ibm + 16 * j);
        /* the joint's published bind position is where the file's rest pose puts it */
        double bp[3];
        skf_creature_joint_bind_position(j, bp);
        for (int a = 0; a < 3; ++a)
            worst_pos = fmax(worst_pos, fabs(bp[a] - g[12 + a]));
        for (int e = 0; e < 16; ++e) {
            double dev = fabs(m[e] - (e % 5 == 0 ? 1.0 : 0.0));
            if (dev > worst_bind)
                worst_bind = dev;
        }
    }
    CHECK_MSG(worst_bind < 1e-6, "rest pose x inverse bind deviates by %g", worst_bind);
    CHECK_MSG(worst_pos < 1e-6, "skf_creature_joint_bind_position deviates from the rest pose by %g", worst_pos);
    /* weights: <= 4, non-negative, sum 1, zero slots use joint 0, no duplicates */
    double *w = read_all(d, aw), *nrm = read_all(d, an);
    uint32_t *jt = malloc(nv * 4 * sizeof *jt);
    skf_error e;
    CHECK(jt && skf_gltf_accessor_read_uint(d, aj, jt, &e) == SKF_OK);
    double worst_sum = 0, worst_normal = 0;
    size_t multi = 0;
    for (size_t v = 0; v < nv; ++v) {
        double s = 0;
        int used = 0;
        for (int c = 0; c < 4; ++c) {
            double x = w[4 * v + c];
            CHECK(x >= 0);
            s += x;
            CHECK(jt[4 * v + c] < nj);
            if (x == 0)
                CHECK(jt[4 * v + c] == 0);
            else {
                ++used;
                for (int c2 = 0; c2 < c; ++c2)
                    if (w[4 * v + c2] > 0)
                        CHECK(jt[4 * v + c] != jt[4 * v + c2]);
            }
        }
        if (used > 1)
            ++multi;
        if (fabs(s - 1) > worst_sum)
            worst_sum = fabs(s - 1);
        double len = sqrt(nrm[3 * v] * nrm[3 * v] + nrm[3 * v + 1] * nrm[3 * v + 1] +
                          nrm[3 * v + 2] * nrm[3 * v + 2]);
        if (fabs(len - 1) > worst_normal)
            worst_normal = fabs(len - 1);
    }
    CHECK_MSG(worst_sum <= 2e-7, "weight sum off by %g", worst_sum);
    CHECK(worst_normal <= 1e-6);
    CHECK_MSG(multi > nv / 4, "only %zu of %zu vertices blend joints", multi, nv);
    /* skinned at Walk t = 0.3: every vertex stays near the rest shape */
    double *pos = read_all(d, ap);
    double jw[16 * 64], skin[16 * 64], worst_move = 0;
    CHECK(skf_creature_pose(0, 0.3, NULL, jw));
    for (size_t j = 0; j < nj; ++j)
        skf_mat4_mul(skin + 16 * j, jw + 16 * j, ibm + 16 * j);
    for (size_t v = 0; v < nv; ++v) {
        double out[3] = {0, 0, 0};
        for (int c = 0; c < 4; ++c) {
            double q[3];
            skf_mat4_transform_point(q, skin + 16 * jt[4 * v + c], pos + 3 * v);
            for (int a = 0; a < 3; ++a)
                out[a] += w[4 * v + c] * q[a];
        }
        double d3[3] = {out[0] - pos[3 * v], out[1] - pos[3 * v + 1], out[2] - pos[3 * v + 2]};
        if (skf_norm3(d3) > worst_move)
            worst_move = skf_norm3(d3);
    }
    CHECK_MSG(worst_move > 0.05 && worst_move < 0.6, "walk moves vertices by up to %g m",
              worst_move);
    if (topology) {
        /* each tube is a closed sphere: every edge in exactly two triangles */
        size_t nt = d->accessors[p->indices].count / 3;
        uint32_t *ix = malloc(nt * 3 * sizeof *ix);
        uint64_t *edges = malloc(nt * 3 * sizeof *edges);
        CHECK(ix && edges && skf_gltf_accessor_read_uint(d, p->indices, ix, &e) == SKF_OK);
        for (size_t t = 0; t < nt; ++t)
            for (int k = 0; k < 3; ++k) {
                uint64_t a = ix[3 * t + k], b = ix[3 * t + (k + 1) % 3];
                edges[3 * t + k] = a < b ? (a << 32) | b : (b << 32) | a;
            }
        qsort(edges, nt * 3, sizeof *edges, cmp_u64);
        size_t bad = 0, unique = 0;
        for (size_t i = 0; i < nt * 3;) {
            size_t j = i;
            while (j < nt * 3 && edges[j] == edges[i])
                ++j;
            bad += j - i != 2;
            ++unique;
            i = j;
        }
        CHECK_MSG(bad == 0, "%zu edges not shared by exactly two triangles", bad);
        long euler = (long)nv - (long)unique + (long)nt;
        CHECK_MSG(euler == 10, "Euler characteristic %ld, expected 10 (5 closed tubes)", euler);
        free(ix);
        free(edges);
    }
    printf("creature %zu: %zu vertices, %zu joints, max |rest x IBM - I| %.3g, max |sum w - 1| "
           "%.3g, max |normal| - 1 %.3g, %zu blended vertices, walk displacement up to %.3f m\n",
           target, nv, nj, worst_bind, worst_sum, worst_normal, multi, worst_move);
    free(ibm);
    free(w);
    free(nrm);
    free(jt);
    free(pos);
    return nv;
}

/* Clips: names, durations, key rate, loop, keys equal the analytic pose. */
static void check_clips(const skf_gltf *d)
{
    const skf_gltf_skin *sk = &d->skins[0];
    CHECK(d->animation_count == skf_creature_clip_count() && d->animation_count == 2);
    double worst = 0;
    for (size_t c = 0; c < d->animation_count; ++c) {
        const skf_gltf_animation *an = &d->animations[c];
        CHECK(!strcmp(an->name, skf_creature_clip_name(c)));
        CHECK(skf_clip_find(d, skf_creature_clip_name(c), NULL) == (int)c);
        size_t rotations = 0, translations = 0;
        for (size_t ch = 0; ch < an->channel_count; ++ch) {
            const skf_gltf_channel *chan = &an->channels[ch];
            const skf_gltf_sampler *s = &an->samplers[chan->sampler];
            CHECK(s->interpolation == SKF_INTERP_LINEAR);
            size_t keys = d->accessors[s->input].count;
            double *t = read_all(d, s->input), *v = read_all(d, s->output);
            double dur = t[keys - 1];
            CHECK_NEAR(dur, skf_creature_clip_duration(c), 1e-6);
            CHECK(dur >= 1.0 - 1e-6 && dur <= 2.0 + 1e-6);
            double rate = (double)(keys - 1) / dur;
            CHECK(rate >= 24 - 1e-6 && rate <= 30 + 1e-6);
            int width = chan->path == SKF_PATH_ROTATION ? 4 : 3;
            rotations += chan->path == SKF_PATH_ROTATION;
            translations += chan->path == SKF_PATH_TRANSLATION;
            /* joint index of the target node */
            size_t j = 0;
            while (j < sk->joint_count && sk->joints[j] != chan->node)
                ++j;
            CHECK(j < sk->joint_count);
            for (int a = 0; a < width; ++a)
                CHECK(v[a] == v[(keys - 1) * (size_t)width + (size_t)a]); /* loops exactly */
            for (size_t k = 0; k < keys && j < sk->joint_count; ++k) {
                double trs[10 * 64];
                skf_creature_pose(c, t[k], trs, NULL);
                const double *want = trs + 10 * j + (width == 4 ? 3 : 0);
                for (int a = 0; a < width; ++a) {
                    double dv = fabs(v[k * (size_t)width + (size_t)a] - want[a]);
                    if (dv > worst)
                        worst = dv;
                }
            }
            free(t);
            free(v);
        }
        CHECK(rotations >= 20 && translations >= 1);
    }
    CHECK_MSG(worst < 1e-6, "keys differ from skf_creature_pose by %g", worst);
    printf("clips: keys match the analytic pose within %.3g\n", worst);
}

int main(void)
{
    const char *bd = getenv("SKF_BUILD_DIR");
    char dir[4096], path[4200];
    snprintf(dir, sizeof dir, "%s/gltfwrite_out", bd && *bd ? bd : ".");
    mkdir(dir, 0777);
    strcat(dir, "/creature");
    mkdir(dir, 0777);
    static const size_t targets[] = {1000, 50000, 200000};
    for (size_t i = 0; i < 3; ++i) {
        skf_creature_options opt = {.vertices = targets[i]};
        skf_gltf *d = NULL, *back = NULL;
        skf_error e;
        CHECK_MSG(skf_creature_build(&opt, &d, &e) == SKF_OK, "%s", e.message);
        if (!d)
            continue;
        check_creature(d, targets[i], i == 0);
        if (i == 0)
            check_clips(d);
        if (i < 2) {
            snprintf(path, sizeof path, "%s/creature_%zuk.glb", dir, targets[i] / 1000);
            skf_warnings w = {0};
            CHECK_MSG(skf_gltf_write_glb(d, path, &w, &e) == SKF_OK, "%s", e.message);
            CHECK_MSG(w.count == 0, "creature needed %zu repairs: %s", w.count,
                      w.count ? w.items[0].text : "");
            skf_warnings_release(&w);
            CHECK_MSG(skf_gltf_load(path, &back, NULL, &e) == SKF_OK, "%s", e.message);
            if (back) {
                check_creature(back, targets[i], false);
                check_clips(back);
            }
        }
        skf_gltf_free(back);
        skf_gltf_free(d);
    }
    /* defaults, determinism, option checks */
    skf_gltf *a = NULL, *b = NULL;
    skf_error e;
    CHECK(skf_creature_build(NULL, &a, &e) == SKF_OK);
    skf_creature_options zero = {0};
    CHECK(skf_creature_build(&zero, &b, &e) == SKF_OK);
    if (a && b) {
        check_creature(a, 5000, false);
        char *ja = json_dumps(a->json, JSON_COMPACT), *jb = json_dumps(b->json, JSON_COMPACT);
        CHECK(ja && jb && !strcmp(ja, jb));
        free(ja);
        free(jb);
        CHECK(a->buffer_count == 1 && b->buffer_count == 1 &&
              a->buffers[0].size == b->buffers[0].size &&
              memcmp(a->buffers[0].data, b->buffers[0].data, a->buffers[0].size) == 0);
    }
    skf_gltf_free(a);
    skf_gltf_free(b);
    skf_creature_options bad = {.vertices = 10};
    skf_gltf *c = NULL;
    CHECK(skf_creature_build(&bad, &c, &e) == SKF_ERR_ARGUMENT && c == NULL);
    printf("rejected: %s\n", e.message);
    bad = (skf_creature_options){.keys_per_second = 1000};
    CHECK(skf_creature_build(&bad, &c, &e) == SKF_ERR_ARGUMENT && c == NULL);
    CHECK(!skf_creature_pose(99, 0, NULL, NULL));
    return skf_test_done();
}
