/* `skinfit render --frames` lists (tools/skinfit/cli_frames.c): "all", indices
 * and inclusive ranges, each below the clip's frame count; bad lists are
 * argument errors. (Moved from tests/render/test_raster.c with the parser.) */
#include "check.h"
#include "cli.h"

int main(void)
{
    skf_error err;
    size_t *fl, fn;
    CHECK(cli_parse_frames("0,2-3", 4, &fl, &fn, &err) == SKF_OK && fn == 3 && fl[2] == 3);
    skf_free(fl);
    CHECK(cli_parse_frames("all", 4, &fl, &fn, &err) == SKF_OK && fn == 4);
    skf_free(fl);
    CHECK(cli_parse_frames("1-5", 4, &fl, &fn, &err) == SKF_ERR_ARGUMENT);
    CHECK(cli_parse_frames("x", 4, &fl, &fn, &err) == SKF_ERR_ARGUMENT);
    CHECK(cli_parse_frames("1,", 4, &fl, &fn, &err) == SKF_OK && fn == 1);
    skf_free(fl);
    /* the page's command line (cli_command_line, moved from src/render) */
    char *argv[] = {"skinfit", "transfer", "--clip", "Walk", "a b.glb", "it's", "", NULL};
    char *line = cli_command_line(7, argv);
    CHECK(line && !strcmp(line, "skinfit transfer --clip Walk 'a b.glb' 'it'\\''s' ''"));
    skf_free(line);
    return skf_test_done();
}
