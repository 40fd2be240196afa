/* Issue 3 acceptance on the procedural creature (no external data):
 *  2. exact recovery: creature -> itself, solved transforms and baked TRS
 *     equal the known (analytic) ones within 1e-6;
 *  3. a target whose vertices are permuted and re-split (one vertex per
 *     triangle corner) gives the same quality within 1e-6;
 *  4. a target subdivided once (weights interpolated), rotated to Z-up and
 *     scaled x100 is aligned automatically, quality within 0.5 % (points) of
 *     the same-mesh result;
 *  5. rotation-only: bone lengths of the baked TRS equal the bind lengths
 *     within 1e-6 relative on every frame; its quality never exceeds free;
 *  6. (our half) playing the baked OUT.glb with skinfit's own evaluator
 *     reproduces the solver's skinned surface within 1e-5 of the diagonal;
 *     OUT.glb is written to $SKF_BUILD_DIR/transfer_out/ for the three.js
 *     and gltf-validator checks (CMakeLists: three_transfer, validate_transfer).
 * The second rig is the creature with autoweights (K = 4, P = 2). */
#include "check.h"
#include "skinfit/creature.h"
#include "skinfit/gltf.h"
#include "skinfit/rig.h"
#include "skinfit/math.h"
#include "skinfit/solve.h"
#include "skinfit/transfer.h"

#include <jansson.h>
#include <sys/stat.h>

static skf_error err;

static skf_gltf *reload(const skf_gltf *doc, const char *path)
{
    skf_gltf *out = NULL;
    CHECK_MSG(skf_gltf_write_glb(doc, path, NULL, &err) == SKF_OK, "%s", err.message);
    CHECK_MSG(skf_gltf_load(path, &out, NULL, &err) == SKF_OK, "%s", err.message);
    return out;
}

/* Replace mesh 0 primitive 0 with new vertices (positions, K influences per
 * vertex as joints/weights [V*K], K = 4 or 8) and triangles. */
static void replace_mesh(skf_gltf *doc, size_t V, const double *pos, int K, const uint32_t *jo, const double *w,
                         size_t T, const uint32_t *tri)
{
    float *fp = malloc(V * 3 * sizeof(float));
    for (size_t i = 0; i < V * 3; ++i)
        fp[i] = (float)pos[i];
    int apos, aidx, aj[2] = {-1, -1}, aw[2] = {-1, -1};
    CHECK(skf_gltf_add_float_accessor(doc, fp, V, 3, 34962, true, &apos, &err) == SKF_OK);
    CHECK(skf_gltf_add_uint_accessor(doc, tri, T * 3, 1, SKF_GLTF_UNSIGNED_INT, 34963, &aidx, &err) == SKF_OK);
    uint32_t *js = malloc(V * 4 * sizeof(uint32_t));
    float *ws = malloc(V * 4 * sizeof(float));
    for (int s = 0; s < K / 4; ++s) {
        for (size_t v = 0; v < V; ++v)
            for (int k = 0; k < 4; ++k) {
                js[4 * v + k] = jo[v * (size_t)K + (size_t)(4 * s + k)];
                ws[4 * v + k] = (float)w[v * (size_t)K + (size_t)(4 * s + k)];
            }
        CHECK(skf_gltf_add_uint_accessor(doc, js, V, 4, SKF_GLTF_UNSIGNED_BYTE, 34962, &aj[s], &err) == SKF_OK);
        CHECK(skf_gltf_add_float_accessor(doc, ws, V, 4, 34962, false, &aw[s], &err) == SKF_OK);
    }
    json_t *prim = json_array_get(json_object_get(json_array_get(json_object_get(doc->json, "meshes"), 0), "primitives"), 0);
    json_t *attrs = json_object();
    json_object_set_new(attrs, "POSITION", json_integer(apos));
    json_object_set_new(attrs, "JOINTS_0", json_integer(aj[0]));
    json_object_set_new(attrs, "WEIGHTS_0", json_integer(aw[0]));
    if (K == 8) {
        json_object_set_new(attrs, "JOINTS_1", json_integer(aj[1]));
        json_object_set_new(attrs, "WEIGHTS_1", json_integer(aw[1]));
    }
    json_object_set_new(prim, "attributes", attrs);
    json_object_set_new(prim, "indices", json_integer(aidx));
    json_object_del(prim, "targets");
    CHECK_MSG(skf_gltf_reparse(doc, NULL, &err) == SKF_OK, "%s", err.message);
    free(fp);
    free(js);
    free(ws);
}

/* Dense K-slot rows from a rig's CSR weights. */
static void rows(const skf_rig *r, size_t v, int K, uint32_t *jo, double *w)
{
    int k = 0;
    for (size_t e = r->weight_offsets[v]; e < r->weight_offsets[v + 1] && k < K; ++e, ++k) {
        jo[k] = r->weight_joints[e];
        w[k] = r->weights[e];
    }
    for (; k < K; ++k)
        jo[k] = 0, w[k] = 0;
}

static void run(const skf_gltf *s, const skf_gltf *t, int mode, skf_transfer **tr, skf_transfer_clip *clip)
{
    skf_transfer_options o;
    memset(&o, 0, sizeof o);
    o.mode = mode;
    *tr = NULL;
    memset(clip, 0, sizeof *clip);
    CHECK_MSG(skf_transfer_new(s, t, &o, tr, NULL, &err) == SKF_OK, "%s", err.message);
    if (*tr)
        CHECK_MSG(skf_transfer_run_clip(*tr, "Walk", clip, NULL, &err) == SKF_OK, "%s", err.message);
}

int main(void)
{
    const char *bdir = getenv("SKF_BUILD_DIR");
    char dir[4096], p1[4200], p2[4200], p3[4200], p4[4200], pout[4200];
    snprintf(dir, sizeof dir, "%s/transfer_out", bdir && *bdir ? bdir : ".");
    mkdir(dir, 0777);
    snprintf(p1, sizeof p1, "%s/creature.glb", dir);
    snprintf(p2, sizeof p2, "%s/creature_aw.glb", dir);
    snprintf(p3, sizeof p3, "%s/creature_aw_permuted.glb", dir);
    snprintf(p4, sizeof p4, "%s/creature_aw_subdivided_zup.glb", dir);
    snprintf(pout, sizeof pout, "%s/creature_transfer.glb", dir);

    skf_creature_options co = {.vertices = 800};
    skf_gltf *built = NULL;
    CHECK_MSG(skf_creature_build(&co, &built, &err) == SKF_OK, "%s", err.message);
    skf_gltf *src = reload(built, p1);
    skf_gltf_free(built);
    if (!src)
        return skf_test_done();

    /* ---- 2. exact recovery ------------------------------------------- */
    {
        skf_transfer *tr;
        skf_transfer_clip c;
        run(src, src, SKF_TRANSFER_FREE, &tr, &c);
        /* the session's list of source clips, as messages print it */
        CHECK(tr && strcmp(skf_transfer_clip_list(tr), "Walk, Trot") == 0);
        size_t B = c.joint_count;
        double *ibm = malloc(B * 16 * sizeof(double));
        double *world = malloc(B * 16 * sizeof(double));
        double *trs = malloc(B * 10 * sizeof(double));
        CHECK(skf_gltf_accessor_read(src, src->skins[0].inverse_bind_matrices, ibm, true, &err) == SKF_OK);
        double worst_T = 0, worst_trs = 0;
        size_t solved = 0;
        for (size_t f = 0; f < c.frames; ++f) {
            double time = c.start + (double)f / c.fps;
            CHECK(skf_creature_pose(0, time, trs, world));
            for (size_t i = 0; i < B; ++i) {
                if (!c.animated[i])
                    continue;
                solved += f == 0;
                double want[16], got[16];
                skf_mat4_mul(want, world + 16 * i, ibm + 16 * i);
                skf_transform34_to_mat4(c.free_transforms + (f * B + i) * 12, got);
                for (int k = 0; k < 16; ++k)
                    worst_T = fmax(worst_T, fabs(want[k] - got[k]));
                const double *wt = trs + 10 * i;
                double dot = 0;
                for (int k = 0; k < 4; ++k)
                    dot += wt[3 + k] * c.rotation[(f * B + i) * 4 + (size_t)k];
                worst_trs = fmax(worst_trs, 1 - fabs(dot));
                for (int k = 0; k < 3; ++k)
                    worst_trs = fmax(worst_trs, fmax(fabs(wt[k] - c.translation[(f * B + i) * 3 + (size_t)k]),
                                                     fabs(wt[7 + k] - c.scale[(f * B + i) * 3 + (size_t)k])));
            }
        }
        printf("2. exact recovery: %zu solved joints x %zu frames: max |T - T_known| %.3g, max TRS error %.3g; "
               "quality %.12f %%\n",
               solved, c.frames, worst_T, worst_trs, 100 * c.free.quality);
        CHECK(solved >= 20 && c.frames > 10);
        CHECK(worst_T <= 1e-6);
        CHECK(worst_trs <= 1e-6);
        free(ibm), free(world), free(trs);
        skf_transfer_clip_release(&c);
        skf_transfer_free(tr);
    }

    /* the second rig: autoweights */
    skf_gltf *awd = NULL;
    CHECK(skf_gltf_load(p1, &awd, NULL, &err) == SKF_OK);
    skf_autoweights_options ao = {4, 2};
    CHECK_MSG(skf_autoweights_gltf(awd, 0, &ao, NULL, &err) == SKF_OK, "%s", err.message);
    skf_gltf *aw = reload(awd, p2);
    skf_gltf_free(awd);

    /* ---- 5 + 6: same mesh, both modes ------------------------------- */
    skf_transfer *tr0;
    skf_transfer_clip c0;
    run(src, aw, SKF_TRANSFER_BOTH, &tr0, &c0);
    printf("same mesh (autoweights target): free %.9f %%, rotation-only %.9f %%, bone lengths %.3g\n",
           100 * c0.free.quality, 100 * c0.rotation_only.quality, c0.rotation_only.max_length_error);
    CHECK(c0.rotation_only.quality <= c0.free.quality);
    CHECK(c0.rotation_only.max_length_error <= 1e-6);
    /* independent length check on the rotation-only solution's world joints */
    {
        skf_rig *rig = NULL;
        CHECK(skf_rig_from_gltf(aw, 0, NULL, &rig, NULL, &err) == SKF_OK);
        size_t B = rig->joint_count;
        double worst = 0;
        for (size_t f = 0; f < c0.frames; ++f)
            for (size_t i = 0; i < B; ++i) {
                int p = rig->joints[i].parent;
                if (p < 0 || !c0.animated[i] || !c0.animated[p])
                    continue;
                double bi[16], bp[16], ti[16], tp[16], xi[3], xp[3], wi[3], wp[3];
                skf_mat4_invert(bi, rig->joints[i].mesh_to_joint);
                skf_mat4_invert(bp, rig->joints[p].mesh_to_joint);
                skf_transform34_to_mat4(c0.rotonly_transforms + (f * B + i) * 12, ti);
                skf_transform34_to_mat4(c0.rotonly_transforms + (f * B + (size_t)p) * 12, tp);
                skf_mat4_transform_point(wi, ti, bi + 12);
                skf_mat4_transform_point(wp, tp, bp + 12);
                for (int k = 0; k < 3; ++k)
                    xi[k] = wi[k] - wp[k], xp[k] = bi[12 + k] - bp[12 + k];
                double L = skf_norm3(xp);
                if (L > 0)
                    worst = fmax(worst, fabs(skf_norm3(xi) - L) / L);
            }
        printf("5. rotation-only joint distances vs bind, every frame: max relative error %.3g\n", worst);
        CHECK(worst <= 1e-6);
        skf_rig_free(rig);
    }
    /* 6: bake, write, play back with skinfit's evaluator */
    {
        skf_gltf *outd = NULL;
        CHECK(skf_gltf_load(p2, &outd, NULL, &err) == SKF_OK);
        CHECK_MSG(skf_transfer_add_animation(tr0, outd, &c0, &err) == SKF_OK, "%s", err.message);
        skf_gltf *back = reload(outd, pout);
        skf_gltf_free(outd);
        skf_rig *rig = NULL;
        skf_clip *clip = NULL;
        CHECK(skf_rig_from_gltf(back, 0, NULL, &rig, NULL, &err) == SKF_OK);
        int a = skf_clip_find(back, c0.name, NULL);
        CHECK(a >= 0);
        CHECK(skf_clip_from_gltf(back, a, &clip, &err) == SKF_OK);
        size_t N = rig->vertex_count, B = rig->joint_count;
        double *play = malloc(N * 3 * sizeof(double)), *want = malloc(N * 3 * sizeof(double));
        double diag = skf_bbox_diagonal(N, rig->rest_positions), worst = 0;
        skf_pose pose;
        CHECK(skf_pose_init(&pose, rig, &err) == SKF_OK);
        for (size_t f = 0; f < c0.frames; ++f) {
            skf_pose_eval(rig, clip, c0.start + (double)f / c0.fps, &pose);
            skf_skin(rig, &pose, play, 1);
            for (size_t v = 0; v < N; ++v) {
                double s[3] = {0, 0, 0};
                for (size_t e = rig->weight_offsets[v]; e < rig->weight_offsets[v + 1]; ++e) {
                    double x[3];
                    skf_transform34_apply(c0.free_transforms + (f * B + rig->weight_joints[e]) * 12,
                                          rig->rest_positions + 3 * v, x);
                    for (int k = 0; k < 3; ++k)
                        s[k] += rig->weights[e] * x[k];
                }
                memcpy(want + 3 * v, s, sizeof s);
            }
            for (size_t v = 0; v < N; ++v) {
                double d[3] = {play[3 * v] - want[3 * v], play[3 * v + 1] - want[3 * v + 1], play[3 * v + 2] - want[3 * v + 2]};
                worst = fmax(worst, skf_norm3(d) / diag);
            }
        }
        printf("6. OUT.glb played back by skinfit vs the solver's skinned surface: max %.3g of the diagonal "
               "(%zu vertices x %zu frames; three.js vs skinfit: test three_transfer)\n",
               worst, N, c0.frames);
        CHECK(worst <= 1e-5);
        skf_pose_release(&pose);
        skf_clip_free(clip);
        skf_rig_free(rig);
        skf_gltf_free(back);
        free(play), free(want);
    }

    /* ---- 3. permuted + re-split ------------------------------------- */
    skf_rig *awr = NULL;
    CHECK(skf_rig_from_gltf(aw, 0, NULL, &awr, NULL, &err) == SKF_OK);
    {
        size_t T = awr->triangle_count, V = 3 * T;
        double *pos = malloc(V * 3 * sizeof(double)), *w = malloc(V * 4 * sizeof(double));
        uint32_t *jo = malloc(V * 4 * sizeof(uint32_t)), *tri = malloc(T * 3 * sizeof(uint32_t));
        for (size_t f = 0; f < T; ++f)
            for (int k = 0; k < 3; ++k) {
                size_t dst = (f * 3 + (size_t)k) * 7 % V; /* V = 3T; 7 coprime unless 7 | T */
                if (T % 7 == 0)
                    dst = V - 1 - (f * 3 + (size_t)k);
                uint32_t v = awr->triangles[3 * f + (size_t)k];
                memcpy(pos + 3 * dst, awr->rest_positions + 3 * v, 3 * sizeof(double));
                rows(awr, v, 4, jo + 4 * dst, w + 4 * dst);
                tri[3 * f + (size_t)k] = (uint32_t)dst;
            }
        skf_gltf *pd = NULL;
        CHECK(skf_gltf_load(p2, &pd, NULL, &err) == SKF_OK);
        replace_mesh(pd, V, pos, 4, jo, w, T, tri);
        skf_gltf *perm = reload(pd, p3);
        skf_gltf_free(pd);
        skf_transfer *tr;
        skf_transfer_clip c;
        run(src, perm, SKF_TRANSFER_FREE, &tr, &c);
        skf_transfer_info in;
        skf_transfer_get_info(tr, &in);
        printf("3. permuted + re-split: %zu vertices (%zu welded), alignment %s; quality %.12f %% vs same mesh "
               "%.12f %% (|diff| %.3g)\n",
               in.target_vertices, in.target_welded, in.alignment.method, 100 * c.free.quality,
               100 * c0.free.quality, fabs(c.free.quality - c0.free.quality));
        CHECK(in.target_vertices == V);
        CHECK(fabs(c.free.quality - c0.free.quality) <= 1e-6);
        skf_transfer_clip_release(&c);
        skf_transfer_free(tr);
        skf_gltf_free(perm);
        free(pos), free(w), free(jo), free(tri);
    }

    /* ---- 4. subdivided, weights interpolated, Z-up, x100 ------------ */
    {
        size_t T0 = awr->triangle_count, N0 = awr->vertex_count;
        size_t V = N0 + 3 * T0, T = 4 * T0;
        double *pos = malloc(V * 3 * sizeof(double)), *w = calloc(V * 8, sizeof(double));
        uint32_t *jo = calloc(V * 8, sizeof(uint32_t)), *tri = malloc(T * 3 * sizeof(uint32_t));
        for (size_t v = 0; v < N0; ++v) {
            memcpy(pos + 3 * v, awr->rest_positions + 3 * v, 3 * sizeof(double));
            rows(awr, v, 8, jo + 8 * v, w + 8 * v);
        }
        for (size_t f = 0; f < T0; ++f) {
            uint32_t c3[3] = {awr->triangles[3 * f], awr->triangles[3 * f + 1], awr->triangles[3 * f + 2]};
            uint32_t m[3];
            for (int k = 0; k < 3; ++k) {
                uint32_t a = c3[k], b = c3[(k + 1) % 3];
                size_t mv = N0 + 3 * f + (size_t)k;
                for (int x = 0; x < 3; ++x)
                    pos[3 * mv + x] = 0.5 * (awr->rest_positions[3 * a + x] + awr->rest_positions[3 * b + x]);
                /* interpolated weights: union of both rows, halves added */
                uint32_t ja[8], jb[8];
                double wa[8], wb[8];
                rows(awr, a, 8, ja, wa);
                rows(awr, b, 8, jb, wb);
                int n = 0;
                for (int side = 0; side < 2; ++side)
                    for (int e = 0; e < 8; ++e) {
                        uint32_t j = side ? jb[e] : ja[e];
                        double ww = 0.5 * (side ? wb[e] : wa[e]);
                        if (ww == 0)
                            continue;
                        int q = 0;
                        while (q < n && jo[8 * mv + (size_t)q] != j)
                            ++q;
                        if (q == n && n < 8)
                            jo[8 * mv + (size_t)n++] = j;
                        if (q < 8)
                            w[8 * mv + (size_t)q] += ww;
                    }
                m[k] = (uint32_t)mv;
            }
            uint32_t *o = tri + 12 * f;
            o[0] = c3[0], o[1] = m[0], o[2] = m[2];
            o[3] = m[0], o[4] = c3[1], o[5] = m[1];
            o[6] = m[2], o[7] = m[1], o[8] = c3[2];
            o[9] = m[0], o[10] = m[1], o[11] = m[2];
        }
        skf_gltf *sd = NULL;
        CHECK(skf_gltf_load(p2, &sd, NULL, &err) == SKF_OK);
        replace_mesh(sd, V, pos, 8, jo, w, T, tri);
        /* the whole scene under a Z-up, x100 root (a Z-up exporter in cm) */
        int zup = -1;
        double r[4] = {sin(M_PI / 4), 0, 0, cos(M_PI / 4)}, sc[3] = {100, 100, 100};
        json_t *scene = json_array_get(json_object_get(sd->json, "scenes"), 0);
        json_t *roots = json_deep_copy(json_object_get(scene, "nodes"));
        CHECK(skf_gltf_add_node(sd, "ZupCentimetres", -1, NULL, r, sc, &zup, &err) == SKF_OK);
        json_object_set_new(scene, "nodes", json_pack("[i]", zup));
        json_object_set_new(json_array_get(json_object_get(sd->json, "nodes"), (size_t)zup), "children", roots);
        CHECK_MSG(skf_gltf_reparse(sd, NULL, &err) == SKF_OK, "%s", err.message);
        skf_gltf *sub = reload(sd, p4);
        skf_gltf_free(sd);
        skf_transfer *tr;
        skf_transfer_clip c;
        run(src, sub, SKF_TRANSFER_FREE, &tr, &c);
        skf_transfer_info in;
        if (tr) {
            skf_transfer_get_info(tr, &in);
            printf("4. subdivided (%zu vertices, %zu welded), Z-up x100: alignment %s scale %.9g residual %.3g %%; "
                   "quality %.6f %% vs same mesh %.6f %% (diff %.4f points)\n",
                   in.target_vertices, in.target_welded, in.alignment.method, in.alignment.scale,
                   100 * in.alignment.residual, 100 * c.free.quality, 100 * c0.free.quality,
                   100 * fabs(c.free.quality - c0.free.quality));
            CHECK(!in.alignment.identity);
            CHECK(fabs(in.alignment.scale - 0.01) < 1e-6);
            CHECK(fabs(c.free.quality - c0.free.quality) <= 0.005);
        }
        skf_transfer_clip_release(&c);
        skf_transfer_free(tr);
        skf_gltf_free(sub);
        free(pos), free(w), free(jo), free(tri);
    }
    skf_rig_free(awr);
    skf_transfer_clip_release(&c0);
    skf_transfer_free(tr0);
    skf_gltf_free(aw);
    skf_gltf_free(src);
    return skf_test_done();
}
