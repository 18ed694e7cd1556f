/**
 * Tiny float64 helpers on {@link Vec3} tuples.
 *
 * They allocate a fresh tuple per call, which is fine for object-form inputs and tests. The bulk
 * paths (`validateBoxArray`, `validateRayArray`) work on scalars inside their loops instead.
 */

import type { Vec3 } from './types.ts';

/**
 * a + b.
 *
 * @example
 * add([1, 2, 3], [1, 1, 1]) // [2, 3, 4]
 */
export function add(a: Vec3, b: Vec3): Vec3 {
  return [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
}

/**
 * a − b.
 *
 * @example
 * sub([1, 2, 3], [1, 1, 1]) // [0, 1, 2]
 */
export function sub(a: Vec3, b: Vec3): Vec3 {
  return [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
}

/**
 * s · a.
 *
 * @example
 * scale([1, 2, 3], 2) // [2, 4, 6]
 */
export function scale(a: Vec3, s: number): Vec3 {
  return [a[0] * s, a[1] * s, a[2] * s];
}

/**
 * a + s · b, the step every "centre plus extent along an axis" computation takes.
 *
 * @example
 * addScaled([0, 0, 0], [1, 0, 0], 3) // [3, 0, 0]
 */
export function addScaled(a: Vec3, b: Vec3, s: number): Vec3 {
  return [a[0] + b[0] * s, a[1] + b[1] * s, a[2] + b[2] * s];
}

/**
 * −a.
 *
 * @example
 * negate([1, -2, 0]) // [-1, 2, -0]
 */
export function negate(a: Vec3): Vec3 {
  return [-a[0], -a[1], -a[2]];
}

/**
 * a · b.
 *
 * @example
 * dot([1, 2, 3], [4, 5, 6]) // 32
 */
export function dot(a: Vec3, b: Vec3): number {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/**
 * a × b (right-handed).
 *
 * @example
 * cross([1, 0, 0], [0, 1, 0]) // [0, 0, 1]
 */
export function cross(a: Vec3, b: Vec3): Vec3 {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}

/**
 * |a|, without overflow or underflow: components are scaled by the largest magnitude first, so
 * [1e-200, 0, 0] has length 1e-200 rather than 0.
 *
 * @example
 * length([3, 4, 0]) // 5
 */
export function length(a: Vec3): number {
  const m = Math.max(Math.abs(a[0]), Math.abs(a[1]), Math.abs(a[2]));
  if (m === 0 || !Number.isFinite(m)) {
    return m;
  }
  const x = a[0] / m;
  const y = a[1] / m;
  const z = a[2] / m;
  return m * Math.sqrt(x * x + y * y + z * z);
}

/**
 * |a − b|.
 *
 * @example
 * distance([1, 1, 1], [1, 1, 3]) // 2
 */
export function distance(a: Vec3, b: Vec3): number {
  return length(sub(a, b));
}

/**
 * a / |a|, computed with the same scaling as {@link length} so tiny and huge vectors normalise
 * exactly. The zero vector has no direction; it comes back as [0, 0, 0] and callers that care
 * must check (validation does, before it ever gets here).
 *
 * @example
 * normalize([0, 3, 4]) // [0, 0.6, 0.8]
 */
export function normalize(a: Vec3): Vec3 {
  const m = Math.max(Math.abs(a[0]), Math.abs(a[1]), Math.abs(a[2]));
  if (m === 0) {
    return [0, 0, 0];
  }
  const x = a[0] / m;
  const y = a[1] / m;
  const z = a[2] / m;
  const l = Math.sqrt(x * x + y * y + z * z);
  return [x / l, y / l, z / l];
}

/**
 * A unit vector perpendicular to the unit vector n, continuous almost everywhere (Duff et al.,
 * "Building an Orthonormal Basis, Revisited", JCGT 2017). (n, perpendicular(n), n × perpendicular(n))
 * is a right-handed orthonormal basis.
 *
 * @example
 * perpendicular([0, 0, 1]) // [1, 0, -0]
 */
export function perpendicular(n: Vec3): Vec3 {
  const sign = n[2] >= 0 ? 1 : -1;
  const a = -1 / (sign + n[2]);
  const b = n[0] * n[1] * a;
  return [1 + sign * n[0] * n[0] * a, sign * b, -sign * n[0]];
}
