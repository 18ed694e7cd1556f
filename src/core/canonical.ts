/**
 * Validation and canonicalisation of boxes and rays.
 *
 * Everything that reaches a backend passes through here. One record-level rule set serves the
 * object forms ({@link toObb}, {@link toRay}) and the bulk typed-array forms
 * ({@link validateBoxArray}, {@link validateRayArray}): an object is first copied into a scratch
 * record in the {@link BOX_F64} / {@link RAY_F64} layout and then checked and canonicalised by
 * the very functions the bulk loops call, so both paths accept the same inputs, produce
 * bit-identical output and report errors with the same wording.
 *
 * Rules (docs/design.md, "Semantics"): every number finite; half extents ≥ 0 (0 is a legal flat
 * box); axes unit and pairwise orthogonal within {@link AXIS_TOLERANCE}, either handedness;
 * quaternion non-zero; ray direction non-zero; `maxDistance` ≥ 0 or +∞.
 *
 * Canonical form: axes re-orthonormalised in float64 by Gram–Schmidt (u normalised, v made
 * orthogonal to u and normalised, w := u × v). A left-handed input therefore has its w flipped,
 * which describes the same box because the box is symmetric about its centre.
 */

import { AXIS_TOLERANCE } from '../constants.ts';
import { ValidationError } from '../errors.ts';
import type { ItemKind } from '../errors.ts';
import { BOX_F64, RAY_F64 } from './types.ts';
import type { BoxArray, BoxInput, Obb, Ray, RayArray, RayN, Vec3 } from './types.ts';

// Indexed reads from typed arrays are typed `number | undefined` under noUncheckedIndexedAccess.
// Every read below is at an offset proven in range by a length check made before the loop, so
// `as number` states a checked fact; a `?? NaN` would add a branch to the hot loops.

const { STRIDE: BS, CENTER, HALF, U, V, W } = BOX_F64;
const { STRIDE: RS, ORIGIN, DIR, MAX } = RAY_F64;

/**
 * Options of {@link validateBoxArray}.
 *
 * @example
 * declare const raw: Float64Array; // n boxes from a loader, every frame
 * const scratch = new Float64Array(BOX_F64.STRIDE * n); // reused every frame
 * validateBoxArray(raw, n, { out: scratch })
 */
export interface ValidateBoxOptions {
  /**
   * Unit-length and orthogonality tolerance of the axes; defaults to {@link AXIS_TOLERANCE}.
   * Raise it only for data you know to be coarse (e.g. axes stored as 8-bit normals).
   */
  readonly axisTolerance?: number;
  /**
   * Write the canonical records here instead of into a new array (length `count × 15`; it may
   * be `data` itself, to canonicalise in place). Reusing a buffer matters at scale: allocating
   * and first touching 120 MB for a million boxes can cost more than validating them. With
   * `out`, every record is checked before the first one is written, so a rejected batch leaves
   * `out` untouched.
   */
  readonly out?: Float64Array;
}

/**
 * Options of {@link validateRayArray}; `out` works as in {@link ValidateBoxOptions}.
 *
 * @example
 * declare const raw: Float64Array; // n rays, every frame
 * const rayScratch = new Float64Array(RAY_F64.STRIDE * n);
 * validateRayArray(raw, n, { out: rayScratch })
 */
export interface ValidateRayOptions {
  readonly out?: Float64Array;
}

// ---------------------------------------------------------------------------------------------
// Messages

/** Three significant digits are enough to see how far off a value is. */
function fmt(x: number): string {
  return Number.isFinite(x) ? String(Number(x.toPrecision(3))) : String(x);
}

/** A length near 1 that three digits would show as "1": print enough digits to see the error. */
function fmtLength(l: number): string {
  const short = fmt(l);
  return short === '1' ? String(Number(l.toPrecision(7))) : short;
}

/**
 * A short description of what a value is, for error messages (`an array of length 2`, `null`,
 * `string "abc"`, `Float32Array`).
 */
export function describeValue(value: unknown): string {
  if (value === null) {
    return 'null';
  }
  if (Array.isArray(value)) {
    return `an array of length ${value.length}`;
  }
  if (ArrayBuffer.isView(value)) {
    return value.constructor.name;
  }
  if (typeof value === 'string') {
    const s = JSON.stringify(value);
    return `string ${s.length > 24 ? `${s.slice(0, 21)}..."` : s}`;
  }
  return typeof value;
}

const AXIS_NAMES = ['u', 'v', 'w'] as const;
const BOX_FIELDS = ['center', 'halfExtents', 'axes[0]', 'axes[1]', 'axes[2]'] as const;
const RAY_FIELDS = ['origin', 'direction'] as const;

// ---------------------------------------------------------------------------------------------
// Record-level rules, shared by the object and bulk paths

/** True when the box record at `o` passes every rule. No allocation; the bulk loop's body. */
function boxRecordOk(d: Float64Array | Float32Array, o: number, tol: number): boolean {
  const cx = d[o] as number, cy = d[o + 1] as number, cz = d[o + 2] as number;
  const hx = d[o + 3] as number, hy = d[o + 4] as number, hz = d[o + 5] as number;
  const ux = d[o + 6] as number, uy = d[o + 7] as number, uz = d[o + 8] as number;
  const vx = d[o + 9] as number, vy = d[o + 10] as number, vz = d[o + 11] as number;
  const wx = d[o + 12] as number, wy = d[o + 13] as number, wz = d[o + 14] as number;
  // x * 0 is ±0 for every finite x and NaN for ±∞ and NaN, so one comparison covers 15 values
  // (a plain sum could overflow to ∞ for finite inputs; these products cannot).
  const z =
    cx * 0 + cy * 0 + cz * 0 + hx * 0 + hy * 0 + hz * 0 +
    ux * 0 + uy * 0 + uz * 0 + vx * 0 + vy * 0 + vz * 0 + wx * 0 + wy * 0 + wz * 0;
  if (z !== 0) {
    return false;
  }
  if (hx < 0 || hy < 0 || hz < 0) {
    return false;
  }
  const lu = Math.sqrt(ux * ux + uy * uy + uz * uz);
  const lv = Math.sqrt(vx * vx + vy * vy + vz * vz);
  const lw = Math.sqrt(wx * wx + wy * wy + wz * wz);
  if (Math.abs(lu - 1) > tol || Math.abs(lv - 1) > tol || Math.abs(lw - 1) > tol) {
    return false;
  }
  // The dots of the raw (near-unit) axes: within tol of zero means within ~tol of orthogonal.
  // w is checked against u and v but not against u × v, so either handedness passes.
  return (
    Math.abs(ux * vx + uy * vy + uz * vz) <= tol &&
    Math.abs(ux * wx + uy * wy + uz * wz) <= tol &&
    Math.abs(vx * wx + vy * wy + vz * wz) <= tol
  );
}

/**
 * Throws the error for a box record that {@link boxRecordOk} rejected: the first broken rule in
 * field order (centre, half extents, axes), so a message always points at one concrete value.
 */
function throwBoxRecordError(
  d: Float64Array | Float32Array,
  o: number,
  index: number | undefined,
  tol: number,
): never {
  for (let f = 0; f < 5; f++) {
    for (let c = 0; c < 3; c++) {
      const x = d[o + 3 * f + c] as number;
      if (!Number.isFinite(x)) {
        throw new ValidationError('box', index, `${BOX_FIELDS[f] ?? ''}[${c}]`, `is not finite (${x})`);
      }
    }
  }
  for (let c = 0; c < 3; c++) {
    const h = d[o + HALF + c] as number;
    if (h < 0) {
      throw new ValidationError('box', index, `halfExtents[${c}]`, `is negative (${fmt(h)}); half extents must be >= 0`);
    }
  }
  const axis = (k: number): Vec3 => {
    const b = o + U + 3 * k;
    return [d[b] as number, d[b + 1] as number, d[b + 2] as number];
  };
  const a = [axis(0), axis(1), axis(2)] as const;
  for (let k = 0; k < 3; k++) {
    const [x, y, z] = a[k] as Vec3;
    const l = Math.sqrt(x * x + y * y + z * z);
    if (Math.abs(l - 1) > tol) {
      const name = AXIS_NAMES[k] ?? '';
      throw new ValidationError('box', index, `axes[${k}]`, `is not unit length (|${name}| = ${fmtLength(l)}, tolerance ${fmt(tol)})`);
    }
  }
  const pairs = [[0, 1], [0, 2], [1, 2]] as const;
  for (const [i, j] of pairs) {
    const p = a[i] as Vec3, q = a[j] as Vec3;
    const dd = Math.abs(p[0] * q[0] + p[1] * q[1] + p[2] * q[2]);
    if (!(dd <= tol)) {
      const ni = AXIS_NAMES[i] ?? '', nj = AXIS_NAMES[j] ?? '';
      throw new ValidationError('box', index, 'axes', `are not orthonormal (|${ni}·${nj}| = ${fmt(dd)}, tolerance ${fmt(tol)})`);
    }
  }
  // boxRecordOk and this function encode the same rules; reaching here means they drifted.
  throw new Error(`webgpu-obb invariant failed: box ${index ?? ''} rejected without a reason`);
}

/**
 * Writes the canonical form of the valid box record `s[so..]` to `out[oo..]`: centre copied, half
 * extents copied (−0 becomes +0), axes by Gram–Schmidt with w := u × v. The input w is not read:
 * validation proved it is ±(u × v) within tolerance, and u × v is the right-handed choice.
 */
function canonicaliseBoxRecord(s: Float64Array | Float32Array, so: number, out: Float64Array, oo: number): void {
  out[oo + CENTER] = s[so + CENTER] as number;
  out[oo + CENTER + 1] = s[so + CENTER + 1] as number;
  out[oo + CENTER + 2] = s[so + CENTER + 2] as number;
  out[oo + HALF] = (s[so + HALF] as number) + 0;
  out[oo + HALF + 1] = (s[so + HALF + 1] as number) + 0;
  out[oo + HALF + 2] = (s[so + HALF + 2] as number) + 0;
  writeOrthonormalFrame(
    out, oo + U,
    s[so + U] as number, s[so + U + 1] as number, s[so + U + 2] as number,
    s[so + V] as number, s[so + V + 1] as number, s[so + V + 2] as number,
  );
}

/**
 * Gram–Schmidt on near-orthonormal u, v (|u|, |v| ≈ 1, u·v ≈ 0, as validation guarantees), then
 * w := u × v; writes u, v, w as 9 consecutive numbers at `out[o]`. One pass suffices because the
 * inputs are already nearly orthogonal: the cancellation that calls for re-orthogonalisation only
 * happens when v is nearly parallel to u. Result: orthonormal and right-handed to ~1e-16.
 */
function writeOrthonormalFrame(
  out: Float64Array, o: number,
  ux: number, uy: number, uz: number,
  vx: number, vy: number, vz: number,
): void {
  let l = Math.sqrt(ux * ux + uy * uy + uz * uz);
  ux /= l;
  uy /= l;
  uz /= l;
  const d = vx * ux + vy * uy + vz * uz;
  vx -= d * ux;
  vy -= d * uy;
  vz -= d * uz;
  l = Math.sqrt(vx * vx + vy * vy + vz * vz);
  vx /= l;
  vy /= l;
  vz /= l;
  out[o] = ux;
  out[o + 1] = uy;
  out[o + 2] = uz;
  out[o + 3] = vx;
  out[o + 4] = vy;
  out[o + 5] = vz;
  out[o + 6] = uy * vz - uz * vy;
  out[o + 7] = uz * vx - ux * vz;
  out[o + 8] = ux * vy - uy * vx;
}

/**
 * Writes x, y, z / |(x, y, z)| at `out[o]` for a finite non-zero vector. The common range takes
 * the direct formula; tiny or huge vectors are first scaled by their largest component so the
 * squares neither underflow nor overflow. Hence *any* finite non-zero vector normalises.
 */
function writeUnit(out: Float64Array, o: number, x: number, y: number, z: number): void {
  const l2 = x * x + y * y + z * z;
  if (!(l2 > 1e-200 && l2 < 1e200)) {
    const m = Math.max(Math.abs(x), Math.abs(y), Math.abs(z));
    x /= m;
    y /= m;
    z /= m;
  }
  const l = Math.sqrt(x * x + y * y + z * z);
  out[o] = x / l;
  out[o + 1] = y / l;
  out[o + 2] = z / l;
}

/** True when the ray record at `o` passes every rule. */
function rayRecordOk(d: Float64Array | Float32Array, o: number): boolean {
  const ox = d[o] as number, oy = d[o + 1] as number, oz = d[o + 2] as number;
  const dx = d[o + 3] as number, dy = d[o + 4] as number, dz = d[o + 5] as number;
  const m = d[o + 6] as number;
  const z = ox * 0 + oy * 0 + oz * 0 + dx * 0 + dy * 0 + dz * 0;
  // `m >= 0` is false for NaN and negatives, true for +∞ and −0.
  return z === 0 && (dx !== 0 || dy !== 0 || dz !== 0) && m >= 0;
}

function throwRayRecordError(d: Float64Array | Float32Array, o: number, index: number | undefined): never {
  for (let f = 0; f < 2; f++) {
    for (let c = 0; c < 3; c++) {
      const x = d[o + 3 * f + c] as number;
      if (!Number.isFinite(x)) {
        throw new ValidationError('ray', index, `${RAY_FIELDS[f] ?? ''}[${c}]`, `is not finite (${x})`);
      }
    }
  }
  if (d[o + DIR] === 0 && d[o + DIR + 1] === 0 && d[o + DIR + 2] === 0) {
    throw new ValidationError('ray', index, 'direction', 'is the zero vector; a ray needs a non-zero direction');
  }
  const m = d[o + MAX] as number;
  if (Number.isNaN(m)) {
    throw new ValidationError('ray', index, 'maxDistance', 'is NaN; use a number >= 0 or Infinity');
  }
  if (m < 0) {
    throw new ValidationError('ray', index, 'maxDistance', `is negative (${fmt(m)}); use a number >= 0 or Infinity`);
  }
  throw new Error(`webgpu-obb invariant failed: ray ${index ?? ''} rejected without a reason`);
}

/** Canonical ray record: origin copied, direction normalised, maxDistance copied (−0 → +0). */
function canonicaliseRayRecord(s: Float64Array | Float32Array, so: number, out: Float64Array, oo: number): void {
  out[oo + ORIGIN] = s[so + ORIGIN] as number;
  out[oo + ORIGIN + 1] = s[so + ORIGIN + 1] as number;
  out[oo + ORIGIN + 2] = s[so + ORIGIN + 2] as number;
  writeUnit(out, oo + DIR, s[so + DIR] as number, s[so + DIR + 1] as number, s[so + DIR + 2] as number);
  out[oo + MAX] = (s[so + MAX] as number) + 0;
}

// ---------------------------------------------------------------------------------------------
// Reading untrusted objects (they may come from JSON)

function isArrayLike(value: unknown): value is ArrayLike<unknown> {
  return Array.isArray(value) || (ArrayBuffer.isView(value) && !(value instanceof DataView));
}

function asRecord(kind: ItemKind, index: number | undefined, value: unknown): Readonly<Record<string, unknown>> {
  if (typeof value !== 'object' || value === null || isArrayLike(value)) {
    throw new ValidationError(kind, index, 'value', `is not an object (got ${describeValue(value)})`);
  }
  return value as Readonly<Record<string, unknown>>;
}

/** Copies an array of `n` finite numbers into `out[o..]`, or throws naming the field or element. */
function readNumbers(
  kind: ItemKind, index: number | undefined, field: string,
  value: unknown, n: number, out: Float64Array, o: number,
): void {
  if (value === undefined) {
    throw new ValidationError(kind, index, field, `is missing (expected an array of ${n} numbers)`);
  }
  if (!isArrayLike(value) || value.length !== n) {
    throw new ValidationError(kind, index, field, `must be an array of ${n} numbers (got ${describeValue(value)})`);
  }
  for (let i = 0; i < n; i++) {
    const x = value[i];
    if (typeof x !== 'number') {
      throw new ValidationError(kind, index, `${field}[${i}]`, `is not a number (got ${describeValue(x)})`);
    }
    if (!Number.isFinite(x)) {
      throw new ValidationError(kind, index, `${field}[${i}]`, `is not finite (${x})`);
    }
    out[o + i] = x;
  }
}

/**
 * Writes the rotation matrix columns of the quaternion [x, y, z, w] (Hamilton convention, active
 * rotation: the same as gl-matrix and three.js) as u, v, w at `out[o]`. The quaternion is
 * normalised first, with the same scaling as {@link writeUnit}, so any non-zero one works.
 */
function writeQuaternionAxes(
  index: number | undefined, q: Float64Array, out: Float64Array, o: number,
): void {
  let x = q[0] as number, y = q[1] as number, z = q[2] as number, w = q[3] as number;
  const m = Math.max(Math.abs(x), Math.abs(y), Math.abs(z), Math.abs(w));
  if (m === 0) {
    throw new ValidationError('box', index, 'rotation', 'is the zero quaternion; a rotation needs a non-zero quaternion');
  }
  x /= m;
  y /= m;
  z /= m;
  w /= m;
  const l = Math.sqrt(x * x + y * y + z * z + w * w);
  x /= l;
  y /= l;
  z /= l;
  w /= l;
  out[o] = 1 - 2 * (y * y + z * z);
  out[o + 1] = 2 * (x * y + z * w);
  out[o + 2] = 2 * (x * z - y * w);
  out[o + 3] = 2 * (x * y - z * w);
  out[o + 4] = 1 - 2 * (x * x + z * z);
  out[o + 5] = 2 * (y * z + x * w);
  out[o + 6] = 2 * (x * z + y * w);
  out[o + 7] = 2 * (y * z - x * w);
  out[o + 8] = 1 - 2 * (x * x + y * y);
}

/** Copies a box object into a raw record (not yet checked against the axis rules). */
function readBoxRecord(input: unknown, index: number | undefined, s: Float64Array): void {
  const rec = asRecord('box', index, input);
  readNumbers('box', index, 'center', rec['center'], 3, s, CENTER);
  readNumbers('box', index, 'halfExtents', rec['halfExtents'], 3, s, HALF);
  const axes = rec['axes'];
  const rotation = rec['rotation'];
  if (axes !== undefined && rotation !== undefined) {
    throw new ValidationError('box', index, 'axes', 'and rotation are both given; pass one of them');
  }
  if (axes !== undefined) {
    if (!isArrayLike(axes) || axes.length !== 3) {
      throw new ValidationError('box', index, 'axes', `must be an array of 3 vectors [u, v, w] (got ${describeValue(axes)})`);
    }
    for (let k = 0; k < 3; k++) {
      readNumbers('box', index, `axes[${k}]`, axes[k], 3, s, U + 3 * k);
    }
  } else if (rotation !== undefined) {
    const q = new Float64Array(4);
    readNumbers('box', index, 'rotation', rotation, 4, q, 0);
    writeQuaternionAxes(index, q, s, U);
  } else {
    throw new ValidationError('box', index, 'axes', 'are missing: a box needs axes [u, v, w] or rotation [x, y, z, w]');
  }
}

function readRayRecord(input: unknown, index: number | undefined, s: Float64Array): void {
  const rec = asRecord('ray', index, input);
  readNumbers('ray', index, 'origin', rec['origin'], 3, s, ORIGIN);
  readNumbers('ray', index, 'direction', rec['direction'], 3, s, DIR);
  const m = rec['maxDistance'];
  // JSON cannot write Infinity: JSON.stringify turns it into null. Reading null as "absent"
  // (= +∞) lets a canonical ray survive a JSON round trip.
  if (m === undefined || m === null) {
    s[MAX] = Infinity;
  } else if (typeof m !== 'number') {
    throw new ValidationError('ray', index, 'maxDistance', `is not a number (got ${describeValue(m)})`);
  } else {
    s[MAX] = m;
  }
}

function obbFromRecord(d: Float64Array, o: number): Obb {
  const v = (b: number): Vec3 => [d[o + b] as number, d[o + b + 1] as number, d[o + b + 2] as number];
  return { center: v(CENTER), halfExtents: v(HALF), axes: [v(U), v(V), v(W)] };
}

function rayFromRecord(d: Float64Array, o: number): RayN {
  const v = (b: number): Vec3 => [d[o + b] as number, d[o + b + 1] as number, d[o + b + 2] as number];
  return { origin: v(ORIGIN), direction: v(DIR), maxDistance: d[o + MAX] as number };
}

// ---------------------------------------------------------------------------------------------
// Object forms

/**
 * Validates a box given as `{ center, halfExtents, axes }` or `{ center, halfExtents, rotation }`
 * and returns its canonical form. Throws {@link ValidationError} (kind `'box'`) naming `index`
 * and the field, e.g. `box 7: axes are not orthonormal (|u·v| = 0.013, tolerance 0.0001)`.
 *
 * @param index - position of the box in the caller's list; only used in error messages.
 * @example
 * const box = toObb({ center: [0, 0, 0], halfExtents: [1, 2, 3], rotation: [0, 0, 0, 2] })
 * box.axes // [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
 */
export function toObb(input: BoxInput, index?: number): Obb {
  const s = new Float64Array(BS);
  readBoxRecord(input, index, s);
  if (!boxRecordOk(s, 0, AXIS_TOLERANCE)) {
    throwBoxRecordError(s, 0, index, AXIS_TOLERANCE);
  }
  const out = new Float64Array(BS);
  canonicaliseBoxRecord(s, 0, out, 0);
  return obbFromRecord(out, 0);
}

/**
 * Validates a ray and returns its canonical form: unit direction, `maxDistance` defaulting to
 * +∞ (`null`, as JSON writes Infinity, also means +∞). Any finite non-zero direction is
 * accepted, however short: normalisation rescales first, so no length threshold is needed.
 * Throws {@link ValidationError} (kind `'ray'`) naming `index` and the field.
 *
 * @example
 * toRay({ origin: [0, 0, 0], direction: [0, 0, 2] })
 * // { origin: [0, 0, 0], direction: [0, 0, 1], maxDistance: Infinity }
 */
export function toRay(input: Ray, index?: number): RayN {
  const s = new Float64Array(RS);
  readRayRecord(input, index, s);
  if (!rayRecordOk(s, 0)) {
    throwRayRecordError(s, 0, index);
  }
  const out = new Float64Array(RS);
  canonicaliseRayRecord(s, 0, out, 0);
  return rayFromRecord(out, 0);
}

// ---------------------------------------------------------------------------------------------
// Packed arrays

function checkCount(field: string, count: number): void {
  if (!Number.isSafeInteger(count) || count < 0) {
    throw new ValidationError('argument', undefined, field, `must be a non-negative integer (got ${String(count)})`);
  }
}

function checkIndex(kind: 'box' | 'ray', count: number, i: number): void {
  if (!Number.isInteger(i) || i < 0 || i >= count) {
    throw new ValidationError('argument', undefined, 'index', `${String(i)} is out of range for ${count} ${kind === 'box' ? 'boxes' : 'rays'}`);
  }
}

/**
 * `count` canonical placeholder boxes: centre 0, half extents 0, identity axes. Zero-filled
 * axes would not be canonical, so every record starts as a valid (point-sized) box.
 *
 * @example
 * const boxes = makeBoxArray(2)
 * setBox(boxes, 1, toObb({ center: [1, 2, 3], halfExtents: [1, 1, 1], rotation: [0, 0, 0, 1] }))
 */
export function makeBoxArray(count: number): BoxArray {
  checkCount('count', count);
  const data = new Float64Array(count * BS);
  for (let o = 0; o < data.length; o += BS) {
    data[o + U] = 1;
    data[o + V + 1] = 1;
    data[o + W + 2] = 1;
  }
  return { count, data };
}

/**
 * `count` canonical placeholder rays: origin 0, direction +z, `maxDistance` +∞.
 *
 * @example
 * const rays = makeRayArray(1)
 * setRay(rays, 0, toRay({ origin: [0, 0, -5], direction: [0, 0, 1] }))
 */
export function makeRayArray(count: number): RayArray {
  checkCount('count', count);
  const data = new Float64Array(count * RS);
  for (let o = 0; o < data.length; o += RS) {
    data[o + DIR + 2] = 1;
    data[o + MAX] = Infinity;
  }
  return { count, data };
}

/**
 * Writes a canonical box at index `i`. The box is trusted to be canonical (it is typed
 * {@link Obb}, which only {@link toObb} and the constructors produce); raw user data goes
 * through {@link toObb} or {@link validateBoxArray} instead.
 *
 * @example
 * setBox(boxes, 0, obbFromAabb({ min: [0, 0, 0], max: [1, 1, 1] }))
 */
export function setBox(arr: BoxArray, i: number, obb: Obb): void {
  checkIndex('box', arr.count, i);
  writeBoxRecord(arr.data, i, obb);
}

/**
 * Writes a canonical box into record `i` of BOX_F64 data, unchecked (setBox checks the index;
 * the reference's one-box queries write their scratch records with it).
 *
 * @example
 * const scratch = new Float64Array(BOX_F64.STRIDE);
 * writeBoxRecord(scratch, 0, toObb(box));
 */
export function writeBoxRecord(data: Float64Array, i: number, obb: Obb): void {
  const o = i * BS;
  const vs = [obb.center, obb.halfExtents, obb.axes[0], obb.axes[1], obb.axes[2]] as const;
  for (let f = 0; f < 5; f++) {
    const v = vs[f] as Vec3;
    data[o + 3 * f] = v[0];
    data[o + 3 * f + 1] = v[1];
    data[o + 3 * f + 2] = v[2];
  }
}

/**
 * Writes a canonical ray at index `i` (trusted like {@link setBox}).
 *
 * @example
 * setRay(rays, 3, toRay({ origin: [0, 0, 0], direction: [1, 0, 0], maxDistance: 10 }))
 */
export function setRay(arr: RayArray, i: number, ray: RayN): void {
  checkIndex('ray', arr.count, i);
  const d = arr.data;
  const o = i * RS;
  d.set(ray.origin, o + ORIGIN);
  d.set(ray.direction, o + DIR);
  d[o + MAX] = ray.maxDistance;
}

/**
 * Reads box `i` back as an {@link Obb} (fresh tuples; the array is not aliased).
 *
 * @example
 * boxAt(boxArrayFrom([{ center: [1, 2, 3], halfExtents: [1, 1, 1], rotation: [0, 0, 0, 1] }]), 0).center
 * // [1, 2, 3]
 */
export function boxAt(arr: BoxArray, i: number): Obb {
  checkIndex('box', arr.count, i);
  return obbFromRecord(arr.data, i * BS);
}

/**
 * Reads ray `i` back as a {@link RayN}.
 *
 * @example
 * rayAt(rayArrayFrom([{ origin: [0, 0, 0], direction: [0, 3, 0] }]), 0).direction // [0, 1, 0]
 */
export function rayAt(arr: RayArray, i: number): RayN {
  checkIndex('ray', arr.count, i);
  return rayFromRecord(arr.data, i * RS);
}

/**
 * Validates and packs object-form boxes into a {@link BoxArray} of canonical records. Throws on
 * the first bad box, naming its index; nothing is returned half-filled.
 *
 * @example
 * const input = JSON.parse(text) as { boxes: BoxInput[] };
 * const boxes = boxArrayFrom(input.boxes)
 * boxes.count === input.boxes.length
 */
export function boxArrayFrom(boxes: readonly BoxInput[]): BoxArray {
  if (!Array.isArray(boxes)) {
    throw new ValidationError('argument', undefined, 'boxes', `must be an array (got ${describeValue(boxes)})`);
  }
  const count = boxes.length;
  const data = new Float64Array(count * BS);
  const s = new Float64Array(BS);
  for (let i = 0; i < count; i++) {
    readBoxRecord(boxes[i], i, s);
    if (!boxRecordOk(s, 0, AXIS_TOLERANCE)) {
      throwBoxRecordError(s, 0, i, AXIS_TOLERANCE);
    }
    canonicaliseBoxRecord(s, 0, data, i * BS);
  }
  return { count, data };
}

/**
 * Validates and packs object-form rays into a {@link RayArray} of canonical records.
 *
 * @example
 * const rays = rayArrayFrom([{ origin: [-10, 0, 0], direction: [1, 0, 0], maxDistance: 100 }])
 */
export function rayArrayFrom(rays: readonly Ray[]): RayArray {
  if (!Array.isArray(rays)) {
    throw new ValidationError('argument', undefined, 'rays', `must be an array (got ${describeValue(rays)})`);
  }
  const count = rays.length;
  const data = new Float64Array(count * RS);
  const s = new Float64Array(RS);
  for (let i = 0; i < count; i++) {
    readRayRecord(rays[i], i, s);
    if (!rayRecordOk(s, 0)) {
      throwRayRecordError(s, 0, i);
    }
    canonicaliseRayRecord(s, 0, data, i * RS);
  }
  return { count, data };
}

/** Checks the typed array and its length against `count` records of `stride`; returns count. */
function recordCount(data: unknown, count: number | undefined, stride: number, layout: string): number {
  if (!(data instanceof Float64Array || data instanceof Float32Array)) {
    throw new ValidationError('argument', undefined, 'data', `must be a Float64Array or Float32Array (got ${describeValue(data)})`);
  }
  if (count === undefined) {
    if (data.length % stride !== 0) {
      throw new ValidationError('argument', undefined, 'data', `length ${data.length} is not a multiple of the ${layout} stride ${stride}`);
    }
    return data.length / stride;
  }
  checkCount('count', count);
  if (data.length !== count * stride) {
    // Exact match rather than "at least": a longer array usually means the wrong layout or a
    // stale count. A buffer with spare capacity can pass `data.subarray(0, count * stride)`.
    throw new ValidationError('argument', undefined, 'data', `length ${data.length} does not match count ${count} × ${layout} stride ${stride} = ${count * stride}`);
  }
  return count;
}

/**
 * Validates raw boxes in the {@link BOX_F64} layout (centre, half extents, u, v, w; w of either
 * handedness) and returns a NEW canonical {@link BoxArray}: axes re-orthonormalised, w = u × v.
 * Throws {@link ValidationError} naming the first bad box index; the input is never modified
 * (unless it is also `options.out`, and then only once every box has passed). One tight loop,
 * no allocation per box.
 *
 * @param count - number of boxes; defaults to `data.length / 15` and must match it exactly.
 * @example
 * const raw = new Float64Array(15 * n) // filled by a loader
 * const boxes = validateBoxArray(raw)  // throws e.g. "box 1532: axes are not orthonormal (…)"
 */
export function validateBoxArray(
  data: Float64Array | Float32Array,
  count?: number,
  options: ValidateBoxOptions = {},
): BoxArray {
  const n = recordCount(data, count, BS, 'BOX_F64');
  const tol = options.axisTolerance ?? AXIS_TOLERANCE;
  if (!(tol >= 0 && tol < 1)) {
    throw new ValidationError('argument', undefined, 'axisTolerance', `must be in [0, 1) (got ${String(tol)})`);
  }
  const given = options.out;
  if (given === undefined) {
    // A fresh array nobody else sees: check and write in one pass; on error it is dropped.
    const out = new Float64Array(n * BS);
    for (let i = 0, o = 0; i < n; i++, o += BS) {
      if (!boxRecordOk(data, o, tol)) {
        throwBoxRecordError(data, o, i, tol);
      }
      canonicaliseBoxRecord(data, o, out, o);
    }
    return { count: n, data: out };
  }
  checkOut(given, n, BS);
  // The caller's buffer (possibly `data` itself): check everything before writing anything.
  for (let i = 0, o = 0; i < n; i++, o += BS) {
    if (!boxRecordOk(data, o, tol)) {
      throwBoxRecordError(data, o, i, tol);
    }
  }
  for (let o = 0; o < n * BS; o += BS) {
    canonicaliseBoxRecord(data, o, given, o);
  }
  return { count: n, data: given };
}

/**
 * Validates raw rays in the {@link RAY_F64} layout (origin, direction, maxDistance) and returns a
 * NEW canonical {@link RayArray} with unit directions. `maxDistance` must be ≥ 0 or +∞ (write
 * `Infinity` for "unbounded"; NaN is an error). Throws naming the first bad ray index.
 * `options.out` reuses a buffer as in {@link validateBoxArray}.
 *
 * @example
 * const rays = validateRayArray(new Float64Array([0, 0, 0, 0, 0, 5, Infinity])) // direction [0, 0, 1]
 */
export function validateRayArray(
  data: Float64Array | Float32Array,
  count?: number,
  options: ValidateRayOptions = {},
): RayArray {
  const n = recordCount(data, count, RS, 'RAY_F64');
  const given = options.out;
  if (given === undefined) {
    const out = new Float64Array(n * RS);
    for (let i = 0, o = 0; i < n; i++, o += RS) {
      if (!rayRecordOk(data, o)) {
        throwRayRecordError(data, o, i);
      }
      canonicaliseRayRecord(data, o, out, o);
    }
    return { count: n, data: out };
  }
  checkOut(given, n, RS);
  for (let i = 0, o = 0; i < n; i++, o += RS) {
    if (!rayRecordOk(data, o)) {
      throwRayRecordError(data, o, i);
    }
  }
  for (let o = 0; o < n * RS; o += RS) {
    canonicaliseRayRecord(data, o, given, o);
  }
  return { count: n, data: given };
}

function checkOut(out: unknown, n: number, stride: number): void {
  if (!(out instanceof Float64Array) || out.length !== n * stride) {
    const got = out instanceof Float64Array ? `length ${out.length}` : describeValue(out);
    throw new ValidationError('argument', undefined, 'out', `must be a Float64Array of length ${n * stride} (got ${got})`);
  }
}
