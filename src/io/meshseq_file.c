/* Reading a sequence file (PC2, MDD) under the call's limits: the whole file
 * under its cache-bytes cap (skf_read_file_limits), then the reader's parse. */
#include "io/meshseq_internal.h"

skf_status skfi_meshseq_read_path(const char *path, const skf_meshseq_read_options *opt,
                                  skfi_meshseq_parse parse, skf_meshseq **out, skf_error *err)
{
    *out = NULL;
    uint8_t *data;
    size_t size;
    skf_status st = skf_read_file_limits(path, opt ? opt->limits : NULL, SKF_LIMIT_CACHE_BYTES, &data,
                                         &size, err);
    if (st)
        return st;
    st = parse(data, size, path, opt, out, err);
    skf_free(data);
    return st;
}
