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
// One thread (intra 1, inter 1), graph optimisation disabled (ORT_OPT=all:
// onnxruntime's default, every graph optimisation), outputs
// preallocated when the binding accepts them; only session.run is timed.
// Inputs are TensorProto .pb files with raw_data (as bench/gen.py writes them:
// float32, float64, float16, int8, uint8, int32, int64, bool), bound to the
// model's inputs by the tensor's name when it has one that the model declares,
// else in order. Prints one line:
//   MODEL: runs=N median_us=M min_us=M prealloc=yes|no threads=T opt=LEVEL cpu_us=C load_us=L
// (cpu_us: the process's CPU time over the timed runs, per run: on a busy
// machine the wall time includes time the process waited for a CPU; load_us:
// the session's creation, as 'onnxop bench' reports its model's loading)
//
//   ORT_THREADS=N     intra-op threads (default 1; inter-op stays 1)
//   ORT_OPT=LEVEL     graph optimisation: disabled (the default), basic,
//                     extended or all (onnxruntime's own default)
//   ORT_OUT_DIR=DIR   also write the first run's outputs as DIR/output_K.pb
//                     (TensorProto, raw_data; K in the model's output order),
//                     for comparing with 'onnxop run --out-dir' (bench/models/)
//   ORT_PROFILE=FILE  after the timed runs, one more session of the same
//                     settings with onnxruntime's profiler on (apart, so that
//                     the profiler does not slow the timed runs): WARMUP runs,
//                     then one whose nodes' kernel times are written to FILE
//                     as JSON, {op type: microseconds} (ORT_OPT=all: the
//                     nodes of its optimised graph, fused ones under their own
//                     op types), as 'onnxop bench --time' charges its nodes
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');

const dir = process.env.ORT_DIR;
if (!dir) {
  console.error('bench/ort.js: set ORT_DIR to a folder with node_modules/onnxruntime-node');
  process.exit(2);
}
const ort = require(path.resolve(dir, 'node_modules', 'onnxruntime-node'));

// TensorProto data_type codes -> ORT's type names and typed arrays (float16
// travels as its bits in a Uint16Array)
const TYPES = {1: ['float32', Float32Array], 2: ['uint8', Uint8Array], 3: ['int8', Int8Array],
               6: ['int32', Int32Array], 7: ['int64', BigInt64Array], 9: ['bool', Uint8Array],
               10: ['float16', Uint16Array], 11: ['float64', Float64Array]};

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
  let dt = 0, raw = null, tname = '';
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
        else if (field === 8) tname = b.toString('utf8', p, p + n);
        p += n;
      }
    } else if (wt === 5) p += 4;
    else if (wt === 1) p += 8;
    else throw new Error(`${file}: unexpected wire type ${wt}`);
  }
  const t = TYPES[dt];
  if (!t || !raw) throw new Error(`${file}: only raw_data tensors of ${Object.values(TYPES).map((x) => x[0]).join('/')}`);
  const [type, T] = t;
  const copy = new Uint8Array(raw.length);  // aligned copy
  copy.set(raw);
  return {name: tname, tensor: new ort.Tensor(type, new T(copy.buffer), dims)};
}

// output_K.pb: dims (1), data_type (2), name (8), raw_data (9)
function writeTensor(file, name, t) {
  const code = Number(Object.keys(TYPES).find((k) => TYPES[k][0] === t.type));
  if (!code) throw new Error(`output '${name}': cannot write ORT type ${t.type}`);
  const parts = [];
  const varint = (v) => {
    const b = [];
    v = BigInt(v);
    do {
      let c = Number(v & 0x7fn);
      v >>= 7n;
      if (v) c |= 0x80;
      b.push(c);
    } while (v);
    parts.push(Buffer.from(b));
  };
  const bytes = (field, buf) => { varint((field << 3) | 2); varint(buf.length); parts.push(buf); };
  for (const d of t.dims) { varint(1 << 3); varint(d); }
  varint(2 << 3); varint(code);
  bytes(8, Buffer.from(name, 'utf8'));
  const d = t.data;
  bytes(9, t.type === 'bool' ? Buffer.from(d.map((x) => (x ? 1 : 0))) : Buffer.from(d.buffer, d.byteOffset, d.byteLength));
  fs.writeFileSync(file, Buffer.concat(parts));
}

// ORT_PROFILE: the last run's node kernel times by op type, from the profile
// that endProfiling writes (Chrome trace events; a node's event is named
// NODE_kernel_time, its op type in args.op_name)
async function profile(model, options, feeds, warmup, file) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ort-profile-'));
  try {
    const s = await ort.InferenceSession.create(model, {...options, enableProfiling: true,
                                                        profileFilePrefix: path.join(dir, 'p')});
    for (let r = 0; r <= warmup; r++) await s.run(feeds);
    await s.endProfiling();
    const json = fs.readdirSync(dir).filter((f) => f.endsWith('.json'));
    if (json.length !== 1) throw new Error(`ORT_PROFILE: onnxruntime wrote ${json.length} profiles, not 1`);
    const events = JSON.parse(fs.readFileSync(path.join(dir, json[0]), 'utf8'));
    const last = events.filter((e) => e.name === 'model_run').pop();
    if (!last) throw new Error('ORT_PROFILE: the profile has no model_run event');
    const ops = {};
    for (const e of events) {
      if (e.cat !== 'Node' || !e.name.endsWith('_kernel_time') || e.ts < last.ts || e.ts > last.ts + last.dur) continue;
      const op = e.args.op_name;
      ops[op] = (ops[op] || 0) + e.dur;
    }
    fs.writeFileSync(file, JSON.stringify(ops) + '\n');
  } finally {
    fs.rmSync(dir, {recursive: true, force: true});
  }
}

async function main() {
  const [model, runsS, warmupS, ...inputs] = process.argv.slice(2);
  const runs = Number(runsS), warmup = Number(warmupS);
  const threads = Number(process.env.ORT_THREADS || 1);
  const opt = process.env.ORT_OPT || 'disabled';
  if (!['disabled', 'basic', 'extended', 'all'].includes(opt)) {
    throw new Error(`ORT_OPT=${opt}: one of disabled, basic, extended, all`);
  }
  const options = {
    executionProviders: ['cpu'], intraOpNumThreads: threads, interOpNumThreads: 1,
    graphOptimizationLevel: opt, executionMode: 'sequential',
  };
  const l0 = process.hrtime.bigint();
  const s = await ort.InferenceSession.create(model, options);
  const loadUs = Number(process.hrtime.bigint() - l0) / 1e3; // session creation: read, optimise, prepack
  const feeds = {};
  inputs.forEach((f, i) => {
    const {name, tensor} = readTensor(f);
    feeds[s.inputNames.includes(name) ? name : s.inputNames[i]] = tensor;
  });
  // preallocated outputs, shaped from a first run
  let fetches = null;
  const first = await s.run(feeds);
  const outDir = process.env.ORT_OUT_DIR;
  if (outDir) {
    fs.mkdirSync(outDir, {recursive: true});
    s.outputNames.forEach((n, k) => writeTensor(path.join(outDir, `output_${k}.pb`), n, first[n]));
  }
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
  let cpu0 = null;
  for (let r = 0; r < warmup + runs; r++) {
    if (r === warmup) cpu0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    if (fetches) await s.run(feeds, fetches);
    else await s.run(feeds);
    const t1 = process.hrtime.bigint();
    if (r >= warmup) t.push(Number(t1 - t0) / 1e3);
  }
  const cpu = process.cpuUsage(cpu0); // the whole process's CPU time over the timed runs
  t.sort((a, b) => a - b);
  const n = t.length, med = n % 2 ? t[(n - 1) / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
  if (process.env.ORT_PROFILE) await profile(model, options, feeds, warmup, process.env.ORT_PROFILE);
  console.log(`${model}: runs=${n} median_us=${med.toFixed(1)} min_us=${t[0].toFixed(1)} prealloc=${fetches ? 'yes' : 'no'} threads=${threads} opt=${opt} cpu_us=${((cpu.user + cpu.system) / n).toFixed(1)} load_us=${loadUs.toFixed(1)}`);
}
main().catch((e) => { console.error(`bench/ort.js: ${e.message}`); process.exit(1); });
