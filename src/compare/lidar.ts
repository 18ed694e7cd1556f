/**
 * A LiDAR sweep judged against the float64 reference: every ray classified (agree / ambiguous /
 * mismatch, the case naming its channel and column) from the sweep's range and box images alone,
 * and the per-box return counts judged against the reference's. The rays, the boxes at each
 * column's time and minRange come from the contract (src/core/lidar.ts, src/reference/lidar.ts).
 */
import type { BoxArray, Vec3 } from '../core/types.ts';
import { checkMotion, type LidarDescription, type LidarMotion, type LidarPose } from '../core/lidar.ts';
import { columnBoxes, countReturns, lidarRays } from '../reference/lidar.ts';
import { closestHitGrid } from '../reference/accel.ts';
import type { ClosestHits } from '../reference/raycast.ts';
import { compareClosestHits, Tally, type CaseReport, type CompareOptions, type Comparison } from './compare.ts';

/** What a sweep comparison needs: the inputs the implementation saw. */
export interface LidarCompareInput {
  readonly boxes: BoxArray;
  readonly desc: LidarDescription;
  readonly pose: LidarPose;
  readonly motion?: LidarMotion;
  /** Box masks of the set and the sweep's mask (default: none). */
  readonly boxMasks?: Uint32Array;
  readonly mask?: number;
  /** The floating origin the implementation's positions were re-based to (default [0, 0, 0]). */
  readonly origin?: Vec3;
  readonly unitRoundoff?: number;
  /** Judge only these columns (a spot check of a large sweep); default every column. */
  readonly columns?: readonly number[];
}

/** Every case of a sweep is listed by the per-column comparisons up to this many (then counted only). */
const INNER_CASES = 100_000;

/** A sweep's comparison, with every ray it found ambiguous (for compareReturnsPerBox). */
export interface LidarComparison extends Comparison {
  readonly ambiguousRays: ReadonlySet<number>;
}

/** The images of a sweep: range (−1 = no return) and box (−1 = none), channel-major. */
export interface SweepImages {
  readonly range: ArrayLike<number>;
  readonly box: ArrayLike<number>;
}

/**
 * Classifies every ray of a sweep. Ray r (channel c = ⌊r / A⌋, column a = r mod A) is judged
 * like a closest hit without face or inside flag, against the boxes at the column's time, with
 * the sensor's minRange ('min-range-edge' when the hit is within its bound of it).
 *
 * @example
 * const cmp = compareLidarSweep({ boxes, desc, pose, motion, origin: set.origin }, await gpu.lidarSweep(sensor, set, pose, motion));
 * cmp.ok // no mismatch; cmp.cases[k].detail names "channel 12, column 301"
 */
export function compareLidarSweep(input: LidarCompareInput, sweep: SweepImages, options: CompareOptions = {}): LidarComparison {
  const { desc, boxes } = input;
  checkMotion(input.motion ?? {}, boxes.count);
  const C = desc.elevations.length;
  const A = desc.azimuthSteps;
  const n = C * A;
  const columns = input.columns;
  if (columns && !columns.every((a) => Number.isInteger(a) && a >= 0 && a < A)) {
    throw new RangeError(`compareLidarSweep: columns must be column indices below ${A}`);
  }
  if (sweep.range.length !== n || sweep.box.length !== n) {
    throw new RangeError(`compareLidarSweep: the sweep has ${sweep.range.length} ranges and ${sweep.box.length} boxes for ${C} × ${A} = ${n} rays`);
  }
  const rays = lidarRays(desc, input.pose, input.motion?.poseEnd);
  const timed = columnBoxes(boxes, desc, input.motion?.boxMotion);
  const common = {
    ...(input.origin ? { origin: input.origin } : {}),
    ...(input.unitRoundoff !== undefined ? { unitRoundoff: input.unitRoundoff } : {}),
    minDistance: desc.minRange ?? 0,
    // The implementation derives the rays itself (sines, cosines, the pose): nothing is exact.
    exactInputs: false,
  };
  const tally = new Tally(options.maxCases ?? 20);
  const where = (r: number): string => `channel ${Math.floor(r / A)}, column ${r % A}`;
  const ambiguousRays = new Set<number>();
  const absorb = (cmp: Comparison, index: (k: number) => number): void => {
    tally.agreeing(cmp.agree);
    tally.worstRatio = Math.max(tally.worstRatio, cmp.worstRatio);
    const listed = new Map<string, number>();
    for (const c of cmp.cases) {
      const r = index(c.index);
      if (c.verdict === 'ambiguous') {
        ambiguousRays.add(r);
      }
      listed.set(`${c.verdict}:${c.reason}`, (listed.get(`${c.verdict}:${c.reason}`) ?? 0) + 1);
      tally.add({ ...c, index: r, detail: c.detail.replace(/^ray \d+:/, `ray ${r} (${where(r)}):`), input: { ...c.input, channel: Math.floor(r / A), column: r % A } } satisfies CaseReport);
    }
    // Cases beyond the inner lists (INNER_CASES) are counted by reason only.
    for (const [verdict, byReason] of [['ambiguous', cmp.ambiguousByReason], ['mismatch', cmp.mismatchByReason]] as const) {
      for (const [reason, count] of Object.entries(byReason)) {
        tally.counted(verdict, reason, count - (listed.get(`${verdict}:${reason}`) ?? 0));
      }
    }
  };
  const hitsOf = (index: (k: number) => number, count: number): ClosestHits => {
    const box = new Int32Array(count);
    const t = new Float64Array(count);
    for (let k = 0; k < count; k++) {
      const r = index(k);
      box[k] = sweep.box[r]! < 0 ? -1 : sweep.box[r]!;
      t[k] = box[k]! >= 0 ? sweep.range[r]! : Infinity;
    }
    return { count, box, t, face: new Uint8Array(count).fill(0xff), inside: new Uint8Array(count) };
  };
  const filters = (count: number) => (input.boxMasks
    ? { options: { boxMasks: input.boxMasks, rayMasks: new Uint32Array(count).fill((input.mask ?? 0xffffffff) >>> 0) } }
    : {});
  const quiet = { ...options, checkFaces: false, maxCases: INNER_CASES };
  if (!timed.moving && !columns) {
    // The reference's closest hits through the exact grid broad phase (src/reference/accel.ts),
    // not the brute force the comparator would otherwise run: the same answers, hours faster
    // on a sweep over 100k boxes.
    const f = filters(n);
    const ref = closestHitGrid(boxes, rays, 'options' in f ? f.options : {});
    absorb(compareClosestHits({ boxes, rays, ...common, ...f }, hitsOf((k) => k, n), ref, quiet), (k) => k);
  } else {
    const S = rays.data.length / n;
    const column = { count: C, data: new Float64Array(C * S) };
    for (const a of columns ?? Array.from({ length: A }, (_, k) => k)) {
      for (let c = 0; c < C; c++) {
        column.data.set(rays.data.subarray((c * A + a) * S, (c * A + a + 1) * S), c * S);
      }
      const index = (k: number): number => k * A + a;
      absorb(compareClosestHits({ boxes: timed.at(a), rays: column, ...common, ...filters(C) }, hitsOf(index, C), undefined, quiet), index);
    }
  }
  return { ...tally.result('lidarSweep', columns ? C * columns.length : n), ambiguousRays };
}

/**
 * Judges per-box return counts (visibility counts for ground-truth labels) against the reference
 * sweep's: a box agrees when the counts are equal, is ambiguous when they differ by no more than
 * the rays the ray comparison found ambiguous that involve it, and is a mismatch otherwise.
 * `returnsPerBox` defaults to the counts of `sweep.box` (so only the images are judged).
 */
export function compareReturnsPerBox(
  referenceBox: ArrayLike<number>, sweep: SweepImages & { readonly returnsPerBox?: ArrayLike<number> }, boxCount: number,
  ambiguousRays: ReadonlySet<number> = new Set(), options: CompareOptions = {},
): Comparison {
  const ref = countReturns(Int32Array.from(referenceBox), boxCount);
  const own = sweep.returnsPerBox ?? countReturns(Int32Array.from(sweep.box), boxCount);
  if (own.length !== boxCount) {
    throw new RangeError(`compareReturnsPerBox: ${own.length} counts for ${boxCount} boxes`);
  }
  const slack = new Uint32Array(boxCount);
  for (const r of ambiguousRays) {
    for (const b of [referenceBox[r]!, sweep.box[r]!]) {
      if (b >= 0 && b < boxCount) {
        slack[b]!++;
      }
    }
  }
  const tally = new Tally(options.maxCases ?? 20);
  for (let b = 0; b < boxCount; b++) {
    const diff = Math.abs(own[b]! - ref[b]!);
    if (diff === 0) {
      tally.ok();
      continue;
    }
    const verdict = diff <= slack[b]! ? 'ambiguous' : 'mismatch';
    tally.add({
      index: b, verdict, reason: verdict === 'ambiguous' ? 'ambiguous-rays' : 'return-count',
      detail: `box ${b}: ${own[b]} returns, reference ${ref[b]} (${slack[b]} ambiguous rays involve it)`, input: { box: b },
    });
  }
  return tally.result('lidarReturnsPerBox', boxCount);
}
