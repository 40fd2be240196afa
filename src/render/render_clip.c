/* Heat-map scenes: the artist's clip as ground truth and one panel per rig,
 * each vertex carrying the error the report measures. Every number here comes
 * from the transfer session (skinfit/transfer.h): its welded rigs, solve
 * space (each rig's world at bind pose), solvers (skf_solver_skin gives the
 * rig's surface), correspondence (skf_correspondence_apply gives the target
 * surface) and skf_quality_add_frame for the per-vertex error — the calls the
 * session's own metrics make — so a panel cannot drift from the table. See
 * render.h for the contract. */
#include "skinfit/rig.h"
#include "skinfit/math.h"
#include "skinfit/render.h"

/* The transfer session's own fields (solve space, welded rigs, solvers,
 * correspondence): the panels read them instead of re-deriving them, so the
 * picture uses exactly the session's numbers. */
#include "skinfit/solve.h"
#include "skinfit/transfer.h"

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
    double *frame_mean_pct; /* [F] */
} rig_panel;

struct skf_render_clip {
    const skf_gltf *source;
    char *name;
    size_t F;
    double fps;
    skf_transfer *ctrl;    /* session source → (none): welded source rig, control solver */
    double *src_seq;       /* [F*Ns*3] source world positions */
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
    skf_free(p->frame_mean_pct);
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
    skf_transfer_free(c->ctrl);
    skf_free(c->src_seq);
    skf_free(c);
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
    skf_transfer_options o;
    memset(&o, 0, sizeof o);
    skf_status st = skf_transfer_new(source, NULL, &o, &c->ctrl, warnings, err);
    if (st)
        goto fail;
    skf_transfer_view cv;
    skf_transfer_get_view(c->ctrl, &cv);
    const skf_rig *S = cv.source;
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
    if (c->F > skf_limit(SKF_LIMIT_FRAMES)) {
        st = skf_fail(err, SKF_ERR_LIMIT, "%s: animations[%d] ('%s'): %zu frames exceed %s",
                      doc_name(source), a, clip_name, c->F, skf_limit_exceeded(SKF_LIMIT_FRAMES).text);
        goto fail;
    }
    c->name = skf_strdup(source->animations[a].name ? source->animations[a].name : clip_name);
    size_t Ns = S->vertex_count;
    c->src_seq = skf_malloc_array(c->F * Ns, 3 * sizeof(double));
    if (!c->name || !c->src_seq) {
        st = skf_fail(err, SKF_ERR_NOMEM, "%s: %zu frames x %zu vertices: out of memory",
                      doc_name(source), c->F, Ns);
        goto fail;
    }
    /* the clip played on the source rig, as skf_transfer_run_clip plays it */
    if ((st = skf_pose_init(&pose, S, err)))
        goto fail;
    for (size_t f = 0; f < c->F; ++f) {
        skf_pose_eval(S, clip, clip->start + (double)f / c->fps, &pose);
        skf_skin(S, &pose, c->src_seq + f * Ns * 3, 0);
    }
    skf_pose_release(&pose);
    skf_clip_free(clip);
    c->gt = (skf_render_surface){Ns, c->src_seq, S->triangle_count, S->triangles};
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

const double *skf_render_clip_rig_positions(const skf_render_clip *c, size_t rig, size_t frame)
{
    return c->rigs[rig].positions + frame * c->rigs[rig].n * 3;
}

double skf_render_clip_rig_diagonal(const skf_render_clip *c, size_t rig)
{
    return c->rigs[rig].diagonal;
}

double skf_render_clip_rig_frame_max_pct(const skf_render_clip *c, size_t rig, size_t frame)
{
    return c->rigs[rig].frame_max_pct[frame];
}

const double *skf_render_clip_rig_frame_pct(const skf_render_clip *c, size_t rig, bool mean)
{
    return mean ? c->rigs[rig].frame_mean_pct : c->rigs[rig].frame_max_pct;
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

/* One rig panel: per frame s = the solver's skinning of T_f, u = the source
 * frame carried by corr (NULL: u is the source frame itself — the control),
 * errors from skf_quality_add_frame against rest; display positions are s
 * mapped by t2s (NULL: identity) into the source's world. */
typedef struct panel_source {
    const skf_solver *solver;
    size_t n, B;
    const uint32_t *triangles;
    size_t triangle_count;
    const double *rest;
    double diagonal;
    const skf_correspondence *corr;
    const double *s2t, *t2s;
} panel_source;

static skf_status add_panel(skf_render_clip *c, const char *label, const panel_source *ps,
                            const double *transforms, skf_error *err)
{
    if (c->rig_count + 1 >= SKF_RENDER_MAX_PANELS)
        return skf_fail(err, SKF_ERR_LIMIT, "render: more than %d rigs", SKF_RENDER_MAX_PANELS - 1);
    size_t n = ps->n, F = c->F, Ns = c->gt.vertex_count;
    rig_panel g;
    memset(&g, 0, sizeof g);
    skf_status st = SKF_OK;
    g.label = skf_strdup(label ? label : "rig");
    g.triangles = skf_malloc_array(ps->triangle_count * 3, sizeof(uint32_t));
    g.positions = skf_malloc_array(F * n, 3 * sizeof(double));
    g.errors = skf_malloc_array(F * n, sizeof(double));
    g.frame_max_pct = skf_malloc_array(F, sizeof(double));
    g.frame_mean_pct = skf_malloc_array(F, sizeof(double));
    double *s = skf_malloc_array(n, 3 * sizeof(double));
    double *u = ps->corr ? skf_malloc_array(n, 3 * sizeof(double)) : NULL;
    if (!g.label || !g.triangles || !g.positions || !g.errors || !g.frame_max_pct ||
        !g.frame_mean_pct || !s ||
        (ps->corr && !u)) {
        st = skf_fail(err, SKF_ERR_NOMEM, "render: %zu frames x %zu vertices: out of memory", F, n);
        goto done;
    }
    memcpy(g.triangles, ps->triangles, ps->triangle_count * 3 * sizeof(uint32_t));
    g.n = n;
    g.tri_count = ps->triangle_count;
    g.diagonal = ps->diagonal;
    skf_quality_acc clip_acc;
    skf_quality_init(&clip_acc, g.diagonal);
    for (size_t f = 0; f < F; ++f) {
        skf_solver_skin(ps->solver, transforms + f * ps->B * 12, s);
        const double *uf = c->src_seq + f * Ns * 3;
        if (ps->corr) {
            skf_correspondence_apply(ps->corr, ps->s2t, uf, u);
            uf = u;
        }
        skf_quality_acc fa;
        skf_quality_init(&fa, g.diagonal);
        skf_quality_add_frame(&fa, n, s, uf, ps->rest, g.errors + f * n);
        skf_quality fq = skf_quality_result(&fa);
        g.frame_max_pct[f] = fq.max_error_pct;
        g.frame_mean_pct[f] = fq.mean_error_pct;
        skf_quality_merge(&clip_acc, &fa);
        double *dst = g.positions + f * n * 3;
        for (size_t i = 0; i < n; ++i) {
            if (ps->t2s)
                skf_mat4_transform_point(dst + 3 * i, ps->t2s, s + 3 * i);
            else
                memcpy(dst + 3 * i, s + 3 * i, 3 * sizeof(double));
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
    return st;
}

/* A session source → rig_doc over every welded target vertex, at the clip's fps. */
static skf_status session_for(const skf_render_clip *c, const skf_gltf *rig_doc,
                              const skf_transfer_options *opt, skf_transfer **out,
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
    skf_status st = skf_transfer_new(c->source, rig_doc, &o, out, warnings, err);
    if (st)
        return st;
    skf_transfer_view v;
    skf_transfer_get_view(*out, &v);
    bool in_order = v.correspondence->count == v.target->vertex_count;
    for (size_t i = 0; in_order && i < v.correspondence->count; ++i)
        in_order = v.correspondence->target_vertex[i] == i;
    if (!in_order) {
        skf_transfer_free(*out);
        *out = NULL;
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: the constraints do not cover the welded vertices in order",
                        doc_name(rig_doc));
    }
    return SKF_OK;
}

static panel_source session_panel(const skf_transfer *t)
{
    skf_transfer_view v;
    skf_transfer_get_view(t, &v);
    panel_source ps = {v.target_solver,
                       v.target->vertex_count,
                       v.target->joint_count,
                       v.target->triangles,
                       v.target->triangle_count,
                       v.constraint_rest,
                       v.target_diagonal,
                       v.correspondence,
                       v.source_to_target,
                       v.source_to_target ? v.alignment->target_to_source : NULL};
    return ps;
}

skf_status skf_render_clip_add_transforms(skf_render_clip *c, const char *label,
                                          const skf_gltf *rig_doc, const double *transforms,
                                          skf_warnings *warnings, skf_error *err)
{
    skf_transfer *t = NULL;
    skf_status st = session_for(c, rig_doc, NULL, &t, warnings, err);
    if (st)
        return st;
    panel_source ps = session_panel(t);
    st = add_panel(c, label ? label : doc_name(rig_doc), &ps, transforms, err);
    skf_transfer_free(t);
    return st;
}

skf_status skf_render_clip_add_solved(skf_render_clip *c, const char *label,
                                      const skf_gltf *rig_doc, const skf_transfer_options *opt,
                                      skf_warnings *warnings, skf_error *err)
{
    skf_transfer *t = NULL;
    skf_status st = session_for(c, rig_doc, opt, &t, warnings, err);
    if (st)
        return st;
    skf_transfer_clip tc;
    memset(&tc, 0, sizeof tc);
    st = skf_transfer_run_clip(t, c->name, &tc, NULL, err);
    if (!st && (tc.frames != c->F || !tc.free_transforms))
        st = skf_fail(err, SKF_ERR_ARGUMENT, "%s: clip '%s': solved %zu frames, expected %zu",
                      doc_name(rig_doc), c->name, tc.frames, c->F);
    if (!st) {
        panel_source ps = session_panel(t);
        st = add_panel(c, label ? label : doc_name(rig_doc), &ps, tc.free_transforms, err);
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
    skf_transfer *t = NULL;
    skf_clip *clip = NULL;
    skf_pose pose;
    memset(&pose, 0, sizeof pose);
    double *T = NULL;
    skf_status st = session_for(c, rig_doc, NULL, &t, warnings, err);
    if (!st)
        st = skf_clip_from_gltf(rig_doc, a, &clip, err);
    skf_transfer_view v;
    memset(&v, 0, sizeof v);
    if (!st) {
        skf_transfer_get_view(t, &v);
        st = skf_pose_init(&pose, v.target, err);
    }
    double world_to_mesh[16];
    if (!st && !skf_mat4_invert(world_to_mesh, v.target_mesh_to_world))
        st = skf_fail(err, SKF_ERR_NUMERIC, "%s: the skinned mesh node's transform is singular",
                      doc_name(rig_doc));
    if (!st) {
        size_t B = v.target->joint_count;
        T = skf_malloc_array(c->F * B, 12 * sizeof(double));
        if (!T)
            st = skf_fail(err, SKF_ERR_NOMEM, "render: out of memory");
        for (size_t f = 0; !st && f < c->F; ++f) {
            skf_pose_eval(v.target, clip, clip->start + (double)f / c->fps, &pose);
            for (size_t i = 0; i < B; ++i) {
                /* glTF skinning matrix (mesh → world) into the session's solve
                 * space (rest_world → world) */
                double m[16];
                skf_mat4_mul(m, pose.mesh_to_world + 16 * i, world_to_mesh);
                skf_transform34_from_mat4(m, T + (f * B + i) * 12);
            }
        }
    }
    if (!st) {
        panel_source ps = session_panel(t);
        st = add_panel(c, label ? label : doc_name(rig_doc), &ps, T, err);
    }
    skf_free(T);
    skf_pose_release(&pose);
    skf_clip_free(clip);
    skf_transfer_free(t);
    return st;
}

skf_status skf_render_clip_add_control(skf_render_clip *c, const char *label, skf_error *err)
{
    skf_transfer_view v;
    skf_transfer_get_view(c->ctrl, &v);
    const skf_rig *S = v.source;
    size_t B = S->joint_count, F = c->F;
    double *T = skf_malloc_array(F * B, 12 * sizeof(double));
    if (!T)
        return skf_fail(err, SKF_ERR_NOMEM, "render: control: out of memory");
    /* as the session's control: identity start, the session's source solver */
    for (size_t i = 0; i < B; ++i)
        skf_transform34_identity(T + i * 12);
    skf_status st = skf_solver_clip(v.source_solver, F, c->src_seq, T, NULL, NULL, err);
    if (!st) {
        panel_source ps = {v.source_solver, S->vertex_count, B, S->triangles, S->triangle_count,
                           v.source_rest_world, v.source_diagonal, NULL, NULL, NULL};
        st = add_panel(c, label ? label : "artist rig (control)", &ps, T, err);
    }
    skf_free(T);
    return st;
}
