/* Solved skinning transforms -> local TRS: a hierarchy with a scaled
 * armature (Blender's 0.01: inverse binds carry ×100), a non-joint node
 * between joints, a bind pose different from the rest TRS, and an unweighted
 * joint kept at rest while its child is solved. The conversion must return
 * exactly the locals that produced the transforms; shear in a bind refused. */
#include "check.h"
#include "skinfit/gltf.h"
#include "skinfit/math.h"
#include "skinfit/transfer.h"

static void b64(const unsigned char *in, size_t n, char *out)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)in[i] << 16 | (i + 1 < n ? (unsigned)in[i + 1] << 8 : 0) | (i + 2 < n ? in[i + 2] : 0);
        out[o++] = tab[v >> 18 & 63];
        out[o++] = tab[v >> 12 & 63];
        out[o++] = i + 1 < n ? tab[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? tab[v & 63] : '=';
    }
    out[o] = 0;
}

/* nodes: 0 Armature (rot, scale 0.01) -> 1 root(J0) -> 2 helper (non-joint)
 * -> 3 bone(J1) -> 4 unweighted(J2) -> 5 leaf(J3) */
static const int parent[6] = {-1, 0, 1, 2, 3, 4};
static const int joint_node[4] = {1, 3, 4, 5};

static void local_of(const double *trs, double m[16])
{
    skf_mat4_from_trs(m, trs, trs + 3, trs + 7);
}

static void worlds(const double locals[6][10], double w[6][16])
{
    for (int n = 0; n < 6; ++n) {
        double l[16];
        local_of(locals[n], l);
        if (parent[n] < 0)
            memcpy(w[n], l, sizeof l);
        else
            skf_mat4_mul(w[n], w[parent[n]], l);
    }
}

static skf_gltf *make_doc(const double rest[6][10], const double ibm[4][16], skf_error *err)
{
    float f[64];
    for (int i = 0; i < 64; ++i)
        f[i] = (float)ibm[i / 16][i % 16];
    /* exactness needs doubles: keep the ibm values float-representable by
     * building them from float-rounded matrices (see main) */
    char b[400];
    b64((const unsigned char *)f, sizeof f, b);
    static char json[8192];
    int o = snprintf(json, sizeof json, "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0]}],\"nodes\":[");
    const char *names[6] = {"Armature", "root", "helper", "bone", "unweighted", "leaf"};
    for (int n = 0; n < 6; ++n) {
        o += snprintf(json + o, sizeof json - (size_t)o,
                      "%s{\"name\":\"%s\",\"translation\":[%.17g,%.17g,%.17g],\"rotation\":[%.17g,%.17g,%.17g,%.17g],"
                      "\"scale\":[%.17g,%.17g,%.17g]%s}",
                      n ? "," : "", names[n], rest[n][0], rest[n][1], rest[n][2], rest[n][3], rest[n][4], rest[n][5],
                      rest[n][6], rest[n][7], rest[n][8], rest[n][9], n < 5 ? "" : "");
        if (n < 5) {
            json[o - 1] = 0;
            o -= 1;
            o += snprintf(json + o, sizeof json - (size_t)o, ",\"children\":[%d]}", n + 1);
        }
    }
    o += snprintf(json + o, sizeof json - (size_t)o,
                  "],\"skins\":[{\"joints\":[1,3,4,5],\"inverseBindMatrices\":0}],"
                  "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":4,\"type\":\"MAT4\"}],"
                  "\"bufferViews\":[{\"buffer\":0,\"byteLength\":256}],"
                  "\"buffers\":[{\"byteLength\":256,\"uri\":\"data:application/octet-stream;base64,%s\"}]}",
                  b);
    skf_gltf *doc = NULL;
    if (skf_gltf_load_memory(json, (size_t)o, "trs.gltf", NULL, &doc, NULL, err) != SKF_OK)
        return NULL;
    return doc;
}

static void rnd_trs(double *trs, unsigned *seed, double scale)
{
    for (int k = 0; k < 3; ++k)
        trs[k] = ((*seed = *seed * 1103515245u + 12345u) >> 8 & 1023) / 512.0 - 1;
    for (int k = 0; k < 4; ++k)
        trs[3 + k] = ((*seed = *seed * 1103515245u + 12345u) >> 8 & 1023) / 512.0 - 1;
    skf_quat_normalize(trs + 3);
    if (trs[6] < 0)
        for (int k = 3; k < 7; ++k)
            trs[k] = -trs[k];
    trs[7] = trs[8] = trs[9] = scale;
}

int main(void)
{
    unsigned seed = 7;
    double rest[6][10], bind_local[6][10];
    for (int n = 0; n < 6; ++n) {
        rnd_trs(rest[n], &seed, 1);
        memcpy(bind_local[n], rest[n], sizeof rest[n]);
    }
    rest[0][7] = rest[0][8] = rest[0][9] = 0.01; /* Blender armature */
    memcpy(bind_local[0], rest[0], sizeof rest[0]);
    for (int n = 1; n < 6; ++n)
        if (n != 2)
            rnd_trs(bind_local[n], &seed, 1); /* bind pose != rest TRS, helper stays */
    double bw[6][16], ibm[4][16];
    worlds(bind_local, bw);
    for (int j = 0; j < 4; ++j) {
        skf_mat4_invert(ibm[j], bw[joint_node[j]]);
        for (int k = 0; k < 16; ++k)
            ibm[j][k] = (float)ibm[j][k]; /* what the file stores */
    }
    skf_error err;
    skf_gltf *doc = make_doc(rest, ibm, &err);
    CHECK_MSG(doc != NULL, "%s", err.message);
    if (!doc)
        return skf_test_done();
    skf_trs_converter cv;
    CHECK_MSG(skf_trs_converter_init(&cv, doc, 0, &err) == SKF_OK, "%s", err.message);

    double worst = 0, worst_rest = 0;
    for (int frame = 0; frame < 20; ++frame) {
        /* a pose: random locals for the solved joints, rest for the rest */
        double pose[6][10];
        memcpy(pose, rest, sizeof pose);
        for (int j = 0; j < 4; ++j)
            if (j != 2)
                rnd_trs(pose[joint_node[j]], &seed, 1);
        double pw[6][16];
        worlds(pose, pw);
        double T[4 * 16];
        for (int j = 0; j < 4; ++j) {
            double ib[16];
            for (int k = 0; k < 16; ++k)
                ib[k] = (float)ibm[j][k];
            skf_mat4_mul(T + 16 * j, pw[joint_node[j]], ib);
        }
        bool solved[4] = {true, true, false, true};
        double t[12], r[16], s[12];
        CHECK_MSG(skf_trs_convert(&cv, T, solved, NULL, t, r, s, frame, &err) == SKF_OK, "%s", err.message);
        for (int j = 0; j < 4; ++j) {
            const double *want = pose[joint_node[j]];
            double d = 0;
            for (int k = 0; k < 3; ++k)
                d = fmax(d, fmax(fabs(t[3 * j + k] - want[k]), fabs(s[3 * j + k] - want[7 + k])));
            double dot = 0;
            for (int k = 0; k < 4; ++k)
                dot += r[4 * j + k] * want[3 + k];
            d = fmax(d, 1 - fabs(dot));
            if (j == 2)
                worst_rest = fmax(worst_rest, d);
            else
                worst = fmax(worst, d);
        }
        /* round trip: joint worlds from the TRS equal the posed worlds */
        double jw[64];
        skf_trs_joint_worlds(&cv, t, r, s, jw);
        double dw = 0;
        for (int j = 0; j < 4; ++j)
            for (int k = 0; k < 16; ++k)
                dw = fmax(dw, fabs(jw[16 * j + k] - pw[joint_node[j]][k]));
        CHECK(dw < 1e-9);
    }
    printf("solved joints: max TRS error %.3g; unweighted joint kept at rest: %.3g\n", worst, worst_rest);
    CHECK(worst < 1e-10);
    CHECK(worst_rest < 1e-15);
    skf_trs_converter_release(&cv);
    skf_gltf_free(doc);

    /* shear in a bind matrix: refused, naming the joint */
    ibm[1][4] += 0.3 * fabs(ibm[1][5]) + 0.3 * fabs(ibm[1][6]) + 30; /* column 1 gets an x component: shear */
    doc = make_doc(rest, ibm, &err);
    CHECK(doc != NULL);
    if (doc) {
        skf_status st = skf_trs_converter_init(&cv, doc, 0, &err);
        printf("shear: %s\n", err.message);
        CHECK(st == SKF_ERR_NUMERIC);
        CHECK(strstr(err.message, "bone") && strstr(err.message, "shear"));
        skf_gltf_free(doc);
    }
    return skf_test_done();
}
