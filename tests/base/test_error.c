/* Errors: skf_fail / skf_failv fill the message (newlines folded to spaces),
 * skf_error_prefix prepends the file; kind and place as data; warnings
 * collect items with the same data. */
#include "check.h"
#include "skinfit/base.h"

#include <stdarg.h>

/* A caller's own wrapper, the use skf_failv exists for. */
static skf_status wrapped(skf_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    skf_status st = skf_failv(err, SKF_ERR_FORMAT, fmt, ap);
    va_end(ap);
    return st;
}

static void test_fail(void)
{
    skf_error err;
    CHECK(wrapped(&err, "accessors[%d]: %s", 12, "two\nlines") == SKF_ERR_FORMAT);
    CHECK(err.status == SKF_ERR_FORMAT);
    CHECK(strcmp(err.message, "accessors[12]: two lines") == 0);
    skf_error_prefix(&err, "%s", "Horse.glb");
    CHECK(strcmp(err.message, "Horse.glb: accessors[12]: two lines") == 0);
    CHECK(wrapped(NULL, "no error struct") == SKF_ERR_FORMAT);
    CHECK(skf_fail(&err, SKF_ERR_LIMIT, "%s", "x") == SKF_ERR_LIMIT && strcmp(err.message, "x") == 0);
}

/* The data beside the text: skf_fail resets it, recognises a limit's tail,
 * and the setters add to it field by field. */
static void test_data(void)
{
    skf_error err;
    skf_fail(&err, SKF_ERR_FORMAT, "x.gltf: nodes[3]: bad");
    skf_error_set_place(&err, "x.gltf", "nodes[3]", -1, NULL, -1);
    skf_error_set_kind(&err, SKF_KIND_OPTION, "skf_transfer_options.max_sweeps");
    skf_error_set_place(&err, NULL, NULL, 1234, "path#arm", 17); /* adds, keeps the rest */
    CHECK(!strcmp(err.place.file, "x.gltf") && !strcmp(err.place.json_path, "nodes[3]"));
    CHECK(err.place.byte_offset == 1234 && err.place.frame == 17 && !strcmp(err.place.element, "path#arm"));
    CHECK(err.kind == SKF_KIND_OPTION && !strcmp(err.option, "skf_transfer_options.max_sweeps"));
    /* the next failure starts clean */
    skf_fail(&err, SKF_ERR_LIMIT, "y.pc2: byte 16: 9 points exceed %s", skf_limit_exceeded(SKF_LIMIT_VERTICES).text);
    CHECK(err.kind == SKF_KIND_LIMIT && !strcmp(err.limit, "vertices"));
    CHECK(strstr(err.message, "exceed the limit vertices=") && !strstr(err.message, "--limit"));
    CHECK(err.option == NULL && err.place.file[0] == 0 && err.place.byte_offset == -1 && err.place.frame == -1);
    /* a cap given without a limit name, or another status, is no SKF_KIND_LIMIT */
    skf_fail(&err, SKF_ERR_LIMIT, "z: file is 9 bytes, above the limit of 8 bytes");
    CHECK(err.kind == SKF_KIND_UNSPECIFIED && err.limit[0] == 0);
    skf_fail(&err, SKF_ERR_FORMAT, "%s", skf_limit_exceeded(SKF_LIMIT_FRAMES).text);
    CHECK(err.kind == SKF_KIND_UNSPECIFIED && err.limit[0] == 0);
    skf_error_set_kind(NULL, SKF_KIND_OPTION, NULL);            /* NULL err: no effect */
    skf_error_set_place(NULL, "f", NULL, -1, NULL, -1);

    skf_warnings w = {0};
    skf_warn(&w, "plain %d", 1);
    skf_warning *it = skf_warn_as(&w, SKF_KIND_ITERATION_CAP, "skf_decompose_options.max_iterations",
                                  "stopped at the iteration cap max_iterations=%d", 3);
    CHECK(it == &w.items[1] && w.count == 2);
    CHECK(!strcmp(w.items[0].text, "plain 1") && w.items[0].kind == SKF_KIND_UNSPECIFIED && !w.items[0].option);
    CHECK(!strcmp(w.items[1].text, "stopped at the iteration cap max_iterations=3"));
    CHECK(w.items[1].kind == SKF_KIND_ITERATION_CAP && !strcmp(w.items[1].option, "skf_decompose_options.max_iterations"));
    CHECK(w.items[1].place.frame == -1 && w.items[1].place.file[0] == 0);
    CHECK(skf_warn_as(NULL, SKF_KIND_OPTION, NULL, "dropped") == NULL);
    skf_warnings_release(&w);
    CHECK(w.count == 0 && w.items == NULL);
    skf_place pl;
    memset(&pl, 'x', sizeof pl);
    skf_place_clear(&pl);
    CHECK(pl.file[0] == 0 && pl.json_path[0] == 0 && pl.element[0] == 0 && pl.byte_offset == -1 && pl.frame == -1);
}

int main(void)
{
    test_fail();
    test_data();
    return skf_test_done();
}
