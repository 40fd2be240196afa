/* Whole-file reads and atomic (temp + rename) writes; see base.h. */
#include "skinfit/base.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* limit_id < 0: a plain byte cap; otherwise the cap is that named limit
 * (under limits, NULL: process-wide). */
static skf_status read_file(const char *path, size_t max_size, int limit_id,
                            const skf_limits *limits, uint8_t **data, size_t *size,
                            skf_error *err)
{
    *data = NULL;
    *size = 0;
    struct stat st;
    if (stat(path, &st) != 0)
        return skf_fail(err, SKF_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return skf_fail(err, SKF_ERR_IO, "%s: is a directory, expected a file", path);
    if (!S_ISREG(st.st_mode))
        return skf_fail(err, SKF_ERR_IO, "%s: not a regular file", path);
    if ((uint64_t)st.st_size > (uint64_t)max_size && limit_id >= 0)
        return skf_fail(err, SKF_ERR_LIMIT, "%s: file is %lld bytes, above %s", path,
                        (long long)st.st_size,
                        skf_limits_exceeded(limits, (skf_limit_id)limit_id).text);
    if ((uint64_t)st.st_size > (uint64_t)max_size)
        return skf_fail(err, SKF_ERR_LIMIT,
                        "%s: file is %lld bytes, above the limit of %zu bytes", path,
                        (long long)st.st_size, max_size);
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return skf_fail(err, SKF_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    size_t n = (size_t)st.st_size;
    uint8_t *buf = skf_malloc(n + 1);
    if (!buf) {
        fclose(fp);
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory reading %zu bytes", path, n);
    }
    size_t got = fread(buf, 1, n, fp);
    int bad = ferror(fp);
    fclose(fp);
    if (bad || got != n) {
        skf_free(buf);
        return skf_fail(err, SKF_ERR_IO, "%s: read failed at byte %zu", path, got);
    }
    buf[n] = 0;
    *data = buf;
    *size = n;
    return SKF_OK;
}

skf_status skf_read_file(const char *path, size_t max_size, uint8_t **data, size_t *size,
                         skf_error *err)
{
    return read_file(path, max_size, -1, NULL, data, size, err);
}

skf_status skf_read_file_limited(const char *path, skf_limit_id id, uint8_t **data, size_t *size,
                                 skf_error *err)
{
    return read_file(path, skf_limit(id), (int)id, NULL, data, size, err);
}

skf_status skf_read_file_limits(const char *path, const skf_limits *limits, skf_limit_id id,
                                uint8_t **data, size_t *size, skf_error *err)
{
    return read_file(path, skf_limits_value(limits, id), (int)id, limits, data, size, err);
}

/* Registry of open temporaries for signal-time cleanup. Fixed storage so the
 * signal handler never allocates. */
#define MAX_TEMPS 64
#define TEMP_PATH_MAX 4096
static char temp_paths[MAX_TEMPS][TEMP_PATH_MAX];
static volatile sig_atomic_t temp_used[MAX_TEMPS];

static void register_temp(const char *p)
{
    size_t n = strlen(p);
    if (n >= TEMP_PATH_MAX)
        return;
    for (int i = 0; i < MAX_TEMPS; ++i) {
        if (!temp_used[i]) {
            memcpy(temp_paths[i], p, n + 1);
            temp_used[i] = 1;
            return;
        }
    }
}

static void unregister_temp(const char *p)
{
    for (int i = 0; i < MAX_TEMPS; ++i)
        if (temp_used[i] && strcmp(temp_paths[i], p) == 0)
            temp_used[i] = 0;
}

void skf_atomic_unlink_all_temporaries(void)
{
    for (int i = 0; i < MAX_TEMPS; ++i)
        if (temp_used[i]) {
            unlink(temp_paths[i]);
            temp_used[i] = 0;
        }
}

bool skf_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) != 0 || stat(b, &sb) != 0)
        return false;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

skf_status skf_atomic_open(skf_atomic_file *f, const char *path, skf_error *err)
{
    memset(f, 0, sizeof *f);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return skf_fail(err, SKF_ERR_IO, "%s: is a directory, expected an output file name", path);
    size_t n = strlen(path);
    f->final_path = skf_strdup(path);
    f->temp_path = skf_malloc(n + 16);
    if (!f->final_path || !f->temp_path) {
        skf_free(f->final_path);
        skf_free(f->temp_path);
        memset(f, 0, sizeof *f);
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", path);
    }
    snprintf(f->temp_path, n + 16, "%s.tmp-XXXXXX", path);
    int fd = mkstemp(f->temp_path);
    if (fd < 0) {
        int e = errno;
        skf_free(f->final_path);
        skf_free(f->temp_path);
        memset(f, 0, sizeof *f);
        return skf_fail(err, SKF_ERR_IO, "%s: cannot create output: %s", path, strerror(e));
    }
    register_temp(f->temp_path);
    FILE *fp = fdopen(fd, "wb");
    if (!fp) {
        int e = errno;
        close(fd);
        skf_atomic_abort(f);
        return skf_fail(err, SKF_ERR_IO, "%s: cannot create output: %s", path, strerror(e));
    }
    f->fp = fp;
    return SKF_OK;
}

skf_status skf_atomic_write(skf_atomic_file *f, const void *data, size_t size, skf_error *err)
{
    if (size && fwrite(data, 1, size, (FILE *)f->fp) != size)
        return skf_fail(err, SKF_ERR_IO, "%s: write failed: %s", f->final_path, strerror(errno));
    return SKF_OK;
}

skf_status skf_atomic_commit(skf_atomic_file *f, skf_error *err)
{
    FILE *fp = f->fp;
    f->fp = NULL;
    int bad = fflush(fp) != 0;
    bad |= fsync(fileno(fp)) != 0 && errno != EINVAL;
    bad |= fclose(fp) != 0;
    if (bad) {
        int e = errno;
        skf_atomic_abort(f);
        return skf_fail(err, SKF_ERR_IO, "%s: write failed: %s", f->final_path ? f->final_path : "?",
                        strerror(e));
    }
    /* mkstemp creates 0600; give the output the usual umask-derived mode. */
    mode_t mask = umask(0);
    umask(mask);
    chmod(f->temp_path, 0666 & ~mask);
    if (rename(f->temp_path, f->final_path) != 0) {
        int e = errno;
        skf_status st = skf_fail(err, SKF_ERR_IO, "%s: cannot rename output into place: %s",
                                 f->final_path, strerror(e));
        skf_atomic_abort(f);
        return st;
    }
    unregister_temp(f->temp_path);
    skf_free(f->final_path);
    skf_free(f->temp_path);
    memset(f, 0, sizeof *f);
    return SKF_OK;
}

void skf_atomic_abort(skf_atomic_file *f)
{
    if (f->fp)
        fclose((FILE *)f->fp);
    if (f->temp_path) {
        unlink(f->temp_path);
        unregister_temp(f->temp_path);
    }
    skf_free(f->final_path);
    skf_free(f->temp_path);
    memset(f, 0, sizeof *f);
}

skf_status skf_write_file_atomic(const char *path, const void *data, size_t size, skf_error *err)
{
    skf_atomic_file f;
    skf_status st = skf_atomic_open(&f, path, err);
    if (st)
        return st;
    st = skf_atomic_write(&f, data, size, err);
    if (st) {
        skf_atomic_abort(&f);
        return st;
    }
    return skf_atomic_commit(&f, err);
}
