/* Keypoint JSON in the formats `skinfit svg` reads (docs/svg.md; the C reader is
 * src/svg/keypoints.c, which this follows field by field): PoseNet poses, pose-detection / MoveNet
 * poses, MediaPipe Pose landmarks (33 normalised, scaled by width/height), Pose Animator's
 * recording {pose, face}; optional FaceMesh (scaledMesh | keypoints | landmarks | positions).
 * parse(text, name, width, height, ch) -> {fps, frames: [{poseScore, xy, score, face}]} in root
 * space, or throws Error('name: place: what') as the CLI's message. ch: an SvgCharacter (joint
 * names and FaceMesh indices come from the C tables). */
(function (root) {
  'use strict';
  const MEDIAPIPE = [27, 25, 23, 15, 13, 11, 28, 26, 24, 16, 14, 12, 7, 8];
  const LIMIT = 1e12;

  function parse(text, name, width, height, ch) {
    const bad = (place, what) => { throw new Error(`${name}: ${place}: ${what}`); };
    const num = (o, key, place) => {
      const v = o[key], p = `${place}.${key}`;
      if (v === undefined) bad(p, 'missing');
      if (typeof v !== 'number') bad(p, 'expected a number');
      if (!Number.isFinite(v)) bad(p, 'not a finite number');
      if (Math.abs(v) > LIMIT) bad(p, 'beyond +-1e12');
      return v;
    };
    const opt = (o, key) => (typeof o[key] === 'number' && Number.isFinite(o[key]) ? o[key] : undefined);
    const camel = (s) => s.replace(/_+([a-z])?/g, (m, c) => (c ? c.toUpperCase() : ''));
    let rootv;
    try { rootv = JSON.parse(text); } catch (e) { throw new Error(`${name}: ${e.message}`); }
    let W = width, H = height, fps = 0, frames = rootv;
    if (rootv && typeof rootv === 'object' && !Array.isArray(rootv) && rootv.frames !== undefined) {
      frames = rootv.frames;
      if (rootv.fps !== undefined) { fps = num(rootv, 'fps', '$'); if (!(fps > 0)) bad('$.fps', 'must be > 0'); }
      if (rootv.width !== undefined) { W = num(rootv, 'width', '$'); if (!(W > 0)) bad('$.width', 'must be > 0'); }
      if (rootv.height !== undefined) { H = num(rootv, 'height', '$'); if (!(H > 0)) bad('$.height', 'must be > 0'); }
      if (!Array.isArray(frames)) bad('frames', 'expected an array');
    }
    if (!Array.isArray(frames)) frames = [frames];
    else if (frames === rootv && frames.length >= 33 && frames[0] && typeof frames[0] === 'object' &&
      !Array.isArray(frames[0]) && frames[0].keypoints === undefined && frames[0].pose === undefined && frames[0].x !== undefined)
      frames = [rootv];
    if (!frames.length) bad('frames', 'no frames');
    const poseIndex = new Map();
    for (let j = 0; j < 14; ++j) poseIndex.set(ch.jointNames[j], j);

    const mediapipe = (lm, place, f, have, acc) => {
      if (lm.length > 0 && Array.isArray(lm[0])) lm = lm[0];
      if (lm.length < 33) bad(place, `expected 33 MediaPipe landmarks, found ${lm.length}`);
      for (let i = 0; i < 33; ++i) {
        const p = lm[i], q = `${place}[${i}]`;
        if (!p || typeof p !== 'object' || Array.isArray(p)) bad(q, 'expected an object {x, y, visibility}');
        const x = num(p, 'x', q), y = num(p, 'y', q);
        let s = opt(p, 'visibility');
        if (s === undefined) s = opt(p, 'presence');
        if (s === undefined) s = opt(p, 'score');
        if (s === undefined) s = 1;
        acc.sum += s; acc.n++;
        for (let j = 0; j < 14; ++j) {
          if (MEDIAPIPE[j] !== i) continue;
          f.xy[j] = [x * W, y * H];
          if (!(Math.abs(f.xy[j][0]) <= LIMIT && Math.abs(f.xy[j][1]) <= LIMIT)) bad(q, 'beyond +-1e12 after scaling by width/height');
          f.score[j] = s; have[j] = true;
        }
      }
    };
    const keypoints = (kps, place, f, have, acc) => {
      kps.forEach((kp, i) => {
        const p = `${place}.keypoints[${i}]`;
        if (!kp || typeof kp !== 'object' || Array.isArray(kp)) bad(p, 'expected an object');
        const part = kp.part, nm = part !== undefined ? part : kp.name;
        if (typeof nm !== 'string') bad(`${p}.${part !== undefined ? 'part' : 'name'}`, part !== undefined ? 'expected a string' : 'missing (needs "part" or "name")');
        let x, y, s = 1;
        if (part !== undefined || kp.position !== undefined) {
          const q = `${p}.position`;
          if (kp.position === undefined) bad(q, 'missing');
          if (!kp.position || typeof kp.position !== 'object' || Array.isArray(kp.position)) bad(q, 'expected an object {x, y}');
          x = num(kp.position, 'x', q); y = num(kp.position, 'y', q);
        } else { x = num(kp, 'x', p); y = num(kp, 'y', p); }
        if (kp.score !== undefined) s = num(kp, 'score', p);
        acc.sum += s; acc.n++;
        const j = poseIndex.get(camel(nm));
        if (j === undefined) return;
        f.xy[j] = [x, y]; f.score[j] = s; have[j] = true;
      });
    };
    const face = (fc, place) => {
      if (Array.isArray(fc)) { if (!fc.length) return null; fc = fc[0]; }
      if (fc === null) return null;
      if (typeof fc !== 'object') bad(place, 'expected an object');
      let conf = 1;
      const ckey = fc.faceInViewConfidence !== undefined ? 'faceInViewConfidence' : fc.score !== undefined ? 'score' : null;
      if (ckey) conf = num(fc, ckey, place);
      const xy = [];
      if (fc.positions !== undefined) {
        const q = `${place}.positions`;
        if (!Array.isArray(fc.positions) || fc.positions.length !== 146) bad(q, 'expected 146 numbers (73 face points x, y)');
        for (let i = 0; i < 146; ++i) {
          const v = fc.positions[i];
          if (typeof v !== 'number' || !Number.isFinite(v)) bad(`${place}.positions[${i}]`, 'expected a number');
          if (!(Math.abs(v) <= LIMIT)) bad(`${place}.positions[${i}]`, 'beyond +-1e12');
          if (i % 2 === 0) xy.push([v, 0]); else xy[xy.length - 1][1] = v;
        }
      } else {
        const mesh = fc.scaledMesh, kps = fc.keypoints, lms = fc.landmarks;
        let arr = mesh ?? kps ?? lms;
        const key = mesh !== undefined ? 'scaledMesh' : kps !== undefined ? 'keypoints' : 'landmarks';
        const q = `${place}.${key}`;
        if (arr === undefined) bad(place, 'missing scaledMesh, keypoints, landmarks or positions');
        if (lms !== undefined && mesh === undefined && kps === undefined && Array.isArray(lms) && lms.length > 0 &&
          Array.isArray(lms[0]) && typeof lms[0][0] !== 'number') arr = lms[0];
        if (!Array.isArray(arr) || arr.length < 468) bad(q, `expected 468 FaceMesh points, found ${Array.isArray(arr) ? arr.length : 0}`);
        const scaled = arr === mesh || arr === kps;
        for (let jj = 0; jj < 73; ++jj) {
          const mi = ch.facemesh[14 + jj], p = arr[mi], r = `${q}[${mi}]`;
          let x, y;
          if (Array.isArray(p)) {
            if (typeof p[0] !== 'number' || typeof p[1] !== 'number') bad(r, 'expected [x, y] or [x, y, z]');
            x = p[0]; y = p[1];
            if (!Number.isFinite(x) || !Number.isFinite(y)) bad(r, 'not a finite number');
          } else if (p && typeof p === 'object') { x = num(p, 'x', r); y = num(p, 'y', r); }
          else bad(r, 'expected [x, y] or {x, y}');
          const v = [x * (scaled ? 1 : W), y * (scaled ? 1 : H)];
          if (!(Math.abs(v[0]) <= LIMIT && Math.abs(v[1]) <= LIMIT)) bad(r, 'beyond +-1e12');
          xy.push(v);
        }
      }
      return {score: conf, xy};
    };
    const out = frames.map((fr, i) => {
      const place = `frames[${i}]`;
      const f = {poseScore: 0, xy: Array.from({length: 14}, () => [0, 0]), score: new Array(14).fill(0), face: null};
      const have = new Array(14).fill(false), acc = {sum: 0, n: 0};
      let pose = fr, fc, pplace = place, hasScore = false;
      if (fr && typeof fr === 'object' && !Array.isArray(fr)) {
        fc = fr.face;
        if (fr.pose !== undefined) { pose = fr.pose; pplace = `${place}.pose`; }
      } else if (!Array.isArray(fr)) bad(place, 'expected an object (a pose) or an array (MediaPipe landmarks)');
      if (Array.isArray(pose)) mediapipe(pose, pplace, f, have, acc);
      else if (pose && typeof pose === 'object') {
        let lkey = 'landmarks', lm = pose.landmarks;
        if (lm === undefined) { lm = pose.poseLandmarks; lkey = 'poseLandmarks'; }
        if (pose.keypoints !== undefined) {
          if (!Array.isArray(pose.keypoints)) bad(`${pplace}.keypoints`, 'expected an array');
          keypoints(pose.keypoints, pplace, f, have, acc);
        } else if (lm !== undefined) {
          if (!Array.isArray(lm)) bad(`${pplace}.${lkey}`, 'expected an array');
          mediapipe(lm, `${pplace}.${lkey}`, f, have, acc);
        } else bad(pplace, 'no keypoints, landmarks or poseLandmarks');
        if (pose.score !== undefined) { f.poseScore = num(pose, 'score', pplace); hasScore = true; }
      } else bad(pplace, 'expected an object or an array');
      if (!hasScore) f.poseScore = acc.n ? acc.sum / acc.n : 0;
      const missing = ch.jointNames.slice(0, 14).filter((n, j) => !have[j]);
      if (missing.length) bad(`${pplace}.keypoints`, `missing keypoint${missing.length === 1 ? '' : 's'} ${missing.join(', ')}`);
      if (fc !== undefined) f.face = face(fc, `${place}.face`);
      return f;
    });
    return {fps, width: W, height: H, frames: out};
  }

  const api = {parse};
  if (typeof module === 'object' && module.exports) module.exports = api;
  else root.SkinfitKeypoints = api;
})(typeof self !== 'undefined' ? self : this);
