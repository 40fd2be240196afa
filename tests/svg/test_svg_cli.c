/* skinfit svg end to end: every output format, and bad input (acceptance 5 of
 * issue 5): no skeleton group, missing joints (every one named), malformed
 * path data (element id and character offset), malformed keypoint JSON
 * (frame index and field) -> exit 1, the message, and no output. */
#include "skinfit/image.h"
#include "svg_test_util.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[512];
static const char *bin;

static int run(const char *args, char *errbuf, size_t errcap)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "%s svg %s 2> %s/stderr.txt", bin, args, dir);
    int rc = system(cmd);
    rc = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
    char p[600];
    snprintf(p, sizeof p, "%s/stderr.txt", dir);
    FILE *f = fopen(p, "rb");
    size_t n = f ? fread(errbuf, 1, errcap - 1, f) : 0;
    errbuf[n] = 0;
    if (f)
        fclose(f);
    printf("$ skinfit svg %s\n  -> exit %d: %s", args, rc, errbuf);
    return rc;
}

static bool exists(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0;
}

static char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = 0;
    fclose(f);
    if (size)
        *size = got;
    return s;
}

static void spit(const char *name, const char *text)
{
    char p[600];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    fputs(text, f);
    fclose(f);
}

/* replace the first occurrence of a by b (b may be longer) */
static char *replace(const char *s, const char *a, const char *b)
{
    const char *at = strstr(s, a);
    if (!at)
        return NULL;
    size_t n = strlen(s) + strlen(b) + 1;
    char *o = malloc(n);
    size_t pre = (size_t)(at - s);
    memcpy(o, s, pre);
    strcpy(o + pre, b);
    strcat(o, at + strlen(a));
    return o;
}

/* PoseNet + FaceMesh frames from the rest pose, the left arm raised by
 * angle_deg[i] degrees in frame i; frame bad_frame gets a string score. */
static void write_poses(const skf_svg_character *c, const char *name, const double *angle_deg,
                        int frames, int bad_frame)
{
    static const char *const coco[17] = {"nose", "leftEye", "rightEye", "leftEar", "rightEar",
                                         "leftShoulder", "rightShoulder", "leftElbow",
                                         "rightElbow", "leftWrist", "rightWrist", "leftHip",
                                         "rightHip", "leftKnee", "rightKnee", "leftAnkle",
                                         "rightAnkle"};
    size_t cap = 1 << 20, n = 0;
    char *s = malloc(cap);
    n += (size_t)snprintf(s + n, cap - n, "{\"fps\": 10, \"frames\": [");
    for (int i = 0; i < frames; ++i) {
        skf_svg_pose_frame f;
        svgt_rest_frame(c, &f);
        int ls = skf_svg_joint_index("leftShoulder");
        double th = -angle_deg[i] * M_PI / 180, co = cos(th), si = sin(th);
        for (int j = 3; j <= 4; ++j) { /* leftWrist, leftElbow */
            double x = f.xy[j][0] - f.xy[ls][0], y = f.xy[j][1] - f.xy[ls][1];
            f.xy[j][0] = f.xy[ls][0] + co * x - si * y;
            f.xy[j][1] = f.xy[ls][1] + si * x + co * y;
        }
        n += (size_t)snprintf(s + n, cap - n, "%s{\"pose\": {\"score\": 0.9, \"keypoints\": [", i ? "," : "");
        for (int k = 0; k < 17; ++k) {
            int j = skf_svg_joint_index(coco[k]);
            double x = j >= 0 ? f.xy[j][0] : 500, y = j >= 0 ? f.xy[j][1] : 150;
            if (i == bad_frame && k == 9)
                n += (size_t)snprintf(s + n, cap - n, "%s{\"part\": \"%s\", \"score\": \"0.9\", \"position\": {\"x\": %.17g, \"y\": %.17g}}",
                                      k ? "," : "", coco[k], x, y);
            else
                n += (size_t)snprintf(s + n, cap - n, "%s{\"part\": \"%s\", \"score\": 0.9, \"position\": {\"x\": %.17g, \"y\": %.17g}}",
                                      k ? "," : "", coco[k], x, y);
        }
        n += (size_t)snprintf(s + n, cap - n, "]}, \"face\": {\"faceInViewConfidence\": 0.95, \"scaledMesh\": [");
        double mesh[468][2] = {{0}};
        for (int k = 0; k < SKF_SVG_FACE_JOINT_COUNT; ++k) {
            int mi = skf_svg_joint_facemesh_index(SKF_SVG_POSE_JOINT_COUNT + k);
            mesh[mi][0] = f.face_xy[k][0];
            mesh[mi][1] = f.face_xy[k][1];
        }
        for (int k = 0; k < 468; ++k)
            n += (size_t)snprintf(s + n, cap - n, "%s[%.17g, %.17g, 0]", k ? "," : "", mesh[k][0], mesh[k][1]);
        n += (size_t)snprintf(s + n, cap - n, "]}}");
    }
    snprintf(s + n, cap - n, "]}");
    spit(name, s);
    free(s);
}

int main(void)
{
    bin = getenv("SKF_BIN");
    if (!bin)
        SKF_SKIP("SKF_BIN not set (run under ctest)");
    const char *boy = skf_test_data("poseanimator/boy.svg");
    if (!boy)
        SKF_SKIP("poseanimator/boy.svg not found under %s", skf_test_data_dir());
    const char *base = getenv("SKF_BUILD_DIR");
    snprintf(dir, sizeof dir, "%s/svg-cli-XXXXXX", base ? base : "/tmp");
    if (!mkdtemp(dir))
        SKF_SKIP("cannot create a temporary folder");
    skf_svg_character *c = svgt_load("poseanimator/boy.svg");
    double angles[3] = {0, 30, 60};
    write_poses(c, "poses.json", angles, 3, -1);
    write_poses(c, "bad_poses.json", angles, 3, 1);
    char err[4096], args[4096];

    /* every format */
    snprintf(args, sizeof args, "%s --pose %s/poses.json -o %s/anim.svg", boy, dir, dir);
    CHECK(run(args, err, sizeof err) == 0);
    snprintf(args, sizeof args, "%s/anim.svg", dir);
    size_t size = 0;
    char *anim = slurp(args, &size);
    CHECK(anim && strstr(anim, "<animate") && strstr(anim, "keyTimes=\"0;0.3333333333;0.6666666667\""));
    CHECK(anim && strstr(anim, "dur=\"0.3s\""));
    free(anim);
    snprintf(args, sizeof args, "%s --pose %s/poses.json -o %s/frames", boy, dir, dir);
    CHECK(run(args, err, sizeof err) == 0);
    snprintf(args, sizeof args, "%s/frames/frame_00002.svg", dir);
    CHECK(exists(args));
    snprintf(args, sizeof args, "%s --pose %s/poses.json --format png --size 200x200 -o %s/png", boy, dir, dir);
    CHECK(run(args, err, sizeof err) == 0);
    snprintf(args, sizeof args, "%s/png/frame_00001.png", dir);
    skf_image img = {0};
    skf_error e = {0};
    CHECK(skf_png_read(args, &img, &e) == SKF_OK && img.width == 200 && img.height == 200);
    skf_image_release(&img);
    snprintf(args, sizeof args, "%s --pose %s/poses.json --size 120x120 --fps 5 -o %s/anim.gif", boy, dir, dir);
    CHECK(run(args, err, sizeof err) == 0);
    skf_gif_info gi = {0};
    snprintf(args, sizeof args, "%s/anim.gif", dir);
    CHECK(skf_gif_read(args, &gi, &e) == SKF_OK);
    CHECK(gi.frame_count == 3 && gi.delay_cs && gi.delay_cs[0] == 20);
    if (gi.frame_count == 3) /* the arm moved between frames 0 and 2 */
        CHECK(memcmp(gi.frames[0].pixels, gi.frames[2].pixels, 120 * 120 * 4) != 0);
    skf_gif_info_release(&gi);

    /* usage errors: exit 2 */
    snprintf(args, sizeof args, "%s -o %s/x.svg", boy, dir);
    CHECK(run(args, err, sizeof err) == 2);
    snprintf(args, sizeof args, "%s --pose %s/poses.json -o %s/x.svg --format webm", boy, dir, dir);
    CHECK(run(args, err, sizeof err) == 2);

    /* bad inputs: exit 1, message, no output */
    char *text = slurp(boy, NULL);
    char *noskel = replace(text, "id=\"skeleton_1_\"", "id=\"bones_1_\"");
    spit("noskel.svg", noskel);
    snprintf(args, sizeof args, "%s/noskel.svg --pose %s/poses.json -o %s/out1.svg", dir, dir, dir);
    CHECK(run(args, err, sizeof err) == 1);
    CHECK(strstr(err, "noskel.svg: no skeleton: no <g> whose id starts with 'skeleton'") != NULL);
    snprintf(args, sizeof args, "%s/out1.svg", dir);
    CHECK(!exists(args));

    char *m1 = replace(text, "id=\"leftWrist\"", "id=\"leftHand\"");
    char *m2 = replace(m1, "id=\"nose2\"", "id=\"nostril\"");
    spit("missing.svg", m2);
    snprintf(args, sizeof args, "%s/missing.svg --pose %s/poses.json -o %s/out2", dir, dir, dir);
    CHECK(run(args, err, sizeof err) == 1);
    CHECK(strstr(err, "missing.svg: g#skeleton_1_: 2 joint markers missing: leftWrist, nose2") != NULL);
    snprintf(args, sizeof args, "%s/out2", dir);
    CHECK(!exists(args));

    char *badd = replace(text, "<path style=\"fill:#60504B;\" d=\"M523.3,868v46.8",
                         "<path id=\"shoe\" style=\"fill:#60504B;\" d=\"M523.3,868v4x6.8");
    spit("badpath.svg", badd);
    snprintf(args, sizeof args, "%s/badpath.svg --pose %s/poses.json -o %s/out3.gif", dir, dir, dir);
    CHECK(run(args, err, sizeof err) == 1);
    CHECK(strstr(err, "badpath.svg: path#shoe: d: character 12: expected a command letter or number") != NULL);
    snprintf(args, sizeof args, "%s/out3.gif", dir);
    CHECK(!exists(args));

    snprintf(args, sizeof args, "%s --pose %s/bad_poses.json -o %s/out4.svg", boy, dir, dir);
    CHECK(run(args, err, sizeof err) == 1);
    CHECK(strstr(err, "bad_poses.json: frames[1].pose.keypoints[9].score: expected a number") != NULL);
    snprintf(args, sizeof args, "%s/out4.svg", dir);
    CHECK(!exists(args));

    /* never overwrite an input */
    snprintf(args, sizeof args, "%s --pose %s/poses.json -o %s", boy, dir, boy);
    CHECK(run(args, err, sizeof err) == 1);

    free(text);
    free(noskel);
    free(m1);
    free(m2);
    free(badd);
    skf_svg_free(c);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        printf("could not remove %s\n", dir);
    return skf_test_done();
}
