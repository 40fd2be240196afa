/* Path data grammar, arcs, transforms (src/svg/path_data.c, geom.c, transform.c). */
#include "check.h"
#include "svg/svg_internal.h"

static skfi_svg_geom parse_ok(const char *d)
{
    skfi_svg_geom g = {0};
    size_t off = 0;
    const char *what = "";
    skf_status st = skfi_svg_parse_path(d, &g, 100000, &off, &what);
    CHECK_MSG(st == SKF_OK, "'%s': %s at %zu", d, what, off);
    return g;
}

static void check_node(const skfi_svg_geom *g, size_t k, double x, double y)
{
    CHECK_MSG(k < g->node_count, "node %zu of %zu", k, g->node_count);
    if (k < g->node_count) {
        CHECK_NEAR(g->xy[6 * k], x, 1e-12);
        CHECK_NEAR(g->xy[6 * k + 1], y, 1e-12);
    }
}

static void parse_err(const char *d, size_t expect_off, const char *expect_what)
{
    skfi_svg_geom g = {0};
    size_t off = 999;
    const char *what = "";
    skf_status st = skfi_svg_parse_path(d, &g, 100000, &off, &what);
    CHECK_MSG(st == SKF_ERR_FORMAT, "'%s' should fail", d);
    CHECK_MSG(off == expect_off, "'%s': offset %zu, expected %zu", d, off, expect_off);
    CHECK_MSG(strstr(what, expect_what) != NULL, "'%s': '%s'", d, what);
    skfi_svg_geom_release(&g);
}

int main(void)
{
    skfi_svg_geom g = parse_ok("M10,20L30,40");
    skfi_svg_geom h = parse_ok("  M 10 20 \n L 30 , 40 ");
    CHECK(g.node_count == 2 && h.node_count == 2 && !memcmp(g.xy, h.xy, 12 * sizeof(double)));
    /* a line's handles sit on its points */
    CHECK(g.xy[4] == 10 && g.xy[5] == 20 && g.xy[8] == 30 && g.xy[9] == 40);
    skfi_svg_geom_release(&g);
    skfi_svg_geom_release(&h);

    g = parse_ok("M1e1,2E+1l-1.5e-1.5"); /* exponents; "-1.5e-1" then ".5" */
    check_node(&g, 1, 10 - 0.15, 20.5);
    skfi_svg_geom_release(&g);
    g = parse_ok("M0.5.5L-1-2"); /* missing separators */
    check_node(&g, 0, 0.5, 0.5);
    check_node(&g, 1, -1, -2);
    skfi_svg_geom_release(&g);
    g = parse_ok("M0,0 10,0 10,10m1,1 2,2"); /* implicit lineto after M / m */
    CHECK(g.node_count == 5 && g.sub_count == 2);
    check_node(&g, 2, 10, 10);
    check_node(&g, 3, 11, 11);
    check_node(&g, 4, 13, 13);
    skfi_svg_geom_release(&g);
    g = parse_ok("M5,5H10V20h-2v-3"); /* H V h v */
    check_node(&g, 1, 10, 5);
    check_node(&g, 2, 10, 20);
    check_node(&g, 3, 8, 20);
    check_node(&g, 4, 8, 17);
    skfi_svg_geom_release(&g);
    g = parse_ok("M0,0C10,0 20,10 20,20S30,40 40,40"); /* S reflects the last control */
    CHECK_NEAR(g.xy[6 + 4], 20, 1e-12);
    CHECK_NEAR(g.xy[6 + 5], 30, 1e-12);
    check_node(&g, 2, 40, 40);
    skfi_svg_geom_release(&g);
    g = parse_ok("M0,0Q10,0 10,10T10,20"); /* quadratics, exact elevation; T reflects */
    CHECK_NEAR(g.xy[4], 20.0 / 3, 1e-12);
    CHECK_NEAR(g.xy[5], 0, 1e-12);
    CHECK_NEAR(g.xy[6 + 2], 10, 1e-12);
    CHECK_NEAR(g.xy[6 + 3], 10.0 / 3, 1e-12);
    CHECK_NEAR(g.xy[6 + 4], 10, 1e-12);
    CHECK_NEAR(g.xy[6 + 5], 10 + 20.0 / 3, 1e-12);
    check_node(&g, 2, 10, 20);
    skfi_svg_geom_release(&g);
    g = parse_ok("M0,0A10,10 0 0 1 20,0"); /* half circle through (10,-10) (y down) */
    CHECK(g.node_count == 3);
    check_node(&g, 1, 10, -10);
    check_node(&g, 2, 20, 0);
    {   /* the cubic's midpoint lies on the circle (approximation error ~2.7e-4 r) */
        const double *a = g.xy, *b = g.xy + 6;
        double mx = 0.125 * a[0] + 0.375 * a[4] + 0.375 * b[2] + 0.125 * b[0];
        double my = 0.125 * a[1] + 0.375 * a[5] + 0.375 * b[3] + 0.125 * b[1];
        double r = hypot(mx - 10, my);
        printf("quarter arc midpoint radius %.9f (r = 10)\n", r);
        CHECK(fabs(r - 10) < 10 * 3e-4);
    }
    skfi_svg_geom_release(&g);
    g = parse_ok("M0,0a10,10 0 0020,0"); /* compact flags, sweep 0 -> through (10,10) */
    check_node(&g, 1, 10, 10);
    check_node(&g, 2, 20, 0);
    skfi_svg_geom_release(&g);
    g = parse_ok("M0,0a5,5 0 0 1 40,0"); /* radius too small: scaled up to 20 */
    check_node(&g, 1, 20, -20);
    skfi_svg_geom_release(&g);
    g = parse_ok("M0,0L10,0L10,10Zm5,5l1,0"); /* m after Z is relative to the subpath start */
    CHECK(g.sub_count == 2 && g.subs[0].closed && !g.subs[1].closed);
    check_node(&g, 3, 5, 5);
    check_node(&g, 4, 6, 5);
    skfi_svg_geom_release(&g);
    g = parse_ok("M0,0L10,0L0,0Z"); /* the last node returns to the start: merged */
    CHECK(g.node_count == 2 && g.subs[0].closed);
    skfi_svg_geom_release(&g);
    g = parse_ok("M0,0L10,0ZL5,5"); /* drawing after Z starts at the subpath start */
    CHECK(g.sub_count == 2);
    check_node(&g, 2, 0, 0);
    check_node(&g, 3, 5, 5);
    skfi_svg_geom_release(&g);
    g = parse_ok("");
    CHECK(g.node_count == 0);
    skfi_svg_geom_release(&g);

    parse_err("M10,10 L20,x", 11, "expected a number");
    parse_err("L10,10", 0, "must start with M");
    parse_err("M1,2 A1,1 0 2 1 3,3", 12, "arc flag");
    parse_err("M1,2 K3", 5, "expected a command");
    parse_err("M1,2 Z 3,4", 7, "expected a command");
    parse_err("M1,", 3, "expected a number");

    /* transforms: translate(10) rotate(90, 5, 5) scale(2 3) applied to (1, 1):
     * scale -> (2, 3); rotate 90 about (5,5): (5 - (3-5), 5 + (2-5)) = (7, 2);
     * translate -> (17, 2) */
    skfi_svg_affine m;
    size_t off;
    const char *what;
    CHECK(skfi_svg_parse_transform("translate(10) rotate(90, 5, 5) scale(2 3)", m, &off, &what));
    double p[2] = {1, 1};
    skfi_svg_affine_apply(m, p, p);
    CHECK_NEAR(p[0], 17, 1e-12);
    CHECK_NEAR(p[1], 2, 1e-12);
    CHECK(skfi_svg_parse_transform("matrix(0.9951 -9.853767e-02 9.853767e-02 0.9951 -29.0274 13.8698)", m,
                               &off, &what));
    CHECK_NEAR(m[1], -9.853767e-02, 1e-15);
    CHECK(!skfi_svg_parse_transform("translate(1,2) skew(3)", m, &off, &what));
    CHECK(off == 15);
    CHECK(!skfi_svg_parse_transform("rotate(1,2)", m, &off, &what));
    skfi_svg_affine inv, id;
    CHECK(skfi_svg_parse_transform("rotate(33) scale(2,5) translate(3 -4) skewX(10)", m, &off, &what));
    CHECK(skfi_svg_affine_invert(inv, m));
    skfi_svg_affine_mul(id, m, inv);
    CHECK_NEAR(id[0], 1, 1e-12);
    CHECK_NEAR(id[2], 0, 1e-12);
    CHECK_NEAR(id[4], 0, 1e-12);
    return skf_test_done();
}
