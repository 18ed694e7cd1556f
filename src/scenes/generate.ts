/**
 * Seeded scene generators shared by the tests, the benchmarks and the demo, so every number
 * comes from the same reproducible data. All output is canonical (BoxArray / RayArray).
 */
import { BOX_F64, RAY_F64, type BoxArray, type RayArray, type Vec3 } from '../core/types.ts';

/**
 * mulberry32: a small, fast, well-mixed 32-bit PRNG; returns floats in [0, 1).
 *
 * @example
 * const rnd = mulberry32(42); rnd(); // 0.6011037519201636
 */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random number generator as the generators take it. */
export type Rng = () => number;

const uniform = (rnd: Rng, lo: number, hi: number): number => lo + (hi - lo) * rnd();

/** Writes the rotation of unit quaternion (x, y, z, w) as axes u, v, w at `o + BOX_F64.U`. */
export function writeQuaternionAxes(data: Float64Array, o: number, x: number, y: number, z: number, w: number): void {
  const u = o + BOX_F64.U;
  data[u] = 1 - 2 * (y * y + z * z);
  data[u + 1] = 2 * (x * y + z * w);
  data[u + 2] = 2 * (x * z - y * w);
  data[u + 3] = 2 * (x * y - z * w);
  data[u + 4] = 1 - 2 * (x * x + z * z);
  data[u + 5] = 2 * (y * z + x * w);
  data[u + 6] = 2 * (x * z + y * w);
  data[u + 7] = 2 * (y * z - x * w);
  data[u + 8] = 1 - 2 * (x * x + y * y);
}

/** Uniformly random rotation (Shoemake's method) written as axes at record offset `o`. */
export function writeRandomRotation(data: Float64Array, o: number, rnd: Rng): void {
  const u1 = rnd(), u2 = rnd() * 2 * Math.PI, u3 = rnd() * 2 * Math.PI;
  const a = Math.sqrt(1 - u1), b = Math.sqrt(u1);
  writeQuaternionAxes(data, o, a * Math.sin(u2), a * Math.cos(u2), b * Math.sin(u3), b * Math.cos(u3));
}

/** Rotation from yaw (z), pitch (y), roll (x), as the published SAT suite draws it. */
export function writeYawPitchRoll(data: Float64Array, o: number, yaw: number, pitch: number, roll: number): void {
  const cy = Math.cos(yaw / 2), sy = Math.sin(yaw / 2);
  const cp = Math.cos(pitch / 2), sp = Math.sin(pitch / 2);
  const cr = Math.cos(roll / 2), sr = Math.sin(roll / 2);
  writeQuaternionAxes(data, o,
    sr * cp * cy - cr * sp * sy,
    cr * sp * cy + sr * cp * sy,
    cr * cp * sy - sr * sp * cy,
    cr * cp * cy + sr * sp * sy);
}

/** Options of {@link randomBoxes}. */
export interface RandomBoxOptions {
  /** Centres uniform in [-extent, extent]³ around `offset` (default 10). */
  readonly extent?: number;
  /** World offset of the whole scene (default [0, 0, 0]; use 1e6 for world-scale tests). */
  readonly offset?: Vec3;
  /** Half extents uniform in [halfMin, halfMax] (default 0.1 .. 1). */
  readonly halfMin?: number;
  readonly halfMax?: number;
  /** Fraction of boxes left axis-aligned (default 0). */
  readonly axisAligned?: number;
}

/**
 * `n` random boxes with uniformly random rotations.
 *
 * @example
 * const boxes = randomBoxes(4096, mulberry32(1), { extent: 50 });
 */
export function randomBoxes(n: number, rnd: Rng, options: RandomBoxOptions = {}): BoxArray {
  const extent = options.extent ?? 10;
  const [ox, oy, oz] = options.offset ?? [0, 0, 0];
  const hMin = options.halfMin ?? 0.1;
  const hMax = options.halfMax ?? 1;
  const data = new Float64Array(n * BOX_F64.STRIDE);
  for (let i = 0; i < n; i++) {
    const o = i * BOX_F64.STRIDE;
    data[o] = ox + uniform(rnd, -extent, extent);
    data[o + 1] = oy + uniform(rnd, -extent, extent);
    data[o + 2] = oz + uniform(rnd, -extent, extent);
    data[o + 3] = uniform(rnd, hMin, hMax);
    data[o + 4] = uniform(rnd, hMin, hMax);
    data[o + 5] = uniform(rnd, hMin, hMax);
    if (rnd() < (options.axisAligned ?? 0)) {
      writeQuaternionAxes(data, o, 0, 0, 0, 1);
    } else {
      writeRandomRotation(data, o, rnd);
    }
  }
  return { count: n, data };
}

/**
 * The published SAT suite's distribution: centres uniform in [-2, 2]³, half extents uniform in
 * [0.2, 2], yaw and roll uniform in [-π, π], pitch uniform in [-π/2, π/2]. Returns 2n boxes;
 * pair k is (2k, 2k + 1).
 *
 * @example
 * const boxes = publishedSatPairs(10_000, mulberry32(11423));
 */
export function publishedSatPairs(n: number, rnd: Rng): BoxArray {
  const data = new Float64Array(2 * n * BOX_F64.STRIDE);
  for (let i = 0; i < 2 * n; i++) {
    const o = i * BOX_F64.STRIDE;
    for (let k = 0; k < 3; k++) {
      data[o + k] = uniform(rnd, -2, 2);
    }
    for (let k = 0; k < 3; k++) {
      data[o + 3 + k] = uniform(rnd, 0.2, 2);
    }
    writeYawPitchRoll(data, o, uniform(rnd, -Math.PI, Math.PI), uniform(rnd, -Math.PI / 2, Math.PI / 2), uniform(rnd, -Math.PI, Math.PI));
  }
  return { count: 2 * n, data };
}

/** Options of {@link randomRays}. */
export interface RandomRayOptions {
  /** Origins uniform in [-extent, extent]³ around `offset` (default 15). */
  readonly extent?: number;
  readonly offset?: Vec3;
  /** Fraction of rays aimed at a random box centre (default 0.5); the rest point anywhere. */
  readonly aimed?: number;
  /** Max distance (default Infinity). */
  readonly maxDistance?: number;
}

/**
 * `n` random rays, half of them aimed at random box centres so that hits are common.
 *
 * @example
 * const rays = randomRays(16_384, boxes, mulberry32(2));
 */
export function randomRays(n: number, boxes: BoxArray, rnd: Rng, options: RandomRayOptions = {}): RayArray {
  const extent = options.extent ?? 15;
  const [ox, oy, oz] = options.offset ?? [0, 0, 0];
  const data = new Float64Array(n * RAY_F64.STRIDE);
  for (let i = 0; i < n; i++) {
    const o = i * RAY_F64.STRIDE;
    const px = ox + uniform(rnd, -extent, extent);
    const py = oy + uniform(rnd, -extent, extent);
    const pz = oz + uniform(rnd, -extent, extent);
    let dx: number, dy: number, dz: number;
    if (boxes.count > 0 && rnd() < (options.aimed ?? 0.5)) {
      const b = Math.floor(rnd() * boxes.count) * BOX_F64.STRIDE;
      dx = boxes.data[b]! - px;
      dy = boxes.data[b + 1]! - py;
      dz = boxes.data[b + 2]! - pz;
    } else {
      dx = uniform(rnd, -1, 1);
      dy = uniform(rnd, -1, 1);
      dz = uniform(rnd, -1, 1);
    }
    const len = Math.hypot(dx, dy, dz) || 1;
    data[o] = px;
    data[o + 1] = py;
    data[o + 2] = pz;
    data[o + 3] = len === 1 && dx === 0 && dy === 0 && dz === 0 ? 1 : dx / len;
    data[o + 4] = dy / len;
    data[o + 5] = dz / len;
    data[o + 6] = options.maxDistance ?? Infinity;
  }
  return { count: n, data };
}
