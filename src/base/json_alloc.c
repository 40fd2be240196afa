/* jansson's allocator hooks pointed at skf_malloc / skf_free (see
 * base_internal.h and docs/conventions.md, "Allocation").
 *
 * skf_malloc is malloc behind a counter and skf_free is free, so JSON values
 * made before the hooks are installed (or by an application that installed
 * other malloc-compatible hooks) are still freed correctly: switching is
 * safe at any time. */
#include "base/base_internal.h"
#include "skinfit/base.h"

#include <pthread.h>
#include <stdlib.h>

static pthread_once_t json_alloc_once = PTHREAD_ONCE_INIT;
static _Thread_local bool json_oom;     /* an allocation for jansson failed on this thread */
static _Thread_local bool json_parsing; /* inside skfi_json_loadb / skfi_json_load_file */

/* 32 * 2^k: the sizes jansson's strbuffer grows to from its 16-byte start
 * when the lexer saves one character (see base_internal.h). */
static bool lexer_buffer_size(size_t size)
{
    return size >= 32 && (size & (size - 1)) == 0;
}

static void *json_alloc(size_t size)
{
    if (json_parsing && lexer_buffer_size(size))
        return malloc(size);
    void *p = skf_malloc(size);
    if (!p)
        json_oom = true;
    return p;
}

static void install(void)
{
    json_set_alloc_funcs(json_alloc, skf_free);
}

void skfi_json_alloc_install(void)
{
    pthread_once(&json_alloc_once, install);
}

void skfi_json_oom_reset(void)
{
    json_oom = false;
}

bool skfi_json_oom(void)
{
    return json_oom;
}

static bool error_is_nomem(const json_error_t *je)
{
    /* an empty text: the error was never filled in (the lexer's first
     * allocation failed before parsing began) */
    return json_oom || json_error_code(je) == json_error_out_of_memory || je->text[0] == 0;
}

json_t *skfi_json_loadb(const char *buffer, size_t size, size_t flags, json_error_t *je, bool *nomem)
{
    skfi_json_alloc_install();
    json_oom = false;
    json_parsing = true;
    json_t *root = json_loadb(buffer, size, flags, je);
    json_parsing = false;
    *nomem = !root && error_is_nomem(je);
    return root;
}

json_t *skfi_json_load_file(const char *path, size_t flags, json_error_t *je, bool *nomem)
{
    skfi_json_alloc_install();
    json_oom = false;
    json_parsing = true;
    json_t *root = json_load_file(path, flags, je);
    json_parsing = false;
    *nomem = !root && error_is_nomem(je);
    return root;
}
