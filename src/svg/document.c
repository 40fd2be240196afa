/* SVG character document: libxml2 parse, Pose Animator's conventions
 * (skeleton group, joint markers by id prefix, illustration group(s),
 * sub-groups with their own markers), drawables to root-space Bézier paths,
 * and preparation of the tree for write-back.
 *
 * Reference: Pose Animator (Google 2020) illustrationGen/illustration.js
 * (bindSkeleton / bindGroup) and utils/svgUtils.js (findFirstItemWithPrefix:
 * the first item in document order whose name starts with the prefix; a
 * joint is the centre of that item's bounds).
 */
#include "svg_internal.h"

#include <libxml/entities.h>
#include <libxml/parser.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* libxml2's own element depth cap without XML_PARSE_HUGE (2.9: 256). */
#define LIBXML_DEFAULT_MAX_DEPTH 256

typedef struct loader {
    skf_svg_character *c;
    const char *name;
    int max_depth;
    bool max_depth_from_options;
    skf_warnings *w;
    skf_error *err;
    xmlNodePtr skeleton;
    /* bind groups under construction */
    struct group_rec {
        double kp[SKF_SVG_JOINT_COUNT][2];
        bool has[SKF_SVG_JOINT_COUNT];
    } *groups;
    size_t group_count, group_cap;
    size_t path_cap;
    bool warned_text, warned_image, warned_use;
} loader;

static bool is_elem(xmlNodePtr n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && !strcmp((const char *)n->name, name);
}

static bool skipped_subtree(xmlNodePtr n)
{
    static const char *const names[] = {"defs", "clipPath", "mask", "pattern", "marker", "symbol",
                                        "style", "script", "metadata", "title", "desc",
                                        "linearGradient", "radialGradient", "filter", "switch"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
        if (is_elem(n, names[i]))
            return true;
    return false;
}

static bool is_drawable(xmlNodePtr n)
{
    return n->type == XML_ELEMENT_NODE &&
           (!strcmp((const char *)n->name, "path") || skfi_svg_is_shape_name((const char *)n->name));
}

/* id attribute as a C string (owned by the caller via xmlFree), or NULL. */
static char *get_id(xmlNodePtr n)
{
    return (char *)xmlGetProp(n, (const xmlChar *)"id");
}

static bool id_starts(xmlNodePtr n, const char *prefix)
{
    char *id = get_id(n);
    bool r = id && !strncmp(id, prefix, strlen(prefix));
    if (id)
        xmlFree(id);
    return r;
}

static void place_of(xmlNodePtr n, char *buf, size_t size)
{
    char *id = get_id(n);
    if (id && *id)
        snprintf(buf, size, "%s#%s", (const char *)n->name, id);
    else
        snprintf(buf, size, "%s (line %ld)", (const char *)n->name, xmlGetLineNo(n));
    if (id)
        xmlFree(id);
}

/* The limit message for nesting deeper than L->max_depth. */
static skf_status depth_error(loader *L, const char *place)
{
    if (L->max_depth_from_options)
        return skf_fail(L->err, SKF_ERR_LIMIT, "%s: %s%selement nesting deeper than %d (options)",
                        L->name, place ? place : "", place ? ": " : "", L->max_depth);
    return skf_fail(L->err, SKF_ERR_LIMIT, "%s: %s%selement nesting exceeds %s", L->name,
                    place ? place : "", place ? ": " : "",
                    skf_limit_exceeded(SKF_LIMIT_SVG_DEPTH).text);
}

/* element_to_root of n: the transforms of n and its ancestors below the root <svg>. */
static skf_status element_ctm(loader *L, xmlNodePtr n, skfi_svg_affine out)
{
    xmlNodePtr chain[1024];
    int depth = 0;
    for (xmlNodePtr p = n; p && p->type == XML_ELEMENT_NODE && p->parent &&
                           p->parent->type == XML_ELEMENT_NODE;
         p = p->parent) {
        if (depth == (int)(sizeof chain / sizeof chain[0]) || depth >= L->max_depth) {
            char place[256];
            place_of(n, place, sizeof place);
            return depth_error(L, place);
        }
        chain[depth++] = p;
    }
    skfi_svg_affine_identity(out);
    for (int i = depth - 1; i >= 0; --i) {
        xmlChar *t = xmlGetProp(chain[i], (const xmlChar *)"transform");
        if (!t)
            continue;
        skfi_svg_affine m;
        size_t off = 0;
        const char *what = "";
        bool ok = skfi_svg_parse_transform((const char *)t, m, &off, &what);
        xmlFree(t);
        if (!ok) {
            char place[256];
            place_of(chain[i], place, sizeof place);
            return skf_fail(L->err, SKF_ERR_FORMAT, "%s: %s: transform: character %zu: %s",
                            L->name, place, off, what);
        }
        skfi_svg_affine_mul(out, out, m);
    }
    return SKF_OK;
}

/* Geometry of a drawable in its own space. *empty when it draws nothing. */
static skf_status local_geom(loader *L, xmlNodePtr n, skfi_svg_geom *g, bool *empty)
{
    char place[256];
    *empty = false;
    if (!strcmp((const char *)n->name, "path")) {
        xmlChar *d = xmlGetProp(n, (const xmlChar *)"d");
        if (!d) {
            *empty = true;
            return SKF_OK;
        }
        size_t off = 0;
        const char *what = "";
        skf_status st = skfi_svg_parse_path((const char *)d, g, skf_limit(SKF_LIMIT_PATH_NODES), &off,
                                         &what);
        xmlFree(d);
        if (st == SKF_ERR_NOMEM)
            return skf_fail(L->err, st, "%s: out of memory", L->name);
        if (st == SKF_ERR_LIMIT) {
            place_of(n, place, sizeof place);
            return skf_fail(L->err, st, "%s: %s: d: character %zu: %s exceed %s", L->name, place,
                            off, what, skf_limit_exceeded(SKF_LIMIT_PATH_NODES).text);
        }
        if (st != SKF_OK) {
            place_of(n, place, sizeof place);
            return skf_fail(L->err, st, "%s: %s: d: character %zu: %s", L->name, place, off, what);
        }
        *empty = g->node_count == 0;
        return SKF_OK;
    }
    const char *attr = "", *what = "";
    size_t off = 0;
    skf_status st = skfi_svg_shape_to_geom(n, g, &attr, &what, &off, empty);
    if (st == SKF_ERR_NOMEM)
        return skf_fail(L->err, st, "%s: out of memory", L->name);
    if (st != SKF_OK) {
        place_of(n, place, sizeof place);
        if (!strcmp(attr, "points"))
            return skf_fail(L->err, st, "%s: %s: points: character %zu: %s", L->name, place, off,
                            what);
        return skf_fail(L->err, st, "%s: %s: %s: %s", L->name, place, attr, what);
    }
    return SKF_OK;
}

/* Root-space bounding box of element n (drawable or group); false if empty. */
static skf_status element_bbox(loader *L, xmlNodePtr n, double box[4], bool *found, int depth)
{
    if (depth > L->max_depth)
        return depth_error(L, NULL);
    if (is_drawable(n)) {
        skfi_svg_geom g = {0};
        bool empty;
        skf_status st = local_geom(L, n, &g, &empty);
        if (st == SKF_OK && !empty) {
            skfi_svg_affine m;
            st = element_ctm(L, n, m);
            if (st == SKF_OK) {
                skfi_svg_geom_transform(&g, m);
                double b[4];
                if (skfi_svg_geom_bbox(&g, b)) {
                    if (!*found) {
                        memcpy(box, b, sizeof b);
                    } else {
                        box[0] = fmin(box[0], b[0]);
                        box[1] = fmin(box[1], b[1]);
                        box[2] = fmax(box[2], b[2]);
                        box[3] = fmax(box[3], b[3]);
                    }
                    *found = true;
                }
            }
        }
        skfi_svg_geom_release(&g);
        return st;
    }
    for (xmlNodePtr k = n->children; k; k = k->next) {
        if (k->type != XML_ELEMENT_NODE || skipped_subtree(k))
            continue;
        skf_status st = element_bbox(L, k, box, found, depth + 1);
        if (st != SKF_OK)
            return st;
    }
    return SKF_OK;
}

/* First element (document order, pre-order) under root whose id starts with prefix. */
static xmlNodePtr find_prefix(xmlNodePtr root, const char *prefix, const char *elem, int depth,
                              int max_depth)
{
    if (depth > max_depth)
        return NULL;
    for (xmlNodePtr k = root->children; k; k = k->next) {
        if (k->type != XML_ELEMENT_NODE || skipped_subtree(k))
            continue;
        if ((!elem || is_elem(k, elem)) && id_starts(k, prefix))
            return k;
        xmlNodePtr r = find_prefix(k, prefix, elem, depth + 1, max_depth);
        if (r)
            return r;
    }
    return NULL;
}

static skf_status set_display_none(loader *L, xmlNodePtr n)
{
    if (!xmlSetProp(n, (const xmlChar *)"display", (const xmlChar *)"none"))
        return skf_fail(L->err, SKF_ERR_NOMEM, "%s: out of memory", L->name);
    return SKF_OK;
}

static skf_status add_path(loader *L, xmlNodePtr n, int group)
{
    skf_svg_character *c = L->c;
    skfi_svg_geom g = {0};
    bool empty;
    skf_status st = local_geom(L, n, &g, &empty);
    if (st != SKF_OK) {
        skfi_svg_geom_release(&g);
        return st;
    }
    char place[256];
    place_of(n, place, sizeof place);
    if (empty) {
        skfi_svg_geom_release(&g);
        skf_warn(L->w, "%s: %s: draws nothing; left unchanged", L->name, place);
        return SKF_OK;
    }
    skfi_svg_affine m, inv;
    st = element_ctm(L, n, m);
    if (st != SKF_OK) {
        skfi_svg_geom_release(&g);
        return st;
    }
    bool invertible = skfi_svg_affine_invert(inv, m);
    for (int k = 0; k < 6 && invertible; ++k)
        invertible = fabs(inv[k]) <= SVGI_MAX_COORD && fabs(m[k]) <= SVGI_MAX_COORD;
    if (!invertible) {
        skfi_svg_geom_release(&g);
        skf_warn(L->w, "%s: %s: singular or extreme transform; left unchanged", L->name, place);
        return SKF_OK;
    }
    skfi_svg_geom_transform(&g, m);
    for (size_t k = 0; k < 6 * g.node_count; ++k) {
        if (!(fabs(g.xy[k]) <= SVGI_MAX_COORD)) {
            skfi_svg_geom_release(&g);
            return skf_fail(L->err, SKF_ERR_LIMIT,
                            "%s: %s: coordinates beyond +-%g user units after transforms",
                            L->name, place, SVGI_MAX_COORD);
        }
    }
    if (c->path_count == L->path_cap) {
        size_t cap = L->path_cap ? L->path_cap * 2 : 32;
        skfi_svg_path *p = skf_realloc_array(c->paths, cap, sizeof *p);
        if (!p) {
            skfi_svg_geom_release(&g);
            return skf_fail(L->err, SKF_ERR_NOMEM, "%s: out of memory", L->name);
        }
        c->paths = p;
        L->path_cap = cap;
    }
    skfi_svg_path *p = &c->paths[c->path_count];
    memset(p, 0, sizeof *p);
    p->node = n;
    p->geom = g;
    p->group = group;
    memcpy(p->element_to_root, m, sizeof m);
    memcpy(p->root_to_element, inv, sizeof inv);
    snprintf(p->elem, sizeof p->elem, "%s", (const char *)n->name);
    char *id = get_id(n);
    p->id = skf_strdup(id ? id : "");
    if (id)
        xmlFree(id);
    p->place = skf_strdup(place);
    c->path_count++; /* from here on skf_svg_free releases p */
    if (!p->id || !p->place)
        return skf_fail(L->err, SKF_ERR_NOMEM, "%s: out of memory", L->name);
    p->point_base = c->point_count;
    c->point_count += 3 * g.node_count;
    return SKF_OK;
}

static void warn_unsupported(loader *L, xmlNodePtr n)
{
    const char *nm = (const char *)n->name;
    bool *flag = NULL;
    if (!strcmp(nm, "text"))
        flag = &L->warned_text;
    else if (!strcmp(nm, "image"))
        flag = &L->warned_image;
    else if (!strcmp(nm, "use"))
        flag = &L->warned_use;
    if (flag && !*flag) {
        *flag = true;
        char place[256];
        place_of(n, place, sizeof place);
        skf_warn(L->w, "%s: %s: <%s> elements are not animated; written back unchanged", L->name,
                 place, nm);
    }
}

/* Collect markers and drawables of a sub-group (recursively). pass 0 finds
 * markers, pass 1 adds paths. */
static skf_status collect_group(loader *L, xmlNodePtr g, int gi, int pass, int depth)
{
    if (depth > L->max_depth)
        return depth_error(L, NULL);
    for (xmlNodePtr k = g->children; k; k = k->next) {
        if (k->type != XML_ELEMENT_NODE || skipped_subtree(k) || k == L->skeleton)
            continue;
        if (is_elem(k, "g") && id_starts(k, "illustration"))
            continue; /* handled as an illustration group of its own */
        char *id = get_id(k);
        int j = skfi_svg_joint_prefix(id);
        if (id)
            xmlFree(id);
        skf_status st = SKF_OK;
        if (j >= 0) {
            if (pass == 0) {
                double box[4];
                bool found = false;
                st = element_bbox(L, k, box, &found, depth + 1);
                if (st == SKF_OK && found &&
                    !(fabs(box[0]) <= SVGI_MAX_COORD && fabs(box[1]) <= SVGI_MAX_COORD &&
                      fabs(box[2]) <= SVGI_MAX_COORD && fabs(box[3]) <= SVGI_MAX_COORD))
                    found = false; /* out of range: ignored */
                if (st == SKF_OK && found) {
                    /* later markers of the same joint win, as in Pose Animator */
                    L->groups[gi].kp[j][0] = 0.5 * (box[0] + box[2]);
                    L->groups[gi].kp[j][1] = 0.5 * (box[1] + box[3]);
                    L->groups[gi].has[j] = true;
                }
            } else {
                st = set_display_none(L, k); /* markers are not drawn (Pose Animator) */
            }
        } else if (is_elem(k, "g") || is_elem(k, "a")) {
            st = collect_group(L, k, gi, pass, depth + 1);
        } else if (is_drawable(k)) {
            if (pass == 1)
                st = add_path(L, k, gi);
        } else if (pass == 1) {
            warn_unsupported(L, k);
        }
        if (st != SKF_OK)
            return st;
    }
    return SKF_OK;
}

static skf_status do_illustration(loader *L, xmlNodePtr ill)
{
    for (xmlNodePtr k = ill->children; k; k = k->next) {
        if (k->type != XML_ELEMENT_NODE || skipped_subtree(k) || k == L->skeleton)
            continue;
        skf_status st = SKF_OK;
        if (is_elem(k, "g") || is_elem(k, "a")) {
            if (is_elem(k, "g") && id_starts(k, "illustration"))
                continue;
            if (L->group_count == L->group_cap) {
                size_t cap = L->group_cap ? L->group_cap * 2 : 8;
                struct group_rec *g = skf_realloc_array(L->groups, cap, sizeof *g);
                if (!g)
                    return skf_fail(L->err, SKF_ERR_NOMEM, "%s: out of memory", L->name);
                L->groups = g;
                L->group_cap = cap;
            }
            int gi = (int)L->group_count++;
            memset(&L->groups[gi], 0, sizeof L->groups[gi]);
            st = collect_group(L, k, gi, 0, 1);
            if (st == SKF_OK)
                st = collect_group(L, k, gi, 1, 1);
        } else if (is_drawable(k)) {
            st = add_path(L, k, -1);
        } else {
            warn_unsupported(L, k);
        }
        if (st != SKF_OK)
            return st;
    }
    return SKF_OK;
}

static skf_status find_illustrations(loader *L, xmlNodePtr n, int depth, int *count)
{
    if (depth > L->max_depth)
        return depth_error(L, NULL);
    for (xmlNodePtr k = n->children; k; k = k->next) {
        if (k->type != XML_ELEMENT_NODE || skipped_subtree(k) || k == L->skeleton)
            continue;
        if (is_elem(k, "g") && id_starts(k, "illustration")) {
            ++*count;
            skf_status st = do_illustration(L, k);
            if (st != SKF_OK)
                return st;
        }
        skf_status st = find_illustrations(L, k, depth + 1, count);
        if (st != SKF_OK)
            return st;
    }
    return SKF_OK;
}

static void canvas_size(xmlNodePtr root, double *w, double *h)
{
    *w = 300;
    *h = 150; /* CSS default replaced-element size */
    xmlChar *vb = xmlGetProp(root, (const xmlChar *)"viewBox");
    if (vb) {
        double v[4];
        if (sscanf((const char *)vb, "%lf%*[ ,\t\n]%lf%*[ ,\t\n]%lf%*[ ,\t\n]%lf", &v[0], &v[1],
                   &v[2], &v[3]) == 4 &&
            v[2] > 0 && v[3] > 0) {
            *w = v[2];
            *h = v[3];
            xmlFree(vb);
            return;
        }
        xmlFree(vb);
    }
    for (int k = 0; k < 2; ++k) {
        xmlChar *s = xmlGetProp(root, (const xmlChar *)(k ? "height" : "width"));
        if (s) {
            double v = atof((const char *)s);
            if (v > 0 && !strchr((const char *)s, '%'))
                *(k ? h : w) = v;
            xmlFree(s);
        }
    }
}

/* Bytes of text a node list expands to, entity references included, each
 * node counting at least 1 (so a nest of empty entities cannot make the walk
 * itself unbounded). Stops counting once *total passes cap. Entities are not
 * substituted by our parse (no XML_PARSE_NOENT), but every consumer expands
 * them: the text and attribute readers, the frame writer's output, and
 * librsvg, which re-parses what we hand it. An SVG of 174 KB with one 100 KB
 * entity used 20,000 times drove librsvg to 24 GB (issue 17 §4). */
static void expanded_size(xmlNodePtr n, size_t cap, size_t *total, int depth)
{
    for (; n && *total <= cap; n = n->next) {
        size_t add = 1;
        if (n->type == XML_TEXT_NODE || n->type == XML_CDATA_SECTION_NODE ||
            n->type == XML_COMMENT_NODE)
            add += n->content ? (size_t)xmlStrlen(n->content) : 0;
        *total += add;
        if (depth > 512)
            continue;
        if (n->type == XML_ENTITY_REF_NODE) {
            xmlEntityPtr e = (xmlEntityPtr)n->children;
            if (e && e->children)
                expanded_size(e->children, cap, total, depth + 1);
            else if (e && e->content)
                *total += (size_t)xmlStrlen(e->content);
        } else if (n->type == XML_ELEMENT_NODE) {
            for (xmlAttrPtr a = n->properties; a && *total <= cap; a = a->next)
                expanded_size(a->children, cap, total, depth + 1);
            expanded_size(n->children, cap, total, depth + 1);
        }
    }
}

skf_status skf_svg_load_memory(const char *data, size_t size, const char *name,
                               const skf_svg_load_options *opts, skf_svg_character **out,
                               skf_warnings *warnings, skf_error *err)
{
    *out = NULL;
    if (!name)
        name = "<memory>";
    if (opts && opts->max_file_bytes && size > opts->max_file_bytes)
        return skf_fail(err, SKF_ERR_LIMIT, "%s: larger than the %zu-byte limit (options)", name,
                        opts->max_file_bytes);
    if (!(opts && opts->max_file_bytes) && size > skf_limit(SKF_LIMIT_SVG_BYTES))
        return skf_fail(err, SKF_ERR_LIMIT, "%s: %zu bytes exceed %s", name, size,
                        skf_limit_exceeded(SKF_LIMIT_SVG_BYTES).text);
    if (size > (size_t)0x7fffffff)
        return skf_fail(err, SKF_ERR_LIMIT, "%s: %zu bytes, above libxml2's fixed limit of 2^31-1",
                        name, size);
    skf_svg_character *c = skf_calloc(1, sizeof *c);
    if (!c)
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", name);
    c->name = skf_strdup(name);
    if (!c->name) {
        skf_svg_free(c);
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", name);
    }
    loader L = {0};
    L.c = c;
    L.name = name;
    L.max_depth_from_options = opts && opts->max_depth > 0;
    L.max_depth = L.max_depth_from_options ? opts->max_depth : (int)skf_limit(SKF_LIMIT_SVG_DEPTH);
    /* libxml2 stops at 256 levels unless told XML_PARSE_HUGE (then 2048);
     * ask for it only when the caller raised the depth cap. */
    bool huge = L.max_depth > LIBXML_DEFAULT_MAX_DEPTH;
    L.w = warnings;
    L.err = err;
    skf_status st = SKF_OK;

    xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
    if (!ctxt) {
        skf_svg_free(c);
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", name);
    }
    c->doc = xmlCtxtReadMemory(ctxt, data, (int)size, name, NULL,
                               XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING |
                                   (huge ? XML_PARSE_HUGE : 0));
    if (!c->doc) {
        const xmlError *e = &ctxt->lastError;
        char msg[256];
        snprintf(msg, sizeof msg, "%s", e->message ? e->message : "not well-formed XML");
        size_t n = strlen(msg);
        while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
            msg[--n] = 0;
        if (strstr(msg, "Excessive depth") && !L.max_depth_from_options)
            st = skf_fail(err, SKF_ERR_LIMIT, "%s: line %d: element nesting exceeds %s", name,
                          e->line, skf_limit_exceeded(SKF_LIMIT_SVG_DEPTH).text);
        else
            st = skf_fail(err, SKF_ERR_FORMAT, "%s: line %d: %s", name, e->line, msg);
        xmlFreeParserCtxt(ctxt);
        skf_svg_free(c);
        return st;
    }
    xmlFreeParserCtxt(ctxt);
    /* the text the document expands to is capped like the file itself */
    size_t cap = opts && opts->max_file_bytes ? opts->max_file_bytes : skf_limit(SKF_LIMIT_SVG_BYTES);
    size_t expanded = 0;
    expanded_size(c->doc->children, cap, &expanded, 0);
    if (expanded > cap) {
        skf_svg_free(c);
        if (opts && opts->max_file_bytes)
            return skf_fail(err, SKF_ERR_LIMIT,
                            "%s: entity expansion: the document expands to more than %zu bytes "
                            "(options)", name, cap);
        return skf_fail(err, SKF_ERR_LIMIT,
                        "%s: entity expansion: the document expands to more than %zu bytes, above %s",
                        name, cap, skf_limit_exceeded(SKF_LIMIT_SVG_BYTES).text);
    }
    xmlNodePtr root = xmlDocGetRootElement(c->doc);
    if (!root || !is_elem(root, "svg")) {
        skf_svg_free(c);
        return skf_fail(err, SKF_ERR_FORMAT, "%s: root element is not <svg>", name);
    }
    canvas_size(root, &c->width, &c->height);

    /* skeleton group and joint markers */
    L.skeleton = find_prefix(root, "skeleton", "g", 0, L.max_depth);
    if (!L.skeleton) {
        skf_svg_free(c);
        return skf_fail(err, SKF_ERR_FORMAT,
                        "%s: no skeleton: no <g> whose id starts with 'skeleton' (Pose Animator's "
                        "convention, see docs/svg.md)",
                        name);
    }
    char missing[SKF_ERROR_MESSAGE_MAX];
    size_t nmiss = 0, mlen = 0;
    missing[0] = 0;
    for (int j = 0; j < SKF_SVG_JOINT_COUNT && st == SKF_OK; ++j) {
        xmlNodePtr m = find_prefix(L.skeleton, skf_svg_joint_name(j), NULL, 0, L.max_depth);
        double box[4];
        bool found = false;
        if (m)
            st = element_bbox(&L, m, box, &found, 0);
        if (st != SKF_OK)
            break;
        if (found && !(fabs(box[0]) <= SVGI_MAX_COORD && fabs(box[1]) <= SVGI_MAX_COORD &&
                       fabs(box[2]) <= SVGI_MAX_COORD && fabs(box[3]) <= SVGI_MAX_COORD)) {
            st = skf_fail(err, SKF_ERR_LIMIT, "%s: marker %s: coordinates beyond +-%g user units",
                          name, skf_svg_joint_name(j), SVGI_MAX_COORD);
            break;
        }
        if (found) {
            c->has_joint[j] = true;
            c->joint[j][0] = 0.5 * (box[0] + box[2]);
            c->joint[j][1] = 0.5 * (box[1] + box[3]);
        } else if (skf_svg_joint_required(j)) {
            int w = snprintf(missing + mlen, sizeof missing - mlen, "%s%s", nmiss ? ", " : "",
                             skf_svg_joint_name(j));
            if (w > 0 && (size_t)w < sizeof missing - mlen)
                mlen += (size_t)w;
            nmiss++;
        }
    }
    if (st == SKF_OK && nmiss) {
        char idbuf[128] = "";
        char *id = get_id(L.skeleton);
        snprintf(idbuf, sizeof idbuf, "%s", id ? id : "");
        if (id)
            xmlFree(id);
        st = skf_fail(err, SKF_ERR_FORMAT, "%s: g#%s: %zu joint marker%s missing: %s", name, idbuf,
                      nmiss, nmiss == 1 ? "" : "s", missing);
    }
    if (st == SKF_OK)
        st = set_display_none(&L, L.skeleton);

    /* illustration */
    int nill = 0;
    if (st == SKF_OK)
        st = find_illustrations(&L, root, 0, &nill);
    if (st == SKF_OK && !nill)
        st = skf_fail(err, SKF_ERR_FORMAT,
                      "%s: no illustration: no <g> whose id starts with 'illustration'", name);
    /* bind groups -> secondary bones + influences */
    if (st == SKF_OK) {
        /* hand the group keypoints to bind.c through the bones array */
        size_t cap = SKF_SVG_BONE_COUNT;
        for (size_t g = 0; g < L.group_count; ++g)
            cap += SKF_SVG_BONE_COUNT;
        c->bones = skf_calloc(cap, sizeof *c->bones);
        if (!c->bones)
            st = skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", name);
    }
    if (st == SKF_OK) {
        /* main bones */
        for (int b = 0; b < SKF_SVG_BONE_COUNT; ++b) {
            skfi_svg_bone *B = &c->bones[b];
            bool face;
            skf_svg_bone(b, &B->j0, &B->j1, &face);
            B->face = face;
            B->parent = -1;
            memcpy(B->r0, c->joint[B->j0], sizeof B->r0);
            memcpy(B->r1, c->joint[B->j1], sizeof B->r1);
        }
        c->bone_count = SKF_SVG_BONE_COUNT;
        /* secondary bones per sub-group (Pose Animator's bindGroup): a main bone
         * whose two joints both have markers in the group. Paths of the group
         * bind to these only; groups without such bones bind automatically. */
        int *first = skf_calloc(L.group_count + 1, sizeof *first);
        int *count = skf_calloc(L.group_count + 1, sizeof *count);
        if (!first || !count) {
            st = skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", name);
        } else {
            const double *nose = c->joint[skfi_svg_joint_nose4()];
            for (size_t g = 0; g < L.group_count; ++g) {
                first[g] = (int)c->bone_count;
                for (int b = 0; b < SKF_SVG_BONE_COUNT; ++b) {
                    const skfi_svg_bone *P = &c->bones[b];
                    if (!L.groups[g].has[P->j0] || !L.groups[g].has[P->j1])
                        continue;
                    skfi_svg_bone *S = &c->bones[c->bone_count++];
                    *S = *P;
                    S->parent = b;
                    memcpy(S->r0, L.groups[g].kp[P->j0], sizeof S->r0);
                    memcpy(S->r1, L.groups[g].kp[P->j1], sizeof S->r1);
                    /* each end follows its parent end in the frame (parent end, nose4), as
                     * Pose Animator; when that frame is degenerate (the parent end is
                     * nose4) use (parent end, other parent end) instead. */
                    const double *ends[2] = {P->r0, P->r1};
                    const double *mine[2] = {S->r0, S->r1};
                    int others[2] = {P->j1, P->j0};
                    for (int e = 0; e < 2; ++e) {
                        skfi_svg_tfunc *f = e ? &S->f1 : &S->f0;
                        int *other = e ? &S->other1 : &S->other0;
                        *other = skfi_svg_joint_nose4();
                        skfi_svg_tfunc_make(f, ends[e], nose, mine[e]);
                        if (!(f->l0 > 0)) {
                            *other = others[e];
                            skfi_svg_tfunc_make(f, ends[e], ends[1 - e], mine[e]);
                        }
                    }
                }
                count[g] = (int)c->bone_count - first[g];
            }
            for (size_t i = 0; i < c->path_count; ++i) {
                int g = c->paths[i].group;
                c->paths[i].sec_first = g >= 0 ? first[g] : 0;
                c->paths[i].sec_count = g >= 0 ? count[g] : 0;
            }
        }
        skf_free(first);
        skf_free(count);
    }
    skf_free(L.groups);
    if (st == SKF_OK)
        st = skfi_svg_bind(c, warnings, err);
    if (st == SKF_OK)
        st = skfi_svg_build_frame_template(c, err);
    if (st != SKF_OK) {
        skf_svg_free(c);
        return st;
    }
    *out = c;
    return SKF_OK;
}

skf_status skf_svg_load(const char *path, const skf_svg_load_options *opts, skf_svg_character **out,
                        skf_warnings *warnings, skf_error *err)
{
    *out = NULL;
    uint8_t *data = NULL;
    size_t size = 0;
    skf_status st = opts && opts->max_file_bytes
                        ? skf_read_file(path, opts->max_file_bytes, &data, &size, err)
                        : skf_read_file_limited(path, SKF_LIMIT_SVG_BYTES, &data, &size, err);
    if (st != SKF_OK)
        return st;
    st = skf_svg_load_memory((const char *)data, size, path, opts, out, warnings, err);
    skf_free(data);
    return st;
}

void skf_svg_free(skf_svg_character *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->path_count; ++i) {
        skfi_svg_geom_release(&c->paths[i].geom);
        skf_free(c->paths[i].id);
        skf_free(c->paths[i].place);
        skf_free(c->paths[i].display_orig);
    }
    skf_free(c->paths);
    skf_free(c->bones);
    skf_free(c->infl_start);
    skf_free(c->infl);
    skfi_svg_template_release(&c->frame_tpl);
    if (c->doc)
        xmlFreeDoc(c->doc);
    skf_free(c->name);
    skf_free(c);
}

bool skf_svg_rest_joint(const skf_svg_character *c, int j, double xy[2])
{
    if (j < 0 || j >= SKF_SVG_JOINT_COUNT || !c->has_joint[j])
        return false;
    xy[0] = c->joint[j][0];
    xy[1] = c->joint[j][1];
    return true;
}

void skf_svg_canvas_size(const skf_svg_character *c, double *width, double *height)
{
    *width = c->width;
    *height = c->height;
}

size_t skf_svg_path_count(const skf_svg_character *c) { return c->path_count; }
const char *skf_svg_path_id(const skf_svg_character *c, size_t i) { return c->paths[i].id; }
const char *skf_svg_path_element(const skf_svg_character *c, size_t i) { return c->paths[i].elem; }
size_t skf_svg_path_node_count(const skf_svg_character *c, size_t i)
{
    return c->paths[i].geom.node_count;
}
void skf_svg_path_rest(const skf_svg_character *c, size_t i, double *xy)
{
    memcpy(xy, c->paths[i].geom.xy, c->paths[i].geom.node_count * 6 * sizeof(double));
}
size_t skf_svg_secondary_bone_count(const skf_svg_character *c)
{
    return c->bone_count - SKF_SVG_BONE_COUNT;
}
