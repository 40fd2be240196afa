/* skfw_svg — the SVG character (Pose Animator) in the WebAssembly build.
 *
 * The page parses the SVG with the browser's DOM and hands the element list
 * here (skfw.h: packed strings + one int32 row per element); from there the
 * library's own loader (src/svg/load.c: conventions, geometry, binding), the
 * animator (smoothing, face fallback, deformation, path hiding) and the
 * path-data writer (path_write.c) run, the same code `skinfit svg` runs, so
 * the page draws the CLI's numbers. Keypoint files are parsed by the page
 * (web/pose/keypoints.js) into skf_svg_pose_frame's layout.
 *
 * Compiled into the WASM module and, unchanged, into tests/web/skfw_native.c.
 */
#include "skfw.h"

#include "base/strbuf.h"
#include "svg/svg_internal.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

struct skfw_svg_anim {
    skf_svg_animator *a;
    const skf_svg_character *c;
    skfi_strbuf data;
};

static skf_warnings last_warnings;

int skfw_svg_row(void) { return SKFW_SVG_ROW; }
int skfw_svg_frame_size(void) { return SKFW_SVG_FRAME; }

static int report(skf_status st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int report(skf_status st, const char *fmt, ...)
{
    skf_error e = {0};
    va_list ap;
    va_start(ap, fmt);
    skf_failv(&e, st, fmt, ap);
    va_end(ap);
    skfw_set_error(&e);
    return (int)st;
}

skf_svg_character *skfw_svg_load(const char *name, const char *strings, size_t strings_size,
                                 const int32_t *table, size_t count)
{
    if (!name)
        name = "character.svg";
    skf_warnings_release(&last_warnings);
    if (!count || !table || !strings || !strings_size || strings[strings_size - 1]) {
        report(SKF_ERR_ARGUMENT, "%s: no elements (%zu)", name, count);
        return NULL;
    }
    skf_svg_element *e = skf_calloc(count, sizeof *e);
    if (!e) {
        report(SKF_ERR_NOMEM, "%s: out of memory for %zu elements", name, count);
        return NULL;
    }
    for (size_t i = 0; i < count; ++i) {
        const int32_t *row = table + i * SKFW_SVG_ROW;
        for (int k = 1; k < SKFW_SVG_ROW; ++k) {
            if (k == 2)
                continue;
            if (row[k] < -1 || (row[k] >= 0 && (size_t)row[k] >= strings_size) || (k == 1 && row[k] < 0)) {
                skf_free(e);
                report(SKF_ERR_ARGUMENT, "%s: element %zu: a string offset outside the strings", name, i);
                return NULL;
            }
        }
        e[i].parent = row[0];
        e[i].name = strings + row[1];
        e[i].line = row[2];
        for (int a = 0; a < SKF_SVG_ATTR_COUNT; ++a)
            e[i].attrs[a] = row[3 + a] >= 0 ? strings + row[3 + a] : NULL;
    }
    skf_svg_character *c = NULL;
    skf_error err = {0};
    skf_status st = skf_svg_load_elements(e, count, name, NULL, &c, &last_warnings, &err);
    skf_free(e);
    if (st) {
        skfw_set_error(&err);
        return NULL;
    }
    return c;
}

void skfw_svg_free(skf_svg_character *c) { skf_svg_free(c); }
size_t skfw_svg_path_count(const skf_svg_character *c) { return skf_svg_path_count(c); }
size_t skfw_svg_path_element(const skf_svg_character *c, size_t i) { return skf_svg_path_element_index(c, i); }
size_t skfw_svg_path_nodes(const skf_svg_character *c, size_t i) { return skf_svg_path_node_count(c, i); }

size_t skfw_svg_hidden_count(const skf_svg_character *c)
{
    size_t n;
    skf_svg_hidden_elements(c, &n);
    return n;
}

size_t skfw_svg_hidden(const skf_svg_character *c, size_t k)
{
    size_t n;
    const size_t *h = skf_svg_hidden_elements(c, &n);
    return k < n ? h[k] : (size_t)-1;
}

double skfw_svg_canvas(const skf_svg_character *c, int height)
{
    double w, h;
    skf_svg_canvas_size(c, &w, &h);
    return height ? h : w;
}

int skfw_svg_rest_joint(const skf_svg_character *c, int j, double *xy) { return skf_svg_rest_joint(c, j, xy) ? 1 : 0; }
int skfw_svg_warning_count(void) { return (int)last_warnings.count; }
const char *skfw_svg_warning(int k)
{
    return k >= 0 && (size_t)k < last_warnings.count ? last_warnings.items[k].text : "";
}

skfw_svg_anim *skfw_svg_animator_new(const skf_svg_character *c, int no_smoothing, double min_path_confidence)
{
    skfw_svg_anim *w = skf_calloc(1, sizeof *w);
    if (!w) {
        report(SKF_ERR_NOMEM, "animator: out of memory");
        return NULL;
    }
    skf_svg_animate_options o = {no_smoothing != 0, min_path_confidence};
    skf_error err = {0};
    if (skf_svg_animator_new(c, &o, &w->a, &err)) {
        skfw_set_error(&err);
        skf_free(w);
        return NULL;
    }
    w->c = c;
    return w;
}

void skfw_svg_animator_free(skfw_svg_anim *w)
{
    if (!w)
        return;
    skf_svg_animator_free(w->a);
    skf_free(w->data.data);
    skf_free(w);
}

int skfw_svg_update(skfw_svg_anim *w, const double *v)
{
    skf_svg_pose_frame f;
    memset(&f, 0, sizeof f);
    size_t k = 0;
    f.pose_score = v[k++];
    for (int j = 0; j < SKF_SVG_POSE_JOINT_COUNT; ++j) {
        f.xy[j][0] = v[k++];
        f.xy[j][1] = v[k++];
    }
    for (int j = 0; j < SKF_SVG_POSE_JOINT_COUNT; ++j)
        f.score[j] = v[k++];
    f.has_face = v[k++] != 0;
    f.face_score = v[k++];
    for (int j = 0; j < SKF_SVG_FACE_JOINT_COUNT; ++j) {
        f.face_xy[j][0] = v[k++];
        f.face_xy[j][1] = v[k++];
    }
    /* the same range the keypoint reader enforces (keypoints.c): finite, within +-1e12 */
    for (size_t i = 0; i < SKFW_SVG_FRAME; ++i)
        if (!(fabs(v[i]) <= SVGI_MAX_COORD)) {
            report(SKF_ERR_ARGUMENT, "keypoints: frame value %zu is not a finite number within +-1e12", i);
            return -1;
        }
    return skf_svg_animator_update(w->a, &f) == SKF_SVG_FRAME_DRAWN ? 0 : 1;
}

const char *skfw_svg_frame_data(skfw_svg_anim *w, size_t *bytes)
{
    skfi_strbuf_clear(&w->data);
    size_t n = skf_svg_path_count(w->c);
    for (size_t i = 0; i < n; ++i) {
        const double *xy = skf_svg_animator_path(w->a, i, NULL, NULL);
        skfi_svg_write_path_data(&w->data, &w->c->paths[i], xy);
        skfi_strbuf_put(&w->data, "", 1);
    }
    if (w->data.failed) {
        report(SKF_ERR_NOMEM, "animator: out of memory for %zu paths' data", n);
        *bytes = 0;
        return NULL;
    }
    *bytes = w->data.len;
    return w->data.data ? w->data.data : "";
}

int skfw_svg_visible(const skfw_svg_anim *w, size_t i)
{
    bool v;
    skf_svg_animator_path(w->a, i, NULL, &v);
    return v ? 1 : 0;
}

double skfw_svg_confidence(const skfw_svg_anim *w, size_t i)
{
    double c;
    skf_svg_animator_path(w->a, i, &c, NULL);
    return c;
}

double skfw_svg_joint(const skfw_svg_anim *w, int j, double *xy)
{
    double s = 0;
    if (j < 0 || j >= SKF_SVG_JOINT_COUNT)
        return 0;
    skf_svg_animator_joint(w->a, j, xy, &s);
    return s;
}

const char *skfw_svg_joint_name(int j) { return skf_svg_joint_name(j) ? skf_svg_joint_name(j) : ""; }
int skfw_svg_joint_facemesh(int j) { return skf_svg_joint_facemesh_index(j); }
