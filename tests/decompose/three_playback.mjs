// three.js playback of a `skinfit decompose` GLB against our own
// reconstruction (issue 4, acceptance 3 and 5): GLTFLoader in Node,
// AnimationMixer.setTime(k / fps) for every frame k, SkinnedMesh
// getVertexPosition (morph targets, then skinning) mapped by matrixWorld,
// compared with frame k of the MDD written by --reconstruction.
// Tolerance: 1e-5 x the bounding-box diagonal of frame 0, every vertex of
// every frame. usage: node three_playback.mjs OUT.glb RECON.mdd FPS
// Exit 0 agree, 1 deviation or error, 77 three.js absent.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [glb, mdd, fpsArg] = process.argv.slice(2);
const src = process.env.SKF_SOURCE_DIR || path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const threeDir = path.join(src, 'node_modules', 'three');
if (!fs.existsSync(path.join(threeDir, 'package.json'))) {
  console.log(`SKIPPED: three.js not installed under ${threeDir}`);
  process.exit(77);
}
const THREE = await import(pathToFileURL(path.join(threeDir, 'build', 'three.module.js')).href);
const { GLTFLoader } = await import(
  pathToFileURL(path.join(threeDir, 'examples', 'jsm', 'loaders', 'GLTFLoader.js')).href);

// MDD: big-endian int32 frames, int32 points, float32 times[frames], positions.
const b = fs.readFileSync(mdd);
const frames = b.readInt32BE(0), n = b.readInt32BE(4);
const pos = (f, i, a) => b.readFloatBE(8 + 4 * frames + ((f * n + i) * 3 + a) * 4);
const fps = Number(fpsArg);

const buf = fs.readFileSync(glb);
const gltf = await new Promise((resolve, reject) =>
  new GLTFLoader().parse(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length), '', resolve, reject));
let mesh = null;
gltf.scene.traverse((o) => { if (o.isSkinnedMesh && !mesh) mesh = o; });
if (!mesh) { console.log(`FAIL ${glb}: no skinned mesh`); process.exit(1); }
if (mesh.geometry.attributes.position.count !== n) {
  console.log(`FAIL ${glb}: ${mesh.geometry.attributes.position.count} vertices, MDD has ${n}`);
  process.exit(1);
}
const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
for (let i = 0; i < n; ++i)
  for (let a = 0; a < 3; ++a) { lo[a] = Math.min(lo[a], pos(0, i, a)); hi[a] = Math.max(hi[a], pos(0, i, a)); }
const diag = Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
const mixer = new THREE.AnimationMixer(gltf.scene);
const action = mixer.clipAction(gltf.animations[0]);
action.setLoop(THREE.LoopOnce, 1);
action.clampWhenFinished = true;
const v = new THREE.Vector3();
let worst = 0, where = '', sum = 0;
for (let f = 0; f < frames; ++f) {
  action.reset();
  action.play();
  mixer.setTime(f / fps);
  gltf.scene.updateMatrixWorld(true);
  for (let i = 0; i < n; ++i) {
    mesh.getVertexPosition(i, v);
    v.applyMatrix4(mesh.matrixWorld);
    const d = Math.hypot(v.x - pos(f, i, 0), v.y - pos(f, i, 1), v.z - pos(f, i, 2));
    sum += d;
    if (d > worst) { worst = d; where = `frame ${f} vertex ${i}`; }
  }
}
const rel = worst / diag;
const morphs = mesh.morphTargetInfluences ? mesh.morphTargetInfluences.length : 0;
console.log(`${path.basename(glb)}: ${frames} frames x ${n} vertices, ${morphs} morph targets: ` +
  `max |three - ours| = ${worst.toExponential(3)} (${rel.toExponential(3)} of diagonal ${diag.toFixed(4)}, at ${where}), ` +
  `mean ${(sum / (frames * n)).toExponential(3)}`);
if (!(rel <= 1e-5)) { console.log('FAIL: over 1e-5 of the diagonal'); process.exit(1); }
