/* Robustness of the SVG character loader: transforms on groups and
 * elements, every basic shape, compound paths and groups without markers
 * (which Pose Animator drops) are animated and written back in their own
 * space; truncated files, deep nesting and every failing allocation give an
 * error, never a crash or a leak (run under ASan in CI). */
#include "svg_test_util.h"

#include <libxml/parser.h>

/* root-space geometry of all paths of a character, concatenated */
static double *all_geometry(const skf_svg_character *c, size_t *count)
{
    size_t n = 0;
    for (size_t i = 0; i < skf_svg_path_count(c); ++i)
        n += 6 * skf_svg_path_node_count(c, i);
    double *xy = malloc((n ? n : 1) * sizeof(double));
    size_t o = 0;
    for (size_t i = 0; i < skf_svg_path_count(c); ++i) {
        skf_svg_path_rest(c, i, xy + o);
        o += 6 * skf_svg_path_node_count(c, i);
    }
    *count = n;
    return xy;
}

static void test_shapes_and_transforms(void)
{
    const char *ill =
        "<g transform=\"translate(100,0) scale(2)\">"
        "  <path id=\"compound\" d=\"M10,10 L20,10 L20,20 Z M12,12 L18,12 L18,18 Z\"/>"
        "  <rect id=\"rr\" x=\"5\" y=\"30\" width=\"20\" height=\"10\" rx=\"3\" transform=\"rotate(10)\"/>"
        "</g>"
        "<ellipse id=\"el\" cx=\"200\" cy=\"200\" rx=\"30\" ry=\"10\" transform=\"skewX(5)\"/>"
        "<polygon id=\"pg\" points=\"250,250 270,260 260,280\"/>"
        "<polyline id=\"pl\" points=\"300,300 310,320 330,300\" style=\"fill:none;stroke:red\"/>"
        "<line id=\"ln\" x1=\"150\" y1=\"450\" x2=\"170\" y2=\"480\"/>"
        "<g><circle id=\"inner\" cx=\"420\" cy=\"120\" r=\"6\"/><g><path id=\"deep\" d=\"m430,90 q5,5 10,0 t10,0\"/></g></g>"
        "<g><path id=\"eye\" d=\"M190,-270 C195,-280 205,-280 210,-270\"/>"
        "   <circle id=\"rightEye0_2_\" cx=\"190\" cy=\"-270\" r=\"1\"/><circle id=\"rightEye1_2_\" cx=\"200\" cy=\"-280\" r=\"1\"/>"
        "   <circle id=\"rightEye2_2_\" cx=\"210\" cy=\"-270\" r=\"1\"/></g>";
    skf_svg_character *c = svgt_synthetic(ill);
    printf("synthetic: %zu paths, %zu secondary bones\n", skf_svg_path_count(c),
           skf_svg_secondary_bone_count(c));
    CHECK(skf_svg_path_count(c) == 9);
    CHECK(skf_svg_secondary_bone_count(c) == 2); /* rightEye0-1, rightEye1-2 */
    CHECK(!strcmp(skf_svg_path_element(c, 1), "rect"));
    /* compound path in root space: translate(100,0) scale(2): (10,10) -> (120,20) */
    double xy[64];
    CHECK(skf_svg_path_node_count(c, 0) == 6);
    skf_svg_path_rest(c, 0, xy);
    CHECK(xy[0] == 120 && xy[1] == 20);

    /* translate every keypoint by (dx, dy): the whole drawing translates;
     * written back in each element's own space and re-read, it still does */
    const double dx = 37.5, dy = -12.25;
    skf_svg_animator *a = NULL;
    skf_error err = {0};
    CHECK(skf_svg_animator_new(c, NULL, &a, &err) == SKF_OK);
    skf_svg_pose_frame f;
    svgt_synthetic_frame(&f, 0.9);
    f.has_face = true;
    f.face_score = 0.9;
    for (int j = 0; j < SKF_SVG_POSE_JOINT_COUNT; ++j) {
        f.xy[j][0] += dx;
        f.xy[j][1] += dy;
    }
    for (int k = 0; k < SKF_SVG_FACE_JOINT_COUNT; ++k) {
        f.face_xy[k][0] += dx;
        f.face_xy[k][1] += dy;
    }
    CHECK(skf_svg_animator_update(a, &f) == SKF_SVG_FRAME_DRAWN);
    char *svg;
    size_t size;
    CHECK(skf_svg_write_frame(a, &svg, &size, &err) == SKF_OK);
    CHECK(strstr(svg, "transform=\"translate(100,0) scale(2)\"") != NULL); /* untouched */
    CHECK(strstr(svg, "<rect") == NULL && strstr(svg, "<circle id=\"inner\"") == NULL);
    CHECK(strstr(svg, "style=\"fill:none;stroke:red\"") != NULL);
    skf_svg_character *c2 = NULL;
    CHECK(skf_svg_load_memory(svg, size, "frame.svg", NULL, &c2, NULL, &err) == SKF_OK);
    size_t n1, n2;
    double *g1 = all_geometry(c, &n1), *g2 = c2 ? all_geometry(c2, &n2) : NULL;
    CHECK(c2 && n1 == n2);
    double maxerr = 0;
    for (size_t k = 0; c2 && k < n1 && n1 == n2; k += 2)
        maxerr = fmax(maxerr, hypot(g2[k] - (g1[k] + dx), g2[k + 1] - (g1[k + 1] + dy)));
    printf("synthetic translated by (%g, %g), written and re-read: max error %.3g px over %zu points\n",
           dx, dy, maxerr, n1 / 2);
    CHECK(maxerr <= 1e-6);
    free(g1);
    free(g2);
    skf_svg_free(c2);
    skf_free(svg);
    skf_svg_animator_free(a);
    skf_svg_free(c);
}

static char *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    *size = fread(s, 1, (size_t)n, f);
    s[*size] = 0;
    fclose(f);
    return s;
}

int main(void)
{
    test_shapes_and_transforms();

    const char *boy = skf_test_data("poseanimator/boy.svg");
    if (!boy)
        SKF_SKIP("poseanimator/boy.svg not found under %s", skf_test_data_dir());
    size_t size;
    char *text = read_all(boy, &size);
    skf_error err = {0};

    /* truncation: every 61st length */
    size_t ok = 0, failed = 0, other = 0;
    for (size_t len = 0; len < size; len += 61) {
        skf_svg_character *c = NULL;
        skf_status st = skf_svg_load_memory(text, len, "cut.svg", NULL, &c, NULL, &err);
        if (st == SKF_OK)
            ok++;
        else if (st == SKF_ERR_FORMAT)
            failed++;
        else
            other++;
        CHECK((st == SKF_OK) == (c != NULL));
        skf_svg_free(c);
    }
    printf("truncated boy.svg: %zu loaded, %zu format errors, %zu other\n", ok, failed, other);
    CHECK(other == 0 && failed > 0);

    /* every failing allocation while loading */
    size_t n = 1, nomem = 0;
    for (;; ++n) {
        skf_svg_character *c = NULL;
        skf_alloc_fail_from(n);
        skf_status st = skf_svg_load_memory(text, size, "boy.svg", NULL, &c, NULL, &err);
        skf_alloc_fail_from(0);
        skf_svg_free(c);
        if (st == SKF_OK)
            break;
        CHECK_MSG(st == SKF_ERR_NOMEM, "allocation %zu: %s", n, err.message);
        nomem++;
        if (n > 100000)
            break;
    }
    printf("allocation failure injection: %zu failing points, all reported as out of memory\n", nomem);
    CHECK(nomem > 10);

    /* every failing allocation while animating and writing */
    {
        skf_svg_character *c = NULL;
        CHECK(skf_svg_load_memory(text, size, "boy.svg", NULL, &c, NULL, &err) == SKF_OK);
        skf_svg_pose_frame f;
        svgt_rest_frame(c, &f);
        size_t fails = 0;
        for (n = 1; n < 100000; ++n) {
            skf_svg_animator *a = NULL;
            skf_svg_track t = {0};
            char *out1 = NULL, *out2 = NULL;
            size_t s1 = 0, s2 = 0;
            skf_alloc_fail_from(n);
            skf_status st = skf_svg_animator_new(c, NULL, &a, &err);
            if (st == SKF_OK) {
                skf_svg_animator_update(a, &f);
                st = skf_svg_write_frame(a, &out1, &s1, &err);
            }
            if (st == SKF_OK)
                st = skf_svg_track_init(&t, c, 2, 10, &err);
            if (st == SKF_OK) {
                skf_svg_track_store(&t, 0, a);
                skf_svg_track_store(&t, 1, a);
                st = skf_svg_write_animated(c, &t, &out2, &s2, &err);
            }
            skf_alloc_fail_from(0);
            skf_free(out1);
            skf_free(out2);
            skf_svg_track_release(&t);
            skf_svg_animator_free(a);
            if (st == SKF_OK)
                break;
            CHECK_MSG(st == SKF_ERR_NOMEM, "allocation %zu: %s", n, err.message);
            fails++;
        }
        printf("animate/write failure injection: %zu failing points, all out of memory\n", fails);
        CHECK(fails > 5);
        skf_svg_free(c);
    }

    /* deep nesting inside the illustration */
    size_t cap = 1 << 16, o = 0;
    char *deep = malloc(cap);
    for (int i = 0; i < 300; ++i)
        o += (size_t)snprintf(deep + o, cap - o, "<g>");
    o += (size_t)snprintf(deep + o, cap - o, "<path d=\"M0,0L1,1\"/>");
    for (int i = 0; i < 300; ++i)
        o += (size_t)snprintf(deep + o, cap - o, "</g>");
    char *svg = svgt_synthetic_svg(deep, NULL);
    skf_svg_character *c = NULL;
    skf_status st = skf_svg_load_memory(svg, strlen(svg), "deep.svg", NULL, &c, NULL, &err);
    printf("300 nested groups: %s\n", st == SKF_OK ? "loaded" : err.message);
    CHECK(st == SKF_ERR_LIMIT || st == SKF_ERR_FORMAT);
    skf_svg_free(c);
    free(svg);
    free(deep);

    /* coordinates beyond +-1e12 are refused (no inf / NaN downstream) */
    svg = svgt_synthetic_svg("<path id=\"far\" d=\"M1e300,0 L0,0\"/>", NULL);
    st = skf_svg_load_memory(svg, strlen(svg), "far.svg", NULL, &c, NULL, &err);
    printf("huge coordinates: %s\n", err.message);
    CHECK(st == SKF_ERR_LIMIT && strstr(err.message, "path#far"));
    free(svg);
    {
        skf_svg_poses p;
        const char *j = "[{\"score\": 1, \"keypoints\": [{\"part\": \"leftWrist\", \"score\": 1, "
                        "\"position\": {\"x\": 1e300, \"y\": 0}}]}]";
        CHECK(skf_svg_poses_parse(j, strlen(j), "far.json", 10, 10, &p, &err) == SKF_ERR_FORMAT);
        printf("huge keypoint: %s\n", err.message);
        CHECK(strstr(err.message, "frames[0].keypoints[0].position.x: beyond") != NULL);
    }

    /* a bone whose two markers coincide is an error, not NaN */
    svg = svgt_synthetic_svg("<path d=\"M0,0L1,1\"/>", NULL);
    char *at = strstr(svg, "id=\"leftElbow_1_\" cx=\"400\"");
    CHECK(at != NULL);
    if (at) {
        memcpy(at + strlen("id=\"leftElbow_1_\" cx=\""), "500", 3); /* elbow onto the wrist */
        st = skf_svg_load_memory(svg, strlen(svg), "same.svg", NULL, &c, NULL, &err);
        printf("coincident markers: %s\n", err.message);
        CHECK(st == SKF_ERR_FORMAT && strstr(err.message, "leftElbow-leftWrist"));
    }
    free(svg);
    free(text);
    xmlCleanupParser();
    return skf_test_done();
}
