/**
 * Shared helpers for the core tests: random boxes (fast-check arbitraries), corner-set
 * comparison and a few 4×4 matrix utilities (column-major, WebGPU clip z ∈ [0, 1]).
 */

import fc from 'fast-check';
import type { Arbitrary } from 'fast-check';
import { obbCorners } from '../../../src/core/helpers.ts';
import type { Obb, Quat, Vec3 } from '../../../src/core/types.ts';
import { toObb } from '../../../src/core/canonical.ts';

export const finite = (min: number, max: number): Arbitrary<number> =>
  fc.double({ min, max, noNaN: true, noDefaultInfinity: true });

export const vec3Arb = (min: number, max: number): Arbitrary<Vec3> =>
  fc.tuple(finite(min, max), finite(min, max), finite(min, max));

/** A non-degenerate (not near zero) quaternion, not normalised. */
export const quatArb: Arbitrary<Quat> = fc
  .tuple(finite(-1, 1), finite(-1, 1), finite(-1, 1), finite(-1, 1))
  .filter(([x, y, z, w]) => x * x + y * y + z * z + w * w > 1e-2);

/** Random canonical boxes. */
export const obbArb: Arbitrary<Obb> = fc
  .record({ center: vec3Arb(-100, 100), halfExtents: vec3Arb(0, 10), rotation: quatArb })
  .map((b) => toObb(b));

/** Largest |a_i − b_i|. */
export function maxDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) {
    m = Math.max(m, Math.abs((a[i] as number) - (b[i] as number)));
  }
  return a.length === b.length ? m : Infinity;
}

/**
 * Largest distance from a corner of `a` to its nearest corner of `b`, and back: the Hausdorff
 * distance of the corner sets. Two boxes are the same set of points iff this is 0, whatever the
 * order, sign and handedness of their axes.
 */
export function cornerSetDistance(a: Obb, b: Obb): number {
  return pointSetDistance(obbCorners(a), obbCorners(b));
}

/** Hausdorff distance (max-norm) between two finite point sets. */
export function pointSetDistance(a: readonly Vec3[], b: readonly Vec3[]): number {
  const oneWay = (p: readonly Vec3[], q: readonly Vec3[]): number =>
    Math.max(...p.map((x) => Math.min(...q.map((y) => maxDiff(x, y)))));
  return Math.max(oneWay(a, b), oneWay(b, a));
}

/** How far the axes are from unit length, orthogonality and w = u × v (0 for a perfect frame). */
export function frameDefects(obb: Obb): { unit: number; ortho: number; handed: number } {
  const [u, v, w] = obb.axes;
  const dot = (a: Vec3, b: Vec3): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  const cross: Vec3 = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
  return {
    unit: Math.max(Math.abs(dot(u, u) - 1), Math.abs(dot(v, v) - 1), Math.abs(dot(w, w) - 1)),
    ortho: Math.max(Math.abs(dot(u, v)), Math.abs(dot(u, w)), Math.abs(dot(v, w))),
    handed: maxDiff(w, cross),
  };
}

/** Coordinates of p in the box's frame. */
export function toLocal(obb: Obb, p: Vec3): Vec3 {
  const d: Vec3 = [p[0] - obb.center[0], p[1] - obb.center[1], p[2] - obb.center[2]];
  const dot = (a: Vec3, b: Vec3): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  return [dot(d, obb.axes[0]), dot(d, obb.axes[1]), dot(d, obb.axes[2])];
}

export type M4 = number[];

/** Column-major product a · b. */
export function mul4(a: readonly number[], b: readonly number[]): M4 {
  const out: M4 = [];
  for (let c = 0; c < 4; c++) {
    for (let r = 0; r < 4; r++) {
      let s = 0;
      for (let k = 0; k < 4; k++) {
        s += (a[4 * k + r] as number) * (b[4 * c + k] as number);
      }
      out[4 * c + r] = s;
    }
  }
  return out;
}

/** M · (x, y, z, w). */
export function apply4(m: readonly number[], p: readonly [number, number, number, number]): [number, number, number, number] {
  const out: [number, number, number, number] = [0, 0, 0, 0];
  for (let r = 0; r < 4; r++) {
    out[r] = (m[r] as number) * p[0] + (m[4 + r] as number) * p[1] + (m[8 + r] as number) * p[2] + (m[12 + r] as number) * p[3];
  }
  return out;
}

/** General 4×4 inverse by Gauss–Jordan elimination with partial pivoting. */
export function invert4(m: readonly number[]): M4 {
  // Work row-major on [M | I].
  const a: number[][] = [];
  for (let r = 0; r < 4; r++) {
    a.push([0, 1, 2, 3].map((c) => m[4 * c + r] as number).concat([0, 1, 2, 3].map((c) => (c === r ? 1 : 0))));
  }
  for (let c = 0; c < 4; c++) {
    let p = c;
    for (let r = c + 1; r < 4; r++) {
      if (Math.abs((a[r] as number[])[c] as number) > Math.abs((a[p] as number[])[c] as number)) {
        p = r;
      }
    }
    [a[c], a[p]] = [a[p] as number[], a[c] as number[]];
    const row = a[c] as number[];
    const piv = row[c] as number;
    for (let k = 0; k < 8; k++) {
      row[k] = (row[k] as number) / piv;
    }
    for (let r = 0; r < 4; r++) {
      if (r !== c) {
        const other = a[r] as number[];
        const f = other[c] as number;
        for (let k = 0; k < 8; k++) {
          other[k] = (other[k] as number) - f * (row[k] as number);
        }
      }
    }
  }
  const out: M4 = [];
  for (let c = 0; c < 4; c++) {
    for (let r = 0; r < 4; r++) {
      out[4 * c + r] = (a[r] as number[])[4 + c] as number;
    }
  }
  return out;
}

/** WebGPU perspective (clip z ∈ [0, 1]), as wgpu-matrix's `mat4.perspective`. */
export function perspective(fovY: number, aspect: number, near: number, far: number): M4 {
  const f = 1 / Math.tan(fovY / 2);
  const nf = 1 / (near - far);
  return [f / aspect, 0, 0, 0, 0, f, 0, 0, 0, 0, far * nf, -1, 0, 0, far * near * nf, 0];
}

/** WebGPU orthographic projection (clip z ∈ [0, 1]). */
export function ortho(l: number, r: number, b: number, t: number, near: number, far: number): M4 {
  return [
    2 / (r - l), 0, 0, 0,
    0, 2 / (t - b), 0, 0,
    0, 0, 1 / (near - far), 0,
    (r + l) / (l - r), (t + b) / (b - t), near / (near - far), 1,
  ];
}

/** Right-handed view matrix: the camera at `eye` looks at `target`, view-space −z forward. */
export function lookAt(eye: Vec3, target: Vec3, up: Vec3): M4 {
  const norm = (a: Vec3): Vec3 => {
    const l = Math.hypot(a[0], a[1], a[2]);
    return [a[0] / l, a[1] / l, a[2] / l];
  };
  const cross = (a: Vec3, b: Vec3): Vec3 => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
  const dot = (a: Vec3, b: Vec3): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  const z = norm([eye[0] - target[0], eye[1] - target[1], eye[2] - target[2]]);
  const x = norm(cross(up, z));
  const y = cross(z, x);
  return [x[0], y[0], z[0], 0, x[1], y[1], z[1], 0, x[2], y[2], z[2], 0, -dot(x, eye), -dot(y, eye), -dot(z, eye), 1];
}
