/**
 * Small conveniences around canonical boxes: bounding AABBs, corners and edges for debug
 * drawing, boxes from AABBs, and picking rays from screen coordinates.
 */

import { ValidationError } from '../errors.ts';
import { toObb } from './canonical.ts';
import { BOX_F64, type Aabb, type Mat4, type Obb, type RayN, type Vec3 } from './types.ts';
import { addScaled, length, normalize, sub } from './vec.ts';

/**
 * The tightest axis-aligned box around an oriented box: along world axis i the box reaches
 * `Σ_k h_k |axis_k[i]|` from its centre (the support of the box in direction ±e_i).
 *
 * @example
 * obbToAabb(obbFromQuaternion([0, 0, 0], [0, 0, Math.sin(Math.PI / 8), Math.cos(Math.PI / 8)], [1, 1, 1]))
 * // { min: [-√2, -√2, -1], max: [√2, √2, 1] }
 */
export function obbToAabb(obb: Obb): Aabb {
  const record = [...obb.center, ...obb.halfExtents, ...obb.axes[0], ...obb.axes[1], ...obb.axes[2]];
  const e: Vec3 = [aabbHalfWidthAt(record, 0, 0), aabbHalfWidthAt(record, 0, 1), aabbHalfWidthAt(record, 0, 2)];
  return { min: sub(obb.center, e), max: addScaled(obb.center, e, 1) };
}

/**
 * Half the width along world axis `k` of the tightest AABB of the box record at offset `o` of
 * BOX_F64 data: `Σ_j h_j |axis_j[k]|`. The one place this sum is written (obbToAabb, the
 * reference's grids, the all-pairs grid's layout; aabb.wgsl on the GPU), each caller adding the
 * padding its own rounding needs.
 *
 * @example
 * aabbHalfWidthAt(boxes.data, 7 * BOX_F64.STRIDE, 2) // box 7's AABB half height
 */
export function aabbHalfWidthAt(d: ArrayLike<number>, o: number, k: number): number {
  return d[o + BOX_F64.HALF]! * Math.abs(d[o + BOX_F64.U + k]!) +
    d[o + BOX_F64.HALF + 1]! * Math.abs(d[o + BOX_F64.V + k]!) +
    d[o + BOX_F64.HALF + 2]! * Math.abs(d[o + BOX_F64.W + k]!);
}

/**
 * The 8 corners. Corner `i` is `center + Σ_k s_k h_k axis_k` where `s_k = +1` if bit k of i is
 * set and −1 otherwise (bit 0 → u, bit 1 → v, bit 2 → w): corner 0 is the all-negative corner,
 * corner 7 the all-positive one, and corners i and i ^ (1 << k) share an edge along axis k.
 *
 * @example
 * obbCorners(obbFromAabb({ min: [0, 0, 0], max: [1, 1, 1] }))[5] // [1, 0, 1]
 */
export function obbCorners(obb: Obb): Vec3[] {
  const corners: Vec3[] = [];
  for (let i = 0; i < 8; i++) {
    let p = obb.center;
    for (let k = 0; k < 3; k++) {
      const s = (i >> k) & 1 ? 1 : -1;
      p = addScaled(p, obb.axes[k] as Vec3, s * (obb.halfExtents[k] as number));
    }
    corners.push(p);
  }
  return corners;
}

/**
 * The 12 edges as corner pairs, for line drawing: first the 4 edges along u, then v, then w.
 * Edge endpoints are exactly the points of {@link obbCorners} (corner i and i | (1 << k) for
 * each i with bit k clear), so an edge along axis k has length 2 h_k.
 *
 * @example
 * for (const [a, b] of obbEdges(toObb(box))) console.log(a, b) // or draw the line a–b
 */
export function obbEdges(obb: Obb): [Vec3, Vec3][] {
  const c = obbCorners(obb);
  const edges: [Vec3, Vec3][] = [];
  for (let k = 0; k < 3; k++) {
    for (let i = 0; i < 8; i++) {
      if (!((i >> k) & 1)) {
        edges.push([c[i] as Vec3, c[i | (1 << k)] as Vec3]);
      }
    }
  }
  return edges;
}

/**
 * An axis-aligned box as a canonical {@link Obb} (identity axes). Needs finite `min ≤ max`
 * componentwise; a zero-thickness AABB is a legal flat box.
 *
 * @example
 * obbFromAabb({ min: [0, 0, 0], max: [2, 4, 6] }) // center [1, 2, 3], halfExtents [1, 2, 3]
 */
export function obbFromAabb(aabb: Aabb): Obb {
  for (const field of ['min', 'max'] as const) {
    const v: unknown = aabb[field];
    if (!Array.isArray(v) && !ArrayBuffer.isView(v)) {
      throw new ValidationError('argument', undefined, field, 'must be an array of 3 numbers');
    }
    for (let k = 0; k < 3; k++) {
      const x: unknown = (v as ArrayLike<unknown>)[k];
      if (typeof x !== 'number' || !Number.isFinite(x)) {
        throw new ValidationError('argument', undefined, `${field}[${k}]`, `is not a finite number (got ${String(x)})`);
      }
    }
  }
  for (let k = 0; k < 3; k++) {
    const lo = aabb.min[k] as number;
    const hi = aabb.max[k] as number;
    if (lo > hi) {
      throw new ValidationError('argument', undefined, `min[${k}]`, `is greater than max[${k}] (${lo} > ${hi})`);
    }
  }
  // Halve before combining so values near ±1.8e308 cannot overflow.
  const half = (k: number): number => (aabb.max[k] as number) / 2 - (aabb.min[k] as number) / 2;
  const mid = (k: number): number => (aabb.min[k] as number) / 2 + (aabb.max[k] as number) / 2;
  return toObb({
    center: [mid(0), mid(1), mid(2)],
    halfExtents: [half(0), half(1), half(2)],
    axes: [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
  });
}

/**
 * Options of {@link rayFromScreen}.
 *
 * @example
 * rayFromScreen(400, 300, 800, 600, invViewProj, { reversedZ: true }) // the centre of an 800 × 600 canvas
 */
export interface ScreenRayOptions {
  /**
   * The projection maps near to clip z = 1 and far to z = 0 (reversed Z, common with WebGPU
   * for depth precision). Default false: near z = 0, far z = 1.
   */
  readonly reversedZ?: boolean;
  /**
   * The clip space of `invViewProj`'s projection: 'webgpu' (default; z in [0, 1], as WebGPU,
   * Metal, Direct3D and three.js's WebGPUCoordinateSystem) or 'webgl' (z in [−1, 1], as OpenGL,
   * WebGL and three.js's WebGLCoordinateSystem, which a three.js camera keeps until a
   * WebGPURenderer first renders with it).
   */
  readonly clipSpace?: 'webgpu' | 'webgl';
}

/** M · (x, y, z, 1) for a column-major 4×4 M: returns [X, Y, Z, W]. */
function transform4(m: ArrayLike<number>, x: number, y: number, z: number): [number, number, number, number] {
  const e = (i: number): number => m[i] as number;
  return [
    e(0) * x + e(4) * y + e(8) * z + e(12),
    e(1) * x + e(5) * y + e(9) * z + e(13),
    e(2) * x + e(6) * y + e(10) * z + e(14),
    e(3) * x + e(7) * y + e(11) * z + e(15),
  ];
}

/**
 * The picking ray through a screen position.
 *
 * `x`, `y` are in pixels with the origin at the top-left corner and y pointing down (DOM and
 * WebGPU framebuffer convention), taken as given: pass `px + 0.5` for the centre of pixel px.
 * They map to NDC `x = 2x/width − 1`, `y = 1 − 2y/height`; the points on the near and far planes
 * (clip z = 0 and 1 in WebGPU's clip space, −1 and 1 with `clipSpace: 'webgl'`) are unprojected
 * by `invViewProj` with the perspective divide. The ray starts on the near plane, points towards the far-plane point, and
 * `maxDistance` is the distance to it, so picking never selects what the camera clips away.
 * With an infinite far plane (the far point has w = 0) the direction is taken towards the
 * point at mid depth and `maxDistance` is +∞. Works for perspective and orthographic
 * projections alike.
 *
 * @param invViewProj - inverse of projection × view, column-major (e.g. gl-matrix / wgpu-matrix).
 * @example
 * canvas.addEventListener('click', (e) => {
 *   const ray = rayFromScreen(e.offsetX, e.offsetY, canvas.clientWidth, canvas.clientHeight, invViewProj)
 * })
 */
export function rayFromScreen(
  x: number,
  y: number,
  width: number,
  height: number,
  invViewProj: Mat4,
  options: ScreenRayOptions = {},
): RayN {
  const arg = (field: string, detail: string): ValidationError =>
    new ValidationError('argument', undefined, field, detail);
  if (!Number.isFinite(x) || !Number.isFinite(y)) {
    throw arg(Number.isFinite(x) ? 'y' : 'x', 'is not a finite number');
  }
  if (!(width > 0 && Number.isFinite(width))) {
    throw arg('width', `must be a finite number > 0 (got ${String(width)})`);
  }
  if (!(height > 0 && Number.isFinite(height))) {
    throw arg('height', `must be a finite number > 0 (got ${String(height)})`);
  }
  if (invViewProj.length !== 16) {
    throw arg('invViewProj', `must have 16 numbers (got ${String(invViewProj.length)})`);
  }
  for (let i = 0; i < 16; i++) {
    const v = invViewProj[i];
    if (typeof v !== 'number' || !Number.isFinite(v)) {
      throw arg(`invViewProj[${i}]`, `is not a finite number (got ${String(v)})`);
    }
  }
  const clipSpace = options.clipSpace ?? 'webgpu';
  if (clipSpace !== 'webgpu' && clipSpace !== 'webgl') {
    throw arg('clipSpace', `must be 'webgpu' or 'webgl' (got ${String(clipSpace)})`);
  }
  const nx = (2 * x) / width - 1;
  const ny = 1 - (2 * y) / height;
  // Clip z of the near and far planes, and of a point in between.
  const zMin = clipSpace === 'webgl' ? -1 : 0;
  const zNear = options.reversedZ === true ? 1 : zMin;
  const zFar = options.reversedZ === true ? zMin : 1;
  const zMid = (zMin + 1) / 2;

  const unproject = (z: number): Vec3 | undefined => {
    const [X, Y, Z, W] = transform4(invViewProj, nx, ny, z);
    if (W === 0) {
      return undefined;
    }
    const p: Vec3 = [X / W, Y / W, Z / W];
    return Number.isFinite(p[0]) && Number.isFinite(p[1]) && Number.isFinite(p[2]) ? p : undefined;
  };

  const near = unproject(zNear);
  if (near === undefined) {
    throw arg('invViewProj', 'maps the near-plane point to w = 0 (or overflows); is it the inverse of projection × view?');
  }
  const far = unproject(zFar);
  let target = far;
  let maxDistance = Infinity;
  if (far === undefined) {
    // Infinite far plane: aim at a finite point in between instead.
    target = unproject(zMid);
  } else {
    maxDistance = length(sub(far, near));
  }
  if (target === undefined) {
    throw arg('invViewProj', 'maps the far-plane and mid-depth points to w = 0; is it the inverse of projection × view?');
  }
  const direction = sub(target, near);
  if (direction[0] === 0 && direction[1] === 0 && direction[2] === 0) {
    throw arg('invViewProj', 'maps the near and far planes to the same point (zero depth range)');
  }
  return { origin: near, direction: normalize(direction), maxDistance };
}
