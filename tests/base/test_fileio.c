#include "check.h"
#include "skinfit/base.h"

#include <sys/stat.h>
#include <unistd.h>

int main(void)
{
    char dir[] = "/tmp/skf-fileio-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[256];
    snprintf(path, sizeof path, "%s/out.bin", dir);
    skf_error err = {0};
    CHECK(skf_write_file_atomic(path, "hello", 5, &err) == SKF_OK);
    uint8_t *data;
    size_t size;
    CHECK(skf_read_file(path, 1 << 20, &data, &size, &err) == SKF_OK);
    CHECK(size == 5 && memcmp(data, "hello", 5) == 0);
    skf_free(data);

    /* An aborted write leaves the old file and no temporary. */
    skf_atomic_file f;
    CHECK(skf_atomic_open(&f, path, &err) == SKF_OK);
    CHECK(skf_atomic_write(&f, "partial", 7, &err) == SKF_OK);
    char temp[512];
    snprintf(temp, sizeof temp, "%s", f.temp_path);
    skf_atomic_abort(&f);
    CHECK(access(temp, F_OK) != 0);
    CHECK(skf_read_file(path, 1 << 20, &data, &size, &err) == SKF_OK);
    CHECK(size == 5);
    skf_free(data);

    /* Errors name the file. */
    CHECK(skf_read_file(dir, 1 << 20, &data, &size, &err) == SKF_ERR_IO);
    CHECK(strstr(err.message, "is a directory") != NULL);
    char missing[256];
    snprintf(missing, sizeof missing, "%s/missing.glb", dir);
    CHECK(skf_read_file(missing, 1 << 20, &data, &size, &err) == SKF_ERR_IO);
    CHECK(strstr(err.message, "missing.glb") != NULL);
    CHECK(skf_read_file(path, 2, &data, &size, &err) == SKF_ERR_LIMIT);

    unlink(path);
    rmdir(dir);
    return skf_test_done();
}
