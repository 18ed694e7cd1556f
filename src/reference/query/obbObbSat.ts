/**
 * OBB–OBB separating-axis test on all 15 candidate axes, float64. CPU twin of
 * `shaders/query/obb_obb_sat.wgsl` (`obbObbSat`, `obbObbSatFaces`).
 *
 * Axes in order A0..A2, B0..B2, then AixBj (id 6 + 3i + j). For each axis L (unnormalised):
 *   sep = |T·L| − Σ hA_k |A_k·L| − Σ hB_k |B_k·L|,   T = cB − cA,
 * evaluated in A's frame (see obbObbSatAt), and its world-unit gap is sep / |L|. The result is the largest gap over the tested axes and the
 * first axis attaining it; `overlap = gap <= tolerance`. Edge-cross axes with |L|² below
 * SAT_EDGE_EPS_SQ are skipped (see constants.ts for why that is conservative). Every axis is
 * evaluated (no early exit) because the largest gap is part of the answer; the per-axis gaps are
 * kept as diagnostics for the comparator.
 *
 * Gottschalk, Lin, Manocha, "OBBTree" (SIGGRAPH 1996); Ericson, "Real-Time Collision Detection" §4.4.
 */
import { SAT_AXIS_NAMES, SAT_EDGE_EPS_SQ, SAT_TOLERANCE, type SatAxisName } from '../../constants.ts';
import { BOX_F64, type Obb, type Vec3 } from '../../core/types.ts';
import type { SatOptions } from '../../core/queries.ts';
import { writeBoxRecord } from '../../core/canonical.ts';

export type { SatOptions };

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

// Per-call scratch (no allocation per call): R[3i + j] = Ai·Bj, and T in A's frame.
const R = new Float64Array(9);
const TA = new Float64Array(3);
const HA = new Float64Array(3);
const HB = new Float64Array(3);

/**
 * SAT between box `ia` of `boxesA` and box `ib` of `boxesB` (BOX_F64 records). Returns the largest
 * gap; details in `out`. `faceOnly` tests the six face axes only (a cheap early-out, and a
 * comparison mode: it can report contact for boxes that an edge-cross axis separates).
 *
 * Works in A's frame (Gottschalk's formulation): with R[i][j] = Ai·Bj and T_A = (T·A0, T·A1, T·A2),
 * every projection is a few products of R and T_A entries. For L = Ai × Bj (i1, i2 and j1, j2 the
 * cyclic successors of i and j): T·L = T_A[i2]·R[i1][j] − T_A[i1]·R[i2][j],
 * rA = hA[i1]|R[i2][j]| + hA[i2]|R[i1][j]|, rB = hB[j1]|R[i][j2]| + hB[j2]|R[i][j1]|, and
 * |L|² = R[i1][j]² + R[i2][j]² (a sum of squares: no cancellation for near-parallel edges).
 * Both boxes must be canonical (orthonormal, right-handed), as toObb makes them.
 */
export function obbObbSatAt(
  boxesA: Float64Array, ia: number, boxesB: Float64Array, ib: number,
  faceOnly: boolean, out: SatScratch,
): number {
  const a = ia * BOX_F64.STRIDE;
  const b = ib * BOX_F64.STRIDE;
  const tx = boxesB[b]! - boxesA[a]!;
  const ty = boxesB[b + 1]! - boxesA[a + 1]!;
  const tz = boxesB[b + 2]! - boxesA[a + 2]!;
  for (let i = 0; i < 3; i++) {
    const ai = a + BOX_F64.U + 3 * i;
    const ax = boxesA[ai]!, ay = boxesA[ai + 1]!, az = boxesA[ai + 2]!;
    for (let j = 0; j < 3; j++) {
      const bj = b + BOX_F64.U + 3 * j;
      R[3 * i + j] = ax * boxesB[bj]! + ay * boxesB[bj + 1]! + az * boxesB[bj + 2]!;
    }
    TA[i] = tx * ax + ty * ay + tz * az;
    HA[i] = boxesA[a + BOX_F64.HALF + i]!;
    HB[i] = boxesB[b + BOX_F64.HALF + i]!;
  }

  out.gap = -Number.MAX_VALUE;
  out.axis = 0;
  out.axisGap.fill(NaN);
  out.axisLenSq.fill(0);
  out.tested.fill(0);
  const axisCount = faceOnly ? 6 : 15;
  for (let id = 0; id < axisCount; id++) {
    let dist: number, rA: number, rB: number, lenSq: number;
    if (id < 3) {
      const i = id;
      dist = Math.abs(TA[i]!);
      rA = HA[i]!;
      rB = HB[0]! * Math.abs(R[3 * i]!) + HB[1]! * Math.abs(R[3 * i + 1]!) + HB[2]! * Math.abs(R[3 * i + 2]!);
      lenSq = 1;
    } else if (id < 6) {
      const j = id - 3;
      dist = Math.abs(TA[0]! * R[j]! + TA[1]! * R[3 + j]! + TA[2]! * R[6 + j]!);
      rA = HA[0]! * Math.abs(R[j]!) + HA[1]! * Math.abs(R[3 + j]!) + HA[2]! * Math.abs(R[6 + j]!);
      rB = HB[j]!;
      lenSq = 1;
    } else {
      const i = ((id - 6) / 3) | 0;
      const j = (id - 6) % 3;
      const i1 = (i + 1) % 3, i2 = (i + 2) % 3;
      const j1 = (j + 1) % 3, j2 = (j + 2) % 3;
      const r1 = R[3 * i1 + j]!, r2 = R[3 * i2 + j]!;
      dist = Math.abs(TA[i2]! * r1 - TA[i1]! * r2);
      rA = HA[i1]! * Math.abs(r2) + HA[i2]! * Math.abs(r1);
      rB = HB[j1]! * Math.abs(R[3 * i + j2]!) + HB[j2]! * Math.abs(R[3 * i + j1]!);
      lenSq = r1 * r1 + r2 * r2;
    }
    out.axisLenSq[id] = lenSq;
    // Near-parallel edges: the face axes cover this direction (constants.ts). The gap is still
    // computed (when L is not zero) as a diagnostic, but never takes part in the answer.
    const skipped = id >= 6 && lenSq < SAT_EDGE_EPS_SQ;
    if (skipped && lenSq === 0) {
      continue;
    }
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

// One-box scratch arrays for the object API.
const oneA = new Float64Array(BOX_F64.STRIDE);
const oneB = new Float64Array(BOX_F64.STRIDE);

/**
 * Do two canonical boxes overlap? Full 15-axis SAT unless `faceOnly`.
 *
 * @example
 * declare const a: BoxInput, b: BoxInput; // the published two-box case
 * obbObbSat(toObb(a), toObb(b)) // { overlap: false, gap: 0.1467, axis: 11, axisName: 'A1xB2' }
 */
export function obbObbSat(a: Obb, b: Obb, options: SatOptions = {}, out: SatScratch = makeSatScratch()): SatResult {
  writeBoxRecord(oneA, 0, a);
  writeBoxRecord(oneB, 0, b);
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
