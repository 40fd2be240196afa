// The Pose Animator page (web/pose/) in headless Chromium (Debian chromium + npm playwright-core,
// no network), against the native CLI (`skinfit svg`) on the same files:
//  1. a keypoint JSON (PoseNet poses with FaceMesh positions, made here from boy.svg's rest joints:
//     moving limbs, a skipped low-score frame, faces above and below the 0.8 threshold, a weak arm
//     that hides paths) replayed in the page: after N frames every path's data equals the CLI's
//     frame N-1 (frames output), numbers within 1e-6 px, and the same paths hidden;
//  2. the page's "export" (animated SVG) carries the CLI's animated SVG's values for every path
//     (d and display animations), and its "record" file, fed to the CLI, gives the page's frames;
//  3. the page starts the webcam with Chromium's fake camera, runs MediaPipe Pose + FaceMesh from
//     node_modules, reports "no person" frames and keeps running; no console errors.
// Exit 77 when chromium, playwright-core, web/build or ../shared/data/poseanimator is missing.
'use strict';
const fs = require('fs'), path = require('path'), {execFileSync, spawn} = require('child_process');
const root = process.env.SKF_SOURCE_DIR || path.resolve(__dirname, '../..');
const bin = process.env.SKF_BIN, data = process.env.SKF_DATA || path.resolve(root, '../shared/data');
const boy = path.join(data, 'poseanimator/boy.svg');
const chromiumPath = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => fs.existsSync(p));
let playwright = null;
try { playwright = require(path.join(root, 'node_modules/playwright-core')); } catch (e) { /* skipped below */ }
const mediapipe = fs.existsSync(path.join(root, 'node_modules/@mediapipe/pose/pose.js')) &&
  fs.existsSync(path.join(root, 'node_modules/@mediapipe/face_mesh/face_mesh.js'));
if (!chromiumPath || !playwright || !mediapipe || !fs.existsSync(path.join(root, 'web/build/skinfit_core.js')) || !fs.existsSync(boy)) {
  console.log(`SKIPPED: needs chromium (${chromiumPath || 'missing'}), npm playwright-core (${playwright ? 'ok' : 'missing'}), ` +
    `npm @mediapipe/pose + face_mesh (${mediapipe ? 'ok' : 'missing'}), web/build (scripts/web.sh) and ${boy}`);
  process.exit(77);
}
let failed = 0, passed = 0;
const check = (ok, what) => { if (ok) passed++; else { failed++; console.error('FAIL ' + what); } };

/* the keypoint file: PoseNet poses (root space) + Pose Animator face positions */
function makePoses(rest, names, n) {
  const cx = 500, cy = 500, frames = [];
  for (let f = 0; f < n; ++f) {
    const t = f / n, a = 0.25 * Math.sin(2 * Math.PI * t), s = 1 + 0.1 * Math.sin(4 * Math.PI * t);
    const move = ([x, y], j) => {
      const w = 12 * Math.sin(2 * Math.PI * t + j); // per-joint wobble
      const dx = x - cx, dy = y - cy;
      return [cx + s * (Math.cos(a) * dx - Math.sin(a) * dy) + w + 20 * t, cy + s * (Math.sin(a) * dx + Math.cos(a) * dy) - w];
    };
    const keypoints = names.slice(0, 14).map((part, j) => {
      const [x, y] = move(rest[j], j);
      const weak = f < 6 && /^left(Wrist|Elbow|Shoulder)$/.test(part); // the arm's paths below 0.3, then back
      return {part, score: weak ? 0.05 : 0.6 + 0.4 * ((f + j) % 3) / 2, position: {x, y}};
    });
    const frame = {pose: {score: f === 4 ? 0.05 : 0.9, keypoints}};
    if (f % 5 !== 2) {
      const positions = [];
      for (let k = 14; k < 87; ++k) { const [x, y] = move(rest[k], 0); positions.push(x, y); }
      frame.face = {faceInViewConfidence: f % 5 === 3 ? 0.5 : 0.95, positions};
    }
    frames.push(frame);
  }
  return {fps: 12, frames};
}

const numbers = (d) => (d.match(/-?\d+(\.\d+)?(e[-+]?\d+)?/gi) || []).map(Number);
const letters = (d) => d.replace(/[^A-Za-z]/g, '');

async function main() {
  const tmp = path.join(root, 'web/build/test-pose');
  fs.rmSync(tmp, {recursive: true, force: true});
  fs.mkdirSync(tmp, {recursive: true});
  const server = spawn(process.execPath, [path.join(root, 'web/serve.js'), '0'], {stdio: ['ignore', 'pipe', 'inherit']});
  const base = await new Promise((res) => server.stdout.on('data', (d) => { const m = /http:\/\/[^/]+/.exec(String(d)); if (m) res(m[0]); }));
  const browser = await playwright.chromium.launch({executablePath: chromiumPath, headless: true,
    args: ['--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--no-sandbox',
      '--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream']});
  try {
    const ctx = await browser.newContext({viewport: {width: 1100, height: 900}});
    // no network: everything must come from the local server
    const offsite = [];
    await ctx.route('**/*', (r) => { const u = r.request().url(); if (u.startsWith(base) || u.startsWith('data:') || u.startsWith('blob:')) r.continue(); else { offsite.push(u); r.abort(); } });
    const page = await ctx.newPage();
    const errors = [];
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(base + '/web/pose/index.html');
    await page.waitForFunction(() => window.skinfitPose && window.skinfitPose.ready, null, {timeout: 120000});
    const info = await page.evaluate(() => {
      const ch = window.skinfitPose.state.ch, rest = [];
      for (let j = 0; j < 87; ++j) rest.push(ch.restJoint(j));
      return {rest, names: ch.jointNames, paths: ch.pathCount};
    });
    console.log(`boy.svg in the page: ${info.paths} paths`);
    // ears (12, 13) have no marker: place them beside the head
    const head = info.rest[14] || [500, 200];
    info.rest[12] = info.rest[12] || [head[0] + 60, head[1] + 80];
    info.rest[13] = info.rest[13] || [head[0] - 60, head[1] + 80];
    for (let j = 0; j < 87; ++j) info.rest[j] = info.rest[j] || head;
    const N = 12, poses = makePoses(info.rest, info.names, N);
    const poseFile = path.join(tmp, 'poses.json');
    fs.writeFileSync(poseFile, JSON.stringify(poses));
    execFileSync(bin, ['svg', boy, '--pose', poseFile, '-o', path.join(tmp, 'frames')], {stdio: 'ignore'});
    execFileSync(bin, ['svg', boy, '--pose', poseFile, '-o', path.join(tmp, 'anim.svg')], {stdio: 'ignore'});
    await page.evaluate((t) => window.skinfitPose.loadPoses(t, 'poses.json'), JSON.stringify(poses));

    // 1. frame N of the page = the CLI's frame N-1
    let worst = 0, hiddenSeen = 0;
    for (const n of [1, 3, 5, 6, 8, 12]) {
      const cliFrame = fs.readFileSync(path.join(tmp, 'frames', `frame_${String(n - 1).padStart(5, '0')}.svg`), 'utf8');
      const r = await page.evaluate(([n, cli]) => {
        const P = window.skinfitPose, mine = P.replay(n);
        const doc = new DOMParser().parseFromString(cli, 'image/svg+xml');
        const el = Skinfit.svgElements(doc.documentElement), ch = P.state.ch;
        const theirs = [];
        for (let i = 0; i < ch.pathCount; ++i) { const e = el[ch.pathElement(i)].node; theirs.push({d: e.getAttribute('d'), display: e.getAttribute('display')}); }
        return {mine, theirs, stats: P.state.stats};
      }, [n, cliFrame]);
      let same = 0, maxd = 0, shape = 0, disp = 0;
      r.mine.forEach((p, i) => {
        const q = r.theirs[i];
        if (p.d === q.d) same++;
        if (letters(p.d) !== letters(q.d)) { shape++; return; }
        const a = numbers(p.d), b = numbers(q.d);
        if (a.length !== b.length) { shape++; return; }
        a.forEach((v, k) => (maxd = Math.max(maxd, Math.abs(v - b[k]))));
        if ((p.display === 'none') !== (q.display === 'none')) disp++;
        if (q.display === 'none') hiddenSeen++;
      });
      worst = Math.max(worst, maxd);
      check(shape === 0 && maxd <= 1e-6 && disp === 0, `frame ${n}: ${shape} paths of another shape, max |d| ${maxd}, ${disp} display differences`);
      console.log(`frame ${n}: ${same}/${r.mine.length} paths' data identical, max |page - CLI| ${maxd} px, ` +
        `drawn ${r.stats.drawn}, skipped ${r.stats.skipped}`);
    }
    check(hiddenSeen > 0, `some paths hidden in the checked frames (${hiddenSeen})`);

    // 2. export = the CLI's animated SVG values; record -> CLI -> the page's frames
    const exp = await page.evaluate(([n, cli]) => {
      const P = window.skinfitPose;
      P.replay(n);
      const mine = P.exportAnimated(12);
      const values = (text) => {
        const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
        const el = Skinfit.svgElements(doc.documentElement).filter((e) => e.name !== 'animate'), ch = P.state.ch, out = [];
        for (let i = 0; i < ch.pathCount; ++i) {
          const e = el[ch.pathElement(i)].node;
          const an = Array.from(e.getElementsByTagName('animate')).map((a) =>
            ['attributeName', 'calcMode', 'dur', 'repeatCount', 'keyTimes', 'values'].map((k) => a.getAttribute(k)).join('|'));
          out.push([e.localName, e.getAttribute('d'), e.getAttribute('display'), ...an].join('\n'));
        }
        return out;
      };
      const a = values(mine), b = values(cli);
      return {paths: a.length, same: a.filter((v, i) => v === b[i]).length, firstDiff: a.findIndex((v, i) => v !== b[i]),
        rec: P.recording(), bytes: mine.length};
    }, [N, fs.readFileSync(path.join(tmp, 'anim.svg'), 'utf8')]);
    check(exp.same === exp.paths, `export: ${exp.same}/${exp.paths} paths' animations equal the CLI's (first difference: path ${exp.firstDiff})`);
    console.log(`export: ${exp.same}/${exp.paths} paths carry the CLI's d and display animations (${exp.bytes} bytes)`);
    const recFile = path.join(tmp, 'recorded.json');
    fs.writeFileSync(recFile, exp.rec);
    execFileSync(bin, ['svg', boy, '--pose', recFile, '-o', path.join(tmp, 'recorded.svg')], {stdio: 'ignore'});
    const recSame = fs.readFileSync(path.join(tmp, 'recorded.svg'), 'utf8') === fs.readFileSync(path.join(tmp, 'anim.svg'), 'utf8');
    check(recSame, 'record: the CLI on the recorded keypoints writes the same animated SVG as on the original file');
    if (recSame) console.log('record: the CLI on the page\'s recording writes the same animated SVG, byte for byte');

    // 3. the webcam with Chromium's fake camera, MediaPipe from node_modules
    const cam = await page.evaluate(async () => {
      const P = window.skinfitPose;
      try { await P.startWebcam(); } catch (e) { return {error: String(e && e.message || e)}; }
      const t0 = performance.now();
      // MediaPipe on SwiftShader WebGL is slow (about 15 s a frame on the loaded 2-core machine)
      while (P.state.stats.webcamFrames < 3 && performance.now() - t0 < 240000) await new Promise((r) => setTimeout(r, 200));
      const s = {...P.state.stats, status: document.getElementById('status').textContent};
      P.stopWebcam();
      return s;
    });
    if (cam.error) check(false, `webcam: MediaPipe did not start: ${cam.error}`);
    else {
      check(cam.webcamFrames >= 3, `webcam: ${cam.webcamFrames} frames in 240 s`);
      check(cam.noPerson > 0, `webcam: the fake camera's frames report "no person" (${cam.noPerson})`);
      console.log(`webcam: ${cam.webcamFrames} frames through MediaPipe Pose + FaceMesh, ${cam.noPerson} "no person", drawn ${cam.drawn}; status "${cam.status}"`);
    }
    check(offsite.length === 0, `no request left the local server (${offsite.slice(0, 3).join(', ')})`);
    check(errors.length === 0, `console errors: ${errors.slice(0, 5).join(' | ')}`);
    if (process.env.SKF_POSE_SCREENSHOT) {
      await page.evaluate((n) => window.skinfitPose.replay(n), 8);
      await page.screenshot({path: process.env.SKF_POSE_SCREENSHOT});
    }
    console.log(`worst |page - CLI| over the checked frames: ${worst} px`);
  } finally {
    await browser.close();
    server.kill();
  }
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}
main().catch((e) => { console.error(e); process.exit(1); });
