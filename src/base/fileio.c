/* Whole-file reads and atomic (temp + rename) writes; see base.h. */
#include "skinfit/base.h"
#include "base/base_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Read the whole of an open descriptor (closed here, whatever happens);
 * path only names it in messages. limit_id < 0: a plain byte cap; otherwise
 * the cap is that named limit (under limits, NULL: process-wide). The type
 * and size come from fstat of the descriptor that is read, so nothing can be
 * swapped in between the check and the read. */
static skf_status read_fd(int fd, const char *path, size_t max_size, int limit_id,
                          const skf_limits *limits, uint8_t **data, size_t *size, skf_error *err)
{
    *data = NULL;
    *size = 0;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return skf_fail(err, SKF_ERR_IO, "%s: cannot open: %s", path, strerror(e));
    }
    const char *bad_type = S_ISDIR(st.st_mode)  ? "is a directory, expected a file"
                           : !S_ISREG(st.st_mode) ? "not a regular file"
                                                  : NULL;
    if (bad_type) {
        close(fd);
        return skf_fail(err, SKF_ERR_IO, "%s: %s", path, bad_type);
    }
    if ((uint64_t)st.st_size > (uint64_t)max_size) {
        close(fd);
        if (limit_id >= 0)
            return skf_fail(err, SKF_ERR_LIMIT, "%s: file is %lld bytes, above %s", path,
                            (long long)st.st_size,
                            skf_limits_exceeded(limits, (skf_limit_id)limit_id).text);
        return skf_fail(err, SKF_ERR_LIMIT,
                        "%s: file is %lld bytes, above the limit of %zu bytes", path,
                        (long long)st.st_size, max_size);
    }
    /* opened non-blocking so that a FIFO cannot hang the open; a regular
     * file reads the same either way */
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    size_t n = (size_t)st.st_size;
    uint8_t *buf = skf_malloc(n + 1);
    if (!buf) {
        close(fd);
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory reading %zu bytes", path, n);
    }
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    if (got != n) {
        skf_free(buf);
        return skf_fail(err, SKF_ERR_IO, "%s: read failed at byte %zu", path, got);
    }
    buf[n] = 0;
    *data = buf;
    *size = n;
    return SKF_OK;
}

static skf_status read_file(const char *path, size_t max_size, int limit_id,
                            const skf_limits *limits, uint8_t **data, size_t *size,
                            skf_error *err)
{
    *data = NULL;
    *size = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return skf_fail(err, SKF_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    return read_fd(fd, path, max_size, limit_id, limits, data, size, err);
}

skf_status skfi_read_fd_limits(int fd, const char *path, const skf_limits *limits,
                               skf_limit_id id, uint8_t **data, size_t *size, skf_error *err)
{
    skf_status st =
        read_fd(fd, path, skf_limits_value(limits, id), (int)id, limits, data, size, err);
    if (st)
        skf_error_set_place(err, path, NULL, -1, NULL, -1);
    return st;
}

skf_status skf_read_file(const char *path, size_t max_size, uint8_t **data, size_t *size,
                         skf_error *err)
{
    skf_status st = read_file(path, max_size, -1, NULL, data, size, err);
    if (st)
        skf_error_set_place(err, path, NULL, -1, NULL, -1);
    return st;
}

skf_status skf_read_file_limits(const char *path, const skf_limits *limits, skf_limit_id id,
                                uint8_t **data, size_t *size, skf_error *err)
{
    skf_status st = read_file(path, skf_limits_value(limits, id), (int)id, limits, data, size, err);
    if (st)
        skf_error_set_place(err, path, NULL, -1, NULL, -1);
    return st;
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

/* Temporary folders (skf_atomic_dir), emptied and removed by the same walk. */
#define MAX_TEMP_DIRS 8
static char temp_dirs[MAX_TEMP_DIRS][TEMP_PATH_MAX];
static volatile sig_atomic_t temp_dir_used[MAX_TEMP_DIRS];

static void register_temp_dir(const char *p)
{
    size_t n = strlen(p);
    if (n >= TEMP_PATH_MAX)
        return;
    for (int i = 0; i < MAX_TEMP_DIRS; ++i)
        if (!temp_dir_used[i]) {
            memcpy(temp_dirs[i], p, n + 1);
            temp_dir_used[i] = 1;
            return;
        }
}

static void unregister_temp_dir(const char *p)
{
    for (int i = 0; i < MAX_TEMP_DIRS; ++i)
        if (temp_dir_used[i] && strcmp(temp_dirs[i], p) == 0)
            temp_dir_used[i] = 0;
}

/* Remove the files of a folder (one level) and the folder. Only open,
 * getdents64, unlinkat, close and rmdir: async-signal-safe, no allocation. */
static void remove_flat_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        static char buf[8192];
        for (;;) {
            long n = syscall(SYS_getdents64, fd, buf, sizeof buf);
            if (n <= 0)
                break;
            for (long off = 0; off < n;) {
                unsigned short reclen;
                memcpy(&reclen, buf + off + 16, sizeof reclen);
                const char *name = buf + off + 19;
                if (strcmp(name, ".") && strcmp(name, ".."))
                    unlinkat(fd, name, 0);
                off += reclen;
            }
        }
        close(fd);
    }
    rmdir(dir);
}

void skf_atomic_unlink_all_temporaries(void)
{
    for (int i = 0; i < MAX_TEMPS; ++i)
        if (temp_used[i]) {
            unlink(temp_paths[i]);
            temp_used[i] = 0;
        }
    for (int i = 0; i < MAX_TEMP_DIRS; ++i)
        if (temp_dir_used[i]) {
            remove_flat_dir(temp_dirs[i]);
            temp_dir_used[i] = 0;
        }
}

/* "<folder>/<name><tag>XXXXXX" for mkstemp/mkdtemp, the name cut so the
 * temporary's last component stays within NAME_MAX (a legal 251-byte output
 * name must not fail for its temporary's sake). NULL: out of memory. */
static char *temp_template(const char *path, const char *tag)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        --n;
    const char *slash = NULL;
    for (size_t i = 0; i < n; ++i)
        if (path[i] == '/')
            slash = path + i;
    size_t dl = slash ? (size_t)(slash - path) + 1 : 0, bl = n - dl, tl = strlen(tag) + 6;
    if (bl + tl > NAME_MAX)
        bl = NAME_MAX - tl;
    char *t = skf_malloc(dl + bl + tl + 1);
    if (t)
        snprintf(t, dl + bl + tl + 1, "%.*s%.*s%sXXXXXX", (int)dl, path, (int)bl, path + dl, tag);
    return t;
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
    f->final_path = skf_strdup(path);
    f->temp_path = temp_template(path, ".tmp-");
    if (!f->final_path || !f->temp_path) {
        skf_free(f->final_path);
        skf_free(f->temp_path);
        memset(f, 0, sizeof *f);
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", path);
    }
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

/* ---- atomic folders ----------------------------------------------------- */

static skf_status only_ours(const char *dir, bool (*ours)(const char *name), skf_error *err);

skf_status skf_atomic_dir_open(skf_atomic_dir *d, const char *path, bool (*ours)(const char *name),
                               skf_error *err)
{
    memset(d, 0, sizeof *d);
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISDIR(st.st_mode))
        return skf_fail(err, SKF_ERR_IO, "%s: exists and is not a folder", path);
    skf_status st0;
    if (stat(path, &st) == 0 && (st0 = only_ours(path, ours, err)))
        return st0;
    d->final_path = skf_strdup(path);
    d->temp_path = temp_template(path, ".tmp-");
    if (!d->final_path || !d->temp_path) {
        skf_atomic_dir_abort(d);
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", path);
    }
    size_t n = strlen(d->final_path);
    while (n > 1 && d->final_path[n - 1] == '/')
        d->final_path[--n] = 0;
    if (!mkdtemp(d->temp_path)) {
        int e = errno;
        skf_free(d->temp_path);
        d->temp_path = NULL;
        skf_atomic_dir_abort(d);
        return skf_fail(err, SKF_ERR_IO, "%s: cannot create folder: %s", path, strerror(e));
    }
    register_temp_dir(d->temp_path);
    mode_t mask = umask(0);     /* mkdtemp makes 0700; give the usual mode */
    umask(mask);
    chmod(d->temp_path, 0777 & ~mask);
    return SKF_OK;
}

void skf_atomic_dir_abort(skf_atomic_dir *d)
{
    if (d->temp_path) {
        unregister_temp_dir(d->temp_path);
        remove_flat_dir(d->temp_path);
    }
    skf_free(d->final_path);
    skf_free(d->temp_path);
    memset(d, 0, sizeof *d);
}

/* The entries of folder `dir` all satisfy ours (or it has none). */
static skf_status only_ours(const char *dir, bool (*ours)(const char *name), skf_error *err)
{
    DIR *dp = opendir(dir);
    if (!dp)
        return skf_fail(err, SKF_ERR_IO, "%s: cannot read folder: %s", dir, strerror(errno));
    skf_status st = SKF_OK;
    struct dirent *e;
    while ((e = readdir(dp)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && !(ours && ours(e->d_name))) {
            st = skf_fail(err, SKF_ERR_IO,
                          "%s: holds '%.100s', which this output would not replace; give a new or "
                          "empty folder", dir, e->d_name);
            break;
        }
    closedir(dp);
    return st;
}

skf_status skf_atomic_dir_commit(skf_atomic_dir *d, bool (*ours)(const char *name), skf_error *err)
{
    skf_status st = SKF_OK;
    struct stat sb;
    if (stat(d->final_path, &sb) != 0) {
        if (rename(d->temp_path, d->final_path) != 0)
            st = skf_fail(err, SKF_ERR_IO, "%s: cannot rename the output folder into place: %s",
                          d->final_path, strerror(errno));
    } else if (!(st = only_ours(d->final_path, ours, err))) {
        /* One atomic swap: readers see all old frames or all new ones. */
        if (syscall(SYS_renameat2, AT_FDCWD, d->temp_path, AT_FDCWD, d->final_path,
                    2u /* RENAME_EXCHANGE */) != 0)
            st = skf_fail(err, SKF_ERR_IO, "%s: cannot swap the output folder into place: %s",
                          d->final_path, strerror(errno));
        /* on success temp_path now holds the previous frames: removed below */
    }
    if (!st && stat(d->temp_path, &sb) != 0) {   /* renamed: nothing left behind */
        unregister_temp_dir(d->temp_path);
        skf_free(d->final_path);
        skf_free(d->temp_path);
        memset(d, 0, sizeof *d);
        return SKF_OK;
    }
    skf_atomic_dir_abort(d);
    return st;
}

/* ---- staged outputs ----------------------------------------------------- */

skf_status skf_stage_open(skf_staged *s, const char *path, skf_error *err)
{
    memset(s, 0, sizeof *s);
    s->final_path = skf_strdup(path);
    s->temp_path = temp_template(path, ".stage-");
    if (!s->final_path || !s->temp_path) {
        skf_stage_abort(s, 1);
        return skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", path);
    }
    int fd = mkstemp(s->temp_path);
    if (fd < 0) {
        int e = errno;
        skf_free(s->temp_path);
        s->temp_path = NULL;
        skf_stage_abort(s, 1);
        return skf_fail(err, SKF_ERR_IO, "%s: cannot create output: %s", path, strerror(e));
    }
    close(fd);
    register_temp(s->temp_path);
    return SKF_OK;
}

skf_status skf_stage_commit(skf_staged *s, size_t n, skf_error *err)
{
    skf_status st = SKF_OK;
    for (size_t i = 0; i < n; ++i) {
        if (!s[i].temp_path)
            continue;
        if (!st && rename(s[i].temp_path, s[i].final_path) != 0)
            st = skf_fail(err, SKF_ERR_IO, "%s: cannot rename output into place: %s",
                          s[i].final_path, strerror(errno));
        if (st)
            unlink(s[i].temp_path);
        unregister_temp(s[i].temp_path);
        skf_free(s[i].final_path);
        skf_free(s[i].temp_path);
        memset(&s[i], 0, sizeof s[i]);
    }
    return st;
}

void skf_stage_abort(skf_staged *s, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        if (s[i].temp_path) {
            unlink(s[i].temp_path);
            unregister_temp(s[i].temp_path);
        }
        skf_free(s[i].final_path);
        skf_free(s[i].temp_path);
        memset(&s[i], 0, sizeof s[i]);
    }
}

void skf_stage_fix_message(const skf_staged *s, size_t n, skf_error *err)
{
    for (size_t i = 0; i < n; ++i) {
        if (!s[i].temp_path)
            continue;
        char *at = strstr(err->message, s[i].temp_path);
        if (!at)
            continue;
        char out[sizeof err->message];
        size_t pre = (size_t)(at - err->message), tl = strlen(s[i].temp_path);
        /* the writer's own temporary of our temporary: "<temp>.tmp-XXXXXX" */
        const char *rest = at + tl;
        if (!strncmp(rest, ".tmp-", 5) && strlen(rest) >= 11)
            rest += 11;
        snprintf(out, sizeof out, "%.*s%s%s", (int)pre, err->message, s[i].final_path, rest);
        snprintf(err->message, sizeof err->message, "%s", out);
    }
}

bool skf_is_frame_name(const char *name, const char *ext)
{
    if (strncmp(name, "frame_", 6) != 0)
        return false;
    const char *p = name + 6;
    if (!(*p >= '0' && *p <= '9'))
        return false;
    while (*p >= '0' && *p <= '9')
        ++p;
    return !strcmp(p, ext);
}
