/* Mesh sequence container; readers and writers live in one file per format. */
#include "skinfit/meshseq.h"

skf_meshseq *skf_meshseq_new(size_t vertex_count, size_t frame_count)
{
    skf_meshseq *s = skf_calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->vertex_count = vertex_count;
    s->frame_count = frame_count;
    if (vertex_count && frame_count) {
        if (frame_count > SIZE_MAX / vertex_count / 3) {
            skf_free(s);
            return NULL;
        }
        s->positions = skf_calloc(frame_count * vertex_count * 3, sizeof *s->positions);
        if (!s->positions) {
            skf_free(s);
            return NULL;
        }
    }
    return s;
}

void skf_meshseq_free(skf_meshseq *seq)
{
    if (!seq)
        return;
    skf_free(seq->positions);
    skf_free(seq->triangles);
    skf_free(seq);
}
