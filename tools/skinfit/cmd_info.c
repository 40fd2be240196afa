/* skinfit info FILE [--json]: what a glTF file holds for skinning — meshes,
 * skins with raw and welded surface sizes, joints, clips, morph targets.
 * The JSON schema is documented in docs/info-json.md (schema "skinfit-info/1"). */
#include "cli.h"

#include "skinfit/gltf.h"
#include "skinfit/rig.h"

#include <jansson.h>
#include <string.h>

static const char *interp_name(skf_gltf_interp i)
{
    return i == SKF_INTERP_STEP ? "STEP" : i == SKF_INTERP_CUBICSPLINE ? "CUBICSPLINE" : "LINEAR";
}

static const char *path_name(skf_gltf_path p)
{
    switch (p) {
    case SKF_PATH_TRANSLATION: return "translation";
    case SKF_PATH_ROTATION: return "rotation";
    case SKF_PATH_SCALE: return "scale";
    default: return "weights";
    }
}

static json_t *str_or_null(const char *s)
{
    return s ? json_string(s) : json_null();
}

/* Surface summary (rig of skin or -1): raw/welded counts, joints. */
static skf_status surface_json(const skf_gltf *doc, int skin, json_t **out, skf_warnings *w,
                               skf_error *err)
{
    skf_rig *rig = NULL, *welded = NULL;
    skf_status st = skf_rig_from_gltf(doc, skin, NULL, &rig, w, err);
    if (st)
        return st;
    if ((st = skf_rig_weld(rig, &welded, NULL, err))) {
        skf_rig_free(rig);
        return st;
    }
    json_t *o = json_object();
    if (skin >= 0) {
        json_object_set_new(o, "index", json_integer(skin));
        json_object_set_new(o, "name", str_or_null(doc->skins[skin].name));
        json_object_set_new(o, "skeleton", doc->skins[skin].skeleton >= 0
                                                ? json_integer(doc->skins[skin].skeleton)
                                                : json_null());
    }
    json_t *nodes = json_array();
    for (size_t p = 0; p < rig->part_count; ++p) {
        bool seen = false;
        for (size_t q = 0; q < p; ++q)
            seen |= rig->parts[q].node == rig->parts[p].node;
        if (!seen)
            json_array_append_new(nodes, json_integer(rig->parts[p].node));
    }
    json_object_set_new(o, "mesh_nodes", nodes);
    json_t *att = json_array(); /* meshes attached to the skin's joints (rig.h), listed in mesh_nodes too */
    for (size_t p = 0; p < rig->part_count; ++p) {
        bool seen = false;
        for (size_t q = 0; q < p; ++q)
            seen |= rig->parts[q].node == rig->parts[p].node;
        if (rig->parts[p].attached && !seen)
            json_array_append_new(att, json_integer(rig->parts[p].node));
    }
    if (json_array_size(att))
        json_object_set_new(o, "attached_nodes", att);
    else
        json_decref(att);
    json_object_set_new(o, "vertices", json_integer((json_int_t)rig->vertex_count));
    json_object_set_new(o, "welded_vertices", json_integer((json_int_t)welded->vertex_count));
    json_object_set_new(o, "triangles", json_integer((json_int_t)rig->triangle_count));
    json_object_set_new(o, "morph_targets", json_integer((json_int_t)rig->target_count));
    size_t maxinf = 0;
    for (size_t v = 0; v < rig->vertex_count; ++v) {
        size_t n = rig->weight_offsets[v + 1] - rig->weight_offsets[v];
        if (n > maxinf)
            maxinf = n;
    }
    json_object_set_new(o, "max_influences", json_integer((json_int_t)maxinf));
    if (skin >= 0) {
        json_t *joints = json_array();
        for (size_t j = 0; j < rig->joint_count; ++j) {
            const skf_rig_joint *J = &rig->joints[j];
            json_t *jo = json_object();
            json_object_set_new(jo, "index", json_integer((json_int_t)j));
            json_object_set_new(jo, "node", json_integer(J->node));
            json_object_set_new(jo, "name", str_or_null(rig->nodes[J->node].name));
            json_object_set_new(jo, "parent", J->parent >= 0 ? json_integer(J->parent) : json_null());
            json_object_set_new(jo, "has_weight", json_boolean(J->has_weight));
            json_array_append_new(joints, jo);
        }
        json_object_set_new(o, "joints", joints);
    }
    skf_rig_free(rig);
    skf_rig_free(welded);
    *out = o;
    return SKF_OK;
}

static skf_status build_info(const skf_gltf *doc, const char *file, json_t **out, skf_warnings *w,
                             skf_error *err)
{
    json_t *root = json_object();
    json_object_set_new(root, "schema", json_string("skinfit-info/1"));
    json_object_set_new(root, "file", json_string(file));
    json_object_set_new(root, "nodes", json_integer((json_int_t)doc->node_count));

    json_t *meshes = json_array();
    for (size_t m = 0; m < doc->mesh_count; ++m) {
        const skf_gltf_mesh *me = &doc->meshes[m];
        json_t *mo = json_object();
        size_t verts = 0;
        for (size_t p = 0; p < me->primitive_count; ++p)
            for (size_t a = 0; a < me->primitives[p].attribute_count; ++a)
                if (!strcmp(me->primitives[p].attributes[a].name, "POSITION"))
                    verts += doc->accessors[me->primitives[p].attributes[a].accessor].count;
        json_t *users = json_array();
        bool skinned = false;
        for (size_t n = 0; n < doc->node_count; ++n)
            if (doc->nodes[n].mesh == (int)m) {
                json_array_append_new(users, json_integer((json_int_t)n));
                skinned |= doc->nodes[n].skin >= 0;
            }
        json_object_set_new(mo, "index", json_integer((json_int_t)m));
        json_object_set_new(mo, "name", str_or_null(me->name));
        json_object_set_new(mo, "primitives", json_integer((json_int_t)me->primitive_count));
        json_object_set_new(mo, "vertices", json_integer((json_int_t)verts));
        json_object_set_new(mo, "morph_targets",
                            json_integer(me->primitive_count ? (json_int_t)me->primitives[0].target_count : 0));
        json_object_set_new(mo, "nodes", users);
        json_object_set_new(mo, "skinned", json_boolean(skinned));
        json_array_append_new(meshes, mo);
    }
    json_object_set_new(root, "meshes", meshes);

    json_t *skins = json_array();
    for (size_t s = 0; s < doc->skin_count; ++s) {
        json_t *so;
        skf_status st = surface_json(doc, (int)s, &so, w, err);
        if (st) {
            json_decref(root);
            json_decref(skins);
            return st;
        }
        json_array_append_new(skins, so);
    }
    json_object_set_new(root, "skins", skins);
    json_t *un;
    skf_status st = surface_json(doc, -1, &un, w, err);
    if (st) {
        json_decref(root);
        return st;
    }
    json_object_set_new(root, "unskinned", un);

    json_t *clips = json_array();
    for (size_t a = 0; a < doc->animation_count; ++a) {
        skf_clip *c = NULL;
        if ((st = skf_clip_from_gltf(doc, (int)a, &c, err))) {
            json_decref(root);
            json_decref(clips);
            return st;
        }
        json_t *co = json_object();
        json_object_set_new(co, "index", json_integer((json_int_t)a));
        json_object_set_new(co, "name", str_or_null(c->name));
        json_object_set_new(co, "start", json_real(c->start));
        json_object_set_new(co, "end", json_real(c->end));
        json_object_set_new(co, "duration", json_real(c->duration));
        json_object_set_new(co, "channels", json_integer((json_int_t)c->channel_count));
        json_object_set_new(co, "max_keys", json_integer((json_int_t)c->max_keys));
        json_object_set_new(co, "total_keys", json_integer((json_int_t)c->total_keys));
        json_object_set_new(co, "key_rate", json_real(c->key_rate));
        json_object_set_new(co, "frames", json_integer((json_int_t)skf_clip_frame_count(c, 0)));
        json_t *paths = json_array(), *interps = json_array();
        for (int p = 0; p < 4; ++p)
            for (size_t k = 0; k < c->channel_count; ++k)
                if ((int)c->channels[k].path == p) {
                    json_array_append_new(paths, json_string(path_name((skf_gltf_path)p)));
                    break;
                }
        for (int i = 0; i < 3; ++i)
            for (size_t k = 0; k < c->channel_count; ++k)
                if ((int)c->channels[k].interpolation == i) {
                    json_array_append_new(interps, json_string(interp_name((skf_gltf_interp)i)));
                    break;
                }
        json_object_set_new(co, "paths", paths);
        json_object_set_new(co, "interpolations", interps);
        json_array_append_new(clips, co);
        skf_clip_free(c);
    }
    json_object_set_new(root, "clips", clips);

    json_t *morphs = json_array();
    for (size_t n = 0; n < doc->node_count; ++n) {
        const skf_gltf_node *nd = &doc->nodes[n];
        if (nd->mesh < 0)
            continue;
        const skf_gltf_mesh *me = &doc->meshes[nd->mesh];
        size_t nt = me->primitive_count ? me->primitives[0].target_count : 0;
        if (!nt)
            continue;
        json_t *mo = json_object(), *wts = json_array();
        for (size_t k = 0; k < nt; ++k) {
            double v = 0;
            if (nd->weights && nd->weight_count == nt)
                v = nd->weights[k];
            else if (me->weights && me->weight_count == nt)
                v = me->weights[k];
            json_array_append_new(wts, json_real(v));
        }
        json_object_set_new(mo, "node", json_integer((json_int_t)n));
        json_object_set_new(mo, "mesh", json_integer(nd->mesh));
        json_object_set_new(mo, "count", json_integer((json_int_t)nt));
        json_object_set_new(mo, "default_weights", wts);
        json_array_append_new(morphs, mo);
    }
    json_object_set_new(root, "morph_targets", morphs);
    *out = root;
    return SKF_OK;
}

static void print_surface(json_t *s, const char *label)
{
    printf("%s: %lld vertices (%lld welded), %lld triangles, %lld morph targets, nodes",
           label, json_integer_value(json_object_get(s, "vertices")),
           json_integer_value(json_object_get(s, "welded_vertices")),
           json_integer_value(json_object_get(s, "triangles")),
           json_integer_value(json_object_get(s, "morph_targets")));
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(s, "mesh_nodes"), i, v)
        printf(" %lld", json_integer_value(v));
    if (json_object_get(s, "attached_nodes")) {
        printf(" (attached to joints:");
        json_array_foreach(json_object_get(s, "attached_nodes"), i, v)
            printf(" %lld", json_integer_value(v));
        printf(")");
    }
    printf("\n");
}

static void print_text(json_t *root)
{
    size_t i, j;
    json_t *v, *u;
    printf("%s\n", json_string_value(json_object_get(root, "file")));
    printf("meshes (%zu):\n", json_array_size(json_object_get(root, "meshes")));
    json_array_foreach(json_object_get(root, "meshes"), i, v) {
        const char *n = json_string_value(json_object_get(v, "name"));
        printf("  [%zu] %-24s %6lld vertices, %lld primitives, %lld morph targets%s\n", i, n ? n : "-",
               json_integer_value(json_object_get(v, "vertices")),
               json_integer_value(json_object_get(v, "primitives")),
               json_integer_value(json_object_get(v, "morph_targets")),
               json_is_true(json_object_get(v, "skinned")) ? ", skinned" : "");
    }
    json_array_foreach(json_object_get(root, "skins"), i, v) {
        char label[64];
        snprintf(label, sizeof label, "skin %zu", i);
        print_surface(v, label);
        json_t *joints = json_object_get(v, "joints");
        size_t used = 0;
        json_array_foreach(joints, j, u) used += json_is_true(json_object_get(u, "has_weight"));
        printf("  joints (%zu, %zu carry weight):\n", json_array_size(joints), used);
        json_array_foreach(joints, j, u) {
            const char *n = json_string_value(json_object_get(u, "name"));
            json_t *p = json_object_get(u, "parent");
            char parent[32] = "-";
            if (json_is_integer(p))
                snprintf(parent, sizeof parent, "%lld", json_integer_value(p));
            printf("    [%2zu] %-28s parent %3s%s\n", j, n ? n : "-", parent,
                   json_is_true(json_object_get(u, "has_weight")) ? "  weighted" : "");
        }
    }
    print_surface(json_object_get(root, "unskinned"), "unskinned meshes");
    json_t *clips = json_object_get(root, "clips");
    printf("clips (%zu):\n", json_array_size(clips));
    json_array_foreach(clips, i, v) {
        const char *n = json_string_value(json_object_get(v, "name"));
        printf("  [%2zu] %-36s %7.3f s, %3lld channels, %3lld keys max (%.4g keys/s), %lld frames\n", i,
               n ? n : "-", json_real_value(json_object_get(v, "duration")),
               json_integer_value(json_object_get(v, "channels")),
               json_integer_value(json_object_get(v, "max_keys")),
               json_real_value(json_object_get(v, "key_rate")),
               json_integer_value(json_object_get(v, "frames")));
    }
    json_array_foreach(json_object_get(root, "morph_targets"), i, v)
        printf("morph targets: node %lld (mesh %lld): %lld targets\n",
               json_integer_value(json_object_get(v, "node")),
               json_integer_value(json_object_get(v, "mesh")),
               json_integer_value(json_object_get(v, "count")));
}

int cmd_info(int argc, char **argv)
{
    const char *file = NULL;
    bool as_json = false;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: skinfit info FILE [--json]\n\n"
                   "Describe a glTF/GLB file for skinning: meshes, each skin's surface (raw and\n"
                   "welded vertex counts, triangles), its joints with parents and whether they\n"
                   "carry weight, the unskinned meshes, clips (duration, channels, keys) and\n"
                   "morph targets. --json prints the stable schema of docs/info-json.md.\n");
            return EXIT_OK;
        } else if (!strcmp(argv[i], "--json")) {
            as_json = true;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage_error("info", "unknown option '%s'", argv[i]);
        } else if (!file) {
            file = argv[i];
        } else {
            return cli_usage_error("info", "one FILE expected, got '%s' too", argv[i]);
        }
    }
    if (!file)
        return cli_usage_error("info", "missing FILE");
    skf_error err = {0};
    skf_warnings w = {0};
    skf_gltf *doc = NULL;
    skf_status st = cli_gltf_load(file, &doc, &w, &err);
    json_t *root = NULL;
    if (!st)
        st = build_info(doc, file, &root, &w, &err);
    skf_gltf_free(doc);
    cli_print_warnings(&w);
    skf_warnings_release(&w);
    if (st)
        return cli_report_error(&err);
    if (as_json) {
        char *s = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
        if (s)
            printf("%s\n", s);
        skf_free(s);
    } else {
        print_text(root);
    }
    json_decref(root);
    return EXIT_OK;
}
