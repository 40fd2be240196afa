// Test helper: the terminal table (stdout of skinfit transfer/control/demo)
// and the JSON report carry the same numbers, and the report follows the
// schema of docs/transfer-report.md.
// usage: node check_report.mjs TABLE.txt REPORT.json
import fs from 'node:fs';

const [tablePath, reportPath] = process.argv.slice(2);
const table = fs.readFileSync(tablePath, 'utf8').split('\n');
const rep = JSON.parse(fs.readFileSync(reportPath, 'utf8'));
let fails = 0, compared = 0;
const fail = (m) => { console.error('FAIL: ' + m); ++fails; };
for (const k of ['source', 'target', 'diagonal', 'constraints', 'clips'])
  if (!(k in rep)) fail(`report lacks "${k}"`);
if (!(rep.diagonal > 0)) fail('diagonal not positive');
const runs = { control: 'control', free: 'free', 'rotation-only': 'rotation_only' };
// same number within half a unit of the last printed digit
const same = (printed, value, fixedDigits) => {
  const p = Number(printed);
  if (fixedDigits !== undefined) return Math.abs(p - value) <= 0.5 * 10 ** -fixedDigits * (1 + 1e-9);
  const exp = Math.floor(Math.log10(Math.abs(p) || 1e-300));
  return Math.abs(p - value) <= 0.5e-3 * 10 ** exp * (1 + 1e-9) || (p === 0 && value === 0);
};
for (const clip of rep.clips) {
  for (const k of ['name', 'frames', 'seconds']) if (!(k in clip)) fail(`clip lacks "${k}"`);
  for (const [label, key] of Object.entries(runs)) {
    const m = clip[key];
    const row = table.find((l) => {
      const f = l.trim().split(/\s+/);
      return f[0] === clip.name && f[1] === String(clip.frames) && f[2] === label;
    });
    if (!m) { if (row) fail(`${clip.name} ${label}: in the table, not in the report`); continue; }
    for (const k of ['quality', 'mean_error_pct', 'max_error_pct'])
      if (typeof m[k] !== 'number') fail(`${clip.name}.${key}.${k} missing`);
    if (!Array.isArray(m.per_frame) || m.per_frame.length !== clip.frames) fail(`${clip.name}.${key}.per_frame`);
    if (!row) { fail(`${clip.name} ${label}: in the report, not in the table`); continue; }
    const f = row.trim().split(/\s+/);
    const checks = [[f[3], 100 * m.quality, 6], [f[4], m.mean_error_pct], [f[5], m.max_error_pct],
                    [f[6], m.sweeps_per_frame, 1], [f[7], m.solve_seconds, 3]];
    for (const [p, v, d] of checks) {
      ++compared;
      if (!same(p, v, d)) fail(`${clip.name} ${label}: table ${p} vs report ${v}`);
    }
    // attached meshes (issue 12 §3): one row each right under the run's row: name, mean, worst
    const att = m.attachments || [];
    if (att.length && (key === 'control' || !Array.isArray(rep.attachments) || rep.attachments.length !== att.length))
      fail(`${clip.name}.${key}.attachments: not matching the report's top-level attachments`);
    const at = table.indexOf(row);
    att.forEach((a, i) => {
      const g = (table[at + 1 + i] || '').trim().split(/\s+/);
      if (g[0] !== a.name) { fail(`${clip.name} ${label}: no table row for attachment ${a.name}`); return; }
      for (const [p, v] of [[g[1], a.mean_error_pct], [g[2], a.max_error_pct]]) {
        ++compared;
        if (!same(p, v)) fail(`${clip.name} ${label} ${a.name}: table ${p} vs report ${v}`);
      }
    });
  }
}
console.log(`${rep.clips.length} clips, ${compared} numbers compared between table and report, ${fails} mismatches`);
process.exit(fails ? 1 : 0);
