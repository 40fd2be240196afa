/* skf_decompose_measure against figures worked by hand: two vertices, two
 * frames, errors 0, 5 (a 3-4-5 offset), 0 and 1; diagonal 10.
 *   ΣΣ‖a − b‖² = 25 + 1 = 26 over N·F = 4 samples
 *   rms  = sqrt(26 / 4)                         = 2.5495097567963922
 *   erms = 1000 · sqrt(26) / (sqrt(12) · 10)    = 147.19601443879744
 *   max  = 5, max % = 100 · 5 / 10              = 50 */
#include "check.h"
#include "skinfit/decompose.h"

int main(void)
{
    const double a[12] = {0, 0, 0, 1, 0, 0, /* frame 1 */ 2, 2, 2, 0, 0, 0};
    const double b[12] = {0, 0, 0, 1, 3, 4, /* frame 1 */ 2, 2, 2, 0, 0, 1};
    skf_decompose_metrics m;
    skf_decompose_measure(2, 2, a, b, 10, &m);
    CHECK_NEAR(m.rms, sqrt(26.0 / 4), 1e-15);
    CHECK_NEAR(m.rms, 2.5495097567963922, 1e-15);
    CHECK_NEAR(m.erms, 147.19601443879744, 1e-12);
    CHECK(m.max_error == 5);
    CHECK(m.max_error_pct == 50);
    CHECK(m.diagonal == 10);
    /* identical animations, and a zero diagonal, give zeros rather than NaN */
    skf_decompose_measure(2, 2, a, a, 0, &m);
    CHECK(m.rms == 0 && m.erms == 0 && m.max_error == 0 && m.max_error_pct == 0);
    return skf_test_done();
}
