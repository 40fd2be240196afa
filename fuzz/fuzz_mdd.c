/* Fuzz harness: the MDD point-cache reader on arbitrary bytes. */
#include "skinfit/meshseq.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    skf_meshseq *seq = NULL;
    skf_error err;
    if (skf_mdd_read_memory(data, size, "fuzz.mdd", &seq, &err) == SKF_OK)
        skf_meshseq_free(seq);
    return 0;
}
