/* Errors: skf_fail / skf_failv fill the message (newlines folded to spaces),
 * skf_error_prefix prepends the file; warnings collect items. */
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

int main(void)
{
    test_fail();
    return skf_test_done();
}
