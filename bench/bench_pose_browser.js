// Pose page bench (printed, not a test): deform + draw per frame for an SVG character in headless
// Chromium. Per frame: the WASM animator's update (smoothing, face, deformation, path hiding),
// every path's data written (pathData) and set on the page's SVG, then a forced style + layout
// (getBoundingClientRect), timed with performance.now(); paint is not included (headless Chromium
// paints on its own schedule). Usage: node bench/bench_pose_browser.js [frames] [character.svg]
'use strict';
const fs = require('fs'), path = require('path'), {spawn} = require('child_process');
const root = path.resolve(__dirname, '..');
const playwright = require(path.join(root, 'node_modules/playwright-core'));
const frames = Number(process.argv[2] || 600);
const svgName = process.argv[3] || 'boy.svg';

(async () => {
  const server = spawn(process.execPath, [path.join(root, 'web/serve.js'), '0'], {stdio: ['ignore', 'pipe', 'inherit']});
  const base = await new Promise((res) => server.stdout.on('data', (d) => { const m = /http:\/\/[^/]+/.exec(String(d)); if (m) res(m[0]); }));
  const browser = await playwright.chromium.launch({executablePath: '/usr/bin/chromium', headless: true,
    args: ['--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--no-sandbox']});
  const page = await browser.newPage({viewport: {width: 1100, height: 900}});
  await page.goto(base + '/web/pose/index.html');
  await page.waitForFunction(() => window.skinfitPose && window.skinfitPose.ready);
  const r = await page.evaluate(async ([n, url]) => {
    const P = window.skinfitPose, S = P.state;
    P.loadCharacter(await P.fetchText(url), url.split('/').pop());
    const ch = S.ch, rest = [];
    for (let j = 0; j < 87; ++j) rest.push(ch.restJoint(j) || ch.restJoint(14) || [ch.width / 2, ch.height / 2]);
    const frame = (t) => {
      const a = 0.3 * Math.sin(2 * Math.PI * t), w = 15 * Math.sin(6 * Math.PI * t);
      const mv = ([x, y], j) => [500 + Math.cos(a) * (x - 500) - Math.sin(a) * (y - 500) + w * Math.sin(j),
        500 + Math.sin(a) * (x - 500) + Math.cos(a) * (y - 500) + w * Math.cos(j)];
      return {poseScore: 0.9, xy: rest.slice(0, 14).map(mv), score: new Array(14).fill(0.9),
        face: {score: 0.95, xy: rest.slice(14).map((p) => mv(p, 0))}};
    };
    const svg = document.querySelector('#character svg');
    const an = S.an, deform = [], total = [];
    for (let i = 0; i < n; ++i) {
      const f = frame(i / 120);
      const t0 = performance.now();
      an.update(f);
      const ds = an.pathData();
      const t1 = performance.now();
      for (let k = 0; k < ds.length; ++k) {
        S.paths[k].setAttribute('d', ds[k]);
        if (!an.visible(k)) S.paths[k].setAttribute('display', 'none'); else if (S.display[k] === null) S.paths[k].removeAttribute('display');
      }
      svg.getBoundingClientRect();
      const t2 = performance.now();
      deform.push(t1 - t0);
      total.push(t2 - t0);
      if (i % 60 === 59) await new Promise((res) => requestAnimationFrame(res)); // let it paint now and then
    }
    const q = (a, p) => { const s = a.slice().sort((x, y) => x - y); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
    return {paths: ch.pathCount, deform50: q(deform, 0.5), total50: q(total, 0.5), total95: q(total, 0.95), totalMean: total.reduce((a, b) => a + b, 0) / n};
  }, [frames, '/data/poseanimator/' + svgName]);
  const load = fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
  console.log(`pose page, ${svgName} (${r.paths} paths), ${frames} frames, headless Chromium, load average ${load}:`);
  console.log(`  deform (WASM update + path data): median ${r.deform50.toFixed(3)} ms`);
  console.log(`  deform + draw (+ setAttribute, style, layout): median ${r.total50.toFixed(3)} ms, p95 ${r.total95.toFixed(3)} ms, mean ${r.totalMean.toFixed(3)} ms (target < 8 ms)`);
  await browser.close();
  server.kill();
})().catch((e) => { console.error(e); process.exit(1); });
