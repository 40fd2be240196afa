/* Re-seeding bones that lost their skin during the alternation.
 *
 * B. H. Le and Z. Deng, "Smooth Skinning Decomposition with Rigid Bones",
 * ACM TOG 31(6), 2012, section 4.3: the initialisation grows bones by
 * splitting the cluster with the largest error at its worst vertex, and a
 * cluster that empties out is regrown the same way (init_split.c). The
 * alternation can empty a bone too: the weight step moves a bone's skin to
 * its neighbours, and a bone is a weight candidate only where it already
 * weighs (on the vertex or its 1-ring, weights.c), so a bone whose weight
 * has shrunk to a few vertices never spreads again — its 12·F numbers fit
 * less than three points (a rigid motion needs three) and the
 * decomposition has one usable bone less than asked for. This applies the
 * initialisation's rule there: a bone carrying less than MIN_MASS vertices'
 * worth of weight takes the seed's side of a split of the worst-fitted
 * bone's vertices (skfi_decompose_split_cluster, the growth step's split),
 * its transforms become the rigid fit of that side (the initialisation's
 * cluster fit), and the next weight step gets it as a candidate there; the
 * weight step, not the split, decides where it weighs. Once per bone
 * (`spent`), so the alternation goes back to the plain one after at most B
 * re-seeds. docs/decompose.md step 4 has the figures.
 */
#include "decompose_internal.h"

#include <string.h>

#define MIN_MASS 3.0  /* vertices' worth of weight a bone needs: a rigid fit needs 3 points */
#define MIN_CLUSTER 3 /* as init_split.c: a split needs 2 × 3 vertices */

skf_status skfi_decompose_reseed(const skfi_decompose_ctx *c, skf_decomposition *d, uint8_t *spent,
                                 uint32_t *seed, size_t *n_out, skf_error *err)
{
    size_t N = c->N, F = c->F, K = d->max_influences, B = d->bone_count;
    *n_out = 0;
    double *mass = skf_calloc(B, sizeof *mass);
    if (!mass)
        return skf_fail(err, SKF_ERR_NOMEM, "decompose: out of memory");
    for (size_t k = 0; k < N * K; ++k)
        mass[d->weight_bone[k]] += d->weight[k];
    size_t dead = 0;
    for (size_t b = 0; b < B; ++b)
        dead += mass[b] < MIN_MASS && !spent[b];
    if (!dead) {
        skf_free(mass);
        return SKF_OK;
    }
    skf_status st = SKF_OK;
    double *e = skf_malloc_array(N, sizeof *e), *cerr = skf_malloc_array(B, sizeof *cerr);
    double *fit = skf_malloc_array(F * B * 12, sizeof *fit);
    uint32_t *labels = skf_malloc_array(N, sizeof *labels);
    size_t *count = skf_malloc_array(B, sizeof *count);
    uint8_t *fresh = skf_calloc(B, 1);
    size_t n = 0;
    if (!e || !cerr || !fit || !labels || !count || !fresh) {
        st = skf_fail(err, SKF_ERR_NOMEM, "decompose: out of memory re-seeding bones");
        goto out;
    }
    skfi_decompose_vertex_errors(c, B, d->transforms, K, d->weight_bone, d->weight, e);
    /* clusters: each vertex on its heaviest bone (slot 0: sorted descending) */
    for (size_t j = 0; j < N; ++j)
        labels[j] = d->weight_bone[j * K];
    for (size_t b = 0; b < B; ++b) {
        if (!(mass[b] < MIN_MASS) || spent[b])
            continue;
        memset(cerr, 0, B * sizeof *cerr);
        memset(count, 0, B * sizeof *count);
        for (size_t j = 0; j < N; ++j) {
            cerr[labels[j]] += e[j];
            count[labels[j]]++;
        }
        /* the worst-fitted live bone with a cluster to split (≥ 6
         * vertices), not one re-seeded in this call */
        size_t worst = B;
        for (size_t l = 0; l < B; ++l)
            if (l != b && !fresh[l] && !(mass[l] < MIN_MASS) && count[l] >= 2 * MIN_CLUSTER &&
                (worst == B || cerr[l] > cerr[worst]))
                worst = l;
        spent[b] = 1;
        if (worst == B)
            continue;
        /* the dead bone's own few vertices go back to the worst's pool */
        for (size_t j = 0; j < N; ++j)
            if (labels[j] == b)
                labels[j] = (uint32_t)worst;
        if (!skfi_decompose_split_cluster(c, labels, e, (uint32_t)worst, (uint32_t)b))
            continue;
        fresh[b] = 1;
        ++n;
    }
    if (n) {
        /* the rigid fits of the clusters (all of them: the initialisation's
         * fit; only the re-seeded bones' are kept) */
        if ((st = skfi_decompose_fit_clusters(c, B, labels, fit, err)))
            goto out;
        for (size_t b = 0; b < B; ++b)
            if (fresh[b])
                for (size_t f = 0; f < F; ++f)
                    memcpy(d->transforms + (f * B + b) * 12, fit + (f * B + b) * 12, 12 * sizeof *fit);
        for (size_t j = 0; j < N; ++j)
            seed[j] = fresh[labels[j]] ? labels[j] : UINT32_MAX;
    }
    *n_out = n;
out:
    skf_free(mass);
    skf_free(e);
    skf_free(cerr);
    skf_free(fit);
    skf_free(labels);
    skf_free(count);
    skf_free(fresh);
    return st;
}
