/* skfi_keyed_cmp and skfi_keyed_lower_bound: the order of skfi_keyed items
 * and the search in an array sorted by it (base_internal.h). */
#include "base_internal.h"

int skfi_keyed_cmp(const void *a, const void *b)
{
    const skfi_keyed *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->v < y->v ? -1 : x->v > y->v;
}

size_t skfi_keyed_lower_bound(const skfi_keyed *a, size_t n, uint64_t key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid].key < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}
