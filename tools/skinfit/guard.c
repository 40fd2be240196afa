/* Outputs against inputs by file identity; see guard.h. */
#include "guard.h"

#include "cli.h"
#include "skinfit/meshseq.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void cli_guard_init(cli_guard *g, const char *cmd)
{
    memset(g, 0, sizeof *g);
    g->cmd = cmd;
}

void cli_guard_release(cli_guard *g)
{
    for (size_t i = 0; i < g->in_count; ++i) {
        skf_free(g->in[i].path);
        skf_free(g->in[i].why);
    }
    skf_free(g->in);
    memset(g, 0, sizeof *g);
}

/* Where an output lands: the identity of its folder and its last name, or
 * (for ".", "..", "/" and folders given with a trailing '/') the identity
 * of the path itself with an empty name. false when the folder does not
 * exist (yet): then only the text is compared. */
typedef struct place {
    bool known;
    dev_t dev;
    ino_t ino;
    char name[NAME_MAX + 1];
} place;

static void where_of(const char *path, place *pl)
{
    memset(pl, 0, sizeof *pl);
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        --n;
    char p[PATH_MAX + 3];
    if (n > PATH_MAX)
        return;
    memcpy(p, path, n);
    p[n] = 0;
    char *slash = strrchr(p, '/');
    const char *name = slash ? slash + 1 : p;
    struct stat st;
    if (!strcmp(name, ".") || !strcmp(name, "..") || !name[0] || (slash && slash == p && !slash[1])) {
        if (stat(p, &st) == 0) {
            pl->known = true;
            pl->dev = st.st_dev;
            pl->ino = st.st_ino;
        }
        return;
    }
    if (strlen(name) > NAME_MAX)
        return;
    memcpy(pl->name, name, strlen(name) + 1);   /* <= NAME_MAX, checked above */
    if (slash == p)
        strcpy(p, "/");
    else if (slash)
        *slash = 0;
    else
        strcpy(p, ".");
    if (stat(p, &st) == 0) {
        pl->known = true;
        pl->dev = st.st_dev;
        pl->ino = st.st_ino;
    }
}

static bool same_output(const char *a, const char *b)
{
    if (skf_same_file(a, b))
        return true;
    place pa, pb;
    where_of(a, &pa);
    where_of(b, &pb);
    if (pa.known && pb.known)
        return pa.dev == pb.dev && pa.ino == pb.ino && !strcmp(pa.name, pb.name);
    return !strcmp(a, b);
}

static int add_output(cli_guard *g, const char *flag, const char *path, bool dir)
{
    if (!path)
        return EXIT_OK;
    for (size_t i = 0; i < g->out_count; ++i)
        if (same_output(g->out[i].path, path))
            return cli_usage_error(g->cmd, "%s %s and %s %s name the same file", g->out[i].flag,
                                   g->out[i].path, flag, path);
    if (g->out_count < sizeof g->out / sizeof g->out[0])
        g->out[g->out_count++] = (cli_guard_out){flag, path, dir};
    return EXIT_OK;
}

int cli_guard_output(cli_guard *g, const char *flag, const char *path)
{
    return add_output(g, flag, path, false);
}

int cli_guard_output_dir(cli_guard *g, const char *flag, const char *dir)
{
    return add_output(g, flag, dir, true);
}

static char *dup_or_null(const char *s)
{
    return s ? skf_strdup(s) : NULL;
}

void cli_guard_input(cli_guard *g, const char *path, const char *why)
{
    struct stat st;
    if (!path || stat(path, &st) != 0)
        return;
    for (size_t i = 0; i < g->in_count; ++i)
        if (g->in[i].dev == st.st_dev && g->in[i].ino == st.st_ino)
            return;
    if (g->in_count == g->in_cap) {
        size_t cap = g->in_cap ? 2 * g->in_cap : 8;
        cli_guard_in *in = skf_realloc_array(g->in, cap, sizeof *in);
        if (!in) {
            g->nomem = true;
            return;
        }
        g->in = in;
        g->in_cap = cap;
    }
    cli_guard_in *e = &g->in[g->in_count];
    e->dev = st.st_dev;
    e->ino = st.st_ino;
    e->path = skf_strdup(path);
    e->why = dup_or_null(why);
    if (!e->path || (why && !e->why)) {
        skf_free(e->path);
        skf_free(e->why);
        g->nomem = true;
        return;
    }
    ++g->in_count;
}

typedef struct gltf_visit {
    cli_guard *g;
    const char *doc;
} gltf_visit;

static void on_gltf_file(void *user, const char *path, const char *where)
{
    gltf_visit *v = user;
    char why[512];
    if (where)
        snprintf(why, sizeof why, "%s: %s", v->doc, where);
    cli_guard_input(v->g, path, where ? why : NULL);
}

void cli_guard_gltf(cli_guard *g, const skf_gltf *doc)
{
    gltf_visit v = {g, doc->path};
    skf_error err;
    if (skf_gltf_visit_files(doc, on_gltf_file, &v, &err))
        g->nomem = true;
}

void cli_guard_objseq(cli_guard *g, const char *where)
{
    char name[4096];
    char why[4200];
    struct stat st;
    for (size_t f = 0; f < skf_limits_value(&cli_limits, SKF_LIMIT_FRAMES); ++f) {
        if (skf_objseq_frame_file(where, f, name, sizeof name, NULL) || stat(name, &st) != 0)
            break;
        snprintf(why, sizeof why, "frame %zu of %s", f, where);
        cli_guard_input(g, name, why);
    }
}

/* Input `in` lies inside folder `dir` (or is it). */
static bool inside(const cli_guard_in *in, const char *dir)
{
    struct stat sd;
    if (stat(dir, &sd) != 0 || !S_ISDIR(sd.st_mode))
        return false;
    char real[PATH_MAX];
    if (!realpath(in->path, real))
        return false;
    bool hit = false;
    for (;;) {
        struct stat st;
        if (stat(real, &st) == 0 && st.st_dev == sd.st_dev && st.st_ino == sd.st_ino) {
            hit = true;
            break;
        }
        char *slash = strrchr(real, '/');
        if (!slash || slash == real) {
            if (slash && slash[1] && stat("/", &st) == 0 && st.st_dev == sd.st_dev &&
                st.st_ino == sd.st_ino)
                hit = true;
            break;
        }
        *slash = 0;
    }
    return hit;
}

static int refuse(const char *out, const cli_guard_in *in, bool dir)
{
    if (dir)
        fprintf(stderr, "skinfit: %s: refusing to write into a folder holding an input file (%s%s%s)\n",
                out, in->path, in->why ? ", " : "", in->why ? in->why : "");
    else
        fprintf(stderr, "skinfit: %s: refusing to overwrite an input file%s%s%s\n", out,
                in->why ? " (" : "", in->why ? in->why : "", in->why ? ")" : "");
    return EXIT_BAD_INPUT;
}

int cli_guard_check_file(cli_guard *g, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return EXIT_OK;
    for (size_t i = 0; i < g->in_count; ++i)
        if (st.st_dev == g->in[i].dev && st.st_ino == g->in[i].ino)
            return refuse(path, &g->in[i], false);
    return EXIT_OK;
}

int cli_guard_check(cli_guard *g)
{
    if (g->nomem) {
        fprintf(stderr, "skinfit: out of memory\n");
        return EXIT_BAD_INPUT;
    }
    for (size_t o = 0; o < g->out_count; ++o) {
        const cli_guard_out *out = &g->out[o];
        struct stat st;
        bool exists = stat(out->path, &st) == 0;
        for (size_t i = 0; i < g->in_count; ++i) {
            const cli_guard_in *in = &g->in[i];
            bool hit = out->dir ? inside(in, out->path)
                                : exists && st.st_dev == in->dev && st.st_ino == in->ino;
            if (hit)
                return refuse(out->path, in, out->dir);
        }
    }
    return EXIT_OK;
}
