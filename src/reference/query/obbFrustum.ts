/**
 * OBB–frustum separating-axis test, float64. CPU twin of `shaders/query/obb_frustum.wgsl`
 * (`obbFrustumSat`): same axis order, same statement order, same constants.
 *
 * A frustum (six planes bounding a convex hexahedron, given with its 8 corners and its distinct
 * edge directions: {@link FrustumShape}, made by `frustumShape` in src/reference/frustum.ts) and a
 * box meet exactly when no separating axis exists among (Gottschalk, Lin, Manocha, "OBBTree",
 * SIGGRAPH 1996; Ericson, "Real-Time Collision Detection" §4.4 and §5.2.1):
 * - P0..P5 (ids 0–5): the frustum's planes, one-sided: the box wholly on the outer side of plane
 *   k, gap = −(n·c + d + r), r = Σ h_i |n·a_i| (the conservative cull's test);
 * - B0..B2 (ids 6–8): the box's axes: the frustum's corners projected on a_i, against ±h_i;
 * - EmxBi (id 9 + 3m + i): the cross product of frustum edge direction m with box axis i,
 *   unnormalised L = a_i × e_m, the frustum's projection from its corners against the box's
 *   radius Σ h_k |a_k·L|, gap = separation / |L|.
 * Edge-cross axes with |L|² < SAT_EDGE_EPS_SQ are skipped, as the box–box SAT skips them
 * (src/constants.ts): conservative, a skipped axis can only make the test report contact for a
 * box that it alone separates, never a false separation. The corner-based projections make every
 * tested axis sound; the three families make the test complete (a plane containing a face of
 * either solid, or an edge of each, separates two disjoint convex polyhedra).
 *
 * The edge crosses are evaluated in the box's frame: with the corners q_j relative to the box's
 * centre in its frame (Q_j = ((q_j − c)·u, (q_j − c)·v, (q_j − c)·w)) and the edge in its frame
 * (E = (e·u, e·v, e·w)), a_0 × e is (0, −E_z, E_y), a_1 × e is (E_z, 0, −E_x), a_2 × e is
 * (−E_y, E_x, 0); projections are Q_j·L, the box's radius h·|L| (componentwise), |L|² the sum
 * of the two squares (no cancellation for near-parallel edges).
 */
import { F32_MAX, FRUSTUM_EDGES, SAT_EDGE_EPS_SQ } from '../../constants.ts';
import type { Plane } from '../../core/frustum.ts';
import { BOX_F64 } from '../../core/types.ts';

/**
 * The shape of a frustum that the exact test projects: its 8 corners (corner j = left/right by
 * bit 0, bottom/top by bit 1, near/far by bit 2, the meeting point of those three planes) and its
 * distinct unit edge directions (the 4 side edges, then the near and the far rectangles' edges,
 * each direction once: 6 for a perspective camera's frustum, 3 for an orthographic one's). Made by `frustumShape` (src/reference/frustum.ts).
 */
export interface FrustumShape {
  /** The corners, x y z each (24 numbers). */
  readonly corners: Float64Array;
  /** The unit edge directions, x y z each (3 · edgeCount numbers used, room for FRUSTUM_EDGES). */
  readonly edges: Float64Array;
  /** How many edge directions (1..FRUSTUM_EDGES). */
  readonly edgeCount: number;
}

/** Axes of the test: 6 planes, 3 box axes, 3 per edge direction. */
export const OBB_FRUSTUM_AXES = 9 + 3 * FRUSTUM_EDGES;

/** Reusable result of one OBB–frustum test, with per-axis diagnostics. */
export interface ObbFrustumScratch {
  /** Largest gap over the tested axes (> 0: separated; ≤ 0: the box meets the frustum). */
  gap: number;
  /** Axis id attaining `gap` ({@link obbFrustumAxisName}). */
  axis: number;
  /** Axes evaluated: 9 + 3 · edgeCount. */
  axisCount: number;
  /** Gap along each axis (world units for unit plane normals), also for skipped axes (diagnostic); NaN where L = 0. */
  readonly axisGap: Float64Array;
  /** |L|² of each axis (|n|² for a plane, 1 for a box axis). */
  readonly axisLenSq: Float64Array;
  /** Whether each axis took part (false: a near-parallel edge cross, skipped). */
  readonly tested: Uint8Array;
}

/** A fresh scratch record for {@link obbFrustumSatAt}. */
export function makeObbFrustumScratch(): ObbFrustumScratch {
  return {
    gap: 0, axis: 0, axisCount: 0,
    axisGap: new Float64Array(OBB_FRUSTUM_AXES), axisLenSq: new Float64Array(OBB_FRUSTUM_AXES), tested: new Uint8Array(OBB_FRUSTUM_AXES),
  };
}

/**
 * The name of axis `id`: `P0`..`P5` (planes), `B0`..`B2` (box axes), `E3xB1` (edge direction 3 ×
 * box axis 1).
 *
 * @example
 * obbFrustumAxisName(16) // 'E2xB1'
 */
export function obbFrustumAxisName(id: number): string {
  if (id < 6) {
    return `P${id}`;
  }
  if (id < 9) {
    return `B${id - 6}`;
  }
  return `E${Math.floor((id - 9) / 3)}xB${(id - 9) % 3}`;
}

// Per-call scratch: the corners in the box's frame.
const Q = new Float64Array(24);

function consider(out: ObbFrustumScratch, id: number, gap: number, lenSq: number): void {
  out.axisGap[id] = gap;
  out.axisLenSq[id] = lenSq;
  out.tested[id] = 1;
  if (gap > out.gap) {
    out.gap = gap;
    out.axis = id;
  }
}

/** An edge-cross axis: skipped when near-parallel (its gap kept as a diagnostic where L ≠ 0). */
function edge(out: ObbFrustumScratch, id: number, sep: number, lenSq: number): void {
  if (lenSq < SAT_EDGE_EPS_SQ) {
    out.axisGap[id] = lenSq === 0 ? NaN : sep / Math.sqrt(lenSq);
    out.axisLenSq[id] = lenSq;
    return; // near-parallel: the face axes cover this direction (src/constants.ts, SAT_EDGE_EPS_SQ)
  }
  consider(out, id, sep / Math.sqrt(lenSq), lenSq);
}

/**
 * SAT between box `b` of `boxes` (BOX_F64 records, canonical) and the frustum of `planes` (inner
 * side n·p + d ≥ 0) with its `shape`, all in one frame. Returns the largest gap (> 0: separated);
 * details in `out`. Every axis is evaluated (the largest gap and its axis are the diagnostic the
 * comparator reads).
 */
export function obbFrustumSatAt(boxes: Float64Array, b: number, planes: readonly Plane[], shape: FrustumShape, out: ObbFrustumScratch): number {
  const o = b * BOX_F64.STRIDE;
  const cx = boxes[o]!, cy = boxes[o + 1]!, cz = boxes[o + 2]!;
  const hx = boxes[o + BOX_F64.HALF]!, hy = boxes[o + BOX_F64.HALF + 1]!, hz = boxes[o + BOX_F64.HALF + 2]!;
  const ux = boxes[o + BOX_F64.U]!, uy = boxes[o + BOX_F64.U + 1]!, uz = boxes[o + BOX_F64.U + 2]!;
  const vx = boxes[o + BOX_F64.V]!, vy = boxes[o + BOX_F64.V + 1]!, vz = boxes[o + BOX_F64.V + 2]!;
  // w as stored (u × v of the canonical box; the kernel computes it, as the plane cull's twin reads it).
  const wx = boxes[o + BOX_F64.W]!, wy = boxes[o + BOX_F64.W + 1]!, wz = boxes[o + BOX_F64.W + 2]!;
  out.gap = -F32_MAX;
  out.axis = 0;
  out.axisCount = 9 + 3 * shape.edgeCount;
  out.axisGap.fill(NaN);
  out.axisLenSq.fill(0);
  out.tested.fill(0);
  // P0..P5: the planes, one-sided: gap = −(n·c + d + r).
  for (let k = 0; k < 6; k++) {
    const p = planes[k]!;
    const r = hx * Math.abs(p[0] * ux + p[1] * uy + p[2] * uz) + hy * Math.abs(p[0] * vx + p[1] * vy + p[2] * vz) + hz * Math.abs(p[0] * wx + p[1] * wy + p[2] * wz);
    consider(out, k, -(p[0] * cx + p[1] * cy + p[2] * cz + p[3] + r), p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
  }
  // The corners in the box's frame, and their extent on each box axis.
  let loX = F32_MAX, loY = F32_MAX, loZ = F32_MAX, hiX = -F32_MAX, hiY = -F32_MAX, hiZ = -F32_MAX;
  const corners = shape.corners;
  for (let j = 0; j < 8; j++) {
    const rx = corners[3 * j]! - cx, ry = corners[3 * j + 1]! - cy, rz = corners[3 * j + 2]! - cz;
    const qx = rx * ux + ry * uy + rz * uz, qy = rx * vx + ry * vy + rz * vz, qz = rx * wx + ry * wy + rz * wz;
    Q[3 * j] = qx;
    Q[3 * j + 1] = qy;
    Q[3 * j + 2] = qz;
    loX = Math.min(loX, qx); loY = Math.min(loY, qy); loZ = Math.min(loZ, qz);
    hiX = Math.max(hiX, qx); hiY = Math.max(hiY, qy); hiZ = Math.max(hiZ, qz);
  }
  // B0..B2: the frustum's extent on a_i against ±h_i.
  consider(out, 6, Math.max(loX - hx, -hx - hiX), 1);
  consider(out, 7, Math.max(loY - hy, -hy - hiY), 1);
  consider(out, 8, Math.max(loZ - hz, -hz - hiZ), 1);
  // EmxBi: L = a_i × e_m in the box's frame.
  const edges = shape.edges;
  for (let m = 0; m < shape.edgeCount; m++) {
    const ex = edges[3 * m]!, ey = edges[3 * m + 1]!, ez = edges[3 * m + 2]!;
    const Ex = ex * ux + ey * uy + ez * uz, Ey = ex * vx + ey * vy + ez * vz, Ez = ex * wx + ey * wy + ez * wz;
    let lo0 = F32_MAX, lo1 = F32_MAX, lo2 = F32_MAX, hi0 = -F32_MAX, hi1 = -F32_MAX, hi2 = -F32_MAX;
    for (let j = 0; j < 8; j++) {
      const qx = Q[3 * j]!, qy = Q[3 * j + 1]!, qz = Q[3 * j + 2]!;
      // L0 = (0, −Ez, Ey), L1 = (Ez, 0, −Ex), L2 = (−Ey, Ex, 0).
      const s0 = qy * -Ez + qz * Ey, s1 = qx * Ez + qz * -Ex, s2 = qx * -Ey + qy * Ex;
      lo0 = Math.min(lo0, s0); lo1 = Math.min(lo1, s1); lo2 = Math.min(lo2, s2);
      hi0 = Math.max(hi0, s0); hi1 = Math.max(hi1, s1); hi2 = Math.max(hi2, s2);
    }
    const ax = Math.abs(Ex), ay = Math.abs(Ey), az = Math.abs(Ez);
    const r0 = hy * az + hz * ay, r1 = hx * az + hz * ax, r2 = hx * ay + hy * ax;
    edge(out, 9 + 3 * m, Math.max(lo0 - r0, -r0 - hi0), Ey * Ey + Ez * Ez);
    edge(out, 10 + 3 * m, Math.max(lo1 - r1, -r1 - hi1), Ex * Ex + Ez * Ez);
    edge(out, 11 + 3 * m, Math.max(lo2 - r2, -r2 - hi2), Ex * Ex + Ey * Ey);
  }
  return out.gap;
}
