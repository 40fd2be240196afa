/* The other-shape part of `skinfit transfer` (issue 12): the landmarks file,
 * and the registration line of the summary and section of the JSON report
 * (docs/transfer-report.md "registration"). */
#include "transfer_report.h"

#include <jansson.h>
#include <math.h>
#include <string.h>

/* Reads {"pairs": [{"source": [x,y,z], "target": [x,y,z]} |
 * {"source_vertex": i, "target_vertex": j}, ...]} (rest pose, each rig's
 * solve space; vertex indices of the rig before welding). */
skf_status tr_read_landmarks(const char *path, skf_transfer_landmark **out, size_t *count, skf_error *err)
{
    *out = NULL;
    *count = 0;
    json_error_t je;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        return skf_fail(err, SKF_ERR_FORMAT, "%s: byte offset %d (line %d): %s", path, je.position, je.line, je.text);
    skf_status st = SKF_OK;
    json_t *pairs = json_object_get(root, "pairs");
    if (!json_is_array(pairs) || json_array_size(pairs) == 0) {
        st = skf_fail(err, SKF_ERR_FORMAT, "%s: pairs: missing or not a non-empty array", path);
        goto done;
    }
    size_t n = json_array_size(pairs);
    skf_transfer_landmark *lm = skf_calloc(n, sizeof *lm);
    if (!lm) {
        st = skf_fail(err, SKF_ERR_NOMEM, "%s: out of memory", path);
        goto done;
    }
    for (size_t k = 0; k < n && !st; ++k) {
        json_t *p = json_array_get(pairs, k);
        json_t *sv = json_object_get(p, "source_vertex"), *tv = json_object_get(p, "target_vertex");
        json_t *sp = json_object_get(p, "source"), *tp = json_object_get(p, "target");
        if (sv || tv) {
            if (!json_is_integer(sv) || json_integer_value(sv) < 0) {
                st = skf_fail(err, SKF_ERR_FORMAT, "%s: pairs[%zu].source_vertex: not a vertex index", path, k);
            } else if (!json_is_integer(tv) || json_integer_value(tv) < 0) {
                st = skf_fail(err, SKF_ERR_FORMAT, "%s: pairs[%zu].target_vertex: not a vertex index", path, k);
            } else {
                lm[k].by_vertex = true;
                lm[k].source_vertex = (size_t)json_integer_value(sv);
                lm[k].target_vertex = (size_t)json_integer_value(tv);
            }
            continue;
        }
        json_t *pts[2] = {sp, tp};
        const char *names[2] = {"source", "target"};
        for (int s = 0; s < 2 && !st; ++s) {
            if (!json_is_array(pts[s]) || json_array_size(pts[s]) != 3) {
                st = skf_fail(err, SKF_ERR_FORMAT, "%s: pairs[%zu].%s: not a point [x, y, z] (or give source_vertex "
                                                   "and target_vertex)", path, k, names[s]);
                break;
            }
            for (size_t a = 0; a < 3; ++a) {
                json_t *v = json_array_get(pts[s], a);
                double x = json_number_value(v);
                if (!json_is_number(v) || !isfinite(x)) {
                    st = skf_fail(err, SKF_ERR_FORMAT, "%s: pairs[%zu].%s[%zu]: not a finite number", path, k,
                                  names[s], a);
                    break;
                }
                (s ? lm[k].target_point : lm[k].source_point)[a] = x;
            }
        }
    }
    if (st) {
        skf_free(lm);
        goto done;
    }
    *out = lm;
    *count = n;
done:
    json_decref(root);
    return st;
}

void tr_print_registration(FILE *out, const skf_transfer_info *in)
{
    if (!in->registered)
        return;
    fprintf(out, "registration: non-rigid (%zu nodes, %d iterations), residual %.3f %% -> %.3f %% of the diagonal, "
                 "coverage %.2f %%, carry %s\n",
            in->registration_nodes, in->registration_iterations, 100 * in->residual_before, 100 * in->residual_after,
            100 * in->coverage, in->carry);
    if (in->unmatched_count) {
        fprintf(out, "unmatched: %zu target vertices (%.2f %% of the area), mostly", in->unmatched_count,
                100 * in->unmatched_area);
        for (int k = 0; k < 3 && in->unmatched_bones[k]; ++k)
            fprintf(out, "%s %s %.0f %%", k ? "," : "", in->unmatched_bones[k], 100 * in->unmatched_bone_share[k]);
        fprintf(out, "\n");
    }
    if (in->landmark_count)
        fprintf(out, "landmarks: %zu, RMS %.3f %%, worst %.3f %% of the diagonal\n", in->landmark_count,
                100 * in->landmark_rms, 100 * in->landmark_max);
    if (in->joint_landmarks)
        fprintf(out, "same-named joints: %zu, distance median %.3f %%, worst %.3f %% of the diagonal\n",
                in->joint_landmarks, 100 * in->joint_median, 100 * in->joint_max);
}

json_t *tr_registration_json(const skf_transfer_info *in)
{
    if (!in->registered)
        return json_null();
    json_t *r = json_object();
    json_object_set_new(r, "method", json_string("nicp-embedded-graph"));
    json_object_set_new(r, "carry", json_string(in->carry));
    json_object_set_new(r, "nodes", json_integer((json_int_t)in->registration_nodes));
    json_object_set_new(r, "iterations", json_integer(in->registration_iterations));
    json_object_set_new(r, "residual_before_pct", json_real(100 * in->residual_before));
    json_object_set_new(r, "residual_after_pct", json_real(100 * in->residual_after));
    json_object_set_new(r, "coverage_pct", json_real(100 * in->coverage));
    json_object_set_new(r, "unmatched_vertices", json_integer((json_int_t)in->unmatched_count));
    json_object_set_new(r, "unmatched_area_pct", json_real(100 * in->unmatched_area));
    json_t *bones = json_array();
    for (int k = 0; k < 3 && in->unmatched_bones[k]; ++k) {
        json_t *b = json_object();
        json_object_set_new(b, "joint", json_string(in->unmatched_bones[k]));
        json_object_set_new(b, "share_pct", json_real(100 * in->unmatched_bone_share[k]));
        json_array_append_new(bones, b);
    }
    json_object_set_new(r, "unmatched_bones", bones);
    json_object_set_new(r, "landmarks", json_integer((json_int_t)in->landmark_count));
    json_object_set_new(r, "landmark_rms_pct", json_real(100 * in->landmark_rms));
    json_object_set_new(r, "landmark_max_pct", json_real(100 * in->landmark_max));
    json_object_set_new(r, "joint_pairs", json_integer((json_int_t)in->joint_landmarks));
    json_object_set_new(r, "joint_median_pct", json_real(100 * in->joint_median));
    json_object_set_new(r, "joint_max_pct", json_real(100 * in->joint_max));
    return r;
}
