/**
 * Adversarial inputs, by name: the cases where a float32 kernel and a float64 reference are most
 * likely to part ways (grazing edges and corners, rays in a face plane, origins on the surface,
 * flat boxes, near-parallel edges, touching faces, containment, far coordinates). Every group is
 * seeded and canonical, so tests, the fuzzer and users checking their own GPU run the same data.
 */
import { BOX_F64, RAY_F64, type BoxArray, type BoxAxesInput, type Ray, type RayArray, type Vec3 } from '../core/types.ts';
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

// -------------------------------------------------------------------------------------------------
// Exact groups: every input is a small integer or dyadic value (exactly representable in float16,
// so in float32 and float64), every axis is a quarter-turn rotation (components 0 and ±1) and every
// direction lies along a box axis (its other components exactly zero). Each step of the slab test
// and of the SAT is then exact in float32, so the expected answers are exact by construction: an
// implementation agrees or is wrong, whatever its precision.

/** A named group of rays against boxes as a scene file holds them (direction lengths as written). */
export interface ExactRayGroup {
  readonly name: string;
  readonly boxes: BoxAxesInput[];
  readonly rays: Ray[];
}

/** A named group of boxes with listed pairs (i, j), and/or every pair of the set (`allPairs`). */
export interface ExactPairGroup {
  readonly name: string;
  readonly boxes: BoxAxesInput[];
  readonly pairs?: [number, number][];
  readonly allPairs?: true;
}

type Axes = readonly [Vec3, Vec3, Vec3];

/** s times world axis k; `+ 0` keeps −0 out of the files. */
const axisVec = (k: number, s: number): Vec3 => [(k === 0 ? s : 0) + 0, (k === 1 ? s : 0) + 0, (k === 2 ? s : 0) + 0];

/**
 * The 24 rotations of the cube as axes [u, v, w] whose components are 0 and ±1, right-handed
 * (w = u × v), the identity first.
 *
 * @example
 * quarterTurns()[0] // [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
 */
export function quarterTurns(): Axes[] {
  const out: Axes[] = [];
  for (let a = 0; a < 3; a++) {
    for (const sa of [1, -1]) {
      for (let b = 0; b < 3; b++) {
        for (const sb of [1, -1]) {
          if (b !== a) {
            const u = axisVec(a, sa), v = axisVec(b, sb);
            out.push([u, v, [u[1] * v[2] - u[2] * v[1] + 0, u[2] * v[0] - u[0] * v[2] + 0, u[0] * v[1] - u[1] * v[0] + 0]]);
          }
        }
      }
    }
  }
  return out;
}

const TURNS = quarterTurns();
const turn = (r: number): Axes => TURNS[r % 24]!;
const ID = turn(0);

/** The box's half extent along each world axis (exact: one non-zero term per sum). */
function worldHalf(h: Vec3, axes: Axes): Vec3 {
  const e = [0, 1, 2].map((x) => h[0] * Math.abs(axes[0][x]!) + h[1] * Math.abs(axes[1][x]!) + h[2] * Math.abs(axes[2][x]!));
  return [e[0]!, e[1]!, e[2]!];
}

/** Local half extents that give world half extents `e` under `axes`. */
function localHalf(e: Vec3, axes: Axes): Vec3 {
  const h = axes.map((a) => Math.abs(a[0]) * e[0] + Math.abs(a[1]) * e[1] + Math.abs(a[2]) * e[2]);
  return [h[0]!, h[1]!, h[2]!];
}

const exactBox = (center: Vec3, halfExtents: Vec3, axes: Axes): BoxAxesInput => ({ center, halfExtents, axes });

/** A box with world half extents `e` under quarter turn r (its local half extents permuted to match). */
const turnedBox = (center: Vec3, e: Vec3, r: number): BoxAxesInput => exactBox(center, localHalf(e, turn(r)), turn(r));

const add3 = (a: Vec3, b: Vec3): Vec3 => [a[0] + b[0] + 0, a[1] + b[1] + 0, a[2] + b[2] + 0];

/** World point of local coordinates `p` of `box` (exact for quarter-turn axes). */
function pointOf(box: BoxAxesInput, p: readonly number[]): Vec3 {
  const c = box.center, a = box.axes;
  const x = [0, 1, 2].map((k) => c[k]! + p[0]! * a[0][k]! + p[1]! * a[1][k]! + p[2]! * a[2][k]! + 0);
  return [x[0]!, x[1]!, x[2]!];
}

/** The direction lengths the exact rays cycle through (the library normalises: t stays a world distance). */
const LENGTHS = [1, 2, 0.5, 4];

/** Exact rays, cycling the direction length. */
class ExactRays {
  readonly rays: Ray[] = [];
  /** From world point `origin` along s × `axis`. */
  world(origin: Vec3, axis: Vec3, s: number, maxDistance?: number): void {
    const m = s * LENGTHS[this.rays.length % LENGTHS.length]!;
    const direction: Vec3 = [m * axis[0] + 0, m * axis[1] + 0, m * axis[2] + 0];
    this.rays.push(maxDistance === undefined ? { origin, direction } : { origin, direction, maxDistance });
  }
  /** From local point `p` of `box` along s × its local axis k. */
  local(box: BoxAxesInput, p: readonly number[], k: number, s: number, maxDistance?: number): void {
    this.world(pointOf(box, p), box.axes[k]!, s, maxDistance);
  }
}

/** Lateral positions across a face of half extent h: an edge, inside, the far edge, 0.25 outside. */
const across = (h: number): number[] => [-h, 0, h / 2, h, h + 0.25];

/** The other two axes of k, in cyclic order. */
const others = (k: number): [number, number] => [(k + 1) % 3, (k + 2) % 3];

/** A local point with coordinate k = a, i = b, j = c. */
function localPoint(k: number, a: number, i: number, b: number, j: number, c: number): number[] {
  const p = [0, 0, 0];
  p[k] = a;
  p[i] = b;
  p[j] = c;
  return p;
}

/**
 * Centres far enough apart (by more than the boxes' sizes in at least two coordinates) that a ray
 * along an axis near one box never reaches another.
 */
const SLOTS: Vec3[] = [[0, 0, 0], [16, -16, 8], [-16, 16, -16], [16, 16, -8]];

/** Cluster c's offset: clusters differ in x and y by 16, so an axis ray of one never reaches another. */
const cluster = (c: number): Vec3 => [16 * c, -16 * c, 0];

const shifted = (b: BoxAxesInput, o: Vec3): BoxAxesInput => exactBox(add3(b.center, o), b.halfExtents, b.axes);

/** Rays along a box axis at lateral positions on the face planes, along edges, inside and outside, both ways. */
function exactFacePlanes(): ExactRayGroup {
  const boxes = [exactBox(SLOTS[0]!, [1, 1, 1], ID), exactBox(SLOTS[1]!, [2, 0.5, 1.25], turn(9))];
  const w = new ExactRays();
  for (const b of boxes) {
    const h = b.halfExtents;
    for (let k = 0; k < 3; k++) {
      const [i, j] = others(k);
      for (const s of [1, -1]) {
        for (const a of across(h[i]!)) {
          for (const c of across(h[j]!)) {
            w.local(b, localPoint(k, -s * (h[k]! + [2, 0.5, 3.75][w.rays.length % 3]!), i, a, j, c), k, s);
          }
        }
      }
    }
  }
  return { name: 'rays-face-planes', boxes, rays: w.rays };
}

/** Origins exactly on faces, edges and corners, and on two slab planes beside the box; every axis direction. */
function exactOriginsOnSlabPlanes(): ExactRayGroup {
  const boxes = [exactBox(SLOTS[0]!, [1, 1, 1], ID), exactBox(SLOTS[1]!, [2, 0.5, 1.25], turn(14))];
  const w = new ExactRays();
  const everyWay = (b: BoxAxesInput, p: number[]): void => {
    for (let k = 0; k < 3; k++) {
      w.local(b, p, k, 1);
      w.local(b, p, k, -1);
    }
  };
  for (const [n, b] of boxes.entries()) {
    const h = b.halfExtents;
    // The 26 points with coordinates in {−h, 0, h}, not all 0: face centres, edge midpoints, corners.
    for (const x of [-1, 0, 1]) {
      for (const y of [-1, 0, 1]) {
        for (const z of [-1, 0, 1]) {
          if (x !== 0 || y !== 0 || z !== 0) {
            everyWay(b, [x * h[0], y * h[1], z * h[2]]);
          }
        }
      }
    }
    if (n === 0) {
      // On the planes of two slabs' faces, 0.5 outside the third slab.
      for (let k = 0; k < 3; k++) {
        const [i, j] = others(k);
        for (const s of [1, -1]) {
          for (const [si, sj] of [[1, 1], [1, -1], [-1, 1], [-1, -1]] as const) {
            everyWay(b, localPoint(k, s * (h[k]! + 0.5), i, si * h[i]!, j, sj * h[j]!));
          }
        }
      }
    }
  }
  return { name: 'rays-origin-on-slab-planes', boxes, rays: w.rays };
}

/** The six orders of three items. */
const ORDERS = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]] as const;

/** How far p is inside box b (a quarter-turned box is a world AABB), in the max norm: > 0 inside, < 0 outside. */
function insideBy(p: Vec3, b: BoxAxesInput): number {
  const e = worldHalf(b.halfExtents, b.axes);
  return Math.min(...[0, 1, 2].map((k) => e[k]! - Math.abs(p[k]! - b.center[k]!)));
}

/** Rays whose origin is inside two or three boxes by at least 0.25 (ties at t = 0), in every listing order and with duplicates. */
function exactTiesInside(): ExactRayGroup {
  const a = exactBox([0, 0, 0], [1, 1, 1], ID);
  const b = turnedBox([1, 0, 0], [1, 1.5, 1], 5);
  const c = exactBox([0.5, 0.5, 0.5], [1, 1, 1], turn(16));
  const three = [a, b, c];
  const lists: BoxAxesInput[][] = [...ORDERS.map((o) => o.map((k) => three[k]!)), [a, a, a], [b, a, b, a]];
  const points: Vec3[] = [];
  for (const x of [-0.5, 0, 0.25, 0.5, 0.75, 1, 1.5]) {
    for (const y of [-0.5, 0, 0.5]) {
      for (const z of [-0.5, 0, 0.5]) {
        points.push([x, y, z]);
      }
    }
  }
  const boxes: BoxAxesInput[] = [];
  const w = new ExactRays();
  lists.forEach((list, n) => {
    const o = cluster(n);
    boxes.push(...list.map((x) => shifted(x, o)));
    for (const p of points) {
      const depth = list.map((x) => insideBy(p, x));
      // Inside at least two boxes, and at least 0.25 from every box's surface.
      if (depth.filter((d) => d >= 0.25).length >= 2 && depth.every((d) => Math.abs(d) >= 0.25)) {
        for (let m = 0; m < 2; m++) {
          const dir = (w.rays.length + m) % 6;
          w.world(add3(p, o), axisVec(dir >> 1, 1), dir & 1 ? -1 : 1);
        }
      }
    }
  });
  return { name: 'rays-ties-inside', boxes, rays: w.rays };
}

/** Where a ray from p along s × world axis k enters box b (a world AABB), or Infinity if it misses it or starts inside. */
function entryT(p: Vec3, k: number, s: number, b: BoxAxesInput): number {
  const e = worldHalf(b.halfExtents, b.axes);
  const [i, j] = others(k);
  const within = (x: number): boolean => Math.abs(p[x]! - b.center[x]!) <= e[x]!;
  const t = s * (b.center[k]! - s * e[k]! - p[k]!);
  return within(i) && within(j) && t > 0 ? t : Infinity;
}

/**
 * Ties at t > 0: the same box listed two or three times, and different boxes sharing the face
 * plane a ray enters through (two or three of them), in several listing orders. Only the rays
 * that tie are kept.
 */
function exactTiesAhead(): ExactRayGroup {
  const a = exactBox([0, 0, 0], [1, 1, 1], ID);
  const x = exactBox([0, 3, 3], [0.5, 0.5, 0.5], turn(7)); // beside every ray: only shifts indices
  const y = exactBox([3, 0, -3], [0.5, 0.25, 0.5], turn(12));
  const d = turnedBox([0, 1, 0], [1, 2, 0.5], 3); // shares A's x = ±1 and y = −1 planes
  const e = turnedBox([-0.5, 0, 0], [0.5, 0.5, 0.5], 21); // shares A's x = −1 plane
  const lists = [[a, x, a, a], [x, a, y, a], [a, d], [d, a], [e, a], [a, e], [d, e, a]];
  const boxes: BoxAxesInput[] = [];
  const w = new ExactRays();
  lists.forEach((list, n) => {
    const o = cluster(n + 1);
    boxes.push(...list.map((b) => shifted(b, o)));
    for (let k = 0; k < 3; k++) {
      const [i, j] = others(k);
      for (const s of [1, -1]) {
        for (const li of [-0.25, 0, 0.25]) {
          for (const lj of [-0.25, 0, 0.25]) {
            const q = localPoint(k, -s * 4, i, li, j, lj);
            const p: Vec3 = [q[0]!, q[1]!, q[2]!];
            const t = list.map((b) => entryT(p, k, s, b));
            const first = Math.min(...t);
            if (first < Infinity && t.filter((x) => x === first).length >= 2) {
              w.world(add3(p, o), axisVec(k, 1), s);
            }
          }
        }
      }
    }
  });
  return { name: 'rays-ties-ahead', boxes, rays: w.rays };
}

/** Flat boxes (one zero half extent): hit from both sides, rays in their plane and just off it, origins in it. */
function exactFlatBoxes(): ExactRayGroup {
  const boxes = [exactBox(SLOTS[0]!, [0, 1, 0.75], ID), exactBox(SLOTS[1]!, [1.5, 0, 0.5], turn(5)), exactBox(SLOTS[2]!, [0.5, 1.25, 0], turn(19))];
  const w = new ExactRays();
  for (const b of boxes) {
    const h = b.halfExtents;
    const k = h.indexOf(0);
    const [i, j] = others(k);
    for (const s of [1, -1]) {
      // Through the plane, from either side: on the rim, inside, 0.25 beside.
      for (const a of across(h[i]!)) {
        for (const c of across(h[j]!)) {
          w.local(b, localPoint(k, -s * 2, i, a, j, c), k, s);
        }
      }
      // In the plane, towards the rim, and parallel to it 0.25 off.
      for (const c of across(h[j]!)) {
        w.local(b, localPoint(k, 0, i, -s * (h[i]! + 1), j, c), i, s);
      }
      for (const a of across(h[i]!)) {
        w.local(b, localPoint(k, 0, j, -s * (h[j]! + 1), i, a), j, s);
      }
      for (const off of [0.25, -0.25]) {
        w.local(b, localPoint(k, off, i, -s * (h[i]! + 1), j, 0), i, s);
        w.local(b, localPoint(k, off, j, -s * (h[j]! + 1), i, 0), j, s);
      }
      // Origins in the plane: at the centre and at a corner, through it and along it.
      for (const p of [[0, 0], [h[i]!, h[j]!]] as const) {
        w.local(b, localPoint(k, 0, i, p[0], j, p[1]), k, s);
        w.local(b, localPoint(k, 0, i, p[0], j, p[1]), i, s);
      }
    }
  }
  return { name: 'rays-flat-boxes', boxes, rays: w.rays };
}

/** Segments (two zero half extents): rays along their line, crossing them exactly, missing by 0.25, starting on them. */
function exactSegments(): ExactRayGroup {
  const boxes = [exactBox(SLOTS[0]!, [1.5, 0, 0], ID), exactBox(SLOTS[1]!, [0, 1, 0], turn(7)), exactBox(SLOTS[2]!, [0, 0, 0.75], turn(20))];
  const w = new ExactRays();
  for (const b of boxes) {
    const h = b.halfExtents;
    const k = [0, 1, 2].find((x) => h[x]! > 0)!;
    const [i, j] = others(k);
    const hk = h[k]!;
    for (const s of [1, -1]) {
      // Along the line into an end point, and beside it 0.25 off.
      w.local(b, localPoint(k, -s * (hk + 2), i, 0, j, 0), k, s);
      w.local(b, localPoint(k, -s * (hk + 2), i, 0.25, j, 0), k, s);
      w.local(b, localPoint(k, -s * (hk + 2), i, 0, j, -0.25), k, s);
      // Across it: at the ends, inside, 0.25 past an end; through its line or 0.25 beside it.
      for (const at of [-hk, -hk / 2, 0, hk / 2, hk, hk + 0.25]) {
        for (const off of [0, 0.25]) {
          w.local(b, localPoint(k, at, i, -s * 2, j, off), i, s);
          w.local(b, localPoint(k, at, j, -s * 2, i, off), j, s);
        }
      }
    }
    // Origins on it: an end, the middle, the other end; every direction.
    for (const at of [-hk, 0, hk]) {
      for (let m = 0; m < 3; m++) {
        w.local(b, localPoint(k, at, i, 0, j, 0), m, 1);
        w.local(b, localPoint(k, at, i, 0, j, 0), m, -1);
      }
    }
  }
  return { name: 'rays-segments', boxes, rays: w.rays };
}

/** maxDistance exactly at the hit, 0.25 and 0.5 short, 0.5 past; and 0 for origins inside or on an entered face. */
function exactMaxDistance(): ExactRayGroup {
  const boxes = [exactBox(SLOTS[0]!, [1, 1, 1], ID), exactBox(SLOTS[1]!, [2, 0.5, 1.25], turn(11))];
  const w = new ExactRays();
  for (const b of boxes) {
    const h = b.halfExtents;
    for (let k = 0; k < 3; k++) {
      const [i, j] = others(k);
      for (const s of [1, -1]) {
        for (const [li, lj] of [[0, 0], [h[i]! / 2, 0], [h[i]!, h[j]!]] as const) {
          const t = [2, 3, 0.5][w.rays.length % 3]!;
          for (const max of [t, t - 0.5, t + 0.5, t - 0.25]) {
            w.local(b, localPoint(k, -s * (h[k]! + t), i, li, j, lj), k, s, max);
          }
        }
        w.local(b, [0, 0, 0], k, s, 0); // inside: t = 0
        w.local(b, localPoint(k, -s * h[k]!, i, 0, j, 0), k, s, 0); // on the face it enters: t = 0
      }
    }
  }
  return { name: 'rays-max-distance', boxes, rays: w.rays };
}

/** The 24 quarter turns of a box with unequal half extents: rays along each world axis at its centre, along its edges, 0.25 beside them. */
function exactQuarterTurnRays(): ExactRayGroup {
  const boxes: BoxAxesInput[] = [];
  const w = new ExactRays();
  for (let r = 0; r < 24; r++) {
    const b = exactBox([8 * r, -8 * r, 0.5], [1.5, 0.75, 0.25], turn(r));
    boxes.push(b);
    const e = worldHalf(b.halfExtents, b.axes);
    for (let k = 0; k < 3; k++) {
      const [i, j] = others(k);
      for (const s of [1, -1]) {
        const variant = (r + k + (s > 0 ? 0 : 1)) % 3;
        const second = [[e[i]!, 0], [e[i]!, -e[j]!], [e[i]! + 0.25, 0]][variant]!;
        for (const [li, lj] of [[0, 0], second]) {
          const p = localPoint(k, -s * (e[k]! + 2), i, li!, j, lj!);
          w.world(add3(b.center, [p[0]!, p[1]!, p[2]!]), axisVec(k, 1), s);
        }
      }
    }
  }
  return { name: 'rays-quarter-turns', boxes, rays: w.rays };
}

/**
 * The exact ray groups (about 100–500 rays each), the same on every call: rays in face planes
 * and along edges, origins on slab planes, ties at t = 0 and t > 0, flat boxes, segments,
 * maxDistance at the hit, quarter-turned boxes.
 *
 * @example
 * for (const g of exactRayGroups()) console.log(g.name, g.rays.length);
 */
export function exactRayGroups(): ExactRayGroup[] {
  return [exactFacePlanes(), exactOriginsOnSlabPlanes(), exactTiesInside(), exactTiesAhead(), exactFlatBoxes(), exactSegments(), exactMaxDistance(), exactQuarterTurnRays()];
}

/** Pairs (2k, 2k + 1) of boxes added two at a time, the order of each pair alternating. */
class ExactPairs {
  readonly boxes: BoxAxesInput[] = [];
  readonly pairs: [number, number][] = [];
  add(a: BoxAxesInput, b: BoxAxesInput): void {
    const n = this.boxes.length;
    this.boxes.push(...(this.pairs.length % 2 ? [b, a] : [a, b]));
    this.pairs.push([n, n + 1]);
  }
}

/**
 * B beside A along world axis a (side s): their faces δ apart (−0.25 overlapping, 0 touching, 0.5
 * apart), B shifted `lateral` along the next axis.
 */
function besides(a: BoxAxesInput, bHalf: Vec3, bTurn: number, axis: number, s: number, delta: number, lateral: number): BoxAxesInput {
  const ea = worldHalf(a.halfExtents, a.axes);
  const eb = worldHalf(bHalf, turn(bTurn));
  const t = [0, 0, 0];
  t[axis] = s * (ea[axis]! + eb[axis]! + delta);
  t[(axis + 1) % 3] = lateral;
  return exactBox(add3(a.center, [t[0]!, t[1]!, t[2]!]), bHalf, turn(bTurn));
}

/** Faces in contact (gap 0), 0.5 apart, 0.25 overlapping; with edges in contact or 0.5 apart beside. */
function exactTouchingPairs(): ExactPairGroup {
  const shapes: [Vec3, number, Vec3, number][] = [
    [[1, 1, 1], 0, [1, 1, 1], 0], [[1, 0.5, 0.25], 0, [0.75, 0.5, 1.5], 0],
    [[1, 0.5, 0.25], 3, [0.75, 0.5, 1.5], 17], [[2, 0.25, 1], 22, [0.5, 0.5, 0.25], 8],
  ];
  const w = new ExactPairs();
  shapes.forEach(([ha, ra, hb, rb], n) => {
    const a = exactBox([n, -n / 2, n / 4], ha, turn(ra));
    const ea = worldHalf(ha, turn(ra)), eb = worldHalf(hb, turn(rb));
    for (let axis = 0; axis < 3; axis++) {
      const next = (axis + 1) % 3;
      for (const s of [1, -1]) {
        for (const delta of [-0.25, 0, 0.5]) {
          for (const lateral of [0, ea[next]! + eb[next]!, ea[next]! + eb[next]! + 0.5]) {
            w.add(a, besides(a, hb, rb, axis, s, delta, s * lateral));
          }
        }
      }
    }
  });
  return { name: 'pairs-touching', boxes: w.boxes, pairs: w.pairs };
}

/**
 * A lattice of quarter-turned boxes of unequal sizes, each cell's box filling it: neighbours
 * touch (faces, edges, corners: gap 0) or stand exactly 0.5 apart. Every pair.
 */
function exactTouchingLattice(): ExactPairGroup {
  const widths = [[1, 0.5, 1.5, 1, 0.5, 1], [1, 1.5, 0.5, 1, 1], [0.5, 1, 1.5, 1]];
  const gaps = [[0, 0.5, 0, 0, 0.5], [0, 0, 0.5, 0], [0.5, 0, 0]];
  // Cell centres along each axis: prefix sums of widths and gaps.
  const centres = widths.map((ws, k) => {
    let at = 0;
    return ws.map((wd, c) => {
      const mid = at + wd / 2;
      at += wd + (gaps[k]![c] ?? 0);
      return mid;
    });
  });
  const boxes: BoxAxesInput[] = [];
  centres[0]!.forEach((x, ix) => centres[1]!.forEach((y, iy) => centres[2]!.forEach((z, iz) => {
    const e: Vec3 = [widths[0]![ix]! / 2, widths[1]![iy]! / 2, widths[2]![iz]! / 2];
    boxes.push(turnedBox([x, y, z], e, ix + 2 * iy + 3 * iz));
  })));
  return { name: 'all-pairs-touching', boxes, allPairs: true };
}

/** A small box inside a big one: centred, flush against each face (gap to it 0), 0.25 inside it, flush in each corner; both orders. */
function exactContainment(): ExactPairGroup {
  const w = new ExactPairs();
  const eBig: Vec3 = [2, 1.5, 1], eSmall: Vec3 = [0.5, 0.25, 0.5];
  for (const rBig of [0, 6, 13]) {
    for (const rSmall of [0, 10]) {
      const big = turnedBox([0.5, -0.25, 1], eBig, rBig);
      const room = [0, 1, 2].map((k) => eBig[k]! - eSmall[k]!);
      const offsets: number[][] = [[0, 0, 0]];
      for (let k = 0; k < 3; k++) {
        for (const s of [1, -1]) {
          offsets.push(localPoint(k, s * room[k]!, (k + 1) % 3, 0, (k + 2) % 3, 0));
          offsets.push(localPoint(k, s * (room[k]! - 0.25), (k + 1) % 3, 0, (k + 2) % 3, 0));
        }
      }
      for (const sx of [1, -1]) {
        for (const sy of [1, -1]) {
          for (const sz of [1, -1]) {
            offsets.push([sx * room[0]!, sy * room[1]!, sz * room[2]!]);
          }
        }
      }
      for (const o of offsets) {
        const small = turnedBox(add3(big.center, [o[0]!, o[1]!, o[2]!]), eSmall, rSmall);
        w.add(big, small);
        w.add(big, small);
      }
    }
  }
  return { name: 'pairs-containment', boxes: w.boxes, pairs: w.pairs };
}

/**
 * One box described 24 ways (each quarter turn with its half extents permuted to match), each
 * description twice: every pair of the 48 (listed and all pairs) is the same box twice; also a
 * flat box and a segment, each with its copy.
 */
function exactIdentical(): ExactPairGroup {
  const boxes: BoxAxesInput[] = [];
  for (let copy = 0; copy < 2; copy++) {
    for (let r = 0; r < 24; r++) {
      boxes.push(turnedBox([0.25, 0.5, -0.75], [1.5, 0.5, 1], r));
    }
  }
  const pairs: [number, number][] = [];
  for (let i = 0; i < 24; i++) {
    for (let j = i + 1; j < 48; j++) {
      if (j < 24 || j === i + 24) {
        pairs.push([i, j]);
      }
    }
  }
  const flat = exactBox([8, -8, 0.5], [1, 0, 0.5], turn(4)), segment = exactBox([-8, 8, 0.5], [0, 0.75, 0], turn(15));
  boxes.push(flat, flat, segment, segment);
  pairs.push([48, 49], [50, 51]);
  return { name: 'pairs-identical', boxes, pairs, allPairs: true };
}

/** A fixed box against every quarter turn of another, along each world axis: faces touching (gap 0) and 0.5 apart. */
function exactQuarterTurnPairs(): ExactPairGroup {
  const w = new ExactPairs();
  const a = exactBox([0, 0, 0], [1, 0.5, 0.25], ID);
  for (let r = 0; r < 24; r++) {
    for (let axis = 0; axis < 3; axis++) {
      for (const s of [1, -1]) {
        for (const delta of [0, 0.5]) {
          w.add(a, besides(a, [0.75, 0.25, 1.5], r, axis, s, delta, 0.25));
        }
      }
    }
  }
  return { name: 'pairs-quarter-turns', boxes: w.boxes, pairs: w.pairs };
}

/**
 * Flat boxes and segments against boxes, flat boxes and segments, under four quarter turns, along
 * each world axis: in contact (gap 0), 0.5 apart, and centred on each other (crossing, coplanar,
 * collinear).
 */
function exactFlatAndSegmentPairs(): ExactPairGroup {
  const kinds: Vec3[] = [[1, 0.5, 0.75], [1, 0, 0.75], [0, 0, 1.25]];
  const w = new ExactPairs();
  for (const [ka, ha] of kinds.entries()) {
    for (const [kb, hb] of kinds.entries()) {
      if (ka === 0 && kb === 0) {
        continue;
      }
      const a = exactBox([0.5, 0.25, -0.5], ha, turn(2 * ka));
      for (const rb of [0, 5, 10, 19]) {
        for (let axis = 0; axis < 3; axis++) {
          const ea = worldHalf(ha, a.axes), eb = worldHalf(hb, turn(rb));
          for (const delta of [0, 0.5, -(ea[axis]! + eb[axis]!)]) {
            w.add(a, besides(a, hb, rb, axis, 1, delta, 0));
          }
        }
      }
    }
  }
  return { name: 'pairs-flat-and-segments', boxes: w.boxes, pairs: w.pairs };
}

/**
 * The exact pair groups (about 100–300 pairs each, one all-pairs lattice), the same on every
 * call: faces touching at gap 0 and 0.5 apart, listed and as all pairs, containment, identical
 * boxes, quarter turns, flat boxes and segments.
 *
 * @example
 * for (const g of exactPairGroups()) console.log(g.name, g.pairs?.length, g.allPairs);
 */
export function exactPairGroups(): ExactPairGroup[] {
  return [exactTouchingPairs(), exactTouchingLattice(), exactContainment(), exactIdentical(), exactQuarterTurnPairs(), exactFlatAndSegmentPairs()];
}
