/* Attached meshes in a skin's surface (include/skinfit/rig.h "Attached
 * meshes", issue 12 §3): a mesh node without skin under a joint, through a
 * plain node in between, both with their own TRS, and a clip that animates
 * the joint AND the node in between.
 *  1. the rig of skin 0 = the skinned primitives, then the attachment (one
 *     attached part, weight 1 on Head); no_attached leaves it out;
 *  2. at rest, the solver's model (skin_Head · rest, weight 1) puts every
 *     attached vertex where glTF does: node_to_world(Horns) · p, with
 *     node_to_world composed here from the nodes' own TRS (parent · local);
 *  3. skf_skin follows glTF while the clip animates the mount node too
 *     (node_to_world(Horns) · p at every sampled time, within 1e-12 of the
 *     diagonal), where the weight-1 form would not (the mount's swing);
 *  4. welding keeps the attachment a part of its own (never merged with
 *     body vertices) and skins the same;
 *  5. the document is written to $SKF_BUILD_DIR/rig_attached/ for
 *     three_rig_attached (three.js replays it like skinfit bake does);
 *  6. autoweights: a mesh attached to the weightless Root joint does not make
 *     Root deforming (the skinned mesh gets no weight on it). */
#include "check.h"
#include "skinfit/creature.h"
#include "skinfit/gltf.h"
#include "skinfit/math.h"
#include "skinfit/rig.h"
#include "skinfit/solve.h"

#include <jansson.h>
#include <sys/stat.h>

static skf_error err;

static int node_named(const skf_gltf *d, const char *name)
{
    for (size_t i = 0; i < d->node_count; ++i)
        if (d->nodes[i].name && !strcmp(d->nodes[i].name, name))
            return (int)i;
    return -1;
}

/* world matrix of node n from the document's rest TRS, parent · local */
static void rest_world(const skf_gltf *d, int n, double out[16])
{
    skf_mat4_identity(out);
    for (; n >= 0; n = d->nodes[n].parent) {
        double l[16];
        skf_gltf_node_local_matrix(&d->nodes[n], l);
        skf_mat4_mul(out, l, out);
    }
}

static void quat_axis(double q[4], int axis, double deg)
{
    double h = deg * 3.14159265358979323846 / 360;
    q[0] = q[1] = q[2] = 0;
    q[axis] = sin(h);
    q[3] = cos(h);
}

int main(void)
{
    skf_creature_options co = {.vertices = 2000, .horns = SKF_CREATURE_HORNS_ATTACHED};
    skf_gltf *doc = NULL;
    CHECK_MSG(skf_creature_build(&co, &doc, &err) == SKF_OK, "%s", err.message);
    int head = node_named(doc, "Head"), horns = node_named(doc, "Horns");
    CHECK(head >= 0 && horns >= 0 && doc->nodes[horns].parent == head);

    /* Head -> HornMount (own TRS) -> Horns (own TRS) */
    double mt[3] = {0.03, 0.05, -0.02}, mr[4], ms[3] = {1.2, 1.2, 1.2};
    quat_axis(mr, 0, 20);
    int mount = -1;
    CHECK_MSG(skf_gltf_add_node(doc, "HornMount", head, mt, mr, ms, &mount, &err) == SKF_OK, "%s", err.message);
    json_t *nodes = json_object_get(doc->json, "nodes");
    json_t *hc = json_object_get(json_array_get(nodes, (size_t)head), "children");
    for (size_t k = 0; k < json_array_size(hc); ++k)
        if (json_integer_value(json_array_get(hc, k)) == horns) {
            json_array_remove(hc, k);
            break;
        }
    json_t *mn = json_array_get(nodes, (size_t)mount), *hn = json_array_get(nodes, (size_t)horns);
    json_object_set_new(mn, "children", json_pack("[i]", horns));
    double hq[4];
    quat_axis(hq, 1, 35);
    json_object_set_new(hn, "rotation", json_pack("[ffff]", hq[0], hq[1], hq[2], hq[3]));
    json_object_set_new(hn, "translation", json_pack("[fff]", -0.01, 0.02, 0.0));
    json_object_set_new(hn, "scale", json_pack("[fff]", 0.9, 1.1, 0.9));
    CHECK_MSG(skf_gltf_reparse(doc, NULL, &err) == SKF_OK, "%s", err.message);
    CHECK(doc->nodes[horns].parent == mount && doc->nodes[mount].parent == head);
    /* a clip animating the Head joint and the mount between it and the horns */
    {
        float times[3] = {0, 0.5f, 1};
        double a[4], b[4], c[4], ma[4], mb[4], mc[4], q1[4], q2[4];
        quat_axis(a, 2, 0), quat_axis(b, 2, 25), quat_axis(c, 0, -30);
        quat_axis(q1, 1, 40), quat_axis(q2, 2, -35);
        memcpy(ma, mr, sizeof ma);
        skf_quat_mul(mb, mr, q1);
        skf_quat_mul(mc, mr, q2);
        float hv[12], mv[12];
        for (int k = 0; k < 4; ++k) {
            hv[k] = (float)a[k], hv[4 + k] = (float)b[k], hv[8 + k] = (float)c[k];
            mv[k] = (float)ma[k], mv[4 + k] = (float)mb[k], mv[8 + k] = (float)mc[k];
        }
        skf_gltf_new_channel ch[2] = {{head, SKF_PATH_ROTATION, SKF_INTERP_LINEAR, 3, times, hv, 4},
                                      {mount, SKF_PATH_ROTATION, SKF_INTERP_LINEAR, 3, times, mv, 4}};
        CHECK_MSG(skf_gltf_add_animation(doc, "MountSwing", ch, 2, &err) == SKF_OK, "%s", err.message);
    }

    /* 1. the surface */
    skf_rig *rig = NULL, *body = NULL;
    CHECK_MSG(skf_rig_from_gltf(doc, 0, NULL, &rig, NULL, &err) == SKF_OK, "%s", err.message);
    skf_rig_options no = {.no_attached = true};
    CHECK(skf_rig_from_gltf(doc, 0, &no, &body, NULL, &err) == SKF_OK);
    const skf_gltf_mesh *hm = &doc->meshes[doc->nodes[horns].mesh];
    int pa = -1;
    for (size_t i = 0; i < hm->primitives[0].attribute_count; ++i)
        if (!strcmp(hm->primitives[0].attributes[i].name, "POSITION"))
            pa = hm->primitives[0].attributes[i].accessor;
    CHECK(pa >= 0);
    size_t nh = doc->accessors[pa].count, N = rig->vertex_count, first = body->vertex_count;
    printf("1. skin 0: %zu vertices = %zu skinned + %zu attached (Horns); %zu parts, the last attached: %s\n", N,
           first, nh, rig->part_count, rig->parts[rig->part_count - 1].attached ? "yes" : "no");
    CHECK(nh == 244 && N == first + nh);
    const skf_rig_part *P = &rig->parts[rig->part_count - 1];
    CHECK(P->attached && P->node == horns && P->first_vertex == first && P->vertex_count == nh);
    CHECK(P->attached_joint >= 0 && rig->joints[P->attached_joint].node == head);
    for (size_t p = 0; p + 1 < rig->part_count; ++p)
        CHECK(!rig->parts[p].attached);
    bool weights_ok = true;
    for (size_t v = first; v < N; ++v)
        weights_ok &= rig->weight_offsets[v + 1] - rig->weight_offsets[v] == 1 &&
                      rig->weight_joints[rig->weight_offsets[v]] == (uint32_t)P->attached_joint &&
                      rig->weights[rig->weight_offsets[v]] == 1.0;
    CHECK(weights_ok);
    CHECK(memcmp(rig->rest_positions, body->rest_positions, first * 3 * sizeof(double)) == 0);

    double *p_local = malloc(nh * 3 * sizeof(double)), *out = malloc(N * 3 * sizeof(double));
    CHECK(skf_gltf_accessor_read(doc, pa, p_local, true, &err) == SKF_OK);
    double diag = skf_bbox_diagonal(N, rig->rest_positions);

    /* 2. rest: the weight-1 form against glTF's node_to_world · p, composed here */
    skf_pose pose;
    CHECK(skf_pose_init(&pose, rig, &err) == SKF_OK);
    skf_pose_eval(rig, NULL, 0, &pose);
    double W[16], worst = 0;
    rest_world(doc, horns, W);
    const double *Sj = pose.skin_matrices + 16 * (size_t)P->attached_joint;
    for (size_t i = 0; i < nh; ++i) {
        double want[3], got[3];
        skf_mat4_transform_point(want, W, p_local + 3 * i);
        skf_mat4_transform_point(got, Sj, rig->rest_positions + 3 * (first + i));
        double d[3] = {got[0] - want[0], got[1] - want[1], got[2] - want[2]};
        worst = fmax(worst, skf_norm3(d) / diag);
    }
    printf("2. rest: skin_Head * rest vs node_to_world(Horns) * p (mount and horns with their own TRS): "
           "max %.3g of the diagonal\n", worst);
    CHECK(worst <= 1e-12);

    /* 3. the clip: skf_skin follows the animated mount */
    int a = skf_clip_find(doc, "MountSwing", NULL);
    skf_clip *clip = NULL;
    CHECK(a >= 0 && skf_clip_from_gltf(doc, a, &clip, &err) == SKF_OK);
    double worst_skin = 0, lbs_off = 0;
    for (int k = 0; k <= 8; ++k) {
        double t = k / 8.0;
        skf_pose_eval(rig, clip, t, &pose);
        skf_skin(rig, &pose, out, 1);
        const double *Wt = pose.node_to_world + 16 * (size_t)horns;
        Sj = pose.skin_matrices + 16 * (size_t)P->attached_joint;
        for (size_t i = 0; i < nh; ++i) {
            double want[3], lbs[3];
            skf_mat4_transform_point(want, Wt, p_local + 3 * i);
            skf_mat4_transform_point(lbs, Sj, rig->rest_positions + 3 * (first + i));
            const double *got = out + 3 * (first + i);
            double d[3] = {got[0] - want[0], got[1] - want[1], got[2] - want[2]};
            double e[3] = {lbs[0] - want[0], lbs[1] - want[1], lbs[2] - want[2]};
            worst_skin = fmax(worst_skin, skf_norm3(d) / diag);
            lbs_off = fmax(lbs_off, skf_norm3(e) / diag);
        }
    }
    printf("3. clip animating Head and the mount: skf_skin vs node_to_world(Horns) * p max %.3g of the diagonal "
           "(the weight-1 form, which ignores the mount's swing, is off by %.3g)\n", worst_skin, lbs_off);
    CHECK(worst_skin <= 1e-12);
    CHECK(lbs_off > 1e-3); /* the clip does swing the mount: the check above is not vacuous */

    /* 4. welding */
    skf_rig *w = NULL;
    uint32_t *map = NULL;
    CHECK(skf_rig_weld(rig, &w, &map, &err) == SKF_OK);
    CHECK(w->part_count == 2 && !w->parts[0].attached && w->parts[1].attached && w->parts[1].node == horns);
    CHECK(w->parts[1].first_vertex == w->parts[0].vertex_count && w->parts[1].vertex_count == nh);
    bool separate = true;
    for (size_t v = 0; v < N; ++v)
        separate &= (v >= first) == (map[v] >= w->parts[1].first_vertex);
    CHECK(separate);
    skf_pose wp;
    CHECK(skf_pose_init(&wp, w, &err) == SKF_OK);
    double *wout = malloc(w->vertex_count * 3 * sizeof(double)), worst_w = 0;
    skf_pose_eval(rig, clip, 0.7, &pose);
    skf_pose_eval(w, clip, 0.7, &wp);
    skf_skin(rig, &pose, out, 1);
    skf_skin(w, &wp, wout, 1);
    for (size_t v = 0; v < N; ++v) {
        double d[3];
        for (int k = 0; k < 3; ++k)
            d[k] = out[3 * v + (size_t)k] - wout[3 * (size_t)map[v] + (size_t)k];
        worst_w = fmax(worst_w, skf_norm3(d));
    }
    printf("4. welded: %zu vertices in %zu parts (attachment %zu), skinning equal within %.3g\n", w->vertex_count,
           w->part_count, w->parts[1].vertex_count, worst_w);
    CHECK(worst_w == 0);
    skf_pose_release(&wp);
    skf_rig_free(w);
    free(map);
    free(wout);

    /* 5. for three_rig_attached */
    const char *bdir = getenv("SKF_BUILD_DIR");
    char dir[1024], path[1100];
    snprintf(dir, sizeof dir, "%s/rig_attached", bdir && *bdir ? bdir : ".");
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/creature_mounted_horns.glb", dir);
    CHECK_MSG(skf_gltf_write_glb(doc, path, NULL, &err) == SKF_OK, "%s", err.message);

    /* 6. autoweights ignores the attachments' weight-1 rows */
    {
        skf_gltf *d2 = NULL;
        skf_creature_options c2 = {.vertices = 1000};
        CHECK(skf_creature_build(&c2, &d2, &err) == SKF_OK);
        int root = d2->skins[0].joints[0], acc = -1, mesh = -1, tag = -1;
        const float tp[9] = {0.05f, 0, 0, 0, 0.05f, 0, 0, 0, 0.05f};
        const char *an[1] = {"POSITION"};
        CHECK(skf_gltf_add_float_accessor(d2, tp, 3, 3, 34962, true, &acc, &err) == SKF_OK);
        CHECK(skf_gltf_add_mesh(d2, "Tag", an, &acc, 1, -1, &mesh, &err) == SKF_OK);
        CHECK(skf_gltf_add_node(d2, "Tag", root, NULL, NULL, NULL, &tag, &err) == SKF_OK);
        json_object_set_new(json_array_get(json_object_get(d2->json, "nodes"), (size_t)tag), "mesh", json_integer(mesh));
        CHECK(skf_gltf_reparse(d2, NULL, &err) == SKF_OK);
        skf_autoweights_options ao = {4, 2};
        CHECK_MSG(skf_autoweights_gltf(d2, 0, &ao, NULL, &err) == SKF_OK, "%s", err.message);
        skf_rig *r2 = NULL;
        CHECK(skf_rig_from_gltf(d2, 0, NULL, &r2, NULL, &err) == SKF_OK);
        size_t on_root = 0, skinned = r2->vertex_count - 3;
        for (size_t v = 0; v < skinned; ++v)
            for (size_t e = r2->weight_offsets[v]; e < r2->weight_offsets[v + 1]; ++e)
                on_root += r2->weight_joints[e] == 0;
        printf("6. autoweights with a mesh attached to the weightless Root: %zu of %zu skinned vertices weighted on "
               "Root; the tag's 3 vertices weight 1 on it: %s\n",
               on_root, skinned, r2->parts[r2->part_count - 1].attached_joint == 0 ? "yes" : "no");
        CHECK(on_root == 0 && r2->parts[r2->part_count - 1].attached && r2->parts[r2->part_count - 1].attached_joint == 0);
        skf_rig_free(r2);
        skf_gltf_free(d2);
    }

    skf_pose_release(&pose);
    skf_clip_free(clip);
    free(p_local);
    free(out);
    skf_rig_free(rig);
    skf_rig_free(body);
    skf_gltf_free(doc);
    return skf_test_done();
}
