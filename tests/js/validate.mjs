// Validate glTF/GLB files with the Khronos glTF-Validator (npm gltf-validator).
// usage: node validate.mjs [--no-warnings] FILE|DIR...   (a DIR means its *.glb / *.gltf)
// Prints one summary line per file (errors / warnings / infos / hints and the
// first messages). Exit 0 when every file has 0 errors (and 0 warnings with
// --no-warnings), 1 otherwise, 77 (skipped) when gltf-validator is not installed
// under $SKF_SOURCE_DIR/node_modules.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const args = process.argv.slice(2);
const noWarnings = args.includes('--no-warnings');
const files = [];
for (const a of args.filter((x) => !x.startsWith('--'))) {
  if (fs.existsSync(a) && fs.statSync(a).isDirectory())
    for (const f of fs.readdirSync(a).sort())
      if (/\.(glb|gltf)$/.test(f)) files.push(path.join(a, f));
  if (fs.existsSync(a) && fs.statSync(a).isFile()) files.push(a);
}
if (files.length === 0) {
  console.log('SKIPPED: no glTF files to validate');
  process.exit(77);
}
const root = process.env.SKF_SOURCE_DIR || path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const modDir = path.join(root, 'node_modules', 'gltf-validator');
if (!fs.existsSync(modDir)) {
  console.log(`SKIPPED: gltf-validator not installed (${modDir})`);
  process.exit(77);
}
const require = createRequire(path.join(root, 'package.json'));
const validator = require(modDir);

let failed = 0;
for (const file of files) {
  const bytes = new Uint8Array(fs.readFileSync(file));
  const report = await validator.validateBytes(bytes, {
    uri: path.basename(file),
    maxIssues: 0,
    externalResourceFunction: (uri) => new Promise((resolve, reject) => {
      fs.readFile(path.resolve(path.dirname(file), decodeURIComponent(uri)), (err, data) => {
        if (err) reject(err.toString()); else resolve(new Uint8Array(data));
      });
    }),
  });
  const s = report.issues;
  const bad = s.numErrors > 0 || (noWarnings && s.numWarnings > 0);
  if (bad) failed++;
  console.log(`${bad ? 'FAIL' : 'ok  '} ${file}: ${s.numErrors} errors, ${s.numWarnings} warnings, ` +
              `${s.numInfos} infos, ${s.numHints} hints`);
  const shown = {};
  for (const m of s.messages) {
    if (m.severity > (noWarnings ? 1 : 0)) continue;
    shown[m.code] = (shown[m.code] || 0) + 1;
    if (shown[m.code] <= 3)
      console.log(`    ${m.severity === 0 ? 'error' : 'warning'} ${m.code} ${m.pointer || ''}: ${m.message}`);
  }
  for (const [code, n] of Object.entries(shown))
    if (n > 3) console.log(`    ... ${n} x ${code} in all`);
}
console.log(`${files.length} files validated, ${failed} failed`);
process.exit(failed ? 1 : 0);
