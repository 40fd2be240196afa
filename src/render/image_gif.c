/* Animated GIF writing (GIF89a specification, CompuServe 1990) through giflib,
 * with a palette built by median cut (P. Heckbert, "Color image quantization
 * for frame buffer display", SIGGRAPH 1982).
 *
 * Why reserved colours: a heat map is read by its colours. Median cut alone
 * would merge neighbouring colormap bins that cover few pixels, so the caller
 * passes the colours that must survive exactly (the colormap bins, background,
 * text) and only the remaining entries are chosen by median cut over the other
 * pixels. No dithering: it would scatter pixels across bins.
 *
 * One global palette for all frames keeps colours steady between frames;
 * frames after the first are written as changed rectangles with unchanged
 * pixels transparent. The file is encoded to memory and written atomically. */
#include "skinfit/image.h"

#include <gif_lib.h>
#include <stdio.h>
#include <string.h>

#define CELLS (32 * 32 * 32)

static inline int cell_of(const uint8_t *p)
{
    return ((p[0] >> 3) << 10) | ((p[1] >> 3) << 5) | (p[2] >> 3);
}

typedef struct box {
    int lo[3], hi[3]; /* inclusive cell bounds per channel, 0..31 */
    uint64_t count;
} box;

typedef struct quant {
    uint32_t *hist;          /* CELLS: pixel counts of non-reserved pixels */
    uint64_t *sum;           /* CELLS x 3: channel sums (8-bit values) */
    int16_t *reserved_head;  /* CELLS: first reserved palette index in the cell, -1 */
    int16_t reserved_next[SKF_GIF_MAX_RESERVED];
    int16_t *cache;          /* CELLS: nearest palette index for non-reserved pixels, -1 */
    GifColorType palette[256];
    int reserved, size;
} quant;

static void box_shrink(const quant *q, box *b)
{
    int lo[3] = {31, 31, 31}, hi[3] = {0, 0, 0};
    uint64_t n = 0;
    for (int r = b->lo[0]; r <= b->hi[0]; ++r)
        for (int g = b->lo[1]; g <= b->hi[1]; ++g)
            for (int bl = b->lo[2]; bl <= b->hi[2]; ++bl) {
                uint32_t c = q->hist[(r << 10) | (g << 5) | bl];
                if (!c)
                    continue;
                n += c;
                int v[3] = {r, g, bl};
                for (int k = 0; k < 3; ++k) {
                    if (v[k] < lo[k])
                        lo[k] = v[k];
                    if (v[k] > hi[k])
                        hi[k] = v[k];
                }
            }
    b->count = n;
    if (n)
        for (int k = 0; k < 3; ++k) {
            b->lo[k] = lo[k];
            b->hi[k] = hi[k];
        }
}

/* Count of pixels in box b whose channel axis value is <= split. */
static uint64_t count_below(const quant *q, const box *b, int axis, int split)
{
    box t = *b;
    t.hi[axis] = split;
    uint64_t n = 0;
    for (int r = t.lo[0]; r <= t.hi[0]; ++r)
        for (int g = t.lo[1]; g <= t.hi[1]; ++g)
            for (int bl = t.lo[2]; bl <= t.hi[2]; ++bl)
                n += q->hist[(r << 10) | (g << 5) | bl];
    return n;
}

static void median_cut(quant *q, int want)
{
    box boxes[256];
    int nb = 0;
    boxes[0] = (box){{0, 0, 0}, {31, 31, 31}, 0};
    box_shrink(q, &boxes[0]);
    if (!boxes[0].count || want <= 0)
        return;
    nb = 1;
    while (nb < want) {
        /* split the box with the largest population x longest side (a proxy
         * for its share of the quantisation error) that spans > 1 cell */
        int best = -1;
        uint64_t best_score = 0;
        for (int i = 0; i < nb; ++i) {
            const box *b = &boxes[i];
            int len = 0;
            for (int k = 0; k < 3; ++k)
                if (b->hi[k] - b->lo[k] > len)
                    len = b->hi[k] - b->lo[k];
            if (!len)
                continue;
            if (best < 0 || b->count * (uint64_t)len > best_score) {
                best = i;
                best_score = b->count * (uint64_t)len;
            }
        }
        if (best < 0)
            break;
        box *b = &boxes[best];
        int axis = 0, len = -1;
        for (int k = 0; k < 3; ++k)
            if (b->hi[k] - b->lo[k] > len) {
                len = b->hi[k] - b->lo[k];
                axis = k;
            }
        int split = b->lo[axis];
        for (int s = b->lo[axis]; s < b->hi[axis]; ++s) {
            split = s;
            if (count_below(q, b, axis, s) * 2 >= b->count)
                break;
        }
        box a = *b, c = *b;
        a.hi[axis] = split;
        c.lo[axis] = split + 1;
        box_shrink(q, &a);
        box_shrink(q, &c);
        *b = a;
        boxes[nb++] = c;
    }
    for (int i = 0; i < nb; ++i) {
        uint64_t n = 0, s[3] = {0, 0, 0};
        const box *b = &boxes[i];
        for (int r = b->lo[0]; r <= b->hi[0]; ++r)
            for (int g = b->lo[1]; g <= b->hi[1]; ++g)
                for (int bl = b->lo[2]; bl <= b->hi[2]; ++bl) {
                    int cell = (r << 10) | (g << 5) | bl;
                    n += q->hist[cell];
                    for (int k = 0; k < 3; ++k)
                        s[k] += q->sum[3 * (size_t)cell + (size_t)k];
                }
        if (!n)
            continue;
        GifColorType *e = &q->palette[q->size++];
        e->Red = (GifByteType)((s[0] + n / 2) / n);
        e->Green = (GifByteType)((s[1] + n / 2) / n);
        e->Blue = (GifByteType)((s[2] + n / 2) / n);
    }
}

static int nearest(const quant *q, int r, int g, int b)
{
    int best = 0;
    long bd = -1;
    for (int i = 0; i < q->size; ++i) {
        long dr = r - q->palette[i].Red, dg = g - q->palette[i].Green, db = b - q->palette[i].Blue;
        long d = dr * dr + dg * dg + db * db;
        if (bd < 0 || d < bd) {
            bd = d;
            best = i;
        }
    }
    return best;
}

static int map_pixel(quant *q, const uint8_t *p)
{
    int cell = cell_of(p);
    for (int i = q->reserved_head[cell]; i >= 0; i = q->reserved_next[i])
        if (q->palette[i].Red == p[0] && q->palette[i].Green == p[1] && q->palette[i].Blue == p[2])
            return i;
    if (q->cache[cell] < 0)
        q->cache[cell] = (int16_t)nearest(q, (p[0] & 0xF8) | 4, (p[1] & 0xF8) | 4,
                                         (p[2] & 0xF8) | 4);
    return q->cache[cell];
}

static bool is_reserved(const quant *q, const uint8_t *p)
{
    for (int i = q->reserved_head[cell_of(p)]; i >= 0; i = q->reserved_next[i])
        if (q->palette[i].Red == p[0] && q->palette[i].Green == p[1] && q->palette[i].Blue == p[2])
            return true;
    return false;
}

typedef struct sink {
    uint8_t *data;
    size_t size, cap;
    int failed;
} sink;

static int gif_out(GifFileType *gif, const GifByteType *bytes, int len)
{
    sink *s = gif->UserData;
    if (len <= 0)
        return len;
    if (s->size + (size_t)len > s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 65536;
        while (cap < s->size + (size_t)len)
            cap *= 2;
        uint8_t *p = skf_realloc_array(s->data, cap, 1);
        if (!p) {
            s->failed = 1;
            return 0;
        }
        s->data = p;
        s->cap = cap;
    }
    memcpy(s->data + s->size, bytes, (size_t)len);
    s->size += (size_t)len;
    return len;
}

static void quant_release(quant *q)
{
    skf_free(q->hist);
    skf_free(q->sum);
    skf_free(q->reserved_head);
    skf_free(q->cache);
}

skf_status skf_gif_write(const char *path, const skf_image *frames, size_t frame_count,
                         const int *delay_cs, const skf_gif_options *opts, skf_error *err)
{
    if (frame_count < 1)
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: no frames to write", path);
    int w = frames[0].width, h = frames[0].height;
    if (w > 65535 || h > 65535)
        return skf_fail(err, SKF_ERR_LIMIT, "%s: frame 0: %dx%d exceeds GIF's 65535 limit", path,
                        w, h);
    for (size_t f = 1; f < frame_count; ++f)
        if (frames[f].width != w || frames[f].height != h)
            return skf_fail(err, SKF_ERR_ARGUMENT, "%s: frame %zu: size %dx%d differs from %dx%d",
                            path, f, frames[f].width, frames[f].height, w, h);
    for (size_t f = 0; delay_cs && f < frame_count; ++f)
        if (delay_cs[f] < 0 || delay_cs[f] > 65535)
            return skf_fail(err, SKF_ERR_ARGUMENT, "%s: frame %zu: delay %d cs outside 0..65535",
                            path, f, delay_cs[f]);
    size_t nres = opts && opts->reserved ? opts->reserved_count : 0;
    if (nres > SKF_GIF_MAX_RESERVED)
        return skf_fail(err, SKF_ERR_ARGUMENT, "%s: %zu reserved colours, at most %d", path, nres,
                        SKF_GIF_MAX_RESERVED);

    quant q;
    memset(&q, 0, sizeof q);
    q.hist = skf_calloc(CELLS, sizeof *q.hist);
    q.sum = skf_calloc((size_t)CELLS * 3, sizeof *q.sum);
    q.reserved_head = skf_malloc_array(CELLS, sizeof *q.reserved_head);
    q.cache = skf_malloc_array(CELLS, sizeof *q.cache);
    uint8_t *line = skf_malloc_array((size_t)w, 1);
    uint8_t *idx = skf_malloc_array((size_t)w * (size_t)h, 2); /* this frame | previous frame */
    if (!q.hist || !q.sum || !q.reserved_head || !q.cache || !line || !idx) {
        skf_free(idx);
        quant_release(&q);
        skf_free(line);
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory building the palette", path);
    }
    memset(q.reserved_head, 0xff, CELLS * sizeof *q.reserved_head);
    memset(q.cache, 0xff, CELLS * sizeof *q.cache);
    for (size_t i = 0; i < nres; ++i) {
        uint32_t c = opts->reserved[i];
        uint8_t p[3] = {(uint8_t)(c >> 24), (uint8_t)(c >> 16), (uint8_t)(c >> 8)};
        q.palette[i] = (GifColorType){p[0], p[1], p[2]};
        int cell = cell_of(p);
        q.reserved_next[i] = q.reserved_head[cell];
        q.reserved_head[cell] = (int16_t)i;
    }
    q.reserved = q.size = (int)nres;
    for (size_t f = 0; f < frame_count; ++f)
        for (int y = 0; y < h; ++y) {
            const uint8_t *row = frames[f].pixels + (size_t)y * frames[f].stride;
            for (int x = 0; x < w; ++x) {
                const uint8_t *p = row + 4 * (size_t)x;
                if (is_reserved(&q, p))
                    continue;
                int cell = cell_of(p);
                q.hist[cell]++;
                q.sum[3 * (size_t)cell] += p[0];
                q.sum[3 * (size_t)cell + 1] += p[1];
                q.sum[3 * (size_t)cell + 2] += p[2];
            }
        }
    /* one entry stays free: the transparent index of the delta frames */
    median_cut(&q, 255 - q.reserved);
    if (q.size == 0)
        q.palette[q.size++] = (GifColorType){0, 0, 0};
    const int transparent = q.size;
    /* GIF colour tables have 2^k entries; pad with black. */
    int table = 2;
    while (table < q.size + 1)
        table *= 2;
    for (int i = q.size; i < table; ++i)
        q.palette[i] = (GifColorType){0, 0, 0};

    sink s = {0};
    int gerr = 0;
    char where[64];
    const char *place = "header";
    GifFileType *gif = EGifOpen(&s, gif_out, &gerr);
    ColorMapObject *cmap = gif ? GifMakeMapObject(table, q.palette) : NULL;
    if (!gif || !cmap)
        goto gif_fail;
    EGifSetGifVersion(gif, true);
    if (EGifPutScreenDesc(gif, w, h, 8, 0, cmap) != GIF_OK)
        goto gif_fail;
    {
        static const GifByteType app[11] = {'N', 'E', 'T', 'S', 'C', 'A', 'P', 'E', '2', '.', '0'};
        GifByteType loop[3] = {1, 0, 0}; /* sub-block id 1, loop count 0 = forever */
        place = "NETSCAPE2.0 extension";
        if (EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE) != GIF_OK ||
            EGifPutExtensionBlock(gif, 11, app) != GIF_OK ||
            EGifPutExtensionBlock(gif, 3, loop) != GIF_OK || EGifPutExtensionTrailer(gif) != GIF_OK)
            goto gif_fail;
    }
    /* Frame 0 whole; every later frame as the rectangle of pixels whose
     * palette index changed, unchanged pixels inside it transparent (the
     * previous frame shows through: disposal "do not dispose"). Static parts
     * (labels, legend) then cost nothing after the first frame. */
    size_t npx = (size_t)w * (size_t)h;
    uint8_t *cur = idx, *prev = idx + npx;
    for (size_t f = 0; f < frame_count; ++f) {
        snprintf(where, sizeof where, "frame %zu", f);
        place = where;
        for (int y = 0; y < h; ++y) {
            const uint8_t *row = frames[f].pixels + (size_t)y * frames[f].stride;
            for (int x = 0; x < w; ++x)
                cur[(size_t)y * (size_t)w + (size_t)x] = (uint8_t)map_pixel(&q, row + 4 * (size_t)x);
        }
        int x0 = 0, y0 = 0, x1 = w - 1, y1 = h - 1;
        if (f > 0) {
            x0 = w, y0 = h, x1 = -1, y1 = -1;
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x)
                    if (cur[(size_t)y * (size_t)w + (size_t)x] != prev[(size_t)y * (size_t)w + (size_t)x]) {
                        x0 = x < x0 ? x : x0, x1 = x > x1 ? x : x1;
                        y0 = y < y0 ? y : y0, y1 = y > y1 ? y : y1;
                    }
            if (x1 < 0)
                x0 = y0 = x1 = y1 = 0; /* nothing changed: one transparent pixel */
        }
        GraphicsControlBlock gcb = {DISPOSE_DO_NOT, false, delay_cs ? delay_cs[f] : 4,
                                    f > 0 ? transparent : NO_TRANSPARENT_COLOR};
        GifByteType ext[4];
        size_t n = EGifGCBToExtension(&gcb, ext);
        int rw = x1 - x0 + 1, rh = y1 - y0 + 1;
        if (EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, (int)n, ext) != GIF_OK ||
            EGifPutImageDesc(gif, x0, y0, rw, rh, false, NULL) != GIF_OK)
            goto gif_fail;
        for (int y = y0; y <= y1; ++y) {
            for (int x = x0; x <= x1; ++x) {
                size_t i = (size_t)y * (size_t)w + (size_t)x;
                line[x - x0] = f > 0 && cur[i] == prev[i] ? (uint8_t)transparent : cur[i];
            }
            if (EGifPutLine(gif, line, rw) != GIF_OK)
                goto gif_fail;
        }
        uint8_t *t = cur;
        cur = prev;
        prev = t;
    }
    GifFreeMapObject(cmap);
    cmap = NULL;
    place = "trailer";
    if (EGifCloseFile(gif, &gerr) != GIF_OK) {
        gif = NULL;
        goto gif_fail;
    }
    quant_release(&q);
    skf_free(line);
    skf_free(idx);
    if (s.failed) {
        skf_free(s.data);
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory encoding GIF", path);
    }
    skf_status st = skf_write_file_atomic(path, s.data, s.size, err);
    skf_free(s.data);
    return st;

gif_fail:;
    int code = gif ? gif->Error : gerr;
    if (gif) {
        int e2;
        EGifCloseFile(gif, &e2);
    }
    if (cmap)
        GifFreeMapObject(cmap);
    quant_release(&q);
    skf_free(line);
    skf_free(idx);
    skf_free(s.data);
    if (s.failed)
        return skf_fail(err, SKF_ERR_NOMEM, "%s: %s: out of memory encoding GIF", path, place);
    const char *msg = GifErrorString(code);
    return skf_fail(err, SKF_ERR_IO, "%s: %s: giflib: %s", path, place, msg ? msg : "error");
}

/* ---- reading (tests) ----------------------------------------------------- */

void skf_gif_info_release(skf_gif_info *info)
{
    if (!info)
        return;
    for (size_t i = 0; info->frames && i < info->frame_count; ++i)
        skf_image_release(&info->frames[i]);
    skf_free(info->frames);
    skf_free(info->delay_cs);
    memset(info, 0, sizeof *info);
}

skf_status skf_gif_read(const char *path, skf_gif_info *out, skf_error *err)
{
    memset(out, 0, sizeof *out);
    out->loop_count = -1;
    int gerr = 0;
    GifFileType *gif = DGifOpenFileName(path, &gerr);
    if (!gif)
        return skf_fail(err, SKF_ERR_IO, "%s: cannot open GIF: %s", path,
                        GifErrorString(gerr) ? GifErrorString(gerr) : "error");
    if (DGifSlurp(gif) != GIF_OK) {
        int code = gif->Error;
        DGifCloseFile(gif, &gerr);
        return skf_fail(err, SKF_ERR_FORMAT, "%s: bad GIF: %s", path,
                        GifErrorString(code) ? GifErrorString(code) : "error");
    }
    skf_status st = SKF_OK;
    int w = gif->SWidth, h = gif->SHeight;
    size_t n = (size_t)gif->ImageCount;
    if (gif->SColorMap) {
        out->palette_size = gif->SColorMap->ColorCount;
        for (int i = 0; i < gif->SColorMap->ColorCount && i < 256; ++i) {
            GifColorType c = gif->SColorMap->Colors[i];
            out->palette[i] = ((uint32_t)c.Red << 24) | ((uint32_t)c.Green << 16) |
                              ((uint32_t)c.Blue << 8) | 0xFF;
        }
    }
    out->frames = skf_calloc(n ? n : 1, sizeof *out->frames);
    out->delay_cs = skf_calloc(n ? n : 1, sizeof *out->delay_cs);
    if (!out->frames || !out->delay_cs) {
        st = skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", path);
        goto done;
    }
    for (size_t f = 0; f < n; ++f) {
        SavedImage *si = &gif->SavedImages[f];
        for (int e = 0; e + 1 < si->ExtensionBlockCount; ++e) {
            ExtensionBlock *b = &si->ExtensionBlocks[e];
            if (b->Function == APPLICATION_EXT_FUNC_CODE && b->ByteCount == 11 &&
                !memcmp(b->Bytes, "NETSCAPE2.0", 11)) {
                ExtensionBlock *c = &si->ExtensionBlocks[e + 1];
                if (c->ByteCount >= 3 && c->Bytes[0] == 1)
                    out->loop_count = c->Bytes[1] | (c->Bytes[2] << 8);
            }
        }
        GraphicsControlBlock gcb = {DISPOSE_DO_NOT, false, 0, NO_TRANSPARENT_COLOR};
        DGifSavedExtensionToGCB(gif, (int)f, &gcb);
        out->delay_cs[f] = gcb.DelayTime;
        if (f == 0)
            st = skf_image_init(&out->frames[f], w, h, 0x000000FF, err);
        else {
            st = skf_image_init(&out->frames[f], w, h, 0, err);
            if (!st)
                skf_image_blit(&out->frames[f], &out->frames[f - 1], 0, 0);
        }
        if (st)
            goto done;
        out->frame_count = f + 1;
        ColorMapObject *cm = si->ImageDesc.ColorMap ? si->ImageDesc.ColorMap : gif->SColorMap;
        GifImageDesc *d = &si->ImageDesc;
        if (!cm) {
            st = skf_fail(err, SKF_ERR_FORMAT, "%s: frame %zu: no colour table", path, f);
            goto done;
        }
        for (int y = 0; y < d->Height; ++y)
            for (int x = 0; x < d->Width; ++x) {
                int px = d->Left + x, py = d->Top + y;
                int idx = si->RasterBits[(size_t)y * (size_t)d->Width + (size_t)x];
                if (px < 0 || py < 0 || px >= w || py >= h || idx == gcb.TransparentColor)
                    continue;
                if (idx >= cm->ColorCount) {
                    st = skf_fail(err, SKF_ERR_FORMAT, "%s: frame %zu: colour index %d out of range",
                                  path, f, idx);
                    goto done;
                }
                uint8_t *p = skf_image_at(&out->frames[f], px, py);
                p[0] = cm->Colors[idx].Red;
                p[1] = cm->Colors[idx].Green;
                p[2] = cm->Colors[idx].Blue;
                p[3] = 255;
            }
    }
done:
    DGifCloseFile(gif, &gerr);
    if (st)
        skf_gif_info_release(out);
    return st;
}
