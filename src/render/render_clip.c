/* Heat-map scenes: the artist's clip as ground truth and one panel per rig,
 * each vertex carrying the error the report measures. Every number here comes
 * from the library's own routines — the transfer session for the solve,
 * skf_align_surfaces / skf_correspond / skf_correspondence_apply for the
 * target surface, skf_solver_skin for the rig's surface and
 * skf_quality_add_frame for the per-vertex error — so a panel cannot drift
 * from the table. See render.h for the contract. */
#include "skinfit/lbs.h"
#include "skinfit/math.h"
#include "skinfit/render.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct rig_panel {
    char *label;
    size_t n, tri_count;
    uint32_t *triangles;   /* welded rig triangles */
    double *positions;     /* [F*n*3] rig surface in source world space */
    double *errors;        /* [F*n] ‖s − u‖, rig units */
    double diagonal;
    skf_quality quality;
    double *frame_max_pct; /* [F] */
} rig_panel;

struct skf_render_clip {
    const skf_gltf *source;
    char *name;
    size_t F;
    double fps;
    skf_rig *src;          /* welded */
    double *src_seq;       /* [F*Ns*3] */
    skf_render_surface gt;
    rig_panel *rigs;
    size_t rig_count;
    skf_render_panel *panels;
    skf_render_scene scene;
};

static const char *doc_name(const skf_gltf *d)
{
    return d && d->path ? d->path : "glTF";
}

static void rig_panel_release(rig_panel *p)
{
    skf_free(p->label);
    skf_free(p->triangles);
    skf_free(p->positions);
    skf_free(p->errors);
    skf_free(p->frame_max_pct);
    memset(p, 0, sizeof *p);
}

void skf_render_clip_free(skf_render_clip *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->rig_count; ++i)
        rig_panel_release(&c->rigs[i]);
    skf_free(c->rigs);
    skf_free(c->panels);
    skf_free(c->name);
    skf_rig_free(c->src);
    skf_free(c->src_seq);
    skf_free(c);
}

/* Skin 0 of doc, welded (the transfer works on welded rigs). */
static skf_status welded_rig(const skf_gltf *doc, skf_rig **out, skf_warnings *warnings,
                             skf_error *err)
{
    *out = NULL;
    if (doc->skin_count == 0)
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: skins: no skin — not a rigged mesh",
                        doc_name(doc));
    skf_rig *raw;
    skf_status st = skf_rig_from_gltf(doc, 0, NULL, &raw, warnings, err);
    if (st)
        return st;
    if (raw->vertex_count == 0 || raw->triangle_count == 0) {
        skf_rig_free(raw);
        return skf_fail(err, SKF_ERR_ARGUMENT,
                        "%s: skins[0]: no skinned triangle mesh uses the skin", doc_name(doc));
    }
    st = skf_rig_weld(raw, out, NULL, err);
    skf_rig_free(raw);
    return st;
}

static void clip_names(const skf_gltf *doc, char *buf, size_t size)
{
    buf[0] = 0;
    size_t used = 0;
    for (size_t i = 0; i < doc->animation_count && used + 1 < size; ++i) {
        const char *n = doc->animations[i].name ? doc->animations[i].name : "(unnamed)";
        const char *bar = strrchr(n, '|');
        int w = snprintf(buf + used, size - used, "%s%s", i ? ", " : "", bar ? bar + 1 : n);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    if (doc->animation_count == 0)
        snprintf(buf, size, "none");
}

skf_status skf_render_clip_new(const skf_gltf *source, const char *clip_name, double fps,
                               skf_render_clip **out, skf_warnings *warnings, skf_error *err)
{
    *out = NULL;
    int a = skf_gltf_find_animation(source, clip_name);
    if (a < 0) {
        char names[512];
        clip_names(source, names, sizeof names);
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: animations: no clip named '%s' (available: %s)",
                        doc_name(source), clip_name, names);
    }
    skf_render_clip *c = skf_calloc(1, sizeof *c);
    if (!c)
        return skf_fail(err, SKF_ERR_NOMEM, "render: out of memory");
    c->source = source;
    skf_clip *clip = NULL;
    skf_pose pose;
    memset(&pose, 0, sizeof pose);
    skf_status st = welded_rig(source, &c->src, warnings, err);
    if (st)
        goto fail;
    if ((st = skf_clip_from_gltf(source, a, &clip, err)))
        goto fail;
    if (clip->channel_count == 0 || clip->total_keys == 0 ||
        skf_clip_frame_count(clip, fps) == 0) {
        st = skf_fail(err, SKF_ERR_ARGUMENT, "%s: animations[%d] ('%s'): the clip has no frames",
                      doc_name(source), a, clip_name);
        goto fail;
    }
    c->fps = skf_clip_frame_fps(clip, fps);
    c->F = skf_clip_frame_count(clip, fps);
    c->name = skf_strdup(source->animations[a].name ? source->animations[a].name : clip_name);
    size_t Ns = c->src->vertex_count;
    c->src_seq = skf_malloc_array(c->F * Ns, 3 * sizeof(double));
    if (!c->name || !c->src_seq) {
        st = skf_fail(err, SKF_ERR_NOMEM, "%s: %zu frames x %zu vertices: out of memory",
                      doc_name(source), c->F, Ns);
        goto fail;
    }
    if ((st = skf_pose_init(&pose, c->src, err)))
        goto fail;
    for (size_t f = 0; f < c->F; ++f) {
        skf_pose_eval(c->src, clip, clip->start + (double)f / c->fps, &pose);
        skf_skin(c->src, &pose, c->src_seq + f * Ns * 3, 0);
    }
    skf_pose_release(&pose);
    skf_clip_free(clip);
    c->gt = (skf_render_surface){Ns, c->src_seq, c->src->triangle_count, c->src->triangles};
    c->panels = skf_calloc(1, sizeof *c->panels);
    if (!c->panels) {
        st = skf_fail(err, SKF_ERR_NOMEM, "render: out of memory");
        goto fail;
    }
    c->panels[0] = (skf_render_panel){"artist (ground truth)", c->gt, NULL, 0, false};
    c->scene = (skf_render_scene){c->F, &c->gt, 1, c->panels};
    *out = c;
    return SKF_OK;
fail:
    skf_pose_release(&pose);
    skf_clip_free(clip);
    skf_render_clip_free(c);
    return st;
}

size_t skf_render_clip_frame_count(const skf_render_clip *c) { return c->F; }
double skf_render_clip_fps(const skf_render_clip *c) { return c->fps; }
const char *skf_render_clip_name(const skf_render_clip *c) { return c->name; }
const skf_render_scene *skf_render_clip_scene(const skf_render_clip *c) { return &c->scene; }
size_t skf_render_clip_rig_count(const skf_render_clip *c) { return c->rig_count; }

skf_quality skf_render_clip_rig_quality(const skf_render_clip *c, size_t rig)
{
    return c->rigs[rig].quality;
}

const double *skf_render_clip_rig_errors(const skf_render_clip *c, size_t rig, size_t frame,
                                         size_t *vertex_count)
{
    if (vertex_count)
        *vertex_count = c->rigs[rig].n;
    return c->rigs[rig].errors + frame * c->rigs[rig].n;
}

double skf_render_clip_rig_diagonal(const skf_render_clip *c, size_t rig)
{
    return c->rigs[rig].diagonal;
}

double skf_render_clip_rig_frame_max_pct(const skf_render_clip *c, size_t rig, size_t frame)
{
    return c->rigs[rig].frame_max_pct[frame];
}

size_t skf_render_clip_worst_frame(const skf_render_clip *c)
{
    size_t best = 0;
    double worst = -1;
    for (size_t r = 0; r < c->rig_count; ++r)
        for (size_t f = 0; f < c->F; ++f)
            if (c->rigs[r].frame_max_pct[f] > worst) {
                worst = c->rigs[r].frame_max_pct[f];
                best = f;
            }
    return best;
}

static skf_status rebuild_panels(skf_render_clip *c, skf_error *err)
{
    skf_render_panel *p = skf_realloc_array(c->panels, c->rig_count + 1, sizeof *p);
    if (!p)
        return skf_fail(err, SKF_ERR_NOMEM, "render: out of memory");
    c->panels = p;
    for (size_t r = 0; r < c->rig_count; ++r) {
        const rig_panel *g = &c->rigs[r];
        p[r + 1] = (skf_render_panel){g->label,
                                      {g->n, g->positions, g->tri_count, g->triangles},
                                      g->errors,
                                      g->diagonal,
                                      true};
    }
    c->scene = (skf_render_scene){c->F, &c->gt, c->rig_count + 1, c->panels};
    return SKF_OK;
}

skf_status skf_render_clip_add_transforms(skf_render_clip *c, const char *label,
                                          const skf_gltf *rig_doc, const skf_alignment *alignment,
                                          const double *transforms, skf_warnings *warnings,
                                          skf_error *err)
{
    if (c->rig_count + 1 >= SKF_RENDER_MAX_PANELS)
        return skf_fail(err, SKF_ERR_LIMIT, "render: more than %d rigs", SKF_RENDER_MAX_PANELS - 1);
    rig_panel g;
    memset(&g, 0, sizeof g);
    skf_rig *T = NULL;
    skf_solver *solver = NULL;
    skf_correspondence corr;
    memset(&corr, 0, sizeof corr);
    double *s = NULL, *u = NULL;
    const skf_rig *S = c->src;
    skf_status st = welded_rig(rig_doc, &T, warnings, err);
    if (st)
        return st;
    skf_alignment al;
    if (alignment) {
        al = *alignment;
    } else {
        st = skf_align_surfaces(S->rest_positions, S->vertex_count, S->triangles, S->triangle_count,
                                T->rest_positions, T->vertex_count, T->triangles, T->triangle_count,
                                NULL, &al, err);
        if (st) {
            skf_error_prefix(err, "%s vs %s", doc_name(c->source), doc_name(rig_doc));
            goto done;
        }
    }
    double source_to_target[16];
    if (!skf_mat4_invert(source_to_target, al.target_to_source)) {
        st = skf_fail(err, SKF_ERR_NUMERIC, "%s vs %s: alignment: singular similarity",
                      doc_name(c->source), doc_name(rig_doc));
        goto done;
    }
    if ((st = skf_correspond(S->rest_positions, S->vertex_count, S->triangles, S->triangle_count,
                             T->rest_positions, T->vertex_count, &al, NULL, 0, &corr, err)))
        goto done;
    size_t n = T->vertex_count, B = T->joint_count, F = c->F;
    if (corr.count != n) {
        st = skf_fail(err, SKF_ERR_ARGUMENT, "%s: correspondence covers %zu of %zu vertices",
                      doc_name(rig_doc), corr.count, n);
        goto done;
    }
    skf_solve_rig sr = {n, T->rest_positions, T->weight_offsets, T->weight_joints, T->weights, B};
    if ((st = skf_solver_new(&sr, NULL, &solver, err)))
        goto done;
    g.label = skf_strdup(label ? label : doc_name(rig_doc));
    g.triangles = skf_malloc_array(T->triangle_count * 3, sizeof(uint32_t));
    g.positions = skf_malloc_array(F * n, 3 * sizeof(double));
    g.errors = skf_malloc_array(F * n, sizeof(double));
    g.frame_max_pct = skf_malloc_array(F, sizeof(double));
    s = skf_malloc_array(n, 3 * sizeof(double));
    u = skf_malloc_array(n, 3 * sizeof(double));
    if (!g.label || !g.triangles || !g.positions || !g.errors || !g.frame_max_pct || !s || !u) {
        st = skf_fail(err, SKF_ERR_NOMEM, "%s: %zu frames x %zu vertices: out of memory",
                      doc_name(rig_doc), F, n);
        goto done;
    }
    memcpy(g.triangles, T->triangles, T->triangle_count * 3 * sizeof(uint32_t));
    g.n = n;
    g.tri_count = T->triangle_count;
    g.diagonal = skf_bbox_diagonal(n, T->rest_positions);
    skf_quality_acc clip_acc;
    skf_quality_init(&clip_acc, g.diagonal);
    for (size_t f = 0; f < F; ++f) {
        skf_solver_skin(solver, transforms + f * B * 12, s);
        skf_correspondence_apply(&corr, source_to_target, c->src_seq + f * S->vertex_count * 3, u);
        skf_quality_acc fa;
        skf_quality_init(&fa, g.diagonal);
        skf_quality_add_frame(&fa, n, s, u, T->rest_positions, g.errors + f * n);
        g.frame_max_pct[f] = skf_quality_result(&fa).max_error_pct;
        skf_quality_merge(&clip_acc, &fa);
        double *dst = g.positions + f * n * 3;
        for (size_t i = 0; i < n; ++i) {
            if (al.identity)
                memcpy(dst + 3 * i, s + 3 * i, 3 * sizeof(double));
            else
                skf_mat4_transform_point(dst + 3 * i, al.target_to_source, s + 3 * i);
        }
    }
    g.quality = skf_quality_result(&clip_acc);
    rig_panel *rigs = skf_realloc_array(c->rigs, c->rig_count + 1, sizeof *rigs);
    if (!rigs) {
        st = skf_fail(err, SKF_ERR_NOMEM, "render: out of memory");
        goto done;
    }
    c->rigs = rigs;
    c->rigs[c->rig_count++] = g;
    memset(&g, 0, sizeof g);
    st = rebuild_panels(c, err);
    if (st)
        rig_panel_release(&c->rigs[--c->rig_count]);
done:
    rig_panel_release(&g);
    skf_free(s);
    skf_free(u);
    skf_solver_free(solver);
    skf_correspondence_release(&corr);
    skf_rig_free(T);
    return st;
}

skf_status skf_render_clip_add_solved(skf_render_clip *c, const char *label,
                                      const skf_gltf *rig_doc, const skf_transfer_options *opt,
                                      skf_warnings *warnings, skf_error *err)
{
    skf_transfer_options o;
    memset(&o, 0, sizeof o);
    if (opt)
        o = *opt;
    o.mode = SKF_TRANSFER_FREE;
    o.no_control = true;
    o.fps = c->fps;
    o.max_constraints = 0; /* every welded vertex: the panel shows every vertex's error */
    skf_transfer *t = NULL;
    skf_status st = skf_transfer_new(c->source, rig_doc, &o, &t, warnings, err);
    if (st)
        return st;
    skf_transfer_clip tc;
    memset(&tc, 0, sizeof tc);
    st = skf_transfer_run_clip(t, c->name, &tc, NULL, err);
    if (!st && (tc.frames != c->F || !tc.free_transforms))
        st = skf_fail(err, SKF_ERR_ARGUMENT, "%s: clip '%s': solved %zu frames, expected %zu",
                      doc_name(rig_doc), c->name, tc.frames, c->F);
    if (!st) {
        skf_transfer_info info;
        skf_transfer_get_info(t, &info);
        st = skf_render_clip_add_transforms(c, label, rig_doc, &info.alignment, tc.free_transforms,
                                            warnings, err);
    }
    skf_transfer_clip_release(&tc);
    skf_transfer_free(t);
    return st;
}

skf_status skf_render_clip_add_baked(skf_render_clip *c, const char *label,
                                     const skf_gltf *rig_doc, skf_warnings *warnings,
                                     skf_error *err)
{
    int a = skf_gltf_find_animation(rig_doc, c->name);
    if (a < 0) {
        char names[512];
        clip_names(rig_doc, names, sizeof names);
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: animations: no baked clip named '%s' (available: %s)",
                        doc_name(rig_doc), c->name, names);
    }
    skf_rig *rig = NULL;
    skf_clip *clip = NULL;
    skf_pose pose;
    memset(&pose, 0, sizeof pose);
    double *T = NULL;
    skf_status st = welded_rig(rig_doc, &rig, warnings, err);
    if (!st)
        st = skf_clip_from_gltf(rig_doc, a, &clip, err);
    if (!st)
        st = skf_pose_init(&pose, rig, err);
    if (!st) {
        size_t B = rig->joint_count;
        T = skf_malloc_array(c->F * B, 12 * sizeof(double));
        if (!T)
            st = skf_fail(err, SKF_ERR_NOMEM, "render: out of memory");
        for (size_t f = 0; !st && f < c->F; ++f) {
            skf_pose_eval(rig, clip, clip->start + (double)f / c->fps, &pose);
            for (size_t i = 0; i < B; ++i)
                skf_transform34_from_mat4(pose.mesh_to_world + 16 * i, T + (f * B + i) * 12);
        }
    }
    if (!st)
        st = skf_render_clip_add_transforms(c, label, rig_doc, NULL, T, warnings, err);
    skf_free(T);
    skf_pose_release(&pose);
    skf_clip_free(clip);
    skf_rig_free(rig);
    return st;
}
