// The WebAssembly core against the native build (issue #14): the procedural creature's Walk onto
// its autoweights rig, and Horse Walk onto its autoweights rig (shared Quaternius data), solved in
// WASM from the GLB bytes (web/skinfit.js parses them; the C core does the rest) must give the
// native CLI's report — quality, mean and max error of every run (control, free, rotation-only),
// overall and per frame, sweeps and Newton iterations per frame — and the native build's
// per-vertex errors of the heat-map scene (tests/web/skfw_native.c, the same glue compiled
// natively).
// Tolerance: |a - b| <= 1e-9 * max(|a|, |b|). Error figures at the rounding floor cannot meet a
// relative bound: the control run's errors (~1e-8 of the diagonal) are float64 rounding noise, and
// glibc's and emscripten's libm differ in the last place for some inputs (the clip sampler's slerp
// calls acos and sin), which moves
// that noise (measured: 2.4e-14 of the Horse's diagonal). For errors only, the bound is therefore
// also met by |a - b| <= 1e-13 * diagonal (scene units; 1e-11 in % of the diagonal), well below 1e-9 of the
// colour map's first bin (0.25 %). Quality, iteration counts and every free / rotation-only figure are held
// to the relative bound alone. Counts and worst deviations print.
// Usage: node test_wasm_core.js SKFW_NATIVE   (env SKF_BIN, SKF_DATA, SKF_SOURCE_DIR)
'use strict';
const fs = require('fs'), path = require('path'), os = require('os'), {execFileSync} = require('child_process');

const native = process.argv[2];
const bin = process.env.SKF_BIN, data = process.env.SKF_DATA || '';
const srcDir = process.env.SKF_SOURCE_DIR || path.resolve(__dirname, '../..');
const core = path.join(srcDir, 'web/build/skinfit_core.js');
if (!fs.existsSync(core)) {
  console.log(`SKIPPED: ${core} not built (scripts/web.sh builds it; needs Debian emscripten)`);
  process.exit(77);
}
const Skinfit = require(path.join(srcDir, 'web/skinfit.js'));
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'skf-wasm-'));
let failed = 0, checked = 0;

function cmp(stats, what, a, b, floor) {
  const d = Math.abs(a - b), tol = Math.max(1e-9 * Math.max(Math.abs(a), Math.abs(b)), floor || 0);
  stats.n++;
  checked++;
  const rel = d === 0 ? 0 : d / Math.max(Math.abs(a), Math.abs(b));
  if (rel > stats.rel) stats.rel = rel;
  if (d > stats.abs) stats.abs = d;
  if (a === b) stats.same++;
  if (!(d <= tol)) {
    if (failed < 20) console.error(`FAIL ${what}: wasm ${a} native ${b} (|d| ${d.toExponential(2)} > ${tol.toExponential(2)})`);
    failed++;
  }
}
const newStats = () => ({n: 0, same: 0, rel: 0, abs: 0});
const show = (name, s) => console.log(`  ${name}: ${s.n} values, ${s.same} bit-identical, worst relative ${s.rel.toExponential(2)}, worst absolute ${s.abs.toExponential(2)}`);

async function run(name, source, target, clip) {
  const out = path.join(tmp, name);
  execFileSync(bin, ['transfer', '--source', source, '--target', target, '--clip', clip, '--mode', 'both',
    '-o', out + '_transfer.glb', '--report', out + '_report.json'], {stdio: ['ignore', 'ignore', 'pipe']});
  execFileSync(native, [source, target, clip, out + '_native']);
  const report = JSON.parse(fs.readFileSync(out + '_report.json', 'utf8')).clips[0];
  const nat = JSON.parse(fs.readFileSync(out + '_native.json', 'utf8'));
  const natErr = new Float64Array(new Uint8Array(fs.readFileSync(out + '_native.bin')).buffer);

  const sk = await Skinfit.load();
  const t0 = Date.now();
  const src = sk.parseGlb(fs.readFileSync(source), path.basename(source));
  const tgt = sk.parseGlb(fs.readFileSync(target), path.basename(target));
  const r = sk.transfer(src, tgt, clip, {mode: 'both'});
  const solveMs = Date.now() - t0;
  const diag = r.targetDiagonal, sdiag = r.sourceDiagonal;
  console.log(`${name}: ${r.frames} frames, ${r.constraints} constraints, ${r.joints} joints; WASM transfer ${solveMs} ms`);

  // 1. the CLI report
  const fig = newStats(), frames = newStats();
  for (const [run, key] of [['control', 'control'], ['free', 'free'], ['rotation-only', 'rotation_only']]) {
    const w = r.figures(run), c = report[key];
    const floorPct = 1e-11; // % of the diagonal: 1e-13 of it
    cmp(fig, `${name} ${run} quality`, w.quality, c.quality);
    cmp(fig, `${name} ${run} mean_error_pct`, w.mean_error_pct, c.mean_error_pct, floorPct);
    cmp(fig, `${name} ${run} max_error_pct`, w.max_error_pct, c.max_error_pct, floorPct);
    cmp(fig, `${name} ${run} sweeps_per_frame`, w.sweeps_per_frame, c.sweeps_per_frame);
    cmp(fig, `${name} ${run} newton_iterations_per_frame`, w.iterations_per_frame, c.newton_iterations_per_frame);
    cmp(fig, `${name} ${run} frames_at_cap`, w.frames_at_cap, c.frames_at_cap);
    const q = r.frameSeries(run, 'quality'), mean = r.frameSeries(run, 'mean'), max = r.frameSeries(run, 'max');
    c.per_frame.forEach((pf, f) => {
      cmp(frames, `${name} ${run} frame ${f} quality`, q[f], pf.quality);
      cmp(frames, `${name} ${run} frame ${f} mean`, mean[f], pf.mean_error_pct, floorPct);
      cmp(frames, `${name} ${run} frame ${f} max`, max[f], pf.max_error_pct, floorPct);
    });
    if (c.per_frame.length !== r.frames) { console.error(`FAIL ${name} ${run}: ${c.per_frame.length} report frames`); failed++; }
  }
  show('report figures vs CLI', fig);
  show('per-frame figures vs CLI', frames);

  // 2. the same glue natively: figures and the heat-map scene's per-vertex errors
  const same = newStats();
  nat.runs.forEach((nr, run) => {
    const w = r.figures(['control', 'free', 'rotation-only'][run]);
    ['quality', 'mean_error_pct', 'max_error_pct', 'sweeps_per_frame', 'iterations_per_frame', 'frames_at_cap']
      .forEach((k, i) => cmp(same, `${name} native glue run ${run} ${k}`, w[k], nr.figures[i], i === 1 || i === 2 ? 1e-11 : 0));
  });
  const scene = sk.scene(r);
  scene.add('control', r, 'control');
  scene.add('target', r, 'free');
  const perVertex = newStats();
  let at = 0;
  for (let rig = 0; rig < 2; ++rig) {
    const d = rig === 0 ? sdiag : diag;
    for (let f = 0; f < scene.frames; ++f) {
      const e = scene.errors(rig, f);
      for (let j = 0; j < e.length; ++j, ++at) cmp(perVertex, `${name} rig ${rig} frame ${f} vertex ${j}`, e[j], natErr[at], 1e-13 * d);
    }
  }
  if (at !== natErr.length) { console.error(`FAIL ${name}: ${at} WASM vs ${natErr.length} native per-vertex errors`); failed++; }
  show('figures vs native glue', same);
  show('per-vertex errors vs native (control + target, every frame)', perVertex);
  scene.free();
  r.free();
  src.free();
  tgt.free();
}

(async () => {
  const cre = path.join(tmp, 'creature.glb'), creAw = path.join(tmp, 'creature_aw.glb');
  execFileSync(bin, ['demo-asset', '-o', cre]);
  execFileSync(bin, ['autoweights', cre, '-o', creAw]);
  await run('creature', cre, creAw, 'Walk');
  const horse = path.join(data, 'quaternius/animals/Horse.glb');
  if (fs.existsSync(horse)) {
    const aw = path.join(tmp, 'Horse_aw.glb');
    execFileSync(bin, ['autoweights', horse, '-o', aw], {stdio: ['ignore', 'ignore', 'pipe']});
    await run('Horse', horse, aw, 'Walk');
  } else {
    console.log(`Horse: skipped (no shared data at ${data})`);
  }
  fs.rmSync(tmp, {recursive: true, force: true});
  console.log(`${checked - failed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
})().catch((e) => { console.error(e.stack || e.message); process.exit(1); });
