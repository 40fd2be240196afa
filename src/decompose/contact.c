/* Skin contact between bones across separate mesh parts.
 *
 * The skeleton's tree (skeleton.c; B. H. Le and Z. Deng, "Robust and
 * Accurate Skeletal Rigging from Mesh Sequences", ACM TOG 33(4), 2014)
 * couples two bones by the skin they share. A model built from separate
 * connected components (a leg modelled apart from the body and pushed into
 * it) has bones whose skins touch without sharing a vertex or a mesh edge,
 * so shared weight alone misses real neighbours. Here each vertex looks,
 * in the rest pose, for the nearest vertex of *another* component within
 * a radius h (the mean mesh edge length), and the pair adds
 * ½ · w_a(j) · w_b(k) to the contact of bones (a, b) — ½ because k looks
 * for j too — and the same times the pair's midpoint to the contact's
 * moment. A uniform grid of cell h makes the search O(N) for a surface of
 * bounded density. The units match the shared weight Σ_j w_aj w_bj: about
 * one per touching vertex. This construction is ours. */
#include "decompose_internal.h"
#include "base/base_internal.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t cell_key(long long x, long long y, long long z)
{
    /* 21 bits per axis, offset so small negatives stay distinct */
    return ((uint64_t)(x + (1 << 20)) & 0x1fffff) << 42 | ((uint64_t)(y + (1 << 20)) & 0x1fffff) << 21 |
           ((uint64_t)(z + (1 << 20)) & 0x1fffff);
}


skf_status skfi_contact_build(const skfi_decompose_ctx *c, skfi_contact *ct, skf_error *err)
{
    size_t N = c->N;
    ct->n = 0;
    ct->v = NULL;
    if (!c->adj_off || !c->adj || !c->rep || N < 2)
        return SKF_OK;
    skf_status st = SKF_OK;
    uint32_t *comp = skf_malloc_array(N, sizeof *comp);
    uint32_t *stack = skf_malloc_array(N, sizeof *stack);
    skfi_keyed *ks = skf_malloc_array(N, sizeof *ks);
    long long *cell = skf_malloc_array(3 * N, sizeof *cell);
    ct->v = skf_malloc_array(2 * N, sizeof *ct->v);
    if (!comp || !stack || !ks || !cell || !ct->v) {
        st = skf_fail(err, SKF_ERR_NOMEM, "decompose: out of memory for the skeleton's contacts");
        goto done;
    }
    /* components of the representatives (seams already merged), and the
     * mean edge length */
    for (size_t j = 0; j < N; ++j)
        comp[j] = UINT32_MAX;
    uint32_t ncomp = 0;
    double elen = 0;
    size_t nedge = 0;
    for (size_t s = 0; s < N; ++s) {
        if (c->rep[s] != s || comp[s] != UINT32_MAX)
            continue;
        size_t top = 0;
        stack[top++] = (uint32_t)s;
        comp[s] = ncomp;
        while (top) {
            uint32_t u = stack[--top];
            for (size_t e = c->adj_off[u]; e < c->adj_off[u + 1]; ++e) {
                uint32_t v = c->adj[e];
                if (v > u) {
                    double dd = 0;
                    for (int q = 0; q < 3; ++q)
                        dd += (c->rest[3 * u + q] - c->rest[3 * v + q]) * (c->rest[3 * u + q] - c->rest[3 * v + q]);
                    elen += sqrt(dd);
                    ++nedge;
                }
                if (comp[v] == UINT32_MAX) {
                    comp[v] = ncomp;
                    stack[top++] = v;
                }
            }
        }
        ++ncomp;
    }
    if (ncomp < 2 || nedge == 0)
        goto done;
    for (size_t j = 0; j < N; ++j)
        comp[j] = comp[c->rep[j]];
    double h = elen / (double)nedge;
    if (!(h > 0))
        goto done;
    for (size_t j = 0; j < N; ++j) {
        for (int q = 0; q < 3; ++q)
            cell[3 * j + q] = (long long)floor(c->rest[3 * j + q] / h);
        ks[j].key = cell_key(cell[3 * j], cell[3 * j + 1], cell[3 * j + 2]);
        ks[j].v = (uint32_t)j;
    }
    qsort(ks, N, sizeof *ks, skfi_keyed_cmp);
    for (size_t j = 0; j < N; ++j) {
        if (c->rep[j] != j)
            continue; /* a seam twin is the same point */
        const double *pj = c->rest + 3 * j;
        double best = h * h;
        size_t bk = SIZE_MAX;
        for (int dx = -1; dx <= 1; ++dx)
            for (int dy = -1; dy <= 1; ++dy)
                for (int dz = -1; dz <= 1; ++dz) {
                    uint64_t key = cell_key(cell[3 * j] + dx, cell[3 * j + 1] + dy, cell[3 * j + 2] + dz);
                    size_t lo = skfi_keyed_lower_bound(ks, N, key); /* the cell's first entry */
                    for (size_t e = lo; e < N && ks[e].key == key; ++e) {
                        size_t k = ks[e].v;
                        if (comp[k] == comp[j] || c->rep[k] != k)
                            continue;
                        const double *pk = c->rest + 3 * k;
                        double dd = (pj[0] - pk[0]) * (pj[0] - pk[0]) + (pj[1] - pk[1]) * (pj[1] - pk[1]) +
                                    (pj[2] - pk[2]) * (pj[2] - pk[2]);
                        if (dd < best || (dd == best && k < bk)) {
                            best = dd;
                            bk = k;
                        }
                    }
                }
        if (bk == SIZE_MAX)
            continue;
        ct->v[2 * ct->n] = (uint32_t)j;
        ct->v[2 * ct->n + 1] = (uint32_t)bk;
        ct->n++;
    }
done:
    skf_free(comp);
    skf_free(stack);
    skf_free(ks);
    skf_free(cell);
    if (st) {
        skf_free(ct->v);
        ct->v = NULL;
        ct->n = 0;
    }
    return st;
}

void skfi_contact_accumulate(const skfi_contact *ct, const double *rest, const skf_decomposition *d, double *S,
                             double *Mc, double *total)
{
    size_t B = d->bone_count, K = d->max_influences;
    *total = 0;
    for (size_t e = 0; e < ct->n; ++e) {
        size_t j = ct->v[2 * e], k = ct->v[2 * e + 1];
        for (size_t u = 0; u < K; ++u) {
            double wa = d->weight[j * K + u];
            if (!(wa > 0))
                continue;
            size_t a = d->weight_bone[j * K + u];
            for (size_t v = 0; v < K; ++v) {
                double wb = d->weight[k * K + v];
                size_t bb = d->weight_bone[k * K + v];
                if (!(wb > 0) || bb == a)
                    continue;
                size_t lo = a < bb ? a : bb, hi = a < bb ? bb : a;
                double w = 0.5 * wa * wb;
                S[lo * B + hi] += w;
                *total += w;
                for (int q = 0; q < 3; ++q)
                    Mc[(lo * B + hi) * 3 + (size_t)q] += w * 0.5 * (rest[3 * j + (size_t)q] + rest[3 * k + (size_t)q]);
            }
        }
    }
}

void skfi_contact_free(skfi_contact *ct)
{
    skf_free(ct->v);
    ct->v = NULL;
    ct->n = 0;
}
