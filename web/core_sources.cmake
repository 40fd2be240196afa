# The sources of the WebAssembly core (web/CMakeLists.txt) and its exported entry points.
# Kept in one list so tests/web/ can build the same glue natively (tests/web/CMakeLists.txt).
set(SKF_WEB_CORE_SOURCES
  ${ROOT}/src/base/alloc.c ${ROOT}/src/base/error.c ${ROOT}/src/base/limits.c ${ROOT}/src/base/math.c
  ${ROOT}/src/base/jacobi4.c ${ROOT}/src/base/cholesky.c ${ROOT}/src/base/svd3.c
  ${ROOT}/src/io/gltf_accessor.c ${ROOT}/src/io/gltf_query.c ${ROOT}/src/io/meshseq.c
  ${ROOT}/src/rig/rig.c ${ROOT}/src/rig/model.c ${ROOT}/src/rig/weld.c ${ROOT}/src/rig/clip.c
  ${ROOT}/src/rig/clip_gltf.c ${ROOT}/src/rig/skin.c ${ROOT}/src/rig/autoweights.c
  ${ROOT}/src/solve/affine_init.c ${ROOT}/src/solve/blockchol.c ${ROOT}/src/solve/bone_sweep.c ${ROOT}/src/solve/envelope.c
  ${ROOT}/src/solve/horn.c
  ${ROOT}/src/solve/moments.c ${ROOT}/src/solve/newton.c ${ROOT}/src/solve/quality.c
  ${ROOT}/src/solve/rotation_only.c ${ROOT}/src/solve/solver.c
  ${ROOT}/src/surface/align.c ${ROOT}/src/surface/bvh.c ${ROOT}/src/surface/correspond.c
  ${ROOT}/src/surface/mesh_util.c
  ${ROOT}/src/transfer/transfer.c ${ROOT}/src/transfer/to_trs.c
  ${ROOT}/src/render/colormap.c ${ROOT}/src/report/heatmap.c
  ${ROOT}/src/base/strbuf.c
  ${ROOT}/src/svg/load.c ${ROOT}/src/svg/shapes.c ${ROOT}/src/svg/geom.c ${ROOT}/src/svg/path_data.c
  ${ROOT}/src/svg/transform.c ${ROOT}/src/svg/rig_tables.c ${ROOT}/src/svg/bind.c ${ROOT}/src/svg/deform.c
  ${ROOT}/src/svg/animator.c ${ROOT}/src/svg/path_write.c
  ${ROOT}/web/src/skfw.c ${ROOT}/web/src/skfw_svg.c ${ROOT}/web/src/no_register.c)
set(SKF_WEB_EXPORTS _malloc _free)
foreach(f error_text alloc free doc_new doc_free doc_buffer doc_view doc_accessor doc_sparse doc_node
    doc_mesh doc_primitive doc_skin doc_animation doc_finish transfer result_free result_figures
    result_frame_series result_info result_clip_name result_transforms result_trs result_animated
    scene_new scene_free scene_add scene_frames scene_rigs
    scene_vertex_count scene_triangle_count scene_triangles scene_positions scene_errors
    scene_diagonal error_bins colormap_color colormap_bins
    svg_load svg_free svg_row svg_frame_size svg_path_count svg_path_element svg_path_nodes svg_hidden_count
    svg_hidden svg_canvas svg_rest_joint svg_warning_count svg_warning svg_animator_new svg_animator_free
    svg_update svg_frame_data svg_visible svg_confidence svg_joint svg_joint_name svg_joint_facemesh)
  list(APPEND SKF_WEB_EXPORTS _skfw_${f})
endforeach()
