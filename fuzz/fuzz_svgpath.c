/* Fuzz harness: SVG path data grammar (M L H V C S Q T A Z, relative forms,
 * implicit repeats, exponents, missing separators) on arbitrary bytes. */
#include "svg/svg_internal.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *d = skf_malloc(size + 1);
    if (!d)
        return 0;
    memcpy(d, data, size);
    d[size] = 0;
    skfi_svg_geom g;
    memset(&g, 0, sizeof g);
    size_t offset = 0;
    const char *what = NULL;
    if (skfi_svg_parse_path(d, &g, 100000, &offset, &what) == SKF_OK) {
        double box[4];
        skfi_svg_geom_bbox(&g, box);
    }
    skfi_svg_geom_release(&g);
    skf_free(d);
    return 0;
}
