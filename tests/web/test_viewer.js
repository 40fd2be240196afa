// The transfer viewer (web/viewer/) in headless Chromium (Debian chromium, driven by npm
// playwright-core; no browser download, no network): the creature demo and Horse + its
// autoweights rig are solved in the page's worker (WASM), and
//  1. the page's quality table equals the CLI's table (`skinfit transfer --mode both`) for the
//     same files, every printed number as printed (quality %, mean and max error, sweeps/frame);
//  2. pixels of the rendered canvas at probed vertices (visible, with every incident triangle's
//     vertices in one colour bin) are exactly their error bin's colour (unlit rig panels);
//  3. the page logs no console error.
// Exit 77 when chromium, playwright-core or web/build/skinfit_core.js is missing.
'use strict';
const fs = require('fs'), path = require('path'), {execFileSync, spawn} = require('child_process');
const root = process.env.SKF_SOURCE_DIR || path.resolve(__dirname, '../..');
const bin = process.env.SKF_BIN, data = process.env.SKF_DATA || path.resolve(root, '../shared/data');
const chromiumPath = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => fs.existsSync(p));
let playwright = null;
try { playwright = require(path.join(root, 'node_modules/playwright-core')); } catch (e) { /* skipped below */ }
if (!chromiumPath || !playwright || !fs.existsSync(path.join(root, 'web/build/skinfit_core.js'))) {
  console.log(`SKIPPED: needs chromium (${chromiumPath || 'missing'}), npm playwright-core (${playwright ? 'ok' : 'missing'}) and web/build (scripts/web.sh)`);
  process.exit(77);
}
let failed = 0, passed = 0;
const check = (ok, what) => { if (ok) passed++; else { failed++; console.error('FAIL ' + what); } };

function cliTable(source, target, clip, out) {
  const txt = execFileSync(bin, ['transfer', '--source', source, '--target', target, '--clip', clip, '--mode', 'both',
    '-o', out], {encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe']});
  // rows: CLIP FRAMES RUN QUALITY MEAN MAX SWEEPS SECONDS
  return txt.split('\n').map((l) => l.trim().split(/\s+/)).filter((c) => c.length === 8 && /^(control|free|rotation-only)$/.test(c[2]));
}

async function main() {
  const tmp = path.join(root, 'web/build/test-tmp');
  fs.mkdirSync(tmp, {recursive: true});
  const server = spawn(process.execPath, [path.join(root, 'web/serve.js'), '0'], {stdio: ['ignore', 'pipe', 'inherit']});
  const base = await new Promise((res) => server.stdout.on('data', (d) => { const m = /http:\/\/[^/]+/.exec(String(d)); if (m) res(m[0]); }));
  const browser = await playwright.chromium.launch({executablePath: chromiumPath, headless: true,
    args: ['--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--no-sandbox']});
  try {
    const page = await browser.newPage({viewport: {width: 1280, height: 1000}});
    const errors = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(base + '/web/viewer/index.html');
    const cases = [{name: 'creature demo', click: true, source: path.join(root, 'web/build/assets/creature.glb'),
      target: path.join(root, 'web/build/assets/creature_autoweights.glb'), clip: 'Walk'}];
    cases.push({name: 'two targets side by side', source: cases[0].source, clip: 'Walk',
      targets: [cases[0].target, cases[0].source],
      urls: ['/web/build/assets/creature.glb', ['/web/build/assets/creature_autoweights.glb', '/web/build/assets/creature.glb']]});
    const horse = path.join(data, 'quaternius/animals/Horse.glb');
    if (fs.existsSync(horse)) {
      const aw = path.join(tmp, 'Horse_aw.glb');
      execFileSync(bin, ['autoweights', horse, '-o', aw], {stdio: 'ignore'});
      cases.push({name: 'Horse', source: horse, target: aw, clip: 'Walk',
        urls: ['/data/quaternius/animals/Horse.glb', ['/web/build/test-tmp/Horse_aw.glb']]});
    } else console.log('Horse: skipped (no shared data)');
    for (const c of cases) {
      const t0 = Date.now();
      const before = await page.evaluate(() => window.__viewer.solved || 0);
      if (c.click) await page.click('#demo');
      else await page.evaluate(([s, t, clip]) => window.__viewer.loadUrls(s, t, clip), [base + c.urls[0], c.urls[1].map((u) => base + u), c.clip]);
      await page.waitForFunction((n) => (window.__viewer.solved || 0) > n || window.__viewer.status === 'error', before, {timeout: 600000});
      const st = await page.evaluate(() => [window.__viewer.status, window.__viewer.error]);
      check(st[0] === 'solved', `${c.name}: page status ${st}`);
      if (st[0] !== 'solved') continue;
      console.log(`${c.name}: solved in the page in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      const page_rows = await page.evaluate(() => window.__viewer.tableText());
      // expected rows: control (from the first target's run), then each target's free and rotation-only
      const want = [];
      (c.targets || [c.target]).forEach((t, k) => {
        const cli = cliTable(c.source, t, c.clip, path.join(tmp, k ? `out${k}.glb` : 'out.glb'));
        check(cli.length === 3, `${c.name}: CLI printed ${cli.length} rows for target ${k}`);
        want.push(...(k ? cli.slice(1) : cli));
      });
      check(page_rows.length === want.length, `${c.name}: ${page_rows.length} page rows, ${want.length} CLI rows`);
      want.forEach((r, i) => {
        const p = page_rows[i] || [];
        // page: clip frames rig run quality mean max sweeps
        const same = p[1] === r[1] && p[3] === r[2] && p[4] === r[3] && p[5] === r[4] && p[6] === r[5] && p[7] === r[6];
        check(same, `${c.name} row ${i}: page ${p.join(' ')} vs CLI ${r.join(' ')}`);
        if (same) console.log(`  ${p[2].padEnd(22)} ${r[2].padEnd(14)} page = CLI: ${r.slice(3, 7).join('  ')}`);
      });
      if (c.targets) continue; // the side-by-side case checks the table only
      // the baked GLB the page downloads: replays the CLI's baked clip within 1e-6 of the diagonal
      const b64 = await page.evaluate(() => {
        const u8 = window.__viewer.bakeGlb(0);
        let s = '';
        for (let i = 0; i < u8.length; i += 0x8000) s += String.fromCharCode.apply(null, u8.subarray(i, i + 0x8000));
        return btoa(s);
      });
      const pageGlb = path.join(tmp, 'page_baked.glb');
      fs.writeFileSync(pageGlb, Buffer.from(b64, 'base64'));
      const clipName = await page.evaluate(() => window.__viewer.bakes[0].clip);
      execFileSync(bin, ['bake', pageGlb, '--clip', clipName, '-o', path.join(tmp, 'page.pc2')], {stdio: 'ignore'});
      execFileSync(bin, ['bake', path.join(tmp, 'out.glb'), '--clip', c.clip, '-o', path.join(tmp, 'cli.pc2')], {stdio: 'ignore'});
      const pc2 = (f) => { const b = fs.readFileSync(f); return {n: b.readInt32LE(16), frames: b.readInt32LE(28),
        p: new Float32Array(b.buffer.slice(b.byteOffset + 32, b.byteOffset + b.length))}; };
      const A = pc2(path.join(tmp, 'page.pc2')), B = pc2(path.join(tmp, 'cli.pc2'));
      let lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity], worst = 0;
      for (let j = 0; j < B.n; ++j) for (let a = 0; a < 3; ++a) { lo[a] = Math.min(lo[a], B.p[3 * j + a]); hi[a] = Math.max(hi[a], B.p[3 * j + a]); }
      const diag = Math.hypot(hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]);
      for (let i = 0; i < Math.min(A.p.length, B.p.length); ++i) worst = Math.max(worst, Math.abs(A.p[i] - B.p[i]));
      check(A.n === B.n && A.frames === B.frames && worst <= 1e-6 * diag,
        `${c.name}: page-baked GLB replay vs CLI-baked: ${A.frames}/${B.frames} frames, worst ${(worst / diag).toExponential(2)} of the diagonal`);
      console.log(`  baked GLB (${fs.statSync(pageGlb).size} bytes; CLI ${fs.statSync(path.join(tmp, 'out.glb')).size}): replay = CLI replay within ${(worst / diag).toExponential(2)} of the diagonal over ${A.frames} frames`);
      const val = require('child_process').spawnSync(process.execPath, [path.join(root, 'tests/js/validate.mjs'), pageGlb],
        {encoding: 'utf8', env: {...process.env, SKF_SOURCE_DIR: root}});
      if (val.status !== 77) check(val.status === 0, `${c.name}: gltf-validator on the page's GLB: ${val.stdout.trim()}`);
      console.log(`  gltf-validator: ${val.stdout.trim()}`);
      // pixel colours at probed vertices
      for (const mode of ['free', 'rotation-only']) {
        await page.evaluate((m) => window.__viewer.freeze(Math.floor(window.__viewer.data.frames / 2), m), mode);
        for (const k of [1, 2]) {
          const probes = await page.evaluate((kk) => window.__viewer.probe(kk, 40), k);
          let ok = 0;
          const bins = new Set();
          for (const q of probes) {
            const [px, want] = await page.evaluate(([x, y, b]) => [window.__viewer.pixel(x, y), window.__viewer.data.colors[b]], [q.x, q.y, q.bin]);
            if (px[0] === want[0] && px[1] === want[1] && px[2] === want[2]) ok++;
            else console.error(`  ${c.name} panel ${k} ${mode} vertex ${q.vertex} at (${q.x},${q.y}): pixel ${px} vs bin ${q.bin} colour ${want}`);
            bins.add(q.bin);
          }
          check(probes.length >= 10 && ok === probes.length, `${c.name} panel ${k} ${mode}: ${ok}/${probes.length} probed pixels equal their bin colour`);
          console.log(`  panel ${k} (${k === 1 ? 'control' : 'target'}, ${mode}): ${ok}/${probes.length} probed pixels = bin colour (bins ${[...bins].sort((a, b) => a - b).join(',')})`);
        }
      }
      if (c.click) await page.screenshot({path: path.join(tmp, 'viewer.png')});
    }
    check(errors.length === 0, `console errors: ${errors.join(' | ')}`);
  } finally {
    await browser.close();
    server.kill();
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}
main().catch((e) => { console.error(e.stack || e.message); process.exit(1); });
