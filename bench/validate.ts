/**
 * Validation throughput: the bulk typed-array path (`validateBoxArray`, `validateRayArray`)
 * against the object path (`boxArrayFrom`). Node only; run with
 *
 *   node bench/node-run.mjs bench/validate.ts [boxCount=1000000] [objectCount=100000]
 *
 * Data are random valid boxes (seeded), with axes perturbed by ~1e-6 and half of them
 * left-handed, so canonicalisation has real work to do. Each case: 2 warm-up runs, then 7
 * timed runs; we print the median and the min–max spread.
 */

import { boxArrayFrom, validateBoxArray, validateRayArray } from '../src/core/canonical.ts';
import { BOX_F64, RAY_F64 } from '../src/core/types.ts';
import type { BoxInput, Vec3 } from '../src/core/types.ts';
import { mulberry32 as rng } from '../src/scenes/generate.ts';

function randomBoxes(n: number, seed: number): Float64Array {
  const r = rng(seed);
  const d = new Float64Array(n * BOX_F64.STRIDE);
  for (let i = 0; i < n; i++) {
    const o = i * BOX_F64.STRIDE;
    // Random unit quaternion → rotation columns.
    let x = r() - 0.5, y = r() - 0.5, z = r() - 0.5, w = r() - 0.5;
    const l = Math.hypot(x, y, z, w);
    x /= l; y /= l; z /= l; w /= l;
    const e = (): number => (r() - 0.5) * 2e-6;
    const flip = r() < 0.5 ? -1 : 1;
    const rec = [
      (r() - 0.5) * 2000, (r() - 0.5) * 2000, (r() - 0.5) * 2000,
      r() * 10, r() * 10, r() * 10,
      1 - 2 * (y * y + z * z) + e(), 2 * (x * y + z * w) + e(), 2 * (x * z - y * w) + e(),
      2 * (x * y - z * w) + e(), 1 - 2 * (x * x + z * z) + e(), 2 * (y * z + x * w) + e(),
      flip * 2 * (x * z + y * w), flip * 2 * (y * z - x * w), flip * (1 - 2 * (x * x + y * y)),
    ];
    d.set(rec, o);
  }
  return d;
}

function randomRays(n: number, seed: number): Float64Array {
  const r = rng(seed);
  const d = new Float64Array(n * RAY_F64.STRIDE);
  for (let i = 0; i < n; i++) {
    const o = i * RAY_F64.STRIDE;
    d.set([(r() - 0.5) * 2000, (r() - 0.5) * 2000, (r() - 0.5) * 2000, r() - 0.5, r() - 0.5, r() - 0.5 + 1e-3, r() < 0.5 ? Infinity : r() * 500], o);
  }
  return d;
}

function toObjects(d: Float64Array, n: number): BoxInput[] {
  const out: BoxInput[] = [];
  for (let i = 0; i < n; i++) {
    const o = i * BOX_F64.STRIDE;
    const v = (k: number): Vec3 => [d[o + k] as number, d[o + k + 1] as number, d[o + k + 2] as number];
    out.push({ center: v(0), halfExtents: v(3), axes: [v(6), v(9), v(12)] });
  }
  return out;
}

function time(label: string, items: number, f: () => unknown): void {
  for (let i = 0; i < 2; i++) {
    f();
  }
  const ms: number[] = [];
  for (let i = 0; i < 7; i++) {
    const t0 = performance.now();
    f();
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  const median = ms[3] as number;
  const rate = (items / median) * 1000;
  console.log(
    `${label.padEnd(44)} ${items.toLocaleString('en-US').padStart(10)}  median ${median.toFixed(1).padStart(7)} ms` +
      `  (min ${(ms[0] as number).toFixed(1)}, max ${(ms[6] as number).toFixed(1)})  ${(rate / 1e6).toFixed(2)} M/s`,
  );
}

export function main(args: string[]): void {
  const n = Number(args[0] ?? 1_000_000);
  const m = Number(args[1] ?? 100_000);
  console.log(`node ${process.version}, ${process.arch}; 2 warm-up + 7 timed runs each`);
  const boxes = randomBoxes(n, 1);
  const boxes32 = new Float32Array(boxes);
  const rays = randomRays(n, 2);
  const boxOut = new Float64Array(boxes.length);
  const rayOut = new Float64Array(rays.length);
  time('validateBoxArray(Float64Array)', n, () => validateBoxArray(boxes));
  time('validateBoxArray(Float64Array, { out })', n, () => validateBoxArray(boxes, n, { out: boxOut }));
  time('validateBoxArray(Float32Array, { out })', n, () => validateBoxArray(boxes32, n, { out: boxOut }));
  time('validateRayArray(Float64Array)', n, () => validateRayArray(rays));
  time('validateRayArray(Float64Array, { out })', n, () => validateRayArray(rays, n, { out: rayOut }));
  time('new Float64Array(15n) alone (allocation cost)', n, () => new Float64Array(n * BOX_F64.STRIDE).fill(0));
  const objects = toObjects(boxes, m);
  time('boxArrayFrom(objects)', m, () => boxArrayFrom(objects));
}
