/* Write-back: per-frame SVG and animated SVG (SMIL).
 *
 * The character's libxml2 tree is prepared once (skeleton group and
 * illustration markers get display="none"; shapes become <path> elements;
 * each animated element's d holds a placeholder) and serialised once into a
 * template. A frame is the template's text with each path's data spliced
 * in, so everything that is not animated is written back exactly as
 * libxml2 serialises it and per-frame output costs only number formatting.
 * References: SVG 1.1 section 19 (SMIL animation: calcMode="discrete",
 * keyTimes); the path data itself is path_write.c's.
 */
#include "svg_internal.h"

#include <libxml/tree.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* U+E000 / U+E001 (private use) + index + U+E002 */
#define PH_D "\xEE\x80\x80"
#define PH_V "\xEE\x80\x81"
#define PH_END "\xEE\x80\x82"

/* Serialise doc and cut it at the placeholders. */
static skf_status build_template(const skf_svg_character *c, skfi_svg_template *t, size_t expected,
                                 skf_error *err)
{
    xmlChar *mem = NULL;
    int size = 0;
    xmlDocDumpMemoryEnc((xmlDocPtr)c->doc, &mem, &size, "UTF-8");
    if (!mem)
        return skf_fail(err, SKF_ERR_NOMEM, "%s: cannot serialise the document", c->name);
    t->text = skf_malloc((size_t)size + 1);
    t->segs = skf_malloc_array(expected + 1, sizeof *t->segs);
    if (!t->text || !t->segs) {
        xmlFree(mem);
        skfi_svg_template_release(t);
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", c->name);
    }
    const char *s = (const char *)mem;
    size_t out = 0, i = 0, n = (size_t)size, seg_start = 0;
    t->count = 0;
    while (i < n) {
        bool d = n - i >= 3 && !memcmp(s + i, PH_D, 3);
        bool v = n - i >= 3 && !memcmp(s + i, PH_V, 3);
        if (!d && !v) {
            t->text[out++] = s[i++];
            continue;
        }
        size_t j = i + 3;
        long idx = 0;
        while (j < n && s[j] >= '0' && s[j] <= '9' && idx < 100000000)
            idx = idx * 10 + (s[j++] - '0');
        if (n - j < 3 || memcmp(s + j, PH_END, 3) || t->count >= expected ||
            idx >= (long)c->path_count) {
            xmlFree(mem);
            skfi_svg_template_release(t);
            return skf_fail(err, SKF_ERR_FORMAT,
                            "%s: the document contains private-use characters U+E000..U+E002 "
                            "that skinfit uses as placeholders",
                            c->name);
        }
        t->segs[t->count].start = seg_start;
        t->segs[t->count].len = out - seg_start;
        t->segs[t->count].path = (int)idx;
        t->segs[t->count].kind = v ? 1 : 0;
        if (!v && (out - seg_start < 3 || memcmp(t->text + out - 3, "d=\"", 3))) {
            xmlFree(mem);
            skfi_svg_template_release(t);
            return skf_fail(err, SKF_ERR_FORMAT, "%s: unexpected serialisation of a d attribute",
                            c->name);
        }
        t->count++;
        seg_start = out;
        i = j + 3;
    }
    xmlFree(mem);
    if (t->count != expected) {
        skfi_svg_template_release(t);
        return skf_fail(err, SKF_ERR_FORMAT, "%s: placeholder count mismatch", c->name);
    }
    t->segs[t->count].start = seg_start;
    t->segs[t->count].len = out - seg_start;
    t->segs[t->count].path = -1;
    t->segs[t->count].kind = 0;
    t->text[out] = 0;
    return SKF_OK;
}

static bool set_placeholder(xmlNodePtr n, const char *attr, const char *ph, size_t i)
{
    char v[64];
    snprintf(v, sizeof v, "%s%zu%s", ph, i, PH_END);
    return xmlSetProp(n, (const xmlChar *)attr, (const xmlChar *)v) != NULL;
}

skf_status skfi_svg_build_frame_template(skf_svg_character *c, skf_error *err)
{
    static const char *const geometry[] = {"x",  "y",  "width", "height", "rx", "ry", "cx",
                                           "cy", "r",  "x1",    "y1",     "x2", "y2", "points"};
    for (size_t i = 0; i < c->path_count; ++i) {
        skfi_svg_path *p = &c->paths[i];
        xmlNodePtr n = (xmlNodePtr)p->node;
        if (strcmp(p->elem, "path")) {
            for (size_t k = 0; k < sizeof geometry / sizeof geometry[0]; ++k)
                xmlUnsetProp(n, (const xmlChar *)geometry[k]);
            xmlNodeSetName(n, (const xmlChar *)"path");
        }
        xmlChar *disp = xmlGetProp(n, (const xmlChar *)"display");
        if (disp) {
            p->display_orig = skf_strdup((const char *)disp);
            xmlFree(disp);
            xmlUnsetProp(n, (const xmlChar *)"display");
            if (!p->display_orig)
                return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", c->name);
        }
        if (!set_placeholder(n, "d", PH_D, i))
            return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", c->name);
    }
    return build_template(c, &c->frame_tpl, c->path_count, err);
}

static void put_escaped(skfi_strbuf *b, const char *s)
{
    for (; *s; ++s) {
        switch (*s) {
        case '&': skfi_strbuf_puts(b, "&amp;"); break;
        case '<': skfi_strbuf_puts(b, "&lt;"); break;
        case '"': skfi_strbuf_puts(b, "&quot;"); break;
        default: skfi_strbuf_put(b, s, 1);
        }
    }
}

/* Emit segment text before a d value, adding the display attribute. */
static void put_d_prefix(skfi_strbuf *b, const skfi_svg_template *t, const skfi_svg_segment *sg,
                         const skfi_svg_path *p, bool visible)
{
    const char *s = t->text + sg->start;
    if (visible && !p->display_orig) {
        skfi_strbuf_put(b, s, sg->len);
        return;
    }
    skfi_strbuf_put(b, s, sg->len - 3);
    skfi_strbuf_puts(b, "display=\"");
    put_escaped(b, visible ? p->display_orig : "none");
    skfi_strbuf_puts(b, "\" d=\"");
}

skf_status skf_svg_write_frame(const skf_svg_animator *a, char **svg, size_t *size, skf_error *err)
{
    const skf_svg_character *c = skfi_svg_animator_character(a);
    if (!c->doc)
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: loaded from elements, no document to write back", c->name);
    const skfi_svg_template *t = &c->frame_tpl;
    skfi_strbuf b = {0};
    for (size_t k = 0; k < t->count; ++k) {
        const skfi_svg_segment *sg = &t->segs[k];
        const skfi_svg_path *p = &c->paths[sg->path];
        bool visible;
        const double *xy = skf_svg_animator_path(a, (size_t)sg->path, NULL, &visible);
        put_d_prefix(&b, t, sg, p, visible);
        skfi_svg_write_path_data(&b, p, xy);
    }
    skfi_strbuf_put(&b, t->text + t->segs[t->count].start, t->segs[t->count].len);
    if (b.failed) {
        skf_free(b.data);
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory writing a frame", c->name);
    }
    *svg = b.data;
    *size = b.len;
    return SKF_OK;
}

skf_status skf_svg_track_init(skf_svg_track *t, const skf_svg_character *c, size_t n, double fps,
                              skf_error *err)
{
    memset(t, 0, sizeof *t);
    t->fps = fps;
    t->xy = skf_calloc(n ? n : 1, sizeof *t->xy);
    t->visible = skf_calloc(n ? n : 1, sizeof *t->visible);
    if (!t->xy || !t->visible) {
        skf_svg_track_release(t);
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", c->name);
    }
    t->frame_count = n;
    for (size_t i = 0; i < n; ++i) {
        t->xy[i] = skf_malloc_array(c->point_count ? 2 * c->point_count : 1, sizeof(double));
        t->visible[i] = skf_calloc(c->path_count ? c->path_count : 1, sizeof(bool));
        if (!t->xy[i] || !t->visible[i]) {
            skf_svg_track_release(t);
            return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory for %zu frames", c->name, n);
        }
    }
    return SKF_OK;
}

void skf_svg_track_store(skf_svg_track *t, size_t i, const skf_svg_animator *a)
{
    const skf_svg_character *c = skfi_svg_animator_character(a);
    for (size_t k = 0; k < c->path_count; ++k) {
        bool vis;
        const double *xy = skf_svg_animator_path(a, k, NULL, &vis);
        memcpy(t->xy[i] + 2 * c->paths[k].point_base, xy,
               6 * c->paths[k].geom.node_count * sizeof(double));
        t->visible[i][k] = vis;
    }
}

void skf_svg_track_release(skf_svg_track *t)
{
    for (size_t i = 0; i < t->frame_count; ++i) {
        if (t->xy)
            skf_free(t->xy[i]);
        if (t->visible)
            skf_free(t->visible[i]);
    }
    skf_free(t->xy);
    skf_free(t->visible);
    memset(t, 0, sizeof *t);
}

skf_status skf_svg_write_animated(const skf_svg_character *c, const skf_svg_track *tr, char **svg,
                                  size_t *size, skf_error *err)
{
    if (!c->doc)
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: loaded from elements, no document to write back", c->name);
    if (!tr->frame_count || !(tr->fps > 0))
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: animated SVG needs frames and fps > 0",
                        c->name);
    size_t n = tr->frame_count;
    char dur[64];
    snprintf(dur, sizeof dur, "%.10gs", (double)n / tr->fps);
    skfi_strbuf kt = {0};
    for (size_t i = 0; i < n; ++i) {
        char v[40];
        int l = snprintf(v, sizeof v, "%s%.10g", i ? ";" : "", (double)i / (double)n);
        skfi_strbuf_put(&kt, v, (size_t)l);
    }
    skf_status st = SKF_OK;
    xmlNodePtr *added = skf_calloc(2 * c->path_count + 1, sizeof *added);
    if (!added || kt.failed) {
        skf_free(added);
        skf_free(kt.data);
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", c->name);
    }
    size_t nadded = 0;
    skfi_strbuf disp = {0};
    for (size_t i = 0; i < c->path_count && st == SKF_OK; ++i) {
        skfi_svg_path *p = &c->paths[i];
        xmlNodePtr pn = (xmlNodePtr)p->node;
        xmlNodePtr a = xmlNewChild(pn, pn->ns, (const xmlChar *)"animate", NULL);
        if (!a) {
            st = skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", c->name);
            break;
        }
        added[nadded++] = a;
        bool ok = xmlSetProp(a, (const xmlChar *)"attributeName", (const xmlChar *)"d") &&
                  xmlSetProp(a, (const xmlChar *)"calcMode", (const xmlChar *)"discrete") &&
                  xmlSetProp(a, (const xmlChar *)"dur", (const xmlChar *)dur) &&
                  xmlSetProp(a, (const xmlChar *)"repeatCount", (const xmlChar *)"indefinite") &&
                  xmlSetProp(a, (const xmlChar *)"keyTimes", (const xmlChar *)kt.data) &&
                  set_placeholder(a, "values", PH_V, i);
        bool any_hidden = false;
        for (size_t f = 0; f < n; ++f)
            any_hidden |= !tr->visible[f][i];
        if (ok && any_hidden) {
            skfi_strbuf_clear(&disp);
            for (size_t f = 0; f < n; ++f) {
                if (f)
                    skfi_strbuf_put(&disp, ";", 1);
                skfi_strbuf_puts(&disp, tr->visible[f][i] ? (p->display_orig ? p->display_orig
                                                                          : "inline")
                                                       : "none");
            }
            xmlNodePtr b = xmlNewChild(pn, pn->ns, (const xmlChar *)"animate", NULL);
            if (b)
                added[nadded++] = b;
            ok = b && !disp.failed &&
                 xmlSetProp(b, (const xmlChar *)"attributeName", (const xmlChar *)"display") &&
                 xmlSetProp(b, (const xmlChar *)"calcMode", (const xmlChar *)"discrete") &&
                 xmlSetProp(b, (const xmlChar *)"dur", (const xmlChar *)dur) &&
                 xmlSetProp(b, (const xmlChar *)"repeatCount", (const xmlChar *)"indefinite") &&
                 xmlSetProp(b, (const xmlChar *)"keyTimes", (const xmlChar *)kt.data) &&
                 xmlSetProp(b, (const xmlChar *)"values", (const xmlChar *)disp.data);
        }
        if (!ok)
            st = skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", c->name);
    }
    skf_free(kt.data);
    skf_free(disp.data);
    skfi_svg_template t = {0};
    if (st == SKF_OK)
        st = build_template(c, &t, 2 * c->path_count, err);
    for (size_t k = 0; k < nadded; ++k) {
        xmlUnlinkNode(added[k]);
        xmlFreeNode(added[k]);
    }
    skf_free(added);
    if (st != SKF_OK)
        return st;
    skfi_strbuf b = {0};
    for (size_t k = 0; k < t.count; ++k) {
        const skfi_svg_segment *sg = &t.segs[k];
        const skfi_svg_path *p = &c->paths[sg->path];
        const double *base = NULL;
        if (sg->kind == 0) {
            put_d_prefix(&b, &t, sg, p, tr->visible[0][sg->path]);
            skfi_svg_write_path_data(&b, p, tr->xy[0] + 2 * p->point_base);
            continue;
        }
        skfi_strbuf_put(&b, t.text + sg->start, sg->len);
        for (size_t f = 0; f < n; ++f) {
            if (f)
                skfi_strbuf_put(&b, ";", 1);
            base = tr->xy[f] + 2 * p->point_base;
            skfi_svg_write_path_data(&b, p, base);
        }
    }
    skfi_strbuf_put(&b, t.text + t.segs[t.count].start, t.segs[t.count].len);
    skfi_svg_template_release(&t);
    if (b.failed) {
        skf_free(b.data);
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory writing the animation", c->name);
    }
    *svg = b.data;
    *size = b.len;
    return SKF_OK;
}
