/* web/pose/ — Pose Animator on skinfit's WebAssembly core (web/skinfit.js: core.svgCharacter).
 * The browser parses the SVG (DOMParser) and the keypoint JSON (keypoints.js); the core binds,
 * smooths, deforms, hides paths and writes every path's data; this file puts the data into the
 * page's SVG, runs MediaPipe Pose + FaceMesh on the webcam, records and exports.
 * Test and bench hooks: window.skinfitPose (tests/web/test_pose.js, bench/bench_pose_browser.js). */
'use strict';
(function () {
  const $ = (id) => document.getElementById(id);
  const SVGNS = 'http://www.w3.org/2000/svg';
  const GEOMETRY = ['x', 'y', 'width', 'height', 'rx', 'ry', 'cx', 'cy', 'r', 'x1', 'y1', 'x2', 'y2', 'points'];
  const MP = '../../node_modules/@mediapipe/';
  const S = {core: null, ch: null, an: null, name: '', text: '', paths: [], display: [], track: [],
    raw: [], width: 0, height: 0, frames: null, timer: 0, playing: false, next: 0, fps: 30,
    stats: {drawn: 0, skipped: 0, noPerson: 0, webcamFrames: 0}, ms: [], webcam: null};

  const status = (t) => { $('status').textContent = t; };

  /* the element list of a parsed SVG document, hidden elements hidden, shapes turned into <path>
   * elements with the same attributes minus their geometry (as the CLI writes them back) */
  function prepare(root, ch) {
    const elems = Skinfit.svgElements(root);
    for (const k of ch.hidden()) elems[k].node.setAttribute('display', 'none');
    const paths = [], display = [];
    for (let i = 0; i < ch.pathCount; ++i) {
      let node = elems[ch.pathElement(i)].node;
      if (node.localName !== 'path') {
        const p = node.ownerDocument.createElementNS(SVGNS, 'path');
        for (const a of Array.from(node.attributes)) if (!GEOMETRY.includes(a.name)) p.setAttributeNS(a.namespaceURI, a.name, a.value);
        while (node.firstChild) p.appendChild(node.firstChild);
        node.replaceWith(p);
        node = p;
      }
      display.push(node.getAttribute('display'));
      paths.push(node);
    }
    return {elems, paths, display};
  }

  function loadCharacter(text, name) {
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    const perr = doc.getElementsByTagName('parsererror')[0];
    if (perr) throw new Error(`${name}: not well-formed XML: ${perr.textContent.split('\n')[0]}`);
    const svg = document.importNode(doc.documentElement, true);
    const elems = Skinfit.svgElements(svg);
    const ch = S.core.svgCharacter(elems, name);
    $('character').replaceChildren(svg);
    const p = prepare(svg, ch);
    if (S.an) S.an.free();
    if (S.ch) S.ch.free();
    Object.assign(S, {ch, an: null, name, text, paths: p.paths, display: p.display, width: ch.width, height: ch.height});
    reset();
    status(`${name}: ${ch.pathCount} paths, ${ch.hidden().length} hidden elements` +
      (ch.warnings.length ? `; ${ch.warnings.length} warnings (${ch.warnings[0]})` : ''));
    return ch;
  }

  function reset() {
    if (S.an) S.an.free();
    S.an = S.ch.animator({noSmoothing: !$('smoothing').checked});
    S.track = []; S.raw = []; S.ms = [];
    S.stats = {drawn: 0, skipped: 0, noPerson: 0, webcamFrames: S.stats.webcamFrames};
    draw(S.an.pathData(), true);
  }

  function draw(ds, rest) {
    for (let i = 0; i < ds.length; ++i) {
      const vis = rest || S.an.visible(i), node = S.paths[i];
      node.setAttribute('d', ds[i]);
      const want = vis ? S.display[i] : 'none';
      if (want === null) node.removeAttribute('display'); else node.setAttribute('display', want);
    }
  }

  /* one frame (keypoints.js layout) through the core and onto the page; raw: the frame as the
   * keypoint file holds it (recorded) */
  function apply(frame, raw) {
    const t0 = performance.now();
    const state = S.an.update(frame);
    const ds = S.an.pathData();
    draw(ds, false);
    const t1 = performance.now();
    S.ms.push(t1 - t0);
    const vis = [];
    for (let i = 0; i < ds.length; ++i) vis.push(S.an.visible(i));
    S.track.push({d: ds, vis});
    S.raw.push(raw);
    S.stats[state === 'drawn' ? 'drawn' : 'skipped']++;
    return state;
  }

  function showTiming() {
    if (!S.ms.length) return;
    const ms = S.ms.slice(-120).sort((a, b) => a - b);
    $('timing').textContent = `deform + draw: median ${ms[ms.length >> 1].toFixed(2)} ms per frame`;
  }

  function loadPoses(text, name) {
    const p = SkinfitKeypoints.parse(text, name, S.width, S.height, S.ch);
    let raw = JSON.parse(text);
    raw = raw && !Array.isArray(raw) && raw.frames !== undefined ? raw.frames : raw;
    if (!Array.isArray(raw) || p.frames.length === 1) raw = [raw];
    stop();
    reset();
    Object.assign(S, {frames: p.frames, rawFrames: raw, fps: p.fps > 0 ? p.fps : 30, next: 0, rawWidth: p.width, rawHeight: p.height});
    status(`${name}: ${p.frames.length} frames at ${S.fps} fps`);
    $('play').disabled = false;
    $('export').disabled = false;
    $('save').disabled = false;
    return p;
  }

  function step() {
    if (!S.frames || S.next >= S.frames.length) { stop(); return false; }
    apply(S.frames[S.next], S.rawFrames[S.next] ?? null);
    S.next++;
    status(`${S.name}: frame ${S.next} / ${S.frames.length} (drawn ${S.stats.drawn}, skipped ${S.stats.skipped})`);
    showTiming();
    return true;
  }

  function play() {
    if (S.playing) return;
    S.playing = true;
    $('play').textContent = 'pause';
    const tick = () => { if (S.playing && step()) S.timer = setTimeout(tick, 1000 / S.fps); };
    tick();
  }
  function stop() { S.playing = false; clearTimeout(S.timer); $('play').textContent = 'play'; }

  /* %.10g as C prints it, for the values the CLI prints that way (dur, keyTimes) */
  function g10(x) {
    if (x === 0) return '0';
    const e = Math.floor(Math.log10(Math.abs(x)));
    if (e < -4 || e >= 10) {
      let [m, ex] = x.toExponential(9).split('e');
      if (m.includes('.')) m = m.replace(/0+$/, '').replace(/\.$/, '');
      const n = Number(ex);
      return `${m}e${n < 0 ? '-' : '+'}${String(Math.abs(n)).padStart(2, '0')}`;
    }
    let s = x.toPrecision(10);
    if (s.includes('.')) s = s.replace(/0+$/, '').replace(/\.$/, '');
    return s;
  }

  /* The animated SVG the CLI writes for the frames drawn so far (skinfit svg ... -o out.svg):
   * the same paths' data and display values; bytes differ where the browser's XMLSerializer
   * writes the rest of the document differently from libxml2. */
  function exportAnimated(fps) {
    const n = S.track.length;
    if (!n) throw new Error('nothing drawn yet');
    fps = fps || S.fps;
    const doc = new DOMParser().parseFromString(S.text, 'image/svg+xml');
    const p = prepare(doc.documentElement, S.ch);
    const dur = `${g10(n / fps)}s`;
    const kt = Array.from({length: n}, (_, i) => g10(i / n)).join(';');
    p.paths.forEach((node, i) => {
      const orig = p.display[i];
      node.removeAttribute('display');
      const vis0 = S.track[0].vis[i];
      if (!vis0 || orig !== null) node.setAttribute('display', vis0 ? orig : 'none');
      node.setAttribute('d', S.track[0].d[i]);
      const a = doc.createElementNS(SVGNS, 'animate');
      [['attributeName', 'd'], ['calcMode', 'discrete'], ['dur', dur], ['repeatCount', 'indefinite'], ['keyTimes', kt],
        ['values', S.track.map((t) => t.d[i]).join(';')]].forEach(([k, v]) => a.setAttribute(k, v));
      node.appendChild(a);
      if (S.track.some((t) => !t.vis[i])) {
        const b = doc.createElementNS(SVGNS, 'animate');
        const vals = S.track.map((t) => (t.vis[i] ? orig ?? 'inline' : 'none')).join(';');
        [['attributeName', 'display'], ['calcMode', 'discrete'], ['dur', dur], ['repeatCount', 'indefinite'],
          ['keyTimes', kt], ['values', vals]].forEach(([k, v]) => b.setAttribute(k, v));
        node.appendChild(b);
      }
    });
    const text = new XMLSerializer().serializeToString(doc);
    return text.startsWith('<?xml') ? text : '<?xml version="1.0" encoding="UTF-8"?>\n' + text;
  }

  /* the frames drawn so far as a keypoint file the CLI reads (skinfit svg --pose) */
  function recording() {
    return JSON.stringify({fps: S.fps, width: S.rawWidth ?? S.width, height: S.rawHeight ?? S.height, frames: S.raw});
  }

  function download(text, name, type) {
    const a = document.createElement('a');
    a.href = URL.createObjectURL(new Blob([text], {type}));
    a.download = name;
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  }

  /* ---- webcam: MediaPipe Pose + FaceMesh from node_modules (never a CDN) ---- */
  function noPerson() {
    return {pose: {score: 0, keypoints: S.ch.jointNames.slice(0, 14).map((part) => ({part, score: 0, position: {x: 0, y: 0}}))}};
  }

  async function startWebcam() {
    stop();
    reset();
    Object.assign(S, {frames: null, fps: 30, rawWidth: S.width, rawHeight: S.height});
    const video = $('video');
    const stream = await navigator.mediaDevices.getUserMedia({video: {width: 640, height: 480}, audio: false});
    video.srcObject = stream;
    video.hidden = false;
    await video.play();
    const pose = new Pose({locateFile: (f) => MP + 'pose/' + f});
    pose.setOptions({modelComplexity: 0, smoothLandmarks: false, enableSegmentation: false,
      minDetectionConfidence: 0.5, minTrackingConfidence: 0.5});
    const frame = $('facemesh').contentWindow; // FaceMesh in its own window (see facemesh.html)
    if (!frame.FaceMesh) await new Promise((r) => $('facemesh').addEventListener('load', r, {once: true}));
    const face = new frame.FaceMesh({locateFile: (f) => MP + 'face_mesh/' + f});
    const fcanvas = frame.document.createElement('canvas');
    face.setOptions({maxNumFaces: 1, refineLandmarks: false, minDetectionConfidence: 0.5, minTrackingConfidence: 0.5});
    let lastPose = null, lastFace = null;
    pose.onResults((r) => { lastPose = r.poseLandmarks || null; });
    face.onResults((r) => { lastFace = (r.multiFaceLandmarks && r.multiFaceLandmarks[0]) || null; });
    await pose.initialize();
    await face.initialize();
    S.webcam = {stream, pose, face, on: true};
    $('save').disabled = false;
    $('export').disabled = false;
    const tick = async () => {
      if (!S.webcam || !S.webcam.on) return;
      await pose.send({image: video});
      // FaceMesh reads a canvas of its own window (a video element of this page gives it a 0 x 0 ROI)
      fcanvas.width = video.videoWidth;
      fcanvas.height = video.videoHeight;
      fcanvas.getContext('2d').drawImage(video, 0, 0);
      await face.send({image: fcanvas});
      let raw;
      if (lastPose) {
        raw = {pose: {landmarks: lastPose.map((l) => ({x: l.x, y: l.y, z: l.z, visibility: l.visibility ?? 1}))}};
        if (lastFace) raw.face = {faceInViewConfidence: 1, landmarks: lastFace.map((l) => ({x: l.x, y: l.y, z: l.z}))};
      } else {
        raw = noPerson();
        S.stats.noPerson++;
      }
      const parsed = SkinfitKeypoints.parse(JSON.stringify({width: S.width, height: S.height, frames: [raw]}),
        'webcam', S.width, S.height, S.ch);
      apply(parsed.frames[0], raw);
      S.stats.webcamFrames++;
      status(`webcam: ${S.stats.webcamFrames} frames (drawn ${S.stats.drawn}, no person ${S.stats.noPerson})`);
      showTiming();
      requestAnimationFrame(tick);
    };
    tick();
  }

  function stopWebcam() {
    if (!S.webcam) return;
    S.webcam.on = false;
    S.webcam.stream.getTracks().forEach((t) => t.stop());
    S.webcam = null;
  }

  async function fetchText(url) {
    const r = await fetch(url);
    if (!r.ok) throw new Error(`${url}: ${r.status}`);
    return r.text();
  }

  const guard = (f) => async (...a) => { try { return await f(...a); } catch (e) { status(String(e.message || e)); } };

  async function init() {
    S.core = await Skinfit.load();
    const url = $('builtin').value;
    loadCharacter(await fetchText(url), url.split('/').pop());
    $('builtin').onchange = guard(async () => { stopWebcam(); const u = $('builtin').value; loadCharacter(await fetchText(u), u.split('/').pop()); });
    $('svgfile').onchange = guard(async (e) => { stopWebcam(); const f = e.target.files[0]; if (f) loadCharacter(await f.text(), f.name); });
    $('posefile').onchange = guard(async (e) => { stopWebcam(); const f = e.target.files[0]; if (f) { loadPoses(await f.text(), f.name); play(); } });
    $('play').onclick = () => (S.playing ? stop() : play());
    $('smoothing').onchange = () => { S.next = 0; reset(); };
    $('webcam').onclick = guard(startWebcam);
    $('record').onclick = () => { S.next = 0; reset(); if (S.frames) play(); };
    $('save').onclick = () => download(recording(), 'keypoints.json', 'application/json');
    $('export').onclick = guard(() => download(exportAnimated(), S.name.replace(/\.svg$/, '') + '_animated.svg', 'image/svg+xml'));
    window.skinfitPose.ready = true;
  }

  window.skinfitPose = {
    ready: false, state: S, loadCharacter, loadPoses, step, play, stop, reset, exportAnimated, recording,
    startWebcam: () => startWebcam(), stopWebcam, fetchText,
    /* frames 0..n-1 of the loaded keypoints, drawn synchronously; the page's paths afterwards */
    replay(n) {
      stop();
      S.next = 0;
      reset();
      for (let i = 0; i < n; ++i) step();
      return S.paths.map((p) => ({d: p.getAttribute('d'), display: p.getAttribute('display')}));
    },
  };
  init().catch((e) => status(String(e.message || e)));
})();
