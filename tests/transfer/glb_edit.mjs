// Test helper: edit the JSON chunk of a GLB (node only, no dependencies).
// usage: node glb_edit.mjs IN.glb OUT.glb OP [ARG]
//   strip-skin        remove skins and every node's "skin" (a mesh without a rig)
//   empty-clip NAME   drop the target node of every channel of the animation
//                     whose name ends with NAME (a clip with no frames)
//   clip-end NAME=S   set the last key time of every sampler of that animation to S
//                     seconds (float32, accessor max too): a clip of a huge time range
import fs from 'node:fs';

const [inp, out, op, arg] = process.argv.slice(2);
const b = fs.readFileSync(inp);
if (b.readUInt32LE(0) !== 0x46546c67) throw new Error('not a GLB');
const jsonLen = b.readUInt32LE(12);
const json = JSON.parse(b.subarray(20, 20 + jsonLen).toString('utf8'));
const rest = b.subarray(20 + jsonLen);
if (op === 'strip-skin') {
  delete json.skins;
  for (const n of json.nodes || []) delete n.skin;
} else if (op === 'empty-clip') {
  const a = (json.animations || []).find((x) => (x.name || '').endsWith(arg));
  if (!a) throw new Error('no clip ' + arg);
  for (const c of a.channels) delete c.target.node;
} else if (op === 'clip-end') {
  const [name, secs] = arg.split('=');
  const a = (json.animations || []).find((x) => (x.name || '').endsWith(name));
  if (!a) throw new Error('no clip ' + name);
  // rest = BIN chunk header (8 bytes) + data
  for (const s of a.samplers) {
    const acc = json.accessors[s.input];
    const view = json.bufferViews[acc.bufferView];
    const at = 8 + (view.byteOffset || 0) + (acc.byteOffset || 0) + 4 * (acc.count - 1);
    rest.writeFloatLE(Number(secs), at);
    if (acc.max) acc.max = [Math.fround(Number(secs))];
  }
} else {
  throw new Error('unknown op ' + op);
}
let text = Buffer.from(JSON.stringify(json), 'utf8');
const pad = (4 - (text.length % 4)) % 4;
text = Buffer.concat([text, Buffer.alloc(pad, 0x20)]);
const head = Buffer.alloc(20);
head.writeUInt32LE(0x46546c67, 0);
head.writeUInt32LE(2, 4);
head.writeUInt32LE(20 + text.length + rest.length, 8);
head.writeUInt32LE(text.length, 12);
head.writeUInt32LE(0x4e4f534a, 16);
fs.writeFileSync(out, Buffer.concat([head, text, rest]));
