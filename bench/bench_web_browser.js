// Drives web/bench/ in headless Chromium (npm playwright-core, system chromium) and prints the
// worker's bench output. Usage: node bench/bench_web_browser.js [repetitions]
'use strict';
const path = require('path'), {spawn} = require('child_process');
const root = path.resolve(__dirname, '..');
const {chromium} = require(path.join(root, 'node_modules/playwright-core'));
(async () => {
  const server = spawn(process.execPath, [path.join(root, 'web/serve.js'), '0'], {stdio: ['ignore', 'pipe', 'inherit']});
  const base = await new Promise((res) => server.stdout.on('data', (d) => { const m = /http:\/\/[^/]+/.exec(String(d)); if (m) res(m[0]); }));
  const b = await chromium.launch({executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox']});
  try {
    const p = await b.newPage();
    await p.goto(`${base}/web/bench/index.html?reps=${process.argv[2] || 3}`);
    await p.waitForFunction(() => window.benchDone, null, {timeout: 600000});
    for (const l of await p.evaluate(() => window.benchLines)) console.log(l);
  } finally {
    await b.close();
    server.kill();
  }
})().catch((e) => { console.error(e.message); process.exit(1); });
