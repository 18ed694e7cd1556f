/**
 * Adversarial inputs, by name: the cases where a float32 kernel and a float64 reference are most
 * likely to part ways (grazing edges and corners, rays in a face plane, origins on the surface,
 * flat boxes, near-parallel edges, touching faces, containment, far coordinates). Every group is
 * seeded and canonical, so tests, the fuzzer and users checking their own GPU run the same data.
 */
import { BOX_F64, RAY_F64, type BoxArray, type RayArray, type Vec3 } from '../core/types.ts';
import { mulberry32, randomBoxes, writeQuaternionAxes, writeRandomRotation, type Rng } from './generate.ts';

/** A named batch of rays against boxes. */
export interface RayCaseGroup {
  readonly name: string;
  readonly boxes: BoxArray;
  readonly rays: RayArray;
  readonly solid: boolean;
  readonly boxMasks?: Uint32Array;
  readonly rayMasks?: Uint32Array;
  readonly exclude?: Int32Array;
}

/** A named batch of box pairs: pair k is (pairs[2k], pairs[2k + 1]) of `boxes`. */
export interface PairCaseGroup {
  readonly name: string;
  readonly boxes: BoxArray;
  readonly pairs: Uint32Array;
}

const U = BOX_F64.U;

/** World point of local coordinates (x, y, z) of box `b`. */
function toWorld(boxes: BoxArray, b: number, x: number, y: number, z: number): Vec3 {
  const o = b * BOX_F64.STRIDE;
  const d = boxes.data;
  return [
    d[o]! + x * d[o + U]! + y * d[o + U + 3]! + z * d[o + U + 6]!,
    d[o + 1]! + x * d[o + U + 1]! + y * d[o + U + 4]! + z * d[o + U + 7]!,
    d[o + 2]! + x * d[o + U + 2]! + y * d[o + U + 5]! + z * d[o + U + 8]!,
  ];
}

/** World direction of a local direction of box `b` (not normalised). */
function dirToWorld(boxes: BoxArray, b: number, x: number, y: number, z: number): Vec3 {
  const o = b * BOX_F64.STRIDE;
  const d = boxes.data;
  return [
    x * d[o + U]! + y * d[o + U + 3]! + z * d[o + U + 6]!,
    x * d[o + U + 1]! + y * d[o + U + 4]! + z * d[o + U + 7]!,
    x * d[o + U + 2]! + y * d[o + U + 5]! + z * d[o + U + 8]!,
  ];
}

class RayWriter {
  private readonly data: number[] = [];
  add(origin: Vec3, dir: Vec3, maxDistance = Infinity): void {
    const len = Math.hypot(dir[0], dir[1], dir[2]);
    this.data.push(origin[0], origin[1], origin[2], dir[0] / len, dir[1] / len, dir[2] / len, maxDistance);
  }
  done(): RayArray {
    return { count: this.data.length / RAY_F64.STRIDE, data: Float64Array.from(this.data) };
  }
}

const sign = (rnd: Rng): number => (rnd() < 0.5 ? -1 : 1);
const half = (boxes: BoxArray, b: number, k: number): number => boxes.data[b * BOX_F64.STRIDE + BOX_F64.HALF + k]!;

/** Unit vector perpendicular to `d`, in the plane of d and `hint`. */
function perpendicular(d: Vec3, hint: Vec3): Vec3 {
  const dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
  const k = (hint[0] * d[0] + hint[1] * d[1] + hint[2] * d[2]) / dd;
  const p: Vec3 = [hint[0] - k * d[0], hint[1] - k * d[1], hint[2] - k * d[2]];
  const len = Math.hypot(p[0], p[1], p[2]);
  return [p[0] / len, p[1] / len, p[2] / len];
}

/**
 * Rays aimed at an edge or corner of a box from outside, shifted across it by `offsets`
 * (world units, along the outward bisector): positive misses, negative hits, zero grazes.
 */
function grazing(boxes: BoxArray, rnd: Rng, perBox: number, offsets: readonly number[], corner: boolean): RayArray {
  const w = new RayWriter();
  for (let b = 0; b < boxes.count; b++) {
    for (let n = 0; n < perBox; n++) {
      const free = Math.floor(rnd() * 3);
      const s = [sign(rnd), sign(rnd), sign(rnd)];
      const local = [0, 1, 2].map((k) => (!corner && k === free ? (2 * rnd() - 1) * half(boxes, b, k) : s[k]! * half(boxes, b, k)));
      const target = toWorld(boxes, b, local[0]!, local[1]!, local[2]!);
      // Outward directions within the edge's (or corner's) exterior wedge.
      const e = [0, 1, 2].map((k) => (!corner && k === free ? 2 * rnd() - 1 : s[k]! * (0.05 + rnd())));
      const out = dirToWorld(boxes, b, e[0]!, e[1]!, e[2]!);
      const bis = dirToWorld(boxes, b, ...([0, 1, 2].map((k) => (!corner && k === free ? 0 : s[k]!)) as [number, number, number]));
      const dir: Vec3 = [-out[0], -out[1], -out[2]];
      const across = perpendicular(dir, bis);
      const dist = 2 + 8 * rnd();
      const len = Math.hypot(out[0], out[1], out[2]);
      for (const off of offsets) {
        w.add([
          target[0] + (dist * out[0]) / len + off * across[0],
          target[1] + (dist * out[1]) / len + off * across[1],
          target[2] + (dist * out[2]) / len + off * across[2],
        ], dir);
      }
    }
  }
  return w.done();
}

/** Rays travelling in (or just beside) the plane of a face: local d_k = 0 exactly. */
function facePlane(boxes: BoxArray, rnd: Rng, perBox: number, offsets: readonly number[]): RayArray {
  const w = new RayWriter();
  for (let b = 0; b < boxes.count; b++) {
    for (let n = 0; n < perBox; n++) {
      const k = Math.floor(rnd() * 3);
      const i = (k + 1) % 3;
      const j = (k + 2) % 3;
      const s = sign(rnd);
      for (const off of offsets) {
        const local = [0, 0, 0];
        local[k] = s * (half(boxes, b, k) + off);
        local[i] = -s * (half(boxes, b, i) + 1 + 2 * rnd());
        local[j] = (2 * rnd() - 1) * half(boxes, b, j);
        const d = [0, 0, 0];
        d[i] = s;
        d[j] = (2 * rnd() - 1) * 0.5;
        w.add(toWorld(boxes, b, local[0]!, local[1]!, local[2]!), dirToWorld(boxes, b, d[0]!, d[1]!, d[2]!));
      }
    }
  }
  return w.done();
}

function randomDir(rnd: Rng): Vec3 {
  const z = 2 * rnd() - 1;
  const a = 2 * Math.PI * rnd();
  const r = Math.sqrt(1 - z * z);
  return [r * Math.cos(a), r * Math.sin(a), z];
}

/** Origins inside boxes (uniform within 0.99 h), or exactly on a face when `onSurface`. */
function originsIn(boxes: BoxArray, rnd: Rng, perBox: number, onSurface: boolean): RayArray {
  const w = new RayWriter();
  for (let b = 0; b < boxes.count; b++) {
    for (let n = 0; n < perBox; n++) {
      const local = [0, 1, 2].map((k) => (2 * rnd() - 1) * 0.99 * half(boxes, b, k));
      if (onSurface) {
        const k = Math.floor(rnd() * 3);
        local[k] = sign(rnd) * half(boxes, b, k);
      }
      w.add(toWorld(boxes, b, local[0]!, local[1]!, local[2]!), randomDir(rnd));
    }
  }
  return w.done();
}

/** Rays aimed at random points of random boxes from a distance. */
function aimed(boxes: BoxArray, rnd: Rng, n: number, maxDistance = Infinity): RayArray {
  const w = new RayWriter();
  for (let r = 0; r < n; r++) {
    const b = Math.floor(rnd() * boxes.count);
    const local = [0, 1, 2].map((k) => (2 * rnd() - 1) * half(boxes, b, k));
    const target = toWorld(boxes, b, local[0]!, local[1]!, local[2]!);
    const d = randomDir(rnd);
    const dist = 3 + 20 * rnd();
    w.add([target[0] - dist * d[0], target[1] - dist * d[1], target[2] - dist * d[2]], d, maxDistance);
  }
  return w.done();
}

function axisAlignedBoxes(n: number, rnd: Rng, extent: number): BoxArray {
  const boxes = randomBoxes(n, rnd, { extent, axisAligned: 1 });
  return boxes;
}

/**
 * The named adversarial ray groups (about 1,000–3,000 rays each).
 *
 * @example
 * for (const g of adversarialRayGroups(7)) console.log(g.name, g.rays.count);
 */
export function adversarialRayGroups(seed: number): RayCaseGroup[] {
  const rnd = mulberry32(seed);
  const boxes = randomBoxes(48, rnd, { extent: 8, halfMin: 0.2, halfMax: 2 });
  const sparse = randomBoxes(16, rnd, { extent: 30, halfMin: 0.2, halfMax: 2 });
  const flat = randomBoxes(48, rnd, { extent: 8, halfMin: 0.2, halfMax: 2 });
  for (let b = 0; b < flat.count; b++) {
    flat.data[b * BOX_F64.STRIDE + BOX_F64.HALF + (b % 3)] = 0;
  }
  const aligned = axisAlignedBoxes(48, rnd, 8);
  const alignedRays = new RayWriter();
  for (let r = 0; r < 1500; r++) {
    const k = Math.floor(rnd() * 3);
    const d: [number, number, number] = [0, 0, 0];
    d[k] = sign(rnd);
    const o: Vec3 = [16 * rnd() - 8, 16 * rnd() - 8, 16 * rnd() - 8];
    alignedRays.add(o, d);
  }
  const far = randomBoxes(48, rnd, { extent: 8, halfMin: 0.2, halfMax: 2, offset: [1e4, -2e4, 5e3] });
  const grazeOffsets = [-1e-3, 1e-3, -1e-5, 1e-5, 0];
  const groups: RayCaseGroup[] = [
    { name: 'grazing-edges', boxes: sparse, rays: grazing(sparse, rnd, 40, grazeOffsets, false), solid: true },
    { name: 'grazing-corners', boxes: sparse, rays: grazing(sparse, rnd, 40, grazeOffsets, true), solid: true },
    { name: 'face-plane', boxes: sparse, rays: facePlane(sparse, rnd, 40, [-1e-3, 1e-3, 0]), solid: true },
    { name: 'origin-inside-solid', boxes, rays: originsIn(boxes, rnd, 30, false), solid: true },
    { name: 'origin-inside-exit', boxes, rays: originsIn(boxes, rnd, 30, false), solid: false },
    { name: 'origin-on-surface', boxes, rays: originsIn(boxes, rnd, 30, true), solid: true },
    { name: 'origin-on-surface-exit', boxes, rays: originsIn(boxes, rnd, 30, true), solid: false },
    { name: 'flat-boxes', boxes: flat, rays: aimed(flat, rnd, 2000), solid: true },
    { name: 'flat-boxes-grazing', boxes: flat, rays: grazing(flat, rnd, 10, grazeOffsets, false), solid: true },
    { name: 'axis-aligned-parallel', boxes: aligned, rays: alignedRays.done(), solid: true },
    { name: 'far-from-origin-1e4', boxes: far, rays: aimed(far, rnd, 2000), solid: true },
  ];
  // Max distance just short of and just past the reference hit: built from aimed rays whose
  // closest t the caller computes (see withMaxDistanceAround), here as a fixed-distance sweep.
  const sweep = new RayWriter();
  const base = aimed(boxes, rnd, 1000);
  for (let r = 0; r < base.count; r++) {
    const o = r * RAY_F64.STRIDE;
    const origin: Vec3 = [base.data[o]!, base.data[o + 1]!, base.data[o + 2]!];
    const dir: Vec3 = [base.data[o + 3]!, base.data[o + 4]!, base.data[o + 5]!];
    sweep.add(origin, dir, 1 + 25 * rnd());
  }
  groups.push({ name: 'max-distance', boxes, rays: sweep.done(), solid: true });
  // Masks and excluded boxes.
  const masked = aimed(boxes, rnd, 2000);
  const boxMasks = Uint32Array.from({ length: boxes.count }, () => 1 << Math.floor(rnd() * 3));
  const rayMasks = Uint32Array.from({ length: masked.count }, () => (1 << Math.floor(rnd() * 3)) | (rnd() < 0.3 ? 8 : 0));
  const exclude = Int32Array.from({ length: masked.count }, () => (rnd() < 0.5 ? Math.floor(rnd() * boxes.count) : -1));
  groups.push({ name: 'masks-and-exclude', boxes, rays: masked, solid: true, boxMasks, rayMasks, exclude });
  return groups;
}

/**
 * Rays `r` with maxDistance set to `t[r] × factor` (t from a reference closest hit), so a test can
 * put the limit just short of (factor < 1) and just past (factor > 1) each hit.
 */
export function withMaxDistance(rays: RayArray, t: ArrayLike<number>, factor: number): RayArray {
  const data = rays.data.slice();
  for (let r = 0; r < rays.count; r++) {
    const tr = t[r]!;
    data[r * RAY_F64.STRIDE + RAY_F64.MAX] = Number.isFinite(tr) ? tr * factor : Infinity;
  }
  return { count: rays.count, data };
}

class BoxWriter {
  readonly data: number[] = [];
  add(center: Vec3, halfExtents: Vec3, axes: Float64Array): number {
    this.data.push(...center, ...halfExtents, ...axes);
    return this.data.length / BOX_F64.STRIDE - 1;
  }
  done(): BoxArray {
    return { count: this.data.length / BOX_F64.STRIDE, data: Float64Array.from(this.data) };
  }
}

function rotationAxes(rnd: Rng): Float64Array {
  const tmp = new Float64Array(BOX_F64.STRIDE);
  writeRandomRotation(tmp, 0, rnd);
  return tmp.slice(U, U + 9);
}

/** Axes rotated by angle θ about a random unit axis (Rodrigues). */
function tilt(axes: Float64Array, theta: number, rnd: Rng): Float64Array {
  const [kx, ky, kz] = randomDir(rnd);
  const c = Math.cos(theta), s = Math.sin(theta), t = 1 - c;
  const out = new Float64Array(9);
  for (let a = 0; a < 3; a++) {
    const x = axes[3 * a]!, y = axes[3 * a + 1]!, z = axes[3 * a + 2]!;
    const dot = kx * x + ky * y + kz * z;
    out[3 * a] = x * c + (ky * z - kz * y) * s + kx * dot * t;
    out[3 * a + 1] = y * c + (kz * x - kx * z) * s + ky * dot * t;
    out[3 * a + 2] = z * c + (kx * y - ky * x) * s + kz * dot * t;
  }
  return out;
}

function rndHalf(rnd: Rng): [number, number, number] {
  return [0.2 + 1.8 * rnd(), 0.2 + 1.8 * rnd(), 0.2 + 1.8 * rnd()];
}

/**
 * The named adversarial SAT groups (pairs (2k, 2k + 1)).
 *
 * @example
 * for (const g of adversarialPairGroups(7)) console.log(g.name, g.pairs.length / 2);
 */
export function adversarialPairGroups(seed: number): PairCaseGroup[] {
  const rnd = mulberry32(seed);
  const groups: PairCaseGroup[] = [];
  const finish = (name: string, w: BoxWriter): void => {
    const boxes = w.done();
    groups.push({ name, boxes, pairs: Uint32Array.from({ length: boxes.count }, (_, i) => i) });
  };

  // Near-parallel edges: B is A tilted by a tiny angle, placed at about contact distance.
  let w = new BoxWriter();
  for (let n = 0; n < 1500; n++) {
    const axes = rotationAxes(rnd);
    const theta = [1e-6, 1e-5, 1e-4, 1e-3, 2e-3, 1e-2][n % 6]!;
    const ha = rndHalf(rnd), hb = rndHalf(rnd);
    const d = randomDir(rnd);
    const dist = (Math.hypot(...ha) + Math.hypot(...hb)) * (0.55 + 0.4 * rnd());
    w.add([0, 0, 0], ha, axes);
    w.add([dist * d[0], dist * d[1], dist * d[2]], hb, tilt(axes, theta, rnd));
  }
  finish('near-parallel-edges', w);

  // Touching faces: same orientation, B against A's face k at gap δ.
  w = new BoxWriter();
  for (let n = 0; n < 1500; n++) {
    const axes = rotationAxes(rnd);
    const ha = rndHalf(rnd), hb = rndHalf(rnd);
    const k = n % 3;
    const s = sign(rnd);
    const delta = [0, 1e-4, -1e-4, 1e-2, -1e-2][Math.floor(n / 3) % 5]!;
    const along = s * (ha[k]! + hb[k]! + delta);
    const lateral = [0, 1, 2].map((i) => (i === k ? along : (2 * rnd() - 1) * ha[i]!));
    const c = [0, 1, 2].map((a) => lateral[0]! * axes[a]! + lateral[1]! * axes[3 + a]! + lateral[2]! * axes[6 + a]!) as unknown as Vec3;
    w.add([0, 0, 0], ha, axes);
    w.add(c, hb, axes);
  }
  finish('touching-faces', w);

  // Containment: a small random box well inside a big one, in both orders.
  w = new BoxWriter();
  for (let n = 0; n < 1000; n++) {
    const big: Vec3 = [3 + rnd(), 3 + rnd(), 3 + rnd()];
    const small: Vec3 = [0.1 + 0.3 * rnd(), 0.1 + 0.3 * rnd(), 0.1 + 0.3 * rnd()];
    const c: Vec3 = [(2 * rnd() - 1) * 2, (2 * rnd() - 1) * 2, (2 * rnd() - 1) * 2];
    if (n % 2) {
      w.add([0, 0, 0], big, rotationAxes(rnd));
      w.add(c, small, rotationAxes(rnd));
    } else {
      w.add(c, small, rotationAxes(rnd));
      w.add([0, 0, 0], big, rotationAxes(rnd));
    }
  }
  finish('containment', w);

  // Flat boxes (one zero half extent) against random boxes, near contact.
  w = new BoxWriter();
  for (let n = 0; n < 1000; n++) {
    const ha = rndHalf(rnd), hb = rndHalf(rnd);
    ha[n % 3] = 0;
    const d = randomDir(rnd);
    const dist = (Math.hypot(...ha) + Math.hypot(...hb)) * (0.4 + 0.6 * rnd());
    w.add([0, 0, 0], ha, rotationAxes(rnd));
    w.add([dist * d[0], dist * d[1], dist * d[2]], hb, rotationAxes(rnd));
  }
  finish('flat-boxes', w);

  // Identical boxes, and identical orientation with a shift (every face axis ties).
  w = new BoxWriter();
  for (let n = 0; n < 500; n++) {
    const axes = rotationAxes(rnd);
    const h = rndHalf(rnd);
    const c: Vec3 = [2 * rnd() - 1, 2 * rnd() - 1, 2 * rnd() - 1];
    w.add(c, h, axes);
    w.add(n % 2 ? c : [c[0] + 3 * rnd(), c[1] + 3 * rnd(), c[2] + 3 * rnd()], h, axes);
  }
  finish('identical-orientation', w);

  // Far from the world origin (1e4): only a floating origin keeps these exact in float32.
  w = new BoxWriter();
  const offset: Vec3 = [1.2e4, -3.4e4, 5.6e3];
  for (let n = 0; n < 1000; n++) {
    const ha = rndHalf(rnd), hb = rndHalf(rnd);
    const d = randomDir(rnd);
    const dist = (Math.hypot(...ha) + Math.hypot(...hb)) * (0.4 + 0.6 * rnd());
    const c: Vec3 = [offset[0] + 50 * rnd(), offset[1] + 50 * rnd(), offset[2] + 50 * rnd()];
    w.add(c, ha, rotationAxes(rnd));
    w.add([c[0] + dist * d[0], c[1] + dist * d[1], c[2] + dist * d[2]], hb, rotationAxes(rnd));
  }
  finish('far-from-origin-1e4', w);

  // Axis-aligned identity boxes (AABB-like, exact zeros in the cross products).
  w = new BoxWriter();
  const identity = new Float64Array(BOX_F64.STRIDE);
  writeQuaternionAxes(identity, 0, 0, 0, 0, 1);
  const id9 = identity.slice(U, U + 9);
  for (let n = 0; n < 1000; n++) {
    const ha = rndHalf(rnd), hb = rndHalf(rnd);
    const c: Vec3 = [(2 * rnd() - 1) * 4, (2 * rnd() - 1) * 4, (2 * rnd() - 1) * 4];
    w.add([0, 0, 0], ha, id9);
    w.add(c, hb, id9);
  }
  finish('axis-aligned', w);
  return groups;
}
