/* skfi_keyed_cmp: the order of skfi_keyed items (base_internal.h). */
#include "base_internal.h"

int skfi_keyed_cmp(const void *a, const void *b)
{
    const skfi_keyed *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->v < y->v ? -1 : x->v > y->v;
}
