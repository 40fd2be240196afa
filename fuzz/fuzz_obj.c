/* Fuzz harness: the OBJ reader (one frame of an OBJ sequence). The reader
 * takes a path, so the input goes through a private temporary file. */
#include "skinfit/meshseq.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[] = "/tmp/skf-fuzz-obj-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return 0;
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        close(fd);
        unlink(path);
        return 0;
    }
    if (size)
        fwrite(data, 1, size, f);
    fclose(f);
    skf_meshseq *seq = NULL;
    skf_error err;
    if (skf_obj_read(path, &seq, &err) == SKF_OK)
        skf_meshseq_free(seq);
    unlink(path);
    return 0;
}
