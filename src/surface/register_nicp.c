/* Non-rigid registration of the target's rest surface onto the source's.
 *
 * References: Amberg, Romdhani & Vetter, "Optimal Step Nonrigid ICP
 * Algorithms for Surface Registration" (CVPR 2007) — affine unknowns, a
 * stiffness term ‖(M ⊗ G) X‖² over the edges of the deforming surface, a
 * schedule of decreasing stiffness α, each stage iterated (closest points →
 * one linear least-squares solve) until the surface stops moving, data
 * pairs dropped when their normals disagree or they are too far apart;
 * Sumner, Schmid & Pauly, "Embedded Deformation for Shape Manipulation"
 * (SIGGRAPH 2007) — the deformation graph: nodes g_j sampled on the surface,
 * each vertex carried by the affine maps of its k = 4 nearest nodes with
 * weights (1 − d/d_max)², and the regulariser E_reg by which each node's map
 * predicts its neighbours' positions.
 *
 * Why the combination: Amberg's per-vertex affine unknowns make a 4N×4N
 * system (50k vertices: 200k unknowns, refactored every iteration), far
 * over the 10 s budget; on a graph of ~300 nodes the same energy has 1200
 * unknowns per coordinate and the cost is the closest-point queries, O(S log
 * N) per iteration. The unknowns stay affine (linear least squares, no
 * Gauss-Newton): a proportion change (legs 25 % longer, a thicker body) is an
 * affine stretch locally, which Embedded Deformation's rotation term would
 * fight. Nodes are linked along the surface (multi-source Dijkstra regions
 * that touch), not by Euclidean distance, so the two front legs or a leg and
 * the tail never share a node.
 *
 * Symmetric data term: target samples pull towards their closest source
 * point, and source samples pull the target vertex nearest to their closest
 * point of the deformed target. The one-way term lets a longer target leg
 * fold onto a shorter source leg but does not pull a shorter target leg down
 * to the source's foot; both together do.
 */
#include "skinfit/surface.h"
#include "skinfit/math.h"

#include "surface_internal.h"

#include <float.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#define KNN 4

void skf_registration_release(skf_registration *r)
{
    if (!r)
        return;
    skf_free(r->source_triangle);
    skf_free(r->source_vertex);
    skf_free(r->bary);
    skf_free(r->confidence);
    skf_free(r->matched);
    skf_free(r->deformed);
    memset(r, 0, sizeof *r);
}

/* ---- multi-source Dijkstra over mesh edges ------------------------------- */

typedef struct heap_item {
    double d;
    uint32_t v;
} heap_item;

static void heap_push(heap_item *h, size_t *n, heap_item it)
{
    size_t i = (*n)++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (h[p].d < it.d || (h[p].d == it.d && h[p].v <= it.v))
            break;
        h[i] = h[p];
        i = p;
    }
    h[i] = it;
}

static heap_item heap_pop(heap_item *h, size_t *n)
{
    heap_item top = h[0], last = h[--(*n)];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        heap_item best = last;
        if (l < *n && (h[l].d < best.d || (h[l].d == best.d && h[l].v < best.v)))
            m = l, best = h[l];
        if (r < *n && (h[r].d < best.d || (h[r].d == best.d && h[r].v < best.v)))
            m = r, best = h[r];
        if (m == i)
            break;
        h[i] = h[m];
        i = m;
    }
    if (*n)
        h[i] = last;
    return top;
}

typedef struct reg_ctx {
    size_t nt, ns, m;            /* target vertices, source vertices, nodes */
    const double *sp;            /* source positions */
    const uint32_t *st, *tt;     /* triangles */
    size_t nst, ntt;
    double *p0;                  /* [nt*3] target rest in source space */
    double *g;                   /* [m*3] node positions */
    uint32_t *node_vertex;       /* [m] */
    uint32_t *vn;                /* [nt*KNN] nodes of each vertex */
    double *vw;                  /* [nt*KNN] weights (0 for unused slots) */
    size_t *adj_off;             /* node graph CSR [m+1] */
    uint32_t *adj;               /* [2*edges] */
    size_t edges;
    double h;                    /* mean node-graph edge length */
    double *X;                   /* [4m*3] column-major: column c, row 4j+r */
} reg_ctx;

/* Deformed position of vertex v: Σ_k w_k [(v − g_k)ᵀ, 1] X_k. */
static int vertex_coeff(const reg_ctx *c, size_t v, uint32_t node[KNN], double a[KNN][4]);

/* Σ_k a_k · X_k over the coefficient rows of n nodes. */
static void apply_coeff(const reg_ctx *c, const double *X, const uint32_t *node, const double (*a)[4], int n,
                        double out[3])
{
    size_t M4 = 4 * c->m;
    out[0] = out[1] = out[2] = 0;
    for (int k = 0; k < n; ++k)
        for (int col = 0; col < 3; ++col) {
            const double *x = X + col * M4 + 4 * (size_t)node[k];
            out[col] += a[k][0] * x[0] + a[k][1] * x[1] + a[k][2] * x[2] + a[k][3] * x[3];
        }
}

static void deform_vertex(const reg_ctx *c, const double *X, size_t v, double out[3])
{
    uint32_t node[KNN];
    double a[KNN][4];
    int n = vertex_coeff(c, v, node, a);
    apply_coeff(c, X, node, (const double (*)[4])a, n, out);
}

static void deform_all(const reg_ctx *c, const double *X, double *out)
{
#pragma omp parallel for schedule(static)
    for (size_t v = 0; v < c->nt; ++v)
        deform_vertex(c, X, v, out + 3 * v);
}

/* ---- the normal equations, in 4x4 blocks per node pair ------------------- */

typedef struct blocks {
    size_t m;
    size_t *off;      /* [m+1] CSR over node j: partners k >= j, sorted */
    uint32_t *col;
    double *val;      /* [nnzb*16] block (j,k), entry [r*4+s] = H(4j+r, 4k+s) */
    size_t nnzb;
} blocks;

static double *block_at(blocks *b, uint32_t j, uint32_t k)
{
    if (k < j) {
        uint32_t t = j;
        j = k;
        k = t;
    }
    size_t lo = b->off[j], hi = b->off[j + 1];
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (b->col[mid] < k)
            lo = mid + 1;
        else
            hi = mid;
    }
    return b->val + 16 * lo;
}

/* H += w · a aᵀ where a is the coefficient over up to n (node, 4-vector)
 * pairs; rhs[col] += w · a · q[col]. Only blocks with j <= k are stored: for
 * j < k the block is (a_j a_kᵀ), for j == k the full 4x4. blk, when given,
 * lists the blocks of the pairs (x, y) this visits, in visiting order
 * (vertex_blocks); otherwise each is searched. */
static void add_outer(blocks *b, const uint32_t *blk, double *rhs, size_t M4, const uint32_t *node,
                      const double (*a)[4], int n, double w, const double *q)
{
    int p = 0;
    for (int x = 0; x < n; ++x) {
        double wa[4] = {w * a[x][0], w * a[x][1], w * a[x][2], w * a[x][3]};
        for (int y = 0; y < n; ++y) {
            if (node[x] > node[y] || (node[x] == node[y] && x > y))
                continue;
            double *B = blk ? b->val + 16 * (size_t)blk[p++] : block_at(b, node[x], node[y]);
            const double *ay = a[y];
            if (node[x] == node[y] && x != y) {
                for (int r = 0; r < 4; ++r)
                    for (int s = 0; s < 4; ++s) {
                        double v = wa[r] * ay[s];
                        B[r * 4 + s] += v;
                        B[s * 4 + r] += v;
                    }
                continue;
            }
            for (int r = 0; r < 4; ++r) {
                double *Br = B + r * 4;
                Br[0] += wa[r] * ay[0];
                Br[1] += wa[r] * ay[1];
                Br[2] += wa[r] * ay[2];
                Br[3] += wa[r] * ay[3];
            }
        }
        if (q)
            for (int col = 0; col < 3; ++col)
                for (int r = 0; r < 4; ++r)
                    rhs[col * M4 + 4 * (size_t)node[x] + r] += wa[r] * q[col];
    }
}

/* One node's coefficient row: w [(p − g_j)ᵀ, 1]. */
static void node_row(const reg_ctx *c, const double p[3], uint32_t j, double w, double a[4])
{
    a[0] = w * (p[0] - c->g[3 * j]);
    a[1] = w * (p[1] - c->g[3 * j + 1]);
    a[2] = w * (p[2] - c->g[3 * j + 2]);
    a[3] = w;
}

/* Coefficient of vertex v: its nodes and [(v − g_k)ᵀ, 1] w_k. */
static int vertex_coeff(const reg_ctx *c, size_t v, uint32_t node[KNN], double a[KNN][4])
{
    int n = 0;
    const double *p = c->p0 + 3 * v;
    for (int k = 0; k < KNN; ++k) {
        double w = c->vw[KNN * v + k];
        if (w == 0)
            continue;
        node[n] = c->vn[KNN * v + k];
        node_row(c, p, node[n], w, a[n]);
        ++n;
    }
    return n;
}

/* Coefficient of an arbitrary point p (a landmark, possibly inside the
 * surface): its KNN Euclidean-nearest nodes, ED weights (1 − d/d_max)² with
 * d_max the distance to the next node. The deformation field is defined
 * everywhere, so an interior landmark moves with the nodes around it. */
static int point_coeff(const reg_ctx *c, const double p[3], uint32_t node[KNN], double a[KNN][4])
{
    uint32_t best[KNN + 1];
    double bd[KNN + 1];
    int nb = 0;
    for (size_t j = 0; j < c->m; ++j) {
        const double *g = c->g + 3 * j;
        double d[3] = {g[0] - p[0], g[1] - p[1], g[2] - p[2]};
        double dd = skf_norm3(d);
        int pos = nb;
        while (pos > 0 && bd[pos - 1] > dd)
            --pos;
        if (pos >= KNN + 1)
            continue;
        for (int q = (nb < KNN + 1 ? nb : KNN); q > pos; --q) {
            bd[q] = bd[q - 1];
            best[q] = best[q - 1];
        }
        bd[pos] = dd;
        best[pos] = (uint32_t)j;
        if (nb < KNN + 1)
            ++nb;
    }
    int use = nb < KNN ? nb : KNN;
    double dmax = nb > KNN ? bd[KNN] : 1.5 * bd[use - 1];
    double w[KNN], sum = 0;
    for (int k = 0; k < use; ++k) {
        double r = dmax > 0 ? 1 - bd[k] / dmax : 1;
        w[k] = r * r;
        sum += w[k];
    }
    int n = 0;
    for (int k = 0; k < use; ++k) {
        double wk = sum > 0 ? w[k] / sum : (k == 0);
        if (wk == 0)
            continue;
        node[n] = best[k];
        node_row(c, p, node[n], wk, a[n]);
        ++n;
    }
    return n;
}

static void point_deform(const reg_ctx *c, const double p[3], double out[3])
{
    uint32_t node[KNN];
    double a[KNN][4];
    int n = point_coeff(c, p, node, a);
    apply_coeff(c, c->X, node, (const double (*)[4])a, n, out);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}


/* Sparsity of H: node pairs sharing a vertex or a landmark, plus graph edges. */
static skf_status build_blocks(const reg_ctx *c, const double *lm_point, size_t nlm, blocks *b, skf_error *err)
{
    size_t cap = (c->nt + nlm) * (KNN * (KNN + 1) / 2) + c->edges + c->m;
    uint64_t *pairs = skf_malloc_array(cap, sizeof *pairs);
    if (!pairs)
        return skf_fail(err, SKF_ERR_NOMEM, "register: node pairs: out of memory");
    size_t np = 0;
    for (size_t j = 0; j < c->m; ++j)
        pairs[np++] = ((uint64_t)j << 32) | j;
    for (size_t j = 0; j < c->m; ++j)
        for (size_t e = c->adj_off[j]; e < c->adj_off[j + 1]; ++e)
            if (c->adj[e] > j)
                pairs[np++] = ((uint64_t)j << 32) | c->adj[e];
    for (size_t v = 0; v < c->nt; ++v)
        for (int x = 0; x < KNN; ++x)
            for (int y = x + 1; y < KNN; ++y) {
                if (c->vw[KNN * v + x] == 0 || c->vw[KNN * v + y] == 0)
                    continue;
                uint64_t j = c->vn[KNN * v + x], k = c->vn[KNN * v + y];
                if (j > k) {
                    uint64_t t = j;
                    j = k;
                    k = t;
                }
                if (j != k)
                    pairs[np++] = (j << 32) | k;
            }
    for (size_t l = 0; l < nlm; ++l) {
        uint32_t node[KNN];
        double a[KNN][4];
        int n = point_coeff(c, lm_point + 3 * l, node, a);
        for (int x = 0; x < n; ++x)
            for (int y = x + 1; y < n; ++y) {
                uint64_t j = node[x] < node[y] ? node[x] : node[y], k = node[x] < node[y] ? node[y] : node[x];
                if (j != k)
                    pairs[np++] = (j << 32) | k;
            }
    }
    size_t u = skfi_sort_unique_u64(pairs, np);
    b->m = c->m;
    b->nnzb = u;
    b->off = skf_calloc(c->m + 1, sizeof *b->off);
    b->col = skf_malloc_array(u, sizeof *b->col);
    b->val = skf_calloc(u * 16, sizeof *b->val);
    if (!b->off || !b->col || !b->val) {
        skf_free(pairs);
        return skf_fail(err, SKF_ERR_NOMEM, "register: %zu blocks: out of memory", u);
    }
    for (size_t i = 0; i < u; ++i) {
        b->off[(pairs[i] >> 32) + 1]++;
        b->col[i] = (uint32_t)(pairs[i] & 0xffffffffu);
    }
    for (size_t j = 0; j < c->m; ++j)
        b->off[j + 1] += b->off[j];
    skf_free(pairs);
    return SKF_OK;
}

/* The blocks add_outer visits for each target vertex's coefficient, in its
 * visiting order (KNN_PAIRS per vertex): the data terms look none up. */
#define KNN_PAIRS (KNN * (KNN + 1) / 2)
static void vertex_blocks(const reg_ctx *c, blocks *b, uint32_t *vblk)
{
#pragma omp parallel for schedule(static)
    for (size_t v = 0; v < c->nt; ++v) {
        uint32_t node[KNN];
        double a[KNN][4];
        int n = vertex_coeff(c, v, node, a), p = 0;
        for (int x = 0; x < n; ++x)
            for (int y = 0; y < n; ++y)
                if (!(node[x] > node[y] || (node[x] == node[y] && x > y)))
                    vblk[KNN_PAIRS * v + (size_t)p++] = (uint32_t)((size_t)(block_at(b, node[x], node[y]) - b->val) / 16);
    }
}

/* ---- graph ----------------------------------------------------------------- */

static skf_status build_graph(reg_ctx *c, skf_error *err)
{
    size_t nt = c->nt, m = c->m;
    skf_status st = SKF_OK;
    /* vertex adjacency (CSR) from triangles */
    size_t *voff = skf_calloc(nt + 1, sizeof *voff);
    uint32_t *vadj = skf_malloc_array(6 * c->ntt + 1, sizeof *vadj);
    uint32_t *owner = skf_malloc_array(nt, sizeof *owner);
    double *dist = skf_malloc_array(nt, sizeof *dist);
    heap_item *heap = skf_malloc_array(6 * c->ntt + m + 1, sizeof *heap);
    uint64_t *npairs = skf_malloc_array(3 * c->ntt + 1, sizeof *npairs);
    size_t *fill = skf_calloc(nt + 1, sizeof *fill);
    if (!voff || !vadj || !owner || !dist || !heap || !npairs || !fill) {
        st = skf_fail(err, SKF_ERR_NOMEM, "register: graph of %zu vertices: out of memory", nt);
        goto done;
    }
    for (size_t t = 0; t < c->ntt; ++t)
        for (int k = 0; k < 3; ++k)
            voff[c->tt[3 * t + k] + 1] += 2;
    for (size_t v = 0; v < nt; ++v)
        voff[v + 1] += voff[v];
    for (size_t t = 0; t < c->ntt; ++t)
        for (int k = 0; k < 3; ++k) {
            uint32_t a = c->tt[3 * t + k], b1 = c->tt[3 * t + (k + 1) % 3], b2 = c->tt[3 * t + (k + 2) % 3];
            vadj[voff[a] + fill[a]++] = b1;
            vadj[voff[a] + fill[a]++] = b2;
        }
    /* multi-source Dijkstra: owner = nearest node along the surface */
    size_t hn = 0;
    for (size_t v = 0; v < nt; ++v) {
        dist[v] = DBL_MAX;
        owner[v] = UINT32_MAX;
    }
    for (size_t j = 0; j < m; ++j) {
        uint32_t v = c->node_vertex[j];
        dist[v] = 0;
        owner[v] = (uint32_t)j;
        heap_push(heap, &hn, (heap_item){0, v});
    }
    size_t heap_cap = 6 * c->ntt + m + 1;
    while (hn) {
        heap_item it = heap_pop(heap, &hn);
        if (it.d > dist[it.v])
            continue;
        const double *pv = c->p0 + 3 * (size_t)it.v;
        for (size_t e = voff[it.v]; e < voff[it.v + 1]; ++e) {
            uint32_t w = vadj[e];
            const double *pw = c->p0 + 3 * (size_t)w;
            double d[3] = {pw[0] - pv[0], pw[1] - pv[1], pw[2] - pv[2]};
            double nd = it.d + skf_norm3(d);
            if (nd < dist[w] && hn < heap_cap) {
                dist[w] = nd;
                owner[w] = owner[it.v];
                heap_push(heap, &hn, (heap_item){nd, w});
            }
        }
    }
    /* a component without a node: its vertices take the Euclidean nearest */
    for (size_t v = 0; v < nt; ++v)
        if (owner[v] == UINT32_MAX) {
            double best = DBL_MAX;
            for (size_t j = 0; j < m; ++j) {
                const double *g = c->g + 3 * j, *p = c->p0 + 3 * v;
                double d[3] = {g[0] - p[0], g[1] - p[1], g[2] - p[2]};
                double dd = skf_dot3(d, d);
                if (dd < best) {
                    best = dd;
                    owner[v] = (uint32_t)j;
                }
            }
        }
    /* node graph: regions that share a mesh edge */
    size_t u = skfi_mesh_edges(c->tt, c->ntt, owner, npairs);
    c->edges = u;
    c->adj_off = skf_calloc(m + 1, sizeof *c->adj_off);
    c->adj = skf_malloc_array(2 * u + 1, sizeof *c->adj);
    if (!c->adj_off || !c->adj) {
        st = skf_fail(err, SKF_ERR_NOMEM, "register: node graph: out of memory");
        goto done;
    }
    for (size_t i = 0; i < u; ++i) {
        c->adj_off[(npairs[i] >> 32) + 1]++;
        c->adj_off[(npairs[i] & 0xffffffffu) + 1]++;
    }
    for (size_t j = 0; j < m; ++j)
        c->adj_off[j + 1] += c->adj_off[j];
    memset(fill, 0, (nt + 1) * sizeof *fill);
    double hsum = 0;
    for (size_t i = 0; i < u; ++i) {
        uint32_t a = (uint32_t)(npairs[i] >> 32), b = (uint32_t)(npairs[i] & 0xffffffffu);
        c->adj[c->adj_off[a] + fill[a]++] = b;
        c->adj[c->adj_off[b] + fill[b]++] = a;
        double d[3] = {c->g[3 * a] - c->g[3 * b], c->g[3 * a + 1] - c->g[3 * b + 1], c->g[3 * a + 2] - c->g[3 * b + 2]};
        hsum += skf_norm3(d);
    }
    for (size_t j = 0; j < m; ++j)
        qsort(c->adj + c->adj_off[j], c->adj_off[j + 1] - c->adj_off[j], sizeof *c->adj, cmp_u32);
    c->h = u ? hsum / (double)u : 0;
    /* vertex weights: the KNN nearest among the owner and its neighbours,
     * w = (1 − d/d_max)², d_max = distance to the next candidate (or 1.5 ×
     * the farthest chosen when there is none), normalised */
#pragma omp parallel for schedule(static)
    for (size_t v = 0; v < nt; ++v) {
        uint32_t o = owner[v];
        uint32_t cand[KNN + 1];
        double cd[KNN + 1];
        int nc = 0;
        const double *p = c->p0 + 3 * v;
        for (size_t e = c->adj_off[o]; e <= c->adj_off[o + 1]; ++e) {
            uint32_t j = e == c->adj_off[o + 1] ? o : c->adj[e];
            const double *g = c->g + 3 * (size_t)j;
            double d[3] = {g[0] - p[0], g[1] - p[1], g[2] - p[2]};
            double dd = skf_norm3(d);
            int pos = nc < KNN + 1 ? nc : KNN + 1;
            while (pos > 0 && (cd[pos - 1] > dd || (cd[pos - 1] == dd && cand[pos - 1] > j)))
                --pos;
            if (pos >= KNN + 1)
                continue;
            int last = nc < KNN + 1 ? nc : KNN;
            for (int q = last; q > pos; --q) {
                cd[q] = cd[q - 1];
                cand[q] = cand[q - 1];
            }
            cd[pos] = dd;
            cand[pos] = j;
            if (nc < KNN + 1)
                ++nc;
        }
        int use = nc < KNN ? nc : KNN;
        double dmax = nc > KNN ? cd[KNN] : 1.5 * cd[use - 1];
        double sum = 0;
        for (int k = 0; k < KNN; ++k) {
            double w = 0;
            if (k < use && dmax > 0) {
                double r = 1 - cd[k] / dmax;
                w = r * r;
            }
            c->vn[KNN * v + k] = k < use ? cand[k] : o;
            c->vw[KNN * v + k] = w;
            sum += w;
        }
        if (!(sum > 0)) {
            c->vn[KNN * v] = o;
            c->vw[KNN * v] = 1;
            for (int k = 1; k < KNN; ++k)
                c->vw[KNN * v + k] = 0;
        } else {
            for (int k = 0; k < KNN; ++k)
                c->vw[KNN * v + k] /= sum;
        }
    }
done:
    skf_free(voff);
    skf_free(vadj);
    skf_free(owner);
    skf_free(dist);
    skf_free(heap);
    skf_free(npairs);
    skf_free(fill);
    return st;
}

/* Source surface normal at a surface point: barycentric blend of vertex normals. */
static void point_normal(const double *vn, const skf_surface_point *sp, double n[3])
{
    for (int a = 0; a < 3; ++a)
        n[a] = sp->bary[0] * vn[3 * sp->vertex[0] + a] + sp->bary[1] * vn[3 * sp->vertex[1] + a] +
               sp->bary[2] * vn[3 * sp->vertex[2] + a];
    double l = skf_norm3(n);
    if (l > 0)
        for (int a = 0; a < 3; ++a)
            n[a] /= l;
}

/* One query of two_way_rms: the closest point to p on bvh, started from
 * *hint (UINT32_MAX: from *prev, the previous sample's), both updated; its
 * squared distance is added to *sum (and *kept counted) when within trim. */
static void trimmed_query(const skf_bvh *bvh, const double *p, uint32_t *hint, uint32_t *prev, double trim,
                          double *sum, size_t *kept)
{
    skf_surface_point q;
    skf_bvh_closest_hint(bvh, p, *hint != UINT32_MAX ? *hint : *prev, &q);
    *hint = *prev = q.triangle;
    if (q.distance <= trim)
        *sum += q.distance * q.distance, ++*kept;
}

/* RMS closest distance both ways between the source and a target surface
 * (positions D with the target triangles) on the samples. hint_t / hint_s:
 * each sample's closest triangle of an earlier query (UINT32_MAX: none; the
 * previous sample's is tried), updated; they only bound the search. */
static double two_way_rms(const skf_bvh *sbvh, const double *sp, const uint32_t *ss, size_t nss, const double *D,
                          const uint32_t *ts, size_t nts, const skf_bvh *dbvh, double trim, uint32_t *hint_t,
                          uint32_t *hint_s)
{
    double sum = 0;
    size_t kept = 0;
#pragma omp parallel reduction(+ : sum, kept)
    {
        uint32_t prev = UINT32_MAX;
#pragma omp for schedule(static)
        for (size_t k = 0; k < nts; ++k)
            trimmed_query(sbvh, D + 3 * (size_t)ts[k], hint_t + k, &prev, trim, &sum, &kept);
        prev = UINT32_MAX;
#pragma omp for schedule(static)
        for (size_t k = 0; k < nss; ++k)
            trimmed_query(dbvh, sp + 3 * (size_t)ss[k], hint_s + k, &prev, trim, &sum, &kept);
    }
    return kept ? sqrt(sum / (double)kept) : HUGE_VAL;
}

skf_status skf_register_surfaces(const double *source_positions, size_t source_vertex_count,
                                 const uint32_t *source_triangles, size_t source_triangle_count,
                                 const double *target_positions, size_t target_vertex_count,
                                 const uint32_t *target_triangles, size_t target_triangle_count,
                                 const skf_alignment *alignment, const skf_register_options *options,
                                 skf_registration *out, skf_error *err)
{
    memset(out, 0, sizeof *out);
    skf_register_options o = {0};
    if (options)
        o = *options;
    size_t want_nodes = o.node_count ? o.node_count : SKF_REGISTER_DEFAULT_NODES;
    size_t nsample = o.sample_count ? o.sample_count : 3000;
    int max_it = o.max_iterations > 0 ? o.max_iterations : 30;
    double tau_frac = o.unmatched_distance > 0 ? o.unmatched_distance : SKF_REGISTER_DEFAULT_UNMATCHED_DISTANCE;
    double tau_deg = o.unmatched_angle_deg > 0 ? o.unmatched_angle_deg : SKF_REGISTER_DEFAULT_UNMATCHED_ANGLE;
    double beta = o.landmark_weight > 0 ? o.landmark_weight : 1;
    for (size_t l = 0; l < o.landmark_count; ++l)
        for (int a = 0; a < 3; ++a)
            if (!isfinite(o.landmarks[l].target_point[a]) || !isfinite(o.landmarks[l].source_point[a]))
                return skf_fail(err, SKF_ERR_ARGUMENT, "register: landmarks[%zu]: non-finite coordinate", l);
    size_t nt = target_vertex_count, ns = source_vertex_count;
    double diag = alignment->source_diagonal;
    if (nt == 0 || ns == 0 || !(diag > 0))
        return skf_fail(err, SKF_ERR_ARGUMENT, "register: empty surface");
    reg_ctx c = {0};
    c.nt = nt;
    c.ns = ns;
    c.sp = source_positions;
    c.st = source_triangles;
    c.nst = source_triangle_count;
    c.tt = target_triangles;
    c.ntt = target_triangle_count;
    skf_status st = SKF_OK;
    skf_bvh *sbvh = NULL, *dbvh = NULL;
    uint32_t *hint_t = NULL, *hint_s = NULL, *vblk = NULL;
    double *stiff = NULL;
    blocks B = {0};
    uint32_t *ts = NULL, *ss = NULL, *sel = NULL, *low_src = NULL, *lm_vertex = NULL;
    int32_t *low_start = NULL, *low_row = NULL;
    double *lm_point = NULL;
    double *snorm = NULL, *D = NULL, *Dn = NULL, *rhs = NULL, *Xn = NULL, *low_val = NULL, *area = NULL;
    skf_spd *spd = NULL;
    c.p0 = skf_malloc_array(nt * 3, sizeof(double));
    D = skf_malloc_array(nt * 3, sizeof(double));
    Dn = skf_malloc_array(nt * 3, sizeof(double));
    snorm = skf_malloc_array(ns * 3, sizeof(double));
    ts = skf_malloc_array(nsample, sizeof(uint32_t));
    ss = skf_malloc_array(nsample, sizeof(uint32_t));
    area = skf_calloc(nt, sizeof(double));
    lm_vertex = skf_malloc_array(o.landmark_count + 1, sizeof(uint32_t));
    if (!c.p0 || !D || !Dn || !snorm || !ts || !ss || !area || !lm_vertex) {
        st = skf_fail(err, SKF_ERR_NOMEM, "register: %zu vertices: out of memory", nt);
        goto done;
    }
    for (size_t v = 0; v < nt; ++v)
        skf_mat4_transform_point(c.p0 + 3 * v, alignment->target_to_source, target_positions + 3 * v);
    skfi_surface_vertex_normals(source_positions, ns, source_triangles, source_triangle_count, snorm);
    st = skf_bvh_build(source_positions, ns, source_triangles, source_triangle_count, &sbvh, err);
    if (st)
        goto done;
    /* landmarks: the target points in source space (after the similarity) */
    lm_point = skf_malloc_array(3 * o.landmark_count + 1, sizeof(double));
    if (!lm_point) {
        st = skf_fail(err, SKF_ERR_NOMEM, "register: landmarks: out of memory");
        goto done;
    }
    for (size_t l = 0; l < o.landmark_count; ++l)
        skf_mat4_transform_point(lm_point + 3 * l, alignment->target_to_source, o.landmarks[l].target_point);
    /* nodes */
    size_t m = 0;
    st = skf_subsample_even(c.p0, nt, want_nodes, &sel, &m, err);
    if (st)
        goto done;
    c.m = m;
    c.node_vertex = sel;
    c.g = skf_malloc_array(m * 3, sizeof(double));
    c.vn = skf_malloc_array(nt * KNN, sizeof(uint32_t));
    c.vw = skf_malloc_array(nt * KNN, sizeof(double));
    size_t M4 = 4 * m;
    c.X = skf_calloc(M4 * 3, sizeof(double));
    Xn = skf_malloc_array(M4 * 3, sizeof(double));
    rhs = skf_malloc_array(M4 * 3, sizeof(double));
    if (!c.g || !c.vn || !c.vw || !c.X || !Xn || !rhs) {
        st = skf_fail(err, SKF_ERR_NOMEM, "register: %zu nodes: out of memory", m);
        goto done;
    }
    for (size_t j = 0; j < m; ++j) {
        memcpy(c.g + 3 * j, c.p0 + 3 * (size_t)sel[j], 3 * sizeof(double));
        for (int col = 0; col < 3; ++col) { /* identity: A = I, row 3 = g */
            c.X[col * M4 + 4 * j + (size_t)col] = 1;
            c.X[col * M4 + 4 * j + 3] = c.g[3 * j + (size_t)col];
        }
    }
    st = build_graph(&c, err);
    if (!st)
        st = build_blocks(&c, lm_point, o.landmark_count, &B, err);
    if (st)
        goto done;
    vblk = skf_malloc_array(nt * KNN_PAIRS, sizeof(uint32_t));
    if (!vblk) {
        st = skf_fail(err, SKF_ERR_NOMEM, "register: %zu vertices: out of memory", nt);
        goto done;
    }
    vertex_blocks(&c, &B, vblk);
    out->node_count = m;
    /* the pattern of H's lower triangle, compressed by column: column 4j + r
     * holds rows 4k + s >= 4j + r of the blocks (j, k >= j), already in
     * ascending order; low_src says where each entry lives in B */
    size_t nlow = 0, ntri = B.nnzb * 16;
    low_start = skf_malloc_array(M4 + 1, sizeof(int32_t));
    low_row = skf_malloc_array(ntri, sizeof(int32_t));
    low_src = skf_malloc_array(ntri, sizeof(uint32_t));
    low_val = skf_malloc_array(ntri, sizeof(double));
    if (!low_start || !low_row || !low_src || !low_val || ntri > INT32_MAX) {
        st = skf_fail(err, SKF_ERR_NOMEM, "register: system: out of memory");
        goto done;
    }
    for (size_t j = 0; j < m; ++j)
        for (int r = 0; r < 4; ++r) {
            low_start[4 * j + (size_t)r] = (int32_t)nlow;
            for (size_t e = B.off[j]; e < B.off[j + 1]; ++e)
                for (int s2 = B.col[e] == j ? r : 0; s2 < 4; ++s2) {
                    low_row[nlow] = (int32_t)(4 * B.col[e] + (uint32_t)s2);
                    low_src[nlow++] = (uint32_t)(16 * e + 4 * (size_t)r + (size_t)s2);
                }
        }
    low_start[M4] = (int32_t)nlow;
    size_t nts = skfi_stride_sample(nt, nsample, ts), nss = skfi_stride_sample(ns, nsample, ss);
    double cos_tau = cos(tau_deg * 3.14159265358979323846 / 180.0);
    double h2 = c.h > 0 ? c.h * c.h : diag * diag * 1e-4;
    /* residual before (similarity only) */
    st = skf_bvh_build(c.p0, nt, target_triangles, target_triangle_count, &dbvh, err);
    if (st)
        goto done;
    /* the deformed target's BVH is this tree, refitted every iteration; the
     * closest triangles of the last query start each query */
    hint_t = skf_malloc_array(nsample, sizeof(uint32_t));
    hint_s = skf_malloc_array(nsample, sizeof(uint32_t));
    if (!hint_t || !hint_s) {
        st = skf_fail(err, SKF_ERR_NOMEM, "register: samples: out of memory");
        goto done;
    }
    for (size_t k = 0; k < nsample; ++k)
        hint_t[k] = hint_s[k] = UINT32_MAX;
    out->residual_before =
        two_way_rms(sbvh, source_positions, ss, nss, c.p0, ts, nts, dbvh, HUGE_VAL, hint_t, hint_s) / diag;

    /* stiffness at α = 1 (the same every iteration, scaled per stage):
     * E_reg (node j's map predicts neighbour k) and Amberg's ‖A_j − A_k‖² h²,
     * both directions, mean over edges. Its right-hand side is zero. */
    stiff = skf_calloc(B.nnzb * 16, sizeof(double));
    if (!stiff) {
        st = skf_fail(err, SKF_ERR_NOMEM, "register: system: out of memory");
        goto done;
    }
    {
        blocks S = B;
        S.val = stiff;
        for (size_t j = 0; j < m; ++j)
            for (size_t e = c.adj_off[j]; e < c.adj_off[j + 1]; ++e) {
                uint32_t k = c.adj[e];
                uint32_t node[2] = {(uint32_t)j, k};
                double a[2][4] = {
                    {c.g[3 * k] - c.g[3 * j], c.g[3 * k + 1] - c.g[3 * j + 1], c.g[3 * k + 2] - c.g[3 * j + 2], 1},
                    {0, 0, 0, -1}};
                add_outer(&S, NULL, NULL, M4, node, (const double (*)[4])a, 2, 1, NULL);
                for (int r = 0; r < 3; ++r) {
                    double b2[2][4] = {{0, 0, 0, 0}, {0, 0, 0, 0}};
                    b2[0][r] = 1;
                    b2[1][r] = -1;
                    add_outer(&S, NULL, NULL, M4, node, (const double (*)[4])b2, 2, h2, NULL);
                }
            }
    }

    /* stiffness schedule α (relative to the mean data term) and the pair
     * rejection distance for the data term */
    static const double alphas[] = {100, 30, 10, 3, 1, 0.3};
    /* coarse to fine: the stiff stages move the surface nearly affinely per
     * region and every step-th sample determines that as well (of 3000:
     * 1000, 1000, 1500, 1500, 3000, 3000 per direction); the two softest
     * stages, which set the final fit, see them all. Measured on the 5k
     * creature pair: 45 iterations either way, residual 0.0856 % → 0.0857 %,
     * closest-point queries 270k → 122k (docs/bench.md) */
    static const size_t steps[] = {3, 3, 2, 2, 1, 1};
    const int nstages = (int)(sizeof alphas / sizeof alphas[0]);
    double reject = 0.1 * diag;
    double tol = 5e-4 * diag;
    double change = 0;
    int it_total = 0, stage = 0, it = 0;
    for (stage = 0; stage < nstages; ++stage) {
        double alpha = alphas[stage];
        size_t step = steps[stage];
        for (it = 0; it < max_it; ++it) {
            deform_all(&c, c.X, D);
            skfi_surface_vertex_normals(D, nt, target_triangles, target_triangle_count, Dn);
            skf_bvh_refit(dbvh, D);
            /* the stiffness at this stage's α, then the data on top */
            double ws = c.edges ? alpha / (double)(2 * c.edges) : 0;
            for (size_t i = 0; i < B.nnzb * 16; ++i)
                B.val[i] = ws * stiff[i];
            memset(rhs, 0, M4 * 3 * sizeof(double));
            /* data: target → source */
            double wd = 1.0 / (double)((nts + step - 1) / step + (nss + step - 1) / step);
            for (size_t k = 0; k < nts; k += step) {
                size_t v = ts[k];
                skf_surface_point q;
                skf_bvh_closest_hint(sbvh, D + 3 * v, hint_t[k], &q);
                hint_t[k] = q.triangle;
                double n[3];
                point_normal(snorm, &q, n);
                if (q.distance > reject || skf_dot3(n, Dn + 3 * v) < cos_tau)
                    continue;
                uint32_t node[KNN];
                double a[KNN][4];
                int na = vertex_coeff(&c, v, node, a);
                add_outer(&B, vblk + KNN_PAIRS * v, rhs, M4, node, (const double (*)[4])a, na, wd, q.point);
            }
            /* data: source → deformed target (nearest vertex of the closest triangle) */
            for (size_t k = 0; k < nss; k += step) {
                const double *p = source_positions + 3 * (size_t)ss[k];
                skf_surface_point q;
                skf_bvh_closest_hint(dbvh, p, hint_s[k], &q);
                hint_s[k] = q.triangle;
                int kb = q.bary[1] > q.bary[0] ? 1 : 0;
                if (q.bary[2] > q.bary[kb])
                    kb = 2;
                size_t v = q.vertex[kb];
                if (q.distance > reject || skf_dot3(snorm + 3 * (size_t)ss[k], Dn + 3 * v) < cos_tau)
                    continue;
                /* the vertex should move by the gap between its surface point and p */
                double goal[3];
                for (int a2 = 0; a2 < 3; ++a2)
                    goal[a2] = D[3 * v + a2] + (p[a2] - q.point[a2]);
                uint32_t node[KNN];
                double a[KNN][4];
                int na = vertex_coeff(&c, v, node, a);
                add_outer(&B, vblk + KNN_PAIRS * v, rhs, M4, node, (const double (*)[4])a, na, wd, goal);
            }
            /* landmarks */
            for (size_t l = 0; l < o.landmark_count; ++l) {
                uint32_t node[KNN];
                double a[KNN][4];
                int na = point_coeff(&c, lm_point + 3 * l, node, a);
                add_outer(&B, NULL, rhs, M4, node, (const double (*)[4])a, na, beta / (double)o.landmark_count,
                          o.landmarks[l].source_point);
            }
            /* proximal damping towards the current maps (keeps nodes without
             * data well posed): δ‖X − X_cur‖², rows 0-2 scaled by h² */
            double delta = 1e-6 * alpha;
            for (size_t j = 0; j < m; ++j) {
                double *Bj = block_at(&B, (uint32_t)j, (uint32_t)j);
                for (int r = 0; r < 4; ++r) {
                    double d = delta * (r < 3 ? h2 : 1);
                    Bj[r * 4 + r] += d;
                    for (int col = 0; col < 3; ++col)
                        rhs[col * M4 + 4 * j + (size_t)r] += d * c.X[col * M4 + 4 * j + (size_t)r];
                }
            }
            /* the lower triangle in compressed columns → CHOLMOD */
            for (size_t i = 0; i < nlow; ++i)
                low_val[i] = B.val[low_src[i]];
            st = skfi_spd_factor_lower(M4, low_start, low_row, low_val, "register", &spd, err);
            if (!st)
                st = skfi_spd_solve(spd, rhs, 3, Xn, err);
            if (st)
                goto done;
            /* change: largest move of a sampled vertex */
            change = 0;
            for (size_t k = 0; k < nts; ++k) {
                double a[3];
                deform_vertex(&c, Xn, ts[k], a);
                double d[3] = {a[0] - D[3 * ts[k]], a[1] - D[3 * ts[k] + 1], a[2] - D[3 * ts[k] + 2]};
                change = fmax(change, skf_norm3(d));
            }
            memcpy(c.X, Xn, M4 * 3 * sizeof(double));
            ++it_total;
            if (!isfinite(change)) {
                st = skf_fail(err, SKF_ERR_NUMERIC, "register: stage %d iteration %d: non-finite solution", stage + 1,
                              it + 1);
                goto done;
            }
            if (change <= tol)
                break;
        }
        /* after the stiff stages only close pairs count */
        reject = fmax(0.03 * diag, 0.5 * reject);
    }
    out->stages = nstages;
    out->iterations = it_total;
    out->last_change = change / diag;
    /* the softest stage may end at the cap while closest pairs flip between
     * neighbouring triangles (a small limit cycle); that is accepted up to
     * 5 × the tolerance, a larger last move is a registration that did not
     * converge */
    if (it >= max_it && change > 5 * tol) {
        st = skf_fail(err, SKF_ERR_NUMERIC,
                      "register: did not converge: stage %d of %d stopped at %d iterations, last change %.3g %% of the "
                      "diagonal > %.3g %%",
                      nstages, nstages, max_it, 100 * change / diag, 500 * tol / diag);
        /* the cap that stopped it, so a caller can name its own knob */
        skf_error_set_kind(err, SKF_KIND_ITERATION_CAP, "skf_register_options.max_iterations");
        goto done;
    }
    /* the registered surface and the per-vertex map */
    deform_all(&c, c.X, D);
    skfi_surface_vertex_normals(D, nt, target_triangles, target_triangle_count, Dn);
    skf_bvh_refit(dbvh, D);
    /* after: over the pairs closer than τ_d — a part present on one side only
     * (horns, a longer tail) is reported as unmatched area, not residual */
    out->residual_after =
        two_way_rms(sbvh, source_positions, ss, nss, D, ts, nts, dbvh, tau_frac * diag, hint_t, hint_s) / diag;
    out->count = nt;
    out->source_triangle = skf_malloc_array(nt, sizeof(uint32_t));
    out->source_vertex = skf_malloc_array(nt * 3, sizeof(uint32_t));
    out->bary = skf_malloc_array(nt * 3, sizeof(double));
    out->confidence = skf_malloc_array(nt, sizeof(double));
    out->matched = skf_malloc_array(nt, sizeof(bool));
    out->deformed = D;
    D = NULL;
    if (!out->source_triangle || !out->source_vertex || !out->bary || !out->confidence || !out->matched) {
        st = skf_fail(err, SKF_ERR_NOMEM, "register: output: out of memory");
        goto done;
    }
    double tau = tau_frac * diag;
#pragma omp parallel
    {
        uint32_t prev = UINT32_MAX; /* the last vertex's triangle bounds the search */
#pragma omp for schedule(dynamic, 256)
        for (size_t v = 0; v < nt; ++v) {
            skf_surface_point q;
            skf_bvh_closest_hint(sbvh, out->deformed + 3 * v, prev, &q);
            prev = q.triangle;
            double n[3];
            point_normal(snorm, &q, n);
            double cosang = skf_dot3(n, Dn + 3 * v);
            out->source_triangle[v] = q.triangle;
            for (int k = 0; k < 3; ++k) {
                out->source_vertex[3 * v + k] = q.vertex[k];
                out->bary[3 * v + k] = q.bary[k];
            }
            double r = q.distance / tau;
            out->confidence[v] = fmax(0, cosang) * exp(-r * r);
            out->matched[v] = q.distance <= tau && cosang >= cos_tau;
        }
    }
    /* areas: a third of each incident triangle (target rest) */
    double total = 0, un = 0;
    for (size_t t = 0; t < target_triangle_count; ++t) {
        const uint32_t *f = target_triangles + 3 * t;
        double cr[3];
        skfi_triangle_area_vector(target_positions, f, cr);
        double a3 = skf_norm3(cr) / 6;
        for (int k = 0; k < 3; ++k)
            area[f[k]] += a3;
    }
    for (size_t v = 0; v < nt; ++v) {
        total += area[v];
        if (!out->matched[v]) {
            un += area[v];
            out->unmatched_count++;
        }
    }
    out->unmatched_area = total > 0 ? un / total : 0;
    if (o.landmark_count) {
        double s2 = 0, mx = 0;
        for (size_t l = 0; l < o.landmark_count; ++l) {
            double a[3];
            point_deform(&c, lm_point + 3 * l, a);
            const double *b = o.landmarks[l].source_point;
            double d[3] = {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
            double dd = skf_norm3(d);
            s2 += dd * dd;
            mx = fmax(mx, dd);
        }
        out->landmark_rms = sqrt(s2 / (double)o.landmark_count) / diag;
        out->landmark_max = mx / diag;
    }
done:
    if (st)
        skf_registration_release(out);
    skfi_spd_free(spd);
    skf_bvh_free(sbvh);
    skf_bvh_free(dbvh);
    skf_free(hint_t);
    skf_free(hint_s);
    skf_free(vblk);
    skf_free(stiff);
    skf_free(B.off);
    skf_free(B.col);
    skf_free(B.val);
    skf_free(ts);
    skf_free(ss);
    skf_free(sel);
    skf_free(low_start);
    skf_free(low_row);
    skf_free(low_src);
    skf_free(low_val);
    skf_free(lm_vertex);
    skf_free(lm_point);
    skf_free(snorm);
    skf_free(D);
    skf_free(Dn);
    skf_free(rhs);
    skf_free(Xn);
    skf_free(area);
    skf_free(c.p0);
    skf_free(c.g);
    skf_free(c.vn);
    skf_free(c.vw);
    skf_free(c.adj_off);
    skf_free(c.adj);
    skf_free(c.X);
    return st;
}
