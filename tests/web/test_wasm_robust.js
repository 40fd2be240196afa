// Bad documents handed to the WASM core's builder (web/src/skfw.c through web/skinfit.js) give
// one error naming the place, never a crash (a WebAssembly trap, an abort) and never a leak of
// the module's state: out-of-range indices everywhere the builder reads one, spans past their
// buffer, bad types, a hierarchy cycle, attribute type mismatches, index values past the vertex
// count, every truncation of the GLB at 64 lengths, and byte flips in the BIN chunk (then solved).
// The module must still solve a good pair afterwards. Usage: node test_wasm_robust.js
'use strict';
const fs = require('fs'), path = require('path'), os = require('os'), {execFileSync} = require('child_process');
const root = process.env.SKF_SOURCE_DIR || path.resolve(__dirname, '../..');
const core = path.join(root, 'web/build/skinfit_core.js');
if (!fs.existsSync(core)) { console.log('SKIPPED: web/build/skinfit_core.js not built (scripts/web.sh)'); process.exit(77); }
const Skinfit = require(path.join(root, 'web/skinfit.js'));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skf-wasm-robust-'));
let failed = 0, passed = 0;

function glb(json, bin) {
  let j = Buffer.from(JSON.stringify(json));
  j = Buffer.concat([j, Buffer.alloc((4 - (j.length % 4)) % 4, 0x20)]);
  const b = Buffer.concat([bin, Buffer.alloc((4 - (bin.length % 4)) % 4)]);
  const h = Buffer.alloc(12), hj = Buffer.alloc(8), hb = Buffer.alloc(8);
  h.writeUInt32LE(0x46546c67, 0); h.writeUInt32LE(2, 4); h.writeUInt32LE(12 + 8 + j.length + 8 + b.length, 8);
  hj.writeUInt32LE(j.length, 0); hj.writeUInt32LE(0x4e4f534a, 4); hb.writeUInt32LE(b.length, 0); hb.writeUInt32LE(0x004e4942, 4);
  return new Uint8Array(Buffer.concat([h, hj, j, hb, b]));
}

(async () => {
  const bin = process.env.SKF_BIN;
  const cre = path.join(tmp, 'c.glb'), aw = path.join(tmp, 'aw.glb');
  execFileSync(bin, ['demo-asset', '-o', cre, '--vertices', '800']);
  execFileSync(bin, ['autoweights', cre, '-o', aw]);
  const sk = await Skinfit.load();
  const srcBytes = new Uint8Array(fs.readFileSync(cre)), awBytes = new Uint8Array(fs.readFileSync(aw));
  const src = sk.parseGlb(srcBytes, 'c.glb');
  const {json, bin: binChunk} = Skinfit.parseContainer(awBytes, 'aw.glb');
  const B = Buffer.from(binChunk);
  const clone = () => JSON.parse(JSON.stringify(json));
  const accOf = (j, name) => j.meshes[0].primitives[0].attributes[name];
  // append uint32 values to the BIN chunk as a new view + accessor; use(accessor) wires it in
  const extra = (j, values, ctype, type, use) => {
    const add = Buffer.alloc(values.length * 4);
    values.forEach((v, i) => add.writeUInt32LE(v >>> 0, 4 * i));
    const v = j.bufferViews.push({buffer: 0, byteOffset: B.length, byteLength: add.length}) - 1;
    const a = j.accessors.push({bufferView: v, componentType: ctype, count: values.length, type}) - 1;
    j.buffers[0].byteLength = B.length + add.length;
    use(a);
    return add;
  };
  const mutations = [
    ['accessor bufferView out of range', (j) => { j.accessors[0].bufferView = 999; }],
    ['accessor count past its view', (j) => { j.accessors[0].count = 1e9; }],
    ['accessor byteOffset past its view', (j) => { j.accessors[1].byteOffset = 1 << 30; }],
    ['accessor type unknown', (j) => { j.accessors[0].type = 'VEC7'; }],
    ['accessor componentType unknown', (j) => { j.accessors[0].componentType = 1234; }],
    ['accessor normalized float', (j) => { j.accessors[0].normalized = true; }],
    ['accessor count 0', (j) => { j.accessors[2].count = 0; }],
    ['bufferView past the buffer', (j) => { j.bufferViews[0].byteLength = 1 << 30; }],
    ['bufferView stride 3', (j) => { j.bufferViews[0].byteStride = 3; }],
    ['bufferView buffer out of range', (j) => { j.bufferViews[0].buffer = 5; }],
    ['buffer byteLength above the BIN chunk', (j) => { j.buffers[0].byteLength = 1 << 30; }],
    ['node child cycle', (j) => { j.nodes[0].children = [1]; j.nodes[1].children = (j.nodes[1].children || []).concat([0]); }],
    ['node is its own child', (j) => { j.nodes[2].children = [2]; }],
    ['node child out of range', (j) => { j.nodes[0].children = [9999]; }],
    ['node with two parents', (j) => { const c = j.nodes[1].children[0]; j.nodes[0].children = (j.nodes[0].children || []).concat([c]); }],
    ['node mesh out of range', (j) => { j.nodes[j.nodes.length - 1].mesh = 7; }],
    ['node skin out of range', (j) => { j.nodes[j.nodes.length - 1].skin = 7; }],
    ['node zero quaternion', (j) => { j.nodes[1].rotation = [0, 0, 0, 0]; }],
    ['node NaN translation', (j) => { j.nodes[1].translation = [null, 0, 0]; }],
    ['primitive indices out of range', (j) => { j.meshes[0].primitives[0].indices = 999; }],
    ['primitive attribute out of range', (j) => { j.meshes[0].primitives[0].attributes.POSITION = 999; }],
    ['POSITION not VEC3 float', (j) => { j.meshes[0].primitives[0].attributes.POSITION = accOf(j, 'WEIGHTS_0'); }],
    ['JOINTS_0 float', (j) => { j.meshes[0].primitives[0].attributes.JOINTS_0 = accOf(j, 'WEIGHTS_0'); }],
    ['indices values past the vertex count', (j) => extra(j, [0, 1, 1e6], 5125, 'SCALAR', (a) => { j.meshes[0].primitives[0].indices = a; })],
    ['primitive mode 9', (j) => { j.meshes[0].primitives[0].mode = 9; }],
    ['morph target out of range', (j) => { j.meshes[0].primitives[0].targets = [{POSITION: 999}]; }],
    ['skin joint out of range', (j) => { j.skins[0].joints[3] = 9999; }],
    ['skin inverseBindMatrices not MAT4', (j) => { j.skins[0].inverseBindMatrices = accOf(j, 'POSITION'); }],
    ['skin skeleton out of range', (j) => { j.skins[0].skeleton = 9999; }],
    ['sampler input out of range', (j) => { j.animations[0].samplers[0].input = 999; }],
    ['sampler input not SCALAR', (j) => { j.animations[0].samplers[0].input = accOf(j, 'POSITION'); }],
    ['sampler interpolation unknown', (j) => { j.animations[0].samplers[0].interpolation = 'SMOOTH'; }],
    ['channel node out of range', (j) => { j.animations[0].channels[0].target.node = 9999; }],
    ['channel sampler out of range', (j) => { j.animations[0].channels[0].sampler = 999; }],
    ['sparse indices not increasing', (j) => extra(j, [5, 5, 0, 0, 0, 0, 0, 0], 5125, 'SCALAR', (a) => {
      const v = j.accessors[a].bufferView;
      j.accessors[accOf(j, 'POSITION')].sparse = {count: 2, indices: {bufferView: v, componentType: 5125}, values: {bufferView: v, byteOffset: 8}}; })],
    ['sparse indices past the count', (j) => extra(j, [1, 1e6, 0, 0, 0, 0, 0, 0], 5125, 'SCALAR', (a) => {
      const v = j.accessors[a].bufferView;
      j.accessors[accOf(j, 'POSITION')].sparse = {count: 2, indices: {bufferView: v, componentType: 5125}, values: {bufferView: v, byteOffset: 8}}; })],
  ];
  const bad = (e) => e instanceof WebAssembly.RuntimeError || /abort|out of bounds|unreachable/i.test(String(e && e.message));
  const attempt = (what, bytes) => {
    let doc = null;
    try {
      doc = sk.parseGlb(bytes, 'mut.glb');
      const r = sk.transfer(src, doc, 'Walk', {mode: 'both'});
      r.free();
      return 'ran';
    } catch (e) {
      if (bad(e)) { failed++; console.error(`FAIL ${what}: crash: ${e.message}`); return 'crash'; }
      return e.message;
    } finally {
      if (doc) doc.free();
    }
  };
  for (const [what, f] of mutations) {
    const j = clone();
    const add = f(j);
    const res = attempt(what, glb(j, add ? Buffer.concat([B, add]) : B));
    const ok = res !== 'crash' && res !== 'ran' && /mut\.glb|aw|transfer|solver|align/.test(res);
    if (ok) passed++; else if (res !== 'crash') { failed++; console.error(`FAIL ${what}: ${res}`); }
    console.log(`  ${what}: ${res}`);
  }
  let truncErrors = 0;
  for (let k = 0; k < 64; ++k) {
    const n = Math.floor((awBytes.length * k) / 64);
    const res = attempt(`truncated at ${n}`, awBytes.slice(0, n));
    if (res !== 'crash') { passed++; if (res !== 'ran') truncErrors++; }
  }
  console.log(`  64 truncations: ${truncErrors} refused with an error, ${64 - truncErrors} ran, no crash`);
  let flipRan = 0;
  for (let k = 0; k < 24; ++k) {
    const b2 = Buffer.from(B);
    for (let t = 0; t < 8; ++t) b2[(k * 7919 + t * 104729) % b2.length] ^= 0xff;
    const res = attempt(`BIN flips ${k}`, glb(json, b2));
    if (res !== 'crash') { passed++; if (res === 'ran') flipRan++; }
  }
  console.log(`  24 BIN-chunk corruptions: ${flipRan} solved, ${24 - flipRan} refused, no crash`);
  const good = sk.parseGlb(awBytes, 'aw.glb');
  const r = sk.transfer(src, good, 'Walk', {mode: 'free'});
  const q = r.figures('free').quality;
  if (q > 0.5) passed++; else { failed++; console.error(`FAIL the module no longer solves: quality ${q}`); }
  console.log(`  afterwards a good pair still solves: free quality ${(100 * q).toFixed(6)} %`);
  fs.rmSync(tmp, {recursive: true, force: true});
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
})().catch((e) => { console.error(e.stack || e.message); process.exit(1); });
