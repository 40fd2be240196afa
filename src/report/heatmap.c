/* Heat-map scenes: the artist's clip as ground truth and one panel per run,
 * each vertex carrying the error the transfer measured. Every number here is
 * one the transfer returned (skinfit/transfer.h, vertex_output): its solved
 * surface, its per-vertex errors (the values its quality table is computed
 * from) and its alignment. Scenes solved on the fly open one transfer session
 * per rig and solve each clip once. See report.h for the contract. */
#include "skinfit/report.h"
#include "skinfit/math.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct rig_panel {
    char *label;
    size_t n, tri_count;
    const uint32_t *triangles; /* the rig's welded triangles */
    const double *positions;   /* [F*n*3] rig surface in the source's world */
    const double *errors;      /* [F*n] ‖s − u‖, rig units (0 where not measured) */
    uint32_t *own_triangles;   /* the copies the three point to, or NULL where they */
    double *own_positions;     /* borrow the clip's arrays (skf_heatmap_new_borrowed) */
    double *own_errors;
    uint8_t *measured;     /* [n] or NULL: every vertex measured */
    double diagonal;
    skf_transfer_metrics metrics; /* figures and per-frame arrays (owned), no per-vertex arrays */
} rig_panel;

struct skf_heatmap {
    skf_transfer *session; /* skf_heatmap_play: source → (none), control solver */
    const skf_gltf *source;
    char *name;
    size_t F;
    double fps;
    bool borrow;           /* skf_heatmap_new_borrowed: point at the clips' arrays */
    skf_render_surface gt;
    uint32_t *gt_triangles;
    double *gt_positions;  /* [F*Ns*3] source world (NULL when borrowed: gt points at the clip's) */
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
    skf_free(p->own_triangles);
    skf_free(p->own_positions);
    skf_free(p->own_errors);
    skf_free(p->measured);
    skf_free(p->metrics.frame_quality);
    skf_free(p->metrics.frame_mean_pct);
    skf_free(p->metrics.frame_max_pct);
    skf_free(p->metrics.frame_sweeps);
    memset(p, 0, sizeof *p);
}

void skf_heatmap_free(skf_heatmap *h)
{
    if (!h)
        return;
    for (size_t i = 0; i < h->rig_count; ++i)
        rig_panel_release(&h->rigs[i]);
    skf_free(h->rigs);
    skf_free(h->panels);
    skf_free(h->name);
    skf_free(h->gt_triangles);
    skf_free(h->gt_positions);
    skf_transfer_free(h->session);
    skf_free(h);
}

static void *dup_array(const void *src, size_t count, size_t size)
{
    void *p = skf_malloc_array(count ? count : 1, size);
    if (p && count)
        memcpy(p, src, count * size);
    return p;
}

static skf_status heatmap_new(const skf_transfer_clip *clip, bool borrow, skf_heatmap **out, skf_error *err)
{
    *out = NULL;
    const char *cn = clip->name ? clip->name : "clip";
    if (!clip->source_surface || !clip->source_mesh.triangles)
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: the transfer ran without vertex output", cn);
    skf_heatmap *h = skf_calloc(1, sizeof *h);
    if (!h)
        return skf_fail(err, SKF_ERR_NOMEM, "report: out of memory");
    const skf_transfer_mesh *m = &clip->source_mesh;
    h->F = clip->frames;
    h->fps = clip->fps;
    h->name = skf_strdup(cn);
    h->borrow = borrow;
    if (!borrow) {
        h->gt_triangles = dup_array(m->triangles, 3 * m->triangle_count, sizeof(uint32_t));
        h->gt_positions = dup_array(clip->source_surface, h->F * m->vertex_count * 3, sizeof(double));
    }
    h->panels = skf_calloc(1, sizeof *h->panels);
    if (!h->name || (!borrow && (!h->gt_triangles || !h->gt_positions)) || !h->panels) {
        skf_heatmap_free(h);
        return skf_fail(err, SKF_ERR_NOMEM, "%s: %zu frames x %zu vertices: out of memory", cn, clip->frames,
                        m->vertex_count);
    }
    h->gt = borrow ? (skf_render_surface){m->vertex_count, clip->source_surface, m->triangle_count, m->triangles}
                   : (skf_render_surface){m->vertex_count, h->gt_positions, m->triangle_count, h->gt_triangles};
    h->panels[0] = (skf_render_panel){"artist (ground truth)", h->gt, NULL, 0, false, NULL};
    h->scene = (skf_render_scene){h->F, &h->gt, 1, h->panels};
    *out = h;
    return SKF_OK;
}

skf_status skf_heatmap_new(const skf_transfer_clip *clip, skf_heatmap **out, skf_error *err)
{
    return heatmap_new(clip, false, out, err);
}

skf_status skf_heatmap_new_borrowed(const skf_transfer_clip *clip, skf_heatmap **out, skf_error *err)
{
    return heatmap_new(clip, true, out, err);
}

size_t skf_heatmap_frame_count(const skf_heatmap *h) { return h->F; }
double skf_heatmap_fps(const skf_heatmap *h) { return h->fps; }
const char *skf_heatmap_clip_name(const skf_heatmap *h) { return h->name; }
const skf_render_scene *skf_heatmap_scene(const skf_heatmap *h) { return &h->scene; }
size_t skf_heatmap_rig_count(const skf_heatmap *h) { return h->rig_count; }

const skf_transfer_metrics *skf_heatmap_rig_metrics(const skf_heatmap *h, size_t rig)
{
    return &h->rigs[rig].metrics;
}

const double *skf_heatmap_rig_errors(const skf_heatmap *h, size_t rig, size_t frame, size_t *vertex_count)
{
    if (vertex_count)
        *vertex_count = h->rigs[rig].n;
    return h->rigs[rig].errors + frame * h->rigs[rig].n;
}

const double *skf_heatmap_rig_positions(const skf_heatmap *h, size_t rig, size_t frame)
{
    return h->rigs[rig].positions + frame * h->rigs[rig].n * 3;
}

double skf_heatmap_rig_diagonal(const skf_heatmap *h, size_t rig)
{
    return h->rigs[rig].diagonal;
}

size_t skf_heatmap_worst_frame(const skf_heatmap *h)
{
    size_t best = 0;
    double worst = -1;
    for (size_t r = 0; r < h->rig_count; ++r)
        for (size_t f = 0; f < h->F; ++f)
            if (h->rigs[r].metrics.frame_max_pct[f] > worst) {
                worst = h->rigs[r].metrics.frame_max_pct[f];
                best = f;
            }
    return best;
}

static skf_status rebuild_panels(skf_heatmap *h, skf_error *err)
{
    skf_render_panel *p = skf_realloc_array(h->panels, h->rig_count + 1, sizeof *p);
    if (!p)
        return skf_fail(err, SKF_ERR_NOMEM, "report: out of memory");
    h->panels = p;
    for (size_t r = 0; r < h->rig_count; ++r) {
        const rig_panel *g = &h->rigs[r];
        p[r + 1] = (skf_render_panel){g->label,
                                      {g->n, g->positions, g->tri_count, g->triangles},
                                      g->errors,
                                      g->diagonal,
                                      true,
                                      g->measured};
    }
    h->scene = (skf_render_scene){h->F, &h->gt, h->rig_count + 1, h->panels};
    return SKF_OK;
}

/* The per-frame figures of m (no per-vertex arrays): owned copies. */
static bool copy_figures(skf_transfer_metrics *dst, const skf_transfer_metrics *m, size_t F)
{
    *dst = *m;
    dst->vertex_errors = dst->surface = NULL;
    dst->measured_count = 0;
    dst->frame_quality = dup_array(m->frame_quality, F, sizeof(double));
    dst->frame_mean_pct = dup_array(m->frame_mean_pct, F, sizeof(double));
    dst->frame_max_pct = dup_array(m->frame_max_pct, F, sizeof(double));
    dst->frame_sweeps = m->frame_sweeps ? dup_array(m->frame_sweeps, F, sizeof(int)) : NULL;
    return dst->frame_quality && dst->frame_mean_pct && dst->frame_max_pct &&
           (dst->frame_sweeps || !m->frame_sweeps);
}

skf_status skf_heatmap_add_run(skf_heatmap *h, const char *label, const skf_transfer_clip *clip,
                               skf_report_run run, const skf_alignment *alignment, skf_error *err)
{
    static const char *const run_names[] = {"control", "free", "rotation-only"};
    const char *cn = clip->name ? clip->name : "clip";
    if ((unsigned)run > SKF_REPORT_ROTATION_ONLY)
        return skf_fail(err, SKF_ERR_ARGUMENT, "report: run %d is not control, free or rotation-only", (int)run);
    const skf_transfer_metrics *m = run == SKF_REPORT_CONTROL ? &clip->control
                                    : run == SKF_REPORT_FREE  ? &clip->free
                                                              : &clip->rotation_only;
    const bool target = run != SKF_REPORT_CONTROL;
    const skf_transfer_mesh *mesh = target ? &clip->target_mesh : &clip->source_mesh;
    if (!m->present)
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: no %s run to draw", cn, run_names[run]);
    if (!m->vertex_errors || !m->surface || !mesh->triangles || (target && !clip->constraint_vertex))
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: %s: the transfer ran without vertex output", cn,
                        run_names[run]);
    if (clip->frames != h->F)
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: %s: %zu frames, the scene has %zu", cn, run_names[run],
                        clip->frames, h->F);
    if (h->rig_count + 1 >= SKF_RENDER_MAX_PANELS)
        return skf_fail(err, SKF_ERR_LIMIT, "render: more than %d rigs", SKF_RENDER_MAX_PANELS - 1);
    size_t n = mesh->vertex_count, F = h->F, C = m->measured_count;
    rig_panel g;
    memset(&g, 0, sizeof g);
    skf_status st = SKF_OK;
    /* which welded vertex measured vertex c is: itself for the control and
     * when the constraints are every target vertex in order */
    const uint32_t *vertex = target ? clip->constraint_vertex : NULL;
    bool all = C == n;
    for (size_t c = 0; all && vertex && c < C; ++c)
        all = vertex[c] == c;
    const double *t2s = target && alignment && !alignment->identity ? alignment->target_to_source : NULL;
    g.label = skf_strdup(label ? label : "rig");
    if (h->borrow)
        g.triangles = mesh->triangles;
    else
        g.triangles = g.own_triangles = dup_array(mesh->triangles, 3 * mesh->triangle_count, sizeof(uint32_t));
    if (h->borrow && !t2s)
        g.positions = m->surface;
    else
        g.positions = g.own_positions = skf_malloc_array(F * n, 3 * sizeof(double));
    if (h->borrow && all)
        g.errors = m->vertex_errors;
    else
        g.errors = g.own_errors = skf_calloc(F * n + 1, sizeof(double));
    if (!all)
        g.measured = skf_calloc(n ? n : 1, 1);
    bool ok = g.label && g.triangles && g.positions && g.errors && (all || g.measured) &&
              copy_figures(&g.metrics, m, F);
    if (!ok) {
        st = skf_fail(err, SKF_ERR_NOMEM, "render: %zu frames x %zu vertices: out of memory", F, n);
        goto done;
    }
    g.n = n;
    g.tri_count = mesh->triangle_count;
    g.diagonal = m->diagonal;
    for (size_t c = 0; !all && c < C; ++c)
        g.measured[vertex[c]] = 1;
    for (size_t f = 0; f < F; ++f) {
        const double *e = m->vertex_errors + f * C;
        double *dst = g.own_errors ? g.own_errors + f * n : NULL;
        if (dst && all)
            memcpy(dst, e, n * sizeof(double));
        else if (dst)
            for (size_t c = 0; c < C; ++c)
                dst[vertex[c]] = e[c];
        const double *s = m->surface + f * n * 3;
        double *p = g.own_positions ? g.own_positions + f * n * 3 : NULL;
        if (p && t2s)
            for (size_t i = 0; i < n; ++i)
                skf_mat4_transform_point(p + 3 * i, t2s, s + 3 * i);
        else if (p)
            memcpy(p, s, n * 3 * sizeof(double));
    }
    rig_panel *rigs = skf_realloc_array(h->rigs, h->rig_count + 1, sizeof *rigs);
    if (!rigs) {
        st = skf_fail(err, SKF_ERR_NOMEM, "render: out of memory");
        goto done;
    }
    h->rigs = rigs;
    h->rigs[h->rig_count++] = g;
    memset(&g, 0, sizeof g);
    st = rebuild_panels(h, err);
    if (st)
        rig_panel_release(&h->rigs[--h->rig_count]);
done:
    rig_panel_release(&g);
    return st;
}

/* ---- scenes solved on the fly ---------------------------------------------- */

skf_status skf_heatmap_play(const skf_gltf *source, const char *clip_name, double fps, skf_heatmap **out,
                            skf_warnings *warnings, skf_error *err)
{
    *out = NULL;
    skf_transfer_options o;
    memset(&o, 0, sizeof o);
    o.fps = fps;
    o.vertex_output = true;
    skf_transfer *t = NULL;
    skf_transfer_clip tc;
    memset(&tc, 0, sizeof tc);
    skf_status st = skf_transfer_new(source, NULL, &o, &t, warnings, err);
    if (!st)
        st = skf_transfer_sample_clip(t, clip_name, &tc, err);
    if (!st)
        st = skf_heatmap_new(&tc, out, err);
    skf_transfer_clip_release(&tc);
    if (st) {
        skf_transfer_free(t);
        return st;
    }
    (*out)->session = t;
    (*out)->source = source;
    return SKF_OK;
}

skf_status skf_heatmap_add_control(skf_heatmap *h, const char *label, skf_error *err)
{
    if (!h->session)
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: the scene was not opened by skf_heatmap_play", h->name);
    skf_transfer_clip tc;
    skf_status st = skf_transfer_run_clip(h->session, h->name, &tc, NULL, err);
    if (!st)
        st = skf_heatmap_add_run(h, label ? label : "artist rig (control)", &tc, SKF_REPORT_CONTROL, NULL, err);
    skf_transfer_clip_release(&tc);
    return st;
}

/* A session source → rig_doc over every welded target vertex, at the scene's
 * fps; solved (or measured, baked) once, its free run added. */
static skf_status add_rig(skf_heatmap *h, const char *label, const skf_gltf *rig_doc,
                          const skf_transfer_options *opt, bool baked, skf_warnings *warnings,
                          skf_error *err)
{
    if (!h->source)
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: the scene was not opened by skf_heatmap_play", h->name);
    skf_transfer_options o;
    memset(&o, 0, sizeof o);
    if (opt)
        o = *opt;
    o.mode = SKF_TRANSFER_FREE;
    o.no_control = true;
    o.fps = h->fps;
    o.max_constraints = 0; /* every welded vertex: the panel shows every vertex's error */
    o.vertex_output = true;
    skf_transfer *t = NULL;
    skf_transfer_clip tc;
    memset(&tc, 0, sizeof tc);
    skf_status st = skf_transfer_new(h->source, rig_doc, &o, &t, warnings, err);
    if (!st)
        st = baked ? skf_transfer_measure_baked(t, h->name, &tc, err)
                   : skf_transfer_run_clip(t, h->name, &tc, NULL, err);
    if (!st && (tc.frames != h->F || !tc.free_transforms))
        st = skf_fail(err, SKF_ERR_ARGUMENT, "%s: clip '%s': solved %zu frames, expected %zu",
                      doc_name(rig_doc), h->name, tc.frames, h->F);
    if (!st) {
        skf_transfer_info info;
        skf_transfer_get_info(t, &info);
        st = skf_heatmap_add_run(h, label ? label : doc_name(rig_doc), &tc, SKF_REPORT_FREE, &info.alignment,
                                 err);
    }
    skf_transfer_clip_release(&tc);
    skf_transfer_free(t);
    return st;
}

skf_status skf_heatmap_add_solved(skf_heatmap *h, const char *label, const skf_gltf *rig_doc,
                                  const skf_transfer_options *opt, skf_warnings *warnings, skf_error *err)
{
    return add_rig(h, label, rig_doc, opt, false, warnings, err);
}

skf_status skf_heatmap_add_baked(skf_heatmap *h, const char *label, const skf_gltf *rig_doc,
                                 skf_warnings *warnings, skf_error *err)
{
    return add_rig(h, label, rig_doc, NULL, true, warnings, err);
}
