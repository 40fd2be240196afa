/* Pose Animator's conventions on a plain element list: the skeleton group
 * and its joint markers by id prefix, the illustration group(s), sub-groups
 * with their own markers (secondary bones), drawables to root-space Bézier
 * paths, then the binding (bind.c). Shared by every build: document.c hands
 * it libxml2's tree as an element list, the browser its DOM (web/pose/).
 *
 * Reference: Pose Animator (Google 2020) illustrationGen/illustration.js
 * (bindSkeleton / bindGroup) and utils/svgUtils.js (findFirstItemWithPrefix:
 * the first item in document order whose name starts with the prefix; a
 * joint is the centre of that item's bounds).
 */
#include "svg_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE ((size_t)-1)

typedef struct loader {
    skf_svg_character *c;
    const skf_svg_element *e;
    size_t count;
    size_t *first, *next;     /* first child, next sibling (NONE) */
    const char *name;
    int max_depth;            /* the svg-depth cap in effect */
    const skf_limits *limits; /* this load's caps (NULL: process-wide) */
    skf_warnings *w;
    skf_error *err;
    size_t skeleton;
    /* bind groups under construction */
    struct group_rec {
        double kp[SKF_SVG_JOINT_COUNT][2];
        bool has[SKF_SVG_JOINT_COUNT];
    } *groups;
    size_t group_count, group_cap;
    size_t path_cap, hidden_cap;
    bool warned_text, warned_image, warned_use;
} loader;

static const char *const attr_names[SKF_SVG_ATTR_COUNT] = {
    "id", "transform", "d", "x", "y", "width", "height", "rx", "ry", "cx", "cy", "r",
    "x1", "y1", "x2", "y2", "points", "viewBox",
};

const char *skf_svg_attr_name(int a)
{
    return a >= 0 && a < SKF_SVG_ATTR_COUNT ? attr_names[a] : NULL;
}

static bool is_elem(const loader *L, size_t n, const char *name)
{
    return !strcmp(L->e[n].name, name);
}

static void release_loader(loader *L)
{
    skf_free(L->first);
    skf_free(L->next);
    skf_free(L->groups);
    L->first = L->next = NULL;
    L->groups = NULL;
}

static bool skipped_subtree(const loader *L, size_t n)
{
    static const char *const names[] = {"defs", "clipPath", "mask", "pattern", "marker", "symbol",
                                        "style", "script", "metadata", "title", "desc",
                                        "linearGradient", "radialGradient", "filter", "switch"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
        if (is_elem(L, n, names[i]))
            return true;
    return false;
}

static bool is_drawable(const loader *L, size_t n)
{
    const char *nm = L->e[n].name;
    return !strcmp(nm, "path") || skfi_svg_is_shape_name(nm);
}

static const char *get_id(const loader *L, size_t n) { return L->e[n].attrs[SKF_SVG_ATTR_ID]; }

static bool id_starts(const loader *L, size_t n, const char *prefix)
{
    const char *id = get_id(L, n);
    return id && !strncmp(id, prefix, strlen(prefix));
}

static void place_of(const loader *L, size_t n, char *buf, size_t size)
{
    const char *id = get_id(L, n);
    if (id && *id)
        snprintf(buf, size, "%s#%s", L->e[n].name, id);
    else if (L->e[n].line > 0)
        snprintf(buf, size, "%s (line %ld)", L->e[n].name, L->e[n].line);
    else
        snprintf(buf, size, "%s (element %zu)", L->e[n].name, n);
}

/* The limit message for nesting deeper than L->max_depth. */
static skf_status depth_error(loader *L, const char *place)
{
    return skf_fail(L->err, SKF_ERR_LIMIT, "%s: %s%selement nesting exceeds %s", L->name,
                    place ? place : "", place ? ": " : "",
                    skf_limits_exceeded(L->limits, SKF_LIMIT_SVG_DEPTH).text);
}

/* element_to_root of n: the transforms of n and its ancestors below the root <svg>. */
static skf_status element_ctm(loader *L, size_t n, skfi_svg_affine out)
{
    size_t chain[1024];
    int depth = 0;
    for (size_t p = n; L->e[p].parent >= 0; p = (size_t)L->e[p].parent) {
        if (depth == (int)(sizeof chain / sizeof chain[0]) || depth >= L->max_depth) {
            char place[256];
            place_of(L, n, place, sizeof place);
            return depth_error(L, place);
        }
        chain[depth++] = p;
    }
    skfi_svg_affine_identity(out);
    for (int i = depth - 1; i >= 0; --i) {
        const char *t = L->e[chain[i]].attrs[SKF_SVG_ATTR_TRANSFORM];
        if (!t)
            continue;
        skfi_svg_affine m;
        size_t off = 0;
        const char *what = "";
        bool ok = skfi_svg_parse_transform(t, m, &off, &what);
        if (!ok) {
            char place[256];
            place_of(L, chain[i], place, sizeof place);
            return skf_fail(L->err, SKF_ERR_FORMAT, "%s: %s: transform: character %zu: %s",
                            L->name, place, off, what);
        }
        skfi_svg_affine_mul(out, out, m);
    }
    return SKF_OK;
}

/* Geometry of a drawable in its own space. *empty when it draws nothing. */
static skf_status local_geom(loader *L, size_t n, skfi_svg_geom *g, bool *empty)
{
    char place[256];
    *empty = false;
    if (!strcmp(L->e[n].name, "path")) {
        const char *d = L->e[n].attrs[SKF_SVG_ATTR_D];
        if (!d) {
            *empty = true;
            return SKF_OK;
        }
        size_t off = 0;
        const char *what = "";
        skf_status st = skfi_svg_parse_path(d, g, skf_limits_value(L->limits, SKF_LIMIT_PATH_NODES), &off,
                                            &what);
        if (st == SKF_ERR_NOMEM)
            return skf_fail(L->err, st, "%s: out of memory", L->name);
        if (st == SKF_ERR_LIMIT) {
            place_of(L, n, place, sizeof place);
            return skf_fail(L->err, st, "%s: %s: d: character %zu: %s exceed %s", L->name, place,
                            off, what, skf_limits_exceeded(L->limits, SKF_LIMIT_PATH_NODES).text);
        }
        if (st != SKF_OK) {
            place_of(L, n, place, sizeof place);
            return skf_fail(L->err, st, "%s: %s: d: character %zu: %s", L->name, place, off, what);
        }
        *empty = g->node_count == 0;
        return SKF_OK;
    }
    const char *attr = "", *what = "";
    size_t off = 0;
    skf_status st = skfi_svg_shape_to_geom(L->e[n].name, L->e[n].attrs, g, &attr, &what, &off, empty);
    if (st == SKF_ERR_NOMEM)
        return skf_fail(L->err, st, "%s: out of memory", L->name);
    if (st != SKF_OK) {
        place_of(L, n, place, sizeof place);
        if (!strcmp(attr, "points"))
            return skf_fail(L->err, st, "%s: %s: points: character %zu: %s", L->name, place, off,
                            what);
        return skf_fail(L->err, st, "%s: %s: %s: %s", L->name, place, attr, what);
    }
    return SKF_OK;
}

/* Root-space bounding box of element n (drawable or group); false if empty. */
static skf_status element_bbox(loader *L, size_t n, double box[4], bool *found, int depth)
{
    if (depth > L->max_depth)
        return depth_error(L, NULL);
    if (is_drawable(L, n)) {
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
    for (size_t k = L->first[n]; k != NONE; k = L->next[k]) {
        if (skipped_subtree(L, k))
            continue;
        skf_status st = element_bbox(L, k, box, found, depth + 1);
        if (st != SKF_OK)
            return st;
    }
    return SKF_OK;
}

/* First element (document order, pre-order) under root whose id starts with prefix. */
static size_t find_prefix(const loader *L, size_t root, const char *prefix, const char *elem, int depth)
{
    if (depth > L->max_depth)
        return NONE;
    for (size_t k = L->first[root]; k != NONE; k = L->next[k]) {
        if (skipped_subtree(L, k))
            continue;
        if ((!elem || is_elem(L, k, elem)) && id_starts(L, k, prefix))
            return k;
        size_t r = find_prefix(L, k, prefix, elem, depth + 1);
        if (r != NONE)
            return r;
    }
    return NONE;
}

/* Markers and the skeleton are not drawn (Pose Animator): recorded for the writers. */
static skf_status set_display_none(loader *L, size_t n)
{
    skf_svg_character *c = L->c;
    if (c->hidden_count == L->hidden_cap) {
        size_t cap = L->hidden_cap ? 2 * L->hidden_cap : 32;
        size_t *h = skf_realloc_array(c->hidden, cap, sizeof *h);
        if (!h)
            return skf_fail(L->err, SKF_ERR_NOMEM, "%s: out of memory", L->name);
        c->hidden = h;
        L->hidden_cap = cap;
    }
    c->hidden[c->hidden_count++] = n;
    return SKF_OK;
}

static skf_status add_path(loader *L, size_t n, int group)
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
    place_of(L, n, place, sizeof place);
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
    p->node = NULL;
    p->element = n;
    p->geom = g;
    p->group = group;
    memcpy(p->element_to_root, m, sizeof m);
    memcpy(p->root_to_element, inv, sizeof inv);
    snprintf(p->elem, sizeof p->elem, "%s", L->e[n].name);
    const char *id = get_id(L, n);
    p->id = skf_strdup(id ? id : "");
    p->place = skf_strdup(place);
    c->path_count++; /* from here on skf_svg_free releases p */
    if (!p->id || !p->place)
        return skf_fail(L->err, SKF_ERR_NOMEM, "%s: out of memory", L->name);
    p->point_base = c->point_count;
    c->point_count += 3 * g.node_count;
    return SKF_OK;
}

static void warn_unsupported(loader *L, size_t n)
{
    const char *nm = L->e[n].name;
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
        place_of(L, n, place, sizeof place);
        skf_warn(L->w, "%s: %s: <%s> elements are not animated; written back unchanged", L->name,
                 place, nm);
    }
}

/* Collect markers and drawables of a sub-group (recursively). pass 0 finds
 * markers, pass 1 adds paths. */
static skf_status collect_group(loader *L, size_t g, int gi, int pass, int depth)
{
    if (depth > L->max_depth)
        return depth_error(L, NULL);
    for (size_t k = L->first[g]; k != NONE; k = L->next[k]) {
        if (skipped_subtree(L, k) || k == L->skeleton)
            continue;
        if (is_elem(L, k, "g") && id_starts(L, k, "illustration"))
            continue; /* handled as an illustration group of its own */
        int j = skfi_svg_joint_prefix(get_id(L, k));
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
        } else if (is_elem(L, k, "g") || is_elem(L, k, "a")) {
            st = collect_group(L, k, gi, pass, depth + 1);
        } else if (is_drawable(L, k)) {
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

static skf_status do_illustration(loader *L, size_t ill)
{
    for (size_t k = L->first[ill]; k != NONE; k = L->next[k]) {
        if (skipped_subtree(L, k) || k == L->skeleton)
            continue;
        skf_status st = SKF_OK;
        if (is_elem(L, k, "g") || is_elem(L, k, "a")) {
            if (is_elem(L, k, "g") && id_starts(L, k, "illustration"))
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
        } else if (is_drawable(L, k)) {
            st = add_path(L, k, -1);
        } else {
            warn_unsupported(L, k);
        }
        if (st != SKF_OK)
            return st;
    }
    return SKF_OK;
}

static skf_status find_illustrations(loader *L, size_t n, int depth, int *count)
{
    if (depth > L->max_depth)
        return depth_error(L, NULL);
    for (size_t k = L->first[n]; k != NONE; k = L->next[k]) {
        if (skipped_subtree(L, k) || k == L->skeleton)
            continue;
        if (is_elem(L, k, "g") && id_starts(L, k, "illustration")) {
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

static void canvas_size(const skf_svg_element *root, double *w, double *h)
{
    *w = 300;
    *h = 150; /* CSS default replaced-element size */
    const char *vb = root->attrs[SKF_SVG_ATTR_VIEWBOX];
    if (vb) {
        double v[4];
        if (sscanf(vb, "%lf%*[ ,\t\n]%lf%*[ ,\t\n]%lf%*[ ,\t\n]%lf", &v[0], &v[1], &v[2], &v[3]) == 4 &&
            v[2] > 0 && v[3] > 0) {
            *w = v[2];
            *h = v[3];
            return;
        }
    }
    for (int k = 0; k < 2; ++k) {
        const char *s = root->attrs[k ? SKF_SVG_ATTR_HEIGHT : SKF_SVG_ATTR_WIDTH];
        if (s) {
            double v = atof(s);
            if (v > 0 && !strchr(s, '%'))
                *(k ? h : w) = v;
        }
    }
}

skf_status skfi_svg_load_elements(skf_svg_character *c, const skf_svg_element *elems, size_t count,
                                  const skf_svg_load_options *opts, skf_warnings *warnings, skf_error *err)
{
    const char *name = c->name;
    if (!count || !elems[0].name || strcmp(elems[0].name, "svg") || elems[0].parent != -1)
        return skf_fail(err, SKF_ERR_FORMAT, "%s: root element is not <svg>", name);
    loader L = {0};
    L.c = c;
    L.e = elems;
    L.count = count;
    L.name = name;
    L.limits = opts ? opts->limits : NULL;
    L.max_depth = (int)skf_limits_value(L.limits, SKF_LIMIT_SVG_DEPTH); /* ceiling 1024 */
    L.w = warnings;
    L.err = err;
    skf_status st = SKF_OK;
    L.first = skf_malloc_array(count, sizeof *L.first);
    L.next = skf_malloc_array(count, sizeof *L.next);
    size_t *last = skf_malloc_array(count, sizeof *last);
    if (!L.first || !L.next || !last) {
        skf_free(last);
        release_loader(&L);
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", name);
    }
    for (size_t i = 0; i < count; ++i) {
        L.first[i] = L.next[i] = last[i] = NONE;
        if (i && (!elems[i].name || elems[i].parent < 0 || (size_t)elems[i].parent >= i)) {
            skf_free(last);
            release_loader(&L);
            return skf_fail(err, SKF_ERR_FORMAT, "%s: element %zu: %s", name, i,
                            elems[i].name ? "its parent is not an earlier element" : "no name");
        }
        if (i) {
            size_t p = (size_t)elems[i].parent;
            if (last[p] == NONE)
                L.first[p] = i;
            else
                L.next[last[p]] = i;
            last[p] = i;
        }
    }
    skf_free(last);
    canvas_size(&L.e[0], &c->width, &c->height);

    /* skeleton group and joint markers */
    L.skeleton = find_prefix(&L, 0, "skeleton", "g", 0);
    if (L.skeleton == NONE) {
        release_loader(&L);
        return skf_fail(err, SKF_ERR_FORMAT,
                        "%s: no skeleton: no <g> whose id starts with 'skeleton' (Pose Animator's "
                        "convention, see docs/svg.md)",
                        name);
    }
    char missing[SKF_ERROR_MESSAGE_MAX];
    size_t nmiss = 0, mlen = 0;
    missing[0] = 0;
    for (int j = 0; j < SKF_SVG_JOINT_COUNT && st == SKF_OK; ++j) {
        size_t m = find_prefix(&L, L.skeleton, skf_svg_joint_name(j), NULL, 0);
        double box[4];
        bool found = false;
        if (m != NONE)
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
        const char *id = get_id(&L, L.skeleton);
        snprintf(idbuf, sizeof idbuf, "%s", id ? id : "");
        st = skf_fail(err, SKF_ERR_FORMAT, "%s: g#%s: %zu joint marker%s missing: %s", name, idbuf,
                      nmiss, nmiss == 1 ? "" : "s", missing);
    }
    if (st == SKF_OK)
        st = set_display_none(&L, L.skeleton);

    /* illustration */
    int nill = 0;
    if (st == SKF_OK)
        st = find_illustrations(&L, 0, 0, &nill);
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
        int *gcount = skf_calloc(L.group_count + 1, sizeof *gcount);
        if (!first || !gcount) {
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
                gcount[g] = (int)c->bone_count - first[g];
            }
            for (size_t i = 0; i < c->path_count; ++i) {
                int g = c->paths[i].group;
                c->paths[i].sec_first = g >= 0 ? first[g] : 0;
                c->paths[i].sec_count = g >= 0 ? gcount[g] : 0;
            }
        }
        skf_free(first);
        skf_free(gcount);
    }
    if (st == SKF_OK)
        st = skfi_svg_bind(c, warnings, err);
    release_loader(&L);
    return st;
}

skf_status skf_svg_load_elements(const skf_svg_element *elems, size_t count, const char *name,
                                 const skf_svg_load_options *opts, skf_svg_character **out,
                                 skf_warnings *warnings, skf_error *err)
{
    *out = NULL;
    skf_svg_character *c = skf_calloc(1, sizeof *c);
    if (!c)
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", name ? name : "<elements>");
    c->name = skf_strdup(name ? name : "<elements>");
    skf_status st = c->name ? skfi_svg_load_elements(c, elems, count, opts, warnings, err)
                            : skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", name ? name : "<elements>");
    if (st != SKF_OK) {
        skf_svg_free(c);
        return st;
    }
    *out = c;
    return SKF_OK;
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
    skf_free(c->hidden);
    skfi_svg_template_release(&c->frame_tpl);
    if (c->doc && c->doc_free)
        c->doc_free(c->doc);
    skf_free(c->name);
    skf_free(c);
}

size_t skf_svg_path_element_index(const skf_svg_character *c, size_t i) { return c->paths[i].element; }

const size_t *skf_svg_hidden_elements(const skf_svg_character *c, size_t *count)
{
    *count = c->hidden_count;
    return c->hidden;
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
