/* Internal helpers shared by the sequence readers in src/io/ (prefix skfi_). */
#ifndef SKINFIT_MESHSEQ_INTERNAL_H
#define SKINFIT_MESHSEQ_INTERNAL_H

#include "skinfit/meshseq.h"

/* A reader's parse of a whole file in memory (name for messages). */
typedef skf_status (*skfi_meshseq_parse)(const void *data, size_t size, const char *name,
                                         const skf_meshseq_read_options *opt, skf_meshseq **out,
                                         skf_error *err);

/* Read the file at path under opt's cache-bytes cap (opt may be NULL) and
 * parse it; *out is NULL on failure. */
skf_status skfi_meshseq_read_path(const char *path, const skf_meshseq_read_options *opt,
                                  skfi_meshseq_parse parse, skf_meshseq **out, skf_error *err);

#endif
