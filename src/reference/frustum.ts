/**
 * Frustum culling, float64: the CPU twin of shaders/frustum/cull.wgsl (`frustumCull`, the
 * conservative plane test; `frustumCullExact` then `frustumExactSat`, the plane test then the
 * OBB–frustum separating-axis test of src/reference/query/obbFrustum.ts on the boxes it leaves),
 * and the frustum's shape (corners and edge directions) that the exact test projects, computed
 * here for both backends.
 */
import { FRUSTUM_EDGES, FRUSTUM_INSIDE_EPS } from '../constants.ts';
import { BOX_F64, type BoxArray } from '../core/types.ts';
import type { Plane } from '../core/frustum.ts';
import { ValidationError } from '../errors.ts';
import { makeObbFrustumScratch, obbFrustumSatAt, type FrustumShape, type ObbFrustumScratch } from './query/obbFrustum.ts';

export { frustumPlanes, rebasePlanes, type Plane } from '../core/frustum.ts';
export type { FrustumShape };

/** Signed distance of box b's centre from plane p, and the box's projected radius on its normal. */
function centreAndRadius(boxes: BoxArray, b: number, p: Plane): { readonly centre: number; readonly radius: number } {
  const o = b * BOX_F64.STRIDE;
  const d = boxes.data;
  const dot = (k: number): number => p[0] * d[k]! + p[1] * d[k + 1]! + p[2] * d[k + 2]!;
  const radius = d[o + BOX_F64.HALF]! * Math.abs(dot(o + BOX_F64.U)) +
    d[o + BOX_F64.HALF + 1]! * Math.abs(dot(o + BOX_F64.V)) +
    d[o + BOX_F64.HALF + 2]! * Math.abs(dot(o + BOX_F64.W));
  return { centre: dot(o + BOX_F64.CENTER) + p[3], radius };
}

/** Signed distance of box b from plane p beyond its projected radius (< 0: entirely outside). */
export function boxPlaneMargin(boxes: BoxArray, b: number, p: Plane): number {
  const { centre, radius } = centreAndRadius(boxes, b, p);
  return centre + radius;
}

/**
 * Whether box b lies on the inner side of plane p by more than the exact cull's slack
 * FRUSTUM_INSIDE_EPS · (|c|₁ + Σh + |d|) (twin of `boxInsidePlane` in shaders/frustum/cull.wgsl):
 * the first stage's shortcut for boxes wholly inside, which needs no separating-axis test.
 */
export function boxInsidePlane(boxes: BoxArray, b: number, p: Plane): boolean {
  const o = b * BOX_F64.STRIDE;
  const d = boxes.data;
  const { centre, radius } = centreAndRadius(boxes, b, p);
  const scale = Math.abs(d[o]!) + Math.abs(d[o + 1]!) + Math.abs(d[o + 2]!) + d[o + BOX_F64.HALF]! + d[o + BOX_F64.HALF + 1]! + d[o + BOX_F64.HALF + 2]!;
  return centre - radius >= FRUSTUM_INSIDE_EPS * (scale + Math.abs(p[3]));
}

/** Options of {@link frustumCull}. */
export interface FrustumCullOptions {
  /**
   * The exact test (default false): a box is kept exactly when it meets the frustum (the plane
   * test, then the OBB–frustum separating-axis test on the boxes it keeps). The default, the
   * plane test alone, is conservative: it keeps every box that meets the frustum, and also boxes
   * near its edges and corners that no single plane separates.
   */
  readonly exact?: boolean;
}

/**
 * Indices of the boxes not entirely outside any plane (or, `exact`, of the boxes that meet the
 * frustum), ascending. Exact needs six planes in frustumPlanes's order (left, right, bottom,
 * top, near, far) that bound a frustum ({@link frustumShape}).
 *
 * @example
 * frustumCull(boxes, frustumPlanes(viewProj)) // Uint32Array [0, 3, 4, …]
 * frustumCull(boxes, frustumPlanes(viewProj), { exact: true }) // no box outside the frustum
 */
export function frustumCull(boxes: BoxArray, planes: readonly Plane[], options: FrustumCullOptions = {}): Uint32Array {
  const out: number[] = [];
  if (options.exact) {
    const shape = frustumShape(planes);
    const scratch = makeObbFrustumScratch();
    for (let b = 0; b < boxes.count; b++) {
      if (frustumCullExactAt(boxes, b, planes, shape, scratch)) {
        out.push(b);
      }
    }
    return Uint32Array.from(out);
  }
  for (let b = 0; b < boxes.count; b++) {
    if (planes.every((p) => boxPlaneMargin(boxes, b, p) >= 0)) {
      out.push(b);
    }
  }
  return Uint32Array.from(out);
}

/**
 * One box of the exact cull (twin of the kernels `frustumCullExact` and `frustumExactSat`, whose
 * list of candidates only carries a box from one to the other): culled when some plane has it
 * wholly outside; kept without more when every plane has it inside by the slack
 * ({@link boxInsidePlane}); otherwise (a candidate) kept when the separating-axis test finds no
 * gap > 0 (its diagnostics are left in `out` then; `out.axisCount` is 0 when the test did not
 * run).
 */
export function frustumCullExactAt(boxes: BoxArray, b: number, planes: readonly Plane[], shape: FrustumShape, out: ObbFrustumScratch): boolean {
  out.axisCount = 0;
  let inside = true;
  for (let k = 0; k < 6; k++) {
    const p = planes[k]!;
    if (boxPlaneMargin(boxes, b, p) < 0) {
      return false;
    }
    inside = inside && boxInsidePlane(boxes, b, p);
  }
  if (inside) {
    return true;
  }
  return obbFrustumSatAt(boxes.data, b, planes, shape, out) <= 0;
}

/**
 * Two edge directions whose unit vectors' cross product has a squared length below this are one
 * direction: sin θ < 1e-12, far above a float64 rounding of one direction, while dropping a
 * distinct direction within it turns a separating axis by 1e-12 rad, moving a gap by at most
 * 1e-12 times the scene's extent, far below float32's resolution.
 */
const FRUSTUM_EDGE_SAME_SQ = 1e-24;

/** Plane pairs whose lines hold the edges: the 4 side edges, then the near and far rectangles'. */
const EDGE_PLANES = [[0, 2], [0, 3], [1, 2], [1, 3], [4, 0], [4, 1], [4, 2], [4, 3], [5, 0], [5, 1], [5, 2], [5, 3]] as const;

/**
 * The shape of the frustum bounded by six planes in frustumPlanes's order (left, right, bottom,
 * top, near, far; normals pointing in): its 8 corners, each where one of left/right, one of
 * bottom/top and one of near/far meet (corner j: bit 0 right, bit 1 top, bit 2 far), and its
 * distinct unit edge directions, n_i × n_j for the 12 pairs of planes that meet along an edge
 * (the side edges left∩bottom, left∩top, right∩bottom, right∩top first), a direction within
 * FRUSTUM_EDGE_SAME_SQ of one already listed dropped: a perspective camera's frustum has 6, an
 * orthographic one's 3 (its side edges are parallel). Float64; the GPU gets it rounded once.
 *
 * Throws a ValidationError when the planes do not bound such a frustum: three planes of a corner
 * (nearly) parallel, or a corner outside one of the other three planes (an empty or inverted
 * frustum, or planes in another order).
 *
 * @example
 * const shape = frustumShape(frustumPlanes(viewProj));
 * shape.edgeCount // 6
 */
export function frustumShape(planes: readonly Plane[]): FrustumShape {
  if (!Array.isArray(planes) || planes.length !== 6 || !planes.every((p) => Array.isArray(p) && p.length === 4 && p.every(Number.isFinite))) {
    throw new ValidationError('argument', undefined, 'planes', 'must be six planes [nx, ny, nz, d] of finite numbers');
  }
  const P = planes as readonly Plane[];
  const corners = new Float64Array(24);
  for (let j = 0; j < 8; j++) {
    const a = P[j & 1]!, b = P[2 + ((j >> 1) & 1)]!, c = P[4 + ((j >> 2) & 1)]!;
    // n_a·p + d_a = 0 for the three planes: p = −(d_a (n_b × n_c) + d_b (n_c × n_a) + d_c (n_a × n_b)) / (n_a · (n_b × n_c)).
    const bc = cross(b, c), ca = cross(c, a), ab = cross(a, b);
    const det = a[0] * bc[0] + a[1] * bc[1] + a[2] * bc[2];
    if (!(Math.abs(det) > 1e-12 * norm(a) * norm(b) * norm(c))) {
      throw new ValidationError('argument', undefined, 'planes', `do not bound a frustum: the planes of corner ${cornerName(j)} do not meet in a point`);
    }
    for (let k = 0; k < 3; k++) {
      corners[3 * j + k] = -(a[3] * bc[k]! + b[3] * ca[k]! + c[3] * ab[k]!) / det;
    }
  }
  // Every corner on the inner side of the three planes it is not on (an empty, inverted or
  // misordered frustum has one outside), within float64 rounding.
  for (let j = 0; j < 8; j++) {
    const x = corners[3 * j]!, y = corners[3 * j + 1]!, z = corners[3 * j + 2]!;
    for (const k of [(j & 1) ^ 1, 2 + (((j >> 1) & 1) ^ 1), 4 + (((j >> 2) & 1) ^ 1)]) {
      const p = P[k]!;
      const side = p[0] * x + p[1] * y + p[2] * z + p[3];
      const tol = 1e-9 * (norm(p) * Math.hypot(x, y, z) + Math.abs(p[3]));
      if (side < -tol) {
        throw new ValidationError('argument', undefined, 'planes', `do not bound a frustum: corner ${cornerName(j)} lies outside plane ${k} by ${-side / norm(p)} (exact culling needs six planes in the order left, right, bottom, top, near, far)`);
      }
    }
  }
  const edges = new Float64Array(3 * FRUSTUM_EDGES);
  let edgeCount = 0;
  for (const [i, k] of EDGE_PLANES) {
    const e = cross(P[i]!, P[k]!);
    const len = Math.hypot(e[0], e[1], e[2]);
    if (!(len > 0)) {
      continue;
    }
    const ex = e[0] / len, ey = e[1] / len, ez = e[2] / len;
    let same = false;
    for (let m = 0; m < edgeCount && !same; m++) {
      const s = cross([edges[3 * m]!, edges[3 * m + 1]!, edges[3 * m + 2]!], [ex, ey, ez]);
      same = s[0] * s[0] + s[1] * s[1] + s[2] * s[2] < FRUSTUM_EDGE_SAME_SQ;
    }
    if (!same) {
      edges.set([ex, ey, ez], 3 * edgeCount);
      edgeCount++;
    }
  }
  return { corners, edges, edgeCount };
}

function cross(a: readonly number[], b: readonly number[]): [number, number, number] {
  return [a[1]! * b[2]! - a[2]! * b[1]!, a[2]! * b[0]! - a[0]! * b[2]!, a[0]! * b[1]! - a[1]! * b[0]!];
}

function norm(p: readonly number[]): number {
  return Math.hypot(p[0]!, p[1]!, p[2]!);
}

function cornerName(j: number): string {
  return `(${j & 1 ? 'right' : 'left'}, ${j & 2 ? 'top' : 'bottom'}, ${j & 4 ? 'far' : 'near'})`;
}
