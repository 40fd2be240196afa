/* skf_svg_load_elements (the loader the browser's Pose page calls from WebAssembly) against
 * skf_svg_load (libxml2 parse) on the shared illustrations: the element list is built here from
 * libxml2's tree, the way a browser walks its DOM; both characters must have the same paths,
 * rest geometry (bit for bit), hidden elements, bone weights and, after the same frames, the same
 * path data (skf_svg_path_data = the d the frame writer writes). Bad lists are refused with one
 * message naming the element. */
#include "svg_test_util.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <string.h>

typedef struct list {
    skf_svg_element e[20000];
    size_t n;
} list;

static void walk(list *l, xmlNodePtr n, int parent)
{
    if (l->n == sizeof l->e / sizeof l->e[0])
        return;
    size_t i = l->n++;
    memset(&l->e[i], 0, sizeof l->e[i]);
    l->e[i].name = (const char *)n->name;
    l->e[i].parent = parent;
    for (int a = 0; a < SKF_SVG_ATTR_COUNT; ++a)
        l->e[i].attrs[a] = (const char *)xmlGetProp(n, (const xmlChar *)skf_svg_attr_name(a));
    for (xmlNodePtr k = n->children; k; k = k->next)
        if (k->type == XML_ELEMENT_NODE)
            walk(l, k, (int)i);
}

static void release(list *l)
{
    for (size_t i = 0; i < l->n; ++i)
        for (int a = 0; a < SKF_SVG_ATTR_COUNT; ++a)
            xmlFree((xmlChar *)l->e[i].attrs[a]);
}

static list L;

static void one(const char *rel)
{
    const char *path = skf_test_data(rel);
    if (!path)
        SKF_SKIP("%s not found under %s", rel, skf_test_data_dir());
    skf_svg_character *a = svgt_load(rel), *b = NULL;
    xmlDocPtr doc = xmlReadFile(path, NULL, XML_PARSE_NONET);
    CHECK(doc != NULL);
    L.n = 0;
    walk(&L, xmlDocGetRootElement(doc), -1);
    skf_error err = {0};
    CHECK(skf_svg_load_elements(L.e, L.n, rel, NULL, &b, NULL, &err) == SKF_OK);
    if (!b) {
        fprintf(stderr, "%s\n", err.message);
        exit(1);
    }
    CHECK(skf_svg_path_count(a) == skf_svg_path_count(b));
    size_t ha, hb;
    const size_t *HA = skf_svg_hidden_elements(a, &ha), *HB = skf_svg_hidden_elements(b, &hb);
    CHECK(ha == hb && ha > 0 && !memcmp(HA, HB, ha * sizeof *HA));
    size_t same_geom = 0, same_weight = 0, np = skf_svg_path_count(a);
    for (size_t i = 0; i < np; ++i) {
        size_t n = skf_svg_path_node_count(a, i);
        CHECK(n == skf_svg_path_node_count(b, i));
        CHECK(skf_svg_path_element_index(a, i) == skf_svg_path_element_index(b, i));
        CHECK(!strcmp(skf_svg_path_id(a, i), skf_svg_path_id(b, i)));
        double *x = malloc(n * 6 * sizeof *x), *y = malloc(n * 6 * sizeof *y);
        skf_svg_path_rest(a, i, x);
        skf_svg_path_rest(b, i, y);
        same_geom += !memcmp(x, y, n * 6 * sizeof *x);
        free(x);
        free(y);
        bool w = true;
        for (int bone = 0; bone < SKF_SVG_BONE_COUNT; ++bone)
            w &= skf_svg_path_bone_weight(a, i, bone) == skf_svg_path_bone_weight(b, i, bone);
        same_weight += w;
    }
    CHECK(same_geom == np && same_weight == np);
    /* the same frames through both: path data equal, and equal to what the frame writer writes */
    skf_svg_animator *aa = NULL, *ab = NULL;
    CHECK(skf_svg_animator_new(a, NULL, &aa, &err) == SKF_OK && skf_svg_animator_new(b, NULL, &ab, &err) == SKF_OK);
    size_t same_d = 0, in_frame = 0, frames = 0;
    for (int f = 0; f < 5; ++f) {
        skf_svg_pose_frame fr;
        svgt_rest_frame(a, &fr);
        svgt_similarity(&fr, 1 + 0.05 * f, 0.1 * f, 7.0 * f, -3.0 * f);
        skf_svg_animator_update(aa, &fr);
        skf_svg_animator_update(ab, &fr);
        char *svg = NULL;
        size_t size = 0;
        CHECK(skf_svg_write_frame(aa, &svg, &size, &err) == SKF_OK);
        for (size_t i = 0; i < np; ++i) {
            char *da = NULL, *db = NULL;
            CHECK(skf_svg_path_data(a, i, skf_svg_animator_path(aa, i, NULL, NULL), &da, NULL, &err) == SKF_OK);
            CHECK(skf_svg_path_data(b, i, skf_svg_animator_path(ab, i, NULL, NULL), &db, NULL, &err) == SKF_OK);
            same_d += !strcmp(da, db);
            /* the frame holds this path's data as its d attribute */
            size_t l = strlen(da);
            char *want = malloc(l + 8);
            snprintf(want, l + 8, "d=\"%s\"", da);
            in_frame += strstr(svg, want) != NULL;
            free(want);
            skf_free(da);
            skf_free(db);
        }
        skf_free(svg);
        frames++;
    }
    CHECK(same_d == frames * np && in_frame == frames * np);
    /* a character without a document has nothing to write back */
    char *svg = NULL;
    size_t size = 0;
    CHECK(skf_svg_write_frame(ab, &svg, &size, &err) == SKF_ERR_ARGUMENT && svg == NULL);
    printf("%s: %zu elements, %zu paths: rest geometry %zu/%zu bit-identical, weights %zu/%zu, "
           "path data %zu/%zu equal over %zu frames and in the written frames, %zu hidden elements\n",
           rel, L.n, np, same_geom, np, same_weight, np, same_d, frames * np, frames, ha);
    skf_svg_animator_free(aa);
    skf_svg_animator_free(ab);
    skf_svg_free(a);
    skf_svg_free(b);
    release(&L);
    xmlFreeDoc(doc);
}

int main(void)
{
    /* refusals: one message naming the element */
    skf_svg_element bad[2] = {{.name = "svg", .parent = -1}, {.name = "g", .parent = 5}};
    skf_svg_character *c = NULL;
    skf_error err = {0};
    CHECK(skf_svg_load_elements(bad, 2, "bad.svg", NULL, &c, NULL, &err) == SKF_ERR_FORMAT && !c);
    CHECK(strstr(err.message, "bad.svg: element 1: its parent is not an earlier element") != NULL);
    skf_svg_element notsvg[1] = {{.name = "html", .parent = -1}};
    CHECK(skf_svg_load_elements(notsvg, 1, "x.svg", NULL, &c, NULL, &err) == SKF_ERR_FORMAT && !c);
    CHECK(strstr(err.message, "x.svg: root element is not <svg>") != NULL);
    skf_svg_element noskel[2] = {{.name = "svg", .parent = -1}, {.name = "g", .parent = 0}};
    CHECK(skf_svg_load_elements(noskel, 2, "n.svg", NULL, &c, NULL, &err) == SKF_ERR_FORMAT && !c);
    CHECK(strstr(err.message, "n.svg: no skeleton") != NULL);
    one("poseanimator/boy.svg");
    one("poseanimator/girl.svg");
    one("poseanimator/abstract.svg");
    return skf_test_done();
}
