// Static file server for web/ on 127.0.0.1 (scripts/web.sh --serve; the browser tests).
// Serves the repository root so that /web/... and /node_modules/... (three, MediaPipe) resolve,
// and ../shared/data as /data/ when it exists. Prints the address. No other route, no writes.
'use strict';
const http = require('http'), fs = require('fs'), path = require('path');
const root = path.resolve(__dirname, '..');
const data = path.resolve(root, '..', 'shared', 'data');
const port = Number(process.argv[2] || 8417);
const types = {'.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css',
  '.json': 'application/json', '.glb': 'model/gltf-binary', '.svg': 'image/svg+xml', '.png': 'image/png',
  '.wasm': 'application/wasm', '.tflite': 'application/octet-stream', '.binarypb': 'application/octet-stream',
  '.data': 'application/octet-stream'};
const server = http.createServer((req, res) => {
  let url = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  if (url === '/') url = '/web/index.html';
  const base = url.startsWith('/data/') ? data : root;
  const rel = url.startsWith('/data/') ? url.slice(6) : url.slice(1);
  const file = path.resolve(base, rel);
  if (!file.startsWith(base + path.sep)) { res.writeHead(403); res.end(); return; }
  fs.readFile(file, (err, body) => {
    if (err) { res.writeHead(404); res.end('not found'); return; }
    res.writeHead(200, {'Content-Type': types[path.extname(file)] || 'application/octet-stream'});
    res.end(body);
  });
});
server.listen(port, '127.0.0.1', () => {
  console.log(`skinfit web: http://127.0.0.1:${server.address().port}/web/viewer/`);
});
