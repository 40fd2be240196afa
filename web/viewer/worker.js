// The viewer's solver thread: the WASM core (../build/skinfit_core.js via ../skinfit.js) runs the
// library's transfer session for each target and builds the heat-map scene `skinfit render` draws
// from the transfer's own per-vertex errors
// (ground truth + control + each target, free and rotation-only), then posts plain arrays back.
// Message in:  {source: {name, bytes}, targets: [{name, bytes}], clip}
// Messages out: {type: 'progress', fraction, what} | {type: 'error', message} |
//               {type: 'clips', clips} | {type: 'done', ...} (see solve()).
/* global importScripts, Skinfit */
importScripts('../build/skinfit_core.js', '../skinfit.js');
let corePromise = null;
const core = () => (corePromise = corePromise || Skinfit.load());

function copyF32(view) { return Float32Array.from(view); }

async function solve(msg) {
  const sk = await core();
  const t0 = performance.now();
  const src = sk.parseGlb(msg.source.bytes, msg.source.name);
  const targets = msg.targets.map((t) => ({name: t.name, doc: sk.parseGlb(t.bytes, t.name)}));
  const rows = [], series = [], results = [];
  const n = targets.length;
  targets.forEach((t, k) => {
    const r = sk.transfer(src, t.doc, msg.clip, {mode: 'both', onProgress: (f, what) => {
      postMessage({type: 'progress', fraction: (k + f) / (n + 1), what: `${t.name}: ${what}`});
      return false;
    }});
    results.push(r);
    if (k === 0) rows.push({rig: 'control', run: 'control', frames: r.frames, ...r.figures('control')});
    for (const run of ['free', 'rotation-only']) {
      rows.push({rig: t.name, run, frames: r.frames, ...r.figures(run)});
      series.push({label: `${t.name} ${run}`, max: r.frameSeries(run, 'max'), mean: r.frameSeries(run, 'mean')});
    }
  });
  const solveMs = performance.now() - t0;
  postMessage({type: 'progress', fraction: n / (n + 1), what: 'heat-map scene'});
  const scene = sk.scene(results[0]);
  scene.add('control', results[0], 'control');
  targets.forEach((t, k) => {
    scene.add(`${t.name} free`, results[k], 'free');
    scene.add(`${t.name} rotation-only`, results[k], 'rotation-only');
  });
  const F = scene.frames, panels = [];
  const labels = ['ground truth', 'control'];
  targets.forEach((t) => labels.push(`${t.name} free`, `${t.name} rotation-only`));
  for (let p = 0; p < labels.length; ++p) {
    const N = scene.vertexCount(p);
    const pos = new Float32Array(F * N * 3);
    for (let f = 0; f < F; ++f) pos.set(scene.positions(p, f), f * N * 3);
    let bins = null, errors = null;
    if (p > 0) {
      bins = new Uint8Array(F * N);
      errors = new Float32Array(F * N);
      for (let f = 0; f < F; ++f) {
        bins.set(scene.bins(p - 1, f), f * N);
        errors.set(scene.errors(p - 1, f), f * N);
      }
    }
    panels.push({label: labels[p], vertexCount: N, triangles: Uint32Array.from(scene.triangles(p)), positions: pos, bins,
      errors, diagonal: p > 0 ? scene.diagonal(p - 1) : 0});
  }
  const bakes = results.map((r, k) => ({name: targets[k].name, clip: r.name, fps: r.fps, start: r.start, frames: r.frames,
    trs: r.trs()}));
  scene.free();
  results.forEach((r) => r.free());
  targets.forEach((t) => t.doc.free());
  src.free();
  const transfer = [];
  panels.forEach((p) => { transfer.push(p.triangles.buffer, p.positions.buffer); if (p.bins) transfer.push(p.bins.buffer, p.errors.buffer); });
  postMessage({type: 'done', frames: F, rows, series, panels, colors: sk.colors, bakes, solveMs}, transfer);
}

onmessage = (e) => {
  const msg = e.data;
  if (msg.type === 'clips') {
    core().then((sk) => {
      const d = sk.parseGlb(msg.bytes, msg.name);
      const clips = d.clips();
      d.free();
      postMessage({type: 'clips', clips});
    }).catch((err) => postMessage({type: 'error', message: err.message}));
    return;
  }
  solve(msg).catch((err) => postMessage({type: 'error', message: err.message || String(err)}));
};
