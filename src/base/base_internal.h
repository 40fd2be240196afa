/* Internal helpers of src/base shared across subsystems (not public API). */
#ifndef SKF_BASE_INTERNAL_H
#define SKF_BASE_INTERNAL_H

#include "skinfit/base.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

/* Route jansson's allocations through skf_malloc / skf_free, once per
 * process (pthread_once; safe to call from any thread, any number of times).
 * Every library function that creates a JSON root calls it first (the parse
 * wrappers below do), so the fault-injection hook (skf_alloc_fail_from)
 * reaches jansson's allocations too. Decision and caveats:
 * docs/conventions.md, "Allocation". */
void skfi_json_alloc_install(void);

/* json_loadb / json_load_file with the hooks installed. On failure *nomem
 * tells an allocation failure (report SKF_ERR_NOMEM) from bad JSON: jansson's
 * lexer reports a failed string allocation as a syntax error, so this looks
 * at whether an allocation for jansson failed during the call.
 *
 * While these parse, requests of 32 * 2^k bytes are served by malloc without
 * fault injection: they include the lexer's token buffer, whose failed growth
 * jansson 2.14 ignores and then aborts on (assert in lex_unget_unsave,
 * upstream akheron/jansson#362). A real out-of-memory there still aborts
 * inside jansson; nothing on our side can prevent that. */
/* Around other jansson calls (json_dumpb, ...): reset this thread's flag,
 * then ask whether an allocation for jansson failed since. */
void skfi_json_oom_reset(void);
bool skfi_json_oom(void);

json_t *skfi_json_loadb(const char *buffer, size_t size, size_t flags, json_error_t *je, bool *nomem);
json_t *skfi_json_load_file(const char *path, size_t flags, json_error_t *je, bool *nomem);

/* skf_read_file_limits for a descriptor the caller opened (O_RDONLY; the
 * io layer opens files along a checked path, gltf_buffers.c): fstat, then
 * the whole content under the named limit id into *data (skf_malloc'd, one
 * NUL byte past *size, caller frees). path names the file in messages and in
 * the error's place. The descriptor is closed on every return. */
skf_status skfi_read_fd_limits(int fd, const char *path, const skf_limits *limits,
                               skf_limit_id id, uint8_t **data, size_t *size, skf_error *err);

/* A 64-bit key with an item index (spatial hashing: a grid cell's key and
 * the vertex or triangle in it; decompose/contact.c,
 * surface/deformation_transfer.c). skfi_keyed_cmp orders by key, then by
 * index, so qsort gives one order whatever its algorithm (ties broken). */
typedef struct skfi_keyed {
    uint64_t key;
    uint32_t v;
} skfi_keyed;
int skfi_keyed_cmp(const void *a, const void *b);
/* The first position in a[0..n) (sorted by skfi_keyed_cmp) whose key is not
 * below key; n when there is none. */
size_t skfi_keyed_lower_bound(const skfi_keyed *a, size_t n, uint64_t key);

#endif
