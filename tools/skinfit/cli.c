/* CLI helpers: error reporting, progress on terminals, signals. */
#include "cli.h"

#include "skinfit/gltf.h"
#include "skinfit/render.h"
#include "skinfit/rig.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

skf_limits cli_limits;

int cli_report_error(const skf_error *err)
{
    char text[CLI_TEXT_MAX];
    fprintf(stderr, "skinfit: %s\n", err->message[0] ? cli_error_text(err, text, sizeof text)
                                                      : skf_status_name(err->status));
    return EXIT_BAD_INPUT;
}

/* Library option fields and the flags that set them. */
static const struct {
    const char *field, *flag;
} flags_of_fields[] = {
    {"skf_transfer_options.max_sweeps", "--max-sweeps"},
    {"skf_transfer_options.max_lm_iterations", "--max-lm-iterations"},
    {"skf_transfer_options.max_newton_iterations", "--max-newton-iterations"},
    {"skf_decompose_options.max_iterations", "--max-iterations"},
    {"skf_decompose_options.max_skeleton_rounds", "--max-skeleton-rounds"},
    {"skf_register_options.max_iterations", "--registration-iterations"},
    {"skf_decompose_options.max_influences", "--max-influences"},
    {"skf_decompose_options.pca_shapes", "--pca"},
    {"skf_decompose_options.bone_count", "--bones"},
    {"skf_transfer_options.max_rest_mismatch", "--max-rest-mismatch"},
    {"skf_gltf_load_options.allow_outside_refs", "--allow-outside-refs"},
};

skf_status cli_gltf_load(const char *path, skf_gltf **doc, skf_warnings *warnings, skf_error *err)
{
    const char *a = getenv("SKF_ALLOW_OUTSIDE_REFS");
    skf_gltf_load_options o = {.allow_outside_refs = a && !strcmp(a, "1"), .limits = &cli_limits};
    return skf_gltf_load_opts(path, &o, doc, warnings, err);
}

const char *cli_flag_of(const char *option)
{
    for (size_t i = 0; option && i < sizeof flags_of_fields / sizeof *flags_of_fields; ++i)
        if (!strcmp(flags_of_fields[i].field, option))
            return flags_of_fields[i].flag;
    return NULL;
}

/* Copy at most n bytes of s into out[*len..cap) and keep it terminated. */
static void put(char *out, size_t cap, size_t *len, const char *s, size_t n)
{
    if (*len + 1 >= cap)
        return;
    if (n > cap - 1 - *len)
        n = cap - 1 - *len;
    memcpy(out + *len, s, n);
    *len += n;
    out[*len] = 0;
}

static bool word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

static const char *user_text(const char *msg, skf_error_kind kind, const char *option, const char *limit,
                             char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = 0;
    const char *flag = cli_flag_of(option);
    if (kind == SKF_KIND_LIMIT && limit[0]) {
        const char *name = limit;
        char tail[96], hint[128];
        snprintf(tail, sizeof tail, "the limit %s=", name);
        snprintf(hint, sizeof hint, " (raise it with --limit %s=N)", name);
        const char *at = strstr(msg, tail);
        size_t cut = strlen(msg);
        if (at) {
            cut = (size_t)(at - msg) + strlen(tail);
            while (msg[cut] >= '0' && msg[cut] <= '9')
                ++cut;
        }
        put(buf, cap, &len, msg, cut);
        put(buf, cap, &len, hint, strlen(hint));
        /* A per-call cap names its field, skf_limits.value[...]: the CLI's own
         * skf_limits (cli_limits, filled from --limit), so the flag replaces it. */
        const char *rest = msg + cut, *field = " (set by the caller: skf_limits.value[";
        if (!strncmp(rest, field, strlen(field)) && strstr(rest, "])"))
            rest = strstr(rest, "])") + 2;
        put(buf, cap, &len, rest, strlen(rest));
    } else if (kind == SKF_KIND_ITERATION_CAP && flag) {
        char hint[96];
        snprintf(hint, sizeof hint, " (raise it with %s N)", flag);
        put(buf, cap, &len, msg, strlen(msg));
        put(buf, cap, &len, hint, strlen(hint));
    } else if (kind == SKF_KIND_OPTION && flag) {
        const char *field = strrchr(option, '.') ? strrchr(option, '.') + 1 : option;
        size_t n = strlen(field);
        const char *at = msg;
        while ((at = strstr(at, field)) != NULL &&
               ((at > msg && word_char(at[-1])) || word_char(at[n])))
            at += n;
        size_t cut = at ? (size_t)(at - msg) : strlen(msg);
        put(buf, cap, &len, msg, cut);
        if (at) {
            put(buf, cap, &len, flag, strlen(flag));
            put(buf, cap, &len, at + n, strlen(at + n));
        }
    } else {
        put(buf, cap, &len, msg, strlen(msg));
    }
    return buf;
}

const char *cli_error_text(const skf_error *err, char *buf, size_t cap)
{
    return user_text(err->message, err->kind, err->option, err->limit, buf, cap);
}

const char *cli_warning_text(const skf_warning *w, char *buf, size_t cap)
{
    return user_text(w->text, w->kind, w->option, w->limit, buf, cap);
}

const char *cli_clip_names(const skf_gltf *doc, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = 0;
    for (size_t a = 0; a < doc->animation_count; ++a) {
        const char *n = doc->animations[a].name ? doc->animations[a].name : "(unnamed)";
        if (a)
            put(buf, cap, &len, ", ", 2);
        n = skf_clip_short_name(n);
        put(buf, cap, &len, n, strlen(n));
    }
    if (!doc->animation_count)
        put(buf, cap, &len, "none", 4);
    return buf;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "skinfit %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (see 'skinfit %s --help')\n", cmd);
    va_end(ap);
    return EXIT_USAGE;
}

void cli_print_warnings(const skf_warnings *w)
{
    char text[CLI_TEXT_MAX];
    for (size_t i = 0; i < w->count; ++i)
        fprintf(stderr, "skinfit: warning: %s\n", cli_warning_text(&w->items[i], text, sizeof text));
}

double cli_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int progress_cb(void *user, double fraction, const char *what)
{
    cli_progress *p = user;
    if (!p->tty) {
        /* --progress with stderr not a terminal (a log, a pipe, CI): one
         * whole line every few seconds instead of a redrawn bar */
        if (!p->lines)
            return 0;
        double now = cli_now();
        if (now - p->start < p->delay || (p->drawn && now - p->last_draw < p->interval))
            return 0;
        p->last_draw = now;
        p->drawn = 2;
        fprintf(stderr, "skinfit: progress: %5.1f %% %s (%.0f s)\n", 100.0 * fraction,
                what ? what : "", now - p->start);
        fflush(stderr);
        return 0;
    }
    double now = cli_now();
    /* A new stage or clip is drawn at once; the same stage is redrawn at
     * most every 0.1 s (a fast clip would otherwise never show its name). */
    const char *label = what ? what : "";
    bool changed = strncmp(label, p->label, sizeof p->label - 1) != 0;
    if (now - p->start < p->delay || (!changed && now - p->last_draw < 0.1))
        return 0;
    snprintf(p->label, sizeof p->label, "%s", label);
    p->last_draw = now;
    p->drawn = 1;
    fprintf(stderr, "\r%-60.60s %5.1f%%", what ? what : "", 100.0 * fraction);
    fflush(stderr);
    return 0;
}

void cli_progress_init(cli_progress *p, skf_progress *out)
{
    memset(p, 0, sizeof *p);
    p->start = cli_now();
    p->tty = isatty(STDERR_FILENO);
    /* Progress appears only for runs longer than a second; tests shorten the
     * wait so the check does not depend on the machine's speed. */
    const char *d = getenv("SKF_PROGRESS_DELAY");
    p->delay = d ? atof(d) : 1.0;
    if (!(p->delay >= 0))
        p->delay = 1.0;
    const char *m = getenv("SKF_PROGRESS");
    p->lines = m && !strcmp(m, "lines");
    const char *iv = getenv("SKF_PROGRESS_INTERVAL");
    p->interval = iv ? atof(iv) : 5.0;
    if (!(p->interval >= 0))
        p->interval = 5.0;
    out->report = progress_cb;
    out->user = p;
}

void cli_progress_finish(cli_progress *p)
{
    if (p->drawn == 1) {
        fprintf(stderr, "\r%-48s\r", "");
        fflush(stderr);
    }
}

static void on_signal(int sig)
{
    skf_atomic_unlink_all_temporaries();
    _exit(128 + sig);
}

void cli_install_signal_handlers(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

int cli_mkdir_p(const char *dir)
{
    char buf[4096];
    size_t n = strlen(dir);
    if (n == 0 || n >= sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(buf, dir, n + 1);
    for (size_t i = 1; i <= n; ++i) {
        if (buf[i] == '/' || buf[i] == 0) {
            char c = buf[i];
            buf[i] = 0;
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                return -1;
            buf[i] = c;
        }
    }
    struct stat sb;
    if (stat(dir, &sb) != 0)
        return -1;
    if (!S_ISDIR(sb.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

bool cli_parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v))
        return false;
    *out = v;
    return true;
}

bool cli_ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcasecmp(s + n - m, suffix);
}

/* Shell quoting: an argument made only of safe characters stays as it is,
 * any other is put in single quotes with each ' written as '\''. */
static bool cli_plain_arg(const char *a)
{
    if (!*a)
        return false;
    for (const char *p = a; *p; ++p)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%", *p))
            return false;
    return true;
}

static void *text_warm_main(void *arg)
{
    (void)arg;
    skf_render_text_warm_up();
    return NULL;
}

void cli_text_warm_start(cli_text_warm *w)
{
    pthread_t t;
    _Static_assert(sizeof t <= sizeof w->thread, "pthread_t fits cli_text_warm.thread");
    w->started = pthread_create(&t, NULL, text_warm_main, NULL) == 0;
    if (w->started)
        memcpy(&w->thread, &t, sizeof t);
}

void cli_text_warm_join(cli_text_warm *w)
{
    if (!w->started)
        return;
    pthread_t t;
    memcpy(&t, &w->thread, sizeof t);
    pthread_join(t, NULL);
    w->started = false;
}

char *cli_command_line(int argc, char *const *argv)
{
    size_t len = 1;
    for (int i = 0; i < argc; ++i) {
        len += (i > 0) + (cli_plain_arg(argv[i]) ? 0 : 2);
        for (const char *p = argv[i]; *p; ++p)
            len += *p == '\'' && !cli_plain_arg(argv[i]) ? 4 : 1;
    }
    char *out = skf_malloc(len), *o = out;
    if (!out)
        return NULL;
    for (int i = 0; i < argc; ++i) {
        const char *a = argv[i];
        if (i)
            *o++ = ' ';
        bool plain = cli_plain_arg(a);
        if (!plain)
            *o++ = '\'';
        for (const char *p = a; *p; ++p)
            if (*p == '\'' && !plain) {
                memcpy(o, "'\\''", 4);
                o += 4;
            } else {
                *o++ = *p;
            }
        if (!plain)
            *o++ = '\'';
    }
    *o = 0;
    return out;
}
