/* The umbrella header compiles on its own and exposes every subsystem. */
#include "check.h"
#include "skinfit/skinfit.h"

int main(void)
{
    CHECK(strcmp(SKF_VERSION_STRING, "") != 0);
    CHECK(skf_status_name(SKF_ERR_FORMAT) != NULL);
    return skf_test_done();
}
