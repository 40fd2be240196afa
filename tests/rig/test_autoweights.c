/* Autoweights: the 1/d^P rule on a two-bone chain checked against hand
 * computation; top-K, normalisation, non-deforming joints, bad options. */
#include "check.h"
#include "skinfit/rig.h"
#include "skinfit/transfer.h"

int main(void)
{
    /* chain: j0 (0,0,0) -> j1 (1,0,0) -> j2 (2,0,0) (leaf, a point); j3 a
     * non-deforming joint at (0.5, 0.1, 0) */
    double jp[12] = {0, 0, 0, 1, 0, 0, 2, 0, 0, 0.5, 0.1, 0};
    int parent[4] = {-1, 0, 1, 0};
    bool def[4] = {true, true, true, false};
    double v[9] = {0.5, 0.5, 0, 1.5, 0, 0.25, 3, 0, 0};
    uint32_t jo[3 * 4];
    double w[3 * 4];
    skf_error err;
    skf_autoweights_options o = {4, 2};
    CHECK(skf_autoweights(v, 3, jp, parent, def, 4, &o, jo, w, &err) == SKF_OK);
    /* vertex 0 (0.5,0.5,0): d0 = 0.5 (segment j0-j1 and j0-j3, j3 not
     * deforming but j0 owns both segments: min(0.5, dist to j0-j3 segment)) */
    double d03;
    {
        /* distance from (0.5,0.5) to segment (0,0)-(0.5,0.1) */
        double ab[2] = {0.5, 0.1}, ap[2] = {0.5, 0.5};
        double tt = (ab[0] * ap[0] + ab[1] * ap[1]) / (ab[0] * ab[0] + ab[1] * ab[1]);
        tt = tt > 1 ? 1 : tt;
        double dx = ap[0] - tt * ab[0], dy = ap[1] - tt * ab[1];
        d03 = sqrt(dx * dx + dy * dy);
    }
    double d0 = fmin(0.5, d03), d1 = sqrt(0.5 * 0.5 + 0.5 * 0.5) /* to segment j1-j2: nearest j1 */,
           d2 = sqrt(1.5 * 1.5 + 0.25);
    double w0 = 1 / (d0 * d0), w1 = 1 / (d1 * d1), w2 = 1 / (d2 * d2), s = w0 + w1 + w2;
    printf("vertex 0: joints %u %u %u %u weights %.6f %.6f %.6f %.6f\n", jo[0], jo[1], jo[2], jo[3], w[0], w[1], w[2], w[3]);
    CHECK(jo[0] == 0 && jo[1] == 1 && jo[2] == 2);
    CHECK_NEAR(w[0], w0 / s, 1e-14);
    CHECK_NEAR(w[1], w1 / s, 1e-14);
    CHECK_NEAR(w[2], w2 / s, 1e-14);
    CHECK(w[3] == 0); /* the non-deforming joint gets nothing */
    /* vertex 2 (3,0,0): beyond the leaf point j2 (d = 1), which ties with
     * the end of segment j1-j2 (d = 1); j0 at d = 2: weights 4/9 4/9 1/9 */
    CHECK(jo[8] == 1 && jo[9] == 2 && jo[10] == 0);
    CHECK_NEAR(w[8], 4.0 / 9, 1e-14);
    CHECK_NEAR(w[9], 4.0 / 9, 1e-14);
    CHECK_NEAR(w[10], 1.0 / 9, 1e-14);
    /* sums */
    for (int vtx = 0; vtx < 3; ++vtx) {
        double sum = 0;
        for (int k = 0; k < 4; ++k)
            sum += w[4 * vtx + k];
        CHECK_NEAR(sum, 1, 1e-15);
    }
    /* K = 1: all weight on the nearest bone; P = 1 vs 2: P=1 is more diffuse */
    uint32_t j1[3];
    double w1s[3];
    skf_autoweights_options o1 = {1, 2};
    CHECK(skf_autoweights(v, 3, jp, parent, def, 4, &o1, j1, w1s, &err) == SKF_OK);
    CHECK(j1[0] == 0 && w1s[0] == 1 && j1[1] == 1 && w1s[1] == 1);
    skf_autoweights_options od = {4, 1};
    double wd[12];
    uint32_t jd[12];
    CHECK(skf_autoweights(v, 3, jp, parent, def, 4, &od, jd, wd, &err) == SKF_OK);
    printf("vertex 0 max weight: P=2 %.4f, P=1 %.4f\n", w[0], wd[0]);
    CHECK(wd[0] < w[0]);
    /* a vertex exactly on a bone stays finite and dominant */
    double on[3] = {0.5, 0, 0};
    CHECK(skf_autoweights(on, 1, jp, parent, def, 4, &o, jo, w, &err) == SKF_OK);
    CHECK(jo[0] == 0 && w[0] > 0.999999 && isfinite(w[0]));
    /* bad options */
    skf_autoweights_options bad = {9, 2};
    CHECK(skf_autoweights(v, 3, jp, parent, def, 4, &bad, jo, w, &err) == SKF_ERR_ARGUMENT);
    bool none[4] = {false, false, false, false};
    CHECK(skf_autoweights(v, 3, jp, parent, none, 4, &o, jo, w, &err) == SKF_ERR_ARGUMENT);
    return skf_test_done();
}
