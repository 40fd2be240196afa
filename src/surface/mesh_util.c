/* Small mesh helpers shared by the files of src/surface/: stride sampling,
 * sorted unique 64-bit keys, the unique edges of a triangle list, triangle
 * area vectors and vertex normals. No algorithm of its own (no paper). */
#include "surface_internal.h"
#include "skinfit/math.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

size_t skfi_stride_sample(size_t n, size_t want, uint32_t *out)
{
    if (want >= n) {
        for (size_t i = 0; i < n; ++i)
            out[i] = (uint32_t)i;
        return n;
    }
    for (size_t k = 0; k < want; ++k)
        out[k] = (uint32_t)((k * n) / want);
    return want;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

size_t skfi_sort_unique_u64(uint64_t *keys, size_t n)
{
    qsort(keys, n, sizeof *keys, cmp_u64);
    size_t u = 0;
    for (size_t i = 0; i < n; ++i)
        if (u == 0 || keys[i] != keys[u - 1])
            keys[u++] = keys[i];
    return u;
}

uint64_t skfi_pair_key(uint32_t a, uint32_t b)
{
    return a < b ? ((uint64_t)a << 32) | b : ((uint64_t)b << 32) | a;
}

size_t skfi_mesh_edges(const uint32_t *triangles, size_t triangle_count, const uint32_t *label, uint64_t *edges)
{
    size_t n = 0;
    for (size_t t = 0; t < triangle_count; ++t)
        for (int k = 0; k < 3; ++k) {
            uint32_t a = triangles[3 * t + (size_t)k], b = triangles[3 * t + (size_t)(k + 1) % 3];
            if (label)
                a = label[a], b = label[b];
            if (a != b)
                edges[n++] = skfi_pair_key(a, b);
        }
    return skfi_sort_unique_u64(edges, n);
}

void skfi_triangle_area_vector(const double *p, const uint32_t *f, double out[3])
{
    double e1[3], e2[3];
    for (int a = 0; a < 3; ++a) {
        e1[a] = p[3 * (size_t)f[1] + a] - p[3 * (size_t)f[0] + a];
        e2[a] = p[3 * (size_t)f[2] + a] - p[3 * (size_t)f[0] + a];
    }
    skf_cross3(out, e1, e2);
}

void skfi_surface_vertex_normals(const double *p, size_t n, const uint32_t *tri, size_t nt, double *nrm)
{
    memset(nrm, 0, n * 3 * sizeof(double));
    for (size_t t = 0; t < nt; ++t) {
        const uint32_t *f = tri + 3 * t;
        double c[3];
        skfi_triangle_area_vector(p, f, c);
        for (int k = 0; k < 3; ++k)
            for (int a = 0; a < 3; ++a)
                nrm[3 * f[k] + a] += c[a];
    }
    for (size_t v = 0; v < n; ++v) {
        double *q = nrm + 3 * v;
        double l = skf_norm3(q);
        if (l > 0)
            q[0] /= l, q[1] /= l, q[2] /= l;
    }
}
