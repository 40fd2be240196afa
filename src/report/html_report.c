/* The self-contained HTML report: quality tables, per-frame error plots as
 * inline SVG, heat maps as base64 PNG data URIs (RFC 4648 §4 alphabet, RFC
 * 2397 data URIs). No script and no external resource, so the page opens
 * offline and a browser has nothing to fetch or log. */
#include "skinfit/report.h"
#include "base/strbuf.h"

#include <cairo.h>
#include <gif_lib.h>
#include <jansson.h>
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <string.h>

/* HTML-escaped text (also valid inside attribute values in double quotes). */
static void sb_esc(skfi_strbuf *b, const char *s)
{
    if (!s)
        return;
    for (; *s; ++s) {
        switch (*s) {
        case '&': skfi_strbuf_puts(b, "&amp;"); break;
        case '<': skfi_strbuf_puts(b, "&lt;"); break;
        case '>': skfi_strbuf_puts(b, "&gt;"); break;
        case '"': skfi_strbuf_puts(b, "&quot;"); break;
        case '\'': skfi_strbuf_puts(b, "&#39;"); break;
        default: skfi_strbuf_put(b, s, 1); break;
        }
    }
}

static void sb_num(skfi_strbuf *b, const char *fmt, double v)
{
    if (!isfinite(v))
        skfi_strbuf_puts(b, "n/a");
    else
        skfi_strbuf_printf(b, fmt, v);
}

static void sb_base64(skfi_strbuf *b, const uint8_t *data, size_t n)
{
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    if (!skfi_strbuf_reserve(b, 4 * ((n + 2) / 3)))
        return;
    char *o = b->data + b->len;
    size_t i = 0;
    for (; i + 2 < n; i += 3) {
        uint32_t v = (uint32_t)data[i] << 16 | (uint32_t)data[i + 1] << 8 | data[i + 2];
        *o++ = abc[v >> 18], *o++ = abc[(v >> 12) & 63], *o++ = abc[(v >> 6) & 63], *o++ = abc[v & 63];
    }
    if (i < n) {
        uint32_t v = (uint32_t)data[i] << 16 | (i + 1 < n ? (uint32_t)data[i + 1] << 8 : 0);
        *o++ = abc[v >> 18], *o++ = abc[(v >> 12) & 63];
        *o++ = i + 1 < n ? abc[(v >> 6) & 63] : '=';
        *o++ = '=';
    }
    b->len = (size_t)(o - b->data);
    b->data[b->len] = 0;
}

static const char *const run_colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd",
                                         "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};

/* Per-frame worst (solid) and mean (dashed) error of every run. */
static void svg_plot(skfi_strbuf *b, const skf_html_clip *c)
{
    double ymax = 0;
    size_t plotted = 0;
    for (size_t r = 0; r < c->run_count; ++r)
        for (size_t f = 0; f < c->frames; ++f) {
            const skf_html_run *run = &c->runs[r];
            if (run->frame_max_pct && isfinite(run->frame_max_pct[f]))
                ymax = fmax(ymax, run->frame_max_pct[f]), ++plotted;
            if (run->frame_mean_pct && isfinite(run->frame_mean_pct[f]))
                ymax = fmax(ymax, run->frame_mean_pct[f]);
        }
    if (!plotted || c->frames == 0)
        return;
    /* a "nice" axis top: 1, 2 or 5 × 10^k */
    double top = 1e-6;
    if (ymax > 0) {
        double e = pow(10, floor(log10(ymax)));
        top = ymax <= e ? e : ymax <= 2 * e ? 2 * e : ymax <= 5 * e ? 5 * e : 10 * e;
    }
    const double W = 820, H = 220, L = 64, R = 330, T = 12, B = 34;
    double pw = W - L - R, ph = H - T - B;
    skfi_strbuf_printf(b, "<svg class=\"plot\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%g\" height=\"%g\" "
                 "viewBox=\"0 0 %g %g\" role=\"img\" aria-label=\"per-frame vertex error\">\n",
              W, H, W, H);
    skfi_strbuf_printf(b, "<rect x=\"%g\" y=\"%g\" width=\"%g\" height=\"%g\" fill=\"#fafafa\" stroke=\"#999\"/>\n",
              L, T, pw, ph);
    for (int k = 0; k <= 4; ++k) {
        double y = T + ph - ph * k / 4.0;
        skfi_strbuf_printf(b, "<line x1=\"%g\" y1=\"%.1f\" x2=\"%g\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                     "<text x=\"%g\" y=\"%.1f\" text-anchor=\"end\">%.3g</text>\n",
                  L, y, L + pw, y, L - 6, y + 4, top * k / 4.0);
    }
    size_t F = c->frames;
    for (int k = 0; k <= 4; ++k) {
        double fr = F > 1 ? (double)(F - 1) * k / 4.0 : 0;
        double x = L + (F > 1 ? pw * fr / (double)(F - 1) : pw / 2);
        skfi_strbuf_printf(b, "<text x=\"%.1f\" y=\"%g\" text-anchor=\"middle\">%.0f</text>\n", x, T + ph + 16, fr);
    }
    skfi_strbuf_printf(b, "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">frame</text>\n", L + pw / 2, H - 3);
    skfi_strbuf_printf(b, "<text x=\"14\" y=\"%g\" text-anchor=\"middle\" transform=\"rotate(-90 14 %g)\">"
                 "%% of diagonal</text>\n",
              T + ph / 2, T + ph / 2);
    for (size_t r = 0; r < c->run_count; ++r) {
        const skf_html_run *run = &c->runs[r];
        if (!run->frame_max_pct && !run->frame_mean_pct)
            continue; /* a table-only row (an attached mesh's figures) */
        const char *col = run_colors[r % (sizeof run_colors / sizeof run_colors[0])];
        for (int kind = 0; kind < 2; ++kind) {
            const double *v = kind == 0 ? run->frame_max_pct : run->frame_mean_pct;
            if (!v)
                continue;
            skfi_strbuf_printf(b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%s\"%s points=\"", col,
                      kind == 0 ? "2" : "1.5", kind == 0 ? "" : " stroke-dasharray=\"5 3\"");
            for (size_t f = 0; f < F; ++f) {
                double y = isfinite(v[f]) ? v[f] : 0;
                double x = L + (F > 1 ? pw * (double)f / (double)(F - 1) : pw / 2);
                skfi_strbuf_printf(b, "%.1f,%.1f ", x, T + ph - ph * fmin(y, top) / top);
            }
            skfi_strbuf_puts(b, "\"/>\n");
        }
        double ly = T + 14 + 18.0 * (double)r;
        skfi_strbuf_printf(b, "<line x1=\"%g\" y1=\"%.1f\" x2=\"%g\" y2=\"%.1f\" stroke=\"%s\" stroke-width=\"2\"/>"
                     "<text x=\"%g\" y=\"%.1f\">",
                  L + pw + 10, ly, L + pw + 30, ly, col, L + pw + 36, ly + 4);
        sb_esc(b, run->rig);
        skfi_strbuf_puts(b, " · ");
        sb_esc(b, run->mode);
        skfi_strbuf_puts(b, "</text>\n");
    }
    double ly = T + 14 + 18.0 * (double)c->run_count;
    skfi_strbuf_printf(b, "<text x=\"%g\" y=\"%.1f\" class=\"note\">solid: worst vertex; dashed: mean</text>\n",
              L + pw + 10, ly + 4);
    skfi_strbuf_puts(b, "</svg>\n");
}

static const char *style =
    "body{font-family:system-ui,-apple-system,'DejaVu Sans',sans-serif;margin:24px;color:#222;"
    "max-width:1400px}\n"
    "h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc}\n"
    "table.q{border-collapse:collapse;margin:8px 0}\n"
    "table.q th{background:#dde3ea;text-align:left;padding:4px 10px}\n"
    "table.q td{padding:3px 10px;border-bottom:1px solid #eee;font-variant-numeric:tabular-nums}\n"
    "table.q td.n{text-align:right}tr.control td{background:#f2f7ff}\n"
    "dl.facts{display:grid;grid-template-columns:max-content auto;gap:2px 14px}\n"
    "dl.facts dt{color:#555}dl.facts dd{margin:0}\n"
    "svg.plot text{font-size:11px;fill:#333}svg.plot text.note{fill:#666}\n"
    "figure{margin:8px 0}figure img{max-width:100%;height:auto;border:1px solid #ddd}\n"
    "figcaption{color:#555;font-size:.9em}pre{background:#f5f5f5;padding:8px;white-space:pre-wrap}\n";

skf_status skf_html_report_write(const char *path, const skf_html_report *rep, skf_error *err)
{
    skfi_strbuf b = {0};
    const char *title = rep->title ? rep->title : "skinfit report";
    skfi_strbuf_puts(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
               "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
               "<link rel=\"icon\" href=\"data:,\">\n<title>");
    sb_esc(&b, title);
    skfi_strbuf_puts(&b, "</title>\n<style>\n");
    skfi_strbuf_puts(&b, style);
    skfi_strbuf_puts(&b, "</style>\n</head>\n<body>\n<h1>");
    sb_esc(&b, title);
    skfi_strbuf_puts(&b, "</h1>\n");
    if (rep->fact_count) {
        skfi_strbuf_puts(&b, "<dl class=\"facts\">\n");
        for (size_t i = 0; i < rep->fact_count; ++i) {
            skfi_strbuf_puts(&b, "<dt>");
            sb_esc(&b, rep->facts[2 * i]);
            skfi_strbuf_puts(&b, "</dt><dd>");
            sb_esc(&b, rep->facts[2 * i + 1]);
            skfi_strbuf_puts(&b, "</dd>\n");
        }
        skfi_strbuf_puts(&b, "</dl>\n");
    }
    uint8_t *png = NULL;
    skf_status st = SKF_OK;
    for (size_t ci = 0; ci < rep->clip_count; ++ci) {
        const skf_html_clip *c = &rep->clips[ci];
        skfi_strbuf_printf(&b, "<section class=\"clip\" id=\"clip-%zu\">\n<h2>", ci);
        sb_esc(&b, c->name);
        skfi_strbuf_printf(&b, "</h2>\n<p>%zu frames at ", c->frames);
        sb_num(&b, "%.4g", c->fps);
        skfi_strbuf_puts(&b, " fps. Quality = 1 − ΣΣ‖s − u‖ / ΣΣ‖u − r‖ over all constraint vertices of "
                   "all frames; errors in % of the target's rest bounding-box diagonal.</p>\n");
        skfi_strbuf_puts(&b, "<table class=\"q\">\n<thead><tr><th>rig</th><th>run</th><th>quality %</th>"
                   "<th>mean error %</th><th>worst vertex %</th><th>sweeps / frame</th>"
                   "<th>solve s</th></tr></thead>\n<tbody>\n");
        for (size_t r = 0; r < c->run_count; ++r) {
            const skf_html_run *run = &c->runs[r];
            skfi_strbuf_printf(&b, "<tr%s><td>", run->mode && !strcmp(run->mode, "control") ? " class=\"control\"" : "");
            sb_esc(&b, run->rig);
            skfi_strbuf_puts(&b, "</td><td>");
            sb_esc(&b, run->mode);
            skfi_strbuf_puts(&b, "</td><td class=\"n\">");
            sb_num(&b, "%.5f", 100.0 * run->quality);
            skfi_strbuf_puts(&b, "</td><td class=\"n\">");
            sb_num(&b, "%.3g", run->mean_error_pct);
            skfi_strbuf_puts(&b, "</td><td class=\"n\">");
            sb_num(&b, "%.3g", run->max_error_pct);
            skfi_strbuf_puts(&b, "</td><td class=\"n\">");
            if (run->sweeps_per_frame >= 0)
                sb_num(&b, "%.1f", run->sweeps_per_frame);
            skfi_strbuf_puts(&b, "</td><td class=\"n\">");
            if (run->seconds >= 0)
                sb_num(&b, "%.3f", run->seconds);
            skfi_strbuf_puts(&b, "</td></tr>\n");
        }
        skfi_strbuf_puts(&b, "</tbody>\n</table>\n");
        svg_plot(&b, c);
        for (size_t i = 0; i < c->image_count; ++i) {
            size_t n;
            if ((st = skf_png_encode(&c->images[i], &png, &n, err)))
                goto done;
            const char *cap = c->captions ? c->captions[i] : NULL;
            skfi_strbuf_printf(&b, "<figure><img width=\"%d\" height=\"%d\" alt=\"", c->images[i].width,
                      c->images[i].height);
            sb_esc(&b, cap ? cap : "heat map");
            skfi_strbuf_puts(&b, "\" src=\"data:image/png;base64,");
            sb_base64(&b, png, n);
            skfi_strbuf_puts(&b, "\">");
            if (cap) {
                skfi_strbuf_puts(&b, "<figcaption>");
                sb_esc(&b, cap);
                skfi_strbuf_puts(&b, "</figcaption>");
            }
            skfi_strbuf_puts(&b, "</figure>\n");
            skf_free(png);
            png = NULL;
        }
        skfi_strbuf_puts(&b, "</section>\n");
    }
    skfi_strbuf_puts(&b, "<h2>How this was made</h2>\n");
    if (rep->command_line) {
        skfi_strbuf_puts(&b, "<pre class=\"cmd\">");
        sb_esc(&b, rep->command_line);
        skfi_strbuf_puts(&b, "</pre>\n");
    }
    skfi_strbuf_printf(&b, "<p class=\"versions\">skinfit %s · libpng %s · giflib %d.%d.%d · cairo %s · "
                  "jansson %s</p>\n",
              SKF_VERSION_STRING, png_get_libpng_ver(NULL), GIFLIB_MAJOR, GIFLIB_MINOR,
              GIFLIB_RELEASE, cairo_version_string(), JANSSON_VERSION);
    skfi_strbuf_puts(&b, "</body>\n</html>\n");
    if (b.failed) {
        st = skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory writing the report", path);
        goto done;
    }
    st = skf_write_file_atomic(path, b.data, b.len, err);
done:
    skf_free(png);
    skf_free(b.data);
    return st;
}
