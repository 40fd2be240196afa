/* Finding a clip by the name a user typed, with one wording for every
 * command: "F: animations: no clip named 'walk'; did you mean 'Walk'?
 * (names are case-sensitive) (available: Walk, Trot)". The library's
 * skf_clip_find matches the name (exact, then without the armature prefix,
 * then a unique "_<name>" suffix, case-sensitively) and says what was asked
 * for (kind SKF_KIND_UNKNOWN_CLIP, err->name); the hint is the same search
 * ignoring case, the list is cli_clip_names. */
#include "cli.h"

#include "skinfit/rig.h"

#include <string.h>
#include <strings.h>

/* the first clip whose name matches `name` ignoring case (any of the three rules) */
static int find_ignoring_case(const skf_gltf *doc, const char *name)
{
    const char *want = skf_clip_short_name(name);
    size_t wl = strlen(want);
    for (size_t i = 0; i < doc->animation_count; ++i) {
        const char *n = doc->animations[i].name;
        if (!n)
            continue;
        const char *a = skf_clip_short_name(n);
        size_t al = strlen(a);
        if (!strcasecmp(n, name) || !strcasecmp(a, want) ||
            (wl && al > wl && a[al - wl - 1] == '_' && !strcasecmp(a + al - wl, want)))
            return (int)i;
    }
    return -1;
}

int cli_find_clip(const skf_gltf *doc, const char *name, skf_error *err)
{
    int a = skf_clip_find(doc, name, err);
    if (a >= 0 || !err || err->kind != SKF_KIND_UNKNOWN_CLIP)
        return a;
    char list[1024];
    cli_clip_names(doc, list, sizeof list);
    int hint = name ? find_ignoring_case(doc, name) : -1;
    size_t n = strlen(err->message);
    if (hint >= 0)
        snprintf(err->message + n, sizeof err->message - n, "; did you mean '%s'? (names are case-sensitive)",
                 skf_clip_short_name(doc->animations[hint].name));
    n = strlen(err->message);
    snprintf(err->message + n, sizeof err->message - n, " (available: %s)", list);
    return -1;
}
