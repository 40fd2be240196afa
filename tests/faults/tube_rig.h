/* A tiny skinned tube for the fault sweeps: `rings` rings of `segs` vertices
 * along +Y (height 3 m, radius 0.3 m), a chain of `bones` joints up the axis
 * (Root at y = 0, each child 3/bones higher), smooth weights between the two
 * nearest joints, and one LINEAR clip "Bend" of `keys` keys over 1 s bending
 * every joint about Z (and swaying the root along X). Built with the
 * library's glTF builder so the document is small: the sweeps' allocation
 * counts stay in the low thousands. Test-only. */
#ifndef SKF_TESTS_FAULTS_TUBE_RIG_H
#define SKF_TESTS_FAULTS_TUBE_RIG_H

#include "skinfit/gltf.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

#define TUBE_MAX_BONES 8

static skf_status tube_rig_build(int rings, int segs, int bones, int keys, skf_gltf **out, skf_error *err)
{
    const double height = 3, radius = 0.3, seg_len = height / bones;
    size_t nv = (size_t)rings * (size_t)segs, nt = (size_t)(rings - 1) * (size_t)segs * 2;
    float *pos = calloc(nv * 3, sizeof *pos), *wts = calloc(nv * 4, sizeof *wts);
    uint32_t *jnt = calloc(nv * 4, sizeof *jnt), *tri = calloc(nt * 3, sizeof *tri);
    float *times = calloc((size_t)keys, sizeof *times);
    float *rot = calloc((size_t)keys * (size_t)bones * 4, sizeof *rot);
    float *tr = calloc((size_t)keys * 3, sizeof *tr);
    skf_gltf *doc = NULL;
    skf_status st = SKF_OK;
    if (!pos || !wts || !jnt || !tri || !times || !rot || !tr || bones > TUBE_MAX_BONES) {
        st = skf_fail(err, SKF_ERR_NOMEM, "tube: out of memory");
        goto done;
    }
    for (int r = 0; r < rings; ++r) {
        double y = height * r / (rings - 1);
        double u = y / seg_len; /* position along the chain in bone units */
        int b0 = (int)floor(u);
        if (b0 > bones - 1)
            b0 = bones - 1;
        int b1 = b0 + 1 < bones ? b0 + 1 : b0;
        double f = b1 == b0 ? 0 : u - b0;
        for (int s = 0; s < segs; ++s) {
            size_t v = (size_t)r * (size_t)segs + (size_t)s;
            double a = 2 * M_PI * s / segs;
            pos[3 * v + 0] = (float)(radius * cos(a));
            pos[3 * v + 1] = (float)y;
            pos[3 * v + 2] = (float)(radius * sin(a));
            jnt[4 * v + 0] = (uint32_t)b0;
            jnt[4 * v + 1] = (uint32_t)b1;
            wts[4 * v + 0] = (float)(b1 == b0 ? 1 : 1 - f);
            wts[4 * v + 1] = (float)(b1 == b0 ? 0 : f);
        }
    }
    size_t t = 0;
    for (int r = 0; r + 1 < rings; ++r)
        for (int s = 0; s < segs; ++s) {
            uint32_t a = (uint32_t)(r * segs + s), b = (uint32_t)(r * segs + (s + 1) % segs);
            uint32_t c = a + (uint32_t)segs, d = b + (uint32_t)segs;
            uint32_t quad[6] = {a, c, b, b, c, d};
            memcpy(tri + 3 * t, quad, sizeof quad);
            t += 2;
        }
    int a_pos, a_jnt, a_wts, a_idx, a_ibm;
    float ibm[16 * TUBE_MAX_BONES];
    for (int j = 0; j < bones; ++j) {
        for (int e = 0; e < 16; ++e)
            ibm[16 * j + e] = (e % 5 == 0) ? 1.0f : 0.0f;
        ibm[16 * j + 13] = (float)(-seg_len * j);
    }
    if ((st = skf_gltf_new_empty("tube", &doc, err)) ||
        (st = skf_gltf_add_float_accessor(doc, pos, nv, 3, 34962, true, &a_pos, err)) ||
        (st = skf_gltf_add_uint_accessor(doc, jnt, nv, 4, SKF_GLTF_UNSIGNED_BYTE, 34962, &a_jnt, err)) ||
        (st = skf_gltf_add_float_accessor(doc, wts, nv, 4, 34962, false, &a_wts, err)) ||
        (st = skf_gltf_add_uint_accessor(doc, tri, nt * 3, 1, SKF_GLTF_UNSIGNED_SHORT, 34963, &a_idx, err)) ||
        (st = skf_gltf_add_float_accessor(doc, ibm, (size_t)bones, 16, 0, false, &a_ibm, err)))
        goto done;
    int node_of[TUBE_MAX_BONES];
    for (int j = 0; j < bones && !st; ++j) {
        char name[32];
        snprintf(name, sizeof name, "Bone%d", j);
        double tj[3] = {0, j ? seg_len : 0, 0};
        st = skf_gltf_add_node(doc, name, j ? node_of[j - 1] : -1, tj, NULL, NULL, &node_of[j], err);
    }
    static const char *const names[] = {"POSITION", "JOINTS_0", "WEIGHTS_0"};
    int accs[3] = {a_pos, a_jnt, a_wts};
    int mesh, skin, mesh_node;
    if (st || (st = skf_gltf_add_mesh(doc, "Tube", names, accs, 3, a_idx, &mesh, err)) ||
        (st = skf_gltf_add_skin(doc, "TubeSkin", node_of, (size_t)bones, a_ibm, node_of[0], &skin, err)) ||
        (st = skf_gltf_add_node(doc, "Tube", -1, NULL, NULL, NULL, &mesh_node, err)))
        goto done;
    json_t *node = json_array_get(json_object_get(doc->json, "nodes"), (size_t)mesh_node);
    if (json_object_set_new(node, "mesh", json_integer(mesh)) != 0 ||
        json_object_set_new(node, "skin", json_integer(skin)) != 0) {
        st = skf_fail(err, SKF_ERR_NOMEM, "tube: out of memory");
        goto done;
    }
    if ((st = skf_gltf_reparse(doc, NULL, err)))
        goto done;
    skf_gltf_new_channel ch[TUBE_MAX_BONES + 1];
    for (int k = 0; k < keys; ++k) {
        double tk = (double)k / (keys - 1);
        times[k] = (float)tk;
        for (int j = 0; j < bones; ++j) {
            double angle = 0.35 * sin(2 * M_PI * tk + 0.7 * j) * (j ? 1 : 0.3);
            float *q = rot + ((size_t)j * (size_t)keys + (size_t)k) * 4;
            q[0] = 0;
            q[1] = 0;
            q[2] = (float)sin(angle / 2);
            q[3] = (float)cos(angle / 2);
        }
        tr[3 * k + 0] = (float)(0.2 * sin(2 * M_PI * tk));
        tr[3 * k + 1] = 0;
        tr[3 * k + 2] = 0;
    }
    for (int j = 0; j < bones; ++j)
        ch[j] = (skf_gltf_new_channel){node_of[j], SKF_PATH_ROTATION, SKF_INTERP_LINEAR, (size_t)keys, times,
                                       rot + (size_t)j * (size_t)keys * 4, 4};
    ch[bones] = (skf_gltf_new_channel){node_of[0], SKF_PATH_TRANSLATION, SKF_INTERP_LINEAR, (size_t)keys, times,
                                       tr, 3};
    if ((st = skf_gltf_add_animation(doc, "Bend", ch, (size_t)bones + 1, err)))
        goto done;
    st = skf_gltf_reparse(doc, NULL, err);
done:
    free(pos);
    free(wts);
    free(jnt);
    free(tri);
    free(times);
    free(rot);
    free(tr);
    if (st) {
        skf_gltf_free(doc);
        doc = NULL;
    }
    *out = doc;
    return st;
}

#endif
