/* The CLI's per-call limits (tools/skinfit/cli.h, cli_limits): a reader given
 * them stops at the CLI's cap without the process-wide table being set, and
 * cli_error_text turns the per-call tail "(set by the caller:
 * skf_limits.value[SKF_LIMIT_FRAMES])" into the flag hint "(raise it with
 * --limit frames=N)", the same text a process-wide cap gets. */
#include "check.h"
#include "cli.h"
#include "skinfit/meshseq.h"

#include <string.h>

int main(void)
{
    /* a 1-point, 3-sample PC2 */
    uint8_t pc2[32 + 36] = "POINTCACHE2";
    const uint32_t hdr[5] = {1, 1, 0, 0x3f800000u, 3}; /* version, points, start 0.0f, rate 1.0f, samples */
    for (int i = 0; i < 5; ++i)
        for (int k = 0; k < 4; ++k)
            pc2[12 + 4 * i + k] = (uint8_t)(hdr[i] >> (8 * k));
    skf_error err;
    char text[CLI_TEXT_MAX];
    skf_meshseq *s = NULL;
    skf_meshseq_read_options o = {&cli_limits};
    CHECK(skf_pc2_read_memory_opts(pc2, sizeof pc2, "c.pc2", &o, &s, &err) == SKF_OK);
    skf_meshseq_free(s);
    CHECK(skf_limits_set(&cli_limits, SKF_LIMIT_FRAMES, 2, &err) == SKF_OK);
    s = NULL;
    CHECK(skf_pc2_read_memory_opts(pc2, sizeof pc2, "c.pc2", &o, &s, &err) == SKF_ERR_LIMIT && !s);
    CHECK(skf_limit(SKF_LIMIT_FRAMES) == skf_limit_get_info(SKF_LIMIT_FRAMES).default_value);
    CHECK_MSG(strstr(err.message, "(set by the caller: skf_limits.value[SKF_LIMIT_FRAMES])") != NULL, "%s",
              err.message);
    cli_error_text(&err, text, sizeof text);
    CHECK_MSG(!strcmp(text, "c.pc2: byte 28: 3 samples exceed the limit frames=2 (raise it with --limit "
                            "frames=N)"),
              "%s", text);
    /* the same cap process-wide reads the same */
    memset(&cli_limits, 0, sizeof cli_limits);
    CHECK(skf_limit_set(SKF_LIMIT_FRAMES, 2, &err) == SKF_OK);
    CHECK(skf_pc2_read_memory_opts(pc2, sizeof pc2, "c.pc2", &o, &s, &err) == SKF_ERR_LIMIT);
    char text2[CLI_TEXT_MAX];
    CHECK_MSG(!strcmp(cli_error_text(&err, text2, sizeof text2), text), "%s", text2);
    skf_limits_reset();
    return skf_test_done();
}
