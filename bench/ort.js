#!/usr/bin/env node
// bench/ort.js: time ONNX Runtime (CPU) on a model, as 'onnxop bench' times onnxop.
//
//   ORT_DIR=DIR node bench/ort.js MODEL RUNS WARMUP INPUT.pb...
//
// DIR holds node_modules/onnxruntime-node: `npm install --ignore-scripts
// onnxruntime-node` in a folder of your choice (--ignore-scripts: the package's
// install script downloads CUDA files, which the CPU provider does not need).
// onnxruntime-node is never a dependency of onnxop.
//
// One thread (intra 1, inter 1), graph optimisation disabled, outputs
// preallocated when the binding accepts them; only session.run is timed.
// Inputs are TensorProto .pb files with raw_data (as bench/gen.py writes them),
// bound to the model's inputs in order. Prints one line:
//   MODEL: runs=N median_us=M min_us=M prealloc=yes|no
'use strict';
const fs = require('fs');
const path = require('path');

const dir = process.env.ORT_DIR;
if (!dir) {
  console.error('bench/ort.js: set ORT_DIR to a folder with node_modules/onnxruntime-node');
  process.exit(2);
}
const ort = require(path.resolve(dir, 'node_modules', 'onnxruntime-node'));

// TensorProto: dims (1, varint, packed or not), data_type (2), raw_data (9)
function readTensor(file) {
  const b = fs.readFileSync(file);
  let p = 0;
  const varint = () => {
    let v = 0n, s = 0n;
    for (;;) {
      const c = b[p++];
      v |= BigInt(c & 0x7f) << s;
      s += 7n;
      if (!(c & 0x80)) return v;
    }
  };
  const dims = [];
  let dt = 0, raw = null;
  while (p < b.length) {
    const key = Number(varint()), field = key >> 3, wt = key & 7;
    if (wt === 0) {
      const v = Number(varint());
      if (field === 1) dims.push(v);
      else if (field === 2) dt = v;
    } else if (wt === 2) {
      const n = Number(varint());
      if (field === 1) {
        const end = p + n;
        while (p < end) dims.push(Number(varint()));
      } else {
        if (field === 9) raw = b.subarray(p, p + n);
        p += n;
      }
    } else if (wt === 5) p += 4;
    else if (wt === 1) p += 8;
    else throw new Error(`${file}: unexpected wire type ${wt}`);
  }
  const types = {1: ['float32', Float32Array], 6: ['int32', Int32Array], 7: ['int64', BigInt64Array],
                 11: ['float64', Float64Array]};
  if (!types[dt] || !raw) throw new Error(`${file}: only raw_data float/double/int32/int64 tensors`);
  const [name, T] = types[dt];
  const copy = new Uint8Array(raw.length);  // aligned copy
  copy.set(raw);
  return new ort.Tensor(name, new T(copy.buffer), dims);
}

async function main() {
  const [model, runsS, warmupS, ...inputs] = process.argv.slice(2);
  const runs = Number(runsS), warmup = Number(warmupS);
  const s = await ort.InferenceSession.create(model, {
    executionProviders: ['cpu'], intraOpNumThreads: 1, interOpNumThreads: 1,
    graphOptimizationLevel: 'disabled', executionMode: 'sequential',
  });
  const feeds = {};
  inputs.forEach((f, i) => { feeds[s.inputNames[i]] = readTensor(f); });
  // preallocated outputs, shaped from a first run
  let fetches = null;
  const first = await s.run(feeds);
  try {
    const f = {};
    for (const n of s.outputNames) {
      const o = first[n];
      f[n] = new ort.Tensor(o.type, new o.data.constructor(o.data.length), o.dims);
    }
    await s.run(feeds, f);
    fetches = f;
  } catch (e) {
    fetches = null;
  }
  const t = [];
  for (let r = 0; r < warmup + runs; r++) {
    const t0 = process.hrtime.bigint();
    if (fetches) await s.run(feeds, fetches);
    else await s.run(feeds);
    const t1 = process.hrtime.bigint();
    if (r >= warmup) t.push(Number(t1 - t0) / 1e3);
  }
  t.sort((a, b) => a - b);
  const n = t.length, med = n % 2 ? t[(n - 1) / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
  console.log(`${model}: runs=${n} median_us=${med.toFixed(1)} min_us=${t[0].toFixed(1)} prealloc=${fetches ? 'yes' : 'no'}`);
}
main().catch((e) => { console.error(`bench/ort.js: ${e.message}`); process.exit(1); });
