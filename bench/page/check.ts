/**
 * Checking every implementation's answers against the float64 reference on the same scene, with
 * the comparator of src/compare: a disagreement is 'ambiguous' when the reference shows the
 * decision within float32 error of flipping (a tie between two boxes at the same distance, a
 * grazing ray, touching boxes), 'mismatch' otherwise.
 *
 * Peers report less than our GPU path (Rapier and three return a box and a distance, no face id,
 * no inside flag; pair tests return a boolean): the missing fields are filled from the
 * reference's own diagnostics for the box or pair the peer chose, so only what the peer actually
 * answered is compared: hit box and distance, overlap decision.
 */
import { FACE_NONE, SAT_TOLERANCE, type BoxArray, type ClosestHits, type RayArray, type Vec3 } from '../../src/index.ts';
import { comparePairLists, comparePairs, compareClosestHits, formatComparison, type Comparison } from '../../src/judge/index.ts';
import { makeRayObbScratch, makeSatScratch, obbObbSatAt, rayObbAt } from '../../src/reference/index.ts';
import { HIT_FLAG_INSIDE } from '../../src/advanced.ts';
import { BOX_F64 } from '../../src/index.ts';
import type { CheckSummary } from './measure.ts';
import type { BenchHits } from './impls/types.ts';

/** A check's summary for the row, whether it passed, and printable details of what disagreed. */
export interface CheckResult {
  summary: CheckSummary;
  agrees: boolean;
  details: string;
}

/**
 * `what` names the workload and implementation; `peer` is set when the implementation is not one
 * of ours: the comparator's report says "GPU" for the side being checked, which then reads as the
 * peer's name, and fields the peer does not report were filled from the reference.
 */
function result(c: Comparison, what: string, peer?: string): CheckResult {
  const reasons = [
    ...Object.entries(c.ambiguousByReason).map(([k, v]) => `${k} ${v}`),
    ...Object.entries(c.mismatchByReason).map(([k, v]) => `MISMATCH ${k} ${v}`),
  ].join(', ');
  return {
    summary: { checked: c.total, ambiguous: c.ambiguous, mismatch: c.mismatch, reasons },
    agrees: c.mismatch === 0,
    details: c.ambiguous + c.mismatch > 0
      ? `${what}: ${peer ? formatComparison(c, 3).replace(/\bGPU\b/g, peer) : formatComparison(c, 3)}` +
        (peer ? `\n  (${peer} reports no ${c.family === 'closestHit' ? 'face or inside flag' : 'gap or axis'}; the values shown for it are the reference's for its answer)` : '')
      : '',
  };
}

/**
 * Compares the first `ref.count` hits of `hits` with the reference closest hits of the same rays.
 * Face and inside flags missing from a peer are the reference's for the box the peer chose.
 */
export function checkClosestHits(
  boxes: BoxArray, rays: RayArray, ref: ClosestHits, hits: BenchHits, origin: Vec3, what: string,
): CheckResult {
  const n = ref.count;
  let face = hits.face?.subarray(0, n);
  let inside = hits.inside?.subarray(0, n);
  const filled = !face || !inside;
  if (!face || !inside) {
    face = new Uint8Array(n).fill(FACE_NONE);
    inside = new Uint8Array(n);
    const s = makeRayObbScratch();
    for (let r = 0; r < n; r++) {
      const b = hits.box[r]!;
      if (b >= 0 && b < boxes.count && rayObbAt(boxes.data, b, rays.data, r, true, s)) {
        face[r] = s.face;
        inside[r] = s.flags & HIT_FLAG_INSIDE ? 1 : 0;
      }
    }
  }
  const t = hits.t.subarray(0, n);
  const gpu: ClosestHits = { count: n, box: hits.box.subarray(0, n), t, face, inside };
  return result(compareClosestHits({ boxes, rays, origin }, gpu, ref), what, filled ? name(what) : undefined);
}

/** Compares per-pair overlap decisions; gap and axis, when missing, are the reference's. */
export function checkPairs(
  boxes: BoxArray, pairs: Uint32Array, out: { overlap: Uint8Array; gap?: Float32Array | Float64Array; axis?: Uint8Array },
  origin: Vec3, what: string,
): CheckResult {
  let gap = out.gap;
  let axis = out.axis;
  const filled = !gap || !axis;
  if (!gap || !axis) {
    const n = pairs.length / 2;
    gap = new Float32Array(n);
    axis = new Uint8Array(n);
    const s = makeSatScratch();
    for (let k = 0; k < n; k++) {
      gap[k] = obbObbSatAt(boxes.data, pairs[2 * k]!, boxes.data, pairs[2 * k + 1]!, false, s);
      axis[k] = s.axis;
    }
  }
  return result(comparePairs({ a: boxes, pairs, origin }, { count: pairs.length / 2, overlap: out.overlap, gap, axis }), what,
    filled ? name(what) : undefined);
}

/** Compares an overlapping-pair list (i < j, sorted) with the reference list. */
export function checkPairList(boxes: BoxArray, list: Uint32Array, ref: Uint32Array, origin: Vec3, what: string): CheckResult {
  const c = comparePairLists({ a: boxes, origin }, list, ref);
  return result(c, what, name(what).startsWith('gpu') ? undefined : name(what));
}

/** The implementation's name: the last word of a check's `what`. */
function name(what: string): string {
  return what.slice(what.lastIndexOf(' ') + 1);
}

/**
 * The reference's all-pairs answer, computed fast enough to check 10k+ moving boxes: the same
 * float64 SAT (`obbObbSatAt`, pair order i < j as in `allPairs`) on every pair whose bounding
 * spheres come within `margin` of each other, found with a sweep along x. Pairs farther apart are
 * separated by far more than the overlap tolerance; were one missed, an implementation reporting it
 * would show up as a mismatch, never pass silently.
 */
export function referencePairsCulled(boxes: BoxArray, margin = 0.05): Uint32Array {
  const n = boxes.count;
  const d = boxes.data;
  const radius = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const o = i * BOX_F64.STRIDE + BOX_F64.HALF;
    radius[i] = Math.hypot(d[o]!, d[o + 1]!, d[o + 2]!);
  }
  let rMax = 0;
  for (let i = 0; i < n; i++) {
    rMax = Math.max(rMax, radius[i]!);
  }
  const order = Uint32Array.from({ length: n }, (_, i) => i).sort((a, b) => d[a * BOX_F64.STRIDE]! - d[b * BOX_F64.STRIDE]!);
  const s = makeSatScratch();
  const found: number[] = [];
  for (let a = 0; a < n; a++) {
    const i = order[a]!;
    const oi = i * BOX_F64.STRIDE;
    const xi = d[oi]!;
    for (let b = a + 1; b < n; b++) {
      const j = order[b]!;
      const oj = j * BOX_F64.STRIDE;
      if (d[oj]! - xi > radius[i]! + rMax + margin) {
        break;
      }
      const reach = radius[i]! + radius[j]! + margin;
      const dx = d[oj]! - xi, dy = d[oj + 1]! - d[oi + 1]!, dz = d[oj + 2]! - d[oi + 2]!;
      if (dx * dx + dy * dy + dz * dz > reach * reach) {
        continue;
      }
      const lo = Math.min(i, j), hi = Math.max(i, j);
      if (obbObbSatAt(d, lo, d, hi, false, s) <= SAT_TOLERANCE) {
        found.push(lo, hi);
      }
    }
  }
  const pairs = Array.from({ length: found.length / 2 }, (_, k) => [found[2 * k]!, found[2 * k + 1]!] as const);
  pairs.sort((p, q) => p[0] - q[0] || p[1] - q[1]);
  return Uint32Array.from(pairs.flat());
}
