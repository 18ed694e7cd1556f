/**
 * OBB–OBB separating-axis test on all 15 candidate axes, float64. CPU twin of
 * `shaders/query/obb_obb_sat.wgsl` (`obbObbSat`, `obbObbSatFaces`).
 *
 * Axes in order A0..A2, B0..B2, then AixBj (id 6 + 3i + j). For each axis L (unnormalised):
 *   sep = |T·L| − Σ hA_k |A_k·L| − Σ hB_k |B_k·L|,   T = cB − cA,
 * and its world-unit gap is sep / |L|. The result is the largest gap over the tested axes and the
 * first axis attaining it; `overlap = gap <= tolerance`. Edge-cross axes with |L|² below
 * SAT_EDGE_EPS_SQ are skipped (see constants.ts for why that is conservative). Every axis is
 * evaluated (no early exit) because the largest gap is part of the answer; the per-axis gaps are
 * kept as diagnostics for the comparator.
 *
 * Gottschalk, Lin, Manocha, "OBBTree" (SIGGRAPH 1996); Ericson, "Real-Time Collision Detection" §4.4.
 */
import { SAT_AXIS_NAMES, SAT_EDGE_EPS_SQ, SAT_TOLERANCE, type SatAxisName } from '../../constants.ts';
import { BOX_F64, type Obb, type Vec3 } from '../../core/types.ts';

/** Reusable result of one SAT test, with per-axis diagnostics. */
export interface SatScratch {
  /** Largest gap over tested axes (world units; negative = least penetration found). */
  gap: number;
  /** Axis id (0..14) attaining `gap`. */
  axis: number;
  /**
   * Gap along each axis (world units), also for skipped near-parallel axes (diagnostic only);
   * NaN where the axis was not evaluated (face-only mode, or a zero cross product).
   */
  readonly axisGap: Float64Array;
  /** |L|² of each axis (1 for face axes of canonical boxes). */
  readonly axisLenSq: Float64Array;
  /** Whether each axis took part (false: skipped as near-parallel, or not in face-only mode). */
  readonly tested: Uint8Array;
}

/** A fresh scratch record for {@link obbObbSatAt}. */
export function makeSatScratch(): SatScratch {
  return {
    gap: 0, axis: 0,
    axisGap: new Float64Array(15), axisLenSq: new Float64Array(15), tested: new Uint8Array(15),
  };
}

// Per-call scratch for the two frames: 9 + 9 numbers, reused (no allocation per call).
const A = new Float64Array(9);
const B = new Float64Array(9);

/**
 * SAT between box `ia` of `boxesA` and box `ib` of `boxesB` (BOX_F64 records). Returns the largest
 * gap; details in `out`. `faceOnly` tests the six face axes only (a cheap early-out, and a
 * comparison mode: it can report contact for boxes that an edge-cross axis separates).
 */
export function obbObbSatAt(
  boxesA: Float64Array, ia: number, boxesB: Float64Array, ib: number,
  faceOnly: boolean, out: SatScratch,
): number {
  const a = ia * BOX_F64.STRIDE;
  const b = ib * BOX_F64.STRIDE;
  for (let k = 0; k < 9; k++) {
    A[k] = boxesA[a + BOX_F64.U + k]!;
    B[k] = boxesB[b + BOX_F64.U + k]!;
  }
  const tx = boxesB[b]! - boxesA[a]!;
  const ty = boxesB[b + 1]! - boxesA[a + 1]!;
  const tz = boxesB[b + 2]! - boxesA[a + 2]!;
  const ha0 = boxesA[a + BOX_F64.HALF]!, ha1 = boxesA[a + BOX_F64.HALF + 1]!, ha2 = boxesA[a + BOX_F64.HALF + 2]!;
  const hb0 = boxesB[b + BOX_F64.HALF]!, hb1 = boxesB[b + BOX_F64.HALF + 1]!, hb2 = boxesB[b + BOX_F64.HALF + 2]!;

  out.gap = -Number.MAX_VALUE;
  out.axis = 0;
  out.axisGap.fill(NaN);
  out.axisLenSq.fill(0);
  out.tested.fill(0);
  const axisCount = faceOnly ? 6 : 15;
  for (let id = 0; id < axisCount; id++) {
    // The candidate axis L.
    let lx: number, ly: number, lz: number;
    if (id < 3) {
      lx = A[3 * id]!; ly = A[3 * id + 1]!; lz = A[3 * id + 2]!;
    } else if (id < 6) {
      const j = id - 3;
      lx = B[3 * j]!; ly = B[3 * j + 1]!; lz = B[3 * j + 2]!;
    } else {
      const i = ((id - 6) / 3) | 0;
      const j = (id - 6) % 3;
      const ax = A[3 * i]!, ay = A[3 * i + 1]!, az = A[3 * i + 2]!;
      const bx = B[3 * j]!, by = B[3 * j + 1]!, bz = B[3 * j + 2]!;
      lx = ay * bz - az * by;
      ly = az * bx - ax * bz;
      lz = ax * by - ay * bx;
    }
    const lenSq = lx * lx + ly * ly + lz * lz;
    out.axisLenSq[id] = lenSq;
    // Near-parallel edges: the face axes cover this direction (constants.ts). The gap is still
    // computed below (when L is not zero) as a diagnostic, but never takes part in the answer.
    const skipped = id >= 6 && lenSq < SAT_EDGE_EPS_SQ;
    if (skipped && lenSq === 0) {
      continue;
    }
    const dist = Math.abs(tx * lx + ty * ly + tz * lz);
    const rA =
      ha0 * Math.abs(A[0]! * lx + A[1]! * ly + A[2]! * lz) +
      ha1 * Math.abs(A[3]! * lx + A[4]! * ly + A[5]! * lz) +
      ha2 * Math.abs(A[6]! * lx + A[7]! * ly + A[8]! * lz);
    const rB =
      hb0 * Math.abs(B[0]! * lx + B[1]! * ly + B[2]! * lz) +
      hb1 * Math.abs(B[3]! * lx + B[4]! * ly + B[5]! * lz) +
      hb2 * Math.abs(B[6]! * lx + B[7]! * ly + B[8]! * lz);
    const gap = (dist - rA - rB) / Math.sqrt(lenSq);
    out.axisGap[id] = gap;
    if (skipped) {
      continue;
    }
    out.tested[id] = 1;
    if (gap > out.gap) {
      out.gap = gap;
      out.axis = id;
    }
  }
  return out.gap;
}

/** Result of {@link obbObbSat}. */
export interface SatResult {
  readonly overlap: boolean;
  /** Largest gap over the tested axes, world units (negative: least penetration found). */
  readonly gap: number;
  /** Id (0..14) and name of the axis attaining `gap`. */
  readonly axis: number;
  readonly axisName: SatAxisName;
}

/** Options of the SAT queries. */
export interface SatOptions {
  /** Contact tolerance in world units: `overlap = gap <= tolerance` (default 1e-6). */
  readonly tolerance?: number;
  /** Test the six face axes only (never the final answer; see DESIGN.md). */
  readonly faceOnly?: boolean;
}

// One-box scratch arrays for the object API.
const oneA = new Float64Array(BOX_F64.STRIDE);
const oneB = new Float64Array(BOX_F64.STRIDE);

/** Copies a canonical box into a BOX_F64 record. */
export function writeBoxRecord(box: Obb, data: Float64Array, index: number): void {
  const o = index * BOX_F64.STRIDE;
  data.set(box.center, o + BOX_F64.CENTER);
  data.set(box.halfExtents, o + BOX_F64.HALF);
  data.set(box.axes[0], o + BOX_F64.U);
  data.set(box.axes[1], o + BOX_F64.V);
  data.set(box.axes[2], o + BOX_F64.W);
}

/**
 * Do two canonical boxes overlap? Full 15-axis SAT unless `faceOnly`.
 *
 * @example
 * obbObbSat(toObb(a), toObb(b)) // { overlap: false, gap: 0.1467, axis: 11, axisName: 'A1xB2' }
 */
export function obbObbSat(a: Obb, b: Obb, options: SatOptions = {}, out: SatScratch = makeSatScratch()): SatResult {
  writeBoxRecord(a, oneA, 0);
  writeBoxRecord(b, oneB, 0);
  const gap = obbObbSatAt(oneA, 0, oneB, 0, options.faceOnly ?? false, out);
  return {
    overlap: gap <= (options.tolerance ?? SAT_TOLERANCE),
    gap,
    axis: out.axis,
    axisName: SAT_AXIS_NAMES[out.axis]!,
  };
}

/** The world direction of SAT axis `id` for boxes a and b (unnormalised, as the test uses it). */
export function satAxis(a: Obb, b: Obb, id: number): Vec3 {
  if (id < 3) {
    return a.axes[id]!;
  }
  if (id < 6) {
    return b.axes[id - 3]!;
  }
  const p = a.axes[((id - 6) / 3) | 0]!;
  const q = b.axes[(id - 6) % 3]!;
  return [p[1] * q[2] - p[2] * q[1], p[2] * q[0] - p[0] * q[2], p[0] * q[1] - p[1] * q[0]];
}
