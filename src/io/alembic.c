/* Alembic (.abc) reader, Ogawa container: first PolyMesh, its P samples,
 * topology, time sampling and the ancestor Xforms.
 *
 * Written from the format as documented publicly (facts only):
 *  - Ogawa: a 16-byte header ("Ogawa", a frozen flag 0xff, a 2-byte version,
 *    a little-endian u64 offset of the root group). A group is u64 n followed
 *    by n u64 child words; bit 63 set means the child is a data block, else a
 *    group; offset 0 is the empty group / empty data. A data block is u64 size
 *    followed by the bytes.
 *  - Alembic over Ogawa (AbcCoreOgawa): root group children are [file
 *    version, library version, top object, archive metadata, time samplings,
 *    indexed metadata]. An object group is [properties compound, child
 *    objects..., child-object headers data (+32 bytes of hashes)]. A compound
 *    property group is [sub-properties..., property headers data]. Scalar
 *    property sample i is data child i; array property sample i is data child
 *    2i plus a dims block at 2i+1 (empty: one dimension). Every sample starts
 *    with a 16-byte digest. Property headers are packed with a u32 info word
 *    (type bits 0-1, size hint 2-3, POD 4-7, has-time-sampling 8, explicit
 *    first/last changed 9, homogeneous 10, constant 11, extent 12-19,
 *    metadata index 20-27) followed by integers of the hinted width.
 * See docs/decompose.md ("Alembic") for the sample-index rule and what is
 * supported. Every offset and size is checked against the file size before
 * it is read or allocated.
 */
#include "skinfit/math.h"
#include "skinfit/meshseq.h"

#include <float.h>
#include <math.h>
#include <string.h>

#define ABC_MAX_TIMESAMPLINGS 65536
#define ABC_DIGEST 16
#define DATA_BIT (UINT64_C(1) << 63)

enum { PROP_COMPOUND = 0, PROP_SCALAR = 1, PROP_ARRAY = 2 };
enum { POD_BOOL = 0, POD_U8 = 1, POD_I32 = 6, POD_F32 = 10, POD_F64 = 11 };

typedef struct abc_timesampling {
    double time_per_cycle;
    double first_time;
    uint32_t samples_per_cycle;
} abc_timesampling;

typedef struct abc_reader {
    const uint8_t *d;
    uint64_t n;
    const char *name;
    skf_error *err;
    const skf_limits *limits; /* per-call caps (NULL: the process-wide ones) */
    const uint8_t *md_data; /* indexed metadata block */
    uint64_t md_size;
    uint64_t md_offset;
    const uint8_t *md_str[256];
    uint32_t md_len[256];
    size_t md_count; /* entries, index 0 = "" */
    abc_timesampling *ts;
    size_t ts_count;
    size_t objects_seen;
} abc_reader;

typedef struct abc_prop {
    int type;
    int pod;
    uint32_t next_sample;
    uint32_t first_changed;
    uint32_t last_changed;
    uint32_t ts_index;
    int extent;
    const uint8_t *name;
    uint32_t name_len;
    uint64_t child; /* the group / data word of this property */
} abc_prop;

static uint64_t rd_u64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i)
        v = (v << 8) | p[i];
    return v;
}
static uint32_t rd_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static double rd_f64(const uint8_t *p)
{
    uint64_t u = rd_u64(p);
    double v;
    memcpy(&v, &u, 8);
    return v;
}
static float rd_f32(const uint8_t *p)
{
    uint32_t u = rd_u32(p);
    float v;
    memcpy(&v, &u, 4);
    return v;
}

static skf_status bad(abc_reader *r, uint64_t offset, const char *what)
{
    return skf_fail(r->err, SKF_ERR_FORMAT, "%s: byte %llu: %s", r->name,
                    (unsigned long long)offset, what);
}

/* A group: its child count and the offset of its first child word. */
static skf_status og_group(abc_reader *r, uint64_t word, uint64_t *count, uint64_t *first)
{
    if (word & DATA_BIT)
        return bad(r, 0, "expected an Ogawa group, found a data block");
    *count = 0;
    *first = 0;
    if (word == 0)
        return SKF_OK;
    if (word < 16 || word > r->n || r->n - word < 8)
        return bad(r, word, "group offset outside the file");
    uint64_t c = rd_u64(r->d + word);
    if (c > (r->n - word - 8) / 8)
        return bad(r, word, "group child count runs past the end of the file");
    *count = c;
    *first = word + 8;
    return SKF_OK;
}

static uint64_t og_child(abc_reader *r, uint64_t first, uint64_t i)
{
    return rd_u64(r->d + first + 8 * i);
}

static skf_status og_data(abc_reader *r, uint64_t word, const uint8_t **p, uint64_t *size,
                          uint64_t *at)
{
    if (!(word & DATA_BIT))
        return bad(r, 0, "expected an Ogawa data block, found a group");
    uint64_t off = word & ~DATA_BIT;
    *p = NULL;
    *size = 0;
    *at = off;
    if (off == 0)
        return SKF_OK;
    if (off < 16 || off > r->n || r->n - off < 8)
        return bad(r, off, "data offset outside the file");
    uint64_t s = rd_u64(r->d + off);
    if (s > r->n - off - 8)
        return bad(r, off, "data size runs past the end of the file");
    *p = r->d + off + 8;
    *size = s;
    *at = off + 8;
    return SKF_OK;
}

/* ---- metadata -------------------------------------------------------- */

static skf_status read_indexed_metadata(abc_reader *r, uint64_t word)
{
    const uint8_t *p;
    uint64_t size, at;
    skf_status st = og_data(r, word, &p, &size, &at);
    if (st)
        return st;
    r->md_str[0] = (const uint8_t *)"";
    r->md_len[0] = 0;
    r->md_count = 1;
    uint64_t o = 0;
    while (o < size) {
        if (r->md_count >= 255)
            return bad(r, at + o, "more than 254 indexed metadata strings");
        uint32_t len = p[o];
        if (len > size - o - 1)
            return bad(r, at + o, "indexed metadata string runs past its block");
        r->md_str[r->md_count] = p + o + 1;
        r->md_len[r->md_count] = len;
        r->md_count++;
        o += 1 + len;
    }
    return SKF_OK;
}

static bool meta_has(const uint8_t *s, size_t len, const char *needle)
{
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= len; ++i)
        if (!memcmp(s + i, needle, k))
            return true;
    return false;
}

static skf_status read_timesamplings(abc_reader *r, uint64_t word)
{
    const uint8_t *p;
    uint64_t size, at;
    skf_status st = og_data(r, word, &p, &size, &at);
    if (st)
        return st;
    uint64_t o = 0;
    size_t cap = 0;
    while (o < size) {
        if (size - o < 16)
            return bad(r, at + o, "time sampling record truncated");
        double tpc = rd_f64(p + o + 4);
        uint32_t spc = rd_u32(p + o + 12);
        uint64_t rec = o;
        o += 16;
        if (spc == 0 || spc > (size - o) / 8)
            return bad(r, at + rec, "time sampling sample count runs past its block");
        if (r->ts_count >= ABC_MAX_TIMESAMPLINGS)
            return bad(r, at + rec, "too many time samplings");
        if (r->ts_count == cap) {
            size_t nc = cap ? cap * 2 : 4;
            abc_timesampling *t = skf_realloc_array(r->ts, nc, sizeof *t);
            if (!t)
                return skf_fail(r->err, SKF_ERR_NOMEM, "%s: out of memory", r->name);
            r->ts = t;
            cap = nc;
        }
        abc_timesampling *t = &r->ts[r->ts_count++];
        t->time_per_cycle = tpc;
        t->samples_per_cycle = spc;
        t->first_time = rd_f64(p + o);
        if (!isfinite(tpc) || !isfinite(t->first_time))
            return bad(r, at + rec, "time sampling is not finite");
        o += 8 * (uint64_t)spc;
    }
    return SKF_OK;
}

/* ---- properties ------------------------------------------------------ */

/* Read the value of width `hint` (0: 1 byte, 1: 2, 2: 4). */
static skf_status hinted(abc_reader *r, const uint8_t *p, uint64_t size, uint64_t at,
                         uint64_t *o, int hint, uint32_t *v)
{
    uint64_t w = hint == 0 ? 1 : hint == 1 ? 2 : 4;
    if (size - *o < w)
        return bad(r, at + *o, "property header truncated");
    const uint8_t *q = p + *o;
    *v = w == 1 ? q[0] : w == 2 ? (uint32_t)(q[0] | q[1] << 8) : rd_u32(q);
    *o += w;
    return SKF_OK;
}

/* Parse the headers of the compound whose group word is given. *props is
 * allocated (caller frees); child words are filled in. */
static skf_status read_compound(abc_reader *r, uint64_t word, abc_prop **props, size_t *count)
{
    *props = NULL;
    *count = 0;
    uint64_t nchild, first;
    skf_status st = og_group(r, word, &nchild, &first);
    if (st || nchild == 0)
        return st;
    const uint8_t *p;
    uint64_t size, at;
    st = og_data(r, og_child(r, first, nchild - 1), &p, &size, &at);
    if (st)
        return st;
    uint64_t nprops = nchild - 1;
    if (nprops == 0)
        return SKF_OK;
    if (nprops > size / 5 + 1)
        return bad(r, at, "more properties than the header block can describe");
    abc_prop *out = skf_calloc(nprops, sizeof *out);
    if (!out)
        return skf_fail(r->err, SKF_ERR_NOMEM, "%s: out of memory", r->name);
    uint64_t o = 0;
    size_t k = 0;
    while (o < size) {
        if (k >= nprops) {
            skf_free(out);
            return bad(r, at + o, "more property headers than property children");
        }
        if (size - o < 4) {
            skf_free(out);
            return bad(r, at + o, "property header truncated");
        }
        uint32_t info = rd_u32(p + o);
        o += 4;
        abc_prop *h = &out[k];
        h->type = (int)(info & 3);
        int hint = (int)((info >> 2) & 3);
        if (hint == 3) {
            skf_free(out);
            return bad(r, at + o - 4, "invalid size hint in property header");
        }
        uint32_t mdi = (info >> 20) & 0xff;
        if (h->type != PROP_COMPOUND) {
            h->pod = (int)((info >> 4) & 15);
            h->extent = (int)((info >> 12) & 0xff);
            if ((st = hinted(r, p, size, at, &o, hint, &h->next_sample)))
                goto fail;
            if (info & 0x200) {
                if ((st = hinted(r, p, size, at, &o, hint, &h->first_changed)) ||
                    (st = hinted(r, p, size, at, &o, hint, &h->last_changed)))
                    goto fail;
            } else if (info & 0x800) {
                h->first_changed = h->last_changed = 0;
            } else {
                h->first_changed = 1;
                h->last_changed = h->next_sample ? h->next_sample - 1 : 0;
            }
            if (info & 0x100) {
                if ((st = hinted(r, p, size, at, &o, hint, &h->ts_index)))
                    goto fail;
            }
        }
        if ((st = hinted(r, p, size, at, &o, hint, &h->name_len)))
            goto fail;
        if (h->name_len > size - o) {
            st = bad(r, at + o, "property name runs past the header block");
            goto fail;
        }
        h->name = p + o;
        o += h->name_len;
        if (mdi == 0xff) {
            uint32_t ml;
            if ((st = hinted(r, p, size, at, &o, hint, &ml)))
                goto fail;
            if (ml > size - o) {
                st = bad(r, at + o, "property metadata runs past the header block");
                goto fail;
            }
            o += ml;
        } else if (mdi >= r->md_count) {
            st = bad(r, at + o, "property metadata index out of range");
            goto fail;
        }
        h->child = og_child(r, first, k);
        ++k;
    }
    if (k != nprops) {
        st = bad(r, at, "property header count differs from the number of property children");
        goto fail;
    }
    *props = out;
    *count = k;
    return SKF_OK;
fail:
    skf_free(out);
    return st;
}

static const abc_prop *find_prop(const abc_prop *props, size_t n, const char *name)
{
    size_t k = strlen(name);
    for (size_t i = 0; i < n; ++i)
        if (props[i].name_len == k && !memcmp(props[i].name, name, k))
            return &props[i];
    return NULL;
}

/* Stored sample index of logical sample i (repeated samples are stored once). */
static uint64_t stored_index(const abc_prop *h, uint64_t i)
{
    if (h->first_changed == 0 && h->last_changed == 0)
        return 0;
    if (i < h->first_changed)
        return 0;
    if (i >= h->last_changed)
        return (uint64_t)h->last_changed - h->first_changed + 1;
    return i - h->first_changed + 1;
}

/* The bytes (after the digest) of logical sample i of a scalar or array
 * property. */
static skf_status prop_sample(abc_reader *r, const abc_prop *h, uint64_t i, const uint8_t **p,
                              uint64_t *size, uint64_t *at)
{
    uint64_t nchild, first;
    skf_status st = og_group(r, h->child, &nchild, &first);
    if (st)
        return st;
    uint64_t s = stored_index(h, i);
    uint64_t c = h->type == PROP_ARRAY ? 2 * s : s;
    if (c >= nchild)
        return skf_fail(r->err, SKF_ERR_FORMAT,
                        "%s: byte %llu: property '%.*s' sample %llu is missing (%llu stored)",
                        r->name, (unsigned long long)(h->child), (int)h->name_len, h->name,
                        (unsigned long long)i, (unsigned long long)nchild);
    st = og_data(r, og_child(r, first, c), p, size, at);
    if (st)
        return st;
    if (*size == 0) {
        *p = NULL;
        return SKF_OK;
    }
    if (*size < ABC_DIGEST)
        return bad(r, *at, "sample shorter than its digest");
    *p += ABC_DIGEST;
    *size -= ABC_DIGEST;
    *at += ABC_DIGEST;
    return SKF_OK;
}

static const abc_timesampling *prop_ts(abc_reader *r, const abc_prop *h)
{
    return h->ts_index < r->ts_count ? &r->ts[h->ts_index] : NULL;
}

/* Time of logical sample i under a time sampling. */
static double ts_time(const abc_timesampling *t, uint64_t i)
{
    if (!t)
        return (double)i;
    if (t->samples_per_cycle == 1 && t->time_per_cycle < DBL_MAX / 64)
        return t->first_time + (double)i * t->time_per_cycle;
    return t->first_time; /* cyclic / acyclic: only the start is used */
}

/* ---- object headers -------------------------------------------------- */

typedef struct abc_object {
    uint64_t word;
    bool is_polymesh;
    bool is_xform;
} abc_object;

/* Child objects of an object group: fills kids[] (allocated). */
static skf_status read_children(abc_reader *r, uint64_t word, abc_object **kids, size_t *count,
                                uint64_t *props_word)
{
    *kids = NULL;
    *count = 0;
    *props_word = 0;
    uint64_t nchild, first;
    skf_status st = og_group(r, word, &nchild, &first);
    if (st)
        return st;
    if (nchild == 0)
        return SKF_OK;
    *props_word = og_child(r, first, 0);
    if (nchild < 2)
        return SKF_OK;
    uint64_t nobj = nchild - 2;
    const uint8_t *p;
    uint64_t size, at;
    st = og_data(r, og_child(r, first, nchild - 1), &p, &size, &at);
    if (st)
        return st;
    if (nobj == 0)
        return SKF_OK;
    if (size >= 32)
        size -= 32; /* property and children digests */
    if (nobj > size / 5)
        return bad(r, at, "more child objects than the header block can describe");
    abc_object *out = skf_calloc(nobj, sizeof *out);
    if (!out)
        return skf_fail(r->err, SKF_ERR_NOMEM, "%s: out of memory", r->name);
    uint64_t o = 0;
    for (uint64_t k = 0; k < nobj; ++k) {
        if (size - o < 5) {
            skf_free(out);
            return bad(r, at + o, "object header truncated");
        }
        uint32_t nl = rd_u32(p + o);
        o += 4;
        if (nl > size - o || size - o - nl < 1) {
            skf_free(out);
            return bad(r, at + o, "object name runs past the header block");
        }
        o += nl;
        uint32_t mdi = p[o++];
        const uint8_t *ms;
        uint64_t ml;
        if (mdi == 0xff) {
            if (size - o < 4) {
                skf_free(out);
                return bad(r, at + o, "object metadata size truncated");
            }
            ml = rd_u32(p + o);
            o += 4;
            if (ml > size - o) {
                skf_free(out);
                return bad(r, at + o, "object metadata runs past the header block");
            }
            ms = p + o;
            o += ml;
        } else {
            if (mdi >= r->md_count) {
                skf_free(out);
                return bad(r, at + o - 1, "object metadata index out of range");
            }
            ms = r->md_str[mdi];
            ml = r->md_len[mdi];
        }
        out[k].word = og_child(r, first, 1 + k);
        out[k].is_polymesh = meta_has(ms, ml, "schema=AbcGeom_PolyMesh_v1");
        out[k].is_xform = meta_has(ms, ml, "schema=AbcGeom_Xform_v3");
    }
    *kids = out;
    *count = nobj;
    return SKF_OK;
}

/* Depth-first search for the first PolyMesh; path[] records the Xform
 * ancestors' object words. */
static skf_status find_polymesh(abc_reader *r, uint64_t word, int depth, uint64_t *xforms,
                                int nx, uint64_t *mesh, uint64_t *mesh_xforms, int *mesh_nx)
{
    if ((size_t)depth > skf_limits_value(r->limits, SKF_LIMIT_ALEMBIC_DEPTH))
        return skf_fail(r->err, SKF_ERR_LIMIT, "%s: byte %llu: object depth %d exceeds %s",
                        r->name, (unsigned long long)word, depth,
                        skf_limits_exceeded(r->limits, SKF_LIMIT_ALEMBIC_DEPTH).text);
    if (++r->objects_seen > skf_limits_value(r->limits, SKF_LIMIT_ALEMBIC_OBJECTS))
        return skf_fail(r->err, SKF_ERR_LIMIT, "%s: byte %llu: objects exceed %s", r->name,
                        (unsigned long long)word, skf_limits_exceeded(r->limits, SKF_LIMIT_ALEMBIC_OBJECTS).text);
    abc_object *kids;
    size_t n;
    uint64_t props;
    skf_status st = read_children(r, word, &kids, &n, &props);
    if (st)
        return st;
    for (size_t i = 0; i < n && !*mesh; ++i) {
        if (kids[i].is_polymesh) {
            *mesh = kids[i].word;
            memcpy(mesh_xforms, xforms, (size_t)nx * sizeof *xforms);
            *mesh_nx = nx;
            break;
        }
        int nnx = nx;
        if (kids[i].is_xform)
            xforms[nnx++] = kids[i].word;
        st = find_polymesh(r, kids[i].word, depth + 1, xforms, nnx, mesh, mesh_xforms, mesh_nx);
        if (st)
            break;
    }
    skf_free(kids);
    return st;
}

/* The properties compound of an object, then the named sub-compound. */
static skf_status schema_props(abc_reader *r, uint64_t obj, const char *schema, abc_prop **props,
                               size_t *count)
{
    *props = NULL;
    *count = 0;
    uint64_t nchild, first;
    skf_status st = og_group(r, obj, &nchild, &first);
    if (st || nchild == 0)
        return st;
    abc_prop *top;
    size_t ntop;
    st = read_compound(r, og_child(r, first, 0), &top, &ntop);
    if (st)
        return st;
    const abc_prop *g = find_prop(top, ntop, schema);
    if (!g || g->type != PROP_COMPOUND) {
        skf_free(top);
        return SKF_OK;
    }
    uint64_t w = g->child;
    skf_free(top);
    return read_compound(r, w, props, count);
}

/* ---- Xform ------------------------------------------------------------ */

typedef struct abc_xform {
    abc_prop *props;
    size_t count;
    const abc_prop *ops, *vals, *inherits;
} abc_xform;

/* Matrix (column-major, column-vector) of an Xform at time t; *inherits set. */
static skf_status xform_matrix(abc_reader *r, const abc_xform *x, double t, double m[16],
                               bool *inherits)
{
    skf_mat4_identity(m);
    *inherits = true;
    const uint8_t *p;
    uint64_t size, at;
    skf_status st;
    if (x->inherits && x->inherits->type == PROP_SCALAR && x->inherits->next_sample) {
        const abc_timesampling *ts = prop_ts(r, x->inherits);
        double dt = ts ? ts->time_per_cycle : 1;
        double fi = dt > 0 && ts ? floor((t - ts->first_time) / dt + 0.5) : 0;
        uint64_t i = fi <= 0 ? 0 : fi >= x->inherits->next_sample ? x->inherits->next_sample - 1 : (uint64_t)fi;
        if ((st = prop_sample(r, x->inherits, i, &p, &size, &at)))
            return st;
        if (size >= 1)
            *inherits = p[0] != 0;
    }
    if (!x->ops || !x->vals || !x->ops->next_sample || !x->vals->next_sample)
        return SKF_OK;
    if (x->ops->pod != POD_U8 || x->vals->pod != POD_F64)
        return bad(r, 0, "Xform .ops / .vals have unexpected types");
    const abc_timesampling *ts = prop_ts(r, x->vals);
    double dt = ts && ts->samples_per_cycle == 1 ? ts->time_per_cycle : 0;
    double fi = dt > 0 && dt < DBL_MAX / 64 ? floor((t - ts->first_time) / dt + 0.5) : 0;
    uint64_t iv = fi <= 0 ? 0 : fi >= x->vals->next_sample ? x->vals->next_sample - 1 : (uint64_t)fi;
    uint64_t io = iv < x->ops->next_sample ? iv : x->ops->next_sample - 1;
    const uint8_t *ops, *vals;
    uint64_t nops, nvals, at_ops, at_vals;
    if ((st = prop_sample(r, x->ops, io, &ops, &nops, &at_ops)) ||
        (st = prop_sample(r, x->vals, iv, &vals, &nvals, &at_vals)))
        return st;
    if (nvals % 8)
        return bad(r, at_vals, "Xform .vals size is not a whole number of doubles");
    nvals /= 8;
    uint64_t v = 0;
    for (uint64_t k = 0; k < nops; ++k) {
        int type = ops[k] >> 4;
        static const int need[7] = {3, 3, 4, 16, 1, 1, 1};
        if (type > 6)
            return bad(r, at_ops + k, "unknown Xform operation");
        if (nvals - v < (uint64_t)need[type])
            return bad(r, at_vals, "Xform .vals shorter than its operations need");
        double a[16];
        for (int j = 0; j < need[type]; ++j) {
            a[j] = rd_f64(vals + 8 * (v + (uint64_t)j));
            if (!isfinite(a[j]))
                return bad(r, at_vals + 8 * (v + (uint64_t)j), "Xform value is not finite");
        }
        v += (uint64_t)need[type];
        double op[16];
        skf_mat4_identity(op);
        if (type == 0) {
            op[0] = a[0];
            op[5] = a[1];
            op[10] = a[2];
        } else if (type == 1) {
            op[12] = a[0];
            op[13] = a[1];
            op[14] = a[2];
        } else if (type == 3) {
            /* Imath row-vector M44d, row-major: the same 16 numbers are our
             * column-major column-vector matrix. */
            memcpy(op, a, sizeof a);
        } else {
            double axis[3] = {0, 0, 0}, ang;
            if (type == 2) {
                axis[0] = a[0];
                axis[1] = a[1];
                axis[2] = a[2];
                ang = a[3];
            } else {
                axis[type - 4] = 1;
                ang = a[0];
            }
            double len = skf_norm3(axis);
            if (len > 0) {
                double h = ang * M_PI / 360.0, s = sin(h) / len;
                double q[4] = {axis[0] * s, axis[1] * s, axis[2] * s, cos(h)};
                double z[3] = {0, 0, 0}, one[3] = {1, 1, 1};
                skf_mat4_from_trs(op, z, q, one);
            }
        }
        skf_mat4_mul(m, m, op);
    }
    return SKF_OK;
}

/* ---- the reader ------------------------------------------------------- */

static skf_status read_topology(abc_reader *r, const abc_prop *counts, const abc_prop *indices,
                                skf_meshseq *seq)
{
    if (!counts || !indices)
        return SKF_OK;
    if (counts->pod != POD_I32 || indices->pod != POD_I32 || counts->type != PROP_ARRAY ||
        indices->type != PROP_ARRAY)
        return bad(r, 0, "PolyMesh .faceCounts / .faceIndices are not int32 arrays");
    const uint8_t *pc, *pi;
    uint64_t nc, ni, atc, ati;
    skf_status st;
    if ((st = prop_sample(r, counts, 0, &pc, &nc, &atc)) ||
        (st = prop_sample(r, indices, 0, &pi, &ni, &ati)))
        return st;
    if (counts->last_changed != 0 || indices->last_changed != 0) {
        /* Samples stored beyond the first: accept only identical topology. */
        for (uint64_t f = 1; f < counts->next_sample; ++f) {
            const uint8_t *q;
            uint64_t n, at;
            if ((st = prop_sample(r, counts, f, &q, &n, &at)))
                return st;
            if (n != nc || (n && memcmp(q, pc, n)))
                return bad(r, at, "PolyMesh topology changes over time (not supported)");
        }
        for (uint64_t f = 1; f < indices->next_sample; ++f) {
            const uint8_t *q;
            uint64_t n, at;
            if ((st = prop_sample(r, indices, f, &q, &n, &at)))
                return st;
            if (n != ni || (n && memcmp(q, pi, n)))
                return bad(r, at, "PolyMesh topology changes over time (not supported)");
        }
    }
    if (nc % 4 || ni % 4)
        return bad(r, nc % 4 ? atc : ati, "face data is not a whole number of int32");
    nc /= 4;
    ni /= 4;
    uint64_t tris = 0, used = 0;
    for (uint64_t f = 0; f < nc; ++f) {
        int32_t c = (int32_t)rd_u32(pc + 4 * f);
        if (c < 0 || (uint64_t)c > ni - used)
            return bad(r, atc + 4 * f, "face count runs past .faceIndices");
        used += (uint64_t)c;
        if (c >= 3)
            tris += (uint64_t)c - 2;
    }
    if (used != ni)
        return bad(r, ati, ".faceCounts do not add up to the number of .faceIndices");
    if (tris > UINT32_MAX / 3)
        return bad(r, atc, "too many triangles");
    seq->triangles = skf_malloc_array(tris ? tris * 3 : 1, sizeof *seq->triangles);
    if (!seq->triangles)
        return skf_fail(r->err, SKF_ERR_NOMEM, "%s: out of memory", r->name);
    uint64_t t = 0, base = 0;
    for (uint64_t f = 0; f < nc; ++f) {
        uint32_t c = rd_u32(pc + 4 * f);
        for (uint32_t j = 0; j < c; ++j) {
            int32_t vi = (int32_t)rd_u32(pi + 4 * (base + j));
            if (vi < 0 || (uint64_t)vi >= seq->vertex_count)
                return bad(r, ati + 4 * (base + j), "face index out of range");
        }
        /* Alembic winds faces clockwise: reverse to (v_{c-1}, ..., v0) and
         * fan from its first vertex (matches the OBJ export of the same mesh). */
        for (uint32_t j = 1; j + 1 < c; ++j) {
            uint32_t a = rd_u32(pi + 4 * (base + c - 1));
            uint32_t b = rd_u32(pi + 4 * (base + c - 1 - j));
            uint32_t d = rd_u32(pi + 4 * (base + c - 2 - j));
            seq->triangles[3 * t] = a;
            seq->triangles[3 * t + 1] = b;
            seq->triangles[3 * t + 2] = d;
            ++t;
        }
        base += c;
    }
    seq->triangle_count = (size_t)tris;
    return SKF_OK;
}

skf_status skf_alembic_read_memory(const uint8_t *data, size_t size, const char *name,
                                   const skf_alembic_options *opt, skf_meshseq **out,
                                   skf_error *err)
{
    *out = NULL;
    abc_reader r;
    memset(&r, 0, sizeof r);
    r.d = data;
    r.n = size;
    r.name = name ? name : "<memory>";
    r.err = err;
    r.limits = opt ? opt->limits : NULL;
    skf_status st = SKF_OK;
    abc_prop *geom = NULL;
    size_t ngeom = 0;
    abc_xform *xf = NULL;
    int nxf = 0;
    skf_meshseq *seq = NULL;

    if (size < 16 || memcmp(data, "Ogawa", 5) != 0) {
        if (size >= 8 && !memcmp(data, "\x89HDF", 4))
            return skf_fail(err, SKF_ERR_FORMAT,
                            "%s: byte 0: HDF5 Alembic archive (only Ogawa is supported)", r.name);
        return skf_fail(err, SKF_ERR_FORMAT, "%s: byte 0: not an Ogawa Alembic file", r.name);
    }
    if (data[5] != 0xff)
        return skf_fail(err, SKF_ERR_FORMAT,
                        "%s: byte 5: archive was not closed by its writer (incomplete file)",
                        r.name);
    uint64_t root = rd_u64(data + 8);
    uint64_t nroot, first;
    if ((st = og_group(&r, root, &nroot, &first)))
        return st;
    if (nroot < 6)
        return bad(&r, root, "root group has fewer than 6 children (not an Alembic archive)");
    if ((st = read_indexed_metadata(&r, og_child(&r, first, 5))) ||
        (st = read_timesamplings(&r, og_child(&r, first, 4))))
        goto done;

    uint64_t mesh = 0;
    size_t max_depth = skf_limits_value(r.limits, SKF_LIMIT_ALEMBIC_DEPTH);
    uint64_t *stack = skf_malloc_array(max_depth + 2, sizeof *stack);
    uint64_t *mesh_x = skf_malloc_array(max_depth + 2, sizeof *mesh_x);
    int mesh_nx = 0;
    if (!stack || !mesh_x) {
        skf_free(stack);
        skf_free(mesh_x);
        st = skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", r.name);
        goto done;
    }
    st = find_polymesh(&r, og_child(&r, first, 2), 0, stack, 0, &mesh, mesh_x, &mesh_nx);
    skf_free(stack);
    if (st || !mesh) {
        skf_free(mesh_x);
        if (!st)
            st = skf_fail(err, SKF_ERR_FORMAT, "%s: byte %llu: no PolyMesh object in the archive",
                          r.name, (unsigned long long)root);
        goto done;
    }
    if ((st = schema_props(&r, mesh, ".geom", &geom, &ngeom))) {
        skf_free(mesh_x);
        goto done;
    }
    if (opt && opt->apply_parent_xform && mesh_nx > 0) {
        xf = skf_calloc((size_t)mesh_nx, sizeof *xf);
        if (!xf) {
            skf_free(mesh_x);
            st = skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", r.name);
            goto done;
        }
        for (int i = 0; i < mesh_nx && !st; ++i) {
            abc_xform *x = &xf[nxf];
            memset(x, 0, sizeof *x);
            st = schema_props(&r, mesh_x[i], ".xform", &x->props, &x->count);
            if (st)
                break;
            x->ops = find_prop(x->props, x->count, ".ops");
            x->vals = find_prop(x->props, x->count, ".vals");
            x->inherits = find_prop(x->props, x->count, ".inherits");
            ++nxf;
        }
    }
    skf_free(mesh_x);
    if (st)
        goto done;

    const abc_prop *P = find_prop(geom, ngeom, "P");
    if (!P) {
        st = skf_fail(err, SKF_ERR_FORMAT, "%s: byte %llu: PolyMesh has no P property", r.name,
                      (unsigned long long)(mesh & ~DATA_BIT));
        goto done;
    }
    if (P->type != PROP_ARRAY || P->pod != POD_F32 || P->extent != 3) {
        st = bad(&r, P->child, "PolyMesh P is not an array of float32 xyz");
        goto done;
    }
    if (P->next_sample == 0) {
        st = bad(&r, P->child, "PolyMesh P has zero samples");
        goto done;
    }
    const uint8_t *p0;
    uint64_t s0, at0;
    if ((st = prop_sample(&r, P, 0, &p0, &s0, &at0)))
        goto done;
    if (s0 == 0 || s0 % 12) {
        st = bad(&r, at0, "P sample 0 is empty or not a whole number of float32 xyz");
        goto done;
    }
    uint64_t nv = s0 / 12;
    if (nv > INT32_MAX || P->next_sample > INT32_MAX) {
        st = skf_fail(err, SKF_ERR_LIMIT,
                      "%s: byte %llu: more than 2^31 vertices or frames (the reader's fixed limit)",
                      r.name, (unsigned long long)at0);
        goto done;
    }
    if (nv > skf_limits_value(r.limits, SKF_LIMIT_VERTICES)) {
        st = skf_fail(err, SKF_ERR_LIMIT, "%s: byte %llu: %llu vertices exceed %s", r.name,
                      (unsigned long long)at0, (unsigned long long)nv,
                      skf_limits_exceeded(r.limits, SKF_LIMIT_VERTICES).text);
        goto done;
    }
    if (P->next_sample > skf_limits_value(r.limits, SKF_LIMIT_FRAMES)) {
        st = skf_fail(err, SKF_ERR_LIMIT, "%s: byte %llu: %u frames exceed %s", r.name,
                      (unsigned long long)at0, P->next_sample,
                      skf_limits_exceeded(r.limits, SKF_LIMIT_FRAMES).text);
        goto done;
    }
    /* Bound the allocation by the file: distinct stored samples must exist
     * and repeated ones reuse them, so frames x vertices is bounded by
     * next_sample x the first sample's size; refuse absurd products. */
    if ((uint64_t)P->next_sample > (UINT64_C(1) << 34) / (nv * 24 + 1)) {
        st = skf_fail(err, SKF_ERR_LIMIT, "%s: byte %llu: %u frames x %llu vertices is above the reader's fixed limit of 2^34 bytes",
                      r.name, (unsigned long long)at0, P->next_sample, (unsigned long long)nv);
        goto done;
    }
    seq = skf_meshseq_new((size_t)nv, P->next_sample);
    if (!seq) {
        st = skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory for %u frames x %llu vertices",
                      r.name, P->next_sample, (unsigned long long)nv);
        goto done;
    }
    const abc_timesampling *ts = prop_ts(&r, P);
    if (P->ts_index >= r.ts_count && P->ts_index != 0) {
        st = bad(&r, P->child, "P time sampling index out of range");
        goto done;
    }
    seq->start_time = ts ? ts->first_time : 0;
    seq->fps = ts && ts->samples_per_cycle == 1 && ts->time_per_cycle > 0 &&
                       ts->time_per_cycle < DBL_MAX / 64
                   ? 1.0 / ts->time_per_cycle
                   : 0;
    for (uint64_t f = 0; f < P->next_sample; ++f) {
        const uint8_t *p;
        uint64_t sz, at;
        if ((st = prop_sample(&r, P, f, &p, &sz, &at)))
            goto done;
        if (sz != nv * 12) {
            st = skf_fail(err, SKF_ERR_FORMAT,
                          "%s: byte %llu: frame %llu has %llu vertices, frame 0 has %llu", r.name,
                          (unsigned long long)at, (unsigned long long)f,
                          (unsigned long long)(sz / 12), (unsigned long long)nv);
            goto done;
        }
        double *dst = seq->positions + f * nv * 3;
        for (uint64_t k = 0; k < nv * 3; ++k) {
            float v = rd_f32(p + 4 * k);
            if (!isfinite(v)) {
                st = skf_fail(err, SKF_ERR_FORMAT,
                              "%s: byte %llu: frame %llu vertex %llu: position is not finite",
                              r.name, (unsigned long long)(at + 4 * k), (unsigned long long)f,
                              (unsigned long long)(k / 3));
                goto done;
            }
            dst[k] = v;
        }
        if (nxf) {
            double t = ts_time(ts, f), m[16], a[16];
            skf_mat4_identity(m);
            for (int i = 0; i < nxf; ++i) {
                bool inh;
                if ((st = xform_matrix(&r, &xf[i], t, a, &inh)))
                    goto done;
                if (!inh)
                    skf_mat4_identity(m);
                skf_mat4_mul(m, m, a);
            }
            for (uint64_t k = 0; k < nv; ++k) {
                double q[3];
                skf_mat4_transform_point(q, m, dst + 3 * k);
                memcpy(dst + 3 * k, q, sizeof q);
            }
        }
    }
    st = read_topology(&r, find_prop(geom, ngeom, ".faceCounts"),
                       find_prop(geom, ngeom, ".faceIndices"), seq);
done:
    for (int i = 0; i < nxf; ++i)
        skf_free(xf[i].props);
    skf_free(xf);
    skf_free(geom);
    skf_free(r.ts);
    if (st) {
        skf_meshseq_free(seq);
        return st;
    }
    *out = seq;
    return SKF_OK;
}
