/* skinfit.js — the JavaScript API of skinfit's WebAssembly core (build: scripts/web.sh →
 * web/build/skinfit_core.js, the .wasm embedded in it).
 *
 * Works as a classic script (browser page or Web Worker: `importScripts('skinfit_core.js',
 * 'skinfit.js')`, then `Skinfit.load()`) and under Node (`require('./skinfit.js')`).
 *
 *   const core = await Skinfit.load();            // instantiates the module
 *   const src = core.parseGlb(bytes, 'Horse.glb'); // Uint8Array of a .glb (or .gltf with data: URIs)
 *   const tgt = core.parseGlb(bytes2, 'Horse_aw.glb');
 *   const r = core.transfer(src, tgt, 'Walk', {mode: 'both', onProgress: (f, what) => {}});
 *   r.figures('free')      // {quality, mean_error_pct, max_error_pct, ...} as the CLI report
 *   r.frameSeries('free', 'max')   // Float64Array [frames], a copy
 *   const scene = core.scene(r); scene.add('control', r, 'control'); scene.add('autoweights', r, 'free');
 *   scene.positions(panel, frame)  // Float64Array VIEW into the module's memory [N*3]
 *   scene.errors(rig, frame)       // Float64Array VIEW [N]: the transfer's own per-vertex errors
 *   scene.bins(rig, frame)         // Int32Array copy [N]: colour-map bins of those errors
 *
 * Arrays in: typed arrays, copied into the module once per call. Arrays out: `*View` results and
 * positions()/errors()/triangles() are views into the module's memory, not copies: they stay
 * valid until the next call that allocates in the module (parseGlb, transfer, scene, scene.add), after
 * which the memory may have grown and the view is detached — read or copy them first. Everything
 * else returned is a copy. Handles (Doc, Result, Scene) own C memory: call .free().
 * Units, spaces, layouts: as the C headers (include/skinfit/transfer.h, render.h): scene units,
 * column-major matrices, 3x4 transforms per joint [frames*joints*12].
 *
 * The SVG character (Pose Animator; include/skinfit/svg.h, web/pose/):
 *   const elems = Skinfit.svgElements(svgRootElement); // the DOM as [{name, parent, attrs}] (pre-order)
 *   const ch = core.svgCharacter(elems, 'boy.svg');     // the library's loader: conventions, binding
 *   ch.pathCount, ch.pathElement(i) (index into elems), ch.hidden() (elements drawn display="none"),
 *   ch.width, ch.height (root space), ch.restJoint(j) -> [x, y] | null, ch.warnings, ch.jointNames
 *   const an = ch.animator({noSmoothing: false, minPathConfidence: 0.3});
 *   an.update(frame)   // frame: {poseScore, xy: 14 [x, y], score: 14, face: null | {score, xy: 73 [x, y]}}
 *                      // root space; -> 'drawn' | 'skipped' (pose score < 0.1: drawing kept)
 *   an.pathData()      // Array of every path's "d" (element space, the CLI's number format): copies
 *   an.visible(i)      // false: the path's confidence is below the threshold (drawn display="none")
 * The frame is copied into the module once per update (191 doubles); pathData() decodes the module's
 * one buffer of all paths' data (one TextDecoder call per frame). Handles own C memory: .free().
 */
(function (root) {
  'use strict';

  const RUNS = {control: 0, free: 1, 'rotation-only': 2, rotation_only: 2};
  const MODES = {free: 1, 'rotation-only': 2, both: 3};
  const PATHS = {translation: 0, rotation: 1, scale: 2, weights: 3};
  const INTERP = {LINEAR: 0, STEP: 1, CUBICSPLINE: 2};

  function parseContainer(bytes, name) {
    const u8 = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
    const dv = new DataView(u8.buffer, u8.byteOffset, u8.byteLength);
    if (u8.length >= 12 && dv.getUint32(0, true) === 0x46546c67) {
      const version = dv.getUint32(4, true), length = dv.getUint32(8, true);
      if (version !== 2) throw new Error(`${name}: GLB version ${version} (need 2)`);
      if (length > u8.length) throw new Error(`${name}: byte 8: GLB length ${length} past the end (${u8.length} bytes)`);
      let off = 12, json = null, bin = null;
      while (off + 8 <= length) {
        const clen = dv.getUint32(off, true), type = dv.getUint32(off + 4, true);
        if (off + 8 + clen > length) throw new Error(`${name}: byte ${off}: chunk of ${clen} bytes past the end`);
        const body = u8.subarray(off + 8, off + 8 + clen);
        if (type === 0x4e4f534a && json === null) json = JSON.parse(new TextDecoder().decode(body));
        else if (type === 0x004e4942 && bin === null) bin = body;
        off += 8 + clen + ((4 - (clen % 4)) % 4);
      }
      if (json === null) throw new Error(`${name}: GLB without a JSON chunk`);
      return {json, bin};
    }
    return {json: JSON.parse(new TextDecoder().decode(u8)), bin: null};
  }

  function decodeDataUri(uri, name, i) {
    const m = /^data:[^,]*;base64,(.*)$/s.exec(uri);
    if (!m) throw new Error(`${name}: buffers[${i}].uri: external files are not supported in the browser (embed them: .glb)`);
    if (typeof atob === 'function') {
      const s = atob(m[1]);
      const out = new Uint8Array(s.length);
      for (let k = 0; k < s.length; ++k) out[k] = s.charCodeAt(k);
      return out;
    }
    return new Uint8Array(Buffer.from(m[1], 'base64'));
  }

  /* a JSON number array of length n (n = 0: any length), or an Error naming the place */
  function nums(v, n, place, name) {
    if (v === undefined) return undefined;
    if (!Array.isArray(v) || (n && v.length !== n) || !v.every((x) => typeof x === 'number' && Number.isFinite(x)))
      throw new Error(`${name}: ${place}: expected ${n ? n + ' ' : ''}finite numbers`);
    return v;
  }

  class Core {
    constructor(m) {
      this.m = m;
      this.colors = [];
      const nb = m._skfw_colormap_bins();
      for (let b = 0; b < nb; ++b) {
        const c = m._skfw_colormap_color(b) >>> 0;
        this.colors.push([(c >>> 24) & 255, (c >>> 16) & 255, (c >>> 8) & 255]);
      }
    }
    /* scratch allocation helpers: every pointer made here is freed by the caller's `done` */
    _str(s, keep) { if (s == null) return 0; const n = this.m.lengthBytesUTF8(s) + 1; const p = this.m._malloc(n); this.m.stringToUTF8(s, p, n); keep.push(p); return p; }
    _i32(a, keep) { if (!a || !a.length) return 0; const p = this.m._malloc(a.length * 4); this.m.HEAP32.set(a, p >> 2); keep.push(p); return p; }
    _f64(a, keep) { if (!a || !a.length) return 0; const p = this.m._malloc(a.length * 8); this.m.HEAPF64.set(a, p >> 3); keep.push(p); return p; }
    _check(rc) { if (rc !== 0) throw new Error(this.m.UTF8ToString(this.m._skfw_error_text())); }
    _f64view(p, n) { return new Float64Array(this.m.HEAPF64.buffer, p, n); }

    /* A glTF document (GLB bytes, or .gltf text with data: URIs) as a Doc handle. */
    parseGlb(bytes, name = 'web.glb') {
      const {json: j, bin} = parseContainer(bytes, name);
      const m = this.m, keep = [];
      const arr = (k) => (Array.isArray(j[k]) ? j[k] : []);
      const buffers = arr('buffers'), views = arr('bufferViews'), accessors = arr('accessors');
      const nodes = arr('nodes'), meshes = arr('meshes'), skins = arr('skins'), anims = arr('animations');
      const doc = m._skfw_doc_new(this._str(name, keep), buffers.length, views.length, accessors.length,
        nodes.length, meshes.length, skins.length, anims.length);
      const free = () => keep.forEach((p) => m._free(p));
      if (!doc) { free(); this._check(1); }
      try {
        buffers.forEach((b, i) => {
          let data = b.uri === undefined ? bin : decodeDataUri(b.uri, name, i);
          if (!data) throw new Error(`${name}: buffers[${i}]: no GLB BIN chunk`);
          const size = Math.min(data.length, b.byteLength >>> 0);
          if (size < (b.byteLength >>> 0)) throw new Error(`${name}: buffers[${i}].byteLength: ${b.byteLength} above the ${data.length} bytes present`);
          const p = m._skfw_alloc(size);
          m.HEAPU8.set(data.subarray(0, size), p);
          this._check(m._skfw_doc_buffer(doc, i, p, size));
        });
        views.forEach((v, i) => this._check(m._skfw_doc_view(doc, i, v.buffer ?? -1, v.byteOffset ?? 0, v.byteLength ?? 0, v.byteStride ?? 0)));
        accessors.forEach((a, i) => {
          this._check(m._skfw_doc_accessor(doc, i, a.bufferView ?? -1, a.byteOffset ?? 0, a.componentType ?? 0,
            a.normalized ? 1 : 0, a.count ?? 0, this._str(String(a.type ?? ''), keep)));
          const s = a.sparse;
          if (s) this._check(m._skfw_doc_sparse(doc, i, s.count ?? 0, s.indices?.bufferView ?? -1, s.indices?.byteOffset ?? 0,
            s.indices?.componentType ?? 0, s.values?.bufferView ?? -1, s.values?.byteOffset ?? 0));
        });
        meshes.forEach((me, i) => {
          const prims = Array.isArray(me.primitives) ? me.primitives : [];
          nums(me.weights, 0, `meshes[${i}].weights`, name);
          this._check(m._skfw_doc_mesh(doc, i, this._str(me.name ?? null, keep), prims.length, this._f64(me.weights, keep), (me.weights || []).length));
          prims.forEach((pr, p) => {
            const names = Object.keys(pr.attributes || {});
            const accs = names.map((k) => pr.attributes[k]);
            const targets = (pr.targets || []).flatMap((t) => [t.POSITION ?? -1, t.NORMAL ?? -1, t.TANGENT ?? -1]);
            this._check(m._skfw_doc_primitive(doc, i, p, pr.indices ?? -1, pr.mode ?? 4, this._str(names.join('\n'), keep),
              this._i32(accs, keep), accs.length, this._i32(targets, keep), (pr.targets || []).length));
          });
        });
        nodes.forEach((n, i) => {
          const pl = `nodes[${i}]`;
          nums(n.matrix, 16, pl + '.matrix', name);
          nums(n.weights, 0, pl + '.weights', name);
          const trs = [...(nums(n.translation, 3, pl + '.translation', name) ?? [0, 0, 0]),
            ...(nums(n.rotation, 4, pl + '.rotation', name) ?? [0, 0, 0, 1]), ...(nums(n.scale, 3, pl + '.scale', name) ?? [1, 1, 1])];
          this._check(m._skfw_doc_node(doc, i, this._str(n.name ?? null, keep), n.mesh ?? -1, n.skin ?? -1,
            this._f64(trs, keep), n.matrix ? this._f64(n.matrix, keep) : 0, this._i32(n.children, keep),
            (n.children || []).length, this._f64(n.weights, keep), (n.weights || []).length));
        });
        skins.forEach((s, i) => this._check(m._skfw_doc_skin(doc, i, this._str(s.name ?? null, keep), this._i32(s.joints, keep),
          (s.joints || []).length, s.inverseBindMatrices ?? -1, s.skeleton ?? -1)));
        anims.forEach((a, i) => {
          const samplers = (a.samplers || []).flatMap((s) => [s.input ?? -1, s.output ?? -1, INTERP[s.interpolation ?? 'LINEAR'] ?? -1]);
          const channels = (a.channels || []).flatMap((c) => {
            const p = PATHS[c.target?.path];
            return p === undefined ? [c.sampler ?? -1, -1, 0] : [c.sampler ?? -1, c.target?.node ?? -1, p];
          });
          this._check(m._skfw_doc_animation(doc, i, this._str(a.name ?? null, keep), this._i32(samplers, keep),
            (a.samplers || []).length, this._i32(channels, keep), (a.channels || []).length));
        });
        this._check(m._skfw_doc_finish(doc));
      } catch (e) {
        m._skfw_doc_free(doc);
        free();
        throw e;
      }
      free();
      return new Doc(this, doc, j);
    }

    /* Transfer one clip source → target (target null: control only). opts.mode 'free' |
     * 'rotation-only' | 'both' (default 'free'); opts.maxConstraints (0 = all); opts.onProgress(f, what). */
    transfer(source, target, clip, opts = {}) {
      const m = this.m, keep = [];
      let fp = 0;
      if (opts.onProgress) fp = m.addFunction((f, w) => (opts.onProgress(f, m.UTF8ToString(w)) ? 1 : 0), 'idi');
      const r = m._skfw_transfer(source.ptr, target ? target.ptr : 0, this._str(clip, keep), MODES[opts.mode ?? 'free'] ?? 1,
        opts.maxConstraints ?? 0, fp);
      keep.forEach((p) => m._free(p));
      if (fp) m.removeFunction(fp);
      if (!r) this._check(1);
      return new Result(this, r, target);
    }

    /* The heat-map scene of a transfer result's clip (panel 0 = the ground truth); add runs of
     * this or other results of the same source and clip with scene.add(). */
    scene(result) {
      const s = this.m._skfw_scene_new(result.ptr);
      if (!s) this._check(1);
      return new Scene(this, s);
    }
  }

  const SVG_ATTRS = ['id', 'transform', 'd', 'x', 'y', 'width', 'height', 'rx', 'ry', 'cx', 'cy', 'r',
    'x1', 'y1', 'x2', 'y2', 'points', 'viewBox'];

  /* The element list of an SVG DOM (root = the <svg> element): element nodes in document order,
   * each {name (local name), parent (index, -1 for the root), attrs {name: text}, node}. */
  function svgElements(root) {
    const out = [];
    const walk = (el, parent) => {
      const attrs = {};
      for (const a of SVG_ATTRS) { const v = el.getAttribute(a); if (v !== null) attrs[a] = v; }
      const i = out.length;
      out.push({name: el.localName, parent, attrs, node: el});
      for (const k of el.children) walk(k, i);
    };
    walk(root, -1);
    return out;
  }

  Core.prototype.svgCharacter = function (elems, name = 'character.svg') {
    const m = this.m, enc = new TextEncoder(), row = m._skfw_svg_row();
    const chunks = [], offs = new Map();
    let size = 0;
    const off = (t) => {
      if (t === undefined || t === null) return -1;
      if (offs.has(t)) return offs.get(t);
      const b = enc.encode(t + '\0');
      chunks.push(b);
      offs.set(t, size);
      size += b.length;
      return offs.get(t);
    };
    const table = new Int32Array(elems.length * row);
    elems.forEach((e, i) => {
      table[i * row] = e.parent;
      table[i * row + 1] = off(e.name);
      table[i * row + 2] = 0;
      SVG_ATTRS.forEach((a, k) => (table[i * row + 3 + k] = off(e.attrs[a])));
    });
    const keep = [];
    const sp = m._malloc(Math.max(size, 1));
    keep.push(sp);
    let o = 0;
    for (const b of chunks) { m.HEAPU8.set(b, sp + o); o += b.length; }
    const tp = this._i32(table, keep);
    const c = m._skfw_svg_load(this._str(name, keep), sp, size, tp, elems.length);
    keep.forEach((p) => m._free(p));
    if (!c) this._check(1);
    return new SvgCharacter(this, c);
  };

  class SvgCharacter {
    constructor(core, ptr) {
      const m = core.m;
      this.core = core; this.ptr = ptr;
      this.pathCount = m._skfw_svg_path_count(ptr);
      this.width = m._skfw_svg_canvas(ptr, 0);
      this.height = m._skfw_svg_canvas(ptr, 1);
      this.warnings = [];
      for (let k = 0; k < m._skfw_svg_warning_count(); ++k) this.warnings.push(m.UTF8ToString(m._skfw_svg_warning(k)));
      this.jointNames = [];
      this.facemesh = [];
      for (let j = 0; j < 87; ++j) {
        this.jointNames.push(m.UTF8ToString(m._skfw_svg_joint_name(j)));
        this.facemesh.push(m._skfw_svg_joint_facemesh(j));
      }
    }
    pathElement(i) { return this.core.m._skfw_svg_path_element(this.ptr, i); }
    pathNodes(i) { return this.core.m._skfw_svg_path_nodes(this.ptr, i); }
    hidden() {
      const m = this.core.m, n = m._skfw_svg_hidden_count(this.ptr), out = [];
      for (let k = 0; k < n; ++k) out.push(m._skfw_svg_hidden(this.ptr, k));
      return out;
    }
    restJoint(j) {
      const m = this.core.m, p = m._malloc(16);
      const ok = m._skfw_svg_rest_joint(this.ptr, j, p);
      const xy = ok ? Array.from(this.core._f64view(p, 2)) : null;
      m._free(p);
      return xy;
    }
    animator(opts = {}) {
      const a = this.core.m._skfw_svg_animator_new(this.ptr, opts.noSmoothing ? 1 : 0, opts.minPathConfidence ?? -1);
      if (!a) this.core._check(1);
      return new SvgAnimator(this, a);
    }
    free() { if (this.ptr) this.core.m._skfw_svg_free(this.ptr); this.ptr = 0; }
  }

  class SvgAnimator {
    constructor(ch, ptr) {
      this.ch = ch; this.core = ch.core; this.ptr = ptr;
      this.n = this.core.m._skfw_svg_frame_size();
      this.buf = this.core.m._malloc(this.n * 8);
      this.lenp = this.core.m._malloc(8);
      this.dec = new TextDecoder();
    }
    update(f) {
      const m = this.core.m, v = new Float64Array(this.n);
      let k = 0;
      v[k++] = f.poseScore;
      for (let j = 0; j < 14; ++j) { v[k++] = f.xy[j][0]; v[k++] = f.xy[j][1]; }
      for (let j = 0; j < 14; ++j) v[k++] = f.score[j];
      v[k++] = f.face ? 1 : 0;
      v[k++] = f.face ? f.face.score : 0;
      for (let j = 0; j < 73; ++j) { v[k++] = f.face ? f.face.xy[j][0] : 0; v[k++] = f.face ? f.face.xy[j][1] : 0; }
      m.HEAPF64.set(v, this.buf >> 3);
      const r = m._skfw_svg_update(this.ptr, this.buf);
      if (r < 0) this.core._check(1);
      return r === 0 ? 'drawn' : 'skipped';
    }
    pathData() {
      const m = this.core.m;
      const p = m._skfw_svg_frame_data(this.ptr, this.lenp);
      if (!p) this.core._check(1);
      const n = m.HEAPU32[this.lenp >> 2];
      const s = this.dec.decode(m.HEAPU8.subarray(p, p + n));
      const out = s.split('\0');
      out.length = this.ch.pathCount;
      return out;
    }
    visible(i) { return this.core.m._skfw_svg_visible(this.ptr, i) === 1; }
    confidence(i) { return this.core.m._skfw_svg_confidence(this.ptr, i); }
    joint(j) {
      const m = this.core.m, p = m._malloc(16);
      const s = m._skfw_svg_joint(this.ptr, j, p);
      const xy = Array.from(this.core._f64view(p, 2));
      m._free(p);
      return {xy, score: s};
    }
    free() {
      const m = this.core.m;
      if (this.ptr) { m._skfw_svg_animator_free(this.ptr); m._free(this.buf); m._free(this.lenp); }
      this.ptr = 0;
    }
  }

  class Doc {
    constructor(core, ptr, json) { this.core = core; this.ptr = ptr; this.json = json; }
    clips() { return (this.json.animations || []).map((a, i) => a.name ?? `#${i}`); }
    free() { if (this.ptr) this.core.m._skfw_doc_free(this.ptr); this.ptr = 0; }
  }

  const FIG = ['quality', 'mean_error_pct', 'max_error_pct', 'sweeps_per_frame', 'iterations_per_frame',
    'frames_at_cap', 'max_length_error', 'present'];

  class Result {
    constructor(core, ptr, target) {
      this.core = core; this.ptr = ptr; this.target = target;
      const m = core.m, p = m._malloc(80);
      m._skfw_result_info(ptr, p);
      const v = core._f64view(p, 10);
      [this.frames, this.fps, this.start, this.duration, this.joints, this.constraints, this.sourceWelded,
        this.targetWelded, this.sourceDiagonal, this.targetDiagonal] = Array.from(v);
      m._free(p);
      this.name = m.UTF8ToString(m._skfw_result_clip_name(ptr));
    }
    /* figures of a run ('control' | 'free' | 'rotation-only'): the report's numbers */
    figures(run) {
      const m = this.core.m, p = m._malloc(64);
      m._skfw_result_figures(this.ptr, RUNS[run], p);
      const v = Array.from(this.core._f64view(p, 8));
      m._free(p);
      const o = {};
      FIG.forEach((k, i) => (o[k] = v[i]));
      o.present = o.present === 1;
      return o;
    }
    /* per-frame series of a run: what 'quality' | 'mean' | 'max' (% of the diagonal); a copy */
    frameSeries(run, what) {
      const p = this.core.m._skfw_result_frame_series(this.ptr, RUNS[run], {quality: 0, mean: 1, max: 2}[what]);
      return p ? Float64Array.from(this.core._f64view(p, this.frames)) : null;
    }
    /* solved skinning transforms [frames*joints*12] (run 'free' | 'rotation-only'): a view */
    transformsView(run) {
      const p = this.core.m._skfw_result_transforms(this.ptr, RUNS[run]);
      return p ? this.core._f64view(p, this.frames * this.joints * 12) : null;
    }
    /* the baked local TRS per frame and joint: copies {translation [F*B*3], rotation [F*B*4], scale [F*B*3], animated [B]} */
    trs() {
      const F = this.frames, B = this.joints, m = this.core.m;
      const get = (w, k) => Float64Array.from(this.core._f64view(m._skfw_result_trs(this.ptr, w), F * B * k));
      const animated = [];
      for (let b = 0; b < B; ++b) animated.push(m._skfw_result_animated(this.ptr, b) === 1);
      return {translation: get(0, 3), rotation: get(1, 4), scale: get(2, 3), animated};
    }
    free() { if (this.ptr) this.core.m._skfw_result_free(this.ptr); this.ptr = 0; }
  }

  class Scene {
    constructor(core, ptr) { this.core = core; this.ptr = ptr; this.labels = []; }
    get frames() { return this.core.m._skfw_scene_frames(this.ptr); }
    get rigs() { return this.core.m._skfw_scene_rigs(this.ptr); }
    /* run 'control' | 'free' | 'rotation-only' of a Result as the next panel */
    add(label, result, run) {
      const keep = [];
      const rc = this.core.m._skfw_scene_add(this.ptr, this.core._str(label, keep), result.ptr, RUNS[run]);
      keep.forEach((q) => this.core.m._free(q));
      this.core._check(rc);
      this.labels.push(label);
    }
    vertexCount(panel) { return this.core.m._skfw_scene_vertex_count(this.ptr, panel); }
    triangles(panel) {
      const n = this.core.m._skfw_scene_triangle_count(this.ptr, panel) * 3;
      return new Uint32Array(this.core.m.HEAPU32.buffer, this.core.m._skfw_scene_triangles(this.ptr, panel), n);
    }
    positions(panel, frame) { return this.core._f64view(this.core.m._skfw_scene_positions(this.ptr, panel, frame), this.vertexCount(panel) * 3); }
    errors(rig, frame) { return this.core._f64view(this.core.m._skfw_scene_errors(this.ptr, rig, frame), this.vertexCount(rig + 1)); }
    diagonal(rig) { return this.core.m._skfw_scene_diagonal(this.ptr, rig); }
    bins(rig, frame) {
      const m = this.core.m, n = this.vertexCount(rig + 1), out = m._malloc(4 * n);
      m._skfw_error_bins(n, m._skfw_scene_errors(this.ptr, rig, frame), this.diagonal(rig), out);
      const b = Int32Array.from(new Int32Array(m.HEAP32.buffer, out, n));
      m._free(out);
      return b;
    }
    free() { if (this.ptr) this.core.m._skfw_scene_free(this.ptr); this.ptr = 0; }
  }

  async function load(factory) {
    const f = factory || root.createSkinfitCore || (typeof require === 'function' ? require('./build/skinfit_core.js') : null);
    if (!f) throw new Error('skinfit: skinfit_core.js is not loaded');
    return new Core(await f());
  }

  const api = {load, Core, parseContainer, svgElements, SVG_ATTRS};
  if (typeof module === 'object' && module.exports) module.exports = api;
  else root.Skinfit = api;
})(typeof self !== 'undefined' ? self : this);
