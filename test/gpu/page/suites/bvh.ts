/**
 * Suite `bvh`: the GPU building blocks of the BVH (scan, radix sort) and the tree itself,
 * checked against CPU computations of the same thing.
 */
import { BOX_F64, boxAt, obbToAabb, type BoxArray } from '../../../../src/index.ts';
import { mulberry32, randomBoxes } from '../../../../src/judge/index.ts';
import { GpuContext } from '../../../../src/advanced.ts';
import { Bvh } from '../../../../src/tree/Bvh.ts';
import { writeQuaternionAxes } from '../../../../src/scenes/generate.ts';
import { RadixSort } from '../../../../src/runtime/sort.ts';
import { ExclusiveScan, type BlockTuning } from '../../../../src/runtime/scan.ts';
import { SCAN_PER_THREAD, SCAN_WG, SORT_BITS, SORT_PER_THREAD, SORT_WG } from '../../../../src/constants.ts';

/** The GPU-shaped workgroups, forced (the default on a CPU adapter is the narrow shape). */
const GPU_TUNING: BlockTuning = { sortBits: SORT_BITS, sortWg: SORT_WG, sortPerThread: SORT_PER_THREAD, scanWg: SCAN_WG, scanPerThread: SCAN_PER_THREAD, boundsWg: 256, boundsPerThread: 4 };
import { LidarSensor, type LidarMethod, type LidarSweep } from '../../../../src/lidar/LidarSensor.ts';
import { FrustumCuller } from '../../../../src/frustum/FrustumCuller.ts';
import { frustumPlanes, linearElevations, type ClosestHits, type LidarDescription, type LidarPose } from '../../../../src/index.ts';
import { compareClosestHits, compareFrustum } from '../../../../src/judge/index.ts';
import { closestHitGrid, lidarRays } from '../../../../src/reference/index.ts';
import { getGpu, summarize } from '../shared.ts';

async function withContext<T>(body: (ctx: GpuContext) => Promise<T>): Promise<T> {
  const ctx = await GpuContext.create();
  ctx.device.pushErrorScope('validation');
  let result: T;
  try {
    result = await body(ctx);
  } finally {
    const error = await ctx.device.popErrorScope();
    ctx.destroy();
    if (error) {
      throw new Error(`GPU validation error: ${error.message}`);
    }
  }
  return result;
}

function upload(ctx: GpuContext, data: Uint32Array): GPUBuffer {
  const b = ctx.createBuffer({ size: Math.max(16, data.byteLength), usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC });
  ctx.device.queue.writeBuffer(b, 0, data);
  return b;
}

/** Exclusive scan of n random values (up to 100) against a CPU prefix sum. */
export async function scan(seed: number, n: number, gpuShape = false) {
  return withContext(async (ctx) => {
    const rnd = mulberry32(seed);
    const data = Uint32Array.from({ length: n }, () => Math.floor(rnd() * 100));
    const buf = upload(ctx, data);
    const s = gpuShape ? await ExclusiveScan.create(ctx, n, GPU_TUNING) : await ExclusiveScan.create(ctx, n);
    const enc = ctx.device.createCommandEncoder();
    const pass = enc.beginComputePass();
    await s.encode(pass, buf, n);
    pass.end();
    ctx.device.queue.submit([enc.finish()]);
    const got = new Uint32Array(await ctx.readback(buf, n * 4));
    let sum = 0;
    let wrong = 0;
    for (let i = 0; i < n; i++) {
      if (got[i] !== sum) {
        wrong++;
      }
      sum += data[i]!;
    }
    return { n, wrong };
  });
}

/** Radix sort of n (key, index) pairs with many duplicate keys, against a stable CPU sort. */
export async function sort(seed: number, n: number, bits: number, distinct: number, gpuShape = false, sortBits?: number) {
  return withContext(async (ctx) => {
    const rnd = mulberry32(seed);
    const mask = bits >= 32 ? 0xffffffff : (1 << bits) - 1;
    const pool = Uint32Array.from({ length: distinct }, () => Math.floor(rnd() * 4294967296) & mask);
    const keys = Uint32Array.from({ length: n }, () => pool[Math.floor(rnd() * distinct)]!);
    const vals = Uint32Array.from({ length: n }, (_, i) => i);
    const kb = upload(ctx, keys);
    const vb = upload(ctx, vals);
    const sorter = sortBits !== undefined ? await RadixSort.create(ctx, n, { ...GPU_TUNING, sortWg: 16, sortPerThread: 64, sortBits })
      : gpuShape ? await RadixSort.create(ctx, n, GPU_TUNING) : await RadixSort.create(ctx, n);
    const enc = ctx.device.createCommandEncoder();
    const pass = enc.beginComputePass();
    const t0 = performance.now();
    await sorter.encode(pass, kb, vb, n, bits);
    pass.end();
    ctx.device.queue.submit([enc.finish()]);
    await ctx.device.queue.onSubmittedWorkDone();
    const ms = performance.now() - t0;
    const gotK = new Uint32Array(await ctx.readback(kb, n * 4));
    const gotV = new Uint32Array(await ctx.readback(vb, n * 4));
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => keys[a]! - keys[b]! || a - b);
    let wrong = 0;
    for (let i = 0; i < n; i++) {
      if (gotV[i] !== order[i] || gotK[i] !== keys[order[i]!]) {
        wrong++;
      }
    }
    sorter.destroy();
    return { n, wrong, ms };
  });
}


/** A sort tuning whose workgroup memory is over the device's limit is refused by name, before any pipeline. */
export async function sortTuningRefused(): Promise<string> {
  return withContext(async (ctx) => {
    try {
      await RadixSort.create(ctx, 1000, { ...GPU_TUNING, sortBits: 8 });
      return 'accepted';
    } catch (e) {
      return `${(e as Error).name}: ${(e as Error).message}`;
    }
  });
}

/** Scenes that stress the build: equal Morton codes, flat layouts, mixed scales. */
export function bvhScene(kind: string, n: number, seed: number): BoxArray {
  const rnd = mulberry32(seed);
  const boxes = randomBoxes(n, rnd, { extent: 100, halfMin: 0.1, halfMax: 2 });
  const d = boxes.data;
  for (let i = 0; i < n; i++) {
    const o = i * BOX_F64.STRIDE;
    if (kind === 'identical') {
      d.set(d.subarray(0, BOX_F64.STRIDE), o);
    } else if (kind === 'plane') {
      d[o + 2] = 0;
    } else if (kind === 'mixed') {
      const s = i % 3 === 0 ? 10 : i % 3 === 1 ? 1e-3 : 1;
      d[o + 3]! *= s;
      d[o + 4]! *= s;
      d[o + 5]! *= s;
    } else if (kind === 'clustered') {
      // Half the boxes within 1e-3 of one point: equal codes at every depth.
      if (i % 2 === 0) {
        d[o] = 5 + 1e-3 * rnd();
        d[o + 1] = 5 + 1e-3 * rnd();
        d[o + 2] = 5 + 1e-3 * rnd();
      }
    }
  }
  return boxes;
}

/** Builds a tree over a scene, reads it back and checks every invariant on the CPU. */
export async function invariants(kind: string, n: number, seed: number, refitAfterMove: boolean) {
  const gpu = await getGpu();
  const errors: string[] = [];
  {
    let boxes = bvhScene(kind, n, seed);
    const set = gpu.createBoxSet(boxes);
    const bvh = await Bvh.create(gpu.ctx, set);
    const t0 = performance.now();
    await bvh.build();
    await gpu.ctx.device.queue.onSubmittedWorkDone();
    const buildMs = performance.now() - t0;
    let refitMs = 0;
    if (refitAfterMove) {
      // Move every box a little (same count): refit only.
      const moved = boxes.data.slice();
      const rnd = mulberry32(seed + 1);
      for (let i = 0; i < n; i++) {
        for (let k = 0; k < 3; k++) {
          moved[i * BOX_F64.STRIDE + k]! += (rnd() - 0.5) * 10;
        }
      }
      boxes = { count: n, data: moved };
      await set.update(0, boxes);
      const t1 = performance.now();
      await bvh.refit();
      await gpu.ctx.device.queue.onSubmittedWorkDone();
      refitMs = performance.now() - t1;
    }
    const s = await bvh.snapshot();
    if (s.rootRefits !== (n >= 2 ? 1 : 0)) {
      errors.push(`root refitted ${s.rootRefits} times`);
    }
    // Sorted codes, values a permutation, equal codes in index order (stable sort).
    const seen = new Uint8Array(n);
    for (let p = 0; p < n; p++) {
      const v = s.values[p]!;
      if (v >= n || seen[v]) {
        errors.push(`values[${p}] = ${v} is not a permutation entry`);
        break;
      }
      seen[v] = 1;
      if (p > 0 && (s.keys[p - 1]! > s.keys[p]! || (s.keys[p - 1] === s.keys[p] && s.values[p - 1]! > v))) {
        errors.push(`keys not sorted stably at ${p}`);
        break;
      }
    }
    // Walk the tree: every leaf exactly once, every internal node once, parents consistent,
    // every AABB containing its children (leaf: the box's exact AABB, re-based to the origin).
    const origin = set.origin;
    const leafSeen = new Uint8Array(n);
    const nodeSeen = new Uint8Array(Math.max(0, n - 1));
    const aabbOf = (c: number): [number[], number[]] => {
      if (c & 0x80000000) {
        const a = obbToAabb(boxAt(boxes, c & 0x7fffffff));
        return [a.min.map((x, k) => x - origin[k]!), a.max.map((x, k) => x - origin[k]!)];
      }
      const f = s.nodeFloats;
      return [[f[8 * c]!, f[8 * c + 1]!, f[8 * c + 2]!], [f[8 * c + 4]!, f[8 * c + 5]!, f[8 * c + 6]!]];
    };
    let maxDepth = 0;
    if (n >= 2) {
      const stack: [number, number][] = [[0, 0]];
      while (stack.length > 0) {
        const [node, depth] = stack.pop()!;
        maxDepth = Math.max(maxDepth, depth);
        if (nodeSeen[node]) {
          errors.push(`node ${node} reached twice`);
          break;
        }
        nodeSeen[node] = 1;
        const [pmin, pmax] = aabbOf(node);
        for (const c of [s.nodeWords[8 * node + 3]!, s.nodeWords[8 * node + 7]!]) {
          const [cmin, cmax] = aabbOf(c);
          for (let k = 0; k < 3; k++) {
            const tol = 1e-6 * (Math.abs(cmin[k]!) + Math.abs(cmax[k]!) + 1);
            if (cmin[k]! < pmin[k]! - tol || cmax[k]! > pmax[k]! + tol) {
              errors.push(`node ${node}'s AABB does not contain child ${c >>> 0} on axis ${k}`);
              break;
            }
          }
          if (c & 0x80000000) {
            const b = c & 0x7fffffff;
            if (leafSeen[b]) {
              errors.push(`leaf ${b} reached twice`);
            }
            leafSeen[b] = 1;
          } else {
            if (s.parents[c] !== node) {
              errors.push(`parent of node ${c} is ${s.parents[c]}, expected ${node}`);
            }
            stack.push([c, depth + 1]);
          }
        }
        if (errors.length > 5) {
          break;
        }
      }
      if (leafSeen.some((x) => x === 0)) {
        errors.push(`${leafSeen.filter((x) => x === 0).length} leaves never reached`);
      }
      // The tree is the binary radix tree of the sorted keys (position-tie-broken, as the build
      // links it bottom-up): every node covers a run of sorted positions, its children split it
      // into two adjacent runs, and the split is where the run's common prefix ends.
      if (errors.length === 0) {
        const position = new Uint32Array(n);
        s.values.forEach((box, p) => {
          position[box] = p;
        });
        const delta = (i: number, j: number): number =>
          s.keys[i] === s.keys[j] ? 32 + Math.clz32(i ^ j) : Math.clz32(s.keys[i]! ^ s.keys[j]!);
        const runOf = (c: number): [number, number] => {
          if (c & 0x80000000) {
            const p = position[c & 0x7fffffff]!;
            return [p, p];
          }
          const [l0, l1] = runOf(s.nodeWords[8 * c + 3]!);
          const [r0, r1] = runOf(s.nodeWords[8 * c + 7]!);
          if (l1 + 1 !== r0 && errors.length < 5) {
            errors.push(`node ${c}: children cover ${l0}..${l1} and ${r0}..${r1}, not adjacent runs`);
          } else if (delta(l0, r1) !== delta(l1, r0) && errors.length < 5) {
            errors.push(`node ${c}: split after ${l1} in ${l0}..${r1} is not where the common prefix ends`);
          }
          return [l0, r1];
        };
        const [first, last] = runOf(0);
        if (first !== 0 || last !== n - 1) {
          errors.push(`the root covers ${first}..${last}, not 0..${n - 1}`);
        }
      }
      if (nodeSeen.some((x) => x === 0)) {
        errors.push(`${nodeSeen.filter((x) => x === 0).length} internal nodes never reached`);
      }
      // The wide records the walks read, from the root's: every box exactly once as a leaf entry,
      // an internal entry's AABB the node's own (the same floats), a leaf entry's containing the
      // box's exact AABB, and each record's entries exactly the nodes two levels below its node.
      const wideSeen = new Uint8Array(n);
      const wide: number[] = [0];
      const W = 32;
      while (wide.length > 0 && errors.length <= 5) {
        const r = wide.pop()!;
        const expected: number[] = [];
        for (const c of [s.nodeWords[8 * r + 3]!, s.nodeWords[8 * r + 7]!]) {
          if (c & 0x80000000) {
            expected.push(c);
          } else {
            expected.push(s.nodeWords[8 * c + 3]!, s.nodeWords[8 * c + 7]!);
          }
        }
        const ptrs = [0, 1, 2, 3].map((k) => s.wideWords[W * r + 8 * k + 3]!);
        if (ptrs.filter((p) => p !== 0xffffffff).join() !== expected.join()) {
          errors.push(`wide record ${r}: entries ${ptrs.join()} instead of ${expected.join()}`);
          break;
        }
        ptrs.forEach((c, k) => {
          if (c === 0xffffffff) {
            return;
          }
          const lo = [0, 1, 2].map((a) => s.wideFloats[W * r + 8 * k + a]!);
          const hi = [0, 1, 2].map((a) => s.wideFloats[W * r + 8 * k + 4 + a]!);
          const [cmin, cmax] = aabbOf(c);
          if (c & 0x80000000) {
            const b = c & 0x7fffffff;
            if (wideSeen[b]) {
              errors.push(`leaf ${b} in two wide records`);
            }
            wideSeen[b] = 1;
            if ([0, 1, 2].some((a) => lo[a]! > cmin[a]! || hi[a]! < cmax[a]!)) {
              errors.push(`wide record ${r}: leaf ${b}'s AABB does not contain the box`);
            }
          } else {
            if ([0, 1, 2].some((a) => lo[a] !== cmin[a] || hi[a] !== cmax[a])) {
              errors.push(`wide record ${r}: node ${c}'s AABB is not the node's`);
            }
            wide.push(c);
          }
        });
      }
      if (wideSeen.some((x) => x === 0)) {
        errors.push(`${wideSeen.filter((x) => x === 0).length} boxes in no wide record`);
      }
    }
    bvh.destroy();
    set.destroy();
    return { errors: errors.slice(0, 5), maxDepth, buildMs, refitMs };
  }
}






/** A street-like scene: boxes on a ground plane around the origin, rotated about z. */
export function streetScene(n: number, seed: number, offset: readonly [number, number, number] = [0, 0, 0]): BoxArray {
  const rnd = mulberry32(seed);
  const boxes = randomBoxes(n, rnd, { extent: 150, halfMin: 0.3, halfMax: 4, offset: [offset[0], offset[1], offset[2]] });
  for (let i = 0; i < n; i++) {
    const o = i * BOX_F64.STRIDE;
    boxes.data[o + 2] = offset[2] + boxes.data[o + 5]! * 0.5 + rnd() * 3;
  }
  return boxes;
}

/** A sweep read back as ClosestHits (range → t, no faces) for the comparator. */
function sweepHits(sweep: LidarSweep): ClosestHits {
  const n = sweep.box.length;
  return { count: n, box: sweep.box, t: Float32Array.from(sweep.range, (x) => (x < 0 ? Infinity : x)), face: new Uint8Array(n), inside: new Uint8Array(n) };
}

/** Rays where two sweeps differ in box or in range bits. */
function sweepDifferences(a: LidarSweep, b: LidarSweep): number {
  let d = 0;
  for (let r = 0; r < a.box.length; r++) {
    d += a.box[r] !== b.box[r] || !Object.is(a.range[r], b.range[r]) ? 1 : 0;
  }
  return d;
}

/**
 * One LiDAR sweep on the GPU (`method`: raster or bvh) against the reference rays, through the
 * comparator; for raster, also the same sweep by the BVH method (rays that differ in box or range).
 */
export async function lidar(seed: number, channels: number, azimuths: number, boxCount: number, offset: number, method: LidarMethod = 'bvh', listCapacity: number | null = null) {
  const gpu = await getGpu();
  {
    const boxes = streetScene(boxCount, seed, [offset, -offset, 0]);
    const set = gpu.createBoxSet(boxes);
    const bvh = await Bvh.create(gpu.ctx, set);
    await bvh.build();
    const desc: LidarDescription = { elevations: linearElevations(channels, -25, 15), azimuthSteps: azimuths, maxRange: 200 };
    const pose: LidarPose = { origin: [offset + 3, -offset - 2, 1.8], rotation: [0, 0, Math.sin(0.15), Math.cos(0.15)] };
    const sensor = await LidarSensor.create(gpu.ctx, desc, listCapacity === null ? { method } : { method, listCapacity });
    const t0 = performance.now();
    const sweep = await sensor.sweep(set, bvh, pose, { points: true });
    const ms = performance.now() - t0;
    const rays = lidarRays(desc, pose);
    const ref = closestHitGrid(boxes, rays);
    const cmp = compareClosestHits({ boxes: set.boxes, rays, origin: set.origin }, sweepHits(sweep), ref, { checkFaces: false });
    // Points: origin + t · direction (relative to the set origin), w = 1 exactly on returns.
    let pointErrors = 0;
    for (let r = 0; r < rays.count; r++) {
      const w = sweep.points![4 * r + 3]!;
      if ((sweep.box[r]! >= 0) !== (w === 1)) {
        pointErrors++;
      } else if (w === 1) {
        for (let k = 0; k < 3; k++) {
          const want = rays.data[7 * r + k]! + sweep.range[r]! * rays.data[7 * r + 3 + k]! - set.origin[k]!;
          if (Math.abs(sweep.points![4 * r + k]! - want) > 1e-3 * (1 + Math.abs(sweep.range[r]!))) {
            pointErrors++;
          }
        }
      }
    }
    let vsBvh = 0;
    if (method === 'raster') {
      const other = await LidarSensor.create(gpu.ctx, desc, { method: 'bvh' });
      vsBvh = sweepDifferences(sweep, await other.sweep(set, bvh, pose));
      other.destroy();
    }
    const returns = sweep.box.filter((b) => b >= 0).length;
    const grownTo = sensor.listCapacity;
    sensor.destroy();
    bvh.destroy();
    set.destroy();
    return { summary: summarize(cmp), returns, rays: rays.count, pointErrors, overflowed: sweep.overflowed, ms, method: sensor.method, vsBvh, listCapacity: grownTo };
  }
}

/**
 * The raster method where its footprints are hardest: an unsorted channel table reaching 80°
 * up and 60° down, a non-power-of-two azimuth count starting at 1.3 rad (so boxes straddle the
 * seam), a tilted pose, a ground slab under the sensor, boxes right above it, tiny boxes far
 * away between rays, boxes masked out, exact copies of boxes (ties: the smaller index wins), and
 * a second pose inside a box (every ray t = 0).
 * Returns, per pose, the comparator's summary against the reference and the rays that differ
 * from the BVH method.
 */
export async function lidarRasterAdversarial(seed: number) {
  const gpu = await getGpu();
  const rnd = mulberry32(seed);
  const street = streetScene(1500, seed);
  const extra: number[][] = [
    [0, 0, -1.2, 300, 300, 0.5], // ground slab under the sensor
    [0.2, -0.1, 6, 1, 1, 1], [0, 0, 14, 6, 0.3, 0.3], [3, 1, 9, 0.2, 4, 0.5], // above the sensor
    [4, -2, 1.8, 0.5, 0.5, 0.5], // inside: the second pose sits in it
  ];
  for (let k = 0; k < 200; k++) {
    // Tiny boxes 60–180 m out, many near the seam at 1.3 rad.
    const az = k < 80 ? 1.3 + (rnd() - 0.5) * 0.02 : rnd() * 2 * Math.PI;
    const d = 60 + rnd() * 120;
    extra.push([d * Math.cos(az), d * Math.sin(az), 1.8 + (rnd() - 0.5) * 20, 0.01 + rnd() * 0.05, 0.01 + rnd() * 0.05, 0.01 + rnd() * 0.05]);
  }
  const data = new Float64Array((street.count + extra.length) * BOX_F64.STRIDE);
  data.set(street.data);
  extra.forEach((e, k) => {
    const o = (street.count + k) * BOX_F64.STRIDE;
    data.set(e, o);
    const [qx, qy, qz] = [rnd() - 0.5, rnd() - 0.5, rnd() - 0.5];
    const len = Math.hypot(qx, qy, qz, 1);
    writeQuaternionAxes(data, o, qx / len, qy / len, qz / len, 1 / len);
  });
  // Exact copies of the boxes above the sensor and of 40 street boxes, at higher indices: every
  // ray that hits one ties at equal t, and the smaller index must win.
  const copies = [...[1, 2, 3].map((k) => street.count + k), ...Array.from({ length: 40 }, (_, k) => k * 37)];
  const all = new Float64Array(data.length + copies.length * BOX_F64.STRIDE);
  all.set(data);
  copies.forEach((i, k) => all.set(data.subarray(i * BOX_F64.STRIDE, (i + 1) * BOX_F64.STRIDE), data.length + k * BOX_F64.STRIDE));
  const boxes: BoxArray = { count: street.count + extra.length + copies.length, data: all };
  const masks = Uint32Array.from({ length: boxes.count }, (_, i) => (i % 7 === 3 ? 2 : 1));
  const set = gpu.createBoxSet(boxes, { masks });
  const bvh = await Bvh.create(gpu.ctx, set);
  await bvh.build();
  const deg = Math.PI / 180;
  const desc: LidarDescription = {
    elevations: [-30, 80, -10, 5, 45, 0, 10, -60, 70, 20, -2, 2, 30, -45, 60, 15].map((e) => e * deg),
    azimuthSteps: 777, azimuthStart: 1.3, maxRange: 190,
  };
  const raster = await LidarSensor.create(gpu.ctx, desc, { method: 'raster' });
  const walk = await LidarSensor.create(gpu.ctx, desc, { method: 'bvh' });
  const out: { summary: ReturnType<typeof summarize>; vsBvh: number; returns: number; zeros: number; ties: number }[] = [];
  const copied = new Set(copies);
  const tilt = [Math.sin(0.2) * 0.6, Math.sin(0.2) * 0.8, 0, Math.cos(0.2)] as const;
  for (const pose of [{ origin: [0, 0, 1.8], rotation: tilt }, { origin: [4, -2, 1.8], rotation: tilt }] as LidarPose[]) {
    const sweep = await raster.sweep(set, bvh, pose, { mask: 1 });
    const rays = lidarRays(desc, pose);
    // The reference with the same masks: box i is visible to the sweep when masks[i] & 1.
    const visible = Array.from({ length: boxes.count }, (_, i) => i).filter((i) => (masks[i]! & 1) !== 0);
    const sub: BoxArray = { count: visible.length, data: Float64Array.from(visible.flatMap((i) => Array.from(all.subarray(i * BOX_F64.STRIDE, (i + 1) * BOX_F64.STRIDE)))) };
    const refSub = closestHitGrid(sub, rays);
    const ref = { ...refSub, box: Int32Array.from(refSub.box, (b) => (b < 0 ? b : visible[b]!)) };
    const cmp = compareClosestHits({ boxes: set.boxes, rays, origin: set.origin }, sweepHits(sweep), ref, { checkFaces: false });
    out.push({
      summary: summarize(cmp),
      vsBvh: sweepDifferences(sweep, await walk.sweep(set, bvh, pose, { mask: 1 })),
      returns: sweep.box.filter((b) => b >= 0).length,
      zeros: Array.from(sweep.range).filter((t) => t === 0).length,
      ties: Array.from(sweep.box).filter((b) => copied.has(b)).length,
    });
  }
  raster.destroy();
  walk.destroy();
  bvh.destroy();
  set.destroy();
  return { rays: desc.elevations.length * desc.azimuthSteps, poses: out, copies: copies.length };
}

/** Frustum culling of a random scene against the reference, plus the draw arguments. */
export async function frustum(seed: number, n: number) {
  const gpu = await getGpu();
  {
    const boxes = streetScene(n, seed, [1e4, 2e4, 0]);
    const set = gpu.createBoxSet(boxes);
    // A perspective camera at (1e4 + 0, 2e4 - 60, 30) looking at (1e4, 2e4, 0) (WebGPU z in [0, 1]).
    const eye = [1e4, 2e4 - 60, 30];
    const target = [1e4, 2e4, 0];
    const f = normalize3(target.map((x, k) => x - eye[k]!));
    const s = normalize3(cross3(f, [0, 0, 1]));
    const u = cross3(s, f);
    const [s0, s1, s2] = s as [number, number, number];
    const [u0, u1, u2] = u as [number, number, number];
    const [f0, f1, f2] = f as [number, number, number];
    const view = [s0, u0, -f0, 0, s1, u1, -f1, 0, s2, u2, -f2, 0, -dot3(s, eye), -dot3(u, eye), dot3(f, eye), 1];
    const fov = Math.PI / 3, aspect = 1.5, near = 0.5, far = 120;
    const t = 1 / Math.tan(fov / 2);
    const proj = [t / aspect, 0, 0, 0, 0, t, 0, 0, 0, 0, far / (near - far), -1, 0, 0, (near * far) / (near - far), 0];
    const viewProj = mul4(proj, view);
    const planes = frustumPlanes(viewProj);
    const culler = await FrustumCuller.create(gpu.ctx, n);
    const r = await culler.cull(set, planes, { indexCount: 36 });
    const cmp = compareFrustum({ boxes: set.boxes, planes, origin: set.origin }, r.visible);
    culler.destroy();
    set.destroy();
    return { summary: summarize(cmp), visible: r.visible.length, drawArgs: Array.from(r.drawArgs) };
  }
}

function normalize3(v: number[]): number[] {
  const l = Math.hypot(v[0]!, v[1]!, v[2]!);
  return v.map((x) => x / l);
}
function cross3(a: number[], b: number[]): number[] {
  return [a[1]! * b[2]! - a[2]! * b[1]!, a[2]! * b[0]! - a[0]! * b[2]!, a[0]! * b[1]! - a[1]! * b[0]!];
}
function dot3(a: number[], b: number[]): number {
  return a[0]! * b[0]! + a[1]! * b[1]! + a[2]! * b[2]!;
}
/** Column-major 4×4 product a · b. */
function mul4(a: number[], b: number[]): number[] {
  const out = new Array<number>(16).fill(0);
  for (let c = 0; c < 4; c++) {
    for (let r = 0; r < 4; r++) {
      for (let k = 0; k < 4; k++) {
        out[4 * c + r]! += a[4 * k + r]! * b[4 * c + k]!;
      }
    }
  }
  return out;
}
