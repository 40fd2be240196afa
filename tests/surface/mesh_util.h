/* Small procedural meshes for the transfer tests (test-only helpers). */
#ifndef SKF_TESTS_MESH_UTIL_H
#define SKF_TESTS_MESH_UTIL_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* A lumpy, asymmetric closed surface (a deformed UV sphere): rings × segs
 * grid plus two poles. Returns vertex and triangle counts; arrays malloc'ed. */
static void mesh_blob(int rings, int segs, double lump, double **pos, size_t *nv, uint32_t **tri, size_t *nt)
{
    size_t V = (size_t)rings * (size_t)segs + 2;
    size_t T = (size_t)segs * 2 + (size_t)(rings - 1) * (size_t)segs * 2;
    double *p = malloc(V * 3 * sizeof(double));
    uint32_t *t = malloc(T * 3 * sizeof(uint32_t));
    size_t k = 0;
    for (int r = 0; r < rings; ++r) {
        double th = M_PI * (r + 1) / (rings + 1);
        for (int s = 0; s < segs; ++s) {
            double ph = 2 * M_PI * s / segs;
            double x = sin(th) * cos(ph), y = cos(th), z = sin(th) * sin(ph);
            double rad = 1 + lump * (0.3 * sin(3 * ph + 1) * sin(2 * th) + 0.2 * x * y + 0.15 * z);
            p[3 * k] = 2.0 * rad * x + 0.3;
            p[3 * k + 1] = 1.2 * rad * y - 0.1;
            p[3 * k + 2] = 0.7 * rad * z + 0.2 * x * x;
            ++k;
        }
    }
    size_t top = k++, bot = k++;
    p[3 * top] = 0.3, p[3 * top + 1] = 1.2 - 0.1, p[3 * top + 2] = 0;
    p[3 * bot] = 0.3, p[3 * bot + 1] = -1.2 - 0.1, p[3 * bot + 2] = 0;
    size_t n = 0;
    for (int s = 0; s < segs; ++s) {
        uint32_t a = (uint32_t)s, b = (uint32_t)((s + 1) % segs);
        t[3 * n] = (uint32_t)top, t[3 * n + 1] = b, t[3 * n + 2] = a, ++n;
        uint32_t c = (uint32_t)((rings - 1) * segs + s), d = (uint32_t)((rings - 1) * segs + (s + 1) % segs);
        t[3 * n] = (uint32_t)bot, t[3 * n + 1] = c, t[3 * n + 2] = d, ++n;
    }
    for (int r = 0; r + 1 < rings; ++r)
        for (int s = 0; s < segs; ++s) {
            uint32_t a = (uint32_t)(r * segs + s), b = (uint32_t)(r * segs + (s + 1) % segs);
            uint32_t c = a + (uint32_t)segs, d = b + (uint32_t)segs;
            t[3 * n] = a, t[3 * n + 1] = b, t[3 * n + 2] = c, ++n;
            t[3 * n] = b, t[3 * n + 1] = d, t[3 * n + 2] = c, ++n;
        }
    *pos = p;
    *nv = V;
    *tri = t;
    *nt = n;
}

/* Deterministic pseudo-random numbers in [0,1) (LCG). */
__attribute__((unused)) static double test_rand(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) / 9007199254740992.0;
}

/* Midpoint subdivision 1 → 4 (same surface, new vertex order): new vertices
 * are appended per edge (duplicates not shared, i.e. a re-split mesh). */
static void mesh_subdivide(const double *p, size_t nv, const uint32_t *t, size_t nt, double **op, size_t *onv,
                           uint32_t **ot, size_t *ont)
{
    size_t V = nv + 3 * nt;
    double *q = malloc(V * 3 * sizeof(double));
    uint32_t *u = malloc(nt * 4 * 3 * sizeof(uint32_t));
    for (size_t i = 0; i < nv * 3; ++i)
        q[i] = p[i];
    for (size_t f = 0; f < nt; ++f) {
        uint32_t a = t[3 * f], b = t[3 * f + 1], c = t[3 * f + 2];
        uint32_t m[3];
        uint32_t e[3][2] = {{a, b}, {b, c}, {c, a}};
        for (int k = 0; k < 3; ++k) {
            size_t idx = nv + 3 * f + (size_t)k;
            for (int x = 0; x < 3; ++x)
                q[3 * idx + x] = 0.5 * (p[3 * e[k][0] + x] + p[3 * e[k][1] + x]);
            m[k] = (uint32_t)idx;
        }
        uint32_t *o = u + 12 * f;
        o[0] = a, o[1] = m[0], o[2] = m[2];
        o[3] = m[0], o[4] = b, o[5] = m[1];
        o[6] = m[2], o[7] = m[1], o[8] = c;
        o[9] = m[0], o[10] = m[1], o[11] = m[2];
    }
    *op = q;
    *onv = V;
    *ot = u;
    *ont = nt * 4;
}

#endif
