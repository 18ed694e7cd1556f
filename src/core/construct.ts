/**
 * Box constructors. Each returns a canonical {@link Obb} (unit, orthonormal, right-handed axes),
 * or throws {@link ValidationError}.
 */

import { AXIS_TOLERANCE } from '../constants.ts';
import { ValidationError } from '../errors.ts';
import { toObb } from './canonical.ts';
import { symmetricEigen3 } from './jacobi.ts';
import type { Aabb, Mat4, Obb, Quat, Vec3 } from './types.ts';
import { addScaled, cross, dot, length, normalize, perpendicular, scale, sub } from './vec.ts';

/**
 * Largest |cos| of the angle between two (non-zero) columns of a world matrix's upper 3×3 that
 * {@link obbFromMatrix} accepts as "orthogonal". It equals {@link AXIS_TOLERANCE} on purpose: the
 * normalised columns are then exactly the axes `toObb` would accept, so a matrix and the box
 * written out as `{ axes }` are accepted or rejected alike. It is loose enough for float32 world
 * matrices composed through deep scene hierarchies (≈1e-7 rounding per product) and tight
 * enough that any real shear (a parent's non-uniform scale under a rotated child: cos ≳ 1e-2
 * for a visible effect) is reported rather than silently dropped.
 *
 * @example
 * // Columns (1, 0, 0) and (0.2, 1, 0): |cos| ≈ 0.196 > MATRIX_SHEAR_TOLERANCE → ValidationError
 * obbFromMatrix([1, 0, 0, 0, 0.2, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1], { min: [-1, -1, -1], max: [1, 1, 1] }) // throws "matrix has shear (…)"
 */
export const MATRIX_SHEAR_TOLERANCE = AXIS_TOLERANCE;

/**
 * A box from centre, half extents and three axes (orthonormal within 1e-4, either handedness).
 *
 * @example
 * obbFromAxes([0, 0, 0], [1, 2, 3], [[0, 1, 0], [-1, 0, 0], [0, 0, 1]])
 */
export function obbFromAxes(center: Vec3, halfExtents: Vec3, axes: readonly [Vec3, Vec3, Vec3]): Obb {
  return toObb({ center, halfExtents, axes });
}

/**
 * A box from centre, a non-zero quaternion [x, y, z, w] (normalised for you; Hamilton
 * convention as in gl-matrix and three.js) and half extents. The axes are the columns of the
 * quaternion's rotation matrix: the box's local x, y, z axes, rotated.
 *
 * @example
 * const s = Math.SQRT1_2
 * obbFromQuaternion([0, 0, 0], [0, 0, s, s], [2, 1, 1]).axes[0] // ≈ [0, 1, 0]: 90° about z
 */
export function obbFromQuaternion(center: Vec3, q: Quat, halfExtents: Vec3): Obb {
  return toObb({ center, halfExtents, rotation: q });
}

function isArrayLike(value: unknown): value is ArrayLike<unknown> {
  return Array.isArray(value) || (ArrayBuffer.isView(value) && !(value instanceof DataView));
}

function readFinite(kind: 'matrix' | 'argument', field: string, value: unknown, n: number): number[] {
  if (!isArrayLike(value) || value.length !== n) {
    const got = isArrayLike(value) ? `length ${value.length}` : value === null ? 'null' : typeof value;
    throw new ValidationError(kind, undefined, field, `must be ${n} numbers (got ${got})`);
  }
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const x = value[i];
    if (typeof x !== 'number' || !Number.isFinite(x)) {
      throw new ValidationError(kind, undefined, `${field}[${i}]`, `is not a finite number (got ${String(x)})`);
    }
    out.push(x);
  }
  return out;
}

function at(a: readonly number[], i: number): number {
  return a[i] as number;
}

/**
 * The shear measure of a matrix's upper 3×3, shared by {@link obbFromMatrix} (which refuses a
 * matrix with shear) and the derivation of GPU-sourced boxes (which flags the box:
 * shaders/boxes/derive.wgsl and its twin deriveBoxes in src/compare/derive.ts): for each pair of
 * non-zero columns a < b (`live`, in order), |cos| of the angle between their *normalised*
 * directions `dirs`. Normalised, so the test does not depend on scale (a matrix with scales 1e-3
 * and 1e3 is not "more sheared"); shear is any cos above {@link MATRIX_SHEAR_TOLERANCE}.
 *
 * @example
 * columnCosines([[1, 0, 0], [0, 1, 0], [0, 0, 1]], [0, 1, 2]) // three pairs, every cos 0
 */
export function columnCosines(dirs: readonly Vec3[], live: readonly number[]): { readonly a: number; readonly b: number; readonly cos: number }[] {
  const out: { a: number; b: number; cos: number }[] = [];
  for (let i = 0; i < live.length; i++) {
    for (let j = i + 1; j < live.length; j++) {
      const a = live[i] as number, b = live[j] as number;
      out.push({ a, b, cos: Math.abs(dot(dirs[a] as Vec3, dirs[b] as Vec3)) });
    }
  }
  return out;
}

/**
 * A box from a column-major 4×4 world matrix M and a box in M's local space.
 *
 * The centre is M applied to the local box's centre. Column k of M's upper 3×3 is local axis k
 * in world space; its length is the scale along that axis, folded into the half extent
 * (`halfExtents[k] = localHalf[k] × |column k|`). A negative scale flips an axis, which is the
 * same box; the result is made right-handed. A zero column (scale 0) gives a zero half extent
 * and its axis is completed from the other two; two or three zero columns get any orthonormal
 * completion. Shear cannot be represented by a box and is an error, as is a projective matrix
 * (last row not exactly (0, 0, 0, 1): products of affine matrices keep those exact 0s and 1s).
 *
 * @example
 * // Scale (2, 1, 1), then rotate 90° about z, then translate by (5, 0, 0):
 * const m = [0, 2, 0, 0, -1, 0, 0, 0, 0, 0, 1, 0, 5, 0, 0, 1]
 * obbFromMatrix(m, { min: [-1, -1, -1], max: [1, 1, 1] })
 * // center [5, 0, 0], halfExtents [2, 1, 1], axes [[0, 1, 0], [-1, 0, 0], [0, 0, 1]]
 */
export function obbFromMatrix(m: Mat4, localAabb: Aabb): Obb {
  const e = readFinite('matrix', 'm', m, 16);
  if (at(e, 3) !== 0 || at(e, 7) !== 0 || at(e, 11) !== 0 || at(e, 15) !== 1) {
    const row = [3, 7, 11, 15].map((i) => String(at(e, i))).join(', ');
    throw new ValidationError('matrix', undefined, 'matrix', `is projective: its last row (m[3], m[7], m[11], m[15]) is (${row}), not (0, 0, 0, 1)`);
  }
  if (typeof localAabb !== 'object' || (localAabb as unknown) === null) {
    throw new ValidationError('argument', undefined, 'localAabb', 'must be an object { min, max }');
  }
  const lo = readFinite('argument', 'localAabb.min', localAabb.min, 3);
  const hi = readFinite('argument', 'localAabb.max', localAabb.max, 3);
  for (let k = 0; k < 3; k++) {
    if (at(lo, k) > at(hi, k)) {
      throw new ValidationError('argument', undefined, `localAabb.min[${k}]`, `is greater than localAabb.max[${k}] (${at(lo, k)} > ${at(hi, k)})`);
    }
  }
  // Halve before combining so min/max near ±1.8e308 cannot overflow.
  const lc = [0, 1, 2].map((k) => at(lo, k) / 2 + at(hi, k) / 2);
  const lh = [0, 1, 2].map((k) => at(hi, k) / 2 - at(lo, k) / 2);

  const cols: Vec3[] = [0, 1, 2].map((k): Vec3 => [at(e, 4 * k), at(e, 4 * k + 1), at(e, 4 * k + 2)]);
  const t: Vec3 = [at(e, 12), at(e, 13), at(e, 14)];
  let center = t;
  for (let k = 0; k < 3; k++) {
    center = addScaled(center, cols[k] as Vec3, at(lc, k));
  }

  const scales = cols.map((c) => length(c));
  const dirs = cols.map((c) => normalize(c)); // [0, 0, 0] for a zero column
  const live = [0, 1, 2].filter((k) => at(scales, k) > 0);

  // Shear: the non-zero columns must be mutually orthogonal (columnCosines).
  for (const { a, b, cos } of columnCosines(dirs, live)) {
    if (cos > MATRIX_SHEAR_TOLERANCE) {
      throw new ValidationError('matrix', undefined, 'matrix', `has shear (|cos ∠(column ${a}, column ${b})| = ${Number(cos.toPrecision(3))}, tolerance ${MATRIX_SHEAR_TOLERANCE}); a box can only take rotation, scale and translation`);
    }
  }

  // Complete the directions of zero columns. The completions keep the cyclic order (k, k+1, k+2)
  // right-handed; handedness does not matter anyway since toObb recomputes w = u × v.
  const axis = (k: number): Vec3 => dirs[k % 3] as Vec3;
  if (live.length === 0) {
    dirs[0] = [1, 0, 0];
    dirs[1] = [0, 1, 0];
    dirs[2] = [0, 0, 1];
  } else if (live.length === 1) {
    const k = live[0] as number;
    const p = perpendicular(axis(k));
    dirs[(k + 1) % 3] = p;
    dirs[(k + 2) % 3] = cross(axis(k), p);
  } else if (live.length === 2) {
    const k = [0, 1, 2].find((i) => !live.includes(i)) as number;
    dirs[k] = normalize(cross(axis(k + 1), axis(k + 2)));
  }

  const halfExtents: Vec3 = [at(lh, 0) * at(scales, 0), at(lh, 1) * at(scales, 1), at(lh, 2) * at(scales, 2)];
  return toObb({ center, halfExtents, axes: [axis(0), axis(1), axis(2)] });
}

const COORD = ['x', 'y', 'z'] as const;

/** Reads a point cloud (flat xyz numbers or a list of triples) into a flat Float64Array. */
function readPoints(points: ArrayLike<number> | readonly Vec3[]): Float64Array {
  if (!isArrayLike(points)) {
    throw new ValidationError('argument', undefined, 'points', 'must be an array of [x, y, z] points or a flat array of numbers');
  }
  const first: unknown = points[0];
  if (points.length > 0 && isArrayLike(first)) {
    const list = points as ArrayLike<unknown>;
    const out = new Float64Array(list.length * 3);
    for (let i = 0; i < list.length; i++) {
      const p = list[i];
      if (!isArrayLike(p) || p.length !== 3) {
        throw new ValidationError('point', i, 'value', 'must be an array of 3 numbers');
      }
      for (let c = 0; c < 3; c++) {
        const x = p[c];
        if (typeof x !== 'number' || !Number.isFinite(x)) {
          throw new ValidationError('point', i, COORD[c] ?? '', `is not a finite number (got ${String(x)})`);
        }
        out[3 * i + c] = x;
      }
    }
    return out;
  }
  if (points.length % 3 !== 0) {
    throw new ValidationError('argument', undefined, 'points', `flat length ${points.length} is not a multiple of 3`);
  }
  const flat = points as ArrayLike<unknown>;
  const out = new Float64Array(flat.length);
  for (let j = 0; j < flat.length; j++) {
    const x = flat[j];
    if (typeof x !== 'number' || !Number.isFinite(x)) {
      throw new ValidationError('point', Math.floor(j / 3), COORD[j % 3] ?? '', `is not a finite number (got ${String(x)})`);
    }
    out[j] = x;
  }
  return out;
}

/**
 * Flips v so its largest-magnitude component is positive (the first such component on ties).
 * Eigenvectors have no intrinsic sign; fixing one makes the result independent of how Jacobi
 * happened to rotate.
 */
function signFixed(v: Vec3): Vec3 {
  let k = 0;
  for (let i = 1; i < 3; i++) {
    if (Math.abs(v[i] as number) > Math.abs(v[k] as number)) {
      k = i;
    }
  }
  return (v[k] as number) < 0 ? scale(v, -1) : v;
}

/**
 * A box around a point cloud, oriented by principal component analysis.
 *
 * The axes are the eigenvectors of the points' covariance, in order of decreasing variance (u
 * along the largest spread), made right-handed. The extents come from projecting every point
 * onto each axis, and the centre is the middle of each projected interval — not the mean, which
 * a lopsided cloud pulls off-centre. So the box contains every point (up to a few ulps of
 * rounding) and touches the extreme ones.
 *
 * Degenerate clouds are fine: one point, or all points equal, gives zero extents and identity
 * axes; collinear points give u along the line and zero extents across it; coplanar points a
 * (near-)zero third extent. For a covariance with repeated eigenvalues (e.g. a cube's corners)
 * any basis of the eigenspace is a valid answer and you get one of them.
 *
 * PCA boxes are not minimal-volume boxes; they are a cheap, deterministic fit.
 *
 * @param points - `[[x, y, z], …]` or a flat `[x0, y0, z0, x1, …]` (any ArrayLike, e.g. Float32Array).
 * @example
 * obbFromPoints([[0, 0, 0], [2, 2, 0], [1, 1, 0]])
 * // center [1, 1, 0], halfExtents [√2, 0, 0], axes[0] = [0.707…, 0.707…, 0]
 */
export function obbFromPoints(points: ArrayLike<number> | readonly Vec3[]): Obb {
  const p = readPoints(points);
  const n = p.length / 3;
  if (n === 0) {
    throw new ValidationError('point', undefined, 'points', 'is empty; a box needs at least one point');
  }
  const pt = (i: number): Vec3 => [p[3 * i] as number, p[3 * i + 1] as number, p[3 * i + 2] as number];

  // Running mean: cannot overflow for coordinates near ±1.8e308, unlike a plain sum, and is
  // exact when all points are equal.
  let mean: Vec3 = pt(0);
  for (let i = 1; i < n; i++) {
    mean = addScaled(mean, sub(pt(i), mean), 1 / (i + 1));
  }

  // Covariance of the deviations scaled into [−1, 1]: squares cannot overflow, and scaling the
  // matrix does not change its eigenvectors. The 1/n factor is dropped for the same reason.
  let spread = 0;
  for (let i = 0; i < n; i++) {
    const d = sub(pt(i), mean);
    spread = Math.max(spread, Math.abs(d[0]), Math.abs(d[1]), Math.abs(d[2]));
  }
  let u: Vec3 = [1, 0, 0];
  let v: Vec3 = [0, 1, 0];
  if (spread > 0) {
    const c = [0, 0, 0, 0, 0, 0, 0, 0, 0];
    for (let i = 0; i < n; i++) {
      const d = scale(sub(pt(i), mean), 1 / spread);
      for (let r = 0; r < 3; r++) {
        for (let s = r; s < 3; s++) {
          c[3 * r + s] = (c[3 * r + s] as number) + (d[r] as number) * (d[s] as number);
        }
      }
    }
    const { vectors } = symmetricEigen3(c); // upper triangle suffices
    u = signFixed(normalize(vectors[0]));
    v = signFixed(normalize(sub(vectors[1], scale(u, dot(vectors[1], u)))));
  }
  const w = cross(u, v);
  const axes = [u, v, w] as const;

  const lo = [Infinity, Infinity, Infinity];
  const hi = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < n; i++) {
    const d = sub(pt(i), mean);
    for (let k = 0; k < 3; k++) {
      const s = dot(d, axes[k] as Vec3);
      lo[k] = Math.min(at(lo, k), s);
      hi[k] = Math.max(at(hi, k), s);
    }
  }
  let center = mean;
  for (let k = 0; k < 3; k++) {
    center = addScaled(center, axes[k] as Vec3, at(lo, k) / 2 + at(hi, k) / 2);
  }
  const halfExtents: Vec3 = [at(hi, 0) / 2 - at(lo, 0) / 2, at(hi, 1) / 2 - at(lo, 1) / 2, at(hi, 2) / 2 - at(lo, 2) / 2];
  return toObb({ center, halfExtents, axes });
}
