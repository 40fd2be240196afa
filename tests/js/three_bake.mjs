// Acceptance 1-3 of issue 2: `skinfit bake` agrees with three.js.
//
// For every GLB under $SKF_DATA/quaternius, khronos/Fox.glb and
// khronos/MorphStressTest.gltf, and every clip: three's GLTFLoader (in Node,
// with images/textures/samplers/materials stripped — geometry, skins and
// animations are what matter), AnimationMixer.setTime(t), updateMatrixWorld,
// SkinnedMesh.getVertexPosition(i) mapped by mesh.matrixWorld = world
// position; compared with the PC2 that `skinfit bake` writes for the same
// frame times (frame k at start + k / key_rate, see docs/conventions.md
// "Clips and frames"). Tolerance: 1e-5 × the bounding-box diagonal of the
// compared world positions, at every vertex of every frame.
//
// The surface is skin 0's (docs: include/skinfit/rig.h): its skinned primitives in node order,
// then the meshes attached to its joints (mesh nodes without skin under a joint: three moves
// them with their node's matrixWorld), or the unskinned meshes when the file has no skin.
//
// Usage: node three_bake.mjs [--fps F] [--expect CLIP=FILE.pc2]... [FILE...]
//        (env: SKF_BIN, SKF_DATA, SKF_SOURCE_DIR)
// --fps F bakes and compares at F frames per second instead of each clip's key rate.
// --expect CLIP=FILE.pc2 compares clip CLIP (short name) of the one FILE with the given point
// cache (surface order above, the clip's frame times) instead of `skinfit bake`'s, and only
// the clips so named: e.g. a transfer's solved surface against three's replay of OUT.glb.
// Exit 0 all agree, 1 a deviation over tolerance or an error, 77 three absent.
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const TOL = 1e-5;
const src = process.env.SKF_SOURCE_DIR || path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const threeDir = path.join(src, 'node_modules', 'three');
if (!fs.existsSync(path.join(threeDir, 'package.json'))) {
  console.log(`SKIPPED: three.js not installed under ${threeDir} (run scripts/setup.sh)`);
  process.exit(77);
}
const bin = process.env.SKF_BIN;
if (!bin || !fs.existsSync(bin)) {
  console.log('error: SKF_BIN does not name the skinfit binary');
  process.exit(1);
}
const data = process.env.SKF_DATA || path.join(src, '..', 'shared', 'data');

// three's FileLoader (data: URIs of .gltf buffers) reports progress events;
// Node has no ProgressEvent.
if (typeof globalThis.ProgressEvent === 'undefined') {
  globalThis.ProgressEvent = class ProgressEvent extends Event {
    constructor(type, init = {}) { super(type); Object.assign(this, init); }
  };
}
const THREE = await import(pathToFileURL(path.join(threeDir, 'build', 'three.module.js')).href);
const { GLTFLoader } = await import(
  pathToFileURL(path.join(threeDir, 'examples', 'jsm', 'loaders', 'GLTFLoader.js')).href);

// ---- inputs ----
let files = process.argv.slice(2);
let forcedFps = 0;
const expect = new Map(); // clip short name -> PC2 path
for (;;) {
  if (files[0] === '--fps') {
    forcedFps = Number(files[1]);
    files = files.slice(2);
    if (!(forcedFps > 0)) { console.log('usage: three_bake.mjs [--fps F] [--expect CLIP=FILE.pc2]... [FILE...]'); process.exit(2); }
  } else if (files[0] === '--expect') {
    const m = /^([^=]+)=(.+)$/.exec(files[1] || '');
    if (!m) { console.log('usage: three_bake.mjs [--fps F] [--expect CLIP=FILE.pc2]... [FILE...]'); process.exit(2); }
    expect.set(m[1], m[2]);
    files = files.slice(2);
  } else break;
}
if (expect.size && files.length !== 1) { console.log('three_bake.mjs: --expect needs exactly one FILE'); process.exit(2); }
if (!files.length) {
  const walk = (d) => fs.existsSync(d) ? fs.readdirSync(d, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(path.join(d, e.name)) : e.name.endsWith('.glb') ? [path.join(d, e.name)] : []) : [];
  files = walk(path.join(data, 'quaternius')).sort();
  for (const f of ['khronos/Fox.glb', 'khronos/MorphStressTest.gltf'])
    if (fs.existsSync(path.join(data, f))) files.push(path.join(data, f));
}
if (!files.length) {
  console.log(`SKIPPED: no shared assets under ${data}`);
  process.exit(77);
}

// ---- glTF loading without a DOM ----
function stripJson(json) {
  delete json.images;
  delete json.textures;
  delete json.samplers;
  delete json.materials;
  for (const m of json.meshes || [])
    for (const p of m.primitives || []) delete p.material;
  if (json.extensionsUsed) json.extensionsUsed = json.extensionsUsed.filter((e) => !/texture|material/i.test(e));
  if (json.extensionsRequired) json.extensionsRequired = json.extensionsRequired.filter((e) => !/texture|material/i.test(e));
  return json;
}

function loadForThree(file) {
  const buf = fs.readFileSync(file);
  let out;
  if (buf.readUInt32LE(0) === 0x46546c67) { // 'glTF'
    const jsonLen = buf.readUInt32LE(12);
    const json = stripJson(JSON.parse(buf.subarray(20, 20 + jsonLen).toString('utf8')));
    let rest = buf.subarray(20 + jsonLen);
    let jsonBytes = Buffer.from(JSON.stringify(json), 'utf8');
    const pad = (4 - (jsonBytes.length % 4)) % 4;
    jsonBytes = Buffer.concat([jsonBytes, Buffer.alloc(pad, 0x20)]);
    const head = Buffer.alloc(20);
    head.writeUInt32LE(0x46546c67, 0);
    head.writeUInt32LE(2, 4);
    head.writeUInt32LE(12 + 8 + jsonBytes.length + rest.length, 8);
    head.writeUInt32LE(jsonBytes.length, 12);
    head.writeUInt32LE(0x4e4f534a, 16);
    out = Buffer.concat([head, jsonBytes, rest]);
    return { json, arrayBuffer: out.buffer.slice(out.byteOffset, out.byteOffset + out.length) };
  }
  const json = stripJson(JSON.parse(buf.toString('utf8')));
  out = Buffer.from(JSON.stringify(json), 'utf8');
  return { json, arrayBuffer: out.buffer.slice(out.byteOffset, out.byteOffset + out.length) };
}

function parseGltf(arrayBuffer, file) {
  return new Promise((resolve, reject) => {
    new GLTFLoader().parse(arrayBuffer, path.dirname(file) + '/', resolve, reject);
  });
}

// ---- our side ----
function readPc2(file) {
  const b = fs.readFileSync(file);
  if (b.subarray(0, 11).toString('latin1') !== 'POINTCACHE2') throw new Error(`${file}: not PC2`);
  const n = b.readInt32LE(16), frames = b.readInt32LE(28);
  const pos = new Float32Array(b.buffer.slice(b.byteOffset + 32, b.byteOffset + 32 + n * frames * 12));
  return { n, frames, pos };
}

// ---- the comparison ----
// PC2 outputs on tmpfs when there is one (bake fsyncs its output)
const tmp = fs.mkdtempSync(path.join(fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'skf-three-'));
// Bakes run a few at a time ahead of the comparison (they wait on I/O and
// process start-up more than on the CPU).
const MAX_BAKES = 3;
let running = 0;
const queue = [];
function bake(args) {
  return new Promise((resolve) => {
    const start = () => {
      ++running;
      execFile(bin, args, { maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
        --running;
        if (queue.length) queue.shift()();
        resolve({ error, stderr });
      });
    };
    if (running < MAX_BAKES) start(); else queue.push(start);
  });
}
let failed = false;
const t0 = Date.now();
const summary = [];
for (const file of files) {
  const base = path.basename(file);
  let info;
  try {
    info = JSON.parse(execFileSync(bin, ['info', '--json', file], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }));
  } catch (e) {
    console.log(`FAIL ${base}: skinfit info failed: ${e.stderr || e.message}`);
    failed = true;
    continue;
  }
  const { json, arrayBuffer } = loadForThree(file);
  const gltf = await parseGltf(arrayBuffer, file);
  const assoc = gltf.parser.associations;
  const nodeObj = new Map();
  gltf.scene.traverse((o) => {
    const a = assoc.get(o);
    if (a && a.nodes !== undefined) nodeObj.set(a.nodes, o);
  });
  // the surface `bake` evaluates: skin 0 then the meshes attached to its joints, or the
  // unskinned meshes
  const skin = (json.skins || []).length ? 0 : -1;
  const surface = []; // three mesh objects in our vertex order
  const nodes = json.nodes || [];
  const parentOf = new Map();
  nodes.forEach((nd, i) => (nd.children || []).forEach((c) => parentOf.set(c, i)));
  const joints = new Set(skin >= 0 ? json.skins[0].joints : []);
  const attached = (i) => { // a mesh node without skin that is, or hangs under, a joint
    for (let n = i, d = 0; n !== undefined && d <= nodes.length; n = parentOf.get(n), ++d)
      if (joints.has(n)) return true;
    return false;
  };
  const order = [];
  for (let i = 0; i < nodes.length; ++i)
    if (nodes[i].mesh !== undefined && (nodes[i].skin ?? -1) === skin) order.push([i, false]);
  for (let i = 0; skin >= 0 && i < nodes.length; ++i)
    if (nodes[i].mesh !== undefined && nodes[i].skin === undefined && attached(i)) order.push([i, true]);
  for (const [i, isAttached] of order) {
    const o = nodeObj.get(i);
    if (!o) throw new Error(`${base}: node ${i} not in three's scene`);
    let prims;
    if (o.isMesh) {
      prims = [o];
    } else {
      prims = o.children.filter((c) => {
        const a = assoc.get(c);
        return c.isMesh && a && a.primitives !== undefined && a.nodes === undefined;
      }).sort((a, b) => assoc.get(a).primitives - assoc.get(b).primitives);
    }
    for (const m of prims) {
      if (skin >= 0 && !isAttached && !m.isSkinnedMesh) throw new Error(`${base}: node ${i} primitive is not skinned in three`);
      surface.push(m);
    }
  }
  const nverts = surface.reduce((s, m) => s + m.geometry.attributes.position.count, 0);
  const mixer = new THREE.AnimationMixer(gltf.scene);
  const v = new THREE.Vector3();
  let fileWorst = 0, fileWorstAbs = 0, fileFrames = 0, where = '', motion = 0, attachedWorstAbs = 0;
  const bbMin = [Infinity, Infinity, Infinity], bbMax = [-Infinity, -Infinity, -Infinity];
  const devs = []; // per clip: max abs deviation
  const shortName = (n) => n.replace(/^.*\|/, '');
  const outs = info.clips.map((c, ci) => path.join(tmp, `${base}.${ci}.pc2`));
  const fpsArgs = forcedFps ? ['--fps', String(forcedFps)] : [];
  const baked = info.clips.map((c, ci) => expect.size ? null : bake(['bake', file, '--clip', c.name, ...fpsArgs, '-o', outs[ci]]));
  for (const name of expect.keys())
    if (!info.clips.some((c) => shortName(c.name) === name)) {
      console.log(`FAIL ${base}: --expect names clip '${name}', which the file does not have`);
      failed = true;
    }
  for (let ci = 0; ci < info.clips.length; ++ci) {
    const c = info.clips[ci];
    const out = outs[ci];
    let ours;
    if (expect.size) {
      if (!expect.has(shortName(c.name))) continue;
      ours = readPc2(expect.get(shortName(c.name)));
    } else {
      const r = await baked[ci];
      if (r.error) {
        console.log(`FAIL ${base} '${c.name}': skinfit bake failed: ${r.stderr}`);
        failed = true;
        continue;
      }
      ours = readPc2(out);
      fs.unlinkSync(out);
    }
    if (ours.n !== nverts) {
      console.log(`FAIL ${base} '${c.name}': ${ours.n} vertices baked, three has ${nverts}`);
      failed = true;
      continue;
    }
    if (!forcedFps && ours.frames !== c.frames) {
      console.log(`FAIL ${base} '${c.name}': ${ours.frames} frames baked, info says ${c.frames}`);
      failed = true;
    }
    const fps = forcedFps || (c.key_rate > 0 ? c.key_rate : 30);
    const clip = gltf.animations[ci];
    mixer.stopAllAction();
    const action = mixer.clipAction(clip);
    action.setLoop(THREE.LoopOnce, 1);
    action.clampWhenFinished = true;
    let clipMax = 0;
    for (let f = 0; f < ours.frames; ++f) {
      const t = c.start + f / fps;
      action.reset();
      action.play();
      mixer.setTime(t);
      gltf.scene.updateMatrixWorld(true);
      let base3 = f * ours.n * 3, vi = 0;
      for (const m of surface) {
        const cnt = m.geometry.attributes.position.count;
        const isAttached = !m.isSkinnedMesh && skin >= 0;
        for (let i = 0; i < cnt; ++i, ++vi) {
          m.getVertexPosition(i, v);
          v.applyMatrix4(m.matrixWorld);
          const o = base3 + 3 * vi;
          const dx = v.x - ours.pos[o], dy = v.y - ours.pos[o + 1], dz = v.z - ours.pos[o + 2];
          const d = Math.sqrt(dx * dx + dy * dy + dz * dz);
          const m0 = 3 * vi; // motion against frame 0: the clip is not a still
          const mv = Math.hypot(ours.pos[o] - ours.pos[m0], ours.pos[o + 1] - ours.pos[m0 + 1], ours.pos[o + 2] - ours.pos[m0 + 2]);
          if (mv > motion) motion = mv;
          if (isAttached && d > attachedWorstAbs) attachedWorstAbs = d;
          if (d > clipMax) { clipMax = d; if (d > fileWorstAbs) { fileWorstAbs = d; where = `clip '${c.name}' frame ${f} (t=${t.toFixed(4)}) vertex ${vi}`; } }
          if (v.x < bbMin[0]) bbMin[0] = v.x; if (v.x > bbMax[0]) bbMax[0] = v.x;
          if (v.y < bbMin[1]) bbMin[1] = v.y; if (v.y > bbMax[1]) bbMax[1] = v.y;
          if (v.z < bbMin[2]) bbMin[2] = v.z; if (v.z > bbMax[2]) bbMax[2] = v.z;
        }
      }
      ++fileFrames;
    }
    action.stop();
    mixer.uncacheClip(clip);
    devs.push([c.name, clipMax]);
  }
  const diag = Math.hypot(bbMax[0] - bbMin[0], bbMax[1] - bbMin[1], bbMax[2] - bbMin[2]);
  fileWorst = diag > 0 ? fileWorstAbs / diag : fileWorstAbs;
  // every file's clips move the surface by a sizeable fraction of the model
  const ok = fileWorst <= TOL && info.clips.length > 0 && motion > 0.01 * diag && devs.length > 0;
  if (!ok) failed = true;
  for (const [name, d] of devs)
    if (d > TOL * diag) console.log(`  over tolerance: ${base} '${name}': ${(d / diag).toExponential(2)} of diagonal`);
  const nattached = order.filter(([, a]) => a).length;
  const line = `${ok ? 'ok  ' : 'FAIL'} ${base}: ${devs.length} clips, ${fileFrames} frames, ${nverts} vertices` +
    (nattached ? ` (${nattached} attached mesh${nattached > 1 ? 'es' : ''}: worst deviation there ${(diag > 0 ? attachedWorstAbs / diag : attachedWorstAbs).toExponential(2)} of diagonal)` : '') +
    (expect.size ? ' against the given point caches' : '') +
    `, largest motion ${(motion / diag).toFixed(3)} of diagonal, worst deviation ${fileWorstAbs.toExponential(3)} = ${fileWorst.toExponential(3)} of diagonal ${diag.toPrecision(5)}` +
    (where ? ` at ${where}` : '');
  console.log(line);
  console.log('     per clip (of diagonal): ' + devs.map(([n, d]) => `${n.replace(/^.*\|/, '')} ${(d / diag).toExponential(1)}`).join(', '));
  summary.push(fileWorst);
}
fs.rmSync(tmp, { recursive: true, force: true });
console.log(`${files.length} files, worst deviation over all ${Math.max(...summary).toExponential(3)} of diagonal ` +
  `(tolerance ${TOL}), ${((Date.now() - t0) / 1000).toFixed(1)} s`);
process.exit(failed ? 1 : 0);
