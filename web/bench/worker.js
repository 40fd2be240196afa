// Runs bench/bench_solve.c compiled to WebAssembly (build-web/bench_solve_wasm.js, copied to
// web/build/ by scripts/web.sh) inside a Web Worker; every printed line is posted to the page.
/* global importScripts */
var Module = {arguments: [String(self.name || '3')], print: (t) => postMessage(t), printErr: (t) => postMessage('! ' + t),
  onExit: () => postMessage('__done__')};
importScripts('../build/bench_solve_wasm.js');
