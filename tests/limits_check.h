/* Checks of per-call limits (skf_limits, skinfit/base.h) shared by the
 * tests of every call that takes them:
 *   limits_check_call: one cap stops the call with SKF_ERR_LIMIT, kind
 *     SKF_KIND_LIMIT, the limit's name and the exact message (naming the
 *     caller's field); one more passes; the process-wide table is untouched.
 *   limits_check_threads: two threads calling at once, one under a cap and
 *     one with NULL limits (the defaults), each get their own answer every
 *     time.
 * The call under test is a function of the limits and a test's argument
 * that returns the status and releases what it made. */
#ifndef SKF_TESTS_LIMITS_CHECK_H
#define SKF_TESTS_LIMITS_CHECK_H

#include "check.h"
#include "skinfit/base.h"

#include <pthread.h>

/* The tail of a message stopped by a per-call value of limit ID. */
#define LIMITS_BY_CALLER(ID) " (set by the caller: skf_limits.value[" #ID "])"

typedef skf_status (*limits_call)(const skf_limits *limits, void *arg, skf_error *err);

/* Under limit id = value: refused with message want (NULL: only kind and
 * name checked); under value + 1 (pass, when not 0: that value instead)
 * it succeeds. */
static inline void limits_check_call(limits_call fn, void *arg, skf_limit_id id, size_t value,
                                     size_t pass, const char *want)
{
    skf_limits lim = {{0}};
    skf_error e = {0};
    CHECK(skf_limits_set(&lim, id, value, &e) == SKF_OK);
    skf_status st = fn(&lim, arg, &e);
    CHECK_MSG(st == SKF_ERR_LIMIT, "%s=%zu: status %d: %s", skf_limit_get_info(id).name, value,
              (int)st, e.message);
    CHECK_MSG(!want || !strcmp(e.message, want), "%s", e.message);
    CHECK_MSG(e.kind == SKF_KIND_LIMIT && !strcmp(e.limit, skf_limit_get_info(id).name), "%s",
              e.message);
    lim.value[id] = pass ? pass : value + 1;
    st = fn(&lim, arg, &e);
    CHECK_MSG(st == SKF_OK, "%s=%zu: %s", skf_limit_get_info(id).name, lim.value[id], e.message);
    CHECK(skf_limit(id) == skf_limit_get_info(id).default_value);
}

typedef struct limits_worker {
    limits_call fn;
    void *arg;
    const skf_limits *limits; /* NULL: the defaults */
    int calls, ok, limited;
} limits_worker;

static void *limits_worker_run(void *p)
{
    limits_worker *w = p;
    for (int i = 0; i < w->calls; ++i) {
        skf_error e;
        skf_status st = w->fn(w->limits, w->arg, &e);
        w->ok += st == SKF_OK;
        w->limited += st == SKF_ERR_LIMIT;
    }
    return NULL;
}

/* Two threads, calls each: one under limit id = value (every call refused),
 * one with NULL limits (every call succeeds). what names the call in the
 * printed line. */
static inline void limits_check_threads(const char *what, limits_call fn, void *arg, skf_limit_id id,
                                        size_t value, int calls)
{
    skf_limits capped = {{0}};
    capped.value[id] = value;
    limits_worker a = {fn, arg, &capped, calls, 0, 0}, b = {fn, arg, NULL, calls, 0, 0};
    pthread_t ta, tb;
    CHECK(pthread_create(&ta, NULL, limits_worker_run, &a) == 0);
    CHECK(pthread_create(&tb, NULL, limits_worker_run, &b) == 0);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    CHECK(a.limited == calls && a.ok == 0);
    CHECK(b.ok == calls && b.limited == 0);
    printf("  %s, %s=%zu: capped thread %d/%d limited; default thread %d/%d passed\n", what,
           skf_limit_get_info(id).name, value, a.limited, calls, b.ok, calls);
}

#endif
