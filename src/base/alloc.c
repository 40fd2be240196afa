/* Allocation wrappers with a fault-injection hook (see base.h). */
#include "skinfit/base.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static atomic_size_t alloc_count;
static atomic_size_t fail_from;
static atomic_size_t largest_request;

static void note_request(size_t bytes)
{
    size_t cur = atomic_load(&largest_request);
    while (bytes > cur && !atomic_compare_exchange_weak(&largest_request, &cur, bytes)) {
    }
}

size_t skf_alloc_largest_request(bool reset)
{
    return reset ? atomic_exchange(&largest_request, 0) : atomic_load(&largest_request);
}

static int should_fail(void)
{
    size_t n = atomic_fetch_add(&alloc_count, 1) + 1;
    size_t f = atomic_load(&fail_from);
    return f != 0 && n >= f;
}

size_t skf_alloc_fail_from(size_t n)
{
    size_t made = atomic_exchange(&alloc_count, 0);
    atomic_store(&fail_from, n);
    return made;
}

void *skf_malloc(size_t size)
{
    note_request(size);
    if (should_fail())
        return NULL;
    return malloc(size ? size : 1);
}

void *skf_malloc_array(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    return skf_malloc(n * size);
}

void *skf_calloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    note_request(n * size);
    if (should_fail())
        return NULL;
    return calloc(n ? n : 1, size ? size : 1);
}

void *skf_realloc_array(void *p, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    note_request(n * size);
    if (should_fail())
        return NULL;
    size_t bytes = n * size;
    return realloc(p, bytes ? bytes : 1);
}

void skf_free(void *p)
{
    free(p);
}

char *skf_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = skf_malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}
