/**
 * Seeded scene generators shared by the tests, the benchmarks and the demo, so every number
 * comes from the same reproducible data. All output is canonical (BoxArray / RayArray), except
 * {@link wideRays}, which returns rays as users write them (directions of any length).
 */
import { BOX_F64, RAY_F64, type BoxArray, type Ray, type RayArray, type Vec3 } from '../core/types.ts';

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

/**
 * Log-uniform in [lo, hi] (0 < lo ≤ hi): every decade equally likely.
 *
 * @example
 * logUniform(mulberry32(1), 1e-4, 1e4) // somewhere in eight decades
 */
export function logUniform(rnd: Rng, lo: number, hi: number): number {
  return lo * Math.pow(hi / lo, rnd());
}

/** Options of {@link wideBoxes} and {@link widePairs}. */
export interface WideBoxOptions {
  /** Each box draws a scale log-uniform in [halfMin, halfMax] (default 1e-4 .. 1e4). */
  readonly halfMin?: number;
  readonly halfMax?: number;
  /** Each half extent is the scale times a factor log-uniform in [1/aspect, aspect], clamped to [halfMin, halfMax] (default 8). */
  readonly aspect?: number;
  /** Fraction of flat boxes, one half extent 0 (default 0). */
  readonly flat?: number;
  /** Fraction of segments, two half extents 0 (default 0). */
  readonly segments?: number;
  /** Offsets from the world origin that the twins of boxes (or of pairs) are dealt to in turn (default [[0, 0, 0]]). */
  readonly offsets?: readonly Vec3[];
  /** wideBoxes: each centre lies within ± spread × the box's scale of its offset, per coordinate (default 20). */
  readonly spread?: number;
}

/**
 * Half extents of one wide box at `o`: `scale` (default log-uniform in [halfMin, halfMax]) times
 * per-axis factors, then zeros for flat boxes and segments. Returns the scale.
 */
function writeWideHalf(data: Float64Array, o: number, rnd: Rng, options: WideBoxOptions, scale?: number): number {
  const lo = options.halfMin ?? 1e-4;
  const hi = options.halfMax ?? 1e4;
  const aspect = options.aspect ?? 8;
  scale ??= logUniform(rnd, lo, hi);
  for (let k = 0; k < 3; k++) {
    data[o + BOX_F64.HALF + k] = Math.min(hi, Math.max(lo, scale * logUniform(rnd, 1 / aspect, aspect)));
  }
  const kind = rnd();
  const segments = options.segments ?? 0;
  const zeros = kind < segments ? 2 : kind < segments + (options.flat ?? 0) ? 1 : 0;
  const keep = Math.floor(rnd() * 3);
  for (let z = 0; z < zeros; z++) {
    // Flat: zero the axis after `keep`; segment: zero both axes other than `keep`.
    data[o + BOX_F64.HALF + (zeros === 1 ? (keep + 1) % 3 : (keep + 1 + z) % 3)] = 0;
  }
  return scale;
}

/**
 * `n` boxes whose sizes span many decades (half extents 1e-4 .. 1e4 by default, log-uniform),
 * randomly rotated, optionally flat or segments, each placed within a distance proportional to
 * its own size of one of `offsets` (so small boxes are not all buried in large ones). Boxes come
 * in twins (2k, 2k + 1) of the same scale whose centres mirror each other through their offset,
 * so the bounds of the centres are centred on it: an implementation that re-bases to the centre
 * of the bounds (this library's floating origin) keeps the small boxes near it at full precision.
 *
 * @example
 * const boxes = wideBoxes(400, mulberry32(3), { segments: 0.1, offsets: [[0, 0, 0], [6e5, -7e5, 3e5]] });
 */
export function wideBoxes(n: number, rnd: Rng, options: WideBoxOptions = {}): BoxArray {
  const offsets = options.offsets ?? [[0, 0, 0]];
  const spread = options.spread ?? 20;
  const data = new Float64Array(n * BOX_F64.STRIDE);
  let scale = 0;
  for (let i = 0; i < n; i++) {
    const o = i * BOX_F64.STRIDE;
    const twin = i % 2 === 1;
    scale = writeWideHalf(data, o, rnd, options, twin ? scale : undefined);
    const at = offsets[(i >> 1) % offsets.length]!;
    for (let k = 0; k < 3; k++) {
      data[o + k] = twin ? 2 * at[k]! - data[o - BOX_F64.STRIDE + k]! : at[k]! + uniform(rnd, -spread, spread) * scale;
    }
    writeRandomRotation(data, o, rnd);
  }
  return { count: n, data };
}

/**
 * `n` pairs (boxes 2k, 2k + 1) of randomly rotated boxes whose sizes span many decades (one
 * log-uniform scale per pair, each half extent within `aspect` of it), B at 0.25–0.8 times the sum
 * of their half-diagonals from A (about contact distance), at `offsets` in turn. Pairs come in
 * twins: the second's centres mirror the first's through their offset (its own half extents at
 * the same scale, its own rotations), so the bounds of the centres are centred on the offset
 * (see {@link wideBoxes}).
 *
 * @example
 * const boxes = widePairs(1000, mulberry32(4), { segments: 0.15, flat: 0.15 });
 */
export function widePairs(n: number, rnd: Rng, options: WideBoxOptions = {}): BoxArray {
  const offsets = options.offsets ?? [[0, 0, 0]];
  const data = new Float64Array(2 * n * BOX_F64.STRIDE);
  const S = BOX_F64.STRIDE;
  let scale = 0;
  for (let p = 0; p < n; p++) {
    const a = 2 * p * S;
    const b = a + S;
    const twin = p % 2 === 1;
    const at = offsets[(p >> 1) % offsets.length]!;
    scale = writeWideHalf(data, a, rnd, options, twin ? scale : undefined);
    writeWideHalf(data, b, rnd, options, scale);
    if (twin) {
      for (let k = 0; k < 3; k++) {
        data[a + k] = 2 * at[k]! - data[a - 2 * S + k]!;
        data[b + k] = 2 * at[k]! - data[b - 2 * S + k]!;
      }
    } else {
      const diag = (o: number): number => Math.hypot(data[o + BOX_F64.HALF]!, data[o + BOX_F64.HALF + 1]!, data[o + BOX_F64.HALF + 2]!);
      const dist = (diag(a) + diag(b)) * uniform(rnd, 0.25, 0.8);
      const [dx, dy, dz] = unitVector(rnd);
      for (let k = 0; k < 3; k++) {
        data[a + k] = at[k]! + uniform(rnd, -1, 1) * scale;
      }
      data[b] = data[a]! + dist * dx;
      data[b + 1] = data[a + 1]! + dist * dy;
      data[b + 2] = data[a + 2]! + dist * dz;
    }
    writeRandomRotation(data, a, rnd);
    writeRandomRotation(data, b, rnd);
  }
  return { count: 2 * n, data };
}

/** A uniformly random unit vector. */
function unitVector(rnd: Rng): Vec3 {
  const z = uniform(rnd, -1, 1);
  const a = 2 * Math.PI * rnd();
  const r = Math.sqrt(1 - z * z);
  return [r * Math.cos(a), r * Math.sin(a), z];
}

/** Options of {@link wideRays}. */
export interface WideRayOptions {
  /** Direction lengths log-uniform in [directionMin, directionMax] (default 1e-3 .. 1e3): the library normalises. */
  readonly directionMin?: number;
  readonly directionMax?: number;
  /** Fraction aimed at a random point of their box (default 0.8); the rest point anywhere. */
  readonly aimed?: number;
  /** Fraction with a finite maxDistance, 0.5–1.5 times the distance to that point (default 0.25). */
  readonly limited?: number;
}

/**
 * `n` rays, each starting near a random box at a distance proportional to its size (1.5–30
 * times its scale) and, for the aimed fraction, pointing at a random point of it; directions of
 * lengths spanning decades (not unit: users may pass any length). Returns rays as users write them.
 *
 * @example
 * const rnd = mulberry32(5);
 * const rays = wideRays(3000, wideBoxes(400, rnd), rnd); // rays[0].direction is not unit
 */
export function wideRays(n: number, boxes: BoxArray, rnd: Rng, options: WideRayOptions = {}): Ray[] {
  const d = boxes.data;
  const out: Ray[] = [];
  for (let r = 0; r < n; r++) {
    const o = Math.floor(rnd() * boxes.count) * BOX_F64.STRIDE;
    const h = [0, 1, 2].map((k) => d[o + BOX_F64.HALF + k]!);
    const local = h.map((hk) => uniform(rnd, -hk, hk));
    const target = [0, 1, 2].map((k) => d[o + k]! + local[0]! * d[o + BOX_F64.U + k]! + local[1]! * d[o + BOX_F64.V + k]! + local[2]! * d[o + BOX_F64.W + k]!);
    const dist = Math.max(...h) * uniform(rnd, 1.5, 30);
    const toward = unitVector(rnd);
    const origin: Vec3 = [target[0]! - dist * toward[0], target[1]! - dist * toward[1], target[2]! - dist * toward[2]];
    const unit = rnd() < (options.aimed ?? 0.8) ? toward : unitVector(rnd);
    const length = logUniform(rnd, options.directionMin ?? 1e-3, options.directionMax ?? 1e3);
    const direction: Vec3 = [unit[0] * length, unit[1] * length, unit[2] * length];
    out.push(rnd() < (options.limited ?? 0.25) ? { origin, direction, maxDistance: dist * uniform(rnd, 0.5, 1.5) } : { origin, direction });
  }
  return out;
}
