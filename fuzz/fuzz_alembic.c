/* Fuzz harness: the Alembic (Ogawa) reader on arbitrary bytes, with and
 * without the parent-Xform path. */
#include "skinfit/meshseq.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (int xf = 0; xf < 2; ++xf) {
        skf_alembic_options opt = {.apply_parent_xform = xf != 0};
        skf_meshseq *seq = NULL;
        skf_error err;
        if (skf_alembic_read_memory(data, size, "fuzz.abc", &opt, &seq, &err) == SKF_OK)
            skf_meshseq_free(seq);
    }
    return 0;
}
