// skinfit transfer viewer: three.js draws what the WASM core computed in worker.js — the ground
// truth, the control run and each target rig (free or rotation-only) per frame, each vertex
// coloured by the colour-map bin of its error (the core's skf_colormap_bin of the error
// skf_quality_add_frame measured, as `skinfit render`); the rig panels are unlit so a pixel's
// colour is its bin's colour. The table prints the report's figures in the CLI's formats.
import * as THREE from 'three';
import {OrbitControls} from 'three/addons/controls/OrbitControls.js';

THREE.ColorManagement.enabled = false; // colours are bytes: no sRGB conversion anywhere
const $ = (id) => document.getElementById(id);
const canvas = $('canvas');
const renderer = new THREE.WebGLRenderer({canvas, antialias: false, preserveDrawingBuffer: true});
renderer.outputColorSpace = THREE.LinearSRGBColorSpace;
renderer.setPixelRatio(1);
renderer.setSize(canvas.width, canvas.height, false);
renderer.setScissorTest(true);
const camera = new THREE.PerspectiveCamera(30, 1, 0.01, 1000);
const controls = new OrbitControls(camera, canvas);
const worker = new Worker('worker.js');
const SILHOUETTE = 0x3c3c46, NEUTRAL = 0xd2cabe;

const state = {data: null, frame: 0, playing: true, mode: 'free', panels: [], lastTick: 0, sourceBytes: null,
  targetFiles: [], status: 'idle', error: null, fps: 24, bakes: null, targetBytes: []};
window.__viewer = state;

function cfmt(x, digits) { // C's %.Ne: two-digit exponent at least
  const s = x.toExponential(digits);
  return s.replace(/e([+-])(\d)$/, 'e$10$2');
}

function setStatus(s) { $('status').textContent = s; }

worker.onmessage = (e) => {
  const m = e.data;
  if (m.type === 'progress') { $('progress').value = m.fraction; setStatus(m.what); }
  else if (m.type === 'clips') fillClips(m.clips);
  else if (m.type === 'error') { state.status = 'error'; state.error = m.message; setStatus('error: ' + m.message); $('solve').disabled = false; }
  else if (m.type === 'done') show(m);
};

function fillClips(clips) {
  const sel = $('clip');
  sel.innerHTML = '';
  for (const c of clips) {
    const o = document.createElement('option');
    o.value = o.textContent = c.includes('|') ? c.slice(c.lastIndexOf('|') + 1) : c;
    sel.appendChild(o);
  }
  const walk = [...sel.options].find((o) => o.value === 'Walk');
  if (walk) sel.value = 'Walk';
  $('solve').disabled = !(state.sourceBytes && state.targetFiles.length);
}

async function readFile(f) { return new Uint8Array(await f.arrayBuffer()); }

$('source').onchange = async () => {
  const f = $('source').files[0];
  if (!f) return;
  state.sourceName = f.name;
  state.sourceBytes = await readFile(f);
  worker.postMessage({type: 'clips', name: f.name, bytes: state.sourceBytes.slice()});
};
$('targets').onchange = async () => {
  state.targetFiles = [];
  for (const f of $('targets').files) state.targetFiles.push({name: f.name.replace(/\.gl(b|tf)$/, ''), bytes: await readFile(f)});
  $('solve').disabled = !(state.sourceBytes && state.targetFiles.length);
};

function solve() {
  state.status = 'solving';
  $('solve').disabled = true;
  $('progress').value = 0;
  state.targetBytes = state.targetFiles.map((t) => t.bytes);
  worker.postMessage({source: {name: state.sourceName, bytes: state.sourceBytes.slice()},
    targets: state.targetFiles.map((t) => ({name: t.name, bytes: t.bytes.slice()})), clip: $('clip').value});
}
$('solve').onclick = solve;

/* Load two GLBs by URL and solve (the demo button; the browser tests use it for shared files). */
async function loadUrls(sourceUrl, targetUrls, clip) {
  const get = async (u) => new Uint8Array(await (await fetch(u)).arrayBuffer());
  state.sourceName = sourceUrl.split('/').pop();
  state.sourceBytes = await get(sourceUrl);
  state.targetFiles = [];
  for (const u of targetUrls) state.targetFiles.push({name: u.split('/').pop().replace(/\.gl(b|tf)$/, ''), bytes: await get(u)});
  fillClips([clip]);
  $('clip').value = clip;
  solve();
}
state.loadUrls = loadUrls;
$('demo').onclick = () => loadUrls('../build/assets/creature.glb', ['../build/assets/creature_autoweights.glb'], 'Walk');

function panelMesh(p, colored) {
  const g = new THREE.BufferGeometry();
  g.setAttribute('position', new THREE.BufferAttribute(new Float32Array(p.vertexCount * 3), 3));
  g.setIndex(new THREE.BufferAttribute(p.triangles, 1));
  let mat;
  if (colored) {
    g.setAttribute('color', new THREE.BufferAttribute(new Uint8Array(p.vertexCount * 3), 3, true));
    mat = new THREE.MeshBasicMaterial({vertexColors: true, side: THREE.DoubleSide});
  } else {
    mat = new THREE.MeshLambertMaterial({color: NEUTRAL, side: THREE.DoubleSide});
  }
  return new THREE.Mesh(g, mat);
}

function show(m) {
  state.data = m;
  state.status = 'solved';
  state.solved = (state.solved || 0) + 1;
  state.frame = 0;
  state.bakes = m.bakes;
  state.fps = m.bakes[0] ? m.bakes[0].fps : 24;
  $('progress').value = 1;
  setStatus(`solved in ${(m.solveMs / 1000).toFixed(2)} s (WASM, worker)`);
  $('solve').disabled = false;
  for (const id of ['play', 'frame', 'download']) $(id).disabled = false;
  $('frame').max = m.frames - 1;
  buildPanels();
  fillTable(m);
  drawLegend(m.colors);
  drawPlot(m);
  frameCamera();
  draw();
}

/* displayed panels: ground truth, control, then each target in the chosen mode */
function shownPanelIndices() {
  const d = state.data, idx = [0, 1];
  const nt = (d.panels.length - 2) / 2;
  for (let k = 0; k < nt; ++k) idx.push(2 + 2 * k + (state.mode === 'free' ? 0 : 1));
  return idx;
}

function buildPanels() {
  const d = state.data;
  state.panels = d.panels.map((p, i) => {
    const scene = new THREE.Scene();
    scene.background = new THREE.Color(0xffffff);
    const mesh = panelMesh(p, i > 0);
    scene.add(mesh);
    let sil = null;
    if (i > 0) { // the truth as a dark silhouette behind the rig
      const g = new THREE.BufferGeometry();
      g.setAttribute('position', new THREE.BufferAttribute(new Float32Array(d.panels[0].vertexCount * 3), 3));
      g.setIndex(new THREE.BufferAttribute(d.panels[0].triangles, 1));
      sil = new THREE.Mesh(g, new THREE.MeshBasicMaterial({color: SILHOUETTE, side: THREE.DoubleSide,
        polygonOffset: true, polygonOffsetFactor: 4, polygonOffsetUnits: 4}));
      scene.add(sil);
    } else {
      scene.add(new THREE.AmbientLight(0xffffff, 1.2));
      const l = new THREE.DirectionalLight(0xffffff, 1.8);
      l.position.set(1, 2, 3);
      scene.add(l);
    }
    return {scene, mesh, sil, data: p};
  });
  const labels = $('labels');
  labels.innerHTML = '';
  for (const i of shownPanelIndices()) {
    const div = document.createElement('div');
    div.textContent = d.panels[i].label;
    labels.appendChild(div);
  }
}

function frameCamera() {
  const p = state.data.panels[0], pos = p.positions.subarray(0, p.vertexCount * 3);
  const box = new THREE.Box3();
  for (let j = 0; j < p.vertexCount; ++j) box.expandByPoint(new THREE.Vector3(pos[3 * j], pos[3 * j + 1], pos[3 * j + 2]));
  const c = box.getCenter(new THREE.Vector3()), r = box.getSize(new THREE.Vector3()).length() / 2;
  const dist = r / Math.sin((camera.fov * Math.PI) / 360) * 1.05;
  camera.position.set(c.x + dist, c.y + dist * 0.25, c.z);
  camera.near = dist / 100;
  camera.far = dist * 10;
  camera.updateProjectionMatrix();
  controls.target.copy(c);
  controls.update();
}

function setFrame(f) {
  state.frame = f;
  const d = state.data;
  state.panels.forEach((pn, i) => {
    const p = pn.data, N = p.vertexCount;
    pn.mesh.geometry.attributes.position.array.set(p.positions.subarray(f * N * 3, (f + 1) * N * 3));
    pn.mesh.geometry.attributes.position.needsUpdate = true;
    pn.mesh.geometry.computeBoundingSphere();
    pn.mesh.geometry.computeVertexNormals();
    if (p.bins) {
      const col = pn.mesh.geometry.attributes.color.array;
      for (let j = 0; j < N; ++j) {
        const c = d.colors[p.bins[f * N + j]];
        col[3 * j] = c[0]; col[3 * j + 1] = c[1]; col[3 * j + 2] = c[2];
      }
      pn.mesh.geometry.attributes.color.needsUpdate = true;
      const t = d.panels[0], Nt = t.vertexCount;
      pn.sil.geometry.attributes.position.array.set(t.positions.subarray(f * Nt * 3, (f + 1) * Nt * 3));
      pn.sil.geometry.attributes.position.needsUpdate = true;
      pn.sil.geometry.computeBoundingSphere();
    }
  });
  $('frame').value = f;
  $('frameLabel').textContent = `frame ${f + 1} / ${d.frames}`;
  drawPlotCursor();
}

function viewports() {
  const idx = shownPanelIndices(), w = Math.floor(canvas.width / idx.length), h = canvas.height;
  return idx.map((i, k) => ({panel: i, x: k * w, y: 0, w, h}));
}

function draw() {
  if (!state.data) return;
  setFrame(state.frame);
  for (const v of viewports()) {
    camera.aspect = v.w / v.h;
    camera.updateProjectionMatrix();
    renderer.setViewport(v.x, v.y, v.w, v.h);
    renderer.setScissor(v.x, v.y, v.w, v.h);
    renderer.render(state.panels[v.panel].scene, camera);
  }
}
state.draw = draw;

function tick(t) {
  requestAnimationFrame(tick);
  if (!state.data) return;
  if (state.playing && t - state.lastTick >= 1000 / state.fps) {
    state.lastTick = t;
    state.frame = (state.frame + 1) % state.data.frames;
  }
  draw();
}
requestAnimationFrame(tick);

$('play').onclick = () => { state.playing = !state.playing; $('play').textContent = state.playing ? 'pause' : 'play'; };
$('frame').oninput = () => { state.playing = false; $('play').textContent = 'play'; state.frame = Number($('frame').value); draw(); };
for (const r of document.querySelectorAll('input[name=mode]')) r.onchange = () => { state.mode = r.value; if (state.data) { buildPanels(); draw(); } };

/* Freeze on frame f and the given mode (tests, screenshots). */
state.freeze = (f, mode) => {
  state.playing = false;
  if (mode && mode !== state.mode) { state.mode = mode; buildPanels(); }
  for (const r of document.querySelectorAll('input[name=mode]')) r.checked = r.value === state.mode;
  state.frame = f;
  draw();
};

function fillTable(m) {
  const tb = $('table').querySelector('tbody');
  tb.innerHTML = '';
  const clip = $('clip').value;
  for (const r of m.rows) {
    const tr = document.createElement('tr');
    const cells = [clip, String(r.frames), r.rig, r.run, (100 * r.quality).toFixed(6), cfmt(r.mean_error_pct, 3),
      cfmt(r.max_error_pct, 3), r.sweeps_per_frame.toFixed(1)];
    for (const c of cells) { const td = document.createElement('td'); td.textContent = c; tr.appendChild(td); }
    tb.appendChild(tr);
  }
}

function drawLegend(colors) {
  const lg = $('legend');
  lg.innerHTML = '';
  colors.forEach((c, b) => {
    const s = document.createElement('span');
    s.style.background = `rgb(${c[0]},${c[1]},${c[2]})`;
    s.textContent = b === colors.length - 1 ? '≥ 3 %' : `${(b * 0.25).toFixed(2)}–${((b + 1) * 0.25).toFixed(2)}`;
    lg.appendChild(s);
  });
}

function drawPlot(m) {
  const svg = $('plot'), W = 1200, H = 160, pad = 30;
  const ymax = Math.max(0.25, ...m.series.map((s) => Math.max(...s.max)));
  const hues = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b'];
  let html = `<text x="4" y="12" font-size="11">worst vertex error per frame, % of the diagonal (max ${ymax.toFixed(2)})</text>`;
  m.series.forEach((s, k) => {
    const pts = Array.from(s.max).map((v, f) => `${pad + (f / Math.max(1, m.frames - 1)) * (W - 2 * pad)},${H - pad + 10 - (v / ymax) * (H - 2 * pad)}`);
    html += `<polyline fill="none" stroke="${hues[k % hues.length]}" stroke-width="1.5" points="${pts.join(' ')}"/>`;
    html += `<text x="${pad + 10 + 220 * k}" y="${H - 4}" font-size="11" fill="${hues[k % hues.length]}">${s.label}</text>`;
  });
  html += '<line id="cursor" x1="0" x2="0" y1="16" y2="140" stroke="#888"/>';
  svg.innerHTML = html;
}
function drawPlotCursor() {
  const c = document.getElementById('cursor');
  if (!c || !state.data) return;
  const x = 30 + (state.frame / Math.max(1, state.data.frames - 1)) * (1200 - 60);
  c.setAttribute('x1', x);
  c.setAttribute('x2', x);
}

/* Probe: up to n vertices of displayed rig panel k (1 = control, 2.. = targets) that are visible
 * at their projected pixel (a ray through the pixel centre hits a triangle incident to them) and
 * whose incident triangles' vertices share their bin, so the unlit pixel must be the bin colour.
 * Returns [{x, y (pixel, top-left origin), bin, vertex}]. */
state.pixel = (x, y) => {
  const c2 = document.createElement('canvas');
  c2.width = canvas.width;
  c2.height = canvas.height;
  const ctx = c2.getContext('2d');
  ctx.drawImage(canvas, 0, 0);
  return Array.from(ctx.getImageData(x, y, 1, 1).data.slice(0, 3));
};
state.probe = (k, n) => {
  const vp = viewports()[k], pn = state.panels[vp.panel], p = pn.data, N = p.vertexCount, f = state.frame;
  camera.aspect = vp.w / vp.h;
  camera.updateProjectionMatrix();
  const bins = p.bins.subarray(f * N, (f + 1) * N), tri = p.triangles;
  const inc = Array.from({length: N}, () => []);
  for (let t = 0; t < tri.length / 3; ++t) for (let c = 0; c < 3; ++c) inc[tri[3 * t + c]].push(t);
  const ray = new THREE.Raycaster(), out = [], pos = pn.mesh.geometry.attributes.position.array;
  // candidates: uniform-bin neighbourhoods, taken round-robin over the bins (highest first) so
  // the probes cover every bin present, at most 600 ray casts
  const byBin = new Map();
  for (let j = 0; j < N; ++j)
    if (inc[j].length && inc[j].every((t) => bins[tri[3 * t]] === bins[j] && bins[tri[3 * t + 1]] === bins[j] && bins[tri[3 * t + 2]] === bins[j])) {
      if (!byBin.has(bins[j])) byBin.set(bins[j], []);
      byBin.get(bins[j]).push(j);
    }
  const lists = [...byBin.keys()].sort((a, b) => b - a).map((b) => byBin.get(b));
  const order = [];
  for (let r = 0; order.length < 600 && lists.some((l) => r < l.length); ++r)
    for (const l of lists) if (r < l.length) order.push(l[(r * 7919) % l.length]);
  for (const j of order) {
    if (out.length >= n) break;
    const v = new THREE.Vector3(pos[3 * j], pos[3 * j + 1], pos[3 * j + 2]).project(camera);
    const px = Math.floor(vp.x + (v.x + 1) / 2 * vp.w), py = Math.floor((1 - v.y) / 2 * vp.h);
    if (px < vp.x + 1 || px >= vp.x + vp.w - 1 || py < 1 || py >= vp.h - 1) continue;
    const ndc = new THREE.Vector2(((px + 0.5 - vp.x) / vp.w) * 2 - 1, 1 - ((py + 0.5) / vp.h) * 2);
    ray.setFromCamera(ndc, camera);
    const hits = ray.intersectObjects([pn.mesh, pn.sil], false);
    if (!hits.length || hits[0].object !== pn.mesh) continue;
    if (!inc[j].includes(hits[0].faceIndex)) continue;
    out.push({x: px, y: py, bin: bins[j], vertex: j});
  }
  return out;
};

state.tableText = () => [...$('table').querySelectorAll('tbody tr')].map((tr) => [...tr.children].map((td) => td.textContent));

/* Download baked GLB: the target GLB with the solved clip appended as a glTF animation (LINEAR,
 * one key per frame, translation + rotation + scale on every animated joint, float32), as
 * skf_transfer_add_animation does. Bytes differ from the CLI's file: the CLI's glTF writer (not
 * in the WASM build) also repairs what the validator flags and serialises the JSON its own way. */
function bakeGlb(k) {
  const b = state.bakes[k], src = window.Skinfit_parse(state.targetBytes[k]);
  const j = src.json, F = b.frames, B = b.trs.animated.length, skin = j.skins[0];
  if ((j.buffers || []).some((buf) => buf.uri !== undefined))
    throw new Error(`${b.name}: download baked GLB needs a .glb target (its buffers in the BIN chunk)`);
  const chunks = [src.bin ? src.bin.slice() : new Uint8Array(0)];
  let off = chunks[0].length;
  const add = (f32) => {
    const pad = (4 - (off % 4)) % 4;
    if (pad) { chunks.push(new Uint8Array(pad)); off += pad; }
    const bytes = new Uint8Array(f32.buffer.slice(0));
    chunks.push(bytes);
    const view = j.bufferViews.push({buffer: 0, byteOffset: off, byteLength: bytes.length}) - 1;
    off += bytes.length;
    return view;
  };
  j.bufferViews = j.bufferViews || [];
  j.accessors = j.accessors || [];
  const times = new Float32Array(F);
  for (let f = 0; f < F; ++f) times[f] = b.start + f / b.fps;
  const tAcc = j.accessors.push({bufferView: add(times), componentType: 5126, count: F, type: 'SCALAR',
    min: [times[0]], max: [times[F - 1]]}) - 1;
  const anim = {name: b.clip, samplers: [], channels: []};
  for (let i = 0; i < B; ++i) {
    if (!b.trs.animated[i]) continue;
    for (const [path, arr, w, type] of [['translation', b.trs.translation, 3, 'VEC3'], ['rotation', b.trs.rotation, 4, 'VEC4'], ['scale', b.trs.scale, 3, 'VEC3']]) {
      const v = new Float32Array(F * w);
      for (let f = 0; f < F; ++f) for (let c = 0; c < w; ++c) v[f * w + c] = arr[(f * B + i) * w + c];
      const acc = j.accessors.push({bufferView: add(v), componentType: 5126, count: F, type}) - 1;
      anim.samplers.push({input: tAcc, output: acc, interpolation: 'LINEAR'});
      anim.channels.push({sampler: anim.samplers.length - 1, target: {node: skin.joints[i], path}});
    }
  }
  j.animations = (j.animations || []).filter((a) => a.name !== b.clip);
  j.animations.push(anim);
  const padB = (4 - (off % 4)) % 4;
  if (padB) { chunks.push(new Uint8Array(padB)); off += padB; }
  if (!j.buffers || !j.buffers.length) j.buffers = [{}];
  j.buffers[0] = {byteLength: off};
  let json = new TextEncoder().encode(JSON.stringify(j));
  const jp = (4 - (json.length % 4)) % 4;
  json = new Uint8Array([...json, ...new Array(jp).fill(0x20)]);
  const total = 12 + 8 + json.length + 8 + off;
  const out = new Uint8Array(total), dv = new DataView(out.buffer);
  dv.setUint32(0, 0x46546c67, true); dv.setUint32(4, 2, true); dv.setUint32(8, total, true);
  dv.setUint32(12, json.length, true); dv.setUint32(16, 0x4e4f534a, true); out.set(json, 20);
  let at = 20 + json.length;
  dv.setUint32(at, off, true); dv.setUint32(at + 4, 0x004e4942, true); at += 8;
  for (const c of chunks) { out.set(c, at); at += c.length; }
  return out;
}
state.bakeGlb = bakeGlb;
$('download').onclick = () => {
  state.bakes.forEach((b, k) => {
    let bytes;
    try { bytes = bakeGlb(k); } catch (e) { setStatus('error: ' + e.message); return; }
    const a = document.createElement('a');
    a.href = URL.createObjectURL(new Blob([bytes], {type: 'model/gltf-binary'}));
    a.download = `${b.name}_${b.clip.replace(/[^A-Za-z0-9_-]/g, '_')}.glb`;
    a.click();
  });
};

// GLB container parsing shared with the API (skinfit.js is a classic script: load it once here too)
const s = document.createElement('script');
s.src = '../skinfit.js';
s.onload = () => { window.Skinfit_parse = (bytes) => window.Skinfit.parseContainer(bytes, 'target'); };
document.head.appendChild(s);
