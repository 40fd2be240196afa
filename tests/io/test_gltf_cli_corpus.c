/* CLI variant of the malformed-input corpus (issue 2, acceptance 6): for
 * every broken input, `skinfit bake BROKEN --clip Walk -o out.pc2` must exit
 * 1 with exactly one line on stderr naming the file and the place, and leave
 * no output (nor a temporary) behind; `skinfit info BROKEN` (every third
 * entry, to keep the ASan run short) must fail the same way. The valid
 * fixture bakes (exit 0) as a control. */
#include "check.h"
#include "gltf_corpus.h"

#include <dirent.h>
#include <stdbool.h>
#include <fcntl.h>
#include <sys/wait.h>

/* Run argv with stdout/stderr to files; returns the exit code (-1 on signal). */
static int run(char *const argv[], const char *out_path, const char *err_path)
{
    pid_t pid = fork();
    if (pid < 0)
        return -2;
    if (pid == 0) {
        int o = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (o < 0 || e < 0)
            _exit(127);
        dup2(o, 1);
        dup2(e, 2);
        execv(argv[0], argv);
        _exit(127);
    }
    int status;
    if (waitpid(pid, &status, 0) < 0)
        return -2;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    static char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    return buf;
}

static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; ++s)
        n += *s == '\n';
    return n;
}

/* Files in dir whose name starts with prefix. */
static size_t count_prefixed(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return n;
}

int main(void)
{
    const char *bin = getenv("SKF_BIN");
    if (!bin || access(bin, X_OK) != 0)
        SKF_SKIP("SKF_BIN (the skinfit CLI) not set or not executable");
    corpus c;
    corpus_build(&c);
    char out_dir[300], outp[400], so[400], se[400];
    snprintf(out_dir, sizeof out_dir, "%s/out", c.dir);
    mkdir(out_dir, 0755);
    snprintf(outp, sizeof outp, "%s/out.pc2", out_dir);
    snprintf(so, sizeof so, "%s/stdout.txt", out_dir);
    snprintf(se, sizeof se, "%s/stderr.txt", out_dir);

    /* control: the valid fixture bakes */
    uint8_t fbin[FX_BIN_SIZE];
    fixture_bin(fbin);
    size_t n;
    uint8_t *glb = make_glb(FIXTURE_JSON, fbin, FX_BIN_SIZE, &n);
    char valid[400];
    snprintf(valid, sizeof valid, "%s/valid.glb", out_dir);
    CHECK(write_bytes(valid, glb, n) == 0);
    free(glb);
    {
        char *argv[] = {(char *)bin, "bake", valid, "--clip", "Walk", "-o", outp, NULL};
        int rc = run(argv, so, se);
        CHECK_MSG(rc == 0, "valid fixture: exit %d: %s", rc, slurp(se));
        CHECK(access(outp, F_OK) == 0);
        unlink(outp);
        unlink(valid);
    }

    size_t good = 0, info_runs = 0;
    for (size_t i = 0; i < c.n; ++i) {
        const corpus_entry *e = &c.e[i];
        const char *base = strrchr(e->path, '/') + 1;
        char *bake[] = {(char *)bin, "bake", (char *)e->path, "--clip", "Walk", "-o", outp, NULL};
        int rc = run(bake, so, se);
        const char *err = slurp(se);
        bool ok = rc == 1 && err && count_lines(err) == 1 && strstr(err, e->path) &&
                  strstr(err, e->expect) && access(outp, F_OK) != 0 &&
                  count_prefixed(out_dir, "out.pc2") == 0;
        CHECK_MSG(ok, "bake %s: exit %d, stderr '%s' (want one line with '%s'), output %s", base,
                  rc, err ? err : "?", e->expect, access(outp, F_OK) == 0 ? "exists" : "absent");
        unlink(outp);
        if (i % 3) {   /* info on every third entry keeps the ASan run short */
            good += ok;
            continue;
        }
        ++info_runs;
        char *info[] = {(char *)bin, "info", (char *)e->path, NULL};
        rc = run(info, so, se);
        err = slurp(se);
        bool ok2 = rc == 1 && err && count_lines(err) == 1 && strstr(err, e->path) &&
                   strstr(err, e->expect);
        CHECK_MSG(ok2, "info %s: exit %d, stderr '%s'", base, rc, err ? err : "?");
        good += ok && ok2;
    }
    printf("CLI corpus: %zu broken inputs, %zu gave exit 1, one stderr line naming file and "
           "place, no output (bake on all, info on %zu)\n", c.n, good, info_runs);
    CHECK(c.n >= 30);
    unlink(so);
    unlink(se);
    rmdir(out_dir);
    corpus_remove(&c);
    return skf_test_done();
}
