// The GPU benchmark in Node on Dawn, through the Node entry (webgpu-obb/node) of the built
// package: brute-force closest hit of 16,384 rays × 4,096 boxes and 200,000 listed box pairs; the
// BVH: its build split by phase and 1 / 1,024 picking rays over 1,000,000 boxes; a 128 × 2,048
// LiDAR sweep over 10,000 boxes by both sensor methods (raster, bvh); all pairs among 100,000
// moving boxes per frame through the grid and the BVH. GPU end to end and (with
// timestamp-query) kernel only, next to the float64 reference, every GPU answer checked against
// the reference (on a slice where the reference would take minutes). Needs only Node, dist/ (`npm run build`) and the `webgpu`
// package, so it also runs on a GPU machine that has no browser and no node_modules:
//
//   node bench/node-gpu.mjs [--json FILE] [--driver auto|swiftshader|system|ICD.json]
//                           [--runs N] [--rays N] [--boxes N] [--pairs N] [--cpu-rays N]
//                           [--bvh-boxes N] [--lidar-boxes N] [--azimuths N] [--moving-boxes N]
//
// The `webgpu` package is found through env WEBGPU_OBB_WEBGPU (its folder), else Node's CommonJS
// resolution from this file and from the working directory (which honours NODE_PATH; ESM import
// does not). The driver defaults to `auto`: the system's Vulkan drivers (a real GPU) when any
// are installed, else Chromium's SwiftShader; VK_DRIVER_FILES, when set, wins.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, '..', 'dist');

function parseArgs(argv) {
  const args = {
    json: join(here, 'out', 'node-gpu.json'), driver: 'auto', runs: 7, rays: 16_384, boxes: 4096, pairs: 200_000, cpuRays: 2048,
    bvhBoxes: 1_000_000, lidarBoxes: 10_000, azimuths: 2048, movingBoxes: 100_000,
  };
  const numeric = {
    '--runs': 'runs', '--rays': 'rays', '--boxes': 'boxes', '--pairs': 'pairs', '--cpu-rays': 'cpuRays',
    '--bvh-boxes': 'bvhBoxes', '--lidar-boxes': 'lidarBoxes', '--azimuths': 'azimuths', '--moving-boxes': 'movingBoxes',
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = argv[i + 1];
    if (a === '--json' && value) {
      args.json = resolve(value);
      i++;
    } else if (a === '--driver' && value) {
      args.driver = value;
      i++;
    } else if (a in numeric && value && Number.isInteger(Number(value)) && Number(value) > 0) {
      args[numeric[a]] = Number(value);
      i++;
    } else {
      throw new Error(`bad argument ${a}${value === undefined ? '' : ` ${value}`} (see the header of bench/node-gpu.mjs)`);
    }
  }
  return args;
}

/** The `webgpu` package's entry file, or undefined to let the runtime look for it itself. */
function findWebgpu() {
  const fromEnv = process.env.WEBGPU_OBB_WEBGPU;
  if (fromEnv) {
    return fromEnv;
  }
  for (const base of [import.meta.url, pathToFileURL(join(process.cwd(), 'noop.js')).href]) {
    try {
      return createRequire(base).resolve('webgpu');
    } catch {
      // not resolvable from here
    }
  }
  return undefined;
}

function stats(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const mid = s.length >> 1;
  const median = s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
  return { median, min: s[0], max: s[s.length - 1], runs: s.length };
}

async function timeIt(fn, runs, warmup = 1) {
  for (let i = 0; i < warmup; i++) {
    await fn();
  }
  const samples = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    samples.push(performance.now() - t0);
  }
  return stats(samples);
}

function row(workload, implementation, n, queries, s, work, unit, agrees, timing, note) {
  return {
    workload, implementation, n, queries, median_ms: s.median, min_ms: s.min, max_ms: s.max, runs: s.runs,
    throughput: work / (s.median / 1000), unit, agreesWithReference: agrees, timing, ...(note ? { note } : {}),
  };
}

// WebGPU flag values (the spec fixes them; Dawn installs no globals unless asked).
const STORAGE = 0x80;
const COPY_SRC = 0x4;
const COPY_DST = 0x8;
const MAP_READ = 0x1;
const QUERY_RESOLVE = 0x200;

/**
 * Kernel time of `encode(encoder, timestampWrites)`: timestamp-query differences when the device
 * has the feature, else wall time from submit to onSubmittedWorkDone.
 */
async function timeKernel(device, encode, runs, warmup = 1) {
  const hasTs = device.features.has('timestamp-query');
  const querySet = hasTs ? device.createQuerySet({ type: 'timestamp', count: 2 }) : undefined;
  const resolveBuf = hasTs ? device.createBuffer({ size: 16, usage: QUERY_RESOLVE | COPY_SRC }) : undefined;
  const read = hasTs ? device.createBuffer({ size: 16, usage: COPY_DST | MAP_READ }) : undefined;
  const gpuSamples = [];
  const wallSamples = [];
  try {
    for (let i = 0; i < warmup + runs; i++) {
      const encoder = device.createCommandEncoder();
      await encode(encoder, querySet ? { querySet, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 } : undefined);
      if (querySet) {
        encoder.resolveQuerySet(querySet, 0, 2, resolveBuf, 0);
        encoder.copyBufferToBuffer(resolveBuf, 0, read, 0, 16);
      }
      const t0 = performance.now();
      device.queue.submit([encoder.finish()]);
      await device.queue.onSubmittedWorkDone();
      const wall = performance.now() - t0;
      let ms = wall;
      if (read) {
        await read.mapAsync(MAP_READ);
        const [begin, end] = new BigUint64Array(read.getMappedRange().slice(0));
        read.unmap();
        ms = Number(end - begin) / 1e6;
      }
      if (i >= warmup) {
        gpuSamples.push(ms);
        wallSamples.push(wall);
      }
    }
  } finally {
    querySet?.destroy();
    resolveBuf?.destroy();
    read?.destroy();
  }
  return { stats: stats(gpuSamples), wall: stats(wallSamples), timing: hasTs ? 'gpu-timestamp' : 'gpu-wall' };
}

function table(rows) {
  const ref = new Map(rows.filter((r) => r.implementation === 'reference').map((r) => [r.workload, r]));
  const head = ['workload', 'implementation', 'median ms', 'min–max ms', 'throughput', '× reference', 'agrees', 'timing'];
  const body = rows.map((r) => {
    const base = ref.get(r.workload);
    return [r.workload, r.implementation, r.median_ms.toFixed(2), `${r.min_ms.toFixed(2)}–${r.max_ms.toFixed(2)}`,
      r.throughput >= 1e4 ? `${(r.throughput / 1e6).toFixed(2)} M ${r.unit}` : `${r.throughput.toFixed(2)} ${r.unit}`, base ? (r.throughput / base.throughput).toFixed(1) : '',
      r.agreesWithReference === null ? '' : String(r.agreesWithReference), r.timing];
  });
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells) => cells.map((c, i) => c.padEnd(widths[i])).join('  ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (!existsSync(join(dist, 'node.js'))) {
    throw new Error(`${join(dist, 'node.js')} is missing: run \`npm run build\` first`);
  }
  const runtime = await import(pathToFileURL(join(dist, 'node.js')).href);
  const lib = await import(pathToFileURL(join(dist, 'index.js')).href);
  const webgpu = findWebgpu();
  const options = { driver: args.driver, ...(webgpu ? { webgpu } : {}) };

  // The adapter first, so a wrong (software) adapter is visible before any number.
  const { gpu: dawn, vulkan } = await runtime.nodeGpu(options);
  const adapter = await dawn.requestAdapter();
  if (!adapter) {
    throw new Error(`Dawn found no adapter (vulkan: ${vulkan.summary})`);
  }
  const info = adapter.info;
  const adapterInfo = {
    vendor: info.vendor, architecture: info.architecture, device: info.device, description: info.description,
    isFallbackAdapter: info.isFallbackAdapter === true, features: [...adapter.features].sort(),
    maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize, maxBufferSize: adapter.limits.maxBufferSize,
  };
  console.error(`adapter: ${JSON.stringify(adapterInfo)}`);
  console.error(`vulkan: ${vulkan.summary}`);
  console.error(`node ${process.version}, webgpu package: ${webgpu ?? '(import webgpu)'}`);

  const gpu = await runtime.createNodeGpu(options);
  console.error(`ObbGpu: ${gpu.adapterName}; ray kernels tiled=${gpu.rays.tuning.tiled} cull=${gpu.rays.tuning.cull}`);
  const rows = [];
  try {
    // Closest hit, brute force: the same scene as the browser bench (seed 4242).
    {
      const { rays: nr, boxes: nb, runs } = args;
      const rnd = lib.mulberry32(4242);
      const boxes = lib.randomBoxes(nb, rnd, { extent: 50, halfMin: 0.2, halfMax: 2 });
      const rays = lib.randomRays(nr, boxes, rnd, { extent: 60 });
      const set = gpu.createBoxSet(boxes);
      const name = `brute-rays-${nr}x${nb}`;
      const tests = nr * nb;
      try {
        console.error(`running ${name}…`);
        let hits = await gpu.closestHit(set, rays);
        const e2e = await timeIt(async () => {
          hits = await gpu.closestHit(set, rays);
        }, runs);
        const cmp = lib.compareClosestHits({ boxes: set.boxes, rays, origin: set.origin }, hits);
        console.error(`  check: ${lib.formatComparison(cmp, 3).split('\n')[0]}`);
        const agrees = cmp.mismatch === 0;
        rows.push(row(name, 'gpu-brute', nb, nr, e2e, tests, 'tests/s', agrees, 'end-to-end', 'upload, dispatch, readback'));
        const device = gpu.ctx.device;
        const rayBuf = device.createBuffer({ size: nr * lib.RAY.SIZE, usage: STORAGE | COPY_DST });
        device.queue.writeBuffer(rayBuf, 0, lib.packRays(rays, set.origin));
        const hitBuf = device.createBuffer({ size: nr * lib.HIT.SIZE, usage: STORAGE });
        const geoBuf = device.createBuffer({ size: 32, usage: STORAGE });
        try {
          const k = await timeKernel(device, (enc, ts) => gpu.rays.encodeClosestHit(enc, set, rayBuf, nr, hitBuf, geoBuf,
            ts ? { geometry: false, timestampWrites: ts } : { geometry: false }), runs);
          rows.push(row(name, 'gpu-brute-kernel', nb, nr, k.stats, tests, 'tests/s', agrees, k.timing,
            `kernel only: rays already on the GPU, no readback; wall median ${k.wall.median.toFixed(2)} ms`));
        } finally {
          rayBuf.destroy();
          hitBuf.destroy();
          geoBuf.destroy();
        }
        const cpuRays = Math.min(args.cpuRays, nr);
        const slice = { count: cpuRays, data: rays.data.subarray(0, cpuRays * 7) };
        const cpu = await timeIt(() => lib.closestHit(boxes, slice), Math.max(1, Math.ceil(runs / 3)), 0);
        rows.push(row(name, 'reference', nb, cpuRays, cpu, cpuRays * nb, 'tests/s', true, 'cpu',
          cpuRays < nr ? `first ${cpuRays} rays of the same scene, one thread` : 'one thread'));
      } finally {
        set.destroy();
      }
    }
    // Listed box pairs, full 15-axis SAT (the published distribution, seed 11423).
    {
      const { pairs: np, runs } = args;
      const boxes = lib.publishedSatPairs(np, lib.mulberry32(11423));
      const list = Uint32Array.from({ length: 2 * np }, (_, i) => i);
      const set = gpu.createBoxSet(boxes);
      const name = `box-pairs-${np}`;
      try {
        console.error(`running ${name}…`);
        let r = await gpu.obbPairs(set, list);
        const e2e = await timeIt(async () => {
          r = await gpu.obbPairs(set, list);
        }, runs);
        const cmp = lib.comparePairs({ a: set.boxes, pairs: list, origin: set.origin }, r);
        console.error(`  check: ${lib.formatComparison(cmp, 3).split('\n')[0]}`);
        rows.push(row(name, 'gpu-brute', np, np, e2e, np, 'pairs/s', cmp.mismatch === 0, 'end-to-end', 'pair list upload, SAT, readback'));
        const cpu = await timeIt(() => lib.obbPairs(boxes, list), Math.max(1, Math.ceil(runs / 2)), 1);
        rows.push(row(name, 'reference', np, np, cpu, np, 'pairs/s', true, 'cpu', 'one thread'));
      } finally {
        set.destroy();
      }
    }
    await bvhWorkloads(lib, gpu, args, rows);
    await lidarWorkloads(lib, gpu, args, rows);
    await allPairsWorkloads(lib, gpu, args, rows);
  } finally {
    gpu.destroy();
  }

  console.log(table(rows));
  const report = {
    date: new Date().toISOString(),
    runtime: 'node (Dawn, webgpu package)',
    machine: { cpus: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', memoryGiB: Math.round(totalmem() / 2 ** 30), platform: process.platform, node: process.version },
    adapter: { name: gpu.adapterName, ...adapterInfo },
    vulkan,
    args,
    rows,
  };
  mkdirSync(dirname(args.json), { recursive: true });
  writeFileSync(args.json, `${JSON.stringify(report, null, 2)}\n`);
  console.error(`wrote ${args.json}`);
  if (rows.some((r) => r.agreesWithReference === false)) {
    console.error('some GPU answers disagree with the reference');
    process.exitCode = 1;
  }
}

/** Closest-hit agreement of `hits` with the reference on `rays` (a slice), through the comparator. */
function agreement(lib, boxes, rays, origin, hits, options = {}) {
  const cmp = lib.compareClosestHits({ boxes, rays, origin }, hits, lib.closestHitGrid(boxes, rays), options);
  console.error(`  check: ${lib.formatComparison(cmp, 3).split('\n')[0]}`);
  return cmp.mismatch === 0;
}

/** The BVH: build phases (profileBuild) and 1 / 1,024 picking rays over `bvhBoxes` boxes. */
async function bvhWorkloads(lib, gpu, args, rows) {
  const n = args.bvhBoxes;
  const rnd = lib.mulberry32(8101);
  const boxes = lib.randomBoxes(n, rnd, { extent: 1000 * Math.cbrt(n / 1e6), halfMin: 0.2, halfMax: 2 });
  const set = gpu.createBoxSet(boxes);
  const bvh = await lib.Bvh.create(gpu.ctx, set);
  try {
    console.error(`running bvh-build-${n}…`);
    await bvh.profileBuild();
    const phases = {};
    let timing = 'gpu-wall';
    for (let k = 0; k < args.runs; k++) {
      const p = await bvh.profileBuild();
      timing = p.timing;
      for (const [phase, ms] of Object.entries(p.phases)) {
        (phases[phase] ??= []).push(ms);
      }
    }
    const totals = phases.bounds.map((_, k) => Object.values(phases).reduce((sum, list) => sum + list[k], 0));
    for (const [phase, list] of [...Object.entries(phases), ['total', totals]]) {
      rows.push(row(`bvh-build-${phase}`, 'gpu-bvh', n, 0, stats(list), n, 'boxes/s', null, timing));
    }
    // The queries walk the set's managed tree, as a user's would.
    await gpu.buildBvh(set);
    for (const count of [1, 1024]) {
      const rays = lib.randomRays(count, boxes, rnd, { extent: 1200 * Math.cbrt(n / 1e6), aimed: 1 });
      const name = `picking-${count}-${n}`;
      console.error(`running ${name}…`);
      let hits = await gpu.closestHit(set, rays, { accel: 'bvh' });
      const e2e = await timeIt(async () => {
        hits = await gpu.closestHit(set, rays, { accel: 'bvh' });
      }, args.runs);
      const slice = { count: Math.min(count, 100), data: rays.data.subarray(0, Math.min(count, 100) * 7) };
      const sliceHits = { count: slice.count, box: hits.box.subarray(0, slice.count), t: hits.t.subarray(0, slice.count), face: hits.face.subarray(0, slice.count), inside: hits.inside.subarray(0, slice.count) };
      const agrees = agreement(lib, set.boxes, slice, set.origin, sliceHits);
      rows.push(row(name, 'gpu-bvh', n, count, e2e, count, 'rays/s', agrees, 'end-to-end', 'upload rays, walk the tree, read back'));
    }
  } finally {
    bvh.destroy();
    set.destroy();
  }
}

/** A 128 × `azimuths` LiDAR sweep (−25°…+15°, 200 m) over `lidarBoxes` boxes, by each sensor method. */
async function lidarWorkloads(lib, gpu, args, rows) {
  const n = args.lidarBoxes;
  // The browser bench's LiDAR scene: boxes over 400 m × 400 m, centres within 3 m of the sensor's
  // height, none within 8 m of it horizontally.
  const boxes = lib.randomBoxes(n, lib.mulberry32(8102), { extent: 200, halfMin: 0.25, halfMax: 2.5 });
  for (let i = 0; i < n; i++) {
    const o = i * 15;
    const d = boxes.data;
    d[o + 2] = (d[o + 2] / 200) * 3;
    const h = Math.hypot(d[o], d[o + 1]);
    if (h < 8) {
      const s = h > 1e-9 ? (h + 8) / h : 1;
      d[o] = h > 1e-9 ? d[o] * s : 8 + d[o];
      d[o + 1] *= s;
    }
  }
  const set = gpu.createBoxSet(boxes);
  const desc = { elevations: lib.linearElevations(128, -25, 15), azimuthSteps: args.azimuths, maxRange: 200 };
  const pose = { origin: [0, 0, 0] };
  const rays = lib.lidarRays(desc, pose);
  // The reference on every 16th azimuth column.
  const pick = [];
  for (let r = 0; r < rays.count; r++) {
    if ((r % args.azimuths) % 16 === 0) {
      pick.push(r);
    }
  }
  const slice = { count: pick.length, data: Float64Array.from(pick.flatMap((r) => Array.from(rays.data.subarray(7 * r, 7 * r + 7)))) };
  try {
    await gpu.buildBvh(set);
    const tree = await gpu.bvhOf(set);
    for (const method of ['raster', 'bvh']) {
      const sensor = await gpu.createLidar(desc, { method });
      const name = `lidar-${128 * args.azimuths}-${n}`;
      try {
        console.error(`running ${name} (${method})…`);
        let sweep = await gpu.lidarSweep(sensor, set, pose);
        const e2e = await timeIt(async () => {
          sweep = await gpu.lidarSweep(sensor, set, pose);
        }, args.runs);
        const hits = {
          count: pick.length, box: Int32Array.from(pick, (r) => sweep.box[r]),
          t: Float32Array.from(pick, (r) => (sweep.range[r] < 0 ? Infinity : sweep.range[r])),
          face: new Uint8Array(pick.length), inside: new Uint8Array(pick.length),
        };
        const agrees = agreement(lib, set.boxes, slice, set.origin, hits, { checkFaces: false });
        rows.push(row(name, `gpu-${method}`, n, rays.count, e2e, rays.count, 'rays/s', agrees, 'end-to-end', 'rays generated on the GPU; range image and boxes read back'));
        const k = await timeKernel(gpu.ctx.device, (enc, ts) => sensor.encodeSweep(enc, set, tree, pose, ts ? { points: false, timestampWrites: ts } : { points: false }), args.runs);
        rows.push(row(name, `gpu-${method}-kernel`, n, rays.count, k.stats, rays.count, 'rays/s', agrees, k.timing, 'the sweep alone'));
      } finally {
        sensor.destroy();
      }
    }
  } finally {
    set.destroy();
  }
}

/**
 * Every overlapping pair among `movingBoxes` boxes per frame (the browser bench's moving scene:
 * half extents 0.1–1, about one partner per box): each run replaces the boxes with the next
 * frame (BoxSet.set) and lists the pairs, through the grid (`auto` here) and the BVH (rebuilt).
 */
async function allPairsWorkloads(lib, gpu, args, rows) {
  const n = args.movingBoxes;
  const extent = 20 * Math.cbrt(n / 10_000);
  const frames = [0, 1, 2].map((k) => lib.randomBoxes(n, lib.mulberry32(8103 + k), { extent, halfMin: 0.1, halfMax: 1 }));
  const set = gpu.createBoxSet(frames[0]);
  try {
    for (const accel of ['grid', 'bvh']) {
      const name = `all-pairs-moving-${n}`;
      console.error(`running ${name} (${accel})…`);
      let frame = 0;
      let list;
      const e2e = await timeIt(async () => {
        frame = (frame + 1) % frames.length;
        await set.set(frames[frame]);
        list = await gpu.allPairs(set, { accel });
      }, args.runs);
      const cmp = lib.comparePairLists({ a: set.boxes, origin: set.origin }, list.pairs, lib.allPairsSweep(set.boxes));
      console.error(`  check: ${lib.formatComparison(cmp, 3).split('\n')[0]}`);
      rows.push(row(name, `gpu-${accel}`, n, n, e2e, 1, 'frames/s', cmp.mismatch === 0, 'end-to-end', `set() of the frame, allPairs, sorted pairs read back (${list.count} pairs)`));
    }
  } finally {
    set.destroy();
  }
}

main().catch((error) => {
  console.error(`node-gpu: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exitCode = 1;
});
