/**
 * Brute-force workloads (the GPU core): rays × boxes closest hit, and box pairs, on the GPU path
 * and the float64 CPU reference in the same page, on the same seeded scenes.
 */
import {
  ObbGpu, RAY, closestHit, compareClosestHits, comparePairs, mulberry32, obbPairs, packRays,
  publishedSatPairs, randomBoxes, randomRays,
} from '../../../src/index.ts';
import { row, timeGpu, timeIt, type Row } from '../measure.ts';

let shared: Promise<ObbGpu> | undefined;
const gpu = (): Promise<ObbGpu> => (shared ??= ObbGpu.create());

export async function adapter(): Promise<{ name: string; fallback: boolean; features: string[]; userAgent: string }> {
  const g = await gpu();
  return { name: g.adapterName, fallback: g.ctx.adapter.isFallbackAdapter, features: [...g.ctx.device.features], userAgent: navigator.userAgent };
}

/** `rays` random rays × `boxes` random boxes, closest hit. */
export async function bruteRays(rays: number, boxes: number, runs: number, cpuRays: number): Promise<Row[]> {
  const g = await gpu();
  const rnd = mulberry32(4242);
  const boxArr = randomBoxes(boxes, rnd, { extent: 50, halfMin: 0.2, halfMax: 2 });
  const rayArr = randomRays(rays, boxArr, rnd, { extent: 60 });
  const set = g.createBoxSet(boxArr);
  const name = `brute-rays-${rays}x${boxes}`;
  const tests = rays * boxes;
  const out: Row[] = [];
  try {
    // End to end: validation, packing, upload, dispatch, readback.
    let hits = await g.closestHit(set, rayArr);
    const e2e = await timeIt(async () => {
      hits = await g.closestHit(set, rayArr);
    }, runs);
    const cmp = compareClosestHits({ boxes: set.boxes, rays: rayArr, origin: set.origin }, hits);
    out.push(row(name, 'gpu-brute', boxes, rays, e2e, tests, 'tests/s', cmp.mismatch === 0, 'end-to-end'));
    // Kernel only: rays already on the GPU.
    const device = g.ctx.device;
    const rayBuf = device.createBuffer({ size: rays * RAY.SIZE, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
    device.queue.writeBuffer(rayBuf, 0, packRays(rayArr, set.origin));
    const hitBuf = device.createBuffer({ size: rays * 16, usage: GPUBufferUsage.STORAGE });
    const geoBuf = device.createBuffer({ size: 32, usage: GPUBufferUsage.STORAGE });
    const k = await timeGpu(device, (enc, ts) => g.rays.encodeClosestHit(enc, set, rayBuf, rays, hitBuf, geoBuf,
      ts ? { geometry: false, timestampWrites: ts } : { geometry: false }), runs);
    out.push(row(name, 'gpu-brute-kernel', boxes, rays, k.stats, tests, 'tests/s', cmp.mismatch === 0, k.timing));
    rayBuf.destroy();
    hitBuf.destroy();
    geoBuf.destroy();
    // CPU reference on a slice of the rays (the same scene), scaled by tests per second.
    const slice = { count: cpuRays, data: rayArr.data.subarray(0, cpuRays * 7) };
    const cpu = await timeIt(() => closestHit(boxArr, slice), Math.max(1, Math.ceil(runs / 3)), 0);
    out.push(row(name, 'reference', boxes, cpuRays, cpu, cpuRays * boxes, 'tests/s', true, 'cpu',
      cpuRays < rays ? `first ${cpuRays} rays of the same scene` : undefined));
  } finally {
    set.destroy();
  }
  return out;
}

/** `pairs` box pairs (published distribution), full 15-axis SAT. */
export async function brutePairs(pairs: number, runs: number): Promise<Row[]> {
  const g = await gpu();
  const boxes = publishedSatPairs(pairs, mulberry32(11423));
  const list = Uint32Array.from({ length: 2 * pairs }, (_, i) => i);
  const set = g.createBoxSet(boxes);
  const name = `box-pairs-${pairs}`;
  const out: Row[] = [];
  try {
    let r = await g.obbPairs(set, list);
    const e2e = await timeIt(async () => {
      r = await g.obbPairs(set, list);
    }, runs);
    const cmp = comparePairs({ a: set.boxes, pairs: list, origin: set.origin }, r);
    out.push(row(name, 'gpu-brute', pairs, pairs, e2e, pairs, 'pairs/s', cmp.mismatch === 0, 'end-to-end'));
    const cpu = await timeIt(() => obbPairs(boxes, list), Math.max(1, Math.ceil(runs / 2)), 1);
    out.push(row(name, 'reference', pairs, pairs, cpu, pairs, 'pairs/s', true, 'cpu'));
  } finally {
    set.destroy();
  }
  return out;
}
