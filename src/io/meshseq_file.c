/* Reading a sequence file (PC2, MDD, Alembic) under the call's limits: the
 * whole file under its cache-bytes cap (skf_read_file_limits), then the
 * reader's parse of the bytes. */
#include "io/meshseq_internal.h"

/* parse (PC2, MDD: under opt) or, when NULL, the Alembic reader (under abc). */
static skf_status read_path(const char *path, const skf_limits *limits, skfi_meshseq_parse parse,
                            const skf_meshseq_read_options *opt, const skf_alembic_options *abc,
                            skf_meshseq **out, skf_error *err)
{
    *out = NULL;
    uint8_t *data;
    size_t size;
    skf_status st = skf_read_file_limits(path, limits, SKF_LIMIT_CACHE_BYTES, &data, &size, err);
    if (st)
        return st;
    st = parse ? parse(data, size, path, opt, out, err) : skf_alembic_read_memory(data, size, path, abc, out, err);
    skf_free(data);
    return st;
}

skf_status skfi_meshseq_read_path(const char *path, const skf_meshseq_read_options *opt,
                                  skfi_meshseq_parse parse, skf_meshseq **out, skf_error *err)
{
    return read_path(path, opt ? opt->limits : NULL, parse, opt, NULL, out, err);
}

skf_status skf_alembic_read(const char *path, const skf_alembic_options *opt, skf_meshseq **out,
                            skf_error *err)
{
    return read_path(path, opt ? opt->limits : NULL, NULL, NULL, opt, out, err);
}
