/* Allocation-failure sweeps over whole CLI pipelines, run in-process (issue 7,
 * fault injection). A command of tools/skinfit (cmd_transfer, cmd_svg,
 * cmd_decompose) runs with skf_alloc_fail_from(n) for n = 1, 2, ... until a
 * run makes fewer than n allocations (nothing was injected) and succeeds.
 * Every failed run must:
 *   - exit 1 with exactly one error line on stderr, "skinfit: ...: out of
 *     memory ..." (warning lines aside);
 *   - leave nothing but the inputs in its folder (no partial output, no
 *     temporary);
 *   - leak nothing: under the ASan build LeakSanitizer checks the heap every
 *     few runs (__lsan_do_recoverable_leak_check; SKF_SWEEP_LEAK_EVERY, default
 *     8) and after the last, and at exit; a leak names its range of n.
 * A run that succeeds although an allocation failed ("absorbed": e.g. a
 * dropped warning) is counted and listed, and its outputs must exist.
 *
 * The commands' own allocations go through skf_malloc too, and jansson's
 * through skf_malloc (src/base/json_alloc.c), so the sweep reaches them.
 * Allocations inside libc, libxml2, libpng, cairo/librsvg and OpenBLAS do
 * not go through the hook and are not swept (docs/faults.md). */
#ifndef SKF_TESTS_FAULTS_SWEEP_H
#define SKF_TESTS_FAULTS_SWEEP_H

#include "check.h"
#include "skinfit/base.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#if defined(__SANITIZE_ADDRESS__)
#define SWEEP_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SWEEP_LSAN 1
#endif
#endif
#ifdef SWEEP_LSAN
#include <sanitizer/common_interface_defs.h>
#include <sanitizer/lsan_interface.h>
#endif
#include <signal.h>

typedef int (*sweep_cmd)(int argc, char **argv);

typedef struct sweep_case {
    const char *name;              /* printed */
    sweep_cmd cmd;                 /* e.g. cmd_transfer */
    const char *const *args;       /* argv, NULL-terminated; args[0] is the command name */
    const char *dir;               /* the folder the outputs go to (cwd of the run) */
    const char *const *inputs;     /* names in dir that are inputs (kept), NULL-terminated */
    const char *const *outputs;    /* names a successful run must create, NULL-terminated */
    size_t full_upto;              /* sweep every n up to this, then every stride-th; 0: all */
    size_t stride;
} sweep_case;

typedef struct sweep_result {
    size_t allocations;   /* made by one run without injection */
    size_t points;        /* values of n run */
    size_t clean;         /* runs that ended in the clean out-of-memory error */
    size_t absorbed;      /* runs that succeeded although an allocation failed */
    size_t leaks;         /* runs after which LeakSanitizer found a leak */
    size_t kept_outputs;  /* failed runs that had committed an earlier (complete) output */
    size_t last_n;        /* the n of the final (successful) run */
    double seconds;
} sweep_result;

static double sweep_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* While a run's stderr is captured, a crash (sanitizer report, signal)
 * would vanish with it: the death callback and the signal handlers copy the
 * capture to the real stderr, naming n. */
static volatile size_t sweep_cur_n;
static volatile int sweep_real_err = -1, sweep_capture = -1;

static void sweep_put(const char *s)
{
    if (sweep_real_err >= 0 && write(sweep_real_err, s, strlen(s)) < 0)
        return;
}

static void sweep_dump_capture(void)
{
    if (sweep_real_err < 0 || sweep_capture < 0)
        return;
    char num[32], buf[4096];
    int k = sizeof num - 1;
    num[k] = 0;
    size_t v = sweep_cur_n;
    do {
        num[--k] = (char)('0' + v % 10);
        v /= 10;
    } while (v && k > 0);
    sweep_put("\nsweep: the run with allocation n = ");
    sweep_put(num + k);
    sweep_put(" failing died; its stderr:\n");
    off_t off = 0;
    ssize_t got;
    while ((got = pread(sweep_capture, buf, sizeof buf, off)) > 0) {
        if (write(sweep_real_err, buf, (size_t)got) < 0)
            break;
        off += got;
    }
}

static void sweep_on_signal(int sig)
{
    sweep_dump_capture();
    signal(sig, SIG_DFL);
    raise(sig);
}

static void sweep_install_crash_report(void)
{
#ifdef SWEEP_LSAN
    __sanitizer_set_death_callback(sweep_dump_capture);
#endif
    signal(SIGSEGV, sweep_on_signal);
    signal(SIGBUS, sweep_on_signal);
    signal(SIGFPE, sweep_on_signal);
    signal(SIGABRT, sweep_on_signal);
}

/* Run cmd in-process: stdout to /dev/null, stderr into buf. */
static int sweep_run_cli(sweep_cmd cmd, const char *const *args, char *buf, size_t cap)
{
    char *argv[64];
    int argc = 0;
    while (args[argc] && argc < 63) {
        argv[argc] = (char *)args[argc];
        ++argc;
    }
    argv[argc] = NULL;
    fflush(stdout);
    fflush(stderr);
    int so = dup(1), se = dup(2);
    int dn = open("/dev/null", O_WRONLY);
    FILE *tmp = tmpfile();
    if (so < 0 || se < 0 || dn < 0 || !tmp) {
        fprintf(stderr, "sweep: cannot redirect output\n");
        exit(1);
    }
    dup2(dn, 1);
    dup2(fileno(tmp), 2);
    sweep_real_err = se;
    sweep_capture = fileno(tmp);
    int rc = cmd(argc, argv);
    fflush(stdout);
    fflush(stderr);
    sweep_real_err = -1;
    sweep_capture = -1;
    dup2(so, 1);
    dup2(se, 2);
    close(so);
    close(se);
    close(dn);
    rewind(tmp);
    size_t n = fread(buf, 1, cap - 1, tmp);
    buf[n] = 0;
    fclose(tmp);
    return rc;
}

static bool sweep_in_list(const char *name, const char *const *list)
{
    for (size_t i = 0; list && list[i]; ++i)
        if (!strcmp(name, list[i]))
            return true;
    return false;
}

static void sweep_rm_rf(const char *path)
{
    struct stat sb;
    if (lstat(path, &sb) != 0)
        return;
    if (S_ISDIR(sb.st_mode)) {
        DIR *d = opendir(path);
        struct dirent *e;
        while (d && (e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char sub[4096];
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            sweep_rm_rf(sub);
        }
        if (d)
            closedir(d);
        rmdir(path);
    } else {
        unlink(path);
    }
}

/* Remove everything in dir except the inputs; returns how many entries were
 * removed that are not declared outputs (temporaries, partial folders) and
 * copies the first such name into first (if any). *complete counts declared
 * outputs found (each is written atomically, so one that exists is whole:
 * a run that fails after committing an earlier output keeps it). */
static size_t sweep_clean_dir(const sweep_case *c, char *first, size_t cap, size_t *complete)
{
    size_t stray = 0;
    if (complete)
        *complete = 0;
    DIR *d = opendir(c->dir);
    struct dirent *e;
    if (first && cap)
        first[0] = 0;
    while (d && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || sweep_in_list(e->d_name, c->inputs))
            continue;
        if (sweep_in_list(e->d_name, c->outputs)) {
            if (complete)
                ++*complete;
        } else {
            if (!stray && first)
                snprintf(first, cap, "%s", e->d_name);
            ++stray;
        }
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", c->dir, e->d_name);
        sweep_rm_rf(path);
    }
    if (d)
        closedir(d);
    return stray;
}

static bool sweep_outputs_exist(const sweep_case *c)
{
    for (size_t i = 0; c->outputs && c->outputs[i]; ++i) {
        char path[4096];
        struct stat sb;
        snprintf(path, sizeof path, "%s/%s", c->dir, c->outputs[i]);
        if (stat(path, &sb) != 0)
            return false;
    }
    return true;
}

/* The error output of a failed run: exactly one non-warning line, starting
 * "skinfit" and saying "out of memory". */
static bool sweep_clean_message(const char *text, char *line, size_t cap)
{
    size_t errors = 0;
    line[0] = 0;
    for (const char *p = text; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        bool warning = !strncmp(p, "skinfit: warning:", 17);
        if (len && !warning) {
            if (!errors)
                snprintf(line, cap, "%.*s", (int)len, p);
            ++errors;
        }
        p += len + (nl ? 1 : 0);
    }
    /* case-insensitive: libpng's own message says "Out of memory" */
    bool oom = false;
    for (const char *q = line; *q && !oom; ++q)
        oom = !strncasecmp(q, "out of memory", 13);
    return errors == 1 && !strncmp(line, "skinfit", 7) && oom;
}

static size_t sweep_next(const sweep_case *c, size_t n)
{
    if (!c->full_upto || n < c->full_upto || c->stride < 2)
        return n + 1;
    return n + c->stride;
}

/* The sweep. Prints one summary line and returns the counts. */
static sweep_result sweep_cli(const sweep_case *c)
{
    sweep_result r;
    memset(&r, 0, sizeof r);
    static char out[1 << 16];
    char line[1024], stray[256];
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd) || chdir(c->dir) != 0) {
        CHECK_MSG(0, "%s: cannot enter %s", c->name, c->dir);
        return r;
    }
    const char *dir = c->dir;
    sweep_case local = *c;
    local.dir = ".";
    c = &local;
#ifdef _OPENMP
    omp_set_num_threads(1); /* one allocation order: n names the same allocation every run */
#endif
    sweep_install_crash_report();
    double t0 = sweep_now();
    /* the reference run: no injection */
    sweep_clean_dir(c, NULL, 0, NULL);
    skf_alloc_fail_from(0);
    int rc = sweep_run_cli(c->cmd, c->args, out, sizeof out);
    r.allocations = skf_alloc_fail_from(0);
    CHECK_MSG(rc == 0, "%s: the run without injection failed (exit %d): %s", c->name, rc, out);
    CHECK_MSG(sweep_outputs_exist(c), "%s: outputs missing after the reference run", c->name);
    sweep_clean_dir(c, NULL, 0, NULL);
    if (rc != 0) {
        if (chdir(cwd) != 0)
            perror("chdir");
        return r;
    }
#ifdef SWEEP_LSAN
    CHECK_MSG(!__lsan_do_recoverable_leak_check(), "%s: leak after the reference run", c->name);
#endif
    printf("%s: the run without injection made %zu allocations (%.2f s)\n", c->name, r.allocations,
           sweep_now() - t0);
    fflush(stdout);
    bool verbose = getenv("SKF_SWEEP_VERBOSE") != NULL;
    size_t bad_msgs = 0, bad_dirs = 0, bad_rc = 0;
    size_t absorbed_list[8];
    const size_t cap_n = 10 * r.allocations + 1000; /* a run that never ends is a failure */
    /* SKF_SWEEP_FROM=n starts there (to reproduce one failure quickly) */
    size_t n = getenv("SKF_SWEEP_FROM") ? (size_t)strtoull(getenv("SKF_SWEEP_FROM"), NULL, 10) : 1;
    if (n < 1)
        n = 1;
#ifdef SWEEP_LSAN
    /* LeakSanitizer every leak_every runs (a check scans the heap: about as
     * long as a short run) and after the last */
    size_t leak_every = getenv("SKF_SWEEP_LEAK_EVERY") ? (size_t)strtoull(getenv("SKF_SWEEP_LEAK_EVERY"), NULL, 10)
                                                        : 8;
    if (leak_every < 1)
        leak_every = 1;
    size_t checked_upto = n - 1;
#endif
    for (;; n = sweep_next(c, n)) {
        if (n > cap_n) {
            CHECK_MSG(0, "%s: no successful run up to n = %zu", c->name, n);
            break;
        }
        sweep_cur_n = n;
        skf_alloc_fail_from(n);
        rc = sweep_run_cli(c->cmd, c->args, out, sizeof out);
        size_t made = skf_alloc_fail_from(0);
        ++r.points;
        if (verbose && r.points % 100 == 0) {
            printf("%s: n = %zu, %.1f s\n", c->name, n, sweep_now() - t0);
            fflush(stdout);
        }
        bool injected = made >= n;
        if (rc == 0) {
            bool have = sweep_outputs_exist(c);
            CHECK_MSG(have, "%s: n = %zu: success without its outputs", c->name, n);
            sweep_clean_dir(c, NULL, 0, NULL);
            if (!injected) {
                r.last_n = n;
                break;
            }
            if (r.absorbed < 8)
                absorbed_list[r.absorbed] = n;
            ++r.absorbed;
        } else {
            bool ok_rc = rc == 1, ok_msg = sweep_clean_message(out, line, sizeof line);
            size_t complete = 0, strays = sweep_clean_dir(c, stray, sizeof stray, &complete);
            if (complete)
                ++r.kept_outputs;
            if (ok_rc && ok_msg && !strays)
                ++r.clean;
            if (!ok_rc && bad_rc++ < 5)
                CHECK_MSG(0, "%s: n = %zu (of %zu made): exit %d, want 1: %s", c->name, n, made, rc, out);
            if (!ok_msg && bad_msgs++ < 5)
                CHECK_MSG(0, "%s: n = %zu: not one clean out-of-memory line: [%s]", c->name, n, out);
            if (strays && bad_dirs++ < 5)
                CHECK_MSG(0, "%s: n = %zu: %zu file(s) left behind, e.g. %s", c->name, n, strays, stray);
            if (!injected)
                CHECK_MSG(0, "%s: n = %zu: failed without an injected failure: %s", c->name, n, out);
        }
#ifdef SWEEP_LSAN
        /* A leaked block stays unreachable, so every later check would
         * report it again: the sweep stops at the first leak. */
        if ((r.points % leak_every == 0 || rc == 0) && __lsan_do_recoverable_leak_check()) {
            ++r.leaks;
            CHECK_MSG(0, "%s: LeakSanitizer found a leak (report above) after one of the runs n = %zu..%zu; "
                      "SKF_SWEEP_FROM=%zu SKF_SWEEP_LEAK_EVERY=1 names it", c->name, checked_upto + 1, n,
                      checked_upto + 1);
            break;
        }
        if (r.points % leak_every == 0)
            checked_upto = n;
#endif
    }
    r.seconds = sweep_now() - t0;
    if (chdir(cwd) != 0)
        perror("chdir");
    printf("%s: %zu allocations per run; swept %zu allocation points (n = 1..%zu%s): %zu clean "
           "out-of-memory errors, %zu absorbed, %zu leaking, final run succeeded at n = %zu; %.1f s%s\n",
           c->name, r.allocations, r.points, r.last_n ? r.last_n : n,
           c->full_upto && c->stride > 1 ? ", every one up to the limit then a stride" : "", r.clean,
           r.absorbed, r.leaks, r.last_n, r.seconds,
#ifdef SWEEP_LSAN
           ", LeakSanitizer every few runs and after the last"
#else
           ", no LeakSanitizer in this build"
#endif
    );
#ifdef SWEEP_LSAN
    printf("%s: LeakSanitizer checked the heap after every %zu-th run and after the last\n", c->name, leak_every);
#endif
    printf("%s: %zu failed runs kept an output committed before the failure (atomic: complete); "
           "%zu left a temporary or partial file\n", c->name, r.kept_outputs, bad_dirs);
    if (c->full_upto && c->stride > 1)
        printf("%s: every n up to %zu, then every %zu-th\n", c->name, c->full_upto, c->stride);
    for (size_t i = 0; i < r.absorbed && i < 8; ++i)
        printf("%s: absorbed: n = %zu succeeded with that allocation failed\n", c->name, absorbed_list[i]);
    (void)dir;
    return r;
}

#endif
