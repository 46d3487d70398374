#!/usr/bin/env node
// tests/ort_load.js LIST: does onnxruntime load each model? (tests/checker.py)
//
//   ORT_DIR=DIR node tests/ort_load.js LIST
//
// LIST holds one model path a line. Prints one JSON line per model:
//   {"path": ..., "ok": true} or {"path": ..., "ok": false, "error": "..."}
// then {"version": ...}, ORT's. DIR holds node_modules/onnxruntime-node (see
// bench/ort.js); onnxruntime is never a dependency of onnxop.
'use strict';
const fs = require('fs');
const path = require('path');

const dir = process.env.ORT_DIR;
if (!dir) {
  console.error('tests/ort_load.js: set ORT_DIR to a folder with node_modules/onnxruntime-node');
  process.exit(2);
}
const ort = require(path.resolve(dir, 'node_modules', 'onnxruntime-node'));
ort.env.logLevel = 'fatal'; // its warnings (old opsets) are not our verdict

(async () => {
  const list = fs.readFileSync(process.argv[2], 'utf8').split('\n').filter((l) => l);
  for (const p of list) {
    try {
      const s = await ort.InferenceSession.create(p, {intraOpNumThreads: 1, interOpNumThreads: 1,
                                                       graphOptimizationLevel: 'disabled',
                                                       logSeverityLevel: 4});
      if (s.release) await s.release();
      console.log(JSON.stringify({path: p, ok: true}));
    } catch (e) {
      console.log(JSON.stringify({path: p, ok: false, error: String(e && e.message || e)}));
    }
  }
  let v = '?';
  try {
    v = require(path.resolve(dir, 'node_modules', 'onnxruntime-node', 'package.json')).version;
  } catch (e) { /* keep ? */ }
  console.log(JSON.stringify({version: v}));
})();
