/* skinfit batch JOBS.json -o OUTDIR [--jobs N] [--resume] [--shard K/N] [--threads T]
 *
 * Runs many transfer jobs. Locally each job is a child process (this binary
 * re-executed with the hidden --run-job flag), at most N at a time, largest
 * first, so one job's crash cannot take the batch down. Under mpirun, rank 0
 * hands jobs out to the other ranks (batch_mpi.c). The summary is assembled
 * from the jobs' own reports, so a resumed, sharded or distributed run ends
 * with the same summary as an uninterrupted serial one. docs/batch.md. */
#include "batch.h"
#include "cli.h"
#include "guard.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char usage[] =
    "usage: skinfit batch JOBS.json -o OUTDIR [--jobs N] [--resume] [--shard K/N] [--threads T]\n"
    "\n"
    "Bake every job of a manifest (docs/batch.md): each job transfers clips of a\n"
    "source rig onto a target rig and writes OUTDIR/<name>.glb and OUTDIR/<name>.json.\n"
    "\n"
    "  -o OUTDIR      output folder (created if missing)\n"
    "  --jobs N       jobs run in parallel on this machine (default 1)\n"
    "  --threads T    threads inside each job (default: cores / jobs)\n"
    "  --resume       skip jobs whose outputs are complete and made from the\n"
    "                 current inputs and options; redo the rest, reusing the\n"
    "                 clips an interrupted job had finished (OUTDIR/*.ckpt)\n"
    "  --shard K/N    run only shard K of N (job i when i mod N = K-1); run\n"
    "                 `batch --resume` on the whole manifest afterwards to\n"
    "                 assemble the summary\n"
    "\n"
    "Under mpirun (OpenMPI build), rank 0 hands jobs out to the other ranks.\n"
    "Writes OUTDIR/summary.json (deterministic) and prints a table with times.\n"
    "Exit: 0 all jobs ok, 1 a job failed (the others still ran), 2 usage,\n"
    "3 a job's min_quality gate was not met.\n";

static int default_threads(int jobs)
{
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int t = (int)(cores > 0 ? cores : 1) / (jobs > 0 ? jobs : 1);
    return t > 0 ? t : 1;
}

/* Local mode: children re-execute this binary for one job each. */
static void run_local(const char *manifest, const char *outdir, const size_t *todo, size_t count,
                      int jobs, int threads, int resume, int *results)
{
    pid_t *pids = calloc((size_t)jobs, sizeof *pids);
    size_t *which = calloc((size_t)jobs, sizeof *which);
    if (!pids || !which) {
        for (size_t k = 0; k < count; ++k)
            results[todo[k]] = JOB_FAILED;
        free(pids);
        free(which);
        return;
    }
    size_t next = 0, running = 0;
    while (next < count || running > 0) {
        while (next < count && running < (size_t)jobs) {
            size_t job = todo[next++];
            char idx[32], thr[32];
            snprintf(idx, sizeof idx, "%zu", job);
            snprintf(thr, sizeof thr, "%d", threads);
            pid_t parent = getpid();
            pid_t pid = fork();
            if (pid == 0) {
                /* The worker dies with the batch: a worker orphaned by kill -9
                 * would otherwise finish later and overwrite the outputs of the
                 * next run with stale results. SIGTERM (not SIGKILL) so its
                 * handler removes the temporaries it has open. The getppid
                 * check closes the race of a parent that died before prctl. */
                prctl(PR_SET_PDEATHSIG, SIGTERM);
                if (getppid() != parent)
                    _exit(127);
                char *argv[] = {"skinfit", "batch", (char *)manifest, "-o", (char *)outdir,
                                "--run-job", idx, "--threads", thr, resume ? "--resume" : NULL, NULL};
                execv("/proc/self/exe", argv);
                _exit(127);
            }
            if (pid < 0) {
                results[job] = JOB_FAILED;
                continue;
            }
            for (int s = 0; s < jobs; ++s)
                if (!pids[s]) {
                    pids[s] = pid;
                    which[s] = job;
                    break;
                }
            ++running;
        }
        int status;
        pid_t done = wait(&status);
        if (done < 0)
            break;
        for (int s = 0; s < jobs; ++s)
            if (pids[s] == done) {
                int code = WIFEXITED(status) ? WEXITSTATUS(status) : JOB_FAILED;
                results[which[s]] = code == JOB_OK || code == JOB_BELOW_QUALITY ? code : JOB_FAILED;
                if (!WIFEXITED(status))
                    fprintf(stderr, "skinfit batch: job %zu: worker killed by signal %d\n", which[s],
                            WIFSIGNALED(status) ? WTERMSIG(status) : 0);
                pids[s] = 0;
                --running;
            }
    }
    free(pids);
    free(which);
}

static json_t *load_json(const char *outdir, const char *name, const char *ext)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s%s", outdir, name, ext);
    json_error_t je;
    return json_load_file(path, 0, &je);
}

/* The quality a job is judged by: rotation-only where only that ran, else free. */
static double clip_quality(json_t *clip, double *max_err)
{
    json_t *run = json_object_get(clip, "free");
    if (!run)
        run = json_object_get(clip, "rotation_only");
    *max_err = json_number_value(json_object_get(run, "max_error_pct"));
    return json_number_value(json_object_get(run, "quality"));
}

/* Summary over the jobs in `members` (manifest order), from their reports. */
static int summarise(const skf_batch *b, const bool *members, const char *outdir, bool write)
{
    json_t *jobs = json_array();
    int worst = JOB_OK;
    size_t ok = 0, failed = 0, gated = 0;
    printf("%-36s %-13s %5s %12s %12s %9s\n", "job", "status", "clips", "quality %", "worst err %",
           "seconds");
    for (size_t i = 0; i < b->job_count; ++i) {
        if (!members[i])
            continue;
        const skf_batch_job *job = &b->jobs[i];
        json_t *e = json_object();
        json_object_set_new(e, "name", json_string(job->name));
        char stamp[65];
        skf_error err;
        json_t *r = NULL;
        if (skf_batch_job_stamp(job, stamp, &err) == SKF_OK &&
            skf_batch_job_is_current(job, outdir, stamp))
            r = load_json(outdir, job->name, ".json");
        if (r) {
            const char *status = json_string_value(json_object_get(r, "status"));
            json_object_set_new(e, "status", json_string(status ? status : "ok"));
            json_t *clips = json_object_get(r, "clips"), *list = json_array();
            double qmin = INFINITY, emax = 0;
            for (size_t c = 0; c < json_array_size(clips); ++c) {
                json_t *clip = json_array_get(clips, c), *o = json_object();
                double me;
                double q = clip_quality(clip, &me);
                qmin = fmin(qmin, q);
                emax = fmax(emax, me);
                json_object_set(o, "name", json_object_get(clip, "name"));
                json_object_set_new(o, "quality", json_real(q));
                json_object_set_new(o, "max_error_pct", json_real(me));
                json_array_append_new(list, o);
            }
            json_object_set_new(e, "clips", list);
            json_object_set(e, "output", json_object_get(json_object_get(r, "output"), "file"));
            json_t *tm = load_json(outdir, job->name, ".timing.json");
            double secs = tm ? json_number_value(json_object_get(tm, "seconds")) : NAN;
            json_decref(tm);
            bool gate = status && !strcmp(status, "below-quality");
            if (gate) {
                ++gated;
                if (worst == JOB_OK)
                    worst = JOB_BELOW_QUALITY;
            } else {
                ++ok;
            }
            printf("%-36.36s %-13s %5zu %12.6f %12.3e %9.2f\n", job->name, gate ? "below-quality" : "ok",
                   json_array_size(clips), 100 * qmin, emax, secs);
            json_decref(r);
        } else {
            json_t *er = load_json(outdir, job->name, ".error.json");
            const char *msg = er ? json_string_value(json_object_get(er, "message")) : NULL;
            json_object_set_new(e, "status", json_string("failed"));
            json_object_set_new(e, "message", json_string(msg ? msg : "no complete output (not run or interrupted)"));
            printf("%-36.36s %-13s %s\n", job->name, "failed", msg ? msg : "no complete output");
            json_decref(er);
            ++failed;
            worst = JOB_FAILED;
        }
        json_array_append_new(jobs, e);
    }
    printf("%zu ok, %zu below quality, %zu failed\n", ok, gated, failed);
    if (write) {
        json_t *root = json_object();
        json_object_set_new(root, "manifest", json_string(b->manifest_path));
        json_object_set_new(root, "jobs", jobs);
        json_object_set_new(root, "ok", json_integer((json_int_t)ok));
        json_object_set_new(root, "below_quality", json_integer((json_int_t)gated));
        json_object_set_new(root, "failed", json_integer((json_int_t)failed));
        char path[4096];
        snprintf(path, sizeof path, "%s/summary.json", outdir);
        char *text = json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
        skf_error err;
        if (!text || skf_write_file_atomic(path, text, strlen(text), &err)) {
            fprintf(stderr, "skinfit: %s: cannot write the summary\n", path);
            worst = JOB_FAILED;
        }
        skf_free(text);
        json_decref(root);
    } else {
        json_decref(jobs);
    }
    return worst;
}

/* One batch per output folder: OUTDIR/.skinfit-batch.lock, held with flock
 * for the whole run (so a dead owner's lock is free: the kernel drops it) and
 * holding the owner's pid for the message. A --shard run holds it shared
 * (shards of one manifest run side by side) plus its own shard's lock
 * exclusively; a whole run holds it exclusively. The fds stay open (and are
 * inherited by the workers, so an orphaned worker still holds the folder).
 * Returns EXIT_OK or EXIT_BAD_INPUT after printing why. */
static int lock_outdir(const char *outdir, size_t shard_k, size_t shard_n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/.skinfit-batch.lock", outdir);
    int fd = open(path, O_RDWR | O_CREAT, 0666);
    if (fd < 0) {
        fprintf(stderr, "skinfit: %s: cannot create the lock file: %s\n", path, strerror(errno));
        return EXIT_BAD_INPUT;
    }
    if (flock(fd, (shard_n ? LOCK_SH : LOCK_EX) | LOCK_NB) != 0) {
        char text[32] = {0};
        ssize_t n = pread(fd, text, sizeof text - 1, 0);
        long owner = n > 0 ? strtol(text, NULL, 10) : 0;
        close(fd);
        if (owner > 0)
            fprintf(stderr, "skinfit: %s: in use by another batch (pid %ld; lock %s)\n", outdir,
                    owner, path);
        else
            fprintf(stderr, "skinfit: %s: in use by another batch (lock %s)\n", outdir, path);
        return EXIT_BAD_INPUT;
    }
    if (!shard_n) {
        char text[32];
        int n = snprintf(text, sizeof text, "%ld\n", (long)getpid());
        if (ftruncate(fd, 0) != 0 || pwrite(fd, text, (size_t)n, 0) != n) {
            fprintf(stderr, "skinfit: %s: cannot write the lock file: %s\n", path, strerror(errno));
            close(fd);
            return EXIT_BAD_INPUT;
        }
        return EXIT_OK;
    }
    snprintf(path, sizeof path, "%s/.skinfit-batch-%zu-of-%zu.lock", outdir, shard_k, shard_n);
    int sfd = open(path, O_RDWR | O_CREAT, 0666);
    if (sfd < 0 || flock(sfd, LOCK_EX | LOCK_NB) != 0) {
        fprintf(stderr, "skinfit: %s: shard %zu/%zu is in use by another batch (lock %s)\n", outdir,
                shard_k, shard_n, path);
        if (sfd >= 0)
            close(sfd);
        close(fd);
        return EXIT_BAD_INPUT;
    }
    return EXIT_OK;
}

/* The job named `name` (a member of this run) whose checkpoint file is
 * `entry` (<name>.clip-<k>.ckpt, batch_checkpoint.c), or SIZE_MAX. */
static size_t checkpoint_owner(const skf_batch *b, const bool *members, const char *entry)
{
    size_t n = strlen(entry);
    if (n < 5 || strcmp(entry + n - 5, ".ckpt") != 0)
        return SIZE_MAX;
    size_t d = n - 5;
    while (d > 0 && entry[d - 1] >= '0' && entry[d - 1] <= '9')
        --d;
    if (d == n - 5 || d < 7 || strncmp(entry + d - 6, ".clip-", 6) != 0)
        return SIZE_MAX;
    size_t name_len = d - 6;
    for (size_t i = 0; i < b->job_count; ++i)
        if (members[i] && strlen(b->jobs[i].name) == name_len &&
            !strncasecmp(b->jobs[i].name, entry, name_len))
            return i;
    return SIZE_MAX;
}

/* No job output may replace a file the batch reads (the manifest, a job's
 * source or target) or the summary: checked by file identity before any
 * job runs. Job names cannot collide with each other's files or the summary
 * (reserved names are refused by the manifest parser, names equal but for
 * case too). The per-clip checkpoints OUTDIR/<name>.clip-<k>.ckpt are outputs
 * as well (written while the job runs, removed when it completes — so an
 * input there would be replaced, then deleted): every file of OUTDIR named
 * like a checkpoint of a job of this run is checked too (a file that does not
 * exist cannot be an input; clip counts are known only once a source loads). */
static int check_outputs(const skf_batch *b, const char *manifest, const char *outdir,
                         const bool *members)
{
    cli_guard g;
    cli_guard_init(&g, "batch");
    cli_guard_input(&g, manifest, "the manifest");
    for (size_t i = 0; i < b->job_count; ++i) {
        char why[256];
        snprintf(why, sizeof why, "jobs[%zu].source", i);
        cli_guard_input(&g, b->jobs[i].source, why);
        snprintf(why, sizeof why, "jobs[%zu].target", i);
        cli_guard_input(&g, b->jobs[i].target, why);
    }
    static const char *const ext[] = {".glb", ".json", ".timing.json", ".error.json"};
    char path[4096];
    int rc = EXIT_OK;
    snprintf(path, sizeof path, "%s/summary.json", outdir);
    rc = cli_guard_check_file(&g, path);
    for (size_t i = 0; !rc && i < b->job_count; ++i)
        for (int e = 0; !rc && members[i] && e < 4; ++e) {
            snprintf(path, sizeof path, "%s/%s%s", outdir, b->jobs[i].name, ext[e]);
            rc = cli_guard_check_file(&g, path);
        }
    DIR *dir = rc ? NULL : opendir(outdir);
    for (struct dirent *de; dir && !rc && (de = readdir(dir));) {
        if (checkpoint_owner(b, members, de->d_name) == SIZE_MAX)
            continue;
        snprintf(path, sizeof path, "%s/%s", outdir, de->d_name);
        rc = cli_guard_check_file(&g, path);
    }
    if (dir)
        closedir(dir);
    cli_guard_release(&g);
    return rc;
}

int cmd_batch(int argc, char **argv)
{
    const char *manifest = NULL, *outdir = NULL;
    int jobs = 1, threads = 0, resume = 0;
    long run_job = -1;
    size_t shard_k = 0, shard_n = 0;
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage, stdout);
#ifdef SKF_HAVE_MPI
            fputs("MPI scale-out: built in\n", stdout);
#else
            fputs("MPI scale-out: not built in\n", stdout);
#endif
            return EXIT_OK;
        } else if (!strcmp(a, "-o") && i + 1 < argc) {
            outdir = argv[++i];
        } else if (!strcmp(a, "--jobs") && i + 1 < argc) {
            jobs = atoi(argv[++i]);
            if (jobs < 1 || jobs > 1024)
                return cli_usage_error("batch", "--jobs takes a number from 1 to 1024");
        } else if (!strcmp(a, "--threads") && i + 1 < argc) {
            threads = atoi(argv[++i]);
            if (threads < 1 || threads > 4096)
                return cli_usage_error("batch", "--threads takes a number from 1 to 4096");
        } else if (!strcmp(a, "--resume")) {
            resume = 1;
        } else if (!strcmp(a, "--shard") && i + 1 < argc) {
            if (sscanf(argv[++i], "%zu/%zu", &shard_k, &shard_n) != 2 || shard_n < 1 ||
                shard_k < 1 || shard_k > shard_n)
                return cli_usage_error("batch", "--shard takes K/N with 1 <= K <= N");
        } else if (!strcmp(a, "--run-job") && i + 1 < argc) {
            run_job = atol(argv[++i]);
        } else if (a[0] == '-') {
            return cli_usage_error("batch", "unknown option '%s'", a);
        } else if (!manifest) {
            manifest = a;
        } else {
            return cli_usage_error("batch", "more than one manifest given");
        }
    }
    if (!manifest || !outdir)
        return cli_usage_error("batch", "needs a manifest and -o OUTDIR");
    skf_batch *b = NULL;
    skf_error err;
    skf_batch_options bo = {.limits = &cli_limits};
    if (skf_batch_load(manifest, &bo, &b, &err))
        return cli_report_error(&err);
    if (threads == 0)
        threads = default_threads(jobs);
    if (run_job >= 0) {
        int r = (size_t)run_job < b->job_count ? batch_run_job(b, (size_t)run_job, outdir, threads, resume)
                                               : JOB_FAILED;
        skf_batch_free(b);
        return r;
    }
    if (cli_mkdir_p(outdir) != 0) {
        fprintf(stderr, "skinfit: %s: cannot create the output folder: %s\n", outdir, strerror(errno));
        skf_batch_free(b);
        return EXIT_BAD_INPUT;
    }

    int locked = batch_mpi_launched() ? EXIT_OK : lock_outdir(outdir, shard_k, shard_n);
    if (locked) {
        skf_batch_free(b);
        return locked;
    }

    /* The jobs this run is responsible for, and which of them to (re)do. */
    bool *members = calloc(b->job_count, sizeof *members);
    size_t *order = calloc(b->job_count, sizeof *order), *todo = calloc(b->job_count, sizeof *todo);
    int *results = calloc(b->job_count, sizeof *results);
    if (!members || !order || !todo || !results) {
        fprintf(stderr, "skinfit: out of memory\n");
        return EXIT_BAD_INPUT;
    }
    for (size_t i = 0; i < b->job_count; ++i)
        members[i] = shard_n == 0 || skf_batch_in_shard(i, shard_k, shard_n);
    int guarded = check_outputs(b, manifest, outdir, members);
    if (guarded) {
        free(members);
        free(order);
        free(todo);
        free(results);
        skf_batch_free(b);
        return guarded;
    }
    skf_batch_order(b, order);
    size_t count = 0, skipped = 0;
    for (size_t k = 0; k < b->job_count; ++k) {
        size_t i = order[k];
        if (!members[i])
            continue;
        char stamp[65];
        if (resume && skf_batch_job_stamp(&b->jobs[i], stamp, &err) == SKF_OK &&
            skf_batch_job_is_current(&b->jobs[i], outdir, stamp)) {
            ++skipped;
            continue;
        }
        todo[count++] = i;
    }
    int is_root = 1;
    if (batch_mpi_launched()) {
        if (batch_mpi_run(b, todo, count, outdir, threads, resume, results, &is_root) < 0) {
            skf_batch_free(b);
            return EXIT_BAD_INPUT;
        }
    } else {
        if (skipped)
            fprintf(stderr, "skinfit batch: %zu job(s) complete and current, skipped\n", skipped);
        run_local(manifest, outdir, todo, count, jobs, threads, resume, results);
    }
    int code = EXIT_OK;
    if (is_root) {
        int worst = summarise(b, members, outdir, shard_n == 0);
        code = worst == JOB_OK ? EXIT_OK : worst == JOB_BELOW_QUALITY ? EXIT_QUALITY : EXIT_BAD_INPUT;
    }
    batch_mpi_finalize();
    free(members);
    free(order);
    free(todo);
    free(results);
    skf_batch_free(b);
    return code;
}
